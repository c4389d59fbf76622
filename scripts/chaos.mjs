#!/usr/bin/env node
// `npm run chaos -- [--minutes 10] [--members 3] [--seed N] [--faults kill,pause,longpause,partition] [--clients 4]`:
// builds dist/ (the members run `node bin/grid.js start`), then runs the long chaos test
// (test/chaos/long.chaos.ts) under vitest with the flags as CHAOS_* variables, and prints its
// summary table. The members run from a copy of the build in test-results/chaos-build/.
// Exit status 1 when anything acknowledged was lost or reverted. See the
// "Chaos suite" section of docs/clustering.md.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('.', import.meta.url).pathname, '..');
const FLAGS = { minutes: 'CHAOS_MINUTES', members: 'CHAOS_MEMBERS', seed: 'CHAOS_SEED', faults: 'CHAOS_FAULTS', clients: 'CHAOS_CLIENTS' };

function usage(message) {
  if (message) console.error(`chaos: ${message}`);
  console.error('usage: npm run chaos -- [--minutes 10] [--members 3..5] [--seed N] [--faults kill,pause,longpause,partition] [--clients 4]');
  process.exit(2);
}

const env = { ...process.env };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--help' || arg === '-h') usage();
  const [name, inline] = arg.replace(/^--/, '').split('=', 2);
  if (!arg.startsWith('--') || !(name in FLAGS)) usage(`unknown argument ${arg}`);
  const value = inline ?? args[++i];
  if (value === undefined) usage(`--${name} needs a value`);
  env[FLAGS[name]] = value;
}
const minutes = Number(env.CHAOS_MINUTES ?? 10);
const members = Number(env.CHAOS_MEMBERS ?? 3);
if (!(minutes > 0)) usage(`--minutes must be a positive number, got ${env.CHAOS_MINUTES}`);
if (!Number.isInteger(members) || members < 3 || members > 5) usage(`--members must be 3, 4 or 5, got ${env.CHAOS_MEMBERS}`);
if (env.CHAOS_SEED !== undefined && !/^\d+$/.test(env.CHAOS_SEED)) usage(`--seed must be a whole number, got ${env.CHAOS_SEED}`);
if (env.CHAOS_CLIENTS !== undefined && !/^[1-9]\d*$/.test(env.CHAOS_CLIENTS)) usage(`--clients must be a positive whole number`);
env.CHAOS_SEED ??= String(Date.now() % 1_000_000_000);
env.CHAOS_SUMMARY = join(mkdtempSync(join(tmpdir(), 'grid-chaos-')), 'summary.md');

const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// Members run from a snapshot of this build (inside the checkout, so node_modules resolves):
// rebuilding during the run does not put two versions in one cluster.
const snapshot = join(root, 'test-results', 'chaos-build');
rmSync(snapshot, { recursive: true, force: true });
for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(snapshot, part), { recursive: true });
env.TEST_GRID_BIN = join(snapshot, 'bin', 'grid.js');

console.error(`chaos: seed ${env.CHAOS_SEED} (replay the same fault sequence with --seed ${env.CHAOS_SEED})`);
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/chaos/vitest.chaos.config.ts'],
  { cwd: root, env, stdio: 'inherit' },
);
if (existsSync(env.CHAOS_SUMMARY)) {
  console.log(`\n${readFileSync(env.CHAOS_SUMMARY, 'utf8')}`);
  console.log(`(summary saved in ${env.CHAOS_SUMMARY})`);
}
process.exit(run.status ?? 1);
