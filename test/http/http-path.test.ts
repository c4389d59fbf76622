// Grid's own HTTP/1.1 path (src/rest/http1-connection.ts) beyond what the protocol tests
// check on either path: its keep-alive timing, that ordinary REST traffic never takes the
// hand-off to node:http while what it does not parse itself does (answers still in order), a
// client that stops reading its answers, the shared read buffer, and the switch back to
// node:http.

import { describe, expect, it } from 'vitest';
import { RawConnection, buildRequest, pollUntil, rawRequest } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';
import { prng } from '../support/prng.js';
import { sleep } from '../support/wait.js';

interface RestView {
  pathCounts: { grid: number; node: number; handOffs: number };
  server: import('node:http').Server & { connectionsCheckingInterval: number };
}
const restOf = (m: StartedMember): RestView => (m.member as unknown as { rest: RestView }).rest;

describe("Grid's HTTP path", () => {
  it('keeps a busy keep-alive connection open past the keep-alive timeout, and closes it once idle that long', async () => {
    const m = await startMember();
    const srv = restOf(m).server;
    srv.keepAliveTimeout = 400;
    srv.connectionsCheckingInterval = 50;
    srv.emit('listening'); // restart the checks with the short interval
    const c = await RawConnection.connect(m.port);
    try {
      // Requests with bodies 100 ms apart for 1.2 s: three keep-alive timeouts, never idle that long.
      for (let i = 0; i < 12; i++) {
        if (i > 0) await sleep(100); // pacing (see above), not a wait for something
        await c.write(buildRequest('POST', `/grid/rest/maps/ka/k${i}`, { body: 'v'.repeat(100) }));
        const r = await c.read();
        expect(r.status, `request ${i}`).toBe(200);
        expect(r.headers['keep-alive']).toBe('timeout=0');
      }
      expect(c.peerEnded).toBe(false);
      const idleFrom = Date.now();
      await c.waitForEnd(3_000);
      expect(Date.now() - idleFrom).toBeGreaterThanOrEqual(350);
    } finally {
      await c.destroy();
    }
    expect(await m.member.maps.size('ka')).toBe(12);
  });

  it('serves ordinary REST traffic without the hand-off; hands a connection to node:http at a request it does not parse, answers in order', async () => {
    const m = await startMember();
    const counts = restOf(m).pathCounts;
    const c = await RawConnection.connect(m.port);
    try {
      await c.write(
        Buffer.concat([
          buildRequest('POST', '/grid/rest/maps/m/a', { body: 'one', headers: { 'Content-Type': 'text/plain' } }),
          buildRequest('PUT', '/hazelcast/rest/maps/m/b', { body: 'two' }),
          buildRequest('GET', '/grid/rest/maps/m/a'),
          buildRequest('HEAD', '/grid/rest/maps/m/b'),
          Buffer.from('POST /grid/rest/queues/q HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'),
          buildRequest('DELETE', '/grid/rest/maps/m/b'),
          buildRequest('GET', '/grid/rest/queues/q/0'),
          buildRequest('GET', '/grid/rest/maps/m/a?x=1', { headers: { Connection: 'keep-alive', Accept: '*/*', 'User-Agent': 'curl/8' } }),
        ]),
      );
      const rs = await c.readMany(8, { heads: [false, false, false, true, false, false, false, false] });
      expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
      expect(rs[2]!.body.toString()).toBe('one');
      expect(rs[3]!.headers['content-length']).toBe('3');
      expect(rs[6]!.body.toString()).toBe('abc');
      const cont = await RawConnection.connect(m.port);
      await cont.write(buildRequest('POST', '/grid/rest/maps/m/c', { headers: { 'Content-Length': 4, Expect: '100-continue' } }));
      expect((await cont.read()).status).toBe(100);
      await cont.write('four');
      expect((await cont.read()).status).toBe(200);
      await cont.destroy();
      expect((await rawRequest(m.port, 'GET /grid/rest/maps/m/c HTTP/1.0\r\n\r\n')).body.toString()).toBe('four');
      expect(counts.handOffs).toBe(0);

      // An absolute-form target behind two requests: they are answered first, then node:http
      // takes the connection at the absolute-form request and serves it and what follows.
      await c.write(
        Buffer.concat([
          buildRequest('POST', '/grid/rest/maps/m/d', { body: 'dee' }),
          buildRequest('GET', '/grid/rest/maps/m/d'),
          buildRequest('GET', `http://127.0.0.1:${m.port}/grid/rest/maps/m/d`),
          buildRequest('GET', '/grid/rest/maps/m/a'),
        ]),
      );
      const after = await c.readMany(4);
      expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(after.map((r) => r.body.toString())).toEqual(['', 'dee', 'dee', 'one']);
      expect(counts.handOffs).toBe(1);
      expect(c.peerEnded).toBe(false);
    } finally {
      await c.destroy();
    }
  });

  it('stops reading a client that does not read its answers, serves others meanwhile, and answers everything in order once it reads', async () => {
    const m = await startMember();
    const value = 'x'.repeat(20_000);
    expect((await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/big/k', { body: value, headers: { Connection: 'close' } }))).status).toBe(200);
    const c = await RawConnection.connect(m.port);
    try {
      c.socket.pause(); // reads nothing: the member's answers back up
      const n = 3_000; // 60 MB of answers, were they all made at once
      const one = buildRequest('GET', '/grid/rest/maps/big/k');
      c.socket.write(Buffer.concat(Array.from({ length: n }, () => one)));
      const conns = (m.member as unknown as { rest: { connections: Set<{ socket: import('node:net').Socket }> } }).rest.connections;
      const server = await pollUntil(
        () => Promise.resolve([...conns].find((x) => x.socket.remotePort === c.socket.localPort)),
        (x) => x !== undefined && x.socket.isPaused(),
        { what: "the member to stop reading the client's requests", timeoutMs: 5_000 },
      );
      // What the member holds for this client stays near its limit (1 MiB), not 60 MB.
      expect(server!.socket.writableLength).toBeLessThan(4 * 1024 * 1024);
      const other = await rawRequest(m.port, buildRequest('GET', '/grid/health/node-state', { headers: { Connection: 'close' } }));
      expect(other.status).toBe(200);
      c.socket.resume();
      const answers = await c.readMany(n, { timeoutMs: 30_000 });
      expect(answers.every((a) => a.status === 200 && a.body.length === value.length)).toBe(true);
      expect(c.pending.length).toBe(0);
    } finally {
      await c.destroy();
    }
  });

  it("reads every connection through the listener's shared buffer: bodies and requests split across reads of several connections arrive intact", async () => {
    const m = await startMember();
    const rand = prng(0x5eed);
    /** One connection's stream: pipelined POSTs (Content-Length and chunked) with distinct bodies, a 200 KiB one among them. */
    const streamFor = (c: number): { bytes: Buffer; keys: string[]; values: string[] } => {
      const parts: Buffer[] = [];
      const keys: string[] = [];
      const values: string[] = [];
      for (let i = 0; i < 60; i++) {
        const key = `c${c}-k${i}`;
        const size = i === 30 ? 200 * 1024 : 1 + Math.floor(rand() * 3000);
        const value = Array.from({ length: size }, (_, j) => String.fromCharCode(97 + ((i * 7 + j * 13 + c) % 26))).join('');
        keys.push(key);
        values.push(value);
        if (i % 5 === 4) {
          // chunked, in two chunks
          const half = value.length >> 1;
          const body = `${half.toString(16)}\r\n${value.slice(0, half)}\r\n${(value.length - half).toString(16)}\r\n${value.slice(half)}\r\n0\r\n\r\n`;
          parts.push(buildRequest('POST', `/grid/rest/maps/shared/${key}`, { body, headers: { 'Transfer-Encoding': 'chunked' } }));
        } else {
          parts.push(buildRequest('POST', `/grid/rest/maps/shared/${key}`, { body: value, headers: { 'Content-Type': 'text/plain' } }));
        }
      }
      return { bytes: Buffer.concat(parts), keys, values };
    };
    const conns = await Promise.all([0, 1, 2].map(() => RawConnection.connect(m.port)));
    try {
      const streams = conns.map((_, c) => streamFor(c));
      // Every connection writes its stream in pieces of odd sizes, interleaved with the others,
      // so that a read of one connection lands in the buffer between two reads of another.
      const offsets = [0, 0, 0];
      while (offsets.some((o, c) => o < streams[c]!.bytes.length)) {
        await Promise.all(
          conns.map(async (conn, c) => {
            const at = offsets[c]!;
            const bytes = streams[c]!.bytes;
            if (at >= bytes.length) return;
            const n = 1 + Math.floor(rand() * 9000);
            offsets[c] = Math.min(bytes.length, at + n);
            await conn.write(bytes.subarray(at, offsets[c]));
          }),
        );
        await sleep(1); // pacing: lets the members read between the pieces
      }
      for (const conn of conns) {
        const answers = await conn.readMany(60);
        expect(answers.map((r) => r.status)).toEqual(new Array(60).fill(200));
      }
      // The connections were read through the shared buffer (not 'data' events).
      const served = [...(m.member as unknown as { rest: { connections: Set<{ sharedReads?: boolean }> } }).rest.connections];
      expect(served.length).toBeGreaterThanOrEqual(3);
      expect(served.every((c) => c.sharedReads === true)).toBe(true);
      for (const [c, s] of streams.entries()) {
        for (const [i, key] of s.keys.entries()) {
          const r = await rawRequest(m.port, buildRequest('GET', `/grid/rest/maps/shared/${key}`, { headers: { Connection: 'close' } }));
          expect(r.status, `connection ${c} key ${key}`).toBe(200);
          expect(r.body.toString('latin1') === s.values[i], `connection ${c} key ${key}: value intact`).toBe(true);
        }
      }
    } finally {
      await Promise.all(conns.map((c) => c.destroy()));
    }
    expect(restOf(m).pathCounts.handOffs).toBe(0);
  }, 60_000);

  it('serves every connection through node:http with grid.rest.http-path: node', async () => {
    const m = await startMember(restConfig(undefined, { properties: { 'grid.rest.http-path': 'node' } }));
    const r = await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/n/k', { body: 'v', headers: { Connection: 'close' } }));
    expect(r.status).toBe(200);
    expect((await rawRequest(m.port, buildRequest('GET', '/grid/rest/maps/n/k', { headers: { Connection: 'close' } }))).body.toString()).toBe('v');
    expect(restOf(m).pathCounts).toMatchObject({ grid: 0, handOffs: 0 });
    expect(restOf(m).pathCounts.node).toBeGreaterThanOrEqual(2);
  });
});
