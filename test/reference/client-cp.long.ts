// The Node.js client's CP scenarios (CP_SCENARIOS in test/client/scenarios.ts) against 3
// Hazelcast 5.4.0 members with the CP subsystem on (5.7.0 open source has no CP: there the
// client is refused, a shared scenario in npm test) and against 3 Grid members with CP on, so
// the atomic long answers Grid gives are Hazelcast's. For `npm run test:reference-long` only:
// three more JVMs cost too much for npm test (Grid's side alone runs in queue-cp.test.ts).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { HAZELCAST_CP_VERSION, referenceUnavailable, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { freePorts } from '../support/ports.js';
import { CP_SCENARIOS, clientOptions, type ScenarioTarget } from '../client/scenarios.js';

const unavailable = referenceUnavailable(HAZELCAST_CP_VERSION);

describe.skipIf(unavailable !== undefined)(`the Node.js client's CP scenarios on Grid and on Hazelcast ${HAZELCAST_CP_VERSION} (3 CP members each)`, () => {
  let grid: Cluster;
  let hz: HazelcastMember[] = [];
  const targets: Record<string, ScenarioTarget> = {};

  beforeAll(async () => {
    const ports = await freePorts(3);
    const properties = { 'hazelcast.heartbeat.interval.seconds': 1, 'hazelcast.max.no.heartbeat.seconds': 5, 'hazelcast.wait.seconds.before.join': 1 };
    const [g, ...h] = await Promise.all([
      startCluster({ size: 3, spare: 0, scope: 'file', timeoutMs: 60_000, config: () => ({ 'cp-subsystem': { 'cp-member-count': 3 } }) }),
      ...ports.map((port, i) => startReference({ version: HAZELCAST_CP_VERSION, port, members: ports, clusterName: 'dev', instanceName: `ccp-${i}`, properties, cp: 3 })),
    ]);
    grid = g;
    hz = h;
    for (const [name, address] of [
      ['Hazelcast', `127.0.0.1:${ports[0]}`],
      ['Grid', grid.member(0).address],
    ] as const) {
      // The first CP call waits until the CP subsystem has formed (the client retries until then).
      const client = await Client.newHazelcastClient(clientOptions(address, 'dev', { smartRouting: true }));
      targets[name] = { client, address, clusterName: 'dev' };
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(targets).map((t) => t.client.shutdown()));
    await Promise.all([grid?.destroy(), ...hz.map((m) => m.stop())]);
  });

  for (const name of ['Hazelcast', 'Grid']) {
    describe(name, () => {
      for (const s of CP_SCENARIOS) it(s.name, () => s.run(targets[name]!), 90_000);
    });
  }
});
