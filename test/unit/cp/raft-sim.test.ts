// Randomized simulations of Raft groups (raft-sim.ts): 3 and 5 members plus a spare that
// joins and leaves, over a network that loses, delays, reorders and duplicates messages,
// with partitions, crashes and restarts, snapshots and membership changes. Safety is
// checked after every event, liveness after the faults stop.
//
// Bounded by default (a few seeds per size, about a second). A longer run:
//   RAFT_SIM_SEEDS=2000 npx vitest run test/unit/cp/raft-sim.test.ts
// RAFT_SIM_FIRST_SEED=<n> starts at another seed; a failure names its seed, and
//   RAFT_SIM_SEEDS=1 RAFT_SIM_FIRST_SEED=<seed> replays it exactly.

import { describe, expect, it } from 'vitest';
import { RaftNode } from '../../../src/cp/raft.js';
import { runSimulation, type SimStats } from './raft-sim.js';

const LONG = process.env['RAFT_SIM_SEEDS'] !== undefined;
const SEEDS = Number(process.env['RAFT_SIM_SEEDS'] ?? 12);
const FIRST_SEED = Number(process.env['RAFT_SIM_FIRST_SEED'] ?? 1);

describe('Raft simulation', () => {
  for (const members of [3, 5]) {
    it(
      `${members} members, seeds ${FIRST_SEED}..${FIRST_SEED + SEEDS - 1}: election safety, log matching, leader completeness, state machine safety and linearizable reads after every event; progress once healed`,
      async () => {
        const failures: string[] = [];
        const total: Partial<Record<keyof SimStats, number>> = {};
        let slowestLivenessMs = 0;
        for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
          const r = runSimulation({ seed, members });
          if (r.violations.length > 0) failures.push(`seed ${seed}: ${r.violations.join('; ')}`);
          for (const [k, v] of Object.entries(r.stats) as [keyof SimStats, number | undefined][]) total[k] = (total[k] ?? 0) + (v ?? 0);
          slowestLivenessMs = Math.max(slowestLivenessMs, r.stats.livenessMs ?? Infinity);
          // Long runs: let the worker answer vitest now and then.
          if (seed % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        if (LONG) console.log(`raft simulation, ${members} members, ${SEEDS} seeds: slowest recovery ${slowestLivenessMs.toFixed(0)} ms`, total);
        expect(failures).toEqual([]);
        // The runs exercised what they are meant to.
        expect(total.leadersElected).toBeGreaterThan(SEEDS);
        expect(total.writesAcked).toBeGreaterThan(SEEDS * 20);
        expect(total.readsDone).toBeGreaterThan(SEEDS * 10);
        expect(total.snapshotsInstalled).toBeGreaterThan(0);
        expect(total.membershipChanges).toBeGreaterThan(0);
        expect(total.crashes).toBeGreaterThan(0);
        expect(total.partitions).toBeGreaterThan(0);
      },
      LONG ? 0 : 30_000,
    );
  }
});

/** Each breaks one rule of the real node; the simulator must notice within a few seeds. */
const MUTATIONS: { name: string; method: string; replacement: (this: never, ...args: never[]) => unknown }[] = [
  {
    name: 'a voter grants a second vote in the same term',
    method: 'grantsVote',
    replacement: function (this: { term: number; isLogUpToDate(i: number, t: number): boolean }, _from: string, m: { term: number; lastLogIndex: number; lastLogTerm: number }) {
      return m.term === this.term && this.isLogUpToDate(m.lastLogIndex, m.lastLogTerm);
    } as never,
  },
  { name: 'a voter skips the log up-to-date check', method: 'isLogUpToDate', replacement: (() => true) as never },
  { name: 'a leader serves reads without confirming its leadership', method: 'leadershipConfirmed', replacement: (() => true) as never },
];

describe('the simulator catches a broken rule', () => {
  for (const m of MUTATIONS) {
    it(m.name, () => {
      const proto = RaftNode.prototype as unknown as Record<string, unknown>;
      const original = proto[m.method];
      expect(typeof original).toBe('function');
      proto[m.method] = m.replacement;
      let found: string | undefined;
      try {
        for (let seed = 1; seed <= 40 && found === undefined; seed++) {
          for (const members of [3, 5]) {
            const r = runSimulation({ seed, members });
            if (r.violations.length > 0) {
              found = r.violations[0];
              break;
            }
          }
        }
      } finally {
        proto[m.method] = original;
      }
      expect(found).toBeDefined();
    });
  }
});
