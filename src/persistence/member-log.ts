// A member's persisted data: one append-only log in numbered segment files
// (`seg-00000001.log`, ...), replayed in order at start. Appends of one event-loop turn go
// out in one write (group commit); with fsync the turn ends with one fdatasync. Compaction
// rolls to a new segment, writes a snapshot of every partition (taken from memory, the
// truth) into a segment numbered before it, then deletes the older ones: replaying the
// snapshot and then every later segment gives the current content, because each record is
// a whole-value overwrite of one key (or a remove, a clear, a partition drop).

import { closeSync, fdatasync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, write } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GridError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { PlainHistogram } from '../core/metrics.js';
import { encodeRecord, parseLog, type LogRecord } from './log-format.js';

/** A live segment is rolled over once it is this large. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;

export interface LoadedLog {
  /** Every record of every segment, in order. */
  readonly records: LogRecord[];
  readonly segments: number;
  readonly bytes: number;
  /** A torn last record (a crash mid-write) was cut off. */
  readonly tornTail: boolean;
}

/** Where a compaction gets the current content of the member's partitions. */
export type SnapshotSource = () => Iterable<LogRecord>;

const SEGMENT_RE = /^seg-(\d{8})\.log$/;

function segmentName(n: number): string {
  return `seg-${String(n).padStart(8, '0')}.log`;
}

/** fsync (fdatasync) latency buckets in seconds: 50 µs to 2.5 s. */
export const FSYNC_BUCKETS_SECONDS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What the log did since the member started (metrics; counted per write, not per record). */
export interface MemberLogStats {
  /** Bytes of records written (group commits; compaction snapshots and backups not included). */
  bytesWritten: number;
  writes: number;
  /** fdatasync of the log: count and latency. */
  readonly fsync: PlainHistogram;
  compactions: number;
}

export class MemberLog {
  readonly stats: MemberLogStats = { bytesWritten: 0, writes: 0, fsync: new PlainHistogram(FSYNC_BUCKETS_SECONDS), compactions: 0 };
  private fd: number | undefined;
  private segment = 0;
  private segmentBytes = 0;
  /** Bytes appended since the last compaction (all segments), and the size of the last snapshot. */
  private appendedSinceCompaction = 0;
  private snapshotBytes = 0;
  private pendingBufs: Buffer[] = [];
  private pendingBytes = 0;
  private pendingSync = false;
  private flushing: Promise<void> | undefined;
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private compacting = false;
  /** A backup copies segments: compaction waits (it would delete them under the copy). */
  private copying = false;
  private closed = false;
  private failure: GridError | undefined;

  /** A live segment is rolled over once it is this large (SEGMENT_BYTES unless set, for tests). */
  private readonly maxSegmentBytes: number;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    options: { segmentBytes?: number } = {},
  ) {
    this.maxSegmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
  }

  /** Read every segment (in order) and open the last one for appending; a torn tail is cut off. */
  load(): LoadedLog {
    mkdirSync(this.dir, { recursive: true });
    // A snapshot a crash interrupted: its segments are all still there.
    for (const name of readdirSync(this.dir)) if (name.endsWith('.log.tmp')) unlinkSync(join(this.dir, name));
    const segs = this.segments();
    const records: LogRecord[] = [];
    let bytes = 0;
    let tornTail = false;
    for (let i = 0; i < segs.length; i++) {
      const n = segs[i] as number;
      const file = join(this.dir, segmentName(n));
      const buf = readFileSync(file);
      const parsed = parseLog(buf, file);
      for (const r of parsed.records) records.push(r);
      bytes += parsed.validBytes;
      if (parsed.tornTail) {
        if (i !== segs.length - 1) throw new GridError('INTERNAL', `persisted data file ${file} ends inside a record but is not the last segment: the data directory ${this.dir} is damaged`);
        tornTail = true;
        this.logger.warn({ file, validBytes: parsed.validBytes, fileBytes: buf.length }, `persisted log ${file} ends with a torn record (a crash mid-write): ${buf.length - parsed.validBytes} bytes ignored`);
        const fd = openSync(file, 'r+');
        try {
          ftruncateSync(fd, parsed.validBytes);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    }
    const last = segs[segs.length - 1];
    this.segment = last ?? 1;
    this.fd = openSync(join(this.dir, segmentName(this.segment)), 'a');
    this.segmentBytes = last === undefined ? 0 : statSync(join(this.dir, segmentName(this.segment))).size;
    this.appendedSinceCompaction = bytes;
    return { records, segments: segs.length, bytes, tornTail };
  }

  /** Segment numbers on disk, ascending. */
  private segments(): number[] {
    const out: number[] = [];
    for (const name of readdirSync(this.dir)) {
      const m = SEGMENT_RE.exec(name);
      if (m !== null) out.push(Number(m[1]));
    }
    return out.sort((a, b) => a - b);
  }

  /** Queue a record; it is written at the end of this turn of the event loop (with the others). */
  append(r: LogRecord, sync: boolean): void {
    if (this.closed) return;
    const buf = encodeRecord(r);
    this.pendingBufs.push(buf);
    this.pendingBytes += buf.length;
    if (sync) this.pendingSync = true;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Settles once every record appended so far is written (and synced where asked); undefined when nothing is pending. */
  pending(): Promise<void> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.pendingBytes === 0 && this.flushing === undefined) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.failure !== undefined) {
      // A write failed: the file may now end inside a record, so nothing more goes after it
      // (records there would turn a torn tail into corruption); every waiter is refused.
      this.pendingBufs = [];
      this.pendingBytes = 0;
      this.pendingSync = false;
      if (this.flushing === undefined) this.release();
      return;
    }
    if (this.flushing !== undefined || this.pendingBytes === 0) {
      // The next flush starts when the one in progress ends.
      if (this.pendingBytes === 0 && this.flushing === undefined) this.release();
      return;
    }
    const bufs = this.pendingBufs;
    const sync = this.pendingSync;
    const waiters = this.waiters;
    this.pendingBufs = [];
    this.pendingBytes = 0;
    this.pendingSync = false;
    this.waiters = [];
    this.flushing = this.writeOut(bufs, sync)
      .catch((e: unknown) => {
        this.failure = new GridError('INTERNAL', `persisting to ${this.dir} failed: ${describeError(e)}`);
        this.logger.error({ dir: this.dir }, this.failure.message);
      })
      .then(() => {
        // Idle before the waiters hear of it: one that asks pending() right away gets undefined.
        this.flushing = undefined;
        this.closeFdIfDropped();
        for (const w of waiters) {
          if (this.failure === undefined) w.resolve();
          else w.reject(this.failure);
        }
        if (this.pendingBytes > 0) this.flush();
        else this.release();
      });
  };

  /** Waiters that came in while nothing was left to write (refused once a write failed). */
  private release(): void {
    const waiters = this.waiters;
    const failure = this.failure;
    this.waiters = [];
    for (const w of waiters) {
      if (failure === undefined) w.resolve();
      else w.reject(failure);
    }
  }

  private async writeOut(bufs: Buffer[], sync: boolean): Promise<void> {
    if (this.fd === undefined) throw new GridError('INTERNAL', 'member log is not open');
    const data = bufs.length === 1 ? (bufs[0] as Buffer) : Buffer.concat(bufs);
    await writeAll(this.fd, data);
    // closeNow() came while it was written: no sync and no new segment in a wiped directory.
    if (this.closed) return;
    this.segmentBytes += data.length;
    this.appendedSinceCompaction += data.length;
    this.stats.bytesWritten += data.length;
    this.stats.writes++;
    if (sync) await this.timedDatasync(this.fd);
    if (this.segmentBytes >= this.maxSegmentBytes) {
      // A full segment is synced before the log moves on: only the last segment may end torn.
      if (!sync) await this.timedDatasync(this.fd);
      this.roll();
      await syncDir(this.dir);
    }
  }

  private async timedDatasync(fd: number): Promise<void> {
    const startedAt = performance.now();
    await datasync(fd);
    this.stats.fsync.observe((performance.now() - startedAt) / 1000);
  }

  /** Bytes of the log on disk, about: the last snapshot and everything appended since. */
  get sizeBytes(): number {
    return this.appendedSinceCompaction;
  }

  /** Start a new segment (the current one becomes immutable). */
  private roll(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    // Not left pointing at the closed descriptor if the open below fails (its number may be reused).
    this.fd = undefined;
    this.segment++;
    this.fd = openSync(join(this.dir, segmentName(this.segment)), 'a');
    this.segmentBytes = 0;
  }

  /** Whether the log has grown enough past its last snapshot that a compaction pays. */
  wantsCompaction(): boolean {
    return !this.compacting && this.appendedSinceCompaction > Math.max(this.maxSegmentBytes, 2 * this.snapshotBytes);
  }

  /**
   * Replace every segment so far by one snapshot of the current content. The snapshot is
   * taken after the live log rolled to a new segment, so the records appended meanwhile land
   * after it; the old segments go once the snapshot is on disk.
   */
  async compact(source: SnapshotSource): Promise<void> {
    if (this.compacting || this.copying || this.closed) return;
    this.compacting = true;
    try {
      let oldSegments: number[] = [];
      let snapshotSegment = 0;
      // After closeNow() (the data is being deleted: a stale member's wipe) a compaction stops
      // at its next step and changes nothing in the directory: the new log's segments have the
      // same numbers as the ones it would delete. Each change of the directory is made in the
      // same turn as that check (synchronously), so a wipe cannot come between them.
      await this.withWritesHeld(async () => {
        oldSegments = this.segments();
        // Segment numbers: the snapshot takes the next number, live appends the one after it.
        snapshotSegment = this.segment + 1;
        if (this.fd !== undefined) await datasync(this.fd);
        if (this.closed) return;
        this.segment = snapshotSegment;
        this.roll();
        await syncDir(this.dir);
      });
      if (this.closed) return;
      const tmp = join(this.dir, `${segmentName(snapshotSegment)}.tmp`);
      const fh = await open(tmp, 'w');
      let bytes = 0;
      try {
        let chunk: Buffer[] = [];
        let chunkBytes = 0;
        for (const r of source()) {
          if (this.closed) return;
          const b = encodeRecord(r);
          chunk.push(b);
          chunkBytes += b.length;
          if (chunkBytes >= 1024 * 1024) {
            await fh.write(Buffer.concat(chunk));
            bytes += chunkBytes;
            chunk = [];
            chunkBytes = 0;
          }
        }
        if (chunkBytes > 0) await fh.write(Buffer.concat(chunk));
        bytes += chunkBytes;
        await fh.datasync();
      } finally {
        await fh.close();
      }
      if (this.closed) return;
      renameSync(tmp, join(this.dir, segmentName(snapshotSegment)));
      // The snapshot's name is on disk before the segments it replaces go.
      await syncDir(this.dir);
      if (this.closed) return;
      for (const n of oldSegments) {
        try {
          unlinkSync(join(this.dir, segmentName(n)));
        } catch {
          // gone already
        }
      }
      this.snapshotBytes = bytes;
      this.appendedSinceCompaction = bytes + this.segmentBytes;
      this.stats.compactions++;
      this.logger.info({ dir: this.dir, bytes, removedSegments: oldSegments.length }, `persisted log compacted: ${oldSegments.length} segment(s) replaced by a snapshot of ${bytes} bytes`);
    } finally {
      this.compacting = false;
    }
  }

  /**
   * Run `fn` with no write in flight and none starting: appends wait in memory meanwhile (a
   * flush must never write to a descriptor a roll is closing). The flush slot is taken in the
   * same turn drain() finds the log idle, so no flush can slip in between.
   */
  private async withWritesHeld(fn: () => Promise<void>): Promise<void> {
    await this.drain();
    let done!: () => void;
    this.flushing = new Promise<void>((resolve) => (done = resolve));
    try {
      await fn();
    } finally {
      this.flushing = undefined;
      done();
      this.closeFdIfDropped();
      if (this.pendingBytes > 0) this.flush();
      else this.release();
    }
  }

  /** Wait until everything appended so far is written. */
  async drain(): Promise<void> {
    for (;;) {
      const p = this.pending();
      if (p === undefined) return;
      await p;
    }
  }

  /**
   * Copy the log as it is now into `target` (a backup): roll to a new segment, then copy every
   * older (now immutable) segment; appends go on meanwhile.
   */
  async copyTo(target: string, interrupted: () => boolean): Promise<{ bytes: number; segments: number }> {
    if (this.compacting) throw new GridError('CONFLICT', 'the persisted log is being compacted: try the backup again in a moment');
    this.copying = true;
    try {
      return await this.copySegments(target, interrupted);
    } finally {
      this.copying = false;
    }
  }

  private async copySegments(target: string, interrupted: () => boolean): Promise<{ bytes: number; segments: number }> {
    await this.withWritesHeld(async () => {
      if (this.fd !== undefined) await datasync(this.fd);
      if (this.closed) throw new GridError('CONFLICT', `the persisted data in ${this.dir} was deleted while the backup started`);
      this.roll();
      await syncDir(this.dir);
    });
    const segs = this.segments().filter((n) => n < this.segment);
    mkdirSync(target, { recursive: true });
    let bytes = 0;
    for (const n of segs) {
      if (interrupted()) throw new GridError('CONFLICT', 'backup interrupted');
      const from = join(this.dir, segmentName(n));
      const data = await readFile(from);
      let fh: FileHandle | undefined;
      try {
        fh = await open(join(target, segmentName(n)), 'w');
        await fh.write(data);
        await fh.datasync();
      } finally {
        await fh?.close();
      }
      bytes += data.length;
    }
    return { bytes, segments: segs.length };
  }

  /** Flush what is pending and close. */
  async close(): Promise<void> {
    await this.drain().catch(() => undefined);
    this.closed = true;
    if (this.fd !== undefined) {
      try {
        fdatasyncSync(this.fd);
      } catch {
        // closing anyway
      }
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /**
   * Close at once, dropping what is not written yet (the data is about to be deleted: a stale
   * member's wipe, which opens a new log in the same directory right after). Whoever waits for
   * a record of this log is refused: it was discarded, not persisted. A write, fdatasync or
   * compaction step under way keeps the descriptor until it ends: closed now, its number would
   * go to the next file opened (the new log's segment) and the write would land there.
   */
  closeNow(): void {
    this.closed = true;
    this.failure ??= new GridError('CONFLICT', `the persisted data in ${this.dir} was deleted (stale data) before these records were written`);
    this.pendingBufs = [];
    this.pendingBytes = 0;
    this.pendingSync = false;
    this.release();
    this.closeFdIfDropped();
  }

  /** After closeNow(): the descriptor goes once nothing under way uses it. */
  private closeFdIfDropped(): void {
    if (!this.closed || this.flushing !== undefined || this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Delete every segment (forceStart, stale data): the member starts empty. */
  static wipe(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) if (SEGMENT_RE.test(name) || name.endsWith('.log.tmp')) unlinkSync(join(dir, name));
  }
}

function writeAll(fd: number, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    let off = 0;
    const step = (): void => {
      write(fd, data, off, data.length - off, null, (err, n) => {
        if (err) {
          reject(err);
          return;
        }
        off += n;
        if (off < data.length) step();
        else resolve();
      });
    };
    step();
  });
}

/** Make a directory's entries (files created, renamed, removed) durable. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function datasync(fd: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    fdatasync(fd, (err) => (err ? reject(err) : resolve()));
  });
}
