// Grouped invocation driven through its faults with a fake cluster: one message per owner per
// attempt, items answered in order, an item whose owner moved or died tried again at the new
// owner (alone or with the others that still wait), a non-retryable failure kept for its item,
// the call timeout as a per-item PARTITION_UNAVAILABLE; and the owner's side answering each item
// for itself.

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import type { WireValue } from '../../../src/protocol/codec.js';
import type { OperationGroupItem } from '../../../src/protocol/payloads.js';
import { answerGroup, encodeGroupAnswer, groupByOwner, invokeGrouped, type GroupCallerDeps, type GroupItem, type GroupOutcome, type Operation, type OperationHandler } from '../../../src/invocation/operation-groups.js';

const RETRY = new Set(['WRONG_TARGET', 'PARTITION_MIGRATING', 'MEMBER_UNREACHABLE', 'PARTITION_UNAVAILABLE', 'NOT_MEMBER']);

/** An operation that returns `value` here; remote owners answer it through `answer`. */
function op(value: string, mutating = true): Operation<string> {
  return { name: 'test.op', mutating, service: 'test', type: 'echo', args: [value], run: () => value };
}

const handler: OperationHandler = { encodeResult: (_t, r) => r as WireValue, decodeResult: (_t, w) => w };

interface Sent {
  owner: string;
  pids: number[];
}

/** A fake cluster: `owners[pid]` now; each remote owner answers through `answer(owner, item)` (throw to refuse the item). */
class FakeCluster {
  readonly clock = new ManualClock();
  readonly sent: Sent[] = [];
  owners = new Map<number, string>();
  /** Owners whose messages fail as a whole (a dead member). */
  readonly dead = new Set<string>();
  answer: (owner: string, item: OperationGroupItem) => WireValue = (owner, it) => `${owner}:${String(it.args[0])}`;
  localRuns: number[] = [];
  retries = 0;

  deps(callTimeoutMs = 10_000): GroupCallerDeps {
    return {
      clock: this.clock,
      callTimeoutMs,
      localUuid: () => 'me',
      ownerOf: (pid) => this.owners.get(pid),
      checkCaller: () => undefined,
      runOwned: <T>(pid: number, o: Operation<T>) => {
        this.localRuns.push(pid);
        if (this.owners.get(pid) !== 'me') throw new GridError('WRONG_TARGET', `not mine: ${pid}`);
        return o.run() as T;
      },
      sendGroup: (owner, _service, items) => {
        this.sent.push({ owner, pids: items.map((i) => i.partitionId) });
        if (this.dead.has(owner)) return Promise.reject(new GridError('MEMBER_UNREACHABLE', `${owner} is gone`));
        return Promise.resolve(
          items.map((it) => {
            try {
              return encodeGroupAnswer({ ok: true, value: this.answer(owner, it) });
            } catch (e) {
              return encodeGroupAnswer({ ok: false, error: e });
            }
          }),
        );
      },
      handler: () => handler,
      retryable: (e) => e instanceof GridError && RETRY.has(e.code),
      retried: (n) => (this.retries += n),
    };
  }

  /** Runs the call to its end, moving the clock through the backoffs. */
  async drive<T>(p: Promise<T>): Promise<T> {
    let done = false;
    void p.finally(() => (done = true)).catch(() => undefined);
    for (let i = 0; i < 1000 && !done; i++) {
      await new Promise((r) => setImmediate(r));
      if (!done) this.clock.advance(100);
    }
    return p;
  }
}

const items = (pids: number[]): GroupItem<string>[] => pids.map((pid) => ({ partitionId: pid, op: op(`v${pid}`) }));
const values = (out: GroupOutcome<string>[]): unknown[] => out.map((o) => (o.ok ? o.value : (o.error as GridError).code));

describe('groupByOwner', () => {
  it('keeps each owner\'s indexes in order; a partition without owner under undefined', () => {
    const owners = new Map([[1, 'a'], [2, 'b'], [3, 'a']]);
    const g = groupByOwner([1, 2, 3, 4, 1], [0, 1, 2, 3, 4], (pid) => owners.get(pid));
    expect([...g]).toEqual([['a', [0, 2, 4]], ['b', [1]], [undefined, [3]]]);
    expect([...groupByOwner([1, 2, 3], [2, 1], (pid) => owners.get(pid))]).toEqual([['a', [2]], ['b', [1]]]);
  });
});

describe('invokeGrouped', () => {
  it('one message per remote owner, local items run here, outcomes in item order', async () => {
    const c = new FakeCluster();
    for (let pid = 0; pid < 30; pid++) c.owners.set(pid, ['me', 'a', 'b'][pid % 3]!);
    const pids = Array.from({ length: 30 }, (_, i) => 29 - i);
    const out = await c.drive(invokeGrouped(c.deps(), items(pids)));
    expect(c.sent.map((s) => s.owner).sort()).toEqual(['a', 'b']);
    expect(c.sent.find((s) => s.owner === 'a')!.pids).toEqual(pids.filter((p) => p % 3 === 1));
    expect(c.localRuns).toEqual(pids.filter((p) => p % 3 === 0));
    expect(values(out)).toEqual(pids.map((p) => (p % 3 === 0 ? `v${p}` : `${['me', 'a', 'b'][p % 3]}:v${p}`)));
    expect(c.retries).toBe(0);
  });

  it('an owner that died: its items go to the new owners, grouped again; the others are not sent twice', async () => {
    const c = new FakeCluster();
    for (let pid = 0; pid < 6; pid++) c.owners.set(pid, pid < 3 ? 'a' : 'b');
    c.dead.add('a');
    const call = invokeGrouped(c.deps(), items([0, 1, 2, 3, 4, 5]));
    // The table moves on while the first attempt fails: a's partitions now at b and here.
    c.owners.set(0, 'b');
    c.owners.set(1, 'me');
    c.owners.set(2, 'b');
    const out = await c.drive(call);
    expect(values(out)).toEqual(['b:v0', 'v1', 'b:v2', 'b:v3', 'b:v4', 'b:v5']);
    expect(c.sent).toEqual([
      { owner: 'a', pids: [0, 1, 2] },
      { owner: 'b', pids: [3, 4, 5] },
      { owner: 'b', pids: [0, 2] },
    ]);
    expect(c.retries).toBe(3);
  });

  it('items refused as migrating or moved are retried alone; a non-retryable refusal stays with its item', async () => {
    const c = new FakeCluster();
    for (let pid = 0; pid < 4; pid++) c.owners.set(pid, 'a');
    let migrating = 2;
    c.answer = (owner, it) => {
      if (it.partitionId === 1 && migrating-- > 0) throw new GridError('PARTITION_MIGRATING', 'moving');
      if (it.partitionId === 2) throw new GridError('SPLIT_BRAIN_PROTECTION', 'not enough members');
      return `${owner}:${String(it.args[0])}`;
    };
    const out = await c.drive(invokeGrouped(c.deps(), items([0, 1, 2, 3])));
    expect(values(out)).toEqual(['a:v0', 'a:v1', 'SPLIT_BRAIN_PROTECTION', 'a:v3']);
    expect(c.sent.map((s) => s.pids)).toEqual([[0, 1, 2, 3], [1], [1]]);
  });

  it('a partition without owner waits for one; past the call timeout each item gives up on its own', async () => {
    const c = new FakeCluster();
    c.owners.set(0, 'a');
    const out = await c.drive(invokeGrouped(c.deps(1_000), items([0, 1])));
    expect(out[0]).toEqual({ ok: true, value: 'a:v0' });
    const e = (out[1] as { error: GridError }).error;
    expect(e.code).toBe('PARTITION_UNAVAILABLE');
    expect(e.message).toMatch(/test\.op on partition 1 gave up after 1000 ms: partition 1 has no owner/);
  });

  it('a refusal by the caller itself (shutting down) answers the item without sending it', async () => {
    const c = new FakeCluster();
    c.owners.set(0, 'a');
    c.owners.set(1, 'a');
    const deps = { ...c.deps(), checkCaller: (o: Operation<unknown>) => {
      if (o.args?.[0] === 'v1') throw new GridError('MEMBER_SHUTTING_DOWN', 'bye');
    } };
    const out = await c.drive(invokeGrouped(deps, items([0, 1])));
    expect(values(out)).toEqual(['a:v0', 'MEMBER_SHUTTING_DOWN']);
    expect(c.sent).toEqual([{ owner: 'a', pids: [0] }]);
  });
});

describe('answerGroup (the owner)', () => {
  it('each item answers for itself, in order, sync and async alike', async () => {
    const run = (_h: OperationHandler, pid: number): unknown => {
      if (pid === 1) throw new GridError('WRONG_TARGET', 'moved');
      if (pid === 2) return Promise.resolve('later');
      if (pid === 3) return Promise.reject(new Error('boom'));
      return 'now';
    };
    const group = [0, 1, 2, 3].map((pid) => ({ partitionId: pid, type: 'echo', args: [] }));
    const answer = await answerGroup({ handler: () => handler, runReceived: run }, 'test', group);
    expect(answer).toEqual([[0, 'now'], [1, 'WRONG_TARGET', 'moved'], [0, 'later'], [1, 'INTERNAL', 'boom']]);
    // All synchronous: no promise.
    expect(answerGroup({ handler: () => handler, runReceived: () => 'x' }, 'test', group.slice(0, 2))).toEqual([[0, 'x'], [0, 'x']]);
    expect(() => answerGroup({ handler: () => undefined, runReceived: () => 'x' }, 'nope', group)).toThrow(/unknown service nope/);
  });
});
