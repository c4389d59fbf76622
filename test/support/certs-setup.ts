// vitest globalSetup of `npm test`: one directory per run for the TLS tests' certificate set
// (certs.ts makes the set there on first use, so a run without TLS tests never calls openssl),
// removed when the run ends.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'grid-test-certs-'));
  project.provide('gridTestCertsRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}
