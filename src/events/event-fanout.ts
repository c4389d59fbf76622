// The member-to-member half of a change-event bus, shared by the map bus (event-service.ts)
// and the queue bus (queue-event-service.ts): this member announces the names it wants events
// of to every member (again to members that join, and every INTEREST_REFRESH_MS); it keeps
// the other members' announcements (InterestTable); at an owner, an event for interested
// members goes into one batch per member and turn (bounded: beyond MAX_PENDING_EVENTS it is
// dropped and that member reports a gap); batches that arrive from a removed member are not
// delivered. What the buses differ in (which names they announce, who receives an event that
// arrives, the message types and payloads) is the spec's.

import { describeError, GridError } from '../core/errors.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ClusterEvent, MemberInfo } from '../cluster/types.js';
import type { MemberNet } from '../net/member-net.js';
import type { WireValue } from '../protocol/codec.js';
import { decodeEventInterest, encodeEventInterest } from '../protocol/event-payloads.js';
import { InterestTable } from './interest-table.js';

/** How often a member with cluster-wide subscriptions announces its interest again (a member that missed an announcement, e.g. while joining, learns it then). */
export const INTEREST_REFRESH_MS = 5_000;
/** How long a subscription waits for the members to take its interest before it starts anyway. */
const ANNOUNCE_TIMEOUT_MS = 5_000;
/** Events to one member beyond this within one turn are dropped (that member then reports a gap): a slow member never holds the writers' memory. */
export const MAX_PENDING_EVENTS = 100_000;
/** Events per events message. */
const BATCH_EVENTS = 2_000;

export interface FanoutDeps {
  readonly net: MemberNet;
  readonly cluster: {
    localMember(): MemberInfo;
    members(): readonly MemberInfo[];
    memberByUuid(uuid: string): MemberInfo | undefined;
    on(listener: (e: ClusterEvent) => void): () => void;
  };
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface FanoutSpec<E> {
  /** In logs and errors: 'event', 'queue event'. */
  readonly what: string;
  readonly interestMsg: number;
  readonly eventsMsg: number;
  encode(events: readonly E[]): WireValue;
  decode(payload: WireValue): readonly E[];
  /** The structure an event belongs to (what interest is announced for). */
  nameOf(e: E): string;
  /** The names this member wants events of now (what it announces). */
  wanted(): string[];
  /** The other members' interest changed (the bus recomputes which structures make events). */
  interestChanged(): void;
  /** An event another member's owner sent here. */
  arrived(e: E, origin: string): void;
}

export class EventFanout<E> {
  readonly interest = new InterestTable();
  private version = 0;
  private readonly pending = new Map<string, E[]>();
  private flushScheduled = false;
  private refresh: TimerHandle | undefined;
  private unsubscribeCluster: (() => void) | undefined;
  /** Events dropped for a member whose batch was full (it reports a gap). */
  dropped = 0;
  private stopped = false;

  constructor(
    private readonly deps: FanoutDeps,
    private readonly spec: FanoutSpec<E>,
  ) {
    deps.net.handle(spec.interestMsg, (p, from) => {
      const uuid = from.peer?.uuid;
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) throw new GridError('NOT_MEMBER', `${spec.what} interest from a non-member`);
      const a = decodeEventInterest(p);
      if (this.interest.apply(uuid, a.version, a.maps)) spec.interestChanged();
      return null;
    });
    deps.net.handleOneWay(spec.eventsMsg, (p, from) => {
      const uuid = from.peer?.uuid;
      // A removed member's late batch: its events are not delivered (the gate refuses most; this catches the rest).
      if (uuid === undefined || deps.cluster.memberByUuid(uuid) === undefined) return;
      for (const e of spec.decode(p)) spec.arrived(e, uuid);
    });
  }

  start(): void {
    this.unsubscribeCluster = this.deps.cluster.on((e) => {
      if (e.type !== 'membersChanged') return;
      let changed = false;
      for (const m of e.removed) changed = this.interest.remove(m.uuid) || changed;
      for (const m of e.removed) this.pending.delete(m.uuid);
      if (changed) this.spec.interestChanged();
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
  }

  /** Tell every other member the names wanted here now; resolves when they answered (or the timeout passed). */
  announce(): Promise<void> {
    this.version = Math.max(this.version + 1, this.deps.clock.now());
    return Promise.all(this.others().map((m) => this.announceTo(m))).then(() => undefined);
  }

  /** An event made here, at the owner: batched to every other member interested in its structure. */
  send(e: E, me: string): void {
    for (const uuid of this.interest.membersFor(this.spec.nameOf(e))) {
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

  private others(): MemberInfo[] {
    const me = this.deps.cluster.localMember().uuid;
    return this.deps.cluster.members().filter((m) => m.uuid !== me);
  }

  private announceTo(m: MemberInfo): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const payload = encodeEventInterest({ version: this.version, maps: this.spec.wanted() });
    return this.deps.net.request(m.address, this.spec.interestMsg, payload, ANNOUNCE_TIMEOUT_MS).then(
      () => undefined,
      // The periodic refresh tries again.
      (e: unknown) => this.deps.logger.debug({ member: m.address, err: describeError(e) }, `${this.spec.what} interest not delivered`),
    );
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const [uuid, events] of this.pending) {
      const m = this.deps.cluster.memberByUuid(uuid);
      if (m === undefined || this.stopped) continue;
      for (let i = 0; i < events.length; i += BATCH_EVENTS) {
        this.deps.net.oneWay(m.address, this.spec.eventsMsg, this.spec.encode(events.slice(i, i + BATCH_EVENTS)));
      }
    }
    this.pending.clear();
  }
}

/** A subscriber's failure is its own: the owner's write and the other subscribers go on. */
export function safely(fn: () => void, logger: Logger, what: string): void {
  try {
    fn();
  } catch (e) {
    logger.warn({ err: describeError(e) }, `a ${what} subscriber failed`);
  }
}
