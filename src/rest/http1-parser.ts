// Grid's HTTP/1.1 request parser (pure: bytes in, a request head or a verdict out). It takes
// the requests REST clients send (origin-form targets, GET/HEAD/POST/PUT/DELETE, HTTP/1.1 and
// 1.0, Content-Length or chunked bodies, Connection, Expect: 100-continue) and is strict about
// them; anything else (absolute-form targets, other methods, obs-fold, duplicate or odd framing
// headers, CTLs, unusual Connection or Expect values, large heads) is a `bail`: the connection
// is handed to node:http, which decides as it always has. So every error and edge case keeps
// node's exact answer, and this file only has to be right about the common shapes.

const CR = 13;
const LF = 10;
/** A head larger than this is left to node:http (which applies grid.rest.max-header-bytes). */
export const FAST_HEAD_LIMIT = 16_384;
/** More header lines than this: node:http decides. */
const MAX_HEADER_LINES = 128;

export interface RequestHead {
  /** GET, HEAD, POST, PUT or DELETE. */
  readonly method: string;
  /** The origin-form target as sent (path and query), latin1. */
  readonly url: string;
  /** '1.1' or '1.0'. */
  readonly httpVersion: string;
  /** Header names and values as sent, alternating (node's rawHeaders shape). */
  readonly rawHeaders: string[];
  /** Content-Length, or -1 when there is none. */
  readonly contentLength: number;
  readonly chunked: boolean;
  /** Whether the connection may carry another request after this one. */
  readonly keepAlive: boolean;
  readonly expectContinue: boolean;
  /** Bytes of the request line and headers, the blank line included. */
  readonly headBytes: number;
}

export type HeadResult = RequestHead | 'incomplete' | 'bail';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII only (no space, no CTL, no byte above 0x7e). */
const TARGET = /^\/[\x21-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;

/**
 * Parse the head of the request that starts at `start` in `buf` (bytes up to `end`). Returns the
 * head, 'incomplete' when its blank line has not arrived yet, or 'bail' when node:http should
 * take the connection from this request on.
 */
export function parseHead(buf: Buffer, start: number, end: number, limit = FAST_HEAD_LIMIT): HeadResult {
  const stop = Math.min(end, start + limit);
  let eoh = -1;
  // The blank line: CRLFCRLF. A bare LF anywhere in the head means node's rules apply.
  for (let i = buf.indexOf(LF, start); i !== -1 && i < stop; i = buf.indexOf(LF, i + 1)) {
    if (i === start || buf[i - 1] !== CR) return 'bail';
    if (i + 2 < end && buf[i + 1] === CR) {
      if (buf[i + 2] !== LF) return 'bail';
      eoh = i + 3;
      break;
    }
    if (i + 2 >= end) break;
  }
  if (eoh === -1) return end - start >= limit ? 'bail' : 'incomplete';
  if (eoh - start > limit) return 'bail';
  const head = buf.toString('latin1', start, eoh - 4);
  const lineEnd = head.indexOf('\r\n');
  const requestLine = lineEnd === -1 ? head : head.slice(0, lineEnd);
  const sp1 = requestLine.indexOf(' ');
  const sp2 = requestLine.indexOf(' ', sp1 + 1);
  if (sp1 <= 0 || sp2 === -1) return 'bail';
  const method = requestLine.slice(0, sp1);
  if (method !== 'GET' && method !== 'POST' && method !== 'DELETE' && method !== 'PUT' && method !== 'HEAD') return 'bail';
  const url = requestLine.slice(sp1 + 1, sp2);
  if (!TARGET.test(url)) return 'bail';
  const version = requestLine.slice(sp2 + 1);
  let minor: number;
  if (version === 'HTTP/1.1') minor = 1;
  else if (version === 'HTTP/1.0') minor = 0;
  else return 'bail';
  const rawHeaders: string[] = [];
  let contentLength = -1;
  let chunked = false;
  let sawTransferEncoding = false;
  let connection: 'close' | 'keep-alive' | undefined;
  let expectContinue = false;
  let at = lineEnd === -1 ? head.length : lineEnd + 2;
  while (at < head.length) {
    if (rawHeaders.length >= MAX_HEADER_LINES * 2) return 'bail';
    let next = head.indexOf('\r\n', at);
    if (next === -1) next = head.length;
    const colon = head.indexOf(':', at);
    if (colon <= at || colon >= next) return 'bail';
    const name = head.slice(at, colon);
    if (!TOKEN.test(name)) return 'bail';
    const value = trimOws(head.slice(colon + 1, next));
    if (hasControl(value)) return 'bail';
    rawHeaders.push(name, value);
    at = next + 2;
    switch (name.length) {
      case 14:
        if (name.toLowerCase() === 'content-length') {
          if (contentLength !== -1 || !DIGITS.test(value)) return 'bail';
          contentLength = Number(value);
        }
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') {
          if (sawTransferEncoding || value.toLowerCase() !== 'chunked') return 'bail';
          sawTransferEncoding = chunked = true;
        }
        break;
      case 10:
        if (name.toLowerCase() === 'connection') {
          if (connection !== undefined) return 'bail';
          const v = value.toLowerCase();
          if (v === 'close' || v === 'keep-alive') connection = v;
          else return 'bail';
        }
        break;
      case 6:
        if (name.toLowerCase() === 'expect') {
          if (expectContinue || value.toLowerCase() !== '100-continue') return 'bail';
          expectContinue = true;
        }
        break;
      case 7:
        if (name.toLowerCase() === 'upgrade') return 'bail';
        break;
      case 2:
        // TE: trailers and the like are harmless, but keep node's handling of the rare.
        if (name.toLowerCase() === 'te') return 'bail';
        break;
      default:
        break;
    }
  }
  if (chunked && contentLength !== -1) return 'bail';
  // HTTP/1.0 with a chunked body is not HTTP/1.0: node's rules.
  if (chunked && minor === 0) return 'bail';
  const keepAlive = minor === 1 ? connection !== 'close' : connection === 'keep-alive';
  return {
    method,
    url,
    httpVersion: minor === 1 ? '1.1' : '1.0',
    rawHeaders,
    contentLength,
    chunked,
    keepAlive,
    expectContinue,
    headBytes: eoh - start,
  };
}

/** Field values: no CTL but HTAB (obs-text 0x80-0xff is allowed, as node allows it). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 9) || c === 0x7f) return true;
  }
  return false;
}

function trimOws(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

// ---------------------------------------------------------------- chunked bodies

const enum ChunkState {
  Size,
  Extension,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerLineStart,
  TrailerLine,
  TrailerLf,
  FinalLf,
  Done,
}

/** node's name for each way a chunked body can be malformed (X-Grid-Error says it). */
export type ChunkError = 'HPE_INVALID_CHUNK_SIZE' | 'HPE_STRICT' | 'HPE_CHUNK_EXTENSIONS_OVERFLOW' | 'HPE_HEADER_OVERFLOW' | 'HPE_INVALID_HEADER_TOKEN';

const MAX_EXTENSION_BYTES = 16_384;
const TWO_POW_64 = 2 ** 64;

/**
 * An incremental decoder of one chunked body. feed() takes bytes as they arrive, hands the
 * data inside chunks to `onData` (subarrays of the input, never copies) and says how many input
 * bytes it used: fewer than given once the body is complete (the rest is the next request).
 */
export class ChunkedDecoder {
  private state = ChunkState.Size;
  private size = 0;
  private digits = 0;
  private remaining = 0;
  private extensionBytes = 0;
  private trailerBytes = 0;
  /** Set when the body is malformed; nothing more is decoded. */
  error: ChunkError | undefined;

  constructor(private readonly maxTrailerBytes: number) {}

  get done(): boolean {
    return this.state === ChunkState.Done;
  }

  feed(buf: Buffer, start: number, end: number, onData: (chunk: Buffer) => void): number {
    let i = start;
    while (i < end && this.error === undefined) {
      switch (this.state) {
        case ChunkState.Data: {
          const n = Math.min(this.remaining, end - i);
          onData(buf.subarray(i, i + n));
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = ChunkState.DataCr;
          continue;
        }
        case ChunkState.Size: {
          const c = buf[i]!;
          const d = hexValue(c);
          if (d !== -1) {
            this.size = this.size * 16 + d;
            this.digits++;
            if (this.size >= TWO_POW_64) return this.fail('HPE_INVALID_CHUNK_SIZE', i);
          } else if (this.digits > 0 && c === CR) {
            this.state = ChunkState.SizeLf;
          } else if (this.digits > 0 && c === 0x3b /* ; */) {
            this.state = ChunkState.Extension;
          } else {
            return this.fail('HPE_INVALID_CHUNK_SIZE', i);
          }
          break;
        }
        case ChunkState.Extension: {
          const c = buf[i]!;
          if (c === CR) this.state = ChunkState.SizeLf;
          else if (c === LF || (c < 0x20 && c !== 9) || c === 0x7f) return this.fail('HPE_STRICT', i);
          else if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i);
          break;
        }
        case ChunkState.SizeLf: {
          if (buf[i] !== LF) return this.fail('HPE_STRICT', i);
          if (this.size === 0) {
            this.state = ChunkState.TrailerLineStart;
          } else {
            this.remaining = this.size;
            this.state = ChunkState.Data;
          }
          this.size = 0;
          this.digits = 0;
          break;
        }
        case ChunkState.DataCr:
          if (buf[i] !== CR) return this.fail('HPE_STRICT', i);
          this.state = ChunkState.DataLf;
          break;
        case ChunkState.DataLf:
          if (buf[i] !== LF) return this.fail('HPE_STRICT', i);
          this.state = ChunkState.Size;
          break;
        case ChunkState.TrailerLineStart: {
          const c = buf[i]!;
          if (c === CR) this.state = ChunkState.FinalLf;
          else if (!isTokenByte(c)) return this.fail('HPE_INVALID_HEADER_TOKEN', i);
          else {
            this.state = ChunkState.TrailerLine;
            if (++this.trailerBytes > this.maxTrailerBytes) return this.fail('HPE_HEADER_OVERFLOW', i);
          }
          break;
        }
        case ChunkState.TrailerLine: {
          const c = buf[i]!;
          if (c === CR) this.state = ChunkState.TrailerLf;
          else if (c === LF || c === 0) return this.fail('HPE_STRICT', i);
          else if (++this.trailerBytes > this.maxTrailerBytes) return this.fail('HPE_HEADER_OVERFLOW', i);
          break;
        }
        case ChunkState.TrailerLf:
          if (buf[i] !== LF) return this.fail('HPE_STRICT', i);
          this.state = ChunkState.TrailerLineStart;
          break;
        case ChunkState.FinalLf:
          if (buf[i] !== LF) return this.fail('HPE_STRICT', i);
          this.state = ChunkState.Done;
          return i + 1 - start;
        case ChunkState.Done:
          return i - start;
      }
      i++;
    }
    return i - start;
  }

  private fail(error: ChunkError, at: number): number {
    this.error = error;
    return at;
  }
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function isTokenByte(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x21 ||
    (c >= 0x23 && c <= 0x27) ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5e ||
    c === 0x5f ||
    c === 0x60 ||
    c === 0x7c ||
    c === 0x7e
  );
}
