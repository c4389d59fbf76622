// Several members in this one process forming a cluster over loopback, seen through their
// REST interface: member authentication, /rest/cluster, management/cluster/nodes, /health,
// cluster state changes, and a graceful stop that keeps every entry readable.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { GridError } from '../../src/core/errors.js';
import { Member } from '../../src/member/member.js';
import { sendRequest, type RawResponse } from '../support/http.js';
import { LogCapture, restConfig, startMember, type StartedMember } from '../support/member.js';
import { freePorts } from '../support/ports.js';
import { waitFor } from '../support/process.js';

const CLUSTER = 'inproc';
const PROPERTIES = { 'hazelcast.heartbeat.interval.seconds': 1, 'hazelcast.max.no.heartbeat.seconds': 5 };

interface ClusterInfo {
  members: { address: string; liteMember: boolean; localMember: boolean; uuid: string; memberVersion: string }[];
  connectionCount: number;
  allConnectionCount: number;
}

interface Health {
  nodeState: string;
  clusterState: string;
  clusterSafe: boolean;
  migrationQueueSize: number;
  clusterSize: number;
}

/** The raw config of the member on `port`, listing every port of the cluster. */
function memberConfig(ports: readonly number[], port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return restConfig(undefined, {
    'cluster-name': CLUSTER,
    network: {
      port: { port, 'auto-increment': false },
      join: {
        multicast: { enabled: false },
        'tcp-ip': { enabled: true, 'member-list': ports.map((p) => `127.0.0.1:${p}`) },
      },
    },
    properties: PROPERTIES,
    map: { default: { 'backup-count': 1 } },
    ...extra,
  });
}

function json<T>(r: RawResponse): T {
  return JSON.parse(r.body.toString('utf8')) as T;
}

async function get<T>(m: StartedMember, path: string): Promise<T> {
  const r = await sendRequest(m.port, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path} on ${m.port} answered ${r.status} ${r.headers['x-grid-error'] ?? ''}`);
  return json<T>(r);
}

const clusterInfo = (m: StartedMember): Promise<ClusterInfo> => get<ClusterInfo>(m, '/hazelcast/rest/cluster');
const health = (m: StartedMember): Promise<Health> => get<Health>(m, '/hazelcast/health');

/** Waits until every member lists exactly `expected` (uuids, in order). */
async function converged(members: readonly StartedMember[], expected: readonly string[], timeoutMs = 10_000): Promise<void> {
  await waitFor(
    `every member listing ${expected.length} members`,
    async () => {
      for (const m of members) {
        const uuids = (await clusterInfo(m)).members.map((x) => x.uuid);
        if (JSON.stringify(uuids) !== JSON.stringify(expected)) return false;
      }
      return true;
    },
    timeoutMs,
    50,
  );
}

async function clusterSafe(members: readonly StartedMember[], timeoutMs = 15_000): Promise<void> {
  await waitFor(
    'every member cluster-safe',
    async () => {
      for (const m of members) if ((await sendRequest(m.port, 'GET', '/hazelcast/health/cluster-safe')).status !== 200) return false;
      return true;
    },
    timeoutMs,
    50,
  );
}

/** Starts `n` members one after the other (so the join order is the start order). */
async function startCluster(n: number, extra: Record<string, unknown> = {}): Promise<StartedMember[]> {
  const ports = await freePorts(n);
  const members: StartedMember[] = [];
  for (const port of ports) members.push(await startMember(memberConfig(ports, port, extra)));
  await converged(members, members.map((m) => m.member.uuid));
  return members;
}

const post = (m: StartedMember, path: string, body: string): Promise<RawResponse> =>
  sendRequest(m.port, 'POST', path, { body, headers: { 'Content-Type': 'text/plain' } });

// ---------------------------------------------------------------- member authentication

const MEMBER_REALM_USER = { username: 'member', password: 'm-secret' };

function security(identity: { username: string; password: string } | undefined): Record<string, unknown> {
  return {
    security: {
      enabled: true,
      realms: [
        {
          name: 'members',
          ...(identity ? { identity: { 'username-password': identity } } : {}),
          authentication: { simple: { users: [{ ...MEMBER_REALM_USER, roles: ['member'] }] } },
        },
        { name: 'clients', authentication: { simple: { users: [{ username: 'admin', password: 'a-secret', roles: ['admin'] }] } } },
      ],
      'member-authentication': { realm: 'members' },
      'client-authentication': { realm: 'clients' },
    },
  };
}

/** Member.start of a member that is expected to fail; its logs are kept. */
async function startFailing(raw: Record<string, unknown>): Promise<{ error: unknown; logs: LogCapture; took: number }> {
  const { config, warnings } = configFromObject(raw);
  const logs = new LogCapture();
  const started = Date.now();
  try {
    const m = await Member.start({ config, logDestination: logs, configWarnings: warnings });
    await m.stop();
    return { error: undefined, logs, took: Date.now() - started };
  } catch (e) {
    return { error: e, logs, took: Date.now() - started };
  }
}

describe('in-process cluster: member authentication', () => {
  it('members with the right identity join; a member with a wrong or missing identity fails to start with FORBIDDEN, and the cluster logs why', async () => {
    const ports = await freePorts(4);
    const raw = (i: number, identity: { username: string; password: string } | undefined): Record<string, unknown> =>
      memberConfig(ports, ports[i]!, security(identity));
    const m1 = await startMember(raw(0, MEMBER_REALM_USER));
    const m2 = await startMember(raw(1, MEMBER_REALM_USER));
    const both = [m1.member.uuid, m2.member.uuid];
    await converged([m1, m2], both);

    // Wrong password.
    const wrong = await startFailing(raw(2, { username: 'member', password: 'not-it' }));
    expect(wrong.error).toBeInstanceOf(GridError);
    expect((wrong.error as GridError).code).toBe('FORBIDDEN');
    expect((wrong.error as GridError).message).toMatch(/refused this member's credentials: wrong member credentials for user "member"/);
    expect(wrong.took).toBeLessThan(10_000); // refused at once, not after the 300 s join limit
    const refusedWrong = `wrong member credentials for user "member"`;
    await waitFor('the refusal logged by a member of the cluster', () =>
      [m1, m2].some((m) => m.logs.messages().includes(`refused member 127.0.0.1:${ports[2]}: ${refusedWrong}`)),
    );
    // The joiner's own log says why it could not join (grid-behavior.md §7: "a clear log line on both sides").
    expect(wrong.logs.messages().some((msg) => msg.includes(refusedWrong)), wrong.logs.messages().join('\n')).toBe(true);

    // No identity at all (the member realm has users but no identity to present).
    const missing = await startFailing(raw(3, undefined));
    expect((missing.error as GridError).code).toBe('FORBIDDEN');
    expect((missing.error as GridError).message).toMatch(/it presented no identity/);
    await waitFor('the second refusal logged', () =>
      [m1, m2].some((m) => m.logs.messages().includes(`refused member 127.0.0.1:${ports[3]}: it presented no identity (security is enabled)`)),
    );
    expect(missing.logs.messages().some((msg) => msg.includes('it presented no identity')), missing.logs.messages().join('\n')).toBe(true);

    // Passwords never reach any log.
    const allLogs = JSON.stringify([m1.logs.lines, m2.logs.lines, wrong.logs.lines, missing.logs.lines]);
    expect(allLogs).not.toContain('not-it');
    expect(allLogs).not.toContain('m-secret');

    // The cluster is unchanged.
    await converged([m1, m2], both);
    expect((await health(m1)).clusterSize).toBe(2);
  }, 30_000);
});

// ---------------------------------------------------------------- cluster views

describe('in-process cluster: what every member reports', () => {
  it('/rest/cluster lists the same members in join order everywhere; localMember marks the answering one', async () => {
    const members = await startCluster(3);
    const uuids = members.map((m) => m.member.uuid);
    for (const m of members) {
      const info = await clusterInfo(m);
      expect(info.members.map((x) => x.uuid)).toEqual(uuids);
      expect(info.members.map((x) => x.address)).toEqual(members.map((x) => `127.0.0.1:${x.port}`));
      expect(info.members.map((x) => x.localMember)).toEqual(members.map((x) => x === m));
      for (const x of info.members) expect(x.liteMember).toBe(false);
    }
    // Member connections count in allConnectionCount, one per direction per pair, once
    // heartbeats have flowed every way.
    await waitFor(
      'two member connections per peer on every member',
      async () => {
        for (const m of members) {
          const info = await clusterInfo(m);
          if (info.allConnectionCount - info.connectionCount !== 2 * (members.length - 1)) return false;
        }
        return true;
      },
      5_000,
      50,
    );
    for (const m of members) {
      const info = await clusterInfo(m);
      expect(info.connectionCount).toBeGreaterThanOrEqual(1); // this request's own connection
      expect(info.allConnectionCount).toBeGreaterThan(info.connectionCount);
    }
  }, 30_000);

  it('management/cluster/nodes lists every member, marking the answering one', async () => {
    const members = await startCluster(3);
    // Hazelcast's shape (checked against a real Hazelcast member by test/reference/): the member
    // collection's toString() in join order, then the member version and the runtime version.
    for (const m of members) {
      const r = await post(m, '/hazelcast/rest/management/cluster/nodes', `${CLUSTER}&`);
      expect(r.status).toBe(200);
      const { status, response } = json<{ status: string; response: string }>(r);
      expect(status).toBe('success');
      const memberVersion = (await clusterInfo(m)).members.find((x) => x.localMember)!.memberVersion;
      const list = members.map((x) => `Member [127.0.0.1]:${x.port} - ${x.member.uuid}${x === m ? ' this' : ''}`).join(', ');
      expect(response).toBe(`[${list}]\n${memberVersion}\nNode.js ${process.version}`);
    }
  }, 30_000);

  it('/health reports the real cluster size, and /health/cluster-safe becomes 200 on every member', async () => {
    const members = await startCluster(3);
    for (const m of members) {
      const h = await health(m);
      expect(h.clusterSize).toBe(3);
      expect(h.nodeState).toBe('ACTIVE');
      expect(h.clusterState).toBe('ACTIVE');
      expect(await get<number>(m, '/hazelcast/health/cluster-size')).toBe(3);
    }
    await clusterSafe(members);
    for (const m of members) {
      const h = await health(m);
      expect(h.clusterSafe).toBe(true);
      expect(h.migrationQueueSize).toBe(0);
    }
  }, 30_000);
});

// ---------------------------------------------------------------- cluster state

describe('in-process cluster: cluster state', () => {
  it('a change made through one member is seen on the others, and back to ACTIVE', async () => {
    const [m1, m2, m3] = await startCluster(3);
    const state = async (m: StartedMember): Promise<string> => {
      const r = await post(m, '/hazelcast/rest/management/cluster/state', `${CLUSTER}&`);
      expect(r.status).toBe(200);
      return json<{ state: string }>(r).state;
    };
    expect(await state(m1!)).toBe('active');

    const change = await post(m2!, '/hazelcast/rest/management/cluster/changeState', `${CLUSTER}&&NO_MIGRATION`);
    expect(change.status).toBe(200);
    expect(json(change)).toEqual({ status: 'success', state: 'no_migration' });
    // Two-phase: committed everywhere by the time the change answers.
    for (const m of [m1!, m2!, m3!]) {
      expect(await state(m)).toBe('no_migration');
      expect((await health(m)).clusterState).toBe('NO_MIGRATION');
    }

    const back = await post(m3!, '/hazelcast/rest/management/cluster/changeState', `${CLUSTER}&&ACTIVE`);
    expect(json(back)).toEqual({ status: 'success', state: 'active' });
    for (const m of [m1!, m2!, m3!]) expect(await state(m)).toBe('active');
    expect(m1!.logs.messages()).toContain('cluster state changed');
  }, 30_000);
});

// ---------------------------------------------------------------- graceful stop

async function putEntries(members: readonly StartedMember[], n: number): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const key = `k${i}`;
    const value = `value-${i}`;
    const via = members[i % members.length]!;
    const r = await post(via, `/hazelcast/rest/maps/m/${key}`, value);
    expect(r.status, `put ${key}`).toBe(200);
    entries.set(key, value);
  }
  return entries;
}

async function missingEntries(m: StartedMember, entries: ReadonlyMap<string, string>): Promise<string[]> {
  const missing: string[] = [];
  for (const [key, value] of entries) {
    const r = await sendRequest(m.port, 'GET', `/hazelcast/rest/maps/m/${key}`);
    if (r.status !== 200 || r.body.toString('utf8') !== value) missing.push(`${key} (${r.status})`);
  }
  return missing;
}

describe('in-process cluster: graceful stop', () => {
  for (const which of ['a member that is not the master', 'the master'] as const) {
    it(`stopping ${which} keeps every entry readable from the others`, async () => {
      const members = await startCluster(3);
      await clusterSafe(members);
      const entries = await putEntries(members, 150);
      await clusterSafe(members);

      const leaving = which === 'the master' ? members[0]! : members[1]!;
      const staying = members.filter((m) => m !== leaving);
      await leaving.member.stop();

      await converged(staying, staying.map((m) => m.member.uuid));
      for (const m of staying) expect(await missingEntries(m, entries), `read through member on ${m.port}`).toEqual([]);
      await clusterSafe(staying);
      for (const m of staying) {
        expect((await health(m)).clusterSize).toBe(2);
        expect(await missingEntries(m, entries)).toEqual([]);
      }
    }, 40_000);
  }
});

// ---------------------------------------------------------------- concurrent start

describe('in-process cluster: concurrent start', () => {
  it('members started all at once form exactly one cluster', async () => {
    const ports = await freePorts(4);
    const members = await Promise.all(ports.map((port) => startMember(memberConfig(ports, port))));
    await waitFor('one cluster of 4', async () => (await clusterInfo(members[0]!)).members.length === 4, 10_000, 50);
    const order = (await clusterInfo(members[0]!)).members.map((x) => x.uuid);
    expect(new Set(order)).toEqual(new Set(members.map((m) => m.member.uuid)));
    await converged(members, order);
    // Exactly one member formed the cluster, and it is the oldest (the master).
    const formed = members.filter((m) => m.logs.messages().some((msg) => msg.startsWith('formed cluster')));
    expect(formed).toHaveLength(1);
    expect(order[0]).toBe(formed[0]!.member.uuid);
    for (const m of members) expect((await health(m)).clusterSize).toBe(4);
  }, 30_000);
});
