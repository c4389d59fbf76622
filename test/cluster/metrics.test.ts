// Cluster metrics end to end: three member processes, traffic through REST, /metrics of each
// scraped and parsed; membership, mastership, partitions, entries, connections and heartbeat
// ages agree with what /rest/cluster and /rest/partitions say, a paused backup shows as
// backup-ack timeouts (exactly one per write) and a killed owner as retries.

import { expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { parsePrometheus, sampleValue, type Family } from '../support/prometheus.js';
import { waitFor } from '../support/process.js';
import { partitionIdOf } from '../../src/partition/partitioning.js';

async function scrapeMember(c: Cluster, i: number): Promise<Map<string, Family>> {
  const res = await c.http(i, 'GET', '/metrics');
  expect(res.status, `member ${i} /metrics`).toBe(200);
  return parsePrometheus(res.body);
}

const value = (f: Map<string, Family>, name: string, labels: Record<string, string> = {}): number => sampleValue(f, name, labels) ?? NaN;

/** Keys (of `prefix`) whose partition's owner and first backup are the given members. */
function keysPlaced(rows: readonly (readonly (string | null)[])[], owner: string, backup: string | undefined, prefix: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const row = rows[partitionIdOf(`${prefix}${i}`)]!;
    if (row[0] === owner && (backup === undefined || row[1] === backup)) out.push(`${prefix}${i}`);
  }
  return out;
}

it('reports membership, partitions, entries, connections, heartbeat ages, migrations, backup-ack timeouts and retries', async () => {
  const c = await startCluster({ size: 3, properties: { 'hazelcast.operation.backup.timeout.millis': 1000 } });
  const uuids = c.members.map((m) => m.uuid!);
  for (let k = 0; k < 60; k++) expect((await c.http(k % 3, 'POST', `/hazelcast/rest/maps/cm/k${k}`, `v${k}`)).status).toBe(200);

  const scrapes = await Promise.all([0, 1, 2].map((i) => scrapeMember(c, i)));
  const parts = await c.partitions(0);
  const master = await c.masterIndex(0);
  const sum = (name: string, labels: Record<string, string> = {}): number => scrapes.reduce((n, f) => n + value(f, name, labels), 0);
  scrapes.forEach((f, i) => {
    expect(value(f, 'grid_cluster_members'), `member ${i}`).toBe(3);
    expect(value(f, 'grid_cluster_master'), `member ${i}`).toBe(i === master ? 1 : 0);
    expect(value(f, 'grid_cluster_state', { state: 'ACTIVE' })).toBe(1);
    expect(value(f, 'grid_cluster_state', { state: 'FROZEN' })).toBe(0);
    expect(value(f, 'grid_member_state', { state: 'ACTIVE' })).toBe(1);
    const mine = parts.members.find((m) => m.uuid === uuids[i])!;
    expect(value(f, 'grid_partitions_owned'), `member ${i}`).toBe(mine.owned);
    expect(value(f, 'grid_partitions_backup'), `member ${i}`).toBe(mine.backups);
    expect(value(f, 'grid_migrations_in_flight')).toBe(0);
    expect(value(f, 'grid_cluster_safe')).toBe(1);
    expect(value(f, 'grid_member_connections')).toBeGreaterThanOrEqual(2);
    expect(value(f, 'grid_rest_connections')).toBeGreaterThanOrEqual(1);
    // One heartbeat age per other member, labelled with its address, within the allowed silence (5 s).
    const ages = f.get('grid_cluster_heartbeat_age_seconds')!.samples;
    expect(ages.map((s) => s.labels.peer).sort()).toEqual(c.members.filter((m) => m.index !== i).map((m) => m.address).sort());
    for (const s of ages) expect(s.value).toBeLessThan(5);
  });
  expect(sum('grid_partitions_owned')).toBe(271);
  expect(sum('grid_partitions_backup')).toBe(271);
  expect(sum('grid_map_entries', { map: 'cm' })).toBe(60);
  expect(sum('grid_map_backup_entries', { map: 'cm' })).toBe(60);
  expect(sum('grid_map_puts_total', { map: 'cm' })).toBe(60);
  // Partitions moved to the second and third member as they joined, committed by the master.
  expect(value(scrapes[master]!, 'grid_migrations_completed_total')).toBeGreaterThan(0);

  // A paused backup: each write whose sync backup is there answers after the backup timeout, counted once.
  const owner = master === 0 ? 1 : 0;
  const paused = [0, 1, 2].find((i) => i !== owner && i !== master)!;
  const slow = keysPlaced(parts.partitions, uuids[owner]!, uuids[paused], 'slow', 3);
  const before = await scrapeMember(c, owner);
  c.pause(paused);
  try {
    const statuses = await Promise.all(slow.map((k) => c.http(owner, 'POST', `/hazelcast/rest/maps/cm/${k}`, 'x')));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200]);
    const during = await scrapeMember(c, owner);
    expect(value(during, 'grid_operation_backup_timeouts_total') - value(before, 'grid_operation_backup_timeouts_total')).toBe(3);
    expect(value(during, 'grid_cluster_heartbeat_age_seconds', { peer: c.member(paused).address })).toBeGreaterThanOrEqual(0.9);
  } finally {
    c.resume(paused);
  }

  // A killed owner: writes to its partitions are retried until a backup is promoted.
  const victim = paused;
  const retriesBefore = value(await scrapeMember(c, owner), 'grid_operation_retries_total');
  const orphaned = keysPlaced(parts.partitions, uuids[victim]!, undefined, 'orphan', 3);
  await c.kill(victim);
  for (const k of orphaned) expect((await c.http(owner, 'POST', `/hazelcast/rest/maps/cm/${k}`, 'y')).status).toBe(200);
  await waitFor('the survivors to list 2 members in their metrics', async () => value(await scrapeMember(c, owner), 'grid_cluster_members') === 2, 20_000, 200);
  const after = await scrapeMember(c, owner);
  expect(value(after, 'grid_operation_retries_total')).toBeGreaterThan(retriesBefore);
  expect(after.get('grid_cluster_heartbeat_age_seconds')!.samples).toHaveLength(1);
}, 60_000);
