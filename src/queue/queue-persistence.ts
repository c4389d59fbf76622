// Queue persistence: the persisted-item codec and the log of every item in and out of a
// persisted queue through the narrow `QueuePersistence` view of the member's log, the replay
// at start and the compaction snapshot.

import { GridError } from '../core/errors.js';
import { LogOp, type LogRecord } from '../persistence/log-format.js';
import type { ContainerState, QueueItem } from './queue-container.js';
import type { Entry } from './queue-entry.js';

/** Where a persisted queue's changes go (the member's persistence; a narrow view of it). */
export interface QueuePersistence {
  /** False while the member loads its persisted data. */
  readonly logging: boolean;
  append(r: LogRecord, sync: boolean): void;
  /** Why a write of persisted data is refused now (the disk is full or failed); undefined: it is not. */
  refusal(): GridError | undefined;
}

/** A persisted item: [u16 content type length, 0xffff = none][content type utf8][value bytes]. */
function encodePersistedItem(item: QueueItem): Buffer {
  const ct = item.contentType === undefined ? undefined : Buffer.from(item.contentType, 'utf8');
  const out = Buffer.allocUnsafe(2 + (ct?.length ?? 0) + item.value.length);
  out.writeUInt16LE(ct === undefined ? 0xffff : ct.length, 0);
  ct?.copy(out, 2);
  out.write(item.value, 2 + (ct?.length ?? 0), 'latin1');
  return out;
}

function decodePersistedItem(b: Uint8Array): QueueItem {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 2) throw new GridError('INTERNAL', 'persisted queue item too short');
  const n = buf.readUInt16LE(0);
  const ctLen = n === 0xffff ? 0 : n;
  if (2 + ctLen > buf.length) throw new GridError('INTERNAL', 'persisted queue item: content type runs past the end');
  return { contentType: n === 0xffff ? undefined : buf.toString('utf8', 2, 2 + ctLen), value: buf.toString('latin1', 2 + ctLen) };
}

/** A queue's items in the order a restart gives them back: taken ones (returned or reserved) by take order, then the rest. */
export function persistOrder(s: ContainerState): QueueItem[] {
  const taken = [...s.returned.map((r) => ({ item: r.item, order: r.order })), ...s.reservations.map((r) => ({ item: r.item, order: r.order }))].sort((a, b) => a.order - b.order);
  return [...taken.map((t) => t.item), ...s.items];
}

/** The log side of the queues on this member. */
export class QueueLog {
  persistence: QueuePersistence | undefined;
  /** The log id of each persisted item (items are distinct objects; a removal names its id). */
  private readonly persistIds = new WeakMap<QueueItem, number>();

  put(name: string, e: Entry, item: QueueItem): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    const id = e.nextPersistId++;
    this.persistIds.set(item, id);
    p.append({ op: LogOp.Put, partitionId: e.partitionId, service: 'queue', name, key: String(id), value: encodePersistedItem(item) }, e.config.dataPersistence.fsync);
  }

  remove(name: string, e: Entry, item: QueueItem): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    const id = this.persistIds.get(item);
    if (id === undefined) return;
    this.persistIds.delete(item);
    p.append({ op: LogOp.Remove, partitionId: e.partitionId, service: 'queue', name, key: String(id) }, e.config.dataPersistence.fsync);
  }

  clear(name: string, e: Entry): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    p.append({ op: LogOp.Clear, partitionId: e.partitionId, service: 'queue', name }, e.config.dataPersistence.fsync);
  }

  /**
   * Replay persisted records (member start): every persisted item back in its queue, in the
   * order it was offered. Items that were reserved by a poll whose answer was never confirmed
   * are back in the queue (at-least-once). Returns the items restored.
   */
  restore(records: Iterable<LogRecord>, entry: (queueName: string, pid: number) => Entry): number {
    const byQueue = new Map<string, { pid: number; items: Map<number, Uint8Array> }>();
    for (const r of records) {
      if (r.op === LogOp.DropPartition) {
        for (const [name, q] of byQueue) if (q.pid === r.partitionId) byQueue.delete(name);
        continue;
      }
      if (r.service !== 'queue') continue;
      let q = byQueue.get(r.name);
      if (r.op === LogOp.Clear) {
        byQueue.delete(r.name);
        continue;
      }
      if (q === undefined || q.pid !== r.partitionId) byQueue.set(r.name, (q = { pid: r.partitionId, items: new Map() }));
      if (r.op === LogOp.Put) q.items.set(Number(r.key), r.value);
      else q.items.delete(Number(r.key));
    }
    let n = 0;
    for (const [name, q] of byQueue) {
      if (q.items.size === 0) continue;
      const e = entry(name, q.pid);
      const ids = [...q.items.keys()].sort((a, b) => a - b);
      const items: QueueItem[] = [];
      for (const id of ids) {
        const item = decodePersistedItem(q.items.get(id)!);
        this.persistIds.set(item, id);
        items.push(item);
      }
      e.queue.restore({ returned: [], items, reservations: [], nextOrder: 0 });
      e.nextPersistId = (ids[ids.length - 1] ?? 0) + 1;
      n += items.length;
    }
    return n;
  }

  /** The current content of every persisted queue here, as log records (a compaction's snapshot). */
  *records(queues: ReadonlyMap<string, Entry>): IterableIterator<LogRecord> {
    for (const [name, e] of queues) {
      if (!e.config.dataPersistence.enabled) continue;
      for (const item of persistOrder(e.queue.state())) {
        let id = this.persistIds.get(item);
        if (id === undefined) this.persistIds.set(item, (id = e.nextPersistId++));
        yield { op: LogOp.Put, partitionId: e.partitionId, service: 'queue', name, key: String(id), value: encodePersistedItem(item) };
      }
    }
  }
}
