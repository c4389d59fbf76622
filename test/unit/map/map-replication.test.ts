// The map service's cluster side: partition data that moves between members, backup replay,
// and results across the wire.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { MapService } from '../../../src/map/map-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { captureLogs, RecordingInvoker } from '../core/fakes.js';

function service(raw: unknown = {}, clock = new ManualClock()): MapService {
  return new MapService({ config: configFromObject(raw).config, invoker: new RecordingInvoker(), clock, logger: captureLogs().control.logger });
}

const wire = (v: WireValue | undefined): WireValue | undefined => (v === undefined ? undefined : decodeValue(encodeValue(v)));

describe('MapService replication', () => {
  it('a partition snapshot installed elsewhere has every entry of every map, byte-exact, with content types', async () => {
    const a = service();
    const b = service();
    const key = 'k1';
    const pid = partitionIdOf(key);
    const bytes = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    await a.put('m1', key, bytes, 'application/octet-stream');
    await a.put('m2', key, 'v2', undefined);
    await a.put('m1', 'other-key-not-in-pid', 'x', undefined);
    b.replicaData.install(pid, wire(a.replicaData.snapshot(pid, 0)));
    expect(await b.get('m1', key)).toMatchObject({ value: bytes, contentType: 'application/octet-stream' });
    expect(await b.get('m2', key)).toMatchObject({ value: 'v2', contentType: undefined });
    if (partitionIdOf('other-key-not-in-pid') !== pid) expect(await b.get('m1', 'other-key-not-in-pid')).toBeUndefined();
  });

  it('expiry times travel with the entries (a TTL does not restart on the new member)', async () => {
    const clockA = new ManualClock(1_000_000);
    const a = service({ map: { ttl: { 'time-to-live-seconds': 10 } } }, clockA);
    await a.put('ttl', 'k', 'v', undefined);
    const pid = partitionIdOf('k');
    const clockB = new ManualClock(1_000_000 + 9_000);
    const b = service({ map: { ttl: { 'time-to-live-seconds': 10 } } }, clockB);
    b.replicaData.install(pid, wire(a.replicaData.snapshot(pid, 0)));
    expect(await b.get('ttl', 'k')).toBeDefined();
    clockB.advance(1_000);
    expect(await b.get('ttl', 'k')).toBeUndefined();
  });

  it('replicas beyond a map backup count get none of its data; drop forgets the partition', async () => {
    const a = service({ map: { nobackup: { 'backup-count': 0 }, two: { 'backup-count': 1, 'async-backup-count': 1 } } });
    await a.put('nobackup', 'k', 'v', undefined);
    await a.put('two', 'k', 'v', undefined);
    const pid = partitionIdOf('k');
    const names = (v: WireValue | undefined): string[] => ((v ?? []) as WireValue[]).filter((_, i) => i % 2 === 0) as string[];
    expect(names(a.replicaData.snapshot(pid, 0)).sort()).toEqual(['nobackup', 'two']);
    expect(names(a.replicaData.snapshot(pid, 1))).toEqual(['two']);
    expect(names(a.replicaData.snapshot(pid, 2))).toEqual(['two']);
    expect(a.replicaData.snapshot(pid, 3)).toBeUndefined();
    a.replicaData.drop(pid);
    expect(await a.get('two', 'k')).toBeUndefined();
  });

  it('backups replay put, remove and clear', async () => {
    const b = service();
    const pid = partitionIdOf('k');
    b.handler.applyBackup(pid, 'put', ['m', 'k', new Latin1('v'), 'text/plain']);
    expect(await b.get('m', 'k')).toMatchObject({ value: 'v', contentType: 'text/plain' });
    b.handler.applyBackup(pid, 'remove', ['m', 'k']);
    expect(await b.get('m', 'k')).toBeUndefined();
    b.handler.applyBackup(pid, 'put', ['m', 'k', new Latin1('v'), null]);
    b.handler.applyBackup(pid, 'clear', ['m']);
    expect(await b.size('m')).toBe(0);
    expect(() => b.handler.applyBackup(pid, 'get', ['m', 'k'])).toThrow(/unknown map backup/);
  });

  it('operations rebuilt from the wire run like local ones; results survive the wire', () => {
    const s = service();
    const pid = partitionIdOf('k');
    const put = s.handler.operation(pid, 'put', ['m', 'k', new Latin1('v'), null], { alive: () => true, onGone: () => undefined });
    expect(put.mutating).toBe(true);
    put.run();
    const get = s.handler.operation(pid, 'get', ['m', 'k'], { alive: () => true, onGone: () => undefined });
    const got = get.run();
    expect(s.handler.decodeResult('get', wire(s.handler.encodeResult('get', got))!)).toEqual({ value: 'v', contentType: undefined, version: 0 });
    // An older member's answer has no version.
    expect(s.handler.decodeResult('get', wire([new Latin1('v'), null])!)).toEqual({ value: 'v', contentType: undefined });
    expect(s.handler.decodeResult('get', wire(s.handler.encodeResult('get', undefined))!)).toBeUndefined();
    expect(s.handler.decodeResult('remove', wire(s.handler.encodeResult('remove', true))!)).toBe(true);
    expect(() => s.handler.operation(pid, 'evict', ['m'], { alive: () => true, onGone: () => undefined })).toThrow(/unknown map operation/);
    expect(() => s.handler.operation(pid, 'get', ['m', 7], { alive: () => true, onGone: () => undefined })).toThrow(/key/);
  });
});
