// The differential suite on 3-member clusters (issue 23): a Hazelcast cluster and a Grid
// cluster configured alike answer cluster info, health and management state changes the same
// way from every member, and after a member's kill -9 the survivors report the same. Answers
// are normalised as in rest-diff.ts (addresses, uuids, versions, counts); since the two
// clusters need not number their members alike, each cluster's answers are compared as a
// sorted set over its members. Skips, saying why, without a JDK or Maven.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { REFERENCE_VERSION, referenceUnavailable, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { freePorts } from '../support/ports.js';
import { waitFor } from '../support/process.js';
import { describe as show, send, type DiffCase } from './rest-diff.js';

const unavailable = referenceUnavailable();
const CLUSTER = 'dev';
const GROUPS = ['DATA', 'CLUSTER_WRITE', 'CLUSTER_READ', 'HEALTH_CHECK'];

describe.skipIf(unavailable !== undefined)(`3-member clusters against Hazelcast ${REFERENCE_VERSION}`, () => {
  let hz: HazelcastMember[] = [];
  let grid: Cluster;
  /** Ports of the members still alive, per side. */
  let hzPorts: number[];
  let gridPorts: number[];
  let allPorts: number[];

  beforeAll(async () => {
    const ports = await freePorts(3);
    const properties = { 'hazelcast.heartbeat.interval.seconds': 1, 'hazelcast.max.no.heartbeat.seconds': 5, 'hazelcast.wait.seconds.before.join': 1 };
    const [g, ...h] = await Promise.all([
      startCluster({ size: 3, spare: 0, clusterName: CLUSTER, scope: 'file', wait: 'safe', timeoutMs: 60_000 }),
      ...ports.map((port, i) => startReference({ port, members: ports, clusterName: CLUSTER, instanceName: `ref-${i}`, groups: GROUPS, properties })),
    ]);
    grid = g;
    hz = h;
    hzPorts = [...ports];
    gridPorts = [0, 1, 2].map((i) => grid.member(i).port);
    allPorts = [...hzPorts, ...gridPorts];
    await waitForSize(hzPorts, 3);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...hz.map((m) => m.stop()), grid?.destroy()]);
  });

  /** Every port's /health says `size` members and a safe cluster. */
  async function waitForSize(ports: readonly number[], size: number): Promise<void> {
    await waitFor(
      `${size} members and a safe cluster on ports ${ports.join(', ')}`,
      async () => {
        for (const p of ports) {
          const o = await send(p, { name: 'health', method: 'GET', path: '/hazelcast/health' });
          if (o.kind !== 'answer' || o.status !== 200) return undefined;
          const h = JSON.parse(o.body.toString()) as { clusterSize: number; clusterSafe: boolean };
          if (h.clusterSize !== size || !h.clusterSafe) return undefined;
        }
        return true;
      },
      60_000,
      200,
    );
  }

  /** The answers of every member of one side to the case, normalised, sorted. */
  async function view(ports: readonly number[], c: DiffCase): Promise<string[]> {
    const answers = await Promise.all(ports.map((p) => send(p, c)));
    return answers.map((o) => show(o, allPorts)).sort();
  }

  async function same(c: DiffCase): Promise<void> {
    const [h, g] = await Promise.all([view(hzPorts, c), view(gridPorts, c)]);
    expect(g, `${c.method} ${c.path}: Grid's members (left) against Hazelcast's`).toEqual(h);
  }

  const mgmt = (op: string, body: string): DiffCase => ({ name: op, method: 'POST', path: `/hazelcast/rest/management/cluster/${op}`, body, headers: [['Content-Type', 'application/x-www-form-urlencoded']] });
  const get = (path: string): DiffCase => ({ name: path, method: 'GET', path });

  it('cluster info, instance and health from every member', async () => {
    await same(get('/hazelcast/rest/cluster'));
    await same(get('/hazelcast/health'));
    await same(get('/hazelcast/health/cluster-size'));
    await same(get('/hazelcast/health/cluster-safe'));
    await same(mgmt('state', `${CLUSTER}&`));
  }, 60_000);

  it('a state change asked of one member holds on every member', async () => {
    for (const [to, seen] of [
      ['frozen', 'FROZEN'],
      ['passive', 'PASSIVE'],
      ['active', 'ACTIVE'],
    ] as const) {
      const [h, g] = await Promise.all([send(hzPorts[0]!, mgmt('changeState', `${CLUSTER}&&${to}`)), send(gridPorts[0]!, mgmt('changeState', `${CLUSTER}&&${to}`))]);
      expect(show(g, allPorts), `changeState ${to}`).toBe(show(h, allPorts));
      await waitFor(`cluster state ${seen} everywhere`, async () => {
        const states = await view([...hzPorts, ...gridPorts], get('/hazelcast/health/cluster-state'));
        return states.every((s) => s.includes(seen)) ? true : undefined;
      }, 20_000, 200);
      await same(mgmt('state', `${CLUSTER}&`));
      await same(get('/hazelcast/health'));
    }
  }, 90_000);

  it("after a member's kill -9 the survivors report the same", async () => {
    await Promise.all([hz[2]!.kill(), grid.kill(2)]);
    hzPorts = hzPorts.slice(0, 2);
    gridPorts = gridPorts.slice(0, 2);
    await Promise.all([waitForSize(hzPorts, 2), waitForSize(gridPorts, 2)]);
    await same(get('/hazelcast/rest/cluster'));
    await same(get('/hazelcast/health'));
    await same(mgmt('nodes', `${CLUSTER}&`));
  }, 90_000);
});
