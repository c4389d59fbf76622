// Distributed queues. A queue lives in the partition of its name; offers, polls and waiting
// polls run there. The REST layer passes a `PollClient` so a poll whose client has gone
// consumes nothing, without the queue knowing about HTTP.

import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError } from '../core/errors.js';
import { andThen, type MaybePromise } from '../core/maybe-promise.js';
import type { Logger } from '../core/logger.js';
import { findQueueConfig } from '../config/index.js';
import type { GridConfig, QueueConfig } from '../config/types.js';
import type { Invoker } from '../invocation/invoker.js';
import { partitionIdOf } from '../partition/partitioning.js';
import { QueueContainer, type QueueItem } from './queue-container.js';

export type { QueueItem } from './queue-container.js';

/** What a waiting poll knows about the client that asked. */
export interface PollClient {
  /** False once the client has gone away. */
  alive(): boolean;
  /** Called once if the client goes away while the poll waits. */
  onGone(fn: () => void): void;
}

export interface QueueFacade {
  /** False when the queue is full. */
  offer(queueName: string, item: QueueItem): MaybePromise<boolean>;
  /** Wait up to `timeoutMs` (0 = don't wait) for an item; undefined when none came. */
  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined>;
  size(queueName: string): MaybePromise<number>;
  /** The max-size of the queue's config (0 = unbounded), for error messages. */
  maxSizeOf(queueName: string): number;
}

interface Entry {
  readonly config: QueueConfig;
  readonly queue: QueueContainer;
  destroyTimer: TimerHandle | undefined;
}

export class QueueService implements QueueFacade {
  private readonly queues = new Map<string, Entry>();
  private readonly config: GridConfig;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly pendingPolls = new Set<(e: GridError) => void>();
  private stopped = false;

  constructor(deps: { config: GridConfig; invoker: Invoker; clock: Clock; logger: Logger }) {
    this.config = deps.config;
    this.invoker = deps.invoker;
    this.clock = deps.clock;
    this.logger = deps.logger;
  }

  offer(queueName: string, item: QueueItem): MaybePromise<boolean> {
    return this.invoker.invoke(partitionIdOf(queueName), {
      name: 'queue.offer',
      mutating: true,
      run: () => {
        const e = this.entry(queueName);
        const accepted = e.queue.offer(item);
        this.scheduleDestroyIfEmpty(queueName, e);
        return accepted;
      },
    });
  }

  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined> {
    const found = this.invoker.invoke(partitionIdOf(queueName), {
      name: 'queue.poll',
      mutating: true,
      run: () => {
        // A poll whose client has already gone (e.g. pipelined behind a long poll on a
        // connection that closed since) takes nothing.
        if (!client.alive()) return undefined;
        const e = this.queues.get(queueName);
        const item = e?.queue.poll();
        if (e !== undefined) this.scheduleDestroyIfEmpty(queueName, e);
        return item;
      },
    });
    // Answered now when an item was there or the poll may not wait; otherwise it waits.
    return andThen(found, (item): MaybePromise<QueueItem | undefined> => {
      if (item !== undefined || timeoutMs <= 0 || !client.alive()) return item;
      return this.waitForItem(queueName, timeoutMs, client);
    }) as MaybePromise<QueueItem | undefined>;
  }

  size(queueName: string): MaybePromise<number> {
    return this.invoker.invoke(partitionIdOf(queueName), {
      name: 'queue.size',
      mutating: false,
      run: () => this.queues.get(queueName)?.queue.size ?? 0,
    });
  }

  maxSizeOf(queueName: string): number {
    return (this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName)).maxSize;
  }

  /** Answer every waiting poll with a shutdown error. */
  stop(): void {
    this.stopped = true;
    const err = new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    for (const reject of [...this.pendingPolls]) reject(err);
    this.pendingPolls.clear();
    for (const e of this.queues.values()) {
      e.destroyTimer?.cancel();
      e.queue.drainWaiters();
    }
  }

  private waitForItem(queueName: string, timeoutMs: number, client: PollClient): Promise<QueueItem | undefined> {
    if (this.stopped) return Promise.reject(new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    return new Promise<QueueItem | undefined>((resolve, reject) => {
      const e = this.entry(queueName);
      // An offer may have run between the empty poll above and now (another request in the
      // same tick): take that item instead of waiting behind it. Checked and registered
      // synchronously, so nothing can slip in between.
      const ready = e.queue.poll();
      if (ready !== undefined) {
        this.scheduleDestroyIfEmpty(queueName, e);
        resolve(ready);
        return;
      }
      e.destroyTimer?.cancel();
      e.destroyTimer = undefined;
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        timer.cancel();
        handle.cancel();
        this.pendingPolls.delete(fail);
        this.scheduleDestroyIfEmpty(queueName, e);
        return true;
      };
      const fail = (err: GridError): void => {
        if (finish()) reject(err);
      };
      const handle = e.queue.addWaiter({
        deliver: (item) => {
          if (done || !client.alive()) return false;
          finish();
          resolve(item);
          return true;
        },
      });
      const timer = this.clock.setTimeout(() => {
        if (finish()) resolve(undefined);
      }, timeoutMs);
      this.pendingPolls.add(fail);
      client.onGone(() => {
        if (finish()) resolve(undefined);
      });
    });
  }

  private entry(queueName: string): Entry {
    let e = this.queues.get(queueName);
    if (e === undefined) {
      const config = findQueueConfig(this.config, queueName);
      e = { config, queue: new QueueContainer(config.maxSize), destroyTimer: undefined };
      this.queues.set(queueName, e);
    }
    return e;
  }

  /** empty-queue-ttl: an empty queue nobody waits on is destroyed after the TTL. */
  private scheduleDestroyIfEmpty(queueName: string, e: Entry): void {
    const ttl = e.config.emptyQueueTtlSeconds;
    if (ttl < 0) return;
    if (e.queue.size > 0 || e.queue.waiting > 0) {
      e.destroyTimer?.cancel();
      e.destroyTimer = undefined;
      return;
    }
    if (e.destroyTimer !== undefined) return;
    e.destroyTimer = this.clock.setTimeout(() => {
      e.destroyTimer = undefined;
      if (this.queues.get(queueName) === e && e.queue.size === 0 && e.queue.waiting === 0) {
        this.queues.delete(queueName);
        this.logger.debug({ queue: queueName }, 'empty queue destroyed (empty-queue-ttl)');
      }
    }, ttl * 1000);
  }
}
