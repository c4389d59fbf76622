// The queue service's cluster side: data that moves between members (snapshot/install), the
// backup replay of owner operations, results across the wire, and waiting polls when the
// queue's partition moves away.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { QueueService, type QueueItem } from '../../../src/queue/queue-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { decodeValue, encodeValue, Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { captureLogs, RecordingInvoker } from '../core/fakes.js';

const client = { alive: () => true, onGone: () => undefined };

function service(raw: unknown = {}): { svc: QueueService; clock: ManualClock } {
  const clock = new ManualClock();
  const svc = new QueueService({ config: configFromObject(raw).config, invoker: new RecordingInvoker(), clock, logger: captureLogs().control.logger });
  return { svc, clock };
}

/** Through the real codec, as it travels between members. */
const wire = (v: WireValue | undefined): WireValue | undefined => (v === undefined ? undefined : decodeValue(encodeValue(v)));

async function drain(svc: QueueService, name: string): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for (;;) {
    const it = await svc.poll(name, 0, client);
    if (it === undefined) return out;
    out.push(it.value);
  }
}

describe('QueueService replication', () => {
  it('a snapshot installed on another member keeps items, order, bytes and content types', async () => {
    const a = service().svc;
    const b = service().svc;
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    for (const v of ['one', 'two', all]) await a.offer('jobs', { value: v, contentType: v === 'two' ? 'text/x; charset=utf-8' : undefined });
    const pid = partitionIdOf('jobs');
    b.replicaData.install(pid, wire(a.replicaData.snapshot(pid, 0)));
    expect(await b.size('jobs')).toBe(3);
    const first = await b.poll('jobs', 0, client);
    const second = await b.poll('jobs', 0, client);
    expect([first?.value, second]).toEqual(['one', { value: 'two', contentType: 'text/x; charset=utf-8' }]);
    expect((await b.poll('jobs', 0, client))?.value).toBe(all);
  });

  it('a replica index beyond the queue backups gets nothing; install replaces what was there', async () => {
    const a = service({ queue: { q0: { 'backup-count': 0 } } }).svc;
    await a.offer('q0', { value: 'x', contentType: undefined });
    const pid = partitionIdOf('q0');
    expect(a.replicaData.snapshot(pid, 1)).toBeUndefined();
    expect(a.replicaData.snapshot(pid, 0)).toBeDefined();
    const b = service().svc;
    await b.offer('q0', { value: 'stale', contentType: undefined });
    b.replicaData.install(pid, wire(a.replicaData.snapshot(pid, 0)));
    expect(await drain(b, 'q0')).toEqual(['x']);
    b.replicaData.install(pid, undefined);
    expect(await b.size('q0')).toBe(0);
  });

  it('backups replay offer, reserve, offerReserved, release and confirm in owner order', async () => {
    const backup = service().svc;
    const pid = partitionIdOf('q');
    const h = backup.handler;
    h.applyBackup(pid, 'offer', ['q', new Latin1('a'), null]);
    h.applyBackup(pid, 'offer', ['q', new Latin1('b'), 'text/plain']);
    h.applyBackup(pid, 'offer', ['q', new Latin1('c'), null]);
    h.applyBackup(pid, 'reserve', ['q', 'm1', 1, 0]); // a
    h.applyBackup(pid, 'reserve', ['q', 'm1', 2, 1]); // b
    h.applyBackup(pid, 'offerReserved', ['q', new Latin1('x'), null, 'm2', 5, 2]);
    expect([await backup.size('q'), backup.reservedCount('q')]).toEqual([1, 3]);
    h.applyBackup(pid, 'confirm', ['q', 'm2', 5]);
    h.applyBackup(pid, 'release', ['q', 'm1', 2, null, null, 'm1', 1, 'm3', 1]); // b back; a over to m3:1
    expect([await backup.size('q'), backup.reservedCount('q')]).toEqual([2, 1]);
    h.applyBackup(pid, 'release', ['q', 'm3', 1, null, null]);
    expect(await drain(backup, 'q')).toEqual(['a', 'b', 'c']);
    expect(() => h.applyBackup(pid, 'nonsense', ['q'])).toThrow(GridError);
  });

  it('results survive the wire: poll item, offer flag, size', () => {
    const h = service().svc.handler;
    const item: QueueItem = { value: '\u00ff\u0000bytes', contentType: 'application/octet-stream' };
    expect(h.decodeResult('poll', wire(h.encodeResult('poll', item))!)).toEqual(item);
    expect(h.decodeResult('poll', wire(h.encodeResult('poll', undefined))!)).toBeUndefined();
    expect(h.decodeResult('offer', wire(h.encodeResult('offer', false))!)).toBe(false);
    expect(h.decodeResult('size', wire(h.encodeResult('size', 42))!)).toBe(42);
    expect(h.decodeResult('peek', wire(h.encodeResult('peek', item))!)).toEqual(item);
    expect(h.decodeResult('peek', wire(h.encodeResult('peek', undefined))!)).toBeUndefined();
  });

  it('an operation for a queue in another partition is refused', () => {
    const h = service().svc.handler;
    const pid = (partitionIdOf('q') + 1) % 271;
    expect(() => h.operation(pid, 'size', ['q'], client)).toThrow(/not in partition/);
  });

  it('a waiting poll is answered WRONG_TARGET when the partition moves away, and dropping forgets the queue', async () => {
    const { svc, clock } = service();
    const pid = partitionIdOf('w');
    const op = svc.handler.operation(pid, 'poll', ['w', clock.now() + 10_000, 'm', 1], client);
    const waiting = op.run() as Promise<unknown>;
    expect(waiting).toBeInstanceOf(Promise);
    svc.replicaData.ownershipLost(pid);
    await expect(waiting).rejects.toMatchObject({ code: 'WRONG_TARGET' });
    await svc.offer('w', { value: 'v', contentType: undefined });
    svc.replicaData.drop(pid);
    expect(await svc.size('w')).toBe(0);
  });

  it('a poll whose deadline has passed answers at once without waiting', () => {
    const { svc, clock } = service();
    const pid = partitionIdOf('late');
    const op = svc.handler.operation(pid, 'poll', ['late', clock.now() - 1, 'm', 1], client);
    expect(op.run()).toBeUndefined();
  });

  it('empty-queue-ttl destroys the queue through the invoker (so backups forget it too); a destroy backup forgets an empty queue only', async () => {
    const clock = new ManualClock();
    const invoker = new RecordingInvoker();
    const svc = new QueueService({ config: configFromObject({ queue: { temp: { 'empty-queue-ttl': 5 } } }).config, invoker, clock, logger: captureLogs().control.logger });
    await svc.offer('temp', { value: 'x', contentType: undefined });
    await svc.poll('temp', 0, client);
    clock.advance(5_000);
    expect(invoker.calls.map((c) => c.name)).toContain('queue.destroy');
    const backup = service().svc;
    const pid = partitionIdOf('temp');
    backup.handler.applyBackup(pid, 'offer', ['temp', new Latin1('kept'), null]);
    backup.handler.applyBackup(pid, 'destroy', ['temp']);
    expect(await backup.size('temp')).toBe(1);
    backup.handler.applyBackup(pid, 'reserve', ['temp', 'm', 1, 0]);
    backup.handler.applyBackup(pid, 'destroy', ['temp']);
    expect(backup.reservedCount('temp')).toBe(1); // a reserved item keeps the queue
    backup.handler.applyBackup(pid, 'confirm', ['temp', 'm', 1]);
    backup.handler.applyBackup(pid, 'destroy', ['temp']);
    expect(backup.replicaData.snapshot(pid, 0)).toBeUndefined();
  });
});
