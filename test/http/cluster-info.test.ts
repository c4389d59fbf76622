// GET /rest/cluster and /rest/instance (grid-behavior.md §6), under both prefixes.

import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { restConfig, startMember } from '../support/member.js';
import { RawConnection, sendRequest } from '../support/http.js';
import { waitFor } from '../support/process.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface ClusterInfo {
  members: { address: string; liteMember: boolean; localMember: boolean; uuid: string; memberVersion: string }[];
  connectionCount: number;
  allConnectionCount: number;
}

function json<T>(body: Buffer): T {
  return JSON.parse(body.toString('utf8')) as T;
}

describe('GET /rest/cluster', () => {
  it('describes the one-member cluster with the member port, uuid and package version', async () => {
    const { member, base, port } = await startMember();
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await fetch(`${base}${prefix}/rest/cluster`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const text = await res.text();
      // Compact JSON: what JSON.stringify would write.
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
      const info = JSON.parse(text) as ClusterInfo;
      expect(Object.keys(info)).toEqual(['members', 'connectionCount', 'allConnectionCount']);
      expect(info.members).toEqual([
        { address: `127.0.0.1:${port}`, liteMember: false, localMember: true, uuid: member.uuid, memberVersion: PACKAGE_VERSION },
      ]);
      expect(member.memberPort).toBe(port);
      expect(info.connectionCount).toBeGreaterThanOrEqual(1);
      // A member on its own has no member-to-member connections.
      expect(info.allConnectionCount).toBe(info.connectionCount);
    }
  });

  it('brackets an IPv6 member address', async (ctx) => {
    const ipv6 = await new Promise<boolean>((resolveProbe) => {
      const srv = net.createServer();
      srv.once('error', () => resolveProbe(false));
      srv.listen(0, '::1', () => srv.close(() => resolveProbe(true)));
    });
    if (!ipv6) ctx.skip();
    const { member } = await startMember(restConfig(undefined, { network: { interfaces: { enabled: true, interfaces: ['::1'] } } }));
    const c = await RawConnection.connect(member.memberPort, '::1');
    try {
      const info = json<ClusterInfo>((await c.request('GET', '/hazelcast/rest/cluster')).body);
      expect(info.members[0]?.address).toBe(`[::1]:${member.memberPort}`);
      expect(info.connectionCount).toBe(1);
    } finally {
      await c.destroy();
    }
  });

  it('reports a lite member as liteMember', async () => {
    const { base } = await startMember(restConfig(undefined, { 'lite-member': { enabled: true } }));
    const info = (await (await fetch(`${base}/hazelcast/rest/cluster`)).json()) as ClusterInfo;
    expect(info.members[0]?.liteMember).toBe(true);
  });

  it('counts open client connections, the asking one included', async () => {
    const { port } = await startMember();
    const count = async (c: RawConnection): Promise<ClusterInfo> => {
      const res = await c.request('GET', '/hazelcast/rest/cluster');
      expect(res.status).toBe(200);
      return json<ClusterInfo>(res.body);
    };
    const asker = await RawConnection.connect(port);
    const others: RawConnection[] = [];
    try {
      // Only raw sockets talk to this member, so the count is exact.
      expect((await count(asker)).connectionCount).toBe(1);
      for (let i = 0; i < 3; i++) {
        const c = await RawConnection.connect(port);
        others.push(c);
        // A connection counts once its first bytes showed it is HTTP: ask on it (keep-alive).
        expect((await c.request('GET', '/grid/rest/instance')).status).toBe(200);
      }
      const info = await count(asker);
      expect(info.connectionCount).toBe(4);
      expect(info.allConnectionCount).toBe(4);
      // A keep-alive connection stays counted across requests.
      expect((await count(others[0]!)).connectionCount).toBe(4);

      await Promise.all(others.splice(0).map((c) => c.destroy()));
      await waitFor('the closed connections to leave the count', async () => (await count(asker)).connectionCount === 1);
    } finally {
      await asker.destroy();
      await Promise.all(others.map((c) => c.destroy()));
    }
  });

  it('rejects methods other than GET', async () => {
    const { port } = await startMember();
    const res = await sendRequest(port, 'POST', '/hazelcast/rest/cluster', { body: 'dev&' });
    expect(res.status).toBe(400);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['x-grid-error']).toBeTruthy();
  });
});

describe('GET /rest/instance', () => {
  it('answers the configured instance-name under both prefixes', async () => {
    const { base, member } = await startMember(restConfig(undefined, { 'instance-name': 'orders-node-1' }));
    expect(member.instanceName).toBe('orders-node-1');
    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await fetch(`${base}${prefix}/rest/instance`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe('{"name":"orders-node-1"}');
    }
  });

  it('answers a generated, readable name that stays the same across calls', async () => {
    const { base, member } = await startMember();
    const names: string[] = [];
    for (const prefix of ['/grid', '/hazelcast', '/grid']) {
      const res = await fetch(`${base}${prefix}/rest/instance`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      names.push(((await res.json()) as { name: string }).name);
    }
    expect(names[0]).toMatch(/^[a-z]+_[a-z]+$/);
    expect(new Set(names)).toEqual(new Set([member.instanceName]));
  });

  it('keeps to CLUSTER_READ: 403 with an empty body when that group is off', async () => {
    const { port } = await startMember(restConfig(['HEALTH_CHECK']));
    for (const path of ['/hazelcast/rest/instance', '/grid/rest/cluster']) {
      const res = await sendRequest(port, 'GET', path);
      expect(res.status).toBe(403);
      expect(res.body.length).toBe(0);
      expect(res.headers['x-grid-error']).toBe('endpoint group CLUSTER_READ is disabled');
    }
  });
});
