// The member-side data of the web console through real members: GET /grid/rest/members
// (every member's own figures over the member protocol, with a deadline), the metrics history
// (GET /grid/rest/metrics/history) and the operation rates of the maps and queues listings; one
// 3-member cluster shared by the file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import type { HistoryReport, MembersReport } from '../../src/rest/context.js';
import { HISTORY_SERIES } from '../../src/member/metrics-sampler.js';
import { waitFor } from '../support/wait.js';

interface MapsListing {
  maps: { name: string; size: number; getsPerSecond: number; putsPerSecond: number; removesPerSecond: number }[];
  rates: { members: number; unreachable: string[] };
}
interface QueuesListing {
  queues: { name: string; size: number; offersPerSecond: number; pollsPerSecond: number }[];
  rates: { members: number; unreachable: string[] };
}

/**
 * Runs `step` over and over (a bounded load: at most `max` runs) until `probe` holds; the load
 * keeps going while the probe polls, so rates measured over a second see it.
 */
async function underLoad<T>(what: string, step: (n: number) => Promise<unknown>, probe: () => Promise<T | undefined | false>, max = 20_000): Promise<T> {
  let done = false;
  let n = 0;
  // Four requests at a time: a loaded machine's round trips do not hold the rate down.
  const load = Promise.all(
    Array.from({ length: 4 }, async () => {
      while (!done && n < max) await step(n++);
    }),
  );
  try {
    return await waitFor(what, probe, 30_000, 200);
  } finally {
    done = true;
    await load;
  }
}

let c: Cluster;

beforeAll(async () => {
  c = await startCluster({ size: 3, scope: 'file' });
}, 120_000);

afterAll(async () => {
  await c?.destroy();
});

describe('GET /grid/rest/members', () => {
  it('lists the 3 members, each with its own figures; partitions owned sum to 271 and backups to 271', async () => {
    const list = await c.waitForMembers(3);
    await c.waitSafe();
    for (const asking of [0, 2]) {
      const r = await c.json<MembersReport>(asking, '/grid/rest/members');
      expect(r.clusterState).toBe('ACTIVE');
      expect(r.members.map((m) => m.uuid)).toEqual(list.map((m) => m.uuid));
      expect(r.members.filter((m) => m.master).map((m) => m.uuid)).toEqual([list[0]!.uuid]);
      expect(r.members.filter((m) => m.local).map((m) => m.address)).toEqual([c.member(asking).address]);
      let owned = 0;
      let backups = 0;
      for (const m of r.members) {
        expect(m.reachable, m.error).toBe(true);
        const f = m.figures!;
        expect(f.state).toBe('ACTIVE');
        expect(f.heapUsedBytes).toBeGreaterThan(0);
        expect(f.heapTotalBytes).toBeGreaterThanOrEqual(f.heapUsedBytes);
        expect(f.rssBytes).toBeGreaterThan(0);
        expect(f.memoryLimitBytes).toBeGreaterThan(0);
        expect(f.uptimeMs).toBeGreaterThan(0);
        expect(f.startTime).toBeLessThanOrEqual(Date.now());
        expect(f.memberConnections).toBeGreaterThan(0);
        expect(f.loadAverage).toHaveLength(3);
        expect(f.cpMember).toBe(false);
        owned += f.partitionsOwned;
        backups += f.backupsHeld;
      }
      // One backup per partition by default: 271 owners and 271 backups over the three members.
      expect(owned).toBe(271);
      expect(backups).toBe(271);
    }
    // The asking member's own REST connection is counted by it.
    const me = (await c.json<MembersReport>(1, '/grid/rest/members')).members.find((m) => m.local)!;
    expect(me.figures!.restConnections).toBeGreaterThan(0);
  }, 60_000);

  it('lists a SIGSTOPped member as unreachable within the deadline, and the request does not hang', async () => {
    await c.waitSafe();
    const victim = c.member(2);
    c.pause(2);
    try {
      const started = Date.now();
      const r = await c.json<MembersReport>(0, '/grid/rest/members?timeoutMs=700');
      const took = Date.now() - started;
      expect(r.timeoutMs).toBe(700);
      const v = r.members.find((m) => m.address === victim.address)!;
      expect(v.reachable).toBe(false);
      expect(v.error).toMatch(/no answer in time/);
      expect(v.figures).toBeUndefined();
      expect(r.members.filter((m) => m.reachable)).toHaveLength(2);
      // The deadline bounds the wait (with room for a loaded machine), far below the member's removal (5 s).
      expect(took).toBeLessThan(3_000);
    } finally {
      c.resume(2);
    }
    // Back: reachable again (it was paused for less than the heartbeat deadline).
    const back = await c.json<MembersReport>(1, '/grid/rest/members');
    expect(back.members.every((m) => m.reachable)).toBe(true);
  }, 60_000);

  it('refuses a bad timeoutMs and unknown parameters with a 400, and is not served under /hazelcast/', async () => {
    for (const q of ['timeoutMs=0', 'timeoutMs=abc', 'timeoutMs=30001', 'x=1']) {
      const r = await c.http(0, 'GET', `/grid/rest/members?${q}`);
      expect(r.status, q).toBe(400);
    }
    expect((await c.http(0, 'GET', '/hazelcast/rest/members')).status).toBe(400);
  });
});

describe('GET /grid/rest/metrics/history', () => {
  it("fills with every member's samples, as columns, and its request rate moves under load", async () => {
    const list = await c.waitForMembers(3);
    // Every member has at least three samples (one a second).
    const first = await waitFor(
      'three samples on every member',
      async () => {
        const h = await c.json<HistoryReport>(0, '/grid/rest/metrics/history?seconds=10');
        return h.members.length === 3 && h.members.every((m) => m.reachable && m.history!.times.length >= 3) && h;
      },
      20_000,
      250,
    );
    expect(first.members.map((m) => m.uuid)).toEqual(list.map((m) => m.uuid));
    for (const m of first.members) {
      const h = m.history!;
      expect(h.intervalMs).toBe(1000);
      expect(h.times.length).toBeLessThanOrEqual(10);
      expect(Object.keys(h.series).sort()).toEqual([...HISTORY_SERIES].sort());
      for (const values of Object.values(h.series)) expect(values).toHaveLength(h.times.length);
      expect(h.series.heapUsedBytes!.at(-1)).toBeGreaterThan(0);
      expect(h.series.rssBytes!.at(-1)).toBeGreaterThan(0);
      for (let i = 1; i < h.times.length; i++) expect(h.times[i]!).toBeGreaterThan(h.times[i - 1]!);
    }

    // Load on member 1 only: its REST rate rises well above idle, with a latency; the others' stay low.
    const target = c.member(1).uuid!;
    const peak = await underLoad(
      'the REST rate of member 1 to show the load',
      (n) => c.http(1, 'POST', `/hazelcast/rest/maps/history-load/k${n % 100}`, 'v'),
      async () => {
        const h = await c.json<HistoryReport>(0, `/grid/rest/metrics/history?seconds=5&member=${target}`);
        expect(h.members.map((m) => m.uuid)).toEqual([target]);
        const s = h.members[0]!.history!.series;
        const best = Math.max(...s.restRequestsPerSecond!.map((v) => v ?? 0));
        // Idle, member 1 answers no REST request at all (the probe asks member 0).
        return best >= 10 && { rate: best, p99: s.restLatencyP99Ms!.filter((v) => v !== null).at(-1) };
      },
    );
    expect(peak.rate).toBeGreaterThanOrEqual(10);
    expect(peak.p99).toBeGreaterThan(0);
  }, 60_000);

  it('refuses an unknown member (404) and bad parameters (400)', async () => {
    expect((await c.http(0, 'GET', '/grid/rest/metrics/history?member=no-such-member')).status).toBe(404);
    for (const q of ['seconds=0', 'seconds=601', 'seconds=x', 'member=', 'timeoutMs=0', 'other=1']) {
      expect((await c.http(0, 'GET', `/grid/rest/metrics/history?${q}`)).status, q).toBe(400);
    }
  });
});

describe('operation rates in the maps and queues listings', () => {
  it('per-map gets, puts and removes per second move under load, summed over the members', async () => {
    const found = await underLoad(
      'the rates of map rated to show the load',
      async (n) => {
        const m = n % 3;
        await c.http(m, 'POST', `/hazelcast/rest/maps/rated/k${n % 50}`, 'v');
        await c.http(m, 'GET', `/hazelcast/rest/maps/rated/k${n % 50}`);
        if (n % 2 === 0) await c.http(m, 'DELETE', `/hazelcast/rest/maps/rated/k${(n + 25) % 50}`);
      },
      async () => {
        const l = await c.json<MapsListing>(0, '/grid/rest/maps');
        const e = l.maps.find((m) => m.name === 'rated');
        return e !== undefined && e.putsPerSecond > 0 && e.getsPerSecond > 0 && e.removesPerSecond > 0 && { e, l };
      },
    );
    expect(found.l.rates).toEqual({ members: 3, unreachable: [] });
    expect(found.e.size).toBeGreaterThan(0);
    // A map without traffic lists zero rates once the load is over (the last second saw nothing).
    await waitFor(
      'the rates of map rated to fall back to zero',
      async () => {
        const e = (await c.json<MapsListing>(2, '/grid/rest/maps')).maps.find((m) => m.name === 'rated');
        return e !== undefined && e.putsPerSecond === 0 && e.getsPerSecond === 0;
      },
      10_000,
      250,
    );
  }, 60_000);

  it('per-queue offers and polls per second move under load', async () => {
    const found = await underLoad(
      'the rates of queue rated-q to show the load',
      async (n) => {
        await c.http(n % 3, 'POST', '/hazelcast/rest/queues/rated-q', `i${n}`);
        if (n % 2 === 0) await c.http((n + 1) % 3, 'GET', '/hazelcast/rest/queues/rated-q/0');
      },
      async () => {
        const l = await c.json<QueuesListing>(1, '/grid/rest/queues');
        const e = l.queues.find((q) => q.name === 'rated-q');
        return e !== undefined && e.offersPerSecond > 0 && e.pollsPerSecond > 0 && { e, l };
      },
    );
    expect(found.l.rates.members).toBe(3);
    expect(found.e.size).toBeGreaterThan(0);
  }, 60_000);
});

describe('migrations and safety in GET /grid/rest/partitions', () => {
  // Last in the file: it grows the shared cluster to four members.
  it("shows the master's migration figures on every member, and the migrations a join caused", async () => {
    await c.waitSafe();
    const master = await c.masterIndex(0);
    const other = [0, 1, 2].find((i) => i !== master)!;
    const before = await c.partitions(other);
    const m0 = (before as unknown as { migrations: Record<string, unknown> }).migrations;
    expect(m0).toMatchObject({ from: 'master', master: true, queued: 0, inFlight: 0, running: [], blockedPartitions: 0, partitionsWithoutOwner: 0, partitionsMissingReplicas: 0 });
    expect((before as unknown as { clusterState: string }).clusterState).toBe('ACTIVE');
    await c.addMember();
    await c.waitSafe(60_000, 4);
    const after = (await c.partitions(other)) as unknown as { migrations: { from: string; completed: number; queued: number; partitionsMissingReplicas: number }; clusterSafe: boolean };
    expect(after.clusterSafe).toBe(true);
    expect(after.migrations.from).toBe('master');
    expect(after.migrations.queued).toBe(0);
    expect(after.migrations.partitionsMissingReplicas).toBe(0);
    // The join moved partitions to the new member: the master committed migrations for it.
    expect(after.migrations.completed).toBeGreaterThan(m0.completed as number);
    const members = await c.json<MembersReport>(3, '/grid/rest/members');
    expect(members.members).toHaveLength(4);
    expect(members.members.reduce((n, m) => n + m.figures!.partitionsOwned, 0)).toBe(271);
    expect(members.members.reduce((n, m) => n + m.figures!.backupsHeld, 0)).toBe(271);
  }, 120_000);
});
