// Map and queue requests as Grid serves them (research note §5.2, §5.3), decoded into plain
// objects, and the three response shapes they answer with (nullable Data, boolean, int). The
// puts, removes and the other map writes are in map-codecs.ts.

import { MessageBuilder, MessageCursor, readInt64, REQUEST_FIXED_OFFSET, RESPONSE_FIXED_OFFSET, responseInitial } from './codec.js';
import type { ClientMessage } from './frame.js';
import { MessageId, responseType } from './message-ids.js';

export type DataRequest =
  | { readonly kind: 'map.get' | 'map.delete' | 'map.containsKey'; readonly name: string; readonly key: Buffer }
  | { readonly kind: 'map.size' | 'map.isEmpty' | 'map.clear'; readonly name: string }
  | { readonly kind: 'queue.offer'; readonly name: string; readonly value: Buffer; readonly timeoutMs: bigint }
  | { readonly kind: 'queue.poll'; readonly name: string; readonly timeoutMs: bigint }
  | { readonly kind: 'queue.peek' | 'queue.size' | 'queue.isEmpty'; readonly name: string };

/** The data request a message carries; undefined when its type is not one Grid serves. */
export function decodeDataRequest(type: number, m: ClientMessage): DataRequest | undefined {
  const c = new MessageCursor(m);
  const init = c.initial;
  switch (type) {
    case MessageId.MapGet:
    case MessageId.MapDelete:
    case MessageId.MapContainsKey: {
      const kind = type === MessageId.MapGet ? 'map.get' : type === MessageId.MapDelete ? 'map.delete' : 'map.containsKey';
      const name = c.string('map name');
      return { kind, name, key: c.data('key') };
    }
    case MessageId.MapSize:
      return { kind: 'map.size', name: c.string('map name') };
    case MessageId.MapIsEmpty:
      return { kind: 'map.isEmpty', name: c.string('map name') };
    case MessageId.MapClear:
      return { kind: 'map.clear', name: c.string('map name') };
    case MessageId.QueueOffer: {
      const timeoutMs = readInt64(init, REQUEST_FIXED_OFFSET, 'timeout');
      const name = c.string('queue name');
      return { kind: 'queue.offer', name, value: c.data('value'), timeoutMs };
    }
    case MessageId.QueuePoll: {
      const timeoutMs = readInt64(init, REQUEST_FIXED_OFFSET, 'timeout');
      return { kind: 'queue.poll', name: c.string('queue name'), timeoutMs };
    }
    case MessageId.QueuePeek:
      return { kind: 'queue.peek', name: c.string('queue name') };
    case MessageId.QueueSize:
      return { kind: 'queue.size', name: c.string('queue name') };
    case MessageId.QueueIsEmpty:
      return { kind: 'queue.isEmpty', name: c.string('queue name') };
    default:
      return undefined;
  }
}

export function emptyResponse(requestType: number, correlationId: bigint): MessageBuilder {
  return new MessageBuilder(responseInitial(responseType(requestType), correlationId));
}

export function nullableDataResponse(requestType: number, correlationId: bigint, data: Buffer | undefined): MessageBuilder {
  return emptyResponse(requestType, correlationId).nullableBytes(data);
}

export function boolResponse(requestType: number, correlationId: bigint, v: boolean): MessageBuilder {
  const init = responseInitial(responseType(requestType), correlationId, 1);
  init[RESPONSE_FIXED_OFFSET] = v ? 1 : 0;
  return new MessageBuilder(init);
}

export function intResponse(requestType: number, correlationId: bigint, v: number): MessageBuilder {
  const init = responseInitial(responseType(requestType), correlationId, 4);
  init.writeInt32LE(v, RESPONSE_FIXED_OFFSET);
  return new MessageBuilder(init);
}

/** ClientLocalBackupListener's response: a registration UUID at the first fixed offset. */
export function uuidResponse(requestType: number, correlationId: bigint, write: (buf: Buffer, offset: number) => void): MessageBuilder {
  const init = responseInitial(responseType(requestType), correlationId, 17);
  write(init, RESPONSE_FIXED_OFFSET);
  return new MessageBuilder(init);
}
