// Map entry listeners on the client protocol (checked against hazelcast-client 5.7.0's
// MapAddEntryListener*Codec.js and MapRemoveEntryListenerCodec.js): the add and remove
// requests, and the entry event (0x011902, or 0x011802 for a listener on one key) pushed on the
// registering connection with the registration's correlation id. Pure.

import { GridError } from '../core/errors.js';
import { eventInitial, EVENT_FIXED_OFFSET, MessageBuilder, MessageCursor, readBool, readInt32, readUuid, REQUEST_FIXED_OFFSET, UUID_BYTES, writeUuid } from './codec.js';
import { Flag, type ClientMessage } from './frame.js';

export const ListenerMessageId = {
  MapAddEntryListenerToKeyWithPredicate: 0x011600,
  MapAddEntryListenerWithPredicate: 0x011700,
  MapAddEntryListenerToKey: 0x011800,
  MapAddEntryListenerToKeyEvent: 0x011802,
  MapAddEntryListener: 0x011900,
  MapAddEntryListenerEvent: 0x011902,
  MapRemoveEntryListener: 0x011a00,
} as const;

/** Hazelcast's EntryEventType: the bits of a listener's flags and the type of each event. */
export const EntryEventType = {
  ADDED: 1,
  REMOVED: 2,
  UPDATED: 4,
  EVICTED: 8,
  EXPIRED: 16,
  EVICT_ALL: 32,
  CLEAR_ALL: 64,
  MERGED: 128,
  INVALIDATION: 256,
  LOADED: 512,
} as const;

export interface AddEntryListenerRequest {
  readonly name: string;
  /** The serialized key of a listener on one key (MapAddEntryListenerToKey); undefined: every key. */
  readonly key: Buffer | undefined;
  readonly includeValue: boolean;
  readonly flags: number;
  /** Only the events of partitions the member owns (smart clients, which register on every connection). */
  readonly localOnly: boolean;
}

export function isListenerMessage(type: number): boolean {
  return (
    type === ListenerMessageId.MapAddEntryListener ||
    type === ListenerMessageId.MapAddEntryListenerToKey ||
    type === ListenerMessageId.MapAddEntryListenerWithPredicate ||
    type === ListenerMessageId.MapAddEntryListenerToKeyWithPredicate ||
    type === ListenerMessageId.MapRemoveEntryListener
  );
}

/** An add request (the predicate forms are refused: Grid evaluates no predicates). */
export function decodeAddEntryListener(type: number, m: ClientMessage): AddEntryListenerRequest {
  if (type === ListenerMessageId.MapAddEntryListenerWithPredicate || type === ListenerMessageId.MapAddEntryListenerToKeyWithPredicate) {
    throw new GridError('UNSUPPORTED', 'entry listeners with a predicate are not supported by Grid: Grid evaluates no predicates (listen to the map or to one key)');
  }
  const c = new MessageCursor(m);
  const init = c.initial;
  const includeValue = readBool(init, REQUEST_FIXED_OFFSET, 'includeValue');
  const flags = readInt32(init, REQUEST_FIXED_OFFSET + 1, 'listenerFlags');
  const localOnly = readBool(init, REQUEST_FIXED_OFFSET + 5, 'localOnly');
  const name = c.string('map name');
  const key = type === ListenerMessageId.MapAddEntryListenerToKey ? c.data('key') : undefined;
  return { name, key, includeValue, flags, localOnly };
}

export function decodeRemoveEntryListener(m: ClientMessage): { readonly name: string; readonly registrationId: string } {
  const c = new MessageCursor(m);
  const id = readUuid(c.initial, REQUEST_FIXED_OFFSET, 'registrationId');
  const name = c.string('map name');
  if (id === null) throw new GridError('BAD_REQUEST', 'malformed client message: null listener registration id');
  return { name, registrationId: id };
}

export interface EntryEventFrame {
  /** The registration's correlation id (the client routes the event by it). */
  readonly correlationId: bigint;
  /** ToKey listeners get 0x011802, the others 0x011902 (same layout). */
  readonly toKey: boolean;
  readonly partitionId: number;
  readonly eventType: number;
  /** The member the event comes from (the clients look it up in their members view): its uuid, or its 17 encoded bytes (memberUuidBytes). */
  readonly memberUuid: string | Buffer;
  readonly affectedEntries: number;
  readonly key: Buffer | undefined;
  readonly value: Buffer | undefined;
  readonly oldValue: Buffer | undefined;
}

/** A member uuid as an event carries it (encoded once per member, not once per event). */
export function memberUuidBytes(uuid: string): Buffer {
  const b = Buffer.alloc(UUID_BYTES);
  writeUuid(b, 0, uuid);
  return b;
}

/** The entry event: eventType, member uuid and affected entries fixed; key, value, oldValue, mergingValue nullable Data. */
export function encodeEntryEvent(e: EntryEventFrame): MessageBuilder {
  const type = e.toKey ? ListenerMessageId.MapAddEntryListenerToKeyEvent : ListenerMessageId.MapAddEntryListenerEvent;
  const init = eventInitial(type, e.correlationId, e.partitionId, 4 + UUID_BYTES + 4);
  init.writeInt32LE(e.eventType, EVENT_FIXED_OFFSET);
  if (typeof e.memberUuid === 'string') writeUuid(init, EVENT_FIXED_OFFSET + 4, e.memberUuid);
  else e.memberUuid.copy(init, EVENT_FIXED_OFFSET + 4);
  init.writeInt32LE(e.affectedEntries, EVENT_FIXED_OFFSET + 4 + UUID_BYTES);
  return new MessageBuilder(init, Flag.UNFRAGMENTED | Flag.IS_EVENT).nullableBytes(e.key).nullableBytes(e.value).nullableBytes(e.oldValue).nullFrame();
}
