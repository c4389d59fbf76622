// Queue requests as hazelcast-client 5.7.0's own encoders write them decode to Grid's
// QueueRequest, and the List<Data> answer decodes with the client's own decoder; each fed
// whole and one byte at a time.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../../src/client/codec.js';
import { encodeMessage, FrameReader } from '../../../src/client/frame.js';
import { dataListResponse, decodeQueueRequest, QueueMessageId } from '../../../src/client/queue-codecs.js';
import { hzBytes, hzData, hzRead, Long, type HzMessage } from './hz-client.js';

const require = createRequire(import.meta.url);
type Codec = Record<string, (...args: unknown[]) => unknown>;
const codec = (name: string): Codec => (require(`hazelcast-client/lib/codec/${name}.js`) as Record<string, Codec>)[name]!;

const a = Buffer.from('00000000fffffff50000000161', 'hex');
const b = Buffer.from('00000000fffffff4000000030102ff', 'hex');

function decode(m: unknown, oneByteAtATime = false) {
  const bytes = hzBytes(m as HzMessage, 9, 229);
  const reader = new FrameReader();
  const msgs = oneByteAtATime ? [...bytes].flatMap((x) => reader.push(Buffer.from([x]))) : reader.push(bytes);
  expect(msgs).toHaveLength(1);
  const h = requestHeader(msgs[0]!);
  expect(h.correlationId).toBe(9n);
  return { type: h.type, req: decodeQueueRequest(h.type, msgs[0]!) };
}

describe('queue requests as the client encodes them', () => {
  const cases: [string, unknown[], number, unknown][] = [
    ['QueueOfferCodec', ['q', hzData(a), Long.fromNumber(1500)], QueueMessageId.Offer, { kind: 'offer', name: 'q', value: a, timeoutMs: 1500n }],
    ['QueuePutCodec', ['q', hzData(b)], QueueMessageId.Put, { kind: 'put', name: 'q', value: b }],
    ['QueuePollCodec', ['q', Long.fromNumber(-1)], QueueMessageId.Poll, { kind: 'poll', name: 'q', timeoutMs: -1n }],
    ['QueueTakeCodec', ['q'], QueueMessageId.Take, { kind: 'take', name: 'q' }],
    ['QueuePeekCodec', ['q'], QueueMessageId.Peek, { kind: 'peek', name: 'q' }],
    ['QueueSizeCodec', ['q'], QueueMessageId.Size, { kind: 'size', name: 'q' }],
    ['QueueIsEmptyCodec', ['q'], QueueMessageId.IsEmpty, { kind: 'isEmpty', name: 'q' }],
    ['QueueClearCodec', ['q'], QueueMessageId.Clear, { kind: 'clear', name: 'q' }],
    ['QueueRemainingCapacityCodec', ['q'], QueueMessageId.RemainingCapacity, { kind: 'remainingCapacity', name: 'q' }],
    ['QueueIteratorCodec', ['q'], QueueMessageId.Iterator, { kind: 'iterator', name: 'q' }],
    ['QueueDrainToCodec', ['q'], QueueMessageId.DrainTo, { kind: 'drain', name: 'q', max: -1 }],
    ['QueueDrainToMaxSizeCodec', ['q', 7], QueueMessageId.DrainToMaxSize, { kind: 'drain', name: 'q', max: 7 }],
    ['QueueAddAllCodec', ['q', [hzData(a), hzData(b)]], QueueMessageId.AddAll, { kind: 'addAll', name: 'q', values: [a, b] }],
    ['QueueContainsAllCodec', ['q', []], QueueMessageId.ContainsAll, { kind: 'containsAll', name: 'q', values: [] }],
    ['QueueContainsCodec', ['q', hzData(b)], QueueMessageId.Contains, { kind: 'containsAll', name: 'q', values: [b] }],
    ['QueueRemoveCodec', ['q', hzData(a)], QueueMessageId.Remove, { kind: 'remove', name: 'q', value: a }],
  ];
  for (const [name, args, type, want] of cases) {
    it(`${name} (whole and byte by byte)`, () => {
      expect(decode(codec(name).encodeRequest!(...args))).toEqual({ type, req: want });
      expect(decode(codec(name).encodeRequest!(...args), true)).toEqual({ type, req: want });
    });
  }

  it('a malformed queue request is refused; other types are not queue requests', () => {
    const [offer] = new FrameReader().push(hzBytes(codec('QueueOfferCodec').encodeRequest!('q', hzData(a), Long.fromNumber(0)) as HzMessage));
    // Without its value frame.
    expect(() => decodeQueueRequest(QueueMessageId.Offer, offer!.slice(0, 2))).toThrow(/missing value/);
    expect(decodeQueueRequest(0x010200, offer!)).toBeUndefined();
    // AddAll whose list never ends.
    const [addAll] = new FrameReader().push(hzBytes(codec('QueueAddAllCodec').encodeRequest!('q', [hzData(a)]) as HzMessage));
    expect(() => decodeQueueRequest(QueueMessageId.AddAll, addAll!.slice(0, addAll!.length - 1))).toThrow(/without its END/);
  });
});

describe('the List<Data> answer', () => {
  it('decodes with the client decoder of DrainTo and Iterator', () => {
    for (const [name, type] of [
      ['QueueDrainToMaxSizeCodec', QueueMessageId.DrainToMaxSize],
      ['QueueIteratorCodec', QueueMessageId.Iterator],
    ] as const) {
      const m = hzRead(encodeMessage(dataListResponse(type, 5n, [a, b]).frames));
      expect(m.getMessageType()).toBe(type + 1);
      expect(m.getCorrelationId().toString()).toBe('5');
      const got = codec(name).decodeResponse!(m) as { toBuffer(): Buffer }[];
      expect(got.map((d) => d.toBuffer().toString('hex'))).toEqual([a.toString('hex'), b.toString('hex')]);
      expect(codec(name).decodeResponse!(hzRead(encodeMessage(dataListResponse(type, 6n, []).frames)))).toEqual([]);
    }
  });
});
