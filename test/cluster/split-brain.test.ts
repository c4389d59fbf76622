// Split brain for real: members in two network namespaces joined by a veth link. The link is
// cut, both sides carry on as clusters of their own and take writes; the link comes back, the
// masters find each other, and the smaller side merges into the larger entry by entry through
// each map's merge policy. Skipped, with the reason, where the kernel refuses namespaces.

import { expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { NetLab, netnsUnavailable } from '../support/netns.js';
import { waitFor } from '../support/process.js';

const unavailable = netnsUnavailable();
if (unavailable !== undefined) console.warn(`split-brain tests skipped: ${unavailable}`);

const POLICIES: Record<string, string> = {
  absent: 'com.hazelcast.spi.merge.PutIfAbsentMergePolicy',
  pass: 'PassThroughMergePolicy',
  latest: 'LatestUpdateMergePolicy',
  hits: 'HigherHitsMergePolicy',
  access: 'LatestAccessMergePolicy',
  discard: 'DiscardMergePolicy',
};

async function put(c: Cluster, i: number, map: string, key: string, value: string): Promise<void> {
  const r = await c.http(i, 'POST', `/hazelcast/rest/maps/${map}/${key}`, value);
  expect(r.status, `${map}/${key} through member ${i}: ${r.body}`).toBe(200);
}

const QUEUES = ['jobs', 'dropq'];

async function offer(c: Cluster, i: number, queue: string, item: string): Promise<void> {
  const r = await c.http(i, 'POST', `/hazelcast/rest/queues/${queue}`, item);
  expect(r.status, `offer ${item} to ${queue} through member ${i}: ${r.body}`).toBe(200);
}

async function get(c: Cluster, i: number, map: string, key: string): Promise<string | undefined> {
  const r = await c.http(i, 'GET', `/hazelcast/rest/maps/${map}/${key}`);
  return r.status === 200 ? r.body : undefined;
}

it.skipIf(unavailable !== undefined)(
  'a healed split brain merges the smaller side into the larger through each map’s merge policy',
  async () => {
    const lab = NetLab.create(2);
    // Members 0 and 1 on side 0 (member 0 starts first: the master), member 2 alone on side 1.
    const side = (i: number): number => (i < 2 ? 0 : 1);
    const c = await startCluster({
      size: 1,
      spare: 2,
      hostOf: (i) => lab.hosts[side(i)]!,
      prefixOf: (i) => lab.prefix(side(i)),
      properties: { 'hazelcast.merge.first.run.delay.seconds': 1, 'hazelcast.merge.next.run.delay.seconds': 1 },
      config: () => ({
        map: Object.fromEntries(Object.entries(POLICIES).map(([name, policy]) => [name, { 'backup-count': 1, 'merge-policy': { 'class-name': policy, 'batch-size': 7 } }])),
        queue: { jobs: { 'backup-count': 1 }, dropq: { 'backup-count': 1, 'merge-policy': { 'class-name': 'DiscardMergePolicy' } } },
      }),
    });
    await c.addMember();
    await c.addMember();
    await c.waitForMembers(3);
    await c.waitSafe();
    const maps = Object.keys(POLICIES);
    for (const m of maps) for (let k = 0; k < 40; k++) await put(c, k % 3, m, `k${k}`, 'before');
    for (const q of QUEUES) for (let k = 0; k < 5; k++) await offer(c, k % 3, q, `x${k}`);

    // Cut the link: side 0 removes member 2, member 2 becomes a cluster of one.
    const cutAt = Date.now();
    lab.setLink(0, 1, false);
    await waitFor('both sides to split', async () => {
      const a = (await c.clusterInfo(0)).members.length;
      const b = (await c.clusterInfo(2)).members.length;
      return a === 2 && b === 1;
    }, 30_000, 200);
    const splitMs = Date.now() - cutAt;
    await c.waitSafe(30_000, 2, [0, 1]);
    await c.waitSafe(30_000, 1, [2]);

    // Both sides take writes. The overlapping keys k0..k9 are written on side 0 first, then on side 1.
    for (const m of maps) {
      for (let k = 0; k < 10; k++) await put(c, 0, m, `k${k}`, 'A-new');
      for (let k = 0; k < 15; k++) await put(c, 1, m, `a${k}`, 'A');
    }
    for (const m of maps) {
      for (let k = 0; k < 10; k++) await put(c, 2, m, `k${k}`, 'B-new');
      for (let k = 0; k < 15; k++) await put(c, 2, m, `b${k}`, 'B');
    }
    for (const q of QUEUES) {
      for (let k = 0; k < 5; k++) await offer(c, 1, q, `A${k}`);
      for (let k = 0; k < 5; k++) await offer(c, 2, q, `B${k}`);
    }
    // Hits: k0..k4 read more often on side 0, k5..k9 more often on side 1.
    for (let k = 0; k < 10; k++) {
      const [i, n] = k < 5 ? [0, 6] : [2, 6];
      for (let r = 0; r < n; r++) expect(await get(c, i, 'hits', `k${k}`)).toBe(i === 0 ? 'A-new' : 'B-new');
    }
    // Access: side 0 reads k0..k9 last.
    for (let k = 0; k < 10; k++) expect(await get(c, 0, 'access', `k${k}`)).toBe('A-new');

    // Heal: member 2's cluster is the smaller one and merges into the other.
    const healAt = Date.now();
    lab.setLink(0, 1, true);
    await waitFor('one cluster of 3 again', async () => {
      for (const i of [0, 1, 2]) if ((await c.clusterInfo(i)).members.length !== 3) return false;
      return true;
    }, 60_000, 200);
    await c.waitSafe(60_000, 3);
    await waitFor('member 2 to finish merging', () => c.member(2).logMessages().some((l) => l.startsWith('merge done')), 30_000, 100);
    const mergeMs = Date.now() - healAt;
    const log2 = c.member(2).logMessages();
    expect(log2.some((l) => l.includes('split brain healed'))).toBe(true);
    // The larger side's master may or may not have seen the other side before it merged; it saw member 2 join again.
    expect(c.member(0).logMessages().filter((l) => l.includes(`${c.member(2).address} (`) && l.includes('joins')).length).toBeGreaterThanOrEqual(2);

    const expected = (map: string, key: string): string | undefined => {
      const k = Number(key.slice(1));
      if (key.startsWith('a')) return 'A';
      if (key.startsWith('b')) return map === 'discard' ? undefined : 'B';
      if (k >= 10) return 'before';
      switch (map) {
        case 'absent':
        case 'discard':
        case 'access':
          return 'A-new';
        case 'pass':
        case 'latest':
          return 'B-new';
        case 'hits':
          return k < 5 ? 'A-new' : 'B-new';
      }
      return undefined;
    };
    const wrong: string[] = [];
    for (const i of [0, 1, 2]) {
      for (const m of maps) {
        const keys = [...Array.from({ length: 40 }, (_, k) => `k${k}`), ...Array.from({ length: 15 }, (_, k) => `a${k}`), ...Array.from({ length: 15 }, (_, k) => `b${k}`)];
        for (const key of keys) {
          const got = await get(c, i, m, key);
          if (got !== expected(m, key)) wrong.push(`member ${i} ${m}/${key}: ${String(got)} (expected ${String(expected(m, key))})`);
        }
      }
    }
    expect(wrong.slice(0, 20), `${wrong.length} entries differ from the merge policies`).toEqual([]);
    // Queues keep both sides' items (at least once, each side's order kept); Discard drops the merging side's.
    for (const q of QUEUES) {
      const drained: string[] = [];
      for (;;) {
        const r = await c.http(drained.length % 3, 'GET', `/hazelcast/rest/queues/${q}/0`);
        if (r.status !== 200) break;
        drained.push(r.body);
      }
      const inOrder = (prefix: string): string[] => drained.filter((x) => x.startsWith(prefix));
      expect(inOrder('A'), q).toEqual(['A0', 'A1', 'A2', 'A3', 'A4']);
      expect(new Set(inOrder('x')), q).toEqual(new Set(['x0', 'x1', 'x2', 'x3', 'x4']));
      expect(inOrder('B'), q).toEqual(q === 'dropq' ? [] : ['B0', 'B1', 'B2', 'B3', 'B4']);
    }
    console.log(`split brain: detected in ${splitMs} ms; merged ${mergeMs} ms after the link came back`);
  },
  180_000,
);
