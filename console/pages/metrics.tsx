// The Metrics page: request rate, REST latency p50/p99, heap and RSS, GC time and event-loop lag
// of the serving member over the last five minutes, live. There is no metrics history endpoint
// on the member, so the page samples GET metrics (the Prometheus text, group CLUSTER_READ)
// every SAMPLE_MS and keeps the samples itself: the charts start empty when the page opens.
// A page reaches only its own member (the member refuses cross-site calls), so the other
// members are links to their own consoles.

import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, request, usePoll } from '../api.js';
import { Chart, NO_SAMPLES, pushSample, type Samples } from '../chart.js';
import { buckets, parsePrometheus, quantileBetween, total, type Sample } from '../prometheus.js';
import { ErrorView, Loading, Panel, formatBytes } from '../ui.js';
import type { PageProps } from './index.js';

const SAMPLE_MS = 2000;

interface Charts {
  readonly requests: Samples;
  readonly latency: Samples;
  readonly memory: Samples;
  readonly gc: Samples;
  readonly loop: Samples;
}

const EMPTY: Charts = { requests: NO_SAMPLES, latency: NO_SAMPLES, memory: NO_SAMPLES, gc: NO_SAMPLES, loop: NO_SAMPLES };

/** The console's own scrapes are not the users' requests. */
const notScrape = (l: Readonly<Record<string, string>>): boolean => l['route'] !== 'metrics';

/** One step of the charts from two consecutive scrapes (rates and quantiles need both). */
export function step(c: Charts, prev: { at: number; samples: readonly Sample[] } | undefined, at: number, now: readonly Sample[]): Charts {
  const dt = prev === undefined ? 0 : (at - prev.at) / 1000;
  const rate = (name: string, where?: (l: Readonly<Record<string, string>>) => boolean): number | null => {
    if (prev === undefined || dt <= 0) return null;
    const a = total(prev.samples, name, where);
    const b = total(now, name, where);
    return a === undefined || b === undefined ? null : Math.max(0, b - a) / dt;
  };
  const lat = (q: number): number | null => {
    if (prev === undefined) return null;
    const v = quantileBetween(buckets(prev.samples, 'grid_rest_request_duration_seconds'), buckets(now, 'grid_rest_request_duration_seconds'), q);
    return v === undefined ? null : v * 1000;
  };
  const gcRate = rate('nodejs_gc_duration_seconds_sum');
  return {
    requests: pushSample(c.requests, at, { 'requests/s': rate('grid_rest_requests_total', notScrape), 'errors (5xx)/s': rate('grid_rest_requests_total', (l) => notScrape(l) && (l['status'] ?? '').startsWith('5')) }),
    latency: pushSample(c.latency, at, { p50: lat(0.5), p99: lat(0.99) }),
    memory: pushSample(c.memory, at, { 'heap used': total(now, 'nodejs_heap_size_used_bytes') ?? null, 'heap total': total(now, 'nodejs_heap_size_total_bytes') ?? null, RSS: total(now, 'process_resident_memory_bytes') ?? null }),
    gc: pushSample(c.gc, at, { 'GC time (ms per s)': gcRate === null ? null : gcRate * 1000 }),
    loop: pushSample(c.loop, at, { lag: msOf(total(now, 'nodejs_eventloop_lag_seconds')), 'p99 since last scrape': msOf(total(now, 'nodejs_eventloop_lag_p99_seconds')) }),
  };
}

const msOf = (s: number | undefined): number | null => (s === undefined ? null : s * 1000);

export function MetricsPage({ session }: PageProps) {
  const [charts, setCharts] = useState<Charts>(EMPTY);
  const last = useRef<{ at: number; samples: Sample[] } | undefined>(undefined);
  const poll = usePoll(
    async (signal) => {
      const text = await (await request('metrics', { signal })).text();
      return { at: Date.now(), samples: parsePrometheus(text) };
    },
    SAMPLE_MS,
    [session],
  );
  useEffect(() => {
    const d = poll.data;
    if (d === undefined) return;
    setCharts((c) => step(c, last.current, d.at, d.samples));
    last.current = d;
  }, [poll.data]);
  const members = usePoll((signal) => getJson<{ members: { address: string; localMember: boolean }[] }>('rest/cluster', signal), 10_000, [session]);
  if (poll.data === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  const ms = (v: number): string => (v < 10 ? `${v.toFixed(2)} ms` : `${Math.round(v)} ms`);
  return (
    <div class="page" data-testid="metrics-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      <Panel title={`Member ${session.memberAddress}, last five minutes`} id="metrics-title">
        <p class="muted">
          Sampled by this page from the member's <code>GET /grid/metrics</code> every {SAMPLE_MS / 1000} s while it is open (the console's own scrapes are not counted as requests).
          {members.data !== undefined && members.data.members.length > 1 && (
            <>
              {' '}
              Other members:{' '}
              {members.data.members
                .filter((m) => !m.localMember)
                .map((m, i) => (
                  <span key={m.address}>
                    {i > 0 && ', '}
                    <a href={`http://${m.address.replace(/^\[?([^\]]*)\]?:(\d+)$/, (_a, h: string, p: string) => (h.includes(':') ? `[${h}]` : h) + ':' + p)}/grid/console/#/metrics`}>{m.address}</a>
                  </span>
                ))}
              {' '}(their consoles, if the console is served on their member port).
            </>
          )}
        </p>
        <div class="charts">
          <Chart title="REST requests per second" samples={charts.requests} unit={(v) => v.toFixed(v < 10 ? 1 : 0)} testId="chart-requests" />
          <Chart title="REST latency (ms)" samples={charts.latency} unit={ms} testId="chart-latency" />
          <Chart title="Memory" samples={charts.memory} unit={(v) => formatBytes(v)} testId="chart-memory" />
          <Chart title="Garbage collection (ms of GC per second)" samples={charts.gc} unit={ms} testId="chart-gc" />
          <Chart title="Event-loop lag (ms)" samples={charts.loop} unit={ms} testId="chart-loop" />
        </div>
      </Panel>
    </div>
  );
}
