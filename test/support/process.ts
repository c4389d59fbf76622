// `grid` child processes that are always killed after the test. Polling with a deadline lives
// in wait.ts (re-exported here for the tests that import it from this module), raw HTTP in
// http.ts, ports in ports.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { sleep, within } from './wait.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The `grid` launcher the tests spawn: this checkout's bin/grid.js, or TEST_GRID_BIN when set
 * (`npm run chaos` points it at a snapshot of the build, so a rebuild during a long run does
 * not mix versions in one cluster).
 */
export const GRID_BIN = process.env.TEST_GRID_BIN ? resolve(process.env.TEST_GRID_BIN) : resolve(REPO_ROOT, 'bin/grid.js');

export { waitFor, within } from './wait.js';

// ---------------------------------------------------------------- grid child processes

export interface GridProcess {
  readonly child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in stdout (waiting for it until the deadline). */
  waitForStdout(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The same for stderr (where `grid start` prints its banner). */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

afterEach(async () => {
  const running = [...children];
  children.clear();
  await Promise.all(
    running.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGKILL');
      await within(gone, 5_000, `child ${c.pid ?? '?'} to exit after SIGKILL`);
    }),
  );
});

/** The parent's environment without anything that configures Grid. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('HZ_') || k.startsWith('GRID_')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Spawns `node bin/grid.js <args>`; killed after the test if still running, unless `scope` is
 * `file`: then the caller kills it (a cluster shared by the tests of a file, destroyed in `afterAll`).
 */
export function spawnGrid(
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string; prefix?: readonly string[]; scope?: 'test' | 'file' } = {},
): GridProcess {
  // A prefix that execs its command (`ip netns exec <ns>`) keeps the member's pid.
  const argv = [...(opts.prefix ?? []), process.execPath, GRID_BIN, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd ?? REPO_ROOT,
    env: opts.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (opts.scope !== 'file') children.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  // stdout/stderr may still hold data after 'exit'; 'close' means both streams ended.
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  const waitForOutput = async (name: string, text: () => string, re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = re.exec(text());
      if (m) return m;
      const state = `stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`grid ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before ${name} matched ${String(re)}; ${state}`);
      }
      if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${name} to match ${String(re)}; ${state}`);
      await sleep(20);
    }
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (re, timeoutMs = 10_000) => waitForOutput('stdout', () => out, re, timeoutMs),
    waitForStderr: (re, timeoutMs = 10_000) => waitForOutput('stderr', () => err, re, timeoutMs),
    exited: async (timeoutMs = 10_000) => {
      const r = await within(exit, timeoutMs, `grid ${args.join(' ')} to exit; stdout ${JSON.stringify(out)}`);
      await within(closed, 2_000, 'the output streams of the child to close');
      return r;
    },
  };
}
