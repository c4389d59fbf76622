import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { decodeValue, encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { CP_DATA_ANSWERED_KEYS, CpDataState, type CpAnswer, type CpApplied, type CpDataOptions } from '../../../src/cp/cp-data-state.js';

const TTL = 1000;
const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';

function options(limits: Record<string, number> = {}, seen?: string[]): CpDataOptions {
  return {
    sessionTtlMs: TTL,
    lockAcquireLimit: (name) => {
      seen?.push(name);
      return limits[name] ?? 0;
    },
  };
}

/** A state machine fed with consecutive Raft indexes (or gaps, when a test says so). */
class Replica {
  index = 0;
  constructor(readonly st: CpDataState) {}
  static create(limits: Record<string, number> = {}): Replica {
    return new Replica(new CpDataState(options(limits)));
  }
  run(...command: WireValue[]): CpApplied {
    return this.st.apply(++this.index, command);
  }
  /** The answer, which must be there. */
  ask(...command: WireValue[]): CpAnswer {
    const a = this.run(...command).answer;
    expect(a).toBeDefined();
    return a as CpAnswer;
  }
  value(...command: WireValue[]): WireValue {
    const a = this.ask(...command);
    expect(a.ok, JSON.stringify(a)).toBe(true);
    return (a as { value: WireValue }).value;
  }
}

const okv = (value: WireValue): CpAnswer => ({ ok: true, value });
const got = (fence: number, sessionId: number, lockCount: number): CpAnswer => okv({ fence, sessionId, lockCount, acquired: true });
const notGot = (sessionId: number): CpAnswer => okv({ fence: 0, sessionId, lockCount: 0, acquired: false });
const err = (code: string, message?: string): unknown => (message === undefined ? expect.objectContaining({ ok: false, code }) : { ok: false, code, message });

/** ['lock', key, name, sessionId, now, timeoutMs, endpoint, endpointName] */
const lock = (key: string, name: string, sessionId: number, now: number, timeoutMs = 0): WireValue[] => ['lock', key, name, sessionId, now, timeoutMs, '10.0.0.1:5701', 'client-1'];

describe('CpDataState atomic longs', () => {
  it('sets, adds and compares-and-sets; an unset long is 0', () => {
    const r = Replica.create();
    expect(r.st.atomicLong('a')).toBe('0');
    expect(r.value('set', '', 'a', '5')).toBe('5');
    expect(r.value('add', '', 'a', '-7')).toBe('-2');
    expect(r.value('add', '', 'b', '3')).toBe('3');
    expect(r.value('cas', '', 'a', '5', '9')).toBe(false);
    expect(r.st.atomicLong('a')).toBe('-2');
    expect(r.value('cas', '', 'a', '-2', '9')).toBe(true);
    expect(r.st.atomicLong('a')).toBe('9');
    expect(r.value('cas', '', 'c', '0', '1')).toBe(true); // an unset long compares as 0
    expect(r.value('cas', '', 'd', '1', '2')).toBe(false);
    expect([r.st.atomicLong('b'), r.st.atomicLong('c'), r.st.atomicLong('d')]).toEqual(['3', '1', '0']);
  });

  it('getAndSet answers the value it replaced; a repeated key is not applied twice', () => {
    const r = Replica.create();
    expect(r.value('getAndSet', '', 'g', '4')).toBe('0');
    expect(r.value('getAndSet', 'k1', 'g', MAX)).toBe('4');
    r.value('add', '', 'g', '1');
    // The same key again (a retry after a lost answer): the first answer, nothing applied.
    expect(r.value('getAndSet', 'k1', 'g', MAX)).toBe('4');
    expect(r.st.atomicLong('g')).toBe(MIN);
    expect(r.ask('getAndSet', '', 'g', '1.5')).toEqual(err('BAD_REQUEST'));
    expect(r.ask('getAndSet', '', 'g')).toEqual(err('BAD_REQUEST'));
    expect(r.st.atomicLong('g')).toBe(MIN);
  });

  it('wraps like a Java long and accepts every decimal form of one', () => {
    const r = Replica.create();
    r.value('set', '', 'a', MAX);
    expect(r.value('add', '', 'a', '1')).toBe(MIN);
    expect(r.value('add', '', 'a', '-1')).toBe(MAX);
    expect(r.value('add', '', 'a', MAX)).toBe('-2');
    r.value('set', '', 'm', MIN);
    expect(r.value('add', '', 'm', MIN)).toBe('0');
    expect(r.value('set', '', 'x', '+0005')).toBe('5');
    expect(r.value('set', '', 'x', '-0')).toBe('0');
    expect(r.value('set', '', 'x', `000${MIN.slice(1)}`.replace(/^/, '-'))).toBe(MIN);
    expect(r.value('cas', '', 'x', MIN, '-0')).toBe(true);
    expect(r.st.atomicLong('x')).toBe('0');
  });

  it('refuses values that are not 64-bit decimal integers, changing nothing', () => {
    const r = Replica.create();
    r.value('set', '', 'a', '1');
    const bad: WireValue[] = ['9223372036854775808', '-9223372036854775809', '1.5', '', '-', 'abc', ' 1', '1e3', '0x10', 5, null, true, ['1'], { v: '1' }, new Latin1('1'), '1'.padStart(101, '0')];
    for (const v of bad) {
      expect(r.ask('set', '', 'a', v)).toEqual(err('BAD_REQUEST'));
      expect(r.ask('add', '', 'a', v)).toEqual(err('BAD_REQUEST'));
      expect(r.ask('cas', '', 'a', '1', v)).toEqual(err('BAD_REQUEST'));
      expect(r.ask('cas', '', 'a', v, '2')).toEqual(err('BAD_REQUEST'));
    }
    expect(r.ask('set', '', 'a', 'abc')).toEqual({
      ok: false,
      code: 'BAD_REQUEST',
      message: 'cp command set: value must be a decimal integer in [-9223372036854775808, 9223372036854775807], got "abc"',
    });
    expect(r.ask('set', '', '', '1')).toEqual(err('BAD_REQUEST', 'cp command set: name must be a non-empty string, got ""'));
    expect(r.st.atomicLong('a')).toBe('1');
    expect(r.st.atomicLong('')).toBe('0');
  });
});

describe('CpDataState malformed commands', () => {
  it('answers BAD_REQUEST naming the problem, never throws, changes nothing', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0));
    const before = r.st.snapshot() as WireValue[];
    const cases: [WireValue, string][] = [
      [null, 'cp command must be an array [op, key, ...args], got null'],
      ['set', 'cp command must be an array [op, key, ...args], got "set"'],
      [{ op: 'set' }, 'cp command must be an array [op, key, ...args], got an object'],
      [[], 'cp command: op must be a string, got nothing'],
      [[7, ''], 'cp command: op must be a string, got 7'],
      [['set'], 'cp command set: the invocation key must be a string, got nothing'],
      [['set', 3, 'a', '1'], 'cp command set: the invocation key must be a string, got 3'],
      [['frobnicate', ''], 'cp command: unknown op "frobnicate"'],
      [['set', '', 'a'], 'cp command set: takes 2 argument(s) after the invocation key, got 1'],
      [['set', '', 'a', '1', '2'], 'cp command set: takes 2 argument(s) after the invocation key, got 3'],
      [['lock', '', 'L', -1, 0, 0, 'e', 'n'], 'cp command lock: sessionId must be an integer >= 0, got -1'],
      [['lock', '', 'L', 0.5, 0, 0, 'e', 'n'], 'cp command lock: sessionId must be an integer >= 0, got 0.5'],
      [['lock', '', 'L', 0, -5, 0, 'e', 'n'], 'cp command lock: now must be an integer >= 0, got -5'],
      [['lock', '', 'L', 0, 0, -2, 'e', 'n'], 'cp command lock: timeoutMs must be an integer >= -1, got -2'],
      [['lock', '', 'L', 0, 0, 0, 1, 'n'], 'cp command lock: endpoint must be a string, got 1'],
      [['lock', '', 'L', 0, 0, 0, 'e', new Uint8Array(1)], 'cp command lock: endpointName must be a string, got bytes'],
      [['lock', '', 'L', 0, 0, 5, 'e', 'n'], 'cp command lock: a lock that may wait (timeoutMs 5) needs an invocation key'],
      [['lock', '', 'L', 0, 0, -1, 'e', 'n'], 'cp command lock: a lock that may wait (timeoutMs -1) needs an invocation key'],
      [['lock', '', 'L', 0, Number.MAX_SAFE_INTEGER + 1, 0, 'e', 'n'], 'cp command lock: now must be an integer >= 0, got 9007199254740992'],
      [['unlock', '', 'L', 0], 'cp command unlock: sessionId must be an integer >= 1, got 0'],
      [['unlock', '', ['L'], 1], 'cp command unlock: name must be a non-empty string, got an array'],
      [['heartbeat', '', 1, NaN], 'cp command heartbeat: now must be an integer >= 0, got NaN'],
      [['heartbeat', '', '1', 0], 'cp command heartbeat: sessionId must be an integer >= 1, got "1"'],
      [['closeSession', '', 0], 'cp command closeSession: sessionId must be an integer >= 1, got 0'],
      [['tick', '', Infinity], 'cp command tick: now must be an integer >= 0, got Infinity'],
      [['tick', ''], 'cp command tick: takes 1 argument(s) after the invocation key, got 0'],
      [['cancel', '', ''], 'cp command cancel: waitKey must be a non-empty string, got ""'],
      [['cancel', '', null], 'cp command cancel: waitKey must be a non-empty string, got null'],
    ];
    for (const [command, message] of cases) {
      const out = r.st.apply(++r.index, command);
      expect(out, JSON.stringify(command)).toEqual({ answer: { ok: false, code: 'BAD_REQUEST', message }, completed: [] });
    }
    const after = r.st.snapshot() as WireValue[];
    expect(after.slice(3)).toEqual(before.slice(3)); // only lastIndex moved
  });

  it('remembers a BAD_REQUEST under its key like any answer', () => {
    const r = Replica.create();
    const first = r.ask('set', 'k1', 'a', 'x');
    expect(first).toEqual(err('BAD_REQUEST'));
    expect(r.ask('set', 'k1', 'a', '1')).toBe(first);
    expect(r.st.atomicLong('a')).toBe('0');
  });

  it('throws RangeError when the index does not increase (a shell bug, not a command)', () => {
    const st = new CpDataState(options());
    st.apply(5, ['set', '', 'a', '1']);
    expect(() => st.apply(5, ['set', '', 'a', '2'])).toThrow(RangeError);
    expect(() => st.apply(4, ['set', '', 'a', '2'])).toThrow(RangeError);
    expect(() => st.apply(6.5, ['set', '', 'a', '2'])).toThrow(RangeError);
    expect(st.atomicLong('a')).toBe('1');
    expect(() => new CpDataState({ sessionTtlMs: 0, lockAcquireLimit: () => 0 })).toThrow(RangeError);
  });

  it('answers INTERNAL, changing nothing, when the lock-acquire-limit lookup throws', () => {
    const st = new CpDataState({
      sessionTtlMs: TTL,
      lockAcquireLimit: () => {
        throw new Error('boom');
      },
    });
    expect(st.apply(1, lock('', 'L', 0, 0)).answer).toEqual(got(1, 1, 1));
    expect(st.apply(2, lock('', 'L', 1, 10)).answer).toEqual({ ok: false, code: 'INTERNAL', message: 'cp data state: boom' });
    expect(st.lockInfo('L').lockCount).toBe(1);
    expect(st.sessions()[0]?.version).toBe(0);
  });
});

describe('CpDataState sessions and locks', () => {
  it('creates sessions 1, 2, … on lock, gives a free lock with the index as fence, and deletes a released lock', () => {
    const r = Replica.create();
    r.index = 9;
    expect(r.ask(...lock('', 'L', 0, 100))).toEqual(got(10, 1, 1));
    expect(r.st.sessions()).toEqual([
      { id: 1, creationTime: 100, expirationTime: 100 + TTL, version: 0, endpoint: '10.0.0.1:5701', endpointName: 'client-1', endpointType: 'CLIENT' },
    ]);
    expect(r.st.lockInfo('L')).toEqual({ locked: true, sessionId: 1, fence: 10, lockCount: 1, waiters: 0 });
    expect(r.ask('lock', '', 'M', 0, 200, 0, 'e2', 'n2')).toEqual(got(11, 2, 1));
    expect(r.st.sessions().map((s) => [s.id, s.endpoint, s.endpointName])).toEqual([
      [1, '10.0.0.1:5701', 'client-1'],
      [2, 'e2', 'n2'],
    ]);
    expect(r.value('unlock', '', 'L', 1)).toEqual({ lockCount: 0 });
    expect(r.st.lockInfo('L')).toEqual({ locked: false, sessionId: 0, fence: 0, lockCount: 0, waiters: 0 });
    expect((r.st.snapshot() as WireValue[])[6]).toEqual([['M', 2, 11, 1, []]]); // L is gone
    // Re-acquired later: a new, larger fence.
    expect(r.ask(...lock('', 'L', 1, 300))).toEqual(got(13, 1, 1));
  });

  it('refreshes an existing session on lock (also when not acquired) and refuses an unknown one', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // session 1
    r.run(...lock('', 'M', 0, 0)); // session 2
    expect(r.ask(...lock('', 'L', 2, 500))).toEqual(notGot(2));
    expect(r.st.sessions()[1]).toMatchObject({ id: 2, creationTime: 0, expirationTime: 500 + TTL, version: 1 });
    expect(r.ask(...lock('', 'L', 0, 600))).toEqual(notGot(3)); // a new session that stays
    expect(r.st.sessions().map((s) => s.id)).toEqual([1, 2, 3]);
    expect(r.ask(...lock('', 'L', 7, 0))).toEqual(err('NOT_FOUND', 'CP session 7 does not exist or has expired'));
    expect(r.st.sessions().map((s) => s.id)).toEqual([1, 2, 3]);
  });

  it('heartbeats a session and closes it', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0));
    expect(r.value('heartbeat', '', 1, 250)).toEqual({ sessionId: 1, expirationTime: 250 + TTL });
    expect(r.value('heartbeat', '', 1, 260)).toEqual({ sessionId: 1, expirationTime: 260 + TTL });
    expect(r.st.sessions()[0]).toMatchObject({ version: 2, expirationTime: 260 + TTL });
    expect(r.ask('heartbeat', '', 2, 0)).toEqual(err('NOT_FOUND', 'CP session 2 does not exist or has expired'));
    expect(r.value('closeSession', '', 2)).toBe(false);
    expect(r.value('closeSession', '', 1)).toBe(true);
    expect(r.st.sessions()).toEqual([]);
    expect(r.st.lockInfo('L').locked).toBe(false);
    expect(r.value('closeSession', '', 1)).toBe(false);
    expect(r.ask('heartbeat', '', 1, 0)).toEqual(err('NOT_FOUND'));
    expect(r.ask(...lock('', 'L', 1, 0))).toEqual(err('NOT_FOUND'));
    expect(r.ask(...lock('', 'L', 0, 0)).ok).toBe(true); // ids are never reused
    expect(r.st.sessions().map((s) => s.id)).toEqual([2]);
  });

  it('keeps expiration times exact integers near the top of the range', () => {
    const r = Replica.create();
    const now = Number.MAX_SAFE_INTEGER - 10;
    r.run(...lock('', 'L', 0, now));
    expect(r.st.sessions()[0]?.expirationTime).toBe(Number.MAX_SAFE_INTEGER);
    r.run(...lock('w', 'L', 0, now, Number.MAX_SAFE_INTEGER));
    expect(r.value('tick', '', Number.MAX_SAFE_INTEGER - 1)).toBe(0);
    expect(r.st.lockInfo('L').waiters).toBe(1);
  });

  it('unlocks only for the holder', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // session 1 holds
    r.run(...lock('', 'M', 0, 0)); // session 2
    expect(r.ask('unlock', '', 'L', 2)).toEqual(err('CONFLICT', 'lock L is not held by session 2'));
    expect(r.ask('unlock', '', 'X', 1)).toEqual(err('CONFLICT', 'lock X is not held by session 1'));
    expect(r.ask('unlock', '', 'L', 9)).toEqual(err('NOT_FOUND', 'CP session 9 does not exist or has expired'));
    expect(r.st.lockInfo('L')).toMatchObject({ sessionId: 1, lockCount: 1 });
  });

  it('is reentrant without limit when the lock-acquire-limit is 0', () => {
    const r = Replica.create({ L: 0 });
    expect(r.ask(...lock('', 'L', 0, 0))).toEqual(got(1, 1, 1));
    for (let n = 2; n <= 50; n++) expect(r.ask(...lock('', 'L', 1, n))).toEqual(got(1, 1, n));
    for (let n = 49; n >= 0; n--) expect(r.value('unlock', '', 'L', 1)).toEqual({ lockCount: n });
    expect(r.st.lockInfo('L').locked).toBe(false);
  });

  it('is not reentrant with limit 1: not acquired with timeout 0, CONFLICT (changing nothing) with a wait', () => {
    const r = Replica.create({ L: 1 });
    expect(r.ask(...lock('', 'L', 0, 0))).toEqual(got(1, 1, 1));
    expect(r.ask(...lock('', 'L', 1, 10))).toEqual(notGot(1));
    expect(r.st.sessions()[0]?.version).toBe(1);
    expect(r.ask(...lock('k', 'L', 1, 20, 100))).toEqual(err('CONFLICT', 'lock-acquire-limit 1 of lock L reached'));
    expect(r.ask(...lock('k2', 'L', 1, 20, -1))).toEqual(err('CONFLICT', 'lock-acquire-limit 1 of lock L reached'));
    expect(r.st.sessions()[0]).toMatchObject({ version: 1, expirationTime: 10 + TTL }); // not refreshed by a CONFLICT
    expect(r.st.lockInfo('L')).toEqual({ locked: true, sessionId: 1, fence: 1, lockCount: 1, waiters: 0 });
  });

  it('allows n holds with limit n', () => {
    const r = Replica.create({ L: 2 });
    expect(r.ask(...lock('', 'L', 0, 0))).toEqual(got(1, 1, 1));
    expect(r.ask(...lock('', 'L', 1, 0))).toEqual(got(1, 1, 2));
    expect(r.ask(...lock('', 'L', 1, 0))).toEqual(notGot(1));
    expect(r.ask(...lock('k', 'L', 1, 0, 5))).toEqual(err('CONFLICT', 'lock-acquire-limit 2 of lock L reached'));
    expect(r.value('unlock', '', 'L', 1)).toEqual({ lockCount: 1 });
    expect(r.ask(...lock('', 'L', 1, 0))).toEqual(got(1, 1, 2));
  });

  it('looks the limit up by the name without @group, and treats a nonsensical limit as 1', () => {
    const seen: string[] = [];
    const st = new CpDataState(options({ L: 1, W: -3 }, seen));
    st.apply(1, lock('', 'L@my-group', 0, 0));
    expect(st.apply(2, lock('', 'L@my-group', 1, 0)).answer).toEqual(notGot(1));
    st.apply(3, lock('', 'W', 1, 0));
    expect(st.apply(4, lock('', 'W', 1, 0)).answer).toEqual(notGot(1));
    expect(seen).toEqual(['L', 'W']); // only asked when the session holds the lock
  });

  it('queues waiters FIFO and hands a released lock to the first, fenced by the releasing command', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // 1 holds, fence 1
    r.run(...lock('', 'X', 0, 0)); // session 2
    r.run(...lock('', 'Y', 0, 0)); // session 3
    expect(r.run(...lock('w2', 'L', 2, 10, -1))).toEqual({ answer: undefined, completed: [] });
    expect(r.run(...lock('w3', 'L', 3, 10, 5000))).toEqual({ answer: undefined, completed: [] });
    expect(r.run(...lock('w1', 'L', 1, 10, 0)).answer).toEqual(got(1, 1, 2)); // the holder reenters past the queue
    expect(r.st.lockInfo('L')).toEqual({ locked: true, sessionId: 1, fence: 1, lockCount: 2, waiters: 2 });
    expect(r.run('unlock', '', 'L', 1)).toEqual({ answer: okv({ lockCount: 1 }), completed: [] });
    const u = r.run('unlock', '', 'L', 1);
    expect(u).toEqual({ answer: okv({ lockCount: 0 }), completed: [{ key: 'w2', answer: got(r.index, 2, 1) }] });
    expect(r.st.lockInfo('L')).toEqual({ locked: true, sessionId: 2, fence: r.index, lockCount: 1, waiters: 1 });
    const u2 = r.run('unlock', '', 'L', 2);
    expect(u2.completed).toEqual([{ key: 'w3', answer: got(r.index, 3, 1) }]);
    expect(r.run('unlock', '', 'L', 3).completed).toEqual([]);
    expect(r.st.lockInfo('L').locked).toBe(false);
  });

  it('creates the session of a waiting lock command and answers it when granted', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0));
    expect(r.run(...lock('w', 'L', 0, 0, -1)).answer).toBeUndefined();
    expect(r.st.sessions().map((s) => s.id)).toEqual([1, 2]);
    expect(r.run('unlock', '', 'L', 1).completed).toEqual([{ key: 'w', answer: got(3, 2, 1) }]);
  });

  it('lets a session wait twice and get the lock twice in turn', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // 1
    r.run(...lock('a', 'L', 0, 0, -1)); // session 2 waits
    r.run(...lock('b', 'L', 2, 0, -1)); // session 2 waits again
    expect(r.run('unlock', '', 'L', 1).completed).toEqual([{ key: 'a', answer: got(4, 2, 1) }]);
    expect(r.st.lockInfo('L')).toMatchObject({ sessionId: 2, waiters: 1 });
    expect(r.run('unlock', '', 'L', 2).completed).toEqual([{ key: 'b', answer: got(5, 2, 1) }]);
  });

  it('times waiters out on tick; a waiter without deadline waits on', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // 1
    r.run(...lock('a', 'L', 0, 100, 50)); // session 2, deadline 150
    r.run(...lock('b', 'L', 0, 100, -1)); // session 3
    r.run(...lock('c', 'L', 0, 120, 30)); // session 4, deadline 150
    expect([r.st.hasExpiries(149), r.st.hasExpiries(150)]).toEqual([false, true]);
    expect(r.run('tick', '', 149)).toEqual({ answer: okv(0), completed: [] });
    expect(r.run('tick', '', 150)).toEqual({
      answer: okv(0),
      completed: [
        { key: 'a', answer: notGot(2) },
        { key: 'c', answer: notGot(4) },
      ],
    });
    expect(r.st.lockInfo('L').waiters).toBe(1);
    expect(r.run('tick', '', 900).completed).toEqual([]);
    // A retry of a timed-out invocation gets its answer again.
    expect(r.run(...lock('a', 'L', 2, 950, 50))).toEqual({ answer: notGot(2), completed: [] });
    expect(r.run('unlock', '', 'L', 1).completed).toEqual([{ key: 'b', answer: got(r.index, 3, 1) }]);
  });

  it('skips waiters of closed sessions: they are answered NOT_FOUND when their session closes', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // 1 holds
    r.run(...lock('b', 'L', 0, 0, -1)); // 2 waits
    r.run(...lock('c', 'L', 0, 0, -1)); // 3 waits
    r.run(...lock('b2', 'L', 2, 0, -1)); // 2 waits again
    expect(r.run('closeSession', '', 2)).toEqual({
      answer: okv(true),
      completed: [
        { key: 'b', answer: err('NOT_FOUND', 'CP session 2 was closed') },
        { key: 'b2', answer: err('NOT_FOUND', 'CP session 2 was closed') },
      ],
    });
    expect(r.st.lockInfo('L').waiters).toBe(1);
    expect(r.run('unlock', '', 'L', 1).completed).toEqual([{ key: 'c', answer: got(r.index, 3, 1) }]);
  });

  it('releases every lock of a closed session fully, to the next waiter, and deletes the rest', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // session 1, fence 1
    r.run(...lock('', 'L', 1, 0));
    r.run(...lock('', 'L', 1, 0)); // count 3
    r.run(...lock('', 'M', 1, 0)); // fence 4
    r.run(...lock('w', 'L', 0, 0, -1)); // session 2 waits for L
    const c = r.run('closeSession', 'close-1', 1);
    expect(c).toEqual({ answer: okv(true), completed: [{ key: 'w', answer: got(6, 2, 1) }] });
    expect(r.st.lockInfo('L')).toEqual({ locked: true, sessionId: 2, fence: 6, lockCount: 1, waiters: 0 });
    expect(r.st.lockInfo('M').locked).toBe(false);
    expect(r.st.sessions().map((s) => s.id)).toEqual([2]);
  });

  it('expires sessions on tick, handing their lock to a waiter with a larger fence', () => {
    const r = Replica.create();
    expect(r.ask(...lock('', 'L', 0, 0))).toEqual(got(1, 1, 1)); // session 1 expires at 1000
    r.run(...lock('w', 'L', 0, 500, -1)); // session 2 expires at 1500
    r.run('heartbeat', '', 2, 900); // now 1900
    expect([r.st.hasExpiries(999), r.st.hasExpiries(1000)]).toEqual([false, true]);
    expect(r.run('tick', '', 999)).toEqual({ answer: okv(0), completed: [] });
    const t = r.run('tick', 'tick-1', 1000);
    expect(t).toEqual({ answer: okv(1), completed: [{ key: 'w', answer: got(5, 2, 1) }] });
    expect(r.st.lockInfo('L').fence).toBeGreaterThan(1);
    expect(r.st.sessions().map((s) => s.id)).toEqual([2]);
    expect(r.run(...lock('', 'L', 1, 1000))).toMatchObject({ answer: err('NOT_FOUND') });
    expect(r.ask('unlock', '', 'L', 1)).toEqual(err('NOT_FOUND'));
    expect(r.value('tick', '', 5000)).toBe(1);
    expect(r.st.sessions()).toEqual([]);
    expect(r.st.lockInfo('L').locked).toBe(false);
  });

  it('times waiters out before expiring sessions, and answers the waiters of an expired session NOT_FOUND', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0)); // session 1 holds L, expires 1000
    r.run(...lock('late', 'L', 0, 0, 1000)); // session 2 (expires 1000) waits for L, deadline 1000
    r.run(...lock('k3', 'X', 0, 2000)); // session 3 holds X, expires 3000
    r.run(...lock('x', 'L', 3, 2000, -1)); // session 3 waits for L
    r.run(...lock('k4', 'Y', 0, 2000)); // session 4 holds Y, expires 3000
    r.run(...lock('y', 'X', 4, 2000, -1)); // session 4 waits for X
    const t = r.run('tick', '', 1000);
    expect(t.answer).toEqual(okv(2));
    expect(t.completed).toEqual([
      { key: 'late', answer: notGot(2) }, // its deadline passed: the same tick does not grant it the lock
      { key: 'x', answer: got(r.index, 3, 1) },
    ]);
    r.run('heartbeat', '', 3, 2500); // session 3 now expires at 3500
    const t2 = r.run('tick', '', 3000);
    expect(t2).toEqual({ answer: okv(1), completed: [{ key: 'y', answer: err('NOT_FOUND', 'CP session 4 has expired') }] });
    expect([r.st.lockInfo('L').sessionId, r.st.lockInfo('X').sessionId, r.st.lockInfo('Y').locked]).toEqual([3, 3, false]);
    // Sessions expiring together close in id order: X goes to a waiter of the later one, which closes next.
    r.run(...lock('k5', 'Z', 0, 3000)); // session 5, expires 4000
    r.run(...lock('z', 'X', 5, 3000, -1));
    r.run('heartbeat', '', 3, 3000); // session 3 expires at 4000 too
    const t3 = r.run('tick', '', 4000);
    expect(t3).toEqual({ answer: okv(2), completed: [{ key: 'z', answer: got(r.index, 5, 1) }] });
    expect(r.st.sessions()).toEqual([]);
    expect(['L', 'X', 'Y', 'Z'].map((n) => r.st.lockInfo(n).locked)).toEqual([false, false, false, false]);
  });

  it('cancels a waiter', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0));
    r.run(...lock('w', 'L', 0, 0, -1));
    expect(r.run('cancel', '', 'w')).toEqual({ answer: okv(true), completed: [{ key: 'w', answer: notGot(2) }] });
    expect(r.st.lockInfo('L').waiters).toBe(0);
    expect(r.run('cancel', '', 'w')).toEqual({ answer: okv(false), completed: [] });
    expect(r.run('cancel', '', 'nobody')).toEqual({ answer: okv(false), completed: [] });
    expect(r.run(...lock('w', 'L', 2, 0, -1))).toEqual({ answer: notGot(2), completed: [] }); // its retry
    expect(r.st.sessions().map((s) => s.id)).toEqual([1, 2]);
  });
});

describe('CpDataState deduplication', () => {
  it('answers a retried key again without applying it; the empty key is never deduplicated', () => {
    const r = Replica.create();
    const a = r.run('add', 'k1', 'a', '5');
    expect(a.answer).toEqual(okv('5'));
    expect(r.run('add', 'k1', 'a', '5')).toEqual({ answer: okv('5'), completed: [] });
    expect(r.run('set', 'k1', 'b', '7')).toEqual({ answer: okv('5'), completed: [] }); // the key decides
    expect([r.st.atomicLong('a'), r.st.atomicLong('b')]).toEqual(['5', '0']);
    r.run('add', '', 'a', '5');
    r.run('add', '', 'a', '5');
    expect(r.st.atomicLong('a')).toBe('15');
    // A lock retry gets the same fence and does not reenter.
    expect(r.ask(...lock('lk', 'L', 0, 0))).toEqual(got(r.index, 1, 1));
    const fence = r.index;
    expect(r.ask(...lock('lk', 'L', 0, 0))).toEqual(got(fence, 1, 1));
    expect(r.st.lockInfo('L').lockCount).toBe(1);
    expect(r.st.sessions()).toHaveLength(1);
  });

  it('does not queue a waiting key twice, and answers its retries with the final answer once completed', () => {
    const r = Replica.create();
    r.run(...lock('', 'L', 0, 0));
    expect(r.run(...lock('w', 'L', 0, 0, -1))).toEqual({ answer: undefined, completed: [] });
    expect(r.run(...lock('w', 'L', 0, 0, -1))).toEqual({ answer: undefined, completed: [] });
    expect(r.run('cancel', 'w', 'w')).toEqual({ answer: undefined, completed: [] }); // any command with a waiting key
    expect(r.st.lockInfo('L').waiters).toBe(1);
    expect(r.st.sessions()).toHaveLength(2);
    const u = r.run('unlock', '', 'L', 1);
    const fence = r.index;
    expect(u.completed).toEqual([{ key: 'w', answer: got(fence, 2, 1) }]);
    expect(r.run(...lock('w', 'L', 0, 0, -1))).toEqual({ answer: got(fence, 2, 1), completed: [] });
    expect(r.st.lockInfo('L')).toMatchObject({ sessionId: 2, lockCount: 1, waiters: 0 });
  });

  it(`keeps the answers of the last ${CP_DATA_ANSWERED_KEYS} keys, evicting the oldest first`, () => {
    const r = Replica.create();
    for (let i = 0; i <= CP_DATA_ANSWERED_KEYS; i++) r.run('add', `k${i}`, 'a', '1');
    const n = String(CP_DATA_ANSWERED_KEYS + 1);
    expect(r.st.atomicLong('a')).toBe(n);
    expect(r.run('add', 'k1', 'a', '1').answer).toEqual(okv('2')); // still remembered
    expect(r.st.atomicLong('a')).toBe(n);
    expect(r.run('add', 'k0', 'a', '1').answer).toEqual(okv(String(CP_DATA_ANSWERED_KEYS + 2))); // evicted: applied again
    // Remembering k0 again evicted k1 (FIFO, not refreshed by its retry).
    expect(r.run('add', 'k1', 'a', '1').answer).toEqual(okv(String(CP_DATA_ANSWERED_KEYS + 3)));
    expect(r.run('add', 'k2', 'a', '1').answer).toEqual(okv(String(CP_DATA_ANSWERED_KEYS + 4)));
    expect(r.run('add', 'k3', 'a', '1').answer).toEqual(okv(String(CP_DATA_ANSWERED_KEYS + 5)));
    expect(r.run('add', `k${CP_DATA_ANSWERED_KEYS}`, 'a', '1').answer).toEqual(okv(n));
    const answers = (r.st.snapshot() as WireValue[])[7] as WireValue[];
    expect(answers).toHaveLength(CP_DATA_ANSWERED_KEYS);
    const restored = CpDataState.fromSnapshot(options(), r.st.snapshot());
    expect(restored.snapshot()).toEqual(r.st.snapshot());
  });
});

/** n arrays, each holding the next: ['a', ['a', … 1]]. */
function nested(n: number): WireValue {
  let v: WireValue = 1;
  for (let i = 0; i < n; i++) v = ['a', v];
  return v;
}

/** Only arrays, strings and numbers, all the way down. */
function plain(v: WireValue): boolean {
  if (typeof v === 'string' || typeof v === 'number') return true;
  return Array.isArray(v) && (v as WireValue[]).every(plain);
}

function script(): WireValue[][] {
  return [
    ['set', 'a1', 'x', '41'],
    ['add', 'a2', 'x', '1'],
    lock('l1', 'L', 0, 0), // session 1
    lock('l2', 'L', 0, 10, -1), // session 2 waits
    lock('l3', 'L', 0, 20, 500), // session 3 waits, deadline 520
    lock('l4', 'M', 0, 30), // session 4
    lock('l5', 'M', 4, 40),
    ['cas', 'bad', 'x', 'oops', '1'],
    ['heartbeat', '', 2, 100],
  ];
}

function continuation(): WireValue[][] {
  return [
    ['add', 'a2', 'x', '1'], // a retry
    lock('l2', 'L', 0, 10, -1), // a retry of a waiting key
    ['tick', '', 520],
    ['unlock', 'u1', 'L', 1],
    lock('l6', 'L', 0, 600, -1),
    ['closeSession', '', 2],
    ['tick', '', 1040],
    ['unlock', '', 'M', 4],
    ['cas', 'bad', 'x', '42', '1'],
    ['set', 'a3', 'x', '1'],
    ['cancel', '', 'l6'],
    ['tick', '', 99999],
  ];
}

describe('CpDataState snapshots', () => {
  it('restores a state that answers every later command exactly like the original', () => {
    const original = Replica.create({ M: 2 });
    for (const c of script()) original.run(...c);
    const snap = original.st.snapshot();
    expect(plain(snap)).toBe(true);
    const wire = decodeValue(encodeValue(snap)); // it travels over the member protocol and to disk
    const restored = new Replica(CpDataState.fromSnapshot(options({ M: 2 }), wire));
    restored.index = original.index;
    expect(restored.st.snapshot()).toEqual(snap);
    expect(restored.st.sessions()).toEqual(original.st.sessions());
    expect(restored.st.lockInfo('L')).toEqual(original.st.lockInfo('L'));
    expect(restored.st.atomicLong('x')).toBe('42');
    for (const c of continuation()) {
      expect(restored.run(...c), JSON.stringify(c)).toEqual(original.run(...c));
    }
    expect(restored.st.snapshot()).toEqual(original.st.snapshot());
    // The continuation did exercise the interesting paths.
    const final = original.st.snapshot() as WireValue[];
    expect(final[7]).toContainEqual(['l2', [1, ['o', 'fence', 13, 'sessionId', 2, 'lockCount', 1, 'acquired', ['t']]]]);
  });

  it('restores an empty state, and the restored state refuses an index at or below its own', () => {
    const st = new CpDataState(options());
    expect(st.snapshot()).toEqual(['cp-data-state', 1, 0, 1, [], [], [], []]);
    const r = Replica.create();
    r.run('set', '', 'a', '1');
    const restored = CpDataState.fromSnapshot(options(), r.st.snapshot());
    expect(() => restored.apply(1, ['set', '', 'a', '2'])).toThrow(RangeError);
    expect(restored.apply(2, ['add', '', 'a', '2']).answer).toEqual(okv('3'));
  });

  it('refuses a malformed state with BAD_REQUEST', () => {
    const r = Replica.create();
    for (const c of script()) r.run(...c);
    const good = r.st.snapshot() as WireValue[];
    const edit = (f: (s: WireValue[][]) => void): WireValue => {
      const s = structuredClone(good) as WireValue[][];
      f(s);
      return s as WireValue;
    };
    const bad: [WireValue, string][] = [
      [null, 'state is not an array'],
      [good.slice(0, 7), 'state does not have 8 elements'],
      [['x', ...good.slice(1)], 'state[0] is not "cp-data-state"'],
      [[good[0] as WireValue, 2, ...good.slice(2)], 'state[1] is not version 1'],
      [edit((s) => ((s as WireValue[])[2] = -1)), 'lastIndex is not an integer >= 0'],
      [edit((s) => ((s as WireValue[])[3] = 2)), 'sessions[1].id is out of order or not below nextSessionId'],
      [edit((s) => ((s as WireValue[])[4] = {} as WireValue[])), 'longs is not an array'],
      [edit((s) => (s[4] = [['x', '1'], ['x', '2']])), 'longs[1] repeats "x"'],
      [edit((s) => (s[4] = [['x', '1.5']])), 'longs[0].value is not a 64-bit decimal integer'],
      [edit((s) => (s[4] = [['', '1']])), 'longs[0].name is not a non-empty string'],
      [edit((s) => (s[5] = [s[5]?.[1] as WireValue, s[5]?.[0] as WireValue])), 'sessions[1].id is out of order or not below nextSessionId'],
      [edit((s) => ((s[5]?.[0] as WireValue[])[6] = 'ROBOT')), 'sessions[0].endpointType is not CLIENT or SERVER'],
      [edit((s) => ((s[5]?.[0] as WireValue[])[4] = 5)), 'sessions[0].endpoint is not a string'],
      [edit((s) => ((s[5]?.[0] as WireValue[])[3] = 1.5)), 'sessions[0].version is not an integer >= 0'],
      [edit((s) => s[5]?.splice(0, 1)), 'locks[0].holder is not a session'],
      [edit((s) => ((s[6]?.[0] as WireValue[])[1] = 0)), 'locks[0].holder is not an integer >= 1'],
      [edit((s) => ((s[6]?.[0] as WireValue[])[2] = 999)), 'locks[0].fence is beyond lastIndex'],
      [edit((s) => ((s[6]?.[0] as WireValue[])[3] = 0)), 'locks[0].count is not an integer >= 1'],
      [edit((s) => s[6]?.push(s[6][0] as WireValue)), 'locks[2] repeats "L"'],
      [edit((s) => (((s[6]?.[0] as WireValue[])[4] as WireValue[][])[1] = ['l2', 3, -1])), 'locks[0].waiters[1].key repeats "l2"'],
      [edit((s) => (((s[6]?.[0] as WireValue[])[4] as WireValue[][])[0] = ['l2', 9, -1])), 'locks[0].waiters[0].sessionId is not a session'],
      [edit((s) => (((s[6]?.[0] as WireValue[])[4] as WireValue[][])[0] = ['l2', 2, -2])), 'locks[0].waiters[0].deadline is not an integer >= -1'],
      [edit((s) => s[7]?.push(['l2', [1, 'x']])), 'answers[6].key repeats "l2" or is waiting'],
      [edit((s) => s[7]?.push(['a1', [1, 'x']])), 'answers[6].key repeats "a1" or is waiting'],
      [edit((s) => s[7]?.push(['z', [0, 'NOPE', 'x']])), 'answers[6].answer is not [1, value] or [0, code, message]'],
      [edit((s) => s[7]?.push(['z', [1, ['q']]])), 'answers[6].value is not an encoded answer value'],
      [edit((s) => s[7]?.push(['z', [1, ['o', 'k']]])), 'answers[6].value is not an encoded answer value'],
      [edit((s) => s[7]?.push(['z', [1, ['o', 'k', 1, 'k', 2]]])), 'answers[6].value has a bad or repeated object key'],
      [edit((s) => s[7]?.push(['z', [1, ['o', '__proto__', 1]]])), 'answers[6].value has a bad or repeated object key'],
      [edit((s) => s[7]?.push(['z', [1, ['t', 1]]])), 'answers[6].value is not an encoded answer value'],
      [edit((s) => s[7]?.push(['z', [1, null as unknown as WireValue]])), 'answers[6].value is not an encoded answer value'],
      [edit((s) => s[7]?.push(['z', [1, nested(9)]])), `answers[6].value${'[0]'.repeat(8)} is not an encoded answer value`],
      [edit((s) => s[7]?.push(['z', [1, nested(8)]], ['z', [1, 'x']])), 'answers[7].key repeats "z" or is waiting'],
    ];
    for (const [state, problem] of bad) {
      let thrown: unknown;
      try {
        CpDataState.fromSnapshot(options(), state);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, problem).toBeInstanceOf(GridError);
      expect((thrown as GridError).code).toBe('BAD_REQUEST');
      expect((thrown as GridError).message).toBe(`malformed CP data snapshot: ${problem}`);
    }
    // Every encodable answer kind decodes back.
    const s = edit((x) => x[7]?.push(['z', [1, ['a', ['n'], ['f'], -1.5, 'q', ['o']]]]));
    const st = CpDataState.fromSnapshot(options(), s);
    expect(st.snapshot()).toEqual(s);
  });
});

/** mulberry32: a small seeded PRNG, so a failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomCommand(rnd: () => number, now: number, usedKeys: string[]): WireValue {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const name = pick(['L', 'M', 'N@grp']);
  const sid = pick([0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
  const t = now + pick([-50, 0, 0, 10, 100]);
  const key = rnd() < 0.15 && usedKeys.length > 0 ? pick(usedKeys) : rnd() < 0.2 ? '' : `k${usedKeys.length}`;
  if (key !== '' && !usedKeys.includes(key)) usedKeys.push(key);
  const long = (): WireValue => pick(['0', '1', '-1', MAX, MIN, '12345678901234567890', 'x', 3, '+7']);
  switch (Math.floor(rnd() * 14)) {
    case 0:
      return ['set', key, pick(['x', 'y']), long()];
    case 1:
      return ['add', key, pick(['x', 'y']), long()];
    case 2:
      return ['cas', key, pick(['x', 'y']), long(), long()];
    case 3:
    case 4:
    case 5:
      return ['lock', key, name, sid, Math.max(0, t), pick([0, 0, -1, 30, 300]), 'e', 'n'];
    case 6:
    case 7:
      return ['unlock', key, name, pick([1, 2, 3, 4, 5, 6, 7, 8])];
    case 8:
      return ['heartbeat', key, pick([1, 2, 3, 4, 5, 6, 7, 8]), Math.max(0, t)];
    case 9:
      return ['closeSession', key, pick([1, 2, 3, 4, 5, 6, 7, 8])];
    case 10:
      return ['tick', key, Math.max(0, t)];
    case 11:
      return ['cancel', key, usedKeys.length > 0 ? pick(usedKeys) : 'none'];
    case 12:
      return pick<WireValue>([null, 7, 'lock', [], [1, 2], ['lock', key], ['set', key, 'x'], { a: 1 }, new Uint8Array(2), new Latin1('x'), ['tick', key, -1], ['nope', key]]);
    default:
      return ['lock', key, name, sid, Math.max(0, t), pick([1.5, -3, 'x', null]), 'e', 'n'];
  }
}

describe('CpDataState determinism', () => {
  it('gives identical answers and states on replicas fed the same random commands, keeping its invariants', () => {
    const seen = { granted: 0, timedOut: 0, closed: 0, waits: 0, conflicts: 0, bad: 0 };
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = prng(seed);
      const limits = { L: 0, M: 2, N: 1 };
      const a = Replica.create(limits);
      const b = Replica.create(limits);
      let c: Replica | undefined; // restored from a's snapshot midway
      const usedKeys: string[] = [];
      const maxFence = new Map<string, number>();
      const waitingKeys = new Set<string>();
      let now = 0;
      for (let step = 0; step < 1500; step++) {
        now += Math.floor(rnd() * 40);
        const command = randomCommand(rnd, now, usedKeys);
        // Occasional gaps in the index: noop and membership entries of Raft are not commands.
        const gap = rnd() < 0.1 ? 2 : 1;
        a.index += gap - 1;
        b.index += gap - 1;
        if (c !== undefined) c.index += gap - 1;
        const outA = a.st.apply(++a.index, command);
        const outB = b.st.apply(++b.index, command);
        expect(outB, `seed ${seed} step ${step}`).toEqual(outA);
        if (c !== undefined) expect(c.st.apply(++c.index, command)).toEqual(outA);
        if (step === 700) {
          c = new Replica(CpDataState.fromSnapshot(options(limits), decodeValue(encodeValue(a.st.snapshot()))));
          c.index = a.index;
        }

        // Never an INTERNAL error: every failure is a deliberate answer.
        for (const ans of [outA.answer, ...outA.completed.map((x) => x.answer)]) {
          if (ans !== undefined && !ans.ok) expect(['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT']).toContain(ans.code);
        }
        // Each waiting invocation is completed once, and only a waiting one.
        for (const done of outA.completed) {
          expect(waitingKeys.delete(done.key), `completed ${done.key} was waiting`).toBe(true);
        }
        const key = Array.isArray(command) ? (command as WireValue[])[1] : undefined;
        if (outA.answer === undefined) waitingKeys.add(key as string);
        if (outA.answer === undefined) seen.waits++;
        if (outA.answer?.ok === false) seen[outA.answer.code === 'BAD_REQUEST' ? 'bad' : 'conflicts']++;
        for (const done of outA.completed) {
          if (!done.answer.ok) seen.closed++;
          else if ((done.answer.value as { acquired: boolean }).acquired) seen.granted++;
          else seen.timedOut++;
        }
        if (step % 50 === 0) {
          // Every holder and every waiter belongs to a live session.
          const snap = a.st.snapshot() as WireValue[][];
          const live = new Set((snap[5] as WireValue[][]).map((t) => t[0]));
          for (const l of snap[6] as WireValue[][]) {
            expect(live.has(l[1] as number)).toBe(true);
            for (const w of l[4] as WireValue[][]) expect(live.has(w[1] as number)).toBe(true);
          }
        }

        const sessionIds = new Set(a.st.sessions().map((s) => s.id));
        let waiters = 0;
        for (const name of ['L', 'M', 'N@grp']) {
          const info = a.st.lockInfo(name);
          waiters += info.waiters;
          if (!info.locked) {
            expect(info).toEqual({ locked: false, sessionId: 0, fence: 0, lockCount: 0, waiters: 0 });
            continue;
          }
          expect(sessionIds.has(info.sessionId), `holder of ${name} exists`).toBe(true);
          expect(info.lockCount).toBeGreaterThanOrEqual(1);
          expect(info.fence).toBeLessThanOrEqual(a.index);
          const prev = maxFence.get(name) ?? 0;
          expect(info.fence).toBeGreaterThanOrEqual(prev); // never goes back
          maxFence.set(name, info.fence);
          if (name === 'M') expect(info.lockCount).toBeLessThanOrEqual(2);
          if (name === 'N@grp') expect(info.lockCount).toBe(1);
        }
        expect(waiters).toBe(waitingKeys.size);
        // A granted lock carries a fence above every earlier fence of that lock.
        for (const done of outA.completed) {
          const v = done.answer.ok ? (done.answer.value as { acquired?: boolean; fence?: number }) : undefined;
          if (v?.acquired === true) expect(v.fence).toBe(a.index);
        }
      }
      expect(b.st.snapshot()).toEqual(a.st.snapshot());
      expect(c?.st.snapshot()).toEqual(a.st.snapshot());
      expect(maxFence.size).toBeGreaterThan(0);
    }
    // The random commands did reach every kind of outcome.
    for (const [kind, n] of Object.entries(seen)) expect(n, kind).toBeGreaterThanOrEqual(10);
  });

  it('hands out strictly increasing fences to successive holders of a lock', () => {
    const rnd = prng(99);
    const r = Replica.create();
    const fences: number[] = [];
    let holder = 0;
    for (let step = 0; step < 3000; step++) {
      const ids = r.st.sessions().map((s) => s.id);
      const sid = ids.length === 0 || rnd() < 0.1 ? 0 : (ids[Math.floor(rnd() * ids.length)] as number);
      const kind = rnd();
      if (kind < 0.5 || sid === 0) r.run(...lock(`k${step}`, 'L', sid, step, rnd() < 0.5 ? 0 : -1));
      else if (kind < 0.85) r.run('unlock', '', 'L', sid);
      else r.run('closeSession', '', sid);
      const info = r.st.lockInfo('L');
      if (info.locked && info.sessionId !== holder) fences.push(info.fence);
      holder = info.sessionId;
    }
    expect(fences.length).toBeGreaterThan(20);
    for (let i = 1; i < fences.length; i++) expect(fences[i]).toBeGreaterThan(fences[i - 1] as number);
  });
});
