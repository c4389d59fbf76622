// The files an ssl config names, read and checked as at start: one sentence per fault, naming
// the file. Certificates are made with openssl (test/support/certs.ts).

import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SslConfig } from '../../../src/config/index.js';
import { isGridError } from '../../../src/core/errors.js';
import { pkcs12Kdf, readPkcs12Certificates } from '../../../src/net/tls/pkcs12.js';
import { loadTlsMaterial } from '../../../src/net/tls/tls-material.js';
import { KEY_PASSWORD, STORE_PASSWORD, makeTestCerts, type TestCerts } from '../../support/certs.js';

let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());

const base = { path: 'hazelcast.network.ssl', protocol: 'TLS', mutualAuthentication: 'NONE', ciphersuites: undefined, validateIdentity: undefined, serverName: undefined } as const;
const pem = (keyFile: string, certChainFile: string, keyPassword?: string, extra: Partial<SslConfig> = {}): SslConfig => ({
  ...base,
  key: { kind: 'pem', keyFile, keyPassword, certChainFile },
  trust: { kind: 'pem', file: certs.caPem },
  ...extra,
});
const p12 = (file: string, password: string | undefined, extra: Partial<SslConfig> = {}): SslConfig => ({
  ...base,
  key: { kind: 'pkcs12', file, password },
  trust: { kind: 'pkcs12', file: certs.trustP12, password: STORE_PASSWORD },
  ...extra,
});

function faultOf(ssl: SslConfig, now?: number): string {
  try {
    loadTlsMaterial(ssl, now);
  } catch (e) {
    expect(isGridError(e) && e.code === 'CONFIG_INVALID').toBe(true);
    const m = (e as Error).message;
    expect(m).not.toMatch(/\n\s+at /); // no stack trace
    return m;
  }
  throw new Error('expected the material to be refused');
}

describe('TLS material', () => {
  it('reads PEM files, an encrypted key, and PKCS12 key and trust stores', () => {
    const a = loadTlsMaterial(pem(certs.memberKey, certs.memberPem));
    expect(a.subject).toBe('CN=member');
    expect(a.files).toEqual([certs.memberKey, certs.memberPem, certs.caPem]);
    const b = loadTlsMaterial(pem(certs.memberKeyEncrypted, certs.memberPem, KEY_PASSWORD));
    expect(b.fingerprint256).toBe(a.fingerprint256);
    const c = loadTlsMaterial(p12(certs.memberP12, STORE_PASSWORD, { protocol: 'TLSv1.2' }));
    expect(c.fingerprint256).toBe(a.fingerprint256);
    expect(c.options.maxVersion).toBe('TLSv1.2');
    expect(c.options.ca).toEqual([new X509Certificate(readFileSync(certs.caPem)).toString()]);
    expect(a.digest).not.toBe(c.digest);
    expect(loadTlsMaterial(pem(certs.memberKey, certs.memberPem)).digest).toBe(a.digest);
  });

  it('names a missing file', () => {
    expect(faultOf(pem('/nope/key.pem', certs.memberPem))).toBe('hazelcast.network.ssl.properties.keyFile: cannot read /nope/key.pem: no such file');
    expect(faultOf(p12(join(certs.dir, 'missing.p12'), 'x'))).toContain(`keyStore: cannot read ${join(certs.dir, 'missing.p12')}: no such file`);
  });

  it('says a password is wrong or missing', () => {
    expect(faultOf(pem(certs.memberKeyEncrypted, certs.memberPem, 'wrong'))).toBe(
      `hazelcast.network.ssl.properties.keyPassword: keyPassword does not decrypt ${certs.memberKeyEncrypted}`,
    );
    expect(faultOf(pem(certs.memberKeyEncrypted, certs.memberPem))).toContain(`keyFile: ${certs.memberKeyEncrypted} is encrypted: set keyPassword`);
    expect(faultOf(p12(certs.memberP12, 'wrong'))).toBe(
      `hazelcast.network.ssl.properties.keyStorePassword: keyStorePassword is wrong for ${certs.memberP12} (or the file is damaged)`,
    );
    expect(faultOf({ ...p12(certs.memberP12, STORE_PASSWORD), trust: { kind: 'pkcs12', file: certs.trustP12, password: 'wrong' } })).toBe(
      `hazelcast.network.ssl.properties.trustStorePassword: trustStorePassword is wrong for ${certs.trustP12} (or the file is damaged)`,
    );
  });

  it('says when the key does not match its certificate', () => {
    expect(faultOf(pem(certs.rogueKey, certs.memberPem))).toBe(
      `hazelcast.network.ssl.properties.keyFile: the key in ${certs.rogueKey} does not match the certificate in ${certs.memberPem} (CN=member)`,
    );
  });

  it('says when the certificate expired or is not valid yet', () => {
    expect(faultOf(pem(certs.expiredKey, certs.expiredPem))).toBe(
      `hazelcast.network.ssl.properties.keyCertChainFile: the certificate in ${certs.expiredPem} (CN=expired) expired on 2020-01-02T00:00:00.000Z`,
    );
    expect(faultOf(pem(certs.expiredKey, certs.expiredPem), Date.parse('2019-06-01'))).toContain('is not valid before 2020-01-01T00:00:00.000Z');
    expect(faultOf(p12(certs.memberP12, STORE_PASSWORD), Date.now() + 365 * 86_400_000)).toContain(`the certificate in ${certs.memberP12} (CN=member) expired on`);
  });

  it('refuses a JKS file with the keytool command, and files that hold no key or certificate', () => {
    expect(faultOf(p12(certs.fakeJks, 'x'))).toContain(`${certs.fakeJks} is a JKS keystore, which Grid cannot read; convert it to PKCS12 with: keytool -importkeystore`);
    expect(faultOf(pem(certs.memberPem, certs.memberPem))).toContain(`${certs.memberPem} holds no PEM private key`);
    expect(faultOf(pem(certs.memberKey, certs.memberKey))).toContain(`keyCertChainFile: ${certs.memberKey} holds no PEM certificate`);
    expect(faultOf(p12(certs.caPem, 'x'))).toContain(`${certs.caPem} is not a PKCS12 keystore`);
    expect(faultOf({ ...pem(certs.memberKey, certs.memberPem), trust: { kind: 'pem', file: certs.memberKey } })).toContain('trustCertCollectionFile:');
  });

  it('refuses cipher suites OpenSSL does not know, by name', () => {
    expect(faultOf(pem(certs.memberKey, certs.memberPem, undefined, { ciphersuites: ['NOT-A-CIPHER'] }))).toContain('ciphersuites: no cipher suite OpenSSL knows');
  });
});

describe('PKCS12 certificates', () => {
  it('reads cert bags of an OpenSSL 3 (PBES2/AES) store and of a 3DES store, and checks the MAC', () => {
    const ca = new X509Certificate(readFileSync(certs.caPem));
    expect(readPkcs12Certificates(readFileSync(certs.trustP12), STORE_PASSWORD).map((d) => new X509Certificate(d).fingerprint256)).toEqual([ca.fingerprint256]);
    expect(readPkcs12Certificates(readFileSync(certs.memberP12), STORE_PASSWORD).map((d) => new X509Certificate(d).subject)).toEqual(['CN=member', 'CN=ca']);
    expect(() => readPkcs12Certificates(readFileSync(certs.trustP12), 'nope')).toThrow(/wrong password/);
    expect(() => readPkcs12Certificates(readFileSync(certs.caPem), '')).toThrow(/not a PKCS12 file/);
  });

  it('refuses truncated and damaged bytes with a sentence, never a crash', () => {
    const bytes = readFileSync(certs.trustP12);
    for (let n = 0; n < bytes.length; n += 7) expect(() => readPkcs12Certificates(bytes.subarray(0, n), STORE_PASSWORD)).toThrow(Error);
    const damaged = Buffer.from(bytes);
    for (let i = 20; i < damaged.length; i += 13) {
      const copy = Buffer.from(damaged);
      copy[i] = copy[i]! ^ 0xff;
      try {
        readPkcs12Certificates(copy, STORE_PASSWORD);
      } catch (e) {
        expect(e).toBeInstanceOf(Error);
      }
    }
  });

  it('derives keys as RFC 7292 appendix B (vector from OpenSSL: sha1, "smeg", id 1)', () => {
    // Test vector of the PKCS12 KDF (BouncyCastle PKCS12Test / OpenSSL): password "smeg", salt 0A58CF64530D823F, 1 iteration.
    const pw = Buffer.from('0073006d006500670000', 'hex');
    const key = pkcs12Kdf('sha1', 64, pw, Buffer.from('0A58CF64530D823F', 'hex'), 1, 1, 24);
    expect(key.toString('hex').toUpperCase()).toBe('8AAAE6297B6CB04642AB5B077851284EB7128F1A2A7FBCA3');
  });
});

describe('a reload of changed files', () => {
  it('gives a new digest; the same bytes give the same', () => {
    const key = join(certs.dir, 'rot.key');
    const chain = join(certs.dir, 'rot.pem');
    writeFileSync(key, readFileSync(certs.memberKey));
    writeFileSync(chain, readFileSync(certs.memberPem));
    const a = loadTlsMaterial(pem(key, chain));
    writeFileSync(key, readFileSync(certs.member2Key));
    writeFileSync(chain, readFileSync(certs.member2Pem));
    const b = loadTlsMaterial(pem(key, chain));
    expect(b.digest).not.toBe(a.digest);
    expect(b.subject).toBe('CN=member2');
  });
});
