// The REST surface's dispatch, compiled from the route table (route-table.ts) at load: which
// endpoint a request is for (its group, whether it reads a body, its handler), the endpoint
// group a path claims before it is parsed, and the route label of metrics. An unknown path or
// method is a 400 (the contract's "syntax not known").

import type { EndpointGroupName } from '../config/types.js';
import { RouteDispatch, type CompiledScope } from './route-dispatch.js';
import { ENDPOINTS } from './route-table.js';
import { PARAMS, SCOPES } from './route-scopes.js';
import type { Method, Route, RouteLabel } from './route-kit.js';

export { authenticatedParams, type Method, type Request, type Route } from './route-kit.js';
export { ENDPOINTS, endpointIndex, type Endpoint } from './route-table.js';
export { endpointOf, patternOf, type CompiledScope } from './route-dispatch.js';

/** The table, compiled: a bad table (a pattern in no scope, an unknown parameter) fails at load. */
export const DISPATCH = new RouteDispatch(ENDPOINTS, SCOPES, PARAMS);

/** The scope of a path after the prefix (encoded, no query string; `grid`: under `/grid/`): look it up once per request. */
export function scopeOf(rest: string, grid = true): CompiledScope | undefined {
  return DISPATCH.scopeOf(rest, grid);
}

/**
 * The endpoint group a path belongs to, from its scope alone: used so that a malformed path
 * inside a disabled group is refused for the group (403), not parsed (400).
 */
export function groupOfPath(rest: string, ...scope: [CompiledScope | undefined] | []): EndpointGroupName | undefined {
  return (scope.length === 0 ? DISPATCH.scopeOf(rest) : scope[0])?.claimedGroup;
}

/**
 * `rest` is the encoded path after the prefix, without query string. A scope passed (even
 * undefined: no scope under that prefix) is used as is; without one, the path's scope under `/grid/`.
 */
export function resolveRoute(method: Method, rest: string, ...scope: [CompiledScope | undefined] | []): Route {
  return DISPATCH.resolve(scope.length === 0 ? DISPATCH.scopeOf(rest) : scope[0], method, rest);
}

/** The route label of a path after its prefix (`rest` as stripPrefix returns it; undefined: no prefix). */
export function routeLabelOf(rest: string | undefined, ...scope: [CompiledScope | undefined] | []): RouteLabel {
  if (rest === undefined) return 'unknown';
  return DISPATCH.labelOf(scope.length === 0 ? DISPATCH.scopeOf(rest) : scope[0], rest);
}
