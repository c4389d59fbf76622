// Full disks, for real: each member's base-dir is its own small tmpfs mounted by the test
// (skipped, saying so, where mount is refused). Writers own their keys (one write in flight
// per writer, fresh keys and overwrites, 1 KiB values) while a member's disk fills, so every
// key has one well-defined acknowledged value. After each phase: no value answered with an
// error is readable; every value answered 200 is on every sync backup's disk (the backup
// member started alone from a copy of its directory has them all) and comes back after
// kill -9 and a restart; the full member says DISK_FULL in /health and metrics, and takes
// writes again, without a restart, once space is freed.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Cluster, type ConfigFragment } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

const MAP = 'persisted-df';
const VALUE_BYTES = 1024;

const mounts: string[] = [];

/** A tmpfs of `size` mounted on a fresh directory, or why not. */
function mountTmpfs(size: string): string | Error {
  const dir = mkdtempSync(join(tmpdir(), 'grid-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return e as Error;
  }
  mounts.push(dir);
  return dir;
}

const probe = mountTmpfs('1m');
const mountRefused = probe instanceof Error ? `mount -t tmpfs is refused here (${probe.message.split('\n')[0] ?? ''}): the full-disk tests are skipped` : undefined;
if (mountRefused !== undefined) console.warn(mountRefused);

afterAll(() => {
  for (const d of mounts) {
    try {
      execFileSync('umount', ['-l', d], { stdio: 'pipe' });
    } catch {
      // already gone
    }
    rmSync(d, { recursive: true, force: true });
  }
});

/** Fill the file system of `dir` with a file, leaving about `leaveBytes` free. */
function fill(dir: string, leaveBytes: number): string {
  const s = statfsSync(dir);
  const free = s.bavail * s.bsize;
  const file = join(dir, 'filler');
  writeFileSync(file, Buffer.alloc(Math.max(0, free - leaveBytes)));
  return file;
}

interface KeyState {
  acked: string | undefined;
  refused: string[];
}

/** Writers, each owning its keys (fresh ones, and every third write an overwrite of one of its own), one write in flight each. */
class Writers {
  readonly keys = new Map<string, KeyState>();
  readonly errors: string[] = [];
  acks = 0;
  private stopped = false;
  private running: Promise<void>[] = [];
  private seq = 0;

  constructor(
    private readonly c: Cluster,
    private readonly through: readonly number[],
  ) {}

  start(n: number): void {
    this.stopped = false;
    this.running = Array.from({ length: n }, (_, w) => this.writer(w));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  /** Each writer writes `count` more times; resolves with the statuses. */
  async burst(n: number, count: number): Promise<number[]> {
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: n }, async (_, w) => {
        for (let k = 0; k < count; k++) statuses.push(await this.writeOnce(w));
      }),
    );
    return statuses;
  }

  private async writer(w: number): Promise<void> {
    while (!this.stopped) await this.writeOnce(w);
  }

  private async writeOnce(w: number): Promise<number> {
    const n = this.seq++;
    const key = n % 3 === 2 && this.keys.size > 0 ? `w${w}-${(n >> 2) % 40}` : `w${w}-${40 + n}`;
    const value = `${key}@${n}:`.padEnd(VALUE_BYTES, 'v');
    const st = this.keys.get(key) ?? { acked: undefined, refused: [] };
    this.keys.set(key, st);
    const res = await this.c.http(this.through[w % this.through.length]!, 'POST', `/hazelcast/rest/maps/${MAP}/${key}`, value, { contentType: 'text/plain', timeoutMs: 10_000 });
    if (res.status === 200) {
      st.acked = value;
      st.refused = [];
      this.acks++;
    } else {
      st.refused.push(value);
      this.errors.push(`${res.status} ${String(res.headers['x-grid-error'] ?? res.body)}`);
    }
    return res.status;
  }
}

/** Every key as member `i` serves it: the acknowledged value, never one answered with an error. */
async function checkReads(c: Cluster, i: number, w: Writers, what: string): Promise<void> {
  const wrong: string[] = [];
  await Promise.all(
    [...w.keys].map(async ([key, st]) => {
      const res = await c.http(i, 'GET', `/hazelcast/rest/maps/${MAP}/${key}`);
      const got = res.status === 200 ? res.body : undefined;
      if (got !== st.acked) {
        const refused = got !== undefined && st.refused.includes(got) ? ' (a value answered with an error)' : '';
        wrong.push(`${key}: ${res.status} ${got?.slice(0, 20) ?? '-'}${refused}, acknowledged ${st.acked?.slice(0, 20) ?? 'none'}`);
      }
    }),
  );
  expect(wrong, `${what}: ${wrong.length} of ${w.keys.size} keys read wrong`).toEqual([]);
}

async function persistenceState(c: Cluster, i: number): Promise<string | undefined> {
  const h = JSON.parse((await c.http(i, 'GET', '/hazelcast/health')).body) as { persistence?: { state: string } };
  return h.persistence?.state;
}

describe.skipIf(mountRefused !== undefined)('persistence on full disks (tmpfs mounted by the test)', () => {
  // The last member's disk fills: it owns some partitions and backs up the others, so writes
  // fail both ways (its own log as owner, and its backups). With backup-count 2 another backup
  // took each write the full member refused: the owner puts it back there too.
  for (const { size, backups } of [
    { size: 2, backups: 1 },
    { size: 3, backups: 2 },
  ]) {
    it(`${size} members, backup-count ${backups}, the last member's disk fills: its writes and the backups it takes fail with the reason and leave no trace on any member; writes resume once space is freed; each member's disk alone has every acknowledged write`, async () => {
      const all = Array.from({ length: size }, (_, i) => i);
      const full = size - 1;
      const disks = all.map(() => mountTmpfs('6m'));
      for (const d of disks) if (d instanceof Error) throw d;
      const baseOf: string[] = disks as string[];
      const extraOf = new Map<number, ConfigFragment>();
      const c = await Cluster.create({
        size,
        config: (i) => ({
          persistence: { enabled: true, 'base-dir': baseOf[i], 'validation-timeout-seconds': 10, ...((extraOf.get(i)?.persistence as ConfigFragment | undefined) ?? {}) },
          map: { [MAP]: { 'backup-count': backups, 'data-persistence': { enabled: true, fsync: false } } },
        }),
      });
      await Promise.all(all.map((i) => c.waitUp(i)));
      await c.waitForMembers(size);
      await c.waitSafe();
      const fullAddr = c.member(full).address;

      const w = new Writers(c, all);
      expect(new Set(await w.burst(6, 10))).toEqual(new Set([200]));

      const filler = fill(baseOf[full]!, 200 * 1024);
      w.start(12);
      await waitFor(`writes refused for the full disk of member ${full}, both as owner and as backup`, () =>
        w.errors.some((e) => e.includes(`member ${fullAddr} could not persist its backup`)) && w.errors.some((e) => e.includes(`persisting to ${baseOf[full]!}`)) && w.errors.length >= 40,
        30_000,
      );
      await w.stop();
      const errors = w.errors.splice(0);
      // Each refusal is a 500 naming the member and the disk error.
      for (const e of errors) expect(e).toMatch(/^500 .*ENOSPC/);
      expect(errors.some((e) => e.startsWith(`500 map.put was not applied: member ${fullAddr} could not persist its backup: persisting to ${baseOf[full]!}`))).toBe(true);
      await checkReads(c, 0, w, 'with the disk full');
      expect(await persistenceState(c, full)).toBe('DISK_FULL');
      expect(await persistenceState(c, 0)).toBe('OK');
      expect((await c.http(full, 'GET', '/metrics')).body).toMatch(/^grid_persistence_disk_state 1$/m);
      // Maps without persistence keep working on the full member.
      expect((await c.http(full, 'POST', '/hazelcast/rest/maps/plain-df/a', 'x')).status).toBe(200);
      expect(c.member(full).logMessages().filter((m) => m.includes('the disk is full'))).toHaveLength(1);

      // Space is back: writes resume by themselves.
      unlinkSync(filler);
      await waitFor(`member ${full} to take writes again`, async () => (await persistenceState(c, full)) === 'OK', 15_000, 50);
      expect(c.member(full).logMessages().filter((m) => m.includes('has space again'))).toHaveLength(1);
      expect(new Set(await w.burst(6, 10))).toEqual(new Set([200]));
      await checkReads(c, full, w, 'after space was freed');

      // kill -9 of all. Each member's disk alone (a copy of its directory, the member started
      // alone from it) has every acknowledged write and none refused: the full member's shows
      // the sync backups were persisted, the others' that nothing refused stayed with them.
      await Promise.all(all.map((i) => c.kill(i)));
      const own = [...baseOf];
      for (const i of [...all].reverse()) {
        const copy = mkdtempSync(join(tmpdir(), 'grid-disk-full-copy-'));
        try {
          for (const d of readdirSync(own[i]!)) if (d !== 'filler') cpSync(join(own[i]!, d), join(copy, d), { recursive: true });
          baseOf[i] = copy;
          extraOf.set(i, { persistence: { 'cluster-data-recovery-policy': 'PARTIAL_RECOVERY_MOST_RECENT', 'validation-timeout-seconds': 1 } });
          writeFileSync(c.member(i).configPath, stringify({ hazelcast: c.configOf(i, c.member(i).port, false) }));
          await c.restart(i);
          await waitFor(`member ${i} alone to be ready`, async () => (await c.http(i, 'GET', '/hazelcast/health/ready')).status === 200, 30_000, 100);
          await checkReads(c, i, w, `member ${i} alone from a copy of its directory`);
          await c.kill(i);
        } finally {
          baseOf[i] = own[i]!;
          extraOf.delete(i);
          writeFileSync(c.member(i).configPath, stringify({ hazelcast: c.configOf(i, c.member(i).port, false) }));
          rmSync(copy, { recursive: true, force: true });
        }
      }

      // All again from their own disks.
      await Promise.all(all.map((i) => c.restart(i, { wait: 'none' })));
      await Promise.all(all.map((i) => c.waitUp(i)));
      await waitFor('the restarted cluster to be ready', async () => (await Promise.all(all.map((i) => c.http(i, 'GET', '/hazelcast/health/ready')))).every((r) => r.status === 200), 30_000, 100);
      await checkReads(c, 0, w, `after kill -9 and a restart of all ${size}`);
    }, 150_000);
  }

  it('one member: writes until its disk is full fail and leave no trace, reads and in-memory maps go on; a bigger disk resumes writes; kill -9 and a restart bring back every acknowledged write', async () => {
    const disk = mountTmpfs('2m');
    if (disk instanceof Error) throw disk;
    const c = await Cluster.create({
      size: 1,
      config: () => ({
        persistence: { enabled: true, 'base-dir': disk, 'validation-timeout-seconds': 10 },
        map: { [MAP]: { 'backup-count': 1, 'data-persistence': { enabled: true, fsync: true } } },
      }),
    });
    await c.waitUp(0);
    await c.waitSafe();

    // Written until the disk is full (no filler: the log fills it).
    const w = new Writers(c, [0]);
    w.start(8);
    await waitFor('writes refused for the full disk', () => w.errors.length >= 30, 60_000);
    await w.stop();
    expect(w.acks).toBeGreaterThan(500);
    for (const e of w.errors.splice(0)) expect(e).toMatch(new RegExp(`^500 persisting to ${disk}/[^ ]+ failed: ENOSPC`));
    await checkReads(c, 0, w, 'with the disk full');
    expect((await c.http(0, 'POST', '/hazelcast/rest/maps/plain-df/a', 'x')).status).toBe(200);
    const h = JSON.parse((await c.http(0, 'GET', '/hazelcast/health')).body) as { persistence: { state: string; reason: string } };
    expect(h.persistence.state).toBe('DISK_FULL');
    expect(h.persistence.reason).toContain('ENOSPC');

    // The file system grows: writes resume without a restart.
    execFileSync('mount', ['-o', 'remount,size=8m', disk], { stdio: 'pipe' });
    await waitFor('writes to resume', async () => (await persistenceState(c, 0)) === 'OK', 15_000, 50);
    expect(new Set(await w.burst(8, 10))).toEqual(new Set([200]));

    await c.kill(0);
    await c.restart(0);
    await waitFor('the member to be ready', async () => (await c.http(0, 'GET', '/hazelcast/health/ready')).status === 200, 30_000, 100);
    await checkReads(c, 0, w, 'after kill -9 and a restart');
    expect(await persistenceState(c, 0)).toBe('OK');
  }, 120_000);
});
