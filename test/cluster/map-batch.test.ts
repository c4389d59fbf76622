// Map batches (POST /grid/rest/maps/<map>) against one shared 3-member cluster: a batch does
// what the same requests done one by one do, it reaches each owner in one member message, bad
// entries answer for themselves, broken bodies and oversized batches apply nothing (JSON and
// the binary form), and under a kill -9 every entry answered 2xx is there.
// The kill comes late (it leaves two members); the last test adds a member while batches run.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { prng } from '../support/prng.js';
import { MAX_BATCH_ENTRIES, type BatchResult } from '../../src/rest/map-batch.js';
import { BINARY_BATCH_TYPE, decodeBinaryResults, encodeBinaryBatch } from '../../src/rest/batch-binary.js';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { sampleValue, scrape } from '../support/prometheus.js';

let cluster: Cluster;
const base = (i: number): string => `http://127.0.0.1:${cluster.member(i).port}`;

interface BatchAnswer {
  get: BatchResult[];
  put: BatchResult[];
  delete: BatchResult[];
}

async function batch(i: number, map: string, body: unknown): Promise<{ status: number; error: string | null; json: BatchAnswer | undefined }> {
  const r = await fetch(`${base(i)}/grid/rest/maps/${map}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const text = await r.text();
  return { status: r.status, error: r.headers.get('x-grid-error'), json: r.status === 200 ? (JSON.parse(text) as BatchAnswer) : undefined };
}

/** A single GET: undefined when absent (204). */
async function single(i: number, map: string, key: string): Promise<{ bytes: Buffer; contentType: string | null } | undefined> {
  const r = await fetch(`${base(i)}/hazelcast/rest/maps/${map}/${encodeURIComponent(key)}`);
  const bytes = Buffer.from(await r.arrayBuffer());
  if (r.status === 204) return undefined;
  expect(r.status).toBe(200);
  return { bytes, contentType: r.headers.get('content-type') };
}

/** Runs `fns` at most `n` at a time. */
async function limited<T>(n: number, fns: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array<T>(fns.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < fns.length) {
        const i = next++;
        out[i] = await fns[i]!();
      }
    }),
  );
  return out;
}

/** Every key of `acked` read back in batches through member `i`: the keys whose value differs or whose version is not 0 (written twice). */
async function notOnce(i: number, map: string, acked: Map<string, string>): Promise<string[]> {
  const bad: string[] = [];
  const keys = [...acked.keys()];
  for (let at = 0; at < keys.length; at += MAX_BATCH_ENTRIES) {
    const chunk = keys.slice(at, at + MAX_BATCH_ENTRIES);
    const r = await batch(i, map, { get: chunk });
    expect(r.status).toBe(200);
    r.json!.get.forEach((g, j) => {
      if (g.status !== 200 || g.value !== acked.get(chunk[j]!) || g.version !== 0) bad.push(`${chunk[j]}: ${JSON.stringify(g)}`);
    });
  }
  return bad;
}

beforeAll(async () => {
  cluster = await startCluster({ size: 3, scope: 'file' });
}, 60_000);

afterAll(async () => {
  await cluster.destroy();
});

describe('map batches', () => {
  it('a batch of 500 mixed operations leaves the map as the same requests done singly', async () => {
    const rnd = prng(25);
    const keys = Array.from({ length: 300 }, (_, i) => (i % 10 === 0 ? `ключ-${i}` : `k${i}`));
    // The same starting content in both maps: every third key.
    const seed = keys.filter((_, i) => i % 3 === 0).map((key) => ({ key, value: `old-${key}` }));
    for (const m of ['single', 'batched']) expect((await batch(1, m, { put: seed })).status).toBe(200);

    const puts: { key: string; value: string; encoding?: 'base64'; contentType?: string; bytes: Buffer }[] = [];
    const deletes: string[] = [];
    const shuffled = [...keys].sort(() => rnd() - 0.5);
    for (const key of shuffled.slice(0, 200)) {
      const bytes = rnd() < 0.3 ? Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 50) }, () => Math.floor(rnd() * 256))) : Buffer.from(`v-${key}-${rnd()}`);
      const binary = !bytes.toString('utf8').startsWith('v-');
      puts.push({ key, value: binary ? bytes.toString('base64') : bytes.toString('utf8'), ...(binary ? { encoding: 'base64' as const, contentType: 'application/octet-stream' } : {}), bytes });
    }
    for (const key of shuffled.slice(200, 300)) deletes.push(key);
    const gets = shuffled.slice(100, 300); // written, deleted, present and absent keys
    expect(puts.length + deletes.length + gets.length).toBe(500);

    const b = await batch(0, 'batched', { get: gets, put: puts.map(({ bytes: _, ...p }) => p), delete: deletes });
    expect(b.status).toBe(200);
    const ans = b.json!;

    // The same writes one by one (singles have no "created" answer: 200 either way).
    await limited(16, [
      ...puts.map((p) => async (): Promise<void> => {
        const r = await fetch(`${base(2)}/hazelcast/rest/maps/single/${encodeURIComponent(p.key)}`, { method: 'POST', body: p.bytes, headers: p.contentType === undefined ? {} : { 'content-type': p.contentType } });
        expect(r.status).toBe(200);
      }),
      ...deletes.map((k) => async (): Promise<void> => {
        expect((await fetch(`${base(2)}/hazelcast/rest/maps/single/${encodeURIComponent(k)}`, { method: 'DELETE' })).status).toBe(200);
      }),
    ]);

    const seeded = new Set(seed.map((s) => s.key));
    ans.put.forEach((r, i) => expect(r).toMatchObject({ key: puts[i]!.key, status: seeded.has(puts[i]!.key) ? 200 : 201 }));
    ans.delete.forEach((r, i) => expect(r).toEqual({ key: deletes[i], status: seeded.has(deletes[i]!) ? 204 : 404 }));

    // Every key read back singly from both maps is the same; the batch's gets saw the same.
    const reads = await limited(16, keys.map((k) => async () => [await single(1, 'single', k), await single(1, 'batched', k)] as const));
    const byKey = new Map(keys.map((k, i) => [k, reads[i]!]));
    for (const [k, [a, bb]] of byKey) {
      expect(bb?.bytes.toString('hex'), k).toBe(a?.bytes.toString('hex'));
      expect(bb?.contentType, k).toBe(a?.contentType);
    }
    ans.get.forEach((r, i) => {
      const want = byKey.get(gets[i]!)![0];
      if (want === undefined) expect(r).toEqual({ key: gets[i], status: 404 });
      else {
        expect(r.status).toBe(200);
        expect(Buffer.from(r.value!, r.encoding === 'base64' ? 'base64' : 'utf8').toString('hex')).toBe(want.bytes.toString('hex'));
      }
    });
  }, 60_000);

  it('bad entries answer 400 each; the others are applied', async () => {
    const b = await batch(1, 'mixed', {
      put: [{ key: 'good', value: 'v', ttl: 3600 }, { key: 'bad', value: '***', encoding: 'base64' }, { value: 'no key' }, { key: 'good', value: 'twice' }],
      get: ['good', 5],
      delete: ['', 'absent'],
    });
    expect(b.status).toBe(200);
    const a = b.json!;
    expect(a.put.map((r) => r.status)).toEqual([201, 400, 400, 400]);
    expect(a.put[1]).toMatchObject({ key: 'bad', error: 'value is not valid base64' });
    expect(a.put[0]).toEqual({ key: 'good', status: 201, version: 0 });
    // A get carries the version only where the read path has it: a get served by a remote owner comes without one.
    expect(a.get[0]).toMatchObject({ key: 'good', status: 200, value: 'v', encoding: 'text' });
    expect(a.get[1]).toEqual({ status: 400, error: 'key must be a string' });
    expect(a.delete).toEqual([{ key: '', status: 400, error: 'key must not be empty' }, { key: 'absent', status: 404 }]);
    expect((await single(2, 'mixed', 'good'))?.bytes.toString()).toBe('v');
    expect(await single(2, 'mixed', 'bad')).toBeUndefined();
  });

  it('broken bodies and oversized batches are refused whole: nothing is written', async () => {
    const write = { put: [{ key: 'x', value: 'v' }] };
    for (const body of [JSON.stringify(write).slice(0, -1), JSON.stringify({ ...write, get: 'k' }), JSON.stringify({ ...write, extra: 1 }), '[]']) {
      const r = await batch(0, 'broken', body);
      expect(r.status, body).toBe(400);
      expect(r.error).toMatch(/batch body/);
    }
    const many = Array.from({ length: MAX_BATCH_ENTRIES }, (_, i) => `k${i}`);
    const big = await batch(0, 'broken', { ...write, delete: many });
    expect(big.status).toBe(413);
    expect(big.error).toMatch(`exceeds the limit of ${MAX_BATCH_ENTRIES} entries per batch; nothing was applied`);
    expect(await single(1, 'broken', 'x')).toBeUndefined();
    // The Hazelcast paths keep Hazelcast's answer for a POST without key.
    const hz = await fetch(`${base(0)}/hazelcast/rest/maps/broken`, { method: 'POST', body: JSON.stringify(write) });
    expect(hz.status).toBe(400);
    expect(hz.headers.get('x-grid-error')).toMatch(/missing key/);
    expect(await single(1, 'broken', 'x')).toBeUndefined();
  });

  it('a batch of 300 entries reaches each other owner in one member message, and no single operation message', async () => {
    const sent = async (): Promise<{ single: number; group: number }> => {
      const m = await scrape(base(0));
      return { single: sampleValue(m, 'grid_operation_messages_sent_total', { kind: 'single' }) ?? NaN, group: sampleValue(m, 'grid_operation_messages_sent_total', { kind: 'group' }) ?? NaN };
    };
    const keys = Array.from({ length: 300 }, (_, i) => `grouped-${i}`);
    const table = await cluster.partitions(0);
    const me = (await cluster.clusterInfo(0)).members.find((m) => m.localMember)!.uuid;
    const owners = new Set(keys.map((k) => table.partitions[partitionIdOf(k)]![0]));
    expect(owners.size).toBe(3); // the keys span every member
    const before = await sent();
    const put = keys.map((key, i) => ({ key, value: `v${i}` }));
    const w = await batch(0, 'grouped', { put: put.slice(0, 200), delete: keys.slice(200, 250), get: keys.slice(250) });
    expect(w.status).toBe(200);
    const mid = await sent();
    expect(mid.group - before.group).toBe(owners.size - (owners.has(me) ? 1 : 0));
    expect(mid.single - before.single).toBe(0);
    expect(w.json!.put.map((r) => r.status)).toEqual(put.slice(0, 200).map(() => 201));
    expect(w.json!.delete.map((r) => r.status)).toEqual(keys.slice(200, 250).map(() => 404));
    // Reads of every key, in one more batch: again one message per other owner.
    const r = await batch(0, 'grouped', { get: keys });
    expect((await sent()).group - mid.group).toBe(owners.size - (owners.has(me) ? 1 : 0));
    expect(r.json!.get.map((g) => (g.status === 200 ? g.value : g.status))).toEqual(keys.map((_, i) => (i < 200 ? `v${i}` : 404)));
  });

  it('the binary form: the same per-entry answers in request order; a broken or oversized body applies nothing', async () => {
    const post = (body: Buffer): Promise<Response> => fetch(`${base(1)}/grid/rest/maps/binary`, { method: 'POST', body, headers: { 'content-type': BINARY_BATCH_TYPE } });
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const body = encodeBinaryBatch([
      { op: 'put', key: 'b1', value: bytes, contentType: 'application/octet-stream' },
      { op: 'put', key: 'ключ', value: 'текст', contentType: 'text/plain; charset=utf-8', ttlSeconds: 3600 },
      { op: 'get', key: 'b1' },
      { op: 'delete', key: 'absent' },
      { op: 'get', key: 'absent' },
      { op: 'put', key: '', value: 'x' },
    ]);
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(BINARY_BATCH_TYPE);
    const out = decodeBinaryResults(Buffer.from(await res.arrayBuffer()));
    expect(out.map((o) => [o.op, o.status, o.key])).toEqual([[2, 201, 'b1'], [2, 201, 'ключ'], [1, 200, 'b1'], [3, 404, 'absent'], [1, 404, 'absent'], [2, 400, '']]);
    expect(out[2]).toMatchObject({ value: bytes, contentType: 'application/octet-stream', version: 0 });
    expect(out[5]!.error).toBe('key must not be empty');
    expect((await single(2, 'binary', 'ключ'))?.bytes.toString()).toBe('текст');
    // A body cut short, and one with too many records: refused whole, nothing written.
    const more = encodeBinaryBatch([{ op: 'put', key: 'never', value: 'v' }, { op: 'delete', key: 'b1' }]);
    const cut = await post(more.subarray(0, more.length - 2));
    expect(cut.status).toBe(400);
    expect(cut.headers.get('x-grid-error')).toMatch(/binary batch truncated.*nothing was applied/);
    const big = encodeBinaryBatch([{ op: 'put', key: 'never', value: 'v' }, ...Array.from({ length: MAX_BATCH_ENTRIES }, (_, i) => ({ op: 'get' as const, key: `k${i}` }))]);
    expect((await post(big)).status).toBe(413);
    expect(await single(0, 'binary', 'never')).toBeUndefined();
    expect((await single(0, 'binary', 'b1'))?.bytes).toEqual(bytes);
  });

  it('under a kill -9 of a member, every entry answered 2xx is there afterwards', async () => {
    const acked = new Map<string, string>();
    let failed = 0;
    let n = 0;
    let killed = false;
    let answeredAfterKill = 0;
    const writer = async (w: number): Promise<void> => {
      for (let round = 0; round < 12; round++) {
        const put = Array.from({ length: 100 }, (_, i) => ({ key: `w${w}-${round}-${i}`, value: `v${n++}` }));
        const sentAfterKill = killed;
        const r = await batch(0, 'killed', { put });
        if (sentAfterKill) answeredAfterKill++;
        if (r.status !== 200) {
          failed += put.length;
          continue;
        }
        r.json!.put.forEach((res, i) => {
          if (res.status >= 200 && res.status < 300) acked.set(put[i]!.key, put[i]!.value);
          else failed++;
        });
      }
    };
    const writers = [0, 1, 2].map(writer);
    // Kill once the writers are under way (some batches done), while others are in flight.
    await expect.poll(() => acked.size, { timeout: 30_000, interval: 20 }).toBeGreaterThan(300);
    await cluster.kill(2);
    killed = true;
    await Promise.all(writers);
    await cluster.waitSafe(60_000, 2);
    // The kill came while batches were still being sent (not after the load).
    expect(answeredAfterKill).toBeGreaterThan(0);
    const missing: string[] = [];
    await limited(16, [...acked].map(([k, v]) => async () => {
      const got = await single(1, 'killed', k);
      if (got?.bytes.toString() !== v) missing.push(k);
    }));
    expect(missing, `acked ${acked.size}, failed ${failed}`).toEqual([]);
    // Each written once: a write retried on the promoted backup was not applied a second time (its version would be 1).
    expect(await notOnce(1, 'killed', acked)).toEqual([]);
  }, 120_000);

  it('while a member joins and partitions migrate, batches lose nothing and apply each write once', async () => {
    const acked = new Map<string, string>();
    let joined = false;
    let sentDuringJoin = 0;
    const writer = async (w: number): Promise<void> => {
      // Until the new member is in and the cluster safe again (bounded: 400 rounds).
      for (let round = 0; !joined && round < 400; round++) {
        const put = Array.from({ length: 100 }, (_, i) => ({ key: `j${w}-${round}-${i}`, value: `v${w}-${round}-${i}` }));
        const during = !joined;
        const r = await batch(w === 0 ? 0 : 1, 'joined', { put });
        if (during) sentDuringJoin++;
        if (r.status !== 200) continue;
        r.json!.put.forEach((res, i) => {
          if (res.status >= 200 && res.status < 300) acked.set(put[i]!.key, put[i]!.value);
        });
      }
    };
    const writers = [0, 1].map(writer);
    await expect.poll(() => acked.size, { timeout: 30_000, interval: 20 }).toBeGreaterThan(200);
    await cluster.addMember();
    await cluster.waitSafe(60_000, 3);
    joined = true;
    await Promise.all(writers);
    expect(sentDuringJoin).toBeGreaterThan(0);
    expect(acked.size).toBeGreaterThan(200);
    expect(await notOnce(0, 'joined', acked)).toEqual([]);
  }, 120_000);
});
