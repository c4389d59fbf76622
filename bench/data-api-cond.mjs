// Data API, conditional writes (issue 25): PUT with If-Match against the plain PUT over
// /grid/rest/maps on one real member: requests per second and the member's CPU per request.
// Each connection writes its own keys, so every If-Match holds (a 412 would measure the
// failure path, not the compare-and-set); a key's next ETag is the one its last answer gave.
// `runConditionalPut(port, pid)` is the section of `--only data-api` (bench/data-api.mjs calls
// it); `node bench/data-api-cond.mjs [--seconds 5] [--connections 16]` runs it alone.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, readCpuMs } from './lib.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEYS_PER_CONNECTION = 64;
const VALUE = 'v'.repeat(100);

function put(agent, port, key, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path: `/grid/rest/maps/cond/${key}`, agent, headers: { 'content-length': VALUE.length, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, etag: res.headers.etag }));
    });
    req.on('error', reject);
    req.end(VALUE);
  });
}

/** One mode for `seconds`: `connections` loops, each over its own keys. */
async function drive(port, pid, mode, seconds, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  // Every key exists first, so If-Match has a version to match.
  const etags = new Map();
  for (let c = 0; c < connections; c++) {
    for (let k = 0; k < KEYS_PER_CONNECTION; k++) {
      const key = `c${c}-k${k}`;
      const r = await put(agent, port, key, { 'if-match': '*' }).then((x) => (x.status === 412 ? put(agent, port, key, { 'if-none-match': '*' }) : x));
      if (r.status !== 200) throw new Error(`setup PUT ${key}: HTTP ${r.status}`);
      etags.set(key, r.etag);
    }
  }
  const cpu0 = readCpuMs(pid);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const key = `c${c}-k${i % KEYS_PER_CONNECTION}`;
        const r = await put(agent, port, key, mode === 'if-match' ? { 'if-match': etags.get(key) } : {});
        if (r.status !== 200) throw new Error(`${mode} PUT ${key}: HTTP ${r.status}`);
        if (mode === 'if-match') etags.set(key, r.etag);
        done++;
      }
    }),
  );
  const secondsTaken = (performance.now() - t0) / 1000;
  const cpuMs = readCpuMs(pid) - cpu0;
  agent.destroy();
  return { mode, requests: done, perSecond: done / secondsTaken, memberCpuUsPerRequest: (cpuMs * 1000) / done, memberBusyPct: (100 * cpuMs) / (secondsTaken * 1000) };
}

/** Plain PUT, then PUT with If-Match, then plain again (the load of a shared machine drifts: two plain runs bound it). */
export async function runConditionalPut(port, pid, { seconds = 5, connections = 16 } = {}) {
  const runs = [];
  for (const mode of ['plain', 'if-match', 'plain', 'if-match']) runs.push(await drive(port, pid, mode, seconds, connections));
  return { seconds, connections, runs };
}

export function renderConditionalPut(r) {
  const row = (cells) => `| ${cells.join(' | ')} |`;
  return [
    `Conditional PUT (If-Match, one member, ${r.connections} keep-alive connections, ${r.seconds} s per run, 100-byte values):`,
    row(['mode', 'requests', 'req/s', 'member CPU µs/req', 'member busy']),
    row(['---', '---:', '---:', '---:', '---:']),
    ...r.runs.map((x) => row([x.mode, String(x.requests), x.perSecond.toFixed(0), x.memberCpuUsPerRequest.toFixed(1), `${x.memberBusyPct.toFixed(0)}%`])),
  ].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '16' } } });
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/grid.js'), 'start', path.join(ROOT, 'config/dev.yaml'), '--port', String(port)], {
    env: { ...process.env, HZ_NETWORK_JOIN_TCPIP_ENABLED: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let err = '';
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`member not up in 30 s: ${err}`)), 30_000);
      child.stderr.setEncoding('utf8').on('data', (d) => {
        err += d;
        if (/^REST on port/m.test(err)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`member exited (${code}): ${err}`)));
    });
    const r = await runConditionalPut(port, child.pid, { seconds: Number(values.seconds), connections: Number(values.connections) });
    console.log(renderConditionalPut(r));
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
