import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GridErrorCode } from '../../../src/core/errors.js';
import { GridMetrics } from '../../../src/metrics/grid-metrics.js';
import { RequestStats, STATUS_LABELS, routeLabelOf } from '../../../src/rest/request-stats.js';
import { STATUS_OF } from '../../../src/rest/status.js';
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

  it('has a status slot for every status a GridError answers over REST, none for 501 (UNSUPPORTED is raised by the client protocol only)', async () => {
    for (const [code, status] of Object.entries(STATUS_OF) as [GridErrorCode, number][]) {
      if (code !== 'UNSUPPORTED') expect(STATUS_LABELS, code).toContain(String(status));
    }
    expect(STATUS_LABELS).not.toContain('501');
    const stats = new RequestStats();
    const metrics = new GridMetrics({ processMetrics: false });
    stats.register(metrics);
    stats.record('maps', 0, 501, 0.001);
    const f = parsePrometheus((await metrics.scrape()).body);
    expect(sampleValue(f, 'grid_rest_requests_total', { route: 'maps', method: 'GET', status: 'other' })).toBe(1);
  });

  it('lists in docs/metrics.md exactly the status labels it reports', () => {
    const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const m = /`status` is the status code answered \(([^)]*)\)/.exec(doc);
    expect(m, 'the status sentence of docs/metrics.md').not.toBeNull();
    const documented = [...m![1]!.matchAll(/`(\d{3})`/g)].map((x) => x[1]);
    expect(['none', ...documented, 'other']).toEqual(STATUS_LABELS);
  });
});
