// The member memory guard (like Redis maxmemory): past a limit, writes that would grow memory
// (map puts, queue offers) are refused with MEMORY_LIMIT (503) until memory is back under the
// limit by a margin (hysteresis, so a member at the edge does not flap per request); reads,
// removes and backups go on. The figures come from a reader (the member's process) at most
// every CHECK_INTERVAL_MS; the decision is pure (nextRefusing). Writers read a flag: the guard's
// own timer refreshes it while writes keep asking, so a put or offer reads no clock.

import type { Clock } from './clock.js';
import { GridError } from './errors.js';

/** A reading is reused for this long: process.memoryUsage() is not free on every write. */
export const CHECK_INTERVAL_MS = 100;
/** Writes resume once the resident set is below this fraction of the limit. */
export const RESUME_FRACTION = 0.9;
/** The V8 heap counts as full at this fraction of its limit (V8 aborts the process near its limit). */
export const HEAP_REFUSE_FRACTION = 0.85;
/** ... and as free again below this one. */
export const HEAP_RESUME_FRACTION = 0.75;

export interface MemoryFigures {
  /** The process's resident set. */
  readonly rssBytes: number;
  /** V8's heap in use, and the size at which V8 aborts the process. */
  readonly heapUsedBytes: number;
  readonly heapLimitBytes: number;
}

/**
 * Whether writes are refused after this reading: start refusing when the resident set reaches
 * the limit or the V8 heap its refuse fraction; stop once both are below their resume marks.
 */
export function nextRefusing(refusing: boolean, m: MemoryFigures, limitBytes: number): boolean {
  const heapOver = m.heapLimitBytes > 0 && m.heapUsedBytes >= m.heapLimitBytes * HEAP_REFUSE_FRACTION;
  if (!refusing) return m.rssBytes >= limitBytes || heapOver;
  const heapUnder = m.heapLimitBytes <= 0 || m.heapUsedBytes < m.heapLimitBytes * HEAP_RESUME_FRACTION;
  return !(m.rssBytes < limitBytes * RESUME_FRACTION && heapUnder);
}

/** What writers ask before growing memory (map, queue). */
export interface WriteGate {
  /** Whether writes that grow memory are refused now. */
  refusing(): boolean;
  /** Throws MEMORY_LIMIT when refusing, naming what was refused. */
  check(what: string): void;
}

export interface MemoryStatus {
  readonly limitBytes: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapLimitBytes: number;
  readonly refusing: boolean;
  /** Writes refused since the member started. */
  readonly refusedWrites: number;
}

export class MemoryGuard implements WriteGate {
  private figures: MemoryFigures = { rssBytes: 0, heapUsedBytes: 0, heapLimitBytes: 0 };
  private refusingNow = false;
  private refused = 0;
  /** The refresh timer is pending: the flag is at most CHECK_INTERVAL_MS old. */
  private armed = false;
  /** A writer asked since the last refresh (the timer re-arms only then, so an idle member runs no timer). */
  private asked = false;
  private readonly tick = (): void => {
    this.armed = false;
    if (this.asked) this.refresh();
  };

  constructor(
    /** The configured (or default) limit of the resident set, bytes. */
    readonly limitBytes: number,
    private readonly read: () => MemoryFigures,
    private readonly clock: Clock,
  ) {}

  /** The last decision, without a new reading (what the figures' reader may look at). */
  get lastDecision(): boolean {
    return this.refusingNow;
  }

  refusing(): boolean {
    // Idle until now (no timer pending): the flag may be old, so read at once, as before.
    if (!this.armed) this.refresh();
    else this.asked = true;
    return this.refusingNow;
  }

  /** Take a reading, decide, and keep the flag fresh for the writes that follow. */
  private refresh(): void {
    this.figures = this.read();
    this.refusingNow = nextRefusing(this.refusingNow, this.figures, this.limitBytes);
    this.asked = false;
    this.armed = true;
    this.clock.setTimeout(this.tick, CHECK_INTERVAL_MS);
  }

  check(what: string): void {
    if (!this.refusing()) return;
    this.refused++;
    const f = this.figures;
    const heapFull = f.heapLimitBytes > 0 && f.heapUsedBytes >= f.heapLimitBytes * HEAP_RESUME_FRACTION;
    throw new GridError(
      'MEMORY_LIMIT',
      `member memory limit reached (resident ${mib(f.rssBytes)} of grid.memory.limit ${mib(this.limitBytes)}${heapFull ? `, V8 heap ${mib(f.heapUsedBytes)} of ${mib(f.heapLimitBytes)}` : ''}): ${what} was not applied; reads and deletes still work, writes resume below ${Math.round(RESUME_FRACTION * 100)}% of the limit`,
    );
  }

  status(): MemoryStatus {
    const refusing = this.refusing();
    return { limitBytes: this.limitBytes, ...this.figures, refusing, refusedWrites: this.refused };
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };

/**
 * The value of grid.memory.limit: bytes (`536870912`, `512m`, `2g`) or a percentage of the
 * memory available to the process (`80%`). `available` is that memory (cgroup limit or the
 * machine's). Throws CONFIG_INVALID naming the property for anything else.
 */
export function parseMemoryLimit(text: string, availableBytes: number): number {
  const t = text.trim().toLowerCase();
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct !== null) {
    const p = Number(pct[1]);
    if (p <= 0 || p > 100) throw new GridError('CONFIG_INVALID', `grid.memory.limit: a percentage must be above 0 and at most 100, got ${JSON.stringify(text)}`);
    return Math.floor((availableBytes * p) / 100);
  }
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(t);
  const unit = m === null ? undefined : SIZE_UNITS[m[2]!];
  if (m === null || unit === undefined || Number(m[1]) <= 0) {
    throw new GridError('CONFIG_INVALID', `grid.memory.limit: expected bytes (e.g. 536870912, 512m, 2g) or a percentage (e.g. 80%), got ${JSON.stringify(text)}`);
  }
  return Math.floor(Number(m[1]) * unit);
}
