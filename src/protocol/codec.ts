// The tagged binary value codec of the member protocol: every payload between members is one
// WireValue. It is pure and sits on the request hot path, so the writer encodes straight into
// one growable Buffer and the reader decodes in place, without JSON or intermediate arrays.

import { GridError } from '../core/errors.js';

/**
 * A byte string: each char code 0..255 is one byte on the wire. Keys and values that came in
 * as raw bytes travel as Latin1 so they round-trip byte-exactly, whatever their encoding.
 */
export class Latin1 {
  constructor(readonly s: string) {}
}

export type WireValue =
  | null
  | boolean
  | number
  | string
  | Latin1
  | Uint8Array
  | readonly WireValue[]
  | { readonly [k: string]: WireValue };

/** Tag bytes. The values are the wire format: never renumber them. */
const TAG_NULL = 0x00;
const TAG_FALSE = 0x01;
const TAG_TRUE = 0x02;
const TAG_INT32 = 0x03;
const TAG_FLOAT64 = 0x04;
const TAG_STRING = 0x05;
const TAG_LATIN1 = 0x06;
const TAG_BYTES = 0x07;
const TAG_ARRAY = 0x08;
const TAG_OBJECT = 0x09;

/**
 * Arrays and objects may nest this deep. The decoder recurses, so a peer must not be able to
 * exhaust the stack; the encoder enforces the same limit so we never send what the peer
 * refuses (and so a cyclic value fails cleanly instead of overflowing the stack).
 */
export const MAX_VALUE_DEPTH = 64;

const MAX_U32 = 0xffffffff;
/** Up to this length a JS loop beats the native Buffer write call (measured on Node 20). */
const SHORT_ENCODE = 16;
/**
 * Up to this length building an ASCII string char by char beats the native decoder. V8 makes
 * a concatenation of 13 chars or more a cons string (a tree that pins its parts), so stop at 12.
 */
const SHORT_DECODE = 12;
/** Up to this many chars we reserve the 3-bytes-per-unit worst case instead of measuring. */
const RESERVE_WORST_CASE_CHARS = 1 << 20;
const NOT_LATIN1 = /[\u0100-\uffff]/;

// Buffer's per-encoding methods skip the encoding dispatch of write()/toString(). They are
// not in @types/node but have been on Buffer.prototype since Node 0.x.
interface FastBuffer extends Buffer {
  utf8Write(s: string, offset: number, length?: number): number;
  latin1Write(s: string, offset: number, length?: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

function asFastBuffer(bytes: Uint8Array): FastBuffer {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b as FastBuffer;
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** "undefined", "a bigint", "a Map": for error messages. */
function describeType(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v !== 'object' || v === null) return `a ${typeof v}`;
  const ctor = (v as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' ? `a ${ctor.name}` : 'an object of another class';
}

/**
 * Encodes WireValues (and the raw fields a frame header needs) into one Buffer that grows
 * geometrically. Call `finish()` once at the end; it returns a view of the internal buffer.
 */
export class ValueWriter {
  private buf: FastBuffer;
  private pos = 0;

  constructor(sizeHint = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(16, sizeHint)) as FastBuffer;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** The bytes written, as a view of the internal buffer. Do not write after calling this. */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Drops everything written after the first `length` bytes (undoes a value that failed half-way). */
  truncate(length: number): void {
    if (length < 0 || length > this.pos) throw new GridError('INTERNAL', `truncate to ${length} outside the ${this.pos} bytes written`);
    this.pos = length;
  }

  /** Raw bytes, no length, no tag (bytes already encoded elsewhere). */
  writeRaw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2)) as FastBuffer;
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  writeU8(v: number): void {
    this.reserve(1);
    this.buf[this.pos++] = v;
  }

  writeU16(v: number): void {
    this.reserve(2);
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
  }

  writeU32(v: number): void {
    this.reserve(4);
    this.putU32(this.pos, v);
    this.pos += 4;
  }

  /** Overwrites 4 bytes already written at `at` (a length known only after its content). */
  patchU32(at: number, v: number): void {
    if (at < 0 || at + 4 > this.pos) throw new GridError('INTERNAL', `patchU32 at ${at} outside the ${this.pos} bytes written`);
    this.putU32(at, v);
  }

  writeI32(v: number): void {
    this.writeU32(v >>> 0);
  }

  writeF64(v: number): void {
    this.reserve(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }

  /** u32 byte length + UTF-8, no tag (object keys, and the body of a string value). */
  writeUtf8(s: string): void {
    const n = s.length;
    if (n <= SHORT_ENCODE) {
      this.reserve(4 + n * 3);
      const b = this.buf;
      const start = this.pos + 4;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[start + i] = c;
      }
      // Non-ASCII: let the native encoder redo it (it writes U+FFFD for lone surrogates).
      const bytes = i === n ? n : b.utf8Write(s, start, n * 3);
      this.putU32(this.pos, bytes);
      this.pos = start + bytes;
      return;
    }
    // One pass: reserve the worst case (a UTF-16 unit never needs more than 3 bytes), write,
    // then fill in the length. Huge strings are measured first to avoid a 3x reservation.
    const room = n <= RESERVE_WORST_CASE_CHARS ? n * 3 : Buffer.byteLength(s, 'utf8');
    this.reserve(4 + room);
    const bytes = this.buf.utf8Write(s, this.pos + 4, room);
    this.putU32(this.pos, bytes);
    this.pos += 4 + bytes;
  }

  /** u32 length + one byte per char, no tag. Throws if a char is above 0xff. */
  writeLatin1(s: string): void {
    const n = s.length;
    this.reserve(4 + n);
    const b = this.buf;
    const start = this.pos + 4;
    if (n <= SHORT_ENCODE) {
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0xff) throw notLatin1();
        b[start + i] = c;
      }
    } else {
      // Cheap: V8 answers this without scanning for strings it already stores one byte per char.
      if (NOT_LATIN1.test(s)) throw notLatin1();
      b.latin1Write(s, start, n);
    }
    this.putU32(this.pos, n);
    this.pos = start + n;
  }

  /** u32 length + the bytes, no tag. */
  writeBytes(bytes: Uint8Array): void {
    const n = bytes.length;
    this.writeLength(n);
    this.reserve(n);
    this.buf.set(bytes, this.pos);
    this.pos += n;
  }

  /** Encodes one tagged value. */
  write(v: WireValue): void {
    this.writeValue(v, 0);
  }

  private writeValue(v: WireValue, depth: number): void {
    switch (typeof v) {
      case 'number':
        // int32 unless it is -0 (which `v | 0` would turn into 0).
        if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
          this.reserve(5);
          this.buf[this.pos] = TAG_INT32;
          this.putU32(this.pos + 1, v >>> 0);
          this.pos += 5;
        } else {
          this.reserve(9);
          this.buf[this.pos] = TAG_FLOAT64;
          this.buf.writeDoubleBE(v, this.pos + 1);
          this.pos += 9;
        }
        return;
      case 'string':
        this.writeU8(TAG_STRING);
        this.writeUtf8(v);
        return;
      case 'boolean':
        this.writeU8(v ? TAG_TRUE : TAG_FALSE);
        return;
      case 'object':
        if (v === null) {
          this.writeU8(TAG_NULL);
          return;
        }
        if (v instanceof Uint8Array) {
          this.writeU8(TAG_BYTES);
          this.writeBytes(v);
          return;
        }
        if (v instanceof Latin1) {
          this.writeU8(TAG_LATIN1);
          this.writeLatin1(v.s);
          return;
        }
        if (depth >= MAX_VALUE_DEPTH) {
          throw new GridError('INTERNAL', `cannot encode a value nested deeper than ${MAX_VALUE_DEPTH} (or a cyclic value)`);
        }
        if (Array.isArray(v)) {
          const items = v as readonly WireValue[];
          const n = items.length;
          this.writeU8(TAG_ARRAY);
          this.writeLength(n);
          for (let i = 0; i < n; i++) this.writeValue(items[i] as WireValue, depth + 1);
          return;
        }
        if (isPlainObject(v)) {
          const obj = v as { readonly [k: string]: WireValue };
          const keys = Object.keys(obj);
          const n = keys.length;
          this.writeU8(TAG_OBJECT);
          this.writeLength(n);
          for (let i = 0; i < n; i++) {
            const k = keys[i] as string;
            this.writeUtf8(k);
            this.writeValue(obj[k] as WireValue, depth + 1);
          }
          return;
        }
        throw new GridError('INTERNAL', `cannot encode ${describeType(v)} as a wire value`);
      default:
        throw new GridError('INTERNAL', `cannot encode ${describeType(v)} as a wire value`);
    }
  }

  private writeLength(n: number): void {
    if (n > MAX_U32) throw new GridError('INTERNAL', `length ${n} does not fit the u32 length field`);
    this.writeU32(n);
  }

  private putU32(at: number, v: number): void {
    const b = this.buf;
    b[at] = v >>> 24;
    b[at + 1] = v >>> 16;
    b[at + 2] = v >>> 8;
    b[at + 3] = v;
  }
}

function notLatin1(): GridError {
  return new GridError('INTERNAL', 'cannot encode a Latin1 string with a char above 0xff');
}

/**
 * Decodes tagged values from `buf[offset, end)` without copying it. Errors are
 * GridError('BAD_REQUEST') with offsets counted from the reader's start offset. Strings and
 * byte arrays it returns are copies, so they never keep `buf` alive.
 */
export class ValueReader {
  private readonly buf: FastBuffer;
  private readonly start: number;
  private readonly end: number;
  private pos: number;

  constructor(buf: Uint8Array, offset = 0, end = buf.length) {
    if (!(offset >= 0 && offset <= end && end <= buf.length)) {
      throw new GridError('INTERNAL', `ValueReader range [${offset}, ${end}) is outside a buffer of ${buf.length} bytes`);
    }
    this.buf = asFastBuffer(buf);
    this.start = offset;
    this.pos = offset;
    this.end = end;
  }

  /** The position of the next unread byte, as an index into the buffer given. */
  get offset(): number {
    return this.pos;
  }

  read(): WireValue {
    return this.readValue(0);
  }

  private readValue(depth: number): WireValue {
    this.need(1, 'a value tag');
    const at = this.pos;
    const tag = this.buf[this.pos++] as number;
    switch (tag) {
      case TAG_NULL:
        return null;
      case TAG_FALSE:
        return false;
      case TAG_TRUE:
        return true;
      case TAG_INT32: {
        this.need(4, 'an int32');
        const b = this.buf;
        const p = this.pos;
        this.pos = p + 4;
        return ((b[p] as number) << 24) | ((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number);
      }
      case TAG_FLOAT64: {
        this.need(8, 'a float64');
        const v = this.buf.readDoubleBE(this.pos);
        this.pos += 8;
        return v;
      }
      case TAG_STRING:
        return this.readUtf8('a string');
      case TAG_LATIN1: {
        const n = this.readLength('a Latin1 string', 1);
        const s = this.buf.latin1Slice(this.pos, this.pos + n);
        this.pos += n;
        return new Latin1(s);
      }
      case TAG_BYTES: {
        const n = this.readLength('a byte array', 1);
        // A copy, so that a small value kept in a map does not pin the whole frame.
        const out = Buffer.allocUnsafe(n);
        this.buf.copy(out, 0, this.pos, this.pos + n);
        this.pos += n;
        return out;
      }
      case TAG_ARRAY: {
        this.checkDepth(depth, at);
        // Each item takes at least its tag byte: a count the input cannot hold is refused
        // before anything is allocated for it.
        const n = this.readLength('an array', 1, 'items');
        const out: WireValue[] = [];
        for (let i = 0; i < n; i++) out.push(this.readValue(depth + 1));
        return out;
      }
      case TAG_OBJECT: {
        this.checkDepth(depth, at);
        const n = this.readLength('an object', 5, 'entries'); // key length + value tag at least
        const out: { [k: string]: WireValue } = {};
        for (let i = 0; i < n; i++) {
          const key = this.readUtf8('an object key');
          const value = this.readValue(depth + 1);
          // A plain assignment to "__proto__" would replace the prototype instead.
          if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
          else out[key] = value;
        }
        return out;
      }
      default:
        throw this.bad(`unknown value tag 0x${tag.toString(16).padStart(2, '0')} at offset ${at - this.start}`);
    }
  }

  private readUtf8(what: string): string {
    const n = this.readLength(what, 1);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + n;
    if (n <= SHORT_DECODE) {
      let s = '';
      for (let i = p; i < p + n; i++) {
        const c = b[i] as number;
        if (c >= 0x80) return b.utf8Slice(p, p + n);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return b.utf8Slice(p, p + n);
  }

  /**
   * Reads a u32 length or count and checks that the rest of the input can hold it, at
   * `unitBytes` bytes per unit at least, so a lying length fails before any allocation.
   */
  private readLength(what: string, unitBytes: number, unit = 'bytes'): number {
    this.need(4, `the length of ${what}`);
    const b = this.buf;
    const p = this.pos;
    const n = (b[p] as number) * 0x1000000 + (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
    this.pos = p + 4;
    const left = this.end - this.pos;
    if (n * unitBytes > left) {
      throw this.bad(`the length of ${what} at offset ${p - this.start} is ${n} ${unit} but only ${left} bytes follow`);
    }
    return n;
  }

  private need(n: number, what: string): void {
    if (this.end - this.pos < n) {
      throw this.bad(`input ends at offset ${this.end - this.start} in the middle of ${what} (needs ${n} bytes at offset ${this.pos - this.start})`);
    }
  }

  private checkDepth(depth: number, at: number): void {
    if (depth >= MAX_VALUE_DEPTH) throw this.bad(`value nested deeper than ${MAX_VALUE_DEPTH} at offset ${at - this.start}`);
  }

  private bad(message: string): GridError {
    return new GridError('BAD_REQUEST', message);
  }
}

/** Encodes one value into a Buffer of its own. */
export function encodeValue(v: WireValue): Buffer {
  const w = new ValueWriter();
  w.write(v);
  return w.finish();
}

/** Decodes exactly one value that must fill `buf` entirely. */
export function decodeValue(buf: Uint8Array): WireValue {
  const r = new ValueReader(buf);
  const v = r.read();
  if (r.offset !== buf.length) {
    throw new GridError('BAD_REQUEST', `${buf.length - r.offset} trailing bytes after the value at offset ${r.offset}`);
  }
  return v;
}
