// Environment overrides in Hazelcast's scheme: `HZ_` (or `GRID_`, which wins) + the element
// path, upper-cased, dashes removed, `_` between levels: HZ_NETWORK_PORT_PORT=5801,
// HZ_MAP_ORDERS_BACKUPCOUNT=2. They are written into the raw tree before validation, so
// they are validated like file settings and messages name the variable.

import { ENDPOINT_GROUPS } from './types.js';
import { ENDPOINT_GROUP_ALIASES } from './defaults.js';
import { childPath, isRecord, type Problems } from './problems.js';

type EnvNode =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'object'; readonly children: Readonly<Record<string, EnvNode>>; readonly textKey?: string }
  /** Entries keyed by a user-chosen name (maps, queues) or by a known name (endpoint groups). */
  | { readonly kind: 'named'; readonly entry: EnvNode; readonly knownNames?: readonly string[] };

const leaf: EnvNode = { kind: 'leaf' };
const obj = (children: Record<string, EnvNode>, textKey?: string): EnvNode =>
  textKey === undefined ? { kind: 'object', children } : { kind: 'object', children, textKey };
const enabledOnly = obj({ enabled: leaf });
const port = obj({ port: leaf, 'auto-increment': leaf, 'port-count': leaf }, 'port');
const endpointGroups: EnvNode = {
  kind: 'named',
  entry: enabledOnly,
  knownNames: [...ENDPOINT_GROUPS, ...Object.keys(ENDPOINT_GROUP_ALIASES)],
};
/** `data-persistence` of a map or queue. */
const dataPersistence = obj({ enabled: leaf, fsync: leaf });
/** The top-level `persistence`: every setting but `encryption-at-rest` (which Grid does not support). */
const persistence = obj({
  enabled: leaf,
  'base-dir': leaf,
  'backup-dir': leaf,
  parallelism: leaf,
  'validation-timeout-seconds': leaf,
  'data-load-timeout-seconds': leaf,
  'cluster-data-recovery-policy': leaf,
  'auto-remove-stale-data': leaf,
  'rebalance-delay-seconds': leaf,
});
/**
 * The `cp-subsystem`: every setting, and `locks` by name (HZ_CPSUBSYSTEM_LOCKS_<NAME>_LOCKACQUIRELIMIT).
 * Semaphores and CP maps have no variables: Grid does not support them.
 */
const cpSubsystem = obj({
  'cp-member-count': leaf,
  'group-size': leaf,
  'session-time-to-live-seconds': leaf,
  'session-heartbeat-interval-seconds': leaf,
  'missing-cp-member-auto-removal-seconds': leaf,
  'fail-on-indeterminate-operation-state': leaf,
  'persistence-enabled': leaf,
  'base-dir': leaf,
  'data-load-timeout-seconds': leaf,
  'cp-member-priority': leaf,
  'raft-algorithm': obj({
    'leader-election-timeout-in-millis': leaf,
    'leader-heartbeat-period-in-millis': leaf,
    'max-missed-leader-heartbeat-count': leaf,
    'append-request-max-entry-count': leaf,
    'commit-index-advance-count-to-snapshot': leaf,
    'uncommitted-entry-count-to-reject-new-appends': leaf,
    'append-request-backoff-timeout-in-millis': leaf,
  }),
  locks: { kind: 'named', entry: obj({ 'lock-acquire-limit': leaf }) },
});
const join = obj({
  'tcp-ip': obj({ enabled: leaf, members: leaf, 'required-member': leaf, 'connection-timeout-seconds': leaf }),
  multicast: enabledOnly,
  'auto-detection': enabledOnly,
});

/** The settings that environment variables can override. */
const ENV_TOP_LEVEL: Record<string, EnvNode> = {
  'cluster-name': leaf,
  'instance-name': leaf,
  'lite-member': enabledOnly,
  metrics: enabledOnly,
  network: obj({
    port,
    'public-address': leaf,
    join,
    interfaces: enabledOnly,
    'rest-api': obj({ enabled: leaf, 'endpoint-groups': endpointGroups }),
  }),
  'advanced-network': obj({
    enabled: leaf,
    join,
    'member-server-socket-endpoint-config': obj({ port }),
    'rest-server-socket-endpoint-config': obj({ port, 'endpoint-groups': endpointGroups }),
  }),
  map: {
    kind: 'named',
    entry: obj({
      'backup-count': leaf,
      'async-backup-count': leaf,
      'time-to-live-seconds': leaf,
      'max-idle-seconds': leaf,
      'data-persistence': dataPersistence,
      'hot-restart': dataPersistence,
    }),
  },
  queue: {
    kind: 'named',
    entry: obj({
      'max-size': leaf,
      'backup-count': leaf,
      'async-backup-count': leaf,
      'empty-queue-ttl': leaf,
      'data-persistence': dataPersistence,
      'hot-restart': dataPersistence,
    }),
  },
  persistence,
  'hot-restart-persistence': persistence,
  'cp-subsystem': cpSubsystem,
  security: obj({ enabled: leaf, 'member-authentication': obj({ realm: leaf }), 'client-authentication': obj({ realm: leaf }) }),
};
const ENV_SCHEMA = obj(ENV_TOP_LEVEL);

/**
 * Elements with a Hazelcast 4 name (both ways): a variable for one writes into the other when
 * only the other is in the file, so HZ_PERSISTENCE_ENABLED changes a `hot-restart-persistence`
 * instead of adding a second element, which the validator would refuse.
 */
const ALIASES: Readonly<Record<string, string>> = {
  persistence: 'hot-restart-persistence',
  'hot-restart-persistence': 'persistence',
  'data-persistence': 'hot-restart',
  'hot-restart': 'data-persistence',
};

/** Top-level elements whose variables are meant as config even when Grid cannot apply them. */
const CONFIG_LIKE_TOP_LEVEL = [
  'properties',
  'wan-replication',
  'management-center',
  'jet',
  'sql',
  'serialization',
  'partition-group',
];

/** Upper-case, dashes removed: the form an element name takes in a variable name. */
function norm(name: string): string {
  return name.toUpperCase().replace(/[-.]/g, '');
}

interface Step {
  readonly key: string;
  readonly node: EnvNode;
}

/** Resolves variable segments to a path of raw-tree keys ending at a leaf, or undefined. */
function resolve(node: EnvNode, segments: readonly string[], tree: unknown): Step[] | undefined {
  if (segments.length === 0) return node.kind === 'leaf' ? [] : undefined;
  if (node.kind === 'leaf') return undefined;
  if (node.kind === 'object') {
    const head = segments[0] ?? '';
    for (const [name, child] of Object.entries(node.children)) {
      if (norm(name) !== head) continue;
      const alias = ALIASES[name];
      const key = alias !== undefined && isRecord(tree) && tree[name] === undefined && tree[alias] !== undefined ? alias : name;
      const rest = resolve(child, segments.slice(1), isRecord(tree) ? tree[key] : undefined);
      if (rest !== undefined) return [{ key, node: child }, ...rest];
    }
    return undefined;
  }
  // Named entries: the name may itself contain `_`, so try the shortest name whose rest resolves.
  for (let take = 1; take < segments.length; take++) {
    const joined = segments.slice(0, take).join('_');
    const existing = isRecord(tree) ? Object.keys(tree).find((k) => norm(k) === norm(joined)) : undefined;
    let key: string;
    if (existing !== undefined) key = existing;
    else if (node.knownNames !== undefined) {
      const known = node.knownNames.find((k) => norm(k) === norm(joined));
      if (known === undefined) continue;
      key = known;
    } else key = joined.toLowerCase();
    const rest = resolve(node.entry, segments.slice(take), isRecord(tree) ? tree[key] : undefined);
    if (rest !== undefined) return [{ key, node: node.entry }, ...rest];
  }
  return undefined;
}

/** Writes `value` at `steps` into `tree`, making objects on the way (a scalar with a text key is kept under it). */
function assign(tree: Record<string, unknown>, steps: readonly Step[], value: string): void {
  let current = tree;
  steps.forEach((step, i) => {
    if (i === steps.length - 1) {
      current[step.key] = value;
      return;
    }
    let next = current[step.key];
    if (!isRecord(next)) {
      const textKey = step.node.kind === 'object' ? step.node.textKey : undefined;
      next = textKey !== undefined && next !== undefined && next !== null ? { [textKey]: next } : {};
      current[step.key] = next;
    }
    current = next as Record<string, unknown>;
  });
}

/**
 * Applies HZ_* then GRID_* variables (so GRID_ wins) to the raw tree, in name order.
 * Variables whose first segment is not a Hazelcast top-level element are not config and are
 * left alone (HZ_HOME, GRID_CONFIG); config-like ones Grid cannot apply are warned about.
 */
export function applyEnvOverrides(
  tree: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  problems: Problems,
  /** What messages say set a path; the CLI's flags name themselves (`--port`). */
  originOf: (variable: string) => string = (variable) => `environment variable ${variable}`,
): void {
  for (const prefix of ['HZ_', 'GRID_']) {
    const names = Object.keys(env)
      .filter((n) => n.startsWith(prefix) && env[n] !== undefined)
      .sort();
    for (const name of names) {
      const value = env[name] ?? '';
      const segments = name.slice(prefix.length).split('_');
      const head = segments[0] ?? '';
      const isTopLevel = [...Object.keys(ENV_TOP_LEVEL), ...CONFIG_LIKE_TOP_LEVEL].some((k) => norm(k) === head);
      if (!isTopLevel) continue;
      if (name === 'GRID_CONFIG') continue;
      let steps = resolve(ENV_SCHEMA, segments, tree);
      // `HZ_NETWORK_PORT=5801`: a variable naming an element with a text key sets that key.
      if (steps === undefined) steps = resolveTextKey(segments, tree);
      if (steps === undefined) {
        problems.warn(name, 'environment variable does not name a setting Grid can override, ignored');
        continue;
      }
      const path = steps.reduce((p, s) => childPath(p, s.key), 'hazelcast');
      if (steps.length >= 1 && steps[steps.length - 1]?.key === 'members') {
        // An override replaces the member list; it does not add to the file's entries.
        const parent = steps.slice(0, -1).reduce<unknown>((t, s) => (isRecord(t) ? t[s.key] : undefined), tree);
        if (isRecord(parent)) delete parent['member-list'];
      }
      assign(tree, steps, value);
      problems.origins.set(path, originOf(name));
    }
  }
}

function resolveTextKey(segments: readonly string[], tree: unknown): Step[] | undefined {
  const withText = [...segments, norm('port')];
  const steps = resolve(ENV_SCHEMA, withText, tree);
  // Only accept when the element before the added segment really has that text key.
  if (steps === undefined || steps.length < 2) return undefined;
  const owner = steps[steps.length - 2]?.node;
  return owner?.kind === 'object' && owner.textKey === 'port' ? steps : undefined;
}
