// One queue as this member holds it (owner or backup): its container, config, partition, the
// polls waiting here and its empty-queue-ttl timer; plus the item's wire form shared by the
// operations, backups and replica snapshots.

import type { TimerHandle } from '../core/clock.js';
import type { GridError } from '../core/errors.js';
import type { QueueConfig } from '../config/types.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { Holder, QueueContainer, QueueItem } from './queue-container.js';
import type { QueueCounters } from './queue-metrics.js';

export interface Entry {
  readonly config: QueueConfig;
  readonly queue: QueueContainer;
  readonly partitionId: number;
  /** Persisted queues: the id the next item gets in the log (items are replayed in id order). */
  nextPersistId: number;
  destroyTimer: TimerHandle | undefined;
  /** Waiting polls of this queue on this member, answered with an error when the queue moves. */
  readonly waiting: Set<(e: GridError) => void>;
  /** The queue's counters (metrics), looked up by name once, at its first offer or poll here. */
  counters: QueueCounters | undefined;
  /** Offers waiting at the owner for room in a full queue, oldest first; each tries again when room frees. */
  readonly offerWaiters: (() => void)[];
}

/** Empty, nobody waiting, nothing reserved: empty-queue-ttl may destroy it. */
export function isIdle(e: Entry): boolean {
  return e.queue.size === 0 && e.queue.waiting === 0 && e.queue.reserved === 0 && e.offerWaiters.length === 0;
}

export function encodeItem(item: QueueItem): WireValue[] {
  return [new Latin1(item.value), item.contentType ?? null];
}

/** The item encoded by encodeItem at `at` of a tuple. */
export function decodeItem(t: readonly WireValue[], at: number): QueueItem {
  return { value: f.latin1(t, at, 'value'), contentType: f.optStr(t, at + 1, 'content type') };
}

export function holderAt(t: readonly WireValue[], at: number): Holder {
  return { member: f.str(t, at, 'holder'), id: f.int(t, at + 1, 'poll id') };
}
