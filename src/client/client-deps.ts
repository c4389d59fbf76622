// What the client protocol may use: narrow facades of the services below it, built by member/.

import type net from 'node:net';
import type { CredentialChecker } from '../security/credentials.js';
import type { CpFacade } from '../cp/cp-api.js';
import type { MapFacade } from '../map/map-service.js';
import type { QueueFacade } from '../queue/queue-service.js';
import type { EventFacade } from '../events/event-service.js';
import type { ViewMember } from './cluster-view-codec.js';

/** Keyed map requests received from clients, and those of them whose partition another member owns (forwarded there); every request (the console's rate). */
export interface ClientRouting {
  keyed: number;
  forwarded: number;
  requests: number;
}

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
  /** Owner uuid of one partition (undefined: not assigned yet). */
  ownerOf(partitionId: number): string | undefined;
  /** Counts of keyed map requests, shared by the connections (metrics). */
  readonly routing: ClientRouting;
  readonly maps: MapFacade;
  readonly queues: QueueFacade;
  /** With security on, who may authenticate (the client-authentication realm, as for REST). */
  readonly credentials: CredentialChecker;
  /** True the first time an authentication from `address` is refused (it is warned about once). */
  firstRefusalFrom(address: string): boolean;
  readonly cp: CpFacade;
  /** Entry listeners subscribe here (listener-codecs.ts, client-listeners.ts). */
  readonly events: EventFacade;
  /** Told when a connection closed (the server forgets it). */
  onClosed(connection: { readonly isClosed: boolean }): void;
  /**
   * The listener's shared read buffer (net/listener.ts setReadSink), wired by member/: a socket
   * it took over hands each read's bytes to `sink`, valid only until it returns; false when the
   * socket was not taken over (TLS, tests): read it with 'data'.
   */
  setReadSink?(socket: net.Socket, sink: ((bytes: Buffer) => void) | undefined): boolean;
}
