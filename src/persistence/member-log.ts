// A member's persisted data: one append-only log in numbered segment files
// (`seg-00000001.log`, ...), replayed in order at start. Appends of one event-loop turn go
// out in one write (group commit); with fsync the turn ends with one fdatasync. Compaction
// rolls to a new segment, writes a snapshot of every partition (taken from memory, the
// truth) into a segment numbered before it, then deletes the older ones: replaying the
// snapshot and then every later segment gives the current content, because each record is
// a whole-value overwrite of one key (or a remove, a clear, a partition drop).

import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GridError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { PlainHistogram } from '../core/metrics.js';
import { encodeRecord, parseLog, type LogRecord } from './log-format.js';
import { initialDiskState, MIN_FREE_BYTES, onFault, onProbe, PROBE_MAX_MS, PROBE_MIN_MS, type DiskOp, type DiskState } from './disk-state.js';
import { nodeLogFiles, type LogFiles } from './log-files.js';

/** Puts the memory back as it was before one record's change (the record could not be written). */
export type Undo = () => void;

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
  /** Failed writes, fsyncs and segment opens. */
  faults: number;
  /** Changes put back because their record could not be written. */
  undone: number;
  /** Records not written because the disk was not writable (an expiry, a partition leaving while it was full). */
  dropped: number;
}

export class MemberLog {
  readonly stats: MemberLogStats = { bytesWritten: 0, writes: 0, fsync: new PlainHistogram(FSYNC_BUCKETS_SECONDS), compactions: 0, faults: 0, undone: 0, dropped: 0 };
  private fd: number | undefined;
  private segment = 0;
  private segmentBytes = 0;
  /** Bytes appended since the last compaction (all segments), and the size of the last snapshot. */
  private appendedSinceCompaction = 0;
  private snapshotBytes = 0;
  private pendingBufs: Buffer[] = [];
  /** What puts the memory back as it was before each pending record (undefined: nothing to undo), in append order. */
  private pendingUndos: (Undo | undefined)[] = [];
  private pendingBytes = 0;
  private pendingSync = false;
  private flushing: Promise<void> | undefined;
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private compacting = false;
  /** A backup copies segments: compaction waits (it would delete them under the copy). */
  private copying = false;
  private closed = false;
  /** closeNow(): the data is being deleted; whoever waits for a record of this log is refused. */
  private wiped = false;
  private disk: DiskState = initialDiskState(Date.now());
  private probeTimer: NodeJS.Timeout | undefined;
  /** Records were dropped while the disk was not writable (an expiry, a partition leaving): the next compaction rewrites the log from memory. */
  private needsSnapshot = false;
  /** The last compaction was skipped for lack of space (logged once until one runs). */
  private compactionTooBig = false;

  /** A live segment is rolled over once it is this large (SEGMENT_BYTES unless set, for tests). */
  private readonly maxSegmentBytes: number;
  private readonly files: LogFiles;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    options: { segmentBytes?: number; files?: LogFiles } = {},
  ) {
    this.maxSegmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
    this.files = options.files ?? nodeLogFiles;
  }

  /** Whether records can be written now, and why not. */
  get diskState(): DiskState {
    return this.disk;
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
    this.fd = this.files.openAppend(join(this.dir, segmentName(this.segment)));
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

  /**
   * The error a write gets while the log cannot take records (undefined: it can). Writes of
   * persisted data ask before they change anything, so a refused write leaves no trace.
   */
  refusal(): GridError | undefined {
    if (this.wiped) return new GridError('CONFLICT', `the persisted data in ${this.dir} was deleted (stale data) before these records were written`);
    const s = this.disk;
    if (s.kind === 'ok') return undefined;
    const why =
      s.kind === 'full'
        ? 'the disk is full; writes of persisted maps and queues resume by themselves once space is free'
        : 'the member takes no writes of persisted maps and queues until it is restarted';
    return new GridError('PERSISTENCE_FAILED', `persisting to ${this.dir} failed: ${s.reason ?? 'unknown'} (${why})`);
  }

  /**
   * Queue a record; it is written at the end of this turn of the event loop (with the others).
   * `undo` puts the memory back as it was before the record's change if the write fails (it
   * runs later, never inside this call). While the disk is not writable the record is dropped
   * and pending() refuses: whoever waits for it fails.
   */
  append(r: LogRecord, sync: boolean, undo?: Undo): void {
    if (this.closed) return;
    if (this.disk.kind !== 'ok') {
      this.stats.dropped++;
      this.needsSnapshot = true;
      return;
    }
    const buf = encodeRecord(r);
    this.pendingBufs.push(buf);
    this.pendingUndos.push(undo);
    this.pendingBytes += buf.length;
    if (sync) this.pendingSync = true;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Settles once every record appended so far is written (and synced where asked); undefined when nothing is pending. Refuses while the disk is not writable. */
  pending(): Promise<void> | undefined {
    const refusal = this.refusal();
    if (refusal !== undefined) return Promise.reject(refusal);
    if (this.pendingBytes === 0 && this.flushing === undefined) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // The flush in progress starts the next one when it ends.
    if (this.flushing !== undefined) return;
    if (this.disk.kind !== 'ok') {
      // Appended before the disk failed, in the same turn: refused and undone with the batch that failed.
      this.undoPending();
      this.release();
      return;
    }
    if (this.pendingBytes === 0) {
      this.release();
      return;
    }
    const bufs = this.pendingBufs;
    const undos = this.pendingUndos;
    const sync = this.pendingSync;
    const waiters = this.waiters;
    this.pendingBufs = [];
    this.pendingUndos = [];
    this.pendingBytes = 0;
    this.pendingSync = false;
    this.waiters = [];
    let ok = true;
    this.flushing = this.writeOut(bufs, sync)
      .catch((e: unknown) => {
        ok = false;
        this.fault(e instanceof LogIoFault ? e : new LogIoFault('write', e, 0, true));
      })
      .then(() => {
        // Idle before the waiters hear of it: one that asks pending() right away gets undefined.
        this.flushing = undefined;
        this.closeFdIfDropped();
        if (!ok) {
          // Newest first: what was appended during the failed write, then the batch itself.
          this.undoPending();
          runUndos(undos, this.stats, this.logger);
        }
        // Refused too when the log was wiped meanwhile: what they waited for was discarded.
        const refusal = ok && !this.wiped ? undefined : this.refusal();
        for (const w of waiters) {
          if (refusal === undefined) w.resolve();
          else w.reject(refusal);
        }
        if (this.pendingBytes > 0) this.flush();
        else this.release();
      });
  };

  /** Drop the records not written yet, putting back what they changed (newest first). */
  private undoPending(): void {
    const undos = this.pendingUndos;
    this.pendingBufs = [];
    this.pendingUndos = [];
    this.pendingBytes = 0;
    this.pendingSync = false;
    runUndos(undos, this.stats, this.logger);
  }

  /** Waiters that came in while nothing was left to write (refused while the disk is not writable). */
  private release(): void {
    const waiters = this.waiters;
    const refusal = this.refusal();
    this.waiters = [];
    for (const w of waiters) {
      if (refusal === undefined) w.resolve();
      else w.reject(refusal);
    }
  }

  private async writeOut(bufs: Buffer[], sync: boolean): Promise<void> {
    if (this.fd === undefined) {
      // A roll that failed (no space for the new segment) is completed now.
      try {
        this.fd = this.files.openAppend(join(this.dir, segmentName(this.segment)));
      } catch (e) {
        throw new LogIoFault('open', e, 0, true);
      }
    }
    const fd = this.fd;
    const data = bufs.length === 1 ? (bufs[0] as Buffer) : Buffer.concat(bufs);
    try {
      await this.files.write(fd, data);
    } catch (e) {
      // The file may end inside this batch now: cut it back to its last whole record, so the
      // log can go on after it once there is space (shrinking a file needs none).
      let cut = true;
      try {
        this.files.truncate(fd, this.segmentBytes);
      } catch (te) {
        cut = false;
        this.logger.error({ dir: this.dir }, `persistence: could not cut ${segmentName(this.segment)} back to its last whole record: ${describeError(te)}`);
      }
      throw new LogIoFault('write', e, data.length, cut);
    }
    // closeNow() came while it was written: no sync and no new segment in a wiped directory.
    if (this.closed) return;
    this.segmentBytes += data.length;
    this.appendedSinceCompaction += data.length;
    this.stats.bytesWritten += data.length;
    this.stats.writes++;
    if (sync) await this.timedDatasync(fd);
    if (this.segmentBytes >= this.maxSegmentBytes) {
      // A full segment is synced before the log moves on: only the last segment may end torn.
      if (!sync) await this.timedDatasync(fd);
      // This batch is written (and synced); a new segment that cannot be made stops the next ones.
      try {
        this.roll();
      } catch (e) {
        this.fault(new LogIoFault('open', e, 0, true));
        return;
      }
      try {
        await syncDir(this.dir);
      } catch (e) {
        this.fault(new LogIoFault('fsync', e, 0, true));
      }
    }
  }

  private async timedDatasync(fd: number): Promise<void> {
    const startedAt = performance.now();
    try {
      await this.files.datasync(fd);
    } catch (e) {
      throw new LogIoFault('fsync', e, 0, true);
    }
    this.stats.fsync.observe((performance.now() - startedAt) / 1000);
  }

  /** A failed write, fsync or segment open: the disk's new state, logged when it changes. */
  private fault(f: LogIoFault): void {
    this.stats.faults++;
    const before = this.disk;
    const code = (f.cause as NodeJS.ErrnoException | undefined)?.code;
    // A file that could not be cut back is not written after: only a restart, which cuts the torn record, goes on.
    this.disk = onFault(this.disk, { op: f.op, code: f.cutBack ? code : undefined, message: describeError(f.cause), bytes: f.bytes }, Date.now());
    const s = this.disk;
    if (s.kind === 'full') {
      if (before.kind !== 'full') {
        this.logger.error({ dir: this.dir }, `persistence: persisting to ${this.dir} failed: ${s.reason ?? ''}: the disk is full; writes of persisted maps and queues are refused until space is free (checked every ${PROBE_MIN_MS} ms to ${PROBE_MAX_MS / 1000} s)`);
      }
      this.scheduleProbe();
    } else if (s.kind === 'failed' && before.kind !== 'failed') {
      if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
      this.probeTimer = undefined;
      this.logger.error(
        { dir: this.dir },
        `persistence: persisting to ${this.dir} failed: ${s.reason ?? ''} (${f.op}): the member takes no more writes of persisted maps and queues; ` +
          (f.op === 'fsync' ? 'a failed fsync is never retried on the same file (the kernel may have dropped the data): ' : '') +
          'restart the member once the disk is sound (every write answered 200 is in the log)',
      );
    }
  }

  private scheduleProbe(): void {
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(this.probe, Math.max(0, this.disk.nextProbeAtMs - Date.now()));
    this.probeTimer.unref();
  }

  /** Look for space on a full disk; enough of it: writes resume. */
  private readonly probe = (): void => {
    this.probeTimer = undefined;
    if (this.closed || this.disk.kind !== 'full') return;
    this.files.freeBytes(this.dir).then(
      (free) => this.probed(free),
      () => this.probed(undefined),
    );
  };

  private probed(free: number | undefined): void {
    if (this.closed || this.disk.kind !== 'full') return;
    const full = this.disk;
    this.disk = onProbe(this.disk, free, Date.now());
    if (this.disk.kind === 'ok') {
      this.logger.info(
        { dir: this.dir, freeBytes: free },
        `persistence: ${this.dir} has space again (${free ?? 0} bytes free, after ${Math.round((Date.now() - full.sinceMs) / 1000)} s full): writes of persisted maps and queues resumed`,
      );
      return;
    }
    this.scheduleProbe();
  }

  /** Bytes of the log on disk, about: the last snapshot and everything appended since. */
  get sizeBytes(): number {
    return this.appendedSinceCompaction;
  }

  /** Start a new segment (the current one becomes immutable). */
  private roll(): void {
    if (this.fd !== undefined) this.files.close(this.fd);
    // Not left pointing at the closed descriptor if the open below fails (its number may be reused).
    this.fd = undefined;
    this.segment++;
    this.segmentBytes = 0;
    this.fd = this.files.openAppend(join(this.dir, segmentName(this.segment)));
  }

  /** Sync the live segment and start a new one (compaction, backup); a failure stops the log as any other would. */
  private async syncAndRoll(): Promise<void> {
    if (this.fd !== undefined) await this.timedDatasync(this.fd).catch((e: unknown) => this.faulted(e, 'fsync'));
    // closeNow() came meanwhile: no new segment in a directory being wiped.
    if (this.closed) return;
    try {
      this.roll();
    } catch (e) {
      this.faulted(e, 'open');
    }
    await syncDir(this.dir).catch((e: unknown) => this.faulted(e, 'fsync'));
  }

  private faulted(e: unknown, op: DiskOp): never {
    const f = e instanceof LogIoFault ? e : new LogIoFault(op, e, 0, true);
    this.fault(f);
    throw f.cause;
  }

  /** Whether the log has grown enough past its last snapshot that a compaction pays. */
  wantsCompaction(): boolean {
    if (this.compacting || this.disk.kind !== 'ok') return false;
    return this.needsSnapshot || this.appendedSinceCompaction > Math.max(this.maxSegmentBytes, 2 * this.snapshotBytes);
  }

  /**
   * Replace every segment so far by one snapshot of the current content. The snapshot is
   * taken after the live log rolled to a new segment, so the records appended meanwhile land
   * after it; the old segments go once the snapshot is on disk. True when the snapshot replaced
   * them (false: not now, or no room).
   */
  async compact(source: SnapshotSource): Promise<boolean> {
    if (this.compacting || this.copying || this.closed) return false;
    this.compacting = true;
    try {
      // The snapshot needs up to the log's size while the old segments still exist: one that
      // cannot fit would fill the disk and stop the member's writes, every time it is tried.
      const free = await this.files.freeBytes(this.dir).catch(() => Number.POSITIVE_INFINITY);
      if (free < this.appendedSinceCompaction + MIN_FREE_BYTES) {
        if (!this.compactionTooBig) {
          this.compactionTooBig = true;
          this.logger.warn({ dir: this.dir, freeBytes: free, logBytes: this.appendedSinceCompaction }, `persisted log not compacted: ${free} bytes free in ${this.dir}, the snapshot may need up to ${this.appendedSinceCompaction}; it is tried again when there is room`);
        }
        return false;
      }
      this.compactionTooBig = false;
      let oldSegments: number[] = [];
      let snapshotSegment = 0;
      await this.withWritesHeld(async () => {
        oldSegments = this.segments();
        // Segment numbers: the snapshot takes the next number, live appends the one after it.
        snapshotSegment = this.segment + 1;
        this.segment = snapshotSegment;
        await this.syncAndRoll();
        this.needsSnapshot = false;
      });
      // After closeNow() (the data is being deleted: a stale member's wipe) a compaction stops
      // at its next step and changes nothing in the directory: the new log's segments have the
      // same numbers as the ones it would delete. Each change of the directory is made in the
      // same turn as that check (synchronously), so a wipe cannot come between them.
      if (this.closed) return false;
      const tmp = join(this.dir, `${segmentName(snapshotSegment)}.tmp`);
      const fh = await open(tmp, 'w');
      let bytes = 0;
      let written = false;
      try {
        let chunk: Buffer[] = [];
        let chunkBytes = 0;
        for (const r of source()) {
          if (this.closed) return false;
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
        written = true;
      } finally {
        await fh.close();
        // A snapshot that did not fit (or failed) must not hold the space the live log needs.
        if (!written) {
          this.needsSnapshot = true;
          await unlink(tmp).catch(() => undefined);
        }
      }
      if (this.closed) return false;
      renameSync(tmp, join(this.dir, segmentName(snapshotSegment)));
      // The snapshot's name is on disk before the segments it replaces go.
      await syncDir(this.dir);
      if (this.closed) return false;
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
      return true;
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
    await this.withWritesHeld(() => this.syncAndRoll());
    if (this.closed) throw new GridError('CONFLICT', `the persisted data in ${this.dir} was deleted while the backup started`);
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
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    if (this.fd !== undefined) {
      // Not after a failed fsync: the file is not trusted to hold what the kernel says it does.
      if (this.disk.kind !== 'failed') await this.files.datasync(this.fd).catch(() => undefined);
      this.files.close(this.fd);
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
    this.wiped = true;
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.pendingBufs = [];
    this.pendingUndos = [];
    this.pendingBytes = 0;
    this.pendingSync = false;
    this.release();
    this.closeFdIfDropped();
  }

  /** After closeNow(): the descriptor goes once nothing under way uses it. */
  private closeFdIfDropped(): void {
    if (!this.wiped || this.flushing !== undefined || this.fd === undefined) return;
    this.files.close(this.fd);
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

/** Undo functions of records that were not written, run newest first; one that throws does not stop the others. */
function runUndos(undos: readonly (Undo | undefined)[], stats: MemberLogStats, logger: Logger): void {
  for (let i = undos.length - 1; i >= 0; i--) {
    const u = undos[i];
    if (u === undefined) continue;
    stats.undone++;
    try {
      u();
    } catch (e) {
      logger.error(`persistence: could not undo a change whose record was not written: ${describeError(e)}`);
    }
  }
}

/** A failure of the log's own I/O, with where it happened. */
class LogIoFault extends Error {
  constructor(
    readonly op: DiskOp,
    override readonly cause: unknown,
    /** Bytes the failed write carried. */
    readonly bytes: number,
    /** The file was cut back to its last whole record (or was not written at all). */
    readonly cutBack: boolean,
  ) {
    super(describeError(cause));
  }
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
