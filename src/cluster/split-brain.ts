// Finding the other side of a healed split brain. The master asks the tcp-ip addresses that
// are not members whether they belong to a cluster; one joined to another master of this
// cluster's name is the other side; the rule of merge-policies.ts says which side merges. The
// search itself is here, behind a narrow host interface (so a test drives it with a fake
// cluster); the merge (leave, join the other cluster, merge the data) is the host's.

import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { DiscoverAnswer } from './join-decision.js';
import { shouldMergeInto, type ClusterSide } from './merge-policies.js';

/** What another cluster's master says of its cluster. */
export interface OtherCluster {
  readonly members: readonly { readonly uuid: string; readonly address: string }[];
  readonly state: string;
  /** Wall-clock ms since which its master is master; undefined from an older member. */
  readonly masterSince: number | undefined;
}

export interface SplitBrainHost {
  readonly clusterName: string;
  readonly localUuid: string;
  readonly logger: Logger;
  /** This member is the master of an ACTIVE cluster, not merging nor shutting down. */
  canSearch(): boolean;
  /** Addresses of this cluster's members, this member's included. */
  memberAddresses(): ReadonlySet<string>;
  /** The tcp-ip addresses to ask. */
  joinAddresses(): readonly string[];
  ourSide(): ClusterSide;
  discover(address: string): Promise<DiscoverAnswer | undefined>;
  /** The member list of the master at `address` (rejects when it does not answer). */
  fetchCluster(masterAddress: string): Promise<OtherCluster>;
  /** Tell this cluster's other members to merge into the cluster of `target`, then merge this member. */
  mergeInto(target: string): Promise<void>;
}

export type SearchResult =
  | { readonly outcome: 'none' }
  /** Another cluster was found; it is the smaller one and merges into this one. */
  | { readonly outcome: 'they-merge'; readonly master: string }
  /** This cluster merged into the other one. */
  | { readonly outcome: 'merged'; readonly master: string };

/** One search round (the master runs it every hazelcast.merge.next.run.delay.seconds). */
export async function searchOtherClusters(host: SplitBrainHost): Promise<SearchResult> {
  if (!host.canSearch()) return { outcome: 'none' };
  const mine = host.memberAddresses();
  const asked = new Set<string>();
  let result: SearchResult = { outcome: 'none' };
  for (const address of host.joinAddresses()) {
    if (mine.has(address)) continue;
    const answer = await host.discover(address);
    if (answer === undefined || !answer.joined || answer.masterAddress === undefined) continue;
    const theirMaster = answer.masterAddress;
    if (mine.has(theirMaster) || asked.has(theirMaster)) continue;
    asked.add(theirMaster);
    let other: OtherCluster;
    try {
      other = await host.fetchCluster(theirMaster);
    } catch (e) {
      host.logger.debug(`another cluster's master ${theirMaster} did not answer: ${describeError(e)}`);
      continue;
    }
    // A master that names itself first, does not list us, and whose cluster is ACTIVE.
    if (other.members[0]?.address !== theirMaster || other.members.some((m) => m.uuid === host.localUuid)) continue;
    if (other.state !== 'ACTIVE' || !host.canSearch()) continue;
    const theirs: ClusterSide = { memberCount: other.members.length, masterSince: other.masterSince ?? 0, masterAddress: theirMaster };
    const ours = host.ourSide();
    if (!shouldMergeInto(ours, theirs)) {
      host.logger.warn(
        `split brain: another cluster "${host.clusterName}" (master ${theirMaster}, ${theirs.memberCount} members) was found; it will merge into this one (${ours.memberCount} members)`,
      );
      result = { outcome: 'they-merge', master: theirMaster };
      continue;
    }
    host.logger.warn(
      `split brain healed: another cluster "${host.clusterName}" (master ${theirMaster}, ${theirs.memberCount} members) was found; this cluster (${ours.memberCount} members) merges into it`,
    );
    await host.mergeInto(theirMaster);
    return { outcome: 'merged', master: theirMaster };
  }
  return result;
}
