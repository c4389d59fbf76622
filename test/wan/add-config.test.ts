// addWanConfig: the JSON publisher configuration is added on every member of the source
// cluster, present and future: a member that joins later has the publisher too (GET /rest/wan)
// and replicates its partitions through it. New publisher ids are added, known ones ignored.
// Entries written before the publisher existed reach its target through a full sync, whose
// progress every member (the late one too) reports the same.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { freePort } from '../support/ports.js';
import {
  configOf,
  endpointsOf,
  get,
  launch,
  publisherOn,
  put,
  replicatedMap,
  reserveCluster,
  startWanCluster,
  syncProgress,
  waitForEntries,
  waitSyncFinished,
  wanOk,
  wanReplication,
  wanStatus,
} from '../support/wan.js';

const REP = 'dyn';
const MAP = 'dyn-map';

it('addWanConfig adds the publisher on every member, and a member that joins later has it', async () => {
  // The replication exists in the file config with a stopped publisher to nowhere; the real
  // publisher (to C) is added over REST.
  const nowhere = await freePort();
  const c = await startWanCluster('C', 1);
  const a = await reserveCluster('A', 3, () =>
    configOf(
      wanReplication(REP, { clusterName: 'Z', publisherId: 'placeholder', endpoints: `127.0.0.1:${nowhere}`, extra: { 'initial-publisher-state': 'STOPPED' } }),
      replicatedMap(`${MAP}*`, REP),
    ),
  );
  await launch(a, 2);
  // Written before the publisher to C exists: only a sync through it can bring these to C.
  const before = new Map<string, string>();
  for (let n = 0; n < 40; n++) before.set(`pre${n}`, `early-${n}`);
  for (const [k, v] of before) await put(a, n0(k) % 2, MAP, k, v);

  const first = { name: REP, batchPublishers: [{ clusterName: 'C', publisherId: 'c', targetEndpoints: endpointsOf(c), batchMaxDelayMillis: 50 }] };
  expect(await wanOk(a, 1, 'addWanConfig', JSON.stringify(first))).toEqual({
    status: 'success',
    message: 'WAN configuration added.',
    addedPublisherIds: ['c'],
    ignoredPublisherIds: [],
  });
  // Again, with the `publishers` alias, a list of endpoints and one more publisher: only the new one is added.
  const second = {
    name: REP,
    publishers: [
      { clusterName: 'C', publisherId: 'c', targetEndpoints: endpointsOf(c), batchMaxDelayMillis: 50 },
      { clusterName: 'C', publisherId: 'c2', targetEndpoints: [endpointsOf(c)], batchMaxDelayMillis: 50, queueCapacity: 777 },
    ],
  };
  expect(await wanOk(a, 0, 'addWanConfig', JSON.stringify(second))).toEqual({
    status: 'success',
    message: 'WAN configuration added.',
    addedPublisherIds: ['c2'],
    ignoredPublisherIds: ['c'],
  });
  for (const m of a.members) {
    const p = await publisherOn(a, m.index, REP, 'c');
    expect({ state: p.state, target: p.targetClusterName }).toEqual({ state: 'REPLICATING', target: 'C' });
    expect((await publisherOn(a, m.index, REP, 'c2')).queueCapacity).toBe(777);
  }

  // A third member joins after the add.
  await launch(a, 1);
  const late = 2;
  const ids = (await wanStatus(a, late)).map((p) => `${p.wanReplicationName}/${p.publisherId}`).sort();
  expect(ids).toEqual([`${REP}/c`, `${REP}/c2`, `${REP}/placeholder`]);
  const lateC = await publisherOn(a, late, REP, 'c');
  expect({ state: lateC.state, target: lateC.targetClusterName, endpoints: lateC.endpoints.map((e) => e.address) }).toEqual({
    state: 'REPLICATING',
    target: 'C',
    endpoints: endpointsOf(c).split(','),
  });
  expect((await publisherOn(a, late, REP, 'c2')).queueCapacity).toBe(777);

  // Its partitions replicate through it.
  const table = await a.partitions(0);
  const entries = new Map<string, string>();
  for (let n = 0; n < 60; n++) entries.set(`k${n}`, `v${n}`);
  const onLate = [...entries.keys()].filter((k) => table.partitions[partitionIdOf(k)]?.[0] === a.member(late).uuid);
  expect(onLate.length, 'the late member owns some of the keys').toBeGreaterThan(5);
  for (const [k, v] of entries) await put(a, 0, MAP, k, v);
  await waitForEntries(c, 0, MAP, entries);
  expect((await publisherOn(a, late, REP, 'c')).eventsQueued).toBe(onLate.length);
  for (const k of before.keys()) expect((await get(c, 0, MAP, k)).status, `${k} on C before the sync`).toBe(204);

  // A full sync through the added publisher brings what was written before it existed;
  // every member, the late one included, gives the same finished progress.
  const sync = await wanOk(a, late, 'sync/map', REP, 'c', MAP);
  const done = await waitSyncFinished(a, late, String(sync.uuid));
  expect({ stage: done.stage, progress: done.progress, rep: done.wanReplicationName, id: done.wanPublisherId }).toEqual({
    stage: 'FINISHED',
    progress: 100,
    rep: REP,
    id: 'c',
  });
  for (const m of a.members) expect(await syncProgress(a, m.index, String(sync.uuid))).toEqual(done);
  await waitForEntries(c, 0, MAP, before);
  await waitForEntries(c, 0, MAP, entries, 5_000);
}, 60_000);

/** A number from a key's digits. */
function n0(key: string): number {
  return Number(key.replace(/\D/g, '')) || 0;
}
