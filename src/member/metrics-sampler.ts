// Samples this member's figures once a second into its metrics history (metrics/history-ring.ts;
// docs/metrics.md, "Metrics history"): request rates and latency from the counters REST and the
// client protocol keep anyway (differenced between samples, nothing added per request beyond one
// increment per client message), memory, GC (perf_hooks), event-loop delay
// (monitorEventLoopDelay), map entries and bytes, WAN queue depth and lag per publisher; and the
// per-map and per-queue operation rates of the last interval, for the maps and queues listings.
// One timer; the work per tick is proportional to the number of maps, queues and publishers.

import { PerformanceObserver, monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Clock, TimerHandle } from '../core/clock.js';
import { HistoryRing, bucketQuantile, ratePerSecond, ratesByName, type HistoryColumns } from '../metrics/history-ring.js';
import type { MemberHistory, OperationRates } from '../rest/context.js';

/** The fixed series, in the order the console shows them. */
export const HISTORY_SERIES = [
  'restRequestsPerSecond',
  'restLatencyP50Ms',
  'restLatencyP99Ms',
  'clientRequestsPerSecond',
  'heapUsedBytes',
  'rssBytes',
  'gcPauseMsPerSecond',
  'gcCountPerSecond',
  'eventLoopLagP99Ms',
  'eventLoopLagMaxMs',
  'mapEntries',
  'mapBytes',
] as const;

/** WAN series are columns named `<prefix><wanReplicationName>/<publisherId>`. */
export const WAN_QUEUE_PREFIX = 'wanQueueDepth:';
export const WAN_LAG_PREFIX = 'wanLagMs:';

export interface SamplerSources {
  /** REST requests answered so far and their latency counts per bucket (into); undefined while no counts are kept (metrics off, REST off). */
  readonly rest: { readonly buckets: readonly number[]; totals(into: Float64Array): number | undefined };
  /** Client-protocol requests received so far. */
  clientRequests(): number;
  mapFootprint(): { entries: number; bytes: number };
  /** Each publisher's primary queue depth and the age of its oldest queued event. */
  wan(): readonly { readonly wanReplicationName: string; readonly publisherId: string; readonly primaryQueueSize: number; readonly lagMillis: number }[];
  /** Per map: its gets, puts and removes so far on this member as owner. */
  forEachMap(fn: (c: { readonly gets: number; readonly puts: number; readonly removes: number }, name: string) => void): void;
  /** Per queue: its offers and polls so far on this member as owner. */
  forEachQueue(fn: (c: { readonly offers: number; readonly polls: number }, name: string) => void): void;
}

export interface SamplerOptions {
  readonly clock: Clock;
  readonly sources: SamplerSources;
  /** Default 1000. */
  readonly intervalMs?: number;
  /** Samples kept; default 600 (10 minutes at 1 s). */
  readonly capacity?: number;
}

export const DEFAULT_SAMPLE_INTERVAL_MS = 1_000;
export const DEFAULT_HISTORY_SAMPLES = 600;

export class MetricsSampler {
  readonly ring: HistoryRing;
  readonly intervalMs: number;
  private timer: TimerHandle | undefined;
  private gc: PerformanceObserver | undefined;
  private gcCount = 0;
  private gcMs = 0;
  private delay: IntervalHistogram | undefined;
  private readonly restNow: Float64Array;
  private readonly restPrev: Float64Array;
  private readonly restDiff: Float64Array;
  private last: { time: number; rest: number | undefined; client: number; gcCount: number; gcMs: number } | undefined;
  private mapTotals = new Map<string, number[]>();
  private queueTotals = new Map<string, number[]>();
  private rates: OperationRates;

  constructor(private readonly opts: SamplerOptions) {
    this.intervalMs = opts.intervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
    this.ring = new HistoryRing(opts.capacity ?? DEFAULT_HISTORY_SAMPLES, HISTORY_SERIES);
    const slots = opts.sources.rest.buckets.length + 1;
    this.restNow = new Float64Array(slots);
    this.restPrev = new Float64Array(slots);
    this.restDiff = new Float64Array(slots);
    this.rates = { intervalMs: this.intervalMs, maps: {}, queues: {} };
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        this.gcCount++;
        this.gcMs += e.duration;
      }
    });
    this.gc.observe({ entryTypes: ['gc'] });
    // 20 ms resolution: the lag of interest is tens of ms and more; finer costs more wake-ups.
    this.delay = monitorEventLoopDelay({ resolution: 20 });
    this.delay.enable();
    this.sample();
    this.timer = this.opts.clock.setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.gc?.disconnect();
    this.gc = undefined;
    this.delay?.disable();
    this.delay = undefined;
  }

  /** Take one sample now (the timer's work; tests call it to fill the ring without waiting). */
  sample(): void {
    const s = this.opts.sources;
    const now = this.opts.clock.now();
    const rest = s.rest.totals(this.restNow);
    const client = s.clientRequests();
    const prev = this.last;
    const dt = prev === undefined ? 0 : now - prev.time;
    const row: Record<string, number> = {};
    row.restRequestsPerSecond = rest === undefined ? NaN : ratePerSecond(prev?.rest, rest, dt);
    if (rest !== undefined && prev?.rest !== undefined) {
      // The latency of the requests answered in this interval: this sample's bucket counts less the last one's.
      const diff = this.restDiff;
      for (let i = 0; i < diff.length; i++) diff[i] = Math.max(0, this.restNow[i]! - this.restPrev[i]!);
      row.restLatencyP50Ms = bucketQuantile(diff, s.rest.buckets, 0.5) * 1000;
      row.restLatencyP99Ms = bucketQuantile(diff, s.rest.buckets, 0.99) * 1000;
    }
    this.restPrev.set(this.restNow);
    row.clientRequestsPerSecond = ratePerSecond(prev?.client, client, dt);
    const mem = process.memoryUsage();
    row.heapUsedBytes = mem.heapUsed;
    row.rssBytes = mem.rss;
    row.gcPauseMsPerSecond = ratePerSecond(prev?.gcMs, this.gcMs, dt);
    row.gcCountPerSecond = ratePerSecond(prev?.gcCount, this.gcCount, dt);
    if (this.delay !== undefined && this.delay.count > 0) {
      row.eventLoopLagP99Ms = this.delay.percentile(99) / 1e6;
      row.eventLoopLagMaxMs = this.delay.max / 1e6;
      this.delay.reset();
    }
    const fp = s.mapFootprint();
    row.mapEntries = fp.entries;
    row.mapBytes = fp.bytes;
    for (const p of s.wan()) {
      const key = `${p.wanReplicationName}/${p.publisherId}`;
      row[WAN_QUEUE_PREFIX + key] = p.primaryQueueSize;
      row[WAN_LAG_PREFIX + key] = p.lagMillis;
    }
    this.ring.push(now, row);

    const maps = new Map<string, number[]>();
    s.forEachMap((c, name) => maps.set(name, [c.gets, c.puts, c.removes]));
    const queues = new Map<string, number[]>();
    s.forEachQueue((c, name) => queues.set(name, [c.offers, c.polls]));
    if (prev !== undefined) {
      this.rates = { intervalMs: dt, maps: Object.fromEntries(ratesByName(this.mapTotals, maps, dt)), queues: Object.fromEntries(ratesByName(this.queueTotals, queues, dt)) };
    }
    this.mapTotals = maps;
    this.queueTotals = queues;
    this.last = { time: now, rest, client, gcCount: this.gcCount, gcMs: this.gcMs };
  }

  /** The last `seconds` of samples (at most the ring's), columns split into the fixed series and the WAN publishers. */
  history(seconds: number): MemberHistory {
    const rows = Math.ceil((seconds * 1000) / this.intervalMs);
    const h: HistoryColumns = this.ring.read(rows);
    const series: Record<string, (number | null)[]> = {};
    const wan = new Map<string, { wanReplicationName: string; publisherId: string; queueDepth: (number | null)[]; lagMs: (number | null)[] }>();
    const empty = (): (number | null)[] => h.times.map(() => null);
    for (const [name, values] of Object.entries(h.series)) {
      const prefix = name.startsWith(WAN_QUEUE_PREFIX) ? WAN_QUEUE_PREFIX : name.startsWith(WAN_LAG_PREFIX) ? WAN_LAG_PREFIX : undefined;
      if (prefix === undefined) {
        series[name] = values;
        continue;
      }
      const key = name.slice(prefix.length);
      const slash = key.lastIndexOf('/');
      let p = wan.get(key);
      if (p === undefined) wan.set(key, (p = { wanReplicationName: key.slice(0, slash), publisherId: key.slice(slash + 1), queueDepth: empty(), lagMs: empty() }));
      if (prefix === WAN_QUEUE_PREFIX) p.queueDepth = values;
      else p.lagMs = values;
    }
    return { intervalMs: this.intervalMs, times: h.times, series, wan: [...wan.values()] };
  }

  /** Per-map and per-queue operation rates over the last sample interval. */
  operationRates(): OperationRates {
    return this.rates;
  }
}
