// Grid benchmark: REST throughput/latency against a bare node:http baseline,
// plus memory cost per map entry. See bench/README.md.
//
//   npm run bench                              # build, then the full default run (real member)
//   node bench/run.mjs --target fake --duration 3 --entries 100000
//   node bench/run.mjs --only get,post --duration 20 --connections 100
//   node bench/run.mjs --only get,post --rounds 5 --duration 5
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BENCH_DIR,
  PRELOAD_KEYS,
  RESULTS_DIR,
  ROOT,
  VALUE_SIZE,
  WARMUP_SECONDS,
  children,
  cleanup,
  fmtInt,
  fmtUs,
  median,
  freePort,
  log,
  describeLoadGen,
  httpRequest,
  intOption,
  loadGenSetup,
  measureWorkload,
  pipelinedLoad,
  readRss,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  waitReady,
  WORKLOADS,
  writeBenchConfig,
} from './lib.mjs';
import { CLUSTER_CPU_RATIO_TARGET, CLUSTER_PHASES, renderClusterReport, runCluster } from './cluster.mjs';
import { WAN_PHASES, renderWanReport, runWan, wanProblems } from './wan.mjs';
import { CP_PARTS, CP_PHASES, cpProblems, renderCpReport, runCp } from './cp.mjs';
import { DEFAULT_GRID_BIN, PERSISTENCE_PHASES, persistenceProblems, renderPersistenceReport, runPersistence } from './persistence.mjs';
import { METRICS_PHASES, metricsProblems, renderMetricsReport, runMetrics } from './metrics.mjs';
import { EVENTS_PHASES, eventsProblems, renderEventsReport, runEvents } from './events.mjs';
import { EVICTION_PHASES, renderEvictionReport, runEviction } from './eviction.mjs';
import { TLS_PHASES, renderTlsReport, runTls, tlsProblems } from './tls.mjs';
import { CLIENT_PHASES, clientProblems, renderClientReport, runClient } from './client.mjs';
import { DATA_API_PHASES, renderDataApiReport, runDataApi } from './data-api.mjs';
import { CONSOLE_PHASES, consoleProblems, renderConsoleReport, runConsole } from './console.mjs';
import { SSE_PHASES, renderSseReport, runSse, sseProblems } from './sse.mjs';

// Issue 12's targets: Grid's req/s over the bare node:http server's, per workload; p99 at 50 connections;
// RSS per 100-byte entry; the 3-member cluster's CPU µs/request over the single member's (cluster.mjs).
const TARGETS = { ratio: { get: 1.5, post: 1.4, queue: 1.3 }, p99Ms: 2, bytesPerEntry: 200, clusterCpuRatio: CLUSTER_CPU_RATIO_TARGET };
const passFail = (ok) => (ok ? 'PASS' : 'FAIL');
const ALL_PHASES = ['get', 'post', 'queue', 'memory', ...METRICS_PHASES, ...EVENTS_PHASES, ...EVICTION_PHASES, ...CLUSTER_PHASES, ...WAN_PHASES, ...CP_PHASES, ...PERSISTENCE_PHASES, ...TLS_PHASES, ...CLIENT_PHASES, ...DATA_API_PHASES, ...CONSOLE_PHASES, ...SSE_PHASES];
const PERSISTENCE_PARTS = ['throughput', 'single', 'cluster'];

// ---------------------------------------------------------------- options

function parseOptions() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '6' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      entries: { type: 'string', default: '1000000' },
      only: { type: 'string', default: ALL_PHASES.join(',') },
      target: { type: 'string', default: 'grid' },
      keygen: { type: 'string', default: 'pool' },
      'wan-entries': { type: 'string', default: '1000000' },
      'wan-rate': { type: 'string', default: '5000' },
      'wan-seconds': { type: 'string', default: '10' },
      'wan-cuts': { type: 'string', default: '10,30' },
      'persistence-entries': { type: 'string', default: '1000000' },
      'persistence-cluster-entries': { type: 'string' },
      'persistence-parts': { type: 'string', default: PERSISTENCE_PARTS.join(',') },
      'persistence-no-overwrite': { type: 'boolean', default: false },
      'persistence-dir': { type: 'string' },
      'cp-duration': { type: 'string', default: '5' },
      'cp-connections': { type: 'string', default: '16,50' },
      'cp-failovers': { type: 'string', default: '3' },
      'cp-failover-rate': { type: 'string', default: '0' },
      'cp-parts': { type: 'string', default: CP_PARTS.join(',') },
      'metrics-scrape-ms': { type: 'string', default: '1000' },
      'grid-bin': { type: 'string', default: process.env.GRID_BENCH_BIN || process.env.GRID_BIN || DEFAULT_GRID_BIN },
      'http-path': { type: 'string' },
      'load-gen': { type: 'string', default: 'auto' },
      hazelcast: { type: 'string', default: 'auto' },
      pin: { type: 'string', default: 'auto' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      [
        'usage: node bench/run.mjs [options]   (npm run bench -- [options])',
        '  --duration N      measured seconds per run (default 6; each run preceded by a 2 s warm-up)',
        '  --rounds N        rounds per workload, each bare node:http, bare net, grid in turn (default 3);',
        '                    the report gives medians over the rounds',
        '  --connections N   connections of the load generator (default 50)',
        '  --load-gen G      auto (wrk when it is on PATH, else autocannon; default) | wrk | autocannon:',
        '                    what drives get, post, queue and the cluster workloads',
        '  --hazelcast H     auto (default: a Hazelcast member, scripts/hazelcast-reference.mjs, measured beside Grid in the',
        '                    get, post and queue workloads, on the same CPU, when a JDK and the jar or Maven are here) | off',
        '  --pin P           auto (default: servers/members on CPU 0 with taskset -c 0, wrk on CPU 1, when taskset',
        '                    exists and there are >= 2 CPUs) | off',
        '  --http-path P     node | grid: sets the members\' hazelcast property grid.rest.http-path (default: not set,',
        '                    the member\'s default, grid)',
        '  --entries N       entries loaded by the memory phase, the failover/join phases and the data-api scan (default 1000000)',
        '  --only LIST       comma list of get,post,queue,memory (single member), metrics (map GET, metrics off vs on), events (map GET/POST without/with an entry listener),',
        '                    sse (100 map change streams while a writer PUTs 10,000/s; also run by data-api),',
        '                    cluster,failover,join',
        '                    (3-member cluster: same workloads; kill -9 + recovery; a member joining),',
        '                    wan (1-member cluster replicating to another: POST with WAN on/off, lag, full + delta sync)',
        '                    cp (3 CP members: addAndGet via a non-leader and the leader vs map POST, exactly-once check;',
        '                    kill -9 of the CP leader under load, time to the next commit),',
        '                    persistence (POST in-memory vs persisted fsync false/true; restart of 1 member and of 3 with data;',
        '                    bytes on disk per entry)',
        '                    tls (map GET/POST over HTTPS vs bare node:https and vs plain HTTP; handshakes/s with and without',
        '                    resumption; 3-member cluster CPU per request with member TLS vs without)',
        '                    client (the official Node.js client: map get/set, queue offer/poll, --connections calls outstanding,',
        '                    on 1 member, on 3 with smart routing and on a Hazelcast member, beside REST GET/POST; bench/client.mjs)',
        '                    (default all)',
        '  --target T        grid (node bin/grid.js start) | fake (bench/fake-member.mjs)',
        '  --keygen K        pool (pre-built random-key requests, default) | setup (autocannon setupRequest per request)',
        '  --wan-entries N   entries of the WAN full/delta sync (default 1000000; 1% of them diverged for the delta)',
        '  --wan-rate N      writes/s of the WAN lag measurement (default 5000)',
        '  --wan-seconds N   measured seconds of each WAN lag run (default 10, after 2 s warm-up)',
        '  --wan-cuts S,..   seconds of each WAN link cut of the time-to-resume part (default 10,30; needs root and network namespaces)',
        '  --persistence-entries N          entries of the 1-member restart (default 1000000)',
        '  --persistence-cluster-entries N  entries of the 3-member restart (default 3 x --persistence-entries)',
        '  --persistence-parts LIST         throughput,single,cluster (default all three)',
        '  --persistence-no-overwrite       skip overwriting every key + the kill -9 restart of the 1-member part',
        '  --persistence-dir DIR            where the members\' base-dirs go (default the OS temp dir)',
        '  --cp-duration N   measured seconds of each CP throughput run (default 5, after 2 s warm-up; --rounds rounds)',
        '  --cp-connections LIST  connection counts of the CP throughput runs (default 16,50)',
        '  --cp-failovers N  leader kills of the CP phase, each on a fresh cluster (default 3)',
        '  --cp-failover-rate N  addAndGet/s of the stream during a CP leader kill (default 0 = 16 connections flat out)',
        '  --cp-parts LIST   throughput,failover (default both)',
        '  --metrics-scrape-ms N  how often the metrics phase scrapes /metrics of the member with metrics on (default 1000; 0 = never)',
        '  --grid-bin PATH   grid launcher of every phase (default bin/grid.js; env GRID_BENCH_BIN or GRID_BIN),',
        '                    e.g. a copy built from HEAD; GRID_BENCH_NODE_ARGS adds node options (e.g. --cpu-prof)',
        '',
      ].join('\n'),
    );
    process.exit(0);
  }
  const int = (name, min) => intOption(values, name, min);
  const only = values.only.split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of only) if (!ALL_PHASES.includes(p)) throw new Error(`--only: unknown phase '${p}' (use ${ALL_PHASES})`);
  if (!['grid', 'fake'].includes(values.target)) throw new Error(`--target must be grid or fake`);
  if (!['pool', 'setup'].includes(values.keygen)) throw new Error(`--keygen must be pool or setup`);
  if (values['http-path'] !== undefined && !['node', 'grid'].includes(values['http-path'])) throw new Error('--http-path must be node or grid');
  if (!['auto', 'wrk', 'autocannon'].includes(values['load-gen'])) throw new Error('--load-gen must be auto, wrk or autocannon');
  if (!['auto', 'off'].includes(values.pin)) throw new Error('--pin must be auto or off');
  if (!['auto', 'off'].includes(values.hazelcast)) throw new Error('--hazelcast must be auto or off');
  const persistenceParts = values['persistence-parts'].split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of persistenceParts) if (!PERSISTENCE_PARTS.includes(p)) throw new Error(`--persistence-parts: unknown part '${p}' (use ${PERSISTENCE_PARTS})`);
  const persistenceEntries = int('persistence-entries', 1);
  const cpConnections = values['cp-connections'].split(',').map((s) => Number(s.trim()));
  const cpParts = values['cp-parts'].split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of cpParts) if (!CP_PARTS.includes(p)) throw new Error(`--cp-parts: unknown part '${p}' (use ${CP_PARTS})`);
  const wanCuts = values['wan-cuts'].split(',').map((s) => Number(s.trim()));
  if (wanCuts.length === 0 || !wanCuts.every((n) => Number.isFinite(n) && n > 0)) throw new Error('--wan-cuts must be a comma list of positive numbers of seconds');
  if (cpConnections.length === 0 || !cpConnections.every((n) => Number.isInteger(n) && n >= 1)) throw new Error('--cp-connections must be a comma list of integers >= 1');
  return {
    duration: int('duration', 1),
    rounds: int('rounds', 1),
    connections: int('connections', 1),
    entries: int('entries', 1),
    only,
    target: values.target,
    keygen: values.keygen,
    wanEntries: int('wan-entries', 100),
    wanRate: int('wan-rate', 1),
    wanSeconds: int('wan-seconds', 1),
    wanCuts,
    persistenceEntries,
    persistenceClusterEntries: values['persistence-cluster-entries'] === undefined ? 3 * persistenceEntries : int('persistence-cluster-entries', 1),
    persistenceParts,
    persistenceSkipOverwrite: values['persistence-no-overwrite'],
    persistenceDir: values['persistence-dir'] ? path.resolve(values['persistence-dir']) : undefined,
    cpDuration: int('cp-duration', 1),
    cpConnections,
    cpFailovers: int('cp-failovers', 0),
    cpFailoverRate: int('cp-failover-rate', 0),
    cpParts,
    metricsScrapeMs: int('metrics-scrape-ms', 0),
    gridBin: path.resolve(values['grid-bin']),
    httpPath: values['http-path'] ?? null,
    loadGen: loadGenSetup({ loadGen: values['load-gen'], pin: values.pin }),
    hazelcast: values.hazelcast,
    nodeArgs: (process.env.GRID_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  };
}

// ---------------------------------------------------------------- child processes

/** CPU list the servers under test are pinned to (taskset -c), or undefined. */
const serverCpus = (opts) => opts.loadGen.pinning?.server;

async function startMember(opts, logName, { pin = true } = {}) {
  const target = opts.target;
  const port = await freePort();
  const config = writeBenchConfig(port, { httpPath: opts.httpPath });
  let args;
  if (target === 'fake') {
    args = [path.join(BENCH_DIR, 'fake-member.mjs'), '--config', config];
  } else {
    const cli = path.join(path.dirname(opts.gridBin), '..', 'dist', 'cli.js');
    if (!existsSync(cli)) {
      throw new Error(`${cli} is missing: build it first (or use --target fake)`);
    }
    args = [...opts.nodeArgs, opts.gridBin, 'start', '--config', config];
  }
  const child = startChild(`${target} member`, args, logName, { cpus: pin ? serverCpus(opts) : undefined });
  const t0 = performance.now();
  await waitReady(child, port);
  log(`${target} member pid ${child.pid} ready on port ${port} in ${Math.round(performance.now() - t0)} ms`);
  return { child, port };
}

async function startBare(opts, name, script, logName) {
  const port = await freePort();
  const child = startChild(name, [path.join(BENCH_DIR, script), '--port', String(port)], logName, { cpus: serverCpus(opts) });
  await waitReady(child, port);
  log(`${name} pid ${child.pid} ready on port ${port}`);
  return { child, port };
}


// ---------------------------------------------------------------- report


function renderReport(report) {
  const lines = [];
  const ms = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
  const ratioSpread = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
  const cols = [
    ['', 15, 'l'],
    ['req/s', 8],
    ['min-max req/s', 15],
    ['p50', 6],
    ['p99', 6],
    ['p99 worst', 9],
    ['µs/req', 6],
    ['cpu% server/gen/other', 21],
    ['errors', 6],
  ];
  const row = (cells) =>
    cells
      .map((c, i) => {
        const [, w, align] = cols[i];
        return align === 'l' ? String(c).padEnd(w) : String(c).padStart(w);
      })
      .join('  ')
      .trimEnd();
  if (report.workloads.length) {
    const n = report.options.rounds;
    lines.push(
      `${n} round${n > 1 ? 's' : ''} per workload (bare node:http, bare net, grid in turn; ${report.options.warmupSeconds} s warm-up + ` +
        `${report.options.duration} s measured each, ${report.options.connections} connections). req/s, p50, p99, cpu%: median over the rounds; ` +
        'p99 worst: worst round; latencies in ms; µs/req = server CPU time per request over all rounds; errors = non-2xx + socket errors, warm-ups included.',
    );
  }
  const summary = [];
  for (const w of report.workloads) {
    const ratioTarget = TARGETS.ratio[w.key];
    lines.push('');
    lines.push(`${w.name}`);
    lines.push(row(cols.map((c) => c[0])));
    for (const [label, s] of [['bare node:http', w.bare], ['bare net', w.net], ['grid', w.grid], ...(w.hazelcast ? [[`hazelcast ${report.hazelcast?.version ?? ''}`.trim(), w.hazelcast]] : [])]) {
      lines.push(
        row([
          label,
          fmtInt(s.reqPerSec),
          `${fmtInt(s.minReqPerSec)}-${fmtInt(s.maxReqPerSec)}`,
          ms(s.p50Ms),
          ms(s.p99MedianMs),
          ms(s.p99Ms),
          fmtUs(s.cpuUsPerReq),
          [s.serverCpuPct, s.loadGenCpuPct, s.otherCpuPct].map((x) => Math.round(x)).join('/'),
          s.bad,
        ]),
      );
    }
    const ratioLine =
      `  grid / bare node:http = ${w.ratio.toFixed(2)} (rounds ${ratioSpread(w.rounds.map((r) => r.ratio))})` +
      (ratioTarget ? `  target >= ${ratioTarget}  ${passFail(w.targets.ratio)}` : '');
    const p99Line = `  grid p99 = ${ms(w.grid.p99MedianMs)} ms (median round; worst ${ms(w.grid.p99Ms)})  target <= ${TARGETS.p99Ms} ms  ${passFail(w.targets.p99)}`;
    lines.push(ratioLine, p99Line);
    if (w.hazelcast) {
      lines.push(
        `  grid / hazelcast = ${w.gridOverHazelcast.toFixed(2)} req/s (rounds ${ratioSpread(w.rounds.map((r) => r.hzRatio))}); ` +
          `server CPU per request hazelcast / grid = ${w.hazelcastCpuOverGrid.toFixed(2)}; hazelcast p99 ${ms(w.hazelcast.p99MedianMs)} ms`,
      );
      summary.push(`${w.name} grid/hazelcast ${w.gridOverHazelcast.toFixed(2)} req/s, CPU/req hazelcast/grid ${w.hazelcastCpuOverGrid.toFixed(2)}`);
    }
    // What the ratio would be if both servers had a whole core: req per CPU-second, Grid over bare node:http.
    // Not the target's verdict (that is req/s), but steady when neighbours take CPU away from some runs.
    lines.push(
      `  per server CPU-second: grid / bare node:http = ${(w.bare.cpuUsPerReq / w.grid.cpuUsPerReq).toFixed(2)}, ` +
        `grid / bare net = ${(w.net.cpuUsPerReq / w.grid.cpuUsPerReq).toFixed(2)} (req/s each would reach with a whole core to itself)`,
    );
    lines.push(
      `  grid share of the JS ceiling (bare net) = ${w.share.toFixed(2)} (rounds ${ratioSpread(w.rounds.map((r) => r.share))})`,
    );
    // Rounds where no run of the three had other processes over 25 % of a core: the cleanest pairs.
    const quiet = w.rounds.filter((r) => ['bare', 'net', 'grid'].every((t) => r[t].otherCpuPct <= 25));
    if (quiet.length > 0 && quiet.length < w.rounds.length) {
      lines.push(
        `  quiet rounds only (${quiet.map((r) => r.round).join(', ')} of ${w.rounds.length}: other <= 25 % in all three runs): ` +
          `grid / bare node:http ${quiet.map((r) => r.ratio.toFixed(2)).join(', ')}; grid p99 ${quiet.map((r) => ms(r.grid.p99Ms)).join(', ')} ms; ` +
          `share of bare net ${quiet.map((r) => r.share.toFixed(2)).join(', ')}`,
      );
    } else if (quiet.length === 0) {
      lines.push('  no quiet round (other processes over 25 % of a core in some run of every round): read µs/req rather than req/s');
    }
    const empty = w.key === 'queue' ? w.grid.statusCodes['204'] ?? 0 : 0;
    if (empty) lines.push(`  grid: ${fmtInt(empty)} polls found the queue empty (204, counted as OK) of ${fmtInt(w.grid.responses)} responses`);
    if (ratioTarget) summary.push(`${w.name} grid/bare node:http ${w.ratio.toFixed(2)} >= ${ratioTarget}: ${passFail(w.targets.ratio)}`);
    summary.push(`${w.name} p99 ${ms(w.grid.p99MedianMs)} ms <= ${TARGETS.p99Ms} ms: ${passFail(w.targets.p99)}`);
  }
  for (const w of report.workloads) {
    for (const [label, s, key] of [['bare node:http', w.bare, 'bare'], ['bare net', w.net, 'net']]) {
      const cores = w.rounds.map((r) => r[key].serverCore).filter(Boolean);
      const core = cores.length
        ? `; its CPU ${cores[0].cpu} was ${Math.round(median(cores.map((c) => c.busyPct)))}% busy in all, irq+softirq ` +
          `${Math.round(median(cores.map((c) => c.irqPct)))}% (medians)`
        : '';
      if (s.serverCpuPct < 90) {
        lines.push(
          `NOTE ${w.name}: ${label} server only ${Math.round(s.serverCpuPct)}% busy (median; load-gen ` +
            `${Math.round(s.loadGenCpuPct)}%, other ${Math.round(s.otherCpuPct)}%${core}): not saturated, its figures are a floor`,
        );
      } else if (s.minServerCpuPct < 90) {
        const low = w.rounds.filter((r) => r[key].serverCpuPct < 90).map((r) => `${r.round} (${Math.round(r[key].serverCpuPct)}%)`);
        lines.push(`NOTE ${w.name}: ${label} server not saturated in round ${low.join(', ')}`);
      }
    }
    for (const [label, s] of [['bare node:http', w.bare], ['bare net', w.net], ['grid', w.grid]]) {
      if (s.loadGenCpuPct > 85) {
        lines.push(`NOTE ${w.name}: the load generator used ${Math.round(s.loadGenCpuPct)}% of a core during the ${label} runs (median): it may be the bottleneck there`);
      }
    }
  }
  const noisy = report.workloads.flatMap((w) =>
    w.rounds.flatMap((r) =>
      ['bare', 'net', 'grid']
        .filter((t) => r[t].otherCpuPct > 25)
        .map((t) => `${w.name} ${t} round ${r.round} (${Math.round(r[t].otherCpuPct)}%)`),
    ),
  );
  if (noisy.length) {
    lines.push(
      `NOTE other processes used over 25% of a core during ${noisy.join(', ')}: those runs are noisy ` +
        `(see the min-max; µs/req is less affected)`,
    );
  }
  const rm = report.restMetrics;
  if (rm) {
    if (rm.error) lines.push(`member /metrics at the end of the single-member part: ${rm.error}`);
    else {
      const conns = rm.connections.map((c) => `${c.labels || ''} ${fmtInt(c.value)}`).join(', ') || 'absent';
      const handoffs = rm.handoffs.reduce((n, c) => n + c.value, 0);
      lines.push(
        `member /metrics at the end of the single-member part (http path ${report.options.httpPath ?? 'grid (default)'}): ` +
          `grid_rest_http_connections_total ${conns}; grid_rest_http_handoffs_total ${rm.handoffs.length ? fmtInt(handoffs) : 'absent'} ` +
          `(must be 0: ${passFail(rm.handoffs.length > 0 && handoffs === 0)}); the load generator opened ~${fmtInt(rm.loadGenConnections)} connections to it`,
      );
      summary.push(`grid_rest_http_handoffs_total ${rm.handoffs.length ? handoffs : 'absent'} == 0: ${passFail(rm.handoffs.length > 0 && handoffs === 0)}`);
    }
  }
  if (report.memoryError) {
    lines.push(`ERROR memory: ${report.memoryError}`);
    summary.push('memory: not measured (ERROR above): FAIL');
  }
  const m = report.memory;
  if (m) {
    lines.push(
      `memory: ${fmtInt(m.entries)} entries x ${VALUE_SIZE} B: RSS +${(m.rssDelta / 1e6).toFixed(1)} MB = ` +
        `${fmtInt(m.bytesPerEntry)} bytes/entry (load ${fmtInt(m.loadRate / 1000)}k entries/s)  ` +
        `target <= ${TARGETS.bytesPerEntry} B/entry ${passFail(m.bytesPerEntry <= TARGETS.bytesPerEntry)}`,
    );
    lines.push(
      `        RSS before ${(m.rssBefore / 1e6).toFixed(1)} MB, after ${(m.rssAfter / 1e6).toFixed(1)} MB, ` +
        `peak ${(m.rssPeak / 1e6).toFixed(1)} MB`,
    );
    summary.push(`memory ${fmtInt(m.bytesPerEntry)} B/entry <= ${TARGETS.bytesPerEntry}: ${passFail(m.bytesPerEntry <= TARGETS.bytesPerEntry)}`);
  }
  const hm = report.hazelcastMemory;
  if (hm) {
    lines.push(
      `memory, hazelcast ${report.hazelcast?.version ?? ''}: ${fmtInt(hm.entries)} entries x ${VALUE_SIZE} B: RSS +${(hm.rssDelta / 1e6).toFixed(1)} MB = ` +
        `${fmtInt(hm.bytesPerEntry)} bytes/entry (JVM ${report.hazelcast?.jvmOptions ?? ''}; RSS before ${(hm.rssBefore / 1e6).toFixed(1)} MB, after ${(hm.rssAfter / 1e6).toFixed(1)} MB)`,
    );
    if (m) summary.push(`memory grid ${fmtInt(m.bytesPerEntry)} B/entry, hazelcast ${fmtInt(hm.bytesPerEntry)} B/entry`);
  }
  if (summary.length) report.targetSummary = summary;
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

/** The member's REST connection counters from GET /metrics (grid_rest_http_*). */
async function readRestMetrics(port) {
  try {
    const res = await httpRequest(port, 'GET', '/metrics');
    if (res.status !== 200) return { error: `GET /metrics answered ${res.status}` };
    const pick = (name) =>
      res.body
        .split('\n')
        .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
        .map((l) => {
          const m = /^\S+?(\{[^}]*\})?\s+(\S+)/.exec(l);
          return { labels: m[1] ?? '', value: Number(m[2]) };
        });
    return { handoffs: pick('grid_rest_http_handoffs_total'), connections: pick('grid_rest_http_connections_total') };
  } catch (err) {
    return { error: `GET /metrics: ${err.message}` };
  }
}

async function runThroughput(opts, report) {
  const phases = opts.only.filter((p) => p in WORKLOADS);
  if (phases.length === 0) return;
  const bare = await startBare(opts, 'bare node:http server', 'bare-server.mjs', 'bare.log');
  const net = await startBare(opts, 'bare net server', 'bare-net-server.mjs', 'bare-net.log');
  const member = await startMember(opts, 'member-throughput.log');
  const hz = await startHazelcastPeer(opts, report);
  let loadGenConnections = 0;
  try {
    if (hz && (phases.includes('get') || phases.includes('post'))) {
      const pre = await pipelinedLoad({ port: hz.port, map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
      if (pre.ok !== PRELOAD_KEYS) throw new Error(`Hazelcast preload: only ${pre.ok}/${PRELOAD_KEYS} answered 200 (${JSON.stringify(pre.statuses)})`);
    }
    if (phases.includes('get') || phases.includes('post')) {
      const pre = await pipelinedLoad({ port: member.port, map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
      if (pre.ok !== PRELOAD_KEYS) {
        throw new Error(`preload: only ${pre.ok}/${PRELOAD_KEYS} answered 200 (${JSON.stringify(pre.statuses)})`);
      }
      log(`preloaded ${fmtInt(PRELOAD_KEYS)} keys into map 'bench' in ${pre.seconds.toFixed(2)} s`);
    }
    for (const key of phases) {
      const w = WORKLOADS[key];
      log(
        `${w.name}: ${opts.rounds} round(s) of bare node:http + bare net + grid, each ${WARMUP_SECONDS} s warm-up + ${opts.duration} s measured, ` +
          `${opts.connections} connections, ${opts.loadGen.tool}`,
      );
      const rounds = [];
      for (let i = 1; i <= opts.rounds; i++) {
        const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
        const b = await measureWorkload(`bare node${tag}`, bare, opts, key);
        const n = await measureWorkload(`bare net${tag}`, net, opts, key);
        const g = await measureWorkload(`grid${tag}`, member, opts, key);
        const h = hz ? await measureWorkload(`hazelcast${tag}`, hz.server, opts, key) : undefined;
        loadGenConnections += opts.connections * (opts.loadGen.tool === 'wrk' ? 2 : 1);
        rounds.push({ round: i, ratio: g.reqPerSec / b.reqPerSec, share: g.reqPerSec / n.reqPerSec, bare: b, net: n, grid: g, ...(h ? { hz: h, hzRatio: g.reqPerSec / h.reqPerSec } : {}) });
      }
      const hzSummary = hz ? summarize(rounds.map((r) => r.hz)) : undefined;
      const b = summarize(rounds.map((r) => r.bare));
      const n = summarize(rounds.map((r) => r.net));
      const g = summarize(rounds.map((r) => r.grid));
      const ratio = g.reqPerSec / b.reqPerSec;
      const share = g.reqPerSec / n.reqPerSec;
      const perRound = rounds.map((r) => r.ratio);
      const spread = { min: Math.min(...perRound), max: Math.max(...perRound) };
      const valid = b.bad + n.bad + g.bad === 0;
      log(
        `  => median ${fmtInt(b.reqPerSec)} / ${fmtInt(n.reqPerSec)} / ${fmtInt(g.reqPerSec)} req/s (bare node, bare net, grid), ` +
          `grid/bare node ${ratio.toFixed(2)} (rounds ${perRound.map((x) => x.toFixed(2)).join(', ')}), share of net ${share.toFixed(2)}, ` +
          `µs/req ${fmtUs(b.cpuUsPerReq)} / ${fmtUs(n.cpuUsPerReq)} / ${fmtUs(g.cpuUsPerReq)}`,
      );
      if (!valid) {
        log(`WARNING: ${w.name} is not a valid run: non-2xx responses or errors (see statusCodes in results/latest.json)`);
      }
      const ratioTarget = TARGETS.ratio[key];
      report.workloads.push({
        key,
        name: w.name,
        // bare/net/grid: summaries over the rounds (medians, worst p99, summed CPU); rounds: every run in full
        bare: b,
        net: n,
        grid: g,
        ratio,
        spread,
        share,
        cpuUsPerReqRatio: g.cpuUsPerReq / b.cpuUsPerReq,
        ...(hzSummary ? { hazelcast: hzSummary, gridOverHazelcast: g.reqPerSec / hzSummary.reqPerSec, hazelcastCpuOverGrid: hzSummary.cpuUsPerReq / g.cpuUsPerReq } : {}),
        valid,
        targets: {
          ratioTarget: ratioTarget ?? null,
          ratio: ratioTarget ? ratio >= ratioTarget : null,
          p99Ms: TARGETS.p99Ms,
          p99: g.p99MedianMs <= TARGETS.p99Ms,
        },
        rounds,
      });
    }
    if (opts.target === 'grid') {
      report.restMetrics = { ...(await readRestMetrics(member.port)), loadGenConnections };
      const rm = report.restMetrics;
      log(
        rm.error
          ? `member /metrics: ${rm.error}`
          : `member /metrics: grid_rest_http_handoffs_total ${JSON.stringify(rm.handoffs)}, grid_rest_http_connections_total ${JSON.stringify(rm.connections)}`,
      );
    }
  } finally {
    await hz?.member.stop();
    await stopChild(member.child);
    await stopChild(net.child);
    await stopChild(bare.child);
  }
}

/**
 * Hazelcast as a peer (issue 23): one member of the newest open-source version with the REST
 * API, its JVM pinned to the servers' CPU like Grid's member (taskset -a: every thread), or
 * undefined with the reason in the report when it cannot run here.
 */
async function startHazelcastPeer(opts, report, { pin = true } = {}) {
  if (opts.hazelcast === 'off' || opts.target !== 'grid') return undefined;
  const ref = await import('../scripts/hazelcast-reference.mjs');
  try {
    ref.requireJava();
    ref.ensureJar(ref.HAZELCAST_REST_VERSION);
    const member = await ref.startHazelcast({
      clusterName: 'bench',
      groups: ['DATA', 'HEALTH_CHECK', 'CLUSTER_READ'],
      readyPath: '/hazelcast/health/ready',
      // A server JVM for throughput (C2 on), heap room for the workloads; serial GC on one core.
      jvmOptions: ['-Xms512m', '-Xmx2g', '-XX:+UseSerialGC', '-Djava.net.preferIPv4Stack=true'],
    });
    const cpus = pin ? serverCpus(opts) : undefined;
    if (cpus) execFileSync('taskset', ['-a', '-cp', cpus, String(member.pid)], { stdio: 'ignore' });
    log(`Hazelcast ${member.version} pid ${member.pid} ready on port ${member.port} in ${member.startMs} ms${cpus ? `, pinned to CPU ${cpus}` : ''}`);
    report.hazelcast = { version: member.version, jvmOptions: '-Xms512m -Xmx2g -XX:+UseSerialGC' };
    return { member, port: member.port, server: { ports: [member.port], pids: [member.pid] } };
  } catch (e) {
    if (!(e instanceof ref.ReferenceUnavailable)) throw e;
    log(`Hazelcast peer skipped: ${e.message}`);
    report.hazelcast = { skipped: e.message };
    return undefined;
  }
}

async function runMemory(opts, report) {
  if (!opts.only.includes('memory')) return;
  const member = await startMember(opts, 'member-memory.log', { pin: false });
  try {
    // Warm-up: exercise the put path (JIT, HTTP parser pools) on another map.
    const warm = await pipelinedLoad({ port: member.port, map: 'warmup', count: 5000, keyOf: (i) => `w${i}` });
    if (warm.ok !== warm.count) throw new Error(`memory warm-up: ${JSON.stringify(warm.statuses)}`);
    await sleep(1000);
    const before = readRss(member.child.pid);
    log(`memory: RSS after warm-up ${(before.rss / 1e6).toFixed(1)} MB; loading ${fmtInt(opts.entries)} entries`);
    const load = await pipelinedLoad({ port: member.port, map: 'mem', count: opts.entries, keyOf: (i) => `k${i}` });
    if (load.ok !== opts.entries) {
      throw new Error(`memory load: only ${load.ok}/${opts.entries} answered 200 (${JSON.stringify(load.statuses)})`);
    }
    log(`memory: loaded in ${load.seconds.toFixed(1)} s (${fmtInt(load.rate)} entries/s); settling 2 s`);
    await sleep(2000);
    const after = readRss(member.child.pid);
    const delta = after.rss - before.rss;
    report.memory = {
      entries: opts.entries,
      valueBytes: VALUE_SIZE,
      rssBefore: before.rss,
      rssAfter: after.rss,
      rssPeak: after.hwm,
      rssDelta: delta,
      bytesPerEntry: delta / opts.entries,
      loadSeconds: load.seconds,
      loadRate: load.rate,
      target: { bytesPerEntry: TARGETS.bytesPerEntry, pass: delta / opts.entries <= TARGETS.bytesPerEntry },
    };
  } finally {
    await stopChild(member.child);
  }
  await runHazelcastMemory(opts, report);
}

/**
 * The same measurement on a Hazelcast member (issue 23): RSS of its JVM after the same warm-up,
 * then after loading the same entries. A JVM's RSS follows its committed heap, which grows in
 * steps and is not given back at once: the figure is what the process holds, as for Grid.
 */
async function runHazelcastMemory(opts, report) {
  const hz = await startHazelcastPeer(opts, report, { pin: false });
  if (!hz) return;
  try {
    // One request at a time per connection: Hazelcast's REST server loses answers to pipelined
    // requests (a batch-64 load of 1,000,000 stalled with 610 never answered).
    const unpipelined = { connections: 64, batch: 1 };
    const warm = await pipelinedLoad({ port: hz.port, map: 'warmup', count: 5000, keyOf: (i) => `w${i}`, ...unpipelined });
    if (warm.ok !== warm.count) throw new Error(`Hazelcast memory warm-up: ${JSON.stringify(warm.statuses)}`);
    await sleep(1000);
    const before = readRss(hz.member.pid);
    const load = await pipelinedLoad({ port: hz.port, map: 'mem', count: opts.entries, keyOf: (i) => `k${i}`, ...unpipelined });
    if (load.ok !== opts.entries) throw new Error(`Hazelcast memory load: only ${load.ok}/${opts.entries} answered 200 (${JSON.stringify(load.statuses)})`);
    await sleep(2000);
    const after = readRss(hz.member.pid);
    const delta = after.rss - before.rss;
    report.hazelcastMemory = { entries: opts.entries, rssBefore: before.rss, rssAfter: after.rss, rssDelta: delta, bytesPerEntry: delta / opts.entries, loadRate: load.rate };
    log(`Hazelcast memory: ${fmtInt(opts.entries)} entries, RSS +${(delta / 1e6).toFixed(1)} MB = ${fmtInt(delta / opts.entries)} bytes/entry (load ${fmtInt(load.rate)} entries/s)`);
  } finally {
    await hz.member.stop();
  }
}

function gitCommit(opts) {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    // Another launcher (--grid-bin) runs its own build: the checkout's src/ says nothing about it.
    if (opts.gridBin !== DEFAULT_GRID_BIN) return `${hash} (checkout; members from ${opts.gridBin})`;
    // The member is built from the working tree: say so when src/ differs from that commit.
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${hash}+dirty-src` : hash;
  } catch {
    return null;
  }
}

async function main() {
  const opts = parseOptions();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    date: new Date().toISOString(),
    target: opts.target,
    commit: gitCommit(opts),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    options: { ...opts, warmupSeconds: WARMUP_SECONDS, pipelining: 1, valueBytes: VALUE_SIZE },
    targets: TARGETS,
    loadGen: describeLoadGen(opts.loadGen, opts.connections),
    loadAvgStart: os.loadavg(),
    workloads: [],
    memory: null,
  };
  log(
    `target ${opts.target}, ${opts.rounds} round(s) x ${opts.duration} s per run, ${opts.connections} connections, ` +
      `phases ${opts.only}; grid ${opts.gridBin}, http path ${opts.httpPath ?? 'member default'}; ` +
      `logs in ${path.relative(ROOT, RESULTS_DIR)}/`,
  );
  log(report.loadGen);
  try {
    await runThroughput(opts, report);
    try {
      await runMemory(opts, report);
    } catch (err) {
      // e.g. the loader's connection reset: the later phases still run
      report.memoryError = err.message;
      log(`memory part FAILED: ${err.stack ?? err}`);
    }
    await runMetrics(opts, report);
    await runEvents(opts, report);
    await runEviction(opts, report);
    await runCluster(opts, report);
    await runWan(opts, report);
    await runCp(opts, report);
    await runPersistence(opts, report);
    await runTls(opts, report);
    await runClient(opts, report);
    await runDataApi(opts, report, startMember, stopChild);
    // Also part of data-api (issue 25's fan-out figures).
    await runSse(opts, report);
    await runConsole(opts, report);
  } finally {
    // Whatever was measured before a failure is still reported and saved.
    finish(opts, report);
  }
}

function finish(opts, report) {
  report.loadAvgEnd = os.loadavg();
  const la = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
  const header = [
    `${report.loadGen}`,
    `grid: ${opts.gridBin}, http path ${opts.httpPath ? `${opts.httpPath} (grid.rest.http-path)` : 'member default (grid)'}; ` +
      `load average (1/5/15 min) at the start ${la(report.loadAvgStart)}, at the end ${la(report.loadAvgEnd)}`,
  ].join('\n');
  const parts = [renderReport(report), renderMetricsReport(report), renderEventsReport(report), renderEvictionReport(report), renderClusterReport(report), renderWanReport(report), renderCpReport(report), renderPersistenceReport(report), renderTlsReport(report), renderClientReport(report), renderDataApiReport(report), renderConsoleReport(report), renderSseReport(report)];
  const summary = report.targetSummary?.length ? `\nIssue 12 targets:\n${report.targetSummary.map((t) => `  ${t}`).join('\n')}` : '';
  const text = [header, ...parts].filter(Boolean).join('\n') + summary;
  process.stdout.write(`\nGrid benchmark (target ${opts.target}, ${report.cpus} CPUs, node ${process.version})\n${text}\n`);
  if (report.memoryError) process.exitCode = 1;
  const invalid = report.workloads.filter((w) => !w.valid).map((w) => w.name);
  if (invalid.length) process.stdout.write(`WARNING: invalid (non-2xx/errors): ${invalid.join(', ')}\n`);
  const cl = report.cluster;
  if (cl) {
    const bad = (cl.throughput?.workloads ?? []).filter((w) => !w.valid).map((w) => `cluster ${w.name}`);
    if (bad.length) process.stdout.write(`WARNING: invalid (non-2xx/errors): ${bad.join(', ')}\n`);
    const lost = [cl.failover?.sample, cl.join?.sample].filter((s) => s && s.lost > 0);
    if (cl.errors.length || cl.unexpectedExits?.length || lost.length || (cl.failover && cl.failover.recoveredMs == null) || (cl.join && cl.join.settledMs == null)) {
      process.stdout.write('WARNING: the cluster part found a problem (see above and results/latest.json)\n');
      process.exitCode = 1;
    }
  }
  if (consoleProblems(report)) {
    process.stdout.write('WARNING: the web console is over its size or first-paint goal (see above)\n');
    process.exitCode = 1;
  }
  if (wanProblems(report)) {
    process.stdout.write('WARNING: the WAN part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (sseProblems(report).length > 0) {
    process.stdout.write(`WARNING: the SSE fan-out part found a problem: ${sseProblems(report).join('; ')}\n`);
    process.exitCode = 1;
  }
  if (eventsProblems(report).length > 0) {
    process.stdout.write('WARNING: the events part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (metricsProblems(report).length > 0) {
    process.stdout.write('WARNING: the metrics part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (cpProblems(report)) {
    process.stdout.write('WARNING: the CP part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (persistenceProblems(report)) {
    process.stdout.write('WARNING: the persistence part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (tlsProblems(report)) {
    process.stdout.write('WARNING: the TLS part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  if (clientProblems(report)) {
    process.stdout.write('WARNING: the client part found a problem (see above and results/latest.json)\n');
    process.exitCode = 1;
  }
  report.text = text;
  const out = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(path.join(RESULTS_DIR, 'latest.txt'), `${report.date} commit ${report.commit} node ${report.node} ${report.cpus} CPUs\n${text}\n`);
  process.stdout.write(`\nJSON: ${path.relative(ROOT, out)} (report text also in ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.txt'))})\n`);
}

let shuttingDown = false;
async function onSignal(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${signal}: stopping child processes`);
  await cleanup();
  process.exit(130);
}
process.on('SIGINT', () => void onSignal('SIGINT'));
process.on('SIGTERM', () => void onSignal('SIGTERM'));
// Last resort: never leave members behind, even on an unexpected exit.
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

try {
  await main();
} catch (err) {
  process.stderr.write(`[bench] FAILED: ${err?.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  if (!shuttingDown) await cleanup();
}
