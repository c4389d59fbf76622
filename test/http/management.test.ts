// management/cluster/* (grid-behavior.md §8), their groups (§2), errors (§3) and the
// cluster-name check of security-disabled members (§7).

import { describe, expect, it } from 'vitest';
import { restConfig, startMember } from '../support/member.js';
import { RawConnection, sendRequest, type RawResponse } from '../support/http.js';
import { connectionRefused } from '../support/ports.js';
import { waitFor, within } from '../support/process.js';

const MGMT = '/hazelcast/rest/management/cluster';

function json(res: RawResponse): Record<string, unknown> {
  expect(res.headers['content-type']).toBe('application/json');
  return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
}

function expectEmptyError(res: RawResponse, status: number): void {
  expect(res.status).toBe(status);
  expect(res.body.length).toBe(0);
  expect(res.headers['content-length']).toBe('0');
  expect(res.headers['x-grid-error']).toBeTruthy();
}

describe('management/cluster/state and changeState', () => {
  it('state answers the cluster state in lower case under both prefixes', async () => {
    const { port } = await startMember();
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await sendRequest(port, 'POST', `${prefix}/rest/management/cluster/state`, { body: 'dev&' });
      expect(res.status).toBe(200);
      expect(json(res)).toEqual({ status: 'success', state: 'active' });
    }
  });

  it('changeState moves through every settable state, in any case, and state follows', async () => {
    const { port, member } = await startMember();
    const steps: [string, string][] = [
      ['frozen', 'FROZEN'],
      ['No_Migration', 'NO_MIGRATION'],
      ['PASSIVE', 'PASSIVE'],
      ['Active', 'ACTIVE'],
    ];
    for (const [given, state] of steps) {
      const res = await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: `dev&&${given}` });
      expect(res.status, given).toBe(200);
      expect(json(res), given).toEqual({ status: 'success', state: state.toLowerCase() });
      expect(member.cluster.state()).toBe(state);
      const now = await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'dev&' });
      expect(json(now)).toEqual({ status: 'success', state: state.toLowerCase() });
    }
  });

  it('changeState to the current state answers 200 fail; an unknown state is a 400', async () => {
    const { port, member } = await startMember();
    const same = await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'dev&&active' });
    expect(same.status).toBe(200);
    expect(json(same)).toEqual({ status: 'fail', state: 'active' });

    for (const bad of ['sleeping', 'IN_TRANSITION', '']) {
      const res = await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: `dev&&${bad}` });
      expectEmptyError(res, 400);
    }
    expect(member.cluster.state()).toBe('ACTIVE');
  });

  it('PASSIVE rejects data writes with 503 and ACTIVE admits them again', async () => {
    const { port } = await startMember();
    expect((await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'dev&&passive' })).status).toBe(200);
    const put = await sendRequest(port, 'POST', '/hazelcast/rest/maps/m/k', { body: 'v' });
    expectEmptyError(put, 503);
    expect((await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'dev&&active' })).status).toBe(200);
    expect((await sendRequest(port, 'POST', '/hazelcast/rest/maps/m/k', { body: 'v' })).status).toBe(200);
  });

  it('too few parameters is a 400; a wrong cluster name is a 403; neither changes anything', async () => {
    const { port, member } = await startMember();
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'dev&frozen' }), 400);
    expect((await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'dev&frozen' })).headers['x-grid-error']).toBe(
      'expected 3 parameters separated by "&", got 2',
    );
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'dev' }), 400);
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/state`, { body: '' }), 400);
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/changeState`, { body: 'prod&&frozen' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'Dev&' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/nodes`, { body: 'x&y' }), 403);
    expect(member.cluster.state()).toBe('ACTIVE');
  });

  it('a configured cluster-name replaces dev as the credential', async () => {
    const { port } = await startMember(restConfig(undefined, { 'cluster-name': 'orders' }));
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'dev&' }), 403);
    // Percent-encoded parameters are decoded; the password is ignored with security off.
    expect((await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'ord%65rs&whatever' })).status).toBe(200);
  });
});

describe('management/cluster/version and nodes', () => {
  it('GET version answers major.minor; POST accepts only the current version', async () => {
    const { port, member } = await startMember();
    const expected = member.cluster.localMember().version.split('.').slice(0, 2).join('.');
    expect(expected).toMatch(/^\d+\.\d+$/);
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await sendRequest(port, 'GET', `${prefix}/rest/management/cluster/version`);
      expect(res.status).toBe(200);
      expect(json(res)).toEqual({ status: 'success', version: expected });
    }
    const current = await sendRequest(port, 'POST', `${MGMT}/version`, { body: `dev&&${expected}` });
    expect(current.status).toBe(200);
    expect(json(current)).toEqual({ status: 'success', version: expected });

    const [major = '0', minor = '0'] = expected.split('.');
    const other = await sendRequest(port, 'POST', `${MGMT}/version`, { body: `dev&&${Number(major) + 1}.${minor}` });
    expect(other.status).toBe(200);
    expect(json(other)).toMatchObject({ status: 'fail', version: expected });

    for (const garbage of ['latest', '1', '1.x', '']) {
      expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/version`, { body: `dev&&${garbage}` }), 400);
    }
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/version`, { body: `nope&&${expected}` }), 403);
  });

  it('nodes lists this member with its address and uuid', async () => {
    const { port, member } = await startMember();
    const res = await sendRequest(port, 'POST', `${MGMT}/nodes`, { body: 'dev&' });
    expect(res.status).toBe(200);
    const body = json(res);
    expect(body.status).toBe('success');
    expect(typeof body.response).toBe('string');
    // Hazelcast's shape: the member collection, then the member and runtime versions.
    expect(body.response).toMatch(new RegExp(`^\\[Member \\[127\\.0\\.0\\.1\\]:${port} - ${member.uuid} this\\]\\n\\d+\\.\\d+\\.\\d+\\nNode\\.js v`));
  });

  it('GET on POST-only endpoints is a 400', async () => {
    const { port } = await startMember();
    for (const op of ['state', 'changeState', 'nodes', 'memberShutdown', 'clusterShutdown', 'forceStart']) {
      expectEmptyError(await sendRequest(port, 'GET', `${MGMT}/${op}`), 400);
    }
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/noSuchThing`, { body: 'dev&' }), 400);
  });
});

describe('persistence endpoints', () => {
  it('answer fail while persistence is not enabled, after the credential check', async () => {
    const { port } = await startMember();
    for (const op of ['forceStart', 'partialStart', 'backup', 'backupInterrupt', 'hotBackup', 'hotBackupInterrupt']) {
      const res = await sendRequest(port, 'POST', `${MGMT}/${op}`, { body: 'dev&' });
      expect(res.status, op).toBe(200);
      expect(json(res).status, op).toBe('fail');
      expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/${op}`, { body: 'prod&' }), 403);
    }
  });

  it('belong to PERSISTENCE, also reachable through its HOT_RESTART alias', async () => {
    const off = await startMember(restConfig(['CLUSTER_READ', 'CLUSTER_WRITE']));
    const refused = await sendRequest(off.port, 'POST', `${MGMT}/forceStart`, { body: 'dev&' });
    expectEmptyError(refused, 403);
    expect(refused.headers['x-grid-error']).toBe('endpoint group PERSISTENCE is disabled');

    const alias = await startMember({
      network: { interfaces: { enabled: true, interfaces: ['127.0.0.1'] }, 'rest-api': { enabled: true, 'endpoint-groups': { HOT_RESTART: { enabled: true } } } },
    });
    const res = await sendRequest(alias.port, 'POST', `${MGMT}/partialStart`, { body: 'dev&' });
    expect(res.status).toBe(200);
    expect(json(res).status).toBe('fail');
  });
});

describe('CLUSTER_WRITE', () => {
  it('when disabled, write endpoints answer 403 while CLUSTER_READ ones work', async () => {
    const { port, member } = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    for (const [op, body] of [
      ['changeState', 'dev&&frozen'],
      ['version', 'dev&&0.1'],
      ['memberShutdown', 'dev&'],
      ['clusterShutdown', 'dev&'],
    ] as const) {
      const res = await sendRequest(port, 'POST', `${MGMT}/${op}`, { body });
      expectEmptyError(res, 403);
      expect(res.headers['x-grid-error'], op).toBe('endpoint group CLUSTER_WRITE is disabled');
    }
    expect(member.cluster.state()).toBe('ACTIVE');
    expect(member.cluster.nodeState()).toBe('ACTIVE');
    expect(json(await sendRequest(port, 'POST', `${MGMT}/state`, { body: 'dev&' }))).toEqual({ status: 'success', state: 'active' });
    expect(json(await sendRequest(port, 'POST', `${MGMT}/nodes`, { body: 'dev&' })).status).toBe('success');
    expect((await sendRequest(port, 'GET', `${MGMT}/version`)).status).toBe(200);
  });
});

describe('shutdown', () => {
  for (const op of ['memberShutdown', 'clusterShutdown']) {
    it(`${op} answers success, then the member stops and its port refuses connections`, async () => {
      const { port, member, logs } = await startMember();
      const res = await sendRequest(port, 'POST', `${MGMT}/${op}`, { body: 'dev&' });
      expect(res.status).toBe(200);
      expect(json(res)).toEqual({ status: 'success' });
      await within(member.stopped, 8_000, 'the member to stop');
      expect(member.cluster.nodeState()).toBe('SHUT_DOWN');
      await waitFor('the port to refuse connections', () => connectionRefused(port));
      expect(logs.messages()).toContain('member stopped');
    });
  }

  it('memberShutdown answers a waiting poll with 503, closes idle keep-alive connections and stops without the grace delay', async () => {
    const { port, member } = await startMember();
    const idle = await RawConnection.connect(port);
    const poller = await RawConnection.connect(port);
    try {
      expect((await idle.request('GET', '/hazelcast/health/ready')).status).toBe(200);
      await poller.write('DELETE /hazelcast/rest/queues/jobs/30 HTTP/1.1\r\nHost: x\r\n\r\n');
      // The poll's connection counts once the member has taken it as HTTP (the asker makes 3).
      // Should shutdown overtake the poll's registration, the poll is refused with 503 all the same.
      await waitFor('the poll connection to be taken', async () => {
        const info = await sendRequest(port, 'GET', '/hazelcast/rest/cluster');
        return (JSON.parse(info.body.toString()) as { connectionCount: number }).connectionCount === 3;
      });
      const started = Date.now();
      const res = await sendRequest(port, 'POST', `${MGMT}/memberShutdown`, { body: 'dev&' });
      expect(json(res)).toEqual({ status: 'success' });
      const polled = await poller.read({ timeoutMs: 5_000 });
      expectEmptyError(polled, 503);
      await within(member.stopped, 4_000, 'the member to stop');
      // The 5 s grace is for answers in flight; nothing was in flight.
      expect(Date.now() - started).toBeLessThan(2_500);
      await idle.waitForEnd(2_000);
      await poller.waitForEnd(2_000);
    } finally {
      await idle.destroy();
      await poller.destroy();
    }
  });

  it('a request in flight when the member stops is answered (503, Connection: close) before the member is down', async () => {
    const { port, member } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write('POST /hazelcast/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345');
      await waitFor('the request to be taken', async () => {
        const info = await sendRequest(port, 'GET', '/hazelcast/rest/cluster');
        return (JSON.parse(info.body.toString()) as { connectionCount: number }).connectionCount === 2;
      });
      const stopping = member.stop();
      // The rest of the body arrives while the member is stopping: the request still gets its answer.
      await c.write('67890');
      const res = await c.read({ timeoutMs: 5_000 });
      expectEmptyError(res, 503);
      expect(res.headers.connection).toBe('close');
      await within(stopping, 4_000, 'the member to stop once nothing is in flight');
      await c.waitForEnd(2_000);
    } finally {
      await c.destroy();
    }
  });

  it('PUT is POST: changeState through PUT', async () => {
    const { port } = await startMember();
    const res = await sendRequest(port, 'PUT', `${MGMT}/changeState`, { body: 'dev&&frozen' });
    expect(json(res)).toEqual({ status: 'success', state: 'frozen' });
  });

  it('shutdown with a wrong cluster name or too few parameters leaves the member running', async () => {
    const { port, member } = await startMember();
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/memberShutdown`, { body: 'prod&' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', `${MGMT}/clusterShutdown`, { body: 'dev' }), 400);
    expect(member.cluster.nodeState()).toBe('ACTIVE');
    expect((await sendRequest(port, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });
});
