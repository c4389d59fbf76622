// Full sync: entries written while the publisher was STOPPED (so never replicated) reach the
// target after sync/map (that map only) and sync/allmaps (the rest); progress is the same
// cluster-wide answer from every source member and ends FINISHED at 100 %.

import { expect, it } from 'vitest';
import { holdsFor, type Cluster } from '../support/cluster.js';
import {
  configOf,
  endpointsOf,
  get,
  launch,
  publisherOn,
  put,
  replicatedMap,
  reserveCluster,
  sumOf,
  syncProgress,
  waitForEntries,
  waitSyncFinished,
  wanOk,
  wanReplication,
} from '../support/wan.js';

const REP = 'to-b';
const ID = 'b';

async function writeMany(a: Cluster, map: string, n: number): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (let k = 0; k < n; k++) entries.set(`${map}-${k}`, `${map}:${k}:${'x'.repeat(k % 7)}`);
  const list = [...entries];
  let at = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      while (at < list.length) {
        const [k, v] = list[at++]!;
        await put(a, w % a.members.length, map, k, v);
      }
    }),
  );
  return entries;
}

it('sync/map and sync/allmaps bring what was never replicated; progress from every member ends FINISHED', async () => {
  const t0 = Date.now();
  const b = await reserveCluster('B', 1);
  const a = await reserveCluster('A', 2, () =>
    configOf(
      wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints: endpointsOf(b), extra: { 'initial-publisher-state': 'STOPPED' } }),
      replicatedMap('sync*', REP),
    ),
  );
  await Promise.all([launch(a, 2), launch(b, 1)]);
  for (const m of a.members) expect((await publisherOn(a, m.index, REP, ID)).state).toBe('STOPPED');

  const one = await writeMany(a, 'sync-one', 300);
  const two = await writeMany(a, 'sync-two', 200);
  expect(await sumOf(a, REP, ID, 'eventsDropped'), 'a STOPPED publisher drops every event').toBe(500);
  for (const m of a.members) await wanOk(a, m.index, 'resumePublisher', REP, ID);
  // Resuming does not bring dropped events back.
  await holdsFor('nothing on B before a sync', 500, async () => {
    for (const k of ['sync-one-0', 'sync-one-299', 'sync-two-0', 'sync-two-199']) {
      const r = await get(b, 0, k.startsWith('sync-one') ? 'sync-one' : 'sync-two', k);
      if (r.status !== 204) return `${k} is on B`;
    }
    return undefined;
  });

  // ---- sync/map of one map, coordinated by member 1
  const started = await wanOk(a, 1, 'sync/map', REP, ID, 'sync-one');
  expect(started.message).toBe('Sync initiated');
  const uuid = String(started.uuid);
  expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
  const done = await waitSyncFinished(a, 1, uuid);
  expect(done).toEqual({ stage: 'FINISHED', progress: 100, wanReplicationName: REP, wanPublisherId: ID, creationTime: done.creationTime });
  expect(done.creationTime).toBeGreaterThanOrEqual(t0);
  expect(done.creationTime).toBeLessThanOrEqual(Date.now());
  // The same answer from every member.
  for (const m of a.members) expect(await syncProgress(a, m.index, uuid), `progress on member ${m.index}`).toEqual(done);
  await waitForEntries(b, 0, 'sync-one', one, 20_000);
  // Only that map.
  await holdsFor('sync-two not on B after a sync of sync-one', 500, async () => {
    for (const k of [...two.keys()].filter((_, n) => n % 10 === 0)) {
      if ((await get(b, 0, 'sync-two', k)).status !== 204) return `${k} is on B`;
    }
    return undefined;
  });
  expect(await sumOf(a, REP, ID, 'eventsSent')).toBeGreaterThanOrEqual(one.size);

  // ---- sync/allmaps, coordinated by member 0
  const all = await wanOk(a, 0, 'sync/allmaps', REP, ID);
  expect(all.message).toBe('Sync initiated');
  const uuid2 = String(all.uuid);
  expect(uuid2).not.toBe(uuid);
  const done2 = await waitSyncFinished(a, 0, uuid2);
  expect({ stage: done2.stage, progress: done2.progress }).toEqual({ stage: 'FINISHED', progress: 100 });
  expect(done2.creationTime).toBeGreaterThanOrEqual(done.creationTime);
  for (const m of a.members) expect(await syncProgress(a, m.index, uuid2)).toEqual(done2);
  await waitForEntries(b, 0, 'sync-two', two, 20_000);
  await waitForEntries(b, 0, 'sync-one', one, 5_000);
  // The first sync's result is still there.
  expect(await syncProgress(a, 0, uuid)).toEqual(done);
}, 60_000);
