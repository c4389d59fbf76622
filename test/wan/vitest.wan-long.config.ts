// vitest config of `npm run test:wan-long` only: the long WAN link cuts (link-cut.long.ts is not
// a *.test.ts, so `npm test` never picks it up). Each test sets its own timeout.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/wan/link-cut.long.ts'],
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
