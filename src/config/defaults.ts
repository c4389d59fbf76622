// Every built-in default of Grid's configuration, in one place. The validator reads these and
// nothing else; docs/configuration.md lists the same values. Where Grid follows Hazelcast the
// value is Hazelcast's default; where Grid differs, the comment says why.

import type {
  CpSubsystemConfig,
  DataPersistenceConfig,
  EvictionConfig,
  EndpointGroupName,
  MapConfig,
  MergePolicyName,
  PersistenceConfig,
  QueueConfig,
  RaftAlgorithmConfig,
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

/**
 * `metrics enabled`: on, as in Hazelcast. Off, GET /metrics answers 500 and the member keeps
 * no REST latencies and no process metrics (services' plain counters still count).
 */
export const DEFAULT_METRICS_ENABLED = true;

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
/**
 * A map's `eviction`: Hazelcast's defaults for an on-heap map (policy NONE, PER_NODE,
 * Integer.MAX_VALUE entries): nothing is evicted unless the config asks for it.
 */
export const DEFAULT_EVICTION: EvictionConfig = { evictionPolicy: 'NONE', maxSizePolicy: 'PER_NODE', size: 2147483647 };

/**
 * A map's `event-journal`, Hazelcast's defaults: off; 10,000 events in total, split equally
 * between the partitions (Hazelcast: capacity / partition count each, so the capacity must be
 * at least the partition count); no time-to-live (events go only when overwritten).
 */
export const DEFAULT_EVENT_JOURNAL = { enabled: false, capacity: 10_000, timeToLiveSeconds: 0 } as const;

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
  eviction: DEFAULT_EVICTION,
  eventJournal: DEFAULT_EVENT_JOURNAL,
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

/** Smallest CP group (and smallest `cp-member-count` other than 0): Raft needs 3 to survive the loss of one. */
export const MIN_CP_GROUP_SIZE = 3;
/** Largest CP group (Hazelcast's limit): every operation waits for a majority, so larger groups only cost more. */
export const MAX_CP_GROUP_SIZE = 7;

/**
 * `group-size` left out: `cp-member-count` made odd (minus one when even, since an even group
 * survives no more failures than the odd one below it) and at most 7; 0 while CP is off.
 * Hazelcast's CPSubsystemConfig.getGroupSize(), so 4 -> 3, 6 -> 5, 8 and more -> 7.
 */
export function defaultCpGroupSize(cpMemberCount: number): number {
  if (cpMemberCount <= 0) return 0;
  return Math.min(cpMemberCount % 2 === 0 ? cpMemberCount - 1 : cpMemberCount, MAX_CP_GROUP_SIZE);
}

/** `raft-algorithm` settings left out: Hazelcast's (RaftAlgorithmConfig, 4.x and 5.x). */
export const DEFAULT_RAFT_ALGORITHM: RaftAlgorithmConfig = {
  /** `leader-election-timeout-in-millis`: 2 s, so a lost leader is replaced within seconds. */
  leaderElectionTimeoutMs: 2000,
  /** `leader-heartbeat-period-in-millis`: 5 s. */
  leaderHeartbeatPeriodMs: 5000,
  /** `max-missed-leader-heartbeat-count`: a follower gives up on its leader after 5 periods (25 s) of silence. */
  maxMissedLeaderHeartbeatCount: 5,
  /** `append-request-max-entry-count`: 100 entries per append request (3.12 had 50). */
  appendRequestMaxEntryCount: 100,
  /** `commit-index-advance-count-to-snapshot`: a snapshot every 10,000 commits (3.12 had 1,000). */
  commitIndexAdvanceCountToSnapshot: 10000,
  /** `uncommitted-entry-count-to-reject-new-appends`: 100 operations in flight per leader before it refuses more. */
  uncommittedEntryCountToRejectNewAppends: 100,
  /** `append-request-backoff-timeout-in-millis`: 100 ms. */
  appendRequestBackoffTimeoutMs: 100,
};

/** A fenced lock no `locks` entry matches: reentrant without limit (Hazelcast's FencedLockConfig default). */
export const DEFAULT_LOCK_ACQUIRE_LIMIT = 0;

/** `cp-subsystem` left out, or its settings left out: Hazelcast's defaults (CPSubsystemConfig, 5.x). */
export const DEFAULT_CP_SUBSYSTEM: CpSubsystemConfig = {
  /** Off: CP needs at least 3 members that agree to be CP members, so it is switched on deliberately. */
  enabled: false,
  /** `cp-member-count`: 0 = off. */
  cpMemberCount: 0,
  /** `group-size`: derived from cp-member-count (defaultCpGroupSize); 0 while off. */
  groupSize: 0,
  /** `session-time-to-live-seconds`: 5 minutes; a crashed lock holder's locks are released after this long. */
  sessionTimeToLiveSeconds: 300,
  /** `session-heartbeat-interval-seconds`: 5 s, well inside the TTL. */
  sessionHeartbeatIntervalSeconds: 5,
  /** `missing-cp-member-auto-removal-seconds`: 4 hours (3.12 had 0 = never). */
  missingCpMemberAutoRemovalSeconds: 14400,
  /** `fail-on-indeterminate-operation-state`: false, at-least-once (an operation whose answer was lost is retried). */
  failOnIndeterminateOperationState: false,
  /** `cp-member-priority`: 0, all members alike. */
  cpMemberPriority: 0,
  raftAlgorithm: DEFAULT_RAFT_ALGORITHM,
  /** `locks`: none, so every lock is reentrant without limit. */
  locks: [],
};

/**
 * Smallest `cp-subsystem data-load-timeout-seconds` (Hazelcast refuses 0 and below). The setting is
 * only checked: it belongs to CP Subsystem Persistence, which Grid does not support.
 */
export const MIN_CP_DATA_LOAD_TIMEOUT_SECONDS = 1;

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
  /**
   * Grid's own `heartbeat-interval-millis`: a WAN connection from which nothing has come back for
   * this long is sent a probe (the target answers it at once), and again every this long.
   */
  heartbeatIntervalMillis: 1000,
  /**
   * Grid's own `heartbeat-timeout-millis`: nothing back for this long (probes unanswered, no
   * acknowledgement, no bytes) and the connection is declared dead, closed and redialled, its
   * batch in flight sent again on the new one. A few round trips of a slow WAN, well under TCP's
   * retransmission back-off (tens of seconds). 0 turns the probes off.
   */
  heartbeatTimeoutMillis: 5000,
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
   * case a few hundred MB above an idle member (without a budget, 40 slow 30 MiB uploads hold
   * 1.2 GB).
   */
  restMaxBufferedBodyBytes: 268435456,
  /** grid.rest.http-path: Grid's own HTTP/1.1 path; `node` for node:http on every connection. */
  restHttpPath: 'grid',
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
  /**
   * grid.metrics.history-seconds: the metrics history each member keeps (docs/metrics.md), one
   * sample a second in a ring allocated at start (about 8 bytes per series per second); 0 turns
   * the sampler off (the history endpoint answers 500, the listings' rates are 0). At most 3600.
   */
  metricsHistorySeconds: 600,
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
