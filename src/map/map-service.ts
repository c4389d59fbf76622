// Distributed maps: one RecordStore per map per partition, created on first write. Every
// operation is invoked on its key's partition; the REST layer sees only this facade.

import { totalmem } from 'node:os';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { Logger } from '../core/logger.js';
import type { GridConfig, MapConfig } from '../config/types.js';
import { findMapConfig } from '../config/index.js';
import { GridError, describeError } from '../core/errors.js';
import type { BackupSpec, Caller, Invoker, Operation, OperationHandler } from '../invocation/invoker.js';
import { ALONE_SIZE, PARTITION_OWNER, SplitBrainGuard, THIS_MEMBER, type ProtectedAccess } from '../invocation/split-brain-protection.js';
import { PARTITION_COUNT, partitionIdOf } from '../partition/partitioning.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { RecordStore, STATS_STRIDE, type MergeEntry, type StoreObserver, type StoredValue } from './record-store.js';
import { mergingWins, policyNeedsStats } from '../cluster/merge-policies.js';
import type { MergePolicyName } from '../config/types.js';
import { LogOp, type LogRecord } from '../persistence/log-format.js';
import { CountersByName, type MetricsRegistrar } from '../core/metrics.js';
import { MapEviction, type MemorySource } from './map-eviction.js';
import { SAMPLE_COUNT } from './eviction.js';
import type { WriteGate } from '../core/memory-guard.js';

/** A map's entries of one partition, taken from a cluster that merges into another after a split brain. */
export interface MapMergeBatch {
  readonly mapName: string;
  readonly partitionId: number;
  readonly entries: readonly (readonly [string, MergeEntry])[];
}

/** Entry statistics a target's merge policy may compare (maps whose merge policy keeps them). */
export interface MapWanStats {
  readonly creationTime: number;
  readonly lastUpdateTime: number;
  readonly lastAccessTime: number;
  readonly hits: number;
}

/** A map mutation as WAN replication publishes it (the WAN layer adds partition and sequence). */
export type MapWanEvent =
  | {
      readonly kind: 'put';
      readonly mapName: string;
      readonly key: string;
      readonly value: string;
      readonly contentType: string | undefined;
      /** Time to live left; undefined = the entry does not expire. */
      readonly ttlRemainingMs: number | undefined;
      readonly stats?: MapWanStats;
      /** Clusters the mutation has passed through (the WAN layer appends this cluster when it queues the event). */
      readonly originClusters: readonly string[];
    }
  | { readonly kind: 'remove'; readonly mapName: string; readonly key: string; readonly originClusters: readonly string[] };

/** An entry received from another cluster by WAN replication, to apply with the source map's merge policy. */
export interface MapWanIncoming {
  readonly kind: 'put' | 'remove';
  readonly key: string;
  readonly value: string;
  readonly contentType: string | undefined;
  readonly ttlRemainingMs: number | undefined;
  readonly stats: MapWanStats | undefined;
  readonly mergePolicy: MergePolicyName;
  readonly originClusters: readonly string[];
}

/**
 * Where map mutations go for WAN replication (implemented by the WAN layer, which sits above
 * this one). Owners admit before a write (a full queue may refuse it) and commit after; backups
 * mirror the owner's events with the sequence numbers the owner gave them.
 */
export interface MapWanSink {
  /** Reserve queue places before a write; throws QUEUE_FULL when a publisher refuses it. undefined: nothing to publish. */
  admit(mapName: string, partitionId: number): unknown;
  /** The admitted write happened: queue its event. Returns what backups need to mirror it (sequence numbers). */
  commit(tickets: unknown, partitionId: number, event: MapWanEvent): WireValue;
  /** The admitted write did not happen. */
  cancel(tickets: unknown): void;
  /** Queue without refusal (clear, split-brain merges, entries applied from another cluster that this map republishes): a full queue drops. */
  offer(partitionId: number, event: MapWanEvent): WireValue;
  /** A backup replica mirrors the owner's events (`seqs` from commit/offer). */
  backup(partitionId: number, event: MapWanEvent, seqs: WireValue): void;
  /** The Merkle tree a record store of this map keeps, when the map has merkle-tree enabled. */
  newObserver(config: MapConfig): StoreObserver | undefined;
}

export interface MapFacade {
  get(mapName: string, key: string): MaybePromise<StoredValue | undefined>;
  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void>;
  remove(mapName: string, key: string): MaybePromise<boolean>;
  clear(mapName: string): Promise<void>;
  size(mapName: string): Promise<number>;
}

// The hot operations are classes: one allocation per request, methods shared on the prototype.
class MapGet implements Operation<StoredValue | undefined> {
  readonly name = 'map.get';
  readonly service = 'map';
  readonly type = 'get';
  readonly mutating = false;
  constructor(
    private readonly svc: MapService,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly key: string,
  ) {}

  get args(): WireValue[] {
    return [this.mapName, this.key];
  }

  run(): StoredValue | undefined {
    this.svc.guardOwner(this.mapName, 'READ');
    return this.svc.runGet(this.pid, this.mapName, this.key);
  }
}

class MapPut implements Operation<void> {
  readonly name = 'map.put';
  readonly service = 'map';
  readonly type = 'put';
  readonly mutating = true;
  private wire: WireValue[] | undefined;
  /** Sequence numbers of the WAN events this put queued, for the backups to mirror them. */
  private wanSeqs: WireValue | undefined;
  /** Keys the put evicted (the backups remove them too). */
  private evicted: string[] | undefined;
  constructor(
    private readonly svc: MapService,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly key: string,
    private readonly value: string,
    private readonly ct: string | undefined,
  ) {}

  /** Built only when the put travels (to an owner elsewhere, or to backups). */
  get args(): WireValue[] {
    return (this.wire ??= [this.mapName, this.key, new Latin1(this.value), this.ct ?? null]);
  }

  run(): void {
    this.svc.guardOwner(this.mapName, 'WRITE');
    this.wanSeqs = this.svc.runPut(this.pid, this.mapName, this.key, this.value, this.ct);
    this.evicted = this.svc.takeEvicted();
  }

  backup(): BackupSpec {
    // [map, key, value, ct, WAN seqs | null, evicted keys]: older members read the first five.
    if (this.evicted !== undefined) return this.svc.putBackup(this.mapName, [...this.args, this.wanSeqs ?? null, this.evicted]);
    return this.svc.putBackup(this.mapName, this.wanSeqs === undefined ? this.args : [...this.args, this.wanSeqs]);
  }
}

/** Where a persisted map's changes go (the member's persistence; a narrow view of it). */
export interface MapPersistence {
  /** False while the member loads its persisted data (what it restores is not written again). */
  readonly logging: boolean;
  /** `undo` puts the change back if the record cannot be written (it runs later, not inside append). */
  append(r: LogRecord, sync: boolean, undo?: () => void): void;
  /** Why a write of persisted data is refused now (the disk is full or failed); undefined: it is not. */
  refusal(): GridError | undefined;
}

/**
 * A persisted entry's value in the log: [f64 expiresAt][f64 lastAccessAt][f64 creationTime]
 * [f64 lastUpdateTime][f64 hits][u16 content type length][content type utf8][value bytes].
 */
const ENTRY_HEADER_BYTES = 5 * 8 + 2;

export function encodePersistedEntry(v: StoredValue): Buffer {
  const r = v as Partial<MergeEntry> & StoredValue & { lastAccessTime?: number };
  const ct = v.contentType === undefined ? EMPTY_BUF : Buffer.from(v.contentType, 'utf8');
  const valueBytes = v.value.length;
  const out = Buffer.allocUnsafe(ENTRY_HEADER_BYTES + ct.length + valueBytes);
  out.writeDoubleLE(r.expiresAt ?? 0, 0);
  out.writeDoubleLE(r.lastAccessAt ?? 0, 8);
  out.writeDoubleLE(r.creationTime ?? 0, 16);
  out.writeDoubleLE(r.lastUpdateTime ?? 0, 24);
  out.writeDoubleLE(r.hits ?? 0, 32);
  out.writeUInt16LE(v.contentType === undefined ? 0xffff : ct.length, 40);
  ct.copy(out, ENTRY_HEADER_BYTES);
  out.write(v.value, ENTRY_HEADER_BYTES + ct.length, valueBytes, 'latin1');
  return out;
}

export function decodePersistedEntry(b: Uint8Array): MergeEntry {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < ENTRY_HEADER_BYTES) throw new GridError('INTERNAL', 'persisted map entry too short');
  const ctLen = buf.readUInt16LE(40);
  const ctBytes = ctLen === 0xffff ? 0 : ctLen;
  if (ENTRY_HEADER_BYTES + ctBytes > buf.length) throw new GridError('INTERNAL', 'persisted map entry: content type runs past the end');
  return {
    expiresAt: buf.readDoubleLE(0),
    lastAccessAt: buf.readDoubleLE(8),
    creationTime: buf.readDoubleLE(16),
    lastUpdateTime: buf.readDoubleLE(24),
    hits: buf.readDoubleLE(32),
    contentType: ctLen === 0xffff ? undefined : buf.toString('utf8', ENTRY_HEADER_BYTES, ENTRY_HEADER_BYTES + ctBytes),
    value: buf.toString('latin1', ENTRY_HEADER_BYTES + ctBytes, buf.length),
  };
}

const EMPTY_BUF = Buffer.alloc(0);

/** Persists every change of one record store (one map, one partition). */
class PersistObserver implements StoreObserver {
  /** The store watched (set once it exists): an undo touches it only while it is still the partition's. */
  store: RecordStore | undefined;

  constructor(
    private readonly persist: MapPersistence,
    private readonly mapName: string,
    private readonly partitionId: number,
    private readonly sync: boolean,
    /** The partition's store now (undefined once dropped): an undo of a store that left does nothing. */
    private readonly current: () => RecordStore | undefined,
    /** Told of every change put back (WAN: the owner publishes the entry as it is again). */
    private readonly undone: (key: string) => void,
  ) {}

  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    // A restore is not encoded only to be dropped (it was 11% of a restart's CPU).
    if (!this.persist.logging) return;
    this.persist.append(
      after === undefined
        ? { op: LogOp.Remove, partitionId: this.partitionId, service: 'map', name: this.mapName, key }
        : { op: LogOp.Put, partitionId: this.partitionId, service: 'map', name: this.mapName, key, value: encodePersistedEntry(after) },
      this.sync,
      () => this.undo(key, before, after),
    );
  }

  /**
   * Put back what one change replaced (its record could not be written, or a backup could not
   * persist it). Only if the entry is still as that change left it: a later write of the key
   * stands (the log undoes the newest first, so a batch that failed is put back whole).
   */
  private undo(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    const store = this.store;
    if (store === undefined || this.current() !== store) return;
    // Time 0: an entry that expired meanwhile is still compared (and put back) as it was.
    const now = store.mergeView(key, 0);
    if (after === undefined ? now !== undefined : now === undefined || now.value !== after.value || now.contentType !== after.contentType) return;
    if (before === undefined) store.remove(key, 0);
    else store.putMerged(key, asMergeEntry(before));
    this.undone(key);
  }

  cleared(): void {
    this.persist.append({ op: LogOp.Clear, partitionId: this.partitionId, service: 'map', name: this.mapName }, this.sync);
  }
}

/** An entry as observers are told of it, with the metadata it had (zero where the map keeps none). */
function asMergeEntry(v: StoredValue): MergeEntry {
  const e = v as Partial<MergeEntry> & StoredValue;
  return {
    value: v.value,
    contentType: v.contentType,
    expiresAt: e.expiresAt ?? 0,
    lastAccessAt: e.lastAccessAt ?? 0,
    creationTime: e.creationTime ?? 0,
    lastUpdateTime: e.lastUpdateTime ?? 0,
    hits: e.hits ?? 0,
  };
}

/** A store watched by a Merkle tree and persisted. */
class BothObservers implements StoreObserver {
  constructor(
    private readonly a: StoreObserver,
    private readonly b: StoreObserver,
  ) {}
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    this.a.changed(key, before, after);
    this.b.changed(key, before, after);
  }
  cleared(): void {
    this.a.cleared();
    this.b.cleared();
  }
}

/**
 * One map's operations on this member as its partitions' owner, since the member started
 * (plain increments on the hot path; read at scrape time).
 */
export class MapCounters {
  gets = 0;
  hits = 0;
  misses = 0;
  puts = 0;
  removes = 0;
  /** Entries found expired by a read or reclaimed by the sweeper in owned partitions. */
  expirations = 0;
  /** Entries evicted (max-size) in partitions this member owns. */
  evictions = 0;
}

class MapContainer {
  readonly stores: (RecordStore | undefined)[] = new Array<RecordStore | undefined>(PARTITION_COUNT);
  readonly expiring: boolean;
  /** Replicas that hold this map's data: owner + sync + async backups. */
  readonly replicas: number;
  readonly stats: boolean;
  /** The map publishes its mutations to a WAN replication (`wan-replication-ref`). */
  readonly publishes: boolean;

  constructor(
    readonly mapName: string,
    readonly config: MapConfig,
    private readonly wan: () => MapWanSink | undefined,
    /** Where the map's changes are persisted (undefined: not persisted). */
    private readonly persist: MapPersistence | undefined,
    readonly counters: MapCounters,
    readonly eviction: MapEviction,
    /** A change of this map was put back (its record could not be written): WAN hears of the entry as it is again. */
    private readonly undone: (partitionId: number, key: string) => void = () => undefined,
  ) {
    this.expiring = config.timeToLiveSeconds > 0 || config.maxIdleSeconds > 0;
    this.replicas = 1 + config.backupCount + config.asyncBackupCount;
    // LRU and LFU compare the access time, hits and creation time a store with statistics keeps.
    const policy = config.eviction.evictionPolicy;
    this.stats = policyNeedsStats(config.mergePolicy.policy) || policy === 'LRU' || policy === 'LFU';
    this.publishes = config.wanReplicationRef !== undefined;
  }

  store(partitionId: number): RecordStore {
    let s = this.stores[partitionId];
    if (s === undefined) {
      const merkle = this.config.merkleTree.enabled ? this.wan()?.newObserver(this.config) : undefined;
      const persisted =
        this.persist === undefined
          ? undefined
          : new PersistObserver(this.persist, this.mapName, partitionId, this.config.dataPersistence.fsync, () => this.stores[partitionId], (key) => this.undone(partitionId, key));
      const observer = merkle === undefined ? persisted : persisted === undefined ? merkle : new BothObservers(merkle, persisted);
      s = new RecordStore({
        ttlMs: this.config.timeToLiveSeconds * 1000,
        maxIdleMs: this.config.maxIdleSeconds * 1000,
        stats: this.stats,
        ...(observer === undefined ? {} : { observer }),
        ...(this.expiring ? { expiredReads: this.counters } : {}),
      });
      if (persisted !== undefined) persisted.store = s;
      this.stores[partitionId] = s;
    }
    return s;
  }
}

/** Entries a put to a map with eviction may evict to make room while the member is at its memory limit. */
const MAX_ROOM_EVICTIONS = 16;

/** Entries the expiry sweeper examines per tick (it always finishes the partition it is in). */
export const SWEEP_BUDGET = 50_000;

/** Content types repeat; keep one string per distinct type instead of one per entry. */
const MAX_INTERNED_CONTENT_TYPES = 1024;

export class MapService implements MapFacade {
  private readonly containers = new Map<string, MapContainer>();
  private readonly contentTypes = new Map<string, string>();
  private readonly config: GridConfig;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private sweeper: TimerHandle | undefined;
  private sweepCursor = 0;
  /** Set when some map config refers to an enabled split-brain protection. */
  private readonly guard: SplitBrainGuard | undefined;
  private wan: MapWanSink | undefined;
  private persistence: MapPersistence | undefined;
  private readonly observerQueries = new Map<string, (observer: StoreObserver | undefined, config: MapConfig, arg: WireValue) => WireValue>();
  private readonly counters = new CountersByName(() => new MapCounters());
  private readonly isOwner: (partitionId: number) => boolean;
  private readonly clusterSize: () => number;
  private readonly memory: MemorySource;
  private readonly gate: WriteGate | undefined;
  /** Some map here evicts (the sweeper's tick then looks for stores over their limit). */
  private anyEvicting = false;
  /** Keys the last runPut evicted, taken by its operation at once (operations run one at a time). */
  private evicted: string[] | undefined;

  constructor(deps: {
    config: GridConfig;
    invoker: Invoker;
    clock: Clock;
    logger: Logger;
    /** Data members in this member's list (lite members do not count), for split-brain protection. Default: 1. */
    clusterSize?: () => number;
    /** Whether this member owns a partition now (metrics: owned vs backup entries, expirations). Default: owns all. */
    isOwner?: (partitionId: number) => boolean;
    /** The member's memory (eviction's memory max-size policies). Default: the resident set against the machine's memory. */
    memory?: MemorySource;
    /** The member memory guard: puts are refused while it refuses (maps with eviction evict instead). */
    writeGate?: WriteGate;
  }) {
    this.config = deps.config;
    this.invoker = deps.invoker;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.guard = SplitBrainGuard.of(deps.config, deps.config.maps, deps.clusterSize ?? ALONE_SIZE);
    this.isOwner = deps.isOwner ?? ((): boolean => true);
    this.clusterSize = deps.clusterSize ?? ALONE_SIZE;
    this.gate = deps.writeGate;
    this.memory = deps.memory ?? { limitBytes: () => totalmem(), usedBytes: () => process.memoryUsage.rss() };
  }

  get(mapName: string, key: string): MaybePromise<StoredValue | undefined> {
    this.guardHere(mapName, 'READ');
    const pid = partitionIdOf(key);
    return this.invoker.invoke(pid, this.getOp(pid, mapName, key));
  }

  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void> {
    this.guardHere(mapName, 'WRITE');
    const pid = partitionIdOf(key);
    const ct = contentType === undefined ? undefined : this.intern(contentType);
    return this.invoker.invoke(pid, this.putOp(pid, mapName, key, value, ct));
  }

  remove(mapName: string, key: string): MaybePromise<boolean> {
    this.guardHere(mapName, 'WRITE');
    const pid = partitionIdOf(key);
    return this.invoker.invoke(pid, this.removeOp(pid, mapName, key));
  }

  async clear(mapName: string): Promise<void> {
    this.guardHere(mapName, 'WRITE');
    const all: MaybePromise<void>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(this.invoker.invoke(pid, this.clearOp(pid, mapName)));
    await Promise.all(all);
  }

  async size(mapName: string): Promise<number> {
    this.guardHere(mapName, 'READ');
    const all: MaybePromise<number>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(this.invoker.invoke(pid, this.sizeOp(pid, mapName)));
    let n = 0;
    for (const v of await Promise.all(all)) n += v;
    return n;
  }

  /** Maps with data-persistence enabled persist every change from now on (set once at start, before any map exists). */
  setPersistence(p: MapPersistence): void {
    this.persistence = p;
  }

  /** Replay persisted records (member start): the maps hold what they held when the member stopped. Returns entries restored. */
  restorePersisted(records: Iterable<LogRecord>): number {
    for (const r of records) {
      if (r.op === LogOp.DropPartition) {
        for (const c of this.containers.values()) c.stores[r.partitionId] = undefined;
        continue;
      }
      if (r.service !== 'map' || r.partitionId >= PARTITION_COUNT) continue;
      if (r.op === LogOp.Put) this.container(r.name).store(r.partitionId).putMerged(r.key, decodePersistedEntry(r.value));
      else if (r.op === LogOp.Remove) this.containers.get(r.name)?.stores[r.partitionId]?.remove(r.key, 0);
      else this.containers.get(r.name)?.stores[r.partitionId]?.clear();
    }
    let n = 0;
    for (const c of this.containers.values()) for (const st of c.stores) n += st?.size ?? 0;
    return n;
  }

  /** The current content of every persisted map here, as log records (a compaction's snapshot). */
  *persistedRecords(): IterableIterator<LogRecord> {
    const now = this.clock.now();
    for (const [name, c] of this.containers) {
      if (!c.config.dataPersistence.enabled) continue;
      for (let pid = 0; pid < PARTITION_COUNT; pid++) {
        const store = c.stores[pid];
        if (store === undefined) continue;
        for (const [key, v] of store.liveEntries(now)) yield { op: LogOp.Put, partitionId: pid, service: 'map', name, key, value: encodePersistedEntry(v) };
      }
    }
  }

  /** WAN replication takes this map service's mutations from now on (set once at start). */
  setWanSink(sink: MapWanSink): void {
    this.wan = sink;
  }

  // ------------------------------------------------------------------ split-brain protection

  /**
   * Checked twice: here, on the member that received the request (a member in a minority
   * refuses at once instead of waiting for owners it cannot reach), and on the owner that
   * runs the operation (Hazelcast's check). Backups are never refused.
   */
  private guardHere(mapName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.protectionRefOf(mapName), access, `map '${mapName}'`, THIS_MEMBER);
  }

  /** @internal */ guardOwner(mapName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.protectionRefOf(mapName), access, `map '${mapName}'`, PARTITION_OWNER);
    if (access === 'WRITE') this.checkPersistable(mapName);
  }

  /**
   * A write of a persisted map is refused before it changes anything while the member's log
   * cannot take records (disk full or failed): it leaves no trace, here or on the backups.
   */
  private checkPersistable(mapName: string): void {
    const refusal = this.persistence?.refusal();
    if (refusal === undefined) return;
    if ((this.containers.get(mapName)?.config ?? findMapConfig(this.config, mapName)).dataPersistence.enabled) throw refusal;
  }

  /**
   * On the owner, a change put back: WAN targets get the entry as it is again (they may have
   * had the change). When the owner's log is fine, the change had reached backups and one
   * refused it: every backup gets the entry as it is again too (the one that refused has put
   * it back itself and refuses this as well; one that took it is corrected).
   */
  private undoneChange(pid: number, mapName: string, key: string): void {
    const c = this.containers.get(mapName);
    const store = c?.stores[pid];
    if (c === undefined || store === undefined || !this.isOwner(pid)) return;
    if (c.publishes && this.wan !== undefined) this.wan.offer(pid, this.putEvent(store, mapName, key, this.clock.now(), []));
    if (c.replicas <= 1 || this.persistence?.refusal() !== undefined) return;
    const sent = (e: unknown): void => this.logger.debug({ map: mapName, key }, `the put-back entry did not reach every backup: ${describeError(e)}`);
    try {
      const r = this.invoker.invoke(pid, this.putBackOp(pid, mapName, key));
      if (r instanceof Promise) r.catch(sent);
    } catch (e) {
      sent(e);
    }
  }

  /** Sends the backups of a partition one entry as the owner has it now (or its absence); changes nothing here. */
  private putBackOp(pid: number, mapName: string, key: string): Operation<WireValue[] | undefined> {
    return {
      name: 'map.putBack',
      // Only ever run here, as owner (its backups are what it is for): no remote handler.
      service: 'map',
      type: 'putBack',
      mutating: true,
      run: () => {
        const e = this.containers.get(mapName)?.stores[pid]?.mergeView(key, 0);
        if (e === undefined) return undefined;
        return [key, new Latin1(e.value), e.contentType ?? null, e.expiresAt, e.lastAccessAt, e.creationTime, e.lastUpdateTime, e.hits];
      },
      backup: (entry) => (entry === undefined ? this.backupOf(mapName, 'remove', [mapName, key]) : this.backupOf(mapName, 'merged', [mapName, entry])),
    };
  }

  private protectionRefOf(mapName: string): string | undefined {
    return (this.containers.get(mapName)?.config ?? findMapConfig(this.config, mapName)).splitBrainProtectionRef;
  }

  // ------------------------------------------------------------------ operations

  private backupOf(mapName: string, type: string, args: readonly WireValue[]): BackupSpec {
    const config = this.containers.get(mapName)?.config ?? findMapConfig(this.config, mapName);
    return { type, args, syncCount: config.backupCount, asyncCount: config.asyncBackupCount, idempotent: true };
  }

  private getOp(pid: number, mapName: string, key: string): Operation<StoredValue | undefined> {
    return new MapGet(this, pid, mapName, key);
  }

  private putOp(pid: number, mapName: string, key: string, value: string, ct: string | undefined): Operation<void> {
    return new MapPut(this, pid, mapName, key, value, ct);
  }

  /** @internal */ runGet(pid: number, mapName: string, key: string): StoredValue | undefined {
    const c = this.containers.get(mapName);
    const counters = c !== undefined ? c.counters : this.counters.of(mapName, false);
    counters.gets++;
    const store = c?.stores[pid];
    // A store without expiry or statistics reads no clock.
    const v = store === undefined ? undefined : store.get(key, store.usesClock ? this.clock.now() : 0);
    if (v === undefined) counters.misses++;
    else counters.hits++;
    return v;
  }

  /** The owner's put; returns the sequence numbers of the WAN events it queued (undefined: none). */
  /** @internal */ runPut(pid: number, mapName: string, key: string, value: string, ct: string | undefined): WireValue | undefined {
    const c = this.container(mapName);
    // At the member's memory limit a map without eviction refuses the put; one with eviction makes room.
    let makeRoom = false;
    if (this.gate !== undefined && this.gate.refusing()) {
      if (!c.eviction.enabled) this.gate.check(`the put to map "${mapName}"`);
      makeRoom = true;
    }
    c.counters.puts++;
    const store = c.store(pid);
    const wan = c.publishes ? this.wan : undefined;
    const now = wan !== undefined || store.usesClock ? this.clock.now() : 0;
    if (wan === undefined) {
      store.put(key, value, ct, now);
      if (c.eviction.enabled) this.evictAfterPut(c, store, key, value, now, makeRoom);
      return undefined;
    }
    const tickets = wan.admit(mapName, pid);
    if (tickets === undefined) {
      store.put(key, value, ct, now);
      if (c.eviction.enabled) this.evictAfterPut(c, store, key, value, now, makeRoom);
      return undefined;
    }
    try {
      store.put(key, value, ct, now);
    } catch (e) {
      wan.cancel(tickets);
      throw e;
    }
    const seqs = wan.commit(tickets, pid, this.putEvent(store, mapName, key, now, []));
    // Evictions are not replicated over WAN (as in Hazelcast): only the put's event is queued.
    if (c.eviction.enabled) this.evictAfterPut(c, store, key, value, now, makeRoom);
    return seqs;
  }

  /** The owner evicts after a put that made the store (or the map's memory) too big; the keys go to the backups with the put. */
  private evictAfterPut(c: MapContainer, store: RecordStore, key: string, value: string, now: number, makeRoom: boolean): void {
    c.eviction.grew(key.length + value.length);
    let evicted = c.eviction.evict(c.stores, store, key, now || this.clock.now());
    // The member is at its memory limit: evict beyond the map's own bound until as many bytes
    // were freed as the put added (at most MAX_ROOM_EVICTIONS entries, from this partition's store).
    if (makeRoom) {
      let freed = 0;
      for (let i = 0; i < MAX_ROOM_EVICTIONS && freed < key.length + value.length; i++) {
        const k = store.evictOne(c.config.eviction.evictionPolicy, key, (Math.random() * 0x1_0000_0000) >>> 0, SAMPLE_COUNT, now || this.clock.now());
        if (k === undefined) break;
        freed += store.lastEvictedBytes;
        (evicted ??= []).push(k);
      }
    }
    if (evicted === undefined) return;
    c.counters.evictions += evicted.length;
    this.evicted = evicted;
  }

  /** @internal The keys the put that just ran evicted (undefined: none). */
  takeEvicted(): string[] | undefined {
    const e = this.evicted;
    this.evicted = undefined;
    return e;
  }

  /** The WAN event of an entry as stored now (TTL as the time left, statistics where kept). */
  private putEvent(store: RecordStore, mapName: string, key: string, now: number, originClusters: readonly string[]): MapWanEvent {
    const e = store.mergeView(key, now);
    if (e === undefined) return { kind: 'remove', mapName, key, originClusters };
    return {
      kind: 'put',
      mapName,
      key,
      value: e.value,
      contentType: e.contentType,
      ttlRemainingMs: e.expiresAt > 0 ? Math.max(1, e.expiresAt - now) : undefined,
      ...(store.stats ? { stats: { creationTime: e.creationTime, lastUpdateTime: e.lastUpdateTime, lastAccessTime: e.lastAccessAt, hits: e.hits } } : {}),
      originClusters,
    };
  }

  /** A backup replica mirrors the WAN events of the owner's write (`seqs` came with the backup). */
  private mirrorWan(pid: number, mapName: string, key: string, seqs: WireValue | undefined, removed: boolean, originClusters: readonly string[] = []): void {
    if (seqs === undefined || seqs === null || this.wan === undefined) return;
    const store = this.containers.get(mapName)?.stores[pid];
    const now = this.clock.now();
    const event: MapWanEvent = removed || store === undefined ? { kind: 'remove', mapName, key, originClusters } : this.putEvent(store, mapName, key, now, originClusters);
    this.wan.backup(pid, event, seqs);
  }

  /** @internal */ putBackup(mapName: string, args: readonly WireValue[]): BackupSpec {
    return this.backupOf(mapName, 'put', args);
  }

  private removeOp(pid: number, mapName: string, key: string): Operation<boolean> {
    const args = [mapName, key];
    let wanSeqs: WireValue | undefined;
    return {
      name: 'map.remove',
      service: 'map',
      type: 'remove',
      mutating: true,
      args,
      run: () => {
        this.guardOwner(mapName, 'WRITE');
        const c = this.containers.get(mapName);
        (c !== undefined ? c.counters : this.counters.of(mapName, false)).removes++;
        const store = c?.stores[pid];
        if (store === undefined) return false;
        const wan = c?.publishes === true ? this.wan : undefined;
        const tickets = wan?.admit(mapName, pid);
        let removed: boolean;
        try {
          removed = store.remove(key, this.clock.now());
        } catch (e) {
          if (tickets !== undefined) wan?.cancel(tickets);
          throw e;
        }
        if (tickets !== undefined && wan !== undefined) {
          if (removed) wanSeqs = wan.commit(tickets, pid, { kind: 'remove', mapName, key, originClusters: [] });
          else wan.cancel(tickets);
        }
        return removed;
      },
      backup: (removed) => (removed ? this.backupOf(mapName, 'remove', wanSeqs === undefined ? args : [...args, wanSeqs]) : undefined),
    };
  }

  private clearOp(pid: number, mapName: string): Operation<void> {
    const args = [mapName];
    let wanSeqs: WireValue[] | undefined;
    return {
      name: 'map.clear',
      service: 'map',
      type: 'clear',
      mutating: true,
      args,
      run: () => {
        this.guardOwner(mapName, 'WRITE');
        const c = this.containers.get(mapName);
        const store = c?.stores[pid];
        if (store === undefined) return;
        // WAN: a clear replicates as a remove of each entry it removes (as Hazelcast does).
        const wan = c?.publishes === true ? this.wan : undefined;
        if (wan !== undefined && store.size > 0) {
          const seqs: WireValue[] = [];
          for (const [key] of store.liveEntries(this.clock.now())) {
            seqs.push(key, wan.offer(pid, { kind: 'remove', mapName, key, originClusters: [] }));
          }
          wanSeqs = seqs;
        }
        store.clear();
      },
      backup: () => (this.containers.get(mapName)?.stores[pid] === undefined ? undefined : this.backupOf(mapName, 'clear', wanSeqs === undefined ? args : [...args, wanSeqs])),
    };
  }

  /**
   * Split-brain merge at the owner: each entry of the merging cluster goes through the map's
   * merge policy; the winners are stored (with their expiry and statistics) and backed up.
   */
  private mergeOp(pid: number, mapName: string, flat: readonly WireValue[]): Operation<number> {
    const args = [mapName, flat as WireValue[]];
    let winners: WireValue[] = [];
    return {
      name: 'map.merge',
      service: 'map',
      type: 'merge',
      mutating: true,
      args,
      run: () => {
        this.checkPersistable(mapName);
        const c = this.container(mapName);
        const store = c.store(pid);
        const now = this.clock.now();
        const policy = c.config.mergePolicy.policy;
        winners = [];
        forEachMergeEntry(flat, (key, e, at) => {
          const existing = store.mergeView(key, now);
          const view = (x: MergeEntry) => ({ hits: x.hits, creationTime: x.creationTime, lastUpdateTime: x.lastUpdateTime, lastAccessTime: x.lastAccessAt, expirationTime: x.expiresAt });
          if (!mergingWins(policy, existing === undefined ? undefined : view(existing), view(e))) return;
          store.putMerged(key, e);
          // A merged winner is a mutation of this cluster: WAN targets get it (not mirrored on backups).
          if (c.publishes && this.wan !== undefined) this.wan.offer(pid, this.putEvent(store, mapName, key, now, []));
          for (let i = 0; i < STATS_STRIDE; i++) winners.push(flat[at + i]!);
        }, (i) => this.contentTypeAt(flat, i));
        return winners.length / STATS_STRIDE;
      },
      backup: (won) => (won > 0 ? this.backupOf(mapName, 'merged', [mapName, winners]) : undefined),
    };
  }

  // ------------------------------------------------------------------ WAN replication

  /**
   * Apply entries another cluster replicated (in their order) on the partition's owner, with
   * the merge policy each carries; the winners are backed up and, when this map has
   * republishing-enabled, published further. Resolves with how many changed the map.
   */
  applyWan(pid: number, mapName: string, entries: readonly MapWanIncoming[]): MaybePromise<number> {
    const flat: WireValue[] = [];
    for (const e of entries) {
      flat.push(
        e.kind === 'put' ? 0 : 1,
        e.key,
        e.kind === 'put' ? new Latin1(e.value) : null,
        e.contentType ?? null,
        e.ttlRemainingMs ?? -1,
        e.mergePolicy,
        e.originClusters as string[],
        e.stats === undefined ? null : [e.stats.creationTime, e.stats.lastUpdateTime, e.stats.lastAccessTime, e.stats.hits],
      );
    }
    return this.invoker.invoke(pid, this.wanApplyOp(pid, mapName, flat));
  }

  private wanApplyOp(pid: number, mapName: string, flat: readonly WireValue[]): Operation<number> {
    const args = [mapName, flat as WireValue[]];
    let applied: WireValue[] = [];
    return {
      name: 'map.wanApply',
      service: 'map',
      type: 'wanApply',
      mutating: true,
      args,
      run: () => {
        if (flat.length % WAN_STRIDE !== 0) throw new GridError('BAD_REQUEST', `malformed WAN entries: ${flat.length} values`);
        this.checkPersistable(mapName);
        const c = this.container(mapName);
        const store = c.store(pid);
        const now = this.clock.now();
        const republish = c.config.wanReplicationRef?.republishingEnabled === true && this.wan !== undefined;
        applied = [];
        for (let j = 0; j < flat.length; j += WAN_STRIDE) {
          const kind = f.num(flat, j, 'kind');
          const key = f.str(flat, j + 1, 'key');
          const origins = f.strings(flat, j + 6, 'origin clusters');
          if (kind === 1) {
            if (!store.remove(key, now)) continue;
            const seqs = republish ? this.wan!.offer(pid, { kind: 'remove', mapName, key, originClusters: origins }) : null;
            applied.push(1, key, null, null, 0, 0, 0, 0, 0, seqs, origins);
            continue;
          }
          const value = f.latin1(flat, j + 2, 'value');
          const ct = this.contentTypeAt(flat, j + 3);
          const ttl = f.num(flat, j + 4, 'ttl');
          const policy = f.str(flat, j + 5, 'merge policy') as MergePolicyName;
          const st = flat[j + 7];
          const stats = Array.isArray(st) ? { creationTime: f.num(st, 0, 'creationTime'), lastUpdateTime: f.num(st, 1, 'lastUpdateTime'), lastAccessTime: f.num(st, 2, 'lastAccessTime'), hits: f.num(st, 3, 'hits') } : undefined;
          const expiresAt = ttl > 0 ? now + ttl : c.config.timeToLiveSeconds > 0 ? now + c.config.timeToLiveSeconds * 1000 : 0;
          const incoming: MergeEntry = {
            value,
            contentType: ct,
            expiresAt,
            lastAccessAt: stats?.lastAccessTime ?? now,
            creationTime: stats?.creationTime ?? now,
            lastUpdateTime: stats?.lastUpdateTime ?? now,
            hits: stats?.hits ?? 0,
          };
          const existing = store.mergeView(key, now);
          if (!mergingWins(policy, existing === undefined ? undefined : mergeViewOf(existing), mergeViewOf(incoming))) continue;
          store.putMerged(key, incoming);
          const seqs = republish ? this.wan!.offer(pid, this.putEvent(store, mapName, key, now, origins)) : null;
          applied.push(0, key, new Latin1(value), ct ?? null, incoming.expiresAt, incoming.lastAccessAt, incoming.creationTime, incoming.lastUpdateTime, incoming.hits, seqs, origins);
        }
        return applied.length / WAN_APPLIED_STRIDE;
      },
      backup: (n) => (n > 0 ? this.backupOf(mapName, 'wan', [mapName, applied]) : undefined),
    };
  }

  /** A backup replica applies what the owner applied from another cluster (and mirrors the events it republished). */
  private applyWanBackup(pid: number, mapName: string, ops: readonly WireValue[]): void {
    if (ops.length % WAN_APPLIED_STRIDE !== 0) throw new GridError('BAD_REQUEST', `malformed WAN backup: ${ops.length} values`);
    const store = this.container(mapName).store(pid);
    const now = this.clock.now();
    for (let j = 0; j < ops.length; j += WAN_APPLIED_STRIDE) {
      const key = f.str(ops, j + 1, 'key');
      const origins = f.strings(ops, j + 10, 'origin clusters');
      if (f.num(ops, j, 'kind') === 1) {
        store.remove(key, now);
        this.mirrorWan(pid, mapName, key, ops[j + 9], true, origins);
        continue;
      }
      store.putMerged(key, {
        value: f.latin1(ops, j + 2, 'value'),
        contentType: this.contentTypeAt(ops, j + 3),
        expiresAt: f.num(ops, j + 4, 'expiresAt'),
        lastAccessAt: f.num(ops, j + 5, 'lastAccessAt'),
        creationTime: f.num(ops, j + 6, 'creationTime'),
        lastUpdateTime: f.num(ops, j + 7, 'lastUpdateTime'),
        hits: f.num(ops, j + 8, 'hits'),
      });
      this.mirrorWan(pid, mapName, key, ops[j + 9], false, origins);
    }
  }

  /**
   * A read of a record store's observer (a Merkle tree level) at the partition's owner: the
   * query runs there by name (registered on every member), so it can travel to a remote owner.
   */
  registerObserverQuery(name: string, fn: (observer: StoreObserver | undefined, config: MapConfig, arg: WireValue) => WireValue): void {
    this.observerQueries.set(name, fn);
  }

  queryObserver(pid: number, mapName: string, query: string, arg: WireValue): MaybePromise<WireValue> {
    return this.invoker.invoke(pid, this.observerQueryOp(pid, mapName, query, arg));
  }

  private observerQueryOp(pid: number, mapName: string, query: string, arg: WireValue): Operation<WireValue> {
    return {
      name: 'map.observerQuery',
      service: 'map',
      type: 'observerQuery',
      mutating: false,
      args: [mapName, query, arg],
      run: () => {
        const fn = this.observerQueries.get(query);
        if (fn === undefined) throw new GridError('BAD_REQUEST', `unknown map observer query ${query}`);
        return fn(this.observerOf(pid, mapName), this.configOf(mapName), arg);
      },
    };
  }

  /** Names of the maps in use on this member that publish to the WAN replication `wanRepName`. */
  mapsPublishingTo(wanRepName: string): string[] {
    const out: string[] = [];
    for (const [name, c] of this.containers) if (c.config.wanReplicationRef?.name === wanRepName) out.push(name);
    return out;
  }

  /** The map's configuration (its own or the matching pattern's). */
  configOf(mapName: string): MapConfig {
    return this.containers.get(mapName)?.config ?? findMapConfig(this.config, mapName);
  }

  /** WAN sync: the events that carry the partition's live entries of the map (those `keep` accepts). */
  syncEvents(pid: number, mapName: string, keep?: (key: string) => boolean): MapWanEvent[] {
    const store = this.containers.get(mapName)?.stores[pid];
    if (store === undefined) return [];
    const now = this.clock.now();
    const out: MapWanEvent[] = [];
    for (const [key] of store.liveEntries(now)) {
      if (keep !== undefined && !keep(key)) continue;
      const e = this.putEvent(store, mapName, key, now, []);
      if (e.kind === 'put') out.push(e);
    }
    return out;
  }

  /** The observer (Merkle tree) of the map's store in the partition, if the store exists here. */
  observerOf(pid: number, mapName: string): StoreObserver | undefined {
    return this.containers.get(mapName)?.stores[pid]?.observer;
  }

  /** Take the entries of the partitions this member owns (it is about to merge into another cluster). */
  collectForMerge(owned: readonly number[]): MapMergeBatch[] {
    const now = this.clock.now();
    const out: MapMergeBatch[] = [];
    for (const [mapName, c] of this.containers) {
      for (const pid of owned) {
        const store = c.stores[pid];
        if (store === undefined || store.size === 0) continue;
        const entries: [string, MergeEntry][] = [];
        for (const [key] of store.liveEntries(now)) {
          const e = store.mergeView(key, now);
          if (e !== undefined) entries.push([key, e]);
        }
        if (entries.length > 0) out.push({ mapName, partitionId: pid, entries });
      }
    }
    return out;
  }

  /** Forget every entry (a member that merges into another cluster starts empty there). */
  dropAll(): void {
    for (const c of this.containers.values()) c.stores.fill(undefined);
  }

  /** Merge collected entries into the cluster this member now belongs to, `batch-size` entries per operation. Returns how many were taken. */
  async mergeInto(batches: readonly MapMergeBatch[]): Promise<{ merged: number; kept: number }> {
    let merged = 0;
    let total = 0;
    for (const b of batches) {
      const size = findMapConfig(this.config, b.mapName).mergePolicy.batchSize;
      for (let i = 0; i < b.entries.length; i += size) {
        const flat: WireValue[] = [];
        for (const [key, e] of b.entries.slice(i, i + size)) {
          flat.push(key, new Latin1(e.value), e.contentType ?? null, e.expiresAt, e.lastAccessAt, e.creationTime, e.lastUpdateTime, e.hits);
        }
        total += flat.length / STATS_STRIDE;
        merged += await this.invoker.invoke(b.partitionId, this.mergeOp(b.partitionId, b.mapName, flat));
      }
    }
    return { merged, kept: total - merged };
  }

  private sizeOp(pid: number, mapName: string): Operation<number> {
    return {
      name: 'map.size',
      service: 'map',
      type: 'size',
      mutating: false,
      args: [mapName],
      run: () => {
        this.guardOwner(mapName, 'READ');
        const c = this.containers.get(mapName);
        const s = c?.stores[pid];
        if (c === undefined || s === undefined) return 0;
        if (c.expiring) c.counters.expirations += s.sweep(this.clock.now());
        return s.size;
      },
    };
  }

  /** The owner's side of remote calls, and the backups' side of writes. */
  readonly handler: OperationHandler = {
    operation: (pid: number, type: string, args: readonly WireValue[], _caller: Caller): Operation<unknown> => {
      const mapName = f.str(args, 0, 'map name');
      switch (type) {
        case 'get':
          return this.getOp(pid, mapName, f.str(args, 1, 'key'));
        case 'put':
          return this.putOp(pid, mapName, f.str(args, 1, 'key'), f.latin1(args, 2, 'value'), this.contentTypeAt(args, 3));
        case 'remove':
          return this.removeOp(pid, mapName, f.str(args, 1, 'key'));
        case 'clear':
          return this.clearOp(pid, mapName);
        case 'size':
          return this.sizeOp(pid, mapName);
        case 'merge':
          return this.mergeOp(pid, mapName, f.arr(args, 1, 'entries'));
        case 'wanApply':
          return this.wanApplyOp(pid, mapName, f.arr(args, 1, 'entries'));
        case 'observerQuery':
          return this.observerQueryOp(pid, mapName, f.str(args, 1, 'query'), args[2] ?? null);
        case 'trim':
          return this.trimOp(pid, mapName);
      }
      throw new GridError('BAD_REQUEST', `unknown map operation ${type}`);
    },
    encodeResult: (type: string, result: unknown): WireValue => {
      if (type === 'get') {
        const v = result as StoredValue | undefined;
        return v === undefined ? null : [new Latin1(v.value), v.contentType ?? null];
      }
      if (type === 'remove') return result as boolean;
      if (type === 'observerQuery') return result as WireValue;
      if (type === 'size' || type === 'merge' || type === 'wanApply' || type === 'trim') return result as number;
      return null;
    },
    decodeResult: (type: string, w: WireValue): unknown => {
      if (type === 'get') {
        if (w === null) return undefined;
        const t = f.tuple(w, 'map value');
        return { value: f.latin1(t, 0, 'value'), contentType: f.optStr(t, 1, 'content type') } satisfies StoredValue;
      }
      if (type === 'remove') return w === true;
      if (type === 'observerQuery') return w;
      if (type === 'size' || type === 'merge' || type === 'wanApply' || type === 'trim') return typeof w === 'number' ? w : 0;
      return undefined;
    },
    applyBackup: (pid: number, type: string, args: readonly WireValue[]): void => {
      const mapName = f.str(args, 0, 'map name');
      // A backup this member cannot persist is refused untouched: the owner fails the write.
      this.checkPersistable(mapName);
      const now = this.clock.now();
      switch (type) {
        case 'put': {
          const key = f.str(args, 1, 'key');
          const store = this.container(mapName).store(pid);
          store.put(key, f.latin1(args, 2, 'value'), this.contentTypeAt(args, 3), now);
          this.mirrorWan(pid, mapName, key, args[4], false);
          // What the owner evicted after this put.
          const evicted = args[5];
          if (Array.isArray(evicted)) for (let i = 0; i < evicted.length; i++) store.remove(f.str(evicted, i, 'evicted key'), now);
          return;
        }
        case 'remove': {
          const key = f.str(args, 1, 'key');
          this.containers.get(mapName)?.stores[pid]?.remove(key, now);
          this.mirrorWan(pid, mapName, key, args[2], true);
          return;
        }
        case 'evict': {
          const store = this.containers.get(mapName)?.stores[pid];
          const keys = f.arr(args, 1, 'evicted keys');
          if (store !== undefined) for (let i = 0; i < keys.length; i++) store.remove(f.str(keys, i, 'evicted key'), now);
          return;
        }
        case 'clear': {
          const removed = args[1];
          if (Array.isArray(removed)) {
            for (let i = 0; i + 1 < removed.length; i += 2) this.mirrorWan(pid, mapName, f.str(removed, i, 'key'), removed[i + 1], true);
          }
          this.containers.get(mapName)?.stores[pid]?.clear();
          return;
        }
        case 'wan': {
          this.applyWanBackup(pid, mapName, f.arr(args, 1, 'wan entries'));
          return;
        }
        case 'merged': {
          const store = this.container(mapName).store(pid);
          const flat = f.arr(args, 1, 'entries');
          forEachMergeEntry(flat, (key, e) => store.putMerged(key, e), (i) => this.contentTypeAt(flat, i));
          return;
        }
      }
      throw new GridError('BAD_REQUEST', `unknown map backup ${type}`);
    },
  };

  /** How the partition layer moves this service's data. */
  readonly replicaData: ReplicaData = {
    name: 'map',
    snapshot: (pid: number, replicaIndex: number): WireValue | undefined => {
      const now = this.clock.now();
      const out: WireValue[] = [];
      for (const [name, c] of this.containers) {
        const store = c.stores[pid];
        if (store === undefined || store.size === 0 || replicaIndex >= c.replicas) continue;
        // Maps with statistics export 8 values per entry, announced by a leading number.
        const flat: unknown[] = store.stats ? [STATS_STRIDE] : [];
        store.exportTo(flat, now, (v) => new Latin1(v));
        out.push(name, flat as WireValue[]);
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      for (const c of this.containers.values()) c.stores[pid] = undefined;
      if (data === undefined) return;
      const t = f.tuple(data, 'map data');
      for (let i = 0; i + 1 < t.length; i += 2) {
        const name = f.str(t, i, 'map name');
        const flat = f.arr(t, i + 1, 'entries');
        const store = this.container(name).store(pid);
        if (typeof flat[0] === 'number') {
          const rest = flat.slice(1);
          forEachMergeEntry(rest, (key, e) => store.putMerged(key, e), (i) => this.contentTypeAt(rest, i));
          continue;
        }
        for (let j = 0; j + 4 < flat.length; j += 5) {
          store.restore(f.str(flat, j, 'key'), f.latin1(flat, j + 1, 'value'), this.contentTypeAt(flat, j + 2), f.num(flat, j + 3, 'expiresAt'), f.num(flat, j + 4, 'lastAccessAt'));
        }
      }
    },
    drop: (pid: number): void => {
      for (const c of this.containers.values()) c.stores[pid] = undefined;
    },
    ownershipLost: (): void => undefined,
    trim: (pid: number, replicaIndex: number): void => {
      for (const c of this.containers.values()) {
        if (c.replicas > replicaIndex) continue;
        c.stores[pid]?.observer?.cleared();
        c.stores[pid] = undefined;
      }
    },
  };

  /**
   * The per-map metrics (docs/metrics.md): entries owned here and held as backups, counted at
   * scrape time, and the operations this member ran as owner.
   */
  reportMetrics(r: MetricsRegistrar): void {
    let entries = new Map<string, { owned: number; backup: number }>();
    r.beforeScrape(() => {
      entries = new Map();
      const owned: boolean[] = [];
      for (let pid = 0; pid < PARTITION_COUNT; pid++) owned.push(this.isOwner(pid));
      for (const [name, c] of this.containers) {
        let o = 0;
        let b = 0;
        c.stores.forEach((s, pid) => {
          if (s === undefined) return;
          if (owned[pid]) o += s.size;
          else b += s.size;
        });
        entries.set(name, { owned: o, backup: b });
      }
    });
    const labelNames = ['map'];
    r.gauge({ name: 'grid_map_entries', help: 'Entries of the map in partitions this member owns (summed over members: the map size); expired entries count until reclaimed', labelNames }, (report) => {
      for (const [map, e] of entries) report(e.owned, { map });
    });
    r.gauge({ name: 'grid_map_backup_entries', help: 'Entries of the map this member holds as a backup replica', labelNames }, (report) => {
      for (const [map, e] of entries) report(e.backup, { map });
    });
    const counter = (name: string, help: string, read: (c: MapCounters) => number): void =>
      r.counter({ name, help, labelNames }, (report) => this.counters.forEach((c, map) => report(read(c), { map })));
    counter('grid_map_gets_total', 'Map reads (GET, HEAD) run on this member as partition owner', (c) => c.gets);
    counter('grid_map_hits_total', 'Map reads that found a live entry', (c) => c.hits);
    counter('grid_map_misses_total', 'Map reads that found no entry (or an expired one)', (c) => c.misses);
    counter('grid_map_puts_total', 'Map puts run on this member as partition owner', (c) => c.puts);
    counter('grid_map_removes_total', 'Map removes (DELETE of a key) run on this member as partition owner, whether or not the key existed', (c) => c.removes);
    counter('grid_map_evictions_total', 'Entries evicted (eviction max-size) in partitions this member owns; not replicated over WAN', (c) => c.evictions);
    counter('grid_map_expirations_total', 'Entries that expired (time-to-live, max-idle) in partitions this member owns: found by a read or reclaimed by the sweeper', (c) => c.expirations);
  }

  /** Start reclaiming expired entries in the background. */
  startExpirySweeper(intervalMs: number): void {
    this.sweeper?.cancel();
    // The eviction trim shares the sweeper's timer and pace.
    this.sweeper = this.clock.setInterval(() => {
      this.sweepSome();
      // A trim refused now (cluster PASSIVE, a migration) is retried at the next tick: not worth a warning per second.
      if (this.anyEvicting) void this.trimSome().catch((e: unknown) => this.logger.debug({ err: e }, 'map eviction trim deferred'));
    }, intervalMs);
  }

  stop(): void {
    this.sweeper?.cancel();
    this.sweeper = undefined;
  }

  /**
   * Bring owned stores that are over their entry limit without a put (a member left, so each
   * member's PER_NODE share per partition shrank; entries came by a migration, a merge or WAN)
   * back to the limit: one trim operation per such partition, run by the owner and backed up.
   * Resolves with how many entries were evicted.
   */
  async trimSome(): Promise<number> {
    const calls: MaybePromise<number>[] = [];
    for (const [mapName, c] of this.containers) {
      if (!c.eviction.enabled) continue;
      for (let pid = 0; pid < PARTITION_COUNT; pid++) {
        const s = c.stores[pid];
        if (s !== undefined && c.eviction.over(s) && this.isOwner(pid)) calls.push(this.invoker.invoke(pid, this.trimOp(pid, mapName)));
      }
    }
    let n = 0;
    for (const v of await Promise.all(calls)) n += v;
    return n;
  }

  private trimOp(pid: number, mapName: string): Operation<number> {
    const args = [mapName];
    let evicted: string[] | undefined;
    return {
      name: 'map.trim',
      service: 'map',
      type: 'trim',
      mutating: true,
      args,
      run: () => {
        const c = this.containers.get(mapName);
        const store = c?.stores[pid];
        if (c === undefined || store === undefined) return 0;
        evicted = c.eviction.evict(c.stores, store, undefined, this.clock.now(), store.size);
        if (evicted === undefined) return 0;
        c.counters.evictions += evicted.length;
        return evicted.length;
      },
      backup: (n) => (n > 0 && evicted !== undefined ? this.backupOf(mapName, 'evict', [mapName, evicted]) : undefined),
    };
  }

  /**
   * Sweep partitions round robin until about SWEEP_BUDGET entries were examined, so that a
   * large map never stalls the event loop for long; the cursor carries on at the next tick.
   * Reads check expiry themselves, so the sweeper only reclaims memory.
   */
  sweepSome(): number {
    const now = this.clock.now();
    const expiring = [...this.containers.values()].filter((c) => c.expiring);
    if (expiring.length === 0) return 0;
    let removed = 0;
    let examined = 0;
    for (let visited = 0; visited < PARTITION_COUNT && examined < SWEEP_BUDGET; visited++) {
      const pid = this.sweepCursor;
      this.sweepCursor = (this.sweepCursor + 1) % PARTITION_COUNT;
      for (const c of expiring) {
        const store = c.stores[pid];
        if (store === undefined) continue;
        examined += store.size;
        const n = store.sweep(now);
        removed += n;
        // Backups reclaim their copies too; an expiry is counted once, where the partition is owned.
        if (n > 0 && this.isOwner(pid)) c.counters.expirations += n;
      }
    }
    if (removed > 0) this.logger.debug({ removed }, 'expired map entries reclaimed');
    return removed;
  }

  private container(mapName: string): MapContainer {
    let c = this.containers.get(mapName);
    if (c === undefined) {
      const config = findMapConfig(this.config, mapName);
      const eviction = new MapEviction(config.eviction, {
        memberCount: this.clusterSize,
        memory: this.memory,
        isOwner: this.isOwner,
        random: () => (Math.random() * 0x1_0000_0000) >>> 0,
      });
      c = new MapContainer(mapName, config, () => this.wan, config.dataPersistence.enabled ? this.persistence : undefined, this.counters.of(mapName, true), eviction, (pid, key) =>
        this.undoneChange(pid, mapName, key),
      );
      if (eviction.enabled) this.anyEvicting = true;
      this.containers.set(mapName, c);
    }
    return c;
  }

  /** A content type that came over the wire, interned like a local one. */
  private contentTypeAt(t: readonly WireValue[], i: number): string | undefined {
    const ct = f.optStr(t, i, 'content type');
    return ct === undefined ? undefined : this.intern(ct);
  }

  private intern(contentType: string): string {
    const known = this.contentTypes.get(contentType);
    if (known !== undefined) return known;
    if (this.contentTypes.size < MAX_INTERNED_CONTENT_TYPES) this.contentTypes.set(contentType, contentType);
    return contentType;
  }
}

/** Values per entry applied from another cluster: kind, key, value, content type, ttl left (-1 none), merge policy, origin clusters, stats|null. */
const WAN_STRIDE = 8;
/** Values per applied WAN entry in a backup: kind, key, value, content type, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits, WAN sequence numbers, origin clusters. */
const WAN_APPLIED_STRIDE = 11;

function mergeViewOf(x: MergeEntry): { hits: number; creationTime: number; lastUpdateTime: number; lastAccessTime: number; expirationTime: number } {
  return { hits: x.hits, creationTime: x.creationTime, lastUpdateTime: x.lastUpdateTime, lastAccessTime: x.lastAccessAt, expirationTime: x.expiresAt };
}

/** Reads entries of STATS_STRIDE values (key, value, content type, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits). */
function forEachMergeEntry(
  flat: readonly WireValue[],
  fn: (key: string, e: MergeEntry, at: number) => void,
  contentTypeAt: (i: number) => string | undefined,
): void {
  if (flat.length % STATS_STRIDE !== 0) throw new GridError('BAD_REQUEST', `malformed merge entries: ${flat.length} values`);
  for (let j = 0; j < flat.length; j += STATS_STRIDE) {
    fn(
      f.str(flat, j, 'key'),
      {
        value: f.latin1(flat, j + 1, 'value'),
        contentType: contentTypeAt(j + 2),
        expiresAt: f.num(flat, j + 3, 'expiresAt'),
        lastAccessAt: f.num(flat, j + 4, 'lastAccessAt'),
        creationTime: f.num(flat, j + 5, 'creationTime'),
        lastUpdateTime: f.num(flat, j + 6, 'lastUpdateTime'),
        hits: f.num(flat, j + 7, 'hits'),
      },
      j,
    );
  }
}
