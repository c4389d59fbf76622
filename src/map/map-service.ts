// Distributed maps: one RecordStore per map per partition, created on first write. Every
// operation is invoked on its key's partition; the REST layer sees only this facade, and the
// other layers hook in through MapWanSink (WAN), MapPersistence (the log) and StoreObserver.
// The work is done by one module per concern: map-operations (owner's get/put/remove/...),
// map-remote (member messages, backups), map-wan (WAN events), map-merge (merge policies),
// map-persistence and map-recovery (the log), map-expiry, map-eviction, map-replicas
// (migration) and map-metrics. The checks before a change (split-brain protection, a full
// log) are invocation/split-brain-protection.ts' StructureProtection, shared with queues.

import { totalmem } from 'node:os';
import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { MapConfig } from '../config/types.js';
import type { DataServiceDeps, OperationHandler } from '../invocation/invoker.js';
import { ALONE_SIZE, StructureProtection } from '../invocation/split-brain-protection.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { partitionIdOfKey } from './map-keys.js';
import type { ReplicaData } from '../partition/partition-service.js';
import type { WireValue } from '../protocol/codec.js';
import type { MapWanEvent } from '../protocol/wan-payloads.js';
import type { LogRecord } from '../persistence/log-format.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { MergeEntry, StoreObserver, StoredValue, UpdateResult } from './record-store.js';
import { updateOp, type MapUpdate } from './map-update.js';
import { trimSome, type MemorySource } from './map-eviction.js';
import { MapExpiry } from './map-expiry.js';
import { MapMerge, type MapMergeBatch } from './map-merge.js';
import { ownedFootprint, reportMapMetrics, type MapCounters } from './map-metrics.js';
import { MapOperations, type ObserverQuery } from './map-operations.js';
import type { MapPersistence } from './map-persistence.js';
import { MapRecovery } from './map-recovery.js';
import { MapRegistry } from './map-registry.js';
import { mapHandler } from './map-remote.js';
import { MapScans, type ScanPage, type ScanRequest, type ScanEntry } from './map-scan.js';
import { mapReplicaData } from './map-replicas.js';
import { MapWanEvents, type MapWanIncoming, type MapWanSink } from './map-wan.js';
import { MapEventSource } from './map-events.js';
import { batchParts, type MapBatchEntry, type MapBatchOutcome } from './map-batch-op.js';

// The names other layers import from here.
export type { MapWanEvent } from '../protocol/wan-payloads.js';
export type { MapMergeBatch } from './map-merge.js';
export type { MapUpdate } from './map-update.js';
export type { MapBatchEntry, MapBatchOutcome } from './map-batch-op.js';
export type { MergeEntry, UpdateCondition, UpdateResult } from './record-store.js';
export { MapCounters } from './map-metrics.js';
export { decodePersistedEntry, encodePersistedEntry, type MapPersistence } from './map-persistence.js';
export { SWEEP_BUDGET } from './map-expiry.js';
export type { MapWanIncoming, MapWanSink } from './map-wan.js';
export type { ScanEntry, ScanPage, ScanRequest } from './map-scan.js';
export { decodeScanCursor, encodeScanCursor, scanScope, type ScanPosition } from './scan-cursor.js';
export type { MapChangeEvent, MapEventBus, MapEventSource, MapEventType } from './map-events.js';
export { dataKeyOf, isDataKey, keyDataOf, partitionIdOfKey, storeKeyOfText, textOfStoreKey } from './map-keys.js';

/**
 * Keys here are store keys (map-keys.ts): a String key's text, or a non-String client key's
 * Data form. REST turns a path's key into one with storeKeyOfText.
 */
export interface MapFacade {
  get(mapName: string, key: string): MaybePromise<StoredValue | undefined>;
  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void>;
  remove(mapName: string, key: string): MaybePromise<boolean>;
  /** A conditional put, remove or TTL change, atomic on the key's owner (map-update.ts). */
  update(mapName: string, key: string, u: MapUpdate): MaybePromise<UpdateResult>;
  /**
   * Many gets, puts and deletes of one map (map-batch-op.ts): one member message per owner,
   * writes before gets per partition, one outcome per entry in order (never rejects).
   */
  batch(mapName: string, entries: readonly MapBatchEntry[]): Promise<MapBatchOutcome[]>;
  /** The entry with its version, expiry and statistics (undefined: none). */
  entryView(mapName: string, key: string): MaybePromise<MergeEntry | undefined>;
  clear(mapName: string): Promise<void>;
  size(mapName: string): Promise<number>;
  /** One page of a scan (map-scan.ts): keys or entries from a position on, in partition then key order. */
  scan(req: ScanRequest): Promise<ScanPage>;
  /** Every entry (or key only) of the map, by scan pages. */
  scanAll(mapName: string, values: boolean): Promise<ScanEntry[]>;
  /** The maps that hold entries, cluster-wide, with their sizes, by name. */
  mapNames(): Promise<{ name: string; size: number }[]>;
}

/** A call's outcome as a value (the invoker without grouping: one call per batch part). */
async function settle<T>(call: () => MaybePromise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

export class MapService implements MapFacade {
  private readonly maps: MapRegistry;
  private readonly protection: StructureProtection;
  private readonly ops: MapOperations;
  private readonly wanEvents: MapWanEvents;
  private readonly merge: MapMerge;
  private readonly recovery: MapRecovery;
  private readonly expiry: MapExpiry;
  private readonly scans: MapScans;
  /** The owner's side of remote calls, and the backups' side of writes. */
  readonly handler: OperationHandler;
  /** How the partition layer moves this service's data. */
  readonly replicaData: ReplicaData;
  /** Change events at the partition owner (map-events.ts); the event service attaches to it. */
  readonly events: MapEventSource;

  constructor(
    deps: DataServiceDeps & {
      /** Whether this member owns a partition now (metrics: owned vs backup entries, expirations). Default: owns all. */
      isOwner?: (partitionId: number) => boolean;
      /** The member's memory (eviction's memory max-size policies). Default: the resident set against the machine's memory. */
      memory?: MemorySource;
    },
  ) {
    this.maps = new MapRegistry({
      config: deps.config,
      invoker: deps.invoker,
      clock: deps.clock,
      logger: deps.logger,
      clusterSize: deps.clusterSize ?? ALONE_SIZE,
      isOwner: deps.isOwner ?? ((): boolean => true),
      memory: deps.memory ?? { limitBytes: () => totalmem(), usedBytes: () => process.memoryUsage.rss() },
      gate: deps.writeGate,
    });
    const maps = this.maps;
    this.events = new MapEventSource(maps, maps.deps.isOwner);
    this.protection = new StructureProtection({
      kind: 'map',
      config: deps.config,
      entries: deps.config.maps,
      clusterSize: maps.deps.clusterSize,
      configOf: (mapName) => maps.configOf(mapName),
      persistence: () => maps.persistence,
    });
    this.ops = new MapOperations(this.maps, this.protection);
    this.wanEvents = new MapWanEvents(this.maps);
    this.merge = new MapMerge(this.maps, this.protection, this.wanEvents);
    this.recovery = new MapRecovery(this.maps);
    this.expiry = new MapExpiry(this.maps);
    this.maps.onUndone = (pid, mapName, key) => this.recovery.undoneChange(pid, mapName, key);
    this.scans = new MapScans(this.maps, this.protection);
    this.handler = mapHandler(this.maps, this.ops, this.merge, this.wanEvents, this.scans);
    this.replicaData = mapReplicaData(this.maps);
  }

  // ------------------------------------------------------------------ the REST facade

  get(mapName: string, key: string): MaybePromise<StoredValue | undefined> {
    this.protection.guardHere(mapName, 'READ');
    const pid = partitionIdOfKey(key);
    return this.maps.deps.invoker.invoke(pid, this.ops.getOp(pid, mapName, key));
  }

  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void> {
    this.protection.guardHere(mapName, 'WRITE');
    const pid = partitionIdOfKey(key);
    const ct = contentType === undefined ? undefined : this.maps.intern(contentType);
    return this.maps.deps.invoker.invoke(pid, this.ops.putOp(pid, mapName, key, value, ct));
  }

  remove(mapName: string, key: string): MaybePromise<boolean> {
    this.protection.guardHere(mapName, 'WRITE');
    const pid = partitionIdOfKey(key);
    return this.maps.deps.invoker.invoke(pid, this.ops.removeOp(pid, mapName, key));
  }

  update(mapName: string, key: string, u: MapUpdate): MaybePromise<UpdateResult> {
    this.protection.guardHere(mapName, 'WRITE');
    const pid = partitionIdOfKey(key);
    const ct = u.contentType === undefined ? undefined : this.maps.intern(u.contentType);
    return this.maps.deps.invoker.invoke(pid, updateOp(this.ops, pid, mapName, key, ct === u.contentType ? u : { ...u, contentType: ct }));
  }

  async batch(mapName: string, entries: readonly MapBatchEntry[]): Promise<MapBatchOutcome[]> {
    const out: (MapBatchOutcome | undefined)[] = new Array<MapBatchOutcome | undefined>(entries.length);
    // Split-brain protection refuses reads or writes for the whole map: each entry it refuses answers so.
    const refusal = { read: this.refusal(mapName, 'READ'), write: this.refusal(mapName, 'WRITE') };
    const run: number[] = [];
    entries.forEach((e, i) => {
      const refused = e.kind === 'get' ? refusal.read : refusal.write;
      if (refused !== undefined) out[i] = { error: refused };
      else run.push(i);
    });
    const { items, positions } = batchParts(this.ops, mapName, entries, run);
    const invoker = this.maps.deps.invoker;
    const outcomes = invoker.invokeGroup !== undefined ? await invoker.invokeGroup(items) : await Promise.all(items.map((it) => settle(() => invoker.invoke(it.partitionId, it.op))));
    outcomes.forEach((o, k) => {
      const idx = positions[k]!;
      if (o.ok) idx.forEach((i, j) => (out[i] = o.value[j] ?? { error: new GridError('INTERNAL', 'no answer for a batch entry') }));
      else for (const i of idx) out[i] = { error: o.error };
    });
    return out as MapBatchOutcome[];
  }

  private refusal(mapName: string, access: 'READ' | 'WRITE'): unknown {
    try {
      this.protection.guardHere(mapName, access);
      return undefined;
    } catch (e) {
      return e;
    }
  }

  entryView(mapName: string, key: string): MaybePromise<MergeEntry | undefined> {
    this.protection.guardHere(mapName, 'READ');
    const pid = partitionIdOfKey(key);
    return this.maps.deps.invoker.invoke(pid, this.ops.entryViewOp(pid, mapName, key));
  }

  async clear(mapName: string): Promise<void> {
    this.protection.guardHere(mapName, 'WRITE');
    const all: MaybePromise<void>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(this.maps.deps.invoker.invoke(pid, this.ops.clearOp(pid, mapName)));
    await Promise.all(all);
  }

  async size(mapName: string): Promise<number> {
    this.protection.guardHere(mapName, 'READ');
    const all: MaybePromise<number>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(this.maps.deps.invoker.invoke(pid, this.ops.sizeOp(pid, mapName)));
    let n = 0;
    for (const v of await Promise.all(all)) n += v;
    return n;
  }

  scan(req: ScanRequest): Promise<ScanPage> {
    return this.scans.page(req);
  }

  scanAll(mapName: string, values: boolean): Promise<ScanEntry[]> {
    return this.scans.all(mapName, values);
  }

  mapNames(): Promise<{ name: string; size: number }[]> {
    return this.scans.names();
  }

  /** The map's configuration (its own or the matching pattern's). */
  configOf(mapName: string): MapConfig {
    return this.maps.configOf(mapName);
  }

  // ------------------------------------------------------------------ persistence

  /** Maps with data-persistence enabled persist every change from now on (set once at start, before any map exists). */
  setPersistence(p: MapPersistence): void {
    this.maps.persistence = p;
  }

  /** Replay persisted records (member start): the maps hold what they held when the member stopped. Returns entries restored. */
  restorePersisted(records: Iterable<LogRecord>): number {
    return this.recovery.restore(records);
  }

  /** Restored data of an older partition hash version: every entry to its partition under this build's hash; returns the entries moved. */
  rehomePersisted(): number {
    return this.recovery.rehome();
  }

  /** The current content of every persisted map here, as log records (a compaction's snapshot). */
  persistedRecords(): IterableIterator<LogRecord> {
    return this.recovery.records();
  }

  // ------------------------------------------------------------------ WAN replication

  /** WAN replication takes this map service's mutations from now on (set once at start). */
  setWanSink(sink: MapWanSink): void {
    this.maps.wan = sink;
  }

  /**
   * Apply entries another cluster replicated (in their order) on the partition's owner, with
   * the merge policy each carries. Resolves with how many changed the map.
   */
  applyWan(pid: number, mapName: string, entries: readonly MapWanIncoming[]): MaybePromise<number> {
    return this.merge.applyWan(pid, mapName, entries);
  }

  /** Names of the maps in use on this member that publish to the WAN replication `wanRepName`. */
  mapsPublishingTo(wanRepName: string): string[] {
    return this.wanEvents.mapsPublishingTo(wanRepName);
  }

  /** WAN sync: the events that carry the partition's live entries of the map (those `keep` accepts). */
  syncEvents(pid: number, mapName: string, keep?: (key: string) => boolean): MapWanEvent[] {
    return this.wanEvents.syncEvents(pid, mapName, keep);
  }

  /**
   * A read of a record store's observer (a Merkle tree level) at the partition's owner: the
   * query runs there by name (registered on every member), so it can travel to a remote owner.
   */
  registerObserverQuery(name: string, fn: ObserverQuery): void {
    this.ops.registerObserverQuery(name, fn);
  }

  queryObserver(pid: number, mapName: string, query: string, arg: WireValue): MaybePromise<WireValue> {
    return this.maps.deps.invoker.invoke(pid, this.ops.observerQueryOp(pid, mapName, query, arg));
  }

  /** The observer (Merkle tree) of the map's store in the partition, if the store exists here. */
  observerOf(pid: number, mapName: string): StoreObserver | undefined {
    return this.maps.containers.get(mapName)?.stores[pid]?.observer;
  }

  // ------------------------------------------------------------------ split-brain merge

  /** Take the entries of the partitions this member owns (it is about to merge into another cluster). */
  collectForMerge(owned: readonly number[]): MapMergeBatch[] {
    return this.merge.collectForMerge(owned);
  }

  /** Forget every entry (a member that merges into another cluster starts empty there). */
  dropAll(): void {
    for (const c of this.maps.containers.values()) c.stores.fill(undefined);
  }

  /** Merge collected entries into the cluster this member now belongs to, `batch-size` entries per operation. Returns how many were taken. */
  mergeInto(batches: readonly MapMergeBatch[]): Promise<{ merged: number; kept: number }> {
    return this.merge.mergeInto(batches);
  }

  // ------------------------------------------------------------------ metrics, expiry, eviction

  /** The per-map metrics (docs/metrics.md). */
  reportMetrics(r: MetricsRegistrar): void {
    reportMapMetrics(r, this.maps);
  }

  /** Each map's operation counters on this member as owner, since it started (the console's rates). */
  forEachCounters(fn: (counters: MapCounters, mapName: string) => void): void {
    this.maps.counters.forEach(fn);
  }

  /** Entries and bytes of the maps in the partitions this member owns. */
  ownedFootprint(): { entries: number; bytes: number } {
    return ownedFootprint(this.maps);
  }

  /** Start reclaiming expired entries in the background (the eviction trim shares the timer). */
  startExpirySweeper(intervalMs: number): void {
    this.expiry.start(intervalMs);
  }

  stop(): void {
    this.expiry.stop();
  }

  /** Bring owned stores over their entry limit back to it (see map-eviction.ts). Resolves with how many entries were evicted. */
  trimSome(): Promise<number> {
    return trimSome(this.maps);
  }

  /** Reclaim expired entries of the next partitions (see map-expiry.ts). */
  sweepSome(): number {
    return this.expiry.sweepSome();
  }
}
