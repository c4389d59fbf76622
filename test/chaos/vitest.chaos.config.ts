// vitest config of `npm run chaos` only (long.chaos.ts is not a *.test.ts, so `npm test` never
// picks it up). The test's own timeout follows CHAOS_MINUTES.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const minutes = Number(process.env.CHAOS_MINUTES ?? 10);

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/chaos/long.chaos.ts'],
    // fault cycles stop at CHAOS_MINUTES; the last cycle, the read-back and the drain come after
    testTimeout: (minutes + 10) * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
