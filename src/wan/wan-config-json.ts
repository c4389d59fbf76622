// The JSON of addWanConfig: Hazelcast's WanReplicationConfigDTO -> a WanReplicationConfig, and
// back (members send each other added configs in the same JSON). Pure: text in, frozen config
// out; every problem is a GridError BAD_REQUEST `<path>: <what>` (the first one found), the path
// in the JSON's own field names (`batchPublishers[0].batchSize`).
//
// Accepted shape (Hazelcast's field names; enum fields as Hazelcast's integer ids or as names):
//   {"name": "rep",
//    "batchPublishers": [{"clusterName": "B", "publisherId": "b",
//                         "targetEndpoints": "10.0.0.1:5701,10.0.0.2:5701" | ["10.0.0.1:5701", ...],
//                         "batchSize": 500, "batchMaxDelayMillis": 1000, "responseTimeoutMillis": 60000,
//                         "queueCapacity": 10000, "queueFullBehavior": 0, "initialPublisherState": 0,
//                         "acknowledgeType": 1, "sync": {"consistencyCheckStrategy": 0}}]}
// - `publishers` is an alias of `batchPublishers`; when both are given, both lists are read
//   (batchPublishers first) and a publisher id may appear only once across them.
// - A field that is absent or null takes the XML config's default (DEFAULT_WAN_PUBLISHER);
//   `publisherId` absent, null or "" = the publisher's `clusterName`.
// - Unknown fields are ignored: Hazelcast's DTO always carries settings Grid has no use for
//   (snapshotEnabled, idleMaxParkNs, maxConcurrentInvocations, aws, discovery, properties, ...).
//   A non-empty `customPublishers` is refused: Grid has batch publishers only, and silently
//   dropping a publisher the caller asked for would be worse.
// - Limits: at most MAX_WAN_JSON_CHARS characters, MAX_WAN_JSON_PUBLISHERS publishers,
//   MAX_WAN_JSON_ENDPOINTS target endpoints per publisher, names of MAX_WAN_JSON_NAME_LENGTH.
// - The rules of a publisher's settings (integer bounds, the heartbeat cross-check, the
//   enumerations and their ids) are the config validator's (config/readers/wan.ts): one rule,
//   two inputs. Only the messages are this endpoint's own (JSON field names, one error).

import {
  isHostPort,
  WAN_ACKNOWLEDGE_TYPES,
  WAN_CONSISTENCY_CHECK_STRATEGIES,
  WAN_NO_TARGET_ENDPOINTS,
  WAN_PUBLISHER_INTS,
  WAN_PUBLISHER_STATES,
  WAN_QUEUE_FULL_BEHAVIORS,
  wanHeartbeatTimeoutProblem,
  type WanPublisherIntField,
} from '../config/index.js';
import { DEFAULT_WAN_PUBLISHER } from '../config/defaults.js';
import { childPath, isRecord } from '../config/problems.js';
import type { WanBatchPublisherConfig, WanConsistencyCheckStrategy, WanReplicationConfig } from '../config/types.js';
import { GridError } from '../core/errors.js';

/** Largest accepted JSON text (characters). */
export const MAX_WAN_JSON_CHARS = 1024 * 1024;
/** Most publishers in one addWanConfig (batchPublishers and publishers together). */
export const MAX_WAN_JSON_PUBLISHERS = 64;
/** Most target endpoints of one publisher. */
export const MAX_WAN_JSON_ENDPOINTS = 256;
/** Longest `name`, `clusterName` or `publisherId`. */
export const MAX_WAN_JSON_NAME_LENGTH = 1024;

/** The publisher states in Hazelcast's id order (wan-metrics.ts reports one gauge per state). */
export { WAN_PUBLISHER_STATES as PUBLISHER_STATES } from '../config/index.js';

type Json = unknown;
type JsonObject = Readonly<Record<string, Json>>;

function bad(path: string, what: string): never {
  throw new GridError('BAD_REQUEST', `${path}: ${what}`);
}

/** A value for a message: strings in JSON quotes (shortened), containers by their JSON kind (the config's `show` says list and mapping). */
function show(v: Json): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}...` : v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** An own field; null reads as absent (as in Hazelcast's DTOs). */
function field(obj: JsonObject, key: string): Json {
  if (!Object.hasOwn(obj, key)) return undefined;
  const v = obj[key];
  return v === null ? undefined : v;
}

/** A name field, trimmed. `def` undefined = required; `emptyIsAbsent`: "" takes `def` too. */
function name(obj: JsonObject, path: string, key: string, def: string | undefined, emptyIsAbsent = false): string {
  const v = field(obj, key);
  const at = childPath(path, key);
  if (v === undefined) {
    if (def === undefined) bad(at, 'is required');
    return def;
  }
  if (typeof v !== 'string') bad(at, `must be a string, got ${show(v)}`);
  const s = v.trim();
  if (s === '') {
    if (def === undefined || !emptyIsAbsent) bad(at, 'must not be empty');
    return def;
  }
  if (s.length > MAX_WAN_JSON_NAME_LENGTH) bad(at, `must be at most ${MAX_WAN_JSON_NAME_LENGTH} characters, got ${s.length}`);
  return s;
}

/** An integer setting of a publisher: absent = the config's default, bounds as in the config. */
function int(obj: JsonObject, path: string, key: WanPublisherIntField): number {
  const v = field(obj, key);
  if (v === undefined) return DEFAULT_WAN_PUBLISHER[key];
  const { min, max } = WAN_PUBLISHER_INTS[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    bad(childPath(path, key), `must be a ${min === 1 ? 'positive' : 'non-negative'} integer (at most ${max}), got ${show(v)}`);
  }
  return v;
}

/** An enum field: Hazelcast's integer id, or the name (any case). */
function enumField<T extends string>(obj: JsonObject, path: string, key: string, def: T, values: readonly T[]): T {
  const v = field(obj, key);
  if (v === undefined) return def;
  let found: T | undefined;
  if (typeof v === 'number') found = Number.isInteger(v) ? values[v] : undefined;
  else if (typeof v === 'string') found = values.find((x) => x === v.trim().toUpperCase());
  if (found === undefined) {
    const allowed = values.map((x, i) => `${i} (${x})`).join(', ');
    bad(childPath(path, key), `must be one of ${allowed}, as id or name, got ${show(v)}`);
  }
  return found;
}

function targetEndpoints(obj: JsonObject, path: string): string[] {
  const v = field(obj, 'targetEndpoints');
  const at = childPath(path, 'targetEndpoints');
  const entries: { value: string; path: string }[] = [];
  const split = (s: string, where: string): void => {
    for (const part of s.split(',')) {
      const value = part.trim();
      if (value !== '') entries.push({ value, path: where });
    }
  };
  if (v === undefined) bad(at, 'is required: the host:port of at least one member of the target cluster');
  if (typeof v === 'string') split(v, at);
  else if (Array.isArray(v)) {
    v.forEach((item: Json, i) => {
      if (typeof item !== 'string') bad(`${at}[${i}]`, `must be a string, got ${show(item)}`);
      split(item, `${at}[${i}]`);
    });
  } else bad(at, `must be a comma-separated string or an array of strings, got ${show(v)}`);
  if (entries.length === 0) bad(at, WAN_NO_TARGET_ENDPOINTS);
  if (entries.length > MAX_WAN_JSON_ENDPOINTS) bad(at, `at most ${MAX_WAN_JSON_ENDPOINTS} endpoints, got ${entries.length}`);
  for (const e of entries) {
    if (!isHostPort(e.value)) bad(e.path, `not a host or host:port: ${show(e.value)}`);
  }
  return entries.map((e) => e.value);
}

function publisher(v: Json, path: string): WanBatchPublisherConfig {
  if (!isRecord(v)) bad(path, `must be an object, got ${show(v)}`);
  const clusterName = name(v, path, 'clusterName', DEFAULT_WAN_PUBLISHER.clusterName);
  const publisherId = name(v, path, 'publisherId', clusterName, true);
  const endpoints = targetEndpoints(v, path);
  let consistencyCheckStrategy: WanConsistencyCheckStrategy = DEFAULT_WAN_PUBLISHER.consistencyCheckStrategy;
  const sync = field(v, 'sync');
  if (sync !== undefined) {
    const syncPath = childPath(path, 'sync');
    if (!isRecord(sync)) bad(syncPath, `must be an object, got ${show(sync)}`);
    consistencyCheckStrategy = enumField(
      sync,
      syncPath,
      'consistencyCheckStrategy',
      DEFAULT_WAN_PUBLISHER.consistencyCheckStrategy,
      WAN_CONSISTENCY_CHECK_STRATEGIES,
    );
  }
  return Object.freeze({
    clusterName,
    publisherId,
    targetEndpoints: Object.freeze(endpoints),
    batchSize: int(v, path, 'batchSize'),
    batchMaxDelayMillis: int(v, path, 'batchMaxDelayMillis'),
    responseTimeoutMillis: int(v, path, 'responseTimeoutMillis'),
    queueCapacity: int(v, path, 'queueCapacity'),
    queueFullBehavior: enumField(v, path, 'queueFullBehavior', DEFAULT_WAN_PUBLISHER.queueFullBehavior, WAN_QUEUE_FULL_BEHAVIORS),
    initialPublisherState: enumField(v, path, 'initialPublisherState', DEFAULT_WAN_PUBLISHER.initialPublisherState, WAN_PUBLISHER_STATES),
    acknowledgeType: enumField(v, path, 'acknowledgeType', DEFAULT_WAN_PUBLISHER.acknowledgeType, WAN_ACKNOWLEDGE_TYPES),
    consistencyCheckStrategy,
    ...heartbeat(v, path),
  });
}

/** Grid's own liveness fields (absent from Hazelcast's DTO: the defaults). */
function heartbeat(v: { readonly [k: string]: Json }, path: string): { heartbeatIntervalMillis: number; heartbeatTimeoutMillis: number } {
  const heartbeatIntervalMillis = int(v, path, 'heartbeatIntervalMillis');
  const heartbeatTimeoutMillis = int(v, path, 'heartbeatTimeoutMillis');
  const problem = wanHeartbeatTimeoutProblem('heartbeatIntervalMillis', heartbeatIntervalMillis, heartbeatTimeoutMillis);
  if (problem !== undefined) bad(childPath(path, 'heartbeatTimeoutMillis'), problem);
  return { heartbeatIntervalMillis, heartbeatTimeoutMillis };
}

/**
 * addWanConfig's JSON (Hazelcast's WanReplicationConfigDTO, or `wanConfigToJson`'s output) ->
 * a frozen WanReplicationConfig. Throws GridError BAD_REQUEST naming the field at the first problem.
 */
export function parseWanConfigJson(text: string): WanReplicationConfig {
  if (text.length > MAX_WAN_JSON_CHARS) {
    bad('addWanConfig', `the configuration is larger than ${MAX_WAN_JSON_CHARS} characters (${text.length})`);
  }
  let root: Json;
  try {
    root = JSON.parse(text) as Json;
  } catch (e) {
    bad('addWanConfig', `invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isRecord(root)) bad('addWanConfig', `must be a JSON object, got ${show(root)}`);
  const replicationName = name(root, '', 'name', undefined);

  const items: { value: Json; path: string }[] = [];
  for (const key of ['batchPublishers', 'publishers']) {
    const list = field(root, key);
    if (list === undefined) continue;
    if (!Array.isArray(list)) bad(key, `must be an array of publishers, got ${show(list)}`);
    list.forEach((value: Json, i) => items.push({ value, path: `${key}[${i}]` }));
  }
  if (items.length === 0) bad('batchPublishers', 'must list at least one publisher (publishers is accepted as another name)');
  if (items.length > MAX_WAN_JSON_PUBLISHERS) {
    bad('batchPublishers', `at most ${MAX_WAN_JSON_PUBLISHERS} publishers in one configuration, got ${items.length}`);
  }
  const custom = field(root, 'customPublishers');
  if (Array.isArray(custom) && custom.length > 0) {
    bad('customPublishers', 'custom WAN publishers are not supported; use batchPublishers');
  }

  const publishers: WanBatchPublisherConfig[] = [];
  const pathOf = new Map<string, string>();
  for (const item of items) {
    const p = publisher(item.value, item.path);
    const earlier = pathOf.get(p.publisherId);
    if (earlier !== undefined) bad(item.path, `duplicate publisher id ${show(p.publisherId)} (also ${earlier})`);
    pathOf.set(p.publisherId, item.path);
    publishers.push(p);
  }
  return Object.freeze({ name: replicationName, batchPublishers: Object.freeze(publishers) });
}

/**
 * A WanReplicationConfig as Hazelcast's WanReplicationConfigDTO JSON (enum fields as ids,
 * targetEndpoints comma-separated, every field written): what members send each other;
 * `parseWanConfigJson` reads it back to an equal config.
 */
export function wanConfigToJson(cfg: WanReplicationConfig): string {
  return JSON.stringify({
    name: cfg.name,
    batchPublishers: cfg.batchPublishers.map((p) => ({
      clusterName: p.clusterName,
      publisherId: p.publisherId,
      targetEndpoints: p.targetEndpoints.join(','),
      batchSize: p.batchSize,
      batchMaxDelayMillis: p.batchMaxDelayMillis,
      responseTimeoutMillis: p.responseTimeoutMillis,
      queueCapacity: p.queueCapacity,
      queueFullBehavior: WAN_QUEUE_FULL_BEHAVIORS.indexOf(p.queueFullBehavior),
      initialPublisherState: WAN_PUBLISHER_STATES.indexOf(p.initialPublisherState),
      acknowledgeType: WAN_ACKNOWLEDGE_TYPES.indexOf(p.acknowledgeType),
      sync: { consistencyCheckStrategy: WAN_CONSISTENCY_CHECK_STRATEGIES.indexOf(p.consistencyCheckStrategy) },
      heartbeatIntervalMillis: p.heartbeatIntervalMillis,
      heartbeatTimeoutMillis: p.heartbeatTimeoutMillis,
    })),
  });
}
