// Map operations on the partition owner: get, put, remove, clear, size and the record-store
// observer queries (Merkle tree reads), each with what its backups apply. The hot ones (get,
// put) are classes: one allocation per request, methods shared on the prototype.

import type { MapConfig } from '../config/types.js';
import { GridError } from '../core/errors.js';
import type { BackupSpec, Operation } from '../invocation/invoker.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { FULL_STRIDE, type MergeEntry, type StoreObserver, type StoredValue } from './record-store.js';
import { forEachMergeEntry, pushMergeEntry } from './map-merge.js';
import { evictAfterPut } from './map-eviction.js';
import type { MapRegistry } from './map-registry.js';
import { MapOp } from './map-op.js';
import type { StructureProtection } from '../invocation/split-brain-protection.js';
import { wanPutEvent } from './map-wan.js';

class MapGet implements Operation<StoredValue | undefined> {
  readonly name = 'map.get';
  readonly service = 'map';
  readonly type = 'get';
  readonly mutating = false;
  constructor(
    private readonly ops: MapOperations,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly key: string,
  ) {}

  get args(): WireValue[] {
    return [this.mapName, this.key];
  }

  run(): StoredValue | undefined {
    this.ops.protection.guardOwner(this.mapName, 'READ');
    return this.ops.runGet(this.pid, this.mapName, this.key);
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
    private readonly ops: MapOperations,
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
    this.ops.protection.guardOwner(this.mapName, 'WRITE');
    this.wanSeqs = this.ops.runPut(this.pid, this.mapName, this.key, this.value, this.ct);
    this.evicted = this.ops.takeEvicted();
  }

  backup(): BackupSpec {
    // [map, key, value, ct, WAN seqs | null, evicted keys]: older members read the first five.
    if (this.evicted !== undefined) return this.ops.maps.backupOf(this.mapName, 'put', [...this.args, this.wanSeqs ?? null, this.evicted]);
    return this.ops.maps.backupOf(this.mapName, 'put', this.wanSeqs === undefined ? this.args : [...this.args, this.wanSeqs]);
  }
}

/** A read of a record store's observer, registered by name on every member (see registerObserverQuery). */
export type ObserverQuery = (observer: StoreObserver | undefined, config: MapConfig, arg: WireValue) => WireValue;

export class MapOperations {
  /** Keys the last runPut evicted, taken by its operation at once (operations run one at a time). */
  private evicted: string[] | undefined;
  private readonly observerQueries = new Map<string, ObserverQuery>();

  constructor(
    readonly maps: MapRegistry,
    readonly protection: StructureProtection,
  ) {}

  getOp(pid: number, mapName: string, key: string): Operation<StoredValue | undefined> {
    return new MapGet(this, pid, mapName, key);
  }

  putOp(pid: number, mapName: string, key: string, value: string, ct: string | undefined): Operation<void> {
    return new MapPut(this, pid, mapName, key, value, ct);
  }

  runGet(pid: number, mapName: string, key: string): StoredValue | undefined {
    const c = this.maps.containers.get(mapName);
    const counters = c !== undefined ? c.counters : this.maps.counters.of(mapName, false);
    counters.gets++;
    const store = c?.stores[pid];
    // A store without expiry or statistics reads no clock.
    const v = store === undefined ? undefined : store.get(key, store.usesClock ? this.maps.deps.clock.now() : 0);
    if (v === undefined) counters.misses++;
    else counters.hits++;
    return v;
  }

  /** The owner's put; returns the sequence numbers of the WAN events it queued (undefined: none). */
  runPut(pid: number, mapName: string, key: string, value: string, ct: string | undefined): WireValue | undefined {
    const maps = this.maps;
    const c = maps.container(mapName);
    const gate = maps.deps.gate;
    // At the member's memory limit a map without eviction refuses the put; one with eviction makes room.
    let makeRoom = false;
    if (gate !== undefined && gate.refusing()) {
      if (!c.eviction.enabled) gate.check(`the put to map "${mapName}"`);
      makeRoom = true;
    }
    c.counters.puts++;
    const store = c.store(pid);
    const wan = c.publishes ? maps.wan : undefined;
    const now = wan !== undefined || store.usesClock ? maps.deps.clock.now() : 0;
    if (wan === undefined) {
      store.put(key, value, ct, now);
      if (c.eviction.enabled) this.noteEvicted(c, evictAfterPut(c.eviction, c.stores, store, key, value, now || maps.deps.clock.now(), makeRoom));
      return undefined;
    }
    const tickets = wan.admit(mapName, pid);
    if (tickets === undefined) {
      store.put(key, value, ct, now);
      if (c.eviction.enabled) this.noteEvicted(c, evictAfterPut(c.eviction, c.stores, store, key, value, now || maps.deps.clock.now(), makeRoom));
      return undefined;
    }
    try {
      store.put(key, value, ct, now);
    } catch (e) {
      wan.cancel(tickets);
      throw e;
    }
    const seqs = wan.commit(tickets, pid, wanPutEvent(store, mapName, key, now, []));
    // Evictions are not replicated over WAN (as in Hazelcast): only the put's event is queued.
    if (c.eviction.enabled) this.noteEvicted(c, evictAfterPut(c.eviction, c.stores, store, key, value, now || maps.deps.clock.now(), makeRoom));
    return seqs;
  }

  private noteEvicted(c: { counters: { evictions: number } }, evicted: string[] | undefined): void {
    if (evicted === undefined) return;
    c.counters.evictions += evicted.length;
    this.evicted = evicted;
  }

  /** The keys the put that just ran evicted (undefined: none). */
  takeEvicted(): string[] | undefined {
    const e = this.evicted;
    this.evicted = undefined;
    return e;
  }

  removeOp(pid: number, mapName: string, key: string): Operation<boolean> {
    const args = [mapName, key];
    let wanSeqs: WireValue | undefined;
    const maps = this.maps;
    return new MapOp('map.remove', 'remove', true, args, () => {
      this.protection.guardOwner(mapName, 'WRITE');
      const c = maps.containers.get(mapName);
      (c !== undefined ? c.counters : maps.counters.of(mapName, false)).removes++;
      const store = c?.stores[pid];
      if (store === undefined) return false;
      const wan = c?.publishes === true ? maps.wan : undefined;
      const tickets = wan?.admit(mapName, pid);
      let removed: boolean;
      try {
        removed = store.remove(key, maps.deps.clock.now());
      } catch (e) {
        if (tickets !== undefined) wan?.cancel(tickets);
        throw e;
      }
      if (tickets !== undefined && wan !== undefined) {
        if (removed) wanSeqs = wan.commit(tickets, pid, { kind: 'remove', mapName, key, originClusters: [] });
        else wan.cancel(tickets);
      }
      return removed;
    }, (removed) => (removed ? maps.backupOf(mapName, 'remove', wanSeqs === undefined ? args : [...args, wanSeqs]) : undefined));
  }

  clearOp(pid: number, mapName: string): Operation<void> {
    const args = [mapName];
    let wanSeqs: WireValue[] | undefined;
    const maps = this.maps;
    return new MapOp('map.clear', 'clear', true, args, () => {
      this.protection.guardOwner(mapName, 'WRITE');
      const c = maps.containers.get(mapName);
      const store = c?.stores[pid];
      if (store === undefined) return;
      // WAN: a clear replicates as a remove of each entry it removes (as Hazelcast does).
      const wan = c?.publishes === true ? maps.wan : undefined;
      if (wan !== undefined && store.size > 0) {
        const seqs: WireValue[] = [];
        for (const [key] of store.liveEntries(maps.deps.clock.now())) {
          seqs.push(key, wan.offer(pid, { kind: 'remove', mapName, key, originClusters: [] }));
        }
        wanSeqs = seqs;
      }
      store.clear();
    }, () => (maps.containers.get(mapName)?.stores[pid] === undefined ? undefined : maps.backupOf(mapName, 'clear', wanSeqs === undefined ? args : [...args, wanSeqs])));
  }

  /** The entry with its metadata (version, expiry, statistics), without touching its statistics: a client's getEntryView. */
  entryViewOp(pid: number, mapName: string, key: string): Operation<MergeEntry | undefined> {
    return new MapOp('map.entryView', 'entryView', false, [mapName, key], () => {
      this.protection.guardOwner(mapName, 'READ');
      return this.maps.containers.get(mapName)?.stores[pid]?.mergeView(key, this.maps.deps.clock.now());
    });
  }

  sizeOp(pid: number, mapName: string): Operation<number> {
    return new MapOp('map.size', 'size', false, [mapName], () => {
      this.protection.guardOwner(mapName, 'READ');
      const c = this.maps.containers.get(mapName);
      const s = c?.stores[pid];
      if (c === undefined || s === undefined) return 0;
      if (s.mayExpire) c.counters.expirations += s.sweep(this.maps.deps.clock.now());
      return s.size;
    });
  }

  /**
   * A read of a record store's observer (a Merkle tree level) at the partition's owner: the
   * query runs there by name (registered on every member), so it can travel to a remote owner.
   */
  registerObserverQuery(name: string, fn: ObserverQuery): void {
    this.observerQueries.set(name, fn);
  }

  observerQueryOp(pid: number, mapName: string, query: string, arg: WireValue): Operation<WireValue> {
    return new MapOp('map.observerQuery', 'observerQuery', false, [mapName, query, arg], () => {
      const fn = this.observerQueries.get(query);
      if (fn === undefined) throw new GridError('BAD_REQUEST', `unknown map observer query ${query}`);
      return fn(this.maps.containers.get(mapName)?.stores[pid]?.observer, this.maps.configOf(mapName), arg);
    });
  }
}

/** An entry view on the wire: null, or the merge entries' full form of one entry (key '' : the caller knows it). */
export function encodeEntryView(e: MergeEntry | undefined): WireValue {
  if (e === undefined) return null;
  const out: WireValue[] = [FULL_STRIDE];
  pushMergeEntry(out, '', e);
  return out;
}

export function decodeEntryView(w: WireValue, contentTypeAt: (t: readonly WireValue[], i: number) => string | undefined): MergeEntry | undefined {
  if (w === null) return undefined;
  const t = f.tuple(w, 'entry view');
  let out: MergeEntry | undefined;
  forEachMergeEntry(t, (_k, e) => (out = e), (i) => contentTypeAt(t, i));
  return out;
}
