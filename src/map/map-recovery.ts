// Map recovery: the replay of persisted records at member start, the snapshot a log
// compaction writes, and what the owner does when the log put a change back (its record could
// not be written): WAN targets and backups get the entry as it is again.

import { describeError } from '../core/errors.js';
import type { Operation } from '../invocation/invoker.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { partitionIdOfKey } from './map-keys.js';
import type { WireValue } from '../protocol/codec.js';
import { FULL_STRIDE } from './record-store.js';
import { pushMergeEntry } from './map-merge.js';
import { LogOp, type LogRecord } from '../persistence/log-format.js';
import { decodePersistedEntry, encodePersistedEntry } from './map-persistence.js';
import type { MapRegistry } from './map-registry.js';
import { MapOp } from './map-op.js';
import type { MergeEntry } from './record-store.js';
import { wanPutEvent } from './map-wan.js';

export class MapRecovery {
  constructor(private readonly maps: MapRegistry) {}

  /** Replay persisted records (member start): the maps hold what they held when the member stopped. Returns entries restored. */
  restore(records: Iterable<LogRecord>): number {
    const maps = this.maps;
    for (const r of records) {
      if (r.op === LogOp.DropPartition) {
        for (const c of maps.containers.values()) c.stores[r.partitionId] = undefined;
        continue;
      }
      if (r.service !== 'map' || r.partitionId >= PARTITION_COUNT) continue;
      if (r.op === LogOp.Put) maps.container(r.name).store(r.partitionId).putMerged(r.key, decodePersistedEntry(r.value));
      else if (r.op === LogOp.Remove) maps.containers.get(r.name)?.stores[r.partitionId]?.remove(r.key, 0);
      else maps.containers.get(r.name)?.stores[r.partitionId]?.clear();
    }
    let n = 0;
    for (const c of maps.containers.values()) for (const st of c.stores) n += st?.size ?? 0;
    return n;
  }

  /**
   * Data replayed from a log of an older partition hash version: every entry moves to its
   * partition under this build's hash (member start, before anything is logged or served).
   * Returns the entries moved.
   */
  rehome(): number {
    const now = this.maps.deps.clock.now();
    let moved = 0;
    for (const c of this.maps.containers.values()) {
      const moves: [number, string, MergeEntry][] = [];
      for (let pid = 0; pid < PARTITION_COUNT; pid++) {
        const store = c.stores[pid];
        if (store === undefined) continue;
        for (const [key, v] of store.liveEntries(now)) {
          const to = partitionIdOfKey(key);
          // Through the persisted form: the entry with all its times, as a log replay gives it.
          if (to !== pid) moves.push([pid, key, decodePersistedEntry(encodePersistedEntry(v))]);
        }
      }
      for (const [from, key] of moves) c.stores[from]!.remove(key, 0);
      for (const [, key, e] of moves) c.store(partitionIdOfKey(key)).putMerged(key, e);
      moved += moves.length;
    }
    return moved;
  }

  /** The current content of every persisted map here, as log records (a compaction's snapshot). */
  *records(): IterableIterator<LogRecord> {
    const now = this.maps.deps.clock.now();
    for (const [name, c] of this.maps.containers) {
      if (!c.config.dataPersistence.enabled) continue;
      for (let pid = 0; pid < PARTITION_COUNT; pid++) {
        const store = c.stores[pid];
        if (store === undefined) continue;
        for (const [key, v] of store.liveEntries(now)) yield { op: LogOp.Put, partitionId: pid, service: 'map', name, key, value: encodePersistedEntry(v) };
      }
    }
  }

  /**
   * On the owner, a change put back: WAN targets get the entry as it is again (they may have
   * had the change). When the owner's log is fine, the change had reached backups and one
   * refused it: every backup gets the entry as it is again too (the one that refused has put
   * it back itself and refuses this as well; one that took it is corrected).
   */
  undoneChange(pid: number, mapName: string, key: string): void {
    const maps = this.maps;
    const c = maps.containers.get(mapName);
    const store = c?.stores[pid];
    if (c === undefined || store === undefined || !maps.deps.isOwner(pid)) return;
    if (c.publishes && maps.wan !== undefined) maps.wan.offer(pid, wanPutEvent(store, mapName, key, maps.deps.clock.now(), []));
    if (c.replicas <= 1 || maps.persistence?.refusal() !== undefined) return;
    const sent = (e: unknown): void => maps.deps.logger.debug({ map: mapName, key }, `the put-back entry did not reach every backup: ${describeError(e)}`);
    try {
      const r = maps.deps.invoker.invoke(pid, this.putBackOp(pid, mapName, key));
      if (r instanceof Promise) r.catch(sent);
    } catch (e) {
      sent(e);
    }
  }

  /** Sends the backups of a partition one entry as the owner has it now (or its absence); changes nothing here. */
  private putBackOp(pid: number, mapName: string, key: string): Operation<WireValue[] | undefined> {
    // Only ever run here, as owner (its backups are what it is for): no remote handler.
    return new MapOp('map.putBack', 'putBack', true, undefined, () => {
      const e = this.maps.containers.get(mapName)?.stores[pid]?.mergeView(key, 0);
      if (e === undefined) return undefined;
      const entry: WireValue[] = [FULL_STRIDE];
      pushMergeEntry(entry, key, e);
      return entry;
    }, (entry) => (entry === undefined ? this.maps.backupOf(mapName, 'remove', [mapName, key]) : this.maps.backupOf(mapName, 'merged', [mapName, entry])));
  }
}
