import { describe, expect, it } from 'vitest';
import { MERGE_POLICY_NAMES } from '../../../src/config/types.js';
import { mergingWins, policyNeedsStats, shouldMergeInto, type ClusterSide, type MergeView } from '../../../src/cluster/merge-policies.js';
import { prng } from '../../support/prng.js';

const view = (o: Partial<MergeView> = {}): MergeView => ({ hits: 0, creationTime: 0, lastUpdateTime: 0, lastAccessTime: 0, expirationTime: 0, ...o });

describe('merge policies', () => {
  it('an absent key takes the merging entry, except with Discard', () => {
    for (const p of MERGE_POLICY_NAMES) expect(mergingWins(p, undefined, view()), p).toBe(p !== 'DiscardMergePolicy');
  });

  it('PutIfAbsent and Discard keep the existing entry, PassThrough takes the merging one', () => {
    expect(mergingWins('PutIfAbsentMergePolicy', view(), view({ hits: 9, lastUpdateTime: 9 }))).toBe(false);
    expect(mergingWins('DiscardMergePolicy', view(), view({ hits: 9 }))).toBe(false);
    expect(mergingWins('PassThroughMergePolicy', view({ hits: 9, lastUpdateTime: 9 }), view())).toBe(true);
  });

  it('HigherHits, LatestUpdate, LatestAccess and ExpirationTime compare their figure; ties go to the merging entry', () => {
    const cases: [Parameters<typeof mergingWins>[0], keyof MergeView][] = [
      ['HigherHitsMergePolicy', 'hits'],
      ['LatestUpdateMergePolicy', 'lastUpdateTime'],
      ['LatestAccessMergePolicy', 'lastAccessTime'],
      ['ExpirationTimeMergePolicy', 'expirationTime'],
    ];
    for (const [p, field] of cases) {
      expect(mergingWins(p, view({ [field]: 5 }), view({ [field]: 6 })), p).toBe(true);
      expect(mergingWins(p, view({ [field]: 6 }), view({ [field]: 5 })), p).toBe(false);
      expect(mergingWins(p, view({ [field]: 5 }), view({ [field]: 5 })), p).toBe(true);
    }
  });

  it('ExpirationTime takes "never expires" (0) as the latest time', () => {
    expect(mergingWins('ExpirationTimeMergePolicy', view({ expirationTime: 1_000 }), view({ expirationTime: 0 }))).toBe(true);
    expect(mergingWins('ExpirationTimeMergePolicy', view({ expirationTime: 0 }), view({ expirationTime: 1_000 }))).toBe(false);
  });

  it('only the statistics policies ask the record store to keep statistics', () => {
    expect(MERGE_POLICY_NAMES.filter(policyNeedsStats)).toEqual(['HigherHitsMergePolicy', 'LatestUpdateMergePolicy', 'LatestAccessMergePolicy']);
  });
});

describe('shouldMergeInto: which of two clusters merges', () => {
  const side = (memberCount: number, masterSince: number, masterAddress: string): ClusterSide => ({ memberCount, masterSince, masterAddress });

  it('the smaller merges into the larger; equal sizes: the younger master merges; then the higher address', () => {
    expect(shouldMergeInto(side(1, 0, 'a'), side(2, 9, 'b'))).toBe(true);
    expect(shouldMergeInto(side(2, 9, 'b'), side(1, 0, 'a'))).toBe(false);
    expect(shouldMergeInto(side(2, 10, 'a'), side(2, 5, 'b'))).toBe(true);
    expect(shouldMergeInto(side(2, 5, 'b'), side(2, 10, 'a'))).toBe(false);
    expect(shouldMergeInto(side(2, 5, 'b'), side(2, 5, 'a'))).toBe(true);
    expect(shouldMergeInto(side(2, 5, 'a'), side(2, 5, 'b'))).toBe(false);
  });

  it('randomized: of two different clusters exactly one merges', () => {
    const rnd = prng(7);
    for (let i = 0; i < 5_000; i++) {
      const a = side(1 + Math.floor(rnd() * 4), Math.floor(rnd() * 3), `10.0.0.${Math.floor(rnd() * 3)}:5701`);
      const b = side(1 + Math.floor(rnd() * 4), Math.floor(rnd() * 3), `10.0.0.${3 + Math.floor(rnd() * 3)}:5701`);
      expect(Number(shouldMergeInto(a, b)) + Number(shouldMergeInto(b, a))).toBe(1);
    }
  });
});
