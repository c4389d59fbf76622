// The conditional update: its rules in the record store (every condition against a present,
// absent and expired entry; versions; per-entry TTL and max-idle, a plain store switching to
// keep expiry), and the operation around it: backups that get the entry as the owner left it
// (applied twice or late: no harm), and a retried operation answered from its first run on the
// owner or on the backup promoted in its place. The persisted-entry codec keeps versions and
// reads entries written before them.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { BackupSpec, Invoker, Operation } from '../../../src/invocation/invoker.js';
import { decodePersistedEntry, encodePersistedEntry, MapService, type MapUpdate } from '../../../src/map/map-service.js';
import { RecordStore, type UpdateRequest } from '../../../src/map/record-store.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { captureLogs } from '../core/fakes.js';

const T0 = 1_700_000_000_000;
const put = (value: string, condition: UpdateRequest['condition'] = { kind: 'none' }, ttlMs = -1, maxIdleMs = -1): UpdateRequest => ({ action: 'put', condition, value, contentType: 'text/plain', ttlMs, maxIdleMs });
const remove = (condition: UpdateRequest['condition'] = { kind: 'none' }): UpdateRequest => ({ action: 'remove', condition, ttlMs: -1, maxIdleMs: -1 });

describe('RecordStore.update', () => {
  it('each condition against an absent, a present and an expired entry; versions count updates', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    expect(s.update('k', put('a', { kind: 'present' }), T0)).toEqual({ applied: false, old: undefined, version: -1 });
    expect(s.update('k', put('a', { kind: 'version', version: 0 }), T0).applied).toBe(false);
    expect(s.update('k', put('a', { kind: 'value', value: 'a', contentType: 'text/plain' }), T0).applied).toBe(false);
    expect(s.update('k', put('a', { kind: 'absent' }), T0)).toEqual({ applied: true, old: undefined, version: 0 });
    expect(s.update('k', put('b', { kind: 'absent' }), T0)).toMatchObject({ applied: false, old: { value: 'a', version: 0 }, version: 0 });
    expect(s.update('k', put('b', { kind: 'version', version: 1 }), T0).applied).toBe(false);
    expect(s.update('k', put('b', { kind: 'version', version: 0 }), T0)).toMatchObject({ applied: true, old: { value: 'a' }, version: 1 });
    // Value conditions compare the bytes and the content type.
    expect(s.update('k', put('c', { kind: 'value', value: 'b', contentType: 'text/other' }), T0).applied).toBe(false);
    expect(s.update('k', put('c', { kind: 'value', value: 'a', contentType: 'text/plain' }), T0).applied).toBe(false);
    expect(s.update('k', put('a much longer value', { kind: 'value', value: 'b', contentType: 'text/plain' }), T0)).toMatchObject({ applied: true, version: 2 });
    expect(s.update('k', put('d', { kind: 'present' }), T0)).toMatchObject({ applied: true, old: { value: 'a much longer value', version: 2 }, version: 3 });
    expect(s.get('k', T0)).toEqual({ value: 'd', contentType: 'text/plain', version: 3 });
    // Removes: failed conditions change nothing; a remove of nothing is not applied.
    expect(s.update('k', remove({ kind: 'version', version: 2 }), T0).applied).toBe(false);
    expect(s.update('k', remove({ kind: 'value', value: 'x', contentType: 'text/plain' }), T0).applied).toBe(false);
    expect(s.update('k', remove({ kind: 'version', version: 3 }), T0)).toMatchObject({ applied: true, old: { value: 'd', version: 3 }, version: -1 });
    expect(s.update('k', remove(), T0)).toEqual({ applied: false, old: undefined, version: -1 });
    expect(s.size).toBe(0);
    // Re-created: version 0 again.
    expect(s.update('k', put('e'), T0).version).toBe(0);
    // An expired entry is absent for every condition (and removed on the way).
    s.update('t', put('v', { kind: 'none' }, 100), T0);
    expect(s.update('t', put('w', { kind: 'present' }), T0 + 100)).toEqual({ applied: false, old: undefined, version: -1 });
    expect(s.update('t', put('w', { kind: 'absent' }), T0 + 100)).toEqual({ applied: true, old: undefined, version: 0 });
  });

  it('per-entry TTL and max-idle: -1 the map default, 0 none; a plain store switches to keeping expiry and keeps what it held', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    for (let i = 0; i < 200; i++) s.put(`p${i}`, `v${i}`, undefined, T0);
    s.put('p7', 'v7 again', undefined, T0);
    expect(s.mayExpire).toBe(false);
    expect(s.usesClock).toBe(false);
    s.update('ttl', put('v', { kind: 'none' }, 1000), T0);
    expect(s.mayExpire).toBe(true);
    expect(s.usesClock).toBe(true);
    // The entries from before the switch: same values, versions, no expiry.
    expect(s.get('p7', T0 + 10 ** 9)).toMatchObject({ value: 'v7 again', version: 1 });
    expect(s.get('p8', T0 + 10 ** 9)).toMatchObject({ value: 'v8', version: 0 });
    expect(s.get('ttl', T0 + 999)?.value).toBe('v');
    expect(s.get('ttl', T0 + 1000)).toBeUndefined();
    // Max-idle per entry: a read pushes it on.
    s.update('idle', put('v', { kind: 'none' }, 0, 500), T0);
    expect(s.get('idle', T0 + 400)?.value).toBe('v');
    expect(s.get('idle', T0 + 899)?.value).toBe('v');
    expect(s.get('idle', T0 + 1399)).toBeUndefined();
    // TTL change (setTtl): on a live entry only; the value stays, the version goes up by 1 and
    // the last update is now (as on Hazelcast); -1 is the map's (none here).
    s.put('x', 'v', undefined, T0);
    expect(s.update('x', { action: 'ttl', condition: { kind: 'present' }, ttlMs: 300, maxIdleMs: -1 }, T0 + 5)).toMatchObject({ applied: true, version: 1 });
    expect(s.mergeView('x', T0 + 5)).toMatchObject({ value: 'v', expiresAt: T0 + 305, lastUpdateTime: T0 + 5, version: 1 });
    expect(s.update('x', { action: 'ttl', condition: { kind: 'present' }, ttlMs: -1, maxIdleMs: -1 }, T0 + 6)).toMatchObject({ applied: true, version: 2 });
    expect(s.mergeView('x', T0 + 10 ** 6)).toMatchObject({ expiresAt: 0, version: 2 });
    expect(s.update('nope', { action: 'ttl', condition: { kind: 'present' }, ttlMs: 300, maxIdleMs: -1 }, T0).applied).toBe(false);
    // The sweeper reclaims them now.
    s.update('gone', put('v', { kind: 'none' }, 10), T0);
    expect(s.sweep(T0 + 10)).toBe(1);
  });

  it('setTtl 0 on a store that keeps no expiry: the version goes up, the store stays plain', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    s.put('k', 'v', undefined, T0);
    expect(s.usesClock).toBe(false);
    expect(s.update('k', { action: 'ttl', condition: { kind: 'present' }, ttlMs: 0, maxIdleMs: -1 }, T0)).toMatchObject({ applied: true, version: 1 });
    expect(s.usesClock).toBe(false);
    expect(s.get('k', T0 + 10 ** 9)).toMatchObject({ value: 'v', version: 1 });
  });

  it('a map with a default TTL: -1 takes it, 0 is forever, > 0 its own', () => {
    const s = new RecordStore({ ttlMs: 1000, maxIdleMs: 0 });
    s.put('d', 'v', undefined, T0);
    s.put('z', 'v', undefined, T0, 0);
    s.put('o', 'v', undefined, T0, 5000);
    expect([s.get('d', T0 + 1000), s.get('z', T0 + 10 ** 9)?.value, s.get('o', T0 + 4999)?.value, s.get('o', T0 + 5000)]).toEqual([undefined, 'v', 'v', undefined]);
  });
});

describe('versions of merged entries', () => {
  it('a merge or WAN winner continues the receiving store\'s version line; an exact copy (migration, backup) keeps its version', () => {
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    const e = { value: 'w', contentType: undefined, expiresAt: 0, lastAccessAt: 0, creationTime: 0, lastUpdateTime: 0, hits: 0, version: 41 };
    s.putWinner('new', e, T0);
    expect(s.mergeView('new', T0)?.version).toBe(0);
    s.put('k', 'a', undefined, T0);
    s.put('k', 'b', undefined, T0);
    s.putWinner('k', e, T0);
    expect(s.mergeView('k', T0)).toMatchObject({ value: 'w', version: 2 });
    s.putMerged('copy', e);
    expect(s.mergeView('copy', T0)?.version).toBe(41);
  });
});

/** Runs operations here (the owner) and hands their backups to `backups`; `lose` drops the next backup. */
class OwnerInvoker implements Invoker {
  backups: MapService[] = [];
  sent: BackupSpec[] = [];
  invoke<T>(pid: number, op: Operation<T>): Promise<T> {
    const r = op.run() as T;
    const spec = op.backup?.(r);
    if (spec !== undefined) {
      this.sent.push(spec);
      const args = decodeValue(encodeValue(spec.args as WireValue[])) as WireValue[];
      for (const b of this.backups) b.handler.applyBackup(pid, spec.type, args);
    }
    return Promise.resolve(r);
  }
}

function member(clock: ManualClock, invoker: Invoker = new OwnerInvoker()): MapService {
  return new MapService({ config: configFromObject({}).config, invoker, clock, logger: captureLogs().control.logger });
}

describe('the update operation', () => {
  const caller = { alive: () => true, onGone: () => undefined };
  const u = (value: string, kind: 'none' | 'absent' = 'absent', ttlMs = -1): MapUpdate => ({ action: 'put', condition: { kind }, value, contentType: undefined, ttlMs, maxIdleMs: -1, returnOld: true });

  it('backups hold the entry as the owner left it (version, absolute expiry); applying it twice or a failed condition changes nothing', async () => {
    const clock = new ManualClock(T0);
    const inv = new OwnerInvoker();
    const owner = member(clock, inv);
    const backup = member(clock);
    inv.backups = [backup];
    await owner.update('m', 'k', u('a', 'none', 5000));
    clock.advance(1000);
    await owner.update('m', 'k', u('b', 'none', 5000));
    expect(inv.sent).toHaveLength(2);
    expect(await owner.update('m', 'k', u('c'))).toMatchObject({ applied: false, old: { value: 'b', version: 1 } });
    expect(inv.sent).toHaveLength(2); // nothing to back up
    const pid = partitionIdOf('k');
    // The last backup again (a resend after a broken connection): the same state.
    backup.handler.applyBackup(pid, 'entry', decodeValue(encodeValue(inv.sent[1]!.args as WireValue[])) as WireValue[]);
    expect(await backup.entryView('m', 'k')).toMatchObject({ value: 'b', version: 1, expiresAt: T0 + 6000 });
    expect(await backup.entryView('m', 'k')).toEqual(await owner.entryView('m', 'k'));
    await owner.update('m', 'k', { action: 'remove', condition: { kind: 'none' }, ttlMs: -1, maxIdleMs: -1, returnOld: false });
    expect(await backup.get('m', 'k')).toBeUndefined();
    // A late copy of the removal again: still removed, nothing else touched.
    backup.handler.applyBackup(pid, 'entry', decodeValue(encodeValue(inv.sent[2]!.args as WireValue[])) as WireValue[]);
    expect(await backup.get('m', 'k')).toBeUndefined();
  });

  it('a retried operation gets its first answer, on the owner and on a promoted backup, and is not applied twice', async () => {
    const clock = new ManualClock(T0);
    const inv = new OwnerInvoker();
    const owner = member(clock, inv);
    const backup = member(clock);
    inv.backups = [backup];
    const pid = partitionIdOf('k');
    // The operation as it travels: rebuilt from its wire arguments, as a remote owner does.
    const first = owner.handler.operation(pid, 'update', ['m', 'k', 'op-1', 0, 1, null, null, -1, new Latin1('mine'), null, -1, -1, true], caller);
    const args = first.args as WireValue[];
    const r1 = await inv.invoke(pid, first);
    expect(r1).toMatchObject({ applied: true, old: undefined, version: 0 });
    // Its retry on the owner: the same answer (not "present"), no second backup.
    const again = owner.handler.operation(pid, 'update', args, caller);
    expect(await inv.invoke(pid, again)).toEqual(r1);
    expect(inv.sent).toHaveLength(1);
    // Someone else writes; then the retry reaches the backup, promoted: still the first answer, the value stays.
    await owner.update('m', 'k', u('theirs', 'none'));
    const promoted = backup.handler.operation(pid, 'update', args, caller);
    expect(owner.handler.decodeResult('update', decodeValue(encodeValue(owner.handler.encodeResult('update', promoted.run()))))).toMatchObject({ applied: true, old: undefined, version: 0 });
    expect(await backup.get('m', 'k')).toMatchObject({ value: 'theirs', version: 1 });
    // A different operation id runs for real.
    const other = backup.handler.operation(pid, 'update', ['m', 'k', 'op-2', 0, 1, null, null, -1, new Latin1('mine'), null, -1, -1, true], caller);
    expect(other.run()).toMatchObject({ applied: false, old: { value: 'theirs' } });
    // Malformed arguments are refused before anything is applied.
    expect(() => backup.handler.operation(pid, 'update', ['m', 'k', 'op-3', 9, 1, null, null, -1, new Latin1('x'), null, -1, -1, true], caller)).toThrow(/unknown action/);
  });

  it('an entry view crosses the wire', async () => {
    const clock = new ManualClock(T0);
    const s = member(clock);
    await s.update('m', 'k', u('v', 'none', 2000));
    const pid = partitionIdOf('k');
    const view = s.handler.operation(pid, 'entryView', ['m', 'k'], caller).run();
    expect(s.handler.decodeResult('entryView', decodeValue(encodeValue(s.handler.encodeResult('entryView', view))))).toMatchObject({ value: 'v', version: 0, expiresAt: T0 + 2000 });
    expect(s.handler.decodeResult('entryView', decodeValue(encodeValue(s.handler.encodeResult('entryView', undefined))))).toBeUndefined();
  });
});

describe('the persisted entry', () => {
  it('keeps the version and max-idle; an entry written before versions reads as version 0', () => {
    const e = { value: 'v\u00ff', contentType: 'text/plain', expiresAt: T0, lastAccessAt: 2, creationTime: 3, lastUpdateTime: 4, hits: 5, version: 77, maxIdleMs: 600 };
    expect(decodePersistedEntry(encodePersistedEntry(e))).toEqual(e);
    expect(decodePersistedEntry(encodePersistedEntry({ value: '', contentType: undefined }))).toMatchObject({ value: '', contentType: undefined, version: 0 });
    // The layout before versions: 5 f64, u16 content type length, content type, value.
    const legacy = Buffer.alloc(42 + 10 + 2);
    legacy.writeDoubleLE(T0, 0);
    legacy.writeUInt16LE(10, 40);
    legacy.write('text/plain', 42, 'latin1');
    legacy.write('hi', 52, 'latin1');
    const old = decodePersistedEntry(legacy);
    expect(old).toMatchObject({ value: 'hi', contentType: 'text/plain', expiresAt: T0 });
    expect(old.version).toBeUndefined();
    const s = new RecordStore({ ttlMs: 0, maxIdleMs: 0 });
    s.putMerged('k', old);
    expect(s.mergeView('k', T0 - 1)).toMatchObject({ value: 'hi', version: 0, expiresAt: T0 });
    expect(() => decodePersistedEntry(Buffer.alloc(10))).toThrow(/too short/);
  });
});
