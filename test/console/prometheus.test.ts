// The console's reader of the member's Prometheus text (console/prometheus.ts): samples with
// labels and escapes, sums over label sets, and a histogram's quantile over the observations
// made between two scrapes, against hand-computed values.

import { describe, expect, it } from 'vitest';
import { buckets, parsePrometheus, quantileBetween, total } from '../../console/prometheus.js';

const TEXT = `# HELP grid_rest_requests_total REST requests
# TYPE grid_rest_requests_total counter
grid_rest_requests_total{route="maps",method="GET",status="200"} 10
grid_rest_requests_total{route="maps",method="PUT",status="500"} 2
grid_rest_requests_total{route="metrics",method="GET",status="200"} 5
process_resident_memory_bytes 123456789
odd{a="x \\"q\\" \\\\ y"} 1 1700000000000
bad line here
nodejs_eventloop_lag_seconds NaN
h_bucket{le="0.1",route="a"} 1
h_bucket{le="0.1",route="b"} 1
h_bucket{le="1",route="a"} 3
h_bucket{le="+Inf",route="a"} 4
h_bucket{le="1",route="b"} 1
h_bucket{le="+Inf",route="b"} 1
`;

describe('parsePrometheus', () => {
  const s = parsePrometheus(TEXT);
  it('reads samples with their labels, skips comments and malformed lines', () => {
    expect(s.filter((x) => x.name === 'grid_rest_requests_total')).toHaveLength(3);
    expect(s.find((x) => x.name === 'odd')?.labels).toEqual({ a: 'x "q" \\ y' });
    expect(s.some((x) => x.name === 'bad')).toBe(false);
    expect(Number.isNaN(s.find((x) => x.name === 'nodejs_eventloop_lag_seconds')!.value)).toBe(true);
  });
  it('sums over label sets, with a filter, and is undefined for a missing name', () => {
    expect(total(s, 'grid_rest_requests_total')).toBe(17);
    expect(total(s, 'grid_rest_requests_total', (l) => l['route'] !== 'metrics')).toBe(12);
    expect(total(s, 'process_resident_memory_bytes')).toBe(123456789);
    expect(total(s, 'nope')).toBeUndefined();
  });
  it('sums histogram buckets over other labels, sorted by bound', () => {
    expect(buckets(s, 'h')).toEqual([
      [0.1, 2],
      [1, 4],
      [Infinity, 5],
    ]);
  });
});

describe('quantileBetween', () => {
  const before: [number, number][] = [
    [0.1, 10],
    [1, 20],
    [Infinity, 20],
  ];
  it('is undefined when nothing was observed in between', () => {
    expect(quantileBetween(before, before, 0.5)).toBeUndefined();
    expect(quantileBetween([], [], 0.99)).toBeUndefined();
  });
  it('interpolates inside the bucket of the rank, counting only the new observations', () => {
    // 10 new observations: 4 under 0.1, 6 in (0.1, 1].
    const after: [number, number][] = [
      [0.1, 14],
      [1, 30],
      [Infinity, 30],
    ];
    expect(quantileBetween(before, after, 0.2)).toBeCloseTo(0.05); // rank 2 of 4 in [0, 0.1]
    expect(quantileBetween(before, after, 0.5)).toBeCloseTo(0.1 + 0.9 * (1 / 6)); // rank 5: 1 of 6 into (0.1, 1]
    expect(quantileBetween(before, after, 1)).toBeCloseTo(1);
  });
  it('answers the highest finite bound for a rank in the +Inf bucket', () => {
    const after: [number, number][] = [
      [0.1, 10],
      [1, 20],
      [Infinity, 22],
    ];
    expect(quantileBetween(before, after, 0.99)).toBe(1);
  });
  it('treats a counter reset (member restarted) as no negative counts', () => {
    const after: [number, number][] = [
      [0.1, 1],
      [1, 2],
      [Infinity, 2],
    ];
    expect(quantileBetween(before, after, 0.5)).toBeUndefined();
  });
});
