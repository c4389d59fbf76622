// Frames of the member protocol and the streaming reader that cuts them out of a TCP byte
// stream. Both are pure: the connection shell feeds socket chunks in and sends encoded frames
// out. Layout: u32 length (of what follows), u8 kind, u16 message type, u32 call id, payload.

import { GridError } from '../core/errors.js';
import { ValueReader, ValueWriter, type WireValue } from './codec.js';
import { MEMBER_PREAMBLE, MEMBER_PROTOCOL_VERSION } from './preamble.js';

// A plain object rather than a const enum, so the values survive per-file transpilers.
export const FrameKind = {
  Request: 1,
  Response: 2,
  ErrorResponse: 3,
  OneWay: 4,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

export interface Frame {
  readonly kind: number;
  readonly type: number;
  readonly callId: number;
  readonly payload: WireValue;
}

/** Bytes between the length field and the payload: kind, type, call id. */
const HEADER_BYTES = 7;
/** The largest frame body (everything after the 4 length bytes) a reader accepts by default. */
export const DEFAULT_MAX_FRAME_BYTES = 512 * 1024 * 1024;

/** The magic part of the preamble, before the version byte. */
const MAGIC_BYTES = MEMBER_PREAMBLE.length - 1;

export function encodeFrame(kind: number, type: number, callId: number, payload: WireValue): Buffer {
  const w = new ValueWriter();
  encodeFrameInto(w, kind, type, callId, payload);
  return w.finish();
}

/**
 * Appends one frame to `w` (several frames can share one writer and go out in one write). A
 * payload that cannot be encoded throws and leaves `w` as it was.
 */
export function encodeFrameInto(w: ValueWriter, kind: number, type: number, callId: number, payload: WireValue): void {
  if (!isKind(kind)) throw new GridError('INTERNAL', `frame kind ${kind} is not one of 1..4`);
  if (!(Number.isInteger(type) && type >= 0 && type <= 0xffff)) {
    throw new GridError('INTERNAL', `message type ${type} does not fit a u16`);
  }
  if (!(Number.isInteger(callId) && callId >= 0 && callId <= 0xffffffff)) {
    throw new GridError('INTERNAL', `call id ${callId} does not fit a u32`);
  }
  if (kind === FrameKind.OneWay && callId !== 0) {
    throw new GridError('INTERNAL', `a one-way frame carries call id 0, not ${callId}`);
  }
  const start = w.length;
  try {
    w.writeU32(0); // the length, patched below
    w.writeU8(kind);
    w.writeU16(type);
    w.writeU32(callId);
    w.write(payload);
    const body = w.length - start - 4;
    if (body > 0xffffffff) throw new GridError('INTERNAL', `frame of ${body} bytes does not fit the u32 length field`);
    w.patchU32(start, body);
  } catch (e) {
    w.truncate(start);
    throw e;
  }
}

function isKind(kind: number): boolean {
  return kind === 1 || kind === 2 || kind === 3 || kind === 4;
}

function readU32(b: Uint8Array, p: number): number {
  return (b[p] as number) * 0x1000000 + (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
}

/** Decodes the frame whose body (after the length field) is `buf[start, end)`. */
function decodeFrameBody(buf: Uint8Array, start: number, end: number): Frame {
  const kind = buf[start] as number;
  if (!isKind(kind)) throw new GridError('BAD_REQUEST', `frame kind ${kind} is not one of 1..4`);
  const type = ((buf[start + 1] as number) << 8) | (buf[start + 2] as number);
  const callId = readU32(buf, start + 3);
  if (kind === FrameKind.OneWay && callId !== 0) {
    throw new GridError('BAD_REQUEST', `one-way frame of type ${type} carries call id ${callId}, not 0`);
  }
  const payloadStart = start + HEADER_BYTES;
  let payload: WireValue;
  try {
    const r = new ValueReader(buf, payloadStart, end);
    payload = r.read();
    if (r.offset !== end) {
      throw new GridError('BAD_REQUEST', `${end - r.offset} trailing bytes after the value at offset ${r.offset - payloadStart}`);
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new GridError('BAD_REQUEST', `bad payload in frame of type ${type}, call ${callId}: ${message}`, { cause: e });
  }
  return { kind, type, callId, payload };
}

/**
 * Cuts frames out of a byte stream, chunk by chunk. Complete frames inside one chunk are
 * decoded in place; a frame spread over chunks is collected as a list and joined once, so a
 * large frame costs one copy whatever the chunking. The reader keeps references to chunks it
 * has not finished with: callers must not reuse a chunk's memory after pushing it (Node's
 * socket 'data' chunks are fresh buffers, so this holds for them).
 */
export class FrameReader {
  private maxFrameBytes: number;
  /** How many preamble bytes have been checked so far; MEMBER_PREAMBLE.length when done. */
  private preambleSeen: number;
  /** Pieces of the incomplete frame at the head of the stream, length field included. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The body length of the pending frame, or -1 while its 4 length bytes are incomplete. */
  private frameBytes = -1;
  private failure: GridError | undefined;

  constructor(opts: { maxFrameBytes?: number; expectPreamble?: boolean } = {}) {
    const max = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (!(Number.isInteger(max) && max >= HEADER_BYTES)) {
      throw new GridError('INTERNAL', `maxFrameBytes must be an integer of at least ${HEADER_BYTES}, not ${max}`);
    }
    this.maxFrameBytes = max;
    this.preambleSeen = opts.expectPreamble === true ? 0 : MEMBER_PREAMBLE.length;
  }
  /** Change the frame size limit (a connection gets the full limit once it has authenticated). */
  setMaxFrameBytes(max: number): void {
    if (!Number.isInteger(max) || max < HEADER_BYTES) throw new GridError('INTERNAL', `maxFrameBytes must be an integer of at least ${HEADER_BYTES}, not ${max}`);
    this.maxFrameBytes = max;
  }


  /** Bytes buffered but not yet part of a complete frame. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /**
   * Feed bytes as they arrive; returns the frames completed by this chunk (possibly none).
   * Throws GridError('BAD_REQUEST', ...) on a bad preamble, oversize frame, bad kind, or
   * undecodable payload; after a throw the reader is unusable (the connection will be closed).
   */
  push(chunk: Uint8Array): Frame[] {
    if (this.failure !== undefined) {
      throw new GridError('INTERNAL', `frame reader used after a protocol error: ${this.failure.message}`, { cause: this.failure });
    }
    try {
      return this.consume(chunk);
    } catch (e) {
      this.failure = e instanceof GridError ? e : new GridError('INTERNAL', String(e), { cause: e });
      this.pending = [];
      this.pendingBytes = 0;
      throw e;
    }
  }

  private consume(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    const end = chunk.length;
    if (end === 0) return frames;
    let off = 0;
    if (this.preambleSeen < MEMBER_PREAMBLE.length) {
      off = this.checkPreamble(chunk);
      if (off === end) return frames;
    }

    if (this.pendingBytes > 0) {
      off = this.continuePending(chunk, off, frames);
      if (off === end) return frames;
    }

    // Nothing pending: decode every complete frame straight out of the chunk.
    while (end - off >= 4) {
      const bodyBytes = this.checkLength(readU32(chunk, off));
      const frameEnd = off + 4 + bodyBytes;
      if (frameEnd > end) break;
      frames.push(decodeFrameBody(chunk, off + 4, frameEnd));
      off = frameEnd;
    }
    if (off < end) {
      // The start of the next frame: keep a view (no copy); it is joined once complete.
      this.pending.push(chunk.subarray(off));
      this.pendingBytes = end - off;
      if (this.pendingBytes >= 4) this.frameBytes = readU32(chunk, off); // checked in the loop
    }
    return frames;
  }

  /** Checks preamble bytes at the start of `chunk`; returns the offset after them. */
  private checkPreamble(chunk: Uint8Array): number {
    let off = 0;
    while (this.preambleSeen < MEMBER_PREAMBLE.length && off < chunk.length) {
      const i = this.preambleSeen;
      const got = chunk[off] as number;
      if (got !== MEMBER_PREAMBLE[i]) {
        if (i < MAGIC_BYTES) throw new GridError('BAD_REQUEST', 'not a Grid member connection (bad preamble)');
        throw new GridError(
          'BAD_REQUEST',
          `member protocol version ${got} is not supported (this member speaks ${MEMBER_PROTOCOL_VERSION})`,
        );
      }
      this.preambleSeen++;
      off++;
    }
    return off;
  }

  /** Adds bytes from `chunk` to the pending frame; returns the offset after what it took. */
  private continuePending(chunk: Uint8Array, off: number, frames: Frame[]): number {
    const end = chunk.length;
    if (this.frameBytes < 0) {
      const take = Math.min(4 - this.pendingBytes, end - off);
      this.pending.push(chunk.subarray(off, off + take));
      this.pendingBytes += take;
      off += take;
      if (this.pendingBytes < 4) return off;
      this.frameBytes = this.checkLength(this.pendingLength());
    }
    const total = 4 + this.frameBytes;
    const take = Math.min(total - this.pendingBytes, end - off);
    if (take > 0) {
      this.pending.push(chunk.subarray(off, off + take));
      this.pendingBytes += take;
      off += take;
    }
    if (this.pendingBytes < total) return off;

    const whole = this.pending.length === 1 ? (this.pending[0] as Uint8Array) : Buffer.concat(this.pending, total);
    this.pending = [];
    this.pendingBytes = 0;
    this.frameBytes = -1;
    frames.push(decodeFrameBody(whole, 4, total));
    return off;
  }

  /** The length field of the pending frame, whose first 4 bytes may be spread over pieces. */
  private pendingLength(): number {
    let v = 0;
    let got = 0;
    for (const piece of this.pending) {
      for (let i = 0; i < piece.length && got < 4; i++, got++) v = v * 256 + (piece[i] as number);
      if (got === 4) break;
    }
    return v;
  }

  /** Refuses a frame by its length field alone, before any of its body is buffered. */
  private checkLength(bodyBytes: number): number {
    if (bodyBytes < HEADER_BYTES) {
      throw new GridError('BAD_REQUEST', `frame length ${bodyBytes} is shorter than the ${HEADER_BYTES}-byte frame header`);
    }
    if (bodyBytes > this.maxFrameBytes) {
      throw new GridError('BAD_REQUEST', `frame of ${bodyBytes} bytes exceeds the limit of ${this.maxFrameBytes} bytes`);
    }
    return bodyBytes;
  }
}
