// The Node.js client's scenarios, written once and run against a Grid member
// (map-queue.test.ts) and against a real Hazelcast member (official-clients.test.ts), so each
// expectation here is Hazelcast's own. A scenario gets a connected client and the member's REST
// surface; a new operation is one more entry (or one more line in an entry).

import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { Client } from 'hazelcast-client';
import { waitFor } from '../support/wait.js';

/** One member (Grid or Hazelcast) as the scenarios see it. */
export interface ScenarioTarget {
  /** A client connected to the member (unisocket), shared by the scenarios. */
  readonly client: Client;
  /** The member's `host:port` (client protocol and REST on the same port). */
  readonly address: string;
  readonly clusterName: string;
}

export interface RestAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly bytes: Buffer;
}

export async function restGet(t: { readonly address: string }, path: string): Promise<RestAnswer> {
  const res = await fetch(`http://${t.address}${path}`);
  return { status: res.status, contentType: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

export async function restPost(t: { readonly address: string }, path: string, body: string, contentType: string): Promise<number> {
  const res = await fetch(`http://${t.address}${path}`, { method: 'POST', body, headers: { 'content-type': contentType } });
  await res.arrayBuffer();
  return res.status;
}

/** The client options of these tests: default but the cluster name, the address and silence. */
export function clientOptions(address: string, clusterName: string, extra: { smartRouting?: boolean; connectTimeoutMs?: number } = {}): Parameters<typeof Client.newHazelcastClient>[0] {
  return {
    clusterName,
    network: { clusterMembers: [address], smartRouting: extra.smartRouting ?? false },
    // Without this the client logs to stdout; its warnings are not what these tests read.
    properties: { 'hazelcast.logging.level': 'OFF' },
    ...(extra.connectTimeoutMs === undefined ? {} : { connectionStrategy: { connectionRetry: { clusterConnectTimeoutMillis: extra.connectTimeoutMs } } }),
  };
}

/** A Java Long (max: Hazelcast's "none") as a string. */
const LONG_MAX = '9223372036854775807';
/** The unbounded queue's capacity: Java's Integer.MAX_VALUE. */
const INT_MAX = 2147483647;

type Long = { toString(): string };
interface View {
  value: unknown;
  cost: Long;
  creationTime: Long;
  expirationTime: Long;
  hits: Long;
  lastAccessTime: Long;
  lastStoredTime: Long;
  lastUpdateTime: Long;
  version: Long;
  ttl: Long;
  maxIdle: Long;
}
const n = (l: Long): number => Number(l.toString());

// The client's own copy of `long` (its dependency, not ours): what it reads a Java Long as.
const ClientLong = createRequire(createRequire(import.meta.url).resolve('hazelcast-client'))('long') as { fromNumber(n: number): Long; isLong(v: unknown): boolean };

/** A key as its type and value, to compare keySets across key types. */
function describeKey(k: unknown): string {
  if (ClientLong.isLong(k)) return `long:${String(k)}`;
  if (Buffer.isBuffer(k)) return `bytes:${k.toString('hex')}`;
  if (typeof k === 'object' && k !== null) return `json:${JSON.stringify(k)}`;
  return `${typeof k}:${String(k)}`;
}

export interface Scenario {
  readonly name: string;
  run(t: ScenarioTarget): Promise<void>;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'map put/get/set/containsKey/size/remove/delete/clear',
    async run(t) {
      const m = await t.client.getMap<string, string>('cm1');
      expect(await m.put('k1', 'v1')).toBeNull();
      expect(await m.get('k1')).toBe('v1');
      expect(await m.put('k1', 'v2')).toBe('v1');
      await m.set('k2', 'héllo');
      expect(await m.get('k2')).toBe('héllo');
      expect(await m.containsKey('k1')).toBe(true);
      expect(await m.containsKey('nope')).toBe(false);
      expect(await m.get('nope')).toBeNull();
      expect(await m.size()).toBe(2);
      expect(await m.isEmpty()).toBe(false);
      expect(await m.remove('k1')).toBe('v2');
      expect(await m.remove('k1')).toBeNull();
      await m.delete('k2');
      expect(await m.size()).toBe(0);
      await m.set('a', '1');
      await m.set('b', '2');
      await m.clear();
      expect(await m.size()).toBe(0);
      expect(await m.isEmpty()).toBe(true);
    },
  },
  {
    name: 'keeps byte arrays, JSON and other types as written',
    async run(t) {
      const m = await t.client.getMap<string, unknown>('cm2');
      await m.set('buf', Buffer.from([0, 1, 2, 255]));
      expect(Buffer.compare((await m.get('buf')) as Buffer, Buffer.from([0, 1, 2, 255]))).toBe(0);
      await m.set('json', { a: 1, b: ['x'] });
      expect(await m.get('json')).toEqual({ a: 1, b: ['x'] });
      await m.set('num', 1.5);
      expect(await m.get('num')).toBe(1.5);
      await m.set('bool', true);
      expect(await m.get('bool')).toBe(true);
    },
  },
  {
    name: 'keys of any type (Long, Double, byte[], JSON, boolean) are distinct entries compared by their serialized form; a String key is the one REST names',
    async run(t) {
      const m = await t.client.getMap<unknown, string>('ck1');
      const keys: [unknown, string][] = [
        [ClientLong.fromNumber(7), 'long'],
        [7, 'double'],
        ['7', 'string'],
        [Buffer.from([0, 7]), 'bytes'],
        [{ id: 7 }, 'json'],
        [true, 'bool'],
      ];
      for (const [k, v] of keys) expect(await m.put(k, v)).toBeNull();
      expect(await m.size()).toBe(6);
      for (const [k, v] of keys) expect(await m.get(k)).toBe(v);
      // An equal copy is the same key (Hazelcast compares keys by their serialized bytes).
      expect(await m.get(Buffer.from([0, 7]))).toBe('bytes');
      expect(await m.containsKey({ id: 7 })).toBe(true);
      expect(await m.containsKey(ClientLong.fromNumber(8))).toBe(false);
      expect((await m.keySet()).map(describeKey).sort()).toEqual(['boolean:true', 'bytes:0007', 'json:{"id":7}', 'long:7', 'number:7', 'string:7']);
      expect((await m.entrySet()).map(([k, v]) => `${describeKey(k)}=${v}`).sort()).toEqual(['boolean:true=bool', 'bytes:0007=bytes', 'json:{"id":7}=json', 'long:7=long', 'number:7=double', 'string:7=string']);
      expect(await m.putIfAbsent(7, 'x')).toBe('double');
      expect(await m.replace(ClientLong.fromNumber(7), 'long2')).toBe('long');
      expect(await m.replaceIfSame(Buffer.from([0, 7]), 'bytes', 'bytes2')).toBe(true);
      expect(await m.remove({ id: 7 }, 'nope')).toBe(false);
      expect(await m.remove(true)).toBe('bool');
      await m.delete({ id: 7 });
      await m.putAll([[ClientLong.fromNumber(9), 'nine'], [Buffer.from([9]), 'b9']]);
      expect((await m.getAll([ClientLong.fromNumber(7), ClientLong.fromNumber(9), Buffer.from([9]), 7, 'none'])).map(([k, v]) => `${describeKey(k)}=${v}`).sort()).toEqual([
        'bytes:09=b9',
        'long:7=long2',
        'long:9=nine',
        'number:7=double',
      ]);
      expect(await m.size()).toBe(6);
      // REST names the String key "7" only.
      const got = await restGet(t, '/hazelcast/rest/maps/ck1/7');
      expect([got.status, got.contentType, got.bytes.toString('utf8')]).toEqual([200, 'text/plain', 'string']);
      await m.clear();
      expect(await m.size()).toBe(0);
    },
  },
  {
    name: 'a string written by the client is text/plain over REST, and REST values reach the client as RestValue',
    async run(t) {
      const m = await t.client.getMap<string, unknown>('cm3');
      await m.set('s', 'from-client');
      const got = await restGet(t, '/hazelcast/rest/maps/cm3/s');
      expect([got.status, got.contentType, got.bytes.toString('utf8')]).toEqual([200, 'text/plain', 'from-client']);

      await m.set('b', Buffer.from([0xff, 0x00, 0x80]));
      const bin = await restGet(t, '/hazelcast/rest/maps/cm3/b');
      expect([bin.contentType, bin.bytes.toString('hex')]).toEqual(['application/binary', 'ff0080']);
      await m.set('j', { k: 'v' });
      const json = await restGet(t, '/hazelcast/rest/maps/cm3/j');
      expect(json.contentType).toBe('application/json');
      expect(JSON.parse(json.bytes.toString('utf8'))).toEqual({ k: 'v' });
      // Any other type: the whole serialized Data (Node number -> Double).
      await m.set('n', 1);
      const num = await restGet(t, '/hazelcast/rest/maps/cm3/n');
      expect([num.contentType, num.bytes.toString('hex')]).toEqual(['application/binary', '00000000fffffff63ff0000000000000']);

      expect(await restPost(t, '/hazelcast/rest/maps/cm3/r1', 'hello', 'text/plain')).toBe(200);
      const rv = (await m.get('r1')) as { value: string; contentType: string | null };
      expect({ value: rv.value, contentType: rv.contentType }).toEqual({ value: 'hello', contentType: 'text/plain' });
    },
  },
  {
    name: 'queue offer/peek/size/poll, and a poll that waits for an item offered over REST',
    async run(t) {
      const q = await t.client.getQueue<string>('cq1');
      expect(await q.offer('a')).toBe(true);
      expect(await q.offer('b')).toBe(true);
      expect(await q.size()).toBe(2);
      expect(await q.peek()).toBe('a');
      expect(await q.poll()).toBe('a');
      expect(await q.poll()).toBe('b');
      expect(await q.poll()).toBeNull();
      expect(await q.peek()).toBeNull();
      expect(await q.isEmpty()).toBe(true);
      expect(await q.poll(50)).toBeNull();

      const waiting = q.poll(10_000);
      // The item comes over REST while the client's poll waits at the member.
      expect(await restPost(t, '/hazelcast/rest/queues/cq1', 'late', 'text/plain')).toBe(200);
      const item = (await waiting) as unknown as { value: string; contentType: string };
      expect([item.value, item.contentType]).toEqual(['late', 'text/plain']);
      expect(await q.size()).toBe(0);

      await q.offer('to-rest');
      const polled = await restGet(t, '/hazelcast/rest/queues/cq1/1');
      expect([polled.status, polled.contentType, polled.bytes.toString('utf8')]).toEqual([200, 'text/plain', 'to-rest']);
    },
  },
  {
    name: 'map putIfAbsent/replace/replaceIfSame/removeIfSame/putTransient/tryPut/tryRemove/putAll/getAll/setTtl',
    async run(t) {
      const m = await t.client.getMap<string, string>('cm5');
      expect(await m.put('a', 'v1')).toBeNull();
      expect(await m.putIfAbsent('a', 'x')).toBe('v1'); // present: what it found, nothing written
      expect(await m.putIfAbsent('b', 'x')).toBeNull();
      expect(await m.putIfAbsent('c', 'x', 60_000)).toBeNull();
      expect(await m.replace('none', 'y')).toBeNull(); // absent: nothing written
      expect(await m.containsKey('none')).toBe(false);
      expect(await m.replace('b', 'y')).toBe('x');
      expect(await m.replaceIfSame('none', 'x', 'y')).toBe(false);
      expect(await m.containsKey('none')).toBe(false);
      expect(await m.replaceIfSame('b', 'x', 'z')).toBe(false);
      expect(await m.replaceIfSame('b', 'y', 'z')).toBe(true);
      expect(await m.get('b')).toBe('z');
      expect(await m.remove('none', 'x')).toBe(false);
      expect(await m.remove('b', 'nope')).toBe(false);
      expect(await m.remove('b', 'z')).toBe(true);
      expect(await m.containsKey('b')).toBe(false);
      expect(await m.putTransient('tr', 'v', 60_000)).toBeUndefined();
      expect(await m.get('tr')).toBe('v');
      expect(await m.tryPut('tp', 'v', 100)).toBe(true);
      expect(await m.tryRemove('tp', 100)).toBe(true);
      expect(await m.tryRemove('tp', 100)).toBe(false);
      // putAll answers nothing; getAll leaves out the keys it did not find, in no set order.
      expect(await m.putAll([['p1', '1'], ['p2', '2']])).toBeUndefined();
      expect(await m.putAll([])).toBeUndefined();
      expect(new Map(await m.getAll(['p1', 'p2', 'absent']))).toEqual(new Map([['p1', '1'], ['p2', '2']]));
      expect(await m.getAll([])).toEqual([]);
      expect(await m.setTtl('missing', 5_000)).toBe(false);
      expect(await m.containsKey('missing')).toBe(false);
      expect(await m.setTtl('a', 60_000)).toBe(true);
      expect(await m.size()).toBe(5); // a, c, tr, p1, p2
    },
  },
  {
    name: 'map getEntryView: version, ttl/maxIdle (0 and -1: none), expiration, and the statistics a map without per-entry stats has',
    async run(t) {
      const m = await t.client.getMap<string, string>('cm6');
      const view = async (k: string): Promise<View> => (await m.getEntryView(k)) as unknown as View;
      expect(await m.getEntryView('missing')).toBeNull();
      await m.set('k', 'a');
      const v0 = await view('k');
      // Per-entry statistics are off by default (Hazelcast's per-entry-stats-enabled): -1 is "not kept".
      expect([v0.value, n(v0.version), n(v0.creationTime), n(v0.hits), n(v0.lastAccessTime), n(v0.lastStoredTime), n(v0.lastUpdateTime)]).toEqual(['a', 0, -1, -1, -1, -1, -1]);
      expect([v0.ttl.toString(), v0.maxIdle.toString(), v0.expirationTime.toString()]).toEqual([LONG_MAX, LONG_MAX, LONG_MAX]);
      // The cost is the member's own estimate of the entry's memory (differs between members: docs/clients.md).
      expect(n(v0.cost)).toBeGreaterThan(0);
      // Reads count no hits without statistics.
      await m.get('k');
      expect(n((await view('k')).hits)).toBe(-1);
      await m.put('k', 'b');
      expect(n((await view('k')).version)).toBe(1);
      // A failed condition changes nothing; setTtl counts as an update of the record.
      expect(await m.replaceIfSame('k', 'not it', 'c')).toBe(false);
      expect(await m.putIfAbsent('k', 'c')).toBe('b');
      expect(n((await view('k')).version)).toBe(1);
      const before = Date.now();
      expect(await m.setTtl('k', 60_000)).toBe(true);
      const after = Date.now();
      const vt = await view('k');
      expect([n(vt.version), vt.ttl.toString(), vt.maxIdle.toString()]).toEqual([2, '60000', LONG_MAX]);
      // Hazelcast keeps these times to the second (rounded down): the bounds allow it.
      expect(n(vt.lastUpdateTime)).toBeGreaterThanOrEqual(before - 1_000);
      expect(n(vt.lastUpdateTime)).toBeLessThanOrEqual(after);
      expect(n(vt.expirationTime)).toBe(n(vt.lastUpdateTime) + 60_000);
      // TTL 0: none (over the entry's); -1: the map's (none here): both show LONG_MAX.
      expect(await m.setTtl('k', 0)).toBe(true);
      const vz = await view('k');
      expect([n(vz.version), vz.ttl.toString(), vz.expirationTime.toString(), n(vz.lastUpdateTime)]).toEqual([3, LONG_MAX, LONG_MAX, -1]);
      for (const [key, ttl] of [['t0', 0], ['tm1', -1]] as const) {
        await m.set(key, 'v', ttl);
        const v = await view(key);
        expect([key, n(v.version), v.ttl.toString(), v.expirationTime.toString()]).toEqual([key, 0, LONG_MAX, LONG_MAX]);
      }
      // TTL and max-idle: the earlier deadline is the expiration.
      const b2 = Date.now();
      await m.set('ti', 'v', 60_000, 30_000);
      const a2 = Date.now();
      const vi = await view('ti');
      expect([vi.ttl.toString(), vi.maxIdle.toString(), n(vi.lastAccessTime)]).toEqual(['60000', '30000', -1]);
      expect(n(vi.expirationTime)).toBeGreaterThanOrEqual(b2 - 1_000 + 30_000);
      expect(n(vi.expirationTime)).toBeLessThanOrEqual(a2 + 30_000);
      // A removed and re-created entry starts again at version 0.
      await m.delete('k');
      expect(await m.getEntryView('k')).toBeNull();
      await m.set('k', 'e');
      expect(n((await view('k')).version)).toBe(0);
      // A 1 ms TTL: gone at the next read past it.
      await m.set('short', 'v', 1);
      await waitFor('the 1 ms TTL entry to expire', async () => ((await m.get('short')) === null ? true : undefined), 10_000);
      expect(await m.getEntryView('short')).toBeNull();
    },
  },
  {
    name: 'queue put/take/addAll/contains/remove/toArray/drainTo (FIFO, with a limit)/remainingCapacity/clear/offer with timeout',
    async run(t) {
      const q = await t.client.getQueue<string>('cq2');
      expect(await q.remainingCapacity()).toBe(INT_MAX);
      expect(await q.offer('a')).toBe(true);
      expect(await q.put('b')).toBeUndefined();
      expect(await q.addAll(['c', 'd', 'c'])).toBe(true);
      expect(await q.addAll([])).toBe(true);
      expect(await q.size()).toBe(5);
      // Unbounded: Integer.MAX_VALUE less what it holds.
      expect(await q.remainingCapacity()).toBe(INT_MAX - 5);
      expect([await q.contains('d'), await q.contains('zz'), await q.containsAll(['c', 'd']), await q.containsAll(['c', 'zz'])]).toEqual([true, false, true, false]);
      expect(await q.remove('c')).toBe(true); // the first 'c' only
      expect(await q.remove('zz')).toBe(false);
      expect(await q.toArray()).toEqual(['a', 'b', 'd', 'c']);
      const first = ['pre'];
      expect(await q.drainTo(first, 2)).toBe(2);
      expect(first).toEqual(['pre', 'a', 'b']);
      const rest: string[] = [];
      expect(await q.drainTo(rest)).toBe(2);
      expect(rest).toEqual(['d', 'c']);
      expect(await q.drainTo(rest)).toBe(0);
      expect(await q.offer('x', 100)).toBe(true);
      expect(await q.take()).toBe('x');
      // A take that waits is answered by an offer on the same connection.
      const taking = q.take();
      expect(await q.offer('late')).toBe(true);
      expect(await taking).toBe('late');
      expect(await q.addAll(['1', '2'])).toBe(true);
      expect(await q.clear()).toBeUndefined();
      expect([await q.size(), await q.isEmpty(), await q.peek()]).toEqual([0, true, null]);
    },
  },
  {
    name: 'an atomic long without a CP subsystem is refused with UnsupportedOperationError',
    async run(t) {
      // Hazelcast 5.7 open source has no CP subsystem (Enterprise); Grid has one only with cp-member-count > 0.
      const outcome = await t.client
        .getCPSubsystem()
        .getAtomicLong('no-cp')
        .then(
          () => 'created',
          (e: Error) => e.constructor.name,
        );
      expect(outcome).toBe('UnsupportedOperationError');
    },
  },
  {
    name: 'refuses a wrong cluster name: the client cannot connect',
    async run(t) {
      const failing = Client.newHazelcastClient(clientOptions(t.address, `not-${t.clusterName}`, { connectTimeoutMs: 1_000 }));
      // A client that did connect (the refusal broken) is shut down, so the failure is reported, not hung.
      const outcome = await failing.then(
        async (connected) => {
          await connected.shutdown();
          return 'connected';
        },
        (e: Error) => e.message,
      );
      expect(outcome).toMatch(/Unable to connect to any cluster/);
    },
  },
];

/**
 * Scenarios that need a CP subsystem (3 CP members): run against Grid with CP on and against
 * Hazelcast 5.4.0 with CP on (5.7.0 open source has no CP) in `npm run test:reference-long`
 * (test/reference/client-cp.long.ts), and against Grid in queue-cp.test.ts.
 */
export const CP_SCENARIOS: readonly Scenario[] = [
  {
    name: 'atomic long get/set/incrementAndGet/addAndGet/getAndAdd/compareAndSet/getAndSet/decrementAndGet/getAndIncrement, on the default and a named group',
    async run(t) {
      for (const name of ['sal1', 'sal2@other']) {
        const al = await t.client.getCPSubsystem().getAtomicLong(name);
        const got: (number | boolean | null | undefined)[] = [];
        const num = async (p: Promise<Long>): Promise<void> => {
          got.push(n(await p));
        };
        await num(al.get());
        await num(al.incrementAndGet());
        await num(al.addAndGet(5));
        await num(al.getAndAdd(2));
        got.push(await al.compareAndSet(1, 9));
        got.push(await al.compareAndSet(8, 9));
        await num(al.getAndSet(-3));
        await num(al.decrementAndGet());
        await num(al.getAndIncrement());
        await num(al.getAndDecrement());
        got.push((await al.set(2 ** 40)) ?? null);
        await num(al.get());
        await num(al.addAndGet(-(2 ** 40)));
        expect([name, got]).toEqual([name, [0, 1, 6, 6, false, true, 9, -4, -4, -3, null, 2 ** 40, 0]]);
      }
    },
  },
  {
    name: 'atomic longs: concurrent increments from one client all count, compareAndSet races have one winner',
    async run(t) {
      const al = await t.client.getCPSubsystem().getAtomicLong('sal3');
      await Promise.all(Array.from({ length: 50 }, () => al.incrementAndGet()));
      expect(n(await al.get())).toBe(50);
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => al.compareAndSet(50, 100 + i)));
      expect(wins.filter((w) => w)).toHaveLength(1);
      expect(n(await al.get())).toBe(100 + wins.indexOf(true));
    },
  },
];
