// Pure parsing of request paths and body parameters. Paths are split on the raw (still
// encoded) path, then each piece is percent-decoded as UTF-8 with decodeURIComponent
// semantics: `+` stays `+`, `%2F` is a `/` inside a name or key.

import { GridError } from '../core/errors.js';

const GRID_PREFIX = '/grid/';
const HAZELCAST_PREFIX = '/hazelcast/';
export const PREFIXES = [GRID_PREFIX, HAZELCAST_PREFIX] as const;

/**
 * The path after the `/grid/` or `/hazelcast/` prefix, query string removed, still encoded;
 * undefined when the path has neither prefix. One path is served without a prefix: `/metrics`
 * (Prometheus's default `metrics_path`), which is `metrics` as if it came after one.
 */
export function stripPrefix(url: string): string | undefined {
  if (url.charCodeAt(0) !== 0x2f /* '/' */) {
    // Absolute form (`GET http://host:port/grid/...`), which servers must accept.
    const m = /^https?:\/\/[^/?#]*/i.exec(url);
    if (m === null) return undefined;
    url = url.slice(m[0].length);
  }
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.startsWith(HAZELCAST_PREFIX)) return path.slice(HAZELCAST_PREFIX.length);
  if (path.startsWith(GRID_PREFIX)) return path.slice(GRID_PREFIX.length);
  if (path === '/metrics' || path === '/metrics/') return path.slice(1);
  return undefined;
}

/**
 * Whether a request's path has the `/grid/` prefix (Grid's own endpoints live only there; the
 * `/hazelcast/` paths keep Hazelcast's contract). `url` as sent, absolute form too.
 */
export function onGridPrefix(url: string): boolean {
  if (url.startsWith(GRID_PREFIX)) return true;
  if (url.charCodeAt(0) === 0x2f /* '/' */) return false;
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  return m !== null && url.startsWith(GRID_PREFIX, m[0].length);
}

/** Percent-decode one path piece; a malformed escape is a 400. */
export function decodeSegment(raw: string, what: string): string {
  if (raw.indexOf('%') === -1) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GridError('BAD_REQUEST', `malformed percent-escape in ${what}`);
  }
}

export interface MapPath {
  readonly mapName: string;
  /** undefined when the path names the map only (`/rest/maps/<m>`). */
  readonly key: string | undefined;
}

/**
 * `rest` is the encoded path after `rest/maps/`. The map name is the first segment; the key
 * is the rest after the name's `/`, with one trailing `/` removed, then decoded (so a key
 * may contain `/`). `<m>/` (empty key) is a 400: an empty key is not a key.
 */
export function parseMapPath(rest: string): MapPath {
  const slash = rest.indexOf('/');
  const rawName = slash === -1 ? rest : rest.slice(0, slash);
  if (rawName.length === 0) throw new GridError('BAD_REQUEST', 'missing map name');
  const mapName = decodeSegment(rawName, 'map name');
  if (slash === -1) return { mapName, key: undefined };
  let rawKey = rest.slice(slash + 1);
  if (rawKey.endsWith('/')) rawKey = rawKey.slice(0, -1);
  if (rawKey.length === 0) throw new GridError('BAD_REQUEST', 'missing key (an empty key is not a key)');
  return { mapName, key: decodeSegment(rawKey, 'key') };
}

export interface QueuePath {
  readonly queueName: string;
  /** The (still encoded) segment after the name: a timeout, `size`, or an offered value. */
  readonly rawArg: string | undefined;
}

/** `rest` is the encoded path after `rest/queues/`; one trailing `/` is ignored. */
export function parseQueuePath(rest: string): QueuePath {
  let path = rest;
  if (path.endsWith('/')) path = path.slice(0, -1);
  const slash = path.indexOf('/');
  const rawName = slash === -1 ? path : path.slice(0, slash);
  if (rawName.length === 0) throw new GridError('BAD_REQUEST', 'missing queue name');
  const queueName = decodeSegment(rawName, 'queue name');
  if (slash === -1) return { queueName, rawArg: undefined };
  return { queueName, rawArg: path.slice(slash + 1) };
}

/** A poll timeout in seconds: a non-negative decimal integer. */
export function parseTimeoutSeconds(raw: string): number {
  const s = decodeSegment(raw, 'poll timeout');
  if (!/^\d{1,12}$/.test(s)) {
    throw new GridError('BAD_REQUEST', `poll timeout must be a non-negative whole number of seconds, got "${s}"`);
  }
  return Number(s);
}

/**
 * Positional `&`-separated body parameters, each percent-decoded. Text beyond the last
 * expected parameter belongs to the last one. Fewer than `min` parameters is a 400; the
 * result always has `expected` entries (missing optional ones are '').
 */
export function parseParams(body: string, expected: number, min = expected): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < expected - 1; i++) {
    const amp = body.indexOf('&', from);
    if (amp === -1) break;
    out.push(body.slice(from, amp));
    from = amp + 1;
  }
  out.push(body.slice(from));
  if (out.length < min) {
    throw new GridError('BAD_REQUEST', `expected ${min} parameters separated by "&", got ${out.length}`);
  }
  while (out.length < expected) out.push('');
  return out.map((p, i) => decodeParam(p, i));
}

function decodeParam(raw: string, index: number): string {
  if (raw.indexOf('%') === -1) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GridError('BAD_REQUEST', `malformed percent-escape in parameter ${index + 1}`);
  }
}

/** A header-safe one-line rendering of any text (for X-Grid-Error). */
export function headerSafe(text: string, maxLength = 300): string {
  let out = '';
  let i = 0;
  for (; i < text.length && out.length < maxLength; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) out += text[i];
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  // Mark only real truncation: text left over, or an escape that ran past the limit.
  return i < text.length || out.length > maxLength ? `${out.slice(0, maxLength)}...` : out;
}
