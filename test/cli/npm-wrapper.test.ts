// A member run through npm (`npm start`, `npx grid`) stops when its wrapper is told to. npm runs
// the member under a `sh -c` and forwards SIGTERM to that shell only, which dies; the member must
// notice and stop gracefully instead of running on, orphaned. Tested with the real npm.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { cleanEnv, REPO_ROOT, waitFor, within } from '../support/process.js';

/** The pids of `root`'s descendants, with their command lines. */
function descendants(root: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }));
  const found: { pid: number; args: string }[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const r of rows.filter((x) => x.ppid === parent)) {
      found.push({ pid: r.pid, args: r.args });
      queue.push(r.pid);
    }
  }
  return found;
}

/** Running: the process exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
}

const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('a member started by npm', () => {
  it('stops gracefully when `npm start` gets SIGTERM', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent', '--', '--port', String(port)], {
      cwd: REPO_ROOT,
      env: cleanEnv({ HZ_NETWORK_JOIN_TCPIP_ENABLED: 'false' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    npm.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    npm.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    await waitFor('the member to start under npm', () => /^REST on port \d+/m.test(err), 60_000, 50);
    const member = descendants(npm.pid!).find((p) => /^\S*node \S*bin\/grid\.js start/.test(p.args));
    expect(member, `descendants of npm: ${JSON.stringify(descendants(npm.pid!))}`).toBeDefined();
    leftovers.push(member!.pid);

    npm.kill('SIGTERM');
    await within(new Promise((r) => npm.once('exit', r)), 10_000, 'npm to exit');
    await waitFor(`member ${member!.pid} to stop (stdout ${out.slice(-400)})`, () => !running(member!.pid), 15_000, 50);
    // Stopped gracefully, not killed: its last log lines say so.
    await waitFor('the member log to end', () => out.includes('"member stopped"'), 5_000, 20);
    expect(out).toContain('parent process gone (npm was stopped), shutting down gracefully');
    expect(err).toContain('grid: the npm process that started this member is gone; stopping the member gracefully');
  }, 90_000);
});
