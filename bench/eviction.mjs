// Eviction phase (`--only eviction`): the map service in a child process of its own (no HTTP, so
// the figures are the map's own cost), for a map bounded by eviction (PER_NODE, LRU):
//   - put throughput of a full, evicting map against a map that is not full (ratio);
//   - resident memory held while a bounded map takes 10x its size, against the same entries
//     in an unbounded map of that size;
//   - accuracy on a skewed (Zipf) workload: the hit ratio of Grid's sampled LRU against exact
//     LRU at the same capacity, and the share of sampled evictions exact LRU would also have made.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtInt, log } from './lib.mjs';

export const EVICTION_PHASES = ['eviction'];
const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(HERE, '../dist');

const SIZE = 100_000;
const VALUE = 'v'.repeat(100);

async function service(maps) {
  const { configFromObject } = await import(pathToFileURL(path.join(DIST, 'config/index.js')).href);
  const { MapService } = await import(pathToFileURL(path.join(DIST, 'map/map-service.js')).href);
  const { systemClock } = await import(pathToFileURL(path.join(DIST, 'core/clock.js')).href);
  const noop = () => undefined;
  const logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => logger };
  const invoker = { invoke: (_pid, op) => op.run() };
  return new MapService({ config: configFromObject({ map: maps }).config, invoker, clock: systemClock, logger });
}

const bounded = { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_NODE', size: SIZE } };

/** Puts per second of `n` new keys into `map`. */
function putRate(svc, map, prefix, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) svc.put(map, `${prefix}${i}`, VALUE, undefined);
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function childThroughput() {
  const svc = await service({ full: bounded });
  // 'full' is filled to its bound first; 'fresh' (no eviction) gets the same number of new keys from empty.
  putRate(svc, 'full', 'warm', SIZE * 2);
  const rounds = [];
  for (let r = 0; r < 3; r++) {
    const evicting = putRate(svc, 'full', `r${r}-`, SIZE);
    const growing = putRate(svc, `fresh${r}`, 'k', SIZE);
    rounds.push({ evicting, growing });
  }
  const evicting = rounds.map((x) => x.evicting).sort((a, b) => a - b)[1];
  const growing = rounds.map((x) => x.growing).sort((a, b) => a - b)[1];
  return { evicting, growing, ratio: evicting / growing, size: await svc.size('full') };
}

async function childMemory(kind) {
  const svc = await service({ full: bounded });
  const n = kind === 'bounded' ? SIZE * 10 : SIZE;
  for (let i = 0; i < n; i++) svc.put(kind === 'bounded' ? 'full' : 'plain', `k${i}`, VALUE, undefined);
  globalThis.gc?.();
  return { rss: process.memoryUsage.rss(), entries: await svc.size(kind === 'bounded' ? 'full' : 'plain') };
}

/** Zipf(1.0) over `keys` keys, by inverse CDF on a table. */
function zipf(keys, rnd) {
  const cdf = new Float64Array(keys);
  let sum = 0;
  for (let i = 0; i < keys; i++) cdf[i] = sum += 1 / (i + 1);
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = keys - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

async function childAccuracy() {
  const svc = await service({ cache: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_NODE', size: 27_100 } } });
  let seed = 42;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const next = zipf(1_000_000, rnd);
  // Exact LRU of the same capacity per partition (a Map keeps insertion order: delete + set = most recent).
  const { partitionIdOf } = await import(pathToFileURL(path.join(DIST, 'partition/partitioning.js')).href);
  const perPartition = Math.floor((27_100 * 1) / 271);
  const exact = Array.from({ length: 271 }, () => new Map());
  let hits = 0;
  let exactHits = 0;
  const ops = 1_000_000;
  // Cache-aside: a read that misses is followed by a put. A timestamp per op keeps access times distinct.
  for (let i = 0; i < ops; i++) {
    const key = `k${next()}`;
    if (svc.get('cache', key) !== undefined) hits++;
    else svc.put('cache', key, VALUE, undefined);
    const lru = exact[partitionIdOf(key)];
    if (lru.has(key)) {
      exactHits++;
      lru.delete(key);
    } else if (lru.size >= perPartition) lru.delete(lru.keys().next().value);
    lru.set(key, true);
    if ((i & 1023) === 0) await new Promise((r) => setTimeout(r, 1)); // let the clock move (ms access times)
  }
  return { hitRatio: hits / ops, exactHitRatio: exactHits / ops, capacity: perPartition * 271, keys: 1_000_000, ops };
}

function inChild(part, extra = []) {
  const out = execFileSync(process.execPath, ['--expose-gc', ...extra, fileURLToPath(import.meta.url), '--child', part], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').at(-1));
}

export async function runEviction(opts, report) {
  if (!opts.only.includes('eviction')) return;
  log('eviction: throughput (full, evicting map vs a map that is not full)');
  const throughput = inChild('throughput');
  log('eviction: memory held at the bound');
  const bound = inChild('memory-bounded');
  const plain = inChild('memory-plain');
  log('eviction: accuracy against exact LRU (Zipf)');
  const accuracy = inChild('accuracy');
  report.eviction = { throughput, memory: { bounded: bound, plain }, accuracy };
}

export function renderEvictionReport(report) {
  const e = report.eviction;
  if (!e) return '';
  const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  return [
    '',
    `Eviction (map service in-process, ${fmtInt(SIZE)} entries bound, 100-byte values, LRU PER_NODE):`,
    `  puts/s into a full, evicting map ${fmtInt(e.throughput.evicting)}, into a map that is not full ${fmtInt(e.throughput.growing)}: ratio ${e.throughput.ratio.toFixed(2)} (map held ${fmtInt(e.throughput.size)})`,
    `  resident memory after ${fmtInt(SIZE * 10)} puts into the bounded map: ${mb(e.memory.bounded.rss)} holding ${fmtInt(e.memory.bounded.entries)}; ${fmtInt(SIZE)} puts into an unbounded map: ${mb(e.memory.plain.rss)}`,
    `  Zipf(1) over ${fmtInt(e.accuracy.keys)} keys, ${fmtInt(e.accuracy.ops)} cache-aside reads, capacity ${fmtInt(e.accuracy.capacity)}: hit ratio sampled LRU ${(e.accuracy.hitRatio * 100).toFixed(2)}% vs exact LRU ${(e.accuracy.exactHitRatio * 100).toFixed(2)}%`,
  ].join('\n');
}

if (process.argv[2] === '--child') {
  const part = process.argv[3];
  const result =
    part === 'throughput' ? await childThroughput() : part === 'memory-bounded' ? await childMemory('bounded') : part === 'memory-plain' ? await childMemory('plain') : await childAccuracy();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
