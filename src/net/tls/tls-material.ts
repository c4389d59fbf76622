// Reads the key, certificate chain and trusted certificates an `ssl` config names, and checks
// them the way an operator needs at start: a missing file, a wrong password, a key that does
// not belong to its certificate, an expired certificate each become one sentence naming the
// file, never a stack trace. The same call serves a reload (rotation), where a failure keeps
// the old material in use.

import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { GridError } from '../../core/errors.js';
import { keytoolCommand, type SslConfig } from '../../config/index.js';
import { readPkcs12Certificates } from './pkcs12.js';

export interface TlsMaterial {
  /** What node:tls needs for both sides (server and client) of this endpoint. */
  readonly options: tls.SecureContextOptions;
  /** The context built from `options` (reused by dials). */
  readonly context: tls.SecureContext;
  /** This member's certificate, for logs and the rotation check. */
  readonly subject: string;
  readonly notAfter: Date;
  readonly fingerprint256: string;
  /** SHA-256 of every file read: a reload that finds the same files changes nothing. */
  readonly digest: string;
  /** Every file read (watched for rotation). */
  readonly files: readonly string[];
}

const JKS_MAGIC = 0xfeedfeed;

/** Loads and checks the files of `ssl`; throws a CONFIG_INVALID GridError naming the file and the fault. */
export function loadTlsMaterial(ssl: SslConfig, now: number = Date.now()): TlsMaterial {
  const props = `${ssl.path}.properties`;
  const bad = (property: string, message: string): GridError => new GridError('CONFIG_INVALID', `${props}.${property}: ${message}`);
  const files: string[] = [];
  const hash = createHash('sha256');
  const read = (property: string, file: string): Buffer => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
      throw bad(property, `cannot read ${file}: ${why}`);
    }
    files.push(file);
    hash.update(file).update('\0').update(bytes);
    return bytes;
  };

  const options: tls.SecureContextOptions = {
    minVersion: ssl.protocol === 'TLSv1.3' ? 'TLSv1.3' : 'TLSv1.2',
    maxVersion: ssl.protocol === 'TLSv1.2' ? 'TLSv1.2' : 'TLSv1.3',
  };
  let cert: X509Certificate | undefined;
  let certFile = '';
  let certProperty = '';
  const key = ssl.key;
  if (key === undefined) throw bad('keyStore', 'ssl is enabled but names no key');
  if (key.kind === 'pem') {
    const keyBytes = read('keyFile', key.keyFile);
    const chainBytes = read('keyCertChainFile', key.certChainFile);
    const privateKey = pemKey(keyBytes, key.keyFile, key.keyPassword, (m) => bad(key.keyPassword === undefined ? 'keyFile' : 'keyPassword', m));
    const chain = pemCertificates(chainBytes);
    cert = chain[0];
    if (cert === undefined) throw bad('keyCertChainFile', `${key.certChainFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    if (!cert.checkPrivateKey(privateKey)) {
      throw bad('keyFile', `the key in ${key.keyFile} does not match the certificate in ${key.certChainFile} (${cert.subject.replace(/\n/g, ', ')})`);
    }
    options.key = keyBytes;
    if (key.keyPassword !== undefined) options.passphrase = key.keyPassword;
    options.cert = chainBytes;
    certFile = key.certChainFile;
    certProperty = 'keyCertChainFile';
  } else {
    const bytes = read('keyStore', key.file);
    if (bytes.length >= 4 && bytes.readUInt32BE(0) === JKS_MAGIC) {
      throw bad('keyStore', `${key.file} is a JKS keystore, which Grid cannot read; convert it to PKCS12 with: ${keytoolCommand(key.file)}`);
    }
    let probe: tls.SecureContext;
    try {
      probe = tls.createSecureContext({ pfx: bytes, passphrase: key.password ?? '' });
    } catch (e) {
      throw bad(key.password === undefined ? 'keyStore' : 'keyStorePassword', pkcs12Fault(e, key.file, 'keyStorePassword'));
    }
    cert = certificateOf(probe);
    options.pfx = bytes;
    options.passphrase = key.password ?? '';
    certFile = key.file;
    certProperty = 'keyStore';
  }

  const trust = ssl.trust;
  if (trust !== undefined && trust.kind === 'pem') {
    const bytes = read('trustCertCollectionFile', trust.file);
    if (pemCertificates(bytes).length === 0) throw bad('trustCertCollectionFile', `${trust.file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    options.ca = bytes;
  } else if (trust !== undefined) {
    const bytes = read('trustStore', trust.file);
    if (bytes.length >= 4 && bytes.readUInt32BE(0) === JKS_MAGIC) {
      throw bad('trustStore', `${trust.file} is a JKS keystore, which Grid cannot read; convert it to PKCS12 with: ${keytoolCommand(trust.file)}`);
    }
    options.ca = pkcs12Certificates(bytes, trust.password ?? '', (m) => bad(trust.password === undefined ? 'trustStore' : 'trustStorePassword', m), trust.file);
  }

  if (cert !== undefined) {
    const what = `the certificate in ${certFile} (${cert.subject.replace(/\n/g, ', ')})`;
    if (Date.parse(cert.validTo) < now) throw bad(certProperty, `${what} expired on ${new Date(cert.validTo).toISOString()}`);
    if (Date.parse(cert.validFrom) > now) throw bad(certProperty, `${what} is not valid before ${new Date(cert.validFrom).toISOString()}`);
  }

  if (ssl.ciphersuites !== undefined) {
    // TLSv1.3 suites and the older ones are set apart in OpenSSL.
    const v13 = ssl.ciphersuites.filter((c) => /^TLS_(AES|CHACHA20)_/.test(c));
    const older = ssl.ciphersuites.filter((c) => !v13.includes(c));
    if (v13.length > 0) (options as { ciphersuites?: string }).ciphersuites = v13.join(':');
    if (older.length > 0) options.ciphers = older.join(':');
  }
  let context: tls.SecureContext;
  try {
    context = tls.createSecureContext(options);
  } catch (e) {
    const m = (e as Error).message;
    if (/cipher/i.test(m)) throw bad('ciphersuites', `no cipher suite OpenSSL knows (use OpenSSL names, e.g. ECDHE-RSA-AES128-GCM-SHA256, TLS_AES_128_GCM_SHA256): ${m}`);
    throw bad(certProperty, `${certFile}: ${m}`);
  }
  return {
    options,
    context,
    subject: cert?.subject.replace(/\n/g, ', ') ?? '?',
    notAfter: cert !== undefined ? new Date(cert.validTo) : new Date(0),
    fingerprint256: cert?.fingerprint256 ?? '',
    digest: hash.digest('hex'),
    files,
  };
}

function pemKey(bytes: Buffer, file: string, password: string | undefined, bad: (m: string) => GridError): KeyObject {
  if (!bytes.includes('PRIVATE KEY-----')) throw bad(`${file} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`);
  if (password === undefined && (bytes.includes('ENCRYPTED PRIVATE KEY-----') || bytes.includes('Proc-Type: 4,ENCRYPTED'))) throw bad(`${file} is encrypted: set keyPassword`);
  try {
    return createPrivateKey(password === undefined ? { key: bytes } : { key: bytes, passphrase: password });
  } catch (e) {
    const m = (e as Error).message;
    if (password === undefined && /passphrase|password|encrypted/i.test(m)) throw bad(`${file} is encrypted: set keyPassword`);
    if (/bad decrypt|decrypt|passphrase|password/i.test(m) || password !== undefined) throw bad(`keyPassword does not decrypt ${file}`);
    throw bad(`${file} is not a readable private key: ${m}`);
  }
}

/** The certificates of a PEM bundle, in order (unreadable blocks are skipped). */
function pemCertificates(bytes: Buffer): X509Certificate[] {
  const out: X509Certificate[] = [];
  const text = bytes.toString('latin1');
  const re = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
  for (const m of text.matchAll(re)) {
    try {
      out.push(new X509Certificate(m[0]));
    } catch {
      // A damaged block: the ones around it may still serve; none at all is reported by the caller.
    }
  }
  return out;
}

/** The leaf certificate a PKCS12 context holds (node's own accessor; undefined where it is missing). */
function certificateOf(context: tls.SecureContext): X509Certificate | undefined {
  const native = (context as unknown as { context?: { getCertificate?: () => Buffer | null } }).context;
  const der = typeof native?.getCertificate === 'function' ? native.getCertificate() : null;
  return der === null || der === undefined ? undefined : new X509Certificate(der);
}

function pkcs12Fault(e: unknown, file: string, passwordProperty: string): string {
  const m = (e as Error).message;
  if (/mac verify|invalid password|bad decrypt/i.test(m)) return `${passwordProperty} is wrong for ${file} (or the file is damaged)`;
  if (/not enough data|asn1|header too long|wrong tag|DER/i.test(m)) return `${file} is not a PKCS12 keystore`;
  if (/key values mismatch/i.test(m)) return `the key in ${file} does not match its certificate`;
  return `${file}: ${m}`;
}

/**
 * The certificates of a PKCS12 truststore, as PEM. Node reads PKCS12 only as a key and its
 * chain (`pfx`), so a truststore is read with the small PKCS12 reader of pkcs12.ts.
 */
function pkcs12Certificates(bytes: Buffer, password: string, bad: (m: string) => GridError, file: string): string[] {
  let ders: Buffer[];
  try {
    ders = readPkcs12Certificates(bytes, password);
  } catch (e) {
    const m = (e as Error).message;
    throw bad(/password|mac/i.test(m) ? `trustStorePassword is wrong for ${file} (or the file is damaged)` : `${file}: ${m}`);
  }
  if (ders.length === 0) throw bad(`${file} holds no certificate`);
  return ders.map((d) => new X509Certificate(d).toString());
}
