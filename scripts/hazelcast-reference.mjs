#!/usr/bin/env node
// Hazelcast itself as the reference (issue 23): fetch the com.hazelcast:hazelcast jar with
// Maven into the local repository (~/.m2, or MAVEN_REPO_LOCAL), start a member from a
// Hazelcast XML config on a free loopback port, wait until it answers over REST, stop it.
// Used by the differential suite (test/reference/), the bench and CI. Every way it cannot run
// (no java, no mvn, the jar not fetched in time) is an Error whose message says why: callers
// print it and skip, never silently.
//
//   node scripts/hazelcast-reference.mjs fetch [VERSION...]    fetch the jars (default: all pinned)
//   node scripts/hazelcast-reference.mjs start [VERSION] [--port P]   run one member until ^C

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * The newest open-source Hazelcast whose member still serves the (deprecated) community REST
 * API: the REST classes are still in 5.7.0's jar and the API is announced to go in 7.0.
 */
export const HAZELCAST_REST_VERSION = '5.7.0';
/** The newest open-source Hazelcast with the CP subsystem (5.5 moved it to the Enterprise edition). */
export const HAZELCAST_CP_VERSION = '5.4.0';
export const PINNED_VERSIONS = [HAZELCAST_REST_VERSION, HAZELCAST_CP_VERSION];

export const ALL_GROUPS = ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'PERSISTENCE', 'WAN', 'DATA', 'CP'];

/** The reference cannot run here; `message` says why. */
export class ReferenceUnavailable extends Error {
  constructor(message) {
    super(message);
    this.name = 'ReferenceUnavailable';
  }
}

function repoLocal() {
  return process.env.MAVEN_REPO_LOCAL || join(homedir(), '.m2', 'repository');
}

/** Where Maven keeps the jar of `version`. */
export function jarPath(version) {
  return join(repoLocal(), 'com', 'hazelcast', 'hazelcast', version, `hazelcast-${version}.jar`);
}

function has(cmd) {
  const r = spawnSync(cmd, ['-version'], { stdio: 'ignore', timeout: 20_000 });
  return r.error === undefined && r.status === 0;
}

/** Throws ReferenceUnavailable when there is no JDK. */
export function requireJava() {
  if (!has('java')) throw new ReferenceUnavailable('no `java` on PATH (a JDK 17+ runs the Hazelcast reference member)');
}

/**
 * The jar of `version`, fetched with `mvn dependency:get` when not yet in the local
 * repository. A fresh machine first downloads the dependency plugin itself: bounded by
 * `timeoutMs` (a slow Maven Central is a clear skip, not a hung test run).
 */
export function ensureJar(version, { timeoutMs = 240_000, quiet = false } = {}) {
  const jar = jarPath(version);
  if (existsSync(jar)) return jar;
  const mvnCheck = spawnSync('mvn', ['-v'], { stdio: 'ignore', timeout: 30_000 });
  if (mvnCheck.error !== undefined || mvnCheck.status !== 0) {
    throw new ReferenceUnavailable(`hazelcast-${version}.jar is not in ${repoLocal()} and there is no \`mvn\` to fetch it`);
  }
  const args = ['-B', '-q', 'dependency:get', `-Dartifact=com.hazelcast:hazelcast:${version}`, '-Dtransitive=false'];
  if (process.env.MAVEN_REPO_LOCAL) args.push(`-Dmaven.repo.local=${process.env.MAVEN_REPO_LOCAL}`);
  if (!quiet) process.stderr.write(`hazelcast-reference: fetching com.hazelcast:hazelcast:${version} with Maven (at most ${timeoutMs / 1000} s)\n`);
  const r = spawnSync('mvn', args, { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  if (r.error !== undefined) throw new ReferenceUnavailable(`mvn could not fetch hazelcast ${version} within ${timeoutMs / 1000} s: ${r.error.message}`);
  if (r.status !== 0 || !existsSync(jar)) {
    const out = `${r.stdout}${r.stderr}`.replace(ANSI, '').trim().split('\n').slice(-5).join(' | ');
    throw new ReferenceUnavailable(`mvn could not fetch hazelcast ${version} (exit ${r.status}): ${out}`);
  }
  return jar;
}

function canListen(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A port free now, below the ephemeral range (as test/support/ports.ts picks them). */
export async function freePort() {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux
  }
  const high = Math.max(low - 1, 11_000);
  const from = Math.max(10_000, high - 15_000);
  for (let i = 0; i < 1000; i++) {
    const p = from + Math.floor(Math.random() * (high - from + 1));
    if (await canListen(p)) return p;
  }
  throw new Error('no free port found');
}

const xmlEscape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The member's Hazelcast XML: loopback only, no discovery but its own tcp-ip member list, REST
 * on with exactly `groups` enabled, and `extraXml` (map/queue configs) inside <hazelcast>.
 */
export function hazelcastXml({ port, clusterName = 'dev', instanceName = 'ref-member', groups = ALL_GROUPS, members = [port], extraXml = '', cp = 0, properties = {} }) {
  const propertyLines = Object.entries(properties).map(([k, v]) => `    <property name="${xmlEscape(k)}">${xmlEscape(v)}</property>`).join('\n');
  const groupLines = ALL_GROUPS.map((g) => `      <endpoint-group name="${g}" enabled="${groups.includes(g)}"/>`).join('\n');
  const memberLines = members.map((p) => `          <member>127.0.0.1:${p}</member>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<hazelcast xmlns="http://www.hazelcast.com/schema/config"
           xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
           xsi:schemaLocation="http://www.hazelcast.com/schema/config http://www.hazelcast.com/schema/config/hazelcast-config-5.4.xsd">
  <cluster-name>${xmlEscape(clusterName)}</cluster-name>
  <instance-name>${xmlEscape(instanceName)}</instance-name>
  <properties>
    <property name="hazelcast.phone.home.enabled">false</property>
    <property name="hazelcast.socket.bind.any">false</property>
    <property name="hazelcast.shutdownhook.enabled">false</property>
    <property name="hazelcast.partition.count">271</property>
${propertyLines}
  </properties>
  <network>
    <port auto-increment="false">${port}</port>
    <join>
      <auto-detection enabled="false"/>
      <multicast enabled="false"/>
      <tcp-ip enabled="true">
${memberLines}
      </tcp-ip>
    </join>
    <interfaces enabled="true">
      <interface>127.0.0.1</interface>
    </interfaces>
    <rest-api enabled="true">
${groupLines}
    </rest-api>
  </network>
  <jet enabled="false"/>
${cp > 0 ? `  <cp-subsystem><cp-member-count>${cp}</cp-member-count></cp-subsystem>\n` : ''}${extraXml}
</hazelcast>
`;
}

/** JVM options for a small, quick-starting member (2 shared cores): serial GC, small heap. */
export const JVM_OPTIONS = ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xss512k', '-Djava.net.preferIPv4Stack=true'];

function httpGet(port, path, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Starts one Hazelcast member (a child JVM) and waits until it answers REST on its port.
 * Options: version, port (default a free one), clusterName, instanceName, groups, members (the
 * tcp-ip list, for a cluster), extraXml, jvmOptions, startTimeoutMs, readyPath (a path that
 * answers once the member serves REST). Returns { version, port, pid, output(), stop(), kill() }.
 */
export async function startHazelcast(opts = {}) {
  const version = opts.version ?? HAZELCAST_REST_VERSION;
  requireJava();
  const jar = ensureJar(version, { timeoutMs: opts.fetchTimeoutMs });
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'hz-ref-'));
  const configFile = join(dir, 'hazelcast.xml');
  writeFileSync(configFile, hazelcastXml({ ...opts, port }));
  const args = [...(opts.jvmOptions ?? JVM_OPTIONS), `-Dhazelcast.config=${configFile}`, '-cp', jar, 'com.hazelcast.core.server.HazelcastMemberStarter'];
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let out = '';
  const keep = (d) => {
    out += d.toString('utf8');
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let gone;
  void exited.then((c) => {
    gone = c;
  });
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const stop = async (signal = 'SIGTERM', graceMs = 10_000) => {
    if (gone === undefined) {
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    }
    cleanup();
  };
  const started = Date.now();
  const deadline = started + (opts.startTimeoutMs ?? 90_000);
  const readyPath = opts.readyPath ?? '/hazelcast/rest/cluster';
  for (;;) {
    if (gone !== undefined) {
      cleanup();
      throw new Error(`Hazelcast ${version} exited (${gone}) before answering on port ${port}:\n${out.split('\n').slice(-30).join('\n')}`);
    }
    const status = await httpGet(port, readyPath, 1_000);
    if (status >= 200 && status < 500) break;
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`Hazelcast ${version} did not answer ${readyPath} on port ${port} within ${(opts.startTimeoutMs ?? 90_000) / 1000} s:\n${out.split('\n').slice(-30).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    version,
    port,
    pid: child.pid,
    startMs: Date.now() - started,
    output: () => out,
    /** Graceful: SIGTERM (Hazelcast shuts down), SIGKILL after a grace period. */
    stop: () => stop('SIGTERM'),
    /** kill -9. */
    kill: () => stop('SIGKILL'),
  };
}

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'fetch') {
    const versions = rest.length > 0 ? rest : PINNED_VERSIONS;
    for (const v of versions) {
      try {
        console.log(`hazelcast ${v}: ${ensureJar(v)}`);
      } catch (e) {
        console.log(`hazelcast ${v}: not available: ${e.message}`);
        process.exitCode = 1;
      }
    }
    return;
  }
  if (cmd === 'start') {
    let version = HAZELCAST_REST_VERSION;
    let port;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '--port') port = Number(rest[++i]);
      else version = rest[i];
    }
    const hz = await startHazelcast({ version, port });
    console.log(`Hazelcast ${version} answers on http://127.0.0.1:${hz.port} (pid ${hz.pid}, started in ${hz.startMs} ms); ^C stops it`);
    const end = () => void hz.stop().then(() => process.exit(0));
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
    return;
  }
  console.log('usage: node scripts/hazelcast-reference.mjs fetch [VERSION...] | start [VERSION] [--port P]');
  process.exitCode = cmd === undefined || cmd === '--help' ? 0 : 2;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`hazelcast-reference: ${e.message}`);
    process.exit(1);
  });
}
