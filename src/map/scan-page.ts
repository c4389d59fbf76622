// One page of a map scan inside one partition, as pure logic over a walkable store: the
// `limit` smallest keys greater than the cursor's key (and with the prefix) in code-unit order.
//
// Why a sorted order and not the store's own: the store's record order (append order, changed
// by compaction) and its hash index (seeded per process) differ between members and over time,
// so a position in either would not survive a migration. Key order is the same on every copy
// of the partition, so "after key k" is a position that any owner can continue from: a key
// that exists for the whole scan is either <= k (returned by an earlier page) or > k (returned
// by a later one). No sorted index is kept (no cost on writes): each page walks the partition
// once, comparing record keys as bytes (no string made) and keeping the best `limit` in a
// bounded max-heap, so a page costs O(n + limit log limit) time and O(limit) memory.
//
// The walk may span event-loop turns (ScanWalk.step with a budget): records do not move when
// others are added or removed, only a compaction moves them (the slab's layoutVersion), and
// then the walk starts over keeping its candidates (keys, not handles). A key that is live for
// the whole walk is visited at least once, and a key that was overwritten may be visited twice
// (its old and its new record): the heap keeps each key once.

/** The store as a scan walks it: handles of records in slab order. */
export interface ScanSource {
  /** Changes whenever handles become void (compaction, clear). */
  readonly layoutVersion: number;
  first(): number;
  next(h: number): number;
  compareKeyAt(h: number, key: string): number;
  keyStartsWith(h: number, prefix: string): boolean;
  key(h: number): string;
}

/** The best `limit` keys offered: the smallest ones, each once. */
export class PageSelector {
  /** Max-heap by key. */
  private readonly heap: string[] = [];
  private readonly members = new Set<string>();

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`PageSelector: limit ${limit}`);
  }

  get size(): number {
    return this.heap.length;
  }

  get full(): boolean {
    return this.heap.length >= this.limit;
  }

  /** The largest key kept (undefined: none). */
  get max(): string | undefined {
    return this.heap[0];
  }

  /** Keep `key` if it is among the best `limit` so far. */
  offer(key: string): void {
    const heap = this.heap;
    if (this.members.has(key)) return;
    if (heap.length < this.limit) {
      this.members.add(key);
      heap.push(key);
      this.up(heap.length - 1);
      return;
    }
    if (key >= heap[0]!) return;
    this.members.delete(heap[0]!);
    this.members.add(key);
    heap[0] = key;
    this.down(0);
  }

  /** The keys kept, ascending. */
  sorted(): string[] {
    return [...this.heap].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private up(i: number): void {
    const heap = this.heap;
    const k = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p]! >= k) break;
      heap[i] = heap[p]!;
      i = p;
    }
    heap[i] = k;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const k = heap[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap[c + 1]! > heap[c]!) c++;
      if (heap[c]! <= k) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = k;
  }
}

/** A step asks whether its time is up every this many records (a power of two). */
export const CHECK_EVERY = 1024;

/** After how many restarts (compactions under the walk) the walk finishes in one turn instead. */
export const MAX_RESTARTS = 3;

/**
 * A walk over one store that selects a page: call step() until it returns true, then read
 * `selector`. `live(h)` says whether a record counts (not expired).
 */
export class ScanWalk {
  readonly selector: PageSelector;
  private started = false;
  private layout = 0;
  /** Records visited (tests, metrics). */
  visited = 0;
  restarts = 0;

  constructor(
    private readonly source: ScanSource,
    limit: number,
    private readonly after: string | undefined,
    private readonly prefix: string | undefined,
    private readonly live: (h: number) => boolean,
  ) {
    this.selector = new PageSelector(limit);
  }

  /**
   * Visit up to `budget` records (Infinity: all), and stop early once `outOfTime()` says so
   * (asked every CHECK_EVERY records: code not yet optimized, or a slow machine, takes longer
   * per record than the budget assumes); true when the walk is complete.
   */
  step(budget: number, outOfTime?: () => boolean): boolean {
    const s = this.source;
    if (!(budget >= 1)) budget = 1;
    if (this.started && s.layoutVersion !== this.layout) {
      // Handles moved: start over, keeping the candidates. Past MAX_RESTARTS, finish in one go.
      this.restarts++;
      this.started = false;
      if (this.restarts > MAX_RESTARTS) {
        budget = Infinity;
        outOfTime = undefined;
      }
    }
    let h: number;
    if (!this.started) {
      this.started = true;
      this.layout = s.layoutVersion;
      h = s.first();
    } else {
      // next() of the last visited record, even if it died since: dead records keep their place.
      if (this.last < 0) return true;
      h = s.next(this.last);
    }
    const sel = this.selector;
    const after = this.after;
    const prefix = this.prefix;
    let n = 0;
    let last = -1;
    for (; h >= 0; last = h, h = s.next(h)) {
      if (n >= budget || ((n & (CHECK_EVERY - 1)) === 0 && n > 0 && outOfTime !== undefined && outOfTime())) {
        this.visited += n;
        this.last = last;
        return false;
      }
      n++;
      if (after !== undefined && s.compareKeyAt(h, after) <= 0) continue;
      if (prefix !== undefined && !s.keyStartsWith(h, prefix)) continue;
      // A full page takes only keys below its largest: most records are refused without a string.
      if (sel.full && s.compareKeyAt(h, sel.max!) >= 0) continue;
      if (!this.live(h)) continue;
      sel.offer(s.key(h));
    }
    this.visited += n;
    this.last = -1;
    return true;
  }

  /** The last record visited by an unfinished walk (-1: none yet, or finished). */
  private last = -1;
}
