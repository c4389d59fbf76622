// The narrow interface services report metrics through. Services keep their own plain
// counters (integer increments on hot paths) and declare, once, what to read from them at
// scrape time; metrics/ turns that into Prometheus output. Nothing here imports the metrics
// library: a service never sees it, and a member with metrics off never calls collect().

/** Label values by label name. Label names are fixed per metric; values must come from a bounded set. */
export type MetricLabels = Readonly<Record<string, string>>;

/** Report one value for one set of label values (none for an unlabelled metric). */
export type MetricReport = (value: number, labels?: MetricLabels) => void;

export interface MetricDef {
  /** Full name, `grid_` prefix, unit in the name, `_total` for counters, base units (seconds, bytes). */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export interface HistogramDef extends MetricDef {
  /** Upper bounds of the buckets, increasing, without +Inf. */
  readonly buckets: readonly number[];
}

/**
 * A histogram's counts as kept by its owner: `counts[i]` observations in bucket i (not
 * cumulative; the last entry is the +Inf bucket, so `counts.length === buckets.length + 1`)
 * and the sum of the observed values.
 */
export interface HistogramCounts {
  readonly counts: ArrayLike<number>;
  readonly sum: number;
}

export type HistogramReport = (h: HistogramCounts, labels?: MetricLabels) => void;

/** Where services declare their metrics. Every `collect` runs at scrape time only. */
export interface MetricsRegistrar {
  /** A counter: `collect` reports the total since the member started (never decreasing). */
  counter(def: MetricDef, collect: (report: MetricReport) => void): void;
  /** A gauge: `collect` reports the value now. */
  gauge(def: MetricDef, collect: (report: MetricReport) => void): void;
  histogram(def: HistogramDef, collect: (report: HistogramReport) => void): void;
  /** Runs once at the start of every scrape, before any collect (e.g. to take one snapshot that several metrics read). */
  beforeScrape(fn: () => void): void;
}

/**
 * A histogram kept in plain numbers: `observe` is a short bucket search and two additions,
 * cheap enough for hot paths (a library histogram with labels costs about 7x more per call).
 */
export class PlainHistogram implements HistogramCounts {
  readonly counts: Float64Array;
  sum = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = new Float64Array(buckets.length + 1);
  }

  observe(value: number): void {
    const b = this.buckets;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
  }
}

/** The label value under which names past a CountersByName bound are counted together. */
export const OTHER_NAMES_LABEL = '(other)';

/**
 * Counters per map or queue name, kept apart from the data so that they never go backwards
 * (a queue destroyed when empty, a partition migrated away). A name holding data on this
 * member always gets its own; a name only asked about (a GET of a map never written) gets its
 * own only while fewer than `maxUnbacked` such names exist; later ones share one record,
 * reported as `(other)`: a client cannot grow the label set without bound by inventing names.
 */
export class CountersByName<T> {
  private readonly byName = new Map<string, T>();
  private unbacked = 0;
  private other: T | undefined;

  constructor(
    private readonly create: () => T,
    private readonly maxUnbacked = 1000,
  ) {}

  /** The counters of `name`; `holdsData`: the structure exists on this member (it always gets its own). */
  of(name: string, holdsData: boolean): T {
    const c = this.byName.get(name);
    if (c !== undefined) return c;
    if (!holdsData) {
      if (this.unbacked >= this.maxUnbacked) return (this.other ??= this.create());
      this.unbacked++;
    }
    const created = this.create();
    this.byName.set(name, created);
    return created;
  }

  forEach(fn: (counters: T, label: string) => void): void {
    for (const [name, c] of this.byName) fn(c, name);
    if (this.other !== undefined) fn(this.other, OTHER_NAMES_LABEL);
  }
}
