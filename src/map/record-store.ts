// The entries of one map in one partition. Values are latin1 strings at the API (one char per
// byte, so any byte sequence round-trips) and bytes inside: every entry lives in the store's
// EntrySlab (key and value bytes, content type id and the metadata numbers the map's policy
// needs, in one ArrayBuffer with a hash index), so the JS heap holds no per-entry object at
// all. Readers get a fresh view object per read. Expiry (TTL, max-idle) is checked on access
// and reclaimed by a sweeper; the store itself has no timers.

import { EntrySlab } from './entry-slab.js';
import { betterVictim } from './eviction.js';
import type { EvictionPolicyName } from '../config/types.js';

/** A stored value: bytes as a latin1 string and the Content-Type it was written with. */
export interface StoredValue {
  readonly value: string;
  readonly contentType: string | undefined;
}

/** An entry of a map without expiry whose content type is not the store's usual one; also the view a read returns. */
/** What a read of a map without expiry or statistics returns. */
class StoredView implements StoredValue {
  constructor(
    readonly value: string,
    readonly contentType: string | undefined,
  ) {}
}

/** What a read of a map with expiry or statistics returns (and what observers are told). */
class EntryView implements MergeEntry {
  constructor(
    readonly value: string,
    readonly contentType: string | undefined,
    /** Epoch ms at which the entry dies for its TTL; 0 = never. */
    readonly expiresAt: number,
    /** Epoch ms of the last read or write (max-idle). */
    readonly lastAccessAt: number,
    readonly creationTime: number,
    readonly lastUpdateTime: number,
    readonly hits: number,
  ) {}
}

/** Metadata numbers per entry in the slab: maps with expiry keep the first two, maps with statistics all five. */
const EXPIRES_AT = 0;
const LAST_ACCESS_AT = 1;
const CREATION_TIME = 2;
const LAST_UPDATE_TIME = 3;
const HITS = 4;

/** An entry as a split-brain merge sees it (exported by the merging side, compared by the other). */
export interface MergeEntry {
  readonly value: string;
  readonly contentType: string | undefined;
  readonly expiresAt: number;
  readonly lastAccessAt: number;
  readonly creationTime: number;
  readonly lastUpdateTime: number;
  readonly hits: number;
}

/**
 * Told of every change of the store's contents (puts, removes, expiry, clear, restores): the
 * WAN layer keeps a Merkle tree of the entries this way. Only stores given one pay for it.
 */
export interface StoreObserver {
  /** `cause` says why an entry went away when it was not removed by a write: its expiry, or eviction. */
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined, cause?: RemovalCause): void;
  /** `count`: the live and dead entries the clear dropped. */
  cleared(count?: number): void;
}

export type RemovalCause = 'expired' | 'evicted';

export interface ExpiryPolicy {
  /** 0 = no TTL. */
  readonly ttlMs: number;
  /** 0 = no max-idle. */
  readonly maxIdleMs: number;
  /** Keep per-entry statistics (hits, update time) for the map's merge policy. */
  readonly stats?: boolean;
  /** Told of every change of the contents (a Merkle tree). */
  readonly observer?: StoreObserver;
  /** Counts the entries a read found expired (reads run on the partition owner only). */
  readonly expiredReads?: { expirations: number };
}

/** Values per entry in exported partition data: key, value, content type, expiresAt, lastAccessAt (+ creationTime, lastUpdateTime, hits with statistics). */
export const PLAIN_STRIDE = 5;
export const STATS_STRIDE = 8;

export class RecordStore {
  private readonly slab: EntrySlab;
  private readonly ttlMs: number;
  private readonly maxIdleMs: number;
  private readonly expiring: boolean;
  readonly stats: boolean;
  /** No expiry and no statistics: no metadata per entry. */
  private readonly plain: boolean;
  /** Whether get() and put() read their `nowMs` (a plain store without observer does not: callers may skip the clock). */
  readonly usesClock: boolean;
  /** The observer given at construction (a Merkle tree, persistence): what observer queries read. */
  readonly observer: StoreObserver | undefined;
  /**
   * What every change is told to: the observer, or while this map has listeners the change
   * events' observer in front of it (setWatcher, map-events.ts). Unset, nothing pays for events.
   */
  private watcher: StoreObserver | undefined;
  private readonly expiredReads: { expirations: number } | undefined;
  /** Bytes the record evictOne removed last took. */
  lastEvictedBytes = 0;
  /** Handles sampled by evictOne (reused). */
  private readonly sampleBuf: number[] = [];

  constructor(policy: ExpiryPolicy) {
    this.observer = policy.observer;
    this.watcher = policy.observer;
    this.expiredReads = policy.expiredReads;
    this.ttlMs = policy.ttlMs;
    this.maxIdleMs = policy.maxIdleMs;
    this.expiring = policy.ttlMs > 0 || policy.maxIdleMs > 0;
    this.stats = policy.stats === true;
    this.plain = !this.expiring && !this.stats;
    this.usesClock = !this.plain || this.observer !== undefined;
    this.slab = new EntrySlab(this.stats ? 5 : this.expiring ? 2 : 0);
  }

  get size(): number {
    return this.slab.size;
  }

  /** Tell `watcher` of every change instead of the observer (it passes them on), or with undefined only the observer again. */
  setWatcher(watcher: StoreObserver | undefined): void {
    this.watcher = watcher ?? this.observer;
  }

  /** The live value of `key`, or undefined (an expired entry is removed on the way). */
  get(key: string, nowMs: number): StoredValue | undefined {
    const s = this.slab;
    const o = s.find(key);
    if (o < 0) return undefined;
    if (this.plain) return new StoredView(s.value(o), s.contentType(o));
    if (this.expiring && this.isExpired(o, nowMs)) {
      s.removeAt(o);
      if (this.watcher !== undefined) this.watcher.changed(key, this.entryAt(o), undefined, 'expired');
      s.compactIfSparse();
      if (this.expiredReads !== undefined) this.expiredReads.expirations++;
      return undefined;
    }
    s.setMeta(o, LAST_ACCESS_AT, nowMs);
    if (this.stats) s.setMeta(o, HITS, s.meta(o, HITS) + 1);
    return this.entryAt(o);
  }

  /** The entry as a merge policy sees it, without touching its statistics. */
  mergeView(key: string, nowMs: number): MergeEntry | undefined {
    const o = this.slab.find(key);
    if (o < 0) return undefined;
    if (this.plain) return new EntryView(this.slab.value(o), this.slab.contentType(o), 0, 0, 0, 0, 0);
    return this.isExpired(o, nowMs) ? undefined : (this.entryAt(o) as EntryView);
  }

  /** Put a merged entry as it came (its expiry and statistics kept where this map keeps them). */
  putMerged(key: string, e: MergeEntry): void {
    if (this.stats) this.write(key, e.value, e.contentType, e.expiresAt, e.lastAccessAt, e.creationTime, e.lastUpdateTime, e.hits);
    else this.restore(key, e.value, e.contentType, e.expiresAt, e.lastAccessAt);
  }

  put(key: string, value: string, contentType: string | undefined, nowMs: number): void {
    if (this.plain && this.watcher === undefined) {
      this.slab.put(key, value, contentType);
      return;
    }
    const expiresAt = this.ttlMs > 0 ? nowMs + this.ttlMs : 0;
    if (this.stats) {
      const prev = this.slab.find(key);
      const creationTime = prev < 0 ? nowMs : this.slab.meta(prev, CREATION_TIME);
      const hits = prev < 0 ? 0 : this.slab.meta(prev, HITS);
      this.write(key, value, contentType, expiresAt, nowMs, creationTime, nowMs, hits);
      return;
    }
    this.write(key, value, contentType, expiresAt, nowMs, 0, 0, 0);
  }

  /** Store an entry with its metadata (what the map keeps of it), telling the observer (when there is one) what it replaced. */
  private write(key: string, value: string, contentType: string | undefined, expiresAt: number, lastAccessAt: number, creationTime: number, lastUpdateTime: number, hits: number): void {
    const s = this.slab;
    const observer = this.watcher;
    let before: StoredValue | undefined;
    if (observer !== undefined) {
      const p = s.find(key);
      if (p >= 0) before = this.entryAt(p);
    }
    const o = s.put(key, value, contentType);
    if (!this.plain) {
      s.setMeta(o, EXPIRES_AT, expiresAt);
      s.setMeta(o, LAST_ACCESS_AT, lastAccessAt);
      if (this.stats) {
        s.setMeta(o, CREATION_TIME, creationTime);
        s.setMeta(o, LAST_UPDATE_TIME, lastUpdateTime);
        s.setMeta(o, HITS, hits);
      }
    }
    if (observer !== undefined) observer.changed(key, before, this.entryAt(o));
  }

  /** Remove `key`; true when a live entry was removed. */
  remove(key: string, nowMs: number, cause?: RemovalCause): boolean {
    const s = this.slab;
    const o = s.remove(key);
    if (o < 0) return false;
    // The dead record stays readable until the next compaction.
    const live = this.plain || !this.isExpired(o, nowMs);
    if (this.watcher !== undefined) this.watcher.changed(key, this.entryAt(o), undefined, live ? cause : 'expired');
    s.compactIfSparse();
    return live;
  }

  /**
   * Evict one entry: the best victim by `policy` among `sampleCount` entries sampled from index
   * slot `start` (an expired one is taken at once), never `exceptKey` (the entry just put).
   * The observer is told as of a remove (persistence logs a remove). Returns the evicted key,
   * or undefined when the sample held no other entry. LRU and LFU read the access time, hits
   * and creation time a store with statistics keeps; in any other store every entry ties.
   */
  evictOne(policy: EvictionPolicyName, exceptKey: string | undefined, start: number, sampleCount: number, nowMs: number): string | undefined {
    const s = this.slab;
    const sample = this.sampleBuf;
    // The excluded entry by handle: no key string is made for the sampled entries, only for the victim.
    const skip = exceptKey === undefined ? -1 : s.find(exceptKey);
    const n = s.sample(start, sampleCount, sample);
    let best = -1;
    let eligible = 0;
    let expired = false;
    for (let i = 0; i < n; i++) {
      const r = sample[i]!;
      if (r === skip) continue;
      if (this.expiring && this.isExpired(r, nowMs)) {
        best = r;
        expired = true;
        break;
      }
      // RANDOM keeps the eligible handles in order (the sample is reused in place) for a uniform pick below.
      if (policy === 'RANDOM') sample[eligible++] = r;
      else if (best < 0 || (this.stats && betterVictim(policy, s.meta(r, LAST_ACCESS_AT), s.meta(r, HITS), s.meta(r, CREATION_TIME), s.meta(best, LAST_ACCESS_AT), s.meta(best, HITS), s.meta(best, CREATION_TIME)))) best = r;
    }
    // RANDOM: any sampled entry alike. Taking the first one found from the random slot would favour
    // the entries after long runs of empty slots (in a small store, the same ones every time).
    if (!expired && policy === 'RANDOM' && eligible > 0) best = sample[(start >>> 16) % eligible]!;
    if (best < 0) return undefined;
    const bestKey = s.key(best);
    this.lastEvictedBytes = s.recordBytes(best);
    this.remove(bestKey, nowMs, 'evicted');
    return bestKey;
  }

  /** Bytes this store's entries take (records, dead ones until compaction, and the index): what the memory max-size policies count. */
  get footprintBytes(): number {
    const f = this.slab.footprint;
    return f.chunkBytes + f.indexBytes;
  }

  clear(): void {
    const count = this.slab.size;
    this.slab.clear();
    this.watcher?.cleared(count);
  }

  /** Remove expired entries; returns how many were removed. */
  sweep(nowMs: number): number {
    if (!this.expiring) return 0;
    const s = this.slab;
    let removed = 0;
    // Removed records stay where they are until compactIfSparse(): the walk goes on over them.
    for (let o = s.first(); o >= 0; o = s.next(o)) {
      if (!this.isExpired(o, nowMs)) continue;
      s.removeAt(o);
      if (this.watcher !== undefined) this.watcher.changed(s.key(o), this.entryAt(o), undefined, 'expired');
      removed++;
    }
    s.compactIfSparse();
    return removed;
  }

  /**
   * Append every live entry to `out` as five flat values (key, value, content type or null,
   * expiresAt, lastAccessAt), eight with statistics (+ creationTime, lastUpdateTime, hits): the
   * form partition data travels in.
   */
  exportTo(out: unknown[], nowMs: number, wrapValue: (value: string) => unknown): void {
    const s = this.slab;
    for (let o = s.first(); o >= 0; o = s.next(o)) {
      const ct = s.contentType(o) ?? null;
      if (this.plain) {
        out.push(s.key(o), wrapValue(s.value(o)), ct, 0, 0);
        continue;
      }
      if (this.isExpired(o, nowMs)) continue;
      out.push(s.key(o), wrapValue(s.value(o)), ct, s.meta(o, EXPIRES_AT), s.meta(o, LAST_ACCESS_AT));
      if (this.stats) out.push(s.meta(o, CREATION_TIME), s.meta(o, LAST_UPDATE_TIME), s.meta(o, HITS));
    }
  }

  /** Put an entry back exactly as exported (expiry times kept). */
  restore(key: string, value: string, contentType: string | undefined, expiresAt: number, lastAccessAt: number): void {
    if (this.stats) this.write(key, value, contentType, expiresAt, lastAccessAt, lastAccessAt, lastAccessAt, 0);
    else if (this.plain) this.write(key, value, contentType, 0, 0, 0, 0, 0);
    else this.write(key, value, contentType, expiresAt, lastAccessAt, 0, 0, 0);
  }

  /**
   * Every live entry, for migration, persistence snapshots, WAN sync and tests. The keys are
   * taken when the iteration starts and each entry is read when it is yielded, so the store
   * may change meanwhile (a snapshot written asynchronously): an entry removed before its turn
   * is skipped, one added after the start is not visited.
   */
  *liveEntries(nowMs: number): IterableIterator<[string, StoredValue]> {
    const s = this.slab;
    for (const key of s.keys()) {
      const o = s.find(key);
      if (o < 0 || (!this.plain && this.isExpired(o, nowMs))) continue;
      yield [key, this.entryAt(o)];
    }
  }

  /** The record at `o` as readers see it (all metadata zero in a map without expiry or statistics). */
  private entryAt(o: number): StoredValue {
    const s = this.slab;
    if (this.plain) return new StoredView(s.value(o), s.contentType(o));
    return new EntryView(
      s.value(o),
      s.contentType(o),
      s.meta(o, EXPIRES_AT),
      s.meta(o, LAST_ACCESS_AT),
      this.stats ? s.meta(o, CREATION_TIME) : 0,
      this.stats ? s.meta(o, LAST_UPDATE_TIME) : 0,
      this.stats ? s.meta(o, HITS) : 0,
    );
  }

  private isExpired(o: number, nowMs: number): boolean {
    const expiresAt = this.slab.meta(o, EXPIRES_AT);
    if (expiresAt !== 0 && nowMs >= expiresAt) return true;
    return this.maxIdleMs > 0 && nowMs - this.slab.meta(o, LAST_ACCESS_AT) >= this.maxIdleMs;
  }
}
