// docs/architecture.md is the newcomer's map of src/: every source file is named under its
// layer, and every `.ts` file any docs/*.md page names exists. A file added, moved or removed
// without the docs fails here, so the map cannot drift from the tree.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GridError, type GridErrorCode } from '../../src/core/errors.js';
import { STATUS_OF } from '../../src/rest/status.js';
import { REPO_ROOT } from '../support/process.js';

const SRC = join(REPO_ROOT, 'src');
const LAYERS = ['core', 'config', 'protocol', 'security', 'net', 'cluster', 'partition', 'invocation', 'persistence', 'map', 'queue', 'cp', 'wan', 'events', 'metrics', 'client', 'rest', 'member', 'cli'];

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const page = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');

/** The Layers section cut into one block per `**layer/**` heading. */
function layerBlocks(): Map<string, string> {
  const start = page.indexOf('\n## Layers\n');
  const end = page.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(0);
  const section = page.slice(start, end);
  const blocks = new Map<string, string>();
  const heads = [...section.matchAll(/^\*\*([a-z]+)\/\*\*/gm)];
  heads.forEach((h, i) => blocks.set(h[1] ?? '', section.slice(h.index, heads[i + 1]?.index ?? section.length)));
  return blocks;
}

describe('docs/architecture.md maps src/', () => {
  it('has one block per layer, in the order of scripts/check-layers.mjs', () => {
    expect([...layerBlocks().keys()]).toEqual(LAYERS);
  });

  it('names every source file under its own layer', () => {
    const blocks = layerBlocks();
    const missing: string[] = [];
    for (const file of walk(SRC)) {
      const rel = relative(SRC, file);
      const layer = rel === 'cli.ts' ? 'cli' : (rel.split('/')[0] ?? '');
      const block = blocks.get(layer) ?? '';
      if (!new RegExp(`[\`/ ]${basename(rel).replace(/\./g, '\\.')}\\b`).test(block)) missing.push(rel);
    }
    expect(missing).toEqual([]);
  });
});

describe('docs/*.md name only files that exist', () => {
  const known = new Set(
    ['src', 'test', 'scripts', 'bench', 'console'].flatMap((d) =>
      walk(join(REPO_ROOT, d)).map((p) => basename(p)),
    ),
  );
  const docs = readdirSync(join(REPO_ROOT, 'docs')).filter((n) => n.endsWith('.md'));

  it.each(docs)('%s', (name) => {
    const text = readFileSync(join(REPO_ROOT, 'docs', name), 'utf8');
    // A name starts with a letter or digit: `rest/*-routes.ts` is a pattern, `.test.ts` a suffix.
    const named = [...text.matchAll(/(?<![*\w./-])[A-Za-z0-9_][A-Za-z0-9_./-]*\.ts\b/g)].map((m) => m[0]);
    expect(named.filter((n) => !known.has(basename(n)))).toEqual([]);
  });
});

describe('the error table of docs/architecture.md', () => {
  it('names every GridError code once, with the status of rest/status.ts and the retryable flag of core/errors.ts', () => {
    const start = page.indexOf('| Code | Status | Retryable |');
    expect(start).toBeGreaterThan(0);
    const rows = page.slice(start).split('\n').slice(2);
    const seen: { code: string; status: number; retryable: boolean }[] = [];
    for (const row of rows) {
      if (!row.startsWith('|')) break;
      const cells = row.split(' | ');
      expect(cells, row).toHaveLength(3);
      // Codes are the backquoted upper-case names of the first cell (its parentheses explain them).
      const codes = [...(cells[0] ?? '').replace(/\([^)]*\)/g, '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!);
      const status = Number(/^\d{3}/.exec(cells[1] ?? '')?.[0]);
      const retryable = (cells[2] ?? '').replace(/\|$/, '').trim() === 'yes';
      for (const code of codes) seen.push({ code, status, retryable });
    }
    const expected = (Object.keys(STATUS_OF) as GridErrorCode[]).map((code) => ({ code, status: STATUS_OF[code], retryable: new GridError(code, 'x').retryable }));
    const byCode = (a: { code: string }, b: { code: string }): number => a.code.localeCompare(b.code);
    expect(seen.sort(byCode)).toEqual(expected.sort(byCode));
  });
});
