// Queue change events at the owner (queue-events.ts) through a real QueueService: which
// operations make which event, that an unwritten poll makes none, that unlistened queues and
// non-owners make none, and that a migration carries the sequence while a promotion starts a
// new epoch.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { QueueService, type PollClient, type QueueChangeEvent, type QueueItem } from '../../../src/queue/queue-service.js';
import { QueueEventSource } from '../../../src/queue/queue-events.js';
import { queuePartitionIdOf } from '../../../src/partition/partitioning.js';
import { captureLogs, flush, RecordingInvoker } from '../core/fakes.js';

const item = (value: string): QueueItem => ({ value, contentType: 'text/plain' });

/** A poll client whose answer is written (or not) when the test says. */
class Client implements PollClient {
  private answered: ((written: boolean) => void) | undefined;
  alive = (): boolean => true;
  onGone(): void {}
  onAnswered(fn: (written: boolean) => void): void {
    this.answered = fn;
  }
  written(ok: boolean): void {
    this.answered?.(ok);
  }
}

function setup(): { svc: QueueService; events: QueueChangeEvent[]; version: { v: number } } {
  const svc = new QueueService({ config: configFromObject({}).config, invoker: new RecordingInvoker(), clock: new ManualClock(), logger: captureLogs().control.logger });
  const events: QueueChangeEvent[] = [];
  const version = { v: 7 };
  svc.events.attach({ publish: (e) => events.push(e), tableVersion: () => version.v });
  return { svc, events, version };
}

const shape = (events: readonly QueueChangeEvent[]): (string | number | undefined)[][] => events.map((e) => [e.type, e.item?.value ?? e.count, e.sequence]);

describe('queue change events at the owner', () => {
  it('offers, written polls, drains, removes and clears make events; an unwritten poll makes none', async () => {
    const { svc, events } = setup();
    svc.events.setListened(new Set(['q']));
    for (const v of ['a', 'b', 'c', 'd', 'e']) await svc.offer('q', item(v));
    const written = new Client();
    expect(await svc.poll('q', 0, written)).toEqual(item('a'));
    written.written(true);
    // Confirms go to the owner once per turn: the removed event follows then.
    await flush();
    const lost = new Client();
    expect(await svc.poll('q', 0, lost)).toEqual(item('b'));
    lost.written(false);
    const drainer = new Client();
    expect(await svc.drain('q', 1, drainer)).toEqual([item('b')]);
    drainer.written(true);
    await flush();
    expect(await svc.remove('q', item('d'))).toBe(true);
    expect(await svc.addAll('q', [item('f')])).toBe(true);
    expect(await svc.clear('q')).toBe(3);
    // Nothing left to clear: no event.
    expect(await svc.clear('q')).toBe(0);
    await flush();
    expect(shape(events)).toEqual([
      ['added', 'a', 1], ['added', 'b', 2], ['added', 'c', 3], ['added', 'd', 4], ['added', 'e', 5],
      ['removed', 'a', 6], ['removed', 'b', 7], ['removed', 'd', 8], ['added', 'f', 9], ['cleared', 3, 10],
    ]);
    expect(events.every((e) => e.partitionId === queuePartitionIdOf('q') && e.epoch === 7 && e.queueName === 'q')).toBe(true);
  });

  it('an item handed to a waiting poll is added, then removed once the answer is written', async () => {
    const { svc, events } = setup();
    svc.events.setListened(new Set(['w']));
    const c = new Client();
    const waiting = svc.poll('w', 10_000, c);
    await svc.offer('w', item('x'));
    expect(await waiting).toEqual(item('x'));
    expect(shape(events)).toEqual([['added', 'x', 1]]);
    c.written(true);
    await flush();
    expect(shape(events)).toEqual([['added', 'x', 1], ['removed', 'x', 2]]);
  });

  it('queues nobody listens to make no event', async () => {
    const { svc, events } = setup();
    svc.events.setListened(new Set(['other']));
    await svc.offer('quiet', item('a'));
    await svc.clear('quiet');
    expect(events).toEqual([]);
  });

  it('a non-owner makes none; a migration hands the sequence on, a promotion starts a new epoch', () => {
    let owner = true;
    const published: QueueChangeEvent[] = [];
    let version = 3;
    const bus = { publish: (e: QueueChangeEvent) => published.push(e), tableVersion: () => version };
    const from = new QueueEventSource(() => owner, queuePartitionIdOf);
    const to = new QueueEventSource(() => true, queuePartitionIdOf);
    for (const s of [from, to]) {
      s.attach(bus);
      s.setListened(new Set(['m']));
    }
    const pid = queuePartitionIdOf('m');
    from.added('m', pid, item('a'));
    from.added('m', pid, item('b'));
    owner = false;
    from.added('m', pid, item('ignored'));
    expect(published.map((e) => [e.epoch, e.sequence])).toEqual([[3, 1], [3, 2]]);
    // Migration: the owner's snapshot installed at the new owner, taken when it gains ownership.
    to.replicaData.install(pid, from.replicaData.snapshot(pid, 0));
    to.replicaData.ownershipGained!(pid);
    version = 9;
    to.removed('m', pid, item('a'));
    expect(published.at(-1)).toMatchObject({ epoch: 3, sequence: 3 });
    // A backup promoted without a copy: a new epoch from the table version.
    const promoted = new QueueEventSource(() => true, queuePartitionIdOf);
    promoted.attach(bus);
    promoted.setListened(new Set(['m']));
    expect(from.replicaData.snapshot(pid, 1)).toBeUndefined();
    promoted.replicaData.ownershipGained!(pid);
    promoted.removed('m', pid, item('b'));
    expect(published.at(-1)).toMatchObject({ epoch: 9, sequence: 1 });
  });
});
