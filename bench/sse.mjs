// SSE fan-out phase (`--only sse`, and part of `--only data-api`; issue 25): 100 change-stream
// subscribers (GET /grid/rest/maps/<m>/events?values=true, in their own process so they take no
// event-loop time from the writer) on one started member while a writer PUTs at 10,000 per
// second (paced, 16 pipelined keep-alive connections, 10,000 keys, each value the send time):
// events per second delivered in total, per-subscriber lag (receive time - send time of the
// newest event of each read), events missing at the end, member CPU and RSS; and the writer's
// throughput without subscribers, with them, and with one stalled subscriber (its socket
// paused: the member must cut it off, never slow down). Each run is `--sse-seconds` long.
// `node bench/sse.mjs [--seconds 8] [--subscribers 100] [--rate 10000]` runs it alone.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { HOST, ResponseParser, cleanup, fmtInt, freePort, log, readCpuMs, readRss, startChild, stopChild, tempDirs, waitReady } from './lib.mjs';

export const SSE_PHASES = ['sse'];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEYS = 10_000;
const CONNECTIONS = 16;
/** Requests in flight per writer connection at most: beyond, the writer falls behind its rate (and says so). */
const WINDOW = 128;
const VALUE_SIZE = 100;

function configFor(port) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-sse-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'grid.yaml');
  writeFileSync(file, [
    'hazelcast:',
    '  cluster-name: bench-sse',
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
  ].join('\n'));
  return file;
}

// The subscribers' process: opens N streams, then answers stdin commands with one JSON line:
// `mark` (counts from now), `report` (events per stream, lag quantiles, cuts). Events are counted
// by their blank-line ends; the lag is sampled once per read (the newest event of the read).
const SUBSCRIBERS = `
const net = require('node:net');
const [port, urlPath, n, stall] = process.argv.slice(1);
const streams = [];
let lags = [];
function open(i) {
  return new Promise((resolve, reject) => {
    const s = { count: 0, cut: false, nl: false, maxLag: 0, started: false };
    const sock = net.connect(Number(port), '127.0.0.1');
    sock.setEncoding('latin1');
    sock.on('error', reject);
    sock.once('connect', () => sock.write('GET ' + urlPath + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
    sock.on('data', (d) => {
      if (!s.started) {
        if (!d.includes(': subscribed')) return reject(new Error('no stream: ' + d.slice(0, 200)));
        s.started = true;
        resolve();
        if (stall === '1') sock.pause();
        return;
      }
      let from = 0;
      if (s.nl && d.charCodeAt(0) === 10) { s.count++; from = 1; }
      for (let at = d.indexOf('\\n\\n', from); at >= 0; at = d.indexOf('\\n\\n', at + 2)) s.count++;
      s.nl = d.charCodeAt(d.length - 1) === 10 && d.charCodeAt(d.length - 2) !== 10;
      const v = d.lastIndexOf('"value":"');
      if (v >= 0 && v + 22 <= d.length) {
        const lag = Date.now() - Number(d.slice(v + 9, v + 22));
        if (lag >= 0 && lag < 1e7) { lags.push(lag); if (lag > s.maxLag) s.maxLag = lag; }
      }
      if (d.includes('event: cut')) s.cut = true;
    });
    streams.push(s);
  });
}
(async () => {
  for (let i = 0; i < Number(n); i += 20) await Promise.all(Array.from({ length: Math.min(20, Number(n) - i) }, (_, j) => open(i + j)));
  process.stdout.write('ready\\n');
})().catch((e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); });
const q = (xs, f) => xs.length === 0 ? null : xs[Math.min(xs.length - 1, Math.floor(f * xs.length))];
let buf = '';
process.stdin.setEncoding('utf8').on('data', (d) => {
  buf += d;
  for (let at = buf.indexOf('\\n'); at >= 0; at = buf.indexOf('\\n')) {
    const cmd = buf.slice(0, at); buf = buf.slice(at + 1);
    if (cmd === 'mark') { for (const s of streams) { s.count = 0; s.maxLag = 0; } lags = []; process.stdout.write('{"marked":true}\\n'); }
    if (cmd === 'report') {
      const sorted = Float64Array.from(lags).sort();
      const counts = streams.map((s) => s.count);
      const maxLags = streams.map((s) => s.maxLag).sort((a, b) => a - b);
      process.stdout.write(JSON.stringify({ counts, cuts: streams.filter((s) => s.cut).length, lagP50: q(sorted, 0.5), lagP99: q(sorted, 0.99), lagMax: q(sorted, 1), perSubMaxLagP50: q(maxLags, 0.5), perSubMaxLagMax: q(maxLags, 1) }) + '\\n');
    }
  }
});
`;

function startSubscribers(port, urlPath, n, stall = false) {
  const child = spawn(process.execPath, ['-e', SUBSCRIBERS, String(port), urlPath, String(n), stall ? '1' : '0'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const waiters = [];
  child.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
      const line = out.slice(0, at);
      out = out.slice(at + 1);
      waiters.shift()?.(line);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const next = () => new Promise((resolve, reject) => {
    waiters.push(resolve);
    exited.then(() => reject(new Error('the subscriber process exited')));
  });
  return {
    ready: next().then((l) => { if (l !== 'ready') throw new Error(`subscribers: ${l}`); }),
    async ask(cmd) {
      const answer = next();
      child.stdin.write(`${cmd}\n`);
      return JSON.parse(await answer);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * PUTs for `seconds` at `rate` per second (Infinity: as fast as the member answers, WINDOW in
 * flight per connection), keys k0..k9999 in turn, each value its send time (ms) padded.
 * Resolves with the puts answered, their rate and latency quantiles.
 */
function write(port, map, rate, seconds) {
  return new Promise((resolve, reject) => {
    const head = (key) => `POST /hazelcast/rest/maps/${map}/${key} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: text/plain\r\nContent-Length: ${VALUE_SIZE}\r\n\r\n`;
    const conns = [];
    let sent = 0;
    let answered = 0;
    let bad = 0;
    const lat = [];
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    let done = false;
    const finish = (err) => {
      if (done) return;
      done = true;
      clearInterval(tick);
      for (const c of conns) c.sock.destroy();
      if (err) return reject(err);
      const s = (performance.now() - t0) / 1000;
      lat.sort((a, b) => a - b);
      const q = (f) => lat[Math.min(lat.length - 1, Math.floor(f * lat.length))] ?? NaN;
      resolve({ answered, bad, seconds: s, rate: answered / s, p50Ms: q(0.5), p99Ms: q(0.99), maxMs: q(1) });
    };
    const send = (c, n) => {
      let out = '';
      const now = performance.now();
      for (let i = 0; i < n; i++) {
        const k = sent++ % KEYS;
        out += head(`k${k}`) + String(Date.now()).padEnd(VALUE_SIZE, '.');
        c.times.push(now);
      }
      c.sock.write(out, 'latin1');
    };
    for (let i = 0; i < CONNECTIONS; i++) {
      const sock = net.connect({ host: HOST, port, noDelay: true });
      const c = { sock, times: [], head: 0 };
      const parser = new ResponseParser((status) => {
        answered++;
        if (status !== 200) bad++;
        lat.push(performance.now() - c.times[c.head++]);
        if (c.head > 4096) { c.times = c.times.slice(c.head); c.head = 0; }
        if (rate === Infinity && performance.now() < end) send(c, 1);
      });
      sock.on('data', (d) => { try { parser.feed(d); } catch (e) { finish(e); } });
      sock.on('error', (e) => finish(e));
      if (rate === Infinity) sock.once('connect', () => send(c, WINDOW));
      conns.push(c);
    }
    const inFlight = (c) => c.times.length - c.head;
    const tick = setInterval(() => {
      const now = performance.now();
      if (now >= end) {
        // Wait for what is in flight, then stop.
        if (conns.every((c) => inFlight(c) === 0) || now > end + 10_000) finish();
        return;
      }
      if (rate === Infinity) return;
      let due = Math.floor(((now - t0) / 1000) * rate) - sent;
      for (let i = 0; due > 0 && i < CONNECTIONS * 4; i++) {
        const c = conns[(sent + i) % CONNECTIONS];
        const n = Math.min(due, WINDOW - inFlight(c), Math.ceil(rate / 1000));
        if (n <= 0) continue;
        send(c, n);
        due -= n;
      }
    }, 2);
  });
}

function loadAvg() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** One measured run: the writer, and (when given) the subscribers' counts and lags over the same time. */
async function run(label, member, subs, rate, seconds) {
  if (subs) await subs.ask('mark');
  const cpu0 = readCpuMs(member.pid);
  const w = await write(member.port, 'fan', rate, seconds);
  const cpuMs = readCpuMs(member.pid) - cpu0;
  let s;
  let catchUpMs = null;
  if (subs) {
    // Every subscriber should get every event: wait (bounded) for the slowest one.
    const t = performance.now();
    for (;;) {
      s = await subs.ask('report');
      if (Math.min(...s.counts) >= w.answered || performance.now() - t > 15_000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    catchUpMs = performance.now() - t;
  }
  const rss = readRss(member.pid);
  const r = {
    label, targetRate: rate, ...w, memberCpuPct: (100 * cpuMs) / (w.seconds * 1000), memberCpuUsPerPut: (cpuMs * 1000) / Math.max(1, w.answered), rssMb: rss.rss / 1e6, hwmMb: rss.hwm / 1e6, loadavg: loadAvg(),
    ...(s ? {
      subscribers: s.counts.length, delivered: s.counts.reduce((a, b) => a + b, 0), deliveredPerSec: s.counts.reduce((a, b) => a + b, 0) / w.seconds,
      missing: s.counts.reduce((a, c) => a + Math.max(0, w.answered - c), 0), cuts: s.cuts, catchUpMs,
      lagP50: s.lagP50, lagP99: s.lagP99, lagMax: s.lagMax, perSubMaxLagP50: s.perSubMaxLagP50,
    } : {}),
  };
  log(`sse: ${label}: ${fmtInt(r.rate)} puts/s (p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms), member CPU ${r.memberCpuPct.toFixed(0)}%, RSS ${r.rssMb.toFixed(0)} MB` +
    (s ? `; ${fmtInt(r.deliveredPerSec)} events/s to ${r.subscribers}, lag p50 ${r.lagP50} ms p99 ${r.lagP99} ms max ${r.lagMax} ms, missing ${r.missing}, cut ${r.cuts}` : '') + `; load ${r.loadavg}`);
  return r;
}

/** The phase: `opts.gridBin`, `opts.nodeArgs`; `opts.sseSeconds`, `opts.sseSubscribers`, `opts.sseRate` (defaults 8, 100, 10000). */
export async function runSse(opts, report) {
  if (!opts.only.includes('sse') && !opts.only.includes('data-api')) return;
  const seconds = opts.sseSeconds ?? 8;
  const n = opts.sseSubscribers ?? 100;
  const rate = opts.sseRate ?? 10_000;
  const port = await freePort();
  const child = startChild('sse member', [...(opts.nodeArgs ?? []), opts.gridBin, 'start', '--config', configFor(port)], 'sse.log');
  const runs = [];
  try {
    await waitReady(child, port);
    const member = { port, pid: child.pid };
    log(`sse: member pid ${child.pid}; ${n} subscribers, writer ${fmtInt(rate)} puts/s, ${seconds} s per run; load ${loadAvg()}`);
    // Warm-up: the keys exist (later puts are updates), the JIT has seen the paths.
    await write(port, 'fan', Infinity, 2);
    runs.push(await run('paced, no subscribers', member, undefined, rate, seconds));
    runs.push(await run('max rate, no subscribers', member, undefined, Infinity, seconds));
    const subs = startSubscribers(port, '/grid/rest/maps/fan/events?values=true', n);
    await subs.ready;
    runs.push(await run(`paced, ${n} subscribers`, member, subs, rate, seconds));
    runs.push(await run(`max rate, ${n} subscribers`, member, subs, Infinity, seconds));
    await subs.stop();
    const stalled = startSubscribers(port, '/grid/rest/maps/fan/events?values=true', 1, true);
    await stalled.ready;
    const r = await run('max rate, 1 stalled subscriber', member, undefined, Infinity, seconds);
    r.stalledCut = readFileSync(child.logFile, 'utf8').includes('change stream cut off: slow consumer');
    runs.push(r);
    await stalled.stop();
    report.sse = { seconds, subscribers: n, rate, runs };
  } finally {
    await stopChild(child);
  }
}

export function renderSseReport(report) {
  const s = report.sse;
  if (!s) return '';
  const row = (cells) => `| ${cells.join(' | ')} |`;
  const ms = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : `${Math.round(x)}`);
  return [
    '',
    `SSE fan-out: map change streams (?values=true) on one member, writer ${fmtInt(s.rate)} puts/s target (16 pipelined connections, 100-byte values), ${s.seconds} s per run:`,
    row(['run', 'puts/s', 'put p50 ms', 'put p99 ms', 'events/s delivered', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'missing', 'cut', 'member CPU', 'CPU µs/put', 'RSS MB (peak)', 'load avg']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    ...s.runs.map((r) => row([
      r.label, fmtInt(r.rate), r.p50Ms.toFixed(1), r.p99Ms.toFixed(1), r.delivered === undefined ? '-' : fmtInt(r.deliveredPerSec),
      ms(r.lagP50), ms(r.lagP99), ms(r.lagMax), r.missing ?? '-', r.stalledCut === undefined ? (r.cuts ?? '-') : (r.stalledCut ? 'yes' : 'NO'),
      `${r.memberCpuPct.toFixed(0)}%`, r.memberCpuUsPerPut.toFixed(0), `${r.rssMb.toFixed(0)} (${r.hwmMb.toFixed(0)})`, r.loadavg,
    ])),
  ].join('\n');
}

export function sseProblems(report) {
  const s = report.sse;
  if (!s) return [];
  const out = [];
  for (const r of s.runs) {
    if (r.bad > 0) out.push(`sse: ${r.label}: ${r.bad} puts not 200`);
    if (r.missing > 0) out.push(`sse: ${r.label}: ${r.missing} events missing`);
    if (r.stalledCut === false) out.push(`sse: ${r.label}: the stalled subscriber was not cut off`);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, subscribers: { type: 'string', default: '100' }, rate: { type: 'string', default: '10000' } } });
  const report = {};
  try {
    await runSse({ only: ['sse'], gridBin: path.join(ROOT, 'bin', 'grid.js'), nodeArgs: (process.env.GRID_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean), sseSeconds: Number(values.seconds), sseSubscribers: Number(values.subscribers), sseRate: Number(values.rate) }, report);
    console.log(renderSseReport(report));
    for (const p of sseProblems(report)) console.log(`PROBLEM ${p}`);
  } finally {
    await cleanup();
  }
}
