// Cluster part of the Grid benchmark (see bench/README.md, "Cluster"):
//   cluster  - the single-member workloads against 3 members, load split over their REST ports
//   failover - 1M entries in 3 members, kill -9 of a non-master, time until safe again, data check
//   join     - a member joins the cluster holding those entries: time until listed, until
//              migrations are done and it owns its share, data check again
// Every member is a `node bin/grid.js start --config <tmp yaml>` child process on a port below
// the ephemeral range, all listing the same 4 ports (3 + a spare for the joiner).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import {
  HOST,
  PREFIX,
  PRELOAD_KEYS,
  RESULTS_DIR,
  ROOT,
  VALUE_SIZE,
  WARMUP_SECONDS,
  WORKLOADS,
  fmtInt,
  fmtUs,
  getJson,
  httpRequest,
  log,
  logTail,
  measureWorkload,
  pipelinedLoad,
  readRss,
  reservePorts,
  startChild,
  summarize,
  tempDirs,
  valueFor,
  waitReady,
} from './lib.mjs';

export const CLUSTER_PHASES = ['cluster', 'failover', 'join'];
/** Issue 12: CPU µs per request of the 3 members summed <= this x the single member's, per workload. */
export const CLUSTER_CPU_RATIO_TARGET = 1.6;
const CLUSTER_WORKLOADS = ['get', 'post', 'queue'];
/** The forwarding floor: plain `net` processes that forward and back up and do nothing else (see the file). */
const FLOOR_SCRIPT = path.join(ROOT, 'bench', 'bare-net-cluster.mjs');
const SIZE = 3;
const PARTITIONS = 271;
const BACKUP_COUNT = 1;
const PROPERTIES = {
  'hazelcast.heartbeat.interval.seconds': 1,
  'hazelcast.max.no.heartbeat.seconds': 5,
};
const FORM_DEADLINE_MS = 60_000;
const FAILOVER_DEADLINE_MS = 120_000;
const JOIN_DEADLINE_MS = 180_000;
const SAFE_AFTER_LOAD_DEADLINE_MS = 60_000;
const POLL_MS = 100;
const SAMPLE = 10_000;

// ---------------------------------------------------------------- the cluster

/** Members that exited while the bench still needed them (not killed by the bench itself). */
const unexpectedExits = [];

export class BenchCluster {
  /**
   * @param {string} name used in log file names; @param {number[]} ports SIZE + 1 (spare);
   * @param {{gridBin?: string, httpPath?: string|null, cpus?: string}} options launcher (default bin/grid.js),
   * grid.rest.http-path, taskset CPU list of the members
   */
  constructor(name, ports, { gridBin = path.join(ROOT, 'bin', 'grid.js'), httpPath = null, cpus } = {}) {
    this.name = name;
    this.ports = ports;
    this.gridBin = gridBin;
    this.httpPath = httpPath;
    this.cpus = cpus;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-cluster-'));
    tempDirs.push(this.dir);
    /** @type {{index:number, port:number, address:string, child:any, uuid?:string, alive:boolean}[]} */
    this.members = [];
  }

  static async create(name, options = {}) {
    const cli = path.join(path.dirname(options.gridBin ?? path.join(ROOT, 'bin', 'grid.js')), '..', 'dist', 'cli.js');
    if (!existsSync(cli)) throw new Error(`${cli} is missing: build it first`);
    return new BenchCluster(name, await reservePorts(SIZE + 1), options);
  }

  configFor(port) {
    return {
      hazelcast: {
        'cluster-name': 'bench-cluster',
        network: {
          port: { port, 'auto-increment': false },
          interfaces: { enabled: true, interfaces: [HOST] },
          join: {
            multicast: { enabled: false },
            'tcp-ip': { enabled: true, 'member-list': this.ports.map((p) => `${HOST}:${p}`) },
          },
          'rest-api': {
            enabled: true,
            'endpoint-groups': { DATA: { enabled: true }, HEALTH_CHECK: { enabled: true }, CLUSTER_READ: { enabled: true } },
          },
        },
        properties: { ...PROPERTIES, ...(this.httpPath ? { 'grid.rest.http-path': this.httpPath } : {}) },
        map: { default: { 'backup-count': BACKUP_COUNT } },
        queue: { default: { 'backup-count': BACKUP_COUNT } },
      },
    };
  }

  /** Spawns member `index` (0..SIZE, SIZE = the spare port); does not wait. */
  spawn(index) {
    const port = this.ports[index];
    const config = path.join(this.dir, `member-${index}.yaml`);
    writeFileSync(config, stringify(this.configFor(port)));
    const child = startChild(`${this.name} member ${index}`, [this.gridBin, 'start', '--config', config], `${this.name}-member-${index}.log`, { cpus: this.cpus });
    const m = { index, port, address: `${HOST}:${port}`, child, uuid: undefined, alive: true, killedByBench: false };
    child.exited.then(({ code, signal }) => {
      m.alive = false;
      if (!m.killedByBench && !child.stoppedByBench) {
        // e.g. a signal from outside: the member logs "signal received" for SIGTERM/SIGINT
        const signalLine = logTail(child.logFile, 400).split('\n').find((l) => l.includes('"signal received'));
        const what = `${child.benchName} ${m.address} (pid ${child.pid}) exited on its own: code ${code}, signal ${signal}` +
          (signalLine ? `; its log: ${signalLine.slice(0, 200)}` : `; log ${path.relative(ROOT, child.logFile)}`);
        unexpectedExits.push(what);
        log(`!! ${what}`);
      }
    });
    this.members[index] = m;
    return m;
  }

  live() {
    return this.members.filter((m) => m && m.alive);
  }

  ports_() {
    return this.live().map((m) => m.port);
  }

  pids() {
    return this.live().map((m) => m.child.pid);
  }

  byAddress(address) {
    return this.members.find((m) => m && m.address === address);
  }

  assertAlive(ms = this.live()) {
    for (const m of ms) {
      if (!m.alive) {
        throw new Error(`${m.child.benchName} exited (code ${m.child.exitCode}, signal ${m.child.signalCode}); log ${path.relative(ROOT, m.child.logFile)}:\n${logTail(m.child.logFile)}`);
      }
    }
  }

  /** /hazelcast/health of every member in `ms` (an Error in place of an answer that failed). */
  async healths(ms = this.live()) {
    return Promise.all(ms.map((m) => getJson(m.port, `${PREFIX}/health`).catch((e) => e)));
  }

  /** Waits until every live member reports clusterSize `n` and clusterSafe. Returns the ms waited. */
  async waitSafe(n, deadlineMs, what) {
    const t0 = performance.now();
    let last = '';
    while (performance.now() - t0 < deadlineMs) {
      this.assertAlive();
      const hs = await this.healths();
      if (hs.every((h) => !(h instanceof Error) && h.clusterSize === n && h.clusterSafe === true)) return performance.now() - t0;
      last = hs.map((h, i) => `${this.live()[i]?.address}: ${h instanceof Error ? h.message : `size ${h.clusterSize} safe ${h.clusterSafe} migrations ${h.migrationQueueSize}`}`).join('; ');
      await sleep(POLL_MS);
    }
    throw new Error(`${what}: not ${n} members + safe within ${deadlineMs / 1000} s; last seen: ${last}`);
  }

  /** Starts members 0..SIZE-1 at once and waits until they form a safe cluster of SIZE. */
  async start() {
    const t0 = performance.now();
    for (let i = 0; i < SIZE; i++) this.spawn(i);
    await this.waitSafe(SIZE, FORM_DEADLINE_MS, `${this.name}: forming`);
    const info = await getJson(this.members[0].port, `${PREFIX}/rest/cluster`);
    for (const v of info.members) {
      const m = this.byAddress(v.address);
      if (m) m.uuid = v.uuid;
    }
    log(
      `${this.name}: ${SIZE} members (pids ${this.pids().join(', ')}, ports ${this.ports_().join(', ')}, spare ${this.ports[SIZE]}) ` +
        `safe in ${Math.round(performance.now() - t0)} ms`,
    );
  }

  /** The member list in join order, as member `m` sees it (first = master). */
  async memberList(m) {
    return (await getJson(m.port, `${PREFIX}/rest/cluster`)).members;
  }

  /** SIGKILLs every member (nothing in them is needed any more) and waits for their exit. */
  async destroy() {
    const live = this.live();
    for (const m of live) {
      m.killedByBench = true;
      m.child.kill('SIGKILL');
    }
    await Promise.all(live.map((m) => m.child.exited));
  }
}

// ---------------------------------------------------------------- loading and checking data

const keyOf = (i) => `k${i}`;

/** Loads entries k0..k<count-1> into `map`, member j of `ports` getting every n-th index. */
export async function loadSpread(ports, map, count, keyFn = keyOf, connectionsPerPort = 8) {
  const n = ports.length;
  const t0 = performance.now();
  const results = await Promise.all(
    ports.map((port, j) => {
      const share = Math.floor(count / n) + (j < count % n ? 1 : 0);
      return pipelinedLoad({
        port,
        map,
        count: share,
        keyOf: (i) => keyFn(i * n + j),
        valueAt: (i) => valueFor(i * n + j),
        connections: connectionsPerPort,
        stallMs: 60_000,
      });
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const statuses = {};
  for (const r of results) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const ok = statuses[200] ?? 0;
  if (ok !== count) throw new Error(`loading ${map}: only ${ok}/${count} answered 200 (${JSON.stringify(statuses)})`);
  return { count, seconds, rate: count / seconds, statuses };
}

/** `k` distinct random integers in [0, n). */
function sampleIndexes(n, k) {
  const set = new Set();
  k = Math.min(k, n);
  while (set.size < k) set.add(Math.floor(Math.random() * n));
  return [...set];
}

/**
 * Reads every sampled key back (GET, keep-alive, requests round-robin over `ports`) and
 * checks 200 + the exact value it was loaded with.
 */
async function verifySample(ports, map, indexes, concurrency = 48) {
  const agents = ports.map(() => new http.Agent({ keepAlive: true, maxSockets: Math.ceil(concurrency / ports.length) }));
  const get = (j, urlPath) =>
    new Promise((resolve) => {
      const req = http.get({ host: HOST, port: ports[j], path: urlPath, agent: agents[j], timeout: 10_000 }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('latin1') }));
        res.on('error', (e) => resolve({ status: 0, body: e.message }));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => resolve({ status: 0, body: e.message }));
    });
  const out = { checked: indexes.length, ok: 0, missing: 0, wrongValue: 0, failed: 0, statuses: {}, examples: [] };
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const n = next++;
      const i = indexes[n];
      const r = await get(n % ports.length, `${PREFIX}/rest/maps/${map}/${keyOf(i)}`);
      out.statuses[r.status] = (out.statuses[r.status] ?? 0) + 1;
      if (r.status === 200 && r.body === valueFor(i)) out.ok++;
      else {
        if (r.status === 200) out.wrongValue++;
        else if (r.status === 204 || r.status === 404) out.missing++;
        else out.failed++;
        if (out.examples.length < 10) out.examples.push({ key: keyOf(i), via: ports[n % ports.length], status: r.status, body: r.body.slice(0, 60) });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const a of agents) a.destroy();
  out.lost = out.checked - out.ok;
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}

const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');

function rssOf(members) {
  return members.map((m) => ({ address: m.address, ...readRss(m.child.pid) }));
}

// ---------------------------------------------------------------- part 1: throughput

/** Launcher and http path of the members of every cluster part (only the throughput part pins them). */
const clusterOptions = (opts, pin = false) => ({
  gridBin: opts.gridBin,
  httpPath: opts.httpPath,
  cpus: pin ? opts.loadGen?.pinning?.server : undefined,
});

async function runClusterThroughput(opts, report, out) {
  const c = await BenchCluster.create('cluster', clusterOptions(opts, true));
  try {
    await c.start();
    const ports = c.ports_();
    const pre = await loadSpread(ports, 'bench', PRELOAD_KEYS, (i) => `key-${i}`);
    log(`cluster: preloaded ${fmtInt(PRELOAD_KEYS)} keys into map 'bench' through the 3 members in ${pre.seconds.toFixed(2)} s`);
    const target = { ports, pids: c.pids() };
    const split = ports.map((_, i) => Math.floor(opts.connections / ports.length) + (i < opts.connections % ports.length ? 1 : 0));
    out.throughput = { members: SIZE, backupCount: BACKUP_COUNT, connectionsPerMember: split, workloads: [] };
    for (const key of CLUSTER_WORKLOADS) {
      const w = WORKLOADS[key];
      log(
        `cluster ${w.name}: ${opts.rounds} round(s), each ${WARMUP_SECONDS} s warm-up + ${opts.duration} s measured, ` +
          `${opts.connections} connections split ${split.join('/')} over the 3 members`,
      );
      const runs = [];
      for (let i = 1; i <= opts.rounds; i++) {
        const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
        c.assertAlive();
        runs.push(await measureWorkload(`cluster${tag}`, target, opts, key));
      }
      const cl = summarize(runs);
      const single = report.workloads.find((x) => x.key === key)?.grid ?? null;
      const entry = {
        key,
        name: w.name,
        cluster: cl,
        single: single && { reqPerSec: single.reqPerSec, p50Ms: single.p50Ms, p99Ms: single.p99Ms, cpuUsPerReq: single.cpuUsPerReq },
        ratio: single ? cl.reqPerSec / single.reqPerSec : null,
        cpuRatio: single ? cl.cpuUsPerReq / single.cpuUsPerReq : null,
        cpuTarget: { ratio: CLUSTER_CPU_RATIO_TARGET, pass: single ? cl.cpuUsPerReq / single.cpuUsPerReq <= CLUSTER_CPU_RATIO_TARGET : null },
        valid: cl.bad === 0,
        rounds: runs,
      };
      out.throughput.workloads.push(entry);
      log(
        `  => median ${fmtInt(cl.reqPerSec)} req/s` +
          (single ? ` (single member ${fmtInt(single.reqPerSec)}, ratio ${entry.ratio.toFixed(2)})` : '') +
          `, µs/req ${fmtUs(cl.cpuUsPerReq)}` +
          (single ? ` (single member ${fmtUs(single.cpuUsPerReq)})` : ''),
      );
      if (!entry.valid) log(`WARNING: cluster ${w.name}: non-2xx responses or errors ${JSON.stringify(cl.statusCodes)}`);
    }
  } finally {
    await c.destroy();
  }
  await runHazelcastCluster(opts, out.throughput);
  await runFloor(opts, out.throughput);
}

/**
 * Hazelcast as a peer in the cluster part (issue 23): SIZE members of the reference version
 * (scripts/hazelcast-reference.mjs) with the same backup count, pinned to the CPU Grid's members
 * had, the same workloads split over their REST ports. Skipped, saying why, without a JDK or
 * Maven, or with --hazelcast off.
 */
async function runHazelcastCluster(opts, t) {
  if (opts.hazelcast === 'off') return;
  const ref = await import('../scripts/hazelcast-reference.mjs');
  try {
    ref.requireJava();
    ref.ensureJar(ref.HAZELCAST_REST_VERSION);
  } catch (e) {
    if (!(e instanceof ref.ReferenceUnavailable)) throw e;
    t.hazelcastSkipped = e.message;
    log(`cluster: Hazelcast peer skipped: ${e.message}`);
    return;
  }
  const ports = await reservePorts(SIZE);
  const members = [];
  try {
    const started = await Promise.allSettled(
      ports.map((port, i) =>
        ref.startHazelcast({
          port,
          members: ports,
          clusterName: 'bench-cluster',
          instanceName: `bench-hz-${i}`,
          groups: ['DATA', 'HEALTH_CHECK', 'CLUSTER_READ'],
          readyPath: '/hazelcast/health/ready',
          properties: PROPERTIES,
          extraXml: `  <map name="default"><backup-count>${BACKUP_COUNT}</backup-count></map>\n  <queue name="default"><backup-count>${BACKUP_COUNT}</backup-count></queue>\n`,
          // As the single-member peer: a server JVM (C2 on), serial GC; a smaller heap each.
          jvmOptions: ['-Xms256m', '-Xmx1g', '-XX:+UseSerialGC', '-Djava.net.preferIPv4Stack=true'],
          startTimeoutMs: FORM_DEADLINE_MS,
        }),
      ),
    );
    for (const r of started) if (r.status === 'fulfilled') members.push(r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const cpus = opts.loadGen?.pinning?.server;
    if (cpus) for (const m of members) execFileSync('taskset', ['-a', '-cp', cpus, String(m.pid)], { stdio: 'ignore' });
    const deadline = Date.now() + FORM_DEADLINE_MS;
    for (;;) {
      const sizes = await Promise.all(ports.map((p) => getJson(p, '/hazelcast/health').then((h) => (h?.clusterSafe ? h.clusterSize : 0), () => 0)));
      if (sizes.every((n) => n === SIZE)) break;
      if (Date.now() > deadline) throw new Error(`Hazelcast cluster did not form: sizes ${sizes.join('/')}`);
      await sleep(POLL_MS);
    }
    log(`cluster: Hazelcast ${members[0].version} x${SIZE} formed on ports ${ports.join(', ')}${cpus ? `, pinned to CPU ${cpus}` : ''}`);
    // One request at a time per connection (Hazelcast's REST server loses pipelined answers).
    const share = Math.ceil(PRELOAD_KEYS / SIZE);
    const pres = await Promise.all(
      ports.map((port, j) => pipelinedLoad({ port, map: 'bench', count: Math.min(share, PRELOAD_KEYS - j * share), keyOf: (i) => `key-${j * share + i}`, connections: 16, batch: 1 })),
    );
    const loaded = pres.reduce((n, r) => n + r.ok, 0);
    if (loaded !== PRELOAD_KEYS) throw new Error(`Hazelcast preload: only ${loaded}/${PRELOAD_KEYS} answered 200`);
    const target = { ports, pids: members.map((m) => m.pid) };
    t.hazelcast = { version: members[0].version };
    for (const entry of t.workloads) {
      const runs = [];
      for (let i = 1; i <= opts.rounds; i++) runs.push(await measureWorkload(`hazelcast cluster${opts.rounds > 1 ? ` ${i}/${opts.rounds}` : ''}`, target, opts, entry.key));
      const h = summarize(runs);
      entry.hazelcast = { reqPerSec: h.reqPerSec, p50Ms: h.p50Ms, p99Ms: h.p99Ms, cpuUsPerReq: h.cpuUsPerReq, bad: h.bad, rounds: runs };
      entry.gridOverHazelcast = entry.cluster.reqPerSec / h.reqPerSec;
      entry.hazelcastCpuOverGrid = h.cpuUsPerReq / entry.cluster.cpuUsPerReq;
      log(`  => Hazelcast cluster ${entry.name}: ${fmtInt(h.reqPerSec)} req/s, µs/req ${fmtUs(h.cpuUsPerReq)}; grid/hazelcast ${entry.gridOverHazelcast.toFixed(2)} req/s, CPU/req hazelcast/grid ${entry.hazelcastCpuOverGrid.toFixed(2)}`);
      if (h.bad) log(`WARNING: Hazelcast cluster ${entry.name}: non-2xx responses or errors ${JSON.stringify(h.statusCodes)}`);
    }
  } catch (e) {
    t.hazelcastError = e.message;
    log(`cluster: Hazelcast part FAILED: ${e.stack ?? e}`);
  } finally {
    await Promise.all(members.map((m) => m.stop()));
  }
}

/**
 * The same workloads against the forwarding floor (bench/bare-net-cluster.mjs): one process,
 * then SIZE processes on the members' CPU, each forwarding 2/3 of the requests and backing up
 * every write, with nothing else to do. Its CPU ratio is what forwarding itself costs on this
 * machine, whatever a member does; Grid's ratio is read against it.
 */
async function runFloor(opts, throughput) {
  const ports = await reservePorts(1 + 2 * SIZE);
  const cpus = opts.loadGen?.pinning?.server;
  const httpPorts = ports.slice(1, 1 + SIZE);
  const peerPorts = ports.slice(1 + SIZE);
  const started = [];
  try {
    const single = startChild('floor 1 process', [FLOOR_SCRIPT, '--index', '0', '--ports', String(ports[0])], 'floor-single.log', { cpus });
    started.push(single);
    const members = httpPorts.map((_, i) => {
      const args = [FLOOR_SCRIPT, '--index', String(i), '--ports', httpPorts.join(','), '--peer-ports', peerPorts.join(',')];
      const child = startChild(`floor member ${i}`, args, `floor-member-${i}.log`, { cpus });
      started.push(child);
      return child;
    });
    await waitReady(single, ports[0]);
    for (let i = 0; i < SIZE; i++) await waitReady(members[i], httpPorts[i]);
    const pre = await pipelinedLoad({ port: ports[0], map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
    if (pre.ok !== PRELOAD_KEYS) throw new Error(`floor preload: only ${pre.ok}/${PRELOAD_KEYS} answered 200`);
    await loadSpread(httpPorts, 'bench', PRELOAD_KEYS, (i) => `key-${i}`);
    const one = { port: ports[0], child: single };
    const all = { ports: httpPorts, pids: members.map((m) => m.pid) };
    for (const entry of throughput.workloads) {
      log(`floor ${entry.name}: ${opts.rounds} round(s) of 1 process + ${SIZE} processes (bench/bare-net-cluster.mjs)`);
      const ones = [];
      const alls = [];
      for (let i = 1; i <= opts.rounds; i++) {
        const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
        ones.push(await measureWorkload(`floor 1${tag}`, one, opts, entry.key));
        alls.push(await measureWorkload(`floor ${SIZE}${tag}`, all, opts, entry.key));
      }
      const a = summarize(ones);
      const b = summarize(alls);
      entry.floor = {
        single: { reqPerSec: a.reqPerSec, cpuUsPerReq: a.cpuUsPerReq },
        cluster: { reqPerSec: b.reqPerSec, cpuUsPerReq: b.cpuUsPerReq },
        cpuRatio: b.cpuUsPerReq / a.cpuUsPerReq,
        valid: a.bad + b.bad === 0,
      };
      log(`  => floor µs/req ${fmtUs(a.cpuUsPerReq)} / ${fmtUs(b.cpuUsPerReq)}, cpu ratio ${entry.floor.cpuRatio.toFixed(2)}`);
    }
  } catch (err) {
    log(`floor part FAILED: ${err.stack ?? err}`);
    throughput.floorError = err.message;
  } finally {
    for (const child of started) child.kill('SIGKILL');
    await Promise.all(started.map((child) => child.exited));
  }
}

// ---------------------------------------------------------------- part 2: failover

/** A fresh 3-member cluster with `entries` entries in map `mem`; fills out.memory. */
async function loadedCluster(opts, name, out) {
  const c = await BenchCluster.create(name, clusterOptions(opts));
  try {
    return await fillCluster(c, opts, name, out);
  } catch (err) {
    await c.destroy();
    throw err;
  }
}

async function fillCluster(c, opts, name, out) {
  await c.start();
  const members = c.live();
  // Warm-up: exercise the put path (JIT, HTTP parser pools, member connections) on another map.
  await loadSpread(c.ports_(), 'warmup', 6000, (i) => `w${i}`);
  await sleep(1000);
  const before = rssOf(members);
  log(`${name}: RSS after warm-up ${before.map((r) => mb(r.rss)).join(', ')}; loading ${fmtInt(opts.entries)} entries through the 3 members`);
  const load = await loadSpread(c.ports_(), 'mem', opts.entries);
  log(`${name}: loaded in ${load.seconds.toFixed(1)} s (${fmtInt(load.rate)} entries/s); waiting until safe`);
  const safeMs = await c.waitSafe(SIZE, SAFE_AFTER_LOAD_DEADLINE_MS, `${name}: after loading`);
  await sleep(2000);
  const after = rssOf(members);
  const delta = after.reduce((n, r, i) => n + r.rss - before[i].rss, 0);
  out.memory = {
    members: SIZE,
    backupCount: BACKUP_COUNT,
    entries: opts.entries,
    valueBytes: VALUE_SIZE,
    loadSeconds: load.seconds,
    loadRate: load.rate,
    safeAfterLoadMs: safeMs,
    perMember: members.map((m, i) => ({ address: m.address, rssBefore: before[i].rss, rssAfter: after[i].rss, rssPeak: after[i].hwm })),
    rssDelta: delta,
    // across the cluster, both copies (owner + backup) counted
    bytesPerEntry: delta / opts.entries,
    bytesPerCopy: delta / (opts.entries * (1 + BACKUP_COUNT)),
  };
  log(
    `${name}: RSS after ${after.map((r) => mb(r.rss)).join(', ')}: +${mb(delta)} in total = ${fmtInt(delta / opts.entries)} bytes/entry ` +
      `with its backup (${fmtInt(out.memory.bytesPerCopy)} per copy)`,
  );
  return c;
}

async function runFailover(opts, out) {
  const f = (out.failover = {});
  const c = await loadedCluster(opts, 'failover', out);
  try {
    return await failover(c, opts, f);
  } catch (err) {
    await c.destroy();
    throw err;
  }
}

async function failover(c, opts, f) {
  const indexes = sampleIndexes(opts.entries, SAMPLE);
  const list = await c.memberList(c.members[0]);
  const master = c.byAddress(list[0].address);
  const victim = c.byAddress(list[list.length - 1].address);
  if (!master || !victim || victim === master) throw new Error(`failover: cannot pick a non-master victim from ${JSON.stringify(list)}`);
  const survivors = c.live().filter((m) => m !== victim);
  const before = await getJson(master.port, '/grid/rest/partitions');
  const victimRow = before.members.find((m) => m.address === victim.address || m.uuid === victim.uuid);
  Object.assign(f, {
    master: master.address,
    victim: victim.address,
    victimOwned: victimRow?.owned ?? null,
    victimBackups: victimRow?.backups ?? null,
    timeoutMs: FAILOVER_DEADLINE_MS,
  });
  log(`failover: kill -9 of ${victim.address} (pid ${victim.child.pid}, not the master ${master.address}; owned ${f.victimOwned}, backups ${f.victimBackups})`);

  const t0 = performance.now();
  victim.killedByBench = true;
  victim.child.kill('SIGKILL');
  let last = '';
  // firstUnsafeMs: first poll where a survivor answered cluster-safe with anything but 200 (right
  // after the kill both still answer 200: the death is not noticed yet, as in Hazelcast)
  const milestones = { allSeeTwoMs: null, partitionTableTwoMs: null, firstUnsafeMs: null, recoveredMs: null };
  while (performance.now() - t0 < FAILOVER_DEADLINE_MS) {
    c.assertAlive(survivors);
    const tick = performance.now();
    const views = await Promise.all(
      survivors.map(async (m) => {
        const [safe, health, parts] = await Promise.all([
          httpRequest(m.port, 'GET', `${PREFIX}/health/cluster-safe`).then((r) => r.status, (e) => e.message),
          getJson(m.port, `${PREFIX}/health`).catch((e) => e),
          getJson(m.port, '/grid/rest/partitions').catch((e) => e),
        ]);
        return { m, safe, health, parts };
      }),
    );
    const at = performance.now() - t0;
    const sizeTwo = views.every((v) => !(v.health instanceof Error) && v.health.clusterSize === SIZE - 1);
    const tableTwo = views.every((v) => !(v.parts instanceof Error) && v.parts.members.length === SIZE - 1);
    const safe = views.every((v) => v.safe === 200);
    if (sizeTwo && milestones.allSeeTwoMs === null) milestones.allSeeTwoMs = at;
    if (tableTwo && milestones.partitionTableTwoMs === null) milestones.partitionTableTwoMs = at;
    if (!safe && milestones.firstUnsafeMs === null) milestones.firstUnsafeMs = at;
    last = views
      .map(
        (v) =>
          `${v.m.address}: cluster-safe ${v.safe}, size ${v.health instanceof Error ? v.health.message : v.health.clusterSize}, ` +
          (v.parts instanceof Error
            ? `partitions ${v.parts.message}`
            : `table members ${v.parts.members.length} migrations ${v.parts.migrationQueueSize} ` +
              v.parts.members.map((x) => `${x.address} ${x.owned}/${x.backups}`).join(' ')),
      )
      .join('; ');
    if (safe && tableTwo) {
      milestones.recoveredMs = at;
      f.finalTables = views.map((v) => ({ address: v.m.address, ...v.parts }));
      break;
    }
    await sleep(Math.max(0, POLL_MS - (performance.now() - tick)));
  }
  Object.assign(f, milestones, { lastSeen: last });
  if (f.recoveredMs === null) {
    f.error = `not recovered within ${FAILOVER_DEADLINE_MS / 1000} s; last seen: ${last}`;
    log(`failover: NOT RECOVERED within ${FAILOVER_DEADLINE_MS / 1000} s (all see 2 members ${sec(f.allSeeTwoMs)}, table 2 members ${sec(f.partitionTableTwoMs)}, first unsafe ${sec(f.firstUnsafeMs)}); last seen: ${last}`);
  } else {
    // Sanity of the final tables: identical on the survivors, every partition an owner and a
    // backup, distinct, both survivors.
    const uuids = new Set(f.finalTables[0].members.map((m) => m.uuid));
    const problems = [];
    for (const t of f.finalTables) {
      if (JSON.stringify(t.partitions) !== JSON.stringify(f.finalTables[0].partitions)) problems.push(`${t.address}: table differs`);
      t.partitions.forEach((row, id) => {
        if (!row[0] || !row[1] || row[0] === row[1] || !uuids.has(row[0]) || !uuids.has(row[1])) problems.push(`${t.address} partition ${id}: ${JSON.stringify(row)}`);
      });
    }
    f.tableProblems = problems.slice(0, 20);
    f.owners = f.finalTables[0].members.map((m) => ({ address: m.address, owned: m.owned, backups: m.backups }));
    delete f.finalTables;
    log(
      `failover: survivors list 2 members after ${sec(f.allSeeTwoMs)}, partition table 2 members after ${sec(f.partitionTableTwoMs)}, ` +
        `first cluster-safe 503 at ${sec(f.firstUnsafeMs)}; cluster-safe 200 on both + table 2 members => recovered in ${sec(f.recoveredMs)}` +
        (problems.length ? `; TABLE PROBLEMS: ${problems.slice(0, 5).join('; ')}` : ''),
    );
  }
  f.sample = await verifySample(survivors.map((m) => m.port), 'mem', indexes);
  log(
    `failover: read back ${fmtInt(f.sample.checked)} random keys through the survivors: ${fmtInt(f.sample.ok)} OK, ` +
      `lost ${f.sample.lost} (missing ${f.sample.missing}, wrong value ${f.sample.wrongValue}, failed ${f.sample.failed}) in ${f.sample.seconds.toFixed(1)} s` +
      (f.sample.lost ? ` ${JSON.stringify(f.sample.examples.slice(0, 3))}` : ''),
  );
  await sleep(1000);
  f.survivorRss = rssOf(survivors);
  return { cluster: c, indexes };
}

// ---------------------------------------------------------------- part 3: join

async function runJoin(opts, out, prior) {
  const j = (out.join = {});
  let c = prior?.cluster;
  let indexes = prior?.indexes;
  if (c && c.live().length === SIZE - 1 && out.failover?.recoveredMs != null) {
    j.setup = 'the 2 survivors of the failover part (holding the entries), + 1 joiner';
  } else {
    if (c) await c.destroy();
    c = await loadedCluster(opts, 'join', out.memory ? {} : out);
    indexes = sampleIndexes(opts.entries, SAMPLE);
    j.setup = `a fresh ${SIZE}-member cluster loaded with the entries, + 1 joiner`;
  }
  try {
    const n = c.live().length + 1;
    const share = PARTITIONS / n;
    Object.assign(j, { membersAfter: n, expectedShare: share, timeoutMs: JOIN_DEADLINE_MS });
    const list = await c.memberList(c.live()[0]);
    const master = c.byAddress(list[0].address) ?? c.live()[0];
    log(`join: starting a member on the spare port ${c.ports[SIZE]} (${j.setup}); its share: ${PARTITIONS}/${n} = ${share.toFixed(1)} partitions`);

    const t0 = performance.now();
    const joiner = c.spawn(SIZE);
    const all = () => c.live();
    let last = '';
    const m = { restUpMs: null, inMemberListMs: null, settledMs: null, allSafeMs: null };
    while (performance.now() - t0 < JOIN_DEADLINE_MS) {
      c.assertAlive();
      const tick = performance.now();
      const at = () => performance.now() - t0;
      if (m.inMemberListMs === null) {
        const l = await c.memberList(master).catch(() => []);
        if (l.some((x) => x.address === joiner.address)) {
          m.inMemberListMs = at();
          joiner.uuid = l.find((x) => x.address === joiner.address).uuid;
        }
      }
      const parts = await getJson(joiner.port, '/grid/rest/partitions').catch((e) => e);
      if (!(parts instanceof Error)) {
        if (m.restUpMs === null) m.restUpMs = at();
        const mine = parts.members.find((x) => x.address === joiner.address || (joiner.uuid && x.uuid === joiner.uuid));
        last = `joiner: migrations ${parts.migrationQueueSize} safe ${parts.clusterSafe} owned ${mine?.owned ?? '-'} backups ${mine?.backups ?? '-'}; ` +
          parts.members.map((x) => `${x.address} ${x.owned}/${x.backups}`).join(' ');
        if (
          m.inMemberListMs !== null &&
          parts.migrationQueueSize === 0 &&
          parts.clusterSafe === true &&
          mine &&
          Math.abs(mine.owned - share) <= 2
        ) {
          m.settledMs = at();
          j.owned = mine.owned;
          j.backups = mine.backups;
          j.table = parts.members.map((x) => ({ address: x.address, owned: x.owned, backups: x.backups }));
          break;
        }
      } else {
        last = `joiner: ${parts.message}`;
      }
      await sleep(Math.max(0, POLL_MS - (performance.now() - tick)));
    }
    Object.assign(j, m, { lastSeen: last });
    if (m.settledMs === null) {
      j.error = `joiner not settled within ${JOIN_DEADLINE_MS / 1000} s; last seen: ${last}`;
      log(`join: NOT SETTLED within ${JOIN_DEADLINE_MS / 1000} s (in member list ${sec(m.inMemberListMs)}); last seen: ${last}`);
    } else {
      j.allSafeMs = await c.waitSafe(n, 30_000, 'join: all members safe').then((ms) => m.settledMs + ms, (e) => ((j.allSafeError = e.message), null));
      log(
        `join: REST up after ${sec(m.restUpMs)}, in the master's member list after ${sec(m.inMemberListMs)}, ` +
          `migrations done + safe + owns ${j.owned} partitions (share ${share.toFixed(1)}) after ${sec(m.settledMs)}; ` +
          `table ${j.table.map((x) => `${x.address} ${x.owned}/${x.backups}`).join(', ')}`,
      );
    }
    j.sample = await verifySample(all().map((x) => x.port), 'mem', indexes);
    log(
      `join: read back ${fmtInt(j.sample.checked)} random keys through all ${all().length} members: ${fmtInt(j.sample.ok)} OK, lost ${j.sample.lost}` +
        (j.sample.lost ? ` ${JSON.stringify(j.sample.examples.slice(0, 3))}` : ''),
    );
    j.rss = rssOf(all());
  } finally {
    await c.destroy();
  }
}

// ---------------------------------------------------------------- entry and report

/** Runs the cluster phases listed in opts.only; fills report.cluster (errors recorded, not thrown, per part). */
export async function runCluster(opts, report) {
  const phases = CLUSTER_PHASES.filter((p) => opts.only.includes(p));
  if (phases.length === 0) return;
  if (opts.target !== 'grid') {
    log(`cluster phases (${phases}) need the real member: skipped with --target ${opts.target}`);
    return;
  }
  // Logs of an earlier run would be mistaken for this one's (which ones exist depends on the phases).
  for (const f of readdirSync(RESULTS_DIR)) if (/^(cluster|failover|join)-member-\d+\.log$/.test(f)) rmSync(path.join(RESULTS_DIR, f));
  const out = (report.cluster = { members: SIZE, backupCount: BACKUP_COUNT, properties: PROPERTIES, errors: [] });
  if (phases.includes('cluster')) {
    try {
      await runClusterThroughput(opts, report, out);
    } catch (err) {
      out.errors.push(`cluster: ${err.message}`);
      log(`cluster part FAILED: ${err.stack ?? err}`);
    }
  }
  let prior = null;
  if (phases.includes('failover')) {
    try {
      prior = await runFailover(opts, out);
    } catch (err) {
      out.errors.push(`failover: ${err.message}`);
      log(`failover part FAILED: ${err.stack ?? err}`);
    }
  }
  if (phases.includes('join')) {
    try {
      await runJoin(opts, out, prior);
    } catch (err) {
      out.errors.push(`join: ${err.message}`);
      log(`join part FAILED: ${err.stack ?? err}`);
    }
  } else if (prior) {
    await prior.cluster.destroy();
  }
  out.unexpectedExits = unexpectedExits.slice();
}

export function renderClusterReport(report) {
  const out = report.cluster;
  if (!out) return '';
  const lines = [];
  const t = out.throughput;
  if (t) {
    lines.push(
      `cluster: ${t.members} members, backup-count ${t.backupCount}; ${report.options.connections} connections split ` +
        `${t.connectionsPerMember.join('/')} over the members' REST ports; ${report.options.rounds} round(s) of ${report.options.duration} s, medians.`,
    );
    lines.push(
      '1 member = the single-member Grid figures above; µs/req = CPU time of all member processes summed / requests; ' +
        `cpu ratio = cluster µs/req / 1 member µs/req, target <= ${CLUSTER_CPU_RATIO_TARGET}`,
    );
    const cols = [
      ['workload', 16, 'l'],
      ['1 member req/s', 14],
      ['cluster req/s', 13],
      ['ratio', 5],
      ['cluster p50', 11],
      ['cluster p99', 11],
      ['µs/req 1/cluster', 16],
      ['cpu ratio', 9],
      ['target', 6],
      ['floor µs/req 1/3', 16],
      ['floor ratio', 11],
      ['cpu% members/gen/other', 22],
      ['errors', 6],
    ];
    const row = (cells) => cells.map((c, i) => (cols[i][2] === 'l' ? String(c).padEnd(cols[i][1]) : String(c).padStart(cols[i][1]))).join('  ').trimEnd();
    lines.push(row(cols.map((c) => c[0])));
    for (const w of t.workloads) {
      const cl = w.cluster;
      lines.push(
        row([
          w.name,
          w.single ? fmtInt(w.single.reqPerSec) : '-',
          fmtInt(cl.reqPerSec),
          w.ratio != null ? w.ratio.toFixed(2) : '-',
          cl.p50Ms.toFixed(2),
          cl.p99Ms.toFixed(2),
          `${w.single ? fmtUs(w.single.cpuUsPerReq) : '-'}/${fmtUs(cl.cpuUsPerReq)}`,
          w.cpuRatio != null ? w.cpuRatio.toFixed(2) : '-',
          w.cpuRatio != null ? (w.cpuTarget.pass ? 'PASS' : 'FAIL') : '-',
          w.floor ? `${fmtUs(w.floor.single.cpuUsPerReq)}/${fmtUs(w.floor.cluster.cpuUsPerReq)}` : '-',
          w.floor ? w.floor.cpuRatio.toFixed(2) + (w.floor.valid ? '' : '!') : '-',
          `${Math.round(cl.serverCpuPct)}/${Math.round(cl.loadGenCpuPct)}/${Math.round(cl.otherCpuPct)}`,
          cl.bad,
        ]),
      );
    }
    for (const w of t.workloads) {
      if (w.cpuRatio == null) continue;
      (report.targetSummary ??= []).push(
        `cluster ${w.name} CPU µs/req ${fmtUs(w.cluster.cpuUsPerReq)} / 1 member ${fmtUs(w.single.cpuUsPerReq)} = ${w.cpuRatio.toFixed(2)} <= ${CLUSTER_CPU_RATIO_TARGET}: ${w.cpuTarget.pass ? 'PASS' : 'FAIL'}` +
          (w.floor ? ` (forwarding floor on this machine: ${w.floor.cpuRatio.toFixed(2)})` : ''),
      );
    }
    if (t.workloads.some((w) => w.floor)) {
      lines.push(
        `floor = bench/bare-net-cluster.mjs: plain net processes that parse HTTP by hand, keep values in a Map, forward 2/3 of the ` +
          `requests to the owner as binary frames batched per turn and back up every write once, nothing else; ` +
          `floor ratio = its ${t.members}-process µs/req over its 1-process µs/req, on the same CPUs: the part of the cpu ratio no member can avoid here` +
          (t.workloads.some((w) => w.floor && !w.floor.valid) ? ' (! = non-2xx answers or errors in a floor run)' : ''),
      );
    }
    if (t.floorError) lines.push(`NOTE: the floor part failed: ${t.floorError}`);
    if (t.hazelcast) {
      lines.push(`hazelcast ${t.hazelcast.version}, ${t.members} members, backup-count ${t.backupCount}, same CPUs and load:`);
      for (const w of t.workloads) {
        if (!w.hazelcast) continue;
        lines.push(
          `  ${w.name.padEnd(16)} hazelcast ${fmtInt(w.hazelcast.reqPerSec).padStart(7)} req/s, p99 ${w.hazelcast.p99Ms.toFixed(2)} ms, µs/req ${fmtUs(w.hazelcast.cpuUsPerReq)}; ` +
            `grid / hazelcast = ${w.gridOverHazelcast.toFixed(2)} req/s; CPU per request hazelcast / grid = ${w.hazelcastCpuOverGrid.toFixed(2)}${w.hazelcast.bad ? ` (errors ${w.hazelcast.bad})` : ''}`,
        );
        (report.targetSummary ??= []).push(`cluster ${w.name} grid/hazelcast ${w.gridOverHazelcast.toFixed(2)} req/s, CPU/req hazelcast/grid ${w.hazelcastCpuOverGrid.toFixed(2)}`);
      }
    }
    if (t.hazelcastSkipped) lines.push(`NOTE: Hazelcast cluster peer skipped: ${t.hazelcastSkipped}`);
    if (t.hazelcastError) lines.push(`NOTE: the Hazelcast cluster part failed: ${t.hazelcastError}`);
    const noisy = t.workloads.flatMap((w) => w.rounds.map((r, i) => [w, r, i]).filter(([, r]) => r.otherCpuPct > 25).map(([w, r, i]) => `${w.name} round ${i + 1} (${Math.round(r.otherCpuPct)}%)`));
    if (noisy.length) lines.push(`NOTE other processes used over 25% of a core during cluster ${noisy.join(', ')}: those runs are noisy`);
    if (t.workloads.some((w) => !w.single)) lines.push('NOTE: no single-member figures for some workloads (run with get,post,queue too to compare)');
    const pin = report.options.loadGen?.pinning;
    lines.push(
      (pin
        ? `NOTE: the ${t.members} members share CPU ${pin.server} (taskset), the load generator has CPU ${pin.gen}: cluster req/s is bounded by one core, not by Grid `
        : `NOTE: ${report.cpus} cores shared by ${t.members} members and the load generator: cluster req/s is bounded by the machine, not by Grid `) +
        `(members' CPU% is of one core, summed). 2/3 of requests land on a member that does not own the key and are forwarded ` +
        `to the owner, and every write (POST, queue offer and poll) also waits for a sync backup round trip; ` +
        `µs/req counts all of that.`,
    );
  }
  const m = out.memory;
  if (m) {
    lines.push(
      `cluster memory: ${fmtInt(m.entries)} entries x ${m.valueBytes} B through ${m.members} members (load ${fmtInt(m.loadRate / 1000)}k entries/s, ` +
        `safe ${sec(m.safeAfterLoadMs)} after): RSS +${mb(m.rssDelta)} = ${fmtInt(m.bytesPerEntry)} bytes/entry with its backup ` +
        `(${fmtInt(m.bytesPerCopy)} per copy); RSS after ${m.perMember.map((x) => mb(x.rssAfter)).join(', ')}`,
    );
  }
  const f = out.failover;
  if (f && f.victim) {
    lines.push(
      `failover: kill -9 of non-master ${f.victim} (owned ${f.victimOwned}, backups ${f.victimBackups}): both survivors list 2 members ` +
        `after ${sec(f.allSeeTwoMs)}, their partition tables after ${sec(f.partitionTableTwoMs)}; ` +
        (f.recoveredMs != null
          ? `cluster-safe 200 on both with that table (backups re-created) => recovered in ${sec(f.recoveredMs)}`
          : `NOT RECOVERED within ${f.timeoutMs / 1000} s`),
    );
    if (f.tableProblems?.length) lines.push(`  TABLE PROBLEMS: ${f.tableProblems.slice(0, 5).join('; ')}`);
    if (f.sample) {
      lines.push(
        `  sample of ${fmtInt(f.sample.checked)} random keys through the survivors: ${fmtInt(f.sample.ok)} OK, lost ${f.sample.lost}` +
          (f.sample.lost ? ` (missing ${f.sample.missing}, wrong ${f.sample.wrongValue}, failed ${f.sample.failed}) LOSS` : ''),
      );
    }
  }
  const j = out.join;
  if (j && j.expectedShare) {
    lines.push(
      `join: ${j.setup}: joiner in the member list after ${sec(j.inMemberListMs)} (process start included); ` +
        (j.settledMs != null
          ? `migrations done, safe, owns ${j.owned} of ${PARTITIONS} partitions (share ${j.expectedShare.toFixed(1)}) + ${j.backups} backups after ${sec(j.settledMs)}`
          : `NOT SETTLED within ${j.timeoutMs / 1000} s`),
    );
    if (j.sample) lines.push(`  sample of ${fmtInt(j.sample.checked)} random keys through all ${j.membersAfter} members: ${fmtInt(j.sample.ok)} OK, lost ${j.sample.lost}`);
  }
  for (const e of out.errors) lines.push(`ERROR ${e}`);
  for (const e of out.unexpectedExits ?? []) lines.push(`ERROR ${e}`);
  return lines.join('\n');
}
