// A cluster state change whose commit (or rollback) a member never gets is repaired from the
// master's heartbeats: every member ends in the state the master committed, and no member stays
// locked IN_TRANSITION. The loss is simulated with grid.debug.ignore-messages (the member
// answers the message as if it took it, and ignores it).

import { expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

async function threeWithFaults(faults: [string, string]): Promise<Cluster> {
  // Member 0 starts alone, so it is the master; the faults are on the two others.
  const c = await startCluster({ size: 1, spare: 2 });
  for (const f of faults) await c.addMember({ config: { properties: { 'grid.debug.ignore-messages': f } } });
  await c.waitForMembers(3);
  await c.waitSafe();
  expect(await c.masterIndex(1)).toBe(0);
  return c;
}

async function statesOf(c: Cluster): Promise<string[]> {
  return Promise.all(c.live().map(async (m) => (await c.health(m.index)).clusterState));
}

it('a member that missed the commit of a state change takes the state from the master', async () => {
  const c = await threeWithFaults(['StateCommit:1', '']);
  const res = await c.management(0, 'changeState', 'dev&&frozen');
  expect(res.status).toBe(200);
  expect(c.member(1).logMessages().some((l) => l.includes('StateCommit') && l.includes('ignored on purpose'))).toBe(true);
  // Without repair member 1 would say IN_TRANSITION for 30 s, then fall back to ACTIVE.
  const states = await waitFor('every member to be FROZEN', async () => {
    const s = await statesOf(c);
    return s.every((x) => x === 'FROZEN') ? s : false;
  }, 10_000, 100);
  expect(states).toEqual(['FROZEN', 'FROZEN', 'FROZEN']);
  expect(c.member(1).logMessages().some((l) => l.includes("taken from the master's heartbeat"))).toBe(true);
  // And it acts on it: FROZEN admits no member (the join is refused through member 1 too).
  expect((await c.management(1, 'changeState', 'dev&&active')).status).toBe(200);
  await waitFor('every member to be ACTIVE', async () => (await statesOf(c)).every((x) => x === 'ACTIVE'), 10_000, 100);
}, 90_000);

it('a member that missed the rollback of a refused state change is not left locked IN_TRANSITION', async () => {
  // Member 1 refuses the prepare, so the master rolls back; member 2 prepared and ignores the rollback.
  const c = await threeWithFaults(['StatePrepare:1:refuse', 'StateRollback:1']);
  const res = await c.management(0, 'changeState', 'dev&&passive');
  expect(res.status).toBe(409);
  expect(String(res.headers['x-grid-error'])).toContain('refused on purpose');
  expect(c.member(2).logMessages().some((l) => l.includes('StateRollback') && l.includes('ignored on purpose'))).toBe(true);
  // The lock would hold for 30 s; the master's heartbeat (1 s in the harness) releases it.
  await waitFor('every member to be ACTIVE again', async () => (await statesOf(c)).every((x) => x === 'ACTIVE'), 8_000, 100);
  expect(c.member(2).logMessages().some((l) => l.includes('its rollback was missed'))).toBe(true);
  for (const m of c.live()) expect((await c.http(m.index, 'POST', '/hazelcast/rest/maps/m/k', 'v')).status).toBe(200);
}, 90_000);
