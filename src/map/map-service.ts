// Distributed maps: one RecordStore per map per partition, created on first write. Every
// operation is invoked on its key's partition; the REST layer sees only this facade.

import type { Clock, TimerHandle } from '../core/clock.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { Logger } from '../core/logger.js';
import type { GridConfig, MapConfig } from '../config/types.js';
import { findMapConfig } from '../config/index.js';
import type { Invoker } from '../invocation/invoker.js';
import { PARTITION_COUNT, partitionIdOf } from '../partition/partitioning.js';
import { RecordStore, type StoredValue } from './record-store.js';

export interface MapFacade {
  get(mapName: string, key: string): MaybePromise<StoredValue | undefined>;
  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void>;
  remove(mapName: string, key: string): MaybePromise<boolean>;
  clear(mapName: string): Promise<void>;
  size(mapName: string): Promise<number>;
}

class MapContainer {
  readonly stores: (RecordStore | undefined)[] = new Array<RecordStore | undefined>(PARTITION_COUNT);
  readonly expiring: boolean;

  constructor(readonly config: MapConfig) {
    this.expiring = config.timeToLiveSeconds > 0 || config.maxIdleSeconds > 0;
  }

  store(partitionId: number): RecordStore {
    let s = this.stores[partitionId];
    if (s === undefined) {
      s = new RecordStore({
        ttlMs: this.config.timeToLiveSeconds * 1000,
        maxIdleMs: this.config.maxIdleSeconds * 1000,
      });
      this.stores[partitionId] = s;
    }
    return s;
  }
}

/** Entries the expiry sweeper examines per tick (it always finishes the partition it is in). */
export const SWEEP_BUDGET = 50_000;

/** Content types repeat; keep one string per distinct type instead of one per entry. */
const MAX_INTERNED_CONTENT_TYPES = 1024;

export class MapService implements MapFacade {
  private readonly containers = new Map<string, MapContainer>();
  private readonly contentTypes = new Map<string, string>();
  private readonly config: GridConfig;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private sweeper: TimerHandle | undefined;
  private sweepCursor = 0;

  constructor(deps: { config: GridConfig; invoker: Invoker; clock: Clock; logger: Logger }) {
    this.config = deps.config;
    this.invoker = deps.invoker;
    this.clock = deps.clock;
    this.logger = deps.logger;
  }

  get(mapName: string, key: string): MaybePromise<StoredValue | undefined> {
    const pid = partitionIdOf(key);
    return this.invoker.invoke(pid, {
      name: 'map.get',
      mutating: false,
      run: () => this.containers.get(mapName)?.stores[pid]?.get(key, this.clock.now()),
    });
  }

  put(mapName: string, key: string, value: string, contentType: string | undefined): MaybePromise<void> {
    const pid = partitionIdOf(key);
    const ct = contentType === undefined ? undefined : this.intern(contentType);
    return this.invoker.invoke(pid, {
      name: 'map.put',
      mutating: true,
      run: () => this.container(mapName).store(pid).put(key, value, ct, this.clock.now()),
    });
  }

  remove(mapName: string, key: string): MaybePromise<boolean> {
    const pid = partitionIdOf(key);
    return this.invoker.invoke(pid, {
      name: 'map.remove',
      mutating: true,
      run: () => this.containers.get(mapName)?.stores[pid]?.remove(key, this.clock.now()) ?? false,
    });
  }

  async clear(mapName: string): Promise<void> {
    const all: MaybePromise<void>[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) {
      all.push(
        this.invoker.invoke(pid, {
          name: 'map.clear',
          mutating: true,
          run: () => this.containers.get(mapName)?.stores[pid]?.clear(),
        }),
      );
    }
    await Promise.all(all);
  }

  async size(mapName: string): Promise<number> {
    const c = this.containers.get(mapName);
    if (c === undefined) return 0;
    const now = this.clock.now();
    let n = 0;
    for (const s of c.stores) {
      if (s === undefined) continue;
      if (c.expiring) s.sweep(now);
      n += s.size;
    }
    return Promise.resolve(n);
  }

  /** Start reclaiming expired entries in the background. */
  startExpirySweeper(intervalMs: number): void {
    this.sweeper?.cancel();
    this.sweeper = this.clock.setInterval(() => this.sweepSome(), intervalMs);
  }

  stop(): void {
    this.sweeper?.cancel();
    this.sweeper = undefined;
  }

  /**
   * Sweep partitions round robin until about SWEEP_BUDGET entries were examined, so that a
   * large map never stalls the event loop for long; the cursor carries on at the next tick.
   * Reads check expiry themselves, so the sweeper only reclaims memory.
   */
  sweepSome(): number {
    const now = this.clock.now();
    const expiring = [...this.containers.values()].filter((c) => c.expiring);
    if (expiring.length === 0) return 0;
    let removed = 0;
    let examined = 0;
    for (let visited = 0; visited < PARTITION_COUNT && examined < SWEEP_BUDGET; visited++) {
      const pid = this.sweepCursor;
      this.sweepCursor = (this.sweepCursor + 1) % PARTITION_COUNT;
      for (const c of expiring) {
        const store = c.stores[pid];
        if (store === undefined) continue;
        examined += store.size;
        removed += store.sweep(now);
      }
    }
    if (removed > 0) this.logger.debug({ removed }, 'expired map entries reclaimed');
    return removed;
  }

  private container(mapName: string): MapContainer {
    let c = this.containers.get(mapName);
    if (c === undefined) {
      c = new MapContainer(findMapConfig(this.config, mapName));
      this.containers.set(mapName, c);
    }
    return c;
  }

  private intern(contentType: string): string {
    const known = this.contentTypes.get(contentType);
    if (known !== undefined) return known;
    if (this.contentTypes.size < MAX_INTERNED_CONTENT_TYPES) this.contentTypes.set(contentType, contentType);
    return contentType;
  }
}
