// Distributed queues. A queue lives in the partition of its name; offers, polls and waiting
// polls run at that partition's owner and are replicated to its backups in order. The REST
// layer passes a `PollClient` so a poll whose client has gone consumes nothing, without the
// queue knowing about HTTP. Waiting polls move with their queue: when the owner changes they
// are tried again at the new owner for the time they have left.
//
// A polled item is *reserved* at the owner and its backups for the member serving the poll
// (the holder) until that member says the answer was written (confirm: the item is gone) or
// not (release: back to the head). When the holder leaves the member list its reservations
// go back too. So an item is never lost with the member in the middle; it may be delivered
// twice when the holder dies after writing the answer and before its confirm arrived.
//
// This file is the facade; one module per concern does the work: queue-operations (owner),
// queue-holder (reservations of the holder), queue-collection-ops (clear, addAll, drain,
// remove, contains, items: what Hazelcast's clients call beyond offer and poll), queue-departed (reservations of members that
// left), queue-remote (member messages, backups), queue-persistence, queue-replicas
// (migration), queue-merge and queue-metrics; queue-registry holds the queues; queue-events
// makes their change events at the owner. The checks
// before a change (split-brain protection, a full log) are invocation/split-brain-protection.ts'
// StructureProtection, shared with maps.

import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { Caller, DataServiceDeps, OperationHandler } from '../invocation/invoker.js';
import { ALONE_SIZE, StructureProtection } from '../invocation/split-brain-protection.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { ReplicaData } from '../partition/partition-service.js';
import type { LogRecord } from '../persistence/log-format.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { QueueItem } from './queue-container.js';
import { QueueCollectionOps, withCollectionOps } from './queue-collection-ops.js';
import { QueueDeparted } from './queue-departed.js';
import type { QueueEventSource } from './queue-events.js';
import { QueueHolder, type PollClient } from './queue-holder.js';
import { collectQueuesForMerge, mergeQueuesInto, type QueueMergeBatch } from './queue-merge.js';
import { reportQueueMetrics, type QueueCounters } from './queue-metrics.js';
import { QueueOperations, type QueueStats } from './queue-operations.js';
import type { QueuePersistence } from './queue-persistence.js';
import { QueueRegistry, type QueueMembership, type ReservationStats } from './queue-registry.js';
import { queueHandler } from './queue-remote.js';
import { queueNames } from './queue-list.js';
import { queueReplicaData } from './queue-replicas.js';

// The names other layers import from here.
export type { QueueItem } from './queue-container.js';
export type { QueueChangeEvent, QueueEventBus, QueueEventSource, QueueEventType } from './queue-events.js';
export type { PollClient } from './queue-holder.js';
export type { QueueMergeBatch } from './queue-merge.js';
export { QueueCounters } from './queue-metrics.js';
export type { QueueStats } from './queue-operations.js';
export type { QueuePersistence } from './queue-persistence.js';
export type { QueueMembership, ReservationStats } from './queue-registry.js';

/** Everything in one process: the only member, owning everything. */
const ALONE: QueueMembership = {
  localUuid: () => 'local',
  isMember: () => true,
  isOwner: () => true,
  onMembersRemoved: () => () => undefined,
};

/** How an offer may wait for room in a full queue: up to `timeoutMs`, while its client is there. */
export interface OfferWait {
  readonly timeoutMs: number;
  readonly client: Caller;
}

export interface QueueFacade {
  /** False when the queue is full (after waiting up to `wait.timeoutMs` for room, when given). */
  offer(queueName: string, item: QueueItem, wait?: OfferWait): MaybePromise<boolean>;
  /** Wait up to `timeoutMs` (0 = don't wait) for an item; undefined when none came. */
  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined>;
  size(queueName: string): MaybePromise<number>;
  /** The head item without taking it (reserved items are not the head); undefined when empty. */
  peek(queueName: string): MaybePromise<QueueItem | undefined>;
  /** Items, reserved items and waiting polls, as the owner sees them. */
  stats(queueName: string): MaybePromise<QueueStats>;
  /** The max-size of the queue's config (0 = unbounded), for error messages. */
  maxSizeOf(queueName: string): number;
  /** Remove every item; answers how many went. */
  clear(queueName: string): MaybePromise<number>;
  /** All of `items` or none (false: they do not all fit under max-size). */
  addAll(queueName: string, items: readonly QueueItem[]): MaybePromise<boolean>;
  /** Take up to `max` items (all when negative), reserved until the answer is written as a poll's are. */
  drain(queueName: string, max: number, client: PollClient): MaybePromise<QueueItem[]>;
  /** Remove the first item equal to `item`; false when there is none. */
  remove(queueName: string, item: QueueItem): MaybePromise<boolean>;
  /** Whether every one of `items` is in the queue. */
  containsAll(queueName: string, items: readonly QueueItem[]): MaybePromise<boolean>;
  /** The items in queue order. */
  items(queueName: string): MaybePromise<QueueItem[]>;
  /** Room left under max-size (an unbounded queue counts as Java's Integer.MAX_VALUE). */
  remainingCapacity(queueName: string): MaybePromise<number>;
  /** Every queue of the cluster (as their owners hold them) with its size, by name. */
  queueNames(): Promise<{ name: string; size: number }[]>;
}

export class QueueService implements QueueFacade {
  private readonly reg: QueueRegistry;
  /** The registry's queues by name (test/http/queues.test.ts peeks at it to see waiting polls registered). */
  private readonly queues: QueueRegistry['queues'];
  private readonly protection: StructureProtection;
  private readonly ops: QueueOperations;
  private readonly holder: QueueHolder;
  private readonly departed: QueueDeparted;
  private readonly collection: QueueCollectionOps;
  /** The owner's side of remote calls, and the backups' side of queue changes. */
  readonly handler: OperationHandler;
  /** How the partition layer moves this service's data. */
  readonly replicaData: ReplicaData;
  /** The owner side of queue change events: the queue event bus (events/) attaches here. */
  readonly events: QueueEventSource;

  constructor(deps: DataServiceDeps & { membership?: QueueMembership }) {
    this.reg = new QueueRegistry({
      config: deps.config,
      invoker: deps.invoker,
      clock: deps.clock,
      logger: deps.logger,
      membership: deps.membership ?? ALONE,
      gate: deps.writeGate,
    });
    this.queues = this.reg.queues;
    this.events = this.reg.events;
    const reg = this.reg;
    this.protection = new StructureProtection({
      kind: 'queue',
      config: deps.config,
      entries: deps.config.queues,
      clusterSize: deps.clusterSize ?? ALONE_SIZE,
      configOf: (queueName) => reg.configOf(queueName),
      persistence: () => reg.log.persistence,
    });
    this.ops = new QueueOperations(this.reg, this.protection);
    this.holder = new QueueHolder(this.reg, this.ops);
    this.departed = new QueueDeparted(this.reg, this.ops, deps.membership !== undefined);
    this.collection = new QueueCollectionOps(this.reg, this.ops);
    this.handler = withCollectionOps(queueHandler(this.reg, this.ops), this.collection);
    this.replicaData = queueReplicaData(this.reg);
  }

  offer(queueName: string, item: QueueItem, wait?: OfferWait): MaybePromise<boolean> {
    this.protection.guardHere(queueName, 'WRITE');
    const pid = queuePartitionIdOf(queueName);
    if (wait === undefined || wait.timeoutMs <= 0) return this.reg.deps.invoker.invoke(pid, this.ops.offerOp(pid, queueName, item));
    const deadline = this.reg.deps.clock.now() + wait.timeoutMs;
    return this.reg.deps.invoker.invoke(pid, this.ops.offerOp(pid, queueName, item, deadline, wait.client), wait.client);
  }

  clear(queueName: string): MaybePromise<number> {
    this.protection.guardHere(queueName, 'WRITE');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.collection.clearOp(pid, queueName));
  }

  addAll(queueName: string, items: readonly QueueItem[]): MaybePromise<boolean> {
    this.protection.guardHere(queueName, 'WRITE');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.collection.addAllOp(pid, queueName, items));
  }

  drain(queueName: string, max: number, client: PollClient): MaybePromise<QueueItem[]> {
    this.protection.guardHere(queueName, 'WRITE');
    return this.holder.drain(queueName, max, client, this.collection);
  }

  remove(queueName: string, item: QueueItem): MaybePromise<boolean> {
    this.protection.guardHere(queueName, 'WRITE');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.collection.removeOp(pid, queueName, item));
  }

  containsAll(queueName: string, items: readonly QueueItem[]): MaybePromise<boolean> {
    this.protection.guardHere(queueName, 'READ');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.collection.containsOp(queueName, items));
  }

  items(queueName: string): MaybePromise<QueueItem[]> {
    this.protection.guardHere(queueName, 'READ');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.collection.itemsOp(queueName));
  }

  remainingCapacity(queueName: string): MaybePromise<number> {
    const max = this.reg.configOf(queueName).maxSize;
    const size = this.size(queueName);
    const left = (n: number): number => (max > 0 ? max : 2 ** 31 - 1) - n;
    return size instanceof Promise ? size.then(left) : left(size);
  }

  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined> {
    this.protection.guardHere(queueName, 'WRITE');
    return this.holder.poll(queueName, timeoutMs, client);
  }

  size(queueName: string): MaybePromise<number> {
    this.protection.guardHere(queueName, 'READ');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.ops.sizeOp(queueName));
  }

  peek(queueName: string): MaybePromise<QueueItem | undefined> {
    this.protection.guardHere(queueName, 'READ');
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.ops.peekOp(queueName));
  }

  stats(queueName: string): MaybePromise<QueueStats> {
    const pid = queuePartitionIdOf(queueName);
    return this.reg.deps.invoker.invoke(pid, this.ops.statsOp(queueName));
  }

  maxSizeOf(queueName: string): number {
    return this.reg.configOf(queueName).maxSize;
  }

  queueNames(): Promise<{ name: string; size: number }[]> {
    return queueNames(this.reg);
  }

  /** The per-queue metrics (docs/metrics.md) of the queues this member owns. */
  /** Each queue's operation counters on this member as owner, since it started (the console's rates). */
  forEachCounters(fn: (counters: QueueCounters, queueName: string) => void): void {
    this.reg.counters.forEach(fn);
  }

  reportMetrics(r: MetricsRegistrar): void {
    reportQueueMetrics(r, this.reg);
  }

  /** Reservation counts of this member since it started. */
  reservationStats(): ReservationStats {
    return { ...this.reg.counts };
  }

  /** Items reserved in this member's copy of the queue (owner or backup), for tests. */
  reservedCount(queueName: string): number {
    return this.queues.get(queueName)?.queue.reserved ?? 0;
  }

  /** Answer every waiting poll with a shutdown error. */
  stop(): void {
    // Written answers of this turn are confirmed now (a confirm may run during shutdown).
    this.holder.sendConfirms();
    this.reg.stopped = true;
    this.departed.stop();
    const err = new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    for (const e of this.queues.values()) {
      e.destroyTimer?.cancel();
      this.reg.failWaiters(e, err);
      e.queue.drainWaiters();
    }
  }

  // ------------------------------------------------------------------ split-brain merge

  /** The items of the queues in partitions this member owns, for a split-brain merge (see queue-merge.ts). */
  collectForMerge(owned: readonly number[]): QueueMergeBatch[] {
    return collectQueuesForMerge(this.reg, owned);
  }

  /** Offer collected items to the queues of the cluster merged into (see queue-merge.ts). */
  mergeInto(batches: readonly QueueMergeBatch[]): Promise<{ appended: number; discarded: number; refused: number }> {
    return mergeQueuesInto(this.reg, this.ops, batches);
  }

  // ------------------------------------------------------------------ persistence

  /** Queues with data-persistence persist every item in and out from now on (set once at start). */
  setPersistence(p: QueuePersistence): void {
    this.reg.log.persistence = p;
  }

  /** Replay persisted records (member start): every persisted item back in its queue, in offer order. Returns the items restored. */
  restorePersisted(records: Iterable<LogRecord>): number {
    return this.reg.log.restore(records, (name, pid) => this.reg.entry(name, pid));
  }

  /** Restored queues of an older partition hash version: each to its partition under this build's hash; returns the queues moved. */
  rehomePersisted(): number {
    let moved = 0;
    for (const [name, e] of this.reg.queues) {
      const to = queuePartitionIdOf(name);
      if (to === e.partitionId) continue;
      this.reg.queues.set(name, { ...e, partitionId: to });
      moved++;
    }
    return moved;
  }

  /** The current content of every persisted queue here, as log records (a compaction's snapshot). */
  persistedRecords(): IterableIterator<LogRecord> {
    return this.reg.log.records(this.queues);
  }
}
