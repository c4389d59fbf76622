// CP atomic long requests as hazelcast-client 5.7.0's own encoders write them decode to Grid's
// AtomicLongRequest (whole and one byte at a time), and Grid's answers decode with the
// client's own decoders (long, boolean, RaftGroupId).

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { AtomicLongMessageId, decodeAtomicLongRequest, groupIdResponse, longResponse } from '../../../src/client/atomic-long-codecs.js';
import { requestHeader } from '../../../src/client/codec.js';
import { encodeMessage, FrameReader } from '../../../src/client/frame.js';
import { boolResponse } from '../../../src/client/request-codecs.js';
import { hzBytes, hzRead, Long, type HzMessage } from './hz-client.js';

const require = createRequire(import.meta.url);
type Codec = Record<string, (...args: unknown[]) => unknown>;
const codec = (name: string): Codec => (require(`hazelcast-client/lib/codec/${name}.js`) as Record<string, Codec>)[name]!;
const { RaftGroupId } = require('hazelcast-client/lib/proxy/cpsubsystem/RaftGroupId.js') as { RaftGroupId: new (name: string, seed: unknown, id: unknown) => { name: string; seed: { toString(): string }; id: { toString(): string } } };

const gid = new RaftGroupId('g1', Long.fromString('1234567'), Long.fromString('-3'));
const group = { seed: 1234567n, id: -3n, name: 'g1' };
const MAX = '9223372036854775807';

function decode(m: unknown, oneByteAtATime = false) {
  const bytes = hzBytes(m as HzMessage, 11, -1);
  const reader = new FrameReader();
  const msgs = oneByteAtATime ? [...bytes].flatMap((x) => reader.push(Buffer.from([x]))) : reader.push(bytes);
  const h = requestHeader(msgs[0]!);
  return { type: h.type, req: decodeAtomicLongRequest(h.type, msgs[0]!) };
}

describe('atomic long requests as the client encodes them', () => {
  const cases: [string, unknown[], number, unknown][] = [
    ['CPGroupCreateCPGroupCodec', ['counter@g1'], AtomicLongMessageId.CreateCpGroup, { kind: 'createGroup', proxyName: 'counter@g1' }],
    ['AtomicLongGetCodec', [gid, 'c'], AtomicLongMessageId.Get, { kind: 'get', group, name: 'c' }],
    ['AtomicLongAddAndGetCodec', [gid, 'c', Long.fromString('-5')], AtomicLongMessageId.AddAndGet, { kind: 'addAndGet', group, name: 'c', delta: -5n }],
    ['AtomicLongGetAndAddCodec', [gid, 'c', Long.fromString(MAX)], AtomicLongMessageId.GetAndAdd, { kind: 'getAndAdd', group, name: 'c', delta: BigInt(MAX) }],
    ['AtomicLongGetAndSetCodec', [gid, 'c', Long.fromString('42')], AtomicLongMessageId.GetAndSet, { kind: 'getAndSet', group, name: 'c', value: 42n }],
    ['AtomicLongCompareAndSetCodec', [gid, 'c', Long.fromString('1'), Long.fromString('2')], AtomicLongMessageId.CompareAndSet, { kind: 'compareAndSet', group, name: 'c', expected: 1n, updated: 2n }],
  ];
  for (const [name, args, type, want] of cases) {
    it(`${name} (whole and byte by byte)`, () => {
      expect(decode(codec(name).encodeRequest!(...args))).toEqual({ type, req: want });
      expect(decode(codec(name).encodeRequest!(...args), true)).toEqual({ type, req: want });
    });
  }

  it('a RaftGroupId cut short is refused; other types are not atomic long requests', () => {
    const [m] = new FrameReader().push(hzBytes(codec('AtomicLongGetCodec').encodeRequest!(gid, 'c') as HzMessage));
    expect(() => decodeAtomicLongRequest(AtomicLongMessageId.Get, m!.slice(0, 3))).toThrow(/missing/);
    expect(decodeAtomicLongRequest(0x030100, m!)).toBeUndefined();
  });
});

describe('answers the client decodes', () => {
  it('a long (Java long wrap), a boolean and a RaftGroupId', () => {
    const read = (b: { frames: Parameters<typeof encodeMessage>[0] }) => hzRead(encodeMessage(b.frames));
    const l = codec('AtomicLongAddAndGetCodec').decodeResponse!(read(longResponse(AtomicLongMessageId.AddAndGet, 3n, -9223372036854775808n))) as { toString(): string };
    expect(l.toString()).toBe('-9223372036854775808');
    expect(codec('AtomicLongCompareAndSetCodec').decodeResponse!(read(boolResponse(AtomicLongMessageId.CompareAndSet, 3n, true)))).toBe(true);
    const g = codec('CPGroupCreateCPGroupCodec').decodeResponse!(read(groupIdResponse(AtomicLongMessageId.CreateCpGroup, 4n, { seed: 77, id: 5, name: 'default' }))) as InstanceType<typeof RaftGroupId>;
    expect([g.name, g.seed.toString(), g.id.toString()]).toEqual(['default', '77', '5']);
  });
});
