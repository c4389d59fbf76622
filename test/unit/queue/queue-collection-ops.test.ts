// The queue's collection operations (addAll, drain, remove, clear, contains, items) and waiting
// offers on an owner whose every operation travels as a remote member would send it (rebuilt
// from its wire arguments) and whose backups travel through the wire codec to a backup
// service: after each step the backup holds exactly what the owner holds.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Caller, Invoker, Operation } from '../../../src/invocation/invoker.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import { QueueService, type PollClient, type QueueItem } from '../../../src/queue/queue-service.js';
import { captureLogs, flush } from '../core/fakes.js';

const wire = (v: WireValue): WireValue => decodeValue(encodeValue(v));
const ALWAYS: Caller = { alive: () => true, onGone: () => undefined };

/** Runs each operation as the owner would run one sent by another member, then applies its backup on `backup`. */
class RemoteReplicatingInvoker implements Invoker {
  owner!: QueueService;
  backup!: QueueService;
  async invoke<T>(pid: number, op: Operation<T>, caller?: Caller): Promise<T> {
    const h = this.owner.handler;
    const rebuilt = h.operation(pid, op.type!, wire([...op.args!]) as WireValue[], caller ?? ALWAYS) as Operation<unknown>;
    const result = await rebuilt.run();
    const spec = rebuilt.backup?.(result);
    if (spec !== undefined) this.backup.handler.applyBackup(pid, spec.type, wire([...spec.args]) as WireValue[]);
    return h.decodeResult(op.type!, wire(h.encodeResult(op.type!, result))) as T;
  }
}

function pair(raw: unknown = {}): { owner: QueueService; backup: QueueService; clock: ManualClock } {
  const clock = new ManualClock();
  const inv = new RemoteReplicatingInvoker();
  const logger = captureLogs().control.logger;
  const config = configFromObject(raw).config;
  inv.owner = new QueueService({ config, invoker: inv, clock, logger });
  inv.backup = new QueueService({ config, invoker: inv, clock, logger });
  return { owner: inv.owner, backup: inv.backup, clock };
}

const it_ = (v: string): QueueItem => ({ value: v, contentType: '\u0001hz/string' });
const values = (items: readonly QueueItem[]): string[] => items.map((i) => i.value);

/** A client whose answers are written (or not) when the test says so. */
function answering(): { client: PollClient; write(ok: boolean): void } {
  const fns: ((ok: boolean) => void)[] = [];
  return { client: { alive: () => true, onGone: () => undefined, onAnswered: (fn) => fns.push(fn) }, write: (ok) => fns.splice(0).forEach((f) => f(ok)) };
}

async function same(owner: QueueService, backup: QueueService, q: string): Promise<string[]> {
  const here = values(await owner.items(q));
  // The backup's copy, read there directly (its own invoker would run on the owner).
  const pid = partitionIdOf(q);
  const there = backup.handler.operation(pid, 'items', [q], ALWAYS).run() as QueueItem[];
  expect(values(there)).toEqual(here);
  expect(backup.reservedCount(q)).toBe(owner.reservedCount(q));
  return here;
}

describe('queue collection operations, owner and backup alike', () => {
  it('addAll, drain (confirmed once written, released when not), remove, contains, clear', async () => {
    const { owner, backup } = pair();
    expect(await owner.addAll('q', ['a', 'b', 'c', 'd', 'c'].map(it_))).toBe(true);
    expect(await same(owner, backup, 'q')).toEqual(['a', 'b', 'c', 'd', 'c']);
    expect(await owner.containsAll('q', [it_('d'), it_('a')])).toBe(true);
    expect(await owner.containsAll('q', [it_('d'), { value: 'a', contentType: 'text/plain' }])).toBe(false);

    const lost = answering();
    expect(values(await owner.drain('q', 2, lost.client))).toEqual(['a', 'b']);
    expect(owner.reservedCount('q')).toBe(2);
    await same(owner, backup, 'q');
    lost.write(false); // the answer never reached the client: both items back at the head
    await flush();
    expect(await same(owner, backup, 'q')).toEqual(['a', 'b', 'c', 'd', 'c']);

    const ok = answering();
    expect(values(await owner.drain('q', -1, ok.client))).toEqual(['a', 'b', 'c', 'd', 'c']);
    ok.write(true);
    await flush();
    expect(await same(owner, backup, 'q')).toEqual([]);
    expect(owner.reservedCount('q')).toBe(0);

    await owner.addAll('q', ['x', 'y', 'x'].map(it_));
    expect(await owner.remove('q', it_('x'))).toBe(true);
    expect(await owner.remove('q', it_('zz'))).toBe(false);
    expect(await same(owner, backup, 'q')).toEqual(['y', 'x']);
    expect(await owner.clear('q')).toBe(2);
    expect(await same(owner, backup, 'q')).toEqual([]);
    expect(await owner.remainingCapacity('q')).toBe(2 ** 31 - 1);
  });

  it('a bounded queue: addAll all or nothing; a waiting offer gets in when a poll frees room, or times out', async () => {
    const { owner, backup, clock } = pair({ queue: { b: { 'max-size': 2 } } });
    expect(await owner.addAll('b', ['1', '2', '3'].map(it_))).toBe(false);
    expect(await same(owner, backup, 'b')).toEqual([]);
    await owner.addAll('b', ['1', '2'].map(it_));
    expect(await owner.remainingCapacity('b')).toBe(0);
    let done: boolean | undefined;
    void Promise.resolve(owner.offer('b', it_('3'), { timeoutMs: 5_000, client: ALWAYS })).then((r) => (done = r));
    await flush();
    expect(done).toBeUndefined();
    const c = answering();
    expect((await owner.poll('b', 0, c.client))?.value).toBe('1');
    c.write(true);
    await flush();
    expect(done).toBe(true);
    expect(await same(owner, backup, 'b')).toEqual(['2', '3']);

    let late: boolean | undefined;
    void Promise.resolve(owner.offer('b', it_('4'), { timeoutMs: 1_000, client: ALWAYS })).then((r) => (late = r));
    await flush();
    clock.advance(1_000);
    await flush();
    expect(late).toBe(false);
    expect(await same(owner, backup, 'b')).toEqual(['2', '3']);
  });

  it('a waiting offer whose client goes adds nothing', async () => {
    const { owner, backup } = pair({ queue: { g: { 'max-size': 1 } } });
    await owner.offer('g', it_('1'));
    let left = false;
    let onGone: (() => void) | undefined;
    const client: Caller = { alive: () => !left, onGone: (fn) => (onGone = fn) };
    const r = owner.offer('g', it_('2'), { timeoutMs: 60_000, client });
    await flush();
    left = true;
    onGone!();
    expect(await r).toBe(false);
    const c = answering();
    await owner.poll('g', 0, c.client);
    c.write(true);
    await flush();
    expect(await same(owner, backup, 'g')).toEqual([]);
  });
});
