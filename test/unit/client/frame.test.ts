import { describe, expect, it } from 'vitest';
import { encodeMessage, Flag, FrameReader, type ClientMessage } from '../../../src/client/frame.js';
import { GridError } from '../../../src/core/errors.js';
import { CAPTURED_AUTH } from './vectors.js';

function feedWhole(bytes: Buffer): ClientMessage[] {
  return new FrameReader().push(bytes);
}

function feedByteByByte(bytes: Buffer): ClientMessage[] {
  const r = new FrameReader();
  const out: ClientMessage[] = [];
  for (let i = 0; i < bytes.length; i++) out.push(...r.push(bytes.subarray(i, i + 1)));
  expect(r.buffered).toBe(0);
  return out;
}

function frame(flags: number, content: Buffer): Buffer {
  const b = Buffer.alloc(6 + content.length);
  b.writeInt32LE(6 + content.length, 0);
  b.writeUInt16LE(flags, 4);
  content.copy(b, 6);
  return b;
}

const header16 = Buffer.alloc(16);

describe('FrameReader', () => {
  for (const [how, feed] of [
    ['whole', feedWhole],
    ['one byte at a time', feedByteByByte],
  ] as const) {
    it(`reads the captured ClientAuthentication (${how})`, () => {
      const [m, ...rest] = feed(CAPTURED_AUTH);
      expect(rest).toEqual([]);
      expect(m!.map((f) => f.flags)).toEqual([
        0xc100,
        0,
        Flag.IS_NULL,
        Flag.IS_NULL,
        0,
        0,
        0,
        Flag.BEGIN_DATA_STRUCTURE,
        Flag.END_DATA_STRUCTURE | Flag.IS_FINAL,
      ]);
      expect(m![0]!.content.length).toBe(34);
      expect(m![1]!.content.toString()).toBe('dev');
      expect(m![6]!.content.toString()).toBe('hz.client_0');
    });

    it(`splits pipelined messages (${how})`, () => {
      const two = Buffer.concat([CAPTURED_AUTH, frame(Flag.UNFRAGMENTED | Flag.IS_FINAL, header16)]);
      const ms = feed(two);
      expect(ms.map((m) => m.length)).toEqual([9, 1]);
    });
  }

  it('keeps a frame split across chunks, and copies chunks it keeps', () => {
    const r = new FrameReader();
    const chunk = Buffer.from(CAPTURED_AUTH.subarray(0, 50));
    expect(r.push(chunk)).toEqual([]);
    chunk.fill(0); // the reader must not have kept the caller's buffer
    const [m] = r.push(CAPTURED_AUTH.subarray(50));
    expect(m![1]!.content.toString()).toBe('dev');
  });

  it('refuses a frame shorter than its header', () => {
    const bad = Buffer.from('05000000c020', 'hex');
    expect(() => feedWhole(bad)).toThrow(GridError);
    expect(() => feedWhole(bad)).toThrow(/shorter than its 6-byte header/);
  });

  it('refuses fragmented messages (clients never send them)', () => {
    expect(() => feedWhole(frame(Flag.BEGIN_FRAGMENT, Buffer.alloc(8)))).toThrow(/fragmented/);
    expect(() => feedWhole(frame(Flag.END_FRAGMENT | Flag.IS_FINAL, Buffer.alloc(8)))).toThrow(/fragmented/);
    expect(() => feedWhole(frame(0, Buffer.alloc(16)))).toThrow(/fragmented/);
  });

  it('refuses an initial frame too short for type, correlation id and partition id', () => {
    expect(() => feedWhole(frame(Flag.UNFRAGMENTED | Flag.IS_FINAL, Buffer.alloc(15)))).toThrow(/initial frame of 15 bytes/);
    // A reader of responses accepts their 13-byte initial frames.
    expect(new FrameReader(undefined, 13).push(frame(Flag.UNFRAGMENTED | Flag.IS_FINAL, Buffer.alloc(13)))).toHaveLength(1);
  });

  it('refuses a message over the limit before buffering it', () => {
    const r = new FrameReader(100);
    const big = Buffer.alloc(6);
    big.writeInt32LE(1_000_000, 0);
    let err: unknown;
    try {
      r.push(big);
    } catch (e) {
      err = e;
    }
    expect((err as GridError).code).toBe('PAYLOAD_TOO_LARGE');
    // Frames of one message count together.
    const r2 = new FrameReader(60);
    r2.push(frame(Flag.UNFRAGMENTED, Buffer.alloc(40)));
    expect(() => r2.push(frame(0, Buffer.alloc(20)))).toThrow(/larger than 60/);
  });
});

describe('encodeMessage', () => {
  it('writes the frames and flags the last one IS_FINAL', () => {
    const bytes = encodeMessage([
      { flags: Flag.UNFRAGMENTED, content: header16 },
      { flags: Flag.BEGIN_DATA_STRUCTURE, content: Buffer.alloc(0) },
      { flags: Flag.END_DATA_STRUCTURE, content: Buffer.alloc(0) },
    ]);
    expect(bytes.toString('hex')).toBe('1600000000c0' + '00'.repeat(16) + '060000000010' + '060000000028');
    const [m] = feedWhole(bytes);
    expect(m!.map((f) => f.flags)).toEqual([Flag.UNFRAGMENTED, Flag.BEGIN_DATA_STRUCTURE, Flag.END_DATA_STRUCTURE | Flag.IS_FINAL]);
  });

  it('round-trips the captured request byte for byte', () => {
    const [m] = feedWhole(CAPTURED_AUTH);
    expect(encodeMessage(m!).equals(CAPTURED_AUTH)).toBe(true);
  });
});
