import { describe, expect, it } from 'vitest';
import { hashToIndex, murmur3Bytes, murmur3String, PARTITION_HASH_SEED } from '../../../src/core/murmur3.js';
import { prng } from '../../support/prng.js';

// An independent, from-the-spec MurmurHash3_x86_32 (Austin Appleby's reference C code, ported
// byte by byte). It multiplies with 16-bit halves instead of Math.imul so that it shares no
// arithmetic trick with the implementation under test. Returns the UNSIGNED hash.
function mul32(a: number, b: number): number {
  const aLo = a & 0xffff;
  const aHi = a >>> 16;
  return (aLo * b + (((aHi * b) & 0xffff) << 16)) >>> 0;
}
function rotl32(x: number, r: number): number {
  return ((x << r) | (x >>> (32 - r))) >>> 0;
}
function referenceMurmur3(data: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h1 = seed >>> 0;
  const nblocks = Math.floor(data.length / 4);
  for (let i = 0; i < nblocks; i++) {
    let k1 = (data[i * 4]! + data[i * 4 + 1]! * 0x100 + data[i * 4 + 2]! * 0x10000 + data[i * 4 + 3]! * 0x1000000) >>> 0;
    k1 = mul32(k1, c1);
    k1 = rotl32(k1, 15);
    k1 = mul32(k1, c2);
    h1 = (h1 ^ k1) >>> 0;
    h1 = rotl32(h1, 13);
    h1 = (mul32(h1, 5) + 0xe6546b64) >>> 0;
  }
  const tail = nblocks * 4;
  const rem = data.length & 3;
  let k1 = 0;
  if (rem >= 3) k1 = (k1 ^ (data[tail + 2]! << 16)) >>> 0;
  if (rem >= 2) k1 = (k1 ^ (data[tail + 1]! << 8)) >>> 0;
  if (rem >= 1) {
    k1 = (k1 ^ data[tail]!) >>> 0;
    k1 = mul32(k1, c1);
    k1 = rotl32(k1, 15);
    k1 = mul32(k1, c2);
    h1 = (h1 ^ k1) >>> 0;
  }
  h1 = (h1 ^ data.length) >>> 0;
  h1 = (h1 ^ (h1 >>> 16)) >>> 0;
  h1 = mul32(h1, 0x85ebca6b);
  h1 = (h1 ^ (h1 >>> 13)) >>> 0;
  h1 = mul32(h1, 0xc2b2ae35);
  h1 = (h1 ^ (h1 >>> 16)) >>> 0;
  return h1;
}


const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

// Published MurmurHash3_x86_32 vectors (unsigned).
const VECTORS: readonly [string, Uint8Array, number, number][] = [
  ['empty, seed 0', bytes(), 0, 0],
  ['empty, seed 1', bytes(), 1, 0x514e28b7],
  ['empty, seed 0xffffffff', bytes(), 0xffffffff, 0x81f16f39],
  ['ff ff ff ff, seed 0', bytes(0xff, 0xff, 0xff, 0xff), 0, 0x76293b50],
  ['21 43 65 87, seed 0', bytes(0x21, 0x43, 0x65, 0x87), 0, 0xf55b516b],
  ['21 43 65 87, seed 0x5082EDEE', bytes(0x21, 0x43, 0x65, 0x87), 0x5082edee, 0x2362f9de],
  ['21 43 65, seed 0', bytes(0x21, 0x43, 0x65), 0, 0x7e4a8634],
  ['21 43, seed 0', bytes(0x21, 0x43), 0, 0xa0f7b07a],
  ['21, seed 0', bytes(0x21), 0, 0x72661cf4],
  ['00 00 00 00, seed 0', bytes(0, 0, 0, 0), 0, 0x2362f9de],
  ['00 00 00, seed 0', bytes(0, 0, 0), 0, 0x85f0b427],
  ['00 00, seed 0', bytes(0, 0), 0, 0x30f4c306],
  ['00, seed 0', bytes(0), 0, 0x514e28b7],
  ['"Hello, world!", seed 1234', utf8('Hello, world!'), 1234, 0xfaf6cdb3],
  ['"The quick brown fox jumps over the lazy dog", seed 0', utf8('The quick brown fox jumps over the lazy dog'), 0, 0x2e4ff723],
];

describe('murmur3Bytes', () => {
  it.each(VECTORS)('%s', (_name, data, seed, expected) => {
    expect(murmur3Bytes(data, seed) >>> 0).toBe(expected);
    // The reference port agrees with the published vector, so it can be trusted below.
    expect(referenceMurmur3(data, seed)).toBe(expected);
  });

  it('returns a signed int32', () => {
    // 0xF55B516B has the top bit set: the signed form is negative.
    const h = murmur3Bytes(bytes(0x21, 0x43, 0x65, 0x87), 0);
    expect(h).toBe(0xf55b516b | 0);
    expect(h).toBeLessThan(0);
    expect(Number.isInteger(h)).toBe(true);
    expect(h).toBe(h | 0);
  });

  it('defaults the seed to 0', () => {
    expect(murmur3Bytes(utf8('The quick brown fox jumps over the lazy dog')) >>> 0).toBe(0x2e4ff723);
  });

  it('treats seeds above 2^31 like their int32 form', () => {
    expect(murmur3Bytes(bytes(), 0xffffffff)).toBe(murmur3Bytes(bytes(), -1));
  });

  it('matches the reference for every length 0..64 and several seeds', () => {
    const rnd = prng(42);
    for (const seed of [0, 1, PARTITION_HASH_SEED, 0x7fffffff, 0x80000000, 0xffffffff]) {
      for (let len = 0; len <= 64; len++) {
        const data = new Uint8Array(len);
        for (let i = 0; i < len; i++) data[i] = Math.floor(rnd() * 256);
        expect(murmur3Bytes(data, seed) >>> 0, `len ${len} seed ${seed}`).toBe(referenceMurmur3(data, seed));
      }
    }
  });

  it('reads only the view of a Uint8Array that is a slice of a larger buffer', () => {
    const big = Uint8Array.from([9, 9, 0x21, 0x43, 0x65, 0x87, 9]);
    expect(murmur3Bytes(big.subarray(2, 6), 0) >>> 0).toBe(0xf55b516b);
  });
});

describe('murmur3String', () => {
  const check = (s: string, seed = PARTITION_HASH_SEED): void => {
    const b = utf8(s);
    const expected = murmur3Bytes(b, seed);
    expect(murmur3String(s, seed), JSON.stringify(s)).toBe(expected);
    expect(expected >>> 0).toBe(referenceMurmur3(b, seed));
  };

  it('matches the published string vectors', () => {
    expect(murmur3String('Hello, world!', 1234) >>> 0).toBe(0xfaf6cdb3);
    expect(murmur3String('The quick brown fox jumps over the lazy dog') >>> 0).toBe(0x2e4ff723);
    expect(murmur3String('') >>> 0).toBe(0);
    expect(murmur3String('', 1) >>> 0).toBe(0x514e28b7);
  });

  it('ASCII, including control characters and DEL', () => {
    for (const s of ['a', 'ab', 'abc', 'abcd', 'abcde', 'key-0', 'orders', '\u0000', '\u0000\u0000\u0000\u0000\u0000', '\u007f', ' \t\r\n']) {
      check(s);
      check(s, 0);
    }
  });

  it('2-byte UTF-8 (U+0080..U+07FF)', () => {
    for (const s of ['\u0080', 'ü', 'aü', 'aaü', 'aaaü', 'üüüü', '\u07ff', 'Ωmega', 'ñandú']) check(s);
  });

  it('3-byte UTF-8 (U+0800..U+FFFF, outside surrogates)', () => {
    for (const s of ['\u0800', '日本', '日本語テキスト', '\uffff', '\ufffd', '\ue000', 'a日', 'ab日', 'abc日', '€']) check(s);
  });

  it('4-byte UTF-8 (surrogate pairs)', () => {
    for (const s of ['🙂', 'a🙂', 'ab🙂', 'abc🙂', '🙂🙂', '\u{10000}', '\u{10ffff}', '𝄞 music', 'x🙂y日z']) check(s);
  });

  it('lone surrogates hash like U+FFFD (EF BF BD), as Buffer encodes them', () => {
    const cases = ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud800', '\ud800a', '\ud800\ud800', '\udc00\ud800', 'ab\udc00cd', '\ud83d', '\ud83dx', 'x\ude42', '\ud83d\ud83d\ude42'];
    for (const s of cases) {
      check(s);
      expect(utf8(s).includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(true);
    }
    expect(murmur3String('\ud800')).toBe(murmur3String('\ufffd'));
    expect(murmur3String('a\udc00b')).toBe(murmur3String('a\ufffdb'));
    // A high surrogate at the very end of the string has no pair.
    expect(murmur3String('abc\ud83d')).toBe(murmur3String('abc\ufffd'));
  });

  it('every length 0..20 with mixed-width characters', () => {
    const alphabet = ['a', 'ü', '日', '🙂', '\ud800', '\u007f', '\u0080', '\u07ff', '\u0800'];
    for (let len = 0; len <= 20; len++) {
      for (let start = 0; start < alphabet.length; start++) {
        let s = '';
        for (let i = 0; i < len; i++) s += alphabet[(start + i * 7) % alphabet.length]!;
        check(s);
        check('x'.repeat(len));
      }
    }
  });

  it('a few thousand random strings (deterministic)', () => {
    const rnd = prng(0xc0ffee);
    const pickCodeUnit = (): string => {
      const r = rnd();
      if (r < 0.4) return String.fromCharCode(Math.floor(rnd() * 0x80));
      if (r < 0.55) return String.fromCharCode(0x80 + Math.floor(rnd() * (0x800 - 0x80)));
      if (r < 0.75) return String.fromCharCode(0x800 + Math.floor(rnd() * (0x10000 - 0x800))); // includes lone surrogates
      if (r < 0.95) return String.fromCodePoint(0x10000 + Math.floor(rnd() * 0x100000));
      return String.fromCharCode(0xd800 + Math.floor(rnd() * 0x800)); // surrogate, paired or not
    };
    for (let n = 0; n < 3000; n++) {
      const len = Math.floor(rnd() * 40);
      let s = '';
      for (let i = 0; i < len; i++) s += pickCodeUnit();
      const seed = n % 3 === 0 ? 0 : n % 3 === 1 ? PARTITION_HASH_SEED : Math.floor(rnd() * 0x100000000);
      const b = utf8(s);
      expect(murmur3String(s, seed), JSON.stringify(s)).toBe(murmur3Bytes(b, seed));
    }
  });

  it('defaults the seed to 0', () => {
    expect(murmur3String('abc')).toBe(murmur3Bytes(utf8('abc'), 0));
  });
});

describe('hashToIndex', () => {
  it('is |hash| mod length for ordinary values', () => {
    expect(hashToIndex(0, 271)).toBe(0);
    expect(hashToIndex(270, 271)).toBe(270);
    expect(hashToIndex(271, 271)).toBe(0);
    expect(hashToIndex(272, 271)).toBe(1);
    expect(hashToIndex(-1, 271)).toBe(1);
    expect(hashToIndex(-272, 271)).toBe(1);
    expect(hashToIndex(2147483647, 271)).toBe(2147483647 % 271);
    expect(hashToIndex(-2147483647, 271)).toBe(2147483647 % 271);
  });

  it('maps INT_MIN to 0 (Java Math.abs(INT_MIN) is negative; Hazelcast special-cases it)', () => {
    expect(hashToIndex(-2147483648, 271)).toBe(0);
    expect(hashToIndex(-2147483648, 7)).toBe(0);
  });

  it('is always within [0, length)', () => {
    const rnd = prng(7);
    for (let i = 0; i < 5000; i++) {
      const h = Math.floor(rnd() * 0x100000000) | 0;
      const idx = hashToIndex(h, 271);
      expect(idx).toBeGreaterThanOrEqual(0);
      expect(idx).toBeLessThan(271);
      expect(Number.isInteger(idx)).toBe(true);
    }
  });

  it('the partition seed is Hazelcast\'s 0x01000193', () => {
    expect(PARTITION_HASH_SEED).toBe(0x01000193);
  });
});
