// Grid's own HTTP/1.1 connection handler for REST: it reads requests straight from the
// socket's buffers (http1-parser.ts), hands them to the REST server as light request and
// response objects (no IncomingMessage, ServerResponse, streams or header maps), writes each
// answer as one string (head and body together) and the answers of one read together. What it
// does not take itself (see parseHead's `bail`) goes to node:http: the connection is handed over
// at that request, once every answer before it is out, so answers stay in order.

import type net from 'node:net';
import type { SharedReads } from './context.js';
import { ConnectionState } from './connection-state.js';
import { FastRequest, FastResponse, type AnswerWriter } from './http1-exchange.js';
import { ChunkedDecoder, FAST_HEAD_LIMIT, parseHead, type RequestHead } from './http1-parser.js';

/** Pipelined requests that may wait on one connection before it stops reading more. */
export const MAX_QUEUED_PER_CONNECTION = 32;
/** Unanswered output past which a connection stops reading (a client that does not read). */
const OUTPUT_HIGH_WATER_BYTES = 1_048_576;
/** Unparsed input kept while a request is being worked on, before reading pauses. */
const INPUT_HIGH_WATER_BYTES = FAST_HEAD_LIMIT + 65_536;

/** What a connection needs of the REST server. */
export interface Http1Host {
  /** Work on a request (its answer goes out through `res`); the server calls conn.requestDone() when finished. */
  start(req: FastRequest, res: FastResponse, expectsContinue: boolean, conn: Http1Connection): void;
  /** node:http takes the connection from the bytes `rest` on (the first request it must parse). */
  handOff(conn: Http1Connection, rest: Buffer): void;
  /** The server is closing: every answer carries Connection: close. */
  readonly closing: boolean;
  /** node:http's timeouts, read at each check (the reference path's settings are the settings). */
  timeouts(): { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number };
  /** node:http's keep-alive timeout now, in ms (read per answer: no object built). */
  keepAliveMs(): number;
  /** The listener's shared read buffer (member/ wires net/listener's). */
  readonly sharedReads: SharedReads;
  /** A raw error answer (status line, Content-Length: 0, Connection: close, X-Grid-Error) for a framing error. */
  framingError(status: 408 | 400 | 431, reason: string): string;
}

/** The keep-alive lines of an answer, rebuilt only when the timeout changes. */
let keepAliveLinesMs = -1;
let keepAliveLinesText = '';
const NO_BYTES = Buffer.alloc(0);

/** The body of the request being received: by Content-Length or chunked. */
interface BodyInProgress {
  readonly req: FastRequest;
  readonly res: FastResponse;
  /** Bytes still to come of a Content-Length body (unused when chunked). */
  remaining: number;
  readonly chunked: ChunkedDecoder | undefined;
}

export class Http1Connection extends ConnectionState implements AnswerWriter {
  /** Bytes read and not parsed yet. */
  private input: Buffer | undefined;
  private body: BodyInProgress | undefined;
  /** When the request being received began (its first byte), 0 between requests. */
  private requestSince = 0;
  /** When the connection last had something to do (bytes arrived, an answer finished): keep-alive counts from here. */
  private idleSince = Date.now();
  /** Answers being gathered during one read (written together at its end). */
  private batching = false;
  /** The gathered chunks and their encodings, alternating; kept between reads (no array per read). */
  private readonly batch: (string | Buffer | BufferEncoding | undefined)[] = [];
  /** Entries of `batch` in use. */
  private batchLength = 0;
  /** Answers written, waiting for their write to complete, and how many each write holds. */
  private readonly unwritten: FastResponse[] = [];
  private readonly writeSizes: number[] = [];
  private pendingInBatch = 0;
  /** Bytes (characters) gathered in `batch`. */
  private batchBytes = 0;
  /** Reading stopped until the kernel takes the answers written so far. */
  private outputWait = false;
  /** Set once nothing more is read: an answer said Connection: close, a framing error, hand-off. */
  private stopped = false;
  /** An answer said Connection: close: nothing after it is answered. */
  private closeAfter = false;
  /** The socket closed: nothing more is written or read. */
  private gone = false;
  /** process() is running (a nested call from a synchronous answer returns at once). */
  private processing = false;
  /** Reading paused: too many requests queued, or too much input kept. */
  private readingPaused = false;
  /** node:http has the connection now. */
  private handedOff = false;
  /** Reads come through the listener's shared buffer (setReadSink), not 'data' events. */
  private readonly sharedReads: boolean;
  /**
   * A TLS socket never finishes a write synchronously (TLSWrap hands the encrypted record to
   * the TCP handle and reports later), so the kernel-took-it-all shortcut never applies: the
   * callback rides on the answer's own write instead of a second, zero-length write, which on
   * TLS costs a trip through the TLS layer per answer.
   */
  private readonly writesCompleteLater: boolean;
  private readonly reads: SharedReads;
  private readonly onWritten = (err?: Error | null): void => this.written(err);

  constructor(
    private readonly host: Http1Host,
    readonly socket: net.Socket,
    head: Buffer,
    private readonly maxHeaderBytes: number,
  ) {
    super();
    // A client's FIN ends the connection (the socket is not half-open, as with node:http):
    // what was not answered by then is not answered, and 'close' cleans up. A socket the
    // listener took over reads into its shared buffer: bytes kept past a read are copied.
    this.writesCompleteLater = (socket as { encrypted?: boolean }).encrypted === true;
    this.reads = host.sharedReads;
    this.sharedReads = this.reads.setReadSink(socket, this.onSharedRead);
    if (!this.sharedReads) socket.on('data', this.onData);
    socket.once('close', this.onClose);
    socket.on('drain', this.onDrain);
    this.onData(head);
    socket.resume();
  }

  /** Keep-alive lines of an answer (node's wording). */
  keepAliveLines(): string {
    const ms = this.host.keepAliveMs();
    if (ms !== keepAliveLinesMs) {
      keepAliveLinesMs = ms;
      keepAliveLinesText = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(ms / 1000)}\r\n`;
    }
    return keepAliveLinesText;
  }

  /** A read in the listener's shared buffer: what is kept afterwards must be a copy. */
  private readonly onSharedRead = (bytes: Buffer): void => {
    this.onData(bytes);
    const input = this.input;
    if (input !== undefined && this.reads.inSharedReadBuffer(input)) this.input = Buffer.from(input);
  };

  /** Bytes that outlive the read they came in (bodies, the rest handed to node:http). */
  private kept(bytes: Buffer): Buffer {
    return this.sharedReads && this.reads.inSharedReadBuffer(bytes) ? Buffer.from(bytes) : bytes;
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.stopped) return;
    const now = Date.now();
    this.idleSince = now;
    if (this.input === undefined) {
      this.input = chunk;
      if (this.body === undefined && this.requestSince === 0) this.requestSince = now;
    } else {
      this.input = Buffer.concat([this.input, chunk]);
    }
    this.batching = true;
    try {
      this.process();
    } finally {
      this.flush();
    }
  };

  private readonly onDrain = (): void => {
    if (!this.outputWait || this.gone || this.socket.writableLength >= OUTPUT_HIGH_WATER_BYTES / 2) return;
    this.outputWait = false;
    this.resumeAndProcess();
  };

  private readonly onClose = (): void => {
    this.gone = true;
    this.stopped = true;
    this.queue.length = 0;
    const body = this.body;
    this.body = undefined;
    body?.req.close();
    for (const res of this.unwritten.splice(0)) res.lost();
    const current = this.current;
    if (current instanceof FastResponse) current.lost();
  };

  /** Parse and start what the buffered bytes hold, as far as the connection's state allows. */
  private process(): void {
    if (this.processing) return;
    this.processing = true;
    try {
      this.processLoop();
    } finally {
      this.processing = false;
      // A request has begun arriving: its head must be complete within headersTimeout.
      if (this.input !== undefined && this.body === undefined && this.requestSince === 0) this.requestSince = Date.now();
    }
    if (!this.stopped && this.input !== undefined && this.input.length > INPUT_HIGH_WATER_BYTES && this.busy) this.pauseReading();
  }

  private processLoop(): void {
    while (this.input !== undefined && !this.stopped) {
      if (this.batchBytes + this.socket.writableLength > OUTPUT_HIGH_WATER_BYTES) {
        // Answers pile up faster than the client reads them: read nothing more until they are out.
        this.waitForOutput();
        return;
      }
      const buf = this.input;
      if (this.body !== undefined) {
        const used = this.feedBody(this.body, buf);
        this.consume(used);
        if (this.body !== undefined) return;
        continue;
      }
      if (this.busy) {
        if (!this.queueAhead(buf)) return;
        continue;
      }
      const head = parseHead(buf, 0, buf.length, Math.min(FAST_HEAD_LIMIT, this.maxHeaderBytes >> 1));
      if (head === 'incomplete') return;
      if (head === 'bail') {
        this.handOff();
        return;
      }
      this.consume(head.headBytes);
      this.begin(head);
    }
  }

  /** Go on with bytes already read (outside a read), their answers written together at the end. */
  private processBuffered(): void {
    if (this.processing || this.input === undefined) return;
    const outer = !this.batching;
    if (outer) this.batching = true;
    try {
      this.process();
    } finally {
      if (outer) this.flush();
    }
  }

  /**
   * While a request is being worked on, take the next ones that are complete in the buffer
   * (head and whole Content-Length body) into the queue. False when nothing more can be taken
   * now: incomplete, chunked, Expect, something for node:http, or the queue is full.
   */
  private queueAhead(buf: Buffer): boolean {
    if (this.queue.length >= MAX_QUEUED_PER_CONNECTION) {
      this.pauseReading();
      return false;
    }
    const head = parseHead(buf, 0, buf.length, Math.min(FAST_HEAD_LIMIT, this.maxHeaderBytes >> 1));
    if (head === 'incomplete' || head === 'bail' || head.chunked || head.expectContinue) return false;
    const bodyBytes = head.contentLength > 0 ? head.contentLength : 0;
    if (buf.length < head.headBytes + bodyBytes) return false;
    const req = this.request(head);
    const res = this.response(head);
    if (bodyBytes > 0) req.wholeBody = this.kept(buf.subarray(head.headBytes, head.headBytes + bodyBytes));
    req.complete = true;
    this.consume(head.headBytes + bodyBytes);
    this.queue.push(() => {
      this.lastReq = req;
      this.host.start(req, res, false, this);
      req.finish();
    });
    return true;
  }

  private request(head: RequestHead): FastRequest {
    return new FastRequest(this.socket, head.method, head.url, head.httpVersion, head.rawHeaders);
  }

  private response(head: RequestHead): FastResponse {
    return new FastResponse(this, head.method === 'HEAD', head.keepAlive && !this.host.closing);
  }

  private begin(head: RequestHead): void {
    const req = this.request(head);
    const res = this.response(head);
    this.lastReq = req;
    if (head.chunked) {
      this.body = { req, res, remaining: 0, chunked: new ChunkedDecoder(this.maxHeaderBytes) };
    } else if (head.contentLength > 0) {
      const input = this.input;
      if (input !== undefined && input.length >= head.contentLength && !head.expectContinue) {
        // The whole body came with the head: handed over at once, no 'data' events.
        req.wholeBody = this.kept(input.subarray(0, head.contentLength));
        req.complete = true;
        this.consume(head.contentLength);
      } else {
        this.body = { req, res, remaining: head.contentLength, chunked: undefined };
      }
    }
    if (this.body === undefined) this.requestSince = 0;
    else if (this.requestSince === 0) this.requestSince = this.idleSince;
    this.host.start(req, res, head.expectContinue, this);
    if (this.body === undefined) req.finish();
  }

  /** Feed the body in progress; returns the bytes of `buf` it used. */
  private feedBody(body: BodyInProgress, buf: Buffer): number {
    if (body.chunked === undefined) {
      const n = Math.min(body.remaining, buf.length);
      body.remaining -= n;
      if (n > 0) body.req.push(this.kept(n === buf.length ? buf : buf.subarray(0, n)));
      if (body.remaining === 0) this.bodyDone(body);
      return n;
    }
    const decoder = body.chunked;
    const used = decoder.feed(buf, 0, buf.length, (chunk) => body.req.push(this.kept(chunk)));
    if (decoder.error !== undefined) {
      this.bodyFailed(body, 400, `malformed HTTP request (${decoder.error})`);
      return used;
    }
    if (decoder.done) this.bodyDone(body);
    return used;
  }

  private bodyDone(body: BodyInProgress): void {
    this.body = undefined;
    this.requestSince = 0;
    body.req.finish();
  }

  /**
   * The body being received cannot complete (malformed chunk, timeout): the request answers
   * with the error in its place if it is still reading its body, otherwise the error follows
   * its answer; either way the connection closes.
   */
  private bodyFailed(body: BodyInProgress, status: 400 | 408, reason: string): void {
    this.body = undefined;
    this.stopped = true;
    this.input = undefined;
    this.bodyError = { status, reason };
    this.pendingError = this.host.framingError(status, reason);
    this.abortBody?.();
    if (this.pendingError === undefined) return; // answered in the request's place
    body.req.close();
    if (!this.busy) this.sendPendingError();
  }

  private consume(n: number): void {
    const buf = this.input;
    if (buf === undefined) return;
    this.input = n >= buf.length ? undefined : buf.subarray(n);
  }

  /** The server finished the request being worked on: start the next. */
  requestDone(): void {
    this.busy = false;
    this.current = undefined;
    this.idleSince = Date.now();
    if (this.gone) return;
    if (this.closeAfter) {
      this.queue.length = 0;
      this.closeAfterAnswers();
      return;
    }
    while (!this.busy && !this.gone) {
      const next = this.queue.shift();
      if (next === undefined) break;
      next();
    }
    if (this.busy || this.gone) return;
    if (this.pendingError !== undefined) {
      this.sendPendingError();
      return;
    }
    if (this.readingPaused) {
      this.resumeAndProcess();
      return;
    }
    this.processBuffered();
  }

  /** @internal An answer's bytes, in order; `res` is told when they are written. */
  write(data: string | Buffer, encoding: BufferEncoding | undefined, res: FastResponse | undefined): void {
    if (this.gone) {
      res?.lost();
      return;
    }
    if (res !== undefined) {
      this.unwritten.push(res);
      this.pendingInBatch++;
      if (!res.shouldKeepAlive) this.stopped = this.closeAfter = true;
    }
    if (this.batching) {
      this.batch[this.batchLength++] = data;
      this.batch[this.batchLength++] = encoding;
      this.batchBytes += data.length;
      return;
    }
    this.writeOut(data, encoding, undefined, 0);
    if (this.closeAfter) this.closeAfterAnswers();
    else if (this.socket.writableLength > OUTPUT_HIGH_WATER_BYTES) this.waitForOutput();
  }

  private flush(): void {
    const batch = this.batch;
    const n = this.batchLength;
    this.batching = false;
    this.batchLength = 0;
    this.batchBytes = 0;
    if (this.gone) return;
    const socket = this.socket;
    if (n > 0) {
      if (n === 2) this.writeOut(batch[0] as string | Buffer, batch[1] as BufferEncoding | undefined, undefined, 0);
      else this.writeOut(undefined, undefined, batch, n);
      // The answers are node's now: the slots let go of them.
      for (let i = 0; i < n; i++) batch[i] = undefined;
    }
    if (this.closeAfter) this.closeAfterAnswers();
    else if (this.outputWait) {
      // Resume once the kernel has taken enough: at 'drain' (the listener is always there), or
      // at once if it took nearly everything (no 'drain' comes then).
      if (socket.writableLength < OUTPUT_HIGH_WATER_BYTES / 2) setImmediate(this.onDrain);
    } else if (socket.writableLength > OUTPUT_HIGH_WATER_BYTES) this.waitForOutput();
  }

  private waitForOutput(): void {
    if (this.gone) return;
    this.pauseReading();
    if (this.outputWait) return;
    this.outputWait = true;
  }

  /**
   * Write one chunk, or a batch of them (corked: one writev), for the `pendingInBatch` answers
   * they end. node's write callback costs a nextTick per write; when nothing is queued before,
   * the write goes without one and the answers count as written as soon as the kernel took
   * every byte (as node's callback would have said on the next tick). Only when bytes stay in
   * node's buffer does a zero-length write with a callback tell when they are out. On TLS the
   * callback always goes with the write (writesCompleteLater).
   */
  private writeOut(data: string | Buffer | undefined, encoding: BufferEncoding | undefined, batch: (string | Buffer | BufferEncoding | undefined)[] | undefined, batchLength: number): void {
    const socket = this.socket;
    const n = this.pendingInBatch;
    this.pendingInBatch = 0;
    const idle = !this.writesCompleteLater && socket.writableLength === 0 && this.writeSizes.length === 0;
    const cb = idle ? undefined : this.onWritten;
    if (batch === undefined) {
      socket.write(data as string | Buffer, encoding as BufferEncoding, cb);
    } else {
      socket.cork();
      const last = batchLength - 2;
      for (let i = 0; i < batchLength; i += 2) {
        socket.write(batch[i] as string | Buffer, batch[i + 1] as BufferEncoding, i === last ? cb : undefined);
      }
      socket.uncork();
    }
    if (!idle) {
      this.writeSizes.push(n);
      return;
    }
    if (socket.writableLength === 0 && !socket.destroyed) {
      // writtenNow() only schedules its listeners: nothing writes in between.
      for (let i = 0; i < n; i++) this.unwritten.shift()!.writtenNow();
      return;
    }
    socket.write(NO_BYTES, this.onWritten);
    this.writeSizes.push(n);
  }

  private written(err?: Error | null): void {
    const n = this.writeSizes.shift() ?? 0;
    // Taken out before any listener runs (a listener may write, and count its own answers).
    const done = this.unwritten.splice(0, n);
    for (const res of done) {
      if (err) res.lost();
      else res.written();
    }
  }

  /** After an answer that said Connection: close: end the connection once it is out. */
  private closeAfterAnswers(): void {
    if (this.gone || this.handedOff || this.busy || this.batching) return;
    this.queue.length = 0;
    this.socket.destroySoon();
  }

  private sendPendingError(): void {
    const answer = this.pendingError;
    if (answer === undefined) return;
    this.pendingError = undefined;
    this.stopped = true;
    if (this.gone) return;
    if (this.batching) {
      this.batch[this.batchLength++] = answer;
      this.batch[this.batchLength++] = 'latin1';
      this.flush();
    } else if (this.socket.writable) {
      this.socket.write(answer, 'latin1');
    }
    this.socket.destroySoon();
  }

  private pauseReading(): void {
    if (this.readingPaused || this.gone) return;
    this.readingPaused = true;
    this.socket.pause();
  }

  private resumeAndProcess(): void {
    if (this.busy && this.queue.length >= MAX_QUEUED_PER_CONNECTION / 2) return;
    if (this.outputWait) return;
    this.readingPaused = false;
    this.processBuffered();
    if (!this.readingPaused && !this.gone && !this.handedOff) this.socket.resume();
  }

  /** Give the connection to node:http from the buffered request on (nothing is owed before it). */
  private handOff(): void {
    const rest = this.kept(this.input ?? NO_BYTES);
    this.input = undefined;
    this.stopped = true;
    this.handedOff = true;
    this.flush();
    if (this.sharedReads) this.reads.setReadSink(this.socket, undefined);
    else this.socket.off('data', this.onData);
    this.socket.off('close', this.onClose);
    this.socket.off('drain', this.onDrain);
    this.socket.pause();
    this.host.handOff(this, rest);
  }

  /** Timeouts, checked by the server every second or so. */
  checkTimeouts(now: number): void {
    if (this.gone || this.handedOff) return;
    const t = this.host.timeouts();
    if (this.body !== undefined) {
      if (t.requestMs > 0 && this.requestSince !== 0 && now - this.requestSince > t.requestMs) {
        this.bodyFailed(this.body, 408, 'request not received in time');
      }
      return;
    }
    if (this.input !== undefined && !this.busy && !this.stopped) {
      if (t.headersMs > 0 && this.requestSince !== 0 && now - this.requestSince > t.headersMs) {
        this.stopped = true;
        this.input = undefined;
        this.pendingError = this.host.framingError(408, 'request not received in time');
        this.sendPendingError();
      }
      return;
    }
    if (!this.busy && this.input === undefined && this.queue.length === 0 && this.unwritten.length === 0) {
      if (t.keepAliveMs > 0 && now - this.idleSince > t.keepAliveMs) this.socket.destroy();
    }
  }

  /** Close now if nothing is being worked on (server closing). */
  closeIfIdle(): void {
    if (!this.busy && this.body === undefined && this.queue.length === 0 && this.unwritten.length === 0) this.socket.destroy();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
