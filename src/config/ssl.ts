// The `ssl` element of `network` and of each advanced-network endpoint, read with Hazelcast's
// property names (BasicSSLContextFactory's keyStore/trustStore, OpenSSLEngineFactory's PEM
// files). Pure: only names and choices are checked here; the files are read and checked at
// start by net/tls (a config may be validated on a machine that does not hold the keys).

import type { Problems } from './problems.js';
import { childPath, didYouMean, isRecord, show } from './problems.js';
import { parseBool } from './readers/section.js';

/** Who must show a certificate to this member: NONE (only the member shows one), or both sides. */
export type MutualAuthentication = 'NONE' | 'REQUIRED' | 'OPTIONAL';
/** `TLS` allows TLSv1.2 and TLSv1.3 (Hazelcast's default name); the others pin one version. */
export type TlsProtocol = 'TLS' | 'TLSv1.2' | 'TLSv1.3';

/** This member's own key and certificate chain. */
export type KeyMaterial =
  | { readonly kind: 'pkcs12'; readonly file: string; readonly password: string | undefined }
  | { readonly kind: 'pem'; readonly keyFile: string; readonly keyPassword: string | undefined; readonly certChainFile: string };

/** The certificates this member trusts; undefined: the system's root CAs. */
export type TrustMaterial =
  | { readonly kind: 'pkcs12'; readonly file: string; readonly password: string | undefined }
  | { readonly kind: 'pem'; readonly file: string };

export interface SslConfig {
  /** The config path of this `ssl` element, for messages (`hazelcast.network.ssl`). */
  readonly path: string;
  readonly key: KeyMaterial | undefined;
  readonly trust: TrustMaterial | undefined;
  readonly protocol: TlsProtocol;
  readonly mutualAuthentication: MutualAuthentication;
  /** OpenSSL names or IANA names, comma-separated as Hazelcast takes them; undefined: node's defaults. */
  readonly ciphersuites: readonly string[] | undefined;
  /**
   * Whether a connecting side checks that the peer's certificate names the address it dialled
   * (or `serverName`). Hazelcast's `validateIdentity`; Grid's default: off between members
   * (they dial IP addresses that certificates rarely list), on for WAN targets.
   */
  readonly validateIdentity: boolean | undefined;
  /** The name a dialled peer's certificate must hold, instead of the address dialled (Grid's own property). */
  readonly serverName: string | undefined;
}

/** Which listener and which outbound dial use which `ssl`; undefined: plain TCP. */
export interface TlsPlan {
  /** The member port (and REST on it, unless REST has its own port), and member dials. */
  readonly member: SslConfig | undefined;
  /** REST's own port (advanced network). */
  readonly rest: SslConfig | undefined;
  /** WAN publishers' dials to target clusters. */
  readonly wan: SslConfig | undefined;
}

const FACTORIES = [
  'com.hazelcast.nio.ssl.BasicSSLContextFactory',
  'com.hazelcast.nio.ssl.OpenSSLEngineFactory',
  'com.hazelcast.nio.ssl.ClasspathSSLContextFactory',
];

const KNOWN_PROPERTIES = [
  'keyStore', 'keyStorePassword', 'keyStoreType', 'trustStore', 'trustStorePassword', 'trustStoreType',
  'keyFile', 'keyPassword', 'keyCertChainFile', 'trustCertCollectionFile',
  'protocol', 'mutualAuthentication', 'ciphersuites', 'validateIdentity', 'serverName',
];
/** Java-only knobs: accepted silently, node's OpenSSL decides. */
const JAVA_ONLY_PROPERTIES = ['keyManagerAlgorithm', 'trustManagerAlgorithm', 'fipsMode', 'openssl', 'javax.net.ssl.keyStoreProvider'];

const OLD_PROTOCOLS = /^(SSL|SSLv\d|SSLv2Hello|TLSv1|TLSv1\.0|TLSv1\.1)$/i;

/** The `keytool` call that turns a JKS keystore into PKCS12, for messages. */
export function keytoolCommand(file: string): string {
  const dest = file.replace(/\.jks$/i, '') + '.p12';
  return `keytool -importkeystore -srckeystore ${file} -srcstoretype JKS -destkeystore ${dest} -deststoretype PKCS12`;
}

/**
 * Reads one `ssl` element (raw, YAML shape: `{enabled, factory-class-name, properties: {...}}`).
 * Undefined when absent or not enabled. Passwords never appear in messages.
 */
export function readSsl(problems: Problems, path: string, raw: unknown): SslConfig | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (!isRecord(raw)) {
    problems.error(path, `must be a mapping, got ${show(raw)}`);
    return undefined;
  }
  const enabled = parseBool(raw['enabled']);
  if (enabled === undefined) {
    if (raw['enabled'] !== undefined) problems.error(childPath(path, 'enabled'), `must be true or false, got ${show(raw['enabled'])}`);
    else if (Object.keys(raw).length > 0) problems.warn(childPath(path, 'enabled'), 'not set, so ssl is off (write enabled: true to turn it on)');
    return undefined;
  }
  for (const key of Object.keys(raw)) {
    if (key === 'enabled' || key === 'properties') continue;
    if (key === 'factory-class-name' || key === 'factory-implementation') {
      const name = raw[key];
      if (typeof name === 'string' && name.trim() !== '' && !FACTORIES.includes(name.trim())) {
        problems.warn(childPath(path, key), `custom SSL factories are not supported; Grid reads the properties as BasicSSLContextFactory and OpenSSLEngineFactory do (ignored: ${show(name)})`);
      }
      continue;
    }
    problems.warn(childPath(path, key), `unknown element, ignored${hint(key, ['enabled', 'factory-class-name', 'properties'])}`);
  }
  if (!enabled) return undefined;

  const propsPath = childPath(path, 'properties');
  const rawProps = raw['properties'];
  const props = new Map<string, string>();
  if (isRecord(rawProps)) {
    for (const [k, v] of Object.entries(rawProps)) {
      if (typeof v === 'string') props.set(k, k.toLowerCase().includes('password') ? v : v.trim());
      else if (typeof v === 'number' || typeof v === 'boolean') props.set(k, String(v));
      else if (v === null || v === undefined) props.set(k, '');
      else problems.error(childPath(propsPath, k), 'must be a single value');
      if (!KNOWN_PROPERTIES.includes(k) && !JAVA_ONLY_PROPERTIES.includes(k)) {
        problems.warn(childPath(propsPath, k), `unknown ssl property, ignored${hint(k, KNOWN_PROPERTIES)}`);
      }
    }
  } else if (rawProps !== undefined && rawProps !== null && rawProps !== '') {
    problems.error(propsPath, `must be a mapping, got ${show(rawProps)}`);
  }
  const at = (k: string): string => childPath(propsPath, k);
  const get = (k: string): string | undefined => {
    const v = props.get(k);
    return v === undefined || v === '' ? undefined : v;
  };

  const key = readKey(problems, at, get);
  const trust = readTrust(problems, at, get);

  let protocol: TlsProtocol = 'TLS';
  const p = get('protocol');
  if (p !== undefined) {
    if (/^TLS$/i.test(p)) protocol = 'TLS';
    else if (/^TLSv1\.2$/i.test(p)) protocol = 'TLSv1.2';
    else if (/^TLSv1\.3$/i.test(p)) protocol = 'TLSv1.3';
    else if (OLD_PROTOCOLS.test(p)) problems.error(at('protocol'), `${p} is broken and refused; use TLSv1.2 or TLSv1.3 (or TLS for both)`);
    else problems.error(at('protocol'), `unknown protocol ${show(p)}: one of TLS, TLSv1.2, TLSv1.3`);
  }

  let mutualAuthentication: MutualAuthentication = 'NONE';
  const m = get('mutualAuthentication');
  if (m !== undefined) {
    const upper = m.toUpperCase();
    if (upper === 'REQUIRED' || upper === 'OPTIONAL') mutualAuthentication = upper;
    else problems.error(at('mutualAuthentication'), `must be REQUIRED or OPTIONAL, got ${show(m)}`);
  }
  if (mutualAuthentication !== 'NONE' && trust === undefined) {
    problems.warn(at('mutualAuthentication'), 'is set without a trustStore or trustCertCollectionFile: peers are checked against the system root CAs');
  }

  const c = get('ciphersuites');
  const ciphersuites = c === undefined ? undefined : c.split(',').map((s) => s.trim()).filter((s) => s !== '');

  let validateIdentity: boolean | undefined;
  const vi = get('validateIdentity');
  if (vi !== undefined) {
    validateIdentity = parseBool(vi);
    if (validateIdentity === undefined) problems.error(at('validateIdentity'), `must be true or false, got ${show(vi)}`);
  }

  if (key === undefined) problems.error(propsPath, 'ssl is enabled but names no key: set keyStore (PKCS12) or keyFile and keyCertChainFile (PEM)');
  return { path, key, trust, protocol, mutualAuthentication, ciphersuites, validateIdentity, serverName: get('serverName') };
}

function readKey(problems: Problems, at: (k: string) => string, get: (k: string) => string | undefined): KeyMaterial | undefined {
  const store = get('keyStore');
  const keyFile = get('keyFile');
  const chain = get('keyCertChainFile');
  if (store !== undefined && (keyFile !== undefined || chain !== undefined)) {
    problems.error(at('keyStore'), 'set either keyStore (PKCS12) or keyFile and keyCertChainFile (PEM), not both');
    return undefined;
  }
  if (store !== undefined) {
    if (!storeType(problems, at('keyStoreType'), get('keyStoreType'), store)) return undefined;
    return { kind: 'pkcs12', file: store, password: get('keyStorePassword') };
  }
  if (keyFile === undefined && chain === undefined) return undefined;
  if (keyFile === undefined) problems.error(at('keyFile'), 'is required with keyCertChainFile (the PEM private key)');
  if (chain === undefined) problems.error(at('keyCertChainFile'), 'is required with keyFile (the PEM certificate chain)');
  if (keyFile === undefined || chain === undefined) return undefined;
  return { kind: 'pem', keyFile, keyPassword: get('keyPassword'), certChainFile: chain };
}

function readTrust(problems: Problems, at: (k: string) => string, get: (k: string) => string | undefined): TrustMaterial | undefined {
  const store = get('trustStore');
  const pem = get('trustCertCollectionFile');
  if (store !== undefined && pem !== undefined) {
    problems.error(at('trustStore'), 'set either trustStore (PKCS12) or trustCertCollectionFile (PEM), not both');
    return undefined;
  }
  if (store !== undefined) {
    if (!storeType(problems, at('trustStoreType'), get('trustStoreType'), store)) return undefined;
    return { kind: 'pkcs12', file: store, password: get('trustStorePassword') };
  }
  if (pem !== undefined) return { kind: 'pem', file: pem };
  return undefined;
}

/** Whether the store type is one Grid reads (PKCS12); JKS is refused with the conversion command. */
function storeType(problems: Problems, path: string, type: string | undefined, file: string): boolean {
  if (type === undefined || /^(PKCS12|PFX|P12)$/i.test(type)) return true;
  if (/^JKS$/i.test(type)) {
    problems.error(path, `JKS keystores cannot be read by Grid; convert ${file} to PKCS12 with: ${keytoolCommand(file)}`);
  } else {
    problems.error(path, `unknown store type ${show(type)}: Grid reads PKCS12 (or PEM files with keyFile/keyCertChainFile/trustCertCollectionFile)`);
  }
  return false;
}


function hint(key: string, names: readonly string[]): string {
  const guess = didYouMean(key, names);
  return guess === undefined ? '' : ` (did you mean "${guess}"?)`;
}

/**
 * Which ssl serves which listener and dial. Without advanced network, `network.ssl` covers the
 * member port (REST shares it), member dials and WAN dials. With it, each endpoint's own `ssl`
 * counts; WAN dials use a `wan-endpoint-config`'s ssl, else the member endpoint's (a cluster
 * whose members speak TLS expects the same of its WAN peers).
 */
export function tlsPlan(network: { readonly ssl?: SslConfig | undefined }, advanced: {
  readonly enabled: boolean;
  readonly memberSsl?: SslConfig | undefined;
  readonly restSsl?: SslConfig | undefined;
  readonly wanSsl?: SslConfig | undefined;
}): TlsPlan {
  if (!advanced.enabled) return { member: network.ssl, rest: network.ssl, wan: network.ssl };
  return { member: advanced.memberSsl, rest: advanced.restSsl, wan: advanced.wanSsl ?? advanced.memberSsl };
}
