// The one key form every map layer below the REST and client surfaces uses (the "store key").
// A map key is a string: a String key is its own text, so REST paths and Hazelcast clients'
// String keys name the same entry at no cost. Any other key a Hazelcast client sends (a Long,
// a byte[], a JSON value, a serialized object) is U+0000 followed by its whole serialized Data
// as latin1 (one char per byte), placed where Hazelcast places it: by the Data's partition
// hash (core/murmur3.ts over the payload after the 8-byte header, or the header's hash of a
// PartitionAware key). A String whose text itself starts with U+0000 takes the Data form too
// (its String Data), so the two forms never meet: a store key that starts with U+0000 is always
// a Data form, any other is always a String's text. Pure.

import { GridError } from '../core/errors.js';
import { hashToIndex, murmur3Latin1, PARTITION_HASH_SEED } from '../core/murmur3.js';
import { PARTITION_COUNT, partitionIdOf } from '../partition/partitioning.js';

/** The first char of a Data-form store key (no String key's text form starts with it). */
export const DATA_KEY_MARK = '\u0000';
/** Hazelcast's type id of a String (ConstantSerializers). */
export const STRING_TYPE_ID = -11;
/** [int32 BE partition hash][int32 BE type id]: the header of every Data. */
export const DATA_HEADER_BYTES = 8;

/** Whether a store key is a Data form (a non-String key, or a String starting with U+0000). */
export function isDataKey(key: string): boolean {
  return key.charCodeAt(0) === 0;
}

/** The store key of a serialized key (its whole Data, byte-exact). */
export function dataKeyOf(data: Uint8Array): string {
  if (data.length < DATA_HEADER_BYTES) throw new GridError('BAD_REQUEST', `malformed serialized key: ${data.length} bytes, shorter than the 8-byte header`);
  return DATA_KEY_MARK + Buffer.from(data.buffer, data.byteOffset, data.length).toString('latin1');
}

/** The store key of a String key's text: the text itself, unless it starts with U+0000. */
export function storeKeyOfText(text: string): string {
  return text.charCodeAt(0) === 0 ? dataKeyOf(stringKeyData(text)) : text;
}

/** The serialized Data of a String (partition hash 0, type -11, int32 BE UTF-8 length, UTF-8). */
export function stringKeyData(text: string): Buffer {
  const n = Buffer.byteLength(text, 'utf8');
  const out = Buffer.alloc(DATA_HEADER_BYTES + 4 + n);
  out.writeInt32BE(STRING_TYPE_ID, 4);
  out.writeInt32BE(n, DATA_HEADER_BYTES);
  out.write(text, DATA_HEADER_BYTES + 4, 'utf8');
  return out;
}

/** The serialized Data a Hazelcast client reads for a store key (keySet, entrySet, events). */
export function keyDataOf(key: string): Buffer {
  return isDataKey(key) ? Buffer.from(key.slice(1), 'latin1') : stringKeyData(key);
}

/**
 * The String text of a store key, or undefined for a key that is not a String (what REST
 * shows: only String keys have a text a path can name). A Data-form String with a non-zero
 * partition hash is a String too.
 */
export function textOfStoreKey(key: string): string | undefined {
  if (!isDataKey(key)) return key;
  const b = keyDataOf(key);
  if (b.length < DATA_HEADER_BYTES + 4 || b.readInt32BE(4) !== STRING_TYPE_ID) return undefined;
  const n = b.readInt32BE(DATA_HEADER_BYTES);
  if (n < 0 || DATA_HEADER_BYTES + 4 + n !== b.length) return undefined;
  return b.toString('utf8', DATA_HEADER_BYTES + 4);
}

/**
 * The partition of a store key: a String's as partitionIdOf; a Data form's by its header's
 * hash when non-zero (PartitionAware), else by murmur3 of its payload (chars 9.. of the key).
 * The String path pays one char test.
 */
export function partitionIdOfKey(key: string): number {
  if (key.charCodeAt(0) !== 0) return partitionIdOf(key);
  const header = ((key.charCodeAt(1) & 0xff) << 24) | ((key.charCodeAt(2) & 0xff) << 16) | ((key.charCodeAt(3) & 0xff) << 8) | (key.charCodeAt(4) & 0xff);
  const hash = header !== 0 ? header : murmur3Latin1(key.slice(1 + DATA_HEADER_BYTES), PARTITION_HASH_SEED);
  return hashToIndex(hash, PARTITION_COUNT);
}
