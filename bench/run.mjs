// Grid benchmark: REST throughput/latency against a bare node:http baseline,
// plus memory cost per map entry. See bench/README.md.
//
//   npm run bench                              # build, then the full default run (real member)
//   node bench/run.mjs --target fake --duration 3 --entries 100000
//   node bench/run.mjs --only get,post --duration 20 --connections 100
//   node bench/run.mjs --only get,post --rounds 5 --duration 5
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
  fmtMs,
  fmtUs,
  freePort,
  log,
  mark,
  measure,
  pipelinedLoad,
  readRss,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  waitReady,
  WORKLOADS,
} from './lib.mjs';
import { CLUSTER_PHASES, renderClusterReport, runCluster } from './cluster.mjs';
import { WAN_PHASES, renderWanReport, runWan, wanProblems } from './wan.mjs';
import { CP_PARTS, CP_PHASES, cpProblems, renderCpReport, runCp } from './cp.mjs';
import { DEFAULT_GRID_BIN, PERSISTENCE_PHASES, persistenceProblems, renderPersistenceReport, runPersistence } from './persistence.mjs';
import { METRICS_PHASES, metricsProblems, renderMetricsReport, runMetrics } from './metrics.mjs';

const TARGETS = { ratio: 0.85, p99Ms: 5, bytesPerEntry: 300 };
const ALL_PHASES = ['get', 'post', 'queue', 'memory', ...METRICS_PHASES, ...CLUSTER_PHASES, ...WAN_PHASES, ...CP_PHASES, ...PERSISTENCE_PHASES];
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
      'grid-bin': { type: 'string', default: process.env.GRID_BENCH_BIN || DEFAULT_GRID_BIN },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      [
        'usage: node bench/run.mjs [options]   (npm run bench -- [options])',
        '  --duration N      measured seconds per run (default 6; each run preceded by a 2 s warm-up)',
        '  --rounds N        bare/grid run pairs per workload, alternating bare, grid, bare, grid... (default 3);',
        '                    the report gives medians over the rounds',
        '  --connections N   autocannon connections (default 50)',
        '  --entries N       entries loaded by the memory phase and by the failover/join phases (default 1000000)',
        '  --only LIST       comma list of get,post,queue,memory (single member), metrics (map GET, metrics off vs on),',
        '                    cluster,failover,join',
        '                    (3-member cluster: same workloads; kill -9 + recovery; a member joining),',
        '                    wan (1-member cluster replicating to another: POST with WAN on/off, lag, full + delta sync)',
        '                    cp (3 CP members: addAndGet via a non-leader and the leader vs map POST, exactly-once check;',
        '                    kill -9 of the CP leader under load, time to the next commit),',
        '                    persistence (POST in-memory vs persisted fsync false/true; restart of 1 member and of 3 with data;',
        '                    bytes on disk per entry)',
        '                    (default all)',
        '  --target T        grid (node bin/grid.js start) | fake (bench/fake-member.mjs)',
        '  --keygen K        pool (pre-built random-key requests, default) | setup (autocannon setupRequest per request)',
        '  --wan-entries N   entries of the WAN full/delta sync (default 1000000; 1% of them diverged for the delta)',
        '  --wan-rate N      writes/s of the WAN lag measurement (default 5000)',
        '  --wan-seconds N   measured seconds of each WAN lag run (default 10, after 2 s warm-up)',
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
        '  --grid-bin PATH   grid launcher of the metrics, persistence and cp phases (default bin/grid.js; env GRID_BENCH_BIN),',
        '                    e.g. a copy built from HEAD; GRID_BENCH_NODE_ARGS adds node options (e.g. --cpu-prof)',
        '',
      ].join('\n'),
    );
    process.exit(0);
  }
  const int = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return n;
  };
  const only = values.only.split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of only) if (!ALL_PHASES.includes(p)) throw new Error(`--only: unknown phase '${p}' (use ${ALL_PHASES})`);
  if (!['grid', 'fake'].includes(values.target)) throw new Error(`--target must be grid or fake`);
  if (!['pool', 'setup'].includes(values.keygen)) throw new Error(`--keygen must be pool or setup`);
  const persistenceParts = values['persistence-parts'].split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of persistenceParts) if (!PERSISTENCE_PARTS.includes(p)) throw new Error(`--persistence-parts: unknown part '${p}' (use ${PERSISTENCE_PARTS})`);
  const persistenceEntries = int('persistence-entries', 1);
  const cpConnections = values['cp-connections'].split(',').map((s) => Number(s.trim()));
  const cpParts = values['cp-parts'].split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of cpParts) if (!CP_PARTS.includes(p)) throw new Error(`--cp-parts: unknown part '${p}' (use ${CP_PARTS})`);
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
    nodeArgs: (process.env.GRID_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  };
}

// ---------------------------------------------------------------- child processes

function writeConfig(port) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'grid.yaml');
  writeFileSync(
    file,
    [
      'hazelcast:',
      '  cluster-name: bench',
      '  network:',
      `    port: { port: ${port}, auto-increment: false }`,
      '    rest-api:',
      '      enabled: true',
      '      endpoint-groups:',
      '        DATA: { enabled: true }',
      '        HEALTH_CHECK: { enabled: true }',
      '        CLUSTER_READ: { enabled: true }',
      '',
    ].join('\n'),
  );
  return file;
}

async function startMember(target, logName) {
  const port = await freePort();
  const config = writeConfig(port);
  let args;
  if (target === 'fake') {
    args = [path.join(BENCH_DIR, 'fake-member.mjs'), '--config', config];
  } else {
    if (!existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
      throw new Error('dist/cli.js is missing: run `npm run build` first (or use --target fake)');
    }
    args = [path.join(ROOT, 'bin', 'grid.js'), 'start', '--config', config];
  }
  const child = startChild(`${target} member`, args, logName);
  const t0 = performance.now();
  await waitReady(child, port);
  log(`${target} member pid ${child.pid} ready on port ${port} in ${Math.round(performance.now() - t0)} ms`);
  return { child, port };
}

async function startBare() {
  const port = await freePort();
  const child = startChild('bare server', [path.join(BENCH_DIR, 'bare-server.mjs'), '--port', String(port)], 'bare.log');
  await waitReady(child, port);
  log(`bare server pid ${child.pid} ready on port ${port}`);
  return { child, port };
}


// ---------------------------------------------------------------- report


function renderReport(report) {
  const lines = [];
  const cols = [
    ['workload', 16, 'l'],
    ['bare req/s', 10],
    ['grid req/s', 10],
    ['ratio', 5],
    ['spread', 9],
    ['grid p50', 8],
    ['grid p99', 8],
    ['bare p99', 8],
    ['µs/req b/g', 11],
    ['cpu% b/g/gen', 12],
    ['errors', 6],
    ['targets', 0, 'l'],
  ];
  const row = (cells) =>
    cells
      .map((c, i) => {
        const [, w, align] = cols[i];
        return align === 'l' ? String(c).padEnd(w) : String(c).padStart(w);
      })
      .join('  ')
      .trimEnd();
  const ms = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
  if (report.workloads.length) {
    const n = report.options.rounds;
    lines.push(
      `${n} round${n > 1 ? 's' : ''} per workload (bare, grid alternating; ${report.options.warmupSeconds} s warm-up + ` +
        `${report.options.duration} s measured each). req/s, p50, cpu%: median over rounds; p99: worst round; latencies in ms.`,
    );
    lines.push(
      'ratio = median grid / median bare; spread = min-max of the per-round grid/bare ratios; ' +
        'µs/req = server CPU time per request (all rounds)',
    );
    lines.push(row(cols.map((c) => c[0])));
  }
  for (const w of report.workloads) {
    const t = w.targets
      ? `ratio>=${TARGETS.ratio} ${mark(w.targets.ratio)}, median p99<${TARGETS.p99Ms}ms ${mark(w.targets.p99)}`
      : '-';
    lines.push(
      row([
        w.name,
        fmtInt(w.bare.reqPerSec),
        fmtInt(w.grid.reqPerSec),
        w.ratio.toFixed(2),
        `${w.spread.min.toFixed(2)}-${w.spread.max.toFixed(2)}`,
        ms(w.grid.p50Ms),
        ms(w.grid.p99Ms),
        ms(w.bare.p99Ms),
        `${fmtUs(w.bare.cpuUsPerReq)}/${fmtUs(w.grid.cpuUsPerReq)}`,
        [w.bare.serverCpuPct, w.grid.serverCpuPct, w.grid.loadGenCpuPct].map((x) => Math.round(x)).join('/'),
        w.bare.bad + w.grid.bad,
        t,
      ]),
    );
  }
  for (const w of report.workloads) {
    if (w.bare.serverCpuPct < 90) {
      lines.push(
        `NOTE ${w.name}: bare server only ${Math.round(w.bare.serverCpuPct)}% busy (median; load-gen ` +
          `${Math.round(w.bare.loadGenCpuPct)}%, other ${Math.round(w.bare.otherCpuPct)}%): baseline not saturated, ratio unreliable`,
      );
    } else if (w.bare.minServerCpuPct < 90) {
      const low = w.rounds
        .filter((r) => r.bare.serverCpuPct < 90)
        .map((r) => `${r.round} (${Math.round(r.bare.serverCpuPct)}%)`);
      lines.push(`NOTE ${w.name}: bare server not saturated in round ${low.join(', ')}: that pair's ratio is unreliable`);
    }
    if (w.targets && w.targets.p99 && w.grid.p99Ms >= TARGETS.p99Ms) {
      lines.push(
        `NOTE ${w.name}: median grid p99 ${fmtMs(w.grid.p99MedianMs)} meets the target, but the worst round had ${fmtMs(w.grid.p99Ms)}`,
      );
    }
  }
  const noisy = report.workloads.flatMap((w) =>
    w.rounds.flatMap((r) =>
      ['bare', 'grid']
        .filter((t) => r[t].otherCpuPct > 25)
        .map((t) => `${w.name} ${t} round ${r.round} (${Math.round(r[t].otherCpuPct)}%)`),
    ),
  );
  if (noisy.length) {
    lines.push(
      `NOTE other processes used over 25% of a core during ${noisy.join(', ')}: those runs are noisy ` +
        `(see the spread; µs/req is less affected)`,
    );
  }
  const m = report.memory;
  if (m) {
    lines.push(
      `memory: ${fmtInt(m.entries)} entries x ${VALUE_SIZE} B: RSS +${(m.rssDelta / 1e6).toFixed(1)} MB = ` +
        `${fmtInt(m.bytesPerEntry)} bytes/entry (load ${fmtInt(m.loadRate / 1000)}k entries/s)  ` +
        `target <=${TARGETS.bytesPerEntry} B/entry ${mark(m.bytesPerEntry <= TARGETS.bytesPerEntry)}`,
    );
    lines.push(
      `        RSS before ${(m.rssBefore / 1e6).toFixed(1)} MB, after ${(m.rssAfter / 1e6).toFixed(1)} MB, ` +
        `peak ${(m.rssPeak / 1e6).toFixed(1)} MB`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

async function runThroughput(opts, report) {
  const phases = opts.only.filter((p) => p in WORKLOADS);
  if (phases.length === 0) return;
  const bare = await startBare();
  const member = await startMember(opts.target, 'member-throughput.log');
  try {
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
        `${w.name}: ${opts.rounds} round(s) of bare + grid, each ${WARMUP_SECONDS} s warm-up + ${opts.duration} s measured, ` +
          `${opts.connections} connections`,
      );
      const requests = () => w.requests(opts);
      const rounds = [];
      for (let i = 1; i <= opts.rounds; i++) {
        const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
        const b = await measure(`bare${tag}`, bare, opts.connections, opts.duration, requests);
        const g = await measure(`grid${tag}`, member, opts.connections, opts.duration, requests);
        rounds.push({ round: i, ratio: g.reqPerSec / b.reqPerSec, bare: b, grid: g });
      }
      const b = summarize(rounds.map((r) => r.bare));
      const g = summarize(rounds.map((r) => r.grid));
      const ratio = g.reqPerSec / b.reqPerSec;
      const perRound = rounds.map((r) => r.ratio);
      const spread = { min: Math.min(...perRound), max: Math.max(...perRound) };
      const valid = b.bad + g.bad === 0;
      log(
        `  => median ${fmtInt(b.reqPerSec)} / ${fmtInt(g.reqPerSec)} req/s, ratio ${ratio.toFixed(2)} ` +
          `(rounds ${perRound.map((x) => x.toFixed(2)).join(', ')}), µs/req ${fmtUs(b.cpuUsPerReq)} / ${fmtUs(g.cpuUsPerReq)}`,
      );
      if (!valid) {
        log(`WARNING: ${w.name} is not a valid run: non-2xx responses or errors (see statusCodes in results/latest.json)`);
      }
      report.workloads.push({
        key,
        name: w.name,
        // bare/grid: summaries over the rounds (medians, worst p99, summed CPU); rounds: every run in full
        bare: b,
        grid: g,
        ratio,
        spread,
        cpuUsPerReqRatio: g.cpuUsPerReq / b.cpuUsPerReq,
        valid,
        targets: w.targets ? { ratio: ratio >= TARGETS.ratio, p99: g.p99MedianMs < TARGETS.p99Ms } : null,
        rounds,
      });
    }
  } finally {
    await stopChild(member.child);
    await stopChild(bare.child);
  }
}

async function runMemory(opts, report) {
  if (!opts.only.includes('memory')) return;
  const member = await startMember(opts.target, 'member-memory.log');
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
}

function gitCommit() {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
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
    commit: gitCommit(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    options: { ...opts, warmupSeconds: WARMUP_SECONDS, pipelining: 1, valueBytes: VALUE_SIZE },
    targets: TARGETS,
    workloads: [],
    memory: null,
  };
  log(
    `target ${opts.target}, ${opts.rounds} round(s) x ${opts.duration} s per run, ${opts.connections} connections, ` +
      `phases ${opts.only}; ` +
      `logs in ${path.relative(ROOT, RESULTS_DIR)}/`,
  );
  try {
    await runThroughput(opts, report);
    await runMemory(opts, report);
    await runMetrics(opts, report);
    await runCluster(opts, report);
    await runWan(opts, report);
    await runCp(opts, report);
    await runPersistence(opts, report);
  } finally {
    // Whatever was measured before a failure is still reported and saved.
    finish(opts, report);
  }
}

function finish(opts, report) {
  const text = [renderReport(report), renderMetricsReport(report), renderClusterReport(report), renderWanReport(report), renderCpReport(report), renderPersistenceReport(report)].filter(Boolean).join('\n');
  process.stdout.write(`\nGrid benchmark (target ${opts.target}, ${report.cpus} CPUs, node ${process.version})\n${text}\n`);
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
  if (wanProblems(report)) {
    process.stdout.write('WARNING: the WAN part found a problem (see above and results/latest.json)\n');
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
