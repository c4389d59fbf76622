// A change stream of a map with an event journal (docs/data-api.md#resume): every event's id is
// the stream's whole position (StreamCursor), so a client that reconnects with Last-Event-ID gets,
// partition by partition, what the owners' journals hold after that position, then the live
// events, without a gap or a duplicate. While a partition is replayed its live events wait (in a
// bounded buffer) and are let through after it, skipping what the replay delivered. A partition
// whose journal no longer holds the next event (overwritten, expired, lost) is named in an
// `event: reset` and followed live from there. The same replay fills a hole the live stream
// reports (an owner died before sending events its backup had journaled).

import { describeError } from '../core/errors.js';
import { StreamCursor, type EventFacade, type JournalFrom, type JournalGap, type MapChangeEvent } from '../events/event-service.js';

/** Live events a stream may hold back while partitions are replayed; beyond it the stream is cut. */
export const MAX_HELD_EVENTS = 100_000;
/** Partitions replayed at once. */
const REPLAY_CONCURRENCY = 8;
/** Unsent bytes above which a replay waits for the socket to drain (well under the stream's cut-off). */
const REPLAY_HIGH_WATER_BYTES = 256 * 1024;

const GAP_REASONS: Record<JournalGap | 'unreadable' | 'foreign', string> = {
  overwritten: "the map's event journal no longer holds the next events of these partitions (overwritten: more events than its capacity since)",
  expired: "the map's event journal no longer holds the next events of these partitions (older than its time-to-live)",
  lost: "the map's event journal of these partitions does not hold the next events (their owner and backups were lost, or an owner died before passing on events this client saw)",
  unreadable: "the map's event journal of these partitions could not be read",
  foreign: "Last-Event-ID is not a position of this map's journaled stream (an id of a stream without a journal, or damaged)",
};

/** What the feed needs of its stream. */
export interface FeedOutput {
  /** One event with its id (already counted as delivered). */
  event(e: MapChangeEvent, id: string): void;
  /** A frame of its own (reset). */
  raw(text: string): void;
  /** Ends the stream with a reason. */
  cut(reason: string): void;
  /** Resolves once the unsent bytes are below `bytes` (or the stream ended). */
  drained(bytes: number): Promise<void>;
  /** Whether the stream has ended. */
  over(): boolean;
}

export class JournalFeed {
  private readonly cursor: StreamCursor;
  /** Partitions being replayed, with the live events that wait for them. */
  private readonly held = new Map<number, MapChangeEvent[]>();
  private heldCount = 0;
  /** Partitions whose live stream reported a hole while they were replayed: replayed again after. */
  private readonly again = new Set<number>();
  private readonly resetAll: boolean;

  constructor(
    private readonly journal: NonNullable<EventFacade['journal']>,
    private readonly mapName: string,
    private readonly lastEventId: string | undefined,
    private readonly out: FeedOutput,
    nowMs: number,
  ) {
    const resumed = lastEventId === undefined ? undefined : StreamCursor.decode(lastEventId);
    this.cursor = resumed ?? new StreamCursor(nowMs);
    this.resetAll = lastEventId !== undefined && resumed === undefined;
    // Every partition is held from the start of a resumed stream until its replay is done.
    if (resumed !== undefined) for (let pid = 0; pid < this.cursor.partitionCount; pid++) this.held.set(pid, []);
  }

  /** A live event from the bus. */
  live(e: MapChangeEvent): void {
    const waiting = this.held.get(e.partitionId);
    if (waiting === undefined) {
      this.deliver(e);
      return;
    }
    if (this.heldCount >= MAX_HELD_EVENTS) {
      this.out.cut(`more than ${MAX_HELD_EVENTS} live events arrived while the journal was replayed`);
      return;
    }
    this.heldCount++;
    waiting.push(e);
  }

  /** The live stream of a partition has a hole (its owner changed, or events were dropped): fill it from the journal. */
  lost(pid: number): void {
    if (this.held.has(pid)) {
      this.again.add(pid);
      return;
    }
    this.held.set(pid, []);
    void this.replay([pid]).then((failed) => this.report(failed));
  }

  /** Once subscribed: the replay of a resumed stream (or the reset of an id that is not a journal position). */
  async start(): Promise<void> {
    if (this.resetAll) {
      this.out.raw(resetFrame(this.cursor.encode(), this.lastEventId, undefined, GAP_REASONS.foreign));
      return;
    }
    if (this.held.size === 0) return;
    const failed = await this.replay([...this.held.keys()]);
    this.report(failed);
  }

  private deliver(e: MapChangeEvent): void {
    if (!this.cursor.isNew(e.partitionId, e.epoch, e.sequence)) return;
    this.cursor.set(e.partitionId, e.epoch, e.sequence);
    this.out.event(e, this.cursor.encode());
  }

  /** Replays the partitions (a few at a time); resolves with those that could not be resumed, by reason. */
  private async replay(pids: number[]): Promise<Map<string, number[]>> {
    const failed = new Map<string, number[]>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < pids.length && !this.out.over()) {
        const pid = pids[next++]!;
        for (;;) {
          const why = await this.replayOne(pid);
          if (why !== undefined) {
            let list = failed.get(why);
            if (list === undefined) failed.set(why, (list = []));
            list.push(pid);
          }
          // The live stream reported another hole meanwhile: read on from where the replay got.
          if (!this.again.delete(pid) || this.out.over()) break;
        }
        this.release(pid);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REPLAY_CONCURRENCY, pids.length) }, worker));
    return failed;
  }

  /** The journal's events of one partition after the cursor; the reason when it cannot be resumed. */
  private async replayOne(pid: number): Promise<string | undefined> {
    for (;;) {
      if (this.out.over()) return undefined;
      const pos = this.cursor.position(pid);
      const from: JournalFrom = pos === undefined ? { sinceMs: this.cursor.sinceMs } : { after: pos };
      let r;
      try {
        r = await this.journal.read(this.mapName, pid, from);
      } catch (e) {
        return `${GAP_REASONS.unreadable}: ${describeError(e)}`;
      }
      if (!r.ok) {
        // Followed live from the journal's newest event on: a later resume does not report it again.
        if (r.head !== undefined && this.cursor.isNew(pid, r.head.epoch, r.head.sequence)) this.cursor.set(pid, r.head.epoch, r.head.sequence);
        return GAP_REASONS[r.reason];
      }
      for (const x of r.entries) this.deliver(x.event);
      if (!r.more || r.entries.length === 0) return undefined;
      await this.out.drained(REPLAY_HIGH_WATER_BYTES);
    }
  }

  /** A replayed partition goes live: the events that waited, minus what the replay delivered. */
  private release(pid: number): void {
    const waiting = this.held.get(pid);
    this.held.delete(pid);
    if (waiting === undefined) return;
    this.heldCount -= waiting.length;
    for (const e of waiting) this.deliver(e);
  }

  private report(failed: Map<string, number[]>): void {
    if (this.out.over()) return;
    for (const [reason, pids] of failed) this.out.raw(resetFrame(this.cursor.encode(), this.lastEventId, pids.sort((a, b) => a - b), reason));
  }
}

/** `event: reset` naming the partitions that cannot be resumed (none named: all of them). */
function resetFrame(id: string, lastEventId: string | undefined, partitions: number[] | undefined, reason: string): string {
  const data = { ...(lastEventId === undefined ? {} : { lastEventId }), ...(partitions === undefined ? {} : { partitions }), reason };
  return `id: ${id}\nevent: reset\ndata: ${JSON.stringify(data)}\n\n`;
}
