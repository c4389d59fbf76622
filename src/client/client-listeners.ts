// The entry listeners of one client connection: each registration is a subscription on the
// event bus (local-only for a smart client, which registers on every connection, so that each
// event reaches it once, from its partition's owner; cluster-wide for a unisocket client), its
// events encoded as Hazelcast's entry events on this connection. Registrations die with the
// connection.

import { randomUUID } from 'node:crypto';
import type { Logger } from '../core/logger.js';
import type { EventFacade, MapChangeEvent, MapEventType } from '../events/event-service.js';
import type { MessageBuilder } from './codec.js';
import { dataOfStored, keyOf } from './data.js';
import { keyDataOf } from '../map/map-service.js';
import { encodeEntryEvent, EntryEventType, memberUuidBytes, type AddEntryListenerRequest } from './listener-codecs.js';

const TYPE_BITS: Readonly<Record<MapEventType, number>> = {
  added: EntryEventType.ADDED,
  updated: EntryEventType.UPDATED,
  removed: EntryEventType.REMOVED,
  evicted: EntryEventType.EVICTED,
  expired: EntryEventType.EXPIRED,
  cleared: EntryEventType.CLEAR_ALL,
};

export class ClientListeners {
  private readonly registrations = new Map<string, { readonly mapName: string; readonly unsubscribe: () => void }>();
  private closed = false;
  /** Member uuids as events carry them, encoded once. */
  private readonly origins = new Map<string, Buffer>();

  constructor(
    private readonly events: EventFacade,
    private readonly send: (b: MessageBuilder) => void,
    private readonly log: Logger,
  ) {}

  /** Register; resolves with the registration id once the subscription is in place. */
  async add(correlationId: bigint, r: AddEntryListenerRequest): Promise<string> {
    const key = r.key === undefined ? undefined : keyOf(r.key);
    const keyData = r.key;
    const send = this.send;
    const unsubscribe = await this.events.subscribe({
      mapName: r.name,
      localOnly: r.localOnly,
      event: (e: MapChangeEvent, origin: string) => {
        const bit = TYPE_BITS[e.type];
        if ((r.flags & bit) === 0) return;
        if (key !== undefined && e.key !== key) return;
        const value = e.newValue;
        const old = e.oldValue;
        send(
          encodeEntryEvent({
            correlationId,
            toKey: key !== undefined,
            partitionId: e.partitionId,
            eventType: bit,
            memberUuid: this.originBytes(origin),
            affectedEntries: e.count,
            key: e.key === undefined ? undefined : (keyData ?? keyDataOf(e.key)),
            value: r.includeValue && value !== undefined ? dataOfStored(value.value, value.contentType) : undefined,
            oldValue: r.includeValue && old !== undefined ? dataOfStored(old.value, old.contentType) : undefined,
          }),
        );
      },
      // Hazelcast's entry listeners have no loss notice: a smart client's listener hears nothing, as on Hazelcast.
      lost: (pid) => this.log.debug({ map: r.name, partition: pid }, 'entry events of a partition may have been lost'),
    });
    const id = randomUUID();
    // The connection closed while the subscription was made.
    if (this.closed) unsubscribe();
    else this.registrations.set(id, { mapName: r.name, unsubscribe });
    return id;
  }

  private originBytes(uuid: string): Buffer {
    let b = this.origins.get(uuid);
    if (b === undefined) this.origins.set(uuid, (b = memberUuidBytes(uuid)));
    return b;
  }

  /** Remove a registration of this connection; false when it has none by that id. */
  remove(registrationId: string): boolean {
    const reg = this.registrations.get(registrationId);
    if (reg === undefined) return false;
    this.registrations.delete(registrationId);
    reg.unsubscribe();
    return true;
  }

  /** The connection closed: every registration goes. */
  close(): void {
    this.closed = true;
    for (const reg of this.registrations.values()) reg.unsubscribe();
    this.registrations.clear();
  }
}
