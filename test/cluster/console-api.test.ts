// The member-side data of the web console through real members: GET /grid/rest/members
// (every member's own figures over the member protocol, with a deadline), one 3-member cluster
// shared by the file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import type { MembersReport } from '../../src/rest/context.js';

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
