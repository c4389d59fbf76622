// The persistence directory lock: the pure rule over every kind of holder, the lock file forms,
// and PersistenceService.open() on real directories with real processes as holders (a running
// one, a zombie, a reused pid, this process's own pid).

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeLock, ownLock, parseLock, probeProcess, type LockContext, type ProcessProbe } from '../../../src/persistence/dir-lock.js';
import { PersistenceService } from '../../../src/persistence/persistence-service.js';
import { createLogControl } from '../../../src/core/logger.js';
import { defaultConfig } from '../../../src/config/load.js';
import { waitFor } from '../../support/process.js';

const ctx = (over: Partial<LockContext> & { p?: ProcessProbe } = {}): LockContext => ({
  selfPid: 1000,
  heldHere: false,
  bootId: 'boot-a',
  lockMtimeMs: 50_000,
  probe: () => over.p ?? { kind: 'gone' },
  ...over,
});

describe('judgeLock', () => {
  const lock = { pid: 42, startTicks: '777', bootId: 'boot-a' };

  it('a running process with the same start time holds it', () => {
    expect(judgeLock(lock, ctx({ p: { kind: 'running', zombie: false, startTicks: '777' } })).held).toBe(true);
  });
  it('a pid that no longer exists does not', () => {
    expect(judgeLock(lock, ctx({ p: { kind: 'gone' } }))).toMatchObject({ held: false, why: expect.stringContaining('no longer exists') });
  });
  it('a zombie (killed, not reaped) does not', () => {
    expect(judgeLock(lock, ctx({ p: { kind: 'running', zombie: true, startTicks: '777' } }))).toMatchObject({ held: false, why: expect.stringContaining('zombie') });
  });
  it('a reused pid (another start time) does not', () => {
    expect(judgeLock(lock, ctx({ p: { kind: 'running', zombie: false, startTicks: '900' } }))).toMatchObject({ held: false, why: expect.stringContaining('another process') });
  });
  it('a holder from before the last boot does not, whatever runs under its pid now', () => {
    expect(judgeLock(lock, ctx({ bootId: 'boot-b', p: { kind: 'running', zombie: false, startTicks: '777' } })).held).toBe(false);
  });
  it("this process's own pid: free unless this process holds it", () => {
    expect(judgeLock({ pid: 1000 }, ctx()).held).toBe(false);
    expect(judgeLock({ ...lock, pid: 1000 }, ctx()).held).toBe(false);
    expect(judgeLock({ pid: 1000 }, ctx({ heldHere: true })).held).toBe(true);
  });
  it('an unreadable lock is free', () => {
    expect(judgeLock(undefined, ctx({ p: { kind: 'running', zombie: false } })).held).toBe(false);
  });
  it('the bare-pid form: held by a process older than the lock, free when the process started after it', () => {
    expect(judgeLock({ pid: 42 }, ctx({ p: { kind: 'running', zombie: false, startTicks: '1', startedAtMs: 10_000 } })).held).toBe(true);
    expect(judgeLock({ pid: 42 }, ctx({ p: { kind: 'running', zombie: false, startTicks: '1', startedAtMs: 60_000 } })).held).toBe(false);
    expect(judgeLock({ pid: 42 }, ctx({ p: { kind: 'running', zombie: true } })).held).toBe(false);
  });
  it('without /proc a pid that exists holds it', () => {
    expect(judgeLock(lock, ctx({ p: { kind: 'exists' } })).held).toBe(true);
  });
});

describe('parseLock', () => {
  it('reads the JSON form and the bare pid', () => {
    expect(parseLock('123\n')).toEqual({ pid: 123 });
    expect(parseLock(JSON.stringify({ pid: 5, startTicks: '9', bootId: 'b', host: 'h', since: 1 }))).toEqual({ pid: 5, startTicks: '9', bootId: 'b', host: 'h', since: 1 });
  });
  it('refuses what names no pid', () => {
    for (const t of ['', 'abc', '{}', '{"pid":-1}', '{"pid":1.5}', '{"pid":"7"}', '[1]']) expect(parseLock(t), t).toBeUndefined();
  });
});

const linux = process.platform === 'linux';

describe.runIf(linux)('probeProcess on this machine', () => {
  it('tells this process, a zombie and a gone pid apart', async () => {
    const self = probeProcess(process.pid);
    expect(self).toMatchObject({ kind: 'running', zombie: false });
    expect(ownLock().startTicks).toBe((self as { startTicks: string }).startTicks);
    // A zombie: a child of `sh` that `sh` never reaps (it execs sleep, which does not wait).
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(d.toString()))));
      process.kill(pid, 'SIGKILL');
      await waitFor('the killed child to be a zombie', () => {
        const p = probeProcess(pid);
        return p.kind === 'running' && p.zombie;
      });
    } finally {
      parent.kill('SIGKILL');
    }
    const gone = spawnSync('true').pid!;
    expect(probeProcess(gone).kind).toBe('gone');
  });
});

// ---------------------------------------------------------------- open() on real directories

const dirs: string[] = [];
const open: PersistenceService[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function service(baseDir: string): PersistenceService {
  const config = { ...defaultConfig({}).config.persistence, enabled: true, baseDir };
  const p = new PersistenceService(config, createLogControl({ level: 'OFF' }).logger);
  open.push(p);
  return p;
}

/** A base-dir holding one member directory last used at :5701, with `lock` as its lock file. */
function baseWithData(lock: string | undefined): { base: string; dir: string } {
  const base = mkdtempSync(join(tmpdir(), 'grid-lock-'));
  dirs.push(base);
  const dir = join(base, 'data-of-5701');
  mkdirSync(dir);
  const state = { uuid: 'u1', clusterName: 'dev', address: '127.0.0.1:5701', members: [], partitionTableVersion: 3, partitions: [], clean: false, savedAt: 0 };
  writeFileSync(join(dir, 'member.json'), JSON.stringify(state));
  if (lock !== undefined) writeFileSync(join(dir, 'lock'), lock);
  return { base, dir };
}

describe.runIf(linux)('PersistenceService.open and the lock', () => {
  it("takes its address's directory when the lock names a zombie, a reused pid or this process's pid", async () => {
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(d.toString()))));
      const live = probeProcess(parent.pid!) as { startTicks: string };
      process.kill(zombie, 'SIGKILL');
      await waitFor('a zombie', () => (probeProcess(zombie) as { zombie?: boolean }).zombie === true);
      const own = ownLock();
      const cases = {
        zombie: JSON.stringify({ ...own, pid: zombie }),
        'bare zombie pid': String(zombie),
        'reused pid': JSON.stringify({ ...own, pid: parent.pid, startTicks: String(Number(live.startTicks) - 1) }),
        'own pid': JSON.stringify({ ...own, startTicks: '1' }),
        'bare own pid': String(process.pid),
      };
      for (const [name, lock] of Object.entries(cases)) {
        const { base, dir } = baseWithData(lock);
        const p = service(base);
        expect(p.open(':5701').dir, name).toBe(dir);
        expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')), name).toMatchObject({ pid: process.pid, startTicks: own.startTicks });
        await p.close();
      }
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('refuses to start beside a directory a live process holds, naming it and the holder; --start-empty takes a new one', () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const { base, dir } = baseWithData(JSON.stringify({ ...ownLock(), pid: sleeper.pid, startTicks: (probeProcess(sleeper.pid!) as { startTicks: string }).startTicks }));
      expect(() => service(base).open(':5701')).toThrow(new RegExp(`${dir}.*process ${sleeper.pid}.*--start-empty`));
      expect(readdirSync(base)).toEqual(['data-of-5701']);
      const p = service(base);
      const opened = p.open(':5701', { startEmpty: true });
      expect(opened.dir).not.toBe(dir);
      expect(opened.state).toBeUndefined();
      expect(readdirSync(base).sort()).toHaveLength(2);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('a stale lock is taken over by one member at a time: a live takeover token refuses, a dead one is cleared', () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const gone = spawnSync('true').pid!;
      const live = JSON.stringify({ ...ownLock(), pid: sleeper.pid, startTicks: (probeProcess(sleeper.pid!) as { startTicks: string }).startTicks });
      const dead = JSON.stringify({ ...ownLock(), pid: gone });
      // Another process is taking the stale lock over right now: this member leaves it to it.
      const a = baseWithData(dead);
      writeFileSync(join(a.dir, 'lock.takeover'), live);
      expect(() => service(a.base).open(':5701')).toThrow(/another member is taking it over/);
      // The token of a member that died taking it over is cleared, and the stale lock taken over.
      const b = baseWithData(dead);
      writeFileSync(join(b.dir, 'lock.takeover'), dead);
      expect(service(b.base).open(':5701').dir).toBe(b.dir);
      expect(readdirSync(b.dir).sort()).toEqual(['lock', 'member.json', 'seg-00000001.log']);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('two members of one process: the second refuses the directory the first holds', () => {
    const { base, dir } = baseWithData(undefined);
    expect(service(base).open(':5701').dir).toBe(dir);
    expect(() => service(base).open(':5701')).toThrow(/another member of this process/);
  });

  it('another port never takes this directory, and a port without data starts in a new one', () => {
    const { base, dir } = baseWithData(undefined);
    const p = service(base);
    const opened = p.open(':5702');
    expect(opened.dir).not.toBe(dir);
    expect(opened.state).toBeUndefined();
  });
});
