// What every REST handler file shares: the request, route and handler types, the route labels
// of metrics, the 400 of an unknown endpoint, and the credential checks of endpoints that take
// `<name>&<password>` (body or Basic header).

import type { RestRequest, RestResponse } from './exchange.js';
import type { EndpointGroupName } from '../config/types.js';
import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import { parseBasicAuth } from '../security/credentials.js';
import type { RestDeps } from './context.js';
import { parseParams } from './paths.js';
import { rawHeader } from './headers.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'DELETE';

/** Request methods as request metrics count them and the route table keeps its routes: index = methodIndexOf. */
export const METHOD_LABELS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'other'] as const;

/** A method's slot in METHOD_LABELS (anything unlisted: `other`). */
export function methodIndexOf(method: string | undefined): number {
  switch (method) {
    case 'GET':
      return 0;
    case 'HEAD':
      return 1;
    case 'POST':
      return 2;
    case 'PUT':
      return 3;
    case 'DELETE':
      return 4;
    default:
      return 5;
  }
}

export interface Request {
  readonly req: RestRequest;
  readonly res: RestResponse;
  readonly method: Method;
  /** The request body; empty when the route reads none. */
  readonly body: Buffer;
}

export interface Route {
  readonly group: EndpointGroupName;
  /** Whether the handler needs the body (it is read, within limits, before `run`). */
  readonly readsBody: boolean;
  run(r: Request, deps: RestDeps): MaybePromise<void>;
}

/**
 * The handler of one route of the table (route-table.ts): `path` holds the route's path
 * parameters in pattern order, decoded and checked; `params` the body parameters after the
 * credentials (empty unless the endpoint takes credentials).
 */
export type Handler = (r: Request, d: RestDeps, path: readonly string[], params: readonly string[]) => MaybePromise<void>;

/**
 * The route labels of REST metrics, in index order: a small fixed set (never the path itself:
 * map and queue names, keys are unbounded). Each scope and route of the table names its label.
 */
export const ROUTE_LABELS = [
  'maps', // rest/maps/<map>/<key>, rest/maps/<map>
  'queues', // rest/queues/<queue> offers and rest/queues/<queue>/<timeout> polls
  'queue_stats', // rest/queues/<queue>/size and /stats
  'health', // health, health/*
  'cluster', // rest/cluster, rest/partitions, rest/instance, rest/management/cluster/*
  'admin', // rest/log-level*, rest/config/*, rest/license, rest/tls/*
  'wan', // rest/wan, rest/wan/*
  'cp', // rest/cp-subsystem/*, rest/cp/*
  'metrics', // metrics
  'console', // console, console/* (the web console's files and session)
  'unknown', // anything else (answered 400), a path without prefix, an unsupported method
] as const;
export type RouteLabel = (typeof ROUTE_LABELS)[number];

export const unknown = (method: string, path: string): GridError =>
  new GridError('UNKNOWN_ENDPOINT', `no endpoint ${method} /${path}`);

export const isGet = (m: Method): boolean => m === 'GET' || m === 'HEAD';

/**
 * Body parameters of an endpoint that takes credentials, after checking them. The first two
 * positions are `<name>&<password>`. With an `Authorization: Basic` header the credentials
 * come from the header, and the body may hold either the full positional form (its first two
 * positions are then ignored) or only the parameters after the credentials.
 * Returns the parameters after the credentials.
 */
export function authenticatedParams(r: Request, d: RestDeps, expected: number, min: number): string[] {
  const body = r.body.toString('utf8');
  const basic = parseBasicAuth(rawHeader(r.req, 'authorization'));
  let params: string[];
  let username: string;
  let password: string;
  if (basic !== undefined) {
    if (expected <= 2) params = [];
    else if (countPositions(body, expected) >= min) params = parseParams(body, expected, min).slice(2);
    else params = parseParams(body, expected - 2, Math.max(0, min - 2));
    ({ username, password } = basic);
  } else {
    const all = parseParams(body, expected, min);
    username = all[0]!;
    password = all[1]!;
    params = all.slice(2);
  }
  if (!d.credentials.check(username, password)) {
    throw new GridError('FORBIDDEN', d.credentials.securityEnabled ? 'wrong or missing credentials' : 'first parameter must be the cluster name');
  }
  return params;
}

function countPositions(body: string, cap: number): number {
  let n = 1;
  for (let i = body.indexOf('&'); i !== -1 && n < cap; i = body.indexOf('&', i + 1)) n++;
  return n;
}

/** GET endpoints that the contract protects: Basic credentials when security is enabled. */
export function requireBasicWhenSecured(r: Request, d: RestDeps): void {
  if (!d.credentials.securityEnabled) return;
  const basic = parseBasicAuth(rawHeader(r.req, 'authorization'));
  if (basic === undefined || !d.credentials.check(basic.username, basic.password)) {
    throw new GridError('FORBIDDEN', 'wrong or missing credentials (Authorization: Basic)');
  }
}

export function paramRoute(
  group: EndpointGroupName,
  expected: number,
  min: number,
  handler: (r: Request, d: RestDeps, params: string[]) => Promise<void> | void,
): Route {
  return {
    group,
    readsBody: true,
    run: (r, d) => handler(r, d, authenticatedParams(r, d, expected, min)),
  };
}
