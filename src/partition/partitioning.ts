// Where a key lives: MurmurHash3 of its UTF-8 bytes, mod 271. Pure and pinned by tests so
// that partition ids of known keys never drift between releases.

import { hashToIndex, murmur3String, PARTITION_HASH_SEED } from '../core/murmur3.js';

export const PARTITION_COUNT = 271;

export function partitionIdOf(key: string): number {
  return hashToIndex(murmur3String(key, PARTITION_HASH_SEED), PARTITION_COUNT);
}
