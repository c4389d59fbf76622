// One node of one Raft group (Ongaro & Ousterhout; thesis ch. 3, 4, 5, 6, 9) as a pure state
// machine: inputs (start, timer fired, message received, propose, read, change membership,
// snapshot taken, member unreachable) -> outputs (persist, send, apply, install snapshot, read
// ready, …, wake me at T). No sockets, no timers, no disk: the CP shell does the I/O.
// Longer than the 700 lines a file may have, on purpose: it is one state machine whose
// transitions read each other's fields (term, role, log, peers), and splitting it would
// spread one invariant over several files or open its private state to them.
//
// Driving it (the shell's contract):
// - Call `start(nowMs)` once, then the other inputs; each returns a list of outputs to act on
//   IN ORDER. `nowMs` is the Clock's time; the core keeps no clock of its own.
// - A `persist` output, when present, is the first one: the node's durable state (term,
//   vote, snapshot, log changes) must be on disk before any later output of the same call is
//   acted on — in particular before any `send`. Write it atomically, or in the order
//   term/vote, snapshot, truncate, append. A restart passes what was persisted back as
//   `persisted`; nothing else (commit index, leadership, reads) survives a restart.
// - `apply` outputs are the committed entries in index order, each exactly once (after a
//   restart: from the snapshot on, which `start` installs first with an `install-snapshot`
//   output). The state machine applies them before the outputs after them — a `read-ready`
//   counts on it.
// - The last output is always `timer`: call `timerFired` at that time (undefined: no timer).
//   An early or late call is harmless.
// - Messages (raft-messages.ts) are plain data and name no sender: `receive(from, …)` takes
//   the member the shell received them from, as the member protocol authenticated it.
//
// The rules:
// - Terms. A message with a higher term makes the node a follower of that term (vote
//   cleared), except a pre-vote, which changes nothing. A message with a lower term is
//   answered with the current term (requests) or ignored (answers).
// - Timing. `leaderHeartbeatPeriodMs` H, `maxMissedLeaderHeartbeatCount` M,
//   `leaderElectionTimeoutMs` T (Hazelcast's names). A follower that has heard nothing from
//   its leader for H×M starts an election after a further random delay in [0, T); without a
//   known leader (start, a vote granted, a failed round) the delay is random in [T, 2T).
//   `memberUnreachable(leader)` — the shell's failure detector — starts one within [0, T).
//   A leader sends every follower something at least every H, and steps down when it has
//   heard from no majority for H×M (check quorum), so a cut-off leader stops serving.
// - Elections (§3.4, §9.6). Only a member of its own latest configuration campaigns. It
//   first asks a pre-vote for term+1; a voter grants it when that term is above its own,
//   the candidate's log is at least as up to date as its own (last term, then last index),
//   and it has not heard from a live leader within H×M (a leader never grants one). With a
//   majority of pre-votes the node becomes candidate: term+1, votes for itself (persisted),
//   asks for votes. A voter grants a vote for its current term to one candidate only
//   (persisted before answering), whose log is at least as up to date. A majority of the
//   latest configuration makes a leader, which appends a no-op entry of its term. A round
//   with no result starts over with a pre-vote after [T, 2T).
// - Replication (§3.5). The leader sends from each follower's nextIndex up to
//   `appendRequestMaxEntryCount` entries with the previous entry's index and term; the
//   follower accepts only when it holds that entry (entries inside its snapshot count as
//   held: they are committed), deletes its entries that conflict with new ones (never a
//   committed one: that would be a safety bug, and throws), appends what is missing, and
//   answers the index it now matches through. A refusal carries a hint (the follower's last
//   index, or the start of its conflicting term) and the leader probes from there. One
//   request with entries is in flight per follower; it is sent again after
//   `appendRequestBackoffTimeoutMs` without an answer. A follower behind the leader's
//   snapshot gets the snapshot instead.
// - Commit (§3.6). The leader commits index N when a majority of the latest configuration
//   holds N and N's entry is of the leader's current term (entries of earlier terms are
//   committed only with it). A follower commits up to min(leaderCommit, the last index the
//   request verified). Committed entries are applied in order, each once.
// - Proposals. `propose` appends a command on the leader ('not-leader' elsewhere, with the
//   leader hint; 'too-many-uncommitted' past `uncommittedEntryCountToRejectNewAppends`) and
//   answers its index and term. It succeeded when `apply` delivers that index with that
//   term. A `proposal-failed` output says it did not: 'lost' (another entry was committed at
//   its index: it will never apply; decided at commit, not when the entry leaves this node's
//   log, since a deleted entry can still commit through another node) or 'indeterminate' (a snapshot from the leader covered
//   its index: it may or may not have been applied). A leader that steps down keeps
//   tracking its proposals: they can still commit under the next leader.
// - Reads (§6.4 ReadIndex). `read` on the leader: the read index is the commit index once
//   an entry of the leader's term is committed; leadership is confirmed by a round of
//   heartbeats sent after the read began, answered by a majority in the current term; the
//   read is `read-ready` when both hold and the entries through the read index are applied.
//   A leader that steps down fails its pending reads ('read-failed'). Each `read` sends a
//   heartbeat to every follower: the shell serves the client reads that arrive together with
//   one `read`.
// - Membership (§4.1, single-server changes). `changeMembership` adds or removes one voting
//   member, only on a leader that has committed an entry of its term and whose previous
//   change is committed. A configuration is in force from the moment its entry is in the
//   log (appended or truncated away, it changes the node's configuration at once). A leader
//   removed by a change stops counting itself, and steps down once the change commits; a
//   node outside its own configuration never campaigns. The leader keeps replicating to a
//   removed member until the change commits, so it learns it was removed.
// - Snapshots (§5). The shell snapshots its state machine at an applied index
//   (`takeSnapshot`), which drops the log through it; `snapshot-due` says when
//   `commitIndexAdvanceCountToSnapshot` entries were applied since the last one. A follower
//   installs a leader's snapshot beyond its commit index: it keeps its log after the
//   snapshot when the snapshot's last entry is in it, else drops the whole log.
//
// Limits: no leadership transfer; an added member votes at once (no learner phase: add one
// while the others are up, or the group waits for it to catch up); a snapshot travels in one
// message; reads always take a heartbeat round (no leases); the pre-vote's "live leader"
// check does not apply to real votes (§4.2.3 would), which only follow a pre-vote majority.

import { RaftLog } from './raft-log.js';
import type {
  RaftAppendRequest,
  RaftAppendResponse,
  RaftEntry,
  RaftInstallSnapshotRequest,
  RaftInstallSnapshotResponse,
  RaftMemberId,
  RaftMessage,
  RaftPersistentState,
  RaftPreVoteRequest,
  RaftPreVoteResponse,
  RaftSnapshot,
  RaftVoteRequest,
  RaftVoteResponse,
} from './raft-messages.js';

export type * from './raft-messages.js';

/** Hazelcast's `raft-algorithm` settings (same names, milliseconds). */
export interface RaftConfig {
  /** T: a candidate's round lasts [T, 2T); elections start up to T after the leader is lost. */
  readonly leaderElectionTimeoutMs: number;
  /** H: the leader sends each follower something at least this often. */
  readonly leaderHeartbeatPeriodMs: number;
  /** M: a follower gives up on a silent leader after H×M; a leader steps down after H×M without a majority. */
  readonly maxMissedLeaderHeartbeatCount: number;
  /** Entries per append request at most. */
  readonly appendRequestMaxEntryCount: number;
  /** An append request with entries unanswered for this long is sent again. */
  readonly appendRequestBackoffTimeoutMs: number;
  /** `snapshot-due` after this many entries were applied since the last snapshot. */
  readonly commitIndexAdvanceCountToSnapshot: number;
  /** The leader refuses proposals while this many of its entries are not committed. */
  readonly uncommittedEntryCountToRejectNewAppends: number;
}

/** Hazelcast's defaults for `raft-algorithm`. */
export const DEFAULT_RAFT_CONFIG: RaftConfig = Object.freeze({
  leaderElectionTimeoutMs: 2000,
  leaderHeartbeatPeriodMs: 5000,
  maxMissedLeaderHeartbeatCount: 5,
  appendRequestMaxEntryCount: 100,
  appendRequestBackoffTimeoutMs: 100,
  commitIndexAdvanceCountToSnapshot: 10_000,
  uncommittedEntryCountToRejectNewAppends: 100,
});

export type RaftRole = 'follower' | 'pre-candidate' | 'candidate' | 'leader';

/** A proposal made on this node: it succeeded when `apply` delivers this index with this term. */
export interface RaftProposalRef {
  readonly index: number;
  readonly term: number;
}

export type RaftOutput =
  /** First when present: make this durable before acting on the outputs after it. */
  | {
      readonly type: 'persist';
      readonly term: number;
      readonly votedFor: RaftMemberId | undefined;
      /** A new snapshot: it replaces the persisted one, and persisted entries through its last index are dropped. */
      readonly snapshot: RaftSnapshot | undefined;
      /** Drop persisted entries at this index and after (undefined: none). */
      readonly truncateFrom: number | undefined;
      /** Then append these. */
      readonly entries: readonly RaftEntry[];
    }
  | { readonly type: 'send'; readonly to: RaftMemberId; readonly message: RaftMessage }
  /** Committed entries, in order, each once: apply the commands (noop and membership entries only advance the index). */
  | { readonly type: 'apply'; readonly entries: readonly RaftEntry[] }
  /** Replace the state machine's state with the snapshot's (at start after a restart, or from the leader). */
  | { readonly type: 'install-snapshot'; readonly snapshot: RaftSnapshot }
  | { readonly type: 'became-leader'; readonly term: number }
  | { readonly type: 'stepped-down'; readonly term: number }
  /** The node's idea of the leader changed (undefined: none known). */
  | { readonly type: 'leader-changed'; readonly term: number; readonly leaderId: RaftMemberId | undefined }
  /** The latest configuration (once at start, then on every change; committed once `apply` passes `index`). */
  | { readonly type: 'membership-changed'; readonly members: readonly RaftMemberId[]; readonly index: number }
  | { readonly type: 'read-ready'; readonly readIds: readonly number[] }
  | { readonly type: 'read-failed'; readonly readIds: readonly number[]; readonly reason: 'not-leader' }
  | { readonly type: 'proposal-failed'; readonly proposals: readonly RaftProposalRef[]; readonly reason: 'lost' | 'indeterminate' }
  /** `commitIndexAdvanceCountToSnapshot` entries were applied since the last snapshot: take one at or below `appliedIndex`. */
  | { readonly type: 'snapshot-due'; readonly appliedIndex: number }
  /** Always the last output: call `timerFired` at this time (undefined: no timer needed). */
  | { readonly type: 'timer'; readonly atMs: number | undefined };

export type RaftProposeResult =
  | { readonly ok: true; readonly index: number; readonly term: number; readonly outputs: RaftOutput[] }
  | { readonly ok: false; readonly reason: 'not-leader'; readonly leaderId: RaftMemberId | undefined; readonly outputs: RaftOutput[] }
  | { readonly ok: false; readonly reason: 'too-many-uncommitted'; readonly outputs: RaftOutput[] };

export type RaftMembershipChange = { readonly type: 'add' | 'remove'; readonly member: RaftMemberId };

export type RaftMembershipResult =
  | { readonly ok: true; readonly index: number; readonly term: number; readonly members: readonly RaftMemberId[]; readonly outputs: RaftOutput[] }
  | { readonly ok: false; readonly reason: 'not-leader'; readonly leaderId: RaftMemberId | undefined; readonly outputs: RaftOutput[] }
  | {
      readonly ok: false;
      /** A change is not committed yet; the leader has not committed an entry of its term yet; the expected configuration is not the latest; add of a member / remove of a non-member; the last member. */
      readonly reason: 'change-in-progress' | 'leader-not-ready' | 'membership-mismatch' | 'already-member' | 'not-member' | 'last-member';
      readonly outputs: RaftOutput[];
    };

export type RaftReadResult =
  | { readonly ok: true; readonly readId: number; readonly outputs: RaftOutput[] }
  | { readonly ok: false; readonly reason: 'not-leader'; readonly leaderId: RaftMemberId | undefined; readonly outputs: RaftOutput[] };

export interface RaftNodeOptions {
  readonly self: RaftMemberId;
  /** The group's initial voting members (the configuration before any membership entry). */
  readonly initialMembers: readonly RaftMemberId[];
  readonly config?: Partial<RaftConfig>;
  /** Uniform in [0, 1): election timeouts are randomized with it (inject a seeded one in tests). */
  readonly random: () => number;
  /** What the node persisted before a restart. */
  readonly persisted?: RaftPersistentState;
}

export interface RaftStatus {
  readonly self: RaftMemberId;
  readonly role: RaftRole;
  readonly term: number;
  readonly votedFor: RaftMemberId | undefined;
  readonly leaderId: RaftMemberId | undefined;
  readonly commitIndex: number;
  readonly lastApplied: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
  readonly snapshotIndex: number;
  readonly members: readonly RaftMemberId[];
  readonly membersIndex: number;
}

interface Peer {
  nextIndex: number;
  matchIndex: number;
  /** When the last request went out (heartbeats are due H after it). */
  lastSentMs: number;
  /** A request with entries or a snapshot is in flight until then (0: none)… */
  inFlightUntilMs: number;
  /** …the one numbered this: only its answer ends the wait early. */
  inFlightSeq: number;
  /** When this follower last answered in the current term. */
  lastAckMs: number;
  /** Highest request number it answered. */
  ackedSeq: number;
}

interface PendingRead {
  readonly id: number;
  /** undefined until an entry of the leader's term is committed. */
  readIndex: number | undefined;
  /** A majority must answer requests numbered at least this (sent after the read began). */
  readonly seq: number;
  confirmed: boolean;
}

interface Config {
  readonly members: readonly RaftMemberId[];
  readonly index: number;
}

export class RaftNode {
  readonly self: RaftMemberId;
  private readonly cfg: RaftConfig;
  private readonly random: () => number;
  private readonly initialMembers: readonly RaftMemberId[];

  // persistent
  private term = 0;
  private votedFor: RaftMemberId | undefined;
  private readonly log: RaftLog;
  private snapshot: RaftSnapshot | undefined;

  // volatile
  private role: RaftRole = 'follower';
  private leaderId: RaftMemberId | undefined;
  private commitIndex: number;
  private lastApplied: number;
  private members: readonly RaftMemberId[];
  private membersIndex: number;
  private started = false;
  private electionDeadlineMs = Infinity;
  private lastLeaderContactMs = -Infinity;
  private preVoteTerm = 0;
  private readonly grants = new Set<RaftMemberId>();
  private readonly peers = new Map<RaftMemberId, Peer>();
  private seq = 0;
  private reads: PendingRead[] = [];
  private nextReadId = 1;
  /** Proposals made here, not resolved yet: index -> terms (a node may propose at one index in several terms). */
  private readonly pending = new Map<number, number[]>();
  private snapshotDueSignalled = false;
  // what the notifications last said
  private lastReportedLeader: { term: number; leaderId: RaftMemberId | undefined } = { term: 0, leaderId: undefined };
  private lastReportedMembersIndex = -1;
  private lastReportedMembers: readonly RaftMemberId[] = [];

  // what the next `persist` output holds
  private hardStateDirty = false;
  private snapshotDirty = false;
  private logDirtyFrom = Infinity;

  constructor(opts: RaftNodeOptions) {
    const cfg = { ...DEFAULT_RAFT_CONFIG, ...opts.config };
    for (const [k, v] of Object.entries(cfg)) {
      if (!(typeof v === 'number' && v >= 1 && Number.isFinite(v))) throw new RangeError(`raft: ${k} must be a number >= 1, got ${String(v)}`);
    }
    this.cfg = Object.freeze(cfg);
    this.self = opts.self;
    this.random = opts.random;
    this.initialMembers = dedupe(opts.initialMembers);
    const p = opts.persisted;
    if (p) {
      this.term = p.term;
      this.votedFor = p.votedFor;
      this.snapshot = p.snapshot;
    }
    this.log = new RaftLog(this.snapshot?.lastIncludedIndex ?? 0, this.snapshot?.lastIncludedTerm ?? 0, p?.entries ?? []);
    this.commitIndex = this.log.snapshotIndex;
    this.lastApplied = this.log.snapshotIndex;
    const c = this.configAt(this.log.lastIndex);
    this.members = c.members;
    this.membersIndex = c.index;
  }

  // --- inputs ---

  /** The first call: installs a persisted snapshot in the state machine and arms the election timer. */
  start(nowMs: number): RaftOutput[] {
    if (this.started) throw new Error('raft: start called twice');
    this.started = true;
    const out: RaftOutput[] = [];
    if (this.snapshot) out.push({ type: 'install-snapshot', snapshot: this.snapshot });
    if (this.isMember()) this.electionDeadlineMs = nowMs + this.electionTimeout();
    return this.finish(out, nowMs);
  }

  /** The time asked for by the last `timer` output came (an early or late call is harmless). */
  timerFired(nowMs: number): RaftOutput[] {
    return this.run(nowMs, (out) => {
      if (this.role === 'leader') this.leaderTick(nowMs, out);
      else if (nowMs >= this.electionDeadlineMs) {
        if (this.isMember()) this.startPreVote(nowMs, out);
        else this.electionDeadlineMs = Infinity;
      }
    });
  }

  /** A message from `from` (the member the shell received it from). */
  receive(from: RaftMemberId, message: RaftMessage, nowMs: number): RaftOutput[] {
    return this.run(nowMs, (out) => {
      if (from === this.self) return;
      // Most frequent first: appends (heartbeats too) and their answers, then elections and snapshots.
      const m = message;
      if (m.type === 'append') this.onAppend(from, m, nowMs, out);
      else if (m.type === 'append-response') this.onAppendResponse(from, m, nowMs, out);
      else if (m.type === 'pre-vote') this.onPreVote(from, m, nowMs, out);
      else if (m.type === 'vote') this.onVote(from, m, nowMs, out);
      else if (m.type === 'install-snapshot') this.onInstallSnapshot(from, m, nowMs, out);
      else if (m.type === 'pre-vote-response') this.onPreVoteResponse(from, m, nowMs, out);
      else if (m.type === 'vote-response') this.onVoteResponse(from, m, nowMs, out);
      else this.onInstallSnapshotResponse(from, m, nowMs, out);
    });
  }

  /** Append a command (leader only). */
  propose(command: unknown, nowMs: number): RaftProposeResult {
    this.requireStarted();
    if (this.role !== 'leader') return { ok: false, reason: 'not-leader', leaderId: this.leaderId, outputs: this.finish([], nowMs) };
    if (this.log.lastIndex - this.commitIndex >= this.cfg.uncommittedEntryCountToRejectNewAppends) {
      return { ok: false, reason: 'too-many-uncommitted', outputs: this.finish([], nowMs) };
    }
    const out: RaftOutput[] = [];
    const entry: RaftEntry = { index: this.log.lastIndex + 1, term: this.term, kind: 'command', command };
    this.leaderAppend(entry, nowMs, out);
    return { ok: true, index: entry.index, term: entry.term, outputs: this.finish(out, nowMs) };
  }

  /** A linearizable read (leader only): `read-ready` with the id once the state machine may be read. */
  read(nowMs: number): RaftReadResult {
    this.requireStarted();
    if (this.role !== 'leader') return { ok: false, reason: 'not-leader', leaderId: this.leaderId, outputs: this.finish([], nowMs) };
    const out: RaftOutput[] = [];
    const read: PendingRead = { id: this.nextReadId++, readIndex: undefined, seq: this.seq + 1, confirmed: false };
    this.reads.push(read);
    for (const [id, peer] of this.peers) this.sendTo(id, peer, nowMs, true, out);
    this.checkReads(out);
    return { ok: true, readId: read.id, outputs: this.finish(out, nowMs) };
  }

  /**
   * Add or remove one voting member (leader only). `expectedMembersIndex`, when given, must be
   * the index of the latest configuration (a compare-and-set over concurrent changes).
   */
  changeMembership(change: RaftMembershipChange, nowMs: number, expectedMembersIndex?: number): RaftMembershipResult {
    this.requireStarted();
    const fail = (reason: 'change-in-progress' | 'leader-not-ready' | 'membership-mismatch' | 'already-member' | 'not-member' | 'last-member'): RaftMembershipResult => ({
      ok: false,
      reason,
      outputs: this.finish([], nowMs),
    });
    if (this.role !== 'leader') return { ok: false, reason: 'not-leader', leaderId: this.leaderId, outputs: this.finish([], nowMs) };
    if (this.membersIndex > this.commitIndex) return fail('change-in-progress');
    if (this.log.termAt(this.commitIndex) !== this.term) return fail('leader-not-ready');
    if (expectedMembersIndex !== undefined && expectedMembersIndex !== this.membersIndex) return fail('membership-mismatch');
    const has = this.members.includes(change.member);
    if (change.type === 'add' && has) return fail('already-member');
    if (change.type === 'remove' && !has) return fail('not-member');
    const members = change.type === 'add' ? [...this.members, change.member] : this.members.filter((m) => m !== change.member);
    if (members.length === 0) return fail('last-member');
    const out: RaftOutput[] = [];
    const entry: RaftEntry = { index: this.log.lastIndex + 1, term: this.term, kind: 'membership', members };
    this.leaderAppend(entry, nowMs, out);
    return { ok: true, index: entry.index, term: entry.term, members, outputs: this.finish(out, nowMs) };
  }

  /**
   * The state machine's state after applying every entry through `uptoIndex` (at most the
   * last applied index): the log through it is dropped. A snapshot not beyond the current
   * one is ignored.
   */
  takeSnapshot(uptoIndex: number, state: unknown, nowMs: number): RaftOutput[] {
    this.requireStarted();
    if (uptoIndex > this.lastApplied) throw new RangeError(`raft: snapshot through ${uptoIndex}, but only ${this.lastApplied} applied`);
    return this.run(nowMs, () => {
      if (uptoIndex <= this.log.snapshotIndex) return;
      const c = this.configAt(uptoIndex);
      this.snapshot = {
        lastIncludedIndex: uptoIndex,
        lastIncludedTerm: this.log.termAt(uptoIndex) as number,
        members: c.members,
        membersIndex: c.index,
        state,
      };
      this.log.compactThrough(uptoIndex);
      this.snapshotDirty = true;
      this.snapshotDueSignalled = false;
    });
  }

  /** The shell's failure detector lost `member`: when it is the leader, elect another soon. */
  memberUnreachable(member: RaftMemberId, nowMs: number): RaftOutput[] {
    return this.run(nowMs, () => {
      if (this.role === 'leader' || member !== this.leaderId) return;
      this.leaderId = undefined;
      this.lastLeaderContactMs = -Infinity;
      if (this.isMember()) this.electionDeadlineMs = Math.min(this.electionDeadlineMs, nowMs + this.random() * this.cfg.leaderElectionTimeoutMs);
    });
  }

  // --- what the shell may read ---

  status(): RaftStatus {
    return {
      self: this.self,
      role: this.role,
      term: this.term,
      votedFor: this.votedFor,
      leaderId: this.leaderId,
      commitIndex: this.commitIndex,
      lastApplied: this.lastApplied,
      lastLogIndex: this.log.lastIndex,
      lastLogTerm: this.log.lastTerm,
      snapshotIndex: this.log.snapshotIndex,
      members: this.members,
      membersIndex: this.membersIndex,
    };
  }

  get config(): RaftConfig {
    return this.cfg;
  }

  /** The voting members in force as of the commit index. */
  committedMembers(): readonly RaftMemberId[] {
    return this.membersIndex <= this.commitIndex ? this.members : this.configAt(this.commitIndex).members;
  }

  /** Entries applied since the last snapshot (compare with `commitIndexAdvanceCountToSnapshot`). */
  appliedSinceSnapshot(): number {
    return this.lastApplied - this.log.snapshotIndex;
  }

  /** The entry at `index` (undefined when compacted or beyond the end). */
  entryAt(index: number): RaftEntry | undefined {
    return this.log.entryAt(index);
  }

  /** The current snapshot (undefined: none yet). */
  currentSnapshot(): RaftSnapshot | undefined {
    return this.snapshot;
  }

  /** What a restart would find on disk (for tests and diagnostics; the shell persists from `persist` outputs). */
  persistentState(): RaftPersistentState {
    return {
      term: this.term,
      votedFor: this.votedFor,
      snapshot: this.snapshot,
      entries: this.log.lastIndex > this.log.snapshotIndex ? this.log.slice(this.log.snapshotIndex + 1, this.log.lastIndex + 1) : [],
    };
  }

  // --- elections ---

  private startPreVote(nowMs: number, out: RaftOutput[]): void {
    this.role = 'pre-candidate';
    this.openRound(nowMs);
    this.preVoteTerm = this.term + 1;
    if (this.hasMajority(this.grants)) return this.becomeCandidate(nowMs, out);
    this.askOthers({ type: 'pre-vote', term: this.preVoteTerm, lastLogIndex: this.log.lastIndex, lastLogTerm: this.log.lastTerm }, out);
  }

  private becomeCandidate(nowMs: number, out: RaftOutput[]): void {
    this.role = 'candidate';
    this.term++;
    this.votedFor = this.self;
    this.hardStateDirty = true;
    this.openRound(nowMs);
    if (this.hasMajority(this.grants)) return this.becomeLeader(nowMs, out);
    this.askOthers({ type: 'vote', term: this.term, lastLogIndex: this.log.lastIndex, lastLogTerm: this.log.lastTerm }, out);
  }

  /** A (pre-)election round: no leader, only our own grant, a fresh deadline for the round. */
  private openRound(nowMs: number): void {
    this.leaderId = undefined;
    this.votesReset();
    this.grants.add(this.self);
    this.electionDeadlineMs = nowMs + this.electionTimeout();
  }

  private askOthers(message: RaftPreVoteRequest | RaftVoteRequest, out: RaftOutput[]): void {
    for (const m of this.members) if (m !== this.self) out.push({ type: 'send', to: m, message });
  }

  private becomeLeader(nowMs: number, out: RaftOutput[]): void {
    this.role = 'leader';
    this.leaderId = this.self;
    this.votesReset();
    this.electionDeadlineMs = Infinity;
    this.peers.clear();
    this.syncPeers(nowMs);
    out.push({ type: 'became-leader', term: this.term });
    // The no-op commits the entries of earlier terms and gives reads their index (§6.4).
    this.leaderAppend({ index: this.log.lastIndex + 1, term: this.term, kind: 'noop' }, nowMs, out);
  }

  /** Become a follower of `term` (>= the current one), leader unknown. */
  private becomeFollower(term: number, nowMs: number, out: RaftOutput[]): void {
    if (term > this.term) {
      this.term = term;
      this.votedFor = undefined;
      this.hardStateDirty = true;
    }
    const wasLeader = this.role === 'leader';
    if (this.role !== 'follower') {
      this.role = 'follower';
      this.votesReset();
      if (this.isMember()) this.electionDeadlineMs = nowMs + this.electionTimeout();
    }
    this.leaderId = undefined;
    if (wasLeader) {
      this.peers.clear();
      if (this.reads.length > 0) out.push({ type: 'read-failed', readIds: this.reads.map((r) => r.id), reason: 'not-leader' });
      this.reads = [];
      out.push({ type: 'stepped-down', term: this.term });
    }
  }

  private votesReset(): void {
    this.grants.clear();
    this.preVoteTerm = 0;
  }

  private onPreVote(from: RaftMemberId, m: RaftPreVoteRequest, nowMs: number, out: RaftOutput[]): void {
    const granted = m.term > this.term && this.isLogUpToDate(m.lastLogIndex, m.lastLogTerm) && !this.hasLiveLeader(nowMs);
    const answer: RaftPreVoteResponse = { type: 'pre-vote-response', term: this.term, preVoteTerm: m.term, granted };
    out.push({ type: 'send', to: from, message: answer });
  }

  private onPreVoteResponse(from: RaftMemberId, m: RaftPreVoteResponse, nowMs: number, out: RaftOutput[]): void {
    if (m.term > this.term) return this.becomeFollower(m.term, nowMs, out);
    if (this.role !== 'pre-candidate' || !m.granted || m.preVoteTerm !== this.preVoteTerm || !this.members.includes(from)) return;
    this.grants.add(from);
    if (this.hasMajority(this.grants)) this.becomeCandidate(nowMs, out);
  }

  private onVote(from: RaftMemberId, m: RaftVoteRequest, nowMs: number, out: RaftOutput[]): void {
    if (m.term > this.term) this.becomeFollower(m.term, nowMs, out);
    const granted = this.grantsVote(from, m);
    if (granted) {
      this.votedFor = from;
      this.hardStateDirty = true;
      if (this.isMember()) this.electionDeadlineMs = nowMs + this.electionTimeout();
    }
    const answer: RaftVoteResponse = { type: 'vote-response', term: this.term, granted };
    out.push({ type: 'send', to: from, message: answer });
  }

  /** §3.4 and §3.6.1: one vote per term, and only for a log at least as up to date as ours. */
  private grantsVote(from: RaftMemberId, m: RaftVoteRequest): boolean {
    return m.term === this.term && (this.votedFor === undefined || this.votedFor === from) && this.isLogUpToDate(m.lastLogIndex, m.lastLogTerm);
  }

  private isLogUpToDate(lastLogIndex: number, lastLogTerm: number): boolean {
    const myTerm = this.log.lastTerm;
    return lastLogTerm > myTerm || (lastLogTerm === myTerm && lastLogIndex >= this.log.lastIndex);
  }

  private onVoteResponse(from: RaftMemberId, m: RaftVoteResponse, nowMs: number, out: RaftOutput[]): void {
    if (m.term > this.term) return this.becomeFollower(m.term, nowMs, out);
    if (this.role !== 'candidate' || m.term !== this.term || !m.granted || !this.members.includes(from)) return;
    this.grants.add(from);
    if (this.hasMajority(this.grants)) this.becomeLeader(nowMs, out);
  }

  /** A leader we heard from within H×M (pre-votes are refused while it lives: a returning node cannot disrupt it). */
  private hasLiveLeader(nowMs: number): boolean {
    if (this.role === 'leader') return true;
    return this.leaderId !== undefined && nowMs - this.lastLeaderContactMs < this.followerTimeoutMs();
  }

  // --- follower side of replication ---

  /** A valid request from the leader of `term`: follow it. */
  private heardFromLeader(from: RaftMemberId, term: number, nowMs: number, out: RaftOutput[]): void {
    if (term > this.term || this.role !== 'follower') this.becomeFollower(term, nowMs, out);
    this.leaderId = from;
    this.lastLeaderContactMs = nowMs;
    this.electionDeadlineMs = this.isMember() ? nowMs + this.followerTimeoutMs() + this.random() * this.cfg.leaderElectionTimeoutMs : Infinity;
  }

  private onAppend(from: RaftMemberId, m: RaftAppendRequest, nowMs: number, out: RaftOutput[]): void {
    const reply = (success: boolean, matchIndex: number, hintIndex: number): void => {
      const answer: RaftAppendResponse = { type: 'append-response', term: this.term, success, matchIndex, hintIndex, seq: m.seq };
      out.push({ type: 'send', to: from, message: answer });
    };
    if (m.term < this.term) return reply(false, 0, this.log.lastIndex);
    if (!wellFormed(m)) return;
    // Checked before anything changes: a request refused by a throw leaves the node as it was
    // (term, leader, role), since the shell drops the outputs of a call that throws.
    const first = this.firstNewEntry(from, m);
    this.heardFromLeader(from, m.term, nowMs, out);
    if (first < 0) return reply(false, 0, this.mismatchHint(m));
    const verified = m.prevLogIndex + m.entries.length;
    let membershipTouched = false;
    const e = m.entries[first];
    if (e !== undefined) {
      if (this.log.termAt(e.index) !== undefined) {
        if (this.membersIndex >= e.index) membershipTouched = true;
        this.log.truncateFrom(e.index);
      }
      for (let k = first; k < m.entries.length; k++) {
        const rest = m.entries[k] as RaftEntry;
        this.log.append(rest);
        if (rest.kind === 'membership') membershipTouched = true;
      }
      this.logDirtyFrom = Math.min(this.logDirtyFrom, e.index);
    }
    if (membershipTouched) this.refreshMembership(nowMs);
    const commit = Math.min(m.leaderCommit, verified);
    if (commit > this.commitIndex) {
      this.commitIndex = commit;
      this.applyCommitted(nowMs, out);
    }
    reply(true, verified, 0);
  }

  /**
   * Where `m`'s entries start to be new here: the position of the first one this log lacks or
   * holds under another term (`m.entries.length`: none), or -1 when the log does not hold
   * `m`'s previous entry. Entries inside our snapshot count as held (they are committed).
   * Throws when the request would delete a committed entry (the sender broke safety).
   */
  private firstNewEntry(from: RaftMemberId, m: RaftAppendRequest): number {
    let k = 0;
    if (m.prevLogIndex < this.log.snapshotIndex) k = this.log.snapshotIndex - m.prevLogIndex;
    else if (this.log.termAt(m.prevLogIndex) !== m.prevLogTerm) return -1;
    for (; k < m.entries.length; k++) {
      const e = m.entries[k] as RaftEntry;
      const have = this.log.termAt(e.index);
      if (have === e.term) continue;
      if (have !== undefined && e.index <= this.commitIndex) throw new Error(`raft ${this.self}: leader ${from} (term ${m.term}) conflicts with committed entry ${e.index}`);
      return k;
    }
    return m.entries.length;
  }

  /** The refusal's hint: our last index, or the start of our entries of the conflicting term. */
  private mismatchHint(m: RaftAppendRequest): number {
    const t = this.log.termAt(m.prevLogIndex);
    if (t === undefined) return this.log.lastIndex;
    let i = m.prevLogIndex;
    while (i - 1 > this.log.snapshotIndex && this.log.termAt(i - 1) === t) i--;
    return Math.max(this.commitIndex, i - 1);
  }

  private onInstallSnapshot(from: RaftMemberId, m: RaftInstallSnapshotRequest, nowMs: number, out: RaftOutput[]): void {
    const reply = (matchIndex: number): void => {
      const answer: RaftInstallSnapshotResponse = { type: 'install-snapshot-response', term: this.term, matchIndex, seq: m.seq };
      out.push({ type: 'send', to: from, message: answer });
    };
    if (m.term < this.term) return reply(0);
    this.heardFromLeader(from, m.term, nowMs, out);
    const s = m.snapshot;
    if (s.lastIncludedIndex <= this.commitIndex) return reply(s.lastIncludedIndex);
    if (this.log.termAt(s.lastIncludedIndex) === s.lastIncludedTerm) this.log.compactThrough(s.lastIncludedIndex);
    else {
      this.log.reset(s.lastIncludedIndex, s.lastIncludedTerm);
      this.logDirtyFrom = Math.min(this.logDirtyFrom, s.lastIncludedIndex + 1);
    }
    this.snapshot = s;
    this.snapshotDirty = true;
    this.snapshotDueSignalled = false;
    this.commitIndex = s.lastIncludedIndex;
    this.lastApplied = s.lastIncludedIndex;
    out.push({ type: 'install-snapshot', snapshot: s });
    const covered: RaftProposalRef[] = [];
    for (const [index, terms] of this.pending) {
      if (index <= s.lastIncludedIndex) {
        for (const term of terms) covered.push({ index, term });
        this.pending.delete(index);
      }
    }
    if (covered.length > 0) out.push({ type: 'proposal-failed', proposals: covered, reason: 'indeterminate' });
    this.refreshMembership(nowMs);
    reply(s.lastIncludedIndex);
  }

  // --- leader side ---

  private leaderAppend(entry: RaftEntry, nowMs: number, out: RaftOutput[]): void {
    this.log.append(entry);
    this.logDirtyFrom = Math.min(this.logDirtyFrom, entry.index);
    if (entry.kind !== 'noop') this.pending.set(entry.index, [...(this.pending.get(entry.index) ?? []), entry.term]);
    if (entry.kind === 'membership') this.refreshMembership(nowMs);
    for (const [id, peer] of this.peers) if (peer.inFlightUntilMs === 0) this.sendTo(id, peer, nowMs, false, out);
    this.advanceCommit(nowMs, out);
  }

  /**
   * Send the follower what it needs from its nextIndex: entries (none: a heartbeat), or the
   * snapshot when they are compacted. `heartbeatOnly`: no entries (a request is in flight).
   */
  private sendTo(to: RaftMemberId, peer: Peer, nowMs: number, heartbeatOnly: boolean, out: RaftOutput[]): void {
    peer.lastSentMs = nowMs;
    const seq = ++this.seq;
    if (peer.nextIndex <= this.log.snapshotIndex && !heartbeatOnly && this.snapshot) {
      const message: RaftInstallSnapshotRequest = { type: 'install-snapshot', term: this.term, snapshot: this.snapshot, seq };
      peer.inFlightUntilMs = nowMs + Math.max(this.cfg.appendRequestBackoffTimeoutMs, this.cfg.leaderElectionTimeoutMs);
      peer.inFlightSeq = seq;
      out.push({ type: 'send', to, message });
      return;
    }
    const prevLogIndex = Math.max(peer.nextIndex - 1, this.log.snapshotIndex);
    const entries = heartbeatOnly ? [] : this.log.slice(prevLogIndex + 1, this.log.lastIndex + 1, this.cfg.appendRequestMaxEntryCount);
    const message: RaftAppendRequest = {
      type: 'append',
      term: this.term,
      prevLogIndex,
      prevLogTerm: this.log.termAt(prevLogIndex) as number,
      entries,
      leaderCommit: this.commitIndex,
      seq,
    };
    if (entries.length > 0) {
      peer.inFlightUntilMs = nowMs + this.cfg.appendRequestBackoffTimeoutMs;
      peer.inFlightSeq = seq;
    }
    out.push({ type: 'send', to, message });
  }

  private onAppendResponse(from: RaftMemberId, m: RaftAppendResponse, nowMs: number, out: RaftOutput[]): void {
    const peer = this.ackingPeer(from, m, nowMs, out);
    if (peer === undefined) return;
    if (m.success) this.followerMatches(peer, m.matchIndex, nowMs, out);
    else peer.nextIndex = Math.max(peer.matchIndex + 1, Math.min(peer.nextIndex - 1, m.hintIndex + 1));
    this.afterAck(from, peer, nowMs, out);
  }

  private onInstallSnapshotResponse(from: RaftMemberId, m: RaftInstallSnapshotResponse, nowMs: number, out: RaftOutput[]): void {
    const peer = this.ackingPeer(from, m, nowMs, out);
    if (peer === undefined) return;
    this.followerMatches(peer, m.matchIndex, nowMs, out);
    this.afterAck(from, peer, nowMs, out);
  }

  /**
   * The follower an answer of this term comes from, its round and in-flight request noted
   * (undefined: a later term, which made us a follower, or an answer to ignore).
   */
  private ackingPeer(from: RaftMemberId, m: RaftAppendResponse | RaftInstallSnapshotResponse, nowMs: number, out: RaftOutput[]): Peer | undefined {
    if (m.term > this.term) {
      this.becomeFollower(m.term, nowMs, out);
      return undefined;
    }
    const peer = this.peers.get(from);
    if (this.role !== 'leader' || m.term !== this.term || !peer) return undefined;
    peer.lastAckMs = Math.max(peer.lastAckMs, nowMs);
    peer.ackedSeq = Math.max(peer.ackedSeq, m.seq);
    if (m.seq === peer.inFlightSeq) peer.inFlightUntilMs = 0;
    return peer;
  }

  /** The follower's log matches ours through `matchIndex`: it may commit more. */
  private followerMatches(peer: Peer, matchIndex: number, nowMs: number, out: RaftOutput[]): void {
    if (matchIndex > peer.matchIndex) peer.matchIndex = Math.min(matchIndex, this.log.lastIndex);
    peer.nextIndex = Math.max(peer.nextIndex, peer.matchIndex + 1);
    this.advanceCommit(nowMs, out);
  }

  /** Still its leader with nothing in flight: send what it lacks; the ack may complete reads. */
  private afterAck(from: RaftMemberId, peer: Peer, nowMs: number, out: RaftOutput[]): void {
    if (this.role === 'leader' && this.peers.get(from) === peer && peer.inFlightUntilMs === 0 && peer.nextIndex <= this.log.lastIndex) this.sendTo(from, peer, nowMs, false, out);
    this.checkReads(out);
  }

  private leaderTick(nowMs: number, out: RaftOutput[]): void {
    if (nowMs >= this.quorumAckMs(nowMs) + this.followerTimeoutMs()) return this.becomeFollower(this.term, nowMs, out);
    for (const [id, peer] of this.peers) {
      if (peer.inFlightUntilMs !== 0 && nowMs >= peer.inFlightUntilMs) {
        peer.inFlightUntilMs = 0;
        this.sendTo(id, peer, nowMs, false, out);
      } else if (nowMs >= peer.lastSentMs + this.cfg.leaderHeartbeatPeriodMs) {
        this.sendTo(id, peer, nowMs, peer.inFlightUntilMs !== 0, out);
      }
    }
  }

  /** The latest time by which a majority of the voting members had answered (this node counts as now). */
  private quorumAckMs(nowMs: number): number {
    const times = this.members.map((m) => (m === this.self ? nowMs : (this.peers.get(m)?.lastAckMs ?? -Infinity))).sort((a, b) => b - a);
    return times[this.majority() - 1] ?? -Infinity;
  }

  /** §3.6.2: commit the highest index a majority holds, when it is of the current term. */
  private advanceCommit(nowMs: number, out: RaftOutput[]): void {
    if (this.role !== 'leader') return;
    const matches = this.members.map((m) => (m === this.self ? this.log.lastIndex : (this.peers.get(m)?.matchIndex ?? 0))).sort((a, b) => b - a);
    const n = matches[this.majority() - 1] ?? 0;
    if (n > this.commitIndex && this.canCommitByCounting(n)) {
      this.commitIndex = n;
      this.applyCommitted(nowMs, out);
    }
  }

  /** Only entries of the leader's own term are committed by counting replicas (§3.6.2, Figure 3.7). */
  private canCommitByCounting(index: number): boolean {
    return this.log.termAt(index) === this.term;
  }

  private checkReads(out: RaftOutput[]): void {
    if (this.role !== 'leader' || this.reads.length === 0) return;
    const termCommitted = this.log.termAt(this.commitIndex) === this.term;
    const ready: number[] = [];
    this.reads = this.reads.filter((r) => {
      if (r.readIndex === undefined && termCommitted) r.readIndex = this.commitIndex;
      if (!r.confirmed) r.confirmed = this.leadershipConfirmed(r.seq);
      if (r.confirmed && r.readIndex !== undefined && this.lastApplied >= r.readIndex) {
        ready.push(r.id);
        return false;
      }
      return true;
    });
    if (ready.length > 0) out.push({ type: 'read-ready', readIds: ready });
  }

  /** A majority of the voting members answered a request numbered `seq` or later (this node counts when a member). */
  private leadershipConfirmed(seq: number): boolean {
    let acks = 0;
    for (const m of this.members) if (m === this.self || (this.peers.get(m)?.ackedSeq ?? 0) >= seq) acks++;
    return acks >= this.majority();
  }

  /** Followers: the latest configuration's members, and the previous one's while the latest is not committed. */
  private syncPeers(nowMs: number): void {
    if (this.role !== 'leader') return;
    const wanted = new Set(this.members);
    if (this.membersIndex > this.commitIndex && this.membersIndex > this.log.snapshotIndex) {
      for (const m of this.configAt(this.membersIndex - 1).members) wanted.add(m);
    }
    wanted.delete(this.self);
    for (const id of this.peers.keys()) if (!wanted.has(id)) this.peers.delete(id);
    for (const id of wanted) {
      if (!this.peers.has(id)) {
        this.peers.set(id, { nextIndex: this.log.lastIndex + 1, matchIndex: 0, lastSentMs: -Infinity, inFlightUntilMs: 0, inFlightSeq: 0, lastAckMs: nowMs, ackedSeq: 0 });
      }
    }
  }

  // --- commit, apply, membership ---

  private applyCommitted(nowMs: number, out: RaftOutput[]): void {
    if (this.lastApplied >= this.commitIndex) return;
    const entries = this.log.slice(this.lastApplied + 1, this.commitIndex + 1);
    out.push({ type: 'apply', entries });
    this.lastApplied = this.commitIndex;
    const lost: RaftProposalRef[] = [];
    for (const e of entries) {
      const terms = this.pending.get(e.index);
      if (terms === undefined) continue;
      this.pending.delete(e.index);
      for (const term of terms) if (term !== e.term) lost.push({ index: e.index, term });
    }
    if (lost.length > 0) out.push({ type: 'proposal-failed', proposals: lost, reason: 'lost' });
    if (!this.snapshotDueSignalled && this.appliedSinceSnapshot() >= this.cfg.commitIndexAdvanceCountToSnapshot) {
      this.snapshotDueSignalled = true;
      out.push({ type: 'snapshot-due', appliedIndex: this.lastApplied });
    }
    if (this.role === 'leader' && this.membersIndex <= this.commitIndex) {
      this.syncPeers(nowMs);
      // §4.2.2: a leader removed from the group leads until the change commits, then steps down.
      if (!this.isMember()) return this.becomeFollower(this.term, nowMs, out);
    }
    this.checkReads(out);
  }

  /** The latest configuration changed in the log (appended, truncated, or a snapshot installed). */
  private refreshMembership(nowMs: number): void {
    const c = this.configAt(this.log.lastIndex);
    this.members = c.members;
    this.membersIndex = c.index;
    this.syncPeers(nowMs);
    if (!this.isMember()) {
      if (this.role !== 'leader') this.electionDeadlineMs = Infinity;
    } else if (this.electionDeadlineMs === Infinity && this.role !== 'leader') {
      this.electionDeadlineMs = nowMs + this.electionTimeout();
    }
  }

  /** The configuration in force at `index` (>= the snapshot's index). */
  private configAt(index: number): Config {
    for (let i = Math.min(index, this.log.lastIndex); i > this.log.snapshotIndex; i--) {
      const e = this.log.entryAt(i);
      if (e?.kind === 'membership') return { members: e.members, index: e.index };
    }
    if (this.snapshot) return { members: this.snapshot.members, index: this.snapshot.membersIndex };
    return { members: this.initialMembers, index: 0 };
  }

  // --- helpers ---

  private isMember(): boolean {
    return this.members.includes(this.self);
  }

  private majority(): number {
    return Math.floor(this.members.length / 2) + 1;
  }

  private hasMajority(votes: ReadonlySet<RaftMemberId>): boolean {
    let n = 0;
    for (const m of this.members) if (votes.has(m)) n++;
    return n >= this.majority();
  }

  private followerTimeoutMs(): number {
    return this.cfg.leaderHeartbeatPeriodMs * this.cfg.maxMissedLeaderHeartbeatCount;
  }

  /** Random in [T, 2T). */
  private electionTimeout(): number {
    return this.cfg.leaderElectionTimeoutMs * (1 + this.random());
  }

  private requireStarted(): void {
    if (!this.started) throw new Error('raft: call start first');
  }

  private run(nowMs: number, body: (out: RaftOutput[]) => void): RaftOutput[] {
    this.requireStarted();
    const out: RaftOutput[] = [];
    body(out);
    return this.finish(out, nowMs);
  }

  /** Put the `persist` output first, the notifications after the work, and the timer last. */
  private finish(out: RaftOutput[], nowMs: number): RaftOutput[] {
    if (this.hardStateDirty || this.snapshotDirty || this.logDirtyFrom !== Infinity) {
      const from = Math.max(this.logDirtyFrom, this.log.snapshotIndex + 1);
      out.unshift({
        type: 'persist',
        term: this.term,
        votedFor: this.votedFor,
        snapshot: this.snapshotDirty ? this.snapshot : undefined,
        truncateFrom: this.logDirtyFrom === Infinity ? undefined : this.logDirtyFrom,
        entries: this.logDirtyFrom === Infinity || from > this.log.lastIndex ? [] : this.log.slice(from, this.log.lastIndex + 1),
      });
      this.hardStateDirty = false;
      this.snapshotDirty = false;
      this.logDirtyFrom = Infinity;
    }
    if (this.leaderId !== this.lastReportedLeader.leaderId || (this.leaderId !== undefined && this.term !== this.lastReportedLeader.term)) {
      this.lastReportedLeader = { term: this.term, leaderId: this.leaderId };
      out.push({ type: 'leader-changed', term: this.term, leaderId: this.leaderId });
    }
    if (this.membersIndex !== this.lastReportedMembersIndex || this.members !== this.lastReportedMembers) {
      this.lastReportedMembersIndex = this.membersIndex;
      this.lastReportedMembers = this.members;
      out.push({ type: 'membership-changed', members: this.members, index: this.membersIndex });
    }
    out.push({ type: 'timer', atMs: this.nextWakeMs(nowMs) });
    return out;
  }

  private nextWakeMs(nowMs: number): number | undefined {
    let wake = this.role === 'leader' ? Infinity : this.electionDeadlineMs;
    if (this.role === 'leader') {
      if (this.members.some((m) => m !== this.self)) wake = this.quorumAckMs(nowMs) + this.followerTimeoutMs();
      for (const peer of this.peers.values()) {
        wake = Math.min(wake, peer.lastSentMs + this.cfg.leaderHeartbeatPeriodMs);
        if (peer.inFlightUntilMs !== 0) wake = Math.min(wake, peer.inFlightUntilMs);
      }
    }
    return wake === Infinity ? undefined : wake;
  }
}

function dedupe(members: readonly RaftMemberId[]): readonly RaftMemberId[] {
  return Object.freeze([...new Set(members)]);
}

/** Entries numbered from prevLogIndex + 1 without gaps, terms not above the request's. */
function wellFormed(m: RaftAppendRequest): boolean {
  let prevTerm = m.prevLogTerm;
  for (let k = 0; k < m.entries.length; k++) {
    const e = m.entries[k] as RaftEntry;
    if (e.index !== m.prevLogIndex + 1 + k || e.term < prevTerm || e.term > m.term) return false;
    prevTerm = e.term;
  }
  return m.prevLogIndex >= 0;
}
