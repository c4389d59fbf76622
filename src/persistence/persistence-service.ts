// Persistence of one member: its directory under base-dir (chosen and locked at start), the
// member log of its partitions' data, and the member's persisted identity, member list and
// partition table (member.json, replaced atomically). Data services append records; a write
// is acknowledged once `pending()` settles (see invocation's Durability).

import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GridError, describeError } from '../core/errors.js';
import { PARTITION_HASH_VERSION } from '../core/murmur3.js';
import type { Logger } from '../core/logger.js';
import type { PersistenceConfig } from '../config/types.js';
import type { LogRecord } from './log-format.js';
import { bootId, describeHolder, judgeLock, ownLock, parseLock, probeProcess, type LockRecord } from './dir-lock.js';
import { FSYNC_BUCKETS_SECONDS, MemberLog, type SnapshotSource, type Undo } from './member-log.js';
import type { DiskState } from './disk-state.js';
import type { MetricsRegistrar } from '../core/metrics.js';

/** What a member persists about itself and its cluster. */
export interface PersistedState {
  readonly uuid: string;
  readonly clusterName: string;
  readonly address: string;
  /** The data members of the cluster when last saved (uuid and address), oldest first. */
  readonly members: readonly { readonly uuid: string; readonly address: string }[];
  readonly partitionTableVersion: number;
  /** Replica uuids per partition, owner first (empty before the first table). */
  readonly partitions: readonly (readonly string[])[];
  /** Saved by a graceful shutdown: the log ends cleanly. */
  readonly clean: boolean;
  readonly savedAt: number;
}

export interface OpenedStore {
  readonly dir: string;
  readonly state: PersistedState | undefined;
  readonly records: LogRecord[];
  readonly bytes: number;
  readonly loadMs: number;
  /**
   * The partition hash version the records' partition ids follow (core/murmur3.ts): the
   * directory's `partition-hash` file, or 1 for data an older Grid wrote (no such file). Data
   * of version 1 is converted at start (member-persistence.ts) or refused by open().
   */
  readonly partitionHash: number;
}

const STATE_FILE = 'member.json';
const LOCK_FILE = 'lock';
/** The partition hash version of the directory's data; written when the directory is new, rewritten once a conversion is on disk. */
const HASH_FILE = 'partition-hash';

export class PersistenceService {
  private log: MemberLog | undefined;
  private memberDir: string | undefined;
  private lockFd: number | undefined;
  /** While loading, the data services' restores must not be appended again. */
  private loading = true;
  private snapshotSource: SnapshotSource | undefined;
  private compactTimer: NodeJS.Timeout | undefined;
  private backupRunning: { interrupted: boolean } | undefined;
  private appended = 0;
  private capturing = false;
  private captured: Undo[] | undefined;

  constructor(
    readonly config: PersistenceConfig,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.config.enabled;
  }

  get dir(): string | undefined {
    return this.memberDir;
  }

  /** True once loading is over: records appended from now on are written. */
  get logging(): boolean {
    return !this.loading && this.log !== undefined;
  }

  /**
   * Choose and lock this member's directory and replay its log: the directory last used at an
   * address ending in `addressHint`, else one that never got a state, else a new one. When the
   * directory of this address is held by a live process the start is refused (never a new empty
   * directory beside it), unless `startEmpty` asks for a new directory (the data stays, unused).
   */
  open(addressHint: string, opts: { readonly startEmpty?: boolean } = {}): OpenedStore {
    const base = resolve(this.config.baseDir);
    mkdirSync(base, { recursive: true });
    const started = Date.now();
    const candidates: { dir: string; state: PersistedState | undefined }[] = [];
    for (const name of readdirSync(base)) {
      const dir = join(base, name);
      try {
        if (!statSync(dir).isDirectory()) continue;
      } catch {
        continue;
      }
      const state = readState(dir);
      // Only member directories: a backup or any other directory under base-dir is left alone.
      if (state === undefined && !isMemberDir(dir)) continue;
      candidates.push({ dir, state });
    }
    // A member takes the directory last used at its own port, or one that never got a state;
    // never another port's data (members started together would take each other's, and a
    // member without data forming the cluster would make the others' data stale).
    const mine = candidates.filter((c) => c.state !== undefined && c.state.address.endsWith(addressHint));
    const refused: { dir: string; lock: LockRecord | undefined; why: string }[] = [];
    let chosen: { dir: string; state: PersistedState | undefined } | undefined;
    if (opts.startEmpty === true) {
      for (const c of mine) this.logger.warn({ dir: c.dir }, `persistence: starting empty as asked (--start-empty); the persisted data of this address in ${c.dir} is left there, unused`);
    } else {
      for (const c of mine) {
        const r = this.tryLock(c.dir);
        if (r === true) {
          chosen = c;
          break;
        }
        refused.push({ dir: c.dir, ...r });
      }
      if (chosen === undefined && refused.length > 0) {
        const first = refused[0]!;
        throw new GridError(
          'CONFIG_INVALID',
          `persistence: the data of this member's address (*${addressHint}) is in ${first.dir}, which ${describeHolder(first.lock)} holds (${first.why}). ` +
            'Another member is running on this base-dir and port: stop it first (or give this member its own port or base-dir). ' +
            'To start this member empty anyway, leaving that data unused, start it with --start-empty.',
        );
      }
    }
    if (chosen === undefined) {
      for (const c of candidates) {
        if (c.state === undefined && this.tryLock(c.dir) === true) {
          chosen = c;
          break;
        }
      }
    }
    if (chosen === undefined) {
      const dir = join(base, randomUUID());
      mkdirSync(dir, { recursive: true });
      if (this.tryLock(dir) !== true) throw new GridError('CONFIG_INVALID', `cannot lock the new persistence directory ${dir}`);
      chosen = { dir, state: undefined };
    }
    const partitionHash = readHashVersion(chosen.dir, chosen.state);
    if (partitionHash === undefined) writeHashVersion(chosen.dir);
    else checkConvertible(chosen.dir, chosen.state, partitionHash);
    this.memberDir = chosen.dir;
    this.log = new MemberLog(chosen.dir, this.logger);
    const loaded = this.log.load();
    return { dir: chosen.dir, state: chosen.state, records: loaded.records, bytes: loaded.bytes, loadMs: Date.now() - started, partitionHash: partitionHash ?? PARTITION_HASH_VERSION };
  }

  /**
   * Rewrites the log from `source` (the data in memory, re-homed to this build's partitions)
   * and then marks the directory with this build's partition hash version. A crash before the
   * mark leaves the old version's mark: the next start converts again, from the old records
   * and the snapshot, which give the same content (every record is keyed: none is duplicated).
   */
  async convert(source: SnapshotSource): Promise<void> {
    if (this.log === undefined || this.memberDir === undefined) return;
    if (!(await this.log.compact(source))) {
      throw new GridError('CONFIG_INVALID', `persistence: the data in ${this.memberDir} could not be converted to partition hash version ${PARTITION_HASH_VERSION} (no room for its rewrite on the disk, see the log); it is unchanged`);
    }
    writeHashVersion(this.memberDir);
  }

  /** Loading is over: records appended from now on are this member's new writes. */
  startLogging(snapshot: SnapshotSource): void {
    this.loading = false;
    this.snapshotSource = snapshot;
    this.compactTimer = setInterval(() => {
      if (this.log?.wantsCompaction() === true && this.snapshotSource !== undefined) {
        this.log.compact(this.snapshotSource).catch((e: unknown) => this.logger.error(`persisted log compaction failed: ${describeError(e)}`));
      }
    }, 5_000);
    this.compactTimer.unref();
  }

  /** Persistence metrics (docs/metrics.md), read at scrape time from the member log's counts. */
  reportMetrics(r: MetricsRegistrar): void {
    r.counter({ name: 'grid_persistence_records_total', help: 'Records (puts, removes, clears, partition drops) appended to the member log' }, (report) => report(this.appended));
    r.counter({ name: 'grid_persistence_written_bytes_total', help: 'Bytes of records written to the member log (one write per event-loop turn)' }, (report) => report(this.log?.stats.bytesWritten ?? 0));
    r.counter({ name: 'grid_persistence_writes_total', help: 'Writes to the member log (each carries the records of one event-loop turn)' }, (report) => report(this.log?.stats.writes ?? 0));
    r.counter({ name: 'grid_persistence_compactions_total', help: 'Compactions of the member log into a snapshot' }, (report) => report(this.log?.stats.compactions ?? 0));
    r.gauge({ name: 'grid_persistence_log_bytes', help: 'Size of the member log on disk, about (the last snapshot and everything appended since)' }, (report) => report(this.log?.sizeBytes ?? 0));
    r.gauge(
      { name: 'grid_persistence_disk_state', help: 'State of the member log\'s disk: 0 writing, 1 full (writes of persisted data refused until space is free), 2 failed (refused until restart)' },
      (report) => {
        const k = this.log?.diskState.kind;
        report(k === 'full' ? 1 : k === 'failed' ? 2 : 0);
      },
    );
    r.counter({ name: 'grid_persistence_faults_total', help: 'Failed writes, fsyncs and segment opens of the member log' }, (report) => report(this.log?.stats.faults ?? 0));
    r.counter({ name: 'grid_persistence_undone_total', help: 'Changes put back in memory because their record could not be written' }, (report) => report(this.log?.stats.undone ?? 0));
    r.histogram(
      { name: 'grid_persistence_fsync_duration_seconds', help: 'fdatasync of the member log (after writes of maps and queues with fsync true, and at each segment end)', buckets: FSYNC_BUCKETS_SECONDS },
      (report) => {
        if (this.log !== undefined) report(this.log.stats.fsync);
      },
    );
  }

  append(r: LogRecord, sync: boolean, undo?: Undo): void {
    if (this.loading || this.log === undefined) return;
    this.appended++;
    if (undo !== undefined && this.capturing) (this.captured ??= []).push(undo);
    this.log.append(r, sync, undo);
  }

  /** Records appended so far (a write compares it before and after to know whether it wrote any). */
  mark(): number {
    return this.appended;
  }

  /** Keep the undo functions of what is appended from now until takeUndo() (the owner's write, put back if a backup cannot persist it). */
  capture(): void {
    this.capturing = true;
    this.captured = undefined;
  }

  takeUndo(): Undo[] | undefined {
    const undo = this.captured;
    this.capturing = false;
    this.captured = undefined;
    return undo;
  }

  /** Why writes of persisted data are refused now (disk full or failed); undefined while they are not. */
  refusal(): GridError | undefined {
    return this.log?.refusal();
  }

  /** The disk state of the member log (/health, metrics). */
  diskState(): DiskState | undefined {
    return this.log?.diskState;
  }

  pending(since?: number): Promise<void> | undefined {
    if (since !== undefined && since === this.appended) return undefined;
    return this.log?.pending();
  }

  /** Replace member.json (atomically: a temp file, fsynced, renamed over it). */
  saveState(state: PersistedState): void {
    if (this.memberDir === undefined) return;
    const file = join(this.memberDir, STATE_FILE);
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  /** Forget everything persisted (forceStart, stale data): the log and the state. */
  wipe(): void {
    if (this.memberDir === undefined) return;
    this.log?.closeNow();
    MemberLog.wipe(this.memberDir);
    try {
      unlinkSync(join(this.memberDir, STATE_FILE));
    } catch {
      // not there
    }
    // What it writes from now on follows this build's partitions.
    writeHashVersion(this.memberDir);
    this.log = new MemberLog(this.memberDir, this.logger);
    this.log.load();
    this.logger.warn({ dir: this.memberDir }, `persistence: the persisted data in ${this.memberDir} was deleted`);
  }

  /**
   * Copy this member's persisted data as it is now into `<backup-dir>/backup-<seq>/<member dir>`
   * while writes go on. Resolves with the bytes copied.
   */
  async backup(seq: number): Promise<{ dir: string; bytes: number }> {
    if (this.config.backupDir === undefined) throw new GridError('CONFLICT', 'no backup-dir is configured');
    if (this.log === undefined || this.memberDir === undefined) throw new GridError('CONFLICT', 'persistence is not running');
    if (this.backupRunning !== undefined) throw new GridError('CONFLICT', 'a backup is already running on this member');
    const run = { interrupted: false };
    this.backupRunning = run;
    try {
      const target = join(resolve(this.config.backupDir), `backup-${seq}`, this.memberDir.split(/[\\/]/).pop() ?? 'member');
      const r = await this.log.copyTo(target, () => run.interrupted);
      const state = readState(this.memberDir);
      if (state !== undefined) writeFileSync(join(target, STATE_FILE), JSON.stringify(state));
      // A running member's data follows this build's partitions (older data was converted at its start).
      writeFileSync(join(target, HASH_FILE), `${PARTITION_HASH_VERSION}\n`);
      return { dir: target, bytes: r.bytes };
    } catch (e) {
      if (run.interrupted) throw new GridError('CONFLICT', 'backup interrupted');
      throw e;
    } finally {
      this.backupRunning = undefined;
    }
  }

  /** backupInterrupt: stop a backup in progress here; false when none runs. */
  interruptBackup(): boolean {
    if (this.backupRunning === undefined) return false;
    this.backupRunning.interrupted = true;
    return true;
  }

  backupInProgress(): boolean {
    return this.backupRunning !== undefined;
  }

  async close(): Promise<void> {
    if (this.compactTimer !== undefined) clearInterval(this.compactTimer);
    await this.log?.close();
    if (this.lockFd !== undefined && this.memberDir !== undefined) {
      closeSync(this.lockFd);
      this.lockFd = undefined;
      locksHeldHere.delete(join(this.memberDir, LOCK_FILE));
      try {
        unlinkSync(join(this.memberDir, LOCK_FILE));
      } catch {
        // gone already
      }
    }
  }

  /**
   * Take the directory's lock (dir-lock.ts): created exclusively; one whose holder is not a live
   * process is taken over. Returns true, or the holder and why it counts as live.
   */
  private tryLock(dir: string): true | { lock: LockRecord | undefined; why: string } {
    const file = join(dir, LOCK_FILE);
    const token = `${file}.takeover`;
    let last: { lock: LockRecord | undefined; why: string } = { lock: undefined, why: 'another member took it a moment ago' };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        this.holdLock(file, createLockFile(file));
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const found = this.judge(file);
      if (found === undefined) continue; // gone: try to create it
      if (found.verdict.held) return { lock: found.lock, why: found.verdict.why };
      last = { lock: found.lock, why: 'another member took it over a moment ago' };
      // One member at a time takes a stale lock over: the one that creates the takeover token
      // (two that both removed the stale lock could each remove the other's new one).
      let tokenFd: number;
      try {
        tokenFd = createLockFile(token);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const other = this.judge(token);
        if (other?.verdict.held === true) return { lock: other.lock, why: 'another member is taking it over' };
        rmSync(token, { force: true }); // left by a member that died taking it over
        continue;
      }
      try {
        // Still the lock judged stale? (another member may have taken it over a moment ago)
        let again: string | undefined;
        try {
          again = readFileSync(file, 'utf8');
        } catch {
          // gone
        }
        if (again !== undefined && again !== found.text) return last;
        this.logger.info({ dir, holder: found.lock?.pid }, `persistence: taking over the lock of ${dir}: ${found.verdict.why}`);
        rmSync(file, { force: true });
        this.holdLock(file, createLockFile(file));
        return true;
      } finally {
        closeSync(tokenFd);
        rmSync(token, { force: true });
      }
    }
    return last;
  }

  private holdLock(file: string, fd: number): void {
    this.lockFd = fd;
    locksHeldHere.add(file);
  }

  /** The lock file's holder and whether it is live; undefined when there is no such file. */
  private judge(file: string): { text: string; lock: LockRecord | undefined; verdict: { held: boolean; why: string } } | undefined {
    let text: string;
    let mtimeMs: number;
    try {
      text = readFileSync(file, 'utf8');
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    const lock = parseLock(text);
    const verdict = judgeLock(lock, { selfPid: process.pid, heldHere: locksHeldHere.has(file), bootId: bootId(), probe: probeProcess, lockMtimeMs: mtimeMs });
    return { text, lock, verdict };
  }
}

/**
 * Create the lock file with its content in one step: written and synced under a temporary name
 * of its own, then linked to `lock` (which fails with EEXIST when a lock is there). Created empty
 * and written after, a member starting at that moment read it empty, took it for a crashed
 * holder's and took the directory over: two members in one directory, writing one log.
 */
function createLockFile(file: string): number {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(tmp, 'wx');
  try {
    writeSync(fd, JSON.stringify(ownLock()));
    fsyncSync(fd);
    linkSync(tmp, file);
  } catch (e) {
    closeSync(fd);
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  return fd;
}

/** Lock files this process holds (members started in one process share it; a test harness does). */
const locksHeldHere = new Set<string>();

/** A directory a member made: it has segments or a lock (and no state yet: it never saw a table). */
/** The directory's partition hash version; undefined for a directory without data yet (it takes this build's). */
function readHashVersion(dir: string, state: PersistedState | undefined): number | undefined {
  let text: string | undefined;
  try {
    text = readFileSync(join(dir, HASH_FILE), 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    const v = Number(text.trim());
    if (!Number.isInteger(v) || v < 1) throw new GridError('CONFIG_INVALID', `persistence: ${join(dir, HASH_FILE)} does not hold a partition hash version (${JSON.stringify(text.slice(0, 40))})`);
    return v;
  }
  // No mark: an older Grid's data (version 1), or a directory that holds nothing yet.
  const hasSegments = readdirSync(dir).some((n) => /^seg-\d{8}\.log$/.test(n));
  return state !== undefined || hasSegments ? 1 : undefined;
}

function writeHashVersion(dir: string): void {
  const file = join(dir, HASH_FILE);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${PARTITION_HASH_VERSION}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/**
 * Data of another partition hash version: version 1 of a member that was its cluster's only
 * data member is converted at start (every partition is here, so every record can be re-homed
 * here); any other is refused, saying how to convert it.
 */
function checkConvertible(dir: string, state: PersistedState | undefined, version: number): void {
  if (version === PARTITION_HASH_VERSION) return;
  if (version > PARTITION_HASH_VERSION) {
    throw new GridError('CONFIG_INVALID', `persistence: the data in ${dir} was written by a newer Grid (partition hash version ${version}; this one knows up to ${PARTITION_HASH_VERSION}): start that Grid on it`);
  }
  const others = state === undefined ? [] : state.members.filter((m) => m.uuid !== state.uuid);
  if (others.length === 0) return;
  throw new GridError(
    'CONFIG_INVALID',
    `persistence: the data in ${dir} was written by an older Grid, which placed keys by partition hash version ${version}; this Grid places them by version ${PARTITION_HASH_VERSION} (Hazelcast's), so every key moves to another partition. ` +
      `This member's data holds only its share of a cluster of ${others.length + 1} data members, which cannot be re-homed on one member. ` +
      'To convert it: with the older Grid, shut the members down one at a time (each hands its partitions to the others: wait for the cluster to be safe between two), until one member holds all the data; ' +
      "stop that one, start it with this Grid (its data is converted at start), then start the others with this Grid and empty directories (--start-empty, or a new base-dir). See docs/persistence.md#partition-hash-versions.",
  );
}

function isMemberDir(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => n === LOCK_FILE || /^seg-\d{8}\.log$/.test(n));
  } catch {
    return false;
  }
}

function readState(dir: string): PersistedState | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, STATE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as PersistedState;
    if (typeof s.uuid !== 'string' || !Array.isArray(s.members) || !Array.isArray(s.partitions)) throw new Error('missing fields');
    return s;
  } catch (e) {
    throw new GridError('CONFIG_INVALID', `persisted member state ${join(dir, STATE_FILE)} is unreadable: ${describeError(e)}; move the directory away to start without it`);
  }
}
