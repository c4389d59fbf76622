// A restart never starts empty beside its own data. Real processes throughout:
// - kill -9 of every member and an immediate restart while the killed processes are still
//   zombies (their parent has not reaped them): every acknowledged write is back;
// - a second member started on the same base-dir and port refuses to start, naming the
//   directory and its holder, and leaves no new directory behind;
// - a lock naming a live unrelated process (a reused pid) and a lock naming the restarted
//   member's own pid (a container restart) are taken over: the member keeps its directory
//   and its data.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { GRID_BIN, cleanEnv, spawnGrid, waitFor } from '../support/process.js';
import {
  compareEntries,
  makeEntries,
  persistentCluster,
  requestBytes,
  writeEntries,
  type PersistentCluster,
} from '../support/persistence.js';

const linux = process.platform === 'linux';
const MAP = 'persisted-lock';

/** Parents that never reap (sh exec'd into sleep), killed after the test. */
const parents = new Set<ChildProcess>();
afterEach(() => {
  for (const p of parents) p.kill('SIGKILL');
  parents.clear();
});

/**
 * Starts member `i` of `pc` as the child of a parent that never waits (`sh` that execs
 * `sleep`), so that after kill -9 it stays a zombie. Resolves with the member's pid.
 */
async function startUnreaped(pc: PersistentCluster, i: number): Promise<{ pid: number; output: () => string }> {
  const c = pc.c;
  const configPath = join(c.dir, `unreaped-${i}.yaml`);
  writeFileSync(configPath, stringify({ hazelcast: c.configOf(i, c.ports[i]!, false) }));
  const parent = spawn('sh', ['-c', '"$@" & echo "grid-pid $!" >&2; exec sleep 600', 'sh', process.execPath, GRID_BIN, 'start', '--config', configPath], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  parents.add(parent);
  let out = '';
  parent.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  parent.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const m = await waitFor('the member pid', () => /grid-pid (\d+)/.exec(out) ?? undefined);
  return { pid: Number(m[1]), output: () => out };
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** The member directory last used at `port` (its member.json names it; saved a moment after the table). */
async function dirOf(pc: PersistentCluster, port: number): Promise<string> {
  const mine = (): string[] =>
    pc.memberDirs().filter((d) => {
      try {
        return (JSON.parse(readFileSync(join(d, 'member.json'), 'utf8')) as { address: string }).address.endsWith(`:${port}`);
      } catch {
        return false;
      }
    });
  const dirs = await waitFor(`the member.json of port ${port}`, () => (mine().length > 0 ? mine() : undefined), 10_000);
  expect(dirs, `directories of port ${port}`).toHaveLength(1);
  return dirs[0]!;
}

const lockOf = (dir: string): { pid: number; startTicks?: string } => {
  const text = readFileSync(join(dir, 'lock'), 'utf8');
  return /^\d+$/.test(text.trim()) ? { pid: Number(text) } : (JSON.parse(text) as { pid: number; startTicks?: string });
};

describe.runIf(linux)('persistence: the directory lock across real restarts', () => {
  it('zombies, a second member on the same port, a reused pid and its own pid: never empty beside its data', async () => {
    const prefixes = new Map<number, readonly string[]>();
    const pc = await persistentCluster({ size: 3, spare: 1, prefixOf: (i) => prefixes.get(i) ?? [] });
    const c = pc.c;
    const ports = c.ports.slice(0, 3);

    // ---- first run: members whose parent never reaps them
    const first = await Promise.all([0, 1, 2].map((i) => startUnreaped(pc, i)));
    await waitFor(
      'the first run to form a safe cluster of 3',
      async () => {
        const h = await Promise.all(ports.map(async (p) => JSON.parse((await requestBytes(p, 'GET', '/hazelcast/health', undefined, undefined, 2_000)).body.toString()) as { clusterSafe: boolean; clusterSize: number }));
        return h.every((x) => x.clusterSafe && x.clusterSize === 3);
      },
      60_000,
      100,
    );
    const entries = makeEntries('k', 300, 7);
    await writeEntries(ports, MAP, entries);
    const dirs = await Promise.all(ports.map((p) => dirOf(pc, p)));

    // ---- kill -9 all at once; restart at once while they are zombies
    for (const m of first) process.kill(m.pid, 'SIGKILL');
    await waitFor('the killed members to be zombies', () => first.every((m) => procState(m.pid) === 'Z'));
    for (let i = 0; i < 3; i++) await c.addMember({ wait: 'none' });
    await Promise.all([0, 1, 2].map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000);
    expect(first.every((m) => procState(m.pid) === 'Z'), 'the first run was still unreaped at the restart').toBe(true);
    expect(await compareEntries(ports[0]!, MAP, entries)).toEqual([]);
    expect(pc.memberDirs().sort(), 'no new directory beside the data').toEqual([...dirs].sort());
    for (const [i, d] of dirs.entries()) expect(lockOf(d).pid, `lock of member ${i}`).toBe(c.member(i).process.child.pid);

    // ---- a second member on member 0's base-dir and port refuses, naming the directory and the holder
    const second = spawnGrid(['start', '--config', c.member(0).configPath]);
    const exit = await second.exited(30_000);
    expect(exit.code).not.toBe(0);
    expect(second.stderr()).toContain(dirs[0]);
    expect(second.stderr()).toContain(`process ${c.member(0).process.child.pid}`);
    expect(second.stderr()).toContain('--start-empty');
    expect(pc.memberDirs().sort(), 'the refused member made no directory').toEqual([...dirs].sort());

    // ---- member 1's lock names a live unrelated process (its pid reused); member 2's its own next pid (a container restart)
    await c.kill(1);
    await c.kill(2);
    const unrelated = spawn('sleep', ['600'], { stdio: 'ignore' });
    parents.add(unrelated);
    // The bare-pid form older Grid versions wrote, from before that process started (its pid reused).
    writeFileSync(join(dirs[1]!, 'lock'), String(unrelated.pid));
    const before = new Date(Date.now() - 60_000);
    utimesSync(join(dirs[1]!, 'lock'), before, before);
    // The member's own pid: the shell writes its pid ($$) as the lock, then execs the member (same pid).
    prefixes.set(2, ['sh', '-c', `printf '%s' "$$" > '${join(dirs[2]!, 'lock')}'; exec "$@"`, 'sh']);
    await c.restart(1, { wait: 'none' });
    await c.restart(2, { wait: 'none' });
    await Promise.all([1, 2].map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000);
    expect(pc.memberDirs().sort(), 'both took their own directory').toEqual([...dirs].sort());
    expect(lockOf(dirs[1]!).pid).toBe(c.member(1).process.child.pid);
    expect(lockOf(dirs[2]!).pid).toBe(c.member(2).process.child.pid);
    expect(c.member(1).logMessages().some((l) => l.startsWith('persistence: loaded'))).toBe(true);
    expect(c.member(2).logMessages().some((l) => l.startsWith('persistence: loaded'))).toBe(true);

  }, 180_000);
});
