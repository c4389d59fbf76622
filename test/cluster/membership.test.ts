// Members leaving gracefully and joining under a write load.

import { describe, expect, it } from 'vitest';
import { findMissing, startCluster, startWriteLoad, successRatio } from '../support/cluster.js';

describe('membership changes under write load', () => {
  it('hands everything to the last member when 2 of 3 shut down gracefully (SIGTERM) one after the other', async () => {
    const c = await startCluster({ size: 3 });
    const load = startWriteLoad(c, { through: 0, map: 'graceful' });
    await load.waitForAcks(200);

    expect(await c.stop(2)).toEqual({ code: 0, signal: null });
    await c.waitForMembers(2);
    await c.waitSafe();
    await load.waitForAcks(200);

    expect(await c.stop(1)).toEqual({ code: 0, signal: null });
    const last = await c.waitForMembers(1);
    await c.waitSafe();
    await load.waitForAcks(200);
    await load.stop();

    expect(last.map((m) => m.uuid)).toEqual([c.member(0).uuid]);
    const info = await c.clusterInfo(0);
    expect(info.members).toHaveLength(1);
    expect(info.members[0]).toMatchObject({ uuid: c.member(0).uuid, localMember: true });
    expect(await findMissing(c, 0, 'graceful', load.acked)).toEqual([]);
    // A graceful leave hands partitions over: writes should hardly notice.
    expect(successRatio(load), JSON.stringify(load.statusCounts())).toBeGreaterThanOrEqual(0.9);
  }, 90_000);

  it('gives a 4th member about a quarter of the partitions and loses nothing', async () => {
    const c = await startCluster({ size: 3 });
    const load = startWriteLoad(c, { through: 0, map: 'join' });
    await load.waitForAcks(200);

    const newcomer = await c.addMember();
    const list = await c.waitForMembers(4);
    expect(list[3]?.uuid, 'the newcomer is the youngest member').toBe(newcomer.uuid);
    await c.waitSafe();
    await load.waitForAcks(300);
    await load.stop();

    const tables = await Promise.all(c.members.map((m) => c.partitions(m.index)));
    for (const t of tables) {
      expect(t.partitions).toEqual(tables[0]!.partitions);
      expect(t.members.reduce((a, m) => a + m.owned, 0)).toBe(271);
      const mine = t.members.find((m) => m.uuid === newcomer.uuid);
      expect(mine?.owned, JSON.stringify(t.members)).toBeGreaterThanOrEqual(60);
      expect(mine?.owned, JSON.stringify(t.members)).toBeLessThanOrEqual(76);
    }
    for (const m of c.members) expect(await findMissing(c, m.index, 'join', load.acked), `through member ${m.index}`).toEqual([]);
    expect(successRatio(load), JSON.stringify(load.statusCounts())).toBeGreaterThanOrEqual(0.9);
  }, 90_000);
});
