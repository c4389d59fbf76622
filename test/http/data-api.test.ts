// Grid's data API through real members (docs/data-api.md): map listings in pages with a
// cursor, prefixes, entries with text and base64 values, the lists of maps and queues, the
// 400s of bad parameters and cursors, the /hazelcast/ contract left as it was, and the scan's
// guarantee while partitions migrate: a member joins, another leaves and a third is killed
// mid-scan, and every key that exists for the whole scan is returned exactly once. One cluster for the file; the
// migration test runs last (it changes the members).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

interface KeysPage {
  readonly keys: string[];
  readonly cursor: string | null;
}
interface EntriesPage {
  readonly entries: { key: string; value: string; contentType: string | null; encoding?: string }[];
  readonly cursor: string | null;
}

let c: Cluster;
const STABLE = Array.from({ length: 1500 }, (_, n) => `k${String(n).padStart(5, '0')}`);

/** Runs `fn` over `items`, `width` at a time. */
async function eachLimited<T>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

async function put(i: number, map: string, key: string, value: string, contentType = 'text/plain'): Promise<void> {
  const res = await c.http(i, 'POST', `/grid/rest/maps/${map}/${encodeURIComponent(key)}`, value, { contentType });
  expect(res.status, `${key}: ${res.body}`).toBe(200);
}

/** Every page of a listing through member `via(n)` for page n; the keys in page order. */
async function scanAll(map: string, query: string, via: (page: number) => number, between?: (page: number) => Promise<void>): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/grid/rest/maps/${map}?keys&${query}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const res = await c.http(via(pages), 'GET', url, undefined, { timeoutMs: 30_000 });
    expect(res.status, `${url}: ${res.headers['x-grid-error'] as string}`).toBe(200);
    const page = JSON.parse(res.body) as KeysPage;
    keys.push(...page.keys);
    cursor = page.cursor;
    pages++;
    if (between !== undefined) await between(pages);
    expect(pages, 'a scan ends').toBeLessThan(5000);
  } while (cursor !== null);
  return { keys, pages };
}

beforeAll(async () => {
  c = await startCluster({ size: 2, scope: 'file', spare: 2 });
  await eachLimited(STABLE, 16, (key, n) => put(n % 2, 'stable', key, `v-${key}`));
}, 120_000);

afterAll(async () => {
  await c?.destroy();
});

describe('GET /grid/rest/maps/<map>?keys', () => {
  it('returns every key exactly once over pages, through either member, and a null cursor at the end', async () => {
    const { keys, pages } = await scanAll('stable', 'limit=97', (n) => n % 2);
    expect(keys.length).toBe(STABLE.length);
    expect(new Set(keys)).toEqual(new Set(STABLE));
    // Pages are full until the last; ~16 pages, not one per partition.
    expect(pages).toBeLessThanOrEqual(Math.ceil(STABLE.length / 97) + 1);
  }, 60_000);

  it('takes a prefix, and an empty map has one empty page', async () => {
    const { keys } = await scanAll('stable', 'limit=7&prefix=k0012', () => 0);
    expect(keys.sort()).toEqual(STABLE.filter((k) => k.startsWith('k0012')));
    const empty = JSON.parse((await c.http(1, 'GET', '/grid/rest/maps/nothing-here?keys')).body) as KeysPage;
    expect(empty).toEqual({ keys: [], cursor: null });
  });

  it('refuses bad parameters and cursors with a 400 that says why', async () => {
    const bad = async (query: string, reason: RegExp): Promise<void> => {
      const res = await c.http(0, 'GET', `/grid/rest/maps/stable?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers['x-grid-error'], query).toMatch(reason);
    };
    await bad('keys&limit=0', /limit must be from 1 to 1000/);
    await bad('keys&limit=-1', /limit must be a whole number/);
    await bad('keys&limit=1001', /limit must be from 1 to 1000/);
    await bad('keys&limit=ten', /limit must be a whole number/);
    await bad('keys&entries', /keys and entries together/);
    await bad('keys&colour=red', /unknown query parameter "colour"/);
    await bad('keys&limit=1&limit=2', /given twice/);
    await bad('keys&cursor=!!', /bad cursor: not base64url/);
    await bad('keys&cursor=AQAA', /bad cursor: too short/);
    // A real cursor, garbled in one character, and the same cursor with another prefix.
    const first = JSON.parse((await c.http(0, 'GET', '/grid/rest/maps/stable?keys&limit=3')).body) as KeysPage;
    const cursor = first.cursor!;
    const garbled = cursor.slice(0, 6) + (cursor[6] === 'A' ? 'B' : 'A') + cursor.slice(7);
    await bad(`keys&cursor=${garbled}`, /bad cursor: (garbled|not canonical)/);
    await bad(`keys&prefix=k&cursor=${cursor}`, /bad cursor: garbled, or made by a scan of another map or prefix/);
    const other = await c.http(0, 'GET', `/grid/rest/maps/other?keys&cursor=${cursor}`);
    expect(other.status).toBe(400);
    // The same cursor is good for entries of the same map and prefix.
    expect((await c.http(1, 'GET', `/grid/rest/maps/stable?entries&cursor=${cursor}`)).status).toBe(200);
  });

  it('leaves the /hazelcast/ contract as it was: no listing there', async () => {
    const res = await c.http(0, 'GET', '/hazelcast/rest/maps/stable?keys');
    expect(res.status).toBe(400);
    expect(res.headers['x-grid-error']).toBe('missing key: GET needs /rest/maps/<map>/<key>');
    const list = await c.http(0, 'GET', '/hazelcast/rest/maps');
    expect(list.status).toBe(400);
    expect(list.headers['x-grid-error']).toBe('no endpoint GET /rest/maps');
    expect((await c.http(0, 'GET', '/hazelcast/rest/maps/')).headers['x-grid-error']).toBe('missing map name');
  });
});

describe('GET /grid/rest/maps/<map>?entries', () => {
  it('shows text values as text and other values as base64, with their content types', async () => {
    await put(0, 'mixed', 'a-text', 'héllo', 'text/plain; charset=utf-8');
    await put(1, 'mixed', 'b-json', '{"n":1}', 'application/json');
    const bin = Buffer.from([0, 1, 2, 0xff, 0xfe]);
    const res0 = await c.http(0, 'POST', '/grid/rest/maps/mixed/c-bin', bin.toString('latin1'), { contentType: 'application/octet-stream' });
    expect(res0.status).toBe(200);
    const page = JSON.parse((await c.http(1, 'GET', '/grid/rest/maps/mixed?entries&limit=10')).body) as EntriesPage;
    const byKey = new Map(page.entries.map((e) => [e.key, e]));
    expect(byKey.get('a-text')).toEqual({ key: 'a-text', value: 'héllo', contentType: 'text/plain; charset=utf-8' });
    expect(byKey.get('b-json')).toEqual({ key: 'b-json', value: '{"n":1}', contentType: 'application/json' });
    // http.request sent the latin1 string as UTF-8: the member stored those bytes.
    expect(byKey.get('c-bin')).toEqual({ key: 'c-bin', value: Buffer.from(bin.toString('latin1'), 'utf8').toString('base64'), encoding: 'base64', contentType: 'application/octet-stream' });
    expect(page.cursor).toBeNull();
  });
});

describe('GET /grid/rest/maps and /grid/rest/queues', () => {
  it('list names with their cluster-wide sizes', async () => {
    for (let n = 0; n < 3; n++) expect((await c.http(n % 2, 'POST', '/grid/rest/queues/jobs', `job-${n}`)).status).toBe(200);
    const maps = JSON.parse((await c.http(0, 'GET', '/grid/rest/maps')).body) as { maps: { name: string; size: number }[] };
    expect(maps.maps.find((m) => m.name === 'stable')).toMatchObject({ name: 'stable', size: STABLE.length });
    expect(maps.maps.find((m) => m.name === 'mixed')).toMatchObject({ name: 'mixed', size: 3 });
    expect(maps.maps.map((m) => m.name)).toEqual([...maps.maps.map((m) => m.name)].sort());
    // The whole row shape: the size and the members' operation rates, nothing else; whose rates they are.
    for (const m of maps.maps) expect(Object.keys(m).sort()).toEqual(['getsPerSecond', 'name', 'putsPerSecond', 'removesPerSecond', 'size']);
    expect(Object.keys(maps).sort()).toEqual(['maps', 'rates']);
    const queues = JSON.parse((await c.http(1, 'GET', '/grid/rest/queues')).body) as { queues: { name: string; size: number }[] };
    expect(queues.queues.find((q) => q.name === 'jobs')).toMatchObject({ name: 'jobs', size: 3 });
    for (const q of queues.queues) expect(Object.keys(q).sort()).toEqual(['name', 'offersPerSecond', 'pollsPerSecond', 'size']);
    expect(Object.keys(queues).sort()).toEqual(['queues', 'rates']);
    expect((await c.http(0, 'GET', '/grid/rest/maps?x')).status).toBe(400);
  });
});

describe('a scan while partitions migrate', () => {
  it('returns every key that exists for the whole scan exactly once while a member joins, another leaves and one is killed', async () => {
    const before = (await c.partitions(0)).version;
    // Keys that come and go during the scan: they may or may not appear, never twice.
    let churning = true;
    const churnKeys: string[] = [];
    const churn = (async () => {
      for (let n = 0; churning; n++) {
        const key = `k${String(n % 3000).padStart(5, '0')}x`;
        churnKeys.push(key);
        const live = c.live();
        const via = live[n % live.length]!.index;
        await c.http(via, n % 3 === 2 ? 'DELETE' : 'POST', `/grid/rest/maps/stable/${key}`, n % 3 === 2 ? undefined : 'churn').catch(() => undefined);
      }
    })();
    let joined = -1;
    let killed = false;
    let stopping: Promise<unknown> | undefined;
    const { keys } = await scanAll(
      'stable',
      'limit=25',
      // Through member 0 and the one that joined (never the one leaving), then member 0 alone.
      (n) => (n % 2 === 0 || joined < 0 || killed ? 0 : joined),
      async (page) => {
        if (page === 3) {
          joined = (await c.addMember()).index;
          // Go on once partitions started to move to the new member.
          await waitFor('partitions to migrate', async () => (await c.partitions(0)).version > before, 30_000);
        }
        // A graceful leave while the join's migrations may still run.
        if (page === 20) stopping = c.stop(1);
        if (page === 35) {
          // Then a failure: once every partition has its backup again, the joined member is
          // killed; its partitions' backups on member 0 are promoted under the scan.
          await stopping;
          await c.waitSafe(60_000, 2);
          await c.kill(joined);
          killed = true;
        }
      },
    );
    churning = false;
    await churn;
    await stopping;
    expect(joined).toBeGreaterThan(0);
    expect(killed, 'the scan outlived the kill').toBe(true);
    // Partitions moved during the scan: the table changed again after the member joined.
    expect((await c.partitions(0)).version).toBeGreaterThan(before);
    const seen = new Map<string, number>();
    for (const k of keys) seen.set(k, (seen.get(k) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
    expect(twice, 'no key twice').toEqual([]);
    const missing = STABLE.filter((k) => !seen.has(k));
    expect(missing, 'every stable key').toEqual([]);
    const strangers = keys.filter((k) => !STABLE.includes(k) && !churnKeys.includes(k));
    expect(strangers).toEqual([]);
  }, 180_000);
});
