// One Server-Sent Events answer that owns its socket, for the queue change streams (and any
// later stream): the head once the subscription is in place, a heartbeat comment, an
// `event: reset` for a Last-Event-ID it cannot resume from, and the slow-consumer bound — a
// stream whose unsent bytes pass MAX_UNSENT_BYTES is cut off with `event: cut` and its reason
// and the connection closed, so a reader that stops reading holds neither the writers (every
// write is a non-blocking socket.write) nor more than the budget of the member's memory. The
// same conventions as the map stream of events-routes.ts.

import type { Logger } from '../core/logger.js';
import { MAX_UNSENT_BYTES } from './events-routes.js';
import { rawHeader } from './headers.js';
import type { Request } from './route-kit.js';

export interface StreamSink {
  /** Send one frame (dropped once the stream is over); a frame past the budget cuts the stream. */
  write(text: string): void;
  /** End the stream with `event: cut` and the reason. */
  cut(reason: string): void;
}

export interface StreamSpec {
  readonly heartbeatMs: number;
  /** Logged with a cut. */
  readonly what: Record<string, string>;
  /** What a Last-Event-ID reconnect is told (the stream keeps no journal). */
  readonly resetReason: string;
  /** Subscribe with `sink`; resolves with the unsubscribe once events flow. */
  subscribe(sink: StreamSink): Promise<() => void>;
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
    const sink: StreamSink = {
      cut: (reason) => {
        if (over) return;
        if (!started) {
          socket.destroy();
          finish();
          return;
        }
        // The reason is the last few bytes the stream may add beyond its bound.
        socket.end(`event: cut\ndata: ${JSON.stringify({ reason })}\n\n`);
        logger.info({ ...spec.what, remote: socket.remoteAddress }, `change stream cut off: ${reason}`);
        finish();
      },
      write: (text) => {
        if (over || socket.destroyed) return;
        if (socket.writableLength > MAX_UNSENT_BYTES) {
          sink.cut(`slow consumer: more than ${MAX_UNSENT_BYTES} bytes unread`);
          return;
        }
        socket.write(text);
      },
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
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n: subscribed\n\n');
        if (resumeFrom !== undefined) sink.write(`event: reset\ndata: ${JSON.stringify({ lastEventId: resumeFrom, reason: spec.resetReason })}\n\n`);
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
