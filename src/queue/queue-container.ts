// One queue: FIFO items, a bound, and the polls waiting for an item, served first come first
// served. Pure: no timers, no sockets. A waiter says at hand-over time whether its client is
// still there; if not, the item goes to the next waiter or stays in the queue.

export interface QueueItem {
  /** Item bytes as a latin1 string. */
  readonly value: string;
  readonly contentType: string | undefined;
}

export interface PollWaiter {
  /** Take the item; return false if the poller is gone (the item is then not consumed). */
  deliver(item: QueueItem): boolean;
}

interface WaiterSlot {
  waiter: PollWaiter;
  active: boolean;
}

export interface WaiterHandle {
  /** Stop waiting; harmless after the waiter was served. */
  cancel(): void;
}

export class QueueContainer {
  private items: QueueItem[] = [];
  private head = 0;
  private waiters: WaiterSlot[] = [];
  private waiterHead = 0;
  /** Cancelled slots still in `waiters` behind the head. */
  private cancelledSlots = 0;
  /** Active waiters, kept as a count so `waiting` costs nothing per offer and poll. */
  private activeWaiters = 0;

  /** `maxSize` 0 = unbounded. */
  constructor(readonly maxSize: number) {}

  get size(): number {
    return this.items.length - this.head;
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
    if (this.handToWaiter(item)) return true;
    if (this.isFull()) return false;
    this.items.push(item);
    return true;
  }

  /** Give the item to the oldest waiter still there; false when none took it. */
  private handToWaiter(item: QueueItem): boolean {
    while (this.waiterHead < this.waiters.length) {
      const slot = this.waiters[this.waiterHead++]!;
      if (!slot.active) continue;
      slot.active = false;
      this.activeWaiters--;
      if (slot.waiter.deliver(item)) {
        this.compactWaiters();
        return true;
      }
    }
    this.compactWaiters();
    return false;
  }

  /** Put an item back at the head (it was taken for a poller that has gone), or hand it to the oldest live waiter. */
  offerFirst(item: QueueItem): void {
    if (this.handToWaiter(item)) return;
    if (this.head > 0) this.items[--this.head] = item;
    else this.items.unshift(item);
  }

  /** Append without the max-size check or waiters: a backup copying what its owner did. */
  append(item: QueueItem): void {
    this.items.push(item);
  }

  poll(): QueueItem | undefined {
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
    return item;
  }

  peek(): QueueItem | undefined {
    return this.items[this.head];
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

  /** Every item in order, for replication (later) and tests. */
  snapshot(): readonly QueueItem[] {
    return this.items.slice(this.head);
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
