// The event journal's partition-level rules without a cluster: what a copy carries to a
// migration's target or a new backup, and what a member that becomes owner can vouch for
// (a promoted backup: its history; an owner without any replica before: nothing before now).

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { DEFAULT_MAP } from '../../../src/config/defaults.js';
import type { MapConfig } from '../../../src/config/types.js';
import { EventJournal, perPartitionCapacity } from '../../../src/events/event-journal.js';
import type { Invoker } from '../../../src/invocation/invoker.js';
import type { Logger } from '../../../src/core/logger.js';
import type { MapChangeEvent } from '../../../src/map/map-service.js';
import { encodeMapEvents } from '../../../src/protocol/event-payloads.js';

const journaled: MapConfig = { ...DEFAULT_MAP, name: 'j', eventJournal: { enabled: true, capacity: 271 * 4, timeToLiveSeconds: 0 } };
const plain: MapConfig = { ...DEFAULT_MAP, name: 'p' };

function member(uuid: string, clock: ManualClock, replicas: string[][]): { journal: EventJournal; applyTable(rows: string[][]): void } {
  let listener: () => void = () => undefined;
  let rows = replicas;
  const journal = new EventJournal({
    net: undefined,
    cluster: { localUuid: () => uuid, memberAddress: () => undefined },
    partitions: { replicas: (pid) => rows[pid] ?? [], tableVersion: () => 1, onTableApplied: (fn) => (listener = fn) },
    configOf: (name) => (name.startsWith('j') ? journaled : plain),
    invoker: {} as Invoker,
    clock,
    logger: {} as Logger,
  });
  listener();
  return {
    journal,
    // As the partition layer does it: ownershipGained during the apply, listeners after.
    applyTable: (next) => {
      const before = rows;
      rows = next;
      for (let pid = 0; pid < 271; pid++) if (next[pid]?.[0] === uuid && before[pid]?.[0] !== uuid) journal.replicaData.ownershipGained?.(pid);
      listener();
    },
  };
}

function event(pid: number, epoch: number, sequence: number, mapName = 'j'): MapChangeEvent {
  return { mapName, partitionId: pid, epoch, sequence, type: 'added', key: `k${sequence}`, oldValue: undefined, newValue: { value: `v${sequence}`, contentType: 'text/plain', version: 0 }, count: 1 };
}

const rowsOf = (owner: string, backup?: string): string[][] => Array.from({ length: 271 }, () => (backup === undefined ? [owner] : [owner, backup]));

describe('EventJournal', () => {
  it('splits the capacity between the partitions as Hazelcast does', () => {
    expect(perPartitionCapacity({ enabled: true, capacity: 10_000, timeToLiveSeconds: 0 })).toBe(36);
    expect(perPartitionCapacity({ enabled: true, capacity: 271, timeToLiveSeconds: 0 })).toBe(1);
  });

  it('journals only maps with a journal, and a copy carries the rings to another member whole', () => {
    const clock = new ManualClock();
    const a = member('A', clock, rowsOf('A', 'B'));
    for (let s = 1; s <= 6; s++) a.journal.append(event(5, 3, s));
    a.journal.append(event(5, 3, 1, 'p'));
    expect(a.journal.size()).toBe(4); // capacity 4 per partition; the plain map keeps nothing
    expect(a.journal.lastSequence('j', 5)).toBe(6);
    const snap = a.journal.replicaData.snapshot(5, 1);
    const b = member('B', clock, rowsOf('A', 'B'));
    b.journal.replicaData.install(5, snap);
    const shape = (r: ReturnType<EventJournal['readHere']>): unknown => (r.ok ? r.entries.map((x) => [x.event.sequence, x.event.key, x.event.newValue?.value, x.atMs]) : r.reason);
    for (const after of [1, 2, 4, 6]) {
      expect(shape(b.journal.readHere('j', 5, { after: { epoch: 3, sequence: after } }, 100))).toEqual(shape(a.journal.readHere('j', 5, { after: { epoch: 3, sequence: after } }, 100)));
    }
    expect(shape(b.journal.readHere('j', 5, { after: { epoch: 3, sequence: 2 } }, 100))).toEqual([3, 4, 5, 6].map((s) => [s, `k${s}`, `v${s}`, clock.now()]));
    expect(b.journal.readHere('j', 5, { after: { epoch: 3, sequence: 1 } }, 100)).toMatchObject({ ok: false, reason: 'overwritten' });
    expect(() => b.journal.readHere('p', 5, { sinceMs: 0 }, 100)).toThrow(/no event journal/);
  });

  it('a backup promoted after its owner died vouches for its history; an owner that held no replica vouches only from now', () => {
    const clock = new ManualClock();
    const start = clock.now();
    const b = member('B', clock, rowsOf('A', 'B'));
    const c = member('C', clock, rowsOf('A', 'B'));
    // B got the owner's appends as backup (the Backup message's handler).
    b.journal.handler.applyBackup(9, 'append', ['j', encodeOne(event(9, 3, 1)), start]);
    clock.advance(1_000);
    // A dies: B owns everything, C (no replica before, no copy) owns nothing yet.
    b.applyTable(rowsOf('B', 'C'));
    expect(b.journal.readHere('j', 9, { after: { epoch: 3, sequence: 1 } }, 10)).toMatchObject({ ok: true, entries: [] });
    expect(b.journal.readHere('j', 9, { sinceMs: start - 1 }, 10)).toMatchObject({ ok: true });
    expect(b.journal.readHere('j', 10, { sinceMs: start - 1 }, 10)).toMatchObject({ ok: true, entries: [] });
    // Both B and A's other backup gone: C owns partitions whose history it never had.
    clock.advance(1_000);
    c.applyTable(rowsOf('C'));
    expect(c.journal.readHere('j', 9, { sinceMs: start }, 10)).toMatchObject({ ok: false, reason: 'lost' });
    expect(c.journal.readHere('j', 9, { after: { epoch: 3, sequence: 1 } }, 10)).toMatchObject({ ok: false, reason: 'lost' });
    // Readers that started after it are answered.
    expect(c.journal.readHere('j', 9, { sinceMs: clock.now() }, 10)).toMatchObject({ ok: true, entries: [] });
    // The "complete since" travels with a copy.
    const d = member('D', clock, rowsOf('C', 'D'));
    d.journal.replicaData.install(9, c.journal.replicaData.snapshot(9, 1));
    expect(d.journal.readHere('j', 9, { sinceMs: start }, 10)).toMatchObject({ ok: false, reason: 'lost' });
  });

  it('ignores appends to a member that is not a replica of the partition, and ones that come twice', () => {
    const clock = new ManualClock();
    const x = member('X', clock, rowsOf('A', 'B'));
    x.journal.handler.applyBackup(3, 'append', ['j', encodeOne(event(3, 1, 1)), clock.now()]);
    expect(x.journal.size()).toBe(0);
    const b = member('B', clock, rowsOf('A', 'B'));
    for (let i = 0; i < 3; i++) b.journal.handler.applyBackup(3, 'append', ['j', encodeOne(event(3, 1, 1)), clock.now()]);
    expect(b.journal.size()).toBe(1);
    expect(() => b.journal.handler.applyBackup(4, 'append', ['j', encodeOne(event(3, 1, 2)), clock.now()])).toThrow(/another partition/);
  });
});

function encodeOne(e: MapChangeEvent): ReturnType<typeof encodeMapEvents> {
  return encodeMapEvents([e]);
}
