// Persistence part of the Grid benchmark (see bench/README.md, "Persistence"). Members are
// `node <grid bin> start --config <tmp yaml>` children (the grid bin is --grid-bin, default
// bin/grid.js) with `persistence: {enabled: true, base-dir: <tmp dir>}`. Measured, in order:
//   1. map POST throughput on one member with three maps: in-memory, data-persistence fsync
//      false, fsync true (the map POST workload of the single-member phase, rounds rotating
//      over the three maps); plus the raw fdatasync latency of the disk under base-dir
//   2. restart of one member holding --persistence-entries entries (default 1,000,000 x 100 B):
//      load, clusterShutdown, start again with the same config and ports, time from the spawn to
//      /health/ready 200, with the member's own "persistence: loaded" figures (read and restore
//      times); read-back; every key overwritten once; restart after kill -9; read-back again
//   3. the same for a 3-member cluster (backup-count 1) holding --persistence-cluster-entries
//      (default 3,000,000): time until all three are ready, same partition table, read-back
//   4. bytes on disk per entry (every file under base-dir: apparent size and allocated blocks)
//      after the load, after overwriting every key once, after the member's compaction
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import {
  HOST,
  PREFIX,
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
} from './lib.mjs';
import { loadSpread } from './cluster.mjs';

export const PERSISTENCE_PHASES = ['persistence'];
export const DEFAULT_GRID_BIN = path.join(ROOT, 'bin', 'grid.js');

export const PERSISTENCE_TARGETS = { fsyncFalseRatio: 0.8, restartMs: 10_000 };
const CLUSTER_NAME = 'bench-persist';
const CREDS = `${CLUSTER_NAME}&`; // cluster name & empty password (security off)
/** The three maps of the throughput part, in the order of a round (rotated every round). */
const TPUT_MAPS = [
  { key: 'memory', map: 'tput-mem', label: 'in-memory', persistence: null },
  { key: 'fsyncFalse', map: 'tput-fsync-false', label: 'persisted, fsync false', persistence: { enabled: true, fsync: false } },
  { key: 'fsyncTrue', map: 'tput-fsync-true', label: 'persisted, fsync true', persistence: { enabled: true, fsync: true } },
];
/** The map of the restart parts (fsync false: fsync does not change what is on disk). */
const MAP = 'persisted';
const CLUSTER_SIZE = 3;
const BACKUP_COUNT = 1;
// Default heartbeats (5 s / 60 s), not the cluster phases' 1 s / 5 s: members that just restored
// millions of entries pause for seconds in GC, and on this shared box that must not get one removed.
const PROPERTIES = {};
const READY_DEADLINE_MS = 10 * 60_000;
const FORM_DEADLINE_MS = 60_000;
const SAFE_DEADLINE_MS = 120_000;
const EXIT_DEADLINE_MS = 120_000;
const COMPACTION_WAIT_MS = 40_000;
const READY_POLL_MS = 20;
/** Keys read back after a restart: all of them up to this many, else a random sample of this many. */
const VERIFY_MAX = 1_000_000;
/** Keys read back after the kill -9 restart (overwritten values). */
const VERIFY_AFTER_KILL = 200_000;
const FSYNC_PROBES = 200;

const keyOf = (i) => `k${i}`;
/** The value every key gets when overwritten (same size as valueFor's, different content). */
const value2For = (i) => `w${i}:`.padEnd(VALUE_SIZE, 'y');

// ---------------------------------------------------------------- members

function memberConfig(port, memberList, maps, baseDir) {
  return {
    hazelcast: {
      'cluster-name': CLUSTER_NAME,
      network: {
        port: { port, 'auto-increment': false },
        interfaces: { enabled: true, interfaces: [HOST] },
        join: { multicast: { enabled: false }, 'tcp-ip': { enabled: true, 'member-list': memberList.map((p) => `${HOST}:${p}`) } },
        'rest-api': {
          enabled: true,
          'endpoint-groups': {
            DATA: { enabled: true },
            HEALTH_CHECK: { enabled: true },
            CLUSTER_READ: { enabled: true },
            CLUSTER_WRITE: { enabled: true },
          },
        },
      },
      ...(Object.keys(PROPERTIES).length ? { properties: PROPERTIES } : {}),
      persistence: { enabled: true, 'base-dir': baseDir },
      map: maps,
    },
  };
}

/**
 * A member that can be started again with the same config, port and base-dir. `start(run)`
 * spawns it (log bench/results/<logPrefix>-<run>.log) and remembers the spawn time.
 */
class PMember {
  constructor({ name, port, config, dir, baseDir, logPrefix, opts }) {
    this.name = name;
    this.port = port;
    this.baseDir = baseDir;
    this.logPrefix = logPrefix;
    this.opts = opts;
    this.configFile = path.join(dir, `${logPrefix}.yaml`);
    writeFileSync(this.configFile, stringify(config));
    this.child = null;
  }

  start(run) {
    const args = [...this.opts.nodeArgs, this.opts.gridBin, 'start', '--config', this.configFile];
    this.spawnWall = Date.now();
    this.spawnAt = performance.now();
    this.child = startChild(`${this.name}`, args, `${this.logPrefix}-${run}.log`);
    return this;
  }

  alive() {
    return this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  assertAlive() {
    if (!this.alive()) {
      const c = this.child;
      throw new Error(`${c?.benchName ?? this.name} exited (code ${c?.exitCode}, signal ${c?.signalCode}); log ${c ? path.relative(ROOT, c.logFile) : '-'}:\n${c ? logTail(c.logFile) : ''}`);
    }
  }

  /** Polls /health/ready every READY_POLL_MS; resolves with ms from the spawn to the first 200. */
  async waitReady(deadlineMs = READY_DEADLINE_MS) {
    let last = 'no answer';
    while (performance.now() - this.spawnAt < deadlineMs) {
      this.assertAlive();
      try {
        const res = await httpRequest(this.port, 'GET', `${PREFIX}/health/ready`);
        if (res.status === 200) {
          this.readyAt = performance.now();
          this.readyWall = Date.now();
          return this.readyAt - this.spawnAt;
        }
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = err.message;
      }
      await sleep(READY_POLL_MS);
    }
    throw new Error(`${this.name} not ready within ${deadlineMs / 1000} s (last: ${last}); log ${path.relative(ROOT, this.child.logFile)}:\n${logTail(this.child.logFile)}`);
  }

  /** SIGKILL, wait for the exit. */
  async kill9() {
    if (!this.alive()) return;
    this.child.stoppedByBench = true;
    this.child.kill('SIGKILL');
    await this.child.exited;
  }
}

/**
 * The member's "persistence: loaded ..." (or "no persisted data") log line, parsed: entries,
 * items, bytes, readMs, restoreMs, time (ms since the epoch at the end of the restore).
 */
async function loadedLine(member) {
  for (let attempt = 0; attempt < 50; attempt++) {
    let text = '';
    try {
      text = readFileSync(member.child.logFile, 'utf8');
    } catch {
      // not yet
    }
    for (const line of text.split('\n')) {
      if (!line.startsWith('{') || !line.includes('"persistence: ')) continue;
      let j;
      try {
        j = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof j.msg === 'string' && (j.msg.startsWith('persistence: loaded') || j.msg.startsWith('persistence: no persisted data'))) {
        return {
          entries: j.entries,
          items: j.items,
          bytes: j.bytes,
          readMs: j.readMs,
          restoreMs: j.restoreMs,
          entriesPerSecond: j.entriesPerSecond,
          endWall: Date.parse(j.time),
          msg: j.msg,
        };
      }
    }
    await sleep(100);
  }
  return null;
}

/** Everything the bench knows about one member's start: times from the spawn, its own load figures, CPU and memory at ready. */
async function startFigures(member, readyMs, window) {
  const otherCpuPct = window ? window.end().otherCpuPct : undefined;
  const loaded = await loadedLine(member);
  const pid = member.child.pid;
  const out = { address: `${HOST}:${member.port}`, pid, readyMs, cpuMsAtReady: readCpuMs(pid), ...rssFields(readRss(pid)), otherCpuPct, loaded };
  if (loaded && Number.isFinite(loaded.readMs) && Number.isFinite(loaded.restoreMs) && Number.isFinite(loaded.endWall)) {
    // spawn -> the member opens its persistence directory (node start-up, modules, config)
    out.bootMs = loaded.endWall - loaded.readMs - loaded.restoreMs - member.spawnWall;
    // end of the restore -> /health/ready 200 (join, waiting for the persisted members, the table, REST)
    out.afterLoadMs = member.readyWall - loaded.endWall;
  }
  return out;
}

const rssFields = (r) => ({ rssBytes: r.rss, peakRssBytes: r.hwm });

/**
 * CPU over a window: `const w = cpuWindow(pids)` ... `w.end()` gives the members' CPU (ms, summed),
 * this process's, and everything else on the machine in % of one core (noise: other processes).
 */
function cpuWindow(pids) {
  const at = performance.now();
  const m0 = pids.map(readCpuMs);
  const self0 = process.cpuUsage();
  const sys0 = readSystemBusyMs();
  return {
    end() {
      const wall = performance.now() - at;
      let members = 0;
      for (let i = 0; i < pids.length; i++) {
        try {
          members += readCpuMs(pids[i]) - m0[i];
        } catch {
          // exited meanwhile
        }
      }
      const self = process.cpuUsage(self0);
      const selfMs = (self.user + self.system) / 1000;
      const other = Math.max(0, readSystemBusyMs() - sys0 - members - selfMs);
      return { wallMs: wall, memberCpuMs: members, memberCpuPct: (members / wall) * 100, benchCpuPct: (selfMs / wall) * 100, otherCpuPct: (other / wall) * 100 };
    },
  };
}

/** POST clusterShutdown to `member`; resolves once every member in `all` has exited: ms, exit codes. */
async function clusterShutdown(member, all) {
  const t0 = performance.now();
  const res = await httpRequest(member.port, 'POST', `${PREFIX}/rest/management/cluster/clusterShutdown`, CREDS);
  if (res.status !== 200) throw new Error(`clusterShutdown: HTTP ${res.status} ${res.body.slice(0, 200)}`);
  for (const m of all) m.child.stoppedByBench = true;
  const timeout = sleep(EXIT_DEADLINE_MS).then(() => 'timeout');
  const exits = await Promise.race([Promise.all(all.map((m) => m.child.exited)), timeout]);
  if (exits === 'timeout') throw new Error(`clusterShutdown: not every member exited within ${EXIT_DEADLINE_MS / 1000} s`);
  return { ms: performance.now() - t0, exitCodes: exits.map((e) => e.code ?? e.signal) };
}

// ---------------------------------------------------------------- disk

/** Every file under `dir`: apparent size (bytes) and allocated blocks (bytes), recursively. */
export function dirUsage(dir) {
  let bytes = 0;
  let allocated = 0;
  let files = 0;
  const walk = (d) => {
    let names;
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(d, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue; // deleted meanwhile (compaction)
      }
      if (st.isDirectory()) walk(p);
      else {
        bytes += st.size;
        allocated += st.blocks * 512;
        files++;
      }
    }
  };
  walk(dir);
  return { bytes, allocated, files };
}

function diskFigures(dirs, entries) {
  const per = dirs.map(dirUsage);
  const bytes = per.reduce((n, u) => n + u.bytes, 0);
  const allocated = per.reduce((n, u) => n + u.allocated, 0);
  return { bytes, allocated, files: per.reduce((n, u) => n + u.files, 0), entries, bytesPerEntry: bytes / entries, allocatedPerEntry: allocated / entries, ...(dirs.length > 1 ? { perMember: per } : {}) };
}

/** fdatasync latency of the file system under `dir`: FSYNC_PROBES appends of 4 KiB, each synced. */
function probeFdatasync(dir) {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const buf = Buffer.alloc(4096, 0x61);
  const times = [];
  try {
    for (let i = 0; i < FSYNC_PROBES; i++) {
      writeSync(fd, buf);
      const t0 = performance.now();
      fdatasyncSync(fd);
      times.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
  return { probes: FSYNC_PROBES, appendBytes: buf.length, p50Ms: pct(50), p99Ms: pct(99), maxMs: times[times.length - 1], meanMs: times.reduce((a, b) => a + b, 0) / times.length };
}

/** Bytes written to the storage layer by a process so far (/proc/<pid>/io write_bytes), or NaN. */
function writeBytes(pid) {
  try {
    const m = /^write_bytes:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------- read-back


/**
 * GETs keyOf(indexes[j]) of `map` (pipelined: `connections` sockets spread over `ports`,
 * batches of `batch`) and checks 200 + expected(index). Counts and a few examples.
 */
function readBack({ ports, map, indexes, expected, connections = 16, batch = 64, stallMs = 60_000 }) {
  const count = indexes.length;
  const out = { checked: count, ok: 0, missing: 0, wrongValue: 0, failed: 0, statuses: {}, examples: [] };
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const sockets = [];
    let next = 0;
    let answered = 0;
    let open = 0;
    let settled = false;
    let lastAnswered = 0;
    let lastProgress = Date.now();
    const finish = (err) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      for (const s of sockets) s.destroy();
      if (err) reject(err);
      else {
        out.bad = out.checked - out.ok;
        out.seconds = (performance.now() - t0) / 1000;
        resolve(out);
      }
    };
    const watchdog = setInterval(() => {
      if (answered !== lastAnswered) {
        lastAnswered = answered;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress > stallMs) {
        finish(new Error(`read-back stalled: ${answered}/${count} answered, no progress for ${stallMs / 1000} s`));
      }
    }, 1000);
    const nConn = Math.max(1, Math.min(connections, Math.ceil(count / batch)));
    if (count === 0) return finish();
    for (let c = 0; c < nConn; c++) {
      const port = ports[c % ports.length];
      const sock = net.connect({ host: HOST, port, noDelay: true });
      sockets.push(sock);
      open++;
      let inFlight = [];
      let waiting = 0;
      const sendBatch = () => {
        if (next >= count) {
          sock.end();
          if (--open === 0) finish();
          return;
        }
        const start = next;
        const end = Math.min(count, start + batch);
        next = end;
        inFlight = indexes.slice(start, end);
        waiting = inFlight.length;
        let raw = '';
        for (const i of inFlight) raw += `GET ${PREFIX}/rest/maps/${map}/${keyOf(i)} HTTP/1.1\r\nHost: ${HOST}:${port}\r\n\r\n`;
        sock.write(raw, 'latin1');
      };
      let pos = 0;
      const parser = new BodyParser((status, body) => {
        const i = inFlight[pos++];
        waiting--;
        answered++;
        out.statuses[status] = (out.statuses[status] ?? 0) + 1;
        if (status === 200 && body === expected(i)) out.ok++;
        else {
          if (status === 200) out.wrongValue++;
          else if (status === 204 || status === 404) out.missing++;
          else out.failed++;
          if (out.examples.length < 5) out.examples.push({ key: keyOf(i), via: port, status, body: String(body).slice(0, 40) });
        }
        if (pos === inFlight.length) {
          pos = 0;
          sendBatch();
        }
      });
      sock.on('connect', sendBatch);
      sock.on('data', (d) => {
        try {
          parser.feed(d);
        } catch (err) {
          finish(err);
        }
      });
      sock.on('error', (err) => finish(new Error(`read-back socket error: ${err.message}`)));
      sock.on('close', () => {
        if (waiting > 0) finish(new Error(`read-back connection to ${port} closed with ${waiting} responses pending`));
      });
    }
  });
}

/** All of 0..n-1 when n <= k, else k distinct random indexes in [0, n), sorted. */
function sampleIndexes(n, k) {
  if (n <= k) return Array.from({ length: n }, (_, i) => i);
  const set = new Set();
  while (set.size < k) set.add(Math.floor(Math.random() * n));
  return [...set].sort((a, b) => a - b);
}

const verifyText = (v) =>
  `${fmtInt(v.ok)}/${fmtInt(v.checked)} OK in ${v.seconds.toFixed(1)} s` +
  (v.bad ? ` (missing ${fmtInt(v.missing)}, wrong ${fmtInt(v.wrongValue)}, failed ${fmtInt(v.failed)}; ${JSON.stringify(v.examples)})` : '');

// ---------------------------------------------------------------- 1. throughput

function postRequests(opts, map) {
  const from = '/rest/maps/bench/';
  const to = `/rest/maps/${map}/`;
  return WORKLOADS.post.requests(opts).map((r) =>
    r.setupRequest
      ? {
          ...r,
          setupRequest: (req) => {
            const o = r.setupRequest(req);
            o.path = o.path.replace(from, to);
            return o;
          },
        }
      : { ...r, path: r.path.replace(from, to) },
  );
}

async function runThroughput(opts, dir, out) {
  const base = path.join(dir, 'tput-data');
  mkdirSync(base, { recursive: true });
  out.disk = probeFdatasync(base);
  log(
    `persistence: fdatasync of ${out.disk.appendBytes} B appends under ${base}: p50 ${fmtMs(out.disk.p50Ms)}, p99 ${fmtMs(out.disk.p99Ms)}, ` +
      `max ${fmtMs(out.disk.maxMs)} (${out.disk.probes} probes)`,
  );
  const [port] = await reservePorts(1);
  const maps = Object.fromEntries(TPUT_MAPS.map((m) => [m.map, m.persistence ? { 'data-persistence': m.persistence } : {}]));
  const member = new PMember({ name: 'persistence throughput member', port, config: memberConfig(port, [port], maps, base), dir, baseDir: base, logPrefix: 'persistence-throughput', opts });
  member.start(1);
  try {
    await member.waitReady(60_000);
    for (const m of TPUT_MAPS) {
      const pre = await pipelinedLoad({ port, map: m.map, count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
      if (pre.ok !== PRELOAD_KEYS) throw new Error(`preload ${m.map}: only ${pre.ok}/${PRELOAD_KEYS} answered 200 (${JSON.stringify(pre.statuses)})`);
    }
    log(
      `persistence throughput: map POST (random keys of ${fmtInt(PRELOAD_KEYS)}, ${VALUE_SIZE} B) on one member, maps ` +
        `${TPUT_MAPS.map((m) => `'${m.map}' (${m.label})`).join(', ')}; ${opts.rounds} round(s) rotating over them, each ` +
        `${WARMUP_SECONDS} s warm-up + ${opts.duration} s measured, ${opts.connections} connections`,
    );
    const target = { ports: [port], pids: [member.child.pid] };
    const rounds = [];
    for (let i = 1; i <= opts.rounds; i++) {
      const round = { round: i };
      // Rotated so that no map always runs first (or right after the fsync one).
      const order = TPUT_MAPS.map((_, j) => TPUT_MAPS[(j + i - 1) % TPUT_MAPS.length]);
      for (const m of order) {
        member.assertAlive();
        const wb0 = writeBytes(member.child.pid);
        const r = await cannon(target, opts.connections, opts.duration, () => postRequests(opts, m.map));
        // write_bytes covers the warm-up too: per request of the whole run
        r.diskWriteBytes = writeBytes(member.child.pid) - wb0;
        r.diskBytesPerReq = r.wholeRun.requests ? r.diskWriteBytes / r.wholeRun.requests : NaN;
        const bad = r.non2xx + r.errors + r.wholeRun.non2xx + r.wholeRun.errors;
        log(
          `  ${`${m.label} ${opts.rounds > 1 ? `${i}/${opts.rounds}` : ''}`.padEnd(28)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms)}  ` +
            `p99 ${fmtMs(r.p99Ms)}  ${fmtUs(r.serverCpuUsPerReq)} µs/req  disk ${fmtInt(r.diskBytesPerReq)} B/req  ` +
            `cpu: member ${Math.round(r.serverCpuPct)}% load-gen ${Math.round(r.loadGenCpuPct)}% other ${Math.round(r.otherCpuPct)}%` +
            (bad ? `  !! non2xx ${r.non2xx} errors ${r.errors} ${JSON.stringify(r.wholeRun.statusCodes)}` : ''),
        );
        round[m.key] = r;
      }
      rounds.push(round);
    }
    const sides = {};
    for (const m of TPUT_MAPS) {
      const runs = rounds.map((r) => r[m.key]);
      const s = summarize(runs);
      const bytes = runs.reduce((n, r) => n + r.diskWriteBytes, 0);
      const reqs = runs.reduce((n, r) => n + r.wholeRun.requests, 0);
      s.diskBytesPerReq = reqs ? bytes / reqs : NaN;
      sides[m.key] = { map: m.map, label: m.label, dataPersistence: m.persistence, ...s };
    }
    const ratios = {};
    for (const k of ['fsyncFalse', 'fsyncTrue']) {
      const per = rounds.map((r) => r[k].reqPerSec / r.memory.reqPerSec);
      ratios[k] = {
        ratio: sides[k].reqPerSec / sides.memory.reqPerSec,
        spread: { min: Math.min(...per), max: Math.max(...per) },
        cpuUsPerReqRatio: sides[k].cpuUsPerReq / sides.memory.cpuUsPerReq,
      };
    }
    const scans = scanLogs([member], 1);
    for (const line of scanText(scans)) log(`  member log: ${line}`);
    out.throughput = {
      memberLog: scans[0] ?? null,
      maps: sides,
      ratios,
      valid: TPUT_MAPS.every((m) => sides[m.key].bad === 0),
      target: { fsyncFalseRatio: PERSISTENCE_TARGETS.fsyncFalseRatio, pass: ratios.fsyncFalse.ratio >= PERSISTENCE_TARGETS.fsyncFalseRatio },
      diskAfter: diskFigures([base], 3 * PRELOAD_KEYS),
      rssAfter: rssFields(readRss(member.child.pid)),
      rounds,
    };
    log(
      `  => median ${TPUT_MAPS.map((m) => `${m.label} ${fmtInt(sides[m.key].reqPerSec)}`).join(' / ')} req/s; ratios to in-memory: ` +
        `fsync false ${ratios.fsyncFalse.ratio.toFixed(2)}, fsync true ${ratios.fsyncTrue.ratio.toFixed(2)}`,
    );
  } finally {
    await stopChild(member.child);
  }
}

// ---------------------------------------------------------------- 2. one member restarts

async function runSingle(opts, dir, out) {
  const n = opts.persistenceEntries;
  const base = path.join(dir, 'single-data');
  mkdirSync(base, { recursive: true });
  const [port] = await reservePorts(1);
  const maps = { [MAP]: { 'data-persistence': { enabled: true, fsync: false } } };
  const member = new PMember({ name: 'persistence member', port, config: memberConfig(port, [port], maps, base), dir, baseDir: base, logPrefix: 'persistence-single', opts });
  const s = (out.single = { entries: n, valueBytes: VALUE_SIZE, map: MAP, fsync: false });
  try {
    member.start(1);
    s.firstStart = await startFigures(member, await member.waitReady(60_000));
    log(`persistence single: member pid ${member.child.pid} port ${port} ready in ${Math.round(s.firstStart.readyMs)} ms (empty); loading ${fmtInt(n)} entries`);
    const lw = cpuWindow([member.child.pid]);
    const load = await pipelinedLoad({ port, map: MAP, count: n, keyOf, stallMs: 60_000 });
    if (load.ok !== n) throw new Error(`loading: only ${load.ok}/${n} answered 200 (${JSON.stringify(load.statuses)})`);
    s.load = { seconds: load.seconds, rate: load.rate, cpu: lw.end(), rss: rssFields(readRss(member.child.pid)) };
    s.load.memberCpuUsPerEntry = (s.load.cpu.memberCpuMs * 1000) / n;
    s.diskAfterLoad = diskFigures([base], n);
    log(
      `persistence single: loaded in ${load.seconds.toFixed(1)} s (${fmtInt(load.rate)} entries/s, member ${fmtUs(s.load.memberCpuUsPerEntry)} µs CPU/entry, ` +
        `other processes ${Math.round(s.load.cpu.otherCpuPct)}% of a core); on disk ${mb(s.diskAfterLoad.bytes)} = ` +
        `${fmtInt(s.diskAfterLoad.bytesPerEntry)} B/entry; RSS ${mb(s.load.rss.rssBytes)}`,
    );
    const tableBefore = await getJson(port, `${PREFIX}/rest/partitions`);

    // clean restart
    s.shutdown = await clusterShutdown(member, [member]);
    s.diskAfterShutdown = diskFigures([base], n);
    log(`persistence single: clusterShutdown -> exited in ${Math.round(s.shutdown.ms)} ms (exit ${s.shutdown.exitCodes}); restarting`);
    member.start(2);
    let rw = cpuWindow([member.child.pid]);
    s.restart = await startFigures(member, await member.waitReady(), rw);
    s.restart.goal = { ms: PERSISTENCE_TARGETS.restartMs, pass: s.restart.readyMs <= PERSISTENCE_TARGETS.restartMs };
    const tableAfter = await getJson(port, `${PREFIX}/rest/partitions`);
    s.restart.sameTable = JSON.stringify(tableAfter.partitions) === JSON.stringify(tableBefore.partitions);
    log(`persistence single: ${startText(s.restart)}; same partition table: ${s.restart.sameTable}`);
    s.restart.verify = await readBack({ ports: [port], map: MAP, indexes: sampleIndexes(n, VERIFY_MAX), expected: valueFor });
    log(`persistence single: read-back ${verifyText(s.restart.verify)}`);

    // every key overwritten once
    if (!opts.persistenceSkipOverwrite) {
      const logFile = member.child.logFile;
      const compactionsBefore = countCompactions(logFile);
      const ww = cpuWindow([member.child.pid]);
      const ow = await pipelinedLoad({ port, map: MAP, count: n, keyOf, valueAt: value2For, stallMs: 60_000 });
      if (ow.ok !== n) throw new Error(`overwriting: only ${ow.ok}/${n} answered 200 (${JSON.stringify(ow.statuses)})`);
      s.overwrite = { seconds: ow.seconds, rate: ow.rate, cpu: ww.end(), compactionsDuring: countCompactions(logFile) - compactionsBefore };
      s.overwrite.memberCpuUsPerEntry = (s.overwrite.cpu.memberCpuMs * 1000) / n;
      s.diskAfterOverwrite = diskFigures([base], n);
      log(
        `persistence single: every key overwritten in ${ow.seconds.toFixed(1)} s (${fmtInt(ow.rate)}/s); on disk ${mb(s.diskAfterOverwrite.bytes)} = ` +
          `${fmtInt(s.diskAfterOverwrite.bytesPerEntry)} B/entry (${s.overwrite.compactionsDuring} compaction(s) during); waiting up to ` +
          `${COMPACTION_WAIT_MS / 1000} s for a compaction`,
      );
      const t0 = performance.now();
      const seen = countCompactions(logFile);
      while (performance.now() - t0 < COMPACTION_WAIT_MS && countCompactions(logFile) === seen) await sleep(250);
      s.overwrite.compactedAfterMs = countCompactions(logFile) > seen ? performance.now() - t0 : null;
      await sleep(500);
      s.diskAfterCompaction = diskFigures([base], n);
      log(
        `persistence single: ${s.overwrite.compactedAfterMs == null ? `no compaction within ${COMPACTION_WAIT_MS / 1000} s` : `compacted ${(s.overwrite.compactedAfterMs / 1000).toFixed(1)} s after the overwrite`}; ` +
          `on disk ${mb(s.diskAfterCompaction.bytes)} = ${fmtInt(s.diskAfterCompaction.bytesPerEntry)} B/entry`,
      );

      // restart after kill -9
      await member.kill9();
      member.start(3);
      rw = cpuWindow([member.child.pid]);
      s.killRestart = await startFigures(member, await member.waitReady(), rw);
      s.killRestart.goal = { ms: PERSISTENCE_TARGETS.restartMs, pass: s.killRestart.readyMs <= PERSISTENCE_TARGETS.restartMs };
      log(`persistence single: after kill -9: ${startText(s.killRestart)}`);
      s.killRestart.verify = await readBack({ ports: [port], map: MAP, indexes: sampleIndexes(n, VERIFY_AFTER_KILL), expected: value2For });
      log(`persistence single: read-back of the overwritten values ${verifyText(s.killRestart.verify)}`);
    }
  } finally {
    await stopChild(member.child);
    s.memberLogs = [1, 2, 3].flatMap((run) => scanLogs([member], run));
  }
}

/**
 * Error and warning lines of a member log (JSON lines): counts, and the first few distinct
 * messages of each level (persisting failures, members removed, anti-entropy totals...).
 */
function scanLog(logFile) {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return null;
  }
  const out = { file: path.basename(logFile), errors: 0, warnings: 0, firstErrors: [], firstWarnings: [], antiEntropy: null, removed: [] };
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let j;
    try {
      j = JSON.parse(line);
    } catch {
      continue;
    }
    const msg = String(j.err ?? j.msg ?? '');
    if (j.level === 'SEVERE' || j.level === 'error') {
      out.errors++;
      if (out.firstErrors.length < 3 && !out.firstErrors.includes(msg)) out.firstErrors.push(msg);
    } else if (j.level === 'WARNING' || j.level === 'warn') {
      out.warnings++;
      if (out.firstWarnings.length < 3 && !out.firstWarnings.includes(String(j.msg))) out.firstWarnings.push(String(j.msg));
    }
    const m = /anti-entropy: .*\(totals: requested (\d+), installed (\d+), sent (\d+)\)/.exec(j.msg ?? '');
    if (m) out.antiEntropy = { requested: Number(m[1]), installed: Number(m[2]), sent: Number(m[3]) };
    if (/^removing member |removed this member from the cluster/.test(j.msg ?? '')) out.removed.push(`${j.time} ${j.msg}`);
  }
  return out;
}

function scanLogs(members, run) {
  return members.map((m) => scanLog(path.join(RESULTS_DIR, `${m.logPrefix}-${run}.log`))).filter(Boolean);
}

const scanText = (scans) =>
  scans
    .filter((x) => x.errors > 0 || x.removed.length > 0)
    .map((x) => `${x.file}: ${x.errors} error line(s)${x.firstErrors.length ? `, first: ${x.firstErrors[0].slice(0, 200)}` : ''}${x.removed.length ? `; ${x.removed[0].slice(0, 200)}` : ''}`);

function countCompactions(logFile) {
  try {
    return (readFileSync(logFile, 'utf8').match(/"persisted log compacted/g) ?? []).length;
  } catch {
    return 0;
  }
}

const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');

function startText(f) {
  const l = f.loaded;
  return (
    `ready ${sec(f.readyMs)} after the spawn` +
    (l ? ` (boot ${sec(f.bootMs)}, read ${sec(l.readMs)}, restore ${sec(l.restoreMs)} of ${fmtInt(l.entries)} entries / ${mb(l.bytes)}, then ${sec(f.afterLoadMs)} to ready)` : ' (no "persistence: loaded" line found)') +
    `; CPU ${sec(f.cpuMsAtReady)}; RSS ${mb(f.rssBytes)}, peak ${mb(f.peakRssBytes)}` +
    (Number.isFinite(f.otherCpuPct) ? `; other processes ${Math.round(f.otherCpuPct)}% of a core meanwhile` : '')
  );
}

// ---------------------------------------------------------------- 3. a 3-member cluster restarts

async function waitSafe(members, deadlineMs, what) {
  const t0 = performance.now();
  let last = '';
  while (performance.now() - t0 < deadlineMs) {
    for (const m of members) m.assertAlive();
    const hs = await Promise.all(members.map((m) => getJson(m.port, `${PREFIX}/health`).catch((e) => e)));
    if (hs.every((h) => !(h instanceof Error) && h.clusterSize === members.length && h.clusterSafe === true && h.nodeState === 'ACTIVE')) {
      return performance.now() - t0;
    }
    last = hs.map((h, i) => `${members[i].port}: ${h instanceof Error ? h.message : `size ${h.clusterSize} safe ${h.clusterSafe} state ${h.nodeState}`}`).join('; ');
    await sleep(100);
  }
  throw new Error(`${what}: not ${members.length} members + safe within ${deadlineMs / 1000} s; last seen: ${last}`);
}

async function runCluster(opts, dir, out) {
  const n = opts.persistenceClusterEntries;
  const ports = await reservePorts(CLUSTER_SIZE);
  const maps = { [MAP]: { 'backup-count': BACKUP_COUNT, 'data-persistence': { enabled: true, fsync: false } } };
  const members = ports.map((port, i) => {
    const base = path.join(dir, `cluster-data-${i}`);
    mkdirSync(base, { recursive: true });
    return new PMember({ name: `persistence cluster member ${i}`, port, config: memberConfig(port, ports, maps, base), dir, baseDir: base, logPrefix: `persistence-cluster-${i}`, opts });
  });
  const bases = members.map((m) => m.baseDir);
  const c = (out.cluster = { members: CLUSTER_SIZE, backupCount: BACKUP_COUNT, entries: n, valueBytes: VALUE_SIZE, map: MAP, fsync: false });
  try {
    for (const m of members) m.start(1);
    c.formMs = await waitSafe(members, FORM_DEADLINE_MS, 'persistence cluster: forming');
    log(`persistence cluster: ${CLUSTER_SIZE} members (ports ${ports.join(', ')}) safe in ${Math.round(c.formMs)} ms; loading ${fmtInt(n)} entries through all three`);
    const lw = cpuWindow(members.map((m) => m.child.pid));
    const load = await loadSpread(ports, MAP, n, keyOf);
    c.load = { seconds: load.seconds, rate: load.rate, cpu: lw.end() };
    c.load.memberCpuUsPerEntry = (c.load.cpu.memberCpuMs * 1000) / n;
    c.load.safeAfterMs = await waitSafe(members, SAFE_DEADLINE_MS, 'persistence cluster: after the load');
    c.load.rss = members.map((m) => rssFields(readRss(m.child.pid)));
    c.diskAfterLoad = diskFigures(bases, n);
    log(
      `persistence cluster: loaded in ${load.seconds.toFixed(1)} s (${fmtInt(load.rate)} entries/s, members ${fmtUs(c.load.memberCpuUsPerEntry)} µs CPU/entry ` +
        `together, other processes ${Math.round(c.load.cpu.otherCpuPct)}% of a core); on disk ${mb(c.diskAfterLoad.bytes)} = ` +
        `${fmtInt(c.diskAfterLoad.bytesPerEntry)} B/entry (owned + ${BACKUP_COUNT} backup); RSS ${c.load.rss.map((r) => mb(r.rssBytes)).join(', ')}`,
    );
    const tableBefore = await getJson(ports[0], `${PREFIX}/rest/partitions`);
    const uuidsBefore = (await getJson(ports[0], `${PREFIX}/rest/cluster`)).members.map((m) => `${m.address}=${m.uuid}`).sort();

    c.shutdown = await clusterShutdown(members[0], members);
    c.diskAfterShutdown = diskFigures(bases, n);
    log(`persistence cluster: clusterShutdown -> all exited in ${Math.round(c.shutdown.ms)} ms (exit ${c.shutdown.exitCodes.join(', ')}); restarting all three at once`);
    for (const m of members) m.start(2);
    const rw = cpuWindow(members.map((m) => m.child.pid));
    const readies = await Promise.all(members.map((m) => m.waitReady()));
    const restartCpu = rw.end();
    const figs = await Promise.all(members.map((m, i) => startFigures(m, readies[i])));
    const allReadyMs = Math.max(...readies);
    const safeMs = await waitSafe(members, SAFE_DEADLINE_MS, 'persistence cluster: after the restart');
    const tableAfter = await getJson(ports[0], `${PREFIX}/rest/partitions`);
    const uuidsAfter = (await getJson(ports[0], `${PREFIX}/rest/cluster`)).members.map((m) => `${m.address}=${m.uuid}`).sort();
    const entriesLoaded = figs.reduce((k, f) => k + (f.loaded?.entries ?? 0), 0);
    c.restart = {
      allReadyMs,
      otherCpuPct: restartCpu.otherCpuPct,
      safeAfterAllReadyMs: safeMs,
      members: figs,
      entriesLoaded,
      entriesExpected: n * (1 + BACKUP_COUNT),
      sameTable: JSON.stringify(tableAfter.partitions) === JSON.stringify(tableBefore.partitions),
      sameUuids: JSON.stringify(uuidsAfter) === JSON.stringify(uuidsBefore),
      tableVersion: { before: tableBefore.version, after: tableAfter.version },
      migrationQueueSize: tableAfter.migrationQueueSize,
    };
    log(`persistence cluster: all ${CLUSTER_SIZE} ready ${sec(allReadyMs)} after the spawn; safe ${Math.round(safeMs)} ms later`);
    for (const f of figs) log(`  ${f.address}: ${startText(f)}`);
    log(
      `persistence cluster: entries loaded ${fmtInt(entriesLoaded)} (expected ${fmtInt(c.restart.entriesExpected)} = owned + backups); ` +
        `same partition table ${c.restart.sameTable} (version ${tableBefore.version} -> ${tableAfter.version}), same member uuids ${c.restart.sameUuids}`,
    );
    c.restart.verify = await readBack({ ports, map: MAP, indexes: sampleIndexes(n, VERIFY_MAX), expected: valueFor, connections: 15 });
    log(`persistence cluster: read-back ${verifyText(c.restart.verify)}`);
    c.restart.membersAtEnd = members.filter((m) => m.alive()).length;
    c.restart.antiEntropy = scanLogs(members, 2).map((x) => x.antiEntropy);
    log(
      `persistence cluster: ${c.restart.membersAtEnd}/${CLUSTER_SIZE} members still running; anti-entropy since the restart (requested/installed per member): ` +
        c.restart.antiEntropy.map((a) => (a ? `${a.requested}/${a.installed}` : '0/0')).join(', '),
    );
  } finally {
    await Promise.all(members.map((m) => m.kill9()));
    c.memberLogs = [1, 2].flatMap((run) => scanLogs(members, run));
  }
}

// ---------------------------------------------------------------- entry and report

/** Runs the persistence phase if opts.only lists it; fills report.persistence (errors recorded, not thrown). */
export async function runPersistence(opts, report) {
  if (!opts.only.includes('persistence')) return;
  if (opts.target !== 'grid') {
    log(`persistence phase needs the real member: skipped with --target ${opts.target}`);
    return;
  }
  for (const f of readdirSync(RESULTS_DIR)) if (/^persistence-(throughput|single|cluster)-.*\.log$/.test(f)) rmSync(path.join(RESULTS_DIR, f));
  const dir = mkdtempSync(path.join(opts.persistenceDir ?? os.tmpdir(), 'grid-bench-persist-'));
  tempDirs.push(dir);
  const out = (report.persistence = {
    gridBin: opts.gridBin,
    dir,
    options: { entries: opts.persistenceEntries, clusterEntries: opts.persistenceClusterEntries, parts: opts.persistenceParts },
    targets: PERSISTENCE_TARGETS,
    errors: [],
  });
  log(`persistence: grid ${opts.gridBin}; data under ${dir}; parts ${opts.persistenceParts.join(',')}`);
  for (const [name, part] of [
    ['throughput', runThroughput],
    ['single', runSingle],
    ['cluster', runCluster],
  ]) {
    if (!opts.persistenceParts.includes(name)) continue;
    try {
      await part(opts, dir, out);
    } catch (err) {
      out.errors.push(`${name}: ${err.message}`);
      log(`persistence ${name} part FAILED: ${err.stack ?? err}`);
    }
    // Each part's data goes as soon as it is done (the cluster part needs the room).
    for (const f of readdirSync(dir)) if (f.endsWith('-data') || /^cluster-data-\d+$/.test(f)) rmSync(path.join(dir, f), { recursive: true, force: true });
  }
}

export function renderPersistenceReport(report) {
  const p = report.persistence;
  if (!p) return '';
  const lines = [];
  const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
  const t = p.throughput;
  if (t) {
    const n = report.options.rounds;
    lines.push(
      `Persistence: map POST on one member, three maps (in-memory, data-persistence fsync false, fsync true), ${n} round${n > 1 ? 's' : ''} ` +
        `rotating over them (${report.options.warmupSeconds} s warm-up + ${report.options.duration} s each). req/s, p50, cpu%: median; ` +
        'p99: worst round (median round); ms; disk B/req = bytes the member wrote to storage per request (/proc io write_bytes)',
    );
    const cols = [
      ['map POST', 22, 'l'],
      ['req/s', 8],
      ['ratio', 5],
      ['spread', 9],
      ['p50', 5],
      ['p99', 13],
      ['µs/req', 6],
      ['disk B/req', 10],
      ['cpu% m/gen', 10],
      ['errors', 6],
      ['goal', 0, 'l'],
    ];
    const row = (cells) => cells.map((c, i) => (cols[i][2] === 'l' ? String(c).padEnd(cols[i][1]) : String(c).padStart(cols[i][1]))).join('  ').trimEnd();
    lines.push(row(cols.map((c) => c[0])));
    for (const m of TPUT_MAPS) {
      const s = t.maps[m.key];
      const r = t.ratios[m.key];
      lines.push(
        row([
          m.label,
          fmtInt(s.reqPerSec),
          r ? r.ratio.toFixed(2) : '1.00',
          r ? `${r.spread.min.toFixed(2)}-${r.spread.max.toFixed(2)}` : '-',
          ms(s.p50Ms),
          `${ms(s.p99Ms)} (${ms(s.p99MedianMs)})`,
          fmtUs(s.cpuUsPerReq),
          fmtInt(s.diskBytesPerReq),
          `${Math.round(s.serverCpuPct)}/${Math.round(s.loadGenCpuPct)}`,
          s.bad,
          m.key === 'fsyncFalse' ? `>=${PERSISTENCE_TARGETS.fsyncFalseRatio}x in-memory ${mark(t.target.pass)}` : m.key === 'fsyncTrue' ? 'reported (p99)' : '',
        ]),
      );
    }
    const d = p.disk;
    if (d) lines.push(`disk: fdatasync after a ${d.appendBytes} B append, ${d.probes} probes on base-dir's file system: p50 ${ms(d.p50Ms)} ms, p99 ${ms(d.p99Ms)} ms, max ${ms(d.maxMs)} ms`);
    const noisy = t.rounds.flatMap((r) => TPUT_MAPS.filter((m) => r[m.key].otherCpuPct > 25).map((m) => `${m.label} round ${r.round} (${Math.round(r[m.key].otherCpuPct)}%)`));
    if (noisy.length) lines.push(`NOTE other processes used over 25% of a core during ${noisy.join(', ')}: those runs are noisy (µs/req is less affected)`);
    if (!t.valid) lines.push('WARNING persistence throughput: non-2xx responses or errors (see results/latest.json)');
  }
  const rows = [];
  const restartRow = (what, f, entries, disk, extra = '') => {
    const l = f.loaded;
    return [
      what,
      fmtInt(entries),
      disk ? mb(disk.bytes) : '-',
      sec(f.readyMs),
      l ? sec(f.bootMs) : '-',
      l ? sec(l.readMs) : '-',
      l ? sec(l.restoreMs) : '-',
      l ? sec(f.afterLoadMs) : '-',
      sec(f.cpuMsAtReady),
      `${mb(f.peakRssBytes)}`,
      Number.isFinite(f.otherCpuPct) ? `${Math.round(f.otherCpuPct)}%` : '-',
      f.verify ? `${fmtInt(f.verify.ok)}/${fmtInt(f.verify.checked)}${f.verify.bad ? ' BAD' : ''}` : '-',
      (f.goal ? `<=${f.goal.ms / 1000} s ${mark(f.goal.pass)}` : '') + extra,
    ];
  };
  const s = p.single;
  if (s?.restart) rows.push(restartRow('1 member, clusterShutdown', s.restart, s.entries, s.diskAfterShutdown));
  if (s?.killRestart) rows.push(restartRow('1 member, kill -9', s.killRestart, s.entries, s.diskAfterCompaction));
  const c = p.cluster;
  if (c?.restart) {
    const r = c.restart;
    const worst = (f) => Math.max(...r.members.map(f));
    const agg = {
      readyMs: r.allReadyMs,
      bootMs: worst((f) => f.bootMs),
      loaded: { readMs: worst((f) => f.loaded?.readMs ?? NaN), restoreMs: worst((f) => f.loaded?.restoreMs ?? NaN) },
      afterLoadMs: worst((f) => f.afterLoadMs),
      cpuMsAtReady: worst((f) => f.cpuMsAtReady),
      peakRssBytes: worst((f) => f.peakRssBytes),
      verify: r.verify,
      otherCpuPct: r.otherCpuPct,
    };
    rows.push(restartRow(`${c.members} members, clusterShutdown`, agg, c.entries, c.diskAfterShutdown, 'reported'));
  }
  if (rows.length) {
    lines.push('Restart: ready = spawn -> /health/ready 200 (all members); boot = spawn -> persistence opened; read/restore = the member\'s own figures; ' +
      'then = end of restore -> ready; cpu, peak RSS at ready (cluster: worst member); other = CPU of other processes meanwhile, % of a core; ' +
        'verify = keys read back with the right value');
    const head = ['restart', 'entries', 'on disk', 'ready', 'boot', 'read', 'restore', 'then', 'cpu', 'peak RSS', 'other', 'verify', 'goal'];
    const all = [head, ...rows];
    const widths = head.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
    for (const r of all) lines.push(r.map((x, i) => (i === 0 || i === r.length - 1 ? String(x).padEnd(widths[i]) : String(x).padStart(widths[i]))).join('  ').trimEnd());
  }
  if (c?.restart) {
    const r = c.restart;
    lines.push(
      `cluster restart: entries loaded ${fmtInt(r.entriesLoaded)} of ${fmtInt(r.entriesExpected)} (owned + ${c.backupCount} backup), same partition table ${r.sameTable ? 'yes' : 'NO'} ` +
        `(version ${r.tableVersion.before} -> ${r.tableVersion.after}), same member uuids ${r.sameUuids ? 'yes' : 'NO'}, safe ${Math.round(r.safeAfterAllReadyMs)} ms after all ready; ` +
        `per member ready ${r.members.map((f) => sec(f.readyMs)).join(' / ')}`,
    );
  }
  const diskRows = [];
  if (s?.diskAfterLoad) {
    diskRows.push(
      `1 member: ${fmtInt(s.diskAfterLoad.bytesPerEntry)} B/entry after loading ${fmtInt(s.entries)} x ${s.valueBytes} B (allocated ${fmtInt(s.diskAfterLoad.allocatedPerEntry)})` +
        (s.diskAfterOverwrite ? `, ${fmtInt(s.diskAfterOverwrite.bytesPerEntry)} after overwriting every key once` : '') +
        (s.diskAfterCompaction
          ? `, ${fmtInt(s.diskAfterCompaction.bytesPerEntry)} ${s.overwrite?.compactedAfterMs == null ? `${COMPACTION_WAIT_MS / 1000} s later (no compaction seen)` : 'after the compaction that followed'}`
          : ''),
    );
  }
  if (c?.diskAfterLoad) {
    diskRows.push(
      `${c.members} members: ${fmtInt(c.diskAfterLoad.bytesPerEntry)} B/entry (all members, owned + ${c.backupCount} backup) after loading ${fmtInt(c.entries)}` +
        ` = ${fmtInt(c.diskAfterLoad.bytesPerEntry / (1 + c.backupCount))} per copy`,
    );
  }
  if (diskRows.length) lines.push(`bytes on disk (sizes of every file under base-dir / entries): ${diskRows.join('; ')}`);
  const loads = [];
  const loadText = (l) => `${fmtInt(l.rate)} entries/s (${fmtUs(l.memberCpuUsPerEntry)} µs member CPU/entry, other processes ${Math.round(l.cpu.otherCpuPct)}%)`;
  if (s?.load) loads.push(`1 member ${loadText(s.load)}`);
  if (s?.overwrite) loads.push(`overwrite ${loadText(s.overwrite)}`);
  if (c?.load) loads.push(`${c.members} members ${loadText(c.load)}`);
  if (s?.shutdown) loads.push(`clusterShutdown 1 member ${sec(s.shutdown.ms)}`);
  if (c?.shutdown) loads.push(`${c.members} members ${sec(c.shutdown.ms)}`);
  if (loads.length) lines.push(`pipelined load (persisted, fsync false): ${loads.join(', ')}`);
  if (c?.restart?.antiEntropy) {
    lines.push(
      `cluster after the restart: anti-entropy partition copies requested/installed per member ${c.restart.antiEntropy.map((a) => (a ? `${a.requested}/${a.installed}` : '0/0')).join(', ')}; ` +
        `${c.restart.membersAtEnd ?? '-'}/${c.members} members running at the end`,
    );
  }
  const scans = [t?.memberLog, ...(s?.memberLogs ?? []), ...(c?.memberLogs ?? [])].filter(Boolean);
  for (const line of scanText(scans)) lines.push(`NOTE member log ${line}`);
  for (const e of p.errors) lines.push(`ERROR persistence ${e}`);
  return lines.join('\n');
}

/** True when the persistence part found a problem (for the exit code). */
export function persistenceProblems(report) {
  const p = report.persistence;
  if (!p) return false;
  const bad = (v) => v && v.bad > 0;
  return (
    p.errors.length > 0 ||
    (p.throughput && !p.throughput.valid) ||
    bad(p.single?.restart?.verify) ||
    bad(p.single?.killRestart?.verify) ||
    bad(p.cluster?.restart?.verify) ||
    (p.cluster?.restart && (!p.cluster.restart.sameTable || p.cluster.restart.entriesLoaded !== p.cluster.restart.entriesExpected)) ||
    (p.cluster?.restart?.membersAtEnd !== undefined && p.cluster.restart.membersAtEnd !== p.cluster.members) ||
    [p.throughput?.memberLog, ...(p.single?.memberLogs ?? []), ...(p.cluster?.memberLogs ?? [])].some((x) => x && x.errors > 0)
  );
}
