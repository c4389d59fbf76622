// The master's side of the partition layer: assignment rounds (promotion when members leave,
// then a balanced target from assignment.ts), migrations one partition at a time (the owner
// copies, the master commits the new row and pushes the table), taking over after a master
// change, a restarting cluster's choice of persisted table, and graceful hand-offs.

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import { decodeRecoveryStateAnswer, encodeEmpty, encodeMigrate, encodeMigrateEnd, encodeRecoveryState } from '../protocol/payloads.js';
import type { ClusterEvent, MemberInfo } from '../cluster/types.js';
import { balance, changedPartitions, promote, type Replicas } from './assignment.js';
import { PARTITION_COUNT } from './partitioning.js';
import { commitAllowed, migrationReady, planMode, rowsEqual } from './migration-rules.js';
import { FETCH_TABLE_TIMEOUT_MS, rowsHash, type PartitionContext, type RecoveryRun } from './partition-context.js';
import type { PartitionHandlers } from './partition-handlers.js';
import type { PartitionTables } from './partition-tables.js';

/** The master repeats the table this often, so a member that missed a push catches up. */
const TABLE_REPEAT_MS = 2_000;
const RETRY_REPARTITION_MS = 1_000;

export class PartitionMaster {
  /** Migrations this member committed as master (metrics). */
  migrationsCommitted = 0;
  private readonly leaving = new Set<string>();
  private readonly handOffWaiters: { uuid: string; resolve: () => void }[] = [];
  private retryTimer: TimerHandle | undefined;
  private masterEpoch = 0;
  private readonly repeatTimer: TimerHandle;
  private scheduled = false;
  private readonly running = new Set<number>();

  constructor(
    private readonly ctx: PartitionContext,
    private readonly tables: PartitionTables,
    private readonly handlers: PartitionHandlers,
  ) {
    ctx.cluster.on((e) => this.onClusterEvent(e));
    ctx.cluster.setHandOff((uuid) => this.handOff(uuid));
    this.repeatTimer = ctx.clock.setInterval(() => {
      if (ctx.cluster.isMaster() && ctx.cluster.members().length > 1) this.pushTable();
    }, TABLE_REPEAT_MS);
  }

  /** Forget every migration (this member leaves its cluster to merge into another). */
  resetForMerge(): void {
    this.masterEpoch++;
    this.ctx.planned.clear();
  }

  stop(): void {
    this.retryTimer?.cancel();
    this.repeatTimer.cancel();
  }

  /** Members of the persisted member list that are not here yet. */
  recoveryMissing(): string[] {
    if (this.ctx.recovery === undefined) return [];
    const present = new Set(this.ctx.cluster.members().map((m) => m.uuid));
    return this.ctx.recovery.plan.expected.filter((u) => !present.has(u));
  }

  private onClusterEvent(e: ClusterEvent): void {
    if (e.type === 'stateChanged') {
      if (this.ctx.cluster.isMaster()) this.schedule();
      return;
    }
    if (e.type !== 'membersChanged') return;
    if (!this.ctx.cluster.isMaster()) {
      // A new master knows nothing of the old one's migrations: once its table is here, the
      // partitions it did not move take writes again (a commit may be in that very table).
      if (e.masterChanged && this.tables.blocked.size > 0) this.ctx.unblockOnTableFrom = this.ctx.cluster.master()?.uuid;
      return;
    }
    if (e.masterChanged && this.ctx.table.version() > 0) {
      this.adoptNewestTable()
        .catch((e: unknown) => this.ctx.logger.error(`reading the newest partition table failed: ${describeError(e)}`))
        .finally(() => {
          // Everyone hears from the new master at once (and drops migrations it never committed).
          this.pushTable();
          this.schedule();
        });
    } else {
      this.schedule();
    }
    // A member that joined needs the table even when nothing moves (lite members).
    for (const m of e.added) if (m.uuid !== this.ctx.localUuid) this.pushTable(m.address);
  }

  /** A new master takes the newest table any member has (the old master may have pushed one it never saw). */
  private async adoptNewestTable(): Promise<void> {
    this.masterEpoch++;
    this.ctx.planned.clear();
    this.tables.unblockAll();
    const others = this.ctx.cluster.members().filter((m) => m.uuid !== this.ctx.localUuid);
    const answers = await Promise.allSettled(others.map((m) => this.ctx.net!.request(m.address, Msg.FetchTable, encodeEmpty(), FETCH_TABLE_TIMEOUT_MS)));
    for (const a of answers) {
      if (a.status !== 'fulfilled') continue;
      try {
        const t = this.tables.decodeTable(a.value);
        if (t.version > this.ctx.table.version()) this.tables.apply(t.rows, t.version);
      } catch (e) {
        this.ctx.logger.warn(`ignoring a partition table from a member: ${describeError(e)}`);
      }
    }
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        this.repartition();
      } catch (e) {
        this.ctx.logger.error({ err: e }, `repartitioning failed, trying again shortly: ${describeError(e)}`);
        this.retryLater();
      }
    });
  }

  private commit(rows: readonly Replicas[]): void {
    this.tables.apply(rows, this.ctx.table.version() + 1);
    this.pushTable();
  }

  private pushTable(only?: string): void {
    if (this.ctx.net === undefined) return;
    const payload = this.tables.encodeTable();
    for (const m of this.ctx.cluster.members()) {
      if (m.uuid === this.ctx.localUuid) continue;
      if (only !== undefined && m.address !== only) continue;
      this.ctx.net.oneWay(m.address, Msg.PartitionTable, payload);
    }
  }

  /**
   * Ask every member present for its persisted table (version and fingerprint). All agree:
   * that table. They differ: without a partial start, nothing (the restart waits and fails
   * at validation-timeout-seconds, naming them); with one, PARTIAL_RECOVERY_MOST_RECENT takes
   * the newest table, PARTIAL_RECOVERY_MOST_COMPLETE the one most members have (then the
   * newest); members with another table drop their data when the chosen one arrives.
   */
  private async chooseRecoveredTable(r: RecoveryRun): Promise<{ rows: readonly Replicas[]; version: number; members: ReadonlySet<string> } | undefined> {
    const me = this.ctx.localUuid;
    const mine = { uuid: me, version: r.plan.version, hash: rowsHash(r.plan.rows) };
    const others = this.ctx.cluster.members().filter((m) => m.uuid !== me && !m.liteMember);
    const answers = await Promise.all(
      others.map(async (m) => {
        const a = decodeRecoveryStateAnswer(await this.ctx.net!.request(m.address, Msg.RecoveryState, encodeRecoveryState({ withRows: false }), FETCH_TABLE_TIMEOUT_MS));
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
        this.ctx.logger.error(`cluster restart: ${r.problem}; with FULL_RECOVERY_ONLY the restart cannot complete (partialStart or a partial policy picks one)`);
        return undefined;
      }
      const list = [...groups.values()];
      const newest = (a: typeof states, b: typeof states): number => b[0]!.version - a[0]!.version;
      list.sort(r.plan.policy === 'PARTIAL_RECOVERY_MOST_COMPLETE' ? (a, b) => b.length - a.length || newest(a, b) : (a, b) => newest(a, b) || b.length - a.length);
      chosen = list[0]!;
      this.ctx.logger.warn(`cluster restart: the members' persisted partition tables differ (${desc}); ${r.plan.policy === 'PARTIAL_RECOVERY_MOST_COMPLETE' ? 'most complete' : 'most recent'}: version ${chosen[0]!.version}`);
    }
    const members = new Set(chosen.map((x) => x.uuid));
    if (members.has(me)) return { rows: r.plan.rows, version: r.plan.version, members };
    const from = chosen[0]!;
    const a = decodeRecoveryStateAnswer(await this.ctx.net!.request(from.address, Msg.RecoveryState, encodeRecoveryState({ withRows: true }), FETCH_TABLE_TIMEOUT_MS));
    if (a.table === undefined || a.table.rows.length !== PARTITION_COUNT) throw new GridError('BAD_REQUEST', `member ${from.address} sent no persisted table`);
    return { rows: a.table.rows, version: a.version, members };
  }

  /**
   * The master of a restarting cluster: install the persisted table once every member of the
   * persisted member list is here (or with those present when told to). False: keep waiting.
   */
  private tryRecover(): boolean {
    const r = this.ctx.recovery;
    if (r === undefined) return true;
    const missing = this.recoveryMissing();
    if (r.fresh) {
      this.ctx.recovery = undefined;
      this.ctx.logger.warn('cluster restart: forceStart — the persisted data is dropped, partitions are assigned anew');
      for (let pid = 0; pid < PARTITION_COUNT; pid++) this.tables.dropData(pid);
      // Newer than any persisted table, and not the recovered version: every member drops its data.
      this.tables.apply(new Array<Replicas>(PARTITION_COUNT).fill([]), r.plan.version + 2);
      return true;
    }
    if (missing.length > 0 && !r.partial) {
      const text = missing.join(', ');
      if (text !== r.lastMissing) {
        r.lastMissing = text;
        this.ctx.logger.info(`cluster restart: waiting for ${missing.length} member(s) of the persisted member list: ${text}`);
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
            this.ctx.logger.warn(`cluster restart: reading the members' persisted tables failed, trying again: ${describeError(e)}`);
            this.retryLater();
          },
        );
      }
      return false;
    }
    this.ctx.recovery = undefined;
    const present = new Set(this.ctx.cluster.members().map((m) => m.uuid));
    const keep = (u: string): boolean => present.has(u) && this.ctx.cluster.isAlive(u) && r.chosen!.members.has(u);
    const rows = r.chosen.rows.every((row) => row.every(keep)) ? r.chosen.rows : promote(r.chosen.rows, keep);
    const left = [...present].filter((u) => !r.chosen!.members.has(u));
    // Members with other data drop it, whatever their versions (before the table reaches them).
    for (const uuid of left) {
      const m = this.ctx.cluster.memberByUuid(uuid);
      if (m !== undefined) this.ctx.net?.oneWay(m.address, Msg.RecoveryDrop, encodeEmpty());
    }
    this.tables.apply(rows, r.chosen.version + 1);
    this.tables.dropUnheld(rows);
    this.pushTable();
    this.ctx.logger.info(
      missing.length === 0 && left.length === 0
        ? `cluster restart: every member is back; the persisted partition table (version ${r.chosen.version}) is in place, nothing migrates`
        : `cluster restart: partial start with the persisted table version ${r.chosen.version}` +
            (missing.length > 0 ? `, without ${missing.join(', ')} (their partitions go to the replicas present)` : '') +
            (left.length > 0 ? `; members with other data drop it and join as new: ${left.join(', ')}` : ''),
    );
    return true;
  }

  private repartition(): void {
    if (!this.ctx.cluster.isMaster()) return;
    if (!this.tryRecover()) {
      // No table while the restart waits: a member leaving now (a failed restart stopping)
      // has nothing to hand over.
      this.settleHandOffs();
      return;
    }
    const mode = planMode(this.ctx.cluster.committedState());
    if (mode === 'frozen') {
      if (this.ctx.planned.size > 0) {
        this.ctx.planned.clear();
        this.pushTable();
      }
      this.settleHandOffs();
      return;
    }
    const alive = (uuid: string): boolean => this.ctx.cluster.isAlive(uuid);
    let rows = this.ctx.table.snapshot();
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
    const dataMembers = this.ctx.cluster
      .members()
      .filter((m) => !m.liteMember && !this.leaving.has(m.uuid) && alive(m.uuid))
      .map((m) => m.uuid);
    const target = balance(beforePromotion, dataMembers, this.ctx.tuning.replicaCount);
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
    this.ctx.planned.clear();
    for (const pid of changedPartitions(rows, target)) this.ctx.planned.set(pid, target[pid]!);
    if (this.ctx.planned.size > 0) {
      this.ctx.logger.info(`repartitioning: ${this.ctx.planned.size} partition replicas to move`);
      // Everyone learns that the cluster is not safe until these moves are done.
      this.pushTable();
    }
    this.pump();
  }

  /** Partitions whose migration runs now (master), in id order. */
  runningPartitions(): number[] {
    return [...this.running].sort((a, b) => a - b);
  }

  private pump(): void {
    const epoch = this.masterEpoch;
    while (this.ctx.inFlight < this.ctx.tuning.maxParallelMigrations && this.ctx.planned.size > 0) {
      let next: [number, Replicas] | undefined;
      for (const entry of this.ctx.planned) {
        if (!this.running.has(entry[0])) {
          next = entry;
          break;
        }
      }
      if (next === undefined) break;
      const [pid, row] = next;
      this.ctx.planned.delete(pid);
      this.running.add(pid);
      this.ctx.inFlight++;
      void this.migrate(pid, row)
        .catch((e: unknown) => {
          this.ctx.logger.error(`migration of partition ${pid} failed unexpectedly: ${describeError(e)}`);
          this.retryLater();
        })
        .finally(() => {
        this.running.delete(pid);
        this.ctx.inFlight--;
        if (epoch !== this.masterEpoch || !this.ctx.cluster.isMaster()) return;
        if (this.ctx.planned.size === 0 && this.ctx.inFlight === 0) {
          this.ctx.logger.info('repartitioning done');
          this.pushTable();
        }
        this.settleHandOffs();
        this.pump();
      });
    }
    this.settleHandOffs();
  }

  private async migrate(pid: number, next: Replicas): Promise<void> {
    const prev = this.ctx.table.replicas(pid);
    if (rowsEqual(prev, next)) return;
    const alive = (uuid: string): boolean => this.ctx.cluster.isAlive(uuid);
    if (!migrationReady(prev, next, alive)) {
      this.retryLater();
      return;
    }
    const owner = prev[0]!;
    const ownerInfo = this.ctx.cluster.memberByUuid(owner)!;
    const startedAt = this.ctx.logger.isLevelEnabled('debug') ? Date.now() : 0;
    try {
      if (owner === this.ctx.localUuid) await this.handlers.runMigration(pid, next, prev);
      else await this.ctx.net!.request(ownerInfo.address, Msg.Migrate, encodeMigrate({ partitionId: pid, replicas: next, previousReplicas: prev }), this.ctx.tuning.callTimeoutMs);
    } catch (e) {
      this.ctx.logger.warn(`migration of partition ${pid} from ${ownerInfo.address} failed: ${describeError(e)}`);
      this.callOff(pid, ownerInfo);
      this.retryLater();
      return;
    }
    if (!commitAllowed({ isMaster: this.ctx.cluster.isMaster(), currentRow: this.ctx.table.replicas(pid), prev, next, alive })) {
      // The world moved on while the data was copied: let the source take writes again.
      this.callOff(pid, ownerInfo);
      this.retryLater();
      return;
    }
    this.migrationsCommitted++; // metrics: committed just below
    const rows = [...this.ctx.table.snapshot()];
    rows[pid] = next;
    this.commit(rows);
    if (startedAt > 0) {
      const name = (uuid: string | undefined): string => (uuid === undefined || uuid === '' ? '-' : (this.ctx.cluster.memberByUuid(uuid)?.address ?? uuid));
      this.ctx.logger.debug(
        { partition: pid, from: prev.map(name), to: next.map(name), ms: Date.now() - startedAt },
        `partition ${pid} migrated: owner ${name(prev[0])} -> ${name(next[0])}`,
      );
    }
  }

  /** A migration that will not be committed: its source takes writes for the partition again. */
  private callOff(pid: number, source: MemberInfo): void {
    if (source.uuid === this.ctx.localUuid) this.tables.unblock(pid);
    else this.ctx.net!.oneWay(source.address, Msg.MigrateEnd, encodeMigrateEnd({ partitionId: pid }));
  }

  private retryLater(): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = this.ctx.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.ctx.cluster.isMaster()) this.schedule();
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
    const state = this.ctx.cluster.committedState();
    const canMove = state === 'ACTIVE' || state === 'NO_MIGRATION';
    const rows = this.ctx.table.snapshot();
    for (let i = this.handOffWaiters.length - 1; i >= 0; i--) {
      const w = this.handOffWaiters[i]!;
      const holds = rows.some((r) => r.includes(w.uuid));
      const dataLeft = this.ctx.cluster.members().some((m) => !m.liteMember && m.uuid !== w.uuid && !this.leaving.has(m.uuid));
      if (!holds || !canMove || !dataLeft || state === 'NO_MIGRATION') {
        this.handOffWaiters.splice(i, 1);
        this.leaving.delete(w.uuid);
        w.resolve();
      }
    }
  }
}
