import { describe, expect, it } from 'vitest';
import { ManualClock, type TimerHandle } from '../../../src/core/clock.js';
import { WanLiveness } from '../../../src/wan/wan-liveness.js';
import { prng } from '../../support/prng.js';

const T0 = 1_700_000_000_000;
const OPTS = { intervalMs: 1000, timeoutMs: 5000 };

/** A liveness machine driven the way the WAN shell drives it: one Clock timer at each wakeAt. */
class Harness {
  readonly clock = new ManualClock(T0);
  readonly l = new WanLiveness(OPTS, T0);
  readonly probes: number[] = [];
  deadAt: number | undefined;
  silentAtDeath: number | undefined;
  private timer: TimerHandle | undefined;

  constructor() {
    this.tick();
  }

  tick(): void {
    this.timer?.cancel();
    const v = this.l.check(this.clock.now());
    if (v.type === 'dead') {
      this.deadAt ??= this.clock.now();
      this.silentAtDeath = v.silentForMs;
      return;
    }
    if (v.probe) this.probes.push(this.clock.now() - T0);
    expect(v.wakeAtMs).toBeGreaterThan(this.clock.now());
    this.timer = this.clock.setTimeout(() => this.tick(), v.wakeAtMs - this.clock.now());
  }

  /** The peer answers now: the shell notes it (and re-arms its timer, as it would on the next sample). */
  heard(): void {
    this.l.heard(this.clock.now());
  }
}

describe('WanLiveness', () => {
  it('an idle connection that hears nothing probes every interval and is dead at the timeout, not before', () => {
    const h = new Harness();
    h.clock.advance(4999);
    expect(h.deadAt).toBeUndefined();
    expect(h.probes).toEqual([1000, 2000, 3000, 4000]);
    h.clock.advance(1);
    expect(h.deadAt).toBe(T0 + 5000);
    expect(h.silentAtDeath).toBe(5000);
  });

  it('a connection whose probes are answered never dies, and probes only after an interval of silence', () => {
    const h = new Harness();
    for (let s = 0; s < 120; s++) {
      h.clock.advance(1000);
      // The answer to the probe just sent comes back 30 ms later.
      h.clock.advance(30);
      h.heard();
    }
    expect(h.deadAt).toBeUndefined();
    // One probe per second of silence: 120 s of answered probes are about 120 probes, never a burst.
    expect(h.probes.length).toBeGreaterThan(100);
    expect(h.probes.length).toBeLessThanOrEqual(121);
    for (let i = 1; i < h.probes.length; i++) expect((h.probes[i] as number) - (h.probes[i - 1] as number)).toBeGreaterThanOrEqual(1000);
  });

  it('traffic coming back keeps a connection alive without any probe', () => {
    const h = new Harness();
    for (let t = 0; t < 60_000; t += 200) {
      h.clock.advance(200);
      h.heard();
    }
    expect(h.probes).toEqual([]);
    expect(h.deadAt).toBeUndefined();
  });

  it('silence that starts after traffic is measured from the last thing heard', () => {
    const h = new Harness();
    h.clock.advance(2500);
    h.heard(); // at 2500
    h.clock.advance(4999);
    expect(h.deadAt).toBeUndefined();
    h.clock.advance(1);
    expect(h.deadAt).toBe(T0 + 7500);
  });

  it('a late check still declares death, with the real silence; an early one does not', () => {
    const l = new WanLiveness(OPTS, T0);
    expect(l.check(T0 + 4999)).toMatchObject({ type: 'alive', probe: true });
    expect(l.check(T0 + 60_000)).toEqual({ type: 'dead', silentForMs: 60_000 });
  });

  it('a time older than the last heard is ignored (a late report cannot shorten the silence window backwards)', () => {
    const l = new WanLiveness(OPTS, T0);
    l.heard(T0 + 3000);
    l.heard(T0 + 1000);
    expect(l.silentForMs(T0 + 7999)).toBe(4999);
    expect(l.check(T0 + 7999).type).toBe('alive');
    expect(l.check(T0 + 8000).type).toBe('dead');
  });

  it('wakeAt is never later than the death time, nor than the next probe', () => {
    const l = new WanLiveness({ intervalMs: 300, timeoutMs: 700 }, T0);
    expect(l.check(T0)).toEqual({ type: 'alive', probe: false, wakeAtMs: T0 + 300 });
    expect(l.check(T0 + 300)).toEqual({ type: 'alive', probe: true, wakeAtMs: T0 + 600 });
    expect(l.check(T0 + 650)).toEqual({ type: 'alive', probe: true, wakeAtMs: T0 + 700 });
    expect(l.check(T0 + 700).type).toBe('dead');
  });

  it('refuses settings that could never work', () => {
    expect(() => new WanLiveness({ intervalMs: 0, timeoutMs: 10 }, T0)).toThrow(/interval/);
    expect(() => new WanLiveness({ intervalMs: 1000, timeoutMs: 1000 }, T0)).toThrow(/exceed/);
  });

  it('random schedules: dead exactly when, and only when, the silence reached the timeout', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = prng(seed);
      const interval = 50 + Math.floor(rnd() * 2000);
      const timeout = interval + 1 + Math.floor(rnd() * 8000);
      const l = new WanLiveness({ intervalMs: interval, timeoutMs: timeout }, T0);
      let now = T0;
      let lastHeard = T0;
      let lastProbe = -Infinity;
      for (let step = 0; step < 200; step++) {
        now += Math.floor(rnd() * timeout * 0.6);
        if (rnd() < 0.5) {
          l.heard(now);
          lastHeard = now;
        }
        const v = l.check(now);
        if (now - lastHeard >= timeout) {
          expect(v, `seed ${seed} step ${step}`).toEqual({ type: 'dead', silentForMs: now - lastHeard });
          break;
        }
        expect(v.type, `seed ${seed} step ${step}`).toBe('alive');
        if (v.type !== 'alive') break;
        const probeDue = now - lastHeard >= interval && now - lastProbe >= interval;
        expect(v.probe, `seed ${seed} step ${step}`).toBe(probeDue);
        if (v.probe) lastProbe = now;
        expect(v.wakeAtMs).toBeLessThanOrEqual(lastHeard + timeout);
        expect(v.wakeAtMs).toBeGreaterThan(now);
      }
    }
  });
});
