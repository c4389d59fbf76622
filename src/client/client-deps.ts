// What the client protocol may use: narrow facades of the services below it, built by member/.

import type { MapFacade } from '../map/map-service.js';
import type { QueueFacade } from '../queue/queue-service.js';
import type { EventFacade } from '../events/event-service.js';
import type { ViewMember } from './cluster-view-codec.js';

export interface ClientDeps {
  readonly clusterName: string;
  readonly partitionCount: number;
  /** The same on every member of the cluster and stable while it lives (the clients compare it across connections). */
  readonly clusterId: string;
  localUuid(): string;
  localMember(): ViewMember;
  members(): readonly ViewMember[];
  memberListVersion(): number;
  partitionTableVersion(): number;
  /** Owner uuid of each partition (undefined: not assigned yet). */
  partitionOwners(): readonly (string | undefined)[];
  readonly maps: MapFacade;
  readonly queues: QueueFacade;
  /** Entry listeners subscribe here (listener-codecs.ts, client-listeners.ts). */
  readonly events: EventFacade;
  /** Told when a connection closed (the server forgets it). */
  onClosed(connection: { readonly isClosed: boolean }): void;
}
