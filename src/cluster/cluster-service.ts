// The member's view of its cluster: the member list (join order, oldest first), the cluster
// state and this member's node state. On its own a member is a cluster of one; joining
// others arrives with the member protocol.

import { EventEmitter } from 'node:events';
import { GridError } from '../core/errors.js';
import type { ClusterEvent, ClusterState, MemberInfo, NodeState } from './types.js';

export interface ClusterView {
  readonly clusterName: string;
  localMember(): MemberInfo;
  members(): readonly MemberInfo[];
  state(): ClusterState;
  nodeState(): NodeState;
  /** True once this member belongs to a cluster (itself at least). */
  joined(): boolean;
  /** Cluster version, `major.minor`. */
  version(): string;
}

/** What the REST layer may do to the cluster: read it, change its state, ask for shutdown. */
export interface ClusterFacade extends ClusterView {
  /** Change the cluster state; false when it already is `to`. */
  changeState(to: ClusterState): boolean;
  requestShutdown(scope: 'member' | 'cluster'): void;
  tcpIpMemberList(): readonly string[];
  setTcpIpMemberList(members: readonly string[]): void;
}

export class ClusterService implements ClusterFacade {
  readonly clusterName: string;
  private local: MemberInfo;
  private memberList: MemberInfo[];
  private clusterState: ClusterState = 'ACTIVE';
  private node: NodeState = 'STARTING';
  private readonly events = new EventEmitter();
  private tcpIpMembers: string[];

  constructor(deps: { clusterName: string; local: MemberInfo; tcpIpMembers: readonly string[] }) {
    this.clusterName = deps.clusterName;
    this.local = deps.local;
    this.memberList = [deps.local];
    this.tcpIpMembers = [...deps.tcpIpMembers];
  }

  localMember(): MemberInfo {
    return this.local;
  }

  /** Set this member's identity once its port is bound (before it joins). */
  setLocal(local: MemberInfo): void {
    this.memberList = this.memberList.map((m) => (m.uuid === this.local.uuid ? local : m));
    this.local = local;
  }

  members(): readonly MemberInfo[] {
    return this.memberList;
  }

  state(): ClusterState {
    return this.clusterState;
  }

  nodeState(): NodeState {
    if (this.node === 'ACTIVE' && this.clusterState === 'PASSIVE') return 'PASSIVE';
    return this.node;
  }

  joined(): boolean {
    return this.node === 'ACTIVE';
  }

  version(): string {
    const [major = '0', minor = '0'] = this.local.version.split('.');
    return `${major}.${minor}`;
  }

  markJoined(): void {
    this.node = 'ACTIVE';
  }

  markShuttingDown(): void {
    this.node = 'SHUTTING_DOWN';
  }

  markShutDown(): void {
    this.node = 'SHUT_DOWN';
  }

  isShuttingDown(): boolean {
    return this.node === 'SHUTTING_DOWN' || this.node === 'SHUT_DOWN';
  }

  /** Change the cluster state; false when it already is `to`. */
  changeState(to: ClusterState): boolean {
    if (to === 'IN_TRANSITION') throw new GridError('BAD_REQUEST', 'IN_TRANSITION cannot be set');
    if (this.isShuttingDown()) throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    const from = this.clusterState;
    if (from === to) return false;
    this.clusterState = to;
    this.emit({ type: 'stateChanged', from, to });
    return true;
  }

  /** Ask the composition root to shut this member (or the whole cluster) down. */
  requestShutdown(scope: 'member' | 'cluster'): void {
    if (scope === 'cluster' && !this.joined()) {
      throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    }
    this.emit({ type: 'shutdownRequested', scope });
  }

  tcpIpMemberList(): readonly string[] {
    return this.tcpIpMembers;
  }

  setTcpIpMemberList(members: readonly string[]): void {
    this.tcpIpMembers = [...members];
  }

  on(listener: (e: ClusterEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  private emit(e: ClusterEvent): void {
    this.events.emit('event', e);
  }
}
