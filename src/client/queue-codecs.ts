// Queue requests of the client protocol (service 0x03, research note §5.3), checked against
// hazelcast-client 5.7.0's lib/codec/Queue*Codec.js, decoded into plain objects, and the one
// response shape they add (a list of Data). Pure. Every queue request is bound to the
// partition of the queue's name.

import { MessageBuilder, MessageCursor, readInt32, readInt64, REQUEST_FIXED_OFFSET } from './codec.js';
import type { ClientMessage } from './frame.js';
import { emptyResponse } from './request-codecs.js';

export const QueueMessageId = {
  Offer: 0x030100,
  Put: 0x030200,
  Size: 0x030300,
  Remove: 0x030400,
  Poll: 0x030500,
  Take: 0x030600,
  Peek: 0x030700,
  Iterator: 0x030800,
  DrainTo: 0x030900,
  DrainToMaxSize: 0x030a00,
  Contains: 0x030b00,
  ContainsAll: 0x030c00,
  Clear: 0x030f00,
  AddAll: 0x031000,
  RemainingCapacity: 0x031300,
  IsEmpty: 0x031400,
} as const;

export type QueueRequest =
  | { readonly kind: 'offer'; readonly name: string; readonly value: Buffer; readonly timeoutMs: bigint }
  | { readonly kind: 'put' | 'remove'; readonly name: string; readonly value: Buffer }
  | { readonly kind: 'poll'; readonly name: string; readonly timeoutMs: bigint }
  | { readonly kind: 'drain'; readonly name: string; readonly max: number }
  | { readonly kind: 'addAll' | 'containsAll'; readonly name: string; readonly values: readonly Buffer[] }
  | { readonly kind: 'take' | 'peek' | 'size' | 'isEmpty' | 'clear' | 'remainingCapacity' | 'iterator'; readonly name: string };

const BY_NAME_ONLY: ReadonlyMap<number, 'take' | 'peek' | 'size' | 'isEmpty' | 'clear' | 'remainingCapacity' | 'iterator'> = new Map([
  [QueueMessageId.Take, 'take'],
  [QueueMessageId.Peek, 'peek'],
  [QueueMessageId.Size, 'size'],
  [QueueMessageId.IsEmpty, 'isEmpty'],
  [QueueMessageId.Clear, 'clear'],
  [QueueMessageId.RemainingCapacity, 'remainingCapacity'],
  [QueueMessageId.Iterator, 'iterator'],
]);

/** The queue request a message carries; undefined when its type is not a queue request Grid serves. */
export function decodeQueueRequest(type: number, m: ClientMessage): QueueRequest | undefined {
  const c = new MessageCursor(m);
  const init = c.initial;
  const byName = BY_NAME_ONLY.get(type);
  if (byName !== undefined) return { kind: byName, name: c.string('queue name') };
  switch (type) {
    case QueueMessageId.Offer: {
      const timeoutMs = readInt64(init, REQUEST_FIXED_OFFSET, 'timeout');
      const name = c.string('queue name');
      return { kind: 'offer', name, value: c.data('value'), timeoutMs };
    }
    case QueueMessageId.Put:
    case QueueMessageId.Remove: {
      const name = c.string('queue name');
      return { kind: type === QueueMessageId.Put ? 'put' : 'remove', name, value: c.data('value') };
    }
    case QueueMessageId.Contains: {
      // One item: containsAll of a list of one.
      const name = c.string('queue name');
      return { kind: 'containsAll', name, values: [c.data('value')] };
    }
    case QueueMessageId.Poll: {
      const timeoutMs = readInt64(init, REQUEST_FIXED_OFFSET, 'timeout');
      return { kind: 'poll', name: c.string('queue name'), timeoutMs };
    }
    case QueueMessageId.DrainTo:
      return { kind: 'drain', name: c.string('queue name'), max: -1 };
    case QueueMessageId.DrainToMaxSize: {
      const max = readInt32(init, REQUEST_FIXED_OFFSET, 'max size');
      return { kind: 'drain', name: c.string('queue name'), max };
    }
    case QueueMessageId.AddAll:
    case QueueMessageId.ContainsAll: {
      const name = c.string('queue name');
      const values = c.list(() => c.data('item'), 'item list');
      return { kind: type === QueueMessageId.AddAll ? 'addAll' : 'containsAll', name, values };
    }
    default:
      return undefined;
  }
}

/** Iterator and DrainTo answer a List<Data>: BEGIN, one Data frame per item, END. */
export function dataListResponse(requestType: number, correlationId: bigint, items: readonly Buffer[]): MessageBuilder {
  const b = emptyResponse(requestType, correlationId).begin();
  for (const d of items) b.bytes(d);
  return b.end();
}
