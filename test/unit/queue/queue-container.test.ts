import { describe, expect, it } from 'vitest';
import { QueueContainer, type PollWaiter, type QueueItem, type WaiterHandle } from '../../../src/queue/queue-container.js';

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

describe('QueueContainer: putting items back and backups', () => {
  it('offerFirst puts an item back at the head, also after polls moved the head', () => {
    const q = new QueueContainer(0);
    for (const v of ['a', 'b', 'c']) q.offer(item(v));
    const taken = q.poll()!;
    q.offerFirst(taken);
    expect(drain(q)).toEqual(['a', 'b', 'c']);
    q.offerFirst(item('z'));
    expect(drain(q)).toEqual(['z']);
  });

  it('offerFirst hands the item to a live waiter first, skipping gone ones', () => {
    const q = new QueueContainer(0);
    const gone = new TestWaiter(false);
    const live = new TestWaiter();
    q.addWaiter(gone);
    q.addWaiter(live);
    q.offerFirst(item('x'));
    expect(values(live.got)).toEqual(['x']);
    expect(q.size).toBe(0);
    expect(q.waiting).toBe(0);
  });

  it('offerFirst ignores max-size (the item was in the queue before); append ignores it and waiters', () => {
    const q = new QueueContainer(1);
    q.offer(item('a'));
    expect(q.offer(item('b'))).toBe(false);
    q.offerFirst(item('first'));
    expect(q.size).toBe(2);
    const w = new TestWaiter();
    const e = new QueueContainer(1);
    e.addWaiter(w);
    e.append(item('x'));
    e.append(item('y'));
    expect(w.got).toEqual([]);
    expect(drain(e)).toEqual(['x', 'y']);
  });
});
