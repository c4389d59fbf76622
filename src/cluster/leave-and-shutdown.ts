// Leaving and shutting down: a member's graceful leave (its partitions handed over through the
// master, or by itself as master before it passes mastership on), the master's side of a leave
// request, and shutdown requests for one member or the whole cluster (PASSIVE first, every
// member told, then the composition root is asked through a `shutdownRequested` event).

import { GridError, describeError, isGridError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { encodeEmpty, encodeLeave } from '../protocol/payloads.js';
import type { MemberConnection } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import type { ClusterStateChange } from './cluster-state-change.js';
import { MEMBERS_PUSH_TIMEOUT_MS, type MemberList } from './member-list.js';

/** How long a leaving member waits for the master to take its partitions. */
const LEAVE_TIMEOUT_MS = 120_000;
/** A leaving member whose master stays unreachable this long stops without a hand-over. */
const LEAVE_MASTER_GONE_MS = 10_000;
/** Pause between two leave requests to a master that failed to answer. */
const LEAVE_RETRY_MS = 500;
/** At most this long for each member to confirm a cluster shutdown. */
const SHUTDOWN_CONFIRM_MS = 5_000;

export class LeaveAndShutdown {
  constructor(
    private readonly ctx: ClusterContext,
    private readonly list: MemberList,
    private readonly stateChange: ClusterStateChange,
  ) {}

  /** Ask the composition root to shut this member (or the whole cluster) down. */
  requestShutdown(scope: 'member' | 'cluster'): void {
    const ctx = this.ctx;
    if (scope === 'cluster' && !ctx.joined()) {
      throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    }
    if (scope === 'member') {
      ctx.emit({ type: 'shutdownRequested', scope });
      return;
    }
    void (async () => {
      try {
        if (ctx.states.state !== 'PASSIVE') await this.stateChange.change('PASSIVE');
      } catch (e) {
        ctx.logger.warn(`cluster shutdown: could not make the cluster PASSIVE first: ${describeError(e)}`);
      }
      // Every member must have taken the shutdown before this one starts leaving: once the master
      // drops this member from the list, the others refuse its messages. A read on the same
      // connection (frames are handled in order) answers only after the shutdown was handled.
      const others = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
      await Promise.allSettled(
        others.map((m) => {
          ctx.net?.oneWay(m.address, Msg.ClusterShutdown, encodeEmpty());
          return ctx.net?.request(m.address, Msg.FetchState, encodeEmpty(), Math.min(ctx.tuning.callTimeoutMs, SHUTDOWN_CONFIRM_MS));
        }),
      );
      ctx.emit({ type: 'shutdownRequested', scope: 'cluster' });
    })();
  }

  /** ClusterShutdown from another member: this one stops too. */
  onClusterShutdown(): void {
    this.ctx.logger.info('cluster shutdown requested by another member');
    this.ctx.emit({ type: 'shutdownRequested', scope: 'member' });
  }

  /** Graceful leave: hand partitions over (unless the cluster state forbids moving them), then leave the member list. */
  async leave(): Promise<void> {
    const ctx = this.ctx;
    if (ctx.net === undefined || ctx.listVersion === 0 || ctx.memberList.length <= 1) return;
    // A removed member's partitions are stale: the cluster already promoted their backups.
    if (ctx.removed) return;
    ctx.leaving = true;
    const moves = ctx.states.state === 'ACTIVE' || ctx.states.state === 'NO_MIGRATION';
    try {
      if (ctx.memberList[0]?.uuid === ctx.local.uuid) {
        await this.leaveAsMaster(moves);
      } else if (moves) {
        // Ask the master (whoever it is by then: it may change meanwhile) until it has taken our partitions.
        const deadline = ctx.clock.now() + LEAVE_TIMEOUT_MS;
        let masterGoneSince: number | undefined;
        for (;;) {
          const master = ctx.master()!;
          if (master.uuid === ctx.local.uuid) {
            // The master left meanwhile (every member stopping at once) and this member is the oldest now.
            await this.leaveAsMaster(moves);
            break;
          }
          try {
            await ctx.net.request(master.address, Msg.LeaveRequest, encodeLeave({ uuid: ctx.local.uuid }), Math.max(1, deadline - ctx.clock.now()));
            break;
          } catch (e) {
            if (ctx.clock.now() >= deadline || ctx.memberList.length <= 1) throw e;
            // A master that is gone or stopping cannot take the partitions. Waiting for the failure
            // detector to name another one can take max.no.heartbeat; after a while leave as a
            // crash would: the backups on the other members take over (nothing with a backup is lost).
            const gone = isGridError(e) && (e.code === 'MEMBER_UNREACHABLE' || e.code === 'MEMBER_SHUTTING_DOWN' || e.code === 'TIMEOUT');
            masterGoneSince = gone ? (masterGoneSince ?? ctx.clock.now()) : undefined;
            if (masterGoneSince !== undefined && ctx.clock.now() - masterGoneSince >= LEAVE_MASTER_GONE_MS) {
              throw new GridError('MEMBER_UNREACHABLE', `master ${master.address} unreachable for ${LEAVE_MASTER_GONE_MS / 1000} s while leaving: stopping without handing partitions over (their backups take over)`);
            }
            ctx.logger.info(`leave through master ${master.address} failed, asking again: ${describeError(e)}`);
            await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, LEAVE_RETRY_MS));
          }
        }
      } else {
        ctx.net.oneWay(ctx.master()!.address, Msg.Leave, encodeLeave({ uuid: ctx.local.uuid }));
      }
    } catch (e) {
      ctx.logger.warn(`leaving the cluster: ${describeError(e)}`);
    } finally {
      ctx.leaving = false;
    }
  }

  /** Hand this master's partitions over, then mastership to the next oldest by pushing a list without this member. */
  private async leaveAsMaster(moves: boolean): Promise<void> {
    const ctx = this.ctx;
    if (moves && ctx.handOff) await ctx.handOff(ctx.local.uuid);
    const next = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
    ctx.memberList = next;
    ctx.listVersion++;
    const payload = this.list.encode();
    await Promise.allSettled(next.map((m) => ctx.net!.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS)));
  }

  /** LeaveRequest: the master takes the leaving member's partitions, then removes it. */
  onLeaveRequest(uuid: string, from: MemberConnection): Promise<WireValue> {
    if (uuid !== from.peer?.uuid) throw new GridError('NOT_MEMBER', `member ${from.peer?.uuid ?? '?'} may not ask for member ${uuid} to leave`);
    return this.takeLeaving(uuid);
  }

  private async takeLeaving(uuid: string): Promise<WireValue> {
    const ctx = this.ctx;
    if (!ctx.isMaster()) throw new GridError('CONFLICT', 'not the master');
    const m = ctx.memberByUuid(uuid);
    if (m === undefined) return null;
    ctx.logger.info(`member ${m.address} is leaving: handing its partitions over`);
    if (ctx.handOff && (ctx.states.state === 'ACTIVE' || ctx.states.state === 'NO_MIGRATION')) await ctx.handOff(uuid);
    this.list.remove([uuid], 'it left the cluster', { graceful: true });
    return null;
  }

  /** Leave (one-way, when partitions may not move): the master drops the member. */
  onLeave(uuid: string, from: MemberConnection): void {
    if (uuid !== from.peer?.uuid) {
      this.ctx.logger.warn(`member ${from.describe()} asked for member ${uuid} to leave: refused (a member leaves for itself only)`);
      return;
    }
    if (this.ctx.isMaster()) this.list.remove([uuid], 'it left the cluster', { graceful: true });
  }
}
