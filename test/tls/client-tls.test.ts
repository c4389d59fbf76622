// The official Node.js client (hazelcast-client 5.7.0, unchanged) against a member with TLS
// (mutualAuthentication REQUIRED) and security on (one member for the file): it connects with
// its own `network.ssl` options (ca, cert, key) and the username/password of the
// client-authentication realm; a wrong password is refused with CREDENTIALS_FAILED and warned
// about once per address without the password; a certificate the member does not trust, or
// none, never reaches the client protocol.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Client } from 'hazelcast-client';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';
import { makeTestCerts, pemSsl, type TestCerts } from '../support/certs.js';
import { LogCapture, restConfig } from '../support/member.js';
import { freePort } from '../support/ports.js';

let certs: TestCerts;
let member: Member;
let logs: LogCapture;
const PASSWORD = 'client-s3cret';

beforeAll(async () => {
  certs = makeTestCerts();
  const raw = restConfig(undefined, {
    // FINE: the repeated refusals are read too.
    properties: { 'hazelcast.logging.level': 'FINE' },
    security: {
      enabled: true,
      realms: [{ name: 'clients', authentication: { simple: { users: [{ username: 'app', password: PASSWORD, roles: ['admin'] }] } } }],
      'client-authentication': { realm: 'clients' },
    },
  });
  const network = raw.network as Record<string, unknown>;
  network.port = { port: await freePort(), 'auto-increment': true, 'port-count': 50 };
  network.ssl = pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED' });
  logs = new LogCapture();
  member = await Member.start({ config: configFromObject(raw).config, logDestination: logs });
}, 30_000);

afterAll(async () => {
  await member?.stop();
  certs?.remove();
});

type Options = NonNullable<Parameters<typeof Client.newHazelcastClient>[0]>;

/** The client as an application configures it for TLS; `connectTimeoutMs` bounds a refused start. */
function options(o: { username?: string; password?: string; key?: string; cert?: string; ca?: string; connectTimeoutMs?: number } = {}): Options {
  return {
    clusterName: 'dev',
    network: {
      clusterMembers: [`127.0.0.1:${member.memberPort}`],
      smartRouting: false,
      ssl: {
        enabled: true,
        sslOptions: {
          ca: [readFileSync(o.ca ?? certs.caPem)],
          ...(o.cert !== undefined ? { cert: readFileSync(o.cert) } : {}),
          ...(o.key !== undefined ? { key: readFileSync(o.key) } : {}),
        },
      },
    },
    ...(o.username !== undefined ? { security: { usernamePassword: { username: o.username, password: o.password ?? null } } } : {}),
    connectionStrategy: { connectionRetry: { clusterConnectTimeoutMillis: o.connectTimeoutMs ?? 20_000 } },
    properties: {
      'hazelcast.logging.level': 'OFF',
      // A connection closed before its authentication is answered fails only after this (the
      // client's heartbeat timeout, 60 s by default): TLSv1.3 counts the handshake done before
      // the member refused the certificate, so the client sees a close, not a handshake error.
      ...(o.connectTimeoutMs !== undefined ? { 'hazelcast.client.heartbeat.timeout': 1_000 } : {}),
    },
  };
}

/** Starting a client that must be refused: the client gives up after its connect timeout. */
async function refused(o: Parameters<typeof options>[0]): Promise<unknown> {
  try {
    const c = await Client.newHazelcastClient(options({ connectTimeoutMs: 500, ...o }));
    await c.shutdown();
  } catch (e) {
    return e;
  }
  throw new Error('the client connected');
}

describe('hazelcast-client over TLS with security on', () => {
  it('connects with the trusted client certificate and the realm user, and serves a map and a queue over it', async () => {
    const client = await Client.newHazelcastClient(options({ cert: certs.member2Pem, key: certs.member2Key, username: 'app', password: PASSWORD }));
    try {
      expect(client.getCluster().getMembers().map((m) => m.uuid.toString())).toEqual([member.uuid]);
      const m = await client.getMap<string, string>('tls-map');
      await m.set('k1', 'v1');
      expect(await m.get('k1')).toBe('v1');
      const q = await client.getQueue<string>('tls-q');
      expect(await q.offer('item')).toBe(true);
      expect(await q.poll()).toBe('item');
      expect(logs.lines.some((l) => l.msg === 'client authenticated' && l.user === 'app')).toBe(true);
    } finally {
      await client.shutdown();
    }
  }, 60_000);

  it('refuses a wrong password and a missing one (CREDENTIALS_FAILED), warning once per address, never with the password', async () => {
    const before = logs.lines.length;
    for (const password of ['wrong-one', 'wrong-two']) {
      const e = await refused({ cert: certs.member2Pem, key: certs.member2Key, username: 'app', password });
      expect(String(e)).toMatch(/IllegalStateError|AuthenticationError|Unable to connect/);
    }
    expect(await refused({ cert: certs.member2Pem, key: certs.member2Key })).toBeDefined();
    const refusals = logs.lines.slice(before).filter((l) => String(l.msg).startsWith('client authentication refused'));
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    expect(refusals.filter((l) => l.level === 'WARNING').length).toBeLessThanOrEqual(1);
    expect(refusals.some((l) => String(l.msg).includes('wrong username or password for user "app"'))).toBe(true);
    expect(refusals.some((l) => String(l.msg).includes('no username and password'))).toBe(true);
    const all = JSON.stringify(logs.lines.slice(before));
    expect(all).not.toContain('wrong-one');
    expect(all).not.toContain('wrong-two');
  }, 60_000);

  it('refuses a client certificate from another CA, and none, at the TLS handshake (the client protocol never sees them)', async () => {
    const before = logs.lines.length;
    await refused({ cert: certs.roguePem, key: certs.rogueKey, username: 'app', password: PASSWORD });
    await refused({ username: 'app', password: PASSWORD });
    // And a client that does not trust the member's CA refuses the member.
    await refused({ ca: certs.rogueCaPem, cert: certs.member2Pem, key: certs.member2Key, username: 'app', password: PASSWORD });
    const later = logs.lines.slice(before);
    expect(later.some((l) => l.msg === 'client authenticated')).toBe(false);
    expect(later.some((l) => String(l.msg).startsWith('client authentication refused'))).toBe(false);
    const handshakes = later.map((l) => String(l.msg)).filter((m) => m.startsWith('TLS handshake from'));
    expect(handshakes.some((m) => m.includes('untrusted certificate (rogue)'))).toBe(true);
    expect(handshakes.some((m) => m.includes('no certificate (mutualAuthentication REQUIRED)'))).toBe(true);
  }, 60_000);
});
