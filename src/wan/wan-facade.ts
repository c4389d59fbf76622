// What the REST layer may ask of WAN replication: the narrow facade of WanService. Errors are
// GridErrors (BAD_REQUEST for an unknown replication or publisher, NOT_FOUND for an unknown
// sync uuid); rest/ maps them to statuses.

import type { WanDownCause } from './batcher.js';

export type WanSyncStage = 'STARTED' | 'IN_PROGRESS' | 'FINISHED' | 'FAILED';

/** The contract's WAN sync progress result (`result` of GET wan/sync/progress/<uuid>). */
export interface WanSyncProgress {
  readonly stage: WanSyncStage;
  /** Percentage of the partitions done, cluster-wide. */
  readonly progress: number;
  readonly wanReplicationName: string;
  readonly wanPublisherId: string;
  /** Epoch ms when the coordinator started it. */
  readonly creationTime: number;
}

/** Grid's own: the answer of GET wan/consistencyCheck/<uuid>. */
export interface WanConsistencyResult {
  readonly stage: WanSyncStage;
  readonly wanReplicationName: string;
  readonly wanPublisherId: string;
  readonly mapName: string;
  readonly creationTime: number;
  readonly partitionsChecked: number;
  readonly partitionsDiffering: number;
  readonly leavesChecked: number;
  readonly leavesDiffering: number;
  /** Entries of this cluster in the differing leaves: what a following sync/map sends. */
  readonly entriesToSync: number;
  /** Why it failed (stage FAILED), e.g. the target map has no merkle-tree. */
  readonly failure?: string;
}

/** Why an endpoint is down: a bounded set (WAN_DOWN_CAUSES). */
export type WanDownCauseName = WanDownCause;

/** One target endpoint of a publisher, as this member sees it. */
export interface WanEndpointStatusView {
  readonly address: string;
  /** `connecting` until the first attempt ends; then `up`, or `down` until a connection is up again. */
  readonly status: 'down' | 'connecting' | 'up';
  /** Epoch ms the endpoint entered `status` (a down endpoint stays down, with this time, while it is retried). */
  readonly since: number;
  /** While down: why (the latest failure), else null. */
  readonly reason: string | null;
  readonly cause: WanDownCauseName | null;
  /** While down: connection attempts that failed since. */
  readonly failedAttempts: number;
}

/** One publisher on this member, for GET /rest/wan. */
export interface WanPublisherStatus {
  readonly wanReplicationName: string;
  readonly publisherId: string;
  readonly targetClusterName: string;
  readonly state: 'REPLICATING' | 'PAUSED' | 'STOPPED';
  readonly endpoints: readonly WanEndpointStatusView[];
  readonly queueCapacity: number;
  readonly primaryQueueSize: number;
  readonly backupQueueSize: number;
  readonly eventsQueued: number;
  readonly eventsSent: number;
  readonly eventsAcknowledged: number;
  /** Dropped for a full queue (DISCARD_AFTER_MUTATION) or while STOPPED. */
  readonly eventsDropped: number;
  /** Map writes refused because the queue was full (THROW_EXCEPTION). */
  readonly writesRefused: number;
  readonly batchesSent: number;
  readonly batchesFailed: number;
  /** Epoch ms of the last acknowledgement, or null. */
  readonly lastAckTime: number | null;
  /** Ms the oldest queued event has waited (0 when the queue is empty). */
  readonly lagMillis: number;
}

export interface WanAddResult {
  readonly addedPublisherIds: readonly string[];
  readonly ignoredPublisherIds: readonly string[];
}

export interface WanFacade {
  /** Act on this member only. BAD_REQUEST for an unknown replication or publisher; publisherId '' = the replication's only publisher. */
  pausePublisher(wanRepName: string, publisherId: string): void;
  resumePublisher(wanRepName: string, publisherId: string): void;
  stopPublisher(wanRepName: string, publisherId: string): void;
  clearQueues(wanRepName: string, publisherId: string): void;
  /** Start a cluster-wide full (or, after a consistency check, delta) sync; mapName undefined = all maps. Returns its uuid at once. */
  startSync(wanRepName: string, publisherId: string, mapName: string | undefined): Promise<string>;
  /** Start a cluster-wide Merkle consistency check of one map; BAD_REQUEST when the publisher's strategy is NONE. Returns its uuid at once. */
  startConsistencyCheck(wanRepName: string, publisherId: string, mapName: string): Promise<string>;
  /** Cluster-wide progress (asks every member); NOT_FOUND for an unknown uuid. */
  syncProgress(uuid: string): Promise<WanSyncProgress>;
  /** Cluster-wide consistency-check result; NOT_FOUND for an unknown uuid. */
  consistencyResult(uuid: string): Promise<WanConsistencyResult>;
  /** addWanConfig: parse the contract's JSON (BAD_REQUEST when malformed) and add it on every member (and members that join later). */
  addConfigJson(json: string): Promise<WanAddResult>;
  /** Every publisher on this member. */
  status(): WanPublisherStatus[];
}
