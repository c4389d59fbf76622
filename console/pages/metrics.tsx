// The Metrics page: per member, over the last minutes, REST request rate, latency p50 and p99,
// heap, RSS, GC pause and event-loop lag, live. From GET rest/metrics/history (CLUSTER_READ):
// every member's own one-second samples, gathered by the member serving the console. The first
// read takes the whole window; later reads take only the seconds since the newest sample and
// are merged in, so a poll stays small however long the window.

import { useRef, useState } from 'preact/hooks';
import { ApiError, getJson, usePoll } from '../api.js';
import { TimeChart } from '../chart.js';
import { ErrorView, Loading, Panel, formatBytes } from '../ui.js';
import type { PageProps } from './index.js';

interface HistoryReport {
  readonly members: readonly {
    readonly uuid: string;
    readonly address: string;
    readonly reachable: boolean;
    readonly error?: string;
    readonly history?: { readonly times: readonly number[]; readonly series: Readonly<Record<string, readonly (number | null)[]>> };
  }[];
}

/** What the page keeps per member: samples by epoch second. */
interface Kept {
  address: string;
  reachable: boolean;
  error: string | undefined;
  samples: Map<number, Readonly<Record<string, number | null>>>;
}

const POLL_MS = 2000;
const WINDOWS = [60, 300, 600] as const;

const ms = (v: number): string => (v >= 100 ? `${v.toFixed(0)} ms` : `${v.toFixed(v >= 10 ? 1 : 2)} ms`);
const rate = (v: number): string => (v >= 1000 ? `${(v / 1000).toFixed(1)}k/s` : `${v.toFixed(v >= 10 ? 0 : 1)}/s`);

const CHARTS: readonly { title: string; series: readonly { key: string; suffix: string }[]; format: (v: number) => string }[] = [
  { title: 'REST requests per second', series: [{ key: 'restRequestsPerSecond', suffix: '' }], format: rate },
  { title: 'REST latency p50 / p99', series: [{ key: 'restLatencyP50Ms', suffix: ' p50' }, { key: 'restLatencyP99Ms', suffix: ' p99' }], format: ms },
  { title: 'Client requests per second', series: [{ key: 'clientRequestsPerSecond', suffix: '' }], format: rate },
  { title: 'Heap used', series: [{ key: 'heapUsedBytes', suffix: '' }], format: formatBytes },
  { title: 'Resident set (RSS)', series: [{ key: 'rssBytes', suffix: '' }], format: formatBytes },
  { title: 'GC pause per second', series: [{ key: 'gcPauseMsPerSecond', suffix: '' }], format: ms },
  { title: 'Event-loop lag p99', series: [{ key: 'eventLoopLagP99Ms', suffix: '' }], format: ms },
];

/** Merges a report into what is kept, dropping samples older than the window. */
function merge(kept: Map<string, Kept>, report: HistoryReport, windowSeconds: number): void {
  const present = new Set<string>();
  for (const m of report.members) {
    present.add(m.uuid);
    let k = kept.get(m.uuid);
    if (k === undefined) kept.set(m.uuid, (k = { address: m.address, reachable: m.reachable, error: m.error, samples: new Map() }));
    k.reachable = m.reachable;
    k.error = m.error;
    const h = m.history;
    if (h === undefined) continue;
    h.times.forEach((t, i) => {
      const row: Record<string, number | null> = {};
      for (const [name, values] of Object.entries(h.series)) row[name] = values[i] ?? null;
      k!.samples.set(Math.floor(t / 1000), row);
    });
  }
  // A member that left the member list leaves the charts.
  for (const uuid of [...kept.keys()]) if (!present.has(uuid)) kept.delete(uuid);
  const newest = Math.max(0, ...[...kept.values()].flatMap((k) => [...k.samples.keys()]));
  for (const k of kept.values()) for (const t of [...k.samples.keys()]) if (t <= newest - windowSeconds) k.samples.delete(t);
}

export function MetricsPage(_props: PageProps) {
  const [windowSeconds, setWindow] = useState<number>(300);
  const kept = useRef(new Map<string, Kept>());
  const newest = useRef<number | undefined>(undefined);
  const poll = usePoll(
    async (signal) => {
      // Only what is new since the last read (plus a little overlap: members' clocks and samples are not aligned).
      const since = newest.current === undefined ? windowSeconds : Math.min(windowSeconds, Math.ceil(Date.now() / 1000 - newest.current) + 3);
      const report = await getJson<HistoryReport>(`rest/metrics/history?seconds=${Math.max(1, since)}`, signal);
      merge(kept.current, report, windowSeconds);
      newest.current = Math.max(0, ...[...kept.current.values()].flatMap((k) => [...k.samples.keys()]));
      return kept.current.size;
    },
    POLL_MS,
    [windowSeconds],
  );
  if (poll.error instanceof ApiError && poll.error.status === 400 && poll.data === undefined) {
    return (
      <div class="not-allowed" role="alert" data-testid="no-history">
        <strong>No metrics history on this member.</strong> Its build has no <code>GET /grid/rest/metrics/history</code>: {poll.error.reason}.
      </div>
    );
  }
  if (poll.data === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  const members = [...kept.current.entries()].sort((a, b) => a[1].address.localeCompare(b[1].address));
  const x = [...new Set(members.flatMap(([, k]) => [...k.samples.keys()]))].sort((a, b) => a - b);
  const unreachable = members.filter(([, k]) => !k.reachable);
  return (
    <div class="page" data-testid="metrics-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      <Panel
        title="Metrics"
        id="metrics-title"
        actions={
          <label>
            Last{' '}
            <select
              value={String(windowSeconds)}
              onChange={(e) => {
                newest.current = undefined;
                kept.current = new Map();
                setWindow(Number((e.currentTarget as HTMLSelectElement).value));
              }}
            >
              {WINDOWS.map((w) => (
                <option value={String(w)} key={w}>
                  {w / 60 >= 1 ? `${w / 60} min` : `${w} s`}
                </option>
              ))}
            </select>
          </label>
        }
      >
        <p class="muted small">
          One sample a second from each member's own counters ({members.length} members, {x.length} seconds shown); updated every{' '}
          {POLL_MS / 1000} s. Members' clocks are not aligned to the same instants.
        </p>
        {unreachable.length > 0 && (
          <p class="warn" role="status">
            No answer from {unreachable.map(([, k]) => `${k.address} (${k.error ?? 'unreachable'})`).join(', ')}.
          </p>
        )}
      </Panel>
      <div class="charts">
        {CHARTS.map((c) => (
          <TimeChart
            key={c.title}
            title={c.title}
            format={c.format}
            x={x}
            series={members.flatMap(([, k]) => c.series.map((s) => ({ label: `${k.address}${s.suffix}`, values: x.map((t) => k.samples.get(t)?.[s.key] ?? null) })))}
          />
        ))}
      </div>
    </div>
  );
}
