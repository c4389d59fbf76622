// The official Node.js client (hazelcast-client 5.7.0, unchanged) against one real Grid member
// process: the shared scenarios (scenarios.ts, also run against a real Hazelcast member in
// official-clients.test.ts) and what only Grid does (its log, its refusals of what it does not
// serve yet). The client runs unisocket (smartRouting: false) here; the default smart client is
// covered on 3 members in cluster.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { clientOptions, SCENARIOS, type ScenarioTarget } from './scenarios.js';

let c: Cluster;
let client: Client;
let target: ScenarioTarget;

beforeAll(async () => {
  c = await startCluster({ size: 1, spare: 0, scope: 'file' });
  client = await Client.newHazelcastClient(clientOptions(c.member(0).address, 'dev'));
  target = { client, address: c.member(0).address, clusterName: 'dev' };
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

  for (const s of SCENARIOS) it(s.name, () => s.run(target), 30_000);

  it('logs a refused cluster name', () => {
    // The refusal itself is a shared scenario above.
    expect(c.member(0).logMessages()).toContain(`client authentication refused: cluster name "not-dev" is not this cluster's`);
  });

  it('refuses an operation Grid does not serve yet with an error, not silence', async () => {
    const m = await client.getMap<string, string>('cm4');
    // Map locks are not served (Grid has no locks).
    await expect(m.lock('k')).rejects.toThrow(/not supported by Grid/);
    // The connection still serves after the refusal.
    expect(await m.size()).toBe(0);
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
