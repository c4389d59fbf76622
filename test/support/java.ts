// The official Java client for tests: the programs in test/support/java/ compiled with `javac`
// against the com.hazelcast:hazelcast jar the reference member uses (its client is in the same
// jar; scripts/hazelcast-reference.mjs fetches it with Maven), then run in one JVM per test
// file. `javaUnavailable()` says why this cannot run here (printed; the suite skips, never
// silently). Compiled classes are cached by the hash of the source and the jar's version.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jarPath } from '../../scripts/hazelcast-reference.mjs';
import { REFERENCE_VERSION, referenceUnavailable } from './hazelcast.js';
import { REPO_ROOT } from './process.js';

const SOURCES = join(REPO_ROOT, 'test', 'support', 'java');

/** Why the Java client cannot run here (no JDK with javac, no jar), or undefined; the reason is printed on stderr. */
export function javaUnavailable(): string | undefined {
  const r = spawnSync('javac', ['-version'], { stdio: 'ignore', timeout: 20_000 });
  if (r.error !== undefined || r.status !== 0) {
    const reason = 'no `javac` on PATH (a JDK 17+ compiles the Java client test program)';
    process.stderr.write(`\n[SKIPPED] Java client tests: ${reason}\n\n`);
    return reason;
  }
  return referenceUnavailable();
}

/** Compiles `test/support/java/<main>.java` (once per source and jar version); the classpath to run it. */
export function compileJava(main: string): string {
  const jar = jarPath(REFERENCE_VERSION);
  const source = join(SOURCES, `${main}.java`);
  const hash = createHash('sha256').update(readFileSync(source)).update(REFERENCE_VERSION).digest('hex').slice(0, 16);
  const out = join(tmpdir(), `grid-java-${main}-${hash}`);
  if (!existsSync(join(out, `${main}.class`))) {
    // Compiled beside, then renamed: two test files compiling at once never see half a directory.
    const tmp = `${out}.${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const r = spawnSync('javac', ['-encoding', 'UTF-8', '-d', tmp, '-cp', jar, source], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`javac ${main}.java failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    try {
      renameSync(tmp, out);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another worker won the race
    }
  }
  return `${jar}:${out}`;
}

/** JVM options of the client program: small and quick to start on 2 shared cores. */
const JVM_OPTIONS = ['-Xms32m', '-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.net.preferIPv4Stack=true'];

export interface JavaRun {
  readonly code: number | null;
  /** Every JSON line the program printed on stdout, parsed. */
  readonly lines: Record<string, unknown>[];
  /** stdout lines that are not JSON, and stderr: the client's log, for failure messages. */
  readonly log: string;
}

/** Runs `main` with `args` and a deadline (killed with SIGKILL past it). */
export function runJava(classpath: string, main: string, args: readonly string[], timeoutMs = 120_000): Promise<JavaRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', [...JVM_OPTIONS, '-cp', classpath, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      if (stderr.length > 400_000) stderr = stderr.slice(-200_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const lines: Record<string, unknown>[] = [];
      const other: string[] = [];
      for (const line of stdout.split('\n')) {
        if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
        else if (line !== '') other.push(line);
      }
      const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms\n` : '';
      resolve({ code, lines, log: `${why}${other.join('\n')}\n${stderr}` });
    });
  });
}

export interface JavaProcess {
  /** stdout lines so far. */
  readonly lines: string[];
  /** Writes a line to the program's stdin. */
  send(line: string): void;
  /** Closes the program's stdin (the load programs stop on it). */
  endInput(): void;
  /** Resolves with the exit code; SIGKILL after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<number | null>;
  /** stderr so far (the client's log), for failure messages. */
  log(): string;
}

const started = new Set<ReturnType<typeof spawn>>();
process.once('exit', () => {
  // A JVM must not outlive the test worker.
  for (const child of started) child.kill('SIGKILL');
});

/** Starts `main` and returns at once; its stdout is collected line by line. */
export function startJava(classpath: string, main: string, args: readonly string[]): JavaProcess {
  const child = spawn('java', [...JVM_OPTIONS, '-cp', classpath, main, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  started.add(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    const parts = (partial + d.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    if (stderr.length > 400_000) stderr = stderr.slice(-200_000);
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      started.delete(child);
      resolve(code);
    }),
  );
  return {
    lines,
    send: (line) => void child.stdin.write(`${line}\n`),
    endInput: () => child.stdin.end(),
    exited: async (timeoutMs = 60_000) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
    log: () => stderr,
  };
}
