// The official Node.js client (hazelcast-client 5.7.0, unchanged) against 3 real Grid member
// processes with the CP subsystem on, one cluster for the whole file: queue operations and the
// waiting ones (a take answered by a REST offer, a take cancelled by the client going away, a
// put woken when room frees), drainTo handing every item out exactly once, CP atomic longs on
// the default and a named group, a compareAndSet race with one winner, and increments across
// a SIGKILL of the group's leader (last: it leaves 2 members). Also the two Hazelcast
// alignments as REST shows them: CP member uuids are the member uuids, and a map whose
// split-brain-protection-ref names no rule starts, warns, and refuses its operations.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { pollUntil } from '../support/http.js';
import { waitFor } from '../support/process.js';
import { CP_SCENARIOS } from './scenarios.js';

let c: Cluster;
let client: Client;
const extra: Client[] = [];

/** A unisocket client on member `i` (its calls, CP ones included, go through that member). */
function newClient(i: number): Promise<Client> {
  return Client.newHazelcastClient({
    clusterName: 'dev',
    network: { clusterMembers: [c.member(i).address], smartRouting: false },
    properties: { 'hazelcast.logging.level': 'OFF' },
  }).then((cl) => {
    extra.push(cl);
    return cl;
  });
}

interface QueueStats {
  size: number;
  reserved: number;
  waitingPolls: number;
}

const stats = (q: string): Promise<QueueStats> => c.json<QueueStats>(0, `/grid/rest/queues/${q}/stats`);

beforeAll(async () => {
  c = await startCluster({
    size: 3,
    spare: 0,
    scope: 'file',
    timeoutMs: 60_000,
    config: () => ({
      network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true } } } },
      queue: { 'bq*': { 'max-size': 3 } },
      map: { orphan: { 'split-brain-protection-ref': 'no-such-rule' } },
      'cp-subsystem': {
        'cp-member-count': 3,
        'raft-algorithm': { 'leader-election-timeout-in-millis': 1000, 'leader-heartbeat-period-in-millis': 500, 'max-missed-leader-heartbeat-count': 4 },
      },
    }),
  });
  client = await Client.newHazelcastClient({
    clusterName: 'dev',
    network: { clusterMembers: [c.member(0).address] },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
}, 120_000);

afterAll(async () => {
  for (const cl of extra) await cl.shutdown().catch(() => undefined);
  await client?.shutdown();
  await c?.destroy();
});

describe('queues from hazelcast-client 5.7.0 on 3 Grid members', () => {
  it('answers every queue operation as Hazelcast does', async () => {
    const q = await client.getQueue<string>('q-ops');
    expect(await q.offer('a')).toBe(true);
    await q.put('b');
    expect(await q.addAll(['c', 'd', 'c'])).toBe(true);
    expect(await q.size()).toBe(5);
    expect(await q.isEmpty()).toBe(false);
    expect(await q.peek()).toBe('a');
    expect(await q.toArray()).toEqual(['a', 'b', 'c', 'd', 'c']);
    expect(await q.contains('d')).toBe(true);
    expect(await q.contains('zz')).toBe(false);
    expect(await q.containsAll(['a', 'c'])).toBe(true);
    expect(await q.containsAll(['a', 'zz'])).toBe(false);
    expect(await q.remove('c')).toBe(true);
    expect(await q.remove('zz')).toBe(false);
    expect(await q.toArray()).toEqual(['a', 'b', 'd', 'c']);
    expect(await q.remainingCapacity()).toBe(2 ** 31 - 1 - 4);
    const out: string[] = [];
    expect(await q.drainTo(out, 2)).toBe(2);
    expect(out).toEqual(['a', 'b']);
    expect(await q.drainTo(out)).toBe(2);
    expect(out).toEqual(['a', 'b', 'd', 'c']);
    await q.offer('t');
    expect(await q.take()).toBe('t');
    await q.addAll(['x', 'y']);
    await q.clear();
    expect(await q.size()).toBe(0);
    expect(await q.poll()).toBeNull();
    expect(await q.poll(100)).toBeNull();
    // REST sees the same queue: a client item is text/plain there.
    await q.offer('for-rest');
    const r = await c.http(1, 'GET', '/hazelcast/rest/queues/q-ops/1');
    expect([r.status, r.headers['content-type'], r.body]).toEqual([200, 'text/plain', 'for-rest']);
  });

  it('a bounded queue: addAll all or nothing, offer with a timeout, and a put woken when room frees', async () => {
    const q = await client.getQueue<string>('bq1');
    expect(await q.remainingCapacity()).toBe(3);
    expect(await q.addAll(['1', '2', '3', '4'])).toBe(false);
    expect(await q.size()).toBe(0);
    expect(await q.addAll(['1', '2'])).toBe(true);
    expect(await q.offer('3')).toBe(true);
    expect(await q.offer('4')).toBe(false);
    const started = Date.now();
    expect(await q.offer('4', 300)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // A put waits at the owner until a poll (over REST here) makes room.
    const put = q.put('4');
    await waitFor('the put to wait', async () => (await stats('bq1')).size === 3, 10_000);
    const polled = await c.http(2, 'GET', '/hazelcast/rest/queues/bq1/1');
    expect(polled.body).toBe('1');
    await put;
    expect(await q.toArray()).toEqual(['2', '3', '4']);
  });

  it('a blocked take is answered by a REST offer', async () => {
    const q = await client.getQueue<unknown>('q-take');
    const take = q.take();
    await waitFor('the take to wait at the owner', async () => (await stats('q-take')).waitingPolls === 1, 10_000);
    expect((await c.http(2, 'POST', '/hazelcast/rest/queues/q-take', 'from-rest', { contentType: 'text/plain' })).status).toBe(200);
    const got = (await take) as { value: string; contentType: string };
    expect([got.value, got.contentType]).toEqual(['from-rest', 'text/plain']);
    expect(await stats('q-take')).toEqual({ size: 0, reserved: 0, waitingPolls: 0 });
  });

  it('a take cancelled by its client going away does not consume the item', async () => {
    const other = await newClient(1);
    const q = await other.getQueue<string>('q-cancel');
    const take = q.take().catch((e: Error) => e);
    await waitFor('the take to wait', async () => (await stats('q-cancel')).waitingPolls === 1, 10_000);
    await other.shutdown();
    expect(await take).toBeInstanceOf(Error);
    await waitFor('the take to be cancelled', async () => (await stats('q-cancel')).waitingPolls === 0, 10_000);
    const q0 = await client.getQueue<string>('q-cancel');
    expect(await q0.offer('kept')).toBe(true);
    expect(await q0.size()).toBe(1);
    expect(await q0.poll()).toBe('kept');
  });

  it('drainTo from several clients at once hands every item out exactly once', async () => {
    const n = 300;
    const q = await client.getQueue<string>('q-drain');
    const items = Array.from({ length: n }, (_, i) => `i${i}`);
    for (let i = 0; i < n; i += 50) expect(await q.addAll(items.slice(i, i + 50))).toBe(true);
    const clients = [client, await newClient(1), await newClient(2)];
    const got = await Promise.all(
      clients.map(async (cl, k) => {
        const mine: string[] = [];
        const cq = await cl.getQueue<string>('q-drain');
        for (;;) {
          const before = mine.length;
          await cq.drainTo(mine, 7 + k);
          const p = await cq.poll();
          if (p !== null) mine.push(p);
          if (mine.length === before) return mine;
        }
      }),
    );
    const all = got.flat();
    expect(all.length).toBe(n);
    expect(new Set(all).size).toBe(n);
    expect(await stats('q-drain')).toEqual({ size: 0, reserved: 0, waitingPolls: 0 });
  });
});

describe('CP atomic longs from hazelcast-client 5.7.0', () => {
  it('every call on the default group and on a named group', async () => {
    for (const name of ['al1', 'al1@grp1']) {
      const al = await client.getCPSubsystem().getAtomicLong(name);
      expect((await al.get()).toNumber()).toBe(0);
      expect((await al.addAndGet(5)).toNumber()).toBe(5);
      expect((await al.getAndAdd(2)).toNumber()).toBe(5);
      expect((await al.incrementAndGet()).toNumber()).toBe(8);
      expect((await al.decrementAndGet()).toNumber()).toBe(7);
      expect((await al.getAndIncrement()).toNumber()).toBe(7);
      expect((await al.getAndSet(20)).toNumber()).toBe(8);
      expect(await al.compareAndSet(20, 21)).toBe(true);
      expect(await al.compareAndSet(20, 22)).toBe(false);
      await al.set(-9);
      expect((await al.get()).toString()).toBe('-9');
    }
    // The REST endpoints see the same longs, each in its group.
    expect((await c.http(1, 'GET', '/grid/rest/cp/atomiclongs/al1')).body).toBe('-9');
    expect((await c.http(2, 'GET', '/grid/rest/cp/atomiclongs/al1@grp1')).body).toBe('-9');
    const groups = await c.json<{ name: string }[]>(0, '/grid/rest/cp-subsystem/groups');
    expect(groups.map((g) => g.name)).toContain('grp1');
  });

  // The shared ones, also run against Hazelcast 5.4.0 with CP on (test/reference/client-cp.long.ts).
  for (const s of CP_SCENARIOS) it(s.name, () => s.run({ client, address: c.member(0).address, clusterName: 'dev' }), 60_000);

  it('a compareAndSet race between clients has exactly one winner', async () => {
    const clients = [client, await newClient(0), await newClient(1), await newClient(2)];
    const longs = await Promise.all(clients.map((cl) => cl.getCPSubsystem().getAtomicLong('race')));
    const results = await Promise.all(longs.map((al, i) => al.compareAndSet(0, 100 + i)));
    expect(results.filter((r) => r)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await longs[0]!.get()).toNumber()).toBe(100 + winner);
  });

  it('the first CP members use their member uuids as CP member uuids (REST)', async () => {
    const cpMembers = await c.json<{ uuid: string; address: string }[]>(0, '/hazelcast/rest/cp-subsystem/members');
    const cluster = await c.json<{ members: { uuid: string; address: string }[] }>(0, '/hazelcast/rest/cluster');
    // The CP view writes addresses as Hazelcast does ([host]:port): compared without the brackets.
    const plain = (a: string): string => a.replace(/^\[(.*)\]:/, '$1:');
    expect(cpMembers.map((m) => `${plain(m.address)} ${m.uuid}`).sort()).toEqual(cluster.members.map((m) => `${m.address} ${m.uuid}`).sort());
    expect(cpMembers).toHaveLength(3);
  });

  it('a map whose split-brain-protection-ref names no rule: the members started, warned, and refuse its operations', async () => {
    for (const i of [0, 1, 2]) {
      expect(c.member(i).logMessages().some((l) => l.includes('map "orphan"') && l.includes('"no-such-rule"'))).toBe(true);
    }
    const r = await c.http(0, 'POST', '/hazelcast/rest/maps/orphan/k', 'v', { contentType: 'text/plain' });
    expect(r.status).toBe(503);
    expect(String(r.headers['x-grid-error'] ?? r.body)).toMatch(/no-such-rule/);
    const m = await client.getMap<string, string>('orphan');
    const refused = await m.set('k', 'v').then(() => undefined, (e: Error) => e);
    expect(refused?.constructor.name).toBe('SplitBrainProtectionError');
    expect(refused?.message).toMatch(/'no-such-rule' for map 'orphan' is not defined/);
    // Other maps are not affected.
    const ok = await client.getMap<string, string>('not-orphan');
    await ok.set('k', 'v');
    expect(await ok.get('k')).toBe('v');
  });

  it('increments across a SIGKILL of the CP leader: every acknowledged one counted once', async () => {
    const leaderAddress = async (): Promise<string | undefined> => {
      const s = await c.json<{ groups: { name: string; role: string }[] }>(0, '/grid/rest/cp');
      if (s.groups.some((g) => g.name === 'default' && g.role === 'leader')) return c.member(0).address;
      for (const i of [1, 2]) {
        const t = await c.json<{ groups: { name: string; role: string }[] }>(i, '/grid/rest/cp');
        if (t.groups.some((g) => g.name === 'default' && g.role === 'leader')) return c.member(i).address;
      }
      return undefined;
    };
    const first = await client.getCPSubsystem().getAtomicLong('kill-counter');
    expect((await first.incrementAndGet()).toNumber()).toBe(1);
    let leader: string | undefined;
    await pollUntil(leaderAddress, (a) => {
      leader = a;
      return a !== undefined;
    }, { timeoutMs: 20_000, intervalMs: 100, what: 'the default group leader' });
    const leaderIndex = c.members.findIndex((m) => m.address === leader);
    const through = [0, 1, 2].find((i) => i !== leaderIndex)!;
    const cl = await newClient(through);
    const al = await cl.getCPSubsystem().getAtomicLong('kill-counter');
    // Four callers at once, so that calls are in flight at the leader when it dies.
    let acked = 1;
    const failures: string[] = [];
    let kill: Promise<void> | undefined;
    const deadline = Date.now() + 60_000;
    const worker = async (): Promise<void> => {
      while ((kill === undefined || acked < 160) && Date.now() < deadline) {
        if (acked >= 40 && kill === undefined) kill = c.kill(leaderIndex);
        try {
          await al.incrementAndGet();
          acked++;
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(kill).toBeDefined();
    await kill;
    expect(failures).toEqual([]);
    expect((await al.get()).toNumber()).toBe(acked);
  }, 90_000);
});
