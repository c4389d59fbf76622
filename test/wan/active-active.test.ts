// Active-active A <-> B, each publishing to the other with republishing enabled: a write on
// either side reaches the other exactly once and never comes back (no loop): the counters
// settle and the values stay put.

import { expect, it } from 'vitest';
import { holdsFor, type Cluster } from '../support/cluster.js';
import {
  configOf,
  endpointsOf,
  get,
  launch,
  put,
  replicatedMap,
  reserveCluster,
  sumOf,
  waitCounter,
  waitForEntries,
  wanReplication,
} from '../support/wan.js';

const MAP = 'aa';

interface Counters {
  aQueued: number;
  aSent: number;
  bQueued: number;
  bSent: number;
}

async function counters(a: Cluster, b: Cluster): Promise<Counters> {
  return {
    aQueued: await sumOf(a, 'to-b', 'b', 'eventsQueued'),
    aSent: await sumOf(a, 'to-b', 'b', 'eventsSent'),
    bQueued: await sumOf(b, 'to-a', 'a', 'eventsQueued'),
    bSent: await sumOf(b, 'to-a', 'a', 'eventsSent'),
  };
}

it('A <-> B with republishing enabled: writes cross once and do not loop', async () => {
  const a = await reserveCluster('A', 2, () =>
    configOf(wanReplication('to-b', { clusterName: 'B', publisherId: 'b', endpoints: endpointsOf(b) }), replicatedMap(`${MAP}*`, 'to-b', { republishing: true })),
  );
  const b: Cluster = await reserveCluster('B', 1, () =>
    configOf(wanReplication('to-a', { clusterName: 'A', publisherId: 'a', endpoints: endpointsOf(a) }), replicatedMap(`${MAP}*`, 'to-a', { republishing: true })),
  );
  await Promise.all([launch(a, 2), launch(b, 1)]);

  // A -> B
  await put(a, 0, MAP, 'a1', 'from-a');
  await put(a, 1, MAP, 'a2', 'from-a-2');
  await waitForEntries(b, 0, MAP, new Map([['a1', 'from-a'], ['a2', 'from-a-2']]));
  // B -> A, including an update of a key that came from A
  await put(b, 0, MAP, 'b1', 'from-b');
  await put(b, 0, MAP, 'a1', 'changed-on-b');
  const final = new Map([['a1', 'changed-on-b'], ['a2', 'from-a-2'], ['b1', 'from-b']]);
  await waitForEntries(a, 1, MAP, final);
  await waitForEntries(b, 0, MAP, final);

  // Settled: nothing queued anywhere.
  await waitCounter(a, 'to-b', 'b', 'primaryQueueSize', (n) => n === 0);
  await waitCounter(b, 'to-a', 'a', 'primaryQueueSize', (n) => n === 0);
  const settled = await counters(a, b);
  // Each side sent only what was written on it: received events are not sent back.
  expect({ aSent: settled.aSent, bSent: settled.bSent }).toEqual({ aSent: 2, bSent: 2 });

  // And it stays that way: no event keeps circulating, no value flips.
  await holdsFor('no WAN loop', 1_500, async () => {
    const now = await counters(a, b);
    if (JSON.stringify(now) !== JSON.stringify(settled)) return `counters moved from ${JSON.stringify(settled)} to ${JSON.stringify(now)}`;
    for (const [c, i] of [[a, 0], [a, 1], [b, 0]] as const) {
      for (const [k, v] of final) {
        const r = await get(c, i, MAP, k);
        if (r.body !== v) return `${k} on ${c.clusterName} member ${i} is ${r.status} ${r.body}, not ${v}`;
      }
    }
    return undefined;
  });
}, 60_000);
