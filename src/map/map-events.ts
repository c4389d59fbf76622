// Change events at the partition owner: every change of a listened map's entries on the member
// that owns the partition becomes one MapChangeEvent (added, updated, removed, evicted,
// expired, cleared) stamped with its partition, the owner's epoch and a per-(map, partition)
// sequence. Maps with an event journal are watched always (their owners journal every change).
// Backups, migration copies and restores change stores of partitions this member does
// not own (or change no store through a watcher): they make no event. Maps nobody listens to
// carry no watcher at all, so their hot path is untouched.

import type { WireValue } from '../protocol/codec.js';
import { decodeEventTerms, type EventTerm } from '../protocol/event-payloads.js';
import type { ReplicaData } from '../partition/partition-service.js';
import type { MapContainer, MapRegistry } from './map-registry.js';
import type { RecordStore, RemovalCause, StoreObserver, StoredValue } from './record-store.js';

export type MapEventType = 'added' | 'updated' | 'removed' | 'evicted' | 'expired' | 'cleared';

export interface MapChangeEvent {
  readonly mapName: string;
  readonly partitionId: number;
  /**
   * The ownership term the sequence belongs to: the partition table version when the owner
   * started it. A migration hands the term and its sequence to the new owner; a backup
   * promoted after its owner died starts a new term (what the dead owner had not sent is lost).
   */
  readonly epoch: number;
  /** 1, 2, 3, ... within the epoch, per map and partition. */
  readonly sequence: number;
  readonly type: MapEventType;
  /** The entry's key; undefined for 'cleared'. */
  readonly key: string | undefined;
  readonly oldValue: StoredValue | undefined;
  readonly newValue: StoredValue | undefined;
  /** Entries a 'cleared' event removed; 1 for the others. */
  readonly count: number;
}

/** Where the owner's events go (the event service), and what the source needs to stamp them. */
export interface MapEventBus {
  publish(e: MapChangeEvent): void;
  /** The partition table version now (a new epoch starts there). */
  tableVersion(): number;
  /** The sequence a new term goes on from (the event journal's last, so numbers are not used twice in a row); 0 when absent. */
  startSequence?(mapName: string, partitionId: number): number;
}

type Term = EventTerm;

/** A map with an event journal makes events whether anybody listens or not. */
function journaled(c: MapContainer): boolean {
  return c.config.eventJournal.enabled;
}

/** Watches one store: passes every change on to the store's own observer, then to the source. */
class EventWatcher implements StoreObserver {
  constructor(
    private readonly source: MapEventSource,
    private readonly mapName: string,
    private readonly pid: number,
    private readonly next: StoreObserver | undefined,
  ) {}

  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined, cause?: RemovalCause): void {
    this.next?.changed(key, before, after, cause);
    const type: MapEventType = after !== undefined ? (before === undefined ? 'added' : 'updated') : (cause ?? 'removed');
    this.source.emit(this.mapName, this.pid, type, key, before, after, 1);
  }

  cleared(count?: number): void {
    this.next?.cleared(count);
    // A clear of an empty store changed nothing.
    if (count !== undefined && count > 0) this.source.emit(this.mapName, this.pid, 'cleared', undefined, undefined, undefined, count);
  }
}

export class MapEventSource {
  private readonly listened = new Set<string>();
  /** Per map, the term of each partition this member has stamped events of. */
  private readonly terms = new Map<string, (Term | undefined)[]>();
  /** Terms handed over with a migration copy, taken when the ownership is gained. */
  private readonly handover = new Map<number, [string, Term][]>();
  private bus: MapEventBus | undefined;
  /** How this service's sequences move with a partition (registered with the partition service by member/). */
  readonly replicaData: ReplicaData;

  constructor(
    private readonly maps: MapRegistry,
    private readonly isOwner: (partitionId: number) => boolean,
  ) {
    maps.onStore = (c, pid, store) => {
      if (this.listened.has(c.mapName) || journaled(c)) this.watch(c, pid, store);
    };
    this.replicaData = this.sequencesReplicaData();
  }

  attach(bus: MapEventBus): void {
    this.bus = bus;
  }

  /** The maps that have listeners (here or on other members): their stores are watched, all others not. */
  setListened(names: ReadonlySet<string>): void {
    for (const name of [...this.listened]) {
      if (names.has(name)) continue;
      this.listened.delete(name);
      const c = this.maps.containers.get(name);
      // A map with an event journal stays watched: its owners journal every change.
      if (c !== undefined && !journaled(c)) for (const s of c.stores) s?.setWatcher(undefined);
    }
    for (const name of names) {
      if (this.listened.has(name)) continue;
      this.listened.add(name);
      const c = this.maps.container(name);
      c.stores.forEach((s, pid) => {
        if (s !== undefined) this.watch(c, pid, s);
      });
    }
  }

  isListened(mapName: string): boolean {
    return this.listened.has(mapName);
  }

  private watch(c: MapContainer, pid: number, store: RecordStore): void {
    store.setWatcher(new EventWatcher(this, c.mapName, pid, store.observer));
  }

  /** A change of a watched store: an event when this member owns the partition. */
  emit(mapName: string, pid: number, type: MapEventType, key: string | undefined, oldValue: StoredValue | undefined, newValue: StoredValue | undefined, count: number): void {
    const bus = this.bus;
    if (bus === undefined || !this.isOwner(pid)) return;
    let terms = this.terms.get(mapName);
    if (terms === undefined) this.terms.set(mapName, (terms = []));
    let t = terms[pid];
    if (t === undefined) terms[pid] = t = { epoch: bus.tableVersion(), sequence: bus.startSequence?.(mapName, pid) ?? 0 };
    t.sequence++;
    bus.publish({ mapName, partitionId: pid, epoch: t.epoch, sequence: t.sequence, type, key, oldValue, newValue, count });
  }

  /** The term of a map's partition here (tests, and the journal's position). */
  termOf(mapName: string, pid: number): { epoch: number; sequence: number } | undefined {
    const t = this.terms.get(mapName)?.[pid];
    return t === undefined ? undefined : { epoch: t.epoch, sequence: t.sequence };
  }

  private forget(pid: number): void {
    for (const terms of this.terms.values()) terms[pid] = undefined;
  }

  /**
   * A migration to the new owner carries the terms (writes are blocked while the copy is taken,
   * so they are final): the new owner goes on with the same sequences and nobody sees a gap.
   * Backups get nothing: one promoted after its owner died starts a new term.
   */
  private sequencesReplicaData(): ReplicaData {
    return {
      name: 'map-events',
      snapshot: (pid, replicaIndex) => {
        if (replicaIndex !== 0) return undefined;
        const out: WireValue[] = [];
        for (const [name, terms] of this.terms) {
          const t = terms[pid];
          if (t !== undefined) out.push(name, t.epoch, t.sequence);
        }
        return out.length === 0 ? undefined : out;
      },
      install: (pid, data) => {
        if (data === undefined) {
          this.handover.delete(pid);
          return;
        }
        this.handover.set(pid, decodeEventTerms(data, 'map event terms', 'map name'));
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
        if (handed === undefined) return;
        for (const [name, term] of handed) {
          let terms = this.terms.get(name);
          if (terms === undefined) this.terms.set(name, (terms = []));
          terms[pid] = term;
        }
      },
      trim: () => undefined,
    };
  }
}
