// The member memory guard's figures from this process and machine: the memory available to
// the process (a cgroup limit, as a container's, or the machine's memory), the default limit
// taken from it, the process's resident set and V8 heap, and the guard's metrics.

import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
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
  return { rssBytes: u.rss, heapUsedBytes: u.heapUsed, heapLimitBytes: getHeapStatistics().heap_size_limit };
}

/** The guard of this member, from grid.memory.limit (hazelcast.memory.limit; or the default). Throws CONFIG_INVALID for a bad value. */
export function memoryGuardOf(properties: ReadonlyMap<string, string>, clock: Clock): MemoryGuard {
  const text = properties.get('grid.memory.limit') ?? properties.get('hazelcast.memory.limit') ?? DEFAULT_MEMORY_LIMIT;
  return new MemoryGuard(parseMemoryLimit(text, availableMemoryBytes()), readFigures, clock);
}

export function reportMemoryMetrics(r: MetricsRegistrar, guard: MemoryGuard): void {
  r.gauge({ name: 'grid_memory_limit_bytes', help: 'The member memory limit (grid.memory.limit) on the resident set' }, (report) => report(guard.limitBytes));
  r.gauge({ name: 'grid_memory_refusing_writes', help: '1 while the member refuses writes that grow memory (at its memory limit), else 0' }, (report) => report(guard.status().refusing ? 1 : 0));
  r.counter({ name: 'grid_memory_refused_writes_total', help: 'Writes refused (503 MEMORY_LIMIT) because the member was at its memory limit' }, (report) => report(guard.status().refusedWrites));
}
