// Data API phase (`--only data-api`): a full scan of a map of `--entries` keys (default
// 1,000,000, 100-byte values) in pages over REST against one real member, as keys and as
// entries: keys (or entries) per second, the member's CPU per key and busy share while it
// scans, its peak RSS, and page latency (p50, p99, max: a page is what a client waits for).
// Every key must come back exactly once.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtInt, httpRequest, log, pipelinedLoad, readCpuMs, readRss } from './lib.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
/** Records in the one big partition of the step measurement (a map of ~27M entries has this many per partition). */
const STEP_RECORDS = 100_000;

import { renderConditionalPut, runConditionalPut } from './data-api-cond.mjs';

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

/** Rounds of the batch comparison; each moves BATCH_SIZE entries each way. */
const BATCH_ROUNDS = 200;
const BATCH_SIZE = 100;

/** One request on a keep-alive agent (a client that reuses its connections, as real ones do). */
function keepAliveRequest(agent, port, method, urlPath, body, contentType) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers, timeout: 10_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Batch against singles: BATCH_ROUNDS rounds of BATCH_SIZE puts then BATCH_SIZE gets, as one
 * batch each, as that many single requests one after another, and as singles 16 at a time
 * (all on keep-alive connections). Entries per second and the member's CPU per entry.
 */
async function batchVsSingles(target) {
  const value = 'v'.repeat(100);
  const ok = (r, what) => {
    if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status}`);
    return r;
  };
  const modes = {
    batch: async (agent, map, keys) => {
      const put = ok(await keepAliveRequest(agent, target.port, 'POST', `/grid/rest/maps/${map}`, JSON.stringify({ put: keys.map((key) => ({ key, value })) }), 'application/json'), 'batch put');
      if (JSON.parse(put.body).put.some((e) => e.status !== 201 && e.status !== 200)) throw new Error('batch put: an entry failed');
      const get = ok(await keepAliveRequest(agent, target.port, 'POST', `/grid/rest/maps/${map}`, JSON.stringify({ get: keys }), 'application/json'), 'batch get');
      if (JSON.parse(get.body).get.some((e) => e.value !== value)) throw new Error('batch get: a value differs');
    },
    'singles, 1 at a time': async (agent, map, keys) => {
      for (const k of keys) ok(await keepAliveRequest(agent, target.port, 'POST', `/grid/rest/maps/${map}/${k}`, value, 'text/plain'), 'put');
      for (const k of keys) if (ok(await keepAliveRequest(agent, target.port, 'GET', `/grid/rest/maps/${map}/${k}`), 'get').body !== value) throw new Error('get: value differs');
    },
    'singles, 16 at a time': async (agent, map, keys) => {
      const run = async (fn) => {
        let next = 0;
        await Promise.all(Array.from({ length: 16 }, async () => { while (next < keys.length) await fn(keys[next++]); }));
      };
      await run(async (k) => ok(await keepAliveRequest(agent, target.port, 'POST', `/grid/rest/maps/${map}/${k}`, value, 'text/plain'), 'put'));
      await run(async (k) => { if (ok(await keepAliveRequest(agent, target.port, 'GET', `/grid/rest/maps/${map}/${k}`), 'get').body !== value) throw new Error('get: value differs'); });
    },
  };
  const results = [];
  for (const [mode, fn] of Object.entries(modes)) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const map = `batch-${results.length}`;
    const cpu0 = readCpuMs(target.pid);
    const t0 = performance.now();
    for (let r = 0; r < BATCH_ROUNDS; r++) await fn(agent, map, Array.from({ length: BATCH_SIZE }, (_, i) => `k${r}-${i}`));
    const seconds = (performance.now() - t0) / 1000;
    const cpuMs = readCpuMs(target.pid) - cpu0;
    agent.destroy();
    const entries = 2 * BATCH_ROUNDS * BATCH_SIZE;
    results.push({ mode, entries, seconds, entriesPerSecond: entries / seconds, memberCpuUsPerEntry: (cpuMs * 1000) / entries });
    log(`data-api: ${mode}: ${fmtInt(entries / seconds)} entries/s, member CPU ${((cpuMs * 1000) / entries).toFixed(1)} µs/entry`);
  }
  return { rounds: BATCH_ROUNDS, size: BATCH_SIZE, results };
}

/** `startMember(opts, logName, { pin })` is run.mjs's: a real member process. */
export async function runDataApi(opts, report, startMember, stopChild) {
  if (!opts.only.includes('data-api')) return;
  const member = await startMember(opts, 'member-data-api.log', { pin: false });
  try {
    const batch = await batchVsSingles({ port: member.port, pid: member.child.pid });
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
    `Data API: batches against single requests, ${d.batch.rounds} rounds of ${d.batch.size} puts then ${d.batch.size} gets (100-byte values), keep-alive, one member:`,
    row(['mode', 'entries', 'seconds', 'entries/s', 'member CPU µs/entry']),
    row(['---', '---:', '---:', '---:', '---:']),
    ...d.batch.results.map((b) => row([b.mode, fmtInt(b.entries), b.seconds.toFixed(1), fmtInt(b.entriesPerSecond), b.memberCpuUsPerEntry.toFixed(1)])),
    `  one event-loop turn of a page's walk (at most ${fmtInt(d.step.budget)} records or ${d.step.budgetMs} ms, over a ${fmtInt(d.step.records)}-entry partition, in a fresh process, ${d.step.steps} steps), CPU time: p50 ${d.step.p50Ms.toFixed(2)} ms, p99 ${d.step.p99Ms.toFixed(2)} ms, max ${d.step.maxMs.toFixed(2)} ms`,
  ].concat(d.cond ? ['', renderConditionalPut(d.cond)] : []).join('\n');
}
