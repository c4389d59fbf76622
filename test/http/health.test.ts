// /health and its sub-paths (grid-behavior.md §8), the HEALTH_CHECK group (§2) and the
// credential check of health/cluster-state under security (§7).

import { describe, expect, it } from 'vitest';
import { restConfig, startMember } from '../support/member.js';
import { basic, RawConnection, sendRequest } from '../support/http.js';

const SECURITY = {
  enabled: true,
  realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 's3cret', roles: ['admin'] }] } } }],
  'client-authentication': { realm: 'r' },
};

describe('GET /health', () => {
  it('answers the member health as compact JSON under both prefixes', async () => {
    const { port } = await startMember();
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await sendRequest(port, 'GET', `${prefix}/health`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body.toString()).toBe(
        '{"nodeState":"ACTIVE","clusterState":"ACTIVE","clusterSafe":true,"migrationQueueSize":0,"clusterSize":1}',
      );
      expect(res.headers['content-length']).toBe(String(res.body.length));
    }
  });

  it('answers each sub-path in its own shape', async () => {
    const { port } = await startMember();
    const get = (sub: string) => sendRequest(port, 'GET', `/hazelcast/health/${sub}`);

    for (const [sub, body] of [
      ['node-state', '"ACTIVE"'],
      ['cluster-state', '"ACTIVE"'],
      ['migration-queue-size', '0'],
      ['cluster-size', '1'],
    ] as const) {
      const res = await get(sub);
      expect(res.status, sub).toBe(200);
      expect(res.headers['content-type'], sub).toBe('application/json');
      expect(res.body.toString(), sub).toBe(body);
      expect(JSON.parse(res.body.toString()), sub).toBe(JSON.parse(body));
    }
    for (const sub of ['cluster-safe', 'ready']) {
      const res = await get(sub);
      expect(res.status, sub).toBe(200);
      expect(res.body.length, sub).toBe(0);
      expect(res.headers['content-length'], sub).toBe('0');
    }
    // A trailing slash is the same path; an unknown sub-path is a 400.
    expect((await get('node-state/')).body.toString()).toBe('"ACTIVE"');
    const unknown = await get('liveness');
    expect(unknown.status).toBe(400);
    expect(unknown.body.length).toBe(0);
  });

  it('HEAD /health answers the health as headers with no body', async () => {
    const { port } = await startMember();
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await sendRequest(port, 'HEAD', `${prefix}/health`);
      expect(res.status).toBe(200);
      expect(res.headers['hazelcast-nodestate']).toBe('ACTIVE');
      expect(res.headers['hazelcast-clusterstate']).toBe('ACTIVE');
      expect(res.headers['hazelcast-migrationqueuesize']).toBe('0');
      expect(res.headers['hazelcast-clustersize']).toBe('1');
      expect(res.body.length).toBe(0);
    }
    // Nothing follows the head on the wire: the next request on the same connection gets its own answer.
    const c = await RawConnection.connect(port);
    try {
      const head = await c.request('HEAD', '/hazelcast/health');
      expect(head.status).toBe(200);
      const next = await c.request('GET', '/hazelcast/health/cluster-size');
      expect(next.status).toBe(200);
      expect(next.body.toString()).toBe('1');
      expect(c.pending.length).toBe(0);
    } finally {
      await c.destroy();
    }
  });

  it('is refused with 403 and an empty body when HEALTH_CHECK is disabled, while other groups work', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ', 'CLUSTER_WRITE', 'DATA']));
    for (const [method, path] of [
      ['GET', '/hazelcast/health'],
      ['HEAD', '/grid/health'],
      ['GET', '/hazelcast/health/ready'],
      ['GET', '/grid/health/node-state'],
      ['GET', '/hazelcast/health/cluster-state'],
    ] as const) {
      const res = await sendRequest(port, method, path);
      expect(res.status, path).toBe(403);
      expect(res.body.length, path).toBe(0);
      expect(res.headers['content-length'], path).toBe('0');
      expect(res.headers['x-grid-error'], path).toBe('endpoint group HEALTH_CHECK is disabled');
    }
    expect((await sendRequest(port, 'GET', '/hazelcast/rest/cluster')).status).toBe(200);
  });

  it('reports PASSIVE node and cluster state after changeState to PASSIVE', async () => {
    const { port, member } = await startMember();
    const change = await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&PASSIVE' });
    expect(change.status).toBe(200);
    expect(member.cluster.state()).toBe('PASSIVE');

    const health = JSON.parse((await sendRequest(port, 'GET', '/hazelcast/health')).body.toString()) as Record<string, unknown>;
    expect(health).toMatchObject({ nodeState: 'PASSIVE', clusterState: 'PASSIVE', clusterSize: 1 });
    expect((await sendRequest(port, 'GET', '/hazelcast/health/node-state')).body.toString()).toBe('"PASSIVE"');
    expect((await sendRequest(port, 'GET', '/hazelcast/health/cluster-state')).body.toString()).toBe('"PASSIVE"');
    const head = await sendRequest(port, 'HEAD', '/hazelcast/health');
    expect(head.headers['hazelcast-nodestate']).toBe('PASSIVE');
    expect(head.headers['hazelcast-clusterstate']).toBe('PASSIVE');
    // A PASSIVE member is not ready for traffic.
    const ready = await sendRequest(port, 'GET', '/hazelcast/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.length).toBe(0);

    // Back to ACTIVE: healthy and ready again.
    expect((await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&active' })).status).toBe(200);
    expect((await sendRequest(port, 'GET', '/hazelcast/health/node-state')).body.toString()).toBe('"ACTIVE"');
    expect((await sendRequest(port, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });

  it('FROZEN and NO_MIGRATION show in cluster-state while the node stays ACTIVE', async () => {
    const { port } = await startMember();
    for (const state of ['FROZEN', 'NO_MIGRATION']) {
      expect((await sendRequest(port, 'POST', '/grid/rest/management/cluster/changeState', { body: `dev&&${state}` })).status).toBe(200);
      const h = JSON.parse((await sendRequest(port, 'GET', '/grid/health')).body.toString()) as Record<string, unknown>;
      expect(h).toMatchObject({ nodeState: 'ACTIVE', clusterState: state });
    }
  });

  it('with security enabled, health/cluster-state needs Basic credentials; the other sub-paths do not', async () => {
    const { port, logs } = await startMember(restConfig(undefined, { security: SECURITY }));
    const path = '/hazelcast/health/cluster-state';

    const none = await sendRequest(port, 'GET', path);
    expect(none.status).toBe(403);
    expect(none.body.length).toBe(0);
    const wrong = await sendRequest(port, 'GET', path, { headers: { Authorization: basic('admin', 'nope') } });
    expect(wrong.status).toBe(403);
    // The cluster name is no credential once security is on.
    expect((await sendRequest(port, 'GET', path, { headers: { Authorization: basic('dev', '') } })).status).toBe(403);

    const ok = await sendRequest(port, 'GET', path, { headers: { Authorization: basic('admin', 's3cret') } });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('"ACTIVE"');

    expect((await sendRequest(port, 'GET', '/hazelcast/health')).status).toBe(200);
    expect((await sendRequest(port, 'GET', '/hazelcast/health/node-state')).status).toBe(200);

    for (const r of [none, wrong, ok]) expect(r.head).not.toContain('s3cret');
    expect(JSON.stringify(logs.lines)).not.toContain('s3cret');
  });

  it('without security, health/cluster-state needs no credentials', async () => {
    const { port } = await startMember();
    expect((await sendRequest(port, 'GET', '/grid/health/cluster-state')).status).toBe(200);
  });
});
