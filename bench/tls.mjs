// TLS phase (`--only tls`), issue 22's figures:
//   - map GET and POST over HTTPS with keep-alive: Grid against bare node:https serving a
//     constant, in the same run (goal Grid >= 1.3x for GET, >= 1.2x for POST; p99 <= 2 ms at
//     the bench's connections), and Grid over HTTPS against Grid over plain HTTP (TLS's cost);
//   - full TLS handshakes per second on one member, with and without session resumption;
//   - the 3-member cluster's server CPU per request with member TLS against without.
// Certificates are made with the openssl CLI into a temp dir (EC P-256, like the tests').
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BENCH_DIR,
  HOST,
  PREFIX,
  PRELOAD_KEYS,
  READY_DEADLINE_MS,
  WORKLOADS,
  cannon,
  fmtInt,
  freePort,
  log,
  readCpuMs,
  startChild,
  stopChild,
  summarize,
  tempDirs,
  valueFor,
} from './lib.mjs';

export const TLS_PHASES = ['tls'];
const TARGETS = { get: 1.3, post: 1.2, p99Ms: 2 };

function makeCerts() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-tls-'));
  tempDirs.push(dir);
  const run = (args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=bench-ca', '-addext', 'basicConstraints=critical,CA:TRUE']);
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  run(['req', ...ec, '-keyout', 'member.key', '-out', 'member.csr', '-subj', '/CN=member']);
  run(['x509', '-req', '-in', 'member.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '1', '-days', '2', '-extfile', 'ext.cnf', '-out', 'member.pem']);
  writeFileSync(path.join(dir, 'chain.pem'), readFileSync(path.join(dir, 'member.pem'), 'utf8') + readFileSync(path.join(dir, 'ca.pem'), 'utf8'));
  return { dir, ca: path.join(dir, 'ca.pem'), key: path.join(dir, 'member.key'), chain: path.join(dir, 'chain.pem') };
}

function memberConfig(dir, port, certs, { ssl, members = [port], mutual = false }) {
  const file = path.join(dir, `grid-${port}-${ssl ? 'tls' : 'plain'}.yaml`);
  const lines = [
    'hazelcast:',
    '  cluster-name: bench',
    '  network:',
    `    port: { port: ${port}, auto-increment: false }`,
    '    join:',
    '      multicast: { enabled: false }',
    `      tcp-ip: { enabled: true, member-list: [${members.map((p) => `"127.0.0.1:${p}"`).join(', ')}] }`,
    '    rest-api:',
    '      enabled: true',
    '      endpoint-groups:',
    '        DATA: { enabled: true }',
    '        HEALTH_CHECK: { enabled: true }',
    '        CLUSTER_READ: { enabled: true }',
  ];
  if (ssl) {
    lines.push(
      '    ssl:',
      '      enabled: true',
      '      properties:',
      `        keyFile: ${certs.key}`,
      `        keyCertChainFile: ${certs.chain}`,
      `        trustCertCollectionFile: ${certs.ca}`,
      ...(mutual ? ['        mutualAuthentication: REQUIRED'] : []),
    );
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** One request over http or https (no keep-alive), for readiness and preloading. */
function request(scheme, port, method, urlPath, body, agent) {
  const mod = scheme === 'https' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request({ host: HOST, port, method, path: urlPath, agent, rejectUnauthorized: false, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

async function waitHealthy(child, scheme, port, clusterSize = 1, bare = false) {
  const deadline = Date.now() + READY_DEADLINE_MS * 2;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${child.benchName} exited before it was ready (log ${child.logFile})`);
    try {
      const r = await request(scheme, port, 'GET', `${PREFIX}/health`);
      if (bare && r.status === 200) return;
      const size = r.status === 200 ? JSON.parse(r.body).clusterSize : 0;
      if (size >= clusterSize) return;
      last = `HTTP ${r.status}, cluster size ${size}`;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  throw new Error(`${child.benchName} not ready (last: ${last}; log ${child.logFile})`);
}

async function startGrid(opts, name, certs, ssl, port, members, dir) {
  const config = memberConfig(dir, port, certs, { ssl, members });
  const child = startChild(name, [...opts.nodeArgs, opts.gridBin, 'start', '--config', config], `${name.replace(/\W+/g, '-')}.log`, {
    cpus: opts.loadGen.pinning?.server,
  });
  return { child, port, scheme: ssl ? 'https' : 'http' };
}

async function preload(server) {
  const mod = server.scheme === 'https' ? https : http;
  const agent = new mod.Agent({ keepAlive: true, maxSockets: 32, rejectUnauthorized: false });
  let next = 0;
  const worker = async () => {
    while (next < PRELOAD_KEYS) {
      const i = next++;
      await request(server.scheme, server.port, 'POST', `${PREFIX}/rest/maps/bench/key-${i}`, valueFor(i), agent);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  agent.destroy();
}

function runLine(label, r) {
  log(`  ${label.padEnd(12)} ${fmtInt(r.reqPerSec).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(2)}  p99 ${r.p99Ms.toFixed(2)} ms  ${Math.round(r.serverCpuUsPerReq)} µs/req  errors ${r.non2xx + r.errors}`);
}

/** Full (or resumed) handshakes per second against `port` from `concurrency` loops for `seconds`. */
async function handshakes(port, pid, seconds, resume, ca) {
  let session;
  let count = 0;
  let errors = 0;
  let stop = false;
  const one = () =>
    new Promise((resolve) => {
      const s = tls.connect({ host: HOST, port, ca, ...(resume && session ? { session } : {}) }, () => {
        if (resume && !s.isSessionReused() && session !== undefined) errors++;
        count++;
        // TLSv1.3 tickets come after the handshake: keep the latest for the next resumption.
        s.end();
      });
      s.on('session', (sess) => {
        if (resume) session = sess;
      });
      s.on('error', () => {
        errors++;
        resolve();
      });
      s.on('close', () => resolve());
    });
  const loop = async () => {
    while (!stop) await one();
  };
  // Warm-up (and a first ticket), then the measured window.
  const warm = Array.from({ length: 4 }, loop);
  await sleep(1000);
  count = 0;
  errors = 0;
  const cpu0 = readCpuMs(pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const n = count;
  const wall = (performance.now() - t0) / 1000;
  const cpu = readCpuMs(pid) - cpu0;
  stop = true;
  await Promise.all(warm);
  return { perSecond: n / wall, serverCpuUsPerHandshake: n ? (cpu * 1000) / n : NaN, notResumed: resume ? errors : 0 };
}

export async function runTls(opts, report) {
  if (!opts.only.includes('tls')) return;
  log('tls: HTTPS throughput against bare node:https, TLS cost, handshakes, member TLS in a 3-member cluster');
  const certs = makeCerts();
  const dir = certs.dir;
  const out = { rounds: opts.rounds, workloads: [], handshakes: null, cluster: null, errors: [] };
  report.tls = out;
  const caPem = readFileSync(certs.ca);
  try {
    // ---- one member over HTTPS, one over HTTP, bare node:https
    const barePort = await freePort();
    const bare = startChild('bare node:https', [path.join(BENCH_DIR, 'bare-https-server.mjs'), '--port', String(barePort), '--key', certs.key, '--cert', certs.chain], 'bare-https.log', {
      cpus: opts.loadGen.pinning?.server,
    });
    const gridTls = await startGrid(opts, 'grid https', certs, true, await freePort(), undefined, dir);
    const gridPlain = await startGrid(opts, 'grid http', certs, false, await freePort(), undefined, dir);
    await Promise.all([waitHealthy(bare, 'https', barePort, 1, true), waitHealthy(gridTls.child, 'https', gridTls.port), waitHealthy(gridPlain.child, 'http', gridPlain.port)]);
    await Promise.all([preload(gridTls), preload(gridPlain)]);
    const bareServer = { ports: [barePort], pids: [bare.pid], scheme: 'https' };
    const tlsServer = { ports: [gridTls.port], pids: [gridTls.child.pid], scheme: 'https' };
    const plainServer = { ports: [gridPlain.port], pids: [gridPlain.child.pid], scheme: 'http' };
    for (const key of ['get', 'post']) {
      const runs = { bare: [], grid: [], plain: [] };
      log(`tls ${WORKLOADS[key].name}`);
      for (let r = 0; r < opts.rounds; r++) {
        const requests = () => WORKLOADS[key].requests(opts);
        const b = await cannon(bareServer, opts.connections, opts.duration, requests);
        runLine('node:https', b);
        const g = await cannon(tlsServer, opts.connections, opts.duration, requests);
        runLine('grid https', g);
        const p = await cannon(plainServer, opts.connections, opts.duration, requests);
        runLine('grid http', p);
        runs.bare.push(b);
        runs.grid.push(g);
        runs.plain.push(p);
      }
      const s = { bare: summarize(runs.bare), grid: summarize(runs.grid), plain: summarize(runs.plain) };
      out.workloads.push({
        key,
        name: WORKLOADS[key].name,
        ...s,
        ratio: s.grid.reqPerSec / s.bare.reqPerSec,
        roundRatios: runs.grid.map((g, i) => g.reqPerSec / runs.bare[i].reqPerSec),
        tlsCost: s.grid.reqPerSec / s.plain.reqPerSec,
        cpuPerReqTlsOverPlain: s.grid.cpuUsPerReq / s.plain.cpuUsPerReq,
      });
    }
    // ---- handshakes on the HTTPS member
    const secs = Math.max(2, Math.min(opts.duration, 5));
    out.handshakes = {
      full: await handshakes(gridTls.port, gridTls.child.pid, secs, false, caPem),
      resumed: await handshakes(gridTls.port, gridTls.child.pid, secs, true, caPem),
    };
    log(`  handshakes/s: full ${fmtInt(out.handshakes.full.perSecond)}, resumed ${fmtInt(out.handshakes.resumed.perSecond)}`);
    await Promise.all([stopChild(bare), stopChild(gridTls.child), stopChild(gridPlain.child)]);

    // ---- 3-member cluster: CPU per request with member TLS against without
    const cluster = {};
    for (const ssl of [false, true]) {
      const ports = [await freePort(), await freePort(), await freePort()];
      const members = await Promise.all(ports.map((p, i) => startGrid(opts, `cluster ${ssl ? 'tls' : 'plain'} ${i}`, certs, ssl, p, ports, dir)));
      await Promise.all(members.map((m) => waitHealthy(m.child, m.scheme, m.port, 3)));
      const server = { ports, pids: members.map((m) => m.child.pid), scheme: ssl ? 'https' : 'http' };
      const runs = [];
      for (let r = 0; r < opts.rounds; r++) {
        const x = await cannon(server, opts.connections, opts.duration, () => WORKLOADS.post.requests(opts));
        runLine(`3 ${ssl ? 'tls' : 'plain'} POST`, x);
        runs.push(x);
      }
      cluster[ssl ? 'tls' : 'plain'] = summarize(runs);
      await Promise.all(members.map((m) => stopChild(m.child)));
    }
    out.cluster = { ...cluster, cpuRatio: cluster.tls.cpuUsPerReq / cluster.plain.cpuUsPerReq };
  } catch (e) {
    out.errors.push(e.message);
    log(`tls part FAILED: ${e.stack ?? e}`);
  }
}

export function renderTlsReport(report) {
  const t = report.tls;
  if (!t) return '';
  const lines = ['', `TLS (issue 22): ${t.rounds} round(s) each; req/s and p99 are medians over the rounds; µs/req = server CPU per request`];
  const pf = (ok) => (ok ? 'PASS' : 'FAIL');
  for (const w of t.workloads) {
    const target = TARGETS[w.key];
    lines.push(
      `  ${w.name} over HTTPS: grid ${fmtInt(w.grid.reqPerSec)} req/s (p99 ${w.grid.p99MedianMs.toFixed(2)} ms, ${Math.round(w.grid.cpuUsPerReq)} µs/req), ` +
        `node:https ${fmtInt(w.bare.reqPerSec)} req/s (${Math.round(w.bare.cpuUsPerReq)} µs/req)`,
      `    grid / node:https = ${w.ratio.toFixed(2)} (rounds ${w.roundRatios.map((r) => r.toFixed(2)).join(', ')})  target >= ${target}  ${pf(w.ratio >= target)}; ` +
        `per CPU-second ${(w.bare.cpuUsPerReq / w.grid.cpuUsPerReq).toFixed(2)}`,
      `    p99 ${w.grid.p99MedianMs.toFixed(2)} ms  target <= ${TARGETS.p99Ms} ms  ${pf(w.grid.p99MedianMs <= TARGETS.p99Ms)}`,
      `    TLS cost: grid https / grid http = ${w.tlsCost.toFixed(2)} req/s (http ${fmtInt(w.plain.reqPerSec)}), CPU per request ${w.cpuPerReqTlsOverPlain.toFixed(2)}x`,
    );
  }
  if (t.handshakes) {
    const h = t.handshakes;
    lines.push(
      `  handshakes on one member: full ${fmtInt(h.full.perSecond)}/s (${Math.round(h.full.serverCpuUsPerHandshake)} µs server CPU each), ` +
        `resumed ${fmtInt(h.resumed.perSecond)}/s (${Math.round(h.resumed.serverCpuUsPerHandshake)} µs each${h.resumed.notResumed ? `, ${h.resumed.notResumed} not resumed` : ''})`,
    );
  }
  if (t.cluster) {
    const c = t.cluster;
    lines.push(
      `  3-member cluster map POST: ${Math.round(c.tls.cpuUsPerReq)} µs CPU/request with member TLS, ${Math.round(c.plain.cpuUsPerReq)} without: ratio ${c.cpuRatio.toFixed(2)} ` +
        `(req/s ${fmtInt(c.tls.reqPerSec)} vs ${fmtInt(c.plain.reqPerSec)})`,
    );
  }
  for (const e of t.errors) lines.push(`  ERROR: ${e}`);
  return lines.join('\n');
}

export function tlsProblems(report) {
  const t = report.tls;
  if (!t) return false;
  return t.errors.length > 0 || t.workloads.some((w) => w.grid.bad + w.bare.bad + w.plain.bad > 0);
}

