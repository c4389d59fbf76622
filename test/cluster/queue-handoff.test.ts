// A queue's owner leaves gracefully (SIGTERM): the queue moves to another member by migration,
// not by promotion. Its items keep their order, and a poll waiting on another member while the
// queue moves is answered by the next item offered afterwards.

import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

const ITEMS = Array.from({ length: 30 }, (_, n) => `item-${n}`);

it('keeps queue items, their order and a waiting poll when the owner hands the queue over', async () => {
  const c = await startCluster({ size: 3 });
  await c.waitForMembers(3);
  await c.waitSafe();
  const table = await c.partitions(0);
  const leaver = c.member(1);
  const ownedByLeaver = (prefix: string): string => {
    for (let n = 0; n < 10_000; n++) if (table.partitions[partitionIdOf(`${prefix}-${n}`)]?.[0] === leaver.uuid) return `${prefix}-${n}`;
    throw new Error(`member 1 owns no partition of ${prefix}-*`);
  };
  const orders = ownedByLeaver('orders');
  const waiting = ownedByLeaver('waiting');
  for (const item of ITEMS) expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${orders}`, item)).status).toBe(200);

  let settled = false;
  const poll = c.http(2, 'GET', `/hazelcast/rest/queues/${waiting}/30`, undefined, { timeoutMs: 40_000 }).finally(() => (settled = true));
  await waitFor('the poll to wait at the owner', async () => {
    const res = await c.http(0, 'GET', `/hazelcast/rest/queues/${waiting}/stats`);
    return res.status === 200 && (JSON.parse(res.body) as { waitingPolls: number }).waitingPolls === 1;
  });

  await c.stop(leaver.index);
  await c.waitForMembers(2);
  await c.waitSafe();
  expect(settled, 'the waiting poll answered before anything was offered').toBe(false);
  expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${waiting}`, 'after-the-move')).status).toBe(200);
  const polled = await poll;
  expect({ status: polled.status, body: polled.body }).toEqual({ status: 200, body: 'after-the-move' });

  const got: string[] = [];
  for (const n of ITEMS.keys()) {
    const res = await c.http(n % 2 === 0 ? 0 : 2, 'GET', `/hazelcast/rest/queues/${orders}/0`);
    expect(res.status, `poll ${n}`).toBe(200);
    got.push(res.body);
  }
  expect(got).toEqual(ITEMS);
}, 60_000);
