// What the REST layer may use: narrow facades of the services below it.

import type net from 'node:net';
import type { GridConfig, EndpointGroupName } from '../config/types.js';
import type { MemoryStatus } from '../core/memory-guard.js';
import type { Logger, LogControl } from '../core/logger.js';
import type { ClusterFacade } from '../cluster/cluster-service.js';
import type { MapFacade } from '../map/map-service.js';
import type { QueueFacade } from '../queue/queue-service.js';
import type { PartitionService } from '../partition/partition-service.js';
import type { CredentialChecker } from '../security/credentials.js';
import type { WanFacade } from '../wan/wan-facade.js';
import type { CpFacade } from '../cp/cp-service.js';
import type { EventFacade } from '../events/event-service.js';
import type { QueueEventFacade } from '../events/queue-event-service.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { ConsoleBundle } from './console-assets.js';

/** Anti-entropy counters of a member, as the partition facade reports them. */
export type ReplicaSyncStats = ReturnType<PartitionService['replicaSync']['counters']>;

/** A stored map value, as the map facade returns it. */
export type StoredValue = NonNullable<Awaited<ReturnType<MapFacade['get']>>>;

export interface HealthView {
  clusterSafe(): boolean;
  migrationQueueSize(): number;
  /** True while the member restarts from persisted data (its node state shows STARTING). */
  recovering?(): boolean;
  /** The member log's disk, when persistence is on: OK, DISK_FULL (refusing persisted writes until space is free) or FAILED (until restart). */
  persistence?(): PersistenceHealth | undefined;
  /** The member memory guard: limit, figures, whether writes are refused. */
  memory?(): MemoryStatus;
}

export interface PersistenceHealth {
  readonly state: 'OK' | 'DISK_FULL' | 'FAILED';
  /** The failure that led there (absent while OK). */
  readonly reason?: string;
  /** Epoch ms of the last change of state. */
  readonly since: number;
}

/** The PERSISTENCE endpoints: cluster-wide commands (the receiving member tells every member). */
export interface PersistenceFacade {
  readonly enabled: boolean;
  /** A command's outcome: accepted (status success) or why not (status fail). */
  command(name: 'partialStart' | 'forceStart' | 'backup' | 'backupInterrupt'): Promise<{ readonly accepted: boolean; readonly message: string }>;
}

/** The partition table as this member knows it (Grid's /rest/partitions). */
export interface PartitionsView {
  readonly partitionCount: number;
  readonly replicaCount: number;
  version(): number;
  replicas(partitionId: number): readonly string[];
  /** Anti-entropy counters of this member (copies requested, installed, sent, ...). */
  replicaSync?(): ReplicaSyncStats;
}

/** GET /metrics: where REST declares its own metrics, and the scrape of every metric of the member. */
export interface MetricsEndpoint extends MetricsRegistrar {
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/**
 * The listener's one read buffer shared by the HTTP connections it hands over (net/listener's
 * setReadSink and inSharedReadBuffer), wired by member/ so that rest/ never imports net/.
 */
export interface SharedReads {
  /** Send the socket's reads to `sink` (bytes valid only until it returns); false when the socket reads by 'data' events. */
  setReadSink(socket: net.Socket, sink: ((bytes: Buffer) => void) | undefined): boolean;
  /** Whether `bytes` lie in the shared buffer (copy them before keeping them past the read). */
  inSharedReadBuffer(bytes: Uint8Array): boolean;
}

export interface RestDeps {
  readonly config: GridConfig;
  readonly logger: Logger;
  readonly logControl: LogControl;
  readonly instanceName: string;
  readonly cluster: ClusterFacade;
  readonly maps: MapFacade;
  /** Change streams subscribe here (events-routes.ts); absent: none served. */
  readonly events?: EventFacade;
  /** Queue change streams subscribe here (queue-events-routes.ts); absent: none served. */
  readonly queueEvents?: QueueEventFacade;
  readonly queues: QueueFacade;
  /** WAN replication: the wan/* endpoints and GET rest/wan. */
  readonly wan: WanFacade;
  /** The CP subsystem: cp-subsystem/* (management) and cp/* (atomic longs, locks, sessions). */
  readonly cp: CpFacade;
  readonly credentials: CredentialChecker;
  readonly health: HealthView;
  readonly persistence: PersistenceFacade;
  readonly partitions: PartitionsView;
  /** Open connections of this member: HTTP (client) and member-to-member. */
  connections(): { readonly client: number; readonly member: number };
  /** Metrics (GET /metrics, REST request counts and latencies); undefined when `metrics enabled="false"`. */
  readonly metrics?: MetricsEndpoint;
  /** The listener's shared read buffer, read by Grid's own HTTP/1.1 path. */
  readonly sharedReads: SharedReads;
  /** The web console's files, read at start when the CONSOLE group is on (console-assets.ts). */
  readonly console?: ConsoleBundle;
  /** Endpoint groups enabled on the port that received the request. */
  readonly enabledGroups: ReadonlySet<EndpointGroupName>;
  /** Rereads the TLS files (POST rest/tls/reload): per endpoint, the certificate now in use or why the new files were refused. */
  reloadTls?(): Readonly<Record<string, { readonly changed: boolean; readonly subject: string; readonly notAfter: string } | { readonly error: string }>>;
}
