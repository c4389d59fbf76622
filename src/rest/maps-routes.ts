// The map endpoints: GET/HEAD, POST and DELETE of rest/maps/<map>/<key>, DELETE of a whole
// map. The hot path: one MapKeyRoute object per request, no closures.

import type { RestResponse } from './exchange.js';
import { GridError } from '../core/errors.js';
import { andThenWith, type MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps, StoredValue } from './context.js';
import { parseMapPath } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendValue } from './respond.js';
import type { Method, Request, Route } from './route-kit.js';

export function mapRoute(method: Method, rest: string): Route {
  const { mapName, key } = parseMapPath(rest);
  if (key === undefined) {
    if (method !== 'DELETE') throw new GridError('BAD_REQUEST', `missing key: ${method} needs /rest/maps/<map>/<key>`);
    return {
      group: 'DATA',
      readsBody: false,
      run: (r, d) => d.maps.clear(mapName).then(() => sendEmpty(r.res, 200)),
    };
  }
  return new MapKeyRoute(method, mapName, key);
}

/** GET/HEAD, POST and DELETE of one map key: one object per request, no closures on the way. */
class MapKeyRoute implements Route {
  readonly group = 'DATA';
  readonly readsBody: boolean;

  constructor(
    private readonly method: Method,
    private readonly mapName: string,
    private readonly key: string,
  ) {
    this.readsBody = method === 'POST';
  }

  run(r: Request, d: RestDeps): MaybePromise<void> {
    switch (this.method) {
      case 'GET':
      case 'HEAD':
        return andThenWith(d.maps.get(this.mapName, this.key), r.res, answerFound);
      case 'POST':
        return answerDone(r.res, d.maps.put(this.mapName, this.key, r.body.toString('latin1'), rawHeader(r.req, 'content-type')));
      case 'DELETE':
        return answerDone(r.res, d.maps.remove(this.mapName, this.key));
    }
  }
}

/** A stored value, or 204 when there is none. */
function answerFound(res: RestResponse, v: StoredValue | undefined): void {
  if (v === undefined) sendEmpty(res, 204);
  else sendValue(res, v);
}

/** An empty 200 once `work` is done. */
function answerDone(res: RestResponse, work: MaybePromise<unknown>): MaybePromise<void> {
  return andThenWith(work, res, send200);
}

function send200(res: RestResponse): void {
  sendEmpty(res, 200);
}
