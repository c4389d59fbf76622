// Time goes through a Clock so that expiry, waiters and failure detection can be tested
// without waiting. `systemClock` is the real one; tests use `ManualClock`.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Run `fn` once after `delayMs`. The timer does not keep the process alive. */
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  /** Run `fn` every `intervalMs`. The timer does not keep the process alive. */
  setInterval(fn: () => void, intervalMs: number): TimerHandle;
}

/** setTimeout's own ceiling (about 24.8 days); longer delays are clamped to it. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, delayMs) {
    const t = setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, intervalMs) {
    const t = setInterval(fn, Math.min(Math.max(1, intervalMs), MAX_TIMER_DELAY_MS));
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
  intervalMs: number | undefined;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in time order during `advance`. */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: ManualTimer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    return this.add(fn, delayMs, undefined);
  }

  setInterval(fn: () => void, intervalMs: number): TimerHandle {
    return this.add(fn, intervalMs, Math.max(1, intervalMs));
  }

  /** Move time forward by `ms`, firing due timers in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of this.timers) {
        if (t.cancelled || t.at > target) continue;
        if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      }
      if (!next) break;
      this.current = Math.max(this.current, next.at);
      if (next.intervalMs !== undefined) {
        next.at += next.intervalMs;
        next.seq = this.seq++;
      } else {
        next.cancelled = true;
      }
      next.fn();
    }
    this.current = target;
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  private add(fn: () => void, delayMs: number, intervalMs: number | undefined): TimerHandle {
    const timer: ManualTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, intervalMs, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
}
