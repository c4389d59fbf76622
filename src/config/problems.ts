// The error type of the config subsystem and the collector every step writes into: each
// problem names the source, the element path and what is wrong. Values of passwords never
// reach a message: the steps that read them only ever report their path.

import { GridError } from '../core/errors.js';

/**
 * Thrown when a configuration cannot be loaded; `problems` holds one line per mistake, and
 * `warnings` what the load had found besides (so a caller can still show them).
 */
export class ConfigError extends GridError {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];

  constructor(problems: readonly string[], options?: { cause?: unknown; warnings?: readonly string[] }) {
    super('CONFIG_INVALID', problems.join('\n'), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
    this.warnings = Object.freeze([...(options?.warnings ?? [])]);
  }
}

/** Collects errors and warnings of one load. */
export class Problems {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  /**
   * Paths of Hazelcast elements Grid accepts without using (`hazelcast.multimap`): summed up
   * in one warning line by the loader, listed one by one on request (`--verbose`).
   */
  readonly unused: string[] = [];
  /**
   * Paths set from outside the file -> what set them (`environment variable HZ_NETWORK_PORT_PORT`,
   * `--port`), so messages can say so.
   */
  readonly origins = new Map<string, string>();

  constructor(readonly source: string) {}

  error(path: string, message: string): void {
    this.errors.push(this.format(path, message));
  }

  warn(path: string, message: string): void {
    this.warnings.push(this.format(path, message));
  }

  /** A Hazelcast element Grid accepts but does not use. */
  unusedElement(path: string): void {
    this.unused.push(path);
  }

  /** Throws a ConfigError when any error was collected (carrying the warnings so far). */
  throwIfErrors(): void {
    if (this.errors.length > 0) throw new ConfigError(this.errors, { warnings: this.allWarnings() });
  }

  /**
   * The warnings, then one line for the unused elements:
   * `<source>: not used by Grid: multimap, list, set (5 elements; ...)`.
   */
  allWarnings(): string[] {
    if (this.unused.length === 0) return [...this.warnings];
    const names = [...new Set(this.unused.map((p) => elementName(p)))];
    const count = this.unused.length;
    return [
      ...this.warnings,
      `${this.source}: not used by Grid: ${names.join(', ')} (${count} element${count === 1 ? '' : 's'}; \`grid validate --verbose\` lists their paths)`,
    ];
  }

  private format(path: string, message: string): string {
    const origin = this.origins.get(path);
    const where = path === '' ? '' : `${path}: `;
    return `${this.source}: ${where}${message}${origin === undefined ? '' : ` (set by ${origin})`}`;
  }
}

/**
 * The known name a mistyped one most likely meant (`mapp` -> `map`, `cluster_name` ->
 * `cluster-name`), or undefined when none is close: at most one edit for names of up to 5
 * characters, two for longer ones (an edit: a character added, removed, changed, or two
 * neighbours swapped; case is ignored). Ties go to the first candidate.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const limit = name.length <= 5 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    if (c === name) continue;
    const d = editDistance(name.toLowerCase(), c.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance; anything at or above `cap` is returned as `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= cap) return cap;
    prev2 = prev;
    prev = row;
  }
  return Math.min(prev[b.length]!, cap);
}

/** `hazelcast.map.default.in-memory-format` -> `in-memory-format`; `a.b[2]` -> `b`. */
function elementName(path: string): string {
  const last = path.split('.').pop() ?? path;
  return last.replace(/\[\d+\]$/, '');
}

/** `a.b` + `c` -> `a.b.c`. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Quotes a value for a message: strings in JSON quotes, everything else as written. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  return String(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
