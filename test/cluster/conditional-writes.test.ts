// Conditional writes and per-entry TTL over /grid/rest/maps on one shared 3-member cluster:
// ETag/304, compare-and-set and create-only races from several HTTP clients (one winner per
// round), 400s that write nothing, and version and TTL deadline kept when the owner is killed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

let c: Cluster;

beforeAll(async () => {
  c = await startCluster({ size: 3, scope: 'file', config: () => ({ map: { 'ttl-*': { 'time-to-live-seconds': 3600 } } }) });
}, 60_000);

afterAll(async () => {
  await c?.destroy();
});

function url(i: number, path: string): string {
  return `http://127.0.0.1:${c.member(i).port}${path}`;
}

async function req(i: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; h: Headers; text: string }> {
  const r = await fetch(url(i, path), { method, headers, body: body ?? (method === 'PUT' || method === 'POST' ? '' : undefined) });
  return { status: r.status, h: r.headers, text: await r.text() };
}

describe('ETag and If-None-Match on GET', () => {
  it('GET shows the version as a strong ETag, Last-Modified, and 304 when unchanged; /hazelcast/ GET adds nothing', async () => {
    expect((await req(0, 'PUT', '/grid/rest/maps/plain/k', { 'content-type': 'text/plain' }, 'v0')).status).toBe(200);
    const g = await req(1, 'GET', '/grid/rest/maps/plain/k');
    expect(g.status).toBe(200);
    expect(g.text).toBe('v0');
    expect(g.h.get('etag')).toBe('"0"');
    expect(g.h.get('content-type')).toBe('text/plain');
    // A map without expiry or statistics keeps no update time (docs/maps.md), so no Last-Modified.
    expect(g.h.get('last-modified')).toBeNull();
    expect(g.h.get('grid-expires-in')).toBeNull();
    expect((await req(2, 'GET', '/grid/rest/maps/plain/k', { 'if-none-match': '"0"' })).status).toBe(304);
    expect((await req(2, 'GET', '/grid/rest/maps/plain/k', { 'if-none-match': '"7"' })).status).toBe(200);
    expect((await req(0, 'PUT', '/grid/rest/maps/plain/k', {}, 'v1')).status).toBe(200);
    const g2 = await req(2, 'GET', '/grid/rest/maps/plain/k', { 'if-none-match': '"0"' });
    expect([g2.status, g2.text, g2.h.get('etag')]).toEqual([200, 'v1', '"1"']);
    const hz = await req(0, 'GET', '/hazelcast/rest/maps/plain/k', { 'if-none-match': '"1"' });
    expect([hz.status, hz.text, hz.h.get('etag')]).toEqual([200, 'v1', null]);
  });
});

describe('compare-and-set and create-only over HTTP', () => {
  it('CAS races from six clients on three members: exactly one winner per round, the rest 412', async () => {
    const path = '/grid/rest/maps/cas/counter';
    expect((await req(0, 'PUT', path, {}, '0')).status).toBe(200);
    for (let round = 0; round < 5; round++) {
      const g = await req(round % 3, 'GET', path);
      const etag = g.h.get('etag')!;
      expect(etag).toBe(`"${round}"`);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, n) => req(n % 3, 'PUT', path, { 'if-match': etag }, `r${round}-c${n}`)),
      );
      const winners = results.flatMap((r, n) => (r.status === 200 ? [n] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) {
        if (r.status !== 200) {
          expect(r.status).toBe(412);
          expect(r.h.get('x-grid-error')).toMatch(/precondition failed/);
          expect(r.h.get('etag')).toBe(`"${round + 1}"`);
        } else expect(r.h.get('etag')).toBe(`"${round + 1}"`);
      }
      const after = await req((round + 1) % 3, 'GET', path);
      expect(after.text).toBe(`r${round}-c${winners[0]}`);
    }
  });

  it('create-only races (If-None-Match: *): one creates, the rest 412 and the winner\'s value stays', async () => {
    for (let round = 0; round < 3; round++) {
      const path = `/grid/rest/maps/cas/fresh-${round}`;
      const results = await Promise.all(Array.from({ length: 6 }, (_, n) => req(n % 3, 'POST', path, { 'if-none-match': '*' }, `c${n}`)));
      const winners = results.flatMap((r, n) => (r.status === 200 ? [n] : []));
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.status === 412)).toHaveLength(5);
      expect((await req(1, 'GET', path)).text).toBe(`c${winners[0]}`);
    }
  });

  it('If-Match on an absent entry is 412; If-Match: * writes only when present; DELETE with a stale ETag keeps the entry', async () => {
    const path = '/grid/rest/maps/cas/absent';
    expect((await req(0, 'PUT', path, { 'if-match': '"0"' }, 'x')).status).toBe(412);
    expect((await req(0, 'PUT', path, { 'if-match': '*' }, 'x')).status).toBe(412);
    expect((await req(1, 'GET', path)).status).toBe(204);
    expect((await req(0, 'PUT', path, {}, 'a')).status).toBe(200);
    expect((await req(2, 'PUT', path, { 'if-match': '*' }, 'b')).h.get('etag')).toBe('"1"');
    const stale = await req(1, 'DELETE', path, { 'if-match': '"0"' });
    expect(stale.status).toBe(412);
    expect((await req(0, 'GET', path)).text).toBe('b');
    expect((await req(1, 'DELETE', path, { 'if-match': '"1"' })).status).toBe(200);
    expect((await req(0, 'GET', path)).status).toBe(204);
  });

  it('malformed conditions and TTLs are 400 with a reason and write nothing', async () => {
    const path = '/grid/rest/maps/cas/guarded';
    expect((await req(0, 'PUT', path, {}, 'keep')).status).toBe(200);
    const bad: [string, Record<string, string>, string][] = [
      ['PUT', { 'if-match': '0' }, ''],
      ['PUT', { 'if-match': 'W/"0"' }, ''],
      ['PUT', { 'if-match': '"0", "1"' }, ''],
      ['PUT', { 'if-match': '"99999999999"' }, ''],
      ['PUT', { 'if-none-match': '"0"' }, ''],
      ['PUT', { 'if-match': '"0"', 'if-none-match': '*' }, ''],
      ['PUT', {}, '?ttl=abc'],
      ['PUT', {}, '?ttl=-1'],
      ['PUT', {}, '?ttl=5y'],
      ['PUT', {}, '?ttl='],
      ['PUT', { 'grid-ttl': '5s' }, '?ttl=5s'],
      ['PUT', { 'grid-max-idle': '1.5s' }, ''],
      ['DELETE', {}, '?ttl=5s'],
      ['DELETE', { 'if-none-match': '*' }, ''],
      ['GET', { 'if-none-match': 'nope' }, ''],
    ];
    for (const [method, headers, query] of bad) {
      const r = await req(1, method, path + query, headers, method === 'PUT' ? 'overwritten' : undefined);
      expect(r.status, `${method} ${query} ${JSON.stringify(headers)}`).toBe(400);
      expect(r.h.get('x-grid-error')).toBeTruthy();
    }
    const g = await req(2, 'GET', path);
    expect([g.text, g.h.get('etag'), g.h.get('grid-expires-in')]).toEqual(['keep', '"0"', null]);
  });
});

describe('per-entry TTL and max idle', () => {
  it('?ttl= overrides the map default, 0 means none, Grid-Max-Idle sets max idle, and an entry expires over REST', async () => {
    expect((await req(0, 'PUT', '/grid/rest/maps/ttl-a/default', {}, 'x')).status).toBe(200);
    const d = Number((await req(1, 'GET', '/grid/rest/maps/ttl-a/default')).h.get('grid-expires-in'));
    expect(d).toBeGreaterThan(3500);
    expect(d).toBeLessThanOrEqual(3600);
    const modified = Date.parse((await req(1, 'GET', '/grid/rest/maps/ttl-a/default')).h.get('last-modified') ?? '');
    expect(Math.abs(modified - Date.now())).toBeLessThan(60_000);
    expect((await req(0, 'PUT', '/grid/rest/maps/ttl-a/forever?ttl=0', {}, 'x')).h.get('etag')).toBe('"0"');
    expect((await req(2, 'GET', '/grid/rest/maps/ttl-a/forever')).h.get('grid-expires-in')).toBeNull();
    expect((await req(0, 'PUT', '/grid/rest/maps/ttl-a/idle?ttl=0', { 'grid-max-idle': '2m' }, 'x')).status).toBe(200);
    expect(Number((await req(1, 'GET', '/grid/rest/maps/ttl-a/idle')).h.get('grid-expires-in'))).toBe(120);
    const put = await req(1, 'POST', '/grid/rest/maps/ttl-a/short?ttl=1500ms', {}, 'soon');
    expect(put.status).toBe(200);
    expect(Number((await req(2, 'GET', '/grid/rest/maps/ttl-a/short')).h.get('grid-expires-in'))).toBeLessThanOrEqual(2);
    await waitFor('the entry to expire', async () => (await req(0, 'GET', '/grid/rest/maps/ttl-a/short')).status === 204, 10_000, 100);
  });
});

describe('failover', () => {
  it('after the owner\'s SIGKILL the promoted backup keeps the version, refuses a stale ETag, and expires the entry at the same deadline', async () => {
    // A key whose owner is not member 0 (member 0 asks throughout).
    const parts = await c.partitions(0);
    const owners = (k: string): string => parts.partitions[partitionIdOf(k)]![0]!;
    let n = 0;
    while (owners(`fo-${n}`) === c.member(0).uuid || owners(`fo-${n}`) === null) n++;
    const key = `fo-${n}`;
    const victim = c.byUuid(owners(key)).index;
    const path = `/grid/rest/maps/ttl-fo/${key}`;
    expect((await req(0, 'PUT', path, {}, 'a')).status).toBe(200);
    expect((await req(0, 'PUT', path, { 'if-match': '"0"' }, 'b')).status).toBe(200);
    const ttlPut = await req(0, 'PUT', `${path}?ttl=12s`, { 'if-match': '"1"' }, 'c');
    expect(ttlPut.h.get('etag')).toBe('"2"');
    const deadline = Date.now() + 12_000;
    await c.kill(victim);
    const after = await waitFor('the promoted backup to answer', async () => {
      const r = await req(0, 'GET', path);
      return r.status === 200 ? r : undefined;
    }, 20_000, 100);
    expect([after.text, after.h.get('etag')]).toEqual(['c', '"2"']);
    expect(Number(after.h.get('grid-expires-in'))).toBeLessThanOrEqual(Math.ceil((deadline - Date.now()) / 1000) + 1);
    expect((await req(0, 'PUT', path, { 'if-match': '"1"' }, 'stale')).status).toBe(412);
    await waitFor('the entry to expire on the promoted owner', async () => (await req(0, 'GET', path)).status === 204, 15_000, 100);
    // Not before its deadline (1 s of slack for clock reading and rounding).
    expect(Date.now()).toBeGreaterThanOrEqual(deadline - 1_000);
  }, 60_000);
});
