// The replicated state machine of a CP data group: atomic longs, CP sessions and fenced locks.
// Pure and deterministic (no clock, no timers, no I/O, no randomness): time arrives inside the
// commands (`now`, stamped by the proposer), so every replica that applies the same committed
// commands in the same order reaches the same state and gives the same answers.
//
// Driving it (the CP shell's contract):
// - `apply(index, command)` for each committed command, in Raft index order (strictly
//   increasing: anything else is a shell bug and throws RangeError). It never throws for any
//   command value: a malformed command is answered BAD_REQUEST and changes nothing (every
//   command is validated before it changes state).
// - A command is a tuple `[op, key, ...args]`; `key` is the invocation key that makes a retry
//   exactly-once ('' = no deduplication). A key answered before gets the same answer again
//   (nothing applied); a key that is waiting (a queued lock) gets `undefined` again and is not
//   queued twice. The answers of the last CP_DATA_ANSWERED_KEYS keys are kept, oldest evicted
//   first; a waiter's answer is kept under its key when it is completed.
// - A lock command that may wait (timeoutMs ≠ 0) needs a non-empty key: its answer comes
//   later, in `completed` of the command that grants, times out, cancels or closes it.
// - Reads (`atomicLong`, `lockInfo`, `sessions`) after a ReadIndex; `snapshot` and
//   `fromSnapshot` for Raft snapshots (a plain WireValue of arrays, strings and numbers).
//
// The rules:
// - Atomic longs are Java longs: BigInt wrapped to 64 bits, carried as decimal strings. `set`
//   and `add` answer the new value, `getAndSet` the old one, `cas` whether it was swapped.
// - Sessions get ids 1, 2, 3, … in apply order; a lock command with session 0 creates one, a
//   lock command or a heartbeat refreshes one (expirationTime = now + sessionTtlMs, version+1).
//   A `tick` closes every session whose expirationTime <= now.
// - A lock's fence is the Raft index of the command that gave it to its holder, so a later
//   holder's fence is always larger. Reentrancy is bounded by `lockAcquireLimit` (0 = no limit).
//   Waiters queue FIFO; a released lock goes to the first waiter whose session still exists.
//   A closed session releases its locks fully and its waiters are answered NOT_FOUND.
// - `tick` first times out the waiters whose deadline has passed (a waiter is never granted
//   a lock after its deadline by the same tick), then expires sessions.
// - A lock with no holder has no waiters, and is deleted.
//
// Iteration orders (locks, sessions, answers) are Map insertion orders, which the snapshot
// preserves, so a restored replica completes waiters in the same order as the others.

import type { WireValue } from '../protocol/codec.js';
import { GridError, isGridErrorCode, type GridErrorCode } from '../core/errors.js';

export type CpAnswer = { readonly ok: true; readonly value: WireValue } | { readonly ok: false; readonly code: GridErrorCode; readonly message: string };

export interface CpDataOptions {
  readonly sessionTtlMs: number;
  /** lock-acquire-limit of a lock (by its name without @group): 0 = reentrant without limit, 1 = not reentrant, n = at most n holds by one session. */
  lockAcquireLimit(lockName: string): number;
}

export interface CpApplied {
  /** The answer to this command's own invocation; undefined when it waits (a lock wait). */
  readonly answer: CpAnswer | undefined;
  /** Earlier waiting invocations answered by this command (lock granted, wait timed out or cancelled, session closed), by invocation key. */
  readonly completed: readonly { readonly key: string; readonly answer: CpAnswer }[];
}

export interface CpSessionInfo {
  id: number;
  creationTime: number;
  expirationTime: number;
  version: number;
  endpoint: string;
  endpointName: string;
  endpointType: 'CLIENT' | 'SERVER';
}

export interface CpLockInfo {
  locked: boolean;
  sessionId: number;
  fence: number;
  lockCount: number;
  waiters: number;
}

/** How many answered invocation keys are remembered for deduplication (oldest evicted first). */
export const CP_DATA_ANSWERED_KEYS = 100_000;

const MIN_LONG = -(1n << 63n);
const MAX_LONG = (1n << 63n) - 1n;
/** A longer decimal string is refused before BigInt parses it (even with leading zeros). */
const MAX_LONG_CHARS = 100;
const DECIMAL = /^[+-]?[0-9]+$/;
const SNAPSHOT_TAG = 'cp-data-state';
const SNAPSHOT_VERSION = 1;
/** Nesting of an answer value in a snapshot (answers nest 2 deep at most). */
const MAX_ANSWER_DEPTH = 8;

interface Session {
  readonly id: number;
  readonly creationTime: number;
  expirationTime: number;
  version: number;
  readonly endpoint: string;
  readonly endpointName: string;
  readonly endpointType: 'CLIENT' | 'SERVER';
}

interface Waiter {
  readonly key: string;
  readonly sessionId: number;
  /** -1: waits without deadline. */
  readonly deadline: number;
}

interface Lock {
  holder: number;
  fence: number;
  count: number;
  waiters: Waiter[];
}

type Completed = { readonly key: string; readonly answer: CpAnswer }[];

/** A malformed command: answered BAD_REQUEST. Thrown only before any state changed. */
class BadCommand extends Error {}

function ok(value: WireValue): CpAnswer {
  return { ok: true, value };
}

function fail(code: GridErrorCode, message: string): CpAnswer {
  return { ok: false, code, message };
}

function noSession(id: number): CpAnswer {
  return fail('NOT_FOUND', `CP session ${id} does not exist or has expired`);
}

function acquired(fence: number, sessionId: number, lockCount: number): CpAnswer {
  return ok({ fence, sessionId, lockCount, acquired: true });
}

function notAcquired(sessionId: number): CpAnswer {
  return ok({ fence: 0, sessionId, lockCount: 0, acquired: false });
}

/** now + ms, kept an exact integer. */
function later(now: number, ms: number): number {
  return Math.min(now + ms, Number.MAX_SAFE_INTEGER);
}

/** "\"abc\"", "12", "an array": for error messages. */
function describeValue(v: WireValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Uint8Array) return 'bytes';
  return 'an object';
}

function asArray(v: WireValue | undefined): readonly WireValue[] | undefined {
  return Array.isArray(v) ? (v as readonly WireValue[]) : undefined;
}

/** A Java long from its decimal string, or undefined. */
export function parseLong(v: unknown): bigint | undefined {
  if (typeof v !== 'string' || v.length > MAX_LONG_CHARS || !DECIMAL.test(v)) return undefined;
  const n = BigInt(v);
  return n >= MIN_LONG && n <= MAX_LONG ? n : undefined;
}

/** The arguments of one command, checked one by one (each failure names the argument). */
class Args {
  constructor(
    private readonly op: string,
    private readonly items: readonly WireValue[],
  ) {}

  length(n: number): void {
    if (this.items.length !== n) {
      throw new BadCommand(`cp command ${this.op}: takes ${n - 2} argument(s) after the invocation key, got ${this.items.length - 2}`);
    }
  }

  private bad(what: string, want: string, i: number): BadCommand {
    return new BadCommand(`cp command ${this.op}: ${what} must be ${want}, got ${describeValue(this.items[i])}`);
  }

  string(i: number, what: string): string {
    const v = this.items[i];
    if (typeof v !== 'string') throw this.bad(what, 'a string', i);
    return v;
  }

  name(i: number, what: string): string {
    const v = this.items[i];
    if (typeof v !== 'string' || v === '') throw this.bad(what, 'a non-empty string', i);
    return v;
  }

  int(i: number, what: string, min: number): number {
    const v = this.items[i];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw this.bad(what, `an integer >= ${min}`, i);
    return v;
  }

  long(i: number, what: string): bigint {
    const n = parseLong(this.items[i]);
    if (n === undefined) throw this.bad(what, `a decimal integer in [${MIN_LONG}, ${MAX_LONG}]`, i);
    return n;
  }
}

export class CpDataState {
  private readonly opts: CpDataOptions;
  private lastIndex = 0;
  private nextSessionId = 1;
  private readonly longs = new Map<string, bigint>();
  /** By id, in id order. */
  private readonly sessionsById = new Map<number, Session>();
  /** Only held locks. */
  private readonly locks = new Map<string, Lock>();
  /** Waiting invocation key -> the lock it waits for. */
  private readonly waiting = new Map<string, string>();
  /** Answered invocation keys, oldest first. */
  private readonly answers = new Map<string, CpAnswer>();

  constructor(opts: CpDataOptions) {
    if (!Number.isSafeInteger(opts.sessionTtlMs) || opts.sessionTtlMs <= 0) {
      throw new RangeError(`sessionTtlMs must be a positive integer, got ${opts.sessionTtlMs}`);
    }
    this.opts = opts;
  }

  apply(index: number, command: WireValue): CpApplied {
    if (!Number.isSafeInteger(index) || index <= this.lastIndex) {
      throw new RangeError(`apply index ${index} does not follow the last applied index ${this.lastIndex}`);
    }
    this.lastIndex = index;
    const keyValue = asArray(command)?.[1];
    const key = typeof keyValue === 'string' ? keyValue : '';
    if (key !== '') {
      if (this.waiting.has(key)) return { answer: undefined, completed: [] };
      const before = this.answers.get(key);
      if (before !== undefined) return { answer: before, completed: [] };
    }
    const completed: Completed = [];
    let answer: CpAnswer | undefined;
    try {
      answer = this.dispatch(index, command, key, completed);
    } catch (e) {
      if (e instanceof BadCommand) answer = fail('BAD_REQUEST', e.message);
      else answer = fail('INTERNAL', `cp data state: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (answer !== undefined) this.remember(key, answer);
    return { answer, completed };
  }

  atomicLong(name: string): string {
    return (this.longs.get(name) ?? 0n).toString();
  }

  lockInfo(name: string): CpLockInfo {
    const lock = this.locks.get(name);
    if (lock === undefined) return { locked: false, sessionId: 0, fence: 0, lockCount: 0, waiters: 0 };
    return { locked: true, sessionId: lock.holder, fence: lock.fence, lockCount: lock.count, waiters: lock.waiters.length };
  }

  sessions(): CpSessionInfo[] {
    return [...this.sessionsById.values()].map((s) => ({ ...s }));
  }

  /** Whether a `tick` at `now` would expire a session or time a waiter out (the leader proposes one only then). */
  hasExpiries(now: number): boolean {
    for (const s of this.sessionsById.values()) if (s.expirationTime <= now) return true;
    for (const lock of this.locks.values()) {
      for (const w of lock.waiters) if (w.deadline >= 0 && w.deadline <= now) return true;
    }
    return false;
  }

  // ---- commands ----

  private dispatch(index: number, command: WireValue, key: string, completed: Completed): CpAnswer | undefined {
    const items = asArray(command);
    if (items === undefined) throw new BadCommand(`cp command must be an array [op, key, ...args], got ${describeValue(command)}`);
    const op = items[0];
    if (typeof op !== 'string') throw new BadCommand(`cp command: op must be a string, got ${describeValue(op)}`);
    if (typeof items[1] !== 'string') throw new BadCommand(`cp command ${op}: the invocation key must be a string, got ${describeValue(items[1])}`);
    const a = new Args(op, items);
    switch (op) {
      case 'set':
      case 'add': {
        // [op, key, name, value | delta]: both answer the new value.
        a.length(4);
        const name = a.name(2, 'name');
        const n = a.long(3, op === 'set' ? 'value' : 'delta');
        const value = op === 'set' ? n : BigInt.asIntN(64, (this.longs.get(name) ?? 0n) + n);
        this.longs.set(name, value);
        return ok(value.toString());
      }
      case 'getAndSet': {
        // [getAndSet, key, name, value]: answers the value it replaced (Hazelcast's getAndSet; the clients' set too).
        a.length(4);
        const name = a.name(2, 'name');
        const value = a.long(3, 'value');
        const old = this.longs.get(name) ?? 0n;
        this.longs.set(name, value);
        return ok(old.toString());
      }
      case 'cas': {
        a.length(5);
        const name = a.name(2, 'name');
        const expect = a.long(3, 'expect');
        const update = a.long(4, 'update');
        if ((this.longs.get(name) ?? 0n) !== expect) return ok(false);
        this.longs.set(name, update);
        return ok(true);
      }
      case 'lock': {
        a.length(8);
        const name = a.name(2, 'name');
        const sessionId = a.int(3, 'sessionId', 0);
        const now = a.int(4, 'now', 0);
        const timeoutMs = a.int(5, 'timeoutMs', -1);
        const endpoint = a.string(6, 'endpoint');
        const endpointName = a.string(7, 'endpointName');
        if (timeoutMs !== 0 && key === '') throw new BadCommand(`cp command lock: a lock that may wait (timeoutMs ${timeoutMs}) needs an invocation key`);
        return this.lock(index, key, name, sessionId, now, timeoutMs, endpoint, endpointName);
      }
      case 'unlock': {
        a.length(4);
        const name = a.name(2, 'name');
        const sessionId = a.int(3, 'sessionId', 1);
        return this.unlock(index, name, sessionId, completed);
      }
      case 'heartbeat': {
        a.length(4);
        const sessionId = a.int(2, 'sessionId', 1);
        const now = a.int(3, 'now', 0);
        const session = this.sessionsById.get(sessionId);
        if (session === undefined) return noSession(sessionId);
        this.refresh(session, now);
        return ok({ sessionId, expirationTime: session.expirationTime });
      }
      case 'closeSession': {
        a.length(3);
        const sessionId = a.int(2, 'sessionId', 1);
        if (!this.sessionsById.has(sessionId)) return ok(false);
        this.closeSession(index, sessionId, `CP session ${sessionId} was closed`, completed);
        return ok(true);
      }
      case 'tick': {
        a.length(3);
        const now = a.int(2, 'now', 0);
        return ok(this.tick(index, now, completed));
      }
      case 'cancel': {
        a.length(3);
        const waitKey = a.name(2, 'waitKey');
        return ok(this.cancel(waitKey, completed));
      }
      default:
        throw new BadCommand(`cp command: unknown op ${describeValue(op)}`);
    }
  }

  private lock(
    index: number,
    key: string,
    name: string,
    sessionId: number,
    now: number,
    timeoutMs: number,
    endpoint: string,
    endpointName: string,
  ): CpAnswer | undefined {
    let session = sessionId === 0 ? undefined : this.sessionsById.get(sessionId);
    if (sessionId !== 0 && session === undefined) return noSession(sessionId);
    const sid = session?.id ?? this.nextSessionId;
    const lock = this.locks.get(name);
    // Decide everything that can fail before the session changes.
    const limit = lock !== undefined && lock.holder === sid ? this.acquireLimit(name) : 0;
    const limitReached = lock !== undefined && lock.holder === sid && limit !== 0 && lock.count >= limit;
    if (limitReached && timeoutMs !== 0) return fail('CONFLICT', `lock-acquire-limit ${limit} of lock ${name} reached`);

    if (session === undefined) {
      session = { id: sid, creationTime: now, expirationTime: later(now, this.opts.sessionTtlMs), version: 0, endpoint, endpointName, endpointType: 'CLIENT' };
      this.sessionsById.set(sid, session);
      this.nextSessionId++;
    } else {
      this.refresh(session, now);
    }

    if (lock === undefined) {
      this.locks.set(name, { holder: sid, fence: index, count: 1, waiters: [] });
      return acquired(index, sid, 1);
    }
    if (lock.holder === sid) {
      if (limitReached) return notAcquired(sid);
      lock.count++;
      return acquired(lock.fence, sid, lock.count);
    }
    if (timeoutMs === 0) return notAcquired(sid);
    lock.waiters.push({ key, sessionId: sid, deadline: timeoutMs < 0 ? -1 : later(now, timeoutMs) });
    this.waiting.set(key, name);
    return undefined;
  }

  private unlock(index: number, name: string, sessionId: number, completed: Completed): CpAnswer {
    if (!this.sessionsById.has(sessionId)) return noSession(sessionId);
    const lock = this.locks.get(name);
    if (lock === undefined || lock.holder !== sessionId) return fail('CONFLICT', `lock ${name} is not held by session ${sessionId}`);
    const remaining = --lock.count;
    if (remaining === 0) this.release(index, name, lock, completed);
    return ok({ lockCount: remaining });
  }

  /** Hands a lock whose holder is gone or done to its first live waiter, or deletes it. */
  private release(index: number, name: string, lock: Lock, completed: Completed): void {
    lock.holder = 0;
    lock.fence = 0;
    lock.count = 0;
    for (;;) {
      const w = lock.waiters.shift();
      if (w === undefined) break;
      this.waiting.delete(w.key);
      if (!this.sessionsById.has(w.sessionId)) {
        // Not reached while closing a session removes its waiters; kept as the rule.
        this.complete(w.key, noSession(w.sessionId), completed);
        continue;
      }
      lock.holder = w.sessionId;
      lock.fence = index;
      lock.count = 1;
      this.complete(w.key, acquired(index, w.sessionId, 1), completed);
      return;
    }
    this.locks.delete(name);
  }

  private closeSession(index: number, sessionId: number, message: string, completed: Completed): void {
    this.sessionsById.delete(sessionId);
    for (const [name, lock] of this.locks) {
      if (lock.waiters.some((w) => w.sessionId === sessionId)) {
        lock.waiters = lock.waiters.filter((w) => {
          if (w.sessionId !== sessionId) return true;
          this.waiting.delete(w.key);
          this.complete(w.key, fail('NOT_FOUND', message), completed);
          return false;
        });
      }
      if (lock.holder === sessionId) this.release(index, name, lock, completed);
    }
  }

  private tick(index: number, now: number, completed: Completed): number {
    for (const lock of this.locks.values()) {
      if (!lock.waiters.some((w) => w.deadline >= 0 && w.deadline <= now)) continue;
      lock.waiters = lock.waiters.filter((w) => {
        if (w.deadline < 0 || w.deadline > now) return true;
        this.waiting.delete(w.key);
        this.complete(w.key, notAcquired(w.sessionId), completed);
        return false;
      });
    }
    const expired: number[] = [];
    for (const s of this.sessionsById.values()) if (s.expirationTime <= now) expired.push(s.id);
    for (const id of expired) this.closeSession(index, id, `CP session ${id} has expired`, completed);
    return expired.length;
  }

  private cancel(waitKey: string, completed: Completed): boolean {
    const name = this.waiting.get(waitKey);
    const lock = name === undefined ? undefined : this.locks.get(name);
    const at = lock === undefined ? -1 : lock.waiters.findIndex((w) => w.key === waitKey);
    if (lock === undefined || at < 0) return false;
    const [w] = lock.waiters.splice(at, 1);
    this.waiting.delete(waitKey);
    this.complete(waitKey, notAcquired((w as Waiter).sessionId), completed);
    return true;
  }

  private refresh(session: Session, now: number): void {
    session.expirationTime = later(now, this.opts.sessionTtlMs);
    session.version++;
  }

  /** The configured limit, by the name without "@group"; a nonsensical value counts as 1 (not reentrant). */
  private acquireLimit(name: string): number {
    const at = name.indexOf('@');
    const n = this.opts.lockAcquireLimit(at < 0 ? name : name.slice(0, at));
    return Number.isSafeInteger(n) && n >= 0 ? n : 1;
  }

  private complete(key: string, answer: CpAnswer, completed: Completed): void {
    completed.push({ key, answer });
    this.remember(key, answer);
  }

  private remember(key: string, answer: CpAnswer): void {
    if (key === '') return;
    this.answers.set(key, answer);
    if (this.answers.size > CP_DATA_ANSWERED_KEYS) {
      const oldest = this.answers.keys().next();
      if (oldest.done !== true) this.answers.delete(oldest.value);
    }
  }

  // ---- snapshots ----

  /**
   * The whole state: ['cp-data-state', 1, lastIndex, nextSessionId, longs, sessions, locks,
   * answers], each a list of tuples in iteration order. Arrays, strings and numbers only.
   */
  snapshot(): WireValue {
    const longs: WireValue[] = [];
    for (const [name, v] of this.longs) longs.push([name, v.toString()]);
    const sessions: WireValue[] = [];
    for (const s of this.sessionsById.values()) {
      sessions.push([s.id, s.creationTime, s.expirationTime, s.version, s.endpoint, s.endpointName, s.endpointType]);
    }
    const locks: WireValue[] = [];
    for (const [name, l] of this.locks) {
      locks.push([name, l.holder, l.fence, l.count, l.waiters.map((w) => [w.key, w.sessionId, w.deadline])]);
    }
    const answers: WireValue[] = [];
    for (const [key, a] of this.answers) answers.push([key, a.ok ? [1, encodeValue(a.value)] : [0, a.code, a.message]]);
    return [SNAPSHOT_TAG, SNAPSHOT_VERSION, this.lastIndex, this.nextSessionId, longs, sessions, locks, answers];
  }

  static fromSnapshot(opts: CpDataOptions, state: WireValue): CpDataState {
    const st = new CpDataState(opts);
    const r = new SnapshotReader();
    const top = r.tuple(state, 'state', 8);
    if (top[0] !== SNAPSHOT_TAG) throw r.bad('state[0]', `is not ${JSON.stringify(SNAPSHOT_TAG)}`);
    if (top[1] !== SNAPSHOT_VERSION) throw r.bad('state[1]', `is not version ${SNAPSHOT_VERSION}`);
    st.lastIndex = r.int(top[2], 'lastIndex', 0);
    st.nextSessionId = r.int(top[3], 'nextSessionId', 1);

    r.list(top[4], 'longs').forEach((v, i) => {
      const path = `longs[${i}]`;
      const [name, value] = r.tuple(v, path, 2);
      const n = r.name(name, `${path}.name`);
      if (st.longs.has(n)) throw r.bad(path, `repeats ${JSON.stringify(n)}`);
      const parsed = parseLong(value);
      if (parsed === undefined) throw r.bad(`${path}.value`, 'is not a 64-bit decimal integer');
      st.longs.set(n, parsed);
    });

    let lastId = 0;
    r.list(top[5], 'sessions').forEach((v, i) => {
      const path = `sessions[${i}]`;
      const t = r.tuple(v, path, 7);
      const id = r.int(t[0], `${path}.id`, 1);
      if (id <= lastId || id >= st.nextSessionId) throw r.bad(`${path}.id`, 'is out of order or not below nextSessionId');
      lastId = id;
      const type = t[6];
      if (type !== 'CLIENT' && type !== 'SERVER') throw r.bad(`${path}.endpointType`, 'is not CLIENT or SERVER');
      st.sessionsById.set(id, {
        id,
        creationTime: r.int(t[1], `${path}.creationTime`, 0),
        expirationTime: r.int(t[2], `${path}.expirationTime`, 0),
        version: r.int(t[3], `${path}.version`, 0),
        endpoint: r.string(t[4], `${path}.endpoint`),
        endpointName: r.string(t[5], `${path}.endpointName`),
        endpointType: type,
      });
    });

    r.list(top[6], 'locks').forEach((v, i) => {
      const path = `locks[${i}]`;
      const t = r.tuple(v, path, 5);
      const name = r.name(t[0], `${path}.name`);
      if (st.locks.has(name)) throw r.bad(path, `repeats ${JSON.stringify(name)}`);
      const holder = r.int(t[1], `${path}.holder`, 1);
      if (!st.sessionsById.has(holder)) throw r.bad(`${path}.holder`, `is not a session`);
      const fence = r.int(t[2], `${path}.fence`, 1);
      if (fence > st.lastIndex) throw r.bad(`${path}.fence`, 'is beyond lastIndex');
      const count = r.int(t[3], `${path}.count`, 1);
      const waiters = r.list(t[4], `${path}.waiters`).map((wv, j): Waiter => {
        const wpath = `${path}.waiters[${j}]`;
        const w = r.tuple(wv, wpath, 3);
        const key = r.name(w[0], `${wpath}.key`);
        if (st.waiting.has(key)) throw r.bad(`${wpath}.key`, `repeats ${JSON.stringify(key)}`);
        const sessionId = r.int(w[1], `${wpath}.sessionId`, 1);
        if (!st.sessionsById.has(sessionId)) throw r.bad(`${wpath}.sessionId`, 'is not a session');
        st.waiting.set(key, name);
        return { key, sessionId, deadline: r.int(w[2], `${wpath}.deadline`, -1) };
      });
      st.locks.set(name, { holder, fence, count, waiters });
    });

    const answers = r.list(top[7], 'answers');
    if (answers.length > CP_DATA_ANSWERED_KEYS) throw r.bad('answers', `holds more than ${CP_DATA_ANSWERED_KEYS} keys`);
    answers.forEach((v, i) => {
      const path = `answers[${i}]`;
      const [k, a] = r.tuple(v, path, 2);
      const key = r.name(k, `${path}.key`);
      if (st.answers.has(key) || st.waiting.has(key)) throw r.bad(`${path}.key`, `repeats ${JSON.stringify(key)} or is waiting`);
      const t = asArray(a);
      if (t?.length === 2 && t[0] === 1) {
        st.answers.set(key, ok(decodeValue(r, t[1], `${path}.value`, 0)));
      } else if (t?.length === 3 && t[0] === 0 && isGridErrorCode(t[1]) && typeof t[2] === 'string') {
        st.answers.set(key, fail(t[1], t[2]));
      } else {
        throw r.bad(`${path}.answer`, 'is not [1, value] or [0, code, message]');
      }
    });
    return st;
  }
}

/** Checks of snapshot parts: each failure is a GridError BAD_REQUEST naming the path. */
class SnapshotReader {
  bad(path: string, problem: string): GridError {
    return new GridError('BAD_REQUEST', `malformed CP data snapshot: ${path} ${problem}`);
  }

  list(v: WireValue | undefined, path: string): readonly WireValue[] {
    const a = asArray(v);
    if (a === undefined) throw this.bad(path, 'is not an array');
    return a;
  }

  tuple(v: WireValue | undefined, path: string, n: number): readonly WireValue[] {
    const a = this.list(v, path);
    if (a.length !== n) throw this.bad(path, `does not have ${n} elements`);
    return a;
  }

  int(v: WireValue | undefined, path: string, min: number): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw this.bad(path, `is not an integer >= ${min}`);
    return v;
  }

  string(v: WireValue | undefined, path: string): string {
    if (typeof v !== 'string') throw this.bad(path, 'is not a string');
    return v;
  }

  name(v: WireValue | undefined, path: string): string {
    if (typeof v !== 'string' || v === '') throw this.bad(path, 'is not a non-empty string');
    return v;
  }
}

/**
 * An answer value as arrays, strings and numbers: a number or string is itself, anything else
 * an array tagged by its first element ('t' true, 'f' false, 'n' null, 'a' array, 'o' object).
 */
function encodeValue(v: WireValue): WireValue {
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return [v ? 't' : 'f'];
  if (v === null) return ['n'];
  if (Array.isArray(v)) return ['a', ...(v as readonly WireValue[]).map(encodeValue)];
  if (v instanceof Uint8Array || Object.getPrototypeOf(v) !== Object.prototype) {
    throw new GridError('INTERNAL', 'a CP answer holds a value other than numbers, strings, booleans, null, arrays and objects');
  }
  const out: WireValue[] = ['o'];
  for (const [k, x] of Object.entries(v as { readonly [k: string]: WireValue })) out.push(k, encodeValue(x));
  return out;
}

function decodeValue(r: SnapshotReader, v: WireValue | undefined, path: string, depth: number): WireValue {
  if (typeof v === 'number' || typeof v === 'string') return v;
  const a = asArray(v);
  if (a === undefined || depth >= MAX_ANSWER_DEPTH) throw r.bad(path, 'is not an encoded answer value');
  switch (a[0]) {
    case 't':
      if (a.length === 1) return true;
      break;
    case 'f':
      if (a.length === 1) return false;
      break;
    case 'n':
      if (a.length === 1) return null;
      break;
    case 'a':
      return a.slice(1).map((x, i) => decodeValue(r, x, `${path}[${i}]`, depth + 1));
    case 'o': {
      if (a.length % 2 !== 1) break;
      const out: { [k: string]: WireValue } = {};
      for (let i = 1; i < a.length; i += 2) {
        const k = a[i];
        if (typeof k !== 'string' || Object.hasOwn(out, k) || k === '__proto__') throw r.bad(path, 'has a bad or repeated object key');
        out[k] = decodeValue(r, a[i + 1], `${path}.${k}`, depth + 1);
      }
      return out;
    }
  }
  throw r.bad(path, 'is not an encoded answer value');
}
