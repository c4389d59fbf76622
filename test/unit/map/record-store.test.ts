import { describe, expect, it } from 'vitest';
import { RecordStore } from '../../../src/map/record-store.js';

const T0 = 1_700_000_000_000;
const keysOf = (s: RecordStore, now: number): string[] => [...s.liveEntries(now)].map(([k]) => k).sort();

describe('RecordStore without expiry', () => {
  const store = (): RecordStore => new RecordStore({ ttlMs: 0, maxIdleMs: 0 });

  it('put, get, overwrite, remove, clear, size', () => {
    const s = store();
    expect(s.size).toBe(0);
    expect(s.get('k', T0)).toBeUndefined();
    s.put('k', 'v1', 'text/plain', T0);
    expect(s.get('k', T0)).toEqual({ value: 'v1', contentType: 'text/plain', version: 0 });
    s.put('k', 'v2', undefined, T0);
    expect(s.get('k', T0)).toEqual({ value: 'v2', contentType: undefined, version: 1 });
    expect(s.size).toBe(1);
    s.put('other', '', undefined, T0);
    expect(s.get('other', T0)).toEqual({ value: '', contentType: undefined, version: 0 }); // an empty value is a value
    expect(s.size).toBe(2);
    expect(s.remove('k', T0)).toBe(true);
    expect(s.remove('k', T0)).toBe(false);
    expect(s.remove('never', T0)).toBe(false);
    expect(s.get('k', T0)).toBeUndefined();
    s.clear();
    expect(s.size).toBe(0);
    expect(s.get('other', T0)).toBeUndefined();
  });

  it('never expires, sweep removes nothing', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    const later = T0 + 10 * 365 * 24 * 3600 * 1000;
    expect(s.sweep(later)).toBe(0);
    expect(s.get('k', later)?.value).toBe('v');
    expect(keysOf(s, later)).toEqual(['k']);
  });

  it('keeps any byte sequence (latin1 strings) as-is', () => {
    const s = store();
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('latin1');
    s.put('bin', bytes, 'application/octet-stream', T0);
    expect(Buffer.from(s.get('bin', T0)!.value, 'latin1')).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
  });
});

describe('RecordStore with time-to-live', () => {
  const store = (): RecordStore => new RecordStore({ ttlMs: 10_000, maxIdleMs: 0 });

  it('expires exactly at the TTL boundary', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    expect(s.get('k', T0 + 9_999)?.value).toBe('v');
    expect(s.get('k', T0 + 10_000)).toBeUndefined();
    // The expired entry was removed on the way.
    expect(s.size).toBe(0);
  });

  it('reads do not extend the TTL', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    for (let t = 1000; t < 10_000; t += 1000) expect(s.get('k', T0 + t)?.value).toBe('v');
    expect(s.get('k', T0 + 10_000)).toBeUndefined();
  });

  it('a put resets the TTL', () => {
    const s = store();
    s.put('k', 'v1', undefined, T0);
    s.put('k', 'v2', 'text/plain', T0 + 8_000);
    expect(s.get('k', T0 + 15_000)).toMatchObject({ value: 'v2', contentType: 'text/plain' });
    expect(s.get('k', T0 + 17_999)?.value).toBe('v2');
    expect(s.get('k', T0 + 18_000)).toBeUndefined();
  });

  it('remove returns false for an expired entry, and drops it', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    s.put('live', 'v', undefined, T0 + 5_000);
    expect(s.remove('k', T0 + 10_000)).toBe(false);
    expect(s.size).toBe(1);
    expect(s.remove('live', T0 + 10_000)).toBe(true);
    expect(s.size).toBe(0);
  });

  it('sweep removes only expired entries and counts them', () => {
    const s = store();
    for (let i = 0; i < 10; i++) s.put(`k${i}`, 'v', undefined, T0 + i * 1000);
    expect(s.sweep(T0 + 9_999)).toBe(0);
    expect(s.sweep(T0 + 10_000)).toBe(1);
    expect(s.sweep(T0 + 14_500)).toBe(4);
    expect(s.size).toBe(5);
    expect(s.sweep(T0 + 14_500)).toBe(0);
    expect(keysOf(s, T0 + 14_500)).toEqual(['k5', 'k6', 'k7', 'k8', 'k9']);
    expect(s.sweep(T0 + 100_000)).toBe(5);
    expect(s.size).toBe(0);
  });

  it('liveEntries skips expired entries without removing them', () => {
    const s = store();
    s.put('old', 'a', undefined, T0);
    s.put('new', 'b', 'text/plain', T0 + 5_000);
    const live = [...s.liveEntries(T0 + 10_000)];
    expect(live).toHaveLength(1);
    expect(live[0]![0]).toBe('new');
    expect(live[0]![1]).toMatchObject({ value: 'b', contentType: 'text/plain' });
    expect(s.size).toBe(2); // not removed
    expect(keysOf(s, T0)).toEqual(['new', 'old']);
  });

  it('size counts entries not yet swept; sweep makes it exact', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    expect(s.size).toBe(1);
    s.sweep(T0 + 10_000);
    expect(s.size).toBe(0);
  });
});

describe('RecordStore with max-idle', () => {
  const store = (): RecordStore => new RecordStore({ ttlMs: 0, maxIdleMs: 10_000 });

  it('expires max-idle after the last access, exactly at the boundary', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    expect(s.get('k', T0 + 10_000)).toBeUndefined();
    s.put('j', 'v', undefined, T0);
    expect(s.get('j', T0 + 9_999)?.value).toBe('v');
  });

  it('reads reset the idle clock', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    let t = T0;
    for (let i = 0; i < 10; i++) {
      t += 9_999;
      expect(s.get('k', t)?.value, `read ${i}`).toBe('v');
    }
    expect(s.get('k', t + 10_000)).toBeUndefined();
  });

  it('writes reset the idle clock', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    s.put('k', 'w', undefined, T0 + 9_000);
    expect(s.get('k', T0 + 18_999)?.value).toBe('w');
  });

  it('liveEntries and sweep do not count as access', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    expect(keysOf(s, T0 + 9_000)).toEqual(['k']);
    expect(s.sweep(T0 + 9_000)).toBe(0);
    expect(s.get('k', T0 + 10_000)).toBeUndefined();
  });

  it('remove of an idle-expired entry returns false', () => {
    const s = store();
    s.put('k', 'v', undefined, T0);
    expect(s.remove('k', T0 + 10_000)).toBe(false);
    expect(s.size).toBe(0);
  });
});

describe('RecordStore with both TTL and max-idle', () => {
  it('whichever comes first wins', () => {
    const s = new RecordStore({ ttlMs: 10_000, maxIdleMs: 4_000 });
    s.put('idle', 'v', undefined, T0);
    s.put('busy', 'v', undefined, T0);
    expect(s.get('idle', T0 + 4_000)).toBeUndefined(); // idle first
    // Reading every 3 s keeps max-idle away, but TTL still ends it at 10 s.
    expect(s.get('busy', T0 + 3_000)?.value).toBe('v');
    expect(s.get('busy', T0 + 6_000)?.value).toBe('v');
    expect(s.get('busy', T0 + 9_000)?.value).toBe('v');
    expect(s.get('busy', T0 + 10_000)).toBeUndefined();
  });
});

describe('RecordStore entry metadata and views', () => {
  it('statistics: creation time and hits survive overwrites, reads count hits and access time', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0, stats: true });
    s.put('k', 'v1', 'text/plain', T0);
    expect(s.get('k', T0 + 1)?.value).toBe('v1');
    expect(s.get('k', T0 + 2)?.value).toBe('v1');
    s.put('k', 'a longer value', undefined, T0 + 3); // resized record: metadata carried over
    expect(s.mergeView('k', T0 + 4)).toEqual({ value: 'a longer value', contentType: undefined, expiresAt: 0, lastAccessAt: T0 + 3, creationTime: T0, lastUpdateTime: T0 + 3, hits: 2, version: 1, maxIdleMs: 0 });
    s.put('k', 'same length va', undefined, T0 + 5); // in place
    expect(s.mergeView('k', T0 + 6)).toMatchObject({ value: 'same length va', creationTime: T0, lastUpdateTime: T0 + 5, hits: 2, version: 2 });
  });

  it('mergeView of a plain map: zero metadata; putMerged keeps the version and expiry (a plain store starts keeping expiry)', () => {
    const plain = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    plain.put('k', 'v', 'a/b', T0);
    expect(plain.mergeView('k', T0)).toEqual({ value: 'v', contentType: 'a/b', expiresAt: 0, lastAccessAt: 0, creationTime: 0, lastUpdateTime: 0, hits: 0, version: 0, maxIdleMs: 0 });
    const e = { value: 'm', contentType: undefined, expiresAt: T0 + 50, lastAccessAt: T0 + 1, creationTime: T0 - 5, lastUpdateTime: T0 - 1, hits: 7, version: 9, maxIdleMs: 0 };
    plain.putMerged('m', e);
    expect(plain.mergeView('m', T0 + 49)).toMatchObject({ value: 'm', expiresAt: T0 + 50, hits: 0, version: 9 });
    expect(plain.mergeView('m', T0 + 50)).toBeUndefined();
    // The entries it held before keep their versions and never expire.
    expect(plain.mergeView('k', T0 + 10 ** 9)).toMatchObject({ value: 'v', contentType: 'a/b', expiresAt: 0, version: 0 });
    const ttl = new RecordStore({ ttlMs: 1000, maxIdleMs: 0 });
    ttl.putMerged('m', e);
    expect(ttl.mergeView('m', T0 + 49)).toEqual({ ...e, creationTime: 0, hits: 0 });
    expect(ttl.mergeView('m', T0 + 50)).toBeUndefined();
    const stats = new RecordStore({ ttlMs: 0, maxIdleMs: 0, stats: true });
    stats.putMerged('m', e);
    expect(stats.mergeView('m', T0 + 10)).toEqual(e);
  });

  it('exportTo and restore round-trip every kind of store (expired entries left out)', () => {
    for (const policy of [{ ttlMs: 0, maxIdleMs: 0 }, { ttlMs: 10_000, maxIdleMs: 0 }, { ttlMs: 0, maxIdleMs: 5_000 }, { ttlMs: 10_000, maxIdleMs: 0, stats: true }]) {
      const a = new RecordStore(policy);
      for (let i = 0; i < 300; i++) a.put(`k${i}`, 'x'.repeat(i), i % 2 === 0 ? 'text/plain' : undefined, T0 + i * 10);
      // Versions travel too.
      for (let i = 0; i < 300; i += 7) a.put(`k${i}`, 'y'.repeat(i), undefined, T0 + i * 10);
      const now = T0 + 6_000; // max-idle 5 s: the first 100 are idle-expired
      const flat: unknown[] = [];
      a.exportTo(flat, now, (v) => v);
      const stride = 10;
      expect(flat.length % stride).toBe(0);
      const b = new RecordStore(policy);
      for (let j = 0; j < flat.length; j += stride) {
        const [key, value, ct, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits, version, maxIdleMs] = flat.slice(j, j + stride) as [string, string, string | null, number, number, number, number, number, number, number];
        b.putMerged(key, { value, contentType: ct ?? undefined, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits, version, maxIdleMs });
      }
      const live = [...a.liveEntries(now)].map(([k]) => k);
      expect(live.length).toBe(policy.maxIdleMs > 0 ? 199 : 300); // idle since T0 + 1000 or before: k0..k100
      expect(b.size).toBe(live.length);
      for (const k of live) expect(b.mergeView(k, now)).toEqual(a.mergeView(k, now));
    }
  });

  it('liveEntries tolerates changes between steps (a snapshot written asynchronously)', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    for (let i = 0; i < 2000; i++) s.put(`k${i}`, 'v'.repeat(100), undefined, T0);
    const seen: string[] = [];
    for (const [k, v] of s.liveEntries(T0)) {
      seen.push(k);
      if (k === 'k10') {
        // Removals (with compactions), resized overwrites and new keys meanwhile.
        for (let i = 11; i < 1500; i++) s.remove(`k${i}`, T0);
        s.put('k1600', 'w', undefined, T0);
        s.put('new', 'n', undefined, T0);
      }
      if (k === 'k1600') expect(v.value).toBe('w');
    }
    expect(seen.length).toBe(11 + 500);
    expect(seen).not.toContain('k11');
    expect(seen).not.toContain('new');
  });

  it('observers see full views before and after (puts, overwrites, removes, expiry, sweep)', () => {
    const events: [string, unknown, unknown][] = [];
    const s = new RecordStore({ ttlMs: 1000, maxIdleMs: 0, observer: { changed: (k, b, a) => events.push([k, b, a]), cleared: () => events.push(['*', null, null]) } });
    s.put('a', 'v1', 'x/y', T0);
    s.put('a', 'v2 longer', undefined, T0 + 10);
    expect(events[0]).toEqual(['a', undefined, expect.objectContaining({ value: 'v1', contentType: 'x/y', expiresAt: T0 + 1000, lastAccessAt: T0 })]);
    expect(events[1]).toEqual(['a', expect.objectContaining({ value: 'v1', contentType: 'x/y' }), expect.objectContaining({ value: 'v2 longer', expiresAt: T0 + 1010 })]);
    s.put('b', 'vb', undefined, T0);
    s.put('c', 'vc', undefined, T0 + 500);
    expect(s.get('b', T0 + 1000)).toBeUndefined();
    expect(events[4]).toEqual(['b', expect.objectContaining({ value: 'vb' }), undefined]);
    s.put('d', 'vd', undefined, T0 + 1000);
    expect(s.sweep(T0 + 1500)).toBe(2); // a (until T0 + 1010) and c (until T0 + 1500), in slab order
    expect(events[6]).toEqual(['a', expect.objectContaining({ value: 'v2 longer' }), undefined]);
    expect(events[7]).toEqual(['c', expect.objectContaining({ value: 'vc' }), undefined]);
    expect(s.remove('d', T0 + 1600)).toBe(true);
    expect(events[8]).toEqual(['d', expect.objectContaining({ value: 'vd', expiresAt: T0 + 2000 }), undefined]);
    s.clear();
    expect(events[9]).toEqual(['*', null, null]);
  });

  it('expiry fields survive many entries and compactions (sweep of half a big store)', () => {
    const s = new RecordStore({ ttlMs: 10_000, maxIdleMs: 0 });
    for (let i = 0; i < 5000; i++) s.put(`k${i}`, 'x'.repeat(100), undefined, T0 + (i % 2) * 5_000);
    expect(s.sweep(T0 + 10_000)).toBe(2500);
    expect(s.size).toBe(2500);
    for (let i = 1; i < 5000; i += 2) expect(s.mergeView(`k${i}`, T0 + 14_999)?.expiresAt).toBe(T0 + 15_000);
    expect(s.sweep(T0 + 15_000)).toBe(2500);
    expect(s.size).toBe(0);
  });
});
