// How the partition layer moves the queues of a partition (migration, backup sync): a
// snapshot of each queue's state (items, returned items, reservations), its install on the
// receiving member, drop, trim, and what the old owner does with its waiting polls.

import { GridError } from '../core/errors.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { ContainerState, QueueItem, Reservation } from './queue-container.js';
import { decodeItem, holderAt } from './queue-entry.js';
import { persistOrder } from './queue-persistence.js';
import type { QueueRegistry } from './queue-registry.js';

/** Fields after the queue name in a replica snapshot: items, returned, reservations, next order. */
const STATE_FIELDS = 4;

function encodeState(s: ContainerState): WireValue[] {
  const items: WireValue[] = [];
  for (const it of s.items) items.push(new Latin1(it.value), it.contentType ?? null);
  const returned: WireValue[] = [];
  for (const r of s.returned) returned.push(r.order, new Latin1(r.item.value), r.item.contentType ?? null);
  const held: WireValue[] = [];
  for (const r of s.reservations) held.push(r.holder.member, r.holder.id, r.order, new Latin1(r.item.value), r.item.contentType ?? null);
  return [items, returned, held, s.nextOrder];
}

function decodeState(t: readonly WireValue[], at: number): ContainerState {
  const items: QueueItem[] = [];
  const rawItems = f.arr(t, at, 'items');
  for (let j = 0; j + 1 < rawItems.length; j += 2) items.push(decodeItem(rawItems, j));
  const returned: { item: QueueItem; order: number }[] = [];
  const rawReturned = f.arr(t, at + 1, 'returned items');
  for (let j = 0; j + 2 < rawReturned.length; j += 3) returned.push({ order: f.int(rawReturned, j, 'order'), item: decodeItem(rawReturned, j + 1) });
  const reservations: Reservation[] = [];
  const rawHeld = f.arr(t, at + 2, 'reservations');
  for (let j = 0; j + 4 < rawHeld.length; j += 5) {
    reservations.push({ holder: holderAt(rawHeld, j), order: f.int(rawHeld, j + 2, 'order'), item: decodeItem(rawHeld, j + 3) });
  }
  return { items, returned, reservations, nextOrder: f.int(t, at + 3, 'next order') };
}

export function queueReplicaData(reg: QueueRegistry): ReplicaData {
  return {
    name: 'queue',
    snapshot: (pid: number, replicaIndex: number): WireValue | undefined => {
      const out: WireValue[] = [];
      for (const [name, e] of reg.queues) {
        if (e.partitionId !== pid) continue;
        if (replicaIndex > e.config.backupCount + e.config.asyncBackupCount) continue;
        out.push(name, ...encodeState(e.queue.state()));
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      reg.dropPartition(pid);
      if (data === undefined) return;
      const t = f.tuple(data, 'queue data');
      for (let i = 0; i + STATE_FIELDS < t.length; i += STATE_FIELDS + 1) {
        const name = f.str(t, i, 'queue name');
        const e = reg.entry(name, pid);
        e.queue.restore(decodeState(t, i + 1));
        // A copied queue is persisted whole, in its order (after the partition's drop record).
        for (const item of persistOrder(e.queue.state())) reg.log.put(name, e, item);
      }
    },
    drop: (pid: number): void => reg.dropPartition(pid),
    trim: (pid: number, replicaIndex: number): void => {
      for (const [name, e] of reg.queues) {
        if (e.partitionId !== pid || 1 + e.config.backupCount + e.config.asyncBackupCount > replicaIndex) continue;
        e.destroyTimer?.cancel();
        reg.queues.delete(name);
        reg.log.clear(name, e);
      }
    },
    ownershipLost: (pid: number): void => {
      for (const [name, e] of reg.queues) {
        if (e.partitionId !== pid) continue;
        e.destroyTimer?.cancel();
        e.destroyTimer = undefined;
        if (e.waiting.size > 0) reg.deps.logger.debug({ queue: name }, 'queue moved: its waiting polls go to the new owner');
        reg.failWaiters(e, new GridError('WRONG_TARGET', `queue ${name} moved to another member`));
      }
    },
  };
}
