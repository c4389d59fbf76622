// The entries of one record store packed into byte chunks with an open-addressing hash index
// over them: an entry costs its key and value bytes, a 16-byte header, its metadata numbers and
// ~9 bytes of index, and nothing on the JS heap (no key string, value string, record object or
// Map slot; bench/entry-memory.mjs has the figures). Pure data structure: no expiry rules, no
// clock; RecordStore gives the entries their meaning.
//
// Record (at an 8-aligned offset of a chunk, in the order records were appended):
//   u32 hash of the key | u32 key bytes (bit 31: key stored as UTF-16, bit 30: dead) |
//   u32 value bytes | u32 content type id (0 = none) | metaFields f64 | u32 version | key bytes |
//   value bytes, padded to 8. A key whose chars are all below 0x100 is stored as latin1 (one byte per char),
// any other as UTF-16LE (lossless for any JS string); values are latin1 strings (bytes).
//
// Chunks are CHUNK_BYTES (a record larger than that gets a chunk of its own); only the first
// chunk starts small and doubles (by copy) up to CHUNK_BYTES, so a big store never copies its
// data to grow and never leaves big freed buffers behind (a single doubling slab measured
// ~35 bytes/entry of RSS more: old slabs wait for a major GC, which a small JS heap rarely gets).
// A record is named by a handle, chunk * 4096 + offset / 8. An overwrite of the same record
// size is written in place; otherwise the old record is marked dead and the new one appended.
// Dead bytes are reclaimed by compaction (live records copied in order into new chunks) once
// a quarter of the used bytes are dead at a put, or half at a removal. A record larger than a
// chunk has its chunk to itself: once dead, that chunk is released at the next put or
// compactIfSparse() whatever the share of dead bytes (a store of 1 MiB values gave nothing
// back until half of them were removed), its slot left empty (a hole) until a compaction,
// which moves such chunks as they are instead of copying them. Handles stay valid until the
// next put or compactIfSparse().

import { randomBytes } from 'node:crypto';
import { fmix32 } from '../core/murmur3.js';

/** Buffer's per-encoding methods (on Buffer.prototype since Node 0.x, not in @types/node). */
interface FastBuffer extends Buffer {
  latin1Write(s: string, offset: number, length?: number): number;
  latin1Slice(start: number, end: number): string;
  ucs2Write(s: string, offset: number, length?: number): number;
  ucs2Slice(start: number, end: number): string;
}

const HEADER_BYTES = 16;
/** The entry's version (u32) follows the metadata numbers, so they stay 8-aligned for the f64 view. */
const VERSION_BYTES = 4;
const KEY_WIDE = 0x8000_0000;
const DEAD = 0x4000_0000;
const KEY_BYTES_MASK = 0x3fff_ffff;
/** Handle = chunk * OFFSET_UNITS + offset / 8: offsets below CHUNK_BYTES fit the low 12 bits. */
const OFFSET_BITS = 12;
const OFFSET_MASK = (1 << OFFSET_BITS) - 1;
export const CHUNK_BYTES = 8 << OFFSET_BITS; // 32 KiB
/** The first chunk starts this small (a store of a few entries stays small). */
const FIRST_CHUNK_BYTES = 256;
const MIN_INDEX_SLOTS = 8;
/** Compaction waits until at least this many bytes are dead. */
const MIN_DEAD_BYTES = 4096;
/** Content type ids are renumbered (at a compaction) once the table holds this many, or twice the live ones. */
const MIN_CT_TABLE = 256;

const align8 = (n: number): number => (n + 7) & ~7;

/** Set by hashKey: whether the key had a char of 0x100 or above. */
let lastKeyWide = false;

/**
 * Per process, as V8 seeds the hash of its own Maps: keys crafted to collide in one member's
 * index (long probe chains) do not collide in another's, nor after a restart.
 */
const HASH_SEED = randomBytes(4).readUInt32LE(0);

/** FNV-1a over the UTF-16 units from a seeded basis, then murmur3's fmix32 (keys that differ in one char spread over the index). */
export function hashKey(key: string): number {
  let h = (0x811c9dc5 ^ HASH_SEED) >>> 0;
  let or = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    or |= c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  lastKeyWide = or > 0xff;
  return fmix32(h) >>> 0;
}

/** What a released chunk's slot holds. */
const EMPTY_CHUNK = Buffer.alloc(0) as FastBuffer;

function allocChunk(bytes: number): FastBuffer {
  // Its own ArrayBuffer (never a slice of Buffer's shared pool), 8-aligned for the f64 view.
  return Buffer.from(new ArrayBuffer(bytes)) as FastBuffer;
}

export class EntrySlab {
  private bufs: FastBuffer[] = [];
  private u32s: Uint32Array[] = [];
  private f64s: Float64Array[] = [];
  /** Bytes of each chunk holding records (live or dead). */
  private used: number[] = [];
  private usedBytes = 0;
  private deadBytes = 0;
  /** Open addressing, linear probing: 0 = empty, else handle + 1. */
  private index: Uint32Array;
  /** The top byte of each slot's key hash: a probe that cannot match skips its record. */
  private tags: Uint8Array;
  private mask: number;
  private live = 0;
  /** Content types by id (0 = none) and ids by content type. */
  private cts: (string | undefined)[] = [undefined];
  private ctIds = new Map<string, number>();
  private ctLimit = MIN_CT_TABLE;
  private readonly metaBytes: number;
  /** Where a record's key starts: after the header, the metadata numbers and the version. */
  private readonly keyOffset: number;
  /** The version's u32 slot within a record (after the header and the metadata numbers). */
  private readonly versionSlot: number;
  /** Index slot of the record the last find() found, and the hash it looked for. */
  private foundSlot = -1;
  private foundHash = 0;
  /** Bumped whenever handles become void (a compaction, clear, a released chunk): a walk that spans turns (map-scan.ts) starts over then. */
  layoutVersion = 0;
  /** Chunks whose one record (larger than a chunk) died: released at the next put or compactIfSparse(). */
  private deadSolos: number[] = [];
  /** Released chunk slots (empty buffers) before the last chunk. */
  private holes = 0;

  /** `metaFields` numbers (f64) are kept per entry, read and written by index. */
  constructor(readonly metaFields: number) {
    this.metaBytes = metaFields * 8;
    this.keyOffset = HEADER_BYTES + this.metaBytes + VERSION_BYTES;
    this.versionSlot = (HEADER_BYTES + this.metaBytes) >>> 2;
    this.index = new Uint32Array(MIN_INDEX_SLOTS);
    this.tags = new Uint8Array(MIN_INDEX_SLOTS);
    this.mask = MIN_INDEX_SLOTS - 1;
  }

  /** Live entries. */
  get size(): number {
    return this.live;
  }

  /** Where the bytes go (tests, bench/entry-memory.mjs): records (live and dead), chunk capacity, index. */
  get footprint(): { readonly usedBytes: number; readonly deadBytes: number; readonly chunkBytes: number; readonly chunks: number; readonly indexBytes: number } {
    let chunkBytes = 0;
    for (const b of this.bufs) chunkBytes += b.length;
    return { usedBytes: this.usedBytes, deadBytes: this.deadBytes, chunkBytes, chunks: this.bufs.length, indexBytes: this.index.byteLength + this.tags.byteLength };
  }

  /** The handle of the live record of `key`, or -1. */
  find(key: string): number {
    const h = hashKey(key);
    const wide = lastKeyWide;
    this.foundHash = h;
    const index = this.index;
    const tags = this.tags;
    const tag = h >>> 24;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = index[i]!;
      if (e === 0) return -1;
      const r = e - 1;
      if (tags[i] === tag && this.u32s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) << 1] === h && this.keyEquals(r, key, wide)) {
        this.foundSlot = i;
        return r;
      }
    }
  }

  private keyEquals(r: number, key: string, wide: boolean): boolean {
    const kw = this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + 1]!;
    if ((kw & KEY_WIDE) !== 0 !== wide) return false;
    const len = kw & KEY_BYTES_MASK;
    const buf = this.bufs[r >>> OFFSET_BITS]!;
    const start = ((r & OFFSET_MASK) << 3) + this.keyOffset;
    if (wide) return len === key.length * 2 && buf.ucs2Slice(start, start + len) === key;
    if (len !== key.length) return false;
    for (let j = 0; j < len; j++) if (buf[start + j] !== key.charCodeAt(j)) return false;
    return true;
  }

  /**
   * The record's key against `key` in UTF-16 code unit order (JS string order): negative,
   * 0 or positive. No string is made: a scan (map-scan.ts) compares every record this way.
   */
  compareKeyAt(r: number, key: string): number {
    const kw = this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + 1]!;
    const buf = this.bufs[r >>> OFFSET_BITS]!;
    const start = ((r & OFFSET_MASK) << 3) + this.keyOffset;
    const wide = (kw & KEY_WIDE) !== 0;
    const n = wide ? (kw & KEY_BYTES_MASK) >>> 1 : kw & KEY_BYTES_MASK;
    const m = n < key.length ? n : key.length;
    for (let j = 0; j < m; j++) {
      const c = wide ? buf[start + 2 * j]! | (buf[start + 2 * j + 1]! << 8) : buf[start + j]!;
      const d = key.charCodeAt(j);
      if (c !== d) return c - d;
    }
    return n - key.length;
  }

  /** Whether the record's key starts with `prefix` (code units, no string made). */
  keyStartsWith(r: number, prefix: string): boolean {
    const kw = this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + 1]!;
    const buf = this.bufs[r >>> OFFSET_BITS]!;
    const start = ((r & OFFSET_MASK) << 3) + this.keyOffset;
    const wide = (kw & KEY_WIDE) !== 0;
    const n = wide ? (kw & KEY_BYTES_MASK) >>> 1 : kw & KEY_BYTES_MASK;
    if (n < prefix.length) return false;
    for (let j = 0; j < prefix.length; j++) {
      const c = wide ? buf[start + 2 * j]! | (buf[start + 2 * j + 1]! << 8) : buf[start + j]!;
      if (c !== prefix.charCodeAt(j)) return false;
    }
    return true;
  }

  /** The record's key. */
  key(r: number): string {
    const kw = this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + 1]!;
    const buf = this.bufs[r >>> OFFSET_BITS]!;
    const start = ((r & OFFSET_MASK) << 3) + this.keyOffset;
    const end = start + (kw & KEY_BYTES_MASK);
    return (kw & KEY_WIDE) !== 0 ? buf.ucs2Slice(start, end) : buf.latin1Slice(start, end);
  }

  /** The record's value (a new latin1 string). */
  value(r: number): string {
    const u32 = this.u32s[r >>> OFFSET_BITS]!;
    const q = (r & OFFSET_MASK) << 1;
    const start = ((r & OFFSET_MASK) << 3) + this.keyOffset + (u32[q + 1]! & KEY_BYTES_MASK);
    return this.bufs[r >>> OFFSET_BITS]!.latin1Slice(start, start + u32[q + 2]!);
  }

  contentType(r: number): string | undefined {
    return this.cts[this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + 3]!];
  }

  meta(r: number, field: number): number {
    return this.f64s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) + 2 + field]!;
  }

  setMeta(r: number, field: number, v: number): void {
    this.f64s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) + 2 + field] = v;
  }

  /** The record's version (a u32, set by put(): 0 new, + 1 per overwrite). */
  version(r: number): number {
    return this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + this.versionSlot]!;
  }

  setVersion(r: number, v: number): void {
    this.u32s[r >>> OFFSET_BITS]![((r & OFFSET_MASK) << 1) + this.versionSlot] = v;
  }

  /**
   * Store `value` under `key` (replacing what it held) and return the record's handle. The
   * version is 0 for a new key and the previous record's + 1 for an overwrite; the metadata
   * numbers are kept when the record was overwritten in place and 0 otherwise: the caller sets
   * them. Handles found before are void afterwards (a compaction may have run).
   */
  put(key: string, value: string, contentType: string | undefined): number {
    const ctId = this.ctIdOf(contentType);
    const r = this.find(key);
    const h = this.foundHash;
    const wide = lastKeyWide;
    const keyBytes = wide ? key.length * 2 : key.length;
    const size = align8(this.keyOffset + keyBytes + value.length);
    let version = 0;
    if (r >= 0) {
      const q = (r & OFFSET_MASK) << 1;
      const u32 = this.u32s[r >>> OFFSET_BITS]!;
      // An overwrite is the next version (u32: it wraps after 2^32 updates of one key).
      version = (u32[q + this.versionSlot]! + 1) >>> 0;
      if (this.recordBytes(r) === size) {
        u32[q + 2] = value.length;
        u32[q + 3] = ctId;
        u32[q + this.versionSlot] = version;
        this.bufs[r >>> OFFSET_BITS]!.latin1Write(value, ((r & OFFSET_MASK) << 3) + this.keyOffset + keyBytes, value.length);
        return r;
      }
      this.unlink(this.foundSlot);
      this.markDead(r);
    }
    this.releaseDeadSolos();
    if (this.deadBytes >= MIN_DEAD_BYTES && this.deadBytes * 4 >= this.usedBytes) this.compact(false);
    const n = this.allocate(size);
    const c = n >>> OFFSET_BITS;
    const off = (n & OFFSET_MASK) << 3;
    const u32 = this.u32s[c]!;
    const q = off >>> 2;
    u32[q] = h;
    u32[q + 1] = keyBytes | (wide ? KEY_WIDE : 0);
    u32[q + 2] = value.length;
    u32[q + 3] = ctId;
    const f64 = this.f64s[c]!;
    for (let i = 0; i < this.metaFields; i++) f64[(off >>> 3) + 2 + i] = 0;
    u32[q + this.versionSlot] = version;
    const buf = this.bufs[c]!;
    const keyAt = off + this.keyOffset;
    if (wide) buf.ucs2Write(key, keyAt, keyBytes);
    else buf.latin1Write(key, keyAt, keyBytes);
    buf.latin1Write(value, keyAt + keyBytes, value.length);
    this.insert(h, n);
    return n;
  }

  /**
   * Remove `key`'s record; returns its handle (-1: none). The dead record stays readable until
   * the next put or compactIfSparse().
   */
  remove(key: string): number {
    const r = this.find(key);
    if (r < 0) return -1;
    this.unlink(this.foundSlot);
    this.markDead(r);
    return r;
  }

  /** Remove the live record `r` (found by iteration); it stays readable as remove() says. */
  removeAt(r: number): void {
    const e = r + 1;
    const mask = this.mask;
    for (let i = this.u32s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) << 1]! & mask; ; i = (i + 1) & mask) {
      const x = this.index[i]!;
      if (x === 0) throw new Error(`EntrySlab: record ${r} is not in the index`);
      if (x === e) {
        this.unlink(i);
        this.markDead(r);
        return;
      }
    }
  }

  /** The first live record (-1: none); go on with next(). Removals do not disturb a walk; puts and compactions do. */
  first(): number {
    return this.liveFrom(0, 0);
  }

  next(r: number): number {
    const c = r >>> OFFSET_BITS;
    return this.liveFrom(c, ((r & OFFSET_MASK) << 3) + this.recordBytes(r));
  }

  private liveFrom(c: number, off: number): number {
    for (; c < this.bufs.length; c++, off = 0) {
      const u32 = this.u32s[c]!;
      const used = this.used[c]!;
      while (off < used) {
        if ((u32[(off >>> 2) + 1]! & DEAD) === 0) return c * (OFFSET_MASK + 1) + (off >>> 3);
        off += align8(this.keyOffset + (u32[(off >>> 2) + 1]! & KEY_BYTES_MASK) + u32[(off >>> 2) + 2]!);
      }
    }
    return -1;
  }

  /**
   * Up to `n` live records in index order from slot `start` (masked, wrapping) into `out`;
   * returns how many. The index is a hash table, so consecutive slots from a random start are
   * a random sample: Hazelcast samples its storage so for eviction.
   */
  sample(start: number, n: number, out: number[]): number {
    const index = this.index;
    const mask = this.mask;
    let k = 0;
    for (let i = 0, j = start & mask; i < index.length && k < n; i++, j = (j + 1) & mask) {
      const e = index[j]!;
      if (e !== 0) out[k++] = e - 1;
    }
    return k;
  }

  /** Every live key, in slab order. */
  keys(): string[] {
    const out: string[] = [];
    for (let r = this.first(); r >= 0; r = this.next(r)) out.push(this.key(r));
    return out;
  }

  clear(): void {
    this.dropChunks();
    this.index = new Uint32Array(MIN_INDEX_SLOTS);
    this.tags = new Uint8Array(MIN_INDEX_SLOTS);
    this.mask = MIN_INDEX_SLOTS - 1;
    this.live = 0;
    this.cts = [undefined];
    this.ctIds = new Map();
    this.ctLimit = MIN_CT_TABLE;
  }

  /** After removals: compact when more than half the used bytes are dead (memory goes back). */
  compactIfSparse(): void {
    this.releaseDeadSolos();
    if (this.deadBytes >= MIN_DEAD_BYTES && this.deadBytes * 2 > this.usedBytes) this.compact(false);
  }

  /** Bytes the record at `r` takes in its chunk (header, metadata, key, value, padding). */
  recordBytes(r: number): number {
    const u32 = this.u32s[r >>> OFFSET_BITS]!;
    const q = (r & OFFSET_MASK) << 1;
    return align8(this.keyOffset + (u32[q + 1]! & KEY_BYTES_MASK) + u32[q + 2]!);
  }

  private markDead(r: number): void {
    const u32 = this.u32s[r >>> OFFSET_BITS]!;
    const q = ((r & OFFSET_MASK) << 1) + 1;
    u32[q] = u32[q]! | DEAD;
    const size = this.recordBytes(r);
    this.deadBytes += size;
    this.live--;
    // Larger than a chunk: the record has its chunk to itself (allocate), which can go as a whole.
    if (size > CHUNK_BYTES) this.deadSolos.push(r >>> OFFSET_BITS);
  }

  /**
   * Release the chunks of dead records larger than a chunk: their memory goes back at once (no
   * copy). Trailing empty slots are dropped; a compaction clears the holes once they are half
   * of the slots (handles are chunk numbers, so holes cannot pile up forever).
   */
  private releaseDeadSolos(): void {
    if (this.deadSolos.length === 0) return;
    for (const c of this.deadSolos) {
      const size = this.bufs[c]!.length;
      this.setChunk(c, EMPTY_CHUNK);
      this.used[c] = 0;
      this.usedBytes -= size;
      this.deadBytes -= size;
      this.holes++;
    }
    this.deadSolos = [];
    this.layoutVersion++;
    while (this.bufs.length > 0 && this.bufs[this.bufs.length - 1]!.length === 0) {
      this.bufs.pop();
      this.u32s.pop();
      this.f64s.pop();
      this.used.pop();
      this.holes--;
    }
    if (this.holes > 0 && this.holes * 2 > this.bufs.length) this.compact(false);
  }

  private ctIdOf(ct: string | undefined): number {
    if (ct === undefined) return 0;
    const id = this.ctIds.get(ct);
    if (id !== undefined) return id;
    if (this.cts.length >= this.ctLimit) {
      // Content types of removed entries linger in the table: renumber what is live.
      this.compact(true);
      this.ctLimit = Math.max(MIN_CT_TABLE, this.cts.length * 2);
    }
    this.cts.push(ct);
    this.ctIds.set(ct, this.cts.length - 1);
    return this.cts.length - 1;
  }

  /** Room for a record of `size` bytes at the end: the handle it goes to. */
  private allocate(size: number): number {
    let c = this.bufs.length - 1;
    if (c >= 0) {
      const buf = this.bufs[c]!;
      const used = this.used[c]!;
      if (used + size <= buf.length) return this.take(c, size);
      // Only the first chunk grows (by doubling, up to CHUNK_BYTES); others start full size.
      if (c === 0 && buf.length < CHUNK_BYTES && used + size <= CHUNK_BYTES) {
        let bytes = buf.length * 2;
        while (bytes < used + size) bytes *= 2;
        const next = allocChunk(bytes);
        buf.copy(next, 0, 0, used);
        this.setChunk(0, next);
        return this.take(0, size);
      }
    }
    c = this.bufs.length;
    const bytes = size > CHUNK_BYTES ? size : c === 0 ? Math.max(FIRST_CHUNK_BYTES, 1 << Math.ceil(Math.log2(size))) : CHUNK_BYTES;
    this.bufs.push(allocChunk(0));
    this.u32s.push(new Uint32Array(0));
    this.f64s.push(new Float64Array(0));
    this.used.push(0);
    this.setChunk(c, allocChunk(bytes));
    return this.take(c, size);
  }

  /** A whole chunk holding one record of `size` bytes at offset 0, appended as it is: the handle of that record. */
  private adopt(buf: FastBuffer, size: number): number {
    const c = this.bufs.length;
    this.bufs.push(buf);
    this.u32s.push(new Uint32Array(0));
    this.f64s.push(new Float64Array(0));
    this.used.push(0);
    this.setChunk(c, buf);
    return this.take(c, size);
  }

  private take(c: number, size: number): number {
    const off = this.used[c]!;
    this.used[c] = off + size;
    this.usedBytes += size;
    return c * (OFFSET_MASK + 1) + (off >>> 3);
  }

  private setChunk(c: number, buf: FastBuffer): void {
    this.bufs[c] = buf;
    this.u32s[c] = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >>> 2);
    this.f64s[c] = new Float64Array(buf.buffer, buf.byteOffset, buf.length >>> 3);
  }

  /**
   * Copy the live records in order into new chunks and rebuild the index; with `renumber`,
   * also the content type table (ids handed out before are void then: only ctIdOf does it,
   * before its caller takes an id).
   */
  /** Forget every chunk (the caller rebuilds or empties the index). */
  private dropChunks(): void {
    this.layoutVersion++;
    this.bufs = [];
    this.u32s = [];
    this.f64s = [];
    this.used = [];
    this.usedBytes = 0;
    this.deadBytes = 0;
    this.deadSolos = [];
    this.holes = 0;
  }

  private compact(renumber: boolean): void {
    const bufs = this.bufs;
    const u32s = this.u32s;
    const used = this.used;
    this.dropChunks();
    const cts: (string | undefined)[] = [undefined];
    const ctIds = new Map<string, number>();
    for (let c = 0; c < bufs.length; c++) {
      const u32 = u32s[c]!;
      for (let off = 0; off < used[c]!; ) {
        const q = off >>> 2;
        const size = align8(this.keyOffset + (u32[q + 1]! & KEY_BYTES_MASK) + u32[q + 2]!);
        if ((u32[q + 1]! & DEAD) === 0) {
          // A record larger than a chunk keeps its own chunk: moved, not copied.
          const n = size > CHUNK_BYTES ? this.adopt(bufs[c]!, size) : this.allocate(size);
          const nc = n >>> OFFSET_BITS;
          const noff = (n & OFFSET_MASK) << 3;
          if (size <= CHUNK_BYTES) bufs[c]!.copy(this.bufs[nc]!, noff, off, off + size);
          if (renumber) {
            const ct = this.cts[u32[q + 3]!];
            let id = 0;
            if (ct !== undefined) {
              id = ctIds.get(ct) ?? 0;
              if (id === 0) {
                cts.push(ct);
                id = cts.length - 1;
                ctIds.set(ct, id);
              }
            }
            this.u32s[nc]![(noff >>> 2) + 3] = id;
          }
        }
        off += size;
      }
    }
    if (renumber) {
      this.cts = cts;
      this.ctIds = ctIds;
    }
    let slots = MIN_INDEX_SLOTS;
    while (slots < this.live * 2) slots *= 2;
    this.rebuildIndex(slots);
  }

  private rebuildIndex(slots: number): void {
    this.index = new Uint32Array(slots);
    this.tags = new Uint8Array(slots);
    this.mask = slots - 1;
    for (let r = this.first(); r >= 0; r = this.next(r)) this.place(this.u32s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) << 1]!, r);
  }

  private insert(h: number, r: number): void {
    this.live++;
    // Load factor at most 3/4: probes stay short.
    if (this.live * 4 > this.index.length * 3) this.rebuildIndex(this.index.length * 2);
    else this.place(h, r);
  }

  private place(h: number, r: number): void {
    const mask = this.mask;
    let i = h & mask;
    while (this.index[i] !== 0) i = (i + 1) & mask;
    this.index[i] = r + 1;
    this.tags[i] = h >>> 24;
  }

  /** Empty index slot `i`, shifting back the entries after it that probing would no longer reach. */
  private unlink(i: number): void {
    const index = this.index;
    const mask = this.mask;
    index[i] = 0;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const e = index[j]!;
      if (e === 0) return;
      const r = e - 1;
      const home = this.u32s[r >>> OFFSET_BITS]![(r & OFFSET_MASK) << 1]! & mask;
      // The entry may move to i unless its home lies cyclically in (i, j].
      if (((j - home) & mask) >= ((j - i) & mask)) {
        index[i] = e;
        index[j] = 0;
        this.tags[i] = this.tags[j]!;
        i = j;
      }
    }
  }
}
