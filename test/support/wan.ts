// WAN replication test helpers: clusters whose ports are known before any member starts (so a
// source can name a target that is not up yet, and two clusters can name each other), config
// fragments for publishers and replicated maps, the WAN REST calls, and polls of a target's
// content. Everything goes through REST; members are the real child processes of cluster.ts.

import { expect } from 'vitest';
import { Cluster, findMissing, type ClusterOptions, type ConfigFragment, type HttpResponse } from './cluster.js';
import { sendRequest } from './http.js';
import { waitFor } from './process.js';

export { holdsFor } from './cluster.js';

// The REST answers' shapes are the facade's own types (the JSON carries exactly their fields).
export type { WanPublisherStatus as PublisherStatus, WanSyncProgress as SyncProgress, WanConsistencyResult as ConsistencyResult } from '../../src/wan/wan-facade.js';
import type { WanConsistencyResult as ConsistencyResult, WanPublisherStatus as PublisherStatus, WanSyncProgress as SyncProgress } from '../../src/wan/wan-facade.js';

// ---------------------------------------------------------------- clusters

/** Config fragment: the WAN endpoint group on (the harness enables DATA and the CLUSTER groups). */
export const WAN_GROUP: ConfigFragment = { network: { 'rest-api': { 'endpoint-groups': { WAN: { enabled: true } } } } };

/**
 * A cluster whose ports are reserved but no member runs yet: `ports` (and `endpoints`) are
 * known at once, members start with `launch`. `capacity` = how many members it may ever have.
 * The WAN endpoint group is enabled on every member; `config(i)` is merged over it.
 */
export async function reserveCluster(
  clusterName: string,
  capacity: number,
  config?: (i: number) => ConfigFragment,
  extra: Partial<ClusterOptions> = {},
): Promise<Cluster> {
  return Cluster.create({
    ...extra,
    size: 0,
    spare: capacity,
    clusterName,
    config: (i) => (config ? mergeAll(WAN_GROUP, config(i)) : WAN_GROUP),
  });
}

/**
 * Starts `n` more members of `c` at once (on its next reserved ports) and waits until the
 * cluster lists all live members and is safe.
 */
export async function launch(c: Cluster, n: number, timeoutMs = 30_000): Promise<void> {
  const started = [];
  for (let k = 0; k < n; k++) started.push(await c.addMember({ wait: 'none' }));
  await Promise.all(started.map((m) => c.waitUp(m.index, timeoutMs)));
  await c.waitForMembers(c.live().length, undefined, timeoutMs);
  await c.waitSafe(timeoutMs);
}

/** `reserveCluster` + `launch`. */
export async function startWanCluster(clusterName: string, size: number, config?: (i: number) => ConfigFragment, spare = 0): Promise<Cluster> {
  const c = await reserveCluster(clusterName, size + spare, config);
  await launch(c, size);
  return c;
}

/** `127.0.0.1:<port>` of the first `n` reserved ports of `c` (default all), comma-separated. */
export function endpointsOf(c: Cluster, n = c.ports.length): string {
  return c.ports
    .slice(0, n)
    .map((p) => `127.0.0.1:${p}`)
    .join(',');
}

function mergeAll(...parts: ConfigFragment[]): ConfigFragment {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const merge = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) {
      const o = out[k];
      out[k] = isObj(o) && isObj(v) ? merge(o, v) : v;
    }
    return out;
  };
  return parts.reduce((a, b) => merge(a, b), {});
}

/** Deep-merges config fragments (objects recursively, anything else replaced). */
export const configOf = mergeAll;

// ---------------------------------------------------------------- config fragments

export interface PublisherOptions {
  /** The target's cluster-name. */
  readonly clusterName: string;
  /** Default: the cluster name. */
  readonly publisherId?: string;
  /** `host:port,...` */
  readonly endpoints: string;
  /** Default 50 ms (tests want it fast). */
  readonly batchMaxDelayMillis?: number;
  /** Any other batch-publisher settings, YAML-shaped (`queue-capacity`, `sync`, ...). */
  readonly extra?: Record<string, unknown>;
}

/** Config fragment: `wan-replication <name>` with these batch publishers. */
export function wanReplication(name: string, ...publishers: PublisherOptions[]): ConfigFragment {
  const bp: Record<string, unknown> = {};
  for (const p of publishers) {
    const id = p.publisherId ?? p.clusterName;
    bp[id] = {
      'cluster-name': p.clusterName,
      'publisher-id': id,
      'target-endpoints': p.endpoints,
      'batch-max-delay-millis': p.batchMaxDelayMillis ?? 50,
      ...(p.extra ?? {}),
    };
  }
  return { 'wan-replication': { [name]: { 'batch-publisher': bp } } };
}

/** Config fragment: map (name or wildcard) `pattern` replicated by `wanRepName`. */
export function replicatedMap(
  pattern: string,
  wanRepName: string,
  opts: { mergePolicy?: string; republishing?: boolean; merkle?: boolean; backupCount?: number } = {},
): ConfigFragment {
  const ref: Record<string, unknown> = { 'merge-policy-class-name': opts.mergePolicy ?? 'PassThroughMergePolicy' };
  if (opts.republishing !== undefined) ref['republishing-enabled'] = opts.republishing;
  const m: Record<string, unknown> = { 'wan-replication-ref': { [wanRepName]: ref } };
  if (opts.merkle) m['merkle-tree'] = { enabled: true };
  if (opts.backupCount !== undefined) m['backup-count'] = opts.backupCount;
  return { map: { [pattern]: m } };
}

/** Config fragment: map `pattern` with a Merkle tree (a target's map for consistency checks). */
export function merkleMap(pattern: string): ConfigFragment {
  return { map: { [pattern]: { 'merkle-tree': { enabled: true } } } };
}

// ---------------------------------------------------------------- REST: maps

export const mapPath = (map: string, key?: string): string => `/hazelcast/rest/maps/${map}${key === undefined ? '' : `/${key}`}`;

/** POST a value (text), expecting 200. */
export async function put(c: Cluster, i: number, map: string, key: string, value: string, contentType = 'text/plain'): Promise<void> {
  const r = await c.http(i, 'POST', mapPath(map, key), value, { contentType });
  expect(r.status, `POST ${map}/${key} on member ${i}: ${r.status} ${String(r.headers['x-grid-error'] ?? '')}`).toBe(200);
}

/** DELETE one entry (or the whole map with `key` undefined), expecting 200. */
export async function del(c: Cluster, i: number, map: string, key?: string): Promise<void> {
  const r = await c.http(i, 'DELETE', mapPath(map, key));
  expect(r.status, `DELETE ${map}/${key ?? ''} on member ${i}: ${r.status} ${String(r.headers['x-grid-error'] ?? '')}`).toBe(200);
}

/** GET one entry: status and text body. */
export async function get(c: Cluster, i: number, map: string, key: string): Promise<HttpResponse> {
  return c.http(i, 'GET', mapPath(map, key));
}

export interface RawEntry {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/** POST raw bytes, with the given Content-Type or none at all (`undefined`); binary-safe. */
export async function putRaw(c: Cluster, i: number, map: string, key: string, body: Buffer, contentType: string | undefined): Promise<number> {
  const headers: Record<string, string> = { Connection: 'close' };
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  return (await sendRequest(c.member(i).port, 'POST', mapPath(map, key), { headers, body })).status;
}

/** GET one entry's exact bytes and Content-Type; binary-safe. */
export async function getRaw(c: Cluster, i: number, map: string, key: string): Promise<RawEntry> {
  const r = await sendRequest(c.member(i).port, 'GET', mapPath(map, key), { headers: { Connection: 'close' } });
  return { status: r.status, contentType: r.headers['content-type'], body: r.body };
}

/**
 * Polls member `i` of `c` until every entry of `expected` reads back with its value (and, for
 * keys mapped to `null`, is absent: 204). Fails at the deadline with the mismatches.
 */
export async function waitForEntries(
  c: Cluster,
  i: number,
  map: string,
  expected: ReadonlyMap<string, string | null>,
  timeoutMs = 15_000,
  what = `${expected.size} entries of ${map} on ${c.clusterName}`,
): Promise<void> {
  const present = new Map<string, string>();
  const absent: string[] = [];
  for (const [k, v] of expected) {
    if (v === null) absent.push(k);
    else present.set(k, v);
  }
  let problems: string[] = [];
  let pending = new Map(present);
  let pendingAbsent = absent;
  await waitFor(
    what,
    async () => {
      // Only what is not right yet is read again.
      problems = await findMissing(c, i, map, pending);
      const wrong = new Set(problems.map((p) => p.slice(0, p.indexOf(':'))));
      pending = new Map([...pending].filter(([k]) => wrong.has(k)));
      const stillThere: string[] = [];
      for (const k of pendingAbsent) {
        const r = await get(c, i, map, k);
        if (r.status !== 204) stillThere.push(k);
      }
      pendingAbsent = stillThere;
      problems.push(...stillThere.map((k) => `${k}: expected absent (204)`));
      return problems.length === 0;
    },
    timeoutMs,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; ${problems.length} wrong, e.g.:\n${problems.slice(0, 10).join('\n')}`);
  });
}

// ---------------------------------------------------------------- REST: WAN

/** POST /rest/wan/<op> with the source cluster's name, an empty password and `params`. */
export function wanPost(c: Cluster, i: number, op: string, ...params: string[]): Promise<HttpResponse> {
  return c.http(i, 'POST', `/hazelcast/rest/wan/${op}`, [c.clusterName, '', ...params].join('&'), {
    contentType: 'application/x-www-form-urlencoded',
  });
}

/** `wanPost`, expecting 200 and a JSON answer with status success; returns the answer. */
export async function wanOk(c: Cluster, i: number, op: string, ...params: string[]): Promise<Record<string, unknown>> {
  const r = await wanPost(c, i, op, ...params);
  expect(r.status, `POST wan/${op} (${params.join('&')}) on ${c.clusterName} member ${i}: ${r.status} ${String(r.headers['x-grid-error'] ?? '')} ${r.body}`).toBe(200);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(body.status, r.body).toBe('success');
  return body;
}

/** Every publisher on member `i` (GET /rest/wan). */
export async function wanStatus(c: Cluster, i: number): Promise<PublisherStatus[]> {
  const r = await c.json<{ publishers: PublisherStatus[] }>(i, '/hazelcast/rest/wan');
  return r.publishers;
}

/** One publisher on member `i`; fails when the member does not list it. */
export async function publisherOn(c: Cluster, i: number, rep: string, id: string): Promise<PublisherStatus> {
  const all = await wanStatus(c, i);
  const p = all.find((x) => x.wanReplicationName === rep && x.publisherId === id);
  if (p === undefined) {
    throw new Error(`${c.clusterName} member ${i} lists no publisher ${rep}/${id} (it lists ${all.map((x) => `${x.wanReplicationName}/${x.publisherId}`).join(', ') || 'none'})`);
  }
  return p;
}

type Counter = 'primaryQueueSize' | 'backupQueueSize' | 'eventsQueued' | 'eventsSent' | 'eventsAcknowledged' | 'eventsDropped' | 'writesRefused' | 'batchesSent';

/** A counter of one publisher summed over the live members of `c` (or those given). */
export async function sumOf(c: Cluster, rep: string, id: string, counter: Counter, members = c.live().map((m) => m.index)): Promise<number> {
  const all = await Promise.all(members.map((i) => publisherOn(c, i, rep, id)));
  return all.reduce((s, p) => s + p[counter], 0);
}

/** GET wan/sync/progress/<uuid> on member `i`: the `result`. */
export async function syncProgress(c: Cluster, i: number, uuid: string): Promise<SyncProgress> {
  const r = await c.json<{ status: string; result: SyncProgress }>(i, `/hazelcast/rest/wan/sync/progress/${uuid}`);
  expect(r.status).toBe('success');
  return r.result;
}

/** GET wan/consistencyCheck/<uuid> on member `i`: the `result`. */
export async function consistencyResult(c: Cluster, i: number, uuid: string): Promise<ConsistencyResult> {
  const r = await c.json<{ status: string; result: ConsistencyResult }>(i, `/hazelcast/rest/wan/consistencyCheck/${uuid}`);
  expect(r.status).toBe('success');
  return r.result;
}

/** Polls sync progress on member `i` until FINISHED (fails at once on FAILED). */
export async function waitSyncFinished(c: Cluster, i: number, uuid: string, timeoutMs = 20_000): Promise<SyncProgress> {
  let last: SyncProgress | undefined;
  return waitFor(
    `sync ${uuid} to finish (asked ${c.clusterName} member ${i})`,
    async () => {
      last = await syncProgress(c, i, uuid);
      if (last.stage === 'FAILED') throw new Error(`sync ${uuid} FAILED: ${JSON.stringify(last)}`);
      return last.stage === 'FINISHED' ? last : false;
    },
    timeoutMs,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last progress ${JSON.stringify(last)}`);
  });
}

/** Polls a publisher's counter on the live members until `accept` takes the sum. */
export async function waitCounter(
  c: Cluster,
  rep: string,
  id: string,
  counter: Counter,
  accept: (n: number) => boolean,
  timeoutMs = 10_000,
  members?: number[],
): Promise<number> {
  let last = -1;
  return waitFor(
    `${counter} of ${rep}/${id} on ${c.clusterName} to be accepted`,
    async () => {
      last = await sumOf(c, rep, id, counter, members);
      return accept(last) ? last : false;
    },
    timeoutMs,
    50,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last sum ${last}`);
  });
}
