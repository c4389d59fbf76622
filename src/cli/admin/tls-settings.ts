// TLS for the admin commands: `--tls` (or an https:// address), `--cacert`, `--cert`, `--key`,
// `--insecure`, as Hazelcast's hz-cluster-admin and hz-healthcheck take them (curl's names).
// Resolving the flags is pure; reading the files happens once, when the client is built, and a
// file that cannot be read is a usage error naming it.

import { readFileSync } from 'node:fs';
import { UsageError } from './outcome.js';

export interface TlsFlags {
  readonly tls?: boolean;
  readonly cacert?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecure?: boolean;
}

export interface TlsClientSettings {
  /** PEM CA certificates that sign the member's certificate; undefined: the system's roots. */
  readonly caFile: string | undefined;
  /** A client certificate and key, for a member that requires them (mutualAuthentication). */
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  /** Do not check the member's certificate (a test member with a self-signed one). */
  readonly insecure: boolean;
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/**
 * TLS settings from the flags, then GRID_CACERT / GRID_CERT / GRID_KEY; undefined when nothing
 * asks for TLS. Any TLS flag (or an https:// address) turns it on.
 */
export function resolveTls(flags: TlsFlags, env: Readonly<Record<string, string | undefined>>, httpsAddress: boolean): TlsClientSettings | undefined {
  const caFile = nonEmpty(flags.cacert) ?? nonEmpty(env.GRID_CACERT);
  const certFile = nonEmpty(flags.cert) ?? nonEmpty(env.GRID_CERT);
  const keyFile = nonEmpty(flags.key) ?? nonEmpty(env.GRID_KEY);
  const insecure = flags.insecure === true;
  const on = flags.tls === true || httpsAddress || caFile !== undefined || certFile !== undefined || keyFile !== undefined || insecure;
  if (!on) return undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError('--cert and --key go together: the client certificate (PEM) and its private key (PEM)');
  }
  return { caFile, certFile, keyFile, insecure };
}

/** What node:https needs for these settings (files read now). */
export function tlsRequestOptions(s: TlsClientSettings): { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized: boolean } {
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`${flag} ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)})`);
    }
  };
  return {
    ...(s.caFile !== undefined ? { ca: read('--cacert', s.caFile) } : {}),
    ...(s.certFile !== undefined ? { cert: read('--cert', s.certFile) } : {}),
    ...(s.keyFile !== undefined ? { key: read('--key', s.keyFile) } : {}),
    rejectUnauthorized: !s.insecure,
  };
}

const CERT_CODES = /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/** A sentence for a TLS failure (node's code), or undefined when it is not one. */
export function tlsFailure(code: string | undefined, message: string, tls: boolean): string | undefined {
  if (code !== undefined && CERT_CODES.test(code)) {
    return `the member's certificate is not trusted (${message}): pass --cacert with the CA that signed it (or --insecure for a test member)`;
  }
  if (tls && /wrong version number|packet length too long|http request/i.test(message)) {
    return `the member does not speak TLS on that port (${message}): drop --tls and use host:port`;
  }
  if (tls && (code === 'EPROTO' || /alert|handshake|certificate required/i.test(message))) {
    return `the TLS handshake failed (${message}): a member that requires client certificates needs --cert and --key`;
  }
  return undefined;
}
