// WAN part of the Grid benchmark (see bench/README.md, "WAN"): a 1-member source cluster "A"
// replicating to a 1-member target cluster "B" on this machine, both `node bin/grid.js start
// --config <tmp yaml>` children. Measured, in this order, on the same two members:
//   1. map POST throughput on A with WAN on vs off (the map POST workload of the single-member
//      phase, against a map with wan-replication-ref and one without, rounds alternating)
//   2. replication lag at a steady write rate: time from A's 200 to the key being readable on B
//      (defaults, batch-max-delay-millis 1000; and, as extra information, a publisher with 100)
//   3. full sync of --wan-entries entries loaded while the publisher was STOPPED
//   4. consistency check + delta sync after 1 % of those entries were changed on B directly
//   5. time to resume after a link that drops packets heals (wan-resume.mjs: its own pair of
//      members, in network namespaces; skipped without root)
import { mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { RESUME_GOAL_MS, runResume } from './wan-resume.mjs';
import {
  HOST,
  PREFIX,
  memberConfig,
  PRELOAD_KEYS,
  RESULTS_DIR,
  ROOT,
  VALUE_SIZE,
  WARMUP_SECONDS,
  WORKLOADS,
  cannon,
  BodyParser,
  fmtInt,
  fmtMs,
  fmtUs,
  getJson,
  httpRequest,
  log,
  logTail,
  mark,
  median,
  pipelinedLoad,
  readCpuMs,
  readRss,
  readSystemBusyMs,
  reservePorts,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  valueFor,
  waitReady,
  waitFor,
} from './lib.mjs';

export const WAN_PHASES = ['wan'];

const SOURCE = 'A';
const TARGET = 'B';
const REP = 'to-b';
const PUB = 'B';
/** A second replication to the same target with batch-max-delay-millis 100 (extra lag figure). */
const REP_FAST = 'to-b-100';
const PUB_FAST = 'B100';
const FAST_DELAY_MS = 100;
/** Hazelcast's (and Grid's) batch-publisher defaults, written out for the report. */
const DEFAULTS = { batchSize: 500, batchMaxDelayMillis: 1000, queueCapacity: 10_000, acknowledgeType: 'ACK_ON_OPERATION_COMPLETE' };
const MAP_OFF = 'tput-off';
const MAP_ON = 'tput-wan';
const MAP_LAG = 'lag';
const MAP_LAG_FAST = 'lag100';
const MAP_SYNC = 'sync';
const LAG_GOAL_SLACK_MS = 100;
const LAG_WARMUP_SECONDS = 2;
/** Every LAG_TRACK_EVERY-th key written during the lag run is followed on the target. */
const LAG_TRACK_EVERY = 20;
/** GETs per second the lag poller sends to the target (at most: the same order as the writes). */
const LAG_POLL_RATE = 5_000;
/** A key not found is asked again after at least this long. */
const LAG_REPOLL_MS = 2;
const LAG_POLLERS = 4;
const LAG_WRITERS = 4;
const DRAIN_DEADLINE_MS = 120_000;
const SYNC_DEADLINE_MS = 30 * 60_000;
const CHECK_DEADLINE_MS = 10 * 60_000;
const POLL_MS = 100;
const DIVERGE_FRACTION = 0.01;

const CREDS = `${SOURCE}&`; // cluster name & empty password (security off)

// ---------------------------------------------------------------- the two members

/** The REST endpoint groups the bench's members open. */
const WAN_BENCH_GROUPS = ['DATA', 'HEALTH_CHECK', 'CLUSTER_READ', 'WAN'];

function sourceConfig(port, targetPort) {
  const endpoint = `${HOST}:${targetPort}`;
  const ref = (rep) => ({ 'wan-replication-ref': { [rep]: { 'merge-policy-class-name': 'PassThroughMergePolicy' } } });
  return memberConfig(SOURCE, HOST, port, {
    'wan-replication': {
      // Defaults except the consistency-check strategy (needed for the delta sync).
      [REP]: {
        'batch-publisher': {
          [PUB]: { 'cluster-name': TARGET, 'target-endpoints': endpoint, sync: { 'consistency-check-strategy': 'MERKLE_TREES' } },
        },
      },
      [REP_FAST]: {
        'batch-publisher': {
          [PUB_FAST]: { 'cluster-name': TARGET, 'target-endpoints': endpoint, 'batch-max-delay-millis': FAST_DELAY_MS },
        },
      },
    },
    map: {
      [MAP_OFF]: {},
      [MAP_ON]: ref(REP),
      [MAP_LAG]: ref(REP),
      [MAP_LAG_FAST]: ref(REP_FAST),
      [MAP_SYNC]: { ...ref(REP), 'merkle-tree': { enabled: true } },
    },
  }, WAN_BENCH_GROUPS);
}

function targetConfig(port) {
  return memberConfig(TARGET, HOST, port, { map: { [MAP_SYNC]: { 'merkle-tree': { enabled: true } } } }, WAN_BENCH_GROUPS);
}

/** Starts target B and source A and waits until A's publishers are connected. `nodeArgs`: extra node options (e.g. --cpu-prof) for experiments. */
export async function startPair({ nodeArgs = [] } = {}) {
  const [srcPort, tgtPort] = await reservePorts(2);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-wan-'));
  tempDirs.push(dir);
  const spawn = (name, port, config, logName) => {
    const file = path.join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(config));
    return startChild(`WAN ${name} member`, [...nodeArgs, path.join(ROOT, 'bin', 'grid.js'), 'start', '--config', file], logName);
  };
  const t0 = performance.now();
  const target = { port: tgtPort, child: spawn('target', tgtPort, targetConfig(tgtPort), 'wan-target.log') };
  const source = { port: srcPort, child: spawn('source', srcPort, sourceConfig(srcPort, tgtPort), 'wan-source.log') };
  await Promise.all([waitReady(target.child, tgtPort), waitReady(source.child, srcPort)]);
  // Ready is not yet connected: wait until both publishers see their endpoint up.
  const up = await waitFor(async () => {
    const ps = await publishers(srcPort);
    return ps.length === 2 && ps.every((p) => p.endpoints.every((e) => e.status === 'up')) ? ps : null;
  }, 30_000, 'WAN publishers connected');
  log(
    `wan: source ${SOURCE} pid ${source.child.pid} port ${srcPort}, target ${TARGET} pid ${target.child.pid} port ${tgtPort}; ` +
      `publishers ${up.map((p) => `${p.wanReplicationName}/${p.publisherId}`).join(', ')} up after ${Math.round(performance.now() - t0)} ms`,
  );
  return { source, target };
}

// ---------------------------------------------------------------- REST helpers

async function publishers(port) {
  return (await getJson(port, '/grid/rest/wan')).publishers;
}

export async function publisher(port, rep = REP, id = PUB) {
  const p = (await publishers(port)).find((x) => x.wanReplicationName === rep && x.publisherId === id);
  if (!p) throw new Error(`GET /grid/rest/wan: no publisher ${rep}/${id}`);
  return p;
}

/** POST a WAN call (`rest/wan/<op>`) with the credentials + params; returns the parsed JSON answer. */
async function wanPost(port, op, ...params) {
  const res = await httpRequest(port, 'POST', `${PREFIX}/rest/wan/${op}`, [CREDS, ...params].join('&'));
  if (res.status !== 200) throw new Error(`POST rest/wan/${op}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body);
}

/** Waits until the publisher's primary queue is empty (everything acknowledged); returns ms waited. */
async function drain(port, rep = REP, id = PUB, deadlineMs = DRAIN_DEADLINE_MS) {
  const t0 = performance.now();
  let last;
  while (performance.now() - t0 < deadlineMs) {
    last = await publisher(port, rep, id);
    if (last.primaryQueueSize === 0) return performance.now() - t0;
    await sleep(50);
  }
  throw new Error(`WAN queue ${rep}/${id} not drained within ${deadlineMs / 1000} s: ${JSON.stringify(last)}`);
}

const COUNTERS = ['eventsQueued', 'eventsSent', 'eventsAcknowledged', 'eventsDropped', 'batchesSent', 'batchesFailed'];
const counterDelta = (a, b) => Object.fromEntries(COUNTERS.map((k) => [k, b[k] - a[k]]));

function assertAlive(pair) {
  for (const m of [pair.source, pair.target]) {
    const c = m.child;
    if (c.exitCode !== null || c.signalCode !== null) {
      throw new Error(`${c.benchName} exited (code ${c.exitCode}, signal ${c.signalCode}); log ${path.relative(ROOT, c.logFile)}:\n${logTail(c.logFile)}`);
    }
  }
}

const cpuOf = (pair) => {
  const self = process.cpuUsage();
  return {
    source: readCpuMs(pair.source.child.pid),
    target: readCpuMs(pair.target.child.pid),
    self: (self.user + self.system) / 1000,
    system: readSystemBusyMs(),
    at: performance.now(),
  };
};
/** CPU in % of one core between two cpuOf readings: source, target, this process, everything else. */
function cpuPct(a, b) {
  const wall = b.at - a.at;
  const d = (k) => b[k] - a[k];
  const pct = (ms) => (ms / wall) * 100;
  return { source: pct(d('source')), target: pct(d('target')), bench: pct(d('self')), other: pct(Math.max(0, d('system') - d('source') - d('target') - d('self'))) };
}
const cpuText = (c) => `cpu source ${Math.round(c.source)}% target ${Math.round(c.target)}% bench ${Math.round(c.bench)}% other ${Math.round(c.other)}%`;

// ---------------------------------------------------------------- raw HTTP/1.1 connections


/** One keep-alive socket; requests may be pipelined; callbacks answered in order with (status, body, atMs). */
class RawConn {
  constructor(port) {
    this.port = port;
    this.pending = [];
    this.error = null;
    this.sock = net.connect({ host: HOST, port, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.sock.once('connect', resolve);
      this.sock.once('error', reject);
    });
    const parser = new BodyParser((status, body) => {
      const cb = this.pending.shift();
      if (cb) cb(status, body, performance.now());
    });
    this.sock.on('data', (d) => {
      try {
        parser.feed(d);
      } catch (err) {
        this.fail(err);
      }
    });
    this.sock.on('error', (err) => this.fail(err));
    this.sock.on('close', () => {
      if (this.pending.length) this.fail(new Error(`connection to port ${port} closed with ${this.pending.length} responses pending`));
    });
  }

  fail(err) {
    if (this.error) return;
    this.error = err;
    const cbs = this.pending.splice(0);
    for (const cb of cbs) cb(0, err.message, performance.now());
    this.sock.destroy();
  }

  /** Sends one raw request; `cb(status, body, atMs)` (status 0 = connection failed). */
  send(raw, cb) {
    if (this.error) {
      cb(0, this.error.message, performance.now());
      return;
    }
    this.pending.push(cb);
    this.sock.write(raw, 'latin1');
  }

  request(raw) {
    return new Promise((resolve) => this.send(raw, (status, body, at) => resolve({ status, body, at })));
  }

  close() {
    this.sock.end();
    this.sock.destroy();
  }
}

const postRaw = (port, map, key, value) =>
  `POST ${PREFIX}/rest/maps/${map}/${key} HTTP/1.1\r\nHost: ${HOST}:${port}\r\n` +
  `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(value, 'latin1')}\r\n\r\n${value}`;
const getRaw = (port, map, key) => `GET ${PREFIX}/rest/maps/${map}/${key} HTTP/1.1\r\nHost: ${HOST}:${port}\r\n\r\n`;

/**
 * Reads keys keyOf(0..count-1) of `map` back (pipelined GETs: `connections` sockets, batches
 * of `batch`) and checks 200 + expected(i). Returns counts and a few examples of mismatches.
 */
async function readBack({ port, map, count, keyOf, expected, connections = 16, batch = 64 }) {
  const out = { checked: count, ok: 0, missing: 0, wrongValue: 0, failed: 0, statuses: {}, examples: [] };
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    const c = new RawConn(port);
    await c.ready;
    try {
      while (next < count) {
        const start = next;
        const end = Math.min(count, start + batch);
        next = end;
        let raw = '';
        for (let i = start; i < end; i++) raw += getRaw(port, map, keyOf(i));
        const answers = [];
        for (let i = start; i < end; i++) answers.push(new Promise((resolve) => c.pending.push((status, body) => resolve({ i, status, body }))));
        c.sock.write(raw, 'latin1');
        for (const { i, status, body } of await Promise.all(answers)) {
          out.statuses[status] = (out.statuses[status] ?? 0) + 1;
          const want = expected(i);
          if (status === 200 && body === want) out.ok++;
          else {
            if (status === 200) out.wrongValue++;
            else if (status === 204 || status === 404) out.missing++;
            else out.failed++;
            if (out.examples.length < 5) out.examples.push({ key: keyOf(i), status, body: String(body).slice(0, 40) });
          }
        }
        if (c.error) throw c.error;
      }
    } finally {
      c.close();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  out.bad = out.checked - out.ok;
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}

/** `k` distinct random integers in [0, n), sorted. */
function sampleIndexes(n, k) {
  const set = new Set();
  k = Math.min(k, n);
  while (set.size < k) set.add(Math.floor(Math.random() * n));
  return [...set].sort((a, b) => a - b);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------- 1. throughput, WAN on vs off

/** The map POST workload of the single-member phase, aimed at `map` instead of `bench`. */
function postRequests(opts, map) {
  const from = `/rest/maps/bench/`;
  const to = `/rest/maps/${map}/`;
  return WORKLOADS.post.requests(opts).map((r) =>
    r.setupRequest
      ? {
          ...r,
          setupRequest: (req) => {
            const out = r.setupRequest(req);
            out.path = out.path.replace(from, to);
            return out;
          },
        }
      : { ...r, path: r.path.replace(from, to) },
  );
}

async function runThroughput(opts, pair, out) {
  const { source, target } = pair;
  for (const map of [MAP_OFF, MAP_ON]) {
    const pre = await pipelinedLoad({ port: source.port, map, count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
    if (pre.ok !== PRELOAD_KEYS) throw new Error(`preload ${map}: only ${pre.ok}/${PRELOAD_KEYS} answered 200 (${JSON.stringify(pre.statuses)})`);
  }
  await drain(source.port);
  log(
    `wan throughput: map POST (random keys of ${fmtInt(PRELOAD_KEYS)}, ${VALUE_SIZE} B) on the source, map '${MAP_OFF}' (no WAN) vs ` +
      `'${MAP_ON}' (wan-replication-ref ${REP}), ${opts.rounds} round(s) alternating, each ${WARMUP_SECONDS} s warm-up + ` +
      `${opts.duration} s measured, ${opts.connections} connections`,
  );
  const target2 = { ports: [source.port], pids: [source.child.pid, target.child.pid] };
  const rounds = [];
  const one = async (label, map) => {
    assertAlive(pair);
    const drainMs = await drain(source.port);
    const before = await publisher(source.port);
    const r = await cannon(target2, opts.connections, opts.duration, () => postRequests(opts, map));
    const after = await publisher(source.port);
    // source-only CPU per request; target CPU in % of a core
    r.sourceCpuUsPerReq = r.responses ? (r.perProcessCpuMs[0] * 1000) / r.responses : NaN;
    r.sourceCpuPct = (r.perProcessCpuMs[0] / (r.windowSeconds * 1000)) * 100;
    r.targetCpuPct = (r.perProcessCpuMs[1] / (r.windowSeconds * 1000)) * 100;
    // WAN counters over the whole run (warm-up included); queue at the end
    r.wan = { ...counterDelta(before, after), primaryQueueSizeAfter: after.primaryQueueSize, lagMillisAfter: after.lagMillis, drainedBeforeMs: drainMs };
    const bad = r.non2xx + r.errors + r.wholeRun.non2xx + r.wholeRun.errors;
    log(
      `  ${label.padEnd(10)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms)}  p99 ${fmtMs(r.p99Ms)}  ` +
        `source ${fmtUs(r.sourceCpuUsPerReq)} µs/req  cpu: source ${Math.round(r.sourceCpuPct)}% target ${Math.round(r.targetCpuPct)}% ` +
        `load-gen ${Math.round(r.loadGenCpuPct)}% other ${Math.round(r.otherCpuPct)}%` +
        (map === MAP_ON
          ? `  WAN: queued ${fmtInt(r.wan.eventsQueued)} sent ${fmtInt(r.wan.eventsSent)} dropped ${fmtInt(r.wan.eventsDropped)} ` +
            `batches ${fmtInt(r.wan.batchesSent)} (failed ${r.wan.batchesFailed}), queue at end ${fmtInt(after.primaryQueueSize)}`
          : '') +
        (bad ? `  !! non2xx ${r.non2xx} errors ${r.errors} ${JSON.stringify(r.wholeRun.statusCodes)}` : ''),
    );
    return r;
  };
  for (let i = 1; i <= opts.rounds; i++) {
    const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
    const off = await one(`off${tag}`, MAP_OFF);
    const on = await one(`on${tag}`, MAP_ON);
    rounds.push({ round: i, ratio: on.reqPerSec / off.reqPerSec, off, on });
  }
  const summ = (side) => {
    const runs = rounds.map((r) => r[side]);
    const s = summarize(runs);
    const responses = runs.reduce((n, r) => n + r.responses, 0);
    s.sourceCpuUsPerReq = (runs.reduce((n, r) => n + r.perProcessCpuMs[0], 0) * 1000) / responses;
    s.sourceCpuPct = median(runs.map((r) => r.sourceCpuPct));
    s.targetCpuPct = median(runs.map((r) => r.targetCpuPct));
    s.wan = Object.fromEntries(COUNTERS.map((k) => [k, runs.reduce((n, r) => n + r.wan[k], 0)]));
    return s;
  };
  const off = summ('off');
  const on = summ('on');
  const perRound = rounds.map((r) => r.ratio);
  out.throughput = {
    maps: { off: MAP_OFF, on: MAP_ON },
    off,
    on,
    ratio: on.reqPerSec / off.reqPerSec,
    spread: { min: Math.min(...perRound), max: Math.max(...perRound) },
    cpuUsPerReqRatio: on.sourceCpuUsPerReq / off.sourceCpuUsPerReq,
    valid: off.bad + on.bad === 0,
    rounds,
  };
  log(
    `  => median off ${fmtInt(off.reqPerSec)} / on ${fmtInt(on.reqPerSec)} req/s, ratio ${out.throughput.ratio.toFixed(2)} ` +
      `(rounds ${perRound.map((x) => x.toFixed(2)).join(', ')}); source µs/req ${fmtUs(off.sourceCpuUsPerReq)} / ${fmtUs(on.sourceCpuUsPerReq)}; ` +
      `WAN events dropped in the on runs: ${fmtInt(on.wan.eventsDropped)} of ${fmtInt(on.wan.eventsQueued + on.wan.eventsDropped)}`,
  );
}

// ---------------------------------------------------------------- 2. replication lag

/**
 * Paced writer + poller. The writer POSTs unique keys `<map>-<i>` to the source at `rate`/s
 * (LAG_WARMUP_SECONDS untracked, then `seconds` measured) and notes when each 200 arrives.
 * Every LAG_TRACK_EVERY-th measured key is then followed on the target: a FIFO of keys written
 * but not yet seen there, served by LAG_POLLERS connections with one GET in flight each, at
 * most LAG_POLL_RATE GETs/s in all; a key not found goes back to the end of the FIFO. For a
 * key first seen by a GET answered at `seenAt`, lag = seenAt - ackAt (an upper bound), and the
 * key arrived after max(ackAt, the send time of its last miss): that interval is the
 * measurement's resolution for that key, reported alongside.
 */
export async function measureLag(pair, { map, rate, seconds, delayMs, rep, pub }) {
  const { source, target } = pair;
  await drain(source.port, rep, pub);
  const writers = Array.from({ length: LAG_WRITERS }, () => new RawConn(source.port));
  const pollers = Array.from({ length: LAG_POLLERS }, () => new RawConn(target.port));
  await Promise.all([...writers, ...pollers].map((c) => c.ready));
  const total = Math.round(rate * (LAG_WARMUP_SECONDS + seconds));
  const warm = Math.round(rate * LAG_WARMUP_SECONDS);
  const value = valueFor(0);
  const run = `${map}-${Date.now().toString(36)}`; // keys unique to this run
  const tracked = [];
  const pending = [];
  let pendingHead = 0;
  const writeLat = [];
  const writeStatus = {};
  let issued = 0;
  let answered = 0;
  let measuredFirstAck = Infinity;
  let measuredLastAck = 0;
  let polls = 0;
  let pollMisses = 0;
  const pollStatus = {};
  const wanSamples = [];
  const before = await publisher(source.port, rep, pub);
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const cpu0 = cpuOf(pair);

  let writerDone = false;
  const t0 = performance.now();
  const writer = (async () => {
    while (issued < total) {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
      while (issued < due) {
        const i = issued++;
        const sentAt = performance.now();
        writers[i % LAG_WRITERS].send(postRaw(source.port, map, `${run}-${i}`, value), (status, _body, at) => {
          answered++;
          writeStatus[status] = (writeStatus[status] ?? 0) + 1;
          if (i < warm) return;
          writeLat.push(at - sentAt);
          measuredFirstAck = Math.min(measuredFirstAck, at);
          measuredLastAck = Math.max(measuredLastAck, at);
          if (status === 200 && (i - warm) % LAG_TRACK_EVERY === 0) {
            const e = { i, key: `${run}-${i}`, ackAt: at, lastMissAt: -Infinity, nextPollAt: at, polls: 0, seenAt: null };
            tracked.push(e);
            pending.push(e);
          }
        });
      }
      await sleep(1);
    }
    await waitFor(async () => answered === total, 30_000, 'lag writer: all writes answered', 5);
    writerDone = true;
  })();

  const pollDeadline = () => (writerDone ? measuredLastAck + delayMs + 30_000 : Infinity);
  const poller = async (c, w) => {
    const interval = (LAG_POLLERS * 1000) / LAG_POLL_RATE;
    let nextAt = performance.now() + (w * 1000) / LAG_POLL_RATE;
    while (performance.now() < pollDeadline()) {
      const now = performance.now();
      if (nextAt - now >= 1) await sleep(Math.floor(nextAt - now));
      if (pendingHead >= pending.length) {
        if (writerDone) break;
        await sleep(1);
        continue;
      }
      // FIFO: the head was asked longest ago; if it is not due yet, none is.
      const wait = pending[pendingHead].nextPollAt - performance.now();
      if (wait > 0) {
        await sleep(Math.max(1, Math.ceil(wait)));
        continue;
      }
      nextAt = Math.max(nextAt + interval, performance.now() - 5 * interval);
      const e = pending[pendingHead++];
      if (pendingHead > 4096 && pendingHead * 2 > pending.length) {
        pending.splice(0, pendingHead);
        pendingHead = 0;
      }
      const sentAt = performance.now();
      const r = await c.request(getRaw(target.port, map, e.key));
      polls++;
      e.polls++;
      pollStatus[r.status] = (pollStatus[r.status] ?? 0) + 1;
      if (r.status === 200) e.seenAt = r.at;
      else {
        if (r.status === 0) throw new Error(`lag poller: ${r.body}`);
        pollMisses++;
        e.lastMissAt = sentAt;
        e.nextPollAt = sentAt + LAG_REPOLL_MS;
        pending.push(e);
      }
    }
  };
  const sampler = (async () => {
    while (!writerDone || pendingHead < pending.length) {
      if (performance.now() > pollDeadline()) break;
      const p = await publisher(source.port, rep, pub).catch(() => null);
      if (p) wanSamples.push({ atMs: Math.round(performance.now() - t0), lagMillis: p.lagMillis, primaryQueueSize: p.primaryQueueSize });
      await sleep(500);
    }
  })();
  await Promise.all([writer, sampler, ...pollers.map(poller)]);
  const cpu1 = cpuOf(pair);
  loopDelay.disable();
  for (const c of [...writers, ...pollers]) c.close();
  const after = await publisher(source.port, rep, pub);

  const seen = tracked.filter((e) => e.seenAt !== null);
  const lags = seen.map((e) => e.seenAt - e.ackAt).sort((a, b) => a - b);
  const res = seen.map((e) => e.seenAt - Math.max(e.ackAt, e.lastMissAt)).sort((a, b) => a - b);
  writeLat.sort((a, b) => a - b);
  const measuredWrites = total - warm;
  const pollSeconds = (cpu1.at - cpu0.at) / 1000;
  const out = {
    map,
    wanReplicationName: rep,
    publisherId: pub,
    batchMaxDelayMillis: delayMs,
    targetRate: rate,
    seconds,
    warmupSeconds: LAG_WARMUP_SECONDS,
    writes: measuredWrites,
    achievedRate: measuredWrites / ((measuredLastAck - measuredFirstAck) / 1000),
    writeStatus,
    writeP50Ms: percentile(writeLat, 50),
    writeP99Ms: percentile(writeLat, 99),
    trackedEvery: LAG_TRACK_EVERY,
    tracked: tracked.length,
    seen: seen.length,
    notSeen: tracked.length - seen.length,
    lagP50Ms: percentile(lags, 50),
    lagP90Ms: percentile(lags, 90),
    lagP99Ms: percentile(lags, 99),
    lagMaxMs: lags[lags.length - 1] ?? NaN,
    lagMinMs: lags[0] ?? NaN,
    // width of the interval in which each key arrived (seenAt - max(ackAt, last miss sent))
    resolutionP50Ms: percentile(res, 50),
    resolutionP99Ms: percentile(res, 99),
    polls,
    pollMisses,
    pollStatus,
    pollRate: polls / pollSeconds,
    pollsPerKeyMean: seen.length ? seen.reduce((n, e) => n + e.polls, 0) / seen.length : NaN,
    // this process's event-loop delay: how late it could notice a 200 (ack or poll)
    benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    benchLoopDelayMaxMs: loopDelay.max / 1e6,
    cpuPct: cpuPct(cpu0, cpu1),
    wan: { ...counterDelta(before, after), maxLagMillisSeen: Math.max(0, ...wanSamples.map((s) => s.lagMillis)), samples: wanSamples },
    goal: { p99Ms: delayMs + LAG_GOAL_SLACK_MS },
  };
  out.goal.pass = out.notSeen === 0 && out.lagP99Ms <= out.goal.p99Ms;
  log(
    `  lag (${rep}, batch-max-delay-millis ${delayMs}): ${fmtInt(measuredWrites)} writes at ${fmtInt(out.achievedRate)}/s ` +
      `(write p99 ${fmtMs(out.writeP99Ms)}), ${fmtInt(seen.length)}/${fmtInt(tracked.length)} tracked keys seen on the target: ` +
      `lag p50 ${fmtMs(out.lagP50Ms)} p90 ${fmtMs(out.lagP90Ms)} p99 ${fmtMs(out.lagP99Ms)} max ${fmtMs(out.lagMaxMs)} ` +
      `(resolution p50 ${fmtMs(out.resolutionP50Ms)} p99 ${fmtMs(out.resolutionP99Ms)}, ${fmtInt(out.pollRate)} GETs/s); ` +
      `GET /rest/wan lagMillis max ${out.wan.maxLagMillisSeen}; batches ${out.wan.batchesSent}, dropped ${out.wan.eventsDropped}; ` +
      `bench event-loop delay p99 ${fmtMs(out.benchLoopDelayP99Ms)}; ${cpuText(out.cpuPct)}`,
  );
  return out;
}

async function runLag(opts, pair, out) {
  log(
    `wan lag: ${fmtInt(opts.wanRate)} writes/s of unique keys for ${LAG_WARMUP_SECONDS} s (untracked) + ${opts.wanSeconds} s, ` +
      `every ${LAG_TRACK_EVERY}th followed on the target (<= ${fmtInt(LAG_POLL_RATE)} GETs/s)`,
  );
  out.lag = [];
  out.lag.push(await measureLag(pair, { map: MAP_LAG, rate: opts.wanRate, seconds: opts.wanSeconds, delayMs: DEFAULTS.batchMaxDelayMillis, rep: REP, pub: PUB }));
  out.lag.push(await measureLag(pair, { map: MAP_LAG_FAST, rate: opts.wanRate, seconds: opts.wanSeconds, delayMs: FAST_DELAY_MS, rep: REP_FAST, pub: PUB_FAST }));
}

// ---------------------------------------------------------------- 3. full sync, 4. delta sync

const syncKey = (i) => `k${i}`;

async function waitSync(port, uuid, what) {
  const t0 = performance.now();
  const timeline = [];
  let lastLogged = -1;
  for (;;) {
    const r = (await getJson(port, `${PREFIX}/rest/wan/sync/progress/${uuid}`)).result;
    const at = performance.now() - t0;
    if (timeline.length === 0 || timeline[timeline.length - 1].progress !== r.progress) timeline.push({ atMs: Math.round(at), stage: r.stage, progress: r.progress });
    if (r.stage === 'FINISHED') return { ms: at, timeline };
    if (r.stage === 'FAILED') throw new Error(`${what}: sync ${uuid} FAILED ${JSON.stringify(r)}`);
    if (at > SYNC_DEADLINE_MS) throw new Error(`${what}: sync ${uuid} not finished within ${SYNC_DEADLINE_MS / 1000} s: ${JSON.stringify(r)}`);
    if (Math.floor(at / 10_000) > lastLogged) {
      lastLogged = Math.floor(at / 10_000);
      if (lastLogged > 0) log(`  ${what}: ${r.stage} ${r.progress}% after ${(at / 1000).toFixed(0)} s`);
    }
    await sleep(POLL_MS);
  }
}

/** sync/map of MAP_SYNC; returns time to FINISHED (from the POST), events sent, CPU. */
async function timedSync(pair, what) {
  const port = pair.source.port;
  const before = await publisher(port);
  const cpu0 = cpuOf(pair);
  const t0 = performance.now();
  const { uuid } = await wanPost(port, 'sync/map', REP, PUB, MAP_SYNC);
  const w = await waitSync(port, uuid, what);
  const ms = performance.now() - t0;
  const cpu1 = cpuOf(pair);
  const after = await publisher(port);
  return { uuid, ms, finishedPollMs: w.ms, timeline: w.timeline, wan: counterDelta(before, after), queueAfter: after.primaryQueueSize, cpuPct: cpuPct(cpu0, cpu1) };
}

async function consistencyCheck(pair, what) {
  const port = pair.source.port;
  const cpu0 = cpuOf(pair);
  const t0 = performance.now();
  const { uuid } = await wanPost(port, 'consistencyCheck/map', REP, PUB, MAP_SYNC);
  for (;;) {
    const r = (await getJson(port, `/grid/rest/wan/consistencyCheck/${uuid}`)).result;
    const ms = performance.now() - t0;
    if (r.stage === 'FINISHED') return { uuid, ms, cpuPct: cpuPct(cpu0, cpuOf(pair)), ...r };
    if (r.stage === 'FAILED') throw new Error(`${what}: consistency check ${uuid} FAILED ${JSON.stringify(r)}`);
    if (ms > CHECK_DEADLINE_MS) throw new Error(`${what}: consistency check ${uuid} not finished within ${CHECK_DEADLINE_MS / 1000} s: ${JSON.stringify(r)}`);
    await sleep(POLL_MS);
  }
}

const checkLine = (c) =>
  `${(c.ms / 1000).toFixed(2)} s: partitions ${c.partitionsDiffering}/${c.partitionsChecked} differ, leaves ${fmtInt(c.leavesDiffering)}/${fmtInt(c.leavesChecked)}, entriesToSync ${fmtInt(c.entriesToSync)}`;

async function runSync(opts, pair, out) {
  const { source, target } = pair;
  const n = opts.wanEntries;
  const s = (out.sync = { map: MAP_SYNC, entries: n, valueBytes: VALUE_SIZE });
  await drain(source.port);

  // Load with the publisher STOPPED: the entries are dropped from WAN (counted), not replicated live.
  await wanPost(source.port, 'stopPublisher', REP, PUB);
  const p0 = await publisher(source.port);
  if (p0.state !== 'STOPPED') throw new Error(`stopPublisher: state ${p0.state}`);
  log(`wan sync: publisher ${REP}/${PUB} STOPPED; loading ${fmtInt(n)} entries into '${MAP_SYNC}' on the source`);
  const load = await pipelinedLoad({ port: source.port, map: MAP_SYNC, count: n, keyOf: syncKey, stallMs: 60_000 });
  if (load.ok !== n) throw new Error(`loading ${MAP_SYNC}: only ${load.ok}/${n} answered 200 (${JSON.stringify(load.statuses)})`);
  const p1 = await publisher(source.port);
  await wanPost(source.port, 'resumePublisher', REP, PUB);
  s.load = { seconds: load.seconds, rate: load.rate, eventsDroppedWhileStopped: p1.eventsDropped - p0.eventsDropped, eventsQueuedWhileStopped: p1.eventsQueued - p0.eventsQueued };
  const probe = await readBack({ port: target.port, map: MAP_SYNC, count: Math.min(n, 1000), keyOf: syncKey, expected: valueFor });
  s.load.presentOnTargetBeforeSync = probe.ok;
  log(
    `wan sync: loaded in ${load.seconds.toFixed(1)} s (${fmtInt(load.rate)} entries/s); events dropped while STOPPED ${fmtInt(s.load.eventsDroppedWhileStopped)}; ` +
      `publisher resumed; first ${fmtInt(probe.checked)} keys on the target before the sync: ${probe.ok} present`,
  );

  // 3. full sync
  log(`wan sync: full sync of '${MAP_SYNC}' (sync/map), polling progress every ${POLL_MS} ms`);
  const full = (s.full = await timedSync(pair, 'full sync'));
  full.rate = n / (full.ms / 1000);
  log(
    `wan sync: full sync FINISHED in ${(full.ms / 1000).toFixed(2)} s = ${fmtInt(full.rate)} entries/s; eventsSent ${fmtInt(full.wan.eventsSent)}, ` +
      `batches ${fmtInt(full.wan.batchesSent)} (failed ${full.wan.batchesFailed}); ${cpuText(full.cpuPct)}`,
  );
  full.verify = await readBack({ port: target.port, map: MAP_SYNC, count: n, keyOf: syncKey, expected: valueFor });
  log(
    `wan sync: read back all ${fmtInt(n)} keys on the target in ${full.verify.seconds.toFixed(1)} s: ${fmtInt(full.verify.ok)} OK, ` +
      `missing ${full.verify.missing}, wrong ${full.verify.wrongValue}, failed ${full.verify.failed}` +
      (full.verify.bad ? ` ${JSON.stringify(full.verify.examples)}` : ''),
  );
  s.checkInSync = await consistencyCheck(pair, 'check after the full sync');
  log(`wan sync: consistency check of the synced map ${checkLine(s.checkInSync)}`);

  // 4. diverge 1 % on the target, check, delta sync
  const k = Math.max(1, Math.round(n * DIVERGE_FRACTION));
  const idx = sampleIndexes(n, k);
  const divergedValue = (i) => `diverged-${i}:`.padEnd(VALUE_SIZE, 'y');
  const dv = await pipelinedLoad({ port: target.port, map: MAP_SYNC, count: k, keyOf: (j) => syncKey(idx[j]), valueAt: (j) => divergedValue(idx[j]) });
  if (dv.ok !== k) throw new Error(`diverging the target: only ${dv.ok}/${k} answered 200 (${JSON.stringify(dv.statuses)})`);
  const d = (out.delta = { diverged: k, fraction: DIVERGE_FRACTION });
  d.check = await consistencyCheck(pair, 'check after diverging');
  log(`wan delta: ${fmtInt(k)} random keys changed on the target; consistency check ${checkLine(d.check)}`);
  const sync = (d.sync = await timedSync(pair, 'delta sync'));
  log(
    `wan delta: delta sync FINISHED in ${(sync.ms / 1000).toFixed(2)} s; eventsSent ${fmtInt(sync.wan.eventsSent)} ` +
      `(${((sync.wan.eventsSent / full.wan.eventsSent) * 100).toFixed(1)}% of the full sync's ${fmtInt(full.wan.eventsSent)}), batches ${fmtInt(sync.wan.batchesSent)}`,
  );
  d.verifyDiverged = await readBack({ port: target.port, map: MAP_SYNC, count: k, keyOf: (j) => syncKey(idx[j]), expected: (j) => valueFor(idx[j]) });
  d.verify = await readBack({ port: target.port, map: MAP_SYNC, count: n, keyOf: syncKey, expected: valueFor });
  d.checkAfter = await consistencyCheck(pair, 'check after the delta sync');
  log(
    `wan delta: diverged keys repaired ${fmtInt(d.verifyDiverged.ok)}/${fmtInt(k)}; all ${fmtInt(n)} keys ${fmtInt(d.verify.ok)} OK ` +
      `(missing ${d.verify.missing}, wrong ${d.verify.wrongValue}); check afterwards ${checkLine(d.checkAfter)}`,
  );
}

// ---------------------------------------------------------------- entry and report

/** Runs the WAN phase if opts.only lists it; fills report.wan (errors recorded, not thrown). */
export async function runWan(opts, report) {
  if (!opts.only.includes('wan')) return;
  if (opts.target !== 'grid') {
    log(`wan phase needs the real member: skipped with --target ${opts.target}`);
    return;
  }
  for (const f of readdirSync(RESULTS_DIR)) if (/^wan-(source|target)\.log$/.test(f)) rmSync(path.join(RESULTS_DIR, f));
  const out = (report.wan = {
    source: `${SOURCE} (1 member)`,
    target: `${TARGET} (1 member)`,
    publisher: { ...DEFAULTS, consistencyCheckStrategy: 'MERKLE_TREES' },
    options: { entries: opts.wanEntries, rate: opts.wanRate, seconds: opts.wanSeconds },
    errors: [],
  });
  let pair;
  try {
    pair = await startPair();
    for (const [name, part] of [
      ['throughput', runThroughput],
      ['lag', runLag],
      ['sync', runSync],
    ]) {
      try {
        assertAlive(pair);
        await part(opts, pair, out);
      } catch (err) {
        out.errors.push(`${name}: ${err.message}`);
        log(`wan ${name} part FAILED: ${err.stack ?? err}`);
      }
    }
    out.rss = { source: readRss(pair.source.child.pid), target: readRss(pair.target.child.pid) };
  } catch (err) {
    out.errors.push(`setup: ${err.message}`);
    log(`wan part FAILED: ${err.stack ?? err}`);
  } finally {
    if (pair) await Promise.all([stopChild(pair.source.child), stopChild(pair.target.child)]);
  }
  try {
    await runResume(opts, out);
  } catch (err) {
    out.errors.push(`resume: ${err.message}`);
    log(`wan resume part FAILED: ${err.stack ?? err}`);
  }
}

export function renderWanReport(report) {
  const w = report.wan;
  if (!w) return '';
  const lines = [];
  const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');
  lines.push(
    `WAN: source ${w.source} -> target ${w.target}, same machine; publisher defaults (batch-size ${w.publisher.batchSize}, ` +
      `batch-max-delay-millis ${w.publisher.batchMaxDelayMillis}, queue-capacity ${fmtInt(w.publisher.queueCapacity)}, ` +
      `${w.publisher.acknowledgeType}), consistency-check-strategy MERKLE_TREES`,
  );
  const rows = [];
  const t = w.throughput;
  if (t) {
    const side = (s) =>
      `${fmtInt(s.reqPerSec)} req/s, p50 ${s.p50Ms.toFixed(2)} / p99 ${s.p99Ms.toFixed(2)} ms, ${fmtUs(s.sourceCpuUsPerReq)} µs/req on the source, ` +
      `cpu source ${Math.round(s.sourceCpuPct)}% target ${Math.round(s.targetCpuPct)}% load-gen ${Math.round(s.loadGenCpuPct)}% other ${Math.round(s.otherCpuPct)}%`;
    rows.push(['map POST, WAN off', side(t.off)]);
    rows.push([
      'map POST, WAN on',
      side(t.on) +
        `; WAN events queued ${fmtInt(t.on.wan.eventsQueued)}, dropped ${fmtInt(t.on.wan.eventsDropped)} (queue full), batches ${fmtInt(t.on.wan.batchesSent)}`,
    ]);
    rows.push([
      'throughput ratio on/off',
      `${t.ratio.toFixed(2)} (rounds ${t.spread.min.toFixed(2)}-${t.spread.max.toFixed(2)}); source CPU/req on/off ${t.cpuUsPerReqRatio.toFixed(2)}` +
        (t.valid ? '' : '  INVALID: non-2xx/errors'),
    ]);
  }
  for (const l of w.lag ?? []) {
    rows.push([
      `lag @${fmtInt(l.targetRate)}/s, delay ${l.batchMaxDelayMillis}`,
      `p50 ${l.lagP50Ms.toFixed(1)} / p99 ${l.lagP99Ms.toFixed(1)} / max ${l.lagMaxMs.toFixed(1)} ms over ${fmtInt(l.seen)} keys` +
        (l.notSeen ? ` (${l.notSeen} NEVER SEEN)` : '') +
        `; goal p99 <= ${l.goal.p99Ms} ms ${mark(l.goal.pass)}` +
        (l.batchMaxDelayMillis === DEFAULTS.batchMaxDelayMillis ? '' : ' (extra)'),
    ]);
    rows.push([
      '',
      `achieved ${fmtInt(l.achievedRate)} writes/s (write p99 ${l.writeP99Ms.toFixed(2)} ms); resolution p50 ${l.resolutionP50Ms.toFixed(1)} / p99 ${l.resolutionP99Ms.toFixed(1)} ms ` +
        `(${fmtInt(l.pollRate)} GETs/s); /rest/wan lagMillis max ${l.wan.maxLagMillisSeen}; ${fmtInt(l.wan.batchesSent)} batches = ${fmtInt(l.wan.eventsSent / Math.max(1, l.wan.batchesSent))} events each`,
    ]);
    rows.push(['', `${cpuText(l.cpuPct)}; bench event-loop delay p99 ${l.benchLoopDelayP99Ms.toFixed(1)} ms`]);
  }
  const s = w.sync;
  if (s?.load) {
    rows.push([
      `load (publisher STOPPED)`,
      `${fmtInt(s.entries)} entries x ${s.valueBytes} B in ${s.load.seconds.toFixed(1)} s (${fmtInt(s.load.rate)}/s); ${fmtInt(s.load.eventsDroppedWhileStopped)} events dropped, ` +
        `${s.load.presentOnTargetBeforeSync} of the first 1,000 keys on the target before the sync`,
    ]);
  }
  if (s?.full) {
    const f = s.full;
    rows.push([
      'full sync',
      `${sec(f.ms)} = ${fmtInt(f.rate)} entries/s; ${fmtInt(f.wan.eventsSent)} events sent in ${fmtInt(f.wan.batchesSent)} batches; ` +
        `${cpuText(f.cpuPct)}` +
        (f.verify ? `; target read-back ${fmtInt(f.verify.ok)}/${fmtInt(f.verify.checked)} OK${f.verify.bad ? ' MISMATCH' : ''}` : ''),
    ]);
  }
  if (s?.checkInSync) rows.push(['check, in sync', checkLine(s.checkInSync)]);
  const d = w.delta;
  if (d?.check) rows.push([`check, ${fmtInt(d.diverged)} diverged`, checkLine(d.check)]);
  if (d?.sync && s?.full) {
    const f = s.full;
    rows.push([
      'delta sync',
      `${sec(d.sync.ms)}, ${fmtInt(d.sync.wan.eventsSent)} events sent = ${((d.sync.wan.eventsSent / f.wan.eventsSent) * 100).toFixed(1)}% of the full sync's ` +
        `${fmtInt(f.wan.eventsSent)} in ${((d.sync.ms / f.ms) * 100).toFixed(1)}% of its time (${sec(f.ms)})`,
    ]);
  }
  if (d?.verify) {
    rows.push([
      'after the delta sync',
      `diverged keys repaired ${fmtInt(d.verifyDiverged.ok)}/${fmtInt(d.diverged)}; target read-back ${fmtInt(d.verify.ok)}/${fmtInt(d.verify.checked)} OK` +
        (d.verify.bad ? ' MISMATCH' : '') +
        (d.checkAfter ? `; check ${checkLine(d.checkAfter)}` : ''),
    ]);
  }
  if (w.resume?.skipped) rows.push(['resume after a cut', `skipped: ${w.resume.skipped}`]);
  for (const c of w.resume?.cuts ?? []) {
    rows.push([
      `resume after a ${c.cutSeconds} s cut`,
      `endpoint down after ${sec(c.detectedMs)} (${c.cause}); first entry of the cut on the target ${sec(c.firstEntryMs)} after the heal, ` +
        `all replicated ${sec(c.allReplicatedMs)}; ${fmtInt(c.writesDuringCut)} writes during the cut, ${c.missing} missing; ` +
        `goal first entry <= ${RESUME_GOAL_MS / 1000} s ${mark(c.firstEntryMs <= RESUME_GOAL_MS)}`,
    ]);
    if (c.tcpOnly) {
      rows.push([
        '',
        `the same with heartbeat-timeout-millis 0 (TCP alone): endpoint "${c.tcpOnly.statusAtHeal}" at the heal, first entry ${sec(c.tcpOnly.firstEntryMs)}, ` +
          `all replicated ${sec(c.tcpOnly.allReplicatedMs)}, ${c.tcpOnly.missing} missing`,
      ]);
    }
  }
  if (w.rss) rows.push(['RSS at the end', `source ${(w.rss.source.rss / 1e6).toFixed(0)} MB, target ${(w.rss.target.rss / 1e6).toFixed(0)} MB`]);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [k, v] of rows) lines.push(`${k.padEnd(width)}  ${v}`);
  const tl = w.lag?.[0];
  if (tl) {
    lines.push(
      `NOTE lag = time from the source's 200 to the first GET on the target that answered 200, for every ${tl.trackedEvery}th key ` +
        `(an upper bound: the key arrived within the "resolution" before). At ${fmtInt(tl.targetRate)} writes/s a ${w.publisher.batchSize}-event ` +
        `batch fills in ${fmtInt((w.publisher.batchSize / tl.targetRate) * 1000)} ms, so batches leave when full, not after batch-max-delay-millis.`,
    );
  }
  const noisy = [];
  for (const r of t?.rounds ?? []) for (const side of ['off', 'on']) if (r[side].otherCpuPct > 25) noisy.push(`POST ${side} round ${r.round} (${Math.round(r[side].otherCpuPct)}%)`);
  for (const l of w.lag ?? []) if (l.cpuPct.other > 25) noisy.push(`lag delay ${l.batchMaxDelayMillis} (${Math.round(l.cpuPct.other)}%)`);
  if (s?.full && s.full.cpuPct.other > 25) noisy.push(`full sync (${Math.round(s.full.cpuPct.other)}%)`);
  if (d?.sync && d.sync.cpuPct.other > 25) noisy.push(`delta sync (${Math.round(d.sync.cpuPct.other)}%)`);
  if (noisy.length) {
    lines.push(
      `NOTE other processes used over 25% of a core during ${noisy.join(', ')}: source, target and this process share ` +
        `${report.cpus} cores, so those figures are noisy (a starved source answers late and its WAN queue overflows)`,
    );
  }
  if (t && t.on.wan.eventsDropped > 0) {
    lines.push(
      `NOTE the WAN-on POST runs wrote faster than the publisher delivered: ${fmtInt(t.on.wan.eventsDropped)} events were dropped at queue-capacity ` +
        `${fmtInt(w.publisher.queueCapacity)} (DISCARD_AFTER_MUTATION), so the target missed those writes.`,
    );
  }
  for (const e of w.errors) lines.push(`ERROR wan ${e}`);
  return lines.join('\n');
}

/** True when the WAN part found a problem (for the exit code). */
export function wanProblems(report) {
  const w = report.wan;
  if (!w) return false;
  const bad = (v) => v && v.bad > 0;
  return (
    w.errors.length > 0 ||
    (w.throughput && !w.throughput.valid) ||
    (w.lag ?? []).some((l) => l.notSeen > 0) ||
    bad(w.sync?.full?.verify) ||
    bad(w.delta?.verify) ||
    (w.resume?.cuts ?? []).some((c) => c.missing > 0)
  );
}
