// The CP subsystem's shell: it runs the Raft nodes of the CP groups this member belongs to
// (raft.ts, pure) over the member protocol, feeds their committed entries to the groups' state
// machines (cp-metadata-state.ts, cp-data-state.ts, pure), forms the subsystem among the first
// `cp-member-count` members, keeps every member's view of the CP members and groups, and routes
// every CP call from any member to its group's leader. Nothing here decides a rule of Raft or
// of a structure; it only does the I/O and the timing around them.
//
// Identities: a CP member is a process, not a member uuid (a member restarted from persisted
// data keeps its member uuid but has lost its Raft state, so it must not vote as before). The
// first CP members (bootstrap, and again after a reset) take their member uuid as `cpUuid`, as
// Hazelcast's do; a member promoted later, or restarted, gets a fresh one (a restarted member
// gives up the seat of its old process first). Group ids are numbers under a `seed` — the
// subsystem's incarnation — so messages from before a reset are ignored.
//
// Calls are exactly-once while the group's deduplication table holds their key: the member
// that took the REST request retries the same command (same key) at the next leader after a
// timeout, a lost connection or an indeterminate proposal, and the state machine answers a
// repeated key from its table instead of applying it again.
//
// This file is the facade other layers call (CpFacade, start/leave/stop); the work is in one
// module per concern, sharing state through cp-context.ts: cp-forming (discovery, bootstrap,
// the view), cp-raft-shell (driving raft.ts), cp-incoming (member messages), cp-housekeeping
// (leaders' periodic work), cp-calls (routing a call to a group's leader, retries),
// cp-data-facade and cp-management (what REST calls).

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import { decodeCpReset, encodeCpDiscoverAnswer, encodeCpFetchViewAnswer } from '../protocol/cp-payloads.js';
import type { CpLockInfo, CpSessionInfo } from './cp-data-state.js';
import { CpContext, TICK_MS, type CpDeps } from './cp-context.js';
import { CpForming } from './cp-forming.js';
import { CpRaftShell } from './cp-raft-shell.js';
import { CpIncoming } from './cp-incoming.js';
import { CpHousekeeping } from './cp-housekeeping.js';
import { CpCalls } from './cp-calls.js';
import { CpDataFacade } from './cp-data-facade.js';
import { CpManagement } from './cp-management.js';
import type { CpFacade, CpGroupId, CpGroupView, CpLocalStatus, CpLockResult, CpMemberView } from './cp-api.js';

export type { CpDeps, CpNet } from './cp-context.js';
export type { CpFacade, CpGroupId, CpGroupView, CpLocalStatus, CpLockResult, CpMemberView } from './cp-api.js';
export { splitName } from './cp-data-facade.js';
export { noMajority } from './cp-calls.js';

export class CpService implements CpFacade {
  readonly enabled: boolean;
  private readonly ctx: CpContext;
  private readonly forming: CpForming;
  private readonly shell: CpRaftShell;
  private readonly incoming: CpIncoming;
  private readonly housekeeping: CpHousekeeping;
  private readonly calls: CpCalls;
  private readonly data: CpDataFacade;
  private readonly management: CpManagement;
  private tickTimer: TimerHandle | undefined;

  constructor(deps: CpDeps) {
    const ctx = new CpContext(deps);
    this.ctx = ctx;
    this.enabled = ctx.enabled;
    this.forming = ctx.forming = new CpForming(ctx);
    this.shell = ctx.shell = new CpRaftShell(ctx);
    this.calls = ctx.calls = new CpCalls(ctx);
    this.incoming = new CpIncoming(ctx);
    this.housekeeping = new CpHousekeeping(ctx);
    this.data = new CpDataFacade(ctx);
    this.management = new CpManagement(ctx);
  }

  // ------------------------------------------------------------------ lifecycle

  start(): void {
    if (!this.enabled) return;
    const net = this.ctx.deps.net;
    net.handleOneWay(Msg.CpRaft, (p, conn) => this.incoming.onRaft(p, conn));
    net.handle(Msg.CpInvoke, (p) => this.incoming.onInvoke(p));
    net.handleOneWay(Msg.CpView, (p) => this.forming.onView(p));
    net.handle(Msg.CpFetchView, () => encodeCpFetchViewAnswer({ view: this.ctx.view }));
    // [cpUuid, seed, leaving]: a member shutting down is not promoted.
    net.handle(Msg.CpDiscover, () => encodeCpDiscoverAnswer({ cpUuid: this.ctx.cpUuid, seed: this.ctx.seed ?? 0, leaving: this.ctx.leaving }));
    net.handle(Msg.CpBootstrap, (p) => this.forming.onBootstrap(p));
    net.handle(Msg.CpReset, (p) => {
      this.forming.wipe(decodeCpReset(p).seed);
      return null;
    });
    net.onOutboundClosed((address) => this.incoming.peerLost(address));
    this.ctx.deps.cluster.on((e) => {
      // The whole cluster stops: the seats end with the processes (no hand-over to wait for).
      if (e.type === 'shutdownRequested' && e.scope === 'cluster') this.ctx.clusterShutdown = true;
      if (e.type === 'membersChanged') {
        for (const m of e.removed) this.incoming.peerLost(m.address);
        if (e.added.length > 0) this.ctx.viewDirty = true;
      }
    });
    this.tickTimer = this.ctx.deps.clock.setInterval(() => this.housekeeping.tick(), TICK_MS);
  }

  /**
   * A graceful stop of a CP member (not a cluster shutdown): give its CP seat up so that the
   * groups replace it now rather than after missing-cp-member-auto-removal-seconds. Best
   * effort within `timeoutMs`; a crash leaves the seat to the auto-removal or a REST remove.
   */
  async leave(timeoutMs: number): Promise<void> {
    const v = this.ctx.view;
    if (!this.enabled || v === undefined || this.ctx.stopped) return;
    if (!v.cpMembers.some((m) => m.cpUuid === this.ctx.cpUuid) || v.cpMembers.length <= 1) return;
    if (this.ctx.clusterShutdown || this.ctx.deps.cluster.state() === 'PASSIVE') return;
    this.ctx.leaving = true;
    try {
      await this.calls.proposeMetadata(['removeMember', this.ctx.cpUuid], this.ctx.now() + timeoutMs);
      this.ctx.deps.logger.info('CP subsystem: this member gave up its CP seat (graceful shutdown); the groups replace it');
    } catch (e) {
      this.ctx.deps.logger.warn(`CP subsystem: could not give up this member's CP seat before shutting down (it is removed after missing-cp-member-auto-removal-seconds, or by REST): ${describeError(e)}`);
    }
  }

  stop(): void {
    this.ctx.stopped = true;
    this.tickTimer?.cancel();
    for (const n of this.ctx.nodes.values()) this.shell.destroyNode(n, new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down'));
    this.ctx.nodes.clear();
  }

  // ------------------------------------------------------------------ the facade: data

  atomicLong(name: string): Promise<string> {
    return this.data.atomicLong(name);
  }

  setAtomicLong(name: string, value: string): Promise<string> {
    return this.data.setAtomicLong(name, value);
  }

  addAndGet(name: string, delta: string): Promise<string> {
    return this.data.addAndGet(name, delta);
  }

  compareAndSet(name: string, expect: string, update: string): Promise<boolean> {
    return this.data.compareAndSet(name, expect, update);
  }

  getAndSet(name: string, value: string): Promise<string> {
    return this.data.getAndSet(name, value);
  }

  getAndAdd(name: string, delta: string): Promise<string> {
    return this.data.getAndAdd(name, delta);
  }

  groupIdOf(name: string): Promise<CpGroupId> {
    return this.data.groupIdOf(name);
  }

  lock(name: string, opts: { sessionId: number; timeoutMs: number; endpoint: string; endpointName: string; onGone?: (fn: () => void) => void }): Promise<CpLockResult> {
    return this.data.lock(name, opts);
  }

  unlock(name: string, sessionId: number): Promise<number> {
    return this.data.unlock(name, sessionId);
  }

  lockInfo(name: string): Promise<CpLockInfo & { group: string }> {
    return this.data.lockInfo(name);
  }

  heartbeat(group: string, sessionId: number): Promise<{ sessionId: number; expirationTime: number }> {
    return this.data.heartbeat(group, sessionId);
  }

  // ------------------------------------------------------------------ the facade: management

  groups(): Promise<{ name: string; id: number }[]> {
    return this.management.groups();
  }

  group(name: string): Promise<CpGroupView | undefined> {
    return this.management.group(name);
  }

  sessions(group: string): Promise<CpSessionInfo[] | undefined> {
    return this.management.sessions(group);
  }

  closeSession(group: string, sessionId: number): Promise<boolean> {
    return this.management.closeSession(group, sessionId);
  }

  destroyGroup(name: string): Promise<void> {
    return this.management.destroyGroup(name);
  }

  members(): Promise<CpMemberView[]> {
    return this.management.members();
  }

  localMember(): CpMemberView | undefined {
    return this.management.localMember();
  }

  promote(): Promise<void> {
    return this.management.promote();
  }

  removeMember(cpUuid: string): Promise<void> {
    return this.management.removeMember(cpUuid);
  }

  reset(): Promise<void> {
    return this.management.reset();
  }

  status(): CpLocalStatus {
    return this.management.status();
  }
}
