// The owner-side conditional update of one entry (put, remove or TTL change under a condition:
// absent, present, value equals, version equals), decided and applied in one operation on the
// partition's owner, so no other write comes between the check and the write. Backups get the
// entry as the owner left it (applying that twice does no harm), and the result is remembered
// by operation id on the owner and its backups: a retried operation (its answer was lost, or
// the owner died after backing it up) gets the first attempt's answer instead of running again.

import { randomBytes } from 'node:crypto';
import { GridError } from '../core/errors.js';
import type { BackupSpec, Operation } from '../invocation/invoker.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { evictAfterPut } from './map-eviction.js';
import { forEachMergeEntry, pushMergeEntry } from './map-merge.js';
import type { MapOperations } from './map-operations.js';
import type { MapRegistry } from './map-registry.js';
import { wanPutEvent } from './map-wan.js';
import { FULL_STRIDE, type StoredValue, type UpdateCondition, type UpdateRequest, type UpdateResult } from './record-store.js';

/** An update as its caller asks for it. */
export interface MapUpdate extends UpdateRequest {
  /** Whether the answer carries the old value (a version and presence always come back). */
  readonly returnOld: boolean;
}

/** This process's prefix of operation ids (random: ids of a restarted member never repeat an earlier run's). */
const OP_ID_PREFIX = randomBytes(6).toString('hex');
let nextOpId = 0;

/** A new operation id (unique across this process's life and across restarts). */
export function newOpId(): string {
  return `${OP_ID_PREFIX}:${(nextOpId++).toString(36)}`;
}

const CONDITIONS = ['none', 'absent', 'present', 'value', 'version'] as const;
const ACTIONS = ['put', 'remove', 'ttl'] as const;

/** The update's arguments on the wire: [map, key, opId, action, condition kind, condition value, condition content type, condition version, value, content type, ttlMs, maxIdleMs, returnOld]. */
export function updateArgs(mapName: string, key: string, opId: string, u: MapUpdate): WireValue[] {
  const c = u.condition;
  return [
    mapName,
    key,
    opId,
    ACTIONS.indexOf(u.action),
    CONDITIONS.indexOf(c.kind),
    c.kind === 'value' ? new Latin1(c.value) : null,
    c.kind === 'value' ? (c.contentType ?? null) : null,
    c.kind === 'version' ? c.version : -1,
    u.value === undefined ? null : new Latin1(u.value),
    u.contentType ?? null,
    u.ttlMs,
    u.maxIdleMs,
    u.returnOld,
  ];
}

/** The update an operation's wire arguments describe (a malformed one is refused before anything is applied). */
export function decodeUpdate(maps: MapRegistry, args: readonly WireValue[]): { key: string; opId: string; update: MapUpdate } {
  const action = ACTIONS[f.int(args, 3, 'action')];
  const kind = CONDITIONS[f.int(args, 4, 'condition')];
  if (action === undefined || kind === undefined) throw new GridError('BAD_REQUEST', 'malformed map update: unknown action or condition');
  let condition: UpdateCondition;
  if (kind === 'value') condition = { kind, value: f.latin1(args, 5, 'condition value'), contentType: maps.contentTypeAt(args, 6) };
  else if (kind === 'version') condition = { kind, version: f.num(args, 7, 'condition version') };
  else condition = { kind };
  const value = action === 'put' ? f.latin1(args, 8, 'value') : undefined;
  return {
    key: f.str(args, 1, 'key'),
    opId: f.str(args, 2, 'operation id'),
    update: {
      action,
      condition,
      ...(value === undefined ? {} : { value, contentType: maps.contentTypeAt(args, 9) }),
      ttlMs: f.num(args, 10, 'ttl'),
      maxIdleMs: f.num(args, 11, 'max-idle'),
      returnOld: f.bool(args, 12, 'returnOld'),
    },
  };
}

/** [applied, old value | null, old content type | null, old version (-1: none), version after]. */
export function encodeUpdateResult(r: UpdateResult, returnOld: boolean): WireValue {
  const old = r.old;
  return [r.applied, old !== undefined && returnOld ? new Latin1(old.value) : null, old?.contentType ?? null, old?.version ?? -1, r.version];
}

export function decodeUpdateResult(w: WireValue): UpdateResult {
  const t = f.tuple(w, 'map update result');
  const oldVersion = f.num(t, 3, 'old version');
  const value = t[1] === null ? undefined : f.latin1(t, 1, 'old value');
  const old: StoredValue | undefined = oldVersion < 0 ? undefined : { value: value ?? '', contentType: f.optStr(t, 2, 'old content type'), version: oldVersion };
  return { applied: f.bool(t, 0, 'applied'), old, version: f.num(t, 4, 'version') };
}

class MapUpdateOp implements Operation<UpdateResult> {
  readonly name = 'map.update';
  readonly service = 'map';
  readonly type = 'update';
  readonly mutating = true;
  private wanSeqs: WireValue | undefined;
  private evicted: string[] | undefined;
  /** What the backups apply: the entry as left here (undefined: nothing changed; null: removed). */
  private after: WireValue[] | null | undefined;
  private wire: WireValue | undefined;

  constructor(
    private readonly ops: MapOperations,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly key: string,
    private readonly opId: string,
    private readonly u: MapUpdate,
    readonly args: readonly WireValue[],
  ) {}

  run(): UpdateResult {
    const ops = this.ops;
    const maps = ops.maps;
    const { mapName, key, pid, u } = this;
    this.after = undefined;
    // A retry of an update that ran here (or on the backup that is owner now): its first answer.
    const seen = maps.recentUpdates.get(this.opId);
    if (seen !== undefined) return decodeUpdateResult(seen);
    ops.protection.guardOwner(mapName, 'WRITE');
    const c = maps.container(mapName);
    const gate = maps.deps.gate;
    let makeRoom = false;
    if (u.action === 'put' && gate !== undefined && gate.refusing()) {
      if (!c.eviction.enabled) gate.check(`the put to map "${mapName}"`);
      makeRoom = true;
    }
    const store = c.store(pid);
    const now = maps.deps.clock.now();
    const wan = c.publishes ? maps.wan : undefined;
    const tickets = wan?.admit(mapName, pid);
    let r: UpdateResult;
    try {
      r = store.update(key, u, now);
    } catch (e) {
      if (tickets !== undefined) wan?.cancel(tickets);
      throw e;
    }
    if (u.action === 'remove') c.counters.removes++;
    else c.counters.puts++;
    if (!r.applied) {
      if (tickets !== undefined) wan?.cancel(tickets);
    } else {
      const e = store.mergeView(key, now);
      if (e === undefined) this.after = null;
      else {
        const entry: WireValue[] = [FULL_STRIDE];
        pushMergeEntry(entry, key, e);
        this.after = entry;
      }
      if (tickets !== undefined && wan !== undefined) {
        this.wanSeqs = wan.commit(tickets, pid, e === undefined ? { kind: 'remove', mapName, key, originClusters: [] } : wanPutEvent(store, mapName, key, now, []));
      }
      if (u.action === 'put' && c.eviction.enabled) {
        const ev = evictAfterPut(c.eviction, c.stores, store, key, u.value ?? '', now, makeRoom);
        if (ev !== undefined) {
          c.counters.evictions += ev.length;
          this.evicted = ev;
        }
      }
    }
    this.wire = encodeUpdateResult(r, u.returnOld);
    maps.recentUpdates.set(this.opId, this.wire);
    return r;
  }

  backup(): BackupSpec | undefined {
    // Nothing changed (a failed condition, or an answer remembered from before): the backups have nothing to apply.
    if (this.after === undefined) return undefined;
    return this.ops.maps.backupOf(this.mapName, 'entry', [this.mapName, this.key, this.after, this.wanSeqs ?? null, this.evicted ?? null, this.opId, this.wire ?? null]);
  }
}

/** The owner's operation of an update; `opId` names it across retries (a new one when not given). */
export function updateOp(ops: MapOperations, pid: number, mapName: string, key: string, u: MapUpdate, opId: string = newOpId()): Operation<UpdateResult> {
  return new MapUpdateOp(ops, pid, mapName, key, opId, u, updateArgs(mapName, key, opId, u));
}

/** A backup applies the entry as the owner left it (twice is harmless) and remembers the answer for a retry that finds it owner. */
export function applyEntryBackup(maps: MapRegistry, pid: number, args: readonly WireValue[], mirror: (key: string, seqs: WireValue | undefined, removed: boolean) => void): void {
  const mapName = f.str(args, 0, 'map name');
  const key = f.str(args, 1, 'key');
  const entry = args[2];
  const now = maps.deps.clock.now();
  if (entry === null || entry === undefined) {
    maps.containers.get(mapName)?.stores[pid]?.remove(key, now);
  } else {
    const store = maps.container(mapName).store(pid);
    const flat = f.arr(args, 2, 'entry');
    forEachMergeEntry(flat, (k, e) => store.putMerged(k, e), (i) => maps.contentTypeAt(flat, i));
  }
  mirror(key, args[3] ?? undefined, entry === null);
  const evicted = args[4];
  if (Array.isArray(evicted)) {
    const store = maps.containers.get(mapName)?.stores[pid];
    if (store !== undefined) for (let i = 0; i < evicted.length; i++) store.remove(f.str(evicted, i, 'evicted key'), now);
  }
  const result = args[6];
  if (result !== undefined && result !== null) maps.recentUpdates.set(f.str(args, 5, 'operation id'), result);
}
