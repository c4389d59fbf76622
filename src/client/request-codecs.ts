// Map reads as Grid serves them (research note §5.2), decoded into plain objects, and the
// response shapes the data requests answer with (nullable Data, boolean, int). The puts,
// removes and the other map writes are in map-codecs.ts, queue requests in queue-codecs.ts,
// atomic longs in atomic-long-codecs.ts.

import { MessageBuilder, MessageCursor, RESPONSE_FIXED_OFFSET, responseInitial } from './codec.js';
import type { ClientMessage } from './frame.js';
import { MessageId, responseType } from './message-ids.js';

export type DataRequest =
  | { readonly kind: 'map.get' | 'map.delete' | 'map.containsKey'; readonly name: string; readonly key: Buffer }
  | { readonly kind: 'map.size' | 'map.isEmpty' | 'map.clear'; readonly name: string };

/** The data request a message carries; undefined when its type is not one Grid serves. */
export function decodeDataRequest(type: number, m: ClientMessage): DataRequest | undefined {
  const c = new MessageCursor(m);
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
