import { afterEach, describe, expect, it, vi } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import {
  DEFAULT_MAX_FRAME_BYTES,
  encodeFrame,
  type Frame,
  FrameKind,
  FrameReader,
} from '../../../src/protocol/frame.js';
import { MEMBER_PREAMBLE } from '../../../src/protocol/preamble.js';
import { prng } from '../../support/prng.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');


function gridErrorOf(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError) return e;
    throw new Error(`expected a GridError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a GridError, nothing was thrown');
}

/** Pushes `stream` cut at the given offsets, each chunk a fresh copy; returns all frames. */
function feedCut(reader: FrameReader, stream: Uint8Array, cuts: number[]): Frame[] {
  const frames: Frame[] = [];
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    frames.push(...reader.push(Buffer.from(stream.subarray(from, to))));
    from = to;
  }
  return frames;
}

function feedBytewise(reader: FrameReader, stream: Uint8Array): Frame[] {
  const frames: Frame[] = [];
  for (let i = 0; i < stream.length; i++) frames.push(...reader.push(stream.subarray(i, i + 1)));
  return frames;
}

function randomCuts(rnd: () => number, length: number, maxChunk: number): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (;;) {
    at += 1 + Math.floor(rnd() * maxChunk);
    if (at >= length) return cuts;
    cuts.push(at);
  }
}

// The frame layout, pinned: u32 body length, u8 kind, u16 type, u32 call id, one value.
const FRAME_VECTORS: [string, Frame, string][] = [
  [
    'request',
    { kind: FrameKind.Request, type: 0x0102, callId: 7, payload: { k: 'v' } },
    '00000017 01 0102 00000007 09 00000001 00000001 6b 05 00000001 76',
  ],
  ['one-way', { kind: FrameKind.OneWay, type: 0xffff, callId: 0, payload: null }, '00000008 04 ffff 00000000 00'],
  [
    'response',
    { kind: FrameKind.Response, type: 0, callId: 0xffffffff, payload: [true, 1.5] },
    '00000016 02 0000 ffffffff 08 00000002 02 04 3ff8000000000000',
  ],
  [
    'error response',
    { kind: FrameKind.ErrorResponse, type: 9, callId: 0x01020304, payload: { code: 'INTERNAL' } },
    '00000021 03 0009 01020304 09 00000001 00000004 636f6465 05 00000008 494e5445524e414c',
  ],
];
const PINNED_STREAM = Buffer.concat(FRAME_VECTORS.map(([, , h]) => hex(h)));
const PINNED_FRAMES = FRAME_VECTORS.map(([, f]) => f);

/** Frames as their encodings: an exact comparison, and far faster than deep equality on big payloads. */
function wire(frames: readonly Frame[]): string[] {
  return frames.map((f) => encodeFrame(f.kind, f.type, f.callId, f.payload).toString('hex'));
}

function frameOf(kind: number, type: number, callId: number, payload: WireValue): Frame {
  return { kind, type, callId, payload };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('frames: pinned byte vectors', () => {
  it('keeps the kind values', () => {
    expect(FrameKind).toEqual({ Request: 1, Response: 2, ErrorResponse: 3, OneWay: 4 });
  });

  it.each(FRAME_VECTORS)('%s encodes to its pinned bytes', (_name, f, bytes) => {
    expect(encodeFrame(f.kind, f.type, f.callId, f.payload).toString('hex')).toBe(hex(bytes).toString('hex'));
  });

  it.each(FRAME_VECTORS)('%s decodes fed whole, byte by byte, and in random chunkings', (_name, f, h) => {
    const bytes = hex(h);
    expect(new FrameReader().push(bytes)).toEqual([f]);
    expect(feedBytewise(new FrameReader(), bytes)).toEqual([f]);
    const rnd = prng(bytes.length);
    for (let round = 0; round < 50; round++) {
      expect(feedCut(new FrameReader(), bytes, randomCuts(rnd, bytes.length, 6))).toEqual([f]);
    }
  });

  it('decodes all pinned frames from one chunk, bytewise, and at every split point', () => {
    expect(new FrameReader().push(PINNED_STREAM)).toEqual(PINNED_FRAMES);
    expect(feedBytewise(new FrameReader(), PINNED_STREAM)).toEqual(PINNED_FRAMES);
    for (let i = 0; i <= PINNED_STREAM.length; i++) {
      expect(feedCut(new FrameReader(), PINNED_STREAM, [i]), `split at ${i}`).toEqual(PINNED_FRAMES);
    }
  });

  it('decodes a stream cut at every pair of split points', () => {
    const stream = PINNED_STREAM.subarray(0, hex(FRAME_VECTORS[0]![2]).length + hex(FRAME_VECTORS[1]![2]).length);
    const expected = PINNED_FRAMES.slice(0, 2);
    for (let i = 0; i <= stream.length; i++) {
      for (let j = i; j <= stream.length; j++) {
        expect(feedCut(new FrameReader(), stream, [i, j]), `split at ${i}, ${j}`).toEqual(expected);
      }
    }
  });

  it('decodes chunks that are Uint8Array views, not Buffers', () => {
    const backing = new Uint8Array(PINNED_STREAM.length + 8);
    backing.set(PINNED_STREAM, 4);
    const view = new Uint8Array(backing.buffer, 4, PINNED_STREAM.length);
    expect(new FrameReader().push(view)).toEqual(PINNED_FRAMES);
    const reader = new FrameReader();
    const frames = [...reader.push(view.subarray(0, 30)), ...reader.push(view.subarray(30))];
    expect(frames).toEqual(PINNED_FRAMES);
  });
});

describe('frames: streaming', () => {
  const rnd = prng(0xf4a3e);
  const payloads: WireValue[] = [
    null,
    'x'.repeat(300),
    { map: 'customers', key: new Latin1('k\xff'), value: Buffer.from([1, 2, 3]) },
    [1, 2, 3, [4, [5]]],
    Buffer.alloc(70_000, 0xab),
    '😀'.repeat(100),
  ];
  const frames = payloads.map((p, i) =>
    i % 3 === 2 ? frameOf(FrameKind.OneWay, 40 + i, 0, p) : frameOf(FrameKind.Request, 40 + i, 1000 + i, p),
  );
  const stream = Buffer.concat(frames.map((f) => encodeFrame(f.kind, f.type, f.callId, f.payload)));

  it('decodes a stream of mixed frames in many random chunkings, with and without preamble', () => {
    const withPreamble = Buffer.concat([MEMBER_PREAMBLE, stream]);
    for (let round = 0; round < 40; round++) {
      const maxChunk = [1 << 16, 4096, 100, 7][round % 4]!;
      expect(wire(feedCut(new FrameReader(), stream, randomCuts(rnd, stream.length, maxChunk)))).toEqual(wire(frames));
      const reader = new FrameReader({ expectPreamble: true });
      expect(wire(feedCut(reader, withPreamble, randomCuts(rnd, withPreamble.length, maxChunk)))).toEqual(wire(frames));
      expect(reader.buffered).toBe(0);
    }
  });

  it('reports the bytes buffered of an incomplete frame', () => {
    const one = encodeFrame(FrameKind.Request, 1, 1, 'abc');
    const reader = new FrameReader();
    expect(reader.buffered).toBe(0);
    for (let i = 0; i < one.length - 1; i++) {
      expect(reader.push(one.subarray(i, i + 1))).toEqual([]);
      expect(reader.buffered).toBe(i + 1);
    }
    expect(reader.push(Buffer.concat([one.subarray(one.length - 1), one.subarray(0, 3)]))).toEqual([
      frameOf(1, 1, 1, 'abc'),
    ]);
    expect(reader.buffered).toBe(3);
    expect(reader.push(new Uint8Array(0))).toEqual([]);
    expect(reader.buffered).toBe(3);
  });

  it('joins a large frame arriving in many chunks once, not once per chunk', () => {
    const payload = Buffer.alloc(4 << 20);
    for (let i = 0; i < payload.length; i += 4096) payload[i] = i >>> 12;
    const big = encodeFrame(FrameKind.Response, 3, 99, { payload });
    const concat = vi.spyOn(Buffer, 'concat');
    const reader = new FrameReader();
    const got: Frame[] = [];
    for (let at = 0; at < big.length; at += 65_536) got.push(...reader.push(big.subarray(at, at + 65_536)));
    expect(concat).toHaveBeenCalledTimes(1);
    expect(got).toHaveLength(1);
    const decoded = got[0]!.payload as { payload: Buffer };
    expect(decoded.payload.equals(payload)).toBe(true);
  });

  it('decodes frames from one chunk without copying the chunk', () => {
    const concat = vi.spyOn(Buffer, 'concat');
    const got = new FrameReader().push(stream);
    expect(concat).not.toHaveBeenCalled();
    expect(wire(got)).toEqual(wire(frames));
    expect(got.map((f) => [f.kind, f.type, f.callId])).toEqual(frames.map((f) => [f.kind, f.type, f.callId]));
  });

  it('returns payload bytes that do not share the chunk memory', () => {
    // A chunk with an ArrayBuffer of its own (small Buffers share Node's allocation pool).
    const chunk = new Uint8Array(encodeFrame(FrameKind.Request, 1, 1, { bin: Buffer.from('abc') }));
    const [frame] = new FrameReader().push(chunk);
    const bin = (frame!.payload as { bin: Buffer }).bin;
    expect(bin.buffer).not.toBe(chunk.buffer);
    chunk.fill(0);
    expect(bin.toString()).toBe('abc');
  });
});

describe('frames: preamble', () => {
  const one = encodeFrame(FrameKind.OneWay, 2, 0, 'hello');

  it('accepts the preamble whole, split at every point, and together with frames', () => {
    const stream = Buffer.concat([MEMBER_PREAMBLE, one, one]);
    for (let i = 0; i <= stream.length; i++) {
      const reader = new FrameReader({ expectPreamble: true });
      expect(feedCut(reader, stream, [i]), `split at ${i}`).toHaveLength(2);
    }
    expect(feedBytewise(new FrameReader({ expectPreamble: true }), stream)).toHaveLength(2);
    const reader = new FrameReader({ expectPreamble: true });
    expect(reader.push(MEMBER_PREAMBLE)).toEqual([]);
    expect(reader.buffered).toBe(0);
    expect(reader.push(one)).toEqual([frameOf(4, 2, 0, 'hello')]);
  });

  it('refuses a wrong magic at every byte, as soon as the byte arrives', () => {
    for (let i = 0; i < MEMBER_PREAMBLE.length - 1; i++) {
      const bad = Buffer.from(MEMBER_PREAMBLE);
      bad[i] = bad[i]! ^ 0x20;
      const reader = new FrameReader({ expectPreamble: true });
      if (i > 0) expect(reader.push(bad.subarray(0, i))).toEqual([]);
      const err = gridErrorOf(() => reader.push(bad.subarray(i, i + 1)));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toContain('not a Grid member connection');
    }
    // An HTTP request sent to the member port by mistake.
    const err = gridErrorOf(() => new FrameReader({ expectPreamble: true }).push(Buffer.from('GET / HTTP/1.1\r\n')));
    expect(err.message).toContain('not a Grid member connection');
  });

  it('names both versions when the magic is right but the version is not', () => {
    const reader = new FrameReader({ expectPreamble: true });
    reader.push(MEMBER_PREAMBLE.subarray(0, 4));
    const err = gridErrorOf(() => reader.push(Uint8Array.of(2)));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toBe('member protocol version 2 is not supported (this member speaks 1)');
    expect(gridErrorOf(() => new FrameReader({ expectPreamble: true }).push(hex('0047524400'))).message).toBe(
      'member protocol version 0 is not supported (this member speaks 1)',
    );
  });

  it('expects no preamble unless asked to', () => {
    // Without a preamble expected, its bytes are a (wrong) frame length: 0x00475244 > the limit.
    const err = gridErrorOf(() => new FrameReader({ maxFrameBytes: 1 << 20 }).push(MEMBER_PREAMBLE));
    expect(err.message).toContain('exceeds the limit');
  });
});

describe('frames: errors', () => {
  it('rejects an oversize frame as soon as its 4 length bytes are in', () => {
    const reader = new FrameReader({ maxFrameBytes: 100 });
    expect(reader.push(hex('000000'))).toEqual([]);
    const err = gridErrorOf(() => reader.push(hex('65')));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toBe('frame of 101 bytes exceeds the limit of 100 bytes');
    // The limit itself is fine: the reader waits for the body.
    const ok = new FrameReader({ maxFrameBytes: 100 });
    expect(ok.push(hex('00000064'))).toEqual([]);
    expect(ok.buffered).toBe(4);
  });

  it('applies the 512 MiB default limit to the length field', () => {
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(512 * 1024 * 1024);
    const at = Buffer.alloc(4);
    at.writeUInt32BE(DEFAULT_MAX_FRAME_BYTES);
    expect(new FrameReader().push(at)).toEqual([]);
    const over = Buffer.alloc(4);
    over.writeUInt32BE(DEFAULT_MAX_FRAME_BYTES + 1);
    expect(gridErrorOf(() => new FrameReader().push(over)).message).toContain('exceeds the limit');
    expect(gridErrorOf(() => new FrameReader().push(hex('ffffffff'))).message).toContain('exceeds the limit');
  });

  it('rejects an oversize frame that follows a complete one in the same chunk', () => {
    const stream = Buffer.concat([encodeFrame(1, 1, 1, null), hex('7fffffff')]);
    expect(gridErrorOf(() => new FrameReader({ maxFrameBytes: 1000 }).push(stream)).code).toBe('BAD_REQUEST');
  });

  it('rejects a length shorter than the 7-byte header', () => {
    for (let n = 0; n < 7; n++) {
      const frame = Buffer.alloc(4 + 7);
      frame.writeUInt32BE(n);
      const err = gridErrorOf(() => new FrameReader().push(frame));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toBe(`frame length ${n} is shorter than the 7-byte frame header`);
    }
  });

  it('rejects a kind outside 1..4, fed whole or byte by byte', () => {
    for (const kind of [0, 5, 0x80, 0xff]) {
      const frame = hex(`00000008 ${kind.toString(16).padStart(2, '0')} 0001 00000001 00`);
      const err = gridErrorOf(() => new FrameReader().push(frame));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toBe(`frame kind ${kind} is not one of 1..4`);
      expect(gridErrorOf(() => feedBytewise(new FrameReader(), frame)).code).toBe('BAD_REQUEST');
    }
  });

  it('rejects a one-way frame with a call id', () => {
    const err = gridErrorOf(() => new FrameReader().push(hex('00000008 04 0001 00000005 00')));
    expect(err.message).toBe('one-way frame of type 1 carries call id 5, not 0');
  });

  it('rejects a payload that does not fill the frame exactly, or does not decode', () => {
    const trailing = hex('00000009 01 0002 00000003 00 00');
    let err = gridErrorOf(() => new FrameReader().push(trailing));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toBe('bad payload in frame of type 2, call 3: 1 trailing bytes after the value at offset 1');
    // The value would go on past the frame end into the next frame's bytes.
    const cut = Buffer.concat([hex('0000000a 01 0002 00000003 03 0000'), encodeFrame(1, 1, 1, null)]);
    err = gridErrorOf(() => new FrameReader().push(cut));
    expect(err.message).toMatch(/^bad payload in frame of type 2, call 3: input ends at offset 3/);
    expect(gridErrorOf(() => new FrameReader().push(hex('00000008 01 0002 00000003 ee'))).message).toBe(
      'bad payload in frame of type 2, call 3: unknown value tag 0xee at offset 0',
    );
    expect(gridErrorOf(() => new FrameReader().push(hex('00000007 01 0002 00000003'))).message).toContain(
      'in the middle of a value tag',
    );
  });

  it('every corruption of a frame body throws BAD_REQUEST or decodes, never anything else', () => {
    const rnd = prng(77);
    const valid = encodeFrame(FrameKind.Request, 12, 34, { a: [1, 'two', new Latin1('3')], b: Buffer.from([4]) });
    for (let round = 0; round < 2000; round++) {
      const bytes = Buffer.from(valid);
      const at = 4 + Math.floor(rnd() * (bytes.length - 4));
      bytes[at] = Math.floor(rnd() * 256);
      try {
        feedCut(new FrameReader(), bytes, randomCuts(rnd, bytes.length, 8));
      } catch (e) {
        expect(e).toBeInstanceOf(GridError);
        expect((e as GridError).code).toBe('BAD_REQUEST');
      }
    }
  });

  it('is unusable after an error', () => {
    const reader = new FrameReader();
    expect(() => reader.push(hex('00000000'))).toThrow(GridError);
    const err = gridErrorOf(() => reader.push(encodeFrame(1, 1, 1, null)));
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toContain('after a protocol error');
    expect(reader.buffered).toBe(0);
  });

  it('refuses to encode a frame its fields cannot carry', () => {
    for (const [kind, type, callId] of [
      [0, 1, 1],
      [5, 1, 1],
      [1.5, 1, 1],
      [1, -1, 1],
      [1, 0x10000, 1],
      [1, 1.5, 1],
      [1, 1, -1],
      [1, 1, 2 ** 32],
      [1, 1, NaN],
      [FrameKind.OneWay, 1, 1],
    ] as const) {
      const err = gridErrorOf(() => encodeFrame(kind, type, callId, null));
      expect(err.code, `${kind} ${type} ${callId}`).toBe('INTERNAL');
    }
    expect(gridErrorOf(() => encodeFrame(1, 1, 1, undefined as unknown as WireValue)).code).toBe('INTERNAL');
  });

  it('refuses a maxFrameBytes below the frame header', () => {
    expect(gridErrorOf(() => new FrameReader({ maxFrameBytes: 6 })).code).toBe('INTERNAL');
  });

  it('frames carry the payload encoding unchanged', () => {
    const payload: WireValue = { x: [1, 'y'] };
    const frame = encodeFrame(FrameKind.Request, 1, 2, payload);
    expect(frame.subarray(11).equals(encodeValue(payload))).toBe(true);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
  });
});
