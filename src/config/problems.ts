// The error type of the config subsystem and the collector every step writes into: each
// problem names the source, the element path and what is wrong. Values of passwords never
// reach a message: the steps that read them only ever report their path.

import { GridError } from '../core/errors.js';

/** Thrown when a configuration cannot be loaded; `problems` holds one line per mistake. */
export class ConfigError extends GridError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options?: { cause?: unknown }) {
    super('CONFIG_INVALID', problems.join('\n'), options);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/** Collects errors and warnings of one load. */
export class Problems {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  /** Paths set from the environment -> the variable that set them, so messages can say so. */
  readonly origins = new Map<string, string>();

  constructor(readonly source: string) {}

  error(path: string, message: string): void {
    this.errors.push(this.format(path, message));
  }

  warn(path: string, message: string): void {
    this.warnings.push(this.format(path, message));
  }

  /** Throws a ConfigError when any error was collected. */
  throwIfErrors(): void {
    if (this.errors.length > 0) throw new ConfigError(this.errors);
  }

  private format(path: string, message: string): string {
    const origin = this.origins.get(path);
    const where = path === '' ? '' : `${path}: `;
    return `${this.source}: ${where}${message}${origin === undefined ? '' : ` (set by environment variable ${origin})`}`;
  }
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
