// HTTPS on the member port through a real member (one for the whole file): every endpoint
// group answers over TLS through Grid's own HTTP path, pipelined requests and large bodies
// cross it, plain HTTP gets a clear 400 and a close (logged once per client at FINE), and a
// plain member frame is refused.

import { spawn } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';
import { encodeFrame, FrameKind } from '../../src/protocol/frame.js';
import { Msg } from '../../src/protocol/messages.js';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { encodeAuth } from '../../src/protocol/payloads.js';
import { makeTestCerts, pemSsl, type TestCerts } from '../support/certs.js';
import { httpsClient, type HttpsClient } from '../support/https.js';
import { LogCapture, restConfig } from '../support/member.js';
import { freePort } from '../support/ports.js';
import { pollUntil } from '../support/http.js';
import { dockerfile, healthcheck } from '../support/deployment-files.js';
import { cleanEnv, within } from '../support/process.js';

let certs: TestCerts;
let member: Member;
let logs: LogCapture;
let port: number;
let client: HttpsClient;
let live: string;

beforeAll(async () => {
  certs = makeTestCerts();
  const raw = restConfig(undefined, { properties: { 'hazelcast.logging.level': 'FINE' } });
  const network = raw.network as Record<string, unknown>;
  network.port = { port: await freePort(), 'auto-increment': true, 'port-count': 50 };
  // The member reads copies in a directory of their own, which the rotation test renews.
  live = join(certs.dir, 'live');
  mkdirSync(live);
  copyFileSync(certs.memberKey, join(live, 'tls.key'));
  copyFileSync(certs.memberPem, join(live, 'tls.crt'));
  network.ssl = pemSsl(join(live, 'tls.key'), join(live, 'tls.crt'), certs.caPem);
  const { config } = configFromObject(raw);
  logs = new LogCapture();
  member = await Member.start({ config, logDestination: logs });
  port = member.restPort;
  client = httpsClient(port, { ca: certs.caPem });
}, 30_000);

afterAll(async () => {
  client?.close();
  await member?.stop();
  certs?.remove();
});

const M = '/hazelcast/rest/management/cluster';

describe('HTTPS on the member port', () => {
  it('answers every endpoint group over TLS', async () => {
    const probes: [string, string, string | undefined, number][] = [
      ['GET', '/hazelcast/rest/cluster', undefined, 200], // CLUSTER_READ
      ['POST', `${M}/state`, 'dev&', 200], // CLUSTER_READ
      ['POST', '/hazelcast/rest/license', 'dev&&KEY', 200], // CLUSTER_WRITE
      ['GET', '/hazelcast/health', undefined, 200], // HEALTH_CHECK
      ['GET', '/hazelcast/health/ready', undefined, 200],
      ['POST', `${M}/backup`, 'dev&', 200], // PERSISTENCE
      ['GET', '/grid/rest/wan', undefined, 200],
      ['POST', '/grid/rest/wan/clearWanQueues', 'dev&&wr&pub', 400], // WAN: no such wan-replication
      ['POST', '/hazelcast/rest/maps/m/k', 'v', 200], // DATA
      ['GET', '/hazelcast/rest/maps/m/k', undefined, 200],
      ['POST', '/hazelcast/rest/queues/q', 'item', 200],
      ['GET', '/hazelcast/rest/queues/q/size', undefined, 200],
      ['GET', '/hazelcast/rest/cp-subsystem/groups', undefined, 500], // CP: not enabled
    ];
    for (const [method, path, body, status] of probes) {
      const res = await client.request(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(status);
    }
    expect((await client.request('GET', '/hazelcast/rest/maps/m/k')).body.toString()).toBe('v');
    const health = JSON.parse((await client.request('GET', '/hazelcast/health')).body.toString()) as { nodeState: string };
    expect(health.nodeState).toBe('ACTIVE');
  });

  it('carries large bodies and many keep-alive requests at once', async () => {
    const big = Buffer.alloc(1_000_000, 'x');
    expect((await client.request('POST', '/hazelcast/rest/maps/big/k', big)).status).toBe(200);
    const back = await client.request('GET', '/hazelcast/rest/maps/big/k');
    expect(back.body.equals(big)).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => client.request('POST', `/hazelcast/rest/maps/many/k${i}`, `v${i}`).then(() => client.request('GET', `/hazelcast/rest/maps/many/k${i}`))),
    );
    answers.forEach((a, i) => expect(a.body.toString()).toBe(`v${i}`));
  });

  it('answers pipelined requests in order on one TLS connection', async () => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(certs.caPem) });
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    let req = '';
    for (let i = 0; i < 20; i++) req += `POST /hazelcast/rest/maps/pipe/k${i} HTTP/1.1\r\nHost: x\r\nContent-Length: ${String(i).length}\r\n\r\n${i}`;
    for (let i = 0; i < 20; i++) req += `GET /hazelcast/rest/maps/pipe/k${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
    socket.write(req);
    const text = await pollUntil(
      () => Promise.resolve(Buffer.concat(received).toString()),
      (t) => (t.match(/HTTP\/1\.1 /g) ?? []).length >= 40 && t.endsWith('19'),
      { timeoutMs: 10_000, what: 'all 40 answers' },
    );
    const bodies = text.split('HTTP/1.1 ').slice(21).map((r) => r.split('\r\n\r\n')[1]);
    expect(bodies).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    socket.destroy();
  });

  it('answers plain HTTP with a clear 400 and closes; logs it once per client at FINE', async () => {
    const before = logs.messages().filter((m) => m.includes('plain HTTP connection to the TLS port refused')).length;
    for (let i = 0; i < 3; i++) {
      const answer = await plainExchange(port, Buffer.from('GET /hazelcast/health HTTP/1.1\r\nHost: x\r\n\r\n'));
      expect(answer.closed).toBe(true);
      expect(answer.bytes.toString()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*This port speaks TLS: use https:\/\//);
    }
    const lines = logs.lines.filter((l) => String(l.msg).includes('plain HTTP connection to the TLS port refused'));
    expect(lines.length - before).toBe(1);
    expect(lines.at(-1)?.level).toBe('FINE');
  });

  it('refuses a forged plain member frame: closed, nothing answered', async () => {
    const auth = encodeFrame(FrameKind.Request, Msg.Auth, 1, encodeAuth({ clusterName: 'dev', uuid: '00000000-0000-4000-8000-000000000001', address: '127.0.0.1:1', version: '0.1.0' }));
    const answer = await plainExchange(port, Buffer.concat([MEMBER_PREAMBLE, auth]));
    expect(answer.closed).toBe(true);
    expect(answer.bytes.length).toBe(0);
    expect(member.net.connectionCount()).toBe(0);
  });

  it("answers the Docker image's HEALTHCHECK over https:// (certificate checked when a CA is given)", async () => {
    const { command } = healthcheck(dockerfile().stages.at(-1)!);
    const url = `https://127.0.0.1:${port}/hazelcast/health/ready`;
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: url })).toBe(0);
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: url, GRID_HEALTHCHECK_CACERT: certs.caPem })).toBe(0);
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: url, GRID_HEALTHCHECK_CACERT: certs.rogueCaPem })).toBe(1);
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: `http://127.0.0.1:${port}/hazelcast/health/ready` })).toBe(1);
  });

  it('refuses a client that does not trust the certificate, and serves the next one', async () => {
    const err = await new Promise<Error>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port });
      s.once('error', resolve);
      s.once('secureConnect', () => resolve(new Error('connected')));
    });
    expect((err as NodeJS.ErrnoException).code).toBe('SELF_SIGNED_CERT_IN_CHAIN');
    expect((await client.request('GET', '/hazelcast/health/ready')).status).toBe(200);
  });
});

describe('certificate rotation', () => {
  it('takes renewed files for new handshakes under load, drops no request, and keeps the old certificate when the new files are broken', async () => {
    expect(await presented(port, certs.caPem)).toBe('member');
    // Load: keep-alive requests on open connections all through the rotation.
    let stop = false;
    let answered = 0;
    const failures: string[] = [];
    const loop = async (w: number): Promise<void> => {
      for (let n = 0; !stop; n++) {
        try {
          const r = await client.request('POST', `/hazelcast/rest/maps/rot/w${w}-${n}`, 'x');
          if (r.status === 200) answered++;
          else failures.push(`status ${r.status}`);
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => loop(w));
    // Renewed as cert-manager does it: new key and chain in place (watched: no signal needed).
    writeFileSync(join(live, 'tls.key'), readFileSync(certs.member2Key));
    writeFileSync(join(live, 'tls.crt'), readFileSync(certs.member2Pem));
    await pollUntil(() => presented(port, certs.caPem), (cn) => cn === 'member2', { timeoutMs: 10_000, what: 'new handshakes to present member2' });
    const reloadErrors = (): number => logs.messages().filter((m) => m.startsWith('TLS reload (member') && m.includes('refused')).length;
    const errorsBefore = reloadErrors();
    // A broken renewal: refused, the current certificate stays.
    writeFileSync(join(live, 'tls.crt'), 'not a certificate\n');
    await pollUntil(() => Promise.resolve(reloadErrors()), (n) => n > errorsBefore, { timeoutMs: 10_000, what: 'the broken file to be refused' });
    expect(member.reloadTls('test')).toEqual({ member: { error: expect.stringContaining(`${join(live, 'tls.crt')} holds no PEM certificate`) as unknown } });
    expect(await presented(port, certs.caPem)).toBe('member2');
    stop = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    // Fixed again: a forced reload (SIGHUP's path) takes it.
    writeFileSync(join(live, 'tls.crt'), readFileSync(certs.memberPem));
    writeFileSync(join(live, 'tls.key'), readFileSync(certs.memberKey));
    await pollUntil(() => presented(port, certs.caPem), (cn) => cn === 'member', { timeoutMs: 10_000, what: 'the first certificate back' });
  });
});

/** The CN of the certificate a new handshake presents. */
function presented(p: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: p, ca: readFileSync(ca) }, () => {
      const cn = s.getPeerCertificate().subject.CN;
      s.destroy();
      resolve(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
    });
    s.once('error', reject);
  });
}

/** Runs a command (the HEALTHCHECK's) and resolves with its exit code. */
function exitCodeOf(argv: readonly string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(argv[0] === 'node' ? process.execPath : argv[0]!, argv.slice(1), { env: cleanEnv(env), stdio: 'ignore' });
  return within(new Promise((r) => child.once('exit', (code) => r(code))), 10_000, `${argv.join(' ')} to exit`);
}

/** Send `bytes` in clear, collect what comes back until the member closes (or 5 s). */
function plainExchange(p: number, bytes: Buffer): Promise<{ bytes: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = net.connect({ host: '127.0.0.1', port: p }, () => s.write(bytes));
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed: false });
    }, 5_000);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), closed: true });
    });
  });
}
