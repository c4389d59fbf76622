// The queue's collection operations on its owner, beyond offer and poll: clear, addAll (all or
// nothing within max-size, as Hazelcast), drain (items reserved like a poll's until the holder
// says the answer was written), remove of one item, contains and the items in order — each
// with what its backups apply and its member-message form. Hazelcast's clients call them;
// REST has no route for them.

import { GridError } from '../core/errors.js';
import type { Caller, Operation, OperationHandler } from '../invocation/invoker.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { sameItem, type QueueItem } from './queue-container.js';
import { decodeItem, encodeItem } from './queue-entry.js';
import type { QueueOperations } from './queue-operations.js';
import { QueueOp, type QueueRegistry } from './queue-registry.js';

/** The collection operations' types, as the member messages and backups name them. */
const TYPES = new Set(['clear', 'addAll', 'drain', 'remove', 'contains', 'items']);

export function isCollectionType(type: string): boolean {
  return TYPES.has(type);
}

function itemsAt(t: readonly WireValue[], from: number): QueueItem[] {
  const out: QueueItem[] = [];
  for (let i = from; i + 1 < t.length; i += 2) out.push(decodeItem(t, i));
  return out;
}

function flatItems(items: readonly QueueItem[]): WireValue[] {
  const out: WireValue[] = [];
  for (const it of items) out.push(...encodeItem(it));
  return out;
}

export class QueueCollectionOps {
  constructor(
    private readonly reg: QueueRegistry,
    private readonly ops: QueueOperations,
  ) {}

  /** Remove every item (reserved ones stay reserved: their polls were answered); answers how many went. */
  clearOp(pid: number, queueName: string): Operation<number> {
    const reg = this.reg;
    const args = [queueName];
    return new QueueOp('queue.clear', 'clear', true, args, () => {
      this.ops.protection.guardOwner(queueName, 'WRITE');
      const e = reg.queues.get(queueName);
      if (e === undefined) return 0;
      const gone = e.queue.clear();
      for (const it of gone) reg.log.remove(queueName, e, it);
      reg.events.cleared(queueName, pid, gone.length);
      this.ops.wakeOffers(e);
      reg.scheduleDestroyIfEmpty(queueName, e);
      return gone.length;
    }, (n) => (n > 0 ? reg.backupOf(queueName, 'clear', args) : undefined));
  }

  /**
   * All the items or none: false when they do not all fit under max-size (Hazelcast's
   * hasEnoughCapacity), else each goes in as an offer would (to a waiting poll first).
   */
  addAllOp(pid: number, queueName: string, items: readonly QueueItem[]): Operation<boolean> {
    const reg = this.reg;
    let backup: WireValue[] = [];
    return new QueueOp('queue.addAll', 'addAll', true, [queueName, ...flatItems(items)], () => {
      this.ops.protection.guardOwner(queueName, 'WRITE');
      reg.deps.gate?.check(`the addAll to queue "${queueName}"`);
      backup = [queueName];
      const e = reg.entry(queueName, pid);
      const q = e.queue;
      if (q.maxSize > 0 && q.size + items.length > q.maxSize) {
        reg.scheduleDestroyIfEmpty(queueName, e);
        return false;
      }
      const counters = (e.counters ??= reg.counters.of(queueName, true));
      for (const it of items) {
        const o = q.offerItem(it);
        counters.offers++;
        reg.events.added(queueName, pid, it);
        if (o === 'handed') {
          reg.events.removed(queueName, pid, it);
          continue;
        }
        reg.log.put(queueName, e, it);
        if (typeof o === 'object') {
          reg.counts.reserved++;
          backup.push(...encodeItem(it), o.holder.member, o.holder.id, o.order);
        } else backup.push(...encodeItem(it), null, null, null);
      }
      reg.scheduleDestroyIfEmpty(queueName, e);
      return true;
    }, () => (backup.length > 1 ? reg.backupOf(queueName, 'addAll', backup) : undefined));
  }

  /**
   * Up to `max` head items (all when negative), each reserved for `member` under the poll ids
   * from `firstId` on, until the holder confirms (answer written) or releases them. A drain
   * whose client has gone takes nothing.
   */
  drainOp(pid: number, queueName: string, max: number, member: string, firstId: number, client: Caller): Operation<QueueItem[]> {
    const reg = this.reg;
    let orders: number[] = [];
    return new QueueOp('queue.drain', 'drain', true, [queueName, max, member, firstId], () => {
      this.ops.protection.guardOwner(queueName, 'WRITE');
      orders = [];
      const e = reg.queues.get(queueName);
      if (e === undefined) return [];
      const again = e.queue.reservation({ member, id: firstId }) !== undefined;
      if (!again && !client.alive()) return [];
      const taken = e.queue.drain(member, firstId, max < 0 ? Infinity : max);
      if (!again) {
        orders = taken.map((r) => r.order);
        reg.counts.reserved += taken.length;
        (e.counters ??= reg.counters.of(queueName, true)).polls += taken.length;
        this.ops.wakeOffers(e);
      }
      reg.scheduleDestroyIfEmpty(queueName, e);
      return taken.map((r) => r.item);
    }, () => (orders.length > 0 ? reg.backupOf(queueName, 'drain', [queueName, member, firstId, ...orders]) : undefined));
  }

  /** Remove the first item equal to `item` (same bytes and content type); false when there is none. */
  removeOp(pid: number, queueName: string, item: QueueItem): Operation<boolean> {
    const reg = this.reg;
    const args = [queueName, ...encodeItem(item)];
    return new QueueOp('queue.remove', 'remove', true, args, () => {
      this.ops.protection.guardOwner(queueName, 'WRITE');
      const e = reg.queues.get(queueName);
      const gone = e?.queue.removeFirst((it) => sameItem(it, item));
      if (gone === undefined) return false;
      reg.log.remove(queueName, e!, gone);
      reg.events.removed(queueName, pid, gone);
      this.ops.wakeOffers(e!);
      reg.scheduleDestroyIfEmpty(queueName, e!);
      return true;
    }, (removed) => (removed ? reg.backupOf(queueName, 'remove', args) : undefined));
  }

  /** Whether every one of `items` is in the queue (an empty list: true, as Java's containsAll). */
  containsOp(queueName: string, items: readonly QueueItem[]): Operation<boolean> {
    return new QueueOp('queue.contains', 'contains', false, [queueName, ...flatItems(items)], () => {
      this.ops.protection.guardOwner(queueName, 'READ');
      const q = this.reg.queues.get(queueName)?.queue;
      return items.every((item) => q?.contains((it) => sameItem(it, item)) ?? false);
    });
  }

  /** The items in queue order (reserved ones are not in the queue). */
  itemsOp(queueName: string): Operation<QueueItem[]> {
    return new QueueOp('queue.items', 'items', false, [queueName], () => {
      this.ops.protection.guardOwner(queueName, 'READ');
      return [...(this.reg.queues.get(queueName)?.queue.snapshot() ?? [])];
    });
  }

  // ------------------------------------------------------------------ member messages

  /** The operation a remote member asked this owner to run. */
  operation(pid: number, type: string, name: string, args: readonly WireValue[], caller: Caller): Operation<unknown> {
    switch (type) {
      case 'clear':
        return this.clearOp(pid, name);
      case 'addAll':
        return this.addAllOp(pid, name, itemsAt(args, 1));
      case 'drain':
        return this.drainOp(pid, name, f.int(args, 1, 'max'), f.str(args, 2, 'holder'), f.int(args, 3, 'poll id'), caller);
      case 'remove':
        return this.removeOp(pid, name, decodeItem(args, 1));
      case 'contains':
        return this.containsOp(name, itemsAt(args, 1));
      case 'items':
        return this.itemsOp(name);
    }
    throw new GridError('BAD_REQUEST', `unknown queue operation ${type}`);
  }

  encodeResult(type: string, result: unknown): WireValue {
    if (type === 'drain' || type === 'items') return flatItems(result as QueueItem[]);
    return result as WireValue;
  }

  decodeResult(type: string, w: WireValue): unknown {
    if (type === 'drain' || type === 'items') return itemsAt(f.tuple(w, 'queue items'), 0);
    if (type === 'clear') return typeof w === 'number' ? w : 0;
    return w === true;
  }

  /** A backup applying what its owner did. */
  applyBackup(pid: number, type: string, name: string, args: readonly WireValue[]): void {
    const reg = this.reg;
    switch (type) {
      case 'clear': {
        const e = reg.queues.get(name);
        if (e !== undefined) for (const it of e.queue.clear()) reg.log.remove(name, e, it);
        return;
      }
      case 'addAll': {
        // Refused untouched when this member cannot persist it: the owner fails the addAll.
        this.ops.protection.checkPersistable(name);
        const e = reg.entry(name, pid);
        for (let i = 1; i + 4 < args.length; i += 5) {
          const item = decodeItem(args, i);
          if (args[i + 2] === null) e.queue.append(item);
          else e.queue.holdOffered({ member: f.str(args, i + 2, 'holder'), id: f.int(args, i + 3, 'poll id') }, item, f.int(args, i + 4, 'order'));
          reg.log.put(name, e, item);
        }
        return;
      }
      case 'drain': {
        const orders: number[] = [];
        for (let i = 3; i < args.length; i++) orders.push(f.int(args, i, 'order'));
        reg.entry(name, pid).queue.drainAs(f.str(args, 1, 'holder'), f.int(args, 2, 'poll id'), orders);
        return;
      }
      case 'remove': {
        const e = reg.queues.get(name);
        const item = decodeItem(args, 1);
        const gone = e?.queue.removeFirst((it) => sameItem(it, item));
        if (gone !== undefined) reg.log.remove(name, e!, gone);
        return;
      }
    }
    throw new GridError('BAD_REQUEST', `unknown queue backup ${type}`);
  }
}

/** The handler of queue-remote.ts with the collection operations added (one handler per service). */
export function withCollectionOps(base: OperationHandler, c: QueueCollectionOps): OperationHandler {
  return {
    operation: (pid, type, args, caller) => {
      if (!isCollectionType(type)) return base.operation(pid, type, args, caller);
      const name = f.str(args, 0, 'queue name');
      if (queuePartitionIdOf(name) !== pid) throw new GridError('BAD_REQUEST', `queue ${name} is not in partition ${pid}`);
      return c.operation(pid, type, name, args, caller);
    },
    encodeResult: (type, result) => (isCollectionType(type) ? c.encodeResult(type, result) : base.encodeResult(type, result)),
    decodeResult: (type, w) => (isCollectionType(type) ? c.decodeResult(type, w) : base.decodeResult(type, w)),
    applyBackup: (pid, type, args) => (isCollectionType(type) ? c.applyBackup(pid, type, f.str(args, 0, 'queue name'), args) : base.applyBackup(pid, type, args)),
  };
}
