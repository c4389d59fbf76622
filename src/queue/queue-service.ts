// Distributed queues. A queue lives in the partition of its name; offers, polls and waiting
// polls run at that partition's owner and are replicated to its backups in order. The REST
// layer passes a `PollClient` so a poll whose client has gone consumes nothing, without the
// queue knowing about HTTP; an item handed to a poller that vanished on the way is put back
// at the head. Waiting polls move with their queue: when the owner changes they are tried
// again at the new owner for the time they have left.

import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError } from '../core/errors.js';
import { andThen, type MaybePromise } from '../core/maybe-promise.js';
import type { Logger } from '../core/logger.js';
import { findQueueConfig } from '../config/index.js';
import type { GridConfig, QueueConfig } from '../config/types.js';
import type { BackupSpec, Caller, Invoker, Operation, OperationHandler } from '../invocation/invoker.js';
import { partitionIdOf } from '../partition/partitioning.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
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

// The hot operations are classes: one allocation per request, methods shared on the prototype.
class QueueOffer implements Operation<boolean> {
  readonly name = 'queue.offer';
  readonly service = 'queue';
  readonly type = 'offer';
  readonly mutating = true;
  /** Set by run(): the item went into the queue (not straight to a waiting poll). */
  stored = false;
  private wire: WireValue[] | undefined;
  constructor(
    private readonly svc: QueueService,
    readonly pid: number,
    readonly queueName: string,
    readonly item: QueueItem,
  ) {}

  get args(): WireValue[] {
    return (this.wire ??= [this.queueName, ...encodeItem(this.item)]);
  }

  run(): boolean {
    return this.svc.runOffer(this);
  }

  backup(): BackupSpec | undefined {
    return this.stored ? this.svc.backupOf(this.queueName, 'offer', this.args) : undefined;
  }
}

class QueuePoll implements Operation<QueueItem | undefined> {
  readonly name = 'queue.poll';
  readonly service = 'queue';
  readonly type = 'poll';
  readonly mutating = true;
  /** Set by run(): the item was taken from the queue (an item handed over by an offer was never in it). */
  fromStore = false;
  constructor(
    private readonly svc: QueueService,
    readonly pid: number,
    readonly queueName: string,
    /** Epoch ms: the poll waits until then at most, wherever it runs. */
    readonly deadline: number,
    readonly waitMs: number,
    readonly client: Caller,
  ) {}

  get args(): WireValue[] {
    return [this.queueName, this.deadline];
  }

  run(): MaybePromise<QueueItem | undefined> {
    return this.svc.runPoll(this);
  }

  backup(item: QueueItem | undefined): BackupSpec | undefined {
    return item !== undefined && this.fromStore ? this.svc.backupOf(this.queueName, 'poll', [this.queueName]) : undefined;
  }
}

interface Entry {
  readonly config: QueueConfig;
  readonly queue: QueueContainer;
  readonly partitionId: number;
  destroyTimer: TimerHandle | undefined;
  /** Waiting polls of this queue on this member, answered with an error when the queue moves. */
  readonly waiting: Set<(e: GridError) => void>;
}

function encodeItem(item: QueueItem): WireValue[] {
  return [new Latin1(item.value), item.contentType ?? null];
}

/** The item encoded by encodeItem at `at` of a tuple. */
function decodeItem(t: readonly WireValue[], at: number): QueueItem {
  return { value: f.latin1(t, at, 'value'), contentType: f.optStr(t, at + 1, 'content type') };
}

export class QueueService implements QueueFacade {
  private readonly queues = new Map<string, Entry>();
  private readonly config: GridConfig;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private stopped = false;

  constructor(deps: { config: GridConfig; invoker: Invoker; clock: Clock; logger: Logger }) {
    this.config = deps.config;
    this.invoker = deps.invoker;
    this.clock = deps.clock;
    this.logger = deps.logger;
  }

  offer(queueName: string, item: QueueItem): MaybePromise<boolean> {
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.offerOp(pid, queueName, item));
  }

  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined> {
    const pid = partitionIdOf(queueName);
    const deadline = this.clock.now() + Math.max(0, timeoutMs);
    const found = this.invoker.invoke(pid, this.pollOp(pid, queueName, deadline, timeoutMs, client), client);
    // An item that reached us for a client that has gone since goes back to the head of the queue.
    return andThen(found, (item) => {
      if (item !== undefined && !client.alive()) {
        const back = this.invoker.invoke(pid, this.pushFrontOp(pid, queueName, item));
        if (back instanceof Promise) back.catch((e: unknown) => this.logger.warn({ queue: queueName, err: e }, 'could not put back an item whose poller had gone'));
        return undefined;
      }
      return item;
    });
  }

  size(queueName: string): MaybePromise<number> {
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.sizeOp(queueName));
  }

  maxSizeOf(queueName: string): number {
    return (this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName)).maxSize;
  }

  /** Answer every waiting poll with a shutdown error. */
  stop(): void {
    this.stopped = true;
    const err = new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    for (const e of this.queues.values()) {
      e.destroyTimer?.cancel();
      this.failWaiters(e, err);
      e.queue.drainWaiters();
    }
  }

  // ------------------------------------------------------------------ operations

  /** @internal */ backupOf(queueName: string, type: string, args: readonly WireValue[]): BackupSpec {
    const config = this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName);
    return { type, args, syncCount: config.backupCount, asyncCount: config.asyncBackupCount };
  }

  private offerOp(pid: number, queueName: string, item: QueueItem): Operation<boolean> {
    return new QueueOffer(this, pid, queueName, item);
  }

  /** @internal */ runOffer(op: QueueOffer): boolean {
    const e = this.entry(op.queueName, op.pid);
    const before = e.queue.size;
    const accepted = e.queue.offer(op.item);
    // Handed straight to a waiting poll, the item never sits in the queue: no backup needed.
    op.stored = e.queue.size > before;
    this.scheduleDestroyIfEmpty(op.queueName, e);
    return accepted;
  }

  private pushFrontOp(pid: number, queueName: string, item: QueueItem): Operation<void> {
    const args = [queueName, ...encodeItem(item)];
    let stored = false;
    return {
      name: 'queue.pushFront',
      service: 'queue',
      type: 'pushFront',
      mutating: true,
      args,
      run: () => {
        const e = this.entry(queueName, pid);
        const before = e.queue.size;
        e.queue.offerFirst(item);
        stored = e.queue.size > before;
        this.scheduleDestroyIfEmpty(queueName, e);
      },
      backup: () => (stored ? this.backupOf(queueName, 'pushFront', args) : undefined),
    };
  }

  private pollOp(pid: number, queueName: string, deadline: number, timeoutMs: number, client: Caller): Operation<QueueItem | undefined> {
    return new QueuePoll(this, pid, queueName, deadline, timeoutMs, client);
  }

  /** @internal */ runPoll(op: QueuePoll): MaybePromise<QueueItem | undefined> {
    op.fromStore = false;
    // A poll whose client has already gone (e.g. pipelined behind a long poll on a
    // connection that closed since) takes nothing.
    if (!op.client.alive()) return undefined;
    const e = this.queues.get(op.queueName);
    const item = e?.queue.poll();
    if (item !== undefined) {
      op.fromStore = true;
      this.scheduleDestroyIfEmpty(op.queueName, e!);
      return item;
    }
    if (e !== undefined) this.scheduleDestroyIfEmpty(op.queueName, e);
    const left = op.deadline - this.clock.now();
    if (left <= 0) return undefined;
    return this.waitForItem(op.queueName, op.pid, left, op.client, () => {
      op.fromStore = true;
    });
  }

  /** empty-queue-ttl: forget a queue that stayed empty, here and on its backups. */
  private destroyOp(queueName: string, e: Entry): Operation<boolean> {
    const args = [queueName];
    return {
      name: 'queue.destroy',
      service: 'queue',
      type: 'destroy',
      mutating: true,
      args,
      run: () => {
        if (this.queues.get(queueName) !== e || e.queue.size > 0 || e.queue.waiting > 0) return false;
        this.queues.delete(queueName);
        this.logger.debug({ queue: queueName }, 'empty queue destroyed (empty-queue-ttl)');
        return true;
      },
      backup: (destroyed) => (destroyed ? this.backupOf(queueName, 'destroy', args) : undefined),
    };
  }

  private sizeOp(queueName: string): Operation<number> {
    return {
      name: 'queue.size',
      service: 'queue',
      type: 'size',
      mutating: false,
      args: [queueName],
      run: () => this.queues.get(queueName)?.queue.size ?? 0,
    };
  }

  private waitForItem(queueName: string, pid: number, timeoutMs: number, client: Caller, tookStored: () => void): Promise<QueueItem | undefined> {
    if (this.stopped) return Promise.reject(new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    return new Promise<QueueItem | undefined>((resolve, reject) => {
      const e = this.entry(queueName, pid);
      // An offer may have run between the empty poll above and now (another request in the
      // same tick): take that item instead of waiting behind it. Checked and registered
      // synchronously, so nothing can slip in between.
      const ready = e.queue.poll();
      if (ready !== undefined) {
        tookStored();
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
        e.waiting.delete(fail);
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
      e.waiting.add(fail);
      client.onGone(() => {
        if (finish()) resolve(undefined);
      });
    });
  }

  private failWaiters(e: Entry, err: GridError): void {
    for (const fail of [...e.waiting]) fail(err);
    e.waiting.clear();
  }

  // ------------------------------------------------------------------ remote side

  readonly handler: OperationHandler = {
    operation: (pid: number, type: string, args: readonly WireValue[], caller: Caller): Operation<unknown> => {
      const name = f.str(args, 0, 'queue name');
      if (partitionIdOf(name) !== pid) throw new GridError('BAD_REQUEST', `queue ${name} is not in partition ${pid}`);
      switch (type) {
        case 'offer':
          return this.offerOp(pid, name, decodeItem(args, 1));
        case 'pushFront':
          return this.pushFrontOp(pid, name, decodeItem(args, 1));
        case 'poll': {
          const deadline = f.num(args, 1, 'deadline');
          return this.pollOp(pid, name, deadline, Math.max(0, deadline - this.clock.now()), caller);
        }
        case 'size':
          return this.sizeOp(name);
      }
      throw new GridError('BAD_REQUEST', `unknown queue operation ${type}`);
    },
    encodeResult: (type: string, result: unknown): WireValue => {
      if (type === 'offer') return result as boolean;
      if (type === 'size') return result as number;
      if (type === 'poll') return result === undefined ? null : encodeItem(result as QueueItem);
      return null;
    },
    decodeResult: (type: string, w: WireValue): unknown => {
      if (type === 'offer') return w === true;
      if (type === 'size') return typeof w === 'number' ? w : 0;
      if (type === 'poll') {
        if (w === null) return undefined;
        return decodeItem(f.tuple(w, 'queue item'), 0);
      }
      return undefined;
    },
    applyBackup: (pid: number, type: string, args: readonly WireValue[]): void => {
      const name = f.str(args, 0, 'queue name');
      switch (type) {
        case 'offer':
          this.entry(name, pid).queue.append(decodeItem(args, 1));
          return;
        case 'pushFront':
          this.entry(name, pid).queue.offerFirst(decodeItem(args, 1));
          return;
        case 'poll':
          this.queues.get(name)?.queue.poll();
          return;
        case 'destroy': {
          const e = this.queues.get(name);
          if (e !== undefined && e.queue.size === 0) this.queues.delete(name);
          return;
        }
      }
      throw new GridError('BAD_REQUEST', `unknown queue backup ${type}`);
    },
  };

  readonly replicaData: ReplicaData = {
    name: 'queue',
    snapshot: (pid: number, replicaIndex: number): WireValue | undefined => {
      const out: WireValue[] = [];
      for (const [name, e] of this.queues) {
        if (e.partitionId !== pid) continue;
        if (replicaIndex > e.config.backupCount + e.config.asyncBackupCount) continue;
        const items: WireValue[] = [];
        for (const it of e.queue.snapshot()) items.push(new Latin1(it.value), it.contentType ?? null);
        out.push(name, items);
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      this.dropPartition(pid);
      if (data === undefined) return;
      const t = f.tuple(data, 'queue data');
      for (let i = 0; i + 1 < t.length; i += 2) {
        const name = f.str(t, i, 'queue name');
        const items = f.arr(t, i + 1, 'items');
        const e = this.entry(name, pid);
        for (let j = 0; j + 1 < items.length; j += 2) {
          e.queue.append(decodeItem(items, j));
        }
      }
    },
    drop: (pid: number): void => this.dropPartition(pid),
    trim: (pid: number, replicaIndex: number): void => {
      for (const [name, e] of this.queues) {
        if (e.partitionId !== pid || 1 + e.config.backupCount + e.config.asyncBackupCount > replicaIndex) continue;
        e.destroyTimer?.cancel();
        this.queues.delete(name);
      }
    },
    ownershipLost: (pid: number): void => {
      for (const [name, e] of this.queues) {
        if (e.partitionId !== pid) continue;
        e.destroyTimer?.cancel();
        e.destroyTimer = undefined;
        if (e.waiting.size > 0) this.logger.debug({ queue: name }, 'queue moved: its waiting polls go to the new owner');
        this.failWaiters(e, new GridError('WRONG_TARGET', `queue ${name} moved to another member`));
      }
    },
  };

  private dropPartition(pid: number): void {
    for (const [name, e] of this.queues) {
      if (e.partitionId !== pid) continue;
      e.destroyTimer?.cancel();
      this.failWaiters(e, new GridError('WRONG_TARGET', `queue ${name} moved to another member`));
      e.queue.drainWaiters();
      this.queues.delete(name);
    }
  }

  private entry(queueName: string, pid: number): Entry {
    let e = this.queues.get(queueName);
    if (e === undefined) {
      const config = findQueueConfig(this.config, queueName);
      e = { config, queue: new QueueContainer(config.maxSize), partitionId: pid, destroyTimer: undefined, waiting: new Set() };
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
      // Through the invoker, so that the backups forget the queue too.
      try {
        const done = this.invoker.invoke(e.partitionId, this.destroyOp(queueName, e));
        if (done instanceof Promise) done.catch((err: unknown) => this.logger.debug({ queue: queueName, err }, 'empty queue not destroyed'));
      } catch (err) {
        this.logger.debug({ queue: queueName, err }, 'empty queue not destroyed');
      }
    }, ttl * 1000);
  }
}
