// The member memory guard's figures from this process and machine: the memory available to
// the process (a cgroup limit, as a container's, or the machine's memory), the default limit
// taken from it, the process's resident set and V8 heap, and the guard's metrics.

import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock } from '../core/clock.js';
import { MemoryGuard, parseMemoryLimit, type MemoryFigures } from '../core/memory-guard.js';
import type { MetricsRegistrar } from '../core/metrics.js';

/** grid.memory.limit when not set: this share of the memory available to the process (Redis-style headroom for the allocator, buffers and GC). */
export const DEFAULT_MEMORY_LIMIT = '80%';

/** A cgroup limit above this is "no limit" (cgroup v1 writes a huge number). */
const NO_CGROUP_LIMIT = 2 ** 60;

/** The cgroup memory limit of this process (v2, then v1), or undefined. */
function cgroupLimitBytes(): number | undefined {
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const t = readFileSync(file, 'utf8').trim();
      if (t === 'max') return undefined;
      const n = Number(t);
      if (Number.isFinite(n) && n > 0 && n < NO_CGROUP_LIMIT) return n;
    } catch {
      // Not this cgroup version, or no cgroup: the next file, or the machine's memory.
    }
  }
  return undefined;
}

/** Memory available to this process: its cgroup limit, or the machine's memory, whichever is smaller. */
export function availableMemoryBytes(): number {
  const cg = cgroupLimitBytes();
  return cg === undefined ? totalmem() : Math.min(cg, totalmem());
}

function readFigures(): MemoryFigures {
  const u = process.memoryUsage();
  return { rssBytes: u.rss, heapUsedBytes: u.heapUsed, heapLimitBytes: getHeapStatistics().heap_size_limit, heapTotalBytes: u.heapTotal, arrayBuffersBytes: u.arrayBuffers };
}

/** A full collection while writes are refused runs at most this often. */
const COLLECT_EVERY_MS = 1000;

/** V8's full collection, reached without --expose-gc (undefined where the runtime refuses it). */
function fullCollector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resident set above which writes never resume, even when the memory Grid counts is low (an
 * allocator keeping freed memory): half way from the limit to the memory available, where the
 * process would be killed (the default limit, 80%, gives 90%). A limit at or above the
 * available memory leaves no room: then writes wait for the resident set itself.
 */
export function hardCapOf(limitBytes: number, availableBytes: number): number {
  return limitBytes >= availableBytes ? limitBytes : limitBytes + (availableBytes - limitBytes) / 2;
}

/** The guard of this member, from grid.memory.limit (hazelcast.memory.limit; or the default). Throws CONFIG_INVALID for a bad value. */
export function memoryGuardOf(properties: ReadonlyMap<string, string>, clock: Clock): MemoryGuard {
  const text = properties.get('grid.memory.limit') ?? properties.get('hazelcast.memory.limit') ?? DEFAULT_MEMORY_LIMIT;
  let collect: (() => void) | undefined | null = null;
  let lastCollect = -Infinity;
  // While writes are refused, garbage (the slabs of a map just cleared or destroyed) can keep the
  // resident set over the resume mark until V8 collects on its own, which a member that only
  // reads may not do for minutes: collect before the reading, at most once a second.
  const read = (): MemoryFigures => {
    if (guard.lastDecision && clock.now() - lastCollect >= COLLECT_EVERY_MS) {
      lastCollect = clock.now();
      if (collect === null) collect = fullCollector();
      collect?.();
    }
    return readFigures();
  };
  // `read` runs only after construction (the guard reads on its first question), so `guard` is set by then.
  const available = availableMemoryBytes();
  const limit = parseMemoryLimit(text, available);
  const guard: MemoryGuard = new MemoryGuard(limit, read, clock, hardCapOf(limit, available));
  return guard;
}

export function reportMemoryMetrics(r: MetricsRegistrar, guard: MemoryGuard): void {
  r.gauge({ name: 'grid_memory_limit_bytes', help: 'The member memory limit (grid.memory.limit) on the resident set' }, (report) => report(guard.limitBytes));
  r.gauge({ name: 'grid_memory_refusing_writes', help: '1 while the member refuses writes that grow memory (at its memory limit), else 0' }, (report) => report(guard.status().refusing ? 1 : 0));
  r.counter({ name: 'grid_memory_refused_writes_total', help: 'Writes refused (503 MEMORY_LIMIT) because the member was at its memory limit' }, (report) => report(guard.status().refusedWrites));
}
