// Pure: where a change stream of a map with an event journal is, as one SSE event id. A stream
// interleaves 271 partitions' sequences, so "the last event" alone cannot say what came before
// it in the other partitions: the id carries the last (epoch, sequence) delivered of every
// partition the stream has had an event of, and the time the stream started for the others.
// Encoded compactly ("j1." + base64url of varints: the start time, then per partition the
// partition delta, the epoch delta (zigzag) and the sequence), so its length grows with the
// partitions seen (a few bytes each, about 1.5 KB once all 271 have had events).

import type { JournalPosition } from './journal-ring.js';

export const CURSOR_PREFIX = 'j1.';

/** What a stream has delivered: an event is new to it when it comes after its partition's position. */
export class StreamCursor {
  private readonly positions = new Map<number, JournalPosition>();
  private cached: string | undefined;

  /** @param sinceMs when the stream started: partitions without a position are owed the events made from then on. */
  constructor(readonly sinceMs: number) {}

  position(partitionId: number): JournalPosition | undefined {
    return this.positions.get(partitionId);
  }

  /** Whether an event is not delivered yet: a later sequence of the same term, or a newer term. */
  isNew(partitionId: number, epoch: number, sequence: number): boolean {
    const p = this.positions.get(partitionId);
    if (p === undefined) return true;
    if (epoch !== p.epoch) return epoch > p.epoch;
    return sequence > p.sequence;
  }

  set(partitionId: number, epoch: number, sequence: number): void {
    this.positions.set(partitionId, { epoch, sequence });
    this.cached = undefined;
  }

  /** The id to send with the event just delivered. */
  encode(): string {
    if (this.cached !== undefined) return this.cached;
    const bytes: number[] = [];
    varint(bytes, this.sinceMs);
    varint(bytes, this.positions.size);
    let lastPid = -1;
    let lastEpoch = 0;
    for (const pid of [...this.positions.keys()].sort((a, b) => a - b)) {
      const p = this.positions.get(pid)!;
      varint(bytes, pid - lastPid - 1);
      const d = p.epoch - lastEpoch;
      varint(bytes, d >= 0 ? d * 2 : -d * 2 - 1);
      varint(bytes, p.sequence);
      lastPid = pid;
      lastEpoch = p.epoch;
    }
    this.cached = CURSOR_PREFIX + Buffer.from(bytes).toString('base64url');
    return this.cached;
  }

  /** The cursor an id names, or undefined when it is not one (another format, or damaged). */
  static decode(id: string, partitionCount: number): StreamCursor | undefined {
    if (!id.startsWith(CURSOR_PREFIX)) return undefined;
    const text = id.slice(CURSOR_PREFIX.length);
    if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
    const bytes = Buffer.from(text, 'base64url');
    const r = { at: 0 };
    const since = readVarint(bytes, r);
    const n = readVarint(bytes, r);
    if (since === undefined || n === undefined || n > partitionCount) return undefined;
    const c = new StreamCursor(since);
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
      c.positions.set(pid, { epoch, sequence: seq });
    }
    return r.at === bytes.length ? c : undefined;
  }
}

/** An unsigned integer (up to 2^53) in 7-bit groups, low first. */
function varint(out: number[], n: number): void {
  let v = Math.max(0, Math.floor(n));
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
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
