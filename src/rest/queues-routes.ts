// The queue endpoints' handlers: offers (body or path value), polls with a timeout, size and
// stats (their paths are rows of route-table.ts). A poll's item stays reserved at the owner until
// its answer reached the kernel.

import { GridError } from '../core/errors.js';
import { andThen, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps } from './context.js';
import { parseQueuePath } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText, sendValue } from './respond.js';
import { unknown, type Method, type Request, type Route } from './route-kit.js';

/** POST rest/queues/<queue>: the body is the item. */
export function offerBody(r: Request, d: RestDeps, [queueName]: readonly string[]): MaybePromise<void> {
  return offer(r, d, queueName!, r.body.toString('latin1'), rawHeader(r.req, 'content-type'));
}

/** POST rest/queues/<queue>/<value>, the compatibility form: the decoded path value is the item, as text/plain. */
export function offerPathValue(r: Request, d: RestDeps, [queueName, value]: readonly string[]): MaybePromise<void> {
  return offer(r, d, queueName!, Buffer.from(value!, 'utf8').toString('latin1'), 'text/plain');
}

export function queueSize(r: Request, d: RestDeps, [queueName]: readonly string[]): MaybePromise<void> {
  return andThen(d.queues.size(queueName!), (n) => sendText(r.res, String(n)));
}

export function queueStats(r: Request, d: RestDeps, [queueName]: readonly string[]): MaybePromise<void> {
  return andThen(d.queues.stats(queueName!), (st) => sendJson(r.res, st));
}

/** DELETE or GET rest/queues/<queue>/<seconds> (the seconds checked by parseTimeoutSeconds when resolved). */
export function pollItem(r: Request, d: RestDeps, [queueName, seconds]: readonly string[]): MaybePromise<void> {
  return poll(r, d, queueName!, Number(seconds));
}

/** A queue path that no route takes (`tail` after rest/queues/, one trailing `/` removed): the name's 400s first. */
export function queuePathRefused(method: Method, rest: string, tail: string): Route {
  const { rawArg } = parseQueuePath(tail);
  if (rawArg === undefined) {
    throw new GridError('BAD_REQUEST', `missing poll timeout: ${method} needs /rest/queues/<queue>/<seconds>`);
  }
  // HEAD of a poll: a poll takes an item, which a HEAD must not.
  throw unknown(method, rest);
}

function offer(r: Request, d: RestDeps, queueName: string, value: string, contentType: string | undefined): MaybePromise<void> {
  return andThen(d.queues.offer(queueName, { value, contentType }), (accepted) => {
    if (!accepted) throw new GridError('QUEUE_FULL', `queue "${queueName}" is full (max-size ${d.queues.maxSizeOf(queueName)})`);
    sendEmpty(r.res, 200);
  });
}

function poll(r: Request, d: RestDeps, queueName: string, timeoutSeconds: number): MaybePromise<void> {
  const { req, res } = r;
  const socket = req.socket;
  const item = d.queues.poll(queueName, timeoutSeconds * 1000, {
    alive: () => !socket.destroyed && socket.writable && !res.writableEnded && !res.destroyed,
    onGone: (fn) => {
      res.once('close', () => {
        if (!res.writableFinished) fn();
      });
    },
    // The item stays reserved at the owner until the answer was handed to the kernel; a
    // response closed before that (client gone) returns it to the queue. node also emits
    // 'finish' for a response whose socket was destroyed mid-write (a client that stopped
    // reading and then went): by then the socket is destroyed, so that counts as not written.
    onAnswered: (fn) => {
      if (res.writableFinished) return fn(!socket.destroyed);
      if (res.destroyed) return fn(false);
      let told = false;
      const tell = (written: boolean): void => {
        if (told) return;
        told = true;
        fn(written);
      };
      res.once('finish', () => tell(!socket.destroyed));
      res.once('close', () => tell(false));
    },
  });
  return andThen(item, (it) => {
    if (res.destroyed || res.writableEnded) return;
    if (it === undefined) sendEmpty(res, 204);
    else sendValue(res, it);
  });
}
