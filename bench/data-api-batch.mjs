// Data API, batches (issue 25): rounds of 100 puts then 100 gets (100-byte values) over REST,
// as one JSON batch each, as one binary batch each (application/vnd.grid.batch), as 100 single
// requests one after another and as singles 16 at a time, all on keep-alive connections, on
// one member and on a 3-member cluster (requests to one member; two thirds of the keys owned
// elsewhere). Entries per second, the CPU of every member per entry, and the load average of
// the machine while it ran (the figures mean little on a machine busy with other work).
// A build without the binary form (`--grid-bin` of an older checkout) answers it 400: the mode
// is reported as not supported.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtInt, log, readCpuMs } from './lib.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
/** Rounds per mode; each moves BATCH_SIZE entries each way. */
const BATCH_ROUNDS = 100;
const BATCH_SIZE = 100;
const VALUE = 'v'.repeat(100);

/** One request on a keep-alive agent (a client that reuses its connections, as real ones do). */
function request(agent, port, method, urlPath, body, contentType) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers, timeout: 30_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, error: res.headers['x-grid-error'] ?? '', body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

class Unsupported extends Error {}

const ok = (r, what) => {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.body.toString().slice(0, 200)}`);
  return r;
};

async function modes() {
  const { BINARY_BATCH_TYPE, encodeBinaryBatch, decodeBinaryResults } = await import(pathToFileURL(path.join(DIST, 'rest/batch-binary.js')).href);
  return {
    'batch, JSON': async (agent, port, map, keys) => {
      const put = ok(await request(agent, port, 'POST', `/grid/rest/maps/${map}`, JSON.stringify({ put: keys.map((key) => ({ key, value: VALUE })) }), 'application/json'), 'batch put');
      if (JSON.parse(put.body).put.some((e) => e.status !== 201 && e.status !== 200)) throw new Error('batch put: an entry failed');
      const get = ok(await request(agent, port, 'POST', `/grid/rest/maps/${map}`, JSON.stringify({ get: keys }), 'application/json'), 'batch get');
      if (JSON.parse(get.body).get.some((e) => e.value !== VALUE)) throw new Error('batch get: a value differs');
    },
    'batch, binary': async (agent, port, map, keys) => {
      const put = await request(agent, port, 'POST', `/grid/rest/maps/${map}`, encodeBinaryBatch(keys.map((key) => ({ op: 'put', key, value: VALUE }))), BINARY_BATCH_TYPE);
      // An older build reads the binary body as JSON and refuses it.
      if (put.status === 400 && /not JSON/.test(put.error)) throw new Unsupported();
      if (decodeBinaryResults(ok(put, 'binary put').body).some((e) => e.status !== 201 && e.status !== 200)) throw new Error('binary put: an entry failed');
      const get = ok(await request(agent, port, 'POST', `/grid/rest/maps/${map}`, encodeBinaryBatch(keys.map((key) => ({ op: 'get', key }))), BINARY_BATCH_TYPE), 'binary get');
      if (decodeBinaryResults(get.body).some((e) => e.value?.toString() !== VALUE)) throw new Error('binary get: a value differs');
    },
    'singles, 1 at a time': async (agent, port, map, keys) => {
      for (const k of keys) ok(await request(agent, port, 'POST', `/grid/rest/maps/${map}/${k}`, VALUE, 'text/plain'), 'put');
      for (const k of keys) if (ok(await request(agent, port, 'GET', `/grid/rest/maps/${map}/${k}`), 'get').body.toString() !== VALUE) throw new Error('get: value differs');
    },
    'singles, 16 at a time': async (agent, port, map, keys) => {
      const run = async (fn) => {
        let next = 0;
        await Promise.all(Array.from({ length: 16 }, async () => { while (next < keys.length) await fn(keys[next++]); }));
      };
      await run(async (k) => ok(await request(agent, port, 'POST', `/grid/rest/maps/${map}/${k}`, VALUE, 'text/plain'), 'put'));
      await run(async (k) => { if (ok(await request(agent, port, 'GET', `/grid/rest/maps/${map}/${k}`), 'get').body.toString() !== VALUE) throw new Error('get: value differs'); });
    },
  };
}

/** Every mode against `port` (the member asked); `pids`: every member's process, for CPU. */
export async function runBatchBench(label, port, pids) {
  const results = [];
  for (const [mode, fn] of Object.entries(await modes())) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const map = `batch-${label.replace(/\W+/g, '-')}-${results.length}`;
    const cpu0 = pids.map(readCpuMs);
    const load0 = os.loadavg()[0];
    const t0 = performance.now();
    try {
      for (let r = 0; r < BATCH_ROUNDS; r++) await fn(agent, port, map, Array.from({ length: BATCH_SIZE }, (_, i) => `k${r}-${i}`));
    } catch (e) {
      agent.destroy();
      if (!(e instanceof Unsupported)) throw e;
      results.push({ mode, unsupported: true });
      log(`data-api batch (${label}): ${mode}: not supported by this build`);
      continue;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpuMs = pids.map(readCpuMs).reduce((a, c, i) => a + c - cpu0[i], 0);
    agent.destroy();
    const entries = 2 * BATCH_ROUNDS * BATCH_SIZE;
    const load = (load0 + os.loadavg()[0]) / 2;
    results.push({ mode, entries, seconds, entriesPerSecond: entries / seconds, memberCpuUsPerEntry: (cpuMs * 1000) / entries, loadAvg1m: load });
    log(`data-api batch (${label}): ${mode}: ${fmtInt(entries / seconds)} entries/s, members' CPU ${((cpuMs * 1000) / entries).toFixed(1)} µs/entry, load ${load.toFixed(2)}`);
  }
  return { label, members: pids.length, rounds: BATCH_ROUNDS, size: BATCH_SIZE, results };
}

export function renderBatchBench(runs) {
  const row = (cells) => `| ${cells.join(' | ')} |`;
  const r0 = runs[0];
  return [
    `Data API: batches against single requests, ${r0.rounds} rounds of ${r0.size} puts then ${r0.size} gets (100-byte values), keep-alive, requests to one member:`,
    row(['members', 'mode', 'entries', 'seconds', 'entries/s', 'members\' CPU µs/entry', 'load avg (1 min)']),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:']),
    ...runs.flatMap((run) =>
      run.results.map((b) =>
        b.unsupported ? row([run.members, b.mode, '–', '–', 'not supported', '–', '–']) : row([run.members, b.mode, fmtInt(b.entries), b.seconds.toFixed(1), fmtInt(b.entriesPerSecond), b.memberCpuUsPerEntry.toFixed(1), b.loadAvg1m.toFixed(2)]),
      ),
    ),
  ].join('\n');
}
