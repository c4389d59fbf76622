import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, resolveRoute, type Endpoint } from '../../../src/rest/routes.js';
import { PARAMS } from '../../../src/rest/route-scopes.js';
import { OPENAPI_VERSION } from '../../../src/rest/route-table.js';
import { openApiDocument, PREFIXES } from '../../../src/rest/openapi.js';
import type { Method } from '../../../src/rest/route-kit.js';

type Operation = { operationId: string; parameters?: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, unknown>; security?: unknown };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, unknown> } };

const doc = openApiDocument(ENDPOINTS, PARAMS, OPENAPI_VERSION) as unknown as Doc & Record<string, unknown>;

/** A concrete request path for an OpenAPI path: each `{name}` filled with a plain segment. */
const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, '1');

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (the validator also rejects a broken copy)', async () => {
    const v = new Validator();
    const res = await v.validate(structuredClone(doc));
    expect(res.errors, String(JSON.stringify(res.errors)).slice(0, 2000)).toBeFalsy();
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
    const broken = structuredClone(doc);
    (broken.paths['/grid/rest/cluster']!.get!.responses as Record<string, unknown>)['200'] = { content: 7 };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has an operation for every method of every route of every row, under both prefixes (but Grid-only rows)', () => {
    let n = 0;
    for (const e of ENDPOINTS) {
      for (const pattern of Object.keys(e.routes)) {
        for (const m of methodsOf(e)) {
          for (const prefix of PREFIXES) {
            const path = `/${prefix}/${pattern.replace(/<([A-Za-z]+)…?>/g, '{$1}')}`;
            const item = Object.entries(doc.paths).find(([p]) => p.replace(/\{[^}]+\}/g, '{}') === path.replace(/\{[^}]+\}/g, '{}'));
            if (e.gridOnly === true && prefix === 'hazelcast') {
              expect(item?.[1][m.toLowerCase()], `${m} ${path}`).toBeUndefined();
              continue;
            }
            expect(item?.[1][m.toLowerCase()], `${m} ${path}`).toBeDefined();
            n++;
          }
        }
      }
    }
    const all = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(all.length).toBe(n);
  });

  it('routes every documented operation back to the row that documents it (the dispatch agrees with the document)', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const rest = concrete(path).replace(/^\/(grid|hazelcast)\//, '');
        const route = resolveRoute(method.toUpperCase() as Method, rest);
        expect(route.group, op.operationId).toBe((op as unknown as Record<string, string>)['x-grid-group']);
      }
    }
  });

  it('documents the common errors with X-Grid-Error on every operation, 413 where a body is read, and Basic where credentials are taken', () => {
    for (const e of ENDPOINTS) {
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (!Object.keys(e.routes).some((p) => concrete(`/grid/${p.replace(/<([A-Za-z]+)…?>/g, '{$1}')}`) === concrete(path).replace(/^\/hazelcast\//, '/grid/'))) continue;
          if (!methodsOf(e).includes(method.toUpperCase() as Method)) continue;
          for (const s of ['400', '403', '500', '503']) expect(op.responses[s], `${s} of ${op.operationId}`).toBeDefined();
          expect(op.responses['413'] !== undefined, `413 of ${op.operationId}`).toBe(e.readsBody);
          expect(op.security !== undefined, `security of ${op.operationId}`).toBe(e.credentials);
          for (const status of Object.keys(e.responses ?? {})) expect(op.responses[status], `${status} of ${op.operationId}`).toBeDefined();
        }
      }
    }
    expect(doc.components.responses['E400']).toMatchObject({ headers: { 'X-Grid-Error': { $ref: '#/components/headers/X-Grid-Error' } } });
  });

  it('names path parameters as their paths do, and documents a key that spans segments', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(item)) expect((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name), op.operationId).toEqual(names);
    }
    const key = doc.paths['/grid/rest/maps/{map}/{key}']!.get!.parameters!.find((p) => p.name === 'key') as unknown as { description: string };
    expect(key.description).toContain('may hold `/`');
  });

  it('documents a row added to the table with no more work', () => {
    const base = ENDPOINTS.find((e) => e.gridOnly !== true && e.head !== false)!;
    const row: Endpoint = { ...base, method: 'GET', path: 'x', routes: { 'rest/maps/<map>/<key…>/meta': () => undefined }, responses: undefined };
    const more = openApiDocument([...ENDPOINTS, row], PARAMS, '1') as unknown as Doc;
    expect(more.paths['/grid/rest/maps/{map}/{key}/meta']?.get?.responses['200']).toBeDefined();
    expect(more.paths['/hazelcast/rest/maps/{map}/{key}/meta']?.head).toBeDefined();
  });

  it('refuses a table where two rows claim one method of one path', () => {
    expect(() => openApiDocument([...ENDPOINTS, ENDPOINTS[0]!], PARAMS, '1')).toThrow(/claimed twice/);
  });
});

function methodsOf(e: Endpoint): Method[] {
  const methods = e.method.split(', ') as Method[];
  if (methods.includes('GET') && e.head !== false) methods.push('HEAD');
  return methods;
}
