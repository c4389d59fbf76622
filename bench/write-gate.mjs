// The member memory guard on the write path (`node bench/write-gate.mjs`, after `npm run build`):
//   - ns per MemoryGuard.refusing() now (a flag its own timer refreshes) against the former rule,
//     a clock read and compare on every call (re-created here from git history, 26d8099);
//   - in-process MapService.put throughput (direct invoker, no HTTP) with the guard as the
//     write gate against no gate, so the guard's share of a put is visible.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(HERE, '../dist');
const load = (m) => import(pathToFileURL(path.join(DIST, m)).href);

const { MemoryGuard, CHECK_INTERVAL_MS, initialGuardState, nextGuardState } = await load('core/memory-guard.js');
const { systemClock } = await load('core/clock.js');
const { configFromObject } = await load('config/index.js');
const { MapService } = await load('map/map-service.js');

const figures = () => ({ rssBytes: 100, heapUsedBytes: 10, heapLimitBytes: 1000, heapTotalBytes: 20, arrayBuffersBytes: 30 });

/** The guard's rule before the flag: read the clock on every call, re-read the figures when the reading is old. */
class ClockPerCallGuard {
  figures = figures();
  readAt = -Infinity;
  refusingNow = false;
  state = initialGuardState(1 << 30);
  refusing() {
    const now = systemClock.now();
    if (now - this.readAt >= CHECK_INTERVAL_MS || now < this.readAt) {
      this.figures = figures();
      this.readAt = now;
      this.state = nextGuardState(this.state, this.figures, 1 << 30, 1 << 30);
      this.refusingNow = this.state.refusing;
    }
    return this.refusingNow;
  }
}

function nsPerCall(g, calls) {
  let n = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) if (g.refusing()) n++;
  const ns = Number(process.hrtime.bigint() - t0) / calls;
  if (n < 0) console.log(n);
  return ns;
}

const noop = () => undefined;
const logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => logger };
const invoker = { invoke: (_pid, op) => op.run() };
function putsPerSecond(writeGate, count) {
  const svc = new MapService({ config: configFromObject({}).config, invoker, clock: systemClock, logger, ...(writeGate ? { writeGate } : {}) });
  const value = 'v'.repeat(100);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) svc.put('m', `k${i % 50_000}`, value, undefined);
  return count / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const CALLS = 20_000_000;
const PUTS = 1_000_000;
const rounds = [];
for (let r = 0; r < 5; r++) {
  rounds.push({
    flagNs: nsPerCall(new MemoryGuard(1 << 30, figures, systemClock), CALLS),
    clockNs: nsPerCall(new ClockPerCallGuard(), CALLS),
    // Alternate which runs first: the first of a pair pays for the other's garbage.
    ...(r % 2 === 0
      ? { putsGate: putsPerSecond(new MemoryGuard(1 << 30, figures, systemClock), PUTS), putsNone: putsPerSecond(undefined, PUTS) }
      : { putsNone: putsPerSecond(undefined, PUTS), putsGate: putsPerSecond(new MemoryGuard(1 << 30, figures, systemClock), PUTS) }),
  });
}
const median = (k) => rounds.map((x) => x[k]).sort((a, b) => a - b)[2];
console.log(`refusing(): flag ${median('flagNs').toFixed(1)} ns/call, clock per call ${median('clockNs').toFixed(1)} ns/call (median of 5 x ${CALLS / 1e6}M)`);
console.log(`MapService.put in-process: with the guard ${Math.round(median('putsGate')).toLocaleString()} puts/s, without ${Math.round(median('putsNone')).toLocaleString()} puts/s (median of 5 x ${PUTS / 1e6}M)`);
