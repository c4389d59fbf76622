// vitest config of `npm run test:reference-long` only: the long variants of the Hazelcast
// differentials (test/reference/*.long.ts are not *.test.ts, so `npm test` never picks them up).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/reference/*.long.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
