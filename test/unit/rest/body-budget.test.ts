import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../../../src/rest/body-budget.js';
import { prng } from '../../support/prng.js';

describe('BodyBudget', () => {
  it('charges bodies up to the limit and refuses what does not fit, taking nothing', () => {
    const b = new BodyBudget(100);
    const x = b.open();
    const y = b.open();
    expect(x.add(60)).toBe(true);
    expect(y.add(41)).toBe(false);
    expect(b.usedBytes).toBe(60);
    expect(y.chargedBytes).toBe(0);
    expect(y.add(40)).toBe(true);
    expect(b.usedBytes).toBe(100);
    expect(x.add(0)).toBe(true);
    expect(x.add(1)).toBe(false);
    expect(x.chargedBytes).toBe(60);
  });

  it('releases a body once, whatever it held; a released charge takes nothing more', () => {
    const b = new BodyBudget(100);
    const x = b.open();
    x.add(30);
    x.add(20);
    const y = b.open();
    y.add(10);
    x.release();
    expect(b.usedBytes).toBe(10);
    x.release();
    expect(b.usedBytes).toBe(10);
    expect(x.add(5)).toBe(false);
    expect(b.usedBytes).toBe(10);
    y.release();
    expect(b.usedBytes).toBe(0);
  });

  it('returns to 0 after any interleaving of charges, refusals and releases', () => {
    // A seeded walk: many bodies charging in steps, some refused, released in random order.
    const next = prng(42);
    const rand = (n: number): number => Math.floor(next() * n);
    const b = new BodyBudget(10_000);
    const open: ReturnType<BodyBudget['open']>[] = [];
    for (let step = 0; step < 5_000; step++) {
      const r = rand(10);
      if (r < 3 || open.length === 0) open.push(b.open());
      else if (r < 8) {
        const c = open[rand(open.length)]!;
        const before = b.usedBytes;
        const n = rand(2_000);
        if (c.add(n)) expect(b.usedBytes).toBe(before + n);
        else expect(b.usedBytes).toBe(before);
      } else {
        open.splice(rand(open.length), 1)[0]!.release();
      }
      expect(b.usedBytes).toBeLessThanOrEqual(10_000);
      expect(b.usedBytes).toBe(open.reduce((s, c) => s + c.chargedBytes, 0));
    }
    for (const c of open) c.release();
    expect(b.usedBytes).toBe(0);
  });
});
