// The queue change-event payloads (82-83, queue-event-payloads.ts; QueueEventInterest uses the
// map interest's whole-set form of event-payloads.ts): the wire shape and bytes pinned, each fed
// through the real value codec, and malformed batches refused naming the field.

import { describe, expect, it } from 'vitest';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import * as E from '../../../src/protocol/event-payloads.js';
import * as Q from '../../../src/protocol/queue-event-payloads.js';

const ADDED: Q.QueueEventPayload = { queueName: 'q', partitionId: 3, epoch: 2, sequence: 1, type: 'added', item: { value: 'v', contentType: 'text/plain' }, count: 1 };
const CLEARED: Q.QueueEventPayload = { queueName: 'q', partitionId: 3, epoch: 2, sequence: 2, type: 'cleared', item: undefined, count: 4 };
const REMOVED: Q.QueueEventPayload = { queueName: 'jobs', partitionId: 270, epoch: 9, sequence: 7, type: 'removed', item: { value: '\u0000\u00ff', contentType: undefined }, count: 1 };

const through = (v: WireValue): WireValue => decodeValue(encodeValue(v));

describe('queue event payloads', () => {
  it('QueueEvents: 8 values per event, items as Latin1, round trip through the wire codec', () => {
    const wire = Q.encodeQueueEvents([ADDED, CLEARED, REMOVED]);
    expect(wire).toEqual([
      'q', 3, 2, 1, 0, new Latin1('v'), 'text/plain', 1,
      'q', 3, 2, 2, 2, null, null, 4,
      'jobs', 270, 9, 7, 1, new Latin1('\u0000\u00ff'), null, 1,
    ]);
    expect(Q.decodeQueueEvents(through(wire))).toEqual([ADDED, CLEARED, REMOVED]);
    expect(Q.decodeQueueEvents(through(Q.encodeQueueEvents([])))).toEqual([]);
  });

  it('encode to the pinned bytes and decode from them', () => {
    const INTEREST = '080000000203000000050800000001050000000171';
    const EVENTS =
      '08000000100500000001710300000003030000000203000000010300000000060000000176050000000a746578742f706c61696e0300000001050000000171030000000303000000020300000002030000000200000300000004';
    expect(encodeValue(E.encodeEventInterest({ version: 5, maps: ['q'] })).toString('hex')).toBe(INTEREST);
    expect(E.decodeEventInterest(decodeValue(Buffer.from(INTEREST, 'hex')))).toEqual({ version: 5, maps: ['q'] });
    expect(encodeValue(Q.encodeQueueEvents([ADDED, CLEARED])).toString('hex')).toBe(EVENTS);
    expect(Q.decodeQueueEvents(decodeValue(Buffer.from(EVENTS, 'hex')))).toEqual([ADDED, CLEARED]);
  });

  it('malformed batches are refused, naming what is wrong', () => {
    const good = Q.encodeQueueEvents([ADDED]) as WireValue[];
    const bad = (i: number, v: WireValue): WireValue[] => good.map((x, j) => (j === i ? v : x));
    expect(() => Q.decodeQueueEvents(good.slice(0, 7))).toThrow(/whole number/);
    expect(() => Q.decodeQueueEvents(bad(4, 9))).toThrow(/unknown event type 9/);
    expect(() => Q.decodeQueueEvents(bad(1, 271))).toThrow(/partition id 271/);
    expect(() => Q.decodeQueueEvents(bad(1, -1))).toThrow(/partition id -1/);
    expect(() => Q.decodeQueueEvents(bad(5, 'not latin1'))).toThrow(/item/);
    expect(() => Q.decodeQueueEvents(bad(0, 3))).toThrow(/queue name/);
    expect(() => Q.decodeQueueEvents(bad(7, 'x'))).toThrow(/count/);
    expect(() => Q.decodeQueueEvents('x')).toThrow(/queue events/);
  });
});
