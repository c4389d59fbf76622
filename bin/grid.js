#!/usr/bin/env node
// The `grid` command: a thin launcher for the compiled CLI in dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('grid: dist/ is missing; run `npm install` (or `npm run build`) in the Grid checkout first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
await main(process.argv);
