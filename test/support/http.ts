// Raw HTTP/1.1 over a real TCP socket, the one raw client of the tests: send exactly what
// you write, read and parse one or more responses (pipelined ones included, 1xx interim
// responses as their own responses), see that a member sends nothing or closes, all with
// deadlines. Nothing here retries or fixes up requests: what you write is what the member
// gets (`request`/`sendRequest` only build a well-formed request for you first).

import net from 'node:net';
import { expect } from 'vitest';
import { sleep } from './wait.js';

export interface RawResponse {
  /** e.g. `HTTP/1.1` */
  readonly version: string;
  readonly status: number;
  readonly statusText: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** Header lines as received (name, value), in order. */
  readonly rawHeaders: readonly (readonly [string, string])[];
  /** The status line and header lines as received, CRLF-separated (no final empty line). */
  readonly head: string;
  readonly body: Buffer;
}

export interface ReadOptions {
  /** Milliseconds to wait for the whole response (default 5000). */
  readonly timeoutMs?: number;
  /** The response answers a HEAD request: it has no body whatever its headers say. */
  readonly head?: boolean;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const HEADER_END = Buffer.from('\r\n\r\n');

/** One client connection. Bytes received are buffered until a response is read. */
export class RawConnection {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  private closedFlag = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly closedPromise: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (e) => {
      this.error = e;
      this.notify();
    });
    this.closedPromise = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedFlag = true;
        this.ended = true;
        this.notify();
        resolve();
      }),
    );
  }

  static connect(port: number, host = '127.0.0.1', timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host, noDelay: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect to ${host}:${port} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RawConnection(socket));
      });
    });
  }

  /** True once the peer has ended its side (or the socket closed). */
  get peerEnded(): boolean {
    return this.ended;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Bytes received and not yet consumed by a read. */
  get pending(): Buffer {
    return this.buf;
  }

  /** Write bytes; resolves when they were handed to the kernel. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data, (e) => (e ? reject(e) : resolve()));
    });
  }

  /** Read the next response (an interim 1xx counts as one). */
  async read(opts: ReadOptions = {}): Promise<RawResponse> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buf, opts.head === true, this.ended);
      if (parsed !== undefined) {
        this.buf = this.buf.subarray(parsed.consumed);
        return parsed.response;
      }
      if (this.ended) {
        throw new Error(`connection closed before a complete response; received ${JSON.stringify(this.buf.toString('latin1').slice(0, 300))}`);
      }
      if (this.error !== undefined) throw this.error;
      await this.waitForChange(deadline, () => `no complete response within ${timeoutMs} ms; received ${JSON.stringify(this.buf.toString('latin1').slice(0, 300))}`);
    }
  }

  /** Send a well-formed request (see `buildRequest`) and read its response (HEAD-aware). */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    await this.write(buildRequest(method, path, requestParts(method, opts)));
    return this.read({ timeoutMs: opts.timeoutMs, head: method === 'HEAD' });
  }

  /** Read `n` responses in order. `heads[i]` marks responses to HEAD requests. */
  async readMany(n: number, opts: ReadOptions & { heads?: readonly boolean[] } = {}): Promise<RawResponse[]> {
    const out: RawResponse[] = [];
    for (let i = 0; i < n; i++) out.push(await this.read({ ...opts, head: opts.heads?.[i] ?? opts.head }));
    return out;
  }

  /** Wait until the peer closes (end of stream); throws at the deadline. */
  async waitForEnd(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) await this.waitForChange(deadline, () => `peer did not close within ${timeoutMs} ms`);
  }

  /** Wait up to `ms` for anything to arrive; true if something did (or the peer closed). */
  async somethingArrives(ms: number): Promise<boolean> {
    const before = this.buf.length;
    const deadline = Date.now() + ms;
    while (this.buf.length === before && !this.ended) {
      try {
        await this.waitForChange(deadline, () => 'quiet');
      } catch {
        return false;
      }
    }
    return true;
  }

  /** Send FIN after pending writes. */
  end(): void {
    this.socket.end();
  }

  /** Close abruptly and wait until the socket is closed on this side. */
  async destroy(): Promise<void> {
    this.socket.destroy();
    await this.closedPromise;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private waitForChange(deadline: number, message: () => string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(new Error(message()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        reject(new Error(message()));
      }, left);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * Parse one response from the start of `buf`. Undefined when more bytes are needed. A
 * response without Content-Length or chunked framing (and which may have a body) runs to
 * the end of the stream, so it is complete only once `ended`.
 */
export function parseResponse(buf: Buffer, head: boolean, ended: boolean): { response: RawResponse; consumed: number } | undefined {
  const headerEnd = buf.indexOf(HEADER_END);
  if (headerEnd === -1) return undefined;
  const headText = buf.subarray(0, headerEnd).toString('latin1');
  const lines = headText.split('\r\n');
  const statusLine = /^(HTTP\/\d\.\d) (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (statusLine === null) throw new Error(`not an HTTP status line: ${JSON.stringify(lines[0])}`);
  const version = statusLine[1]!;
  const status = Number(statusLine[2]);
  const statusText = statusLine[3] ?? '';
  const rawHeaders: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed header line: ${JSON.stringify(line)}`);
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    rawHeaders.push([name, value]);
    const lower = name.toLowerCase();
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  const bodyStart = headerEnd + 4;
  const done = (body: Buffer, consumed: number): { response: RawResponse; consumed: number } => ({
    response: { version, status, statusText, headers, rawHeaders, head: headText, body },
    consumed,
  });
  if (head || (status >= 100 && status < 200) || status === 204 || status === 304) return done(Buffer.alloc(0), bodyStart);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(buf.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
      if (Number.isNaN(size)) throw new Error('malformed chunk size');
      at = lineEnd + 2;
      if (size === 0) {
        // Trailers (none expected) end with an empty line.
        const end = buf.indexOf(HEADER_END.subarray(0, 2), at);
        if (end === -1) return undefined;
        return done(Buffer.concat(chunks), end + 2);
      }
      if (buf.length < at + size + 2) return undefined;
      chunks.push(buf.subarray(at, at + size));
      at += size + 2;
    }
  }
  const cl = headers['content-length'];
  if (cl !== undefined) {
    const n = Number(cl);
    if (!Number.isInteger(n) || n < 0) throw new Error(`bad Content-Length ${cl}`);
    if (buf.length < bodyStart + n) return undefined;
    return done(Buffer.from(buf.subarray(bodyStart, bodyStart + n)), bodyStart + n);
  }
  if (!ended) return undefined;
  return done(Buffer.from(buf.subarray(bodyStart)), buf.length);
}

/** Connect, send `raw`, read one response (HEAD-aware), then close the connection. */
export async function rawRequest(port: number, raw: string | Buffer, opts: ReadOptions = {}): Promise<RawResponse> {
  const c = await RawConnection.connect(port);
  try {
    await c.write(raw);
    return await c.read(opts);
  } finally {
    await c.destroy();
  }
}

/** Connect, send a well-formed request (see `buildRequest`), read its response (HEAD-aware), close. */
export async function sendRequest(port: number, method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
  const c = await RawConnection.connect(port);
  try {
    return await c.request(method, path, opts);
  } finally {
    await c.destroy();
  }
}

/**
 * Connect, send `raw`, and resolve with every byte received once the member ends the
 * connection; rejects when it keeps the connection open past `timeoutMs`. A write the member
 * cuts short (it closed first) is not an error: what it sent before closing is the answer.
 */
export async function sendAndAwaitClose(port: number, raw: string | Buffer, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
  const c = await RawConnection.connect(port);
  try {
    await c.write(raw).catch(() => undefined);
    await c.waitForEnd(timeoutMs);
    return c.pending;
  } finally {
    await c.destroy();
  }
}

export interface RequestOptions {
  readonly headers?: Record<string, string | number>;
  /** A POST without a body still says `Content-Length: 0`, as HTTP clients do. */
  readonly body?: string | Buffer;
  /** Milliseconds to wait for the response (default 5000). */
  readonly timeoutMs?: number;
}

function requestParts(method: string, opts: RequestOptions): { headers?: Record<string, string | number>; body?: string | Buffer } {
  return { headers: opts.headers, body: opts.body ?? (method === 'POST' ? '' : undefined) };
}

/** An `Authorization` value for HTTP basic authentication. */
export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Build a request: request line, headers (Host added unless given), CRLFs, body. */
export function buildRequest(
  method: string,
  path: string,
  opts: { headers?: Record<string, string | number>; body?: string | Buffer; version?: string } = {},
): Buffer {
  const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'host')) headers.Host = '127.0.0.1';
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : opts.body;
  if (
    body !== undefined &&
    !Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()))
  ) {
    headers['Content-Length'] = body.length;
  }
  const head = `${method} ${path} ${opts.version ?? 'HTTP/1.1'}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** Poll `probe` until it returns a value `accept`s; throws with the last value at the deadline. */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  accept: (v: T) => boolean,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let last: T;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() >= deadline) {
      throw new Error(`${opts.what ?? 'condition'} not reached in time; last value ${JSON.stringify(last)}`);
    }
    await sleep(opts.intervalMs ?? 20);
  }
}

/** `connectionCount` of GET /rest/cluster, asked on a fresh connection that it counts too. */
export async function connectionCount(port: number): Promise<number> {
  const res = await rawRequest(port, buildRequest('GET', '/grid/rest/cluster', { headers: { Connection: 'close' } }));
  if (res.status !== 200) throw new Error(`GET /rest/cluster answered ${res.status}`);
  return (JSON.parse(res.body.toString('utf8')) as { connectionCount: number }).connectionCount;
}

/** An error answer as the contract wants it: the status, an empty body, and an X-Grid-Error reason. */
export function expectError(r: RawResponse, status: number, reason?: RegExp): void {
  expect(r.status, `${r.status} ${r.headers['x-grid-error'] ?? ''}`).toBe(status);
  expect(r.headers['content-length']).toBe('0');
  expect(r.body.length).toBe(0);
  expect(r.headers['x-grid-error'], 'X-Grid-Error header').toBeTruthy();
  if (reason !== undefined) expect(r.headers['x-grid-error']).toMatch(reason);
}
