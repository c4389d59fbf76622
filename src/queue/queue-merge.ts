// Split-brain merge of queues: the items a member takes from the cluster it leaves, and their
// offer to the queues of the cluster it merges into (queue items are independent, so every
// policy but DiscardMergePolicy keeps both sides').

import { findQueueConfig } from '../config/index.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { QueueItem } from './queue-container.js';
import type { QueueOperations } from './queue-operations.js';
import type { QueueRegistry } from './queue-registry.js';

/** One queue's items, taken from a cluster that merges into another after a split brain. */
export interface QueueMergeBatch {
  readonly queueName: string;
  readonly items: readonly QueueItem[];
}

/**
 * The items of the queues in partitions this member owns, in queue order, for a split-brain
 * merge: reserved ones first (they were at the head, and their polls may not have been
 * answered: at-least-once), then the queue.
 */
export function collectQueuesForMerge(reg: QueueRegistry, owned: readonly number[]): QueueMergeBatch[] {
  const mine = new Set(owned);
  const out: QueueMergeBatch[] = [];
  for (const [queueName, e] of reg.queues) {
    if (!mine.has(e.partitionId)) continue;
    const s = e.queue.state();
    const items = [...s.reservations.map((r) => r.item), ...s.returned.map((r) => r.item), ...s.items];
    if (items.length > 0) out.push({ queueName, items });
  }
  return out;
}

/**
 * Offer collected items to the queues of the cluster merged into, in order, behind the items
 * already there (every policy but DiscardMergePolicy, which drops them: a queue's items are
 * independent, so keeping both sides' loses none). An item a full queue refuses is counted.
 */
export async function mergeQueuesInto(reg: QueueRegistry, ops: QueueOperations, batches: readonly QueueMergeBatch[]): Promise<{ appended: number; discarded: number; refused: number }> {
  let appended = 0;
  let discarded = 0;
  let refused = 0;
  for (const b of batches) {
    if (findQueueConfig(reg.deps.config, b.queueName).mergePolicy.policy === 'DiscardMergePolicy') {
      discarded += b.items.length;
      continue;
    }
    const pid = queuePartitionIdOf(b.queueName);
    for (const item of b.items) {
      try {
        if (await reg.deps.invoker.invoke(pid, ops.offerOp(pid, b.queueName, item))) appended++;
        else refused++;
      } catch (e) {
        refused++;
        reg.deps.logger.warn({ queue: b.queueName }, `merging a queue item failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return { appended, discarded, refused };
}
