// The Hazelcast elements Grid reads but does not use, in one table, with what the validator
// does with each. Three treatments:
// - IGNORED_*: accepted unused; the loader sums them up in one warning (one switched off with
//   `enabled: false` is accepted silently: it would do nothing anyway). Passed to `Section.finish`.
// - UNSUPPORTED_*: warned about one by one, `<path>: <what to do instead> (ignored)`; the config
//   still loads. Passed to `Section.unsupported`.
// - REFUSED_*: an error; the config does not load (a silently different behaviour would be worse).
// An element in none of these lists, and not read by a reader, is reported as unknown.

/** Known Hazelcast top-level elements Grid accepts without using. */
export const IGNORED_TOP_LEVEL = [
  'import', 'config-replacers', 'license-key', 'management-center', 'jet', 'sql',
  'serialization', 'partition-group', 'listeners', 'executor-service', 'durable-executor-service',
  'scheduled-executor-service', 'multimap', 'replicatedmap', 'list', 'set', 'topic', 'reliable-topic', 'ringbuffer',
  'cardinality-estimator', 'flake-id-generator', 'pn-counter', 'cache', 'native-memory',
  'crdt-replication', 'user-code-deployment', 'instance-tracking',
  'integrity-checker', 'auditlog', 'dynamic-configuration', 'local-device', 'tpc', 'member-attributes',
  'data-connection', 'user-code-namespaces', 'vector-collection', 'rest', 'event-journal',
  'map-store', 'memcache-protocol', 'quorum', 'cluster-properties', 'device',
];
export const IGNORED_NETWORK = [
  'reuse-address', 'outbound-ports', 'member-address-provider', 'failure-detector', 'socket-interceptor',
  'symmetric-encryption', 'memcache-protocol', 'icmp', 'tpc-socket', 'rest-api-endpoint-config',
];
export const IGNORED_JOIN = ['aws', 'gcp', 'azure', 'kubernetes', 'eureka', 'discovery-strategies'];
export const IGNORED_MAP = [
  'in-memory-format', 'statistics-enabled', 'per-entry-stats-enabled', 'cache-deserialized-values',
  'read-backup-data', 'map-store',
  'near-cache', 'indexes', 'attributes', 'entry-listeners', 'partition-lost-listeners', 'partition-strategy',
  'query-caches', 'metadata-policy', 'tiered-store', 'partition-attributes',
  'user-code-namespace', 'optimize-queries', 'quorum-ref',
];
export const IGNORED_QUEUE = [
  'statistics-enabled', 'item-listeners', 'queue-store',
  'priority-comparator-class-name', 'user-code-namespace', 'quorum-ref',
];
export const IGNORED_SECURITY = [
  'client-permission-policy', 'client-permissions', 'security-interceptors', 'client-block-unmapped-actions',
  'member-credentials-factory', 'member-login-modules', 'client-login-modules', 'permission-priority',
];
export const IGNORED_ENDPOINT = [
  'public-address', 'reuse-address', 'outbound-ports', 'socket-options', 'symmetric-encryption',
  'socket-interceptor', 'tpc-socket', 'interfaces',
];
export const IGNORED_ADVANCED = [
  'client-server-socket-endpoint-config', 'wan-server-socket-endpoint-config',
  'memcache-server-socket-endpoint-config', 'member-address-provider', 'failure-detector',
];

/** `metrics` children of Management Center and JMX. */
export const IGNORED_METRICS = ['management-center', 'jmx', 'collection-frequency-seconds'];
/** A realm's children besides authentication and identity. */
export const IGNORED_REALM = ['access-control-service'];
/** A realm's authentication methods besides `simple`. */
export const IGNORED_AUTHENTICATION = ['jaas', 'ldap', 'kerberos', 'tls'];
/** Options of `simple` authentication. */
export const IGNORED_SIMPLE_AUTHENTICATION = ['skip-role', 'skip-identity', 'skip-endpoint', 'role-separator'];
/** A realm's identities besides `username-password`. */
export const IGNORED_IDENTITY = ['token', 'kerberos', 'credentials-factory'];
/** Children of a `split-brain-protection` besides its settings and functions. */
export const IGNORED_SPLIT_BRAIN_PROTECTION = ['listeners'];

// WAN elements Grid does not support, each warned about by name with what to do instead.
const WAN_DISCOVERY = 'WAN discovery plugins are not supported; list target-endpoints instead';
const WAN_DISCOVERY_ONLY = 'only used with WAN discovery, which Grid does not support; list target-endpoints instead';
/** Children of a `wan-replication`. */
export const UNSUPPORTED_WAN: Readonly<Record<string, string>> = {
  'custom-publisher': 'custom WAN publishers are not supported; use batch-publisher',
  consumer: 'custom WAN consumers are not supported; Grid always accepts WAN batches from clusters that authenticate as WAN peers',
};
/** The aliased discovery plugins: one with enabled="false" is accepted silently (it would do nothing anyway). */
export const WAN_DISCOVERY_PLUGINS = ['aws', 'gcp', 'azure', 'kubernetes', 'eureka'];
/** Children of a `batch-publisher`. */
export const UNSUPPORTED_PUBLISHER: Readonly<Record<string, string>> = {
  'discovery-strategies': WAN_DISCOVERY,
  aws: WAN_DISCOVERY,
  gcp: WAN_DISCOVERY,
  azure: WAN_DISCOVERY,
  kubernetes: WAN_DISCOVERY,
  eureka: WAN_DISCOVERY,
  'discovery-period-seconds': WAN_DISCOVERY_ONLY,
  'max-target-endpoints': WAN_DISCOVERY_ONLY,
  'use-endpoint-private-address': WAN_DISCOVERY_ONLY,
  endpoint: 'not read: every publisher dials the target member ports with the ssl of the first advanced-network wan-endpoint-config (else the member endpoint\'s)',
  properties: 'batch-publisher properties are not supported',
  'idle-min-park-ns': 'not supported: Grid\'s publisher is driven by events and timers, not a polling thread',
  'idle-max-park-ns': 'not supported: Grid\'s publisher is driven by events and timers, not a polling thread',
  'snapshot-enabled': 'not supported: every event is sent in order, none is coalesced per key',
  'max-concurrent-invocations': 'not supported: one batch is in flight per target endpoint, which keeps the order per key',
};
/** Children of the top-level `persistence` Grid does not act on. */
export const UNSUPPORTED_PERSISTENCE: Readonly<Record<string, string>> = {
  'encryption-at-rest': 'encryption at rest is not supported: Grid writes persisted data unencrypted; put base-dir and backup-dir on an encrypted file system instead',
};
/** Children of the `cp-subsystem` Grid does not support (semaphores and CP maps are warned about entry by entry). */
export const CP_STRUCTURES = "Grid's CP data structures are atomic longs and fenced locks";
export const UNSUPPORTED_CP: Readonly<Record<string, string>> = {
  'map-limit': `CPMap is not supported (${CP_STRUCTURES})`,
  'fenced-locks': 'not a Hazelcast element: fenced lock settings go under locks',
};
/** Settings of CP Subsystem Persistence besides its switch: accepted silently while it is off, as Hazelcast ignores them then. */
export const CP_PERSISTENCE_ONLY = 'only used by CP Subsystem Persistence, which Grid does not support';

/** Children of a map's `wan-replication-ref`. */
export const UNSUPPORTED_WAN_REF: Readonly<Record<string, string>> = {
  filters: 'WAN event filters are not supported; every mutation of the map is replicated',
};

/** Top-level elements of older Hazelcast versions that moved. */
export const UNSUPPORTED_TOP_LEVEL: Readonly<Record<string, string>> = {
  'merkle-tree': 'the top-level merkle-tree of Hazelcast 3.x is not supported; put merkle-tree inside the map',
};

/** A map's Hazelcast 3.x eviction elements. */
const EVICTION_V3 = 'the Hazelcast 3.x form is not read, so the map is not bounded: write <eviction eviction-policy="LRU" max-size-policy="PER_NODE" size="1000"/> (YAML eviction: {eviction-policy: LRU, max-size-policy: PER_NODE, size: 1000})';
/** Children of a map (besides the ones IGNORED_MAP accepts). */
export const UNSUPPORTED_MAP: Readonly<Record<string, string>> = { 'max-size': EVICTION_V3, 'eviction-policy': EVICTION_V3 };

/** Children of a map's `eviction`. */
export const UNSUPPORTED_EVICTION: Readonly<Record<string, string>> = {
  'comparator-class-name': 'custom eviction comparators are not supported; use eviction-policy LRU, LFU or RANDOM',
  comparator: 'custom eviction comparators are not supported; use eviction-policy LRU, LFU or RANDOM',
};

/** The one setting of a publisher's `sync`; any other child is warned about with this. */
export const UNSUPPORTED_WAN_SYNC = 'not supported: consistency-check-strategy is the only setting of sync';

/**
 * Split-brain protection functions Hazelcast offers besides member counting; Grid only counts
 * members (the warning names the minimum-cluster-size in use).
 */
export const OTHER_PROTECTION_FUNCTIONS = ['function-class-name', 'probabilistic-split-brain-protection', 'recently-active-split-brain-protection'];

/** Max-size policies of Hazelcast that Grid's maps cannot have, with the reason: refused. */
export const REFUSED_MAX_SIZE_POLICIES: Readonly<Record<string, string>> = {
  USED_NATIVE_MEMORY_SIZE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use USED_HEAP_SIZE',
  USED_NATIVE_MEMORY_PERCENTAGE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use USED_HEAP_PERCENTAGE',
  FREE_NATIVE_MEMORY_SIZE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use FREE_HEAP_SIZE',
  FREE_NATIVE_MEMORY_PERCENTAGE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use FREE_HEAP_PERCENTAGE',
  ENTRY_COUNT: 'is a max-size policy of caches (JCache), not of maps; use PER_NODE or PER_PARTITION',
};
