// The cluster as the services above see it: members, states, and the events they emit.

export type ClusterState = 'ACTIVE' | 'NO_MIGRATION' | 'FROZEN' | 'PASSIVE' | 'IN_TRANSITION';
export const SETTABLE_CLUSTER_STATES: readonly ClusterState[] = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE'];

/** Hazelcast's NodeState names. */
export type NodeState = 'STARTING' | 'ACTIVE' | 'PASSIVE' | 'SHUTTING_DOWN' | 'SHUT_DOWN';

export interface MemberInfo {
  readonly uuid: string;
  /** `ip:port` of the member port (`[ipv6]:port` for IPv6). */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  readonly liteMember: boolean;
  readonly version: string;
}

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
