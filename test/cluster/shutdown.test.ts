// Shutdown through REST in a cluster of 3: memberShutdown stops that member gracefully (the
// others keep its data), clusterShutdown stops every member.

import { describe, expect, it } from 'vitest';
import { startCluster, type HttpResponse } from '../support/cluster.js';

/** The body as JSON, or as the raw text when it is not JSON (so a failure shows what came). */
function bodyOf(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    return res.body;
  }
}

describe('shutdown through REST', () => {
  it('memberShutdown stops one member gracefully; clusterShutdown stops every member', async () => {
    const c = await startCluster({ size: 3 });
    const keys = Array.from({ length: 30 }, (_, n) => `k${n}`);
    for (const [n, key] of keys.entries()) expect((await c.http(n % 3, 'POST', `/hazelcast/rest/maps/sd/${key}`, `v${n}`)).status).toBe(200);

    const res = await c.management(2, 'memberShutdown');
    expect({ status: res.status, body: bodyOf(res) }).toEqual({ status: 200, body: { status: 'success' } });
    expect(await c.waitExit(2)).toEqual({ code: 0, signal: null });
    const left = await c.waitForMembers(2);
    expect(left.map((m) => m.uuid).sort()).toEqual([c.member(0).uuid, c.member(1).uuid].sort());
    await c.waitSafe();
    for (const i of [0, 1]) {
      for (const [n, key] of keys.entries()) expect((await c.http(i, 'GET', `/hazelcast/rest/maps/sd/${key}`)).body).toBe(`v${n}`);
    }

    const all = await c.management(0, 'clusterShutdown');
    expect({ status: all.status, body: bodyOf(all) }).toEqual({ status: 200, body: { status: 'success' } });
    const exits = await Promise.all([0, 1].map((i) => c.waitExit(i, 30_000)));
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  }, 90_000);

  it('clusterShutdown asked through a member that is not the master stops every member (4 members, 3 rounds)', async () => {
    // The asking member leaves too: the others must take its shutdown before the master drops it from the list.
    for (let round = 0; round < 3; round++) {
      const c = await startCluster({ size: 4 });
      const list = await c.waitForMembers(4);
      const asker = c.byUuid(list[3]!.uuid).index;
      const res = await c.management(asker, 'clusterShutdown');
      expect(res.status).toBe(200);
      const exits = await Promise.all([0, 1, 2, 3].map((i) => c.waitExit(i, 30_000)));
      expect(exits, `round ${round}`).toEqual([0, 1, 2, 3].map(() => ({ code: 0, signal: null })));
      await c.destroy();
    }
  }, 120_000);

  it('every member stopped at once (SIGTERM to all, as docker compose down does) exits promptly, not after the failure detector (60 s here)', async () => {
    const c = await startCluster({ size: 3, properties: { 'hazelcast.max.no.heartbeat.seconds': 60 } });
    for (let n = 0; n < 30; n++) expect((await c.http(n % 3, 'POST', `/hazelcast/rest/maps/all/k${n}`, `v${n}`)).status).toBe(200);
    const started = Date.now();
    const exits = await Promise.all([0, 1, 2].map((i) => c.stop(i, 40_000)));
    expect(exits).toEqual([0, 1, 2].map(() => ({ code: 0, signal: null })));
    // The leave loop gives up on a master that is gone after 10 s; the detector would take 60 s.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 90_000);
});
