// The Node.js client's scenarios, written once and run against a Grid member
// (map-queue.test.ts) and against a real Hazelcast member (official-clients.test.ts), so each
// expectation here is Hazelcast's own. A scenario gets a connected client and the member's REST
// surface; a new operation is one more entry (or one more line in an entry).

import { expect } from 'vitest';
import { Client } from 'hazelcast-client';

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
