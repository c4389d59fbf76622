// The I/O side of map eviction: when a put on a partition owner has made the map's record
// store too big (eviction.ts decides), evict from it and report the keys, which travel to the
// backups with the put. Memory policies read the member's memory at a pace (a reading is at
// most MEMORY_CHECK_INTERVAL_MS old) and correct it between readings by what was put and evicted.
// Also the map's eviction hooks: evict after a put on the owner, and the periodic trim operation.

import type { Clock } from '../core/clock.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { EvictionConfig } from '../config/types.js';
import type { BackupSpec, Invoker, Operation } from '../invocation/invoker.js';
import type { WireValue } from '../protocol/codec.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { countsEntries, evicts, memoryExceeded, partitionEntryLimit, SAMPLE_COUNT, type MemoryReading } from './eviction.js';
import type { RecordStore } from './record-store.js';
import { MapOp } from './map-op.js';

/** How old a memory reading a memory max-size policy may use (Hazelcast 3.x's min-eviction-check-millis default). */
export const MEMORY_CHECK_INTERVAL_MS = 100;

/**
 * Entries one put may evict: Hazelcast evicts one (`hazelcast.map.eviction.batch.size`); a
 * second lets a store that is over its limit for another reason (a member left and PER_NODE's
 * share grew smaller, entries merged or applied by WAN) come back down while puts go on.
 */
export const MAX_EVICTIONS_PER_PUT = 2;

/** The member's memory as the memory policies see it (the memory guard's figures). */
export interface MemorySource {
  /** The member's memory limit in bytes. */
  limitBytes(): number;
  /** The member's memory in use in bytes (resident set). */
  usedBytes(): number;
}

/** A map's eviction state on this member. */
export class MapEviction {
  readonly enabled: boolean;
  private readonly counted: boolean;
  private reading: { mapBytes: number; limitBytes: number; usedBytes: number } | undefined;
  private readAt = -Infinity;

  constructor(
    readonly config: EvictionConfig,
    private readonly deps: {
      /** Data members in the cluster (PER_NODE). */
      memberCount: () => number;
      memory: MemorySource;
      /** Whether this member owns a partition (memory policies count owned partitions only). */
      isOwner: (partitionId: number) => boolean;
      /** A random uint32 (the sample's start). */
      random: () => number;
    },
  ) {
    this.enabled = evicts(config);
    this.counted = countsEntries(config);
  }

  /** The entry count a store may keep now (Infinity for memory policies). */
  entryLimit(): number {
    return this.counted ? partitionEntryLimit(this.config, this.deps.memberCount(), PARTITION_COUNT) : Infinity;
  }

  /**
   * After a put of `key` on the owner (or in a trim, without a key): evict while the store
   * (or the map's memory) is over the limit, at most `max` entries, never `key`. Returns the evicted keys (undefined: none).
   */
  evict(stores: readonly (RecordStore | undefined)[], store: RecordStore, key: string | undefined, nowMs: number, max: number = MAX_EVICTIONS_PER_PUT): string[] | undefined {
    if (!this.enabled) return undefined;
    let out: string[] | undefined;
    if (this.counted) {
      const limit = this.entryLimit();
      while (store.size > limit && (out?.length ?? 0) < max) {
        const k = store.evictOne(this.config.evictionPolicy, key, this.deps.random(), SAMPLE_COUNT, nowMs);
        if (k === undefined) break;
        (out ??= []).push(k);
      }
      return out;
    }
    const reading = this.memory(stores, nowMs);
    while (memoryExceeded(this.config, reading) && (out?.length ?? 0) < max) {
      const k = store.evictOne(this.config.evictionPolicy, key, this.deps.random(), SAMPLE_COUNT, nowMs);
      if (k === undefined) break;
      (out ??= []).push(k);
      // Until the next reading, count what the eviction freed (the record's bytes).
      reading.mapBytes -= store.lastEvictedBytes;
      reading.usedBytes -= store.lastEvictedBytes;
    }
    return out;
  }

  /** A put of `bytes` more (key and value) went into an owned store: the reading counts it until the next one. */
  grew(bytes: number): void {
    if (this.reading === undefined) return;
    this.reading.mapBytes += bytes;
    this.reading.usedBytes += bytes;
  }

  /** Whether a store is over its entry limit (the periodic trim looks for these). */
  over(store: RecordStore): boolean {
    return this.enabled && this.counted && store.size > this.entryLimit();
  }

  private memory(stores: readonly (RecordStore | undefined)[], nowMs: number): { mapBytes: number; limitBytes: number; usedBytes: number } {
    if (this.reading !== undefined && nowMs - this.readAt < MEMORY_CHECK_INTERVAL_MS && nowMs >= this.readAt) return this.reading;
    let mapBytes = 0;
    for (let pid = 0; pid < stores.length; pid++) {
      const s = stores[pid];
      if (s !== undefined && this.deps.isOwner(pid)) mapBytes += s.footprintBytes;
    }
    const r: MemoryReading = { mapBytes, limitBytes: this.deps.memory.limitBytes(), usedBytes: this.deps.memory.usedBytes() };
    this.reading = { ...r };
    this.readAt = nowMs;
    return this.reading;
  }
}

/** Entries a put to a map with eviction may evict to make room while the member is at its memory limit. */
const MAX_ROOM_EVICTIONS = 16;

/**
 * The owner evicts after a put that made the store (or the map's memory) too big; the keys go
 * to the backups with the put. `makeRoom`: the member is at its memory limit, so evict beyond
 * the map's own bound until as many bytes were freed as the put added (at most
 * MAX_ROOM_EVICTIONS entries, from this partition's store). Returns the evicted keys (undefined: none).
 */
export function evictAfterPut(
  eviction: MapEviction,
  stores: readonly (RecordStore | undefined)[],
  store: RecordStore,
  key: string,
  value: string,
  nowMs: number,
  makeRoom: boolean,
): string[] | undefined {
  eviction.grew(key.length + value.length);
  let evicted = eviction.evict(stores, store, key, nowMs);
  if (makeRoom) {
    let freed = 0;
    for (let i = 0; i < MAX_ROOM_EVICTIONS && freed < key.length + value.length; i++) {
      const k = store.evictOne(eviction.config.evictionPolicy, key, (Math.random() * 0x1_0000_0000) >>> 0, SAMPLE_COUNT, nowMs);
      if (k === undefined) break;
      freed += store.lastEvictedBytes;
      (evicted ??= []).push(k);
    }
  }
  return evicted;
}

/** What the periodic trim needs of the maps on this member (the map registry). */
export interface EvictingMaps {
  readonly containers: ReadonlyMap<string, { readonly stores: (RecordStore | undefined)[]; readonly eviction: MapEviction; readonly counters: { evictions: number } }>;
  readonly deps: { readonly clock: Clock; readonly invoker: Invoker; readonly isOwner: (partitionId: number) => boolean };
  backupOf(mapName: string, type: string, args: readonly WireValue[]): BackupSpec;
}

/**
 * Bring owned stores that are over their entry limit without a put (a member left, so each
 * member's PER_NODE share per partition shrank; entries came by a migration, a merge or WAN)
 * back to the limit: one trim operation per such partition, run by the owner and backed up.
 * Resolves with how many entries were evicted.
 */
export async function trimSome(maps: EvictingMaps): Promise<number> {
  const calls: MaybePromise<number>[] = [];
  for (const [mapName, c] of maps.containers) {
    if (!c.eviction.enabled) continue;
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      const s = c.stores[pid];
      if (s !== undefined && c.eviction.over(s) && maps.deps.isOwner(pid)) calls.push(maps.deps.invoker.invoke(pid, trimOp(maps, pid, mapName)));
    }
  }
  let n = 0;
  for (const v of await Promise.all(calls)) n += v;
  return n;
}

/** The trim of one map's store in one partition, run by its owner; the evicted keys go to the backups. */
export function trimOp(maps: EvictingMaps, pid: number, mapName: string): Operation<number> {
  const args = [mapName];
  let evicted: string[] | undefined;
  return new MapOp('map.trim', 'trim', true, args, () => {
    const c = maps.containers.get(mapName);
    const store = c?.stores[pid];
    if (c === undefined || store === undefined) return 0;
    evicted = c.eviction.evict(c.stores, store, undefined, maps.deps.clock.now(), store.size);
    if (evicted === undefined) return 0;
    c.counters.evictions += evicted.length;
    return evicted.length;
  }, (n) => (n > 0 && evicted !== undefined ? maps.backupOf(mapName, 'evict', [mapName, evicted]) : undefined));
}
