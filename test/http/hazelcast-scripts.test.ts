// Hazelcast's own admin scripts against Grid members (issue 11): `hz-cluster-admin`,
// `hz-cluster-cp-admin` and `hz-healthcheck` of the Hazelcast 5.x distribution
// (distribution/src/bin-filemode-755/ in hazelcast/hazelcast), and the 4.x `cluster.sh` /
// 3.x-4.x `healthcheck.sh`, which make the same calls. The scripts are not copied here (their
// license and ownership are Hazelcast's): each test restates one script operation's request
// exactly as curl 7.x sends it (request line, Host, `User-Agent: curl/…`, `Accept: */*`; for
// `--data`, a POST of the unencoded `name&password[&arg]` as
// `application/x-www-form-urlencoded`), over a raw socket, and then reads the answer the way
// the script does, restated below: hz-cluster-admin's sed of `"status"`, `"state"`,
// `"version"` (line by line, so a one-line answer matters), hz-cluster-cp-admin's first line
// and the `%{http_code}` its `-w` appends, mapped to its exit codes, and hz-healthcheck's
// `HTTPSTATUS:` split and its grep of `Hazelcast::<Keyword>=[A-Z_0-9]*`.
// docs/rest-api.md#hazelcasts-admin-scripts says what works and how it differs.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { buildRequest, pollUntil, rawRequest, sendAndAwaitClose, type RawResponse } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';
import { within } from '../support/process.js';

const CURL_UA = 'curl/7.88.1';

/**
 * One curl call as the scripts make it: `curl <url>` (GET) or `curl --data <data> <url>`
 * (POST, form-urlencoded, the data sent as given). `accept` replaces curl's default Accept
 * (any type), as a `header = "Accept: …"` line in a curl config file (CURL_HOME) does.
 */
function curl(port: number, path: string, opts: { data?: string; accept?: string; timeoutMs?: number } = {}): Promise<RawResponse> {
  const headers: Record<string, string | number> = { Host: `127.0.0.1:${port}`, 'User-Agent': CURL_UA, Accept: opts.accept ?? '*/*' };
  if (opts.data === undefined) return rawRequest(port, buildRequest('GET', path, { headers }), { timeoutMs: opts.timeoutMs });
  headers['Content-Length'] = Buffer.byteLength(opts.data);
  headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return rawRequest(port, buildRequest('POST', path, { headers, body: opts.data }), { timeoutMs: opts.timeoutMs });
}

// `$(echo "$RESPONSE" | sed -e 's/^.*"<key>"[ ]*:[ ]*"//' -e 's/".*//')`: line by line, the
// trailing newlines dropped (command substitution).
function sedValue(body: string, key: string): string {
  const lead = new RegExp(`^.*"${key}"[ ]*:[ ]*"`);
  return body
    .split('\n')
    .map((line) => line.replace(lead, '').replace(/".*/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

// ---------------------------------------------------------------- hz-cluster-admin, restated

type AdminOp = 'get-state' | 'change-state' | 'shutdown' | 'force-start' | 'partial-start' | 'get-cluster-version' | 'change-cluster-version';

/** make_request's REST operation (the last path segment) of each hz-cluster-admin operation. */
const ADMIN_REST_OP: Record<AdminOp, string> = {
  'get-state': 'state',
  'change-state': 'changeState',
  shutdown: 'clusterShutdown',
  'force-start': 'forceStart',
  'partial-start': 'partialStart',
  'get-cluster-version': 'version',
  'change-cluster-version': 'version',
};

/**
 * hz-cluster-admin's call for `op` (make_request): GET `version` when it has no argument, else
 * a POST of `${CLUSTERNAME}&${PASSWORD}` (defaults `dev`, `dev-pass`) plus `&${arg}`.
 */
function clusterAdminCall(port: number, op: AdminOp, arg?: string, cluster = 'dev', password = 'dev-pass'): Promise<RawResponse> {
  const path = `/hazelcast/rest/management/cluster/${ADMIN_REST_OP[op]}`;
  if (ADMIN_REST_OP[op] === 'version' && arg === undefined) return curl(port, path);
  return curl(port, path, { data: `${cluster}&${password}${arg === undefined ? '' : `&${arg}`}` });
}

/** The last line hz-cluster-admin prints for `op` given the answer, and its exit status (always 0 once curl got an answer). */
function clusterAdminOutcome(op: AdminOp, res: RawResponse, desired?: string): { line: string; exit: number } {
  const body = res.body.toString('utf8');
  const status = sedValue(body, 'status');
  if (status === 'fail' && op !== 'change-state') return { line: `Got error response: ${body}`, exit: 0 };
  if (status === 'forbidden') return { line: 'Operation forbidden, wrong cluster name/password (…)', exit: 0 };
  if (status !== 'success' && status !== 'fail') return { line: "Didn't get a valid response. (…)", exit: 0 };
  switch (op) {
    case 'get-state':
      return { line: `The cluster state is '${sedValue(body, 'state')}'.`, exit: 0 };
    case 'change-state': {
      const newState = sedValue(body, 'state');
      if (status === 'fail') return { line: newState !== 'null' ? `Cluster is already in the '${desired ?? ''}' state.` : `Got error response: ${body}`, exit: 0 };
      return { line: `The cluster is now in the '${newState}' state`, exit: 0 };
    }
    case 'force-start':
      return { line: 'Cluster force-start completed.', exit: 0 };
    case 'partial-start':
      return { line: 'Cluster partial-start completed.', exit: 0 };
    case 'shutdown':
      return { line: 'Cluster shutdown completed.', exit: 0 };
    case 'get-cluster-version':
      return { line: `Cluster is at version ${sedValue(body, 'version')}.`, exit: 0 };
    case 'change-cluster-version':
      return { line: `Cluster version changed to ${sedValue(body, 'version')}.`, exit: 0 };
  }
}

/** A management answer as the scripts need it: 200, JSON, one line. */
function expectOneLineJson(res: RawResponse, what: string): string {
  expect(res.status, `${what}: ${res.status} ${res.headers['x-grid-error'] ?? ''}`).toBe(200);
  expect(res.headers['content-type'], what).toBe('application/json');
  const body = res.body.toString('utf8');
  expect(body, `${what}: one line`).not.toContain('\n');
  JSON.parse(body);
  return body;
}

// ---------------------------------------------------------------- hz-healthcheck, restated

type HealthOp = 'all' | 'node-state' | 'cluster-state' | 'cluster-safe' | 'migration-queue-size' | 'cluster-size';

const HEALTH_KEYWORD: Record<Exclude<HealthOp, 'all'>, string> = {
  'node-state': 'NodeState',
  'cluster-state': 'ClusterState',
  'cluster-safe': 'ClusterSafe',
  'migration-queue-size': 'MigrationQueueSize',
  'cluster-size': 'ClusterSize',
};

/**
 * What hz-healthcheck prints and its exit status: `curl --silent --write-out
 * "HTTPSTATUS:%{http_code}" <url>/hazelcast/health`, the body and status split on
 * `HTTPSTATUS:`, exit 1 unless 200, `all` echoes the body, other operations grep
 * `Hazelcast::<Keyword>=[A-Z_0-9]*` out of the (unquoted, so whitespace-joined) body.
 */
function healthcheckOutcome(op: HealthOp, res: RawResponse): { printed: string; exit: number } {
  const out = `${res.body.toString('utf8')}HTTPSTATUS:${res.status}`;
  const body = out
    .split('\n')
    .map((l) => l.replace(/HTTPSTATUS:.*/, ''))
    .join('\n')
    .replace(/\n+$/, '');
  const status = out.replace(/\n/g, '').replace(/.*HTTPSTATUS:/, '');
  if (status !== '200') return { printed: 'Error while checking health of hazelcast cluster (…)', exit: 1 };
  if (op === 'all') return { printed: body, exit: 0 };
  const words = body.split(/\s+/).join(' ');
  const re = new RegExp(`Hazelcast::${HEALTH_KEYWORD[op]}=[A-Z_0-9]*`, 'g');
  const printed = (words.match(re) ?? []).map((m) => m.replace(`Hazelcast::${HEALTH_KEYWORD[op]}=`, '')).join('\n');
  return { printed, exit: 0 };
}

// ---------------------------------------------------------------- hz-cluster-cp-admin, restated

type CpOp =
  | 'get-local-member'
  | 'get-groups'
  | 'get-group'
  | 'get-members'
  | 'get-sessions'
  | 'force-destroy-group'
  | 'promote-member'
  | 'remove-member'
  | 'force-close-session'
  | 'reset';

/** hz-cluster-cp-admin's call: GETs under `/hazelcast/rest/cp-subsystem`, POSTs with `--data "${CLUSTERNAME}&${PASSWORD}"`. */
function cpAdminCall(port: number, op: CpOp, args: { group?: string; member?: string; session?: string; cluster?: string } = {}): Promise<RawResponse> {
  const base = '/hazelcast/rest/cp-subsystem';
  const data = `${args.cluster ?? 'dev'}&dev-pass`;
  const g = args.group ?? '';
  switch (op) {
    case 'get-local-member':
      return curl(port, `${base}/members/local`);
    case 'get-groups':
      return curl(port, `${base}/groups`);
    case 'get-group':
      return curl(port, `${base}/groups/${g}`);
    case 'get-members':
      return curl(port, `${base}/members`);
    case 'get-sessions':
      return curl(port, `${base}/groups/${g}/sessions`);
    case 'force-destroy-group':
      return curl(port, `${base}/groups/${g}/remove`, { data });
    case 'promote-member':
      return curl(port, `${base}/members`, { data, timeoutMs: 15_000 });
    case 'remove-member':
      return curl(port, `${base}/members/${args.member ?? ''}/remove`, { data, timeoutMs: 15_000 });
    case 'force-close-session':
      return curl(port, `${base}/groups/${g}/sessions/${args.session ?? ''}/remove`, { data });
    case 'reset':
      return curl(port, `${base}/reset`, { data, timeoutMs: 15_000 });
  }
}

/** Status codes each operation maps to its own exit status (anything else: 6, "Internal error!"). */
const CP_EXITS: Record<CpOp, Readonly<Record<string, number>>> = {
  'get-local-member': { '200': 0, '404': 4 },
  'get-groups': { '200': 0 },
  'get-group': { '200': 0, '404': 4 },
  'get-members': { '200': 0 },
  'get-sessions': { '200': 0, '404': 4 },
  'force-destroy-group': { '200': 0, '400': 5, '403': 3 },
  'promote-member': { '200': 0, '403': 3 },
  'remove-member': { '200': 0, '400': 5, '403': 3 },
  'force-close-session': { '200': 0, '400': 5, '403': 3 },
  reset: { '200': 0, '403': 3 },
};

/** `response=$(curl --silent -w \n%{http_code} …)`, `json=$(… | head -n 1)`, `status_code=$(… | tail -n1)`, the exit status. */
function cpAdminOutcome(op: CpOp, res: RawResponse): { json: string; statusCode: string; exit: number } {
  const lines = `${res.body.toString('utf8')}\n${res.status}`.replace(/\n+$/, '').split('\n');
  const statusCode = lines[lines.length - 1] ?? '';
  return { json: lines[0] ?? '', statusCode, exit: CP_EXITS[op][statusCode] ?? 6 };
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
