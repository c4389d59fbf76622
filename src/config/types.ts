// The validated, frozen configuration of one member. Every loader (XML, YAML, environment)
// produces a raw tree; `validateConfig` turns that tree into this shape, filling defaults.
// Nothing outside src/config/ sees the raw tree.

import type { SslConfig } from './ssl.js';

export type EndpointGroupName =
  | 'CLUSTER_READ'
  | 'CLUSTER_WRITE'
  | 'HEALTH_CHECK'
  | 'PERSISTENCE'
  | 'WAN'
  | 'DATA'
  | 'CP'
  /** Grid's own (Hazelcast has no such group): the web console at /grid/console/ (docs/console.md). */
  | 'CONSOLE';

export const ENDPOINT_GROUPS: readonly EndpointGroupName[] = [
  'CLUSTER_READ',
  'CLUSTER_WRITE',
  'HEALTH_CHECK',
  'PERSISTENCE',
  'WAN',
  'DATA',
  'CP',
  'CONSOLE',
];

export interface PortConfig {
  /** First port to try. */
  readonly port: number;
  /** Try port+1, port+2, ... when taken. */
  readonly autoIncrement: boolean;
  /** How many ports auto-increment may try, the first included. */
  readonly portCount: number;
}

export interface TcpIpJoinConfig {
  readonly enabled: boolean;
  /**
   * Entries as written, one per element after splitting at commas, semicolons and spaces:
   * `host`, `host:port`, `host:port1-port2`, `[ipv6]`, `[ipv6]:port`, `10.0.0.1-3[:port]`.
   * Already checked; `expandMemberList` turns them into addresses.
   */
  readonly members: readonly string[];
  readonly connectionTimeoutSeconds: number;
}

export interface JoinConfig {
  readonly tcpIp: TcpIpJoinConfig;
  /** Accepted for compatibility; Grid never joins by multicast. */
  readonly multicastEnabled: false;
  readonly autoDetectionEnabled: boolean;
}

export interface RestApiConfig {
  readonly enabled: boolean;
  /** The set of enabled endpoint groups. */
  readonly enabledGroups: ReadonlySet<EndpointGroupName>;
}

export interface NetworkConfig {
  readonly port: PortConfig;
  /** `host:port` or `host` others should use to reach this member; undefined = bind address. */
  readonly publicAddress: string | undefined;
  /** Address to bind (Grid binds this interface; default 127.0.0.1 is NOT used: see defaults). */
  readonly bindHost: string;
  readonly join: JoinConfig;
  readonly restApi: RestApiConfig;
  /** `network.ssl` (ssl.ts); undefined: plain TCP. */
  readonly ssl?: SslConfig | undefined;
}

export interface AdvancedNetworkConfig {
  readonly enabled: boolean;
  /** Member-protocol port when advanced network is enabled. */
  readonly memberPort: PortConfig;
  /** When set, REST gets its own port and these endpoint groups. */
  readonly rest: { readonly port: PortConfig; readonly enabledGroups: ReadonlySet<EndpointGroupName> } | undefined;
  /** Each endpoint's `ssl` (ssl.ts); see tlsPlan() for which serves what. */
  readonly memberSsl?: SslConfig | undefined;
  readonly restSsl?: SslConfig | undefined;
  readonly wanSsl?: SslConfig | undefined;
}

export interface MapConfig {
  /** Name or wildcard pattern (`orders*`, `*-cache`) or `default`. */
  readonly name: string;
  readonly backupCount: number;
  readonly asyncBackupCount: number;
  /** 0 = entries live forever. */
  readonly timeToLiveSeconds: number;
  /** 0 = entries never expire for idleness. */
  readonly maxIdleSeconds: number;
  /** Names of wan-replication configs this map publishes to (from `wan-replication-ref`). */
  readonly wanReplicationRef: WanReplicationRef | undefined;
  /** `split-brain-protection-ref`: name of a top-level `split-brain-protection` (checked to exist). */
  readonly splitBrainProtectionRef: string | undefined;
  /** How entries of a merging cluster are merged after a split brain (`merge-policy`). */
  readonly mergePolicy: MergePolicyConfig;
  /** `merkle-tree`: per-partition Merkle trees of this map, for WAN consistency checks and delta sync. */
  readonly merkleTree: MerkleTreeConfig;
  /** `data-persistence` (4.x: `hot-restart`): whether this map's entries are written to disk. */
  readonly dataPersistence: DataPersistenceConfig;
  /** `eviction`: how the map stays within a size (NONE: it does not). */
  readonly eviction: EvictionConfig;
  /** `event-journal`: the recent change events of each partition, kept so a change stream resumes (docs/events.md#the-event-journal). */
  readonly eventJournal: EventJournalConfig;
}

/** A map's `event-journal` (Hazelcast's EventJournalConfig). */
export interface EventJournalConfig {
  readonly enabled: boolean;
  /** Events kept in total, split equally between the partitions (capacity / 271 each, rounded down). */
  readonly capacity: number;
  /** 0 = events are only dropped when the capacity overwrites them. */
  readonly timeToLiveSeconds: number;
}

/** Hazelcast's eviction policies of a map (`eviction-policy`). NONE: no entry is evicted. */
export const EVICTION_POLICIES = ['NONE', 'LRU', 'LFU', 'RANDOM'] as const;
export type EvictionPolicyName = (typeof EVICTION_POLICIES)[number];

/**
 * Hazelcast's max-size policies of an on-heap map (`max-size-policy`): entries per member or per
 * partition, megabytes or percent of memory the map's entries use, megabytes or percent free.
 */
export const MAX_SIZE_POLICIES = ['PER_NODE', 'PER_PARTITION', 'USED_HEAP_SIZE', 'USED_HEAP_PERCENTAGE', 'FREE_HEAP_SIZE', 'FREE_HEAP_PERCENTAGE'] as const;
export type MaxSizePolicyName = (typeof MAX_SIZE_POLICIES)[number];

/** A map's `eviction` element (Hazelcast 4/5). */
export interface EvictionConfig {
  readonly evictionPolicy: EvictionPolicyName;
  readonly maxSizePolicy: MaxSizePolicyName;
  /** Entries (PER_NODE, PER_PARTITION), megabytes (*_SIZE) or percent (*_PERCENTAGE); 0 reads as Integer.MAX_VALUE, as Hazelcast reads it. */
  readonly size: number;
}

/**
 * `data-persistence` of a map or a queue (queues are Grid's extension). Takes effect only while
 * the top-level `persistence` is enabled (the validator warns otherwise).
 */
export interface DataPersistenceConfig {
  /** Persist this structure's data under the member's `persistence base-dir`. */
  readonly enabled: boolean;
  /** true: a write is answered once it is on disk; false: once the OS has it (a power cut may lose the last writes). */
  readonly fsync: boolean;
}

/** A map's `merkle-tree`. */
export interface MerkleTreeConfig {
  /** Keep a Merkle tree per partition (WAN consistencyCheck needs it on both clusters). */
  readonly enabled: boolean;
  /** Levels of the tree, root included: 2^(depth-1) leaves per partition. An integer 2-27. */
  readonly depth: number;
}

/** Hazelcast's merge policies (com.hazelcast.spi.merge.*), by simple class name. */
export type MergePolicyName =
  | 'PutIfAbsentMergePolicy'
  | 'PassThroughMergePolicy'
  | 'HigherHitsMergePolicy'
  | 'LatestUpdateMergePolicy'
  | 'LatestAccessMergePolicy'
  | 'ExpirationTimeMergePolicy'
  | 'DiscardMergePolicy';

export const MERGE_POLICY_NAMES: readonly MergePolicyName[] = [
  'PutIfAbsentMergePolicy',
  'PassThroughMergePolicy',
  'HigherHitsMergePolicy',
  'LatestUpdateMergePolicy',
  'LatestAccessMergePolicy',
  'ExpirationTimeMergePolicy',
  'DiscardMergePolicy',
];

export interface MergePolicyConfig {
  readonly policy: MergePolicyName;
  /** Entries sent per merge operation. */
  readonly batchSize: number;
}

export interface WanReplicationRef {
  /** The `wan-replication` this map publishes to (checked to exist). */
  readonly name: string;
  /**
   * `merge-policy-class-name`: how the TARGET merges this map's entries (the policy travels
   * with each event). Written with or without `com.hazelcast.spi.merge.`; stored as the simple name.
   */
  readonly mergePolicyClassName: MergePolicyName;
  /** Entries this map receives over WAN are published further to its own wan-replication. */
  readonly republishingEnabled: boolean;
}

export interface QueueConfig {
  readonly name: string;
  /** 0 = unbounded. */
  readonly maxSize: number;
  readonly backupCount: number;
  readonly asyncBackupCount: number;
  /** Seconds an empty queue lives before it is destroyed; -1 = never. */
  readonly emptyQueueTtlSeconds: number;
  /** `split-brain-protection-ref`: name of a top-level `split-brain-protection` (checked to exist). */
  readonly splitBrainProtectionRef: string | undefined;
  /** How items of a merging cluster are merged after a split brain (`merge-policy`). */
  readonly mergePolicy: MergePolicyConfig;
  /** `data-persistence`: whether this queue's items are written to disk (Grid's extension; Hazelcast persists maps and caches only). */
  readonly dataPersistence: DataPersistenceConfig;
}

/** `cluster-data-recovery-policy`: how a restarting cluster proceeds when members or their data are missing. */
export type ClusterDataRecoveryPolicy = 'FULL_RECOVERY_ONLY' | 'PARTIAL_RECOVERY_MOST_RECENT' | 'PARTIAL_RECOVERY_MOST_COMPLETE';

export const CLUSTER_DATA_RECOVERY_POLICIES: readonly ClusterDataRecoveryPolicy[] = [
  'FULL_RECOVERY_ONLY',
  'PARTIAL_RECOVERY_MOST_RECENT',
  'PARTIAL_RECOVERY_MOST_COMPLETE',
];

/** The top-level `persistence` (4.x: `hot-restart-persistence`): what a member keeps on disk and how a cluster restarts from it. */
export interface PersistenceConfig {
  /** Off: nothing is written to disk, whatever maps and queues say. */
  readonly enabled: boolean;
  /** Directory of the persisted data, as written (a relative path is relative to the member's working directory). */
  readonly baseDir: string;
  /** Directory that `backup` writes `backup-<sequence>` copies into, as written; undefined = backups fail. */
  readonly backupDir: string | undefined;
  /** Stores per member writing in parallel (>= 1). */
  readonly parallelism: number;
  /** How long a restarting member waits for the members of its persisted member list and their partition tables (>= 1). */
  readonly validationTimeoutSeconds: number;
  /** How long every member may take to load its persisted partitions (>= 1). */
  readonly dataLoadTimeoutSeconds: number;
  readonly clusterDataRecoveryPolicy: ClusterDataRecoveryPolicy;
  /** A member whose data went stale while the cluster ran on deletes it and joins as new (false: it refuses to start). */
  readonly autoRemoveStaleData: boolean;
  /** Seconds to wait before rebalancing partitions after a member leaves unexpectedly; 0 = at once (>= 0). */
  readonly rebalanceDelaySeconds: number;
}

/**
 * `raft-algorithm` of the `cp-subsystem`: how every CP group runs Raft. Hazelcast's settings with
 * its names (`...-in-millis` as `...Ms`), for power users; each is an integer >= 1.
 */
export interface RaftAlgorithmConfig {
  /** `leader-election-timeout-in-millis`: a candidate that wins no majority in this long starts a new round. */
  readonly leaderElectionTimeoutMs: number;
  /** `leader-heartbeat-period-in-millis`: how often a leader sends each follower a heartbeat (an append request). */
  readonly leaderHeartbeatPeriodMs: number;
  /** `max-missed-leader-heartbeat-count`: a follower starts an election after this many heartbeat periods without one. */
  readonly maxMissedLeaderHeartbeatCount: number;
  /** `append-request-max-entry-count`: log entries per append request at most. */
  readonly appendRequestMaxEntryCount: number;
  /** `commit-index-advance-count-to-snapshot`: a member snapshots its state after this many commits since its last snapshot. */
  readonly commitIndexAdvanceCountToSnapshot: number;
  /** `uncommitted-entry-count-to-reject-new-appends`: a leader refuses new operations while this many of its entries are not committed. */
  readonly uncommittedEntryCountToRejectNewAppends: number;
  /** `append-request-backoff-timeout-in-millis`: an unanswered append request is followed by the next one after this long. */
  readonly appendRequestBackoffTimeoutMs: number;
}

/** One entry of the `cp-subsystem`'s `locks` (XML: `<locks><fenced-lock><name>..`): settings of the fenced locks it names. */
export interface FencedLockConfig {
  /**
   * A lock name or a wildcard pattern (one `*`), matched against a lock's name without its
   * `@group` part (`orders@g1` uses the entry `orders`, else `ord*`): the exact name first, else
   * the pattern with the longest literal part. Hazelcast has no `default` fallback here.
   */
  readonly name: string;
  /** `lock-acquire-limit`: how often one session may hold the lock at once. 0 = reentrant without limit, 1 = not reentrant. */
  readonly lockAcquireLimit: number;
}

/** The `cp-subsystem`: Raft groups among CP members, CP sessions, and the fenced locks' settings. */
export interface CpSubsystemConfig {
  /** cpMemberCount > 0. */
  readonly enabled: boolean;
  /** `cp-member-count`: the first members (by join order) that form the CP subsystem; 0 = off, else >= 3. */
  readonly cpMemberCount: number;
  /**
   * `group-size`: members of each CP group, odd, 3-7, at most cpMemberCount. Not set: cpMemberCount,
   * made odd (minus one when even) and at most 7, as Hazelcast derives it. 0 while the subsystem is off.
   */
  readonly groupSize: number;
  /** `session-time-to-live-seconds`: a CP session without a heartbeat this long is closed and its locks released. */
  readonly sessionTimeToLiveSeconds: number;
  /** `session-heartbeat-interval-seconds`: how often session holders send heartbeats; < sessionTimeToLiveSeconds. */
  readonly sessionHeartbeatIntervalSeconds: number;
  /** `missing-cp-member-auto-removal-seconds`: a CP member missing this long is removed and replaced; 0 = never; else >= sessionTimeToLiveSeconds. */
  readonly missingCpMemberAutoRemovalSeconds: number;
  /** `fail-on-indeterminate-operation-state`: true = at-most-once (an operation whose outcome is unknown fails), false = at-least-once (it is retried). */
  readonly failOnIndeterminateOperationState: boolean;
  /** `cp-member-priority`: this member's priority among CP members (Hazelcast prefers higher ones as group leaders). */
  readonly cpMemberPriority: number;
  readonly raftAlgorithm: RaftAlgorithmConfig;
  /** `locks`, in file order; a lock no entry matches has lockAcquireLimit 0. */
  readonly locks: readonly FencedLockConfig[];
}

/** Which operations a split-brain protection guards (`protect-on`). */
export type SplitBrainProtectionOn = 'READ' | 'WRITE' | 'READ_WRITE';

export const SPLIT_BRAIN_PROTECTION_ON: readonly SplitBrainProtectionOn[] = ['READ', 'WRITE', 'READ_WRITE'];

/**
 * A top-level `split-brain-protection`: maps and queues that refer to it refuse the guarded
 * operations while the member running them sees fewer than `minimumClusterSize` data members.
 */
export interface SplitBrainProtectionConfig {
  readonly name: string;
  /** A disabled protection guards nothing (a ref to it is still valid). */
  readonly enabled: boolean;
  /** >= 2. Lite members are not counted (as in Hazelcast). */
  readonly minimumClusterSize: number;
  readonly protectOn: SplitBrainProtectionOn;
}

export interface SimpleUser {
  readonly username: string;
  readonly password: string;
  readonly roles: readonly string[];
}

export interface RealmConfig {
  readonly name: string;
  /** Users of `authentication/simple`; empty when the realm has no simple authentication. */
  readonly users: readonly SimpleUser[];
  /** `identity/username-password`: the credentials this member presents when it joins. */
  readonly identity: { readonly username: string; readonly password: string } | undefined;
}

export interface SecurityConfig {
  readonly enabled: boolean;
  readonly realms: readonly RealmConfig[];
  /** Realm name used to authenticate joining members. */
  readonly memberAuthenticationRealm: string | undefined;
  /** Realm name used to authenticate clients (and REST credentials). */
  readonly clientAuthenticationRealm: string | undefined;
}

// A batch publisher's enumerations. Each list's order is Hazelcast's enum ids (getId()/getById):
// com.hazelcast.config.WanQueueFullBehavior, com.hazelcast.wan.WanPublisherState,
// com.hazelcast.config.WanAcknowledgeType, com.hazelcast.config.ConsistencyCheckStrategy.
// addWanConfig's JSON carries them by id: a wire format, never reorder.
export const WAN_QUEUE_FULL_BEHAVIORS = ['DISCARD_AFTER_MUTATION', 'THROW_EXCEPTION', 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE'] as const;
export const WAN_PUBLISHER_STATES = ['REPLICATING', 'PAUSED', 'STOPPED'] as const;
export const WAN_ACKNOWLEDGE_TYPES = ['ACK_ON_RECEIPT', 'ACK_ON_OPERATION_COMPLETE'] as const;
export const WAN_CONSISTENCY_CHECK_STRATEGIES = ['NONE', 'MERKLE_TREES'] as const;
export type WanQueueFullBehavior = (typeof WAN_QUEUE_FULL_BEHAVIORS)[number];
export type WanPublisherState = (typeof WAN_PUBLISHER_STATES)[number];
export type WanAcknowledgeType = (typeof WAN_ACKNOWLEDGE_TYPES)[number];
export type WanConsistencyCheckStrategy = (typeof WAN_CONSISTENCY_CHECK_STRATEGIES)[number];

export interface WanBatchPublisherConfig {
  readonly clusterName: string;
  /** Defaults to clusterName. */
  readonly publisherId: string;
  /** `host:port` entries. */
  readonly targetEndpoints: readonly string[];
  readonly batchSize: number;
  readonly batchMaxDelayMillis: number;
  readonly responseTimeoutMillis: number;
  readonly queueCapacity: number;
  readonly queueFullBehavior: WanQueueFullBehavior;
  readonly initialPublisherState: WanPublisherState;
  readonly acknowledgeType: WanAcknowledgeType;
  readonly consistencyCheckStrategy: WanConsistencyCheckStrategy;
  /** Grid's own `heartbeat-interval-millis`: a WAN connection silent this long is sent a probe. */
  readonly heartbeatIntervalMillis: number;
  /** Grid's own `heartbeat-timeout-millis`: a WAN connection silent this long is closed and redialled; 0 = off (TCP alone). */
  readonly heartbeatTimeoutMillis: number;
}

export interface WanReplicationConfig {
  readonly name: string;
  readonly batchPublishers: readonly WanBatchPublisherConfig[];
}

export interface GridConfig {
  readonly clusterName: string;
  /** undefined = generate a readable name at start. */
  readonly instanceName: string | undefined;
  /** Raw `properties` (hazelcast.* and grid.* names), values as strings. */
  readonly properties: ReadonlyMap<string, string>;
  readonly network: NetworkConfig;
  readonly advancedNetwork: AdvancedNetworkConfig;
  readonly maps: readonly MapConfig[];
  readonly queues: readonly QueueConfig[];
  readonly security: SecurityConfig;
  readonly wanReplication: readonly WanReplicationConfig[];
  /** Top-level `split-brain-protection` entries, enabled or not, in file order. */
  readonly splitBrainProtections: readonly SplitBrainProtectionConfig[];
  /** Top-level `persistence` (or its 4.x name `hot-restart-persistence`). */
  readonly persistence: PersistenceConfig;
  /** `cp-subsystem`: off unless cp-member-count is set. */
  readonly cpSubsystem: CpSubsystemConfig;
  readonly liteMember: boolean;
  /** `metrics`: Prometheus metrics on GET /metrics (docs/metrics.md). */
  readonly metrics: MetricsConfig;
  /** Derived settings read from `properties` (grid.* wins over hazelcast.*), typed. */
  readonly tuning: TuningConfig;
  /** Where this config came from, for messages: a file path, 'defaults', or 'inline'. */
  readonly source: string;
}

/** The top-level `metrics` element: Grid uses `enabled`; Hazelcast's `management-center`, `jmx` and `collection-frequency-seconds` are accepted and not used. */
export interface MetricsConfig {
  readonly enabled: boolean;
}

export interface TuningConfig {
  /** grid.rest.max-body-bytes: largest accepted request body. Default 64 MiB. */
  readonly restMaxBodyBytes: number;
  /** grid.rest.max-header-bytes: request line + headers. Default 64 KiB. */
  readonly restMaxHeaderBytes: number;
  /** grid.rest.max-buffered-body-bytes: member-wide budget for request bodies being received. Default 256 MiB. */
  readonly restMaxBufferedBodyBytes: number;
  /**
   * grid.rest.http-path: `grid` (default) serves REST through Grid's own HTTP/1.1 connection
   * handler, handing a connection to node:http only for what it does not handle itself;
   * `node` serves every connection through node:http (the reference path).
   */
  readonly restHttpPath: 'grid' | 'node';
  /** hazelcast.logging.level / grid.logging.level: initial log level (Hazelcast names). Default INFO. */
  readonly logLevel: string;
  /** hazelcast.heartbeat.interval.seconds. Default 5. */
  readonly heartbeatIntervalSeconds: number;
  /** hazelcast.max.no.heartbeat.seconds. Default 60. */
  readonly maxNoHeartbeatSeconds: number;
  /** hazelcast.partition.count is fixed at 271 in Grid; other values are rejected. */
  readonly partitionCount: 271;
  /** grid.expiry.sweep.interval.millis: how often the expiry sweeper runs. Default 1000. */
  readonly expirySweepIntervalMillis: number;
  /** hazelcast.operation.call.timeout.millis: how long an operation may take, retries included, before the caller gets an error. Default 60000. */
  readonly operationCallTimeoutMillis: number;
  /** hazelcast.operation.backup.timeout.millis: how long a write waits for sync backup acks before it answers anyway (logged). Default 5000. */
  readonly operationBackupTimeoutMillis: number;
  /** hazelcast.connection.monitor.max.faults: consecutive failed reconnects to a member after which it is suspected dead. Default 3. */
  readonly connectionMonitorMaxFaults: number;
  /** hazelcast.connection.monitor.interval (milliseconds): delay between those reconnect attempts. Default 100. */
  readonly connectionMonitorIntervalMillis: number;
  /** hazelcast.tcp.join.port.try.count: ports tried, from the member port upwards, for a member-list entry without a port. Default 3. */
  readonly tcpJoinPortTryCount: number;
  /** hazelcast.partition.max.parallel.migrations: partition migrations in flight at once. Default 10. */
  readonly maxParallelMigrations: number;
  /** hazelcast.max.join.seconds: how long a starting member looks for its cluster before start fails. Default 300. */
  readonly maxJoinSeconds: number;
  /** grid.partition.replica-sync-interval-seconds: anti-entropy round of the partition owners; 0 = off. Default 5. */
  readonly replicaSyncIntervalSeconds: number;
  /**
   * grid.debug.drop-backups: FOR TESTS ONLY. The fraction (0-1) of the backups this member
   * receives that it acknowledges but does not apply, evenly spread (0.1: every tenth), to
   * simulate lost backups. Default 0.
   */
  readonly debugDropBackups: number;
  /**
   * grid.debug.ignore-messages: FOR TESTS ONLY. Member messages this member pretends to take but
   * ignores (`Name[:count][:refuse]`, comma-separated; `refuse` answers an error instead), to
   * simulate lost messages. Default empty.
   */
  readonly debugIgnoreMessages: string;
  /** hazelcast.merge.first.run.delay.seconds: when the master first looks for the other side of a split brain. Default 300. */
  readonly mergeFirstRunDelaySeconds: number;
  /** hazelcast.merge.next.run.delay.seconds: how often it looks again. Default 120. */
  readonly mergeNextRunDelaySeconds: number;
  /** grid.metrics.history-seconds: seconds of 1-second samples each member keeps for GET /grid/rest/metrics/history; 0 = no sampler. Default 600. */
  readonly metricsHistorySeconds: number;
}

/** Warnings collected while loading (unknown elements, ignored settings). */
export interface ConfigLoadResult {
  readonly config: GridConfig;
  /** One line each; the Hazelcast elements Grid does not use are summed up in one line. */
  readonly warnings: readonly string[];
  /** The paths of those unused elements (`hazelcast.multimap`), for `--verbose`. */
  readonly unused: readonly string[];
}
