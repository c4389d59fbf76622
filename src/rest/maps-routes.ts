// The map endpoints' handlers: GET/HEAD, POST and DELETE of rest/maps/<map>/<key>, DELETE of a
// whole map, and Grid's batch (POST /grid/rest/maps/<map>; its body: map-batch.ts). Their
// paths are rows of route-table.ts. The hot path: no closure per request.

import type { RestResponse } from './exchange.js';
import { GridError } from '../core/errors.js';
import { andThenWith, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps, StoredValue } from './context.js';
import { onGridPrefix, parseMapPath } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendValue } from './respond.js';
import { STATUS_OF } from './status.js';
import { restContentType } from '../client/data.js';
import { encodeValue, invalidResult, isBatchInvalid, parseBatch, type BatchPut, type BatchResult, type ValueEncoding } from './map-batch.js';
import { unknown, type Method, type Request, type Route } from './route-kit.js';

/** GET/HEAD rest/maps/<map>/<key>: the value, or 204 when there is none. */
export function getEntry(r: Request, d: RestDeps, [mapName, key]: readonly string[]): MaybePromise<void> {
  return andThenWith(d.maps.get(mapName!, key!), r.res, answerFound);
}

export function putEntry(r: Request, d: RestDeps, [mapName, key]: readonly string[]): MaybePromise<void> {
  return andThenWith(d.maps.put(mapName!, key!, r.body.toString('latin1'), rawHeader(r.req, 'content-type')), r.res, send200);
}

export function removeEntry(r: Request, d: RestDeps, [mapName, key]: readonly string[]): MaybePromise<void> {
  return andThenWith(d.maps.remove(mapName!, key!), r.res, send200);
}

export function clearMap(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> {
  return d.maps.clear(mapName!).then(() => sendEmpty(r.res, 200));
}

/**
 * POST /grid/rest/maps/<map>: a batch of gets, puts and deletes (docs/data-api.md). Writes run
 * first, all at once, each as the same atomic update a single write is (retried on a new owner
 * with its operation id, so a retry never applies twice); then the gets, which see them. Every
 * entry answers for itself: 2xx only for what its owner acknowledged. Under `/hazelcast/` this
 * path stays what Hazelcast answers: a 400 for the missing key.
 */
export async function batch(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> {
  if (!onGridPrefix(r.req.url ?? '')) throw new GridError('BAD_REQUEST', 'missing key: POST needs /rest/maps/<map>/<key>');
  const b = parseBatch(r.body);
  const put = b.put.map((p) => (isBatchInvalid(p) ? invalidResult(p) : putOne(d, mapName!, p)));
  const del = b.delete.map((k) => (isBatchInvalid(k) ? invalidResult(k) : deleteOne(d, mapName!, k)));
  const writes = { put: await Promise.all(put), delete: await Promise.all(del) };
  const get = await Promise.all(b.get.map((k) => (isBatchInvalid(k) ? invalidResult(k) : getOne(d, mapName!, k, b.encoding))));
  sendJson(r.res, { get, ...writes });
}

async function putOne(d: RestDeps, mapName: string, p: BatchPut): Promise<BatchResult> {
  try {
    const u = await d.maps.update(mapName, p.key, { action: 'put', condition: { kind: 'none' }, value: p.value, contentType: p.contentType, ttlMs: p.ttlMs, maxIdleMs: -1, returnOld: false });
    return { key: p.key, status: u.old === undefined ? 201 : 200, version: u.version };
  } catch (e) {
    return failed(p.key, e);
  }
}

async function deleteOne(d: RestDeps, mapName: string, key: string): Promise<BatchResult> {
  try {
    const u = await d.maps.update(mapName, key, { action: 'remove', condition: { kind: 'none' }, ttlMs: -1, maxIdleMs: -1, returnOld: false });
    return { key, status: u.old === undefined ? 404 : 204 };
  } catch (e) {
    return failed(key, e);
  }
}

async function getOne(d: RestDeps, mapName: string, key: string, encoding: ValueEncoding): Promise<BatchResult> {
  try {
    const v = await d.maps.get(mapName, key);
    if (v === undefined) return { key, status: 404 };
    const out: BatchResult = { key, status: 200, ...encodeValue(v.value, encoding) };
    const ct = restContentType(v.contentType);
    if (ct !== undefined) out.contentType = ct;
    if (v.version !== undefined) out.version = v.version;
    return out;
  } catch (e) {
    return failed(key, e);
  }
}

/** An entry that did not run to an answer: its error's status (never 2xx), so the caller knows it may not be applied. */
function failed(key: string, e: unknown): BatchResult {
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
