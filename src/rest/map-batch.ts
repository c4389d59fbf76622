// A map batch's request body (POST /grid/rest/maps/<map>), parsed and checked without I/O, and
// the per-entry results it is answered with. Pure so that a unit test can throw any body at it:
// a broken body (not JSON, wrong shape, too many entries) is one GridError and nothing runs;
// a bad entry inside a good body becomes its own 400 result, and the others still run.

import { GridError } from '../core/errors.js';

/** Entries (gets + puts + deletes) one batch may hold; more is a 413 with nothing applied. */
export const MAX_BATCH_ENTRIES = 1000;

/** How a get result carries its value: `auto` as text when the bytes are UTF-8, else base64; `base64` always. */
export type ValueEncoding = 'auto' | 'base64';

/** A checked put: `value` holds the bytes as a latin1 string (how maps store values). */
export interface BatchPut {
  readonly key: string;
  readonly value: string;
  readonly contentType: string | undefined;
  /** -1: the map's default; 0: never expires; > 0: ms from now. */
  readonly ttlMs: number;
}

/** An entry the batch refuses on its own (answered 400, never applied). */
export interface BatchInvalid {
  readonly invalid: string;
  readonly key: string | undefined;
}

export interface BatchRequest {
  readonly get: readonly (string | BatchInvalid)[];
  readonly put: readonly (BatchPut | BatchInvalid)[];
  readonly delete: readonly (string | BatchInvalid)[];
  readonly encoding: ValueEncoding;
}

/** One entry's answer; `status` is what the single request would have answered (or the error's status). */
export interface BatchResult {
  key?: string;
  status: number;
  value?: string;
  encoding?: 'text' | 'base64';
  contentType?: string;
  version?: number;
  error?: string;
}

const TOP_LEVEL = new Set(['get', 'put', 'delete', 'encoding']);
const PUT_FIELDS = new Set(['key', 'value', 'encoding', 'contentType', 'ttl']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The largest TTL in seconds (Hazelcast's limit, Integer.MAX_VALUE seconds). */
const MAX_TTL_SECONDS = 2_147_483_647;

const isInvalid = (e: unknown): e is BatchInvalid => typeof e === 'object' && e !== null && 'invalid' in e;
export { isInvalid as isBatchInvalid };

/** The batch of `body` (UTF-8 JSON). Throws a GridError (BAD_REQUEST, PAYLOAD_TOO_LARGE) when the body as a whole is unusable. */
export function parseBatch(body: Buffer): BatchRequest {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new GridError('BAD_REQUEST', `batch body is not JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new GridError('BAD_REQUEST', 'batch body must be a JSON object with "get", "put" and/or "delete" arrays');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!TOP_LEVEL.has(k)) throw new GridError('BAD_REQUEST', `batch body: unknown field "${k}" (expected get, put, delete, encoding)`);
  const gets = arrayField(o, 'get');
  const puts = arrayField(o, 'put');
  const deletes = arrayField(o, 'delete');
  const total = gets.length + puts.length + deletes.length;
  if (total > MAX_BATCH_ENTRIES) throw new GridError('PAYLOAD_TOO_LARGE', `batch of ${total} entries exceeds the limit of ${MAX_BATCH_ENTRIES} entries per batch; nothing was applied`);
  const enc = o['encoding'];
  if (enc !== undefined && enc !== 'auto' && enc !== 'base64') throw new GridError('BAD_REQUEST', 'batch body: "encoding" must be "auto" or "base64"');
  // A key written twice in one batch has no defined order: the second and later are refused.
  const written = new Set<string>();
  const once = (e: BatchPut | string | BatchInvalid): BatchPut | string | BatchInvalid => {
    if (isInvalid(e)) return e;
    const key = typeof e === 'string' ? e : e.key;
    if (written.has(key)) return { invalid: `key "${key}" is written more than once in this batch`, key };
    written.add(key);
    return e;
  };
  return {
    get: gets.map(checkKey),
    put: puts.map((p) => once(checkPut(p)) as BatchPut | BatchInvalid),
    delete: deletes.map((k) => once(checkKey(k)) as string | BatchInvalid),
    encoding: enc ?? 'auto',
  };
}

function arrayField(o: Record<string, unknown>, name: string): unknown[] {
  const v = o[name];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new GridError('BAD_REQUEST', `batch body: "${name}" must be an array`);
  return v;
}

function checkKey(k: unknown): string | BatchInvalid {
  if (typeof k !== 'string') return { invalid: 'key must be a string', key: undefined };
  if (k.length === 0) return { invalid: 'key must not be empty', key: k };
  return k;
}

function checkPut(p: unknown): BatchPut | BatchInvalid {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return { invalid: 'a put must be an object {key, value, encoding?, contentType?, ttl?}', key: undefined };
  const o = p as Record<string, unknown>;
  const k = checkKey(o['key']);
  if (isInvalid(k)) return k;
  for (const f of Object.keys(o)) if (!PUT_FIELDS.has(f)) return { invalid: `unknown field "${f}" (expected key, value, encoding, contentType, ttl)`, key: k };
  const raw = o['value'];
  if (typeof raw !== 'string') return { invalid: 'value must be a string (text, or base64 with "encoding": "base64")', key: k };
  const enc = o['encoding'] ?? 'text';
  let value: string;
  if (enc === 'text') value = Buffer.from(raw, 'utf8').toString('latin1');
  else if (enc === 'base64') {
    if (raw.length % 4 !== 0 || !BASE64.test(raw)) return { invalid: 'value is not valid base64', key: k };
    value = Buffer.from(raw, 'base64').toString('latin1');
  } else return { invalid: 'encoding must be "text" or "base64"', key: k };
  const ct = o['contentType'];
  if (ct !== undefined && (typeof ct !== 'string' || ct.length === 0 || !/^[\x20-\x7e]+$/.test(ct))) return { invalid: 'contentType must be a non-empty printable ASCII string', key: k };
  const ttl = o['ttl'];
  let ttlMs = -1;
  if (ttl !== undefined) {
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL_SECONDS) return { invalid: `ttl must be whole seconds from 0 (never expires) to ${MAX_TTL_SECONDS}`, key: k };
    ttlMs = ttl * 1000;
  }
  return { key: k, value, contentType: ct, ttlMs };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A stored value (latin1 bytes) as a get result carries it. */
export function encodeValue(value: string, encoding: ValueEncoding): { value: string; encoding: 'text' | 'base64' } {
  const bytes = Buffer.from(value, 'latin1');
  if (encoding === 'auto') {
    try {
      return { value: UTF8.decode(bytes), encoding: 'text' };
    } catch {
      // not UTF-8: base64 below
    }
  }
  return { value: bytes.toString('base64'), encoding: 'base64' };
}
