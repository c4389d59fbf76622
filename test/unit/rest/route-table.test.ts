import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointIndex, resolveRoute } from '../../../src/rest/routes.js';

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
