// The map metrics (docs/metrics.md): per-map operation counters bumped on the owner's hot path
// with plain increments, and the scrape-time report of entries owned and held as backups.

import type { CountersByName, MetricsRegistrar } from '../core/metrics.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import type { RecordStore } from './record-store.js';

/**
 * One map's operations on this member as its partitions' owner, since the member started
 * (plain increments on the hot path; read at scrape time).
 */
export class MapCounters {
  gets = 0;
  hits = 0;
  misses = 0;
  puts = 0;
  removes = 0;
  /** Entries found expired by a read or reclaimed by the sweeper in owned partitions. */
  expirations = 0;
  /** Entries evicted (max-size) in partitions this member owns. */
  evictions = 0;
}

/** The counter metrics: name, help, and the MapCounters field each reports. */
const MAP_COUNTERS: readonly (readonly [string, string, keyof MapCounters])[] = [
  ['grid_map_gets_total', 'Map reads (GET, HEAD) run on this member as partition owner', 'gets'],
  ['grid_map_hits_total', 'Map reads that found a live entry', 'hits'],
  ['grid_map_misses_total', 'Map reads that found no entry (or an expired one)', 'misses'],
  ['grid_map_puts_total', 'Map puts run on this member as partition owner', 'puts'],
  ['grid_map_removes_total', 'Map removes (DELETE of a key) run on this member as partition owner, whether or not the key existed', 'removes'],
  ['grid_map_evictions_total', 'Entries evicted (eviction max-size) in partitions this member owns; not replicated over WAN', 'evictions'],
  ['grid_map_expirations_total', 'Entries that expired (time-to-live, max-idle) in partitions this member owns: found by a read or reclaimed by the sweeper', 'expirations'],
];

/** What the metrics read of the maps on this member (the map registry). */
export interface MetricsSource {
  readonly containers: ReadonlyMap<string, { readonly stores: readonly (RecordStore | undefined)[] }>;
  readonly counters: CountersByName<MapCounters>;
  readonly deps: { readonly isOwner: (partitionId: number) => boolean };
}

/** Entries and bytes (RecordStore.footprintBytes) of every map in the partitions this member owns (the metrics history samples it once a second). */
export function ownedFootprint(maps: MetricsSource): { entries: number; bytes: number } {
  let entries = 0;
  let bytes = 0;
  const owned: boolean[] = [];
  for (let pid = 0; pid < PARTITION_COUNT; pid++) owned.push(maps.deps.isOwner(pid));
  for (const c of maps.containers.values()) {
    c.stores.forEach((s, pid) => {
      if (s === undefined || !owned[pid]) return;
      entries += s.size;
      bytes += s.footprintBytes;
    });
  }
  return { entries, bytes };
}

/**
 * The per-map metrics: entries owned here and held as backups, counted at scrape time, and
 * the operations this member ran as owner.
 */
export function reportMapMetrics(r: MetricsRegistrar, maps: MetricsSource): void {
  let entries = new Map<string, { owned: number; backup: number }>();
  r.beforeScrape(() => {
    entries = new Map();
    const owned: boolean[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) owned.push(maps.deps.isOwner(pid));
    for (const [name, c] of maps.containers) {
      let o = 0;
      let b = 0;
      c.stores.forEach((s, pid) => {
        if (s === undefined) return;
        if (owned[pid]) o += s.size;
        else b += s.size;
      });
      entries.set(name, { owned: o, backup: b });
    }
  });
  const labelNames = ['map'];
  r.gauge({ name: 'grid_map_entries', help: 'Entries of the map in partitions this member owns (summed over members: the map size); expired entries count until reclaimed', labelNames }, (report) => {
    for (const [map, e] of entries) report(e.owned, { map });
  });
  r.gauge({ name: 'grid_map_backup_entries', help: 'Entries of the map this member holds as a backup replica', labelNames }, (report) => {
    for (const [map, e] of entries) report(e.backup, { map });
  });
  for (const [name, help, field] of MAP_COUNTERS) r.counter({ name, help, labelNames }, (report) => maps.counters.forEach((c, map) => report(c[field], { map })));
}
