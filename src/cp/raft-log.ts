// The in-memory Raft log of one node: entries after the last snapshot, addressed by their
// Raft index (1-based). Pure bookkeeping; the rules of what may be appended, truncated or
// compacted live in raft.ts.

import type { RaftEntry } from './raft-messages.js';

export class RaftLog {
  private entries: RaftEntry[] = [];
  private baseIndex: number;
  private baseTerm: number;

  /** `snapshotIndex`/`snapshotTerm`: the last entry the snapshot covers (0/0: none). */
  constructor(snapshotIndex = 0, snapshotTerm = 0, entries: readonly RaftEntry[] = []) {
    this.baseIndex = snapshotIndex;
    this.baseTerm = snapshotTerm;
    for (const e of entries) this.append(e);
  }

  /** Index of the last entry covered by the snapshot (0: none). */
  get snapshotIndex(): number {
    return this.baseIndex;
  }

  get snapshotTerm(): number {
    return this.baseTerm;
  }

  get lastIndex(): number {
    return this.baseIndex + this.entries.length;
  }

  get lastTerm(): number {
    return this.entries[this.entries.length - 1]?.term ?? this.baseTerm;
  }

  /** Entries held (not compacted). */
  get size(): number {
    return this.entries.length;
  }

  /** The term of the entry at `index`: the snapshot's term at its last index, 0 at 0, undefined when compacted or beyond the end. */
  termAt(index: number): number | undefined {
    if (index === this.baseIndex) return this.baseTerm;
    return this.entryAt(index)?.term;
  }

  /** The entry at `index` (undefined when compacted or beyond the end). */
  entryAt(index: number): RaftEntry | undefined {
    if (index <= this.baseIndex) return undefined;
    return this.entries[index - this.baseIndex - 1];
  }

  /** Entries from `from` (> snapshotIndex) up to `toExclusive`, at most `max` of them. */
  slice(from: number, toExclusive: number, max = Infinity): RaftEntry[] {
    if (from <= this.baseIndex) throw new RangeError(`raft log: index ${from} is compacted (snapshot through ${this.baseIndex})`);
    const end = Math.min(toExclusive, this.lastIndex + 1, from + max);
    return this.entries.slice(from - this.baseIndex - 1, Math.max(from, end) - this.baseIndex - 1);
  }

  append(entry: RaftEntry): void {
    if (entry.index !== this.lastIndex + 1) throw new RangeError(`raft log: appending index ${entry.index} after ${this.lastIndex}`);
    if (entry.term < this.lastTerm) throw new RangeError(`raft log: appending term ${entry.term} after term ${this.lastTerm}`);
    this.entries.push(entry);
  }

  /** Drop the entries at `index` and after. */
  truncateFrom(index: number): void {
    if (index <= this.baseIndex) throw new RangeError(`raft log: truncating compacted index ${index}`);
    this.entries.length = Math.max(0, Math.min(this.entries.length, index - this.baseIndex - 1));
  }

  /** A snapshot now covers everything through `index` (held, term known): drop those entries, keep the rest. */
  compactThrough(index: number): void {
    if (index <= this.baseIndex) return;
    const term = this.termAt(index);
    if (term === undefined) throw new RangeError(`raft log: compacting through ${index}, beyond the last index ${this.lastIndex}`);
    this.entries = this.entries.slice(index - this.baseIndex);
    this.baseIndex = index;
    this.baseTerm = term;
  }

  /** Drop every entry: a snapshot through `index`/`term` replaces the whole log. */
  reset(index: number, term: number): void {
    this.entries = [];
    this.baseIndex = index;
    this.baseTerm = term;
  }
}
