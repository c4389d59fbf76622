// The tcp-ip member list in every form Hazelcast accepts, parsed in one place: the validator
// uses it to reject a bad entry at load time (with its path), the joiner to expand entries
// into the addresses it dials. Pure: no name resolution, no sockets.

import { isIPv6 } from 'node:net';
import { GridError } from '../core/errors.js';

export interface MemberAddress {
  readonly host: string;
  readonly port: number;
}

/** One entry, parsed: the hosts it names and its ports (undefined = the default ports). */
export interface MemberEntry {
  readonly hosts: readonly string[];
  readonly ports: { readonly first: number; readonly last: number } | undefined;
}

const MAX_PORT = 65535;
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*$/;
const GENERIC = 'not a host, host:port or host:port1-port2';

/** A literal host: IPv4, `[IPv6]` (zone allowed) or a DNS name. */
export function isHost(host: string): boolean {
  if (host.startsWith('[') && host.endsWith(']')) return isIPv6(host.slice(1, -1).replace(/%.*$/, ''));
  if (/^[\d.]+$/.test(host)) {
    const parts = host.split('.');
    return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
  }
  return HOST_NAME.test(host);
}

/**
 * Hazelcast splits each member-list element at commas, semicolons and spaces
 * (`<members>127.0.0.1, 127.0.0.2</members>`); so does Grid.
 */
export function splitMemberEntries(text: string): string[] {
  return text.split(/[,;\s]+/).filter((s) => s !== '');
}

function invalid(entry: string, reason: string): GridError {
  return new GridError('CONFIG_INVALID', `${reason}: ${JSON.stringify(entry)}`);
}

function parsePorts(entry: string, spec: string): { first: number; last: number } {
  const m = /^(\d+)(?:-(\d+))?$/.exec(spec);
  if (m === null) throw invalid(entry, GENERIC);
  const first = Number(m[1]);
  const last = m[2] === undefined ? first : Number(m[2]);
  if (first < 1 || first > MAX_PORT) throw invalid(entry, `port must be 1-${MAX_PORT}`);
  if (last < first) throw invalid(entry, `port range is reversed (${first} > ${last})`);
  if (last > MAX_PORT) throw invalid(entry, `port range goes past ${MAX_PORT}`);
  return { first, last };
}

/** `a.b.c.d`, `a.b.c.x-y` or `a.b.c.*` (Hazelcast ranges only the last octet). */
function parseIPv4(entry: string, host: string): string[] {
  const parts = host.split('.');
  if (parts.length !== 4) throw invalid(entry, GENERIC);
  const first3 = parts.slice(0, 3);
  const last = parts[3] as string;
  for (const p of first3) {
    if (/[-*]/.test(p)) throw invalid(entry, 'only the last octet of an IPv4 address may be a range');
    if (!/^\d{1,3}$/.test(p)) throw invalid(entry, GENERIC);
    if (Number(p) > 255) throw invalid(entry, 'an IPv4 octet is over 255');
  }
  let lo: number;
  let hi: number;
  const range = /^(\d{1,3})-(\d{1,3})$/.exec(last);
  if (last === '*') [lo, hi] = [0, 255];
  else if (range !== null) [lo, hi] = [Number(range[1]), Number(range[2])];
  else if (/^\d{1,3}$/.test(last)) lo = hi = Number(last);
  else throw invalid(entry, GENERIC);
  if (lo > 255 || hi > 255) throw invalid(entry, 'an IPv4 octet is over 255');
  if (hi < lo) throw invalid(entry, `address range is reversed (${lo} > ${hi})`);
  const prefix = first3.map(Number).join('.');
  return Array.from({ length: hi - lo + 1 }, (_, k) => `${prefix}.${lo + k}`);
}

/**
 * One member-list entry (no separators): `host`, `host:port`, `host:p1-p2`, `[ipv6]`,
 * `[ipv6]:port[-p2]`, a bare IPv6 address (no port), or an IPv4 address whose last octet is
 * a range (`10.0.0.1-3`) or `*`, with or without a port or port range. IPv6 hosts come
 * without brackets. Throws GridError('CONFIG_INVALID') naming the entry.
 */
export function parseMemberEntry(entry: string): MemberEntry {
  if (entry.startsWith('[')) {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
    if (m === null) throw invalid(entry, GENERIC);
    const host = m[1] ?? '';
    if (!isIPv6(host.replace(/%.*$/, ''))) throw invalid(entry, 'not an IPv6 address in brackets');
    return { hosts: [host], ports: m[2] === undefined ? undefined : parsePorts(entry, m[2]) };
  }
  if ((entry.match(/:/g)?.length ?? 0) > 1) {
    if (!isIPv6(entry.replace(/%.*$/, ''))) throw invalid(entry, GENERIC);
    return { hosts: [entry], ports: undefined };
  }
  const colon = entry.indexOf(':');
  const host = colon < 0 ? entry : entry.slice(0, colon);
  const ports = colon < 0 ? undefined : parsePorts(entry, entry.slice(colon + 1));
  if (/^[\d.*-]+$/.test(host)) return { hosts: parseIPv4(entry, host), ports };
  if (!HOST_NAME.test(host)) throw invalid(entry, GENERIC);
  return { hosts: [host], ports };
}

/**
 * Every address a member should try, in entry order, deduplicated: `host` -> defaultPort ..
 * defaultPort+portTryCount-1 (never past 65535); `host:port`; `host:p1-p2` (inclusive);
 * `[ipv6]` and `[ipv6]:port`; IPv4 last-octet ranges as Hazelcast writes them (`10.0.0.1-3`
 * -> .1, .2, .3; `10.0.0.*` -> .0 to .255; combinable with a port or port range). An element
 * may hold several entries separated by commas, semicolons or spaces. Throws
 * GridError('CONFIG_INVALID', message naming the entry) on malformed entries (bad port,
 * reversed range, range over 65535, octet > 255).
 */
export function expandMemberList(entries: readonly string[], defaultPort: number, portTryCount: number): MemberAddress[] {
  const tries = Math.max(1, Math.floor(portTryCount));
  const out: MemberAddress[] = [];
  const seen = new Set<string>();
  for (const entry of entries.flatMap(splitMemberEntries)) {
    const { hosts, ports } = parseMemberEntry(entry);
    const first = ports?.first ?? defaultPort;
    const last = ports?.last ?? Math.min(MAX_PORT, defaultPort + tries - 1);
    for (const host of hosts) {
      for (let port = first; port <= last; port++) {
        const key = `${host} ${port}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ host, port });
      }
    }
  }
  return out;
}
