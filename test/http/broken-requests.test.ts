// Broken requests on a busy connection: a body the parser gives up on is answered in its
// request's place (never a hang), a pipelining client is really stopped from reading ahead,
// and CONNECT behind a waiting poll does not steal the poll's answer.

import { describe, expect, it } from 'vitest';
import { RawConnection, buildRequest } from '../support/http.js';
import { startMember } from '../support/member.js';
import { sleep } from '../support/wait.js';

interface ConnView {
  queue: unknown[];
  busy: boolean;
  pendingError: string | undefined;
}
type RestView = { connections: Set<ConnView>; server: import('node:http').Server & { connectionsCheckingInterval: number } };
const restOf = (member: unknown): RestView => (member as { rest: RestView }).rest;
// Only for negative checks (nothing more gets read) and to split writes into separate reads.

describe('a parse error inside the body being read', () => {
  it('answers a malformed chunk of the current request with 400 and closes (no hang)', async () => {
    const { port, base } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write('POST /grid/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n');
      const r = await c.read({ timeoutMs: 2_000 });
      expect(r.status).toBe(400);
      await c.waitForEnd(2_000);
    } finally {
      await c.destroy();
    }
    expect((await fetch(`${base}/grid/rest/maps/m/k`)).status).toBe(204);
  });

  it('answers a malformed chunk of a queued request after the one before it, then closes', async () => {
    const { port } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        Buffer.concat([
          buildRequest('GET', '/grid/rest/queues/q/1'),
          Buffer.from('POST /grid/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n'),
        ]),
      );
      const [poll, bad] = await c.readMany(2, { timeoutMs: 3_000 });
      expect(poll!.status).toBe(204);
      expect(bad!.status).toBe(400);
    } finally {
      await c.destroy();
    }
  });

  it('enforces requestTimeout on a body that stops arriving (408, closed)', async () => {
    const { port, member } = await startMember();
    const srv = restOf(member).server;
    srv.requestTimeout = 500;
    srv.headersTimeout = 500;
    srv.connectionsCheckingInterval = 100;
    srv.emit('listening'); // restart node's checker with the short interval
    const c = await RawConnection.connect(port);
    try {
      await c.write('POST /grid/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcde');
      const r = await c.read({ timeoutMs: 3_000 });
      expect(r.status).toBe(408);
      await c.waitForEnd(2_000);
    } finally {
      await c.destroy();
    }
  });
});

describe('back-pressure', () => {
  it('stops reading a pipelining connection: the queue stays near MAX_QUEUED_PER_CONNECTION', async () => {
    const { port, member } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(buildRequest('GET', '/grid/rest/queues/hold/5'));
      const one = buildRequest('GET', '/grid/rest/maps/m/k');
      // Several separate reads, each well under one socket read's size.
      for (let i = 0; i < 20; i++) {
        await c.write(Buffer.concat(Array.from({ length: 100 }, () => one)));
        await sleep(10); // pacing: separate socket reads
      }
      await sleep(200); // a negative: time for the member to read more, would it not stop
      const longest = Math.max(...[...restOf(member).connections].map((x) => x.queue.length));
      expect(longest).toBeLessThan(500); // without real back-pressure it reaches 2000
    } finally {
      await c.destroy();
    }
  });
});

describe('CONNECT pipelined behind a waiting poll', () => {
  it('answers the poll first (its own answer), then the 400 for CONNECT', async () => {
    const { port } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        Buffer.concat([buildRequest('GET', '/grid/rest/queues/q/1'), Buffer.from('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')]),
      );
      const first = await c.read({ timeoutMs: 3_000 });
      expect(first.status).toBe(204); // on e1f6814: 400 "method CONNECT is not supported", and the poll is never answered
      const second = await c.read({ timeoutMs: 3_000 });
      expect(second.status).toBe(400);
    } finally {
      await c.destroy();
    }
  });
});
