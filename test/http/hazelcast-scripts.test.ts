// Hazelcast's own admin scripts against Grid members (issue 11): `hz-cluster-admin`,
// `hz-cluster-cp-admin` and `hz-healthcheck` of the Hazelcast 5.x distribution, and the 4.x
// `cluster.sh` / 3.x-4.x `healthcheck.sh`, which make the same calls. Each script operation is
// restated in test/support/hazelcast-scripts.ts (the request as curl sends it, the answer read
// as the script reads it); test/reference/rest-diff.test.ts runs the same restatements against
// a Hazelcast member beside a Grid one. docs/rest-api.md#hazelcasts-admin-scripts says what
// works and how it differs.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import {
  CURL_UA,
  clusterAdminCall,
  clusterAdminOutcome,
  cpAdminCall,
  cpAdminOutcome,
  curl,
  healthcheckOutcome,
  sedValue,
  type CpOp,
  type HealthOp,
} from '../support/hazelcast-scripts.js';
import { buildRequest, pollUntil, sendAndAwaitClose, type RawResponse } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';
import { within } from '../support/process.js';

/** A management answer as the scripts need it: 200, JSON, one line. */
function expectOneLineJson(res: RawResponse, what: string): string {
  expect(res.status, `${what}: ${res.status} ${res.headers['x-grid-error'] ?? ''}`).toBe(200);
  expect(res.headers['content-type'], what).toBe('application/json');
  const body = res.body.toString('utf8');
  expect(body, `${what}: one line`).not.toContain('\n');
  JSON.parse(body);
  return body;
}

// ================================================================= hz-cluster-admin

describe('hz-cluster-admin (and 4.x cluster.sh) against one member', () => {
  it('get-state, change-state (each state, and again: "already"), back to active', async () => {
    const { port } = await startMember();
    let res = await clusterAdminCall(port, 'get-state');
    expectOneLineJson(res, 'state');
    expect(clusterAdminOutcome('get-state', res)).toEqual({ line: "The cluster state is 'active'.", exit: 0 });

    for (const state of ['frozen', 'no_migration', 'passive', 'active']) {
      res = await clusterAdminCall(port, 'change-state', state);
      expectOneLineJson(res, `changeState ${state}`);
      expect(clusterAdminOutcome('change-state', res, state).line).toBe(`The cluster is now in the '${state}' state`);
      res = await clusterAdminCall(port, 'get-state');
      expect(clusterAdminOutcome('get-state', res).line).toBe(`The cluster state is '${state}'.`);
    }
    // The same state again: "status":"fail" with the state, which the script reports as already in it.
    res = await clusterAdminCall(port, 'change-state', 'active');
    expectOneLineJson(res, 'changeState active again');
    expect(sedValue(res.body.toString(), 'status')).toBe('fail');
    expect(clusterAdminOutcome('change-state', res, 'active').line).toBe("Cluster is already in the 'active' state.");
    // 4.x cluster.sh reads the same answer: "fail" with a state that is not "null" -> "already", exit 3.
    expect(sedValue(res.body.toString(), 'state')).not.toBe('null');
  });

  it('get-cluster-version (a GET) and change-cluster-version: the current version succeeds, another is a fail answer', async () => {
    const { port } = await startMember();
    let res = await clusterAdminCall(port, 'get-cluster-version');
    expectOneLineJson(res, 'GET version');
    const version = sedValue(res.body.toString(), 'version');
    expect(version).toMatch(/^\d+\.\d+$/);
    expect(clusterAdminOutcome('get-cluster-version', res).line).toBe(`Cluster is at version ${version}.`);

    res = await clusterAdminCall(port, 'change-cluster-version', version);
    expectOneLineJson(res, 'POST version');
    expect(clusterAdminOutcome('change-cluster-version', res).line).toBe(`Cluster version changed to ${version}.`);

    res = await clusterAdminCall(port, 'change-cluster-version', '9.9');
    const body = expectOneLineJson(res, 'POST version 9.9');
    expect(clusterAdminOutcome('change-cluster-version', res)).toEqual({ line: `Got error response: ${body}`, exit: 0 });
    // 4.x cluster.sh prints the "message" of a fail (it says "An error occured" when sed finds none and leaves "{").
    expect(sedValue(body, 'message')).toMatch(/^cluster version cannot change to 9\.9/);
  });

  it('force-start and partial-start on a member without persistence: a fail answer the script prints', async () => {
    const { port } = await startMember();
    for (const op of ['force-start', 'partial-start'] as const) {
      const res = await clusterAdminCall(port, op);
      const body = expectOneLineJson(res, op);
      expect(sedValue(body, 'status'), op).toBe('fail');
      expect(clusterAdminOutcome(op, res), op).toEqual({ line: `Got error response: ${body}`, exit: 0 });
    }
  });

  it('refusals: wrong cluster name and a disabled group are 403 with an empty body ("no valid response"); REST off closes the connection (curl 52)', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    // Wrong cluster name: 403, empty body (the contract's errors). The script finds no status.
    let res = await clusterAdminCall(port, 'get-state', undefined, 'prod');
    expect(res.status).toBe(403);
    expect(res.body.length).toBe(0);
    expect(clusterAdminOutcome('get-state', res).line).toBe("Didn't get a valid response. (…)");
    // CLUSTER_WRITE disabled: the same for change-state, and the state is unchanged.
    res = await clusterAdminCall(port, 'change-state', 'frozen');
    expect(res.status).toBe(403);
    expect(res.headers['x-grid-error']).toBe('endpoint group CLUSTER_WRITE is disabled');
    expect(clusterAdminOutcome('change-state', res, 'frozen').line).toBe("Didn't get a valid response. (…)");
    expect(clusterAdminOutcome('get-state', await clusterAdminCall(port, 'get-state')).line).toBe("The cluster state is 'active'.");

    // REST off: no answer at all, the connection closed -> curl exit 52, which the script maps to "Is REST API enabled?".
    const off = await startMember({ network: { 'rest-api': { enabled: false } } });
    const headers = { Host: `127.0.0.1:${off.port}`, 'User-Agent': CURL_UA, Accept: '*/*', 'Content-Length': 12, 'Content-Type': 'application/x-www-form-urlencoded' };
    const got = await sendAndAwaitClose(off.port, buildRequest('POST', '/hazelcast/rest/management/cluster/state', { headers, body: 'dev&dev-pass' }));
    expect(got.length).toBe(0);
  });

  it('shutdown: clusterShutdown answers success on one line, then the member stops', async () => {
    const { port, member } = await startMember();
    const res = await clusterAdminCall(port, 'shutdown');
    expectOneLineJson(res, 'clusterShutdown');
    expect(clusterAdminOutcome('shutdown', res)).toEqual({ line: 'Cluster shutdown completed.', exit: 0 });
    await within(member.stopped, 8_000, 'the member to stop');
    expect(member.cluster.nodeState()).toBe('SHUT_DOWN');
  });
});

// ================================================================= hz-healthcheck

describe('hz-healthcheck (and healthcheck.sh) against one member', () => {
  it("the script's own call (Accept */*) gets the contract's JSON: `all` prints it, exit 0", async () => {
    const { port } = await startMember();
    const res = await curl(port, '/hazelcast/health');
    const body = expectOneLineJson(res, 'GET /health');
    expect(JSON.parse(body)).toEqual({ nodeState: 'ACTIVE', clusterState: 'ACTIVE', clusterSafe: true, migrationQueueSize: 0, clusterSize: 1 });
    expect(healthcheckOutcome('all', res)).toEqual({ printed: body, exit: 0 });
    // The single-value operations grep Hazelcast 3.x's text, which JSON does not carry (as on Hazelcast 4.x/5.x).
    expect(healthcheckOutcome('node-state', res)).toEqual({ printed: '', exit: 0 });
  });

  it('asked for text/plain (curl config `header = "Accept: text/plain"`), /health is 3.x text and every operation reads its value', async () => {
    const { port } = await startMember();
    const res = await curl(port, '/hazelcast/health', { accept: 'text/plain' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.body.toString()).toBe(
      'Hazelcast::NodeState=ACTIVE\nHazelcast::ClusterState=ACTIVE\nHazelcast::ClusterSafe=TRUE\nHazelcast::MigrationQueueSize=0\nHazelcast::ClusterSize=1\n',
    );
    expect(res.headers['content-length']).toBe(String(res.body.length));
    const expected: Record<HealthOp, string> = {
      all: res.body.toString().trimEnd(),
      'node-state': 'ACTIVE',
      'cluster-state': 'ACTIVE',
      'cluster-safe': 'TRUE',
      'migration-queue-size': '0',
      'cluster-size': '1',
    };
    for (const [op, printed] of Object.entries(expected) as [HealthOp, string][]) {
      expect(healthcheckOutcome(op, res), op).toEqual({ printed, exit: 0 });
    }
    // The text follows the member: FROZEN after a state change; the /grid prefix answers the same.
    const frozen = await curl(port, '/hazelcast/rest/management/cluster/changeState', { data: 'dev&dev-pass&frozen' });
    expect(sedValue(frozen.body.toString(), 'status')).toBe('success');
    const after = await curl(port, '/grid/health', { accept: 'text/plain' });
    expect(healthcheckOutcome('cluster-state', after).printed).toBe('FROZEN');
    expect(healthcheckOutcome('node-state', after).printed).toBe('ACTIVE');
  });

  it('JSON stays the answer unless text ranks higher: application/json, a tie, a browser; text/* and a preference get text', async () => {
    const { port } = await startMember();
    for (const accept of ['application/json', 'text/plain, application/json', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const res = await curl(port, '/hazelcast/health', { accept });
      expect(res.headers['content-type'], accept).toBe('application/json');
      expect(JSON.parse(res.body.toString()).nodeState, accept).toBe('ACTIVE');
    }
    for (const accept of ['text/*', 'application/json;q=0.5, text/plain']) {
      const res = await curl(port, '/hazelcast/health', { accept });
      expect(res.headers['content-type'], accept).toBe('text/plain');
      expect(healthcheckOutcome('node-state', res).printed, accept).toBe('ACTIVE');
    }
    // The sub-paths keep their JSON whatever the Accept (they are not the script's).
    const sub = await curl(port, '/hazelcast/health/node-state', { accept: 'text/plain' });
    expect(sub.body.toString()).toBe('"ACTIVE"');
  });

  it('HEALTH_CHECK disabled: 403, which the script reports as an error with exit status 1', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ']));
    for (const accept of [undefined, 'text/plain']) {
      const res = await curl(port, '/hazelcast/health', { accept });
      expect(res.status).toBe(403);
      expect(healthcheckOutcome('all', res).exit).toBe(1);
      expect(healthcheckOutcome('node-state', res).exit).toBe(1);
    }
  });
});

// ================================================================= hz-cluster-cp-admin

describe('hz-cluster-cp-admin against a 3-member CP cluster', () => {
  let c: Cluster;
  let failed = false;
  const port = (i: number): number => c.member(i).port;
  const cp = async (i: number, op: CpOp, args: Parameters<typeof cpAdminCall>[2] = {}): Promise<ReturnType<typeof cpAdminOutcome> & { res: RawResponse }> => {
    const res = await cpAdminCall(port(i), op, args);
    return { ...cpAdminOutcome(op, res), res };
  };
  /** A 200 answer: one line of JSON, the line the script prints before "OK". */
  const cpJson = async <T>(i: number, op: CpOp, args: Parameters<typeof cpAdminCall>[2] = {}): Promise<T> => {
    const out = await cp(i, op, args);
    expect(out.statusCode, `${op}: ${String(out.res.headers['x-grid-error'] ?? '')}`).toBe('200');
    expect(out.exit).toBe(0);
    expect(out.res.body.toString(), `${op}: one line`).not.toContain('\n');
    expect(out.json).toBe(out.res.body.toString());
    return JSON.parse(out.json) as T;
  };

  beforeAll(async () => {
    c = await startCluster({
      size: 3,
      scope: 'file',
      spare: 1,
      config: () => ({
        network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true } } } },
        'cp-subsystem': {
          'cp-member-count': 3,
          'raft-algorithm': { 'leader-election-timeout-in-millis': 500, 'leader-heartbeat-period-in-millis': 200 },
        },
      }),
    });
    await pollUntil(async () => (await cpAdminCall(port(0), 'get-groups')).status, (s) => s === 200, { timeoutMs: 20_000, intervalMs: 100, what: 'the CP subsystem to form' });
  }, 60_000);

  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    await c?.destroy({ keepFiles: failed, report: failed });
  });

  it('get-local-member, get-groups, get-group, get-members: 200 and one line of JSON; an unknown group is 404 (exit 4)', async () => {
    const members = await cpJson<{ uuid: string; address: string }[]>(0, 'get-members');
    expect(members.map((m) => m.address).sort()).toEqual([0, 1, 2].map((i) => `[127.0.0.1]:${port(i)}`).sort());
    for (const i of [0, 1, 2]) {
      const local = await cpJson<{ uuid: string; address: string }>(i, 'get-local-member');
      expect(local.address).toBe(`[127.0.0.1]:${port(i)}`);
      expect(members.map((m) => m.uuid)).toContain(local.uuid);
    }
    const groups = await cpJson<{ name: string; id: number }[]>(1, 'get-groups');
    expect(groups).toEqual(expect.arrayContaining([{ name: 'METADATA', id: 0 }, { name: 'default', id: 1 }]));
    const def = await cpJson<{ id: { name: string }; status: string; members: unknown[] }>(2, 'get-group', { group: 'default' });
    expect(def.id.name).toBe('default');
    expect(def.status).toBe('ACTIVE');
    expect(def.members).toHaveLength(3);
    const unknown = await cp(0, 'get-group', { group: 'nope' });
    expect(unknown).toMatchObject({ statusCode: '404', exit: 4, json: '' });
  });

  it('get-sessions and force-close-session: a session listed, closed (OK), then gone; bad ids and unknown groups mapped to the exits', async () => {
    // A session of the default group, through Grid's own lock endpoint (Hazelcast's would be a client's).
    const lock = await c.http(1, 'POST', '/grid/rest/cp/locks/scripts-lock/lock');
    expect(lock.status).toBe(200);
    const { sessionId } = JSON.parse(lock.body) as { sessionId: number };
    const sessions = await cpJson<{ id: number; endpointType: string }[]>(0, 'get-sessions', { group: 'default' });
    expect(sessions.map((s) => s.id)).toContain(sessionId);
    expect(await cp(0, 'get-sessions', { group: 'nope' })).toMatchObject({ statusCode: '404', exit: 4 });

    expect(await cp(2, 'force-close-session', { group: 'default', session: String(sessionId), cluster: 'prod' })).toMatchObject({ statusCode: '403', exit: 3 });
    expect(await cp(2, 'force-close-session', { group: 'default', session: String(sessionId) })).toMatchObject({ statusCode: '200', exit: 0 });
    expect((await cpJson<{ id: number }[]>(0, 'get-sessions', { group: 'default' })).map((s) => s.id)).not.toContain(sessionId);
    // Closed already, not a number, unknown group: Bad request (exit 5).
    for (const args of [
      { group: 'default', session: String(sessionId) },
      { group: 'default', session: 'abc' },
      { group: 'nope', session: '1' },
    ]) {
      expect(await cp(2, 'force-close-session', args), JSON.stringify(args)).toMatchObject({ statusCode: '400', exit: 5 });
    }
  });

  it('promote-member: a new AP member has no local CP member (404, exit 4), is promoted (OK), then answers; promoting again is OK', async () => {
    const ap = await c.addMember();
    await c.waitForMembers(4);
    expect(await cp(ap.index, 'get-local-member')).toMatchObject({ statusCode: '404', exit: 4 });
    expect(await cp(ap.index, 'promote-member', { cluster: 'prod' })).toMatchObject({ statusCode: '403', exit: 3 });
    expect(await cp(ap.index, 'promote-member')).toMatchObject({ statusCode: '200', exit: 0 });
    const local = await cpJson<{ address: string }>(ap.index, 'get-local-member');
    expect(local.address).toBe(`[127.0.0.1]:${ap.port}`);
    expect(await cp(ap.index, 'promote-member')).toMatchObject({ statusCode: '200', exit: 0 });
    expect(await cpJson<unknown[]>(0, 'get-members')).toHaveLength(4);
  });

  it('remove-member: unknown or still-present members are Bad request (exit 5); a killed CP member is removed (OK)', async () => {
    expect(await cp(0, 'remove-member', { member: '00000000-0000-0000-0000-000000000000' })).toMatchObject({ statusCode: '400', exit: 5 });
    const victim = await cpJson<{ uuid: string }>(2, 'get-local-member');
    expect(await cp(0, 'remove-member', { member: victim.uuid })).toMatchObject({ statusCode: '400', exit: 5 });
    expect(await cp(0, 'remove-member', { member: victim.uuid, cluster: 'prod' })).toMatchObject({ statusCode: '403', exit: 3 });

    await c.kill(2);
    await c.waitForMembers(3);
    expect(await cp(0, 'remove-member', { member: victim.uuid })).toMatchObject({ statusCode: '200', exit: 0 });
    const left = await cpJson<{ uuid: string }[]>(1, 'get-members');
    expect(left.map((m) => m.uuid)).not.toContain(victim.uuid);
  });

  it('force-destroy-group: METADATA and unknown groups are Bad request, wrong credentials 403; default is destroyed (OK)', async () => {
    expect(await cp(0, 'force-destroy-group', { group: 'METADATA' })).toMatchObject({ statusCode: '400', exit: 5 });
    expect(await cp(0, 'force-destroy-group', { group: 'nope' })).toMatchObject({ statusCode: '400', exit: 5 });
    expect(await cp(0, 'force-destroy-group', { group: 'default', cluster: 'prod' })).toMatchObject({ statusCode: '403', exit: 3 });
    expect(await cp(0, 'force-destroy-group', { group: 'default' })).toMatchObject({ statusCode: '200', exit: 0 });
    const groups = await cpJson<{ name: string }[]>(1, 'get-groups');
    expect(groups.map((g) => g.name)).not.toContain('default');
  });

  it('reset: wrong credentials 403 (exit 3); reset OK, after which the subsystem forms again with its default group', async () => {
    expect(await cp(0, 'reset', { cluster: 'prod' })).toMatchObject({ statusCode: '403', exit: 3 });
    expect(await cp(0, 'reset')).toMatchObject({ statusCode: '200', exit: 0 });
    await pollUntil(
      async () => {
        const out = await cp(0, 'get-groups');
        return out.statusCode === '200' ? (JSON.parse(out.json) as { name: string }[]).map((g) => g.name) : [];
      },
      (names) => names.includes('METADATA') && names.includes('default'),
      { timeoutMs: 15_000, intervalMs: 100, what: 'METADATA and default after the reset' },
    );
  });

  it("hz-cluster-admin's shutdown on this cluster: success, then every member exits with status 0", async () => {
    const res = await clusterAdminCall(port(0), 'shutdown');
    expectOneLineJson(res, 'clusterShutdown');
    expect(clusterAdminOutcome('shutdown', res).line).toBe('Cluster shutdown completed.');
    for (const m of c.live()) expect((await c.waitExit(m.index, 15_000)).code, `member ${m.index}`).toBe(0);
  });
});
