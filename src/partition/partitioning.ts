// Where a key lives, exactly as Hazelcast and its clients place it: MurmurHash3_x86_32 (seed
// 0x01000193) of the key's serialized Data payload, |hash| mod 271. A String key's payload is
// its UTF-8 byte count (int32 big-endian) then its UTF-8 bytes, so "k1" is in partition 21 on
// Grid, on a Hazelcast member and in every smart client. Pure and pinned by tests so that
// partition ids of known keys never drift between releases.

import { hashToIndex, murmur3SerializedString, murmur3String, PARTITION_HASH_SEED } from '../core/murmur3.js';

export const PARTITION_COUNT = 271;

/** Which rule places keys (core/murmur3.ts says why it is versioned). */
export { PARTITION_HASH_VERSION } from '../core/murmur3.js';

/** The partition of a String key (REST path keys, client String keys, queue partition keys); any map key's: map/map-keys.ts partitionIdOfKey. */
export function partitionIdOf(key: string): number {
  return hashToIndex(murmur3SerializedString(key, PARTITION_HASH_SEED), PARTITION_COUNT);
}

/** Hash version 1's partition of a key: only to read data an older Grid wrote. */
export function partitionIdOfV1(key: string): number {
  return hashToIndex(murmur3String(key, PARTITION_HASH_SEED), PARTITION_COUNT);
}

/**
 * Hazelcast's StringPartitioningStrategy: the part of a name after its first `@`, or the whole
 * name. `jobs@orders` lives with the key `orders`, so structures named `…@orders` share a
 * partition.
 */
export function partitionKeyOf(name: string): string {
  const at = name.indexOf('@');
  return at === -1 ? name : name.slice(at + 1);
}

/** The partition of a queue: its name's partition key, hashed as a String (as a Hazelcast member and its Java client place it). */
export function queuePartitionIdOf(queueName: string): number {
  return partitionIdOf(partitionKeyOf(queueName));
}
