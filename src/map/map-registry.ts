// The maps on this member: one MapContainer (a map's record stores, one per partition) per map
// name, created on first use, and what every map module shares: the member's services, the WAN
// and persistence hooks, the operation counters, interned content types and backup specs.

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { GridConfig, MapConfig } from '../config/types.js';
import { findMapConfig } from '../config/index.js';
import type { BackupSpec, Invoker } from '../invocation/invoker.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { CountersByName } from '../core/metrics.js';
import type { WriteGate } from '../core/memory-guard.js';
import { policyNeedsStats } from '../cluster/merge-policies.js';
import { RecordStore, type StoreObserver, type StoredValue } from './record-store.js';
import { MapEviction, type MemorySource } from './map-eviction.js';
import { MapCounters } from './map-metrics.js';
import { PersistObserver, type MapPersistence } from './map-persistence.js';
import type { MapWanSink } from './map-wan.js';

/** Content types repeat; keep one string per distinct type instead of one per entry. */
const MAX_INTERNED_CONTENT_TYPES = 1024;

/** What the map modules receive from the member. */
export interface MapDeps {
  readonly config: GridConfig;
  readonly invoker: Invoker;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Data members in this member's list (lite members do not count). */
  readonly clusterSize: () => number;
  /** Whether this member owns a partition now. */
  readonly isOwner: (partitionId: number) => boolean;
  readonly memory: MemorySource;
  /** The member memory guard: puts are refused while it refuses (maps with eviction evict instead). */
  readonly gate: WriteGate | undefined;
}

/** A store watched by a Merkle tree and persisted. */
class BothObservers implements StoreObserver {
  constructor(
    private readonly a: StoreObserver,
    private readonly b: StoreObserver,
  ) {}
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    this.a.changed(key, before, after);
    this.b.changed(key, before, after);
  }
  cleared(): void {
    this.a.cleared();
    this.b.cleared();
  }
}

export class MapContainer {
  readonly stores: (RecordStore | undefined)[] = new Array<RecordStore | undefined>(PARTITION_COUNT);
  /** Entries may expire: the map has a TTL or max-idle, or one of its entries was given one (then the sweeper visits it). */
  expiring: boolean;
  /** Replicas that hold this map's data: owner + sync + async backups. */
  readonly replicas: number;
  readonly stats: boolean;
  /** The map publishes its mutations to a WAN replication (`wan-replication-ref`). */
  readonly publishes: boolean;
  /** Told of each store created (change events watch it while the map has listeners: map-events.ts). */
  onStore: ((partitionId: number, store: RecordStore) => void) | undefined;

  constructor(
    readonly mapName: string,
    readonly config: MapConfig,
    private readonly wan: () => MapWanSink | undefined,
    /** Where the map's changes are persisted (undefined: not persisted). */
    private readonly persist: MapPersistence | undefined,
    readonly counters: MapCounters,
    readonly eviction: MapEviction,
    /** A change of this map was put back (its record could not be written): WAN hears of the entry as it is again. */
    private readonly undone: (partitionId: number, key: string) => void = () => undefined,
  ) {
    this.expiring = config.timeToLiveSeconds > 0 || config.maxIdleSeconds > 0;
    this.replicas = 1 + config.backupCount + config.asyncBackupCount;
    // LRU and LFU compare the access time, hits and creation time a store with statistics keeps.
    const policy = config.eviction.evictionPolicy;
    this.stats = policyNeedsStats(config.mergePolicy.policy) || policy === 'LRU' || policy === 'LFU';
    this.publishes = config.wanReplicationRef !== undefined;
  }

  store(partitionId: number): RecordStore {
    let s = this.stores[partitionId];
    if (s === undefined) {
      const merkle = this.config.merkleTree.enabled ? this.wan()?.newObserver(this.config) : undefined;
      const persisted =
        this.persist === undefined
          ? undefined
          : new PersistObserver(this.persist, this.mapName, partitionId, this.config.dataPersistence.fsync, () => this.stores[partitionId], (key) => this.undone(partitionId, key));
      const observer = merkle === undefined ? persisted : persisted === undefined ? merkle : new BothObservers(merkle, persisted);
      s = new RecordStore({
        ttlMs: this.config.timeToLiveSeconds * 1000,
        maxIdleMs: this.config.maxIdleSeconds * 1000,
        stats: this.stats,
        ...(observer === undefined ? {} : { observer }),
        // Reads that find an entry expired are counted (a map without configured expiry may get per-entry TTLs).
        expiredReads: this.counters,
        onExpiring: () => {
          this.expiring = true;
        },
      });
      if (persisted !== undefined) persisted.store = s;
      this.stores[partitionId] = s;
      this.onStore?.(partitionId, s);
    }
    return s;
  }
}

/** Answers of the last updates by operation id (on owners and backups): enough for the retries of a call timeout's worth of writes. */
const RECENT_UPDATES = 16_384;

/** Operation id -> the wire form of its result, oldest first (a Map keeps insertion order). */
/** Kept on owners and backups, so a retry that finds a promoted backup is answered too. */
export class RecentUpdates {
  private readonly byId = new Map<string, WireValue>();

  constructor(private readonly limit = RECENT_UPDATES) {}

  get(opId: string): WireValue | undefined {
    return this.byId.get(opId);
  }

  set(opId: string, result: WireValue): void {
    this.byId.set(opId, result);
    if (this.byId.size > this.limit) this.byId.delete(this.byId.keys().next().value!);
  }

  get size(): number {
    return this.byId.size;
  }
}

export class MapRegistry {
  readonly containers = new Map<string, MapContainer>();
  readonly counters = new CountersByName(() => new MapCounters());
  private readonly contentTypes = new Map<string, string>();
  wan: MapWanSink | undefined;
  persistence: MapPersistence | undefined;
  /** Some map here evicts (the sweeper's tick then looks for stores over their limit). */
  anyEvicting = false;
  /** Answers of recent conditional updates by operation id, for their retries (map-update.ts). */
  readonly recentUpdates = new RecentUpdates();
  /** Given to each container made from now on (MapContainer.onStore; set by map-events.ts). */
  onStore: ((c: MapContainer, partitionId: number, store: RecordStore) => void) | undefined;
  /** Told when a change of a persisted map is put back (set by the facade: the persistence module handles it). */
  onUndone: (pid: number, mapName: string, key: string) => void = () => undefined;

  constructor(readonly deps: MapDeps) {}

  container(mapName: string): MapContainer {
    let c = this.containers.get(mapName);
    if (c === undefined) {
      const config = findMapConfig(this.deps.config, mapName);
      const eviction = new MapEviction(config.eviction, {
        memberCount: this.deps.clusterSize,
        memory: this.deps.memory,
        isOwner: this.deps.isOwner,
        random: () => (Math.random() * 0x1_0000_0000) >>> 0,
      });
      c = new MapContainer(mapName, config, () => this.wan, config.dataPersistence.enabled ? this.persistence : undefined, this.counters.of(mapName, true), eviction, (pid, key) =>
        this.onUndone(pid, mapName, key),
      );
      if (eviction.enabled) this.anyEvicting = true;
      const onStore = this.onStore;
      const made = c;
      if (onStore !== undefined) c.onStore = (pid, store) => onStore(made, pid, store);
      this.containers.set(mapName, c);
    }
    return c;
  }

  /** The map's configuration (its own or the matching pattern's). */
  configOf(mapName: string): MapConfig {
    return this.containers.get(mapName)?.config ?? findMapConfig(this.deps.config, mapName);
  }

  backupOf(mapName: string, type: string, args: readonly WireValue[]): BackupSpec {
    const config = this.configOf(mapName);
    return { type, args, syncCount: config.backupCount, asyncCount: config.asyncBackupCount, idempotent: true };
  }

  /** A content type that came over the wire, interned like a local one. */
  contentTypeAt(t: readonly WireValue[], i: number): string | undefined {
    const ct = f.optStr(t, i, 'content type');
    return ct === undefined ? undefined : this.intern(ct);
  }

  intern(contentType: string): string {
    const known = this.contentTypes.get(contentType);
    if (known !== undefined) return known;
    if (this.contentTypes.size < MAX_INTERNED_CONTENT_TYPES) this.contentTypes.set(contentType, contentType);
    return contentType;
  }
}
