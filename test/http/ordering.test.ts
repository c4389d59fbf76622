// Regressions: work on one connection happens in arrival order, and a disabled group is
// refused before a malformed path inside it is parsed.

import { describe, expect, it } from 'vitest';
import { RawConnection, buildRequest, rawRequest } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';

describe('pipelined requests on one connection', () => {
  it('apply in arrival order: a GET behind a POST sees the POST, a GET behind a DELETE does not', async () => {
    const { port } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        Buffer.concat([
          buildRequest('POST', '/hazelcast/rest/maps/p/a', { body: 'abc', headers: { 'Content-Type': 'text/plain' } }),
          buildRequest('GET', '/hazelcast/rest/maps/p/a'),
          buildRequest('DELETE', '/hazelcast/rest/maps/p/a'),
          buildRequest('GET', '/hazelcast/rest/maps/p/a'),
          buildRequest('POST', '/hazelcast/rest/queues/pq', { body: 'one' }),
          buildRequest('GET', '/hazelcast/rest/queues/pq/size'),
          buildRequest('DELETE', '/hazelcast/rest/queues/pq/0'),
          buildRequest('GET', '/hazelcast/rest/queues/pq/size'),
        ]),
      );
      const answers = await c.readMany(8);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 204, 200, 200, 200, 200]);
      expect(answers[1]!.body.toString()).toBe('abc');
      expect(answers[5]!.body.toString()).toBe('1');
      expect(answers[6]!.body.toString()).toBe('one');
      expect(answers[7]!.body.toString()).toBe('0');
    } finally {
      await c.destroy();
    }
  });

  it('a waiting poll holds back the requests pipelined behind it until it is answered', async () => {
    const { port, base } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        Buffer.concat([buildRequest('DELETE', '/hazelcast/rest/queues/w/5'), buildRequest('GET', '/hazelcast/rest/queues/w/size')]),
      );
      expect(await c.somethingArrives(200)).toBe(false);
      expect((await fetch(`${base}/hazelcast/rest/queues/w`, { method: 'POST', body: 'item' })).status).toBe(200);
      const [poll, size] = await c.readMany(2);
      expect(poll!.status).toBe(200);
      expect(poll!.body.toString()).toBe('item');
      expect(size!.body.toString()).toBe('0');
    } finally {
      await c.destroy();
    }
  });
});

describe('disabled groups', () => {
  it('answer 403 even when the path inside them is malformed', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    for (const [method, path] of [
      ['GET', '/hazelcast/rest/maps/m/'],
      ['DELETE', '/hazelcast/rest/queues/q/abc'],
      ['GET', '/hazelcast/rest/maps/%ZZ/k'],
      ['POST', '/hazelcast/rest/wan/nonsense'],
      ['GET', '/hazelcast/rest/cp-subsystem/whatever'],
    ] as const) {
      const res = await rawRequest(port, buildRequest(method, path, { headers: { Connection: 'close' } }));
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.headers['x-grid-error']).toMatch(/endpoint group (DATA|WAN|CP) is disabled/);
    }
  });
});

describe('request targets', () => {
  it('accepts the absolute form (http://host:port/path) like the origin form', async () => {
    const { port } = await startMember();
    const put = await rawRequest(
      port,
      buildRequest('POST', `http://127.0.0.1:${port}/grid/rest/maps/abs/k?ignored=1`, { body: 'v', headers: { Connection: 'close' } }),
    );
    expect(put.status).toBe(200);
    const get = await rawRequest(port, buildRequest('GET', '/grid/rest/maps/abs/k', { headers: { Connection: 'close' } }));
    expect(get.body.toString()).toBe('v');
    const bad = await rawRequest(port, buildRequest('GET', 'ftp://x/grid/rest/maps/abs/k', { headers: { Connection: 'close' } }));
    expect(bad.status).toBe(400);
  });
});
