// Applying partition tables on this member: installing a newer table and acting on what
// changed (ownership lost or gained, replicas trimmed, data of partitions no longer held or of
// uncommitted migrations dropped), the partitions blocked while this member hands them over,
// the data services whose data moves with a partition, and a restarting member's first table.

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodePartitionTable, encodeEmpty, encodePartitionTable } from '../protocol/payloads.js';
import type { Replicas } from './assignment.js';
import { PARTITION_COUNT } from './partitioning.js';
import { dropUncommitted, replicaChange, rowsEqual } from './migration-rules.js';
import { ReplicaSync } from './replica-sync.js';
import { FETCH_TABLE_TIMEOUT_MS, type PartitionContext, type ReplicaData } from './partition-context.js';

/** A partition source gives up waiting for the master's commit after this long. */
const BLOCK_TIMEOUT_MS = 120_000;
/** Data received for a migration that is not committed is kept this long. */
const INCOMING_TTL_MS = 120_000;

export class PartitionTables {
  /** Anti-entropy: per-partition backup versions, and the round that repairs backups that differ. */
  readonly replicaSync: ReplicaSync;
  readonly services: ReplicaData[] = [];
  /** Partitions this member is handing over: writes wait. Value: the row when the block started. */
  readonly blocked = new Map<number, { row: Replicas; timer: TimerHandle }>();
  /** Partitions whose data arrived for an uncommitted migration, with the time it arrived. */
  readonly incoming = new Map<number, number>();
  private readonly tableWaiters: ((got: boolean) => void)[] = [];
  private readonly tableListeners: (() => void)[] = [];
  private durability: { pending(): Promise<void> | undefined } | undefined;

  constructor(private readonly ctx: PartitionContext) {
    this.replicaSync = new ReplicaSync({
      table: ctx.table,
      cluster: ctx.cluster,
      net: ctx.net,
      clock: ctx.clock,
      logger: ctx.logger,
      copies: {
        snapshot: (pid, index) => this.snapshotAll(pid, index),
        install: (pid, perService) => this.forEachService((s) => s.install(pid, perService[s.name])),
      },
      isBlocked: (pid) => this.blocked.size > 0 && this.blocked.has(pid),
      tuning: { intervalMs: ctx.tuning.replicaSyncIntervalMs, callTimeoutMs: ctx.tuning.callTimeoutMs },
    });
  }

  /** Persisted here before the source may let a copy go: undefined when nothing is pending (or no persistence). */
  durabilityPending(): Promise<void> | undefined {
    return this.durability?.pending();
  }

  /** Every partition this member blocked takes writes again. */
  unblockAll(): void {
    for (const pid of [...this.blocked.keys()]) this.unblock(pid);
  }

  stop(): void {
    this.replicaSync.stop();
    for (const b of this.blocked.values()) b.timer.cancel();
    this.blocked.clear();
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
    if (this.ctx.table.version() > 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = this.ctx.clock.setTimeout(() => resolve(false), timeoutMs);
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

  encodeTable(): WireValue {
    return encodePartitionTable({ version: this.ctx.table.version(), rows: this.ctx.table.snapshot(), migrationQueueSize: this.ctx.migrationQueueSize() });
  }

  decodeTable(v: WireValue): { version: number; rows: readonly Replicas[]; queueSize: number } {
    const t = decodePartitionTable(v);
    if (t.rows.length !== PARTITION_COUNT) throw new GridError('BAD_REQUEST', `partition table with ${t.rows.length} rows`);
    return { version: t.version, rows: t.rows, queueSize: t.migrationQueueSize ?? 0 };
  }

  /** Install a newer table and act on what changed for this member. */
  apply(rows: readonly Replicas[], version: number): void {
    const old = this.ctx.table.snapshot();
    const oldVersion = this.ctx.table.version();
    this.ctx.table.set(rows, version);
    const me = this.ctx.localUuid;
    const now = this.ctx.clock.now();
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

  dropData(pid: number): void {
    this.forEachService((s) => s.drop(pid));
    this.replicaSync.versions.drop(pid);
  }

  /** Every service's data of the partition for a replica at `index`. */
  snapshotAll(pid: number, index: number): Record<string, WireValue> {
    const data: Record<string, WireValue> = {};
    for (const s of this.services) {
      const d = s.snapshot(pid, index);
      if (d !== undefined) data[s.name] = d;
    }
    return data;
  }

  forEachService(fn: (s: ReplicaData) => void): void {
    for (const s of this.services) {
      try {
        fn(s);
      } catch (e) {
        this.ctx.logger.error({ err: e }, `partition data service ${s.name} failed: ${describeError(e)}`);
      }
    }
  }

  block(pid: number, row: Replicas): void {
    this.blocked.get(pid)?.timer.cancel();
    const timer = this.ctx.clock.setTimeout(() => {
      if (this.blocked.get(pid)?.timer !== timer) return;
      // No commit and no abort came: ask the master for its table before taking writes again,
      // so a commit whose push was lost is not overridden by writes here.
      void this.refreshFromMaster().finally(() => {
        if (this.blocked.get(pid)?.timer !== timer) return;
        this.ctx.logger.warn(`partition ${pid}: no word from the master about its migration; taking writes again`);
        this.blocked.delete(pid);
      });
    }, BLOCK_TIMEOUT_MS);
    this.blocked.set(pid, { row, timer });
  }

  /** Apply the master's table if it is newer than ours. */
  async refreshFromMaster(): Promise<void> {
    const master = this.ctx.cluster.master();
    if (master === undefined || master.uuid === this.ctx.localUuid || this.ctx.net === undefined) return;
    try {
      const t = this.decodeTable(await this.ctx.net.request(master.address, Msg.FetchTable, encodeEmpty(), FETCH_TABLE_TIMEOUT_MS));
      if (t.version > this.ctx.table.version()) this.apply(t.rows, t.version);
    } catch (e) {
      this.ctx.logger.warn(`could not read the master's partition table: ${describeError(e)}`);
    }
  }

  unblock(pid: number): void {
    const b = this.blocked.get(pid);
    if (b === undefined) return;
    b.timer.cancel();
    this.blocked.delete(pid);
  }

  /**
   * A restarting member's first table: the recovered one (its persisted version + 1) ends the
   * recovery; any other means this member's data is stale: dropped (it joins as new) or, when
   * stale data may not be removed, the table is refused.
   */
  recovered(version: number, rows: readonly Replicas[]): boolean {
    const r = this.ctx.recovery;
    if (r === undefined) return true;
    if (version === r.plan.version + 1 && !r.fresh) {
      this.ctx.recovery = undefined;
      this.ctx.logger.info(`cluster restart: the persisted partition table (version ${r.plan.version}) is back in place`);
      this.dropUnheld(rows);
      return true;
    }
    // forceStart (or the master's partial start chose other members' data): drop, whatever the versions.
    if (r.fresh) {
      this.ctx.recovery = undefined;
      this.ctx.logger.warn(`cluster restart: this member's persisted data is dropped (forceStart, or a partial start with other members' data); it joins as a new member`);
      for (let pid = 0; pid < PARTITION_COUNT; pid++) this.dropData(pid);
      return true;
    }
    if (version <= r.plan.version) {
      // A cluster younger than this member's data (started without the persisted members, e.g.
      // by a member that lost its directory): keep the data, take no table.
      if (!r.refusedYounger) {
        r.refusedYounger = true;
        this.ctx.logger.error(
          `cluster restart: the cluster's partition table (version ${version}) is older than this member's persisted one (version ${r.plan.version}): ` +
            'the cluster was started without the members of the persisted member list. This member keeps its data and takes no partitions; ' +
            'stop that cluster and start every persisted member, or move this member\'s persistence directory away to join it as a new member.',
        );
      }
      return false;
    }
    if (r.plan.stale(version) === 'refuse') return false;
    this.ctx.recovery = undefined;
    this.ctx.logger.warn(`cluster restart: the cluster's partition table (version ${version}) is not this member's persisted one (version ${r.plan.version}): its persisted data is stale and was dropped; it joins as a new member`);
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
  dropUnheld(rows: readonly Replicas[]): void {
    const me = this.ctx.localUuid;
    let withData = 0;
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      if ((rows[pid] ?? []).includes(me)) continue;
      // A snapshot only to learn whether there is data: rare (a partition moved away while this member was down), once, at restart.
      if (this.services.some((s) => s.snapshot(pid, 0) !== undefined)) withData++;
      this.dropData(pid);
    }
    if (withData > 0) {
      this.ctx.logger.info(
        `cluster restart: this member's persisted copies of ${withData} partition(s) that the partition table now gives to other members were dropped ` +
          '(they moved while this member was away; the members that hold them have their current data)',
      );
    }
  }

}
