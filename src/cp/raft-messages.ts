// The plain data of one Raft group: log entries, snapshots, what a node persists, and the
// messages Raft nodes exchange. Only numbers, strings, booleans, arrays and the CP layer's
// opaque values (`command`, `state`), so the member protocol can encode them as they are.

/** A CP member's identity inside a Raft group (its member UUID, or any stable string). */
export type RaftMemberId = string;

/**
 * One log entry. `command` entries carry the CP layer's operation (opaque to Raft);
 * `noop` is what a new leader appends to commit entries of earlier terms (and to serve
 * reads); `membership` replaces the group's voting members (one member added or removed).
 */
export type RaftEntry =
  | { readonly index: number; readonly term: number; readonly kind: 'command'; readonly command: unknown }
  | { readonly index: number; readonly term: number; readonly kind: 'noop' }
  | { readonly index: number; readonly term: number; readonly kind: 'membership'; readonly members: readonly RaftMemberId[] };

/** The state machine's state through `lastIncludedIndex`, replacing the log up to there. */
export interface RaftSnapshot {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  /** The voting members as of `lastIncludedIndex`. */
  readonly members: readonly RaftMemberId[];
  /** Index of the membership entry that set `members` (0: the group's initial members). */
  readonly membersIndex: number;
  /** The CP layer's state machine state (opaque to Raft). */
  readonly state: unknown;
}

/** What a node must find again after a restart (see the `persist` output of raft.ts). */
export interface RaftPersistentState {
  readonly term: number;
  readonly votedFor: RaftMemberId | undefined;
  readonly snapshot: RaftSnapshot | undefined;
  /** The entries after the snapshot (or from index 1), in index order without gaps. */
  readonly entries: readonly RaftEntry[];
}

/**
 * Would you vote for me if I stood in `term`? Asked before a real election so that a node
 * that was cut off cannot raise everyone's term; answering changes nothing on the voter.
 */
export interface RaftPreVoteRequest {
  readonly type: 'pre-vote';
  /** The term the sender would stand in (its current term + 1). */
  readonly term: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
}

export interface RaftPreVoteResponse {
  readonly type: 'pre-vote-response';
  /** The voter's current term. */
  readonly term: number;
  /** The `term` of the request answered. */
  readonly preVoteTerm: number;
  readonly granted: boolean;
}

export interface RaftVoteRequest {
  readonly type: 'vote';
  readonly term: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
}

export interface RaftVoteResponse {
  readonly type: 'vote-response';
  readonly term: number;
  readonly granted: boolean;
}

/** Entries to append after `prevLogIndex` (none: a heartbeat). */
export interface RaftAppendRequest {
  readonly type: 'append';
  readonly term: number;
  readonly prevLogIndex: number;
  readonly prevLogTerm: number;
  /** Indexes prevLogIndex + 1, prevLogIndex + 2, … */
  readonly entries: readonly RaftEntry[];
  readonly leaderCommit: number;
  /** The leader's round number, echoed in the answer (reads wait for a round after them). */
  readonly seq: number;
}

export interface RaftAppendResponse {
  readonly type: 'append-response';
  readonly term: number;
  readonly success: boolean;
  /** success: the follower's log matches the leader's through this index. */
  readonly matchIndex: number;
  /** failure: the highest index the follower's log may share with the leader's. */
  readonly hintIndex: number;
  readonly seq: number;
}

/** The leader's snapshot, for a follower that needs entries the leader has compacted away. */
export interface RaftInstallSnapshotRequest {
  readonly type: 'install-snapshot';
  readonly term: number;
  readonly snapshot: RaftSnapshot;
  readonly seq: number;
}

export interface RaftInstallSnapshotResponse {
  readonly type: 'install-snapshot-response';
  readonly term: number;
  /** The follower's log matches the leader's through this index. */
  readonly matchIndex: number;
  readonly seq: number;
}

export type RaftMessage =
  | RaftPreVoteRequest
  | RaftPreVoteResponse
  | RaftVoteRequest
  | RaftVoteResponse
  | RaftAppendRequest
  | RaftAppendResponse
  | RaftInstallSnapshotRequest
  | RaftInstallSnapshotResponse;
