import { describe, expect, it } from 'vitest';
import { GridMetrics } from '../../../src/metrics/grid-metrics.js';
import { RequestStats, routeLabelOf } from '../../../src/rest/request-stats.js';
import { parsePrometheus, sampleValue } from '../../support/prometheus.js';

describe('routeLabelOf', () => {
  it('maps every endpoint to one of a few fixed labels', () => {
    const cases: [string | undefined, string][] = [
      ['rest/maps/m/k', 'maps'],
      ['rest/maps/m', 'maps'],
      ['rest/queues/q', 'queues'],
      ['rest/queues/q/10', 'queues'],
      ['rest/queues/q/size', 'queue_stats'],
      ['rest/queues/q/stats/', 'queue_stats'],
      ['health', 'health'],
      ['health/ready', 'health'],
      ['metrics', 'metrics'],
      ['metrics/', 'metrics'],
      ['rest/cluster', 'cluster'],
      ['rest/partitions', 'cluster'],
      ['rest/instance', 'cluster'],
      ['rest/management/cluster/state', 'cluster'],
      ['rest/log-level', 'admin'],
      ['rest/log-level/reset', 'admin'],
      ['rest/tls/reload', 'admin'],
      ['rest/config/tcp-ip/member-list', 'admin'],
      ['rest/license', 'admin'],
      ['rest/wan', 'wan'],
      ['rest/wan/sync/map', 'wan'],
      ['rest/cp-subsystem/members', 'cp'],
      ['rest/cp/atomiclong/a', 'cp'],
      ['rest/cpx', 'unknown'],
      ['rest/clusters', 'unknown'],
      ['rest/nothing', 'unknown'],
      ['', 'unknown'],
      ['metricsx', 'unknown'],
      [undefined, 'unknown'],
    ];
    for (const [rest, label] of cases) expect(routeLabelOf(rest), String(rest)).toBe(label);
  });
});

describe('RequestStats', () => {
  it('reports exact counts per route, method and status, and cumulative latency buckets', async () => {
    const stats = new RequestStats();
    const metrics = new GridMetrics({ processMetrics: false });
    stats.register(metrics);
    stats.record('maps', 0, 200, 0.0002);
    stats.record('maps', 0, 200, 0.003);
    stats.record('maps', 0, 204, 0.00005);
    stats.record('queues', 4, 0, 12);
    stats.record('unknown', 5, 999, 0.001);
    const f = parsePrometheus((await metrics.scrape()).body);
    expect(sampleValue(f, 'grid_rest_requests_total', { route: 'maps', method: 'GET', status: '200' })).toBe(2);
    expect(sampleValue(f, 'grid_rest_requests_total', { route: 'maps', method: 'GET', status: '204' })).toBe(1);
    expect(sampleValue(f, 'grid_rest_requests_total', { route: 'queues', method: 'DELETE', status: 'none' })).toBe(1);
    expect(sampleValue(f, 'grid_rest_requests_total', { route: 'unknown', method: 'other', status: 'other' })).toBe(1);
    expect(f.get('grid_rest_requests_total')!.samples).toHaveLength(4);
    const bucket = (le: string): number | undefined => sampleValue(f, 'grid_rest_request_duration_seconds_bucket', { route: 'maps', method: 'GET', le });
    expect(bucket('0.0001')).toBe(1);
    expect(bucket('0.00025')).toBe(2);
    expect(bucket('0.0025')).toBe(2);
    expect(bucket('0.005')).toBe(3);
    expect(bucket('+Inf')).toBe(3);
    expect(sampleValue(f, 'grid_rest_request_duration_seconds_sum', { route: 'maps', method: 'GET' })).toBeCloseTo(0.00325, 10);
    expect(sampleValue(f, 'grid_rest_request_duration_seconds_bucket', { route: 'queues', method: 'DELETE', le: '10' })).toBe(0);
    expect(sampleValue(f, 'grid_rest_request_duration_seconds_bucket', { route: 'queues', method: 'DELETE', le: '30' })).toBe(1);
  });
});
