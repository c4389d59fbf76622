// kill -9 of one of 3 members (backup-count 1) under a steady write load through a survivor:
// every acknowledged write survives on every surviving member, the load keeps succeeding, and
// the cluster is safe again (backups re-created) within a bound. Once with an ordinary
// member as the victim, once with the master.

import { describe, expect, it } from 'vitest';
import { findMissing, startCluster, startWriteLoad, successRatio, type ClusterMember } from '../support/cluster.js';

/** From the kill until the 2 survivors agree and report a safe cluster. */
const RECOVERY_DEADLINE_MS = 30_000;

async function killUnderLoad(victimRole: 'master' | 'member'): Promise<void> {
  const c = await startCluster({ size: 3 });
  const list = await c.waitForMembers(3);
  const master = c.byUuid(list[0]!.uuid);
  const victim = victimRole === 'master' ? master : c.byUuid(list[2]!.uuid);
  const survivors = c.members.filter((m) => m !== victim);
  // Load through a survivor; when the master is the victim, through a non-master.
  const through: ClusterMember = victimRole === 'master' ? c.byUuid(list[1]!.uuid) : master;
  const map = `failover-${victimRole}`;

  const load = startWriteLoad(c, { through: through.index, map, concurrency: 8 });
  await load.waitForAcks(300);
  const killedAt = load.now();
  await c.kill(victim.index);

  const deadline = Date.now() + RECOVERY_DEADLINE_MS;
  const after = await c.waitForMembers(2, undefined, deadline - Date.now());
  await c.waitSafe(Math.max(1, deadline - Date.now()));
  const safeAt = load.now();
  // The survivors keep their relative join order; the oldest survivor is the master now.
  expect(after.map((m) => m.uuid)).toEqual(list.filter((m) => m.uuid !== victim.uuid).map((m) => m.uuid));
  await load.waitForAcks(500);
  await load.stop();

  // Every partition has an owner and a backup, both survivors, on every survivor's table.
  const survivorUuids = survivors.map((m) => m.uuid);
  const tables = await Promise.all(survivors.map((m) => c.partitions(m.index)));
  for (const t of tables) {
    expect(t.migrationQueueSize).toBe(0);
    expect(t.partitions).toEqual(tables[0]!.partitions);
    for (const [id, replicas] of t.partitions.entries()) {
      expect(replicas.slice(0, 2), `partition ${id}`).toHaveLength(2);
      expect(survivorUuids, `owner of partition ${id}`).toContain(replicas[0]);
      expect(survivorUuids, `backup of partition ${id}`).toContain(replicas[1]);
      expect(replicas[0], `partition ${id}`).not.toBe(replicas[1]);
    }
  }

  // Nothing acknowledged is lost, through either survivor.
  for (const m of survivors) expect(await findMissing(c, m.index, map, load.acked), `through member ${m.index}`).toEqual([]);

  // The load kept succeeding: most writes after the kill answered 200 (some 503s or timeouts
  // while the member's death is noticed are allowed), and once safe again essentially all.
  const context = `statuses after the kill ${JSON.stringify(load.statusCounts(killedAt))}, after safe ${JSON.stringify(load.statusCounts(safeAt))}`;
  expect(successRatio(load, killedAt), context).toBeGreaterThanOrEqual(0.8);
  expect(successRatio(load, safeAt), context).toBeGreaterThanOrEqual(0.99);
}

describe('kill -9 under write load (3 members, backup-count 1)', () => {
  it('loses no acknowledged write when an ordinary member dies', () => killUnderLoad('member'), 60_000);
  it('loses no acknowledged write when the master dies', () => killUnderLoad('master'), 60_000);
});
