// The scopes of the route table: the named path prefixes (route-paths.ts) its patterns live
// under, each with its metrics label, whether it claims its one endpoint group for every path
// under it, and what a path of it that no route takes answers; and PARAMS, how each `<name>` of
// a pattern is decoded and checked. route-dispatch.ts compiles them with ENDPOINTS.

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { decodeSegment, parseTimeoutSeconds } from './paths.js';
import { unknown, type Method, type Route, type RouteLabel } from './route-kit.js';
import * as maps from './maps-routes.js';
import * as queues from './queues-routes.js';
import * as cp from './cp-routes.js';
import { CONSOLE, OPENAPI, MAP_LIST, MEMBERS, METRICS_HISTORY, QUEUE_LIST, CLUSTER, CONFIG, CP_DATA, CP_SUBSYSTEM, HEALTH, INSTANCE, LICENSE, LOG_LEVEL, LOG_LEVEL_SUB, MANAGEMENT, MAPS, METRICS, PARTITIONS, QUEUES, TLS, WAN, WAN_STATUS } from './route-paths.js';

export interface ParamSpec {
  /** Whether a raw (still encoded) segment can be this parameter at all; else the route does not match. */
  readonly accepts?: (raw: string) => boolean;
  /** The parameter from its raw text: decoded and checked (a 400 when malformed), once a route matched. */
  readonly bind: (raw: string) => string;
  /** What it is, for the OpenAPI document. */
  readonly about?: string;
}

const required = (what: string) => (raw: string): string => {
  if (raw.length === 0) throw new GridError('BAD_REQUEST', `missing ${what}`);
  return decodeSegment(raw, what);
};
const decoded = (what: string) => (raw: string): string => decodeSegment(raw, what);

/** Every `<name>` of the route patterns. */
export const PARAMS: Readonly<Record<string, ParamSpec>> = {
  map: { about: "The map's name.", bind: required('map name') },
  // A key may hold `/`; one trailing `/` is not part of it.
  key: { about: 'The key (a string; may hold `/`, percent-escapes decoded).',
    bind: (raw) => {
      const k = raw.endsWith('/') ? raw.slice(0, -1) : raw;
      if (k.length === 0) throw new GridError('BAD_REQUEST', 'missing key (an empty key is not a key)');
      return decodeSegment(k, 'key');
    },
  },
  queue: { about: "The queue's name.", bind: required('queue name') },
  value: { about: 'The item to offer.', bind: decoded('queue value') },
  seconds: { about: 'How long to wait for an item, in whole seconds.', bind: (raw) => String(parseTimeoutSeconds(raw)) },
  uuid: { about: 'The uuid of a WAN sync.', accepts: (raw) => raw.length > 0, bind: decoded('uuid') },
  // `map` there is POST consistencyCheck/map's, never a check's uuid.
  check: { about: 'The uuid of a consistency check.', accepts: (raw) => raw.length > 0 && raw !== 'map', bind: decoded('uuid') },
  group: { about: 'A CP group name.', bind: decoded('CP group name') },
  session: { about: 'A CP session id.', bind: (raw) => cp.sessionIdOf(decodeSegment(raw, 'CP session id')) },
  member: { about: 'A CP member uuid.', bind: decoded('CP member uuid') },
  atomicLong: { about: "The atomic long's name (`name@group` for a group).", bind: (raw) => cp.requiredSegment(raw, 'atomic long name') },
  lock: { about: "The lock's name.", bind: (raw) => cp.requiredSegment(raw, 'lock name') },
  sessionGroup: { about: 'A CP group name.', bind: (raw) => cp.requiredSegment(raw, 'CP group name') },
  sessionId: { about: 'A CP session id.', bind: (raw) => cp.sessionIdOf(cp.requiredSegment(raw, 'CP session id')) },
  // Empty for the console's root (`console`, `console/`): its index.html. Only looked up in memory.
  asset: { about: "A file of the console's build (empty: its index.html).", bind: decoded('console file name') },
};

export interface Scope {
  /** A named prefix of route-paths.ts (after `/grid/` or `/hazelcast/`). */
  readonly prefix: string;
  /**
   * `exact`: the prefix alone (one trailing `/` allowed); `tree`: the prefix and every path
   * under `prefix/`; `under`: every path that starts with the prefix (which ends in `/`).
   */
  readonly shape: 'exact' | 'tree' | 'under';
  readonly label: RouteLabel;
  /**
   * Every path of the scope, a malformed one too, is of its routes' one group: a disabled group
   * answers 403 before the path is parsed (400).
   */
  readonly claimsGroup: boolean;
  /** Routes match the path as sent; otherwise one trailing `/` is not part of the path. */
  readonly keepsSlash?: true;
  /** Grid's own: the scope exists under `/grid/` only (under `/hazelcast/` its paths are what they were without it). */
  readonly gridOnly?: true;
  /** Runs before every handler of the scope (after the credential check). */
  readonly guard?: (d: RestDeps) => void;
  /**
   * What a path of the scope that no route takes answers: a Route, or a GridError thrown.
   * `rest`: as sent; `path`: its trailing `/` removed (unless keepsSlash); `tail`: `path` after the prefix and its `/`.
   */
  readonly otherwise: (method: Method, rest: string, path: string, tail: string) => Route;
}

// An unknown endpoint named as sent, or without its trailing `/` (each scope as it always answered).
const unknownAsSent = (method: Method, rest: string): never => {
  throw unknown(method, rest);
};
const unknownPath = (method: Method, _rest: string, path: string): never => {
  throw unknown(method, path);
};
const cpEnabled = (d: RestDeps): void => {
  if (!d.cp.enabled) cp.cpDisabled();
};

export const SCOPES: readonly Scope[] = [
  { prefix: MAP_LIST, shape: 'exact', label: 'maps', claimsGroup: false, gridOnly: true, otherwise: unknownPath },
  { prefix: QUEUE_LIST, shape: 'exact', label: 'queues', claimsGroup: false, gridOnly: true, otherwise: unknownPath },
  { prefix: MAPS, shape: 'under', label: 'maps', claimsGroup: true, keepsSlash: true, otherwise: (m, rest, _path, tail) => maps.mapPathRefused(m, rest, tail) },
  { prefix: QUEUES, shape: 'under', label: 'queues', claimsGroup: true, otherwise: (m, rest) => queues.queuePathRefused(m, rest, rest.slice(QUEUES.length)) },
  { prefix: HEALTH, shape: 'tree', label: 'health', claimsGroup: true, otherwise: unknownPath },
  { prefix: METRICS, shape: 'exact', label: 'metrics', claimsGroup: false, otherwise: unknownPath },
  // Under /hazelcast/ too: the console is served at both prefixes (docs/console.md).
  { prefix: CONSOLE, shape: 'tree', label: 'console', claimsGroup: true, otherwise: unknownPath },
  { prefix: OPENAPI, shape: 'exact', label: 'health', claimsGroup: false, otherwise: unknownPath },
  { prefix: CLUSTER, shape: 'exact', label: 'cluster', claimsGroup: false, otherwise: unknownPath },
  { prefix: METRICS_HISTORY, shape: 'exact', label: 'metrics', claimsGroup: false, gridOnly: true, otherwise: unknownPath },
  { prefix: MEMBERS, shape: 'exact', label: 'cluster', claimsGroup: false, gridOnly: true, otherwise: unknownPath },
  { prefix: PARTITIONS, shape: 'exact', label: 'cluster', claimsGroup: false, otherwise: unknownPath },
  { prefix: INSTANCE, shape: 'exact', label: 'cluster', claimsGroup: false, otherwise: unknownPath },
  { prefix: MANAGEMENT, shape: 'under', label: 'cluster', claimsGroup: false, otherwise: unknownPath },
  { prefix: LOG_LEVEL, shape: 'exact', label: 'admin', claimsGroup: false, otherwise: unknownAsSent },
  { prefix: LOG_LEVEL_SUB, shape: 'under', label: 'admin', claimsGroup: false, otherwise: unknownAsSent },
  { prefix: LICENSE, shape: 'exact', label: 'admin', claimsGroup: false, otherwise: unknownAsSent },
  { prefix: CONFIG, shape: 'under', label: 'admin', claimsGroup: false, otherwise: unknownAsSent },
  { prefix: TLS, shape: 'under', label: 'admin', claimsGroup: false, otherwise: unknownPath },
  // rest/wan (CLUSTER_READ) and rest/wan/… (WAN): one label, two groups.
  { prefix: WAN_STATUS, shape: 'exact', label: 'wan', claimsGroup: false, otherwise: unknownPath },
  { prefix: WAN, shape: 'under', label: 'wan', claimsGroup: true, otherwise: unknownPath },
  { prefix: CP_SUBSYSTEM, shape: 'tree', label: 'cp', claimsGroup: true, guard: cpEnabled, otherwise: (m, _rest, path) => cp.cpSubsystemPathRefused(m, path) },
  { prefix: CP_DATA, shape: 'tree', label: 'cp', claimsGroup: true, guard: cpEnabled, otherwise: (m, _rest, path, tail) => cp.cpDataPathRefused(m, path, tail) },
];
