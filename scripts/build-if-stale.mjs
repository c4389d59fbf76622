// `npm start`'s prestart: compile TypeScript into dist/ only when dist/ is out of date, so a
// start after `npm install` (which builds) or an unchanged checkout does not wait for tsc.
// Stale = dist/cli.js missing, a src/*.ts newer than its dist/*.js (or without one), or a
// tsconfig newer than dist/cli.js. The web console (console/ -> dist/console/) is rebuilt on its
// own when its manifest is missing or older than a file of console/.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : -Infinity);

/** The first reason to rebuild, or undefined when dist/ is up to date. */
function staleBecause() {
  const cli = mtime(join(dist, 'cli.js'));
  if (cli === -Infinity) return 'dist/cli.js is missing';
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) {
    if (mtime(join(root, config)) > cli) return `${config} changed`;
  }
  for (const file of sources(src)) {
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    if (mtime(file) > mtime(out)) return `${relative(root, file)} changed`;
  }
  return undefined;
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Why the console's build is out of date, or undefined (also when this checkout has no console/ sources). */
function consoleStaleBecause() {
  const sourcesDir = join(root, 'console');
  if (!existsSync(sourcesDir)) return undefined;
  const built = mtime(join(dist, 'console', 'manifest.json'));
  if (built === -Infinity) return 'dist/console/ is missing';
  for (const file of files(sourcesDir)) if (mtime(file) > built) return `${relative(root, file)} changed`;
  if (mtime(join(root, 'scripts', 'build-console.mjs')) > built) return 'scripts/build-console.mjs changed';
  return undefined;
}

const why = staleBecause();
if (why !== undefined) {
  process.stderr.write(`grid: building dist/ (${why})\n`);
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
}
const consoleWhy = consoleStaleBecause();
if (consoleWhy !== undefined) {
  process.stderr.write(`grid: building dist/console/ (${consoleWhy})\n`);
  execFileSync(process.execPath, [join(root, 'scripts', 'build-console.mjs')], { stdio: 'inherit' });
}
