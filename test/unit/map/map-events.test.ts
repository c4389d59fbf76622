// Change events at the partition owner (map-events.ts) through a real MapService: one event per
// change with its type, values and per-(map, partition) sequence; nothing on backups, migration
// copies, or for maps nobody listens to; sequences handed over with a migration, a new epoch on
// promotion.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { MapService, type MapChangeEvent } from '../../../src/map/map-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { Latin1 } from '../../../src/protocol/codec.js';
import { captureLogs, RecordingInvoker } from '../core/fakes.js';

function setup(raw: unknown = {}, owned: (pid: number) => boolean = () => true) {
  const clock = new ManualClock();
  const logs = captureLogs('ALL');
  const table = { version: 7 };
  const ownedNow = { fn: owned };
  const svc = new MapService({ config: configFromObject(raw).config, invoker: new RecordingInvoker(), clock, logger: logs.control.logger, isOwner: (pid) => ownedNow.fn(pid) });
  const events: MapChangeEvent[] = [];
  svc.events.attach({ publish: (e) => events.push(e), tableVersion: () => table.version });
  return { svc, clock, events, table, ownedNow };
}

const brief = (e: MapChangeEvent) => [e.type, e.key, e.oldValue?.value, e.newValue?.value, e.sequence];

describe('map change events at the owner', () => {
  it('put, overwrite, remove, clear: added, updated, removed, cleared with values and sequences', async () => {
    const { svc, events } = setup();
    svc.events.setListened(new Set(['m']));
    await svc.put('m', 'k', 'v1', 'text/plain');
    await svc.put('m', 'k', 'v2', undefined);
    await svc.remove('m', 'k');
    await svc.remove('m', 'k'); // nothing to remove: no event
    const pid = partitionIdOf('k');
    expect(events.map(brief)).toEqual([
      ['added', 'k', undefined, 'v1', 1],
      ['updated', 'k', 'v1', 'v2', 2],
      ['removed', 'k', 'v2', undefined, 3],
    ]);
    expect(events[0]).toMatchObject({ mapName: 'm', partitionId: pid, epoch: 7, count: 1, newValue: { contentType: 'text/plain' } });
    await svc.put('m', 'a', '1', undefined);
    await svc.put('m', 'b', '2', undefined);
    events.length = 0;
    await svc.clear('m');
    // One event per partition that held entries.
    const cleared = events.filter((e) => e.type === 'cleared');
    expect(cleared.map((e) => [e.partitionId, e.key, e.count]).sort()).toEqual(
      (partitionIdOf('a') === partitionIdOf('b') ? [[partitionIdOf('a'), undefined, 2]] : [[partitionIdOf('a'), undefined, 1], [partitionIdOf('b'), undefined, 1]]).sort(),
    );
  });

  it('maps nobody listens to make no event and carry no watcher; unlistening stops them', async () => {
    const { svc, events } = setup();
    await svc.put('quiet', 'k', 'v', undefined);
    svc.events.setListened(new Set(['loud']));
    await svc.put('quiet', 'k', 'v2', undefined);
    await svc.put('loud', 'k', 'v', undefined);
    expect(events.map((e) => e.mapName)).toEqual(['loud']);
    svc.events.setListened(new Set());
    await svc.put('loud', 'k', 'v3', undefined);
    expect(events).toHaveLength(1);
    // Listened again: the existing stores are watched again and the sequence goes on.
    svc.events.setListened(new Set(['loud']));
    await svc.put('loud', 'k', 'v4', undefined);
    expect(events.map(brief)[1]).toEqual(['updated', 'k', 'v3', 'v4', 2]);
  });

  it('expired (sweeper and read) and evicted entries are told so, with the value they had', async () => {
    const { svc, events, clock } = setup({ map: { 'ttl*': { 'time-to-live-seconds': 1 }, 'small*': { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_PARTITION', size: 1 } } } });
    svc.events.setListened(new Set(['ttl1', 'small1']));
    await svc.put('ttl1', 'a', 'x', undefined);
    await svc.put('ttl1', 'b', 'y', undefined);
    clock.advance(1500);
    expect(await svc.get('ttl1', 'a')).toBeUndefined();
    svc.sweepSome();
    expect(events.filter((e) => e.type === 'expired').map((e) => [e.key, e.oldValue?.value]).sort()).toEqual([
      ['a', 'x'],
      ['b', 'y'],
    ]);
    // Two keys of one partition in a map of one entry per partition: the first is evicted.
    const k1 = 'e0';
    let k2 = 'e1';
    for (let i = 1; partitionIdOf(k2) !== partitionIdOf(k1); i++) k2 = `e${i}`;
    await svc.put('small1', k1, 'v1', undefined);
    await svc.put('small1', k2, 'v2', undefined);
    expect(events.filter((e) => e.mapName === 'small1').map((e) => [e.type, e.key])).toEqual([
      ['added', k1],
      ['added', k2],
      ['evicted', k1],
    ]);
  });

  it('backups and migration copies make no event', async () => {
    const { svc, events } = setup({}, () => false);
    svc.events.setListened(new Set(['m']));
    const pid = partitionIdOf('k');
    svc.handler.applyBackup(pid, 'put', ['m', 'k', new Latin1('v'), null]);
    svc.handler.applyBackup(pid, 'remove', ['m', 'k']);
    svc.handler.applyBackup(pid, 'put', ['m', 'k2', new Latin1('v'), null]);
    svc.handler.applyBackup(pid, 'clear', ['m']);
    svc.replicaData.install(pid, ['m', ['k', new Latin1('v'), null, 0, 0]]);
    expect(events).toEqual([]);
  });

  it('a migration hands the sequence to the new owner; a promotion starts a new epoch', async () => {
    const a = setup();
    a.svc.events.setListened(new Set(['m']));
    await a.svc.put('m', 'k', 'v1', undefined);
    await a.svc.put('m', 'k', 'v2', undefined);
    const pid = partitionIdOf('k');
    // The new owner (b) gets the copy while it does not own the partition yet.
    const b = setup({}, () => false);
    b.svc.events.setListened(new Set(['m']));
    b.table.version = 9;
    b.svc.replicaData.install(pid, a.svc.replicaData.snapshot(pid, 0));
    b.svc.events.replicaData.install(pid, a.svc.events.replicaData.snapshot(pid, 0));
    expect(b.events).toEqual([]);
    b.ownedNow.fn = () => true;
    b.svc.events.replicaData.ownershipGained!(pid);
    await b.svc.put('m', 'k', 'v3', undefined);
    expect(b.events.map((e) => [e.epoch, e.sequence, e.type, e.oldValue?.value])).toEqual([[7, 3, 'updated', 'v2']]);
    // Backups get no terms; a backup promoted after the owner died starts at the table's version.
    expect(a.svc.events.replicaData.snapshot(pid, 1)).toBeUndefined();
    const c = setup({}, () => false);
    c.svc.events.setListened(new Set(['m']));
    c.svc.replicaData.install(pid, a.svc.replicaData.snapshot(pid, 1));
    c.svc.events.replicaData.install(pid, a.svc.events.replicaData.snapshot(pid, 1));
    c.table.version = 12;
    c.ownedNow.fn = () => true;
    c.svc.events.replicaData.ownershipGained!(pid);
    await c.svc.put('m', 'k', 'v4', undefined);
    expect(c.events.map((e) => [e.epoch, e.sequence])).toEqual([[12, 1]]);
    // The old owner forgets its term when the partition leaves.
    a.svc.events.replicaData.ownershipLost(pid);
    expect(a.svc.events.termOf('m', pid)).toBeUndefined();
  });
});
