// The cost of "a write reaches its backups only once it is in the owner's log" (docs/persistence.md,
// "A full or failing disk"): two members with persistence (backup-count 1), closed-loop map POSTs
// (16 in flight, 100 B values, random keys of 10,000, alternating between the members) to an
// in-memory map, a persisted map with fsync false and one with fsync true; 3 rounds of 4 s after a
// 2 s warm-up each. Prints req/s and latency p50/p99 per round.
//
//   node bench/persistence-cluster-write.mjs [grid bin] [label]
//
// Run it with this tree's bin/grid.js and with a build of the commit before the change (extract it
// with `git archive <commit> | tar -x -C /tmp/base`, link node_modules, `npx tsc -p tsconfig.build.json`)
// to compare; on a loaded machine compare medians of several runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { freePort } from './lib.mjs';
import os from 'node:os';
import path from 'node:path';

const bin = process.argv[2] ?? new URL('../bin/grid.js', import.meta.url).pathname;
const label = process.argv[3] ?? 'grid';

const ports = [await freePort(), await freePort()];
const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-pcw-'));
const kids = ports.map((port, i) => {
  const cfg = {
    hazelcast: {
      'cluster-name': 'bench',
      network: {
        port: { port, 'auto-increment': false },
        join: { multicast: { enabled: false }, 'tcp-ip': { enabled: true, 'member-list': ports.map((p) => `127.0.0.1:${p}`) } },
        'rest-api': { enabled: true, 'endpoint-groups': { DATA: { enabled: true } } },
      },
      persistence: { enabled: true, 'base-dir': path.join(dir, `m${i}`) },
      map: {
        mem: { 'backup-count': 1 },
        pf: { 'backup-count': 1, 'data-persistence': { enabled: true, fsync: false } },
        pt: { 'backup-count': 1, 'data-persistence': { enabled: true, fsync: true } },
      },
    },
  };
  const f = path.join(dir, `m${i}.yaml`);
  writeFileSync(f, JSON.stringify(cfg)); // JSON is YAML
  return spawn(process.execPath, [bin, 'start', '--config', f], { stdio: 'ignore' });
});
const cleanup = () => {
  for (const k of kids) k.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
};
process.on('exit', cleanup);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function request(port, method, p, body) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) };
    const r = http.request({ host: '127.0.0.1', port, method, path: p, agent, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

const deadline = Date.now() + 60_000;
for (;;) {
  const hs = await Promise.all(ports.map((p) => request(p, 'GET', '/hazelcast/health').then((r) => r.text, () => '')));
  if (hs.every((h) => h.includes('"clusterSize":2') && h.includes('"clusterSafe":true'))) break;
  if (Date.now() > deadline) throw new Error('the two members did not form a safe cluster within 60 s');
  await new Promise((r) => setTimeout(r, 200));
}

const value = 'v'.repeat(100);
async function run(map, seconds, inFlight) {
  const latencies = [];
  let stop = false;
  let n = 0;
  let errors = 0;
  const worker = async () => {
    while (!stop) {
      const key = `k${Math.floor(Math.random() * 10_000)}`;
      const t = process.hrtime.bigint();
      const r = await request(ports[n++ % 2], 'POST', `/hazelcast/rest/maps/${map}/${key}`, value);
      if (r.status !== 200) errors++;
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  const workers = Array.from({ length: inFlight }, worker);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  stop = true;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  const q = (x) => latencies[Math.floor(x * (latencies.length - 1))].toFixed(2);
  return `${map.padEnd(3)} ${String(Math.round(latencies.length / seconds)).padStart(6)} req/s  p50 ${q(0.5)} ms  p99 ${q(0.99)} ms  errors ${errors}`;
}

for (const m of ['mem', 'pf', 'pt']) await run(m, 2, 16);
for (let round = 1; round <= 3; round++) for (const m of ['mem', 'pf', 'pt']) console.log(`${label} round ${round}  ${await run(m, 4, 16)}`);
console.log(`(mem: in-memory map; pf: persisted, fsync false; pt: persisted, fsync true; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')})`);
process.exit(0);
