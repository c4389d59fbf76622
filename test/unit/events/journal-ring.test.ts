import { describe, expect, it } from 'vitest';
import { JournalRing, type JournalEntry, type JournalRead } from '../../../src/events/journal-ring.js';
import type { MapChangeEvent } from '../../../src/map/map-service.js';

function entry(epoch: number, sequence: number, atMs = sequence * 10): JournalEntry {
  const event: MapChangeEvent = { mapName: 'm', partitionId: 7, epoch, sequence, type: 'updated', key: `k${sequence}`, oldValue: undefined, newValue: undefined, count: 1 };
  return { event, atMs };
}

const seqs = (r: JournalRead): number[] | string => (r.ok ? r.entries.map((e) => e.event.sequence) : r.reason);

describe('JournalRing', () => {
  it('keeps the newest `capacity` events and answers readers after any of them', () => {
    const r = new JournalRing(3);
    expect(r.read({ after: { epoch: 1, sequence: 0 } }, 10)).toMatchObject({ ok: false, reason: 'lost' });
    for (let s = 1; s <= 5; s++) expect(r.append(entry(1, s))).toBe('appended');
    expect(r.size).toBe(3);
    expect(r.head()).toEqual({ epoch: 1, sequence: 5 });
    expect(seqs(r.read({ after: { epoch: 1, sequence: 2 } }, 10))).toEqual([3, 4, 5]);
    expect(seqs(r.read({ after: { epoch: 1, sequence: 3 } }, 10))).toEqual([4, 5]);
    expect(seqs(r.read({ after: { epoch: 1, sequence: 5 } }, 10))).toEqual([]);
    // Event 1 was overwritten: a reader that saw only it cannot go on.
    expect(r.read({ after: { epoch: 1, sequence: 1 } }, 10)).toEqual({ ok: false, reason: 'overwritten', head: { epoch: 1, sequence: 5 } });
    // Beyond the head: the reader saw an event this journal never had.
    expect(seqs(r.read({ after: { epoch: 1, sequence: 9 } }, 10))).toBe('lost');
    // Pages.
    expect(r.read({ after: { epoch: 1, sequence: 2 } }, 2)).toMatchObject({ ok: true, more: true });
    expect(seqs(r.read({ after: { epoch: 1, sequence: 2 } }, 2))).toEqual([3, 4]);
  });

  it('wraps many times without losing order', () => {
    const r = new JournalRing(7);
    for (let s = 1; s <= 100; s++) r.append(entry(1, s));
    expect(r.entries().map((e) => e.event.sequence)).toEqual([94, 95, 96, 97, 98, 99, 100]);
    for (let s = 93; s <= 100; s++) expect(seqs(r.read({ after: { epoch: 1, sequence: s } }, 100))).toEqual(Array.from({ length: 100 - s }, (_, i) => s + 1 + i));
    expect(seqs(r.read({ after: { epoch: 1, sequence: 92 } }, 100))).toBe('overwritten');
  });

  it('ignores appends that come twice or from an older term', () => {
    const r = new JournalRing(10);
    r.append(entry(2, 1));
    r.append(entry(2, 2));
    expect(r.append(entry(2, 2))).toBe('duplicate');
    expect(r.append(entry(2, 1))).toBe('duplicate');
    expect(r.append(entry(1, 3))).toBe('stale');
    expect(r.entries().map((e) => [e.event.epoch, e.event.sequence])).toEqual([[2, 1], [2, 2]]);
  });

  it("cuts off a dead owner's events that its successor never had, so the same number from two terms never leads a reader on", () => {
    const r = new JournalRing(10);
    for (let s = 1; s <= 5; s++) r.append(entry(1, s));
    // The new owner had events up to 3 and goes on at 4 in its own term.
    expect(r.append(entry(2, 4))).toBe('appended');
    expect(r.entries().map((e) => [e.event.epoch, e.event.sequence])).toEqual([[1, 1], [1, 2], [1, 3], [2, 4]]);
    // A reader that saw (1, 3) goes on with the new term; one that saw the dead owner's (1, 4) or (1, 5) is told.
    expect(seqs(r.read({ after: { epoch: 1, sequence: 3 } }, 10))).toEqual([4]);
    expect(seqs(r.read({ after: { epoch: 1, sequence: 4 } }, 10))).toBe('lost');
    expect(seqs(r.read({ after: { epoch: 1, sequence: 5 } }, 10))).toBe('lost');
    expect(seqs(r.read({ after: { epoch: 2, sequence: 4 } }, 10))).toEqual([]);
  });

  it('does not lead a reader across a hole (an append that never came)', () => {
    const r = new JournalRing(10);
    r.append(entry(1, 1));
    r.append(entry(1, 2));
    r.append(entry(1, 5));
    expect(seqs(r.read({ after: { epoch: 1, sequence: 2 } }, 10))).toBe('lost');
    expect(seqs(r.read({ after: { epoch: 1, sequence: 4 } }, 10))).toEqual([5]);
    // A new term that starts beyond the head is a hole too.
    r.append(entry(3, 9));
    expect(seqs(r.read({ after: { epoch: 1, sequence: 5 } }, 10))).toBe('lost');
    expect(seqs(r.read({ after: { epoch: 3, sequence: 8 } }, 10))).toEqual([9]);
  });

  it('answers a reader that knows only its start time, and says when events since then are gone', () => {
    const r = new JournalRing(3);
    for (let s = 1; s <= 3; s++) r.append(entry(1, s, s * 10));
    expect(seqs(r.read({ sinceMs: 0 }, 10))).toEqual([1, 2, 3]);
    expect(seqs(r.read({ sinceMs: 20 }, 10))).toEqual([2, 3]);
    expect(seqs(r.read({ sinceMs: 21 }, 10))).toEqual([3]);
    expect(seqs(r.read({ sinceMs: 31 }, 10))).toEqual([]);
    r.append(entry(1, 4, 40));
    // Event 1 (at 10) was overwritten: a reader since 10 or before misses it, one since 11 does not.
    expect(seqs(r.read({ sinceMs: 10 }, 10))).toBe('overwritten');
    expect(seqs(r.read({ sinceMs: 11 }, 10))).toEqual([2, 3, 4]);
    // A journal that started without the history cannot answer for times before it.
    const fresh = new JournalRing(3, 500);
    expect(seqs(fresh.read({ sinceMs: 499 }, 10))).toBe('lost');
    expect(seqs(fresh.read({ sinceMs: 500 }, 10))).toEqual([]);
  });

  it('keeps times from going down, so a reader by time never skips an event', () => {
    const r = new JournalRing(5);
    r.append(entry(1, 1, 100));
    r.append(entry(2, 2, 90)); // a new owner whose clock is behind
    expect(r.entries().map((e) => e.atMs)).toEqual([100, 100]);
    expect(seqs(r.read({ sinceMs: 95 }, 10))).toEqual([1, 2]);
  });

  it('lets events expire after the time-to-live', () => {
    const r = new JournalRing(10);
    for (let s = 1; s <= 4; s++) r.append(entry(1, s, s * 10));
    r.expire(35, 0);
    expect(r.size).toBe(4);
    r.expire(35, 10); // 10, 20 and exactly 25 old are gone
    expect(r.entries().map((e) => e.event.sequence)).toEqual([3, 4]);
    expect(seqs(r.read({ after: { epoch: 1, sequence: 1 } }, 10))).toBe('expired');
    expect(seqs(r.read({ after: { epoch: 1, sequence: 2 } }, 10))).toEqual([3, 4]);
    r.expire(100, 10);
    expect(r.size).toBe(0);
    expect(r.head()).toEqual({ epoch: 1, sequence: 4 });
    expect(seqs(r.read({ after: { epoch: 1, sequence: 4 } }, 10))).toEqual([]);
    expect(seqs(r.read({ after: { epoch: 1, sequence: 3 } }, 10))).toBe('expired');
    expect(seqs(r.read({ sinceMs: 40 }, 10))).toBe('expired');
    expect(seqs(r.read({ sinceMs: 41 }, 10))).toEqual([]);
    // The next event follows on.
    r.append(entry(1, 5, 110));
    expect(seqs(r.read({ after: { epoch: 1, sequence: 4 } }, 10))).toEqual([5]);
  });

  it('is copied whole to a replica, capacity and position of what it let go included', () => {
    const r = new JournalRing(4, 7);
    for (let s = 1; s <= 6; s++) r.append(entry(1, s));
    const copy = JournalRing.restore(4, r.completeSinceMs, r.lastDropped(), r.entries());
    for (const from of [1, 2, 3, 6]) expect(copy.read({ after: { epoch: 1, sequence: from } }, 10)).toEqual(r.read({ after: { epoch: 1, sequence: from } }, 10));
    // A smaller capacity on the receiver keeps the newest.
    const small = JournalRing.restore(2, 0, undefined, r.entries());
    expect(small.entries().map((e) => e.event.sequence)).toEqual([5, 6]);
    expect(seqs(small.read({ after: { epoch: 1, sequence: 4 } }, 10))).toEqual([5, 6]);
    expect(seqs(small.read({ after: { epoch: 1, sequence: 3 } }, 10))).toBe('overwritten');
  });

  it('matches a model under random appends, duplicates and reads', () => {
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 50; round++) {
      const cap = 1 + rnd(8);
      const r = new JournalRing(cap);
      const all: number[] = [];
      let s = 0;
      for (let i = 0; i < 60; i++) {
        if (rnd(4) === 0 && s > 0) {
          expect(r.append(entry(1, 1 + rnd(s)))).toBe('duplicate');
          continue;
        }
        s++;
        all.push(s);
        r.append(entry(1, s));
        const from = rnd(s + 1);
        const res = r.read({ after: { epoch: 1, sequence: from } }, 1000);
        const kept = all.slice(-cap);
        if (from >= kept[0]! - 1) expect(seqs(res)).toEqual(kept.filter((x) => x > from));
        else expect(seqs(res)).toBe('overwritten');
      }
    }
  });
});
