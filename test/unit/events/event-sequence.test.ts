import { describe, expect, it } from 'vitest';
import { SequenceTracker, type Verdict } from '../../../src/events/event-sequence.js';

describe('SequenceTracker', () => {
  it('delivers in order, drops duplicates and late messages, reports holes and new terms', () => {
    const t = new SequenceTracker();
    const seq: [number, number, Verdict][] = [
      [5, 1, 'deliver'],
      [5, 2, 'deliver'],
      [5, 2, 'duplicate'],
      [5, 1, 'duplicate'],
      [5, 5, 'gap'],
      [5, 3, 'duplicate'], // older than the last delivered: never delivered out of order
      [5, 6, 'deliver'],
      [8, 1, 'newTerm'],
      [5, 7, 'stale'],
      [8, 2, 'deliver'],
    ];
    for (const [epoch, s, v] of seq) expect([epoch, s, t.admit('m', 3, epoch, s)]).toEqual([epoch, s, v]);
    expect(t.position('m', 3)).toEqual({ epoch: 8, sequence: 2 });
  });

  it('the first event of a partition is delivered whatever its number; maps and partitions are apart', () => {
    const t = new SequenceTracker();
    expect(t.admit('m', 0, 3, 40)).toBe('deliver');
    expect(t.admit('m', 1, 3, 1)).toBe('deliver');
    expect(t.admit('n', 0, 3, 1)).toBe('deliver');
    expect(t.admit('m', 0, 3, 41)).toBe('deliver');
    t.forget('m');
    expect(t.position('m', 0)).toBeUndefined();
    expect(t.admit('m', 0, 3, 7)).toBe('deliver');
    expect(t.position('n', 0)).toEqual({ epoch: 3, sequence: 1 });
  });

  it('any order of a sent-twice stream delivers each event once, in a growing order', () => {
    // A stream of 1..40 in one term where every message may come twice and late ones trail:
    // what is delivered is strictly increasing and includes each number at most once.
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const t = new SequenceTracker();
      const arrivals: number[] = [];
      for (let s = 1; s <= 40; s++) {
        arrivals.push(s);
        if (rand(3) === 0) arrivals.push(s);
        if (rand(5) === 0 && s > 3) arrivals.push(s - 1 - rand(3));
      }
      const delivered: number[] = [];
      for (const s of arrivals) {
        const v = t.admit('m', 0, 1, s);
        if (v === 'deliver' || v === 'gap') delivered.push(s);
      }
      expect(delivered).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    }
  });
});
