// The map messages of the client protocol beyond get/containsKey/delete/size/clear (research
// note §5.2; every layout checked against hazelcast-client 5.7.0's lib/codec/Map*Codec.js):
// the puts with their TTL and max-idle, the conditional ones (putIfAbsent, replace,
// replaceIfSame, removeIfSame, tryPut, tryRemove), putAll, getAll, setTtl and getEntryView,
// decoded into plain objects, and the responses only they use (entry list, entry view). Pure.

import { MessageBuilder, MessageCursor, readInt64, REQUEST_FIXED_OFFSET, RESPONSE_FIXED_OFFSET, responseInitial } from './codec.js';
import type { ClientMessage } from './frame.js';
import { responseType } from './message-ids.js';

/** Message ids of these map messages (0x01MM00). */
export const MapMessageId = {
  Put: 0x010100,
  Remove: 0x010300,
  Replace: 0x010400,
  ReplaceIfSame: 0x010500,
  RemoveIfSame: 0x010800,
  TryRemove: 0x010b00,
  TryPut: 0x010c00,
  PutTransient: 0x010d00,
  PutIfAbsent: 0x010e00,
  Set: 0x010f00,
  GetEntryView: 0x011d00,
  GetAll: 0x012300,
  PutAll: 0x012c00,
  SetTtl: 0x014300,
  PutWithMaxIdle: 0x014400,
  PutTransientWithMaxIdle: 0x014500,
  PutIfAbsentWithMaxIdle: 0x014600,
  SetWithMaxIdle: 0x014700,
} as const;

/** Hazelcast's "no limit" in an entry view's times (expiration time, ttl, max-idle of an entry without them). */
export const LONG_MAX = 0x7fff_ffff_ffff_ffffn;

export type MapRequest =
  /** put, set, putTransient, putIfAbsent, replace (and their max-idle forms); `answer` is what the response carries. */
  | {
      readonly kind: 'put';
      readonly name: string;
      readonly key: Buffer;
      readonly value: Buffer;
      /** ms; -1 the map's default, 0 none (Hazelcast's put). */
      readonly ttlMs: number;
      readonly maxIdleMs: number;
      readonly when: 'always' | 'absent' | 'present';
      /** 'old': nullable old value (put, putIfAbsent, replace); 'none': empty (set, putTransient); 'applied': boolean (tryPut). */
      readonly answer: 'old' | 'none' | 'applied';
    }
  | { readonly kind: 'remove'; readonly name: string; readonly key: Buffer; readonly answer: 'old' | 'applied' }
  | { readonly kind: 'replaceIfSame'; readonly name: string; readonly key: Buffer; readonly testValue: Buffer; readonly value: Buffer }
  | { readonly kind: 'removeIfSame'; readonly name: string; readonly key: Buffer; readonly value: Buffer }
  | { readonly kind: 'setTtl'; readonly name: string; readonly key: Buffer; readonly ttlMs: number }
  | { readonly kind: 'getEntryView'; readonly name: string; readonly key: Buffer }
  | { readonly kind: 'getAll'; readonly name: string; readonly keys: Buffer[] }
  | { readonly kind: 'putAll'; readonly name: string; readonly entries: [Buffer, Buffer][] };

/** A TTL or max-idle from the wire as the map layer takes it: any negative is the map's default (-1). */
function ms(v: bigint): number {
  if (v < 0n) return -1;
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/** The map request a message carries; undefined when its type is not one of these. */
export function decodeMapRequest(type: number, m: ClientMessage): MapRequest | undefined {
  const c = new MessageCursor(m);
  const init = c.initial;
  // Fixed fields after the threadId (i64 at REQUEST_FIXED_OFFSET): ttl, then max-idle.
  const ttlAt = REQUEST_FIXED_OFFSET + 8;
  const maxIdleAt = REQUEST_FIXED_OFFSET + 16;
  switch (type) {
    case MapMessageId.Put:
    case MapMessageId.Set:
    case MapMessageId.PutTransient:
    case MapMessageId.PutIfAbsent:
    case MapMessageId.PutWithMaxIdle:
    case MapMessageId.SetWithMaxIdle:
    case MapMessageId.PutTransientWithMaxIdle:
    case MapMessageId.PutIfAbsentWithMaxIdle: {
      const withMaxIdle = type >= MapMessageId.PutWithMaxIdle;
      const ttlMs = ms(readInt64(init, ttlAt, 'ttl'));
      const maxIdleMs = withMaxIdle ? ms(readInt64(init, maxIdleAt, 'max-idle')) : -1;
      const absent = type === MapMessageId.PutIfAbsent || type === MapMessageId.PutIfAbsentWithMaxIdle;
      const old = absent || type === MapMessageId.Put || type === MapMessageId.PutWithMaxIdle;
      const name = c.string('map name');
      const key = c.data('key');
      const value = c.data('value');
      return { kind: 'put', name, key, value, ttlMs, maxIdleMs, when: absent ? 'absent' : 'always', answer: old ? 'old' : 'none' };
    }
    case MapMessageId.Replace: {
      const name = c.string('map name');
      const key = c.data('key');
      return { kind: 'put', name, key, value: c.data('value'), ttlMs: -1, maxIdleMs: -1, when: 'present', answer: 'old' };
    }
    case MapMessageId.TryPut: {
      // The timeout is for a lock Grid does not have: the put happens at once.
      const name = c.string('map name');
      const key = c.data('key');
      return { kind: 'put', name, key, value: c.data('value'), ttlMs: -1, maxIdleMs: -1, when: 'always', answer: 'applied' };
    }
    case MapMessageId.Remove:
    case MapMessageId.TryRemove: {
      const name = c.string('map name');
      return { kind: 'remove', name, key: c.data('key'), answer: type === MapMessageId.Remove ? 'old' : 'applied' };
    }
    case MapMessageId.ReplaceIfSame: {
      const name = c.string('map name');
      const key = c.data('key');
      const testValue = c.data('test value');
      return { kind: 'replaceIfSame', name, key, testValue, value: c.data('value') };
    }
    case MapMessageId.RemoveIfSame: {
      const name = c.string('map name');
      const key = c.data('key');
      return { kind: 'removeIfSame', name, key, value: c.data('value') };
    }
    case MapMessageId.SetTtl: {
      // No threadId: the ttl is the first fixed field.
      const ttlMs = ms(readInt64(init, REQUEST_FIXED_OFFSET, 'ttl'));
      const name = c.string('map name');
      return { kind: 'setTtl', name, key: c.data('key'), ttlMs };
    }
    case MapMessageId.GetEntryView: {
      const name = c.string('map name');
      return { kind: 'getEntryView', name, key: c.data('key') };
    }
    case MapMessageId.GetAll: {
      const name = c.string('map name');
      return { kind: 'getAll', name, keys: c.list(() => c.data('key'), 'keys') };
    }
    case MapMessageId.PutAll: {
      const name = c.string('map name');
      return { kind: 'putAll', name, entries: c.entryList(() => c.data('key'), () => c.data('value'), 'entries') };
    }
    default:
      return undefined;
  }
}

/** A list of (key, value) Data pairs: GetAll's response. */
export function entryListResponse(requestType: number, correlationId: bigint, entries: readonly (readonly [Buffer, Buffer])[]): MessageBuilder {
  const b = new MessageBuilder(responseInitial(responseType(requestType), correlationId));
  b.begin();
  for (const [k, v] of entries) b.bytes(k).bytes(v);
  return b.end();
}

/** What an entry view shows (Hazelcast's SimpleEntryView); times in epoch ms, LONG_MAX where there is no limit. */
export interface EntryViewFields {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly cost: bigint;
  readonly creationTime: bigint;
  readonly expirationTime: bigint;
  readonly hits: bigint;
  readonly lastAccessTime: bigint;
  readonly lastStoredTime: bigint;
  readonly lastUpdateTime: bigint;
  readonly version: bigint;
  readonly ttl: bigint;
  readonly maxIdle: bigint;
}

/** MapGetEntryView's response: the entry's max-idle as a fixed field, then a nullable SimpleEntryView (BEGIN, 10 longs, key, value, END). */
export function entryViewResponse(requestType: number, correlationId: bigint, v: EntryViewFields | undefined): MessageBuilder {
  const init = responseInitial(responseType(requestType), correlationId, 8);
  init.writeBigInt64LE(v === undefined ? 0n : v.maxIdle, RESPONSE_FIXED_OFFSET);
  const b = new MessageBuilder(init);
  if (v === undefined) return b.nullFrame();
  const fixed = Buffer.alloc(10 * 8);
  const longs = [v.cost, v.creationTime, v.expirationTime, v.hits, v.lastAccessTime, v.lastStoredTime, v.lastUpdateTime, v.version, v.ttl, v.maxIdle];
  for (let i = 0; i < longs.length; i++) fixed.writeBigInt64LE(longs[i]!, i * 8);
  return b.begin().frame(fixed).bytes(v.key).bytes(v.value).end();
}
