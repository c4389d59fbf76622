// The queue's member-message side: the operations a remote caller asks this member to run as
// the queue's owner (decoded from their wire arguments), their results on the wire, and the
// backups' side of every queue change.

import { GridError } from '../core/errors.js';
import type { Caller, Operation, OperationHandler } from '../invocation/invoker.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { QueueItem } from './queue-container.js';
import { decodeItem, encodeItem, holderAt } from './queue-entry.js';
import type { QueueOperations, QueueStats } from './queue-operations.js';
import type { QueueRegistry } from './queue-registry.js';
import { decodeQueueNames, encodeQueueNames, queueNamesOp } from './queue-list.js';

function ids(t: readonly WireValue[], from: number): number[] {
  const out: number[] = [];
  for (let i = from; i < t.length; i++) out.push(f.int(t, i, 'poll id'));
  return out;
}

export function queueHandler(reg: QueueRegistry, ops: QueueOperations): OperationHandler {
  return {
    operation: (pid: number, type: string, args: readonly WireValue[], caller: Caller): Operation<unknown> => {
      if (type === 'names') return queueNamesOp(reg, pid);
      const name = f.str(args, 0, 'queue name');
      if (queuePartitionIdOf(name) !== pid) throw new GridError('BAD_REQUEST', `queue ${name} is not in partition ${pid}`);
      switch (type) {
        case 'offer':
          // [name, value, content type, deadline?]: a waiting offer carries its deadline.
          return ops.offerOp(pid, name, decodeItem(args, 1), args.length > 3 ? f.num(args, 3, 'deadline') : 0, caller);
        case 'poll': {
          const deadline = f.num(args, 1, 'deadline');
          const holder = { member: f.str(args, 2, 'holder'), id: f.int(args, 3, 'poll id') };
          return ops.pollOp(pid, name, deadline, Math.max(0, deadline - reg.deps.clock.now()), caller, holder);
        }
        case 'confirm':
          return ops.confirmOp(pid, name, f.str(args, 1, 'holder'), ids(args, 2));
        case 'release': {
          const member = f.str(args, 1, 'holder');
          if (args[2] === 'run') return ops.releaseOp(pid, name, member, { from: f.int(args, 3, 'poll id') });
          return ops.releaseOp(pid, name, member, f.bool(args, 2, 'left') ? 'left' : ids(args, 3));
        }
        case 'size':
          return ops.sizeOp(name);
        case 'peek':
          return ops.peekOp(name);
        case 'stats':
          return ops.statsOp(name);
      }
      throw new GridError('BAD_REQUEST', `unknown queue operation ${type}`);
    },
    encodeResult: (type: string, result: unknown): WireValue => {
      if (type === 'offer') return result as boolean;
      if (type === 'names') return encodeQueueNames(result as [string, number][]);
      if (type === 'size' || type === 'confirm' || type === 'release') return result as number;
      if (type === 'poll' || type === 'peek') return result === undefined ? null : encodeItem(result as QueueItem);
      if (type === 'stats') {
        const st = result as QueueStats;
        return [st.size, st.reserved, st.waitingPolls];
      }
      return null;
    },
    decodeResult: (type: string, w: WireValue): unknown => {
      if (type === 'offer') return w === true;
      if (type === 'names') return decodeQueueNames(w);
      if (type === 'size' || type === 'confirm' || type === 'release') return typeof w === 'number' ? w : 0;
      if (type === 'poll' || type === 'peek') {
        if (w === null) return undefined;
        return decodeItem(f.tuple(w, 'queue item'), 0);
      }
      if (type === 'stats') {
        const t = f.tuple(w, 'queue stats');
        return { size: f.int(t, 0, 'size'), reserved: f.int(t, 1, 'reserved'), waitingPolls: f.int(t, 2, 'waiting polls') };
      }
      return undefined;
    },
    applyBackup: (pid: number, type: string, args: readonly WireValue[]): void => {
      const name = f.str(args, 0, 'queue name');
      switch (type) {
        case 'offer': {
          // A backup this member cannot persist is refused untouched: the owner fails the offer.
          ops.protection.checkPersistable(name);
          const e = reg.entry(name, pid);
          const item = decodeItem(args, 1);
          e.queue.append(item);
          reg.log.put(name, e, item);
          return;
        }
        case 'offerReserved': {
          const e = reg.entry(name, pid);
          const item = decodeItem(args, 1);
          e.queue.holdOffered(holderAt(args, 3), item, f.int(args, 5, 'order'));
          reg.log.put(name, e, item);
          return;
        }
        case 'reserve':
          reg.entry(name, pid).queue.takeAs(holderAt(args, 1), f.int(args, 3, 'order'));
          return;
        case 'confirm': {
          const e = reg.queues.get(name);
          const member = f.str(args, 1, 'holder');
          for (const id of ids(args, 2)) {
            const r = e?.queue.confirm({ member, id });
            if (r !== undefined) reg.log.remove(name, e!, r.item);
          }
          return;
        }
        case 'release': {
          const q = reg.entry(name, pid).queue;
          for (let i = 1; i + 3 < args.length; i += 4) {
            const to = args[i + 2] === null ? undefined : holderAt(args, i + 2);
            q.releaseAs(holderAt(args, i), to);
          }
          return;
        }
        case 'destroy': {
          const e = reg.queues.get(name);
          if (e !== undefined && e.queue.size === 0 && e.queue.reserved === 0) {
            reg.queues.delete(name);
            reg.log.clear(name, e);
          }
          return;
        }
      }
      throw new GridError('BAD_REQUEST', `unknown queue backup ${type}`);
    },
  };
}
