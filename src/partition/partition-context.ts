// What the partition modules share (applying tables, member protocol handlers, master): the
// narrow deps, this member's table, the restart in progress and the migration counters the
// table carries. Also the types other layers hand the partition layer (ReplicaData) and the
// restart plan persistence gives it (RecoveryPlan). Each module keeps the rest of its state.

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { murmur3String } from '../core/murmur3.js';
import type { WireValue } from '../protocol/codec.js';
import type { MemberNet } from '../net/member-net.js';
import type { ClusterMembership } from '../cluster/cluster-service.js';
import type { Replicas } from './assignment.js';
import { PartitionTable } from './partition-table.js';

/** What a data service (maps, queues) gives the partition layer so its data can move. */
export interface ReplicaData {
  readonly name: string;
  /** This service's data in the partition, for a replica at `replicaIndex` (0 = everything); undefined when there is none. */
  snapshot(partitionId: number, replicaIndex: number): WireValue | undefined;
  /** Replace this service's data in the partition with `data` (undefined = none). */
  install(partitionId: number, data: WireValue | undefined): void;
  /** Forget this service's data in the partition. */
  drop(partitionId: number): void;
  /** This member stopped owning the partition: hand waiting work elsewhere. */
  ownershipLost(partitionId: number): void;
  /** This member now owns the partition (a migration committed, or promotion after the owner left). */
  ownershipGained?(partitionId: number): void;
  /** This member is now replica `replicaIndex` of the partition: forget structures with fewer replicas (they get no more backups here). */
  trim(partitionId: number, replicaIndex: number): void;
}

/**
 * A restart from persisted data: the table the cluster had, and the members it had. The
 * master installs that table (no migration) once every one of those members is back, or
 * with the members present when told to (partialStart, a partial recovery policy).
 */
export interface RecoveryPlan {
  /** Data members of the persisted member list (uuids). */
  readonly expected: readonly string[];
  /** Whose data a partial start keeps when members' tables differ (Hazelcast's cluster-data-recovery-policy). */
  readonly policy: 'FULL_RECOVERY_ONLY' | 'PARTIAL_RECOVERY_MOST_RECENT' | 'PARTIAL_RECOVERY_MOST_COMPLETE';
  readonly rows: readonly Replicas[];
  readonly version: number;
  /**
   * A member (not the master) got a table that is not the recovered one: its data is stale
   * (the cluster ran on without it, or started anew). 'drop': forget it and take partitions as
   * a new member; 'refuse': keep it and take no table (the member stops).
   */
  stale(version: number): 'drop' | 'refuse';
}

/** The master's view of a restart in progress. */
export interface RecoveryRun {
  readonly plan: RecoveryPlan;
  partial: boolean;
  fresh: boolean;
  lastMissing: string;
  validating: boolean;
  /** The table the cluster restarts with, and the members whose data it is. */
  chosen: { rows: readonly Replicas[]; version: number; members: ReadonlySet<string> } | undefined;
  /** Why the restart cannot complete as asked (tables that disagree), for the failure message. */
  problem: string | undefined;
  /** A younger cluster's table was refused (logged once). */
  refusedYounger?: boolean;
}

/** A table's fingerprint, to tell members' persisted tables apart. */
export function rowsHash(rows: readonly Replicas[]): string {
  return (murmur3String(JSON.stringify(rows)) >>> 0).toString(16);
}

export interface PartitionTuning {
  readonly replicaCount: number;
  readonly maxParallelMigrations: number;
  readonly callTimeoutMs: number;
  /** grid.partition.replica-sync-interval-seconds in ms: the owners' anti-entropy round; 0 = off. */
  readonly replicaSyncIntervalMs: number;
}

/** Reading another member's partition table (or persisted table) gives up after this long. */
export const FETCH_TABLE_TIMEOUT_MS = 5_000;

export interface PartitionDeps {
  readonly cluster: ClusterMembership;
  readonly net: MemberNet | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: PartitionTuning;
}

export class PartitionContext {
  readonly table = new PartitionTable();
  readonly cluster: ClusterMembership;
  readonly net: MemberNet | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: PartitionTuning;
  /** The restart from persisted data in progress (until the restarted cluster's first table). */
  recovery: RecoveryRun | undefined;
  /** Master: replicas still to move (partition -> target row), and migrations running. */
  readonly planned = new Map<number, Replicas>();
  inFlight = 0;
  /** Not master: the migration queue size the master last sent with its table. */
  lastKnownQueueSize = 0;
  /** Set when the master changed while partitions were blocked: the new master's first table decides. */
  unblockOnTableFrom: string | undefined;

  constructor(deps: PartitionDeps) {
    this.cluster = deps.cluster;
    this.net = deps.net;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.tuning = deps.tuning;
  }

  get localUuid(): string {
    return this.cluster.localMember().uuid;
  }

  migrationQueueSize(): number {
    if (this.cluster.isMaster()) return this.planned.size + this.inFlight;
    return this.lastKnownQueueSize;
  }
}
