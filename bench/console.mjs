// Web console phase (`--only console`): the console's size as built (dist/console/manifest.json,
// raw and gzipped) and its first paint in Debian's headless Chromium on a loopback member:
// navigation timing (response end, DOMContentLoaded), first contentful paint, and the time
// until the Cluster page shows its members, over `ROUNDS` cold loads (a new browser context
// each: empty cache) and as many warm ones (a reload: index.html revalidated, the hashed files
// from the cache). Issue 26's goals: under 300 KB gzipped, first paint under 1 s.
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freePort, log, startChild, tempDirs, waitReady } from './lib.mjs';

export const CONSOLE_PHASES = ['console'];
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/console');
const CHROMIUM = process.env.GRID_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROUNDS = 15;
const GOAL_GZ_BYTES = 300 * 1024;
const GOAL_FIRST_PAINT_MS = 1000;

/** One load's timings, read in the page. */
async function timings(page) {
  await page.waitForSelector('[data-testid=member-row]', { timeout: 10_000 });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return {
      responseEndMs: nav.responseEnd,
      domContentLoadedMs: nav.domContentLoadedEventEnd,
      firstContentfulPaintMs: fcp ? fcp.startTime : NaN,
      membersShownMs: performance.now(),
      transferBytes: performance.getEntriesByType('resource').reduce((s, r) => s + r.transferSize, nav.transferSize),
    };
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const max = (xs) => Math.max(...xs);

function summarize(rows) {
  const keys = ['responseEndMs', 'domContentLoadedMs', 'firstContentfulPaintMs', 'membersShownMs', 'transferBytes'];
  return Object.fromEntries(keys.map((k) => [k, { median: median(rows.map((r) => r[k])), max: max(rows.map((r) => r[k])) }]));
}

export async function runConsole(opts, report) {
  if (!opts.only.includes('console')) return;
  if (!existsSync(path.join(DIST, 'manifest.json'))) throw new Error('console bench: no dist/console (npm run build)');
  const manifest = JSON.parse(readFileSync(path.join(DIST, 'manifest.json'), 'utf8'));
  report.console = { bytes: manifest.bytes, gzipBytes: manifest.gzipBytes, files: manifest.files.length };
  if (!existsSync(CHROMIUM)) {
    report.console.skipped = `no Chromium at ${CHROMIUM}`;
    log(`console: ${report.console.skipped}; size only`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-console-'));
  tempDirs.push(dir);
  const config = path.join(dir, 'grid.yaml');
  const groups = ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'CONSOLE'];
  writeFileSync(config, stringify({ hazelcast: { 'cluster-name': 'bench', network: { port: { port, 'auto-increment': false }, join: { 'tcp-ip': { enabled: false } }, 'rest-api': { enabled: true, 'endpoint-groups': Object.fromEntries(groups.map((g) => [g, { enabled: true }])) } } } }));
  const child = startChild('console member', [...opts.nodeArgs, opts.gridBin, 'start', '--config', config], 'member-console.log');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    await waitReady(child, port);
    const url = `http://127.0.0.1:${port}/grid/console/#/cluster`;
    const cold = [];
    const warm = [];
    for (let i = 0; i < ROUNDS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await ctx.newPage();
      await page.goto(url);
      cold.push(await timings(page));
      await page.reload();
      warm.push(await timings(page));
      await ctx.close();
    }
    report.console = { ...report.console, rounds: ROUNDS, cold: summarize(cold), warm: summarize(warm) };
    log(`console: first contentful paint ${report.console.cold.firstContentfulPaintMs.median.toFixed(0)} ms cold (median)`);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await child.exited;
  }
}

export function consoleProblems(report) {
  const c = report.console;
  if (!c) return false;
  return c.gzipBytes > GOAL_GZ_BYTES || (c.cold !== undefined && c.cold.firstContentfulPaintMs.median > GOAL_FIRST_PAINT_MS);
}

export function renderConsoleReport(report) {
  const c = report.console;
  if (!c) return '';
  const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
  const lines = ['', `Web console: ${c.files} files, ${kb(c.bytes)} (${kb(c.gzipBytes)} gzipped; goal < ${kb(GOAL_GZ_BYTES)})`];
  if (c.skipped) return [...lines, `  first paint not measured: ${c.skipped}`].join('\n');
  const ms = (x) => `${x.median.toFixed(0)} ms (max ${x.max.toFixed(0)})`;
  const row = (cells) => `| ${cells.join(' | ')} |`;
  lines.push(
    `First paint in headless Chromium on a loopback member, ${c.rounds} loads each (median, max; goal: first paint < ${GOAL_FIRST_PAINT_MS} ms):`,
    row(['load', 'response end', 'DOMContentLoaded', 'first contentful paint', 'members shown', 'bytes transferred']),
    row(['---', '---:', '---:', '---:', '---:', '---:']),
    ...[['cold (empty cache)', c.cold], ['warm (reload)', c.warm]].map(([name, s]) =>
      row([name, ms(s.responseEndMs), ms(s.domContentLoadedMs), ms(s.firstContentfulPaintMs), ms(s.membersShownMs), kb(s.transferBytes.median)]),
    ),
  );
  return lines.join('\n');
}
