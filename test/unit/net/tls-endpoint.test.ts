// The server and client sides of one TLS endpoint over real loopback sockets, without a member:
// mutual authentication REQUIRED and OPTIONAL, plain bytes on the TLS port, the refusal log
// (once per peer and reason), and the bounded once-per-peer memory.

import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MutualAuthentication, SslConfig } from '../../../src/config/index.js';
import { createLogControl } from '../../../src/core/logger.js';
import { OncePerPeer, TlsEndpoint } from '../../../src/net/tls/tls-endpoint.js';
import { LogCapture } from '../../support/logs.js';
import { makeTestCerts, type TestCerts } from '../../support/certs.js';

let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());

function ssl(mutualAuthentication: MutualAuthentication): SslConfig {
  return {
    path: 'hazelcast.network.ssl',
    key: { kind: 'pem', keyFile: certs.memberKey, keyPassword: undefined, certChainFile: certs.memberPem },
    trust: { kind: 'pem', file: certs.caPem },
    protocol: 'TLS',
    mutualAuthentication,
    ciphersuites: undefined,
    validateIdentity: undefined,
    serverName: undefined,
  };
}

/** A plain TCP server that hands every connection's first bytes to `endpoint`, echoing what arrives decrypted. */
async function serve(endpoint: TlsEndpoint): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((raw) => {
    sockets.add(raw);
    raw.on('error', () => undefined);
    raw.once('data', (head: Buffer) => {
      raw.pause();
      endpoint.accept(raw, head, (secure) => {
        secure.on('data', (d: Buffer) => secure.write(Buffer.concat([Buffer.from('echo:'), d])));
        secure.on('error', () => undefined);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Connects, sends "hi", and says what came back (or that the connection was refused). */
function exchange(port: number, opts: tls.ConnectionOptions, send: Buffer = Buffer.from('hi')): Promise<string> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(certs.caPem), ...opts }, () => s.write(send));
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.startsWith('echo:')) {
        resolve(got);
        s.destroy();
      }
    });
    s.on('end', () => resolve(got === '' ? 'refused' : got));
    s.on('error', () => resolve('refused'));
    s.on('close', () => resolve('refused'));
  });
}

function endpointWith(m: MutualAuthentication): { endpoint: TlsEndpoint; logs: LogCapture } {
  const logs = new LogCapture();
  const { logger } = createLogControl({ level: 'FINE', destination: logs, bindings: {} });
  return { endpoint: new TlsEndpoint(ssl(m), 'member', logger), logs };
}

const trusted = (): tls.ConnectionOptions => ({ cert: readFileSync(certs.memberPem), key: readFileSync(certs.memberKey) });
const untrusted = (): tls.ConnectionOptions => ({ cert: readFileSync(certs.roguePem), key: readFileSync(certs.rogueKey) });

describe('TLS endpoint', () => {
  it('REQUIRED: only a client with a trusted certificate gets through; refusals are logged once per peer and reason', async () => {
    const { endpoint, logs } = endpointWith('REQUIRED');
    const s = await serve(endpoint);
    try {
      expect(await exchange(s.port, trusted())).toBe('echo:hi');
      expect(await exchange(s.port, {})).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*X-Grid-Error: TLS client certificate refused: no certificate \(mutualAuthentication REQUIRED\); present a certificate/);
      expect(await exchange(s.port, {}, Buffer.from([0x00, 0x47]))).toBe('refused'); // the member protocol: closed, unanswered
      expect(await exchange(s.port, untrusted())).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*untrusted certificate \(rogue\)/);
      const refusals = logs.lines.filter((l) => String(l.msg).startsWith('TLS handshake from 127.0.0.1:'));
      const warnings = refusals.filter((l) => l.level === 'WARNING').map((l) => String(l.msg));
      expect(warnings).toEqual([
        expect.stringMatching(/^TLS handshake from 127\.0\.0\.1:\d+ refused \(member\): no certificate \(mutualAuthentication REQUIRED\)$/),
        expect.stringMatching(/^TLS handshake from 127\.0\.0\.1:\d+ refused \(member\): untrusted certificate \(rogue\): [A-Z_]+$/),
      ]);
      // The same peer failing the same way again: FINE.
      expect(refusals.filter((l) => l.level === 'FINE')).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('OPTIONAL: a client without a certificate gets through, one with an untrusted certificate does not', async () => {
    const { endpoint, logs } = endpointWith('OPTIONAL');
    const s = await serve(endpoint);
    try {
      expect(await exchange(s.port, {})).toBe('echo:hi');
      expect(await exchange(s.port, trusted())).toBe('echo:hi');
      expect(await exchange(s.port, untrusted())).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(logs.messages().some((m) => /refused \(member\)/.test(m))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('NONE: clients need no certificate; a client dialling checks the chain, and the name when asked', async () => {
    const { endpoint } = endpointWith('NONE');
    const s = await serve(endpoint);
    try {
      expect(await exchange(s.port, {})).toBe('echo:hi');
      const ok = endpoint.connect('127.0.0.1', s.port, true);
      await new Promise<void>((resolve, reject) => ok.once('secureConnect', resolve).once('error', reject));
      ok.destroy();
      // The certificate names 127.0.0.1 and localhost: both pass the name check.
      const named = endpoint.connect('localhost', s.port, true);
      await new Promise<void>((resolve, reject) => named.once('secureConnect', resolve).once('error', reject));
      named.destroy();
    } finally {
      await s.close();
    }
  });

  it('answers plain HTTP with a 400 and closes a plain member frame unanswered', async () => {
    const { endpoint } = endpointWith('NONE');
    const s = await serve(endpoint);
    const plain = (bytes: Buffer): Promise<string> =>
      new Promise((resolve) => {
        let got = '';
        const c = net.connect({ host: '127.0.0.1', port: s.port }, () => c.write(bytes));
        c.on('data', (d: Buffer) => (got += d.toString()));
        c.on('error', () => undefined);
        c.on('close', () => resolve(got));
      });
    try {
      expect(await plain(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toMatch(/^HTTP\/1\.1 400 Bad Request[\s\S]*use https:\/\//);
      expect(await plain(Buffer.from([0x00, 0x47, 0x52, 0x44, 1]))).toBe('');
    } finally {
      await s.close();
    }
  });
});

describe('once per peer', () => {
  it('says each key once, and forgets the oldest beyond its bound', () => {
    const once = new OncePerPeer(3);
    expect(['a', 'b', 'a', 'c', 'b'].map((k) => once.first(k))).toEqual([true, true, false, true, false]);
    expect(once.first('d')).toBe(true); // a forgotten
    expect(once.first('a')).toBe(true);
    expect(once.first('d')).toBe(false);
  });
});
