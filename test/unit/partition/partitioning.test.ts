import { describe, expect, it } from 'vitest';
import { hashToIndex, murmur3Bytes, murmur3SerializedString, murmur3String, PARTITION_HASH_SEED, utf8Length } from '../../../src/core/murmur3.js';
import { PARTITION_COUNT, PARTITION_HASH_VERSION, partitionIdOf, partitionIdOfV1, partitionKeyOf, queuePartitionIdOf } from '../../../src/partition/partitioning.js';
import { dataKeyOf, partitionIdOfKey } from '../../../src/map/map-keys.js';
import { prng } from '../../support/prng.js';
import { hzMurmur, hzPartitioner, hzSerializer } from '../client/hz-client.js';

// Partition ids of known keys, pinned: if any of these changes, data written by an older
// release would be looked up in the wrong partition. Each is also checked against the Node
// client's own code below (the pins are Hazelcast's ids, "k1" -> 21 as in the research note).
const PINNED: readonly [string, number][] = [
  ['k1', 21],
  ['k2', 235],
  ['key', 80],
  ['', 11],
  ['héllo', 219],
  ['q', 229],
  ['key-0', 92],
  ['key-1', 94],
  ['key-2', 265],
  ['key-99', 66],
  ['a', 73],
  ['b', 124],
  ['orders', 261],
  ['customers', 179],
  ['ü', 64],
  ['日本', 220],
  ['🙂', 133],
  ['\ud800', 211], // lone surrogate: serialized as U+FFFD (EF BF BD), as the client's Buffer writes it
  ['hello world', 31],
  ['x'.repeat(1000), 151],
  ['The quick brown fox jumps over the lazy dog', 183],
  ['user:42', 14],
  ['a/b/c', 217],
  ['1', 41],
];

const client = hzPartitioner();
const serializer = hzSerializer();
/** The client's partition id, except for the one hash where Node's Math.abs differs from Java's hashToIndex. */
function clientPartitionId(key: string): number {
  const data = serializer.toData(key).toBuffer();
  const hash = hzMurmur(data.subarray(8));
  return hash === -2147483648 ? 0 : client.getPartitionId(key);
}

/** Strings of every kind of UTF-16 content: ASCII, 2-, 3- and 4-byte UTF-8, lone surrogates, controls. */
function randomStrings(count: number, seed: number, maxLen: number): string[] {
  const rnd = prng(seed);
  const unit = (): string => {
    const r = rnd();
    if (r < 0.4) return String.fromCharCode(Math.floor(rnd() * 0x80));
    if (r < 0.55) return String.fromCharCode(0x80 + Math.floor(rnd() * (0x800 - 0x80)));
    if (r < 0.75) return String.fromCharCode(0x800 + Math.floor(rnd() * (0x10000 - 0x800)));
    if (r < 0.95) return String.fromCodePoint(0x10000 + Math.floor(rnd() * 0x100000));
    return String.fromCharCode(0xd800 + Math.floor(rnd() * 0x800));
  };
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const len = Math.floor(rnd() * maxLen);
    let s = '';
    for (let i = 0; i < len; i++) s += unit();
    out.push(s);
  }
  return out;
}

describe('partitionIdOf', () => {
  it('has 271 partitions and hash version 2', () => {
    expect(PARTITION_COUNT).toBe(271);
    expect(PARTITION_HASH_VERSION).toBe(2);
  });

  it.each(PINNED.map(([k, p]) => [k.length > 40 ? `${k.slice(0, 10)}... (${k.length} chars)` : JSON.stringify(k), k, p] as const))(
    'pins %s, as the Node client places it',
    (_label, key, expected) => {
      expect(partitionIdOf(key)).toBe(expected);
      expect(client.getPartitionId(key)).toBe(expected);
    },
  );

  it('hashes the String Data payload the client serializes (length prefix = UTF-8 byte count)', () => {
    const keys = [...PINNED.map(([k]) => k), 'x'.repeat(100_000), '日'.repeat(70_000), '🙂'.repeat(5000), ...randomStrings(500, 7, 30)];
    for (const key of keys) {
      const data = serializer.toData(key).toBuffer();
      expect(data.readInt32BE(0)).toBe(0);
      expect(data.readInt32BE(4)).toBe(-11);
      expect(data.readInt32BE(8)).toBe(Buffer.byteLength(key, 'utf8'));
      expect(utf8Length(key)).toBe(Buffer.byteLength(key, 'utf8'));
      const payload = data.subarray(8);
      expect(murmur3SerializedString(key, PARTITION_HASH_SEED), JSON.stringify(key.slice(0, 20))).toBe(hzMurmur(payload));
      expect(murmur3SerializedString(key, PARTITION_HASH_SEED)).toBe(murmur3Bytes(payload, PARTITION_HASH_SEED));
      expect(partitionIdOfKey(dataKeyOf(data))).toBe(partitionIdOf(key));
    }
  });

  it('agrees with the client for every length 0..40 of each character width, and 5,000 random strings', () => {
    const widths = ['a', '\u007f', '\u0080', 'ü', '\u07ff', '\u0800', '日', '\uffff', '🙂', '\u{10ffff}', '\ud800', '\udfff'];
    for (const w of widths) {
      for (let len = 0; len <= 40; len++) {
        const s = w.repeat(len);
        expect(partitionIdOf(s), `${JSON.stringify(w)} x ${len}`).toBe(clientPartitionId(s));
        // A non-ASCII character at each position of an ASCII string (the fast path's fallback).
        const mixed = 'k'.repeat(len) + w + 'z'.repeat(len % 5);
        expect(partitionIdOf(mixed), JSON.stringify(mixed)).toBe(clientPartitionId(mixed));
      }
    }
    for (const s of randomStrings(5000, 0xc0ffee, 40)) expect(partitionIdOf(s), JSON.stringify(s)).toBe(clientPartitionId(s));
  });

  it('maps Integer.MIN_VALUE to 0 as Java does (the Node client says 245 for exactly that hash)', () => {
    expect(hashToIndex(-2147483648, 271)).toBe(0);
    expect(Math.abs(-2147483648) % 271).toBe(245);
    expect(hashToIndex(-5, 271)).toBe(5);
    expect(hashToIndex(2147483647, 271)).toBe(2147483647 % 271);
  });

  it('places a serialized key of any type by its header hash, else murmur3 of its payload, as the client does', () => {
    for (const v of [42, 1.5, -1, 0, true, Buffer.from([1, 2, 3]), { a: 1 }, [1, 'x'], 'k1']) {
      const data = serializer.toData(v).toBuffer();
      expect(partitionIdOfKey(dataKeyOf(data)), JSON.stringify(v)).toBe(client.getPartitionId(v));
    }
    // A PartitionAware key: its non-zero header hash decides, not the payload.
    const aware = Buffer.concat([Buffer.from([0, 0, 0, 0]), serializer.toData('k1').toBuffer().subarray(4)]);
    aware.writeInt32BE(1000, 0);
    expect(partitionIdOfKey(dataKeyOf(aware))).toBe(1000 % 271);
    aware.writeInt32BE(-1000, 0);
    expect(partitionIdOfKey(dataKeyOf(aware))).toBe(1000 % 271);
  });

  it('keeps the old rule (version 1: raw UTF-8 bytes) for reading older data', () => {
    expect(partitionIdOfV1('k1')).toBe(175);
    for (const [key] of PINNED) expect(partitionIdOfV1(key)).toBe(hashToIndex(murmur3String(key, PARTITION_HASH_SEED), 271));
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
    expect(min).toBeGreaterThanOrEqual(15);
    expect(max).toBeLessThanOrEqual(65);
    expect(max / min).toBeLessThan(4);
  });

  it('spreads unicode keys too', () => {
    const counts = new Array<number>(PARTITION_COUNT).fill(0);
    for (let i = 0; i < 10_000; i++) counts[partitionIdOf(`日本-${i * 7919}-🙂`)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts) / Math.min(...counts)).toBeLessThan(4);
  });
});

describe('queuePartitionIdOf', () => {
  it("places a queue by its name's partition key (the part after the first @, as Hazelcast's StringPartitioningStrategy)", () => {
    expect(partitionKeyOf('jobs')).toBe('jobs');
    expect(partitionKeyOf('jobs@orders')).toBe('orders');
    expect(partitionKeyOf('a@b@c')).toBe('b@c');
    expect(partitionKeyOf('jobs@')).toBe('');
    expect(partitionKeyOf('@x')).toBe('x');
    expect(queuePartitionIdOf('q')).toBe(229); // the research note's queue "q", as the Node client places it
    expect(queuePartitionIdOf('q')).toBe(client.getPartitionId('q'));
    expect(queuePartitionIdOf('jobs@orders')).toBe(partitionIdOf('orders'));
    expect(queuePartitionIdOf('jobs@orders')).toBe(queuePartitionIdOf('mail@orders'));
    expect(queuePartitionIdOf('jobs@')).toBe(partitionIdOf(''));
  });
});
