// The store key forms (map-keys.ts), checked against the official Node.js client's own
// serializer and partition service: every key type lands in the partition the client routes
// it to, the Data comes back byte-exact, and no String text ever meets a Data form.

import { describe, expect, it } from 'vitest';
import { dataKeyOf, isDataKey, keyDataOf, partitionIdOfKey, storeKeyOfText, stringKeyData, textOfStoreKey } from '../../../src/map/map-keys.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { hzPartitioner, hzSerializer, Long } from '../client/hz-client.js';

const ser = hzSerializer();
const partitioner = hzPartitioner();
const clientData = (v: unknown): Buffer => ser.toData(v).toBuffer();

/** Keys of every type the Node client serializes without a custom factory. */
const KEYS: readonly [string, unknown][] = [
  ['Long', Long.fromString('1234567890123')],
  ['negative Long', Long.fromNumber(-7)],
  ['Double', 42.5],
  ['integral Double', 7],
  ['byte[]', Buffer.from([0, 1, 2, 250, 255])],
  ['empty byte[]', Buffer.alloc(0)],
  ['JSON object', { id: 7, name: 'héllo' }],
  ['JSON array', [1, 'two', null]],
  ['boolean', true],
];

describe('store keys of non-String client keys', () => {
  it.each(KEYS)('%s: placed where the Node client routes it, the Data back byte-exact', (_, v) => {
    const data = clientData(v);
    const key = dataKeyOf(data);
    expect(isDataKey(key)).toBe(true);
    expect(partitionIdOfKey(key)).toBe(partitioner.getPartitionId(v));
    expect(keyDataOf(key).equals(data)).toBe(true);
    expect(textOfStoreKey(key)).toBeUndefined();
  });

  it('distinct keys stay distinct: a Long 1, a Double 1, the byte[] [1] and the String "1" are four keys', () => {
    const keys = [dataKeyOf(clientData(Long.fromNumber(1))), dataKeyOf(clientData(1)), dataKeyOf(clientData(Buffer.from([1]))), storeKeyOfText('1')];
    expect(new Set(keys).size).toBe(4);
  });

  it('a PartitionAware key (non-zero header hash) is placed by its header, as the client places it', () => {
    const data = clientData(Long.fromNumber(5));
    data.writeInt32BE(-123456, 0);
    // Math.abs(hash) % 271, the client's rule
    expect(partitionIdOfKey(dataKeyOf(data))).toBe(Math.abs(-123456) % 271);
    expect(keyDataOf(dataKeyOf(data)).equals(data)).toBe(true);
  });

  it('pinned partition ids of known Data keys, so they never drift (Long 1, byte[] {1}, Integer 42)', () => {
    const hex = (h: string): Buffer => Buffer.from(h, 'hex');
    expect(partitionIdOfKey(dataKeyOf(hex('00000000fffffff80000000000000001')))).toBe(110);
    expect(partitioner.getPartitionId(Long.fromNumber(1))).toBe(110);
    expect(partitionIdOfKey(dataKeyOf(hex('00000000fffffff40000000101')))).toBe(191);
    expect(partitioner.getPartitionId(Buffer.from([1]))).toBe(191);
    // A Java Integer (the Node client sends numbers as Doubles by default).
    expect(partitionIdOfKey(dataKeyOf(hex('00000000fffffff90000002a')))).toBe(175);
  });

  it('refuses a Data shorter than its header', () => {
    expect(() => dataKeyOf(Buffer.alloc(7))).toThrow(/shorter than the 8-byte header/);
    expect(dataKeyOf(Buffer.alloc(8))).toBe('\u0000' + '\u0000'.repeat(8));
  });

  it('never throws on a foreign store key (a peer or a log may hand any string)', () => {
    for (const k of ['\u0000', '\u0000ab', '\u0000\u0100\u0200\u0300\u0400xyz']) expect(partitionIdOfKey(k)).toBeGreaterThanOrEqual(0);
  });
});

describe('String keys', () => {
  it('are their own text, at no cost, in the partition a client and REST use', () => {
    for (const s of ['k1', 'héllo', 'a/b c', '😀']) {
      expect(storeKeyOfText(s)).toBe(s);
      expect(isDataKey(s)).toBe(false);
      expect(partitionIdOfKey(s)).toBe(partitionIdOf(s));
      expect(partitionIdOfKey(s)).toBe(partitioner.getPartitionId(s));
      expect(keyDataOf(s).equals(clientData(s))).toBe(true);
      expect(textOfStoreKey(s)).toBe(s);
    }
    expect(partitionIdOfKey('k1')).toBe(21);
  });

  it('a text that starts with U+0000 takes its String Data form, so no text can name a non-String key', () => {
    const text = '\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000';
    const key = storeKeyOfText(text);
    expect(key).toBe(dataKeyOf(clientData(text)));
    expect(stringKeyData(text).equals(clientData(text))).toBe(true);
    expect(textOfStoreKey(key)).toBe(text);
    expect(partitionIdOfKey(key)).toBe(partitioner.getPartitionId(text));
    // A text that spells a Long's Data form is still a String: a different key.
    const longForm = dataKeyOf(clientData(Long.fromNumber(3)));
    expect(storeKeyOfText(longForm)).not.toBe(longForm);
    expect(textOfStoreKey(storeKeyOfText(longForm))).toBe(longForm);
  });
});
