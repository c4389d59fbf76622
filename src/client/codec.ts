// The encodings of the client protocol (research note §1.3-§1.5): the initial frame's header and
// fixed-size fields (little-endian; a UUID is 17 bytes: null flag, msb, lsb), and the
// variable-size values that follow as frames of their own (string, byte array, Data, nullable,
// lists and entry lists between BEGIN and END frames). Pure: a MessageCursor reads a decoded
// message, a MessageBuilder writes one; every malformed shape is a BAD_REQUEST GridError.

import { GridError } from '../core/errors.js';
import { Flag, type ClientMessage, type Frame } from './frame.js';

export const TYPE_OFFSET = 0;
export const CORRELATION_OFFSET = 4;
export const PARTITION_OFFSET = 12;
/** Fixed parameters of a request start here. */
export const REQUEST_FIXED_OFFSET = 16;
export const BACKUP_ACKS_OFFSET = 12;
/** Fixed fields of a response start here (after type, correlation id and the backup-acks byte). */
export const RESPONSE_FIXED_OFFSET = 13;
/** Fixed fields of an event start here (after type, correlation id and partition id). */
export const EVENT_FIXED_OFFSET = 16;
export const UUID_BYTES = 17;

function malformed(what: string): GridError {
  return new GridError('BAD_REQUEST', `malformed client message: ${what}`);
}

// ------------------------------------------------------------ fixed-size fields

function need(buf: Buffer, offset: number, bytes: number, what: string): void {
  if (offset < 0 || offset + bytes > buf.length) throw malformed(`${what} at ${offset} beyond a ${buf.length}-byte frame`);
}

export function readInt32(buf: Buffer, offset: number, what = 'int'): number {
  need(buf, offset, 4, what);
  return buf.readInt32LE(offset);
}

export function readInt64(buf: Buffer, offset: number, what = 'long'): bigint {
  need(buf, offset, 8, what);
  return buf.readBigInt64LE(offset);
}

export function readBool(buf: Buffer, offset: number, what = 'boolean'): boolean {
  need(buf, offset, 1, what);
  // The clients write 1 or 0 and test `== 1`; so does this.
  return buf[offset] === 1;
}

export function readByte(buf: Buffer, offset: number, what = 'byte'): number {
  need(buf, offset, 1, what);
  return buf[offset]!;
}

/** A UUID as its canonical lower-case text, or null when its null flag is set. */
export function readUuid(buf: Buffer, offset: number, what = 'uuid'): string | null {
  need(buf, offset, UUID_BYTES, what);
  if (buf[offset] === 1) return null;
  const msb = BigInt.asUintN(64, buf.readBigInt64LE(offset + 1)).toString(16).padStart(16, '0');
  const lsb = BigInt.asUintN(64, buf.readBigInt64LE(offset + 9)).toString(16).padStart(16, '0');
  return `${msb.slice(0, 8)}-${msb.slice(8, 12)}-${msb.slice(12)}-${lsb.slice(0, 4)}-${lsb.slice(4)}`;
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function writeUuid(buf: Buffer, offset: number, uuid: string | null): void {
  if (uuid === null) {
    buf[offset] = 1;
    buf.fill(0, offset + 1, offset + UUID_BYTES);
    return;
  }
  if (!UUID_TEXT.test(uuid)) throw new GridError('INTERNAL', `not a UUID: ${uuid}`);
  const hex = uuid.replaceAll('-', '');
  buf[offset] = 0;
  buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), offset + 1);
  buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`)), offset + 9);
}

// ------------------------------------------------------------ header of a request

export interface RequestHeader {
  readonly type: number;
  readonly correlationId: bigint;
  readonly partitionId: number;
}

export function requestHeader(m: ClientMessage): RequestHeader {
  const init = m[0];
  if (init === undefined) throw malformed('no initial frame');
  return {
    type: readInt32(init.content, TYPE_OFFSET, 'message type'),
    correlationId: readInt64(init.content, CORRELATION_OFFSET, 'correlation id'),
    partitionId: readInt32(init.content, PARTITION_OFFSET, 'partition id'),
  };
}

// ------------------------------------------------------------ reading variable-size values

/** Reads the frames after the initial frame, in order. */
export class MessageCursor {
  private at = 1;

  constructor(private readonly m: ClientMessage) {}

  get initial(): Buffer {
    return this.m[0]!.content;
  }

  private next(what: string): Frame {
    const f = this.m[this.at];
    if (f === undefined) throw malformed(`missing ${what}`);
    this.at++;
    return f;
  }

  private peek(): Frame | undefined {
    return this.m[this.at];
  }

  string(what = 'string'): string {
    const f = this.next(what);
    if ((f.flags & (Flag.IS_NULL | Flag.BEGIN_DATA_STRUCTURE | Flag.END_DATA_STRUCTURE)) !== 0) throw malformed(`${what} is not a value frame`);
    return f.content.toString('utf8');
  }

  bytes(what = 'byte array'): Buffer {
    const f = this.next(what);
    if ((f.flags & (Flag.IS_NULL | Flag.BEGIN_DATA_STRUCTURE | Flag.END_DATA_STRUCTURE)) !== 0) throw malformed(`${what} is not a value frame`);
    return f.content;
  }

  /** A Data blob: the serialized form of a key or value (at least its 8-byte header). */
  data(what = 'data'): Buffer {
    const b = this.bytes(what);
    if (b.length < 8) throw malformed(`${what} of ${b.length} bytes (a Data blob has an 8-byte header)`);
    return b;
  }

  /** Null when the next frame is an IS_NULL frame (consumed), else `read()`. */
  nullable<T>(read: () => T): T | null {
    const f = this.peek();
    if (f !== undefined && (f.flags & Flag.IS_NULL) !== 0) {
      this.at++;
      return null;
    }
    return read();
  }

  /** BEGIN, items until END, END. */
  list<T>(read: () => T, what = 'list'): T[] {
    this.begin(what);
    const out: T[] = [];
    for (;;) {
      const f = this.peek();
      if (f === undefined) throw malformed(`${what} without its END frame`);
      if ((f.flags & Flag.END_DATA_STRUCTURE) !== 0) {
        this.at++;
        return out;
      }
      out.push(read());
    }
  }

  /** BEGIN, k1 v1 k2 v2 ..., END. */
  entryList<K, V>(readKey: () => K, readValue: () => V, what = 'entry list'): [K, V][] {
    return this.list((): [K, V] => [readKey(), readValue()], what);
  }

  begin(what: string): void {
    const f = this.next(`${what} BEGIN frame`);
    if ((f.flags & Flag.BEGIN_DATA_STRUCTURE) === 0) throw malformed(`${what} does not start with a BEGIN frame`);
  }

  /** Skip to just past the END frame that closes the structure this cursor is in (unknown trailing fields). */
  fastForwardToEnd(what = 'structure'): void {
    let depth = 1;
    while (depth > 0) {
      const f = this.next(`END frame of ${what}`);
      if ((f.flags & Flag.END_DATA_STRUCTURE) !== 0) depth--;
      else if ((f.flags & Flag.BEGIN_DATA_STRUCTURE) !== 0) depth++;
    }
  }
}

// ------------------------------------------------------------ writing

const NULL_FRAME: Frame = { flags: Flag.IS_NULL, content: Buffer.alloc(0) };
const BEGIN_FRAME: Frame = { flags: Flag.BEGIN_DATA_STRUCTURE, content: Buffer.alloc(0) };
const END_FRAME: Frame = { flags: Flag.END_DATA_STRUCTURE, content: Buffer.alloc(0) };

/** Builds a message frame by frame; the initial frame is given (its fixed fields filled by the caller). */
export class MessageBuilder {
  readonly frames: Frame[];

  constructor(initial: Buffer, flags: number = Flag.UNFRAGMENTED) {
    this.frames = [{ flags, content: initial }];
  }

  get initial(): Buffer {
    return this.frames[0]!.content;
  }

  string(s: string): this {
    this.frames.push({ flags: 0, content: Buffer.from(s, 'utf8') });
    return this;
  }

  bytes(b: Buffer): this {
    this.frames.push({ flags: 0, content: b });
    return this;
  }

  frame(content: Buffer): this {
    this.frames.push({ flags: 0, content });
    return this;
  }

  nullFrame(): this {
    this.frames.push(NULL_FRAME);
    return this;
  }

  nullableBytes(b: Buffer | null | undefined): this {
    return b === null || b === undefined ? this.nullFrame() : this.bytes(b);
  }

  begin(): this {
    this.frames.push(BEGIN_FRAME);
    return this;
  }

  end(): this {
    this.frames.push(END_FRAME);
    return this;
  }

  list<T>(items: Iterable<T>, write: (item: T) => void): this {
    this.begin();
    for (const item of items) write(item);
    return this.end();
  }
}

/** A response's initial frame: type, correlation id, backup acks 0, then `fixedBytes` zeroed bytes for its fields. */
export function responseInitial(type: number, correlationId: bigint, fixedBytes = 0): Buffer {
  const b = Buffer.alloc(RESPONSE_FIXED_OFFSET + fixedBytes);
  b.writeInt32LE(type, TYPE_OFFSET);
  b.writeBigInt64LE(correlationId, CORRELATION_OFFSET);
  return b;
}

/** An event's initial frame: type, the listener registration's correlation id, partition id, then `fixedBytes` zeroed bytes. */
export function eventInitial(type: number, correlationId: bigint, partitionId: number, fixedBytes = 0): Buffer {
  const b = Buffer.alloc(EVENT_FIXED_OFFSET + fixedBytes);
  b.writeInt32LE(type, TYPE_OFFSET);
  b.writeBigInt64LE(correlationId, CORRELATION_OFFSET);
  b.writeInt32LE(partitionId, PARTITION_OFFSET);
  return b;
}
