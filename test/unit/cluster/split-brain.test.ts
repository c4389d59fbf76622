import { describe, expect, it } from 'vitest';
import { searchOtherClusters, type OtherCluster, type SplitBrainHost } from '../../../src/cluster/split-brain.js';
import type { DiscoverAnswer } from '../../../src/cluster/join-decision.js';
import { createLogControl } from '../../../src/core/logger.js';
import { LogCapture } from '../../support/logs.js';

/** Cluster X = our side (master at a:1, members a:1, a:2); the tcp-ip list also names b:1..b:3. */
function host(o: {
  answers?: Record<string, DiscoverAnswer | undefined>;
  clusters?: Record<string, OtherCluster | Error>;
  ours?: { memberCount: number; masterSince: number };
  canSearch?: boolean;
}) {
  const logs = new LogCapture();
  const merged: string[] = [];
  const fetched: string[] = [];
  const h: SplitBrainHost = {
    clusterName: 'dev',
    localUuid: 'U-a1',
    logger: createLogControl({ level: 'FINE', destination: logs }).logger,
    canSearch: () => o.canSearch ?? true,
    memberAddresses: () => new Set(['a:1', 'a:2']),
    joinAddresses: () => ['a:1', 'a:2', 'b:1', 'b:2', 'b:3'],
    ourSide: () => ({ memberCount: o.ours?.memberCount ?? 2, masterSince: o.ours?.masterSince ?? 100, masterAddress: 'a:1' }),
    discover: (address) => Promise.resolve(o.answers?.[address]),
    fetchCluster: (address) => {
      fetched.push(address);
      const c = o.clusters?.[address];
      return c instanceof Error || c === undefined ? Promise.reject(c ?? new Error('no answer')) : Promise.resolve(c);
    },
    mergeInto: (target) => {
      merged.push(target);
      return Promise.resolve();
    },
  };
  return { h, merged, fetched, logs };
}

const joinedTo = (master: string): DiscoverAnswer => ({ address: master, joined: true, masterAddress: master });
const cluster = (n: number, master: string, masterSince = 50, state = 'ACTIVE'): OtherCluster => ({
  members: Array.from({ length: n }, (_, i) => ({ uuid: `U-${master}-${i}`, address: i === 0 ? master : `${master}#${i}` })),
  state,
  masterSince,
});

describe('searchOtherClusters', () => {
  it('finds a larger cluster through a non-member address and merges into it, asking its master once', async () => {
    const t = host({ answers: { 'b:1': joinedTo('b:1'), 'b:2': joinedTo('b:1'), 'b:3': joinedTo('b:1') }, clusters: { 'b:1': cluster(3, 'b:1') } });
    expect(await searchOtherClusters(t.h)).toEqual({ outcome: 'merged', master: 'b:1' });
    expect(t.merged).toEqual(['b:1']);
    expect(t.fetched).toEqual(['b:1']);
  });

  it('a smaller cluster found is left to merge into this one', async () => {
    const t = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': cluster(1, 'b:1') } });
    expect(await searchOtherClusters(t.h)).toEqual({ outcome: 'they-merge', master: 'b:1' });
    expect(t.merged).toEqual([]);
  });

  it('equal sizes: the side whose master is younger merges', async () => {
    const older = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': cluster(2, 'b:1', 500) }, ours: { memberCount: 2, masterSince: 100 } });
    expect((await searchOtherClusters(older.h)).outcome).toBe('they-merge');
    const younger = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': cluster(2, 'b:1', 50) }, ours: { memberCount: 2, masterSince: 100 } });
    expect((await searchOtherClusters(younger.h)).outcome).toBe('merged');
  });

  it('ignores members not joined, members of this cluster, masters that do not answer, lists that name us, and clusters not ACTIVE', async () => {
    const t = host({
      answers: {
        'a:2': joinedTo('b:9'), // our own member: never asked
        'b:1': { address: 'b:1', joined: false, masterAddress: undefined },
        'b:2': joinedTo('a:1'), // joined to our master: same cluster
        'b:3': joinedTo('b:3'),
      },
      clusters: { 'b:3': cluster(5, 'b:3', 50, 'FROZEN') },
    });
    expect(await searchOtherClusters(t.h)).toEqual({ outcome: 'none' });
    expect(t.fetched).toEqual(['b:3']);
    const silent = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': new Error('timeout') } });
    expect(await searchOtherClusters(silent.h)).toEqual({ outcome: 'none' });
    const listsUs = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': { members: [{ uuid: 'x', address: 'b:1' }, { uuid: 'U-a1', address: 'a:1' }], state: 'ACTIVE', masterSince: 1 } } });
    expect(await searchOtherClusters(listsUs.h)).toEqual({ outcome: 'none' });
    const notItsMaster = host({ answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': { members: [{ uuid: 'x', address: 'b:7' }], state: 'ACTIVE', masterSince: 1 } } });
    expect(await searchOtherClusters(notItsMaster.h)).toEqual({ outcome: 'none' });
  });

  it('does nothing unless this member may search (the master of an ACTIVE cluster, not merging)', async () => {
    const t = host({ canSearch: false, answers: { 'b:1': joinedTo('b:1') }, clusters: { 'b:1': cluster(3, 'b:1') } });
    expect(await searchOtherClusters(t.h)).toEqual({ outcome: 'none' });
    expect(t.fetched).toEqual([]);
  });
});
