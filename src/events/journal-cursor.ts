// Pure: where a change stream of a map with an event journal is, as one SSE event id. A stream
// interleaves 271 partitions' sequences, so "the last event" alone cannot say what came before
// it in the other partitions: the id carries the last (epoch, sequence) delivered of every
// partition the stream has had an event of, and the time the stream started for the others.
// Encoded compactly ("j1." + base64url of varints: the start time, then per partition the
// partition delta, the epoch delta (zigzag) and the sequence), so its length grows with the
// partitions seen (a few bytes each, about 1.5 KB once all 271 have had events).

import { PARTITION_COUNT } from '../partition/partitioning.js';
import type { JournalPosition } from './journal-ring.js';

export const CURSOR_PREFIX = 'j1.';

/** What a stream has delivered: an event is new to it when it comes after its partition's position. */
export class StreamCursor {
  // Dense per-partition arrays: an id is encoded after every event, so this stays a flat loop.
  private readonly epochs: Float64Array;
  private readonly sequences: Float64Array;
  private readonly known: Uint8Array;
  private count = 0;
  private cached: string | undefined;
  /** Room for the varints of the start time, the count and every partition (10 bytes at most each). */
  private readonly scratch: Buffer;

  /**
   * @param sinceMs when the stream started: partitions without a position are owed the events made from then on.
   * @param partitionCount the partitions of the cluster (271)
   */
  constructor(
    readonly sinceMs: number,
    readonly partitionCount = PARTITION_COUNT,
  ) {
    this.epochs = new Float64Array(partitionCount);
    this.sequences = new Float64Array(partitionCount);
    this.known = new Uint8Array(partitionCount);
    this.scratch = Buffer.alloc(20 + partitionCount * 30);
  }

  position(partitionId: number): JournalPosition | undefined {
    if (this.known[partitionId] !== 1) return undefined;
    return { epoch: this.epochs[partitionId]!, sequence: this.sequences[partitionId]! };
  }

  /** Whether an event is not delivered yet: a later sequence of the same term, or a newer term. */
  isNew(partitionId: number, epoch: number, sequence: number): boolean {
    if (this.known[partitionId] !== 1) return true;
    const e = this.epochs[partitionId]!;
    if (epoch !== e) return epoch > e;
    return sequence > this.sequences[partitionId]!;
  }

  set(partitionId: number, epoch: number, sequence: number): void {
    if (partitionId < 0 || partitionId >= this.partitionCount) throw new RangeError(`partition ${partitionId}`);
    if (this.known[partitionId] !== 1) {
      this.known[partitionId] = 1;
      this.count++;
    }
    this.epochs[partitionId] = epoch;
    this.sequences[partitionId] = sequence;
    this.cached = undefined;
  }

  /** The id to send with the event just delivered. */
  encode(): string {
    if (this.cached !== undefined) return this.cached;
    const b = this.scratch;
    let at = varint(b, 0, this.sinceMs);
    at = varint(b, at, this.count);
    let lastPid = -1;
    let lastEpoch = 0;
    for (let pid = 0; pid < this.partitionCount; pid++) {
      if (this.known[pid] !== 1) continue;
      const epoch = this.epochs[pid]!;
      at = varint(b, at, pid - lastPid - 1);
      const d = epoch - lastEpoch;
      at = varint(b, at, d >= 0 ? d * 2 : -d * 2 - 1);
      at = varint(b, at, this.sequences[pid]!);
      lastPid = pid;
      lastEpoch = epoch;
    }
    this.cached = CURSOR_PREFIX + b.toString('base64url', 0, at);
    return this.cached;
  }

  /** The cursor an id names, or undefined when it is not one (another format, or damaged). */
  static decode(id: string, partitionCount = PARTITION_COUNT): StreamCursor | undefined {
    if (!id.startsWith(CURSOR_PREFIX)) return undefined;
    const text = id.slice(CURSOR_PREFIX.length);
    if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
    const bytes = Buffer.from(text, 'base64url');
    const r = { at: 0 };
    const since = readVarint(bytes, r);
    const n = readVarint(bytes, r);
    if (since === undefined || n === undefined || n > partitionCount) return undefined;
    const c = new StreamCursor(since, partitionCount);
    let pid = -1;
    let epoch = 0;
    for (let i = 0; i < n; i++) {
      const dp = readVarint(bytes, r);
      const de = readVarint(bytes, r);
      const seq = readVarint(bytes, r);
      if (dp === undefined || de === undefined || seq === undefined) return undefined;
      pid += dp + 1;
      epoch += de % 2 === 0 ? de / 2 : -(de + 1) / 2;
      if (pid >= partitionCount) return undefined;
      c.set(pid, epoch, seq);
    }
    return r.at === bytes.length ? c : undefined;
  }
}

/** An unsigned integer (up to 2^53) in 7-bit groups, low first, written at `at`; returns the end. */
function varint(out: Buffer, at: number, n: number): number {
  let v = n > 0 ? Math.floor(n) : 0;
  // Small numbers (nearly all) with 32-bit integer operations.
  if (v < 0x8000_0000) {
    while (v >= 0x80) {
      out[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    out[at++] = v;
    return at;
  }
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

function readVarint(b: Buffer, r: { at: number }): number | undefined {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 8; i++) {
    if (r.at >= b.length) return undefined;
    const byte = b[r.at++]!;
    v += (byte & 0x7f) * mul;
    if ((byte & 0x80) === 0) return v;
    mul *= 0x80;
  }
  return undefined;
}
