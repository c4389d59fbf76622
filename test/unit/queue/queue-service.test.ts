import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { QueueService, type PollClient, type QueueItem } from '../../../src/queue/queue-service.js';
import { captureLogs, FailingInvoker, flush, RecordingInvoker } from '../core/fakes.js';

const item = (value: string, contentType?: string): QueueItem => ({ value, contentType });

/** A poll client whose liveness the test controls; `leave()` fires onGone like a closed socket. */
class TestClient implements PollClient {
  live = true;
  private gone: (() => void) | undefined;
  alive(): boolean {
    return this.live;
  }
  onGone(fn: () => void): void {
    this.gone = fn;
  }
  leave(): void {
    this.live = false;
    this.gone?.();
  }
}

/** Tracks a promise's outcome without awaiting it. */
function track<T>(m: T | Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const p = Promise.resolve(m);
  const s: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (v) => {
      s.settled = true;
      s.value = v;
    },
    (e: unknown) => {
      s.settled = true;
      s.error = e;
    },
  );
  return s;
}

function setup(raw: unknown = {}): { svc: QueueService; clock: ManualClock; invoker: RecordingInvoker; logs: ReturnType<typeof captureLogs> } {
  const clock = new ManualClock();
  const invoker = new RecordingInvoker();
  const logs = captureLogs('ALL');
  const { config } = configFromObject(raw);
  const svc = new QueueService({ config, invoker, clock, logger: logs.control.logger });
  return { svc, clock, invoker, logs };
}

describe('QueueService: offer, poll, size', () => {
  it('is FIFO and keeps content types', async () => {
    const { svc } = setup();
    const c = new TestClient();
    expect(await svc.offer('q', item('a', 'text/plain'))).toBe(true);
    expect(await svc.offer('q', item('b'))).toBe(true);
    expect(await svc.size('q')).toBe(2);
    expect(await svc.poll('q', 0, c)).toEqual({ value: 'a', contentType: 'text/plain' });
    expect(await svc.poll('q', 0, c)).toEqual({ value: 'b', contentType: undefined });
    expect(await svc.size('q')).toBe(0);
  });

  it('peek shows the head without taking it, at the queue\'s partition; empty is undefined', async () => {
    const { svc, invoker } = setup();
    expect(await svc.peek('pq')).toBeUndefined();
    await svc.offer('pq', item('a', 'text/plain'));
    await svc.offer('pq', item('b'));
    expect(await svc.peek('pq')).toEqual({ value: 'a', contentType: 'text/plain' });
    expect(await svc.size('pq')).toBe(2);
    expect(invoker.calls.filter((c) => c.name === 'queue.peek')).toEqual([
      { partitionId: partitionIdOf('pq'), name: 'queue.peek', mutating: false },
      { partitionId: partitionIdOf('pq'), name: 'queue.peek', mutating: false },
    ]);
    // A reserved item (a poll's, not yet confirmed) is not the head any more.
    const c = new TestClient();
    (c as PollClient & { onAnswered?: PollClient['onAnswered'] }).onAnswered = () => undefined;
    expect(await svc.poll('pq', 0, c)).toEqual({ value: 'a', contentType: 'text/plain' });
    expect(await svc.peek('pq')).toEqual({ value: 'b', contentType: undefined });
  });

  it('queues are independent', async () => {
    const { svc } = setup();
    await svc.offer('q1', item('x'));
    expect(await svc.size('q2')).toBe(0);
    expect(await svc.poll('q2', 0, new TestClient())).toBeUndefined();
    expect(await svc.size('q1')).toBe(1);
  });

  it('runs every operation in the partition of the queue name', async () => {
    const { svc, invoker } = setup();
    await svc.offer('orders', item('x'));
    await svc.size('orders');
    await svc.poll('orders', 0, new TestClient());
    expect(invoker.calls).toEqual([
      { partitionId: partitionIdOf('orders'), name: 'queue.offer', mutating: true },
      { partitionId: partitionIdOf('orders'), name: 'queue.size', mutating: false },
      { partitionId: partitionIdOf('orders'), name: 'queue.poll', mutating: true },
      // The client has no onAnswered: the item counts as delivered once it arrived.
      { partitionId: partitionIdOf('orders'), name: 'queue.confirm', mutating: true },
    ]);
  });

  it('poll with timeout 0 on an empty queue answers at once and leaves no timer', async () => {
    const { svc, clock } = setup();
    expect(await svc.poll('q', 0, new TestClient())).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('size of an unknown queue is 0', async () => {
    const { svc } = setup();
    expect(await svc.size('never-used')).toBe(0);
  });

  it('offer returns false when max-size is reached; max-size 0 is unbounded', async () => {
    const { svc } = setup({ queue: { small: { 'max-size': 2 } } });
    expect(await svc.offer('small', item('1'))).toBe(true);
    expect(await svc.offer('small', item('2'))).toBe(true);
    expect(await svc.offer('small', item('3'))).toBe(false);
    expect(await svc.size('small')).toBe(2);
    await svc.poll('small', 0, new TestClient());
    expect(await svc.offer('small', item('4'))).toBe(true);
    for (let i = 0; i < 5000; i++) expect(await svc.offer('big', item(String(i)))).toBe(true);
    expect(await svc.size('big')).toBe(5000);
  });

  it('maxSizeOf follows exact, wildcard and default queue configs', async () => {
    const { svc } = setup({
      queue: {
        'orders*': { 'max-size': 3 },
        '*-jobs': { 'max-size': 4 },
        'orders-special': { 'max-size': 5 },
        default: { 'max-size': 10 },
      },
    });
    expect(svc.maxSizeOf('orders')).toBe(3);
    expect(svc.maxSizeOf('orders-1')).toBe(3);
    expect(svc.maxSizeOf('orders-special')).toBe(5);
    expect(svc.maxSizeOf('print-jobs')).toBe(4);
    expect(svc.maxSizeOf('other')).toBe(10);
    // The bound is honoured for a wildcard-matched queue, not just reported.
    for (let i = 0; i < 3; i++) expect(await svc.offer('orders-7', item(String(i)))).toBe(true);
    expect(await svc.offer('orders-7', item('x'))).toBe(false);
    expect(svc.maxSizeOf('orders-7')).toBe(3);
  });

  it('maxSizeOf without any queue config is 0 (unbounded)', () => {
    const { svc } = setup();
    expect(svc.maxSizeOf('q')).toBe(0);
  });

  it('errors from the invoker propagate', async () => {
    const clock = new ManualClock();
    const err = new GridError('CLUSTER_PASSIVE', 'cluster is PASSIVE: queue.offer refused');
    const svc = new QueueService({ config: configFromObject({}).config, invoker: new FailingInvoker(err), clock, logger: captureLogs().control.logger });
    await expect(svc.offer('q', item('x'))).rejects.toBe(err);
    await expect(svc.poll('q', 1000, new TestClient())).rejects.toBe(err);
    await expect(svc.size('q')).rejects.toBe(err);
    // A failed poll leaves no waiter behind; what it may have reserved is released, with a
    // few retries when the owner cannot be reached, then it stops trying.
    for (let i = 0; i < 10; i++) {
      await flush();
      clock.advance(5_000);
    }
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('QueueService: waiting polls', () => {
  it('times out after exactly timeoutMs with undefined', async () => {
    const { svc, clock } = setup();
    const p = track(svc.poll('q', 5000, new TestClient()));
    await flush();
    clock.advance(4999);
    await flush();
    expect(p.settled).toBe(false);
    clock.advance(1);
    await flush();
    expect(p).toEqual({ settled: true, value: undefined });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an item offered while waiting is handed to the poll', async () => {
    const { svc, clock } = setup();
    const p = track(svc.poll('q', 5000, new TestClient()));
    await flush();
    clock.advance(1000);
    expect(await svc.offer('q', item('x', 'application/json'))).toBe(true);
    await flush();
    expect(p).toEqual({ settled: true, value: { value: 'x', contentType: 'application/json' } });
    expect(await svc.size('q')).toBe(0);
    expect(clock.pendingTimers()).toBe(0); // the poll's timer was cancelled
  });

  it('waiting polls are served first come, first served', async () => {
    const { svc } = setup();
    const polls = [0, 1, 2].map(() => track(svc.poll('q', 10_000, new TestClient())));
    await flush();
    await svc.offer('q', item('1'));
    await svc.offer('q', item('2'));
    await flush();
    expect(polls.map((p) => p.value?.value)).toEqual(['1', '2', undefined]);
    expect(polls[2]!.settled).toBe(false);
    await svc.offer('q', item('3'));
    await flush();
    expect(polls[2]!.value?.value).toBe('3');
  });

  it('a poll that started first but timed out does not take later items', async () => {
    const { svc, clock } = setup();
    const early = track(svc.poll('q', 1000, new TestClient()));
    await flush();
    const late = track(svc.poll('q', 10_000, new TestClient()));
    await flush();
    clock.advance(1000);
    await flush();
    expect(early).toEqual({ settled: true, value: undefined });
    await svc.offer('q', item('x'));
    await flush();
    expect(late.value?.value).toBe('x');
  });

  it('a client gone before delivery consumes nothing: the item goes to the next poller', async () => {
    const { svc, clock } = setup();
    const goneClient = new TestClient();
    const gone = track(svc.poll('q', 5000, goneClient));
    await flush();
    const next = track(svc.poll('q', 5000, new TestClient()));
    await flush();
    goneClient.live = false; // socket closed, but the close event has not been seen yet
    await svc.offer('q', item('x'));
    await flush();
    expect(next.value?.value).toBe('x');
    expect(gone.settled).toBe(false);
    clock.advance(5000);
    await flush();
    expect(gone).toEqual({ settled: true, value: undefined });
  });

  it('a client gone before delivery with no other poller: the item stays for the next poll', async () => {
    const { svc, clock } = setup();
    const c = new TestClient();
    const p = track(svc.poll('q', 5000, c));
    await flush();
    c.live = false;
    expect(await svc.offer('q', item('kept'))).toBe(true);
    expect(await svc.size('q')).toBe(1);
    clock.advance(5000);
    await flush();
    expect(p).toEqual({ settled: true, value: undefined });
    expect(await svc.poll('q', 0, new TestClient())).toEqual(item('kept'));
  });

  it('onGone resolves the poll with undefined at once and consumes nothing', async () => {
    const { svc, clock } = setup();
    const c = new TestClient();
    const p = track(svc.poll('q', 60_000, c));
    await flush();
    c.leave();
    await flush();
    expect(p).toEqual({ settled: true, value: undefined });
    expect(clock.pendingTimers()).toBe(0);
    await svc.offer('q', item('x'));
    expect(await svc.size('q')).toBe(1);
  });

  it('onGone after delivery changes nothing', async () => {
    const { svc } = setup();
    const c = new TestClient();
    const p = track(svc.poll('q', 60_000, c));
    await flush();
    await svc.offer('q', item('x'));
    c.leave();
    await flush();
    expect(p.value?.value).toBe('x');
    expect(await svc.size('q')).toBe(0);
  });

  it('a client already gone when the poll would start waiting gets undefined at once', async () => {
    const { svc, clock } = setup();
    const c = new TestClient();
    c.live = false;
    expect(await svc.poll('q', 5000, c)).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
    await svc.offer('q', item('x'));
    expect(await svc.size('q')).toBe(1);
  });

  it('an item offered right after a poll started (same tick) is not left behind', async () => {
    // Two requests handled in the same tick: the poll found the queue empty, then the offer ran
    // before the poll started to wait. The poll must still get the item.
    const { svc, clock } = setup();
    const p = track(svc.poll('q', 5000, new TestClient()));
    const offered = svc.offer('q', item('x'));
    expect(await offered).toBe(true);
    await flush();
    expect(p).toEqual({ settled: true, value: item('x') });
    expect(await svc.size('q')).toBe(0);
    clock.advance(5000);
    await flush();
    expect(p.value).toEqual(item('x'));
  });

  it('stop() rejects waiting polls with MEMBER_SHUTTING_DOWN and cancels their timers', async () => {
    const { svc, clock } = setup();
    const a = track(svc.poll('q', 5000, new TestClient()));
    const b = track(svc.poll('other', 5000, new TestClient()));
    await flush();
    svc.stop();
    await flush();
    for (const p of [a, b]) {
      expect(p.settled).toBe(true);
      expect(p.error).toBeInstanceOf(GridError);
      expect((p.error as GridError).code).toBe('MEMBER_SHUTTING_DOWN');
      expect((p.error as GridError).retryable).toBe(true);
    }
    expect(clock.pendingTimers()).toBe(0);
    // Items offered after stop are not handed to the rejected polls.
    await svc.offer('q', item('x'));
    expect(await svc.size('q')).toBe(1);
  });
});

describe('QueueService: empty-queue-ttl', () => {
  const destroyed = (logs: ReturnType<typeof captureLogs>): unknown[] =>
    logs.sink.lines.filter((l) => l.msg === 'empty queue destroyed (empty-queue-ttl)').map((l) => l.queue);

  it('destroys an empty queue after the TTL; a fresh queue is created on next use', async () => {
    const { svc, clock, logs } = setup({ queue: { 'tmp*': { 'empty-queue-ttl': 5 } } });
    await svc.offer('tmp-1', item('x'));
    expect(await svc.poll('tmp-1', 0, new TestClient())).toEqual(item('x'));
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(4999);
    expect(destroyed(logs)).toEqual([]);
    clock.advance(1);
    expect(destroyed(logs)).toEqual(['tmp-1']);
    expect(clock.pendingTimers()).toBe(0);
    expect(await svc.size('tmp-1')).toBe(0);
    // Fresh queue works as before.
    await svc.offer('tmp-1', item('y'));
    expect(await svc.size('tmp-1')).toBe(1);
    expect(await svc.poll('tmp-1', 0, new TestClient())).toEqual(item('y'));
  });

  it('a queue that gets an item before the TTL is not destroyed', async () => {
    const { svc, clock, logs } = setup({ queue: { q: { 'empty-queue-ttl': 5 } } });
    await svc.offer('q', item('a'));
    await svc.poll('q', 0, new TestClient()); // empty: TTL starts
    clock.advance(3000);
    await svc.offer('q', item('b')); // not empty: TTL cancelled
    clock.advance(10_000);
    expect(destroyed(logs)).toEqual([]);
    expect(await svc.size('q')).toBe(1);
    expect(await svc.poll('q', 0, new TestClient())).toEqual(item('b'));
  });

  it('a queue with a waiting poll is not destroyed', async () => {
    const { svc, clock, logs } = setup({ queue: { q: { 'empty-queue-ttl': 1 } } });
    await svc.offer('q', item('a'));
    await svc.poll('q', 0, new TestClient());
    const p = track(svc.poll('q', 30_000, new TestClient()));
    await flush();
    clock.advance(10_000);
    expect(destroyed(logs)).toEqual([]);
    await svc.offer('q', item('b'));
    await flush();
    expect(p.value).toEqual(item('b'));
  });

  it('the waiting poll timing out starts the TTL again', async () => {
    const { svc, clock, logs } = setup({ queue: { q: { 'empty-queue-ttl': 2 } } });
    const p = track(svc.poll('q', 1000, new TestClient()));
    await flush();
    clock.advance(1000);
    await flush();
    expect(p.settled).toBe(true);
    clock.advance(1999);
    expect(destroyed(logs)).toEqual([]);
    clock.advance(1);
    expect(destroyed(logs)).toEqual(['q']);
  });

  it('0 destroys an empty queue as soon as the clock moves', async () => {
    const { svc, clock, logs } = setup({ queue: { q: { 'empty-queue-ttl': 0 } } });
    await svc.offer('q', item('a'));
    expect(destroyed(logs)).toEqual([]);
    await svc.poll('q', 0, new TestClient());
    clock.advance(0);
    expect(destroyed(logs)).toEqual(['q']);
  });

  it('-1 (the default) never destroys: no timer is scheduled', async () => {
    const { svc, clock } = setup();
    await svc.offer('q', item('a'));
    await svc.poll('q', 0, new TestClient());
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stop() cancels destroy timers', async () => {
    const { svc, clock } = setup({ queue: { q: { 'empty-queue-ttl': 5 } } });
    await svc.offer('q', item('a'));
    await svc.poll('q', 0, new TestClient());
    expect(clock.pendingTimers()).toBe(1);
    svc.stop();
    expect(clock.pendingTimers()).toBe(0);
  });
});
