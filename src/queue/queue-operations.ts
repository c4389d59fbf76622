// Queue operations on the queue's owner: offer, poll (taking an item, or waiting for one),
// size and stats, and the confirm and release of poll reservations, each with what its backups
// apply. The hot ones (offer, poll) are classes: one allocation per request.

import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { BackupSpec, Caller, Operation } from '../invocation/invoker.js';
import type { WireValue } from '../protocol/codec.js';
import type { Holder, QueueItem, Released, Reservation } from './queue-container.js';
import { encodeItem, type Entry } from './queue-entry.js';
import type { StructureProtection } from '../invocation/split-brain-protection.js';
import { QueueOp, type QueueRegistry } from './queue-registry.js';

/** One queue at its owner. */
export interface QueueStats {
  /** Items in the queue (what `size` answers). */
  readonly size: number;
  /** Items taken by polls whose answer is not confirmed yet (not in `size`). */
  readonly reserved: number;
  /** Polls waiting at the owner for an item. */
  readonly waitingPolls: number;
}

class QueueOffer implements Operation<boolean> {
  readonly name = 'queue.offer';
  readonly service = 'queue';
  readonly type = 'offer';
  readonly mutating = true;
  /** Set by run(): what the offer did (stored, or reserved for a waiting poll). */
  outcome: 'stored' | 'full' | 'handed' | Reservation = 'full';
  private wire: WireValue[] | undefined;
  /** How long it may wait at the owner for room (the invoker's deadline grows by it); 0 for an offer that does not wait. */
  readonly waitMs: number;
  constructor(
    private readonly ops: QueueOperations,
    readonly pid: number,
    readonly queueName: string,
    readonly item: QueueItem,
    /** Epoch ms until which a full queue is waited on (0: not at all). */
    readonly deadline = 0,
    readonly client: Caller = NO_CLIENT,
  ) {
    this.waitMs = deadline > 0 ? Math.max(0, deadline - ops.reg.deps.clock.now()) : 0;
  }

  /** What the owner needs to run it: a waiting offer carries its deadline. */
  get args(): WireValue[] {
    return this.deadline > 0 ? [...this.itemArgs, this.deadline] : this.itemArgs;
  }

  /** The queue and the item: what the backups apply. */
  private get itemArgs(): WireValue[] {
    return (this.wire ??= [this.queueName, ...encodeItem(this.item)]);
  }

  run(): MaybePromise<boolean> {
    this.ops.protection.guardOwner(this.queueName, 'WRITE');
    if (this.ops.runOffer(this) || this.deadline <= this.ops.reg.deps.clock.now()) return this.outcome !== 'full';
    return this.ops.waitForRoom(this);
  }

  backup(): BackupSpec | undefined {
    const o = this.outcome;
    if (o === 'stored') return this.ops.reg.backupOf(this.queueName, 'offer', this.itemArgs);
    // Handed straight to a waiting poll: the backups hold the item reserved for that poll.
    if (typeof o === 'object') return this.ops.reg.backupOf(this.queueName, 'offerReserved', [...this.itemArgs, o.holder.member, o.holder.id, o.order]);
    return undefined;
  }
}

/** The client of an offer that does not wait: always there. */
const NO_CLIENT: Caller = { alive: () => true, onGone: () => undefined };

class QueuePoll implements Operation<QueueItem | undefined> {
  readonly name = 'queue.poll';
  readonly service = 'queue';
  readonly type = 'poll';
  readonly mutating = true;
  /** Set by run(): the reservation this poll took from the queue (a hand-off is replicated by its offer instead). */
  took: Reservation | undefined = undefined;
  constructor(
    private readonly ops: QueueOperations,
    readonly pid: number,
    readonly queueName: string,
    /** Epoch ms: the poll waits until then at most, wherever it runs. */
    readonly deadline: number,
    readonly waitMs: number,
    readonly client: Caller,
    readonly holder: Holder,
  ) {}

  get args(): WireValue[] {
    return [this.queueName, this.deadline, this.holder.member, this.holder.id];
  }

  run(): MaybePromise<QueueItem | undefined> {
    // A poll takes an item: a write (as in Hazelcast).
    this.ops.protection.guardOwner(this.queueName, 'WRITE');
    return this.ops.runPoll(this);
  }

  backup(item: QueueItem | undefined): BackupSpec | undefined {
    const r = this.took;
    return item !== undefined && r !== undefined ? this.ops.reg.backupOf(this.queueName, 'reserve', [this.queueName, r.holder.member, r.holder.id, r.order]) : undefined;
  }
}

export class QueueOperations {
  constructor(
    readonly reg: QueueRegistry,
    readonly protection: StructureProtection,
  ) {}

  /** An offer; with a `deadline` (epoch ms) it waits at the owner until then for room in a full queue. */
  offerOp(pid: number, queueName: string, item: QueueItem, deadline = 0, client?: Caller): Operation<boolean> {
    return new QueueOffer(this, pid, queueName, item, deadline, client);
  }

  /**
   * A full queue: the offer waits (oldest first) until an operation frees room (wakeOffers),
   * its deadline passes (false), its client goes (false: nothing added) or the queue moves
   * (the invoker sends it again to the new owner for the time left).
   */
  waitForRoom(op: QueueOffer): Promise<boolean> {
    const reg = this.reg;
    if (reg.stopped) return Promise.reject(new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    return new Promise<boolean>((resolve, reject) => {
      const e = reg.entry(op.queueName, op.pid);
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        timer.cancel();
        e.waiting.delete(fail);
        const at = e.offerWaiters.indexOf(retry);
        if (at >= 0) e.offerWaiters.splice(at, 1);
        return true;
      };
      const fail = (err: GridError): void => {
        if (finish()) reject(err);
      };
      // Called by wakeOffers when the queue has room: runs the offer now (its backup follows the answer).
      const retry = (): void => {
        if (done) return;
        if (!op.client.alive()) {
          if (finish()) resolve(false);
          return;
        }
        try {
          if (!this.runOffer(op)) return;
        } catch (err) {
          if (finish()) reject(err);
          return;
        }
        if (finish()) resolve(true);
      };
      e.offerWaiters.push(retry);
      e.destroyTimer?.cancel();
      e.destroyTimer = undefined;
      e.waiting.add(fail);
      const timer = reg.deps.clock.setTimeout(() => {
        if (!finish()) return;
        (e.counters ??= reg.counters.of(op.queueName, true)).rejectedOffers++;
        resolve(false);
      }, Math.max(0, op.deadline - reg.deps.clock.now()));
      op.client.onGone(() => {
        if (finish()) resolve(false);
      });
    });
  }

  /**
   * Room freed in the queue (a poll, drain, clear or remove): the waiting offers, oldest first,
   * run while there is room. Each answers (and replicates) after the operation that freed the
   * room, so the backups apply them in the same order.
   */
  wakeOffers(e: Entry): void {
    while (e.offerWaiters.length > 0 && !e.queue.isFull()) {
      const before = e.offerWaiters.length;
      e.offerWaiters[0]!();
      // A waiter that did not leave the list (refused again) stops the loop: nothing else fits.
      if (e.offerWaiters.length === before) break;
    }
  }

  runOffer(op: QueueOffer): boolean {
    const reg = this.reg;
    reg.deps.gate?.check(`the offer to queue "${op.queueName}"`);
    const e = reg.entry(op.queueName, op.pid);
    const outcome = e.queue.offerItem(op.item);
    op.outcome = outcome;
    const counters = (e.counters ??= reg.counters.of(op.queueName, true));
    // A full queue refuses an offer that does not wait; a waiting one counts if its wait runs out.
    if (outcome === 'full') {
      if (op.deadline <= reg.deps.clock.now()) counters.rejectedOffers++;
    } else {
      counters.offers++;
      reg.events.added(op.queueName, op.pid, op.item);
      // Given to a poll that holds no reservation: consumed at once.
      if (outcome === 'handed') reg.events.removed(op.queueName, op.pid, op.item);
    }
    // Stored, or reserved for a waiting poll: the item is in the queue until confirmed.
    if (outcome !== 'full' && outcome !== 'handed') reg.log.put(op.queueName, e, op.item);
    if (typeof outcome === 'object') reg.counts.reserved++;
    reg.scheduleDestroyIfEmpty(op.queueName, e);
    return outcome !== 'full';
  }

  pollOp(pid: number, queueName: string, deadline: number, timeoutMs: number, client: Caller, holder: Holder): Operation<QueueItem | undefined> {
    return new QueuePoll(this, pid, queueName, deadline, timeoutMs, client, holder);
  }

  runPoll(op: QueuePoll): MaybePromise<QueueItem | undefined> {
    const reg = this.reg;
    op.took = undefined;
    const e = reg.queues.get(op.queueName);
    // The same poll sent again (its answer was lost with a connection or an owner): the same item.
    const had = e?.queue.reservation(op.holder);
    if (had !== undefined) return had.item;
    (e !== undefined ? (e.counters ??= reg.counters.of(op.queueName, true)) : reg.counters.of(op.queueName, false)).polls++;
    // A poll whose client has already gone (e.g. pipelined behind a long poll on a
    // connection that closed since) takes nothing.
    if (!op.client.alive()) return undefined;
    const r = e?.queue.take(op.holder);
    if (r !== undefined) {
      op.took = r;
      reg.counts.reserved++;
      this.wakeOffers(e!);
      reg.scheduleDestroyIfEmpty(op.queueName, e!);
      return r.item;
    }
    if (e !== undefined) reg.scheduleDestroyIfEmpty(op.queueName, e);
    const left = op.deadline - reg.deps.clock.now();
    if (left <= 0) return undefined;
    return this.waitForItem(op.queueName, op.pid, left, op.client, op.holder, (took) => {
      op.took = took;
    });
  }

  private waitForItem(
    queueName: string,
    pid: number,
    timeoutMs: number,
    client: Caller,
    holder: Holder,
    tookStored: (r: Reservation) => void,
  ): Promise<QueueItem | undefined> {
    const reg = this.reg;
    if (reg.stopped) return Promise.reject(new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    return new Promise<QueueItem | undefined>((resolve, reject) => {
      const e = reg.entry(queueName, pid);
      // An offer may have run between the empty poll above and now (another request in the
      // same tick): take that item instead of waiting behind it. Checked and registered
      // synchronously, so nothing can slip in between.
      const ready = e.queue.take(holder);
      if (ready !== undefined) {
        tookStored(ready);
        reg.counts.reserved++;
        this.wakeOffers(e);
        reg.scheduleDestroyIfEmpty(queueName, e);
        resolve(ready.item);
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
        reg.scheduleDestroyIfEmpty(queueName, e);
        return true;
      };
      const fail = (err: GridError): void => {
        if (finish()) reject(err);
      };
      // An item handed over here is reserved for `holder` by the container; the offer (or the
      // release) that handed it replicates that reservation.
      const handle = e.queue.addWaiter({
        holder,
        deliver: (item) => {
          if (done || !client.alive()) return false;
          finish();
          resolve(item);
          return true;
        },
      });
      const timer = reg.deps.clock.setTimeout(() => {
        if (finish()) resolve(undefined);
      }, timeoutMs);
      e.waiting.add(fail);
      client.onGone(() => {
        if (finish()) resolve(undefined);
      });
    });
  }

  sizeOp(queueName: string): Operation<number> {
    return new QueueOp('queue.size', 'size', false, [queueName], () => {
      this.protection.guardOwner(queueName, 'READ');
      return this.reg.queues.get(queueName)?.queue.size ?? 0;
    });
  }

  peekOp(queueName: string): Operation<QueueItem | undefined> {
    return new QueueOp('queue.peek', 'peek', false, [queueName], () => {
      this.protection.guardOwner(queueName, 'READ');
      return this.reg.queues.get(queueName)?.queue.peek();
    });
  }

  statsOp(queueName: string): Operation<QueueStats> {
    return new QueueOp('queue.stats', 'stats', false, [queueName], () => {
      const q = this.reg.queues.get(queueName)?.queue;
      return { size: q?.size ?? 0, reserved: q?.reserved ?? 0, waitingPolls: q?.waiting ?? 0 };
    });
  }

  /** The holder wrote the answers of these polls: their items are gone. */
  confirmOp(pid: number, queueName: string, member: string, ids: readonly number[]): Operation<number> {
    const args = [queueName, member, ...ids];
    let confirmed: number[] = [];
    const reg = this.reg;
    return new QueueOp('queue.confirm', 'confirm', true, args, () => {
      confirmed = [];
      const e = reg.queues.get(queueName);
      for (const id of ids) {
        const r = e?.queue.confirm({ member, id });
        if (r === undefined) continue;
        confirmed.push(id);
        reg.log.remove(queueName, e!, r.item);
        // The answer was written: the item is consumed (an unwritten one went back instead).
        reg.events.removed(queueName, pid, r.item);
      }
      reg.counts.confirmed += confirmed.length;
      const late = ids.length - confirmed.length;
      if (late > 0) {
        // Sent again after it was applied, or its reservation was returned when the holder
        // was thought gone: in the second case the item was delivered twice.
        reg.counts.lateConfirms += late;
        reg.deps.logger.info({ queue: queueName, member, late }, 'confirm of a queue reservation that is no longer held (already confirmed, or returned: then delivered twice)');
      }
      if (e !== undefined) reg.scheduleDestroyIfEmpty(queueName, e);
      return confirmed.length;
    }, () => (confirmed.length > 0 ? reg.backupOf(queueName, 'confirm', [queueName, member, ...confirmed]) : undefined), true);
  }

  /**
   * Items reserved by `member` go back to the head of the queue (or to waiting polls): the
   * polls `ids` whose answers were not written, or with `left` every reservation of a member
   * that is no longer in the list (refused while it still is).
   */
  releaseOp(pid: number, queueName: string, member: string, ids: readonly number[] | 'left' | { readonly from: number }): Operation<number> {
    const left = ids === 'left';
    // A run of ids from `from` while reserved (a drain that failed on the way: how many it took is unknown here).
    const run = typeof ids === 'object' && !Array.isArray(ids) ? (ids as { readonly from: number }).from : undefined;
    const args = run !== undefined ? [queueName, member, 'run', run] : [queueName, member, left, ...(left ? [] : (ids as readonly number[]))];
    let done: Released[] = [];
    const reg = this.reg;
    return new QueueOp('queue.release', 'release', true, args, () => {
      done = [];
      const e = reg.queues.get(queueName);
      if (e === undefined) return 0;
      if (ids === 'left') {
        if (reg.deps.membership.isMember(member)) return 0;
        done = e.queue.releaseMember(member);
        if (done.length > 0) {
          reg.counts.returnedForLeftMember += done.length;
          reg.deps.logger.info(
            { queue: queueName, member, items: done.length },
            'queue items reserved by a member that left are back at the head of the queue (answers it wrote before dying are delivered again)',
          );
        }
      } else if (run !== undefined) {
        for (let id = run; ; id++) {
          const r = e.queue.release({ member, id });
          if (r === undefined) break;
          done.push(r);
        }
        reg.counts.released += done.length;
      } else {
        for (const id of ids as readonly number[]) {
          const r = e.queue.release({ member, id });
          if (r !== undefined) done.push(r);
        }
        reg.counts.released += done.length;
      }
      for (const r of done) if (r.to !== undefined) reg.counts.reserved++;
      reg.scheduleDestroyIfEmpty(queueName, e);
      return done.length;
    }, () => {
      if (done.length === 0) return undefined;
      const out: WireValue[] = [queueName];
      for (const r of done) out.push(r.from.holder.member, r.from.holder.id, r.to?.holder.member ?? null, r.to?.holder.id ?? null);
      return reg.backupOf(queueName, 'release', out);
    }, true);
  }
}
