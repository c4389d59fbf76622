#!/usr/bin/env node
// npm run fuzz -- --cases N [--seed S] [--target member|http|http-diff|http-reference|dial|decoders|client|all]
// client: Hazelcast's client protocol (test/fuzz/client-protocol.test.ts), its decoders and a live member.
// http-reference: the generated REST variations against a real Hazelcast member
// (test/reference/rest-diff.test.ts); only when named, as it needs a JDK and Maven.
// Builds, then runs the fuzz tests of test/fuzz through vitest with FUZZ_* variables (the same
// code `npm test` runs bounded), and prints one summary table. Exits 1 when anything was found.
// With TEST_GRID_BIN set, members run from that build and none is made here.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const TARGETS = ['member', 'http', 'http-diff', 'http-reference', 'dial', 'decoders', 'client', 'all'];

function parseArgs(argv) {
  const out = { cases: 10_000, seed: undefined, target: 'all', dialSeconds: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--cases') out.cases = Number(value());
    else if (a === '--seed') out.seed = Number(value());
    else if (a === '--target') out.target = value();
    else if (a === '--dial-seconds') out.dialSeconds = Number(value());
    else if (a === '--help' || a === '-h') {
      console.log('usage: npm run fuzz -- --cases N [--seed S] [--target member|http|http-diff|http-reference|dial|decoders|client|all] [--dial-seconds S]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(out.cases) || out.cases < 1) throw new Error('--cases must be a positive integer');
  if (out.seed !== undefined && !Number.isInteger(out.seed)) throw new Error('--seed must be an integer');
  if (!TARGETS.includes(out.target)) throw new Error(`--target must be one of ${TARGETS.join(', ')}`);
  return out;
}

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`fuzz: ${e.message}`);
  process.exit(2);
}

// Members run from dist/ (bin/grid.js): build first, unless they run from TEST_GRID_BIN's build.
if (!process.env.TEST_GRID_BIN) {
  const build = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const dir = mkdtempSync(join(tmpdir(), 'grid-fuzz-'));
const summaryFile = join(dir, 'summary.json');
const env = { ...process.env, FUZZ_CASES: String(args.cases), FUZZ_SUMMARY: summaryFile, FUZZ_DECODER_CASES: String(args.cases) };
if (args.seed !== undefined) env.FUZZ_SEED = String(args.seed);
if (args.dialSeconds !== undefined) env.FUZZ_DIAL_SECONDS = String(args.dialSeconds);
const files = [];
env.FUZZ_TARGET = args.target;
if (args.target !== 'decoders' && args.target !== 'http-diff' && args.target !== 'http-reference' && args.target !== 'client') files.push('test/fuzz/cluster-fuzz.test.ts');
if (args.target === 'client' || args.target === 'all') files.push('test/fuzz/client-protocol.test.ts');
if (args.target === 'http-reference') files.push('test/reference/rest-diff.test.ts');
if (args.target === 'http-diff' || args.target === 'all') files.push('test/fuzz/http-diff.test.ts');
if (args.target === 'decoders' || args.target === 'all') files.push('test/fuzz/decoders.test.ts');

const started = Date.now();
const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...files, '--reporter=default'], {
  cwd: root,
  env,
  stdio: 'inherit',
});

const rows = [summaryFile, `${summaryFile}.http-diff.json`, `${summaryFile}.http-reference.json`].flatMap((f) => (existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : []));
rmSync(dir, { recursive: true, force: true });
// differences / node-path losses: the http-diff target's (Grid's HTTP path against node:http); '-' for the others.
const head = ['target', 'seed', 'cases', 'differences', 'node-path losses', 'crashes', 'wedges', 'canary fail', 'internal err', 'RSS start/peak/end MB', 'cases/s'];
const body = rows.map((s) => [
  s.target,
  String(s.seed),
  String(s.cases),
  s.differences === undefined ? '-' : String(s.differences),
  s.nodePathLosses === undefined ? '-' : String(s.nodePathLosses),
  String(s.crashes),
  String(s.wedges),
  String(s.canaryFailures),
  String(s.internalErrors),
  `${s.rssStartMb.toFixed(0)}/${s.rssPeakMb.toFixed(0)}/${s.rssEndMb.toFixed(0)}`,
  s.casesPerSecond.toFixed(0),
]);
const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`\nfuzz summary (${((Date.now() - started) / 1000).toFixed(0)} s; decoder cases are in the vitest output above)`);
console.log([line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n'));
for (const s of rows) {
  for (const f of s.findings) {
    console.log(`- ${f.kind} [${f.target}] case ${f.caseId ?? '?'}${f.label ? ` (${f.label})` : ''}: ${f.detail.split('\n')[0]}`);
    if (f.hex) console.log(`  bytes: ${f.hex.length > 2000 ? `${f.hex.slice(0, 2000)}…` : f.hex}`);
  }
}
process.exit(run.status ?? 1);
