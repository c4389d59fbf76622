// What backup-count and async-backup-count buy when an owner is killed: entries of a map with
// one async backup survive (the backup was sent as the write was applied, before the answer),
// entries of a map with no backup that lived on the killed member are gone. The second half
// is the control that shows the first half is not an accident of where keys happened to be.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster } from '../support/cluster.js';

it('async backups keep entries through a kill -9; no backups lose the killed owner’s entries', async () => {
  const c = await startCluster({
    size: 3,
    config: () => ({
      map: {
        'async-*': { 'backup-count': 0, 'async-backup-count': 1 },
        'none-*': { 'backup-count': 0, 'async-backup-count': 0 },
      },
    }),
  });
  await c.waitForMembers(3);
  await c.waitSafe();
  const table = await c.partitions(0);
  expect(table.replicaCount).toBe(2);
  const victim = c.member(1);
  const keys = Array.from({ length: 120 }, (_, n) => `key-${n}`);
  for (const k of keys) {
    expect((await c.http(0, 'POST', `/hazelcast/rest/maps/async-m/${k}`, `a-${k}`)).status).toBe(200);
    expect((await c.http(0, 'POST', `/hazelcast/rest/maps/none-m/${k}`, `n-${k}`)).status).toBe(200);
  }
  const onVictim = keys.filter((k) => table.partitions[partitionIdOf(k)]?.[0] === victim.uuid);
  expect(onVictim.length).toBeGreaterThan(10);

  await c.kill(victim.index);
  await c.waitForMembers(2);
  await c.waitSafe();
  for (const k of keys) {
    const a = await c.http(2, 'GET', `/hazelcast/rest/maps/async-m/${k}`);
    expect({ k, status: a.status, body: a.body }).toEqual({ k, status: 200, body: `a-${k}` });
    const n = await c.http(2, 'GET', `/hazelcast/rest/maps/none-m/${k}`);
    expect({ k, status: n.status }).toEqual({ k, status: onVictim.includes(k) ? 204 : 200 });
  }
}, 60_000);
