// pausePublisher / resumePublisher / stopPublisher / clearWanQueues act on the receiving member
// only: the events of the partitions that member owns are held (paused), dropped (stopped) or
// thrown away (cleared), while the other member's partitions keep replicating.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
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
  waitForEntries,
  wanOk,
  wanReplication,
} from '../support/wan.js';

const REP = 'to-b';
const ID = 'b';
const MAP = 'ctl';

/** `n` fresh keys (prefix `tag`) whose partition is owned by member `owner` of `a`. */
async function keysOwnedBy(a: Cluster, owner: number, tag: string, n: number): Promise<string[]> {
  const table = await a.partitions(0);
  const uuid = a.member(owner).uuid;
  const out: string[] = [];
  for (let k = 0; out.length < n; k++) {
    const key = `${tag}-${k}`;
    if (table.partitions[partitionIdOf(key)]?.[0] === uuid) out.push(key);
  }
  return out;
}

const values = (keys: readonly string[], tag: string): Map<string, string> => new Map(keys.map((k) => [k, `${tag}:${k}`]));

async function putAll(a: Cluster, through: number, entries: ReadonlyMap<string, string>): Promise<void> {
  for (const [k, v] of entries) await put(a, through, MAP, k, v);
}

/** None of `keys` is readable on B, over `ms`. */
async function staysAway(b: Cluster, keys: readonly string[], what: string, ms = 1_000): Promise<void> {
  await holdsFor(what, ms, async () => {
    for (const k of keys) {
      const r = await get(b, 0, MAP, k);
      if (r.status !== 204) return `${k} is on B (${r.status} ${r.body})`;
    }
    return undefined;
  });
}

it('pause, resume, stop and clearWanQueues act on the receiving member only', async () => {
  const b = await reserveCluster('B', 1);
  const a = await reserveCluster('A', 2, () =>
    configOf(wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints: endpointsOf(b) }), replicatedMap(`${MAP}*`, REP)),
  );
  await Promise.all([launch(a, 2), launch(b, 1)]);
  // X = member 0 (whose publisher is acted on), Y = member 1 (the control). Writes go through Y,
  // so the receiving member of the writes is not what matters, the partition owner is.
  const X = 0;
  const Y = 1;

  // ---- pause: X's partitions queue on X and do not arrive; Y's arrive.
  const paused = await wanOk(a, X, 'pausePublisher', REP, ID);
  expect(paused).toEqual({ status: 'success', message: 'WAN publisher paused' });
  expect((await publisherOn(a, X, REP, ID)).state).toBe('PAUSED');
  expect((await publisherOn(a, Y, REP, ID)).state, 'pause acts on the receiving member only').toBe('REPLICATING');
  const x1 = values(await keysOwnedBy(a, X, 'x1', 10), 'p');
  const y1 = values(await keysOwnedBy(a, Y, 'y1', 10), 'p');
  await putAll(a, Y, x1);
  await putAll(a, Y, y1);
  await waitForEntries(b, 0, MAP, y1);
  await staysAway(b, [...x1.keys()], "X's events while X is paused");
  const onX = await publisherOn(a, X, REP, ID);
  expect(onX.state).toBe('PAUSED');
  expect(onX.primaryQueueSize, JSON.stringify(onX)).toBe(x1.size);
  expect(onX.lagMillis, 'the oldest queued event has waited since before the pause check').toBeGreaterThan(500);
  expect((await publisherOn(a, Y, REP, ID)).primaryQueueSize).toBe(0);

  // ---- resume: what X queued arrives.
  expect(await wanOk(a, X, 'resumePublisher', REP, ID)).toEqual({ status: 'success', message: 'WAN publisher resumed' });
  expect((await publisherOn(a, X, REP, ID)).state).toBe('REPLICATING');
  await waitForEntries(b, 0, MAP, x1);

  // ---- stop: new events of X's partitions are dropped (and stay lost after a resume); Y's arrive.
  const dropped0 = (await publisherOn(a, X, REP, ID)).eventsDropped;
  expect(await wanOk(a, X, 'stopPublisher', REP, ID)).toEqual({ status: 'success', message: 'WAN publisher stopped' });
  expect((await publisherOn(a, X, REP, ID)).state).toBe('STOPPED');
  expect((await publisherOn(a, Y, REP, ID)).state).toBe('REPLICATING');
  const x2 = values(await keysOwnedBy(a, X, 'x2', 10), 's');
  const y2 = values(await keysOwnedBy(a, Y, 'y2', 10), 's');
  await putAll(a, Y, x2);
  await putAll(a, Y, y2);
  await waitForEntries(b, 0, MAP, y2);
  const stopped = await publisherOn(a, X, REP, ID);
  expect(stopped.primaryQueueSize, 'a stopped publisher queues nothing new').toBe(0);
  expect(stopped.eventsDropped - dropped0, 'every event of X while stopped is dropped and counted').toBe(x2.size);
  // Back to replicating: later writes arrive, the dropped ones never do.
  await wanOk(a, X, 'resumePublisher', REP, ID);
  const x3 = values(await keysOwnedBy(a, X, 'x3', 5), 'r');
  await putAll(a, Y, x3);
  await waitForEntries(b, 0, MAP, x3);
  await staysAway(b, [...x2.keys()], 'the events dropped while X was stopped', 500);

  // ---- clearWanQueues: what X holds is thrown away; later writes replicate again.
  await wanOk(a, X, 'pausePublisher', REP, ID);
  const x4 = values(await keysOwnedBy(a, X, 'x4', 10), 'c');
  await putAll(a, Y, x4);
  expect((await publisherOn(a, X, REP, ID)).primaryQueueSize).toBe(x4.size);
  expect(await wanOk(a, X, 'clearWanQueues', REP, ID)).toEqual({ status: 'success', message: 'WAN replication queues are cleared.' });
  expect((await publisherOn(a, X, REP, ID)).primaryQueueSize).toBe(0);
  expect((await publisherOn(a, X, REP, ID)).state, 'clearing does not change the state').toBe('PAUSED');
  await wanOk(a, X, 'resumePublisher', REP, ID);
  const x5 = values(await keysOwnedBy(a, X, 'x5', 5), 'n');
  await putAll(a, Y, x5);
  await waitForEntries(b, 0, MAP, x5);
  await staysAway(b, [...x4.keys()], 'the events cleared from X', 500);
  // The source itself kept every write.
  for (const [k, v] of [...x2, ...x4]) expect((await get(a, X, MAP, k)).body).toBe(v);
}, 60_000);
