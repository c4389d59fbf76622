// A target that is down: events wait in the source's queues and everything queued is delivered
// when it comes back (never started yet, and killed then restarted on the same ports). With
// THROW_EXCEPTION and a full queue the map write itself is refused (503) and not applied.

import { expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import {
  configOf,
  del,
  endpointsOf,
  get,
  launch,
  publisherOn,
  put,
  replicatedMap,
  reserveCluster,
  startWanCluster,
  sumOf,
  waitCounter,
  waitForEntries,
  wanOk,
  wanReplication,
} from '../support/wan.js';
import { waitFor } from '../support/process.js';

const REP = 'to-b';
const ID = 'b';

it('a target that is down, then up, then killed and restarted on the same ports gets everything queued meanwhile', async () => {
  const b = await reserveCluster('B', 2);
  const a = await startWanCluster('A', 2, () =>
    configOf(wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints: endpointsOf(b) }), replicatedMap('out*', REP)),
  );

  // ---- phase 1: B has never run. Puts, updates and removes queue up on A.
  const expected = new Map<string, string | null>();
  for (let n = 0; n < 150; n++) {
    await put(a, n % 2, 'out', `k${n}`, `v1-${n}`);
    expected.set(`k${n}`, `v1-${n}`);
  }
  for (let n = 0; n < 20; n++) {
    await put(a, (n + 1) % 2, 'out', `k${n}`, `v2-${n}`);
    expected.set(`k${n}`, `v2-${n}`);
  }
  for (let n = 140; n < 150; n++) {
    await del(a, n % 2, 'out', `k${n}`);
    expected.set(`k${n}`, null);
  }
  const mutations = 180;
  expect(await sumOf(a, REP, ID, 'primaryQueueSize'), 'every event waits in a queue while B is down').toBe(mutations);
  for (const m of a.members) {
    const p = await publisherOn(a, m.index, REP, ID);
    expect(p.endpoints.length).toBe(2);
    expect(p.endpoints.every((e) => e.status !== 'up'), JSON.stringify(p.endpoints)).toBe(true);
    expect(p.eventsAcknowledged).toBe(0);
  }

  await launch(b, 2);
  await waitForEntries(b, 0, 'out', expected, 30_000);
  await waitCounter(a, REP, ID, 'primaryQueueSize', (n) => n === 0);
  // In order per key: the updates won, not the first values.
  for (let n = 0; n < 20; n++) expect((await get(b, 1, 'out', `k${n}`)).body).toBe(`v2-${n}`);

  // ---- phase 2: B is killed (both members) while A keeps writing; B comes back (empty) on the same ports.
  await Promise.all([b.kill(0), b.kill(1)]);
  const phase2 = new Map<string, string | null>();
  for (let n = 0; n < 100; n++) {
    await put(a, n % 2, 'out', `m${n}`, `w-${n}`);
    phase2.set(`m${n}`, `w-${n}`);
  }
  for (let n = 20; n < 30; n++) {
    await put(a, n % 2, 'out', `k${n}`, `v3-${n}`);
    phase2.set(`k${n}`, `v3-${n}`);
  }
  // A notices: its endpoints are not up and the events wait (none were acknowledged by a dead B).
  await waitFor(
    'every endpoint of A to be not up',
    async () => {
      for (const m of a.members) {
        if ((await publisherOn(a, m.index, REP, ID)).endpoints.some((e) => e.status === 'up')) return false;
      }
      return true;
    },
    15_000,
    100,
  );
  expect(await sumOf(a, REP, ID, 'primaryQueueSize')).toBe(phase2.size);

  await Promise.all([b.restart(0, { wait: 'none' }), b.restart(1, { wait: 'none' })]);
  await Promise.all([b.waitUp(0), b.waitUp(1)]);
  await b.waitForMembers(2);
  await waitForEntries(b, 1, 'out', phase2, 40_000);
  await waitCounter(a, REP, ID, 'primaryQueueSize', (n) => n === 0);
}, 90_000);

it('THROW_EXCEPTION: with the queue full the write is refused with 503 and not applied', async () => {
  const nowhere = await freePort(); // nothing listens there: the target is unreachable
  const a = await startWanCluster('A', 1, () =>
    configOf(
      wanReplication(REP, {
        clusterName: 'B',
        publisherId: ID,
        endpoints: `127.0.0.1:${nowhere}`,
        extra: { 'queue-capacity': 5, 'queue-full-behavior': 'THROW_EXCEPTION' },
      }),
      replicatedMap('full*', REP),
    ),
  );
  for (let n = 0; n < 5; n++) await put(a, 0, 'full', `k${n}`, `v${n}`);
  const p = await publisherOn(a, 0, REP, ID);
  expect({ size: p.primaryQueueSize, capacity: p.queueCapacity }).toEqual({ size: 5, capacity: 5 });

  // A new key: refused, not stored.
  const refused = await a.http(0, 'POST', '/hazelcast/rest/maps/full/k5', 'v5');
  expect(refused.status).toBe(503);
  expect(refused.body).toBe('');
  expect(String(refused.headers['x-grid-error'])).toMatch(/WAN replication queue/);
  expect(String(refused.headers['x-grid-error'])).toContain(`${REP}/${ID}`);
  expect((await get(a, 0, 'full', 'k5')).status, 'the refused write is not applied').toBe(204);
  // An update: refused, the old value stays.
  expect((await a.http(0, 'POST', '/hazelcast/rest/maps/full/k0', 'changed')).status).toBe(503);
  expect((await get(a, 0, 'full', 'k0')).body).toBe('v0');
  // A remove of an existing entry is a mutation too: refused, the entry stays.
  expect((await a.http(0, 'DELETE', '/hazelcast/rest/maps/full/k1')).status).toBe(503);
  expect((await get(a, 0, 'full', 'k1')).body).toBe('v1');
  // A map without WAN is not affected.
  await put(a, 0, 'other', 'k', 'fine');
  const after = await publisherOn(a, 0, REP, ID);
  expect(after.writesRefused).toBe(3);
  expect(after.primaryQueueSize).toBe(5);
  expect(after.eventsDropped).toBe(0);

  // With the queue cleared, writes are taken again.
  await wanOk(a, 0, 'clearWanQueues', REP, ID);
  await put(a, 0, 'full', 'k5', 'v5');
  expect((await get(a, 0, 'full', 'k5')).body).toBe('v5');
}, 30_000);
