// The shell of a cluster state change around the pure state-machine.ts: the master prepares
// the change on every member, then commits it (or rolls it back when one refuses); a member
// answers the prepare, commit and rollback messages, forwards a change asked of it to the
// master, and follows the state in the master's heartbeats (a missed commit or rollback).

import { randomUUID } from 'node:crypto';
import { GridError, describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import {
  encodeChangeState,
  encodeStateCommit,
  encodeStatePrepare,
  encodeStateRollback,
  type StateCommitPayload,
  type StatePreparePayload,
} from '../protocol/payloads.js';
import type { ClusterContext } from './cluster-context.js';
import { admitStateChange } from './member-rules.js';
import type { ClusterState } from './types.js';

export class ClusterStateChange {
  constructor(private readonly ctx: ClusterContext) {}

  /** Change the cluster state on every member; false when it already is `to`. */
  async change(to: ClusterState): Promise<boolean> {
    const ctx = this.ctx;
    if (to === 'IN_TRANSITION') throw new GridError('BAD_REQUEST', 'IN_TRANSITION cannot be set');
    if (ctx.isShuttingDown()) throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    if (!ctx.isMaster()) {
      const master = ctx.master();
      if (master === undefined || ctx.net === undefined) throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
      const r = await ctx.net.request(master.address, Msg.ChangeState, encodeChangeState({ state: to }), ctx.tuning.callTimeoutMs);
      return r === true;
    }
    if (ctx.states.state === to) return false;
    const txId = randomUUID();
    this.prepare(txId, to);
    const others = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
    const prepared = await Promise.allSettled(
      others.map((m) => ctx.net!.request(m.address, Msg.StatePrepare, encodeStatePrepare({ txId, state: to, membersVersion: ctx.listVersion }), ctx.tuning.callTimeoutMs)),
    );
    const refused = prepared.findIndex((p) => p.status === 'rejected');
    if (refused !== -1) {
      const reason = describeError((prepared[refused] as PromiseRejectedResult).reason);
      ctx.states.rollback(txId);
      await Promise.allSettled(others.map((m) => ctx.net!.request(m.address, Msg.StateRollback, encodeStateRollback({ txId }), ctx.tuning.callTimeoutMs)));
      throw new GridError('CONFLICT', `cluster state not changed: member ${others[refused]!.address} refused: ${reason}`);
    }
    // A member that misses this commit (lost, timed out) catches up from the master's heartbeats.
    const version = ctx.states.version + 1;
    await Promise.allSettled(
      others.map((m) => ctx.net!.request(m.address, Msg.StateCommit, encodeStateCommit({ txId, state: to, membersVersion: ctx.listVersion, stateVersion: version }), ctx.tuning.callTimeoutMs)),
    );
    ctx.emitState(ctx.states.commit(txId, to, version));
    return true;
  }

  /** StatePrepare from the master: lock the change (refused from an older member list). */
  onPrepare(p: StatePreparePayload): void {
    const stale = admitStateChange('state change', p.membersVersion, this.ctx.listVersion);
    if (stale !== undefined) throw stale;
    this.prepare(p.txId, p.state);
  }

  /** StateCommit from the master. */
  onCommit(p: StateCommitPayload): void {
    const stale = admitStateChange('state commit', p.membersVersion, this.ctx.listVersion);
    if (stale !== undefined) throw stale;
    this.ctx.emitState(this.ctx.states.commit(p.txId, p.state, p.stateVersion));
  }

  onRollback(txId: string): void {
    this.ctx.states.rollback(txId);
  }

  /**
   * The master's heartbeat says which state it committed last and which change it has in
   * progress: a member that missed a commit takes the state, one that missed a rollback (or
   * whose change the master gave up) releases its lock.
   */
  followMaster(state: ClusterState, version: number, masterTx: string | undefined): void {
    const ctx = this.ctx;
    const r = ctx.states.followMaster(state, version, masterTx);
    if (r?.kind === 'adopted') {
      ctx.logger.warn(`cluster state ${state} (version ${version}) taken from the master's heartbeat: this member missed its commit`);
      ctx.emitState(r.transition);
    } else if (r?.kind === 'released') {
      ctx.logger.warn(`cluster state change ${r.txId} released: the master has no such change in progress (its rollback was missed)`);
    }
  }

  private prepare(txId: string, to: ClusterState): void {
    this.ctx.states.prepare(txId, to, this.ctx.clock.now(), this.ctx.isShuttingDown());
  }
}
