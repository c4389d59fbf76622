// The I/O side of map eviction: when a put on a partition owner has made the map's record
// store too big (eviction.ts decides), evict from it and report the keys, which travel to the
// backups with the put. Memory policies read the member's memory at a pace (a reading is at
// most MEMORY_CHECK_INTERVAL_MS old) and correct it between readings by what was put and evicted.

import type { EvictionConfig } from '../config/types.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { countsEntries, evicts, memoryExceeded, partitionEntryLimit, SAMPLE_COUNT, type MemoryReading } from './eviction.js';
import type { RecordStore } from './record-store.js';

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
