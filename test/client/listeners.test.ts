// Map entry listeners of the official Node.js client (hazelcast-client 5.7.0, unchanged) on one
// shared 3-member Grid cluster: a smart client (it registers on each of its 3 connections,
// localOnly) and a unisocket client (one registration, cluster-wide), events from REST and
// client writes, with and without values, expiry, listener removal, and each event exactly once.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, UnsupportedOperationError, type EntryEvent, type EntryListener } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { openStream } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

let c: Cluster;
let smart: Client;
let uni: Client;

interface Seen {
  readonly type: string;
  readonly key: string;
  readonly value: unknown;
  readonly oldValue: unknown;
  readonly member: string | undefined;
}

/** A value as the test compares it: a REST-written one reaches a client as Hazelcast's RestValue (docs/clients.md). */
function shown(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && 'contentType' in v && 'value' in v) return `${String(v.contentType)}:${String(v.value)}`;
  return v;
}

/** A listener that records every event it gets. */
function recorder(): { events: Seen[]; listener: EntryListener<string, string> } {
  const events: Seen[] = [];
  const on = (type: string) => (e: EntryEvent<string, string>) =>
    events.push({ type, key: e.key, value: shown(e.value), oldValue: shown(e.oldValue), member: e.member?.uuid.toString() });
  return { events, listener: { added: on('added'), updated: on('updated'), removed: on('removed'), expired: on('expired'), evicted: on('evicted') } };
}

/** Member i's connection count as the client sees it. */
function connections(client: Client): number {
  return (client as unknown as { connectionManager: { getConnectionRegistry(): { getConnections(): unknown[] } } }).connectionManager.getConnectionRegistry().getConnections().length;
}

beforeAll(async () => {
  c = await startCluster({ size: 3, spare: 0, scope: 'file', config: () => ({ map: { 'ttl-*': { 'time-to-live-seconds': 1 } } }) });
  const options = (smartRouting: boolean): Parameters<typeof Client.newHazelcastClient>[0] => ({
    clusterName: 'dev',
    network: { clusterMembers: [c.member(0).address], smartRouting },
    properties: { 'hazelcast.logging.level': 'OFF' },
  });
  [smart, uni] = await Promise.all([Client.newHazelcastClient(options(true)), Client.newHazelcastClient(options(false))]);
  // A smart client registers its listeners on the connections it has: wait for all three.
  await waitFor('the smart client connected to every member', () => connections(smart) === 3, 20_000);
}, 90_000);

afterAll(async () => {
  await Promise.all([smart?.shutdown(), uni?.shutdown()]);
  await c?.destroy();
});

const KEYS = 60;

/**
 * Quiet: marker keys written after everything else (spread over every owner), waited for on
 * each recorder. Events reach a listener in order from each owner, so once the markers are
 * in, any duplicate of an earlier event would be too.
 */
async function settle(map: { set(k: string, v: string): Promise<void> }, recorders: { events: Seen[] }[], tag: string): Promise<void> {
  for (let i = 0; i < 20; i++) await map.set(`${tag}${i}`, 'marker');
  for (const r of recorders) await waitFor('the markers', () => r.events.filter((e) => e.key.startsWith(tag)).length >= 20, 20_000);
}
const real = (r: { events: Seen[] }, tag: string): Seen[] => r.events.filter((e) => !e.key.startsWith(tag));

describe('entry listeners of hazelcast-client 5.7.0 on 3 Grid members', () => {
  it('smart and unisocket clients get added/updated/removed exactly once, with values, from client and REST writes', async () => {
    const a = recorder();
    const b = recorder();
    const sm = await smart.getMap<string, string>('ev1');
    const um = await uni.getMap<string, string>('ev1');
    await sm.addEntryListener(a.listener, undefined, true);
    await um.addEntryListener(b.listener, undefined, true);
    // Keys spread over every member's partitions; writes from both clients and from REST on each member.
    for (let i = 0; i < KEYS; i++) await sm.set(`k${i}`, `v${i}`);
    for (let i = 0; i < KEYS; i += 2) expect((await c.http(i % 3, 'POST', `/hazelcast/rest/maps/ev1/k${i}`, `w${i}`, { contentType: 'text/plain' })).status).toBe(200);
    for (let i = 0; i < KEYS; i += 3) await um.remove(`k${i}`);
    const expected = KEYS + KEYS / 2 + KEYS / 3;
    await settle(sm, [a, b], 'mark-');
    const owners = new Set(c.members.map((m) => m.uuid));
    for (const r of [a, b]) {
      // Not one more (a duplicate from a second connection or a resent batch).
      expect(real(r, 'mark-').length).toBe(expected);
      const byKey = new Map<string, Seen[]>();
      for (const e of real(r, 'mark-')) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
      for (let i = 0; i < KEYS; i++) {
        const want: Partial<Seen>[] = [{ type: 'added', value: `v${i}`, oldValue: null }];
        if (i % 2 === 0) want.push({ type: 'updated', value: `text/plain:w${i}`, oldValue: `v${i}` });
        if (i % 3 === 0) want.push({ type: 'removed', value: null, oldValue: i % 2 === 0 ? `text/plain:w${i}` : `v${i}` });
        expect(byKey.get(`k${i}`)?.map((e) => ({ type: e.type, value: e.value, oldValue: e.oldValue }))).toEqual(want);
      }
      // Each event names the member that owns the key's partition.
      expect(r.events.every((e) => e.member !== undefined && owners.has(e.member))).toBe(true);
    }
    // The smart client heard each partition's events from its owner: all three members sent some.
    expect(new Set(a.events.map((e) => e.member)).size).toBe(3);
  }, 60_000);

  it('without values: key only; a listener on one key hears that key only; removed listeners hear nothing', async () => {
    const all = recorder();
    const one = recorder();
    const m = await smart.getMap<string, string>('ev2');
    const um = await uni.getMap<string, string>('ev2');
    const idAll = await um.addEntryListener(all.listener, undefined, false);
    const idOne = await m.addEntryListener(one.listener, 'k7', true);
    for (let i = 0; i < 10; i++) await m.set(`k${i}`, `v${i}`);
    await waitFor('10 events', () => all.events.length >= 10 && one.events.length >= 1, 20_000);
    expect(all.events.every((e) => e.value === null && e.oldValue === null && e.type === 'added')).toBe(true);
    expect(all.events.map((e) => e.key).sort()).toEqual([...Array.from({ length: 10 }, (_, i) => `k${i}`)].sort());
    expect(one.events).toEqual([expect.objectContaining({ type: 'added', key: 'k7', value: 'v7' })]);
    expect(await um.removeEntryListener(idAll)).toBe(true);
    expect(await m.removeEntryListener(idOne)).toBe(true);
    // A third listener still registered proves events flow; the removed ones stay silent.
    const probe = recorder();
    await um.addEntryListener(probe.listener, undefined, false);
    for (let i = 0; i < 10; i++) await m.set(`k${i}`, `x${i}`);
    await waitFor('the probe\'s 10 updates', () => probe.events.length >= 10, 20_000);
    expect(all.events.length).toBe(10);
    expect(one.events.length).toBe(1);
  }, 60_000);

  it('expired entries are told as expired, with the value they had', async () => {
    const r = recorder();
    const m = await smart.getMap<string, string>('ttl-ev');
    await m.addEntryListener(r.listener, undefined, true);
    for (let i = 0; i < 5; i++) await m.set(`e${i}`, `v${i}`);
    await waitFor('5 expiries', () => r.events.filter((e) => e.type === 'expired').length >= 5, 20_000);
    const expired = r.events.filter((e) => e.type === 'expired');
    expect(expired.map((e) => [e.key, e.oldValue]).sort()).toEqual(Array.from({ length: 5 }, (_, i) => [`e${i}`, `v${i}`]));
    // The backups reclaim their copies too (their sweepers run every second): by the time a
    // marker written now has expired at its owner, they have; still one event per entry.
    await m.set('last', 'marker');
    await waitFor('the marker\'s expiry', () => r.events.some((e) => e.type === 'expired' && e.key === 'last'), 20_000);
    expect(r.events.filter((e) => e.type === 'expired' && e.key !== 'last').length).toBe(5);
  }, 60_000);

  it('a listener with a predicate is refused with Hazelcast\'s UnsupportedOperationException', async () => {
    const { Predicates } = await import('hazelcast-client');
    const m = await uni.getMap<string, string>('ev3');
    const e = await m.addEntryListenerWithPredicate(recorder().listener, Predicates.sql('this = 1')).then(
      () => undefined,
      (err: unknown) => err as { cause?: Error },
    );
    expect(e?.cause).toBeInstanceOf(UnsupportedOperationError);
    expect(e?.cause?.message).toMatch(/predicate/);
  });

  // Last: it kills a member of the shared cluster.
  it('a change stream on another member is told events may be lost when a partition\'s owner dies (SIGKILL), and goes on', async () => {
    const stream = await openStream(c.member(0).port, '/grid/rest/maps/ev-kill/events');
    const keys = Array.from({ length: 120 }, (_, i) => `d${i}`);
    for (const k of keys) expect((await c.http(0, 'POST', `/grid/rest/maps/ev-kill/${k}`, 'v1', { contentType: 'text/plain' })).status).toBe(200);
    await waitFor('the first 120 events', () => stream.events().filter((e) => e.event === 'added').length >= 120, 20_000);
    const table = JSON.parse((await c.http(0, 'GET', '/grid/rest/partitions')).body) as { partitions: string[][] };
    const victim = c.member(2).uuid!;
    const partitionOf = new Map(stream.events().map((e) => [e.data.key as string, e.data.partition as number]));
    const orphaned = new Set(keys.map((k) => partitionOf.get(k)!).filter((pid) => table.partitions[pid]?.[0] === victim));
    expect(orphaned.size).toBeGreaterThan(0);
    await c.kill(2);
    await c.waitSafe(30_000);
    for (const k of keys) expect((await c.http(0, 'POST', `/grid/rest/maps/ev-kill/${k}`, 'v2', { contentType: 'text/plain' })).status).toBe(200);
    await waitFor('the 120 updates', () => stream.events().filter((e) => e.event === 'updated').length >= 120, 30_000);
    const events = stream.events();
    const lost = new Set(events.filter((e) => e.event === 'lost').map((e) => e.data.partition as number));
    // Every partition whose owner died is flagged before its next event (the dead owner's unsent events, if any, are gone).
    for (const pid of orphaned) {
      expect(lost.has(pid), `partition ${pid}`).toBe(true);
      const firstUpdate = events.findIndex((e) => e.event === 'updated' && e.data.partition === pid);
      const flagged = events.findIndex((e) => e.event === 'lost' && e.data.partition === pid);
      expect(flagged).toBeLessThan(firstUpdate);
    }
    // Each update arrived once.
    expect(new Set(events.filter((e) => e.event === 'updated').map((e) => e.data.key)).size).toBe(120);
    stream.socket.destroy();
  }, 90_000);
});

