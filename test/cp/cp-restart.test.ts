// A CP member restarted from persisted data keeps its member uuid but not its Raft state: it
// must not vote as its old CP identity. It comes back as a new CP member: its old seat is given
// up (by the restarted member itself) and it is promoted again in its place, the groups'
// data intact.

import { expect, it } from 'vitest';
import { pollUntil } from '../support/http.js';
import { launchMembers, persistentCluster, restartAll } from '../support/persistence.js';

it('a CP member restarted with persistence (same member uuid) gives its old seat up and takes a new one', async () => {
  const pc = await persistentCluster({
    size: 3,
    extra: {
      network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true }, PERSISTENCE: { enabled: true } } } },
      'cp-subsystem': { 'cp-member-count': 3, 'raft-algorithm': { 'leader-election-timeout-in-millis': 1000, 'leader-heartbeat-period-in-millis': 500 } },
    },
  });
  const c = pc.c;
  await launchMembers(pc, 3);
  const add = (i: number, delta: number): Promise<{ status: number; body: string }> => c.http(i, 'POST', '/grid/rest/cp/atomiclongs/r/addAndGet', String(delta), { timeoutMs: 30_000 });
  expect((await add(0, 5)).body).toBe('5');
  type CpMember = { uuid: string; address: string };
  const before = await c.json<CpMember[]>(0, '/hazelcast/rest/cp-subsystem/members');
  const victim = 2;
  const memberUuid = c.member(victim).uuid;
  const oldSeat = before.find((m) => m.address === `[127.0.0.1]:${c.member(victim).port}`)!;
  expect(oldSeat).toBeDefined();

  await c.kill(victim);
  await restartAll(pc, [victim]);
  await c.waitUp(victim);
  // Persistence kept the member uuid; the CP identity is new.
  expect(c.member(victim).uuid).toBe(memberUuid);
  const after = await pollUntil(
    () => c.json<CpMember[]>(0, '/hazelcast/rest/cp-subsystem/members'),
    (l) => l.length === 3 && !l.some((m) => m.uuid === oldSeat.uuid) && l.some((m) => m.address === oldSeat.address),
    { timeoutMs: 30_000, intervalMs: 250, what: 'the restarted member back as a new CP member' },
  );
  const newSeat = after.find((m) => m.address === oldSeat.address)!;
  expect(newSeat.uuid).not.toBe(oldSeat.uuid);
  expect(c.member(victim).logMessages().some((l) => l.includes('giving up its old CP seat'))).toBe(true);
  await pollUntil(
    async () => (await c.json<{ members: CpMember[] }>(0, '/hazelcast/rest/cp-subsystem/groups/default')).members.map((m) => m.uuid),
    (ids) => ids.length === 3 && ids.includes(newSeat.uuid) && !ids.includes(oldSeat.uuid),
    { timeoutMs: 30_000, intervalMs: 250, what: 'the default group with the new seat' },
  );
  expect((await c.http(victim, 'GET', '/grid/rest/cp/atomiclongs/r', undefined, { timeoutMs: 30_000 })).body).toBe('5');
  expect((await add(victim, 1)).body).toBe('6');
}, 90_000);
