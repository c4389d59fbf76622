// Anti-entropy with real member processes: every member skips a share of the backups it
// receives (grid.debug.drop-backups, acknowledging them all the same), writes to maps and
// queues go through every member, anti-entropy finds and repairs the backups (its counters are
// polled through /rest/partitions), and then the owners are killed (kill -9) one after the
// other: every acknowledged write and queue item is still there, and no polled item comes
// back. The control, with anti-entropy off, loses acknowledged writes the same way.

import { describe, expect, it } from 'vitest';
import { findMissing, startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import type { ReplicaSyncStats } from '../../src/partition/replica-sync.js';

type SyncCounters = ReplicaSyncStats;

const DROP_FRACTION = 0.2;
const MAP = 'ae-map';
const QUEUES = Array.from({ length: 12 }, (_, n) => `ae-queue-${n}`);

async function syncCounters(c: Cluster, i: number): Promise<SyncCounters> {
  const p = await c.json<{ replicaSync?: SyncCounters }>(i, '/grid/rest/partitions');
  if (p.replicaSync === undefined) throw new Error('no replicaSync in /rest/partitions');
  return p.replicaSync;
}

async function post(c: Cluster, i: number, path: string, body: string): Promise<boolean> {
  try {
    return (await c.http(i, 'POST', path, body)).status === 200;
  } catch {
    return false;
  }
}

/** What the clients were told: map entries and queue items acknowledged, items polled. */
interface Ledger {
  readonly map: Map<string, string>;
  readonly offered: Map<string, Set<string>>;
  readonly polled: Set<string>;
}

function newLedger(): Ledger {
  return { map: new Map(), offered: new Map(QUEUES.map((q) => [q, new Set<string>()])), polled: new Set() };
}

/** Map writes (some keys overwritten), queue offers and some polls, through every live member. */
async function write(c: Cluster, ledger: Ledger, round: string, count: number): Promise<void> {
  const through = c.live().map((m) => m.index);
  let at = 0;
  const worker = async (): Promise<void> => {
    while (at < count) {
      const n = at++;
      const i = through[n % through.length]!;
      // Overwrites of earlier keys too: a lost overwrite would come back as the older value.
      const key = `k${n % Math.floor(count * 0.8)}`;
      const value = `${round}.${n}`;
      if (await post(c, i, `/hazelcast/rest/maps/${MAP}/${key}`, value)) ledger.map.set(key, value);
      const q = QUEUES[n % QUEUES.length]!;
      if (await post(c, i, `/hazelcast/rest/queues/${q}`, value)) ledger.offered.get(q)!.add(value);
      if (n % 4 === 3) {
        const res = await c.http(i, 'GET', `/hazelcast/rest/queues/${q}/0`);
        if (res.status === 200) ledger.polled.add(res.body);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, () => worker()));
}

/**
 * Waits until anti-entropy has compared every backup after the last write (two more version
 * lists from every other member arrived everywhere) and no repair is outstanding.
 */
async function waitRepaired(c: Cluster): Promise<Map<number, SyncCounters>> {
  const live = c.live();
  const before = new Map<number, SyncCounters>();
  for (const m of live) before.set(m.index, await syncCounters(c, m.index));
  return waitFor(
    'anti-entropy to compare every backup and repair what differs',
    async () => {
      const now = new Map<number, SyncCounters>();
      for (const m of live) {
        const s = await syncCounters(c, m.index);
        if (s.checks < before.get(m.index)!.checks + 2 * (live.length - 1) || s.outstanding > 0) return undefined;
        now.set(m.index, s);
      }
      return now;
    },
    30_000,
    100,
  );
}

/** Kills `victim`, waits for the survivors to be safe, checks the ledger through every survivor. */
async function killAndCheck(c: Cluster, ledger: Ledger, victim: number): Promise<{ lostKeys: string[]; lostItems: string[]; reappeared: string[] }> {
  await c.kill(victim);
  await c.waitForMembers(c.live().length);
  await c.waitSafe();
  const lostKeys: string[] = [];
  for (const m of c.live()) lostKeys.push(...(await findMissing(c, m.index, MAP, ledger.map)));
  // Drain every queue (through the survivors in turn); the items go back afterwards, so a later
  // kill is checked against the same ledger.
  const lostItems: string[] = [];
  const reappeared: string[] = [];
  const through = c.live().map((m) => m.index);
  for (const q of QUEUES) {
    const got: string[] = [];
    for (let n = 0; ; n++) {
      const res = await c.http(through[n % through.length]!, 'GET', `/hazelcast/rest/queues/${q}/0`);
      if (res.status === 204) break;
      expect(res.status, `poll of ${q}: ${res.body}`).toBe(200);
      got.push(res.body);
    }
    const seen = new Set(got);
    for (const item of ledger.offered.get(q)!) if (!ledger.polled.has(item) && !seen.has(item)) lostItems.push(`${q}: ${item}`);
    for (const item of got) if (ledger.polled.has(item)) reappeared.push(`${q}: ${item}`);
    for (const item of got) expect(await post(c, through[0]!, `/hazelcast/rest/queues/${q}`, item), `re-offer of ${item}`).toBe(true);
  }
  return { lostKeys, lostItems, reappeared };
}

describe('anti-entropy (3 members, each skipping 20% of the backups it receives)', () => {
  it('repairs every dropped backup before the owners are killed: nothing acknowledged is lost', async () => {
    const c = await startCluster({
      size: 3,
      properties: { 'grid.partition.replica-sync-interval-seconds': 1, 'grid.debug.drop-backups': DROP_FRACTION },
    });
    await c.waitForMembers(3);
    const ledger = newLedger();

    await write(c, ledger, 'a', 1500);
    const started = Date.now();
    const repaired = await waitRepaired(c);
    const repairMs = Date.now() - started;
    const total = (k: keyof SyncCounters): number => [...repaired.values()].reduce((a, s) => a + s[k], 0);
    // Backups were dropped (they show as gaps or differing versions) and copies were installed.
    expect(total('requested'), JSON.stringify([...repaired])).toBeGreaterThan(0);
    expect(total('done')).toBeGreaterThan(0);
    expect(total('served')).toBe(total('done'));
    console.log(`anti-entropy: repaired in ${repairMs} ms after the last write; counters ${JSON.stringify(Object.fromEntries(repaired))}`);

    // First owner killed.
    const first = await killAndCheck(c, ledger, 0);
    expect(first).toEqual({ lostKeys: [], lostItems: [], reappeared: [] });

    // More writes on the two survivors (still dropping), repaired, then the next owner killed.
    await write(c, ledger, 'b', 600);
    await waitRepaired(c);
    const second = await killAndCheck(c, ledger, 1);
    expect(second).toEqual({ lostKeys: [], lostItems: [], reappeared: [] });
  }, 180_000);

  it('control: with anti-entropy off (interval 0) the same drops lose acknowledged writes', async () => {
    const c = await startCluster({
      size: 3,
      properties: { 'grid.partition.replica-sync-interval-seconds': 0, 'grid.debug.drop-backups': DROP_FRACTION },
    });
    await c.waitForMembers(3);
    const ledger = newLedger();
    await write(c, ledger, 'a', 1500);
    const s = await syncCounters(c, 1);
    expect(s.requested).toBe(0);
    expect(s.rounds).toBe(0);
    const result = await killAndCheck(c, ledger, 0);
    console.log(`control: ${result.lostKeys.length} map keys lost or reverted, ${result.lostItems.length} queue items lost, ${result.reappeared.length} polled items back`);
    expect(result.lostKeys.length + result.lostItems.length).toBeGreaterThan(0);
  }, 120_000);
});
