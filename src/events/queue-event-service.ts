// The cluster-wide bus of queue change events, beside event-service.ts's map bus and built the
// same way from the same pure parts: a subscription on any member makes it announce its
// interest in the queue to every member (again to members that join, and every
// INTEREST_REFRESH_MS); the queue's owner sends that queue's events to the interested members
// in one batch per turn; what arrives goes through a SequenceTracker (a batch sent twice, a
// former owner's late batch and a removed member's batch do no harm; holes are reported).
// A queue lives in one partition, so its events form one sequence.

import { describeError, GridError } from '../core/errors.js';
import type { TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { QueueChangeEvent, QueueEventSource } from '../queue/queue-service.js';
import { Msg } from '../protocol/messages.js';
import { decodeEventInterest, encodeEventInterest } from '../protocol/event-payloads.js';
import { decodeQueueEvents, encodeQueueEvents, type QueueEventPayload } from '../protocol/queue-event-payloads.js';
import { INTEREST_REFRESH_MS, MAX_PENDING_EVENTS, type EventDeps } from './event-service.js';
import { InterestTable } from './interest-table.js';
import { SequenceTracker } from './event-sequence.js';
import type { MemberInfo } from '../cluster/types.js';

export type { QueueChangeEvent, QueueEventType } from '../queue/queue-service.js';

/** How long a subscription waits for the members to take its interest before it starts anyway. */
const ANNOUNCE_TIMEOUT_MS = 5_000;
/** Events per QueueEvents message. */
const BATCH_EVENTS = 2_000;

export interface QueueSubscriber {
  readonly queueName: string;
  /** One event, in sequence order; `origin` is the uuid of the owner that made it. */
  event(e: QueueChangeEvent, origin: string): void;
  /** Events of the queue may have been lost before the event that follows (a hole in its sequence, or its owner died). */
  lost(origin: string): void;
  /** No more events will come: the member is stopping. */
  ended?(reason: string): void;
}

/** What rest/ may ask of the queue bus. */
export interface QueueEventFacade {
  /** Subscribe; resolves with the unsubscribe function once the members know of the interest (or after a timeout). */
  subscribe(s: QueueSubscriber): Promise<() => void>;
}

export type QueueEventDeps = Omit<EventDeps, 'source'> & { readonly source: QueueEventSource };

export class QueueEventService implements QueueEventFacade {
  private readonly subscribers = new Map<string, Set<QueueSubscriber>>();
  private readonly interest = new InterestTable();
  private readonly tracker = new SequenceTracker();
  private version = 0;
  private readonly pending = new Map<string, QueueEventPayload[]>();
  private flushScheduled = false;
  private refresh: TimerHandle | undefined;
  private unsubscribeCluster: (() => void) | undefined;
  /** Events dropped for a member whose batch was full (it reports a gap). */
  dropped = 0;
  private stopped = false;

  constructor(private readonly deps: QueueEventDeps) {
    deps.source.attach({ publish: (e) => this.publish(e), tableVersion: deps.tableVersion });
    deps.net.handle(Msg.QueueEventInterest, (p, from) => {
      const uuid = from.peer?.uuid;
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) throw new GridError('NOT_MEMBER', 'queue event interest from a non-member');
      const a = decodeEventInterest(p);
      if (this.interest.apply(uuid, a.version, a.maps)) this.updateListened();
      return null;
    });
    deps.net.handleOneWay(Msg.QueueEvents, (p, from) => {
      const uuid = from.peer?.uuid;
      // A removed member's late batch: not delivered.
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) return;
      for (const e of decodeQueueEvents(p)) this.arrived(e, uuid);
    });
  }

  start(): void {
    this.unsubscribeCluster = this.deps.cluster.on((e) => {
      if (e.type !== 'membersChanged') return;
      let changed = false;
      for (const m of e.removed) changed = this.interest.remove(m.uuid) || changed;
      for (const m of e.removed) this.pending.delete(m.uuid);
      if (changed) this.updateListened();
      if (this.version > 0) for (const m of e.added) void this.announceTo(m);
    });
    this.refresh = this.deps.clock.setInterval(() => {
      if (this.version > 0) for (const m of this.others()) void this.announceTo(m);
    }, INTEREST_REFRESH_MS);
  }

  stop(): void {
    this.stopped = true;
    this.refresh?.cancel();
    this.unsubscribeCluster?.();
    this.pending.clear();
    for (const subs of [...this.subscribers.values()]) for (const s of [...subs]) if (s.ended !== undefined) safely(() => s.ended!('the member is shutting down'), this.deps.logger);
  }

  subscribe(s: QueueSubscriber): Promise<() => void> {
    let set = this.subscribers.get(s.queueName);
    if (set === undefined) this.subscribers.set(s.queueName, (set = new Set()));
    set.add(s);
    const announced = set.size === 1 ? this.announce() : Promise.resolve();
    this.updateListened();
    let done = false;
    const unsubscribe = (): void => {
      if (done) return;
      done = true;
      const subs = this.subscribers.get(s.queueName);
      subs?.delete(s);
      if (subs !== undefined && subs.size === 0) {
        this.subscribers.delete(s.queueName);
        this.tracker.forget(s.queueName);
        void this.announce();
      }
      this.updateListened();
    };
    return announced.then(() => unsubscribe);
  }

  /** Subscriptions here, for metrics and tests. */
  subscriptionCount(): number {
    let n = 0;
    for (const s of this.subscribers.values()) n += s.size;
    return n;
  }

  /** A queue makes events while a subscriber here or an interested member wants it. */
  private updateListened(): void {
    const names = new Set<string>(this.subscribers.keys());
    for (const q of this.interest.maps()) names.add(q);
    this.deps.source.setListened(names);
  }

  private others(): MemberInfo[] {
    const me = this.deps.cluster.localMember().uuid;
    return this.deps.cluster.members().filter((m) => m.uuid !== me);
  }

  private announce(): Promise<void> {
    this.version = Math.max(this.version + 1, this.deps.clock.now());
    return Promise.all(this.others().map((m) => this.announceTo(m))).then(() => undefined);
  }

  private announceTo(m: MemberInfo): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const payload = encodeEventInterest({ version: this.version, maps: [...this.subscribers.keys()] });
    return this.deps.net.request(m.address, Msg.QueueEventInterest, payload, ANNOUNCE_TIMEOUT_MS).then(
      () => undefined,
      // The periodic refresh tries again.
      (e: unknown) => this.deps.logger.debug({ member: m.address, err: describeError(e) }, 'queue event interest not delivered'),
    );
  }

  /** An event made here, at the queue's owner. */
  private publish(e: QueueChangeEvent): void {
    const me = this.deps.cluster.localMember().uuid;
    this.deliver(e, me);
    for (const uuid of this.interest.membersFor(e.queueName)) {
      if (uuid === me) continue;
      let batch = this.pending.get(uuid);
      if (batch === undefined) this.pending.set(uuid, (batch = []));
      if (batch.length >= MAX_PENDING_EVENTS) {
        this.dropped++;
        continue;
      }
      batch.push(e);
    }
    if (this.pending.size > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const [uuid, events] of this.pending) {
      const m = this.deps.cluster.memberByUuid(uuid);
      if (m === undefined || this.stopped) continue;
      for (let i = 0; i < events.length; i += BATCH_EVENTS) this.deps.net.oneWay(m.address, Msg.QueueEvents, encodeQueueEvents(events.slice(i, i + BATCH_EVENTS)));
    }
    this.pending.clear();
  }

  /** An event of a queue another member owns. */
  private arrived(e: QueueEventPayload, origin: string): void {
    this.deliver(e, origin);
  }

  private deliver(e: QueueChangeEvent, origin: string): void {
    const subs = this.subscribers.get(e.queueName);
    if (subs === undefined) return;
    // Local and remote events of a queue form one sequence across owners (a migration hands it over).
    const verdict = this.tracker.admit(e.queueName, e.partitionId, e.epoch, e.sequence);
    if (verdict === 'duplicate' || verdict === 'stale') return;
    for (const s of subs) {
      if (verdict === 'gap' || verdict === 'newTerm') safely(() => s.lost(origin), this.deps.logger);
      safely(() => s.event(e, origin), this.deps.logger);
    }
  }
}

/** A subscriber's failure is its own: the owner's write and the other subscribers go on. */
function safely(fn: () => void, logger: Logger): void {
  try {
    fn();
  } catch (e) {
    logger.warn({ err: describeError(e) }, 'a queue change-event subscriber failed');
  }
}
