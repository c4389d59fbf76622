// WAN link cuts under write load (issue 29): two clusters of two members in two namespaces of a
// WanLab, A replicating map `cut-m` to B with the publisher's default liveness settings. A cut
// drops every packet between the data centres (wan-lab.ts) while writers keep writing on A;
// the heal brings the link back. Measured: how soon A's status says the endpoints are down,
// the first entry written during the cut to reach B after the heal, and when everything
// acknowledged is on B. Checked: A answers every write 200, no acknowledged write is missing on
// B, no key is ever read going backwards on B, and A's status (REST and /metrics) says down,
// with since when and why, during the cut, and up after it. Used by link-cut.test.ts (short cuts,
// in `npm test`) and link-cut.long.ts (long cuts, `npm run test:wan-long`).

import { afterAll, beforeAll, expect } from 'vitest';
import { findMissing, type Cluster } from './cluster.js';
import { cleanEnv, spawnGrid, waitFor } from './process.js';
import { parsePrometheus, sampleValue } from './prometheus.js';
import { WanLab, bridgeLabUnavailable, netemUnavailable, type CutMode } from './wan-lab.js';
import { configOf, get, launch, replicatedMap, reserveCluster, wanReplication, wanStatus, type PublisherStatus } from './wan.js';
import { sleep } from './wait.js';

export const REP = 'to-b';
export const ID = 'b';
export const MAP = 'cut-m';

export interface CutEnv {
  readonly lab: WanLab;
  readonly a: Cluster;
  readonly b: Cluster;
}

/** The lab and both clusters, for one test file (`scope: 'file'`): B first, then A naming it. */
export async function startCutEnv(publisherExtra: Record<string, unknown> = {}): Promise<CutEnv> {
  const lab = WanLab.create(2, 'file');
  const side = { hostOf: (): string => lab.hosts[1]!, prefixOf: (): string[] => lab.prefix(1), scope: 'file' as const };
  const b = await reserveCluster('B', 2, undefined, side);
  await launch(b, 2, 60_000);
  const endpoints = b.ports.map((p) => `${lab.hosts[1]!}:${p}`).join(',');
  const a = await reserveCluster(
    'A',
    2,
    () => configOf(wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints, extra: { 'queue-capacity': 100_000, ...publisherExtra } }), replicatedMap('cut-*', REP, { backupCount: 1 })),
    { hostOf: () => lab.hosts[0]!, prefixOf: () => lab.prefix(0), scope: 'file' },
  );
  await launch(a, 2, 60_000);
  // Connected before any cut: every endpoint of both members up.
  await waitFor('A connected to B', async () => (await allEndpoints(a)).every((e) => e.status === 'up'), 30_000, 100);
  return { lab, a, b };
}

export interface CutResult {
  readonly cutMs: number;
  readonly mode: CutMode;
  readonly writes: number;
  /** From the cut until every endpoint of both A members said down. */
  readonly detectedMs: number;
  /** From the heal until the first entry written during the cut was read on B. */
  readonly firstEntryMs: number;
  /** From the heal until every write acknowledged before the heal was on B. */
  readonly allReplicatedMs: number;
  /** From the heal until every endpoint of both A members said up. */
  readonly upAgainMs: number;
}

type Endpoint = PublisherStatus['endpoints'][number] & { readonly member: number };

async function allEndpoints(a: Cluster): Promise<Endpoint[]> {
  const out: Endpoint[] = [];
  for (const i of [0, 1]) {
    const p = (await wanStatus(a, i)).find((x) => x.wanReplicationName === REP && x.publisherId === ID);
    if (p === undefined) throw new Error(`A member ${i} lists no publisher ${REP}/${ID}`);
    for (const e of p.endpoints) out.push({ ...e, member: i });
  }
  return out;
}


/** Values written, rising across the cuts of one file (keys are rewritten from one cut to the next). */
let seq = 0;

/**
 * One cut of `cutMs` under write load, and its heal; asserts what the issue asks and returns the
 * figures. Writers: 4, each with its own 10 keys rewritten in turn (`k<w>-<j>` = a rising
 * number) and a new key per write (`u<w>-<n>`), about 100 writes/s in all.
 */
export async function cutUnderLoad(env: CutEnv, cutMs: number, mode: CutMode, log: (line: string) => void = () => undefined): Promise<CutResult> {
  const { lab, a, b } = env;
  const WRITERS = 4;
  const KEYS = 10;
  /** Every acknowledged write: key -> value, and when it was answered. */
  const acked = new Map<string, { value: string; atMs: number }>();
  const refused: string[] = [];
  let writing = true;
  let writes = 0;
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let n = 0; writing; n++) {
      const v = String(++seq);
      const keys = [`k${w}-${n % KEYS}`, `u${w}-${n}`];
      for (const key of keys) {
        const r = await a.http(n % 2, 'POST', `/hazelcast/rest/maps/${MAP}/${key}`, v, { timeoutMs: 10_000 }).catch((e: Error) => ({ status: 0, body: e.message }));
        writes++;
        if (r.status === 200) acked.set(key, { value: v, atMs: Date.now() });
        else refused.push(`${key}: ${r.status} ${r.body}`);
      }
      await sleep(60); // pacing, not waiting for anything: about 100 writes/s from 4 writers
    }
  });

  // The sampler reads the rewritten keys on B: a value lower than one read before is a key going backwards.
  const seen = new Map<string, number>();
  const backwards: string[] = [];
  let sampling = true;
  const sampler = (async () => {
    for (let round = 0; sampling; round++) {
      for (let w = 0; w < WRITERS; w++) {
        for (let j = 0; j < KEYS; j++) {
          const k = `k${w}-${j}`;
          const r = await get(b, round % 2, MAP, k).catch(() => undefined);
          if (r?.status !== 200) continue;
          const v = Number(r.body);
          if (v < (seen.get(k) ?? 0)) backwards.push(`${k}: read ${v} on B after ${seen.get(k)}`);
          else seen.set(k, v);
        }
      }
      await sleep(100); // pacing: one round of reads every 100 ms
    }
  })();

  try {
    await sleep(1500); // replication under load before the cut
    const memberConnections = async (c: Cluster, i: number): Promise<number> => sampleValue(parsePrometheus((await c.http(i, 'GET', '/metrics')).body), 'grid_member_connections') ?? NaN;
    const bConnectionsBefore = await memberConnections(b, 0);
    const cutAt = Date.now();
    lab.cut(0, mode);
    log(`cut (${mode}) for ${cutMs / 1000} s`);

    // During the cut: every endpoint down, since the cut (or later), with a reason; /metrics agrees.
    const detected = await waitFor(
      'A to say every endpoint is down',
      async () => {
        const eps = await allEndpoints(a);
        return eps.every((e) => e.status === 'down') ? eps : undefined;
      },
      Math.max(cutMs - 500, 1000),
      100,
    );
    const detectedMs = Date.now() - cutAt;
    log(`every endpoint down after ${detectedMs} ms: ${detected.map((e) => `${e.member}:${e.address} ${e.cause} "${e.reason}"`).join('; ')}`);
    for (const e of detected) {
      expect(e.since, JSON.stringify(e)).toBeGreaterThanOrEqual(cutAt - 50);
      expect(e.since).toBeLessThanOrEqual(Date.now());
      expect(e.reason, JSON.stringify(e)).toMatch(/\w/);
      expect(['heartbeat-timeout', 'connect-failed', 'connection-lost']).toContain(e.cause);
    }
    // `grid wan status` says the same: how long and the cause in the table, since when and why below it.
    const cli = spawnGrid(['wan', 'status', '--address', a.member(0).address, '--cluster-name', 'A'], { env: cleanEnv() });
    expect((await cli.exited(20_000)).code, cli.stderr()).toBe(0);
    const shown = cli.stdout();
    for (const e of detected.filter((x) => x.member === 0)) {
      expect(shown, shown).toMatch(new RegExp(`${e.address.replace(/\./g, '\\.')} down \\d+s \\((heartbeat-timeout|connect-failed|connection-lost)\\)`));
      expect(shown).toMatch(new RegExp(`${REP}/${ID} ${e.address.replace(/\./g, '\\.')} down since ${new Date(e.since).toISOString()}: \\S`));
    }
    // Written during the cut: the keys whose arrival on B marks the resumption.
    const markersFrom = Date.now();
    const remaining = cutAt + cutMs - Date.now();
    // The status stays down (no flicker to up) until the heal; checked through REST and /metrics.
    const until = Date.now() + remaining;
    while (Date.now() < until - 300) {
      const eps = await allEndpoints(a);
      const notDown = eps.filter((e) => e.status !== 'down');
      expect(notDown, 'an endpoint said up or connecting while the link was cut').toEqual([]);
      for (const i of [0, 1]) {
        const f = parsePrometheus((await a.http(i, 'GET', '/metrics')).body);
        for (const e of eps.filter((x) => x.member === i)) {
          const labels = { replication: REP, publisher: ID, endpoint: e.address };
          expect(sampleValue(f, 'grid_wan_endpoint_up', labels)).toBe(0);
          expect(sampleValue(f, 'grid_wan_endpoint_status_since_seconds', labels)).toBe(e.since / 1000);
          // One cause at a time (it may have moved on since the REST read: heartbeat-timeout, then connect-failed).
          const causes = ['heartbeat-timeout', 'connection-lost', 'connect-failed', 'batch-failures'].filter((cause) => sampleValue(f, 'grid_wan_endpoint_down_cause', { ...labels, cause }) === 1);
          expect(causes.length, `${e.address} on member ${i}: ${causes.join(', ')}`).toBe(1);
          expect(causes[0]).not.toBe('batch-failures');
        }
      }
      await sleep(Math.min(2000, Math.max(0, until - 300 - Date.now())));
    }
    await sleep(Math.max(0, until - Date.now()));
    if (cutMs >= 20_000) {
      // B reset the WAN connections whose source went silent (twice the 5 s heartbeat timeout):
      // each A member had one to each B member, and A's resets were lost on the cut link.
      const bConnections = await memberConnections(b, 0);
      expect(bConnectionsBefore - bConnections, `B member 0's member connections: ${bConnectionsBefore} before the cut, ${bConnections} at its end`).toBeGreaterThanOrEqual(2);
    }
    const markers = [...acked].filter(([k, x]) => k.startsWith('u') && x.atMs >= markersFrom).map(([k, x]) => [k, x.value] as const);
    expect(markers.length, 'writes were acknowledged during the cut').toBeGreaterThan(10);
    const probeKeys = markers.filter((_, n) => n % Math.max(1, Math.floor(markers.length / 12)) === 0).slice(0, 12);
    const beforeHeal = await findMissing(b, 0, MAP, new Map(probeKeys));
    expect(beforeHeal.length, 'nothing written during the cut reached B before the heal').toBe(probeKeys.length);

    const healAt = Date.now();
    lab.heal(0);
    log('healed');
    await waitFor(
      'a write of the cut on B',
      async () => (await findMissing(b, 0, MAP, new Map(probeKeys))).length < probeKeys.length,
      60_000,
      50,
    );
    const firstEntryMs = Date.now() - healAt;
    log(`first entry of the cut on B ${firstEntryMs} ms after the heal`);

    const upAgain = await waitFor(
      'every endpoint up again',
      async () => {
        const eps = await allEndpoints(a);
        return eps.every((e) => e.status === 'up') ? eps : undefined;
      },
      60_000,
      100,
    );
    const upAgainMs = Date.now() - healAt;
    for (const e of upAgain) {
      expect(e.since).toBeGreaterThanOrEqual(healAt - 50);
      expect(e.reason).toBeNull();
    }

    // Everything acknowledged up to the heal, on B.
    let pending = new Map([...acked].filter(([k, x]) => k.startsWith('u') && x.atMs <= healAt).map(([k, x]) => [k, x.value]));
    let missing: string[] = [];
    await waitFor(
      'every write acknowledged before the heal on B',
      async () => {
        // Only what is not there yet is read again.
        missing = await findMissing(b, 0, MAP, pending);
        const still = new Set(missing.map((m) => m.slice(0, m.indexOf(':'))));
        pending = new Map([...pending].filter(([k]) => still.has(k)));
        return missing.length === 0;
      },
      120_000,
      100,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; e.g. ${missing.slice(0, 5).join(', ')}`);
    });
    const allReplicatedMs = Date.now() - healAt;
    log(`all replicated ${allReplicatedMs} ms after the heal; endpoints up after ${upAgainMs} ms`);

    writing = false;
    await Promise.all(writers);
    // Every acknowledged write is on B, on both members, with its last value.
    const final = new Map([...acked].map(([k, x]) => [k, x.value]));
    for (const i of [0, 1]) {
      let wrong: string[] = [];
      await waitFor('every acknowledged write on B', async () => (wrong = await findMissing(b, i, MAP, final)).length === 0, 60_000, 200).catch((e: Error) => {
        throw new Error(`${e.message}; ${wrong.length} wrong, e.g. ${wrong.slice(0, 5).join(', ')}`);
      });
    }
    expect(refused, 'A answered every write 200').toEqual([]);
    sampling = false;
    await sampler;
    expect(backwards, 'no key read going backwards on B').toEqual([]);
    return { cutMs, mode, writes, detectedMs, firstEntryMs, allReplicatedMs, upAgainMs };
  } finally {
    writing = false;
    sampling = false;
    lab.heal(0);
    await Promise.allSettled([...writers, sampler]);
  }
}

// ---------------------------------------------------------------- the suites' shared set-up

/**
 * Why the link-cut tests of `what` cannot run here (no bridge lab), and why those with
 * `tc netem` cannot; each reason is printed once as a warning.
 */
export function cutLabAvailability(what: string): { unavailable: string | undefined; noNetem: string | undefined } {
  const unavailable = bridgeLabUnavailable();
  if (unavailable !== undefined) console.warn(`${what} skipped: ${unavailable}`);
  const noNetem = unavailable ?? netemUnavailable();
  if (unavailable === undefined && noNetem !== undefined) console.warn(`${what} with tc netem skipped: ${noNetem}`);
  return { unavailable, noNetem };
}

/**
 * Inside a describe: starts one CutEnv before its tests, destroys it after them and logs each
 * cut's figures under `[tag]`. Returns the cut to run: `cutUnderLoad` on that env.
 */
export function useCutEnv(tag: string): (cutMs: number, mode: CutMode) => Promise<CutResult> {
  const log = (line: string): void => void process.stderr.write(`[${tag}] ${line}\n`);
  let env: CutEnv | undefined;
  const results: CutResult[] = [];
  beforeAll(async () => {
    env = await startCutEnv();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([env?.a.destroy(), env?.b.destroy()]);
    if (results.length > 0) log(results.map((r) => `${r.mode} ${r.cutMs / 1000} s: down after ${r.detectedMs} ms, first entry ${r.firstEntryMs} ms and all ${r.allReplicatedMs} ms after the heal (${r.writes} writes)`).join('\n'));
  });
  return async (cutMs, mode) => {
    if (env === undefined) throw new Error('the cut environment did not start');
    const r = await cutUnderLoad(env, cutMs, mode, log);
    results.push(r);
    return r;
  };
}
