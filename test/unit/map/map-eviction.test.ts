// The map service's eviction shell: evicted keys go to the backups with the put (a backup that
// applies them holds what the owner holds), to persistence as removes, to the metrics; memory
// policies read the member's memory; a trim brings stores over their limit back when the
// member count drops.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { BackupSpec, Invoker, Operation } from '../../../src/invocation/invoker.js';
import { MapService, type MapWanEvent, type MapWanSink } from '../../../src/map/map-service.js';
import { partitionIdOf, PARTITION_COUNT } from '../../../src/partition/partitioning.js';
import { LogOp, type LogRecord } from '../../../src/persistence/log-format.js';
import { decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import { captureLogs } from '../core/fakes.js';

/** Runs operations here and hands their backups (through the wire codec) to a backup service. */
class BackingInvoker implements Invoker {
  backup: MapService | undefined;
  readonly backups: BackupSpec[] = [];
  invoke<T>(pid: number, op: Operation<T>): Promise<T> {
    const result = op.run() as T;
    const spec = op.backup?.(result);
    if (spec !== undefined) {
      this.backups.push(spec);
      this.backup?.handler.applyBackup(pid, spec.type, decodeValue(encodeValue(spec.args as WireValue[])) as WireValue[]);
    }
    return Promise.resolve(result);
  }
}

const MB = 1024 * 1024;

function pair(maps: Record<string, unknown>, opts: { members?: () => number; memory?: { limitBytes: () => number; usedBytes: () => number } } = {}) {
  const config = configFromObject({ map: maps }).config;
  const invoker = new BackingInvoker();
  const clock = new ManualClock(1_000_000);
  const logger = captureLogs().control.logger;
  const owner = new MapService({ config, invoker, clock, logger, ...(opts.members ? { clusterSize: opts.members } : {}), ...(opts.memory ? { memory: opts.memory } : {}) });
  const backup = new MapService({ config, invoker: new BackingInvoker(), clock, logger });
  invoker.backup = backup;
  const log: LogRecord[] = [];
  owner.setPersistence({ logging: true, append: (r) => log.push(r), refusal: () => undefined });
  return { owner, backup, invoker, clock, log };
}

/** Keys of one partition. */
function keysOf(pid: number, n: number, prefix = 'k'): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) if (partitionIdOf(`${prefix}${i}`) === pid) out.push(`${prefix}${i}`);
  return out;
}

async function held(svc: MapService, map: string, keys: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const k of keys) if ((await svc.get(map, k)) !== undefined) out.push(k);
  return out;
}

describe('map eviction in the map service', () => {
  it('PER_PARTITION LRU: the put evicts the least recently used, the backup removes it too, persistence logs a remove', async () => {
    const { owner, backup, invoker, clock, log } = pair({ m: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_PARTITION', size: 3 }, 'data-persistence': { enabled: true } } });
    const [a, b, c, d] = keysOf(7, 4);
    for (const k of [a!, b!, c!]) {
      await owner.put('m', k, 'v', undefined);
      clock.advance(1);
    }
    await owner.get('m', a!); // b is now the least recently used
    clock.advance(1);
    log.length = 0;
    await owner.put('m', d!, 'v', undefined);
    expect(await held(owner, 'm', [a!, b!, c!, d!])).toEqual([a, c, d]);
    expect(invoker.backups.at(-1)!.args.at(-1)).toEqual([b]);
    expect(await held(backup, 'm', [a!, b!, c!, d!])).toEqual([a, c, d]);
    expect(log.map((r) => [r.op, 'key' in r ? r.key : undefined])).toEqual([
      [LogOp.Put, d],
      [LogOp.Remove, b],
    ]);
  });

  it('an overwrite adds no entry and evicts nothing; NONE never evicts; other partitions are not touched', async () => {
    const { owner, invoker } = pair({
      m: { eviction: { 'eviction-policy': 'RANDOM', 'max-size-policy': 'PER_PARTITION', size: 2 } },
      free: { eviction: { 'eviction-policy': 'NONE', 'max-size-policy': 'PER_PARTITION', size: 2 } },
    });
    const [a, b] = keysOf(3, 2);
    await owner.put('m', a!, '1', undefined);
    await owner.put('m', b!, '1', undefined);
    for (let i = 0; i < 5; i++) await owner.put('m', a!, String(i), undefined);
    expect(invoker.backups.every((s) => s.args.length === 4)).toBe(true);
    const other = keysOf(4, 2);
    for (const k of other) await owner.put('m', k, 'x', undefined);
    expect(await held(owner, 'm', [a!, b!, ...other])).toEqual([a, b, ...other]);
    const many = keysOf(3, 10, 'f');
    for (const k of many) await owner.put('free', k, 'x', undefined);
    expect(await owner.size('free')).toBe(10);
  });

  it('PER_NODE follows the member count; a trim brings stores back to the limit when a member leaves, and is backed up', async () => {
    let members = 4;
    const { owner, backup } = pair({ m: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_NODE', size: 271 } } }, { members: () => members });
    // 4 members: 271 * 4 / 271 = 4 per partition.
    const keys = keysOf(9, 10);
    for (const k of keys) await owner.put('m', k, 'v', undefined);
    expect(await owner.size('m')).toBe(4);
    members = 2;
    expect(await owner.trimSome()).toBe(2);
    expect(await owner.size('m')).toBe(2);
    expect(await held(backup, 'm', keys)).toEqual(await held(owner, 'm', keys));
    expect(await owner.trimSome()).toBe(0);
  });

  it('USED_HEAP_SIZE keeps the bytes of the map near the limit; FREE_HEAP_PERCENTAGE evicts while free memory is short', async () => {
    let used = 100 * MB;
    const memory = { limitBytes: () => 1000 * MB, usedBytes: () => used };
    const { owner, clock } = pair(
      {
        heap: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'USED_HEAP_SIZE', size: 1 } },
        free: { eviction: { 'eviction-policy': 'RANDOM', 'max-size-policy': 'FREE_HEAP_PERCENTAGE', size: 20 } },
      },
      { memory },
    );
    const value = 'x'.repeat(1024);
    for (let i = 0; i < 4000; i++) {
      await owner.put('heap', `k${i}`, value, undefined);
      if (i % 50 === 0) clock.advance(101);
    }
    const size = await owner.size('heap');
    // The map's bytes (records, chunk capacity and index of 271 stores) stay near 1 MiB: fewer than 1024 values of 1 KiB fit.
    expect(size).toBeGreaterThan(200);
    expect(size).toBeLessThan(1024);
    for (let i = 0; i < 2000; i++) await owner.put('free', `f${i}`, 'v', undefined);
    expect(await owner.size('free')).toBe(2000);
    used = 900 * MB; // 10% free < 20%: each put evicts (up to two) from its partition's store
    clock.advance(101);
    for (let i = 2000; i < 2300; i++) await owner.put('free', `f${i}`, 'v', undefined);
    expect(await owner.size('free')).toBeLessThan(2000);
  });

  it('counts evictions per map in the metrics', async () => {
    const { owner } = pair({ m: { eviction: { 'eviction-policy': 'LFU', 'max-size-policy': 'PER_PARTITION', size: 1 } } });
    for (let pid = 0; pid < 3; pid++) for (const k of keysOf(pid, 4)) await owner.put('m', k, 'v', undefined);
    const counters: Record<string, number> = {};
    owner.reportMetrics({
      beforeScrape: () => undefined,
      gauge: () => undefined,
      counter: (def: { name: string }, read: (report: (v: number, labels: Record<string, string>) => void) => void) => read((v) => (counters[def.name] = v)),
    } as never);
    expect(counters['grid_map_evictions_total']).toBe(9);
    expect(PARTITION_COUNT).toBe(271);
  });

  it('evictions are not published over WAN (as in Hazelcast); the put is, and its backup carries both its WAN sequence and the evicted key', async () => {
    const config = configFromObject({
      'wan-replication': { w: { 'batch-publisher': { b: { 'cluster-name': 'b', 'target-endpoints': 'h:5701' } } } },
      map: { m: { 'wan-replication-ref': { w: {} }, eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'PER_PARTITION', size: 1 } } },
    }).config;
    const events: MapWanEvent[] = [];
    const sink: MapWanSink = {
      admit: () => ({ ticket: true }),
      commit: (_t, _pid, e) => (events.push(e), events.length),
      cancel: () => undefined,
      offer: (_pid, e) => (events.push(e), events.length),
      backup: () => undefined,
      newObserver: () => undefined,
    };
    const invoker = new BackingInvoker();
    const owner = new MapService({ config, invoker, clock: new ManualClock(5), logger: captureLogs().control.logger });
    owner.setWanSink(sink);
    const [a, b] = keysOf(11, 2);
    await owner.put('m', a!, '1', undefined);
    await owner.put('m', b!, '2', undefined);
    expect(await held(owner, 'm', [a!, b!])).toEqual([b]);
    expect(events.map((e) => [e.kind, e.key])).toEqual([
      ['put', a],
      ['put', b],
    ]);
    expect(invoker.backups.at(-1)!.args.slice(4)).toEqual([2, [a]]);
  });
});
