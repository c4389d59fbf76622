// Whether a connection still delivers what is written to it. From user space, a TCP connection
// whose packets are dropped (a cut link, a peer's host gone) looks healthy: writes succeed into
// the kernel's send buffer, and the kernel retransmits with exponential back-off (a retry after
// 0.2, 0.4, 0.8 ... s, 13 s and more after a 20 s cut), so bytes written after the link comes
// back still wait for the next retry. What user space can see is that nothing comes back: a
// connection written to that hears nothing for `probeAfterMs` is probed (the caller sends
// something the peer answers at once), and one still silent `stallAfterMs` after its first
// unanswered write is stalled: the caller sends on a new connection instead. Pure: time and
// byte counts come in as arguments, so every sequence is unit-tested without sockets or timers.

export interface StallBounds {
  /** Written to and silent this long: probe the connection. */
  readonly probeAfterMs: number;
  /** Written to and silent this long (the probe unanswered too): the connection is stalled. */
  readonly stallAfterMs: number;
}

/** `ok`: nothing to do; `probe`: send a probe now (once per silence); `stalled`: stop using the connection. */
export type StallVerdict = 'ok' | 'probe' | 'stalled';

export class StallDetector {
  /** When the first write after the last inbound bytes went out; undefined while nothing waits for an answer. */
  private silentSince: number | undefined;
  private unansweredBytes = 0;
  private probed = false;
  private stalled = false;

  constructor(private readonly bounds: StallBounds) {
    if (!(bounds.probeAfterMs > 0) || !(bounds.stallAfterMs > bounds.probeAfterMs)) {
      throw new RangeError(`stall bounds need 0 < probeAfterMs < stallAfterMs (got ${bounds.probeAfterMs} and ${bounds.stallAfterMs})`);
    }
  }

  /** `bytes` were handed to the socket at `nowMs`. */
  wrote(bytes: number, nowMs: number): void {
    this.silentSince ??= nowMs;
    this.unansweredBytes += bytes;
  }

  /** Bytes came in: whatever was written before them reached a live peer. */
  heard(): void {
    if (this.stalled) return;
    this.silentSince = undefined;
    this.unansweredBytes = 0;
    this.probed = false;
  }

  check(nowMs: number): StallVerdict {
    if (this.stalled) return 'stalled';
    if (this.silentSince === undefined) return 'ok';
    const silentMs = nowMs - this.silentSince;
    if (silentMs >= this.bounds.stallAfterMs) {
      this.stalled = true;
      return 'stalled';
    }
    if (silentMs >= this.bounds.probeAfterMs && !this.probed) {
      this.probed = true;
      return 'probe';
    }
    return 'ok';
  }

  /** How long and how many bytes the connection has been written to without an answer (for logs). */
  unanswered(nowMs: number): { readonly silentMs: number; readonly bytes: number } {
    return { silentMs: this.silentSince === undefined ? 0 : nowMs - this.silentSince, bytes: this.unansweredBytes };
  }
}

/**
 * The bounds for member connections, from the heartbeat settings: a heartbeat must not wait
 * behind a stalled connection long enough for the peer to suspect this member. Probe after a
 * heartbeat interval of silence (at least 250 ms); stalled after two (at least 1 s, so a peer
 * busy for a moment keeps its connection), but never later than half of max-no-heartbeat, so
 * the heartbeats that follow still arrive in time on the new connection.
 */
export function memberStallBounds(heartbeatIntervalMs: number, maxNoHeartbeatMs: number): StallBounds {
  const stallAfterMs = Math.max(1_000, Math.min(2 * heartbeatIntervalMs, maxNoHeartbeatMs / 2));
  const probeAfterMs = Math.max(250, Math.min(heartbeatIntervalMs, stallAfterMs / 2));
  return { probeAfterMs, stallAfterMs };
}
