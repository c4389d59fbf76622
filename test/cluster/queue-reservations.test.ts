// Queue items taken by a poll stay reserved at the owner (and its backups) until the member
// serving the HTTP poll has written the answer. These tests get a member killed exactly in
// that window, without sleeps: the answer is a 16 MiB item to a client that reads nothing (so
// the response cannot finish), or the serving member is frozen (SIGSTOP) after the owner
// handed it an item. Every acknowledged item is then polled again, in its place.

import net from 'node:net';
import { expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import { RawConnection } from '../support/http.js';
import { sleep } from '../support/wait.js';

interface Stats {
  size: number;
  reserved: number;
  waitingPolls: number;
}

async function stats(c: Cluster, i: number, q: string): Promise<Stats> {
  const res = await c.http(i, 'GET', `/hazelcast/rest/queues/${q}/stats`);
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as Stats;
}

/** Waits until member `i` reports these stats for `q` (read at the owner). */
async function statsBecome(c: Cluster, i: number, q: string, want: Partial<Stats>, timeoutMs = 20_000): Promise<void> {
  let last: Stats | undefined;
  await waitFor(
    `queue ${q} to show ${JSON.stringify(want)} through member ${i}`,
    async () => {
      last = await stats(c, i, q).catch(() => undefined);
      return last !== undefined && Object.entries(want).every(([k, v]) => last![k as keyof Stats] === v);
    },
    timeoutMs,
    50,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen ${JSON.stringify(last)}`);
  });
}

/** A queue name whose partition member `owner` owns (and member `backup` backs up, if given). */
async function ownedBy(c: Cluster, owner: number, prefix: string, backup?: number): Promise<string> {
  const table = await c.partitions(0);
  const uuid = c.member(owner).uuid;
  const backupUuid = backup === undefined ? undefined : c.member(backup).uuid;
  for (let n = 0; n < 10_000; n++) {
    const row = table.partitions[partitionIdOf(`${prefix}-${n}`)];
    if (row?.[0] === uuid && (backupUuid === undefined || row?.[1] === backupUuid)) return `${prefix}-${n}`;
  }
  throw new Error(`member ${owner} owns no partition of ${prefix}-* (backed up by ${backup ?? 'anyone'})`);
}

const BIG = `big-${'x'.repeat(16 * 1024 * 1024)}`;

/** Sends a poll to member `i` from a client that never reads: a large answer cannot finish. */
function stuckPoll(c: Cluster, i: number, q: string): net.Socket {
  const s = net.connect(c.member(i).port, '127.0.0.1');
  s.pause();
  s.on('error', () => undefined);
  s.write(`GET /hazelcast/rest/queues/${q}/0 HTTP/1.1\r\nHost: test\r\n\r\n`);
  return s;
}

async function pollBody(c: Cluster, i: number, q: string): Promise<{ status: number; body: string }> {
  const res = await c.http(i, 'GET', `/hazelcast/rest/queues/${q}/0`, undefined, { timeoutMs: 30_000 });
  return { status: res.status, body: res.status === 200 && res.body.length > 100 ? `big(${res.body.length}, ${res.body === BIG})` : res.body };
}

it('an item taken through a member killed before its answer was written goes back to the head of the queue', async () => {
  const c = await startCluster({ size: 3 });
  const q = await ownedBy(c, 0, 'slow');
  expect((await c.http(2, 'POST', `/hazelcast/rest/queues/${q}`, BIG, { timeoutMs: 30_000 })).status).toBe(200);
  expect((await c.http(2, 'POST', `/hazelcast/rest/queues/${q}`, 'after')).status).toBe(200);

  const client = stuckPoll(c, 1, q);
  // The owner took the big item for member 1, whose answer sits unwritten behind the client.
  await statsBecome(c, 0, q, { size: 1, reserved: 1 });
  await c.kill(1);
  await c.waitForMembers(2);
  await statsBecome(c, 0, q, { size: 2, reserved: 0 });
  client.destroy();

  expect(await pollBody(c, 2, q)).toEqual({ status: 200, body: `big(${BIG.length}, true)` });
  expect(await pollBody(c, 0, q)).toEqual({ status: 200, body: 'after' });
  expect((await pollBody(c, 2, q)).status).toBe(204);
}, 90_000);

it('an item handed to a waiting poll whose member is frozen and then killed goes back to the queue', async () => {
  const c = await startCluster({ size: 3 });
  // Backed up by member 2: a frozen backup would hold the offer's answer until it is removed.
  const q = await ownedBy(c, 0, 'handoff', 2);
  const waiting = c.http(1, 'GET', `/hazelcast/rest/queues/${q}/60`, undefined, { timeoutMs: 70_000 }).then(
    (r) => `answered ${r.status} ${r.body}`,
    (e: Error) => `failed: ${e.message}`,
  );
  await statsBecome(c, 0, q, { waitingPolls: 1 });
  c.pause(1);
  // Handed straight to the waiting poll (reserved for member 1, which cannot answer).
  expect((await c.http(2, 'POST', `/hazelcast/rest/queues/${q}`, 'handed')).status).toBe(200);
  expect((await c.http(2, 'POST', `/hazelcast/rest/queues/${q}`, 'second')).status).toBe(200);
  await statsBecome(c, 2, q, { size: 1, reserved: 1, waitingPolls: 0 });
  await c.kill(1);
  await c.waitForMembers(2);
  await statsBecome(c, 2, q, { size: 2, reserved: 0 });
  expect(await waiting).toMatch(/^failed/);
  expect(await pollBody(c, 0, q)).toEqual({ status: 200, body: 'handed' });
  expect(await pollBody(c, 2, q)).toEqual({ status: 200, body: 'second' });
}, 90_000);

it('reservations survive a kill -9 of the owner: the promoted backup holds them until their member confirms or releases', async () => {
  const c = await startCluster({ size: 3 });
  const q = await ownedBy(c, 0, 'owner-dies');
  for (const v of ['first', BIG, 'tail']) expect((await c.http(2, 'POST', `/hazelcast/rest/queues/${q}`, v, { timeoutMs: 30_000 })).status).toBe(200);
  // Answered and confirmed: must not come back.
  expect(await pollBody(c, 2, q)).toEqual({ status: 200, body: 'first' });
  await statsBecome(c, 2, q, { size: 2, reserved: 0 });
  const client = stuckPoll(c, 1, q);
  await statsBecome(c, 2, q, { size: 1, reserved: 1 });

  await c.kill(0);
  await c.waitForMembers(2);
  await c.waitSafe();
  await statsBecome(c, 2, q, { size: 1, reserved: 1 });
  // The client goes before the answer was written: member 1 releases the item at the new owner.
  client.destroy();
  await statsBecome(c, 2, q, { size: 2, reserved: 0 });
  expect(await pollBody(c, 1, q)).toEqual({ status: 200, body: `big(${BIG.length}, true)` });
  expect(await pollBody(c, 2, q)).toEqual({ status: 200, body: 'tail' });
  expect((await pollBody(c, 1, q)).status).toBe(204);
}, 90_000);

/**
 * Offers and polls (some waiting) through every member while members are killed (-9) and
 * restarted one at a time; afterwards every acknowledged offer was polled at least once.
 * QUEUE_KILL_CYCLES sets the number of kills (default 3).
 */
it('under load through kill -9 cycles, every acknowledged offer is polled at least once', async () => {
  const cycles = Number(process.env.QUEUE_KILL_CYCLES ?? 3);
  const c = await startCluster({ size: 3 });
  const queues = ['jobs-a', 'jobs-b', 'jobs-c'];
  const acked = new Set<string>();
  const polled: string[] = [];
  let stopped = false;
  let seq = 0;
  const through = (): number => {
    const live = c.live();
    return live[Math.floor(Math.random() * live.length)]!.index;
  };
  const worker = async (w: number): Promise<void> => {
    while (!stopped) {
      const q = queues[Math.floor(Math.random() * queues.length)]!;
      try {
        if (Math.random() < 0.5) {
          const v = `w${w}.${seq++}`;
          const res = await c.http(through(), 'POST', `/hazelcast/rest/queues/${q}`, v, { timeoutMs: 15_000 });
          if (res.status === 200) acked.add(v);
        } else {
          const wait = Math.random() < 0.2 ? 1 : 0;
          const res = await c.http(through(), 'GET', `/hazelcast/rest/queues/${q}/${wait}`, undefined, { timeoutMs: 15_000 });
          if (res.status === 200) polled.push(res.body);
        }
      } catch {
        await sleep(20); // back-off: a refused connection fails at once
      }
    }
  };
  const workers = Array.from({ length: 6 }, (_, w) => worker(w));
  for (let k = 0; k < cycles; k++) {
    await waitFor('some load', () => acked.size >= 200 * (k + 1), 60_000, 50);
    const victim = k % 3;
    await c.kill(victim);
    await c.waitForMembers(2);
    await c.waitSafe(60_000);
    await c.restart(victim);
    await c.waitForMembers(3);
    await c.waitSafe(60_000);
  }
  stopped = true;
  await Promise.all(workers);
  // Whatever is left, including items returned by reservations of killed members.
  for (const q of queues) {
    await statsBecome(c, 0, q, { reserved: 0 }, 30_000);
    for (;;) {
      const res = await c.http(0, 'GET', `/hazelcast/rest/queues/${q}/0`);
      if (res.status !== 200) break;
      polled.push(res.body);
    }
  }
  const seen = new Set(polled);
  const lost = [...acked].filter((v) => !seen.has(v));
  const duplicates = polled.length - seen.size;
  console.log(`queue kill cycles: ${cycles}, acknowledged offers ${acked.size}, polled ${polled.length}, lost ${lost.length}, duplicates ${duplicates}`);
  expect(lost).toEqual([]);
}, 600_000);

it('polls answered in one turn are confirmed together, on the owner and its backup: after the owner dies none is reserved or back in the queue', async () => {
  const c = await startCluster({ size: 2 });
  const q = await ownedBy(c, 0, 'batch', 1);
  const values = Array.from({ length: 8 }, (_, i) => `v${i}`);
  for (const v of values) expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${q}`, v)).status).toBe(200);

  // Eight clients poll the owner at once: their polls' backups go out together, the acks come
  // back together, the answers are written in one turn and confirmed together, and the
  // confirm's backup carries them all to member 1.
  const conns = await Promise.all(values.map(() => RawConnection.connect(c.member(0).port)));
  try {
    await Promise.all(conns.map((conn) => conn.write(`GET /hazelcast/rest/queues/${q}/0 HTTP/1.1\r\nHost: test\r\n\r\n`)));
    const got = await Promise.all(conns.map((conn) => conn.read()));
    expect(got.map((r) => r.status)).toEqual(values.map(() => 200));
    expect(got.map((r) => r.body.toString('latin1')).sort()).toEqual(values);
  } finally {
    for (const conn of conns) conn.socket.destroy();
  }
  await statsBecome(c, 0, q, { size: 0, reserved: 0 });
  // An offer acknowledged after that: its sync backup follows the confirms' backups on the same
  // connection, so once it is answered member 1 has applied them too.
  expect((await c.http(0, 'POST', `/hazelcast/rest/queues/${q}`, 'last')).status).toBe(200);

  // The backup, promoted, holds the confirms: a reservation it still had for the dead member
  // would now go back to the queue ahead of `last`.
  await c.kill(0);
  await c.waitForMembers(1, undefined, 30_000, [1]);
  await statsBecome(c, 1, q, { size: 1, reserved: 0 });
  const after = await c.http(1, 'GET', `/hazelcast/rest/queues/${q}/0`);
  expect({ status: after.status, body: after.body }).toEqual({ status: 200, body: 'last' });
}, 60_000);
