// The state the CP modules share, in one explicit place: this process's CP identity, the
// subsystem's seed and view, the group nodes it runs, where leaders and CP members are, and
// the flags of the housekeeping. Each module (cp-forming, cp-raft-shell, cp-incoming,
// cp-housekeeping, cp-calls, cp-data-facade, cp-management) holds this context and reaches the
// few methods of another through the ports below, wired by the facade (cp-service.ts).

import { randomUUID } from 'node:crypto';
import type { GridConfig } from '../config/types.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ClusterMembership } from '../cluster/cluster-service.js';
import type { MemberInfo } from '../cluster/types.js';
import type { WireValue } from '../protocol/codec.js';
import type { MemberConnection } from '../net/member-net.js';
import type { RaftConfig, RaftNode, RaftOutput } from './raft.js';
import type { CpAnswer, CpDataState } from './cp-data-state.js';
import type { CpGroupRec, CpMetadataState, CpView } from './cp-metadata-state.js';

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

/** How often the housekeeping runs (bootstrap, view broadcast, group repairs, session expiry). */
export const TICK_MS = 250;
/** The METADATA leader re-sends its view this often even when nothing changed (lost one-way messages). */
export const VIEW_RESEND_MS = 3_000;
export const MEMBER_CALL_TIMEOUT_MS = 5_000;
/** A call to a group member that does not answer within this is tried at another member. */
export const ATTEMPT_TIMEOUT_MS = 3_000;

export type Sm = { kind: 'data'; state: CpDataState } | { kind: 'metadata'; state: CpMetadataState };

export interface Proposal {
  readonly term: number;
  readonly key: string;
  resolve(a: CpAnswer): void;
  reject(e: GridError): void;
}

export interface GroupNode {
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

/** The Raft shell (cp-raft-shell.ts), as the other modules use it. */
export interface RaftShellPort {
  createNode(g: CpGroupRec): GroupNode;
  destroyNode(n: GroupNode, why: GridError): void;
  drive(n: GroupNode, outputs: readonly RaftOutput[]): void;
}

/** Forming and the view (cp-forming.ts), as the other modules use it. */
export interface FormingPort {
  maybeBootstrap(): Promise<void>;
  takeView(v: CpView): void;
  adoptView(v: CpView): void;
  fetchView(address: string): Promise<void>;
  broadcastView(): void;
  wipe(seed: number): void;
}

/** Calling a group (cp-calls.ts), as the other modules use it. */
export interface CallPort {
  requireView(): Promise<CpView>;
  call(g: CpGroupRec, kind: 'cmd' | 'read' | 'change', body: WireValue, deadlineMs: number, attemptTimeoutMs?: number): Promise<WireValue>;
  metadataRec(): Promise<CpGroupRec>;
  proposeMetadata(command: WireValue, deadlineMs?: number): Promise<WireValue>;
  dataGroup(name: string): Promise<CpGroupRec>;
  existingGroup(name: string): Promise<CpGroupRec>;
  key(): string;
  read(group: CpGroupRec, query: WireValue[]): Promise<WireValue>;
  metadata(): Promise<CpView>;
}

export class CpContext {
  readonly deps: CpDeps;
  readonly enabled: boolean;
  readonly raftConfig: Partial<RaftConfig>;
  readonly random: () => number;
  cpUuid: string = randomUUID();
  seed: number | undefined;
  /** A reset named the next seed: only views and bootstraps of that seed are taken. */
  pendingSeed: number | undefined;
  view: CpView | undefined;
  readonly nodes = new Map<number, GroupNode>();
  /** Where each group's leader was last found (cp uuid), for routing. */
  readonly leaders = new Map<number, string>();
  /** Member address of each CP member (cp uuid), from the view and from Raft messages received. */
  readonly addresses = new Map<string, string>();
  /** The master is forming the subsystem (one attempt at a time). */
  bootstrapping = false;
  lastViewSentMs = 0;
  /** The METADATA leader owes the members a view broadcast. */
  viewDirty = false;
  /** METADATA leader: since when each CP member (cp uuid) is missing from the member list. */
  readonly missingSince = new Map<string, number>();
  /** METADATA leader: groups (by name) whose membership change is being carried out. */
  readonly changesInFlight = new Set<string>();
  promoting = false;
  droppingStale = false;
  clusterShutdown = false;
  /** Shutting down: gives its seat up, and must not be promoted again meanwhile. */
  leaving = false;
  stopped = false;
  waitingLogged = false;
  // The modules, wired by the facade right after construction.
  shell!: RaftShellPort;
  forming!: FormingPort;
  calls!: CallPort;

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

  now(): number {
    return this.deps.clock.now();
  }

  get local(): MemberInfo {
    return this.deps.cluster.localMember();
  }

  deadline(): number {
    return this.now() + this.deps.config.tuning.operationCallTimeoutMillis;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.clock.setTimeout(resolve, ms));
  }
}
