// Persistence test helpers: clusters of real members (cluster.ts) whose `persistence` section
// points at a temp base-dir shared by all members (each member keeps its own directory under
// it, found again by its port), restarted on the same ports; byte-exact map reads and writes
// with Content-Types; the PERSISTENCE endpoints. Everything goes through REST.
//
// Members run from dist/ (or TEST_GRID_BIN): build the tree under test first.

import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach } from 'vitest';
import { Cluster, type ConfigFragment } from './cluster.js';
import { waitFor } from './process.js';
import { sleep } from './wait.js';

export { holdsFor } from './cluster.js';

/** Maps named `persisted-*` have data-persistence (fsync false), backup-count 1. */
export const PERSISTED_MAP_PATTERN = 'persisted-*';

// ---------------------------------------------------------------- temp dirs

const tempDirs = new Set<string>();

/** A fresh temp directory, removed after the test (kept when it failed, and named). */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `grid-persist-${prefix}-`));
  tempDirs.add(d);
  return d;
}

afterEach((ctx) => {
  const failed = ctx.task.result?.state === 'fail';
  for (const d of tempDirs) {
    if (failed) console.error(`kept ${d} (the test failed)`);
    // A member stopping beside the removal may still add a file (ENOTEMPTY): rmSync retries those.
    else rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
  tempDirs.clear();
});

// ---------------------------------------------------------------- clusters

export interface PersistentCluster {
  readonly c: Cluster;
  /** The persistence section every member gets; change it and `rewriteConfigs()` before restarting. */
  persistence: Record<string, unknown>;
  /** Extra config merged over the member configs (also rewritten). */
  extra: ConfigFragment;
  /** Writes every member's config file again from `persistence` and `extra` (restarts read it). */
  rewriteConfigs(): void;
  /** The directories (member directories) under the current base-dir. */
  memberDirs(): string[];
}

export interface PersistentClusterOptions {
  readonly size: number;
  /** Over the defaults (enabled, base-dir = a temp dir, validation-timeout-seconds 10). */
  readonly persistence?: Record<string, unknown>;
  readonly extra?: ConfigFragment;
  /** Ports reserved beyond `size` (default 0). */
  readonly spare?: number;
  /** A command prefix for member `i`'s process, read at each start (see ClusterOptions.prefixOf). */
  readonly prefixOf?: (i: number) => readonly string[];
}

/**
 * Reserves the ports of a persistent cluster and writes nothing yet; start members with
 * `c.addMember({ wait: 'none' })` (first start) and `c.restart(i, { wait: 'none' })`.
 */
export async function persistentCluster(opts: PersistentClusterOptions): Promise<PersistentCluster> {
  const pc: PersistentCluster = {
    c: undefined as unknown as Cluster,
    persistence: { enabled: true, 'base-dir': tempDir('base'), 'validation-timeout-seconds': 10, ...(opts.persistence ?? {}) },
    extra: opts.extra ?? {},
    rewriteConfigs: () => {
      for (const m of pc.c.members) writeFileSync(m.configPath, stringify({ hazelcast: pc.c.configOf(m.index, m.port, m.lite) }));
    },
    memberDirs: () => readdirSync(String(pc.persistence['base-dir'])).map((n) => join(String(pc.persistence['base-dir']), n)),
  };
  const config = (): ConfigFragment => ({
    ...pc.extra,
    persistence: pc.persistence,
    network: {
      'rest-api': { 'endpoint-groups': { PERSISTENCE: { enabled: true } } },
      ...((pc.extra.network as ConfigFragment | undefined) ?? {}),
    },
    map: {
      [PERSISTED_MAP_PATTERN]: { 'backup-count': 1, 'data-persistence': { enabled: true, fsync: false } },
      ...((pc.extra.map as ConfigFragment | undefined) ?? {}),
    },
  });
  (pc as { c: Cluster }).c = await Cluster.create({ size: 0, spare: opts.size + (opts.spare ?? 0), config, ...(opts.prefixOf ? { prefixOf: opts.prefixOf } : {}) });
  return pc;
}

/** Starts `n` new members (first start) and waits until they form a safe cluster. */
export async function launchMembers(pc: PersistentCluster, n: number, timeoutMs = 30_000): Promise<void> {
  const c = pc.c;
  const started = [];
  for (let k = 0; k < n; k++) started.push(await c.addMember({ wait: 'none' }));
  await Promise.all(started.map((m) => c.waitUp(m.index, timeoutMs)));
  await c.waitForMembers(c.live().length, undefined, timeoutMs);
  await c.waitSafe(timeoutMs);
}

/** Starts members `indexes` again (each on its own port, with its config file as it is now), without waiting. */
export async function restartAll(pc: PersistentCluster, indexes: readonly number[]): Promise<void> {
  for (const i of indexes) await pc.c.restart(i, { wait: 'none' });
}

/** Waits for the processes of `indexes` to exit (e.g. after clusterShutdown). */
export async function waitAllExited(pc: PersistentCluster, indexes: readonly number[], timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }[]> {
  return Promise.all(indexes.map((i) => pc.c.waitExit(i, timeoutMs)));
}

/** SIGKILLs every member of `indexes` at the same moment and waits until all are gone. */
export async function killAllAtOnce(pc: PersistentCluster, indexes: readonly number[]): Promise<void> {
  const gone = indexes.map((i) => {
    const m = pc.c.member(i);
    if (m.status === 'running') m.status = 'killed';
    const child = m.process.child;
    return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));
  });
  for (const i of indexes) pc.c.member(i).process.child.kill('SIGKILL');
  await Promise.all(gone);
}

/** Polls /hazelcast/health/node-state on member `i` until it answers `state` (or a connection error when `state` is undefined). */
export async function waitNodeState(pc: PersistentCluster, i: number, state: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(
    `member ${i} to answer node-state ${state}`,
    async () => {
      const res = await pc.c.http(i, 'GET', '/hazelcast/health/node-state', undefined, { timeoutMs: 2_000 });
      if (res.status !== 200) return false;
      return JSON.parse(res.body) === state;
    },
    timeoutMs,
    50,
  );
}

// ---------------------------------------------------------------- byte-exact entries

export interface Entry {
  readonly value: Buffer;
  /** undefined: written without a Content-Type. */
  readonly contentType: string | undefined;
}

export interface BytesResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

const agents = new Map<number, http.Agent>();
afterEach(() => {
  for (const a of agents.values()) a.destroy();
  agents.clear();
});

/** One request with a byte body (keep-alive per port); rejects on a connection error or after `timeoutMs`. */
export function requestBytes(
  port: number,
  method: string,
  path: string,
  body?: Buffer,
  contentType?: string,
  timeoutMs = 10_000,
): Promise<BytesResponse> {
  let agent = agents.get(port);
  if (agent === undefined) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    agents.set(port, agent);
  }
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-length'] = String(body.length);
  else if (method === 'POST') headers['content-length'] = '0';
  if (contentType !== undefined) headers['content-type'] = contentType;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`${method} ${path} on port ${port}: no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}

const CONTENT_TYPES = [undefined, 'text/plain', 'application/json', 'application/octet-stream', 'image/png', 'text/plain; charset=utf-8'];

/** `n` entries under keys `<prefix><i>`: values of every byte 0..255 and sizes 0..~600, content types varied (some none). */
export function makeEntries(prefix: string, n: number, seed = 1): Map<string, Entry> {
  let s = seed >>> 0 || 1;
  const rnd = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
  const out = new Map<string, Entry>();
  for (let i = 0; i < n; i++) {
    const len = i % 97 === 0 ? 0 : Math.floor(rnd() * 600);
    const value = Buffer.alloc(len);
    for (let b = 0; b < len; b++) value[b] = Math.floor(rnd() * 256);
    out.set(`${prefix}${i}`, { value, contentType: CONTENT_TYPES[i % CONTENT_TYPES.length] });
  }
  return out;
}

async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let at = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (at < items.length) await fn(items[at++] as T);
    }),
  );
}

/** POSTs every entry to `map` through the members on `ports` (round robin); every write must answer 200. */
export async function writeEntries(ports: readonly number[], map: string, entries: ReadonlyMap<string, Entry>, concurrency = 16): Promise<void> {
  const list = [...entries];
  let n = 0;
  const failures: string[] = [];
  await pool(list, concurrency, async ([key, e]) => {
    const port = ports[n++ % ports.length]!;
    const res = await requestBytes(port, 'POST', `/hazelcast/rest/maps/${map}/${key}`, e.value, e.contentType);
    if (res.status !== 200) failures.push(`${key} via ${port}: ${res.status} ${res.body.toString('utf8').slice(0, 100)}`);
  });
  if (failures.length > 0) throw new Error(`${failures.length} writes to ${map} failed, e.g. ${failures.slice(0, 5).join('; ')}`);
}

/**
 * Reads every key of `expected` from `map` through `port`; returns the differences (status,
 * bytes, Content-Type) as readable lines, empty when everything matches.
 */
export async function compareEntries(port: number, map: string, expected: ReadonlyMap<string, Entry>, concurrency = 16): Promise<string[]> {
  const problems: string[] = [];
  await pool([...expected], concurrency, async ([key, e]) => {
    let res: BytesResponse;
    try {
      res = await requestBytes(port, 'GET', `/hazelcast/rest/maps/${map}/${key}`);
    } catch (err) {
      problems.push(`${key}: ${(err as Error).message}`);
      return;
    }
    if (e.value.length === 0 && res.status === 200 && res.body.length === 0) {
      // an empty value is still a value
    } else if (res.status !== 200) {
      problems.push(`${key}: expected 200 with ${e.value.length} bytes, got ${res.status} ${res.body.toString('utf8').slice(0, 80)}`);
      return;
    } else if (!res.body.equals(e.value)) {
      problems.push(`${key}: bytes differ (expected ${e.value.length} bytes ${e.value.subarray(0, 8).toString('hex')}…, got ${res.body.length} bytes ${res.body.subarray(0, 8).toString('hex')}…)`);
      return;
    }
    const ct = res.headers['content-type'];
    if (ct !== e.contentType) problems.push(`${key}: Content-Type expected ${String(e.contentType)}, got ${String(ct)}`);
  });
  return problems;
}

/** Status of GET `map/key` through `port`. */
export async function statusOf(port: number, map: string, key: string): Promise<number> {
  return (await requestBytes(port, 'GET', `/hazelcast/rest/maps/${map}/${key}`)).status;
}

/** A PERSISTENCE (or other management) call; the parsed JSON answer and the headers. */
export async function management(pc: PersistentCluster, i: number, op: string): Promise<{ status: number; json: { status: string; message?: string }; headers: http.IncomingHttpHeaders }> {
  const res = await pc.c.management(i, op);
  let json: { status: string; message?: string };
  try {
    json = JSON.parse(res.body) as { status: string; message?: string };
  } catch {
    throw new Error(`${op} on member ${i}: ${res.status} ${res.body}`);
  }
  return { status: res.status, json, headers: res.headers };
}

// ---------------------------------------------------------------- health over time

export interface HealthSample {
  readonly member: number;
  readonly at: number;
  readonly nodeState: string;
  readonly migrationQueueSize: number;
  readonly clusterSize: number;
}

/**
 * Polls /hazelcast/health of every running member every `intervalMs` until stopped; answers
 * only (a member not listening yet, or not answering, is skipped).
 */
export function monitorHealth(pc: PersistentCluster, intervalMs = 100): { samples: HealthSample[]; stop(): Promise<HealthSample[]> } {
  const samples: HealthSample[] = [];
  const t0 = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        pc.c.live().map(async (m) => {
          try {
            const res = await pc.c.http(m.index, 'GET', '/hazelcast/health', undefined, { timeoutMs: 2_000 });
            if (res.status !== 200) return;
            const h = JSON.parse(res.body) as { nodeState: string; migrationQueueSize: number; clusterSize: number };
            samples.push({ member: m.index, at: Date.now() - t0, nodeState: h.nodeState, migrationQueueSize: h.migrationQueueSize, clusterSize: h.clusterSize });
          } catch {
            // not up yet
          }
        }),
      );
      await sleep(intervalMs);
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
      return samples;
    },
  };
}
