// Anti-entropy (the shell around replica-versions.ts): every owner tells each backup member,
// on the ordered connection that carries its backups, how many backup operations it has sent
// for each partition it owns there; a backup whose count differs (a lost or refused backup,
// a copy made for another replica index) asks for a full copy, which the owner takes together
// with its counters in one synchronous step. A backup that sees a version jump asks at once.

import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeReplicaSyncData,
  decodeReplicaSyncRequest,
  decodeReplicaVersions,
  encodeReplicaSyncData,
  encodeReplicaSyncRequest,
  encodeReplicaVersions,
  type ReplicaVersionEntry,
} from '../protocol/payloads.js';
import type { MemberConnection, MemberNet } from '../net/member-net.js';
import type { ClusterView } from '../cluster/cluster-service.js';
import { admitPartitionWrite } from '../cluster/member-rules.js';
import { PARTITION_COUNT } from './partitioning.js';
import { checkPartitionWriteFrom, type PartitionTable } from './partition-table.js';
import { ReplicaVersions, partitionsToSync, type BackupVerdict } from './replica-versions.js';

/** Copies asked for and not yet installed, per member: more wait for the next ones. */
const MAX_PENDING_SYNCS = 16;
/** A copy asked for and not arrived after this long is asked for again (the owner moved, the connection broke). */
const MIN_PENDING_TIMEOUT_MS = 10_000;
/** At most one summary log line this often. */
const REPORT_EVERY_MS = 10_000;

/** The partition data of every service, as PartitionService moves it. */
export interface PartitionCopies {
  snapshot(partitionId: number, replicaIndex: number): Record<string, WireValue>;
  install(partitionId: number, perService: Readonly<Record<string, WireValue>>): void;
}

/** Counters of this member's anti-entropy, for logs, tests and /rest/partitions. */
export interface ReplicaSyncStats {
  /** Rounds this member ran as an owner. */
  readonly rounds: number;
  /** Partition copies this member asked its owners for. */
  readonly requested: number;
  /** Partition copies it installed. */
  readonly done: number;
  /** Copies it sent to its backups as owner. */
  readonly served: number;
  /** Backup operations that arrived out of sequence (each asks for a copy). */
  readonly gaps: number;
  /** Duplicate backup operations skipped. */
  readonly stale: number;
  /** Owners' version lists this member compared its backups with. */
  readonly checks: number;
  /** Partitions whose backup here is known to differ and whose copy has not arrived yet. */
  readonly outstanding: number;
}

export interface ReplicaSyncTuning {
  /** grid.partition.replica-sync-interval-seconds in ms; 0 = anti-entropy off. */
  readonly intervalMs: number;
  readonly callTimeoutMs: number;
}

/** What anti-entropy needs: the table, the cluster and the wire, the partitions' data, and whether a partition is being handed over. */
export interface ReplicaSyncDeps {
  readonly table: PartitionTable;
  readonly cluster: ClusterView;
  readonly net: MemberNet | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly copies: PartitionCopies;
  readonly isBlocked: (pid: number) => boolean;
  readonly tuning: ReplicaSyncTuning;
}

export class ReplicaSync {
  readonly versions = new ReplicaVersions();
  private timer: TimerHandle | undefined;
  /** Partitions whose backup here is not exact, by the owner uuid to ask. */
  private readonly wanted = new Map<number, string>();
  /** Partitions asked for, with the time. */
  private readonly pending = new Map<number, { owner: string; at: number }>();
  private pumpScheduled = false;
  private stats = { rounds: 0, requested: 0, done: 0, served: 0, gaps: 0, stale: 0, checks: 0 };
  private reported = { requested: 0, done: 0, served: 0, gaps: 0 };
  private lastReportAt = 0;

  constructor(private readonly deps: ReplicaSyncDeps) {
    if (this.deps.net !== undefined) this.registerHandlers(this.deps.net);
    if (this.enabled) this.timer = this.deps.clock.setInterval(() => this.tick(), this.deps.tuning.intervalMs);
  }

  get enabled(): boolean {
    return this.deps.tuning.intervalMs > 0 && this.deps.net !== undefined;
  }

  counters(): ReplicaSyncStats {
    const outstanding = new Set([...this.wanted.keys(), ...this.pending.keys()]).size;
    return { ...this.stats, outstanding };
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private get localUuid(): string {
    return this.deps.cluster.localMember().uuid;
  }

  // ------------------------------------------------------------------ hooks for the backup path

  /** Owner: count a backup operation to replicas 1..last; read `[i]` of the answer for replica i's version. */
  stampBackup(partitionId: number, last: number): readonly number[] {
    return this.versions.stamp(partitionId, last);
  }

  /** Backup: a backup operation arrived from `owner`; whether to apply it. */
  onBackup(partitionId: number, index: number, version: number, owner: string): boolean {
    const verdict: BackupVerdict = this.versions.receive(partitionId, index, version);
    if (verdict === 'apply') return true;
    if (verdict === 'stale') {
      this.stats.stale++;
      return false;
    }
    this.stats.gaps++;
    if (this.enabled) {
      this.wanted.set(partitionId, owner);
      this.schedulePump();
    }
    // Applied anyway: the copy is not exact any more, but closer than without it.
    return true;
  }

  // ------------------------------------------------------------------ the owner's round

  private tick(): void {
    this.expirePending();
    this.round();
    this.pump();
    this.report();
  }

  /** Tell every backup member the versions of the partitions this member owns there. */
  round(): void {
    if (!this.enabled || this.deps.cluster.fenced() || !this.deps.cluster.joined()) return;
    const me = this.localUuid;
    const byMember = new Map<string, ReplicaVersionEntry[]>();
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const row = this.deps.table.replicas(pid);
      // A partition being handed over gets its copies from the migration.
      if (row.length < 2 || row[0] !== me || this.deps.isBlocked(pid)) continue;
      for (let i = 1; i < row.length; i++) {
        let list = byMember.get(row[i]!);
        if (list === undefined) byMember.set(row[i]!, (list = []));
        list.push({ partitionId: pid, replicaIndex: i, version: this.versions.ownerVersion(pid, i) });
      }
    }
    const stamp = this.deps.table.version();
    for (const [uuid, entries] of byMember) {
      const member = this.deps.cluster.memberByUuid(uuid);
      if (member === undefined) continue;
      this.deps.net!.oneWay(member.address, Msg.ReplicaVersions, encodeReplicaVersions({ tableVersion: stamp, entries }));
    }
    this.stats.rounds++;
  }

  // ------------------------------------------------------------------ the backup's side

  private want(pid: number, owner: string): void {
    this.wanted.set(pid, owner);
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Ask owners for the partitions wanted, at most MAX_PENDING_SYNCS outstanding. */
  private pump(): void {
    if (!this.enabled || this.wanted.size === 0 || this.pending.size >= MAX_PENDING_SYNCS) return;
    const byOwner = new Map<string, number[]>();
    const now = this.deps.clock.now();
    for (const [pid, owner] of this.wanted) {
      if (this.pending.size >= MAX_PENDING_SYNCS) break;
      if (this.pending.has(pid)) continue;
      this.pending.set(pid, { owner, at: now });
      let list = byOwner.get(owner);
      if (list === undefined) byOwner.set(owner, (list = []));
      list.push(pid);
    }
    for (const [owner, pids] of byOwner) {
      const member = this.deps.cluster.memberByUuid(owner);
      if (member === undefined) {
        for (const pid of pids) {
          this.pending.delete(pid);
          this.wanted.delete(pid);
        }
        continue;
      }
      this.stats.requested += pids.length;
      this.deps.logger.debug(`anti-entropy: asking ${member.address} for ${pids.length} partition copies (${pids.join(', ')})`);
      this.deps.net!.oneWay(member.address, Msg.ReplicaSyncRequest, encodeReplicaSyncRequest({ tableVersion: this.deps.table.version(), partitionIds: pids }));
    }
  }

  private expirePending(): void {
    const timeout = Math.max(MIN_PENDING_TIMEOUT_MS, 3 * this.deps.tuning.intervalMs);
    const now = this.deps.clock.now();
    for (const [pid, p] of this.pending) {
      if (now - p.at < timeout) continue;
      // The next round (or gap) asks again if the copy is still needed.
      this.pending.delete(pid);
      this.wanted.delete(pid);
    }
  }

  private report(): void {
    const s = this.stats;
    const r = this.reported;
    if (s.requested === r.requested && s.done === r.done && s.served === r.served && s.gaps === r.gaps) return;
    const now = this.deps.clock.now();
    if (now - this.lastReportAt < REPORT_EVERY_MS) return;
    this.lastReportAt = now;
    this.deps.logger.info(
      `anti-entropy: ${s.requested - r.requested} partition copies requested, ${s.done - r.done} installed, ${s.served - r.served} sent to backups, ` +
        `${s.gaps - r.gaps} backups out of sequence since the last report (totals: requested ${s.requested}, installed ${s.done}, sent ${s.served})`,
    );
    this.reported = { requested: s.requested, done: s.done, served: s.served, gaps: s.gaps };
  }

  // ------------------------------------------------------------------ member protocol

  private registerHandlers(net: MemberNet): void {
    net.handleOneWay(Msg.ReplicaVersions, (p, from) => this.onVersions(p, from));
    net.handleOneWay(Msg.ReplicaSyncRequest, (p, from) => this.onSyncRequest(p, from));
    net.handle(Msg.ReplicaSyncData, (p, from) => this.onSyncData(p, from));
  }

  private onVersions(p: WireValue, from: MemberConnection): void {
    if (!this.enabled || this.deps.cluster.fenced()) return;
    const { tableVersion: stamp, entries: list } = decodeReplicaVersions(p);
    const sender = from.peer?.uuid ?? '';
    const me = this.localUuid;
    const mine = this.deps.table.version();
    const entries: [number, number, number][] = [];
    for (let j = 0; j < list.length; j++) {
      const e = list[j]!;
      const pid = e.partitionId;
      if (pid < 0 || pid >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${pid}`);
      // Only the owner in our table (or one whose table is newer) speaks for a partition.
      if (admitPartitionWrite('replica versions', pid, sender, stamp, { version: mine, owner: this.deps.table.ownerOf(pid) }) !== undefined) continue;
      // A partition this member left needs no copy (unless the sender knows a newer table).
      if (stamp <= mine && !this.deps.table.replicas(pid).includes(me)) continue;
      entries.push([pid, e.replicaIndex, e.version]);
    }
    for (const pid of partitionsToSync(this.versions, entries)) this.want(pid, sender);
    this.stats.checks++;
    this.pump();
  }

  private onSyncRequest(p: WireValue, from: MemberConnection): void {
    if (!this.enabled || this.deps.cluster.fenced() || from.peer === undefined) return;
    const pids = decodeReplicaSyncRequest(p).partitionIds;
    const peer = from.peer;
    // After the microtasks of this turn: a write whose backup is sent in a promise callback
    // (a poll that waited) has been counted by then, so the copy and its versions agree.
    setImmediate(() => {
      for (const pid of pids) this.serve(pid, peer.uuid);
    });
  }

  /** Owner: send a full copy of `pid` to backup `uuid`, with the versions it is exact for. */
  private serve(pid: number, uuid: string): void {
    if (pid < 0 || pid >= PARTITION_COUNT || this.deps.cluster.fenced()) return;
    const row = this.deps.table.replicas(pid);
    const index = row.indexOf(uuid);
    // Not (or no longer) this member's to copy; the asker gets versions from the right owner.
    if (row[0] !== this.localUuid || index < 1 || this.deps.isBlocked(pid)) return;
    const member = this.deps.cluster.memberByUuid(uuid);
    if (member === undefined) return;
    // One synchronous step: the copy and the counters it is exact for.
    const data = this.deps.copies.snapshot(pid, index);
    const versions = this.versions.copyVersions(pid);
    this.stats.served++;
    this.deps.net!.request(member.address, Msg.ReplicaSyncData, encodeReplicaSyncData({ partitionId: pid, replicaIndex: index, data, versions, tableVersion: this.deps.table.version() }), this.deps.tuning.callTimeoutMs).catch(
      (e: unknown) => this.deps.logger.warn(`anti-entropy: copy of partition ${pid} to ${member.address} failed: ${describeError(e)}`),
    );
  }

  private onSyncData(p: WireValue, from: MemberConnection): null {
    const t = decodeReplicaSyncData(p);
    const pid = t.partitionId;
    const { replicaIndex: index, versions, tableVersion: stamp } = t;
    checkPartitionWriteFrom('replica sync copy', pid, from.peer?.uuid ?? '', stamp, this.deps.table);
    if (this.deps.cluster.fenced()) throw new GridError('STALE_VIEW', `replica sync copy for partition ${pid} refused: this member is checking its membership`);
    if (index < 1) throw new GridError('BAD_REQUEST', `replica sync copy for replica index ${index}`);
    this.deps.copies.install(pid, t.data);
    this.versions.install(pid, index, versions);
    this.pending.delete(pid);
    this.wanted.delete(pid);
    this.stats.done++;
    this.schedulePump();
    return null;
  }
}
