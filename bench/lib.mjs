// Shared pieces of the Grid benchmark (run.mjs, cluster.mjs, client.mjs): option checks, the
// one-member bench config, child processes and their cleanup, /proc readers, the pipelined
// raw-socket loader, autocannon runs measured over a window, summaries and number formatting.
// See bench/README.md.
import autocannon from 'autocannon';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const HOST = '127.0.0.1';
export const PREFIX = '/hazelcast';
export const VALUE_SIZE = 100;
export const PRELOAD_KEYS = 10_000;
export const WARMUP_SECONDS = 2;
export const READY_DEADLINE_MS = 30_000;
export const CLK_TCK = 100; // USER_HZ, 100 on every mainstream Linux

// ---------------------------------------------------------------- child processes

/** @type {Set<import('node:child_process').ChildProcess>} */
export const children = new Set();
export const tempDirs = [];

export function log(msg) {
  process.stdout.write(`[bench] ${msg}\n`);
}

/**
 * The config of a one-member bench cluster `name` on `host:port` (joins only itself), REST on
 * with the endpoint groups `groups`; `extra` is merged into `hazelcast`.
 */
export function memberConfig(name, host, port, extra, groups) {
  return {
    hazelcast: {
      'cluster-name': name,
      'instance-name': `${name.toLowerCase()}1`,
      network: {
        port: { port, 'auto-increment': false },
        interfaces: { enabled: true, interfaces: [host] },
        join: { multicast: { enabled: false }, 'tcp-ip': { enabled: true, 'member-list': [`${host}:${port}`] } },
        'rest-api': { enabled: true, 'endpoint-groups': Object.fromEntries(groups.map((g) => [g, { enabled: true }])) },
      },
      ...extra,
    },
  };
}

/**
 * `--<name>` of node:util parseArgs' `values` as an integer >= `min`; a bad value stops the run
 * with the option named, before any member starts (run.mjs and client.mjs share it).
 */
export function intOption(values, name, min) {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
}

/**
 * Writes the YAML config of a one-member bench member on `port` (cluster `bench`, REST with the
 * DATA, HEALTH_CHECK and CLUSTER_READ groups; `httpPath` sets grid.rest.http-path) into a temp
 * dir that cleanup() removes; returns the file.
 */
export function writeBenchConfig(port, { httpPath, dirPrefix = 'grid-bench-' } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), dirPrefix));
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
      ...(httpPath ? ['  properties:', `    grid.rest.http-path: ${httpPath}`] : []),
      '',
    ].join('\n'),
  );
  return file;
}

export async function freePort() {
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


/**
 * Spawns `node <args>` with stdout/stderr going to bench/results/<logName>; with `cpus` (a taskset CPU
 * list such as '0') as `taskset -c <cpus> node <args>` (taskset execs node: same pid).
 */
export function startChild(name, args, logName, { cpus } = {}) {
  const logFile = path.join(RESULTS_DIR, logName);
  const fd = openSync(logFile, 'w');
  const child = cpus
    ? spawn('taskset', ['-c', cpus, process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', fd, fd] })
    : spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', fd, fd] });
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

export function logTail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function stopChild(child, graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.stoppedByBench = true;
  child.kill('SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([child.exited, timer])) === 'timeout') {
    log(`${child.benchName} (pid ${child.pid}) ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    child.kill('SIGKILL');
    await child.exited;
  }
}

export async function cleanup() {
  await Promise.all([...children].map((c) => stopChild(c)));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function httpRequest(port, method, urlPath, body) {
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

export async function waitReady(child, port) {
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

/** GET `urlPath` and parse the JSON answer; throws on a non-200 status or a bad body. */
export async function getJson(port, urlPath) {
  const res = await httpRequest(port, 'GET', urlPath);
  if (res.status !== 200) throw new Error(`GET ${urlPath} on port ${port}: HTTP ${res.status} ${res.body.slice(0, 120)}`);
  return JSON.parse(res.body);
}

function canListen(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/**
 * `n` distinct ports free now, chosen below the kernel's ephemeral range: cluster members
 * bind them later (a spare one much later), and a port from the ephemeral range could
 * meanwhile become the local end of some outgoing connection (there are many here).
 */
export async function reservePorts(n) {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: keep the usual default
  }
  const high = Math.max(ephemeralLow - 1, 11_000);
  const low = Math.max(10_000, high - 15_000);
  const ports = new Set();
  for (let attempts = 0; ports.size < n; attempts++) {
    if (attempts > 1_000) throw new Error(`could not find ${n} free ports in ${low}-${high}`);
    const p = low + Math.floor(Math.random() * (high - low + 1));
    if (!ports.has(p) && (await canListen(p))) ports.add(p);
  }
  return [...ports];
}

/** CPU time (user+system) consumed so far by a process, from /proc/<pid>/stat (ms). */
export function readCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime
}

/**
 * CPU time (ms, summed over all cores) the machine spent running processes so far
 * (user+nice+system+steal). irq/softirq are left out: on loopback they are mostly
 * the benchmark's own network traffic, not other processes.
 */
export function readSystemBusyMs() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , , , steal] = f;
  return ((user + nice + system + (steal || 0)) * 1000) / CLK_TCK;
}

/**
 * Jiffies of one CPU from /proc/stat (`cpu<n>` line): total (guest excluded, it is in user already),
 * idle (idle + iowait) and irq + softirq. Null when there is no such line.
 */
export function readCoreJiffies(cpu) {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${cpu} `));
  if (!line) return null;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + (b || 0), 0);
  return { total, idle: f[3] + (f[4] || 0), irq: (f[5] || 0) + (f[6] || 0) };
}

/** Busy % (everything but idle) and irq+softirq % of a CPU between two readCoreJiffies readings. */
export function coreBusy(a, b) {
  if (!a || !b || b.total <= a.total) return null;
  const dt = b.total - a.total;
  return { busyPct: (100 * (dt - (b.idle - a.idle))) / dt, irqPct: (100 * (b.irq - a.irq)) / dt };
}

/** Resident set size of a process, from /proc/<pid>/status (bytes). */
export function readRss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(m[1]) * 1024;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

// ---------------------------------------------------------------- pipelined raw loader

export function valueFor(i) {
  return `v${i}:`.padEnd(VALUE_SIZE, 'x');
}

/** Finds the end of a chunked body starting at `pos`; -1 if incomplete. */
export function chunkedEnd(buf, pos) {
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

/**
 * HTTP/1.1 response framer that hands over status, body (Content-Length or chunked) and the
 * head (status line + headers, latin1). Like ResponseParser, plus the body (the WAN and
 * persistence phases read values back) and the head (the CP phase reads X-Grid-Error).
 */
export class BodyParser {
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
      let chunked = false;
      const cl = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
      if (status === 204 || status === 304 || status < 200) end = bodyStart;
      else if (cl) end = bodyStart + Number(cl[1]);
      else if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
        end = chunkedEnd(buf, bodyStart);
        chunked = true;
      } else throw new Error(`response without Content-Length or chunked encoding: ${JSON.stringify(head)}`);
      if (end < 0 || end > buf.length) break;
      off = end;
      if (status >= 200) this.onResponse(status, chunked ? dechunk(buf, bodyStart) : buf.toString('latin1', bodyStart, end), head);
    }
    this.rest = off < buf.length ? buf.subarray(off) : null;
  }
}

function dechunk(buf, pos) {
  let out = '';
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', pos, 'latin1');
    const size = parseInt(buf.toString('latin1', pos, lineEnd).split(';')[0], 16);
    if (size === 0) return out;
    out += buf.toString('latin1', lineEnd + 2, lineEnd + 2 + size);
    pos = lineEnd + 2 + size + 2;
  }
}

/** Minimal HTTP/1.1 response framer: calls onResponse(status) per complete response. */
export class ResponseParser {
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
 * PUTs `count` entries (POST /rest/maps/<map>/<keyOf(i)> with body valueAt(i), i = 0..count-1)
 * over `connections` raw keep-alive sockets, each writing `batch` requests at once and
 * waiting for all their responses before the next batch. Resolves with status counts.
 */
export function pipelinedLoad({ port, map, count, keyOf, valueAt = valueFor, connections = 16, batch = 64, stallMs = 30_000 }) {
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
        for (let i = start; i < end; i++) out += head(keyOf(i)) + valueAt(i);
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
export class Latency {
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
 * One autocannon run of WARMUP_SECONDS + `duration` against `ports` (one autocannon
 * instance per port, `connections` split between them, all in this process): the first
 * WARMUP_SECONDS (connection setup, building the request pool, JIT on both sides) are not
 * reported; req/s, latency, status codes and CPU are taken over the following `duration`
 * seconds only, from autocannon's per-response events, summed over the instances.
 * Server CPU = utime + stime of every process in `pids`, summed, over that window.
 * autocannon's own whole-run totals (warm-up included) are kept as `wholeRun`.
 */
export async function cannon({ ports, pids, scheme = 'http' }, connections, duration, requests) {
  const latency = new Latency();
  const statusCodes = {};
  let count = 0;
  let errors = 0;
  let timeouts = 0;
  let inWindow = false;

  const instances = ports.map((port, i) =>
    autocannon({
      url: `${scheme}://${HOST}:${port}`,
      // connections split as evenly as possible: 50 over 3 ports = 17, 17, 16
      connections: Math.floor(connections / ports.length) + (i < connections % ports.length ? 1 : 0),
      pipelining: 1,
      duration: WARMUP_SECONDS + duration + 5, // safety cap; stopped explicitly below
      timeout: 10,
      requests: requests(),
    }),
  );
  for (const instance of instances) {
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
  }

  await sleep(WARMUP_SECONDS * 1000);
  const cpu0 = pids.map(readCpuMs);
  const sys0 = readSystemBusyMs();
  const self0 = process.cpuUsage();
  const windowStart = performance.now();
  inWindow = true;
  await sleep(duration * 1000);
  inWindow = false;
  const wall = performance.now() - windowStart;
  const self = process.cpuUsage(self0);
  const perProcessCpuMs = pids.map((pid, i) => readCpuMs(pid) - cpu0[i]);
  const serverCpuMs = perProcessCpuMs.reduce((a, b) => a + b, 0);
  const selfCpuMs = (self.user + self.system) / 1000;
  const systemCpuMs = readSystemBusyMs() - sys0;
  for (const instance of instances) instance.stop();
  const results = await Promise.all(instances);

  const wholeStatus = {};
  for (const r of results) {
    for (const [k, v] of Object.entries(r.statusCodeStats)) wholeStatus[k] = (wholeStatus[k] ?? 0) + v.count;
  }
  const sumOf = (f) => results.reduce((n, r) => n + f(r), 0);
  const maxOf = (f) => Math.max(...results.map(f));
  const non2xx = Object.entries(statusCodes).reduce((n, [code, c]) => (code.startsWith('2') ? n : n + c), 0);
  return {
    reqPerSec: count / (wall / 1000),
    responses: count,
    windowSeconds: wall / 1000,
    p50Ms: latency.percentile(50),
    p99Ms: latency.percentile(99),
    maxMs: latency.percentile(100),
    non2xx,
    errors,
    timeouts,
    statusCodes,
    serverCpuMs,
    ...(pids.length > 1 ? { perProcessCpuMs } : {}),
    // Server CPU time per answered request in the window (µs): unlike req/s, this
    // barely depends on how much CPU the machine left the server.
    serverCpuUsPerReq: count ? (serverCpuMs * 1000) / count : NaN,
    serverCpuPct: (serverCpuMs / wall) * 100,
    loadGenCpuPct: (selfCpuMs / wall) * 100,
    // Everything else on the machine (other processes, kernel) during the window.
    otherCpuPct: (Math.max(0, systemCpuMs - serverCpuMs - selfCpuMs) / wall) * 100,
    wholeRun: {
      seconds: maxOf((r) => r.duration),
      requests: sumOf((r) => r.requests.total),
      non2xx: sumOf((r) => r.non2xx),
      errors: sumOf((r) => r.errors),
      timeouts: sumOf((r) => r.timeouts),
      statusCodes: wholeStatus,
      // with several instances: the worst instance's figures
      autocannonLatencyMs: { p50: maxOf((r) => r.latency.p50), p99: maxOf((r) => r.latency.p99), max: maxOf((r) => r.latency.max) },
    },
  };
}

/**
 * One measured run (see `cannon`) against `server` = {port, child} (one process) or
 * {ports, pids} (several: the load is split over the ports, CPU summed over the pids), logged.
 */
export async function measure(label, server, connections, duration, requests) {
  const target = server.ports ? server : { ports: [server.port], pids: [server.child.pid] };
  const r = await cannon(target, connections, duration, requests);
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

// ---------------------------------------------------------------- load generator: wrk or autocannon

/** Absolute path of an executable `cmd` on PATH, or null. */
export function findOnPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, cmd);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The load generator of the throughput parts and the CPU pinning. `loadGen`: auto (wrk when it is on
 * PATH, else autocannon) | wrk | autocannon. `pin`: auto (servers on CPU 0, load generator on CPU 1
 * when taskset is on PATH and there are >= 2 CPUs) | off.
 */
export function loadGenSetup({ loadGen = 'auto', pin = 'auto' } = {}) {
  const wrk = findOnPath('wrk');
  let tool = 'autocannon';
  let why = null;
  if (loadGen === 'autocannon') why = '--load-gen autocannon';
  else if (wrk) tool = 'wrk';
  else if (loadGen === 'wrk') throw new Error('--load-gen wrk: wrk is not on PATH');
  else why = 'wrk is not on PATH';
  let version = null;
  if (tool === 'wrk') {
    // `wrk --version` prints "wrk <version> [epoll] Copyright ..." and the usage, exit code 1
    const r = spawnSync(wrk, ['--version'], { encoding: 'utf8' });
    version = `${r.stdout}${r.stderr}`.split('\n')[0].replace(/\s*Copyright.*$/, '').trim() || 'wrk';
  }
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const taskset = findOnPath('taskset');
  let pinning = null;
  let pinWhy = null;
  if (pin === 'off') pinWhy = '--pin off';
  else if (!taskset) pinWhy = 'taskset is not on PATH';
  else if (cpus < 2) pinWhy = `only ${cpus} CPU`;
  else pinning = { server: '0', gen: '1' };
  return { tool, wrk: tool === 'wrk' ? wrk : null, version, why, pinning, pinWhy, cpus };
}

/** One header line saying what generates the load and what is pinned where. */
export function describeLoadGen(gen, connections) {
  const tool =
    gen.tool === 'wrk'
      ? `load generator: ${gen.version} (${gen.wrk}), 1 thread, ${connections} connections, bench/wrk.lua`
      : `load generator: autocannon in the bench process (${gen.why}; it needs ~90 % of a core itself and can be the bottleneck)`;
  const pin = gen.pinning
    ? `pinned: servers/members taskset -c ${gen.pinning.server}, load generator taskset -c ${gen.pinning.gen}` +
      (gen.tool === 'autocannon' ? ' (the bench process, while measuring)' : '')
    : `not pinned (${gen.pinWhy})`;
  return `${tool}; ${pin}`;
}

function spawnWrk(gen, port, workload, connections, seconds) {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '--timeout',
    '10s',
    '-s',
    path.join(BENCH_DIR, 'wrk.lua'),
    `http://${HOST}:${port}`,
    '--',
    workload,
    String(PRELOAD_KEYS),
    PREFIX,
  ];
  const [cmd, argv] = gen.pinning ? ['taskset', ['-c', gen.pinning.gen, gen.wrk, ...args]] : [gen.wrk, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.once('error', (err) => {
      children.delete(child);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      try {
        resolve(parseWrk(out, code, signal));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** Parses the GRIDBENCH lines bench/wrk.lua's done() prints (and keeps wrk's own text). */
export function parseWrk(out, code, signal) {
  const line = (name) => {
    const m = new RegExp(`^GRIDBENCH ${name} ?(.*)$`, 'm').exec(out);
    if (!m) throw new Error(`wrk (exit ${code}${signal ? `, signal ${signal}` : ''}) printed no '${name}' line:\n${out.slice(0, 2000)}`);
    return m[1].trim();
  };
  const pairs = (text, sep = '=') =>
    Object.fromEntries(
      text
        .split(/\s+/)
        .filter(Boolean)
        .map((kv) => kv.split(sep))
        .map(([k, v]) => [k, Number(v)]),
    );
  const latency = pairs(line('latency_us'));
  const quantiles = line('quantiles_us').split(/\s+/).filter(Boolean).map(Number);
  return {
    requests: Number(line('requests')),
    durationUs: Number(line('duration_us')),
    errors: pairs(line('errors')),
    statusCodes: pairs(line('statuses')),
    cpuSeconds: Number(line('cpu_s')),
    latencyUs: latency,
    quantilesUs: quantiles,
    text: out
      .split('\n')
      .filter((l) => !l.startsWith('GRIDBENCH quantiles_us'))
      .join('\n'),
  };
}

/** p-th percentile (ms) of several wrk runs: exact for one run, else from their weighted quantiles. */
function mergedPercentile(runs, p) {
  const withData = runs.filter((r) => r.requests > 0);
  if (withData.length === 0) return NaN;
  if (withData.length === 1) {
    const l = withData[0].latencyUs;
    const exact = { 50: l.p50, 90: l.p90, 99: l.p99, 99.9: l.p999, 100: l.max }[p];
    if (exact !== undefined) return exact / 1000;
  }
  if (p === 100) return Math.max(...withData.map((r) => r.latencyUs.max)) / 1000;
  const points = withData.flatMap((r) => r.quantilesUs.map((us) => [us, r.requests / r.quantilesUs.length]));
  points.sort((a, b) => a[0] - b[0]);
  const total = points.reduce((n, [, w]) => n + w, 0);
  let seen = 0;
  for (const [us, w] of points) {
    seen += w;
    if (seen >= (p / 100) * total) return us / 1000;
  }
  return points[points.length - 1][0] / 1000;
}

/**
 * One wrk run against `ports` (one wrk process per port, `connections` split between them, each
 * `-t1`, on the load generator's CPU): WARMUP_SECONDS of wrk first (not reported), then a second wrk
 * of `duration` s whose req/s, latency and status counts are reported; server CPU = utime + stime of
 * `pids` over that second run. Same result shape as `cannon`.
 */
export async function wrkRun({ ports, pids }, gen, workload, connections, duration) {
  const split = ports.map((_, i) => Math.floor(connections / ports.length) + (i < connections % ports.length ? 1 : 0));
  const warm = await Promise.all(ports.map((port, i) => spawnWrk(gen, port, workload, split[i], WARMUP_SECONDS)));
  // With the servers pinned to one CPU: how busy that CPU was in all (the server, the kernel's
  // irq/softirq work for it, which /proc/<pid>/stat does not count, and any neighbour).
  const core = gen.pinning && /^\d+$/.test(gen.pinning.server) ? gen.pinning.server : null;
  const core0 = core !== null ? readCoreJiffies(core) : null;
  const cpu0 = pids.map(readCpuMs);
  const sys0 = readSystemBusyMs();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const runs = await Promise.all(ports.map((port, i) => spawnWrk(gen, port, workload, split[i], duration)));
  const serverCore = core !== null ? coreBusy(core0, readCoreJiffies(core)) : null;
  const wall = performance.now() - t0;
  const self = process.cpuUsage(self0);
  const perProcessCpuMs = pids.map((pid, i) => readCpuMs(pid) - cpu0[i]);
  const serverCpuMs = perProcessCpuMs.reduce((a, b) => a + b, 0);
  const selfCpuMs = (self.user + self.system) / 1000;
  const genCpuMs = runs.reduce((n, r) => n + r.cpuSeconds * 1000, 0);
  const systemCpuMs = readSystemBusyMs() - sys0;

  const sumStatus = (rs) => {
    const out = {};
    for (const r of rs) for (const [k, v] of Object.entries(r.statusCodes)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const non2xxOf = (codes) => Object.entries(codes).reduce((n, [code, c]) => (code.startsWith('2') ? n : n + c), 0);
  const errorsOf = (rs) => rs.reduce((n, r) => n + r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout, 0);
  const statusCodes = sumStatus(runs);
  const count = runs.reduce((n, r) => n + r.requests, 0);
  const windowSeconds = Math.max(...runs.map((r) => r.durationUs)) / 1e6;
  const reqPerSec = runs.reduce((n, r) => n + (r.durationUs ? r.requests / (r.durationUs / 1e6) : 0), 0);
  const warmCodes = sumStatus(warm);
  return {
    tool: 'wrk',
    reqPerSec,
    responses: count,
    windowSeconds,
    p50Ms: mergedPercentile(runs, 50),
    p90Ms: mergedPercentile(runs, 90),
    p99Ms: mergedPercentile(runs, 99),
    p999Ms: mergedPercentile(runs, 99.9),
    maxMs: mergedPercentile(runs, 100),
    non2xx: non2xxOf(statusCodes),
    errors: errorsOf(runs),
    timeouts: runs.reduce((n, r) => n + r.errors.timeout, 0),
    statusCodes,
    serverCpuMs,
    ...(pids.length > 1 ? { perProcessCpuMs } : {}),
    serverCpuUsPerReq: count ? (serverCpuMs * 1000) / count : NaN,
    serverCpuPct: (serverCpuMs / wall) * 100,
    loadGenCpuPct: (genCpuMs / wall) * 100,
    otherCpuPct: (Math.max(0, systemCpuMs - serverCpuMs - selfCpuMs - genCpuMs) / wall) * 100,
    // the servers' CPU (when pinned to one): busy % of it in all and its irq + softirq %
    serverCore: serverCore && { cpu: Number(core), ...serverCore },
    loadAvg: os.loadavg()[0],
    // the warm-up run (badCount adds these)
    wholeRun: {
      seconds: WARMUP_SECONDS,
      requests: warm.reduce((n, r) => n + r.requests, 0),
      non2xx: non2xxOf(warmCodes),
      errors: errorsOf(warm),
      statusCodes: warmCodes,
    },
    wrk: runs.map((r) => ({ requests: r.requests, durationUs: r.durationUs, errors: r.errors, latencyUs: r.latencyUs, cpuSeconds: r.cpuSeconds, text: r.text })),
  };
}

/** Current CPU affinity list of this process (taskset -c -p), e.g. '0,1'. */
function selfAffinity() {
  const out = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
  return out.slice(out.lastIndexOf(':') + 1).trim();
}

function pinSelf(cpus) {
  execFileSync('taskset', ['-a', '-c', '-p', cpus, String(process.pid)], { stdio: 'ignore' });
}

/**
 * One measured run of workload `key` (get | post | queue) against `server` (see `measure`), with wrk
 * when opts.loadGen says so, else autocannon (the bench process pinned to the load generator's CPU
 * for the run when pinning is on). Logged like `measure`.
 */
export async function measureWorkload(label, server, opts, key) {
  const gen = opts.loadGen;
  if (!gen || gen.tool !== 'wrk') {
    const requests = () => WORKLOADS[key].requests(opts);
    if (!gen?.pinning) return measure(label, server, opts.connections, opts.duration, requests);
    const before = selfAffinity();
    pinSelf(gen.pinning.gen);
    try {
      return await measure(label, server, opts.connections, opts.duration, requests);
    } finally {
      pinSelf(before);
    }
  }
  const target = server.ports ? server : { ports: [server.port], pids: [server.child.pid] };
  const r = await wrkRun(target, gen, key, opts.connections, opts.duration);
  const w = r.wholeRun;
  const bad = r.non2xx + r.errors + w.non2xx + w.errors;
  const codes = Object.entries(r.statusCodes).map(([k, v]) => `${k}:${v}`).join(' ');
  log(
    `  ${label.padEnd(14)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms)}  p99 ${fmtMs(r.p99Ms)}  ` +
      `${fmtUs(r.serverCpuUsPerReq)} µs/req  ` +
      `cpu: server ${Math.round(r.serverCpuPct)}% wrk ${Math.round(r.loadGenCpuPct)}% other ${Math.round(r.otherCpuPct)}%  ` +
      (r.serverCore ? `cpu${r.serverCore.cpu} busy ${Math.round(r.serverCore.busyPct)}% (irq ${Math.round(r.serverCore.irqPct)}%)  ` : '') +
      `load ${r.loadAvg.toFixed(2)}  [${codes}]` +
      (bad ? `  !! non2xx ${r.non2xx} errors ${r.errors} (warm-up: non2xx ${w.non2xx} errors ${w.errors}) ${JSON.stringify(w.statusCodes)}` : ''),
  );
  return r;
}

export const BODY = 'x'.repeat(VALUE_SIZE);
export const TEXT = { 'content-type': 'text/plain' };
export const randomKey = () => `${PREFIX}/rest/maps/bench/key-${Math.floor(Math.random() * PRELOAD_KEYS)}`;

/**
 * Random-key requests. `setup`: autocannon setupRequest picks a fresh key per
 * request (autocannon then rebuilds the whole request each time, which roughly
 * halves what one load-generator core can push). `pool` (default): a pool of
 * pre-built requests with random keys that every connection cycles through; it
 * costs connections x pool builds once, inside the warm-up.
 */
export function randomKeyRequests(opts, template) {
  if (opts.keygen === 'setup') {
    return [{ ...template, setupRequest: (req) => Object.assign(req, { path: randomKey() }) }];
  }
  const size = Math.max(500, Math.min(PRELOAD_KEYS, Math.floor(100_000 / opts.connections)));
  return Array.from({ length: size }, () => ({ ...template, path: randomKey() }));
}

export const WORKLOADS = {
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

export function median(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export const badCount = (r) => r.non2xx + r.errors + r.wholeRun.non2xx + r.wholeRun.errors;

/**
 * One target's figures over all its rounds: median req/s and p50, worst (and
 * median) p99, summed requests/errors, and CPU time per request = server CPU
 * seconds over all measured windows / requests answered in them.
 */
export function summarize(runs) {
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
export const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
export const fmtMs = (n) => (Number.isFinite(n) ? `${n.toFixed(2)} ms` : '-');
export const fmtUs = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
export const mark = (ok) => (ok ? 'PASS' : 'MISS');

/**
 * Polls `probe` every `everyMs` until it returns something truthy (returned) or `deadlineMs`
 * passes (throws naming `what` and the last error the probe threw).
 */
export async function waitFor(probe, deadlineMs, what, everyMs = 100) {
  const t0 = performance.now();
  let last;
  while (performance.now() - t0 < deadlineMs) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${deadlineMs / 1000} s${last ? ` (last error: ${last.message})` : ''}`);
}
