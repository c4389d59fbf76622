// The CP subsystem's shell: it runs the Raft nodes of the CP groups this member belongs to
// (raft.ts, pure) over the member protocol, feeds their committed entries to the groups' state
// machines (cp-metadata-state.ts, cp-data-state.ts, pure), forms the subsystem among the first
// `cp-member-count` members, keeps every member's view of the CP members and groups, and routes
// every CP call from any member to its group's leader. Nothing here decides a rule of Raft or
// of a structure; it only does the I/O and the timing around them.
//
// Identities: a CP member is a process, not a member uuid (a member restarted from persisted
// data keeps its member uuid but has lost its Raft state, so it must not vote as before):
// `cpUuid` is fresh per process and per reset. Group ids are numbers under a `seed` — the
// subsystem's incarnation — so messages from before a reset are ignored.
//
// Calls are exactly-once while the group's deduplication table holds their key: the member
// that took the REST request retries the same command (same key) at the next leader after a
// timeout, a lost connection or an indeterminate proposal, and the state machine answers a
// repeated key from its table instead of applying it again.

import { randomUUID } from 'node:crypto';
import type { GridConfig } from '../config/types.js';
import { lockAcquireLimitOf } from '../config/match.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError, isGridErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ClusterMembership } from '../cluster/cluster-service.js';
import type { MemberInfo } from '../cluster/types.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeCpBootstrap,
  decodeCpDiscoverAnswer,
  decodeCpFetchViewAnswer,
  decodeCpInvoke,
  decodeCpInvokeAnswer,
  decodeCpRaft,
  decodeCpReset,
  decodeCpView,
  encodeCpBootstrap,
  encodeCpDiscoverAnswer,
  encodeCpFetchViewAnswer,
  encodeCpInvoke,
  encodeCpInvokeAnswer,
  encodeCpRaft,
  encodeCpReset,
  encodeCpView,
} from '../protocol/cp-payloads.js';
import { encodeEmpty } from '../protocol/payloads.js';
import type { MemberConnection } from '../net/member-net.js';
import { RaftNode, type RaftConfig, type RaftOutput, type RaftMemberId } from './raft.js';
import { CpDataState, type CpAnswer, type CpLockInfo, type CpSessionInfo } from './cp-data-state.js';
import {
  CpMetadataState,
  DEFAULT_GROUP,
  METADATA_GROUP,
  METADATA_GROUP_ID,
  checkGroupName,
  groupFromWire,
  viewFromWire,
  viewToWire,
  type CpGroupChange,
  type CpGroupRec,
  type CpMemberRec,
  type CpView,
} from './cp-metadata-state.js';

/** What the CP service needs of the member protocol. */
export interface CpNet {
  handle(type: number, handler: (payload: WireValue, from: MemberConnection) => WireValue | Promise<WireValue>): void;
  handleOneWay(type: number, handler: (payload: WireValue, from: MemberConnection) => void): void;
  request(address: string, type: number, payload: WireValue, timeoutMs: number): Promise<WireValue>;
  oneWay(address: string, type: number, payload: WireValue): void;
  onOutboundClosed(fn: (address: string) => void): void;
}

export interface CpDeps {
  readonly config: GridConfig;
  readonly net: CpNet;
  readonly cluster: ClusterMembership;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random?: () => number;
}

/** A CP member as the REST answers show it (Hazelcast's shape). */
export interface CpMemberView {
  readonly uuid: string;
  readonly address: string;
}

export interface CpGroupView {
  readonly id: { readonly name: string; readonly id: number };
  readonly status: 'ACTIVE';
  readonly members: readonly CpMemberView[];
}

export interface CpLockResult {
  readonly acquired: boolean;
  readonly fence: number;
  readonly sessionId: number;
  readonly lockCount: number;
  readonly group: string;
}

/** What the REST layer may do with the CP subsystem. */
export interface CpFacade {
  readonly enabled: boolean;
  groups(): Promise<{ name: string; id: number }[]>;
  group(name: string): Promise<CpGroupView | undefined>;
  sessions(group: string): Promise<CpSessionInfo[] | undefined>;
  closeSession(group: string, sessionId: number): Promise<boolean>;
  destroyGroup(name: string): Promise<void>;
  members(): Promise<CpMemberView[]>;
  localMember(): CpMemberView | undefined;
  promote(): Promise<void>;
  removeMember(cpUuid: string): Promise<void>;
  reset(): Promise<void>;
  atomicLong(name: string): Promise<string>;
  setAtomicLong(name: string, value: string): Promise<string>;
  addAndGet(name: string, delta: string): Promise<string>;
  compareAndSet(name: string, expect: string, update: string): Promise<boolean>;
  lock(name: string, opts: { sessionId: number; timeoutMs: number; endpoint: string; endpointName: string; onGone?: (fn: () => void) => void }): Promise<CpLockResult>;
  unlock(name: string, sessionId: number): Promise<number>;
  lockInfo(name: string): Promise<CpLockInfo & { group: string }>;
  heartbeat(group: string, sessionId: number): Promise<{ sessionId: number; expirationTime: number }>;
  /** Raft figures of the groups this member hosts (GET /rest/cp). */
  status(): CpLocalStatus;
}

export interface CpLocalStatus {
  readonly enabled: boolean;
  readonly seed: number | undefined;
  readonly cpMemberUuid: string | undefined;
  readonly viewVersion: number | undefined;
  readonly groups: readonly { name: string; id: number; role: string; term: number; leader: string | undefined; commitIndex: number; lastApplied: number; members: readonly string[] }[];
}

/** How often the housekeeping runs (bootstrap, view broadcast, group repairs, session expiry). */
const TICK_MS = 250;
/** The METADATA leader re-sends its view this often even when nothing changed (lost one-way messages). */
const VIEW_RESEND_MS = 3_000;
const MEMBER_CALL_TIMEOUT_MS = 5_000;
/** A call to a group member that does not answer within this is tried at another member. */
const ATTEMPT_TIMEOUT_MS = 3_000;
/** Deduplication keys: unique per process (a member uuid) and call. */
let nextKey = 1;

type Sm = { kind: 'data'; state: CpDataState } | { kind: 'metadata'; state: CpMetadataState };

interface Proposal {
  readonly term: number;
  readonly key: string;
  resolve(a: CpAnswer): void;
  reject(e: GridError): void;
}

interface GroupNode {
  readonly rec: CpGroupRec;
  readonly raft: RaftNode;
  sm: Sm;
  lastApplied: number;
  timer: TimerHandle | undefined;
  timerAtMs: number | undefined;
  readonly proposals: Map<number, Proposal>;
  /** Lock waits answered here when the lock is granted (by invocation key). */
  readonly waits: Map<string, { resolve(a: CpAnswer): void; reject(e: GridError): void }>;
  readonly reads: Map<number, { resolve(): void; reject(e: GridError): void }>;
  readonly changes: Map<number, { resolve(members: readonly string[]): void; reject(e: GridError): void }>;
  destroyed: boolean;
  leaderHint: string | undefined;
  /** When a `tick` was last proposed (the leader expires sessions and waits through it). */
  lastTickMs: number;
}

const notLeader = (hint: string | undefined): WireValue => encodeCpInvokeAnswer({ tag: 'retry', reason: 'NOT_LEADER', hint });
const retry = (reason: string): WireValue => encodeCpInvokeAnswer({ tag: 'retry', reason });
const okAnswer = (value: WireValue): WireValue => encodeCpInvokeAnswer({ tag: 'ok', value });

export class CpService implements CpFacade {
  readonly enabled: boolean;
  private readonly deps: CpDeps;
  private readonly raftConfig: Partial<RaftConfig>;
  private readonly random: () => number;
  private cpUuid = randomUUID();
  private seed: number | undefined;
  /** A reset named the next seed: only views and bootstraps of that seed are taken. */
  private pendingSeed: number | undefined;
  private view: CpView | undefined;
  private readonly nodes = new Map<number, GroupNode>();
  /** Where each group's leader was last found (cp uuid), for routing. */
  private readonly leaders = new Map<number, string>();
  private readonly addresses = new Map<string, string>();
  private tickTimer: TimerHandle | undefined;
  private bootstrapping = false;
  private lastViewSentMs = 0;
  private viewDirty = false;
  private readonly missingSince = new Map<string, number>();
  private readonly changesInFlight = new Set<string>();
  private promoting = false;
  private droppingStale = false;
  private clusterShutdown = false;
  /** Shutting down: gives its seat up, and must not be promoted again meanwhile. */
  private leaving = false;
  private stopped = false;
  private waitingLogged = false;

  constructor(deps: CpDeps) {
    this.deps = deps;
    const cp = deps.config.cpSubsystem;
    this.enabled = cp.enabled;
    this.random = deps.random ?? Math.random;
    const r = cp.raftAlgorithm;
    this.raftConfig = {
      leaderElectionTimeoutMs: r.leaderElectionTimeoutMs,
      leaderHeartbeatPeriodMs: r.leaderHeartbeatPeriodMs,
      maxMissedLeaderHeartbeatCount: r.maxMissedLeaderHeartbeatCount,
      appendRequestMaxEntryCount: r.appendRequestMaxEntryCount,
      commitIndexAdvanceCountToSnapshot: r.commitIndexAdvanceCountToSnapshot,
      uncommittedEntryCountToRejectNewAppends: r.uncommittedEntryCountToRejectNewAppends,
      appendRequestBackoffTimeoutMs: r.appendRequestBackoffTimeoutMs,
    };
  }

  // ------------------------------------------------------------------ lifecycle

  start(): void {
    if (!this.enabled) return;
    const net = this.deps.net;
    net.handleOneWay(Msg.CpRaft, (p, conn) => this.onRaft(p, conn));
    net.handle(Msg.CpInvoke, (p) => this.onInvoke(p));
    net.handleOneWay(Msg.CpView, (p) => this.onView(p));
    net.handle(Msg.CpFetchView, () => encodeCpFetchViewAnswer({ view: this.view }));
    // [cpUuid, seed, leaving]: a member shutting down is not promoted.
    net.handle(Msg.CpDiscover, () => encodeCpDiscoverAnswer({ cpUuid: this.cpUuid, seed: this.seed ?? 0, leaving: this.leaving }));
    net.handle(Msg.CpBootstrap, (p) => this.onBootstrap(p));
    net.handle(Msg.CpReset, (p) => {
      this.wipe(decodeCpReset(p).seed);
      return null;
    });
    net.onOutboundClosed((address) => this.peerLost(address));
    this.deps.cluster.on((e) => {
      // The whole cluster stops: the seats end with the processes (no hand-over to wait for).
      if (e.type === 'shutdownRequested' && e.scope === 'cluster') this.clusterShutdown = true;
      if (e.type === 'membersChanged') {
        for (const m of e.removed) this.peerLost(m.address);
        if (e.added.length > 0) this.viewDirty = true;
      }
    });
    this.tickTimer = this.deps.clock.setInterval(() => this.tick(), TICK_MS);
  }

  /**
   * A graceful stop of a CP member (not a cluster shutdown): give its CP seat up so that the
   * groups replace it now rather than after missing-cp-member-auto-removal-seconds. Best
   * effort within `timeoutMs`; a crash leaves the seat to the auto-removal or a REST remove.
   */
  async leave(timeoutMs: number): Promise<void> {
    const v = this.view;
    if (!this.enabled || v === undefined || this.stopped) return;
    if (!v.cpMembers.some((m) => m.cpUuid === this.cpUuid) || v.cpMembers.length <= 1) return;
    if (this.clusterShutdown || this.deps.cluster.state() === 'PASSIVE') return;
    this.leaving = true;
    try {
      await this.proposeMetadata(['removeMember', this.cpUuid], this.now() + timeoutMs);
      this.deps.logger.info('CP subsystem: this member gave up its CP seat (graceful shutdown); the groups replace it');
    } catch (e) {
      this.deps.logger.warn(`CP subsystem: could not give up this member's CP seat before shutting down (it is removed after missing-cp-member-auto-removal-seconds, or by REST): ${describeError(e)}`);
    }
  }

  stop(): void {
    this.stopped = true;
    this.tickTimer?.cancel();
    for (const n of this.nodes.values()) this.destroyNode(n, new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    this.nodes.clear();
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private get local(): MemberInfo {
    return this.deps.cluster.localMember();
  }

  // ------------------------------------------------------------------ forming the subsystem

  private tick(): void {
    if (this.stopped) return;
    try {
      if (this.seed === undefined) {
        void this.maybeBootstrap();
        return;
      }
      if (this.view !== undefined) this.dropOwnStaleSeat(this.view);
      const meta = this.nodes.get(METADATA_GROUP_ID);
      if (meta !== undefined && meta.raft.status().role === 'leader' && meta.sm.kind === 'metadata') this.metadataLeaderTick(meta, meta.sm.state);
      for (const n of this.nodes.values()) if (n.sm.kind === 'data' && n.raft.status().role === 'leader') this.dataLeaderTick(n, n.sm.state);
    } catch (e) {
      this.deps.logger.warn(`CP housekeeping failed: ${describeError(e)}`);
    }
  }

  private async maybeBootstrap(): Promise<void> {
    const cluster = this.deps.cluster;
    if (this.bootstrapping || !cluster.isMaster() || !cluster.joined()) return;
    const need = this.deps.config.cpSubsystem.cpMemberCount;
    const data = cluster.members().filter((m) => !m.liteMember);
    if (data.length < need) {
      if (!this.waitingLogged) {
        this.waitingLogged = true;
        this.deps.logger.info(`CP subsystem waits for ${need} members (cp-member-count) to form; ${data.length} present`);
      }
      return;
    }
    this.bootstrapping = true;
    try {
      const chosen = data.slice(0, need);
      const found = await Promise.all(chosen.map((m) => this.deps.net.request(m.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS)));
      const ids: string[] = [];
      for (const [i, a] of found.entries()) {
        const d = decodeCpDiscoverAnswer(a);
        if (d.seed !== 0) {
          // Formed already (a master change): learn it from that member instead.
          await this.fetchView(chosen[i]!.address);
          return;
        }
        ids.push(d.cpUuid);
      }
      if (this.seed !== undefined) return;
      const seed = this.pendingSeed ?? 1 + Math.floor(this.random() * 0x7ffffffe);
      const members = chosen.map((m, i) => ({ cpUuid: ids[i]!, memberUuid: m.uuid, address: m.address }));
      const groupSize = this.deps.config.cpSubsystem.groupSize;
      await Promise.all(chosen.map((m) => this.deps.net.request(m.address, Msg.CpBootstrap, encodeCpBootstrap({ seed, groupSize, members }), MEMBER_CALL_TIMEOUT_MS)));
      this.deps.logger.info({ seed, cpMembers: chosen.map((m) => m.address) }, `CP subsystem formed by the master: ${need} CP members, group size ${groupSize}`);
      // Every member learns it now (AP members too), not only once METADATA has elected its leader.
      const v = CpMetadataState.initial(
        chosen.map((m, i) => ({ cpUuid: ids[i]!, memberUuid: m.uuid, address: m.address })),
        groupSize,
      ).view(seed, 0);
      this.takeView(v);
      const payload = encodeCpView({ view: v });
      for (const m of cluster.members()) if (m.uuid !== this.local.uuid) this.deps.net.oneWay(m.address, Msg.CpView, payload);
    } catch (e) {
      this.deps.logger.warn(`CP subsystem: forming failed, retrying: ${describeError(e)}`);
    } finally {
      this.bootstrapping = false;
    }
  }

  private onBootstrap(p: WireValue): WireValue {
    // The decoder checks the group size too: 1 to the number of members.
    const { seed, groupSize, members } = decodeCpBootstrap(p);
    if (this.seed !== undefined || (this.pendingSeed !== undefined && this.pendingSeed !== seed)) return false;
    if (!members.some((m) => m.cpUuid === this.cpUuid)) return false;
    this.seed = seed;
    this.pendingSeed = undefined;
    const initial = CpMetadataState.initial(members, groupSize);
    this.adoptView(initial.view(seed, 0));
    return true;
  }

  // ------------------------------------------------------------------ the view

  private onView(p: WireValue): void {
    this.takeView(decodeCpView(p).view);
  }

  private takeView(v: CpView): void {
    if (this.seed === undefined) {
      if (this.pendingSeed !== undefined && v.seed !== this.pendingSeed) return;
      this.seed = v.seed;
      this.pendingSeed = undefined;
    } else if (v.seed !== this.seed) return;
    if (this.view !== undefined && this.view.version >= v.version) return;
    this.adoptView(v);
  }

  private async fetchView(address: string): Promise<void> {
    const { view } = decodeCpFetchViewAnswer(await this.deps.net.request(address, Msg.CpFetchView, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
    if (view !== undefined) this.takeView(view);
  }

  private adoptView(v: CpView): void {
    const first = this.view === undefined;
    this.view = v;
    for (const m of v.cpMembers) this.addresses.set(m.cpUuid, m.address);
    for (const m of v.initialCpMembers) if (!this.addresses.has(m.cpUuid)) this.addresses.set(m.cpUuid, m.address);
    if (first) {
      const mine = v.cpMembers.some((m) => m.cpUuid === this.cpUuid);
      this.deps.logger.info({ seed: v.seed, cpMember: mine, cpMemberUuid: mine ? this.cpUuid : undefined }, `CP subsystem view received: ${v.cpMembers.length} CP members, ${v.groups.length} groups${mine ? '; this member is a CP member' : ''}`);
    }
    const byId = new Map(v.groups.map((g) => [g.id, g]));
    for (const g of v.groups) {
      if (g.members.includes(this.cpUuid) && !this.nodes.has(g.id)) this.createNode(g);
    }
    for (const n of [...this.nodes.values()]) {
      const g = byId.get(n.rec.id);
      if (g === undefined || g.name !== n.rec.name) {
        this.destroyNode(n, new GridError('NOT_FOUND', `CP group ${n.rec.name} was destroyed`));
        this.nodes.delete(n.rec.id);
      }
    }
  }

  private createNode(g: CpGroupRec): GroupNode {
    const v = this.view!;
    const raft = new RaftNode({ self: this.cpUuid, initialMembers: g.initialMembers, config: this.raftConfig, random: this.random });
    const sm: Sm =
      g.id === METADATA_GROUP_ID
        ? { kind: 'metadata', state: CpMetadataState.initial(v.initialCpMembers, v.groupSize) }
        : { kind: 'data', state: this.newDataState() };
    const node: GroupNode = {
      rec: g,
      raft,
      sm,
      lastApplied: 0,
      timer: undefined,
      timerAtMs: undefined,
      proposals: new Map(),
      waits: new Map(),
      reads: new Map(),
      changes: new Map(),
      destroyed: false,
      leaderHint: undefined,
      lastTickMs: 0,
    };
    this.nodes.set(g.id, node);
    this.deps.logger.debug({ group: g.name, id: g.id, members: g.initialMembers }, 'CP group node created');
    this.drive(node, raft.start(this.now()));
    return node;
  }

  private newDataState(): CpDataState {
    return new CpDataState(this.dataOptions());
  }

  private destroyNode(n: GroupNode, why: GridError): void {
    n.destroyed = true;
    n.timer?.cancel();
    for (const p of n.proposals.values()) p.reject(why);
    for (const w of n.waits.values()) w.reject(why);
    for (const r of n.reads.values()) r.reject(why);
    for (const c of n.changes.values()) c.reject(why);
    n.proposals.clear();
    n.waits.clear();
    n.reads.clear();
    n.changes.clear();
  }

  /** A reset: every group and the view go; the master forms the subsystem again under `seed`. */
  private wipe(seed: number): void {
    if (this.seed === seed) return;
    for (const n of this.nodes.values()) this.destroyNode(n, new GridError('CP_UNAVAILABLE', 'the CP subsystem was reset'));
    this.nodes.clear();
    this.leaders.clear();
    this.missingSince.clear();
    this.seed = undefined;
    this.view = undefined;
    this.pendingSeed = seed;
    this.cpUuid = randomUUID();
    this.waitingLogged = false;
    this.deps.logger.warn({ seed }, 'CP subsystem reset: all CP state of this member wiped');
  }

  // ------------------------------------------------------------------ driving Raft

  private drive(n: GroupNode, outputs: readonly RaftOutput[]): void {
    for (const o of outputs) {
      if (n.destroyed) return;
      switch (o.type) {
        case 'persist':
          break; // in memory only (a restarted process is a new CP member)
        case 'send': {
          const address = this.addresses.get(o.to);
          if (address !== undefined) this.deps.net.oneWay(address, Msg.CpRaft, encodeCpRaft({ seed: this.seed ?? 0, groupId: n.rec.id, from: this.cpUuid, to: o.to, message: o.message }));
          break;
        }
        case 'apply':
          for (const e of o.entries) this.applyEntry(n, e.index, e.term, e.kind === 'command' ? e.command : undefined);
          break;
        case 'install-snapshot':
          n.sm = n.rec.id === METADATA_GROUP_ID
            ? { kind: 'metadata', state: CpMetadataState.fromSnapshot(o.snapshot.state as WireValue) }
            : { kind: 'data', state: CpDataState.fromSnapshot(this.dataOptions(), o.snapshot.state as WireValue) };
          n.lastApplied = o.snapshot.lastIncludedIndex;
          if (n.sm.kind === 'metadata') this.metadataChanged(n, n.sm.state);
          break;
        case 'became-leader':
          this.deps.logger.info({ group: n.rec.name, term: o.term }, `CP group ${n.rec.name}: this member is the leader (term ${o.term})`);
          n.lastTickMs = 0;
          if (n.rec.id === METADATA_GROUP_ID) this.viewDirty = true;
          break;
        case 'stepped-down': {
          const e = new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: leader stepped down`);
          // Proposals stay: they may still commit under the next leader (answered from the log).
          for (const w of n.waits.values()) w.reject(e);
          n.waits.clear();
          for (const c of n.changes.values()) c.reject(e);
          n.changes.clear();
          break;
        }
        case 'leader-changed':
          n.leaderHint = o.leaderId;
          if (o.leaderId !== undefined) this.leaders.set(n.rec.id, o.leaderId);
          this.deps.logger.debug({ group: n.rec.name, term: o.term, leader: o.leaderId }, 'CP group leader changed');
          break;
        case 'membership-changed':
          this.deps.logger.info({ group: n.rec.name, members: o.members, index: o.index }, `CP group ${n.rec.name}: members now ${o.members.length}`);
          break;
        case 'read-ready':
          for (const id of o.readIds) {
            n.reads.get(id)?.resolve();
            n.reads.delete(id);
          }
          break;
        case 'read-failed':
          for (const id of o.readIds) {
            n.reads.get(id)?.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: not the leader any more`));
            n.reads.delete(id);
          }
          break;
        case 'proposal-failed':
          for (const p of o.proposals) {
            const pr = n.proposals.get(p.index);
            if (pr === undefined || pr.term !== p.term) continue;
            n.proposals.delete(p.index);
            pr.reject(new GridError(o.reason === 'lost' ? 'CP_UNAVAILABLE' : 'INDETERMINATE', `CP group ${n.rec.name}: proposal ${o.reason}`));
          }
          break;
        case 'snapshot-due':
          this.drive(n, n.raft.takeSnapshot(n.lastApplied, n.sm.state.snapshot(), this.now()));
          break;
        case 'timer':
          this.arm(n, o.atMs);
          break;
      }
    }
  }

  private dataOptions(): { sessionTtlMs: number; lockAcquireLimit(name: string): number } {
    const config = this.deps.config;
    return { sessionTtlMs: config.cpSubsystem.sessionTimeToLiveSeconds * 1000, lockAcquireLimit: (name) => lockAcquireLimitOf(config, name) };
  }

  private arm(n: GroupNode, atMs: number | undefined): void {
    if (atMs === n.timerAtMs && n.timer !== undefined) return;
    n.timer?.cancel();
    n.timer = undefined;
    n.timerAtMs = atMs;
    if (atMs === undefined) return;
    n.timer = this.deps.clock.setTimeout(() => {
      n.timer = undefined;
      n.timerAtMs = undefined;
      if (!n.destroyed) this.drive(n, n.raft.timerFired(this.now()));
    }, Math.max(0, atMs - this.now()));
  }

  private applyEntry(n: GroupNode, index: number, term: number, command: unknown): void {
    n.lastApplied = index;
    const pr = n.proposals.get(index);
    if (pr !== undefined) n.proposals.delete(index);
    const change = n.changes.get(index);
    if (change !== undefined) {
      n.changes.delete(index);
      change.resolve(n.raft.status().members);
    }
    if (command === undefined) {
      if (pr !== undefined) pr.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: proposal lost`));
      return;
    }
    let answer: CpAnswer | undefined;
    if (n.sm.kind === 'metadata') {
      answer = n.sm.state.apply(command as WireValue);
      this.metadataChanged(n, n.sm.state);
    } else {
      const applied = n.sm.state.apply(index, command as WireValue);
      answer = applied.answer;
      for (const c of applied.completed) {
        const w = n.waits.get(c.key);
        if (w !== undefined) {
          n.waits.delete(c.key);
          w.resolve(c.answer);
        }
      }
    }
    if (pr === undefined) return;
    if (pr.term !== term) {
      pr.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: proposal lost`));
      return;
    }
    if (answer === undefined) {
      // A lock wait: answered when the lock is granted (or the wait ends).
      const earlier = n.waits.get(pr.key);
      n.waits.set(pr.key, {
        resolve: (a) => {
          earlier?.resolve(a);
          pr.resolve(a);
        },
        reject: (e) => {
          earlier?.reject(e);
          pr.reject(e);
        },
      });
      return;
    }
    pr.resolve(answer);
  }

  private metadataChanged(n: GroupNode, state: CpMetadataState): void {
    if (this.seed === undefined || this.view === undefined) return;
    const v = state.view(this.seed, n.lastApplied);
    if (v.version <= this.view.version) return;
    this.adoptView(v);
    if (n.raft.status().role === 'leader' && !this.viewDirty) {
      // Soon, once for every change of this turn: members learn new groups before calls reach them.
      this.viewDirty = true;
      this.deps.clock.setTimeout(() => {
        if (this.viewDirty && !this.stopped) this.broadcastView();
      }, 0);
    }
  }

  // ------------------------------------------------------------------ incoming messages

  private onRaft(p: WireValue, conn: MemberConnection): void {
    const { seed, groupId, from, to, message } = decodeCpRaft(p);
    if (seed !== this.seed || to !== this.cpUuid || this.stopped) return;
    const known = this.addresses.get(from);
    if (known === undefined && conn.peer !== undefined) this.addresses.set(from, conn.peer.address);
    let n = this.nodes.get(groupId);
    if (n === undefined) {
      // A leader adding this member to its group, before the view says so.
      const g = this.view?.groups.find((x) => x.id === groupId);
      if (g === undefined) {
        if (conn.peer !== undefined) void this.fetchView(conn.peer.address).catch(() => undefined);
        return;
      }
      n = this.createNode(g);
    }
    let outputs: RaftOutput[];
    try {
      outputs = n.raft.receive(from, message, this.now());
    } catch (e) {
      // A message that contradicts this node's committed log (a buggy or hostile peer): refused, node unchanged.
      this.deps.logger.warn({ group: n.rec.name, from }, `CP group ${n.rec.name}: Raft message refused: ${describeError(e)}`);
      return;
    }
    this.drive(n, outputs);
  }

  /** A connection to `address` closed, or its member left: its Raft nodes are suspect. */
  private peerLost(address: string): void {
    if (this.stopped) return;
    const now = this.now();
    for (const [cpUuid, a] of this.addresses) {
      if (a !== address) continue;
      for (const n of this.nodes.values()) if (!n.destroyed) this.drive(n, n.raft.memberUnreachable(cpUuid as RaftMemberId, now));
      for (const [gid, leader] of this.leaders) if (leader === cpUuid) this.leaders.delete(gid);
    }
  }

  private onInvoke(p: WireValue): WireValue | Promise<WireValue> {
    const { seed, groupId, kind, body } = decodeCpInvoke(p);
    if (this.stopped) return retry('UNKNOWN_GROUP');
    const n = seed === this.seed ? this.nodes.get(groupId) : undefined;
    if (n === undefined || n.destroyed) return retry('UNKNOWN_GROUP');
    const now = this.now();
    switch (kind) {
      case 'cmd': {
        const command = stamp(body, now);
        const r = n.raft.propose(command, now);
        this.drive(n, r.outputs);
        if (!r.ok) return r.reason === 'not-leader' ? notLeader(r.leaderId) : retry('BUSY');
        const key = Array.isArray(command) && typeof command[1] === 'string' ? command[1] : '';
        return new Promise<CpAnswer>((resolve, reject) => n.proposals.set(r.index, { term: r.term, key, resolve, reject })).then(answerToWire, errorToWire);
      }
      case 'read': {
        const r = n.raft.read(now);
        this.drive(n, r.outputs);
        if (!r.ok) return notLeader(r.leaderId);
        return new Promise<void>((resolve, reject) => n.reads.set(r.readId, { resolve, reject })).then(() => this.query(n, body), errorToWire);
      }
      case 'change': {
        const b = f.tuple(body, 'cp change');
        const type = f.str(b, 0, 'type');
        const member = f.str(b, 1, 'member');
        if (type !== 'add' && type !== 'remove') throw new GridError('BAD_REQUEST', 'malformed member message: cp change type');
        const r = n.raft.changeMembership({ type, member }, now);
        this.drive(n, r.outputs);
        if (!r.ok) {
          if (r.reason === 'not-leader') return notLeader(r.leaderId);
          if (r.reason === 'already-member' || r.reason === 'not-member') return okAnswer([...n.raft.status().members]);
          return retry('BUSY');
        }
        return new Promise<readonly string[]>((resolve, reject) => n.changes.set(r.index, { resolve, reject })).then((m) => okAnswer([...m]), errorToWire);
      }
    }
  }

  private query(n: GroupNode, body: WireValue): WireValue {
    const t = f.tuple(body, 'cp query');
    const what = f.str(t, 0, 'query');
    if (n.sm.kind === 'metadata') {
      if (what === 'metadata') return okAnswer(viewToWire(n.sm.state.view(this.seed ?? 0, n.lastApplied)));
      throw new GridError('BAD_REQUEST', `malformed member message: METADATA query ${what}`);
    }
    const s = n.sm.state;
    switch (what) {
      case 'atomicLong':
        return okAnswer(s.atomicLong(f.str(t, 1, 'name')));
      case 'lockInfo': {
        const i = s.lockInfo(f.str(t, 1, 'name'));
        return okAnswer([i.locked, i.sessionId, i.fence, i.lockCount, i.waiters]);
      }
      case 'sessions':
        return okAnswer(s.sessions().map((x) => [x.id, x.creationTime, x.expirationTime, x.version, x.endpoint, x.endpointName, x.endpointType]));
      default:
        throw new GridError('BAD_REQUEST', `malformed member message: CP query ${what}`);
    }
  }

  // ------------------------------------------------------------------ leaders' housekeeping

  private dataLeaderTick(n: GroupNode, s: CpDataState): void {
    const now = this.now();
    // Sessions and waits expire through the log (a `tick` command), so every replica agrees.
    if (now - n.lastTickMs < 1000 || !s.hasExpiries(now)) return;
    n.lastTickMs = now;
    const r = n.raft.propose(['tick', '', now], now);
    this.drive(n, r.outputs);
  }

  private metadataLeaderTick(n: GroupNode, s: CpMetadataState): void {
    const now = this.now();
    if (this.viewDirty || now - this.lastViewSentMs >= VIEW_RESEND_MS) this.broadcastView();
    const cp = this.deps.config.cpSubsystem;
    const alive = new Set(this.deps.cluster.members().map((m) => m.uuid));
    // Missing CP members: removed after missing-cp-member-auto-removal-seconds (0: never).
    for (const m of s.members()) {
      if (alive.has(m.memberUuid)) {
        this.missingSince.delete(m.cpUuid);
        continue;
      }
      const since = this.missingSince.get(m.cpUuid) ?? now;
      this.missingSince.set(m.cpUuid, since);
      if (cp.missingCpMemberAutoRemovalSeconds > 0 && now - since >= cp.missingCpMemberAutoRemovalSeconds * 1000 && s.members().length > 1) {
        this.missingSince.delete(m.cpUuid);
        this.deps.logger.warn({ cpMember: m.cpUuid, address: m.address }, `CP member ${m.address} missing for ${cp.missingCpMemberAutoRemovalSeconds} s: removing it from the CP subsystem`);
        this.proposeLocal(n, ['removeMember', m.cpUuid]);
      }
    }
    // Fewer CP members than configured: promote the oldest AP member.
    if (s.members().length < cp.cpMemberCount && !this.promoting) {
      const cpMembers = new Set(s.members().map((m) => m.memberUuid));
      const candidate = this.deps.cluster.members().find((m) => !m.liteMember && !cpMembers.has(m.uuid) && this.deps.cluster.isAlive(m.uuid));
      if (candidate !== undefined) void this.promoteMember(n, candidate);
    }
    for (const c of s.plan()) if (!this.changesInFlight.has(c.group)) void this.carryOut(n, c);
  }

  private async promoteMember(n: GroupNode, m: MemberInfo): Promise<void> {
    this.promoting = true;
    try {
      const { cpUuid, leaving } = decodeCpDiscoverAnswer(await this.deps.net.request(m.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
      if (leaving) return; // shutting down
      this.deps.logger.info({ member: m.address, cpMember: cpUuid }, `CP subsystem: promoting ${m.address} to CP member`);
      this.proposeLocal(n, ['addMember', cpUuid, m.uuid, m.address]);
    } catch (e) {
      this.deps.logger.debug(`CP promotion of ${m.address} failed: ${describeError(e)}`);
    } finally {
      this.promoting = false;
    }
  }

  /** A group membership change: the group's leader makes it, then METADATA records it. */
  private async carryOut(meta: GroupNode, c: CpGroupChange): Promise<void> {
    this.changesInFlight.add(c.group);
    try {
      const g = this.view?.groups.find((x) => x.id === c.groupId);
      if (g === undefined) return;
      const members = await this.call(g, 'change', [c.type, c.cpUuid], this.now() + 10_000);
      const list = f.tuple(members, 'cp change answer').map((x) => String(x));
      this.deps.logger.info({ group: c.group, change: c.type, cpMember: c.cpUuid }, `CP group ${c.group}: member ${c.type === 'add' ? 'added' : 'removed'} (${list.length} members)`);
      if (!meta.destroyed) await this.proposeMetadata(['setGroupMembers', c.group, c.groupId, list], this.now() + 10_000);
    } catch (e) {
      this.deps.logger.debug(`CP group ${c.group}: ${c.type} ${c.cpUuid} not done yet: ${describeError(e)}`);
    } finally {
      this.changesInFlight.delete(c.group);
    }
  }

  private proposeLocal(n: GroupNode, command: WireValue): void {
    const r = n.raft.propose(command, this.now());
    this.drive(n, r.outputs);
  }

  private broadcastView(): void {
    const v = this.view;
    if (v === undefined) return;
    this.viewDirty = false;
    this.lastViewSentMs = this.now();
    const payload = encodeCpView({ view: v });
    const self = this.local.uuid;
    for (const m of this.deps.cluster.members()) if (m.uuid !== self) this.deps.net.oneWay(m.address, Msg.CpView, payload);
  }

  // ------------------------------------------------------------------ calling a group

  /**
   * The view of the CP subsystem, waiting (within the operation timeout) while it forms or
   * travels here; at once CP_UNAVAILABLE when the cluster is too small to form it.
   */
  private async requireView(): Promise<CpView> {
    if (!this.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const need = this.deps.config.cpSubsystem.cpMemberCount;
    const deadline = this.deadline();
    for (;;) {
      if (this.view !== undefined) return this.view;
      const have = this.deps.cluster.members().filter((m) => !m.liteMember).length;
      if (have < need || this.now() >= deadline || this.stopped) {
        throw new GridError('CP_UNAVAILABLE', `the CP subsystem has not formed yet: it needs ${need} members (cp-member-count), the cluster has ${have}`);
      }
      await this.sleep(50);
    }
  }

  private deadline(): number {
    return this.now() + this.deps.config.tuning.operationCallTimeoutMillis;
  }

  /**
   * Run `body` on `g`'s leader: tries the known leader, follows hints, moves on from members
   * that do not answer, until an answer or `deadlineMs`.
   */
  private async call(g: CpGroupRec, kind: 'cmd' | 'read' | 'change', body: WireValue, deadlineMs: number, attemptTimeoutMs = ATTEMPT_TIMEOUT_MS): Promise<WireValue> {
    let target = this.leaders.get(g.id) ?? g.members[Math.floor(this.random() * g.members.length)];
    let maybeApplied = false;
    let lastWhy = 'no answer';
    let round = 0;
    /** Sent to a member at least once: from then on only the group can say whether it was applied. */
    let sent = false;
    for (;;) {
      const left = deadlineMs - this.now();
      if (left <= 0 || this.stopped) {
        if (maybeApplied && kind === 'cmd') throw new GridError('INDETERMINATE', `CP group ${g.name}: the operation may or may not have been applied (${lastWhy})`);
        throw new GridError('CP_UNAVAILABLE', `CP group ${g.name} did not answer in time: ${lastWhy}`);
      }
      // No majority of the group's CP members is in the member list: no leader can exist, so a
      // call not sent yet (or a read, which applies nothing) fails at once instead of waiting.
      if (!sent || kind === 'read') {
        const short = noMajority(g.members, this.addresses, this.deps.cluster.members());
        if (short !== undefined) {
          throw new GridError(
            'CP_UNAVAILABLE',
            `CP group ${g.name} cannot have a leader: ${short.alive} of its ${g.members.length} CP members are in the member list, ${short.need} needed` +
              (kind === 'read' ? '' : '; the operation was not applied'),
          );
        }
      }
      const address = target === undefined ? undefined : this.addresses.get(target);
      let delayMs = 0;
      if (address === undefined) {
        target = nextOf(g.members, target);
        delayMs = 50;
        lastWhy = 'no address for the group member';
      } else {
        try {
          sent = true;
          const a = decodeCpInvokeAnswer(await this.deps.net.request(address, Msg.CpInvoke, encodeCpInvoke({ seed: this.seed ?? 0, groupId: g.id, kind, body }), Math.min(left, attemptTimeoutMs)));
          if (a.tag === 'ok') {
            this.leaders.set(g.id, target!);
            return a.value;
          }
          if (a.tag === 'err') throw new GridError(isGridErrorCode(a.code) ? a.code : 'INTERNAL', a.message);
          const { reason, hint } = a;
          lastWhy = reason === 'NOT_LEADER' ? 'no leader' : reason === 'UNKNOWN_GROUP' ? 'the group is not known there' : reason;
          if (reason === 'NOT_LEADER' && hint !== undefined && hint !== target) {
            target = hint;
          } else {
            if (reason === 'UNKNOWN_GROUP') {
              // Not created there yet (the view travels behind the METADATA commit), or destroyed.
              let fresh = this.view?.groups.find((x) => x.name === g.name);
              if (fresh === undefined && round >= 5 && g.id !== METADATA_GROUP_ID) {
                fresh = (await this.metadata()).groups.find((x) => x.name === g.name);
                if (fresh === undefined) throw new GridError('NOT_FOUND', `CP group ${g.name} does not exist (destroyed)`);
              }
              if (fresh !== undefined) g = fresh;
            }
            target = nextOf(g.members, target);
            // No leader known there yet (an election): ask again soon; a new leader answers within a round trip.
            delayMs = Math.min(100, 10 + 10 * round);
          }
        } catch (e) {
          if (e instanceof GridError && !isTransport(e)) {
            if (e.code === 'INDETERMINATE' || e.code === 'CP_UNAVAILABLE') {
              // The leader stepped down or the entry's fate is unknown there: the retry (same key) decides.
              if (e.code === 'INDETERMINATE') maybeApplied = true;
              if (e.code === 'INDETERMINATE' && this.deps.config.cpSubsystem.failOnIndeterminateOperationState && kind === 'cmd') throw e;
              lastWhy = e.message;
              delayMs = 50;
            } else throw e;
          } else {
            // No answer: it may have been applied. The retry carries the same key.
            if (kind === 'cmd') {
              maybeApplied = true;
              if (this.deps.config.cpSubsystem.failOnIndeterminateOperationState) {
                throw new GridError('INDETERMINATE', `CP group ${g.name}: no answer from its leader; the operation may or may not have been applied (${describeError(e)})`);
              }
            }
            lastWhy = describeError(e);
            if (target !== undefined) this.leaders.delete(g.id);
            target = nextOf(g.members, target);
            delayMs = 50;
          }
        }
      }
      round++;
      if (delayMs > 0) await this.sleep(Math.min(delayMs, Math.max(0, deadlineMs - this.now())));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.clock.setTimeout(resolve, ms));
  }

  private async metadataRec(): Promise<CpGroupRec> {
    const g = (await this.requireView()).groups.find((x) => x.id === METADATA_GROUP_ID);
    if (g === undefined) throw new GridError('CP_UNAVAILABLE', 'the METADATA group is not known yet');
    return g;
  }

  private async proposeMetadata(command: WireValue, deadlineMs = this.deadline()): Promise<WireValue> {
    return this.call(await this.metadataRec(), 'cmd', command, deadlineMs);
  }

  /** The group `name` (created on first use, except METADATA). */
  private async dataGroup(name: string): Promise<CpGroupRec> {
    const v = await this.requireView();
    if (name === METADATA_GROUP) throw new GridError('BAD_REQUEST', 'CP data structures cannot live in the METADATA group');
    const bad = checkGroupName(name);
    if (bad !== undefined) throw new GridError('BAD_REQUEST', bad);
    const known = v.groups.find((g) => g.name === name);
    if (known !== undefined) return known;
    const cluster = this.deps.cluster;
    const alive = v.cpMembers.filter((m) => cluster.memberByUuid(m.memberUuid) !== undefined && cluster.isAlive(m.memberUuid)).map((m) => m.cpUuid);
    const created = groupFromWire(await this.proposeMetadata(['createGroup', name, alive]));
    return this.view?.groups.find((g) => g.name === name) ?? created;
  }

  private key(): string {
    return `${this.local.uuid}:${nextKey++}`;
  }

  private async command(name: string, build: (object: string, key: string) => WireValue[]): Promise<{ value: WireValue; group: string }> {
    const { object, group } = splitName(name);
    const g = await this.dataGroup(group);
    return { value: await this.call(g, 'cmd', build(object, this.key()), this.deadline()), group };
  }

  private async read(group: CpGroupRec, query: WireValue[]): Promise<WireValue> {
    return this.call(group, 'read', query, this.deadline());
  }

  // ------------------------------------------------------------------ the facade: data

  async atomicLong(name: string): Promise<string> {
    const { object, group } = splitName(name);
    return String(await this.read(await this.dataGroup(group), ['atomicLong', object]));
  }

  async setAtomicLong(name: string, value: string): Promise<string> {
    return String((await this.command(name, (o, k) => ['set', k, o, value])).value);
  }

  async addAndGet(name: string, delta: string): Promise<string> {
    return String((await this.command(name, (o, k) => ['add', k, o, delta])).value);
  }

  async compareAndSet(name: string, expect: string, update: string): Promise<boolean> {
    return (await this.command(name, (o, k) => ['cas', k, o, expect, update])).value === true;
  }

  async lock(name: string, opts: { sessionId: number; timeoutMs: number; endpoint: string; endpointName: string; onGone?: (fn: () => void) => void }): Promise<CpLockResult> {
    const { object, group } = splitName(name);
    const g = await this.dataGroup(group);
    const key = this.key();
    let gone = false;
    opts.onGone?.(() => {
      gone = true;
      // The client went while waiting: take its wait back (the session stays; it expires unless used).
      void this.call(g, 'cmd', ['cancel', '', key], this.deadline()).catch(() => undefined);
    });
    const waitMs = opts.timeoutMs < 0 ? 24 * 3600_000 : opts.timeoutMs;
    const deadline = this.deadline() + waitMs;
    const v = await this.call(g, 'cmd', ['lock', key, object, opts.sessionId, 0, opts.timeoutMs, opts.endpoint, opts.endpointName], deadline, ATTEMPT_TIMEOUT_MS + waitMs);
    if (gone) throw new GridError('CONFLICT', 'the client went away while waiting for the lock');
    return { ...lockAnswer(v), group };
  }

  async unlock(name: string, sessionId: number): Promise<number> {
    const v = (await this.command(name, (o, k) => ['unlock', k, o, sessionId])).value;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as Record<string, WireValue>).lockCount === 'number' ? ((v as Record<string, WireValue>).lockCount as number) : 0;
  }

  async lockInfo(name: string): Promise<CpLockInfo & { group: string }> {
    const { object, group } = splitName(name);
    const t = f.tuple(await this.read(await this.dataGroup(group), ['lockInfo', object]), 'lock info');
    return { locked: t[0] === true, sessionId: Number(t[1]), fence: Number(t[2]), lockCount: Number(t[3]), waiters: Number(t[4]), group };
  }

  async heartbeat(group: string, sessionId: number): Promise<{ sessionId: number; expirationTime: number }> {
    const g = await this.existingGroup(group);
    const v = await this.call(g, 'cmd', ['heartbeat', this.key(), sessionId, 0], this.deadline());
    const o = v as Record<string, WireValue>;
    return { sessionId, expirationTime: Number(o.expirationTime) };
  }

  // ------------------------------------------------------------------ the facade: management

  private async existingGroup(name: string): Promise<CpGroupRec> {
    const g = (await this.requireView()).groups.find((x) => x.name === name);
    if (g === undefined) throw new GridError('NOT_FOUND', `no CP group ${name}`);
    return g;
  }

  /** The METADATA state read linearizably through its leader. */
  private async metadata(): Promise<CpView> {
    const w = await this.read(await this.metadataRec(), ['metadata']);
    const v = viewFromWire(w);
    this.takeView(v);
    return v;
  }

  async groups(): Promise<{ name: string; id: number }[]> {
    return (await this.metadata()).groups.map((g) => ({ name: g.name, id: g.id }));
  }

  async group(name: string): Promise<CpGroupView | undefined> {
    const v = await this.metadata();
    const g = v.groups.find((x) => x.name === name);
    if (g === undefined) return undefined;
    const byUuid = new Map(v.cpMembers.map((m) => [m.cpUuid, m]));
    return {
      id: { name: g.name, id: g.id },
      status: 'ACTIVE',
      members: g.members.map((u) => memberView(byUuid.get(u) ?? { cpUuid: u, memberUuid: '', address: this.addresses.get(u) ?? '' })),
    };
  }

  async sessions(group: string): Promise<CpSessionInfo[] | undefined> {
    const g = (await this.requireView()).groups.find((x) => x.name === group);
    if (g === undefined || g.id === METADATA_GROUP_ID) return g === undefined ? undefined : [];
    const rows = f.tuple(await this.read(g, ['sessions']), 'sessions');
    return rows.map((r) => {
      const t = f.tuple(r, 'session');
      return {
        id: Number(t[0]),
        creationTime: Number(t[1]),
        expirationTime: Number(t[2]),
        version: Number(t[3]),
        endpoint: String(t[4]),
        endpointName: String(t[5]),
        endpointType: t[6] === 'SERVER' ? 'SERVER' : 'CLIENT',
      };
    });
  }

  async closeSession(group: string, sessionId: number): Promise<boolean> {
    const g = await this.existingGroup(group);
    if (g.id === METADATA_GROUP_ID) return false;
    return (await this.call(g, 'cmd', ['closeSession', this.key(), sessionId], this.deadline())) === true;
  }

  async destroyGroup(name: string): Promise<void> {
    if (name === METADATA_GROUP) throw new GridError('BAD_REQUEST', 'the METADATA group cannot be destroyed');
    await this.requireView();
    await this.proposeMetadata(['destroyGroup', name]);
    this.leaders.clear();
    await this.metadata().catch(() => undefined);
  }

  async members(): Promise<CpMemberView[]> {
    return (await this.metadata()).cpMembers.map(memberView);
  }

  localMember(): CpMemberView | undefined {
    if (!this.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const m = this.view?.cpMembers.find((x) => x.cpUuid === this.cpUuid);
    return m === undefined ? undefined : memberView(m);
  }

  async promote(): Promise<void> {
    await this.requireView();
    if (this.localMember() !== undefined) return;
    if (this.deps.config.liteMember) throw new GridError('BAD_REQUEST', 'a lite member cannot be a CP member');
    const l = this.local;
    await this.proposeMetadata(['addMember', this.cpUuid, l.uuid, l.address]);
    await this.metadata().catch(() => undefined);
  }

  async removeMember(cpUuid: string): Promise<void> {
    const v = await this.metadata();
    const m = v.cpMembers.find((x) => x.cpUuid === cpUuid);
    if (m === undefined) throw new GridError('BAD_REQUEST', `no CP member ${cpUuid}`);
    const member = this.deps.cluster.memberByUuid(m.memberUuid);
    if (member !== undefined && !(await this.isStaleSeat(m, member))) {
      throw new GridError('BAD_REQUEST', `CP member ${cpUuid} (${m.address}) is still a member of the cluster: only a missing CP member can be removed`);
    }
    await this.proposeMetadata(['removeMember', cpUuid]);
    await this.metadata().catch(() => undefined);
  }

  /**
   * A seat whose member is in the cluster under a different CP identity: the process restarted
   * (persistence keeps the member uuid) and its Raft state is gone, so the seat is dead.
   */
  private async isStaleSeat(seat: CpMemberRec, member: MemberInfo): Promise<boolean> {
    if (member.uuid === this.local.uuid) return seat.cpUuid !== this.cpUuid;
    try {
      const { cpUuid } = decodeCpDiscoverAnswer(await this.deps.net.request(member.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
      return cpUuid !== seat.cpUuid;
    } catch {
      return false;
    }
  }

  /** This process's own old seat (a restart that kept the member uuid): give it up so that it is replaced now. */
  private dropOwnStaleSeat(v: CpView): void {
    const stale = v.cpMembers.find((m) => m.memberUuid === this.local.uuid && m.cpUuid !== this.cpUuid);
    if (stale === undefined || this.droppingStale || this.stopped) return;
    this.droppingStale = true;
    this.deps.logger.warn({ staleCpMember: stale.cpUuid }, 'CP subsystem: this member restarted and lost its CP state; giving up its old CP seat so that it is replaced');
    this.proposeMetadata(['removeMember', stale.cpUuid], this.now() + MEMBER_CALL_TIMEOUT_MS * 2)
      .catch((e: unknown) => this.deps.logger.debug(`CP subsystem: giving up the old seat failed, retrying: ${describeError(e)}`))
      .finally(() => {
        this.droppingStale = false;
      });
  }

  async reset(): Promise<void> {
    if (!this.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const seed = 1 + Math.floor(this.random() * 0x7ffffffe);
    const self = this.local.uuid;
    const others = this.deps.cluster.members().filter((m) => m.uuid !== self);
    this.wipe(seed);
    await Promise.all(others.map((m) => this.deps.net.request(m.address, Msg.CpReset, encodeCpReset({ seed }), MEMBER_CALL_TIMEOUT_MS)));
    this.deps.logger.warn({ seed }, 'CP subsystem reset: every member wiped its CP state; the subsystem forms again');
  }

  status(): CpLocalStatus {
    return {
      enabled: this.enabled,
      seed: this.seed,
      cpMemberUuid: this.view?.cpMembers.some((m) => m.cpUuid === this.cpUuid) ? this.cpUuid : undefined,
      viewVersion: this.view?.version,
      groups: [...this.nodes.values()].map((n) => {
        const s = n.raft.status();
        return { name: n.rec.name, id: n.rec.id, role: s.role, term: s.term, leader: s.leaderId, commitIndex: s.commitIndex, lastApplied: n.lastApplied, members: s.members };
      }),
    };
  }
}

// ------------------------------------------------------------------ helpers

/** `name@group` -> the object's name and its group (default when absent). */
export function splitName(full: string): { object: string; group: string } {
  const at = full.indexOf('@');
  if (at < 0) return { object: full, group: DEFAULT_GROUP };
  const object = full.slice(0, at);
  const group = full.slice(at + 1);
  if (object.length === 0) throw new GridError('BAD_REQUEST', `"${full}": the name before "@" is empty`);
  if (group.includes('@')) throw new GridError('BAD_REQUEST', `"${full}": more than one "@"`);
  if (group.length === 0) throw new GridError('BAD_REQUEST', `"${full}": the group after "@" is empty`);
  return { object, group };
}

/** Commands stamped with the leader's clock where they carry a time. */
function stamp(body: WireValue, now: number): WireValue {
  if (!Array.isArray(body)) return body;
  const t = [...(body as WireValue[])];
  if (t[0] === 'lock') t[4] = now;
  else if (t[0] === 'heartbeat') t[3] = now;
  return t;
}

function answerToWire(a: CpAnswer): WireValue {
  return encodeCpInvokeAnswer(a.ok ? { tag: 'ok', value: a.value } : { tag: 'err', code: a.code, message: a.message });
}

function errorToWire(e: unknown): WireValue {
  if (e instanceof GridError && (e.code === 'CP_UNAVAILABLE' || e.code === 'INDETERMINATE' || e.code === 'MEMBER_SHUTTING_DOWN')) {
    return retry(e.code === 'INDETERMINATE' ? 'INDETERMINATE' : 'NOT_LEADER');
  }
  return encodeCpInvokeAnswer({ tag: 'err', code: e instanceof GridError ? e.code : 'INTERNAL', message: e instanceof GridError ? e.message : describeError(e) });
}

function isTransport(e: GridError): boolean {
  return e.code === 'MEMBER_UNREACHABLE' || e.code === 'TIMEOUT' || e.code === 'NOT_MEMBER' || e.code === 'MEMBER_SHUTTING_DOWN';
}

function nextOf(members: readonly string[], current: string | undefined): string | undefined {
  if (members.length === 0) return undefined;
  const i = current === undefined ? -1 : members.indexOf(current);
  return members[(i + 1) % members.length];
}

function lockAnswer(v: WireValue): Omit<CpLockResult, 'group'> {
  const o = (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Record<string, WireValue>;
  return { acquired: o.acquired === true, fence: Number(o.fence ?? 0), sessionId: Number(o.sessionId ?? 0), lockCount: Number(o.lockCount ?? 0) };
}

/**
 * The CP members of a group that are in the member list, when they are fewer than a majority
 * (undefined when a majority is there, or when an address is unknown: then only a call can tell).
 */
export function noMajority(
  groupMembers: readonly string[],
  addresses: ReadonlyMap<string, string>,
  members: readonly { readonly address: string }[],
): { alive: number; need: number } | undefined {
  const need = Math.floor(groupMembers.length / 2) + 1;
  let alive = 0;
  for (const cpUuid of groupMembers) {
    const address = addresses.get(cpUuid);
    if (address === undefined) return undefined;
    if (members.some((m) => m.address === address)) alive++;
  }
  return alive < need ? { alive, need } : undefined;
}

/** Hazelcast shows addresses as `[host]:port`. */
function memberView(m: CpMemberRec): CpMemberView {
  const i = m.address.lastIndexOf(':');
  const host = i < 0 ? m.address : m.address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = i < 0 ? '' : m.address.slice(i + 1);
  return { uuid: m.cpUuid, address: `[${host}]:${port}` };
}
