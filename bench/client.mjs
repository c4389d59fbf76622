// Hazelcast's official Node.js client (hazelcast-client 5.7.0) against Grid, beside REST and
// beside a real Hazelcast member, in one run (issue 24; `npm run bench -- --only client`):
//   - one Grid member: client map.get / map.set / queue.offer / queue.poll, then REST GET / POST
//     of the same keys on the same member;
//   - 3 Grid members (backup-count 1) with the client's default smart routing, then unisocket
//     through one member (smartRouting: false): the same client phases;
//   - one Hazelcast member (scripts/hazelcast-reference.mjs): the same client phases and REST GET.
// Every phase keeps --outstanding calls (default 50) in flight for --duration seconds and reports
// operations per second and member CPU µs per operation: utime+stime from /proc of every member
// process (all of a JVM's threads), summed, so the load generator's own CPU is not counted.
// Each phase also counts the members' read syscalls (/proc/<pid>/io syscr), so requests per
// read shows how many pipelined requests each read brought. Before the phases, the members'
// idle CPU (client connected, no calls) is measured over the same duration; per-op figures net
// of it are the CPU the calls themselves cost. After the 3-member run, one member runs map.get
// again with as many calls outstanding as the 3 members got requests per read: the same batch
// per syscall, the one thing a smart client's spread over 3 connections changes. The floor
// (bare-client-member.mjs, no cluster at all) measures 1 vs 3 processes the same way, and the
// lock-step part gives 1 and 3 members the same requests per read (bench/README.md).
// The figures are one run on whatever machine runs it: compare phases of the same run only.
//
//   npm run bench -- --only client [--duration 6]
//   npm run build && node bench/client.mjs [--duration 5] [--outstanding 50] [--hazelcast off]

import net from 'node:net';
import path from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from 'hazelcast-client';
import { BenchCluster } from './cluster.mjs';
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
  logTail,
  reservePorts,
  log,
  readCpuMs,
  startChild,
  stopChild,
  writeBenchConfig,
  waitReady,
} from './lib.mjs';

export const CLIENT_PHASES = ['client'];
/** Issue 24's goals: member CPU per client map.get <= this x a REST GET's (and below Hazelcast's). */
export const CLIENT_GET_VS_REST_TARGET = 0.6;
/** 3 members' CPU per client operation (smart routing) <= this x one member's. */
export const CLIENT_CLUSTER_CPU_TARGET = 1.3;

const KEYS = 10_000;
const WARMUP_MS = 1_000;
const CLIENT_OPS = ['map.get', 'map.set', 'queue.offer', 'queue.poll'];

const key = () => `key-${Math.floor(Math.random() * KEYS)}`;
const cpuOf = (pids) => pids.reduce((sum, pid) => sum + readCpuMs(pid), 0);
/** Read syscalls a process made so far (/proc/<pid>/io syscr; every read, the sockets' included). */
const readsOf = (pid) => Number(/^syscr: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
const allReadsOf = (pids) => pids.reduce((sum, pid) => sum + readsOf(pid), 0);

/**
 * The members' CPU with the client connected and no calls, over `durationMs`, as ms per second
 * (heartbeats, partition table repeats, metrics, CP and view timers, the client's pings).
 */
async function idleCpu(pids, durationMs) {
  const cpu0 = cpuOf(pids);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  return ((cpuOf(pids) - cpu0) * 1000) / (performance.now() - t0);
}

/** A phase's CPU per op net of the idle members' background over the same window. */
function netOfIdle(r, idleCpuMsPerSec) {
  const net = r.cpuMs - idleCpuMsPerSec * r.seconds;
  return { ...r, idleCpuMsPerSec, netCpuUsPerOp: (net * 1000) / Math.max(1, r.ops) };
}

/**
 * Runs `call(lane)` in `outstanding` lanes, one call in flight each, for `durationMs` (after a
 * warm-up); the members' summed CPU over that window. A call may answer `false`: counted as
 * `empty` (a poll of an empty queue), not as an operation.
 */
async function closedLoop(pids, { durationMs, outstanding }, call) {
  const warmEnd = performance.now() + WARMUP_MS;
  await Promise.all(Array.from({ length: outstanding }, async (_, lane) => {
    while (performance.now() < warmEnd) await call(lane).catch(() => undefined);
  }));
  const cpu0 = cpuOf(pids);
  const reads0 = allReadsOf(pids);
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let ops = 0;
  let errors = 0;
  let empty = 0;
  let firstError;
  const lane = async (_, laneIndex) => {
    while (performance.now() < deadline) {
      try {
        if ((await call(laneIndex)) === false) empty++;
        else ops++;
      } catch (e) {
        errors++;
        firstError ??= e.message;
      }
    }
  };
  await Promise.all(Array.from({ length: outstanding }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = cpuOf(pids) - cpu0;
  const reads = allReadsOf(pids) - reads0;
  return {
    opsPerSec: ops / seconds,
    cpuUsPerOp: (cpuMs * 1000) / Math.max(1, ops),
    opsPerRead: ops / Math.max(1, reads),
    ops,
    seconds,
    cpuMs,
    errors,
    empty,
    ...(firstError ? { firstError } : {}),
  };
}

/** One keep-alive socket per lane, one request at a time on each (the shape of the client's outstanding calls). */
async function restLoop(pids, port, opts, request) {
  const sockets = await Promise.all(
    Array.from({ length: opts.outstanding }, () => new Promise((resolve, reject) => {
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
    return await closedLoop(pids, opts, (lane) => calls[lane]());
  } finally {
    for (const s of sockets) s.destroy();
  }
}

/**
 * The client phases (`ops`, default all) against members `pids`, through a client connected to
 * `addresses`; with `idle`, the members' idle CPU first and every phase also net of it.
 */
async function clientPhases(label, pids, addresses, clusterName, opts, { smartRouting = true, ops = CLIENT_OPS, idle = false } = {}) {
  const client = await Client.newHazelcastClient({
    clusterName,
    network: { clusterMembers: addresses, smartRouting },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
  const out = {};
  try {
    const map = await client.getMap('bench');
    const queue = await client.getQueue('benchq');
    for (let i = 0; i < KEYS; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => map.set(`key-${i + j}`, BODY)));
    let idleCpuMsPerSec;
    if (idle) {
      idleCpuMsPerSec = await idleCpu(pids, opts.durationMs);
      out.idleCpuMsPerSec = idleCpuMsPerSec;
      log(`${label} idle: members' CPU ${idleCpuMsPerSec.toFixed(1)} ms per second (client connected, no calls)`);
    }
    const calls = {
      'map.get': () => map.get(key()),
      'map.set': () => map.set(key(), BODY),
      'queue.offer': () => queue.offer(BODY),
      // The offers just before leave items to poll; an empty answer is counted apart.
      'queue.poll': async () => (await queue.poll()) !== null,
    };
    for (const op of ops) {
      const r = await closedLoop(pids, opts, calls[op]);
      out[op] = idleCpuMsPerSec === undefined ? r : netOfIdle(r, idleCpuMsPerSec);
      logPhase(`${label} client ${op}`, out[op]);
    }
  } finally {
    await client.shutdown();
  }
  return out;
}

async function restPhases(label, pids, port, opts, { post = true } = {}) {
  const out = {};
  out['REST GET'] = await restLoop(pids, port, opts, () => `GET ${PREFIX}/rest/maps/bench/${key()} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  logPhase(`${label} REST GET`, out['REST GET']);
  if (post) {
    out['REST POST'] = await restLoop(pids, port, opts, () => `POST ${PREFIX}/rest/maps/bench/${key()} HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: text/plain\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`);
    logPhase(`${label} REST POST`, out['REST POST']);
  }
  return out;
}

function logPhase(name, r) {
  const net = r.netCpuUsPerOp === undefined ? '' : ` (${fmtUs(r.netCpuUsPerOp)} net of idle)`;
  log(
    `${name.padEnd(28)} ${fmtInt(r.opsPerSec).padStart(8)} ops/s   member CPU ${fmtUs(r.cpuUsPerOp).padStart(6)} µs/op${net}   ` +
      `${r.opsPerRead.toFixed(1)} requests/read   errors ${r.errors}${r.empty ? `   empty ${r.empty}` : ''}`,
  );
}

/** One member: `run(pid, port)` while it runs. */
async function withOneMember(opts, run) {
  const port = await freePort();
  const child = startChild('client bench member', [opts.gridBin ?? path.join(ROOT, 'bin', 'grid.js'), 'start', '--config', writeBenchConfig(port, { dirPrefix: 'grid-bench-client-' })], 'client-member.log');
  try {
    await waitReady(child, port);
    log(`client: 1 Grid member, pid ${child.pid} on port ${port}`);
    return await run(child.pid, port);
  } finally {
    await stopChild(child);
  }
}

async function runOneMember(opts) {
  return withOneMember(opts, async (pid, port) => {
    const client = await clientPhases('grid x1', [pid], [`${HOST}:${port}`], 'bench', opts, { idle: true });
    const rest = await restPhases('grid x1', [pid], port, opts);
    return { ...client, ...rest };
  });
}

/**
 * One member's map.get with as many calls outstanding as the 3 members' smart map.get got
 * requests per read syscall: one connection in lock-step brings `outstanding` requests per read,
 * so this is the one-member cost at the 3 members' batch per syscall.
 */
async function runOneMatched(opts, requestsPerRead) {
  const outstanding = Math.max(1, Math.round(requestsPerRead));
  return withOneMember(opts, async (pid, port) => {
    const r = await clientPhases(`grid x1 ${outstanding} outstanding`, [pid], [`${HOST}:${port}`], 'bench', { ...opts, outstanding }, { ops: ['map.get'], idle: true });
    return { outstanding, ...r };
  });
}

async function runThreeMembers(opts) {
  const c = await BenchCluster.create('client-bench', { gridBin: opts.gridBin });
  try {
    await c.start();
    const smart = await clientPhases('grid x3 smart', c.pids(), c.live().map((m) => m.address), 'bench-cluster', opts, { idle: true });
    const uni = await clientPhases('grid x3 unisocket', c.pids(), [c.live()[0].address], 'bench-cluster', opts, { smartRouting: false });
    return { smart, uni };
  } finally {
    await c.destroy();
  }
}

/** Requests per member per round of the lock-step part. */
const LOCKSTEP_BATCHES = [1, 9, 50];

/**
 * Lock-step rounds: each round sends `n` gets to every member at once (keys picked by their
 * owner in the client's partition table, so each member gets exactly `n`, written together) and
 * waits for all answers. Every member then reads `n` requests per syscall whatever the member
 * count: the CPU per get of 1 and 3 members at the same batch, what a member of a cluster does
 * per get beyond a lone member's with the batch size taken out.
 */
async function lockstep(label, pids, addresses, clusterName, opts) {
  const client = await Client.newHazelcastClient({ clusterName, network: { clusterMembers: addresses }, properties: { 'hazelcast.logging.level': 'OFF' } });
  const out = {};
  try {
    const map = await client.getMap('bench');
    for (let i = 0; i < KEYS; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => map.set(`key-${i + j}`, BODY)));
    const ps = client.getPartitionService();
    const byOwner = new Map();
    for (let i = 0; i < KEYS; i++) {
      const owner = ps.getPartitionOwner(ps.getPartitionId(`key-${i}`)).toString();
      if (!byOwner.has(owner)) byOwner.set(owner, []);
      byOwner.get(owner).push(`key-${i}`);
    }
    const groups = [...byOwner.values()];
    if (groups.length !== pids.length) throw new Error(`${label}: keys on ${groups.length} owners, expected ${pids.length}`);
    for (const n of LOCKSTEP_BATCHES) {
      const round = () => Promise.all(groups.flatMap((g) => Array.from({ length: n }, () => map.get(g[Math.floor(Math.random() * g.length)]))));
      const warmEnd = performance.now() + WARMUP_MS;
      while (performance.now() < warmEnd) await round();
      const cpu0 = cpuOf(pids);
      const reads0 = allReadsOf(pids);
      const t0 = performance.now();
      let rounds = 0;
      while (performance.now() - t0 < opts.durationMs) {
        await round();
        rounds++;
      }
      const ops = rounds * n * groups.length;
      const r = { opsPerSec: ops / ((performance.now() - t0) / 1000), cpuUsPerOp: ((cpuOf(pids) - cpu0) * 1000) / ops, opsPerRead: ops / Math.max(1, allReadsOf(pids) - reads0), ops };
      out[n] = r;
      log(`${label} lock-step ${String(n).padStart(2)} per member  ${fmtInt(r.opsPerSec).padStart(8)} ops/s   member CPU ${fmtUs(r.cpuUsPerOp).padStart(6)} µs/get   ${r.opsPerRead.toFixed(1)} requests/read`);
    }
  } finally {
    await client.shutdown();
  }
  return out;
}

async function runLockstep(opts) {
  const one = await withOneMember(opts, (pid, port) => lockstep('grid x1', [pid], [`${HOST}:${port}`], 'bench', opts));
  const c = await BenchCluster.create('client-bench-lockstep', { gridBin: opts.gridBin });
  try {
    await c.start();
    return { one, three: await lockstep('grid x3', c.pids(), c.live().map((m) => m.address), 'bench-cluster', opts) };
  } finally {
    await c.destroy();
  }
}

/** Waits until `child` accepts connections on `port` (the bare floor has no HTTP). */
async function waitListening(child, port) {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${child.benchName} exited (code ${child.exitCode}); log:\n${logTail(child.logFile)}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host: HOST, port }, () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.benchName} not listening on ${port} within 30 s`);
}

/**
 * The floor (bench/bare-client-member.mjs): map.get from the same client against 1 and against 3
 * processes that only answer the client protocol from a Map, smart routing as with Grid.
 */
async function runFloor(opts) {
  const out = {};
  for (const n of [1, 3]) {
    const ports = await reservePorts(n);
    const children = ports.map((_, i) =>
      startChild(`bare client member ${i + 1}/${n}`, [path.join(ROOT, 'bench', 'bare-client-member.mjs'), '--ports', ports.join(','), '--index', String(i)], `client-floor-${n}-${i}.log`),
    );
    try {
      for (let i = 0; i < n; i++) await waitListening(children[i], ports[i]);
      const pids = children.map((c) => c.pid);
      out[n === 1 ? 'one' : 'three'] = await clientPhases(`floor x${n}`, pids, ports.map((p) => `${HOST}:${p}`), 'bench', opts, { ops: ['map.get'], idle: true });
    } finally {
      await Promise.all(children.map((c) => stopChild(c)));
    }
  }
  return out;
}

/** The same client phases (and REST GET) on a Hazelcast member, or the reason it could not run. */
async function runHazelcast(opts) {
  if (opts.hazelcast === 'off') return { skipped: '--hazelcast off' };
  const ref = await import('../scripts/hazelcast-reference.mjs');
  let member;
  try {
    ref.requireJava();
    ref.ensureJar(ref.HAZELCAST_REST_VERSION);
    member = await ref.startHazelcast({
      clusterName: 'bench',
      groups: ['DATA', 'HEALTH_CHECK', 'CLUSTER_READ'],
      readyPath: '/hazelcast/health/ready',
      // A server JVM for throughput (C2 on), as bench/run.mjs's Hazelcast peer.
      jvmOptions: ['-Xms512m', '-Xmx2g', '-XX:+UseSerialGC', '-Djava.net.preferIPv4Stack=true'],
    });
  } catch (e) {
    if (!(e instanceof ref.ReferenceUnavailable)) throw e;
    log(`client: Hazelcast skipped: ${e.message}`);
    return { skipped: e.message };
  }
  try {
    log(`client: Hazelcast ${member.version}, pid ${member.pid} on port ${member.port}`);
    const client = await clientPhases('hazelcast', [member.pid], [`${HOST}:${member.port}`], 'bench', opts);
    const rest = await restPhases('hazelcast', [member.pid], member.port, opts, { post: false });
    return { version: member.version, ...client, ...rest };
  } finally {
    await member.stop();
  }
}

/** Runs the client part into `report.client` (bench/run.mjs, `--only client`). */
export async function runClient(opts, report) {
  if (!opts.only.includes('client')) return;
  const o = { durationMs: intOption(opts, 'duration', 1) * 1000, outstanding: intOption({ outstanding: opts.outstanding ?? opts.connections ?? 50 }, 'outstanding', 1), hazelcast: opts.hazelcast, gridBin: opts.gridBin, parts: opts.parts };
  const out = { durationMs: o.durationMs, outstanding: o.outstanding, errors: [] };
  report.client = out;
  log(`client: ${o.outstanding} outstanding calls, ${o.durationMs / 1000} s per phase after a ${WARMUP_MS / 1000} s warm-up`);
  const matched = (o2) => {
    const perRead = out.three?.smart?.['map.get']?.opsPerRead;
    if (perRead === undefined) throw new Error('no 3-member map.get to match');
    return runOneMatched(o2, perRead);
  };
  const parts = (o.parts ?? 'one,three,matched,floor,lockstep,hazelcast').split(',');
  for (const [name, run] of [['one', runOneMember], ['three', runThreeMembers], ['matched', matched], ['floor', runFloor], ['lockstep', runLockstep], ['hazelcast', runHazelcast]]) {
    if (!parts.includes(name)) continue;
    try {
      out[name] = await run(o);
    } catch (e) {
      out.errors.push(`${name}: ${e.message}`);
      log(`client part ${name} FAILED: ${e.stack ?? e}`);
    }
  }
  const one = out.one;
  const three = out.three?.smart;
  const hz = out.hazelcast;
  const matchedGet = out.matched?.['map.get'];
  out.goals = {
    getVsRest: one ? one['map.get'].cpuUsPerOp / one['REST GET'].cpuUsPerOp : null,
    getVsHazelcast: one && hz?.['map.get'] ? one['map.get'].cpuUsPerOp / hz['map.get'].cpuUsPerOp : null,
    threeVsOne: one && three ? Object.fromEntries(CLIENT_OPS.map((op) => [op, three[op].cpuUsPerOp / one[op].cpuUsPerOp])) : null,
    threeVsOneNet: one && three ? Object.fromEntries(CLIENT_OPS.map((op) => [op, three[op].netCpuUsPerOp / one[op].netCpuUsPerOp])) : null,
    // The 3 members' get against one member's at the same requests per read (net of idle both).
    getThreeVsMatched: three && matchedGet ? three['map.get'].netCpuUsPerOp / matchedGet.netCpuUsPerOp : null,
    floorThreeVsOne: out.floor?.three ? out.floor.three['map.get'].cpuUsPerOp / out.floor.one['map.get'].cpuUsPerOp : null,
    floorThreeVsOneNet: out.floor?.three ? out.floor.three['map.get'].netCpuUsPerOp / out.floor.one['map.get'].netCpuUsPerOp : null,
  };
}

export function renderClientReport(report) {
  const t = report.client;
  if (!t) return '';
  const cell = (r) => (r ? `${fmtInt(r.opsPerSec).padStart(8)} ${fmtUs(r.cpuUsPerOp).padStart(7)}` : `${'-'.padStart(8)} ${'-'.padStart(7)}`);
  const lines = [
    '',
    `Official Node.js client (issue 24): ${t.outstanding} calls outstanding, ${t.durationMs / 1000} s per phase; ops/s and member CPU µs/op (all members summed)`,
    `  ${'operation'.padEnd(14)} ${'grid x1'.padStart(16)} ${'grid x3 smart'.padStart(16)} ${'grid x3 uni'.padStart(16)} ${`hazelcast ${t.hazelcast?.version ?? ''}`.padStart(16)}`,
    `  ${''.padEnd(14)} ${'ops/s   µs/op'.padStart(16)} ${'ops/s   µs/op'.padStart(16)} ${'ops/s   µs/op'.padStart(16)} ${'ops/s   µs/op'.padStart(16)}`,
  ];
  for (const op of [...CLIENT_OPS, 'REST GET', 'REST POST']) {
    const name = CLIENT_OPS.includes(op) ? `client ${op}` : op;
    lines.push(`  ${name.padEnd(20).slice(0, 20)}${cell(t.one?.[op])} ${cell(t.three?.smart?.[op])} ${cell(t.three?.uni?.[op])} ${cell(t.hazelcast?.[op])}`);
  }
  if (t.hazelcast?.skipped) lines.push(`  Hazelcast skipped: ${t.hazelcast.skipped}`);
  const g = t.goals ?? {};
  const pf = (ok) => (ok ? 'PASS' : 'MISS');
  if (g.getVsRest != null) lines.push(`  member CPU client map.get / REST GET (1 member): ${g.getVsRest.toFixed(2)}  goal <= ${CLIENT_GET_VS_REST_TARGET}  ${pf(g.getVsRest <= CLIENT_GET_VS_REST_TARGET)}`);
  if (g.getVsHazelcast != null) lines.push(`  member CPU client map.get Grid / Hazelcast: ${g.getVsHazelcast.toFixed(2)}  goal < 1  ${pf(g.getVsHazelcast < 1)}`);
  if (g.threeVsOne) {
    const get = g.threeVsOne['map.get'];
    const getNet = g.threeVsOneNet['map.get'];
    lines.push(
      `  3 members (smart routing) / 1 member, member CPU per map.get: ${get.toFixed(2)} (net of idle ${getNet.toFixed(2)})  goal <= ${CLIENT_CLUSTER_CPU_TARGET}  ${pf(get <= CLIENT_CLUSTER_CPU_TARGET)}`,
      `    idle members' CPU: 1 member ${t.one.idleCpuMsPerSec.toFixed(1)} ms/s, 3 members ${t.three.smart.idleCpuMsPerSec.toFixed(1)} ms/s (summed)`,
      `    the other operations: ${CLIENT_OPS.filter((op) => op !== 'map.get').map((op) => `${op} ${g.threeVsOne[op].toFixed(2)} (net ${g.threeVsOneNet[op].toFixed(2)})`).join(', ')}`,
      `    requests per read syscall, map.get: 1 member ${t.one['map.get'].opsPerRead.toFixed(1)}, 3 members ${t.three.smart['map.get'].opsPerRead.toFixed(1)}`,
    );
  }
  const m = t.matched?.['map.get'];
  if (m && g.getThreeVsMatched != null) {
    lines.push(
      `  1 member at ${t.matched.outstanding} outstanding (${m.opsPerRead.toFixed(1)} requests/read, as the 3 members got): ${fmtInt(m.opsPerSec)} ops/s, ` +
        `${fmtUs(m.cpuUsPerOp)} µs/get (net ${fmtUs(m.netCpuUsPerOp)}); 3 members / this, net: ${g.getThreeVsMatched.toFixed(2)}`,
    );
  }
  if (g.floorThreeVsOne != null) {
    const f1 = t.floor.one['map.get'];
    const f3 = t.floor.three['map.get'];
    lines.push(
      `  floor (bare-client-member.mjs, no cluster at all), map.get: 1 process ${fmtInt(f1.opsPerSec)} ops/s ${fmtUs(f1.cpuUsPerOp)} µs (${f1.opsPerRead.toFixed(1)} requests/read), ` +
        `3 processes ${fmtInt(f3.opsPerSec)} ops/s ${fmtUs(f3.cpuUsPerOp)} µs (${f3.opsPerRead.toFixed(1)} requests/read): 3 / 1 = ${g.floorThreeVsOne.toFixed(2)} (net of idle ${g.floorThreeVsOneNet.toFixed(2)})`,
    );
  }
  if (t.lockstep?.one && t.lockstep?.three) {
    const cells = LOCKSTEP_BATCHES.map((n) => `${n}/read: ${fmtUs(t.lockstep.one[n].cpuUsPerOp)} vs ${fmtUs(t.lockstep.three[n].cpuUsPerOp)} (${(t.lockstep.three[n].cpuUsPerOp / t.lockstep.one[n].cpuUsPerOp).toFixed(2)})`);
    lines.push(`  lock-step, the same requests per read on every member, µs/get 1 member vs 3 members (3 / 1): ${cells.join(', ')}`);
  }
  for (const e of t.errors) lines.push(`  ERROR: ${e}`);
  return lines.join('\n');
}

export function clientProblems(report) {
  const t = report.client;
  if (!t) return false;
  const phases = [t.one, t.three?.smart, t.three?.uni, t.matched, t.floor?.one, t.floor?.three, t.hazelcast].filter(Boolean).flatMap((p) => Object.values(p).filter((r) => typeof r === 'object' && r !== null && 'errors' in r));
  return t.errors.length > 0 || phases.some((r) => r.errors > 0);
}

// `node bench/client.mjs`: this part alone.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      outstanding: { type: 'string', default: '50' },
      hazelcast: { type: 'string', default: 'auto' },
      parts: { type: 'string', default: 'one,three,matched,floor,lockstep,hazelcast' },
    },
  });
  const report = {};
  try {
    mkdirSync(RESULTS_DIR, { recursive: true });
    await runClient({ ...values, only: ['client'] }, report);
    process.stdout.write(`${renderClientReport(report)}\n`);
    writeFileSync(path.join(RESULTS_DIR, 'client.json'), JSON.stringify({ date: new Date().toISOString(), ...report.client }, null, 2));
    if (clientProblems(report)) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}
