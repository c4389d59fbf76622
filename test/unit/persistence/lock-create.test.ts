// Two members starting at the same moment on one base-dir: the second must never take the
// first one's new directory. The lock file used to be created empty and written after: a
// member that read it in between took it for a crashed holder's, took the directory over, and
// the two members shared one log and one member.json (entries lost at the next restart). The
// second start is run exactly while the first writes its lock's content.

import type * as Fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PersistenceService } from '../../../src/persistence/persistence-service.js';
import { parseLock } from '../../../src/persistence/dir-lock.js';
import { createLogControl } from '../../../src/core/logger.js';
import { defaultConfig } from '../../../src/config/load.js';

// `duringLockWrite` runs (once) when a lock's content is about to be written.
const hook = vi.hoisted(() => ({ duringLockWrite: undefined as (() => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (typeof data === 'string' && data.includes('"pid"') && hook.duringLockWrite !== undefined) {
      const run = hook.duringLockWrite;
      hook.duringLockWrite = undefined;
      run();
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

const bases: string[] = [];
const services: PersistenceService[] = [];
afterEach(async () => {
  hook.duringLockWrite = undefined;
  for (const s of services.splice(0)) await s.close();
  for (const b of bases.splice(0)) rmSync(b, { recursive: true, force: true });
});

function service(baseDir: string): PersistenceService {
  const p = new PersistenceService({ ...defaultConfig({}).config.persistence, enabled: true, baseDir }, createLogControl({ level: 'OFF' }).logger);
  services.push(p);
  return p;
}

describe('PersistenceService.open: members starting together', () => {
  it('a member starting while another writes its new lock never takes that directory', () => {
    const base = mkdtempSync(join(tmpdir(), 'grid-lock-race-'));
    bases.push(base);
    const first = service(base);
    const second = service(base);
    let secondDir: string | undefined;
    hook.duringLockWrite = () => {
      secondDir = second.open(':5702').dir;
    };
    const firstDir = first.open(':5701').dir;

    expect(secondDir).toBeDefined();
    expect(secondDir).not.toBe(firstDir);
    expect(readdirSync(base).sort()).toEqual([firstDir, secondDir!].map((d) => d.split('/').pop()).sort());
    for (const dir of [firstDir, secondDir!]) {
      expect(parseLock(readFileSync(join(dir, 'lock'), 'utf8'))?.pid, `lock of ${dir}`).toBe(process.pid);
      expect(readdirSync(dir).filter((n) => n.endsWith('.tmp')), `left-overs in ${dir}`).toEqual([]);
    }
  });
});
