// The bounded chaos run's network partition (`npm run chaos -- --faults partition` is the long
// one): 3 members, each in a network namespace of its own, under load from 4 clients; the
// master's packets to and from the others dropped silently until both sides split and 6 s
// passed, then delivered again: the cluster must merge once, be safe with every member, and
// lose or revert nothing acknowledged. Skipped, saying why, where namespaces are refused.

import { expect, it } from 'vitest';
import { netnsUnavailable } from '../support/netns.js';
import { runChaos } from './chaos-run.js';

const unavailable = netnsUnavailable();
if (unavailable !== undefined) console.warn(`chaos partition test skipped: ${unavailable}`);
const SEED = Number(process.env.CHAOS_SEED ?? 20261129);

it.skipIf(unavailable !== undefined)(`loses no acknowledged map write or queue item through a network partition of the master (seed ${SEED})`, async () => {
  const result = await runChaos({
    members: 3,
    seed: SEED,
    durationMs: 0,
    faults: ['partition'],
    schedule: [{ kind: 'partition', victim: 'master' }],
    partitionMs: 6_000,
    clients: 4,
    quietMs: [1_500, 2_500],
    log: () => undefined,
  });
  console.log(result.summary);
  expect(result.faults.map((f) => f.kind)).toEqual(['partition']);
  expect(result.report.map.writesAcked).toBeGreaterThan(100);
  expect(result.report.violations.slice(0, 20), result.summary).toEqual([]);
  expect(result.faults.flatMap((f) => f.problems), result.summary).toEqual([]);
  expect(result.ok, result.summary).toBe(true);
}, 180_000);
