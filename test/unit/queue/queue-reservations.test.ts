// Reservations through the queue service: a polled item stays reserved at the owner (and its
// backups) until the member serving the poll says the answer was written, goes back to the
// head when it was not or when that member leaves, and moves with the partition.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Invoker, Operation } from '../../../src/invocation/invoker.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import { QueueService, type PollClient, type QueueItem, type QueueMembership } from '../../../src/queue/queue-service.js';
import { captureLogs, flush } from '../core/fakes.js';

const wire = (v: WireValue): WireValue => decodeValue(encodeValue(v));

/** Runs every operation on `owner` and replays its backup on `backups` through the wire codec, like the cluster invoker. */
class ReplicatingInvoker implements Invoker {
  owner: QueueService | undefined;
  backups: QueueService[] = [];
  readonly names: string[] = [];
  invoke<T>(partitionId: number, op: Operation<T>): Promise<T> {
    this.names.push(op.name);
    return Promise.resolve(op.run()).then((v) => {
      const spec = op.backup?.(v);
      if (spec !== undefined) for (const b of this.backups) b.handler.applyBackup(partitionId, spec.type, wire([...spec.args]) as WireValue[]);
      return v;
    });
  }
}

class FakeMembership implements QueueMembership {
  readonly members = new Set<string>(['me', 'other']);
  private listeners: ((uuids: readonly string[]) => void)[] = [];
  constructor(private readonly local = 'me') {}
  localUuid(): string {
    return this.local;
  }
  isMember(uuid: string): boolean {
    return this.members.has(uuid);
  }
  isOwner(): boolean {
    return true;
  }
  onMembersRemoved(fn: (uuids: readonly string[]) => void): () => void {
    this.listeners.push(fn);
    return () => undefined;
  }
  remove(uuid: string, announce = true): void {
    this.members.delete(uuid);
    if (announce) for (const l of this.listeners) l([uuid]);
  }
}

/** A poll client whose answer the test writes (or not) when it wants. */
class Client implements PollClient {
  live = true;
  private answered: ((written: boolean) => void) | undefined;
  private gone: (() => void) | undefined;
  alive(): boolean {
    return this.live;
  }
  onGone(fn: () => void): void {
    this.gone = fn;
  }
  onAnswered(fn: (written: boolean) => void): void {
    this.answered = fn;
  }
  written(): void {
    this.answered?.(true);
  }
  vanished(): void {
    this.live = false;
    this.gone?.();
    this.answered?.(false);
  }
}

function cluster(raw: unknown = {}): { owner: QueueService; backup: QueueService; invoker: ReplicatingInvoker; members: FakeMembership; clock: ManualClock } {
  const clock = new ManualClock();
  const invoker = new ReplicatingInvoker();
  const members = new FakeMembership();
  const config = configFromObject(raw).config;
  const logger = captureLogs().control.logger;
  const owner = new QueueService({ config, invoker, clock, logger, membership: members });
  const backup = new QueueService({ config, invoker: new ReplicatingInvoker(), clock, logger, membership: new FakeMembership() });
  invoker.owner = owner;
  invoker.backups = [backup];
  return { owner, backup, invoker, members, clock };
}

const item = (value: string): QueueItem => ({ value, contentType: undefined });

async function offerAll(svc: QueueService, q: string, values: readonly string[]): Promise<void> {
  for (const v of values) expect(await svc.offer(q, item(v))).toBe(true);
}

/** Polls (confirming each answer at once) until the queue is empty. */
async function drain(svc: QueueService, q: string): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const c = new Client();
    const it = await svc.poll(q, 0, c);
    if (it === undefined) return out;
    c.written();
    await flush();
    out.push(it.value);
  }
}

/** Both replicas' view of the queue: size and reserved count. */
async function counts(owner: QueueService, backup: QueueService, q: string): Promise<number[]> {
  return [await owner.size(q), owner.reservedCount(q), await backup.size(q), backup.reservedCount(q)];
}

describe('QueueService reservations', () => {
  it('a polled item stays reserved (not in size) on owner and backup until its answer is written', async () => {
    const { owner, backup } = cluster();
    await offerAll(owner, 'q', ['a', 'b']);
    const c = new Client();
    expect((await owner.poll('q', 0, c))?.value).toBe('a');
    expect(await counts(owner, backup, 'q')).toEqual([1, 1, 1, 1]);
    c.written();
    await flush();
    expect(await counts(owner, backup, 'q')).toEqual([1, 0, 1, 0]);
    expect(owner.reservationStats()).toMatchObject({ reserved: 1, confirmed: 1, released: 0 });
    expect(await drain(owner, 'q')).toEqual(['b']);
  });

  it('answers written in one turn are confirmed by one operation at its end, on owner and backup; one not written is released alone', async () => {
    const { owner, backup, invoker } = cluster();
    await offerAll(owner, 'q', ['a', 'b', 'c', 'd']);
    const clients = [new Client(), new Client(), new Client(), new Client()];
    const got: string[] = [];
    for (const c of clients) got.push((await owner.poll('q', 0, c))!.value);
    expect(got).toEqual(['a', 'b', 'c', 'd']);
    invoker.names.length = 0;
    clients[0]!.written();
    clients[1]!.written();
    clients[2]!.vanished();
    clients[3]!.written();
    // Nothing is confirmed before the turn ends; the release does not wait.
    expect(invoker.names).toEqual(['queue.release']);
    await flush();
    expect(invoker.names).toEqual(['queue.release', 'queue.confirm']);
    expect(owner.reservationStats()).toMatchObject({ reserved: 4, confirmed: 3, released: 1, lateConfirms: 0 });
    expect(await counts(owner, backup, 'q')).toEqual([1, 0, 1, 0]);
    expect(await drain(owner, 'q')).toEqual(['c']);
  });

  it('a member that stops confirms the answers written in its last turn', async () => {
    const { owner, invoker } = cluster();
    await offerAll(owner, 'q', ['a', 'b']);
    const c = new Client();
    expect((await owner.poll('q', 0, c))?.value).toBe('a');
    invoker.names.length = 0;
    c.written();
    owner.stop();
    expect(invoker.names).toEqual(['queue.confirm']);
    await flush();
    expect(owner.reservationStats()).toMatchObject({ confirmed: 1, released: 0 });
    expect(owner.reservedCount('q')).toBe(0);
  });

  it('an answer that was not written puts the item back at the head, in take order, on owner and backup', async () => {
    const { owner, backup } = cluster();
    await offerAll(owner, 'q', ['a', 'b', 'c']);
    const ca = new Client();
    const cb = new Client();
    await owner.poll('q', 0, ca);
    await owner.poll('q', 0, cb);
    cb.vanished();
    ca.vanished();
    await flush();
    expect(await counts(owner, backup, 'q')).toEqual([3, 0, 3, 0]);
    expect(owner.reservationStats().released).toBe(2);
    expect(await drain(backup, 'q')).toEqual(['a', 'b', 'c']);
    expect(await drain(owner, 'q')).toEqual(['a', 'b', 'c']);
  });

  it('an item handed straight to a waiting poll is reserved too, on the backup through the offer', async () => {
    const { owner, backup } = cluster();
    const c = new Client();
    const waiting = owner.poll('q', 10_000, c);
    await offerAll(owner, 'q', ['handed']);
    expect((await waiting)?.value).toBe('handed');
    expect(await counts(owner, backup, 'q')).toEqual([0, 1, 0, 1]);
    c.vanished(); // the client went before the answer was written
    await flush();
    // (The backup first: polls on the owner replicate to it.)
    expect(await drain(backup, 'q')).toEqual(['handed']);
    expect(await drain(owner, 'q')).toEqual(['handed']);
  });

  it('a returned item goes to a waiting poll first, and the backup follows it there', async () => {
    const { owner, backup } = cluster();
    await offerAll(owner, 'q', ['a']);
    const first = new Client();
    await owner.poll('q', 0, first);
    const second = new Client();
    const waiting = owner.poll('q', 10_000, second);
    first.vanished();
    expect((await waiting)?.value).toBe('a');
    expect(await counts(owner, backup, 'q')).toEqual([0, 1, 0, 1]);
    second.written();
    await flush();
    expect(await counts(owner, backup, 'q')).toEqual([0, 0, 0, 0]);
  });

  it('reservations of a member that leaves the list go back to the head (possible duplicates counted); the others stay', async () => {
    const { owner, backup, members } = cluster();
    await offerAll(owner, 'q', ['a', 'b', 'c', 'd']);
    const pid = partitionIdOf('q');
    // Polls forwarded by member `other` (as its invoker sends them), and one served here.
    const remote = (id: number): unknown => owner.handler.operation(pid, 'poll', ['q', 0, 'other', id], { alive: () => true, onGone: () => undefined }).run();
    const replicate = (op: Operation<unknown>, v: unknown): void => {
      const spec = op.backup?.(v);
      if (spec !== undefined) backup.handler.applyBackup(pid, spec.type, [...spec.args]);
    };
    for (const id of [1, 2]) {
      const op = owner.handler.operation(pid, 'poll', ['q', 0, 'other', id], { alive: () => true, onGone: () => undefined });
      replicate(op, op.run());
    }
    const mine = new Client();
    expect((await owner.poll('q', 0, mine))?.value).toBe('c');
    expect(await counts(owner, backup, 'q')).toEqual([1, 3, 1, 3]);
    // Sent again (its answer was lost): the same item, nothing more taken.
    expect(remote(1)).toEqual(item('a'));
    members.remove('other');
    await flush();
    expect(await counts(owner, backup, 'q')).toEqual([3, 1, 3, 1]);
    expect(owner.reservationStats().returnedForLeftMember).toBe(2);
    mine.written();
    await flush();
    expect(await drain(owner, 'q')).toEqual(['a', 'b', 'd']);
  });

  it('a release for a member that is still in the list is refused', async () => {
    const { owner } = cluster();
    await offerAll(owner, 'q', ['a']);
    const pid = partitionIdOf('q');
    owner.handler.operation(pid, 'poll', ['q', 0, 'other', 1], { alive: () => true, onGone: () => undefined }).run();
    expect(owner.handler.operation(pid, 'release', ['q', 'other', true], { alive: () => true, onGone: () => undefined }).run()).toBe(0);
    expect(owner.reservedCount('q')).toBe(1);
  });

  it('a holder missing from the list without a removal event is returned after two sweeps', async () => {
    const { owner, members, clock } = cluster();
    await offerAll(owner, 'q', ['a']);
    const pid = partitionIdOf('q');
    owner.handler.operation(pid, 'poll', ['q', 0, 'ghost', 1], { alive: () => true, onGone: () => undefined }).run();
    members.remove('ghost', false);
    clock.advance(1_000);
    await flush();
    expect(owner.reservedCount('q')).toBe(1);
    clock.advance(1_000);
    await flush();
    expect([owner.reservedCount('q'), await owner.size('q')]).toEqual([0, 1]);
  });

  it('reservations move with the partition (snapshot/install) and are returned there when their holder leaves', async () => {
    const { owner } = cluster();
    await offerAll(owner, 'q', ['a', 'b', 'c']);
    const pid = partitionIdOf('q');
    for (const id of [1, 2]) owner.handler.operation(pid, 'poll', ['q', 0, 'other', id], { alive: () => true, onGone: () => undefined }).run();
    const next = cluster();
    next.owner.replicaData.install(pid, wire(owner.replicaData.snapshot(pid, 0)!));
    expect([await next.owner.size('q'), next.owner.reservedCount('q')]).toEqual([1, 2]);
    // The holder confirms one at the new owner; then it dies.
    expect(next.owner.handler.operation(pid, 'confirm', ['q', 'other', 2], { alive: () => true, onGone: () => undefined }).run()).toBe(1);
    next.members.remove('other');
    await flush();
    expect(await drain(next.owner, 'q')).toEqual(['a', 'c']);
  });

  it('a confirm arriving after its reservation was returned is counted (the item was delivered twice)', async () => {
    const { owner, members } = cluster();
    await offerAll(owner, 'q', ['a']);
    const pid = partitionIdOf('q');
    owner.handler.operation(pid, 'poll', ['q', 0, 'other', 1], { alive: () => true, onGone: () => undefined }).run();
    members.remove('other');
    await flush();
    expect(owner.handler.operation(pid, 'confirm', ['q', 'other', 1], { alive: () => true, onGone: () => undefined }).run()).toBe(0);
    expect(owner.reservationStats()).toMatchObject({ returnedForLeftMember: 1, lateConfirms: 1 });
  });

  it('a confirm that cannot reach the owner is tried again until it does', async () => {
    const { owner, invoker, clock } = cluster();
    await offerAll(owner, 'q', ['a']);
    const c = new Client();
    await owner.poll('q', 0, c);
    let refuse = 2;
    const real = invoker.invoke.bind(invoker);
    invoker.invoke = <T>(pid: number, op: Operation<T>): Promise<T> => (op.name === 'queue.confirm' && refuse-- > 0 ? Promise.reject(new Error('owner unreachable')) : real(pid, op));
    c.written();
    for (let i = 0; i < 4; i++) {
      await flush();
      clock.advance(1_000);
    }
    await flush();
    expect(owner.reservedCount('q')).toBe(0);
    expect(owner.reservationStats().confirmed).toBe(1);
  });

  it('a queue with reserved items is not destroyed by empty-queue-ttl', async () => {
    const { owner, clock } = cluster({ queue: { t: { 'empty-queue-ttl': 1 } } });
    await offerAll(owner, 't', ['a']);
    const c = new Client();
    await owner.poll('t', 0, c);
    clock.advance(5_000);
    await flush();
    expect(owner.reservedCount('t')).toBe(1);
    c.vanished();
    await flush();
    expect(await drain(owner, 't')).toEqual(['a']);
  });
});
