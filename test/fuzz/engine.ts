// The seeded fuzz engine: a random source per case, random wire values, and byte-level
// mutations. Case `i` of a run with seed `S` draws from its own generator seeded by
// caseSeed(S, i), so any one case replays alone, whatever ran before it.

import { Latin1, type WireValue } from '../../src/protocol/codec.js';
import { prng } from '../support/prng.js';

/** The seed runs use unless told otherwise ("grid" in ASCII). Changing it changes every pinned figure. */
export const DEFAULT_SEED = 0x67726964;

/** A well-mixed seed for case `index` of the run seeded `runSeed` (murmur3's finalizer). */
export function caseSeed(runSeed: number, index: number): number {
  let h = (Math.imul(runSeed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = prng(seed);
  }

  /** [0, 1) */
  float(): number {
    return this.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** One of `choices`, each with its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of choices) {
      if (r < w) return v;
      r -= w;
    }
    return (choices[choices.length - 1] as readonly [number, T])[1];
  }

  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  /** A size that is usually small and sometimes not (log-uniform up to `max`). */
  size(max: number): number {
    return Math.min(max, Math.floor(Math.exp(this.next() * Math.log(max + 1))));
  }
}

// ---------------------------------------------------------------- interesting values

export const INTERESTING_U32 = [0, 1, 6, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

export const INTERESTING_NUMBERS: readonly number[] = [
  0, -0, 1, -1, 2, 270, 271, 272, -271, 0x7fffffff, -0x80000000, 0x80000000, 0xffffffff, 2 ** 53, -(2 ** 53), 1.5, -1.5,
  Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_VALUE, Number.MIN_VALUE, 1e300,
];

export const INTERESTING_STRINGS: readonly string[] = [
  '', ' ', 'a', 'map', 'queue', 'get', 'put', 'remove', 'clear', 'size', 'offer', 'poll', 'pushFront', 'destroy',
  'ACTIVE', 'FROZEN', 'NO_MIGRATION', 'IN_TRANSITION', 'SHUT_DOWN', 'passive',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
  '127.0.0.1:1', '127.0.0.1:0', '[::1]:5701', 'not an address', ':', '127.0.0.1:99999',
  '0.1.0', '0.0', 'x'.repeat(300), 'é', '\u{1f600}', '\ud800', '\u0000', '%', '%zz', '\r\n', '../..',
  '00000000-0000-0000-0000-000000000000',
];

/** A random string: interesting, short ASCII, or arbitrary UTF-16 (lone surrogates included). */
export function randomString(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return rng.pick(INTERESTING_STRINGS);
    case 1: {
      const n = rng.size(24);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(rng.range(0x21, 0x7e));
      return s;
    }
    case 2: {
      const n = rng.size(16);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(rng.int(0x10000));
      return s;
    }
    default:
      return `fz-${rng.int(1000)}`;
  }
}

export function randomNumber(rng: Rng): number {
  switch (rng.int(3)) {
    case 0:
      return rng.pick(INTERESTING_NUMBERS);
    case 1:
      return rng.range(-1000, 1000);
    default:
      return (rng.float() - 0.5) * 2 ** rng.int(64);
  }
}

/** Any wire value, nested up to `depth` levels. */
export function randomValue(rng: Rng, depth = 3): WireValue {
  const leafOnly = depth <= 0;
  switch (rng.int(leafOnly ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
    case 3:
      return randomNumber(rng);
    case 4:
      return randomString(rng);
    case 5: {
      const n = rng.size(20);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(rng.int(256));
      return new Latin1(s);
    }
    case 6:
      return rng.bytes(rng.size(32));
    case 7: {
      const n = rng.size(6);
      return Array.from({ length: n }, () => randomValue(rng, depth - 1));
    }
    default: {
      const out: Record<string, WireValue> = {};
      const n = rng.size(4);
      for (let i = 0; i < n; i++) {
        // defineProperty: an assignment to "__proto__" would set the prototype, not a key.
        Object.defineProperty(out, randomString(rng), { value: randomValue(rng, depth - 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

/** A value nested `levels` deep (arrays or objects): probes the decoder's depth limit. */
export function deepValue(rng: Rng, levels: number): WireValue {
  let v: WireValue = randomValue(rng, 0);
  for (let i = 0; i < levels; i++) v = rng.chance(0.5) ? [v] : { k: v };
  return v;
}

// ---------------------------------------------------------------- byte mutations

/** One random byte-level mutation of `input` (never the same buffer). */
export function mutateBytes(rng: Rng, input: Uint8Array, donors: readonly Uint8Array[] = []): Buffer {
  const b = Buffer.from(input);
  if (b.length === 0) return rng.bytes(rng.size(16));
  const at = rng.int(b.length);
  switch (rng.int(10)) {
    case 0: // flip a bit
      b[at] = (b[at] as number) ^ (1 << rng.int(8));
      return b;
    case 1: // a random byte
      b[at] = rng.int(256);
      return b;
    case 2: {
      // an interesting u32 over 4 bytes (lengths, counts)
      if (b.length < 4) return b;
      const p = rng.int(b.length - 3);
      b.writeUInt32BE(rng.pick(INTERESTING_U32), p);
      return b;
    }
    case 3: // truncate
      return b.subarray(0, at);
    case 4: {
      // delete a range
      const n = rng.size(Math.max(1, b.length - at));
      return Buffer.concat([b.subarray(0, at), b.subarray(at + n)]);
    }
    case 5: {
      // insert random bytes
      return Buffer.concat([b.subarray(0, at), rng.bytes(rng.size(16)), b.subarray(at)]);
    }
    case 6: {
      // duplicate a range
      const n = rng.size(Math.max(1, b.length - at));
      return Buffer.concat([b.subarray(0, at + n), b.subarray(at, at + n), b.subarray(at + n)]);
    }
    case 7: {
      // splice in a piece of another input
      if (donors.length === 0) return b;
      const d = rng.pick(donors);
      if (d.length === 0) return b;
      const from = rng.int(d.length);
      const piece = d.subarray(from, from + rng.size(d.length - from));
      return Buffer.concat([b.subarray(0, at), piece, b.subarray(at)]);
    }
    case 8: // a tag-like byte (0..0x0a) where a tag may sit
      b[at] = rng.int(11);
      return b;
    default: {
      // swap two bytes
      const other = rng.int(b.length);
      const t = b[at] as number;
      b[at] = b[other] as number;
      b[other] = t;
      return b;
    }
  }
}

/** `count` mutations stacked. */
export function mutateMany(rng: Rng, input: Uint8Array, count: number, donors: readonly Uint8Array[] = []): Buffer {
  let b: Buffer = Buffer.from(input);
  for (let i = 0; i < count; i++) b = mutateBytes(rng, b, donors);
  return b;
}

/** Splits `bytes` into the chunks a socket write sequence will use: whole, random pieces, or one byte at a time. */
export function chunkBytes(rng: Rng, bytes: Buffer): Buffer[] {
  const how = rng.int(4);
  if (how <= 1 || bytes.length <= 1) return [bytes];
  if (how === 2 && bytes.length <= 64) return Array.from(bytes, (x) => Buffer.of(x));
  const out: Buffer[] = [];
  let off = 0;
  while (off < bytes.length) {
    const n = 1 + rng.size(Math.max(1, Math.min(bytes.length - off, 4096)) - 1);
    out.push(bytes.subarray(off, off + n));
    off += n;
  }
  return out;
}
