// The event journal of maps configured with `event-journal`: on every replica of a partition, a
// bounded ring (journal-ring.ts) of the change events its owner made. The owner appends each
// event as it makes it and sends it to the partition's backups at once, on the same connections
// and before the write's own backup, so a backup that holds a write holds its event too; a
// backup promoted after its owner died goes on from its journal (the source starts the new term
// at the journal's last sequence). Migrations and new backups get the rings with the partition's
// data. A partition whose owner and backups were all lost starts an empty journal that says so
// ("complete since" its start): readers that were before are told, not led across the hole.
// Readers (resuming change streams) ask the owner through the invoker.

import type { Clock } from '../core/clock.js';
import { GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { EventJournalConfig, MapConfig } from '../config/types.js';
import type { Invoker, Operation, OperationHandler } from '../invocation/invoker.js';
import type { MapChangeEvent } from '../map/map-service.js';
import type { MemberNet } from '../net/member-net.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import type { WireValue } from '../protocol/codec.js';
import { decodeMapEvents, encodeMapEvents } from '../protocol/event-payloads.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import { encodeBackup } from '../protocol/payloads.js';
import { JournalRing, type JournalDropped, type JournalEntry, type JournalFrom, type JournalGap, type JournalRead } from './journal-ring.js';

/** The invoker's service name of journal operations and backups. */
const SERVICE = 'journal';
const GAPS: readonly JournalGap[] = ['overwritten', 'expired', 'lost'];
/** Events per read answer: a reader pages through a large journal. */
export const READ_PAGE = 1_000;

export interface EventJournalDeps {
  readonly net: MemberNet | undefined;
  readonly cluster: { localUuid(): string; memberAddress(uuid: string): string | undefined };
  readonly partitions: { replicas(pid: number): readonly string[]; tableVersion(): number; onTableApplied(fn: () => void): void };
  readonly configOf: (mapName: string) => MapConfig;
  readonly invoker: Invoker;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Events kept per partition: the configured total split as Hazelcast splits it. */
export function perPartitionCapacity(c: EventJournalConfig): number {
  return Math.max(1, Math.floor(c.capacity / PARTITION_COUNT));
}

export class EventJournal {
  /** Per map, the ring of each partition this member holds a replica of. */
  private readonly rings = new Map<string, (JournalRing | undefined)[]>();
  /** Per partition, the time from which this member's journals of it are complete (0: from the start). */
  private readonly completeSince = new Array<number>(PARTITION_COUNT).fill(0);
  /** Partitions whose copy was installed since the last ownership change (a migration brought the history). */
  private readonly installed = new Set<number>();
  /** This member's replica index of each partition in the table before the one being applied (-1: none). */
  private readonly roles = new Int16Array(PARTITION_COUNT).fill(-1);
  readonly replicaData: ReplicaData;
  readonly handler: OperationHandler;

  constructor(private readonly deps: EventJournalDeps) {
    this.replicaData = this.makeReplicaData();
    this.handler = this.makeHandler();
    deps.partitions.onTableApplied(() => {
      const me = deps.cluster.localUuid();
      for (let pid = 0; pid < PARTITION_COUNT; pid++) this.roles[pid] = deps.partitions.replicas(pid).indexOf(me);
    });
  }

  /** Whether the map keeps a journal. */
  journaled(mapName: string): boolean {
    return this.deps.configOf(mapName).eventJournal.enabled;
  }

  /** The last sequence journaled of a map's partition here (a new owner's term goes on from it). */
  lastSequence(mapName: string, pid: number): number {
    return this.rings.get(mapName)?.[pid]?.head()?.sequence ?? 0;
  }

  /** An event the owner made now: journaled here and sent to the partition's backups. */
  append(e: MapChangeEvent): void {
    const config = this.deps.configOf(e.mapName);
    if (!config.eventJournal.enabled) return;
    const atMs = this.deps.clock.now();
    const ring = this.ring(e.mapName, e.partitionId, config.eventJournal);
    ring.expire(atMs, config.eventJournal.timeToLiveSeconds * 1000);
    ring.append({ event: e, atMs });
    const net = this.deps.net;
    const replicas = this.deps.partitions.replicas(e.partitionId);
    const last = Math.min(replicas.length - 1, config.backupCount + config.asyncBackupCount);
    if (net === undefined || last < 1) return;
    const payload = encodeBackup({ service: SERVICE, type: 'append', partitionId: e.partitionId, args: [e.mapName, encodeMapEvents([e]), atMs], tableVersion: this.deps.partitions.tableVersion() });
    for (let i = 1; i <= last; i++) {
      const address = this.deps.cluster.memberAddress(replicas[i]!);
      // One-way: the write's own backup follows on the same connection, and anti-entropy copies the journal with the data.
      if (address !== undefined) net.oneWay(address, Msg.Backup, payload);
    }
  }

  /** The owner's events of a map's partition after `from` (at most READ_PAGE), or why they cannot be had. */
  read(mapName: string, pid: number, from: JournalFrom): Promise<JournalRead> {
    const r = this.deps.invoker.invoke(pid, new ReadOp(this, pid, mapName, from));
    return r instanceof Promise ? r : Promise.resolve(r);
  }

  /** The read on the owner. */
  readHere(mapName: string, pid: number, from: JournalFrom, limit: number): JournalRead {
    const config = this.deps.configOf(mapName);
    if (!config.eventJournal.enabled) throw new GridError('BAD_REQUEST', `map "${mapName}" has no event journal`);
    const ring = this.rings.get(mapName)?.[pid] ?? new JournalRing(1, this.completeSince[pid]);
    ring.expire(this.deps.clock.now(), config.eventJournal.timeToLiveSeconds * 1000);
    return ring.read(from, limit);
  }

  /** Events kept on this member (all maps, all partitions), for metrics and tests. */
  size(): number {
    let n = 0;
    for (const rings of this.rings.values()) for (const r of rings) n += r?.size ?? 0;
    return n;
  }

  private ring(mapName: string, pid: number, config: EventJournalConfig): JournalRing {
    let rings = this.rings.get(mapName);
    if (rings === undefined) this.rings.set(mapName, (rings = new Array<JournalRing | undefined>(PARTITION_COUNT)));
    let r = rings[pid];
    if (r === undefined) rings[pid] = r = new JournalRing(perPartitionCapacity(config), this.completeSince[pid]);
    return r;
  }

  private dropPartition(pid: number): void {
    for (const rings of this.rings.values()) rings[pid] = undefined;
  }

  /** A backup's side: the owner's event, appended unless it came twice, late, or to a member that is not a replica. */
  private applyAppend(pid: number, args: readonly WireValue[]): void {
    const mapName = f.str(args, 0, 'map name');
    const config = this.deps.configOf(mapName);
    if (!config.eventJournal.enabled || !this.deps.partitions.replicas(pid).includes(this.deps.cluster.localUuid())) return;
    const atMs = f.num(args, 2, 'time');
    const ring = this.ring(mapName, pid, config.eventJournal);
    for (const e of decodeMapEvents(args[1] ?? null)) {
      if (e.partitionId !== pid || e.mapName !== mapName) throw new GridError('BAD_REQUEST', 'journal append for another partition');
      ring.append({ event: e, atMs });
    }
    ring.expire(this.deps.clock.now(), config.eventJournal.timeToLiveSeconds * 1000);
  }

  private makeHandler(): OperationHandler {
    return {
      operation: (pid, type, args) => {
        if (type !== 'read') throw new GridError('BAD_REQUEST', `unknown journal operation ${type}`);
        return new ReadOp(this, pid, f.str(args, 0, 'map name'), decodeFrom(args));
      },
      encodeResult: (_type, result) => encodeRead(result as JournalRead),
      decodeResult: (_type, value) => decodeRead(value),
      applyBackup: (pid, type, args) => {
        if (type !== 'append') throw new GridError('BAD_REQUEST', `unknown journal backup ${type}`);
        this.applyAppend(pid, args);
      },
    };
  }

  private makeReplicaData(): ReplicaData {
    return {
      name: 'map-journal',
      snapshot: (pid, replicaIndex) => {
        const out: WireValue[] = [this.completeSince[pid]!];
        for (const [name, rings] of this.rings) {
          const r = rings[pid];
          const config = this.deps.configOf(name);
          if (r === undefined || replicaIndex > config.backupCount + config.asyncBackupCount) continue;
          const entries = r.entries();
          const d = r.lastDropped();
          out.push(name, d === undefined ? null : [d.epoch, d.sequence, d.atMs, GAPS.indexOf(d.reason)], encodeMapEvents(entries.map((x) => x.event)), entries.map((x) => x.atMs));
        }
        return out.length === 1 && out[0] === 0 ? undefined : out;
      },
      install: (pid, data) => {
        this.dropPartition(pid);
        this.installed.add(pid);
        if (data === undefined) {
          this.completeSince[pid] = 0;
          return;
        }
        const t = f.tuple(data, 'map journal');
        this.completeSince[pid] = f.num(t, 0, 'complete since');
        for (let i = 1; i + 3 < t.length; i += 4) {
          const name = f.str(t, i, 'map name');
          const config = this.deps.configOf(name);
          if (!config.eventJournal.enabled) continue;
          const dt = t[i + 1];
          let dropped: JournalDropped | undefined;
          if (Array.isArray(dt)) {
            dropped = { epoch: f.num(dt, 0, 'epoch'), sequence: f.num(dt, 1, 'sequence'), atMs: f.num(dt, 2, 'time'), reason: GAPS[f.int(dt, 3, 'reason')] ?? 'lost' };
          }
          const events = decodeMapEvents(t[i + 2] ?? null);
          const times = f.arr(t, i + 3, 'times');
          const entries: JournalEntry[] = events.map((event, j) => ({ event, atMs: f.num(times, j, 'time') }));
          let rings = this.rings.get(name);
          if (rings === undefined) this.rings.set(name, (rings = new Array<JournalRing | undefined>(PARTITION_COUNT)));
          rings[pid] = JournalRing.restore(perPartitionCapacity(config.eventJournal), this.completeSince[pid]!, dropped, entries);
        }
      },
      drop: (pid) => {
        this.dropPartition(pid);
        this.installed.delete(pid);
        this.completeSince[pid] = 0;
      },
      ownershipLost: () => undefined,
      ownershipGained: (pid) => {
        const brought = this.installed.delete(pid);
        if (brought || this.roles[pid]! > 0) return;
        // Owner now without having held a replica or been handed one: whatever history the
        // partition had is gone (or there was none yet: a new cluster). Readers from before now are told.
        this.dropPartition(pid);
        this.completeSince[pid] = this.deps.clock.now();
      },
      trim: (pid, replicaIndex) => {
        for (const [name, rings] of this.rings) {
          const config = this.deps.configOf(name);
          if (config.backupCount + config.asyncBackupCount < replicaIndex) rings[pid] = undefined;
        }
      },
    };
  }
}

/** The read of a partition's journal, run on its owner. */
class ReadOp implements Operation<JournalRead> {
  readonly name = 'journal.read';
  readonly service = SERVICE;
  readonly type = 'read';
  readonly mutating = false;
  readonly args: readonly WireValue[];

  constructor(
    private readonly journal: EventJournal,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly from: JournalFrom,
  ) {
    this.args = 'after' in from ? [mapName, 0, from.after.epoch, from.after.sequence] : [mapName, 1, from.sinceMs, 0];
  }

  run(): JournalRead {
    return this.journal.readHere(this.mapName, this.pid, this.from, READ_PAGE);
  }
}

function decodeFrom(args: readonly WireValue[]): JournalFrom {
  const kind = f.int(args, 1, 'from kind');
  if (kind === 0) return { after: { epoch: f.num(args, 2, 'epoch'), sequence: f.num(args, 3, 'sequence') } };
  if (kind === 1) return { sinceMs: f.num(args, 2, 'since') };
  throw new GridError('BAD_REQUEST', `journal read from kind ${kind}`);
}

function encodeRead(r: JournalRead): WireValue {
  if (r.ok) return [1, r.more, encodeMapEvents(r.entries.map((e) => e.event)), r.entries.map((e) => e.atMs)];
  return [0, GAPS.indexOf(r.reason), r.head?.epoch ?? -1, r.head?.sequence ?? -1];
}

function decodeRead(v: WireValue): JournalRead {
  const t = f.tuple(v, 'journal read');
  if (f.int(t, 0, 'ok') === 1) {
    const events = decodeMapEvents(t[2] ?? null);
    const times = f.arr(t, 3, 'times');
    return { ok: true, more: f.bool(t, 1, 'more'), entries: events.map((event, i) => ({ event, atMs: f.num(times, i, 'time') })) };
  }
  const epoch = f.num(t, 2, 'head epoch');
  const sequence = f.num(t, 3, 'head sequence');
  return { ok: false, reason: GAPS[f.int(t, 1, 'reason')] ?? 'lost', head: sequence < 0 ? undefined : { epoch, sequence } };
}
