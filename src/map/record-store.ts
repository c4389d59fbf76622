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
  /** The entry's version: 0 when created, +1 per update (Hazelcast's EntryView.version); absent where no store is behind the value. */
  readonly version?: number;
}

/** What a read of a map without expiry or statistics returns. */
class StoredView implements StoredValue {
  constructor(
    readonly value: string,
    readonly contentType: string | undefined,
    readonly version: number,
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
    readonly version: number,
    /** The entry's max-idle in ms; 0 = none. */
    readonly maxIdleMs: number,
  ) {}
}

/**
 * Metadata numbers per entry in the slab. A store whose entries may expire keeps the first
 * four (the map has a TTL or max-idle, or an entry was given one: the store switches then),
 * a store with statistics all six. The version is a u32 of every record (entry-slab.ts).
 */
const EXPIRES_AT = 0;
const LAST_ACCESS_AT = 1;
const MAX_IDLE = 2;
const LAST_UPDATE_TIME = 3;
const CREATION_TIME = 4;
const HITS = 5;
const EXPIRY_FIELDS = 4;
const STATS_FIELDS = 6;

/** An entry as a split-brain merge sees it (exported by the merging side, compared by the other). */
export interface MergeEntry {
  readonly value: string;
  readonly contentType: string | undefined;
  readonly expiresAt: number;
  readonly lastAccessAt: number;
  readonly creationTime: number;
  readonly lastUpdateTime: number;
  readonly hits: number;
  /** Kept by migration, backups and persistence; absent in data from older members (then 0). */
  readonly version?: number;
  /** The entry's own max-idle in ms (0 = none); absent in data from older members (then the map's). */
  readonly maxIdleMs?: number;
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
  /** Told once when the store starts keeping expiry per entry (the sweeper then visits it). */
  readonly onExpiring?: () => void;
}

/** What a conditional update requires of the entry before it applies (Hazelcast's putIfAbsent, replace, replaceIfSame, removeIfSame; ETag/If-Match). */
export type UpdateCondition =
  | { readonly kind: 'none' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'present' }
  | { readonly kind: 'value'; readonly value: string; readonly contentType: string | undefined }
  | { readonly kind: 'version'; readonly version: number };

/** One owner-side update: a put (value given), a remove (value undefined) or a TTL change, under a condition. */
export interface UpdateRequest {
  readonly condition: UpdateCondition;
  /** 'put', 'remove', or 'ttl' (the entry's TTL only: Hazelcast's setTtl; the version stays). */
  readonly action: 'put' | 'remove' | 'ttl';
  readonly value?: string;
  readonly contentType?: string | undefined;
  /** -1: the map's default; 0: none; > 0: ms from now. */
  readonly ttlMs: number;
  /** -1: the map's default; 0: none; > 0: ms. */
  readonly maxIdleMs: number;
}

/** What an update found and did. */
export interface UpdateResult {
  readonly applied: boolean;
  /** The live entry before the update (undefined: there was none). */
  readonly old: StoredValue | undefined;
  /** The entry's version after the update (the current one when not applied; -1: no entry). */
  readonly version: number;
}

/** Values per entry in exported partition data: key, value, content type, expiresAt, lastAccessAt (+ creationTime, lastUpdateTime, hits with statistics; + version, maxIdleMs in the full form). */
export const PLAIN_STRIDE = 5;
export const STATS_STRIDE = 8;
export const FULL_STRIDE = 10;

export class RecordStore {
  private slab: EntrySlab;
  private readonly ttlMs: number;
  private readonly maxIdleMs: number;
  /** Entries may expire: the map has a TTL or max-idle, or an entry was given one. */
  private expiring: boolean;
  readonly stats: boolean;
  /** No metadata per entry (no expiry, no statistics) until an entry gets a TTL or max-idle. */
  private plain: boolean;
  /** Whether get() and put() read their `nowMs` (a plain store without observer does not: callers may skip the clock). */
  usesClock: boolean;
  /** The observer given at construction (a Merkle tree, persistence): what observer queries read. */
  readonly observer: StoreObserver | undefined;
  /**
   * What every change is told to: the observer, or while this map has listeners the change
   * events' observer in front of it (setWatcher, map-events.ts). Unset, nothing pays for events.
   */
  private watcher: StoreObserver | undefined;
  private readonly expiredReads: { expirations: number } | undefined;
  private readonly onExpiring: (() => void) | undefined;
  /** Bytes the record evictOne removed last took. */
  lastEvictedBytes = 0;
  /** Handles sampled by evictOne (reused). */
  private readonly sampleBuf: number[] = [];

  constructor(policy: ExpiryPolicy) {
    this.observer = policy.observer;
    this.watcher = policy.observer;
    this.expiredReads = policy.expiredReads;
    this.onExpiring = policy.onExpiring;
    this.ttlMs = policy.ttlMs;
    this.maxIdleMs = policy.maxIdleMs;
    this.expiring = policy.ttlMs > 0 || policy.maxIdleMs > 0;
    this.stats = policy.stats === true;
    this.plain = !this.expiring && !this.stats;
    this.usesClock = !this.plain || this.observer !== undefined;
    this.slab = new EntrySlab(this.stats ? STATS_FIELDS : this.expiring ? EXPIRY_FIELDS : 0);
  }

  get size(): number {
    return this.slab.size;
  }

  /** Whether entries of this store may expire (the sweeper skips the others). */
  get mayExpire(): boolean {
    return this.expiring;
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
    if (this.plain) return new StoredView(s.value(o), s.contentType(o), s.version(o));
    if (this.expiring && this.isExpired(o, nowMs)) {
      this.expireAt(key, o);
      return undefined;
    }
    s.setMeta(o, LAST_ACCESS_AT, nowMs);
    if (this.stats) s.setMeta(o, HITS, s.meta(o, HITS) + 1);
    return this.entryAt(o);
  }

  /** The entry as a merge policy (or an entry view) sees it, without touching its statistics. */
  mergeView(key: string, nowMs: number): MergeEntry | undefined {
    const o = this.slab.find(key);
    if (o < 0) return undefined;
    if (this.plain) return new EntryView(this.slab.value(o), this.slab.contentType(o), 0, 0, 0, 0, 0, this.slab.version(o), 0);
    return this.isExpired(o, nowMs) ? undefined : (this.entryAt(o) as EntryView);
  }

  /** Put an entry exactly as it came (migration, backups, persistence): its version, expiry and statistics kept where this map keeps them. */
  putMerged(key: string, e: MergeEntry): void {
    this.putEntry(key, e, e.version ?? 0);
  }

  /**
   * Put an entry that won a merge (split brain, WAN): this cluster's version line goes on (the
   * existing entry's version + 1, or 0), so a version once seen here never names another value.
   */
  putWinner(key: string, e: MergeEntry, nowMs: number): void {
    const before = this.mergeView(key, nowMs);
    this.putEntry(key, e, before === undefined ? 0 : ((before.version ?? 0) + 1) >>> 0);
  }

  private putEntry(key: string, e: MergeEntry, version: number): void {
    const maxIdle = e.maxIdleMs ?? this.maxIdleMs;
    if (this.plain && (e.expiresAt > 0 || maxIdle > 0)) this.keepExpiry();
    this.write(key, e.value, e.contentType, e.expiresAt, e.lastAccessAt, maxIdle, e.creationTime, e.lastUpdateTime, e.hits, version);
  }

  /**
   * Put `value` under `key`; returns the entry's version (0 when created, + 1 per overwrite).
   * `ttlMs` and `maxIdleMs` as Hazelcast's put: -1 the map's default, 0 none, > 0 ms.
   */
  put(key: string, value: string, contentType: string | undefined, nowMs: number, ttlMs = -1, maxIdleMs = -1): number {
    const ttl = ttlMs < 0 ? this.ttlMs : ttlMs;
    const maxIdle = maxIdleMs < 0 ? this.maxIdleMs : maxIdleMs;
    if (this.plain) {
      if (ttl === 0 && maxIdle === 0) {
        if (this.watcher === undefined) return this.slab.version(this.slab.put(key, value, contentType));
        return this.slab.version(this.write(key, value, contentType, 0, 0, 0, 0, 0, 0, undefined));
      }
      this.keepExpiry();
    }
    const expiresAt = ttl > 0 ? nowMs + ttl : 0;
    if (this.stats) {
      const prev = this.slab.find(key);
      const creationTime = prev < 0 ? nowMs : this.slab.meta(prev, CREATION_TIME);
      const hits = prev < 0 ? 0 : this.slab.meta(prev, HITS);
      return this.slab.version(this.write(key, value, contentType, expiresAt, nowMs, maxIdle, creationTime, nowMs, hits, undefined));
    }
    return this.slab.version(this.write(key, value, contentType, expiresAt, nowMs, maxIdle, 0, nowMs, 0, undefined));
  }

  /**
   * A conditional put, remove or TTL change, decided and applied in one step (the partition's
   * owner runs it in one turn, so nothing comes between the check and the write). An expired
   * entry counts as absent (and is removed on the way).
   */
  update(key: string, req: UpdateRequest, nowMs: number): UpdateResult {
    const s = this.slab;
    let o = s.find(key);
    if (o >= 0 && !this.plain && this.isExpired(o, nowMs)) {
      this.expireAt(key, o);
      o = -1;
    }
    const old = o < 0 ? undefined : this.entryAt(o);
    const version = o < 0 ? -1 : s.version(o);
    const c = req.condition;
    let ok: boolean;
    switch (c.kind) {
      case 'none':
        ok = true;
        break;
      case 'absent':
        ok = o < 0;
        break;
      case 'present':
        ok = o >= 0;
        break;
      case 'value':
        ok = old !== undefined && old.value === c.value && old.contentType === c.contentType;
        break;
      case 'version':
        ok = o >= 0 && version === c.version;
        break;
    }
    if (!ok) return { applied: false, old, version };
    if (req.action === 'put') {
      const v = this.put(key, req.value ?? '', req.contentType, nowMs, req.ttlMs, req.maxIdleMs);
      return { applied: true, old, version: v };
    }
    if (o < 0) return { applied: false, old, version };
    if (req.action === 'remove') {
      this.remove(key, nowMs);
      return { applied: true, old, version: -1 };
    }
    this.setTtl(key, o, req.ttlMs, nowMs);
    return { applied: true, old, version };
  }

  /** Hazelcast's setTtl on the live record `o`: a new expiry from now (-1: the map's TTL, 0: none); value and version stay. */
  private setTtl(key: string, o: number, ttlMs: number, nowMs: number): void {
    const ttl = ttlMs < 0 ? this.ttlMs : ttlMs;
    if (this.plain) {
      if (ttl === 0) return;
      this.keepExpiry();
      o = this.slab.find(key);
    }
    const before = this.observer === undefined ? undefined : this.entryAt(o);
    this.slab.setMeta(o, EXPIRES_AT, ttl > 0 ? nowMs + ttl : 0);
    this.observer?.changed(key, before, this.entryAt(o));
  }

  /** From now on keep expiry per entry: a plain store copies its entries into a slab with the expiry fields (once). */
  private keepExpiry(): void {
    if (this.plain) {
      const old = this.slab;
      const next = new EntrySlab(EXPIRY_FIELDS);
      for (let o = old.first(); o >= 0; o = old.next(o)) next.setVersion(next.put(old.key(o), old.value(o), old.contentType(o)), old.version(o));
      this.slab = next;
      this.plain = false;
      this.usesClock = true;
    }
    if (!this.expiring) {
      this.expiring = true;
      this.onExpiring?.();
    }
  }

  /**
   * Store an entry with its metadata (what the store keeps of it), telling the observer (when
   * there is one) what it replaced. `version` undefined: the slab's (0 new, + 1 overwrite).
   * Returns the record's handle.
   */
  private write(
    key: string,
    value: string,
    contentType: string | undefined,
    expiresAt: number,
    lastAccessAt: number,
    maxIdleMs: number,
    creationTime: number,
    lastUpdateTime: number,
    hits: number,
    version: number | undefined,
  ): number {
    const s = this.slab;
    const observer = this.watcher;
    let before: StoredValue | undefined;
    if (observer !== undefined) {
      const p = s.find(key);
      if (p >= 0) before = this.entryAt(p);
    }
    const o = s.put(key, value, contentType);
    if (version !== undefined) s.setVersion(o, version);
    if (!this.plain) {
      s.setMeta(o, EXPIRES_AT, expiresAt);
      s.setMeta(o, LAST_ACCESS_AT, lastAccessAt);
      s.setMeta(o, MAX_IDLE, maxIdleMs);
      s.setMeta(o, LAST_UPDATE_TIME, lastUpdateTime);
      if (this.stats) {
        s.setMeta(o, CREATION_TIME, creationTime);
        s.setMeta(o, HITS, hits);
      }
    }
    if (observer !== undefined) observer.changed(key, before, this.entryAt(o));
    return o;
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

  /** Remove the expired live record `o` of `key` (a read or an update found it expired). */
  private expireAt(key: string, o: number): void {
    const s = this.slab;
    s.removeAt(o);
    if (this.watcher !== undefined) this.watcher.changed(key, this.entryAt(o), undefined, 'expired');
    s.compactIfSparse();
    if (this.expiredReads !== undefined) this.expiredReads.expirations++;
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
   * Append every live entry to `out` as FULL_STRIDE flat values (key, value, content type or
   * null, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits, version, maxIdleMs): the
   * form partition data travels in (zeros where the store keeps no such metadata).
   */
  exportTo(out: unknown[], nowMs: number, wrapValue: (value: string) => unknown): void {
    const s = this.slab;
    for (let o = s.first(); o >= 0; o = s.next(o)) {
      const ct = s.contentType(o) ?? null;
      if (this.plain) {
        out.push(s.key(o), wrapValue(s.value(o)), ct, 0, 0, 0, 0, 0, s.version(o), 0);
        continue;
      }
      if (this.isExpired(o, nowMs)) continue;
      const st = this.stats;
      out.push(
        s.key(o),
        wrapValue(s.value(o)),
        ct,
        s.meta(o, EXPIRES_AT),
        s.meta(o, LAST_ACCESS_AT),
        st ? s.meta(o, CREATION_TIME) : 0,
        s.meta(o, LAST_UPDATE_TIME),
        st ? s.meta(o, HITS) : 0,
        s.version(o),
        s.meta(o, MAX_IDLE),
      );
    }
  }

  /** Put an entry back as an older member exported it (key, value, content type, expiresAt, lastAccessAt): version 0, the map's max-idle. */
  restore(key: string, value: string, contentType: string | undefined, expiresAt: number, lastAccessAt: number): void {
    this.putMerged(key, { value, contentType, expiresAt, lastAccessAt, creationTime: lastAccessAt, lastUpdateTime: lastAccessAt, hits: 0 });
  }

  /**
   * Every live entry, for migration, persistence snapshots, WAN sync and tests. The keys are
   * taken when the iteration starts and each entry is read when it is yielded, so the store
   * may change meanwhile (a snapshot written asynchronously): an entry removed before its turn
   * is skipped, one added after the start is not visited.
   */
  *liveEntries(nowMs: number): IterableIterator<[string, StoredValue]> {
    for (const key of this.slab.keys()) {
      // The store's slab now: an entry given a TTL meanwhile may have moved it to a new one.
      const o = this.slab.find(key);
      if (o < 0 || (!this.plain && this.isExpired(o, nowMs))) continue;
      yield [key, this.entryAt(o)];
    }
  }

  /** The entries themselves, for map-scan.ts's walk: read only (a scan never changes a store). */
  get entries(): EntrySlab {
    return this.slab;
  }

  /** Whether the record at `o` (a handle of `entries`) is live at `nowMs` (not expired). */
  liveAt(o: number, nowMs: number): boolean {
    return this.plain || !this.isExpired(o, nowMs);
  }

  /** The record at `o` as readers see it (all metadata zero in a map without expiry or statistics). */
  private entryAt(o: number): StoredValue {
    const s = this.slab;
    if (this.plain) return new StoredView(s.value(o), s.contentType(o), s.version(o));
    return new EntryView(
      s.value(o),
      s.contentType(o),
      s.meta(o, EXPIRES_AT),
      s.meta(o, LAST_ACCESS_AT),
      this.stats ? s.meta(o, CREATION_TIME) : 0,
      s.meta(o, LAST_UPDATE_TIME),
      this.stats ? s.meta(o, HITS) : 0,
      s.version(o),
      s.meta(o, MAX_IDLE),
    );
  }

  private isExpired(o: number, nowMs: number): boolean {
    const s = this.slab;
    const expiresAt = s.meta(o, EXPIRES_AT);
    if (expiresAt !== 0 && nowMs >= expiresAt) return true;
    const maxIdle = s.meta(o, MAX_IDLE);
    return maxIdle > 0 && nowMs - s.meta(o, LAST_ACCESS_AT) >= maxIdle;
  }
}
