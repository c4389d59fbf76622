// The journaled change stream's merge of replay and live events, against a fake journal whose
// reads resolve when the test says: live events that arrive while a partition is replayed wait
// and are let through after it without duplicates; partitions that cannot be resumed are named
// in one reset per reason; a hole the live stream reports is filled from the journal.

import { describe, expect, it } from 'vitest';
import { StreamCursor, type JournalFrom, type JournalRead, type MapChangeEvent } from '../../../src/events/event-service.js';
import { JournalFeed, MAX_HELD_EVENTS, type FeedOutput } from '../../../src/rest/journal-feed.js';

function ev(pid: number, sequence: number, epoch = 1): MapChangeEvent {
  return { mapName: 'm', partitionId: pid, epoch, sequence, type: 'updated', key: `p${pid}-${sequence}`, oldValue: undefined, newValue: undefined, count: 1 };
}

/** A journal per partition as lists of events; reads wait until `release()`. */
class FakeJournal {
  readonly logs = new Map<number, MapChangeEvent[]>();
  readonly gaps = new Map<number, JournalRead>();
  readonly reads: [number, JournalFrom][] = [];
  private waiting: (() => void)[] = [];
  hold = false;
  journaled = (): boolean => true;
  read = (_map: string, pid: number, from: JournalFrom): Promise<JournalRead> => {
    this.reads.push([pid, from]);
    const answer = (): JournalRead => {
      const gap = this.gaps.get(pid);
      if (gap !== undefined) return gap;
      const log = this.logs.get(pid) ?? [];
      const after = 'after' in from ? log.filter((e) => e.sequence > from.after.sequence) : log;
      return { ok: true, more: false, entries: after.map((event) => ({ event, atMs: 0 })) };
    };
    if (!this.hold) return Promise.resolve(answer());
    return new Promise((resolve) => this.waiting.push(() => resolve(answer())));
  };
  release(): void {
    this.hold = false;
    for (const w of this.waiting.splice(0)) w();
  }
}

function output(): FeedOutput & { frames: string[]; keys(): string[]; cuts: string[] } {
  const frames: string[] = [];
  const cuts: string[] = [];
  return {
    frames,
    cuts,
    keys: () => frames.filter((f) => f.startsWith('E ')).map((f) => f.slice(2)),
    event: (e) => frames.push(`E ${e.key}`),
    raw: (t) => frames.push(t),
    cut: (r) => cuts.push(r),
    drained: () => Promise.resolve(),
    over: () => cuts.length > 0,
  };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

function idAfter(positions: [number, number][], sinceMs = 0): string {
  const c = new StreamCursor(sinceMs);
  for (const [pid, seq] of positions) c.set(pid, 1, seq);
  return c.encode();
}

describe('JournalFeed', () => {
  it('a fresh stream passes live events through, each once, with ids that resume', () => {
    const j = new FakeJournal();
    const out = output();
    const ids: string[] = [];
    const feed = new JournalFeed(j, 'm', undefined, { ...out, event: (e, id) => (out.frames.push(`E ${e.key}`), ids.push(id)) }, 1000);
    feed.live(ev(3, 1));
    feed.live(ev(3, 1)); // twice
    feed.live(ev(3, 2));
    feed.live(ev(4, 7));
    expect(out.keys()).toEqual(['p3-1', 'p3-2', 'p4-7']);
    const last = StreamCursor.decode(ids.at(-1)!, 271)!;
    expect([last.sinceMs, last.position(3), last.position(4)]).toEqual([1000, { epoch: 1, sequence: 2 }, { epoch: 1, sequence: 7 }]);
  });

  it('a resume replays each partition after its position, holds live events meanwhile, and lets them through after without duplicates', async () => {
    const j = new FakeJournal();
    j.logs.set(3, [ev(3, 1), ev(3, 2), ev(3, 3), ev(3, 4)]);
    j.logs.set(9, [ev(9, 1)]);
    j.hold = true;
    const out = output();
    const feed = new JournalFeed(j, 'm', idAfter([[3, 2]], 500), out, 9999);
    // Live events of replayed partitions arrive first: one the journal has too, one it does not.
    feed.live(ev(3, 4));
    feed.live(ev(3, 5));
    feed.live(ev(9, 2));
    const started = feed.start();
    await flush();
    expect(out.keys()).toEqual([]);
    j.release();
    await started;
    expect(out.keys()).toEqual(['p3-3', 'p3-4', 'p3-5', 'p9-1', 'p9-2']);
    // Partition 3 from its position, the others since the stream's start.
    expect(j.reads.find(([pid]) => pid === 3)![1]).toEqual({ after: { epoch: 1, sequence: 2 } });
    expect(j.reads.find(([pid]) => pid === 9)![1]).toEqual({ sinceMs: 500 });
    expect(j.reads).toHaveLength(271);
    // Live from here.
    feed.live(ev(3, 6));
    feed.live(ev(3, 5));
    expect(out.keys().slice(-1)).toEqual(['p3-6']);
    expect(out.frames.filter((f) => f.includes('event: reset'))).toEqual([]);
  });

  it('names the partitions that cannot be resumed, one reset per reason, and follows them live from the journal head', async () => {
    const j = new FakeJournal();
    j.gaps.set(5, { ok: false, reason: 'overwritten', head: { epoch: 1, sequence: 40 } });
    j.gaps.set(8, { ok: false, reason: 'overwritten', head: { epoch: 1, sequence: 3 } });
    j.gaps.set(2, { ok: false, reason: 'lost', head: undefined });
    const out = output();
    const feed = new JournalFeed(j, 'm', idAfter([[5, 10], [8, 1], [2, 4]]), out, 0);
    feed.live(ev(5, 39)); // before the head: part of what the reset skips
    feed.live(ev(5, 41));
    await feed.start();
    const resets = out.frames.filter((f) => f.includes('event: reset')).map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { partitions: number[]; reason: string });
    expect(resets.map((r) => [r.partitions, r.reason.includes('overwritten') ? 'overwritten' : r.reason.includes('lost') ? 'lost' : r.reason]).sort()).toEqual([
      [[2], 'lost'],
      [[5, 8], 'overwritten'],
    ]);
    expect(out.keys()).toEqual(['p5-41']);
    // The reset's id counts the head as delivered.
    const id = /^id: (.*)$/m.exec(out.frames.find((f) => f.includes('event: reset'))!)![1]!;
    expect(StreamCursor.decode(id, 271)!.position(8)).toEqual({ epoch: 1, sequence: 3 });
  });

  it('an id that is not a journal position gets one reset for all partitions, then live events', async () => {
    const j = new FakeJournal();
    const out = output();
    const feed = new JournalFeed(j, 'm', '12.3.4', out, 0);
    await feed.start();
    expect(j.reads).toEqual([]);
    expect(out.frames[0]).toMatch(/event: reset\ndata: \{"lastEventId":"12.3.4","reason":"Last-Event-ID is not a position/);
    feed.live(ev(1, 1));
    expect(out.keys()).toEqual(['p1-1']);
  });

  it('fills a hole the live stream reports from the journal, and holds that partition while it does', async () => {
    const j = new FakeJournal();
    const out = output();
    const feed = new JournalFeed(j, 'm', undefined, out, 0);
    feed.live(ev(6, 1));
    // The owner died; its backup had journaled 2 and 3, which never came live.
    j.logs.set(6, [ev(6, 1), ev(6, 2), ev(6, 3), ev(6, 4, 2)]);
    j.hold = true;
    feed.lost(6);
    feed.live(ev(6, 4, 2));
    feed.live(ev(7, 1)); // other partitions are not held
    expect(out.keys()).toEqual(['p6-1', 'p7-1']);
    j.release();
    await flush();
    await flush();
    expect(out.keys()).toEqual(['p6-1', 'p7-1', 'p6-2', 'p6-3', 'p6-4']);
    expect(j.reads).toEqual([[6, { after: { epoch: 1, sequence: 1 } }]]);
  });

  it('cuts the stream when too many live events wait for a replay', async () => {
    const j = new FakeJournal();
    j.hold = true;
    const out = output();
    const feed = new JournalFeed(j, 'm', idAfter([[0, 1]]), out, 0);
    const started = feed.start();
    for (let i = 0; i <= MAX_HELD_EVENTS; i++) feed.live(ev(0, 2 + i));
    expect(out.cuts).toEqual([`more than ${MAX_HELD_EVENTS} live events arrived while the journal was replayed`]);
    j.release();
    await started;
  });
});
