import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { DEFAULT_WAN_PUBLISHER } from '../../../src/config/defaults.js';
import { WanEventQueue, type WanEventQueueOptions } from '../../../src/wan/event-queue.js';
import type { MapWanEvent } from '../../../src/protocol/wan-payloads.js';
import { prng } from '../../support/prng.js';

const T0 = 1_700_000_000_000;
const put = (key: string, value = 'v'): MapWanEvent => ({
  kind: 'put',
  mapName: 'm',
  key,
  value,
  contentType: 'text/plain',
  ttlRemainingMs: undefined,
  originClusters: ['src'],
});
const remove = (key: string): MapWanEvent => ({ kind: 'remove', mapName: 'm', key, originClusters: ['src'] });

function queue(over: Partial<WanEventQueueOptions> = {}): WanEventQueue {
  return new WanEventQueue({ capacity: 3, queueFullBehavior: 'DISCARD_AFTER_MUTATION', initialState: 'REPLICATING', name: 'rep/pub', ...over });
}

/** admit + commit as a map operation does it; returns what the caller would see. */
function write(q: WanEventQueue, partitionId: number, payload: MapWanEvent, now = T0): 'queued' | 'dropped' | 'refused' {
  const a = q.admit(partitionId);
  if (a.outcome === 'refuse') return 'refused';
  return q.commit(a.ticket, payload, now) ? 'queued' : 'dropped';
}

describe('WanEventQueue: events', () => {
  it('Grid parses Hazelcast’s defaults: queue-capacity 10000, DISCARD_AFTER_MUTATION, REPLICATING', () => {
    expect(DEFAULT_WAN_PUBLISHER.queueCapacity).toBe(10000);
    expect(DEFAULT_WAN_PUBLISHER.queueFullBehavior).toBe('DISCARD_AFTER_MUTATION');
    expect(DEFAULT_WAN_PUBLISHER.initialPublisherState).toBe('REPLICATING');
  });

  it('queues per partition in commit order with per-partition sequences and the commit time', () => {
    const q = queue({ capacity: 10 });
    write(q, 5, put('a', 'x\u00ff'), T0);
    write(q, 7, remove('b'), T0 + 1);
    write(q, 5, remove('a'), T0 + 2);
    expect(q.size).toBe(3);
    expect(q.partitionsWithEvents()).toEqual([5, 7]);
    expect(q.events(5)).toEqual([
      { ...put('a', 'x\u00ff'), partitionId: 5, sequence: 1, enqueuedAtMs: T0 },
      { ...remove('a'), partitionId: 5, sequence: 2, enqueuedAtMs: T0 + 2 },
    ]);
    expect(q.events(7).map((e) => [e.kind, e.sequence])).toEqual([['remove', 1]]);
    expect(q.peek(5, 1).map((e) => e.sequence)).toEqual([1]);
    expect(q.peek(5, 0)).toEqual([]);
    expect(q.peek(99, 10)).toEqual([]);
    expect(q.sizeOf(5)).toBe(2);
    expect(q.stats().queued).toBe(3);
  });

  it('the order of commits decides sequences, not the order of admits', () => {
    const q = queue({ capacity: 10 });
    const a = q.admit(1);
    const b = q.admit(1);
    if (a.outcome !== 'enqueue' || b.outcome !== 'enqueue') throw new Error('expected places');
    q.commit(b.ticket, put('second-admitted'), T0);
    q.commit(a.ticket, put('first-admitted'), T0);
    expect(q.events(1).map((e) => [e.key, e.sequence])).toEqual([
      ['second-admitted', 1],
      ['first-admitted', 2],
    ]);
  });

  it('acknowledge removes a prefix and counts; a stale epoch removes nothing', () => {
    const q = queue({ capacity: 10 });
    for (let i = 0; i < 4; i++) write(q, 1, put(`k${i}`));
    const epoch = q.epochOf(1);
    expect(q.acknowledge(1, 2, epoch)).toBe(2);
    expect(q.events(1).map((e) => e.sequence)).toEqual([3, 4]);
    expect(q.acknowledge(1, 2, epoch)).toBe(0); // again: nothing left at or below 2
    expect(q.acknowledge(1, 4, epoch + 1000)).toBe(0); // a different queue identity
    expect(q.acknowledge(42, 4, epoch)).toBe(0);
    expect(q.size).toBe(2);
    expect(q.stats().acknowledged).toBe(2);
  });

  it('lagMs is the age of the oldest primary event', () => {
    const q = queue({ capacity: 10 });
    expect(q.lagMs(T0)).toBe(0);
    write(q, 2, put('a'), T0 + 10);
    write(q, 1, put('b'), T0 + 20);
    expect(q.lagMs(T0 + 110)).toBe(100);
    q.acknowledge(2, 1, q.epochOf(2));
    expect(q.lagMs(T0 + 110)).toBe(90);
  });

  it('a ticket settles once', () => {
    const q = queue();
    const a = q.admit(0);
    if (a.outcome === 'refuse') throw new Error('unexpected');
    q.cancel(a.ticket);
    expect(() => q.commit(a.ticket, put('x'), T0)).toThrow(GridError);
    expect(() => q.cancel(a.ticket)).toThrow(GridError);
  });

  it('refuses a capacity that is not a non-negative integer', () => {
    expect(() => queue({ capacity: -1 })).toThrow(GridError);
    expect(() => queue({ capacity: 1.5 })).toThrow(GridError);
  });
});

describe('WanEventQueue: capacity is per member, shared by partitions, reserved at admit', () => {
  it('DISCARD_AFTER_MUTATION: the write goes ahead, the event is dropped and counted', () => {
    const q = queue({ capacity: 3 });
    expect([write(q, 1, put('a')), write(q, 2, put('b')), write(q, 3, put('c'))]).toEqual(['queued', 'queued', 'queued']);
    expect(q.isFull()).toBe(true);
    expect(write(q, 4, put('d'))).toBe('dropped');
    expect(write(q, 1, put('e'))).toBe('dropped');
    expect(q.size).toBe(3);
    expect(q.stats()).toMatchObject({ queued: 3, dropped: 2, refused: 0 });
    q.acknowledge(1, 1, q.epochOf(1));
    expect(write(q, 4, put('f'))).toBe('queued');
    expect(q.size).toBe(3);
  });

  it('THROW_EXCEPTION: refused before the write with QUEUE_FULL, whatever the state', () => {
    for (const state of ['REPLICATING', 'PAUSED'] as const) {
      const q = queue({ capacity: 2, queueFullBehavior: 'THROW_EXCEPTION', initialState: state });
      write(q, 1, put('a'));
      write(q, 1, put('b'));
      const a = q.admit(1);
      expect(a.outcome).toBe('refuse');
      if (a.outcome !== 'refuse') continue;
      expect(a.error.code).toBe('QUEUE_FULL');
      expect(a.error.message).toContain('rep/pub');
      expect(q.stats()).toMatchObject({ queued: 2, dropped: 0, refused: 1 });
      expect(q.size).toBe(2);
    }
  });

  it('THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE: refuses while REPLICATING, drops while PAUSED', () => {
    const q = queue({ capacity: 1, queueFullBehavior: 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE' });
    expect(write(q, 1, put('a'))).toBe('queued');
    expect(write(q, 1, put('b'))).toBe('refused');
    q.setState('PAUSED');
    expect(write(q, 1, put('c'))).toBe('dropped');
    q.setState('STOPPED');
    expect(write(q, 1, put('d'))).toBe('dropped');
    expect(q.stats()).toMatchObject({ queued: 1, refused: 1, dropped: 1, droppedWhileStopped: 1 });
  });

  it('reserved places count: admitted writes are never dropped by writes that finish first', () => {
    const q = queue({ capacity: 2, queueFullBehavior: 'THROW_EXCEPTION' });
    const a = q.admit(1);
    const b = q.admit(2);
    expect(q.admit(3).outcome).toBe('refuse'); // both places reserved, nothing queued yet
    expect(q.stats().reserved).toBe(2);
    if (a.outcome !== 'enqueue' || b.outcome !== 'enqueue') throw new Error('expected places');
    q.cancel(b.ticket); // the write failed: its place comes back
    expect(q.stats().reserved).toBe(1);
    const c = q.admit(3);
    expect(c.outcome).toBe('enqueue');
    if (c.outcome !== 'enqueue') return;
    expect(q.commit(c.ticket, put('c'), T0)).toBeDefined();
    expect(q.commit(a.ticket, put('a'), T0)).toBeDefined();
    expect(q.size).toBe(2);
    expect(q.stats()).toMatchObject({ reserved: 0, queued: 2, refused: 1 });
  });

  it('offer (write already applied) never refuses: a full queue drops whatever the behaviour', () => {
    const q = queue({ capacity: 1, queueFullBehavior: 'THROW_EXCEPTION' });
    expect(q.offer(1, put('a'), T0)?.sequence).toBe(1);
    expect(q.offer(1, put('b'), T0)).toBeUndefined();
    expect(q.stats()).toMatchObject({ queued: 1, dropped: 1, refused: 0 });
  });

  it('capacity 0 queues nothing', () => {
    expect(write(queue({ capacity: 0 }), 1, put('a'))).toBe('dropped');
    expect(write(queue({ capacity: 0, queueFullBehavior: 'THROW_EXCEPTION' }), 1, put('a'))).toBe('refused');
  });

  it('randomized: the queue never holds more than capacity, and every admission is accounted for', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = prng(seed);
      const behaviors = ['DISCARD_AFTER_MUTATION', 'THROW_EXCEPTION', 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE'] as const;
      const behavior = behaviors[seed % 3] as (typeof behaviors)[number];
      const capacity = 1 + Math.floor(rnd() * 20);
      const q = queue({ capacity, queueFullBehavior: behavior });
      const open: { ticket: Parameters<WanEventQueue['cancel']>[0]; place: boolean; stopped: boolean }[] = [];
      const expected = { queued: 0, dropped: 0, droppedWhileStopped: 0, refused: 0 };
      let acked = 0;
      for (let i = 0; i < 2000; i++) {
        const r = rnd();
        if (r < 0.4) {
          const state = q.state;
          const wasFull = q.isFull();
          const a = q.admit(Math.floor(rnd() * 8));
          if (state === 'STOPPED') expect(a.outcome).toBe('drop');
          else if (!wasFull) expect(a.outcome).toBe('enqueue');
          else if (behavior === 'THROW_EXCEPTION' || (behavior !== 'DISCARD_AFTER_MUTATION' && state === 'REPLICATING')) expect(a.outcome).toBe('refuse');
          else expect(a.outcome).toBe('drop');
          if (a.outcome === 'refuse') expected.refused++;
          else open.push({ ticket: a.ticket, place: a.outcome === 'enqueue', stopped: a.outcome === 'drop' && a.reason === 'STOPPED' });
        } else if (r < 0.75 && open.length > 0) {
          const [t] = open.splice(Math.floor(rnd() * open.length), 1);
          if (!t) continue;
          if (rnd() < 0.1) q.cancel(t.ticket);
          else {
            const e = q.commit(t.ticket, put(`k${i}`), T0 + i);
            if (e) expected.queued++;
            else if (q.state === 'STOPPED' || t.stopped) expected.droppedWhileStopped++;
            else expected.dropped++;
            expect(e !== undefined).toBe(t.place && q.state !== 'STOPPED');
          }
        } else if (r < 0.9) {
          const ps = q.partitionsWithEvents();
          const p = ps[Math.floor(rnd() * ps.length)];
          if (p !== undefined) {
            const first = q.peek(p, 1 + Math.floor(rnd() * 3));
            const last = first[first.length - 1];
            if (last) acked += q.acknowledge(p, last.sequence, q.epochOf(p));
          }
        } else if (r < 0.97) {
          q.setState((['REPLICATING', 'PAUSED', 'STOPPED'] as const)[Math.floor(rnd() * 3)] ?? 'REPLICATING');
        } else {
          q.clear();
        }
        const s = q.stats();
        expect(s.primarySize + s.reserved).toBeLessThanOrEqual(capacity);
        expect(s.primarySize).toBe(q.partitionsWithEvents().reduce((n, p) => n + q.sizeOf(p), 0));
        expect(s.reserved).toBe(open.filter((t) => t.place).length);
        expect(s).toMatchObject(expected);
        expect(s.acknowledged).toBe(acked);
        expect(s.queued).toBe(s.primarySize + s.acknowledged + s.cleared);
      }
    }
  });
});

describe('WanEventQueue: publisher state', () => {
  it('STOPPED drops new events (counted apart); PAUSED queues; queued events stay in every state', () => {
    const q = queue({ capacity: 10, initialState: 'STOPPED' });
    expect(write(q, 1, put('a'))).toBe('dropped');
    q.setState('PAUSED');
    expect(write(q, 1, put('b'))).toBe('queued');
    q.setState('STOPPED');
    expect(q.size).toBe(1);
    expect(q.stats()).toMatchObject({ droppedWhileStopped: 1, dropped: 0, queued: 1, state: 'STOPPED' });
  });

  it('a publisher stopped between admit and commit drops the event and frees the place', () => {
    const q = queue({ capacity: 1 });
    const a = q.admit(1);
    if (a.outcome !== 'enqueue') throw new Error('expected a place');
    q.setState('STOPPED');
    expect(q.commit(a.ticket, put('a'), T0)).toBeUndefined();
    expect(q.stats()).toMatchObject({ reserved: 0, droppedWhileStopped: 1, primarySize: 0 });
  });

  it('clear empties primary and backup queues of this member; sequences go on', () => {
    const q = queue({ capacity: 10 });
    write(q, 1, put('a'));
    write(q, 1, put('b'));
    q.pushBackup({ ...put('x'), partitionId: 2, sequence: 7, enqueuedAtMs: T0 });
    expect(q.clear()).toBe(3);
    expect(q.size).toBe(0);
    expect(q.backupSize).toBe(0);
    expect(q.partitionsWithEvents()).toEqual([]);
    expect(q.stats().cleared).toBe(3);
    write(q, 1, put('c'));
    expect(q.events(1).map((e) => e.sequence)).toEqual([3]);
  });
});

describe('WanEventQueue: backups, migration, promotion', () => {
  it('snapshot and install move a partition with its next sequence; the old epoch no longer acknowledges', () => {
    const a = queue({ capacity: 10 });
    write(a, 9, put('a'));
    write(a, 9, put('b'));
    a.acknowledge(9, 1, a.epochOf(9));
    const snap = a.snapshot(9);
    expect(snap).toMatchObject({ partitionId: 9, nextSequence: 3 });
    expect(snap.events.map((e) => e.sequence)).toEqual([2]);
    expect(a.removePartition(9)).toBe(1);
    expect(a.size).toBe(0);

    const b = queue({ capacity: 10 });
    b.install(snap);
    expect(b.size).toBe(1);
    write(b, 9, put('c'));
    expect(b.events(9).map((e) => e.sequence)).toEqual([2, 3]);
    const before = b.epochOf(9);
    b.install(b.snapshot(9)); // same content, new identity
    expect(b.acknowledge(9, 3, before)).toBe(0);
    expect(b.acknowledge(9, 3, b.epochOf(9))).toBe(2);
  });

  it('an empty snapshot of an unknown partition starts at sequence 1', () => {
    expect(queue().snapshot(3)).toEqual({ partitionId: 3, nextSequence: 1, events: [] });
  });

  it('install never drops, even above capacity; admission then follows the full behaviour', () => {
    const src = queue({ capacity: 10 });
    for (let i = 0; i < 5; i++) write(src, 1, put(`k${i}`));
    const dst = queue({ capacity: 3, queueFullBehavior: 'THROW_EXCEPTION' });
    dst.install(src.snapshot(1));
    expect(dst.size).toBe(5);
    expect(write(dst, 2, put('x'))).toBe('refused');
  });

  it('backups: copies of the owner’s events, acknowledged by sequence, capped at capacity with drops counted', () => {
    const owner = queue({ capacity: 10 });
    const backup = queue({ capacity: 2 });
    for (let i = 0; i < 3; i++) {
      const e = owner.offer(4, put(`k${i}`), T0);
      if (e) backup.pushBackup(e);
    }
    expect(backup.backupSize).toBe(2);
    expect(backup.size).toBe(0);
    expect(backup.stats().backupDropped).toBe(1);
    expect(backup.events(4, 'backup').map((e) => e.sequence)).toEqual([1, 2]);
    expect(backup.acknowledgeBackup(4, 1)).toBe(1);
    expect(backup.acknowledgeBackup(5, 1)).toBe(0);
    expect(backup.sizeOf(4, 'backup')).toBe(1);
    expect(backup.snapshot(4, 'backup').nextSequence).toBe(4); // the dropped event's sequence is not reused
  });

  it('promote: the backup becomes the primary and sequences continue after the owner’s', () => {
    const owner = queue({ capacity: 10 });
    const backup = queue({ capacity: 10 });
    for (let i = 0; i < 3; i++) {
      const e = owner.offer(4, put(`k${i}`), T0);
      if (e) backup.pushBackup(e);
    }
    backup.acknowledgeBackup(4, 1);
    backup.promote(4);
    expect(backup.size).toBe(2);
    expect(backup.backupSize).toBe(0);
    write(backup, 4, put('after'));
    expect(backup.events(4).map((e) => e.sequence)).toEqual([2, 3, 4]);
  });

  it('promote without a backup replica keeps an existing primary; demote turns the primary into a backup', () => {
    const q = queue({ capacity: 10 });
    write(q, 1, put('a'));
    q.promote(1);
    expect(q.events(1).map((e) => e.key)).toEqual(['a']);
    q.demote(1);
    expect(q.size).toBe(0);
    expect(q.backupSize).toBe(1);
    expect(q.events(1, 'backup').map((e) => e.key)).toEqual(['a']);
    q.promote(1);
    expect(q.size).toBe(1);
    write(q, 1, put('b'));
    expect(q.events(1).map((e) => e.sequence)).toEqual([1, 2]);
  });

  it('install replaces a backup replica and keeps the totals right', () => {
    const q = queue({ capacity: 10 });
    q.pushBackup({ ...put('old'), partitionId: 1, sequence: 1, enqueuedAtMs: T0 });
    q.install({ partitionId: 1, nextSequence: 10, events: [{ ...put('new'), partitionId: 1, sequence: 9, enqueuedAtMs: T0 }] }, 'backup');
    expect(q.backupSize).toBe(1);
    expect(q.events(1, 'backup').map((e) => e.key)).toEqual(['new']);
    expect(q.removePartition(1, 'backup')).toBe(1);
    expect(q.backupSize).toBe(0);
  });
});
