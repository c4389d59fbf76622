// Abuse on one connection must not cost other requests their answers or their items.

import { describe, expect, it } from 'vitest';
import { RawConnection, buildRequest, pollUntil, rawRequest } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';

describe('a malformed request behind good ones on the same connection', () => {
  it('lets the good ones answer first, in order, then answers 400 and closes', async () => {
    const { port, base } = await startMember();
    expect((await fetch(`${base}/grid/rest/queues/q`, { method: 'POST', body: 'item' })).status).toBe(200);
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        Buffer.concat([
          buildRequest('GET', '/grid/rest/queues/q/0'),
          buildRequest('POST', '/grid/rest/maps/m/k', { body: 'v' }),
          Buffer.from('BAD\x01 / HTTP/1.1\r\n\r\n'),
        ]),
      );
      const [poll, put, bad] = await c.readMany(3);
      expect(poll!.status).toBe(200);
      expect(poll!.body.toString()).toBe('item');
      expect(put!.status).toBe(200);
      expect(bad!.status).toBe(400);
      expect(bad!.headers['x-grid-error']).toMatch(/malformed HTTP request/);
      await c.waitForEnd();
    } finally {
      await c.destroy();
    }
    expect(await (await fetch(`${base}/grid/rest/maps/m/k`)).text()).toBe('v');
  });
});

describe('a poll pipelined behind a waiting poll', () => {
  it('takes nothing once its client has gone', async () => {
    const { port, base } = await startMember();
    expect((await fetch(`${base}/grid/rest/queues/full`, { method: 'POST', body: 'keep me' })).status).toBe(200);
    const c = await RawConnection.connect(port);
    await c.write(Buffer.concat([buildRequest('GET', '/grid/rest/queues/empty/30'), buildRequest('GET', '/grid/rest/queues/full/0')]));
    await pollUntil(
      async () => (await fetch(`${base}/grid/rest/cluster`)).json() as Promise<{ connectionCount: number }>,
      (j) => j.connectionCount >= 2,
      { what: 'pipelining connection counted' },
    );
    await c.destroy();
    // The member sees the close, ends the waiting poll, and runs the queued one for a client
    // that is gone, all before it can count the connection as closed for this request.
    await pollUntil(
      async () => (await fetch(`${base}/grid/rest/cluster`)).json() as Promise<{ connectionCount: number }>,
      (j) => j.connectionCount === 1,
      { what: 'pipelining connection closed' },
    );
    const size = await (await fetch(`${base}/grid/rest/queues/full/size`)).text();
    expect(size).toBe('1');
  });
});

describe('back-pressure', () => {
  it('stops reading a connection that pipelines far ahead of a waiting request, and keeps serving others', async () => {
    const { port, base } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      const one = buildRequest('GET', '/grid/rest/maps/m/k');
      const batch = Buffer.concat(Array.from({ length: 20_000 }, () => one));
      await c.write(buildRequest('GET', '/grid/rest/queues/hold/10'));
      // About 16 MB behind the waiting poll: the member reads a few requests, then stops.
      for (let i = 0; i < 20; i++) c.socket.write(batch);
      await pollUntil(
        () => Promise.resolve(c.socket.writableLength),
        (n) => n > 4 * 1024 * 1024,
        { what: 'client write buffer backing up', timeoutMs: 5_000 },
      );
      const other = await rawRequest(port, buildRequest('GET', '/grid/health/node-state', { headers: { Connection: 'close' } }));
      expect(other.status).toBe(200);
      expect((await fetch(`${base}/grid/rest/queues/hold/size`)).status).toBe(200);
    } finally {
      await c.destroy();
    }
  });
});

describe('a deep pipeline behind a waiting poll', () => {
  it('answers every request, in order, once the poll is served (no recursion, reading resumes)', async () => {
    const { port, base } = await startMember();
    expect((await fetch(`${base}/grid/rest/maps/m/k`, { method: 'POST', body: 'v' })).status).toBe(200);
    const c = await RawConnection.connect(port);
    try {
      const n = 5_000;
      const get = buildRequest('GET', '/grid/rest/maps/m/k');
      await c.write(Buffer.concat([buildRequest('GET', '/grid/rest/queues/deep/10'), ...Array.from({ length: n }, () => get)]));
      expect((await fetch(`${base}/grid/rest/queues/deep`, { method: 'POST', body: 'item' })).status).toBe(200);
      const answers = await c.readMany(n + 1, { timeoutMs: 15_000 });
      expect(answers[0]!.body.toString()).toBe('item');
      expect(answers.slice(1).every((a) => a.status === 200 && a.body.toString() === 'v')).toBe(true);
    } finally {
      await c.destroy();
    }
  });
});

describe('odd inputs', () => {
  it('treats prototype names as unknown WAN operations (400), not as a crash', async () => {
    const { port } = await startMember();
    for (const op of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await rawRequest(port, buildRequest('POST', `/grid/rest/wan/${op}`, { body: 'a', headers: { Connection: 'close' } }));
      expect(res.status, op).toBe(400);
    }
  });

  it('does not invite a body with 100 Continue on an endpoint that reads none', async () => {
    const { port } = await startMember();
    const c = await RawConnection.connect(port);
    try {
      await c.write(
        buildRequest('GET', '/grid/health/node-state', { headers: { Expect: '100-continue', 'Content-Length': 5 } }).subarray(0),
      );
      const res = await c.read();
      expect(res.status).toBe(200);
      expect(res.headers.connection).toBe('close');
    } finally {
      await c.destroy();
    }
  });
});

describe('logging of refusals', () => {
  it('logs 503 refusals at INFO at most once per code per interval, counting the rest', async () => {
    const { base, logs } = await startMember(restConfig(undefined, { queue: { tiny: { 'max-size': 1 } } }));
    expect((await fetch(`${base}/grid/rest/queues/tiny`, { method: 'POST', body: 'a' })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await fetch(`${base}/grid/rest/queues/tiny`, { method: 'POST', body: 'b' })).status).toBe(503);
    const info = logs.lines.filter((l) => l.level === 'INFO' && l.code === 'QUEUE_FULL');
    expect(info).toHaveLength(1);
    expect(String(info[0]!.msg)).toContain('queue "tiny" is full (max-size 1)');
  });
});
