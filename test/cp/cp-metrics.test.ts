// CP metrics end to end: three CP member processes, an atomic long written through REST, each
// member's /metrics parsed: every member hosts the METADATA and default groups, exactly one is
// the leader of each, terms agree, and the default group's commit index moves with each write.

import { expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { parsePrometheus, sampleValue, type Family } from '../support/prometheus.js';
import { waitFor } from '../support/process.js';

async function scrapeAll(c: Cluster): Promise<Map<string, Family>[]> {
  return Promise.all(
    c.members.map(async (m) => {
      const res = await c.http(m.index, 'GET', '/metrics');
      expect(res.status).toBe(200);
      return parsePrometheus(res.body);
    }),
  );
}

it('reports, per CP group hosted, whether this member leads it, its term and its commit index', async () => {
  const c = await startCluster({
    size: 3,
    config: () => ({
      network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true } } } },
      'cp-subsystem': { 'cp-member-count': 3, 'raft-algorithm': { 'leader-election-timeout-in-millis': 500, 'leader-heartbeat-period-in-millis': 200 } },
    }),
  });
  const add = async (): Promise<void> => {
    const res = await c.http(0, 'POST', '/grid/rest/cp/atomiclongs/counter/addAndGet', '1');
    expect(res.status, res.headers['x-grid-error'] as string | undefined).toBe(200);
  };
  await add();
  const g = (f: Map<string, Family>, name: string, group: string): number => sampleValue(f, name, { group }) ?? NaN;
  // Followers learn a commit on the next heartbeat: wait until all agree.
  const settled = await waitFor(
    'every member to host both groups, with one leader each and the same term and commit index',
    async () => {
      const s = await scrapeAll(c);
      for (const group of ['METADATA', 'default']) {
        const leaders = s.map((f) => g(f, 'grid_cp_group_leader', group));
        if (leaders.some(Number.isNaN) || leaders.reduce((a, b) => a + b, 0) !== 1) return undefined;
        if (new Set(s.map((f) => g(f, 'grid_cp_group_term', group))).size !== 1) return undefined;
        if (new Set(s.map((f) => g(f, 'grid_cp_group_commit_index', group))).size !== 1) return undefined;
      }
      return s;
    },
    15_000,
    100,
  );
  for (const f of settled) {
    expect(sampleValue(f, 'grid_cp_member')).toBe(1);
    expect(g(f, 'grid_cp_group_members', 'default')).toBe(3);
    expect(g(f, 'grid_cp_group_term', 'default')).toBeGreaterThanOrEqual(1);
    expect(f.get('grid_cp_group_leader')!.samples.map((s) => s.labels.group).sort()).toEqual(['METADATA', 'default']);
  }
  const commit = g(settled[0]!, 'grid_cp_group_commit_index', 'default');
  expect(commit).toBeGreaterThanOrEqual(1);
  // Each addAndGet is one more entry committed in the default group.
  for (let i = 0; i < 3; i++) await add();
  const leader = settled.findIndex((f) => g(f, 'grid_cp_group_leader', 'default') === 1);
  const after = await scrapeAll(c);
  expect(g(after[leader]!, 'grid_cp_group_commit_index', 'default')).toBe(commit + 3);
  expect(g(after[leader]!, 'grid_cp_group_last_applied', 'default')).toBe(commit + 3);
}, 60_000);
