// The plain data of one Raft group: log entries, snapshots, what a node persists, and the
// messages Raft nodes exchange. The types that travel between members (entries, snapshots,
// messages, member ids) are defined once in protocol/cp-payloads.ts, with their codec;
// re-exported here so that the Raft core and its tests name them from cp/.

import type { RaftEntry, RaftMemberId, RaftSnapshot } from '../protocol/cp-payloads.js';

export type { RaftAppendRequest, RaftAppendResponse, RaftEntry, RaftInstallSnapshotRequest, RaftInstallSnapshotResponse, RaftMemberId, RaftMessage, RaftPreVoteRequest, RaftPreVoteResponse, RaftSnapshot, RaftVoteRequest, RaftVoteResponse } from '../protocol/cp-payloads.js';

/** What a node must find again after a restart (see the `persist` output of raft.ts). */
export interface RaftPersistentState {
  readonly term: number;
  readonly votedFor: RaftMemberId | undefined;
  readonly snapshot: RaftSnapshot | undefined;
  /** The entries after the snapshot (or from index 1), in index order without gaps. */
  readonly entries: readonly RaftEntry[];
}
