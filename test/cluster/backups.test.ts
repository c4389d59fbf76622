// What backup-count and async-backup-count buy when an owner is killed: entries of a map with
// one async backup survive (the backup was sent as the write was applied, before the answer),
// entries of a map with no backup that lived on the killed member are gone. The second half
// is the control that shows the first half is not an accident of where keys happened to be.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

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

it('with backup-count 2 a write waits for both backups, whichever one is slow; the member left after two kill -9 holds every acknowledged write', async () => {
  const c = await startCluster({
    size: 3,
    properties: { 'hazelcast.operation.backup.timeout.millis': 1000 },
    config: () => ({ map: { 'two-*': { 'backup-count': 2 } } }),
  });
  const table = await c.partitions(0);
  expect(table.replicaCount).toBe(3);
  const [m0, m1, m2] = [0, 1, 2].map((i) => c.member(i).uuid);
  // Keys owned by member 0 with the paused member 2 as first backup, and as second backup.
  const placed = (first: string | undefined, second: string | undefined, prefix: string): string[] => {
    const out: string[] = [];
    for (let i = 0; out.length < 2; i++) {
      const row = table.partitions[partitionIdOf(`${prefix}${i}`)]!;
      if (row[0] === m0 && row[1] === first && row[2] === second) out.push(`${prefix}${i}`);
    }
    return out;
  };
  const slowFirst = placed(m2, m1, 'first-');
  const slowSecond = placed(m1, m2, 'second-');
  const steady = Array.from({ length: 60 }, (_, n) => `steady-${n}`);
  for (const k of steady) expect((await c.http(n(k) % 3, 'POST', `/hazelcast/rest/maps/two-m/${k}`, `v-${k}`)).status).toBe(200);

  c.pause(2);
  try {
    for (const k of [...slowFirst, ...slowSecond]) {
      const t0 = performance.now();
      const res = await c.http(0, 'POST', `/hazelcast/rest/maps/two-m/${k}`, `v-${k}`);
      const ms = performance.now() - t0;
      expect({ k, status: res.status }).toEqual({ k, status: 200 });
      // The answer waited for the paused backup's ack until the backup timeout, not just for the other one.
      expect(ms, `${k} answered after ${Math.round(ms)} ms`).toBeGreaterThanOrEqual(900);
    }
  } finally {
    c.resume(2);
  }
  const written = [...steady, ...slowFirst, ...slowSecond];
  // Member 2, resumed, applies the backups that waited in its socket: then it alone holds everything.
  await waitFor('member 2 to hold every backup', async () => {
    const res = await c.http(2, 'GET', '/metrics');
    return /grid_map_backup_entries\{map="two-m"\} (\d+)/.exec(res.body)?.[1] === String(written.filter((k) => table.partitions[partitionIdOf(k)]![0] !== m2).length);
  }, 15_000, 100);
  await Promise.all([c.kill(0), c.kill(1)]);
  await c.waitForMembers(1, undefined, 30_000, [2]);
  for (const k of written) {
    const res = await c.http(2, 'GET', `/hazelcast/rest/maps/two-m/${k}`);
    expect({ k, status: res.status, body: res.body }).toEqual({ k, status: 200, body: `v-${k}` });
  }
}, 90_000);

/** A spread of requesting members for the steady writes. */
function n(key: string): number {
  return Number(key.slice(key.lastIndexOf('-') + 1));
}
