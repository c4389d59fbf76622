import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { murmur3Bytes, murmur3Latin1, murmur3String } from '../../../src/core/murmur3.js';
import {
  entryHash,
  hashKey,
  hashValue,
  MERKLE_DEFAULT_DEPTH,
  MERKLE_KEY_SEED,
  MERKLE_MAX_DEPTH,
  MERKLE_MIN_DEPTH,
  MERKLE_VALUE_SEED,
  MerkleComparison,
  MerkleTree,
  nodeOfKeyHash,
  validateMerkleDepth,
} from '../../../src/wan/merkle-tree.js';
import { prng } from '../../support/prng.js';

type Entry = { value: string; contentType: string | undefined };
type Store = Map<string, Entry>;

const hex = (n: number): string => '0x' + (n >>> 0).toString(16).padStart(8, '0');
const CONTENT_TYPES = [undefined, '', 'application/json', 'text/plain', 'application/octet-stream'];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function randomKey(rand: () => number): string {
  const len = 1 + Math.floor(rand() * 24);
  let s = '';
  for (let i = 0; i < len; i++) {
    const r = rand();
    // Mostly ASCII, some 2- and 3-byte UTF-8 and surrogate pairs.
    if (r < 0.85) s += String.fromCharCode(0x20 + Math.floor(rand() * 95));
    else if (r < 0.93) s += String.fromCharCode(0x80 + Math.floor(rand() * 0x700));
    else if (r < 0.98) s += String.fromCharCode(0x800 + Math.floor(rand() * 0xd000));
    else s += '\u{1f511}';
  }
  return s;
}

function randomValue(rand: () => number): Entry {
  const len = Math.floor(rand() * 40);
  let value = '';
  for (let i = 0; i < len; i++) value += String.fromCharCode(Math.floor(rand() * 256));
  return { value, contentType: pick(rand, CONTENT_TYPES) };
}

function randomStore(rand: () => number, n: number): Store {
  const store: Store = new Map();
  while (store.size < n) store.set(randomKey(rand), randomValue(rand));
  return store;
}

const vh = (e: Entry | undefined): number | undefined => (e === undefined ? undefined : hashValue(e.value, e.contentType));

/** Apply a put/remove to the store and the tree the way the WAN shell will. */
function put(store: Store, tree: MerkleTree, key: string, e: Entry): void {
  tree.update(key, vh(store.get(key)), vh(e));
  store.set(key, e);
}
function remove(store: Store, tree: MerkleTree, key: string): void {
  tree.update(key, vh(store.get(key)), undefined);
  store.delete(key);
}

function allLevels(tree: MerkleTree): number[][] {
  const out: number[][] = [];
  for (let l = 0; l < tree.depth; l++) out.push(Array.from(tree.levelHashes(l)));
  return out;
}

/** Independent model: node of a key by arithmetic on the unsigned offset, sums with | 0. */
function referenceLevels(store: Store, depth: number): { hashes: number[][]; counts: number[] } {
  const hashes: number[][] = [];
  for (let l = 0; l < depth; l++) hashes.push(new Array<number>(2 ** l).fill(0));
  const counts = new Array<number>(2 ** (depth - 1)).fill(0);
  for (const [key, e] of store) {
    const h = hashKey(key);
    const eh = entryHash(h, hashValue(e.value, e.contentType));
    for (let l = 0; l < depth; l++) {
      const i = Math.floor((h + 2 ** 31) / 2 ** (32 - l));
      hashes[l]![i] = (hashes[l]![i]! + eh) | 0;
    }
    counts[Math.floor((h + 2 ** 31) / 2 ** (33 - depth))]!++;
  }
  return { hashes, counts };
}

function leafCounts(tree: MerkleTree): number[] {
  return Array.from({ length: tree.leafCount }, (_, i) => tree.leafEntryCount(i));
}

function shuffle<T>(rand: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function expectGridError(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GridError);
    expect((err as GridError).code).toBe(code);
    return;
  }
  expect.fail('expected a GridError ' + code);
}

describe('hash functions', () => {
  it('murmur3Latin1 equals murmur3 of the latin1 bytes for every length and byte value', () => {
    const rand = prng(1);
    for (let len = 0; len <= 40; len++) {
      for (let rep = 0; rep < 20; rep++) {
        let s = '';
        for (let i = 0; i < len; i++) s += String.fromCharCode(Math.floor(rand() * 256));
        const seed = (rand() * 2 ** 32) | 0;
        expect(murmur3Latin1(s, seed)).toBe(murmur3Bytes(Buffer.from(s, 'latin1'), seed));
      }
    }
    let all = '';
    for (let b = 0; b < 256; b++) all += String.fromCharCode(b);
    expect(murmur3Latin1(all, 7)).toBe(murmur3Bytes(Buffer.from(all, 'latin1'), 7));
  });

  it('murmur3Latin1 matches the published MurmurHash3_x86_32 vectors', () => {
    expect(murmur3Latin1('', 0)).toBe(0);
    expect(murmur3Latin1('', 1) >>> 0).toBe(0x514e28b7);
    expect(murmur3Latin1('hello', 0) >>> 0).toBe(0x248bfa47);
    expect(murmur3Latin1('The quick brown fox jumps over the lazy dog', 0x9747b28c) >>> 0).toBe(0x2fa826cd);
  });

  it('hashKey is murmur3 over the UTF-8 bytes with the Merkle key seed', () => {
    for (const k of ['', 'a', 'key-1', 'ключ', '\u{1f511}', 'x'.repeat(100)]) {
      expect(hashKey(k)).toBe(murmur3Bytes(Buffer.from(k, 'utf8'), MERKLE_KEY_SEED));
    }
  });

  it('hashValue covers the bytes and the Content-Type (absent differs from empty)', () => {
    expect(hashValue('v', undefined)).toBe(murmur3Latin1('v', MERKLE_VALUE_SEED));
    expect(hashValue('v', 'text/plain')).toBe(murmur3String('text/plain', murmur3Latin1('v', MERKLE_VALUE_SEED)));
    const seen = new Set<number>();
    for (const v of ['', 'v', 'w', '\u00ff', '\u0000'])
      for (const ct of CONTENT_TYPES) seen.add(hashValue(v, ct));
    expect(seen.size).toBe(5 * CONTENT_TYPES.length);
  });

  it('entryHash changes whenever the value hash changes for a fixed key (bijection on small samples)', () => {
    const rand = prng(2);
    for (let rep = 0; rep < 50; rep++) {
      const k = (rand() * 2 ** 32) | 0;
      const seen = new Set<number>();
      for (let v = 0; v < 2000; v++) seen.add(entryHash(k, v));
      expect(seen.size).toBe(2000);
    }
  });

  it('pinned vectors: the hashes are a wire contract between clusters and must never drift', () => {
    expect(MERKLE_KEY_SEED).toBe(0x6d65726b);
    expect(MERKLE_VALUE_SEED).toBe(0x6c656166);
    expect(['', 'a', 'key-1', 'ключ', '\u{1f511}'].map((k) => hex(hashKey(k)))).toEqual([
      '0x0a7acf70',
      '0x59cd2b44',
      '0x26b74e89',
      '0x2bdb78cb',
      '0x630cfa3e',
    ]);
    const values: [string, string | undefined][] = [
      ['', undefined],
      ['', ''],
      ['v', undefined],
      ['v', 'application/json'],
      ['\u00ff\u0000\u0080abc', 'application/octet-stream'],
    ];
    expect(values.map(([v, c]) => hex(hashValue(v, c)))).toEqual(['0x1d237b78', '0xa36e551f', '0x69d3415b', '0x6a53121c', '0xb0453862']);
    expect(hex(entryHash(hashKey('a'), hashValue('1', undefined)))).toBe('0xcf0e6ed7');

    const t = new MerkleTree(3);
    for (let i = 0; i < 10; i++) t.update(`key-${i}`, undefined, hashValue(`value-${i}`, 'text/plain'));
    expect(hex(t.rootHash())).toBe('0x72d11cc7');
    expect(Array.from(t.levelHashes(1), hex)).toEqual(['0xceac4294', '0xa424da33']);
    expect(Array.from(t.levelHashes(2), hex)).toEqual(['0xd4829310', '0xfa29af84', '0xb745ed3c', '0xecdeecf7']);
    expect(leafCounts(t)).toEqual([1, 2, 4, 3]);

    const t10 = new MerkleTree();
    for (let i = 0; i < 1000; i++) t10.update(`key-${i}`, undefined, hashValue(`value-${i}`, undefined));
    expect(hex(t10.rootHash())).toBe('0xbc662540');
    expect(t10.leafOf('key-0')).toBe(91);
    expect(t10.leafOf('key-999')).toBe(332);
    expect(hex(t10.nodeHash(9, 91))).toBe('0x0f92f0a6');
  });
});

describe('depth', () => {
  it("follows Hazelcast's limits: 2..27 inclusive, default 10", () => {
    expect([MERKLE_MIN_DEPTH, MERKLE_MAX_DEPTH, MERKLE_DEFAULT_DEPTH]).toEqual([2, 27, 10]);
    for (const d of [2, 10, 27]) expect(() => validateMerkleDepth(d)).not.toThrow();
    for (const d of [-1, 0, 1, 28, 32, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectGridError(() => validateMerkleDepth(d), 'CONFIG_INVALID');
      expectGridError(() => new MerkleTree(d), 'CONFIG_INVALID');
    }
    expect(() => validateMerkleDepth(1)).toThrow('Merkle tree depth 1 is outside of the allowed range 2-27');
  });

  it('depth counts levels: 2^(depth-1) leaves, 2^depth - 1 nodes, typed arrays only', () => {
    for (let d = MERKLE_MIN_DEPTH; d <= 16; d++) {
      const t = new MerkleTree(d);
      expect(t.depth).toBe(d);
      expect(t.leafLevel).toBe(d - 1);
      expect(t.leafCount).toBe(2 ** (d - 1));
      for (let l = 0; l < d; l++) expect(t.levelHashes(l).length).toBe(2 ** l);
      expect(t.footprintBytes).toBe(4 * (2 ** d - 1) + 4 * 2 ** (d - 1));
    }
    expect(new MerkleTree().depth).toBe(10);
    expect(new MerkleTree().footprintBytes).toBe(6140);
  });
});

describe('leaves and ranges', () => {
  it('leaf ranges tile the signed 32-bit hash space in order, on every level', () => {
    const t = new MerkleTree(6);
    for (let l = 0; l < t.depth; l++) {
      let expectLow = -(2 ** 31);
      for (let i = 0; i < 2 ** l; i++) {
        const [low, high] = t.keyHashRange(l, i);
        expect(low).toBe(expectLow);
        expect(high - low + 1).toBe(2 ** (32 - l));
        expectLow = high + 1;
      }
      expect(expectLow).toBe(2 ** 31);
    }
  });

  it("a key's leaf holds its hash; its node on a level is the leaf's ancestor; deeper trees refine", () => {
    const rand = prng(3);
    const t = new MerkleTree(12);
    const shallow = new MerkleTree(5);
    for (let n = 0; n < 2000; n++) {
      const key = randomKey(rand);
      const h = hashKey(key);
      const leaf = t.leafOf(key);
      const [low, high] = t.keyHashRange(t.leafLevel, leaf);
      expect(h >= low && h <= high).toBe(true);
      expect(leaf).toBe(Math.floor((h + 2 ** 31) / 2 ** (32 - t.leafLevel)));
      for (let l = 0; l <= t.leafLevel; l++) {
        expect(t.nodeOf(key, l)).toBe(leaf >>> (t.leafLevel - l));
        expect(nodeOfKeyHash(h, l)).toBe(t.nodeOf(key, l));
      }
      expect(shallow.leafOf(key)).toBe(leaf >>> (t.leafLevel - shallow.leafLevel));
    }
    // Extremes of the hash space.
    expect(nodeOfKeyHash(-(2 ** 31), t.leafLevel)).toBe(0);
    expect(nodeOfKeyHash(2 ** 31 - 1, t.leafLevel)).toBe(t.leafCount - 1);
    expect(nodeOfKeyHash(-1, 1)).toBe(0);
    expect(nodeOfKeyHash(0, 1)).toBe(1);
  });

  it('keyFilter selects exactly the keys under the given nodes', () => {
    const rand = prng(4);
    const t = new MerkleTree(8);
    const keys = Array.from({ length: 3000 }, () => randomKey(rand));
    const leaves = new Set(Array.from({ length: 10 }, () => Math.floor(rand() * t.leafCount)));
    const f = t.keyFilter(leaves);
    for (const k of keys) expect(f(k)).toBe(leaves.has(t.leafOf(k)));
    const f2 = t.keyFilter([1], 2);
    for (const k of keys) expect(f2(k)).toBe(t.nodeOf(k, 2) === 1);
    expect(t.keyFilter([])('anything')).toBe(false);
    expectGridError(() => t.keyFilter([t.leafCount]), 'BAD_REQUEST');
    expectGridError(() => t.keyFilter([0], t.depth), 'BAD_REQUEST');
  });
});

describe('updates', () => {
  it('an empty tree is all zeros', () => {
    const t = new MerkleTree(5);
    expect(t.rootHash()).toBe(0);
    expect(allLevels(t).flat().every((h) => h === 0)).toBe(true);
    expect(t.entryCount).toBe(0);
  });

  it('incremental updates equal an independent model and a one-pass build (randomized)', () => {
    for (let seed = 10; seed < 30; seed++) {
      const rand = prng(seed);
      const depth = MERKLE_MIN_DEPTH + Math.floor(rand() * 11);
      const tree = new MerkleTree(depth);
      const store: Store = new Map();
      const keys = Array.from({ length: 300 }, () => randomKey(rand));
      for (let op = 0; op < 3000; op++) {
        const key = pick(rand, keys);
        if (rand() < 0.25) remove(store, tree, key);
        else put(store, tree, key, randomValue(rand));
      }
      const ref = referenceLevels(store, depth);
      expect(allLevels(tree)).toEqual(ref.hashes);
      expect(leafCounts(tree)).toEqual(ref.counts);
      expect(tree.entryCount).toBe(store.size);

      const built = MerkleTree.fromEntries(store, depth);
      expect(allLevels(built)).toEqual(allLevels(tree));
      expect(leafCounts(built)).toEqual(leafCounts(tree));
      expect(built.entryCount).toBe(store.size);
      expect(tree.diff(built).leaves).toEqual([]);
    }
  });

  it('every inner node is the sum of its children, and counts add up', () => {
    const rand = prng(5);
    const store = randomStore(rand, 5000);
    const t = MerkleTree.fromEntries(store, 9);
    for (let l = 0; l < t.leafLevel; l++) {
      for (let i = 0; i < 2 ** l; i++) {
        expect(t.nodeHash(l, i)).toBe((t.nodeHash(l + 1, 2 * i) + t.nodeHash(l + 1, 2 * i + 1)) | 0);
        expect(t.nodeEntryCount(l, i)).toBe(t.nodeEntryCount(l + 1, 2 * i) + t.nodeEntryCount(l + 1, 2 * i + 1));
      }
    }
    expect(t.nodeEntryCount(0, 0)).toBe(5000);
  });

  it('is independent of the order of puts, updates and removes', () => {
    const rand = prng(6);
    const final = randomStore(rand, 800);
    const keys = [...final.keys()];
    const extra = Array.from({ length: 200 }, () => randomKey(rand)).filter((k) => !final.has(k));
    const trees: MerkleTree[] = [];
    for (let run = 0; run < 5; run++) {
      // Each run: insert junk for some keys first, churn, and end at `final` in a shuffled order.
      const tree = new MerkleTree(8);
      const store: Store = new Map();
      for (const k of shuffle(rand, [...keys, ...extra])) put(store, tree, k, randomValue(rand));
      for (const k of shuffle(rand, [...keys, ...extra])) {
        if (rand() < 0.3) remove(store, tree, k);
      }
      const plan: (() => void)[] = [];
      for (const k of keys) plan.push(() => put(store, tree, k, final.get(k)!));
      for (const k of extra) plan.push(() => remove(store, tree, k));
      for (const step of shuffle(rand, plan)) step();
      expect(store.size).toBe(final.size);
      trees.push(tree);
    }
    const expected = allLevels(MerkleTree.fromEntries(final, 8));
    for (const t of trees) expect(allLevels(t)).toEqual(expected);
  });

  it('put then remove returns to the empty tree; same-value update and absent/absent are no-ops', () => {
    const rand = prng(7);
    const t = new MerkleTree(6);
    const store = randomStore(rand, 500);
    for (const [k, e] of store) t.update(k, undefined, vh(e));
    const before = allLevels(t);
    for (const [k, e] of store) t.update(k, vh(e), vh(e));
    t.update('not-there', undefined, undefined);
    expect(allLevels(t)).toEqual(before);
    expect(t.entryCount).toBe(500);
    for (const [k, e] of shuffle(rand, [...store])) t.update(k, vh(e), undefined);
    expect(allLevels(t).flat().every((h) => h === 0)).toBe(true);
    expect(leafCounts(t).every((c) => c === 0)).toBe(true);
    expect(t.entryCount).toBe(0);
  });

  it('updateHashed is update with the key hash supplied', () => {
    const a = new MerkleTree(7);
    const b = new MerkleTree(7);
    const rand = prng(8);
    for (let i = 0; i < 500; i++) {
      const k = randomKey(rand);
      const v = hashValue(randomValue(rand).value, 'text/plain');
      a.update(k, undefined, v);
      b.updateHashed(hashKey(k), undefined, v);
    }
    expect(allLevels(a)).toEqual(allLevels(b));
  });

  it('a value or Content-Type change of one key changes exactly its leaf and ancestors', () => {
    const rand = prng(9);
    const store = randomStore(rand, 400);
    const t = MerkleTree.fromEntries(store, 10);
    const before = allLevels(t);
    const [key, e] = [...store][123]!;
    t.update(key, vh(e), hashValue(e.value, e.contentType === 'text/csv' ? 'text/tsv' : 'text/csv'));
    const after = allLevels(t);
    const leaf = t.leafOf(key);
    for (let l = 0; l < t.depth; l++) {
      for (let i = 0; i < 2 ** l; i++) {
        const onPath = i === leaf >>> (t.leafLevel - l);
        expect(after[l]![i] !== before[l]![i]).toBe(onPath);
      }
    }
  });

  it('clear() empties the tree', () => {
    const t = MerkleTree.fromEntries(randomStore(prng(11), 300), 6);
    expect(t.rootHash()).not.toBe(0);
    t.clear();
    expect(allLevels(t).flat().every((h) => h === 0)).toBe(true);
    expect(leafCounts(t).every((c) => c === 0)).toBe(true);
    expect(t.entryCount).toBe(0);
  });

  it('reads validate level and index', () => {
    const t = new MerkleTree(4);
    for (const [l, i] of [[-1, 0], [4, 0], [0, 1], [3, 8], [1, -1], [1.5, 0], [2, 0.5]] as const) {
      expectGridError(() => t.nodeHash(l, i), 'BAD_REQUEST');
    }
    expectGridError(() => t.levelHashes(4), 'BAD_REQUEST');
    expectGridError(() => t.nodeHashes(3, [0, 8]), 'BAD_REQUEST');
    expectGridError(() => t.nodeHashes(9, [0]), 'BAD_REQUEST');
    expectGridError(() => t.leafEntryCount(8), 'BAD_REQUEST');
    expectGridError(() => t.nodeOf('k', 4), 'BAD_REQUEST');
  });

  it('levelHashes returns a copy', () => {
    const t = MerkleTree.fromEntries(randomStore(prng(12), 50), 4);
    const copy = t.levelHashes(3);
    copy.fill(1);
    expect(Array.from(t.levelHashes(3))).not.toEqual(Array.from(copy));
  });
});

/** Change k distinct keys of `store` (value, Content-Type, removal or a new key); returns their keys. */
function diverge(rand: () => number, store: Store, tree: MerkleTree, k: number): string[] {
  const keys = [...store.keys()];
  const changed = new Set<string>();
  while (changed.size < k) {
    const r = rand();
    if (r < 0.2) {
      const key = randomKey(rand);
      if (store.has(key) || changed.has(key)) continue;
      put(store, tree, key, randomValue(rand));
      changed.add(key);
      continue;
    }
    const key = pick(rand, keys);
    if (changed.has(key) || !store.has(key)) continue;
    const e = store.get(key)!;
    if (r < 0.4) remove(store, tree, key);
    else if (r < 0.55) put(store, tree, key, { value: e.value, contentType: e.contentType === 'x/y' ? 'x/z' : 'x/y' });
    else put(store, tree, key, { value: e.value + String.fromCharCode(Math.floor(rand() * 256)), contentType: e.contentType });
    changed.add(key);
  }
  return [...changed];
}

describe('diff', () => {
  it('equal trees: empty, after comparing only the root', () => {
    for (let d = MERKLE_MIN_DEPTH; d <= 16; d++) {
      const store = randomStore(prng(d), 200);
      const a = MerkleTree.fromEntries(store, d);
      const b = new MerkleTree(d);
      for (const [k, e] of shuffle(prng(d + 100), [...store])) b.update(k, undefined, vh(e));
      for (const r of [a.diff(b), b.diff(a), a.diff(b, { levelsPerRound: 4 }), new MerkleTree(d).diff(new MerkleTree(d))]) {
        expect(r).toEqual({ level: d - 1, leaves: [], nodesCompared: 1, requests: 1 });
      }
    }
  });

  it('finds exactly the leaves of the changed keys (randomized), with a bounded number of nodes', () => {
    for (let seed = 100; seed < 160; seed++) {
      const rand = prng(seed);
      const depth = MERKLE_MIN_DEPTH + Math.floor(rand() * 13);
      const store = randomStore(rand, 200 + Math.floor(rand() * 800));
      const source = MerkleTree.fromEntries(store, depth);
      const targetStore: Store = new Map(store);
      const target = MerkleTree.fromEntries(targetStore, depth);
      const k = 1 + Math.floor(rand() * 40);
      const changed = diverge(rand, targetStore, target, k);
      const expected = [...new Set(changed.map((key) => source.leafOf(key)))].sort((x, y) => x - y);

      const r = source.diff(target);
      expect(r.level).toBe(depth - 1);
      expect(r.leaves).toEqual(expected);
      expect(target.diff(source).leaves).toEqual(expected);
      expect(r.requests).toBe(depth);
      expect(r.nodesCompared).toBeLessThanOrEqual(1 + 2 * expected.length * (depth - 1));
      expect(r.nodesCompared).toBeLessThanOrEqual(2 ** depth - 1);

      // Other round shapes and request sizes find the same leaves.
      for (const options of [{ levelsPerRound: 3 }, { levelsPerRound: 30 }, { maxNodesPerRequest: 1 }, { levelsPerRound: 2, maxNodesPerRequest: 7 }]) {
        expect(source.diff(target, options).leaves).toEqual(expected);
      }
      // Jumping straight to the leaves costs the whole leaf level in one round after the root.
      const flat = source.diff(target, { levelsPerRound: 30 });
      expect(flat.requests).toBe(1 + Math.ceil(2 ** (depth - 1) / 4096));
      expect(flat.nodesCompared).toBe(1 + 2 ** (depth - 1));
    }
  });

  it('trees of different depths compare at the shallower leaf level', () => {
    const rand = prng(200);
    const store = randomStore(rand, 3000);
    const deep = MerkleTree.fromEntries(store, 12);
    const shallow = MerkleTree.fromEntries(store, 6);
    for (let l = 0; l < shallow.depth; l++) expect(Array.from(deep.levelHashes(l))).toEqual(Array.from(shallow.levelHashes(l)));
    expect(deep.diff(shallow)).toEqual({ level: 5, leaves: [], nodesCompared: 1, requests: 1 });

    const changedStore: Store = new Map(store);
    const changedShallow = MerkleTree.fromEntries(changedStore, 6);
    const changed = diverge(rand, changedStore, changedShallow, 5);
    const expected = [...new Set(changed.map((k) => shallow.leafOf(k)))].sort((a, b) => a - b);
    expect(deep.diff(changedShallow).leaves).toEqual(expected);
    expect(changedShallow.diff(deep).leaves).toEqual(expected);
    // The shallow leaves map onto the deep tree's keys through keyFilter at that level.
    const f = deep.keyFilter(expected, 5);
    for (const k of changed) expect(f(k)).toBe(true);
  });

  it('delta sync: sending the entries of the differing leaves makes the target equal, with fewer entries', () => {
    for (let seed = 300; seed < 310; seed++) {
      const rand = prng(seed);
      const sourceStore = randomStore(rand, 2000);
      const targetStore: Store = new Map(sourceStore);
      const source = MerkleTree.fromEntries(sourceStore, 10);
      const target = MerkleTree.fromEntries(targetStore, 10);
      diverge(rand, sourceStore, source, 10);
      diverge(rand, targetStore, target, 10);

      const { leaves } = source.diff(target);
      const inLeaves = source.keyFilter(leaves);
      let sent = 0;
      for (const [k, e] of sourceStore) {
        if (!inLeaves(k)) continue;
        put(targetStore, target, k, e);
        sent++;
      }
      for (const k of [...targetStore.keys()]) if (inLeaves(k) && !sourceStore.has(k)) remove(targetStore, target, k);

      expect(source.diff(target).leaves).toEqual([]);
      expect(target.rootHash()).toBe(source.rootHash());
      const byKey = (x: [string, Entry], y: [string, Entry]): number => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0);
      expect([...targetStore].sort(byKey)).toEqual([...sourceStore].sort(byKey));
      expect(sent).toBeLessThan(sourceStore.size / 10);
    }
  });
});

describe('MerkleComparison protocol', () => {
  it('asks the root first, then only the children of differing nodes, level by level', () => {
    const store = randomStore(prng(400), 1000);
    const a = MerkleTree.fromEntries(store, 5);
    const bStore: Store = new Map(store);
    const b = MerkleTree.fromEntries(bStore, 5);
    const key = [...bStore.keys()][0]!;
    remove(bStore, b, key);
    const leaf = a.leafOf(key);

    const cmp = new MerkleComparison(a, b.depth);
    const seen: { level: number; indexes: number[] }[] = [];
    for (let req = cmp.next(); req !== undefined; req = cmp.next()) {
      seen.push({ level: req.level, indexes: Array.from(req.indexes) });
      cmp.receive(b.nodeHashes(req.level, req.indexes));
    }
    expect(cmp.done).toBe(true);
    expect(seen).toEqual([
      { level: 0, indexes: [0] },
      ...[1, 2, 3, 4].map((l) => {
        const parent = leaf >>> (5 - l);
        return { level: l, indexes: [parent * 2, parent * 2 + 1] };
      }),
    ]);
    expect(cmp.result()).toEqual({ level: 4, leaves: [leaf], nodesCompared: 9, requests: 5 });
    expect(cmp.next()).toBeUndefined();
  });

  it('splits big levels into requests of at most maxNodesPerRequest', () => {
    const a = MerkleTree.fromEntries(randomStore(prng(401), 2000), 8);
    const b = new MerkleTree(8);
    const cmp = new MerkleComparison(a, 8, { levelsPerRound: 7, maxNodesPerRequest: 50 });
    const sizes: number[] = [];
    for (let req = cmp.next(); req !== undefined; req = cmp.next()) {
      sizes.push(req.indexes.length);
      cmp.receive(b.nodeHashes(req.level, req.indexes));
    }
    expect(sizes).toEqual([1, 50, 50, 28]);
    expect(cmp.result().leaves).toEqual(Array.from({ length: 128 }, (_, i) => i).filter((i) => a.leafEntryCount(i) > 0));
  });

  it('refuses misuse and malformed answers', () => {
    const a = new MerkleTree(4);
    const cmp = new MerkleComparison(a, 4);
    expectGridError(() => cmp.receive([0]), 'CONFLICT');
    const req = cmp.next()!;
    expect(req.level).toBe(0);
    expectGridError(() => cmp.next(), 'CONFLICT');
    expectGridError(() => cmp.receive([0, 0]), 'BAD_REQUEST');
    cmp.receive([0]);
    expect(cmp.next()).toBeUndefined();
    expect(cmp.result().leaves).toEqual([]);

    expectGridError(() => new MerkleComparison(a, 1), 'CONFIG_INVALID');
    expectGridError(() => new MerkleComparison(a, 4, { levelsPerRound: 0 }), 'BAD_REQUEST');
    expectGridError(() => new MerkleComparison(a, 4, { maxNodesPerRequest: 0 }), 'BAD_REQUEST');
  });

  it('compares remote hashes as signed or unsigned 32-bit numbers alike', () => {
    const a = MerkleTree.fromEntries(randomStore(prng(402), 100), 3);
    const cmp = new MerkleComparison(a, 3);
    cmp.next();
    cmp.receive([a.rootHash() >>> 0]);
    expect(cmp.next()).toBeUndefined();
    expect(cmp.result().leaves).toEqual([]);
  });
});
