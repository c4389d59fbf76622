// WAN part of the Grid benchmark, last step (bench/README.md, "WAN"): how soon replication
// resumes after a link that drops packets heals (issue 29). A 1-member source A and a 1-member
// target B in two network namespaces joined by a bridge; under a steady write rate on A, the
// bridge drops every frame for each of --wan-cuts seconds (a tbf qdisc that passes nothing on
// its ports: the packets vanish and neither kernel learns anything, so TCP backs off as across a
// WAN whose router drops), then forwards again. Measured per cut: how soon A's GET /rest/wan says the
// endpoint is down, the first entry written during the cut readable on B after the heal
// (time to resume), and every write acknowledged during the cut readable on B (all replicated).
// The same writes also go to a second map whose publisher has heartbeat-timeout-millis 0 (TCP
// alone, as before issue 29), measured on the same cuts for comparison. Needs root and iproute2; skipped with the reason otherwise.
// Namespaces are named `${GRID_BENCH_NETNS_PREFIX:-gridbench}<id>...` and removed at the end.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { PREFIX, RESULTS_DIR, ROOT, children, log, memberConfig, reservePorts, stopChild, tempDirs, waitFor } from './lib.mjs';

/** The goal: the first entry of the cut on the target at most this long after the heal. */
export const RESUME_GOAL_MS = 5_000;
const WRITERS = 4;
/** Writes per second on A during the runs, to each of the two maps (about; paced by sleeps). */
const RATE = 100;
const NS_PREFIX = process.env.GRID_BENCH_NETNS_PREFIX ?? 'gridbench';

function ip(...args) {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why the namespaces cannot be made here, or undefined. */
function unavailable() {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'network namespaces need root';
  try {
    ip('-V');
  } catch (e) {
    return `iproute2 is missing: ${e.message}`;
  }
  return undefined;
}

/** Sides 0 (A) and 1 (B), each with its host address on lo, a veth to this namespace, and a port on one bridge. */
function buildLab() {
  const id = randomBytes(2).toString('hex');
  const used = ip('-4', 'route');
  let net = 0;
  for (let t = 0; t < 50 && net === 0; t++) {
    const n = 100 + Math.floor(Math.random() * 150);
    if (!used.includes(`10.${n}.`)) net = n;
  }
  if (net === 0) throw new Error('no free 10.x.0.0/16 for the WAN resume lab');
  const p = `${NS_PREFIX}${id}`;
  const lab = { ns: [`${p}s0`, `${p}s1`], br: `${p}br`, hosts: [`10.${net}.100.1`, `10.${net}.100.2`], port: (i) => `${p}p${i}`, root: (i) => `${p}r${i}` };
  lab.destroy = () => {
    for (const ns of [...lab.ns, lab.br]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // not created
      }
    }
    for (let i = 0; i < 2; i++) {
      try {
        ip('link', 'del', lab.root(i));
      } catch {
        // gone with its peer
      }
    }
  };
  try {
    ip('netns', 'add', lab.br);
    ip('-n', lab.br, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', lab.br, 'link', 'set', 'br0', 'up');
    for (let i = 0; i < 2; i++) {
      const ns = lab.ns[i];
      ip('netns', 'add', ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('-n', ns, 'addr', 'add', `${lab.hosts[i]}/32`, 'dev', 'lo');
      ip('link', 'add', lab.root(i), 'type', 'veth', 'peer', 'name', `${p}t${i}`);
      ip('link', 'set', `${p}t${i}`, 'netns', ns);
      ip('addr', 'add', `10.${net}.${i}.1/24`, 'dev', lab.root(i));
      ip('link', 'set', lab.root(i), 'up');
      ip('-n', ns, 'addr', 'add', `10.${net}.${i}.2/24`, 'dev', `${p}t${i}`);
      ip('-n', ns, 'link', 'set', `${p}t${i}`, 'up');
      ip('route', 'add', `${lab.hosts[i]}/32`, 'via', `10.${net}.${i}.2`);
      ip('link', 'add', `${p}w${i}`, 'type', 'veth', 'peer', 'name', lab.port(i));
      ip('link', 'set', `${p}w${i}`, 'netns', ns);
      ip('link', 'set', lab.port(i), 'netns', lab.br);
      ip('-n', lab.br, 'link', 'set', lab.port(i), 'master', 'br0');
      ip('-n', lab.br, 'link', 'set', lab.port(i), 'up');
      ip('-n', ns, 'addr', 'add', `10.${net}.250.${i + 1}/24`, 'dev', `${p}w${i}`);
      ip('-n', ns, 'link', 'set', `${p}w${i}`, 'up');
    }
    const mac = (i) => JSON.parse(ip('-j', '-n', lab.ns[i], 'link', 'show', `${p}w${i}`))[0].address;
    for (const [i, j] of [[0, 1], [1, 0]]) {
      ip('-n', lab.ns[i], 'route', 'add', `${lab.hosts[j]}/32`, 'via', `10.${net}.250.${j + 1}`, 'dev', `${p}w${i}`);
      // As a gateway stays resolvable: no ARP failure tells either side anything during a cut.
      ip('-n', lab.ns[i], 'neigh', 'replace', `10.${net}.250.${j + 1}`, 'lladdr', mac(j), 'dev', `${p}w${i}`, 'nud', 'permanent');
    }
  } catch (e) {
    lab.destroy();
    throw e;
  }
  // burst 10 bytes: every frame is larger, and tbf drops what it could never send.
  const tc = (...args) => execFileSync('ip', ['netns', 'exec', lab.br, 'tc', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  lab.cut = () => {
    for (let i = 0; i < 2; i++) tc('qdisc', 'replace', 'dev', lab.port(i), 'root', 'tbf', 'rate', '8bit', 'burst', '10', 'limit', '1');
  };
  lab.heal = () => {
    for (let i = 0; i < 2; i++) {
      try {
        tc('qdisc', 'del', 'dev', lab.port(i), 'root');
      } catch {
        // not cut
      }
    }
  };
  return lab;
}

function request(host, port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, method, path: urlPath, agent: false, timeout: 5000, headers: body === undefined ? {} : { 'Content-Type': 'text/plain' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

function startIn(ns, name, config, dir) {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(config));
  const logFile = path.join(RESULTS_DIR, `wan-resume-${name}.log`);
  const fd = openSync(logFile, 'w');
  // `ip netns exec` execs node in the namespace: the child's pid is the member's.
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, path.join(ROOT, 'bin', 'grid.js'), 'start', '--config', file], { cwd: ROOT, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  children.add(child);
  child.benchName = `WAN resume ${name}`;
  child.logFile = logFile;
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => (children.delete(child), resolve({ code, signal }))));
  return child;
}

/** Runs the cuts; fills out.resume (errors recorded in out.errors by the caller). */
export async function runResume(opts, out) {
  const why = unavailable();
  if (why !== undefined) {
    out.resume = { skipped: why };
    log(`wan resume: skipped (${why})`);
    return;
  }
  const lab = buildLab();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-wan-resume-'));
  tempDirs.push(dir);
  const [aPort, bPort] = await reservePorts(2);
  const [aHost, bHost] = lab.hosts;
  const res = (out.resume = { rate: RATE, goalMs: RESUME_GOAL_MS, cuts: [] });
  let a;
  let b;
  let writing = true;
  try {
    b = startIn(lab.ns[1], 'target', memberConfig('B', bHost, bPort, {}, ['DATA', 'CLUSTER_READ']), dir);
    const publisher = (extra) => ({ 'batch-publisher': { B: { 'cluster-name': 'B', 'target-endpoints': `${bHost}:${bPort}`, 'queue-capacity': 200_000, ...extra } } });
    a = startIn(
      lab.ns[0],
      'source',
      memberConfig('A', aHost, aPort, {
        // The defaults (liveness on), and for comparison the same publisher with TCP alone.
        'wan-replication': { 'to-b': publisher({}), 'to-b-tcp': publisher({ 'heartbeat-timeout-millis': 0 }) },
        map: { cut: { 'wan-replication-ref': { 'to-b': {} } }, 'cut-tcp': { 'wan-replication-ref': { 'to-b-tcp': {} } } },
      }, ['DATA', 'CLUSTER_READ']),
      dir,
    );
    const endpointOf = async (rep) => JSON.parse((await request(aHost, aPort, 'GET', '/grid/rest/wan')).body).publishers.find((p) => p.wanReplicationName === rep).endpoints[0];
    await waitFor(async () => (await endpointOf('to-b')).status === 'up' && (await endpointOf('to-b-tcp')).status === 'up', 60_000, 'the source connected to the target', 200);

    // The writers: a new key per write to both maps, its value its number; what was acknowledged (by both) and when.
    const acked = [];
    let n = 0;
    const writers = Array.from({ length: WRITERS }, async () => {
      while (writing) {
        const k = n++;
        const rs = await Promise.all(['cut', 'cut-tcp'].map((m) => request(aHost, aPort, 'POST', `${PREFIX}/rest/maps/${m}/r${k}`, String(k)).catch(() => ({ status: 0 }))));
        if (rs.every((r) => r.status === 200)) acked.push({ k, at: performance.now() });
        await sleep((1000 * WRITERS) / RATE);
      }
    });
    const onB = async (map, k) => (await request(bHost, bPort, 'GET', `${PREFIX}/rest/maps/${map}/r${k}`)).status === 200;

    /** From the heal: the first marker on B, then every write of the cut on B (NaN: not within 180 s). */
    const resumeOf = async (map, healAt, markers, cutWrites) => {
      const first = await waitFor(async () => ((await Promise.all(markers.map((k) => onB(map, k)))).some(Boolean) ? performance.now() - healAt : undefined), 180_000, `a write of the cut on the target (${map})`, 25).catch(() => NaN);
      let pending = cutWrites;
      const all = await waitFor(
        async () => {
          const still = [];
          for (let i = 0; i < pending.length; i += 32) {
            const part = pending.slice(i, i + 32);
            const there = await Promise.all(part.map((k) => onB(map, k)));
            part.forEach((k, j) => there[j] || still.push(k));
          }
          pending = still;
          return still.length === 0 ? performance.now() - healAt : undefined;
        },
        180_000,
        `every write of the cut on the target (${map})`,
        50,
      ).catch(() => NaN);
      return { firstEntryMs: first, allReplicatedMs: all, missing: pending.length };
    };

    for (const cutSeconds of opts.wanCuts) {
      await sleep(2000);
      const cutAt = performance.now();
      lab.cut();
      const down = await waitFor(async () => {
        const e = await endpointOf('to-b');
        return e.status === 'down' ? e : undefined;
      }, cutSeconds * 1000 + 30_000, 'the endpoint down', 100);
      const detectedMs = performance.now() - cutAt;
      await sleep(Math.max(0, cutAt + cutSeconds * 1000 - performance.now()));
      // What the TCP-only publisher says at the end of the cut (issue 29: "up" all along).
      const tcpStatusAtHeal = (await endpointOf('to-b-tcp')).status;
      const during = acked.filter((x) => x.at > cutAt + 500).map((x) => x.k);
      const markers = during.filter((_, i) => i % Math.max(1, Math.floor(during.length / 20)) === 0);
      const healAt = performance.now();
      const cutWrites = acked.filter((x) => x.at >= cutAt && x.at <= healAt).map((x) => x.k);
      lab.heal();
      const [live, tcp] = await Promise.all([resumeOf('cut', healAt, markers, cutWrites), resumeOf('cut-tcp', healAt, markers, cutWrites)]);
      const r = {
        cutSeconds,
        detectedMs,
        cause: down.cause ?? null,
        ...live,
        writesDuringCut: cutWrites.length,
        pass: live.firstEntryMs <= RESUME_GOAL_MS && live.missing === 0,
        tcpOnly: { ...tcp, statusAtHeal: tcpStatusAtHeal },
      };
      res.cuts.push(r);
      const s2 = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'not within 180 s');
      log(
        `wan resume: ${cutSeconds} s cut: down after ${s2(detectedMs)} (${r.cause}); first entry ${s2(live.firstEntryMs)}, all ${s2(live.allReplicatedMs)} after the heal; ` +
          `${cutWrites.length} writes during the cut, ${live.missing} missing. TCP alone (heartbeat-timeout-millis 0): endpoint "${tcpStatusAtHeal}" at the heal, ` +
          `first entry ${s2(tcp.firstEntryMs)}, all ${s2(tcp.allReplicatedMs)}, ${tcp.missing} missing`,
      );
    }
    writing = false;
    await Promise.all(writers);
  } finally {
    writing = false;
    try {
      lab.heal();
    } catch {
      // gone
    }
    await Promise.all([stopChild(a), stopChild(b)]);
    lab.destroy();
  }
}
