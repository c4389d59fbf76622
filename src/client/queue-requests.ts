// Queue requests of a client connection, run through the same QueueFacade REST uses (so each
// runs at the queue's owner whatever member the client sent it to). The waiting ones (a poll
// or take for an item, an offer or put for room) hold their answer until they are done and are
// cancelled, consuming or adding nothing, when the connection closes. What a poll or drain
// takes stays reserved at the owner until its answer was handed to the socket: a client gone
// before that gives it back to the queue, as for REST polls.

import type { MaybePromise } from '../core/maybe-promise.js';
import type { QueueFacade, QueueItem } from '../queue/queue-service.js';
import type { MessageBuilder, RequestHeader } from './codec.js';
import { dataOfStored, storedFormOf } from './data.js';
import { dataListResponse, type QueueRequest } from './queue-codecs.js';
import { boolResponse, emptyResponse, intResponse, nullableDataResponse } from './request-codecs.js';

/** The longest a client's poll or offer waits here (a take or put: "without limit"); Java's Integer.MAX_VALUE ms, about 24.8 days. */
export const MAX_WAIT_MS = 2 ** 31 - 1;

/** What the queue requests need of their connection. */
export interface ClientChannel {
  /** False once the connection has closed. */
  alive(): boolean;
  /** Call `fn` when the connection closes; returns what forgets it. */
  onClose(fn: () => void): () => void;
  /** Write an answer now and tell whether it was handed to the socket. */
  sendWritten(b: MessageBuilder, written: (ok: boolean) => void): void;
  /** The marker a handler returns for an answer it already wrote itself. */
  readonly sent: MessageBuilder;
}

function itemOf(data: Buffer): QueueItem {
  const s = storedFormOf(data);
  return { value: s.value, contentType: s.contentType };
}

function dataOf(it: QueueItem): Buffer {
  return dataOfStored(it.value, it.contentType);
}

/** A client timeout (ms, i64) as a wait here: negative = without limit, capped at MAX_WAIT_MS. */
function waitOf(timeoutMs: bigint, negative: number): number {
  if (timeoutMs < 0n) return negative;
  return timeoutMs > BigInt(MAX_WAIT_MS) ? MAX_WAIT_MS : Number(timeoutMs);
}

export function serveQueue(h: RequestHeader, r: QueueRequest, queues: QueueFacade, ch: ClientChannel): MaybePromise<MessageBuilder> {
  const { type, correlationId: corr } = h;
  switch (r.kind) {
    case 'offer':
    case 'put': {
      // A negative offer timeout does not wait (Java's BlockingQueue.offer); a put waits without limit.
      const waitMs = r.kind === 'offer' ? waitOf(r.timeoutMs, 0) : MAX_WAIT_MS;
      const item = itemOf(r.value);
      if (waitMs === 0) return then(queues.offer(r.name, item), (ok) => boolResponse(type, corr, ok));
      return waiting(ch, (client) => queues.offer(r.name, item, { timeoutMs: waitMs, client }), (ok) =>
        r.kind === 'put' ? emptyResponse(type, corr) : boolResponse(type, corr, ok),
      );
    }
    case 'poll':
    case 'take': {
      const waitMs = r.kind === 'poll' ? waitOf(r.timeoutMs, MAX_WAIT_MS) : MAX_WAIT_MS;
      return reserving(ch, (client) => queues.poll(r.name, waitMs, client), (it) => nullableDataResponse(type, corr, it === undefined ? undefined : dataOf(it)));
    }
    case 'drain':
      return reserving(ch, (client) => queues.drain(r.name, r.max, client), (items) => dataListResponse(type, corr, items.map(dataOf)), (items) => items.length > 0);
    case 'peek':
      return then(queues.peek(r.name), (it) => nullableDataResponse(type, corr, it === undefined ? undefined : dataOf(it)));
    case 'size':
      return then(queues.size(r.name), (n) => intResponse(type, corr, n));
    case 'isEmpty':
      return then(queues.size(r.name), (n) => boolResponse(type, corr, n === 0));
    case 'clear':
      return then(queues.clear(r.name), () => emptyResponse(type, corr));
    case 'remainingCapacity':
      return then(queues.remainingCapacity(r.name), (n) => intResponse(type, corr, n));
    case 'iterator':
      return then(queues.items(r.name), (items) => dataListResponse(type, corr, items.map(dataOf)));
    case 'addAll':
      return then(queues.addAll(r.name, r.values.map(itemOf)), (ok) => boolResponse(type, corr, ok));
    case 'containsAll':
      return then(queues.containsAll(r.name, r.values.map(itemOf)), (ok) => boolResponse(type, corr, ok));
    case 'remove':
      return then(queues.remove(r.name, itemOf(r.value)), (ok) => boolResponse(type, corr, ok));
  }
}

/** The client of a waiting operation: this connection, while it is open. */
interface WaitClient {
  alive(): boolean;
  onGone(fn: () => void): void;
  onAnswered(fn: (written: boolean) => void): void;
}

/** A waiting operation whose result reserves nothing (an offer or put): cancelled when the connection closes. */
function waiting<T>(ch: ClientChannel, run: (client: WaitClient) => MaybePromise<T>, reply: (t: T) => MessageBuilder): MaybePromise<MessageBuilder> {
  return reserving(ch, run, reply, () => false);
}

/**
 * Runs `run` with this connection as its client. When the result reserved something
 * (`reserved`), the answer is written here so the reservation follows the write: confirmed
 * once it was handed to the socket, released when it could not be.
 */
function reserving<T>(ch: ClientChannel, run: (client: WaitClient) => MaybePromise<T>, reply: (t: T) => MessageBuilder, reserved: (t: T) => boolean = (t) => t !== undefined): MaybePromise<MessageBuilder> {
  const answered: ((written: boolean) => void)[] = [];
  let forget: (() => void) | undefined;
  const client: WaitClient = {
    alive: ch.alive,
    onGone: (fn) => {
      forget = ch.onClose(fn);
    },
    onAnswered: (fn) => answered.push(fn),
  };
  const result = run(client);
  // A long-lived connection runs many waits: each forgets its close callback once it is over.
  const done = (): void => forget?.();
  if (result instanceof Promise) result.then(done, done);
  else done();
  return then(result, (t) => {
    const b = reply(t);
    if (answered.length === 0 || !reserved(t)) {
      for (const fn of answered.splice(0)) fn(true);
      return b;
    }
    ch.sendWritten(b, (ok) => {
      for (const fn of answered.splice(0)) fn(ok);
    });
    return ch.sent;
  });
}

function then<T, R>(v: MaybePromise<T>, f: (t: T) => R): MaybePromise<R> {
  return v instanceof Promise ? v.then(f) : f(v);
}
