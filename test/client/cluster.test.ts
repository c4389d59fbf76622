// The official Node.js client with its default options (smart routing on) against 3 real Grid
// members. Grid places keys as Hazelcast does, so the client sends each key's operation to its
// owner (the members' forwarded-request counters stay at 0); a request that reaches another
// member still runs where it belongs. The members view follows the cluster: a member killed
// with SIGKILL leaves the client's member list.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import { parsePrometheus, sampleValue } from '../support/prometheus.js';

let c: Cluster;
let client: Client;

beforeAll(async () => {
  c = await startCluster({ size: 3, spare: 0, scope: 'file' });
  client = await Client.newHazelcastClient({
    clusterName: 'dev',
    network: { clusterMembers: [c.member(0).address] },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
}, 90_000);

afterAll(async () => {
  await client?.shutdown();
  await c?.destroy();
});

describe('hazelcast-client 5.7.0 (smart routing) on 3 Grid members', () => {
  it('sees the 3 members and connects to each', async () => {
    const uuids = c.members.map((m) => m.uuid).sort();
    expect(client.getCluster().getMembers().map((m) => m.uuid.toString()).sort()).toEqual(uuids);
    // The smart client opens a connection to every member in the view.
    await waitFor('the client authenticated on every member', () => [0, 1, 2].every((i) => c.member(i).logMessages().includes('client authenticated')), 10_000);
  });

  it('every key\'s operation runs on its owner, whatever member the client chose', async () => {
    const m = await client.getMap<string, string>('smart1');
    for (let i = 0; i < 300; i++) await m.set(`k${i}`, `v${i}`);
    const wrong: string[] = [];
    for (let i = 0; i < 300; i++) if ((await m.get(`k${i}`)) !== `v${i}`) wrong.push(`k${i}`);
    expect(wrong).toEqual([]);
    expect(await m.size()).toBe(300);
    // REST on each member reads what the client wrote.
    for (const i of [0, 1, 2]) {
      const r = await c.http(i, 'GET', `/hazelcast/rest/maps/smart1/k${i * 7}`);
      expect([r.status, r.headers['content-type'], r.body]).toEqual([200, 'text/plain', `v${i * 7}`]);
    }
    const q = await client.getQueue<string>('smartq');
    expect(await q.offer('x')).toBe(true);
    expect(await q.poll()).toBe('x');
  });

  it('smart routing reaches the owner: no keyed request is forwarded once the client knows every member and the partition table', async () => {
    const counts = async (): Promise<{ keyed: number; forwarded: number }> => {
      let keyed = 0;
      let forwarded = 0;
      for (const i of [0, 1, 2]) {
        const res = await c.http(i, 'GET', '/metrics');
        expect(res.status).toBe(200);
        const f = parsePrometheus(res.body);
        keyed += sampleValue(f, 'grid_client_keyed_requests_total') ?? NaN;
        forwarded += sampleValue(f, 'grid_client_keyed_requests_forwarded_total') ?? NaN;
      }
      return { keyed, forwarded };
    };
    const m = await client.getMap<string, string>('smart3');
    const before = await counts();
    for (let i = 0; i < 200; i++) await m.set(`r${i}`, `v${i}`);
    for (let i = 0; i < 200; i++) expect(await m.get(`r${i}`)).toBe(`v${i}`);
    const after = await counts();
    expect(after.keyed - before.keyed).toBe(400);
    expect(after.forwarded - before.forwarded).toBe(0);
  });

  it('a member killed with SIGKILL leaves the client\'s members view; the data stays readable', async () => {
    const m = await client.getMap<string, string>('smart2');
    for (let i = 0; i < 100; i++) await m.set(`k${i}`, `v${i}`);
    const killed = c.member(2).uuid;
    await c.kill(2);
    await waitFor(
      'the client to drop the killed member',
      () => client.getCluster().getMembers().every((x) => x.uuid.toString() !== killed) && client.getCluster().getMembers().length === 2,
      30_000,
    );
    await c.waitSafe(30_000);
    // Gets are retryable: the client retries those that met the dead connection.
    for (let i = 0; i < 100; i++) expect(await m.get(`k${i}`)).toBe(`v${i}`);
  }, 90_000);
});
