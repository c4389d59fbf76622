// ClusterService, the facade of membership: what member/, rest/, partition/, invocation/ and
// cp/ call (ClusterView, ClusterMembership, ClusterFacade). The work is in one module per
// concern, sharing state through ClusterContext (cluster-context.ts): join.ts, member-list.ts,
// heartbeats.ts (failure detection), master-takeover.ts, cluster-state-change.ts,
// leave-and-shutdown.ts, pause-fencing.ts, split-brain-merge.ts, and message-handlers.ts
// (the gate and the dispatch of member messages). The master alone changes the member list.

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { MemberNet } from '../net/member-net.js';
import { ClusterContext, type ClusterTuning } from './cluster-context.js';
import { reportClusterMetrics } from './cluster-metrics.js';
import { ClusterStateChange } from './cluster-state-change.js';
import { Heartbeats } from './heartbeats.js';
import { Join } from './join.js';
import { LeaveAndShutdown } from './leave-and-shutdown.js';
import { MasterTakeOver } from './master-takeover.js';
import { MemberList } from './member-list.js';
import { installMessageGate, registerClusterHandlers } from './message-handlers.js';
import { PauseFencing } from './pause-fencing.js';
import { SplitBrainMerge } from './split-brain-merge.js';
import type { ClusterEvent, ClusterState, MemberInfo, NodeState } from './types.js';

export type { ClusterTuning } from './cluster-context.js';

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
  /** Version of the member list (the master bumps it on every change). */
  memberListVersion(): number;
  master(): MemberInfo | undefined;
  isMaster(): boolean;
  memberByUuid(uuid: string): MemberInfo | undefined;
  /**
   * True while this member may hold a stale view (it was paused past the heartbeat deadline,
   * or a peer refused it as a non-member) and checks with the others: it acts on nothing.
   */
  fenced(): boolean;
  /** A peer refused this member as a non-member or stale: check with the cluster before acting again. */
  checkMembership(reason: string): void;
  /**
   * Whether this member still belongs to its cluster, once it knows: at once when it is not
   * fenced, else when its membership check ends (true) or it learns it was removed (false).
   * Asking notices a pause the heartbeat timer has not seen yet, like `fenced()`.
   */
  stillMember(): Promise<boolean>;
}

/** What the partition layer needs of membership: the view, its events, liveness, and the hand-off hook. */
export interface ClusterMembership extends ClusterView {
  on(listener: (e: ClusterEvent) => void): () => void;
  /** Set by the partition layer: move every partition replica off `uuid`; resolves when done. */
  setHandOff(fn: (uuid: string) => Promise<void>): void;
  /** True when `uuid` is in the member list and not suspected dead. */
  isAlive(uuid: string): boolean;
  /** The committed state, ignoring a state change in progress. */
  committedState(): ClusterState;
}

/** What the REST layer may do to the cluster: read it, change its state, ask for shutdown. */
export interface ClusterFacade extends ClusterView {
  /** Change the cluster state on every member; false when it already is `to`. */
  changeState(to: ClusterState): Promise<boolean>;
  requestShutdown(scope: 'member' | 'cluster'): void;
  tcpIpMemberList(): readonly string[];
  setTcpIpMemberList(members: readonly string[]): void;
}

export interface ClusterDeps {
  readonly clusterName: string;
  readonly local: MemberInfo;
  /** tcp-ip member list entries as configured (for the REST view). */
  readonly tcpIpMembers: readonly string[];
  /** Expanded `host:port` addresses to ask when joining. */
  readonly joinAddresses: () => readonly string[];
  readonly net: MemberNet | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: ClusterTuning;
}

export class ClusterService implements ClusterFacade, ClusterMembership {
  readonly clusterName: string;
  private readonly ctx: ClusterContext;
  private tcpIpMembers: string[];
  private readonly fencing: PauseFencing;
  private readonly list: MemberList;
  private readonly stateChange: ClusterStateChange;
  private readonly heartbeats: Heartbeats;
  private readonly joining: Join;
  private readonly splitBrain: SplitBrainMerge;
  private readonly leaving: LeaveAndShutdown;

  constructor(deps: ClusterDeps) {
    this.clusterName = deps.clusterName;
    this.tcpIpMembers = [...deps.tcpIpMembers];
    const ctx = (this.ctx = new ClusterContext(deps));
    this.fencing = new PauseFencing(ctx);
    this.list = new MemberList(ctx, this.fencing);
    this.stateChange = new ClusterStateChange(ctx);
    this.heartbeats = new Heartbeats(ctx, this.fencing, this.list, this.stateChange, new MasterTakeOver(ctx, this.list, this.fencing));
    this.joining = new Join(ctx, this.list, this.fencing, () => this.belongs());
    this.splitBrain = new SplitBrainMerge(ctx, this.joining, this.fencing);
    this.leaving = new LeaveAndShutdown(ctx, this.list, this.stateChange);
    if (ctx.net) {
      installMessageGate(ctx.net, ctx);
      registerClusterHandlers(ctx.net, { join: this.joining, list: this.list, heartbeats: this.heartbeats, stateChange: this.stateChange, leave: this.leaving, splitBrain: this.splitBrain });
    }
  }

  /** This member now belongs to a cluster (formed, joined or merged): heartbeats and the split-brain search start, once. */
  private belongs(): void {
    if (this.heartbeats.start()) this.splitBrain.start();
  }

  // ------------------------------------------------------------------ view

  /** Membership metrics (docs/metrics.md), read at scrape time. */
  reportMetrics(r: MetricsRegistrar): void {
    reportClusterMetrics(r, this, this.ctx);
  }

  localMember(): MemberInfo {
    return this.ctx.local;
  }

  /** Set this member's identity once its port is bound (before it joins). */
  setLocal(local: MemberInfo): void {
    const ctx = this.ctx;
    ctx.memberList = ctx.memberList.map((m) => (m.uuid === ctx.local.uuid ? local : m));
    ctx.local = local;
  }

  members(): readonly MemberInfo[] {
    return this.ctx.memberList;
  }

  memberListVersion(): number {
    return this.ctx.listVersion;
  }

  master(): MemberInfo | undefined {
    return this.ctx.master();
  }

  /** A removed or fenced member never acts as master, whatever its old list says. */
  isMaster(): boolean {
    return this.ctx.isMaster();
  }

  fenced(): boolean {
    return this.fencing.fenced();
  }

  /** True once the master removed this member (it stops; it hands nothing over). */
  wasRemoved(): boolean {
    return this.ctx.removed;
  }

  stillMember(): Promise<boolean> {
    return this.fencing.stillMember();
  }

  checkMembership(reason: string): void {
    this.fencing.checkMembership(reason);
  }

  memberByUuid(uuid: string): MemberInfo | undefined {
    return this.ctx.memberByUuid(uuid);
  }

  state(): ClusterState {
    return this.ctx.state();
  }

  /** The committed state, ignoring a state change in progress. */
  committedState(): ClusterState {
    return this.ctx.states.state;
  }

  nodeState(): NodeState {
    const ctx = this.ctx;
    if (ctx.node === 'ACTIVE' && ctx.states.state === 'PASSIVE') return 'PASSIVE';
    return ctx.node;
  }

  joined(): boolean {
    return this.ctx.joined();
  }

  version(): string {
    const [major = '0', minor = '0'] = this.ctx.local.version.split('.');
    return `${major}.${minor}`;
  }

  isShuttingDown(): boolean {
    return this.ctx.isShuttingDown();
  }

  /** True when `uuid` is in the member list and not suspected dead. */
  isAlive(uuid: string): boolean {
    return !this.ctx.suspected.has(uuid) && this.ctx.memberList.some((m) => m.uuid === uuid);
  }

  tcpIpMemberList(): readonly string[] {
    return this.tcpIpMembers;
  }

  setTcpIpMemberList(members: readonly string[]): void {
    this.tcpIpMembers = [...members];
  }

  setHandOff(fn: (uuid: string) => Promise<void>): void {
    this.ctx.handOff = fn;
  }

  on(listener: (e: ClusterEvent) => void): () => void {
    return this.ctx.on(listener);
  }

  // ------------------------------------------------------------------ lifecycle

  markShuttingDown(): void {
    this.ctx.node = 'SHUTTING_DOWN';
  }

  markShutDown(): void {
    const ctx = this.ctx;
    ctx.node = 'SHUT_DOWN';
    this.heartbeats.stop();
    this.splitBrain.stop();
    for (const t of ctx.monitors.values()) t.cancel();
    ctx.monitors.clear();
  }

  /** Find the cluster through the member list and join it, or form it. */
  join(): Promise<void> {
    return this.joining.join();
  }

  /** Change the cluster state on every member; false when it already is `to`. */
  changeState(to: ClusterState): Promise<boolean> {
    return this.stateChange.change(to);
  }

  /** Ask the composition root to shut this member (or the whole cluster) down. */
  requestShutdown(scope: 'member' | 'cluster'): void {
    this.leaving.requestShutdown(scope);
  }

  /** Graceful leave: hand partitions over (unless the cluster state forbids moving them), then leave the member list. */
  leave(): Promise<void> {
    return this.leaving.leave();
  }
}
