// GET /metrics end to end: a real member, traffic through its REST API, a scrape parsed
// strictly, exact counter and gauge values, bounded labels, the paths it answers on, and its
// group (CLUSTER_READ) and switch (metrics enabled).

import { describe, expect, it } from 'vitest';
import { restConfig, startMember } from '../support/member.js';
import { parsePrometheus, sampleValue, scrape } from '../support/prometheus.js';
import { ROUTE_LABELS } from '../../src/rest/request-stats.js';

const put = (base: string, map: string, key: string, value: string): Promise<Response> =>
  fetch(`${base}/hazelcast/rest/maps/${map}/${key}`, { method: 'POST', body: value, headers: { 'content-type': 'text/plain' } });

describe('GET /metrics', () => {
  it('answers on /metrics, /grid/metrics and /hazelcast/metrics in the Prometheus text format, with process metrics', async () => {
    const m = await startMember();
    for (const path of ['/metrics', '/grid/metrics', '/hazelcast/metrics', '/hazelcast/metrics/', '/metrics?x=1']) {
      const res = await fetch(`${m.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('text/plain; version=0.0.4; charset=utf-8');
      const families = parsePrometheus(await res.text());
      for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'grid_rest_requests_total']) {
        expect(families.has(name), `${path}: ${name}`).toBe(true);
      }
    }
    const head = await fetch(`${m.base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    // Not under rest/, not written to, no other unprefixed path.
    for (const [method, path] of [['GET', '/grid/rest/metrics'], ['POST', '/metrics'], ['GET', '/metrics/x'], ['GET', '/metricsx'], ['GET', '/rest/metrics']] as const) {
      const res = await fetch(`${m.base}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(400);
    }
  });

  it('counts REST requests by route label, method and status, exactly, with a latency histogram', async () => {
    const m = await startMember();
    const before = await scrape(m.base);
    expect(sampleValue(before, 'grid_rest_requests_total', { route: 'maps', method: 'POST', status: '200' })).toBeUndefined();
    for (let i = 0; i < 7; i++) expect((await put(m.base, 'orders', `k${i}`, `v${i}`)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await fetch(`${m.base}/grid/rest/maps/orders/k${i}`)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await fetch(`${m.base}/grid/rest/maps/orders/missing${i}`)).status).toBe(204);
    expect((await fetch(`${m.base}/grid/rest/maps/orders/k1`, { method: 'PUT', body: 'x' })).status).toBe(200);
    expect((await fetch(`${m.base}/grid/rest/nothing-here`)).status).toBe(400);
    expect((await fetch(`${m.base}/grid/health/ready`)).status).toBe(200);
    const after = await scrape(m.base);
    const n = (route: string, method: string, status: string): number | undefined => sampleValue(after, 'grid_rest_requests_total', { route, method, status });
    expect(n('maps', 'POST', '200')).toBe(7);
    expect(n('maps', 'PUT', '200')).toBe(1);
    expect(n('maps', 'GET', '200')).toBe(5);
    expect(n('maps', 'GET', '204')).toBe(3);
    expect(n('unknown', 'GET', '400')).toBe(1);
    expect(n('health', 'GET', '200')).toBe(1);
    // The scrape before this one was answered (the one being answered now is not counted yet).
    expect(n('metrics', 'GET', '200')).toBe(1);
    expect(sampleValue(after, 'grid_rest_request_duration_seconds_count', { route: 'maps', method: 'GET' })).toBe(8);
    expect(sampleValue(after, 'grid_rest_request_duration_seconds_bucket', { route: 'maps', method: 'GET', le: '+Inf' })).toBe(8);
    const sum = sampleValue(after, 'grid_rest_request_duration_seconds_sum', { route: 'maps', method: 'GET' })!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(8);
  });

  it('keeps label values bounded: map names, keys and unknown paths never become labels', async () => {
    const m = await startMember();
    const names: string[] = [];
    for (let i = 0; i < 30; i++) {
      const name = `rnd${Math.random().toString(36).slice(2)}`;
      names.push(name);
      await put(m.base, name, name, 'x');
      await fetch(`${m.base}/grid/rest/${name}`);
      await fetch(`${m.base}/${name}`);
      await fetch(`${m.base}/grid/rest/queues/${name}/size`);
    }
    await fetch(`${m.base}/grid/rest/maps/x/y`, { method: 'PATCH' });
    const body = await (await fetch(`${m.base}/metrics`)).text();
    const families = parsePrometheus(body);
    const requests = families.get('grid_rest_requests_total')!;
    for (const s of requests.samples) {
      expect(ROUTE_LABELS).toContain(s.labels.route);
      expect(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'other']).toContain(s.labels.method);
      expect(s.labels.status).toMatch(/^(none|other|\d{3})$/);
    }
    expect(sampleValue(families, 'grid_rest_requests_total', { route: 'unknown', method: 'GET', status: '400' })).toBe(60);
    expect(sampleValue(families, 'grid_rest_requests_total', { route: 'unknown', method: 'other', status: '400' })).toBe(1);
    expect(sampleValue(families, 'grid_rest_requests_total', { route: 'queue_stats', method: 'GET', status: '200' })).toBe(30);
    // No key or path ever appears; map names appear only as map labels of maps that hold data.
    for (const name of names) {
      for (const line of body.split('\n').filter((l) => l.includes(name))) expect(line).toMatch(new RegExp(`\\{map="${name}"\\}|,map="${name}"|\\{map="${name}",`));
    }
  });

  it('answers 403 when CLUSTER_READ is disabled, and 500 when metrics are disabled', async () => {
    const noRead = await startMember(restConfig(['DATA', 'HEALTH_CHECK']));
    for (const path of ['/metrics', '/grid/metrics', '/hazelcast/metrics']) {
      const res = await fetch(`${noRead.base}${path}`);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('x-grid-error')).toBe('endpoint group CLUSTER_READ is disabled');
    }
    const off = await startMember(restConfig(undefined, { metrics: { enabled: false } }));
    const res = await fetch(`${off.base}/metrics`);
    expect(res.status).toBe(500);
    expect(res.headers.get('x-grid-error')).toMatch(/metrics are disabled/);
    expect(off.member.metrics).toBeUndefined();
    expect((await put(off.base, 'm', 'k', 'v')).status).toBe(200);
  });
});
