import { describe, expect, it } from 'vitest';
import { DeadlineFailureDetector } from '../../../src/cluster/failure-detector.js';

const T0 = 1_700_000_000_000;

describe('DeadlineFailureDetector', () => {
  it('suspects nobody it has never heard from', () => {
    const d = new DeadlineFailureDetector(5_000);
    expect(d.silent(T0)).toEqual([]);
    expect(d.silent(T0 + 1e9)).toEqual([]);
    expect(d.lastHeardOf('a')).toBeUndefined();
  });

  it('records when a member was last heard from', () => {
    const d = new DeadlineFailureDetector(5_000);
    d.heard('a', T0);
    expect(d.lastHeardOf('a')).toBe(T0);
    d.heard('a', T0 + 10);
    expect(d.lastHeardOf('a')).toBe(T0 + 10);
    expect(d.lastHeardOf('b')).toBeUndefined();
  });

  it('suspects only after strictly more than the allowed silence (> not >=)', () => {
    const d = new DeadlineFailureDetector(5_000);
    d.heard('a', T0);
    expect(d.silent(T0)).toEqual([]);
    expect(d.silent(T0 + 4_999)).toEqual([]);
    expect(d.silent(T0 + 5_000)).toEqual([]); // exactly the allowed silence: still fine
    expect(d.silent(T0 + 5_001)).toEqual(['a']);
    expect(d.silent(T0 + 60_000)).toEqual(['a']);
  });

  it('with an allowed silence of 0, suspects one millisecond after the last message', () => {
    const d = new DeadlineFailureDetector(0);
    d.heard('a', T0);
    expect(d.silent(T0)).toEqual([]);
    expect(d.silent(T0 + 1)).toEqual(['a']);
  });

  it('a message clears the suspicion and restarts the deadline', () => {
    const d = new DeadlineFailureDetector(1_000);
    d.heard('a', T0);
    expect(d.silent(T0 + 1_001)).toEqual(['a']);
    d.heard('a', T0 + 1_001);
    expect(d.silent(T0 + 1_001)).toEqual([]);
    expect(d.silent(T0 + 2_001)).toEqual([]);
    expect(d.silent(T0 + 2_002)).toEqual(['a']);
  });

  it('ignores timestamps older than (or equal to) what it already has: out-of-order reports do not move the deadline back', () => {
    const d = new DeadlineFailureDetector(1_000);
    d.heard('a', T0 + 500);
    d.heard('a', T0); // late report of an older message
    expect(d.lastHeardOf('a')).toBe(T0 + 500);
    expect(d.silent(T0 + 1_001)).toEqual([]); // judged from T0 + 500, not T0
    expect(d.silent(T0 + 1_500)).toEqual([]);
    expect(d.silent(T0 + 1_501)).toEqual(['a']);
    d.heard('a', T0 + 500); // the same time again changes nothing
    expect(d.lastHeardOf('a')).toBe(T0 + 500);
  });

  it('judges each member on its own deadline and lists every silent one', () => {
    const d = new DeadlineFailureDetector(1_000);
    d.heard('a', T0);
    d.heard('b', T0 + 300);
    d.heard('c', T0 + 600);
    expect(d.silent(T0 + 1_000)).toEqual([]);
    expect(d.silent(T0 + 1_001)).toEqual(['a']);
    expect(d.silent(T0 + 1_301).sort()).toEqual(['a', 'b']);
    expect(d.silent(T0 + 1_601).sort()).toEqual(['a', 'b', 'c']);
    d.heard('b', T0 + 1_601);
    expect(d.silent(T0 + 1_601).sort()).toEqual(['a', 'c']);
  });

  it('silent() only reads: asking twice gives the same answer and forgets nobody', () => {
    const d = new DeadlineFailureDetector(10);
    d.heard('a', T0);
    expect(d.silent(T0 + 11)).toEqual(['a']);
    expect(d.silent(T0 + 11)).toEqual(['a']);
    expect(d.lastHeardOf('a')).toBe(T0);
    // A time before the last message (a clock that stepped back) suspects nobody.
    expect(d.silent(T0 - 100)).toEqual([]);
  });

  it('forget removes a member: it is no longer suspected, and a later message starts it afresh', () => {
    const d = new DeadlineFailureDetector(1_000);
    d.heard('a', T0 + 5_000);
    d.heard('b', T0);
    d.forget('a');
    expect(d.lastHeardOf('a')).toBeUndefined();
    expect(d.silent(T0 + 100_000)).toEqual(['b']);
    // After forget, even an older timestamp is taken (nothing to compare with).
    d.heard('a', T0);
    expect(d.lastHeardOf('a')).toBe(T0);
    expect(d.silent(T0 + 1_001).sort()).toEqual(['a', 'b']);
    d.forget('missing'); // forgetting an unknown member is harmless
    d.forget('a');
    d.forget('b');
    expect(d.silent(T0 + 100_000)).toEqual([]);
  });

  it('keeps its answers consistent with a straightforward model over a seeded random run', () => {
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 4294967296;
    };
    const max = 700;
    const d = new DeadlineFailureDetector(max);
    const model = new Map<string, number>();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    let now = T0;
    for (let step = 0; step < 5_000; step++) {
      now += Math.floor(random() * 200);
      const id = ids[Math.floor(random() * ids.length)]!;
      const r = random();
      if (r < 0.5) {
        // Reports may arrive up to 300 ms late (older than the latest one).
        const at = now - Math.floor(random() * 300);
        d.heard(id, at);
        const prev = model.get(id);
        if (prev === undefined || at > prev) model.set(id, at);
      } else if (r < 0.55) {
        d.forget(id);
        model.delete(id);
      }
      const expected = [...model].filter(([, at]) => now - at > max).map(([u]) => u).sort();
      expect(d.silent(now).sort(), `step ${step}`).toEqual(expected);
      expect(d.lastHeardOf(id)).toBe(model.get(id));
    }
  });
});
