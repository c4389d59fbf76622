// Map scans: pages of a map's keys (or entries) read one partition at a time on its owner, in
// partition order and, inside a partition, in key order (scan-page.ts says why), resumable by
// a position (scan-cursor.ts) that any owner of the partition can continue from. Also the
// cluster-wide list of maps with their sizes. The owner's side (the `scan` and `names`
// operations) and the caller's side (a page over several partitions) are both here.
//
// Guarantee: a key that exists for the whole scan is returned exactly once, whatever
// migrates or which members come and go between pages (every copy of a partition has the same
// keys in the same order); keys added or removed during the scan may or may not appear.

import { GridError, isGridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { Operation } from '../invocation/invoker.js';
import type { StructureProtection } from '../invocation/split-brain-protection.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { MapRegistry } from './map-registry.js';
import type { RecordStore } from './record-store.js';
import { ScanWalk } from './scan-page.js';
import type { ScanPosition } from './scan-cursor.js';

/** Records a page's walk visits per event-loop turn at most (~0.5 ms once optimized: byte compares, no strings). */
export const SCAN_STEP_RECORDS = 16_384;
/** And a turn of the walk ends after this long anyway (a fresh process runs the walk unoptimized at first, ~10x slower). */
export const SCAN_STEP_MS = 2;

/** A step's clock: out of time SCAN_STEP_MS after it starts. */
export function stepDeadline(): () => boolean {
  const until = performance.now() + SCAN_STEP_MS;
  return () => performance.now() > until;
}
/** Partitions read at once when the ones before came back short (a sparse map): 1, 2, 4, ... up to this. */
const MAX_WINDOW = 16;

export interface ScanRequest {
  readonly mapName: string;
  readonly from: ScanPosition;
  /** Entries per page (>= 1). */
  readonly limit: number;
  readonly prefix: string | undefined;
  /** Entries (true) or keys only. */
  readonly values: boolean;
  /** Value bytes per page: a page stops early (after at least one entry) past this. */
  readonly maxBytes: number;
}

export interface ScanEntry {
  readonly key: string;
  /** Latin1 bytes; undefined for a keys-only scan. */
  readonly value: string | undefined;
  readonly contentType: string | undefined;
}

export interface ScanPage {
  readonly entries: ScanEntry[];
  /** Where the next page starts; undefined: the scan is complete. */
  readonly next: ScanPosition | undefined;
}

/** One partition's part of a page, as its owner answers. */
export interface PartitionPage {
  readonly entries: ScanEntry[];
  /** The partition has more after the last entry (undefined: it is exhausted). */
  readonly more: boolean;
  /** The position reached: the largest key the walk selected (it may be newer than the last entry, which is then gone). */
  readonly last: string | undefined;
  /** The entries carry values. */
  readonly values: boolean;
}

class MapScanOp implements Operation<PartitionPage> {
  readonly name = 'map.scan';
  readonly service = 'map';
  readonly type = 'scan';
  readonly mutating = false;

  constructor(
    private readonly maps: MapRegistry,
    private readonly protection: StructureProtection,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly after: string | undefined,
    private readonly limit: number,
    private readonly prefix: string | undefined,
    private readonly values: boolean,
    private readonly maxBytes: number,
  ) {}

  get args(): WireValue[] {
    return [this.mapName, this.after ?? null, this.limit, this.prefix ?? null, this.values, this.maxBytes];
  }

  run(): MaybePromise<PartitionPage> {
    this.protection.guardOwner(this.mapName, 'READ');
    const c = this.maps.containers.get(this.mapName);
    const store = c?.stores[this.pid];
    if (c === undefined || store === undefined || store.size === 0) return { entries: [], more: false, last: undefined, values: this.values };
    const clock = this.maps.deps.clock;
    const walk = new ScanWalk(store.entries, this.limit, this.after, this.prefix, (h) => store.liveAt(h, clock.now()));
    if (walk.step(SCAN_STEP_RECORDS, stepDeadline())) return this.page(store, walk);
    // A big partition: the rest of the walk in later turns, each bounded. The partition may
    // move away meanwhile: then the owner's copy is no longer the partition, and the caller
    // reads the page again at the new owner (nothing of this page was returned yet).
    return new Promise<PartitionPage>((resolve, reject) => {
      const turn = (): void => {
        try {
          if (c.stores[this.pid] !== store || !this.maps.deps.isOwner(this.pid)) {
            throw new GridError('WRONG_TARGET', `partition ${this.pid} moved while a scan of map "${this.mapName}" read it`);
          }
          if (walk.step(SCAN_STEP_RECORDS, stepDeadline())) resolve(this.page(store, walk));
          else setImmediate(turn);
        } catch (e) {
          reject(e);
        }
      };
      setImmediate(turn);
    });
  }

  /** The selected keys read as they are now (a key removed since it was selected is left out). */
  private page(store: RecordStore, walk: ScanWalk): PartitionPage {
    const keys = walk.selector.sorted();
    const more = walk.selector.full;
    const now = this.maps.deps.clock.now();
    const entries: ScanEntry[] = [];
    let bytes = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const e = store.mergeView(key, now);
      if (e === undefined) continue;
      if (this.values) {
        if (entries.length > 0 && bytes + e.value.length > this.maxBytes) {
          // The byte budget ends the page here: the next one starts after the last entry returned.
          return { entries, more: true, last: entries[entries.length - 1]!.key, values: true };
        }
        bytes += e.value.length;
        entries.push({ key, value: e.value, contentType: e.contentType });
      } else entries.push({ key, value: undefined, contentType: undefined });
    }
    return { entries, more, last: keys[keys.length - 1], values: this.values };
  }
}

/** The maps this partition's owner holds entries of, with how many (expired ones reclaimed first). */
class MapNamesOp implements Operation<[string, number][]> {
  readonly name = 'map.names';
  readonly service = 'map';
  readonly type = 'names';
  readonly mutating = false;
  readonly args: WireValue[] = [''];

  constructor(
    private readonly maps: MapRegistry,
    private readonly pid: number,
  ) {}

  run(): [string, number][] {
    const out: [string, number][] = [];
    for (const [name, c] of this.maps.containers) {
      const s = c.stores[this.pid];
      if (s === undefined || s.size === 0) continue;
      if (c.expiring) c.counters.expirations += s.sweep(this.maps.deps.clock.now());
      if (s.size > 0) out.push([name, s.size]);
    }
    return out;
  }
}

export class MapScans {
  constructor(
    private readonly maps: MapRegistry,
    private readonly protection: StructureProtection,
  ) {}

  /** The owner's side of a remote `scan` (its wire arguments as MapScanOp.args writes them). */
  scanOpFromWire(pid: number, args: readonly WireValue[]): Operation<PartitionPage> {
    const limit = f.int(args, 2, 'limit');
    const maxBytes = f.num(args, 5, 'max bytes');
    if (limit < 1) throw new GridError('BAD_REQUEST', `scan limit ${limit}`);
    return new MapScanOp(this.maps, this.protection, pid, f.str(args, 0, 'map name'), f.optStr(args, 1, 'after'), limit, f.optStr(args, 3, 'prefix'), f.bool(args, 4, 'values'), maxBytes);
  }

  namesOp(pid: number): Operation<[string, number][]> {
    return new MapNamesOp(this.maps, pid);
  }

  /** One page: partitions from the request's position on, until `limit` entries, the byte budget, or the last partition. */
  async page(req: ScanRequest): Promise<ScanPage> {
    this.protection.guardHere(req.mapName, 'READ');
    const entries: ScanEntry[] = [];
    let bytes = 0;
    let pid = req.from.partitionId;
    let after = req.from.after;
    let window = 1;
    while (pid < PARTITION_COUNT) {
      const left = req.limit - entries.length;
      const leftBytes = Math.max(1, req.maxBytes - bytes);
      const n = Math.min(window, PARTITION_COUNT - pid);
      // Later partitions of the window are read from their start; the first from the cursor.
      const reads: Promise<PartitionPage>[] = [];
      // Each read's first step runs in a turn of its own (a local owner walks synchronously).
      // The reads ahead share one more byte budget: a window holds at most twice the page's values.
      for (let i = 0; i < n; i++) reads.push(this.readPartition(pid + i, req, i === 0 ? after : undefined, left, i === 0 ? leftBytes : Math.max(1, Math.floor(leftBytes / n)), i > 0));
      const pages = await Promise.all(reads);
      for (let i = 0; i < pages.length; i++, pid++) {
        const p = pages[i]!;
        for (let j = 0; j < p.entries.length; j++) {
          const e = p.entries[j]!;
          const size = e.value === undefined ? 0 : e.value.length;
          if (entries.length >= req.limit || (entries.length > 0 && req.values && bytes + size > req.maxBytes)) {
            // Full: the next page starts after the last entry taken, in this partition (or at its start).
            return { entries, next: { partitionId: pid, after: j === 0 ? (i === 0 ? after : undefined) : p.entries[j - 1]!.key } };
          }
          entries.push(e);
          bytes += size;
        }
        if (p.more) return { entries, next: { partitionId: pid, after: p.last } };
        after = undefined;
        if (entries.length >= req.limit) return { entries, next: pid + 1 < PARTITION_COUNT ? { partitionId: pid + 1, after: undefined } : undefined };
      }
      window = Math.min(MAX_WINDOW, window * 2);
    }
    return { entries, next: undefined };
  }

  /** Every entry (or key) of the map: pages until the scan is complete (the clients' keySet, values, entrySet). */
  async all(mapName: string, values: boolean): Promise<ScanEntry[]> {
    const out: ScanEntry[] = [];
    let from: ScanPosition | undefined = { partitionId: 0, after: undefined };
    while (from !== undefined) {
      const p: ScanPage = await this.page({ mapName, from, limit: 1000, prefix: undefined, values, maxBytes: 8 << 20 });
      for (const e of p.entries) out.push(e);
      from = p.next;
    }
    return out;
  }

  /** Every map with entries, with its size (entries owned, summed over the partitions), by name. */
  async names(): Promise<{ name: string; size: number }[]> {
    const all: Promise<[string, number][]>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(Promise.resolve(this.maps.deps.invoker.invoke(pid, this.namesOp(pid))));
    const sizes = new Map<string, number>();
    for (const part of await Promise.all(all)) for (const [name, n] of part) sizes.set(name, (sizes.get(name) ?? 0) + n);
    return [...sizes].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([name, size]) => ({ name, size }));
  }

  /**
   * One partition's page at its owner. A walk that spanned turns fails with WRONG_TARGET when
   * the partition moved under it: the invoker retries remote calls itself, but a local
   * call's late failure reaches the caller, so it is tried again here (until the call timeout).
   */
  private async readPartition(pid: number, req: ScanRequest, after: string | undefined, limit: number, maxBytes: number, ownTurn: boolean): Promise<PartitionPage> {
    if (ownTurn) await new Promise<void>((resolve) => setImmediate(resolve));
    const clock = this.maps.deps.clock;
    const deadline = clock.now() + this.maps.deps.config.tuning.operationCallTimeoutMillis;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.maps.deps.invoker.invoke(pid, new MapScanOp(this.maps, this.protection, pid, req.mapName, after, limit, req.prefix, req.values, maxBytes));
      } catch (e) {
        if (!isGridError(e) || !e.retryable || clock.now() >= deadline) throw e;
        await new Promise<void>((resolve) => clock.setTimeout(resolve, Math.min(100, 5 * (attempt + 1))));
      }
    }
  }
}

/** A scan page on the wire: [more, last | null, values, key, (value, content type | null)?, ...]. */
export function encodeScanResult(p: PartitionPage): WireValue {
  const out: WireValue[] = [p.more, p.last ?? null, p.values];
  for (const e of p.entries) {
    out.push(e.key);
    if (p.values) out.push(new Latin1(e.value ?? ''), e.contentType ?? null);
  }
  return out;
}

export function decodeScanResult(w: WireValue, contentTypeAt: (t: readonly WireValue[], i: number) => string | undefined): PartitionPage {
  const t = f.tuple(w, 'scan page');
  const more = f.bool(t, 0, 'more');
  const last = f.optStr(t, 1, 'last key');
  const entries: ScanEntry[] = [];
  const values = f.bool(t, 2, 'values');
  if (values) {
    for (let i = 3; i + 2 < t.length; i += 3) entries.push({ key: f.str(t, i, 'key'), value: f.latin1(t, i + 1, 'value'), contentType: contentTypeAt(t, i + 2) });
  } else {
    for (let i = 3; i < t.length; i++) entries.push({ key: f.str(t, i, 'key'), value: undefined, contentType: undefined });
  }
  return { entries, more, last, values };
}

export function encodeNames(names: [string, number][]): WireValue {
  const out: WireValue[] = [];
  for (const [n, size] of names) out.push(n, size);
  return out;
}

export function decodeNames(w: WireValue): [string, number][] {
  const t = f.tuple(w, 'map names');
  const out: [string, number][] = [];
  for (let i = 0; i + 1 < t.length; i += 2) out.push([f.str(t, i, 'map name'), f.num(t, i + 1, 'size')]);
  return out;
}
