// The change-event payloads (80-81): the wire shape pinned, each fed through the real value
// codec, and malformed shapes refused naming the field.

import { describe, expect, it } from 'vitest';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import * as E from '../../../src/protocol/event-payloads.js';

const UPDATED: E.MapEventPayload = {
  mapName: 'orders',
  partitionId: 21,
  epoch: 7,
  sequence: 42,
  type: 'updated',
  key: 'k1',
  oldValue: { value: 'v\u00e9', contentType: 'text/plain' },
  newValue: { value: '\u0000\u00ff', contentType: undefined },
  count: 1,
};
const CLEARED: E.MapEventPayload = { mapName: 'orders', partitionId: 0, epoch: 7, sequence: 43, type: 'cleared', key: undefined, oldValue: undefined, newValue: undefined, count: 12 };

const through = (v: WireValue): WireValue => decodeValue(encodeValue(v));

describe('event payloads', () => {
  it('EventInterest: [version, maps]', () => {
    expect(E.encodeEventInterest({ version: 1700000000000, maps: ['a', 'b'] })).toEqual([1700000000000, ['a', 'b']]);
    expect(E.decodeEventInterest(through(E.encodeEventInterest({ version: 3, maps: [] })))).toEqual({ version: 3, maps: [] });
    expect(() => E.decodeEventInterest([1, [2]])).toThrow(/maps\[0\]/);
    expect(() => E.decodeEventInterest(['x', []])).toThrow(/version/);
  });

  it('MapEvents: 11 values per event, values as Latin1, round trip through the wire codec', () => {
    const wire = E.encodeMapEvents([UPDATED, CLEARED]);
    expect(wire).toEqual([
      'orders', 21, 7, 42, 1, 'k1', new Latin1('v\u00e9'), 'text/plain', new Latin1('\u0000\u00ff'), null, 1,
      'orders', 0, 7, 43, 5, null, null, null, null, null, 12,
    ]);
    expect(E.decodeMapEvents(through(wire))).toEqual([UPDATED, CLEARED]);
    expect(E.decodeMapEvents(through(E.encodeMapEvents([])))).toEqual([]);
  });

  it('malformed batches are refused, naming what is wrong', () => {
    const good = E.encodeMapEvents([UPDATED]) as WireValue[];
    const bad = (i: number, v: WireValue): WireValue[] => good.map((x, j) => (j === i ? v : x));
    expect(() => E.decodeMapEvents(good.slice(0, 10))).toThrow(/whole number/);
    expect(() => E.decodeMapEvents(bad(4, 9))).toThrow(/unknown event type 9/);
    expect(() => E.decodeMapEvents(bad(1, 271))).toThrow(/partition id 271/);
    expect(() => E.decodeMapEvents(bad(6, 'not latin1'))).toThrow(/old value/);
    expect(() => E.decodeMapEvents(bad(0, 3))).toThrow(/map name/);
    expect(() => E.decodeMapEvents('x')).toThrow(/map events/);
  });
});

describe('event payloads on bytes', () => {
  const INTEREST = '08000000020300000005080000000105000000016d';
  const REMOVED = '080000000b05000000016d030000000303000000020300000001030000000205000000016b0600000001760000000300000001';
  const removed: E.MapEventPayload = { mapName: 'm', partitionId: 3, epoch: 2, sequence: 1, type: 'removed', key: 'k', oldValue: { value: 'v', contentType: undefined }, newValue: undefined, count: 1 };

  it('encode to the pinned bytes and decode from them', () => {
    expect(encodeValue(E.encodeEventInterest({ version: 5, maps: ['m'] })).toString('hex')).toBe(INTEREST);
    expect(encodeValue(E.encodeMapEvents([removed])).toString('hex')).toBe(REMOVED);
    expect(E.decodeEventInterest(decodeValue(Buffer.from(INTEREST, 'hex')))).toEqual({ version: 5, maps: ['m'] });
    expect(E.decodeMapEvents(decodeValue(Buffer.from(REMOVED, 'hex')))).toEqual([removed]);
  });

  it('every truncation of the bytes is refused, never misread', () => {
    for (const hex of [INTEREST, REMOVED]) {
      const bytes = Buffer.from(hex, 'hex');
      for (let n = 0; n < bytes.length; n++) expect(() => decodeValue(bytes.subarray(0, n)), `${n} bytes`).toThrow();
    }
  });

  it('event terms (the map-events and queue-events replica data) decode as triples, a wrong field named', () => {
    const data: WireValue = decodeValue(encodeValue(['m1', 3, 17, 'm2', 1, 0]));
    expect(E.decodeEventTerms(data, 'map event terms', 'map name')).toEqual([
      ['m1', { epoch: 3, sequence: 17 }],
      ['m2', { epoch: 1, sequence: 0 }],
    ]);
    expect(E.decodeEventTerms([], 'queue event terms', 'queue name')).toEqual([]);
    expect(() => E.decodeEventTerms([7, 1, 2], 'queue event terms', 'queue name')).toThrow(/queue name/);
    expect(() => E.decodeEventTerms(['q', 'x', 2], 'queue event terms', 'queue name')).toThrow(/epoch/);
    expect(() => E.decodeEventTerms('x', 'map event terms', 'map name')).toThrow(/map event terms/);
  });
});
