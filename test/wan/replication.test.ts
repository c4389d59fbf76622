// WAN replication between two real clusters on loopback, through REST (and keys of other
// types than String from the Node.js client): puts, updates,
// removes and clears of a replicated map reach the target with their bytes and Content-Type; a
// map without wan-replication-ref stays home; and under concurrent writers every key ends at
// its last value on the target without ever going backwards.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Client, type ClientConfig } from 'hazelcast-client';
import { holdsFor, type Cluster } from '../support/cluster.js';
import {
  configOf,
  del,
  endpointsOf,
  get,
  getRaw,
  put,
  putRaw,
  replicatedMap,
  reserveCluster,
  launch,
  startWanCluster,
  sumOf,
  waitForEntries,
  wanReplication,
  wanStatus,
} from '../support/wan.js';
import { waitFor } from '../support/process.js';

const REP = 'to-b';
// The client's own copy of `long` (its dependency, not ours).
const ClientLong = createRequire(createRequire(import.meta.url).resolve('hazelcast-client'))('long') as { fromNumber(n: number): unknown };

/** A default smart client of cluster `c` (cluster name and member addresses only). */
function clientOf(c: Cluster): ClientConfig {
  return { clusterName: c.clusterName, network: { clusterMembers: c.live().map((m) => m.address) }, properties: { 'hazelcast.logging.level': 'OFF' } };
}

/** A source (2 members) replicating maps `rep*` to a target B (2 members). */
async function twoClusters(): Promise<{ a: Awaited<ReturnType<typeof startWanCluster>>; b: Awaited<ReturnType<typeof startWanCluster>> }> {
  const b = await reserveCluster('B', 2);
  const a = await reserveCluster('A', 2, () =>
    configOf(wanReplication(REP, { clusterName: 'B', publisherId: 'b', endpoints: endpointsOf(b) }), replicatedMap('rep*', REP)),
  );
  await Promise.all([launch(a, 2), launch(b, 2)]);
  return { a, b };
}

describe('WAN replication A -> B', () => {
  it('replicates puts, updates, removes and clears with bytes and Content-Type; a map without wan-replication-ref stays home', async () => {
    const { a, b } = await twoClusters();

    // GET /rest/wan on every source member lists the publisher, replicating to B.
    for (const m of a.members) {
      const list = await wanStatus(a, m.index);
      const p = list.find((x) => x.wanReplicationName === REP && x.publisherId === 'b');
      expect(p, JSON.stringify(list)).toBeDefined();
      expect(p?.state).toBe('REPLICATING');
      expect(p?.targetClusterName).toBe('B');
    }

    const binary = Buffer.alloc(512);
    for (let i = 0; i < 512; i++) binary[i] = i < 256 ? i : 511 - i;
    const odd = Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x00, 0xe2, 0x82, 0xed, 0xa0, 0x80]);
    // Through both source members, so both publishers (and both owners' queues) are used.
    await put(a, 0, 'rep', 'text', 'hello', 'text/plain');
    await put(a, 1, 'rep', 'json', '{"qty":3}', 'application/json; charset=utf-8');
    expect(await putRaw(a, 0, 'rep', 'bin', binary, 'application/octet-stream')).toBe(200);
    expect(await putRaw(a, 1, 'rep', 'odd', odd, 'image/x-odd')).toBe(200);
    expect(await putRaw(a, 0, 'rep', 'untyped', Buffer.from('no type'), undefined)).toBe(200);
    const many = new Map<string, string>();
    for (let n = 0; n < 60; n++) many.set(`k${n}`, `value-${n}`);
    for (const [k, v] of many) await put(a, n2(k) % 2, 'rep', k, v);
    // The control: a map without wan-replication-ref.
    for (let n = 0; n < 20; n++) await put(a, n % 2, 'plain', `p${n}`, `plain-${n}`);
    let mutations = 5 + many.size;
    // Keys a Hazelcast client wrote as other types than String (a Long, a byte[]): replicated
    // as their serialized form, placed on B where a client of B looks for them.
    const clientA = await Client.newHazelcastClient(clientOf(a));
    const typed: [unknown, string][] = Array.from({ length: 20 }, (_, n) => [n % 2 === 0 ? ClientLong.fromNumber(n) : Buffer.from([n, 0xff]), `typed-${n}`]);
    try {
      const ma = await clientA.getMap<unknown, string>('rep');
      for (const [k, v] of typed) await ma.set(k, v);
    } finally {
      await clientA.shutdown();
    }
    mutations += typed.length;

    // Everything arrives, read through either target member.
    await waitForEntries(b, 0, 'rep', many);
    for (const i of [0, 1]) {
      await waitFor(`the typed entries on B member ${i}`, async () => (await getRaw(b, i, 'rep', 'untyped')).status === 200, 10_000, 50);
      const text = await getRaw(b, i, 'rep', 'text');
      expect({ status: text.status, type: text.contentType, body: text.body.toString('latin1') }).toEqual({ status: 200, type: 'text/plain', body: 'hello' });
      const json = await getRaw(b, i, 'rep', 'json');
      expect({ status: json.status, type: json.contentType, body: json.body.toString('latin1') }).toEqual({
        status: 200,
        type: 'application/json; charset=utf-8',
        body: '{"qty":3}',
      });
      const bin = await getRaw(b, i, 'rep', 'bin');
      expect(bin.status).toBe(200);
      expect(bin.contentType).toBe('application/octet-stream');
      expect(bin.body.equals(binary), `binary value on B member ${i}: ${bin.body.length} bytes`).toBe(true);
      const o = await getRaw(b, i, 'rep', 'odd');
      expect(o.contentType).toBe('image/x-odd');
      expect(o.body.equals(odd)).toBe(true);
      const u = await getRaw(b, i, 'rep', 'untyped');
      expect({ status: u.status, type: u.contentType, body: u.body.toString('latin1') }).toEqual({ status: 200, type: undefined, body: 'no type' });
    }

    // Updates (a new Content-Type too; and typed -> untyped), removes, a remove of a missing key
    // (no mutation, no event), and a clear of another replicated map.
    await put(a, 1, 'rep', 'text', '<b>hello again</b>', 'text/html');
    expect(await putRaw(a, 0, 'rep', 'json', Buffer.from('now untyped'), undefined)).toBe(200);
    await del(a, 0, 'rep', 'bin');
    await del(a, 1, 'rep', 'k7');
    await del(a, 0, 'rep', 'never-there');
    mutations += 4;
    const cleared = new Map<string, string>();
    for (let n = 0; n < 12; n++) cleared.set(`c${n}`, `c-${n}`);
    for (const [k, v] of cleared) await put(a, 0, 'rep-cleared', k, v);
    mutations += cleared.size;
    await waitForEntries(b, 1, 'rep-cleared', cleared);
    await del(a, 1, 'rep-cleared');
    mutations += cleared.size; // a clear is one remove per entry it removed

    await waitForEntries(b, 0, 'rep-cleared', new Map([...cleared.keys()].map((k) => [k, null])));
    await waitForEntries(b, 1, 'rep', new Map<string, string | null>([['bin', null], ['k7', null]]));
    await waitFor('the update of "text" on B', async () => (await getRaw(b, 1, 'rep', 'text')).body.toString() === '<b>hello again</b>', 10_000, 50);
    for (const i of [0, 1]) {
      const t = await getRaw(b, i, 'rep', 'text');
      expect({ type: t.contentType, body: t.body.toString() }).toEqual({ type: 'text/html', body: '<b>hello again</b>' });
      await waitFor(`the untyped update of "json" on B member ${i}`, async () => (await getRaw(b, i, 'rep', 'json')).body.toString() === 'now untyped', 10_000, 50);
      const j = await getRaw(b, i, 'rep', 'json');
      expect(j.contentType, 'an update without Content-Type replaces the stored one').toBeUndefined();
    }
    const rest = new Map(many);
    rest.delete('k7');
    await waitForEntries(b, 0, 'rep', rest);

    const clientB = await Client.newHazelcastClient(clientOf(b));
    try {
      const mb = await clientB.getMap<unknown, string>('rep');
      await waitFor('the typed keys on B', async () => {
        for (const [k, v] of typed) if ((await mb.get(k)) !== v) return false;
        return true;
      }, 10_000, 50);
    } finally {
      await clientB.shutdown();
    }
    // The map without wan-replication-ref never reaches B (everything replicated after it did).
    for (let n = 0; n < 20; n++) expect((await get(b, n % 2, 'plain', `p${n}`)).status, `plain/p${n} on B`).toBe(204);
    // One event per mutation of a replicated map, none for `plain` or the missing key's remove.
    expect(await sumOf(a, REP, 'b', 'eventsQueued')).toBe(mutations);
    // Everything was acknowledged: the queues drain.
    await waitFor(
      'the source queues to drain',
      async () => (await sumOf(a, REP, 'b', 'primaryQueueSize')) === 0 && (await sumOf(a, REP, 'b', 'eventsAcknowledged')) >= mutations,
      10_000,
      50,
    );
    // B publishes nothing (it has no WAN config).
    for (const m of b.members) expect(await wanStatus(b, m.index)).toEqual([]);
  }, 60_000);

  it('keeps per-key order under concurrent writers: each key ends at its last value and never goes backwards', async () => {
    const { a, b } = await twoClusters();
    const WRITERS = 6;
    const KEYS_PER_WRITER = 3;
    const ROUNDS = 40;
    const keys = Array.from({ length: WRITERS * KEYS_PER_WRITER }, (_, n) => `ord-${n}`);

    // The sampler reads every key on B over and over; a value lower than one seen before is a violation.
    const seen = new Map<string, number>();
    const violations: string[] = [];
    let sampling = true;
    let samples = 0;
    const sampler = (async () => {
      while (sampling) {
        for (const k of keys) {
          const r = await get(b, samples % 2, 'rep-order', k);
          samples++;
          if (r.status !== 200) continue;
          const v = Number(r.body);
          const before = seen.get(k) ?? 0;
          if (v < before) violations.push(`${k}: read ${v} on B after ${before}`);
          else seen.set(k, v);
        }
      }
    })();

    // Each writer owns its keys and writes 1..ROUNDS to each in turn, alternating source members.
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const mine = keys.slice(w * KEYS_PER_WRITER, (w + 1) * KEYS_PER_WRITER);
        for (let v = 1; v <= ROUNDS; v++) {
          for (const k of mine) await put(a, (v + w) % 2, 'rep-order', k, String(v));
        }
      }),
    );
    const final = new Map(keys.map((k) => [k, String(ROUNDS)]));
    await waitForEntries(b, 0, 'rep-order', final, 20_000);
    await waitForEntries(b, 1, 'rep-order', final, 5_000);
    sampling = false;
    await sampler;
    expect(violations).toEqual([]);
    // The sampler saw values in between (the check had something to check).
    expect(samples).toBeGreaterThan(keys.length * 3);
    // And the final state holds (no late, older event lands afterwards).
    await holdsFor('every key at its last value on B', 1_000, async () => {
      const wrong = [];
      for (const k of keys) {
        const r = await get(b, 0, 'rep-order', k);
        if (r.body !== String(ROUNDS)) wrong.push(`${k}=${r.status}:${r.body}`);
      }
      return wrong.length ? wrong.join(', ') : undefined;
    });
  }, 60_000);
});

/** A number from a key's digits (spreads keys over the source members). */
function n2(key: string): number {
  return Number(key.replace(/\D/g, '')) || 0;
}
