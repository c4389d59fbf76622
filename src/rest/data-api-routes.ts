// Grid's own data API over HTTP (docs/data-api.md), under `/grid/rest/` only: key and entry
// listings of a map in pages (`GET /grid/rest/maps/<map>?keys|?entries`, the map scan of
// map/map-scan.ts with its opaque cursor) and the lists of maps and queues with their sizes.
// Under `/hazelcast/` these paths answer what Hazelcast's contract says (a 400). Listings show
// String keys only: a key a Hazelcast client wrote as another type (a Long, a byte[], an
// object) has no text a path could name, so a page skips it and counts it in `nonStringKeys`.

import { GridError } from '../core/errors.js';
import { decodeScanCursor, encodeScanCursor, scanScope, textOfStoreKey, type ScanEntry, type ScanPosition } from '../map/map-service.js';
import { restContentType } from '../client/data.js';
import type { ClusterRates, RestDeps } from './context.js';
import { headerSafe, onGridPrefix } from './paths.js';
import { sendJson } from './respond.js';
import type { Request } from './route-kit.js';

/** Entries per page when `limit` is not given. */
export const DEFAULT_SCAN_LIMIT = 100;
/** The largest `limit` accepted. */
export const MAX_SCAN_LIMIT = 1000;
/** Value bytes per page of `?entries`: a page ends early (after at least one entry) past this. */
export const MAX_SCAN_PAGE_BYTES = 4 << 20;

const SCAN_PARAMS = new Set(['keys', 'entries', 'limit', 'cursor', 'prefix']);
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The query string's parameters, each once, percent-decoded as paths are (`+` stays `+`). A
 * parameter given twice or a malformed escape is a 400.
 */
export function parseQuery(url: string): Map<string, string> {
  const out = new Map<string, string>();
  const q = url.indexOf('?');
  if (q === -1) return out;
  const text = url.slice(q + 1);
  if (text.length === 0) return out;
  for (const part of text.split('&')) {
    if (part.length === 0) continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName);
      value = decodeURIComponent(rawValue);
    } catch {
      throw new GridError('BAD_REQUEST', `malformed percent-escape in query parameter "${headerSafe(rawName, 40)}"`);
    }
    if (out.has(name)) throw new GridError('BAD_REQUEST', `query parameter "${headerSafe(name, 40)}" given twice`);
    out.set(name, value);
  }
  return out;
}

/** A page size: a decimal integer in 1..MAX_SCAN_LIMIT. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_SCAN_LIMIT;
  if (!/^[0-9]{1,9}$/.test(raw)) throw new GridError('BAD_REQUEST', `limit must be a whole number from 1 to ${MAX_SCAN_LIMIT}, got "${headerSafe(raw, 40)}"`);
  const n = Number(raw);
  if (n < 1 || n > MAX_SCAN_LIMIT) throw new GridError('BAD_REQUEST', `limit must be from 1 to ${MAX_SCAN_LIMIT}, got ${n}`);
  return n;
}

export interface ScanQuery {
  readonly mode: 'keys' | 'entries';
  readonly limit: number;
  readonly prefix: string | undefined;
  readonly from: ScanPosition;
}

/** The scan a query string asks for (pure; every mistake a 400 that names it). */
export function parseScanQuery(mapName: string, query: Map<string, string>): ScanQuery {
  for (const name of query.keys()) {
    if (!SCAN_PARAMS.has(name)) throw new GridError('BAD_REQUEST', `unknown query parameter "${headerSafe(name, 40)}" (a map listing takes keys or entries, limit, cursor, prefix)`);
  }
  const keys = query.has('keys');
  const entries = query.has('entries');
  if (keys && entries) throw new GridError('BAD_REQUEST', 'keys and entries together: a listing is of keys or of entries, not both');
  if (!keys && !entries) throw new GridError('BAD_REQUEST', 'missing key: GET needs /rest/maps/<map>/<key>, or ?keys or ?entries to list the map');
  const mode = keys ? 'keys' : 'entries';
  if (query.get(mode) !== '') throw new GridError('BAD_REQUEST', `${mode} takes no value (?${mode}, not ?${mode}=${headerSafe(query.get(mode) ?? '', 20)})`);
  const limit = parseLimit(query.get('limit'));
  const rawPrefix = query.get('prefix');
  const prefix = rawPrefix === undefined || rawPrefix === '' ? undefined : rawPrefix;
  const cursor = query.get('cursor');
  const from = cursor === undefined ? { partitionId: 0, after: undefined } : decodeScanCursor(cursor, scanScope(mapName, prefix));
  return { mode, limit, prefix, from };
}

/** Content types whose values are shown as text (when their bytes are UTF-8). */
export function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const t = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return (
    t.startsWith('text/') ||
    t === 'application/json' ||
    t === 'application/xml' ||
    t === 'application/javascript' ||
    t === 'application/x-www-form-urlencoded' ||
    t.endsWith('+json') ||
    t.endsWith('+xml')
  );
}

/** An entry as the listing shows it: its value as text for a text content type, else base64. */
export function entryJson(e: ScanEntry): Record<string, string | null> {
  const contentType = restContentType(e.contentType);
  const bytes = Buffer.from(e.value ?? '', 'latin1');
  if (isTextContentType(contentType)) {
    try {
      return { key: e.key, value: UTF8.decode(bytes), contentType: contentType ?? null };
    } catch {
      // Not UTF-8 after all: base64 below.
    }
  }
  return { key: e.key, value: bytes.toString('base64'), encoding: 'base64', contentType: contentType ?? null };
}

/** GET /grid/rest/maps/<map>?keys|?entries[&limit=][&cursor=][&prefix=]. */
export async function scanMap(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> {
  const url = r.req.url ?? '';
  // Hazelcast's contract has no such endpoint: what /hazelcast/rest/maps/<map> always answered.
  if (!onGridPrefix(url)) throw new GridError('BAD_REQUEST', `missing key: ${r.method} needs /rest/maps/<map>/<key>`);
  const q = parseScanQuery(mapName!, parseQuery(url));
  const page = await d.maps.scan({ mapName: mapName!, from: q.from, limit: q.limit, prefix: q.prefix, values: q.mode === 'entries', maxBytes: MAX_SCAN_PAGE_BYTES });
  const cursor = page.next === undefined ? null : encodeScanCursor(page.next, scanScope(mapName!, q.prefix));
  const shown: ScanEntry[] = [];
  let nonStringKeys = 0;
  for (const e of page.entries) {
    const text = textOfStoreKey(e.key);
    if (text === undefined) nonStringKeys++;
    else shown.push(text === e.key ? e : { ...e, key: text });
  }
  const skipped = nonStringKeys > 0 ? { nonStringKeys } : undefined;
  if (q.mode === 'keys') sendJson(r.res, { keys: shown.map((e) => e.key), cursor, ...skipped });
  else sendJson(r.res, { entries: shown.map(entryJson), cursor, ...skipped });
}

/** How long each member has to answer with its operation rates for a listing. */
export const LIST_RATES_TIMEOUT_MS = 2_000;

/** A rate as listed: per second, two decimals. */
const rate = (v: number | undefined): number => Math.round((v ?? 0) * 100) / 100;

/** The members whose rates are summed, and those that did not answer in time (their share is missing). */
function ratesFrom(rates: ClusterRates): { members: number; unreachable: readonly string[] } {
  return { members: rates.members, unreachable: rates.unreachable };
}

/** GET /grid/rest/maps: the maps that hold entries, with their sizes and operation rates (summed over the members' last second). */
export async function listMaps(r: Request, d: RestDeps): Promise<void> {
  // `rest/maps/` keeps its meaning of the map paths (as under /hazelcast/): a map path without a name.
  if (endsWithSlash(r)) throw new GridError('BAD_REQUEST', 'missing map name');
  noQuery(r);
  const [maps, rates] = await Promise.all([d.maps.mapNames(), d.monitor?.operationRates(LIST_RATES_TIMEOUT_MS)]);
  if (rates === undefined) {
    sendJson(r.res, { maps });
    return;
  }
  sendJson(r.res, {
    maps: maps.map((m) => {
      const x = rates.maps.get(m.name);
      return { ...m, getsPerSecond: rate(x?.[0]), putsPerSecond: rate(x?.[1]), removesPerSecond: rate(x?.[2]) };
    }),
    rates: ratesFrom(rates),
  });
}

/** GET /grid/rest/queues: the queues, with their sizes and operation rates. */
export async function listQueues(r: Request, d: RestDeps): Promise<void> {
  if (endsWithSlash(r)) throw new GridError('BAD_REQUEST', 'missing queue name');
  noQuery(r);
  const [queues, rates] = await Promise.all([d.queues.queueNames(), d.monitor?.operationRates(LIST_RATES_TIMEOUT_MS)]);
  if (rates === undefined) {
    sendJson(r.res, { queues });
    return;
  }
  sendJson(r.res, {
    queues: queues.map((q) => {
      const x = rates.queues.get(q.name);
      return { ...q, offersPerSecond: rate(x?.[0]), pollsPerSecond: rate(x?.[1]) };
    }),
    rates: ratesFrom(rates),
  });
}

function endsWithSlash(r: Request): boolean {
  const url = r.req.url ?? '';
  const q = url.indexOf('?');
  return (q === -1 ? url : url.slice(0, q)).endsWith('/');
}

function noQuery(r: Request): void {
  const q = parseQuery(r.req.url ?? '');
  for (const name of q.keys()) throw new GridError('BAD_REQUEST', `unknown query parameter "${headerSafe(name, 40)}" (this list takes none)`);
}
