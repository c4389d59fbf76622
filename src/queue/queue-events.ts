// Change events of queues at the queue's owner: an item went in (`added`: an offer, an addAll,
// a split-brain merge), an item is gone for good (`removed`: a poll's or a drain's reservation
// confirmed once its answer was written, or a remove of that item) or the queue was cleared
// (`cleared`, with the number of items). Names follow Hazelcast's ItemListener (ADDED, REMOVED).
// An item taken by a poll whose answer is never written goes back to the queue and makes no
// event, so each `removed` is an item really consumed. Each event is stamped with the queue's
// partition, the owner's epoch and a per-queue sequence; backups, migration copies and restores
// make none. Queues nobody listens to cost one Set lookup per change.

import type { WireValue } from '../protocol/codec.js';
import { decodeEventTerms, type EventTerm } from '../protocol/event-payloads.js';
import type { ReplicaData } from '../partition/partition-service.js';
import type { QueueItem } from './queue-container.js';

export type QueueEventType = 'added' | 'removed' | 'cleared';

export interface QueueChangeEvent {
  readonly queueName: string;
  readonly partitionId: number;
  /** The ownership term (partition table version when the owner started it); a migration hands it on, a promoted backup starts a new one. */
  readonly epoch: number;
  /** 1, 2, 3, ... within the epoch, per queue. */
  readonly sequence: number;
  readonly type: QueueEventType;
  /** The item; undefined for 'cleared'. */
  readonly item: QueueItem | undefined;
  /** Items a 'cleared' event removed; 1 for the others. */
  readonly count: number;
}

/** Where the owner's queue events go (the queue event bus), and what the source needs to stamp them. */
export interface QueueEventBus {
  publish(e: QueueChangeEvent): void;
  /** The partition table version now (a new epoch starts there). */
  tableVersion(): number;
}

type Term = EventTerm;

export class QueueEventSource {
  private readonly listened = new Set<string>();
  /** Per queue, the term this member stamps its events with while it owns the queue. */
  private readonly terms = new Map<string, Term>();
  /** Terms handed over with a migration copy (per partition), taken when the ownership is gained. */
  private readonly handover = new Map<number, [string, Term][]>();
  private bus: QueueEventBus | undefined;
  readonly replicaData: ReplicaData;

  constructor(
    private readonly isOwner: (partitionId: number) => boolean,
    private readonly partitionOf: (queueName: string) => number,
  ) {
    this.replicaData = this.termsReplicaData();
  }

  attach(bus: QueueEventBus): void {
    this.bus = bus;
  }

  /** The queues that have listeners here or on other members: only their changes make events. */
  setListened(names: ReadonlySet<string>): void {
    this.listened.clear();
    for (const n of names) this.listened.add(n);
  }

  /** Whether a change of this queue makes an event (the operations ask before building one). */
  wants(queueName: string): boolean {
    return this.listened.size > 0 && this.listened.has(queueName);
  }

  added(queueName: string, pid: number, item: QueueItem): void {
    if (this.wants(queueName)) this.emit(queueName, pid, 'added', item, 1);
  }

  removed(queueName: string, pid: number, item: QueueItem): void {
    if (this.wants(queueName)) this.emit(queueName, pid, 'removed', item, 1);
  }

  cleared(queueName: string, pid: number, count: number): void {
    if (count > 0 && this.wants(queueName)) this.emit(queueName, pid, 'cleared', undefined, count);
  }

  private emit(queueName: string, pid: number, type: QueueEventType, item: QueueItem | undefined, count: number): void {
    const bus = this.bus;
    if (bus === undefined || !this.isOwner(pid)) return;
    let t = this.terms.get(queueName);
    if (t === undefined) this.terms.set(queueName, (t = { epoch: bus.tableVersion(), sequence: 0 }));
    t.sequence++;
    bus.publish({ queueName, partitionId: pid, epoch: t.epoch, sequence: t.sequence, type, item, count });
  }

  /** The term of a queue here (tests). */
  termOf(queueName: string): { epoch: number; sequence: number } | undefined {
    const t = this.terms.get(queueName);
    return t === undefined ? undefined : { ...t };
  }

  private forget(pid: number): void {
    for (const name of [...this.terms.keys()]) if (this.partitionOf(name) === pid) this.terms.delete(name);
  }

  /**
   * A migration carries the terms to the new owner (writes are blocked while the copy is
   * taken), so its subscribers see no hole; a backup promoted after its owner died starts a
   * new term (its subscribers are told events may have been lost), as map events do.
   */
  private termsReplicaData(): ReplicaData {
    return {
      name: 'queue-events',
      snapshot: (pid, replicaIndex) => {
        if (replicaIndex !== 0) return undefined;
        const out: WireValue[] = [];
        for (const [name, t] of this.terms) if (this.partitionOf(name) === pid) out.push(name, t.epoch, t.sequence);
        return out.length === 0 ? undefined : out;
      },
      install: (pid, data) => {
        if (data === undefined) {
          this.handover.delete(pid);
          return;
        }
        this.handover.set(pid, decodeEventTerms(data, 'queue event terms', 'queue name'));
      },
      drop: (pid) => {
        this.handover.delete(pid);
        this.forget(pid);
      },
      ownershipLost: (pid) => this.forget(pid),
      ownershipGained: (pid) => {
        this.forget(pid);
        const handed = this.handover.get(pid);
        this.handover.delete(pid);
        for (const [name, term] of handed ?? []) this.terms.set(name, term);
      },
      trim: () => undefined,
    };
  }
}
