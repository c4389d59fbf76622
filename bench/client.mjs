// Hazelcast's Node.js client against one Grid member, beside REST on the same member
// (docs/clients.md, issue 24's first step). Every phase keeps 50 calls outstanding for
// --duration seconds and reports operations per second and the member's CPU µs per operation
// (utime+stime of the member process from /proc, so the load generator's own CPU is not counted).
//
//   npm run build && node bench/client.mjs [--duration 5] [--outstanding 50]
//
// The client runs unisocket (one connection), like the REST phases' 50 keep-alive sockets; on
// one member smart routing would change nothing. The figures are one run on whatever machine
// runs it: compare phases of the same run only.
import net from 'node:net';
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'hazelcast-client';
import {
  BODY,
  HOST,
  PREFIX,
  RESULTS_DIR,
  ROOT,
  ResponseParser,
  cleanup,
  fmtInt,
  fmtUs,
  freePort,
  intOption,
  log,
  readCpuMs,
  startChild,
  stopChild,
  waitReady,
  writeBenchConfig,
} from './lib.mjs';

const KEYS = 10_000;
const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, outstanding: { type: 'string', default: '50' } } });
const DURATION_MS = intOption(values, 'duration', 1) * 1000;
const OUTSTANDING = intOption(values, 'outstanding', 1);

const key = () => `key-${Math.floor(Math.random() * KEYS)}`;

/** Runs `call(lane)` in `OUTSTANDING` lanes, one call in flight each, until the deadline; the member's CPU over that window. */
async function closedLoop(pid, call) {
  const cpu0 = readCpuMs(pid);
  const t0 = performance.now();
  const deadline = t0 + DURATION_MS;
  let ops = 0;
  let errors = 0;
  const lane = async (_, laneIndex) => {
    while (performance.now() < deadline) {
      try {
        await call(laneIndex);
        ops++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: OUTSTANDING }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = readCpuMs(pid) - cpu0;
  return { opsPerSec: ops / seconds, cpuUsPerOp: (cpuMs * 1000) / Math.max(1, ops), ops, errors };
}

/** One keep-alive socket per lane, one request at a time on each (the same shape as the client's 50 outstanding calls). */
async function restLoop(pid, port, request) {
  const sockets = await Promise.all(
    Array.from({ length: OUTSTANDING }, () => new Promise((resolve, reject) => {
      const s = net.connect({ host: HOST, port }, () => resolve(s));
      s.once('error', reject);
      s.setNoDelay(true);
    })),
  );
  const waiters = new Map();
  for (const s of sockets) {
    const parser = new ResponseParser((status) => waiters.get(s)?.(status));
    s.on('data', (chunk) => parser.feed(chunk));
  }
  const calls = sockets.map((s) => () => new Promise((resolve, reject) => {
    waiters.set(s, (status) => (status === 200 || status === 204 ? resolve() : reject(new Error(`HTTP ${status}`))));
    s.write(request());
  }));
  try {
    return await closedLoop(pid, (lane) => calls[lane]());
  } finally {
    for (const s of sockets) s.destroy();
  }
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const port = await freePort();
  const child = startChild('grid member', [path.join(ROOT, 'bin', 'grid.js'), 'start', '--config', writeBenchConfig(port, { dirPrefix: 'grid-bench-client-' })], 'client-member.log');
  await waitReady(child, port);
  log(`member pid ${child.pid} on port ${port}; ${OUTSTANDING} outstanding calls, ${DURATION_MS / 1000} s per phase`);
  const client = await Client.newHazelcastClient({
    clusterName: 'bench',
    network: { clusterMembers: [`${HOST}:${port}`], smartRouting: false },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
  const results = {};
  try {
    const map = await client.getMap('bench');
    const queue = await client.getQueue('benchq');
    for (let i = 0; i < KEYS; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => map.set(`key-${i + j}`, BODY)));
    const phases = [
      ['client map.get', () => closedLoop(child.pid, () => map.get(key()))],
      ['REST GET', () => restLoop(child.pid, port, () => `GET ${PREFIX}/rest/maps/bench/${key()} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`)],
      ['client map.set', () => closedLoop(child.pid, () => map.set(key(), BODY))],
      [
        'REST POST',
        () => restLoop(child.pid, port, () => `POST ${PREFIX}/rest/maps/bench/${key()} HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: text/plain\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`),
      ],
      ['client queue.offer+poll', () => closedLoop(child.pid, async () => {
        await queue.offer(BODY);
        await queue.poll();
      })],
    ];
    for (const [name, run] of phases) {
      const r = await run();
      results[name] = r;
      log(`${name.padEnd(24)} ${fmtInt(r.opsPerSec).padStart(8)} ops/s   member CPU ${fmtUs(r.cpuUsPerOp).padStart(6)} µs/op   errors ${r.errors}`);
    }
    const ratio = results['client map.get'].cpuUsPerOp / results['REST GET'].cpuUsPerOp;
    log(`member CPU per client map.get / per REST GET: ${ratio.toFixed(2)} (issue 24's goal: <= 0.6)`);
    results.getCpuRatio = ratio;
  } finally {
    await client.shutdown();
    await stopChild(child);
    await cleanup();
  }
  writeFileSync(path.join(RESULTS_DIR, 'client.json'), JSON.stringify({ date: new Date().toISOString(), outstanding: OUTSTANDING, durationMs: DURATION_MS, results }, null, 2));
}

main().catch(async (e) => {
  console.error(e);
  await cleanup();
  process.exit(1);
});
