import { describe, expect, it } from 'vitest';
import { QueueContainer, type ContainerState, type Holder, type PollWaiter, type QueueItem, type Reservation, type WaiterHandle } from '../../../src/queue/queue-container.js';

const item = (value: string, contentType?: string): QueueItem => ({ value, contentType });
const values = (items: readonly (QueueItem | undefined)[]): (string | undefined)[] => items.map((i) => i?.value);

/** A waiter that records what it was given; `accept` decides whether it takes the item. */
class TestWaiter implements PollWaiter {
  readonly got: QueueItem[] = [];
  offered = 0;
  constructor(public accept = true) {}
  deliver(i: QueueItem): boolean {
    this.offered++;
    if (!this.accept) return false;
    this.got.push(i);
    return true;
  }
}

function drain(q: QueueContainer): string[] {
  const out: string[] = [];
  for (let i = q.poll(); i !== undefined; i = q.poll()) out.push(i.value);
  return out;
}

describe('QueueContainer: items', () => {
  it('is FIFO', () => {
    const q = new QueueContainer(0);
    for (const v of ['a', 'b', 'c']) expect(q.offer(item(v))).toBe(true);
    expect(q.size).toBe(3);
    expect(q.peek()?.value).toBe('a');
    expect(q.poll()?.value).toBe('a');
    expect(q.offer(item('d'))).toBe(true);
    expect(drain(q)).toEqual(['b', 'c', 'd']);
    expect(q.size).toBe(0);
    expect(q.poll()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
  });

  it('keeps the content type with the item', () => {
    const q = new QueueContainer(0);
    q.offer(item('x', 'text/plain; charset=utf-8'));
    q.offer(item('y'));
    expect(q.poll()).toEqual({ value: 'x', contentType: 'text/plain; charset=utf-8' });
    expect(q.poll()).toEqual({ value: 'y', contentType: undefined });
  });

  it('refuses offers beyond max-size, and accepts again after a poll', () => {
    const q = new QueueContainer(2);
    expect(q.isFull()).toBe(false);
    expect(q.offer(item('a'))).toBe(true);
    expect(q.offer(item('b'))).toBe(true);
    expect(q.isFull()).toBe(true);
    expect(q.offer(item('c'))).toBe(false);
    expect(q.size).toBe(2);
    expect(q.snapshot().map((i) => i.value)).toEqual(['a', 'b']);
    expect(q.poll()?.value).toBe('a');
    expect(q.isFull()).toBe(false);
    expect(q.offer(item('d'))).toBe(true);
    expect(drain(q)).toEqual(['b', 'd']);
  });

  it('max-size 1', () => {
    const q = new QueueContainer(1);
    expect(q.offer(item('a'))).toBe(true);
    expect(q.offer(item('b'))).toBe(false);
    expect(drain(q)).toEqual(['a']);
  });

  it('max-size 0 is unbounded', () => {
    const q = new QueueContainer(0);
    for (let i = 0; i < 10_000; i++) expect(q.offer(item(String(i)))).toBe(true);
    expect(q.isFull()).toBe(false);
    expect(q.size).toBe(10_000);
  });

  it('keeps order across the poll compaction (more than 1024 items)', () => {
    const q = new QueueContainer(0);
    let next = 0;
    let expected = 0;
    for (let i = 0; i < 3000; i++) q.offer(item(String(next++)));
    // Poll past the compaction threshold in several rounds, offering in between.
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1500 && q.size > 0; i++) {
        expect(q.poll()?.value).toBe(String(expected++));
      }
      expect(q.size).toBe(next - expected);
      expect(q.snapshot().map((x) => Number(x.value))).toEqual(Array.from({ length: next - expected }, (_, k) => expected + k));
      for (let i = 0; i < 700; i++) q.offer(item(String(next++)));
    }
    expect(drain(q).map(Number)).toEqual(Array.from({ length: next - expected }, (_, k) => expected + k));
    expect(q.size).toBe(0);
  });

  it('compaction does not break max-size accounting', () => {
    const q = new QueueContainer(2000);
    for (let i = 0; i < 2000; i++) q.offer(item(String(i)));
    for (let i = 0; i < 1500; i++) q.poll();
    expect(q.size).toBe(500);
    for (let i = 0; i < 1500; i++) expect(q.offer(item(`n${i}`))).toBe(true);
    expect(q.offer(item('over'))).toBe(false);
    expect(q.size).toBe(2000);
    expect(q.peek()?.value).toBe('1500');
  });

  it('snapshot is a copy in order, unaffected by later operations', () => {
    const q = new QueueContainer(0);
    q.offer(item('a'));
    q.offer(item('b'));
    q.offer(item('c'));
    q.poll();
    const snap = q.snapshot();
    expect(values(snap)).toEqual(['b', 'c']);
    q.offer(item('d'));
    q.poll();
    expect(values(snap)).toEqual(['b', 'c']);
    expect(values(q.snapshot())).toEqual(['c', 'd']);
  });
});

describe('QueueContainer: waiters', () => {
  it('an offer goes straight to the oldest waiter, not into the queue', () => {
    const q = new QueueContainer(0);
    const w = new TestWaiter();
    q.addWaiter(w);
    expect(q.waiting).toBe(1);
    expect(q.offer(item('a'))).toBe(true);
    expect(values(w.got)).toEqual(['a']);
    expect(q.size).toBe(0);
    expect(q.waiting).toBe(0);
    // Served once only: the next offer is queued.
    expect(q.offer(item('b'))).toBe(true);
    expect(w.got).toHaveLength(1);
    expect(q.size).toBe(1);
  });

  it('waiters are served first come, first served', () => {
    const q = new QueueContainer(0);
    const ws = [new TestWaiter(), new TestWaiter(), new TestWaiter()];
    for (const w of ws) q.addWaiter(w);
    expect(q.waiting).toBe(3);
    q.offer(item('1'));
    q.offer(item('2'));
    q.offer(item('3'));
    q.offer(item('4'));
    expect(ws.map((w) => values(w.got))).toEqual([['1'], ['2'], ['3']]);
    expect(values(q.snapshot())).toEqual(['4']);
  });

  it('a waiter that declines is skipped; the item goes to the next waiter', () => {
    const q = new QueueContainer(0);
    const gone = new TestWaiter(false);
    const live = new TestWaiter();
    q.addWaiter(gone);
    q.addWaiter(live);
    expect(q.offer(item('a'))).toBe(true);
    expect(gone.offered).toBe(1);
    expect(gone.got).toEqual([]);
    expect(values(live.got)).toEqual(['a']);
    expect(q.size).toBe(0);
    // The declined waiter is not asked again.
    q.offer(item('b'));
    expect(gone.offered).toBe(1);
    expect(values(q.snapshot())).toEqual(['b']);
  });

  it('when every waiter declines, the item stays in the queue', () => {
    const q = new QueueContainer(0);
    const a = new TestWaiter(false);
    const b = new TestWaiter(false);
    q.addWaiter(a);
    q.addWaiter(b);
    expect(q.offer(item('x'))).toBe(true);
    expect(a.offered + b.offered).toBe(2);
    expect(values(q.snapshot())).toEqual(['x']);
    expect(q.waiting).toBe(0);
  });

  it('when every waiter declines and the queue is full, the offer fails', () => {
    const q = new QueueContainer(1);
    q.offer(item('first'));
    const w = new TestWaiter(false);
    q.addWaiter(w); // not how the service uses it, but the bound must still hold
    expect(q.offer(item('second'))).toBe(false);
    expect(values(q.snapshot())).toEqual(['first']);
  });

  it('a cancelled waiter gets nothing; cancel is harmless twice and after being served', () => {
    const q = new QueueContainer(0);
    const a = new TestWaiter();
    const b = new TestWaiter();
    const ha = q.addWaiter(a);
    const hb = q.addWaiter(b);
    ha.cancel();
    ha.cancel();
    expect(q.waiting).toBe(1);
    q.offer(item('x'));
    expect(a.offered).toBe(0);
    expect(values(b.got)).toEqual(['x']);
    hb.cancel(); // after being served
    expect(q.waiting).toBe(0);
    q.offer(item('y'));
    expect(values(q.snapshot())).toEqual(['y']);
    expect(b.got).toHaveLength(1);
  });

  it('cancelling the only waiter leaves a clean container', () => {
    const q = new QueueContainer(0);
    const w = new TestWaiter();
    q.addWaiter(w).cancel();
    expect(q.waiting).toBe(0);
    q.offer(item('x'));
    expect(w.offered).toBe(0);
    expect(q.size).toBe(1);
  });

  it('many cancelled waiters behind a live one: compaction keeps the order of the live ones', () => {
    const q = new QueueContainer(0);
    const first = new TestWaiter();
    q.addWaiter(first);
    const live: TestWaiter[] = [];
    const cancelled: TestWaiter[] = [];
    for (let i = 0; i < 500; i++) {
      const w = new TestWaiter();
      const h = q.addWaiter(w);
      if (i % 10 === 3) live.push(w);
      else {
        cancelled.push(w);
        h.cancel();
      }
    }
    expect(q.waiting).toBe(1 + live.length);
    const n = 1 + live.length;
    for (let i = 0; i < n + 2; i++) q.offer(item(String(i)));
    expect(values(first.got)).toEqual(['0']);
    live.forEach((w, i) => expect(values(w.got), `live waiter ${i}`).toEqual([String(i + 1)]));
    for (const w of cancelled) expect(w.offered).toBe(0);
    expect(values(q.snapshot())).toEqual([String(n), String(n + 1)]);
    expect(q.waiting).toBe(0);
  });

  it('keeps FIFO while waiters come and go in waves (head compaction)', () => {
    const q = new QueueContainer(0);
    const order: number[] = [];
    let id = 0;
    const mk = (): PollWaiter => {
      const me = id++;
      return { deliver: () => (order.push(me), true) };
    };
    const expected: number[] = [];
    for (let wave = 0; wave < 20; wave++) {
      const handles: WaiterHandle[] = [];
      const ids: number[] = [];
      for (let i = 0; i < 100; i++) {
        ids.push(id);
        handles.push(q.addWaiter(mk()));
      }
      // Cancel every third, serve half of the rest now; the others stay waiting into the next wave.
      ids.forEach((wid, i) => {
        if (i % 3 === 0) handles[i]!.cancel();
        else expected.push(wid);
      });
      for (let i = 0; i < 40; i++) q.offer(item(`w${wave}-${i}`));
    }
    // Serve everyone still waiting.
    while (q.waiting > 0) q.offer(item('rest'));
    expect(order).toEqual(expected);
  });

  it('drainWaiters returns the live waiters in order and empties the list', () => {
    const q = new QueueContainer(0);
    const ws = [new TestWaiter(), new TestWaiter(), new TestWaiter(), new TestWaiter()];
    const hs = ws.map((w) => q.addWaiter(w));
    hs[1]!.cancel();
    q.offer(item('served')); // goes to ws[0]
    const drained = q.drainWaiters();
    expect(drained).toEqual([ws[2], ws[3]]);
    expect(q.waiting).toBe(0);
    q.offer(item('after'));
    expect(ws[2]!.offered).toBe(0);
    expect(ws[3]!.offered).toBe(0);
    expect(values(q.snapshot())).toEqual(['after']);
    // Cancelling a drained waiter is harmless.
    hs[2]!.cancel();
    expect(q.drainWaiters()).toEqual([]);
  });

  it('a waiter added after drainWaiters is served normally', () => {
    const q = new QueueContainer(0);
    q.addWaiter(new TestWaiter());
    q.drainWaiters();
    const w = new TestWaiter();
    q.addWaiter(w);
    q.offer(item('x'));
    expect(values(w.got)).toEqual(['x']);
  });

  it('a waiter that cancels itself from deliver (as the service does) is not double-counted', () => {
    const q = new QueueContainer(0);
    let handle: { cancel(): void } | undefined;
    const got: string[] = [];
    handle = q.addWaiter({
      deliver: (i) => {
        handle?.cancel();
        got.push(i.value);
        return true;
      },
    });
    const next = new TestWaiter();
    q.addWaiter(next);
    q.offer(item('a'));
    q.offer(item('b'));
    expect(got).toEqual(['a']);
    expect(values(next.got)).toEqual(['b']);
    expect(q.waiting).toBe(0);
    handle = undefined;
  });
});

describe('QueueContainer: reservations', () => {
  const h = (member: string, id: number): Holder => ({ member, id });
  const filled = (...vs: string[]): QueueContainer => {
    const q = new QueueContainer(0);
    for (const v of vs) q.offer(item(v));
    return q;
  };

  it('a taken item is reserved: out of size and peek, gone once confirmed', () => {
    const q = filled('a', 'b');
    const r = q.take(h('m1', 1))!;
    expect(r.item.value).toBe('a');
    expect([q.size, q.reserved, q.peek()?.value]).toEqual([1, 1, 'b']);
    expect(q.confirm(h('m1', 1))).toBe(r);
    expect([q.size, q.reserved]).toEqual([1, 0]);
    expect(q.confirm(h('m1', 1))).toBeUndefined();
    expect(drain(q)).toEqual(['b']);
  });

  it('taking again for the same holder returns the same reservation and takes nothing more', () => {
    const q = filled('a', 'b');
    const r = q.take(h('m1', 7));
    expect(q.take(h('m1', 7))).toBe(r);
    expect(q.reservation(h('m1', 7))).toBe(r);
    expect([q.size, q.reserved]).toEqual([1, 1]);
    expect(q.take(h('m2', 7))?.item.value).toBe('b');
  });

  it('released items go back to the head in the order they were taken, whatever the release order', () => {
    const q = filled('a', 'b', 'c', 'd', 'e');
    for (let i = 1; i <= 4; i++) q.take(h('m', i)); // a b c d reserved
    q.release(h('m', 3)); // c
    q.confirm(h('m', 2)); // b is gone
    q.release(h('m', 4)); // d
    q.release(h('m', 1)); // a
    expect(values(q.snapshot())).toEqual(['a', 'c', 'd', 'e']);
    expect(q.reserved).toBe(0);
    // Taken and released again, an item keeps its place among the returned ones.
    q.take(h('m', 5)); // a
    q.take(h('m', 6)); // c
    q.release(h('m', 6));
    q.release(h('m', 5));
    expect(drain(q)).toEqual(['a', 'c', 'd', 'e']);
  });

  it('a returned item is polled before items offered later, and does not count against max-size', () => {
    const q = new QueueContainer(2);
    q.offer(item('a'));
    q.offer(item('b'));
    q.take(h('m', 1));
    expect(q.offer(item('c'))).toBe(true);
    expect(q.isFull()).toBe(true);
    q.release(h('m', 1));
    expect(q.size).toBe(3); // back over the bound: the item was in the queue before
    expect(q.offer(item('d'))).toBe(false);
    expect(drain(q)).toEqual(['a', 'b', 'c']);
  });

  it('releaseMember returns every reservation of that member, oldest first, and leaves the others', () => {
    const q = filled('a', 'b', 'c', 'd');
    q.take(h('dead', 2)); // a
    q.take(h('live', 1)); // b
    q.take(h('dead', 1)); // c
    expect(q.holders().sort()).toEqual(['dead', 'live']);
    const back = q.releaseMember('dead');
    expect(back.map((r) => [r.from.item.value, r.to])).toEqual([
      ['a', undefined],
      ['c', undefined],
    ]);
    expect(values(q.snapshot())).toEqual(['a', 'c', 'd']);
    expect(q.holders()).toEqual(['live']);
    expect(q.releaseMember('dead')).toEqual([]);
  });

  it('an offer handed to a waiting poll with a holder is reserved for it', () => {
    const q = new QueueContainer(0);
    const w = { got: [] as string[], holder: h('m', 9), deliver(i: QueueItem): boolean { this.got.push(i.value); return true; } };
    q.addWaiter(w);
    const out = q.offerItem(item('x'));
    expect(typeof out === 'object' && out.holder).toEqual(h('m', 9));
    expect(w.got).toEqual(['x']);
    expect([q.size, q.reserved]).toEqual([0, 1]);
    expect(q.offerItem(item('y'))).toBe('stored');
    const plain = new TestWaiter();
    q.poll();
    q.addWaiter(plain);
    expect(q.offerItem(item('z'))).toBe('handed');
    expect(new QueueContainer(1).offerItem(item('p'))).toBe('stored');
  });

  it('a released item goes to the oldest live waiter first, as a reservation of that waiter', () => {
    const q = filled('a', 'b');
    q.take(h('m', 1));
    q.take(h('m', 2));
    const gone = { holder: h('w', 1), deliver: (): boolean => false };
    const live = { holder: h('w', 2), deliver: (): boolean => true };
    q.addWaiter(gone);
    q.addWaiter(live);
    const r = q.release(h('m', 1))!;
    expect(r.from.item.value).toBe('a');
    expect(r.to?.holder).toEqual(h('w', 2));
    expect(r.to?.order).toBe(r.from.order);
    expect(q.reservation(h('w', 2))?.item.value).toBe('a');
    expect([q.size, q.reserved, q.waiting]).toEqual([0, 2, 0]);
    // Returned again later, it still goes before b.
    q.release(h('m', 2));
    q.release(h('w', 2));
    expect(drain(q)).toEqual(['a', 'b']);
  });

  it('a backup replaying the owner (takeAs, holdOffered, releaseAs, confirm) ends in the same state', () => {
    const owner = new QueueContainer(0);
    const backup = new QueueContainer(0);
    const log: ((q: QueueContainer) => void)[] = [];
    const both = (f: (q: QueueContainer) => void): void => {
      f(owner);
      log.push(f);
    };
    for (const v of ['a', 'b', 'c']) both((q) => q.append(item(v)));
    const r1 = owner.take(h('m', 1))!;
    log.push((q) => q.takeAs(h('m', 1), r1.order));
    const r2 = owner.take(h('n', 1))!;
    log.push((q) => q.takeAs(h('n', 1), r2.order));
    owner.poll(); // c, consumed on the owner ... and on the backup
    log.push((q) => q.poll());
    owner.addWaiter({ holder: h('w', 1), deliver: () => true });
    const handed = owner.offerItem(item('d')) as Reservation;
    log.push((q) => q.holdOffered(h('w', 1), item('d'), handed.order));
    owner.addWaiter({ holder: h('w', 2), deliver: () => true });
    const moved = owner.release(h('n', 1))!; // b to waiter w:2
    log.push((q) => q.releaseAs(moved.from.holder, moved.to?.holder));
    owner.release(h('m', 1)); // a back
    log.push((q) => q.releaseAs(h('m', 1), undefined));
    owner.confirm(h('w', 1));
    log.push((q) => q.confirm(h('w', 1)));
    for (const f of log) f(backup);
    expect(backup.state()).toEqual(owner.state());
    expect(values(backup.snapshot())).toEqual(['a']);
    expect(backup.reservation(h('w', 2))?.item.value).toBe('b');
    // Replaying a take twice (a duplicated backup) takes nothing more.
    expect(backup.takeAs(h('w', 2), 99)).toBeUndefined();
    expect(backup.size).toBe(1);
  });

  it('state/restore carries items, returned items with their order, reservations and the next take order', () => {
    const q = filled('a', 'b', 'c', 'd');
    q.take(h('m', 1)); // a
    q.take(h('m', 2)); // b
    q.take(h('m', 3)); // c
    q.release(h('m', 2)); // b returned
    const copy = new QueueContainer(0);
    copy.offer(item('stale'));
    copy.restore(JSON.parse(JSON.stringify(q.state())) as ContainerState);
    expect(copy.state()).toEqual(q.state());
    expect([copy.size, copy.reserved]).toEqual([2, 2]);
    // Order survives the copy: a returned after b goes before it; c after it.
    copy.release(h('m', 3));
    copy.release(h('m', 1));
    expect(drain(copy)).toEqual(['a', 'b', 'c', 'd']);
    // New takes continue after the copied order.
    const n = filled();
    n.restore(q.state());
    n.offer(item('e'));
    n.poll();
    n.poll();
    expect(n.take(h('x', 1))!.order).toBeGreaterThan(q.state().reservations.at(-1)!.order);
  });
});

describe('QueueContainer: collection operations (clear, drain, remove, contains, capacity)', () => {
  const h = (member: string, id: number): Holder => ({ member, id });

  it('drain reserves up to max head items under consecutive ids; the same drain again gets the same items', () => {
    const q = new QueueContainer(0);
    for (const v of ['a', 'b', 'c', 'd']) q.offer(item(v));
    const first = q.drain('m1', 10, 3);
    expect(first.map((r) => [r.item.value, r.holder.id])).toEqual([['a', 10], ['b', 11], ['c', 12]]);
    expect(q.size).toBe(1);
    expect(q.reserved).toBe(3);
    // Sent again (its answer was lost): nothing more is taken.
    expect(q.drain('m1', 10, 3).map((r) => r.item.value)).toEqual(['a', 'b', 'c']);
    expect(q.size).toBe(1);
    // Each item is confirmed or released like a poll's.
    expect(q.confirm(h('m1', 10))?.item.value).toBe('a');
    expect(q.release(h('m1', 11))?.from.item.value).toBe('b');
    expect(q.release(h('m1', 12))?.from.item.value).toBe('c');
    expect(q.snapshot().map((i) => i.value)).toEqual(['b', 'c', 'd']);
    expect(q.drain('m1', 20, Infinity).map((r) => r.item.value)).toEqual(['b', 'c', 'd']);
    expect(q.drain('m1', 30, 5)).toEqual([]);
  });

  it('drainAs replays the owner drain on a backup with the same take orders', () => {
    const owner = new QueueContainer(0);
    const backup = new QueueContainer(0);
    for (const v of ['a', 'b', 'c']) {
      owner.offer(item(v));
      backup.append(item(v));
    }
    const taken = owner.drain('m', 1, 2);
    backup.drainAs('m', 1, taken.map((r) => r.order));
    expect(backup.state()).toEqual(owner.state());
  });

  it('clear removes the items, keeps the reservations, and makes room', () => {
    const q = new QueueContainer(3);
    for (const v of ['a', 'b', 'c']) q.offer(item(v));
    q.take(h('m', 1));
    q.offer(item('d'));
    expect(q.isFull()).toBe(true);
    expect(q.clear().map((i) => i.value)).toEqual(['b', 'c', 'd']);
    expect(q.size).toBe(0);
    expect(q.reserved).toBe(1);
    expect(q.remainingCapacity()).toBe(3);
    // The reservation still goes back on release.
    q.release(h('m', 1));
    expect(q.peek()?.value).toBe('a');
  });

  it('removeFirst takes the first equal item, among returned and stored ones alike', () => {
    const q = new QueueContainer(0);
    for (const v of ['x', 'y', 'x', 'z']) q.offer(item(v));
    q.take(h('m', 1)); // x reserved
    q.release(h('m', 1)); // x back at the head (returned)
    const isX = (i: QueueItem): boolean => i.value === 'x';
    expect(q.removeFirst(isX)?.value).toBe('x');
    expect(q.snapshot().map((i) => i.value)).toEqual(['y', 'x', 'z']);
    expect(q.removeFirst(isX)?.value).toBe('x');
    expect(q.removeFirst(isX)).toBeUndefined();
    expect(q.snapshot().map((i) => i.value)).toEqual(['y', 'z']);
    expect(q.removeFirst((i) => i.value === 'z')?.value).toBe('z');
    expect(q.removeFirst((i) => i.value === 'y')?.value).toBe('y');
    expect(q.size).toBe(0);
    q.offer(item('after'));
    expect(q.poll()?.value).toBe('after');
  });

  it('contains sees queued items only (not reserved ones), comparing content types too', () => {
    const q = new QueueContainer(0);
    q.offer(item('a', 'text/plain'));
    q.offer(item('b'));
    const same = (want: QueueItem) => (i: QueueItem): boolean => i.value === want.value && i.contentType === want.contentType;
    expect(q.contains(same(item('a', 'text/plain')))).toBe(true);
    expect(q.contains(same(item('a')))).toBe(false);
    q.take(h('m', 1));
    expect(q.contains(same(item('a', 'text/plain')))).toBe(false);
    expect(q.contains(same(item('b')))).toBe(true);
  });

  it('remainingCapacity counts an unbounded queue as Integer.MAX_VALUE, as Hazelcast does', () => {
    const q = new QueueContainer(0);
    q.offer(item('a'));
    expect(q.remainingCapacity()).toBe(2 ** 31 - 2);
    const b = new QueueContainer(2);
    b.offer(item('a'));
    expect(b.remainingCapacity()).toBe(1);
  });
});
