import type * as Fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { encodeRecord, LogOp, parseLog, type LogRecord } from '../../../src/persistence/log-format.js';
import { MemberLog } from '../../../src/persistence/member-log.js';
import { captureLogs } from '../core/fakes.js';
import type { LogSink } from '../core/fakes.js';

// The writes and fdatasyncs the log makes, counted (they go through to the real calls), and
// write errors on demand: the next `failWrites` writes fail with EIO without writing. The next
// `holdWrites` writes wait in `held` until the test lets them go (a write under way on a
// thread); `afterDatasync` runs once an fdatasync is done, before the log hears of it.
const io = vi.hoisted(() => ({
  writes: 0,
  datasyncs: 0,
  failWrites: 0,
  holdWrites: 0,
  held: [] as (() => void)[],
  afterDatasync: undefined as (() => void) | undefined,
}));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const write = (fd: number, buf: Buffer, off: number, len: number, pos: null, cb: (err: NodeJS.ErrnoException | null, n: number) => void): void => {
    io.writes++;
    if (io.failWrites > 0) {
      io.failWrites--;
      const err: NodeJS.ErrnoException = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
      setImmediate(() => cb(err, 0));
      return;
    }
    if (io.holdWrites > 0) {
      io.holdWrites--;
      io.held.push(() => fs.write(fd, buf, off, len, pos, cb));
      return;
    }
    fs.write(fd, buf, off, len, pos, cb);
  };
  const fdatasync = (fd: number, cb: Fs.NoParamCallback): void => {
    io.datasyncs++;
    fs.fdatasync(fd, (err) => {
      const hook = io.afterDatasync;
      io.afterDatasync = undefined;
      hook?.();
      cb(err);
    });
  };
  return { ...fs, write, fdatasync };
});

let dir: string;
let open: MemberLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grid-member-log-'));
  io.writes = 0;
  io.datasyncs = 0;
  io.failWrites = 0;
  io.holdWrites = 0;
  io.held = [];
  io.afterDatasync = undefined;
});

afterEach(async () => {
  for (const log of open) await log.close().catch(() => undefined);
  open = [];
  rmSync(dir, { recursive: true, force: true });
});

function newLog(at = dir, segmentBytes?: number): { log: MemberLog; sink: LogSink } {
  const { sink, control } = captureLogs('INFO');
  const log = new MemberLog(at, control.logger, segmentBytes === undefined ? {} : { segmentBytes });
  open.push(log);
  return { log, sink };
}

function put(i: number, value = `value-${i}`): LogRecord {
  return { op: LogOp.Put, partitionId: i % 271, service: 'map', name: 'm', key: `k${i}`, value: Buffer.from(value) };
}

/** Records with their values as strings, for comparing. */
function plain(records: readonly LogRecord[]): unknown[] {
  return records.map((r) => (r.op === LogOp.Put ? { ...r, value: Buffer.from(r.value).toString('latin1') } : { ...r }));
}

function segmentFiles(at = dir): string[] {
  return readdirSync(at)
    .filter((n) => /^seg-\d{8}\.log$/.test(n))
    .sort();
}

/** What is on disk now, every segment read in order (not through MemberLog). */
function onDisk(at = dir): LogRecord[] {
  return segmentFiles(at).flatMap((n) => parseLog(readFileSync(join(at, n)), n).records);
}

/** The end of this turn of the event loop (the log writes what was appended in it). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Append each group in its own turn of the event loop, waiting for it to be written. */
async function appendInTurns(log: MemberLog, groups: LogRecord[][], sync = false): Promise<void> {
  for (const group of groups) {
    for (const r of group) log.append(r, sync);
    await log.pending();
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

describe('MemberLog: appending', () => {
  it('pending() is undefined when nothing is pending, a promise while something is', async () => {
    const { log } = newLog();
    log.load();
    expect(log.pending()).toBeUndefined();
    log.append(put(1), false);
    const p = log.pending();
    expect(p).toBeInstanceOf(Promise);
    await p;
    expect(log.pending()).toBeUndefined();
  });

  it('an append is written at the end of the turn; pending() settles once it is in the file', async () => {
    const { log } = newLog();
    log.load();
    const file = join(dir, 'seg-00000001.log');
    log.append(put(1), false);
    const p = log.pending();
    expect(statSync(file).size).toBe(0); // buffered until the end of the turn
    await p;
    expect(readFileSync(file).equals(encodeRecord(put(1)))).toBe(true);
  });

  it('the appends of one turn go out in one write, in order', async () => {
    const { log } = newLog();
    log.load();
    const records = range(0, 1000).map((i) => put(i));
    for (const r of records) log.append(r, false);
    await log.pending();
    expect(io.writes).toBe(1);
    expect(plain(onDisk())).toEqual(plain(records));
  });

  it('appends made while a write is under way follow it, in order', async () => {
    const { log } = newLog();
    log.load();
    for (const i of range(0, 100)) log.append(put(i), false);
    const first = log.pending();
    await nextTurn(); // the first write has started
    for (const i of range(100, 200)) log.append(put(i), false);
    const second = log.pending();
    await Promise.all([first, second]);
    expect(plain(onDisk())).toEqual(plain(range(0, 200).map((i) => put(i))));
    expect(io.writes).toBe(2);
  });

  it('with sync, a turn ends with one fdatasync; without, with none', async () => {
    const { log } = newLog();
    log.load();
    log.append(put(1), false);
    await log.pending();
    expect(io.datasyncs).toBe(0);
    log.append(put(2), false);
    log.append(put(3), true);
    log.append(put(4), false);
    await log.pending();
    expect(io.datasyncs).toBe(1);
    expect(plain(onDisk())).toEqual(plain([put(1), put(2), put(3), put(4)]));
  });

  it('close() writes what is still pending; appends after close are ignored', async () => {
    const { log } = newLog();
    log.load();
    log.append(put(1), true);
    log.append(put(2), false);
    await log.close();
    log.append(put(3), false);
    expect(log.pending()).toBeUndefined();
    expect(plain(onDisk())).toEqual(plain([put(1), put(2)]));
  });
});

describe('MemberLog: loading', () => {
  it('an empty (or missing) directory loads as nothing, and appends then go to the first segment', async () => {
    const at = join(dir, 'not', 'there', 'yet');
    const { log } = newLog(at);
    expect(log.load()).toEqual({ records: [], segments: 0, bytes: 0, tornTail: false });
    log.append(put(1), false);
    await log.pending();
    expect(segmentFiles(at)).toEqual(['seg-00000001.log']);
  });

  it('after close, load() replays every record of every segment in order', async () => {
    const { log } = newLog(dir, 256);
    log.load();
    const groups = range(0, 40).map((g) => range(g * 5, g * 5 + 5).map((i) => put(i, `v${i}`.repeat(i % 7))));
    await appendInTurns(log, groups);
    await log.close();
    const files = segmentFiles();
    expect(files.length).toBeGreaterThan(5);
    expect(files[0]).toBe('seg-00000001.log');

    const again = newLog(dir, 256).log;
    const loaded = again.load();
    expect(plain(loaded.records)).toEqual(plain(groups.flat()));
    expect(loaded.segments).toBe(files.length);
    expect(loaded.bytes).toBe(files.reduce((n, f) => n + statSync(join(dir, f)).size, 0));
    expect(loaded.tornTail).toBe(false);
  });

  it('appends after a load go after what was loaded, in the last segment', async () => {
    const first = newLog().log;
    first.load();
    await appendInTurns(first, [[put(1), put(2)]]);
    await first.close();
    const second = newLog().log;
    second.load();
    await appendInTurns(second, [[put(3)]]);
    await second.close();
    expect(segmentFiles()).toEqual(['seg-00000001.log']);
    expect(plain(newLog().log.load().records)).toEqual(plain([put(1), put(2), put(3)]));
  });

  it('a torn last record is cut off at load (and logged); appends and loads after it work', async () => {
    const first = newLog().log;
    first.load();
    await appendInTurns(first, [[put(1), put(2)], [put(3)]]);
    await first.close();
    const file = join(dir, 'seg-00000001.log');
    const whole = statSync(file).size;
    appendFileSync(file, encodeRecord(put(4, 'x'.repeat(100))).subarray(0, 60)); // a crash mid-write

    const { log: second, sink } = newLog();
    const loaded = second.load();
    expect(plain(loaded.records)).toEqual(plain([put(1), put(2), put(3)]));
    expect(loaded).toMatchObject({ tornTail: true, bytes: whole });
    expect(statSync(file).size).toBe(whole);
    expect(sink.messages().some((m) => m.includes(file) && m.includes('torn record') && m.includes('60 bytes ignored'))).toBe(true);
    await appendInTurns(second, [[put(5)]]);
    await second.close();

    const third = newLog().log.load();
    expect(plain(third.records)).toEqual(plain([put(1), put(2), put(3), put(5)]));
    expect(third.tornTail).toBe(false);
  });

  it('a record damaged in a middle segment: load() throws naming the file, and changes nothing on disk', async () => {
    const { log } = newLog(dir, 200);
    log.load();
    await appendInTurns(
      log,
      range(0, 12).map((g) => [put(g * 2, 'y'.repeat(40)), put(g * 2 + 1, 'z'.repeat(40))]),
    );
    await log.close();
    const files = segmentFiles();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const middle = join(dir, files[1] as string);
    const damaged = readFileSync(middle);
    damaged[20] = (damaged[20] as number) ^ 0x01; // in the first record's payload; a whole record follows
    writeFileSync(middle, damaged);
    const before = files.map((f) => readFileSync(join(dir, f)).toString('hex'));

    const again = newLog(dir, 200).log;
    expect(() => again.load()).toThrow(GridError);
    expect(() => again.load()).toThrow(`persisted data file ${middle} is corrupt at byte 0`);
    expect(segmentFiles().map((f) => readFileSync(join(dir, f)).toString('hex'))).toEqual(before);
  });

  it('a damaged length in the last segment is not taken for a torn tail: load() throws, nothing is cut', async () => {
    const first = newLog().log;
    first.load();
    await appendInTurns(first, [[put(1), put(2), put(3)]]);
    await first.close();
    const file = join(dir, 'seg-00000001.log');
    const damaged = readFileSync(file);
    const second = encodeRecord(put(1)).length;
    damaged[second + 2] = (damaged[second + 2] as number) ^ 0x10; // the length of record 2 now runs past the end
    writeFileSync(file, damaged);

    expect(() => newLog().log.load()).toThrow(`persisted data file ${file} is corrupt at byte ${second}`);
    expect(readFileSync(file).equals(damaged)).toBe(true);
  });

  it('a segment that ends inside a record but is not the last one: load() throws naming it', async () => {
    const { log } = newLog(dir, 100);
    log.load();
    await appendInTurns(log, [[put(1, 'a'.repeat(120))], [put(2, 'b'.repeat(120))], [put(3)]]);
    await log.close();
    const files = segmentFiles();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const first = join(dir, files[0] as string);
    appendFileSync(first, Buffer.from([0x40, 0, 0]));
    expect(() => newLog(dir, 100).log.load()).toThrow(`persisted data file ${first} ends inside a record but is not the last segment`);
  });
});

describe('MemberLog: compaction', () => {
  it('replaces every older segment by the snapshot; records appended while it runs follow the snapshot', async () => {
    const { log } = newLog(dir, 4096);
    log.load();
    // History: many versions of keys 0..49, some removed.
    await appendInTurns(
      log,
      range(0, 30).map((g) => range(0, 50).map((i): LogRecord => (i % 10 === g % 10 ? { op: LogOp.Remove, partitionId: i, service: 'map', name: 'm', key: `k${i}` } : put(i, `gen-${g}`)))),
    );
    const before = segmentFiles();
    expect(before.length).toBeGreaterThan(3);

    // The current content, as memory has it: big enough that the snapshot is written in more
    // than one chunk, so the compaction waits on the disk in the middle of it.
    const snapshot = range(0, 50).map((i) => put(i, `current-${i}-`.padEnd(50_000, '.')));
    const during = [put(7, 'changed while compacting'), { op: LogOp.Remove, partitionId: 8, service: 'map', name: 'm', key: 'k8' } as LogRecord, put(99, 'new')];
    let middleReached!: () => void;
    const middle = new Promise<void>((resolve) => {
      middleReached = resolve;
    });
    function* source(): Generator<LogRecord> {
      yield* snapshot.slice(0, 25);
      middleReached();
      yield* snapshot.slice(25);
    }

    let compacted = false;
    const compaction = log.compact(source).then(() => {
      compacted = true;
    });
    await middle;
    expect(compacted).toBe(false);
    for (const r of during) log.append(r, false); // the compaction is still running
    await log.pending();
    await compaction;

    const after = segmentFiles();
    const lastBefore = before[before.length - 1] as string;
    expect(after.every((f) => f > lastBefore)).toBe(true); // every older segment is gone
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(plain(onDisk())).toEqual(plain([...snapshot, ...during]));

    await log.close();
    const loaded = newLog(dir, 4096).log.load();
    expect(plain(loaded.records)).toEqual(plain([...snapshot, ...during]));
  });

  it('a log compacted twice still loads as the last snapshot plus what came after it', async () => {
    const { log } = newLog();
    log.load();
    await appendInTurns(log, [[put(1), put(2)]]);
    await log.compact(() => [put(1, 'snap-1'), put(2, 'snap-1')]);
    await appendInTurns(log, [[put(3)]]);
    await log.compact(() => [put(1, 'snap-2'), put(2, 'snap-2'), put(3, 'snap-2')]);
    await appendInTurns(log, [[put(4)]]);
    await log.close();
    expect(segmentFiles()).toEqual(['seg-00000004.log', 'seg-00000005.log']);
    expect(plain(newLog().log.load().records)).toEqual(plain([put(1, 'snap-2'), put(2, 'snap-2'), put(3, 'snap-2'), put(4)]));
  });
});

describe('MemberLog: backups and wipe', () => {
  it('copyTo() makes a directory that loads to the same records; appends after it stay out of the copy', async () => {
    const { log } = newLog(dir, 300);
    log.load();
    const records = range(0, 60).map((i) => put(i, `backup-${i}`));
    await appendInTurns(log, [records.slice(0, 20), records.slice(20, 40), records.slice(40)]);
    log.append(put(1000), false); // still pending: copyTo waits for it
    const target = join(dir, 'backup-1', 'member');
    const copied = await log.copyTo(target, () => false);
    log.append(put(2000), false);
    await log.pending();

    expect(copied.segments).toBe(segmentFiles(target).length);
    expect(copied.bytes).toBe(segmentFiles(target).reduce((n, f) => n + statSync(join(target, f)).size, 0));
    expect(plain(newLog(target).log.load().records)).toEqual(plain([...records, put(1000)]));
    await log.close();
    expect(plain(newLog().log.load().records)).toEqual(plain([...records, put(1000), put(2000)]));
  });

  it('copyTo() stops when told it is interrupted', async () => {
    const { log } = newLog();
    log.load();
    await appendInTurns(log, [[put(1)]]);
    await expect(log.copyTo(join(dir, 'backup'), () => true)).rejects.toThrow('backup interrupted');
  });

  it('wipe() deletes the segments (and a left-over snapshot) and nothing else; a missing directory is fine', async () => {
    const { log } = newLog(dir, 100);
    log.load();
    await appendInTurns(log, [[put(1, 'a'.repeat(100))], [put(2, 'b'.repeat(100))]]);
    await log.close();
    writeFileSync(join(dir, 'seg-00000009.log.tmp'), 'half a snapshot');
    writeFileSync(join(dir, 'member.json'), '{}');
    expect(segmentFiles().length).toBeGreaterThan(1);
    MemberLog.wipe(dir);
    expect(readdirSync(dir)).toEqual(['member.json']);
    expect(newLog().log.load().records).toEqual([]);
    expect(() => MemberLog.wipe(join(dir, 'nope'))).not.toThrow();
  });
});


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


describe('MemberLog: closeNow() and wipe while the log is busy', () => {
  // A stale member's wipe (PersistenceService.wipe): the old log is closed at once, its files
  // deleted and a new log opened in the same directory, in one synchronous step.
  function wipeAndReopen(old: MemberLog): MemberLog {
    old.closeNow();
    MemberLog.wipe(dir);
    const fresh = newLog().log;
    fresh.load();
    return fresh;
  }

  it('a write under way when closeNow() runs does not land in the new log (its descriptor is not reused under it)', async () => {
    const { log: old } = newLog();
    old.load();
    io.holdWrites = 1;
    old.append(put(1, 'stale'), false);
    const waited = old.pending();
    await vi.waitFor(() => expect(io.held.length).toBe(1));

    const fresh = wipeAndReopen(old);
    fresh.append(put(2, 'fresh'), false);
    await fresh.pending();
    // The old write goes ahead now, on the descriptor it was given.
    for (const go of io.held.splice(0)) go();
    const outcome = await waited?.then(
      () => 'told it was persisted',
      (e: unknown) => e,
    );
    await fresh.close();

    expect(plain(onDisk())).toEqual(plain([put(2, 'fresh')]));
    expect(plain(newLog().log.load().records)).toEqual(plain([put(2, 'fresh')]));
    // Its waiter is refused: what it waited for was discarded, not persisted.
    expect(outcome).toBeInstanceOf(GridError);
    expect((outcome as GridError).message).toContain('deleted');
  });

  it('waiters of records not written yet are refused by closeNow(), not told they are persisted', async () => {
    const { log: old } = newLog();
    old.load();
    old.append(put(1), false);
    const waited = old.pending();
    old.closeNow();
    expect((await rejection(waited)).message).toContain('deleted');
    await nextTurn();
    expect(io.writes).toBe(0);
  });

  it('a compaction under way when the log is wiped touches no file of the new log (no segment deleted, no old snapshot renamed in)', async () => {
    const { log: old } = newLog();
    old.load();
    await appendInTurns(old, [[put(1, 'old'), put(2, 'old')]]);
    let fresh: MemberLog | undefined;
    // The wipe comes while the compaction waits for its first fdatasync.
    io.afterDatasync = () => {
      fresh = wipeAndReopen(old);
      fresh.append(put(3, 'fresh'), false);
    };
    await old.compact(() => [put(1, 'old snapshot'), put(2, 'old snapshot')]).catch(() => undefined);
    expect(fresh).toBeDefined();
    await fresh!.pending();
    fresh!.append(put(4, 'fresh'), false);
    await fresh!.close();

    expect(segmentFiles()).toEqual(['seg-00000001.log']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(plain(newLog().log.load().records)).toEqual(plain([put(3, 'fresh'), put(4, 'fresh')]));
  });

  it('a compaction wiped while it writes its snapshot neither renames it in nor deletes the new segment', async () => {
    const { log: old } = newLog();
    old.load();
    await appendInTurns(old, [[put(1, 'old')]]);
    let fresh: MemberLog | undefined;
    function* source(): Generator<LogRecord> {
      yield put(1, 'old snapshot '.padEnd(2_000_000, '.'));
      // The first chunk is being written: the member turns out stale now.
      fresh = wipeAndReopen(old);
      fresh.append(put(5, 'fresh'), false);
      yield put(2, 'old snapshot');
    }
    await old.compact(source).catch(() => undefined);
    await fresh!.pending();
    await fresh!.close();

    expect(segmentFiles()).toEqual(['seg-00000001.log']);
    expect(plain(newLog().log.load().records)).toEqual(plain([put(5, 'fresh')]));
  });
});

