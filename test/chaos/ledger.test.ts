// The chaos checker must be able to fail: each kind of loss is fed to it on purpose and must
// be reported, and each allowed outcome must pass.

import { describe, expect, it } from 'vitest';
import { Ledger } from './ledger.js';
import { formatSummary, percentile, type FaultRecord } from './summary.js';

const put = (l: Ledger, client: number, key: string, status: number, opts: { abandoned?: boolean } = {}): string => {
  const w = l.beginPut(client, 'm', key);
  l.endPut(w, status, opts);
  return w.value;
};

const offer = (l: Ledger, client: number, queue: string, status: number): string => {
  const o = l.beginOffer(client, queue);
  l.endOffer(o, status);
  return o.item;
};

describe('map checks', () => {
  it('accepts the last acknowledged value, and passes when every key was read back', () => {
    const l = new Ledger();
    put(l, 1, 'a', 200);
    const v = put(l, 1, 'a', 200);
    expect(l.read('m', 'a', 'final', 'm0', 200, v)).toBeUndefined();
    const r = l.check();
    expect(r.ok).toBe(true);
    expect(r.map).toMatchObject({ keys: 1, writesAcked: 2, writesInDoubt: 0, lostKeys: 0, revertedKeys: 0, unknownKeys: 0, unverifiedKeys: 0 });
  });

  it('reports a lost write: an acknowledged key that reads as absent', () => {
    const l = new Ledger();
    put(l, 1, 'a', 200);
    expect(l.read('m', 'a', 'final', 'm2', 204, '')?.kind).toBe('lost');
    const r = l.check();
    expect(r.ok).toBe(false);
    expect(r.map.lostKeys).toBe(1);
    expect(r.violations[0]?.detail).toMatch(/through m2 found no entry/);
  });

  it('reports a reverted write: the value of an earlier write, acknowledged or not', () => {
    const l = new Ledger();
    const old = put(l, 1, 'a', 200);
    const inDoubt = put(l, 1, 'a', 0);
    put(l, 1, 'a', 200);
    expect(l.read('m', 'a', 'run', 'm1', 200, old)?.kind).toBe('reverted');
    expect(l.read('m', 'a', 'final', 'm1', 200, inDoubt)?.kind).toBe('reverted');
    const r = l.check();
    expect(r.map.revertedKeys).toBe(1);
    expect(r.violations.map((v) => v.phase)).toEqual(['run', 'final']);
    expect(r.ok).toBe(false);
  });

  it('accepts a later write that had no 200 (it may have been applied), and absence before any 200', () => {
    const l2 = new Ledger();
    expect(() => l2.read('m', 'b', 'run', 'm0', 204, '')).toThrow(/never written/);
    const first = put(l2, 1, 'b', 503);
    expect(l2.read('m', 'b', 'run', 'm0', 204, '')).toBeUndefined();
    expect(l2.read('m', 'b', 'run', 'm0', 200, first)).toBeUndefined();
    put(l2, 1, 'b', 200);
    const later = put(l2, 1, 'b', 0);
    expect(l2.read('m', 'b', 'final', 'm0', 200, later)).toBeUndefined();
    const r = l2.check();
    expect(r.ok).toBe(true);
    expect(r.map.readsOfInDoubtWrites).toBe(2);
    expect(r.map.writesInDoubt).toBe(2);
  });

  it('accepts an abandoned write at any time, since it may still land', () => {
    const l = new Ledger();
    const abandoned = put(l, 1, 'a', 0, { abandoned: true });
    put(l, 1, 'a', 200);
    expect(l.read('m', 'a', 'final', 'm0', 200, abandoned)).toBeUndefined();
    expect(l.check().map.writesAbandoned).toBe(1);
  });

  it('reports a value nobody wrote to that key, and ignores failed reads', () => {
    const l = new Ledger();
    put(l, 1, 'a', 200);
    const otherKey = put(l, 1, 'b', 200);
    expect(l.read('m', 'a', 'final', 'm0', 200, otherKey)?.kind).toBe('unknown');
    expect(l.read('m', 'a', 'final', 'm0', 503, '')).toBeUndefined();
    expect(l.read('m', 'b', 'final', 'm0', 200, 'garbage')?.kind).toBe('unknown');
    const r = l.check();
    expect(r.map.unknownKeys).toBe(2);
    expect(r.map.readsFailed).toBe(1);
  });

  it('reports an acknowledged key the final read-back never reached (a run that read nothing cannot pass)', () => {
    const l = new Ledger();
    const v = put(l, 1, 'a', 200);
    put(l, 1, 'b', 200);
    l.read('m', 'a', 'final', 'm0', 200, v);
    l.read('m', 'b', 'run', 'm0', 200, v); // a read during the run does not count, nor does a failed one
    l.read('m', 'b', 'final', 'm0', 0, '');
    const r = l.check();
    expect(r.ok).toBe(false);
    expect(r.map.unverifiedKeys).toBe(1);
  });

  it('refuses misuse: another client writing a key, overlapping writes, a read during a write', () => {
    const l = new Ledger();
    const w = l.beginPut(1, 'm', 'a');
    expect(() => l.beginPut(2, 'm', 'a')).toThrow(/belongs to client 1/);
    expect(() => l.beginPut(1, 'm', 'a')).toThrow(/still in flight/);
    expect(() => l.read('m', 'a', 'run', 'm0', 200, w.value)).toThrow(/in flight/);
    l.endPut(w, 200);
    expect(() => l.endPut(w, 200)).toThrow(/twice/);
  });
});

describe('queue checks', () => {
  it('passes when every acknowledged item came back once and every queue was drained', () => {
    const l = new Ledger();
    const a = offer(l, 1, 'q', 200);
    const b = offer(l, 2, 'q', 0);
    l.polled('q', a);
    l.polled('q', b);
    l.drained('q');
    const r = l.check();
    expect(r.ok).toBe(true);
    expect(r.queue).toMatchObject({ offersAcked: 1, offersInDoubt: 1, inDoubtDelivered: 1, deliveries: 2, lost: 0, duplicatedItems: 0 });
  });

  it('reports a lost item: acknowledged, never polled', () => {
    const l = new Ledger();
    offer(l, 1, 'q', 200);
    const b = offer(l, 1, 'q', 200);
    l.polled('q', b);
    l.drained('q');
    const r = l.check();
    expect(r.ok).toBe(false);
    expect(r.queue.lost).toBe(1);
    expect(r.violations.map((v) => `${v.subject} ${v.kind} ${v.where}`)).toEqual(['queue lost q/1.1']);
  });

  it('counts a duplicated item without failing', () => {
    const l = new Ledger();
    const a = offer(l, 1, 'q', 200);
    l.polled('q', a);
    l.polled('q', a);
    l.polled('q', a);
    l.drained('q');
    const r = l.check();
    expect(r.queue).toMatchObject({ duplicatedItems: 1, duplicateDeliveries: 2, deliveries: 3, lost: 0 });
    expect(r.duplicates).toEqual([{ queue: 'q', item: a, times: 3 }]);
    expect(r.ok).toBe(true);
  });

  it('reports items never offered to that queue, and queues never drained', () => {
    const l = new Ledger();
    const a = offer(l, 1, 'q1', 200);
    offer(l, 1, 'q2', 200);
    l.polled('q1', a);
    l.polled('q2', a); // offered to q1
    l.polled('q1', '9.9');
    l.drained('q1');
    const r = l.check();
    expect(r.queue.unknown).toBe(2);
    expect(r.queue.undrained).toEqual(['q2']);
    expect(r.queue.lost).toBe(1);
    expect(r.ok).toBe(false);
  });
});

describe('summary', () => {
  it('percentiles by nearest rank', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
    expect(percentile([4, 1, 3, 2], 99)).toBe(4);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 99)).toBe(99);
  });

  it('prints the table with the failures found', () => {
    const l = new Ledger();
    put(l, 1, 'a', 200);
    l.read('m', 'a', 'final', 'm0', 204, '');
    offer(l, 1, 'q', 200);
    l.drained('q');
    const faults: FaultRecord[] = [
      { kind: 'kill', victim: 0, victimWasMaster: true, at: 1000, safeMs: 800, rejoinMs: 3000, problems: [] },
      { kind: 'longpause', victim: 1, victimWasMaster: false, at: 9000, safeMs: 6500, pausedMs: 7000, problems: ['kept running after it was removed'] },
    ];
    const text = formatSummary({ seed: 7, members: 3, clients: 4, minutes: 1, faults: ['kill', 'longpause'] }, faults, l.check());
    expect(text).toMatch(/\| kill -9 \+ restart \(safe from SIGKILL\) \| 1 \| 1 \| 0\.80 s \| 0\.80 s \| 3\.00 s \| 3\.00 s \|/);
    expect(text).toMatch(/\| map writes \(1 keys\) \| 1 \| 0 \| 1 \| 0 \| 0 \| – \|/);
    expect(text).toMatch(/\| queue items \| 1 \| 0 \(0 delivered\) \| 1 \|/);
    expect(text).toMatch(/Verdict: FAILED/);
    expect(text).toMatch(/kept running after it was removed/);
    expect(text).toMatch(/map lost \(final\) m\/a/);
  });
});
