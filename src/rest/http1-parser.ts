// Grid's HTTP/1.1 request parser (pure: bytes in, a request head or a verdict out). It takes
// the requests REST clients send (origin-form targets, GET/HEAD/POST/PUT/DELETE, HTTP/1.1 and
// 1.0, Content-Length or chunked bodies, Connection, Expect: 100-continue) and is strict about
// them; anything else (absolute-form targets, other methods, obs-fold, duplicate or odd framing
// headers, CTLs, unusual Connection or Expect values, large heads) is a `bail`: the connection
// is handed to node:http, which decides as it always has. So every error and edge case keeps
// node's exact answer, and this file only has to be right about the common shapes.

type LatinBuffer = Buffer & { latin1Slice(start: number, end: number): string };

/** Bytes read as text at once when looking for the end of a head (most heads are shorter). */
const HEAD_WINDOW = 512;
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

/** Whether head[from, to) holds an HTAB. */
function tabIn(head: string, from: number, to: number): boolean {
  const t = head.indexOf('\t', from);
  return t !== -1 && t < to;
}

/**
 * Parse the head of the request that starts at `start` in `buf` (bytes up to `end`). Returns the
 * head, 'incomplete' when its blank line has not arrived yet, or 'bail' when node:http should
 * take the connection from this request on.
 */
export function parseHead(buf: Buffer, start: number, end: number, limit = FAST_HEAD_LIMIT): HeadResult {
  const stop = Math.min(end, start + limit);
  // The blank line: CRLFCRLF. Most heads are short: the first HEAD_WINDOW bytes are read as
  // text and searched (a bare LF or CR in a complete head is refused by the line checks below,
  // wherever it is). A longer or incomplete head is searched byte by byte, where a bare LF
  // means node's rules apply.
  const text = (buf as LatinBuffer).latin1Slice(start, Math.min(stop, start + HEAD_WINDOW));
  const blank = text.indexOf('\r\n\r\n');
  // The head is head[0, headLength) (no slice: a sliced string makes every read below slower).
  let head = text;
  let headLength = blank;
  if (blank === -1) {
    const eoh = blankLineOrBail(buf, start, end, stop);
    if (eoh === -2) return 'bail';
    if (eoh === -1) {
      if (end - start >= limit) return 'bail';
      // What has arrived already decides, as node:http (which rejects a head at its first bad
      // byte) would: a client that sent a bad partial head and waits gets node's answer now.
      return partialHeadBails(buf, start, end) ? 'bail' : 'incomplete';
    }
    if (eoh - start > limit) return 'bail';
    head = (buf as LatinBuffer).latin1Slice(start, eoh - 4);
    headLength = head.length;
  }
  const headBytes = headLength + 4;
  let lineEnd = head.indexOf('\r\n');
  if (lineEnd === -1 || lineEnd > headLength) lineEnd = headLength;
  if (!readRequestLine(head, lineEnd)) return 'bail';
  const method = lineMethod;
  const url = lineUrl;
  const minor = lineMinor;
  lineUrl = '';
  const fields = SCAN.reset();
  if (!fields.scan(head, lineEnd + 2, headLength)) return 'bail';
  const { contentLength, chunked, connection, expectContinue, rawHeaders } = fields;
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
    // node:http (as RFC 9110 10.1.1 asks) ignores 100-continue from an HTTP/1.0 client.
    expectContinue: expectContinue && minor === 1,
    headBytes,
  };
}

/**
 * The end of the head (after its CRLFCRLF) found byte by byte, -1 while it has not arrived,
 * -2 at a bare LF (node:http decides).
 */
function blankLineOrBail(buf: Buffer, start: number, end: number, stop: number): number {
  for (let i = start; i < stop; i++) {
    if (buf[i] !== LF) continue;
    if (i === start || buf[i - 1] !== CR) return -2;
    if (i + 1 < end && buf[i + 1] === CR) {
      if (i + 2 >= end) return -1; // CRLFCR: the last LF may be on its way
      if (buf[i + 2] !== LF) return -2;
      return i + 3;
    }
  }
  return -1;
}

/** What readRequestLine read (parseHead takes them at once: nothing else runs in between). */
let lineMethod = '';
let lineUrl = '';
let lineMinor = 0;

/**
 * The request line `head[0, end)` in place, slicing nothing but the target: GET, POST, DELETE,
 * PUT or HEAD, one space, an origin-form target of visible ASCII, one space, HTTP/1.1 or
 * HTTP/1.0. False when parseHead does not take it.
 */
function readRequestLine(head: string, end: number): boolean {
  const sp1 = head.indexOf(' ');
  if (sp1 <= 0 || sp1 >= end) return false;
  switch (sp1) {
    case 3:
      if (head.startsWith('GET')) lineMethod = 'GET';
      else if (head.startsWith('PUT')) lineMethod = 'PUT';
      else return false;
      break;
    case 4:
      if (head.startsWith('POST')) lineMethod = 'POST';
      else if (head.startsWith('HEAD')) lineMethod = 'HEAD';
      else return false;
      break;
    case 6:
      if (head.startsWith('DELETE')) lineMethod = 'DELETE';
      else return false;
      break;
    default:
      return false;
  }
  const sp2 = head.indexOf(' ', sp1 + 1);
  // "HTTP/1.1" or "HTTP/1.0" and nothing after it.
  if (sp2 === -1 || end - sp2 !== 9 || !head.startsWith('HTTP/1.', sp2 + 1)) return false;
  const minor = head.charCodeAt(end - 1) - 48;
  if (minor !== 0 && minor !== 1) return false;
  // The target: "/" then visible ASCII (TARGET).
  if (head.charCodeAt(sp1 + 1) !== 0x2f) return false;
  for (let i = sp1 + 2; i < sp2; i++) {
    const c = head.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  lineUrl = head.slice(sp1 + 1, sp2);
  lineMinor = minor;
  return true;
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'HEAD'];

/** Whether a whole request line (no CRLF) is one parseHead takes. */
function requestLineOk(line: string): boolean {
  const ok = readRequestLine(line, line.length);
  lineUrl = '';
  return ok;
}

/**
 * Header names as clients usually spell them (curl, wrk, browsers, fetch), by length: matched
 * in place and shared instead of sliced and checked per request.
 */
const COMMON_NAMES_BY_LENGTH: (string[] | undefined)[] = [];
for (const name of ['Host', 'User-Agent', 'Accept', 'Content-Type', 'Content-Length', 'Connection', 'Accept-Encoding', 'Expect', 'Transfer-Encoding']) {
  (COMMON_NAMES_BY_LENGTH[name.length] ??= []).push(name, name.toLowerCase());
}

/** The header lines of a head: the framing fields, and whether every line is one Grid's path takes. */
class HeaderScan {
  rawHeaders: string[] = [];
  contentLength = -1;
  chunked = false;
  connection: 'close' | 'keep-alive' | undefined;
  expectContinue = false;

  /** Ready for another head (parseHead reuses one scanner: nothing runs between its uses). */
  reset(): this {
    this.rawHeaders = [];
    this.contentLength = -1;
    this.chunked = false;
    this.connection = undefined;
    this.expectContinue = false;
    return this;
  }

  /** Scans the lines of `head` from `at` to `end` (each ended by CRLF but the last); false: bail. */
  scan(head: string, at: number, end: number): boolean {
    const rawHeaders = this.rawHeaders;
    while (at < end) {
      if (rawHeaders.length >= MAX_HEADER_LINES * 2) return false;
      let next = head.indexOf('\r\n', at);
      if (next === -1 || next > end) next = end;
      const colon = head.indexOf(':', at);
      if (colon <= at || colon >= next) return false;
      let name: string | undefined;
      /** The name in lower case (framing fields are matched on it). */
      let lower = '';
      const known = COMMON_NAMES_BY_LENGTH[colon - at];
      if (known !== undefined) {
        // Pairs: the usual spelling, then the lower-case one.
        for (let k = 0; k < known.length; k++) {
          if (head.startsWith(known[k]!, at)) {
            name = known[k]!;
            lower = known[k | 1]!;
            break;
          }
        }
      }
      if (name === undefined) {
        name = head.slice(at, colon);
        if (!TOKEN.test(name)) return false;
      }
      // The value without its surrounding OWS; no CTL but HTAB in it.
      let a = colon + 1;
      let b = next;
      while (a < b && (head.charCodeAt(a) === 32 || head.charCodeAt(a) === 9)) a++;
      while (b > a && (head.charCodeAt(b - 1) === 32 || head.charCodeAt(b - 1) === 9)) b--;
      for (let i = a; i < b; i++) {
        const c = head.charCodeAt(i);
        if ((c < 0x20 && c !== 9) || c === 0x7f) return false;
      }
      const value = head.slice(a, b);
      rawHeaders.push(name, value);
      at = next + 2;
      if (lower === '') lower = name.length === 2 || name.length === 6 || name.length === 7 || name.length === 10 || name.length === 14 || name.length === 17 ? name.toLowerCase() : name;
      switch (lower.length) {
        case 14:
          if (lower === 'content-length') {
            // node refuses an HTAB after the value of a framing field (SP is fine): node:http answers it.
            if (this.contentLength !== -1 || !DIGITS.test(value) || tabIn(head, b, next)) return false;
            this.contentLength = Number(value);
          }
          break;
        case 17:
          if (lower === 'transfer-encoding') {
            if (this.chunked || value.toLowerCase() !== 'chunked' || tabIn(head, b, next)) return false;
            this.chunked = true;
          }
          break;
        case 10:
          if (lower === 'connection') {
            if (this.connection !== undefined) return false;
            const v = value.toLowerCase();
            if (v === 'close' || v === 'keep-alive') this.connection = v;
            else return false;
          }
          break;
        case 6:
          if (lower === 'expect') {
            if (this.expectContinue || value.toLowerCase() !== '100-continue') return false;
            this.expectContinue = true;
          }
          break;
        case 7:
          if (lower === 'upgrade') return false;
          break;
        case 2:
          // TE: trailers and the like are harmless, but keep node's handling of the rare.
          if (lower === 'te') return false;
          break;
        default:
          break;
      }
    }
    return true;
  }
}

const SCAN = new HeaderScan();

/**
 * Whether the bytes of a head that has not ended yet already hold something parseHead would
 * bail on: a request line that cannot become one it takes, a complete header line it does not
 * take, or a byte in the last, partial line that no accepted line holds. A bare LF was
 * already seen by the caller.
 */
function partialHeadBails(buf: Buffer, start: number, end: number): boolean {
  const text = buf.toString('latin1', start, end);
  const lineEnd = text.indexOf('\r\n');
  if (lineEnd === -1) return !requestLinePrefixOk(text.endsWith('\r') ? text.slice(0, -1) : text, text.endsWith('\r'));
  if (!requestLineOk(text.slice(0, lineEnd))) return true;
  const lastEnd = text.lastIndexOf('\r\n');
  const fields = new HeaderScan();
  if (lastEnd > lineEnd && !fields.scan(text, lineEnd + 2, lastEnd)) return true;
  // The partial last line: a name of token bytes, then a value without CTLs (a CR must be its end).
  const partial = text.slice(lastEnd + 2);
  const colon = partial.indexOf(':');
  if (colon === -1) return !(partial === '' || partial === '\r' || TOKEN.test(partial));
  const name = partial.slice(0, colon);
  if (!TOKEN.test(name)) return true;
  const value = partial.slice(colon + 1);
  const cr = value.indexOf('\r');
  if (cr !== -1 && cr !== value.length - 1) return true;
  const sofar = cr === -1 ? value : value.slice(0, cr);
  if (hasControl(sofar)) return true;
  // node checks the framing fields byte by byte (a Content-Length digit at a time): what can no
  // longer become a value parseHead takes goes to node:http now.
  return !partialFieldOk(name.toLowerCase(), sofar.replace(/^[ \t]+/, '').toLowerCase(), fields);
}

/** Whether a framing field's partial value (leading OWS gone, lower-cased) may still become one parseHead takes. */
function partialFieldOk(name: string, value: string, seen: HeaderScan): boolean {
  // After the value: SP or HTAB, but only SP after Content-Length and Transfer-Encoding (as node).
  const prefixOf = (whole: string, after = /^[ \t]*$/): boolean => whole.startsWith(value) || (value.startsWith(whole) && after.test(value.slice(whole.length)));
  switch (name) {
    case 'content-length':
      return seen.contentLength === -1 && !seen.chunked && /^[0-9]{0,15} *$/.test(value) && !/^[ \t]/.test(value);
    case 'transfer-encoding':
      return !seen.chunked && seen.contentLength === -1 && prefixOf('chunked', /^ *$/);
    case 'connection':
      return seen.connection === undefined && (prefixOf('close') || prefixOf('keep-alive'));
    case 'expect':
      return !seen.expectContinue && prefixOf('100-continue');
    case 'upgrade':
    case 'te':
      return false;
    default:
      return true;
  }
}

/** Whether `line` (no CR or LF in it) can still grow into a request line parseHead takes; `ended`: it is complete. */
function requestLinePrefixOk(line: string, ended: boolean): boolean {
  if (ended) return requestLineOk(line);
  const sp1 = line.indexOf(' ');
  if (sp1 === -1) return METHODS.some((m) => m.startsWith(line));
  if (!METHODS.includes(line.slice(0, sp1))) return false;
  const sp2 = line.indexOf(' ', sp1 + 1);
  const target = sp2 === -1 ? line.slice(sp1 + 1) : line.slice(sp1 + 1, sp2);
  if (target.length > 0 && !TARGET.test(target)) return false;
  if (sp2 === -1) return true;
  if (target.length === 0) return false;
  const version = line.slice(sp2 + 1);
  return 'HTTP/1.1'.startsWith(version) || 'HTTP/1.0'.startsWith(version);
}

/** Field values: no CTL but HTAB (obs-text 0x80-0xff is allowed, as node allows it). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 9) || c === 0x7f) return true;
  }
  return false;
}


// ---------------------------------------------------------------- chunked bodies

const enum ChunkState {
  Size,
  SizeMore,
  ExtensionStart,
  ExtensionName,
  ExtensionValue,
  ExtensionQuoted,
  ExtensionQuotedPair,
  ExtensionQuotedDone,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerLineStart,
  TrailerName,
  TrailerValueStart,
  TrailerValue,
  TrailerLf,
  TrailerEmptyLf,
  FinalLf,
  Done,
}

/**
 * node's name for each way a chunked body can be malformed (X-Grid-Error says it): the codes
 * llhttp 9 (Node 20) reports for the same bytes, checked against it byte vector by byte vector
 * (test/unit/rest/http1-parser.test.ts) and by the differential fuzz (test/fuzz/http-diff.test.ts).
 */
export type ChunkError =
  | 'HPE_INVALID_CHUNK_SIZE'
  | 'HPE_STRICT'
  | 'HPE_CR_EXPECTED'
  | 'HPE_LF_EXPECTED'
  | 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
  | 'HPE_HEADER_OVERFLOW'
  | 'HPE_INVALID_HEADER_TOKEN'
  | 'HPE_INVALID_CONTENT_LENGTH'
  | 'HPE_INVALID_TRANSFER_ENCODING';

/** Bytes of extension names and values (not `;`, `=`) per chunk, as node counts them. */
const MAX_EXTENSION_BYTES = 16_384;
/** More significant hex digits than this: the size is 2^64 or more (llhttp's overflow). */
const MAX_SIZE_DIGITS = 16;

/**
 * An incremental decoder of one chunked body. feed() takes bytes as they arrive, hands the
 * data inside chunks to `onData` (subarrays of the input, never copies) and says how many input
 * bytes it used: fewer than given once the body is complete (the rest is the next request) or
 * malformed (up to the offending byte). Its grammar and errors are llhttp's: extensions are
 * `;name[=token|"quoted"]`, trailers are header lines, and node's limits apply (16 KiB of
 * extension names and values per chunk; `maxTrailerBytes` of trailer names and values).
 */
export class ChunkedDecoder {
  private state = ChunkState.Size;
  private size = 0;
  /** Significant hex digits of the size so far (leading zeros do not count). */
  private digits = 0;
  private remaining = 0;
  private extensionBytes = 0;
  private trailerBytes = 0;
  /** The trailer name being read, lower-cased, while it may still be content-length or transfer-encoding. */
  private trailerName = '';
  private trailerCheck: 'content-length' | 'transfer-encoding' | undefined;
  /** Set when the body is malformed; nothing more is decoded. */
  error: ChunkError | undefined;

  constructor(private readonly maxTrailerBytes: number) {}

  get done(): boolean {
    return this.state === ChunkState.Done;
  }

  feed(buf: Buffer, start: number, end: number, onData: (chunk: Buffer) => void): number {
    let i = start;
    while (i < end && this.error === undefined) {
      const c = buf[i]!;
      switch (this.state) {
        case ChunkState.Data: {
          const n = Math.min(this.remaining, end - i);
          onData(buf.subarray(i, i + n));
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = ChunkState.DataCr;
          continue;
        }
        case ChunkState.Size:
        case ChunkState.SizeMore: {
          const d = hexValue(c);
          if (d !== -1) {
            if (this.size > 0 || d > 0) {
              if (++this.digits > MAX_SIZE_DIGITS) return this.fail('HPE_INVALID_CHUNK_SIZE', i, start);
            }
            this.size = this.size * 16 + d;
            this.state = ChunkState.SizeMore;
          } else if (this.state === ChunkState.Size) {
            return this.fail('HPE_INVALID_CHUNK_SIZE', i, start);
          } else if (c === CR) {
            this.state = ChunkState.SizeLf;
          } else if (c === 0x3b /* ; */) {
            this.state = ChunkState.ExtensionStart;
          } else if (c === LF) {
            return this.fail('HPE_CR_EXPECTED', i, start);
          } else {
            return this.fail('HPE_INVALID_CHUNK_SIZE', i, start);
          }
          break;
        }
        case ChunkState.ExtensionStart:
          if (c === 0x20 || c === CR) return this.fail('HPE_STRICT', i, start);
          this.state = ChunkState.ExtensionName;
          continue; // the same byte, as the name's first
        case ChunkState.ExtensionName:
          if (isTokenByte(c)) {
            if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i, start);
          } else if (c === 0x3d /* = */) this.state = ChunkState.ExtensionValue;
          else if (c === 0x3b) this.state = ChunkState.ExtensionStart;
          else if (c === CR) this.state = ChunkState.SizeLf;
          else return this.fail(c === LF ? 'HPE_CR_EXPECTED' : 'HPE_STRICT', i, start);
          break;
        case ChunkState.ExtensionValue:
          if (c === 0x22 /* " */) {
            if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i, start);
            this.state = ChunkState.ExtensionQuoted;
          } else if (isTokenByte(c)) {
            if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i, start);
          } else if (c === 0x3b) this.state = ChunkState.ExtensionStart;
          else if (c === CR) this.state = ChunkState.SizeLf;
          else return this.fail(c === LF ? 'HPE_CR_EXPECTED' : 'HPE_STRICT', i, start);
          break;
        case ChunkState.ExtensionQuoted:
          if (c === 0x22) this.state = ChunkState.ExtensionQuotedDone;
          else if (c === 0x5c /* \ */) this.state = ChunkState.ExtensionQuotedPair;
          else if (!(c === 9 || c === 0x20 || c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return this.fail('HPE_STRICT', i, start);
          if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i, start);
          break;
        case ChunkState.ExtensionQuotedPair:
          if (!(c === 9 || (c >= 0x20 && c <= 0x7e) || c >= 0x80)) return this.fail('HPE_STRICT', i, start);
          if (++this.extensionBytes > MAX_EXTENSION_BYTES) return this.fail('HPE_CHUNK_EXTENSIONS_OVERFLOW', i, start);
          this.state = ChunkState.ExtensionQuoted;
          break;
        case ChunkState.ExtensionQuotedDone:
          if (c === 0x3b) this.state = ChunkState.ExtensionStart;
          else if (c === CR) this.state = ChunkState.SizeLf;
          else return this.fail(c === LF ? 'HPE_CR_EXPECTED' : 'HPE_STRICT', i, start);
          break;
        case ChunkState.SizeLf:
          if (c !== LF) return this.fail('HPE_STRICT', i, start);
          if (this.size === 0) {
            this.state = ChunkState.TrailerLineStart;
          } else {
            this.remaining = this.size;
            this.state = ChunkState.Data;
          }
          this.size = 0;
          this.digits = 0;
          this.extensionBytes = 0;
          break;
        case ChunkState.DataCr:
          if (c !== CR) return this.fail(c === LF ? 'HPE_CR_EXPECTED' : 'HPE_STRICT', i, start);
          this.state = ChunkState.DataLf;
          break;
        case ChunkState.DataLf:
          if (c !== LF) return this.fail('HPE_STRICT', i, start);
          this.state = ChunkState.Size;
          break;
        case ChunkState.TrailerLineStart:
          if (c === CR) this.state = ChunkState.FinalLf;
          else if (!isTokenByte(c)) return this.fail('HPE_INVALID_HEADER_TOKEN', i, start);
          else {
            this.state = ChunkState.TrailerName;
            this.trailerName = '';
            continue; // the same byte, as the name's first
          }
          break;
        case ChunkState.TrailerName:
          if (isTokenByte(c)) {
            if (this.trailerName.length < 17) this.trailerName += String.fromCharCode(c | 0x20);
            if (++this.trailerBytes >= this.maxTrailerBytes) return this.fail('HPE_HEADER_OVERFLOW', i, start);
          } else if (c === 0x3a /* : */) {
            // llhttp's rules for these two apply to trailers too: the body is chunked already.
            this.trailerCheck = this.trailerName === 'content-length' ? 'content-length' : this.trailerName === 'transfer-encoding' ? 'transfer-encoding' : undefined;
            if (this.trailerCheck === 'content-length') return this.fail('HPE_INVALID_CONTENT_LENGTH', i, start);
            this.state = ChunkState.TrailerValueStart;
          } else return this.fail('HPE_INVALID_HEADER_TOKEN', i, start);
          break;
        case ChunkState.TrailerValueStart:
          // An empty value has llhttp's own errors: a bare LF is an invalid value char, a CR
          // must be followed by LF (HPE_STRICT, not HPE_LF_EXPECTED).
          if (c === 0x20 || c === 9) break;
          if (c === LF) return this.fail('HPE_INVALID_HEADER_TOKEN', i, start);
          if (c === CR) {
            this.state = ChunkState.TrailerEmptyLf;
            break;
          }
          if (this.trailerCheck === 'transfer-encoding') return this.fail('HPE_INVALID_TRANSFER_ENCODING', i, start);
          this.state = ChunkState.TrailerValue;
          continue; // the same byte, as the value's first
        case ChunkState.TrailerValue:
          if (c === CR) this.state = ChunkState.TrailerLf;
          else if (c === LF) return this.fail('HPE_CR_EXPECTED', i, start);
          else if ((c < 0x20 && c !== 9) || c === 0x7f) return this.fail('HPE_INVALID_HEADER_TOKEN', i, start);
          else if (++this.trailerBytes >= this.maxTrailerBytes) return this.fail('HPE_HEADER_OVERFLOW', i, start);
          break;
        case ChunkState.TrailerLf:
          if (c !== LF) return this.fail('HPE_LF_EXPECTED', i, start);
          this.state = ChunkState.TrailerLineStart;
          break;
        case ChunkState.TrailerEmptyLf:
          if (c !== LF) return this.fail('HPE_STRICT', i, start);
          this.state = ChunkState.TrailerLineStart;
          break;
        case ChunkState.FinalLf:
          if (c !== LF) return this.fail('HPE_STRICT', i, start);
          this.state = ChunkState.Done;
          return i + 1 - start;
        case ChunkState.Done:
          return i - start;
      }
      i++;
    }
    return i - start;
  }

  /** Records the error; returns the bytes used before the offending one. */
  private fail(error: ChunkError, at: number, start: number): number {
    this.error = error;
    return at - start;
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
