// The cluster-wide bus of map change events. Subscribers (Hazelcast client listeners, REST
// change streams) subscribe here on any member. A local-only subscription gets the events of
// the partitions this member owns, straight from the owner-side source; a cluster-wide one
// makes this member announce its interest in the map to every member (and to members that
// join later), and the owners send their events of that map here in one batch per turn. What
// arrives is checked by the pure SequenceTracker (duplicates and late messages dropped, gaps
// reported); messages from non-members never get here (the member gate). The member-to-member
// part (announcements, batches per member and turn) is event-fanout.ts, shared with the queue bus.

import type { MapChangeEvent, MapEventSource } from '../map/map-service.js';
import { Msg } from '../protocol/messages.js';
import { decodeMapEvents, encodeMapEvents, type MapEventPayload } from '../protocol/event-payloads.js';
import { EventFanout, safely, type FanoutDeps } from './event-fanout.js';
import { SequenceTracker } from './event-sequence.js';
import type { EventJournal } from './event-journal.js';

export type { MapChangeEvent, MapEventType } from '../map/map-service.js';
export type { JournalGap, JournalRead, JournalFrom, JournalPosition } from './journal-ring.js';
export { StreamCursor } from './journal-cursor.js';

export { INTEREST_REFRESH_MS, MAX_PENDING_EVENTS } from './event-fanout.js';

export interface MapSubscriber {
  readonly mapName: string;
  /** Only the events of partitions this member owns (a smart client's listener on each connection). */
  readonly localOnly: boolean;
  /** One event, in sequence order per partition; `origin` is the uuid of the owner that made it. */
  event(e: MapChangeEvent, origin: string): void;
  /** Events of the partition may have been lost before the event that follows (a hole in its sequence, or its owner died). */
  lost(partitionId: number, origin: string): void;
  /** No more events will come: the member is stopping. */
  ended?(reason: string): void;
}

/** What client/ and rest/ may ask of the bus. */
export interface EventFacade {
  /** Subscribe; resolves with the unsubscribe function once the members know of the interest (or after a timeout). */
  subscribe(s: MapSubscriber): Promise<() => void>;
  /** The maps' event journals (event-journal.ts): which maps have one, and reads of a partition's at its owner. */
  readonly journal: Pick<EventJournal, 'journaled' | 'read'> | undefined;
}

export interface EventDeps extends FanoutDeps {
  readonly source: MapEventSource;
  readonly tableVersion: () => number;
  /** The journal of maps configured with one: the owner journals each event before it is delivered. */
  readonly journal?: EventJournal;
}

/** In a failed subscriber's log line. */
const WHAT = 'change-event';

export class EventService implements EventFacade {
  private readonly subscribers = new Map<string, Set<MapSubscriber>>();
  /** Maps with at least one cluster-wide subscription here: what this member announces. */
  private readonly wanted = new Map<string, number>();
  private readonly tracker = new SequenceTracker();
  private readonly fanout: EventFanout<MapEventPayload>;

  readonly journal: EventJournal | undefined;

  constructor(private readonly deps: EventDeps) {
    const journal = (this.journal = deps.journal);
    deps.source.attach({
      publish: (e) => this.publish(e),
      tableVersion: deps.tableVersion,
      ...(journal === undefined ? {} : { startSequence: (mapName: string, pid: number) => journal.lastSequence(mapName, pid) }),
    });
    this.fanout = new EventFanout<MapEventPayload>(deps, {
      what: 'event',
      interestMsg: Msg.EventInterest,
      eventsMsg: Msg.MapEvents,
      encode: encodeMapEvents,
      decode: decodeMapEvents,
      nameOf: (e) => e.mapName,
      wanted: () => [...this.wanted.keys()],
      interestChanged: () => this.updateListened(),
      arrived: (e, origin) => this.arrived(e, origin),
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

  subscribe(s: MapSubscriber): Promise<() => void> {
    let set = this.subscribers.get(s.mapName);
    if (set === undefined) this.subscribers.set(s.mapName, (set = new Set()));
    set.add(s);
    let announced: Promise<void> = Promise.resolve();
    if (!s.localOnly) {
      const n = this.wanted.get(s.mapName) ?? 0;
      this.wanted.set(s.mapName, n + 1);
      if (n === 0) announced = this.fanout.announce();
    }
    this.updateListened();
    let done = false;
    const unsubscribe = (): void => {
      if (done) return;
      done = true;
      const subs = this.subscribers.get(s.mapName);
      subs?.delete(s);
      if (subs !== undefined && subs.size === 0) this.subscribers.delete(s.mapName);
      if (!s.localOnly) {
        const left = (this.wanted.get(s.mapName) ?? 1) - 1;
        if (left > 0) this.wanted.set(s.mapName, left);
        else {
          this.wanted.delete(s.mapName);
          this.tracker.forget(s.mapName);
          void this.fanout.announce();
        }
      }
      this.updateListened();
    };
    return announced.then(() => unsubscribe);
  }

  /** Subscriptions here (both kinds), for metrics and tests. */
  subscriptionCount(): number {
    let n = 0;
    for (const s of this.subscribers.values()) n += s.size;
    return n;
  }

  /** The stores of a map are watched while a subscriber here or an interested member wants it. */
  private updateListened(): void {
    const names = new Set<string>(this.subscribers.keys());
    for (const m of this.fanout.interest.maps()) names.add(m);
    this.deps.source.setListened(names);
  }

  /** An event made here, at the partition's owner. */
  private publish(e: MapChangeEvent): void {
    // Journaled (and on its way to the backups) before any subscriber sees it.
    this.journal?.append(e);
    const me = this.deps.cluster.localMember().uuid;
    this.deliver(e, me, true);
    this.fanout.send(e, me);
  }

  /** An event another member's partition made. */
  private arrived(e: MapEventPayload, origin: string): void {
    if (!this.wanted.has(e.mapName)) return;
    this.deliver(e, origin, false);
  }

  private deliver(e: MapChangeEvent, origin: string, local: boolean): void {
    const subs = this.subscribers.get(e.mapName);
    if (subs === undefined) return;
    let verdict: string | undefined;
    for (const s of subs) {
      if (s.localOnly) {
        if (local) safely(() => s.event(e, origin), this.deps.logger, WHAT);
        continue;
      }
      // Cluster-wide subscriptions share one tracker: local and remote events of a partition
      // form one sequence across owners (a migration hands it over).
      verdict ??= this.tracker.admit(e.mapName, e.partitionId, e.epoch, e.sequence);
      if (verdict === 'duplicate' || verdict === 'stale') continue;
      if (verdict === 'gap' || verdict === 'newTerm') safely(() => s.lost(e.partitionId, origin), this.deps.logger, WHAT);
      safely(() => s.event(e, origin), this.deps.logger, WHAT);
    }
  }
}
