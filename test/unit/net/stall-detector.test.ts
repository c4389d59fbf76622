import { describe, expect, it } from 'vitest';
import { StallDetector, memberStallBounds, type StallVerdict } from '../../../src/net/stall-detector.js';

const BOUNDS = { probeAfterMs: 1_000, stallAfterMs: 2_000 };

describe('StallDetector', () => {
  it('stays ok while nothing was written, however long the connection is idle', () => {
    const d = new StallDetector(BOUNDS);
    for (const t of [0, 999, 1_000, 5_000, 1e9]) expect(d.check(t)).toBe('ok');
    expect(d.unanswered(1e9)).toEqual({ silentMs: 0, bytes: 0 });
  });

  it('probes once a write has gone unanswered for probeAfterMs, once per silence, and calls it stalled at stallAfterMs', () => {
    const d = new StallDetector(BOUNDS);
    d.wrote(100, 10_000);
    expect(d.check(10_999)).toBe('ok');
    expect(d.check(11_000)).toBe('probe');
    expect(d.check(11_100)).toBe('ok'); // the probe is out: not sent again
    d.wrote(20, 11_000); // the probe itself, and more heartbeats: the silence still counts from the first write
    d.wrote(30, 11_500);
    expect(d.check(11_999)).toBe('ok');
    expect(d.unanswered(11_999)).toEqual({ silentMs: 1_999, bytes: 150 });
    expect(d.check(12_000)).toBe('stalled');
  });

  it('stays stalled once stalled: a late answer does not bring the connection back', () => {
    const d = new StallDetector(BOUNDS);
    d.wrote(1, 0);
    expect(d.check(2_000)).toBe('stalled');
    d.heard();
    expect(d.check(2_001)).toBe('stalled');
    d.wrote(1, 3_000);
    expect(d.check(1e9)).toBe('stalled');
  });

  it('any inbound bytes end the silence: the next write starts a new one, with a new probe', () => {
    const d = new StallDetector(BOUNDS);
    d.wrote(10, 0);
    expect(d.check(1_000)).toBe('probe');
    d.heard(); // the probe's answer
    expect(d.check(1_900)).toBe('ok');
    expect(d.check(10_000)).toBe('ok');
    expect(d.unanswered(10_000)).toEqual({ silentMs: 0, bytes: 0 });
    d.wrote(10, 10_000);
    expect(d.check(10_999)).toBe('ok');
    expect(d.check(11_000)).toBe('probe');
    d.heard();
    d.wrote(10, 11_500);
    expect(d.check(12_400)).toBe('ok'); // 900 ms of the new silence only
    expect(d.check(12_500)).toBe('probe');
    expect(d.check(13_500)).toBe('stalled');
  });

  it('a connection answered all the time never probes, whatever it writes', () => {
    const d = new StallDetector(BOUNDS);
    for (let t = 0; t < 100_000; t += 100) {
      d.wrote(1_000_000, t);
      expect(d.check(t + 50)).toBe('ok');
      d.heard();
    }
  });

  it('a check that comes late (a busy event loop) may go straight from ok to stalled, without a probe first', () => {
    const d = new StallDetector(BOUNDS);
    d.wrote(1, 0);
    expect(d.check(5_000)).toBe('stalled');
  });

  it('in random interleavings: stalled exactly when the silence since the first unanswered write reaches stallAfterMs, a probe at most once per silence', () => {
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let run = 0; run < 300; run++) {
      const d = new StallDetector(BOUNDS);
      let now = 0;
      let silentSince: number | undefined;
      let probes = 0;
      let stalled = false;
      for (let step = 0; step < 60; step++) {
        now += rnd(700);
        const op = rnd(3);
        if (op === 0) {
          d.wrote(1 + rnd(100), now);
          silentSince ??= now;
        } else if (op === 1) {
          d.heard();
          if (!stalled) {
            silentSince = undefined;
            probes = 0;
          }
        } else {
          const v: StallVerdict = d.check(now);
          const expectStalled = stalled || (silentSince !== undefined && now - silentSince >= BOUNDS.stallAfterMs);
          if (expectStalled) {
            expect(v).toBe('stalled');
            stalled = true;
          } else if (v === 'probe') {
            probes++;
            expect(now - silentSince!).toBeGreaterThanOrEqual(BOUNDS.probeAfterMs);
            expect(probes).toBe(1);
          } else {
            expect(v).toBe('ok');
          }
        }
      }
    }
  });

  it('refuses bounds that are not 0 < probeAfterMs < stallAfterMs', () => {
    expect(() => new StallDetector({ probeAfterMs: 0, stallAfterMs: 1 })).toThrow(RangeError);
    expect(() => new StallDetector({ probeAfterMs: 2, stallAfterMs: 2 })).toThrow(/probeAfterMs < stallAfterMs/);
    expect(() => new StallDetector({ probeAfterMs: NaN, stallAfterMs: 2 })).toThrow(RangeError);
  });
});

describe('memberStallBounds', () => {
  it('stalls after two heartbeat intervals, never past half of max-no-heartbeat, never under 1 s', () => {
    expect(memberStallBounds(5_000, 60_000)).toEqual({ probeAfterMs: 5_000, stallAfterMs: 10_000 }); // Hazelcast's defaults
    expect(memberStallBounds(1_000, 5_000)).toEqual({ probeAfterMs: 1_000, stallAfterMs: 2_000 });
    expect(memberStallBounds(1_000, 3_000)).toEqual({ probeAfterMs: 750, stallAfterMs: 1_500 });
    expect(memberStallBounds(100, 300)).toEqual({ probeAfterMs: 250, stallAfterMs: 1_000 });
  });

  it('leaves time within max-no-heartbeat for a heartbeat on a new connection', () => {
    for (const hb of [100, 500, 1_000, 2_000, 5_000, 10_000]) {
      for (const max of [2_000, 3_000, 5_000, 10_000, 60_000, 300_000]) {
        if (max < 2 * hb) continue;
        const b = memberStallBounds(hb, max);
        expect(b.probeAfterMs).toBeGreaterThan(0);
        expect(b.stallAfterMs).toBeGreaterThan(b.probeAfterMs);
        expect(b.stallAfterMs).toBeLessThanOrEqual(Math.max(1_000, max / 2));
        expect(() => new StallDetector(b)).not.toThrow();
      }
    }
  });
});
