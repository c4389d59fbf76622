#!/usr/bin/env node
// Copies the console screenshots the end-to-end tests saved (test-results/console/<page>.png,
// test/console/console.test.ts) to docs/img/console-<page>.png, where docs/console.md shows
// them. Run the tests first: npx vitest run test/console/console.test.ts.

import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const from = join(root, 'test-results', 'console');
const to = join(root, 'docs', 'img');
if (!existsSync(from)) {
  console.error(`no screenshots in ${from}: run npx vitest run test/console/console.test.ts first`);
  process.exit(1);
}
mkdirSync(to, { recursive: true });
const shots = readdirSync(from).filter((n) => n.endsWith('.png')).sort();
for (const n of shots) copyFileSync(join(from, n), join(to, `console-${n}`));
console.log(`copied ${shots.length} screenshots to docs/img/: ${shots.map((n) => `console-${n}`).join(', ')}`);
