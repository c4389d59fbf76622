// The settings every admin command shares (member address, credentials, prefix, output mode),
// resolved from the command's flags and the environment. Pure: flags and env in, settings and
// where each came from out (error messages name the source, never the password).

import { UsageError } from './outcome.js';
import { resolveTls, type TlsClientSettings, type TlsFlags } from './tls-settings.js';

export const DEFAULT_ADDRESS = '127.0.0.1:5701';
/** Grid's (and Hazelcast's) default cluster-name: what a member without security expects first. */
export const DEFAULT_CLUSTER_NAME = 'dev';
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 70;

export type Prefix = 'grid' | 'hazelcast';

/** The flags as commander hands them over (every one optional). */
export interface CommonFlags extends TlsFlags {
  readonly address?: string;
  readonly clusterName?: string;
  readonly user?: string;
  readonly password?: string;
  readonly json?: boolean;
  readonly prefix?: string;
  readonly requestTimeout?: string;
}

export interface MemberAddress {
  readonly host: string;
  readonly port: number;
  /** As the user should read it: `host:port`, `[v6]:port`. */
  readonly display: string;
  /** Written as an https:// address. */
  readonly https?: boolean;
}

export interface Settings {
  readonly address: MemberAddress;
  /** Where the address came from: `--address`, `GRID_ADDRESS` or `default`. */
  readonly addressSource: string;
  /** The first credential position: the cluster name (security off) or the user (security on). */
  readonly name: string;
  /** `--cluster-name`, `--user`, `GRID_USER`, `GRID_CLUSTER_NAME` or `default`. */
  readonly nameSource: string;
  readonly password: string;
  /** `--password`, `GRID_PASSWORD`, or `none` when no password was given. */
  readonly passwordSource: string;
  readonly json: boolean;
  readonly prefix: Prefix;
  readonly requestTimeoutMs: number;
  /** HTTPS (tls-settings.ts); undefined: plain HTTP. */
  readonly tls?: TlsClientSettings | undefined;
}

/**
 * `host:port`, `[ipv6]:port`, a bare host (port 5701) or a bare IPv6 address; an `http://`
 * in front and a `/` behind are accepted (copied from a browser).
 */
export function parseAddress(text: string): MemberAddress {
  let s = text.trim();
  const https = /^https:\/\//i.test(s);
  s = s.replace(/^https?:\/\//i, '').replace(/\/+$/, '');
  if (s.length === 0) throw new UsageError('address is empty (expected host:port)');
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(.*))?$/.exec(s);
  if (v6) {
    host = v6[1]!;
    portText = v6[2];
  } else if ((s.match(/:/g) ?? []).length > 1) {
    host = s; // a bare IPv6 address
  } else {
    const colon = s.indexOf(':');
    host = colon === -1 ? s : s.slice(0, colon);
    portText = colon === -1 ? undefined : s.slice(colon + 1);
  }
  if (host.length === 0 || /[\s/@]/.test(host)) throw new UsageError(`address "${text}": not a host:port`);
  let port = 5701;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new UsageError(`address "${text}": the port must be a number from 1 to 65535`);
    }
    port = Number(portText);
  }
  return { host, port, display: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`, ...(https ? { https } : {}) };
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/** The settings from `flags`, then `env` (GRID_ADDRESS, GRID_USER, GRID_CLUSTER_NAME, GRID_PASSWORD), then defaults. */
export function resolveSettings(flags: CommonFlags, env: Readonly<Record<string, string | undefined>>): Settings {
  if (flags.clusterName !== undefined && flags.user !== undefined) {
    throw new UsageError('give --cluster-name (security off) or --user (security on), not both: both fill the first credential position');
  }
  const addressFlag = nonEmpty(flags.address);
  const addressEnv = nonEmpty(env.GRID_ADDRESS);
  const [addressText, addressSource] =
    addressFlag !== undefined ? [addressFlag, '--address'] : addressEnv !== undefined ? [addressEnv, 'GRID_ADDRESS'] : [DEFAULT_ADDRESS, 'default'];

  let name: string;
  let nameSource: string;
  if (flags.user !== undefined) [name, nameSource] = [flags.user, '--user'];
  else if (flags.clusterName !== undefined) [name, nameSource] = [flags.clusterName, '--cluster-name'];
  else if (env.GRID_USER !== undefined) [name, nameSource] = [env.GRID_USER, 'GRID_USER'];
  else if (env.GRID_CLUSTER_NAME !== undefined) [name, nameSource] = [env.GRID_CLUSTER_NAME, 'GRID_CLUSTER_NAME'];
  else [name, nameSource] = [DEFAULT_CLUSTER_NAME, 'default'];

  let password = '';
  let passwordSource = 'none';
  if (flags.password !== undefined) [password, passwordSource] = [flags.password, '--password'];
  else if (env.GRID_PASSWORD !== undefined) [password, passwordSource] = [env.GRID_PASSWORD, 'GRID_PASSWORD'];

  const prefix = flags.prefix ?? 'grid';
  if (prefix !== 'grid' && prefix !== 'hazelcast') throw new UsageError(`--prefix must be grid or hazelcast, got "${prefix}"`);

  let requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000;
  if (flags.requestTimeout !== undefined) {
    const t = Number(flags.requestTimeout);
    if (!/^\d+(\.\d+)?$/.test(flags.requestTimeout) || !(t > 0)) {
      throw new UsageError(`--request-timeout must be a positive number of seconds, got "${flags.requestTimeout}"`);
    }
    requestTimeoutMs = Math.round(t * 1000);
  }

  const address = parseAddress(addressText);
  return {
    address,
    tls: resolveTls(flags, env, address.https === true),
    addressSource,
    name,
    nameSource,
    password,
    passwordSource,
    json: flags.json === true,
    prefix,
    requestTimeoutMs,
  };
}

/** The positional body of a parameterised POST: `<name>&<password>&<p3>...`, each percent-encoded. */
export function paramsBody(s: Pick<Settings, 'name' | 'password'>, ...params: readonly string[]): string {
  return [s.name, s.password, ...params].map((p) => encodeURIComponent(p)).join('&');
}

/** How the credentials were given, for a 403 message: never the password itself. */
export function describeCredentials(s: Settings): string {
  const what = s.nameSource === '--user' || s.nameSource === 'GRID_USER' ? 'user' : 'cluster name';
  const from = s.nameSource === 'default' ? 'the default' : `from ${s.nameSource}`;
  const pw = s.passwordSource === 'none' ? 'no password' : `a password from ${s.passwordSource}`;
  return `${what} "${s.name}" (${from}) and ${pw}`;
}
