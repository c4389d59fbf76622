// Pure parsing of Grid's per-request write options on /grid/rest/maps/<m>/<k>: the conditions
// of If-Match / If-None-Match (an entry's version is its strong ETag, `"<version>"`) and the
// per-entry TTL and max idle (`?ttl=30s`, `?maxIdle=5m`, or the Grid-TTL / Grid-Max-Idle
// headers). Everything is checked before anything is written: a bad value is a 400, never half a write.

import { GridError } from '../core/errors.js';
import type { UpdateCondition } from '../map/map-service.js';

/** Versions are u32 (map layer): anything larger cannot be an entry's version. */
const MAX_VERSION = 0xffffffff;

/** One ETag of a condition header: `*` (any entry) or one strong version. */
export type Tag = { readonly any: true } | { readonly any: false; readonly version: number };

/** `"<version>"` (strong; the quotes are part of the tag). */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * A condition header's value: `*` or exactly one strong `"<u32>"`. Lists and weak tags
 * (`W/"3"`) are refused: a write has one version to compare with, and a weak tag never
 * matches a strong comparison, so accepting one would only hide a client's mistake.
 */
export function parseTag(raw: string, header: string): Tag {
  const s = raw.trim();
  if (s === '*') return { any: true };
  const m = /^"(\d{1,10})"$/.exec(s);
  if (m === null) {
    throw new GridError('BAD_REQUEST', `${header}: expected * or one strong ETag "<version>" (as GET's ETag), got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  const version = Number(m[1]);
  if (version > MAX_VERSION) throw new GridError('BAD_REQUEST', `${header}: version ${m[1]} is out of range (0..${MAX_VERSION})`);
  return { any: false, version };
}

/**
 * The map-layer condition of a write's If-Match / If-None-Match (undefined: unconditional).
 * POST/PUT: If-Match `"v"` (version is v), If-Match `*` (present), If-None-Match `*` (absent).
 * DELETE: If-Match only. Anything else (both headers, If-None-Match `"v"` on a write) is a 400.
 */
export function writeCondition(ifMatch: string | undefined, ifNoneMatch: string | undefined, isDelete: boolean): UpdateCondition | undefined {
  if (ifMatch !== undefined && ifNoneMatch !== undefined) throw new GridError('BAD_REQUEST', 'If-Match and If-None-Match together: send one condition');
  if (ifMatch !== undefined) {
    const t = parseTag(ifMatch, 'If-Match');
    return t.any ? { kind: 'present' } : { kind: 'version', version: t.version };
  }
  if (ifNoneMatch !== undefined) {
    if (isDelete) throw new GridError('BAD_REQUEST', 'If-None-Match on DELETE: use If-Match (a delete of an absent entry does nothing)');
    const t = parseTag(ifNoneMatch, 'If-None-Match');
    if (!t.any) throw new GridError('BAD_REQUEST', 'If-None-Match on a write takes only * (create only); to compare a version use If-Match');
    return { kind: 'absent' };
  }
  return undefined;
}

/** Whether a GET with If-None-Match answers 304 for an entry of `version` (`*`: any entry). */
export function notModified(ifNoneMatch: string, version: number): boolean {
  const t = parseTag(ifNoneMatch, 'If-None-Match');
  return t.any || t.version === version;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longer than any deadline is useful, and well inside what a double holds exactly. */
const MAX_DURATION_MS = 365 * 86_400_000 * 100;

/**
 * A duration as `<integer><unit>` with unit ms, s, m, h or d, or a plain integer of seconds
 * (as Hazelcast's `time-to-live-seconds`). 0 means none (no expiry). In ms.
 */
export function parseDurationMs(raw: string, what: string): number {
  const m = /^(\d{1,15})(ms|s|m|h|d)?$/.exec(raw.trim());
  if (m === null) throw new GridError('BAD_REQUEST', `${what}: expected a duration such as 30s, 500ms, 5m, 2h, 1d or plain seconds, got ${JSON.stringify(raw.slice(0, 40))}`);
  const ms = Number(m[1]) * UNIT_MS[m[2] ?? 's']!;
  if (ms > MAX_DURATION_MS) throw new GridError('BAD_REQUEST', `${what}: ${raw.trim()} is longer than 100 years`);
  return ms;
}

export interface WriteOptions {
  readonly condition: UpdateCondition | undefined;
  /** -1: the map's default; 0: none; > 0 ms. */
  readonly ttlMs: number;
  /** -1: the map's default; 0: none; > 0 ms. */
  readonly maxIdleMs: number;
}

/** The query string of a request target (after `?`), or '' when there is none. */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

/** One duration given as a query parameter or a header, not both (two sources could disagree). */
function durationOption(query: URLSearchParams, param: string, header: string | undefined, headerName: string): number {
  const all = query.getAll(param);
  if (all.length > 1) throw new GridError('BAD_REQUEST', `?${param} given ${all.length} times`);
  const q = all[0];
  if (q !== undefined && header !== undefined) throw new GridError('BAD_REQUEST', `both ?${param} and ${headerName}: give one`);
  if (q !== undefined) return parseDurationMs(q, `?${param}`);
  if (header !== undefined) return parseDurationMs(header, headerName);
  return -1;
}

/**
 * The options of a write of /grid/rest/maps/<m>/<k>. Other query parameters are ignored, as the
 * key paths always ignored their query string (a cache-busting `?_=123` keeps working); a
 * known one with a bad value is a 400.
 */
export function parseWriteOptions(
  query: string,
  h: { readonly ifMatch: string | undefined; readonly ifNoneMatch: string | undefined; readonly ttl: string | undefined; readonly maxIdle: string | undefined },
  isDelete: boolean,
): WriteOptions {
  const p = new URLSearchParams(query);
  if (isDelete && (p.has('ttl') || p.has('maxIdle') || h.ttl !== undefined || h.maxIdle !== undefined)) {
    throw new GridError('BAD_REQUEST', 'TTL or max idle on DELETE: they apply to writes of a value');
  }
  return {
    condition: writeCondition(h.ifMatch, h.ifNoneMatch, isDelete),
    ttlMs: durationOption(p, 'ttl', h.ttl, 'Grid-TTL'),
    maxIdleMs: durationOption(p, 'maxIdle', h.maxIdle, 'Grid-Max-Idle'),
  };
}

/** The entry's deadline (ms since epoch; 0: none): the earlier of its TTL's and its idle time's. */
export function deadlineOf(expiresAt: number, lastAccessAt: number, maxIdleMs: number): number {
  const idle = maxIdleMs > 0 ? lastAccessAt + maxIdleMs : 0;
  if (expiresAt > 0 && idle > 0) return Math.min(expiresAt, idle);
  return expiresAt > 0 ? expiresAt : idle;
}
