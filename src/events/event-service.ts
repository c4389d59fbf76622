// The cluster-wide bus of map change events. Subscribers (Hazelcast client listeners, REST
// change streams) subscribe here on any member. A local-only subscription gets the events of
// the partitions this member owns, straight from the owner-side source; a cluster-wide one
// makes this member announce its interest in the map to every member (and to members that
// join later), and the owners send their events of that map here in one batch per turn. What
// arrives is checked by the pure SequenceTracker (duplicates and late messages dropped, gaps
// reported); messages from non-members never get here (the member gate).

import { describeError, GridError } from '../core/errors.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ClusterEvent, MemberInfo } from '../cluster/types.js';
import type { MapChangeEvent, MapEventSource } from '../map/map-service.js';
import type { MemberNet } from '../net/member-net.js';
import { Msg } from '../protocol/messages.js';
import { decodeEventInterest, decodeMapEvents, encodeEventInterest, encodeMapEvents, type MapEventPayload } from '../protocol/event-payloads.js';
import { InterestTable } from './interest-table.js';
import { SequenceTracker } from './event-sequence.js';
import type { EventJournal } from './event-journal.js';

export type { MapChangeEvent, MapEventType } from '../map/map-service.js';
export type { JournalGap, JournalRead, JournalFrom, JournalPosition } from './journal-ring.js';
export { StreamCursor } from './journal-cursor.js';

/** How often a member with cluster-wide subscriptions announces its interest again (a member that missed an announcement, e.g. while joining, learns it then). */
export const INTEREST_REFRESH_MS = 5_000;
/** How long a subscription waits for the members to take its interest before it starts anyway. */
const ANNOUNCE_TIMEOUT_MS = 5_000;
/** Events to one member beyond this within one turn are dropped (that member then reports a gap): a slow member never holds the writers' memory. */
export const MAX_PENDING_EVENTS = 100_000;
/** Events per MapEvents message. */
const BATCH_EVENTS = 2_000;

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

export interface EventDeps {
  readonly net: MemberNet;
  readonly cluster: {
    localMember(): MemberInfo;
    members(): readonly MemberInfo[];
    memberByUuid(uuid: string): MemberInfo | undefined;
    on(listener: (e: ClusterEvent) => void): () => void;
  };
  readonly source: MapEventSource;
  readonly tableVersion: () => number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The journal of maps configured with one: the owner journals each event before it is delivered. */
  readonly journal?: EventJournal;
}

export class EventService implements EventFacade {
  private readonly subscribers = new Map<string, Set<MapSubscriber>>();
  /** Maps with at least one cluster-wide subscription here: what this member announces. */
  private readonly wanted = new Map<string, number>();
  private readonly interest = new InterestTable();
  private readonly tracker = new SequenceTracker();
  private version = 0;
  private readonly pending = new Map<string, MapEventPayload[]>();
  private flushScheduled = false;
  private refresh: TimerHandle | undefined;
  private unsubscribeCluster: (() => void) | undefined;
  /** Events dropped for a member whose batch was full (it reports a gap). */
  dropped = 0;
  private stopped = false;

  readonly journal: EventJournal | undefined;

  constructor(private readonly deps: EventDeps) {
    const journal = (this.journal = deps.journal);
    deps.source.attach({
      publish: (e) => this.publish(e),
      tableVersion: deps.tableVersion,
      ...(journal === undefined ? {} : { startSequence: (mapName: string, pid: number) => journal.lastSequence(mapName, pid) }),
    });
    deps.net.handle(Msg.EventInterest, (p, from) => {
      const uuid = from.peer?.uuid;
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) throw new GridError('NOT_MEMBER', 'event interest from a non-member');
      const a = decodeEventInterest(p);
      if (this.interest.apply(uuid, a.version, a.maps)) this.updateListened();
      return null;
    });
    deps.net.handleOneWay(Msg.MapEvents, (p, from) => {
      const uuid = from.peer?.uuid;
      // A removed member's late batch: its events are not delivered (the gate refuses most; this catches the rest).
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) return;
      for (const e of decodeMapEvents(p)) this.arrived(e, uuid);
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

  subscribe(s: MapSubscriber): Promise<() => void> {
    let set = this.subscribers.get(s.mapName);
    if (set === undefined) this.subscribers.set(s.mapName, (set = new Set()));
    set.add(s);
    let announced: Promise<void> = Promise.resolve();
    if (!s.localOnly) {
      const n = this.wanted.get(s.mapName) ?? 0;
      this.wanted.set(s.mapName, n + 1);
      if (n === 0) announced = this.announce();
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
          void this.announce();
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
    for (const m of this.interest.maps()) names.add(m);
    this.deps.source.setListened(names);
  }

  private others(): MemberInfo[] {
    const me = this.deps.cluster.localMember().uuid;
    return this.deps.cluster.members().filter((m) => m.uuid !== me);
  }

  /** Tell every other member the maps wanted here now; resolves when they answered (or the timeout passed). */
  private announce(): Promise<void> {
    this.version = Math.max(this.version + 1, this.deps.clock.now());
    return Promise.all(this.others().map((m) => this.announceTo(m))).then(() => undefined);
  }

  private announceTo(m: MemberInfo): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const payload = encodeEventInterest({ version: this.version, maps: [...this.wanted.keys()] });
    return this.deps.net.request(m.address, Msg.EventInterest, payload, ANNOUNCE_TIMEOUT_MS).then(
      () => undefined,
      // The periodic refresh tries again.
      (e: unknown) => this.deps.logger.debug({ member: m.address, err: describeError(e) }, 'event interest not delivered'),
    );
  }

  /** An event made here, at the partition's owner. */
  private publish(e: MapChangeEvent): void {
    // Journaled (and on its way to the backups) before any subscriber sees it.
    this.journal?.append(e);
    const me = this.deps.cluster.localMember().uuid;
    this.deliver(e, me, true);
    for (const uuid of this.interest.membersFor(e.mapName)) {
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
      for (let i = 0; i < events.length; i += BATCH_EVENTS) {
        this.deps.net.oneWay(m.address, Msg.MapEvents, encodeMapEvents(events.slice(i, i + BATCH_EVENTS)));
      }
    }
    this.pending.clear();
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
        if (local) safely(() => s.event(e, origin), this.deps.logger);
        continue;
      }
      // Cluster-wide subscriptions share one tracker: local and remote events of a partition
      // form one sequence across owners (a migration hands it over).
      verdict ??= this.tracker.admit(e.mapName, e.partitionId, e.epoch, e.sequence);
      if (verdict === 'duplicate' || verdict === 'stale') continue;
      if (verdict === 'gap' || verdict === 'newTerm') safely(() => s.lost(e.partitionId, origin), this.deps.logger);
      safely(() => s.event(e, origin), this.deps.logger);
    }
  }
}

/** A subscriber's failure is its own: the owner's write and the other subscribers go on. */
function safely(fn: () => void, logger: Logger): void {
  try {
    fn();
  } catch (e) {
    logger.warn({ err: describeError(e) }, 'a change-event subscriber failed');
  }
}
