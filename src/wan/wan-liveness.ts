// Whether one WAN connection is alive, as a pure state machine: the shell reports what it
// observes (the peer sent bytes, or drained what we had queued for it) and asks, at the time
// this machine names, whether to send a probe or to give the connection up. TCP alone cannot
// tell: across a link that drops packets, an idle connection notices nothing and one with data
// in flight waits for its retransmission back-off (tens of seconds).

export interface WanLivenessOptions {
  /** A probe is sent when nothing has come back for this long, and again every this long while nothing does. */
  readonly intervalMs: number;
  /** Nothing back for this long: the connection is dead (> intervalMs). */
  readonly timeoutMs: number;
}

export type WanLivenessVerdict =
  /** Alive; `probe`: send one probe now. Ask again at `wakeAtMs`. */
  | { readonly type: 'alive'; readonly probe: boolean; readonly wakeAtMs: number }
  /** Nothing came back for `silentForMs` (>= timeoutMs): close the connection. */
  | { readonly type: 'dead'; readonly silentForMs: number };

/**
 * The rules, for a connection idle or with requests in flight alike:
 * - anything received from the peer, or our send backlog shrinking (the peer's TCP is
 *   acknowledging a large write), counts as hearing from it;
 * - after `intervalMs` of silence a probe is asked for, then one per `intervalMs` while the
 *   silence lasts (the target answers a probe at once, whatever batches it is applying);
 * - after `timeoutMs` of silence the connection is dead. It is never declared dead early: a
 *   verdict is asked for at a time, and a late timer only makes it later.
 */
export class WanLiveness {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private lastHeardMs: number;
  private lastProbeMs = -Infinity;

  constructor(opts: WanLivenessOptions, nowMs: number) {
    if (!(opts.intervalMs > 0)) throw new RangeError(`heartbeat interval must be positive, got ${opts.intervalMs}`);
    if (!(opts.timeoutMs > opts.intervalMs)) throw new RangeError(`heartbeat timeout (${opts.timeoutMs} ms) must exceed the interval (${opts.intervalMs} ms)`);
    this.intervalMs = opts.intervalMs;
    this.timeoutMs = opts.timeoutMs;
    // A new connection has just answered its handshake.
    this.lastHeardMs = nowMs;
  }

  /** The peer sent something (or drained our backlog) at `nowMs`. Older times are ignored. */
  heard(nowMs: number): void {
    if (nowMs > this.lastHeardMs) this.lastHeardMs = nowMs;
  }

  /** How long nothing has come back, at `nowMs`. */
  silentForMs(nowMs: number): number {
    return Math.max(0, nowMs - this.lastHeardMs);
  }

  /** The verdict at `nowMs`; a probe it asks for counts as sent. */
  check(nowMs: number): WanLivenessVerdict {
    const silent = nowMs - this.lastHeardMs;
    if (silent >= this.timeoutMs) return { type: 'dead', silentForMs: silent };
    let probe = false;
    if (silent >= this.intervalMs && nowMs - this.lastProbeMs >= this.intervalMs) {
      probe = true;
      this.lastProbeMs = nowMs;
    }
    const nextProbe = Math.max(this.lastHeardMs, this.lastProbeMs) + this.intervalMs;
    return { type: 'alive', probe, wakeAtMs: Math.min(nextProbe, this.lastHeardMs + this.timeoutMs) };
  }
}
