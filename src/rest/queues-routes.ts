// The queue endpoints: offers (body or path value), polls with a timeout, size and stats.
// A poll's item stays reserved at the owner until its answer reached the kernel.

import { GridError } from '../core/errors.js';
import { andThen, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps } from './context.js';
import { decodeSegment, parseQueuePath, parseTimeoutSeconds } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText, sendValue } from './respond.js';
import { isGet, unknown, type Method, type Request, type Route } from './route-kit.js';

export function queueRoute(method: Method, rest: string): Route {
  const { queueName, rawArg } = parseQueuePath(rest);
  if (method === 'POST') {
    if (rawArg === undefined) {
      return {
        group: 'DATA',
        readsBody: true,
        run: (r, d) => offer(r, d, queueName, r.body.toString('latin1'), rawHeader(r.req, 'content-type')),
      };
    }
    // Compatibility form: the decoded path value is the item, as text/plain.
    const value = Buffer.from(decodeSegment(rawArg, 'queue value'), 'utf8').toString('latin1');
    return { group: 'DATA', readsBody: false, run: (r, d) => offer(r, d, queueName, value, 'text/plain') };
  }
  if (rawArg === undefined) {
    throw new GridError('BAD_REQUEST', `missing poll timeout: ${method} needs /rest/queues/<queue>/<seconds>`);
  }
  if (isGet(method) && rawArg === 'size') {
    return {
      group: 'DATA',
      readsBody: false,
      run: (r, d) => andThen(d.queues.size(queueName), (n) => sendText(r.res, String(n))),
    };
  }
  if (isGet(method) && rawArg === 'stats') {
    return { group: 'DATA', readsBody: false, run: (r, d) => andThen(d.queues.stats(queueName), (st) => sendJson(r.res, st)) };
  }
  if (method === 'HEAD') throw unknown(method, `rest/queues/${rest}`);
  const timeoutSeconds = parseTimeoutSeconds(rawArg);
  return {
    group: 'DATA',
    readsBody: false,
    run: (r, d) => poll(r, d, queueName, timeoutSeconds),
  };
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
