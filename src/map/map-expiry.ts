// Map expiry: the background sweeper that reclaims entries past their time-to-live or
// max-idle (reads check expiry themselves, so it only frees memory), paced so a large map never
// stalls the event loop; the eviction trim shares its timer.

import type { TimerHandle } from '../core/clock.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { trimSome } from './map-eviction.js';
import type { MapRegistry } from './map-registry.js';

/** Entries the expiry sweeper examines per tick (it always finishes the partition it is in). */
export const SWEEP_BUDGET = 50_000;

export class MapExpiry {
  private sweeper: TimerHandle | undefined;
  private sweepCursor = 0;

  constructor(private readonly maps: MapRegistry) {}

  /** Start reclaiming expired entries in the background. */
  start(intervalMs: number): void {
    this.sweeper?.cancel();
    const { clock, logger } = this.maps.deps;
    // The eviction trim shares the sweeper's timer and pace.
    this.sweeper = clock.setInterval(() => {
      this.sweepSome();
      // A trim refused now (cluster PASSIVE, a migration) is retried at the next tick: not worth a warning per second.
      if (this.maps.anyEvicting) void trimSome(this.maps).catch((e: unknown) => logger.debug({ err: e }, 'map eviction trim deferred'));
    }, intervalMs);
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
    const now = this.maps.deps.clock.now();
    const expiring = [...this.maps.containers.values()].filter((c) => c.expiring);
    if (expiring.length === 0) return 0;
    let removed = 0;
    let examined = 0;
    for (let visited = 0; visited < PARTITION_COUNT && examined < SWEEP_BUDGET; visited++) {
      const pid = this.sweepCursor;
      this.sweepCursor = (this.sweepCursor + 1) % PARTITION_COUNT;
      for (const c of expiring) {
        const store = c.stores[pid];
        if (store === undefined || !store.mayExpire) continue;
        examined += store.size;
        const n = store.sweep(now);
        removed += n;
        // Backups reclaim their copies too; an expiry is counted once, where the partition is owned.
        if (n > 0 && this.maps.deps.isOwner(pid)) c.counters.expirations += n;
      }
    }
    if (removed > 0) this.maps.deps.logger.debug({ removed }, 'expired map entries reclaimed');
    return removed;
  }
}
