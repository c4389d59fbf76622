// Data through any member: map entries and queue items written through one member of a real
// 3-member cluster are served by the others; a lite member joins without owning partitions
// and still serves the data.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';

const KEYS = Array.from({ length: 60 }, (_, n) => `key-${n}`);

async function expectStatus(c: Cluster, i: number, method: string, path: string, body: string | undefined, status: number): Promise<void> {
  const res = await c.http(i, method, path, body);
  expect(res.status, `${method} ${path} through member ${i}: ${res.body}`).toBe(status);
}

describe('a cluster of 3', () => {
  it('serves map entries and queue items written through one member from every other member', async () => {
    const c = await startCluster({ size: 3 });
    const list = await c.waitForMembers(3);
    expect(new Set(list.map((m) => m.uuid))).toEqual(new Set(c.members.map((m) => m.uuid)));

    // Maps: each key written through one member, read through every member.
    for (const [n, key] of KEYS.entries()) {
      await expectStatus(c, n % 3, 'POST', `/hazelcast/rest/maps/shared/${key}`, `value-${n}`, 200);
    }
    for (const m of c.members) {
      for (const [n, key] of KEYS.entries()) {
        const res = await c.http(m.index, 'GET', `/hazelcast/rest/maps/shared/${key}`);
        expect({ key, status: res.status, body: res.body }).toEqual({ key, status: 200, body: `value-${n}` });
      }
      expect((await c.http(m.index, 'GET', '/hazelcast/rest/maps/shared/absent')).status).toBe(204);
      // The same entries under the /grid/ prefix.
      expect((await c.http(m.index, 'GET', '/grid/rest/maps/shared/key-7')).body).toBe('value-7');
    }

    // Queues: items offered in turn through each member come out in order, polled in turn
    // through each member.
    const items = Array.from({ length: 12 }, (_, n) => `item-${n}`);
    for (const [n, item] of items.entries()) await expectStatus(c, n % 3, 'POST', '/hazelcast/rest/queues/jobs', item, 200);
    for (const m of c.members) expect((await c.http(m.index, 'GET', '/hazelcast/rest/queues/jobs/size')).body).toBe('12');
    const polled: string[] = [];
    for (const n of items.keys()) {
      const res = await c.http((n + 1) % 3, 'GET', '/hazelcast/rest/queues/jobs/0');
      expect(res.status).toBe(200);
      polled.push(res.body);
    }
    expect(polled).toEqual(items);
    expect((await c.http(2, 'GET', '/hazelcast/rest/queues/jobs/0')).status).toBe(204);
  }, 60_000);
});

describe('a lite member', () => {
  it('joins, owns no partition replica, and serves map reads and writes', async () => {
    const c = await startCluster({ size: 3, lite: [2] });
    const lite = c.member(2);
    const list = await c.waitForMembers(3);
    expect(list.map((m) => [m.uuid, m.liteMember])).toEqual(
      list.map((m) => [m.uuid, m.uuid === lite.uuid]),
    );

    for (const m of c.members) {
      const p = await c.partitions(m.index);
      expect(p.partitionCount).toBe(271);
      expect(p.partitions).toHaveLength(271);
      const liteEntry = p.members.find((x) => x.uuid === lite.uuid);
      if (liteEntry !== undefined) expect(liteEntry).toMatchObject({ owned: 0, backups: 0 });
      expect(p.members.filter((x) => x.uuid !== lite.uuid).reduce((a, x) => a + x.owned, 0)).toBe(271);
      for (const [id, replicas] of p.partitions.entries()) {
        expect(replicas, `partition ${id}`).not.toContain(lite.uuid);
        expect([c.member(0).uuid, c.member(1).uuid], `owner of partition ${id}`).toContain(replicas[0]);
      }
    }

    // Writes through the lite member, reads through it and the data members; and back.
    for (const n of Array.from({ length: 30 }, (_, k) => k)) {
      await expectStatus(c, 2, 'POST', `/hazelcast/rest/maps/via-lite/k${n}`, `lite-${n}`, 200);
      await expectStatus(c, 0, 'POST', `/hazelcast/rest/maps/via-data/k${n}`, `data-${n}`, 200);
    }
    for (const i of [0, 1, 2]) {
      for (const n of Array.from({ length: 30 }, (_, k) => k)) {
        expect((await c.http(i, 'GET', `/hazelcast/rest/maps/via-lite/k${n}`)).body).toBe(`lite-${n}`);
        expect((await c.http(i, 'GET', `/hazelcast/rest/maps/via-data/k${n}`)).body).toBe(`data-${n}`);
      }
    }
  }, 60_000);
});
