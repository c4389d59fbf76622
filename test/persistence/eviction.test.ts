// Evictions are persisted as removes: a member with a persisted map bounded PER_PARTITION is
// killed (kill -9) after many more puts than the bound, and started again from its directory:
// it holds exactly the entries it held before (no evicted entry comes back from the log).

import { describe, expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { killAllAtOnce, launchMembers, persistentCluster, restartAll } from '../support/persistence.js';

const MAP = 'persisted-evict';

describe('persistence: evictions', () => {
  it('a restarted member holds what it held before the kill -9, not the entries it evicted', async () => {
    const pc = await persistentCluster({
      size: 1,
      extra: { map: { 'persisted-evict*': { 'backup-count': 0, 'data-persistence': { enabled: true }, eviction: { 'eviction-policy': 'LFU', 'max-size-policy': 'PER_PARTITION', size: 2 } } } },
    });
    const c = pc.c;
    await launchMembers(pc, 1);
    const keys = Array.from({ length: 1500 }, (_, i) => `k${i}`);
    for (let j = 0; j < keys.length; j += 50) {
      const rs = await Promise.all(keys.slice(j, j + 50).map((k) => c.http(0, 'POST', `/hazelcast/rest/maps/${MAP}/${k}`, `v-${k}`)));
      for (const r of rs) expect(r.status).toBe(200);
    }
    const held = async (): Promise<string[]> => {
      const out: string[] = [];
      for (let j = 0; j < keys.length; j += 50) {
        const batch = keys.slice(j, j + 50);
        const rs = await Promise.all(batch.map((k) => c.http(0, 'GET', `/hazelcast/rest/maps/${MAP}/${k}`)));
        rs.forEach((r, n) => r.status === 200 && out.push(batch[n]!));
      }
      return out.sort();
    };
    const before = await held();
    const perPartition = new Map<number, number>();
    for (const k of before) perPartition.set(partitionIdOf(k), (perPartition.get(partitionIdOf(k)) ?? 0) + 1);
    expect(Math.max(...perPartition.values())).toBe(2);
    expect(before.length).toBeLessThan(keys.length / 2);

    await killAllAtOnce(pc, [0]);
    await restartAll(pc, [0]);
    await c.waitUp(0);
    await c.waitSafe(30_000, 1);
    expect(await held()).toEqual(before);
  }, 90_000);
});
