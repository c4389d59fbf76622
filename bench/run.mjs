// Grid benchmark: REST throughput/latency against a bare node:http baseline,
// plus memory cost per map entry. See bench/README.md.
//
//   npm run bench                              # build, then the full default run (real member)
//   node bench/run.mjs --target fake --duration 3 --entries 100000
//   node bench/run.mjs --only get,post --duration 20 --connections 100
//   node bench/run.mjs --only get,post --rounds 5 --duration 5
import autocannon from 'autocannon';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const HOST = '127.0.0.1';
const PREFIX = '/hazelcast';
const VALUE_SIZE = 100;
const PRELOAD_KEYS = 10_000;
const WARMUP_SECONDS = 2;
const READY_DEADLINE_MS = 30_000;
const TARGETS = { ratio: 0.85, p99Ms: 5, bytesPerEntry: 300 };
const CLK_TCK = 100; // USER_HZ, 100 on every mainstream Linux
const ALL_PHASES = ['get', 'post', 'queue', 'memory'];

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
        '  --entries N       entries loaded by the memory phase (default 1000000)',
        '  --only LIST       comma list of get,post,queue,memory (default all)',
        '  --target T        grid (node bin/grid.js start) | fake (bench/fake-member.mjs)',
        '  --keygen K        pool (pre-built random-key requests, default) | setup (autocannon setupRequest per request)',
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
  return {
    duration: int('duration', 1),
    rounds: int('rounds', 1),
    connections: int('connections', 1),
    entries: int('entries', 1),
    only,
    target: values.target,
    keygen: values.keygen,
  };
}

// ---------------------------------------------------------------- child processes

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
const tempDirs = [];

function log(msg) {
  process.stdout.write(`[bench] ${msg}\n`);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

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

/** Spawns `node <args>` with stdout/stderr going to bench/results/<logName>. */
function startChild(name, args, logName) {
  const logFile = path.join(RESULTS_DIR, logName);
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  children.add(child);
  child.benchName = name;
  child.logFile = logFile;
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  child.once('error', (err) => log(`${name}: spawn error: ${err.message}`));
  return child;
}

function logTail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function stopChild(child, graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([child.exited, timer])) === 'timeout') {
    log(`${child.benchName} (pid ${child.pid}) ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    child.kill('SIGKILL');
    await child.exited;
  }
}

async function cleanup() {
  await Promise.all([...children].map((c) => stopChild(c)));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function httpRequest(port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: HOST, port, method, path: urlPath, agent: false, timeout: 2000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

async function waitReady(child, port) {
  const deadline = Date.now() + READY_DEADLINE_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${child.benchName} exited (code ${child.exitCode}, signal ${child.signalCode}) before becoming ready; ` +
          `log ${path.relative(ROOT, child.logFile)}:\n${logTail(child.logFile)}`,
      );
    }
    try {
      const res = await httpRequest(port, 'GET', `${PREFIX}/health/ready`);
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.message;
    }
    await sleep(100);
  }
  throw new Error(
    `${child.benchName} not ready within ${READY_DEADLINE_MS / 1000} s (last: ${last}); ` +
      `log ${path.relative(ROOT, child.logFile)}:\n${logTail(child.logFile)}`,
  );
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

/** CPU time (user+system) consumed so far by a process, from /proc/<pid>/stat (ms). */
function readCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime
}

/**
 * CPU time (ms, summed over all cores) the machine spent running processes so far
 * (user+nice+system+steal). irq/softirq are left out: on loopback they are mostly
 * the benchmark's own network traffic, not other processes.
 */
function readSystemBusyMs() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , , , steal] = f;
  return ((user + nice + system + (steal || 0)) * 1000) / CLK_TCK;
}

/** Resident set size of a process, from /proc/<pid>/status (bytes). */
function readRss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(m[1]) * 1024;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

// ---------------------------------------------------------------- pipelined raw loader

function valueFor(i) {
  return `v${i}:`.padEnd(VALUE_SIZE, 'x');
}

/** Finds the end of a chunked body starting at `pos`; -1 if incomplete. */
function chunkedEnd(buf, pos) {
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', pos, 'latin1');
    if (lineEnd < 0) return -1;
    const size = parseInt(buf.toString('latin1', pos, lineEnd).split(';')[0], 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size in response');
    if (size === 0) {
      if (buf.length < lineEnd + 4) return -1;
      if (buf[lineEnd + 2] === 13 && buf[lineEnd + 3] === 10) return lineEnd + 4;
      const trailerEnd = buf.indexOf('\r\n\r\n', lineEnd + 2, 'latin1');
      return trailerEnd < 0 ? -1 : trailerEnd + 4;
    }
    pos = lineEnd + 2 + size + 2;
    if (pos > buf.length) return -1;
  }
}

/** Minimal HTTP/1.1 response framer: calls onResponse(status) per complete response. */
class ResponseParser {
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.rest = null;
  }

  feed(chunk) {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    let off = 0;
    while (off < buf.length) {
      const headEnd = buf.indexOf('\r\n\r\n', off, 'latin1');
      if (headEnd < 0) break;
      const head = buf.toString('latin1', off, headEnd);
      if (!head.startsWith('HTTP/1.')) throw new Error(`malformed response: ${JSON.stringify(head.slice(0, 60))}`);
      const status = Number(head.slice(9, 12));
      const bodyStart = headEnd + 4;
      let end;
      const cl = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
      if (status === 204 || status === 304 || status < 200) end = bodyStart;
      else if (cl) end = bodyStart + Number(cl[1]);
      else if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) end = chunkedEnd(buf, bodyStart);
      else throw new Error(`response without Content-Length or chunked encoding: ${JSON.stringify(head)}`);
      if (end < 0 || end > buf.length) break;
      off = end;
      if (status >= 200) this.onResponse(status);
    }
    this.rest = off < buf.length ? buf.subarray(off) : null;
  }
}

/**
 * PUTs `count` entries (POST /rest/maps/<map>/<keyOf(i)>) over `connections`
 * raw keep-alive sockets, each writing `batch` requests at once and waiting for
 * all their responses before the next batch. Resolves with status counts.
 */
function pipelinedLoad({ port, map, count, keyOf, connections = 16, batch = 64, stallMs = 30_000 }) {
  return new Promise((resolve, reject) => {
    const head = (key) =>
      `POST ${PREFIX}/rest/maps/${map}/${key} HTTP/1.1\r\nHost: ${HOST}:${port}\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${VALUE_SIZE}\r\n\r\n`;
    const statuses = {};
    const sockets = [];
    let next = 0;
    let answered = 0;
    let open = 0;
    let settled = false;
    let lastProgress = Date.now();
    let lastAnswered = 0;
    const t0 = performance.now();

    const finish = (err) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      for (const s of sockets) s.destroy();
      if (err) reject(err);
      else {
        const seconds = (performance.now() - t0) / 1000;
        resolve({ count, answered, ok: statuses[200] ?? 0, statuses, seconds, rate: count / seconds });
      }
    };
    const watchdog = setInterval(() => {
      if (answered !== lastAnswered) {
        lastAnswered = answered;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress > stallMs) {
        finish(new Error(`loader stalled: ${answered}/${count} answered, no progress for ${stallMs / 1000} s`));
      }
    }, 1000);

    const nConn = Math.max(1, Math.min(connections, Math.ceil(count / batch)));
    for (let c = 0; c < nConn; c++) {
      const sock = net.connect({ host: HOST, port, noDelay: true });
      sockets.push(sock);
      open++;
      let pending = 0;
      const sendBatch = () => {
        if (next >= count) {
          sock.end();
          if (--open === 0) finish();
          return;
        }
        const start = next;
        const end = Math.min(count, start + batch);
        next = end;
        pending = end - start;
        let out = '';
        for (let i = start; i < end; i++) out += head(keyOf(i)) + valueFor(i);
        sock.write(out, 'latin1');
      };
      const parser = new ResponseParser((status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        answered++;
        if (--pending === 0) sendBatch();
      });
      sock.on('connect', sendBatch);
      sock.on('data', (d) => {
        try {
          parser.feed(d);
        } catch (err) {
          finish(err);
        }
      });
      sock.on('error', (err) => finish(new Error(`loader socket error: ${err.message}`)));
      sock.on('close', () => {
        if (pending > 0) finish(new Error(`loader connection closed with ${pending} responses pending`));
      });
    }
  });
}

// ---------------------------------------------------------------- autocannon runs

/** Latency histogram with 10 µs buckets up to 10 s (autocannon's own is whole ms). */
class Latency {
  constructor() {
    this.buckets = new Uint32Array(1_000_001);
    this.count = 0;
  }

  record(ms) {
    this.buckets[Math.min(1_000_000, Math.floor(ms * 100))]++;
    this.count++;
  }

  percentile(p) {
    if (this.count === 0) return NaN;
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i];
      if (seen >= rank) return (i + 1) / 100; // upper bound of the bucket
    }
    return NaN;
  }
}

/**
 * One autocannon run of WARMUP_SECONDS + `duration`: the first WARMUP_SECONDS
 * (connection setup, building the request pool, JIT on both sides) are not
 * reported; req/s, latency, status codes and CPU are taken over the following
 * `duration` seconds only, from autocannon's per-response events. autocannon's
 * own whole-run totals (warm-up included) are kept as `wholeRun`.
 */
async function cannon(server, connections, duration, requests) {
  const { port, child } = server;
  const latency = new Latency();
  const statusCodes = {};
  let count = 0;
  let errors = 0;
  let timeouts = 0;
  let inWindow = false;
  let cpu0 = 0;
  let self0 = null;
  let windowStart = 0;
  let measured = null;

  const instance = autocannon({
    url: `http://${HOST}:${port}`,
    connections,
    pipelining: 1,
    duration: WARMUP_SECONDS + duration + 5, // safety cap; stopped explicitly below
    timeout: 10,
    requests: requests(),
  });
  instance.on('response', (_client, status, _bytes, responseTime) => {
    if (!inWindow) return;
    count++;
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    latency.record(responseTime);
  });
  instance.on('reqError', (err) => {
    if (!inWindow) return;
    errors++;
    if (/timed out/.test(err?.message)) timeouts++;
  });

  await sleep(WARMUP_SECONDS * 1000);
  cpu0 = readCpuMs(child.pid);
  const sys0 = readSystemBusyMs();
  self0 = process.cpuUsage();
  windowStart = performance.now();
  inWindow = true;
  await sleep(duration * 1000);
  inWindow = false;
  const wall = performance.now() - windowStart;
  const self = process.cpuUsage(self0);
  measured = {
    serverCpuMs: readCpuMs(child.pid) - cpu0,
    selfCpuMs: (self.user + self.system) / 1000,
    systemCpuMs: readSystemBusyMs() - sys0,
    wall,
  };
  instance.stop();
  const r = await instance;

  const non2xx = Object.entries(statusCodes).reduce((n, [code, c]) => (code.startsWith('2') ? n : n + c), 0);
  return {
    reqPerSec: count / (measured.wall / 1000),
    responses: count,
    windowSeconds: measured.wall / 1000,
    p50Ms: latency.percentile(50),
    p99Ms: latency.percentile(99),
    maxMs: latency.percentile(100),
    non2xx,
    errors,
    timeouts,
    statusCodes,
    serverCpuMs: measured.serverCpuMs,
    // Server CPU time per answered request in the window (µs): unlike req/s, this
    // barely depends on how much CPU the machine left the server.
    serverCpuUsPerReq: count ? (measured.serverCpuMs * 1000) / count : NaN,
    serverCpuPct: (measured.serverCpuMs / measured.wall) * 100,
    loadGenCpuPct: (measured.selfCpuMs / measured.wall) * 100,
    // Everything else on the machine (other processes, kernel) during the window.
    otherCpuPct: (Math.max(0, measured.systemCpuMs - measured.serverCpuMs - measured.selfCpuMs) / measured.wall) * 100,
    wholeRun: {
      seconds: r.duration,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([k, v]) => [k, v.count])),
      autocannonLatencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
    },
  };
}

async function measure(label, server, connections, duration, requests) {
  const r = await cannon(server, connections, duration, requests);
  const w = r.wholeRun;
  const bad = r.non2xx + r.errors + w.non2xx + w.errors;
  log(
    `  ${label.padEnd(10)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms)}  p99 ${fmtMs(r.p99Ms)}  ` +
      `${fmtUs(r.serverCpuUsPerReq)} µs/req  ` +
      `cpu: server ${Math.round(r.serverCpuPct)}% load-gen ${Math.round(r.loadGenCpuPct)}% ` +
      `other ${Math.round(r.otherCpuPct)}%` +
      (bad
        ? `  !! non2xx ${r.non2xx} errors ${r.errors} (incl. warm-up: non2xx ${w.non2xx} errors ${w.errors}) ` +
          JSON.stringify(w.statusCodes)
        : ''),
  );
  return r;
}

const BODY = 'x'.repeat(VALUE_SIZE);
const TEXT = { 'content-type': 'text/plain' };
const randomKey = () => `${PREFIX}/rest/maps/bench/key-${Math.floor(Math.random() * PRELOAD_KEYS)}`;

/**
 * Random-key requests. `setup`: autocannon setupRequest picks a fresh key per
 * request (autocannon then rebuilds the whole request each time, which roughly
 * halves what one load-generator core can push). `pool` (default): a pool of
 * pre-built requests with random keys that every connection cycles through; it
 * costs connections x pool builds once, inside the warm-up.
 */
function randomKeyRequests(opts, template) {
  if (opts.keygen === 'setup') {
    return [{ ...template, setupRequest: (req) => Object.assign(req, { path: randomKey() }) }];
  }
  const size = Math.max(500, Math.min(PRELOAD_KEYS, Math.floor(100_000 / opts.connections)));
  return Array.from({ length: size }, () => ({ ...template, path: randomKey() }));
}

const WORKLOADS = {
  get: {
    name: 'map GET',
    requests: (opts) => randomKeyRequests(opts, { method: 'GET' }),
    targets: true,
  },
  post: {
    name: 'map POST',
    requests: (opts) => randomKeyRequests(opts, { method: 'POST', headers: TEXT, body: BODY }),
    targets: true,
  },
  queue: {
    name: 'queue offer+poll',
    // Each connection alternates offer/poll, so the queue holds at most `connections` items.
    requests: () => [
      { method: 'POST', path: `${PREFIX}/rest/queues/bench-q`, headers: TEXT, body: BODY },
      { method: 'DELETE', path: `${PREFIX}/rest/queues/bench-q/0` },
    ],
    targets: false,
  },
};

// ---------------------------------------------------------------- rounds

function median(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const badCount = (r) => r.non2xx + r.errors + r.wholeRun.non2xx + r.wholeRun.errors;

/**
 * One target's figures over all its rounds: median req/s and p50, worst (and
 * median) p99, summed requests/errors, and CPU time per request = server CPU
 * seconds over all measured windows / requests answered in them.
 */
function summarize(runs) {
  const sum = (f) => runs.reduce((n, r) => n + f(r), 0);
  const statusCodes = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.statusCodes)) statusCodes[k] = (statusCodes[k] ?? 0) + v;
  const rps = runs.map((r) => r.reqPerSec);
  const responses = sum((r) => r.responses);
  const serverCpuMs = sum((r) => r.serverCpuMs);
  return {
    rounds: runs.length,
    reqPerSec: median(rps), // median over rounds
    minReqPerSec: Math.min(...rps),
    maxReqPerSec: Math.max(...rps),
    p50Ms: median(runs.map((r) => r.p50Ms)), // median over rounds
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)), // worst round
    p99MedianMs: median(runs.map((r) => r.p99Ms)),
    maxMs: Math.max(...runs.map((r) => r.maxMs)),
    responses,
    windowSeconds: sum((r) => r.windowSeconds),
    serverCpuMs,
    cpuUsPerReq: responses ? (serverCpuMs * 1000) / responses : NaN,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    // including the warm-ups
    bad: sum(badCount),
    statusCodes,
    serverCpuPct: median(runs.map((r) => r.serverCpuPct)),
    minServerCpuPct: Math.min(...runs.map((r) => r.serverCpuPct)),
    loadGenCpuPct: median(runs.map((r) => r.loadGenCpuPct)),
    otherCpuPct: median(runs.map((r) => r.otherCpuPct)),
    maxOtherCpuPct: Math.max(...runs.map((r) => r.otherCpuPct)),
  };
}

// ---------------------------------------------------------------- report

const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const fmtMs = (n) => (Number.isFinite(n) ? `${n.toFixed(2)} ms` : '-');
const fmtUs = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const mark = (ok) => (ok ? 'PASS' : 'MISS');

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
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
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
  await runThroughput(opts, report);
  await runMemory(opts, report);

  const text = renderReport(report);
  process.stdout.write(`\nGrid benchmark (target ${opts.target}, ${report.cpus} CPUs, node ${process.version})\n${text}\n`);
  const invalid = report.workloads.filter((w) => !w.valid).map((w) => w.name);
  if (invalid.length) process.stdout.write(`WARNING: invalid (non-2xx/errors): ${invalid.join(', ')}\n`);
  report.text = text;
  const out = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nJSON: ${path.relative(ROOT, out)}\n`);
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
