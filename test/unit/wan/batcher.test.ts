import { describe, expect, it } from 'vitest';
import { ManualClock, type TimerHandle } from '../../../src/core/clock.js';
import { DEFAULT_WAN_PUBLISHER } from '../../../src/config/defaults.js';
import { WanBatcher, type WanBatch, type WanBatcherOptions, type WanBatcherOutput } from '../../../src/wan/batcher.js';
import { WanEventQueue } from '../../../src/wan/event-queue.js';
import type { MapWanEvent } from '../../../src/protocol/wan-payloads.js';
import { prng } from '../../support/prng.js';

const T0 = 1_700_000_000_000;
const EPS = ['a:5701', 'b:5701', 'c:5701'];
const put = (key: string): MapWanEvent => ({ kind: 'put', mapName: 'm', key, value: key, contentType: undefined, ttlRemainingMs: undefined, originClusters: ['src'] });

/** A batcher driven by a manual clock the way the publisher shell will drive it. */
class Harness {
  readonly clock = new ManualClock(T0);
  readonly q: WanEventQueue;
  readonly b: WanBatcher;
  readonly sends: WanBatch[] = [];
  readonly connects: string[] = [];
  readonly dropped: string[] = [];
  readonly released: { partitionId: number; throughSequence: number }[] = [];
  timerAt: number | undefined;
  private timer: TimerHandle | undefined;
  onSend: (batch: WanBatch) => void = () => {};

  constructor(opts: Partial<WanBatcherOptions> = {}, capacity = 1_000_000) {
    this.q = new WanEventQueue({ capacity, queueFullBehavior: 'DISCARD_AFTER_MUTATION', initialState: 'REPLICATING', name: 'r/p' });
    this.b = new WanBatcher(this.q, {
      endpoints: EPS,
      batchSize: 4,
      batchMaxDelayMillis: 1000,
      responseTimeoutMillis: 5000,
      acknowledgeType: 'ACK_ON_OPERATION_COMPLETE',
      retryInitialMs: 100,
      retryMaxMs: 800,
      maxConsecutiveFailures: 3,
      ...opts,
    });
  }

  get now(): number {
    return this.clock.now();
  }

  apply(outs: WanBatcherOutput[]): WanBatcherOutput[] {
    const last = outs[outs.length - 1];
    expect(last?.type).toBe('timer'); // the timer is always last, and only there
    expect(outs.filter((o) => o.type === 'timer')).toHaveLength(1);
    for (const o of outs) {
      if (o.type === 'send') {
        this.sends.push(o.batch);
        this.onSend(o.batch);
      } else if (o.type === 'connect') this.connects.push(o.endpoint);
      else if (o.type === 'endpoint-dropped') this.dropped.push(o.endpoint);
      else if (o.type === 'released') this.released.push({ partitionId: o.partitionId, throughSequence: o.throughSequence });
      else {
        this.timer?.cancel();
        this.timerAt = o.atMs;
        this.timer = o.atMs === undefined ? undefined : this.clock.setTimeout(() => this.apply(this.b.timerFired(this.clock.now())), o.atMs - this.clock.now());
      }
    }
    return outs;
  }

  start(up: readonly string[] = EPS): void {
    this.apply(this.b.poll(this.now));
    for (const e of up) this.apply(this.b.endpointUp(e, this.now));
  }

  push(partitionId: number, n = 1): void {
    for (let i = 0; i < n; i++) this.q.offer(partitionId, put(`p${partitionId}-${this.q.stats().queued}`), this.now);
    this.apply(this.b.eventsQueued(this.now));
  }

  /** Partitions (below 271) whose preferred endpoint is `endpoint`. */
  partitionsOf(endpoint: string, count: number): number[] {
    const out: number[] = [];
    for (let p = 0; p < 271 && out.length < count; p++) if (this.b.preferredEndpointOf(p) === endpoint) out.push(p);
    return out;
  }

  lastSend(): WanBatch {
    const b = this.sends[this.sends.length - 1];
    if (!b) throw new Error('nothing sent');
    return b;
  }
}

const seqs = (b: WanBatch): [number, number][] => b.events.map((e) => [e.partitionId, e.sequence]);

describe('WanBatcher: endpoints and the partition assignment', () => {
  it('asks to connect every endpoint at start, and sends nothing before one is up', () => {
    const h = new Harness();
    h.apply(h.b.poll(h.now));
    expect(h.connects).toEqual(EPS);
    expect(EPS.map((e) => h.b.endpointStatus(e))).toEqual(['connecting', 'connecting', 'connecting']);
    h.push(0, 10);
    expect(h.sends).toEqual([]);
    expect(h.b.endpointOf(0)).toBeUndefined();
    expect(h.b.endpointStatus('nope:1')).toBeUndefined();
  });

  it('a stable rendezvous assignment: every endpoint gets a share, and losing one moves only its partitions', () => {
    const h = new Harness();
    h.start();
    const before = Array.from({ length: 271 }, (_, p) => h.b.endpointOf(p));
    for (const e of EPS) expect(before.filter((x) => x === e).length).toBeGreaterThan(50);
    for (let p = 0; p < 271; p++) expect(before[p]).toBe(h.b.preferredEndpointOf(p));
    h.apply(h.b.endpointDown('b:5701', h.now));
    const after = Array.from({ length: 271 }, (_, p) => h.b.endpointOf(p));
    for (let p = 0; p < 271; p++) {
      if (before[p] !== 'b:5701') expect(after[p]).toBe(before[p]);
      else expect(['a:5701', 'c:5701']).toContain(after[p]);
    }
    expect(new Set(after.filter((_, p) => before[p] === 'b:5701')).size).toBe(2); // spread, not piled on one
    // The same on another source member (a fresh batcher with the same endpoints).
    const other = new Harness();
    for (let p = 0; p < 271; p++) expect(other.b.preferredEndpointOf(p)).toBe(h.b.preferredEndpointOf(p));
    // Back up: the partitions go home.
    h.apply(h.b.endpointUp('b:5701', h.now));
    for (let p = 0; p < 271; p++) expect(h.b.endpointOf(p)).toBe(before[p]);
  });

  it('rejects no endpoints and a batch size below 1; duplicate endpoints count once', () => {
    const q = new WanEventQueue({ capacity: 1, queueFullBehavior: 'DISCARD_AFTER_MUTATION', initialState: 'REPLICATING', name: 'x' });
    const base = { batchSize: 1, batchMaxDelayMillis: 1, responseTimeoutMillis: 1, acknowledgeType: 'ACK_ON_RECEIPT' as const };
    expect(() => new WanBatcher(q, { ...base, endpoints: [] })).toThrow(RangeError);
    expect(() => new WanBatcher(q, { ...base, endpoints: ['a:1'], batchSize: 0 })).toThrow(RangeError);
    const b = new WanBatcher(q, { ...base, endpoints: ['a:1', 'a:1'] });
    expect(b.poll(T0).filter((o) => o.type === 'connect')).toHaveLength(1);
  });

  it('Grid parses Hazelcast’s batch defaults: 500 events, 1000 ms, 60000 ms, ACK_ON_OPERATION_COMPLETE', () => {
    expect(DEFAULT_WAN_PUBLISHER).toMatchObject({ batchSize: 500, batchMaxDelayMillis: 1000, responseTimeoutMillis: 60000, acknowledgeType: 'ACK_ON_OPERATION_COMPLETE' });
  });
});

describe('WanBatcher: when batches go', () => {
  it('a full batch goes at once; a partial one when its oldest event has waited batch-max-delay', () => {
    const h = new Harness();
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 3);
    expect(h.sends).toHaveLength(0);
    expect(h.timerAt).toBe(T0 + 1000);
    h.clock.advance(400);
    h.push(p, 1); // the fourth: full
    expect(h.sends).toHaveLength(1);
    expect(seqs(h.lastSend())).toEqual([[p, 1], [p, 2], [p, 3], [p, 4]]);
    expect(h.lastSend().endpoint).toBe('a:5701');
    expect(h.lastSend().acknowledgeType).toBe('ACK_ON_OPERATION_COMPLETE');
    expect(h.timerAt).toBe(T0 + 400 + 5000); // the response deadline
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    h.clock.advance(100);
    h.push(p, 1);
    expect(h.sends).toHaveLength(1);
    expect(h.timerAt).toBe(T0 + 500 + 1000);
    h.clock.advance(999);
    expect(h.sends).toHaveLength(1);
    h.clock.advance(1);
    expect(h.sends).toHaveLength(2); // sent by the timer, at the delay exactly
    expect(seqs(h.lastSend())).toEqual([[p, 5]]);
  });

  it('a batch holds at most batch-size events; the rest go in the next one after the ack', () => {
    const h = new Harness();
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 10);
    expect(h.sends).toHaveLength(1);
    expect(h.lastSend().events).toHaveLength(4);
    h.clock.advance(10_000); // nothing more while one is in flight... until it times out
    expect(h.sends.length).toBeGreaterThan(1);
    expect(seqs(h.sends[1] as WanBatch)).toEqual(seqs(h.sends[0] as WanBatch)); // a resend from the oldest
  });

  it('one batch in flight per endpoint, and endpoints work in parallel', () => {
    const h = new Harness({ batchSize: 2 });
    h.start();
    const pa = h.partitionsOf('a:5701', 2);
    const [pb] = h.partitionsOf('b:5701', 1) as [number];
    for (const p of pa) h.push(p, 2);
    h.push(pb, 2);
    expect(h.sends.map((b) => b.endpoint)).toEqual(['a:5701', 'b:5701']);
    expect(h.b.inFlight()).toHaveLength(2);
    const first = h.sends[0] as WanBatch;
    expect(seqs(first)).toEqual([[pa[0], 1], [pa[0], 2]]);
    h.apply(h.b.acknowledged(first.id, h.now));
    expect(h.released).toEqual([{ partitionId: pa[0], throughSequence: 2 }]);
    expect(h.sends).toHaveLength(3);
    expect(seqs(h.lastSend())).toEqual([[pa[1], 1], [pa[1], 2]]);
  });

  it('mixes partitions in one batch, round-robin so a busy partition does not starve the others', () => {
    const h = new Harness({ batchSize: 4 });
    h.start(['a:5701']);
    const [p1, p2] = h.partitionsOf('a:5701', 2) as [number, number];
    h.apply(h.b.poll(h.now));
    h.q.offer(p1, put('x'), h.now);
    h.q.offer(p1, put('y'), h.now);
    for (let i = 0; i < 10; i++) h.q.offer(p2, put(`z${i}`), h.now);
    // p2 is busy; p1 goes first in the first batch, then p2 fills it.
    h.apply(h.b.eventsQueued(h.now));
    expect(seqs(h.lastSend())).toEqual([[p1, 1], [p1, 2], [p2, 1], [p2, 2]]);
    h.q.offer(p1, put('w'), h.now);
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    // The next batch starts after p2 (the last served), so it wraps to p1 first.
    expect(seqs(h.lastSend())).toEqual([[p1, 3], [p2, 3], [p2, 4], [p2, 5]]);
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    expect(seqs(h.lastSend())).toEqual([[p2, 6], [p2, 7], [p2, 8], [p2, 9]]);
  });

  it('PAUSED and STOPPED send nothing; a batch in flight still completes; resume sends what waited', () => {
    const h = new Harness();
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 4);
    const inFlight = h.lastSend();
    h.q.setState('PAUSED');
    h.apply(h.b.poll(h.now));
    h.push(p, 4);
    h.apply(h.b.acknowledged(inFlight.id, h.now));
    expect(h.q.sizeOf(p)).toBe(4);
    h.clock.advance(60_000);
    expect(h.sends).toHaveLength(1);
    h.q.setState('STOPPED');
    h.apply(h.b.poll(h.now));
    h.clock.advance(60_000);
    expect(h.sends).toHaveLength(1);
    h.q.setState('REPLICATING');
    h.apply(h.b.poll(h.now));
    expect(h.sends).toHaveLength(2);
    expect(seqs(h.lastSend()).map(([, s]) => s)).toEqual([5, 6, 7, 8]);
  });

  it('ACK_ON_RECEIPT travels with the batch; the events still leave only on the ack', () => {
    const h = new Harness({ acknowledgeType: 'ACK_ON_RECEIPT' });
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 4);
    expect(h.lastSend().acknowledgeType).toBe('ACK_ON_RECEIPT');
    expect(h.q.sizeOf(p)).toBe(4);
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    expect(h.q.sizeOf(p)).toBe(0);
    expect(h.b.stats()).toMatchObject({ batchesSent: 1, eventsSent: 4, batchesAcknowledged: 1, eventsAcknowledged: 4, lastAckAtMs: h.now });
    expect(h.q.stats()).toMatchObject({ sent: 4, acknowledged: 4 });
  });
});

describe('WanBatcher: failures', () => {
  it('a nack puts the events back; they are resent from the oldest after a doubling backoff', () => {
    const h = new Harness();
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 4);
    const b1 = h.lastSend();
    h.apply(h.b.failed(b1.id, h.now, 'target busy'));
    expect(h.q.sizeOf(p)).toBe(4);
    expect(h.timerAt).toBe(h.now + 100);
    h.clock.advance(99);
    expect(h.sends).toHaveLength(1);
    h.clock.advance(1);
    const b2 = h.lastSend();
    expect(b2.id).not.toBe(b1.id);
    expect(seqs(b2)).toEqual(seqs(b1));
    h.apply(h.b.failed(b2.id, h.now));
    expect(h.timerAt).toBe(h.now + 200);
    h.apply(h.b.failed(b2.id, h.now)); // twice: ignored
    h.apply(h.b.acknowledged(b1.id, h.now)); // a settled batch: ignored
    expect(h.q.sizeOf(p)).toBe(4);
    h.clock.advance(200);
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    expect(h.q.sizeOf(p)).toBe(0);
    expect(h.b.stats().batchesFailed).toBe(2);
  });

  it('no answer within response-timeout-millis counts as a failure and the batch is resent', () => {
    const h = new Harness({ responseTimeoutMillis: 3000 });
    h.start(['a:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 4);
    const b1 = h.lastSend();
    h.clock.advance(2999);
    expect(h.b.inFlight()).toHaveLength(1);
    h.clock.advance(1);
    expect(h.b.inFlight()).toHaveLength(0);
    h.clock.advance(100);
    expect(seqs(h.lastSend())).toEqual(seqs(b1));
    h.apply(h.b.acknowledged(b1.id, h.now)); // the late answer of the first send: ignored
    expect(h.q.sizeOf(p)).toBe(4);
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    expect(h.q.sizeOf(p)).toBe(0);
  });

  it('after max failures in a row the endpoint is dropped, its partitions go to the next, and it is reconnected later', () => {
    const h = new Harness();
    h.start(['a:5701', 'b:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    const next = (() => {
      h.apply(h.b.endpointDown('a:5701', h.now));
      const e = h.b.endpointOf(p);
      h.apply(h.b.endpointUp('a:5701', h.now));
      return e;
    })();
    expect(next).toBe('b:5701');
    h.dropped.length = 0;
    h.push(p, 4);
    for (let i = 0; i < 3; i++) {
      const b = h.lastSend();
      expect(b.endpoint).toBe('a:5701');
      h.apply(h.b.failed(b.id, h.now));
      if (i < 2) h.clock.advance(100 * 2 ** i);
    }
    expect(h.dropped).toEqual(['a:5701']);
    expect(h.b.endpointStatus('a:5701')).toBe('down');
    expect(h.lastSend().endpoint).toBe('b:5701'); // at once: b has no backoff
    expect(seqs(h.lastSend()).map(([, s]) => s)).toEqual([1, 2, 3, 4]);
    const connectsBefore = h.connects.length;
    h.clock.advance(100);
    expect(h.connects.slice(connectsBefore)).toEqual(['a:5701']);
    expect(h.b.endpointStatus('a:5701')).toBe('connecting');
    h.apply(h.b.endpointDown('a:5701', h.now, 'refused'));
    h.clock.advance(199);
    expect(h.connects.length).toBe(connectsBefore + 1);
    h.clock.advance(1);
    expect(h.connects.length).toBe(connectsBefore + 2); // 200 ms: the backoff doubled
    h.apply(h.b.endpointDown('a:5701', h.now));
    for (let i = 0; i < 10; i++) {
      h.clock.advance(800);
      h.apply(h.b.endpointDown('a:5701', h.now));
    }
    expect(h.connects.length).toBe(connectsBefore + 12); // one attempt per 800 ms: the backoff is capped at retryMaxMs
  });

  it('a lost connection fails the batch at once and reassigns; the partition waits for its batch before going home', () => {
    const h = new Harness();
    h.start(['a:5701', 'b:5701']);
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.apply(h.b.endpointDown('a:5701', h.now));
    expect(h.dropped).toEqual(['a:5701']);
    h.push(p, 4);
    const onB = h.lastSend();
    expect(onB.endpoint).toBe('b:5701');
    h.apply(h.b.endpointUp('a:5701', h.now));
    expect(h.b.endpointOf(p)).toBe('a:5701');
    h.push(p, 4);
    expect(h.sends).toHaveLength(1); // p is in flight on b: nothing of p goes to a yet
    h.clock.advance(2000);
    expect(h.sends).toHaveLength(1);
    h.apply(h.b.acknowledged(onB.id, h.now));
    expect(h.lastSend().endpoint).toBe('a:5701');
    expect(seqs(h.lastSend()).map(([, s]) => s)).toEqual([5, 6, 7, 8]);
  });

  it('events released on ack go to the backups; a partition migrated away meanwhile is not touched', () => {
    const h = new Harness();
    h.start(['a:5701']);
    const [p1, p2] = h.partitionsOf('a:5701', 2) as [number, number];
    h.apply(h.b.poll(h.now));
    h.q.offer(p1, put('x'), h.now);
    h.q.offer(p2, put('y'), h.now);
    h.q.offer(p2, put('z'), h.now);
    h.q.offer(p2, put('w'), h.now);
    h.apply(h.b.eventsQueued(h.now));
    const b = h.lastSend();
    const snap = h.q.snapshot(p2);
    h.q.removePartition(p2); // migrated away while in flight
    h.q.install(snap); // ... and back (a new identity)
    h.apply(h.b.acknowledged(b.id, h.now));
    expect(h.released).toEqual([{ partitionId: p1, throughSequence: 1 }]);
    expect(h.q.sizeOf(p2)).toBe(3); // resent rather than lost
    h.clock.advance(1000);
    expect(seqs(h.lastSend())).toEqual([[p2, 1], [p2, 2], [p2, 3]]);
  });
});

// --- randomized runs: a model target and invariants checked at every step ---

interface Live {
  readonly batch: WanBatch;
  readonly deadlineMs: number;
  dead: boolean;
}

interface RunSummary {
  readonly failed: number;
  readonly dropped: number;
  readonly acknowledged: number;
  readonly multiPartitionBatches: number;
}

function randomRun(seed: number, ackType: 'ACK_ON_OPERATION_COMPLETE' | 'ACK_ON_RECEIPT'): RunSummary {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rnd() * xs.length)];
  const batchSize = 1 + Math.floor(rnd() * 8);
  const timeout = 500 + Math.floor(rnd() * 3000);
  const h = new Harness({ batchSize, batchMaxDelayMillis: Math.floor(rnd() * 500), responseTimeoutMillis: timeout, acknowledgeType: ackType });
  const partitions = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => Math.floor(rnd() * 271));
  const committed = new Map<number, number>(); // partition -> last sequence queued
  const ackedThrough = new Map<number, number>(); // partition -> through sequence released by acks
  const applied = new Map<number, number>(); // the target: partition -> last sequence applied, in order
  const live = new Map<number, Live>();

  const liveNow = (): Live[] => [...live.values()].filter((l) => !l.dead && h.now < l.deadlineMs);
  h.onSend = (batch) => {
    // At most one batch in flight per endpoint, and a partition in at most one batch in flight.
    for (const l of liveNow()) {
      expect(l.batch.endpoint).not.toBe(batch.endpoint);
      for (const e of batch.events) expect(l.batch.events.some((x) => x.partitionId === e.partitionId)).toBe(false);
    }
    expect(batch.events.length).toBeGreaterThan(0);
    expect(batch.events.length).toBeLessThanOrEqual(batchSize);
    expect(batch.acknowledgeType).toBe(ackType);
    // Each partition's events: one run that starts at its oldest queued event, in queue order.
    const byP = new Map<number, number[]>();
    let prevP: number | undefined;
    for (const e of batch.events) {
      const list = byP.get(e.partitionId);
      if (list && prevP !== e.partitionId) throw new Error(`partition ${e.partitionId} split within batch ${batch.id}`);
      if (list) list.push(e.sequence);
      else byP.set(e.partitionId, [e.sequence]);
      prevP = e.partitionId;
    }
    for (const [p, s] of byP) expect(s).toEqual(h.q.peek(p, s.length).map((e) => e.sequence));
    // The endpoint is the partition's: the first one up in its preference order.
    for (const p of byP.keys()) expect(h.b.endpointOf(p)).toBe(batch.endpoint);
    live.set(batch.id, { batch, deadlineMs: h.now + timeout, dead: false });
  };
  const targetApplies = (batch: WanBatch): void => {
    for (const e of batch.events) {
      const last = applied.get(e.partitionId) ?? 0;
      if (e.sequence > last + 1) throw new Error(`partition ${e.partitionId}: ${e.sequence} applied after ${last} (a gap)`);
      if (e.sequence === last + 1) applied.set(e.partitionId, e.sequence);
    }
  };
  const killLiveOf = (endpoint: string): void => {
    for (const l of live.values()) if (l.batch.endpoint === endpoint) l.dead = true;
  };
  const checkQueue = (): void => {
    // Nothing leaves the queue unless acknowledged: the queue holds exactly what was not.
    for (const p of partitions) {
      const have = h.q.events(p);
      const from = (ackedThrough.get(p) ?? 0) + 1;
      const to = committed.get(p) ?? 0;
      const ok = have.length === Math.max(0, to - from + 1) && have.every((e, i) => e.sequence === from + i);
      if (!ok) expect(have.map((e) => e.sequence)).toEqual(Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i));
    }
    const inFlight = h.b.inFlight();
    if (new Set(inFlight.map((f) => f.batch.endpoint)).size !== inFlight.length) throw new Error('two batches in flight to one endpoint');
  };

  h.start([]);
  for (let step = 0; step < 1500; step++) {
    const r = rnd();
    if (r < 0.3) {
      const p = pick(partitions) as number;
      const n = 1 + Math.floor(rnd() * 5);
      for (let i = 0; i < n; i++) {
        const e = h.q.offer(p, put(`k${step}-${i}`), h.now);
        if (e) committed.set(p, e.sequence);
      }
      h.apply(h.b.eventsQueued(h.now));
    } else if (r < 0.5) {
      const f = pick(h.b.inFlight());
      if (f) {
        targetApplies(f.batch);
        live.delete(f.batch.id);
        const released = h.released.length;
        h.apply(h.b.acknowledged(f.batch.id, h.now));
        for (const rel of h.released.slice(released)) {
          const inBatch = f.batch.events.filter((e) => e.partitionId === rel.partitionId).map((e) => e.sequence);
          expect(Math.max(...inBatch)).toBe(rel.throughSequence);
          ackedThrough.set(rel.partitionId, rel.throughSequence);
        }
      }
    } else if (r < 0.6) {
      const f = pick(h.b.inFlight());
      if (f) {
        if (rnd() < 0.5) targetApplies(f.batch); // applied, but the answer was lost
        live.delete(f.batch.id);
        h.apply(h.b.failed(f.batch.id, h.now));
      }
    } else if (r < 0.67) {
      const e = pick(EPS) as string;
      if (h.b.endpointStatus(e) === 'up') {
        killLiveOf(e);
        h.apply(h.b.endpointDown(e, h.now));
      }
    } else if (r < 0.8) {
      const e = pick(EPS.filter((x) => h.b.endpointStatus(x) === 'connecting'));
      if (e) h.apply(rnd() < 0.7 ? h.b.endpointUp(e, h.now) : h.b.endpointDown(e, h.now, 'refused'));
    } else if (r < 0.83) {
      h.q.setState(rnd() < 0.5 ? 'PAUSED' : 'REPLICATING');
      h.apply(h.b.poll(h.now));
    } else {
      const before = h.dropped.length;
      h.clock.advance(Math.floor(rnd() * timeout * 1.5));
      // Endpoints dropped by timeouts inside the timer: their batches are dead too.
      for (const e of h.dropped.slice(before)) killLiveOf(e);
    }
    // Endpoints dropped by repeated failures in any input.
    for (const e of EPS) if (h.b.endpointStatus(e) !== 'up') killLiveOf(e);
    checkQueue();
  }

  // Heal: everything up and replicating, the target answers everything; all must arrive, in order.
  h.q.setState('REPLICATING');
  h.apply(h.b.poll(h.now));
  for (let round = 0; round < 10_000 && h.q.size > 0; round++) {
    for (const e of EPS) if (h.b.endpointStatus(e) === 'connecting') h.apply(h.b.endpointUp(e, h.now));
    const f = h.b.inFlight()[0];
    if (f) {
      targetApplies(f.batch);
      live.delete(f.batch.id);
      const released = h.released.length;
      h.apply(h.b.acknowledged(f.batch.id, h.now));
      for (const rel of h.released.slice(released)) ackedThrough.set(rel.partitionId, rel.throughSequence);
    } else h.clock.advance(100);
    checkQueue();
  }
  expect(h.q.size).toBe(0);
  for (const [p, last] of committed) expect(applied.get(p)).toBe(last);
  expect(h.q.stats().acknowledged).toBe([...committed.values()].reduce((a, b) => a + b, 0));
  const st = h.b.stats();
  return {
    failed: st.batchesFailed,
    dropped: h.dropped.length,
    acknowledged: st.batchesAcknowledged,
    multiPartitionBatches: h.sends.filter((b) => new Set(b.events.map((e) => e.partitionId)).size > 1).length,
  };
}

describe('WanBatcher: randomized runs (acks, nacks, lost answers, timeouts, endpoints failing and coming back)', () => {
  const summaries: RunSummary[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const ackType = seed % 2 === 0 ? 'ACK_ON_RECEIPT' : 'ACK_ON_OPERATION_COMPLETE';
    it(`seed ${seed} (${ackType}): nothing lost, nothing reordered per partition, one batch per endpoint`, () => {
      summaries.push(randomRun(seed, ackType));
    });
  }
  it('the runs went through the hard paths (failures, dropped endpoints, mixed batches)', () => {
    expect(summaries).toHaveLength(40);
    expect(summaries.every((s) => s.acknowledged > 0)).toBe(true);
    expect(summaries.filter((s) => s.failed > 0).length).toBeGreaterThan(30);
    expect(summaries.filter((s) => s.dropped > 0).length).toBeGreaterThan(30);
    expect(summaries.filter((s) => s.multiPartitionBatches > 0).length).toBeGreaterThan(20);
  });
});

describe('WanBatcher: the status reported per endpoint (since when, why)', () => {
  it('connecting until the first attempt ends; then down since the first failure however many retries, up since the connection', () => {
    const h = new Harness();
    h.apply(h.b.poll(h.now));
    expect(h.b.endpointHealth('a:5701', h.now)).toEqual({ status: 'connecting', sinceMs: T0, reason: undefined, cause: undefined, failedAttempts: 0 });
    h.clock.advance(50);
    h.apply(h.b.endpointDown('a:5701', h.now, 'connect ECONNREFUSED'));
    const firstFailure = h.now;
    expect(h.b.endpointHealth('a:5701', h.now)).toEqual({ status: 'down', sinceMs: firstFailure, reason: 'connect ECONNREFUSED', cause: 'connect-failed', failedAttempts: 1 });
    // Retried (internally connecting): still reported down, since the first failure, with the latest reason.
    for (let k = 2; k <= 5; k++) {
      h.clock.advance(1000);
      expect(h.b.endpointStatus('a:5701')).toBe('connecting');
      expect(h.b.endpointHealth('a:5701', h.now)?.status).toBe('down');
      h.apply(h.b.endpointDown('a:5701', h.now, `connect timed out #${k}`));
      expect(h.b.endpointHealth('a:5701', h.now)).toEqual({ status: 'down', sinceMs: firstFailure, reason: `connect timed out #${k}`, cause: 'connect-failed', failedAttempts: k });
    }
    h.clock.advance(2000);
    h.apply(h.b.endpointUp('a:5701', h.now));
    expect(h.b.endpointHealth('a:5701', h.now)).toEqual({ status: 'up', sinceMs: h.now, reason: undefined, cause: undefined, failedAttempts: 0 });
    expect(h.b.endpointHealth('zz:1', h.now)).toBeUndefined();
  });

  it('a connection declared dead is down since then with its cause, and the batch in flight is resent on the next connection from the oldest event', () => {
    const h = new Harness();
    h.start(['a:5701']); // the only endpoint up: the partition waits for it
    const [p] = h.partitionsOf('a:5701', 1) as [number];
    h.push(p, 4);
    const first = h.lastSend();
    expect(first.endpoint).toBe('a:5701');
    h.clock.advance(5000 - 1); // just inside response-timeout-millis: the liveness probe is what notices
    h.apply(h.b.endpointDown('a:5701', h.now, 'no answer from the target for 5000 ms', 'heartbeat-timeout'));
    const downAt = h.now;
    expect(h.b.endpointHealth('a:5701', h.now)).toMatchObject({ status: 'down', sinceMs: downAt, cause: 'heartbeat-timeout', reason: 'no answer from the target for 5000 ms' });
    expect(h.dropped).toEqual(['a:5701']);
    // The ack of the dead connection's batch never counts, even if it came late.
    h.apply(h.b.acknowledged(first.id, h.now));
    expect(h.q.size).toBe(4);
    h.push(p, 2);
    // Reconnect attempts fail while the link is cut: down since the drop, not since the last attempt.
    h.clock.advance(2000);
    h.apply(h.b.endpointDown('a:5701', h.now, 'connect timed out'));
    expect(h.b.endpointHealth('a:5701', h.now)).toMatchObject({ status: 'down', sinceMs: downAt, cause: 'connect-failed' });
    expect(h.sends).toEqual([first]);
    h.clock.advance(2000);
    h.apply(h.b.endpointUp('a:5701', h.now));
    // The new connection gets the partition's events again from the oldest, in order, then the rest.
    expect(h.sends).toHaveLength(2);
    expect(seqs(h.lastSend())).toEqual(seqs(first));
    h.apply(h.b.acknowledged(h.lastSend().id, h.now));
    expect(seqs(h.lastSend()).map(([, s]) => s)).toEqual([5, 6]);
  });

  it('the reconnect pause runs from the attempt start: a dial that timed out is followed at once, a refused one after the backoff', () => {
    const h = new Harness({ retryInitialMs: 500, retryMaxMs: 2000 });
    h.start(['b:5701', 'c:5701']);
    h.apply(h.b.endpointDown('a:5701', h.now, 'refused'));
    const attempts: number[] = [];
    // Refused at once: attempts 0.5, 1, 2, 2 s apart.
    for (let k = 0; k < 4; k++) {
      const before = h.connects.length;
      while (h.connects.length === before) h.clock.advance(10);
      attempts.push(h.now);
      h.apply(h.b.endpointDown('a:5701', h.now, 'refused'));
    }
    expect(attempts.slice(1).map((t, i) => t - (attempts[i] as number))).toEqual([1000, 2000, 2000]);
    // Timed out after 2 s (a SYN into a dead link): the next attempt starts right away.
    const before = h.connects.length;
    while (h.connects.length === before) h.clock.advance(10);
    const started = h.now;
    h.clock.advance(2000);
    h.apply(h.b.endpointDown('a:5701', h.now, 'connect timed out'));
    expect(h.connects.length).toBe(before + 2);
    expect(h.now - started).toBe(2000);
    expect(h.b.endpointHealth('a:5701', h.now)?.failedAttempts).toBe(6);
  });

  it('dropped after batch failures: cause batch-failures', () => {
    const h = new Harness();
    h.start(['a:5701']);
    h.push(h.partitionsOf('a:5701', 1)[0] as number, 4);
    for (let k = 0; k < 3; k++) {
      const b = h.lastSend();
      h.apply(h.b.failed(b.id, h.now, 'target refused'));
      h.clock.advance(1000);
    }
    expect(h.b.endpointHealth('a:5701', h.now)).toMatchObject({ status: 'down', cause: 'batch-failures' });
    expect(h.b.endpointHealth('a:5701', h.now)?.reason).toMatch(/target refused \(3 failures in a row\)/);
  });
});
