// How the partition layer moves the map data of a partition (migration, backup sync): a
// snapshot of the replica's stores, its install on the receiving member, drop and trim.

import type { ReplicaData } from '../partition/partition-service.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { FULL_STRIDE } from './record-store.js';
import { forEachMergeEntry } from './map-merge.js';
import type { MapRegistry } from './map-registry.js';

export function mapReplicaData(maps: MapRegistry): ReplicaData {
  return {
    name: 'map',
    snapshot: (pid: number, replicaIndex: number): WireValue | undefined => {
      const now = maps.deps.clock.now();
      const out: WireValue[] = [];
      for (const [name, c] of maps.containers) {
        const store = c.stores[pid];
        if (store === undefined || store.size === 0 || replicaIndex >= c.replicas) continue;
        // FULL_STRIDE values per entry (version and expiry included), announced by a leading number.
        const flat: unknown[] = [FULL_STRIDE];
        store.exportTo(flat, now, (v) => new Latin1(v));
        out.push(name, flat as WireValue[]);
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      for (const c of maps.containers.values()) c.stores[pid] = undefined;
      if (data === undefined) return;
      const t = f.tuple(data, 'map data');
      for (let i = 0; i + 1 < t.length; i += 2) {
        const name = f.str(t, i, 'map name');
        const flat = f.arr(t, i + 1, 'entries');
        const store = maps.container(name).store(pid);
        if (flat[0] === FULL_STRIDE) {
          forEachMergeEntry(flat, (key, e) => store.putMerged(key, e), (i) => maps.contentTypeAt(flat, i));
          continue;
        }
        if (typeof flat[0] === 'number') {
          // An older member's map with statistics: 8 values per entry after the number.
          const rest = flat.slice(1);
          forEachMergeEntry(rest, (key, e) => store.putMerged(key, e), (i) => maps.contentTypeAt(rest, i));
          continue;
        }
        for (let j = 0; j + 4 < flat.length; j += 5) {
          store.restore(f.str(flat, j, 'key'), f.latin1(flat, j + 1, 'value'), maps.contentTypeAt(flat, j + 2), f.num(flat, j + 3, 'expiresAt'), f.num(flat, j + 4, 'lastAccessAt'));
        }
      }
    },
    drop: (pid: number): void => {
      for (const c of maps.containers.values()) c.stores[pid] = undefined;
    },
    ownershipLost: (): void => undefined,
    trim: (pid: number, replicaIndex: number): void => {
      for (const c of maps.containers.values()) {
        if (c.replicas > replicaIndex) continue;
        c.stores[pid]?.observer?.cleared();
        c.stores[pid] = undefined;
      }
    },
  };
}
