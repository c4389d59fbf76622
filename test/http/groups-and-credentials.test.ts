// Enabling REST and its endpoint groups (grid-behavior.md §1-2), and credentials (§7).

import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';
import { basic, RawConnection, sendAndAwaitClose, sendRequest, type RawResponse } from '../support/http.js';
import { LogCapture, restConfig, startMember } from '../support/member.js';
import { freePort } from '../support/ports.js';
import { within } from '../support/process.js';

const ALL_GROUPS = ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'PERSISTENCE', 'WAN', 'DATA', 'CP'] as const;
type Group = (typeof ALL_GROUPS)[number];

interface Probe {
  readonly group: Group;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  /** Status when the group is enabled (security off, cluster name dev); undefined = never sent enabled. */
  readonly enabled: number | undefined;
}

const M = '/hazelcast/rest/management/cluster';
const W = '/grid/rest/wan';
const UUID = '4b3a5a4e-0c55-4d39-9f0c-6ad8d1a6c2a1';

/** Every endpoint with its group, per grid-behavior.md §2. */
const PROBES: readonly Probe[] = [
  { group: 'CLUSTER_READ', method: 'GET', path: '/hazelcast/rest/cluster', enabled: 200 },
  { group: 'CLUSTER_READ', method: 'GET', path: '/grid/rest/instance', enabled: 200 },
  { group: 'CLUSTER_READ', method: 'POST', path: `${M}/state`, body: 'dev&', enabled: 200 },
  { group: 'CLUSTER_READ', method: 'POST', path: `${M}/nodes`, body: 'dev&', enabled: 200 },
  { group: 'CLUSTER_READ', method: 'GET', path: `${M}/version`, enabled: 200 },
  { group: 'CLUSTER_READ', method: 'GET', path: '/hazelcast/rest/license', enabled: 400 },
  { group: 'CLUSTER_READ', method: 'GET', path: '/hazelcast/rest/log-level', enabled: 200 },
  { group: 'CLUSTER_READ', method: 'GET', path: '/hazelcast/rest/config/tcp-ip/member-list', enabled: 200 },
  // Shutdowns are only ever sent to members where CLUSTER_WRITE is off.
  { group: 'CLUSTER_WRITE', method: 'POST', path: `${M}/clusterShutdown`, body: 'dev&', enabled: undefined },
  { group: 'CLUSTER_WRITE', method: 'POST', path: `${M}/memberShutdown`, body: 'dev&', enabled: undefined },
  { group: 'CLUSTER_WRITE', method: 'POST', path: `${M}/changeState`, body: 'dev&&active', enabled: 200 },
  { group: 'CLUSTER_WRITE', method: 'POST', path: `${M}/version`, body: 'dev&&9.9', enabled: 200 },
  { group: 'CLUSTER_WRITE', method: 'POST', path: '/hazelcast/rest/license', body: 'dev&&KEY', enabled: 200 },
  { group: 'CLUSTER_WRITE', method: 'POST', path: '/hazelcast/rest/log-level', body: 'dev&&info', enabled: 200 },
  { group: 'CLUSTER_WRITE', method: 'POST', path: '/hazelcast/rest/log-level/reset', body: 'dev&', enabled: 200 },
  { group: 'CLUSTER_WRITE', method: 'POST', path: '/grid/rest/config/tcp-ip/member-list', body: 'dev&&127.0.0.1', enabled: 200 },
  { group: 'HEALTH_CHECK', method: 'GET', path: '/hazelcast/health', enabled: 200 },
  { group: 'HEALTH_CHECK', method: 'HEAD', path: '/hazelcast/health', enabled: 200 },
  { group: 'HEALTH_CHECK', method: 'GET', path: '/grid/health/ready', enabled: 200 },
  { group: 'HEALTH_CHECK', method: 'GET', path: '/grid/health/cluster-state', enabled: 200 },
  ...['forceStart', 'partialStart', 'backup', 'backupInterrupt', 'hotBackup', 'hotBackupInterrupt'].map(
    (op): Probe => ({ group: 'PERSISTENCE', method: 'POST', path: `${M}/${op}`, body: 'dev&', enabled: 200 }),
  ),
  { group: 'CLUSTER_READ', method: 'GET', path: W, enabled: 200 },
  // These members have no wan-replication: the WAN operations name an unknown one (400).
  ...['clearWanQueues', 'pausePublisher', 'resumePublisher', 'stopPublisher', 'sync/allmaps'].map(
    (op): Probe => ({ group: 'WAN', method: 'POST', path: `${W}/${op}`, body: 'dev&&wr&pub', enabled: 400 }),
  ),
  { group: 'WAN', method: 'POST', path: `${W}/sync/map`, body: 'dev&&wr&pub&m', enabled: 400 },
  { group: 'WAN', method: 'POST', path: `${W}/consistencyCheck/map`, body: 'dev&&wr&pub&m', enabled: 400 },
  { group: 'WAN', method: 'POST', path: `${W}/addWanConfig`, body: 'dev&&not json', enabled: 400 },
  { group: 'WAN', method: 'GET', path: `${W}/sync/progress/${UUID}`, enabled: 404 },
  { group: 'WAN', method: 'GET', path: `${W}/consistencyCheck/${UUID}`, enabled: 404 },
  { group: 'DATA', method: 'POST', path: '/hazelcast/rest/maps/m/k', body: 'v', enabled: 200 },
  { group: 'DATA', method: 'GET', path: '/hazelcast/rest/maps/m/absent', enabled: 204 },
  { group: 'DATA', method: 'DELETE', path: '/grid/rest/maps/m/k', enabled: 200 },
  { group: 'DATA', method: 'DELETE', path: '/grid/rest/maps/m', enabled: 200 },
  { group: 'DATA', method: 'POST', path: '/hazelcast/rest/queues/q', body: 'item', enabled: 200 },
  { group: 'DATA', method: 'GET', path: '/hazelcast/rest/queues/q/size', enabled: 200 },
  { group: 'DATA', method: 'DELETE', path: '/hazelcast/rest/queues/empty/0', enabled: 204 },
  { group: 'CP', method: 'GET', path: '/hazelcast/rest/cp-subsystem/groups', enabled: 500 },
  { group: 'CP', method: 'GET', path: '/hazelcast/rest/cp-subsystem/members', enabled: 500 },
  { group: 'CP', method: 'POST', path: '/hazelcast/rest/cp-subsystem/reset', body: 'dev&', enabled: 500 },
];

async function send(port: number, p: Probe): Promise<RawResponse> {
  return sendRequest(port, p.method, p.path, p.body === undefined ? {} : { body: p.body });
}

/** Every probe: 403 "endpoint group X is disabled" when its group is off, its enabled status otherwise. */
async function checkGroups(port: number, enabled: ReadonlySet<Group>): Promise<void> {
  for (const p of PROBES) {
    const on = enabled.has(p.group);
    if (on && p.enabled === undefined) continue;
    const res = await send(port, p);
    const what = `${p.method} ${p.path} (${p.group} ${on ? 'on' : 'off'})`;
    if (on) {
      expect(res.status, what).toBe(p.enabled);
    } else {
      expect(res.status, what).toBe(403);
      expect(res.body.length, what).toBe(0);
      expect(res.headers['content-length'], what).toBe('0');
      expect(res.headers['x-grid-error'], what).toBe(`endpoint group ${p.group} is disabled`);
    }
  }
}

const REST_HINT = /REST API is disabled/;

describe('endpoint groups', () => {
  for (const off of ALL_GROUPS) {
    it(`${off} off: its endpoints answer 403, every other group works`, async () => {
      const on = ALL_GROUPS.filter((g) => g !== off);
      const { port, member } = await startMember(restConfig(on));
      await checkGroups(port, new Set(on));
      expect(member.cluster.nodeState()).toBe('ACTIVE');
    });
  }

  it('REST on with no group listed enables CLUSTER_READ and HEALTH_CHECK only', async () => {
    const { port, member } = await startMember({
      network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] }, 'rest-api': { enabled: true } },
    });
    expect([...member.restGroups()].sort()).toEqual(['CLUSTER_READ', 'HEALTH_CHECK']);
    await checkGroups(port, new Set<Group>(['CLUSTER_READ', 'HEALTH_CHECK']));
  });

  it('listing one group adds it to the defaults; disabling a default removes it', async () => {
    const { port } = await startMember({
      network: {
        interfaces: { enabled: true, interfaces: ['127.0.0.1'] },
        'rest-api': { enabled: true, 'endpoint-groups': { DATA: { enabled: true }, HEALTH_CHECK: { enabled: false } } },
      },
    });
    await checkGroups(port, new Set<Group>(['CLUSTER_READ', 'DATA']));
  });
});

describe('REST disabled', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['REST off by default', { network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] } } }],
    ['rest-api enabled false (groups listed)', { network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] }, 'rest-api': { enabled: false, 'endpoint-groups': { DATA: { enabled: true } } } } }],
    ['REST on, every group disabled', restConfig([])],
  ];
  for (const [name, raw] of cases) {
    it(`${name}: HTTP connections are closed unanswered, with one hint in the log`, async () => {
      const { member, logs } = await startMember(raw);
      expect(member.restPort).toBe(0);
      const port = member.memberPort;
      for (const path of ['/hazelcast/rest/cluster', '/hazelcast/health']) {
        const got = await sendAndAwaitClose(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
        expect(got.length, path).toBe(0);
      }
      const hints = logs.lines.filter((l) => REST_HINT.test(String(l.msg)));
      expect(hints).toHaveLength(1);
      expect(hints[0]?.level).toBe('WARNING');
      expect(String(hints[0]?.msg)).toContain('rest-api');
      expect(member.cluster.nodeState()).toBe('ACTIVE');
    });
  }

  it('repeats the hint after a minute, not before', async () => {
    const clock = new ManualClock();
    const logs = new LogCapture();
    const { config } = configFromObject({
      network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] }, port: { port: await freePort(), 'port-count': 50 } },
    });
    const member = await Member.start({ config, logDestination: logs, clock });
    stopAfter.push(member);
    const hints = (): number => logs.messages().filter((m) => REST_HINT.test(m)).length;
    const hit = (): Promise<Buffer> => sendAndAwaitClose(member.memberPort, 'GET /hazelcast/health HTTP/1.1\r\nHost: x\r\n\r\n');

    expect((await hit()).length).toBe(0);
    expect(hints()).toBe(1);
    clock.advance(59_000);
    await hit();
    expect(hints()).toBe(1);
    clock.advance(1_000);
    await hit();
    expect(hints()).toBe(2);
  });
});

const stopAfter: Member[] = [];
afterEach(async () => {
  await Promise.all(stopAfter.splice(0).map((m) => within(m.stop(), 10_000, 'a member to stop')));
});

describe('advanced-network REST endpoint', () => {
  it('serves REST on its own port; the member port closes HTTP connections unanswered', async () => {
    const memberPort = await freePort();
    const restPort = await freePort();
    const { member, logs } = await startMember({
      network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] } },
      'advanced-network': {
        enabled: true,
        'member-server-socket-endpoint-config': { port: { port: memberPort, 'auto-increment': true, 'port-count': 50 } },
        'rest-server-socket-endpoint-config': {
          port: { port: restPort, 'auto-increment': true, 'port-count': 50 },
          'endpoint-groups': { DATA: { enabled: true } },
        },
      },
    });
    expect(member.restPort).not.toBe(member.memberPort);
    expect(member.restPort).toBeGreaterThanOrEqual(restPort);

    const info = await sendRequest(member.restPort, 'GET', '/hazelcast/rest/cluster');
    expect(info.status).toBe(200);
    // The advertised address is the member port, not the REST port.
    expect((JSON.parse(info.body.toString()) as { members: { address: string }[] }).members[0]?.address).toBe(
      `127.0.0.1:${member.memberPort}`,
    );
    expect((await sendRequest(member.restPort, 'POST', '/grid/rest/maps/m/k', { body: 'v' })).status).toBe(200);
    expect((await sendRequest(member.restPort, 'GET', '/grid/rest/maps/m/k')).body.toString()).toBe('v');
    // Groups come from the endpoint config (defaults + DATA).
    expect((await sendRequest(member.restPort, 'GET', '/grid/health')).status).toBe(200);
    expect((await sendRequest(member.restPort, 'POST', `${M}/changeState`, { body: 'dev&&frozen' })).status).toBe(403);

    const got = await sendAndAwaitClose(member.memberPort, 'GET /hazelcast/rest/cluster HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(got.length).toBe(0);
    // REST is not disabled, so no hint tells the user to enable it.
    expect(logs.messages().filter((m) => REST_HINT.test(m))).toHaveLength(0);
  });
});

describe('credentials with security disabled', () => {
  it('Authorization: Basic carries the cluster name as user, with the full body or trailing parameters only', async () => {
    const { port, member } = await startMember(restConfig(undefined, { 'cluster-name': 'blue' }));
    const post = (path: string, body: string, user: string): Promise<RawResponse> =>
      sendRequest(port, 'POST', path, { body, headers: { Authorization: basic(user, 'ignored') } });
    expect(JSON.parse((await post(`${M}/changeState`, 'frozen', 'blue')).body.toString())).toEqual({ status: 'success', state: 'frozen' });
    expect(JSON.parse((await post(`${M}/changeState`, 'blue&&passive', 'blue')).body.toString())).toEqual({ status: 'success', state: 'passive' });
    expect((await post('/hazelcast/rest/log-level', 'fine', 'blue')).status).toBe(200);
    expect(member.logger.level).toBe('debug');
    expect((await post(`${M}/changeState`, 'active', 'dev')).status).toBe(403);
    expect(member.cluster.state()).toBe('PASSIVE');
  });
});

describe('credentials with security enabled', () => {
  const SECURITY = {
    enabled: true,
    realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 's3cret', roles: ['admin'] }] } } }],
    'client-authentication': { realm: 'r' },
  };

  it('checks realm users instead of the cluster name; Basic works with the full body or trailing parameters only', async () => {
    const { port, member, logs } = await startMember(restConfig(undefined, { security: SECURITY, properties: { 'hazelcast.logging.level': 'ALL' } }));
    const seen: RawResponse[] = [];
    const post = async (path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> => {
      const res = await sendRequest(port, 'POST', path, { body, headers });
      seen.push(res);
      return res;
    };
    const stateOf = async (res: RawResponse): Promise<unknown> => {
      expect(res.status).toBe(200);
      return JSON.parse(res.body.toString());
    };

    expect(await stateOf(await post(`${M}/state`, 'admin&s3cret'))).toEqual({ status: 'success', state: 'active' });
    // Percent-encoded parameters are decoded before the check.
    expect((await post(`${M}/state`, 'adm%69n&s3cr%65t')).status).toBe(200);
    for (const body of ['admin&wrong', 'Admin&s3cret', 'admin&', 'admin&s3cret2', 'dev&', 'dev&s3cret', '&s3cret']) {
      const res = await post(`${M}/state`, body);
      expect(res.status, body).toBe(403);
      expect(res.body.length, body).toBe(0);
    }
    expect((await post(`${M}/changeState`, 'dev&&frozen')).status).toBe(403);
    expect(member.cluster.state()).toBe('ACTIVE');

    const auth = { Authorization: basic('admin', 's3cret') };
    // Full positional body (its credential positions are then not what is checked).
    expect(await stateOf(await post(`${M}/changeState`, 'admin&s3cret&frozen', auth))).toEqual({ status: 'success', state: 'frozen' });
    // Only the parameters after the credentials.
    expect(await stateOf(await post(`${M}/changeState`, 'passive', auth))).toEqual({ status: 'success', state: 'passive' });
    expect(await stateOf(await post(`${M}/state`, '', auth))).toEqual({ status: 'success', state: 'passive' });
    expect(member.cluster.state()).toBe('PASSIVE');
    // Wrong Basic credentials: refused even with a body that would pass.
    expect((await post(`${M}/changeState`, 'active', { Authorization: basic('admin', 'wrong') })).status).toBe(403);
    expect((await post(`${M}/changeState`, 'admin&s3cret&active', { Authorization: basic('admin', 'wrong') })).status).toBe(403);
    expect(member.cluster.state()).toBe('PASSIVE');
    expect(await stateOf(await post(`${M}/changeState`, 'admin&s3cret&active'))).toEqual({ status: 'success', state: 'active' });

    // GET log-level takes Basic credentials when security is on.
    const noAuth = await sendRequest(port, 'GET', '/hazelcast/rest/log-level');
    expect(noAuth.status).toBe(403);
    const withAuth = await sendRequest(port, 'GET', '/hazelcast/rest/log-level', { headers: auth });
    expect(withAuth.status).toBe(200);
    seen.push(noAuth, withAuth);

    // Other credential-checked endpoints, including ones that fail after the check (logged as errors).
    seen.push(await post('/hazelcast/rest/cp-subsystem/reset', 'admin&s3cret'));
    expect(seen.at(-1)?.status).toBe(500);
    seen.push(await post(`${W}/pausePublisher`, 'admin&s3cret&wr&pub'));
    expect(seen.at(-1)?.status).toBe(400); // past the credentials: no wan-replication "wr" here
    seen.push(await post('/hazelcast/rest/license', 'admin&s3cret&KEY'));
    expect(seen.at(-1)?.status).toBe(200);
    seen.push(await post('/hazelcast/rest/license', 'admin&s3cre'));
    expect(seen.at(-1)?.status).toBe(403);

    // The password never shows: not in any response, header or log line (plain or in Basic form).
    const secretForms = ['s3cret', Buffer.from('admin:s3cret').toString('base64')];
    for (const res of seen) {
      for (const s of secretForms) {
        expect(res.head).not.toContain(s);
        expect(res.body.toString('latin1')).not.toContain(s);
      }
    }
    const logText = JSON.stringify(logs.lines);
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const s of secretForms) expect(logText).not.toContain(s);
  });

  it('accepts any user of the client realm, an empty password included; users of other realms are refused', async () => {
    const { port } = await startMember(
      restConfig(undefined, {
        security: {
          enabled: true,
          realms: [
            {
              name: 'r',
              authentication: {
                simple: {
                  users: [
                    { username: 'admin', password: 's3cret', roles: ['admin'] },
                    { username: 'guest', password: '', roles: ['monitor'] },
                    { username: 'op:s', password: 'a:b&c', roles: ['ops'] },
                  ],
                },
              },
            },
            { name: 'members', authentication: { simple: { users: [{ username: 'member', password: 'mpw', roles: ['m'] }] } } },
          ],
          'client-authentication': { realm: 'r' },
          'member-authentication': { realm: 'members' },
        },
      }),
    );
    const state = (body: string, headers: Record<string, string> = {}): Promise<number> =>
      sendRequest(port, 'POST', `${M}/state`, { body, headers }).then((r) => r.status);
    expect(await state('guest&')).toBe(200);
    expect(await state('guest&x')).toBe(403);
    // Parameters are percent-decoded: `&` and `:` inside a credential.
    expect(await state('op%3As&a%3Ab%26c')).toBe(200);
    expect(await state('', { Authorization: basic('guest', '') })).toBe(200);
    expect(await state('member&mpw')).toBe(403);
    expect(await state('', { Authorization: basic('member', 'mpw') })).toBe(403);
  });

  it('a keep-alive connection with a failed check stays usable for the next request', async () => {
    const { port } = await startMember(restConfig(undefined, { security: SECURITY }));
    const c = await RawConnection.connect(port);
    try {
      expect((await c.request('POST', `${M}/state`, { body: 'admin&nope' })).status).toBe(403);
      expect((await c.request('POST', `${M}/state`, { body: 'admin&s3cret' })).status).toBe(200);
    } finally {
      await c.destroy();
    }
  });
});
