// Member-to-member TLS with mutualAuthentication REQUIRED, through real member processes (one
// cluster for the file): 3 members form (PEM and PKCS12 stores mixed), REST needs a client
// certificate too, a member whose certificate the truststore does not trust is refused at the
// handshake (logged with its address and the reason) and never joins, a forged plain-TCP
// member frame is refused, and a kill -9 under write load loses no acknowledged write.

import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, FrameKind } from '../../src/protocol/frame.js';
import { Msg } from '../../src/protocol/messages.js';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { encodeAuth } from '../../src/protocol/payloads.js';
import { findMissing, holdsFor, startCluster, startWriteLoad, type Cluster } from '../support/cluster.js';
import { makeTestCerts, pemSsl, STORE_PASSWORD, type TestCerts } from '../support/certs.js';
import { cleanEnv, spawnGrid, waitFor } from '../support/process.js';

let certs: TestCerts;
let c: Cluster;

function memberSsl(i: number): Record<string, unknown> {
  if (i === 2) {
    // PKCS12 keystore and truststore, as a Java member would have them.
    return {
      enabled: true,
      'factory-class-name': 'com.hazelcast.nio.ssl.BasicSSLContextFactory',
      properties: {
        keyStore: certs.memberP12, keyStorePassword: STORE_PASSWORD, keyStoreType: 'PKCS12',
        trustStore: certs.trustP12, trustStorePassword: STORE_PASSWORD, trustStoreType: 'PKCS12',
        mutualAuthentication: 'REQUIRED', protocol: 'TLSv1.3',
      },
    };
  }
  return pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED' });
}

beforeAll(async () => {
  certs = makeTestCerts();
  c = await startCluster({
    size: 3,
    scope: 'file',
    config: (i) => ({ network: { ssl: memberSsl(i) } }),
    tls: { ca: certs.caPem, cert: certs.memberPem, key: certs.memberKey },
    timeoutMs: 60_000,
  });
}, 90_000);

afterAll(async () => {
  await c?.destroy();
  certs?.remove();
});

describe('member TLS, mutual authentication REQUIRED', () => {
  it('forms a 3-member cluster whose data crosses TLS', async () => {
    const info = await c.clusterInfo(0);
    expect(info.members).toHaveLength(3);
    for (let k = 0; k < 50; k++) expect((await c.http(k % 3, 'POST', `/hazelcast/rest/maps/tls/k${k}`, `v${k}`)).status).toBe(200);
    for (let k = 0; k < 50; k++) expect((await c.http((k + 1) % 3, 'GET', `/hazelcast/rest/maps/tls/k${k}`)).body).toBe(`v${k}`);
  });

  it('refuses a member whose certificate is not trusted: logged with its address and reason, never joins', async () => {
    const rogue = await c.addMember({
      wait: 'none',
      config: { network: { ssl: pemSsl(certs.rogueKey, certs.roguePem, certs.caPem, { mutualAuthentication: 'REQUIRED' }) } },
    });
    const refusal = await waitFor(
      'a member to log the refused handshake',
      () => c.members.slice(0, 3).flatMap((m) => m.logMessages()).find((l) => /TLS handshake from 127\.0\.0\.1:\d+ refused \(member\): untrusted certificate \(rogue\)/.test(l)),
      30_000,
    );
    expect(refusal).toMatch(/: [A-Z_]+$/);
    await holdsFor('the cluster to stay at 3 members', 3_000, async () => {
      const n = (await c.clusterInfo(0)).members.length;
      return n === 3 ? undefined : `${n} members`;
    });
    await c.kill(rogue.index);
  });

  it('asks REST clients for a trusted certificate too', async () => {
    const port = c.member(0).port;
    // Refused after the handshake, before HTTP: a 403 that says why, never the health answer.
    const none = await answerOf({ host: '127.0.0.1', port, ca: readFileSync(certs.caPem) });
    expect(none).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*X-Grid-Error: TLS client certificate refused: no certificate/);
    const untrusted = await answerOf({ host: '127.0.0.1', port, ca: readFileSync(certs.caPem), cert: readFileSync(certs.roguePem), key: readFileSync(certs.rogueKey) });
    expect(untrusted).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*untrusted certificate \(rogue\)/);
    expect(untrusted).not.toContain('Hazelcast-NodeState');
    expect((await c.http(0, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });

  it('refuses a forged plain-TCP member frame on the TLS port', async () => {
    const frame = Buffer.concat([
      MEMBER_PREAMBLE,
      encodeFrame(FrameKind.Request, Msg.Auth, 1, encodeAuth({ clusterName: 'dev', uuid: '00000000-0000-4000-8000-000000000002', address: '127.0.0.1:9', version: '0.1.0' })),
    ]);
    const answer = await new Promise<{ bytes: number; closed: boolean }>((resolve) => {
      let bytes = 0;
      const s = net.connect({ host: '127.0.0.1', port: c.member(1).port }, () => s.write(frame));
      const timer = setTimeout(() => resolve({ bytes, closed: false }), 5_000);
      s.on('data', (d: Buffer) => (bytes += d.length));
      s.on('error', () => undefined);
      s.on('close', () => {
        clearTimeout(timer);
        resolve({ bytes, closed: true });
      });
    });
    expect(answer).toEqual({ bytes: 0, closed: true });
    expect((await c.clusterInfo(1)).members).toHaveLength(3);
  });

  it('is reached by the grid CLI with --cacert, --cert and --key (https:// address or --tls)', async () => {
    const port = c.member(0).port;
    const run = async (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const p = spawnGrid(args, { env: cleanEnv() });
      const { code } = await p.exited(15_000);
      return { code, stdout: p.stdout(), stderr: p.stderr() };
    };
    const ok = await run(['map', 'put', 'cli', 'k', 'v', '--address', `https://127.0.0.1:${port}`, '--cacert', certs.caPem, '--cert', certs.memberPem, '--key', certs.memberKey]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    const got = await run(['map', 'get', 'cli', 'k', '--tls', '--address', `127.0.0.1:${port}`, '--cacert', certs.caPem, '--cert', certs.memberPem, '--key', certs.memberKey]);
    expect(got).toMatchObject({ code: 0, stdout: 'v' });
    const reload = await run(['tls', 'reload', '--address', `https://127.0.0.1:${port}`, '--cacert', certs.caPem, '--cert', certs.memberPem, '--key', certs.memberKey, '--cluster-name', 'dev']);
    expect(reload).toMatchObject({ code: 0, stderr: '' });
    expect(reload.stdout).toMatch(/member: unchanged CN=member, valid until \d{4}-/);
    const untrusted = await run(['status', '--address', `https://127.0.0.1:${port}`, '--cert', certs.memberPem, '--key', certs.memberKey]);
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toMatch(/certificate is not trusted .*--cacert/);
    const noClientCert = await run(['status', '--address', `https://127.0.0.1:${port}`, '--cacert', certs.caPem]);
    expect(noClientCert.code).toBe(3);
    expect(noClientCert.stderr).toMatch(/TLS client certificate refused: no certificate .*--cert\/--key/);
  });

  it('rereads its TLS files on SIGHUP and keeps running', async () => {
    const m = c.member(0);
    m.process.child.kill('SIGHUP');
    await waitFor('the member to reread its TLS files', () => m.logMessages().find((l) => l.startsWith('TLS files reread (member, SIGHUP)')), 10_000);
    expect((await c.http(0, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });

  it('keeps every acknowledged write over a kill -9 of a member', async () => {
    const list = await c.waitForMembers(3);
    const victim = c.byUuid(list[2]!.uuid);
    const through = c.byUuid(list[0]!.uuid);
    const load = startWriteLoad(c, { through: through.index, map: 'tls-failover', concurrency: 8 });
    await load.waitForAcks(200);
    await c.kill(victim.index);
    await c.waitForMembers(2, undefined, 30_000);
    await c.waitSafe(30_000, 2);
    await load.waitForAcks(200);
    await load.stop();
    for (const m of c.live()) expect(await findMissing(c, m.index, 'tls-failover', load.acked), `through member ${m.index}`).toEqual([]);
  });
});

/** What a GET of the health check over TLS with `opts` gets back until the member closes ('' when nothing). */
function answerOf(opts: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = tls.connect(opts, () => s.write('GET /hazelcast/health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
  });
}
