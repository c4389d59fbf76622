// What the REST layer may use: narrow facades of the services below it.

import type net from 'node:net';
import type { GridConfig, EndpointGroupName } from '../config/types.js';
import type { MemoryStatus } from '../core/memory-guard.js';
import type { Logger, LogControl } from '../core/logger.js';
import type { ClusterFacade } from '../cluster/cluster-service.js';
import type { MapFacade } from '../map/map-service.js';
import type { QueueFacade } from '../queue/queue-service.js';
import type { MigrationStatus, PartitionService } from '../partition/partition-service.js';
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
  /** Migrations and replica safety as this member knows them. */
  migrations?(): MigrationStatus;
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

/**
 * One member as GET /grid/rest/members lists it: what this member's list knows of it, and the
 * figures it answered from its own state, or `reachable: false` and why not (docs/rest-api.md).
 */
export interface MemberStatus {
  readonly uuid: string;
  readonly address: string;
  readonly version: string;
  readonly liteMember: boolean;
  readonly master: boolean;
  /** The member that answered the REST request. */
  readonly local: boolean;
  readonly reachable: boolean;
  /** When not reachable: why (no answer within the deadline, refused, ...). */
  readonly error?: string;
  readonly figures?: MemberFigures;
}

/** A member's own figures, as it answers them (MemberReport 'status'). */
export interface MemberFigures {
  /** Its node state (ACTIVE, PASSIVE, SHUTTING_DOWN, ...). */
  readonly state: string;
  readonly cpMember: boolean;
  readonly cpMemberUuid: string | null;
  /** Epoch ms the process started, and ms since. */
  readonly startTime: number;
  readonly uptimeMs: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly rssBytes: number;
  /** grid.memory.limit (the resident-set limit of the memory guard). */
  readonly memoryLimitBytes: number;
  /** Partitions it owns and backup replicas it holds, in its own partition table. */
  readonly partitionsOwned: number;
  readonly backupsHeld: number;
  readonly partitionTableVersion: number;
  /** Open Hazelcast-client connections, HTTP connections, member-protocol connections. */
  readonly clientConnections: number;
  readonly restConnections: number;
  readonly memberConnections: number;
  /** os.loadavg(): 1, 5 and 15 minutes (zeros on Windows). */
  readonly loadAverage: readonly number[];
}

export interface MembersReport {
  readonly clusterState: string;
  readonly memberListVersion: number;
  /** The deadline each member had to answer. */
  readonly timeoutMs: number;
  readonly members: readonly MemberStatus[];
}

/** One member's metrics history (member/metrics-sampler.ts): sample times and columns, null where not measured. */
export interface MemberHistory {
  readonly intervalMs: number;
  /** Epoch ms of each sample, oldest first. */
  readonly times: readonly number[];
  /** The fixed series by name (HISTORY_SERIES), one value per sample. */
  readonly series: Readonly<Record<string, readonly (number | null)[]>>;
  /** Per WAN publisher: its primary queue depth and lag (ms the oldest queued event waited), one value per sample. */
  readonly wan: readonly { readonly wanReplicationName: string; readonly publisherId: string; readonly queueDepth: readonly (number | null)[]; readonly lagMs: readonly (number | null)[] }[];
}

/** Operation rates per name over one member's last sample interval. */
export interface OperationRates {
  readonly intervalMs: number;
  /** Map name -> [gets, puts, removes] per second (names whose rates are all 0 left out). */
  readonly maps: Readonly<Record<string, readonly number[]>>;
  /** Queue name -> [offers, polls] per second. */
  readonly queues: Readonly<Record<string, readonly number[]>>;
}

export interface HistoryReport {
  readonly seconds: number;
  readonly timeoutMs: number;
  readonly members: readonly (Omit<MemberStatus, 'figures'> & { readonly history?: MemberHistory })[];
}

/** Operation rates summed over the members that answered. */
export interface ClusterRates {
  readonly maps: ReadonlyMap<string, readonly number[]>;
  readonly queues: ReadonlyMap<string, readonly number[]>;
  /** Members asked, and those that did not answer in time (their rates are missing from the sums). */
  readonly members: number;
  readonly unreachable: readonly string[];
}

/** What the web console reads of the whole cluster: each member asked over the member protocol, with a deadline. */
export interface MonitorFacade {
  members(timeoutMs: number): Promise<MembersReport>;
  /** The last `seconds` of every member's history (or of the member `uuid`: NOT_FOUND when not in the list). */
  history(seconds: number, uuid: string | undefined, timeoutMs: number): Promise<HistoryReport>;
  /** The largest `seconds` a history holds. */
  readonly historySeconds: number;
  /** Per-map and per-queue operation rates, summed over the members. */
  operationRates(timeoutMs: number): Promise<ClusterRates>;
  /** The master's migration figures (first-hand); undefined when it did not answer in time. */
  masterMigrations(timeoutMs: number): Promise<MigrationStatus | undefined>;
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
  /** The cluster's members and their figures (GET /grid/rest/members, metrics history, listings' rates); absent: those answer 500. */
  readonly monitor?: MonitorFacade;
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
