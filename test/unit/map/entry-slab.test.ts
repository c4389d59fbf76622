import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES, EntrySlab, hashKey } from '../../../src/map/entry-slab.js';
import { prng } from '../../support/prng.js';

const rng = prng;

const bytes = (n: number, seed: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode((i * 31 + seed) & 0xff);
  return s;
};

interface Model {
  value: string;
  ct: string | undefined;
  meta: number[];
}

/** Every entry of the slab as a Map (checked against find() on the way), and the walk's key order. */
function contents(s: EntrySlab): { map: Map<string, Model>; order: string[] } {
  const map = new Map<string, Model>();
  const order: string[] = [];
  for (let r = s.first(); r >= 0; r = s.next(r)) {
    const key = s.key(r);
    expect(map.has(key), `key ${JSON.stringify(key)} walked twice`).toBe(false);
    expect(s.find(key)).toBe(r);
    const meta: number[] = [];
    for (let i = 0; i < s.metaFields; i++) meta.push(s.meta(r, i));
    map.set(key, { value: s.value(r), ct: s.contentType(r), meta });
    order.push(key);
  }
  expect(map.size).toBe(s.size);
  return { map, order };
}

function expectSame(s: EntrySlab, model: Map<string, Model>): void {
  const { map } = contents(s);
  expect(map.size).toBe(model.size);
  for (const [k, m] of model) {
    const got = map.get(k);
    expect(got, `key ${JSON.stringify(k)}`).toBeDefined();
    expect(got!.value === m.value, `value of ${JSON.stringify(k)}`).toBe(true);
    expect(got!.ct).toBe(m.ct);
    expect(got!.meta).toEqual(m.meta);
  }
}

describe('hashKey', () => {
  it('is stable (the index depends on it only within a process, but keep it deterministic)', () => {
    expect(hashKey('')).toBe(hashKey(''));
    expect(hashKey('k1')).toBe(hashKey('k1'));
    expect(hashKey('k1')).not.toBe(hashKey('k2'));
    expect(hashKey('k1')).toBeGreaterThanOrEqual(0);
    expect(hashKey('k1')).toBeLessThan(2 ** 32);
  });
});

describe('EntrySlab', () => {
  it('put, find, read back, overwrite in place, overwrite with another size, remove', () => {
    const s = new EntrySlab(0);
    expect(s.size).toBe(0);
    expect(s.find('a')).toBe(-1);
    expect(s.first()).toBe(-1);
    const r = s.put('a', 'value-1', 'text/plain');
    expect(s.size).toBe(1);
    expect(s.find('a')).toBe(r);
    expect(s.key(r)).toBe('a');
    expect(s.value(r)).toBe('value-1');
    expect(s.contentType(r)).toBe('text/plain');
    // Same record size: written in place, same handle, no dead bytes.
    expect(s.put('a', 'value-2', undefined)).toBe(r);
    expect(s.value(r)).toBe('value-2');
    expect(s.contentType(r)).toBeUndefined();
    expect(s.footprint.deadBytes).toBe(0);
    // Another size: appended, the old record dead.
    const r2 = s.put('a', 'a longer value than before', 'application/json');
    expect(r2).not.toBe(r);
    expect(s.size).toBe(1);
    expect(s.footprint.deadBytes).toBeGreaterThan(0);
    expect(s.value(s.find('a'))).toBe('a longer value than before');
    expect(s.contentType(r2)).toBe('application/json');
    // Remove: the handle stays readable until the next put.
    const gone = s.remove('a');
    expect(gone).toBe(r2);
    expect(s.value(gone)).toBe('a longer value than before');
    expect(s.key(gone)).toBe('a');
    expect(s.size).toBe(0);
    expect(s.find('a')).toBe(-1);
    expect(s.remove('a')).toBe(-1);
    expect(s.first()).toBe(-1);
  });

  it('keeps any key exactly: empty, latin1 high chars, wide chars, lone surrogates; keys that differ only in width stay apart', () => {
    const s = new EntrySlab(0);
    const keys = ['', 'k', 'é', '\u00ff\u0080', 'ключ ✓ 𝄞', '日本語', '\ud800', 'a\udc00b', 'a\u0100', 'a\u0000', 'x'.repeat(70_000)];
    keys.forEach((k, i) => s.put(k, `v${i}`, undefined));
    expect(s.size).toBe(keys.length);
    keys.forEach((k, i) => {
      const r = s.find(k);
      expect(r, JSON.stringify(k.slice(0, 20))).toBeGreaterThanOrEqual(0);
      expect(s.key(r) === k).toBe(true);
      expect(s.value(r)).toBe(`v${i}`);
    });
    // 'a\u0100' is stored wide; 'a' + 'Ā'.charCodeAt & 0xff must not match it.
    expect(s.find('a\u0000')).not.toBe(s.find('a\u0100'));
    expect(contents(s).order).toEqual(keys);
  });

  it('keeps any byte of a value (latin1), and empty values', () => {
    const s = new EntrySlab(0);
    const all = bytes(256, 0);
    s.put('bin', all, 'application/octet-stream');
    s.put('empty', '', undefined);
    expect(s.value(s.find('bin')) === all).toBe(true);
    expect(s.value(s.find('empty'))).toBe('');
  });

  it('grows from one small chunk to full chunks; records larger than a chunk get their own', () => {
    const s = new EntrySlab(2);
    s.put('k0', 'x', undefined);
    expect(s.footprint.chunks).toBe(1);
    expect(s.footprint.chunkBytes).toBeLessThanOrEqual(256);
    const model = new Map<string, Model>();
    model.set('k0', { value: 'x', ct: undefined, meta: [0, 0] });
    for (let i = 1; i < 3000; i++) {
      const v = bytes(i % 200, i);
      const r = s.put(`k${i}`, v, i % 3 === 0 ? 'text/plain' : undefined);
      s.setMeta(r, 0, i);
      s.setMeta(r, 1, -i);
      model.set(`k${i}`, { value: v, ct: i % 3 === 0 ? 'text/plain' : undefined, meta: [i, -i] });
    }
    const f = s.footprint;
    expect(f.chunks).toBeGreaterThan(3);
    // Only the first chunk grew by doubling; every chunk is at most CHUNK_BYTES; the free tail is under one chunk.
    expect(f.chunkBytes).toBeLessThanOrEqual(f.chunks * CHUNK_BYTES);
    expect(f.chunkBytes - f.usedBytes).toBeLessThan(CHUNK_BYTES + f.chunks * 300);
    expect(f.deadBytes).toBe(0);
    const big = bytes(3 * CHUNK_BYTES + 5, 7);
    const rb = s.put('big', big, 'application/octet-stream');
    s.setMeta(rb, 0, 42);
    model.set('big', { value: big, ct: 'application/octet-stream', meta: [42, 0] });
    s.put('after-big', 'small', undefined);
    model.set('after-big', { value: 'small', ct: undefined, meta: [0, 0] });
    expect(s.footprint.chunks).toBe(f.chunks + 2);
    expectSame(s, model);
    // The walk is in append order.
    expect(contents(s).order).toEqual([...model.keys()]);
  });

  it('metadata: zero on a new record, kept by an in-place overwrite, zero again after a resized one, kept by compaction', () => {
    const s = new EntrySlab(5);
    let r = s.put('k', 'aaaa', undefined);
    for (let i = 0; i < 5; i++) expect(s.meta(r, i)).toBe(0);
    for (let i = 0; i < 5; i++) s.setMeta(r, i, 1_700_000_000_000 + i);
    expect(s.put('k', 'bbbb', undefined)).toBe(r);
    for (let i = 0; i < 5; i++) expect(s.meta(r, i)).toBe(1_700_000_000_000 + i);
    r = s.put('k', 'a value of another size', undefined);
    for (let i = 0; i < 5; i++) expect(s.meta(r, i)).toBe(0);
    s.setMeta(r, 4, 0.5);
    // Enough dead records to compact: the metadata travels with the record.
    for (let i = 0; i < 200; i++) s.put(`t${i}`, bytes(40, i), undefined);
    for (let i = 0; i < 200; i++) s.remove(`t${i}`);
    s.compactIfSparse();
    expect(s.footprint.deadBytes).toBe(0);
    expect(s.meta(s.find('k'), 4)).toBe(0.5);
  });

  it('deletion and reuse: removals compact (memory goes back), later puts reuse the slab, a walk survives removals', () => {
    const s = new EntrySlab(0);
    for (let i = 0; i < 5000; i++) s.put(`key-${i}`, bytes(100, i), 'text/plain');
    const full = s.footprint;
    // Remove every other entry while walking: removed records stay readable, the walk goes on.
    let walked = 0;
    for (let r = s.first(); r >= 0; r = s.next(r)) {
      walked++;
      const k = s.key(r);
      if (Number(k.slice(4)) % 2 === 0) s.removeAt(r);
    }
    expect(walked).toBe(5000);
    expect(s.size).toBe(2500);
    expect(s.footprint.deadBytes).toBe(full.usedBytes / 2);
    s.compactIfSparse(); // exactly half dead: not more than half, stays
    expect(s.footprint.deadBytes).toBe(full.usedBytes / 2);
    s.remove('key-1');
    s.compactIfSparse();
    const after = s.footprint;
    expect(after.deadBytes).toBe(0);
    expect(after.usedBytes).toBe((full.usedBytes / 5000) * 2499);
    expect(after.chunkBytes).toBeLessThan(full.chunkBytes * 0.6);
    expect(after.indexBytes).toBeLessThanOrEqual(full.indexBytes);
    for (let i = 3; i < 5000; i += 2) expect(s.value(s.find(`key-${i}`)) === bytes(100, i)).toBe(true);
    // Remove all: back to almost nothing; put again.
    for (let i = 3; i < 5000; i += 2) expect(s.remove(`key-${i}`)).toBeGreaterThanOrEqual(0);
    s.compactIfSparse();
    expect(s.size).toBe(0);
    expect(s.footprint.chunkBytes).toBeLessThanOrEqual(256);
    expect(s.footprint.indexBytes).toBeLessThanOrEqual(5 * 8);
    s.put('again', 'v', undefined);
    expect(s.value(s.find('again'))).toBe('v');
  });

  it('puts that resize records compact once a quarter of the bytes are dead, so dead bytes stay bounded', () => {
    const s = new EntrySlab(0);
    for (let i = 0; i < 1000; i++) s.put(`k${i}`, bytes(50, i), undefined);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 1000; i++) s.put(`k${i}`, bytes(50 + ((round + i) % 7) * 8, i), undefined);
      const f = s.footprint;
      expect(f.deadBytes * 4).toBeLessThan(f.usedBytes + 4096 * 4);
    }
    for (let i = 0; i < 1000; i++) expect(s.value(s.find(`k${i}`)) === bytes(50 + ((19 + i) % 7) * 8, i)).toBe(true);
  });

  it('a removed record larger than a chunk gives its chunk back at once; holes are cleared by a compaction that moves such chunks without copying', () => {
    const s = new EntrySlab(1);
    const big = (i: number): string => bytes(CHUNK_BYTES + 100 + i, i);
    for (let i = 0; i < 100; i++) {
      s.setMeta(s.put(`b${i}`, big(i), 'a/b'), 0, i);
      s.setMeta(s.put(`s${i}`, bytes(40, i), undefined), 0, 1000 + i);
    }
    const full = s.footprint;
    // 10 big ones removed: 10 chunks' bytes back at once (before: nothing until half the bytes were dead).
    const layout = s.layoutVersion;
    let freed = 0;
    for (let i = 0; i < 10; i++) {
      freed += s.recordBytes(s.find(`b${i}`));
      s.remove(`b${i}`);
      s.compactIfSparse();
    }
    const after = s.footprint;
    expect(full.chunkBytes - after.chunkBytes).toBeGreaterThanOrEqual(freed);
    expect(after.deadBytes).toBe(0);
    expect(s.layoutVersion).toBeGreaterThan(layout); // a walk across turns starts over
    // A removal followed by a put releases too (the put is where handles may move).
    s.remove('b10');
    s.put('x', 'y', undefined);
    expect(s.footprint.chunkBytes).toBeLessThan(after.chunkBytes - CHUNK_BYTES);
    for (let i = 11; i < 60; i++) {
      s.remove(`b${i}`);
      s.compactIfSparse();
    }
    for (let i = 0; i < 100; i++) {
      const r = s.find(`b${i}`);
      expect(r >= 0).toBe(i >= 60);
      if (r >= 0) {
        expect(s.value(r) === big(i)).toBe(true);
        expect(s.meta(r, 0)).toBe(i);
        expect(s.contentType(r)).toBe('a/b');
      }
      const q = s.find(`s${i}`);
      expect(s.value(q) === bytes(40, i)).toBe(true);
      expect(s.meta(q, 0)).toBe(1000 + i);
    }
    expect(contents(s).map.size).toBe(s.size);
    // All removed: nothing left.
    for (const k of s.keys()) s.remove(k);
    s.compactIfSparse();
    expect(s.footprint).toMatchObject({ usedBytes: 0, deadBytes: 0, chunkBytes: 0 });

    // Only big records: once the released slots are more than half, a compaction drops them and
    // moves the live chunks as they are (the same buffers, nothing copied).
    const t = new EntrySlab(0);
    for (let i = 0; i < 20; i++) t.put(`b${i}`, big(i), undefined);
    const bufOf = (k: string): ArrayBufferLike => (t as unknown as { bufs: Buffer[] }).bufs[t.find(k) >>> 12]!.buffer;
    const kept = bufOf('b19');
    for (let i = 0; i < 11; i++) {
      t.remove(`b${i}`);
      t.compactIfSparse();
    }
    expect(t.footprint.chunks).toBe(9);
    expect(bufOf('b19')).toBe(kept);
    for (let i = 11; i < 20; i++) expect(t.value(t.find(`b${i}`)) === big(i)).toBe(true);
    // The last chunk's slot goes with its record, so a slot past the end is never left empty.
    t.remove('b19');
    t.compactIfSparse();
    expect(t.footprint.chunks).toBe(8);
    t.put('small', 'v', undefined);
    expect(t.value(t.find('small'))).toBe('v');
  });

  it('content types: ids of removed types are renumbered at a compaction, the live ones stay right', () => {
    const s = new EntrySlab(0);
    for (let i = 0; i < 2000; i++) {
      s.put(`k${i % 10}`, `v${i}`, `type/t${i}`);
      if (i % 10 === 9) expect(s.contentType(s.find('k0'))).toBe(`type/t${i - 9}`);
    }
    for (let j = 0; j < 10; j++) expect(s.contentType(s.find(`k${j}`))).toBe(`type/t${1990 + j}`);
    s.put('none', 'x', undefined);
    expect(s.contentType(s.find('none'))).toBeUndefined();
    // The table was renumbered (it does not hold 2000 types): internal, seen through its bound.
    expect((s as unknown as { cts: unknown[] }).cts.length).toBeLessThanOrEqual(512);
  });

  it('clear empties everything', () => {
    const s = new EntrySlab(2);
    for (let i = 0; i < 100; i++) s.put(`k${i}`, 'v', 'a/b');
    s.clear();
    expect(s.size).toBe(0);
    expect(s.find('k1')).toBe(-1);
    expect(s.first()).toBe(-1);
    expect(s.footprint).toMatchObject({ usedBytes: 0, deadBytes: 0, chunkBytes: 0, chunks: 0 });
    s.put('k1', 'w', undefined);
    expect(s.value(s.find('k1'))).toBe('w');
    expect(s.contentType(s.find('k1'))).toBeUndefined();
  });

  it('random operations agree with a Map (index with collisions, backward-shift deletion, growth, compaction)', () => {
    for (const seed of [1, 2, 3]) {
      const rand = rng(seed);
      const s = new EntrySlab(1);
      const model = new Map<string, Model>();
      // Few distinct keys among many operations: long probe chains, many removals and resizes.
      const keyOf = (): string => {
        const n = Math.floor(rand() * 700);
        return n % 50 === 0 ? `ключ-${n}` : `k${n}`;
      };
      for (let op = 0; op < 20_000; op++) {
        const k = keyOf();
        const x = rand();
        if (x < 0.55) {
          const len = rand() < 0.02 ? CHUNK_BYTES + Math.floor(rand() * 100) : Math.floor(rand() * 120);
          const v = bytes(len, op);
          const ct = rand() < 0.5 ? undefined : `t/${Math.floor(rand() * 5)}`;
          const r = s.put(k, v, ct);
          s.setMeta(r, 0, op);
          model.set(k, { value: v, ct, meta: [op] });
        } else if (x < 0.85) {
          const r = s.remove(k);
          expect(r >= 0).toBe(model.has(k));
          if (r >= 0) expect(s.value(r) === model.get(k)!.value).toBe(true);
          model.delete(k);
          if (rand() < 0.3) s.compactIfSparse();
        } else {
          const r = s.find(k);
          expect(r >= 0, `find ${k}`).toBe(model.has(k));
          if (r >= 0) expect(s.value(r) === model.get(k)!.value).toBe(true);
        }
        if (op % 2500 === 0) expectSame(s, model);
      }
      expectSame(s, model);
      const f = s.footprint;
      expect(f.usedBytes).toBeLessThanOrEqual(f.chunkBytes);
    }
  });
});
