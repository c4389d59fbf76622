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
    expect(s.get('k', T0)).toEqual({ value: 'v1', contentType: 'text/plain' });
    s.put('k', 'v2', undefined, T0);
    expect(s.get('k', T0)).toEqual({ value: 'v2', contentType: undefined });
    expect(s.size).toBe(1);
    s.put('other', '', undefined, T0);
    expect(s.get('other', T0)).toEqual({ value: '', contentType: undefined }); // an empty value is a value
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
