// Reservations of the holder: the member that serves a poll holds the item the owner reserved
// for it until it tells the owner the answer was written (confirm, batched per turn) or not
// (release), retrying until the owner hears it, so an item is never lost on the way.

import type { MaybePromise } from '../core/maybe-promise.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { Holder, QueueItem } from './queue-container.js';
import type { QueueCollectionOps } from './queue-collection-ops.js';
import type { QueueOperations } from './queue-operations.js';
import type { QueueRegistry } from './queue-registry.js';

/** Retries of a confirm or release that could not reach the owner (the last delay repeats). */
const SETTLE_RETRY_MS = [100, 500, 1_000, 2_000, 5_000];
/** Attempts at releasing what a failed poll may have reserved (it usually reserved nothing). */
const FAILED_POLL_RELEASE_ATTEMPTS = 6;
/** Poll ids wrap here (a drain takes one per item it may take): far below 2^53, where numbers stop being exact. */
const MAX_POLL_ID = 2 ** 52;
/** A drain with no limit: Java's Integer.MAX_VALUE items at most. */
const JAVA_INT_MAX = 2 ** 31 - 1;

/** What a waiting poll knows about the client that asked. */
export interface PollClient {
  /** False once the client has gone away. */
  alive(): boolean;
  /** Called once if the client goes away while the poll waits. */
  onGone(fn: () => void): void;
  /**
   * Called once with true when the answer carrying the item was written to the client (for
   * HTTP: the response finished), false when the client went before that. The item stays
   * reserved until then. Without it the item counts as delivered once it reached this member.
   */
  onAnswered?(fn: (written: boolean) => void): void;
}

export class QueueHolder {
  /** Ids of this member's polls: with its uuid, the holder of what they reserve. */
  private nextPollId = 1;
  /**
   * Polls of this turn whose answers were written, by queue: confirmed together by one
   * operation at the end of the turn (setImmediate) instead of one operation (and, in a
   * cluster, one forwarded request and one backup) per poll.
   */
  private confirms: Map<string, { pid: number; member: string; ids: number[] }> | undefined;

  constructor(
    private readonly reg: QueueRegistry,
    private readonly ops: QueueOperations,
  ) {}

  /** `n` consecutive poll ids (a drain takes one per item); wrapping long before ids stop being exact integers. */
  private ids(n: number): number {
    if (this.nextPollId + n > MAX_POLL_ID) this.nextPollId = 1;
    const first = this.nextPollId;
    this.nextPollId += n;
    return first;
  }

  /** A poll served by this member: whatever it reserved is confirmed once the answer is written, else released. */
  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined> {
    const pid = queuePartitionIdOf(queueName);
    const deadline = this.reg.deps.clock.now() + Math.max(0, timeoutMs);
    const holder: Holder = { member: this.reg.deps.membership.localUuid(), id: this.ids(1) };
    const arrived = (item: QueueItem | undefined): QueueItem | undefined => {
      if (item === undefined) return undefined;
      if (!client.alive()) {
        this.settle(pid, queueName, holder, false);
        return undefined;
      }
      if (client.onAnswered === undefined) this.settle(pid, queueName, holder, true);
      else client.onAnswered((written) => (written ? this.confirmLater(pid, queueName, holder.member, [holder.id]) : this.settle(pid, queueName, holder, false)));
      return item;
    };
    // A synchronous throw is a refusal before anything ran (shutting down, PASSIVE): nothing reserved.
    const found = this.reg.deps.invoker.invoke(pid, this.ops.pollOp(pid, queueName, deadline, timeoutMs, client, holder), client);
    if (!(found instanceof Promise)) return arrived(found);
    return found.then(arrived, (e: unknown) => {
      // The owner may have reserved an item whose answer was lost on the way: give it back.
      this.settle(pid, queueName, holder, false, 0, FAILED_POLL_RELEASE_ATTEMPTS);
      throw e;
    });
  }

  /**
   * A drain served by this member (up to `max` items, all when negative): its items stay
   * reserved, one poll id each, until the answer is written (confirmed) or not (released), as
   * a poll's item does.
   */
  drain(queueName: string, max: number, client: PollClient, collection: QueueCollectionOps): MaybePromise<QueueItem[]> {
    const pid = queuePartitionIdOf(queueName);
    const member = this.reg.deps.membership.localUuid();
    const first = this.ids(max >= 0 ? Math.max(1, Math.min(max, JAVA_INT_MAX)) : JAVA_INT_MAX);
    const arrived = (items: QueueItem[]): QueueItem[] => {
      if (items.length === 0) return items;
      const ids = items.map((_, i) => first + i);
      if (!client.alive()) {
        this.settleIds(pid, queueName, member, ids, false);
        return [];
      }
      if (client.onAnswered === undefined) this.settleIds(pid, queueName, member, ids, true);
      else client.onAnswered((written) => (written ? this.confirmLater(pid, queueName, member, ids) : this.settleIds(pid, queueName, member, ids, false)));
      return items;
    };
    const found = this.reg.deps.invoker.invoke(pid, collection.drainOp(pid, queueName, max, member, first, client), client);
    if (!(found instanceof Promise)) return arrived(found);
    return found.then(arrived, (e: unknown) => {
      // The owner may have reserved items whose answer was lost on the way: give back the run from `first`.
      this.settleIds(pid, queueName, member, { from: first }, false, 0, FAILED_POLL_RELEASE_ATTEMPTS);
      throw e;
    });
  }

  /**
   * Tell the owner the answer of a poll was written (confirm) or not (release); tried until it
   * gets there or this member stops (or `maxAttempts`): a reservation left behind while its
   * holder lives would keep its item out of the queue.
   */
  private settle(pid: number, queueName: string, holder: Holder, written: boolean, attempt = 0, maxAttempts = Infinity): void {
    this.settleIds(pid, queueName, holder.member, [holder.id], written, attempt, maxAttempts);
  }

  /** A written answer's reservations, confirmed with the others of this turn and queue. */
  private confirmLater(pid: number, queueName: string, member: string, ids: readonly number[]): void {
    if (this.reg.stopped) {
      this.settleIds(pid, queueName, member, ids, true);
      return;
    }
    let confirms = this.confirms;
    if (confirms === undefined) {
      confirms = this.confirms = new Map();
      setImmediate(this.sendConfirms);
    }
    const batch = confirms.get(queueName);
    if (batch === undefined) confirms.set(queueName, { pid, member, ids: [...ids] });
    else if (batch.member === member) batch.ids.push(...ids);
    // Held under another identity (this member's uuid changed meanwhile): on its own.
    else this.settleIds(pid, queueName, member, ids, true);
  }

  /** Confirm the written answers of this turn (also at stop: a confirm may run during shutdown). */
  readonly sendConfirms = (): void => {
    const confirms = this.confirms;
    if (confirms === undefined) return;
    this.confirms = undefined;
    for (const [queueName, b] of confirms) this.settleIds(b.pid, queueName, b.member, b.ids, true);
  };

  private settleIds(pid: number, queueName: string, member: string, ids: readonly number[] | { from: number }, written: boolean, attempt = 0, maxAttempts = Infinity): void {
    const { clock, invoker, logger } = this.reg.deps;
    const retry = (e: unknown): void => {
      if (attempt + 1 >= maxAttempts) {
        logger.warn({ queue: queueName, err: e }, 'could not release what a failed poll may have reserved: the owner returns it when this member leaves');
        return;
      }
      if (this.reg.stopped) {
        logger.debug({ queue: queueName, err: e }, `queue reservation not ${written ? 'confirmed' : 'released'} before shutdown: the owner returns it when this member has left`);
        return;
      }
      if (attempt === 0 || attempt % 10 === 0) {
        logger.warn({ queue: queueName, err: e, attempt }, `queue reservation not ${written ? 'confirmed' : 'released'} yet: trying again`);
      }
      const delay = SETTLE_RETRY_MS[Math.min(attempt, SETTLE_RETRY_MS.length - 1)]!;
      clock.setTimeout(() => this.settleIds(pid, queueName, member, ids, written, attempt + 1, maxAttempts), delay);
    };
    try {
      const op = written && Array.isArray(ids) ? this.ops.confirmOp(pid, queueName, member, ids) : this.ops.releaseOp(pid, queueName, member, ids);
      const done = invoker.invoke(pid, op);
      if (done instanceof Promise) done.catch(retry);
    } catch (e) {
      retry(e);
    }
  }
}
