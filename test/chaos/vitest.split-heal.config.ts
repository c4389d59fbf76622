// vitest config of `npm run chaos:split-heal` only (split-heal.chaos.ts is not a *.test.ts, so
// `npm test` never picks it up). SPLIT_HEAL_ROUNDS sets the cycles per case.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/chaos/split-heal.chaos.ts'],
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
