// The map messages of map-codecs.ts checked against the official client's own codecs
// (hazelcast-client 5.7.0): what its encoders write decodes here (fed whole and one byte at a
// time), and the responses built here decode with its decoders.

import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../../src/client/codec.js';
import { encodeMessage, FrameReader } from '../../../src/client/frame.js';
import { decodeMapRequest, entryListResponse, entryViewResponse, LONG_MAX, MapMessageId } from '../../../src/client/map-codecs.js';
import { hz, hzBytes, hzData, hzRead, Long, type HzMessage } from './hz-client.js';

const key = Buffer.from('00000000fffffff5000000026b31', 'hex');
const value = Buffer.from('00000000fffffff5000000027631', 'hex');
const other = Buffer.from('00000000fffffff5000000027632', 'hex');
const T = Long.fromNumber(0);
const L = (n: number) => Long.fromNumber(n);

function decode(m: unknown) {
  const bytes = hzBytes(m as HzMessage, 3, 21);
  const [msg] = new FrameReader().push(bytes);
  // The same message fed one byte at a time.
  const r = new FrameReader();
  let bytewise: unknown;
  for (let i = 0; i < bytes.length; i++) for (const x of r.push(bytes.subarray(i, i + 1))) bytewise = x;
  expect(bytewise).toEqual(msg);
  const h = requestHeader(msg!);
  return { type: h.type, req: decodeMapRequest(h.type, msg!) };
}

describe('map requests as the client encodes them', () => {
  it('the puts: ttl and max-idle (negative = the map default), the answer each wants', () => {
    const base = { kind: 'put', name: 'm', key, value };
    expect(decode(hz.mapPut.encodeRequest!('m', hzData(key), hzData(value), T, L(-1)))).toEqual({
      type: MapMessageId.Put,
      req: { ...base, ttlMs: -1, maxIdleMs: -1, when: 'always', answer: 'old' },
    });
    expect(decode(hz.mapSet.encodeRequest!('m', hzData(key), hzData(value), T, L(5000))).req).toEqual({ ...base, ttlMs: 5000, maxIdleMs: -1, when: 'always', answer: 'none' });
    expect(decode(hz.mapPutTransient.encodeRequest!('m', hzData(key), hzData(value), T, L(0))).req).toEqual({ ...base, ttlMs: 0, maxIdleMs: -1, when: 'always', answer: 'none' });
    expect(decode(hz.mapPutIfAbsent.encodeRequest!('m', hzData(key), hzData(value), T, L(7))).req).toEqual({ ...base, ttlMs: 7, maxIdleMs: -1, when: 'absent', answer: 'old' });
    expect(decode(hz.mapPutWithMaxIdle.encodeRequest!('m', hzData(key), hzData(value), T, L(100), L(200))).req).toEqual({ ...base, ttlMs: 100, maxIdleMs: 200, when: 'always', answer: 'old' });
    expect(decode(hz.mapSetWithMaxIdle.encodeRequest!('m', hzData(key), hzData(value), T, L(-5), L(300))).req).toEqual({ ...base, ttlMs: -1, maxIdleMs: 300, when: 'always', answer: 'none' });
    expect(decode(hz.mapPutTransientWithMaxIdle.encodeRequest!('m', hzData(key), hzData(value), T, L(1), L(2))).req).toEqual({ ...base, ttlMs: 1, maxIdleMs: 2, when: 'always', answer: 'none' });
    expect(decode(hz.mapPutIfAbsentWithMaxIdle.encodeRequest!('m', hzData(key), hzData(value), T, L(3), L(4))).req).toEqual({ ...base, ttlMs: 3, maxIdleMs: 4, when: 'absent', answer: 'old' });
    expect(decode(hz.mapReplace.encodeRequest!('m', hzData(key), hzData(value), T)).req).toEqual({ ...base, ttlMs: -1, maxIdleMs: -1, when: 'present', answer: 'old' });
    expect(decode(hz.mapTryPut.encodeRequest!('m', hzData(key), hzData(value), T, L(1000))).req).toEqual({ ...base, ttlMs: -1, maxIdleMs: -1, when: 'always', answer: 'applied' });
  });

  it('removes, the if-same forms, setTtl, getEntryView, getAll, putAll', () => {
    expect(decode(hz.mapRemove.encodeRequest!('m', hzData(key), T)).req).toEqual({ kind: 'remove', name: 'm', key, answer: 'old' });
    expect(decode(hz.mapTryRemove.encodeRequest!('m', hzData(key), T, L(10))).req).toEqual({ kind: 'remove', name: 'm', key, answer: 'applied' });
    expect(decode(hz.mapReplaceIfSame.encodeRequest!('m', hzData(key), hzData(value), hzData(other), T)).req).toEqual({ kind: 'replaceIfSame', name: 'm', key, testValue: value, value: other });
    expect(decode(hz.mapRemoveIfSame.encodeRequest!('m', hzData(key), hzData(value), T)).req).toEqual({ kind: 'removeIfSame', name: 'm', key, value });
    expect(decode(hz.mapSetTtl.encodeRequest!('m', hzData(key), L(2500))).req).toEqual({ kind: 'setTtl', name: 'm', key, ttlMs: 2500 });
    expect(decode(hz.mapGetEntryView.encodeRequest!('m', hzData(key), T)).req).toEqual({ kind: 'getEntryView', name: 'm', key });
    expect(decode(hz.mapGetAll.encodeRequest!('m', [hzData(key), hzData(other)])).req).toEqual({ kind: 'getAll', name: 'm', keys: [key, other] });
    expect(decode(hz.mapPutAll.encodeRequest!('m', [[hzData(key), hzData(value)], [hzData(other), hzData(value)]], true)).req).toEqual({
      kind: 'putAll',
      name: 'm',
      entries: [
        [key, value],
        [other, value],
      ],
    });
  });

  it('other types are not these; a truncated one is refused', () => {
    const [ping] = new FrameReader().push(Buffer.from('1600000000e0' + '000b0000' + '0100000000000000' + 'ffffffff', 'hex'));
    expect(decodeMapRequest(0x000b00, ping!)).toBeUndefined();
    expect(decodeMapRequest(0x010200, ping!)).toBeUndefined(); // Map.Get is request-codecs.ts'
    expect(() => decodeMapRequest(MapMessageId.Put, ping!)).toThrow(/ttl at 24 beyond/);
    const [put] = new FrameReader().push(hzBytes(hz.mapPut.encodeRequest!('m', hzData(key), hzData(value), T, L(-1)) as HzMessage));
    expect(() => decodeMapRequest(MapMessageId.Put, put!.slice(0, 3))).toThrow(/missing value/);
  });
});

describe('map responses the client decodes', () => {
  const read = (b: { frames: Parameters<typeof encodeMessage>[0] }) => hzRead(encodeMessage(b.frames));

  it('an entry list (GetAll)', () => {
    const got = hz.mapGetAll.decodeResponse!(read(entryListResponse(MapMessageId.GetAll, 9n, [[key, value], [other, value]]))) as [{ toBuffer(): Buffer }, { toBuffer(): Buffer }][];
    expect(got.map(([k, v]) => [k.toBuffer(), v.toBuffer()])).toEqual([
      [key, value],
      [other, value],
    ]);
    expect(hz.mapGetAll.decodeResponse!(read(entryListResponse(MapMessageId.GetAll, 9n, [])))).toEqual([]);
  });

  it('an entry view, and none', () => {
    const fields = {
      key,
      value,
      cost: 30n,
      creationTime: 1n,
      expirationTime: 1_700_000_005_000n,
      hits: 3n,
      lastAccessTime: 4n,
      lastStoredTime: 0n,
      lastUpdateTime: 1_700_000_000_000n,
      version: 7n,
      ttl: 5000n,
      maxIdle: LONG_MAX,
    };
    const r = hz.mapGetEntryView.decodeResponse!(read(entryViewResponse(MapMessageId.GetEntryView, 9n, fields))) as {
      maxIdle: { toString(): string };
      response: Record<string, { toString(): string; toBuffer?(): Buffer }>;
    };
    expect(r.maxIdle.toString()).toBe(LONG_MAX.toString());
    const v = r.response;
    expect(v.key!.toBuffer!()).toEqual(key);
    expect(v.value!.toBuffer!()).toEqual(value);
    for (const f of ['cost', 'creationTime', 'expirationTime', 'hits', 'lastAccessTime', 'lastStoredTime', 'lastUpdateTime', 'version', 'ttl', 'maxIdle'] as const) {
      expect([f, v[f]!.toString()]).toEqual([f, fields[f].toString()]);
    }
    expect((hz.mapGetEntryView.decodeResponse!(read(entryViewResponse(MapMessageId.GetEntryView, 9n, undefined))) as { response: unknown }).response).toBeNull();
  });
});
