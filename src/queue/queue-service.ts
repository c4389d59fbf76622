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

import type { Clock, TimerHandle } from '../core/clock.js';
import type { WriteGate } from '../core/memory-guard.js';
import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { Logger } from '../core/logger.js';
import { findQueueConfig } from '../config/index.js';
import type { GridConfig, QueueConfig } from '../config/types.js';
import type { BackupSpec, Caller, Invoker, Operation, OperationHandler } from '../invocation/invoker.js';
import { ALONE_SIZE, PARTITION_OWNER, SplitBrainGuard, THIS_MEMBER, type ProtectedAccess } from '../invocation/split-brain-protection.js';
import { partitionIdOf } from '../partition/partitioning.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { QueueContainer, type ContainerState, type Holder, type QueueItem, type Released, type Reservation } from './queue-container.js';
import { LogOp, type LogRecord } from '../persistence/log-format.js';
import { CountersByName, type MetricsRegistrar } from '../core/metrics.js';

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

export type { QueueItem } from './queue-container.js';

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

/** Everything in one process: the only member, owning everything. */
const ALONE: QueueMembership = {
  localUuid: () => 'local',
  isMember: () => true,
  isOwner: () => true,
  onMembersRemoved: () => () => undefined,
};

/** One queue at its owner. */
export interface QueueStats {
  /** Items in the queue (what `size` answers). */
  readonly size: number;
  /** Items taken by polls whose answer is not confirmed yet (not in `size`). */
  readonly reserved: number;
  /** Polls waiting at the owner for an item. */
  readonly waitingPolls: number;
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

/** How often an owner looks for reservations of members that are gone (the removal event does it at once). */
const SWEEP_INTERVAL_MS = 1_000;
/** Retries of a confirm or release that could not reach the owner (the last delay repeats). */
const SETTLE_RETRY_MS = [100, 500, 1_000, 2_000, 5_000];
/** Attempts at releasing what a failed poll may have reserved (it usually reserved nothing). */
const FAILED_POLL_RELEASE_ATTEMPTS = 6;

export interface QueueFacade {
  /** False when the queue is full. */
  offer(queueName: string, item: QueueItem): MaybePromise<boolean>;
  /** Wait up to `timeoutMs` (0 = don't wait) for an item; undefined when none came. */
  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined>;
  size(queueName: string): MaybePromise<number>;
  /** The head item without taking it (reserved items are not the head); undefined when empty. */
  peek(queueName: string): MaybePromise<QueueItem | undefined>;
  /** Items, reserved items and waiting polls, as the owner sees them. */
  stats(queueName: string): MaybePromise<QueueStats>;
  /** The max-size of the queue's config (0 = unbounded), for error messages. */
  maxSizeOf(queueName: string): number;
}

// The hot operations are classes: one allocation per request, methods shared on the prototype.
class QueueOffer implements Operation<boolean> {
  readonly name = 'queue.offer';
  readonly service = 'queue';
  readonly type = 'offer';
  readonly mutating = true;
  /** Set by run(): what the offer did (stored, or reserved for a waiting poll). */
  outcome: 'stored' | 'full' | 'handed' | Reservation = 'full';
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
    this.svc.guardOwner(this.queueName, 'WRITE');
    return this.svc.runOffer(this);
  }

  backup(): BackupSpec | undefined {
    const o = this.outcome;
    if (o === 'stored') return this.svc.backupOf(this.queueName, 'offer', this.args);
    // Handed straight to a waiting poll: the backups hold the item reserved for that poll.
    if (typeof o === 'object') return this.svc.backupOf(this.queueName, 'offerReserved', [...this.args, o.holder.member, o.holder.id, o.order]);
    return undefined;
  }
}

class QueuePoll implements Operation<QueueItem | undefined> {
  readonly name = 'queue.poll';
  readonly service = 'queue';
  readonly type = 'poll';
  readonly mutating = true;
  /** Set by run(): the reservation this poll took from the queue (a hand-off is replicated by its offer instead). */
  took: Reservation | undefined = undefined;
  constructor(
    private readonly svc: QueueService,
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
    this.svc.guardOwner(this.queueName, 'WRITE');
    return this.svc.runPoll(this);
  }

  backup(item: QueueItem | undefined): BackupSpec | undefined {
    const r = this.took;
    return item !== undefined && r !== undefined ? this.svc.backupOf(this.queueName, 'reserve', [this.queueName, r.holder.member, r.holder.id, r.order]) : undefined;
  }
}

/** One queue's operations on this member as its owner, since the member started (read at scrape time). */
export class QueueCounters {
  /** Offers that stored their item or handed it to a waiting poll. */
  offers = 0;
  /** Offers refused because the queue was full (max-size). */
  rejectedOffers = 0;
  /** Poll operations run (an item taken, waited for, or none). */
  polls = 0;
}

interface Entry {
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
}

function encodeItem(item: QueueItem): WireValue[] {
  return [new Latin1(item.value), item.contentType ?? null];
}

/** The item encoded by encodeItem at `at` of a tuple. */
function decodeItem(t: readonly WireValue[], at: number): QueueItem {
  return { value: f.latin1(t, at, 'value'), contentType: f.optStr(t, at + 1, 'content type') };
}

/** One queue's items, taken from a cluster that merges into another after a split brain. */
export interface QueueMergeBatch {
  readonly queueName: string;
  readonly items: readonly QueueItem[];
}

export class QueueService implements QueueFacade {
  private readonly queues = new Map<string, Entry>();
  private persistence: QueuePersistence | undefined;
  /** The log id of each persisted item (items are distinct objects; a removal names its id). */
  private readonly persistIds = new WeakMap<QueueItem, number>();
  private readonly config: GridConfig;
  private readonly invoker: Invoker;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly membership: QueueMembership;
  private stopped = false;
  /** Set when some queue config refers to an enabled split-brain protection. */
  private readonly guard: SplitBrainGuard | undefined;
  /** Ids of this member's polls: with its uuid, the holder of what they reserve. */
  private nextPollId = 1;
  /**
   * Polls of this turn whose answers were written, by queue: confirmed together by one
   * operation at the end of the turn (setImmediate) instead of one operation (and, in a
   * cluster, one forwarded request and one backup) per poll.
   */
  private confirms: Map<string, { pid: number; member: string; ids: number[] }> | undefined;
  private readonly counts: ReservationStats = { reserved: 0, confirmed: 0, released: 0, returnedForLeftMember: 0, lateConfirms: 0 };
  private readonly counters = new CountersByName(() => new QueueCounters());
  /** Members seen leaving the list (bounded, oldest forgotten first): their reservations go back without waiting a sweep. */
  private readonly departed = new Set<string>();
  /** Holders found outside the member list by the last sweep: returned if still outside at the next one. */
  private absentAtLastSweep = new Set<string>();
  /** `queue\0member` of returns under way, so a sweep does not send the same one twice. */
  private readonly returning = new Set<string>();
  private readonly sweepTimer: TimerHandle | undefined;
  private readonly unsubscribe: () => void;

  private readonly gate: WriteGate | undefined;
  constructor(deps: {
    config: GridConfig;
    invoker: Invoker;
    clock: Clock;
    logger: Logger;
    membership?: QueueMembership;
    /** Data members in this member's list (lite members do not count), for split-brain protection. Default: 1. */
    clusterSize?: () => number;
    /** The member memory guard: offers are refused while it refuses. */
    writeGate?: WriteGate;
  }) {
    this.gate = deps.writeGate;
    this.config = deps.config;
    this.invoker = deps.invoker;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.guard = SplitBrainGuard.of(deps.config, deps.config.queues, deps.clusterSize ?? ALONE_SIZE);
    this.membership = deps.membership ?? ALONE;
    this.unsubscribe = this.membership.onMembersRemoved((uuids) => {
      for (const u of uuids) {
        this.departed.add(u);
        if (this.departed.size > 1024) this.departed.delete(this.departed.values().next().value!);
      }
      this.sweep();
    });
    this.sweepTimer = deps.membership === undefined ? undefined : this.clock.setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
  }

  offer(queueName: string, item: QueueItem): MaybePromise<boolean> {
    this.guardHere(queueName, 'WRITE');
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.offerOp(pid, queueName, item));
  }

  poll(queueName: string, timeoutMs: number, client: PollClient): MaybePromise<QueueItem | undefined> {
    this.guardHere(queueName, 'WRITE');
    const pid = partitionIdOf(queueName);
    const deadline = this.clock.now() + Math.max(0, timeoutMs);
    const holder: Holder = { member: this.membership.localUuid(), id: this.nextPollId++ };
    // Whatever the poll reserved is confirmed once the answer is written, else released.
    const arrived = (item: QueueItem | undefined): QueueItem | undefined => {
      if (item === undefined) return undefined;
      if (!client.alive()) {
        this.settle(pid, queueName, holder, false);
        return undefined;
      }
      if (client.onAnswered === undefined) this.settle(pid, queueName, holder, true);
      else client.onAnswered((written) => (written ? this.confirmLater(pid, queueName, holder) : this.settle(pid, queueName, holder, false)));
      return item;
    };
    // A synchronous throw is a refusal before anything ran (shutting down, PASSIVE): nothing reserved.
    const found = this.invoker.invoke(pid, this.pollOp(pid, queueName, deadline, timeoutMs, client, holder), client);
    if (!(found instanceof Promise)) return arrived(found);
    return found.then(arrived, (e: unknown) => {
      // The owner may have reserved an item whose answer was lost on the way: give it back.
      this.settle(pid, queueName, holder, false, 0, FAILED_POLL_RELEASE_ATTEMPTS);
      throw e;
    });
  }

  size(queueName: string): MaybePromise<number> {
    this.guardHere(queueName, 'READ');
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.sizeOp(queueName));
  }

  peek(queueName: string): MaybePromise<QueueItem | undefined> {
    this.guardHere(queueName, 'READ');
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.peekOp(queueName));
  }

  stats(queueName: string): MaybePromise<QueueStats> {
    const pid = partitionIdOf(queueName);
    return this.invoker.invoke(pid, this.statsOp(queueName));
  }

  maxSizeOf(queueName: string): number {
    return (this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName)).maxSize;
  }

  /** The per-queue metrics (docs/metrics.md) of the queues this member owns. */
  reportMetrics(r: MetricsRegistrar): void {
    const labelNames = ['queue'];
    const owned = (report: (e: Entry, queue: string) => void): void => {
      for (const [queue, e] of this.queues) if (this.membership.isOwner(e.partitionId)) report(e, queue);
    };
    r.gauge({ name: 'grid_queue_size', help: 'Items in the queue, on the member that owns it (items taken by a poll whose answer is not confirmed yet not included)', labelNames }, (report) =>
      owned((e, queue) => report(e.queue.size, { queue })),
    );
    r.gauge({ name: 'grid_queue_waiting_polls', help: 'Polls waiting for an item, on the member that owns the queue', labelNames }, (report) =>
      owned((e, queue) => report(e.queue.waiting, { queue })),
    );
    const counter = (name: string, help: string, read: (c: QueueCounters) => number): void =>
      r.counter({ name, help, labelNames }, (report) => this.counters.forEach((c, queue) => report(read(c), { queue })));
    counter('grid_queue_offers_total', 'Offers this member accepted as the queue\'s owner (stored, or handed to a waiting poll)', (c) => c.offers);
    counter('grid_queue_rejected_offers_total', 'Offers refused because the queue was full (max-size)', (c) => c.rejectedOffers);
    counter('grid_queue_polls_total', 'Poll operations this member ran as the queue\'s owner, whether they got an item, waited or got none', (c) => c.polls);
  }

  /** Reservation counts of this member since it started. */
  reservationStats(): ReservationStats {
    return { ...this.counts };
  }

  /** Items reserved in this member's copy of the queue (owner or backup), for tests. */
  reservedCount(queueName: string): number {
    return this.queues.get(queueName)?.queue.reserved ?? 0;
  }

  /** Answer every waiting poll with a shutdown error. */
  stop(): void {
    // Written answers of this turn are confirmed now (a confirm may run during shutdown).
    this.sendConfirms();
    this.stopped = true;
    this.sweepTimer?.cancel();
    this.unsubscribe();
    const err = new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    for (const e of this.queues.values()) {
      e.destroyTimer?.cancel();
      this.failWaiters(e, err);
      e.queue.drainWaiters();
    }
  }

  // ------------------------------------------------------------------ split-brain protection

  /**
   * Checked on the member that received the request and again on the owner that runs the
   * operation, like maps. Confirms and releases of poll reservations, backups and
   * empty-queue-ttl destroys are never refused: they finish work already allowed.
   */
  private guardHere(queueName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.protectionRefOf(queueName), access, `queue '${queueName}'`, THIS_MEMBER);
  }

  /** @internal */ guardOwner(queueName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.protectionRefOf(queueName), access, `queue '${queueName}'`, PARTITION_OWNER);
    if (access === 'WRITE') this.checkPersistable(queueName);
  }

  /** An offer or poll of a persisted queue is refused before it changes anything while the member's log cannot take records. */
  private checkPersistable(queueName: string): void {
    const refusal = this.persistence?.refusal();
    if (refusal === undefined) return;
    if ((this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName)).dataPersistence.enabled) throw refusal;
  }

  private protectionRefOf(queueName: string): string | undefined {
    return (this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName)).splitBrainProtectionRef;
  }

  // ------------------------------------------------------------------ operations

  /** @internal */ backupOf(queueName: string, type: string, args: readonly WireValue[]): BackupSpec {
    const config = this.queues.get(queueName)?.config ?? findQueueConfig(this.config, queueName);
    return { type, args, syncCount: config.backupCount, asyncCount: config.asyncBackupCount };
  }

  /**
   * The items of the queues in partitions this member owns, in queue order, for a split-brain
   * merge: reserved ones first (they were at the head, and their polls may not have been
   * answered: at-least-once), then the queue.
   */
  collectForMerge(owned: readonly number[]): QueueMergeBatch[] {
    const mine = new Set(owned);
    const out: QueueMergeBatch[] = [];
    for (const [queueName, e] of this.queues) {
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
  async mergeInto(batches: readonly QueueMergeBatch[]): Promise<{ appended: number; discarded: number; refused: number }> {
    let appended = 0;
    let discarded = 0;
    let refused = 0;
    for (const b of batches) {
      if (findQueueConfig(this.config, b.queueName).mergePolicy.policy === 'DiscardMergePolicy') {
        discarded += b.items.length;
        continue;
      }
      const pid = partitionIdOf(b.queueName);
      for (const item of b.items) {
        try {
          if (await this.invoker.invoke(pid, this.offerOp(pid, b.queueName, item))) appended++;
          else refused++;
        } catch (e) {
          refused++;
          this.logger.warn({ queue: b.queueName }, `merging a queue item failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    return { appended, discarded, refused };
  }

  private offerOp(pid: number, queueName: string, item: QueueItem): Operation<boolean> {
    return new QueueOffer(this, pid, queueName, item);
  }

  /** @internal */ runOffer(op: QueueOffer): boolean {
    this.gate?.check(`the offer to queue "${op.queueName}"`);
    const e = this.entry(op.queueName, op.pid);
    const outcome = e.queue.offerItem(op.item);
    op.outcome = outcome;
    const counters = (e.counters ??= this.counters.of(op.queueName, true));
    if (outcome === 'full') counters.rejectedOffers++;
    else counters.offers++;
    // Stored, or reserved for a waiting poll: the item is in the queue until confirmed.
    if (outcome !== 'full' && outcome !== 'handed') this.persistPut(op.queueName, e, op.item);
    if (typeof outcome === 'object') this.counts.reserved++;
    this.scheduleDestroyIfEmpty(op.queueName, e);
    return outcome !== 'full';
  }

  private pollOp(pid: number, queueName: string, deadline: number, timeoutMs: number, client: Caller, holder: Holder): Operation<QueueItem | undefined> {
    return new QueuePoll(this, pid, queueName, deadline, timeoutMs, client, holder);
  }

  /** @internal */ runPoll(op: QueuePoll): MaybePromise<QueueItem | undefined> {
    op.took = undefined;
    const e = this.queues.get(op.queueName);
    // The same poll sent again (its answer was lost with a connection or an owner): the same item.
    const had = e?.queue.reservation(op.holder);
    if (had !== undefined) return had.item;
    (e !== undefined ? (e.counters ??= this.counters.of(op.queueName, true)) : this.counters.of(op.queueName, false)).polls++;
    // A poll whose client has already gone (e.g. pipelined behind a long poll on a
    // connection that closed since) takes nothing.
    if (!op.client.alive()) return undefined;
    const r = e?.queue.take(op.holder);
    if (r !== undefined) {
      op.took = r;
      this.counts.reserved++;
      this.scheduleDestroyIfEmpty(op.queueName, e!);
      return r.item;
    }
    if (e !== undefined) this.scheduleDestroyIfEmpty(op.queueName, e);
    const left = op.deadline - this.clock.now();
    if (left <= 0) return undefined;
    return this.waitForItem(op.queueName, op.pid, left, op.client, op.holder, (took) => {
      op.took = took;
    });
  }

  /** The holder wrote the answers of these polls: their items are gone. */
  private confirmOp(pid: number, queueName: string, member: string, ids: readonly number[]): Operation<number> {
    const args = [queueName, member, ...ids];
    let confirmed: number[] = [];
    return {
      name: 'queue.confirm',
      service: 'queue',
      type: 'confirm',
      mutating: true,
      duringShutdown: true,
      args,
      run: () => {
        confirmed = [];
        const e = this.queues.get(queueName);
        for (const id of ids) {
          const r = e?.queue.confirm({ member, id });
          if (r === undefined) continue;
          confirmed.push(id);
          this.persistRemove(queueName, e!, r.item);
        }
        this.counts.confirmed += confirmed.length;
        const late = ids.length - confirmed.length;
        if (late > 0) {
          // Sent again after it was applied, or its reservation was returned when the holder
          // was thought gone: in the second case the item was delivered twice.
          this.counts.lateConfirms += late;
          this.logger.info({ queue: queueName, member, late }, 'confirm of a queue reservation that is no longer held (already confirmed, or returned: then delivered twice)');
        }
        if (e !== undefined) this.scheduleDestroyIfEmpty(queueName, e);
        return confirmed.length;
      },
      backup: () => (confirmed.length > 0 ? this.backupOf(queueName, 'confirm', [queueName, member, ...confirmed]) : undefined),
    };
  }

  /**
   * Items reserved by `member` go back to the head of the queue (or to waiting polls): the
   * polls `ids` whose answers were not written, or with `left` every reservation of a member
   * that is no longer in the list (refused while it still is).
   */
  private releaseOp(pid: number, queueName: string, member: string, ids: readonly number[] | 'left'): Operation<number> {
    const left = ids === 'left';
    const args = [queueName, member, left, ...(left ? [] : ids)];
    let done: Released[] = [];
    return {
      name: 'queue.release',
      service: 'queue',
      type: 'release',
      mutating: true,
      duringShutdown: true,
      args,
      run: () => {
        done = [];
        const e = this.queues.get(queueName);
        if (e === undefined) return 0;
        if (ids === 'left') {
          if (this.membership.isMember(member)) return 0;
          done = e.queue.releaseMember(member);
          if (done.length > 0) {
            this.counts.returnedForLeftMember += done.length;
            this.logger.info(
              { queue: queueName, member, items: done.length },
              'queue items reserved by a member that left are back at the head of the queue (answers it wrote before dying are delivered again)',
            );
          }
        } else {
          for (const id of ids) {
            const r = e.queue.release({ member, id });
            if (r !== undefined) done.push(r);
          }
          this.counts.released += done.length;
        }
        for (const r of done) if (r.to !== undefined) this.counts.reserved++;
        this.scheduleDestroyIfEmpty(queueName, e);
        return done.length;
      },
      backup: () => {
        if (done.length === 0) return undefined;
        const out: WireValue[] = [queueName];
        for (const r of done) out.push(r.from.holder.member, r.from.holder.id, r.to?.holder.member ?? null, r.to?.holder.id ?? null);
        return this.backupOf(queueName, 'release', out);
      },
    };
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
        if (this.queues.get(queueName) !== e || !isIdle(e)) return false;
        this.queues.delete(queueName);
        this.persistClear(queueName, e);
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
      run: () => {
        this.guardOwner(queueName, 'READ');
        return this.queues.get(queueName)?.queue.size ?? 0;
      },
    };
  }

  private peekOp(queueName: string): Operation<QueueItem | undefined> {
    return {
      name: 'queue.peek',
      service: 'queue',
      type: 'peek',
      mutating: false,
      args: [queueName],
      run: () => {
        this.guardOwner(queueName, 'READ');
        return this.queues.get(queueName)?.queue.peek();
      },
    };
  }

  private statsOp(queueName: string): Operation<QueueStats> {
    return {
      name: 'queue.stats',
      service: 'queue',
      type: 'stats',
      mutating: false,
      args: [queueName],
      run: () => {
        const q = this.queues.get(queueName)?.queue;
        return { size: q?.size ?? 0, reserved: q?.reserved ?? 0, waitingPolls: q?.waiting ?? 0 };
      },
    };
  }

  private waitForItem(
    queueName: string,
    pid: number,
    timeoutMs: number,
    client: Caller,
    holder: Holder,
    tookStored: (r: Reservation) => void,
  ): Promise<QueueItem | undefined> {
    if (this.stopped) return Promise.reject(new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    return new Promise<QueueItem | undefined>((resolve, reject) => {
      const e = this.entry(queueName, pid);
      // An offer may have run between the empty poll above and now (another request in the
      // same tick): take that item instead of waiting behind it. Checked and registered
      // synchronously, so nothing can slip in between.
      const ready = e.queue.take(holder);
      if (ready !== undefined) {
        tookStored(ready);
        this.counts.reserved++;
        this.scheduleDestroyIfEmpty(queueName, e);
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
        this.scheduleDestroyIfEmpty(queueName, e);
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

  // ------------------------------------------------------------------ reservations of the holder

  /**
   * Tell the owner the answer of a poll was written (confirm) or not (release); tried until it
   * gets there or this member stops (or `maxAttempts`): a reservation left behind while its
   * holder lives would keep its item out of the queue.
   */
  private settle(pid: number, queueName: string, holder: Holder, written: boolean, attempt = 0, maxAttempts = Infinity): void {
    this.settleIds(pid, queueName, holder.member, [holder.id], written, attempt, maxAttempts);
  }

  /** A written answer's reservation, confirmed with the others of this turn and queue. */
  private confirmLater(pid: number, queueName: string, holder: Holder): void {
    if (this.stopped) {
      this.settleIds(pid, queueName, holder.member, [holder.id], true);
      return;
    }
    let confirms = this.confirms;
    if (confirms === undefined) {
      confirms = this.confirms = new Map();
      setImmediate(this.sendConfirms);
    }
    const batch = confirms.get(queueName);
    if (batch === undefined) confirms.set(queueName, { pid, member: holder.member, ids: [holder.id] });
    else if (batch.member === holder.member) batch.ids.push(holder.id);
    // Held under another identity (this member's uuid changed meanwhile): on its own.
    else this.settleIds(pid, queueName, holder.member, [holder.id], true);
  }

  private readonly sendConfirms = (): void => {
    const confirms = this.confirms;
    if (confirms === undefined) return;
    this.confirms = undefined;
    for (const [queueName, b] of confirms) this.settleIds(b.pid, queueName, b.member, b.ids, true);
  };

  private settleIds(pid: number, queueName: string, member: string, ids: readonly number[], written: boolean, attempt = 0, maxAttempts = Infinity): void {
    const retry = (e: unknown): void => {
      if (attempt + 1 >= maxAttempts) {
        this.logger.warn({ queue: queueName, err: e }, 'could not release what a failed poll may have reserved: the owner returns it when this member leaves');
        return;
      }
      if (this.stopped) {
        this.logger.debug({ queue: queueName, err: e }, `queue reservation not ${written ? 'confirmed' : 'released'} before shutdown: the owner returns it when this member has left`);
        return;
      }
      if (attempt === 0 || attempt % 10 === 0) {
        this.logger.warn({ queue: queueName, err: e, attempt }, `queue reservation not ${written ? 'confirmed' : 'released'} yet: trying again`);
      }
      const delay = SETTLE_RETRY_MS[Math.min(attempt, SETTLE_RETRY_MS.length - 1)]!;
      this.clock.setTimeout(() => this.settleIds(pid, queueName, member, ids, written, attempt + 1, maxAttempts), delay);
    };
    try {
      const op = written ? this.confirmOp(pid, queueName, member, ids) : this.releaseOp(pid, queueName, member, ids);
      const done = this.invoker.invoke(pid, op);
      if (done instanceof Promise) done.catch(retry);
    } catch (e) {
      retry(e);
    }
  }

  // ------------------------------------------------------------------ reservations of members that left

  /**
   * On the owner: reservations whose holder left the member list go back to the queue. A
   * member seen leaving (membersChanged) is returned at once; a holder that is simply not in
   * the list (e.g. it left before this member became the owner) once two sweeps saw it missing.
   */
  private sweep(): void {
    if (this.stopped) return;
    const absent = new Set<string>();
    for (const [name, e] of this.queues) {
      if (e.queue.reserved === 0 || !this.membership.isOwner(e.partitionId)) continue;
      for (const m of e.queue.holders()) {
        if (this.membership.isMember(m)) continue;
        absent.add(m);
        if (this.departed.has(m) || this.absentAtLastSweep.has(m)) this.returnReservationsOf(e.partitionId, name, m);
      }
    }
    this.absentAtLastSweep = absent;
  }

  private returnReservationsOf(pid: number, queueName: string, member: string): void {
    const key = `${queueName}\0${member}`;
    if (this.returning.has(key)) return;
    this.returning.add(key);
    const fail = (err: unknown): void => {
      this.returning.delete(key);
      this.logger.debug({ queue: queueName, member, err }, 'reservations of a member that left not returned yet (the next sweep tries again)');
    };
    try {
      const done = this.invoker.invoke(pid, this.releaseOp(pid, queueName, member, 'left'));
      if (done instanceof Promise) done.then(() => this.returning.delete(key), fail);
      else this.returning.delete(key);
    } catch (e) {
      fail(e);
    }
  }

  // ------------------------------------------------------------------ remote side

  readonly handler: OperationHandler = {
    operation: (pid: number, type: string, args: readonly WireValue[], caller: Caller): Operation<unknown> => {
      const name = f.str(args, 0, 'queue name');
      if (partitionIdOf(name) !== pid) throw new GridError('BAD_REQUEST', `queue ${name} is not in partition ${pid}`);
      switch (type) {
        case 'offer':
          return this.offerOp(pid, name, decodeItem(args, 1));
        case 'poll': {
          const deadline = f.num(args, 1, 'deadline');
          const holder = { member: f.str(args, 2, 'holder'), id: f.int(args, 3, 'poll id') };
          return this.pollOp(pid, name, deadline, Math.max(0, deadline - this.clock.now()), caller, holder);
        }
        case 'confirm':
          return this.confirmOp(pid, name, f.str(args, 1, 'holder'), ids(args, 2));
        case 'release': {
          const member = f.str(args, 1, 'holder');
          return this.releaseOp(pid, name, member, f.bool(args, 2, 'left') ? 'left' : ids(args, 3));
        }
        case 'size':
          return this.sizeOp(name);
        case 'peek':
          return this.peekOp(name);
        case 'stats':
          return this.statsOp(name);
      }
      throw new GridError('BAD_REQUEST', `unknown queue operation ${type}`);
    },
    encodeResult: (type: string, result: unknown): WireValue => {
      if (type === 'offer') return result as boolean;
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
          this.checkPersistable(name);
          const e = this.entry(name, pid);
          const item = decodeItem(args, 1);
          e.queue.append(item);
          this.persistPut(name, e, item);
          return;
        }
        case 'offerReserved': {
          const e = this.entry(name, pid);
          const item = decodeItem(args, 1);
          e.queue.holdOffered(holderAt(args, 3), item, f.int(args, 5, 'order'));
          this.persistPut(name, e, item);
          return;
        }
        case 'reserve':
          this.entry(name, pid).queue.takeAs(holderAt(args, 1), f.int(args, 3, 'order'));
          return;
        case 'confirm': {
          const e = this.queues.get(name);
          const member = f.str(args, 1, 'holder');
          for (const id of ids(args, 2)) {
            const r = e?.queue.confirm({ member, id });
            if (r !== undefined) this.persistRemove(name, e!, r.item);
          }
          return;
        }
        case 'release': {
          const q = this.entry(name, pid).queue;
          for (let i = 1; i + 3 < args.length; i += 4) {
            const to = args[i + 2] === null ? undefined : holderAt(args, i + 2);
            q.releaseAs(holderAt(args, i), to);
          }
          return;
        }
        case 'destroy': {
          const e = this.queues.get(name);
          if (e !== undefined && e.queue.size === 0 && e.queue.reserved === 0) {
            this.queues.delete(name);
            this.persistClear(name, e);
          }
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
        out.push(name, ...encodeState(e.queue.state()));
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      this.dropPartition(pid);
      if (data === undefined) return;
      const t = f.tuple(data, 'queue data');
      for (let i = 0; i + STATE_FIELDS < t.length; i += STATE_FIELDS + 1) {
        const name = f.str(t, i, 'queue name');
        const e = this.entry(name, pid);
        e.queue.restore(decodeState(t, i + 1));
        // A copied queue is persisted whole, in its order (after the partition's drop record).
        for (const item of persistOrder(e.queue.state())) this.persistPut(name, e, item);
      }
    },
    drop: (pid: number): void => this.dropPartition(pid),
    trim: (pid: number, replicaIndex: number): void => {
      for (const [name, e] of this.queues) {
        if (e.partitionId !== pid || 1 + e.config.backupCount + e.config.asyncBackupCount > replicaIndex) continue;
        e.destroyTimer?.cancel();
        this.queues.delete(name);
        this.persistClear(name, e);
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

  // ------------------------------------------------------------------ persistence

  /** Queues with data-persistence persist every item in and out from now on (set once at start). */
  setPersistence(p: QueuePersistence): void {
    this.persistence = p;
  }

  private persistPut(name: string, e: Entry, item: QueueItem): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    const id = e.nextPersistId++;
    this.persistIds.set(item, id);
    p.append({ op: LogOp.Put, partitionId: e.partitionId, service: 'queue', name, key: String(id), value: encodePersistedItem(item) }, e.config.dataPersistence.fsync);
  }

  private persistRemove(name: string, e: Entry, item: QueueItem): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    const id = this.persistIds.get(item);
    if (id === undefined) return;
    this.persistIds.delete(item);
    p.append({ op: LogOp.Remove, partitionId: e.partitionId, service: 'queue', name, key: String(id) }, e.config.dataPersistence.fsync);
  }

  private persistClear(name: string, e: Entry): void {
    const p = this.persistence;
    if (p === undefined || !e.config.dataPersistence.enabled) return;
    p.append({ op: LogOp.Clear, partitionId: e.partitionId, service: 'queue', name }, e.config.dataPersistence.fsync);
  }

  /**
   * Replay persisted records (member start): every persisted item back in its queue, in the
   * order it was offered. Items that were reserved by a poll whose answer was never confirmed
   * are back in the queue (at-least-once). Returns the items restored.
   */
  restorePersisted(records: Iterable<LogRecord>): number {
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
      const e = this.entry(name, q.pid);
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
  *persistedRecords(): IterableIterator<LogRecord> {
    for (const [name, e] of this.queues) {
      if (!e.config.dataPersistence.enabled) continue;
      for (const item of persistOrder(e.queue.state())) {
        let id = this.persistIds.get(item);
        if (id === undefined) this.persistIds.set(item, (id = e.nextPersistId++));
        yield { op: LogOp.Put, partitionId: e.partitionId, service: 'queue', name, key: String(id), value: encodePersistedItem(item) };
      }
    }
  }

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
      e = { config, queue: new QueueContainer(config.maxSize), partitionId: pid, nextPersistId: 1, destroyTimer: undefined, waiting: new Set(), counters: undefined };
      this.queues.set(queueName, e);
    }
    return e;
  }

  /** empty-queue-ttl: an empty queue nobody waits on (and with nothing reserved) is destroyed after the TTL. */
  private scheduleDestroyIfEmpty(queueName: string, e: Entry): void {
    const ttl = e.config.emptyQueueTtlSeconds;
    if (ttl < 0) return;
    if (!isIdle(e)) {
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

function isIdle(e: Entry): boolean {
  return e.queue.size === 0 && e.queue.waiting === 0 && e.queue.reserved === 0;
}

function holderAt(t: readonly WireValue[], at: number): Holder {
  return { member: f.str(t, at, 'holder'), id: f.int(t, at + 1, 'poll id') };
}

function ids(t: readonly WireValue[], from: number): number[] {
  const out: number[] = [];
  for (let i = from; i < t.length; i++) out.push(f.int(t, i, 'poll id'));
  return out;
}

/** A queue's items in the order a restart gives them back: taken ones (returned or reserved) by take order, then the rest. */
function persistOrder(s: ContainerState): QueueItem[] {
  const taken = [...s.returned.map((r) => ({ item: r.item, order: r.order })), ...s.reservations.map((r) => ({ item: r.item, order: r.order }))].sort((a, b) => a.order - b.order);
  return [...taken.map((t) => t.item), ...s.items];
}

/** Fields after the queue name in a replica snapshot: items, returned, reservations, next order. */
const STATE_FIELDS = 4;

function encodeState(s: ContainerState): WireValue[] {
  const items: WireValue[] = [];
  for (const it of s.items) items.push(new Latin1(it.value), it.contentType ?? null);
  const returned: WireValue[] = [];
  for (const r of s.returned) returned.push(r.order, new Latin1(r.item.value), r.item.contentType ?? null);
  const held: WireValue[] = [];
  for (const r of s.reservations) held.push(r.holder.member, r.holder.id, r.order, new Latin1(r.item.value), r.item.contentType ?? null);
  return [items, returned, held, s.nextOrder];
}

function decodeState(t: readonly WireValue[], at: number): ContainerState {
  const items: QueueItem[] = [];
  const rawItems = f.arr(t, at, 'items');
  for (let j = 0; j + 1 < rawItems.length; j += 2) items.push(decodeItem(rawItems, j));
  const returned: { item: QueueItem; order: number }[] = [];
  const rawReturned = f.arr(t, at + 1, 'returned items');
  for (let j = 0; j + 2 < rawReturned.length; j += 3) returned.push({ order: f.int(rawReturned, j, 'order'), item: decodeItem(rawReturned, j + 1) });
  const reservations: Reservation[] = [];
  const rawHeld = f.arr(t, at + 2, 'reservations');
  for (let j = 0; j + 4 < rawHeld.length; j += 5) {
    reservations.push({ holder: holderAt(rawHeld, j), order: f.int(rawHeld, j + 2, 'order'), item: decodeItem(rawHeld, j + 3) });
  }
  return { items, returned, reservations, nextOrder: f.int(t, at + 3, 'next order') };
}
