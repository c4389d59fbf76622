// What a map mutation contributes to WAN replication: the `MapWanSink` hook the WAN layer
// implements, the events built from a record store's entries (owner writes, backups mirroring
// the owner's events, WAN sync), and the entries another cluster sends in (MapWanIncoming).

import type { MapConfig, MergePolicyName } from '../config/types.js';
import type { WireValue } from '../protocol/codec.js';
import { appendWanEventFields, type MapWanEvent, type WanBatchEvent } from '../protocol/wan-payloads.js';
import type { Clock } from '../core/clock.js';
import type { RecordStore, StoreObserver } from './record-store.js';

/** An entry received from another cluster by WAN replication, to apply with the source map's merge policy. */
export type MapWanIncoming = Omit<WanBatchEvent, 'mapName' | 'mergePolicy'> & { readonly mergePolicy: MergePolicyName };

/**
 * Where map mutations go for WAN replication (implemented by the WAN layer, which sits above
 * this one). Owners admit before a write (a full queue may refuse it) and commit after; backups
 * mirror the owner's events with the sequence numbers the owner gave them.
 */
export interface MapWanSink {
  /** Reserve queue places before a write; throws QUEUE_FULL when a publisher refuses it. undefined: nothing to publish. */
  admit(mapName: string, partitionId: number): unknown;
  /** The admitted write happened: queue its event. Returns what backups need to mirror it (sequence numbers). */
  commit(tickets: unknown, partitionId: number, event: MapWanEvent): WireValue;
  /** The admitted write did not happen. */
  cancel(tickets: unknown): void;
  /** Queue without refusal (clear, split-brain merges, entries applied from another cluster that this map republishes): a full queue drops. */
  offer(partitionId: number, event: MapWanEvent): WireValue;
  /** A backup replica mirrors the owner's events (`seqs` from commit/offer). */
  backup(partitionId: number, event: MapWanEvent, seqs: WireValue): void;
  /** The Merkle tree a record store of this map keeps, when the map has merkle-tree enabled. */
  newObserver(config: MapConfig): StoreObserver | undefined;
}

/** The WAN event of an entry as stored now (TTL as the time left, statistics where kept). */
export function wanPutEvent(store: RecordStore, mapName: string, key: string, now: number, originClusters: readonly string[]): MapWanEvent {
  const e = store.mergeView(key, now);
  if (e === undefined) return { kind: 'remove', mapName, key, originClusters };
  return {
    kind: 'put',
    mapName,
    key,
    value: e.value,
    contentType: e.contentType,
    ttlRemainingMs: e.expiresAt > 0 ? Math.max(1, e.expiresAt - now) : undefined,
    ...(store.stats ? { stats: { creationTime: e.creationTime, lastUpdateTime: e.lastUpdateTime, lastAccessTime: e.lastAccessAt, hits: e.hits } } : {}),
    originClusters,
  };
}

/** What the WAN events of a member's maps are built from (the map registry). */
export interface WanEventSource {
  readonly wan: MapWanSink | undefined;
  readonly containers: ReadonlyMap<string, { readonly stores: readonly (RecordStore | undefined)[]; readonly config: MapConfig }>;
  readonly deps: { readonly clock: Clock };
}

/** Builds the WAN events of map mutations that are not the owner's own writes: backups mirroring the owner, WAN sync. */
export class MapWanEvents {
  constructor(private readonly maps: WanEventSource) {}

  /** A backup replica mirrors the WAN events of the owner's write (`seqs` came with the backup). */
  mirror(pid: number, mapName: string, key: string, seqs: WireValue | undefined, removed: boolean, originClusters: readonly string[] = []): void {
    const wan = this.maps.wan;
    if (seqs === undefined || seqs === null || wan === undefined) return;
    const store = this.maps.containers.get(mapName)?.stores[pid];
    const now = this.maps.deps.clock.now();
    const event: MapWanEvent = removed || store === undefined ? { kind: 'remove', mapName, key, originClusters } : wanPutEvent(store, mapName, key, now, originClusters);
    wan.backup(pid, event, seqs);
  }

  /** WAN sync: the events that carry the partition's live entries of the map (those `keep` accepts). */
  syncEvents(pid: number, mapName: string, keep?: (key: string) => boolean): MapWanEvent[] {
    const store = this.maps.containers.get(mapName)?.stores[pid];
    if (store === undefined) return [];
    const now = this.maps.deps.clock.now();
    const out: MapWanEvent[] = [];
    for (const [key] of store.liveEntries(now)) {
      if (keep !== undefined && !keep(key)) continue;
      const e = wanPutEvent(store, mapName, key, now, []);
      if (e.kind === 'put') out.push(e);
    }
    return out;
  }

  /** Names of the maps in use on this member that publish to the WAN replication `wanRepName`. */
  mapsPublishingTo(wanRepName: string): string[] {
    const out: string[] = [];
    for (const [name, c] of this.maps.containers) if (c.config.wanReplicationRef?.name === wanRepName) out.push(name);
    return out;
  }
}

/** The arguments of a WAN-apply operation: each entry's WanBatch fields (the protocol's encoder), after the map's name. */
export function wanApplyArgs(entries: readonly MapWanIncoming[]): WireValue[] {
  const flat: WireValue[] = [];
  for (const e of entries) appendWanEventFields(flat, e);
  return flat;
}
