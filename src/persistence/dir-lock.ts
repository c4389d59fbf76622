// The lock of a member's persistence directory: a file that means "a live member holds this
// directory" and nothing else. A bare pid cannot mean that (a killed member that its parent has
// not reaped yet is a zombie that signals still reach, and containers reuse the same low pids
// at every restart), so the lock names the holder by pid, the process's start time in clock
// ticks since boot and the boot id, and a holder counts as live only when all three still match
// a running (not zombie) process. `judgeLock` is the pure rule; the rest reads /proc.

import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';

/** What a lock file says about its holder. */
export interface LockRecord {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot), when the holder could read it. */
  readonly startTicks?: string | undefined;
  /** /proc/sys/kernel/random/boot_id of the holder's machine, when it could read it. */
  readonly bootId?: string | undefined;
  readonly host?: string | undefined;
  /** When the holder took the lock (ms since the epoch). */
  readonly since?: number | undefined;
}

/** What the machine says about a pid now. */
export type ProcessProbe =
  | { readonly kind: 'gone' }
  | { readonly kind: 'running'; readonly zombie: boolean; readonly startTicks?: string | undefined; readonly startedAtMs?: number | undefined }
  /** No /proc: only a signal could tell, and it said the pid exists. */
  | { readonly kind: 'exists' };

export interface LockContext {
  readonly selfPid: number;
  /** This process holds that lock file itself (another member of the same process). */
  readonly heldHere: boolean;
  readonly bootId: string | undefined;
  readonly probe: (pid: number) => ProcessProbe;
  /** The lock file's modification time (a lock of the bare-pid form carries no start time). */
  readonly lockMtimeMs: number;
}

export interface LockVerdict {
  readonly held: boolean;
  /** Why, for the logs and for the refusal message. */
  readonly why: string;
}

/** Parses a lock file: the JSON form, or the bare pid older Grid versions wrote. */
export function parseLock(text: string): LockRecord | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t) };
  try {
    const v = JSON.parse(t) as Partial<Record<keyof LockRecord, unknown>>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return undefined;
    return {
      pid: v.pid,
      startTicks: typeof v.startTicks === 'string' ? v.startTicks : undefined,
      bootId: typeof v.bootId === 'string' ? v.bootId : undefined,
      host: typeof v.host === 'string' ? v.host : undefined,
      since: typeof v.since === 'number' ? v.since : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Whether the holder a lock names is a live process that may be using the directory. */
export function judgeLock(lock: LockRecord | undefined, ctx: LockContext): LockVerdict {
  if (lock === undefined) return { held: false, why: 'the lock file is unreadable or empty (a holder dies before it writes one only if it crashed then)' };
  if (lock.pid === ctx.selfPid) {
    // This process's own pid: a container restarted with the same pid, or another member of this process.
    return ctx.heldHere ? { held: true, why: 'held by another member of this process' } : { held: false, why: `it names this process's own pid ${lock.pid} (a restart that got the same pid)` };
  }
  if (lock.bootId !== undefined && ctx.bootId !== undefined && lock.bootId !== ctx.bootId) {
    return { held: false, why: `its holder ran before the machine's last boot (pid ${lock.pid})` };
  }
  const p = ctx.probe(lock.pid);
  if (p.kind === 'gone') return { held: false, why: `process ${lock.pid} no longer exists` };
  if (p.kind === 'exists') return { held: true, why: `process ${lock.pid} exists (this platform cannot tell a reused pid)` };
  if (p.zombie) return { held: false, why: `process ${lock.pid} has exited (a zombie its parent has not reaped)` };
  if (lock.startTicks !== undefined && p.startTicks !== undefined) {
    return lock.startTicks === p.startTicks
      ? { held: true, why: `process ${lock.pid} is running` }
      : { held: false, why: `pid ${lock.pid} now belongs to another process (started later than the holder)` };
  }
  // The bare-pid form: a process that started after the lock was written cannot have written it.
  if (p.startedAtMs !== undefined && p.startedAtMs > ctx.lockMtimeMs + 1_000) {
    return { held: false, why: `pid ${lock.pid} now belongs to a process that started after the lock was written` };
  }
  return { held: true, why: `process ${lock.pid} is running` };
}

// ---------------------------------------------------------------- the machine

let cachedBootId: string | undefined | null = null;
let cachedBootTimeMs: number | undefined | null = null;
/** Linux's USER_HZ: 100 on every architecture Node.js runs on. */
const TICKS_PER_SECOND = 100;

export function bootId(): string | undefined {
  if (cachedBootId === null) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
    } catch {
      cachedBootId = undefined;
    }
  }
  return cachedBootId;
}

function bootTimeMs(): number | undefined {
  if (cachedBootTimeMs === null) {
    cachedBootTimeMs = undefined;
    try {
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      if (m) cachedBootTimeMs = Number(m[1]) * 1000;
    } catch {
      // no /proc
    }
  }
  return cachedBootTimeMs;
}

/** State and start time of `pid` from /proc/<pid>/stat; undefined without /proc. */
function procStat(pid: number): ProcessProbe | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ESRCH') {
      try {
        statSync('/proc/self/stat');
      } catch {
        return undefined;
      }
      return { kind: 'gone' };
    }
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields count from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const startTicks = fields[19];
  const boot = bootTimeMs();
  const startedAtMs = startTicks !== undefined && boot !== undefined ? boot + (Number(startTicks) * 1000) / TICKS_PER_SECOND : undefined;
  return { kind: 'running', zombie: state === 'Z' || state === 'X', startTicks, startedAtMs };
}

export function probeProcess(pid: number): ProcessProbe {
  const p = procStat(pid);
  if (p !== undefined) return p;
  try {
    process.kill(pid, 0);
    return { kind: 'exists' };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? { kind: 'exists' } : { kind: 'gone' };
  }
}

/** The lock this process writes. */
export function ownLock(): LockRecord {
  const self = procStat(process.pid);
  return {
    pid: process.pid,
    startTicks: self?.kind === 'running' ? self.startTicks : undefined,
    bootId: bootId(),
    host: hostname(),
    since: Date.now(),
  };
}

/** The holder, in words: "pid 123 on host h, since 2026-…". */
export function describeHolder(lock: LockRecord | undefined): string {
  if (lock === undefined) return 'an unknown process';
  const host = lock.host !== undefined ? ` on ${lock.host}` : '';
  const since = lock.since !== undefined ? `, holding it since ${new Date(lock.since).toISOString()}` : '';
  return `process ${lock.pid}${host}${since}`;
}
