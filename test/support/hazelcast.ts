// The Hazelcast reference member for tests (scripts/hazelcast-reference.mjs does the work):
// `referenceUnavailable()` says why one cannot run here (printed, and the suite skips: never
// silently), `startReference()` starts one for a file (beforeAll) and stops it when the
// worker exits even if afterAll never ran.

import {
  HAZELCAST_REST_VERSION,
  ReferenceUnavailable,
  ensureJar,
  requireJava,
  startHazelcast,
  type HazelcastMember,
  type HazelcastOptions,
} from '../../scripts/hazelcast-reference.mjs';

export { HAZELCAST_CP_VERSION, HAZELCAST_REST_VERSION, ALL_GROUPS } from '../../scripts/hazelcast-reference.mjs';
export type { HazelcastMember, HazelcastOptions } from '../../scripts/hazelcast-reference.mjs';

/** The version the differential suite runs against (HZ_REFERENCE_VERSION overrides). */
export const REFERENCE_VERSION = process.env.HZ_REFERENCE_VERSION ?? HAZELCAST_REST_VERSION;

/**
 * Why the reference cannot run here (no JDK, no Maven and no jar, the fetch failed or timed
 * out), or undefined when it can; the reason is printed on stderr. GRID_SKIP_REFERENCE=1 skips
 * on purpose (said so too). A fresh machine fetches the jar here, bounded by
 * HZ_REFERENCE_FETCH_TIMEOUT_MS (default 240 s).
 */
export function referenceUnavailable(version = REFERENCE_VERSION): string | undefined {
  let reason: string | undefined;
  if (process.env.GRID_SKIP_REFERENCE === '1') reason = 'GRID_SKIP_REFERENCE=1 is set';
  else {
    try {
      requireJava();
      ensureJar(version, { timeoutMs: Number(process.env.HZ_REFERENCE_FETCH_TIMEOUT_MS ?? 240_000) });
    } catch (e) {
      if (!(e instanceof ReferenceUnavailable)) throw e;
      reason = e.message;
    }
  }
  if (reason !== undefined) process.stderr.write(`\n[SKIPPED] Hazelcast ${version} reference tests: ${reason}\n\n`);
  return reason;
}

const running = new Set<HazelcastMember>();
process.once('exit', () => {
  // The JVMs must not outlive the test worker.
  for (const m of running) if (m.pid !== undefined) try { process.kill(m.pid, 'SIGKILL'); } catch { /* gone */ }
});

/** Starts a reference member; `stop()` it in afterAll (the worker's exit kills it anyway). */
export async function startReference(opts: HazelcastOptions = {}): Promise<HazelcastMember> {
  const m = await startHazelcast({ version: REFERENCE_VERSION, ...opts });
  running.add(m);
  const stop = m.stop.bind(m);
  const kill = m.kill.bind(m);
  return {
    ...m,
    output: () => m.output(),
    stop: async () => {
      await stop();
      running.delete(m);
    },
    kill: async () => {
      await kill();
      running.delete(m);
    },
  };
}
