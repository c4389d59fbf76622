// The route table (route-table.ts) compiled, once at load, into the dispatch: scopes indexed by
// the first character of a path's first segment (of its second when the first is `rest`), and
// in each scope, per method, its routes as segment lists. A request costs one array lookup, a
// prefix check or two and a walk over the few routes of its scope and method; its group, body
// handling, handler and metrics label all come from the rows it matched.

import type { EndpointGroupName } from '../config/types.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { RestDeps } from './context.js';
import { METHOD_LABELS, authenticatedParams, methodIndexOf, unknown, type Handler, type Method, type Request, type Route, type RouteLabel } from './route-kit.js';
import { REST } from './route-paths.js';
import type { Endpoint } from './route-table.js';
import type { ParamSpec, Scope } from './route-scopes.js';

/** One segment of a pattern: a literal, or a parameter (one segment, or with `rest` the rest of the path). One shape for all, so the match loop stays monomorphic. */
interface Segment {
  readonly literal: string | undefined;
  readonly param: ParamSpec | undefined;
  readonly rest: boolean;
}

interface CompiledRoute {
  readonly endpoint: Endpoint;
  readonly pattern: string;
  readonly group: EndpointGroupName;
  readonly readsBody: boolean;
  readonly label: RouteLabel;
  /** The pattern after its scope's prefix: literal segments and parameters. */
  readonly segments: readonly Segment[];
  readonly run: (r: Request, d: RestDeps, path: readonly string[]) => MaybePromise<void>;
}

export interface CompiledScope {
  readonly scope: Scope;
  /** The routes' one group when the scope claims it (groupOfPath), else undefined. */
  readonly claimedGroup: EndpointGroupName | undefined;
  /** methodIndexOf -> the scope's routes for that method, in table order. */
  readonly byMethod: readonly (readonly CompiledRoute[])[];
  /** Routes whose label is not the scope's, whatever their method (the label does not depend on it). */
  readonly labelled: readonly CompiledRoute[];
}

const METHODS: readonly Method[] = ['GET', 'HEAD', 'POST', 'DELETE'];
const NO_PARAMS: readonly string[] = [];
const SLASH = 0x2f;

/** A request that matched a route: its bound path parameters ride along to the handler. */
class TableRoute implements Route {
  readonly group: EndpointGroupName;
  readonly readsBody: boolean;

  constructor(
    readonly route: CompiledRoute,
    private readonly path: readonly string[],
  ) {
    this.group = route.group;
    this.readsBody = route.readsBody;
  }

  run(r: Request, d: RestDeps): MaybePromise<void> {
    return this.route.run(r, d, this.path);
  }
}

/** The endpoint a route resolved from the table belongs to (undefined for a scope's `otherwise` answer). */
export function endpointOf(route: Route): Endpoint | undefined {
  return route instanceof TableRoute ? route.route.endpoint : undefined;
}

/** The pattern a route resolved from the table matched (undefined for a scope's `otherwise` answer). */
export function patternOf(route: Route): string | undefined {
  return route instanceof TableRoute ? route.route.pattern : undefined;
}

/**
 * The index slot of a path: the character after `rest/`, or the first one of a path outside
 * rest/ (one bucket per character, no string built). A bucket's few scopes are then told
 * apart by their prefixes, which all end at a segment boundary.
 */
function slotOf(path: string): number {
  return path.startsWith(REST) ? 128 + (path.charCodeAt(REST.length) & 127) : path.charCodeAt(0) & 127;
}

export class RouteDispatch {
  /** slotOf -> the scopes whose prefix has that slot, exact ones first. */
  private readonly index: CompiledScope[][] = Array.from({ length: 256 }, () => []);

  constructor(
    endpoints: readonly Endpoint[],
    scopes: readonly Scope[],
    params: Readonly<Record<string, ParamSpec>>,
  ) {
    const routes = new Map<Scope, { route: CompiledRoute; methods: readonly Method[] }[]>(scopes.map((s) => [s, []]));
    for (const e of endpoints) {
      const methods = methodsOf(e);
      const counts = credentialCounts(e);
      for (const [pattern, handler] of Object.entries(e.routes)) {
        const scope = scopeOfPattern(scopes, pattern);
        const segments = compilePattern(pattern.slice(tailStart(scope, pattern)), params, pattern);
        const route: CompiledRoute = {
          endpoint: e,
          pattern,
          group: e.group,
          readsBody: e.readsBody,
          label: e.label ?? scope.label,
          segments,
          run: runnerOf(handler, counts, scope.guard),
        };
        routes.get(scope)!.push({ route, methods });
      }
    }
    for (const scope of scopes) {
      const all = routes.get(scope)!;
      const groups = new Set(all.map((x) => x.route.group));
      if (scope.claimsGroup && groups.size !== 1) throw new Error(`route table: scope ${scope.prefix} claims a group but its routes have ${[...groups].join(', ') || 'none'}`);
      // Indexed by methodIndexOf, as request metrics count methods; PUT's slot stays empty (PUT is
      // resolved as POST) and so does `other`.
      const byMethod: CompiledRoute[][] = METHOD_LABELS.map(() => []);
      for (const m of METHODS) byMethod[methodIndexOf(m)] = all.filter((x) => x.methods.includes(m)).map((x) => x.route);
      const compiled: CompiledScope = {
        scope,
        claimedGroup: scope.claimsGroup ? [...groups][0] : undefined,
        byMethod,
        labelled: all.map((x) => x.route).filter((r) => r.label !== scope.label),
      };
      const list = this.index[slotOf(scope.prefix)]!;
      // An exact scope goes first: `rest/wan/` is rest/wan's, not an empty path under rest/wan/.
      if (scope.shape === 'exact') list.unshift(compiled);
      else list.push(compiled);
    }
  }

  /** The scope a path (after the prefix, still encoded) belongs to, if any; `grid`: the path came under `/grid/` (where Grid's own scopes are). */
  scopeOf(rest: string, grid = true): CompiledScope | undefined {
    const list = this.index[slotOf(rest)]!;
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      const p = c.scope.prefix;
      if (!rest.startsWith(p) || (!grid && c.scope.gridOnly === true)) continue;
      switch (c.scope.shape) {
        case 'under':
          return c;
        case 'tree':
          if (rest.length === p.length || rest.charCodeAt(p.length) === SLASH) return c;
          break;
        case 'exact':
          if (rest.length === p.length || (rest.length === p.length + 1 && rest.charCodeAt(p.length) === SLASH)) return c;
          break;
      }
    }
    return undefined;
  }

  /** The metrics route label of a path: its matching route's, else its scope's. */
  labelOf(c: CompiledScope | undefined, rest: string): RouteLabel {
    if (c === undefined) return 'unknown';
    if (c.labelled.length === 0) return c.scope.label;
    const path = pathIn(c.scope, rest);
    const from = tailStart(c.scope, path);
    for (const route of c.labelled) if (capture(route, path, from) !== undefined) return route.label;
    return c.scope.label;
  }

  /** The route of a request: the first route of its scope and method that matches, else the scope's `otherwise` (a 400 where there is no scope). */
  resolve(c: CompiledScope | undefined, method: Method, rest: string): Route {
    if (c === undefined) throw unknown(method, rest);
    const path = pathIn(c.scope, rest);
    const from = tailStart(c.scope, path);
    const routes = c.byMethod[methodIndexOf(method)]!;
    for (let i = 0; i < routes.length; i++) {
      const route = routes[i]!;
      const raw = capture(route, path, from);
      if (raw === undefined) continue;
      return new TableRoute(route, bind(route, raw));
    }
    return c.scope.otherwise(method, rest, path, path.slice(from));
  }
}

function methodsOf(e: Endpoint): Method[] {
  const methods = e.method.split(', ') as Method[];
  for (const m of methods) if (!METHODS.includes(m) || m === 'HEAD') throw new Error(`route table: method ${m} of ${e.path}`);
  if (methods.includes('GET') && e.head !== false) methods.push('HEAD');
  return methods;
}

/** `[expected, min]` body parameters of an endpoint that takes credentials: `2`, or `2 or 3`. */
function credentialCounts(e: Endpoint): readonly [number, number] | undefined {
  if (!e.credentials) return undefined;
  const m = /^(\d+)(?: or (\d+))?$/.exec(e.params);
  if (m === null) throw new Error(`route table: ${e.path} takes credentials but its params "${e.params}" are not a count`);
  const min = Number(m[1]);
  return [m[2] === undefined ? min : Number(m[2]), min];
}

function runnerOf(handler: Handler, counts: readonly [number, number] | undefined, guard: ((d: RestDeps) => void) | undefined): CompiledRoute['run'] {
  if (counts === undefined && guard === undefined) return (r, d, path) => handler(r, d, path, NO_PARAMS);
  if (counts === undefined) {
    return (r, d, path) => {
      guard!(d);
      return handler(r, d, path, NO_PARAMS);
    };
  }
  const [expected, min] = counts;
  return (r, d, path) => {
    const params = authenticatedParams(r, d, expected, min);
    guard?.(d);
    return handler(r, d, path, params);
  };
}

function scopeOfPattern(scopes: readonly Scope[], pattern: string): Scope {
  const owners = scopes.filter((s) => {
    if (!pattern.startsWith(s.prefix)) return false;
    if (s.shape === 'exact') return pattern.length === s.prefix.length;
    if (s.shape === 'tree') return pattern.length === s.prefix.length || pattern.charCodeAt(s.prefix.length) === SLASH;
    return true;
  });
  if (owners.length !== 1) throw new Error(`route table: pattern ${pattern} is in ${owners.length} scopes`);
  return owners[0]!;
}

/** A path as its scope's routes match it: one trailing `/` removed unless the scope keeps it. */
function pathIn(scope: Scope, rest: string): string {
  return scope.keepsSlash !== true && rest.length > scope.prefix.length && rest.charCodeAt(rest.length - 1) === SLASH ? rest.slice(0, -1) : rest;
}

/** Where a path's part after its scope's prefix starts (after the `/` that follows a tree's or exact scope's prefix). */
function tailStart(scope: Scope, path: string): number {
  const p = scope.prefix.length;
  return scope.shape !== 'under' && path.charCodeAt(p) === SLASH ? p + 1 : p;
}


function compilePattern(tail: string, params: Readonly<Record<string, ParamSpec>>, pattern: string): Segment[] {
  if (tail === '') return [];
  const parts = tail.split('/');
  return parts.map((part, i): Segment => {
    const m = /^<([A-Za-z]+)(…)?>$/.exec(part);
    if (m === null) {
      if (/[<>…]/.test(part)) throw new Error(`route table: malformed segment ${part} of ${pattern}`);
      return { literal: part, param: undefined, rest: false };
    }
    const param = params[m[1]!];
    if (param === undefined) throw new Error(`route table: no PARAMS entry for <${m[1]!}> of ${pattern}`);
    const rest = m[2] !== undefined;
    if (rest && i !== parts.length - 1) throw new Error(`route table: <${m[1]!}…> must end ${pattern}`);
    return { literal: undefined, param, rest };
  });
}

/** The raw text of a route's parameters when `path` from `from` on has the route's shape, else undefined. */
function capture(route: CompiledRoute, path: string, from: number): string[] | undefined {
  const segs = route.segments;
  const length = path.length;
  if (segs.length === 0) return from >= length ? [] : undefined;
  const raw: string[] = [];
  let at = from;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    let end: number;
    if (s.rest) end = length;
    else {
      end = path.indexOf('/', at);
      if (i === segs.length - 1) {
        if (end !== -1) return undefined;
        end = length;
      } else if (end === -1) return undefined;
    }
    const literal = s.literal;
    if (literal !== undefined) {
      if (end - at !== literal.length || !path.startsWith(literal, at)) return undefined;
    } else {
      const text = path.slice(at, end);
      const accepts = s.param!.accepts;
      if (accepts !== undefined && !accepts(text)) return undefined;
      raw.push(text);
    }
    at = end + 1;
  }
  return raw;
}

function bind(route: CompiledRoute, raw: string[]): readonly string[] {
  const segs = route.segments;
  let n = 0;
  for (let i = 0; i < segs.length; i++) {
    const param = segs[i]!.param;
    if (param === undefined) continue;
    raw[n] = param.bind(raw[n]!);
    n++;
  }
  return raw;
}
