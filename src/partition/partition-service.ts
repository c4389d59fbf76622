// Partition replicas across the cluster: the facade the member, the invocation layer and the
// data services call. The master computes the table (promotion when a member dies, then a
// balanced target) and moves data one partition at a time: the owner stops taking writes for
// it, copies it to every replica that lacks it, and only once the master commits the new row
// (and pushes the table) does the partition take writes again, at its new owner. The concerns
// are modules sharing one PartitionContext: partition-tables.ts (applying tables on every
// member), partition-handlers.ts (member protocol handlers), partition-master.ts (assignment
// rounds, migrations, restarts, hand-offs).

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { MemberNet } from '../net/member-net.js';
import type { ClusterMembership } from '../cluster/cluster-service.js';
import type { Replicas } from './assignment.js';
import { PARTITION_COUNT } from './partitioning.js';
import type { PartitionTable } from './partition-table.js';
import type { ReplicaSync } from './replica-sync.js';
import { PartitionContext, type PartitionTuning, type RecoveryPlan, type ReplicaData } from './partition-context.js';
import { PartitionHandlers } from './partition-handlers.js';
import { PartitionMaster } from './partition-master.js';
import { PartitionTables } from './partition-tables.js';

export type { PartitionTuning, RecoveryPlan, ReplicaData } from './partition-context.js';

/** What the invocation layer needs of the partition layer: the table, writes held back during a hand-over, and backup versions. */
export interface PartitionView {
  readonly table: Pick<PartitionTable, 'ownerOf' | 'replicas' | 'version'>;
  readonly replicaSync: Pick<ReplicaSync, 'stampBackup' | 'onBackup'>;
  /** True while this member hands the partition over: writes must wait. */
  isBlocked(partitionId: number): boolean;
  /** True while the cluster restarts from persisted data (no table yet): data requests are refused at once. */
  isRecovering?(): boolean;
}

/** Migrations and replica safety as one member knows them (GET /rest/partitions's `migrations`). */
export interface MigrationStatus {
  /** This member is the master: the figures are first-hand. */
  readonly master: boolean;
  /** Replica moves planned and not started (elsewhere than the master: the master's last queue size, planned and running). */
  readonly queued: number;
  readonly inFlight: number;
  /** Partitions migrating now (master only). */
  readonly running: readonly number[];
  /** Migrations this member committed as master since it started. */
  readonly completed: number;
  /** Partitions this member holds back while handing them over. */
  readonly blockedPartitions: number;
  readonly partitionsWithoutOwner: number;
  /** Partitions with fewer live replicas than the cluster can give them (owner included). */
  readonly partitionsMissingReplicas: number;
}

export class PartitionService implements PartitionView {
  readonly table: PartitionTable;
  /** Anti-entropy: per-partition backup versions, and the round that repairs backups that differ. */
  readonly replicaSync: ReplicaSync;
  private readonly ctx: PartitionContext;
  private readonly tables: PartitionTables;
  private readonly master: PartitionMaster;
  /** The tables' blocked partitions, read here directly: isBlocked is on every request's path. */
  private readonly blocked: ReadonlyMap<number, unknown>;

  constructor(deps: { cluster: ClusterMembership; net: MemberNet | undefined; clock: Clock; logger: Logger; tuning: PartitionTuning }) {
    this.ctx = new PartitionContext(deps);
    this.table = this.ctx.table;
    this.tables = new PartitionTables(this.ctx);
    this.replicaSync = this.tables.replicaSync;
    this.blocked = this.tables.blocked;
    const handlers = new PartitionHandlers(this.ctx, this.tables);
    if (deps.net) handlers.register(deps.net);
    this.master = new PartitionMaster(this.ctx, this.tables, handlers);
  }

  register(service: ReplicaData): void {
    this.tables.services.push(service);
  }

  get replicaCount(): number {
    return this.ctx.tuning.replicaCount;
  }

  /** True while this member hands the partition over: writes must wait. */
  isBlocked(partitionId: number): boolean {
    return this.blocked.size > 0 && this.blocked.has(partitionId);
  }

  /** Partition metrics (docs/metrics.md), read at scrape time. */
  reportMetrics(r: MetricsRegistrar): void {
    let owned = 0;
    let backups = 0;
    r.beforeScrape(() => {
      const me = this.ctx.localUuid;
      owned = 0;
      backups = 0;
      for (let pid = 0; pid < PARTITION_COUNT; pid++) {
        const i = this.table.replicas(pid).indexOf(me);
        if (i === 0) owned++;
        else if (i > 0) backups++;
      }
    });
    r.gauge({ name: 'grid_partitions_owned', help: 'Partitions this member owns' }, (report) => report(owned));
    r.gauge({ name: 'grid_partitions_backup', help: 'Partitions this member holds a backup replica of (sync or async)' }, (report) => report(backups));
    r.gauge({ name: 'grid_partition_table_version', help: "Version of this member's partition table" }, (report) => report(this.table.version()));
    r.gauge({ name: 'grid_cluster_safe', help: '1 when no migration is pending and every partition has all its replicas (as /health clusterSafe), else 0' }, (report) =>
      report(this.clusterSafe() ? 1 : 0),
    );
    r.gauge(
      { name: 'grid_migrations_in_flight', help: 'Partition migrations planned or running (the master counts its own; other members report the figure the master last sent)' },
      (report) => report(this.migrationQueueSize()),
    );
    r.counter({ name: 'grid_migrations_completed_total', help: 'Partition migrations this member committed as master' }, (report) => report(this.master.migrationsCommitted));
  }

  migrationQueueSize(): number {
    return this.ctx.migrationQueueSize();
  }

  /**
   * Migrations and replica safety as this member knows them: first-hand on the master (moves
   * planned and running, migrations it committed), the queue size the master last sent elsewhere.
   */
  migrationStatus(): MigrationStatus {
    const ctx = this.ctx;
    const master = ctx.cluster.isMaster();
    const dataMembers = ctx.cluster.members().filter((m) => !m.liteMember).length;
    const expected = Math.min(ctx.tuning.replicaCount, dataMembers);
    let withoutOwner = 0;
    let missingReplicas = 0;
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const row = this.table.replicas(pid);
      if (row.length === 0 || !ctx.cluster.isAlive(row[0]!)) withoutOwner++;
      let alive = 0;
      for (const uuid of row) if (ctx.cluster.isAlive(uuid)) alive++;
      if (alive < expected) missingReplicas++;
    }
    return {
      master,
      queued: master ? ctx.planned.size : ctx.lastKnownQueueSize,
      inFlight: master ? ctx.inFlight : 0,
      running: master ? this.master.runningPartitions() : [],
      completed: this.master.migrationsCommitted,
      blockedPartitions: this.blocked.size,
      partitionsWithoutOwner: withoutOwner,
      partitionsMissingReplicas: missingReplicas,
    };
  }

  /** No migration pending, and every partition has all the replicas the cluster can give it. */
  clusterSafe(): boolean {
    if (this.migrationQueueSize() > 0 || this.blocked.size > 0) return false;
    const cluster = this.ctx.cluster;
    const dataMembers = cluster.members().filter((m) => !m.liteMember).length;
    const expected = Math.min(this.ctx.tuning.replicaCount, dataMembers);
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const row = this.table.replicas(pid);
      if (row.length !== expected) return false;
      for (const uuid of row) if (!cluster.isAlive(uuid)) return false;
    }
    return true;
  }

  /** Restart from persisted data (before joining): see RecoveryPlan. */
  setRecovery(plan: RecoveryPlan): void {
    this.ctx.recovery = { plan, partial: false, fresh: false, lastMissing: '', validating: false, chosen: undefined, problem: undefined };
  }

  /** True until the restarted cluster's first table is here. */
  isRecovering(): boolean {
    return this.ctx.recovery !== undefined;
  }

  /** Members of the persisted member list that are not here yet. */
  recoveryMissing(): string[] {
    return this.master.recoveryMissing();
  }

  /** The master starts with the members present (partialStart, a partial policy after validation-timeout-seconds). */
  recoverPartially(): boolean {
    if (this.ctx.recovery === undefined) return false;
    this.ctx.recovery.partial = true;
    if (this.ctx.cluster.isMaster()) this.master.schedule();
    return true;
  }

  /** partialStart was asked for (or a partial policy applies) on this member. */
  isPartialRequested(): boolean {
    return this.ctx.recovery?.partial === true || this.ctx.recovery?.fresh === true;
  }

  /** The master drops the persisted table and assigns partitions anew (forceStart); members drop their data as stale. */
  recoverFresh(): boolean {
    if (this.ctx.recovery === undefined) return false;
    this.ctx.recovery.fresh = true;
    if (this.ctx.cluster.isMaster()) this.master.schedule();
    return true;
  }

  /** Why the restart cannot complete (persisted tables that disagree), if the master found out. */
  recoveryProblem(): string | undefined {
    return this.ctx.recovery?.problem;
  }

  /** Partition copies are acknowledged once persisted (set once at start when persistence is on). */
  setDurability(d: { pending(): Promise<void> | undefined }): void {
    this.tables.setDurability(d);
  }

  /** Called after every table this member installs (persistence saves it). */
  onTableApplied(fn: () => void): void {
    this.tables.onTableApplied(fn);
  }

  /** Resolves once a table has been received (or immediately when there is one). */
  waitForTable(timeoutMs: number): Promise<boolean> {
    return this.tables.waitForTable(timeoutMs);
  }

  /** A restart this member cannot go on with (stale data it may not remove): whoever waits for a table is told now that none comes. */
  abandonRecovery(): void {
    this.tables.abandonRecovery();
  }

  /** Partitions this member owns now. */
  ownedPartitions(): number[] {
    const me = this.ctx.localUuid;
    const out: number[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) if (this.table.ownerOf(pid) === me) out.push(pid);
    return out;
  }

  /** Move every replica off `uuid` (a member leaving gracefully); resolves when none is left there. */
  handOff(uuid: string): Promise<void> {
    return this.master.handOff(uuid);
  }

  /**
   * This member leaves its cluster to merge into another (split brain healed): forget the table,
   * every replica's data and every migration; the other cluster's master sends its table.
   */
  resetForMerge(): void {
    this.master.resetForMerge();
    this.tables.unblockAll();
    this.tables.incoming.clear();
    this.ctx.unblockOnTableFrom = undefined;
    this.ctx.lastKnownQueueSize = 0;
    this.table.set(new Array<Replicas>(PARTITION_COUNT).fill([]), 0);
    for (let pid = 0; pid < PARTITION_COUNT; pid++) this.tables.dropData(pid);
  }

  stop(): void {
    this.tables.stop();
    this.master.stop();
  }
}
