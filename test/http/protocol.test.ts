// HTTP/1.1 protocol behaviour of the REST server over raw sockets: keep-alive, pipelining,
// Expect: 100-continue, HTTP/1.0, chunked bodies, limits, malformed requests, clients that
// vanish or dawdle, HEAD, and the error-response shape.

import { describe, expect, it } from 'vitest';
import { buildRequest, connectionCount, pollUntil, RawConnection, rawRequest, type RawResponse } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';

const MAX_BODY = 1024;
const smallBodyMember = (): Promise<StartedMember> =>
  startMember(restConfig(undefined, { properties: { 'grid.rest.max-body-bytes': MAX_BODY } }));

function expectError(r: RawResponse, status: number, reason?: RegExp): void {
  expect(r.status, `${r.status} ${r.headers['x-grid-error'] ?? ''}`).toBe(status);
  expect(r.headers['content-length'], 'error responses carry Content-Length: 0').toBe('0');
  expect(r.headers['transfer-encoding']).toBeUndefined();
  expect(r.body.length).toBe(0);
  expect(r.headers['x-grid-error'], 'error responses carry X-Grid-Error').toBeTruthy();
  if (reason !== undefined) expect(r.headers['x-grid-error']).toMatch(reason);
}

/** GET of a map entry on a fresh connection. */
async function entry(m: StartedMember, path: string): Promise<RawResponse> {
  return rawRequest(m.port, buildRequest('GET', `/grid/rest/maps/${path}`, { headers: { Connection: 'close' } }));
}

/** The member still answers a plain request on a new connection, through fetch. */
async function stillServes(m: StartedMember): Promise<void> {
  const r = await fetch(`${m.base}/grid/rest/cluster`, { signal: AbortSignal.timeout(3_000) });
  expect(r.status).toBe(200);
  expect(((await r.json()) as { members: unknown[] }).members).toHaveLength(1);
}

describe('connections', () => {
  it('keeps a connection alive across several requests', async () => {
    const m = await startMember();
    const c = await RawConnection.connect(m.port);
    await c.write(buildRequest('POST', '/grid/rest/maps/ka/k', { body: 'one', headers: { 'Content-Type': 'text/plain' } }));
    expect((await c.read()).status).toBe(200);
    await c.write(buildRequest('GET', '/grid/rest/maps/ka/k'));
    const g = await c.read();
    expect(g.status).toBe(200);
    expect(g.body.toString()).toBe('one');
    expect(g.headers.connection).toBe('keep-alive');
    await c.write(buildRequest('DELETE', '/grid/rest/maps/ka/k'));
    expect((await c.read()).status).toBe(200);
    await c.write(buildRequest('GET', '/grid/rest/maps/ka/k'));
    expect((await c.read()).status).toBe(204);
    // An error without a body keeps the connection too.
    await c.write(buildRequest('GET', '/grid/rest/nothing-here'));
    expectError(await c.read(), 400);
    await c.write(buildRequest('GET', '/grid/rest/instance'));
    expect((await c.read()).status).toBe(200);
    expect(c.peerEnded).toBe(false);
    // Connection: close is honoured.
    await c.write(buildRequest('GET', '/grid/rest/instance', { headers: { Connection: 'close' } }));
    const last = await c.read();
    expect(last.status).toBe(200);
    expect(last.headers.connection).toBe('close');
    await c.waitForEnd();
    await c.destroy();
  });

  it('answers pipelined requests in order, each seeing the effects of the ones before it', async () => {
    const m = await startMember();
    const c = await RawConnection.connect(m.port);
    await c.write(
      Buffer.concat([
        buildRequest('POST', '/grid/rest/maps/p/a', { body: '1', headers: { 'Content-Type': 'text/a' } }),
        buildRequest('GET', '/grid/rest/maps/p/a'),
        buildRequest('POST', '/grid/rest/maps/p/a', { body: 'two', headers: { 'Content-Type': 'text/b' } }),
        buildRequest('GET', '/grid/rest/maps/p/a'),
        buildRequest('DELETE', '/grid/rest/maps/p/a'),
        buildRequest('GET', '/grid/rest/maps/p/a'),
        buildRequest('GET', '/grid/rest/instance'),
      ]),
    );
    const rs = await c.readMany(7);
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 204, 200]);
    expect(rs[1]!.body.toString()).toBe('1');
    expect(rs[1]!.headers['content-type']).toBe('text/a');
    expect(rs[3]!.body.toString()).toBe('two');
    expect(rs[3]!.headers['content-type']).toBe('text/b');
    expect(JSON.parse(rs[6]!.body.toString())).toHaveProperty('name');
    expect(c.pending.length).toBe(0);
    await c.destroy();
    expect((await entry(m, 'p/a')).status).toBe(204);
  });

  it('keeps pipelined answers in order behind a slow one', async () => {
    const m = await startMember();
    const c = await RawConnection.connect(m.port);
    await c.write(
      Buffer.concat([
        buildRequest('DELETE', '/grid/rest/queues/slowq/1'), // waits 1 s, then 204
        buildRequest('POST', '/grid/rest/maps/p/b', { body: 'behind the poll' }),
        buildRequest('GET', '/grid/rest/maps/p/b'),
        buildRequest('GET', '/grid/rest/queues/slowq/size'),
      ]),
    );
    const rs = await c.readMany(4, { timeoutMs: 5_000 });
    expect(rs.map((r) => r.status)).toEqual([204, 200, 200, 200]);
    expect(rs[2]!.body.toString()).toBe('behind the poll');
    expect(rs[3]!.body.toString()).toBe('0');
    await c.destroy();
  });

  it('answers HTTP/1.0 and closes the connection', async () => {
    const m = await startMember();
    await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/old/k', { body: 'v10', version: 'HTTP/1.0' }));
    const c = await RawConnection.connect(m.port);
    await c.write('GET /grid/rest/maps/old/k HTTP/1.0\r\n\r\n');
    const r = await c.read();
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('v10');
    expect(r.headers.connection).toBe('close');
    await c.waitForEnd();
    await c.destroy();
  });

  it('refuses an HTTP/1.1 request without Host (RFC 9112) in the error shape; HTTP/1.0 needs none', async () => {
    const m = await startMember();
    expectError(await rawRequest(m.port, 'GET /grid/rest/instance HTTP/1.1\r\n\r\n'), 400, /Host/);
    expectError(await rawRequest(m.port, 'POST /grid/rest/maps/m/k HTTP/1.1\r\nContent-Length: 1\r\n\r\nx'), 400, /Host/);
    expect(await m.member.maps.size('m')).toBe(0);
    expect((await rawRequest(m.port, 'GET /grid/rest/instance HTTP/1.0\r\n\r\n')).status).toBe(200);
  });
});

describe('request bodies', () => {
  it('answers Expect: 100-continue with 100 Continue, then takes the body', async () => {
    const m = await smallBodyMember();
    const c = await RawConnection.connect(m.port);
    await c.write(
      buildRequest('POST', '/grid/rest/maps/e/k', { headers: { 'Content-Length': 5, Expect: '100-continue', 'Content-Type': 'text/plain' } }),
    );
    const cont = await c.read();
    expect(cont.status).toBe(100);
    expect(cont.statusText).toBe('Continue');
    expect(cont.version).toBe('HTTP/1.1');
    await c.write('hello');
    const ok = await c.read();
    expect(ok.status).toBe(200);
    await c.destroy();
    expect((await entry(m, 'e/k')).body.toString()).toBe('hello');
  });

  it('ignores Expect: 100-continue from an HTTP/1.0 client on either HTTP path (no 100; node:http ignores it, RFC 9110 10.1.1)', async () => {
    for (const path of ['grid', 'node']) {
      const m = await startMember(restConfig(undefined, { properties: { 'grid.rest.http-path': path } }));
      const c = await RawConnection.connect(m.port);
      await c.write(buildRequest('POST', '/grid/rest/maps/e/old', { version: 'HTTP/1.0', body: 'ten', headers: { Expect: '100-continue', 'Content-Type': 'text/plain' } }));
      const r = await c.read();
      // A 100 Continue would be the first answer read.
      expect(r.status, `${path} path`).toBe(200);
      await c.waitForEnd(3_000);
      await c.destroy();
      expect((await entry(m, 'e/old')).body.toString()).toBe('ten');
    }
  });

  it('answers pipelined requests before a malformed chunked body, then the error, on either HTTP path', async () => {
    // node:http parses ahead: the bad body is found while the first request is still read and
    // served; its error must not take the first request's place.
    for (const path of ['grid', 'node']) {
      const m = await startMember(restConfig(undefined, { properties: { 'grid.rest.http-path': path } }));
      const c = await RawConnection.connect(m.port);
      await c.write(
        Buffer.concat([
          buildRequest('POST', '/grid/rest/maps/pc/one', { body: 'first', headers: { 'Content-Type': 'text/plain' } }),
          buildRequest('POST', '/grid/rest/maps/pc/two', { headers: { 'Transfer-Encoding': 'chunked' }, body: '3\r\nabcde\r\n0\r\n\r\n' }),
        ]),
      );
      expect((await c.read()).status, `${path} path`).toBe(200);
      expectError(await c.read(), 400, /HPE_STRICT/);
      await c.waitForEnd(3_000);
      await c.destroy();
      expect((await entry(m, 'pc/one')).body.toString(), `${path} path`).toBe('first');
    }
  });

  it('refuses Expect: 100-continue with an oversize Content-Length at once: 413, no 100, nothing stored', async () => {
    const m = await smallBodyMember();
    const c = await RawConnection.connect(m.port);
    await c.write(buildRequest('POST', '/grid/rest/maps/e/big', { headers: { 'Content-Length': MAX_BODY + 1, Expect: '100-continue' } }));
    const r = await c.read();
    expectError(r, 413, /max-body-bytes/);
    expect(r.headers.connection).toBe('close');
    await c.waitForEnd();
    await c.destroy();
    expect((await entry(m, 'e/big')).status).toBe(204);
    expect(await m.member.maps.size('e')).toBe(0);
  });

  it('refuses Expect: 100-continue for a request it will not take (bad path, disabled group) without 100', async () => {
    const m = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    for (const [path, status] of [
      ['/grid/rest/maps/m/k', 403],
      ['/grid/rest/nope', 400],
    ] as const) {
      const c = await RawConnection.connect(m.port);
      await c.write(buildRequest('POST', path, { headers: { 'Content-Length': 3, Expect: '100-continue' } }));
      expectError(await c.read(), status);
      await c.waitForEnd();
      await c.destroy();
    }
  });

  it('answers an unsupported Expect with 417 in the error shape', async () => {
    const m = await startMember();
    const r = await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/m/k', { headers: { Expect: 'teapot' }, body: 'x' }));
    expectError(r, 417);
    expect(await m.member.maps.size('m')).toBe(0);
    await stillServes(m);
  });

  it('stores a chunked request body as the concatenation of its chunks', async () => {
    const m = await startMember();
    const c = await RawConnection.connect(m.port);
    await c.write(
      'POST /grid/rest/maps/ch/k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-chunks\r\n\r\n',
    );
    const parts = [Buffer.from('first-'), Buffer.from([0, 0xff, 0x0d, 0x0a]), Buffer.from('-last ✓')];
    for (const p of parts) {
      await c.write(Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]));
    }
    await c.write('0\r\n\r\n');
    expect((await c.read()).status).toBe(200);
    await c.destroy();
    const g = await entry(m, 'ch/k');
    expect(g.headers['content-type']).toBe('application/x-chunks');
    expect(g.body.equals(Buffer.concat(parts))).toBe(true);
  });

  it('accepts a body of exactly grid.rest.max-body-bytes, chunked or not', async () => {
    const m = await smallBodyMember();
    const exact = Buffer.alloc(MAX_BODY, 0x61);
    expect((await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/lim/plain', { body: exact }))).status).toBe(200);
    const chunked = `POST /grid/rest/maps/lim/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n200\r\n${'b'.repeat(512)}\r\n200\r\n${'b'.repeat(512)}\r\n0\r\n\r\n`;
    expect((await rawRequest(m.port, chunked)).status).toBe(200);
    expect((await entry(m, 'lim/plain')).body.length).toBe(MAX_BODY);
    expect((await entry(m, 'lim/chunked')).body.length).toBe(MAX_BODY);
  });

  it('refuses an oversize Content-Length with 413 and stores nothing', async () => {
    const m = await smallBodyMember();
    const r = await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/big/k', { body: Buffer.alloc(MAX_BODY + 1, 0x61) }));
    expectError(r, 413, /max-body-bytes/);
    expect(r.headers.connection).toBe('close');
    const q = await rawRequest(m.port, buildRequest('POST', '/grid/rest/queues/bigq', { body: Buffer.alloc(MAX_BODY * 4, 0x61) }));
    expectError(q, 413);
    expect(await m.member.maps.size('big')).toBe(0);
    expect(await m.member.queues.size('bigq')).toBe(0);
    await stillServes(m);
  });

  it('refuses an oversize chunked body with 413 and stores nothing', async () => {
    const m = await smallBodyMember();
    const c = await RawConnection.connect(m.port);
    await c.write('POST /grid/rest/maps/bigc/k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    await c.write(`200\r\n${'a'.repeat(512)}\r\n`);
    await c.write(`200\r\n${'a'.repeat(512)}\r\n`);
    await c.write('1\r\nz\r\n0\r\n\r\n');
    const r = await c.read();
    expectError(r, 413, /max-body-bytes/);
    expect(r.headers.connection).toBe('close');
    await c.destroy();
    expect((await entry(m, 'bigc/k')).status).toBe(204);
    expect(await m.member.maps.size('bigc')).toBe(0);
    await stillServes(m);
  });

  it('applies nothing when the client disconnects mid-body, and keeps serving', async () => {
    const m = await startMember();
    expect(await connectionCount(m.port)).toBe(1);
    const cases = [
      buildRequest('POST', '/grid/rest/maps/mid/k', { headers: { 'Content-Length': 100 }, body: Buffer.from('0123456789') }),
      Buffer.from('POST /grid/rest/maps/mid/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'),
      buildRequest('POST', '/grid/rest/queues/midq', { headers: { 'Content-Length': 100 }, body: Buffer.from('0123456789') }),
    ];
    for (const bytes of cases) {
      const c = await RawConnection.connect(m.port);
      await c.write(bytes);
      // The member has the connection (and so the partial request) before we vanish.
      await pollUntil(() => connectionCount(m.port), (n) => n === 2, { what: 'member seeing the partial request' });
      expect(await c.somethingArrives(50)).toBe(false);
      await c.destroy();
      await pollUntil(() => connectionCount(m.port), (n) => n === 1, { what: 'member seeing the close' });
    }
    expect(await m.member.maps.size('mid')).toBe(0);
    expect((await entry(m, 'mid/k')).status).toBe(204);
    expect(await m.member.queues.size('midq')).toBe(0);
    await stillServes(m);
  });
});

describe('malformed and unsupported requests', () => {
  it('answers headers over 64 KiB with 431 and keeps serving; just under the limit is fine', async () => {
    const m = await startMember();
    const c = await RawConnection.connect(m.port);
    await c.write(`GET /grid/rest/instance HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    const r = await c.read();
    expectError(r, 431, /65536/);
    await c.waitForEnd();
    await c.destroy();
    const under = await rawRequest(m.port, `GET /grid/rest/instance HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(60_000)}\r\n\r\n`);
    expect(under.status).toBe(200);
    await stillServes(m);
  });

  it('answers a malformed request line with 400 and an empty body, then closes', async () => {
    const m = await startMember();
    for (const bad of ['GARBAGE\r\n\r\n', 'GET\r\n\r\n', 'GET /grid/rest/instance HTTP/9.9\r\nHost: x\r\n\r\n', 'GET /grid/rest/instance HTTP/1.1\r\nBad Header\r\n\r\n', '\x01\x02\x03\r\n\r\n']) {
      const c = await RawConnection.connect(m.port);
      await c.write(bad);
      const r = await c.read();
      expectError(r, 400);
      await c.waitForEnd();
      await c.destroy();
    }
    await stillServes(m);
  });

  it('answers unknown methods, unknown paths and conflicting framing with 400', async () => {
    const m = await startMember();
    const requests: [string, Buffer | string][] = [
      ['PATCH', buildRequest('PATCH', '/grid/rest/maps/m/k', { body: 'x' })],
      ['OPTIONS', buildRequest('OPTIONS', '/grid/rest/maps/m/k')],
      ['TRACE', buildRequest('TRACE', '/grid/rest/maps/m/k')],
      ['CONNECT', 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n'],
      ['unknown path', buildRequest('GET', '/grid/rest/nothing')],
      ['bare prefix', buildRequest('GET', '/grid/')],
      ['root', buildRequest('GET', '/')],
      ['no prefix', buildRequest('GET', '/rest/maps/m/k')],
      ['CL and TE', 'POST /grid/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
      ['bad CL', 'POST /grid/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ];
    for (const [what, bytes] of requests) {
      const r = await rawRequest(m.port, bytes).catch((e: unknown) => {
        throw new Error(`${what}: ${String(e)}`);
      });
      expect(r.status, what).toBe(400);
      expectError(r, 400);
    }
    expect(await m.member.maps.size('m')).toBe(0);
    await stillServes(m);
  });

  it('gives every error response Content-Length: 0 and an X-Grid-Error header', async () => {
    const m = await startMember(
      restConfig(['CLUSTER_READ', 'HEALTH_CHECK', 'DATA', 'CLUSTER_WRITE'], {
        properties: { 'grid.rest.max-body-bytes': MAX_BODY },
        queue: { tiny: { 'max-size': 1 } },
      }),
    );
    await rawRequest(m.port, buildRequest('POST', '/grid/rest/queues/tiny', { body: 'fill' }));
    const cases: [number, Buffer | string][] = [
      [400, buildRequest('GET', '/grid/rest/maps/m/%zz')],
      [400, buildRequest('DELETE', '/grid/rest/queues/q/-1')],
      [400, buildRequest('POST', '/grid/rest/management/cluster/changeState', { body: 'dev' })],
      [403, buildRequest('POST', '/grid/rest/wan/pausePublisher', { body: 'dev&&a&b' })],
      [403, buildRequest('POST', '/grid/rest/management/cluster/state', { body: 'wrong-cluster&' })],
      [413, buildRequest('POST', '/grid/rest/maps/m/k', { body: Buffer.alloc(MAX_BODY + 1) })],
      [431, `GET /grid/rest/instance HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`],
      [503, buildRequest('POST', '/grid/rest/queues/tiny', { body: 'overflow' })],
      [400, 'GARBAGE\r\n\r\n'],
    ];
    for (const [status, bytes] of cases) expectError(await rawRequest(m.port, bytes), status);
  });

  it('answers HEAD on a map entry with its headers and no body', async () => {
    const m = await startMember();
    await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/h/k', { body: 'twelve bytes', headers: { 'Content-Type': 'text/x-head' } }));
    const c = await RawConnection.connect(m.port);
    // HEAD, then GET in the same write: any stray body bytes after the HEAD answer would
    // break the parse of the GET answer.
    await c.write(
      Buffer.concat([buildRequest('HEAD', '/grid/rest/maps/h/k'), buildRequest('HEAD', '/grid/rest/maps/h/absent'), buildRequest('GET', '/grid/rest/maps/h/k')]),
    );
    const [head, absent, get] = await c.readMany(3, { heads: [true, true, false] });
    expect(head!.status).toBe(200);
    expect(head!.headers['content-length']).toBe('12');
    expect(head!.headers['content-type']).toBe('text/x-head');
    expect(absent!.status).toBe(204);
    expect(get!.status).toBe(200);
    expect(get!.body.toString()).toBe('twelve bytes');
    expect(c.pending.length).toBe(0);
    await c.destroy();
  });
});

describe('abuse does not block others', () => {
  it('serves other connections while slow clients dawdle in headers and bodies', async () => {
    const m = await startMember();
    const slowHead = await RawConnection.connect(m.port);
    await slowHead.write('GET /grid/rest/maps/slow/k HTTP/1.1\r\nHost: x\r\nX-Partial: ');
    const slowBody = await RawConnection.connect(m.port);
    await slowBody.write(buildRequest('POST', '/grid/rest/maps/slow/k', { headers: { 'Content-Length': 10 } }));
    await slowBody.write('01234');
    const waitingPoll = await RawConnection.connect(m.port);
    await waitingPoll.write(buildRequest('DELETE', '/grid/rest/queues/slowq/10'));
    await pollUntil(() => connectionCount(m.port), (n) => n === 4, { what: 'three slow connections open' });

    // Meanwhile, others are served promptly.
    const t0 = Date.now();
    const [a, b] = await Promise.all([
      fetch(`${m.base}/grid/rest/maps/other/k`, { method: 'POST', body: 'parallel', signal: AbortSignal.timeout(3_000) }),
      fetch(`${m.base}/grid/rest/cluster`, { signal: AbortSignal.timeout(3_000) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(await slowBody.somethingArrives(20)).toBe(false);

    // The slow ones finish normally.
    await slowBody.write('56789');
    expect((await slowBody.read()).status).toBe(200);
    await slowHead.write('done\r\n\r\n');
    const sh = await slowHead.read();
    expect(sh.status).toBe(200);
    expect(sh.body.toString()).toBe('0123456789');
    expect((await rawRequest(m.port, buildRequest('POST', '/grid/rest/queues/slowq', { body: 'at last' }))).status).toBe(200);
    expect((await waitingPoll.read()).body.toString()).toBe('at last');
    await Promise.all([slowHead.destroy(), slowBody.destroy(), waitingPoll.destroy()]);
  });
});
