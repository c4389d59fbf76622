// The member memory guard (like Redis maxmemory): past a limit, writes that would grow memory
// (map puts, queue offers) are refused with MEMORY_LIMIT (503) until memory is back under the
// limit by a margin (hysteresis, so a member at the edge does not flap per request); reads,
// removes and backups go on. The figures come from a reader (the member's process) at most
// every CHECK_INTERVAL_MS; the decision is pure (nextGuardState). Writers read a flag: the
// guard's own timer refreshes it while writes keep asking, so a put or offer reads no clock.
//
// Why the decision counts memory as well as reading the resident set: an allocator may keep
// memory freed by deletes resident (glibc does for blocks freed below a live allocation once its
// mmap threshold has risen; measured: 368 MiB resident with 0 bytes of buffers left after
// deleting 300 MiB of maps) and hands it out again for the next allocations. Judged by the
// resident set alone, writes would never resume. So the member counts what it holds (V8's heap
// and the buffers: map slabs, queue and log buffers, sockets) plus the process's base overhead,
// and resumes when that is under the resume mark; the resident set stays the bound (see
// GuardState.ceilingBytes), so memory stays bounded when freed memory is not reused.

import type { Clock } from './clock.js';
import { GridError } from './errors.js';

/** A reading is reused for this long: process.memoryUsage() is not free on every write. */
export const CHECK_INTERVAL_MS = 100;
/** Writes resume once the resident set (or the counted memory) is below this fraction of the limit. */
export const RESUME_FRACTION = 0.9;
/** After a resumption on counted memory, the resident set may grow by this fraction of the limit over where it was (allocator slack) before writes are refused again. */
export const SLACK_FRACTION = 0.1;
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
  /** V8's heap as committed (used or not: it is resident). */
  readonly heapTotalBytes: number;
  /** Bytes of live (or not yet collected) ArrayBuffers and Buffers: map slabs, queue and log buffers, socket buffers. */
  readonly arrayBuffersBytes: number;
}

/** What the guard carries from one reading to the next (pure: nextGuardState). */
export interface GuardState {
  readonly refusing: boolean;
  /**
   * Writes are refused once the resident set reaches this: the limit, or after writes resumed on
   * counted memory while the allocator kept freed memory resident, that resident set plus
   * SLACK_FRACTION of the limit (never above the hard cap). Back to the limit once the resident
   * set is under the resume mark.
   */
  readonly ceilingBytes: number;
  /** The smallest resident-set-minus-counted-memory seen: the process's own overhead (code, runtime), >= 0. */
  readonly baseBytes: number;
  /** While refusing: the most counted memory seen since refusing began (what deletes freed is measured from it). */
  readonly peakCountedBytes: number;
}

export function initialGuardState(limitBytes: number): GuardState {
  return { refusing: false, ceilingBytes: limitBytes, baseBytes: Infinity, peakCountedBytes: 0 };
}

/** V8's heap and the buffers: the memory the process counts itself. */
export function countedBytes(m: MemoryFigures): number {
  return m.heapTotalBytes + m.arrayBuffersBytes;
}

/**
 * The guard's state after a reading. "Counted" is V8's heap and the buffers plus the base
 * overhead. Refuse when the resident set reaches the ceiling, the counted memory the limit, or
 * the V8 heap its refuse fraction. While refusing, resume once the V8 heap is under its resume
 * mark and either the resident set is under RESUME_FRACTION of the limit, or it stays above
 * only by memory that was counted and freed since refusing began (deletes whose memory the
 * allocator kept to reuse) and the counted memory is under the mark too. In that second case the
 * ceiling becomes the resident set plus SLACK_FRACTION of the limit, which must fit under
 * `hardCapBytes` (past it, writes wait for the resident set itself to fall). A resident set that
 * grew without counted memory (native memory, fragmentation) never resumes writes this way.
 */
export function nextGuardState(s: GuardState, m: MemoryFigures, limitBytes: number, hardCapBytes: number): GuardState {
  const baseBytes = Math.min(s.baseBytes, Math.max(0, m.rssBytes - countedBytes(m)));
  const counted = countedBytes(m) + baseBytes;
  const resumeMark = limitBytes * RESUME_FRACTION;
  const rssUnder = m.rssBytes < resumeMark;
  // The resident set is back under the resume mark: whatever the allocator kept was returned.
  const ceilingBytes = rssUnder ? limitBytes : s.ceilingBytes;
  if (!s.refusing) {
    const heapOver = m.heapLimitBytes > 0 && m.heapUsedBytes >= m.heapLimitBytes * HEAP_REFUSE_FRACTION;
    const refusing = heapOver || m.rssBytes >= ceilingBytes || counted >= limitBytes;
    return { refusing, ceilingBytes, baseBytes, peakCountedBytes: counted };
  }
  const peakCountedBytes = Math.max(s.peakCountedBytes, counted);
  const heapUnder = m.heapLimitBytes <= 0 || m.heapUsedBytes < m.heapLimitBytes * HEAP_RESUME_FRACTION;
  const stay = { refusing: true, ceilingBytes, baseBytes, peakCountedBytes };
  if (!heapUnder) return stay;
  if (rssUnder && counted < limitBytes) return { refusing: false, ceilingBytes, baseBytes, peakCountedBytes: counted };
  const freed = peakCountedBytes - counted;
  const raised = Math.max(limitBytes, m.rssBytes + limitBytes * SLACK_FRACTION);
  if (m.rssBytes - freed < resumeMark && counted < resumeMark && raised <= hardCapBytes) {
    return { refusing: false, ceilingBytes: raised, baseBytes, peakCountedBytes: counted };
  }
  return stay;
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
  readonly heapTotalBytes: number;
  readonly arrayBuffersBytes: number;
  /** V8's heap and the buffers plus the process's base overhead: what the guard counts beside the resident set. */
  readonly countedBytes: number;
  /** Writes are refused once the resident set reaches this (the limit, unless the allocator keeps freed memory: GuardState). */
  readonly ceilingBytes: number;
  readonly refusing: boolean;
  /** Writes refused since the member started. */
  readonly refusedWrites: number;
}

export class MemoryGuard implements WriteGate {
  private figures: MemoryFigures = { rssBytes: 0, heapUsedBytes: 0, heapLimitBytes: 0, heapTotalBytes: 0, arrayBuffersBytes: 0 };
  private state: GuardState;
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
    /** The resident set writes never resume above (nextGuardState); the limit itself turns the counted resumption off. */
    private readonly hardCapBytes = limitBytes,
  ) {
    this.state = initialGuardState(limitBytes);
  }

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
    this.state = nextGuardState(this.state, this.figures, this.limitBytes, this.hardCapBytes);
    this.refusingNow = this.state.refusing;
    this.asked = false;
    this.armed = true;
    this.clock.setTimeout(this.tick, CHECK_INTERVAL_MS);
  }

  check(what: string): void {
    if (!this.refusing()) return;
    this.refused++;
    const f = this.figures;
    const heapFull = f.heapLimitBytes > 0 && f.heapUsedBytes >= f.heapLimitBytes * HEAP_RESUME_FRACTION;
    const ceiling = this.state.ceilingBytes > this.limitBytes ? `, raised to ${mib(this.state.ceilingBytes)} as the allocator keeps freed memory` : '';
    throw new GridError(
      'MEMORY_LIMIT',
      `member memory limit reached (resident ${mib(f.rssBytes)} of grid.memory.limit ${mib(this.limitBytes)}${ceiling}; counted ${mib(this.counted())}${heapFull ? `; V8 heap ${mib(f.heapUsedBytes)} of ${mib(f.heapLimitBytes)}` : ''}): ${what} was not applied; reads and deletes still work, writes resume once memory is below ${Math.round(RESUME_FRACTION * 100)}% of the limit`,
    );
  }

  status(): MemoryStatus {
    const refusing = this.refusing();
    return { limitBytes: this.limitBytes, ...this.figures, countedBytes: this.counted(), ceilingBytes: this.state.ceilingBytes, refusing, refusedWrites: this.refused };
  }

  /** Counted memory plus the base overhead, as the last decision saw it. */
  private counted(): number {
    const base = this.state.baseBytes;
    return countedBytes(this.figures) + (Number.isFinite(base) ? base : 0);
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
