import { describe, expect, it } from 'vitest';
import { andThen, andThenWith } from '../../../src/core/maybe-promise.js';

describe('andThen / andThenWith', () => {
  it('run synchronously on a plain value (no promise made)', () => {
    expect(andThen(2, (v) => v * 3)).toBe(6);
    const seen: [string, number][] = [];
    const r = andThenWith(5, 'arg', (a: string, v: number) => {
      seen.push([a, v]);
      return v + 1;
    });
    expect(r).toBe(6);
    expect(seen).toEqual([['arg', 5]]);
  });

  it('run once the promise settles, and return a promise of the result', async () => {
    const seen: [string, number][] = [];
    const r = andThenWith(Promise.resolve(7), 'later', (a: string, v: number) => {
      seen.push([a, v]);
      return `${a}:${v}`;
    });
    expect(r).toBeInstanceOf(Promise);
    expect(seen).toEqual([]);
    await expect(r).resolves.toBe('later:7');
    expect(seen).toEqual([['later', 7]]);
    await expect(andThen(Promise.resolve(1), (v) => v + 1)).resolves.toBe(2);
  });

  it('let failures through: a rejection skips next, a throw in next surfaces', async () => {
    let called = false;
    const next = (): number => {
      called = true;
      return 0;
    };
    await expect(andThenWith(Promise.reject(new Error('gone')), 'x', next)).rejects.toThrow('gone');
    expect(called).toBe(false);
    expect(() =>
      andThenWith(1, 'x', () => {
        throw new Error('sync');
      }),
    ).toThrow('sync');
    await expect(
      andThenWith(Promise.resolve(1), 'x', () => {
        throw new Error('async');
      }),
    ).rejects.toThrow('async');
  });
});
