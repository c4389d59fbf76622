// Queue endpoints over real sockets against an in-process member: offer/poll, waiting polls,
// bounds, the compatibility forms, bad timeouts, clients that leave, and member stop.

import { describe, expect, it } from 'vitest';
import type { Member } from '../../src/member/member.js';
import { buildRequest, expectError, connectionCount, pollUntil, RawConnection, rawRequest, type RawResponse } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';

/** A raw request on its own connection (closed afterwards); the path goes out as given. */
function raw(m: StartedMember, method: string, path: string, opts: { headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return rawRequest(m.port, buildRequest(method, path, { ...opts, headers: { Connection: 'close', ...(opts.headers ?? {}) } }), {
    timeoutMs: 10_000,
  });
}

const offer = (m: StartedMember, q: string, body: string | Buffer, contentType?: string): Promise<RawResponse> =>
  raw(m, 'POST', `/grid/rest/queues/${q}`, { body, headers: contentType === undefined ? {} : { 'Content-Type': contentType } });

const pollNow = (m: StartedMember, q: string): Promise<RawResponse> => raw(m, 'DELETE', `/grid/rest/queues/${q}/0`);

async function size(m: StartedMember, q: string): Promise<number> {
  const r = await raw(m, 'GET', `/grid/rest/queues/${q}/size`);
  expect(r.status).toBe(200);
  return Number(r.body.toString());
}


/**
 * Polls waiting on queue `q` inside the member. Test-only peek at internals: it proves that
 * a waiting poll has really been registered before the test acts on it.
 */
function waitingPolls(member: Member, q: string): number {
  const internals = member.queues as unknown as { queues: Map<string, { queue: { waiting: number } }> };
  expect(internals.queues, 'QueueService internals changed: update waitingPolls()').toBeInstanceOf(Map);
  return internals.queues.get(q)?.queue.waiting ?? 0;
}

async function untilWaiting(member: Member, q: string, n: number): Promise<void> {
  await pollUntil(async () => Promise.resolve(waitingPolls(member, q)), (w) => w === n, { what: `${n} waiting polls on ${q}` });
}

/** Open a connection and send a waiting poll on it; the answer is read later. */
async function startPoll(m: StartedMember, path: string, method = 'DELETE'): Promise<RawConnection> {
  const c = await RawConnection.connect(m.port);
  await c.write(buildRequest(method, path));
  return c;
}

describe('queue offer and poll', () => {
  it('polls items first in, first out, each with its content type; then 204', async () => {
    const m = await startMember();
    const bin = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80]);
    expect((await offer(m, 'q', 'first', 'text/plain; charset=utf-8')).status).toBe(200);
    expect((await offer(m, 'q', bin, 'application/octet-stream')).status).toBe(200);
    expect((await offer(m, 'q', 'third')).status).toBe(200);
    expect((await offer(m, 'q', '')).status).toBe(200);
    expect(await size(m, 'q')).toBe(4);

    const a = await pollNow(m, 'q');
    expect(a.status).toBe(200);
    expect(a.body.toString()).toBe('first');
    expect(a.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(a.headers['content-length']).toBe('5');
    const b = await pollNow(m, 'q');
    expect(b.body.equals(bin)).toBe(true);
    expect(b.headers['content-type']).toBe('application/octet-stream');
    const c = await pollNow(m, 'q');
    expect(c.body.toString()).toBe('third');
    expect(c.headers['content-type']).toBeUndefined();
    // An empty item is an item: 200 with an empty body, not 204.
    const d = await pollNow(m, 'q');
    expect(d.status).toBe(200);
    expect(d.headers['content-length']).toBe('0');
    expect(await size(m, 'q')).toBe(0);
    const none = await pollNow(m, 'q');
    expect(none.status).toBe(204);
    expect(none.body.length).toBe(0);
  });

  it('GET /rest/queues/<q>/size answers text/plain with the decimal size', async () => {
    const m = await startMember();
    const empty = await raw(m, 'GET', '/grid/rest/queues/sq/size');
    expect(empty.status).toBe(200);
    expect(empty.headers['content-type']).toMatch(/^text\/plain\b/);
    expect(empty.body.toString()).toBe('0');
    for (let i = 0; i < 12; i++) await offer(m, 'sq', `i${i}`);
    const twelve = await raw(m, 'GET', '/hazelcast/rest/queues/sq/size');
    expect(twelve.body.toString()).toBe('12');
    expect(twelve.headers['content-length']).toBe('2');
    // `size` is only a keyword for GET: DELETE .../size is a poll with a non-numeric timeout.
    expectError(await raw(m, 'DELETE', '/grid/rest/queues/sq/size'), 400);
    expect(await size(m, 'sq')).toBe(12);
  });

  it('keeps queues apart and serves both prefixes', async () => {
    const m = await startMember();
    await raw(m, 'POST', '/hazelcast/rest/queues/a', { body: 'to a' });
    await raw(m, 'POST', '/grid/rest/queues/b', { body: 'to b' });
    expect((await raw(m, 'DELETE', '/grid/rest/queues/a/0')).body.toString()).toBe('to a');
    expect((await raw(m, 'DELETE', '/hazelcast/rest/queues/b/0')).body.toString()).toBe('to b');
  });

  it('poll timeout 0 on an empty queue answers 204 at once', async () => {
    const m = await startMember();
    const t0 = Date.now();
    const r = await pollNow(m, 'empty');
    expect(r.status).toBe(204);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it('a waiting poll elapses with 204 after its timeout', async () => {
    const m = await startMember();
    const t0 = Date.now();
    const r = await raw(m, 'DELETE', '/grid/rest/queues/slow/1');
    const elapsed = Date.now() - t0;
    expect(r.status).toBe(204);
    expect(r.body.length).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3_000);
    // The poll took nothing and left nothing waiting.
    expect(waitingPolls(m.member, 'slow')).toBe(0);
  });

  it('a waiting poll gets an item offered later from another connection, with its content type', async () => {
    const m = await startMember();
    const t0 = Date.now();
    const poller = await startPoll(m, '/grid/rest/queues/later/5');
    await untilWaiting(m.member, 'later', 1);
    expect(await poller.somethingArrives(100)).toBe(false);
    const offered = await fetch(`${m.base}/grid/rest/queues/later`, {
      method: 'POST',
      body: '{"n":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(offered.status).toBe(200);
    const r = await poller.read();
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('{"n":1}');
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Date.now() - t0).toBeLessThan(4_000);
    await poller.destroy();
    expect(await size(m, 'later')).toBe(0);
  });

  it('serves several waiting polls first come, first served', async () => {
    const m = await startMember();
    const pollers: RawConnection[] = [];
    for (let i = 0; i < 4; i++) {
      pollers.push(await startPoll(m, '/grid/rest/queues/fair/10', i % 2 === 0 ? 'DELETE' : 'GET'));
      await untilWaiting(m.member, 'fair', i + 1);
    }
    for (let i = 0; i < 4; i++) expect((await offer(m, 'fair', `item${i}`)).status).toBe(200);
    const got = await Promise.all(pollers.map((p) => p.read()));
    expect(got.map((r) => [r.status, r.body.toString()])).toEqual([
      [200, 'item0'],
      [200, 'item1'],
      [200, 'item2'],
      [200, 'item3'],
    ]);
    await Promise.all(pollers.map((p) => p.destroy()));
    expect(await size(m, 'fair')).toBe(0);
  });

  it('a poll timeout beyond the timer ceiling (~24.8 days) still waits rather than returning at once', async () => {
    const m = await startMember();
    const poller = await startPoll(m, '/grid/rest/queues/long/999999999999');
    await untilWaiting(m.member, 'long', 1);
    expect(await poller.somethingArrives(300)).toBe(false);
    expect((await offer(m, 'long', 'eventually')).status).toBe(200);
    expect((await poller.read()).body.toString()).toBe('eventually');
    await poller.destroy();
  });

  it('HEAD is not a poll (400, nothing taken); HEAD of size answers headers only', async () => {
    const m = await startMember();
    await offer(m, 'h', 'stay');
    expectError(await rawRequest(m.port, buildRequest('HEAD', '/grid/rest/queues/h/0'), { head: true }), 400);
    const hs = await rawRequest(m.port, buildRequest('HEAD', '/grid/rest/queues/h/size'), { head: true });
    expect(hs.status).toBe(200);
    expect(hs.headers['content-length']).toBe('1');
    expect(await size(m, 'h')).toBe(1);
  });

  it('GET /rest/queues/<q>/<seconds> polls like DELETE', async () => {
    const m = await startMember();
    await offer(m, 'g', 'via get', 'text/x');
    const r = await raw(m, 'GET', '/grid/rest/queues/g/0');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('via get');
    expect(r.headers['content-type']).toBe('text/x');
    expect((await raw(m, 'GET', '/grid/rest/queues/g/0')).status).toBe(204);
  });
});

describe('queue bounds and compatibility forms', () => {
  it('max-size: the offer beyond it gets 503 naming the full queue, and is not stored', async () => {
    const m = await startMember(restConfig(undefined, { queue: { bounded: { 'max-size': 2 } } }));
    expect((await offer(m, 'bounded', 'one')).status).toBe(200);
    expect((await offer(m, 'bounded', 'two')).status).toBe(200);
    expectError(await offer(m, 'bounded', 'three'), 503, /full/);
    expectError(await raw(m, 'POST', '/grid/rest/queues/bounded/three-by-path'), 503, /full/);
    expect(await size(m, 'bounded')).toBe(2);
    expect((await pollNow(m, 'bounded')).body.toString()).toBe('one');
    expect((await offer(m, 'bounded', 'four')).status).toBe(200);
    expect((await pollNow(m, 'bounded')).body.toString()).toBe('two');
    expect((await pollNow(m, 'bounded')).body.toString()).toBe('four');
    // An undeclared queue is unbounded.
    for (let i = 0; i < 5; i++) expect((await offer(m, 'free', `x${i}`)).status).toBe(200);
  });

  it('POST /rest/queues/<q>/<value> offers the decoded value as text/plain', async () => {
    const m = await startMember();
    expect((await raw(m, 'POST', '/grid/rest/queues/cq/hello%20w%C3%B6rld+%2F%E2%9C%93')).status).toBe(200);
    const r = await pollNow(m, 'cq');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain');
    expect(r.body.toString('utf8')).toBe('hello wörld+/✓');
    expectError(await raw(m, 'POST', '/grid/rest/queues/cq/%zz'), 400, /percent-escape/);
    expect(await size(m, 'cq')).toBe(0);
  });

  it('answers 400 for a poll without timeout and for negative or non-numeric timeouts', async () => {
    const m = await startMember();
    await offer(m, 'bad', 'untouched');
    expectError(await raw(m, 'DELETE', '/grid/rest/queues/bad'), 400, /timeout/);
    expectError(await raw(m, 'DELETE', '/grid/rest/queues/bad/'), 400, /timeout/);
    expectError(await raw(m, 'GET', '/grid/rest/queues/bad'), 400, /timeout/);
    for (const t of ['-1', 'abc', '1.5', '1e3', '%20', '%zz', '0x10', '+1', ' 1']) {
      const path = `/grid/rest/queues/bad/${t.replace(' ', '%20')}`;
      expectError(await raw(m, 'DELETE', path), 400);
      expectError(await raw(m, 'GET', path), 400);
    }
    expectError(await raw(m, 'DELETE', '/grid/rest/queues//0'), 400);
    // None of these consumed the item.
    expect(await size(m, 'bad')).toBe(1);
  });

  it('DATA disabled: 403; PASSIVE: offers and polls 503 while size still answers', async () => {
    const off = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    expectError(await offer(off, 'q', 'x'), 403, /DATA/);
    expectError(await pollNow(off, 'q'), 403, /DATA/);
    expectError(await raw(off, 'GET', '/grid/rest/queues/q/size'), 403, /DATA/);

    const m = await startMember();
    await offer(m, 'q', 'kept');
    const ch = await raw(m, 'POST', '/grid/rest/management/cluster/changeState', { body: 'dev&&passive' });
    expect(JSON.parse(ch.body.toString())).toEqual({ status: 'success', state: 'passive' });
    expectError(await offer(m, 'q', 'refused'), 503, /PASSIVE/);
    expectError(await pollNow(m, 'q'), 503, /PASSIVE/);
    expect(await size(m, 'q')).toBe(1);
    await raw(m, 'POST', '/grid/rest/management/cluster/changeState', { body: 'dev&&active' });
    expect((await pollNow(m, 'q')).body.toString()).toBe('kept');
  });
});

describe('queue polls and their clients', () => {
  it('a client that disconnects mid-poll consumes nothing: the item goes to the next poller', async () => {
    const m = await startMember();
    // Only raw connections here, so connectionCount counts exactly ours.
    expect(await connectionCount(m.port)).toBe(1);
    const gone = await startPoll(m, '/grid/rest/queues/dq/10');
    await untilWaiting(m.member, 'dq', 1);
    expect(await connectionCount(m.port)).toBe(2);
    await gone.destroy();
    // The member has seen the close: only the asking connection is left, and no poll waits.
    await pollUntil(() => connectionCount(m.port), (n) => n === 1, { what: 'member noticing the closed poll connection' });
    expect(waitingPolls(m.member, 'dq')).toBe(0);

    expect((await offer(m, 'dq', 'for the living', 'text/plain')).status).toBe(200);
    expect(await size(m, 'dq')).toBe(1);
    const r = await raw(m, 'DELETE', '/grid/rest/queues/dq/5');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('for the living');
    expect(r.headers['content-type']).toBe('text/plain');
  });

  it('a poller that left is skipped in favour of the next waiting one', async () => {
    const m = await startMember();
    const first = await startPoll(m, '/grid/rest/queues/skip/10');
    await untilWaiting(m.member, 'skip', 1);
    const second = await startPoll(m, '/grid/rest/queues/skip/10');
    await untilWaiting(m.member, 'skip', 2);
    await first.destroy();
    await untilWaiting(m.member, 'skip', 1);
    expect((await offer(m, 'skip', 'to second')).status).toBe(200);
    const r = await second.read();
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('to second');
    await second.destroy();
    expect(await size(m, 'skip')).toBe(0);
  });

  it('member stop answers waiting polls with 503 instead of hanging', async () => {
    const m = await startMember();
    const pollers = [await startPoll(m, '/grid/rest/queues/stopq/30'), await startPoll(m, '/grid/rest/queues/other/30', 'GET')];
    await untilWaiting(m.member, 'stopq', 1);
    await untilWaiting(m.member, 'other', 1);
    const t0 = Date.now();
    const stopping = m.member.stop();
    const answers = await Promise.all(pollers.map((p) => p.read({ timeoutMs: 5_000 })));
    for (const r of answers) {
      expectError(r, 503, /shutting down/);
      // The answer is the connection's last: the stop need not wait for the client to leave.
      expect(r.headers.connection).toBe('close');
    }
    expect(Date.now() - t0).toBeLessThan(2_000);
    await Promise.all(pollers.map((p) => p.waitForEnd(2_000)));
    await stopping;
    // No grace period spent waiting on connections that were already answered.
    expect(Date.now() - t0).toBeLessThan(2_000);
    await Promise.all(pollers.map((p) => p.destroy()));
  });
});
