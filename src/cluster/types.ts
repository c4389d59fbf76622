// The cluster as the services above see it: members, states, and the events they emit.

// The member and the cluster state cross layers (member lists on the wire, REST, partitions):
// written once in protocol/, re-exported here for the layers that may not import protocol/.
import { SETTABLE_CLUSTER_STATES as SETTABLE, type ClusterState, type MemberInfo } from '../protocol/payloads.js';
export type { ClusterState, MemberInfo, SettableClusterState } from '../protocol/payloads.js';

/** The same list as protocol's, typed wide so that any ClusterState can be looked up in it. */
export const SETTABLE_CLUSTER_STATES: readonly ClusterState[] = SETTABLE;

/** Hazelcast's NodeState names. */
export type NodeState = 'STARTING' | 'ACTIVE' | 'PASSIVE' | 'SHUTTING_DOWN' | 'SHUT_DOWN';

export type ClusterEvent =
  | { readonly type: 'stateChanged'; readonly from: ClusterState; readonly to: ClusterState }
  | { readonly type: 'shutdownRequested'; readonly scope: 'member' | 'cluster' }
  /** The member list changed; `added`/`removed` are relative to the previous list. */
  | {
      readonly type: 'membersChanged';
      readonly added: readonly MemberInfo[];
      readonly removed: readonly MemberInfo[];
      readonly masterChanged: boolean;
    }
  /** This member was removed from the cluster by the master (it was thought dead). */
  | { readonly type: 'removedFromCluster' }
  /**
   * Split brain healed and this member's cluster is the smaller one: `collect` comes before this
   * member leaves its cluster (take the data it owns, then forget everything), `joined` once it
   * belongs to the other cluster (merge what was taken), `failed` when it could not join.
   */
  | { readonly type: 'merge'; readonly phase: 'collect' | 'joined' | 'failed'; readonly target: string };
