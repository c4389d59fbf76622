// The bounded chaos run of `npm test`: 3 members under load from 6 clients, seven faults one at
// a time (kill -9 of the master, of another member and of random ones; a short SIGSTOP; a
// SIGSTOP past the heartbeat deadline of the master and of another member), each followed by
// a safe cluster (and a restart where the member is gone). Then every key is read back through every member and every queue drained:
// nothing acknowledged may be lost or reverted. `npm run chaos` is the long, random version.

import { expect, it } from 'vitest';
import { runChaos } from './chaos-run.js';

const SEED = Number(process.env.CHAOS_SEED ?? 20240607);

it(`loses no acknowledged map write or queue item through kill -9, short and long SIGSTOP (seed ${SEED})`, async () => {
  const result = await runChaos({
    members: 3,
    seed: SEED,
    durationMs: 0,
    faults: ['kill', 'pause', 'longpause'],
    schedule: [
      { kind: 'kill', victim: 'master' },
      { kind: 'pause', victim: 'any' },
      { kind: 'longpause', victim: 'master' },
      { kind: 'kill', victim: 'other' },
      { kind: 'kill', victim: 'any' },
      { kind: 'longpause', victim: 'other' },
      { kind: 'kill', victim: 'any' },
    ],
    clients: 6,
    quietMs: [1_500, 2_500],
    log: () => undefined,
  });
  console.log(result.summary);
  expect(result.report.map.writesAcked).toBeGreaterThan(500);
  expect(result.report.queue.offersAcked).toBeGreaterThan(200);
  expect(result.report.violations.slice(0, 20), result.summary).toEqual([]);
  expect(result.faults.flatMap((f) => f.problems), result.summary).toEqual([]);
  expect(result.ok, result.summary).toBe(true);
}, 240_000);
