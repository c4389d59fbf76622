// Metrics phase (`--only metrics`): what Prometheus metrics cost map GET throughput. Two members
// of the same build run side by side, one with `metrics enabled: true` (the default) scraped
// every --metrics-scrape-ms (default 1 s; Prometheus's default is 15 s, so this is harsher), one
// with `metrics enabled: false` (no REST timing, no process metrics, /metrics 500). Rounds
// alternate off, on, off, on, ... with the same GET workload as the single-member phase, so a
// drift of the machine hits both. Goal: metrics cost < 3% of map GET throughput. See README.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  PRELOAD_KEYS,
  WORKLOADS,
  fmtInt,
  fmtMs,
  fmtUs,
  freePort,
  httpRequest,
  log,
  mark,
  measure,
  pipelinedLoad,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  waitReady,
} from './lib.mjs';

export const METRICS_PHASES = ['metrics'];
/** Highest accepted cost of metrics, as a share of map GET throughput (req/s) and of server CPU per request. */
export const METRICS_COST_GOAL = 0.03;

function configFor(port, enabled) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-metrics-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'grid.yaml');
  writeFileSync(
    file,
    [
      'hazelcast:',
      `  cluster-name: bench-metrics-${enabled ? 'on' : 'off'}`,
      `  metrics: { enabled: ${enabled} }`,
      '  network:',
      `    port: { port: ${port}, auto-increment: false }`,
      '    join: { tcp-ip: { enabled: false } }',
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

async function startMember(opts, enabled) {
  const port = await freePort();
  const name = `metrics-${enabled ? 'on' : 'off'}`;
  const child = startChild(`${name} member`, [...opts.nodeArgs, opts.gridBin, 'start', '--config', configFor(port, enabled)], `${name}.log`);
  await waitReady(child, port);
  const pre = await pipelinedLoad({ port, map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
  if (pre.ok !== PRELOAD_KEYS) throw new Error(`${name}: preload answered 200 for only ${pre.ok}/${PRELOAD_KEYS}`);
  log(`${name} member pid ${child.pid} ready on port ${port}, ${fmtInt(PRELOAD_KEYS)} keys preloaded`);
  return { child, port };
}

// The scraper runs in its own process: in the bench process it would take event-loop time from
// autocannon, the load generator, which is what limits the offered load on 2 cores (it runs at
// ~90 % of a core), and the member's CPU per request rises when it gets fewer requests per turn.
const SCRAPER = `
const http = require('node:http');
const [port, everyMs] = process.argv.slice(1).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopped = false;
process.on('SIGTERM', () => { stopped = true; });
const tick = () => {
  if (stopped) return process.exit(0);
  const t0 = performance.now();
  const done = (status, bytes, error) => {
    process.stdout.write(JSON.stringify({ ms: performance.now() - t0, status, bytes, error }) + '\\n');
    if (stopped) process.exit(0);
    setTimeout(tick, everyMs);
  };
  http.get({ host: '127.0.0.1', port, path: '/metrics', agent }, (res) => {
    let bytes = 0;
    res.on('data', (d) => (bytes += d.length));
    res.on('end', () => done(res.statusCode, bytes));
  }).on('error', (e) => done(0, 0, String(e)));
};
setTimeout(tick, everyMs);
`;

/** Scrape /metrics every `everyMs` (in a child process) until stopped; how long each scrape took and its size. */
function startScraper(port, everyMs) {
  const child = spawn(process.execPath, ['-e', SCRAPER, String(port), String(everyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return out
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
    },
  };
}

export async function runMetrics(opts, report) {
  if (!opts.only.includes('metrics')) return;
  if (opts.target !== 'grid') {
    log('metrics: skipped (needs --target grid)');
    return;
  }
  log(`metrics: grid ${opts.gridBin}; map GET, metrics off vs on (scraped every ${opts.metricsScrapeMs} ms), ${opts.rounds} round(s)`);
  const off = await startMember(opts, false);
  const on = await startMember(opts, true);
  const scrapes = [];
  try {
    const check = await httpRequest(off.port, 'GET', '/metrics');
    if (check.status !== 500) throw new Error(`metrics-off member: GET /metrics answered ${check.status}, expected 500`);
    const requests = () => WORKLOADS.get.requests(opts);
    const rounds = [];
    for (let i = 1; i <= opts.rounds; i++) {
      const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
      const a = await measure(`off${tag}`, off, opts.connections, opts.duration, requests);
      const scraper = opts.metricsScrapeMs > 0 ? startScraper(on.port, opts.metricsScrapeMs) : undefined;
      const b = await measure(`on${tag}`, on, opts.connections, opts.duration, requests);
      if (scraper !== undefined) scrapes.push(...(await scraper.stop()));
      rounds.push({ round: i, ratio: b.reqPerSec / a.reqPerSec, off: a, on: b });
    }
    const s = { off: summarize(rounds.map((r) => r.off)), on: summarize(rounds.map((r) => r.on)) };
    const ratio = s.on.reqPerSec / s.off.reqPerSec;
    const cost = 1 - ratio;
    const cpuCost = s.on.cpuUsPerReq / s.off.cpuUsPerReq - 1;
    const perRound = rounds.map((r) => r.ratio);
    const badScrapes = scrapes.filter((x) => x.status !== 200).length;
    const scrapeMs = scrapes.map((x) => x.ms).sort((x, y) => x - y);
    report.metrics = {
      off: s.off,
      on: s.on,
      ratio,
      cost,
      cpuCost,
      spread: { min: Math.min(...perRound), max: Math.max(...perRound) },
      scrapeEveryMs: opts.metricsScrapeMs,
      scrapes: scrapes.length,
      badScrapes,
      scrapeMedianMs: scrapeMs[Math.floor(scrapeMs.length / 2)] ?? NaN,
      scrapeMaxMs: scrapeMs[scrapeMs.length - 1] ?? NaN,
      scrapeBytes: scrapes.find((x) => x.status === 200)?.bytes ?? 0,
      valid: s.off.bad + s.on.bad === 0 && badScrapes === 0,
      goal: METRICS_COST_GOAL,
      rounds,
    };
    log(
      `  => off ${fmtInt(s.off.reqPerSec)} / on ${fmtInt(s.on.reqPerSec)} req/s: cost ${(cost * 100).toFixed(1)}% ` +
        `(rounds ${perRound.map((x) => x.toFixed(3)).join(', ')}); µs/req ${fmtUs(s.off.cpuUsPerReq)} / ${fmtUs(s.on.cpuUsPerReq)} (${(cpuCost * 100).toFixed(1)}%)`,
    );
  } finally {
    await stopChild(on.child);
    await stopChild(off.child);
  }
}

export function renderMetricsReport(report) {
  const m = report.metrics;
  if (!m) return '';
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  return [
    '',
    `metrics: map GET, metrics off vs on (on scraped every ${m.scrapeEveryMs} ms), ${m.rounds.length} round(s) alternating; req/s, p50, µs/req: median / summed over rounds`,
    `          off req/s  on req/s  cost    spread (on/off)  p50 off/on          p99 off/on          µs/req off/on  cpu cost  target`,
    `map GET   ${fmtInt(m.off.reqPerSec).padStart(9)}  ${fmtInt(m.on.reqPerSec).padStart(8)}  ${pct(m.cost).padStart(6)}  ` +
      `${m.spread.min.toFixed(3)}-${m.spread.max.toFixed(3)}      ${fmtMs(m.off.p50Ms)} / ${fmtMs(m.on.p50Ms)}  ${fmtMs(m.off.p99Ms)} / ${fmtMs(m.on.p99Ms)}  ` +
      `${fmtUs(m.off.cpuUsPerReq)} / ${fmtUs(m.on.cpuUsPerReq)}    ${pct(m.cpuCost).padStart(6)}    <${pct(m.goal)} ${mark(m.cost < m.goal && m.cpuCost < m.goal)}`,
    `          ${m.scrapes} scrapes of ${fmtInt(m.scrapeBytes)} bytes during the on runs: median ${fmtMs(m.scrapeMedianMs)}, max ${fmtMs(m.scrapeMaxMs)}` +
      (m.badScrapes > 0 ? `, ${m.badScrapes} failed` : '') +
      (m.valid ? '' : '  WARNING: not a valid run (errors or failed scrapes)'),
  ].join('\n');
}

export function metricsProblems(report) {
  const m = report.metrics;
  if (!m) return [];
  // A cost over the goal is a MISS in the table, not a failed run: on a shared box it can be noise.
  return m.valid ? [] : ['metrics: errors or failed scrapes'];
}
