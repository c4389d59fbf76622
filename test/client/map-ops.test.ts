// The map operations beyond get/put for the official Node.js client (hazelcast-client 5.7.0,
// unchanged, smart routing) against one shared cluster of 3 real Grid members: each
// operation's answers, putIfAbsent/replaceIfSame races between clients on different members
// (exactly one winner, decided on the owner), entry versions through getEntryView, and a
// per-entry TTL that ends at the same deadline on the owner and, after the owner's SIGKILL,
// on the promoted backup. The kill is the last test of the file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/wait.js';

let c: Cluster;
/** One client per member, each first connected to its own member. */
let clients: Client[] = [];

type View = { version: { toNumber(): number }; expirationTime: { toNumber(): number; toString(): string }; ttl: { toString(): string }; value: unknown } | null;

beforeAll(async () => {
  c = await startCluster({ size: 3, spare: 0, scope: 'file' });
  clients = await Promise.all(
    [0, 1, 2].map((i) =>
      Client.newHazelcastClient({
        clusterName: 'dev',
        network: { clusterMembers: [c.member(i).address] },
        properties: { 'hazelcast.logging.level': 'OFF' },
      }),
    ),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((x) => x.shutdown()));
  await c?.destroy();
});

describe('map operations of hazelcast-client 5.7.0 on 3 Grid members', () => {
  it('put/remove return the old value; putIfAbsent, replace, the if-same forms, tryPut/tryRemove, setTtl answer as Hazelcast', async () => {
    const m = await clients[0]!.getMap<string, unknown>('ops');
    expect(await m.put('a', 'v1')).toBeNull();
    expect(await m.put('a', 'v2')).toBe('v1');
    expect(await m.putIfAbsent('a', 'x')).toBe('v2'); // present: the value it found, nothing written
    expect(await m.putIfAbsent('b', 'x')).toBeNull(); // absent: put
    expect(await m.get('b')).toBe('x');
    expect(await m.replace('none', 'y')).toBeNull(); // absent: nothing written
    expect(await m.containsKey('none')).toBe(false);
    expect(await m.replace('b', 'y')).toBe('x');
    expect(await m.replaceIfSame('b', 'x', 'z')).toBe(false);
    expect(await m.replaceIfSame('b', 'y', 'z')).toBe(true);
    expect(await m.get('b')).toBe('z');
    expect(await m.remove('b', 'nope')).toBe(false); // removeIfSame
    expect(await m.remove('b', 'z')).toBe(true);
    expect(await m.containsKey('b')).toBe(false);
    expect(await m.remove('a')).toBe('v2');
    expect(await m.remove('a')).toBeNull();
    expect(await m.tryPut('t', 'v', 1000)).toBe(true);
    expect(await m.tryRemove('t', 1000)).toBe(true);
    expect(await m.tryRemove('t', 1000)).toBe(false);
    // Values compare by their serialized form: the number 1 (a Double) is not the string '1'.
    await m.set('n', 1);
    expect(await m.replaceIfSame('n', '1', 2)).toBe(false);
    expect(await m.replaceIfSame('n', 1, 2)).toBe(true);
    expect(await m.get('n')).toBe(2);
    // Objects (JSON) and Buffers too.
    await m.set('o', { a: 1 });
    expect(await m.remove('o', { a: 1 })).toBe(true);
    await m.set('buf', Buffer.from([1, 2, 3]));
    expect(await m.replaceIfSame('buf', Buffer.from([1, 2, 4]), 'no')).toBe(false);
    expect(await m.replaceIfSame('buf', Buffer.from([1, 2, 3]), 'yes')).toBe(true);
    // setTtl: true only for an entry that exists.
    expect(await m.setTtl('missing', 5000)).toBe(false);
    await m.set('s', 'v');
    expect(await m.setTtl('s', 60_000)).toBe(true);
    const view = (await m.getEntryView('s')) as View;
    expect(view!.expirationTime.toNumber()).toBeGreaterThan(Date.now() + 50_000);
    // A REST write and a client's conditional write meet on the same entry.
    expect((await c.http(1, 'POST', '/hazelcast/rest/maps/ops/r', 'hello', { contentType: 'text/plain' })).status).toBe(200);
    expect(await m.putIfAbsent('r', 'client')).toMatchObject({ value: 'hello', contentType: 'text/plain' });
  });

  it('putAll runs each entry on its owner and answers once all are applied; getAll returns the found ones', async () => {
    const m = await clients[1]!.getMap<string, string>('bulk');
    const entries: [string, string][] = [];
    for (let i = 0; i < 200; i++) entries.push([`k${i}`, `v${i}`]);
    await m.putAll(entries);
    expect(await m.size()).toBe(200);
    // Read back through another member's client and REST.
    const other = await clients[2]!.getMap<string, string>('bulk');
    const got = await other.getAll([...entries.map(([k]) => k), 'absent1', 'absent2']);
    expect(new Map(got)).toEqual(new Map(entries));
    const r = await c.http(0, 'GET', '/hazelcast/rest/maps/bulk/k77');
    expect([r.status, r.body]).toEqual([200, 'v77']);
  });

  it('putIfAbsent and replaceIfSame races between clients on different members: exactly one winner per key', async () => {
    const maps = await Promise.all(clients.map((x) => x.getMap<string, string>('race')));
    const keys = Array.from({ length: 40 }, (_, i) => `r${i}`);
    // putIfAbsent: every client tries every key at once, several times each.
    const attempts = await Promise.all(keys.flatMap((k) => maps.flatMap((m, ci) => [0, 1].map(async (j) => ({ k, me: `c${ci}.${j}`, got: await m.putIfAbsent(k, `c${ci}.${j}`) })))));
    for (const k of keys) {
      const mine = attempts.filter((a) => a.k === k);
      const winners = mine.filter((a) => a.got === null);
      expect([k, winners.length]).toEqual([k, 1]);
      const winner = winners[0]!.me;
      // Every loser was answered with the winner's value, which is what the map holds.
      expect(mine.filter((a) => a.got !== null).every((a) => a.got === winner)).toBe(true);
      expect(await maps[0]!.get(k)).toBe(winner);
    }
    // replaceIfSame from the value all of them read: one replaces, the others find it changed.
    const before = new Map(await Promise.all(keys.map(async (k) => [k, (await maps[1]!.get(k))!] as const)));
    const swaps = await Promise.all(keys.flatMap((k) => maps.map(async (m, ci) => ({ k, me: `s${ci}`, ok: await m.replaceIfSame(k, before.get(k)!, `s${ci}`) }))));
    for (const k of keys) {
      const won = swaps.filter((s) => s.k === k && s.ok);
      expect([k, won.length]).toEqual([k, 1]);
      expect(await maps[2]!.get(k)).toBe(won[0]!.me);
    }
  });

  it('getEntryView shows the version: 0 when created, +1 per update and per TTL change (as Hazelcast), unchanged by failed conditions', async () => {
    const m = await clients[2]!.getMap<string, string>('versions');
    const version = async (k: string): Promise<number> => ((await m.getEntryView(k)) as View)!.version.toNumber();
    await m.set('k', 'a');
    expect(await version('k')).toBe(0);
    await m.set('k', 'b');
    await m.put('k', 'a longer value than before');
    expect(await version('k')).toBe(2);
    expect(await m.replaceIfSame('k', 'not it', 'c')).toBe(false);
    expect(await m.putIfAbsent('k', 'c')).not.toBeNull();
    expect(await version('k')).toBe(2);
    await m.setTtl('k', 120_000);
    expect(await version('k')).toBe(3);
    expect(await m.replace('k', 'd')).toBe('a longer value than before');
    expect(await version('k')).toBe(4);
    // A removed and re-created entry starts again at 0 (Hazelcast's record version).
    await m.delete('k');
    expect(await m.getEntryView('k')).toBeNull();
    await m.set('k', 'e');
    expect(await version('k')).toBe(0);
  });

  it('a TTL entry ends at its deadline on the owner', async () => {
    const m = await clients[0]!.getMap<string, string>('ttl1');
    await m.set('short', 'v', 1500);
    await m.set('forever', 'v', 0);
    const deadline = ((await m.getEntryView('short')) as View)!.expirationTime.toNumber();
    expect(await m.get('short')).toBe('v');
    const goneAt = await waitFor('the TTL entry to expire', async () => ((await m.get('short')) === null ? Date.now() : undefined), 10_000);
    expect(goneAt).toBeGreaterThanOrEqual(deadline);
    expect(((await m.getEntryView('forever')) as View)!.ttl.toString()).toBe('9223372036854775807');
    expect(await m.get('forever')).toBe('v');
  });

  it('after the owner is killed with SIGKILL, the promoted backup keeps the version and ends the entry at the same deadline', async () => {
    const m = await clients[0]!.getMap<string, string>('ttl2');
    // A key whose owner is not member 0 (its client stays connected to a survivor).
    const tables = await c.partitions(0);
    const ownerIndex = (k: string): number => c.live().find((x) => x.uuid === tables.partitions[partitionIdOf(k)]![0])!.index;
    const key = Array.from({ length: 100 }, (_, i) => `tk${i}`).find((k) => ownerIndex(k) !== 0)!;
    await m.set(key, 'first');
    await m.set(key, 'second', 12_000);
    const before = (await m.getEntryView(key)) as View;
    expect(before!.version.toNumber()).toBe(1);
    const deadline = before!.expirationTime.toNumber();
    await c.kill(ownerIndex(key));
    await c.waitSafe(30_000, 2);
    // The survivor that holds it now: same value, version and deadline.
    const after = await waitFor('an entry view from the promoted backup', async () => ((await m.getEntryView(key)) as View) ?? undefined, 30_000);
    expect(Date.now()).toBeLessThan(deadline); // the deadline is still ahead: what follows proves it holds there
    expect([after.value, after.version.toNumber(), after.expirationTime.toNumber()]).toEqual(['second', 1, deadline]);
    const goneAt = await waitFor('the TTL entry to expire on the new owner', async () => ((await m.get(key)) === null ? Date.now() : undefined), 30_000);
    expect(goneAt).toBeGreaterThanOrEqual(deadline);
    expect(goneAt).toBeLessThan(deadline + 3_000);
  }, 120_000);
});
