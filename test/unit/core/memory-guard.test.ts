import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { CHECK_INTERVAL_MS, MemoryGuard, nextRefusing, parseMemoryLimit, type MemoryFigures } from '../../../src/core/memory-guard.js';

const MB = 1024 * 1024;
const fig = (rssMb: number, heapUsedMb = 10, heapLimitMb = 1000): MemoryFigures => ({ rssBytes: rssMb * MB, heapUsedBytes: heapUsedMb * MB, heapLimitBytes: heapLimitMb * MB });

describe('nextRefusing', () => {
  it.each([
    // refusing before, figures, limit 100 MiB -> refusing after
    [false, fig(99), false],
    [false, fig(100), true],
    [true, fig(95), true], // above the resume mark (90%): still refusing
    [true, fig(89.9), false],
    [false, fig(10, 850), true], // V8 heap at 85% of its limit
    [false, fig(10, 849), false],
    [true, fig(10, 760), true], // heap above its resume mark (75%)
    [true, fig(10, 740), false],
    [true, fig(89, 760), true],
    [false, fig(10, 999, 0), false], // no heap limit known
  ] as const)('refusing %s, %o -> %s', (before, f, after) => {
    expect(nextRefusing(before, f, 100 * MB)).toBe(after);
  });
});

describe('MemoryGuard', () => {
  it('reads at most every CHECK_INTERVAL_MS, refuses with MEMORY_LIMIT naming the write and the figures, and counts refusals', () => {
    const clock = new ManualClock(0);
    let rss = 50;
    let reads = 0;
    const g = new MemoryGuard(100 * MB, () => (reads++, fig(rss)), clock);
    expect(g.refusing()).toBe(false);
    rss = 120;
    expect(g.refusing()).toBe(false); // the reading is still fresh
    expect(reads).toBe(1);
    clock.advance(CHECK_INTERVAL_MS);
    expect(g.refusing()).toBe(true);
    let err: unknown;
    try {
      g.check('the put to map "m"');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GridError);
    expect((err as GridError).code).toBe('MEMORY_LIMIT');
    expect((err as GridError).message).toBe('member memory limit reached (resident 120 MiB of grid.memory.limit 100 MiB): the put to map "m" was not applied; reads and deletes still work, writes resume below 90% of the limit');
    rss = 95;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).toThrow(GridError);
    rss = 80;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).not.toThrow();
    expect(g.status()).toEqual({ limitBytes: 100 * MB, rssBytes: 80 * MB, heapUsedBytes: 10 * MB, heapLimitBytes: 1000 * MB, refusing: false, refusedWrites: 2 });
  });
});

describe('parseMemoryLimit (grid.memory.limit)', () => {
  it.each([
    ['536870912', 536870912],
    ['512m', 512 * MB],
    ['512MB', 512 * MB],
    ['2g', 2048 * MB],
    ['64k', 65536],
    ['80%', 800 * MB],
    [' 50 % ', 500 * MB],
    ['100%', 1000 * MB],
  ])('%s -> %d', (text, bytes) => {
    expect(parseMemoryLimit(text, 1000 * MB)).toBe(bytes);
  });
  it.each(['', 'lots', '0', '-5m', '12q', '0%', '101%', '1e9'])('%j is a CONFIG_INVALID naming the property', (text) => {
    expect(() => parseMemoryLimit(text, 1000 * MB)).toThrow(/^grid\.memory\.limit: /);
  });
});
