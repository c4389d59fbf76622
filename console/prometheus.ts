// Reads the Prometheus text format the member serves at GET metrics (docs/metrics.md): samples
// by name and labels, and a histogram's quantile from the bucket counts gained between two
// scrapes (the latency of the last interval, not since start). Pure, unit-tested.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    const v = m[3]!;
    const value = v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v);
    if (!Number.isNaN(value) || v === 'NaN') out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** The sum of every sample of `name` (over all its label sets), or undefined when there is none. */
export function total(samples: readonly Sample[], name: string, where: (labels: Readonly<Record<string, string>>) => boolean = () => true): number | undefined {
  let sum: number | undefined;
  for (const s of samples) if (s.name === name && where(s.labels)) sum = (sum ?? 0) + s.value;
  return sum;
}

/** A histogram's cumulative bucket counts, summed over its other labels, by upper bound ascending. */
export function buckets(samples: readonly Sample[], name: string): [number, number][] {
  const by = new Map<number, number>();
  for (const s of samples) {
    if (s.name !== `${name}_bucket`) continue;
    const le = s.labels['le'];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    if (Number.isNaN(bound)) continue;
    by.set(bound, (by.get(bound) ?? 0) + s.value);
  }
  return [...by].sort((a, b) => a[0] - b[0]);
}

/**
 * The q-quantile (0..1) of what a histogram observed between two scrapes, interpolated
 * linearly inside the bucket it falls in (as Prometheus' histogram_quantile). Undefined when
 * nothing was observed in between; the highest finite bound when it falls in the +Inf bucket.
 */
export function quantileBetween(before: readonly [number, number][], after: readonly [number, number][], q: number): number | undefined {
  const prev = new Map(before);
  const delta = after.map(([le, c]) => [le, Math.max(0, c - (prev.get(le) ?? 0))] as const);
  const count = delta.at(-1)?.[1] ?? 0;
  if (count <= 0) return undefined;
  const rank = q * count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, c] of delta) {
    if (c >= rank) {
      if (le === Infinity) return lowerBound;
      if (c === lowerCount) return le;
      return lowerBound + ((le - lowerBound) * (rank - lowerCount)) / (c - lowerCount);
    }
    lowerBound = le;
    lowerCount = c;
  }
  return lowerBound;
}
