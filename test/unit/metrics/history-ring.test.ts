// The metrics history's pure core: a fixed ring whose memory never grows past its bound,
// rows read back oldest first across the wrap, missing figures as null, the column bound, and
// the quantile and rate arithmetic the sampler applies to counters.

import { describe, expect, it } from 'vitest';
import { HistoryRing, MAX_HISTORY_COLUMNS, bucketQuantile, ratePerSecond, ratesByName } from '../../../src/metrics/history-ring.js';

describe('HistoryRing', () => {
  it('keeps at most capacity rows, in a footprint fixed at construction', () => {
    const ring = new HistoryRing(600, ['a', 'b']);
    const before = ring.footprintBytes;
    expect(before).toBe(3 * 600 * 8);
    for (let i = 0; i < 10_000; i++) ring.push(i * 1000, { a: i, b: 2 * i });
    expect(ring.size).toBe(600);
    expect(ring.footprintBytes).toBe(before);
    const r = ring.read(10_000);
    expect(r.times).toHaveLength(600);
    expect(r.times[0]).toBe(9400 * 1000);
    expect(r.times.at(-1)).toBe(9999 * 1000);
    expect(r.series.a![0]).toBe(9400);
    expect(r.series.b!.at(-1)).toBe(19998);
  });

  it('reads the last n rows oldest first, before and across the wrap', () => {
    const ring = new HistoryRing(4, ['x']);
    expect(ring.read(3)).toEqual({ times: [], series: { x: [] } });
    ring.push(1, { x: 10 });
    ring.push(2, { x: 20 });
    expect(ring.read(5)).toEqual({ times: [1, 2], series: { x: [10, 20] } });
    for (let t = 3; t <= 6; t++) ring.push(t, { x: t * 10 });
    expect(ring.read(3)).toEqual({ times: [4, 5, 6], series: { x: [40, 50, 60] } });
    expect(ring.read(0)).toEqual({ times: [], series: { x: [] } });
  });

  it('shows a figure not measured as null, and leaves out a column with nothing in the rows asked', () => {
    const ring = new HistoryRing(8, ['x']);
    ring.push(1, { x: 1 });
    ring.push(2, { x: NaN, late: 5 });
    ring.push(3, {});
    expect(ring.read(3).series).toEqual({ x: [1, null, null], late: [null, 5, null] });
    ring.push(4, { x: 4 });
    // `late` has no value in the last two rows: not listed.
    expect(ring.read(2).series).toEqual({ x: [null, 4] });
  });

  it('refuses columns past its bound and counts them, so a config with many publishers cannot grow it', () => {
    const ring = new HistoryRing(2, [], 3);
    ring.push(1, { a: 1, b: 2, c: 3, d: 4, e: 5 });
    expect(ring.columnNames()).toEqual(['a', 'b', 'c']);
    expect(ring.droppedColumns).toBe(2);
    expect(ring.footprintBytes).toBe(4 * 2 * 8);
    expect(MAX_HISTORY_COLUMNS).toBeGreaterThanOrEqual(32);
  });

  it('refuses a capacity that is not a whole number >= 1', () => {
    expect(() => new HistoryRing(0, [])).toThrow(RangeError);
    expect(() => new HistoryRing(1.5, [])).toThrow(RangeError);
  });
});

describe('bucketQuantile', () => {
  const buckets = [0.001, 0.01, 0.1];
  it('interpolates within the bucket the rank falls in', () => {
    expect(bucketQuantile([10, 0, 0, 0], buckets, 0.5)).toBeCloseTo(0.0005);
    expect(bucketQuantile([0, 10, 0, 0], buckets, 0.5)).toBeCloseTo(0.0055);
    // 99 fast, 1 slow: p50 in the first bucket, p99 at its top, p100 in the slow one.
    expect(bucketQuantile([99, 0, 1, 0], buckets, 0.5)).toBeLessThan(0.001);
    expect(bucketQuantile([99, 0, 1, 0], buckets, 0.99)).toBeCloseTo(0.001);
    expect(bucketQuantile([99, 0, 1, 0], buckets, 1)).toBeCloseTo(0.1);
  });
  it('answers the last bound for the +Inf bucket and NaN when nothing was counted', () => {
    expect(bucketQuantile([0, 0, 0, 4], buckets, 0.5)).toBe(0.1);
    expect(bucketQuantile([0, 0, 0, 0], buckets, 0.5)).toBeNaN();
  });
});

describe('rates', () => {
  it('ratePerSecond: NaN without a previous reading, 0 for a counter that went back', () => {
    expect(ratePerSecond(undefined, 10, 1000)).toBeNaN();
    expect(ratePerSecond(10, 30, 2000)).toBe(10);
    expect(ratePerSecond(30, 10, 1000)).toBe(0);
    expect(ratePerSecond(1, 2, 0)).toBeNaN();
  });
  it('ratesByName: new names count from zero, idle names are left out', () => {
    const prev = new Map([['a', [10, 0]], ['idle', [5, 5]]]);
    const cur = new Map([['a', [30, 4]], ['idle', [5, 5]], ['new', [3, 0]]]);
    expect(ratesByName(prev, cur, 2000)).toEqual(new Map([['a', [10, 2]], ['new', [1.5, 0]]]));
    expect(ratesByName(prev, cur, 0).size).toBe(0);
  });
});
