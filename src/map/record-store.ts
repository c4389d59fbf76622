// The entries of one map in one partition. Values are kept as latin1 strings: one byte per
// character, so any byte sequence round-trips, and a 100-byte value costs ~116 bytes of heap
// instead of a Buffer's object, view and backing store. Expiry (TTL, max-idle) is checked on
// access and reclaimed by a sweeper; the store itself has no timers.

import { detachedCopy } from '../core/strings.js';

/** A stored value: bytes as a latin1 string and the Content-Type it was written with. */
export interface StoredValue {
  readonly value: string;
  readonly contentType: string | undefined;
}

class PlainRecord implements StoredValue {
  constructor(
    public value: string,
    public contentType: string | undefined,
  ) {}
}

class ExpiringRecord implements StoredValue {
  constructor(
    public value: string,
    public contentType: string | undefined,
    /** Epoch ms at which the entry dies for its TTL; 0 = never. */
    public expiresAt: number,
    /** Epoch ms of the last read or write (max-idle). */
    public lastAccessAt: number,
  ) {}
}

/**
 * An entry with the statistics merge policies look at (HigherHits, LatestUpdate, LatestAccess):
 * kept only for maps whose merge policy needs them, so other maps pay nothing for them.
 */
class StatsRecord extends ExpiringRecord {
  constructor(
    value: string,
    contentType: string | undefined,
    expiresAt: number,
    lastAccessAt: number,
    public creationTime: number,
    public lastUpdateTime: number,
    public hits: number,
  ) {
    super(value, contentType, expiresAt, lastAccessAt);
  }
}

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
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void;
  cleared(): void;
}

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
  private readonly entries = new Map<string, PlainRecord | ExpiringRecord>();
  private readonly ttlMs: number;
  private readonly maxIdleMs: number;
  private readonly expiring: boolean;
  readonly stats: boolean;
  readonly observer: StoreObserver | undefined;
  private readonly expiredReads: { expirations: number } | undefined;

  constructor(policy: ExpiryPolicy) {
    this.observer = policy.observer;
    this.expiredReads = policy.expiredReads;
    this.ttlMs = policy.ttlMs;
    this.maxIdleMs = policy.maxIdleMs;
    this.expiring = policy.ttlMs > 0 || policy.maxIdleMs > 0;
    this.stats = policy.stats === true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live value of `key`, or undefined (an expired entry is removed on the way). */
  get(key: string, nowMs: number): StoredValue | undefined {
    const rec = this.entries.get(key);
    if (rec === undefined || (!this.expiring && !this.stats)) return rec;
    const r = rec as ExpiringRecord;
    if (this.expiring && this.isExpired(r, nowMs)) {
      this.entries.delete(key);
      this.observer?.changed(key, r, undefined);
      if (this.expiredReads !== undefined) this.expiredReads.expirations++;
      return undefined;
    }
    r.lastAccessAt = nowMs;
    if (this.stats) (r as StatsRecord).hits++;
    return r;
  }

  /** The entry as a merge policy sees it, without touching its statistics. */
  mergeView(key: string, nowMs: number): MergeEntry | undefined {
    const rec = this.entries.get(key);
    if (rec === undefined) return undefined;
    if (rec instanceof StatsRecord) return this.isExpired(rec, nowMs) ? undefined : rec;
    if (rec instanceof ExpiringRecord) {
      if (this.isExpired(rec, nowMs)) return undefined;
      return { value: rec.value, contentType: rec.contentType, expiresAt: rec.expiresAt, lastAccessAt: rec.lastAccessAt, creationTime: 0, lastUpdateTime: 0, hits: 0 };
    }
    return { value: rec.value, contentType: rec.contentType, expiresAt: 0, lastAccessAt: 0, creationTime: 0, lastUpdateTime: 0, hits: 0 };
  }

  /** Put a merged entry as it came (its expiry and statistics kept where this map keeps them). */
  putMerged(key: string, e: MergeEntry): void {
    if (this.stats) this.set(key, new StatsRecord(e.value, e.contentType, e.expiresAt, e.lastAccessAt, e.creationTime, e.lastUpdateTime, e.hits));
    else this.restore(key, e.value, e.contentType, e.expiresAt, e.lastAccessAt);
  }

  /** Store a record, telling the observer (when there is one) what it replaced. */
  private set(key: string, rec: PlainRecord | ExpiringRecord): void {
    if (this.observer === undefined) {
      this.entries.set(key, rec);
      return;
    }
    const before = this.entries.get(key);
    this.entries.set(key, rec);
    this.observer.changed(key, before, rec);
  }

  put(key: string, value: string, contentType: string | undefined, nowMs: number): void {
    // A new key is stored detached from the request it was cut from (Map keeps the first key object).
    if (key.length >= 13 && !this.entries.has(key)) key = detachedCopy(key);
    if (this.stats) {
      const prev = this.entries.get(key) as StatsRecord | undefined;
      const expiresAt = this.ttlMs > 0 ? nowMs + this.ttlMs : 0;
      this.set(key, new StatsRecord(value, contentType, expiresAt, nowMs, prev?.creationTime ?? nowMs, nowMs, prev?.hits ?? 0));
      return;
    }
    if (!this.expiring) {
      this.set(key, new PlainRecord(value, contentType));
      return;
    }
    const expiresAt = this.ttlMs > 0 ? nowMs + this.ttlMs : 0;
    this.set(key, new ExpiringRecord(value, contentType, expiresAt, nowMs));
  }

  /** Remove `key`; true when a live entry was removed. */
  remove(key: string, nowMs: number): boolean {
    const rec = this.entries.get(key);
    if (rec === undefined) return false;
    this.entries.delete(key);
    this.observer?.changed(key, rec, undefined);
    return !((this.expiring || this.stats) && this.isExpired(rec as ExpiringRecord, nowMs));
  }

  clear(): void {
    this.entries.clear();
    this.observer?.cleared();
  }

  /** Remove expired entries; returns how many were removed. */
  sweep(nowMs: number): number {
    if (!this.expiring) return 0;
    let removed = 0;
    for (const [key, rec] of this.entries) {
      if (this.isExpired(rec as ExpiringRecord, nowMs)) {
        this.entries.delete(key);
        this.observer?.changed(key, rec, undefined);
        removed++;
      }
    }
    return removed;
  }

  /**
   * Append every live entry to `out` as five flat values (key, value, content type or null,
   * expiresAt, lastAccessAt): the form partition data travels in.
   */
  exportTo(out: unknown[], nowMs: number, wrapValue: (value: string) => unknown): void {
    for (const [key, rec] of this.entries) {
      if (this.stats) {
        const r = rec as StatsRecord;
        if (this.isExpired(r, nowMs)) continue;
        out.push(key, wrapValue(r.value), r.contentType ?? null, r.expiresAt, r.lastAccessAt, r.creationTime, r.lastUpdateTime, r.hits);
      } else if (this.expiring) {
        const r = rec as ExpiringRecord;
        if (this.isExpired(r, nowMs)) continue;
        out.push(key, wrapValue(r.value), r.contentType ?? null, r.expiresAt, r.lastAccessAt);
      } else {
        out.push(key, wrapValue(rec.value), rec.contentType ?? null, 0, 0);
      }
    }
  }

  /** Put an entry back exactly as exported (expiry times kept). */
  restore(key: string, value: string, contentType: string | undefined, expiresAt: number, lastAccessAt: number): void {
    if (this.stats) this.set(key, new StatsRecord(value, contentType, expiresAt, lastAccessAt, lastAccessAt, lastAccessAt, 0));
    else if (!this.expiring) this.set(key, new PlainRecord(value, contentType));
    else this.set(key, new ExpiringRecord(value, contentType, expiresAt, lastAccessAt));
  }

  /** Every live entry, for migration and replication (later) and tests. */
  *liveEntries(nowMs: number): IterableIterator<[string, StoredValue]> {
    for (const [key, rec] of this.entries) {
      if ((this.expiring || this.stats) && this.isExpired(rec as ExpiringRecord, nowMs)) continue;
      yield [key, rec];
    }
  }

  private isExpired(r: ExpiringRecord, nowMs: number): boolean {
    if (r.expiresAt !== 0 && nowMs >= r.expiresAt) return true;
    return this.maxIdleMs > 0 && nowMs - r.lastAccessAt >= this.maxIdleMs;
  }
}
