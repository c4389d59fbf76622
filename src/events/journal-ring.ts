// Pure: one partition's event journal of one map, a bounded ring of the events the partition's
// owner made, in (epoch, sequence) order, on the owner and on each backup. It answers a reader
// that knows the last event it got ("after (epoch, sequence)") or only when it started ("since
// a time") with the events that followed, or says why it cannot: the next event was overwritten
// (capacity) or expired (time-to-live), or the journal never had it (an owner died before passing
// it on, or the journal itself was lost). Appends that arrive twice or late do nothing; a new
// owner's term cuts off what a dead owner made but never passed on.

import type { MapChangeEvent } from '../map/map-service.js';

export interface JournalEntry {
  readonly event: MapChangeEvent;
  /** When the owner made it (its clock; never earlier than the entry before it). */
  readonly atMs: number;
}

export interface JournalPosition {
  readonly epoch: number;
  readonly sequence: number;
}

/** Why a reader cannot go on from where it was. */
export type JournalGap = 'overwritten' | 'expired' | 'lost';

export type JournalRead =
  | { readonly ok: true; readonly entries: readonly JournalEntry[]; readonly more: boolean }
  | { readonly ok: false; readonly reason: JournalGap; readonly head: JournalPosition | undefined };

export type JournalFrom = { readonly after: JournalPosition } | { readonly sinceMs: number };

/** The last event the journal let go of, and why: a reader positioned exactly there still continues. */
export interface JournalDropped extends JournalPosition {
  readonly atMs: number;
  readonly reason: JournalGap;
}

export type AppendVerdict = 'appended' | 'duplicate' | 'stale';

export class JournalRing {
  /** Oldest first from `start`, wrapping once full; grows up to the capacity (no slots reserved up front). */
  private buf: JournalEntry[] = [];
  private start = 0;
  private dropped: JournalDropped | undefined;

  /**
   * @param capacity events kept (the config's capacity / 271)
   * @param completeSinceMs the time from which this journal holds every event of the partition
   *   (0: from its beginning); a later one when it started without the history (it was lost).
   */
  constructor(
    readonly capacity: number,
    readonly completeSinceMs = 0,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`journal capacity ${capacity}`);
  }

  get size(): number {
    return this.buf.length;
  }

  /** The newest event's position (or the last one let go when none is left). */
  head(): JournalPosition | undefined {
    const last = this.at(this.buf.length - 1);
    if (last !== undefined) return { epoch: last.event.epoch, sequence: last.event.sequence };
    return this.dropped === undefined ? undefined : { epoch: this.dropped.epoch, sequence: this.dropped.sequence };
  }

  /** The last event let go (for a copy of this journal). */
  lastDropped(): JournalDropped | undefined {
    return this.dropped;
  }

  append(entry: JournalEntry): AppendVerdict {
    const e = entry.event;
    let ref = this.head();
    if (ref !== undefined) {
      if (e.epoch < ref.epoch) return 'stale';
      if (e.epoch === ref.epoch && e.sequence <= ref.sequence) return 'duplicate';
      if (e.epoch > ref.epoch && e.sequence <= ref.sequence) {
        // A new owner goes on from what it had: what the dead owner made beyond that never reached it.
        this.truncateFrom(e.sequence);
        ref = this.head();
      }
      if (ref !== undefined && e.sequence > ref.sequence + 1) {
        // A hole (an append that never came): a reader before it must not be led across it.
        this.clear({ epoch: e.epoch, sequence: e.sequence - 1, atMs: entry.atMs, reason: 'lost' });
      }
    }
    const last = this.at(this.buf.length - 1);
    const atMs = last !== undefined && last.atMs > entry.atMs ? last.atMs : entry.atMs;
    const stored = atMs === entry.atMs ? entry : { event: e, atMs };
    if (this.buf.length < this.capacity) {
      this.buf.push(stored);
    } else {
      const oldest = this.buf[this.start]!;
      this.dropped = { epoch: oldest.event.epoch, sequence: oldest.event.sequence, atMs: oldest.atMs, reason: 'overwritten' };
      this.buf[this.start] = stored;
      this.start = (this.start + 1) % this.capacity;
    }
    return 'appended';
  }

  /** Lets go of events made `ttlMs` or longer before `nowMs` (0: no time-to-live). */
  expire(nowMs: number, ttlMs: number): void {
    if (ttlMs <= 0) return;
    let n = 0;
    while (n < this.buf.length && this.at(n)!.atMs + ttlMs <= nowMs) n++;
    if (n === 0) return;
    const gone = this.at(n - 1)!;
    const rest = this.entries().slice(n);
    this.buf = rest;
    this.start = 0;
    this.dropped = { epoch: gone.event.epoch, sequence: gone.event.sequence, atMs: gone.atMs, reason: 'expired' };
  }

  /** At most `limit` events after `from`, oldest first, or why the journal cannot answer. */
  read(from: JournalFrom, limit: number): JournalRead {
    if ('after' in from) return this.readAfter(from.after, limit);
    if (this.completeSinceMs > from.sinceMs) return this.gap('lost');
    if (this.dropped !== undefined && this.dropped.atMs >= from.sinceMs) return this.gap(this.dropped.reason);
    // The first event made at or after the time (times never go down within the journal).
    let lo = 0;
    let hi = this.buf.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid)!.atMs < from.sinceMs) lo = mid + 1;
      else hi = mid;
    }
    return this.slice(lo, limit);
  }

  /** Every event kept, oldest first (a copy for a replica). */
  entries(): JournalEntry[] {
    return this.start === 0 ? this.buf.slice() : [...this.buf.slice(this.start), ...this.buf.slice(0, this.start)];
  }

  /** A journal as a copy describes it (a migration or a new backup). */
  static restore(capacity: number, completeSinceMs: number, dropped: JournalDropped | undefined, entries: readonly JournalEntry[]): JournalRing {
    const r = new JournalRing(capacity, completeSinceMs);
    r.dropped = dropped;
    const from = Math.max(0, entries.length - capacity);
    if (from > 0) {
      const d = entries[from - 1]!;
      r.dropped = { epoch: d.event.epoch, sequence: d.event.sequence, atMs: d.atMs, reason: 'overwritten' };
    }
    r.buf = entries.slice(from);
    return r;
  }

  private readAfter(p: JournalPosition, limit: number): JournalRead {
    const i = this.indexOf(p.sequence);
    if (i !== undefined) {
      // The same number from another term: the reader saw an event of a dead owner that never reached this journal.
      if (this.at(i)!.event.epoch !== p.epoch) return this.gap('lost');
      return this.slice(i + 1, limit);
    }
    const d = this.dropped;
    if (d !== undefined && d.sequence === p.sequence && d.epoch === p.epoch) return this.slice(0, limit);
    const first = this.at(0);
    // Just before the first event the journal ever had (nothing let go yet).
    if (d === undefined && first !== undefined && first.event.sequence === p.sequence + 1 && first.event.epoch === p.epoch) return this.slice(0, limit);
    const oldest = first?.event.sequence ?? (d === undefined ? undefined : d.sequence + 1);
    if (oldest !== undefined && p.sequence < oldest && d !== undefined) return this.gap(d.reason);
    return this.gap('lost');
  }

  private slice(from: number, limit: number): JournalRead {
    const to = Math.min(this.buf.length, from + limit);
    const entries: JournalEntry[] = [];
    for (let i = from; i < to; i++) entries.push(this.at(i)!);
    return { ok: true, entries, more: to < this.buf.length };
  }

  private gap(reason: JournalGap): JournalRead {
    return { ok: false, reason, head: this.head() };
  }

  /** The i-th oldest entry. */
  private at(i: number): JournalEntry | undefined {
    if (i < 0 || i >= this.buf.length) return undefined;
    return this.buf[(this.start + i) % this.buf.length];
  }

  /** The index of the entry with this sequence (sequences rise strictly along the ring). */
  private indexOf(sequence: number): number | undefined {
    let lo = 0;
    let hi = this.buf.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.at(mid)!.event.sequence;
      if (s === sequence) return mid;
      if (s < sequence) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Drops the entries from `sequence` on (a dead owner's events the new owner never had). */
  private truncateFrom(sequence: number): void {
    const kept = this.entries().filter((x) => x.event.sequence < sequence);
    this.buf = kept;
    this.start = 0;
    if (kept.length === 0 && this.dropped !== undefined && this.dropped.sequence >= sequence) {
      // Which event the new owner's last one was is unknown here: no reader matches epoch -1.
      this.dropped = { epoch: -1, sequence: sequence - 1, atMs: this.dropped.atMs, reason: 'lost' };
    }
  }

  private clear(dropped: JournalDropped): void {
    this.buf = [];
    this.start = 0;
    this.dropped = dropped;
  }
}
