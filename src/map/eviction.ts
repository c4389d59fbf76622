// Map eviction as Hazelcast defines it, as pure rules: when a map's record store is over its
// max size (per policy), and which sampled entry is the best victim (LRU, LFU, RANDOM). The
// record store samples; the map service runs the rules after a put on the partition owner.
// No clock, no I/O: the memory figures come in as numbers.

import type { EvictionConfig, EvictionPolicyName } from '../config/types.js';

/** Entries sampled per eviction (Hazelcast's `hazelcast.map.eviction.sample.count`). */
export const SAMPLE_COUNT = 15;

/** A PER_NODE size spread over the partitions never allows less than this per partition (Hazelcast's MIN_TRANSLATED_PARTITION_SIZE). */
export const MIN_TRANSLATED_PARTITION_SIZE = 1;

const MB = 1024 * 1024;

/** Whether the config evicts at all (a policy other than NONE). */
export function evicts(c: EvictionConfig): boolean {
  return c.evictionPolicy !== 'NONE';
}

/** Whether the map's bound is a count of entries (checked on every put) rather than memory (checked at a pace). */
export function countsEntries(c: EvictionConfig): boolean {
  return c.maxSizePolicy === 'PER_NODE' || c.maxSizePolicy === 'PER_PARTITION';
}

/**
 * The largest entry count one partition's record store may keep, as Hazelcast computes it:
 * PER_PARTITION is the size itself; PER_NODE spreads the size over the partitions in
 * proportion to the data members (a member owns about partitionCount / memberCount of them),
 * never below 1. A fraction is kept (Hazelcast compares the size against the double), so the
 * store may hold floor(limit) entries. Infinity for the memory policies.
 */
export function partitionEntryLimit(c: EvictionConfig, memberCount: number, partitionCount: number): number {
  if (c.maxSizePolicy === 'PER_PARTITION') return c.size;
  if (c.maxSizePolicy !== 'PER_NODE') return Infinity;
  const translated = (c.size * Math.max(1, memberCount)) / partitionCount;
  return translated < MIN_TRANSLATED_PARTITION_SIZE ? MIN_TRANSLATED_PARTITION_SIZE : translated;
}

/** What the memory policies compare, in bytes. */
export interface MemoryReading {
  /** Bytes the map's entries use in the partitions this member owns (records and index). */
  readonly mapBytes: number;
  /** The member's memory limit (the memory guard's limit: configured, or from the cgroup, the machine and V8). */
  readonly limitBytes: number;
  /** The member's memory in use (resident set). */
  readonly usedBytes: number;
}

/**
 * Whether a memory max-size policy is exceeded (Hazelcast's checks with Grid's figures):
 * USED_HEAP_SIZE: the map uses more than `size` MB; USED_HEAP_PERCENTAGE: more than `size` % of
 * the limit; FREE_HEAP_SIZE: less than `size` MB of the limit is free; FREE_HEAP_PERCENTAGE:
 * less than `size` % is free. False for the count policies.
 */
export function memoryExceeded(c: EvictionConfig, m: MemoryReading): boolean {
  const free = Math.max(0, m.limitBytes - m.usedBytes);
  switch (c.maxSizePolicy) {
    case 'USED_HEAP_SIZE':
      return m.mapBytes > c.size * MB;
    case 'USED_HEAP_PERCENTAGE':
      return m.limitBytes > 0 && (m.mapBytes * 100) / m.limitBytes > c.size;
    case 'FREE_HEAP_SIZE':
      return free < c.size * MB;
    case 'FREE_HEAP_PERCENTAGE':
      return m.limitBytes > 0 && (free * 100) / m.limitBytes < c.size;
    default:
      return false;
  }
}

/**
 * Whether candidate a is a better victim than b (Hazelcast's comparators): LRU takes the least
 * recently accessed, LFU the least often hit, each breaking a tie by the older creation time;
 * RANDOM prefers none: the record store picks one of the sampled entries at random.
 */
export function betterVictim(
  policy: EvictionPolicyName,
  aAccessAt: number,
  aHits: number,
  aCreatedAt: number,
  bAccessAt: number,
  bHits: number,
  bCreatedAt: number,
): boolean {
  switch (policy) {
    case 'LRU':
      return aAccessAt < bAccessAt || (aAccessAt === bAccessAt && aCreatedAt < bCreatedAt);
    case 'LFU':
      return aHits < bHits || (aHits === bHits && aCreatedAt < bCreatedAt);
    default:
      return false;
  }
}
