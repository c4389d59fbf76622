// A queue's owner is killed (kill -9): its items survive in order on the backup, and a poll
// waiting on another member while the owner dies still receives the next item offered.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

const ITEMS = Array.from({ length: 40 }, (_, n) => `item-${n}`);

it('keeps queue items and their order, and a waiting poll, through a kill -9 of the owner', async () => {
  const c = await startCluster({ size: 3 });
  await c.waitForMembers(3);
  const table = await c.partitions(0);
  // The victim is member 1; the names are chosen so that member 1 owns both queues.
  const victim = c.member(1);
  const ownerOf = (name: string): string | null | undefined => table.partitions[partitionIdOf(name)]?.[0];
  const named = (prefix: string): string => {
    for (let n = 0; n < 10_000; n++) if (ownerOf(`${prefix}-${n}`) === victim.uuid) return `${prefix}-${n}`;
    throw new Error(`member 1 (${victim.uuid ?? '?'}) owns no partition of ${prefix}-0..9999: ${JSON.stringify(table.members)}`);
  };
  const orders = named('orders');
  const waiting = named('waiting');

  for (const item of ITEMS) expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${orders}`, item)).status).toBe(200);
  expect((await c.http(2, 'GET', `/hazelcast/rest/queues/${orders}/size`)).body).toBe(String(ITEMS.length));

  // A poll on member 2 (not the owner) waiting for up to 30 s on the empty queue.
  let settled = false;
  const poll = c.http(2, 'GET', `/hazelcast/rest/queues/${waiting}/30`, undefined, { timeoutMs: 40_000 }).finally(() => (settled = true));
  await waitFor('the poll to wait at the owner', async () => {
    const res = await c.http(0, 'GET', `/hazelcast/rest/queues/${waiting}/stats`);
    return res.status === 200 && (JSON.parse(res.body) as { waitingPolls: number }).waitingPolls === 1;
  });
  expect(settled).toBe(false);

  await c.kill(victim.index);
  await c.waitForMembers(2);
  await c.waitSafe();
  expect(settled, 'the waiting poll answered before anything was offered').toBe(false);

  expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${waiting}`, 'after-the-kill')).status).toBe(200);
  const polled = await poll;
  expect({ status: polled.status, body: polled.body }).toEqual({ status: 200, body: 'after-the-kill' });
  expect((await c.http(0, 'GET', `/hazelcast/rest/queues/${waiting}/size`)).body).toBe('0');

  // Every item, in order, polled alternately through both survivors.
  for (const i of [0, 2]) expect((await c.http(i, 'GET', `/hazelcast/rest/queues/${orders}/size`)).body).toBe(String(ITEMS.length));
  const got: string[] = [];
  for (const n of ITEMS.keys()) {
    const res = await c.http(n % 2 === 0 ? 0 : 2, 'GET', `/hazelcast/rest/queues/${orders}/0`);
    expect(res.status, `poll ${n}: ${res.body}`).toBe(200);
    got.push(res.body);
  }
  expect(got).toEqual(ITEMS);
  expect((await c.http(2, 'GET', `/hazelcast/rest/queues/${orders}/0`)).status).toBe(204);
}, 60_000);
