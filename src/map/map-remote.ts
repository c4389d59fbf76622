// The map's member-message side: the operations a remote caller asks this member to run as
// partition owner (decoded from their wire arguments), their results on the wire, and the
// backups' side of every map write.

import { GridError } from '../core/errors.js';
import type { Caller, Operation, OperationHandler } from '../invocation/invoker.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { MergeEntry, StoredValue, UpdateResult } from './record-store.js';
import { applyEntryBackup, decodeUpdate, decodeUpdateResult, encodeUpdateResult, updateOp } from './map-update.js';
import { trimOp } from './map-eviction.js';
import { forEachMergeEntry, type MapMerge } from './map-merge.js';
import { decodeEntryView, encodeEntryView, type MapOperations } from './map-operations.js';
import type { MapRegistry } from './map-registry.js';
import type { MapWanEvents } from './map-wan.js';
import { applyEntriesBackup, batchPartFromWire, decodeBatchResult, encodeBatchResult, type MapBatchOutcome } from './map-batch-op.js';
import { decodeNames, decodeScanResult, encodeNames, encodeScanResult, type MapScans, type PartitionPage } from './map-scan.js';

export function mapHandler(maps: MapRegistry, ops: MapOperations, merge: MapMerge, wanEvents: MapWanEvents, scans: MapScans): OperationHandler {
  return {
    operation: (pid: number, type: string, args: readonly WireValue[], _caller: Caller): Operation<unknown> => {
      const mapName = f.str(args, 0, 'map name');
      switch (type) {
        case 'get':
          return ops.getOp(pid, mapName, f.str(args, 1, 'key'));
        case 'put':
          return ops.putOp(pid, mapName, f.str(args, 1, 'key'), f.latin1(args, 2, 'value'), maps.contentTypeAt(args, 3));
        case 'remove':
          return ops.removeOp(pid, mapName, f.str(args, 1, 'key'));
        case 'update': {
          const { key, opId, update } = decodeUpdate(maps, args);
          return updateOp(ops, pid, mapName, key, update, opId);
        }
        case 'batch':
          return batchPartFromWire(ops, pid, args);
        case 'entryView':
          return ops.entryViewOp(pid, mapName, f.str(args, 1, 'key'));
        case 'clear':
          return ops.clearOp(pid, mapName);
        case 'size':
          return ops.sizeOp(pid, mapName);
        case 'merge':
          return merge.mergeOp(pid, mapName, f.arr(args, 1, 'entries'));
        case 'wanApply':
          return merge.wanApplyOp(pid, mapName, f.arr(args, 1, 'entries'));
        case 'observerQuery':
          return ops.observerQueryOp(pid, mapName, f.str(args, 1, 'query'), args[2] ?? null);
        case 'trim':
          return trimOp(maps, pid, mapName);
        case 'scan':
          return scans.scanOpFromWire(pid, args);
        case 'names':
          return scans.namesOp(pid);
      }
      throw new GridError('BAD_REQUEST', `unknown map operation ${type}`);
    },
    encodeResult: (type: string, result: unknown): WireValue => {
      if (type === 'get') {
        const v = result as StoredValue | undefined;
        // [value, content type, version]: members before versions read the first two.
        return v === undefined ? null : v.version === undefined ? [new Latin1(v.value), v.contentType ?? null] : [new Latin1(v.value), v.contentType ?? null, v.version];
      }
      if (type === 'remove') return result as boolean;
      if (type === 'update') return encodeUpdateResult(result as UpdateResult, true);
      if (type === 'batch') return encodeBatchResult(result as MapBatchOutcome[]);
      if (type === 'entryView') return encodeEntryView(result as MergeEntry | undefined);
      if (type === 'observerQuery') return result as WireValue;
      if (type === 'scan') return encodeScanResult(result as PartitionPage);
      if (type === 'names') return encodeNames(result as [string, number][]);
      if (type === 'size' || type === 'merge' || type === 'wanApply' || type === 'trim') return result as number;
      return null;
    },
    decodeResult: (type: string, w: WireValue): unknown => {
      if (type === 'get') {
        if (w === null) return undefined;
        const t = f.tuple(w, 'map value');
        const version = t[2];
        const v: StoredValue = { value: f.latin1(t, 0, 'value'), contentType: f.optStr(t, 1, 'content type') };
        return typeof version === 'number' ? { ...v, version } : v;
      }
      if (type === 'remove') return w === true;
      if (type === 'update') return decodeUpdateResult(w);
      if (type === 'batch') return decodeBatchResult(w, (t, i) => maps.contentTypeAt(t, i));
      if (type === 'entryView') return decodeEntryView(w, (t, i) => maps.contentTypeAt(t, i));
      if (type === 'observerQuery') return w;
      if (type === 'scan') return decodeScanResult(w, (t, i) => maps.contentTypeAt(t, i));
      if (type === 'names') return decodeNames(w);
      if (type === 'size' || type === 'merge' || type === 'wanApply' || type === 'trim') return typeof w === 'number' ? w : 0;
      return undefined;
    },
    applyBackup: (pid: number, type: string, args: readonly WireValue[]): void => {
      const mapName = f.str(args, 0, 'map name');
      // A backup this member cannot persist is refused untouched: the owner fails the write.
      ops.protection.checkPersistable(mapName);
      const now = maps.deps.clock.now();
      switch (type) {
        case 'put': {
          const key = f.str(args, 1, 'key');
          const store = maps.container(mapName).store(pid);
          store.put(key, f.latin1(args, 2, 'value'), maps.contentTypeAt(args, 3), now);
          wanEvents.mirror(pid, mapName, key, args[4], false);
          // What the owner evicted after this put.
          const evicted = args[5];
          if (Array.isArray(evicted)) for (let i = 0; i < evicted.length; i++) store.remove(f.str(evicted, i, 'evicted key'), now);
          return;
        }
        case 'remove': {
          const key = f.str(args, 1, 'key');
          maps.containers.get(mapName)?.stores[pid]?.remove(key, now);
          wanEvents.mirror(pid, mapName, key, args[2], true);
          return;
        }
        case 'entry':
          applyEntryBackup(maps, pid, args, (key, seqs, removed) => wanEvents.mirror(pid, mapName, key, seqs, removed));
          return;
        case 'entries':
          applyEntriesBackup(maps, pid, args, (name, key, seqs, removed) => wanEvents.mirror(pid, name, key, seqs, removed));
          return;
        case 'evict': {
          const store = maps.containers.get(mapName)?.stores[pid];
          const keys = f.arr(args, 1, 'evicted keys');
          if (store !== undefined) for (let i = 0; i < keys.length; i++) store.remove(f.str(keys, i, 'evicted key'), now);
          return;
        }
        case 'clear': {
          const removed = args[1];
          if (Array.isArray(removed)) {
            for (let i = 0; i + 1 < removed.length; i += 2) wanEvents.mirror(pid, mapName, f.str(removed, i, 'key'), removed[i + 1], true);
          }
          maps.containers.get(mapName)?.stores[pid]?.clear();
          return;
        }
        case 'wan': {
          merge.applyWanBackup(pid, mapName, f.arr(args, 1, 'wan entries'));
          return;
        }
        case 'merged': {
          const store = maps.container(mapName).store(pid);
          const flat = f.arr(args, 1, 'entries');
          forEachMergeEntry(flat, (key, e) => store.putMerged(key, e), (i) => maps.contentTypeAt(flat, i));
          return;
        }
      }
      throw new GridError('BAD_REQUEST', `unknown map backup ${type}`);
    },
  };
}
