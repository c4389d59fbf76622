import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { Latin1, type WireValue } from '../../../src/protocol/codec.js';
import * as f from '../../../src/protocol/fields.js';

/** The BAD_REQUEST GridError that `fn` throws. */
function refusal(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    const g = e as GridError;
    expect(g.code).toBe('BAD_REQUEST');
    expect(g.retryable).toBe(false);
    return g;
  }
  throw new Error('expected a BAD_REQUEST GridError, nothing was thrown');
}

const bytes = Uint8Array.of(1, 2, 3);
const obj: WireValue = { a: 1 };
/** One value of every wire type, with how a refusal names its type. */
const SAMPLES: readonly (readonly [string, WireValue])[] = [
  ['null', null],
  ['boolean', true],
  ['boolean', false],
  ['number', 42],
  ['number', 1.5],
  ['string', 'text'],
  ['string', ''],
  ['object', new Latin1('raw')],
  ['object', bytes],
  ['array', []],
  ['array', ['x']],
  ['object', obj],
];

describe('fields: reading member message payloads', () => {
  describe('tuple', () => {
    it('returns an array as it is', () => {
      const t: WireValue = ['a', 1, null];
      expect(f.tuple(t, 'join')).toBe(t);
      expect(f.tuple([], 'empty')).toEqual([]);
    });

    it('refuses anything else, naming the field and what came instead', () => {
      for (const [shown, v] of SAMPLES) {
        if (Array.isArray(v)) continue;
        const e = refusal(() => f.tuple(v, 'join answer'));
        expect(e.message).toBe(`malformed member message: join answer is ${shown}`);
      }
    });
  });

  describe('str', () => {
    it('reads strings, the empty one included', () => {
      expect(f.str(['a', 'b'], 1, 'address')).toBe('b');
      expect(f.str([''], 0, 'address')).toBe('');
    });

    it('refuses other types and a missing position (undefined)', () => {
      for (const [shown, v] of SAMPLES) {
        if (typeof v === 'string') continue;
        expect(refusal(() => f.str([v], 0, 'cluster name')).message).toBe(`malformed member message: cluster name is ${shown}`);
      }
      expect(refusal(() => f.str([], 0, 'uuid')).message).toBe('malformed member message: uuid is undefined');
      expect(refusal(() => f.str(['a'], 5, 'uuid')).message).toContain('uuid');
    });

    it('does not take a Latin1 byte string for a string', () => {
      expect(refusal(() => f.str([new Latin1('x')], 0, 'name')).message).toContain('name is object');
    });
  });

  describe('optStr', () => {
    it('reads strings; null and a missing position are undefined', () => {
      expect(f.optStr(['m'], 0, 'master')).toBe('m');
      expect(f.optStr([''], 0, 'master')).toBe('');
      expect(f.optStr([null], 0, 'master')).toBeUndefined();
      expect(f.optStr([], 0, 'master')).toBeUndefined();
      expect(f.optStr(['a'], 3, 'master')).toBeUndefined();
    });

    it('refuses other types', () => {
      for (const [shown, v] of SAMPLES) {
        if (typeof v === 'string' || v === null) continue;
        expect(refusal(() => f.optStr([v], 0, 'redirect')).message).toBe(`malformed member message: redirect is ${shown}`);
      }
    });
  });

  describe('int', () => {
    it('reads integers, negative and large ones included', () => {
      expect(f.int([0], 0, 'version')).toBe(0);
      expect(f.int([-7], 0, 'version')).toBe(-7);
      expect(f.int([2 ** 40], 0, 'version')).toBe(2 ** 40);
      expect(f.int([Number.MAX_SAFE_INTEGER], 0, 'version')).toBe(Number.MAX_SAFE_INTEGER);
    });

    it('refuses fractions, NaN, infinities and other types', () => {
      for (const v of [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        expect(refusal(() => f.int([v], 0, 'partition id')).message).toBe('malformed member message: partition id is number');
      }
      for (const [shown, v] of SAMPLES) {
        if (typeof v === 'number') continue;
        expect(refusal(() => f.int([v], 0, 'partition id')).message).toBe(`malformed member message: partition id is ${shown}`);
      }
      expect(refusal(() => f.int(['3'], 0, 'partition id')).message).toContain('partition id is string');
      expect(refusal(() => f.int([], 0, 'partition id')).message).toContain('partition id is undefined');
    });
  });

  describe('num', () => {
    it('reads any number, fractions included', () => {
      expect(f.num([1.5], 0, 'deadline')).toBe(1.5);
      expect(f.num([-3], 0, 'deadline')).toBe(-3);
      expect(f.num([1e300], 0, 'deadline')).toBe(1e300);
    });

    it('refuses other types', () => {
      for (const [shown, v] of SAMPLES) {
        if (typeof v === 'number') continue;
        expect(refusal(() => f.num([v], 0, 'deadline')).message).toBe(`malformed member message: deadline is ${shown}`);
      }
      expect(refusal(() => f.num([], 0, 'deadline')).message).toContain('deadline is undefined');
    });
  });

  describe('bool', () => {
    it('reads true and false', () => {
      expect(f.bool([true], 0, 'joined')).toBe(true);
      expect(f.bool([false], 0, 'joined')).toBe(false);
    });

    it('refuses truthy and falsy values of other types', () => {
      for (const [shown, v] of SAMPLES) {
        if (typeof v === 'boolean') continue;
        expect(refusal(() => f.bool([v], 0, 'joined')).message).toBe(`malformed member message: joined is ${shown}`);
      }
      expect(refusal(() => f.bool([0], 0, 'joined')).message).toContain('joined is number');
      expect(refusal(() => f.bool([], 0, 'joined')).message).toContain('joined is undefined');
    });
  });

  describe('latin1', () => {
    it('reads the text of a Latin1 byte string', () => {
      expect(f.latin1([new Latin1('k\u00ff\u0000')], 0, 'key')).toBe('k\u00ff\u0000');
      expect(f.latin1([new Latin1('')], 0, 'key')).toBe('');
    });

    it('refuses plain strings, bytes and everything else', () => {
      for (const [shown, v] of SAMPLES) {
        if (v instanceof Latin1) continue;
        expect(refusal(() => f.latin1([v], 0, 'key')).message).toBe(`malformed member message: key is ${shown}`);
      }
    });
  });

  describe('arr', () => {
    it('reads a nested array', () => {
      const inner: WireValue = [1, 2];
      expect(f.arr([inner], 0, 'rows')).toBe(inner);
      expect(f.arr([[]], 0, 'rows')).toEqual([]);
    });

    it('refuses other types; a missing position reads as null', () => {
      for (const [shown, v] of SAMPLES) {
        if (Array.isArray(v)) continue;
        expect(refusal(() => f.arr([v], 0, 'rows')).message).toBe(`malformed member message: rows is ${shown}`);
      }
      expect(refusal(() => f.arr([], 0, 'rows')).message).toBe('malformed member message: rows is null');
    });
  });

  describe('strings', () => {
    it('reads an array of strings', () => {
      expect(f.strings([['a', 'b', '']], 0, 'uuids')).toEqual(['a', 'b', '']);
      expect(f.strings([[]], 0, 'uuids')).toEqual([]);
    });

    it('returns a fresh array (the caller may change it)', () => {
      const inner: WireValue = ['a'];
      const out = f.strings([inner], 0, 'uuids');
      out.push('b');
      expect(inner).toEqual(['a']);
    });

    it('names the element that is not a string by its index', () => {
      expect(refusal(() => f.strings([['a', 2, 'c']], 0, 'uuids')).message).toBe('malformed member message: uuids[1] is number');
      expect(refusal(() => f.strings([['a', 'b', null]], 0, 'uuids')).message).toBe('malformed member message: uuids[2] is null');
      expect(refusal(() => f.strings([[['nested']]], 0, 'uuids')).message).toBe('malformed member message: uuids[0] is array');
    });

    it('refuses a value that is not an array, naming the field', () => {
      expect(refusal(() => f.strings(['a'], 0, 'uuids')).message).toBe('malformed member message: uuids is string');
      expect(refusal(() => f.strings([], 0, 'uuids')).message).toBe('malformed member message: uuids is null');
    });
  });

  describe('optInt and optNum (optional trailing fields)', () => {
    it('read numbers; null and a missing position are undefined', () => {
      expect(f.optInt([3], 0, 'stamp')).toBe(3);
      expect(f.optInt([null], 0, 'stamp')).toBeUndefined();
      expect(f.optInt([], 0, 'stamp')).toBeUndefined();
      expect(f.optNum([1.5], 0, 'since')).toBe(1.5);
      expect(f.optNum([null], 0, 'since')).toBeUndefined();
      expect(f.optNum(['a'], 5, 'since')).toBeUndefined();
    });

    it('refuse other types, and optInt a fraction', () => {
      for (const [shown, v] of SAMPLES) {
        if (v === null || typeof v === 'number') continue;
        expect(refusal(() => f.optInt([v], 0, 'stamp')).message).toBe(`malformed member message: stamp is ${shown}`);
        expect(refusal(() => f.optNum([v], 0, 'since')).message).toBe(`malformed member message: since is ${shown}`);
      }
      expect(refusal(() => f.optInt([1.5], 0, 'stamp')).message).toBe('malformed member message: stamp is number');
    });
  });

  describe('ints', () => {
    it('reads an array of integers and names a bad one by its index', () => {
      expect(f.ints([[0, -1, 2 ** 40]], 0, 'versions')).toEqual([0, -1, 2 ** 40]);
      expect(refusal(() => f.ints([[0, 1.5]], 0, 'versions')).message).toBe('malformed member message: versions[1] is number');
      expect(refusal(() => f.ints([[null]], 0, 'versions')).message).toBe('malformed member message: versions[0] is null');
      expect(refusal(() => f.ints([7], 0, 'versions')).message).toBe('malformed member message: versions is number');
    });
  });

  describe('record', () => {
    it('reads a plain object, an empty one included', () => {
      expect(f.record([obj], 0, 'data')).toBe(obj);
      expect(f.record([{}], 0, 'data')).toEqual({});
    });

    it('refuses arrays, bytes, Latin1 strings, null and everything else', () => {
      for (const [shown, v] of SAMPLES) {
        if (v === obj) continue;
        expect(refusal(() => f.record([v], 0, 'data')).message).toBe(`malformed member message: data is ${shown}`);
      }
      expect(refusal(() => f.record([], 0, 'data')).message).toBe('malformed member message: data is undefined');
    });
  });
});
