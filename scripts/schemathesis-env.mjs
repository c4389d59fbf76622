// Installs the pinned Schemathesis (PyPI) into a venv under the user's cache dir, once, and
// prints the path of its `schemathesis` executable; used by the REST contract test
// (test/http/openapi-contract.test.ts) and `npm run test:contract-long`. Exits 3 (and says
// why) when python3 or its venv/pip are missing, so the test can skip clearly.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Pinned: the contract test's checks and flags are those of this version. */
export const SCHEMATHESIS_VERSION = '4.32.5';

export function schemathesisBin() {
  const cache = process.env.GRID_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'grid');
  const dir = join(cache, `schemathesis-${SCHEMATHESIS_VERSION}`);
  const bin = join(dir, 'bin', 'schemathesis');
  // Written last: an interrupted install is never taken as done.
  const done = join(dir, '.installed');
  if (existsSync(done)) return bin;
  const python = process.env.PYTHON ?? 'python3';
  try {
    execFileSync(python, ['--version'], { stdio: 'ignore' });
  } catch {
    throw Object.assign(new Error(`${python} not found: Schemathesis cannot be installed`), { missing: true });
  }
  mkdirSync(cache, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync(python, ['-m', 'venv', dir], { stdio: 'inherit' });
    execFileSync(join(dir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: 'inherit' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw Object.assign(new Error(`installing schemathesis==${SCHEMATHESIS_VERSION} failed: ${e.message}`), { missing: true });
  }
  writeFileSync(done, `${SCHEMATHESIS_VERSION}\n`);
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(schemathesisBin());
  } catch (e) {
    console.error(e.message);
    process.exit(e.missing ? 3 : 1);
  }
}
