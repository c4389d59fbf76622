// The member log on a failing disk, through its file seam: EIO on a write, a write cut short
// by a full disk, a failing fsync, a new segment that cannot be made. What was refused is
// undone (newest first) and never on disk; a full disk resumes by itself once a probe finds
// space; a failed fsync stops the log for good and is never retried.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { LogOp, parseLog, type LogRecord } from '../../../src/persistence/log-format.js';
import { nodeLogFiles, type LogFiles } from '../../../src/persistence/log-files.js';
import { MemberLog } from '../../../src/persistence/member-log.js';
import { captureLogs, type LogSink } from '../core/fakes.js';
import { waitFor } from '../../support/wait.js';

function errno(code: string, call: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${call}`), { code });
}

/** node:fs, with faults on demand. */
class FaultyFiles implements LogFiles {
  /** The next write fails with this code; `partialBytes` of it are written first (a write cut short); it fails once `gate` settles. */
  failWrite: { code: string; partialBytes: number; gate?: Promise<void> } | undefined;
  failSync: string | undefined;
  failOpen: string | undefined;
  free = 0;
  writes = 0;
  syncs = 0;
  probes = 0;

  openAppend(path: string): number {
    if (this.failOpen !== undefined) throw errno(this.failOpen, 'open');
    return nodeLogFiles.openAppend(path);
  }
  close(fd: number): void {
    nodeLogFiles.close(fd);
  }
  async write(fd: number, data: Buffer): Promise<void> {
    this.writes++;
    const f = this.failWrite;
    if (f !== undefined) {
      this.failWrite = undefined;
      if (f.partialBytes > 0) await nodeLogFiles.write(fd, data.subarray(0, f.partialBytes));
      await f.gate;
      throw errno(f.code, 'write');
    }
    return nodeLogFiles.write(fd, data);
  }
  async datasync(fd: number): Promise<void> {
    this.syncs++;
    if (this.failSync !== undefined) throw errno(this.failSync, 'fdatasync');
    return nodeLogFiles.datasync(fd);
  }
  truncate(fd: number, length: number): void {
    nodeLogFiles.truncate(fd, length);
  }
  freeBytes(): Promise<number> {
    this.probes++;
    return Promise.resolve(this.free);
  }
}

let dir: string;
let logs: MemberLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grid-disk-faults-'));
});

afterEach(async () => {
  for (const log of logs) await log.close().catch(() => undefined);
  logs = [];
  rmSync(dir, { recursive: true, force: true });
});

function newLog(files: LogFiles, segmentBytes?: number): { log: MemberLog; sink: LogSink } {
  const { sink, control } = captureLogs('INFO');
  const log = new MemberLog(dir, control.logger, { files, ...(segmentBytes === undefined ? {} : { segmentBytes }) });
  logs.push(log);
  log.load();
  return { log, sink };
}

function put(i: number, value = `value-${i}`): LogRecord {
  return { op: LogOp.Put, partitionId: i % 271, service: 'map', name: 'm', key: `k${i}`, value: Buffer.from(value) };
}

function keys(records: readonly LogRecord[]): string[] {
  return records.map((r) => (r.op === LogOp.Put || r.op === LogOp.Remove ? r.key : `op${r.op}`));
}

/** Every segment on disk read in order (not through MemberLog), and whether the last ends torn. */
function onDisk(): { keys: string[]; torn: boolean } {
  const names = readdirSync(dir)
    .filter((n) => /^seg-\d{8}\.log$/.test(n))
    .sort();
  let torn = false;
  const out: string[] = [];
  for (const n of names) {
    const p = parseLog(readFileSync(join(dir, n)), n);
    out.push(...keys(p.records));
    torn ||= p.tornTail;
  }
  return { keys: out, torn };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function rejection(p: Promise<void> | undefined): Promise<GridError> {
  expect(p).toBeInstanceOf(Promise);
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    return e as GridError;
  }
  throw new Error('expected pending() to reject');
}

/** Poll `cond` (a probe runs on a timer) until it holds, for at most `ms`. */
async function until(cond: () => boolean, what: string, ms = 5_000): Promise<void> {
  await waitFor(what, cond, ms, 10);
}

describe('MemberLog on a failing disk: EIO on a write', () => {
  it('refuses the batch and what queued behind it, undoes them newest first, writes nothing more, logs once', async () => {
    const files = new FaultyFiles();
    const { log, sink } = newLog(files);
    const undone: string[] = [];
    log.append(put(1), false, () => undone.push('k1'));
    await log.pending();
    let fail!: () => void;
    files.failWrite = { code: 'EIO', partialBytes: 0, gate: new Promise((resolve) => (fail = resolve)) };
    log.append(put(2), false, () => undone.push('k2'));
    log.append(put(3), false, () => undone.push('k3'));
    const failing = log.pending();
    await nextTurn(); // the failing write is under way
    log.append(put(4), true, () => undone.push('k4')); // queued behind it
    const behind = log.pending();
    fail();
    const e = await rejection(failing);
    expect(e.code).toBe('PERSISTENCE_FAILED');
    expect(e.message).toBe(`persisting to ${dir} failed: EIO: injected, write (the member takes no writes of persisted maps and queues until it is restarted)`);
    expect((await rejection(behind)).message).toBe(e.message);
    expect(undone).toEqual(['k4', 'k3', 'k2']);
    expect(log.diskState.kind).toBe('failed');
    expect(log.refusal()?.message).toBe(e.message);

    // Nothing more is written, even once writes would work: records are dropped, waiters refused.
    log.append(put(5), false, () => undone.push('k5'));
    expect((await rejection(log.pending())).code).toBe('PERSISTENCE_FAILED');
    await nextTurn();
    expect(files.writes).toBe(2);
    expect(undone).toEqual(['k4', 'k3', 'k2']); // a dropped record is not undone: writes are refused before they apply
    expect(onDisk()).toEqual({ keys: ['k1'], torn: false });
    expect(sink.messages().filter((m) => m.includes('failed: EIO'))).toHaveLength(1);
    expect(log.stats).toMatchObject({ faults: 1, undone: 3, dropped: 1 });
  });

  it('an undo that throws does not stop the others', async () => {
    const files = new FaultyFiles();
    const { log, sink } = newLog(files);
    const undone: string[] = [];
    files.failWrite = { code: 'EIO', partialBytes: 0 };
    log.append(put(1), false, () => undone.push('k1'));
    log.append(put(2), false, () => {
      throw new Error('boom');
    });
    await rejection(log.pending());
    expect(undone).toEqual(['k1']);
    expect(sink.messages().some((m) => m.includes('could not undo') && m.includes('boom'))).toBe(true);
  });
});

describe('MemberLog on a full disk', () => {
  it('a write cut short is cut back to the last whole record; probes wait for space; writes resume without a restart', async () => {
    const files = new FaultyFiles();
    const { log, sink } = newLog(files);
    const undone: string[] = [];
    log.append(put(1), false);
    await log.pending();
    files.failWrite = { code: 'ENOSPC', partialBytes: 7 };
    log.append(put(2, 'x'.repeat(500)), false, () => undone.push('k2'));
    const e = await rejection(log.pending());
    expect(e.message).toBe(`persisting to ${dir} failed: ENOSPC: injected, write (the disk is full; writes of persisted maps and queues resume by themselves once space is free)`);
    expect(undone).toEqual(['k2']);
    expect(onDisk()).toEqual({ keys: ['k1'], torn: false }); // the 7 bytes are gone
    expect(log.diskState).toMatchObject({ kind: 'full', probeDelayMs: 100 });
    expect(log.wantsCompaction()).toBe(false);

    // Probes find too little space: still full, less often.
    await until(() => files.probes >= 2, 'two probes');
    expect(log.diskState.kind).toBe('full');
    expect(log.diskState.probeDelayMs).toBeGreaterThanOrEqual(200);
    log.append(put(3), false, () => undone.push('k3'));
    expect((await rejection(log.pending())).message).toBe(e.message);

    files.free = 10 * 1024 * 1024;
    await until(() => log.diskState.kind === 'ok', 'writes to resume');
    expect(log.refusal()).toBeUndefined();
    log.append(put(4), true);
    await log.pending();
    expect(onDisk()).toEqual({ keys: ['k1', 'k4'], torn: false });
    const full = sink.messages().filter((m) => m.includes('the disk is full'));
    const back = sink.messages().filter((m) => m.includes('has space again'));
    expect([full.length, back.length]).toEqual([1, 1]);
    // A record dropped while full (k3): the log asks for a snapshot from memory.
    expect(log.wantsCompaction()).toBe(true);

    // A fresh start reads exactly what was answered.
    const again = new MemberLog(dir, captureLogs('INFO').control.logger);
    logs.push(again);
    const loaded = again.load();
    expect(keys(loaded.records)).toEqual(['k1', 'k4']);
    expect(loaded.tornTail).toBe(false);
  });

  it('a new segment that cannot be made (no space): the write before it stands, the next waits for space and goes to the new segment', async () => {
    const files = new FaultyFiles();
    const { log } = newLog(files, 100);
    files.failOpen = 'ENOSPC';
    log.append(put(1, 'y'.repeat(120)), false);
    await log.pending(); // written and synced: the roll after it failed
    expect(log.diskState.kind).toBe('full');
    log.append(put(2), false);
    await rejection(log.pending());
    files.failOpen = undefined;
    files.free = 10 * 1024 * 1024;
    await until(() => log.diskState.kind === 'ok', 'writes to resume');
    log.append(put(3), false);
    await log.pending();
    expect(readdirSync(dir).filter((n) => n.endsWith('.log')).sort()).toEqual(['seg-00000001.log', 'seg-00000002.log']);
    expect(onDisk()).toEqual({ keys: ['k1', 'k3'], torn: false });
  });

  // /dev/full cannot be truncated, so the log cannot cut it back to its last whole record: it
  // stops for good (a real file system shrinks a file without needing space).
  it.skipIf(!existsSync('/dev/full'))('the kernel\'s own ENOSPC on a file that cannot be cut back (/dev/full): refused, and failed', async () => {
    const { log } = newLog(nodeLogFiles, 100);
    symlinkSync('/dev/full', join(dir, 'seg-00000002.log')); // the next segment is on a full disk
    log.append(put(1, 'x'.repeat(120)), false);
    await log.pending();
    log.append(put(2), true);
    const e = await rejection(log.pending());
    expect(e.message).toContain(`persisting to ${dir} failed: ENOSPC`);
    expect(log.diskState.kind).toBe('failed');
  });
});

describe('MemberLog: a failed fsync', () => {
  it('refuses and undoes the batch, stops the log for good, never calls fsync again (not even at close)', async () => {
    const files = new FaultyFiles();
    const { log, sink } = newLog(files);
    const undone: string[] = [];
    log.append(put(1), true);
    await log.pending();
    expect(files.syncs).toBe(1);
    files.failSync = 'EIO';
    log.append(put(2), true, () => undone.push('k2'));
    const e = await rejection(log.pending());
    expect(e.message).toContain('EIO: injected, fdatasync');
    expect(undone).toEqual(['k2']);
    expect(log.diskState.kind).toBe('failed');
    files.failSync = undefined; // the disk seems fine again: the log still does not trust the file
    files.free = 1e12;
    log.append(put(3), true);
    await rejection(log.pending());
    await nextTurn();
    await log.close();
    expect(files.syncs).toBe(2);
    expect(files.probes).toBe(0);
    expect(sink.messages().filter((m) => m.includes('a failed fsync is never retried'))).toHaveLength(1);
  });

  it('ENOSPC from fsync is a failed fsync, not a full disk', async () => {
    const files = new FaultyFiles();
    const { log } = newLog(files);
    files.failSync = 'ENOSPC';
    log.append(put(1), true);
    await rejection(log.pending());
    expect(log.diskState.kind).toBe('failed');
  });
});

describe('MemberLog: compaction and free space', () => {
  it('a compaction whose snapshot may not fit is not started (logged once), and runs once there is room', async () => {
    const files = new FaultyFiles();
    const { log, sink } = newLog(files, 200);
    for (let i = 0; i < 10; i++) log.append(put(i, 'z'.repeat(100)), false);
    await log.pending();
    const snapshot = (): LogRecord[] => [put(9, 'z'.repeat(100))];
    files.free = 1000;
    await log.compact(snapshot);
    await log.compact(snapshot);
    expect(log.stats.compactions).toBe(0);
    expect(sink.messages().filter((m) => m.startsWith('persisted log not compacted: 1000 bytes free'))).toHaveLength(1);
    expect(log.diskState.kind).toBe('ok');
    files.free = 10 * 1024 * 1024;
    await log.compact(snapshot);
    expect(log.stats.compactions).toBe(1);
    expect(onDisk().keys).toEqual(['k9']);
  });
});
