// The official Node.js client (hazelcast-client 5.7.0, unchanged) against one real Grid member
// process: connect, map and queue operations, and the value mapping between binary clients and
// REST (docs/clients.md). The client runs unisocket (smartRouting: false) here; the default
// smart client is covered on 3 members in cluster.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';

let c: Cluster;
let client: Client;

function clientOptions(clusterName = 'dev'): Parameters<typeof Client.newHazelcastClient>[0] {
  return {
    clusterName,
    network: { clusterMembers: [c.member(0).address], smartRouting: false },
    // Without this the client logs to stdout; its warnings are not what these tests read.
    properties: { 'hazelcast.logging.level': 'OFF' },
  };
}

/** A REST GET with the body as bytes (the harness's http() decodes UTF-8). */
async function restGet(path: string): Promise<{ status: number; contentType: string | null; bytes: Buffer }> {
  const res = await fetch(`http://${c.member(0).address}${path}`);
  return { status: res.status, contentType: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  c = await startCluster({ size: 1, spare: 0, scope: 'file' });
  client = await Client.newHazelcastClient(clientOptions());
}, 60_000);

afterAll(async () => {
  await client?.shutdown();
  await c?.destroy();
});

describe('hazelcast-client 5.7.0 on one Grid member', () => {
  it('connects: the members view names the Grid member', () => {
    const members = client.getCluster().getMembers();
    expect(members.map((m) => m.uuid.toString())).toEqual([c.member(0).uuid]);
    expect(members[0]!.address.port).toBe(c.member(0).port);
    expect(client.getLifecycleService().isRunning()).toBe(true);
  });

  it('map put/get/set/containsKey/size/remove/delete/clear', async () => {
    const m = await client.getMap<string, string>('cm1');
    expect(await m.put('k1', 'v1')).toBeNull();
    expect(await m.get('k1')).toBe('v1');
    expect(await m.put('k1', 'v2')).toBe('v1');
    await m.set('k2', 'héllo');
    expect(await m.get('k2')).toBe('héllo');
    expect(await m.containsKey('k1')).toBe(true);
    expect(await m.containsKey('nope')).toBe(false);
    expect(await m.get('nope')).toBeNull();
    expect(await m.size()).toBe(2);
    expect(await m.isEmpty()).toBe(false);
    expect(await m.remove('k1')).toBe('v2');
    expect(await m.remove('k1')).toBeNull();
    await m.delete('k2');
    expect(await m.size()).toBe(0);
    await m.set('a', '1');
    await m.set('b', '2');
    await m.clear();
    expect(await m.size()).toBe(0);
    expect(await m.isEmpty()).toBe(true);
  });

  it('keeps byte arrays, JSON and other types as written', async () => {
    const m = await client.getMap<string, unknown>('cm2');
    await m.set('buf', Buffer.from([0, 1, 2, 255]));
    expect(Buffer.compare((await m.get('buf')) as Buffer, Buffer.from([0, 1, 2, 255]))).toBe(0);
    await m.set('json', { a: 1, b: ['x'] });
    expect(await m.get('json')).toEqual({ a: 1, b: ['x'] });
    await m.set('num', 1.5);
    expect(await m.get('num')).toBe(1.5);
    await m.set('bool', true);
    expect(await m.get('bool')).toBe(true);
  });

  it('a string written by the client is text/plain over REST, and REST values reach the client as RestValue', async () => {
    const m = await client.getMap<string, unknown>('cm3');
    await m.set('s', 'from-client');
    const got = await c.http(0, 'GET', '/hazelcast/rest/maps/cm3/s');
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('text/plain');
    expect(got.body).toBe('from-client');

    await m.set('b', Buffer.from([0xff, 0x00, 0x80]));
    const bin = await restGet('/hazelcast/rest/maps/cm3/b');
    expect(bin.contentType).toBe('application/binary');
    expect(bin.bytes.toString('hex')).toBe('ff0080');
    await m.set('j', { k: 'v' });
    const json = await c.http(0, 'GET', '/hazelcast/rest/maps/cm3/j');
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body)).toEqual({ k: 'v' });
    // Any other type: the whole serialized Data, as Hazelcast serves it (Node number -> Double).
    await m.set('n', 1);
    const num = await restGet('/hazelcast/rest/maps/cm3/n');
    expect(num.contentType).toBe('application/binary');
    expect(num.bytes.toString('hex')).toBe('00000000fffffff63ff0000000000000');

    expect((await c.http(0, 'POST', '/hazelcast/rest/maps/cm3/r1', 'hello', { contentType: 'text/plain' })).status).toBe(200);
    const rv = (await m.get('r1')) as { value: string; contentType: string | null };
    expect({ value: rv.value, contentType: rv.contentType }).toEqual({ value: 'hello', contentType: 'text/plain' });
  });

  it('queue offer/peek/size/poll, and a poll that waits for an item', async () => {
    const q = await client.getQueue<string>('cq1');
    expect(await q.offer('a')).toBe(true);
    expect(await q.offer('b')).toBe(true);
    expect(await q.size()).toBe(2);
    expect(await q.peek()).toBe('a');
    expect(await q.poll()).toBe('a');
    expect(await q.poll()).toBe('b');
    expect(await q.poll()).toBeNull();
    expect(await q.peek()).toBeNull();
    expect(await q.isEmpty()).toBe(true);

    const waiting = q.poll(10_000);
    // The item comes over REST while the client's poll waits at the member.
    expect((await c.http(0, 'POST', '/hazelcast/rest/queues/cq1', 'late', { contentType: 'text/plain' })).status).toBe(200);
    const item = (await waiting) as unknown as { value: string; contentType: string };
    expect(item.value).toBe('late');
    expect(await q.size()).toBe(0);

    await q.offer('to-rest');
    const polled = await c.http(0, 'GET', '/hazelcast/rest/queues/cq1/1');
    expect(polled.headers['content-type']).toBe('text/plain');
    expect(polled.body).toBe('to-rest');
  });

  it('refuses an operation Grid does not serve yet with an error, not silence', async () => {
    const m = await client.getMap<string, string>('cm4');
    await expect(m.putIfAbsent('k', 'v')).rejects.toThrow(/not supported by Grid/);
    // The connection still serves after the refusal.
    expect(await m.size()).toBe(0);
  });

  it('refuses a wrong cluster name with the client authentication error, and logs it', async () => {
    const opts = clientOptions('not-dev');
    const failing = Client.newHazelcastClient({
      ...opts,
      connectionStrategy: { connectionRetry: { clusterConnectTimeoutMillis: 1_000 } },
    });
    // A client that did connect (the refusal broken) is shut down, so the failure is reported, not hung.
    const outcome = await failing.then(
      async (connected) => {
        await connected.shutdown();
        return 'connected';
      },
      (e: Error) => e.message,
    );
    expect(outcome).toMatch(/Unable to connect to any cluster/);
    expect(c.member(0).logMessages()).toContain(`client authentication refused: cluster name "not-dev" is not this cluster's`);
  });
});

describe('hazelcast-client 5.7.0: keySet, values, entrySet (the map scan)', () => {
  it('return every entry once, values mapped as for get, REST-written values as RestValue', async () => {
    const m = await client.getMap<string, unknown>('cviews');
    const keys = Array.from({ length: 300 }, (_, n) => `k${n}`);
    await Promise.all(keys.map((k) => m.set(k, `v-${k}`)));
    await m.set('bytes', Buffer.from([1, 2, 255]));
    await m.set('json', { a: 1 });
    expect((await c.http(0, 'POST', '/grid/rest/maps/cviews/rest', 'from-rest', { contentType: 'text/plain' })).status).toBe(200);
    const all = [...keys, 'bytes', 'json', 'rest'];

    const keySet = await m.keySet();
    expect(keySet.length).toBe(all.length);
    expect(new Set(keySet)).toEqual(new Set(all));

    const values = await m.values();
    expect(values.size()).toBe(all.length);

    const entries = await m.entrySet();
    expect(entries.length).toBe(all.length);
    const byKey = new Map(entries);
    expect(byKey.get('k7')).toBe('v-k7');
    expect(Buffer.from(byKey.get('bytes') as Buffer).toString('hex')).toBe('0102ff');
    expect(byKey.get('json')).toEqual({ a: 1 });
    const rv = byKey.get('rest') as { value: string; contentType: string | null };
    expect({ value: rv.value, contentType: rv.contentType }).toEqual({ value: 'from-rest', contentType: 'text/plain' });
    // The values list holds the same values.
    expect(values.toArray().filter((v) => v === 'v-k7')).toEqual(['v-k7']);
    // And REST lists the same keys.
    let listed: string[] = [];
    let cursor: string | null = null;
    do {
      const page = JSON.parse((await c.http(0, 'GET', `/grid/rest/maps/cviews?keys&limit=1000${cursor === null ? '' : `&cursor=${cursor}`}`)).body) as { keys: string[]; cursor: string | null };
      listed = listed.concat(page.keys);
      cursor = page.cursor;
    } while (cursor !== null);
    expect(listed.sort()).toEqual([...all].sort());
  });

  it('an empty or unknown map has empty views', async () => {
    const m = await client.getMap<string, string>('cviews-empty');
    expect(await m.keySet()).toEqual([]);
    expect((await m.values()).size()).toBe(0);
    expect(await m.entrySet()).toEqual([]);
  });
});
