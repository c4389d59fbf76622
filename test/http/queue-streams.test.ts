// Queue change streams (GET /grid/rest/queues/<queue>/events, Server-Sent Events) on one shared
// 3-member cluster: offers over REST and over the official Node client appear once each, in
// order, on a subscriber at the owner and on one at another member; polls, drains and removes
// appear as `removed`, clear as `cleared`; a consumer that stops reading is cut off with a
// reason while offers go on at full speed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { queuePartitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { openStream, type Stream } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

let c: Cluster;
let client: Client;
/** uuid of each member by index. */
let uuids: string[];

beforeAll(async () => {
  c = await startCluster({ size: 3, spare: 0, scope: 'file' });
  const table = await c.partitions(0);
  uuids = [0, 1, 2].map((i) => c.member(i).uuid!);
  ownerTable = table.partitions.map((row) => row?.[0] ?? null);
  client = await Client.newHazelcastClient({ clusterName: 'dev', network: { clusterMembers: [c.member(2).address] }, properties: { 'hazelcast.logging.level': 'OFF' } });
}, 90_000);

afterAll(async () => {
  await client?.shutdown();
  await c?.destroy();
});

let ownerTable: (string | null)[] = [];

/** A queue name whose partition member `i` owns. */
function ownedBy(i: number, prefix: string): string {
  for (let n = 0; n < 10_000; n++) if (ownerTable[queuePartitionIdOf(`${prefix}-${n}`)] === uuids[i]) return `${prefix}-${n}`;
  throw new Error(`member ${i} owns no queue ${prefix}-*`);
}

const post = async (i: number, q: string, body: string): Promise<number> => (await c.http(i, 'POST', `/hazelcast/rest/queues/${q}`, body, { contentType: 'text/plain' })).status;

describe('queue change streams', () => {
  it('offers (REST and client), polls, drains, removes and clears appear once each, in order, at the owner and elsewhere', async () => {
    const q = ownedBy(1, 'orders');
    const remote = await openStream(c.member(0).port, `/grid/rest/queues/${q}/events?values=true`);
    const local = await openStream(c.member(1).port, `/grid/rest/queues/${q}/events`);
    expect(remote.text()).toContain('Content-Type: text/event-stream\r\n');
    for (const v of ['a', 'b', 'c']) expect(await post(2, q, v)).toBe(200);
    const cq = await client.getQueue<string>(q);
    expect(await cq.offer('d')).toBe(true);
    expect(await cq.offer('e')).toBe(true);
    // A poll over REST at a non-owner, one by the client, a drain of one, a remove, then a clear of what is left.
    expect((await c.http(0, 'GET', `/hazelcast/rest/queues/${q}/0`)).body).toBe('a');
    // A REST-written item reaches a client as Hazelcast's RestValue.
    expect(await cq.poll()).toMatchObject({ value: 'b' });
    expect(await cq.drainTo([], 1)).toBe(1);
    expect(await cq.remove('e')).toBe(true);
    expect(await post(2, q, 'f')).toBe(200);
    await cq.clear();
    const expected = [
      ['added', 'a'], ['added', 'b'], ['added', 'c'], ['added', 'd'], ['added', 'e'],
      ['removed', 'a'], ['removed', 'b'], ['removed', 'c'], ['removed', 'e'], ['added', 'f'], ['cleared', undefined],
    ];
    const done = (s: Stream): boolean => s.events().some((e) => e.event === 'cleared');
    await waitFor('the clear on both streams', () => done(remote) && done(local), 15_000);
    for (const s of [remote, local]) {
      const events = s.events();
      expect(events.map((e) => e.event)).toEqual(expected.map(([t]) => t));
      // One sequence: ids partition.epoch.1..n, none twice, no hole.
      const pid = queuePartitionIdOf(q);
      expect(events.map((e) => e.id!.split('.')[2])).toEqual(expected.map((_, i) => String(i + 1)));
      for (const e of events) expect(e.id!.startsWith(`${pid}.`)).toBe(true);
      expect(events.at(-1)!.data).toMatchObject({ partition: pid, count: 2 });
    }
    expect(remote.events().map((e) => e.data.value)).toEqual(expected.map(([, v]) => v));
    // REST items keep their type; the client's strings read as text/plain, as Hazelcast's REST shows them.
    expect(remote.events()[0]!.data).toMatchObject({ value: 'a', valueContentType: 'text/plain' });
    expect(remote.events()[3]!.data).toMatchObject({ value: 'd', valueContentType: 'text/plain' });
    expect(local.events()[0]!.data.value).toBeUndefined();
    remote.socket.destroy();
    local.socket.destroy();
  });

  it('keeps Hazelcast paths, refuses bad parameters, and says a reconnect cannot resume', async () => {
    const q = ownedBy(2, 'misc');
    expect((await c.http(0, 'GET', `/grid/rest/queues/${q}/events?bogus=1`)).status).toBe(400);
    expect((await c.http(0, 'GET', `/grid/rest/queues/${q}/events?heartbeat=0`)).status).toBe(400);
    // Under /hazelcast/ the path is a poll whose timeout is "events" (not a number): never a stream.
    const h = await c.http(0, 'GET', `/hazelcast/rest/queues/${q}/events`);
    expect(h.status).toBe(400);
    const s = await openStream(c.member(1).port, `/grid/rest/queues/${q}/events`, { 'Last-Event-ID': '7.1.3' });
    expect(await post(0, q, 'x')).toBe(200);
    await waitFor('reset and the event', () => s.events().length >= 2, 10_000);
    expect(s.events().map((e) => e.event)).toEqual(['reset', 'added']);
    expect(s.events()[0]!.data).toMatchObject({ lastEventId: '7.1.3' });
    s.socket.destroy();
  });

  it('a consumer that stops reading is cut off with a reason; offers go on', async () => {
    const q = ownedBy(1, 'slow');
    const slow = await openStream(c.member(0).port, `/grid/rest/queues/${q}/events?values=true`);
    const fast = await openStream(c.member(0).port, `/grid/rest/queues/${q}/events`);
    slow.socket.pause();
    const big = 'x'.repeat(64 * 1024);
    const cut = (): boolean => c.member(0).logMessages().some((m) => m.includes('change stream cut off: slow consumer'));
    let offered = 0;
    // Offer and take big items until the stalled stream passes its budget (kernel buffers first, then 1 MiB).
    for (let i = 0; i < 400 && !cut(); i++) {
      expect(await post(1, q, big)).toBe(200);
      expect((await c.http(1, 'GET', `/hazelcast/rest/queues/${q}/0`)).status).toBe(200);
      offered++;
    }
    await waitFor('the cut logged', cut, 10_000);
    expect(offered).toBeLessThan(400);
    const closed = new Promise<void>((r) => slow.socket.once('close', () => r()));
    slow.socket.resume();
    await closed;
    expect(slow.text()).toMatch(/event: cut\ndata: \{"reason":"slow consumer[^\n]*\n\n$/);
    // Writes go on, and the subscriber that reads got every event.
    for (let i = 0; i < 20; i++) expect(await post(1, q, `after-${i}`)).toBe(200);
    await waitFor('every event on the reading stream', () => fast.events().length === 2 * offered + 20, 15_000);
    expect(fast.events().filter((e) => e.event === 'added')).toHaveLength(offered + 20);
    fast.socket.destroy();
  });

  // Last: it kills a member of the shared cluster.
  it("the owner's kill -9: the stream says events may be lost, then goes on from the promoted backup, nothing twice", async () => {
    const q = ownedBy(2, 'failover');
    const s = await openStream(c.member(0).port, `/grid/rest/queues/${q}/events?values=true`);
    expect(await post(0, q, 'before')).toBe(200);
    await waitFor('the first event', () => s.events().length >= 1, 10_000);
    await c.kill(2);
    // The backup takes the queue over once the member is gone; offers fail until then.
    await waitFor('an offer after the failover', async () => (await post(0, q, 'after').catch(() => 0)) === 200, 30_000);
    await waitFor('the event after the failover', () => s.events().some((e) => e.event === 'added' && e.data.value === 'after'), 15_000);
    const events = s.events();
    const [first, ...rest] = events;
    expect([first!.event, first!.data.value]).toEqual(['added', 'before']);
    // An event from the new owner's new epoch is announced as a possible loss first.
    expect(rest.map((e) => e.event)).toEqual(['lost', 'added']);
    const epoch = (id: string | undefined): number => Number(id!.split('.')[1]);
    expect(epoch(rest[1]!.id)).toBeGreaterThan(epoch(first!.id));
    expect(rest[1]!.id!.split('.')[2]).toBe('1');
    expect((await c.http(0, 'GET', `/hazelcast/rest/queues/${q}/size`)).body).toBe('2');
    s.socket.destroy();
  });
});
