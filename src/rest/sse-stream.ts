// Server-Sent Events answers that own their socket (the map and queue change streams).
// SseWriter is what keeps a stream from costing its writers: an event appends its frame to the
// stream's pending text, and one socket write per event-loop turn sends what the turn made (one
// write per event and subscriber made 100 subscribers cost the writer most of its throughput:
// bench/sse.mjs). It also holds the slow-consumer bound — unsent bytes (the socket's buffer and
// the pending text) beyond MAX_UNSENT_BYTES cut the stream off with `event: cut` and a reason —
// and holds frames back until the answer's head is out. serveStream is a whole stream (head,
// heartbeat, `event: reset` for a Last-Event-ID it cannot resume from, cut) for the map and
// queue routes.

import type { Socket } from 'node:net';
import type { Logger } from '../core/logger.js';
import { rawHeader } from './headers.js';
import type { Request } from './route-kit.js';

/** Bytes a stream may leave unsent before it is cut off (its memory bound). */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/**
 * Pending bytes that are written at once rather than at the end of the turn: a burst (a batch,
 * a clear of many partitions) goes to the kernel as it comes, so only what the reader really
 * leaves unread counts against the budget.
 */
const FLUSH_BYTES = 64 * 1024;
/** How long an ended stream's last bytes may wait for a reader that does not read before the connection is dropped. */
const END_GRACE_MS = 10_000;

export const SSE_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n: subscribed\n\n';

export class SseWriter {
  /** Frames of this turn not written yet; shared frames are the same Buffer in every stream. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  private started = false;
  private ended = false;

  constructor(
    private readonly socket: Socket,
    /** Called once the budget is passed (the owner ends the stream with `end`). */
    private readonly overBudget: (reason: string) => void,
  ) {}

  /** Queue a frame; frames written before `start` follow the head. */
  write(frame: string | Buffer): void {
    if (this.ended || this.socket.destroyed) return;
    if (this.socket.writableLength + this.pendingBytes > MAX_UNSENT_BYTES) {
      this.drop();
      this.overBudget(`slow consumer: more than ${MAX_UNSENT_BYTES} bytes unread`);
      return;
    }
    const buf = typeof frame === 'string' ? Buffer.from(frame) : frame;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.started && this.pendingBytes >= FLUSH_BYTES) {
      this.flush();
      return;
    }
    if (!this.scheduled && this.started) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** The answer's head goes out, then what was queued before it. */
  start(head: string): void {
    if (this.ended) return;
    this.started = true;
    this.socket.write(head);
    this.flush();
  }

  private drop(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0 || this.ended || this.socket.destroyed) return;
    // A copy of bytes encoded once for all streams is much cheaper than encoding per stream.
    const out = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.drop();
    this.socket.write(out);
  };

  /**
   * The stream's last frame, then the connection closes; `dropPending` leaves out what was not
   * sent yet (a slow consumer's backlog). A reader that never reads is dropped after a grace.
   */
  end(last: string, dropPending: boolean): void {
    if (this.ended) return;
    if (dropPending) this.drop();
    else this.flush();
    this.ended = true;
    this.socket.end(last);
    setTimeout(() => this.socket.destroy(), END_GRACE_MS).unref();
  }
}

/**
 * Frames of the last event, without and with values, as bytes: the bus hands an event to every
 * subscriber in one loop, so its subscribers on this member share one encoding.
 */
export function sharedFrames<E>(format: (e: E, values: boolean) => string): (e: E, values: boolean) => Buffer {
  let last: E | undefined;
  const frames: [Buffer | undefined, Buffer | undefined] = [undefined, undefined];
  return (e, values) => {
    if (e !== last) {
      last = e;
      frames[0] = frames[1] = undefined;
    }
    const i = values ? 1 : 0;
    return (frames[i] ??= Buffer.from(format(e, values)));
  };
}

export interface StreamSink {
  /** Send one frame (dropped once the stream is over); a frame past the budget cuts the stream. */
  write(frame: string | Buffer): void;
  /** End the stream with `event: cut` and the reason. */
  cut(reason: string): void;
  /** The stream is over (cut, or the client left). */
  over(): boolean;
}

export interface StreamSpec {
  readonly heartbeatMs: number;
  /** Logged with a cut. */
  readonly what: Record<string, string>;
  /** What a Last-Event-ID reconnect is told in an `event: reset` (the stream keeps no journal); absent: the stream resumes from the id itself. */
  readonly resetReason?: string;
  /** Subscribe with `sink`; resolves with the unsubscribe once events flow. */
  subscribe(sink: StreamSink): Promise<() => void>;
  /** The head (and the reset) are out: the stream may start what it sends on its own (a journal replay). */
  started?(): void;
}

/** Serve `spec` on the request's socket until the client leaves, the stream is cut or the member stops. */
export function serveStream(r: Request, logger: Logger, spec: StreamSpec): Promise<void> {
  const resumeFrom = rawHeader(r.req, 'last-event-id');
  const socket = r.req.socket;
  return new Promise<void>((resolve) => {
    let unsubscribe: (() => void) | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let over = false;
    /** The answer's head is out (before it, a cut can only close the connection). */
    let started = false;
    const finish = (): void => {
      if (over) return;
      over = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
      unsubscribe?.();
      resolve();
    };
    const cut = (reason: string, slow: boolean): void => {
      if (over) return;
      if (!started) {
        socket.destroy();
        finish();
        return;
      }
      // The reason is the last few bytes the stream may add beyond its bound.
      out.end(`event: cut\ndata: ${JSON.stringify({ reason })}\n\n`, slow);
      logger.info({ ...spec.what, remote: socket.remoteAddress }, `change stream cut off: ${reason}`);
      finish();
    };
    const out = new SseWriter(socket, (reason) => cut(reason, true));
    const sink: StreamSink = {
      cut: (reason) => cut(reason, false),
      write: (frame) => {
        if (!over) out.write(frame);
      },
      over: () => over,
    };
    socket.once('close', finish);
    spec.subscribe(sink).then(
      (unsub) => {
        unsubscribe = unsub;
        if (over) {
          unsub();
          return;
        }
        // The stream owns the connection from here: its answer is never followed by another.
        started = true;
        // The reset comes first, before events that arrived while the subscription was made.
        out.start(SSE_HEAD + (resumeFrom === undefined || spec.resetReason === undefined ? '' : `event: reset\ndata: ${JSON.stringify({ lastEventId: resumeFrom, reason: spec.resetReason })}\n\n`));
        spec.started?.();
        heartbeat = setInterval(() => sink.write(': heartbeat\n\n'), spec.heartbeatMs);
        heartbeat.unref();
      },
      (e: unknown) => {
        socket.destroy(e instanceof Error ? e : undefined);
        finish();
      },
    );
  });
}
