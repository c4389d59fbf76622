// Partition replicas across the cluster. The master computes the table (promotion when a
// member dies, then a balanced target), and moves data one partition at a time: the current
// owner stops taking writes for that partition, copies it to every replica that lacks it,
// and only once the master commits the new row (and pushes the table) does the partition take
// writes again, at its new owner. Every member applies pushed tables, drops what it no longer
// holds, and tells its data services when it stops owning a partition.

import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { murmur3String } from '../core/murmur3.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeRecoveryState,
  decodeRecoveryStateAnswer,
  encodeRecoveryState,
  encodeRecoveryStateAnswer,
  decodeEmpty,
  decodeMigrate,
  decodeMigrateEnd,
  decodePartitionData,
  decodePartitionTable,
  encodeEmpty,
  encodeMigrate,
  encodeMigrateEnd,
  encodePartitionData,
  encodePartitionTable,
} from '../protocol/payloads.js';
import type { MemberNet } from '../net/member-net.js';
import type { ClusterMembership } from '../cluster/cluster-service.js';
import type { ClusterEvent, MemberInfo } from '../cluster/types.js';
import { admitPartitionWrite } from '../cluster/member-rules.js';
import { balance, changedPartitions, copyTargets, promote, type Replicas } from './assignment.js';
import { PARTITION_COUNT } from './partitioning.js';
import { PartitionTable } from './partition-table.js';
import { commitAllowed, dropUncommitted, migrationReady, planMode, replicaChange, rowsEqual, sourceRefusal } from './migration-rules.js';
import { ReplicaSync } from './replica-sync.js';
import type { MetricsRegistrar } from '../core/metrics.js';

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
interface RecoveryRun {
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
function rowsHash(rows: readonly Replicas[]): string {
  return (murmur3String(JSON.stringify(rows)) >>> 0).toString(16);
}

export interface PartitionTuning {
  readonly replicaCount: number;
  readonly maxParallelMigrations: number;
  readonly callTimeoutMs: number;
  /** grid.partition.replica-sync-interval-seconds in ms: the owners' anti-entropy round; 0 = off. */
  readonly replicaSyncIntervalMs: number;
}

/** A partition source gives up waiting for the master's commit after this long. */
const BLOCK_TIMEOUT_MS = 120_000;
/** The master repeats the table this often, so a member that missed a push catches up. */
const TABLE_REPEAT_MS = 2_000;
/** Data received for a migration that is not committed is kept this long. */
const INCOMING_TTL_MS = 120_000;
const RETRY_REPARTITION_MS = 1_000;
const FETCH_TABLE_TIMEOUT_MS = 5_000;

/** What the invocation layer needs of the partition layer: the table, writes held back during a hand-over, and backup versions. */
export interface PartitionView {
  readonly table: Pick<PartitionTable, 'ownerOf' | 'replicas' | 'version'>;
  readonly replicaSync: Pick<ReplicaSync, 'stampBackup' | 'onBackup'>;
  /** True while this member hands the partition over: writes must wait. */
  isBlocked(partitionId: number): boolean;
  /** True while the cluster restarts from persisted data (no table yet): data requests are refused at once. */
  isRecovering?(): boolean;
}

export class PartitionService implements PartitionView {
  readonly table = new PartitionTable();
  /** Anti-entropy: per-partition backup versions, and the round that repairs backups that differ. */
  readonly replicaSync: ReplicaSync;
  private readonly services: ReplicaData[] = [];
  private readonly cluster: ClusterMembership;
  private readonly net: MemberNet | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly tuning: PartitionTuning;
  /** Partitions this member is handing over: writes wait. Value: the row when the block started. */
  private readonly blocked = new Map<number, { row: Replicas; timer: TimerHandle }>();
  /** Partitions whose data arrived for an uncommitted migration, with the time it arrived. */
  private readonly incoming = new Map<number, number>();
  private lastKnownQueueSize = 0;
  // master state
  private readonly planned = new Map<number, Replicas>();
  private inFlight = 0;
  /** Migrations this member committed as master (metrics). */
  private migrationsCommitted = 0;
  private readonly leaving = new Set<string>();
  private readonly handOffWaiters: { uuid: string; resolve: () => void }[] = [];
  private retryTimer: TimerHandle | undefined;
  private readonly tableWaiters: ((got: boolean) => void)[] = [];
  private recovery: RecoveryRun | undefined;
  private readonly tableListeners: (() => void)[] = [];
  private durability: { pending(): Promise<void> | undefined } | undefined;
  private masterEpoch = 0;
  private repeatTimer: TimerHandle | undefined;
  /** Set when the master changed while partitions were blocked: the new master's first table decides. */
  private unblockOnTableFrom: string | undefined;

  constructor(deps: { cluster: ClusterMembership; net: MemberNet | undefined; clock: Clock; logger: Logger; tuning: PartitionTuning }) {
    this.cluster = deps.cluster;
    this.net = deps.net;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.tuning = deps.tuning;
    this.replicaSync = new ReplicaSync({
      table: this.table,
      cluster: this.cluster,
      net: this.net,
      clock: this.clock,
      logger: this.logger,
      copies: {
        snapshot: (pid, index) => this.snapshotAll(pid, index),
        install: (pid, perService) => this.forEachService((s) => s.install(pid, perService[s.name])),
      },
      isBlocked: (pid) => this.isBlocked(pid),
      tuning: { intervalMs: this.tuning.replicaSyncIntervalMs, callTimeoutMs: this.tuning.callTimeoutMs },
    });
    if (this.net) this.registerHandlers(this.net);
    this.cluster.on((e) => this.onClusterEvent(e));
    this.cluster.setHandOff((uuid) => this.handOff(uuid));
    this.repeatTimer = this.clock.setInterval(() => {
      if (this.cluster.isMaster() && this.cluster.members().length > 1) this.pushTable();
    }, TABLE_REPEAT_MS);
  }

  register(service: ReplicaData): void {
    this.services.push(service);
  }

  get replicaCount(): number {
    return this.tuning.replicaCount;
  }

  private get localUuid(): string {
    return this.cluster.localMember().uuid;
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
      const me = this.localUuid;
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
    r.counter({ name: 'grid_migrations_completed_total', help: 'Partition migrations this member committed as master' }, (report) => report(this.migrationsCommitted));
  }

  migrationQueueSize(): number {
    if (this.cluster.isMaster()) return this.planned.size + this.inFlight;
    return this.lastKnownQueueSize;
  }

  /** No migration pending, and every partition has all the replicas the cluster can give it. */
  clusterSafe(): boolean {
    if (this.migrationQueueSize() > 0 || this.blocked.size > 0) return false;
    const dataMembers = this.cluster.members().filter((m) => !m.liteMember).length;
    const expected = Math.min(this.tuning.replicaCount, dataMembers);
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const row = this.table.replicas(pid);
      if (row.length !== expected) return false;
      for (const uuid of row) if (!this.cluster.isAlive(uuid)) return false;
    }
    return true;
  }

  /** Restart from persisted data (before joining): see RecoveryPlan. */
  setRecovery(plan: RecoveryPlan): void {
    this.recovery = { plan, partial: false, fresh: false, lastMissing: '', validating: false, chosen: undefined, problem: undefined };
  }

  /** True until the restarted cluster's first table is here. */
  isRecovering(): boolean {
    return this.recovery !== undefined;
  }

  /** Members of the persisted member list that are not here yet. */
  recoveryMissing(): string[] {
    if (this.recovery === undefined) return [];
    const present = new Set(this.cluster.members().map((m) => m.uuid));
    return this.recovery.plan.expected.filter((u) => !present.has(u));
  }

  /** The master starts with the members present (partialStart, a partial policy after validation-timeout-seconds). */
  recoverPartially(): boolean {
    if (this.recovery === undefined) return false;
    this.recovery.partial = true;
    if (this.cluster.isMaster()) this.schedule();
    return true;
  }

  /** partialStart was asked for (or a partial policy applies) on this member. */
  isPartialRequested(): boolean {
    return this.recovery?.partial === true || this.recovery?.fresh === true;
  }

  /** The master drops the persisted table and assigns partitions anew (forceStart); members drop their data as stale. */
  recoverFresh(): boolean {
    if (this.recovery === undefined) return false;
    this.recovery.fresh = true;
    if (this.cluster.isMaster()) this.schedule();
    return true;
  }

  /** Partition copies are acknowledged once persisted (set once at start when persistence is on). */
  setDurability(d: { pending(): Promise<void> | undefined }): void {
    this.durability = d;
  }

  /** Called after every table this member installs (persistence saves it). */
  onTableApplied(fn: () => void): void {
    this.tableListeners.push(fn);
  }

  /** Resolves once a table has been received (or immediately when there is one). */
  waitForTable(timeoutMs: number): Promise<boolean> {
    if (this.table.version() > 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = this.clock.setTimeout(() => resolve(false), timeoutMs);
      this.tableWaiters.push((got) => {
        t.cancel();
        resolve(got);
      });
    });
  }

  /** A restart this member cannot go on with (stale data it may not remove): whoever waits for a table is told now that none comes. */
  abandonRecovery(): void {
    for (const w of this.tableWaiters.splice(0)) w(false);
  }

  /** Partitions this member owns now. */
  ownedPartitions(): number[] {
    const me = this.localUuid;
    const out: number[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) if (this.table.ownerOf(pid) === me) out.push(pid);
    return out;
  }

  /**
   * This member leaves its cluster to merge into another (split brain healed): forget the table,
   * every replica's data and every migration; the other cluster's master sends its table.
   */
  resetForMerge(): void {
    this.masterEpoch++;
    this.planned.clear();
    for (const pid of [...this.blocked.keys()]) this.unblock(pid);
    this.incoming.clear();
    this.unblockOnTableFrom = undefined;
    this.lastKnownQueueSize = 0;
    this.table.set(new Array<Replicas>(PARTITION_COUNT).fill([]), 0);
    for (let pid = 0; pid < PARTITION_COUNT; pid++) this.dropData(pid);
  }

  stop(): void {
    this.replicaSync.stop();
    this.retryTimer?.cancel();
    this.repeatTimer?.cancel();
    for (const b of this.blocked.values()) b.timer.cancel();
    this.blocked.clear();
  }

  // ------------------------------------------------------------------ applying tables

  private encodeTable(): WireValue {
    return encodePartitionTable({ version: this.table.version(), rows: this.table.snapshot(), migrationQueueSize: this.migrationQueueSize() });
  }

  private decodeTable(v: WireValue): { version: number; rows: readonly Replicas[]; queueSize: number } {
    const t = decodePartitionTable(v);
    if (t.rows.length !== PARTITION_COUNT) throw new GridError('BAD_REQUEST', `partition table with ${t.rows.length} rows`);
    return { version: t.version, rows: t.rows, queueSize: t.migrationQueueSize ?? 0 };
  }

  /** Install a newer table and act on what changed for this member. */
  private apply(rows: readonly Replicas[], version: number): void {
    const old = this.table.snapshot();
    const oldVersion = this.table.version();
    this.table.set(rows, version);
    const me = this.localUuid;
    const now = this.clock.now();
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const before = old[pid] ?? [];
      const after = rows[pid] ?? [];
      const same = rowsEqual(before, after);
      const block = this.blocked.get(pid);
      if (block !== undefined && !rowsEqual(block.row, after)) this.unblock(pid);
      if (same) continue;
      this.replicaSync.versions.rowChanged(pid, before, after, me, oldVersion > 0);
      const change = replicaChange(before, after, me);
      if (change.ownershipLost) this.forEachService((s) => s.ownershipLost(pid));
      if (after[0] === me && before[0] !== me) this.forEachService((s) => s.ownershipGained?.(pid));
      if (change.trimTo !== undefined) {
        const index = change.trimTo;
        this.forEachService((s) => s.trim(pid, index));
      }
      if (change.holds) this.incoming.delete(pid);
      else if (change.released && dropUncommitted(this.incoming.get(pid), now, INCOMING_TTL_MS)) this.dropData(pid);
    }
    // Data of migrations that were never committed.
    for (const [pid, arrived] of this.incoming) {
      if (dropUncommitted(arrived, now, INCOMING_TTL_MS) && !(rows[pid] ?? []).includes(me)) {
        this.incoming.delete(pid);
        this.dropData(pid);
      }
    }
    if (version > 0) for (const w of this.tableWaiters.splice(0)) w(true);
    for (const fn of this.tableListeners) fn();
  }

  private dropData(pid: number): void {
    this.forEachService((s) => s.drop(pid));
    this.replicaSync.versions.drop(pid);
  }

  /** Every service's data of the partition for a replica at `index`. */
  private snapshotAll(pid: number, index: number): Record<string, WireValue> {
    const data: Record<string, WireValue> = {};
    for (const s of this.services) {
      const d = s.snapshot(pid, index);
      if (d !== undefined) data[s.name] = d;
    }
    return data;
  }

  private forEachService(fn: (s: ReplicaData) => void): void {
    for (const s of this.services) {
      try {
        fn(s);
      } catch (e) {
        this.logger.error({ err: e }, `partition data service ${s.name} failed: ${describeError(e)}`);
      }
    }
  }

  private block(pid: number, row: Replicas): void {
    this.blocked.get(pid)?.timer.cancel();
    const timer = this.clock.setTimeout(() => {
      if (this.blocked.get(pid)?.timer !== timer) return;
      // No commit and no abort came: ask the master for its table before taking writes again,
      // so a commit whose push was lost is not overridden by writes here.
      void this.refreshFromMaster().finally(() => {
        if (this.blocked.get(pid)?.timer !== timer) return;
        this.logger.warn(`partition ${pid}: no word from the master about its migration; taking writes again`);
        this.blocked.delete(pid);
      });
    }, BLOCK_TIMEOUT_MS);
    this.blocked.set(pid, { row, timer });
  }

  /** Apply the master's table if it is newer than ours. */
  private async refreshFromMaster(): Promise<void> {
    const master = this.cluster.master();
    if (master === undefined || master.uuid === this.localUuid || this.net === undefined) return;
    try {
      const t = this.decodeTable(await this.net.request(master.address, Msg.FetchTable, encodeEmpty(), FETCH_TABLE_TIMEOUT_MS));
      if (t.version > this.table.version()) this.apply(t.rows, t.version);
    } catch (e) {
      this.logger.warn(`could not read the master's partition table: ${describeError(e)}`);
    }
  }

  private unblock(pid: number): void {
    const b = this.blocked.get(pid);
    if (b === undefined) return;
    b.timer.cancel();
    this.blocked.delete(pid);
  }

  // ------------------------------------------------------------------ member protocol

  private registerHandlers(net: MemberNet): void {
    net.handleOneWay(Msg.PartitionTable, (p, from) => {
      const master = this.cluster.master();
      if (from.peer !== undefined && master !== undefined && from.peer.uuid !== master.uuid) return;
      const t = this.decodeTable(p);
      this.lastKnownQueueSize = t.queueSize;
      if (t.version > this.table.version() && this.recovered(t.version, t.rows)) this.apply(t.rows, t.version);
      if (this.unblockOnTableFrom !== undefined && from.peer?.uuid === this.unblockOnTableFrom) {
        // The new master's table is in: migrations of the old master it did not commit are void.
        this.unblockOnTableFrom = undefined;
        for (const pid of [...this.blocked.keys()]) this.unblock(pid);
      }
    });
    net.handleOneWay(Msg.RecoveryDrop, (p, from) => {
      decodeEmpty(p, 'recovery drop');
      // Only the master decides whose data a restart keeps.
      if (this.recovery === undefined || from.peer?.uuid !== this.cluster.master()?.uuid) return;
      this.recovery.fresh = true;
    });
    net.handle(Msg.RecoveryState, (p) => {
      const q = decodeRecoveryState(p);
      const r = this.recovery;
      if (r === undefined) return encodeRecoveryStateAnswer({ version: 0, hash: '', table: undefined });
      return encodeRecoveryStateAnswer({ version: r.plan.version, hash: rowsHash(r.plan.rows), table: q.withRows ? { version: r.plan.version, rows: r.plan.rows } : undefined });
    });
    net.handle(Msg.FetchTable, (p) => {
      decodeEmpty(p, 'fetch table');
      return this.encodeTable();
    });
    net.handle(Msg.Migrate, (p, from) => {
      const t = decodeMigrate(p);
      if (from.peer?.uuid !== this.cluster.master()?.uuid) {
        throw new GridError('WRONG_TARGET', `migration ordered by ${from.peer?.address ?? 'unknown'}, which is not the master`);
      }
      return this.runMigration(t.partitionId, t.replicas, t.previousReplicas);
    });
    net.handleOneWay(Msg.MigrateEnd, (p, from) => {
      if (from.peer?.uuid !== this.cluster.master()?.uuid) return;
      const pid = decodeMigrateEnd(p).partitionId;
      this.unblock(pid);
    });
    net.handle(Msg.PartitionData, (p, from) => {
      const t = decodePartitionData(p);
      const pid = t.partitionId;
      if (pid < 0 || pid >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${pid}`);
      // Only the partition's owner copies it (the migration source the master chose is always
      // the owner): a member with an older view, or one removed while paused, is refused.
      const refusal = admitPartitionWrite('partition copy', pid, from.peer?.uuid ?? '', t.tableVersion, {
        version: this.table.version(),
        owner: this.table.ownerOf(pid),
      });
      if (refusal !== undefined) throw refusal;
      if (this.cluster.fenced()) throw new GridError('STALE_VIEW', `partition copy for partition ${pid} refused: this member is checking its membership`);
      // A restarting member takes no copy before its first table: that table may find its data
      // stale, and the wipe would delete the copy after it was acknowledged (the master would
      // commit a replica whose data is nowhere here, on disk or in memory). The master retries.
      if (this.recovery !== undefined) throw new GridError('RECOVERING', `partition copy for partition ${pid} refused: this member is restarting from persisted data and has no partition table yet`);
      const { replicaIndex: index, versions, data: perService } = t;
      this.incoming.set(pid, this.clock.now());
      this.forEachService((s) => s.install(pid, perService[s.name]));
      // The replica starts at the copy's versions (from an older sender: unknown, so anti-entropy copies it again).
      if (versions !== undefined && index >= 0) this.replicaSync.versions.install(pid, index, versions);
      else this.replicaSync.versions.markUnknown(pid);
      // Persisted here before the source may let it go.
      const pending = this.durability?.pending();
      return pending === undefined ? null : pending.then(() => null);
    });
  }

  /** Source side of a migration: stop writes, copy the partition to every replica that needs it. */
  private async runMigration(pid: number, next: Replicas, prev: Replicas): Promise<WireValue> {
    const row = this.table.replicas(pid);
    // Copies are worked out from the master's row: ours must be the same, or we would skip one.
    const refusal = sourceRefusal(pid, { me: this.localUuid, row, prev, fenced: this.cluster.fenced() });
    if (refusal !== undefined) throw refusal;
    this.block(pid, row);
    try {
      const targets = copyTargets(row, next);
      await Promise.all(
        targets.map(({ uuid, index }) => {
          const member = this.cluster.memberByUuid(uuid);
          if (member === undefined) throw new GridError('MEMBER_UNREACHABLE', `member ${uuid} is not in the cluster`);
          // The copy and the backup versions it is exact for, in one synchronous step.
          const data = this.snapshotAll(pid, index);
          const versions = this.replicaSync.versions.copyVersions(pid);
          return this.net!.request(member.address, Msg.PartitionData, encodePartitionData({ partitionId: pid, replicaIndex: index, data, tableVersion: this.table.version(), versions }), this.tuning.callTimeoutMs);
        }),
      );
      return null;
    } catch (e) {
      this.unblock(pid);
      throw e;
    }
  }

  // ------------------------------------------------------------------ master

  private onClusterEvent(e: ClusterEvent): void {
    if (e.type === 'stateChanged') {
      if (this.cluster.isMaster()) this.schedule();
      return;
    }
    if (e.type !== 'membersChanged') return;
    if (!this.cluster.isMaster()) {
      // A new master knows nothing of the old one's migrations: once its table is here, the
      // partitions it did not move take writes again (a commit may be in that very table).
      if (e.masterChanged && this.blocked.size > 0) this.unblockOnTableFrom = this.cluster.master()?.uuid;
      return;
    }
    if (e.masterChanged && this.table.version() > 0) {
      this.adoptNewestTable()
        .catch((e: unknown) => this.logger.error(`reading the newest partition table failed: ${describeError(e)}`))
        .finally(() => {
          // Everyone hears from the new master at once (and drops migrations it never committed).
          this.pushTable();
          this.schedule();
        });
    } else {
      this.schedule();
    }
    // A member that joined needs the table even when nothing moves (lite members).
    for (const m of e.added) if (m.uuid !== this.localUuid) this.pushTable(m.address);
  }

  /** A new master takes the newest table any member has (the old master may have pushed one it never saw). */
  private async adoptNewestTable(): Promise<void> {
    this.masterEpoch++;
    this.planned.clear();
    for (const pid of [...this.blocked.keys()]) this.unblock(pid);
    const others = this.cluster.members().filter((m) => m.uuid !== this.localUuid);
    const answers = await Promise.allSettled(others.map((m) => this.net!.request(m.address, Msg.FetchTable, encodeEmpty(), FETCH_TABLE_TIMEOUT_MS)));
    for (const a of answers) {
      if (a.status !== 'fulfilled') continue;
      try {
        const t = this.decodeTable(a.value);
        if (t.version > this.table.version()) this.apply(t.rows, t.version);
      } catch (e) {
        this.logger.warn(`ignoring a partition table from a member: ${describeError(e)}`);
      }
    }
  }

  private scheduled = false;
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        this.repartition();
      } catch (e) {
        this.logger.error({ err: e }, `repartitioning failed, trying again shortly: ${describeError(e)}`);
        this.retryLater();
      }
    });
  }

  private commit(rows: readonly Replicas[]): void {
    this.apply(rows, this.table.version() + 1);
    this.pushTable();
  }

  private pushTable(only?: string): void {
    if (this.net === undefined) return;
    const payload = this.encodeTable();
    for (const m of this.cluster.members()) {
      if (m.uuid === this.localUuid) continue;
      if (only !== undefined && m.address !== only) continue;
      this.net.oneWay(m.address, Msg.PartitionTable, payload);
    }
  }

  /**
   * A restarting member's first table: the recovered one (its persisted version + 1) ends the
   * recovery; any other means this member's data is stale: dropped (it joins as new) or, when
   * stale data may not be removed, the table is refused.
   */
  private recovered(version: number, rows: readonly Replicas[]): boolean {
    const r = this.recovery;
    if (r === undefined) return true;
    if (version === r.plan.version + 1 && !r.fresh) {
      this.recovery = undefined;
      this.logger.info(`cluster restart: the persisted partition table (version ${r.plan.version}) is back in place`);
      this.dropUnheld(rows);
      return true;
    }
    // forceStart (or the master's partial start chose other members' data): drop, whatever the versions.
    if (r.fresh) {
      this.recovery = undefined;
      this.logger.warn(`cluster restart: this member's persisted data is dropped (forceStart, or a partial start with other members' data); it joins as a new member`);
      for (let pid = 0; pid < PARTITION_COUNT; pid++) this.dropData(pid);
      return true;
    }
    if (version <= r.plan.version) {
      // A cluster younger than this member's data (started without the persisted members, e.g.
      // by a member that lost its directory): keep the data, take no table.
      if (!r.refusedYounger) {
        r.refusedYounger = true;
        this.logger.error(
          `cluster restart: the cluster's partition table (version ${version}) is older than this member's persisted one (version ${r.plan.version}): ` +
            'the cluster was started without the members of the persisted member list. This member keeps its data and takes no partitions; ' +
            'stop that cluster and start every persisted member, or move this member\'s persistence directory away to join it as a new member.',
        );
      }
      return false;
    }
    if (r.plan.stale(version) === 'refuse') return false;
    this.recovery = undefined;
    this.logger.warn(`cluster restart: the cluster's partition table (version ${version}) is not this member's persisted one (version ${r.plan.version}): its persisted data is stale and was dropped; it joins as a new member`);
    for (let pid = 0; pid < PARTITION_COUNT; pid++) this.dropData(pid);
    return true;
  }

  /**
   * After a restart: data of partitions the table does not give this member (promoted away while
   * it was down, a partial start) is dropped. Only partitions that held something are counted
   * and logged: in a plain restart every member holds just its own partitions and nothing is
   * dropped, and a count of every partition it does not hold (90 of 271 in a cluster of three)
   * read like data loss when none was there.
   */
  private dropUnheld(rows: readonly Replicas[]): void {
    const me = this.localUuid;
    let withData = 0;
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      if ((rows[pid] ?? []).includes(me)) continue;
      // A snapshot only to learn whether there is data: rare (a partition moved away while this member was down), once, at restart.
      if (this.services.some((s) => s.snapshot(pid, 0) !== undefined)) withData++;
      this.dropData(pid);
    }
    if (withData > 0) {
      this.logger.info(
        `cluster restart: this member's persisted copies of ${withData} partition(s) that the partition table now gives to other members were dropped ` +
          '(they moved while this member was away; the members that hold them have their current data)',
      );
    }
  }


  /** Why the restart cannot complete (persisted tables that disagree), if the master found out. */
  recoveryProblem(): string | undefined {
    return this.recovery?.problem;
  }

  /**
   * Ask every member present for its persisted table (version and fingerprint). All agree:
   * that table. They differ: without a partial start, nothing (the restart waits and fails
   * at validation-timeout-seconds, naming them); with one, PARTIAL_RECOVERY_MOST_RECENT takes
   * the newest table, PARTIAL_RECOVERY_MOST_COMPLETE the one most members have (then the
   * newest); members with another table drop their data when the chosen one arrives.
   */
  private async chooseRecoveredTable(r: RecoveryRun): Promise<{ rows: readonly Replicas[]; version: number; members: ReadonlySet<string> } | undefined> {
    const me = this.localUuid;
    const mine = { uuid: me, version: r.plan.version, hash: rowsHash(r.plan.rows) };
    const others = this.cluster.members().filter((m) => m.uuid !== me && !m.liteMember);
    const answers = await Promise.all(
      others.map(async (m) => {
        const a = decodeRecoveryStateAnswer(await this.net!.request(m.address, Msg.RecoveryState, encodeRecoveryState({ withRows: false }), FETCH_TABLE_TIMEOUT_MS));
        return { uuid: m.uuid, address: m.address, version: a.version, hash: a.hash };
      }),
    );
    const states = [{ ...mine, address: 'this member' }, ...answers.filter((a) => a.version > 0)];
    const groups = new Map<string, typeof states>();
    for (const st of states) {
      const k = `${st.version}:${st.hash}`;
      const g = groups.get(k);
      if (g === undefined) groups.set(k, [st]);
      else g.push(st);
    }
    let chosen: typeof states;
    if (groups.size === 1) {
      chosen = states;
    } else {
      const desc = [...groups.values()].map((g) => `version ${g[0]!.version} on ${g.map((x) => x.address).join(', ')}`).join('; ');
      if (!r.partial) {
        r.problem = `the members' persisted partition tables differ (${desc})`;
        this.logger.error(`cluster restart: ${r.problem}; with FULL_RECOVERY_ONLY the restart cannot complete (partialStart or a partial policy picks one)`);
        return undefined;
      }
      const list = [...groups.values()];
      const newest = (a: typeof states, b: typeof states): number => b[0]!.version - a[0]!.version;
      list.sort(r.plan.policy === 'PARTIAL_RECOVERY_MOST_COMPLETE' ? (a, b) => b.length - a.length || newest(a, b) : (a, b) => newest(a, b) || b.length - a.length);
      chosen = list[0]!;
      this.logger.warn(`cluster restart: the members' persisted partition tables differ (${desc}); ${r.plan.policy === 'PARTIAL_RECOVERY_MOST_COMPLETE' ? 'most complete' : 'most recent'}: version ${chosen[0]!.version}`);
    }
    const members = new Set(chosen.map((x) => x.uuid));
    if (members.has(me)) return { rows: r.plan.rows, version: r.plan.version, members };
    const from = chosen[0]!;
    const a = decodeRecoveryStateAnswer(await this.net!.request(from.address, Msg.RecoveryState, encodeRecoveryState({ withRows: true }), FETCH_TABLE_TIMEOUT_MS));
    if (a.table === undefined || a.table.rows.length !== PARTITION_COUNT) throw new GridError('BAD_REQUEST', `member ${from.address} sent no persisted table`);
    return { rows: a.table.rows, version: a.version, members };
  }

  /**
   * The master of a restarting cluster: install the persisted table once every member of the
   * persisted member list is here (or with those present when told to). False: keep waiting.
   */
  private tryRecover(): boolean {
    const r = this.recovery;
    if (r === undefined) return true;
    const missing = this.recoveryMissing();
    if (r.fresh) {
      this.recovery = undefined;
      this.logger.warn('cluster restart: forceStart — the persisted data is dropped, partitions are assigned anew');
      for (let pid = 0; pid < PARTITION_COUNT; pid++) this.dropData(pid);
      // Newer than any persisted table, and not the recovered version: every member drops its data.
      this.apply(new Array<Replicas>(PARTITION_COUNT).fill([]), r.plan.version + 2);
      return true;
    }
    if (missing.length > 0 && !r.partial) {
      const text = missing.join(', ');
      if (text !== r.lastMissing) {
        r.lastMissing = text;
        this.logger.info(`cluster restart: waiting for ${missing.length} member(s) of the persisted member list: ${text}`);
      }
      return false;
    }
    // Everyone is here (or a partial start): the members' persisted tables must agree, or the
    // policy picks whose data the cluster starts with.
    if (r.chosen === undefined) {
      if (!r.validating) {
        r.validating = true;
        this.chooseRecoveredTable(r).then(
          (chosen) => {
            r.validating = false;
            if (chosen !== undefined) r.chosen = chosen;
            this.schedule();
          },
          (e: unknown) => {
            r.validating = false;
            this.logger.warn(`cluster restart: reading the members' persisted tables failed, trying again: ${describeError(e)}`);
            this.retryLater();
          },
        );
      }
      return false;
    }
    this.recovery = undefined;
    const present = new Set(this.cluster.members().map((m) => m.uuid));
    const keep = (u: string): boolean => present.has(u) && this.cluster.isAlive(u) && r.chosen!.members.has(u);
    const rows = r.chosen.rows.every((row) => row.every(keep)) ? r.chosen.rows : promote(r.chosen.rows, keep);
    const left = [...present].filter((u) => !r.chosen!.members.has(u));
    // Members with other data drop it, whatever their versions (before the table reaches them).
    for (const uuid of left) {
      const m = this.cluster.memberByUuid(uuid);
      if (m !== undefined) this.net?.oneWay(m.address, Msg.RecoveryDrop, encodeEmpty());
    }
    this.apply(rows, r.chosen.version + 1);
    this.dropUnheld(rows);
    this.pushTable();
    this.logger.info(
      missing.length === 0 && left.length === 0
        ? `cluster restart: every member is back; the persisted partition table (version ${r.chosen.version}) is in place, nothing migrates`
        : `cluster restart: partial start with the persisted table version ${r.chosen.version}` +
            (missing.length > 0 ? `, without ${missing.join(', ')} (their partitions go to the replicas present)` : '') +
            (left.length > 0 ? `; members with other data drop it and join as new: ${left.join(', ')}` : ''),
    );
    return true;
  }

  private repartition(): void {
    if (!this.cluster.isMaster()) return;
    if (!this.tryRecover()) {
      // No table while the restart waits: a member leaving now (a failed restart stopping)
      // has nothing to hand over.
      this.settleHandOffs();
      return;
    }
    const mode = planMode(this.cluster.committedState());
    if (mode === 'frozen') {
      if (this.planned.size > 0) {
        this.planned.clear();
        this.pushTable();
      }
      this.settleHandOffs();
      return;
    }
    const alive = (uuid: string): boolean => this.cluster.isAlive(uuid);
    let rows = this.table.snapshot();
    // balance() is given the table from before promotion so that owners that survived stay owners.
    const beforePromotion = rows;
    // 1. Promotion: members that are gone leave every row; their first surviving backup owns.
    const promoted = promote(rows, alive);
    if (changedPartitions(rows, promoted).length > 0) {
      this.commit(promoted);
      rows = promoted;
    }
    if (mode !== 'balance') {
      this.settleHandOffs();
      return;
    }
    // 2. Balance over the data members that stay.
    const dataMembers = this.cluster
      .members()
      .filter((m) => !m.liteMember && !this.leaving.has(m.uuid) && alive(m.uuid))
      .map((m) => m.uuid);
    const target = balance(beforePromotion, dataMembers, this.tuning.replicaCount);
    // Partitions nobody holds have no data to move: assign them at once.
    let direct = false;
    const withDirect = rows.map((row, pid) => {
      if (row.length === 0 && (target[pid]?.length ?? 0) > 0) {
        direct = true;
        return target[pid]!;
      }
      return row;
    });
    if (direct) {
      this.commit(withDirect);
      rows = withDirect;
    }
    this.planned.clear();
    for (const pid of changedPartitions(rows, target)) this.planned.set(pid, target[pid]!);
    if (this.planned.size > 0) {
      this.logger.info(`repartitioning: ${this.planned.size} partition replicas to move`);
      // Everyone learns that the cluster is not safe until these moves are done.
      this.pushTable();
    }
    this.pump();
  }

  private readonly running = new Set<number>();

  private pump(): void {
    const epoch = this.masterEpoch;
    while (this.inFlight < this.tuning.maxParallelMigrations && this.planned.size > 0) {
      let next: [number, Replicas] | undefined;
      for (const entry of this.planned) {
        if (!this.running.has(entry[0])) {
          next = entry;
          break;
        }
      }
      if (next === undefined) break;
      const [pid, row] = next;
      this.planned.delete(pid);
      this.running.add(pid);
      this.inFlight++;
      void this.migrate(pid, row)
        .catch((e: unknown) => {
          this.logger.error(`migration of partition ${pid} failed unexpectedly: ${describeError(e)}`);
          this.retryLater();
        })
        .finally(() => {
        this.running.delete(pid);
        this.inFlight--;
        if (epoch !== this.masterEpoch || !this.cluster.isMaster()) return;
        if (this.planned.size === 0 && this.inFlight === 0) {
          this.logger.info('repartitioning done');
          this.pushTable();
        }
        this.settleHandOffs();
        this.pump();
      });
    }
    this.settleHandOffs();
  }

  private async migrate(pid: number, next: Replicas): Promise<void> {
    const prev = this.table.replicas(pid);
    if (rowsEqual(prev, next)) return;
    const alive = (uuid: string): boolean => this.cluster.isAlive(uuid);
    if (!migrationReady(prev, next, alive)) {
      this.retryLater();
      return;
    }
    const owner = prev[0]!;
    const ownerInfo = this.cluster.memberByUuid(owner)!;
    const startedAt = this.logger.isLevelEnabled('debug') ? Date.now() : 0;
    try {
      if (owner === this.localUuid) await this.runMigration(pid, next, prev);
      else await this.net!.request(ownerInfo.address, Msg.Migrate, encodeMigrate({ partitionId: pid, replicas: next, previousReplicas: prev }), this.tuning.callTimeoutMs);
    } catch (e) {
      this.logger.warn(`migration of partition ${pid} from ${ownerInfo.address} failed: ${describeError(e)}`);
      this.callOff(pid, ownerInfo);
      this.retryLater();
      return;
    }
    if (!commitAllowed({ isMaster: this.cluster.isMaster(), currentRow: this.table.replicas(pid), prev, next, alive })) {
      // The world moved on while the data was copied: let the source take writes again.
      this.callOff(pid, ownerInfo);
      this.retryLater();
      return;
    }
    this.migrationsCommitted++; // metrics: committed just below
    const rows = [...this.table.snapshot()];
    rows[pid] = next;
    this.commit(rows);
    if (startedAt > 0) {
      const name = (uuid: string | undefined): string => (uuid === undefined || uuid === '' ? '-' : (this.cluster.memberByUuid(uuid)?.address ?? uuid));
      this.logger.debug(
        { partition: pid, from: prev.map(name), to: next.map(name), ms: Date.now() - startedAt },
        `partition ${pid} migrated: owner ${name(prev[0])} -> ${name(next[0])}`,
      );
    }
  }

  /** A migration that will not be committed: its source takes writes for the partition again. */
  private callOff(pid: number, source: MemberInfo): void {
    if (source.uuid === this.localUuid) this.unblock(pid);
    else this.net!.oneWay(source.address, Msg.MigrateEnd, encodeMigrateEnd({ partitionId: pid }));
  }

  private retryLater(): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.cluster.isMaster()) this.schedule();
    }, RETRY_REPARTITION_MS);
  }

  /** Move every replica off `uuid` (a member leaving gracefully); resolves when none is left there. */
  handOff(uuid: string): Promise<void> {
    this.leaving.add(uuid);
    return new Promise<void>((resolve) => {
      this.handOffWaiters.push({ uuid, resolve });
      this.schedule();
    });
  }

  private settleHandOffs(): void {
    if (this.handOffWaiters.length === 0) return;
    const state = this.cluster.committedState();
    const canMove = state === 'ACTIVE' || state === 'NO_MIGRATION';
    const rows = this.table.snapshot();
    for (let i = this.handOffWaiters.length - 1; i >= 0; i--) {
      const w = this.handOffWaiters[i]!;
      const holds = rows.some((r) => r.includes(w.uuid));
      const dataLeft = this.cluster.members().some((m) => !m.liteMember && m.uuid !== w.uuid && !this.leaving.has(m.uuid));
      if (!holds || !canMove || !dataLeft || state === 'NO_MIGRATION') {
        this.handOffWaiters.splice(i, 1);
        this.leaving.delete(w.uuid);
        w.resolve();
      }
    }
  }
}
