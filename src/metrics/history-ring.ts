// The metrics history of one member (docs/metrics.md, "Metrics history"): a fixed ring of
// samples, one column of numbers per series, allocated once (capacity x columns x 8 bytes),
// so a member's history never grows past its bound whatever runs on it. Pure: the sampler
// (member/metrics-sampler.ts) pushes one row a second; GET /grid/rest/metrics/history reads
// the last N rows as columns. A missing figure is NaN here and null in the answer.

/** Columns past the fixed ones (WAN publishers) beyond this are not kept: the bound holds even for a config with very many publishers. */
export const MAX_HISTORY_COLUMNS = 64;

/** The last rows of a ring, oldest first: sample times (epoch ms) and each column's values (null: not measured). */
export interface HistoryColumns {
  readonly times: number[];
  readonly series: Record<string, (number | null)[]>;
}

export class HistoryRing {
  private readonly times: Float64Array;
  private readonly columns = new Map<string, Float64Array>();
  /** Index the next row goes to. */
  private next = 0;
  private filled = 0;
  /** Columns refused past MAX_HISTORY_COLUMNS (reported, never kept). */
  droppedColumns = 0;

  constructor(
    readonly capacity: number,
    fixed: readonly string[],
    private readonly maxColumns = MAX_HISTORY_COLUMNS,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`history capacity must be a whole number >= 1, got ${capacity}`);
    this.times = new Float64Array(capacity);
    for (const name of fixed) this.column(name);
  }

  /** Rows held now (at most capacity). */
  get size(): number {
    return this.filled;
  }

  /** Names of the columns held. */
  columnNames(): string[] {
    return [...this.columns.keys()];
  }

  /** Bytes of the ring's arrays (what it costs the member, whatever it has seen). */
  get footprintBytes(): number {
    return (this.columns.size + 1) * this.capacity * 8;
  }

  private column(name: string): Float64Array | undefined {
    let c = this.columns.get(name);
    if (c === undefined) {
      if (this.columns.size >= this.maxColumns) return undefined;
      c = new Float64Array(this.capacity).fill(NaN);
      this.columns.set(name, c);
    }
    return c;
  }

  /** One row: the time and each named figure; a column not named gets NaN in this row, a new name a new column (within the bound). */
  push(timeMs: number, values: Readonly<Record<string, number>>): void {
    const at = this.next;
    this.times[at] = timeMs;
    for (const c of this.columns.values()) c[at] = NaN;
    for (const name in values) {
      const c = this.column(name);
      if (c === undefined) this.droppedColumns++;
      else c[at] = values[name]!;
    }
    this.next = (at + 1) % this.capacity;
    if (this.filled < this.capacity) this.filled++;
  }

  /** The last `rows` rows (all when fewer), oldest first; `only` keeps the columns it accepts. */
  read(rows: number, only?: (name: string) => boolean): HistoryColumns {
    const n = Math.max(0, Math.min(Math.floor(rows), this.filled));
    const start = (this.next - n + this.capacity) % this.capacity;
    const times: number[] = new Array<number>(n);
    for (let i = 0; i < n; i++) times[i] = this.times[(start + i) % this.capacity]!;
    const series: Record<string, (number | null)[]> = {};
    for (const [name, c] of this.columns) {
      if (only !== undefined && !only(name)) continue;
      const out: (number | null)[] = new Array<number | null>(n);
      let any = false;
      for (let i = 0; i < n; i++) {
        const v = c[(start + i) % this.capacity]!;
        if (Number.isNaN(v)) out[i] = null;
        else {
          out[i] = v;
          any = true;
        }
      }
      // A column with nothing in the rows asked for (a publisher removed long ago) is left out.
      if (any || n === 0) series[name] = out;
    }
    return { times, series };
  }
}

/**
 * The q-quantile (0..1) of the observations counted in `counts` (per bucket, not cumulative;
 * the last slot is +Inf) with upper bounds `buckets`: linear within the bucket it falls in,
 * as Prometheus's histogram_quantile does; the +Inf bucket answers the last finite bound.
 * NaN when nothing was counted.
 */
export function bucketQuantile(counts: ArrayLike<number>, buckets: readonly number[], q: number): number {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  if (total <= 0) return NaN;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (c > 0 && seen + c >= rank) {
      if (i >= buckets.length) return buckets[buckets.length - 1] ?? NaN;
      const lower = i === 0 ? 0 : buckets[i - 1]!;
      const upper = buckets[i]!;
      return lower + (upper - lower) * ((rank - seen) / c);
    }
    seen += c;
  }
  return buckets[buckets.length - 1] ?? NaN;
}

/** Per-second rate of a counter between two readings `dtMs` apart; NaN without a previous reading, 0 for a counter that went back (a restart). */
export function ratePerSecond(previous: number | undefined, current: number, dtMs: number): number {
  if (previous === undefined || dtMs <= 0) return NaN;
  const d = current - previous;
  return d <= 0 ? 0 : (d * 1000) / dtMs;
}

/**
 * Rates per name between two snapshots of per-name counters (each a fixed-length tuple of
 * totals): a name new since the previous snapshot counts from 0 (its counters started in this
 * interval); names whose rates are all 0 are left out (the listing shows no rate as 0).
 */
export function ratesByName(previous: ReadonlyMap<string, readonly number[]>, current: ReadonlyMap<string, readonly number[]>, dtMs: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (dtMs <= 0) return out;
  for (const [name, cur] of current) {
    const prev = previous.get(name);
    let nonZero = false;
    const rates = cur.map((v, i) => {
      const r = ratePerSecond(prev?.[i] ?? 0, v, dtMs);
      if (r > 0) nonZero = true;
      return r;
    });
    if (nonZero) out.set(name, rates);
  }
  return out;
}
