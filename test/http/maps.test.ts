// Map endpoints over real sockets against an in-process member: CRUD, values and their
// Content-Type, key encoding, path shapes, expiry config, groups and cluster state.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildRequest, expectError, pollUntil, rawRequest, type RawResponse } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';
import { sleep } from '../support/wait.js';

async function put(base: string, path: string, body: string | Uint8Array, contentType?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  return fetch(`${base}/grid/rest/maps/${path}`, { method: 'POST', body, headers });
}

const get = (base: string, path: string): Promise<Response> => fetch(`${base}/grid/rest/maps/${path}`);

async function getText(base: string, path: string): Promise<{ status: number; text: string }> {
  const r = await get(base, path);
  return { status: r.status, text: await r.text() };
}

/** A raw request to the member; `path` goes on the request line exactly as given. */
function raw(m: StartedMember, method: string, path: string, opts: { headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return rawRequest(m.port, buildRequest(method, path, { ...opts, headers: { Connection: 'close', ...(opts.headers ?? {}) } }), {
    head: method === 'HEAD',
  });
}


async function changeState(base: string, state: string): Promise<unknown> {
  const r = await fetch(`${base}/grid/rest/management/cluster/changeState`, { method: 'POST', body: `dev&&${state}` });
  expect(r.status).toBe(200);
  return r.json();
}

describe('map entries: create, read, update, delete', () => {
  it('POST stores, GET reads, POST overwrites, DELETE removes; absent keys answer 204', async () => {
    const { base } = await startMember();
    expect((await put(base, 'm/k', 'v1', 'text/plain')).status).toBe(200);
    const first = await get(base, 'm/k');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-length')).toBe('2');
    expect(await first.text()).toBe('v1');

    expect((await put(base, 'm/k', 'second value', 'text/plain')).status).toBe(200);
    expect(await getText(base, 'm/k')).toEqual({ status: 200, text: 'second value' });

    const del = await fetch(`${base}/grid/rest/maps/m/k`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.text()).toBe('');
    const gone = await get(base, 'm/k');
    expect(gone.status).toBe(204);
    expect(gone.headers.get('content-type')).toBeNull();
    expect(await gone.text()).toBe('');

    // Never written at all, in a map that does not exist: also 204. Deleting an absent key is fine.
    expect((await get(base, 'never/k')).status).toBe(204);
    expect((await fetch(`${base}/grid/rest/maps/never/k`, { method: 'DELETE' })).status).toBe(200);
  });

  it('PUT behaves exactly like POST', async () => {
    const { base } = await startMember();
    const r = await fetch(`${base}/grid/rest/maps/m/k`, { method: 'PUT', body: 'via put', headers: { 'content-type': 'text/x-put' } });
    expect(r.status).toBe(200);
    const g = await get(base, 'm/k');
    expect(g.headers.get('content-type')).toBe('text/x-put');
    expect(await g.text()).toBe('via put');
  });

  it('keeps maps apart: the same key in two maps is two entries', async () => {
    const { base } = await startMember();
    await put(base, 'a/k', 'in a', 'text/plain');
    await put(base, 'b/k', 'in b', 'text/plain');
    expect((await getText(base, 'a/k')).text).toBe('in a');
    expect((await getText(base, 'b/k')).text).toBe('in b');
  });
});

describe('map values and Content-Type', () => {
  it('stores the Content-Type verbatim, parameters included, and returns it on GET', async () => {
    const m = await startMember();
    const ct = 'Application/JSON;Charset="UTF-8"; profile=x';
    expect((await raw(m, 'POST', '/grid/rest/maps/m/j', { headers: { 'Content-Type': ct }, body: '{"a":1}' })).status).toBe(200);
    const g = await raw(m, 'GET', '/grid/rest/maps/m/j');
    expect(g.status).toBe(200);
    expect(g.headers['content-type']).toBe(ct);
    expect(g.body.toString()).toBe('{"a":1}');

    const viaFetch = await put(m.base, 'm/t', 'text', 'text/plain; charset=iso-8859-1');
    expect(viaFetch.status).toBe(200);
    expect((await get(m.base, 'm/t')).headers.get('content-type')).toBe('text/plain; charset=iso-8859-1');
  });

  it('returns non-ASCII Content-Type bytes exactly as received', async () => {
    const m = await startMember();
    // UTF-8 bytes of `ü` in a header parameter, written and read as raw bytes (latin1 strings).
    const ct = 'text/plain; name="\u00c3\u00bc"';
    await raw(m, 'POST', '/grid/rest/maps/m/ct', { headers: { 'Content-Type': ct }, body: 'x' });
    expect((await raw(m, 'GET', '/grid/rest/maps/m/ct')).headers['content-type']).toBe(ct);
  });

  it('answers without a Content-Type when none was stored, also after overwriting a typed value', async () => {
    const m = await startMember();
    expect((await raw(m, 'POST', '/grid/rest/maps/m/u', { body: 'untyped' })).status).toBe(200);
    const g = await raw(m, 'GET', '/grid/rest/maps/m/u');
    expect(g.status).toBe(200);
    expect(g.headers['content-type']).toBeUndefined();
    expect(g.headers['content-length']).toBe('7');
    expect(g.body.toString()).toBe('untyped');

    await raw(m, 'POST', '/grid/rest/maps/m/x', { headers: { 'Content-Type': 'text/plain' }, body: 'typed' });
    await raw(m, 'POST', '/grid/rest/maps/m/x', { body: 'now untyped' });
    const after = await raw(m, 'GET', '/grid/rest/maps/m/x');
    expect(after.headers['content-type']).toBeUndefined();
    expect(after.body.toString()).toBe('now untyped');
  });

  it('round-trips every byte value exactly', async () => {
    const { base } = await startMember();
    const all = Buffer.alloc(512);
    for (let i = 0; i < 512; i++) all[i] = i < 256 ? i : 511 - i; // 0..255 then 255..0
    expect((await put(base, 'bin/all', all, 'application/octet-stream')).status).toBe(200);
    const g = await get(base, 'bin/all');
    expect(g.status).toBe(200);
    expect(g.headers.get('content-length')).toBe('512');
    expect(Buffer.from(await g.arrayBuffer()).equals(all)).toBe(true);

    // Invalid UTF-8 sequences and a lone NUL survive as well.
    const odd = Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x00, 0xe2, 0x82, 0xed, 0xa0, 0x80]);
    await put(base, 'bin/odd', odd);
    expect(Buffer.from(await (await get(base, 'bin/odd')).arrayBuffer()).equals(odd)).toBe(true);
  });

  it('round-trips UTF-8 text as its bytes', async () => {
    const { base } = await startMember();
    const text = 'ünïcödé ✓ 𝄞 日本語';
    await put(base, 'm/utf8', text, 'text/plain; charset=utf-8');
    const g = await get(base, 'm/utf8');
    expect(g.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await g.text()).toBe(text);
  });

  it('treats an empty body as a valid value (200 with empty body, not 204)', async () => {
    const m = await startMember();
    expect((await raw(m, 'POST', '/grid/rest/maps/m/empty', { headers: { 'Content-Length': 0, 'Content-Type': 'text/plain' } })).status).toBe(200);
    const g = await raw(m, 'GET', '/grid/rest/maps/m/empty');
    expect(g.status).toBe(200);
    expect(g.headers['content-length']).toBe('0');
    expect(g.headers['content-type']).toBe('text/plain');
    expect(g.body.length).toBe(0);
    // A POST without any body framing is an empty value too.
    expect((await raw(m, 'POST', '/grid/rest/maps/m/nobody')).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/nobody')).status).toBe(200);
  });

  it('round-trips a 1 MiB value byte-exact', async () => {
    const { base } = await startMember();
    const big = randomBytes(1024 * 1024);
    expect((await put(base, 'big/v', big, 'application/octet-stream')).status).toBe(200);
    const g = await get(base, 'big/v');
    expect(g.status).toBe(200);
    expect(g.headers.get('content-length')).toBe(String(big.length));
    const back = Buffer.from(await g.arrayBuffer());
    expect(back.length).toBe(big.length);
    expect(back.equals(big)).toBe(true);
  });
});

describe('map keys and path shapes', () => {
  it('decodes %2F into a slash inside the key; an unencoded slash after the map name is part of the key too', async () => {
    const m = await startMember();
    expect((await raw(m, 'POST', '/grid/rest/maps/m/a%2Fb', { body: 'slash' })).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a/b')).body.toString()).toBe('slash');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a%2fb')).body.toString()).toBe('slash');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a')).status).toBe(204);
    // %2F in the map name is part of the name, not a separator.
    expect((await raw(m, 'POST', '/grid/rest/maps/x%2Fy/k', { body: 'name with slash' })).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/x%2Fy/k')).body.toString()).toBe('name with slash');
    expect((await raw(m, 'GET', '/grid/rest/maps/x/y%2Fk')).status).toBe(204);
  });

  it("keeps '+' as '+' (not a space) and decodes %20 as a space", async () => {
    const m = await startMember();
    await raw(m, 'POST', '/grid/rest/maps/m/a+b', { body: 'plus' });
    await raw(m, 'POST', '/grid/rest/maps/m/a%20b', { body: 'space' });
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a%2Bb')).body.toString()).toBe('plus');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a+b')).body.toString()).toBe('plus');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/a%20b')).body.toString()).toBe('space');
    // fetch encodes a literal space as %20: same key.
    expect((await getText(m.base, 'm/a b')).text).toBe('space');
  });

  it('decodes unicode keys and map names as UTF-8', async () => {
    const m = await startMember();
    const key = 'ключ ✓ 𝄞';
    const map = 'карта';
    const path = `/grid/rest/maps/${encodeURIComponent(map)}/${encodeURIComponent(key)}`;
    expect((await raw(m, 'POST', path, { body: 'unicode' })).status).toBe(200);
    expect((await raw(m, 'GET', path)).body.toString()).toBe('unicode');
    // The same key written through fetch (which percent-encodes it itself) is the same entry.
    expect((await getText(m.base, `${map}/${key}`)).text).toBe('unicode');
    // Lower-case hex escapes decode to the same key.
    expect((await raw(m, 'GET', path.toLowerCase())).status).toBe(200);
  });

  it('accepts NUL and dot segments in keys literally', async () => {
    const m = await startMember();
    await raw(m, 'POST', '/grid/rest/maps/m/%00', { body: 'nul' });
    await raw(m, 'POST', '/grid/rest/maps/m/../x', { body: 'dots' });
    expect((await raw(m, 'GET', '/grid/rest/maps/m/%00')).body.toString()).toBe('nul');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/..%2Fx')).body.toString()).toBe('dots');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/x')).status).toBe(204);
    expect(await m.member.maps.size('m')).toBe(2);
  });

  it('removes exactly one trailing slash from the key', async () => {
    const m = await startMember();
    await raw(m, 'POST', '/grid/rest/maps/m/k/', { body: 'one slash' });
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k')).body.toString()).toBe('one slash');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k/')).body.toString()).toBe('one slash');

    await raw(m, 'POST', '/grid/rest/maps/m/j//', { body: 'key ends in slash' });
    expect((await raw(m, 'GET', '/grid/rest/maps/m/j')).status).toBe(204);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/j%2F')).body.toString()).toBe('key ends in slash');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/j//')).body.toString()).toBe('key ends in slash');

    // DELETE follows the same rule.
    expect((await raw(m, 'DELETE', '/grid/rest/maps/m/k/')).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k')).status).toBe(204);
  });

  it('answers 400 for an empty key, a missing map name, and a key-less GET or POST', async () => {
    const m = await startMember();
    for (const method of ['GET', 'POST', 'DELETE']) {
      expectError(await raw(m, method, '/grid/rest/maps/m/', method === 'POST' ? { body: 'x' } : {}), 400);
      expectError(await raw(m, method, '/grid/rest/maps/', method === 'POST' ? { body: 'x' } : {}), 400);
      expectError(await raw(m, method, '/grid/rest/maps//k', method === 'POST' ? { body: 'x' } : {}), 400);
    }
    expectError(await raw(m, 'GET', '/grid/rest/maps/m'), 400, /key/);
    expectError(await raw(m, 'POST', '/hazelcast/rest/maps/m', { body: 'x' }), 400, /key/);
    // Under /grid/ a key-less POST is a batch (docs/data-api.md): this body is not one.
    expectError(await raw(m, 'POST', '/grid/rest/maps/m', { body: 'x' }), 400, /batch body is not JSON/);
    // Nothing was stored under any guessable key by the refused POSTs.
    expect((await raw(m, 'GET', '/grid/rest/maps/m/x')).status).toBe(204);
  });

  it('DELETE /rest/maps/<m> clears that map only; DELETE /rest/maps/<m>/ removes nothing', async () => {
    const m = await startMember();
    const { base } = m;
    for (let i = 0; i < 30; i++) await put(base, `m/k${i}`, `v${i}`);
    await put(base, 'other/k1', 'keep me');

    expectError(await raw(m, 'DELETE', '/grid/rest/maps/m/'), 400);
    expect((await getText(base, 'm/k7')).status).toBe(200);

    const r = await fetch(`${base}/grid/rest/maps/m`, { method: 'DELETE' });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
    for (let i = 0; i < 30; i++) expect((await get(base, `m/k${i}`)).status, `m/k${i}`).toBe(204);
    expect(await getText(base, 'other/k1')).toEqual({ status: 200, text: 'keep me' });
    // The cleared map still works.
    await put(base, 'm/k1', 'again');
    expect((await getText(base, 'm/k1')).text).toBe('again');
  });

  it('ignores the query string', async () => {
    const m = await startMember();
    expect((await raw(m, 'POST', '/grid/rest/maps/m/k?ttl=5&x=%zz', { body: 'q' })).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k')).body.toString()).toBe('q');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k?anything')).body.toString()).toBe('q');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k/?a=b')).body.toString()).toBe('q');
    // An encoded '?' is part of the key.
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k%3Fanything')).status).toBe(204);
    expect((await raw(m, 'DELETE', '/grid/rest/maps/m?all=true')).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k')).status).toBe(204);
  });

  it('serves the same data under /grid and /hazelcast, and nothing elsewhere', async () => {
    const m = await startMember();
    await raw(m, 'POST', '/hazelcast/rest/maps/m/k', { body: 'written via hazelcast', headers: { 'Content-Type': 'text/a' } });
    const g = await raw(m, 'GET', '/grid/rest/maps/m/k');
    expect(g.body.toString()).toBe('written via hazelcast');
    expect(g.headers['content-type']).toBe('text/a');
    await raw(m, 'POST', '/grid/rest/maps/m/k2', { body: 'written via grid' });
    expect((await raw(m, 'GET', '/hazelcast/rest/maps/m/k2')).body.toString()).toBe('written via grid');
    expect((await raw(m, 'DELETE', '/hazelcast/rest/maps/m/k2')).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/k2')).status).toBe(204);

    expectError(await raw(m, 'GET', '/rest/maps/m/k'), 400);
    expectError(await raw(m, 'GET', '/other/rest/maps/m/k'), 400);
    expectError(await raw(m, 'GET', '/gridx/rest/maps/m/k'), 400);
  });

  it('answers 400 with X-Grid-Error for malformed percent-escapes and stores nothing', async () => {
    const m = await startMember();
    const bad = ['%zz', '%', 'a%2', '%E0%A4%A', '%FF', '%C3', '%ED%A0%80'];
    for (const k of bad) {
      expectError(await raw(m, 'POST', `/grid/rest/maps/m/${k}`, { body: 'x' }), 400, /percent-escape/);
      expectError(await raw(m, 'GET', `/grid/rest/maps/m/${k}`), 400, /percent-escape/);
      expectError(await raw(m, 'DELETE', `/grid/rest/maps/m/${k}`), 400, /percent-escape/);
      expectError(await raw(m, 'POST', `/grid/rest/maps/${k}/key`, { body: 'x' }), 400, /percent-escape/);
    }
    expectError(await raw(m, 'DELETE', '/grid/rest/maps/%zz'), 400, /percent-escape/);
    // Nothing landed under the raw spelling, and the member still serves.
    expect((await raw(m, 'POST', '/grid/rest/maps/m/ok', { body: 'fine' })).status).toBe(200);
    expect((await raw(m, 'GET', '/grid/rest/maps/m/ok')).body.toString()).toBe('fine');
  });
});

describe('map config: expiry, wildcards, defaults', () => {
  it('time-to-live-seconds: the entry is gone about a second after the write; wildcard config applies, undeclared maps keep entries', async () => {
    const { base } = await startMember(restConfig(undefined, { map: { 'ttl*': { 'time-to-live-seconds': 1 } } }));
    const t0 = Date.now();
    await put(base, 'ttl-orders/k', 'short-lived');
    await put(base, 'plain/k', 'forever');
    expect((await get(base, 'ttl-orders/k')).status).toBe(200);
    await pollUntil(
      async () => (await get(base, 'ttl-orders/k')).status,
      (s) => s === 204,
      { timeoutMs: 4_000, what: 'ttl entry expiring' },
    );
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(await getText(base, 'plain/k')).toEqual({ status: 200, text: 'forever' });
    // A write after expiry lives again.
    await put(base, 'ttl-orders/k', 'again');
    expect((await getText(base, 'ttl-orders/k')).text).toBe('again');
  });

  it('an undeclared map uses the `default` entry; an exact entry wins over it', async () => {
    const { base } = await startMember(
      restConfig(undefined, { map: { default: { 'time-to-live-seconds': 1 }, keep: { 'time-to-live-seconds': 0 } } }),
    );
    await put(base, 'undeclared/k', 'default ttl');
    await put(base, 'keep/k', 'no ttl');
    await pollUntil(
      async () => (await get(base, 'undeclared/k')).status,
      (s) => s === 204,
      { timeoutMs: 4_000, what: 'default-config entry expiring' },
    );
    expect((await getText(base, 'keep/k')).text).toBe('no ttl');
  });

  it('max-idle-seconds: reads keep an entry alive, an unread one expires', async () => {
    const { base, member } = await startMember(restConfig(undefined, { map: { 'idle*': { 'max-idle-seconds': 1 } } }));
    await put(base, 'idle-m/read', 'kept alive by reads');
    await put(base, 'idle-m/unread', 'left alone');
    const t0 = Date.now();
    // Read `read` every ~250 ms for ~1.8 s: well past the idle limit in total.
    while (Date.now() - t0 < 1_800) {
      expect((await get(base, 'idle-m/read')).status).toBe(200);
      await sleep(250); // pacing of the reads, not a wait for something
    }
    // size() sweeps expired entries without touching live ones: only `read` is left.
    expect(await member.maps.size('idle-m')).toBe(1);
    expect((await get(base, 'idle-m/unread')).status).toBe(204);
    expect((await getText(base, 'idle-m/read')).text).toBe('kept alive by reads');
    // Stop reading (observe through size(), which is no access): it idles out too.
    const stopped = Date.now();
    await pollUntil(() => member.maps.size('idle-m'), (n) => n === 0, { timeoutMs: 4_000, what: 'idle entry expiring' });
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(900);
    expect((await get(base, 'idle-m/read')).status).toBe(204);
  });
});

describe('map endpoints: groups and cluster state', () => {
  it('answers 403 with an empty body when the DATA group is disabled, and stores nothing', async () => {
    const m = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    expectError(await raw(m, 'POST', '/grid/rest/maps/m/k', { body: 'x' }), 403, /DATA/);
    expectError(await raw(m, 'GET', '/grid/rest/maps/m/k'), 403, /DATA/);
    expectError(await raw(m, 'DELETE', '/grid/rest/maps/m/k'), 403, /DATA/);
    expectError(await raw(m, 'DELETE', '/hazelcast/rest/maps/m'), 403, /DATA/);
    expect(await m.member.maps.size('m')).toBe(0);
    // Other groups still answer.
    expect((await raw(m, 'GET', '/grid/rest/cluster')).status).toBe(200);
  });

  it('PASSIVE refuses map writes with 503 while reads work; ACTIVE accepts writes again', async () => {
    const m = await startMember();
    const { base } = m;
    await put(base, 'm/k', 'before', 'text/plain');
    expect(await changeState(base, 'passive')).toEqual({ status: 'success', state: 'passive' });

    expectError(await raw(m, 'POST', '/grid/rest/maps/m/k', { body: 'during' }), 503, /PASSIVE/);
    expectError(await raw(m, 'POST', '/grid/rest/maps/m/new', { body: 'during' }), 503, /PASSIVE/);
    expectError(await raw(m, 'DELETE', '/grid/rest/maps/m/k'), 503, /PASSIVE/);
    expectError(await raw(m, 'DELETE', '/grid/rest/maps/m'), 503, /PASSIVE/);
    const read = await raw(m, 'GET', '/grid/rest/maps/m/k');
    expect(read.status).toBe(200);
    expect(read.body.toString()).toBe('before');
    expect((await raw(m, 'GET', '/grid/rest/maps/m/new')).status).toBe(204);

    expect(await changeState(base, 'ACTIVE')).toEqual({ status: 'success', state: 'active' });
    expect((await put(base, 'm/k', 'after')).status).toBe(200);
    expect((await getText(base, 'm/k')).text).toBe('after');
    expect((await fetch(`${base}/grid/rest/maps/m`, { method: 'DELETE' })).status).toBe(200);
    expect((await get(base, 'm/k')).status).toBe(204);
  });
});
