// Small helpers for the Raft unit tests: a node driven by hand, and a lossless instant
// network of a few nodes with a manual clock (time moves only when a test says so).

import { expect } from 'vitest';
import {
  RaftNode,
  type RaftConfig,
  type RaftEntry,
  type RaftMemberId,
  type RaftMessage,
  type RaftOutput,
  type RaftPersistentState,
} from '../../../src/cp/raft.js';

/** T = 100, H = 20, M = 3: a follower gives up on a silent leader after 60 ms. */
export const CFG: RaftConfig = {
  leaderElectionTimeoutMs: 100,
  leaderHeartbeatPeriodMs: 20,
  maxMissedLeaderHeartbeatCount: 3,
  appendRequestMaxEntryCount: 10,
  appendRequestBackoffTimeoutMs: 25,
  commitIndexAdvanceCountToSnapshot: 1000,
  uncommittedEntryCountToRejectNewAppends: 50,
};

export type Out<T extends RaftOutput['type']> = Extract<RaftOutput, { type: T }>;
export type Msg<T extends RaftMessage['type']> = Extract<RaftMessage, { type: T }>;

export function outputs<T extends RaftOutput['type']>(outs: readonly RaftOutput[], type: T): Out<T>[] {
  return outs.filter((o): o is Out<T> => o.type === type);
}

export function sent<T extends RaftMessage['type']>(outs: readonly RaftOutput[], type: T): { to: RaftMemberId; message: Msg<T> }[] {
  return outputs(outs, 'send')
    .filter((o) => o.message.type === type)
    .map((o) => ({ to: o.to, message: o.message as Msg<T> }));
}

/** The one message of that type sent to `to`. */
export function sentTo<T extends RaftMessage['type']>(outs: readonly RaftOutput[], type: T, to: RaftMemberId): Msg<T> {
  const found = sent(outs, type).filter((s) => s.to === to);
  expect(found, `one ${type} to ${to}`).toHaveLength(1);
  return (found[0] as { message: Msg<T> }).message;
}

export function timerOf(outs: readonly RaftOutput[]): number | undefined {
  const last = outs[outs.length - 1];
  expect(last?.type).toBe('timer');
  return (last as Out<'timer'>).atMs;
}

export function persistOf(outs: readonly RaftOutput[]): Out<'persist'> | undefined {
  const p = outputs(outs, 'persist');
  if (p.length > 0) expect(outs[0]?.type, 'persist comes first').toBe('persist');
  return p[0];
}

export function applied(outs: readonly RaftOutput[]): RaftEntry[] {
  return outputs(outs, 'apply').flatMap((o) => [...o.entries]);
}

export const cmd = (index: number, term: number, command: unknown = `c${index}`): RaftEntry => ({ index, term, kind: 'command', command });
export const noop = (index: number, term: number): RaftEntry => ({ index, term, kind: 'noop' });

export function append(term: number, prevLogIndex: number, prevLogTerm: number, entries: RaftEntry[], leaderCommit = 0, seq = 1): Msg<'append'> {
  return { type: 'append', term, prevLogIndex, prevLogTerm, entries, leaderCommit, seq };
}

export function vote(term: number, lastLogIndex: number, lastLogTerm: number): Msg<'vote'> {
  return { type: 'vote', term, lastLogIndex, lastLogTerm };
}

export function preVote(term: number, lastLogIndex: number, lastLogTerm: number): Msg<'pre-vote'> {
  return { type: 'pre-vote', term, lastLogIndex, lastLogTerm };
}

export interface NodeOptions {
  readonly members?: readonly RaftMemberId[];
  readonly random?: number;
  readonly config?: Partial<RaftConfig>;
  readonly persisted?: RaftPersistentState;
}

/** A started node; `random` is the constant its "random" source returns (0: timeouts at their minimum). */
export function startNode(self: RaftMemberId, opts: NodeOptions = {}, nowMs = 0): { raft: RaftNode; outs: RaftOutput[] } {
  const raft = new RaftNode({
    self,
    initialMembers: opts.members ?? ['a', 'b', 'c'],
    config: { ...CFG, ...opts.config },
    random: () => opts.random ?? 0,
    persisted: opts.persisted,
  });
  return { raft, outs: raft.start(nowMs) };
}

/**
 * Nodes on an instant, lossless, in-order network (links can be cut), with a manual clock:
 * `flush` delivers until nothing is in flight, `advance` moves time and fires due timers.
 */
export class Net {
  now = 0;
  readonly nodes = new Map<RaftMemberId, RaftNode>();
  readonly timers = new Map<RaftMemberId, number | undefined>();
  readonly applied = new Map<RaftMemberId, RaftEntry[]>();
  readonly disks = new Map<RaftMemberId, RaftPersistentState>();
  /** Every output, by node, in order. */
  readonly seen: { node: RaftMemberId; out: RaftOutput }[] = [];
  private readonly inFlight: { from: RaftMemberId; to: RaftMemberId; message: RaftMessage }[] = [];
  private readonly cut = new Set<string>();

  /** `first` times out first (random 0); the others as late as they can (random 0.99). */
  constructor(ids: readonly RaftMemberId[], first?: RaftMemberId, config: Partial<RaftConfig> = {}) {
    for (const id of ids) this.add(id, ids, id === first ? 0 : 0.99, config);
  }

  add(id: RaftMemberId, initialMembers: readonly RaftMemberId[], random = 0.99, config: Partial<RaftConfig> = {}, persisted?: RaftPersistentState): RaftNode {
    const raft = new RaftNode({ self: id, initialMembers, config: { ...CFG, ...config }, random: () => random, persisted });
    this.nodes.set(id, raft);
    this.applied.set(id, []);
    this.handle(id, raft.start(this.now));
    return raft;
  }

  node(id: RaftMemberId): RaftNode {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** Act on a node's outputs (queue its sends, record applies, keep its timer). */
  handle(id: RaftMemberId, outs: readonly RaftOutput[]): RaftOutput[] {
    for (const out of outs) {
      this.seen.push({ node: id, out });
      if (out.type === 'send') this.inFlight.push({ from: id, to: out.to, message: out.message });
      else if (out.type === 'apply') this.applied.get(id)?.push(...out.entries);
      else if (out.type === 'timer') this.timers.set(id, out.atMs);
      else if (out.type === 'persist') this.disks.set(id, this.nodes.get(id)!.persistentState());
    }
    return [...outs];
  }

  /** Drop what `from` sends to `to` (both ways with `both`). */
  cutLink(from: RaftMemberId, to: RaftMemberId, both = true): void {
    this.cut.add(`${from}>${to}`);
    if (both) this.cut.add(`${to}>${from}`);
  }

  isolate(id: RaftMemberId): void {
    for (const other of this.nodes.keys()) if (other !== id) this.cutLink(id, other);
  }

  heal(): void {
    this.cut.clear();
  }

  /** Deliver everything in flight (and what that causes), in order. */
  flush(maxSteps = 100_000): void {
    for (let steps = 0; this.inFlight.length > 0; steps++) {
      if (steps > maxSteps) throw new Error('flush does not settle');
      const m = this.inFlight.shift()!;
      const to = this.nodes.get(m.to);
      if (!to || this.cut.has(`${m.from}>${m.to}`)) continue;
      this.handle(m.to, to.receive(m.from, m.message, this.now));
    }
  }

  /** Move time forward by `ms`, firing due timers in time order and delivering after each. */
  advance(ms: number): void {
    const target = this.now + ms;
    this.flush();
    for (;;) {
      let next: [RaftMemberId, number] | undefined;
      for (const [id, at] of this.timers) if (at !== undefined && at <= target && (!next || at < next[1])) next = [id, at];
      if (!next) break;
      this.now = Math.max(this.now, next[1]);
      this.timers.set(next[0], undefined);
      this.handle(next[0], this.node(next[0]).timerFired(this.now));
      this.flush();
    }
    this.now = target;
  }

  leader(): RaftMemberId | undefined {
    const ls = [...this.nodes].filter(([, n]) => n.status().role === 'leader').map(([id]) => id);
    return ls.length === 1 ? ls[0] : undefined;
  }

  /** Run until `id` leads (it must be the one to time out first). */
  elect(id: RaftMemberId, withinMs = 1000): void {
    for (let t = 0; t < withinMs && this.node(id).status().role !== 'leader'; t += 5) this.advance(5);
    expect(this.node(id).status().role).toBe('leader');
    this.flush();
  }

  /** Outputs of a type a node produced so far. */
  seenOf<T extends RaftOutput['type']>(id: RaftMemberId, type: T): Out<T>[] {
    return this.seen.filter((s) => s.node === id && s.out.type === type).map((s) => s.out as Out<T>);
  }
}
