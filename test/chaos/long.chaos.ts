// `npm run chaos`: the long, random chaos run (scripts/chaos.mjs parses the flags and passes
// them here through CHAOS_* variables). Faults are drawn from CHAOS_FAULTS with victims chosen
// at random, for CHAOS_MINUTES; the summary goes to CHAOS_SUMMARY (printed by the script) and
// the run fails when anything acknowledged was lost or reverted.

import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseFaults, runChaos } from './chaos-run.js';

const minutes = Number(process.env.CHAOS_MINUTES ?? 10);
const members = Number(process.env.CHAOS_MEMBERS ?? 3);
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000_000);
const clients = Number(process.env.CHAOS_CLIENTS ?? 4);
const faults = parseFaults(process.env.CHAOS_FAULTS ?? 'kill,pause,longpause');
const summaryFile = process.env.CHAOS_SUMMARY;

// Progress goes straight to the terminal, not through vitest's console capture.
const log = (line: string): void => void process.stderr.write(`${line}\n`);

it(`chaos: ${members} members, ${minutes} min, faults ${faults.join(',')}, seed ${seed}`, async () => {
  const result = await runChaos({ members, seed, durationMs: minutes * 60_000, faults, clients, log });
  if (summaryFile !== undefined) writeFileSync(summaryFile, `${result.summary}\n\nMember configs and logs: ${result.dir} (kept when the run fails)\n`);
  else log(result.summary);
  expect(result.ok, result.summary).toBe(true);
});
