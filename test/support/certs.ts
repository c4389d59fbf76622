// Certificates for the TLS tests, made with the openssl CLI: a CA, member certificates (PEM,
// encrypted PEM, PKCS12), a second member certificate for rotation, one from another CA, an
// expired one, a PKCS12 truststore, and a file that looks like a JKS keystore. EC keys: fast to
// make. openssl runs once per vitest run (about 20 commands, 0.5-1 s): the first caller makes the
// set in the run's directory from certs-setup.ts (a globalSetup), and every makeTestCerts() gets
// a copy in a temp dir of its own (removed after the file's tests), which it may write into.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory for the shared certificate set (certs-setup.ts); absent under configs without it. */
    gridTestCertsRoot?: string;
  }
}

export interface TestCerts {
  readonly dir: string;
  readonly caPem: string;
  /** Signed by the CA, names 127.0.0.1 and localhost. */
  readonly memberKey: string;
  readonly memberPem: string;
  /** memberKey encrypted with KEY_PASSWORD. */
  readonly memberKeyEncrypted: string;
  /** member key + chain, password STORE_PASSWORD. */
  readonly memberP12: string;
  /** A second certificate of the same CA (rotation). */
  readonly member2Key: string;
  readonly member2Pem: string;
  /** Signed by another CA (untrusted). */
  readonly rogueKey: string;
  readonly roguePem: string;
  readonly rogueCaPem: string;
  /** Signed by the CA, valid 2020-01-01 .. 2020-01-02. */
  readonly expiredKey: string;
  readonly expiredPem: string;
  /** The CA certificate alone, PKCS12, password STORE_PASSWORD. */
  readonly trustP12: string;
  /** Starts with JKS's magic number. */
  readonly fakeJks: string;
  /** A certificate for a name (wan.example) but not for 127.0.0.1. */
  readonly namedKey: string;
  readonly namedPem: string;
  remove(): void;
}

export const KEY_PASSWORD = 'key-secret';
export const STORE_PASSWORD = 'store-secret';

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Writes the whole set into the empty directory `dir`. */
function generate(dir: string): void {
  const p = (f: string): string => join(dir, f);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const ca = (name: string): void =>
    openssl(dir, ['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '30', '-subj', `/CN=${name}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  ca('ca');
  ca('rogue-ca');
  writeFileSync(p('ext-ip.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(p('ext-name.cnf'), 'subjectAltName=DNS:wan.example\nextendedKeyUsage=serverAuth,clientAuth\n');
  let serial = 1;
  const leaf = (name: string, caName: string, ext: string): void => {
    openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.pem`, '-CAkey', `${caName}.key`, '-set_serial', String(serial++),
      '-days', '30', '-extfile', ext, '-out', `${name}.pem`]);
  };
  leaf('member', 'ca', 'ext-ip.cnf');
  leaf('member2', 'ca', 'ext-ip.cnf');
  leaf('rogue', 'rogue-ca', 'ext-ip.cnf');
  leaf('named', 'ca', 'ext-name.cnf');
  // An expired certificate: `openssl ca` takes explicit dates.
  writeFileSync(p('index.txt'), '');
  writeFileSync(p('ca.cnf'), `[ca]\ndefault_ca=d\n[d]\ndatabase=${p('index.txt')}\nnew_certs_dir=${dir}\nserial=${p('serial')}\ndefault_md=sha256\npolicy=any\ncopy_extensions=none\n[any]\ncommonName=supplied\n`);
  writeFileSync(p('serial'), '64\n');
  openssl(dir, ['req', ...ec, '-keyout', 'expired.key', '-out', 'expired.csr', '-subj', '/CN=expired']);
  openssl(dir, ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'expired.csr', '-out', 'expired.pem',
    '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-notext', '-extfile', 'ext-ip.cnf']);
  openssl(dir, ['pkey', '-in', 'member.key', '-aes256', '-passout', `pass:${KEY_PASSWORD}`, '-out', 'member-enc.key']);
  openssl(dir, ['pkcs12', '-export', '-in', 'member.pem', '-inkey', 'member.key', '-certfile', 'ca.pem', '-out', 'member.p12', '-passout', `pass:${STORE_PASSWORD}`]);
  openssl(dir, ['pkcs12', '-export', '-nokeys', '-in', 'ca.pem', '-out', 'trust.p12', '-passout', `pass:${STORE_PASSWORD}`]);
  writeFileSync(p('fake.jks'), Buffer.concat([Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]), Buffer.alloc(64)]));
  // Chains: the leaf then the CA, as cert-manager writes tls.crt.
  for (const n of ['member', 'member2', 'named', 'expired']) writeFileSync(p(`${n}-chain.pem`), readFileSync(p(`${n}.pem`), 'utf8') + readFileSync(p('ca.pem'), 'utf8'));
}

/**
 * The run's shared set: made by the first caller of any worker into a directory of its own,
 * then renamed into place, so a worker sees either no set or a whole one; a worker that loses
 * the race drops its copy. Undefined when the run has no certs-setup.ts.
 */
function sharedSet(): string | undefined {
  const root = inject('gridTestCertsRoot');
  if (root === undefined) return undefined;
  const set = join(root, 'set');
  if (existsSync(set)) return set;
  const fresh = mkdtempSync(join(root, 'making-'));
  generate(fresh);
  try {
    renameSync(fresh, set);
  } catch (e) {
    // Another worker renamed its set first (ENOTEMPTY/EEXIST): use that one.
    rmSync(fresh, { recursive: true, force: true });
    if (!existsSync(set)) throw e;
  }
  return set;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'grid-tls-'));
  const shared = sharedSet();
  if (shared === undefined) generate(dir);
  else cpSync(shared, dir, { recursive: true });
  const p = (f: string): string => join(dir, f);
  return {
    dir,
    caPem: p('ca.pem'),
    memberKey: p('member.key'),
    memberPem: p('member-chain.pem'),
    memberKeyEncrypted: p('member-enc.key'),
    memberP12: p('member.p12'),
    member2Key: p('member2.key'),
    member2Pem: p('member2-chain.pem'),
    rogueKey: p('rogue.key'),
    roguePem: p('rogue.pem'),
    rogueCaPem: p('rogue-ca.pem'),
    expiredKey: p('expired.key'),
    expiredPem: p('expired-chain.pem'),
    trustP12: p('trust.p12'),
    fakeJks: p('fake.jks'),
    namedKey: p('named.key'),
    namedPem: p('named-chain.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `ssl` element (YAML shape) of PEM files, with optional extra properties. */
export function pemSsl(key: string, chain: string, ca: string | undefined, extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    enabled: true,
    'factory-class-name': 'com.hazelcast.nio.ssl.OpenSSLEngineFactory',
    properties: { keyFile: key, keyCertChainFile: chain, ...(ca !== undefined ? { trustCertCollectionFile: ca } : {}), ...extra },
  };
}
