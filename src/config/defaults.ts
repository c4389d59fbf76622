// Every built-in default of Grid's configuration, in one place. The validator reads these and
// nothing else; docs/configuration.md lists the same values. Where Grid follows Hazelcast the
// value is Hazelcast's default; where Grid differs, the comment says why.

import type {
  DataPersistenceConfig,
  EndpointGroupName,
  MapConfig,
  MergePolicyName,
  PersistenceConfig,
  QueueConfig,
  TuningConfig,
} from './types.js';

/** `cluster-name`: members join only members with the same name; REST (security off) checks it. */
export const DEFAULT_CLUSTER_NAME = 'dev';

/** `network/port`: first member port (REST shares it unless advanced-network separates it). */
export const DEFAULT_MEMBER_PORT = 5701;
/** `port auto-increment`: try the next port when the configured one is taken. */
export const DEFAULT_PORT_AUTO_INCREMENT = true;
/** `port port-count`: how many ports auto-increment may try, the first included. */
export const DEFAULT_PORT_COUNT = 100;

/**
 * Address the member binds. Not a Hazelcast element: Grid binds every interface unless
 * `network/interfaces enabled="true"` names one, in which case the first literal interface
 * address is bound instead.
 */
export const DEFAULT_BIND_HOST = '0.0.0.0';

/** `tcp-ip enabled`: off, so a member with no join config forms a cluster of one. */
export const DEFAULT_TCP_IP_ENABLED = false;
/** `tcp-ip connection-timeout-seconds`: how long a join connection attempt may take. */
export const DEFAULT_TCP_IP_CONNECTION_TIMEOUT_SECONDS = 5;
/** `auto-detection enabled`: Grid has no auto-detection (it joins by tcp-ip only); recorded only. */
export const DEFAULT_AUTO_DETECTION_ENABLED = false;

/** `rest-api enabled`: the REST interface is off unless switched on (as in Hazelcast). */
export const DEFAULT_REST_ENABLED = false;
/** Endpoint groups enabled once REST is on, unless an `endpoint-group` switches them off. */
export const DEFAULT_ENABLED_ENDPOINT_GROUPS: readonly EndpointGroupName[] = ['CLUSTER_READ', 'HEALTH_CHECK'];
/** `endpoint-group` names accepted as aliases of a canonical group (Hazelcast 4 spelling). */
export const ENDPOINT_GROUP_ALIASES: Readonly<Record<string, EndpointGroupName>> = { HOT_RESTART: 'PERSISTENCE' };

/** `advanced-network enabled`: off, so one port carries member protocol and REST. */
export const DEFAULT_ADVANCED_NETWORK_ENABLED = false;
/** `rest-server-socket-endpoint-config/port`: the REST port under advanced-network (Hazelcast's 8080). */
export const DEFAULT_ADVANCED_REST_PORT = 8080;

/** `lite-member enabled`: a lite member owns no partitions. */
export const DEFAULT_LITE_MEMBER = false;

/** Largest `backup-count` + `async-backup-count` (Hazelcast's limit). */
export const MAX_BACKUP_COUNT = 6;

/**
 * A map's or queue's `data-persistence` (4.x: `hot-restart`) left out, or its settings left out:
 * Hazelcast's defaults. Off, so a structure is persisted only when asked; fsync off, so a write
 * is answered once the operating system has it (one fsync per write would cap throughput at the
 * disk's flush rate; `fsync` true trades that for surviving a power cut).
 */
export const DEFAULT_DATA_PERSISTENCE: DataPersistenceConfig = { enabled: false, fsync: false };

/** `map` settings used when no entry (exact, wildcard or `default`) matches a map name. */
export const DEFAULT_MAP: Omit<MapConfig, 'name'> = {
  /** One synchronous backup. */
  backupCount: 1,
  asyncBackupCount: 0,
  /** 0 = entries live forever. */
  timeToLiveSeconds: 0,
  /** 0 = no idle expiry. */
  maxIdleSeconds: 0,
  wanReplicationRef: undefined,
  /** No split-brain protection. */
  splitBrainProtectionRef: undefined,
  mergePolicy: { policy: 'PutIfAbsentMergePolicy', batchSize: 100 },
  /**
   * `merkle-tree`: off (Hazelcast's default), so maps pay nothing for it; depth 10 (Hazelcast's
   * default) = 512 leaves per partition. WAN consistencyCheck needs it enabled on both clusters.
   */
  merkleTree: { enabled: false, depth: 10 },
  dataPersistence: DEFAULT_DATA_PERSISTENCE,
};

/** Smallest `merkle-tree depth` (Hazelcast's limit; src/wan/merkle-tree.ts has the same, config does not import wan/). */
export const MIN_MERKLE_TREE_DEPTH = 2;
/** Largest `merkle-tree depth` (Hazelcast's limit): 2^26 leaves per partition. */
export const MAX_MERKLE_TREE_DEPTH = 27;

/** `wan-replication-ref merge-policy-class-name`: the incoming entry wins. */
export const DEFAULT_WAN_MERGE_POLICY: MergePolicyName = 'PassThroughMergePolicy';
/** `wan-replication-ref republishing-enabled`: entries received by WAN are published further. */
export const DEFAULT_WAN_REPUBLISHING_ENABLED = true;

/** `queue` settings used when no entry matches a queue name. */
export const DEFAULT_QUEUE: Omit<QueueConfig, 'name'> = {
  /** 0 = unbounded. */
  maxSize: 0,
  backupCount: 1,
  asyncBackupCount: 0,
  /** -1 = an empty queue is never destroyed. */
  emptyQueueTtlSeconds: -1,
  /** No split-brain protection. */
  splitBrainProtectionRef: undefined,
  /** Hazelcast's default: PutIfAbsentMergePolicy, 100 per batch. */
  mergePolicy: { policy: 'PutIfAbsentMergePolicy', batchSize: 100 },
  /** Not persisted (queues may be: Grid's extension, the same element and defaults as a map's). */
  dataPersistence: DEFAULT_DATA_PERSISTENCE,
};

/** Top-level `persistence` (4.x: `hot-restart-persistence`) settings left out: Hazelcast's defaults (PersistenceConfig). */
export const DEFAULT_PERSISTENCE: PersistenceConfig = {
  /** Off: a member keeps its data in memory only (as Hazelcast, where persistence must be switched on). */
  enabled: false,
  /** `base-dir`: Hazelcast's `persistence`, relative to the member's working directory. */
  baseDir: 'persistence',
  /** `backup-dir`: none, so `backup` answers fail until one is configured (Hazelcast has no default either). */
  backupDir: undefined,
  /** `parallelism`: one store per member. */
  parallelism: 1,
  /** `validation-timeout-seconds`: 2 minutes for the persisted members to come back and agree on the partition table. */
  validationTimeoutSeconds: 120,
  /** `data-load-timeout-seconds`: 15 minutes for every member to load its partitions. */
  dataLoadTimeoutSeconds: 900,
  /** `cluster-data-recovery-policy`: start only with every persisted member and all data (never silently lose any). */
  clusterDataRecoveryPolicy: 'FULL_RECOVERY_ONLY',
  /** `auto-remove-stale-data`: a member with stale data deletes it and joins as new. */
  autoRemoveStaleData: true,
  /** `rebalance-delay-seconds`: 0, rebalance at once when a member leaves unexpectedly. */
  rebalanceDelaySeconds: 0,
};

/**
 * Smallest `validation-timeout-seconds` and `data-load-timeout-seconds`: Hazelcast refuses 0 and
 * below ("should be positive"); a restart that may not wait at all could never succeed.
 */
export const MIN_PERSISTENCE_TIMEOUT_SECONDS = 1;

/**
 * `split-brain-protection` settings left out. `enabled` is Hazelcast's reading of a missing
 * attribute (its schema requires it): off, with a warning. `minimum-cluster-size` is
 * Hazelcast's smallest allowed value; `protect-on` its default.
 */
export const DEFAULT_SPLIT_BRAIN_PROTECTION = {
  enabled: false,
  minimumClusterSize: 2,
  protectOn: 'READ_WRITE',
} as const;

/** `security enabled`: off; REST then checks only the cluster name where it asks for credentials. */
export const DEFAULT_SECURITY_ENABLED = false;

/** `batch-publisher` defaults (Hazelcast's). `publisher-id` defaults to the publisher's `cluster-name`. */
export const DEFAULT_WAN_PUBLISHER = {
  /** `cluster-name` of the target cluster when not given (Hazelcast's default). */
  clusterName: 'dev',
  /** Entries sent per batch. */
  batchSize: 500,
  /** A batch smaller than batch-size is sent after this long. */
  batchMaxDelayMillis: 1000,
  /** How long to wait for a target's acknowledgement. */
  responseTimeoutMillis: 60000,
  /** Primary WAN events one member queues for a publisher (all partitions and maps together) before `queue-full-behavior` applies. */
  queueCapacity: 10000,
  queueFullBehavior: 'DISCARD_AFTER_MUTATION',
  initialPublisherState: 'REPLICATING',
  acknowledgeType: 'ACK_ON_OPERATION_COMPLETE',
  /** `sync/consistency-check-strategy`. */
  consistencyCheckStrategy: 'NONE',
} as const;

/** Typed settings read from `properties` (`grid.X` wins over `hazelcast.X`). */
export const DEFAULT_TUNING: TuningConfig = {
  /** grid.rest.max-body-bytes: 64 MiB. */
  restMaxBodyBytes: 67108864,
  /** grid.rest.max-header-bytes: 64 KiB for the request line and headers together. */
  restMaxHeaderBytes: 65536,
  /**
   * grid.rest.max-buffered-body-bytes: 256 MiB for the bodies of all requests being received
   * at once, member-wide. A fixed figure, not a share of the heap limit: bodies are Buffers,
   * outside the V8 heap that --max-old-space-size bounds, so a share of it would measure the
   * wrong thing; a share of the machine's memory would make refusals depend on the host. 256
   * MiB holds four bodies of the largest size (max-body-bytes) at once and keeps the worst
   * case a few hundred MB above an idle member, where 40 slow 30 MiB uploads used to take
   * 1.2 GB.
   */
  restMaxBufferedBodyBytes: 268435456,
  /** hazelcast.logging.level: Hazelcast/JUL level names. */
  logLevel: 'INFO',
  /** hazelcast.heartbeat.interval.seconds. */
  heartbeatIntervalSeconds: 5,
  /** hazelcast.max.no.heartbeat.seconds: a member silent this long is suspected. */
  maxNoHeartbeatSeconds: 60,
  /** hazelcast.partition.count: fixed. */
  partitionCount: 271,
  /** grid.expiry.sweep.interval.millis. */
  expirySweepIntervalMillis: 1000,
  /**
   * hazelcast.operation.call.timeout.millis (Hazelcast's 60 s): how long an operation may
   * take, retries included, before the caller gets an error.
   */
  operationCallTimeoutMillis: 60000,
  /**
   * hazelcast.operation.backup.timeout.millis (Hazelcast's 5 s): how long a write waits for
   * its sync backup acks; after that it answers anyway and the missing acks are logged.
   */
  operationBackupTimeoutMillis: 5000,
  /**
   * hazelcast.connection.monitor.max.faults (Hazelcast's 3): consecutive failed reconnects
   * to a member after which it is suspected dead, without waiting for max.no.heartbeat.
   */
  connectionMonitorMaxFaults: 3,
  /**
   * hazelcast.connection.monitor.interval (Hazelcast's 100, in milliseconds): the delay
   * between those reconnect attempts.
   */
  connectionMonitorIntervalMillis: 100,
  /**
   * hazelcast.tcp.join.port.try.count (Hazelcast's 3): for a member-list entry without a
   * port, how many ports from the member port upwards the joiner dials.
   */
  tcpJoinPortTryCount: 3,
  /**
   * hazelcast.partition.max.parallel.migrations (Hazelcast's 10): partition migrations the
   * master keeps in flight at once.
   */
  maxParallelMigrations: 10,
  /**
   * hazelcast.max.join.seconds (Hazelcast's 300): how long a starting member keeps looking for
   * its cluster before it gives up (start fails).
   */
  maxJoinSeconds: 300,
  /**
   * grid.partition.replica-sync-interval-seconds: how often an owner sends each backup member
   * the backup versions of the partitions it owns there (anti-entropy); a backup that differs
   * asks for a full copy. 5 s: a lost backup is repaired within seconds, well before most
   * failures are even detected, for about one small message per member pair per round.
   * Hazelcast's comparable hazelcast.partition.backup.sync.interval is 30 s. 0 = off.
   */
  replicaSyncIntervalSeconds: 5,
  /** grid.debug.drop-backups: for tests only (fraction of received backups not applied); 0 = off. */
  debugDropBackups: 0,
  /** grid.debug.ignore-messages: for tests only (simulated message loss); empty = off. */
  debugIgnoreMessages: '',
  /**
   * hazelcast.merge.first.run.delay.seconds (Hazelcast's 300): after this long the master first
   * asks the tcp-ip addresses that are not members whether they form another cluster of the same
   * name (the other side of a split brain), to merge the smaller into the larger.
   */
  mergeFirstRunDelaySeconds: 300,
  /** hazelcast.merge.next.run.delay.seconds (Hazelcast's 120): how often it asks again. */
  mergeNextRunDelaySeconds: 120,
};

/** Log level names accepted by `hazelcast.logging.level` (case-insensitive, stored upper-case). */
export const LOG_LEVELS: readonly string[] = ['OFF', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'ALL'];

/** Files `findConfigFile` looks for in the working directory, in this order. */
export const CONFIG_FILE_NAMES: readonly string[] = [
  'grid.xml',
  'grid.yaml',
  'grid.yml',
  'hazelcast.xml',
  'hazelcast.yaml',
  'hazelcast.yml',
];

/** Environment variable naming the config file. */
export const CONFIG_FILE_ENV = 'GRID_CONFIG';
