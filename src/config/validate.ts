// The one validator: raw tree (Hazelcast's YAML shape, from XML, YAML, objects and the
// environment) -> GridConfig with every default filled. It never stops at the first
// mistake: every problem is collected with its element path. Nothing here echoes a password.

import { isIPv6 } from 'node:net';
import { normalize } from 'node:path';
import {
  DEFAULT_ADVANCED_NETWORK_ENABLED,
  DEFAULT_ADVANCED_REST_PORT,
  DEFAULT_AUTO_DETECTION_ENABLED,
  DEFAULT_BIND_HOST,
  DEFAULT_CLUSTER_NAME,
  DEFAULT_CP_SUBSYSTEM,
  DEFAULT_DATA_PERSISTENCE,
  DEFAULT_ENABLED_ENDPOINT_GROUPS,
  DEFAULT_LITE_MEMBER,
  DEFAULT_METRICS_ENABLED,
  DEFAULT_LOCK_ACQUIRE_LIMIT,
  DEFAULT_MAP,
  DEFAULT_MEMBER_PORT,
  DEFAULT_PERSISTENCE,
  DEFAULT_PORT_AUTO_INCREMENT,
  DEFAULT_PORT_COUNT,
  DEFAULT_QUEUE,
  DEFAULT_REST_ENABLED,
  DEFAULT_SECURITY_ENABLED,
  DEFAULT_SPLIT_BRAIN_PROTECTION,
  DEFAULT_TCP_IP_CONNECTION_TIMEOUT_SECONDS,
  DEFAULT_TCP_IP_ENABLED,
  DEFAULT_TUNING,
  DEFAULT_WAN_MERGE_POLICY,
  DEFAULT_WAN_PUBLISHER,
  DEFAULT_WAN_REPUBLISHING_ENABLED,
  ENDPOINT_GROUP_ALIASES,
  LOG_LEVELS,
  MAX_BACKUP_COUNT,
  MAX_CP_GROUP_SIZE,
  MIN_CP_DATA_LOAD_TIMEOUT_SECONDS,
  MIN_CP_GROUP_SIZE,
  defaultCpGroupSize,
  MAX_MERKLE_TREE_DEPTH,
  MIN_MERKLE_TREE_DEPTH,
  MIN_PERSISTENCE_TIMEOUT_SECONDS,
} from './defaults.js';
import { isHost, parseMemberEntry, splitMemberEntries } from './member-list.js';
import { readSsl, type SslConfig } from './ssl.js';
import { parseMemoryLimit } from '../core/memory-guard.js';
import { childPath, didYouMean, isRecord, show, type Problems } from './problems.js';
import {
  CLUSTER_DATA_RECOVERY_POLICIES,
  ENDPOINT_GROUPS,
  SPLIT_BRAIN_PROTECTION_ON,
  MERGE_POLICY_NAMES,
  EVICTION_POLICIES,
  MAX_SIZE_POLICIES,
  type MergePolicyConfig,
  type MergePolicyName,
  type AdvancedNetworkConfig,
  type CpSubsystemConfig,
  type DataPersistenceConfig,
  type EvictionConfig,
  type EndpointGroupName,
  type FencedLockConfig,
  type GridConfig,
  type JoinConfig,
  type MapConfig,
  type MerkleTreeConfig,
  type NetworkConfig,
  type PersistenceConfig,
  type PortConfig,
  type QueueConfig,
  type RaftAlgorithmConfig,
  type RealmConfig,
  type RestApiConfig,
  type SecurityConfig,
  type SimpleUser,
  type SplitBrainProtectionConfig,
  type TuningConfig,
  type WanBatchPublisherConfig,
  type WanReplicationConfig,
  type WanReplicationRef,
} from './types.js';

const INT_MAX = 2147483647;

/** Known Hazelcast top-level elements Grid accepts without using. */
const IGNORED_TOP_LEVEL = [
  'import', 'config-replacers', 'license-key', 'management-center', 'jet', 'sql',
  'serialization', 'partition-group', 'listeners', 'executor-service', 'durable-executor-service',
  'scheduled-executor-service', 'multimap', 'replicatedmap', 'list', 'set', 'topic', 'reliable-topic', 'ringbuffer',
  'cardinality-estimator', 'flake-id-generator', 'pn-counter', 'cache', 'native-memory',
  'crdt-replication', 'user-code-deployment', 'instance-tracking',
  'integrity-checker', 'auditlog', 'dynamic-configuration', 'local-device', 'tpc', 'member-attributes',
  'data-connection', 'user-code-namespaces', 'vector-collection', 'rest', 'event-journal',
  'map-store', 'memcache-protocol', 'quorum', 'cluster-properties', 'device',
];
const IGNORED_NETWORK = [
  'reuse-address', 'outbound-ports', 'member-address-provider', 'failure-detector', 'ssl', 'socket-interceptor',
  'symmetric-encryption', 'memcache-protocol', 'icmp', 'tpc-socket', 'rest-api-endpoint-config',
];
const IGNORED_JOIN = ['aws', 'gcp', 'azure', 'kubernetes', 'eureka', 'discovery-strategies'];
const IGNORED_MAP = [
  'in-memory-format', 'statistics-enabled', 'per-entry-stats-enabled', 'cache-deserialized-values',
  'read-backup-data', 'event-journal', 'map-store',
  'near-cache', 'indexes', 'attributes', 'entry-listeners', 'partition-lost-listeners', 'partition-strategy',
  'query-caches', 'metadata-policy', 'tiered-store', 'partition-attributes',
  'user-code-namespace', 'optimize-queries', 'quorum-ref',
];
const IGNORED_QUEUE = [
  'statistics-enabled', 'item-listeners', 'queue-store',
  'priority-comparator-class-name', 'user-code-namespace', 'quorum-ref',
];
const IGNORED_SECURITY = [
  'client-permission-policy', 'client-permissions', 'security-interceptors', 'client-block-unmapped-actions',
  'member-credentials-factory', 'member-login-modules', 'client-login-modules', 'permission-priority',
];
const IGNORED_ENDPOINT = [
  'public-address', 'reuse-address', 'outbound-ports', 'socket-options', 'ssl', 'symmetric-encryption',
  'socket-interceptor', 'tpc-socket', 'interfaces',
];
const IGNORED_ADVANCED = [
  'client-server-socket-endpoint-config', 'wan-server-socket-endpoint-config',
  'memcache-server-socket-endpoint-config', 'member-address-provider', 'failure-detector',
];

// WAN elements Grid does not support, each warned about by name with what to do instead.
const WAN_DISCOVERY = 'WAN discovery plugins are not supported; list target-endpoints instead';
const WAN_DISCOVERY_ONLY = 'only used with WAN discovery, which Grid does not support; list target-endpoints instead';
/** Children of a `wan-replication`. */
const UNSUPPORTED_WAN: Readonly<Record<string, string>> = {
  'custom-publisher': 'custom WAN publishers are not supported; use batch-publisher',
  consumer: 'custom WAN consumers are not supported; Grid always accepts WAN batches from clusters that authenticate as WAN peers',
};
/** The aliased discovery plugins: one with enabled="false" is accepted silently (it would do nothing anyway). */
const WAN_DISCOVERY_PLUGINS = ['aws', 'gcp', 'azure', 'kubernetes', 'eureka'];
/** Children of a `batch-publisher`. */
const UNSUPPORTED_PUBLISHER: Readonly<Record<string, string>> = {
  'discovery-strategies': WAN_DISCOVERY,
  aws: WAN_DISCOVERY,
  gcp: WAN_DISCOVERY,
  azure: WAN_DISCOVERY,
  kubernetes: WAN_DISCOVERY,
  eureka: WAN_DISCOVERY,
  'discovery-period-seconds': WAN_DISCOVERY_ONLY,
  'max-target-endpoints': WAN_DISCOVERY_ONLY,
  'use-endpoint-private-address': WAN_DISCOVERY_ONLY,
  endpoint: 'WAN endpoint configs (advanced-network wan-endpoint-config) are not supported; the publisher connects to the target member ports like a member connection',
  properties: 'batch-publisher properties are not supported',
  'idle-min-park-ns': 'not supported: Grid\'s publisher is driven by events and timers, not a polling thread',
  'idle-max-park-ns': 'not supported: Grid\'s publisher is driven by events and timers, not a polling thread',
  'snapshot-enabled': 'not supported: every event is sent in order, none is coalesced per key',
  'max-concurrent-invocations': 'not supported: one batch is in flight per target endpoint, which keeps the order per key',
};
/** Children of the top-level `persistence` Grid does not act on. */
const UNSUPPORTED_PERSISTENCE: Readonly<Record<string, string>> = {
  'encryption-at-rest': 'encryption at rest is not supported: Grid writes persisted data unencrypted; put base-dir and backup-dir on an encrypted file system instead',
};
/** Children of the `cp-subsystem` Grid does not support (semaphores and CP maps are warned about entry by entry). */
const CP_STRUCTURES = "Grid's CP data structures are atomic longs and fenced locks";
const UNSUPPORTED_CP: Readonly<Record<string, string>> = {
  'map-limit': `CPMap is not supported (${CP_STRUCTURES})`,
  'fenced-locks': 'not a Hazelcast element: fenced lock settings go under locks',
};
/** Settings of CP Subsystem Persistence besides its switch: accepted silently while it is off, as Hazelcast ignores them then. */
const CP_PERSISTENCE_ONLY = 'only used by CP Subsystem Persistence, which Grid does not support';

/** Children of a map's `wan-replication-ref`. */
const UNSUPPORTED_WAN_REF: Readonly<Record<string, string>> = {
  filters: 'WAN event filters are not supported; every mutation of the map is replicated',
};

type Raw = unknown;

/** Reads one mapping of the raw tree; remembers which keys were read so the rest can be reported. */
class Section {
  private readonly used = new Set<string>();

  constructor(
    private readonly problems: Problems,
    readonly path: string,
    readonly obj: Readonly<Record<string, unknown>>,
  ) {}

  /** A mapping at `path`; absent or empty -> empty section; anything else -> error + empty section. */
  static of(problems: Problems, path: string, value: Raw): Section {
    if (isRecord(value)) return new Section(problems, path, value);
    if (value !== undefined && value !== null && value !== '') problems.error(path, `must be a mapping, got ${show(value)}`);
    return new Section(problems, path, {});
  }

  at(key: string): string {
    return childPath(this.path, key);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  raw(key: string): Raw {
    this.used.add(key);
    const v = this.obj[key];
    return v === null ? undefined : v;
  }

  child(key: string): Section {
    return Section.of(this.problems, this.at(key), this.raw(key));
  }

  str(key: string, def: string): string {
    return this.optStr(key) ?? def;
  }

  optStr(key: string, opts: { secret?: boolean } = {}): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'string') return opts.secret === true ? v : v.trim();
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    this.problems.error(this.at(key), `must be a single value, got ${opts.secret === true ? 'something else' : show(v)}`);
    return undefined;
  }

  /** A string the user must give; `secret` keeps its value out of messages. */
  requiredStr(key: string, opts: { secret?: boolean; allowEmpty?: boolean } = {}): string {
    const present = this.obj[key] !== undefined && this.obj[key] !== null;
    const v = this.optStr(key, opts);
    if (!present) {
      this.problems.error(this.at(key), 'is required');
      return '';
    }
    if (v === undefined) return ''; // reported by optStr
    if (v === '' && opts.allowEmpty !== true) {
      this.problems.error(this.at(key), 'must not be empty');
      return '';
    }
    return v;
  }

  bool(key: string, def: boolean): boolean {
    const v = this.raw(key);
    if (v === undefined) return def;
    const b = parseBool(v);
    if (b === undefined) {
      this.problems.error(this.at(key), `must be true or false, got ${show(v)}`);
      return def;
    }
    return b;
  }

  int(key: string, def: number, min: number, max: number = INT_MAX): number {
    const v = this.raw(key);
    if (v === undefined) return def;
    return checkInt(this.problems, this.at(key), v, min, max) ?? def;
  }

  /**
   * Marks every key of `messages` that is present as read and warns `<path>: <message> (ignored)`:
   * Hazelcast elements Grid does not support, named with what to do instead.
   */
  unsupported(messages: Readonly<Record<string, string>>, opts: { silentWhenDisabled?: readonly string[] } = {}): void {
    for (const key of Object.keys(this.obj)) {
      const message = messages[key];
      if (message === undefined || this.used.has(key)) continue;
      const v = this.raw(key);
      if (opts.silentWhenDisabled?.includes(key) === true && isRecord(v) && parseBool(v['enabled']) === false) continue;
      this.problems.warn(this.at(key), `${message} (ignored)`);
    }
  }

  /**
   * Reports every key not read: known-but-unused ones as such (summed up in one warning by the
   * loader; one switched off with `enabled: false` is accepted silently, it would do nothing
   * anyway), the rest as unknown.
   */
  finish(ignored: readonly string[] = [], opts: { silent?: readonly string[] } = {}): void {
    for (const key of Object.keys(this.obj)) {
      if (this.used.has(key) || opts.silent?.includes(key)) continue;
      if (ignored.includes(key)) {
        const v = this.obj[key];
        if (!(isRecord(v) && parseBool(v['enabled']) === false)) this.problems.unusedElement(this.at(key));
      } else {
        // The keys this section read (present or not) and the ones it accepts unused: the names it knows.
        const guess = didYouMean(key, [...this.used, ...ignored, ...(opts.silent ?? [])]);
        this.problems.warn(this.at(key), `unknown element, ignored${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`);
      }
    }
  }
}

/** `true`/`false`, as a boolean or any-case text; undefined for anything else. */
export function parseBool(v: Raw): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return undefined;
}

function parseIntStrict(v: Raw): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

function rangeText(min: number, max: number): string {
  if (max === INT_MAX || max === Number.MAX_SAFE_INTEGER) return `an integer >= ${min}`;
  return `an integer ${min}-${max}`;
}

function checkInt(problems: Problems, path: string, v: Raw, min: number, max: number): number | undefined {
  const n = parseIntStrict(v);
  if (n === undefined || n < min || n > max) {
    problems.error(path, `must be ${rangeText(min, max)}, got ${show(v)}`);
    return undefined;
  }
  return n;
}

// ---- host and port syntax -------------------------------------------------------------

function isPort(s: string): boolean {
  return /^\d{1,5}$/.test(s) && Number(s) >= 1 && Number(s) <= 65535;
}

/**
 * `host` and `host:port`; host = IPv4, a name or [IPv6]; bare IPv6 without port. (Member-list
 * entries: member-list.ts.) Exported (through index.ts) for WAN target endpoints given over REST.
 */
export function isHostPort(entry: string): boolean {
  if (isIPv6(entry)) return true;
  const m = /^(\[[^\]]*\]|[^:]+)(?::(.*))?$/.exec(entry);
  if (m === null) return false;
  const host = m[1] ?? '';
  const port = m[2];
  if (!isHost(host)) return false;
  if (port === undefined) return true;
  return isPort(port);
}

/** A list given as a YAML list, or as one comma-separated string. */
function readList(problems: Problems, path: string, v: Raw): { value: string; path: string }[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string' || typeof v === 'number') {
    return String(v)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((value) => ({ value, path }));
  }
  if (Array.isArray(v)) {
    const out: { value: string; path: string }[] = [];
    v.forEach((item, i) => {
      if (typeof item === 'string' || typeof item === 'number') {
        for (const part of String(item).split(',')) {
          if (part.trim() !== '') out.push({ value: part.trim(), path: `${path}[${i}]` });
        }
      } else if (item !== null) problems.error(`${path}[${i}]`, `must be a single value, got ${show(item)}`);
    });
    return out;
  }
  problems.error(path, `must be a list or a comma-separated string, got ${show(v)}`);
  return [];
}

// ---- sections ---------------------------------------------------------------------------

function readPort(problems: Problems, path: string, v: Raw, defPort: number): PortConfig {
  const def: PortConfig = { port: defPort, autoIncrement: DEFAULT_PORT_AUTO_INCREMENT, portCount: DEFAULT_PORT_COUNT };
  if (v === undefined || v === null) return def;
  if (!isRecord(v)) {
    // `port: 5701` shorthand.
    return { ...def, port: checkInt(problems, path, v, 1, 65535) ?? defPort };
  }
  const s = new Section(problems, path, v);
  const port = {
    port: s.int('port', defPort, 1, 65535),
    autoIncrement: s.bool('auto-increment', DEFAULT_PORT_AUTO_INCREMENT),
    portCount: s.int('port-count', DEFAULT_PORT_COUNT, 1, 65535),
  };
  s.finish();
  return port;
}

function readEndpointGroups(problems: Problems, s: Section): Set<EndpointGroupName> {
  const groups = new Set<EndpointGroupName>(DEFAULT_ENABLED_ENDPOINT_GROUPS);
  const g = s.child('endpoint-groups');
  for (const name of Object.keys(g.obj)) {
    const upper = name.trim().toUpperCase();
    const canonical = ENDPOINT_GROUP_ALIASES[upper] ?? ENDPOINT_GROUPS.find((n) => n === upper);
    const entry = g.child(name);
    if (canonical === undefined) {
      problems.error(entry.path, `unknown endpoint group (known: ${[...ENDPOINT_GROUPS, ...Object.keys(ENDPOINT_GROUP_ALIASES)].join(', ')})`);
      continue;
    }
    const enabled = entry.bool('enabled', true);
    entry.finish();
    if (enabled) groups.add(canonical);
    else groups.delete(canonical);
  }
  g.finish();
  return groups;
}

function readRestApi(problems: Problems, s: Section): RestApiConfig {
  const enabled = s.bool('enabled', DEFAULT_REST_ENABLED);
  const groups = readEndpointGroups(problems, s);
  s.finish();
  // With REST off no group is reachable; an empty set says so to every reader.
  return { enabled, enabledGroups: enabled ? groups : new Set() };
}

function readJoin(problems: Problems, s: Section): JoinConfig {
  const tcp = s.child('tcp-ip');
  const members: string[] = [];
  const entries = [
    ...readList(problems, tcp.at('member-list'), tcp.raw('member-list')),
    ...readList(problems, tcp.at('members'), tcp.raw('members')),
    ...readList(problems, tcp.at('interface'), tcp.raw('interface')),
    ...readList(problems, tcp.at('required-member'), tcp.raw('required-member')),
  ];
  // One element may hold several entries (Hazelcast splits at commas, semicolons, spaces).
  for (const e of entries) {
    for (const value of splitMemberEntries(e.value)) {
      try {
        parseMemberEntry(value);
      } catch (err) {
        problems.error(e.path, err instanceof Error ? err.message : String(err));
        continue;
      }
      if (!members.includes(value)) members.push(value);
    }
  }
  const tcpIp = {
    enabled: tcp.bool('enabled', DEFAULT_TCP_IP_ENABLED),
    members,
    connectionTimeoutSeconds: tcp.int('connection-timeout-seconds', DEFAULT_TCP_IP_CONNECTION_TIMEOUT_SECONDS, 0),
  };
  tcp.finish();

  const multicast = s.child('multicast');
  if (multicast.bool('enabled', false)) {
    problems.warn(multicast.at('enabled'), 'Grid never joins by multicast; use tcp-ip (multicast stays disabled)');
  }
  // Every other multicast setting is moot: accepted silently.
  multicast.finish([], { silent: Object.keys(multicast.obj) });

  const auto = s.child('auto-detection');
  const autoDetectionEnabled = auto.bool('enabled', DEFAULT_AUTO_DETECTION_ENABLED);
  if (autoDetectionEnabled) problems.warn(auto.at('enabled'), 'Grid has no auto-detection; members are found by tcp-ip only');
  auto.finish();
  s.finish(IGNORED_JOIN);
  return { tcpIp, multicastEnabled: false, autoDetectionEnabled };
}

function readNetwork(problems: Problems, s: Section): NetworkConfig {
  const port = readPort(problems, s.at('port'), s.raw('port'), DEFAULT_MEMBER_PORT);
  const publicAddress = s.optStr('public-address');
  if (publicAddress !== undefined && !isHostPort(publicAddress)) {
    problems.error(s.at('public-address'), `not a host or host:port: ${show(publicAddress)}`);
  }
  const ifaces = s.child('interfaces');
  const ifacesEnabled = ifaces.bool('enabled', false);
  const list = readList(problems, ifaces.at('interfaces'), ifaces.raw('interfaces'));
  ifaces.finish();
  let bindHost = DEFAULT_BIND_HOST;
  const first = list[0];
  if (ifacesEnabled && first !== undefined) {
    if (/[*-]/.test(first.value) && !isIPv6(first.value)) {
      problems.warn(first.path, `Grid binds one literal address and does not expand patterns; binding ${DEFAULT_BIND_HOST}`);
    } else if (!isHost(first.value) && !isIPv6(first.value)) {
      problems.error(first.path, `not an address: ${show(first.value)}`);
    } else {
      bindHost = first.value.replace(/^\[(.*)\]$/, '$1');
    }
  }
  const join = readJoin(problems, s.child('join'));
  const restApi = readRestApi(problems, s.child('rest-api'));
  const ssl = readSsl(problems, s.at('ssl'), s.raw('ssl'));
  s.finish(IGNORED_NETWORK);
  return { port, publicAddress: publicAddress === '' ? undefined : publicAddress, bindHost, join, restApi, ssl };
}

function readAdvancedNetwork(
  problems: Problems,
  s: Section,
  network: NetworkConfig,
): { advanced: AdvancedNetworkConfig; join: JoinConfig | undefined } {
  const enabled = s.bool('enabled', DEFAULT_ADVANCED_NETWORK_ENABLED);
  const join = s.has('join') ? readJoin(problems, s.child('join')) : undefined;
  const member = s.child('member-server-socket-endpoint-config');
  const memberPort = readPort(problems, member.at('port'), member.raw('port'), DEFAULT_MEMBER_PORT);
  const memberSsl = readSsl(problems, member.at('ssl'), member.raw('ssl'));
  // `name` only labels an endpoint config.
  member.finish(IGNORED_ENDPOINT, { silent: ['name'] });
  let rest: AdvancedNetworkConfig['rest'];
  let restSsl: SslConfig | undefined;
  if (s.has('rest-server-socket-endpoint-config')) {
    const r = s.child('rest-server-socket-endpoint-config');
    const port = readPort(problems, r.at('port'), r.raw('port'), DEFAULT_ADVANCED_REST_PORT);
    const enabledGroups = readEndpointGroups(problems, r);
    restSsl = readSsl(problems, r.at('ssl'), r.raw('ssl'));
    r.finish(IGNORED_ENDPOINT, { silent: ['name'] });
    rest = { port, enabledGroups };
  }
  const wanSsl = readWanEndpointSsl(problems, s.child('wan-endpoint-config'));
  s.finish(IGNORED_ADVANCED);
  if (!enabled) return { advanced: { enabled: false, memberPort: network.port, rest: undefined }, join: undefined };
  return { advanced: { enabled: true, memberPort, rest, memberSsl, restSsl, wanSsl }, join };
}

/** `wan-endpoint-config` entries (keyed by name): the ssl WAN publishers dial with (the first enabled one). */
function readWanEndpointSsl(problems: Problems, s: Section): SslConfig | undefined {
  let found: SslConfig | undefined;
  for (const name of Object.keys(s.obj)) {
    const e = s.child(name);
    const ssl = readSsl(problems, e.at('ssl'), e.raw('ssl'));
    if (ssl !== undefined && found !== undefined) problems.warn(e.at('ssl'), `only the first wan-endpoint-config's ssl is used (${found.path})`);
    found ??= ssl;
    e.finish(IGNORED_ENDPOINT, { silent: ['name'] });
  }
  return found;
}

function readMaps(problems: Problems, s: Section, persistenceEnabled: boolean): MapConfig[] {
  const maps: MapConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const m = s.child(name);
    checkConfigName(problems, m.path, name);
    const backupCount = m.int('backup-count', DEFAULT_MAP.backupCount, 0, MAX_BACKUP_COUNT);
    const asyncBackupCount = m.int('async-backup-count', DEFAULT_MAP.asyncBackupCount, 0, MAX_BACKUP_COUNT);
    checkBackupSum(problems, m, backupCount, asyncBackupCount);
    const timeToLiveSeconds = m.int('time-to-live-seconds', DEFAULT_MAP.timeToLiveSeconds, 0);
    const maxIdleSeconds = m.int('max-idle-seconds', DEFAULT_MAP.maxIdleSeconds, 0);
    let wanReplicationRef: WanReplicationRef | undefined;
    if (m.has('wan-replication-ref')) {
      const refs = m.child('wan-replication-ref');
      const names = Object.keys(refs.obj);
      if (names.length > 1) problems.error(refs.path, `a map has at most one wan-replication-ref, got ${names.length}`);
      for (const refName of names) {
        const r = refs.child(refName);
        let mergePolicyClassName = DEFAULT_WAN_MERGE_POLICY;
        const className = r.optStr('merge-policy-class-name');
        if (className !== undefined) {
          const policy = mergePolicyName(className);
          if (policy === undefined) problems.error(r.at('merge-policy-class-name'), unknownMergePolicy(className));
          else mergePolicyClassName = policy;
        }
        wanReplicationRef ??= {
          name: refName,
          mergePolicyClassName,
          republishingEnabled: r.bool('republishing-enabled', DEFAULT_WAN_REPUBLISHING_ENABLED),
        };
        r.unsupported(UNSUPPORTED_WAN_REF);
        r.finish();
      }
      refs.finish();
    }
    const mergePolicy = readMergePolicy(problems, m, DEFAULT_MAP.mergePolicy);
    const splitBrainProtectionRef = readProtectionRef(m);
    const merkleTree = readMerkleTree(problems, m);
    const dataPersistence = readDataPersistence(problems, m, persistenceEnabled, 'map');
    const eviction = readEviction(problems, m);
    m.finish(IGNORED_MAP);
    maps.push({
      name,
      backupCount,
      asyncBackupCount,
      timeToLiveSeconds,
      maxIdleSeconds,
      wanReplicationRef,
      splitBrainProtectionRef,
      mergePolicy,
      merkleTree,
      dataPersistence,
      eviction,
    });
  }
  return maps;
}

function readQueues(problems: Problems, s: Section, persistenceEnabled: boolean): QueueConfig[] {
  const queues: QueueConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const q = s.child(name);
    checkConfigName(problems, q.path, name);
    const maxSize = q.int('max-size', DEFAULT_QUEUE.maxSize, 0);
    const backupCount = q.int('backup-count', DEFAULT_QUEUE.backupCount, 0, MAX_BACKUP_COUNT);
    const asyncBackupCount = q.int('async-backup-count', DEFAULT_QUEUE.asyncBackupCount, 0, MAX_BACKUP_COUNT);
    checkBackupSum(problems, q, backupCount, asyncBackupCount);
    const emptyQueueTtlSeconds = q.int('empty-queue-ttl', DEFAULT_QUEUE.emptyQueueTtlSeconds, -1);
    const mergePolicy = readMergePolicy(problems, q, DEFAULT_QUEUE.mergePolicy);
    const splitBrainProtectionRef = readProtectionRef(q);
    // Grid's extension: Hazelcast persists maps and caches, not queues.
    const dataPersistence = readDataPersistence(problems, q, persistenceEnabled, 'queue');
    q.finish(IGNORED_QUEUE);
    queues.push({
      name,
      maxSize,
      backupCount,
      asyncBackupCount,
      emptyQueueTtlSeconds,
      splitBrainProtectionRef,
      mergePolicy,
      dataPersistence,
    });
  }
  return queues;
}

/**
 * `merge-policy`: a policy class name (Hazelcast's full `com.hazelcast.spi.merge.X` or just
 * `X`) and `batch-size`. XML: `<merge-policy batch-size="100">X</merge-policy>`; YAML:
 * `merge-policy: {class-name: X, batch-size: 100}` (a plain string is taken as the class name).
 */
function readMergePolicy(problems: Problems, s: Section, def: MergePolicyConfig): MergePolicyConfig {
  if (!s.has('merge-policy')) return def;
  const raw = s.raw('merge-policy');
  let className: string;
  let batchSize = def.batchSize;
  if (typeof raw === 'string') {
    className = raw.trim();
  } else {
    const m = s.child('merge-policy');
    className = m.str('class-name', def.policy).trim();
    batchSize = m.int('batch-size', def.batchSize, 1);
    m.finish();
  }
  const policy = mergePolicyName(className);
  if (policy === undefined) {
    problems.error(s.at('merge-policy'), unknownMergePolicy(className));
    return def;
  }
  return { policy, batchSize };
}

const MERGE_POLICY_PACKAGE = 'com.hazelcast.spi.merge.';

/**
 * A merge policy class name as Hazelcast writes it, `com.hazelcast.spi.merge.X` or just `X`,
 * -> `X` when Grid knows it; undefined otherwise (another package is another class).
 * Used by `merge-policy` and by `wan-replication-ref merge-policy-class-name`.
 */
function mergePolicyName(className: string): MergePolicyName | undefined {
  const name = className.trim();
  const simple = name.startsWith(MERGE_POLICY_PACKAGE) ? name.slice(MERGE_POLICY_PACKAGE.length) : name;
  return MERGE_POLICY_NAMES.find((p) => p === simple);
}

function unknownMergePolicy(className: string): string {
  return `unknown merge policy ${show(className)}: one of ${MERGE_POLICY_NAMES.join(', ')} (with or without ${MERGE_POLICY_PACKAGE})`;
}

/**
 * A map's `merkle-tree`: XML `<merkle-tree enabled="true"><depth>10</depth></merkle-tree>`, YAML
 * `merkle-tree: {enabled: true, depth: 10}`. Without `enabled` the tree stays off (Hazelcast
 * reads it so), with a warning when the element is there.
 */
function readMerkleTree(problems: Problems, s: Section): MerkleTreeConfig {
  const def = DEFAULT_MAP.merkleTree;
  if (!s.has('merkle-tree')) {
    s.raw('merkle-tree');
    return def;
  }
  const t = s.child('merkle-tree');
  if (!t.has('enabled')) {
    problems.warn(t.at('enabled'), 'not set: the Merkle tree stays disabled; set enabled to true to use it');
  }
  const merkle = {
    enabled: t.bool('enabled', def.enabled),
    depth: t.int('depth', def.depth, MIN_MERKLE_TREE_DEPTH, MAX_MERKLE_TREE_DEPTH),
  };
  t.finish();
  return merkle;
}

/**
 * Which of an element and its Hazelcast 4 name to read: the one that is given. Both at once is
 * an error naming both (Hazelcast merges them by rules a reader of the file should not need to
 * know); the current name is then read. Both keys count as read.
 */
function aliasedKey(problems: Problems, s: Section, name: string, alias: string): string {
  const hasName = s.has(name);
  const hasAlias = s.has(alias);
  s.raw(name);
  s.raw(alias);
  if (hasName && hasAlias) {
    problems.error(s.at(name), `given together with ${s.at(alias)} (its Hazelcast 4 name): keep one`);
  }
  return hasAlias && !hasName ? alias : name;
}

/**
 * The top-level `persistence`, or `hot-restart-persistence` (Hazelcast 4). XML `<persistence
 * enabled="true"><base-dir>/data</base-dir>...</persistence>`, YAML `persistence: {enabled: true,
 * base-dir: /data, ...}`. Directories are kept as written; the persistence layer resolves them.
 */
function readPersistence(problems: Problems, root: Section): PersistenceConfig {
  const def = DEFAULT_PERSISTENCE;
  const s = root.child(aliasedKey(problems, root, 'persistence', 'hot-restart-persistence'));
  const dir = (key: string): string | undefined => {
    const v = s.optStr(key);
    if (v === '') problems.error(s.at(key), `must not be empty${key === 'backup-dir' ? ' (leave backup-dir out for no backups)' : ''}`);
    return v === '' ? undefined : v;
  };
  const baseDir = dir('base-dir') ?? def.baseDir;
  const backupDir = dir('backup-dir') ?? def.backupDir;
  if (backupDir !== undefined && sameDir(backupDir, baseDir)) {
    problems.error(s.at('backup-dir'), `must not be base-dir (${show(baseDir)}): backups are copies kept beside the data, not in it`);
  }
  let clusterDataRecoveryPolicy = def.clusterDataRecoveryPolicy;
  const policy = s.optStr('cluster-data-recovery-policy');
  if (policy !== undefined) {
    // Hazelcast upper-cases the value before matching.
    const found = CLUSTER_DATA_RECOVERY_POLICIES.find((p) => p === policy.toUpperCase());
    if (found === undefined) {
      problems.error(s.at('cluster-data-recovery-policy'), `must be one of ${CLUSTER_DATA_RECOVERY_POLICIES.join(', ')}, got ${show(policy)}`);
    } else clusterDataRecoveryPolicy = found;
  }
  const persistence: PersistenceConfig = {
    enabled: s.bool('enabled', def.enabled),
    baseDir,
    backupDir,
    parallelism: s.int('parallelism', def.parallelism, 1),
    validationTimeoutSeconds: s.int('validation-timeout-seconds', def.validationTimeoutSeconds, MIN_PERSISTENCE_TIMEOUT_SECONDS),
    dataLoadTimeoutSeconds: s.int('data-load-timeout-seconds', def.dataLoadTimeoutSeconds, MIN_PERSISTENCE_TIMEOUT_SECONDS),
    clusterDataRecoveryPolicy,
    autoRemoveStaleData: s.bool('auto-remove-stale-data', def.autoRemoveStaleData),
    rebalanceDelaySeconds: s.int('rebalance-delay-seconds', def.rebalanceDelaySeconds, 0),
  };
  s.unsupported(UNSUPPORTED_PERSISTENCE, { silentWhenDisabled: ['encryption-at-rest'] });
  s.finish();
  return persistence;
}

/**
 * The `cp-subsystem`. XML `<cp-subsystem><cp-member-count>3</cp-member-count>...<raft-algorithm>..
 * </raft-algorithm><locks><fenced-lock><name>l</name><lock-acquire-limit>1</lock-acquire-limit>
 * </fenced-lock></locks></cp-subsystem>`; YAML `cp-subsystem: {cp-member-count: 3, raft-algorithm:
 * {...}, locks: {l: {lock-acquire-limit: 1}}}`. Limits and cross-checks are Hazelcast's
 * (CPSubsystemConfig, ConfigValidator.checkCPSubsystemConfig); semaphores, CP maps and CP
 * persistence are warned about by name.
 */
function readCpSubsystem(problems: Problems, s: Section): CpSubsystemConfig {
  const def = DEFAULT_CP_SUBSYSTEM;
  // Each value with whether it was given and valid, so cross-checks only compare values the user wrote correctly.
  const read = (key: string, d: number, min: number): { value: number; given: boolean; ok: boolean } => {
    const before = problems.errors.length;
    const value = s.int(key, d, min);
    return { value, given: s.has(key), ok: problems.errors.length === before };
  };

  const count = read('cp-member-count', def.cpMemberCount, 0);
  const countValid = count.ok && (count.value === 0 || count.value >= MIN_CP_GROUP_SIZE);
  if (!countValid && count.ok) {
    problems.error(s.at('cp-member-count'), `must be 0 (the CP subsystem off) or at least ${MIN_CP_GROUP_SIZE}, got ${count.value}`);
  }
  const cpMemberCount = countValid ? count.value : 0;

  // An explicit 0 is Hazelcast's "not set".
  const group = read('group-size', 0, 0);
  let groupSize = defaultCpGroupSize(cpMemberCount);
  if (group.ok && group.value !== 0) {
    if (group.value < MIN_CP_GROUP_SIZE || group.value > MAX_CP_GROUP_SIZE || group.value % 2 === 0) {
      problems.error(s.at('group-size'), `must be an odd number ${MIN_CP_GROUP_SIZE}-${MAX_CP_GROUP_SIZE} (3, 5 or 7), got ${group.value}`);
    } else if (countValid && group.value > cpMemberCount) {
      const off = cpMemberCount === 0 ? ': the CP subsystem is off; set cp-member-count too' : '';
      problems.error(s.at('group-size'), `must not exceed cp-member-count (${cpMemberCount}), got ${group.value}${off}`);
    } else groupSize = group.value;
  }

  const ttl = read('session-time-to-live-seconds', def.sessionTimeToLiveSeconds, 1);
  const heartbeat = read('session-heartbeat-interval-seconds', def.sessionHeartbeatIntervalSeconds, 1);
  if (ttl.ok && heartbeat.ok && heartbeat.value >= ttl.value) {
    if (heartbeat.given) {
      problems.error(s.at('session-heartbeat-interval-seconds'), `must be less than session-time-to-live-seconds (${ttl.value}), got ${heartbeat.value}`);
    } else {
      problems.error(s.at('session-time-to-live-seconds'), `must be greater than session-heartbeat-interval-seconds (${heartbeat.value}), got ${ttl.value}`);
    }
  }
  const removal = read('missing-cp-member-auto-removal-seconds', def.missingCpMemberAutoRemovalSeconds, 0);
  if (ttl.ok && removal.ok && removal.value !== 0 && removal.value < ttl.value) {
    if (removal.given) {
      problems.error(
        s.at('missing-cp-member-auto-removal-seconds'),
        `must be 0 (never) or at least session-time-to-live-seconds (${ttl.value}), got ${removal.value}`,
      );
    } else {
      problems.error(
        s.at('session-time-to-live-seconds'),
        `must not exceed missing-cp-member-auto-removal-seconds (${removal.value}), got ${ttl.value}`,
      );
    }
  }

  const persistenceEnabled = s.bool('persistence-enabled', false);
  if (persistenceEnabled) {
    problems.warn(
      s.at('persistence-enabled'),
      'CP Subsystem Persistence is not supported: Grid keeps CP state in memory only, so it survives while a majority of each CP group lives (ignored)',
    );
  }
  s.optStr('base-dir');
  // Checked like Hazelcast (> 0) even though it is never used.
  s.int('data-load-timeout-seconds', MIN_CP_DATA_LOAD_TIMEOUT_SECONDS, MIN_CP_DATA_LOAD_TIMEOUT_SECONDS);
  if (persistenceEnabled) {
    for (const key of ['base-dir', 'data-load-timeout-seconds']) {
      if (s.has(key)) problems.warn(s.at(key), `${CP_PERSISTENCE_ONLY} (ignored)`);
    }
  }

  const config: CpSubsystemConfig = {
    enabled: cpMemberCount > 0,
    cpMemberCount,
    groupSize,
    sessionTimeToLiveSeconds: ttl.value,
    sessionHeartbeatIntervalSeconds: heartbeat.value,
    missingCpMemberAutoRemovalSeconds: removal.value,
    failOnIndeterminateOperationState: s.bool('fail-on-indeterminate-operation-state', def.failOnIndeterminateOperationState),
    cpMemberPriority: s.int('cp-member-priority', def.cpMemberPriority, -INT_MAX - 1),
    raftAlgorithm: readRaftAlgorithm(s.child('raft-algorithm')),
    locks: readFencedLocks(problems, s.child('locks')),
  };
  for (const [name, entry] of cpEntries(problems, s.child('semaphores'), ['semaphore', 'cp-semaphore'])) {
    problems.warn(entry.path, `CP semaphores are not supported (${CP_STRUCTURES}): semaphore "${name}" is not available (ignored)`);
  }
  for (const [name, entry] of cpEntries(problems, s.child('maps'), ['map'])) {
    problems.warn(entry.path, `CPMap is not supported (${CP_STRUCTURES}): CP map "${name}" is not available (ignored)`);
  }
  s.unsupported(UNSUPPORTED_CP);
  if (cpMemberCount === 0 && countValid && Object.keys(s.obj).some((k) => k !== 'cp-member-count')) {
    problems.warn(s.at('cp-member-count'), `${count.given ? '0' : 'not set'}: the CP subsystem is off, so the other cp-subsystem settings take no effect; set it to ${MIN_CP_GROUP_SIZE} or more to switch CP on`);
  }
  s.finish();
  return config;
}

function readRaftAlgorithm(s: Section): RaftAlgorithmConfig {
  const def = DEFAULT_CP_SUBSYSTEM.raftAlgorithm;
  const raft: RaftAlgorithmConfig = {
    leaderElectionTimeoutMs: s.int('leader-election-timeout-in-millis', def.leaderElectionTimeoutMs, 1),
    leaderHeartbeatPeriodMs: s.int('leader-heartbeat-period-in-millis', def.leaderHeartbeatPeriodMs, 1),
    maxMissedLeaderHeartbeatCount: s.int('max-missed-leader-heartbeat-count', def.maxMissedLeaderHeartbeatCount, 1),
    // At most what a member takes in one Raft append (cp-payloads.ts MAX_RAFT_APPEND_ENTRIES).
    appendRequestMaxEntryCount: s.int('append-request-max-entry-count', def.appendRequestMaxEntryCount, 1, 10_000),
    commitIndexAdvanceCountToSnapshot: s.int('commit-index-advance-count-to-snapshot', def.commitIndexAdvanceCountToSnapshot, 1),
    uncommittedEntryCountToRejectNewAppends: s.int('uncommitted-entry-count-to-reject-new-appends', def.uncommittedEntryCountToRejectNewAppends, 1),
    appendRequestBackoffTimeoutMs: s.int('append-request-backoff-timeout-in-millis', def.appendRequestBackoffTimeoutMs, 1),
  };
  s.finish();
  return raft;
}

function readFencedLocks(problems: Problems, s: Section): FencedLockConfig[] {
  const locks: FencedLockConfig[] = [];
  for (const [name, l] of cpEntries(problems, s, ['fenced-lock'])) {
    checkConfigName(problems, l.path, name);
    if (name.includes('@')) {
      problems.warn(l.path, `a lock is matched by its name without the @group part, so an entry named "${name}" never matches; name it "${name.slice(0, name.indexOf('@'))}"`);
    }
    locks.push({ name, lockAcquireLimit: l.int('lock-acquire-limit', DEFAULT_LOCK_ACQUIRE_LIMIT, 0) });
    l.finish();
  }
  return locks;
}

/**
 * The entries of a CP structure list (`locks`, `semaphores`, `maps`) by name. YAML keys them by
 * name (`locks: {l: {...}}`); Hazelcast's XML lists them as `<fenced-lock><name>l</name>...`, which
 * the XML loader leaves as `locks: {fenced-lock: {name: l, ...}}` (a list when repeated). Both
 * shapes, and a mix (environment variables add YAML-shaped entries to an XML file, whose settings
 * then win), become name -> section at the YAML path `locks.l`. `xmlChildren` are the XML element
 * names; such a key is read as XML when it holds a list or a mapping with a `name`.
 */
function cpEntries(problems: Problems, s: Section, xmlChildren: readonly string[]): Map<string, Section> {
  const xml = new Map<string, Record<string, unknown>>();
  const yaml = new Map<string, Raw>();
  for (const key of Object.keys(s.obj)) {
    const v = s.raw(key);
    const isXml = xmlChildren.includes(key) && (Array.isArray(v) || (isRecord(v) && v['name'] !== undefined));
    if (!isXml) {
      yaml.set(key, v);
      continue;
    }
    const items: Raw[] = Array.isArray(v) ? v : [v];
    items.forEach((item, i) => {
      const itemPath = Array.isArray(v) ? `${s.at(key)}[${i}]` : s.at(key);
      if (!isRecord(item)) {
        problems.error(itemPath, `must be a mapping with a name, got ${show(item)}`);
        return;
      }
      const { name, ...rest } = item;
      if (typeof name !== 'string' && typeof name !== 'number') {
        problems.error(childPath(itemPath, 'name'), name === undefined ? 'is required' : `must be a single value, got ${show(name)}`);
        return;
      }
      const n = String(name).trim();
      if (xml.has(n)) problems.error(s.at(n), `duplicate ${key} name "${n}"`);
      xml.set(n, rest);
    });
  }
  const out = new Map<string, Section>();
  for (const [n, rest] of xml) {
    const fromYaml = yaml.get(n);
    yaml.delete(n);
    out.set(n, Section.of(problems, s.at(n), isRecord(fromYaml) ? { ...rest, ...fromYaml } : rest));
  }
  for (const [n, v] of yaml) out.set(n, Section.of(problems, s.at(n), v));
  return out;
}

/** `a/b/` and `./a/b` are the same directory; relative and absolute spellings of one are not detected. */
function sameDir(a: string, b: string): boolean {
  const n = (p: string): string => normalize(p).replace(/(.)[\\/]+$/, '$1');
  return n(a) === n(b);
}

/**
 * `data-persistence` (Hazelcast 4: `hot-restart`) of a map, or of a queue (Grid's extension):
 * XML `<data-persistence enabled="true"><fsync>false</fsync></data-persistence>`, YAML
 * `data-persistence: {enabled: true, fsync: false}`. Enabled while the top-level persistence is
 * not is a warning: Hazelcast ignores it then, and so does Grid.
 */
function readDataPersistence(problems: Problems, s: Section, persistenceEnabled: boolean, kind: 'map' | 'queue'): DataPersistenceConfig {
  const key = aliasedKey(problems, s, 'data-persistence', 'hot-restart');
  if (!s.has(key)) return DEFAULT_DATA_PERSISTENCE;
  const d = s.child(key);
  const dataPersistence = {
    enabled: d.bool('enabled', DEFAULT_DATA_PERSISTENCE.enabled),
    fsync: d.bool('fsync', DEFAULT_DATA_PERSISTENCE.fsync),
  };
  d.finish();
  if (dataPersistence.enabled && !persistenceEnabled) {
    problems.warn(d.at('enabled'), `true, but the top-level persistence is not enabled: this ${kind} is not persisted`);
  }
  return dataPersistence;
}

/** `split-brain-protection-ref` of a map or queue (that the name exists is checked once all are read). */
function readProtectionRef(s: Section): string | undefined {
  return s.optStr('split-brain-protection-ref') || undefined;
}

/** Split-brain protection functions Hazelcast offers besides member counting; Grid only counts members. */
const OTHER_PROTECTION_FUNCTIONS = ['function-class-name', 'probabilistic-split-brain-protection', 'recently-active-split-brain-protection'];

function readSplitBrainProtections(problems: Problems, s: Section): SplitBrainProtectionConfig[] {
  const out: SplitBrainProtectionConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const p = s.child(name);
    if (name.trim() === '') problems.error(p.path, 'a name must not be empty');
    if (!p.has('enabled')) {
      problems.warn(p.at('enabled'), 'not set: Hazelcast reads a split-brain-protection without enabled="true" as disabled, so this one protects nothing');
    }
    const enabled = p.bool('enabled', DEFAULT_SPLIT_BRAIN_PROTECTION.enabled);
    const minimumClusterSize = p.int('minimum-cluster-size', DEFAULT_SPLIT_BRAIN_PROTECTION.minimumClusterSize, 2);
    let protectOn: SplitBrainProtectionConfig['protectOn'] = DEFAULT_SPLIT_BRAIN_PROTECTION.protectOn;
    const on = p.optStr('protect-on');
    if (on !== undefined) {
      const found = SPLIT_BRAIN_PROTECTION_ON.find((x) => x === on.toUpperCase());
      if (found === undefined) problems.error(p.at('protect-on'), `must be one of ${SPLIT_BRAIN_PROTECTION_ON.join(', ')}, got ${show(on)}`);
      else protectOn = found;
    }
    for (const key of OTHER_PROTECTION_FUNCTIONS) {
      if (!p.has(key)) continue;
      p.raw(key);
      problems.warn(p.at(key), `not supported: Grid's split-brain protection counts the data members this member sees against minimum-cluster-size (${minimumClusterSize}), as member-count-split-brain-protection does`);
    }
    // The default function, named: nothing to configure.
    p.raw('member-count-split-brain-protection');
    p.finish(['listeners']);
    out.push({ name, enabled, minimumClusterSize, protectOn });
  }
  return out;
}

/** Every `split-brain-protection-ref` names a declared `split-brain-protection`. */
function checkProtectionRefs(
  problems: Problems,
  protections: readonly SplitBrainProtectionConfig[],
  kind: 'map' | 'queue',
  entries: readonly { readonly name: string; readonly splitBrainProtectionRef: string | undefined }[],
): void {
  for (const e of entries) {
    const ref = e.splitBrainProtectionRef;
    if (ref !== undefined && !protections.some((p) => p.name === ref)) {
      problems.error(`hazelcast.${kind}.${e.name}.split-brain-protection-ref`, `split-brain-protection "${ref}" is not defined`);
    }
  }
}

function checkConfigName(problems: Problems, path: string, name: string): void {
  if (name.trim() === '') problems.error(path, 'a name must not be empty');
  else if (name.split('*').length > 2) problems.error(path, 'a wildcard name may contain only one "*"');
}

function checkBackupSum(problems: Problems, s: Section, backups: number, asyncBackups: number): void {
  if (backups + asyncBackups > MAX_BACKUP_COUNT) {
    problems.error(
      s.at('async-backup-count'),
      `backup-count + async-backup-count must be at most ${MAX_BACKUP_COUNT}, got ${backups} + ${asyncBackups}`,
    );
  }
}

function readSecurity(problems: Problems, s: Section): SecurityConfig {
  const enabled = s.bool('enabled', DEFAULT_SECURITY_ENABLED);
  const realms: RealmConfig[] = [];
  const rawRealms = s.raw('realms');
  const realmsPath = s.at('realms');
  const realmList: Raw[] = Array.isArray(rawRealms) ? rawRealms : rawRealms === undefined ? [] : [rawRealms];
  if (rawRealms !== undefined && !Array.isArray(rawRealms) && !isRecord(rawRealms)) {
    problems.error(realmsPath, 'must be a list of realms');
  }
  realmList.forEach((item, i) => {
    const r = Section.of(problems, `${realmsPath}[${i}]`, item);
    const name = r.requiredStr('name');
    if (name !== '' && realms.some((x) => x.name === name)) problems.error(r.at('name'), `duplicate realm name "${name}"`);
    const users: SimpleUser[] = [];
    const auth = r.child('authentication');
    if (auth.has('simple')) {
      const simple = auth.child('simple');
      const rawUsers = simple.raw('users');
      const userList: Raw[] = Array.isArray(rawUsers) ? rawUsers : rawUsers === undefined ? [] : [rawUsers];
      userList.forEach((u, j) => {
        const us = Section.of(problems, `${simple.at('users')}[${j}]`, u);
        const username = us.requiredStr('username');
        const password = us.requiredStr('password', { secret: true, allowEmpty: true });
        const roles = readList(problems, us.at('roles'), us.raw('roles')).map((x) => x.value);
        us.finish();
        users.push({ username, password, roles });
      });
      simple.finish(['skip-role', 'skip-identity', 'skip-endpoint', 'role-separator']);
    }
    auth.finish(['jaas', 'ldap', 'kerberos', 'tls']);
    let identity: RealmConfig['identity'];
    if (r.has('identity')) {
      const id = r.child('identity');
      if (id.has('username-password')) {
        const up = id.child('username-password');
        identity = { username: up.requiredStr('username'), password: up.requiredStr('password', { secret: true, allowEmpty: true }) };
        up.finish();
      }
      id.finish(['token', 'kerberos', 'credentials-factory']);
    }
    r.finish(['access-control-service']);
    realms.push({ name, users, identity });
  });
  const realmRef = (key: string): string | undefined => {
    if (!s.has(key)) {
      s.raw(key);
      return undefined;
    }
    const a = s.child(key);
    const realm = a.requiredStr('realm');
    a.finish();
    if (realm !== '' && !realms.some((x) => x.name === realm)) {
      problems.error(a.at('realm'), `realm "${realm}" is not defined under security.realms`);
    }
    return realm === '' ? undefined : realm;
  };
  const memberAuthenticationRealm = realmRef('member-authentication');
  const clientAuthenticationRealm = realmRef('client-authentication');
  s.finish(IGNORED_SECURITY);
  return { enabled, realms, memberAuthenticationRealm, clientAuthenticationRealm };
}

/** Grid's own WAN liveness settings of a batch-publisher: the timeout is 0 (off) or longer than the interval. */
function readWanHeartbeat(problems: Problems, p: Section): { heartbeatIntervalMillis: number; heartbeatTimeoutMillis: number } {
  const heartbeatIntervalMillis = p.int('heartbeat-interval-millis', DEFAULT_WAN_PUBLISHER.heartbeatIntervalMillis, 1);
  const heartbeatTimeoutMillis = p.int('heartbeat-timeout-millis', DEFAULT_WAN_PUBLISHER.heartbeatTimeoutMillis, 0);
  if (heartbeatTimeoutMillis !== 0 && heartbeatTimeoutMillis <= heartbeatIntervalMillis) {
    problems.error(p.at('heartbeat-timeout-millis'), `must be 0 (off) or greater than heartbeat-interval-millis (${heartbeatIntervalMillis}), got ${heartbeatTimeoutMillis}`);
  }
  return { heartbeatIntervalMillis, heartbeatTimeoutMillis };
}

function readWan(problems: Problems, s: Section): WanReplicationConfig[] {
  const out: WanReplicationConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const w = s.child(name);
    const publishers: WanBatchPublisherConfig[] = [];
    const bp = w.child('batch-publisher');
    for (const key of Object.keys(bp.obj)) {
      const p = bp.child(key);
      const clusterName = p.str('cluster-name', DEFAULT_WAN_PUBLISHER.clusterName);
      if (clusterName === '') problems.error(p.at('cluster-name'), 'must not be empty: the cluster name of the target cluster');
      // In YAML the entry key is the publisher id; XML entries are keyed by publisher-id or cluster-name.
      const publisherId = p.optStr('publisher-id') || key || clusterName;
      if (publishers.some((x) => x.publisherId === publisherId)) {
        problems.error(p.path, `duplicate publisher id "${publisherId}"`);
      }
      const targets = readList(problems, p.at('target-endpoints'), p.raw('target-endpoints'));
      if (targets.length === 0) problems.error(p.at('target-endpoints'), 'must list at least one host:port of the target cluster');
      for (const t of targets) {
        if (!isHostPort(t.value)) problems.error(t.path, `not a host or host:port: ${show(t.value)}`);
      }
      const enumOf = <T extends string>(key2: string, def: T, allowed: readonly T[]): T => {
        const v = p.optStr(key2);
        if (v === undefined) return def;
        const found = allowed.find((a) => a === v.toUpperCase());
        if (found === undefined) problems.error(p.at(key2), `must be one of ${allowed.join(', ')}, got ${show(v)}`);
        return found ?? def;
      };
      const sync = p.child('sync');
      const syncEnum = sync.optStr('consistency-check-strategy');
      let consistencyCheckStrategy: WanBatchPublisherConfig['consistencyCheckStrategy'] = DEFAULT_WAN_PUBLISHER.consistencyCheckStrategy;
      if (syncEnum !== undefined) {
        const upper = syncEnum.toUpperCase();
        if (upper === 'NONE' || upper === 'MERKLE_TREES') consistencyCheckStrategy = upper;
        else problems.error(sync.at('consistency-check-strategy'), `must be one of NONE, MERKLE_TREES, got ${show(syncEnum)}`);
      }
      for (const key of Object.keys(sync.obj)) {
        if (key !== 'consistency-check-strategy') {
          sync.unsupported({ [key]: 'not supported: consistency-check-strategy is the only setting of sync' });
        }
      }
      sync.finish();
      publishers.push({
        clusterName,
        publisherId,
        targetEndpoints: targets.map((t) => t.value),
        batchSize: p.int('batch-size', DEFAULT_WAN_PUBLISHER.batchSize, 1),
        batchMaxDelayMillis: p.int('batch-max-delay-millis', DEFAULT_WAN_PUBLISHER.batchMaxDelayMillis, 0),
        responseTimeoutMillis: p.int('response-timeout-millis', DEFAULT_WAN_PUBLISHER.responseTimeoutMillis, 1),
        queueCapacity: p.int('queue-capacity', DEFAULT_WAN_PUBLISHER.queueCapacity, 1),
        queueFullBehavior: enumOf('queue-full-behavior', DEFAULT_WAN_PUBLISHER.queueFullBehavior, [
          'DISCARD_AFTER_MUTATION',
          'THROW_EXCEPTION',
          'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE',
        ] as const),
        initialPublisherState: enumOf('initial-publisher-state', DEFAULT_WAN_PUBLISHER.initialPublisherState, [
          'REPLICATING',
          'PAUSED',
          'STOPPED',
        ] as const),
        acknowledgeType: enumOf('acknowledge-type', DEFAULT_WAN_PUBLISHER.acknowledgeType, [
          'ACK_ON_RECEIPT',
          'ACK_ON_OPERATION_COMPLETE',
        ] as const),
        consistencyCheckStrategy,
        ...readWanHeartbeat(problems, p),
      });
      p.unsupported(UNSUPPORTED_PUBLISHER, { silentWhenDisabled: WAN_DISCOVERY_PLUGINS });
      p.finish();
    }
    bp.finish();
    w.unsupported(UNSUPPORTED_WAN);
    w.finish();
    out.push({ name, batchPublishers: publishers });
  }
  return out;
}

function readProperties(problems: Problems, s: Section): Map<string, string> {
  const props = new Map<string, string>();
  for (const key of Object.keys(s.obj)) {
    const v = s.raw(key);
    if (typeof v === 'string') props.set(key, v.trim());
    else if (typeof v === 'number' || typeof v === 'boolean') props.set(key, String(v));
    else if (v === undefined) props.set(key, '');
    else problems.error(s.at(key), `must be a single value, got ${show(v)}`);
  }
  return props;
}

/** Grid's own properties; any other `grid.*` name is reported as unknown. */
const TUNING_SUFFIXES = [
  'rest.max-body-bytes',
  'rest.max-header-bytes',
  'rest.max-buffered-body-bytes',
  'rest.http-path',
  'logging.level',
  'heartbeat.interval.seconds',
  'max.no.heartbeat.seconds',
  'partition.count',
  'expiry.sweep.interval.millis',
  'operation.call.timeout.millis',
  'operation.backup.timeout.millis',
  'connection.monitor.max.faults',
  'connection.monitor.interval',
  'tcp.join.port.try.count',
  'partition.max.parallel.migrations',
  'max.join.seconds',
  'partition.replica-sync-interval-seconds',
  'debug.drop-backups',
  'debug.ignore-messages',
  'merge.first.run.delay.seconds',
  'merge.next.run.delay.seconds',
  'memory.limit',
];

function readTuning(problems: Problems, props: ReadonlyMap<string, string>): TuningConfig {
  const pick = (suffix: string): { name: string; value: string } | undefined => {
    for (const name of [`grid.${suffix}`, `hazelcast.${suffix}`]) {
      const value = props.get(name);
      if (value !== undefined) return { name, value };
    }
    return undefined;
  };
  const int = (suffix: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const p = pick(suffix);
    if (p === undefined) return def;
    return checkInt(problems, `hazelcast.properties.${p.name}`, p.value, min, max) ?? def;
  };
  for (const name of props.keys()) {
    if (name.startsWith('grid.') && !TUNING_SUFFIXES.includes(name.slice(5))) {
      problems.warn(`hazelcast.properties.${name}`, 'unknown Grid property, ignored');
    }
  }
  // The member memory guard reads it at start (against the cgroup's or machine's memory); its form is checked here.
  const memoryLimit = pick('memory.limit');
  if (memoryLimit !== undefined) {
    try {
      parseMemoryLimit(memoryLimit.value, 1);
    } catch (e) {
      problems.error(`hazelcast.properties.${memoryLimit.name}`, (e as Error).message.replace(/^grid\.memory\.limit: /, ''));
    }
  }
  let logLevel = DEFAULT_TUNING.logLevel;
  const level = pick('logging.level');
  if (level !== undefined) {
    const upper = level.value.toUpperCase();
    if (LOG_LEVELS.includes(upper)) logLevel = upper;
    else problems.error(`hazelcast.properties.${level.name}`, `must be one of ${LOG_LEVELS.join(', ')}, got ${show(level.value)}`);
  }
  const partitions = pick('partition.count');
  if (partitions !== undefined && parseIntStrict(partitions.value) !== DEFAULT_TUNING.partitionCount) {
    problems.error(`hazelcast.properties.${partitions.name}`, `Grid always uses 271 partitions, got ${show(partitions.value)}`);
  }
  const heartbeatIntervalSeconds = int('heartbeat.interval.seconds', DEFAULT_TUNING.heartbeatIntervalSeconds, 1);
  const maxNoHeartbeatSeconds = int('max.no.heartbeat.seconds', DEFAULT_TUNING.maxNoHeartbeatSeconds, 1);
  if (maxNoHeartbeatSeconds <= heartbeatIntervalSeconds) {
    const name = pick('max.no.heartbeat.seconds')?.name ?? 'hazelcast.max.no.heartbeat.seconds';
    problems.error(
      `hazelcast.properties.${name}`,
      `must be greater than the heartbeat interval (${heartbeatIntervalSeconds}), got ${maxNoHeartbeatSeconds}`,
    );
  }
  const restMaxBodyBytes = int('rest.max-body-bytes', DEFAULT_TUNING.restMaxBodyBytes, 1);
  const restMaxBufferedBodyBytes = int('rest.max-buffered-body-bytes', DEFAULT_TUNING.restMaxBufferedBodyBytes, 1);
  if (restMaxBufferedBodyBytes < restMaxBodyBytes) {
    const name = pick('rest.max-buffered-body-bytes')?.name ?? 'grid.rest.max-buffered-body-bytes';
    problems.warn(
      `hazelcast.properties.${name}`,
      `${restMaxBufferedBodyBytes} is below rest.max-body-bytes (${restMaxBodyBytes}): bodies larger than the budget are refused with 413`,
    );
  }
  let restHttpPath = DEFAULT_TUNING.restHttpPath;
  const httpPath = pick('rest.http-path');
  if (httpPath !== undefined) {
    const v = httpPath.value.trim().toLowerCase();
    if (v === 'grid' || v === 'node') restHttpPath = v;
    else problems.error(`hazelcast.properties.${httpPath.name}`, `must be grid or node, got ${show(httpPath.value)}`);
  }
  let debugDropBackups = DEFAULT_TUNING.debugDropBackups;
  const drop = pick('debug.drop-backups');
  if (drop !== undefined) {
    const n = /^\d+(\.\d+)?$/.test(drop.value) ? Number(drop.value) : NaN;
    if (n >= 0 && n <= 1) debugDropBackups = n;
    else problems.error(`hazelcast.properties.${drop.name}`, `must be a fraction from 0 to 1, got ${show(drop.value)}`);
  }
  return {
    restMaxBodyBytes,
    restMaxHeaderBytes: int('rest.max-header-bytes', DEFAULT_TUNING.restMaxHeaderBytes, 1024),
    restMaxBufferedBodyBytes,
    restHttpPath,
    logLevel,
    heartbeatIntervalSeconds,
    maxNoHeartbeatSeconds,
    partitionCount: 271,
    expirySweepIntervalMillis: int('expiry.sweep.interval.millis', DEFAULT_TUNING.expirySweepIntervalMillis, 1),
    operationCallTimeoutMillis: int('operation.call.timeout.millis', DEFAULT_TUNING.operationCallTimeoutMillis, 1),
    operationBackupTimeoutMillis: int('operation.backup.timeout.millis', DEFAULT_TUNING.operationBackupTimeoutMillis, 1),
    connectionMonitorMaxFaults: int('connection.monitor.max.faults', DEFAULT_TUNING.connectionMonitorMaxFaults, 1),
    connectionMonitorIntervalMillis: int('connection.monitor.interval', DEFAULT_TUNING.connectionMonitorIntervalMillis, 1),
    tcpJoinPortTryCount: int('tcp.join.port.try.count', DEFAULT_TUNING.tcpJoinPortTryCount, 1, 65535),
    maxParallelMigrations: int('partition.max.parallel.migrations', DEFAULT_TUNING.maxParallelMigrations, 1),
    maxJoinSeconds: int('max.join.seconds', DEFAULT_TUNING.maxJoinSeconds, 1),
    replicaSyncIntervalSeconds: int('partition.replica-sync-interval-seconds', DEFAULT_TUNING.replicaSyncIntervalSeconds, 0),
    debugDropBackups,
    debugIgnoreMessages: pick('debug.ignore-messages')?.value ?? DEFAULT_TUNING.debugIgnoreMessages,
    mergeFirstRunDelaySeconds: int('merge.first.run.delay.seconds', DEFAULT_TUNING.mergeFirstRunDelaySeconds, 1),
    mergeNextRunDelaySeconds: int('merge.next.run.delay.seconds', DEFAULT_TUNING.mergeNextRunDelaySeconds, 1),
  };
}

/** Validates the raw tree (the content of `hazelcast:`); returns the unfrozen config, problems in `problems`. */
export function validateConfig(raw: Raw, source: string, problems: Problems): GridConfig {
  const root = Section.of(problems, 'hazelcast', raw);
  const clusterName = root.str('cluster-name', DEFAULT_CLUSTER_NAME);
  if (clusterName === '') problems.error(root.at('cluster-name'), 'must not be empty');
  const instanceName = root.optStr('instance-name') || undefined;
  const lite = root.child('lite-member');
  const liteMember = lite.bool('enabled', DEFAULT_LITE_MEMBER);
  lite.finish();
  const metricsSection = root.child('metrics');
  const metrics = { enabled: metricsSection.bool('enabled', DEFAULT_METRICS_ENABLED) };
  metricsSection.finish(['management-center', 'jmx', 'collection-frequency-seconds']);
  const properties = readProperties(problems, root.child('properties'));
  const tuning = readTuning(problems, properties);

  let network = readNetwork(problems, root.child('network'));
  const { advanced, join } = readAdvancedNetwork(problems, root.child('advanced-network'), network);
  if (advanced.enabled) {
    // Hazelcast reads join from advanced-network when it is enabled, and REST from its endpoint.
    const restFromAdvanced: RestApiConfig =
      advanced.rest === undefined
        ? { enabled: false, enabledGroups: new Set() }
        : { enabled: true, enabledGroups: advanced.rest.enabledGroups };
    if (network.restApi.enabled) {
      problems.warn('hazelcast.network.rest-api', 'ignored while advanced-network is enabled; use rest-server-socket-endpoint-config');
    }
    network = { ...network, join: join ?? network.join, restApi: restFromAdvanced };
  }

  const persistence = readPersistence(problems, root);
  const cpSubsystem = readCpSubsystem(problems, root.child('cp-subsystem'));
  const maps = readMaps(problems, root.child('map'), persistence.enabled);
  const queues = readQueues(problems, root.child('queue'), persistence.enabled);
  const security = readSecurity(problems, root.child('security'));
  const wanReplication = readWan(problems, root.child('wan-replication'));
  const splitBrainProtections = readSplitBrainProtections(problems, root.child('split-brain-protection'));
  checkProtectionRefs(problems, splitBrainProtections, 'map', maps);
  checkProtectionRefs(problems, splitBrainProtections, 'queue', queues);
  for (const m of maps) {
    const ref = m.wanReplicationRef;
    if (ref !== undefined && !wanReplication.some((w) => w.name === ref.name)) {
      problems.error(`hazelcast.map.${m.name}.wan-replication-ref.${ref.name}`, `wan-replication "${ref.name}" is not defined`);
    }
  }
  root.unsupported({
    'merkle-tree': 'the top-level merkle-tree of Hazelcast 3.x is not supported; put merkle-tree inside the map',
  });
  root.finish(IGNORED_TOP_LEVEL);

  return {
    clusterName,
    instanceName,
    properties,
    network,
    advancedNetwork: advanced,
    maps,
    queues,
    security,
    wanReplication,
    splitBrainProtections,
    persistence,
    cpSubsystem,
    liteMember,
    metrics,
    tuning,
    source,
  };
}

/** Max-size policies of Hazelcast that Grid's maps cannot have, with the reason. */
const UNSUPPORTED_MAX_SIZE_POLICIES: Readonly<Record<string, string>> = {
  USED_NATIVE_MEMORY_SIZE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use USED_HEAP_SIZE',
  USED_NATIVE_MEMORY_PERCENTAGE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use USED_HEAP_PERCENTAGE',
  FREE_NATIVE_MEMORY_SIZE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use FREE_HEAP_SIZE',
  FREE_NATIVE_MEMORY_PERCENTAGE: 'needs in-memory-format NATIVE (Hazelcast Enterprise), which Grid does not have; use FREE_HEAP_PERCENTAGE',
  ENTRY_COUNT: 'is a max-size policy of caches (JCache), not of maps; use PER_NODE or PER_PARTITION',
};

/**
 * A map's `eviction` (Hazelcast 4/5): XML `<eviction eviction-policy="LRU"
 * max-size-policy="PER_NODE" size="1000"/>`, YAML `eviction: {eviction-policy: LRU, ...}`;
 * Hazelcast's defaults (NONE, PER_NODE, Integer.MAX_VALUE; size 0 reads as Integer.MAX_VALUE).
 * The 3.x elements `max-size` and `eviction-policy` are not read: a warning says the map stays
 * unbounded and how to write it (Hazelcast 4+ refuses them too).
 */
function readEviction(problems: Problems, m: Section): EvictionConfig {
  const def = DEFAULT_MAP.eviction;
  const v3 = 'the Hazelcast 3.x form is not read, so the map is not bounded: write <eviction eviction-policy="LRU" max-size-policy="PER_NODE" size="1000"/> (YAML eviction: {eviction-policy: LRU, max-size-policy: PER_NODE, size: 1000})';
  m.unsupported({ 'max-size': v3, 'eviction-policy': v3 });
  if (!m.has('eviction')) {
    m.raw('eviction');
    return def;
  }
  const e = m.child('eviction');
  const choice = <T extends string>(key: string, names: readonly T[], fallback: T, unsupported: Readonly<Record<string, string>> = {}): T => {
    const v = e.optStr(key);
    if (v === undefined) return fallback;
    const upper = v.toUpperCase();
    const known = names.find((n) => n === upper);
    if (known !== undefined) return known;
    const why = unsupported[upper];
    problems.error(e.at(key), why !== undefined ? `${upper} ${why}` : `unknown ${key} ${show(v)}: one of ${names.join(', ')}`);
    return fallback;
  };
  const evictionPolicy = choice('eviction-policy', EVICTION_POLICIES, def.evictionPolicy);
  const maxSizePolicy = choice('max-size-policy', MAX_SIZE_POLICIES, def.maxSizePolicy, UNSUPPORTED_MAX_SIZE_POLICIES);
  const percent = maxSizePolicy === 'USED_HEAP_PERCENTAGE' || maxSizePolicy === 'FREE_HEAP_PERCENTAGE';
  const memory = maxSizePolicy !== 'PER_NODE' && maxSizePolicy !== 'PER_PARTITION';
  let size = e.int('size', def.size, 0, percent ? 100 : INT_MAX);
  if (size === 0) size = def.size;
  // Hazelcast's default size (Integer.MAX_VALUE) means "evict always" for FREE_HEAP_SIZE and never for the others: a memory policy names its size.
  if (memory && !e.has('size')) problems.error(e.at('size'), `is required with max-size-policy ${maxSizePolicy} (${percent ? 'a percentage, 1-100' : 'megabytes'})`);
  if (evictionPolicy === 'NONE' && e.has('size')) {
    problems.warn(e.at('eviction-policy'), 'is NONE (the default), so nothing is evicted and size has no effect; set LRU, LFU or RANDOM to bound the map');
  }
  e.unsupported({
    'comparator-class-name': 'custom eviction comparators are not supported; use eviction-policy LRU, LFU or RANDOM',
    comparator: 'custom eviction comparators are not supported; use eviction-policy LRU, LFU or RANDOM',
  });
  e.finish();
  return { evictionPolicy, maxSizePolicy, size };
}
