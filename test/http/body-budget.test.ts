// The member-wide budget for request bodies being received (grid.rest.max-buffered-body-bytes),
// through the real HTTP interface: past it a new body gets 503 while other requests are
// served, the budget comes back after completed, refused and aborted uploads, and a member
// under many slow uploads keeps its RSS bounded.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RestServer } from '../../src/rest/rest-server.js';
import { startCluster } from '../support/cluster.js';
import { buildRequest, expectError, pollUntil, RawConnection, rawRequest } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';
import { waitFor } from '../support/process.js';
import { sleep } from '../support/wait.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const BUDGET = 1 * MiB;

const budgetMember = (budget = BUDGET, maxBody = budget): Promise<StartedMember> =>
  startMember(
    restConfig(undefined, {
      properties: { 'grid.rest.max-buffered-body-bytes': budget, 'grid.rest.max-body-bytes': maxBody },
    }),
  );

/** The member's figure itself (RestServer.bufferedBodyBytes), not an estimate. */
function buffered(m: StartedMember): number {
  const rest = (m.member as unknown as { rest: RestServer | undefined }).rest;
  if (rest === undefined) throw new Error('REST is not running on this member');
  return rest.bufferedBodyBytes;
}

async function bufferedReaches(m: StartedMember, accept: (bytes: number) => boolean, what: string): Promise<number> {
  return pollUntil(() => Promise.resolve(buffered(m)), accept, { what: `buffered body bytes ${what}` });
}

/** A map POST with a declared body of `size` bytes, of which `send` are sent now. */
async function startDeclaredUpload(m: StartedMember, key: string, size: number, send: number, headers: Record<string, string> = {}): Promise<RawConnection> {
  const c = await RawConnection.connect(m.port);
  await c.write(buildRequest('POST', `/grid/rest/maps/budget/${key}`, { headers: { 'Content-Length': size, ...headers } }));
  if (send > 0) await c.write(Buffer.alloc(send, 'd'));
  return c;
}

/** A chunked map POST with its first chunks (`sizes`) sent. */
async function startChunkedUpload(m: StartedMember, key: string, sizes: readonly number[]): Promise<RawConnection> {
  const c = await RawConnection.connect(m.port);
  await c.write(buildRequest('POST', `/grid/rest/maps/budget/${key}`, { headers: { 'Transfer-Encoding': 'chunked' } }));
  for (const n of sizes) await sendChunk(c, n);
  return c;
}

function sendChunk(c: RawConnection, n: number): Promise<void> {
  return c.write(Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), Buffer.alloc(n, 'c'), Buffer.from('\r\n')]));
}

async function getEntry(m: StartedMember, key: string): Promise<{ status: number; length: number }> {
  const r = await rawRequest(m.port, buildRequest('GET', `/grid/rest/maps/budget/${key}`, { headers: { Connection: 'close' } }));
  return { status: r.status, length: r.body.length };
}

const BUDGET_FULL = /max-buffered-body-bytes.*retry later/;

describe('the member-wide budget for request bodies', () => {
  it('refuses a new body with 503 and a reason past the budget, while a GET from another client is served and the upload in flight completes', async () => {
    const m = await budgetMember();
    expect((await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/budget/small', { body: 'v' }))).status).toBe(200);

    // A slow upload declares 992 KiB and sends a tenth of it: the whole declared length is reserved.
    const slow = await startDeclaredUpload(m, 'slow', BUDGET - 32 * KiB, 100 * KiB);
    expect(await bufferedReaches(m, (b) => b === BUDGET - 32 * KiB, 'with the slow upload reserved')).toBe(BUDGET - 32 * KiB);

    // A large declared body does not fit: 503 before its body is read, and the connection closes.
    const big = await startDeclaredUpload(m, 'big', 512 * KiB, 0);
    const refused = await big.read();
    expectError(refused, 503, BUDGET_FULL);
    expect(refused.headers['x-grid-error']).toContain(`${BUDGET - 32 * KiB} of ${BUDGET} bytes`);
    expect(refused.headers.connection).toBe('close');
    await big.waitForEnd();

    // A small body that does not fit is refused too, but drained: its connection serves the next request.
    const small = await RawConnection.connect(m.port);
    await small.write(buildRequest('POST', '/grid/rest/maps/budget/small2', { body: Buffer.alloc(40 * KiB, 's') }));
    const smallRefused = await small.read();
    expectError(smallRefused, 503, BUDGET_FULL);
    expect(smallRefused.headers.connection).toBe('keep-alive');
    await small.write(buildRequest('GET', '/grid/rest/maps/budget/small'));
    const got = await small.read();
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('v');
    await small.destroy();

    // Expect: 100-continue is refused before 100 is sent: the client never sends the body.
    const asking = await RawConnection.connect(m.port);
    await asking.write(buildRequest('POST', '/grid/rest/maps/budget/asking', { headers: { 'Content-Length': 40 * KiB, Expect: '100-continue' } }));
    const noContinue = await asking.read();
    expectError(noContinue, 503, BUDGET_FULL);
    expect(noContinue.headers.connection).toBe('close');
    await asking.waitForEnd();

    // Requests without a body, from other clients, are served as usual.
    expect(await getEntry(m, 'small')).toEqual({ status: 200, length: 1 });
    const health = await rawRequest(m.port, buildRequest('GET', '/grid/health/ready', { headers: { Connection: 'close' } }));
    expect(health.status).toBe(200);

    // The upload that was admitted completes, and is applied whole.
    await slow.write(Buffer.alloc(BUDGET - 32 * KiB - 100 * KiB, 'd'));
    expect((await slow.read()).status).toBe(200);
    await slow.destroy();
    await bufferedReaches(m, (b) => b === 0, 'back to 0 after the upload was handled');
    expect(await getEntry(m, 'slow')).toEqual({ status: 200, length: BUDGET - 32 * KiB });
    // Nothing of the refused bodies was applied.
    for (const key of ['big', 'small2', 'asking']) expect(await getEntry(m, key)).toEqual({ status: 204, length: 0 });

    // With the budget free again, the large body is taken.
    const retry = await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/budget/big', { body: Buffer.alloc(512 * KiB, 'b') }));
    expect(retry.status).toBe(200);
    expect(buffered(m)).toBe(0);
  });

  it('charges a chunked body as its chunks arrive and refuses it mid-way with 503 and a close when the next chunk does not fit', async () => {
    const m = await budgetMember();
    const a = await startChunkedUpload(m, 'a', [200 * KiB, 200 * KiB, 200 * KiB]);
    await bufferedReaches(m, (b) => b === 600 * KiB, 'charged with 600 KiB of chunks');
    const b = await startChunkedUpload(m, 'b', [300 * KiB]);
    await bufferedReaches(m, (x) => x === 900 * KiB, 'charged with both uploads');

    await sendChunk(b, 200 * KiB).catch(() => undefined); // the member may close while this is sent
    const refused = await b.read();
    expectError(refused, 503, BUDGET_FULL);
    expect(refused.headers.connection).toBe('close');
    await b.waitForEnd();
    // b's chunks are released; a keeps what it has.
    await bufferedReaches(m, (x) => x === 600 * KiB, 'back to the first upload alone');

    await sendChunk(a, 100 * KiB);
    await a.write('0\r\n\r\n');
    expect((await a.read()).status).toBe(200);
    await a.destroy();
    await bufferedReaches(m, (x) => x === 0, 'back to 0');
    expect(await getEntry(m, 'a')).toEqual({ status: 200, length: 700 * KiB });
    expect(await getEntry(m, 'b')).toEqual({ status: 204, length: 0 });
  });

  it('returns to 0 after uploads that are aborted, refused or handled, and then takes a body of the whole budget', async () => {
    const m = await budgetMember();
    const conns: RawConnection[] = [];
    for (let i = 0; i < 6; i++) conns.push(await startDeclaredUpload(m, `d${i}`, 100 * KiB, 10 * KiB));
    for (let i = 0; i < 6; i++) conns.push(await startChunkedUpload(m, `c${i}`, [20 * KiB, 10 * KiB]));
    // Pipelined behind a partial body on the same connection: never started, never charged.
    await conns[0]!.write(buildRequest('POST', '/grid/rest/maps/budget/piped', { body: 'p' }));
    await bufferedReaches(m, (b) => b === 6 * 100 * KiB + 6 * 30 * KiB, 'with every upload charged');
    // One more declared body is refused (780 KiB held, 300 KiB more do not fit).
    const refused = await startDeclaredUpload(m, 'refused', 300 * KiB, 0);
    expectError(await refused.read(), 503, BUDGET_FULL);

    // Every client vanishes mid-body.
    await Promise.all([...conns, refused].map((c) => c.destroy()));
    await bufferedReaches(m, (b) => b === 0, 'back to 0 after aborted uploads');
    for (const key of ['d0', 'c0', 'piped', 'refused']) expect(await getEntry(m, key)).toEqual({ status: 204, length: 0 });

    // Nothing leaked: a body of exactly the budget fits, declared and chunked.
    const whole = await rawRequest(m.port, buildRequest('POST', '/grid/rest/maps/budget/whole', { body: Buffer.alloc(BUDGET, 'w') }));
    expect(whole.status).toBe(200);
    const chunked = await startChunkedUpload(m, 'whole-chunked', [BUDGET / 2, BUDGET / 2]);
    await chunked.write('0\r\n\r\n');
    expect((await chunked.read()).status).toBe(200);
    await chunked.destroy();
    expect(buffered(m)).toBe(0);
  });

  it('answers 413 for a body larger than the whole budget (set below max-body-bytes), declared or chunked', async () => {
    const m = await budgetMember(64 * KiB, 1 * MiB);
    expect(m.logs.messages().join('\n')).toMatch(/max-buffered-body-bytes: 65536 is below rest.max-body-bytes/);
    const declared = await startDeclaredUpload(m, 'over', 100 * KiB, 0);
    const r = await declared.read();
    expectError(r, 413, /body of 102400 bytes exceeds grid.rest.max-buffered-body-bytes \(65536\)/);
    await declared.waitForEnd();
    const chunked = await startChunkedUpload(m, 'over-chunked', [40 * KiB]);
    await sendChunk(chunked, 40 * KiB).catch(() => undefined);
    expectError(await chunked.read(), 413, /exceeds grid.rest.max-buffered-body-bytes \(65536\)/);
    await chunked.waitForEnd();
    await bufferedReaches(m, (b) => b === 0, 'back to 0');
  });
});

// ---------------------------------------------------------------- RSS of a member child process

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}


describe.runIf(process.platform === 'linux')('RSS under many slow uploads', () => {
  it('stays bounded by the budget with 40 clients uploading 30 MiB bodies slowly and starting over when refused', async () => {
    const budget = 32 * MiB;
    const cluster = await startCluster({
      size: 1,
      properties: { 'grid.rest.max-buffered-body-bytes': budget, 'grid.rest.max-body-bytes': budget },
    });
    const member = cluster.member(0);
    const pid = member.process.child.pid!;
    const before = rssBytes(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);

    const UPLOAD = 30 * MiB;
    const PIECE = Buffer.alloc(64 * KiB, 'x');
    const CHUNK = Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')]);
    const deadline = Date.now() + 3_000;
    const refusals = new Map<number, number>();
    const slowUploader = async (i: number): Promise<void> => {
      // Half declare 30 MiB (one fits the budget at a time), half send chunks (charged as they arrive).
      const chunked = i % 2 === 1;
      while (Date.now() < deadline) {
        const c = await RawConnection.connect(member.port);
        try {
          const head: Record<string, string | number> = chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': UPLOAD };
          await c.write(buildRequest('POST', `/grid/rest/maps/rss/k${i}`, { headers: head }));
          for (let sent = 0; sent < UPLOAD - PIECE.length && Date.now() < deadline; sent += PIECE.length) {
            if (c.pending.length > 0 || c.peerEnded) break;
            await c.write(chunked ? CHUNK : PIECE);
            await sleep(5); // pacing: what makes the upload slow
          }
          if (c.pending.length > 0 || c.peerEnded) {
            const r = await c.read({ timeoutMs: 2_000 }).catch(() => undefined);
            if (r !== undefined) refusals.set(r.status, (refusals.get(r.status) ?? 0) + 1);
          }
        } catch {
          // the member closed the connection while we wrote: start over
        } finally {
          await c.destroy();
        }
      }
    };
    const uploads = Array.from({ length: 40 }, (_, i) => slowUploader(i));
    // Requests without a body keep being answered during the load, once the budget refuses uploads.
    await waitFor('an upload refused by the budget', () => (refusals.get(503) ?? 0) > 0, 3_000);
    const during = await cluster.http(0, 'GET', '/hazelcast/health/ready', undefined, { timeoutMs: 2_000 });
    await Promise.all(uploads);
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));

    const grownMiB = (peak - before) / MiB;
    console.log(`RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (+${grownMiB.toFixed(0)} MiB), budget ${budget / MiB} MiB, answers to refused uploads ${JSON.stringify([...refusals])}`);
    expect(during.status).toBe(200);
    expect(refusals.get(503) ?? 0, `answers to refused uploads: ${JSON.stringify([...refusals])}`).toBeGreaterThan(40);
    // Without the budget the same load takes the member past 1 GB (40 x 30 MiB). With it the
    // growth stays within a small multiple of the budget: bodies held, read buffers and garbage not yet collected.
    expect(grownMiB).toBeLessThan((3 * budget) / MiB + 64);
    // And the budget is free again once the member has seen every client go: a body of the whole budget is taken.
    const body = 'w'.repeat(budget);
    const whole = await pollUntil(
      () => cluster.http(0, 'POST', '/hazelcast/rest/maps/rss/whole', body),
      (r) => r.status !== 503,
      { timeoutMs: 10_000, intervalMs: 100, what: 'a POST of the whole budget not refused' },
    );
    expect(whole.status).toBe(200);
  }, 30_000);
});
