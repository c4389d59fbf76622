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

export interface ExpiryPolicy {
  /** 0 = no TTL. */
  readonly ttlMs: number;
  /** 0 = no max-idle. */
  readonly maxIdleMs: number;
}

export class RecordStore {
  private readonly entries = new Map<string, PlainRecord | ExpiringRecord>();
  private readonly ttlMs: number;
  private readonly maxIdleMs: number;
  private readonly expiring: boolean;

  constructor(policy: ExpiryPolicy) {
    this.ttlMs = policy.ttlMs;
    this.maxIdleMs = policy.maxIdleMs;
    this.expiring = policy.ttlMs > 0 || policy.maxIdleMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live value of `key`, or undefined (an expired entry is removed on the way). */
  get(key: string, nowMs: number): StoredValue | undefined {
    const rec = this.entries.get(key);
    if (rec === undefined || !this.expiring) return rec;
    const r = rec as ExpiringRecord;
    if (this.isExpired(r, nowMs)) {
      this.entries.delete(key);
      return undefined;
    }
    r.lastAccessAt = nowMs;
    return r;
  }

  put(key: string, value: string, contentType: string | undefined, nowMs: number): void {
    // A new key is stored detached from the request it was cut from (Map keeps the first key object).
    if (key.length >= 13 && !this.entries.has(key)) key = detachedCopy(key);
    if (!this.expiring) {
      this.entries.set(key, new PlainRecord(value, contentType));
      return;
    }
    const expiresAt = this.ttlMs > 0 ? nowMs + this.ttlMs : 0;
    this.entries.set(key, new ExpiringRecord(value, contentType, expiresAt, nowMs));
  }

  /** Remove `key`; true when a live entry was removed. */
  remove(key: string, nowMs: number): boolean {
    const rec = this.entries.get(key);
    if (rec === undefined) return false;
    this.entries.delete(key);
    return !(this.expiring && this.isExpired(rec as ExpiringRecord, nowMs));
  }

  clear(): void {
    this.entries.clear();
  }

  /** Remove expired entries; returns how many were removed. */
  sweep(nowMs: number): number {
    if (!this.expiring) return 0;
    let removed = 0;
    for (const [key, rec] of this.entries) {
      if (this.isExpired(rec as ExpiringRecord, nowMs)) {
        this.entries.delete(key);
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
      if (this.expiring) {
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
    if (!this.expiring) this.entries.set(key, new PlainRecord(value, contentType));
    else this.entries.set(key, new ExpiringRecord(value, contentType, expiresAt, lastAccessAt));
  }

  /** Every live entry, for migration and replication (later) and tests. */
  *liveEntries(nowMs: number): IterableIterator<[string, StoredValue]> {
    for (const [key, rec] of this.entries) {
      if (this.expiring && this.isExpired(rec as ExpiringRecord, nowMs)) continue;
      yield [key, rec];
    }
  }

  private isExpired(r: ExpiringRecord, nowMs: number): boolean {
    if (r.expiresAt !== 0 && nowMs >= r.expiresAt) return true;
    return this.maxIdleMs > 0 && nowMs - r.lastAccessAt >= this.maxIdleMs;
  }
}
