// The certificates of a PKCS12 truststore (RFC 7292). node:tls reads PKCS12 only as a private
// key with its chain (`pfx`); a Java truststore (keytool's trustedCertEntry) holds certificates
// and no key, so it is read here: the MAC is checked (a wrong password is said as such), cert
// bags are collected from plain and encrypted contents (PBES2 with PBKDF2 and AES, OpenSSL 3's
// and Java 18+'s default; PKCS12 PBE with 3DES). Pure: bytes in, DER certificates out.

import { createDecipheriv, createHash, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';

interface Tlv {
  readonly tag: number;
  /** The content octets. */
  readonly body: Buffer;
  /** Offset just after this element in the buffer it was read from. */
  readonly end: number;
}

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_ENCRYPTED_DATA = '1.2.840.113549.1.7.6';
const OID_CERT_BAG = '1.2.840.113549.1.12.10.1.3';
const OID_X509_CERT = '1.2.840.113549.1.9.22.1';
const OID_PBES2 = '1.2.840.113549.1.5.13';
const OID_PBKDF2 = '1.2.840.113549.1.5.12';
const OID_PBE_SHA1_3DES = '1.2.840.113549.1.12.1.3';
const OID_PBE_SHA1_RC2_40 = '1.2.840.113549.1.12.1.6';
const HASHES: Readonly<Record<string, { name: string; v: number }>> = {
  '1.3.14.3.2.26': { name: 'sha1', v: 64 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', v: 64 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', v: 128 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', v: 128 },
};
const HMACS: Readonly<Record<string, string>> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const CIPHERS: Readonly<Record<string, string>> = {
  '2.16.840.1.101.3.4.1.2': 'aes-128-cbc',
  '2.16.840.1.101.3.4.1.22': 'aes-192-cbc',
  '2.16.840.1.101.3.4.1.42': 'aes-256-cbc',
  '1.2.840.113549.3.7': 'des-ede3-cbc',
};

function tlv(buf: Buffer, at: number): Tlv {
  if (at + 2 > buf.length) throw new Error('not a PKCS12 file (truncated)');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) throw new Error('not a PKCS12 file (bad length)');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    p += n;
  }
  if (p + len > buf.length) throw new Error('not a PKCS12 file (truncated)');
  return { tag, body: buf.subarray(p, p + len), end: p + len };
}

/** The elements of a constructed value, in order. */
function children(body: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < body.length; ) {
    const t = tlv(body, at);
    out.push(t);
    at = t.end;
  }
  return out;
}

function expect(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (t === undefined || t.tag !== tag) throw new Error(`not a PKCS12 file (${what})`);
  return t;
}

function oid(t: Tlv | undefined): string {
  const b = expect(t, 0x06, 'OID').body;
  const parts: number[] = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if ((b[i]! & 0x80) === 0) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

function int(t: Tlv | undefined): number {
  const b = expect(t, 0x02, 'INTEGER').body;
  let v = 0;
  for (const x of b) v = v * 256 + x;
  return v;
}

/** An OCTET STRING, primitive or (BER, as Java writes it) constructed. */
function octets(t: Tlv | undefined): Buffer {
  if (t?.tag === 0x04) return t.body;
  if (t?.tag === 0x24) return Buffer.concat(children(t.body).map((c) => octets(c)));
  throw new Error('not a PKCS12 file (OCTET STRING)');
}

/** RFC 7292 appendix B.2: the key (id 1), IV (id 2) or MAC key (id 3) from a password. */
export function pkcs12Kdf(hash: string, v: number, password: Buffer, salt: Buffer, id: number, iterations: number, n: number): Buffer {
  const fill = (src: Buffer): Buffer => {
    if (src.length === 0) return Buffer.alloc(0);
    const out = Buffer.alloc(v * Math.ceil(src.length / v));
    for (let i = 0; i < out.length; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const I = Buffer.concat([fill(salt), fill(password)]);
  const D = Buffer.alloc(v, id);
  const out: Buffer[] = [];
  let have = 0;
  while (have < n) {
    let A = createHash(hash).update(D).update(I).digest();
    for (let r = 1; r < iterations; r++) A = createHash(hash).update(A).digest();
    out.push(A);
    have += A.length;
    if (have >= n) break;
    const B = fill(A).subarray(0, v);
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, n);
}

/** The password as PKCS12's PBE and MAC take it: UTF-16BE with a terminating zero (empty: none). */
function bmpPassword(password: string): Buffer {
  if (password === '') return Buffer.alloc(0);
  const b = Buffer.alloc(password.length * 2 + 2);
  for (let i = 0; i < password.length; i++) b.writeUInt16BE(password.charCodeAt(i), i * 2);
  return b;
}

function decrypt(alg: Tlv, data: Buffer, password: string): Buffer {
  const parts = children(expect(alg, 0x30, 'AlgorithmIdentifier').body);
  const id = oid(parts[0]);
  if (id === OID_PBES2) {
    const [kdf, scheme] = children(expect(parts[1], 0x30, 'PBES2 parameters').body);
    const kdfParts = children(expect(kdf, 0x30, 'KDF').body);
    if (oid(kdfParts[0]) !== OID_PBKDF2) throw new Error('unsupported key derivation (only PBKDF2)');
    const p = children(expect(kdfParts[1], 0x30, 'PBKDF2 parameters').body);
    const salt = octets(p[0]);
    const iterations = int(p[1]);
    let prf = 'sha1';
    for (const extra of p.slice(2)) if (extra.tag === 0x30) prf = HMACS[oid(children(extra.body)[0])] ?? '';
    if (prf === '') throw new Error('unsupported PBKDF2 hash');
    const sp = children(expect(scheme, 0x30, 'encryption scheme').body);
    const cipher = CIPHERS[oid(sp[0])];
    if (cipher === undefined) throw new Error('unsupported cipher (AES-CBC or 3DES-CBC are read)');
    const iv = octets(sp[1]);
    const keyLength = cipher.startsWith('aes-128') ? 16 : cipher.startsWith('aes-192') || cipher.startsWith('des') ? 24 : 32;
    const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, keyLength, prf);
    return decipher(cipher, key, iv, data);
  }
  if (id === OID_PBE_SHA1_3DES) {
    const p = children(expect(parts[1], 0x30, 'PBE parameters').body);
    const salt = octets(p[0]);
    const iterations = int(p[1]);
    const pw = bmpPassword(password);
    return decipher('des-ede3-cbc', pkcs12Kdf('sha1', 64, pw, salt, 1, iterations, 24), pkcs12Kdf('sha1', 64, pw, salt, 2, iterations, 8), data);
  }
  if (id === OID_PBE_SHA1_RC2_40) throw new Error('is encrypted with 40-bit RC2, which OpenSSL 3 no longer reads; export it again (keytool of Java 18+, or openssl pkcs12 -export) or convert it to PEM');
  throw new Error(`unsupported encryption ${id}`);
}

function decipher(cipher: string, key: Buffer, iv: Buffer, data: Buffer): Buffer {
  try {
    const d = createDecipheriv(cipher, key, iv);
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    throw new Error('wrong password (the contents do not decrypt)');
  }
}

/**
 * The DER certificates of every cert bag of a PKCS12 file. Throws `wrong password` when the
 * MAC does not verify, and a `not a PKCS12 file` sentence for anything unreadable.
 */
export function readPkcs12Certificates(file: Buffer, password: string): Buffer[] {
  const pfx = children(expect(tlv(file, 0), 0x30, 'PFX').body);
  if (int(pfx[0]) !== 3) throw new Error('not a PKCS12 file (version)');
  const authSafe = children(expect(pfx[1], 0x30, 'authSafe').body);
  if (oid(authSafe[0]) !== OID_DATA) throw new Error('public-key integrity mode is not supported');
  const content = octets(children(expect(authSafe[1], 0xa0, 'authSafe content').body)[0]);
  if (pfx[2] !== undefined) verifyMac(pfx[2], content, password);
  const certs: Buffer[] = [];
  for (const ci of children(expect(tlv(content, 0), 0x30, 'AuthenticatedSafe').body)) {
    const parts = children(expect(ci, 0x30, 'ContentInfo').body);
    const type = oid(parts[0]);
    const inner = children(expect(parts[1], 0xa0, 'ContentInfo content').body)[0];
    let safeContents: Buffer;
    if (type === OID_DATA) safeContents = octets(inner);
    else if (type === OID_ENCRYPTED_DATA) {
      const ed = children(expect(inner, 0x30, 'EncryptedData').body);
      const eci = children(expect(ed[1], 0x30, 'EncryptedContentInfo').body);
      const enc = eci[2];
      if (enc === undefined) continue;
      const data = enc.tag === 0x80 ? enc.body : enc.tag === 0xa0 ? Buffer.concat(children(enc.body).map((c) => octets(c))) : Buffer.alloc(0);
      safeContents = decrypt(eci[1]!, data, password);
    } else continue; // enveloped data: not used for truststores
    for (const bag of children(expect(tlv(safeContents, 0), 0x30, 'SafeContents').body)) {
      const b = children(expect(bag, 0x30, 'SafeBag').body);
      if (oid(b[0]) !== OID_CERT_BAG) continue;
      const certBag = children(expect(children(expect(b[1], 0xa0, 'bag value').body)[0], 0x30, 'CertBag').body);
      if (oid(certBag[0]) !== OID_X509_CERT) continue;
      certs.push(octets(children(expect(certBag[1], 0xa0, 'cert value').body)[0]));
    }
  }
  return certs;
}

function verifyMac(macData: Tlv, content: Buffer, password: string): void {
  const m = children(expect(macData, 0x30, 'MacData').body);
  const digestInfo = children(expect(m[0], 0x30, 'DigestInfo').body);
  const alg = oid(children(expect(digestInfo[0], 0x30, 'digest algorithm').body)[0]);
  const expected = octets(digestInfo[1]);
  const salt = octets(m[1]);
  const iterations = m[2] === undefined ? 1 : int(m[2]);
  const hash = HASHES[alg];
  if (hash === undefined) throw new Error(`unsupported MAC digest ${alg}`);
  const outLength = createHash(hash.name).digest().length;
  // Empty passwords are written both as no bytes and as a lone terminator: either verifies.
  const candidates = password === '' ? [Buffer.alloc(0), Buffer.alloc(2)] : [bmpPassword(password)];
  for (const pw of candidates) {
    const key = pkcs12Kdf(hash.name, hash.v, pw, salt, 3, iterations, outLength);
    const mac = createHmac(hash.name, key).update(content).digest();
    if (mac.length === expected.length && timingSafeEqual(mac, expected)) return;
  }
  throw new Error('wrong password (the MAC does not verify)');
}
