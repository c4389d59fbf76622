// One queue: FIFO items, a bound, the polls waiting for an item (served first come first
// served), and the items reserved by polls whose answer is not known to be written yet. Pure:
// no timers, no sockets. A waiter says at hand-over time whether its client is still there; if
// not, the item goes to the next waiter or stays in the queue.
//
// A reserved item is out of the queue (not in `size`, not peekable, not counted against
// max-size) until its holder confirms it (the item is gone) or it is released: it then goes
// back to the head of the queue, ordered by the position it had when it was first taken
// among the other returned items, or straight to the oldest live waiter.

export interface QueueItem {
  /** Item bytes as a latin1 string. */
  readonly value: string;
  readonly contentType: string | undefined;
}

/** Who holds a reservation: the member serving the poll's client, and its id for that poll. */
export interface Holder {
  readonly member: string;
  readonly id: number;
}

export interface Reservation {
  readonly holder: Holder;
  readonly item: QueueItem;
  /** Take order: where the item stood when it was first taken, for putting it back in order. */
  readonly order: number;
}

export interface PollWaiter {
  /** Take the item; return false if the poller is gone (the item is then not consumed). */
  deliver(item: QueueItem): boolean;
  /** The reservation to take for this poll; undefined = the item is simply consumed. */
  readonly holder?: Holder;
}

interface WaiterSlot {
  waiter: PollWaiter;
  active: boolean;
}

export interface WaiterHandle {
  /** Stop waiting; harmless after the waiter was served. */
  cancel(): void;
}

/** What an offer did: stored the item, refused it (full), gave it to a waiter without a holder, or reserved it for one. */
export type OfferOutcome = 'stored' | 'full' | 'handed' | Reservation;

/** Where a released item went: back to the queue (`to` undefined) or to a waiting poll's new reservation. */
export interface Released {
  readonly from: Reservation;
  readonly to: Reservation | undefined;
}

/** Everything a replica needs, in order; see `QueueContainer.state` / `restore`. */
export interface ContainerState {
  /** Items that were taken and came back, before `items`, each with its take order. */
  readonly returned: readonly { readonly item: QueueItem; readonly order: number }[];
  readonly items: readonly QueueItem[];
  /** Outstanding reservations, by take order. */
  readonly reservations: readonly Reservation[];
  readonly nextOrder: number;
}

/** Java's Integer.MAX_VALUE: what Hazelcast counts an unbounded queue's capacity as. */
const JAVA_INT_MAX = 2 ** 31 - 1;

/** Two items are the same when their bytes and content types are (Hazelcast compares serialized forms). */
export function sameItem(a: QueueItem, b: QueueItem): boolean {
  return a.value === b.value && a.contentType === b.contentType;
}

function byOrder(a: { order: number }, b: { order: number }): number {
  return a.order - b.order;
}

export class QueueContainer {
  private items: QueueItem[] = [];
  private head = 0;
  /** Items put back after a reservation was released, sorted by take order; polled before `items`. */
  private returned: { item: QueueItem; order: number }[] = [];
  /** Reservations by holder member, then poll id. */
  private readonly held = new Map<string, Map<number, Reservation>>();
  private heldCount = 0;
  /** Take order of the next item taken from `items`. */
  private nextOrder = 0;
  private waiters: WaiterSlot[] = [];
  private waiterHead = 0;
  /** Cancelled slots still in `waiters` behind the head. */
  private cancelledSlots = 0;
  /** Active waiters, kept as a count so `waiting` costs nothing per offer and poll. */
  private activeWaiters = 0;

  /** `maxSize` 0 = unbounded. */
  constructor(readonly maxSize: number) {}

  /** Items in the queue, reserved ones not counted. */
  get size(): number {
    return this.returned.length + this.items.length - this.head;
  }

  /** Items taken by polls and not yet confirmed. */
  get reserved(): number {
    return this.heldCount;
  }

  /** Waiting polls still active. */
  get waiting(): number {
    return this.activeWaiters;
  }

  isFull(): boolean {
    return this.maxSize > 0 && this.size >= this.maxSize;
  }

  /** Add an item, or hand it to the oldest live waiter. False when the queue is full. */
  offer(item: QueueItem): boolean {
    return this.offerItem(item) !== 'full';
  }

  /** `offer`, saying what happened (the owner replicates a hand-off as a reservation). */
  offerItem(item: QueueItem): OfferOutcome {
    const handed = this.handToWaiter(item, undefined);
    if (handed !== undefined) return handed;
    if (this.isFull()) return 'full';
    this.items.push(item);
    return 'stored';
  }

  /** Give the item to the oldest waiter still there; undefined when none took it. */
  private handToWaiter(item: QueueItem, order: number | undefined): Reservation | 'handed' | undefined {
    while (this.waiterHead < this.waiters.length) {
      const slot = this.waiters[this.waiterHead++]!;
      if (!slot.active) continue;
      slot.active = false;
      this.activeWaiters--;
      if (slot.waiter.deliver(item)) {
        this.compactWaiters();
        const holder = slot.waiter.holder;
        return holder === undefined ? 'handed' : this.hold(holder, item, order ?? this.nextOrder++);
      }
    }
    this.compactWaiters();
    return undefined;
  }

  /** Append without the max-size check or waiters: a backup copying what its owner did. */
  append(item: QueueItem): void {
    this.items.push(item);
  }

  /** Take the head item for good (no reservation). */
  poll(): QueueItem | undefined {
    return this.next()?.item;
  }

  /**
   * Take the head item reserved for `holder`. A holder that already has a reservation gets
   * the same one back (the poll was sent again), nothing new is taken.
   */
  take(holder: Holder): Reservation | undefined {
    const had = this.reservation(holder);
    if (had !== undefined) return had;
    const n = this.next();
    return n === undefined ? undefined : this.hold(holder, n.item, n.order ?? this.nextOrder++);
  }

  /** A backup replaying its owner's `take`: the head item, with the owner's take order. */
  takeAs(holder: Holder, order: number): Reservation | undefined {
    if (this.reservation(holder) !== undefined) return undefined;
    const n = this.next();
    return n === undefined ? undefined : this.hold(holder, n.item, order);
  }

  /** A backup replaying its owner's hand-off of an offered item to a waiting poll. */
  holdOffered(holder: Holder, item: QueueItem, order: number): void {
    if (this.reservation(holder) === undefined) this.hold(holder, item, order);
  }

  reservation(holder: Holder): Reservation | undefined {
    return this.held.get(holder.member)?.get(holder.id);
  }

  /** Members holding reservations here. */
  holders(): string[] {
    return [...this.held.keys()];
  }

  /** The answer was written: the item is gone for good. Undefined when there was no such reservation (already returned). */
  confirm(holder: Holder): Reservation | undefined {
    return this.unhold(holder);
  }

  /**
   * The answer was not written (its client or its member went): the item goes back to the
   * head, in take order among returned items, or to the oldest live waiter (a new reservation
   * if that waiter has a holder). Undefined when there was no such reservation.
   */
  release(holder: Holder): Released | undefined {
    const r = this.unhold(holder);
    if (r === undefined) return undefined;
    const handed = this.handToWaiter(r.item, r.order);
    if (handed !== undefined) return { from: r, to: handed === 'handed' ? undefined : handed };
    this.putBack(r.item, r.order);
    return { from: r, to: undefined };
  }

  /** `release` for every reservation of `member`, oldest take first. */
  releaseMember(member: string): Released[] {
    const mine = this.held.get(member);
    if (mine === undefined) return [];
    const out: Released[] = [];
    for (const r of [...mine.values()].sort(byOrder)) out.push(this.release(r.holder)!);
    return out;
  }

  /** A backup replaying its owner's release: back to the queue, or over to `to` (same item, same order). */
  releaseAs(holder: Holder, to: Holder | undefined): void {
    const r = this.unhold(holder);
    if (r === undefined) return;
    if (to === undefined) this.putBack(r.item, r.order);
    else if (this.reservation(to) === undefined) this.hold(to, r.item, r.order);
  }

  private hold(holder: Holder, item: QueueItem, order: number): Reservation {
    let mine = this.held.get(holder.member);
    if (mine === undefined) {
      mine = new Map();
      this.held.set(holder.member, mine);
    }
    const r: Reservation = { holder, item, order };
    mine.set(holder.id, r);
    this.heldCount++;
    if (order >= this.nextOrder) this.nextOrder = order + 1;
    return r;
  }

  private unhold(holder: Holder): Reservation | undefined {
    const mine = this.held.get(holder.member);
    const r = mine?.get(holder.id);
    if (r === undefined) return undefined;
    mine!.delete(holder.id);
    if (mine!.size === 0) this.held.delete(holder.member);
    this.heldCount--;
    return r;
  }

  /** Into `returned` at its take order (usually at the end: releases come mostly in take order). */
  private putBack(item: QueueItem, order: number): void {
    let at = this.returned.length;
    while (at > 0 && this.returned[at - 1]!.order > order) at--;
    this.returned.splice(at, 0, { item, order });
  }

  /** The head item: returned items first (with their take order), then the stored ones. */
  private next(): { item: QueueItem; order: number | undefined } | undefined {
    const r = this.returned.shift();
    if (r !== undefined) return r;
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    (this.items as (QueueItem | undefined)[])[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return { item, order: undefined };
  }

  peek(): QueueItem | undefined {
    return this.returned[0]?.item ?? this.items[this.head];
  }

  /** Room left under max-size (Hazelcast's remainingCapacity: an unbounded queue counts as Integer.MAX_VALUE). */
  remainingCapacity(): number {
    return (this.maxSize > 0 ? this.maxSize : JAVA_INT_MAX) - this.size;
  }

  /**
   * Take up to `max` head items for a drain, reserved for `member` under the poll ids
   * `firstId`, `firstId + 1`, ... (one id per item, so each is confirmed or released like a
   * poll's). A drain sent again (its first id already holds a reservation) gets the same items.
   */
  drain(member: string, firstId: number, max: number): Reservation[] {
    const out: Reservation[] = [];
    for (let r = this.reservation({ member, id: firstId }); r !== undefined; r = this.reservation({ member, id: firstId + out.length })) out.push(r);
    if (out.length > 0) return out;
    while (out.length < max) {
      const r = this.take({ member, id: firstId + out.length });
      if (r === undefined) break;
      out.push(r);
    }
    return out;
  }

  /** A backup replaying its owner's drain: the head items, with the owner's take orders. */
  drainAs(member: string, firstId: number, orders: readonly number[]): void {
    for (const [i, order] of orders.entries()) this.takeAs({ member, id: firstId + i }, order);
  }

  /** Remove every item in the queue (reserved ones stay reserved); returns them in queue order. */
  clear(): QueueItem[] {
    const out = this.snapshot() as QueueItem[];
    this.returned = [];
    this.items = [];
    this.head = 0;
    return out;
  }

  /** Remove the first item `matches` accepts (reserved ones are not in the queue); undefined when none. */
  removeFirst(matches: (item: QueueItem) => boolean): QueueItem | undefined {
    const ri = this.returned.findIndex((r) => matches(r.item));
    if (ri >= 0) return this.returned.splice(ri, 1)[0]!.item;
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (!matches(item)) continue;
      this.items.splice(i, 1);
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return item;
    }
    return undefined;
  }

  /** Whether some item in the queue (not a reserved one) is one `matches` accepts. */
  contains(matches: (item: QueueItem) => boolean): boolean {
    if (this.returned.some((r) => matches(r.item))) return true;
    for (let i = this.head; i < this.items.length; i++) if (matches(this.items[i]!)) return true;
    return false;
  }

  /** Queue a poll that waits for the next item. Only call when the queue is empty. */
  addWaiter(waiter: PollWaiter): WaiterHandle {
    const slot: WaiterSlot = { waiter, active: true };
    this.waiters.push(slot);
    this.activeWaiters++;
    return {
      cancel: () => {
        if (!slot.active) return;
        slot.active = false;
        this.activeWaiters--;
        this.cancelledSlots++;
        this.compactWaiters();
      },
    };
  }

  /** Every item in the queue in order (reserved ones not included). */
  snapshot(): readonly QueueItem[] {
    return [...this.returned.map((r) => r.item), ...this.items.slice(this.head)];
  }

  /** Items, returned items and reservations, for copying the queue to another replica. */
  state(): ContainerState {
    const reservations: Reservation[] = [];
    for (const mine of this.held.values()) reservations.push(...mine.values());
    reservations.sort(byOrder);
    return { returned: this.returned.map((r) => ({ item: r.item, order: r.order })), items: this.items.slice(this.head), reservations, nextOrder: this.nextOrder };
  }

  /** Replace the content with a copied state (a replica installing its partition). Waiters are kept. */
  restore(s: ContainerState): void {
    this.returned = s.returned.map((r) => ({ item: r.item, order: r.order })).sort(byOrder);
    this.items = [...s.items];
    this.head = 0;
    this.held.clear();
    this.heldCount = 0;
    this.nextOrder = s.nextOrder;
    for (const r of s.reservations) this.hold(r.holder, r.item, r.order);
    for (const r of this.returned) if (r.order >= this.nextOrder) this.nextOrder = r.order + 1;
  }

  /** Drop all waiters (member shutdown); returns them so the caller can answer them. */
  drainWaiters(): PollWaiter[] {
    const out: PollWaiter[] = [];
    for (let i = this.waiterHead; i < this.waiters.length; i++) {
      const s = this.waiters[i]!;
      if (s.active) {
        s.active = false;
        this.activeWaiters--;
        out.push(s.waiter);
      }
    }
    this.waiters = [];
    this.waiterHead = 0;
    this.cancelledSlots = 0;
    return out;
  }

  private compactWaiters(): void {
    while (this.waiterHead < this.waiters.length && !this.waiters[this.waiterHead]!.active) this.waiterHead++;
    if (this.waiterHead === this.waiters.length) {
      this.waiters = [];
      this.waiterHead = 0;
      this.cancelledSlots = 0;
    } else if (this.cancelledSlots >= 64 && this.cancelledSlots * 2 >= this.waiters.length) {
      // Many polls gave up behind a live one: drop their slots.
      this.waiters = this.waiters.slice(this.waiterHead).filter((s) => s.active);
      this.waiterHead = 0;
      this.cancelledSlots = 0;
    } else if (this.waiterHead >= 64 && this.waiterHead * 2 >= this.waiters.length) {
      this.waiters = this.waiters.slice(this.waiterHead);
      this.waiterHead = 0;
    }
  }
}
