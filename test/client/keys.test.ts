// Keys of types other than String from the official Node.js client (hazelcast-client 5.7.0,
// default options, smart routing) on one shared cluster of 3 real Grid members with
// persistence: every such key goes straight to its owner (no request forwarded), TTLs and entry
// listeners work with it, REST shows what it can (sizes count such entries, listings skip and
// count them, a map's DELETE clears them), a restart of the whole cluster from disk keeps them
// byte-exact, and so does a SIGKILL of an owner (its backups). The shared scenario of
// scenarios.ts runs the same key types against a real Hazelcast member too.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, HazelcastJsonValue, type EntryEvent } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { parsePrometheus, sampleValue } from '../support/prometheus.js';
import { openStream } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

/** A Long 1 as the clients serialize it: partition hash 0, type -8, 8 bytes big-endian. */
const LONG_1_DATA = Buffer.from('00000000fffffff80000000000000001', 'hex');

type Long = { toString(): string };
const ClientLong = createRequire(createRequire(import.meta.url).resolve('hazelcast-client'))('long') as { fromNumber(n: number): Long; isLong(v: unknown): boolean };

let c: Cluster;
let client: Client;
let baseDir: string;

function newClient(): Promise<Client> {
  return Client.newHazelcastClient({
    clusterName: 'dev',
    network: { clusterMembers: c.live().map((m) => m.address) },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
}

beforeAll(async () => {
  baseDir = mkdtempSync(join(tmpdir(), 'grid-keys-'));
  c = await startCluster({
    size: 3,
    spare: 0,
    scope: 'file',
    config: () => ({
      persistence: { enabled: true, 'base-dir': baseDir, 'validation-timeout-seconds': 10 },
      map: { 'persisted-*': { 'backup-count': 1, 'data-persistence': { enabled: true, fsync: false } } },
    }),
  });
  client = await newClient();
}, 90_000);

afterAll(async () => {
  await client?.shutdown();
  await c?.destroy();
  rmSync(baseDir, { recursive: true, force: true });
});

/** Keys of every type the Node client serializes without a factory, and the value each maps to. */
function typedKeys(i: number): [unknown, unknown][] {
  return [
    [ClientLong.fromNumber(i), `long-${i}`],
    [i + 0.5, Buffer.from([i & 0xff, 0, 0xff])],
    [Buffer.from(`key-${i}`), { n: i }],
    [{ id: i, tag: 'héllo' }, `json-${i}`],
    [new HazelcastJsonValue(`{"raw":${i}}`), i],
  ];
}

function describeKey(k: unknown): string {
  if (ClientLong.isLong(k)) return `long:${String(k)}`;
  if (Buffer.isBuffer(k)) return `bytes:${k.toString('hex')}`;
  if (k instanceof HazelcastJsonValue) return `jsonValue:${k.toString()}`;
  if (typeof k === 'object' && k !== null) return `json:${JSON.stringify(k)}`;
  return `${typeof k}:${String(k)}`;
}

async function routingCounts(): Promise<{ keyed: number; forwarded: number }> {
  let keyed = 0;
  let forwarded = 0;
  for (const m of c.live()) {
    const res = await c.http(m.index, 'GET', '/metrics');
    const f = parsePrometheus(res.body);
    keyed += sampleValue(f, 'grid_client_keyed_requests_total') ?? NaN;
    forwarded += sampleValue(f, 'grid_client_keyed_requests_forwarded_total') ?? NaN;
  }
  return { keyed, forwarded };
}

/** Reads every key of `keys` and returns those whose value is not the one written. */
async function wrongValues(map: Awaited<ReturnType<Client['getMap']>>, keys: [unknown, unknown][]): Promise<string[]> {
  const wrong: string[] = [];
  for (const [k, v] of keys) {
    const got = await map.get(k);
    if (JSON.stringify(got) !== JSON.stringify(v)) wrong.push(`${describeKey(k)}: ${JSON.stringify(got)}`);
  }
  return wrong;
}

describe('keys that are not Strings, from hazelcast-client 5.7.0 on 3 Grid members', () => {
  it('go to their owner: no keyed request is forwarded', async () => {
    await waitFor('the client connected to every member', () => client.getCluster().getMembers().length === 3, 20_000);
    const m = await client.getMap('routed');
    // One warm-up call per member after the connections are up, so the partition table is in.
    await waitFor('the partition table at the client', () => client.getPartitionService().getPartitionCount() === 271, 20_000);
    const keys = Array.from({ length: 60 }, (_, i) => typedKeys(i)).flat();
    for (const [k, v] of keys.slice(0, 5)) await m.set(k, v);
    const before = await routingCounts();
    for (const [k, v] of keys) await m.set(k, v);
    expect(await wrongValues(m, keys)).toEqual([]);
    const after = await routingCounts();
    expect(after.keyed - before.keyed).toBe(2 * keys.length);
    expect(after.forwarded - before.forwarded).toBe(0);
    expect(await m.size()).toBe(keys.length);
    // REST lists String keys only: these are skipped, and counted.
    const counts = await c.json<{ keys: string[]; nonStringKeys?: number; cursor: string | null }>(0, '/grid/rest/maps/routed?keys&limit=1000');
    expect(counts.keys).toEqual([]);
    expect(counts.nonStringKeys).toBe(keys.length);
  });

  it('TTL, entry views and entry listeners (events carry the key as written)', async () => {
    const m = await client.getMap<unknown, string>('events');
    const seen: string[] = [];
    const onOne: string[] = [];
    const record = (to: string[], type: string) => (e: EntryEvent<unknown, string>): void => {
      to.push(`${type}|${describeKey(e.key)}|${e.value ?? ''}|${e.oldValue ?? ''}`);
    };
    const all = { added: record(seen, 'added'), updated: record(seen, 'updated'), removed: record(seen, 'removed'), expired: record(seen, 'expired') };
    await m.addEntryListener(all, undefined, true);
    await m.addEntryListener({ added: record(onOne, 'added'), updated: record(onOne, 'updated') }, Buffer.from([1, 2]), true);
    const long = ClientLong.fromNumber(42);
    await m.put(long, 'a');
    await m.put(long, 'b');
    await m.put(Buffer.from([1, 2]), 'bytes');
    await m.put(Buffer.from([1, 3]), 'other bytes');
    expect(await m.remove(long)).toBe('b');
    // A per-entry TTL on a non-String key: gone at its owner, told as expired.
    await m.put({ t: 1 }, 'short', 1_000);
    const view = await m.getEntryView(Buffer.from([1, 2]));
    expect(describeKey(view!.key)).toBe('bytes:0102');
    expect(await m.setTtl(Buffer.from([1, 3]), 60_000)).toBe(true);
    await waitFor('the TTL entry to expire', async () => (await m.containsKey({ t: 1 })) === false, 20_000);
    await waitFor('its expired event', () => seen.some((s) => s.startsWith('expired|')), 20_000);
    // Events of different keys may come from different members in any order: compared as a
    // set, and one key's in its order.
    expect(seen.filter((s) => s.includes('|long:42|'))).toEqual(['added|long:42|a|', 'updated|long:42|b|a', 'removed|long:42||b']);
    expect(seen.filter((s) => !s.startsWith('expired|')).sort()).toEqual(
      ['added|long:42|a|', 'updated|long:42|b|a', 'added|bytes:0102|bytes|', 'added|bytes:0103|other bytes|', 'removed|long:42||b', 'added|json:{"t":1}|short|'].sort(),
    );
    expect(seen.filter((s) => s.startsWith('expired|'))).toEqual(['expired|json:{"t":1}||short']);
    expect(onOne).toEqual(['added|bytes:0102|bytes|']);
  }, 60_000);

  it('REST: sizes count them, listings skip and count them, a map DELETE clears them, a String key stays the one REST names', async () => {
    const m = await client.getMap<unknown, string>('rest-view');
    const stream = await openStream(c.member(1).port, '/grid/rest/maps/rest-view/events');
    await m.putAll([
      [ClientLong.fromNumber(1), 'l1'],
      [Buffer.from([1]), 'b1'],
      ['1', 's1'],
      ['\u0000nul', 'nul'],
    ]);
    // Change streams: a String key as `key`, any other as `keyData` (its serialized Data, base64).
    await waitFor('4 added events', () => stream.events().filter((e) => e.event === 'added').length >= 4, 20_000);
    stream.socket.destroy();
    const added = stream.events().filter((e) => e.event === 'added').map((e) => (e.data.key !== undefined ? `key:${String(e.data.key)}` : `keyData:${String(e.data.keyData)}`));
    expect(added.sort()).toEqual(
      [`keyData:${LONG_1_DATA.toString('base64')}`, `keyData:${Buffer.from('00000000fffffff40000000101', 'hex').toString('base64')}`, 'key:1', 'key:\u0000nul'].sort(),
    );
    const maps = await c.json<{ maps: { name: string; size: number }[] }>(1, '/grid/rest/maps');
    expect(maps.maps.find((x) => x.name === 'rest-view')?.size).toBe(4);
    const keys = await c.json<{ keys: string[]; nonStringKeys?: number }>(2, '/grid/rest/maps/rest-view?keys');
    expect([keys.keys.sort(), keys.nonStringKeys]).toEqual([['\u0000nul', '1'], 2]);
    const entries = await c.json<{ entries: { key: string; value: string }[]; nonStringKeys?: number }>(0, '/grid/rest/maps/rest-view?entries');
    expect([entries.entries.map((e) => `${e.key}=${e.value}`).sort(), entries.nonStringKeys]).toEqual([['\u0000nul=nul', '1=s1'], 2]);
    // A String key that starts with U+0000 is the same entry for REST and the client.
    const nul = await c.http(1, 'GET', '/hazelcast/rest/maps/rest-view/%00nul');
    expect([nul.status, nul.body]).toEqual([200, 'nul']);
    expect((await c.http(2, 'POST', '/hazelcast/rest/maps/rest-view/%00nul', 'from-rest', { contentType: 'text/plain' })).status).toBe(200);
    expect(await m.get('\u0000nul')).toMatchObject({ value: 'from-rest' });
    expect((await c.http(0, 'DELETE', '/hazelcast/rest/maps/rest-view')).status).toBe(200);
    expect(await m.size()).toBe(0);
    expect(await m.get(ClientLong.fromNumber(1))).toBeNull();
  });

  it('a restart of the whole cluster from disk keeps them byte-exact', async () => {
    const m = await client.getMap('persisted-keys');
    const keys = Array.from({ length: 20 }, (_, i) => typedKeys(i)).flat();
    for (const [k, v] of keys) await m.set(k, v);
    const keySet = (await m.keySet()).map(describeKey).sort();
    expect(keySet).toHaveLength(keys.length);
    await client.shutdown();
    const all = c.live().map((x) => x.index);
    // Every member at the same moment: nothing is left in memory anywhere.
    await Promise.all(all.map((i) => c.kill(i)));
    for (const i of all) await c.restart(i, { wait: 'none' });
    await Promise.all(all.map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000);
    client = await newClient();
    const again = await client.getMap('persisted-keys');
    expect(await again.size()).toBe(keys.length);
    expect(await wrongValues(again, keys)).toEqual([]);
    expect((await again.keySet()).map(describeKey).sort()).toEqual(keySet);
  }, 150_000);

  it('a SIGKILL of an owner keeps them (its backups take over)', async () => {
    const m = await client.getMap('backed-up');
    const keys = Array.from({ length: 40 }, (_, i) => typedKeys(i)).flat();
    for (const [k, v] of keys) await m.set(k, v);
    await c.waitSafe(30_000);
    await c.kill(2);
    await c.waitForMembers(2, undefined, 30_000);
    await c.waitSafe(30_000);
    expect(await wrongValues(m, keys)).toEqual([]);
    expect(await m.size()).toBe(keys.length);
  }, 90_000);
});
