// The map endpoints' handlers: GET/HEAD, POST and DELETE of rest/maps/<map>/<key>, DELETE of a
// whole map, and Grid's batch (POST /grid/rest/maps/<map>; its body: map-batch.ts, or the
// binary form of batch-binary.ts). Their paths are rows of route-table.ts. The hot path: no
// closure per request.
// Under /grid/ only, an entry's version is its ETag and writes take conditions and a TTL
// (conditions.ts); /hazelcast/ keeps Hazelcast's contract: those headers are neither sent nor read.
// A path's key is a String key's text; storeKeyOfText makes it the map's store key (map-keys.ts).

import type { RestResponse } from './exchange.js';
import { GridError } from '../core/errors.js';
import { andThenWith, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps, StoredValue } from './context.js';
import { onGridPrefix, parseMapPath } from './paths.js';
import { rawHeader } from './headers.js';
import { restContentType } from '../client/data.js';
import { sendEmpty, sendJson, sendValue } from './respond.js';
import { deadlineOf, etagOf, notModified, parseWriteOptions, queryOf, type WriteOptions } from './conditions.js';
import { storeKeyOfText, textOfStoreKey, type MapBatchEntry, type MapBatchOutcome, type MapUpdate, type MergeEntry, type UpdateResult } from '../map/map-service.js';
import { STATUS_OF } from './status.js';
import { encodeValue, isBatchInvalid, parseBatch, type BatchResult, type ValueEncoding } from './map-batch.js';
import { BINARY_BATCH_TYPE, encodeBinaryResults, isBinaryBatch, parseBinaryBatch, type BatchItem, type ItemResult } from './batch-binary.js';
import { unknown, type Method, type Request, type Route } from './route-kit.js';

/** GET/HEAD rest/maps/<map>/<key>: the value, or 204 when there is none. */
export function getEntry(r: Request, d: RestDeps, [mapName, text]: readonly string[]): MaybePromise<void> {
  const key = storeKeyOfText(text!);
  if (onGridPrefix(r.req.url ?? '')) return getGridEntry(r, d, mapName!, key);
  return andThenWith(d.maps.get(mapName!, key), r.res, answerFound);
}

export function putEntry(r: Request, d: RestDeps, [mapName, text]: readonly string[]): MaybePromise<void> {
  const key = storeKeyOfText(text!);
  if (onGridPrefix(r.req.url ?? '')) {
    const o = writeOptionsOf(r, false);
    if (o !== undefined) {
      const u: MapUpdate = {
        action: 'put',
        condition: o.condition ?? { kind: 'none' },
        value: r.body.toString('latin1'),
        contentType: rawHeader(r.req, 'content-type'),
        ttlMs: o.ttlMs,
        maxIdleMs: o.maxIdleMs,
        returnOld: false,
      };
      return andThenWith(d.maps.update(mapName!, key, u), r.res, answerUpdate);
    }
  }
  return andThenWith(d.maps.put(mapName!, key, r.body.toString('latin1'), rawHeader(r.req, 'content-type')), r.res, send200);
}

export function removeEntry(r: Request, d: RestDeps, [mapName, text]: readonly string[]): MaybePromise<void> {
  const key = storeKeyOfText(text!);
  if (onGridPrefix(r.req.url ?? '')) {
    const o = writeOptionsOf(r, true);
    if (o?.condition !== undefined) {
      return andThenWith(d.maps.update(mapName!, key, { action: 'remove', condition: o.condition, ttlMs: -1, maxIdleMs: -1, returnOld: false }), r.res, answerUpdate);
    }
  }
  return andThenWith(d.maps.remove(mapName!, key), r.res, send200);
}

export function clearMap(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> {
  return d.maps.clear(mapName!).then(() => sendEmpty(r.res, 200));
}

/** A /grid/ write's options, all checked before anything is written; undefined: none given (the plain write). */
function writeOptionsOf(r: Request, isDelete: boolean): WriteOptions | undefined {
  const req = r.req;
  const query = queryOf(req.url ?? '');
  const ifMatch = rawHeader(req, 'if-match');
  const ifNoneMatch = rawHeader(req, 'if-none-match');
  const ttl = rawHeader(req, 'grid-ttl');
  const maxIdle = rawHeader(req, 'grid-max-idle');
  if (query === '' && ifMatch === undefined && ifNoneMatch === undefined && ttl === undefined && maxIdle === undefined) return undefined;
  const o = parseWriteOptions(query, { ifMatch, ifNoneMatch, ttl, maxIdle }, isDelete);
  return o.condition === undefined && o.ttlMs < 0 && o.maxIdleMs < 0 ? undefined : o;
}

/** 200 with the entry's new ETag (none after a delete), or 412 when the condition did not hold (nothing was written). */
function answerUpdate(res: RestResponse, u: UpdateResult): void {
  if (!u.applied) {
    const found = u.old === undefined ? 'the entry is absent' : `the entry's version is ${etagOf(u.old.version ?? 0)}`;
    sendEmpty(res, 412, `precondition failed: ${found}; nothing written`, u.old === undefined ? undefined : ['ETag', etagOf(u.old.version ?? 0)]);
  } else if (u.version < 0) sendEmpty(res, 200);
  else sendEmpty(res, 200, undefined, ['ETag', etagOf(u.version)]);
}

/**
 * GET under /grid/: the read (it counts as an access, for max idle, as every GET does), then the
 * entry's view for its version, deadline and last update. The answer is the view's (one
 * consistent state); an entry gone in between is 204, as if the read came after its removal.
 */
function getGridEntry(r: Request, d: RestDeps, mapName: string, key: string): MaybePromise<void> {
  const ifNoneMatch = rawHeader(r.req, 'if-none-match');
  // Checked before the read: a malformed condition is a 400 whatever the entry.
  if (ifNoneMatch !== undefined) notModified(ifNoneMatch, 0);
  const read = d.maps.get(mapName, key);
  const view = (v: StoredValue | undefined): MaybePromise<void> => (v === undefined ? sendEmpty(r.res, 204) : andThenWith(d.maps.entryView(mapName, key), r, answerView));
  return read instanceof Promise ? read.then(view) : view(read);
}

function answerView(r: Request, e: MergeEntry | undefined): void {
  const res = r.res;
  if (e === undefined) {
    sendEmpty(res, 204);
    return;
  }
  const version = e.version ?? 0;
  const headers: string[] = ['ETag', etagOf(version)];
  if (e.lastUpdateTime > 0) headers.push('Last-Modified', new Date(e.lastUpdateTime).toUTCString());
  const deadline = deadlineOf(e.expiresAt, e.lastAccessAt, e.maxIdleMs ?? 0);
  // Whole seconds, rounded up: an entry shown with 0 left would already be gone.
  if (deadline > 0) headers.push('Grid-Expires-In', String(Math.max(1, Math.ceil((deadline - Date.now()) / 1000))));
  const ifNoneMatch = rawHeader(r.req, 'if-none-match');
  if (ifNoneMatch !== undefined && notModified(ifNoneMatch, version)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  // Content-Type and Content-Length first, in the order of the /hazelcast/ answer; Grid's headers after them.
  const contentType = restContentType(e.contentType);
  const lead = contentType === undefined ? ['Content-Length', String(e.value.length)] : ['Content-Type', contentType, 'Content-Length', String(e.value.length)];
  headers.unshift(...lead);
  res.writeHead(200, headers);
  res.end(e.value, 'latin1');
}

/**
 * POST /grid/rest/maps/<map>: a batch of gets, puts and deletes (docs/data-api.md), as JSON or
 * in the binary form (batch-binary.ts, chosen by the request's Content-Type; the answer takes
 * the request's form). The map service sends it grouped by owner, one member message per
 * owner; on the owner each partition's writes run before its gets (which see them), each write
 * as the same atomic update a single write is (retried on a new owner with its operation id,
 * so a retry never applies twice). Every entry answers for itself: 2xx only for what its owner
 * acknowledged. Under `/hazelcast/` this path stays what Hazelcast answers: a 400 for the
 * missing key.
 */
export async function batch(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> {
  if (!onGridPrefix(r.req.url ?? '')) throw new GridError('BAD_REQUEST', 'missing key: POST needs /rest/maps/<map>/<key>');
  if (isBinaryBatch(rawHeader(r.req, 'content-type'))) {
    const items = parseBinaryBatch(r.body);
    const body = encodeBinaryResults(items, await runBatch(d, mapName!, items));
    r.res.writeHead(200, ['Content-Type', BINARY_BATCH_TYPE, 'Content-Length', String(body.length)]);
    r.res.end(body);
    return;
  }
  const b = parseBatch(r.body);
  // Puts, then deletes, then gets: the answer's three arrays, each in its request order.
  const items: BatchItem[] = [...b.put.map((entry) => ({ kind: 'put' as const, entry })), ...b.delete.map((entry) => ({ kind: 'delete' as const, entry })), ...b.get.map((entry) => ({ kind: 'get' as const, entry }))];
  const results = (await runBatch(d, mapName!, items)).map((res) => jsonResult(res, b.encoding));
  const nPut = b.put.length;
  const nDel = b.delete.length;
  sendJson(r.res, { get: results.slice(nPut + nDel), put: results.slice(0, nPut), delete: results.slice(nPut, nPut + nDel) });
}

/** Every entry's result, in the items' order: refused entries answer 400, the others what their owner answered. */
async function runBatch(d: RestDeps, mapName: string, items: readonly BatchItem[]): Promise<ItemResult[]> {
  const out: ItemResult[] = new Array<ItemResult>(items.length);
  const entries: MapBatchEntry[] = [];
  const at: number[] = [];
  items.forEach((it, i) => {
    const e = it.entry;
    if (isBatchInvalid(e)) {
      out[i] = { key: e.key, status: 400, error: e.invalid };
      return;
    }
    at.push(i);
    if (typeof e === 'string') entries.push(it.kind === 'get' ? { kind: 'get', key: storeKeyOfText(e) } : { kind: 'delete', key: storeKeyOfText(e) });
    else entries.push({ kind: 'put', key: storeKeyOfText(e.key), value: e.value, contentType: e.contentType, ttlMs: e.ttlMs });
  });
  const outcomes = entries.length === 0 ? [] : await d.maps.batch(mapName, entries);
  outcomes.forEach((o, k) => {
    const e = entries[k]!;
    out[at[k]!] = itemResult(e, o);
  });
  return out;
}

function itemResult(e: MapBatchEntry, o: MapBatchOutcome): ItemResult {
  // The entry's key as the request named it (a REST key is always a String).
  const key = textOfStoreKey(e.key) ?? e.key;
  if ('error' in o) return failed(key, o.error);
  if ('update' in o) {
    const u = o.update;
    if (e.kind === 'delete') return { key, status: u.old === undefined ? 404 : 204 };
    return { key, status: u.old === undefined ? 201 : 200, version: u.version };
  }
  const v = o.value;
  if (v === undefined) return { key, status: 404 };
  const ct = restContentType(v.contentType);
  return { key, status: 200, value: v.value, ...(ct === undefined ? {} : { contentType: ct }), ...(v.version === undefined ? {} : { version: v.version }) };
}

/** An entry's result in the JSON form: its value as text or base64 (`encoding`). */
function jsonResult(res: ItemResult, encoding: ValueEncoding): BatchResult {
  const out: BatchResult = res.key === undefined ? { status: res.status } : { key: res.key, status: res.status };
  if (res.value !== undefined) Object.assign(out, encodeValue(res.value, encoding));
  if (res.contentType !== undefined) out.contentType = res.contentType;
  if (res.version !== undefined) out.version = res.version;
  if (res.error !== undefined) out.error = res.error;
  return out;
}

/** An entry that did not run to an answer: its error's status (never 2xx), so the caller knows it may not be applied. */
function failed(key: string, e: unknown): ItemResult {
  if (e instanceof GridError) return { key, status: STATUS_OF[e.code], error: e.message };
  return { key, status: 500, error: e instanceof Error ? e.message : String(e) };
}

/** A map path that no route takes (`tail` after rest/maps/): the name's 400s first, then the missing key. */
export function mapPathRefused(method: Method, rest: string, tail: string): Route {
  const { key } = parseMapPath(tail);
  if (key === undefined) throw new GridError('BAD_REQUEST', `missing key: ${method} needs /rest/maps/<map>/<key>`);
  throw unknown(method, rest);
}

/** A stored value, or 204 when there is none. */
function answerFound(res: RestResponse, v: StoredValue | undefined): void {
  if (v === undefined) sendEmpty(res, 204);
  else sendValue(res, v);
}

function send200(res: RestResponse): void {
  sendEmpty(res, 200);
}
