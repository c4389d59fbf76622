// The metrics-history sampler's cost (docs/metrics.md, "Metrics history"):
//
//   npm run build && node bench/sampler.mjs [--idle-seconds 60] [--duration 10] [--rounds 2] [--connections 50]
//
// Two single members of the same build side by side, one with the sampler (the default,
// grid.metrics.history-seconds 600) and one without (history-seconds 0), each with 10,000 keys.
// Idle: both left alone for --idle-seconds; each member's CPU (utime + stime of its process)
// over that time. Under load: the map GET workload of `npm run bench` against each in turn,
// rounds alternating off, on, ...; server CPU µs per request and req/s. Prints a table and
// writes bench/results/sampler.json.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  PRELOAD_KEYS,
  RESULTS_DIR,
  ROOT,
  WORKLOADS,
  cleanup,
  fmtInt,
  fmtUs,
  freePort,
  getJson,
  intOption,
  log,
  measure,
  pipelinedLoad,
  readCpuMs,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  waitReady,
} from './lib.mjs';
import { mkdtempSync } from 'node:fs';

const { values } = parseArgs({
  options: {
    'idle-seconds': { type: 'string', default: '60' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
  },
});
const idleSeconds = intOption(values, 'idle-seconds', 1);
const duration = intOption(values, 'duration', 1);
const rounds = intOption(values, 'rounds', 0);
const connections = intOption(values, 'connections', 1);
const gridBin = path.join(ROOT, 'bin/grid.js');

function configFor(port, historySeconds) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-sampler-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'grid.yaml');
  writeFileSync(
    file,
    [
      'hazelcast:',
      `  cluster-name: bench-sampler-${historySeconds}`,
      '  properties:',
      `    grid.metrics.history-seconds: ${historySeconds}`,
      '  network:',
      `    port: { port: ${port}, auto-increment: false }`,
      '    join: { tcp-ip: { enabled: false } }',
      '    rest-api:',
      '      enabled: true',
      '      endpoint-groups:',
      '        DATA: { enabled: true }',
      '        CLUSTER_READ: { enabled: true }',
      '        HEALTH_CHECK: { enabled: true }',
      '',
    ].join('\n'),
  );
  return file;
}

async function startMember(name, historySeconds) {
  const port = await freePort();
  const child = startChild(`sampler-${name} member`, [gridBin, 'start', '--config', configFor(port, historySeconds)], `sampler-${name}.log`);
  await waitReady(child, port);
  const pre = await pipelinedLoad({ port, map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
  if (pre.ok !== PRELOAD_KEYS) throw new Error(`${name}: preload answered 200 for only ${pre.ok}/${PRELOAD_KEYS}`);
  log(`sampler-${name} member pid ${child.pid} on port ${port}, ${fmtInt(PRELOAD_KEYS)} keys`);
  return { child, port };
}

const report = { idleSeconds, duration, rounds, connections, node: process.version, cpus: os.cpus().length };
const off = await startMember('off', 0);
const on = await startMember('on', 600);
try {
  // Let start-up work (JIT, the preload's garbage) settle before the idle window.
  await sleep(3000);
  log(`idle: ${idleSeconds} s, both members untouched`);
  const c0 = { off: readCpuMs(off.child.pid), on: readCpuMs(on.child.pid) };
  await sleep(idleSeconds * 1000);
  const c1 = { off: readCpuMs(off.child.pid), on: readCpuMs(on.child.pid) };
  const idle = { offMs: c1.off - c0.off, onMs: c1.on - c0.on };
  report.idle = { ...idle, offPctOfCore: (idle.offMs / (idleSeconds * 1000)) * 100, onPctOfCore: (idle.onMs / (idleSeconds * 1000)) * 100, extraMsPerSecond: (idle.onMs - idle.offMs) / idleSeconds };
  log(`  idle CPU: off ${idle.offMs} ms, on ${idle.onMs} ms over ${idleSeconds} s (${report.idle.extraMsPerSecond.toFixed(2)} ms/s more with the sampler)`);
  const h = await getJson(on.port, '/grid/rest/metrics/history?seconds=600');
  report.historyBytes = JSON.stringify(h).length;
  report.historySamples = h.members?.[0]?.history?.times?.length ?? 0;

  const requests = () => WORKLOADS.get.requests({ connections, keygen: 'pool' });
  const load = [];
  for (let i = 1; i <= rounds; i++) {
    const a = await measure(`off ${i}/${rounds}`, off, connections, duration, requests);
    const b = await measure(`on ${i}/${rounds}`, on, connections, duration, requests);
    load.push({ off: a, on: b });
  }
  if (rounds > 0) {
    const s = { off: summarize(load.map((r) => r.off)), on: summarize(load.map((r) => r.on)) };
    report.load = { off: { reqPerSec: s.off.reqPerSec, cpuUsPerReq: s.off.cpuUsPerReq }, on: { reqPerSec: s.on.reqPerSec, cpuUsPerReq: s.on.cpuUsPerReq }, cpuCost: s.on.cpuUsPerReq / s.off.cpuUsPerReq - 1 };
  }
  const lines = [
    '',
    `sampler: idle ${idleSeconds} s; map GET ${duration} s x ${rounds} round(s) at ${connections} connections, off/on alternating`,
    `idle CPU       off ${report.idle.offMs} ms (${report.idle.offPctOfCore.toFixed(2)}% of a core)  on ${report.idle.onMs} ms (${report.idle.onPctOfCore.toFixed(2)}%)  => ${report.idle.extraMsPerSecond.toFixed(2)} ms/s for the sampler`,
    ...(report.load
      ? [`map GET        off ${fmtInt(report.load.off.reqPerSec)} req/s ${fmtUs(report.load.off.cpuUsPerReq)} µs/req  on ${fmtInt(report.load.on.reqPerSec)} req/s ${fmtUs(report.load.on.cpuUsPerReq)} µs/req  => cpu cost ${(report.load.cpuCost * 100).toFixed(1)}%`]
      : []),
    `history        ${report.historySamples} samples held, GET ?seconds=600 answer ${fmtInt(report.historyBytes)} bytes`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  writeFileSync(path.join(RESULTS_DIR, 'sampler.json'), JSON.stringify(report, null, 2));
} finally {
  await stopChild(on.child);
  await stopChild(off.child);
  await cleanup();
}
