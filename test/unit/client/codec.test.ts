import { describe, expect, it } from 'vitest';
import { MessageBuilder, MessageCursor, readBool, readInt32, readInt64, readUuid, requestHeader, writeUuid } from '../../../src/client/codec.js';
import { encodeMessage, Flag, FrameReader } from '../../../src/client/frame.js';
import { hz, hzUuid } from './hz-client.js';

const roundTrip = (b: MessageBuilder) => new FrameReader().push(encodeMessage(b.frames))[0]!;
const header = (): Buffer => Buffer.alloc(16);

describe('fixed-size fields', () => {
  it('UUIDs are 17 bytes: null flag, msb, lsb (as the client writes them)', () => {
    for (const text of ['00000000-0000-0000-0000-000000000000', 'b079e8bf-f481-48b0-a39f-619eb432e1ef', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '80000000-0000-0001-8000-000000000002']) {
      const mine = Buffer.alloc(17);
      writeUuid(mine, 0, text);
      const theirs = Buffer.alloc(17);
      hz.fixed.encodeUUID!(theirs, 0, hzUuid(text));
      expect(mine.toString('hex')).toBe(theirs.toString('hex'));
      expect(readUuid(theirs, 0)).toBe(text);
      expect(String(hz.fixed.decodeUUID!(mine, 0))).toBe(text);
    }
    const nul = Buffer.alloc(17, 0xaa);
    writeUuid(nul, 0, null);
    expect(nul.toString('hex')).toBe('01' + '00'.repeat(16));
    expect(readUuid(nul, 0)).toBeNull();
    expect(() => writeUuid(Buffer.alloc(17), 0, 'not-a-uuid')).toThrow(/not a UUID/);
  });

  it('reads little-endian ints, longs and booleans, and refuses reads past the frame', () => {
    const b = Buffer.from('feffffff' + '0100000000000080' + '01' + '02', 'hex');
    expect(readInt32(b, 0)).toBe(-2);
    expect(readInt64(b, 4)).toBe(-(2n ** 63n) + 1n);
    expect(readBool(b, 12)).toBe(true);
    expect(readBool(b, 13)).toBe(false); // only 1 is true, as in the clients
    expect(() => readInt32(b, 12, 'x')).toThrow(/x at 12 beyond a 14-byte frame/);
    expect(() => readInt64(b, 7)).toThrow(/beyond/);
    expect(() => readUuid(b, 0)).toThrow(/beyond/);
  });

  it('reads the request header', () => {
    const init = header();
    init.writeInt32LE(0x010200, 0);
    init.writeBigInt64LE(42n, 4);
    init.writeInt32LE(21, 12);
    expect(requestHeader([{ flags: Flag.UNFRAGMENTED, content: init }])).toEqual({ type: 0x010200, correlationId: 42n, partitionId: 21 });
    expect(() => requestHeader([])).toThrow(/no initial frame/);
  });
});

describe('MessageCursor and MessageBuilder', () => {
  it('round-trip strings, bytes, nullables, lists and entry lists', () => {
    const b = new MessageBuilder(header()).string('héllo').bytes(Buffer.from([1, 2])).nullFrame().string('x');
    b.list(['a', 'b'], (s) => b.string(s))
      .begin()
      .string('k')
      .bytes(Buffer.from([9]))
      .end()
      .list([], () => undefined);
    const c = new MessageCursor(roundTrip(b));
    expect(c.string()).toBe('héllo');
    expect([...c.bytes()]).toEqual([1, 2]);
    expect(c.nullable(() => c.string())).toBeNull();
    expect(c.nullable(() => c.string())).toBe('x');
    expect(c.list(() => c.string())).toEqual(['a', 'b']);
    expect(c.entryList(() => c.string(), () => [...c.bytes()])).toEqual([['k', [9]]]);
    expect(c.list(() => c.string())).toEqual([]);
  });

  it('skips unknown trailing fields of a structure up to its END', () => {
    const b = new MessageBuilder(header()).begin().string('known').string('unknown').begin().string('nested').end().end().string('after');
    const c = new MessageCursor(roundTrip(b));
    c.begin('struct');
    expect(c.string()).toBe('known');
    c.fastForwardToEnd();
    expect(c.string()).toBe('after');
  });

  it('refuses malformed shapes', () => {
    const nothing = new MessageCursor(roundTrip(new MessageBuilder(header())));
    expect(() => nothing.string('map name')).toThrow(/missing map name/);
    const nul = new MessageCursor(roundTrip(new MessageBuilder(header()).nullFrame()));
    expect(() => nul.string('name')).toThrow(/not a value frame/);
    const notList = new MessageCursor(roundTrip(new MessageBuilder(header()).string('a')));
    expect(() => notList.list(() => 'x', 'labels')).toThrow(/labels does not start with a BEGIN frame/);
    const open = new MessageCursor(roundTrip(new MessageBuilder(header()).begin().string('a')));
    expect(() => open.list(() => open.string(), 'labels')).toThrow(/without its END frame/);
    const shortData = new MessageCursor(roundTrip(new MessageBuilder(header()).bytes(Buffer.alloc(7))));
    expect(() => shortData.data('key')).toThrow(/key of 7 bytes/);
  });
});
