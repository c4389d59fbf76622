// Split-brain merge policies (Hazelcast's com.hazelcast.spi.merge.*): after two clusters that
// split apart find each other again, the smaller one merges into the larger entry by entry, and
// the policy of the entry's map decides which value stays. Pure: the caller gives both views.

import type { MergePolicyName } from '../config/types.js';

/** What a policy may look at of an entry (either side's). Times are epoch ms; 0 = unknown/never. */
export interface MergeView {
  readonly hits: number;
  readonly creationTime: number;
  readonly lastUpdateTime: number;
  readonly lastAccessTime: number;
  /** Epoch ms at which the entry expires; 0 = never (taken as the latest possible time). */
  readonly expirationTime: number;
}

/** Policies that need per-entry statistics (hits, access and update times) kept by the record store. */
export function policyNeedsStats(policy: MergePolicyName): boolean {
  return policy === 'HigherHitsMergePolicy' || policy === 'LatestUpdateMergePolicy' || policy === 'LatestAccessMergePolicy';
}

const expiry = (v: MergeView): number => (v.expirationTime === 0 ? Number.POSITIVE_INFINITY : v.expirationTime);

/**
 * True when the merging entry replaces the existing one (`existing` undefined: the key is absent
 * in the cluster merged into). Ties go to the merging entry, as in Hazelcast.
 */
export function mergingWins(policy: MergePolicyName, existing: MergeView | undefined, merging: MergeView): boolean {
  if (existing === undefined) return policy !== 'DiscardMergePolicy';
  switch (policy) {
    case 'PutIfAbsentMergePolicy':
    case 'DiscardMergePolicy':
      return false;
    case 'PassThroughMergePolicy':
      return true;
    case 'HigherHitsMergePolicy':
      return merging.hits >= existing.hits;
    case 'LatestUpdateMergePolicy':
      return merging.lastUpdateTime >= existing.lastUpdateTime;
    case 'LatestAccessMergePolicy':
      return merging.lastAccessTime >= existing.lastAccessTime;
    case 'ExpirationTimeMergePolicy':
      return expiry(merging) >= expiry(existing);
  }
}

// ------------------------------------------------------------------------------ who merges

export interface ClusterSide {
  readonly memberCount: number;
  /** Wall-clock ms since which its master has been master (an older master wins a tie). */
  readonly masterSince: number;
  readonly masterAddress: string;
}

/**
 * Hazelcast's rule: the smaller cluster merges into the larger; with equal sizes the cluster
 * with the older master stays; then (clocks equal) the lower master address. Both sides run
 * this and agree: exactly one of them merges.
 */
export function shouldMergeInto(mine: ClusterSide, theirs: ClusterSide): boolean {
  if (mine.memberCount !== theirs.memberCount) return mine.memberCount < theirs.memberCount;
  if (mine.masterSince !== theirs.masterSince) return mine.masterSince > theirs.masterSince;
  return mine.masterAddress > theirs.masterAddress;
}
