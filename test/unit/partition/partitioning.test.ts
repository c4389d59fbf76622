import { describe, expect, it } from 'vitest';
import { murmur3Bytes, hashToIndex, PARTITION_HASH_SEED } from '../../../src/core/murmur3.js';
import { PARTITION_COUNT, partitionIdOf } from '../../../src/partition/partitioning.js';

// Partition ids of known keys, computed once and pinned: if any of these changes, data
// written by an older release would be looked up in the wrong partition.
const PINNED: readonly [string, number][] = [
  ['key-0', 118],
  ['key-1', 107],
  ['key-2', 105],
  ['key-99', 255],
  ['a', 46],
  ['b', 88],
  ['', 238],
  ['orders', 31],
  ['customers', 230],
  ['ü', 233],
  ['日本', 26],
  ['🙂', 256],
  ['\ud800', 200], // lone surrogate: hashed as U+FFFD
  ['hello world', 154],
  ['x'.repeat(1000), 22],
  ['The quick brown fox jumps over the lazy dog', 147],
  ['user:42', 47],
  ['a/b/c', 46],
  ['1', 70],
];

describe('partitionIdOf', () => {
  it('has 271 partitions', () => {
    expect(PARTITION_COUNT).toBe(271);
  });

  it.each(PINNED.map(([k, p]) => [k.length > 40 ? `${k.slice(0, 10)}... (${k.length} chars)` : JSON.stringify(k), k, p] as const))(
    'pins %s',
    (_label, key, expected) => {
      expect(partitionIdOf(key)).toBe(expected);
    },
  );

  it('is the murmur3 of the UTF-8 bytes with the partition seed, mod 271', () => {
    for (const [key] of PINNED) {
      expect(partitionIdOf(key)).toBe(hashToIndex(murmur3Bytes(Buffer.from(key, 'utf8'), PARTITION_HASH_SEED), 271));
    }
  });

  it('is stable across calls', () => {
    for (const [key, p] of PINNED) {
      expect(partitionIdOf(key)).toBe(p);
      expect(partitionIdOf(key)).toBe(p);
    }
  });

  it('stays within 0..270 and spreads 10,000 keys over every partition', () => {
    const counts = new Array<number>(PARTITION_COUNT).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const p = partitionIdOf(`key-${i}`);
      expect(Number.isInteger(p)).toBe(true);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThanOrEqual(270);
      counts[p]!++;
    }
    const min = Math.min(...counts);
    const max = Math.max(...counts);
    // ~36.9 keys per partition on average; a sane hash stays well inside these bounds.
    expect(min).toBeGreaterThan(0);
    expect(min).toBeGreaterThanOrEqual(15);
    expect(max).toBeLessThanOrEqual(65);
    expect(max / min).toBeLessThan(4);
  });

  it('spreads random-looking and unicode keys too', () => {
    const counts = new Array<number>(PARTITION_COUNT).fill(0);
    for (let i = 0; i < 10_000; i++) counts[partitionIdOf(`日本-${i * 7919}-🙂`)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts) / Math.min(...counts)).toBeLessThan(4);
  });
});
