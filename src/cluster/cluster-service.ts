// Membership: joining through the tcp-ip member list, the versioned member list (join order,
// oldest = master), heartbeats and failure detection, master take-over, graceful leave and
// the cluster state, changed cluster-wide in two phases. The master alone changes the member
// list and pushes each new version to everyone; other members only follow it.

import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError, isGridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg, messageName } from '../protocol/messages.js';
import {
  decodeChangeState,
  decodeDiscover,
  decodeDiscoverAnswer,
  decodeEmpty,
  decodeFetchStateAnswer,
  decodeHeartbeat,
  decodeJoin,
  decodeJoinAnswer,
  decodeLeave,
  decodeMembers,
  decodeMergeTo,
  decodeStateCommit,
  decodeStatePrepare,
  decodeStateRollback,
  encodeChangeState,
  encodeDiscover,
  encodeDiscoverAnswer,
  encodeEmpty,
  encodeHeartbeat,
  encodeJoin,
  encodeJoinAnswer,
  encodeLeave,
  encodeMembers,
  encodeMergeTo,
  encodeStateCommit,
  encodeStatePrepare,
  encodeStateRollback,
  type MembersPayload,
  type WireClusterState,
} from '../protocol/payloads.js';
import { splitAddress, type MemberConnection, type MemberNet } from '../net/member-net.js';
import { DeadlineFailureDetector } from './failure-detector.js';
import { decideJoin, type DiscoverAnswer } from './join-decision.js';
import { admit, admitStateChange, judgeMemberList, removedWhilePaused, type GateView } from './member-rules.js';
import { applyMessageFault, parseMessageFaults } from '../core/test-hooks.js';
import { searchOtherClusters, type SplitBrainHost } from './split-brain.js';
import { ClusterStateMachine, type StateTransition } from './state-machine.js';
import type { ClusterEvent, ClusterState, MemberInfo, NodeState } from './types.js';
import type { MetricsRegistrar } from '../core/metrics.js';

/** Every state, so that a dashboard sees the one at 1 and the others at 0 (metrics). */
const METRIC_CLUSTER_STATES: readonly ClusterState[] = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE', 'IN_TRANSITION'];
const METRIC_NODE_STATES: readonly NodeState[] = ['STARTING', 'ACTIVE', 'PASSIVE', 'SHUTTING_DOWN', 'SHUT_DOWN'];

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

export interface ClusterTuning {
  readonly heartbeatIntervalMs: number;
  readonly maxNoHeartbeatMs: number;
  readonly connectionMonitorMaxFaults: number;
  readonly connectionMonitorIntervalMs: number;
  /** How long a member keeps trying to join before giving up. */
  readonly maxJoinMs: number;
  /** Timeout of cluster-internal calls (join, member list, state change). */
  readonly callTimeoutMs: number;
  /** grid.debug.ignore-messages (tests only): member messages to ignore on purpose. */
  readonly ignoreMessages?: string;
  /** hazelcast.merge.first.run.delay.seconds: when the master first looks for another cluster of the same name (split brain). */
  readonly mergeFirstRunDelayMs?: number;
  /** hazelcast.merge.next.run.delay.seconds: how often it looks again. */
  readonly mergeNextRunDelayMs?: number;
}

const JOIN_RETRY_MS = 200;
const MEMBERS_PUSH_TIMEOUT_MS = 5_000;
const STATE_LOCK_MS = 30_000;
const ASKED_BY_MEMORY_MS = 3_000;
/** A non-member that keeps sending heartbeats is told it was removed at most this often. */
const TELL_NON_MEMBER_EVERY_MS = 2_000;
/** How long a leaving member waits for the master to take its partitions. */
const LEAVE_TIMEOUT_MS = 120_000;
/** A leaving member whose master stays unreachable this long stops without a hand-over. */
const LEAVE_MASTER_GONE_MS = 10_000;

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
  private local: MemberInfo;
  private memberList: MemberInfo[];
  private listVersion = 0;
  /** The committed cluster state, its version and the lock of a change in progress. */
  private readonly states = new ClusterStateMachine(STATE_LOCK_MS);
  private node: NodeState = 'STARTING';
  private readonly events = new EventEmitter();
  private tcpIpMembers: string[];
  private readonly net: MemberNet | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly tuning: ClusterTuning;
  private readonly joinAddresses: () => readonly string[];
  private readonly detector: DeadlineFailureDetector;
  private readonly suspected = new Set<string>();
  /** Calls to wake when a member becomes suspected (a take-over stops waiting for its answer). */
  private readonly suspicionWaiters = new Map<string, Set<() => void>>();
  private readonly askedBy = new Map<string, number>();
  private readonly monitors = new Map<string, TimerHandle>();
  private heartbeatTimer: TimerHandle | undefined;
  /** Set by the partition layer: move every partition replica off `uuid`; resolves when done. */
  private handOff: ((uuid: string) => Promise<void>) | undefined;
  private leaving = false;
  private takingOver = false;
  /** Removed from the cluster by its master: this member takes nothing from anyone and stops. */
  private removed = false;
  /** Checking, after a pause or a refusal, that this member still belongs to the cluster. */
  private fencedSince: number | undefined;
  private verifying = false;
  /** Callers of `stillMember()` waiting for the membership check (or the removal) to settle it. */
  private readonly memberWaiters: ((belongs: boolean) => void)[] = [];
  private readonly toldNonMember = new Map<string, number>();
  /** When the heartbeat timer last ran (0 before it starts); a much later time means this process was paused. */
  private lastTickAt = 0;
  private pauseMs = Number.POSITIVE_INFINITY;
  /** Wall-clock ms since which this member is master (compared with another cluster's after a split brain). */
  private masterSince: number | undefined;
  private merging = false;
  private mergeTimer: TimerHandle | undefined;
  private readonly gateView: GateView;

  constructor(deps: ClusterDeps) {
    this.clusterName = deps.clusterName;
    this.local = deps.local;
    this.memberList = [deps.local];
    this.tcpIpMembers = [...deps.tcpIpMembers];
    this.net = deps.net;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.tuning = deps.tuning;
    this.joinAddresses = deps.joinAddresses;
    this.detector = new DeadlineFailureDetector(deps.tuning.maxNoHeartbeatMs);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.gateView = {
      get joined() {
        return self.joined();
      },
      get removed() {
        return self.removed;
      },
      get masterUuid() {
        return self.memberList[0]?.uuid;
      },
      isMember: (uuid) => this.memberList.some((m) => m.uuid === uuid),
    };
    if (this.net) {
      const faults = parseMessageFaults(deps.tuning.ignoreMessages ?? '', Msg);
      for (const p of faults.problems) this.logger.warn(`grid.debug.ignore-messages: ${p}`);
      if (faults.rules.length > 0) this.logger.warn(`grid.debug.ignore-messages is set: this member ignores some member messages on purpose (for tests only)`);
      this.net.setGate((type, from) => {
        const refusal = admit(type, from.peer?.uuid ?? '', this.gateView);
        if (refusal !== undefined || faults.rules.length === 0) return refusal;
        const fault = applyMessageFault(faults.rules, type);
        if (fault === undefined) return undefined;
        this.logger.warn(`${messageName(type)} from ${from.describe()} ignored on purpose (grid.debug.ignore-messages)`);
        return fault === 'drop' ? 'drop' : new GridError('CONFLICT', `${messageName(type)} refused on purpose (grid.debug.ignore-messages)`);
      });
      this.registerHandlers(this.net);
    }
  }

  // ------------------------------------------------------------------ view

  /** Membership metrics (docs/metrics.md), read at scrape time. */
  reportMetrics(r: MetricsRegistrar): void {
    r.gauge({ name: 'grid_cluster_members', help: "Members in this member's member list (itself and lite members included)" }, (report) => report(this.memberList.length));
    r.gauge({ name: 'grid_cluster_master', help: '1 when this member is the master (the oldest member), else 0' }, (report) => report(this.isMaster() ? 1 : 0));
    r.gauge({ name: 'grid_cluster_state', help: 'The cluster state as this member knows it: 1 for the current state, 0 for the others', labelNames: ['state'] }, (report) => {
      const now = this.state();
      for (const state of METRIC_CLUSTER_STATES) report(state === now ? 1 : 0, { state });
    });
    r.gauge({ name: 'grid_member_state', help: "This member's node state: 1 for the current state, 0 for the others", labelNames: ['state'] }, (report) => {
      const now = this.nodeState();
      for (const state of METRIC_NODE_STATES) report(state === now ? 1 : 0, { state });
    });
    r.gauge(
      {
        name: 'grid_cluster_heartbeat_age_seconds',
        help: 'Seconds since this member last heard from each other member (a heartbeat or any message); past hazelcast.max.no.heartbeat.seconds the member is suspected',
        labelNames: ['peer'],
      },
      (report) => {
        const now = this.clock.now();
        for (const m of this.memberList) {
          if (m.uuid === this.local.uuid) continue;
          const at = this.detector.lastHeardOf(m.uuid);
          if (at !== undefined) report(Math.max(0, now - at) / 1000, { peer: m.address });
        }
      },
    );
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

  memberListVersion(): number {
    return this.listVersion;
  }

  master(): MemberInfo | undefined {
    return this.memberList[0];
  }

  /** A removed or fenced member never acts as master, whatever its old list says. */
  isMaster(): boolean {
    return this.joined() && this.memberList[0]?.uuid === this.local.uuid && !this.removed && this.fencedSince === undefined;
  }

  fenced(): boolean {
    if (this.fencedSince !== undefined || this.removed) return true;
    // Back from a pause, the I/O that waited in socket buffers is handled before the heartbeat
    // timer runs: an operation must not run on the old view before the timer notices.
    if (this.lastTickAt !== 0) {
      const now = this.clock.now();
      if (now - this.lastTickAt > this.pauseMs) {
        this.pauseDetected(now, now - this.lastTickAt);
        return this.fencedSince !== undefined;
      }
    }
    return false;
  }

  /** This process did not run for `gapMs` (SIGSTOP, a frozen VM, a long GC): the others may have removed it. */
  private pauseDetected(now: number, gapMs: number): void {
    this.lastTickAt = now;
    if (this.isShuttingDown()) return;
    // The silence was ours: nobody is suspected for it.
    for (const m of this.memberList) if (m.uuid !== this.local.uuid) this.detector.heard(m.uuid, now);
    this.checkMembership(`this member did not run for ${(gapMs / 1000).toFixed(1)} s (paused?)`);
  }

  /** True once the master removed this member (it stops; it hands nothing over). */
  wasRemoved(): boolean {
    return this.removed;
  }

  stillMember(): Promise<boolean> {
    if (!this.fenced()) return Promise.resolve(true);
    if (this.removed) return Promise.resolve(false);
    return new Promise((resolve) => this.memberWaiters.push(resolve));
  }

  /** The membership check ended or this member was removed: tell whoever waits in `stillMember()`. */
  private settleMemberWaiters(): void {
    if (this.memberWaiters.length === 0 || (this.fencedSince !== undefined && !this.removed)) return;
    const belongs = !this.removed;
    for (const w of this.memberWaiters.splice(0)) w(belongs);
  }

  checkMembership(reason: string): void {
    if (this.verifying || this.removed || !this.joined() || this.isShuttingDown() || this.net === undefined) return;
    this.verifying = true;
    this.fencedSince = this.clock.now();
    this.logger.warn(`${reason}: checking with the other members that this member still belongs to the cluster before acting again`);
    this.verifyMembership()
      .catch((e: unknown) => this.logger.warn(`membership check failed: ${describeError(e)}`))
      .finally(() => {
        this.verifying = false;
        if (!this.removed && this.fencedSince !== undefined) {
          this.fencedSince = undefined;
          this.logger.info('membership confirmed: this member acts again');
          // Anything that waited for a master (this one, say) goes on.
          if (this.memberList[0]?.uuid === this.local.uuid) this.emit({ type: 'membersChanged', added: [], removed: [], masterChanged: false });
        }
        this.settleMemberWaiters();
      });
  }

  /**
   * Ask every member for its list. A newer list without this member, from a master that was a
   * member of this member's cluster, means it was removed while it could not hear it.
   */
  private async verifyMembership(): Promise<void> {
    const others = this.memberList.filter((m) => m.uuid !== this.local.uuid);
    const answers = await Promise.allSettled(others.map((m) => this.net!.request(m.address, Msg.FetchState, encodeEmpty(), this.tuning.callTimeoutMs)));
    for (const a of answers) {
      if (a.status !== 'fulfilled' || this.removed) continue;
      let version: number;
      let list: readonly MemberInfo[];
      try {
        ({ version, members: list } = decodeFetchStateAnswer(a.value));
      } catch (e) {
        this.logger.warn(`ignoring a malformed member list: ${describeError(e)}`);
        continue;
      }
      const me = { localUuid: this.local.uuid, version: this.listVersion, members: this.memberList.map((m) => m.uuid) };
      if (removedWhilePaused(me, { version, members: list.map((m) => m.uuid) })) {
        this.becomeRemoved(`master ${list[0]?.address ?? '?'} removed this member from the cluster (member list version ${version})`);
      }
    }
  }

  private becomeRemoved(why: string): void {
    if (this.removed) return;
    this.removed = true;
    this.settleMemberWaiters();
    if (!this.isShuttingDown()) {
      this.logger.error(`${why} (it was thought dead): shutting down without handing anything over, its data is stale`);
      this.emit({ type: 'removedFromCluster' });
    }
  }

  memberByUuid(uuid: string): MemberInfo | undefined {
    return this.memberList.find((m) => m.uuid === uuid);
  }

  state(): ClusterState {
    return this.states.visible(this.clock.now());
  }

  /** The committed state, ignoring a state change in progress. */
  committedState(): ClusterState {
    return this.states.state;
  }

  nodeState(): NodeState {
    if (this.node === 'ACTIVE' && this.states.state === 'PASSIVE') return 'PASSIVE';
    return this.node;
  }

  joined(): boolean {
    return this.node === 'ACTIVE' || (this.node === 'SHUTTING_DOWN' && this.listVersion > 0);
  }

  version(): string {
    const [major = '0', minor = '0'] = this.local.version.split('.');
    return `${major}.${minor}`;
  }

  isShuttingDown(): boolean {
    return this.node === 'SHUTTING_DOWN' || this.node === 'SHUT_DOWN';
  }

  /** True when `uuid` is in the member list and not suspected dead. */
  isAlive(uuid: string): boolean {
    return !this.suspected.has(uuid) && this.memberList.some((m) => m.uuid === uuid);
  }

  tcpIpMemberList(): readonly string[] {
    return this.tcpIpMembers;
  }

  setTcpIpMemberList(members: readonly string[]): void {
    this.tcpIpMembers = [...members];
  }

  setHandOff(fn: (uuid: string) => Promise<void>): void {
    this.handOff = fn;
  }

  on(listener: (e: ClusterEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  private emit(e: ClusterEvent): void {
    try {
      this.events.emit('event', e);
    } catch (err) {
      // A listener's failure must not stop membership (or the process, from a timer).
      this.logger.error({ err }, `cluster event ${e.type} handling failed: ${describeError(err)}`);
    }
  }

  // ------------------------------------------------------------------ lifecycle

  markShuttingDown(): void {
    this.node = 'SHUTTING_DOWN';
  }

  markShutDown(): void {
    this.node = 'SHUT_DOWN';
    this.stopTimers();
  }

  private stopTimers(): void {
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = undefined;
    this.mergeTimer?.cancel();
    this.mergeTimer = undefined;
    for (const t of this.monitors.values()) t.cancel();
    this.monitors.clear();
  }

  /** Find the cluster through the member list and join it, or form it. */
  async join(): Promise<void> {
    const addresses = this.joinAddresses().filter((a) => a !== this.local.address);
    if (this.net === undefined || addresses.length === 0) {
      this.form();
      return;
    }
    const started = this.clock.now();
    let round = 0;
    let lastWait = '';
    for (;;) {
      if (this.isShuttingDown()) throw new GridError('MEMBER_SHUTTING_DOWN', 'member stopped while joining');
      round++;
      const answers = (await Promise.all(addresses.map((a) => this.discover(a)))).filter((a): a is DiscoverAnswer => a !== undefined);
      const now = this.clock.now();
      for (const [a, at] of this.askedBy) if (now - at > ASKED_BY_MEMORY_MS) this.askedBy.delete(a);
      const decision = decideJoin({ self: this.local.address, answers, askedBy: [...this.askedBy.keys()], round });
      if (decision.action === 'form') {
        this.form();
        return;
      }
      if (decision.action === 'join') {
        const done = await this.tryJoin(decision.masterAddress);
        if (done) return;
      } else if (decision.reason !== lastWait) {
        lastWait = decision.reason;
        this.logger.debug(decision.reason);
      }
      if (this.clock.now() - started > this.tuning.maxJoinMs) {
        throw new GridError('TIMEOUT', `could not join a cluster within ${Math.round(this.tuning.maxJoinMs / 1000)} s`);
      }
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, JOIN_RETRY_MS));
    }
  }

  /** Become a cluster of one (the master). */
  private form(): void {
    this.memberList = [this.local];
    this.listVersion = 1;
    this.node = 'ACTIVE';
    this.noteMaster();
    this.startHeartbeats();
    this.logger.info(`formed cluster "${this.clusterName}" as its first member (master)`);
    this.emit({ type: 'membersChanged', added: [this.local], removed: [], masterChanged: true });
  }

  private async discover(address: string): Promise<DiscoverAnswer | undefined> {
    try {
      const r = decodeDiscoverAnswer(await this.net!.request(address, Msg.Discover, encodeDiscover({ uuid: this.local.uuid, address: this.local.address }), this.tuning.callTimeoutMs));
      if (r.uuid === this.local.uuid) return undefined; // ourselves under another address
      return { address: r.address, joined: r.joined, masterAddress: r.masterAddress };
    } catch (e) {
      if (isGridError(e) && e.code === 'FORBIDDEN') {
        // Security refused our identity: joining can never succeed.
        throw new GridError('FORBIDDEN', `member ${address} refused this member's credentials: ${e.message}`);
      }
      if (isGridError(e) && e.code === 'CONFLICT') {
        this.logNotSameCluster(address, e.message);
      }
      return undefined;
    }
  }

  private readonly refusedLogged = new Set<string>();
  private logNotSameCluster(address: string, why: string): void {
    if (this.refusedLogged.has(address)) return;
    this.refusedLogged.add(address);
    this.logger.warn(`member ${address} is not part of this cluster: ${why}`);
  }

  private lastJoinFailure = '';

  private async tryJoin(masterAddress: string): Promise<boolean> {
    let target = masterAddress;
    for (let hop = 0; hop < 3; hop++) {
      let answer: WireValue;
      if (this.logger.isLevelEnabled('debug')) this.logger.debug({ target }, `asking ${target} to join cluster "${this.clusterName}"`);
      try {
        answer = await this.net!.request(target, Msg.Join, encodeJoin({ member: this.local }), this.tuning.callTimeoutMs);
      } catch (e) {
        if (isGridError(e) && e.code === 'FORBIDDEN') throw e;
        const why = `join through ${target} failed, trying again: ${describeError(e)}`;
        if (why !== this.lastJoinFailure) this.logger.info(why);
        this.lastJoinFailure = why;
        return false;
      }
      let r: ReturnType<typeof decodeJoinAnswer>;
      try {
        r = decodeJoinAnswer(answer);
      } catch (e) {
        // A peer answering the join with the wrong shape is not a master: try again (elsewhere).
        const why = `join through ${target} failed, trying again: its answer is malformed: ${describeError(e)}`;
        if (why !== this.lastJoinFailure) this.logger.warn(why);
        this.lastJoinFailure = why;
        return false;
      }
      if (r.refusal !== undefined) throw new GridError('CONFLICT', `could not join the cluster through ${target}: ${r.refusal}`);
      if (r.redirect !== undefined) {
        if (this.logger.isLevelEnabled('debug')) this.logger.debug({ target, master: r.redirect }, `${target} is not the master: asking ${r.redirect}`);
        target = r.redirect;
        continue;
      }
      // decodeJoinAnswer refuses an answer with neither a refusal, a redirect nor a member list.
      this.applyMembers(r.members!, undefined);
      if (this.joined()) {
        this.startHeartbeats();
        this.logger.info(`joined cluster "${this.clusterName}" (master ${this.master()?.address ?? '?'}, ${this.memberList.length} members)`);
        return true;
      }
      return false;
    }
    return false;
  }

  // ------------------------------------------------------------------ member list

  private listPayload(): MembersPayload {
    return {
      version: this.listVersion,
      members: this.memberList,
      // The committed state: IN_TRANSITION is only ever derived from a lock, never stored.
      state: this.states.state as WireClusterState,
      stateVersion: this.states.version,
      masterSince: this.masterSince,
    };
  }

  private encodeList(): WireValue {
    return encodeMembers(this.listPayload());
  }

  /** Apply a member list pushed by the master (or answered to our join). */
  private applyMembers(p: MembersPayload, from: MemberConnection | undefined): void {
    const { version, members: list, state } = p;
    if (this.removed) return;
    const verdict = judgeMemberList(
      version,
      list.map((m) => m.uuid),
      from?.peer?.uuid,
      {
        localUuid: this.local.uuid,
        joined: this.joined(),
        shuttingDown: this.isShuttingDown(),
        version: this.listVersion,
        members: this.memberList.map((m) => m.uuid),
        isSuspected: (u) => this.suspected.has(u),
      },
    );
    if (verdict.action === 'removed') {
      this.becomeRemoved(`master ${list[0]?.address ?? '?'} removed this member from the cluster`);
      return;
    }
    if (verdict.action === 'ignore') {
      if (from?.peer !== undefined && this.joined() && version > this.listVersion) {
        this.logger.warn({ from: from.peer.address }, `member list version ${version} ignored: ${verdict.reason}`);
      }
      return;
    }
    for (const m of list) splitAddress(m.address);
    const before = this.memberList;
    const oldMaster = before[0]?.uuid;
    const wasJoined = this.joined();
    this.memberList = list.map((m) => (m.uuid === this.local.uuid ? this.local : m));
    this.listVersion = version;
    this.noteMaster();
    if (!this.isShuttingDown()) this.node = 'ACTIVE';
    const stateChange = this.states.fromList(state, p.stateVersion);
    const now = this.clock.now();
    const added = list.filter((m) => !before.some((b) => b.uuid === m.uuid) || !wasJoined);
    const removed = wasJoined ? before.filter((b) => !list.some((m) => m.uuid === b.uuid)) : [];
    for (const m of added) if (m.uuid !== this.local.uuid) this.detector.heard(m.uuid, now);
    for (const m of removed) this.forgetMember(m);
    if (wasJoined && (added.length > 0 || removed.length > 0)) this.logMembers();
    this.emit({ type: 'membersChanged', added, removed, masterChanged: oldMaster !== list[0]?.uuid || !wasJoined });
    this.emitState(stateChange);
  }

  private noteMaster(): void {
    if (this.memberList[0]?.uuid !== this.local.uuid) this.masterSince = undefined;
    else this.masterSince ??= Date.now();
  }

  /** `m` left the member list: forget its liveness and close its connections (later messages to its address go over new ones). */
  private forgetMember(m: MemberInfo): void {
    this.net?.closeMember(m.uuid, m.address);
    this.detector.forget(m.uuid);
    this.suspected.delete(m.uuid);
    this.monitors.get(m.address)?.cancel();
    this.monitors.delete(m.address);
  }

  private logMembers(): void {
    const lines = this.memberList.map((m) => `\tMember ${m.address} - ${m.uuid}${m.liteMember ? ' lite' : ''}${m.uuid === this.local.uuid ? ' this' : ''}`);
    this.logger.info(`Members {size:${this.memberList.length}, ver:${this.listVersion}} [\n${lines.join('\n')}\n]`);
  }

  /** Master: push the current list to every other member. */
  private async pushMembers(except?: string): Promise<void> {
    const payload = this.encodeList();
    await Promise.allSettled(
      this.memberList
        .filter((m) => m.uuid !== this.local.uuid && m.uuid !== except)
        .map((m) => this.net!.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS)),
    );
  }

  /** Master: change the list and tell everyone. */
  private commitList(next: MemberInfo[], added: MemberInfo[], removed: MemberInfo[]): void {
    const oldMaster = this.memberList[0]?.uuid;
    this.memberList = next;
    this.listVersion++;
    this.noteMaster();
    const now = this.clock.now();
    for (const m of added) this.detector.heard(m.uuid, now);
    for (const m of removed) this.forgetMember(m);
    this.logMembers();
    void this.pushMembers();
    this.emit({ type: 'membersChanged', added, removed, masterChanged: oldMaster !== next[0]?.uuid });
  }

  /** A member we do not list keeps beating: if it was ours, tell it (it was removed while it could not hear). */
  private tellNonMember(from: MemberConnection): void {
    if (!this.isMaster() || from.peer === undefined) return;
    const now = this.clock.now();
    const last = this.toldNonMember.get(from.peer.uuid);
    if (last !== undefined && now - last < TELL_NON_MEMBER_EVERY_MS) return;
    if (this.toldNonMember.size > 1000) this.toldNonMember.clear();
    this.toldNonMember.set(from.peer.uuid, now);
    from.request(Msg.Members, this.encodeList(), MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
  }

  /**
   * Send the new list to members just removed: one that was only paused or cut off (an old
   * master among them) learns from it, when it wakes up, that it must stop.
   */
  private tellRemoved(removed: readonly MemberInfo[]): void {
    const payload = this.encodeList();
    for (const m of removed) void this.net?.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
  }

  /** `graceful`: the member left on its own (an INFO line); otherwise its removal is a WARNING. */
  private removeMembers(uuids: readonly string[], reason: string, opts: { graceful?: boolean } = {}): void {
    const removed = this.memberList.filter((m) => uuids.includes(m.uuid) && m.uuid !== this.local.uuid);
    if (removed.length === 0) return;
    for (const m of removed) {
      if (opts.graceful === true) this.logger.info({ member: m.address, uuid: m.uuid }, `member ${m.address} (${m.uuid}) left the cluster gracefully`);
      else this.logger.warn(`removing member ${m.address} (${m.uuid}): ${reason}`);
    }
    this.commitList(
      this.memberList.filter((m) => !removed.includes(m)),
      [],
      removed,
    );
    this.tellRemoved(removed);
  }

  // ------------------------------------------------------------------ heartbeats and failures

  private startHeartbeats(): void {
    if (this.heartbeatTimer !== undefined || this.net === undefined) return;
    const tick = Math.min(this.tuning.heartbeatIntervalMs, 1000);
    // A tick that comes this late means this process did not run (SIGSTOP, a frozen VM, a long
    // GC): the others may have removed it meanwhile.
    this.pauseMs = Math.max(this.tuning.maxNoHeartbeatMs / 2, 2 * tick);
    let sinceBeat = Infinity;
    this.lastTickAt = this.clock.now();
    this.heartbeatTimer = this.clock.setInterval(() => {
      const now = this.clock.now();
      if (now - this.lastTickAt > this.pauseMs) this.pauseDetected(now, now - this.lastTickAt);
      this.lastTickAt = now;
      sinceBeat += tick;
      if (sinceBeat >= this.tuning.heartbeatIntervalMs) {
        sinceBeat = 0;
        this.sendHeartbeats();
      }
      // After the I/O of this loop turn: heartbeats that waited in socket buffers (this process
      // was paused or starved) count before anyone is suspected for silence.
      setImmediate(() => this.checkSilence());
    }, tick);
    this.net.onOutboundClosed((address) => this.monitor(address));
    this.scheduleMergeSearch(this.tuning.mergeFirstRunDelayMs ?? 300_000);
  }

  // ------------------------------------------------------------------ split brain: find and merge

  private scheduleMergeSearch(delayMs: number): void {
    this.mergeTimer?.cancel();
    this.mergeTimer = this.clock.setTimeout(() => {
      searchOtherClusters(this.splitBrainHost())
        .catch((e: unknown) => this.logger.warn(`looking for another cluster of this name failed: ${describeError(e)}`))
        .finally(() => {
          if (this.node !== 'SHUT_DOWN') this.scheduleMergeSearch(this.tuning.mergeNextRunDelayMs ?? 120_000);
        });
    }, delayMs);
  }

  /** The split-brain search's view of this member (split-brain.ts). */
  private splitBrainHost(): SplitBrainHost {
    return {
      clusterName: this.clusterName,
      localUuid: this.local.uuid,
      logger: this.logger,
      canSearch: () => this.isMaster() && !this.merging && !this.isShuttingDown() && this.state() === 'ACTIVE' && this.net !== undefined,
      memberAddresses: () => new Set([this.local.address, ...this.memberList.map((m) => m.address)]),
      joinAddresses: () => this.joinAddresses(),
      ourSide: () => ({ memberCount: this.memberList.length, masterSince: this.masterSince ?? Date.now(), masterAddress: this.local.address }),
      discover: (address) => this.discover(address),
      fetchCluster: async (address) => {
        const { members, state, masterSince } = decodeFetchStateAnswer(await this.net!.request(address, Msg.FetchState, encodeEmpty(), this.tuning.callTimeoutMs));
        return { members, state, masterSince };
      },
      mergeInto: async (target) => {
        const others = this.memberList.filter((m) => m.uuid !== this.local.uuid);
        await Promise.allSettled(others.map((m) => this.net!.request(m.address, Msg.MergeTo, encodeMergeTo({ target }), this.tuning.callTimeoutMs)));
        await this.mergeInto(target);
      },
    };
  }

  /**
   * Leave this cluster and join the one whose master is at `target`: the data services take
   * what this member owns first (event `merge`/`collect`), then forget this cluster (members,
   * table, state), join the other like a new member, and merge what they took (`joined`).
   */
  private async mergeInto(target: string): Promise<void> {
    if (this.merging || this.isShuttingDown()) return;
    this.merging = true;
    try {
      this.emit({ type: 'merge', phase: 'collect', target });
      const before = this.memberList.filter((m) => m.uuid !== this.local.uuid);
      for (const m of before) this.forgetMember(m);
      this.memberList = [this.local];
      this.listVersion = 0;
      this.node = 'STARTING';
      this.states.reset();
      this.suspected.clear();
      this.masterSince = undefined;
      this.fencedSince = undefined;
      this.settleMemberWaiters();
      const deadline = this.clock.now() + this.tuning.maxJoinMs;
      let joined = false;
      while (!joined && !this.isShuttingDown() && this.clock.now() < deadline) {
        joined = await this.tryJoin(target).catch((e: unknown) => {
          this.logger.warn(`merging into the cluster of ${target}: ${describeError(e)}`);
          return false;
        });
        if (!joined) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, JOIN_RETRY_MS));
      }
      if (!joined) {
        this.logger.error(`could not join the cluster of ${target} to merge into it: this member stays a cluster of its own`);
        this.form();
        this.emit({ type: 'merge', phase: 'failed', target });
        return;
      }
      this.logger.warn(`merged into the cluster of ${target}: merging the data this member owned`);
      this.emit({ type: 'merge', phase: 'joined', target });
    } finally {
      this.merging = false;
    }
  }

  private sendHeartbeats(): void {
    if (this.isShuttingDown() && !this.leaving) return;
    const payload = encodeHeartbeat({
      uuid: this.local.uuid,
      membersVersion: this.listVersion,
      clusterState: { state: this.states.state as WireClusterState, version: this.states.version, change: this.states.lockedTx(this.clock.now()) },
    });
    for (const m of this.memberList) {
      if (m.uuid !== this.local.uuid) this.net!.oneWay(m.address, Msg.Heartbeat, payload);
    }
    if (this.logger.isLevelEnabled('trace') && this.memberList.length > 1) {
      this.logger.trace({ to: this.memberList.filter((m) => m.uuid !== this.local.uuid).map((m) => m.address) }, 'heartbeat sent');
    }
  }

  private checkSilence(): void {
    for (const uuid of this.detector.silent(this.clock.now())) {
      if (this.memberList.some((m) => m.uuid === uuid)) {
        this.suspect(uuid, `no heartbeat for more than ${Math.round(this.tuning.maxNoHeartbeatMs / 1000)} s`);
      }
    }
  }

  /** The connection to `address` closed: try to reconnect; repeated failures mean the member is gone. */
  private monitor(address: string): void {
    if (this.monitors.has(address) || this.isShuttingDown()) return;
    const member = this.memberList.find((m) => m.address === address);
    if (member === undefined || member.uuid === this.local.uuid) return;
    let faults = 0;
    const attempt = (): void => {
      this.monitors.delete(address);
      if (!this.memberList.includes(member) || this.node === 'SHUT_DOWN') return;
      this.net!.connect(address).then(
        (conn) => {
          if (conn.peer !== undefined && conn.peer.uuid !== member.uuid) {
            this.suspect(member.uuid, `its address ${address} now belongs to member ${conn.peer.uuid}`);
          } else if (!this.isMaster()) {
            this.suspected.delete(member.uuid);
          }
        },
        (e: unknown) => {
          faults++;
          if (faults >= this.tuning.connectionMonitorMaxFaults) {
            this.suspect(member.uuid, `${faults} connection attempts failed (${describeError(e)})`);
          } else {
            this.monitors.set(address, this.clock.setTimeout(attempt, this.tuning.connectionMonitorIntervalMs));
          }
        },
      );
    };
    this.monitors.set(address, this.clock.setTimeout(attempt, this.tuning.connectionMonitorIntervalMs));
  }

  /** A request to member `uuid` that fails as soon as this member suspects it (instead of at its timeout). */
  private requestUnlessSuspected(uuid: string, address: string, type: number, payload: WireValue): Promise<WireValue> {
    if (this.suspected.has(uuid)) return Promise.reject(new GridError('MEMBER_UNREACHABLE', `member ${address} is suspected dead`));
    let cancel: (() => void) | undefined;
    const suspected = new Promise<never>((_resolve, reject) => {
      const fn = (): void => reject(new GridError('MEMBER_UNREACHABLE', `member ${address} is suspected dead`));
      let set = this.suspicionWaiters.get(uuid);
      if (set === undefined) this.suspicionWaiters.set(uuid, (set = new Set()));
      set.add(fn);
      cancel = () => {
        set.delete(fn);
        if (set.size === 0 && this.suspicionWaiters.get(uuid) === set) this.suspicionWaiters.delete(uuid);
      };
    });
    return Promise.race([this.net!.request(address, type, payload, this.tuning.callTimeoutMs), suspected]).finally(() => cancel?.());
  }

  private suspect(uuid: string, reason: string): void {
    if (this.suspected.has(uuid) || uuid === this.local.uuid || this.node === 'SHUT_DOWN' || this.fenced()) return;
    const member = this.memberByUuid(uuid);
    if (member === undefined) return;
    this.suspected.add(uuid);
    const waiters = this.suspicionWaiters.get(uuid);
    if (waiters !== undefined) for (const fn of [...waiters]) fn();
    this.logger.warn(`member ${member.address} (${uuid}) is suspected dead: ${reason}`);
    if (this.isMaster()) {
      this.removeMembers([uuid], reason);
      return;
    }
    // The master is gone: the oldest member still alive takes over.
    const next = this.memberList.find((m) => !this.suspected.has(m.uuid));
    if (next?.uuid === this.local.uuid && this.memberList[0]?.uuid !== this.local.uuid && !this.isShuttingDown() && !this.takingOver) {
      this.takingOver = true;
      this.takeOver()
        .catch((e: unknown) => this.logger.error(`taking over as master failed: ${describeError(e)}`))
        .finally(() => (this.takingOver = false));
    }
  }

  private async takeOver(): Promise<void> {
    this.logger.warn('the master is gone: this member is the oldest one left and takes over as master');
    // Another member may have seen a newer list from the old master: adopt the newest.
    let newestVersion = this.listVersion;
    const others = this.memberList.filter((m) => m.uuid !== this.local.uuid && !this.suspected.has(m.uuid));
    // A member suspected meanwhile (cut off with the old master, most often a moment later) is
    // not waited for: the split must complete within max-no-heartbeat of the cut.
    const answers = await Promise.allSettled(others.map((m) => this.requestUnlessSuspected(m.uuid, m.address, Msg.FetchState, encodeEmpty())));
    let list: readonly MemberInfo[] = this.memberList;
    let newestState: { state: ClusterState; version: number } | undefined;
    for (const a of answers) {
      if (a.status !== 'fulfilled') continue;
      try {
        const t = decodeFetchStateAnswer(a.value);
        const v = t.version;
        // The newest committed cluster state any member saw (the old master may have committed on some only).
        const sv = t.stateVersion ?? 0;
        if (sv > this.states.version && sv > (newestState?.version ?? 0)) newestState = { state: t.state, version: sv };
        if (v > newestVersion) {
          const decoded = t.members;
          if (!decoded.some((m) => m.uuid === this.local.uuid)) continue;
          newestVersion = v;
          list = decoded;
        }
      } catch (e) {
        this.logger.warn(`ignoring a malformed member list during take-over: ${describeError(e)}`);
      }
    }
    if (this.removed || this.fenced()) return;
    if (newestState !== undefined) this.emitState(this.states.takeNewest(newestState.state, newestState.version));
    // Everyone older than this member is gone (that is why it takes over), and so is every suspect.
    const selfAt = list.findIndex((x) => x.uuid === this.local.uuid);
    const next = list.filter((m, i) => i >= selfAt && !this.suspected.has(m.uuid)).map((m) => (m.uuid === this.local.uuid ? this.local : m));
    const before = this.memberList;
    this.listVersion = Math.max(this.listVersion, newestVersion);
    const added = next.filter((m) => !before.some((b) => b.uuid === m.uuid));
    const removed = before.filter((b) => !next.some((m) => m.uuid === b.uuid));
    this.commitList(next, added, removed);
    this.tellRemoved(removed);
  }

  // ------------------------------------------------------------------ handlers

  private registerHandlers(net: MemberNet): void {
    net.handle(Msg.Discover, (p) => {
      const { address } = decodeDiscover(p);
      if (!this.joined()) this.askedBy.set(address, this.clock.now());
      return encodeDiscoverAnswer({ uuid: this.local.uuid, address: this.local.address, joined: this.joined(), masterAddress: this.joined() ? this.master()?.address : undefined });
    });
    net.handle(Msg.Join, (p, from) => this.onJoin(decodeJoin(p).member, from));
    net.handle(Msg.Members, (p, from) => {
      this.applyMembers(decodeMembers(p), from);
      return null;
    });
    net.handle(Msg.FetchState, (p) => {
      decodeEmpty(p, 'fetch state');
      return this.encodeList();
    });
    net.handleOneWay(Msg.Heartbeat, (p, from) => {
      const { uuid, membersVersion: theirVersion, clusterState: masterState } = decodeHeartbeat(p);
      if (uuid !== from.peer?.uuid) return; // a member beats for itself only
      if (!this.memberList.some((m) => m.uuid === uuid)) {
        this.tellNonMember(from);
        return;
      }
      this.detector.heard(uuid, this.clock.now());
      if (this.logger.isLevelEnabled('trace')) this.logger.trace({ from: from.peer.address, membersVersion: theirVersion }, 'heartbeat received');
      // Heard again: whatever made us suspect it has passed (only the master removes members).
      if (!this.isMaster()) this.suspected.delete(uuid);
      if (uuid === this.memberList[0]?.uuid && uuid !== this.local.uuid && masterState !== undefined) {
        this.followMasterState(masterState.state, masterState.version, masterState.change);
      }
      // A member that missed a push is sent the current list again.
      if (this.isMaster() && theirVersion < this.listVersion) {
        const m = this.memberByUuid(uuid);
        if (m !== undefined) void this.net!.request(m.address, Msg.Members, this.encodeList(), MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
      }
    });
    net.handle(Msg.ChangeState, (p) => {
      return this.changeState(decodeChangeState(p).state);
    });
    net.handle(Msg.StatePrepare, (p) => {
      const { txId, state: to, membersVersion } = decodeStatePrepare(p);
      const stale = admitStateChange('state change', membersVersion, this.listVersion);
      if (stale !== undefined) throw stale;
      this.prepareState(txId, to);
      return null;
    });
    net.handle(Msg.StateCommit, (p) => {
      const { txId, state: to, membersVersion, stateVersion } = decodeStateCommit(p);
      const stale = admitStateChange('state commit', membersVersion, this.listVersion);
      if (stale !== undefined) throw stale;
      this.emitState(this.states.commit(txId, to, stateVersion));
      return null;
    });
    net.handle(Msg.StateRollback, (p) => {
      this.states.rollback(decodeStateRollback(p).txId);
      return null;
    });
    net.handle(Msg.LeaveRequest, (p, from) => {
      const { uuid } = decodeLeave(p);
      if (uuid !== from.peer?.uuid) throw new GridError('NOT_MEMBER', `member ${from.peer?.uuid ?? '?'} may not ask for member ${uuid} to leave`);
      return this.onLeaveRequest(uuid);
    });
    net.handleOneWay(Msg.Leave, (p, from) => {
      const { uuid } = decodeLeave(p);
      if (uuid !== from.peer?.uuid) {
        this.logger.warn(`member ${from.describe()} asked for member ${uuid} to leave: refused (a member leaves for itself only)`);
        return;
      }
      if (this.isMaster()) this.removeMembers([uuid], 'it left the cluster', { graceful: true });
    });
    net.handle(Msg.MergeTo, (p, from) => {
      const { target } = decodeMergeTo(p);
      splitAddress(target);
      // The gate already takes it from the master only; a merge throws this member's data away, so check again.
      if (from.peer?.uuid !== this.memberList[0]?.uuid || !this.joined()) throw new GridError('NOT_MEMBER', 'MergeTo refused: only this member\'s master may ask it to merge');
      this.logger.warn(`split brain healed: the master asks this member to merge into the cluster of ${target}`);
      void this.mergeInto(target);
      return null;
    });
    net.handleOneWay(Msg.ClusterShutdown, (p) => {
      decodeEmpty(p, 'cluster shutdown');
      this.logger.info('cluster shutdown requested by another member');
      this.emit({ type: 'shutdownRequested', scope: 'member' });
    });
  }

  private async onJoin(joiner: MemberInfo, from: MemberConnection): Promise<WireValue> {
    if (!this.joined() || this.isShuttingDown() || this.fenced()) throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    if (!this.isMaster()) return encodeJoinAnswer({ redirect: this.master()?.address });
    if (this.memberList.some((m) => m.uuid === joiner.uuid)) return encodeJoinAnswer({ members: this.listPayload() });
    // The joiner is who its connection authenticated as, at an address this member can reach
    // and that answers with the same uuid: a forged Join cannot add a member nobody can reach.
    if (joiner.uuid !== from.peer?.uuid || joiner.address !== from.peer.address) {
      throw new GridError('NOT_MEMBER', `join refused: the joining member's identity differs from its connection's (${from.peer?.uuid ?? '?'} at ${from.peer?.address ?? '?'})`);
    }
    splitAddress(joiner.address);
    let back: MemberConnection;
    try {
      back = await this.net!.connect(joiner.address);
    } catch (e) {
      throw new GridError('CONFLICT', `join refused: this master cannot reach ${joiner.address}: ${describeError(e)}`);
    }
    if (back.peer?.uuid !== joiner.uuid) {
      back.close();
      throw new GridError('CONFLICT', `join refused: ${joiner.address} answers as member ${back.peer?.uuid ?? '?'}, not ${joiner.uuid}`);
    }
    // The world may have moved while dialling.
    if (!this.isMaster()) return encodeJoinAnswer({ redirect: this.master()?.address });
    if (this.memberList.some((m) => m.uuid === joiner.uuid)) return encodeJoinAnswer({ members: this.listPayload() });
    const state = this.state();
    if (state === 'IN_TRANSITION') throw new GridError('CONFLICT', 'the cluster state is changing: try again');
    if (state === 'FROZEN' || state === 'PASSIVE') {
      this.logger.warn(`member ${joiner.address} may not join: the cluster is ${state}`);
      // A refusal the joiner cannot wait out: it stops instead of retrying.
      return encodeJoinAnswer({ refusal: `the cluster is ${state}: no member may join until it is ACTIVE or NO_MIGRATION again` });
    }
    // A member restarted on the same address replaces its dead predecessor.
    const stale = this.memberList.filter((m) => m.address === joiner.address);
    const next = [...this.memberList.filter((m) => !stale.includes(m)), joiner];
    for (const m of stale) this.logger.warn(`member ${m.address} (${m.uuid}) was replaced by a new member at the same address`);
    this.logger.info(`member ${joiner.address} (${joiner.uuid}${joiner.liteMember ? ', lite' : ''}) joins`);
    this.commitList(next, [joiner], stale);
    return encodeJoinAnswer({ members: this.listPayload() });
  }

  // ------------------------------------------------------------------ cluster state

  /** Change the cluster state on every member; false when it already is `to`. */
  async changeState(to: ClusterState): Promise<boolean> {
    if (to === 'IN_TRANSITION') throw new GridError('BAD_REQUEST', 'IN_TRANSITION cannot be set');
    if (this.isShuttingDown()) throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    if (!this.isMaster()) {
      const master = this.master();
      if (master === undefined || this.net === undefined) throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
      const r = await this.net.request(master.address, Msg.ChangeState, encodeChangeState({ state: to }), this.tuning.callTimeoutMs);
      return r === true;
    }
    if (this.states.state === to) return false;
    const txId = randomUUID();
    this.prepareState(txId, to);
    const others = this.memberList.filter((m) => m.uuid !== this.local.uuid);
    const prepared = await Promise.allSettled(
      others.map((m) => this.net!.request(m.address, Msg.StatePrepare, encodeStatePrepare({ txId, state: to, membersVersion: this.listVersion }), this.tuning.callTimeoutMs)),
    );
    const refused = prepared.findIndex((p) => p.status === 'rejected');
    if (refused !== -1) {
      const reason = describeError((prepared[refused] as PromiseRejectedResult).reason);
      this.states.rollback(txId);
      await Promise.allSettled(others.map((m) => this.net!.request(m.address, Msg.StateRollback, encodeStateRollback({ txId }), this.tuning.callTimeoutMs)));
      throw new GridError('CONFLICT', `cluster state not changed: member ${others[refused]!.address} refused: ${reason}`);
    }
    // A member that misses this commit (lost, timed out) catches up from the master's heartbeats.
    const version = this.states.version + 1;
    await Promise.allSettled(
      others.map((m) => this.net!.request(m.address, Msg.StateCommit, encodeStateCommit({ txId, state: to, membersVersion: this.listVersion, stateVersion: version }), this.tuning.callTimeoutMs)),
    );
    this.emitState(this.states.commit(txId, to, version));
    return true;
  }

  /**
   * The master's heartbeat says which state it committed last and which change it has in
   * progress: a member that missed a commit takes the state, one that missed a rollback (or
   * whose change the master gave up) releases its lock.
   */
  private followMasterState(state: ClusterState, version: number, masterTx: string | undefined): void {
    const r = this.states.followMaster(state, version, masterTx);
    if (r?.kind === 'adopted') {
      this.logger.warn(`cluster state ${state} (version ${version}) taken from the master's heartbeat: this member missed its commit`);
      this.emitState(r.transition);
    } else if (r?.kind === 'released') {
      this.logger.warn(`cluster state change ${r.txId} released: the master has no such change in progress (its rollback was missed)`);
    }
  }

  private prepareState(txId: string, to: ClusterState): void {
    this.states.prepare(txId, to, this.clock.now(), this.isShuttingDown());
  }

  private emitState(t: StateTransition | undefined): void {
    if (t !== undefined) this.emit({ type: 'stateChanged', from: t.from, to: t.to });
  }

  // ------------------------------------------------------------------ shutdown

  /** Ask the composition root to shut this member (or the whole cluster) down. */
  requestShutdown(scope: 'member' | 'cluster'): void {
    if (scope === 'cluster' && !this.joined()) {
      throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    }
    if (scope === 'member') {
      this.emit({ type: 'shutdownRequested', scope });
      return;
    }
    void (async () => {
      try {
        if (this.states.state !== 'PASSIVE') await this.changeState('PASSIVE');
      } catch (e) {
        this.logger.warn(`cluster shutdown: could not make the cluster PASSIVE first: ${describeError(e)}`);
      }
      // Every member must have taken the shutdown before this one starts leaving: once the master
      // drops this member from the list, the others refuse its messages. A read on the same
      // connection (frames are handled in order) answers only after the shutdown was handled.
      const others = this.memberList.filter((m) => m.uuid !== this.local.uuid);
      await Promise.allSettled(
        others.map((m) => {
          this.net?.oneWay(m.address, Msg.ClusterShutdown, encodeEmpty());
          return this.net?.request(m.address, Msg.FetchState, encodeEmpty(), Math.min(this.tuning.callTimeoutMs, 5_000));
        }),
      );
      this.emit({ type: 'shutdownRequested', scope: 'cluster' });
    })();
  }

  /** Graceful leave: hand partitions over (unless the cluster state forbids moving them), then leave the member list. */
  async leave(): Promise<void> {
    if (this.net === undefined || this.listVersion === 0 || this.memberList.length <= 1) return;
    // A removed member's partitions are stale: the cluster already promoted their backups.
    if (this.removed) return;
    this.leaving = true;
    const moves = this.states.state === 'ACTIVE' || this.states.state === 'NO_MIGRATION';
    try {
      if (this.memberList[0]?.uuid === this.local.uuid) {
        await this.leaveAsMaster(moves);
      } else if (moves) {
        // Ask the master (whoever it is by then: it may change meanwhile) until it has taken our partitions.
        const deadline = this.clock.now() + LEAVE_TIMEOUT_MS;
        let masterGoneSince: number | undefined;
        for (;;) {
          const master = this.master()!;
          if (master.uuid === this.local.uuid) {
            // The master left meanwhile (every member stopping at once) and this member is the oldest now.
            await this.leaveAsMaster(moves);
            break;
          }
          try {
            await this.net.request(master.address, Msg.LeaveRequest, encodeLeave({ uuid: this.local.uuid }), Math.max(1, deadline - this.clock.now()));
            break;
          } catch (e) {
            if (this.clock.now() >= deadline || this.memberList.length <= 1) throw e;
            // A master that is gone or stopping cannot take the partitions. Waiting for the failure
            // detector to name another one can take max.no.heartbeat; after a while leave as a
            // crash would: the backups on the other members take over (nothing with a backup is lost).
            const gone = isGridError(e) && (e.code === 'MEMBER_UNREACHABLE' || e.code === 'MEMBER_SHUTTING_DOWN' || e.code === 'TIMEOUT');
            masterGoneSince = gone ? (masterGoneSince ?? this.clock.now()) : undefined;
            if (masterGoneSince !== undefined && this.clock.now() - masterGoneSince >= LEAVE_MASTER_GONE_MS) {
              throw new GridError('MEMBER_UNREACHABLE', `master ${master.address} unreachable for ${LEAVE_MASTER_GONE_MS / 1000} s while leaving: stopping without handing partitions over (their backups take over)`);
            }
            this.logger.info(`leave through master ${master.address} failed, asking again: ${describeError(e)}`);
            await new Promise<void>((resolve) => this.clock.setTimeout(resolve, 500));
          }
        }
      } else {
        this.net.oneWay(this.master()!.address, Msg.Leave, encodeLeave({ uuid: this.local.uuid }));
      }
    } catch (e) {
      this.logger.warn(`leaving the cluster: ${describeError(e)}`);
    } finally {
      this.leaving = false;
    }
  }

  /** Hand this master's partitions over, then mastership to the next oldest by pushing a list without this member. */
  private async leaveAsMaster(moves: boolean): Promise<void> {
    if (moves && this.handOff) await this.handOff(this.local.uuid);
    const next = this.memberList.filter((m) => m.uuid !== this.local.uuid);
    this.memberList = next;
    this.listVersion++;
    const payload = this.encodeList();
    await Promise.allSettled(next.map((m) => this.net!.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS)));
  }

  private async onLeaveRequest(uuid: string): Promise<WireValue> {
    if (!this.isMaster()) throw new GridError('CONFLICT', 'not the master');
    const m = this.memberByUuid(uuid);
    if (m === undefined) return null;
    this.logger.info(`member ${m.address} is leaving: handing its partitions over`);
    if (this.handOff && (this.states.state === 'ACTIVE' || this.states.state === 'NO_MIGRATION')) await this.handOff(uuid);
    this.removeMembers([uuid], 'it left the cluster', { graceful: true });
    return null;
  }
}
