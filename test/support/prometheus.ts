// A strict little parser of the Prometheus text exposition format (version 0.0.4), for tests:
// every sample must belong to a family announced by # TYPE, names and label names must be
// valid, label values properly escaped, values numbers; histograms must have cumulative
// buckets ending in +Inf equal to _count.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseValue(s: string, line: string): number {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  // Prometheus parses values with Go's ParseFloat: NaN in any case (prom-client writes `Nan`).
  if (s.toLowerCase() === 'nan') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`not a number: ${s} in ${line}`);
  return Number(s);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq === -1) throw new Error(`bad labels in ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name} in ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in ${line}`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`unterminated label value in ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const n = text[j + 1];
        if (n === 'n') value += '\n';
        else if (n === '\\' || n === '"') value += n;
        else throw new Error(`bad escape in ${line}`);
        j += 2;
        continue;
      }
      if (c === '\n') throw new Error(`raw newline in label value in ${line}`);
      value += c;
      j++;
    }
    if (name in labels) throw new Error(`duplicate label ${name} in ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i < text.length) throw new Error(`bad label separator in ${line}`);
  }
  return labels;
}

/** Parse a whole exposition; throws on anything malformed. */
export function parsePrometheus(body: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  if (!body.endsWith('\n')) throw new Error('exposition must end with a newline');
  for (const line of body.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const sp = rest.indexOf(' ');
      helps.set(sp === -1 ? rest : rest.slice(0, sp), sp === -1 ? '' : rest.slice(sp + 1));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (name === undefined || !NAME.test(name)) throw new Error(`bad TYPE line: ${line}`);
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type ?? '')) throw new Error(`bad type: ${line}`);
      if (families.has(name)) throw new Error(`family ${name} declared twice`);
      families.set(name, { name, type: type as Family['type'], help: helps.get(name) ?? '', samples: [] });
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (m === null) throw new Error(`bad sample line: ${line}`);
    const name = m[1]!;
    const labels = m[2] === undefined ? {} : parseLabels(m[2], line);
    const value = parseValue(m[3]!, line);
    const base = [...families.keys()].find((f) => name === f || ((name === `${f}_bucket` || name === `${f}_sum` || name === `${f}_count`) && families.get(f)!.type === 'histogram'));
    if (base === undefined) throw new Error(`sample without # TYPE: ${line}`);
    families.get(base)!.samples.push({ name, labels, value });
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Readonly<Record<string, string>>): string =>
    JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort(([a], [b]) => a.localeCompare(b)));
  for (const s of f.samples) {
    const k = keyOf(s.labels);
    let e = series.get(k);
    if (e === undefined) series.set(k, (e = { buckets: [] }));
    if (s.name.endsWith('_bucket')) e.buckets.push([s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), s.value]);
    else if (s.name.endsWith('_count')) e.count = s.value;
  }
  for (const [k, e] of series) {
    let prev = -Infinity;
    let prevCount = 0;
    for (const [le, n] of e.buckets) {
      if (!(le > prev) || n < prevCount) throw new Error(`${f.name}${k}: buckets not increasing or not cumulative`);
      prev = le;
      prevCount = n;
    }
    if (prev !== Infinity || e.count !== prevCount) throw new Error(`${f.name}${k}: +Inf bucket missing or != _count`);
  }
}

/** The value of one sample (exact label match on the labels given; others must not exist); undefined when absent. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(s.labels).filter((k) => k !== 'le' || 'le' in labels);
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value;
    }
  }
  return undefined;
}

/** Scrape a member's /metrics and parse it. */
export async function scrape(base: string, path = '/metrics'): Promise<Map<string, Family>> {
  const res = await fetch(`${base}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.headers.get('x-grid-error') ?? ''}`);
  return parsePrometheus(await res.text());
}
