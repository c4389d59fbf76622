// Frames of Hazelcast's Open Binary Client Protocol: [int32 LE length incl. the 6-byte header]
// [uint16 LE flags][content]. A message is the frames up to the one flagged IS_FINAL. The reader
// is a pure state machine fed socket chunks of any size; it refuses what a client never sends
// (fragmented messages, frames shorter than their header, oversized messages) with a GridError,
// and the connection that fed it is closed (that connection only).

import { GridError } from '../core/errors.js';

export const FRAME_HEADER_BYTES = 6;

export const Flag = {
  BEGIN_FRAGMENT: 0x8000,
  END_FRAGMENT: 0x4000,
  UNFRAGMENTED: 0xc000,
  IS_FINAL: 0x2000,
  BEGIN_DATA_STRUCTURE: 0x1000,
  END_DATA_STRUCTURE: 0x0800,
  IS_NULL: 0x0400,
  IS_EVENT: 0x0200,
  BACKUP_AWARE: 0x0100,
  IS_BACKUP_EVENT: 0x0080,
} as const;

export interface Frame {
  readonly flags: number;
  readonly content: Buffer;
}

/** One whole message: its initial frame first. */
export type ClientMessage = readonly Frame[];

/**
 * The largest message a client may send. The clients never fragment, so one message holds a
 * whole putAll batch of a partition; beyond this the connection is closed rather than buffered.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** A request's initial frame holds at least type, correlation id and partition id. */
export const REQUEST_HEADER_BYTES = 16;

const EMPTY = Buffer.alloc(0);

/** Reassembles messages from socket chunks. */
export class FrameReader {
  private pending: Buffer = EMPTY;
  private frames: Frame[] = [];
  private messageBytes = 0;

  /** `minInitialBytes`: 16 for requests (type, correlation id, partition id); 13 to read responses (tests, tools). */
  constructor(
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
    private readonly minInitialBytes = REQUEST_HEADER_BYTES,
  ) {}

  /** Bytes of an unfinished frame or message held (0 between messages). */
  get buffered(): number {
    return this.pending.length + this.messageBytes;
  }

  /** Feed a chunk; returns the messages it completed, in order. Throws BAD_REQUEST on a malformed stream. */
  push(chunk: Uint8Array): ClientMessage[] {
    const out: ClientMessage[] = [];
    // Copy: the chunk may live in a shared read buffer, and frames keep slices of it.
    let buf = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    let at = 0;
    while (buf.length - at >= FRAME_HEADER_BYTES) {
      const length = buf.readInt32LE(at);
      if (length < FRAME_HEADER_BYTES) throw new GridError('BAD_REQUEST', `client frame length ${length} is shorter than its ${FRAME_HEADER_BYTES}-byte header`);
      if (this.messageBytes + length > this.maxMessageBytes) {
        throw new GridError('PAYLOAD_TOO_LARGE', `client message larger than ${this.maxMessageBytes} bytes`);
      }
      if (buf.length - at < length) break;
      const flags = buf.readUInt16LE(at + 4);
      const content = buf.subarray(at + FRAME_HEADER_BYTES, at + length);
      at += length;
      if (this.frames.length === 0) checkInitialFrame(flags, content, this.minInitialBytes);
      this.frames.push({ flags, content });
      this.messageBytes += length;
      if ((flags & Flag.IS_FINAL) !== 0) {
        out.push(this.frames);
        this.frames = [];
        this.messageBytes = 0;
      }
    }
    this.pending = at === buf.length ? EMPTY : buf.subarray(at);
    if (this.pending.length > 0 && at > 0 && this.pending.length < 4096) this.pending = Buffer.from(this.pending);
    buf = EMPTY;
    return out;
  }
}

function checkInitialFrame(flags: number, content: Buffer, minBytes: number): void {
  if ((flags & Flag.UNFRAGMENTED) !== Flag.UNFRAGMENTED) {
    // Clients never fragment (the research note, §1.6): a fragment here is a broken or foreign peer.
    throw new GridError('BAD_REQUEST', 'fragmented client messages are not accepted');
  }
  if (content.length < minBytes) {
    throw new GridError('BAD_REQUEST', `client message initial frame of ${content.length} bytes (at least ${minBytes})`);
  }
}

/** The bytes of a message; IS_FINAL is set on its last frame. */
export function encodeMessage(frames: readonly Frame[]): Buffer {
  let size = 0;
  for (const f of frames) size += FRAME_HEADER_BYTES + f.content.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i]!;
    const flags = i === frames.length - 1 ? f.flags | Flag.IS_FINAL : f.flags;
    out.writeInt32LE(FRAME_HEADER_BYTES + f.content.length, at);
    out.writeUInt16LE(flags, at + 4);
    f.content.copy(out, at + FRAME_HEADER_BYTES);
    at += FRAME_HEADER_BYTES + f.content.length;
  }
  return out;
}
