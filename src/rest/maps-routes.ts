// The map endpoints' handlers: GET/HEAD, POST and DELETE of rest/maps/<map>/<key>, DELETE of a
// whole map (their paths are rows of route-table.ts). The hot path: no closure per request.

import type { RestResponse } from './exchange.js';
import { GridError } from '../core/errors.js';
import { andThenWith, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps, StoredValue } from './context.js';
import { parseMapPath } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendValue } from './respond.js';
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
