// GET /metrics end to end: a real member, traffic through its REST API, a scrape parsed
// strictly, exact counter and gauge values, bounded labels, the paths it answers on, and its
// group (CLUSTER_READ) and switch (metrics enabled).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restConfig, startMember } from '../support/member.js';
import { parsePrometheus, sampleValue, scrape, type Family } from '../support/prometheus.js';
import { ROUTE_LABELS } from '../../src/rest/request-stats.js';
import { GridMetrics } from '../../src/metrics/grid-metrics.js';
import { reportCpMetrics } from '../../src/cp/cp-metrics.js';
import { sleep } from '../support/wait.js';

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

  it('reports per map: entries, gets, hits, misses, puts, removes and expirations, exactly', async () => {
    const m = await startMember(restConfig(undefined, { map: { 'ttl-m': { 'time-to-live-seconds': 1 } } }));
    const v = (f: Map<string, Family>, name: string, map: string): number => sampleValue(f, name, { map }) ?? 0;
    for (let i = 0; i < 10; i++) expect((await put(m.base, 'orders', `k${i}`, `v${i}`)).status).toBe(200);
    // A read of a map that was never written still counts, under its own name.
    expect((await fetch(`${m.base}/grid/rest/maps/nowhere/x`)).status).toBe(204);
    const before = await scrape(m.base);
    expect(v(before, 'grid_map_entries', 'orders')).toBe(10);
    expect(v(before, 'grid_map_backup_entries', 'orders')).toBe(0);
    expect(v(before, 'grid_map_puts_total', 'orders')).toBe(10);
    expect(v(before, 'grid_map_gets_total', 'nowhere')).toBe(1);
    expect(v(before, 'grid_map_misses_total', 'nowhere')).toBe(1);
    for (let i = 0; i < 4; i++) expect((await fetch(`${m.base}/grid/rest/maps/orders/k${i}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${m.base}/grid/rest/maps/orders/none${i}`)).status).toBe(204);
    for (const k of ['k8', 'k9', 'none']) expect((await fetch(`${m.base}/grid/rest/maps/orders/${k}`, { method: 'DELETE' })).status).toBe(200);
    expect((await put(m.base, 'orders', 'k0', 'again')).status).toBe(200);
    const after = await scrape(m.base);
    expect(v(after, 'grid_map_entries', 'orders')).toBe(8);
    expect(v(after, 'grid_map_gets_total', 'orders')).toBe(6);
    expect(v(after, 'grid_map_hits_total', 'orders')).toBe(4);
    expect(v(after, 'grid_map_misses_total', 'orders')).toBe(2);
    expect(v(after, 'grid_map_removes_total', 'orders')).toBe(3);
    expect(v(after, 'grid_map_puts_total', 'orders')).toBe(11);
    expect(v(after, 'grid_map_expirations_total', 'orders')).toBe(0);
    expect(after.get('grid_map_puts_total')!.type).toBe('counter');
    expect(after.get('grid_map_entries')!.type).toBe('gauge');

    // Expiry: 3 entries with a 1 s time to live, each counted once whether a read or the sweeper finds it.
    for (let i = 0; i < 3; i++) expect((await put(m.base, 'ttl-m', `t${i}`, 'x')).status).toBe(200);
    expect(v(await scrape(m.base), 'grid_map_entries', 'ttl-m')).toBe(3);
    // Each key was written a little after the one before: wait for each to expire (polled, 204 once gone).
    const deadline = Date.now() + 10_000;
    for (let i = 0; i < 3; i++) {
      while ((await fetch(`${m.base}/grid/rest/maps/ttl-m/t${i}`)).status === 200) {
        expect(Date.now()).toBeLessThan(deadline);
        await sleep(50);
      }
      expect((await fetch(`${m.base}/grid/rest/maps/ttl-m/t${i}`)).status).toBe(204);
    }
    const expired = await scrape(m.base);
    expect(v(expired, 'grid_map_expirations_total', 'ttl-m')).toBe(3);
    expect(v(expired, 'grid_map_entries', 'ttl-m')).toBe(0);
  });

  it('reports per queue: size, offers, rejected offers, polls and waiting polls, exactly', async () => {
    const m = await startMember(restConfig(undefined, { queue: { jobs: { 'max-size': 3 } } }));
    const v = (f: Map<string, Family>, name: string, queue: string): number | undefined => sampleValue(f, name, { queue });
    const offer = (q: string, body: string): Promise<Response> => fetch(`${m.base}/hazelcast/rest/queues/${q}`, { method: 'POST', body });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await offer('jobs', `j${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 503, 503]);
    let f = await scrape(m.base);
    expect(v(f, 'grid_queue_size', 'jobs')).toBe(3);
    expect(v(f, 'grid_queue_offers_total', 'jobs')).toBe(3);
    expect(v(f, 'grid_queue_rejected_offers_total', 'jobs')).toBe(2);
    expect(v(f, 'grid_queue_polls_total', 'jobs')).toBe(0);
    expect(v(f, 'grid_queue_waiting_polls', 'jobs')).toBe(0);
    for (let i = 0; i < 2; i++) expect((await fetch(`${m.base}/hazelcast/rest/queues/jobs/0`)).status).toBe(200);
    f = await scrape(m.base);
    expect(v(f, 'grid_queue_size', 'jobs')).toBe(1);
    expect(v(f, 'grid_queue_polls_total', 'jobs')).toBe(2);

    // A waiting poll shows as waiting until an offer serves it.
    const waiting = fetch(`${m.base}/hazelcast/rest/queues/later/10`);
    const deadline = Date.now() + 5_000;
    while (v(await scrape(m.base), 'grid_queue_waiting_polls', 'later') !== 1) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(20);
    }
    expect((await offer('later', 'now')).status).toBe(200);
    const served = await waiting;
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('now');
    f = await scrape(m.base);
    expect(v(f, 'grid_queue_waiting_polls', 'later')).toBe(0);
    expect(v(f, 'grid_queue_size', 'later')).toBe(0);
    expect(v(f, 'grid_queue_offers_total', 'later')).toBe(1);
    expect(v(f, 'grid_queue_polls_total', 'later')).toBe(1);
  });

  it('reports WAN publishers: queue depth, events queued, lag, endpoint and publisher state', async () => {
    // A target that refuses every connection: events stay queued.
    const down = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const target = `127.0.0.1:${(down.address() as net.AddressInfo).port}`;
      const m = await startMember(
        restConfig(undefined, {
          'wan-replication': { wr: { 'batch-publisher': { pub: { 'cluster-name': 'target', 'target-endpoints': target, 'batch-max-delay-millis': 50 } } } },
          map: { orders: { 'wan-replication-ref': { wr: {} } } },
        }),
      );
      for (let i = 0; i < 5; i++) expect((await put(m.base, 'orders', `k${i}`, 'v')).status).toBe(200);
      const pub = { replication: 'wr', publisher: 'pub' };
      let f = await scrape(m.base);
      expect(sampleValue(f, 'grid_wan_events_queued_total', pub)).toBe(5);
      expect(sampleValue(f, 'grid_wan_queue_events', { ...pub, queue: 'primary' })).toBe(5);
      expect(sampleValue(f, 'grid_wan_queue_events', { ...pub, queue: 'backup' })).toBe(0);
      expect(sampleValue(f, 'grid_wan_events_acknowledged_total', pub)).toBe(0);
      expect(sampleValue(f, 'grid_wan_events_dropped_total', pub)).toBe(0);
      expect(sampleValue(f, 'grid_wan_queue_capacity_events', pub)).toBe(10000);
      expect(sampleValue(f, 'grid_wan_endpoint_up', { ...pub, endpoint: target })).toBe(0);
      expect(sampleValue(f, 'grid_wan_publisher_state', { ...pub, state: 'REPLICATING' })).toBe(1);
      expect(sampleValue(f, 'grid_wan_publisher_state', { ...pub, state: 'PAUSED' })).toBe(0);
      expect(sampleValue(f, 'grid_wan_lag_seconds', pub)).toBeGreaterThanOrEqual(0);
      const paused = await fetch(`${m.base}/grid/rest/wan/pausePublisher`, { method: 'POST', body: 'dev&&wr&pub' });
      expect(paused.status).toBe(200);
      f = await scrape(m.base);
      expect(sampleValue(f, 'grid_wan_publisher_state', { ...pub, state: 'PAUSED' })).toBe(1);
      expect(sampleValue(f, 'grid_wan_publisher_state', { ...pub, state: 'REPLICATING' })).toBe(0);
    } finally {
      down.close();
    }
  });

  it('reports persistence: records, bytes written, writes and fsync latency, exactly per write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'grid-metrics-'));
    try {
      const m = await startMember(
        restConfig(undefined, {
          persistence: { enabled: true, 'base-dir': dir },
          map: { durable: { 'data-persistence': { enabled: true, fsync: true } } },
        }),
      );
      const before = await scrape(m.base);
      const v = (f: Map<string, Family>, name: string): number => sampleValue(f, name) ?? NaN;
      // One at a time: each put is its own write and fdatasync (writes of one event-loop turn are grouped).
      for (let i = 0; i < 4; i++) expect((await put(m.base, 'durable', `k${i}`, 'x'.repeat(100))).status).toBe(200);
      const after = await scrape(m.base);
      expect(v(after, 'grid_persistence_records_total') - v(before, 'grid_persistence_records_total')).toBe(4);
      expect(v(after, 'grid_persistence_writes_total') - v(before, 'grid_persistence_writes_total')).toBe(4);
      expect(v(after, 'grid_persistence_fsync_duration_seconds_count') - v(before, 'grid_persistence_fsync_duration_seconds_count')).toBe(4);
      const written = v(after, 'grid_persistence_written_bytes_total') - v(before, 'grid_persistence_written_bytes_total');
      expect(written).toBeGreaterThan(4 * 100);
      expect(written).toBeLessThan(4 * 400);
      expect(v(after, 'grid_persistence_log_bytes')).toBeGreaterThanOrEqual(written);
      expect(v(after, 'grid_persistence_fsync_duration_seconds_sum')).toBeGreaterThan(0);
      // A map without persistence writes nothing.
      expect((await put(m.base, 'volatile', 'k', 'x')).status).toBe(200);
      expect(v(await scrape(m.base), 'grid_persistence_records_total')).toBe(v(after, 'grid_persistence_records_total'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every metric a member registers in docs/metrics.md (and no other), and the example dashboard uses only those', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'grid-metrics-'));
    try {
      const m = await startMember(
        restConfig(undefined, {
          persistence: { enabled: true, 'base-dir': dir },
          'wan-replication': { wr: { 'batch-publisher': { pub: { 'cluster-name': 'target', 'target-endpoints': '127.0.0.1:9' } } } },
        }),
      );
      const names = new Set(m.member.metrics!.names());
      // CP metrics are registered only with the CP subsystem on (three members): take their names from the same function.
      const cp = new GridMetrics({ processMetrics: false });
      reportCpMetrics(cp, () => ({ enabled: true, seed: undefined, cpMemberUuid: undefined, viewVersion: undefined, groups: [] }));
      for (const n of cp.names()) names.add(n);
      const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
      const documented = new Set([...doc.matchAll(/`(grid_[a-z_]+)`/g)].map((x) => x[1]!));
      const registered = [...names].filter((n) => n.startsWith('grid_'));
      expect(registered.length).toBeGreaterThan(50);
      expect(registered.filter((n) => !documented.has(n)), 'registered but not in docs/metrics.md').toEqual([]);
      expect([...documented].filter((n) => !names.has(n)), 'in docs/metrics.md but not registered').toEqual([]);
      const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
      const used = new Set<string>();
      for (const p of dashboard.panels) for (const t of p.targets ?? []) for (const x of t.expr.matchAll(/\b((?:grid|process|nodejs)_[a-z0-9_]+)/g)) used.add(x[1]!.replace(/_(bucket|sum|count)$/, ''));
      expect(used.size).toBeGreaterThan(30);
      expect([...used].filter((n) => !names.has(n)), 'used by the dashboard but not registered').toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
