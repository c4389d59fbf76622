import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../../src/client/codec.js';
import { encodeMessage, FrameReader } from '../../../src/client/frame.js';
import { MessageId } from '../../../src/client/message-ids.js';
import { boolResponse, decodeDataRequest, intResponse, nullableDataResponse, storedValueResponseBytes } from '../../../src/client/request-codecs.js';
import { ClientContentType, dataOfStored, storedFormOf } from '../../../src/client/data.js';
import { hz, hzBytes, hzData, hzRead, Long, type HzMessage } from './hz-client.js';

const key = Buffer.from('00000000fffffff5000000026b31', 'hex');
const value = Buffer.from('00000000fffffff5000000027631', 'hex');
const T = Long.fromNumber(0);

function decode(m: unknown) {
  const [msg] = new FrameReader().push(hzBytes(m as HzMessage, 3, 21));
  const h = requestHeader(msg!);
  expect(h.correlationId).toBe(3n);
  expect(h.partitionId).toBe(21);
  return { type: h.type, req: decodeDataRequest(h.type, msg!) };
}

describe('map and queue requests as the client encodes them', () => {
  it('map messages', () => {
    for (const [c, kind] of [
      [hz.mapGet, 'map.get'],
      [hz.mapDelete, 'map.delete'],
      [hz.mapContainsKey, 'map.containsKey'],
    ] as const) {
      expect(decode(c.encodeRequest!('m', hzData(key), T)).req).toEqual({ kind, name: 'm', key });
    }
    for (const [c, kind] of [
      [hz.mapSize, 'map.size'],
      [hz.mapIsEmpty, 'map.isEmpty'],
      [hz.mapClear, 'map.clear'],
    ] as const) {
      expect(decode(c.encodeRequest!('m')).req).toEqual({ kind, name: 'm' });
    }
  });

  it('other message types are not data requests; malformed ones are refused', () => {
    const [ping] = new FrameReader().push(Buffer.from('1600000000e0' + '000b0000' + '0100000000000000' + 'ffffffff', 'hex'));
    expect(decodeDataRequest(0x000b00, ping!)).toBeUndefined();
    // A Map.Get without its key frame.
    expect(() => decodeDataRequest(MessageId.MapGet, ping!.slice(0, 1))).toThrow(/missing map name/);
    // Puts and removes are map-codecs.ts' (test/unit/client/map-codecs.test.ts).
    expect(decodeDataRequest(MessageId.MapPut, ping!)).toBeUndefined();
  });
});

describe('responses the client decodes', () => {
  const read = (b: { frames: Parameters<typeof encodeMessage>[0] }) => hzRead(encodeMessage(b.frames));

  it('nullable Data', () => {
    const some = read(nullableDataResponse(MessageId.MapGet, 4n, value));
    expect(some.getMessageType()).toBe(MessageId.MapGet + 1);
    expect((hz.mapGet.decodeResponse!(some) as { toBuffer(): Buffer }).toBuffer().equals(value)).toBe(true);
    expect(hz.mapGet.decodeResponse!(read(nullableDataResponse(MessageId.MapGet, 4n, undefined)))).toBeNull();
    expect(hz.queuePoll.decodeResponse!(read(nullableDataResponse(MessageId.QueuePoll, 4n, undefined)))).toBeNull();
  });

  it('booleans and ints', () => {
    expect(hz.mapContainsKey.decodeResponse!(read(boolResponse(MessageId.MapContainsKey, 1n, true)))).toBe(true);
    expect(hz.mapContainsKey.decodeResponse!(read(boolResponse(MessageId.MapContainsKey, 1n, false)))).toBe(false);
    expect(hz.queueOffer.decodeResponse!(read(boolResponse(MessageId.QueueOffer, 1n, true)))).toBe(true);
    expect(hz.mapSize.decodeResponse!(read(intResponse(MessageId.MapSize, 1n, 123456)))).toBe(123456);
  });
});

describe('a get answer encoded straight into its bytes (storedValueResponseBytes)', () => {
  const latin1 = (b: Buffer) => b.toString('latin1');
  const cases: [string, string | undefined, string | undefined][] = [
    ['no entry', undefined, undefined],
    ['a client String', 'v1', ClientContentType.STRING],
    ['an empty client String', '', ClientContentType.STRING],
    ['a client String with bytes past ASCII (UTF-8 kept as latin1 chars)', latin1(Buffer.from('héllo €', 'utf8')), ClientContentType.STRING],
    ['client JSON', '{"a":[1,2]}', ClientContentType.JSON],
    ['a client byte[] with every byte value', latin1(Buffer.from(Array.from({ length: 256 }, (_, i) => i))), ClientContentType.BYTE_ARRAY],
    ['another client type kept as its whole Data', latin1(Buffer.from('00000000fffffff94009000000000000', 'hex')), ClientContentType.DATA],
    ['a REST value with a content type', 'hello', 'text/plain'],
    ['a REST value without one', 'raw', undefined],
    ['a 100 KiB client String', 'x'.repeat(100 * 1024), ClientContentType.STRING],
  ];
  for (const [what, v, ct] of cases) {
    it(`${what}: the same bytes as the frames of nullableDataResponse`, () => {
      const general = encodeMessage(nullableDataResponse(MessageId.MapGet, 0x1122334455667788n, v === undefined ? undefined : dataOfStored(v, ct)).frames);
      expect(storedValueResponseBytes(MessageId.MapGet, 0x1122334455667788n, v, ct).equals(general)).toBe(true);
    });
  }

  it('reads back in the Node client as the value the client wrote', () => {
    const read = (b: Buffer) => hz.mapGet.decodeResponse!(hzRead(b)) as { toBuffer(): Buffer } | null;
    const stored = storedFormOf(value);
    expect(read(storedValueResponseBytes(MessageId.MapGet, 9n, stored.value, stored.contentType))!.toBuffer().equals(value)).toBe(true);
    expect(read(storedValueResponseBytes(MessageId.MapGet, 9n, undefined, undefined))).toBeNull();
  });
});
