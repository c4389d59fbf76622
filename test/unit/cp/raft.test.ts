// The rules of src/cp/raft.ts one by one: a node driven by hand, or a few nodes on the
// instant network of raft-helpers.ts. raft-sim.test.ts checks them together under faults.

import { describe, expect, it } from 'vitest';
import { RaftNode, type RaftEntry, type RaftPersistentState, type RaftSnapshot } from '../../../src/cp/raft.js';
import {
  CFG,
  Net,
  append,
  applied,
  cmd,
  noop,
  outputs,
  persistOf,
  preVote,
  sent,
  sentTo,
  startNode,
  timerOf,
  vote,
  type Msg,
} from './raft-helpers.js';

const ok = (term: number, matchIndex: number, seq: number): Msg<'append-response'> => ({ type: 'append-response', term, success: true, matchIndex, hintIndex: 0, seq });
const refused = (term: number, hintIndex: number, seq: number): Msg<'append-response'> => ({ type: 'append-response', term, success: false, matchIndex: 0, hintIndex, seq });
const preVoteAnswer = (term: number, preVoteTerm: number, granted: boolean): Msg<'pre-vote-response'> => ({ type: 'pre-vote-response', term, preVoteTerm, granted });
const voteAnswer = (term: number, granted: boolean): Msg<'vote-response'> => ({ type: 'vote-response', term, granted });
const membership = (index: number, term: number, members: string[]): RaftEntry => ({ index, term, kind: 'membership', members });
const persisted = (p: Partial<RaftPersistentState>): RaftPersistentState => ({ term: 0, votedFor: undefined, snapshot: undefined, entries: [], ...p });

/** `a` (members a, b, c) elected by hand at 100 ms in term `term` + 1; nothing answered yet. */
function leaderByHand(p?: RaftPersistentState): { a: RaftNode; outs: ReturnType<RaftNode['receive']> } {
  const { raft: a } = startNode('a', { persisted: p });
  a.timerFired(100);
  const term = a.status().term + 1;
  a.receive('b', preVoteAnswer(term - 1, term, true), 100);
  const outs = a.receive('b', voteAnswer(term, true), 100);
  expect(a.status()).toMatchObject({ role: 'leader', term });
  return { a, outs };
}

describe('RaftNode: inputs and timers', () => {
  it('arms the first election timer within [T, 2T) from the injected random source', () => {
    expect(timerOf(startNode('a', { random: 0 }).outs)).toBe(100);
    expect(timerOf(startNode('a', { random: 0.5 }).outs)).toBe(150);
    expect(timerOf(startNode('a', { random: 0.999 }).outs)).toBeCloseTo(199.9);
  });

  it('ends every output list with exactly one timer', () => {
    const { raft } = startNode('a');
    for (const outs of [raft.timerFired(100), raft.receive('b', preVoteAnswer(0, 1, true), 100), raft.propose('x', 100).outputs, raft.read(100).outputs]) {
      expect(outs[outs.length - 1]?.type).toBe('timer');
      expect(outputs(outs, 'timer')).toHaveLength(1);
    }
  });

  it('a node outside its configuration never campaigns', () => {
    const { raft, outs } = startNode('d');
    expect(timerOf(outs)).toBeUndefined();
    expect(sent(raft.timerFired(10_000), 'pre-vote')).toEqual([]);
    expect(raft.status().role).toBe('follower');
  });

  it('refuses a bad configuration, and inputs before start', () => {
    expect(() => new RaftNode({ self: 'a', initialMembers: ['a'], config: { leaderElectionTimeoutMs: 0 }, random: Math.random })).toThrow(RangeError);
    const raft = new RaftNode({ self: 'a', initialMembers: ['a'], config: CFG, random: Math.random });
    expect(() => raft.timerFired(0)).toThrow(/start/);
    raft.start(0);
    expect(() => raft.start(0)).toThrow(/twice/);
  });
});

describe('RaftNode: elections', () => {
  it('start with a pre-vote for term + 1 that changes no state', () => {
    const { raft } = startNode('a');
    const outs = raft.timerFired(100);
    expect(persistOf(outs)).toBeUndefined();
    expect(sent(outs, 'pre-vote').map((s) => s.to)).toEqual(['b', 'c']);
    expect(sentTo(outs, 'pre-vote', 'b')).toEqual(preVote(1, 0, 0));
    expect(raft.status()).toMatchObject({ role: 'pre-candidate', term: 0, votedFor: undefined });
    expect(timerOf(outs)).toBe(200); // the round lasts [T, 2T)
  });

  it('with a majority of pre-votes the node stands: term and vote are persisted before it asks for votes', () => {
    const { raft } = startNode('a');
    raft.timerFired(100);
    const outs = raft.receive('b', preVoteAnswer(0, 1, true), 101);
    expect(outs[0]).toMatchObject({ type: 'persist', term: 1, votedFor: 'a' });
    expect(sent(outs, 'vote').map((s) => s.to)).toEqual(['b', 'c']);
    expect(sentTo(outs, 'vote', 'c')).toEqual(vote(1, 0, 0));
    expect(raft.status()).toMatchObject({ role: 'candidate', term: 1, votedFor: 'a' });
  });

  it('counts only granted pre-votes of its round from members', () => {
    const { raft } = startNode('a');
    raft.timerFired(100);
    raft.receive('b', preVoteAnswer(0, 1, false), 101);
    raft.receive('b', preVoteAnswer(0, 7, true), 101);
    raft.receive('x', preVoteAnswer(0, 1, true), 101);
    raft.receive('a', preVoteAnswer(0, 1, true), 101);
    expect(raft.status().role).toBe('pre-candidate');
  });

  it('a majority of votes makes a leader, which appends a no-op of its term and sends it', () => {
    const { raft } = startNode('a');
    raft.timerFired(100);
    raft.receive('b', preVoteAnswer(0, 1, true), 101);
    expect(raft.receive('b', voteAnswer(1, false), 102).filter((o) => o.type !== 'timer')).toEqual([]);
    expect(raft.receive('x', voteAnswer(1, true), 102).filter((o) => o.type !== 'timer')).toEqual([]);
    const outs = raft.receive('c', voteAnswer(1, true), 102);
    expect(outs[0]).toMatchObject({ type: 'persist', truncateFrom: 1, entries: [noop(1, 1)] });
    expect(outputs(outs, 'became-leader')).toEqual([{ type: 'became-leader', term: 1 }]);
    expect(outputs(outs, 'leader-changed')).toEqual([{ type: 'leader-changed', term: 1, leaderId: 'a' }]);
    expect(sentTo(outs, 'append', 'b')).toMatchObject({ term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [noop(1, 1)], leaderCommit: 0 });
    expect(sentTo(outs, 'append', 'c')).toMatchObject({ entries: [noop(1, 1)] });
    expect(raft.status()).toMatchObject({ role: 'leader', leaderId: 'a', lastLogIndex: 1, commitIndex: 0 });
  });

  it('a round without a result starts over with a pre-vote after [T, 2T)', () => {
    const { raft } = startNode('a');
    raft.timerFired(100);
    expect(timerOf(raft.receive('b', preVoteAnswer(0, 1, true), 101))).toBe(201);
    const outs = raft.timerFired(201);
    expect(raft.status()).toMatchObject({ role: 'pre-candidate', term: 1 });
    expect(sentTo(outs, 'pre-vote', 'b')).toEqual(preVote(2, 0, 0));
  });

  it('a single member elects itself and commits at once', () => {
    const { raft } = startNode('a', { members: ['a'] });
    const outs = raft.timerFired(100);
    expect(raft.status()).toMatchObject({ role: 'leader', term: 1, commitIndex: 1 });
    expect(applied(outs)).toEqual([noop(1, 1)]);
    const p = raft.propose('x', 101);
    expect(p.ok && applied(p.outputs)).toEqual([cmd(2, 1, 'x')]);
    const r = raft.read(102);
    expect(r.ok && outputs(r.outputs, 'read-ready')).toEqual([{ type: 'read-ready', readIds: [1] }]);
  });

  it('on an instant network the first to time out wins', () => {
    const net = new Net(['a', 'b', 'c'], 'b');
    net.elect('b');
    expect(net.leader()).toBe('b');
    net.advance(CFG.leaderHeartbeatPeriodMs); // followers learn the commit index with the next request
    for (const id of ['a', 'b', 'c']) expect(net.node(id).status()).toMatchObject({ term: 1, leaderId: 'b', commitIndex: 1 });
  });
});

describe('RaftNode: granting votes', () => {
  it('one vote per term, persisted before the answer', () => {
    const { raft } = startNode('b');
    let outs = raft.receive('a', vote(1, 0, 0), 5);
    expect(outs[0]).toMatchObject({ type: 'persist', term: 1, votedFor: 'a' });
    expect(outs.findIndex((o) => o.type === 'send')).toBeGreaterThan(0);
    expect(sentTo(outs, 'vote-response', 'a')).toEqual(voteAnswer(1, true));
    expect(sentTo(raft.receive('c', vote(1, 0, 0), 6), 'vote-response', 'c')).toEqual(voteAnswer(1, false));
    expect(sentTo(raft.receive('a', vote(1, 0, 0), 7), 'vote-response', 'a')).toEqual(voteAnswer(1, true)); // a duplicate
    expect(sentTo(raft.receive('c', vote(0, 0, 0), 8), 'vote-response', 'c')).toEqual(voteAnswer(1, false)); // an old term
    outs = raft.receive('c', vote(2, 0, 0), 9); // a new term: a new vote
    expect(outs[0]).toMatchObject({ type: 'persist', term: 2, votedFor: 'c' });
    expect(sentTo(outs, 'vote-response', 'c')).toEqual(voteAnswer(2, true));
  });

  it('only to a log at least as up to date: last term first, then length', () => {
    const { raft } = startNode('b', { persisted: persisted({ term: 2, entries: [cmd(1, 1), cmd(2, 2)] }) });
    const ask = (term: number, lastLogIndex: number, lastLogTerm: number): boolean =>
      sentTo(raft.receive('a', vote(term, lastLogIndex, lastLogTerm), 0), 'vote-response', 'a').granted;
    expect(ask(3, 5, 1)).toBe(false); // longer, but an older last term
    expect(ask(4, 1, 2)).toBe(false); // the same last term, shorter
    expect(ask(5, 2, 2)).toBe(true);
    expect(ask(6, 1, 3)).toBe(true); // a newer last term, shorter
    expect(raft.status()).toMatchObject({ term: 6, votedFor: 'a' }); // refused requests still taught it the term
  });

  it('after a restart from its persisted state a node does not vote twice in a term', () => {
    const { raft } = startNode('b');
    raft.receive('a', vote(1, 0, 0), 0);
    const restarted = startNode('b', { persisted: raft.persistentState() }).raft;
    expect(restarted.status()).toMatchObject({ term: 1, votedFor: 'a', role: 'follower' });
    expect(sentTo(restarted.receive('c', vote(1, 0, 0), 1), 'vote-response', 'c').granted).toBe(false);
  });
});

describe('RaftNode: pre-votes', () => {
  it('are refused while the leader was heard from within H×M, and granting one changes nothing', () => {
    const { raft } = startNode('b');
    raft.receive('a', append(1, 0, 0, [noop(1, 1)]), 0);
    const ask = (atMs: number, m: Msg<'pre-vote'>): Msg<'pre-vote-response'> => sentTo(raft.receive('c', m, atMs), 'pre-vote-response', 'c');
    expect(ask(10, preVote(2, 1, 1))).toEqual(preVoteAnswer(1, 2, false));
    expect(ask(59, preVote(2, 1, 1)).granted).toBe(false);
    expect(ask(60, preVote(2, 1, 1))).toEqual(preVoteAnswer(1, 2, true));
    expect(raft.status()).toMatchObject({ term: 1, votedFor: undefined, role: 'follower' });
    expect(ask(61, preVote(2, 0, 0)).granted).toBe(false); // a log behind ours
    expect(ask(62, preVote(1, 1, 1)).granted).toBe(false); // a term not above ours
  });

  it('a leader refuses them', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    expect(sentTo(net.node('a').receive('c', preVote(9, 50, 1), net.now + 500), 'pre-vote-response', 'c').granted).toBe(false);
    expect(net.node('a').status().term).toBe(1);
  });

  it('a refusal from a higher term makes the pre-candidate a follower of that term', () => {
    const { raft } = startNode('a');
    raft.timerFired(100);
    const outs = raft.receive('b', preVoteAnswer(4, 1, false), 101);
    expect(outs[0]).toMatchObject({ type: 'persist', term: 4, votedFor: undefined });
    expect(raft.status()).toMatchObject({ role: 'follower', term: 4 });
  });

  it('keep a node that was cut off from raising the term of a group with a live leader', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.isolate('c');
    net.advance(1000); // c campaigns again and again, alone
    expect(net.node('c').status()).toMatchObject({ term: 1, role: 'pre-candidate' });
    net.heal();
    net.advance(300);
    expect(net.leader()).toBe('a');
    for (const id of ['a', 'b', 'c']) expect(net.node(id).status()).toMatchObject({ term: 1, leaderId: 'a' });
  });

  it('the failure detector losing the leader starts an election within [0, T)', () => {
    const { raft } = startNode('b', { random: 0.5 });
    expect(timerOf(raft.receive('a', append(1, 0, 0, []), 0))).toBe(110); // H×M + 0.5 T
    expect(timerOf(raft.memberUnreachable('c', 5))).toBe(110); // not the leader
    expect(timerOf(raft.memberUnreachable('a', 5))).toBe(55);
    expect(raft.status().leaderId).toBeUndefined();
    expect(sentTo(raft.receive('c', preVote(2, 0, 0), 6), 'pre-vote-response', 'c').granted).toBe(true);
  });
});

describe('RaftNode: terms', () => {
  it('a higher term in any message makes a leader step down; its pending reads fail', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    const r = a.read(net.now);
    expect(r.ok).toBe(true);
    const outs = a.receive('b', refused(7, 0, 0), net.now);
    expect(outs[0]).toMatchObject({ type: 'persist', term: 7, votedFor: undefined });
    expect(outputs(outs, 'read-failed')).toEqual([{ type: 'read-failed', readIds: [r.ok ? r.readId : -1], reason: 'not-leader' }]);
    expect(outputs(outs, 'stepped-down')).toEqual([{ type: 'stepped-down', term: 7 }]);
    expect(outputs(outs, 'leader-changed')).toEqual([{ type: 'leader-changed', term: 7, leaderId: undefined }]);
    expect(a.status()).toMatchObject({ role: 'follower', term: 7, leaderId: undefined });
  });

  it('a request of a lower term is answered with the current term and changes nothing', () => {
    const { raft } = startNode('b');
    raft.receive('a', append(3, 0, 0, []), 0);
    expect(sentTo(raft.receive('c', append(2, 0, 0, [cmd(1, 2)]), 1), 'append-response', 'c')).toEqual(refused(3, 0, 1));
    expect(sentTo(raft.receive('c', vote(2, 9, 2), 1), 'vote-response', 'c')).toEqual(voteAnswer(3, false));
    expect(raft.status()).toMatchObject({ term: 3, leaderId: 'a', lastLogIndex: 0, votedFor: undefined });
  });
});

describe('RaftNode: AppendEntries on a follower', () => {
  it('appends after a matching previous entry, persisting before it answers', () => {
    const { raft: b } = startNode('b');
    const outs = b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]), 0);
    expect(outs[0]).toEqual({ type: 'persist', term: 1, votedFor: undefined, snapshot: undefined, truncateFrom: 1, entries: [cmd(1, 1), cmd(2, 1), cmd(3, 1)] });
    expect(sentTo(outs, 'append-response', 'a')).toEqual(ok(1, 3, 1));
    expect(b.status()).toMatchObject({ leaderId: 'a', lastLogIndex: 3, commitIndex: 0 });
  });

  it('refuses when it lacks the previous entry, hinting its last index', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]), 0);
    const outs = b.receive('a', append(1, 5, 1, [cmd(6, 1)]), 1);
    expect(sentTo(outs, 'append-response', 'a')).toEqual(refused(1, 3, 1));
    expect(persistOf(outs)).toBeUndefined();
  });

  it('refuses when the previous entry has another term, hinting the index before that term’s entries', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(2, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 2), cmd(4, 2)]), 0);
    expect(sentTo(b.receive('c', append(3, 4, 3, [cmd(5, 3)]), 1), 'append-response', 'c')).toEqual(refused(3, 2, 1));
    expect(b.status().lastLogIndex).toBe(4);
  });

  it('deletes the entries that conflict with the leader’s, and what follows them, never earlier ones', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(2, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 2), cmd(4, 2)]), 0);
    const outs = b.receive('c', append(3, 1, 1, [cmd(2, 1), cmd(3, 3, 'x')]), 1);
    expect(outs[0]).toMatchObject({ type: 'persist', truncateFrom: 3, entries: [cmd(3, 3, 'x')] });
    expect(sentTo(outs, 'append-response', 'c')).toEqual(ok(3, 3, 1));
    expect([b.entryAt(2), b.entryAt(3), b.entryAt(4), b.status().lastLogIndex]).toEqual([cmd(2, 1), cmd(3, 3, 'x'), undefined, 3]);
  });

  it('a late, reordered request does not delete what a newer one appended', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]), 0);
    const outs = b.receive('a', append(1, 0, 0, [cmd(1, 1)]), 1);
    expect(sentTo(outs, 'append-response', 'a')).toEqual(ok(1, 1, 1));
    expect(persistOf(outs)).toBeUndefined();
    expect(b.status().lastLogIndex).toBe(3);
  });

  it('commits up to min(leaderCommit, the last index the request verified), applying in order', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]), 0);
    // A later leader that has only entry 1 in common with us says it committed through 5.
    let outs = b.receive('c', append(2, 1, 1, [], 5), 1);
    expect(b.status().commitIndex).toBe(1);
    expect(applied(outs)).toEqual([cmd(1, 1)]);
    outs = b.receive('c', append(2, 3, 1, [], 5), 2);
    expect(b.status()).toMatchObject({ commitIndex: 3, lastApplied: 3 });
    expect(applied(outs)).toEqual([cmd(2, 1), cmd(3, 1)]);
  });

  it('throws rather than delete a committed entry (another node broke safety)', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1)], 1), 0);
    expect(() => b.receive('c', append(2, 0, 0, [cmd(1, 2, 'other')]), 1)).toThrow(/committed/);
  });

  it('a request refused for a committed entry leaves the node as it was: same term, same leader, nothing to persist', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1)], 1), 0);
    expect(() => b.receive('c', append(2, 0, 0, [cmd(1, 2, 'other')]), 1)).toThrow(/committed/);
    // The shell drops the outputs of a call that throws: had the node moved to term 2 (or
    // followed c), nothing would have persisted or reported it.
    expect(b.status()).toMatchObject({ term: 1, leaderId: 'a', role: 'follower', commitIndex: 1 });
    const outs = b.receive('a', append(1, 1, 1, [], 1, 2), 2);
    expect(persistOf(outs)).toBeUndefined();
    expect(outputs(outs, 'leader-changed')).toEqual([]);
    expect(sentTo(outs, 'append-response', 'a')).toEqual(ok(1, 1, 2));
  });

  it('ignores a malformed request', () => {
    const { raft: b } = startNode('b');
    expect(sent(b.receive('a', append(1, 0, 0, [cmd(2, 1)]), 0), 'append-response')).toEqual([]);
    expect(sent(b.receive('a', append(1, 0, 0, [cmd(1, 2)]), 0), 'append-response')).toEqual([]); // an entry of a later term than the request
    expect(b.status().lastLogIndex).toBe(0);
  });

  it('a configuration is in force from its entry; a truncated one is taken back', () => {
    const { raft: b } = startNode('b');
    let outs = b.receive('a', append(1, 0, 0, [noop(1, 1), membership(2, 1, ['a', 'b', 'c', 'd'])]), 0);
    expect(outputs(outs, 'membership-changed')).toEqual([{ type: 'membership-changed', members: ['a', 'b', 'c', 'd'], index: 2 }]);
    expect(b.committedMembers()).toEqual(['a', 'b', 'c']);
    outs = b.receive('c', append(2, 1, 1, [noop(2, 2)]), 1);
    expect(outputs(outs, 'membership-changed')).toEqual([{ type: 'membership-changed', members: ['a', 'b', 'c'], index: 0 }]);
    expect(b.status()).toMatchObject({ members: ['a', 'b', 'c'], membersIndex: 0 });
  });
});

describe('RaftNode: replication and commit on the leader', () => {
  it('commits only entries of its own term by counting replicas (Figure 3.7)', () => {
    const { a, outs } = leaderByHand(persisted({ term: 2, votedFor: 'a', entries: [cmd(1, 1), cmd(2, 2)] }));
    expect(a.status()).toMatchObject({ term: 3, lastLogIndex: 3 });
    const toB = sentTo(outs, 'append', 'b');
    expect(toB).toMatchObject({ prevLogIndex: 2, prevLogTerm: 2, entries: [noop(3, 3)] });
    // b holds entries 1 and 2: with a, a majority holds the entry of term 2, which is not committed by that
    let r = a.receive('b', ok(3, 2, 0), 101);
    expect(a.status().commitIndex).toBe(0);
    expect(applied(r)).toEqual([]);
    // once the majority holds the no-op of term 3, everything before it commits too
    r = a.receive('b', ok(3, 3, toB.seq), 102);
    expect(a.status().commitIndex).toBe(3);
    expect(applied(r).map((e) => e.index)).toEqual([1, 2, 3]);
  });

  it('probes back from a refusal’s hint, never below what the follower matched', () => {
    const { a, outs } = leaderByHand(persisted({ term: 2, votedFor: 'a', entries: [cmd(1, 1), cmd(2, 2)] }));
    let r = a.receive('b', refused(3, 0, sentTo(outs, 'append', 'b').seq), 101);
    expect(sentTo(r, 'append', 'b')).toMatchObject({ prevLogIndex: 0, prevLogTerm: 0, entries: [cmd(1, 1), cmd(2, 2), noop(3, 3)] });
    r = a.receive('c', ok(3, 1, 0), 101); // c matched through 1 (an old answer)
    r = a.receive('c', refused(3, 0, sentTo(outs, 'append', 'c').seq), 102);
    expect(sentTo(r, 'append', 'c')).toMatchObject({ prevLogIndex: 1, entries: [cmd(2, 2), noop(3, 3)] });
  });

  it('sends each follower a heartbeat H after the last request', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    expect(net.now).toBe(100);
    expect(net.timers.get('a')).toBe(120);
    const outs = a.timerFired(120);
    expect(sentTo(outs, 'append', 'b')).toMatchObject({ prevLogIndex: 1, prevLogTerm: 1, entries: [], leaderCommit: 1 });
    expect(sentTo(outs, 'append', 'c')).toMatchObject({ entries: [] });
    expect(timerOf(outs)).toBe(140);
  });

  it('keeps one request with entries in flight per follower, and sends it again after the backoff', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    net.cutLink('a', 'b', false);
    const x = a.propose('x', net.now);
    expect(sent(net.handle('a', x.outputs), 'append').map((s) => s.to)).toEqual(['b', 'c']);
    net.flush(); // c answers, b heard nothing
    const y = a.propose('y', net.now);
    expect(sent(net.handle('a', y.outputs), 'append').map((s) => s.to)).toEqual(['c']);
    const outs = a.timerFired(net.now + CFG.appendRequestBackoffTimeoutMs);
    expect(sentTo(outs, 'append', 'b')).toMatchObject({ prevLogIndex: 1, entries: [cmd(2, 1, 'x'), cmd(3, 1, 'y')] });
  });

  it('sends at most appendRequestMaxEntryCount entries per request', () => {
    const net = new Net(['a', 'b', 'c'], 'a', { appendRequestMaxEntryCount: 2 });
    net.elect('a');
    net.isolate('a');
    for (const c of ['x', 'y', 'z']) net.handle('a', net.node('a').propose(c, net.now).outputs);
    net.heal();
    net.advance(CFG.appendRequestBackoffTimeoutMs);
    const toB = net.seenOf('a', 'send').filter((s) => s.to === 'b' && s.message.type === 'append');
    for (const s of toB) expect((s.message as Msg<'append'>).entries.length).toBeLessThanOrEqual(2);
    expect(net.node('b').status().lastLogIndex).toBe(4);
    expect(net.node('a').status().commitIndex).toBe(4);
  });

  it('steps down after H×M without hearing from a majority (check quorum)', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.isolate('a');
    net.advance(59);
    expect(net.node('a').status().role).toBe('leader');
    net.advance(2);
    expect(net.node('a').status()).toMatchObject({ role: 'follower', leaderId: undefined, term: 1 });
    expect(net.seenOf('a', 'stepped-down')).toEqual([{ type: 'stepped-down', term: 1 }]);
  });

  it('after a leader dies the others elect a new one with everything committed', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    for (const c of ['x', 'y']) net.handle('a', net.node('a').propose(c, net.now).outputs);
    net.flush();
    net.nodes.delete('a');
    net.timers.delete('a');
    net.advance(500);
    const leader = net.leader();
    expect(leader === 'b' || leader === 'c').toBe(true);
    const l = net.node(leader as string);
    expect(l.status().term).toBe(2);
    expect([l.entryAt(2), l.entryAt(3)]).toEqual([cmd(2, 1, 'x'), cmd(3, 1, 'y')]);
  });
});

describe('RaftNode: proposals', () => {
  it('a follower answers not-leader with the leader it knows', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const p = net.node('b').propose('x', net.now);
    expect(p).toMatchObject({ ok: false, reason: 'not-leader', leaderId: 'a' });
    expect(startNode('b').raft.propose('x', 0)).toMatchObject({ ok: false, reason: 'not-leader', leaderId: undefined });
  });

  it('the leader refuses past uncommittedEntryCountToRejectNewAppends', () => {
    const net = new Net(['a', 'b', 'c'], 'a', { uncommittedEntryCountToRejectNewAppends: 2 });
    net.elect('a');
    net.isolate('a');
    const a = net.node('a');
    expect(a.propose('x', net.now)).toMatchObject({ ok: true, index: 2, term: 1 });
    expect(a.propose('y', net.now)).toMatchObject({ ok: true, index: 3 });
    expect(a.propose('z', net.now)).toMatchObject({ ok: false, reason: 'too-many-uncommitted' });
  });

  it('succeeds when apply delivers its index with its term, even after its leader stepped down', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    net.cutLink('a', 'c');
    net.cutLink('b', 'a', false);
    const p = a.propose('x', net.now);
    expect(p).toMatchObject({ ok: true, index: 2, term: 1 });
    net.handle('a', p.outputs);
    net.flush(); // only b has x, and a does not know it
    net.isolate('a');
    net.handle('b', net.node('b').memberUnreachable('a', net.now));
    net.advance(300);
    expect(net.leader()).toBe('b'); // c votes for b's longer log
    expect(net.seenOf('a', 'stepped-down')).toHaveLength(1);
    net.heal();
    net.advance(100);
    expect(net.applied.get('a')).toContainEqual(cmd(2, 1, 'x'));
    expect(net.seenOf('a', 'proposal-failed')).toEqual([]);
  });

  it('is reported lost when another entry is committed at its index', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.isolate('a');
    const p = net.node('a').propose('x', net.now);
    net.handle('a', p.outputs);
    net.handle('b', net.node('b').memberUnreachable('a', net.now));
    net.advance(300);
    expect(net.leader()).toBe('b');
    net.heal();
    net.advance(100);
    expect(net.seenOf('a', 'proposal-failed')).toEqual([{ type: 'proposal-failed', proposals: [{ index: 2, term: 1 }], reason: 'lost' }]);
    expect(net.applied.get('a')?.map((e) => e.kind)).toEqual(['noop', 'noop']);
  });
});

describe('RaftNode: linearizable reads (ReadIndex)', () => {
  it('a follower answers not-leader', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    expect(net.node('c').read(net.now)).toMatchObject({ ok: false, reason: 'not-leader', leaderId: 'a' });
  });

  it('a read is ready once an entry of the leader’s term is committed and a majority answered a request sent after the read began', () => {
    const { a, outs } = leaderByHand();
    const r = a.read(101);
    if (!r.ok) throw new Error('not leader');
    expect(outputs(r.outputs, 'read-ready')).toEqual([]);
    const hb = sentTo(r.outputs, 'append', 'b');
    expect(hb.entries).toEqual([]); // the heartbeat round of the read; the no-op's request is still in flight
    // b answers the no-op's request, sent before the read: the no-op commits, the read waits
    let o = a.receive('b', ok(1, 1, sentTo(outs, 'append', 'b').seq), 102);
    expect(a.status().commitIndex).toBe(1);
    expect(outputs(o, 'read-ready')).toEqual([]);
    // b answers the heartbeat sent after the read began: a and b are a majority
    o = a.receive('b', ok(1, 1, hb.seq), 103);
    expect(outputs(o, 'read-ready')).toEqual([{ type: 'read-ready', readIds: [r.readId] }]);
  });

  it('a confirmed read still waits for the no-op of the leader’s term', () => {
    const { a, outs } = leaderByHand();
    const r = a.read(101);
    if (!r.ok) throw new Error('not leader');
    let o = a.receive('c', ok(1, 0, sentTo(r.outputs, 'append', 'c').seq), 102); // leadership confirmed, no-op not held
    expect(outputs(o, 'read-ready')).toEqual([]);
    o = a.receive('c', ok(1, 1, sentTo(outs, 'append', 'c').seq), 103);
    expect(outputs(o, 'read-ready')).toEqual([{ type: 'read-ready', readIds: [r.readId] }]);
  });

  it('a leader cut off from the majority serves no read; it fails it when it steps down', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.isolate('a');
    const r = net.node('a').read(net.now);
    net.handle('a', r.outputs);
    net.advance(100);
    expect(net.seenOf('a', 'read-ready')).toEqual([]);
    expect(net.seenOf('a', 'read-failed')).toEqual([{ type: 'read-failed', readIds: [r.ok ? r.readId : -1], reason: 'not-leader' }]);
  });

  it('a read sees every write acknowledged before it', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    const p = a.propose('x', net.now);
    net.handle('a', p.outputs);
    net.flush();
    expect(net.applied.get('a')).toContainEqual(cmd(2, 1, 'x'));
    const r = a.read(net.now);
    net.handle('a', r.outputs);
    net.flush();
    expect(net.seenOf('a', 'read-ready')).toEqual([{ type: 'read-ready', readIds: [r.ok ? r.readId : -1] }]);
    expect(a.status().lastApplied).toBeGreaterThanOrEqual(2);
  });
});

describe('RaftNode: snapshots', () => {
  function single(config = {}): RaftNode {
    const { raft } = startNode('a', { members: ['a'], config });
    raft.timerFired(100);
    return raft;
  }

  it('a snapshot drops the log through its index and is persisted', () => {
    const a = single();
    a.propose('x', 101);
    a.propose('y', 102);
    const outs = a.takeSnapshot(2, { list: ['x'] }, 103);
    const snapshot: RaftSnapshot = { lastIncludedIndex: 2, lastIncludedTerm: 1, members: ['a'], membersIndex: 0, state: { list: ['x'] } };
    expect(outs[0]).toEqual({ type: 'persist', term: 1, votedFor: 'a', snapshot, truncateFrom: undefined, entries: [] });
    expect([a.entryAt(2), a.entryAt(3)]).toEqual([undefined, cmd(3, 1, 'y')]);
    expect(a.status()).toMatchObject({ snapshotIndex: 2, lastLogIndex: 3, commitIndex: 3 });
    expect(a.currentSnapshot()).toEqual(snapshot);
    expect(persistOf(a.takeSnapshot(1, 'old', 104))).toBeUndefined();
    expect(() => a.takeSnapshot(4, 'future', 104)).toThrow(RangeError);
  });

  it('says snapshot-due each time commitIndexAdvanceCountToSnapshot entries were applied since the last one', () => {
    const a = single({ commitIndexAdvanceCountToSnapshot: 3 });
    expect(a.appliedSinceSnapshot()).toBe(1);
    expect(outputs(a.propose('x', 101).outputs, 'snapshot-due')).toEqual([]);
    expect(outputs(a.propose('y', 102).outputs, 'snapshot-due')).toEqual([{ type: 'snapshot-due', appliedIndex: 3 }]);
    expect(outputs(a.propose('z', 103).outputs, 'snapshot-due')).toEqual([]);
    a.takeSnapshot(4, 'S4', 104);
    expect(a.appliedSinceSnapshot()).toBe(0);
    a.propose('u', 105);
    a.propose('v', 106);
    expect(outputs(a.propose('w', 107).outputs, 'snapshot-due')).toEqual([{ type: 'snapshot-due', appliedIndex: 7 }]);
  });

  it('a follower behind the leader’s snapshot receives it, installs it, and then the rest of the log', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    net.isolate('c');
    for (const c of ['x', 'y', 'z']) net.handle('a', a.propose(c, net.now).outputs);
    net.flush();
    expect(a.status().commitIndex).toBe(4);
    net.handle('a', a.takeSnapshot(3, { list: ['x', 'y'] }, net.now));
    net.handle('a', a.propose('w', net.now).outputs);
    net.heal();
    net.advance(60);
    const installs = net.seenOf('c', 'install-snapshot');
    expect(installs.map((i) => i.snapshot.state)).toEqual([{ list: ['x', 'y'] }]);
    expect(net.applied.get('c')).toEqual([cmd(4, 1, 'z'), cmd(5, 1, 'w')]); // 1-3 came in the snapshot
    expect(net.node('c').status()).toMatchObject({ snapshotIndex: 3, lastLogIndex: 5, commitIndex: 5 });
    expect(net.disks.get('c')?.snapshot?.lastIncludedIndex).toBe(3);
  });

  const snapshotMsg = (lastIncludedIndex: number, lastIncludedTerm: number, state: unknown): Msg<'install-snapshot'> => ({
    type: 'install-snapshot',
    term: 2,
    seq: 9,
    snapshot: { lastIncludedIndex, lastIncludedTerm, members: ['a', 'b', 'c'], membersIndex: 0, state },
  });

  it('a follower keeps its log after a snapshot whose last entry it holds', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]), 0);
    const m = snapshotMsg(2, 1, 'S2');
    const outs = b.receive('c', m, 1);
    expect(outs[0]).toMatchObject({ type: 'persist', term: 2, snapshot: m.snapshot, truncateFrom: undefined, entries: [] });
    expect(outputs(outs, 'install-snapshot')).toEqual([{ type: 'install-snapshot', snapshot: m.snapshot }]);
    expect(sentTo(outs, 'install-snapshot-response', 'c')).toEqual({ type: 'install-snapshot-response', term: 2, matchIndex: 2, seq: 9 });
    expect(b.status()).toMatchObject({ snapshotIndex: 2, commitIndex: 2, lastApplied: 2, lastLogIndex: 3, leaderId: 'c' });
    expect(b.entryAt(3)).toEqual(cmd(3, 1));
  });

  it('a follower drops its whole log for a snapshot that does not match it', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1), cmd(4, 1)]), 0);
    const outs = b.receive('c', snapshotMsg(3, 2, 'S3'), 1);
    expect(outs[0]).toMatchObject({ type: 'persist', truncateFrom: 4, entries: [] });
    expect(b.status()).toMatchObject({ snapshotIndex: 3, lastLogIndex: 3, lastLogTerm: 2, commitIndex: 3 });
    expect(b.entryAt(4)).toBeUndefined();
  });

  it('a snapshot not beyond the commit index is only acknowledged', () => {
    const { raft: b } = startNode('b');
    b.receive('a', append(1, 0, 0, [cmd(1, 1), cmd(2, 1)], 2), 0);
    const outs = b.receive('a', { ...snapshotMsg(2, 1, 'S2'), term: 1 }, 1);
    expect(outputs(outs, 'install-snapshot')).toEqual([]);
    expect(sentTo(outs, 'install-snapshot-response', 'a').matchIndex).toBe(2);
    expect(b.status().snapshotIndex).toBe(0);
  });

  it('entries inside a follower’s snapshot count as held', () => {
    const { raft: b } = startNode('b');
    b.receive('c', snapshotMsg(3, 1, 'S3'), 0);
    const outs = b.receive('c', append(2, 1, 1, [cmd(2, 1), cmd(3, 1), cmd(4, 2)]), 1);
    expect(sentTo(outs, 'append-response', 'c')).toEqual(ok(2, 4, 1));
    expect(b.status().lastLogIndex).toBe(4);
    expect(sentTo(b.receive('c', append(2, 0, 0, [cmd(1, 1)]), 2), 'append-response', 'c')).toEqual(ok(2, 1, 1));
  });

  it('a proposal whose index a snapshot from the leader covers is indeterminate', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.isolate('a');
    net.handle('a', net.node('a').propose('x', net.now).outputs);
    net.handle('b', net.node('b').memberUnreachable('a', net.now));
    net.advance(300);
    const b = net.node('b');
    for (const c of ['y', 'z']) net.handle('b', b.propose(c, net.now).outputs);
    net.flush();
    net.handle('b', b.takeSnapshot(b.status().lastApplied, 'S', net.now));
    net.heal();
    net.advance(100);
    expect(net.seenOf('a', 'proposal-failed')).toEqual([{ type: 'proposal-failed', proposals: [{ index: 2, term: 1 }], reason: 'indeterminate' }]);
  });

  it('restarts from its persisted state: the snapshot is installed first, then committed entries after it are applied', () => {
    const snapshot: RaftSnapshot = { lastIncludedIndex: 2, lastIncludedTerm: 1, members: ['a', 'b', 'c'], membersIndex: 0, state: 'S2' };
    const { raft, outs } = startNode('b', { persisted: persisted({ term: 3, votedFor: 'c', snapshot, entries: [cmd(3, 2), cmd(4, 3)] }) });
    expect(outs[0]).toEqual({ type: 'install-snapshot', snapshot });
    expect(persistOf(outs)).toBeUndefined();
    expect(raft.status()).toMatchObject({ term: 3, votedFor: 'c', commitIndex: 2, lastApplied: 2, snapshotIndex: 2, lastLogIndex: 4, role: 'follower' });
    expect(applied(raft.receive('c', append(3, 4, 3, [], 4), 1))).toEqual([cmd(3, 2), cmd(4, 3)]);
  });
});

describe('RaftNode: membership changes, one member at a time', () => {
  it('only a leader that committed an entry of its term, with no change in progress, may change', () => {
    expect(startNode('b').raft.changeMembership({ type: 'add', member: 'd' }, 0)).toMatchObject({ ok: false, reason: 'not-leader' });
    const { a, outs } = leaderByHand();
    expect(a.changeMembership({ type: 'add', member: 'd' }, 100)).toMatchObject({ ok: false, reason: 'leader-not-ready' });
    a.receive('b', ok(1, 1, sentTo(outs, 'append', 'b').seq), 101);
    expect(a.status().commitIndex).toBe(1);
    expect(a.changeMembership({ type: 'add', member: 'a' }, 101)).toMatchObject({ ok: false, reason: 'already-member' });
    expect(a.changeMembership({ type: 'remove', member: 'x' }, 101)).toMatchObject({ ok: false, reason: 'not-member' });
    expect(a.changeMembership({ type: 'add', member: 'd' }, 101, 5)).toMatchObject({ ok: false, reason: 'membership-mismatch' });
    const r = a.changeMembership({ type: 'add', member: 'd' }, 101, 0);
    expect(r).toMatchObject({ ok: true, index: 2, term: 1, members: ['a', 'b', 'c', 'd'] });
    expect(sent(r.outputs, 'append').map((s) => s.to)).toEqual(['b', 'd']); // c's request (the no-op) is still in flight
    expect(a.status()).toMatchObject({ members: ['a', 'b', 'c', 'd'], membersIndex: 2 }); // in force at once
    expect(a.changeMembership({ type: 'add', member: 'e' }, 102)).toMatchObject({ ok: false, reason: 'change-in-progress' });
    // a and b are no longer a majority of four
    a.receive('b', ok(1, 2, 0), 103);
    expect(a.status().commitIndex).toBe(1);
    a.receive('c', ok(1, 2, 0), 104);
    expect(a.status().commitIndex).toBe(2);
    expect(a.committedMembers()).toEqual(['a', 'b', 'c', 'd']);
    expect(a.changeMembership({ type: 'remove', member: 'd' }, 105)).toMatchObject({ ok: true, index: 3, members: ['a', 'b', 'c'] });
  });

  it('an added node campaigns only once it knows it is a member', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    net.add('d', ['a', 'b', 'c']);
    expect(net.timers.get('d')).toBeUndefined();
    net.handle('a', net.node('a').changeMembership({ type: 'add', member: 'd' }, net.now).outputs);
    net.flush();
    expect(net.node('d').status()).toMatchObject({ members: ['a', 'b', 'c', 'd'], leaderId: 'a', commitIndex: 2 });
    expect(net.timers.get('d')).toBeDefined();
    expect(net.applied.get('d')?.map((e) => e.kind)).toEqual(['noop', 'membership']);
  });

  it('a removed leader leads until the change commits, without counting itself, then steps down and never campaigns', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const a = net.node('a');
    const preVotes = (): number => net.seenOf('a', 'send').filter((s) => s.message.type === 'pre-vote').length;
    const campaigned = preVotes();
    net.cutLink('a', 'c');
    net.handle('a', a.changeMembership({ type: 'remove', member: 'a' }, net.now).outputs);
    net.flush();
    expect(a.status()).toMatchObject({ role: 'leader', members: ['b', 'c'], commitIndex: 1 }); // b alone is not a majority of b, c
    net.heal();
    net.advance(CFG.appendRequestBackoffTimeoutMs);
    expect(a.status()).toMatchObject({ role: 'follower', commitIndex: 2 });
    expect(net.seenOf('a', 'stepped-down')).toHaveLength(1);
    expect(net.timers.get('a')).toBeUndefined();
    net.advance(1000);
    expect(['b', 'c']).toContain(net.leader());
    expect(preVotes()).toBe(campaigned);
  });

  it('the leader replicates to the member it removes until the change commits, so it learns it was removed', () => {
    const net = new Net(['a', 'b', 'c'], 'a');
    net.elect('a');
    const r = net.node('a').changeMembership({ type: 'remove', member: 'c' }, net.now);
    expect(sent(net.handle('a', r.outputs), 'append').map((s) => s.to)).toEqual(['b', 'c']);
    net.flush();
    expect(net.node('a').status().commitIndex).toBe(2);
    expect(net.node('c').status().members).toEqual(['a', 'b']);
    expect(net.timers.get('c')).toBeUndefined(); // outside its configuration: no election timer
    const beat = net.node('a').timerFired(net.now + CFG.leaderHeartbeatPeriodMs);
    expect(sent(beat, 'append').map((s) => s.to)).toEqual(['b']);
  });
});
