import { describe, expect, it } from 'vitest';
import { betterVictim, memoryExceeded, partitionEntryLimit, SAMPLE_COUNT } from '../../../src/map/eviction.js';
import { RecordStore, type StoredValue } from '../../../src/map/record-store.js';
import type { EvictionConfig, EvictionPolicyName, MaxSizePolicyName } from '../../../src/config/types.js';
import { prng } from '../../support/prng.js';

const T0 = 1_700_000_000_000;
const MB = 1024 * 1024;
const cfg = (maxSizePolicy: MaxSizePolicyName, size: number, evictionPolicy: EvictionPolicyName = 'LRU'): EvictionConfig => ({ evictionPolicy, maxSizePolicy, size });

describe('partitionEntryLimit', () => {
  it('PER_PARTITION is the size itself', () => {
    expect(partitionEntryLimit(cfg('PER_PARTITION', 5), 3, 271)).toBe(5);
  });
  it("PER_NODE spreads the size over the partitions by member count, never below 1 (Hazelcast's translation)", () => {
    expect(partitionEntryLimit(cfg('PER_NODE', 1000), 1, 271)).toBeCloseTo(1000 / 271);
    expect(partitionEntryLimit(cfg('PER_NODE', 1000), 2, 271)).toBeCloseTo(2000 / 271);
    expect(partitionEntryLimit(cfg('PER_NODE', 100), 1, 271)).toBe(1);
    expect(partitionEntryLimit(cfg('PER_NODE', 1000), 0, 271)).toBeCloseTo(1000 / 271); // a member alone counts itself
    expect(partitionEntryLimit(cfg('PER_NODE', 2147483647), 5, 271)).toBeGreaterThan(1e7);
  });
  it('memory policies have no entry limit', () => {
    for (const p of ['USED_HEAP_SIZE', 'USED_HEAP_PERCENTAGE', 'FREE_HEAP_SIZE', 'FREE_HEAP_PERCENTAGE'] as const) expect(partitionEntryLimit(cfg(p, 10), 2, 271)).toBe(Infinity);
  });
});

describe('memoryExceeded', () => {
  const m = (mapMb: number, limitMb: number, usedMb: number) => ({ mapBytes: mapMb * MB, limitBytes: limitMb * MB, usedBytes: usedMb * MB });
  it.each([
    ['USED_HEAP_SIZE', 100, m(100, 1000, 500), false],
    ['USED_HEAP_SIZE', 100, m(100.01, 1000, 500), true],
    ['USED_HEAP_PERCENTAGE', 10, m(100, 1000, 500), false],
    ['USED_HEAP_PERCENTAGE', 10, m(101, 1000, 500), true],
    ['FREE_HEAP_SIZE', 200, m(0, 1000, 800), false],
    ['FREE_HEAP_SIZE', 200, m(0, 1000, 801), true],
    ['FREE_HEAP_SIZE', 200, m(0, 1000, 1200), true], // above the limit: nothing free
    ['FREE_HEAP_PERCENTAGE', 20, m(0, 1000, 800), false],
    ['FREE_HEAP_PERCENTAGE', 20, m(0, 1000, 801), true],
    ['PER_NODE', 1, m(1e6, 1, 1e6), false],
    ['PER_PARTITION', 1, m(1e6, 1, 1e6), false],
  ] as const)('%s size %d: %o -> %s', (policy, size, reading, exceeded) => {
    expect(memoryExceeded(cfg(policy, size), reading)).toBe(exceeded);
  });
});

describe('betterVictim', () => {
  it('LRU: older access wins, ties go to the older creation', () => {
    expect(betterVictim('LRU', 1, 99, 5, 2, 0, 0)).toBe(true);
    expect(betterVictim('LRU', 2, 0, 0, 1, 99, 5)).toBe(false);
    expect(betterVictim('LRU', 1, 0, 3, 1, 0, 4)).toBe(true);
    expect(betterVictim('LRU', 1, 0, 4, 1, 0, 4)).toBe(false);
  });
  it('LFU: fewer hits win, ties go to the older creation', () => {
    expect(betterVictim('LFU', 9, 1, 9, 0, 2, 0)).toBe(true);
    expect(betterVictim('LFU', 0, 2, 0, 9, 1, 9)).toBe(false);
    expect(betterVictim('LFU', 0, 2, 1, 0, 2, 2)).toBe(true);
  });
  it('RANDOM and NONE prefer none (the first sampled is taken)', () => {
    expect(betterVictim('RANDOM', 0, 0, 0, 9, 9, 9)).toBe(false);
    expect(betterVictim('NONE', 0, 0, 0, 9, 9, 9)).toBe(false);
  });
});

/** A model of what LRU/LFU know of each entry. */
class Model {
  readonly access = new Map<string, number>();
  readonly hits = new Map<string, number>();
  readonly created = new Map<string, number>();
  put(k: string, now: number): void {
    if (!this.created.has(k)) {
      this.created.set(k, now);
      this.hits.set(k, 0);
    }
    this.access.set(k, now);
  }
  get(k: string, now: number): void {
    if (!this.access.has(k)) return;
    this.access.set(k, now);
    this.hits.set(k, this.hits.get(k)! + 1);
  }
  remove(k: string): void {
    this.access.delete(k);
    this.hits.delete(k);
    this.created.delete(k);
  }
  /** What the policy compares of a key. */
  rank(policy: 'LRU' | 'LFU', k: string): [number, number] {
    return [(policy === 'LRU' ? this.access : this.hits).get(k)!, this.created.get(k)!];
  }
  /** Keys from the best victim to the worst. */
  ranking(policy: 'LRU' | 'LFU', except?: string): string[] {
    const keys = [...this.access.keys()].filter((k) => k !== except);
    const primary = policy === 'LRU' ? this.access : this.hits;
    return keys.sort((a, b) => primary.get(a)! - primary.get(b)! || this.created.get(a)! - this.created.get(b)!);
  }
}

/** A store with statistics (what a map with LRU or LFU eviction keeps) and a random workload over it, mirrored in the model. */
function workload(seed: number, keys: number, ops: number): { store: RecordStore; model: Model; now: number; rnd: () => number } {
  const rnd = prng(seed);
  const store = new RecordStore({ ttlMs: 0, maxIdleMs: 0, stats: true });
  const model = new Model();
  let now = T0;
  for (let i = 0; i < ops; i++) {
    // Distinct times for most operations, repeated ones for some (ties are broken by creation time).
    if (rnd() < 0.8) now += 1 + Math.floor(rnd() * 3);
    const k = `k${Math.floor(rnd() ** 2 * keys)}`;
    if (rnd() < 0.4) {
      store.put(k, 'v', undefined, now);
      model.put(k, now);
    } else {
      store.get(k, now);
      model.get(k, now);
    }
  }
  return { store, model, now, rnd };
}

describe('RecordStore.evictOne against a model', () => {
  for (const policy of ['LRU', 'LFU'] as const) {
    it(`${policy}: with a sample as large as the store it evicts exactly the model's best victim, every time`, () => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const { store, model, now, rnd } = workload(seed, 200, 3000);
        while (store.size > 1) {
          const except = rnd() < 0.5 ? model.ranking(policy)[0]! : 'not-there';
          const expected = model.ranking(policy, except)[0]!;
          const got = store.evictOne(policy, except, Math.floor(rnd() * 2 ** 32), store.size + 1, now);
          // Entries equal in both the policy's number and creation time are equally good victims.
          expect(got !== undefined && model.rank(policy, got)).toEqual(model.rank(policy, expected));
          expect(got).not.toBe(except);
          model.remove(got!);
          expect(store.get(got!, now)).toBeUndefined();
          expect(store.size).toBe(model.access.size);
        }
      }
    });

    it(`${policy}: with Hazelcast's sample of ${SAMPLE_COUNT}, the victim beats at least ${SAMPLE_COUNT - 1} others (best of its sample, never the excluded key)`, () => {
      const { store, model, now, rnd } = workload(7, 2000, 20000);
      expect(store.size).toBeGreaterThan(500);
      for (let i = 0; i < 100; i++) {
        const ranking = model.ranking(policy);
        const except = ranking[0]!;
        const got = store.evictOne(policy, except, Math.floor(rnd() * 2 ** 32), SAMPLE_COUNT, now)!;
        expect(got).not.toBe(except);
        const [p, c] = model.rank(policy, got);
        const worse = ranking.filter((k) => { const [kp, kc] = model.rank(policy, k); return kp > p || (kp === p && kc > c); }).length;
        expect(worse).toBeGreaterThanOrEqual(SAMPLE_COUNT - 2); // 15 sampled, one of them maybe the excluded key
        model.remove(got);
      }
    });
  }

  it('RANDOM: victims are spread over the store (taken from random positions), none is the excluded key', () => {
    const store = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    for (let i = 0; i < 1000; i++) store.put(`k${i}`, 'v', undefined, T0);
    const rnd = prng(3);
    const victims = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const v = store.evictOne('RANDOM', 'k0', Math.floor(rnd() * 2 ** 32), SAMPLE_COUNT, T0)!;
      expect(v).not.toBe('k0');
      victims.add(v);
      store.put(v, 'v', undefined, T0);
    }
    expect(victims.size).toBeGreaterThan(150);
  });

  it('takes an expired entry of the sample first, and has nothing to evict when only the excluded key is left', () => {
    const store = new RecordStore({ ttlMs: 0, maxIdleMs: 1000, stats: true });
    store.put('old', 'v', undefined, T0);
    store.put('idle', 'v', undefined, T0 + 10);
    store.get('old', T0 + 500); // 'old' is the more recently used, but 'idle' has expired by T0 + 1200
    expect(store.evictOne('LRU', 'x', 0, SAMPLE_COUNT, T0 + 1200)).toBe('idle');
    expect(store.evictOne('LRU', 'old', 0, SAMPLE_COUNT, T0 + 1200)).toBeUndefined();
    expect(store.size).toBe(1);
  });

  it('tells the observer of an eviction as of a remove (persistence logs a remove)', () => {
    const seen: [string, StoredValue | undefined, StoredValue | undefined][] = [];
    const store = new RecordStore({ ttlMs: 0, maxIdleMs: 0, observer: { changed: (k, b, a) => seen.push([k, b, a]), cleared: () => undefined } });
    store.put('a', '1', undefined, T0);
    store.put('b', '2', undefined, T0);
    seen.length = 0;
    const v = store.evictOne('RANDOM', 'b', 0, SAMPLE_COUNT, T0);
    expect(v).toBe('a');
    expect(seen).toEqual([['a', expect.objectContaining({ value: '1' }), undefined]]);
  });

  it('a store bounded by evicting after each added entry never holds more than its limit', () => {
    const rnd = prng(11);
    const store = new RecordStore({ ttlMs: 0, maxIdleMs: 0, stats: true });
    const limit = 37;
    for (let i = 0; i < 2000; i++) {
      const k = `k${Math.floor(rnd() * 500)}`;
      store.put(k, 'v'.repeat(Math.floor(rnd() * 100)), undefined, T0 + i);
      while (store.size > limit) expect(store.evictOne('LRU', k, Math.floor(rnd() * 2 ** 32), SAMPLE_COUNT, T0 + i)).toBeDefined();
      expect(store.size).toBeLessThanOrEqual(limit);
      expect(store.get(k, T0 + i)).toBeDefined(); // the entry just put survives its own eviction
    }
    expect(store.footprintBytes).toBeGreaterThan(0);
  });
});

describe('RecordStore.evictOne RANDOM', () => {
  it('takes each of the other sampled entries alike, whatever their slots (the entry just put never)', () => {
    const next = prng(42);
    const counts = new Map<string, number>();
    const trials = 6000;
    for (let t = 0; t < trials; t++) {
      const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
      for (const k of ['hot', 'c-a', 'c-b', 'new']) s.put(k, 'v', undefined, 0);
      const victim = s.evictOne('RANDOM', 'new', (next() * 0x1_0000_0000) >>> 0, SAMPLE_COUNT, 0)!;
      counts.set(victim, (counts.get(victim) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['c-a', 'c-b', 'hot']);
    // Uniform: 1/3 each, within ~5 standard deviations (sd of a share ~0.006 at 6000 trials).
    for (const [k, n] of counts) expect(Math.abs(n / trials - 1 / 3), k).toBeLessThan(0.03);
  });
});

