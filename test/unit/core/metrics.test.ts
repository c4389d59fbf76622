import { describe, expect, it } from 'vitest';
import { CountersByName, PlainHistogram } from '../../../src/core/metrics.js';

describe('CountersByName', () => {
  it('gives names holding data their own counters always, and at most N names without data', () => {
    const c = new CountersByName(() => ({ n: 0 }), 2);
    c.of('a', false).n++;
    c.of('b', false).n++;
    c.of('c', false).n++;
    c.of('d', false).n++;
    c.of('a', false).n++;
    c.of('real', true).n++;
    c.of('c', true).n++; // already counted under (other): a name with data gets its own from now on
    const seen: Record<string, number> = {};
    c.forEach((v, label) => (seen[label] = v.n));
    expect(seen).toEqual({ a: 2, b: 1, real: 1, c: 1, '(other)': 2 });
  });
});

describe('PlainHistogram', () => {
  it('counts each value in the first bucket whose bound is >= it, the rest in +Inf', () => {
    const h = new PlainHistogram([1, 2, 5]);
    for (const x of [0, 1, 1.5, 2, 5, 5.01, 100]) h.observe(x);
    expect([...h.counts]).toEqual([2, 2, 1, 2]);
    expect(h.sum).toBeCloseTo(114.51, 10);
  });
});
