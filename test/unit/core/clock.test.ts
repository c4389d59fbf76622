import { describe, expect, it } from 'vitest';
import { ManualClock, MAX_TIMER_DELAY_MS, systemClock } from '../../../src/core/clock.js';

describe('ManualClock', () => {
  it('starts at the given time (or a fixed default) and moves only when told', () => {
    expect(new ManualClock().now()).toBe(1_700_000_000_000);
    const c = new ManualClock(1000);
    expect(c.now()).toBe(1000);
    expect(c.now()).toBe(1000);
    c.advance(250);
    expect(c.now()).toBe(1250);
    c.advance(0);
    expect(c.now()).toBe(1250);
  });

  it('a timeout fires when its time comes, not before, and sees its own due time as now', () => {
    const c = new ManualClock(0);
    const seen: number[] = [];
    c.setTimeout(() => seen.push(c.now()), 100);
    c.advance(99);
    expect(seen).toEqual([]);
    c.advance(1);
    expect(seen).toEqual([100]);
    c.advance(1000);
    expect(seen).toEqual([100]); // once only
    expect(c.pendingTimers()).toBe(0);
  });

  it('a big step fires timers at their own times, in time order', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    c.setTimeout(() => log.push(`c@${c.now()}`), 300);
    c.setTimeout(() => log.push(`a@${c.now()}`), 100);
    c.setTimeout(() => log.push(`b@${c.now()}`), 200);
    c.advance(1000);
    expect(log).toEqual(['a@100', 'b@200', 'c@300']);
    expect(c.now()).toBe(1000);
  });

  it('timers due at the same time fire in the order they were set', () => {
    const c = new ManualClock(0);
    const log: number[] = [];
    for (let i = 0; i < 5; i++) c.setTimeout(() => log.push(i), 50);
    c.advance(50);
    expect(log).toEqual([0, 1, 2, 3, 4]);
  });

  it('delay 0 fires on the next advance, even advance(0); negative delays count as 0', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    c.setTimeout(() => log.push('zero'), 0);
    c.setTimeout(() => log.push('negative'), -50);
    expect(log).toEqual([]);
    c.advance(0);
    expect(log).toEqual(['zero', 'negative']);
  });

  it('intervals repeat at their period and interleave with timeouts by time', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    c.setInterval(() => log.push(`i@${c.now()}`), 100);
    c.setTimeout(() => log.push(`t@${c.now()}`), 250);
    c.advance(450);
    expect(log).toEqual(['i@100', 'i@200', 't@250', 'i@300', 'i@400']);
    expect(c.pendingTimers()).toBe(1);
    c.advance(50);
    expect(log.at(-1)).toBe('i@500');
  });

  it('an interval of 0 or less runs every millisecond instead of spinning', () => {
    const c = new ManualClock(0);
    let n = 0;
    c.setInterval(() => n++, 0);
    c.advance(10);
    expect(n).toBe(11); // at 0, 1, ..., 10
  });

  it('cancel stops a timeout or an interval; cancel twice is harmless', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    const t = c.setTimeout(() => log.push('t'), 30);
    const i = c.setInterval(() => log.push('i'), 10);
    c.advance(25);
    expect(log).toEqual(['i', 'i']);
    t.cancel();
    i.cancel();
    i.cancel();
    c.advance(100);
    expect(log).toEqual(['i', 'i']);
    expect(c.pendingTimers()).toBe(0);
  });

  it('a timer cancelled by an earlier timer in the same advance does not fire', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    const later = c.setTimeout(() => log.push('later'), 20);
    c.setTimeout(() => {
      log.push('first');
      later.cancel();
    }, 10);
    c.advance(100);
    expect(log).toEqual(['first']);
  });

  it('an interval can cancel itself from its callback', () => {
    const c = new ManualClock(0);
    let n = 0;
    const h = c.setInterval(() => {
      if (++n === 3) h.cancel();
    }, 10);
    c.advance(1000);
    expect(n).toBe(3);
    expect(c.pendingTimers()).toBe(0);
  });

  it('timers set from a callback fire in the same advance when due', () => {
    const c = new ManualClock(0);
    const log: string[] = [];
    c.setTimeout(() => {
      log.push(`outer@${c.now()}`);
      c.setTimeout(() => log.push(`inner@${c.now()}`), 30);
      c.setTimeout(() => log.push(`now@${c.now()}`), 0);
      c.setTimeout(() => log.push(`beyond@${c.now()}`), 1000);
    }, 10);
    c.advance(100);
    expect(log).toEqual(['outer@10', 'now@10', 'inner@40']);
    expect(c.pendingTimers()).toBe(1);
    c.advance(910);
    expect(log.at(-1)).toBe('beyond@1010');
  });

  it('pendingTimers counts live timers', () => {
    const c = new ManualClock(0);
    expect(c.pendingTimers()).toBe(0);
    const a = c.setTimeout(() => undefined, 10);
    c.setInterval(() => undefined, 10);
    expect(c.pendingTimers()).toBe(2);
    a.cancel();
    expect(c.pendingTimers()).toBe(1);
  });
});

describe('systemClock', () => {
  it('reads the real time and clamps huge delays (no overflow warning, no immediate fire)', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    let fired = false;
    const t = systemClock.setTimeout(() => (fired = true), MAX_TIMER_DELAY_MS * 10);
    const i = systemClock.setInterval(() => (fired = true), MAX_TIMER_DELAY_MS * 10);
    t.cancel();
    i.cancel();
    expect(fired).toBe(false);
    expect(MAX_TIMER_DELAY_MS).toBe(2 ** 31 - 1);
  });
});
