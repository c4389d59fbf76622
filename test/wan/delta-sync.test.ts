// Consistency check + delta sync: after the target diverges on a few keys, consistencyCheck/map
// finds the few differing Merkle leaves, and the following sync/map sends only their entries,
// bringing the target back equal with far fewer entries than a full sync sends.

import { expect, it } from 'vitest';
import type { Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import {
  configOf,
  consistencyResult,
  del,
  endpointsOf,
  get,
  launch,
  merkleMap,
  put,
  replicatedMap,
  reserveCluster,
  sumOf,
  syncProgress,
  waitCounter,
  waitForEntries,
  waitSyncFinished,
  wanOk,
  wanReplication,
  type ConsistencyResult,
} from '../support/wan.js';

const REP = 'to-b';
const ID = 'b';
const MAP = 'mk';
const N = 1000;

async function putAll(c: Cluster, entries: ReadonlyMap<string, string>): Promise<void> {
  const list = [...entries];
  let at = 0;
  await Promise.all(
    Array.from({ length: 12 }, async (_, w) => {
      while (at < list.length) {
        const [k, v] = list[at++]!;
        await put(c, w % c.members.length, MAP, k, v);
      }
    }),
  );
}

/** Sync map MAP through member `i`, wait for FINISHED and the queues to drain; returns the events sent meanwhile. */
async function syncAndCount(a: Cluster, i: number): Promise<number> {
  const before = await sumOf(a, REP, ID, 'eventsSent');
  const started = await wanOk(a, i, 'sync/map', REP, ID, MAP);
  await waitSyncFinished(a, i, String(started.uuid));
  await waitCounter(a, REP, ID, 'primaryQueueSize', (n) => n === 0);
  return (await sumOf(a, REP, ID, 'eventsSent')) - before;
}

it('consistencyCheck finds the diverged leaves; the delta sync repairs them with far fewer entries than a full sync', async () => {
  const b = await reserveCluster('B', 1, () => merkleMap(`${MAP}*`));
  const a = await reserveCluster('A', 2, () =>
    configOf(
      wanReplication(REP, {
        clusterName: 'B',
        publisherId: ID,
        endpoints: endpointsOf(b),
        extra: { sync: { 'consistency-check-strategy': 'MERKLE_TREES' } },
      }),
      replicatedMap(`${MAP}*`, REP, { merkle: true }),
    ),
  );
  await Promise.all([launch(a, 2), launch(b, 1)]);

  const source = new Map<string, string>();
  for (let n = 0; n < N; n++) source.set(`key-${n}`, `value-${n}`);
  await putAll(a, source);
  await waitForEntries(b, 0, MAP, source, 30_000);

  // ---- in sync: a check finds nothing to do.
  const clean = await runCheck(a, 1);
  expect(clean, JSON.stringify(clean)).toMatchObject({ partitionsChecked: 271, partitionsDiffering: 0, leavesDiffering: 0, entriesToSync: 0 });

  // ---- diverge B directly: 5 changed values, 1 changed Content-Type only, 1 removed key, 1 extra key.
  const changed = ['key-3', 'key-141', 'key-500', 'key-777', 'key-998'];
  for (const k of changed) await put(b, 0, MAP, k, `diverged-${k}`);
  await put(b, 0, MAP, 'key-42', 'value-42', 'application/x-other');
  await del(b, 0, MAP, 'key-250');
  await put(b, 0, MAP, 'only-on-b', 'extra');
  const divergedKeys = changed.length + 2;

  const check = await runCheck(a, 0);
  expect(check.mapName).toBe(MAP);
  expect(check.wanReplicationName).toBe(REP);
  expect(check.wanPublisherId).toBe(ID);
  expect(check.partitionsChecked).toBe(271);
  expect(check.leavesChecked).toBeGreaterThan(check.partitionsChecked);
  expect(check.partitionsDiffering, JSON.stringify(check)).toBeGreaterThanOrEqual(1);
  expect(check.partitionsDiffering, JSON.stringify(check)).toBeLessThanOrEqual(divergedKeys + 1);
  expect(check.leavesDiffering, JSON.stringify(check)).toBeGreaterThanOrEqual(check.partitionsDiffering);
  expect(check.leavesDiffering, JSON.stringify(check)).toBeLessThanOrEqual(divergedKeys + 1);
  // The source's entries in the differing leaves: at least the diverged keys, far fewer than the map.
  expect(check.entriesToSync, JSON.stringify(check)).toBeGreaterThanOrEqual(divergedKeys);
  expect(check.entriesToSync, JSON.stringify(check)).toBeLessThan(N / 20);

  // ---- the delta sync: B equal again, few entries sent.
  const deltaSent = await syncAndCount(a, 1);
  const expected = new Map<string, string | null>(source);
  await waitForEntries(b, 0, MAP, expected, 15_000);
  const ct = await b.http(0, 'GET', `/hazelcast/rest/maps/${MAP}/key-42`);
  expect(ct.headers['content-type'], 'the Content-Type was repaired too').toBe('text/plain');
  expect((await get(b, 0, MAP, 'only-on-b')).body, "a sync does not remove the target's extra keys").toBe('extra');
  expect(deltaSent, 'the delta sync sends the entries of the differing leaves').toBeGreaterThanOrEqual(divergedKeys);
  expect(deltaSent).toBeLessThanOrEqual(check.entriesToSync);

  // ---- the next sync/map is a full one again (the check's result was consumed): every entry.
  const fullSent = await syncAndCount(a, 0);
  expect(fullSent).toBeGreaterThanOrEqual(N);
  expect(deltaSent * 10, `delta ${deltaSent} vs full ${fullSent}`).toBeLessThan(fullSent);
  await waitForEntries(b, 0, MAP, expected, 15_000);
}, 90_000);

/** consistencyCheck/map through member `i`; polls the result until FINISHED (fails on FAILED). */
async function runCheck(a: Cluster, i: number): Promise<ConsistencyResult> {
  const started = await wanOk(a, i, 'consistencyCheck/map', REP, ID, MAP);
  expect(started.message).toBe('Consistency check initiated');
  const uuid = String(started.uuid);
  let last: ConsistencyResult | undefined;
  const result = await waitFor(
    `consistency check ${uuid} to finish`,
    async () => {
      last = await consistencyResult(a, i, uuid);
      if (last.stage === 'FAILED') throw new Error(`check FAILED: ${JSON.stringify(last)}`);
      return last.stage === 'FINISHED' ? last : false;
    },
    20_000,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last ${JSON.stringify(last)}`);
  });
  // The same result from the other member, and its uuid works with sync/progress.
  expect(await consistencyResult(a, 1 - i, uuid)).toEqual(result);
  const progress = await syncProgress(a, 1 - i, uuid);
  expect({ stage: progress.stage, progress: progress.progress }).toEqual({ stage: 'FINISHED', progress: 100 });
  return result;
}
