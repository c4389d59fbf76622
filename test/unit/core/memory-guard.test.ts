import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import {
  CHECK_INTERVAL_MS,
  MemoryGuard,
  initialGuardState,
  nextGuardState,
  parseMemoryLimit,
  type GuardState,
  type MemoryFigures,
} from '../../../src/core/memory-guard.js';

const MB = 1024 * 1024;
/** A reading in MiB: resident set, counted (V8 heap total + buffers; default: all of the resident set but 20 MiB of base), heap used, heap limit. */
const fig = (rssMb: number, countedMb = rssMb - 20, heapUsedMb = 10, heapLimitMb = 1000): MemoryFigures => ({
  rssBytes: rssMb * MB,
  heapUsedBytes: heapUsedMb * MB,
  heapLimitBytes: heapLimitMb * MB,
  heapTotalBytes: 0,
  arrayBuffersBytes: countedMb * MB,
});
const LIMIT = 100 * MB;
const CAP = 150 * MB;

/** The refusing flag after each reading, from a fresh guard (base overhead learned from the first reading: 20 MiB). */
function run(readings: readonly MemoryFigures[], cap = CAP): { refusing: boolean[]; last: GuardState } {
  let s = initialGuardState(LIMIT);
  const refusing: boolean[] = [];
  for (const m of readings) {
    s = nextGuardState(s, m, LIMIT, cap);
    refusing.push(s.refusing);
  }
  return { refusing, last: s };
}

describe('nextGuardState', () => {
  it.each([
    // not refusing before, one reading (limit 100 MiB) -> refusing after
    [fig(99), false],
    [fig(100), true],
    [fig(95, 101), true], // counted memory at the limit with the resident set under it
    [fig(10, 5, 850), true], // V8 heap at 85% of its limit
    [fig(10, 5, 849), false],
    [fig(10, 5, 999, 0), false], // no heap limit known
  ] as const)('from a fresh guard, %o -> %s', (f, after) => {
    expect(run([fig(50), f]).refusing[1]).toBe(after);
  });

  it('the resident-set rule: refuse at the limit, stay above the resume mark (90%), resume below it', () => {
    expect(run([fig(50), fig(100), fig(95), fig(90), fig(89.9)]).refusing).toEqual([false, true, true, true, false]);
  });

  it('the heap rule: refusing at 85% of the heap limit lasts until the heap is under 75%', () => {
    expect(run([fig(50), fig(50, 30, 850), fig(50, 30, 760), fig(50, 30, 740)]).refusing).toEqual([false, true, true, false]);
    expect(run([fig(50), fig(100), fig(89, 69, 760), fig(89, 69, 740)]).refusing).toEqual([false, true, true, false]);
  });

  it('writes resume when deletes freed counted memory the allocator keeps resident, and the ceiling moves up by the slack', () => {
    const r = run([fig(50), fig(100), fig(100, 20)]);
    expect(r.refusing).toEqual([false, true, false]);
    expect(r.last.ceilingBytes).toBe(110 * MB);
    // Refilling what the allocator kept: the resident set stays, counted grows; refused again at the limit of counted memory.
    expect(run([fig(50), fig(100), fig(100, 20), fig(100, 60), fig(100, 79), fig(100, 80)]).refusing).toEqual([false, true, false, false, false, true]);
    // ... or when the resident set grows past the new ceiling.
    expect(run([fig(50), fig(100), fig(100, 20), fig(109, 30), fig(110, 30)]).refusing).toEqual([false, true, false, false, true]);
    // Once the resident set is under the resume mark the ceiling is the limit again.
    const back = run([fig(50), fig(100), fig(100, 20), fig(80, 20)]);
    expect(back.last.ceilingBytes).toBe(LIMIT);
    expect(run([fig(50), fig(100), fig(100, 20), fig(80, 20), fig(100, 20)]).refusing.at(-1)).toBe(true);
  });

  it('a resident set that grew without counted memory being freed does not resume writes', () => {
    // Nothing freed: counted stays, the resident set grows (native memory, fragmentation).
    expect(run([fig(50), fig(100, 80), fig(120, 80), fig(130, 80)]).refusing).toEqual([false, true, true, true]);
    // Freed less than the resident set is above the resume mark.
    expect(run([fig(50), fig(100, 80), fig(100, 71)]).refusing).toEqual([false, true, true]);
    expect(run([fig(50), fig(100, 80), fig(100, 69)]).refusing).toEqual([false, true, false]);
    // Freed memory that went back to the system (the resident set fell with it) is not counted twice.
    expect(run([fig(50), fig(100, 80), fig(92, 72)]).refusing).toEqual([false, true, true]);
  });

  it('what was freed is measured from the most counted memory seen while refusing', () => {
    // Counted grew while refusing (backups, an evicting map), then the deletes freed it.
    expect(run([fig(50), fig(100, 80), fig(120, 100), fig(120, 30)]).refusing).toEqual([false, true, true, false]);
  });

  it('writes never resume on counted memory above the hard cap: they wait for the resident set', () => {
    expect(run([fig(50), fig(100), fig(140, 20)]).refusing).toEqual([false, true, false]);
    expect(run([fig(50), fig(100), fig(141, 20)]).refusing).toEqual([false, true, true]);
    expect(run([fig(50), fig(100), fig(100, 20)], LIMIT).refusing).toEqual([false, true, true]);
  });

  it('the base overhead is the least resident-set-minus-counted seen', () => {
    expect(run([fig(50, 30), fig(60, 45), fig(70, 40)]).last.baseBytes).toBe(15 * MB);
    expect(run([fig(50, 60)]).last.baseBytes).toBe(0);
  });
});

describe('MemoryGuard', () => {
  it('reads at most every CHECK_INTERVAL_MS, refuses with MEMORY_LIMIT naming the write and the figures, and counts refusals', () => {
    const clock = new ManualClock(0);
    let rss = 50;
    let counted: number | undefined;
    let reads = 0;
    const g = new MemoryGuard(100 * MB, () => (reads++, fig(rss, counted)), clock, CAP);
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
    expect((err as GridError).message).toBe('member memory limit reached (resident 120 MiB of grid.memory.limit 100 MiB; counted 120 MiB): the put to map "m" was not applied; reads and deletes still work, writes resume once memory is below 90% of the limit');
    rss = 95;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).toThrow(GridError);
    rss = 80;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).not.toThrow();
    // Deletes freed counted memory the allocator kept: writes back with the ceiling raised; refused again past it, saying so.
    rss = 100;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).toThrow(GridError);
    counted = 10;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).not.toThrow();
    rss = 111;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('the offer to queue "q"')).toThrow(
      'member memory limit reached (resident 111 MiB of grid.memory.limit 100 MiB, raised to 110 MiB as the allocator keeps freed memory; counted 30 MiB): the offer to queue "q" was not applied',
    );
    rss = 80;
    counted = undefined;
    clock.advance(CHECK_INTERVAL_MS);
    expect(() => g.check('x')).not.toThrow();
    expect(g.status()).toEqual({ limitBytes: 100 * MB, rssBytes: 80 * MB, heapUsedBytes: 10 * MB, heapLimitBytes: 1000 * MB, heapTotalBytes: 0, arrayBuffersBytes: 60 * MB, countedBytes: 80 * MB, ceilingBytes: 100 * MB, refusing: false, refusedWrites: 4 });
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
