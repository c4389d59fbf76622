// Data API phase (`--only data-api`): a full scan of a map of `--entries` keys (default
// 1,000,000, 100-byte values) in pages over REST against one real member, as keys and as
// entries: keys (or entries) per second, the member's CPU per key and busy share while it
// scans, its peak RSS, and page latency (p50, p99, max: a page is what a client waits for).
// Every key must come back exactly once. Before the scan: batches against single requests on
// one member and on a 3-member cluster, JSON and binary (data-api-batch.mjs); after it the
// conditional PUT (data-api-cond.mjs).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtInt, httpRequest, log, pipelinedLoad, readCpuMs, readRss } from './lib.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
/** Records in the one big partition of the step measurement (a map of ~27M entries has this many per partition). */
const STEP_RECORDS = 100_000;

import { renderConditionalPut, runConditionalPut } from './data-api-cond.mjs';
import { renderBatchBench, runBatchBench } from './data-api-batch.mjs';
import { BenchCluster } from './cluster.mjs';

export const DATA_API_PHASES = ['data-api'];
const LIMIT = 1000;

async function scan(port, map, mode, expected) {
  const pid = port.pid;
  const seen = new Set();
  const pageMs = [];
  let cursor = null;
  let pages = 0;
  let bytes = 0;
  const cpu0 = readCpuMs(pid);
  const t0 = performance.now();
  do {
    const url = `/grid/rest/maps/${map}?${mode}&limit=${LIMIT}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const p0 = performance.now();
    const res = await httpRequest(port.port, 'GET', url);
    pageMs.push(performance.now() - p0);
    if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
    bytes += res.body.length;
    const page = JSON.parse(res.body);
    const items = mode === 'keys' ? page.keys : page.entries.map((e) => e.key);
    for (const k of items) {
      if (seen.has(k)) throw new Error(`${mode} scan: ${k} twice`);
      seen.add(k);
    }
    cursor = page.cursor;
    pages++;
  } while (cursor !== null);
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = readCpuMs(pid) - cpu0;
  if (seen.size !== expected) throw new Error(`${mode} scan: ${seen.size} keys, expected ${expected}`);
  pageMs.sort((a, b) => a - b);
  const q = (f) => pageMs[Math.min(pageMs.length - 1, Math.floor(f * pageMs.length))];
  return {
    mode,
    keys: seen.size,
    pages,
    seconds,
    keysPerSecond: seen.size / seconds,
    memberCpuMs: cpuMs,
    memberCpuUsPerKey: (cpuMs * 1000) / seen.size,
    memberBusyPct: (100 * cpuMs) / (seconds * 1000),
    responseBytes: bytes,
    pageP50Ms: q(0.5),
    pageP99Ms: q(0.99),
    pageMaxMs: pageMs[pageMs.length - 1],
  };
}

/**
 * The longest event-loop turn a page's walk takes: ScanWalk.step with the member's budget
 * (SCAN_STEP_RECORDS) over one partition of STEP_RECORDS entries, in this process (no HTTP).
 */
async function stepTimes() {
  const { EntrySlab } = await import(pathToFileURL(path.join(DIST, 'map/entry-slab.js')).href);
  const { ScanWalk } = await import(pathToFileURL(path.join(DIST, 'map/scan-page.js')).href);
  const { SCAN_STEP_RECORDS, SCAN_STEP_MS, stepDeadline } = await import(pathToFileURL(path.join(DIST, 'map/map-scan.js')).href);
  const slab = new EntrySlab(0);
  const value = 'v'.repeat(100);
  for (let i = 0; i < STEP_RECORDS; i++) slab.put(`k${i}`, value, undefined);
  const steps = [];
  let after;
  let pages = 0;
  // The pages of the partition, in pages of 1000, each walk in steps as the member runs it.
  for (;;) {
    const walk = new ScanWalk(slab, 1000, after, undefined, () => true);
    for (;;) {
      // CPU time, not wall time: on a loaded machine a step's wall time includes time the process was not running.
      const c0 = process.cpuUsage();
      const done = walk.step(SCAN_STEP_RECORDS, stepDeadline());
      const c = process.cpuUsage(c0);
      steps.push((c.user + c.system) / 1000);
      if (done) break;
    }
    pages++;
    if (!walk.selector.full || pages >= 20) break;
    after = walk.selector.max;
  }
  steps.sort((a, b) => a - b);
  return { records: STEP_RECORDS, budget: SCAN_STEP_RECORDS, budgetMs: SCAN_STEP_MS, steps: steps.length, p50Ms: steps[Math.floor(steps.length / 2)], p99Ms: steps[Math.floor(steps.length * 0.99)], maxMs: steps[steps.length - 1] };
}

/** `startMember(opts, logName, { pin })` is run.mjs's: a real member process. */
export async function runDataApi(opts, report, startMember, stopChild) {
  if (!opts.only.includes('data-api')) return;
  const member = await startMember(opts, 'member-data-api.log', { pin: false });
  try {
    const batch = [await runBatchBench('1 member', member.port, [member.child.pid])];
    // The same on 3 members: grouping by owner shows here (two thirds of the keys owned elsewhere).
    const c = await BenchCluster.create('data-api-batch', { gridBin: opts.gridBin });
    try {
      await c.start();
      batch.push(await runBatchBench('3 members', c.live()[0].port, c.pids()));
    } finally {
      await c.destroy();
    }
    const n = opts.entries;
    log(`data-api: loading ${fmtInt(n)} entries`);
    const load = await pipelinedLoad({ port: member.port, map: 'scan', count: n, keyOf: (i) => `k${i}` });
    if (load.ok !== n) throw new Error(`data-api load: only ${load.ok}/${n} answered 200 (${JSON.stringify(load.statuses)})`);
    const rssLoaded = readRss(member.child.pid);
    log(`data-api: loaded in ${load.seconds.toFixed(1)} s; RSS ${(rssLoaded.rss / 1e6).toFixed(0)} MB; scanning`);
    const target = { port: member.port, pid: member.child.pid };
    const keys = await scan(target, 'scan', 'keys', n);
    log(`data-api: keys ${fmtInt(keys.keysPerSecond)}/s`);
    const entries = await scan(target, 'scan', 'entries', n);
    log(`data-api: entries ${fmtInt(entries.keysPerSecond)}/s`);
    const rssAfter = readRss(member.child.pid);
    const step = await stepTimes();
    log(`data-api: walk steps: CPU p50 ${step.p50Ms.toFixed(2)} ms, max ${step.maxMs.toFixed(2)} ms`);
    const cond = await runConditionalPut(member.port, member.child.pid);
    report.dataApi = { batch, entries: n, limit: LIMIT, rssLoaded: rssLoaded.rss, rssAfter: rssAfter.rss, rssPeak: rssAfter.hwm, scans: [keys, entries], step, cond };
  } finally {
    await stopChild(member.child);
  }
}

export function renderDataApiReport(report) {
  const d = report.dataApi;
  if (!d) return '';
  const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
  const row = (cells) => `| ${cells.join(' | ')} |`;
  return [
    '',
    `Data API: full scan of ${fmtInt(d.entries)} keys (100-byte values) in pages of ${d.limit} over REST, one member:`,
    row(['scan', 'pages', 'seconds', 'keys/s', 'member CPU µs/key', 'member busy', 'page p50', 'page p99', 'page max', 'response MB']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...d.scans.map((s) =>
      row([
        s.mode,
        fmtInt(s.pages),
        s.seconds.toFixed(1),
        fmtInt(s.keysPerSecond),
        s.memberCpuUsPerKey.toFixed(2),
        `${s.memberBusyPct.toFixed(0)}%`,
        `${s.pageP50Ms.toFixed(1)} ms`,
        `${s.pageP99Ms.toFixed(1)} ms`,
        `${s.pageMaxMs.toFixed(1)} ms`,
        (s.responseBytes / 1e6).toFixed(0),
      ]),
    ),
    `  member RSS: ${mb(d.rssLoaded)} loaded, ${mb(d.rssAfter)} after both scans, peak ${mb(d.rssPeak)}`,
    '',
    `  one event-loop turn of a page's walk (at most ${fmtInt(d.step.budget)} records or ${d.step.budgetMs} ms, over a ${fmtInt(d.step.records)}-entry partition, in a fresh process, ${d.step.steps} steps), CPU time: p50 ${d.step.p50Ms.toFixed(2)} ms, p99 ${d.step.p99Ms.toFixed(2)} ms, max ${d.step.maxMs.toFixed(2)} ms`,
  ].concat(['', renderBatchBench(d.batch)], d.cond ? ['', renderConditionalPut(d.cond)] : []).join('\n');
}
