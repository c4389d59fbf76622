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
