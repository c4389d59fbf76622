// A write load on a cluster of the harness (cluster.ts) and the checks on what it wrote:
// unique keys written through a chosen member with some requests in flight, each answer
// recorded; which acknowledged writes a member is missing; a condition that must hold for a
// while; the share of writes answered 200.

import type { Cluster, HttpResponse } from './cluster.js';
import { sleep, waitFor } from './wait.js';
export interface WriteRecord {
  readonly key: string;
  readonly value: string;
  /** ms since the load started. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** HTTP status, or 0 for a connection error / timeout. */
  readonly status: number;
  readonly error?: string;
}

export interface WriteLoad {
  /** Keys answered 200, with the value written. */
  readonly acked: Map<string, string>;
  readonly records: WriteRecord[];
  /** ms since the load started (the time base of the records). */
  now(): number;
  /** Resolves once `n` more writes were answered 200 (deadline; reports the status counts). */
  waitForAcks(n: number, timeoutMs?: number): Promise<void>;
  /** Stops issuing writes and waits for those in flight. */
  stop(): Promise<void>;
  /** Status counts (0 = no answer) of the writes started at or after `fromMs`. */
  statusCounts(fromMs?: number): Record<number, number>;
}

/**
 * Writes unique keys to `map` through member `through()` (re-evaluated per write), `concurrency`
 * requests in flight, until stopped. Only writes answered 200 count as acknowledged.
 */
export function startWriteLoad(
  c: Cluster,
  opts: { through: number | (() => number); map?: string; concurrency?: number; prefix?: string; timeoutMs?: number },
): WriteLoad {
  const map = opts.map ?? 'load';
  const prefix = opts.prefix ?? 'k';
  const through = typeof opts.through === 'number' ? ((n: number) => () => n)(opts.through) : opts.through;
  const t0 = Date.now();
  const now = (): number => Date.now() - t0;
  const acked = new Map<string, string>();
  const records: WriteRecord[] = [];
  let next = 0;
  let stopped = false;

  const worker = async (): Promise<void> => {
    while (!stopped) {
      const n = next++;
      const key = `${prefix}${n}`;
      const value = `v${n}-${Math.random().toString(36).slice(2, 8)}`;
      const startedAt = now();
      let status = 0;
      let error: string | undefined;
      try {
        status = (await c.http(through(), 'POST', `/hazelcast/rest/maps/${map}/${key}`, value, { timeoutMs: opts.timeoutMs ?? 10_000 })).status;
      } catch (e) {
        error = (e as Error).message;
      }
      records.push({ key, value, startedAt, endedAt: now(), status, ...(error !== undefined ? { error } : {}) });
      if (status === 200) acked.set(key, value);
      else if (status === 0) await sleep(20); // a refused connection answers at once: do not spin
    }
  };
  const workers = Array.from({ length: opts.concurrency ?? 8 }, () => worker());

  const statusCounts = (fromMs = 0): Record<number, number> => {
    const counts: Record<number, number> = {};
    for (const r of records) if (r.startedAt >= fromMs) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  };

  const load: WriteLoad = {
    acked,
    records,
    now,
    statusCounts,
    waitForAcks: async (n, timeoutMs = 30_000) => {
      const target = acked.size + n;
      await waitFor(`${n} more acknowledged writes (statuses so far ${JSON.stringify(statusCounts())})`, () => acked.size >= target, timeoutMs, 20).catch(
        (e: Error) => {
          throw new Error(`${e.message}; statuses now ${JSON.stringify(statusCounts())}`);
        },
      );
    },
    stop: async () => {
      stopped = true;
      c.loads.delete(load);
      await Promise.all(workers);
    },
  };
  c.loads.add(load);
  return load;
}

/**
 * Reads every entry of `expected` through member `i` (`concurrency` GETs in flight); returns
 * the mismatches as readable lines (empty when all match). Connection errors are retried.
 */
export async function findMissing(c: Cluster, i: number, map: string, expected: ReadonlyMap<string, string>, concurrency = 16): Promise<string[]> {
  const entries = [...expected];
  const problems: string[] = [];
  let at = 0;
  const worker = async (): Promise<void> => {
    while (at < entries.length) {
      const [key, value] = entries[at++] as [string, string];
      let res: HttpResponse | undefined;
      for (let attempt = 0; res === undefined; attempt++) {
        try {
          res = await c.http(i, 'GET', `/hazelcast/rest/maps/${map}/${key}`);
        } catch (e) {
          if (attempt >= 2) {
            problems.push(`${key}: ${(e as Error).message}`);
            break;
          }
        }
      }
      if (res !== undefined && (res.status !== 200 || res.body !== value)) {
        problems.push(`${key}: expected 200 ${JSON.stringify(value)}, got ${res.status} ${JSON.stringify(res.body.slice(0, 80))}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return problems;
}

/**
 * Asserts a negative over a window: runs `check` every `intervalMs` for `ms` and fails at the
 * first violation (`check` returns a description of it, or undefined when all is well).
 */
export async function holdsFor(what: string, ms: number, check: () => Promise<string | undefined>, intervalMs = 200): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const violation = await check();
    if (violation !== undefined) throw new Error(`${what} stopped holding: ${violation}`);
    if (Date.now() >= until) return;
    await sleep(Math.min(intervalMs, Math.max(0, until - Date.now())));
  }
}

/** The share of the writes started at or after `fromMs` that were answered 200 (1 when none). */
export function successRatio(load: WriteLoad, fromMs = 0): number {
  const counts = load.statusCounts(fromMs);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return total === 0 ? 1 : (counts[200] ?? 0) / total;
}
