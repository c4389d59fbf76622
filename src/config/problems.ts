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
