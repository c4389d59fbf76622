// The queues on this member (owner or backup), created on first use and destroyed by
// empty-queue-ttl or when their partition leaves; and what every queue module shares: the
// member's services, the log, the reservation counts and the per-queue counters.

import type { Clock } from '../core/clock.js';
import { GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { CountersByName } from '../core/metrics.js';
import type { WriteGate } from '../core/memory-guard.js';
import { findQueueConfig } from '../config/index.js';
import { queuePartitionIdOf } from '../partition/partitioning.js';
import type { GridConfig, QueueConfig } from '../config/types.js';
import type { BackupSpec, Invoker, Operation } from '../invocation/invoker.js';
import type { WireValue } from '../protocol/codec.js';
import { QueueContainer } from './queue-container.js';
import { isIdle, type Entry } from './queue-entry.js';
import { QueueEventSource } from './queue-events.js';
import { QueueCounters } from './queue-metrics.js';
import { QueueLog } from './queue-persistence.js';

/** What the queues need to know about the cluster: who they are, who is still there, what they own. */
export interface QueueMembership {
  localUuid(): string;
  /** The member is in this member's current list. */
  isMember(uuid: string): boolean;
  /** This member owns the partition now. */
  isOwner(partitionId: number): boolean;
  /** `fn` with the uuids of members that left the list; returns an unsubscribe. */
  onMembersRemoved(fn: (uuids: readonly string[]) => void): () => void;
}

/** Counts of this member's reservation work since it started (for tests, logs and operators). */
export interface ReservationStats {
  /** Items reserved here as owner (polls and hand-offs). */
  reserved: number;
  /** Reservations confirmed here as owner. */
  confirmed: number;
  /** Reservations released by their holder (client gone, poll failed). */
  released: number;
  /** Reservations returned because their holder left the cluster: the answer may have been written (possible duplicates). */
  returnedForLeftMember: number;
  /** Confirms that found their reservation already returned: that item was delivered twice if the answer was read (duplicates). */
  lateConfirms: number;
}

/** What the queue modules receive from the member. */
export interface QueueDeps {
  readonly config: GridConfig;
  readonly invoker: Invoker;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly membership: QueueMembership;
  /** The member memory guard: offers are refused while it refuses. */
  readonly gate: WriteGate | undefined;
}

/** The invoker's Operation of a queue operation built from its parts (the hot offer and poll are classes of their own). */
export class QueueOp<T> implements Operation<T> {
  readonly service = 'queue';
  constructor(readonly name: string, readonly type: string, readonly mutating: boolean, readonly args: readonly WireValue[], readonly run: () => T, readonly backup?: (result: T) => BackupSpec | undefined, readonly duringShutdown?: boolean) {}
}

export class QueueRegistry {
  readonly queues = new Map<string, Entry>();
  readonly log = new QueueLog();
  readonly counts: ReservationStats = { reserved: 0, confirmed: 0, released: 0, returnedForLeftMember: 0, lateConfirms: 0 };
  readonly counters = new CountersByName(() => new QueueCounters());
  stopped = false;
  /** Change events of the queues this member owns (queue-events.ts). */
  readonly events: QueueEventSource;

  constructor(readonly deps: QueueDeps) {
    this.events = new QueueEventSource((pid) => deps.membership.isOwner(pid), queuePartitionIdOf);
  }

  entry(queueName: string, pid: number): Entry {
    let e = this.queues.get(queueName);
    if (e === undefined) {
      const config = findQueueConfig(this.deps.config, queueName);
      e = { config, queue: new QueueContainer(config.maxSize), partitionId: pid, nextPersistId: 1, destroyTimer: undefined, waiting: new Set(), counters: undefined, offerWaiters: [] };
      this.queues.set(queueName, e);
    }
    return e;
  }

  /** The queue's configuration (its own or the matching pattern's). */
  configOf(queueName: string): QueueConfig {
    return this.queues.get(queueName)?.config ?? findQueueConfig(this.deps.config, queueName);
  }

  backupOf(queueName: string, type: string, args: readonly WireValue[]): BackupSpec {
    const config = this.configOf(queueName);
    return { type, args, syncCount: config.backupCount, asyncCount: config.asyncBackupCount };
  }

  failWaiters(e: Entry, err: GridError): void {
    for (const fail of [...e.waiting]) fail(err);
    e.waiting.clear();
  }

  /** The partition left this member (or is replaced by a copy): its queues go, their waiting polls are told. */
  dropPartition(pid: number): void {
    for (const [name, e] of this.queues) {
      if (e.partitionId !== pid) continue;
      e.destroyTimer?.cancel();
      this.failWaiters(e, new GridError('WRONG_TARGET', `queue ${name} moved to another member`));
      e.queue.drainWaiters();
      this.queues.delete(name);
    }
  }

  /** empty-queue-ttl: an empty queue nobody waits on (and with nothing reserved) is destroyed after the TTL. */
  scheduleDestroyIfEmpty(queueName: string, e: Entry): void {
    const ttl = e.config.emptyQueueTtlSeconds;
    if (ttl < 0) return;
    if (!isIdle(e)) {
      e.destroyTimer?.cancel();
      e.destroyTimer = undefined;
      return;
    }
    if (e.destroyTimer !== undefined) return;
    const { clock, invoker, logger } = this.deps;
    e.destroyTimer = clock.setTimeout(() => {
      e.destroyTimer = undefined;
      // Through the invoker, so that the backups forget the queue too.
      try {
        const done = invoker.invoke(e.partitionId, this.destroyOp(queueName, e));
        if (done instanceof Promise) done.catch((err: unknown) => logger.debug({ queue: queueName, err }, 'empty queue not destroyed'));
      } catch (err) {
        logger.debug({ queue: queueName, err }, 'empty queue not destroyed');
      }
    }, ttl * 1000);
  }

  /** empty-queue-ttl: forget a queue that stayed empty, here and on its backups. */
  private destroyOp(queueName: string, e: Entry): Operation<boolean> {
    const args = [queueName];
    return new QueueOp('queue.destroy', 'destroy', true, args, () => {
      if (this.queues.get(queueName) !== e || !isIdle(e)) return false;
      this.queues.delete(queueName);
      this.log.clear(queueName, e);
      this.deps.logger.debug({ queue: queueName }, 'empty queue destroyed (empty-queue-ttl)');
      return true;
    }, (destroyed) => (destroyed ? this.backupOf(queueName, 'destroy', args) : undefined));
  }
}
