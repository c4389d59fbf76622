import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointIndex, endpointOf, groupOfPath, patternOf, resolveRoute, routeLabelOf, scopeOf, type Endpoint } from '../../../src/rest/routes.js';
import { RouteDispatch } from '../../../src/rest/route-dispatch.js';
import { PARAMS, SCOPES, type Scope } from '../../../src/rest/route-scopes.js';
import { expectGridError } from './helpers.js';

const doc = readFileSync(new URL('../../../docs/rest-api.md', import.meta.url), 'utf8');

/** The "Endpoint summary" table of docs/rest-api.md, as written. */
function docIndex(): string {
  const start = doc.indexOf('| Method | Path | Group | Params | Answer |');
  expect(start, 'docs/rest-api.md has its endpoint index').toBeGreaterThan(-1);
  const end = doc.indexOf('\n\n', start);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe('the route table', () => {
  it('is the endpoint index of docs/rest-api.md, row for row', () => {
    const want = endpointIndex().split('\n');
    const got = docIndex().split('\n');
    for (let i = 0; i < Math.max(want.length, got.length); i++) expect(got[i], `row ${i + 1} of the doc's index`).toBe(want[i]);
  });

  it('renders a changed entry as a different index (the doc check can fail)', () => {
    const changed = ENDPOINTS.map((e, i) => (i === 0 ? { ...e, group: 'CLUSTER_READ' as const } : e));
    expect(endpointIndex(changed)).not.toBe(docIndex());
  });

  it.each(ENDPOINTS.flatMap((e) => e.examples.map(([method, path]) => ({ e, method, path }))))('$method $path resolves to its entry: group and body', ({ e, method, path }) => {
    const route = resolveRoute(method, path);
    expect(route.group).toBe(e.group);
    expect(route.readsBody).toBe(e.readsBody);
  });

  it('takes credentials exactly where the entry counts `&` parameters, and those read their body', () => {
    for (const e of ENDPOINTS) {
      expect(e.credentials, e.path).toBe(/^\d/.test(e.params));
      if (e.credentials) expect(e.readsBody, e.path).toBe(true);
    }
  });

  it('lists every method a row names with at least one example', () => {
    for (const e of ENDPOINTS) {
      const methods = new Set(e.examples.map(([m]) => m));
      for (const m of e.method.split(', ')) expect(methods.has(m as never), `${e.method} ${e.path}`).toBe(true);
    }
  });
});

describe('the dispatch compiled from the table', () => {
  const examples = ENDPOINTS.flatMap((e) => e.examples.map(([method, path]) => ({ e, method, path })));

  it.each(examples)('$method $path resolves to its own entry, and to it with a trailing `/` too', ({ e, method, path }) => {
    expect(endpointOf(resolveRoute(method, path))).toBe(e);
    // Maps keep a trailing `/` (it ends the key); everywhere else one trailing `/` is not part of the path.
    if (!path.startsWith('rest/maps/')) expect(endpointOf(resolveRoute(method, `${path}/`))).toBe(e);
  });

  it('reaches every route pattern of an entry with one of its examples', () => {
    for (const e of ENDPOINTS) {
      const reached = new Set(e.examples.map(([method, path]) => patternOf(resolveRoute(method, path))));
      for (const p of Object.keys(e.routes)) expect(reached.has(p), `${e.path}: ${p}`).toBe(true);
    }
  });

  it('gives each example the label of its entry or scope, and the coarse group of a claiming scope', () => {
    for (const { e, path } of examples) {
      const scope = SCOPES.find((s) => scopeOf(path)?.scope === s)!;
      expect(scope, path).toBeDefined();
      expect(routeLabelOf(path), path).toBe(e.label ?? scope.label);
      expect(groupOfPath(path), path).toBe(scope.claimsGroup ? e.group : undefined);
    }
  });

  it('answers 400 where no scope takes the path, for either prefix spelling of it', () => {
    expectGridError(() => resolveRoute('GET', 'rest/nothing'), 'UNKNOWN_ENDPOINT', 'no endpoint GET /rest/nothing');
    expect(scopeOf('rest/nothing')).toBeUndefined();
    expect(routeLabelOf('rest/nothing')).toBe('unknown');
  });

  it('refuses a table with a pattern in no scope, an unknown parameter or a claimed scope of two groups', () => {
    const row = ENDPOINTS[0]!;
    const bad = (routes: Endpoint['routes'], scopes: readonly Scope[] = SCOPES) => () => new RouteDispatch([{ ...row, routes }], scopes, PARAMS);
    const handler = Object.values(row.routes)[0]!;
    expect(bad({ 'rest/nowhere/<map>': handler })).toThrow(/in 0 scopes/);
    expect(bad({ 'rest/maps/<nope>/<key…>': handler })).toThrow(/no PARAMS entry for <nope>/);
    expect(bad({ 'rest/maps/<key…>/x': handler })).toThrow(/must end/);
    const mixed = () => new RouteDispatch([row, { ...row, group: 'CP' }], SCOPES, PARAMS);
    expect(mixed).toThrow(/claims a group/);
  });
});
