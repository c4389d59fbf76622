#!/usr/bin/env node
// Builds the web console (console/, docs/console.md) into dist/console/: one minified,
// content-hashed script and stylesheet bundled by esbuild, an index.html naming them, a gzip of
// each file (the member serves those to browsers that accept gzip) and manifest.json, which
// the member reads once at start (src/rest/console-assets.ts). Prints the size gzipped.
// Nothing is fetched at run time: no CDN, no web fonts.

import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync, constants } from 'node:zlib';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const out = join(root, 'dist', 'console');
/** The goal of issue 26: the whole console under 300 KB gzipped. */
const BUDGET_GZ_BYTES = 300 * 1024;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(root, 'console', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  outdir: out,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  // Pages loaded on first visit (pages/index.ts's lazyPage) are chunks of their own: the first
  // paint loads the shell and the Cluster page only, not every page's libraries (uPlot).
  splitting: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(root, 'console', 'tsconfig.json'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint !== undefined && o.entryPoint.endsWith('main.tsx'));
const script = entry === undefined ? undefined : resolve(root, entry[0]);
const style = entry?.[1].cssBundle === undefined ? undefined : resolve(root, entry[1].cssBundle);
if (script === undefined) throw new Error('build-console: esbuild wrote no script');
const name = (p) => p.slice(out.length + 1);

const template = readFileSync(join(root, 'console', 'index.html'), 'utf8');
const html = template
  .replace('<!--style-->', style === undefined ? '' : `<link rel="stylesheet" href="${name(style)}">`)
  .replace('<!--script-->', `<script type="module" src="${name(script)}"></script>`);
writeFileSync(join(out, 'index.html'), html);

const files = [];
let raw = 0;
let gz = 0;
for (const f of readdirSync(out).sort()) {
  const body = readFileSync(join(out, f));
  const z = gzipSync(body, { level: constants.Z_BEST_COMPRESSION });
  writeFileSync(join(out, `${f}.gz`), z);
  files.push({ name: f, hashed: f !== 'index.html', bytes: body.length, gzipBytes: z.length });
  raw += body.length;
  gz += z.length;
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ files, bytes: raw, gzipBytes: gz }, null, 1));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`console: ${files.length} files in dist/console, ${kb(raw)} (${kb(gz)} gzipped; budget ${kb(BUDGET_GZ_BYTES)})`);
if (gz > BUDGET_GZ_BYTES) {
  console.error(`console: over its budget of ${kb(BUDGET_GZ_BYTES)} gzipped`);
  process.exit(1);
}
