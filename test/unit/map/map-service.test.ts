import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { dataKeyOf, MapService, partitionIdOfKey, storeKeyOfText, SWEEP_BUDGET } from '../../../src/map/map-service.js';
import { PARTITION_COUNT, partitionIdOf } from '../../../src/partition/partitioning.js';
import { captureLogs, FailingInvoker, RecordingInvoker } from '../core/fakes.js';

function setup(raw: unknown = {}): { svc: MapService; clock: ManualClock; invoker: RecordingInvoker; logs: ReturnType<typeof captureLogs> } {
  const clock = new ManualClock();
  const invoker = new RecordingInvoker();
  const logs = captureLogs('ALL');
  const svc = new MapService({ config: configFromObject(raw).config, invoker, clock, logger: logs.control.logger });
  return { svc, clock, invoker, logs };
}

/** `n` keys that together cover every partition at least once. */
function keysCoveringAllPartitions(): string[] {
  const seen = new Set<number>();
  const keys: string[] = [];
  for (let i = 0; seen.size < PARTITION_COUNT; i++) {
    const k = `key-${i}`;
    keys.push(k);
    seen.add(partitionIdOf(k));
  }
  return keys;
}

describe('MapService: basic operations', () => {
  it('put, get, overwrite, remove', async () => {
    const { svc } = setup();
    expect(await svc.get('m', 'k')).toBeUndefined();
    await svc.put('m', 'k', 'v1', 'text/plain');
    expect(await svc.get('m', 'k')).toMatchObject({ value: 'v1', contentType: 'text/plain', version: 0 });
    await svc.put('m', 'k', 'v2', undefined);
    expect(await svc.get('m', 'k')).toMatchObject({ value: 'v2', contentType: undefined, version: 1 });
    expect(await svc.remove('m', 'k')).toBe(true);
    expect(await svc.remove('m', 'k')).toBe(false);
    expect(await svc.get('m', 'k')).toBeUndefined();
  });

  it('maps are independent', async () => {
    const { svc } = setup();
    await svc.put('a', 'k', '1', undefined);
    await svc.put('b', 'k', '2', undefined);
    expect((await svc.get('a', 'k'))?.value).toBe('1');
    expect((await svc.get('b', 'k'))?.value).toBe('2');
    expect(await svc.get('c', 'k')).toBeUndefined();
    expect(await svc.remove('c', 'k')).toBe(false);
  });

  it('each key operation runs in the partition of the key', async () => {
    const { svc, invoker } = setup();
    await svc.put('m', 'orders', 'v', undefined);
    await svc.get('m', 'orders');
    await svc.remove('m', 'orders');
    const pid = partitionIdOf('orders');
    expect(invoker.calls).toEqual([
      { partitionId: pid, name: 'map.put', mutating: true },
      { partitionId: pid, name: 'map.get', mutating: false },
      { partitionId: pid, name: 'map.remove', mutating: true },
    ]);
  });

  it('clear empties every partition of one map only, through every partition', async () => {
    const { svc, invoker } = setup();
    const keys = keysCoveringAllPartitions();
    for (const k of keys) {
      await svc.put('m', k, 'v', undefined);
      await svc.put('keep', k, 'v', undefined);
    }
    expect(await svc.size('m')).toBe(keys.length);
    invoker.calls.length = 0;
    await svc.clear('m');
    expect(invoker.calls.map((c) => c.partitionId).sort((a, b) => a - b)).toEqual(Array.from({ length: PARTITION_COUNT }, (_, i) => i));
    expect(invoker.calls.every((c) => c.name === 'map.clear' && c.mutating)).toBe(true);
    expect(await svc.size('m')).toBe(0);
    expect(await svc.get('m', keys[0]!)).toBeUndefined();
    expect(await svc.size('keep')).toBe(keys.length);
    // Clearing an unknown map is fine.
    await svc.clear('unknown');
    // The map is usable again.
    await svc.put('m', 'k', 'v', undefined);
    expect(await svc.size('m')).toBe(1);
  });

  it('size counts entries across partitions; an unknown map has size 0', async () => {
    const { svc } = setup();
    expect(await svc.size('m')).toBe(0);
    for (let i = 0; i < 500; i++) await svc.put('m', `k${i}`, 'v', undefined);
    await svc.put('m', 'k0', 'again', undefined); // overwrite, not a new entry
    expect(await svc.size('m')).toBe(500);
    await svc.remove('m', 'k1');
    expect(await svc.size('m')).toBe(499);
  });

  it('errors from the invoker propagate', async () => {
    const err = new GridError('PARTITION_UNAVAILABLE', 'partition 3 has no owner');
    const svc = new MapService({ config: configFromObject({}).config, invoker: new FailingInvoker(err), clock: new ManualClock(), logger: captureLogs().control.logger });
    await expect(svc.put('m', 'k', 'v', undefined)).rejects.toBe(err);
    await expect(svc.get('m', 'k')).rejects.toBe(err);
    await expect(svc.remove('m', 'k')).rejects.toBe(err);
    await expect(svc.clear('m')).rejects.toBe(err);
  });
});

describe('MapService: content types', () => {
  it('returns the content type verbatim, parameters kept', async () => {
    const { svc } = setup();
    await svc.put('m', 'a', 'x', 'text/plain; charset=ISO-8859-1');
    await svc.put('m', 'b', 'y', ['application', 'json'].join('/'));
    await svc.put('m', 'c', 'z', ['application', 'json'].join('/'));
    expect((await svc.get('m', 'a'))?.contentType).toBe('text/plain; charset=ISO-8859-1');
    const b = await svc.get('m', 'b');
    const c = await svc.get('m', 'c');
    expect(b?.contentType).toBe('application/json');
    expect(c?.contentType).toBe(b?.contentType);
  });

  it('keeps every content type correct beyond the interning limit', async () => {
    const { svc } = setup();
    for (let i = 0; i < 1500; i++) await svc.put('m', `k${i}`, 'v', `application/x-type-${i}`);
    for (let i = 0; i < 1500; i += 37) expect((await svc.get('m', `k${i}`))?.contentType).toBe(`application/x-type-${i}`);
    await svc.put('m', 'again', 'v', `application/x-type-${1499}`);
    expect((await svc.get('m', 'again'))?.contentType).toBe('application/x-type-1499');
  });
});

describe('MapService: expiry from map config', () => {
  it('TTL of a wildcard map config applies; other maps never expire', async () => {
    const { svc, clock } = setup({ map: { 'sess*': { 'time-to-live-seconds': 10 } } });
    await svc.put('sessions', 'k', 'v', undefined);
    await svc.put('other', 'k', 'v', undefined);
    clock.advance(9_999);
    expect((await svc.get('sessions', 'k'))?.value).toBe('v');
    clock.advance(1);
    expect(await svc.get('sessions', 'k')).toBeUndefined();
    expect((await svc.get('other', 'k'))?.value).toBe('v');
    clock.advance(365 * 24 * 3600 * 1000);
    expect((await svc.get('other', 'k'))?.value).toBe('v');
  });

  it('the default map config applies to undeclared maps', async () => {
    const { svc, clock } = setup({ map: { default: { 'time-to-live-seconds': 2 }, forever: {} } });
    await svc.put('anything', 'k', 'v', undefined);
    await svc.put('forever', 'k', 'v', undefined);
    clock.advance(2_000);
    expect(await svc.get('anything', 'k')).toBeUndefined();
    expect((await svc.get('forever', 'k'))?.value).toBe('v');
  });

  it('max-idle is reset by reads', async () => {
    const { svc, clock } = setup({ map: { idle: { 'max-idle-seconds': 5 } } });
    await svc.put('idle', 'k', 'v', undefined);
    for (let i = 0; i < 5; i++) {
      clock.advance(4_999);
      expect((await svc.get('idle', 'k'))?.value).toBe('v');
    }
    clock.advance(5_000);
    expect(await svc.get('idle', 'k')).toBeUndefined();
  });

  it('a put resets the TTL; remove of an expired entry returns false', async () => {
    const { svc, clock } = setup({ map: { m: { 'time-to-live-seconds': 10 } } });
    await svc.put('m', 'k', 'v1', undefined);
    clock.advance(8_000);
    await svc.put('m', 'k', 'v2', undefined);
    clock.advance(8_000);
    expect((await svc.get('m', 'k'))?.value).toBe('v2');
    clock.advance(2_000);
    expect(await svc.remove('m', 'k')).toBe(false);
  });

  it('size does not count expired entries', async () => {
    const { svc, clock } = setup({ map: { m: { 'time-to-live-seconds': 10 } } });
    await svc.put('m', 'a', 'v', undefined);
    clock.advance(5_000);
    await svc.put('m', 'b', 'v', undefined);
    expect(await svc.size('m')).toBe(2);
    clock.advance(5_000);
    expect(await svc.size('m')).toBe(1);
    clock.advance(5_000);
    expect(await svc.size('m')).toBe(0);
  });
});

describe('MapService: expiry sweeper', () => {
  it('sweepSome reclaims a small map in one tick and leaves unexpired maps alone', async () => {
    const { svc, clock } = setup({ map: { m: { 'time-to-live-seconds': 1 } } });
    const keys = keysCoveringAllPartitions();
    for (const k of keys) await svc.put('m', k, 'v', undefined);
    await svc.put('forever', 'k', 'v', undefined);
    expect(svc.sweepSome()).toBe(0); // nothing expired yet
    clock.advance(1_000);
    expect(svc.sweepSome()).toBe(keys.length);
    expect(svc.sweepSome()).toBe(0);
    expect((await svc.get('forever', 'k'))?.value).toBe('v');
  });

  it('sweepSome examines about SWEEP_BUDGET entries per tick and carries on where it stopped', async () => {
    const { svc, clock } = setup({ map: { big: { 'time-to-live-seconds': 1 } } });
    const total = SWEEP_BUDGET * 2 + 10_000;
    for (let i = 0; i < total; i++) await svc.put('big', `k${i}`, 'v', undefined);
    clock.advance(1_000);
    const perTick: number[] = [];
    for (let i = 0; i < 4; i++) perTick.push(svc.sweepSome());
    expect(perTick.reduce((a, b) => a + b, 0)).toBe(total);
    // Never everything at once: each tick stops shortly after its budget (one partition's worth).
    const perPartition = Math.ceil(total / 271) * 2;
    for (const n of perTick) expect(n).toBeLessThanOrEqual(SWEEP_BUDGET + perPartition);
    expect(perTick[0]).toBeGreaterThanOrEqual(SWEEP_BUDGET);
    expect(await svc.size('big')).toBe(0);
  });

  it('the sweeper runs on the clock, logs what it reclaimed, and stops', async () => {
    const { svc, clock, logs } = setup({ map: { m: { 'time-to-live-seconds': 1 } } });
    const keys = keysCoveringAllPartitions();
    for (const k of keys) await svc.put('m', k, 'v', undefined);
    svc.startExpirySweeper(100);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1_000); // ten ticks; the one at exactly 1 s reclaims everything
    clock.advance(1_000); // ten more ticks: nothing left
    const reclaimed = logs.sink.lines
      .filter((l) => l.msg === 'expired map entries reclaimed')
      .reduce((sum, l) => sum + Number(l.removed), 0);
    expect(reclaimed).toBe(keys.length);
    svc.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('starting the sweeper twice keeps one timer', () => {
    const { svc, clock } = setup();
    svc.startExpirySweeper(100);
    svc.startExpirySweeper(50);
    expect(clock.pendingTimers()).toBe(1);
    svc.stop();
    svc.stop();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('MapService: keys of other types than String (their Data form, map-keys.ts)', () => {
  // A Long 7 as the clients serialize it: partition hash 0, type -8, 8 bytes big-endian.
  const longKey = dataKeyOf(Buffer.from('00000000fffffff80000000000000007', 'hex'));

  it('run in the partition of their Data, not of their chars as a String', async () => {
    const { svc, invoker } = setup();
    await svc.put('m', longKey, 'v', undefined);
    expect((await svc.get('m', longKey))?.value).toBe('v');
    expect(invoker.calls.map((c) => c.partitionId)).toEqual([partitionIdOfKey(longKey), partitionIdOfKey(longKey)]);
    expect(partitionIdOfKey(longKey)).not.toBe(partitionIdOf(longKey));
    expect(await svc.get('m', storeKeyOfText('7'))).toBeUndefined();
  });

  it('a split-brain merge carries them into the other cluster, in their partition', async () => {
    const from = setup().svc;
    const into = setup().svc;
    await from.put('m', longKey, 'from-the-small-side', 'text/plain');
    await from.put('m', storeKeyOfText('\u0000text'), 'nul', undefined);
    const batches = from.collectForMerge(Array.from({ length: PARTITION_COUNT }, (_, i) => i));
    expect(batches.map((b) => b.partitionId).sort((a, b) => a - b)).toEqual([partitionIdOfKey(longKey), partitionIdOfKey(storeKeyOfText('\u0000text'))].sort((a, b) => a - b));
    expect((await into.mergeInto(batches)).merged).toBe(2);
    expect(await into.get('m', longKey)).toMatchObject({ value: 'from-the-small-side', contentType: 'text/plain' });
    expect((await into.get('m', storeKeyOfText('\u0000text')))?.value).toBe('nul');
  });
});
