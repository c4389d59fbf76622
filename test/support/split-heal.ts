// One split-brain cycle for real, with every member in a network namespace of its own: cut the
// packets between one group of members and the rest (silently lost, the links up, so TCP backs
// off as it does behind a dead switch), check that both sides split in time and take writes,
// restore the packets, and check that the cluster merges in time, stays merged, and keeps every
// acknowledged write where its map's merge policy says. Used by test/cluster/split-heal.test.ts
// (the bounded run) and test/chaos/split-heal.chaos.ts (the long tier).

import { expect } from 'vitest';
import { findMissing, holdsFor, startCluster, startWriteLoad, type Cluster } from './cluster.js';
import { NetLab } from './netns.js';
import { waitFor } from './process.js';
import { sleep } from './wait.js';

export const SPLIT_HEAL_HEARTBEAT_MS = 1_000;
export const SPLIT_HEAL_MAX_NO_HEARTBEAT_MS = 5_000;
export const SPLIT_HEAL_MERGE_DELAY_MS = 1_000;

/** A cluster of `size` members, member i alone on side i of a lab; heartbeat 1 s, max-no-heartbeat 5 s, merge searches every 1 s. */
export async function startSplitCluster(size: number, extraProperties: Record<string, string | number> = {}): Promise<{ c: Cluster; lab: NetLab }> {
  const lab = NetLab.create(size);
  const c = await startCluster({
    size: 1,
    spare: size - 1,
    hostOf: (i) => lab.hosts[i]!,
    prefixOf: (i) => lab.prefix(i),
    properties: {
      'hazelcast.heartbeat.interval.seconds': SPLIT_HEAL_HEARTBEAT_MS / 1000,
      'hazelcast.max.no.heartbeat.seconds': SPLIT_HEAL_MAX_NO_HEARTBEAT_MS / 1000,
      'hazelcast.merge.first.run.delay.seconds': SPLIT_HEAL_MERGE_DELAY_MS / 1000,
      'hazelcast.merge.next.run.delay.seconds': SPLIT_HEAL_MERGE_DELAY_MS / 1000,
      ...extraProperties,
    },
    config: () => ({
      map: {
        kept: { 'backup-count': 1, 'merge-policy': { 'class-name': 'PutIfAbsentMergePolicy' } },
        dropped: { 'backup-count': 1, 'merge-policy': { 'class-name': 'DiscardMergePolicy' } },
      },
    }),
  });
  // Joined one by one: member 0 is the master, the join order is the member index.
  for (let i = 1; i < size; i++) {
    await c.addMember();
    await c.waitForMembers(i + 1);
  }
  await c.waitSafe();
  return { c, lab };
}

export interface SplitHealTimes {
  /** From the cut until both sides listed only themselves. */
  readonly splitMs: number;
  /** From the heal until every member listed every member again. */
  readonly mergeMs: number;
  readonly cutMs: number;
}

/** Member indexes in the order of the member list (join order: the master first), as member `asked` sees it. */
export async function memberOrder(c: Cluster, asked = 0): Promise<number[]> {
  const list = (await c.clusterInfo(asked)).members.map((m) => m.address);
  return list.map((address) => {
    const m = c.members.find((x) => x.address === address);
    if (m === undefined) throw new Error(`member ${asked} lists ${address}, not a member of this test`);
    return m.index;
  });
}

/** Whether each member lists exactly the members of its side (undefined), or what differs. */
async function sidesDiffer(c: Cluster, groups: readonly (readonly number[])[]): Promise<string | undefined> {
  for (const g of groups) {
    for (const i of g) {
      const members = (await c.clusterInfo(i)).members.map((m) => m.address).sort();
      const want = g.map((j) => c.member(j).address).sort();
      if (members.join(',') !== want.join(',')) return `member ${i} lists ${members.length} (${members.join(', ')}), expected ${want.length}`;
    }
  }
  return undefined;
}

export interface SplitHealOptions {
  /** Member indexes cut off from the others. */
  readonly isolated: readonly number[];
  /** How long the cut lasts (from its last step). */
  readonly cutMs: number;
  /** Names this cycle's keys. */
  readonly round: number;
  /**
   * Cut the isolated members from one other member at a time, in member order (the master's
   * first), this far apart: an isolated member then hears the master's silence first (the
   * take-over that must not wait for members it suspects a moment later). 0: all at once.
   */
  readonly staggerMs?: number;
  /** The cluster's max-no-heartbeat (how long "stays merged" is watched: twice this). Default SPLIT_HEAL_MAX_NO_HEARTBEAT_MS. */
  readonly maxNoHeartbeatMs?: number;
}

export function describeCycle(size: number, isolated: readonly number[], order: readonly number[]): string {
  const role = (i: number): string => (order[0] === i ? 'master' : `${order.indexOf(i) + 1}${['st', 'nd', 'rd'][order.indexOf(i)] ?? 'th'} oldest`);
  return `${size} members, cut ${isolated.map((i) => `member ${i} (${role(i)})`).join(' and ')}`;
}

/** Cut, write on both sides, heal, and check the cycle (see the top of this file). Returns the measured times. */
export async function splitAndHeal(c: Cluster, lab: NetLab, opts: SplitHealOptions): Promise<SplitHealTimes> {
  const { isolated, cutMs, round } = opts;
  const all = c.members.map((m) => m.index);
  const rest = all.filter((i) => !isolated.includes(i));
  const small = isolated.length < rest.length ? isolated : rest;
  const large = small === isolated ? rest : isolated;
  const logCount = new Map(all.map((i) => [i, c.member(i).logMessages().length]));
  const setCut = (dropping: boolean): void => {
    for (const a of isolated) for (const b of rest) lab.setDrop(a, b, dropping);
  };

  const order = await memberOrder(c, rest[0]);
  const restInOrder = order.filter((i) => rest.includes(i));
  for (const b of restInOrder.slice(0, -1)) {
    if (!(opts.staggerMs! > 0)) break;
    for (const a of isolated) lab.setDrop(a, b, true);
    await sleep(opts.staggerMs!); // the stagger is a duration, not a wait for something
  }
  const cutAt = Date.now();
  setCut(true);
  await waitFor('both sides to split', async () => (await sidesDiffer(c, [isolated, rest])) === undefined, 60_000, 100);
  const splitMs = Date.now() - cutAt;
  await c.waitSafe(30_000, large.length, [...large]);
  await c.waitSafe(30_000, small.length, [...small]);

  // Both sides take writes: each its own keys, in a map whose policy keeps both sides' entries
  // and in one whose policy drops the merging (smaller) side's.
  const loads = (['kept', 'dropped'] as const).flatMap((map) =>
    [large, small].map((side) => ({ side, map, load: startWriteLoad(c, { through: side[0]!, map, prefix: `r${round}${side === large ? 'L' : 'S'}`, concurrency: 2 }) })),
  );
  await Promise.all(loads.map((l) => l.load.waitForAcks(20, 20_000)));
  const left = cutAt + cutMs - Date.now();
  if (left > 0) await sleep(left); // the cut lasts cutMs: a duration, not a wait for something
  for (const l of loads) await l.load.stop();

  const healAt = Date.now();
  setCut(false);
  await waitFor('one cluster again', async () => (await sidesDiffer(c, [all])) === undefined, 60_000, 100);
  const mergeMs = Date.now() - healAt;

  // Merged, and it holds: nobody suspected, nobody dropped, for 2 x max-no-heartbeat.
  const suspicions = (): string[] =>
    all.flatMap((i) =>
      c
        .member(i)
        .logMessages()
        .slice(logCount.get(i))
        .filter((l) => l.includes('is suspected dead'))
        .map((l) => `member ${i}: ${l}`),
    );
  const duringCut = suspicions().length;
  await holdsFor('the merged cluster', 2 * (opts.maxNoHeartbeatMs ?? SPLIT_HEAL_MAX_NO_HEARTBEAT_MS), async () => {
    const differ = await sidesDiffer(c, [all]);
    if (differ !== undefined) return differ;
    const s = suspicions();
    return s.length > duringCut ? `a member was suspected after the merge: ${s.slice(duringCut).join('; ')}` : undefined;
  });
  // Each member of the smaller side merged once (a flap would merge it twice).
  for (const i of small) {
    await waitFor(`member ${i} to finish merging`, () => c.member(i).logMessages().slice(logCount.get(i)).some((l) => l.startsWith('merge done')), 30_000, 100);
    const merges = c.member(i).logMessages().slice(logCount.get(i)).filter((l) => l.startsWith('merge done'));
    expect(merges.length, `merges of member ${i}: ${merges.join(' | ')}`).toBe(1);
  }
  await c.waitSafe(60_000, all.length);

  // Every acknowledged write where its map's merge policy says: PutIfAbsent keeps both sides'
  // (their keys differ), Discard keeps the larger side's and drops the merging side's.
  for (const { side, map, load } of loads) {
    const through = all[round % all.length]!;
    if (map === 'kept' || side === large) {
      expect(await findMissing(c, through, map, load.acked), `${map} writes of the ${side === large ? 'larger' : 'smaller'} side`).toEqual([]);
    } else {
      const keys = [...load.acked.keys()];
      const still: string[] = [];
      for (const k of keys) if ((await c.http(through, 'GET', `/hazelcast/rest/maps/${map}/${k}`)).status === 200) still.push(k);
      expect(still, `the merging side's writes to ${map} (DiscardMergePolicy) are dropped`).toEqual([]);
      expect(keys.length).toBeGreaterThan(0);
    }
  }
  return { splitMs, mergeMs, cutMs: healAt - cutAt };
}
