// Map reads as Grid serves them (research note §5.2), decoded into plain objects, and the
// response shapes the data requests answer with (nullable Data, boolean, int). The puts,
// removes and the other map writes are in map-codecs.ts, queue requests in queue-codecs.ts,
// atomic longs in atomic-long-codecs.ts.

import { BACKUP_ACKS_OFFSET, CORRELATION_OFFSET, MessageBuilder, MessageCursor, RESPONSE_FIXED_OFFSET, responseInitial, TYPE_OFFSET } from './codec.js';
import { ClientContentType, DATA_HEADER_BYTES, dataOfStored, TypeId } from './data.js';
import { Flag, FRAME_HEADER_BYTES, type ClientMessage } from './frame.js';
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

/** Type ids of the client markers whose Data is [header][int32 BE length][the stored bytes]. */
const LENGTH_PREFIXED_TYPE: Readonly<Record<string, number>> = {
  [ClientContentType.STRING]: TypeId.STRING,
  [ClientContentType.JSON]: TypeId.JSON,
  [ClientContentType.BYTE_ARRAY]: TypeId.BYTE_ARRAY,
};

/**
 * The bytes of a nullable-Data response for a stored value (a get's answer): the same bytes as
 * encodeMessage(nullableDataResponse(type, corr, dataOfStored(value, contentType)).frames), written
 * into one buffer, with no frame objects and no intermediate Data buffer for the client's own
 * value types (the common case). Other values (REST-written ones) go the general way.
 */
export function storedValueResponseBytes(requestType: number, correlationId: bigint, value: string | undefined, contentType: string | undefined): Buffer {
  const initialBytes = FRAME_HEADER_BYTES + RESPONSE_FIXED_OFFSET;
  const prefixedType = contentType === undefined ? undefined : LENGTH_PREFIXED_TYPE[contentType];
  const raw = contentType === ClientContentType.DATA;
  let general: Buffer | undefined;
  let dataBytes: number;
  if (value === undefined) dataBytes = 0;
  else if (prefixedType !== undefined) dataBytes = DATA_HEADER_BYTES + 4 + value.length;
  else if (raw) dataBytes = value.length;
  else dataBytes = (general = dataOfStored(value, contentType)).length;
  const out = Buffer.allocUnsafe(initialBytes + FRAME_HEADER_BYTES + dataBytes);
  out.writeInt32LE(initialBytes, 0);
  out.writeUInt16LE(Flag.UNFRAGMENTED, 4);
  out.writeInt32LE(responseType(requestType), FRAME_HEADER_BYTES + TYPE_OFFSET);
  out.writeBigInt64LE(correlationId, FRAME_HEADER_BYTES + CORRELATION_OFFSET);
  out[FRAME_HEADER_BYTES + BACKUP_ACKS_OFFSET] = 0;
  let at = initialBytes;
  out.writeInt32LE(FRAME_HEADER_BYTES + dataBytes, at);
  out.writeUInt16LE(value === undefined ? Flag.IS_NULL | Flag.IS_FINAL : Flag.IS_FINAL, at + 4);
  at += FRAME_HEADER_BYTES;
  if (value === undefined) return out;
  if (general !== undefined) {
    general.copy(out, at);
    return out;
  }
  if (prefixedType !== undefined) {
    out.writeInt32BE(0, at); // partition hash: none
    out.writeInt32BE(prefixedType, at + 4);
    out.writeInt32BE(value.length, at + DATA_HEADER_BYTES);
    at += DATA_HEADER_BYTES + 4;
  }
  // Stored values are latin1 strings of their bytes: one char is one byte.
  out.write(value, at, 'latin1');
  return out;
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
