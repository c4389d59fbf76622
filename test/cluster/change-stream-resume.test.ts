// Change streams of maps with an event journal resume across reconnects (docs/data-api.md#resume),
// on one shared 3-member cluster (backup-count 1): a plain reconnect under concurrent writes gets
// every event exactly once; a journal that overwrote the next event says so, naming the
// partition; a member that joins takes partitions with their journals; and a stream on a member killed with SIGKILL, resumed on a survivor, gets every
// event written before and after the kill exactly once (the promoted backups' journals), as
// does a stream on a survivor open throughout. The kill is the file's last test.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

let c: Cluster;

beforeAll(async () => {
  c = await startCluster({
    size: 3,
    scope: 'file',
    config: () => ({
      map: {
        'j-*': { 'backup-count': 1, 'event-journal': { enabled: true, capacity: 271_000 } },
        'js-*': { 'backup-count': 1, 'event-journal': { enabled: true, capacity: 271 } },
      },
    }),
  });
}, 60_000);

afterAll(async () => {
  await c?.destroy();
});

interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: Record<string, unknown>;
}

/** A stream read over a raw socket; only events whose closing blank line arrived are parsed. */
interface Reader {
  readonly socket: net.Socket;
  events(): SseEvent[];
  close(): void;
}

function open(i: number, path: string, lastEventId?: string): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(c.member(i).port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${lastEventId === undefined ? '' : `Last-Event-ID: ${lastEventId}\r\n`}\r\n`);
      const reader: Reader = {
        socket,
        events: () => {
          const blocks = text.split('\n\n');
          blocks.pop(); // not closed yet (or empty)
          return blocks
            .filter((b) => /^(id|event): /m.test(b))
            .map((b) => {
              const field = (name: string): string | undefined => new RegExp(`^${name}: (.*)$`, 'm').exec(b)?.[1];
              return { event: field('event') ?? 'message', id: field('id'), data: JSON.parse(field('data') ?? '{}') as Record<string, unknown> };
            });
        },
        close: () => socket.destroy(),
      };
      waitFor('the stream to start', () => text.includes(': subscribed'), 15_000).then(() => resolve(reader), reject);
    });
  });
}

async function put(i: number, map: string, key: string, value: string): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${c.member(i).port}/grid/rest/maps/${map}/${encodeURIComponent(key)}`, { method: 'PUT', body: value, headers: { 'content-type': 'text/plain' } });
  if (r.status !== 200) throw new Error(`PUT ${key}: ${r.status} ${r.headers.get('x-grid-error') ?? ''}`);
}

/** The values carried by data events, in order. */
const valuesOf = (events: readonly SseEvent[]): string[] => events.filter((e) => e.event === 'added' || e.event === 'updated').map((e) => e.data.value as string);

/** The events of `first` up to and including the last complete one (what a client that reconnects has seen), and its id. */
function seen(first: Reader): { events: SseEvent[]; lastId: string } {
  const events = first.events().filter((e) => e.id !== undefined);
  const lastId = events.at(-1)?.id;
  if (lastId === undefined) throw new Error('no event seen yet');
  return { events, lastId };
}

function expectEachOnce(got: readonly string[], written: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const v of got) counts.set(v, (counts.get(v) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([v]) => v);
  const missing = written.filter((v) => !counts.has(v));
  const extra = got.filter((v) => !written.includes(v));
  expect({ twice, missing, extra }).toEqual({ twice: [], missing: [], extra: [] });
}

describe('change stream resume with an event journal', () => {
  it('a reconnect with Last-Event-ID under concurrent writes gets every event exactly once, from another member too', async () => {
    const map = 'j-plain';
    const first = await open(0, `/grid/rest/maps/${map}/events?values=true`);
    const written: string[] = [];
    let stop = false;
    // Two writers on the other members, 40 keys (updates of the same keys and many partitions).
    const writer = async (member: number, tag: string): Promise<void> => {
      for (let n = 0; !stop && n < 400; n++) {
        const v = `${tag}-${n}`;
        await put(member, map, `k${n % 40}-${tag}`, v);
        written.push(v);
      }
    };
    const writers = Promise.all([writer(1, 'a'), writer(2, 'b')]);
    await waitFor('some events on the first stream', () => valuesOf(first.events()).length >= 60, 20_000);
    first.close();
    const before = seen(first);
    // Written while away: events of partitions the first stream never saw too.
    await waitFor('writes while away', () => written.length >= before.events.length + 100, 20_000);
    const again = await open(1, `/grid/rest/maps/${map}/events?values=true`, before.lastId);
    await writers;
    stop = true;
    await waitFor('every write on the resumed stream', () => valuesOf(before.events).length + valuesOf(again.events()).length >= written.length, 30_000);
    expect(again.events().filter((e) => e.event === 'reset' || e.event === 'lost')).toEqual([]);
    expectEachOnce([...valuesOf(before.events), ...valuesOf(again.events())], written);
    // Ids are stream positions, and a second resume from the end has nothing to replay.
    const last = seen(again).lastId;
    expect(last).toMatch(/^j1\./);
    again.close();
    const third = await open(2, `/grid/rest/maps/${map}/events?values=true`, last);
    await put(0, map, 'after', 'after-1');
    await waitFor('the next live event', () => valuesOf(third.events()).length >= 1, 10_000);
    expect(valuesOf(third.events())).toEqual(['after-1']);
    third.close();
  }, 90_000);

  it('says which partitions cannot be resumed when their journal overwrote the next event, and goes on live', async () => {
    const map = 'js-small'; // one event per partition
    const key = 'only';
    const pid = partitionIdOf(key);
    const other = Array.from({ length: 100 }, (_, n) => `o${n}`).find((k) => partitionIdOf(k) !== pid)!;
    const first = await open(0, `/grid/rest/maps/${map}/events?values=true`);
    await put(1, map, key, 'v1');
    await waitFor('the first event', () => valuesOf(first.events()).length === 1, 10_000);
    const { lastId } = seen(first);
    first.close();
    await put(1, map, key, 'v2');
    await put(1, map, key, 'v3'); // overwrites v2 in the one-slot journal
    await put(1, map, other, 'w1'); // another partition: replayed
    const again = await open(2, `/grid/rest/maps/${map}/events?values=true`, lastId);
    await waitFor('the reset and the replay', () => again.events().some((e) => e.event === 'reset') && valuesOf(again.events()).includes('w1'), 10_000);
    const reset = again.events().find((e) => e.event === 'reset')!;
    expect(reset.data).toMatchObject({ lastEventId: lastId, partitions: [pid] });
    expect(String(reset.data.reason)).toContain('overwritten');
    expect(valuesOf(again.events())).toEqual(['w1']);
    await put(0, map, key, 'v4');
    await waitFor('live events after the reset', () => valuesOf(again.events()).includes('v4'), 10_000);
    // A resume from the reset's id does not report it again.
    const resetId = seen(again).lastId;
    again.close();
    const third = await open(0, `/grid/rest/maps/${map}/events?values=true`, resetId);
    await put(1, map, key, 'v5');
    await waitFor('v5', () => valuesOf(third.events()).includes('v5'), 10_000);
    expect(third.events().map((e) => e.event)).toEqual(['updated']);
    // An id that is not a journal position: reset, all partitions.
    const bogus = await open(1, `/grid/rest/maps/${map}/events`, '12.3.4');
    await waitFor('the reset', () => bogus.events().length >= 1, 10_000);
    expect(bogus.events()[0]).toMatchObject({ event: 'reset', data: { lastEventId: '12.3.4' } });
    expect(bogus.events()[0]!.data.partitions).toBeUndefined();
    third.close();
    bogus.close();
  }, 60_000);

  it('a member that joins while a stream is away takes partitions with their journals: the resume there gets every event once', async () => {
    const map = 'j-join';
    const first = await open(0, `/grid/rest/maps/${map}/events?values=true`);
    const written: string[] = [];
    const write = async (i: number, n: number, tag: string): Promise<void> => {
      const v = `${tag}-${n}`;
      await put(i, map, `key-${n % 60}`, v);
      written.push(v);
    };
    for (let n = 0; n < 120; n++) await write(n % 3, n, 'a');
    await waitFor('the first writes on the stream', () => valuesOf(first.events()).length >= 120, 20_000);
    first.close();
    const before = seen(first);
    for (let n = 0; n < 120; n++) await write(n % 3, n, 'b');
    const joined = await c.addMember();
    // Partitions (and their journals) migrate to the new member.
    await waitFor('the new member to own partitions, migrations done', async () => {
      const p = await c.partitions(0);
      return p.clusterSafe && p.migrationQueueSize === 0 && p.partitions.some((r) => r[0] === joined.uuid);
    }, 60_000, 200);
    for (let n = 0; n < 60; n++) await write(n % 3, n, 'c');
    const again = await open(joined.index, `/grid/rest/maps/${map}/events?values=true`, before.lastId);
    await waitFor('every write on the resumed stream', () => valuesOf(before.events).length + valuesOf(again.events()).length >= written.length, 30_000);
    expect(again.events().filter((e) => e.event === 'reset')).toEqual([]);
    expectEachOnce([...valuesOf(before.events), ...valuesOf(again.events())], written);
    again.close();
  }, 120_000);

  it("resumes on a survivor after the stream's member, owner of the partitions, is killed: every event before and after exactly once", async () => {
    const map = 'j-kill';
    const victim = 2;
    const parts = await c.partitions(0);
    const victimUuid = c.member(victim).uuid!;
    // 60 keys owned by the victim, 20 owned by others.
    const keys: string[] = [];
    let others = 0;
    for (let n = 0; keys.length < 80; n++) {
      const k = `key-${n}`;
      const owner = parts.partitions[partitionIdOf(k)]![0];
      if (owner === victimUuid ? keys.length - others < 60 : others < 20) {
        keys.push(k);
        if (owner !== victimUuid) others++;
      }
    }
    const stream = await open(victim, `/grid/rest/maps/${map}/events?values=true`);
    // A stream on a survivor stays open throughout: the holes the kill makes are filled from the journals.
    const survivor = await open(0, `/grid/rest/maps/${map}/events?values=true`);
    const written: string[] = [];
    const write = async (i: number, n: number, tag: string): Promise<void> => {
      const v = `${tag}-${n}`;
      await put(i, map, keys[n % keys.length]!, v);
      written.push(v);
    };
    for (let n = 0; n < 160; n++) await write(n % 2, n, 'a');
    await waitFor('the stream to have the first writes', () => valuesOf(stream.events()).length >= 160, 20_000);
    // Written right before the kill: the stream may or may not have had them.
    await Promise.all(Array.from({ length: 80 }, (_, n) => write(n % 2, n, 'b')));
    await c.kill(victim);
    const before = seen(stream);
    stream.close();
    // After the kill, through the promoted backups, once the table no longer names the victim.
    await waitFor('the backups promoted', async () => (await c.partitions(0)).partitions.every((r) => r[0] !== victimUuid && r[0] !== null), 30_000, 100);
    for (let n = 0; n < 80; n++) await write(n % 2, n, 'c');
    const again = await open(0, `/grid/rest/maps/${map}/events?values=true`, before.lastId);
    await waitFor('every write on the resumed stream', () => valuesOf(before.events).length + valuesOf(again.events()).length >= written.length, 30_000);
    expect(again.events().filter((e) => e.event === 'reset')).toEqual([]);
    expectEachOnce([...valuesOf(before.events), ...valuesOf(again.events())], written);
    await waitFor('every write on the survivor\'s stream', () => valuesOf(survivor.events()).length >= written.length, 30_000);
    expect(survivor.events().filter((e) => e.event === 'reset' || e.event === 'lost')).toEqual([]);
    expectEachOnce(valuesOf(survivor.events()), written);
    again.close();
    survivor.close();
  }, 120_000);
});
