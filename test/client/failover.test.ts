// Failover under client load (issue 24): 3 members (backup-count 1), 4 official Node.js clients
// with their default options (smart routing) writing unique map keys and offering unique queue
// items without a pause. A member killed with SIGKILL, the same member restarted, and a member
// paused with SIGSTOP past the heartbeat deadline: every acknowledged write is there afterwards
// (over REST and over a client), the queue keeps the at-least-once rule (client-load.ts), the
// clients follow the member view, reconnect to the restarted member and go on without the
// paused one, which fences itself when it resumes. One cluster and one set of clients serve the
// phases in order. With CLIENT_FAILOVER_JAVA=1 the official Java client writes through the
// kill -9 as well.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'hazelcast-client';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { connectClients, drainQueue, judgeQueue, startClientLoad, type ClientLoad } from '../support/client-load.js';
import { waitFor } from '../support/process.js';
import { compileJava, javaUnavailable, startJava, type JavaProcess } from '../support/java.js';

/** Acknowledged calls before a fault and after it: a few seconds of load on a loaded machine (CLIENT_FAILOVER_ACKS: longer). */
const ACKS = Number(process.env.CLIENT_FAILOVER_ACKS ?? 400);

/** The clients' heartbeat timeout (Hazelcast's default: 60 s). */
const HEARTBEAT_TIMEOUT_MS = 8_000;

let c: Cluster;
let clients: Client[];
/** The Java client's load: started with the Node clients (its JVM's start overlaps theirs), ended after the kill -9. */
let java: JavaProcess | undefined;
/**
 * CLIENT_FAILOVER_JAVA=1 adds the Java client's load program to the kill -9 phase (ClientLoad.java).
 * Off in npm test: its JVM and client take 10-15 s to start on a loaded 2-core machine.
 */
const withJava = process.env.CLIENT_FAILOVER_JAVA === '1' && javaUnavailable() === undefined;
const javaClasspath = withJava ? compileJava('ClientLoad') : undefined;

beforeAll(async () => {
  c = await startCluster({
    size: 3,
    spare: 0,
    scope: 'file',
    config: () => ({ map: { default: { 'backup-count': 1 } }, queue: { default: { 'backup-count': 1 } } }),
  });
  // A client hears of member changes from the one member its view listener is on. When that
  // member is the one paused, only the client's heartbeat timeout (60 s by default, as in
  // Hazelcast's clients) closes the connection and moves the listener: shortened here so the
  // pause phase fits in npm test (docs/clients.md).
  // The Java client writes beside the Node clients (ClientLoad.java), to its own map.
  java = javaClasspath === undefined ? undefined : startJava(javaClasspath, 'ClientLoad', ['dev', c.members.map((m) => m.address).join(','), 'fm-java']);
  clients = await connectClients(c.members.map((m) => m.address), 4, { properties: { 'hazelcast.client.heartbeat.timeout': HEARTBEAT_TIMEOUT_MS } });
}, 90_000);

afterAll(async () => {
  java?.endInput();
  await java?.exited(30_000);
  await Promise.all((clients ?? []).map((cl) => cl.shutdown()));
  await c?.destroy();
});

/** The member (index) owning `queue`'s partition now. */
async function ownerOf(queue: string, asking: number): Promise<number> {
  const table = await c.partitions(asking);
  return c.byUuid(table.partitions[partitionIdOf(queue)]![0]!).index;
}

/** Waits until every client lists exactly the uuids of `members`. */
async function clientsSee(members: readonly number[], timeoutMs = 30_000): Promise<void> {
  const want = members.map((i) => c.member(i).uuid).sort().join();
  await waitFor(
    `every client to list members ${members.join(', ')}`,
    () => clients.every((cl) => cl.getCluster().getMembers().map((m) => m.uuid.toString()).sort().join() === want),
    timeoutMs,
    50,
  );
}

/** Every acknowledged key, read over REST through `through` (alternating) and through a client. */
async function missingAcked(load: ClientLoad, map: string, through: readonly number[]): Promise<{ rest: string[]; client: string[] }> {
  const keys = [...load.acked.keys()];
  const rest: string[] = [];
  const viaClient: string[] = [];
  const m = await clients[0]!.getMap<string, string>(map);
  for (let j = 0; j < keys.length; j += 64) {
    const batch = keys.slice(j, j + 64);
    const [overRest, overClient] = await Promise.all([
      Promise.all(batch.map((k, n) => c.http(through[n % through.length]!, 'GET', `/hazelcast/rest/maps/${map}/${k}`))),
      Promise.all(batch.map((k) => m.get(k))),
    ]);
    batch.forEach((k, n) => {
      if (overRest[n]!.body !== load.acked.get(k)) rest.push(`${k}=${overRest[n]!.status}`);
      if (overClient[n] !== load.acked.get(k)) viaClient.push(`${k}=${String(overClient[n])}`);
    });
  }
  return { rest, client: viaClient };
}

/** The Java client's load ended: it saw the survivors only, and each write it acknowledged reads back over REST. */
async function checkJava(java: JavaProcess, survivors: readonly number[]): Promise<void> {
  expect(await java.exited(60_000), java.log().slice(-3000)).toBe(0);
  const members = java.lines.find((l) => l.startsWith('M'))?.split(' ').slice(1).sort();
  expect(members).toEqual(survivors.map((i) => c.member(i).uuid).sort());
  const acked = java.lines.filter((l) => l.startsWith('A ')).map((l) => l.slice(2));
  const missing: string[] = [];
  for (let j = 0; j < acked.length; j += 64) {
    const batch = acked.slice(j, j + 64);
    const got = await Promise.all(batch.map((k, n) => c.http(survivors[n % survivors.length]!, 'GET', `/hazelcast/rest/maps/fm-java/${k}`)));
    batch.forEach((k, n) => {
      if (got[n]!.body !== `v${k.slice(k.indexOf('-k') + 2)}`) missing.push(`${k}=${got[n]!.status}`);
    });
  }
  const failed = java.lines.filter((l) => l.startsWith('F ')).length;
  expect(missing.slice(0, 10), `${missing.length} of ${acked.length} Java writes missing (${failed} failed)`).toEqual([]);
}

function summary(load: ClientLoad, judged?: ReturnType<typeof judgeQueue>): string {
  const shown = judged === undefined ? '' : `; queue: ${JSON.stringify({ lost: judged.lost.length, invented: judged.invented.length, duplicated: judged.duplicated.length, some: [...judged.lost, ...judged.invented, ...judged.duplicated].slice(0, 12) })}`;
  return `${load.acked.size} sets and ${load.offered.size} offers acknowledged, ${load.failed.size} sets and ${load.offerFailed.size} offers failed; errors ${JSON.stringify([...load.errors])}${shown}`;
}

describe('official Node.js clients under load on 3 members (backup-count 1)', () => {
  let killed = -1;

  it('kill -9 of the queue\'s owner: no acknowledged write lost, the queue at least once, the clients see the new view', async () => {
    await clientsSee([0, 1, 2]);
    killed = await ownerOf('fq-a', 0);
    const survivors = [0, 1, 2].filter((i) => i !== killed);
    const fault = { from: Infinity, to: -Infinity };
    const javaAcks = (): number => java?.lines.filter((l) => l.startsWith('A ')).length ?? 0;
    const load = await startClientLoad(clients, { map: 'fm-a', queue: 'fq-a', prefix: 'a' });
    try {
      await load.waitForAcks(ACKS);
      if (java !== undefined) {
        const j = java;
        await waitFor('the Java client to connect', () => j.lines.includes('R'), 60_000);
        j.send('go');
        await waitFor(`the Java client's first ${ACKS / 4} writes`, () => javaAcks() >= ACKS / 4, 30_000);
      }
      fault.from = Date.now();
      await c.kill(killed);
      await clientsSee(survivors);
      fault.to = Date.now();
      // The clients go on with the survivors.
      const javaBefore = javaAcks();
      await load.waitForAcks(ACKS);
      if (java !== undefined) await waitFor('the Java client to go on writing', () => javaAcks() >= javaBefore + ACKS / 4, 30_000);
    } finally {
      await load.stop();
      java?.endInput();
    }
    await c.waitSafe(30_000);
    const missing = await missingAcked(load, 'fm-a', survivors);
    expect(missing, summary(load)).toEqual({ rest: [], client: [] });
    if (java !== undefined) await checkJava(java, survivors);
    java = undefined;
    const judged = judgeQueue(load, await drainQueue(clients[1]!, 'fq-a'), [fault]);
    expect(judged, summary(load, judged)).toEqual({ lost: [], invented: [], duplicated: [] });
  }, 120_000);

  it('the restarted member is reconnected by every client and serves their writes', async () => {
    expect(killed).toBeGreaterThanOrEqual(0);
    const restarted = await c.restart(killed);
    await c.waitForMembers(3);
    await c.waitSafe(30_000);
    await clientsSee([0, 1, 2]);
    // A smart client connects to each member it learns of.
    await waitFor('the 4 clients to authenticate on the restarted member', () => restarted.logMessages().filter((l) => l === 'client authenticated').length >= 4, 30_000);
    const load = await startClientLoad(clients, { map: 'fm-b', queue: 'fq-b', prefix: 'b' });
    try {
      await load.waitForAcks(ACKS);
    } finally {
      await load.stop();
    }
    expect(await missingAcked(load, 'fm-b', [0, 1, 2]), summary(load)).toEqual({ rest: [], client: [] });
    const judged = judgeQueue(load, await drainQueue(clients[2]!, 'fq-b'));
    expect(judged, summary(load, judged)).toEqual({ lost: [], invented: [], duplicated: [] });
  }, 120_000);

  it('a member paused past the heartbeat deadline is fenced; the clients go on with the others', async () => {
    const paused = await ownerOf('fq-c', 0);
    const others = [0, 1, 2].filter((i) => i !== paused);
    const fault = { from: Infinity, to: -Infinity };
    const load = await startClientLoad(clients, { map: 'fm-c', queue: 'fq-c', prefix: 'c' });
    try {
      await load.waitForAcks(ACKS);
      fault.from = Date.now();
      c.pause(paused);
      await c.waitForMembers(2, undefined, 30_000, others);
      await clientsSee(others);
      fault.to = Date.now();
      await load.waitForAcks(ACKS);
    } finally {
      await load.stop();
    }
    // Back from its pause, the removed member finds itself out of the cluster and stops.
    c.resume(paused);
    await c.waitExit(paused, 30_000);
    await c.waitSafe(30_000, 2, others);
    expect(await missingAcked(load, 'fm-c', others), summary(load)).toEqual({ rest: [], client: [] });
    const judged = judgeQueue(load, await drainQueue(clients[3]!, 'fq-c'), [fault]);
    expect(judged, summary(load, judged)).toEqual({ lost: [], invented: [], duplicated: [] });
    await clientsSee(others);
  }, 120_000);
});
