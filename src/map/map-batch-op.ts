// A map batch on the partition owners: the entries of one batch (gets, puts, deletes of one
// map) split by partition into one operation per partition, which the invoker sends grouped by
// owner (invocation/operation-groups.ts: one member message per owner). On the owner a
// partition's operation runs its writes first, each as the same conditional update a single
// write is (its own operation id, remembered on the owner and its backups, so a retried group
// applies each write at most once), then its gets, which see those writes; every entry answers
// for itself. Its backups travel as one message per partition per replica: the replicas'
// anti-entropy counts backups per partition, so that is as far as the backup path groups.

import { GridError, describeError, isGridError, isGridErrorCode } from '../core/errors.js';
import type { BackupSpec, Operation } from '../invocation/invoker.js';
import type { GroupItem } from '../invocation/operation-groups.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { MapOperations } from './map-operations.js';
import type { MapRegistry } from './map-registry.js';
import type { StoredValue, UpdateResult } from './record-store.js';
import { applyEntryBackup, newOpId, updateOp, type MapUpdate } from './map-update.js';
import { partitionIdOfKey } from './map-keys.js';

/** One entry of a batch as the facade takes it (checked by the caller: keys non-empty, no key written twice). */
export type MapBatchEntry =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'put'; readonly key: string; readonly value: string; readonly contentType: string | undefined; readonly ttlMs: number }
  | { readonly kind: 'delete'; readonly key: string };

/** What became of one entry: a get's value (undefined: absent), a write's update result, or its error. */
export type MapBatchOutcome = { readonly value: StoredValue | undefined } | { readonly update: UpdateResult } | { readonly error: unknown };

const KINDS = ['get', 'put', 'delete'] as const;

/** An entry as it travels: [kind index, key, opId | null, value | null, content type | null, ttlMs]. */
interface PartEntry {
  readonly kind: 'get' | 'put' | 'delete';
  readonly key: string;
  /** Writes: names the write across retries (a retried group finds its first answer). */
  readonly opId: string | undefined;
  readonly value: string | undefined;
  readonly contentType: string | undefined;
  readonly ttlMs: number;
}

function updateOf(e: PartEntry): MapUpdate {
  return e.kind === 'put'
    ? { action: 'put', condition: { kind: 'none' }, value: e.value ?? '', contentType: e.contentType, ttlMs: e.ttlMs, maxIdleMs: -1, returnOld: false }
    : { action: 'remove', condition: { kind: 'none' }, ttlMs: -1, maxIdleMs: -1, returnOld: false };
}

class MapBatchPart implements Operation<MapBatchOutcome[]> {
  readonly name = 'map.batch';
  readonly service = 'map';
  readonly type = 'batch';
  readonly mutating: boolean;
  private backups: WireValue[] = [];
  private wire: WireValue[] | undefined;

  constructor(
    private readonly ops: MapOperations,
    private readonly pid: number,
    private readonly mapName: string,
    private readonly entries: readonly PartEntry[],
  ) {
    this.mutating = entries.some((e) => e.kind !== 'get');
  }

  get args(): WireValue[] {
    return (this.wire ??= [this.mapName, this.entries.map((e) => [KINDS.indexOf(e.kind), e.key, e.opId ?? null, e.value === undefined ? null : new Latin1(e.value), e.contentType ?? null, e.ttlMs])]);
  }

  run(): MapBatchOutcome[] {
    const { ops, pid, mapName, entries } = this;
    const out: MapBatchOutcome[] = new Array<MapBatchOutcome>(entries.length);
    this.backups = [];
    // Writes first, in the batch's order: the gets after them see them (as the JSON batch promises).
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind === 'get') continue;
      try {
        const op = updateOp(ops, pid, mapName, e.key, updateOf(e), e.opId);
        const r = op.run() as UpdateResult;
        out[i] = { update: r };
        const b = op.backup?.(r);
        if (b !== undefined) this.backups.push(b.args as WireValue[]);
      } catch (error) {
        out[i] = { error };
      }
    }
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind !== 'get') continue;
      try {
        ops.protection.guardOwner(mapName, 'READ');
        out[i] = { value: ops.runGet(pid, mapName, e.key) };
      } catch (error) {
        out[i] = { error };
      }
    }
    return out;
  }

  backup(): BackupSpec | undefined {
    if (this.backups.length === 0) return undefined;
    return this.ops.maps.backupOf(this.mapName, 'entries', [this.mapName, this.backups]);
  }
}

/** The owner's operation of a batch part that came over the wire (a malformed one is refused whole, before anything runs). */
export function batchPartFromWire(ops: MapOperations, pid: number, args: readonly WireValue[]): Operation<MapBatchOutcome[]> {
  const mapName = f.str(args, 0, 'map name');
  const raw = f.arr(args, 1, 'batch entries');
  const entries: PartEntry[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = f.tuple(raw[i]!, `batch entry ${i}`);
    const kind = KINDS[f.int(t, 0, 'batch entry kind')];
    if (kind === undefined) throw new GridError('BAD_REQUEST', `batch entry ${i}: unknown kind`);
    const key = f.str(t, 1, 'batch entry key');
    if (kind === 'get') {
      entries.push({ kind, key, opId: undefined, value: undefined, contentType: undefined, ttlMs: -1 });
      continue;
    }
    const opId = f.str(t, 2, 'batch entry operation id');
    entries.push({ kind, key, opId, value: kind === 'put' ? f.latin1(t, 3, 'batch entry value') : undefined, contentType: kind === 'put' ? ops.maps.contentTypeAt(t, 4) : undefined, ttlMs: f.num(t, 5, 'batch entry ttl') });
  }
  return new MapBatchPart(ops, pid, mapName, entries);
}

/** Per entry: [0, value | null, content type | null, version (-1: none)] for a get, [0, applied, old version (-1: none), version] for a write, [1, code, message] for an error. */
export function encodeBatchResult(results: readonly MapBatchOutcome[]): WireValue {
  return results.map((r): WireValue => {
    if ('error' in r) {
      const e = r.error;
      return isGridError(e) ? [1, e.code, e.message] : [1, 'INTERNAL', describeError(e)];
    }
    if ('update' in r) return [0, r.update.applied, r.update.old?.version ?? -1, r.update.version];
    const v = r.value;
    return v === undefined ? [0, null, null, -1] : [0, new Latin1(v.value), v.contentType ?? null, v.version ?? -1];
  });
}

export function decodeBatchResult(w: WireValue, contentTypeAt: (t: readonly WireValue[], i: number) => string | undefined): MapBatchOutcome[] {
  const list = f.tuple(w, 'batch result');
  return list.map((item, i): MapBatchOutcome => {
    const t = f.tuple(item, `batch result ${i}`);
    if (t[0] === 1) {
      const code = t[1];
      return { error: new GridError(isGridErrorCode(code) ? code : 'INTERNAL', f.str(t, 2, 'batch error message')) };
    }
    if (typeof t[1] === 'boolean') {
      const oldVersion = f.num(t, 2, 'old version');
      return { update: { applied: t[1], old: oldVersion < 0 ? undefined : { value: '', contentType: undefined, version: oldVersion }, version: f.num(t, 3, 'version') } };
    }
    if (t[1] === null) return { value: undefined };
    const version = f.num(t, 3, 'version');
    const v: StoredValue = { value: f.latin1(t, 1, 'value'), contentType: contentTypeAt(t, 2) };
    return { value: version < 0 ? v : { ...v, version } };
  });
}

/** A backup of a batch part: each write's entry as its owner left it (map-update.ts's entry backup, one after the other). */
export function applyEntriesBackup(maps: MapRegistry, pid: number, args: readonly WireValue[], mirror: (mapName: string, key: string, seqs: WireValue | undefined, removed: boolean) => void): void {
  const list = f.arr(args, 1, 'batch backups');
  // Checked whole before the first is applied: a malformed backup changes nothing.
  const each = list.map((b, i) => f.tuple(b, `batch backup ${i}`));
  for (const b of each) {
    const mapName = f.str(b, 0, 'map name');
    applyEntryBackup(maps, pid, b, (key, seqs, removed) => mirror(mapName, key, seqs, removed));
  }
}

/**
 * The batch split into one operation per partition, with the entry indexes of each (in the
 * batch's order). Content types are interned by the caller; write entries get their ids here.
 */
export function batchParts(ops: MapOperations, mapName: string, entries: readonly MapBatchEntry[], indexes: readonly number[]): { items: GroupItem<MapBatchOutcome[]>[]; positions: number[][] } {
  const byPid = new Map<number, number[]>();
  for (const i of indexes) {
    const pid = partitionIdOfKey(entries[i]!.key);
    let list = byPid.get(pid);
    if (list === undefined) byPid.set(pid, (list = []));
    list.push(i);
  }
  const items: GroupItem<MapBatchOutcome[]>[] = [];
  const positions: number[][] = [];
  for (const [pid, idx] of byPid) {
    const part: PartEntry[] = idx.map((i) => {
      const e = entries[i]!;
      if (e.kind === 'get') return { kind: 'get', key: e.key, opId: undefined, value: undefined, contentType: undefined, ttlMs: -1 };
      if (e.kind === 'delete') return { kind: 'delete', key: e.key, opId: newOpId(), value: undefined, contentType: undefined, ttlMs: -1 };
      return { kind: 'put', key: e.key, opId: newOpId(), value: e.value, contentType: e.contentType === undefined ? undefined : ops.maps.intern(e.contentType), ttlMs: e.ttlMs };
    });
    items.push({ partitionId: pid, op: new MapBatchPart(ops, pid, mapName, part) });
    positions.push(idx);
  }
  return { items, positions };
}
