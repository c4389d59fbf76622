// Serialized keys and values (Hazelcast's Data, research note §4): [int32 BE partition hash]
// [int32 BE type id][payload, big-endian]. Grid stores a value as bytes plus a content type;
// this module maps between the two so that REST and binary clients share data as on a
// Hazelcast member (§7):
// - a client's String, byte[] or JSON value is stored as its text/bytes under a marker content
//   type that REST serves as text/plain, application/binary or application/json;
// - any other client value is stored as its whole Data blob (byte-exact for binary readers;
//   REST serves those bytes as application/binary, as Hazelcast does);
// - a REST-written value goes to a client as Hazelcast's RestValue (factory -25, class 1).
// The markers start with a control character, which no HTTP header value can hold, so a REST
// write can never be mistaken for a client write.

import { GridError } from '../core/errors.js';
import { dataKeyOf, storeKeyOfText } from '../map/map-service.js';

export const TypeId = {
  IDENTIFIED: -2,
  STRING: -11,
  BYTE_ARRAY: -12,
  JSON: -130,
} as const;

/** Hazelcast's TextProtocolsDataSerializerHook: RestValue is factory -25, class 1. */
export const REST_VALUE_FACTORY = -25;
export const REST_VALUE_CLASS = 1;

export const DATA_HEADER_BYTES = 8;

/** Marker content types of client-written values (see the module comment). */
export const ClientContentType = {
  STRING: '\u0001hz/string',
  BYTE_ARRAY: '\u0001hz/bytes',
  JSON: '\u0001hz/json',
  /** The value is a whole Data blob of a type Grid does not interpret. */
  DATA: '\u0001hz/data',
} as const;

const REST_VIEW: Readonly<Record<string, string>> = {
  [ClientContentType.STRING]: 'text/plain',
  [ClientContentType.BYTE_ARRAY]: 'application/binary',
  [ClientContentType.JSON]: 'application/json',
  [ClientContentType.DATA]: 'application/binary',
};

/** The Content-Type REST serves a stored value with (client markers become Hazelcast's REST types). */
export function restContentType(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.charCodeAt(0) !== 1) return contentType;
  return REST_VIEW[contentType] ?? 'application/binary';
}

/** A value as Grid stores it: bytes as a latin1 string, and a content type. */
export interface StoredForm {
  readonly value: string;
  readonly contentType: string | undefined;
}

function malformed(what: string): GridError {
  return new GridError('BAD_REQUEST', `malformed serialized data: ${what}`);
}

function typeOf(data: Buffer): number {
  if (data.length < DATA_HEADER_BYTES) throw malformed(`${data.length} bytes, shorter than the 8-byte header`);
  return data.readInt32BE(4);
}

/** The payload of a String/JSON/byte[] Data: int32 BE length then the bytes; null for length -1. */
function lengthPrefixed(data: Buffer, what: string): Buffer | null {
  if (data.length < DATA_HEADER_BYTES + 4) throw malformed(`${what} without its length`);
  const n = data.readInt32BE(DATA_HEADER_BYTES);
  if (n === -1 && data.length === DATA_HEADER_BYTES + 4) return null;
  if (n < 0 || DATA_HEADER_BYTES + 4 + n !== data.length) throw malformed(`${what} length ${n} does not match its ${data.length - 12} bytes`);
  return data.subarray(DATA_HEADER_BYTES + 4);
}

/**
 * The store key (map/map-keys.ts) of a serialized key. A String key with no partition hash is
 * its text, so it names the entry a REST path names; any other key (a Long, a byte[], a JSON
 * value, an object; a String with a PartitionAware hash) is its whole Data, compared
 * byte-exact and placed by the Data's partition hash, as on a Hazelcast member.
 */
export function keyOf(data: Buffer): string {
  const type = typeOf(data);
  if (type === TypeId.STRING && data.readInt32BE(0) === 0) {
    const bytes = lengthPrefixed(data, 'String key');
    if (bytes === null) throw malformed('null String key');
    // A text starting with U+0000 takes the Data form, the one REST gives the same text.
    return storeKeyOfText(bytes.toString('utf8'));
  }
  return dataKeyOf(data);
}

/** The serialized form of a string (what the clients send for a String key or value). */
export function stringData(s: string, type: number = TypeId.STRING): Buffer {
  const text = Buffer.from(s, 'utf8');
  return lengthPrefixedData(type, text);
}

function lengthPrefixedData(type: number, bytes: Buffer): Buffer {
  const out = Buffer.alloc(DATA_HEADER_BYTES + 4 + bytes.length);
  out.writeInt32BE(type, 4);
  out.writeInt32BE(bytes.length, DATA_HEADER_BYTES);
  bytes.copy(out, DATA_HEADER_BYTES + 4);
  return out;
}

/** How Grid stores a value a client sent. */
export function storedFormOf(data: Buffer): StoredForm {
  const type = typeOf(data);
  // A non-zero partition hash (PartitionAware) is part of the value: keep it byte-exact.
  const plain = data.readInt32BE(0) === 0;
  if (plain && (type === TypeId.STRING || type === TypeId.JSON || type === TypeId.BYTE_ARRAY)) {
    const bytes = lengthPrefixed(data, 'value');
    if (bytes !== null) {
      const contentType = type === TypeId.STRING ? ClientContentType.STRING : type === TypeId.JSON ? ClientContentType.JSON : ClientContentType.BYTE_ARRAY;
      return { value: bytes.toString('latin1'), contentType };
    }
  }
  if (plain && type === TypeId.IDENTIFIED) {
    // A RestValue a client read and writes back is a REST value again.
    const rest = decodeRestValue(data);
    if (rest !== undefined) return rest;
  }
  return { value: data.toString('latin1'), contentType: ClientContentType.DATA };
}

/** The Data a client reads for a stored value. */
export function dataOfStored(value: string, contentType: string | undefined): Buffer {
  switch (contentType) {
    case ClientContentType.STRING:
      return lengthPrefixedData(TypeId.STRING, Buffer.from(value, 'latin1'));
    case ClientContentType.JSON:
      return lengthPrefixedData(TypeId.JSON, Buffer.from(value, 'latin1'));
    case ClientContentType.BYTE_ARRAY:
      return lengthPrefixedData(TypeId.BYTE_ARRAY, Buffer.from(value, 'latin1'));
    case ClientContentType.DATA:
      return Buffer.from(value, 'latin1');
    default:
      return restValueData(Buffer.from(value, 'latin1'), contentType === undefined ? null : Buffer.from(contentType, 'latin1'));
  }
}

/** Hazelcast's RestValue: IdentifiedDataSerializable -25/1 with fields value and contentType (byte arrays, null = length -1). */
export function restValueData(value: Buffer, contentType: Buffer | null): Buffer {
  const ctLen = contentType === null ? 0 : contentType.length;
  const out = Buffer.alloc(DATA_HEADER_BYTES + 1 + 4 + 4 + 4 + value.length + 4 + ctLen);
  let at = 4;
  out.writeInt32BE(TypeId.IDENTIFIED, at);
  at += 4;
  out[at++] = 1; // identified
  out.writeInt32BE(REST_VALUE_FACTORY, at);
  at += 4;
  out.writeInt32BE(REST_VALUE_CLASS, at);
  at += 4;
  out.writeInt32BE(value.length, at);
  at += 4;
  value.copy(out, at);
  at += value.length;
  out.writeInt32BE(contentType === null ? -1 : ctLen, at);
  at += 4;
  if (contentType !== null) contentType.copy(out, at);
  return out;
}

/** A RestValue's fields, or undefined when `data` is another identified type (or not well formed). */
export function decodeRestValue(data: Buffer): StoredForm | undefined {
  if (data.length < DATA_HEADER_BYTES + 9 + 8 || data[DATA_HEADER_BYTES] !== 1) return undefined;
  if (data.readInt32BE(DATA_HEADER_BYTES + 1) !== REST_VALUE_FACTORY || data.readInt32BE(DATA_HEADER_BYTES + 5) !== REST_VALUE_CLASS) return undefined;
  let at = DATA_HEADER_BYTES + 9;
  const readArray = (): Buffer | null | undefined => {
    if (at + 4 > data.length) return undefined;
    const n = data.readInt32BE(at);
    at += 4;
    if (n === -1) return null;
    if (n < 0 || at + n > data.length) return undefined;
    const b = data.subarray(at, at + n);
    at += n;
    return b;
  };
  const value = readArray();
  const ct = readArray();
  if (value === undefined || ct === undefined || at !== data.length) return undefined;
  // A REST value with a marker-like content type cannot come from HTTP: keep such Data byte-exact instead.
  if (ct !== null && ct[0] === 1) return undefined;
  return { value: (value ?? Buffer.alloc(0)).toString('latin1'), contentType: ct === null ? undefined : ct.toString('latin1') };
}
