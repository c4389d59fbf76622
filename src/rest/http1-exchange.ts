// The light request and response objects of Grid's own HTTP/1.1 path (no IncomingMessage,
// ServerResponse, streams or header maps), and the cached pieces an answer is built from
// (status lines, Content-Type prefixes, the Date line refreshed once a second).

import { STATUS_CODES } from 'node:http';
import type net from 'node:net';
import type { RestRequest, RestResponse } from './exchange.js';

/** What an answer needs of its connection (Http1Connection). */
export interface AnswerWriter {
  /** Keep-alive lines of an answer (node's wording). */
  keepAliveLines(): string;
  /** Write (or gather) answer bytes; `res` is told once they are handed to the kernel. */
  write(data: string | Buffer, encoding: BufferEncoding | undefined, res: FastResponse | undefined): void;
  destroy(): void;
}

/**
 * The Date line of answers: built once and cleared at the next second boundary by a timer
 * (as node:http does), so an answer reads no clock.
 */
let dateLine = '';
function resetDateLine(): void {
  dateLine = '';
  closeTail = '';
}
function currentDateLine(): string {
  if (dateLine === '') {
    const now = Date.now();
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
    setTimeout(resetDateLine, 1000 - (now % 1000)).unref();
  }
  return dateLine;
}

/** "HTTP/1.1 <code> <reason>\r\n" by status code, built on first use. */
const statusLines: string[] = [];
function statusLine(code: number): string {
  return (statusLines[code] ??= `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'unknown'}\r\n`);
}

/** Status line and headers up to "Content-Length: " by status and Content-Type (a few are cached). */
const plainPrefixes: string[] = [];
const typedPrefixes = new Map<string, string>();
const MAX_TYPED_PREFIXES = 64;
function answerPrefix(code: number, contentType: string | undefined): string {
  if (contentType === undefined) return (plainPrefixes[code] ??= `${statusLine(code)}Content-Length: `);
  const key = code === 200 ? contentType : `${code} ${contentType}`;
  let prefix = typedPrefixes.get(key);
  if (prefix === undefined) {
    prefix = `${statusLine(code)}Content-Type: ${contentType}\r\nContent-Length: `;
    if (typedPrefixes.size < MAX_TYPED_PREFIXES) typedPrefixes.set(key, prefix);
  }
  return prefix;
}

/** What follows Content-Length's value: the Date line, the connection lines and the blank line. */
let keepTail = '';
let keepTailDate = '';
let keepTailLines = '';
let closeTail = '';
function answerTail(keepAliveLines: string | undefined): string {
  const date = currentDateLine();
  if (keepAliveLines === undefined) return (closeTail ||= `\r\n${date}Connection: close\r\n\r\n`);
  if (keepTailDate !== date || keepTailLines !== keepAliveLines) {
    keepTailDate = date;
    keepTailLines = keepAliveLines;
    keepTail = `\r\n${date}${keepAliveLines}\r\n`;
  }
  return keepTail;
}

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

export class FastRequest implements RestRequest {
  complete = false;
  wholeBody: Buffer | undefined;
  private dataFn: ((chunk: Buffer) => void) | undefined;
  private endFns: (() => void)[] | undefined;
  private closeFns: (() => void)[] | undefined;
  private closed = false;

  constructor(
    readonly socket: net.Socket,
    readonly method: string,
    readonly url: string,
    readonly httpVersion: string,
    readonly rawHeaders: string[],
  ) {}

  on(_event: 'data', listener: (chunk: Buffer) => void): this {
    this.dataFn = listener;
    return this;
  }

  once(event: 'end' | 'close', listener: () => void): this {
    if (event === 'end') (this.endFns ??= []).push(listener);
    else (this.closeFns ??= []).push(listener);
    return this;
  }

  resume(): this {
    this.dataFn = undefined;
    return this;
  }

  /** @internal Body bytes as they arrive. */
  push(chunk: Buffer): void {
    this.dataFn?.(chunk);
  }

  /** @internal The whole body has arrived (a second call does nothing). */
  finish(): void {
    this.complete = true;
    this.dataFn = undefined;
    const fns = this.endFns;
    this.endFns = undefined;
    if (fns !== undefined) for (const fn of fns) fn();
  }

  /** @internal The connection is gone (or the request is over). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const fns = this.closeFns;
    this.closeFns = undefined;
    this.endFns = undefined;
    this.dataFn = undefined;
    if (fns !== undefined) for (const fn of fns) fn();
  }
}

export class FastResponse implements RestResponse {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  shouldKeepAlive: boolean;
  private head = '';
  private extra: string[] | undefined;
  private finishFns: (() => void)[] | undefined;
  private closeFns: (() => void)[] | undefined;

  constructor(
    private readonly conn: AnswerWriter,
    private readonly noBody: boolean,
    keepAlive: boolean,
  ) {
    this.shouldKeepAlive = keepAlive;
  }

  setHeader(name: string, value: string): this {
    (this.extra ??= []).push(name, value);
    return this;
  }

  writeHead(statusCode: number, headers: string[]): this {
    if (this.headersSent) return this;
    this.statusCode = statusCode;
    this.headersSent = true;
    let head = statusLine(statusCode);
    let connection: string | undefined;
    for (let pass = 0; pass < 2; pass++) {
      const list = pass === 0 ? this.extra : headers;
      if (list === undefined) continue;
      for (let i = 0; i + 1 < list.length; i += 2) {
        const name = list[i]!;
        const value = list[i + 1]!;
        head += `${name}: ${value}\r\n`;
        if (name.length === 10 && name.toLowerCase() === 'connection') connection = value.toLowerCase();
      }
    }
    head += currentDateLine();
    if (connection === 'close') this.shouldKeepAlive = false;
    else if (connection === undefined) {
      head += this.shouldKeepAlive ? this.conn.keepAliveLines() : 'Connection: close\r\n';
    }
    this.head = `${head}\r\n`;
    return this;
  }

  /**
   * A whole answer at once: status, an optional Content-Type, Content-Length and a latin1 body
   * (the common answers: stored values, empty 200/204). The same bytes writeHead() and end()
   * would write, built from cached pieces.
   */
  answerLatin1(statusCode: number, contentType: string | undefined, body: string): void {
    if (this.headersSent || this.extra !== undefined) {
      this.writeHead(statusCode, contentType === undefined ? ['Content-Length', String(body.length)] : ['Content-Type', contentType, 'Content-Length', String(body.length)]);
      this.end(body, 'latin1');
      return;
    }
    this.statusCode = statusCode;
    this.headersSent = true;
    this.writableEnded = true;
    if (this.destroyed) return;
    const head = answerPrefix(statusCode, contentType) + body.length + answerTail(this.shouldKeepAlive ? this.conn.keepAliveLines() : undefined);
    this.conn.write(this.noBody || body.length === 0 ? head : head + body, 'latin1', this);
  }

  end(chunk?: string | Buffer, encoding?: BufferEncoding): this {
    if (this.writableEnded) return this;
    if (!this.headersSent) this.writeHead(this.statusCode, ['Content-Length', String(chunk === undefined ? 0 : Buffer.byteLength(chunk))]);
    this.writableEnded = true;
    if (this.destroyed) return this;
    const head = this.head;
    this.head = '';
    if (chunk === undefined || this.noBody || chunk.length === 0) this.conn.write(head, 'latin1', this);
    else if (typeof chunk === 'string') {
      if (encoding === 'latin1' || encoding === 'binary') this.conn.write(head + chunk, 'latin1', this);
      else {
        this.conn.write(head, 'latin1', undefined);
        this.conn.write(chunk, encoding ?? 'utf8', this);
      }
    } else {
      this.conn.write(head, 'latin1', undefined);
      this.conn.write(chunk, undefined, this);
    }
    return this;
  }

  writeContinue(): void {
    if (!this.headersSent && !this.destroyed) this.conn.write(CONTINUE, 'latin1', undefined);
  }

  destroy(): this {
    this.conn.destroy();
    return this;
  }

  once(event: 'finish' | 'close', listener: () => void): this {
    if (this.writableFinished && this.finishFns === undefined && this.closeFns === undefined) {
      // Already written and told: a late listener still hears it (on the next tick).
      process.nextTick(listener);
      return this;
    }
    if (event === 'finish') (this.finishFns ??= []).push(listener);
    else (this.closeFns ??= []).push(listener);
    return this;
  }

  /**
   * @internal Handed to the kernel during a write without a callback: finished now; its
   * listeners (polls, shutdown, CP locks) hear it on the next tick, as from node's callback.
   */
  writtenNow(): void {
    this.writableFinished = true;
    if (this.finishFns !== undefined || this.closeFns !== undefined) process.nextTick(() => this.written());
  }

  /** @internal Handed to the kernel. */
  written(): void {
    this.writableFinished = true;
    const f = this.finishFns;
    this.finishFns = undefined;
    if (f !== undefined) for (const fn of f) fn();
    this.closed();
  }

  /** @internal The connection went before this answer was written. */
  lost(): void {
    if (this.writableFinished) return;
    this.destroyed = true;
    this.finishFns = undefined;
    this.closed();
  }

  private closed(): void {
    const c = this.closeFns;
    this.closeFns = undefined;
    if (c !== undefined) for (const fn of c) fn();
  }
}
