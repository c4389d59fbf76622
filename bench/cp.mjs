// CP part of the Grid benchmark (see bench/README.md, "CP"): a 3-member cluster with the CP
// subsystem on (cp-member-count 3, so the default CP group has all three as Raft members), each
// member `node <--grid-bin> start --config <tmp yaml>` on 127.0.0.1. Measured:
//   1. addAndGet throughput and latency on one atomic long, through a member that is not the
//      default group's leader (it forwards to the leader) and through the leader, at each of
//      --cp-connections; then the exactly-once check: the final value = the number of 200s;
//   2. map POST (100-byte values) through the same non-leader member, same load generator and
//      connections, for the ratio addAndGet / map POST;
//   3. --cp-failovers times, each on a fresh cluster: kill -9 of the default group's leader
//      while a paced stream of addAndGet runs through a non-leader; time from the kill to the
//      next commit, errors meanwhile, and the exactly-once check again.
// The load generator is a closed loop of raw keep-alive HTTP/1.1 connections (one request in
// flight each), not autocannon: the exactly-once check needs every answer, those in flight
// when a run stops included, and the failover needs each answer's X-Grid-Error.
import { mkdtempSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import {
  BODY,
  BodyParser,
  HOST,
  Latency,
  PREFIX,
  PRELOAD_KEYS,
  RESULTS_DIR,
  ROOT,
  VALUE_SIZE,
  WARMUP_SECONDS,
  fmtInt,
  fmtMs,
  fmtUs,
  getJson,
  httpRequest,
  log,
  logTail,
  median,
  pipelinedLoad,
  readCpuMs,
  readSystemBusyMs,
  reservePorts,
  startChild,
  tempDirs,
  waitReady,
  waitFor,
} from './lib.mjs';

export const CP_PHASES = ['cp'];
export const CP_PARTS = ['throughput', 'failover'];

const SIZE = 3;
const CLUSTER_NAME = 'bench-cp';
/** Hazelcast's (and Grid's) raft-algorithm default, not set in the config: the failover goal is derived from it. */
const LEADER_ELECTION_TIMEOUT_MS = 2000;
const FAILOVER_GOAL_SLACK_MS = 1000;
const GROUP = 'default';
const TPUT_LONG = 'bench-tput';
const FAILOVER_LONG = 'bench-failover';
const MAP = 'bench';
/** The failover stream: FAILOVER_CONNECTIONS connections, each sending at most --cp-failover-rate / FAILOVER_CONNECTIONS a second. */
const FAILOVER_CONNECTIONS = 16;
const FAILOVER_BEFORE_MS = 3000;
const FAILOVER_AFTER_MS = 2000;
const FAILOVER_DEADLINE_MS = 30_000;
/** Above the member's operation timeout (60 s): the member, not this client, gives up first. */
const REQUEST_TIMEOUT_MS = 70_000;
const FORM_DEADLINE_MS = 60_000;
const LEADER_DEADLINE_MS = 30_000;
const POLL_MS = 100;
const INDETERMINATE_TEXT = 'may or may not have been applied';
const WATCH_MS = 20;

// ---------------------------------------------------------------- the cluster

function memberConfig(port, ports) {
  return {
    hazelcast: {
      'cluster-name': CLUSTER_NAME,
      network: {
        port: { port, 'auto-increment': false },
        interfaces: { enabled: true, interfaces: [HOST] },
        join: { multicast: { enabled: false }, 'tcp-ip': { enabled: true, 'member-list': ports.map((p) => `${HOST}:${p}`) } },
        'rest-api': {
          enabled: true,
          'endpoint-groups': { DATA: { enabled: true }, HEALTH_CHECK: { enabled: true }, CLUSTER_READ: { enabled: true }, CP: { enabled: true } },
        },
      },
      'cp-subsystem': { 'cp-member-count': SIZE },
      // backup-count 1 (the default, written out): a map POST waits for one sync backup, as in the cluster phase
      map: { default: { 'backup-count': 1 } },
    },
  };
}

class CpCluster {
  constructor(name, ports, opts) {
    this.name = name;
    this.ports = ports;
    this.opts = opts;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-cp-'));
    tempDirs.push(this.dir);
    /** @type {{index:number, port:number, address:string, child:any, killedByBench:boolean, cpUuid?:string}[]} */
    this.members = [];
  }

  static async start(name, opts) {
    const c = new CpCluster(name, await reservePorts(SIZE), opts);
    const t0 = performance.now();
    for (let i = 0; i < SIZE; i++) {
      const port = c.ports[i];
      const file = path.join(c.dir, `member-${i}.yaml`);
      writeFileSync(file, stringify(memberConfig(port, c.ports)));
      const child = startChild(`${name} member ${i}`, [...opts.nodeArgs, opts.gridBin, 'start', '--config', file], `${name}-member-${i}.log`);
      c.members.push({ index: i, port, address: `${HOST}:${port}`, child, killedByBench: false });
    }
    await Promise.all(c.members.map((m) => waitReady(m.child, m.port)));
    // Formed = every member lists the 3 CP members (503 until then).
    await waitFor(async () => {
      const lists = await Promise.all(c.members.map((m) => getJson(m.port, `${PREFIX}/rest/cp-subsystem/members`)));
      return lists.every((l) => l.length === SIZE);
    }, FORM_DEADLINE_MS, `${name}: CP subsystem formed`);
    const formedMs = performance.now() - t0;
    // The default group is created on first use: a first call creates it and elects its leader.
    const first = await httpRequest(c.members[0].port, 'POST', `/grid/rest/cp/atomiclongs/bench-warm/addAndGet`, '0');
    if (first.status !== 200) throw new Error(`${name}: first addAndGet: HTTP ${first.status}`);
    const leader = await c.leader();
    c.formedMs = formedMs;
    log(
      `${name}: ${SIZE} members (pids ${c.members.map((m) => m.child.pid).join(', ')}, ports ${c.ports.join(', ')}); CP formed in ` +
        `${Math.round(formedMs)} ms; default group leader ${leader.member.address} (term ${leader.term}) after ${Math.round(performance.now() - t0)} ms`,
    );
    return c;
  }

  live() {
    return this.members.filter((m) => m.child.exitCode === null && m.child.signalCode === null);
  }

  pids() {
    return this.live().map((m) => m.child.pid);
  }

  assertAlive() {
    for (const m of this.members) {
      if (m.killedByBench) continue;
      const c = m.child;
      if (c.exitCode !== null || c.signalCode !== null) {
        throw new Error(`${c.benchName} exited (code ${c.exitCode}, signal ${c.signalCode}); log ${path.relative(ROOT, c.logFile)}:\n${logTail(c.logFile)}`);
      }
    }
  }

  /** GET /grid/rest/cp of every live member: the default group's figures per member. */
  async statuses() {
    const live = this.live();
    const st = await Promise.all(live.map((m) => getJson(m.port, '/grid/rest/cp')));
    return live.map((m, i) => {
      m.cpUuid = st[i].cpMemberUuid ?? m.cpUuid;
      return { member: m, cpUuid: st[i].cpMemberUuid, group: st[i].groups.find((g) => g.name === GROUP) };
    });
  }

  /** The default group's leader once every live member agrees on it (same term, same leader). */
  async leader(deadlineMs = LEADER_DEADLINE_MS) {
    return waitFor(async () => {
      this.assertAlive();
      const st = await this.statuses();
      if (st.some((s) => !s.group)) return null;
      const l = st.find((s) => s.group.role === 'leader');
      if (!l) return null;
      if (!st.every((s) => s.group.leader === l.cpUuid && s.group.term === l.group.term)) return null;
      return { member: l.member, cpUuid: l.cpUuid, term: l.group.term, commitIndex: l.group.commitIndex };
    }, deadlineMs, `${this.name}: the default CP group's leader`, 50);
  }

  async destroy() {
    const live = this.live();
    for (const m of live) {
      m.killedByBench = true;
      m.child.kill('SIGKILL');
    }
    await Promise.all(live.map((m) => m.child.exited));
  }
}

// ---------------------------------------------------------------- the load generator

/** One keep-alive connection, one request in flight; `request(raw)` resolves {status, body, head, at} (status 0: failed). */
class Conn {
  constructor(port) {
    this.port = port;
    this.cb = null;
    this.error = null;
    this.sock = net.connect({ host: HOST, port, noDelay: true });
    this.ready = new Promise((resolve) => {
      this.sock.once('connect', () => resolve(true));
      this.sock.once('error', () => resolve(false));
    });
    const parser = new BodyParser((status, body, head) => this.answer({ status, body, head, at: performance.now() }));
    this.sock.on('data', (d) => {
      try {
        parser.feed(d);
      } catch (err) {
        this.fail(err);
      }
    });
    this.sock.on('error', (err) => this.fail(err));
    this.sock.on('close', () => this.fail(new Error('connection closed')));
  }

  answer(r) {
    const cb = this.cb;
    this.cb = null;
    clearTimeout(this.timer);
    if (cb) cb(r);
  }

  fail(err) {
    if (this.error) return;
    this.error = err;
    this.sock.destroy();
    this.answer({ status: 0, body: '', head: '', error: err.message, at: performance.now() });
  }

  request(raw) {
    return new Promise((resolve) => {
      if (this.error) {
        resolve({ status: 0, body: '', head: '', error: this.error.message, at: performance.now() });
        return;
      }
      this.cb = resolve;
      this.timer = setTimeout(() => this.fail(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS);
      this.sock.write(raw, 'latin1');
    });
  }

  close() {
    this.cb = null;
    clearTimeout(this.timer);
    this.error ??= new Error('closed');
    this.sock.destroy();
  }
}

const gridError = (head) => /\r\nx-grid-error:[ \t]*([^\r]*)/i.exec(head)?.[1] ?? '';

const addRaw = (port, name) =>
  `POST /grid/rest/cp/atomiclongs/${name}/addAndGet HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\n1`;
const postRaw = (port, key) =>
  `POST ${PREFIX}/rest/maps/${MAP}/${key} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: text/plain\r\nContent-Length: ${VALUE_SIZE}\r\n\r\n${BODY}`;

/**
 * The values the 200 answers of addAndGet carried: each must be new (a value answered twice
 * means two calls saw the same state: one increment lost or answered for another).
 */
class Values {
  constructor() {
    this.seen = new Uint8Array(1 << 16);
    this.count = 0;
    this.duplicates = 0;
    this.bad = 0;
    this.max = 0;
  }

  add(text) {
    const v = Number(text);
    if (!Number.isSafeInteger(v) || v < 1) {
      this.bad++;
      return;
    }
    if (v >= this.seen.length) {
      let n = this.seen.length;
      while (n <= v) n *= 2;
      const grown = new Uint8Array(n);
      grown.set(this.seen);
      this.seen = grown;
    }
    if (this.seen[v]) this.duplicates++;
    this.seen[v] = 1;
    this.count++;
    if (v > this.max) this.max = v;
  }
}

/** Answers of a run: status counts, error reasons, (for addAndGet) the values. */
class Tally {
  constructor() {
    this.total = 0;
    this.ok = 0;
    this.statuses = {};
    this.reasons = {};
    this.indeterminate = 0;
    this.failed = 0;
  }

  add(r) {
    this.total++;
    this.statuses[r.status] = (this.statuses[r.status] ?? 0) + 1;
    if (r.status === 200) {
      this.ok++;
      return;
    }
    const why = r.status === 0 ? `connection: ${r.error}` : `${r.status} ${gridError(r.head)}`;
    const key = why.replace(/\d{3,}/g, 'N').slice(0, 160);
    this.reasons[key] = (this.reasons[key] ?? 0) + 1;
    if (r.status === 0) this.failed++;
    else if (r.status === 503 && gridError(r.head).includes(INDETERMINATE_TEXT)) this.indeterminate++;
  }
}

/**
 * A closed loop of `connections` connections to `port` for WARMUP_SECONDS + `seconds`: each
 * sends `raw()`, waits for the answer, sends the next. Figures (req/s, latency, CPU) are taken
 * over the `seconds` after the warm-up; `tally` and `onOk` see every answer, warm-up and the
 * requests still in flight when the window closes included (they are waited for).
 */
async function closedLoop({ port, connections, seconds, raw, pids, tally, onOk }) {
  const conns = Array.from({ length: connections }, () => new Conn(port));
  if (!(await Promise.all(conns.map((c) => c.ready))).every(Boolean)) throw new Error(`could not connect to port ${port}`);
  const latency = new Latency();
  const window = new Tally();
  let inWindow = false;
  let stop = false;
  const loop = async (c) => {
    while (!stop) {
      const t = performance.now();
      const r = await c.request(raw());
      tally.add(r);
      if (r.status === 200) onOk?.(r.body);
      if (inWindow) {
        window.add(r);
        latency.record(r.at - t);
      }
      if (r.status === 0) throw new Error(`port ${port}: ${r.error}`);
    }
  };
  const loops = conns.map(loop);
  const failed = Promise.race(loops).then(() => null, (err) => err);
  const early = await Promise.race([sleep(WARMUP_SECONDS * 1000).then(() => null), failed]);
  if (early) throw early;
  const cpu0 = pids.map(readCpuMs);
  const sys0 = readSystemBusyMs();
  const self0 = process.cpuUsage();
  const windowStart = performance.now();
  inWindow = true;
  await Promise.race([sleep(seconds * 1000), failed]);
  inWindow = false;
  const wall = performance.now() - windowStart;
  const self = process.cpuUsage(self0);
  const serverCpuMs = pids.map((pid, i) => readCpuMs(pid) - cpu0[i]).reduce((a, b) => a + b, 0);
  const selfCpuMs = (self.user + self.system) / 1000;
  const systemCpuMs = readSystemBusyMs() - sys0;
  stop = true;
  const results = await Promise.allSettled(loops);
  for (const c of conns) c.close();
  const err = results.find((x) => x.status === 'rejected');
  if (err) throw err.reason;
  return {
    connections,
    reqPerSec: window.total / (wall / 1000),
    responses: window.total,
    ok: window.ok,
    windowSeconds: wall / 1000,
    p50Ms: latency.percentile(50),
    p99Ms: latency.percentile(99),
    maxMs: latency.percentile(100),
    statuses: window.statuses,
    errors: window.total - window.ok,
    reasons: window.reasons,
    serverCpuMs,
    cpuUsPerReq: window.total ? (serverCpuMs * 1000) / window.total : NaN,
    serverCpuPct: (serverCpuMs / wall) * 100,
    loadGenCpuPct: (selfCpuMs / wall) * 100,
    otherCpuPct: (Math.max(0, systemCpuMs - serverCpuMs - selfCpuMs) / wall) * 100,
  };
}

const runLine = (label, r) =>
  `  ${label.padEnd(28)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms)}  p99 ${fmtMs(r.p99Ms)}  max ${fmtMs(r.maxMs)}  ` +
  `${fmtUs(r.cpuUsPerReq)} µs/req  cpu: members ${Math.round(r.serverCpuPct)}% load-gen ${Math.round(r.loadGenCpuPct)}% other ${Math.round(r.otherCpuPct)}%` +
  (r.errors ? `  !! ${r.errors} errors ${JSON.stringify(r.reasons)}` : '');

// ---------------------------------------------------------------- 1 + 2. throughput

const WORKLOADS = [
  { key: 'follower', name: 'addAndGet via a non-leader' },
  { key: 'leader', name: 'addAndGet via the leader' },
  { key: 'map', name: 'map POST via the non-leader' },
];

async function runThroughput(opts, out) {
  const cluster = await CpCluster.start('cp', opts);
  const t = (out.throughput = { atomicLong: TPUT_LONG, connections: opts.cpConnections, seconds: opts.cpDuration, rounds: [], leaders: [] });
  try {
    let leader = await cluster.leader();
    const follower = cluster.members.find((m) => m !== leader.member);
    t.follower = follower.address;
    t.leader = leader.member.address;
    t.leaders.push({ at: 'start', address: leader.member.address, term: leader.term });
    const pre = await pipelinedLoad({ port: follower.port, map: MAP, count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
    if (pre.ok !== PRELOAD_KEYS) throw new Error(`preload: only ${pre.ok}/${PRELOAD_KEYS} answered 200 (${JSON.stringify(pre.statuses)})`);
    const start = await httpRequest(follower.port, 'GET', `/grid/rest/cp/atomiclongs/${TPUT_LONG}`);
    if (start.status !== 200 || start.body !== '0') throw new Error(`${TPUT_LONG} at start: HTTP ${start.status} ${start.body}`);
    log(
      `cp throughput: addAndGet of '${TPUT_LONG}' by 1 through the non-leader ${follower.address} and the leader ${leader.member.address}, ` +
        `map POST (random keys of ${fmtInt(PRELOAD_KEYS)}, ${VALUE_SIZE} B) through the non-leader; connections ${opts.cpConnections.join(', ')}; ` +
        `${opts.rounds} round(s), each run ${WARMUP_SECONDS} s warm-up + ${opts.cpDuration} s`,
    );
    const tally = new Tally();
    const values = new Values();
    for (let round = 1; round <= opts.rounds; round++) {
      for (const connections of opts.cpConnections) {
        // The order rotates every round, so no workload always runs first or after the same one.
        const order = WORKLOADS.map((_, i) => WORKLOADS[(i + round - 1) % WORKLOADS.length]);
        for (const w of order) {
          cluster.assertAlive();
          const now = await cluster.leader();
          if (now.member !== leader.member || now.term !== leader.term) {
            log(`  !! the default group's leader changed: ${leader.member.address} term ${leader.term} -> ${now.member.address} term ${now.term}`);
            t.leaders.push({ at: `round ${round}, ${connections} connections, before ${w.key}`, address: now.member.address, term: now.term });
            leader = now;
          }
          const via = w.key === 'leader' ? leader.member : cluster.members.find((m) => m !== leader.member && m.child.exitCode === null);
          const r =
            w.key === 'map'
              ? await closedLoop({
                  port: via.port,
                  connections,
                  seconds: opts.cpDuration,
                  pids: cluster.pids(),
                  tally: new Tally(),
                  raw: () => postRaw(via.port, `key-${Math.floor(Math.random() * PRELOAD_KEYS)}`),
                })
              : await closedLoop({
                  port: via.port,
                  connections,
                  seconds: opts.cpDuration,
                  pids: cluster.pids(),
                  tally,
                  onOk: (body) => values.add(body),
                  raw: () => addRaw(via.port, TPUT_LONG),
                });
          r.via = via.address;
          t.rounds.push({ round, workload: w.key, ...r });
          log(runLine(`${w.name}, ${connections} conn${opts.rounds > 1 ? ` (${round}/${opts.rounds})` : ''}`, r));
        }
      }
    }
    t.summary = summarizeRuns(t.rounds, opts.cpConnections);
    // Exactly-once: every 200 was one increment, nothing else was.
    const final = await httpRequest(follower.port, 'GET', `/grid/rest/cp/atomiclongs/${TPUT_LONG}`);
    const finalValue = final.status === 200 ? Number(final.body) : NaN;
    t.exactlyOnce = check(finalValue, tally, values);
    log(`cp throughput: ${exactlyOnceText(t.exactlyOnce)}`);
  } finally {
    await cluster.destroy();
  }
}

function check(finalValue, tally, values) {
  const r = {
    finalValue,
    answered200: tally.ok,
    answered: tally.total,
    errors: tally.total - tally.ok,
    reasons: tally.reasons,
    indeterminate: tally.indeterminate,
    connectionFailures: tally.failed,
    duplicateValues: values.duplicates,
    badValues: values.bad,
    maxValue: values.max,
  };
  // A 503 "may or may not have been applied" (or an answer that never came) may have counted.
  const unknown = r.indeterminate + r.connectionFailures;
  r.extra = finalValue - r.answered200;
  r.pass = Number.isFinite(finalValue) && r.duplicateValues === 0 && r.badValues === 0 && r.maxValue <= finalValue && r.extra >= 0 && r.extra <= unknown;
  r.exact = r.pass && r.extra === 0;
  return r;
}

function exactlyOnceText(x) {
  return (
    `exactly-once: final value ${fmtInt(x.finalValue)}, answers 200 ${fmtInt(x.answered200)}` +
    (x.errors ? ` (other answers ${fmtInt(x.errors)}: ${JSON.stringify(x.reasons)})` : '') +
    (x.indeterminate ? `, indeterminate (503 "${INDETERMINATE_TEXT}") ${x.indeterminate}` : '') +
    (x.connectionFailures ? `, no answer ${x.connectionFailures}` : '') +
    `; values answered twice ${x.duplicateValues}` +
    (x.badValues ? `, malformed ${x.badValues}` : '') +
    ` => ${x.pass ? 'PASS' : 'FAIL'}` +
    (x.pass && x.extra > 0 ? ` (${x.extra} of the indeterminate ones were applied)` : '') +
    (!x.pass && Number.isFinite(x.extra) ? ` (final - 200s = ${x.extra}: ${x.extra > 0 ? 'applied more often than answered: duplicates' : 'answered 200 but not applied: losses'})` : '')
  );
}

function summarizeRuns(rounds, connectionsList) {
  const out = {};
  for (const connections of connectionsList) {
    const s = (out[connections] = {});
    for (const w of WORKLOADS) {
      const runs = rounds.filter((r) => r.connections === connections && r.workload === w.key);
      const responses = runs.reduce((n, r) => n + r.responses, 0);
      const rps = runs.map((r) => r.reqPerSec);
      s[w.key] = {
        rounds: runs.length,
        reqPerSec: median(rps),
        minReqPerSec: Math.min(...rps),
        maxReqPerSec: Math.max(...rps),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: Math.max(...runs.map((r) => r.p99Ms)), // worst round
        p99MedianMs: median(runs.map((r) => r.p99Ms)),
        maxMs: Math.max(...runs.map((r) => r.maxMs)),
        cpuUsPerReq: responses ? (runs.reduce((n, r) => n + r.serverCpuMs, 0) * 1000) / responses : NaN,
        serverCpuPct: median(runs.map((r) => r.serverCpuPct)),
        loadGenCpuPct: median(runs.map((r) => r.loadGenCpuPct)),
        otherCpuPct: median(runs.map((r) => r.otherCpuPct)),
        maxOtherCpuPct: Math.max(...runs.map((r) => r.otherCpuPct)),
        errors: runs.reduce((n, r) => n + r.errors, 0),
      };
    }
    s.ratioFollower = s.follower.reqPerSec / s.map.reqPerSec;
    s.ratioLeader = s.leader.reqPerSec / s.map.reqPerSec;
  }
  return out;
}

// ---------------------------------------------------------------- 3. failover

/** Epoch ms at which `file` (a member's pino log) says it became the default group's leader after `afterEpochMs`. */
function leaderLine(file, afterEpochMs) {
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes(`CP group ${GROUP}: this member is the leader`)) continue;
      const j = JSON.parse(line);
      const time = typeof j.time === 'number' ? j.time : Date.parse(j.time); // pino: epoch ms or ISO text
      if (time >= afterEpochMs) return { time, term: j.term };
    }
  } catch {
    // no log or a partial last line: not found
  }
  return null;
}

async function runFailoverOnce(opts, n) {
  const name = `cp-failover-${n}`;
  const cluster = await CpCluster.start(name, opts);
  const f = { run: n, formedMs: cluster.formedMs };
  try {
    const leader = await cluster.leader();
    const via = cluster.members.find((m) => m !== leader.member);
    Object.assign(f, { victim: leader.member.address, victimTerm: leader.term, via: via.address });
    const start = await httpRequest(via.port, 'GET', `/grid/rest/cp/atomiclongs/${FAILOVER_LONG}`);
    if (start.status !== 200 || start.body !== '0') throw new Error(`${FAILOVER_LONG} at start: HTTP ${start.status} ${start.body}`);

    // The stream: FAILOVER_CONNECTIONS closed loops, each paced to rate / FAILOVER_CONNECTIONS a second (rate 0: not paced).
    const conns = Array.from({ length: FAILOVER_CONNECTIONS }, () => new Conn(via.port));
    if (!(await Promise.all(conns.map((c) => c.ready))).every(Boolean)) throw new Error(`could not connect to ${via.address}`);
    const rate = opts.cpFailoverRate;
    const interval = rate > 0 ? (FAILOVER_CONNECTIONS * 1000) / rate : 0;
    const raw = addRaw(via.port, FAILOVER_LONG);
    const tally = new Tally();
    const values = new Values();
    /** @type {{sentAt:number, at:number, status:number, reason:string}[]} */
    const answers = [];
    let stop = false;
    const t0 = performance.now();
    const loop = async (c, i) => {
      let nextAt = t0 + (i * interval) / FAILOVER_CONNECTIONS;
      while (!stop) {
        const wait = nextAt - performance.now();
        if (interval > 0 && wait > 0) await sleep(wait);
        if (stop) break;
        const sentAt = performance.now();
        const r = await c.request(raw);
        tally.add(r);
        if (r.status === 200) values.add(r.body);
        answers.push({ sentAt, at: r.at, status: r.status, reason: r.status === 200 ? '' : r.status === 0 ? r.error : gridError(r.head) });
        if (r.status === 0) return; // the member we send through is not killed: reported, not retried
        nextAt = Math.max(nextAt + interval, performance.now());
      }
    };
    const loops = conns.map(loop);
    await sleep(FAILOVER_BEFORE_MS);
    cluster.assertAlive();

    const killWall = Date.now();
    const killAt = performance.now();
    leader.member.killedByBench = true;
    leader.member.child.kill('SIGKILL');
    const survivors = cluster.members.filter((m) => m !== leader.member);
    const watch = watchSurvivors(survivors, leader.cpUuid, killAt);
    log(`${name}: kill -9 of the default group's leader ${leader.member.address} (pid ${leader.member.child.pid}, term ${leader.term}); stream through ${via.address}`);
    // Until a request sent after the kill is answered 200 (or the deadline), then FAILOVER_AFTER_MS more.
    let recoveredAt = null;
    while (performance.now() - killAt < FAILOVER_DEADLINE_MS) {
      const ok = answers.find((a) => a.status === 200 && a.sentAt > killAt);
      if (ok) {
        recoveredAt = ok.at;
        break;
      }
      await sleep(10);
    }
    await sleep(FAILOVER_AFTER_MS);
    watch.stop = true;
    stop = true;
    await Promise.all([...loops, watch.done]);
    for (const c of conns) c.close();
    await leader.member.child.exited;

    const after = await cluster.leader().catch((e) => ({ error: e.message }));
    const final = await httpRequest(via.port, 'GET', `/grid/rest/cp/atomiclongs/${FAILOVER_LONG}`);
    const finalValue = final.status === 200 ? Number(final.body) : NaN;
    f.exactlyOnce = check(finalValue, tally, values);

    const before = answers.filter((a) => a.at <= killAt);
    const pendingAtKill = answers.filter((a) => a.sentAt <= killAt && a.at > killAt);
    const okAfter = answers.filter((a) => a.status === 200 && a.at > killAt).sort((a, b) => a.at - b.at);
    const between = answers.filter((a) => a.at > killAt && (recoveredAt === null || a.at <= recoveredAt) && a.status !== 200);
    const okTimes = answers.filter((a) => a.status === 200).map((a) => a.at).sort((a, b) => a - b);
    let maxGap = 0;
    for (let i = 1; i < okTimes.length; i++) maxGap = Math.max(maxGap, okTimes[i] - okTimes[i - 1]);
    const elected = after.error ? null : leaderLine(after.member.child.logFile, killWall);
    const goalMs = LEADER_ELECTION_TIMEOUT_MS + FAILOVER_GOAL_SLACK_MS;
    Object.assign(f, {
      rate,
      connections: FAILOVER_CONNECTIONS,
      requests: answers.length,
      answeredBeforeKill: before.length,
      killToNextCommitMs: recoveredAt === null ? null : recoveredAt - killAt,
      // a request sent before the kill may have been committed by the old leader, its answer still on the way
      killToFirst200Ms: okAfter.length ? okAfter[0].at - killAt : null,
      pendingAtKill: pendingAtKill.length,
      pendingAtKillOk: pendingAtKill.filter((a) => a.status === 200).length,
      pendingAtKillMaxMs: pendingAtKill.length ? Math.max(...pendingAtKill.map((a) => a.at - a.sentAt)) : NaN,
      errorsBetween: between.length,
      errorsBetweenReasons: countBy(between.map((a) => `${a.status} ${a.reason}`.slice(0, 160))),
      errorsTotal: tally.total - tally.ok,
      maxGapBetween200Ms: maxGap,
      newLeader: after.error ? null : after.member.address,
      newTerm: after.error ? null : after.term,
      newLeaderError: after.error,
      // from the new leader's own log line (epoch ms, same machine clock)
      killToElectedMs: elected ? elected.time - killWall : null,
      // when each survivor's GET /grid/rest/cp stopped naming the old leader (polled every WATCH_MS)
      survivorsDroppedOldLeaderMs: survivors.map((m) => watch.timeline.find((e) => e.member === m.address && e.leader !== 'old')?.atMs ?? null),
      survivorTimeline: watch.timeline,
      goal: { ms: goalMs, pass: recoveredAt !== null && recoveredAt - killAt <= goalMs },
    });
    log(
      `${name}: next commit (first 200 of a request sent after the kill) ${f.killToNextCommitMs === null ? 'NEVER' : fmtMs(f.killToNextCommitMs)} ` +
        `(goal <= ${goalMs} ms: ${f.goal.pass ? 'PASS' : 'FAIL'}); new leader ${f.newLeader ?? after.error} term ${f.newTerm} ` +
        `elected ${f.killToElectedMs === null ? '?' : `${f.killToElectedMs} ms`} after the kill (its log); survivors dropped the old leader after ` +
        `${f.survivorsDroppedOldLeaderMs.map((x) => (x === null ? '?' : `${x} ms`)).join(' / ')}; first 200 of any request ${fmtMs(f.killToFirst200Ms)}; ` +
        `${f.pendingAtKill} requests pending at the kill (${f.pendingAtKillOk} answered 200, slowest ${fmtMs(f.pendingAtKillMaxMs)}); ` +
        `errors in between ${f.errorsBetween}${f.errorsBetween ? ` ${JSON.stringify(f.errorsBetweenReasons)}` : ''}, in all ${f.errorsTotal}; ` +
        `longest gap between 200s ${fmtMs(f.maxGapBetween200Ms)}`,
    );
    log(`${name}: ${fmtInt(f.requests)} requests; ${exactlyOnceText(f.exactlyOnce)}`);
  } finally {
    await cluster.destroy();
  }
  return f;
}

const streamText = (rate) => (rate > 0 ? `${fmtInt(rate)}/s over ${FAILOVER_CONNECTIONS} connections` : `${FAILOVER_CONNECTIONS} connections, not paced (closed loop)`);

/**
 * Polls the survivors' GET /grid/rest/cp every WATCH_MS from the kill on and notes every change of
 * their default-group role/term/leader ('old' = the killed leader), with ms since the kill.
 */
function watchSurvivors(survivors, oldLeaderCpUuid, killAt) {
  const w = { stop: false, timeline: [] };
  const last = new Map();
  const one = async (m) => {
    while (!w.stop) {
      const sentAt = performance.now();
      try {
        const st = await getJson(m.port, '/grid/rest/cp');
        const g = st.groups.find((x) => x.name === GROUP);
        const leader = g?.leader === undefined ? null : g.leader === oldLeaderCpUuid ? 'old' : g.leader === st.cpMemberUuid ? 'self' : 'other';
        const key = `${g?.role}/${g?.term}/${leader}`;
        if (last.get(m) !== key) {
          last.set(m, key);
          w.timeline.push({ member: m.address, atMs: Math.round(sentAt - killAt), role: g?.role, term: g?.term, leader });
        }
      } catch {
        // a slow or failed poll: the next one tells
      }
      await sleep(Math.max(0, WATCH_MS - (performance.now() - sentAt)));
    }
  };
  w.done = Promise.all(survivors.map(one));
  return w;
}

const countBy = (xs) => xs.reduce((o, x) => ((o[x] = (o[x] ?? 0) + 1), o), {});

async function runFailovers(opts, out) {
  log(
    `cp failover: ${opts.cpFailovers} x (fresh 3-member cluster; addAndGet stream of ${streamText(opts.cpFailoverRate)} through a ` +
      `non-leader; ${FAILOVER_BEFORE_MS / 1000} s, kill -9 of the default group's leader, until a request sent after the kill answers 200, ` +
      `${FAILOVER_AFTER_MS / 1000} s more)`,
  );
  out.failover = { runs: [] };
  for (let n = 1; n <= opts.cpFailovers; n++) {
    try {
      out.failover.runs.push(await runFailoverOnce(opts, n));
    } catch (err) {
      out.errors.push(`failover ${n}: ${err.message}`);
      log(`cp failover ${n} FAILED: ${err.stack ?? err}`);
    }
  }
  const times = out.failover.runs.map((r) => r.killToNextCommitMs).filter((x) => x !== null);
  const sorted = [...times].sort((a, b) => a - b);
  out.failover.killToNextCommitMs = { min: sorted[0] ?? NaN, median: median(sorted), max: sorted[sorted.length - 1] ?? NaN };
}

// ---------------------------------------------------------------- entry and report

/** Runs the CP phase if opts.only lists it; fills report.cp (errors recorded, not thrown). */
export async function runCp(opts, report) {
  if (!opts.only.includes('cp')) return;
  if (opts.target !== 'grid') {
    log(`cp phase needs the real member: skipped with --target ${opts.target}`);
    return;
  }
  const cli = path.join(path.dirname(opts.gridBin), '..', 'dist', 'cli.js');
  for (const f of readdirSync(RESULTS_DIR)) if (/^cp(-failover-\d+)?-member-\d+\.log$/.test(f)) rmSync(path.join(RESULTS_DIR, f));
  const out = (report.cp = {
    gridBin: opts.gridBin,
    members: SIZE,
    cpMemberCount: SIZE,
    groupSize: SIZE,
    leaderElectionTimeoutMs: LEADER_ELECTION_TIMEOUT_MS,
    options: { parts: opts.cpParts, seconds: opts.cpDuration, connections: opts.cpConnections, rounds: opts.rounds, failovers: opts.cpFailovers, failoverRate: opts.cpFailoverRate },
    errors: [],
  });
  if (!existsSync(cli)) {
    out.errors.push(`${cli} is missing: build first (npm run build, or a private copy with --grid-bin)`);
    return;
  }
  log(`cp: grid ${opts.gridBin}`);
  for (const [name, part] of [
    ['throughput', runThroughput],
    ['failover', runFailovers],
  ]) {
    if (!opts.cpParts.includes(name)) continue;
    try {
      await part(opts, out);
    } catch (err) {
      out.errors.push(`${name}: ${err.message}`);
      log(`cp ${name} part FAILED: ${err.stack ?? err}`);
    }
  }
}

export function renderCpReport(report) {
  const c = report.cp;
  if (!c) return '';
  const lines = [];
  lines.push(
    `CP: ${c.members} members, cp-member-count ${c.cpMemberCount} (default group of ${c.groupSize}), leader-election-timeout ${c.leaderElectionTimeoutMs} ms (default); ` +
      `same machine, loopback; ${report.cpus} cores shared by the members and the load generator`,
  );
  const t = c.throughput;
  if (t?.summary) {
    lines.push(
      `addAndGet(1) on one atomic long; map POST = random keys of ${fmtInt(PRELOAD_KEYS)}, ${VALUE_SIZE} B, backup-count 1; closed loop, 1 request in flight per connection; ` +
        `${c.options.rounds} round(s) x (${WARMUP_SECONDS} s warm-up + ${c.options.seconds} s); req/s, p50, cpu%: median over rounds; p99: worst round; ms`,
    );
    const cols = [
      ['workload', 28, 'l'],
      ['conns', 5],
      ['req/s', 7],
      ['ratio', 5],
      ['p50', 6],
      ['p99', 6],
      ['max', 7],
      ['µs/req', 6],
      ['cpu% members/gen/other', 22],
      ['errors', 6],
    ];
    const row = (cells) => cells.map((x, i) => (cols[i][2] === 'l' ? String(x).padEnd(cols[i][1]) : String(x).padStart(cols[i][1]))).join('  ').trimEnd();
    lines.push(row(cols.map((x) => x[0])));
    for (const connections of c.options.connections) {
      const s = t.summary[connections];
      if (!s) continue;
      for (const w of WORKLOADS) {
        const x = s[w.key];
        const ratio = w.key === 'follower' ? s.ratioFollower : w.key === 'leader' ? s.ratioLeader : 1;
        lines.push(
          row([
            w.name,
            connections,
            fmtInt(x.reqPerSec),
            ratio.toFixed(2),
            x.p50Ms.toFixed(2),
            x.p99Ms.toFixed(2),
            x.maxMs.toFixed(1),
            fmtUs(x.cpuUsPerReq),
            `${Math.round(x.serverCpuPct)}/${Math.round(x.loadGenCpuPct)}/${Math.round(x.otherCpuPct)}`,
            x.errors,
          ]),
        );
      }
    }
    lines.push(`ratio = req/s / map POST req/s at the same connections; non-leader ${t.follower}, leader ${t.leader}` + (t.leaders.length > 1 ? `; LEADER CHANGED: ${JSON.stringify(t.leaders)}` : ''));
    // Less sensitive to other load than req/s: what one request costs the members.
    const cpuRatios = c.options.connections
      .filter((n) => t.summary[n])
      .map((n) => {
        const s = t.summary[n];
        return `${n} conns: non-leader ${(s.map.cpuUsPerReq / s.follower.cpuUsPerReq).toFixed(2)}, leader ${(s.map.cpuUsPerReq / s.leader.cpuUsPerReq).toFixed(2)}`;
      });
    lines.push(`CPU ratio = map POST µs/req / addAndGet µs/req (members' CPU per request, all rounds): ${cpuRatios.join('; ')}`);
  }
  if (t?.exactlyOnce) lines.push(`throughput ${exactlyOnceText(t.exactlyOnce)}`);
  const f = c.failover;
  if (f?.runs.length) {
    const goalMs = LEADER_ELECTION_TIMEOUT_MS + FAILOVER_GOAL_SLACK_MS;
    lines.push(
      `failover: fresh cluster each; addAndGet stream of ${streamText(c.options.failoverRate)} through a non-leader; kill -9 of the default group's leader. ` +
        `next commit = kill -> first 200 of a request sent after the kill; goal <= ${goalMs} ms`,
    );
    const cols = [
      ['run', 3],
      ['next commit', 11],
      ['goal', 4, 'l'],
      ['elected', 7],
      ['1st 200', 7],
      ['pending', 7],
      ['errors', 6],
      ['gap', 7],
      ['exactly-once', 0, 'l'],
    ];
    const row = (cells) => cells.map((x, i) => (cols[i][2] === 'l' ? String(x).padEnd(cols[i][1]) : String(x).padStart(cols[i][1]))).join('  ').trimEnd();
    lines.push(row(cols.map((x) => x[0])));
    const ms = (x) => (x === null || !Number.isFinite(x) ? '-' : `${Math.round(x)}`);
    for (const r of f.runs) {
      const x = r.exactlyOnce;
      lines.push(
        row([
          r.run,
          r.killToNextCommitMs === null ? 'NEVER' : ms(r.killToNextCommitMs),
          r.goal.pass ? 'PASS' : 'FAIL',
          ms(r.killToElectedMs),
          ms(r.killToFirst200Ms),
          `${r.pendingAtKill}/${ms(r.pendingAtKillMaxMs)}`,
          r.errorsBetween,
          ms(r.maxGapBetween200Ms),
          `${x.pass ? 'PASS' : 'FAIL'}: final ${fmtInt(x.finalValue)} = ${fmtInt(x.answered200)} x 200` +
            (x.indeterminate ? ` (+ ${x.extra} of ${x.indeterminate} indeterminate)` : '') +
            (x.extra !== 0 && !x.indeterminate ? ` (diff ${x.extra})` : '') +
            `, dup values ${x.duplicateValues}`,
        ]),
      );
    }
    const k = f.killToNextCommitMs;
    const passes = f.runs.filter((r) => r.goal.pass).length;
    lines.push(
      `next commit min / median / max: ${ms(k.min)} / ${ms(k.median)} / ${ms(k.max)} ms; goal <= ${goalMs} ms: ${passes}/${c.options.failovers} PASS. ` +
        `elected = the new leader's log line; 1st 200 = any request; pending = requests in flight at the kill / slowest of them (ms); ` +
        `errors = non-200 answers between the kill and the next commit; gap = longest time between two 200s (ms)`,
    );
    for (const r of f.runs) {
      if (r.errorsBetween || r.errorsTotal) lines.push(`  run ${r.run}: errors ${JSON.stringify(r.errorsBetweenReasons)} (in all ${r.errorsTotal})`);
    }
  }
  const noisy = (t?.rounds ?? []).filter((r) => r.otherCpuPct > 25).map((r) => `${r.workload} ${r.connections} conn round ${r.round} (${Math.round(r.otherCpuPct)}%)`);
  if (noisy.length) lines.push(`NOTE other processes used over 25% of a core during ${noisy.join(', ')}: those runs are noisy`);
  for (const e of c.errors) lines.push(`ERROR cp ${e}`);
  return lines.join('\n');
}

/** True when the CP part found a problem (for the exit code). */
export function cpProblems(report) {
  const c = report.cp;
  if (!c) return false;
  return (
    c.errors.length > 0 ||
    (c.throughput?.exactlyOnce && !c.throughput.exactlyOnce.pass) ||
    (c.failover?.runs ?? []).some((r) => !r.exactlyOnce.pass || !r.goal.pass)
  );
}
