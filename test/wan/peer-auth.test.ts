// WAN peer authentication: a publisher whose cluster-name is not the target's cluster name is
// refused by the target: it never delivers (its events stay queued, its endpoint is never up),
// while a correctly named publisher of the same source to the same endpoint delivers.

import { expect, it } from 'vitest';
import { holdsFor } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import {
  configOf,
  endpointsOf,
  get,
  launch,
  publisherOn,
  put,
  replicatedMap,
  reserveCluster,
  waitForEntries,
  wanReplication,
} from '../support/wan.js';

it('a publisher whose cluster-name does not match the target never delivers; the matching one does', async () => {
  const b = await reserveCluster('B', 1);
  const a = await reserveCluster('A', 1, () =>
    configOf(
      wanReplication('good-rep', { clusterName: 'B', publisherId: 'b', endpoints: endpointsOf(b) }),
      wanReplication('bad-rep', { clusterName: 'WRONG', publisherId: 'w', endpoints: endpointsOf(b) }),
      replicatedMap('good*', 'good-rep'),
      replicatedMap('bad*', 'bad-rep'),
    ),
  );
  await Promise.all([launch(a, 1), launch(b, 1)]);

  const good = new Map<string, string>();
  const bad = new Map<string, string>();
  for (let n = 0; n < 20; n++) {
    good.set(`k${n}`, `g${n}`);
    bad.set(`k${n}`, `x${n}`);
    await put(a, 0, 'good', `k${n}`, `g${n}`);
    await put(a, 0, 'bad', `k${n}`, `x${n}`);
  }
  // The endpoint is reachable and takes WAN batches from a correctly named publisher.
  await waitForEntries(b, 0, 'good', good);
  expect((await publisherOn(a, 0, 'good-rep', 'b')).endpoints.map((e) => e.status)).toEqual(['up']);

  // The wrongly named one is refused, attempt after attempt.
  await holdsFor('the WRONG publisher never delivers', 2_000, async () => {
    const p = await publisherOn(a, 0, 'bad-rep', 'w');
    if (p.endpoints.some((e) => e.status === 'up')) return `its endpoint is up: ${JSON.stringify(p.endpoints)}`;
    if (p.primaryQueueSize !== bad.size) return `its queue holds ${p.primaryQueueSize}, not ${bad.size}`;
    if (p.eventsAcknowledged !== 0) return `${p.eventsAcknowledged} events acknowledged`;
    for (const k of ['k0', 'k10', 'k19']) {
      const r = await get(b, 0, 'bad', k);
      if (r.status !== 204) return `bad/${k} is on B: ${r.body}`;
    }
    return undefined;
  });
  for (const k of bad.keys()) expect((await get(b, 0, 'bad', k)).status, `bad/${k} on B`).toBe(204);
  // The target says why, naming the cluster name it was offered.
  await waitFor('B to log the refused WAN peer', () => b.member(0).logMessages().some((m) => m.includes('WRONG')), 5_000);
  // A WAN connection never joins: each cluster still lists only its own member.
  expect((await b.clusterInfo(0)).members.map((m) => m.address)).toEqual([b.member(0).address]);
  expect((await a.clusterInfo(0)).members.map((m) => m.address)).toEqual([a.member(0).address]);
}, 30_000);
