// The section-reader core every reader of the validator uses: `Section` reads one mapping of
// the raw tree and remembers which keys it read (so the rest is reported, never dropped), plus
// the value rules shared by all readers (booleans, bounded integers, lists, renamed elements).
// Every problem is reported with its element path; nothing here stops at the first one.

import { childPath, didYouMean, isRecord, show, type Problems } from '../problems.js';

/** Java's Integer.MAX_VALUE: Hazelcast reads these settings as ints. */
export const INT_MAX = 2147483647;

/** A value of the raw tree: whatever the XML or YAML loader or the environment produced. */
export type Raw = unknown;


/** Reads one mapping of the raw tree; remembers which keys were read so the rest can be reported. */
export class Section {
  private readonly used = new Set<string>();

  constructor(
    private readonly problems: Problems,
    readonly path: string,
    readonly obj: Readonly<Record<string, unknown>>,
  ) {}

  /** A mapping at `path`; absent or empty -> empty section; anything else -> error + empty section. */
  static of(problems: Problems, path: string, value: Raw): Section {
    if (isRecord(value)) return new Section(problems, path, value);
    if (value !== undefined && value !== null && value !== '') problems.error(path, `must be a mapping, got ${show(value)}`);
    return new Section(problems, path, {});
  }

  at(key: string): string {
    return childPath(this.path, key);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  raw(key: string): Raw {
    this.used.add(key);
    const v = this.obj[key];
    return v === null ? undefined : v;
  }

  child(key: string): Section {
    return Section.of(this.problems, this.at(key), this.raw(key));
  }

  str(key: string, def: string): string {
    return this.optStr(key) ?? def;
  }

  optStr(key: string, opts: { secret?: boolean } = {}): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'string') return opts.secret === true ? v : v.trim();
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    this.problems.error(this.at(key), `must be a single value, got ${opts.secret === true ? 'something else' : show(v)}`);
    return undefined;
  }

  /** A string the user must give; `secret` keeps its value out of messages. */
  requiredStr(key: string, opts: { secret?: boolean; allowEmpty?: boolean } = {}): string {
    const present = this.obj[key] !== undefined && this.obj[key] !== null;
    const v = this.optStr(key, opts);
    if (!present) {
      this.problems.error(this.at(key), 'is required');
      return '';
    }
    if (v === undefined) return ''; // reported by optStr
    if (v === '' && opts.allowEmpty !== true) {
      this.problems.error(this.at(key), 'must not be empty');
      return '';
    }
    return v;
  }

  bool(key: string, def: boolean): boolean {
    const v = this.raw(key);
    if (v === undefined) return def;
    const b = parseBool(v);
    if (b === undefined) {
      this.problems.error(this.at(key), `must be true or false, got ${show(v)}`);
      return def;
    }
    return b;
  }

  /**
   * One of `allowed`, matched upper-cased (as Hazelcast matches its enum settings); absent or
   * wrong -> `def` (wrong is an error listing the allowed names).
   */
  oneOf<T extends string>(key: string, def: T, allowed: readonly T[]): T {
    const v = this.optStr(key);
    if (v === undefined) return def;
    const found = allowed.find((a) => a === v.toUpperCase());
    if (found === undefined) this.problems.error(this.at(key), `must be one of ${allowed.join(', ')}, got ${show(v)}`);
    return found ?? def;
  }

  int(key: string, def: number, min: number, max: number = INT_MAX): number {
    const v = this.raw(key);
    if (v === undefined) return def;
    return checkInt(this.problems, this.at(key), v, min, max) ?? def;
  }

  /**
   * Marks every key of `messages` that is present as read and warns `<path>: <message> (ignored)`:
   * Hazelcast elements Grid does not support, named with what to do instead.
   */
  unsupported(messages: Readonly<Record<string, string>>, opts: { silentWhenDisabled?: readonly string[] } = {}): void {
    for (const key of Object.keys(this.obj)) {
      const message = messages[key];
      if (message === undefined || this.used.has(key)) continue;
      const v = this.raw(key);
      if (opts.silentWhenDisabled?.includes(key) === true && isRecord(v) && parseBool(v['enabled']) === false) continue;
      this.problems.warn(this.at(key), `${message} (ignored)`);
    }
  }

  /**
   * Reports every key not read: known-but-unused ones as such (summed up in one warning by the
   * loader; one switched off with `enabled: false` is accepted silently, it would do nothing
   * anyway), the rest as unknown.
   */
  finish(ignored: readonly string[] = [], opts: { silent?: readonly string[] } = {}): void {
    for (const key of Object.keys(this.obj)) {
      if (this.used.has(key) || opts.silent?.includes(key)) continue;
      if (ignored.includes(key)) {
        const v = this.obj[key];
        if (!(isRecord(v) && parseBool(v['enabled']) === false)) this.problems.unusedElement(this.at(key));
      } else {
        // The keys this section read (present or not) and the ones it accepts unused: the names it knows.
        const guess = didYouMean(key, [...this.used, ...ignored, ...(opts.silent ?? [])]);
        this.problems.warn(this.at(key), `unknown element, ignored${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`);
      }
    }
  }
}

/** `true`/`false`, as a boolean or any-case text; undefined for anything else. */
export function parseBool(v: Raw): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return undefined;
}

export function parseIntStrict(v: Raw): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

export function rangeText(min: number, max: number): string {
  if (max === INT_MAX || max === Number.MAX_SAFE_INTEGER) return `an integer >= ${min}`;
  return `an integer ${min}-${max}`;
}

export function checkInt(problems: Problems, path: string, v: Raw, min: number, max: number): number | undefined {
  const n = parseIntStrict(v);
  if (n === undefined || n < min || n > max) {
    problems.error(path, `must be ${rangeText(min, max)}, got ${show(v)}`);
    return undefined;
  }
  return n;
}
/** A list given as a YAML list, or as one comma-separated string. */
export function readList(problems: Problems, path: string, v: Raw): { value: string; path: string }[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string' || typeof v === 'number') {
    return String(v)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((value) => ({ value, path }));
  }
  if (Array.isArray(v)) {
    const out: { value: string; path: string }[] = [];
    v.forEach((item, i) => {
      if (typeof item === 'string' || typeof item === 'number') {
        for (const part of String(item).split(',')) {
          if (part.trim() !== '') out.push({ value: part.trim(), path: `${path}[${i}]` });
        }
      } else if (item !== null) problems.error(`${path}[${i}]`, `must be a single value, got ${show(item)}`);
    });
    return out;
  }
  problems.error(path, `must be a list or a comma-separated string, got ${show(v)}`);
  return [];
}

/**
 * Which of an element and its Hazelcast 4 name to read: the one that is given. Both at once is
 * an error naming both (Hazelcast merges them by rules a reader of the file should not need to
 * know); the current name is then read. Both keys count as read.
 */
export function aliasedKey(problems: Problems, s: Section, name: string, alias: string): string {
  const hasName = s.has(name);
  const hasAlias = s.has(alias);
  s.raw(name);
  s.raw(alias);
  if (hasName && hasAlias) {
    problems.error(s.at(name), `given together with ${s.at(alias)} (its Hazelcast 4 name): keep one`);
  }
  return hasAlias && !hasName ? alias : name;
}
