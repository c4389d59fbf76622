import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One certificate set per run for the TLS tests (test/support/certs.ts).
    globalSetup: ['test/support/certs-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
