// A map batch on the owner: one operation per partition, writes before gets, every entry
// answering for itself; its backup one message per partition that leaves the replica as the
// owner; the operation rebuilt from its wire form and run again (a group sent twice, or retried
// on the promoted backup) answers as the first time and applies no write twice; a malformed
// part is refused before any entry runs.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import type { WriteGate } from '../../../src/core/memory-guard.js';
import type { BackupSpec, Invoker, Operation } from '../../../src/invocation/invoker.js';
import type { GroupItem, GroupOutcome } from '../../../src/invocation/operation-groups.js';
import { MapService, type MapBatchEntry, type MapBatchOutcome } from '../../../src/map/map-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { captureLogs } from '../core/fakes.js';

const T0 = 1_700_000_000_000;
const caller = { alive: () => true, onGone: () => undefined };
const wire = (v: readonly WireValue[]): WireValue[] => decodeValue(encodeValue(v as WireValue[])) as WireValue[];

/**
 * The owner's invoker, grouped: each item travels as it would to a remote owner (its wire
 * arguments rebuilt into an operation by the handler, its result encoded and decoded), and
 * each backup is handed to `backups` through the wire too.
 */
class GroupingInvoker implements Invoker {
  owner!: MapService;
  backups: MapService[] = [];
  sent: { pid: number; spec: BackupSpec }[] = [];
  groups = 0;
  /** What each part operation sent: its partition and wire arguments. */
  parts: { pid: number; args: WireValue[] }[] = [];

  invoke<T>(pid: number, op: Operation<T>): Promise<T> {
    return Promise.resolve(this.runHere(pid, op));
  }

  private runHere<T>(pid: number, op: Operation<T>): T {
    const r = op.run() as T;
    const spec = op.backup?.(r);
    if (spec !== undefined) {
      this.sent.push({ pid, spec });
      for (const b of this.backups) b.handler.applyBackup(pid, spec.type, wire(spec.args));
    }
    return r;
  }

  invokeGroup<T>(items: readonly GroupItem<T>[]): Promise<GroupOutcome<T>[]> {
    this.groups++;
    return Promise.resolve(
      items.map((it): GroupOutcome<T> => {
        const args = wire(it.op.args ?? []);
        this.parts.push({ pid: it.partitionId, args });
        const remote = this.owner.handler.operation(it.partitionId, it.op.type!, args, caller);
        const answer = this.owner.handler.encodeResult(it.op.type!, this.runHere(it.partitionId, remote));
        return { ok: true, value: this.owner.handler.decodeResult(it.op.type!, decodeValue(encodeValue(answer))) as T };
      }),
    );
  }
}

function member(clock: ManualClock, invoker: Invoker, writeGate?: WriteGate): MapService {
  return new MapService({ config: configFromObject({}).config, invoker, clock, logger: captureLogs().control.logger, ...(writeGate === undefined ? {} : { writeGate }) });
}

function cluster(writeGate?: WriteGate): { clock: ManualClock; inv: GroupingInvoker; owner: MapService; backup: MapService } {
  const clock = new ManualClock(T0);
  const inv = new GroupingInvoker();
  const owner = member(clock, inv, writeGate);
  const backup = member(clock, new GroupingInvoker());
  inv.owner = owner;
  inv.backups = [backup];
  return { clock, inv, owner, backup };
}

/** A short form of the outcomes: a get's value (null: absent), a write's [applied, had an old entry, version], an error's code. */
function brief(out: readonly MapBatchOutcome[]): unknown[] {
  return out.map((o) => {
    if ('error' in o) return (o.error as GridError).code;
    if ('update' in o) return [o.update.applied, o.update.old !== undefined, o.update.version];
    return o.value === undefined ? null : `${o.value.value}|${o.value.contentType ?? ''}|${o.value.version ?? ''}`;
  });
}

// Keys on one partition and on others (pinned by the partitioning tests' hash).
const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);

describe('a map batch on the owner', () => {
  it('one operation per partition in one group; writes run before gets; outcomes in the batch order', async () => {
    const { inv, owner, backup } = cluster();
    await owner.put('m', 'key-1', 'old', undefined);
    inv.sent = [];
    const entries: MapBatchEntry[] = [
      { kind: 'get', key: 'key-0' },
      { kind: 'put', key: 'key-0', value: 'v0', contentType: 'text/plain', ttlMs: -1 },
      { kind: 'put', key: 'key-1', value: 'v1', contentType: undefined, ttlMs: 60_000 },
      { kind: 'delete', key: 'key-2' },
      { kind: 'delete', key: 'key-1' },
      { kind: 'get', key: 'key-1' },
      ...keys.slice(3).map((key): MapBatchEntry => ({ kind: 'put', key, value: key, contentType: undefined, ttlMs: -1 })),
    ];
    // key-1 is both put and deleted: the route refuses that; here the later write wins in batch order.
    const out = await owner.batch('m', entries);
    expect(inv.groups).toBe(1);
    expect(inv.parts).toHaveLength(new Set(entries.map((e) => partitionIdOf(e.key))).size);
    expect(brief(out).slice(0, 6)).toEqual(['v0|text/plain|0', [true, false, 0], [true, true, 1], [false, false, -1], [true, true, -1], null]);
    // One backup per partition with writes, leaving the replica as the owner.
    expect(inv.sent.every((s) => s.spec.type === 'entries')).toBe(true);
    // (a delete of an absent key changed nothing: its partition sends no backup unless another write did)
    const changed = new Set(entries.filter((e, i) => { const o = out[i]!; return 'update' in o && o.update.applied; }).map((e) => partitionIdOf(e.key)));
    expect(inv.sent.map((s) => s.pid).sort()).toEqual([...changed].sort());
    for (const k of keys) expect(await backup.entryView('m', k), k).toEqual(await owner.entryView('m', k));
    expect(await owner.size('m')).toBe(keys.length - 3 + 1);
  });

  it('a part sent twice (or retried on the promoted backup) answers as the first time and applies no write twice', async () => {
    const { inv, owner, backup } = cluster();
    await owner.put('m', 'key-5', 'before', undefined);
    const first = await owner.batch('m', [
      { kind: 'put', key: 'key-4', value: 'a', contentType: undefined, ttlMs: -1 },
      { kind: 'put', key: 'key-5', value: 'b', contentType: undefined, ttlMs: -1 },
      { kind: 'delete', key: 'key-6' },
    ]);
    expect(brief(first)).toEqual([[true, false, 0], [true, true, 1], [false, false, -1]]);
    // Someone else writes key-4 after the batch: a late duplicate of the batch must not undo that.
    await owner.put('m', 'key-4', 'later', undefined);
    const pid4 = partitionIdOf('key-4');
    const part = inv.parts.find((p) => p.pid === pid4)!;
    for (const node of [owner, backup]) {
      const again = node.handler.operation(pid4, 'batch', part.args, caller);
      const r = again.run() as MapBatchOutcome[];
      expect(brief(r)).toEqual(brief(first).filter((_, i) => partitionIdOf(['key-4', 'key-5', 'key-6'][i]!) === pid4));
    }
    expect((await owner.get('m', 'key-4'))?.value).toBe('later');
    const pid5 = partitionIdOf('key-5');
    const again5 = backup.handler.operation(pid5, 'batch', inv.parts.find((p) => p.pid === pid5)!.args, caller).run() as MapBatchOutcome[];
    expect(brief(again5)[0]).toEqual([true, true, 1]);
    expect((await backup.entryView('m', 'key-5'))?.version).toBe(1);
  });

  it('each entry answers for itself: a refused put does not stop the deletes and gets around it', async () => {
    let refusing = false;
    const gate: WriteGate = {
      refusing: () => refusing,
      check: (what) => {
        throw new GridError('MEMORY_LIMIT', `${what} refused`);
      },
    };
    const { owner } = cluster(gate);
    await owner.put('m', 'key-7', 'x', undefined);
    refusing = true;
    const out = await owner.batch('m', [
      { kind: 'put', key: 'key-8', value: 'v', contentType: undefined, ttlMs: -1 },
      { kind: 'delete', key: 'key-7' },
      { kind: 'get', key: 'key-7' },
      { kind: 'get', key: 'key-8' },
    ]);
    expect(brief(out)).toEqual(['MEMORY_LIMIT', [true, true, -1], null, null]);
  });

  it('a malformed part is refused whole before any entry runs', () => {
    const { owner } = cluster();
    const pid = partitionIdOf('key-9');
    const good = [1, 'key-9', 'op-x', new Latin1('v'), null, -1];
    for (const bad of [[good, [7, 'k', 'op-y', null, null, -1]], [good, [2, 'k', null, null, null, -1]], [good, 'not a tuple'], [good, [1, 'k', 'op-z', 5, null, -1]]]) {
      expect(() => owner.handler.operation(pid, 'batch', ['m', bad as WireValue[]], caller), JSON.stringify(bad)).toThrow(GridError);
    }
    expect(owner.handler.operation(pid, 'batch', ['m', [good]], caller).mutating).toBe(true);
    expect(owner.handler.operation(pid, 'batch', ['m', [[0, 'key-9', null, null, null, -1]]], caller).mutating).toBe(false);
  });

  it('without a grouping invoker, each part is invoked alone with the same answers', async () => {
    const clock = new ManualClock(T0);
    const calls: number[] = [];
    const plain: Invoker = {
      invoke: <T>(pid: number, op: Operation<T>) => {
        calls.push(pid);
        return op.run() as T;
      },
    };
    const m = member(clock, plain);
    const out = await m.batch('m', [
      { kind: 'put', key: 'key-10', value: 'v', contentType: undefined, ttlMs: -1 },
      { kind: 'get', key: 'key-10' },
      { kind: 'get', key: 'key-11' },
    ]);
    expect(brief(out)).toEqual([[true, false, 0], 'v||0', null]);
    expect(calls.length).toBe(new Set(['key-10', 'key-11'].map(partitionIdOf)).size);
  });
});
