// Cluster states decide what the partition table may do when a member dies: NO_MIGRATION
// promotes backups but re-creates none until the cluster is ACTIVE again; FROZEN changes
// nothing, so the dead member's partitions answer 503 at once (not after the call timeout)
// until the cluster is ACTIVE again, when they are promoted and nothing is lost.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

async function changeState(c: Cluster, i: number, state: string): Promise<void> {
  const res = await c.management(i, 'changeState', `${c.clusterName}&&${state}`);
  expect(JSON.parse(res.body)).toEqual({ status: 'success', state });
}

/** A key whose partition member `i` owns, per the table of member 0. */
async function keyOwnedBy(c: Cluster, i: number, prefix: string): Promise<string> {
  const t = await c.partitions(0);
  for (let n = 0; n < 10_000; n++) if (t.partitions[partitionIdOf(`${prefix}-${n}`)]?.[0] === c.member(i).uuid) return `${prefix}-${n}`;
  throw new Error(`member ${i} owns no partition of ${prefix}-*`);
}

it('NO_MIGRATION promotes backups when a member dies but re-creates them only once ACTIVE', async () => {
  const c = await startCluster({ size: 3 });
  await c.waitForMembers(3);
  await c.waitSafe();
  const key = await keyOwnedBy(c, 1, 'nm');
  expect((await c.http(0, 'POST', `/hazelcast/rest/maps/m/${key}`, 'kept')).status).toBe(200);
  await changeState(c, 2, 'no_migration');
  await c.kill(1);
  await c.waitForMembers(2);
  // Promoted: every partition has an owner among the survivors, but only one replica where the dead member held one.
  const t = await waitFor('promotion', async () => {
    const p = await c.partitions(0);
    return p.partitions.every((row) => row.length > 0 && !row.includes(c.member(1).uuid!)) ? p : undefined;
  }, 15_000);
  expect(t.partitions.some((row) => row.length === 1)).toBe(true);
  expect(t.clusterSafe).toBe(false);
  expect((await c.http(2, 'GET', `/hazelcast/rest/maps/m/${key}`)).body).toBe('kept');
  await changeState(c, 0, 'active');
  await c.waitSafe();
  expect((await c.partitions(2)).partitions.every((row) => row.length === 2)).toBe(true);
}, 60_000);

it('FROZEN keeps the table: the dead member’s partitions answer 503 at once, and are served again after ACTIVE', async () => {
  const c = await startCluster({ size: 3 });
  await c.waitForMembers(3);
  await c.waitSafe();
  const key = await keyOwnedBy(c, 1, 'fz');
  expect((await c.http(0, 'POST', `/hazelcast/rest/maps/m/${key}`, 'kept')).status).toBe(200);
  await changeState(c, 0, 'frozen');
  const before = (await c.partitions(0)).partitions;
  await c.kill(1);
  await c.waitForMembers(2);
  const started = Date.now();
  const res = await c.http(2, 'GET', `/hazelcast/rest/maps/m/${key}`);
  expect(res.status).toBe(503);
  expect(res.headers['x-grid-error']).toMatch(/FROZEN/);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect((await c.partitions(0)).partitions).toEqual(before);
  await changeState(c, 0, 'active');
  await c.waitSafe();
  expect((await c.http(2, 'GET', `/hazelcast/rest/maps/m/${key}`)).body).toBe('kept');
}, 60_000);
