// The cluster-wide bus of queue change events, beside event-service.ts's map bus and built the
// same way from the same parts (event-fanout.ts, InterestTable, SequenceTracker): a subscription on any member makes it announce its
// interest in the queue to every member (again to members that join, and every
// INTEREST_REFRESH_MS); the queue's owner sends that queue's events to the interested members
// in one batch per turn; what arrives goes through a SequenceTracker (a batch sent twice, a
// former owner's late batch and a removed member's batch do no harm; holes are reported).
// A queue lives in one partition, so its events form one sequence.

import type { QueueChangeEvent, QueueEventSource } from '../queue/queue-service.js';
import { Msg } from '../protocol/messages.js';
import { decodeQueueEvents, encodeQueueEvents, type QueueEventPayload } from '../protocol/queue-event-payloads.js';
import type { EventDeps } from './event-service.js';
import { EventFanout, safely } from './event-fanout.js';
import { SequenceTracker } from './event-sequence.js';

export type { QueueChangeEvent, QueueEventType } from '../queue/queue-service.js';

/** In a failed subscriber's log line. */
const WHAT = 'queue change-event';

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
  private readonly tracker = new SequenceTracker();
  private readonly fanout: EventFanout<QueueEventPayload>;

  constructor(private readonly deps: QueueEventDeps) {
    deps.source.attach({ publish: (e) => this.publish(e), tableVersion: deps.tableVersion });
    this.fanout = new EventFanout<QueueEventPayload>(deps, {
      what: 'queue event',
      interestMsg: Msg.QueueEventInterest,
      eventsMsg: Msg.QueueEvents,
      encode: encodeQueueEvents,
      decode: decodeQueueEvents,
      nameOf: (e) => e.queueName,
      wanted: () => [...this.subscribers.keys()],
      interestChanged: () => this.updateListened(),
      // An event of a queue another member owns.
      arrived: (e, origin) => this.deliver(e, origin),
    });
  }

  /** Events dropped for a member whose batch was full (it reports a gap). */
  get dropped(): number {
    return this.fanout.dropped;
  }

  start(): void {
    this.fanout.start();
  }

  stop(): void {
    this.fanout.stop();
    for (const subs of [...this.subscribers.values()]) for (const s of [...subs]) if (s.ended !== undefined) safely(() => s.ended!('the member is shutting down'), this.deps.logger, WHAT);
  }

  subscribe(s: QueueSubscriber): Promise<() => void> {
    let set = this.subscribers.get(s.queueName);
    if (set === undefined) this.subscribers.set(s.queueName, (set = new Set()));
    set.add(s);
    const announced = set.size === 1 ? this.fanout.announce() : Promise.resolve();
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
        void this.fanout.announce();
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
    for (const q of this.fanout.interest.maps()) names.add(q);
    this.deps.source.setListened(names);
  }

  /** An event made here, at the queue's owner. */
  private publish(e: QueueChangeEvent): void {
    const me = this.deps.cluster.localMember().uuid;
    this.deliver(e, me);
    this.fanout.send(e, me);
  }

  private deliver(e: QueueChangeEvent, origin: string): void {
    const subs = this.subscribers.get(e.queueName);
    if (subs === undefined) return;
    // Local and remote events of a queue form one sequence across owners (a migration hands it over).
    const verdict = this.tracker.admit(e.queueName, e.partitionId, e.epoch, e.sequence);
    if (verdict === 'duplicate' || verdict === 'stale') return;
    for (const s of subs) {
      if (verdict === 'gap' || verdict === 'newTerm') safely(() => s.lost(origin), this.deps.logger, WHAT);
      safely(() => s.event(e, origin), this.deps.logger, WHAT);
    }
  }
}
