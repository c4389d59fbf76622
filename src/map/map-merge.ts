// Merge policies applied to a record store: a split-brain merge (entries a merging cluster
// brings in, batched per partition and map) and WAN replication's entries from another
// cluster, each through its merge policy at the partition owner, the winners backed up.

import type { MaybePromise } from '../core/maybe-promise.js';
import { GridError } from '../core/errors.js';
import type { MergePolicyName } from '../config/types.js';
import { findMapConfig } from '../config/index.js';
import type { Operation } from '../invocation/invoker.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { WAN_EVENT_FIELDS } from '../protocol/wan-payloads.js';
import { mergingWins } from '../cluster/merge-policies.js';
import { FULL_STRIDE, STATS_STRIDE, type MergeEntry } from './record-store.js';
import type { MapRegistry } from './map-registry.js';
import { MapOp } from './map-op.js';
import type { StructureProtection } from '../invocation/split-brain-protection.js';
import { wanApplyArgs, wanPutEvent, type MapWanEvents, type MapWanIncoming } from './map-wan.js';

/** A map's entries of one partition, taken from a cluster that merges into another after a split brain. */
export interface MapMergeBatch {
  readonly mapName: string;
  readonly partitionId: number;
  readonly entries: readonly (readonly [string, MergeEntry])[];
}

/** Values per applied WAN entry in a backup: kind, key, value, content type, expiresAt, lastAccessAt, creationTime, lastUpdateTime, hits, WAN sequence numbers, origin clusters. */
const WAN_APPLIED_STRIDE = 11;

/** What a merge policy compares of an entry. */
function mergeViewOf(x: MergeEntry): { hits: number; creationTime: number; lastUpdateTime: number; lastAccessTime: number; expirationTime: number } {
  return { hits: x.hits, creationTime: x.creationTime, lastUpdateTime: x.lastUpdateTime, lastAccessTime: x.lastAccessAt, expirationTime: x.expiresAt };
}

/**
 * Reads merge entries: FULL_STRIDE values each (key, value, content type, expiresAt,
 * lastAccessAt, creationTime, lastUpdateTime, hits, version, maxIdleMs) after a leading
 * FULL_STRIDE, or STATS_STRIDE values each (the first eight) without one, as older members send.
 * `at` is the index of the entry's key in `flat`.
 */
export function forEachMergeEntry(
  flat: readonly WireValue[],
  fn: (key: string, e: MergeEntry, at: number) => void,
  contentTypeAt: (i: number) => string | undefined,
): void {
  const full = typeof flat[0] === 'number';
  if (full && flat[0] !== FULL_STRIDE) throw new GridError('BAD_REQUEST', `malformed merge entries: stride ${String(flat[0])}`);
  const stride = full ? FULL_STRIDE : STATS_STRIDE;
  const from = full ? 1 : 0;
  if ((flat.length - from) % stride !== 0) throw new GridError('BAD_REQUEST', `malformed merge entries: ${flat.length} values`);
  for (let j = from; j < flat.length; j += stride) {
    fn(
      f.str(flat, j, 'key'),
      {
        value: f.latin1(flat, j + 1, 'value'),
        contentType: contentTypeAt(j + 2),
        expiresAt: f.num(flat, j + 3, 'expiresAt'),
        lastAccessAt: f.num(flat, j + 4, 'lastAccessAt'),
        creationTime: f.num(flat, j + 5, 'creationTime'),
        lastUpdateTime: f.num(flat, j + 6, 'lastUpdateTime'),
        hits: f.num(flat, j + 7, 'hits'),
        ...(full ? { version: f.num(flat, j + 8, 'version'), maxIdleMs: f.num(flat, j + 9, 'maxIdleMs') } : {}),
      },
      j,
    );
  }
}

/** An entry in the merge entries' full form (after a leading FULL_STRIDE). */
export function pushMergeEntry(out: WireValue[], key: string, e: MergeEntry): void {
  out.push(key, new Latin1(e.value), e.contentType ?? null, e.expiresAt, e.lastAccessAt, e.creationTime, e.lastUpdateTime, e.hits, e.version ?? 0, e.maxIdleMs ?? 0);
}

export class MapMerge {
  constructor(
    private readonly maps: MapRegistry,
    private readonly protection: StructureProtection,
    private readonly wanEvents: MapWanEvents,
  ) {}

  /**
   * Split-brain merge at the owner: each entry of the merging cluster goes through the map's
   * merge policy; the winners are stored (with their expiry and statistics) and backed up.
   */
  mergeOp(pid: number, mapName: string, flat: readonly WireValue[]): Operation<number> {
    const args = [mapName, flat as WireValue[]];
    let winners: WireValue[] = [];
    let won = 0;
    const maps = this.maps;
    return new MapOp('map.merge', 'merge', true, args, () => {
      this.protection.checkPersistable(mapName);
      const c = maps.container(mapName);
      const store = c.store(pid);
      const now = maps.deps.clock.now();
      const policy = c.config.mergePolicy.policy;
      winners = [FULL_STRIDE];
      won = 0;
      forEachMergeEntry(flat, (key, e) => {
        const existing = store.mergeView(key, now);
        if (!mergingWins(policy, existing === undefined ? undefined : mergeViewOf(existing), mergeViewOf(e))) return;
        // The merged entry continues this cluster's version line (record-store.ts putWinner).
        store.putWinner(key, e, now);
        // A merged winner is a mutation of this cluster: WAN targets get it (not mirrored on backups).
        if (c.publishes && maps.wan !== undefined) maps.wan.offer(pid, wanPutEvent(store, mapName, key, now, []));
        // The backups get the entry as stored here (its version included).
        const stored = store.mergeView(key, now);
        if (stored !== undefined) pushMergeEntry(winners, key, stored);
        won++;
      }, (i) => maps.contentTypeAt(flat, i));
      return won;
    }, (n) => (n > 0 && winners.length > 1 ? maps.backupOf(mapName, 'merged', [mapName, winners]) : undefined));
  }

  /** Take the entries of the partitions this member owns (it is about to merge into another cluster). */
  collectForMerge(owned: readonly number[]): MapMergeBatch[] {
    const now = this.maps.deps.clock.now();
    const out: MapMergeBatch[] = [];
    for (const [mapName, c] of this.maps.containers) {
      for (const pid of owned) {
        const store = c.stores[pid];
        if (store === undefined || store.size === 0) continue;
        const entries: [string, MergeEntry][] = [];
        for (const [key] of store.liveEntries(now)) {
          const e = store.mergeView(key, now);
          if (e !== undefined) entries.push([key, e]);
        }
        if (entries.length > 0) out.push({ mapName, partitionId: pid, entries });
      }
    }
    return out;
  }

  /** Merge collected entries into the cluster this member now belongs to, `batch-size` entries per operation. Returns how many were taken. */
  async mergeInto(batches: readonly MapMergeBatch[]): Promise<{ merged: number; kept: number }> {
    let merged = 0;
    let total = 0;
    for (const b of batches) {
      const size = findMapConfig(this.maps.deps.config, b.mapName).mergePolicy.batchSize;
      for (let i = 0; i < b.entries.length; i += size) {
        const flat: WireValue[] = [FULL_STRIDE];
        const part = b.entries.slice(i, i + size);
        for (const [key, e] of part) pushMergeEntry(flat, key, e);
        total += part.length;
        merged += await this.maps.deps.invoker.invoke(b.partitionId, this.mergeOp(b.partitionId, b.mapName, flat));
      }
    }
    return { merged, kept: total - merged };
  }

  /**
   * Apply entries another cluster replicated (in their order) on the partition's owner, with
   * the merge policy each carries; the winners are backed up and, when this map has
   * republishing-enabled, published further. Resolves with how many changed the map.
   */
  applyWan(pid: number, mapName: string, entries: readonly MapWanIncoming[]): MaybePromise<number> {
    return this.maps.deps.invoker.invoke(pid, this.wanApplyOp(pid, mapName, wanApplyArgs(entries)));
  }

  wanApplyOp(pid: number, mapName: string, flat: readonly WireValue[]): Operation<number> {
    const args = [mapName, flat as WireValue[]];
    let applied: WireValue[] = [];
    const maps = this.maps;
    return new MapOp('map.wanApply', 'wanApply', true, args, () => {
      if (flat.length % WAN_EVENT_FIELDS !== 0) throw new GridError('BAD_REQUEST', `malformed WAN entries: ${flat.length} values`);
      this.protection.checkPersistable(mapName);
      const c = maps.container(mapName);
      const store = c.store(pid);
      const now = maps.deps.clock.now();
      const wan = maps.wan;
      const republish = c.config.wanReplicationRef?.republishingEnabled === true && wan !== undefined;
      applied = [];
      for (let j = 0; j < flat.length; j += WAN_EVENT_FIELDS) {
        const kind = f.num(flat, j, 'kind');
        const key = f.str(flat, j + 1, 'key');
        const origins = f.strings(flat, j + 6, 'origin clusters');
        if (kind === 1) {
          if (!store.remove(key, now)) continue;
          const seqs = republish ? wan.offer(pid, { kind: 'remove', mapName, key, originClusters: origins }) : null;
          applied.push(1, key, null, null, 0, 0, 0, 0, 0, seqs, origins);
          continue;
        }
        const value = f.latin1(flat, j + 2, 'value');
        const ct = maps.contentTypeAt(flat, j + 3);
        const ttl = f.num(flat, j + 4, 'ttl');
        const policy = f.str(flat, j + 5, 'merge policy') as MergePolicyName;
        const st = flat[j + 7];
        const stats = Array.isArray(st) ? { creationTime: f.num(st, 0, 'creationTime'), lastUpdateTime: f.num(st, 1, 'lastUpdateTime'), lastAccessTime: f.num(st, 2, 'lastAccessTime'), hits: f.num(st, 3, 'hits') } : undefined;
        const expiresAt = ttl > 0 ? now + ttl : c.config.timeToLiveSeconds > 0 ? now + c.config.timeToLiveSeconds * 1000 : 0;
        const incoming: MergeEntry = {
          value,
          contentType: ct,
          expiresAt,
          lastAccessAt: stats?.lastAccessTime ?? now,
          creationTime: stats?.creationTime ?? now,
          lastUpdateTime: stats?.lastUpdateTime ?? now,
          hits: stats?.hits ?? 0,
        };
        const existing = store.mergeView(key, now);
        if (!mergingWins(policy, existing === undefined ? undefined : mergeViewOf(existing), mergeViewOf(incoming))) continue;
        // The target keeps its own versions: the winner is the next version here.
        store.putWinner(key, incoming, now);
        const seqs = republish ? wan.offer(pid, wanPutEvent(store, mapName, key, now, origins)) : null;
        applied.push(0, key, new Latin1(value), ct ?? null, incoming.expiresAt, incoming.lastAccessAt, incoming.creationTime, incoming.lastUpdateTime, incoming.hits, seqs, origins);
      }
      return applied.length / WAN_APPLIED_STRIDE;
    }, (n) => (n > 0 ? maps.backupOf(mapName, 'wan', [mapName, applied]) : undefined));
  }

  /** A backup replica applies what the owner applied from another cluster (and mirrors the events it republished). */
  applyWanBackup(pid: number, mapName: string, ops: readonly WireValue[]): void {
    if (ops.length % WAN_APPLIED_STRIDE !== 0) throw new GridError('BAD_REQUEST', `malformed WAN backup: ${ops.length} values`);
    const store = this.maps.container(mapName).store(pid);
    const now = this.maps.deps.clock.now();
    for (let j = 0; j < ops.length; j += WAN_APPLIED_STRIDE) {
      const key = f.str(ops, j + 1, 'key');
      const origins = f.strings(ops, j + 10, 'origin clusters');
      if (f.num(ops, j, 'kind') === 1) {
        store.remove(key, now);
        this.wanEvents.mirror(pid, mapName, key, ops[j + 9], true, origins);
        continue;
      }
      // The owner's putWinner from the same entry before: the same next version here.
      store.putWinner(key, {
        value: f.latin1(ops, j + 2, 'value'),
        contentType: this.maps.contentTypeAt(ops, j + 3),
        expiresAt: f.num(ops, j + 4, 'expiresAt'),
        lastAccessAt: f.num(ops, j + 5, 'lastAccessAt'),
        creationTime: f.num(ops, j + 6, 'creationTime'),
        lastUpdateTime: f.num(ops, j + 7, 'lastUpdateTime'),
        hits: f.num(ops, j + 8, 'hits'),
      }, now);
      this.wanEvents.mirror(pid, mapName, key, ops[j + 9], false, origins);
    }
  }
}
