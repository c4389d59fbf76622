// The one place that imports the metrics library (prom-client). Services declare their
// metrics through core/metrics.ts's MetricsRegistrar; here each becomes a prom-client metric
// whose value is read at scrape time from the service's own counters, so a request pays for
// metrics only where a service increments a plain number. prom-client's default metrics add
// the process figures (CPU, RSS, heap, event-loop lag, GC) under their usual names.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HistogramCounts, HistogramDef, MetricDef, MetricLabels, MetricReport, MetricsRegistrar } from '../core/metrics.js';

type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };
type Collected = Awaited<ReturnType<Histogram['get']>>;

/**
 * A histogram whose counts live in a service (core/metrics.ts's PlainHistogram): its get()
 * reads them instead of prom-client's own per-observation bookkeeping (about 7x the cost of
 * PlainHistogram.observe per request, with labels). Formatting stays prom-client's.
 */
class ScrapedHistogram extends Histogram {
  constructor(
    private readonly def: HistogramDef,
    private readonly read: (report: (h: HistogramCounts, labels?: MetricLabels) => void) => void,
  ) {
    super({ name: def.name, help: def.help, labelNames: [...(def.labelNames ?? [])], buckets: [...def.buckets], registers: [] });
  }

  override get(): Promise<Collected> {
    const values: Sample[] = [];
    const { name, buckets } = this.def;
    this.read((h, labels = {}) => {
      let cumulative = 0;
      for (let i = 0; i <= buckets.length; i++) {
        cumulative += h.counts[i] ?? 0;
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: i < buckets.length ? buckets[i]! : '+Inf' }, value: cumulative });
      }
      values.push({ metricName: `${name}_sum`, labels: { ...labels }, value: h.sum });
      values.push({ metricName: `${name}_count`, labels: { ...labels }, value: cumulative });
    });
    return Promise.resolve({ name, help: this.def.help, type: 'histogram', aggregator: 'sum', values } as unknown as Collected);
  }

  /** The registry formats through this one when a metric has it (prom-client's Histogram does). */
  getForPromString(): Promise<Collected> {
    return this.get();
  }
}

export interface MetricsScrape {
  readonly contentType: string;
  readonly body: string;
}

export class GridMetrics implements MetricsRegistrar {
  private readonly registry = new Registry();
  private readonly hooks: (() => void)[] = [];

  constructor(opts: { processMetrics: boolean } = { processMetrics: true }) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** What every metric of this registry is created with. */
  private common(def: MetricDef): { name: string; help: string; labelNames: string[]; registers: Registry[] } {
    return { name: def.name, help: def.help, labelNames: [...(def.labelNames ?? [])], registers: [this.registry] };
  }

  counter(def: MetricDef, collect: (report: MetricReport) => void): void {
    new Counter({
      ...this.common(def),
      collect() {
        // The total is the service's own counter: start from zero and add it.
        this.reset();
        collect((value, labels) => (labels === undefined ? this.inc(value) : this.inc(labels, value)));
      },
    });
  }

  gauge(def: MetricDef, collect: (report: MetricReport) => void): void {
    new Gauge({
      ...this.common(def),
      collect() {
        this.reset();
        collect((value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)));
      },
    });
  }

  histogram(def: HistogramDef, collect: (report: (h: HistogramCounts, labels?: MetricLabels) => void) => void): void {
    this.registry.registerMetric(new ScrapedHistogram(def, collect));
  }

  beforeScrape(fn: () => void): void {
    this.hooks.push(fn);
  }

  /** The Prometheus text exposition of every metric, read now. */
  async scrape(): Promise<MetricsScrape> {
    for (const fn of this.hooks) fn();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Names of the metrics registered (for tests and docs checks). */
  names(): string[] {
    return this.registry.getMetricsAsArray().map((m) => m.name);
  }
}
