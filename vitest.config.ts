import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files mostly wait (members starting, heartbeats, polls): test/http used 0.18 of a core
    // on one worker. Vitest's default of cores - 1 is one worker on 2 cores; two cut test/http's
    // wall time by 40% there, three no further (docs/testing.md, "How long"). More cores: the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One certificate set per run for the TLS tests (test/support/certs.ts).
    globalSetup: ['test/support/certs-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
