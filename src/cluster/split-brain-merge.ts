// Split brain, the shell beside the pure search of split-brain.ts: the timer that runs a
// search round on the master, the search's view of this member (SplitBrainHost), and the
// merge itself: the smaller cluster's members forget their cluster and join the other one,
// the data services taking what each owned before and merging it after (`merge` events).

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import { decodeFetchStateAnswer, encodeEmpty, encodeMergeTo } from '../protocol/payloads.js';
import { splitAddress, type MemberConnection } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import { JOIN_RETRY_MS, type Join } from './join.js';
import type { PauseFencing } from './pause-fencing.js';
import { searchOtherClusters, type SplitBrainHost } from './split-brain.js';

/** hazelcast.merge.first.run.delay.seconds' default. */
const MERGE_FIRST_RUN_DELAY_MS = 300_000;
/** hazelcast.merge.next.run.delay.seconds' default. */
const MERGE_NEXT_RUN_DELAY_MS = 120_000;

export class SplitBrainMerge {
  private timer: TimerHandle | undefined;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly joining: Join,
    private readonly fencing: PauseFencing,
  ) {}

  /** The heartbeats started: the master looks for another cluster of this name from now on. */
  start(): void {
    this.schedule(this.ctx.tuning.mergeFirstRunDelayMs ?? MERGE_FIRST_RUN_DELAY_MS);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    const ctx = this.ctx;
    this.timer?.cancel();
    this.timer = ctx.clock.setTimeout(() => {
      searchOtherClusters(this.splitBrainHost())
        .catch((e: unknown) => ctx.logger.warn(`looking for another cluster of this name failed: ${describeError(e)}`))
        .finally(() => {
          if (ctx.node !== 'SHUT_DOWN') this.schedule(ctx.tuning.mergeNextRunDelayMs ?? MERGE_NEXT_RUN_DELAY_MS);
        });
    }, delayMs);
  }

  /** The split-brain search's view of this member (split-brain.ts). */
  private splitBrainHost(): SplitBrainHost {
    const ctx = this.ctx;
    return {
      clusterName: ctx.clusterName,
      localUuid: ctx.local.uuid,
      logger: ctx.logger,
      canSearch: () => ctx.isMaster() && !ctx.merging && !ctx.isShuttingDown() && ctx.state() === 'ACTIVE' && ctx.net !== undefined,
      memberAddresses: () => new Set([ctx.local.address, ...ctx.memberList.map((m) => m.address)]),
      joinAddresses: () => ctx.joinAddresses(),
      ourSide: () => ({ memberCount: ctx.memberList.length, masterSince: ctx.masterSince ?? Date.now(), masterAddress: ctx.local.address }),
      discover: (address) => this.joining.discover(address),
      fetchCluster: async (address) => {
        const { members, state, masterSince } = decodeFetchStateAnswer(await ctx.net!.request(address, Msg.FetchState, encodeEmpty(), ctx.tuning.callTimeoutMs));
        return { members, state, masterSince };
      },
      mergeInto: async (target) => {
        const others = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
        await Promise.allSettled(others.map((m) => ctx.net!.request(m.address, Msg.MergeTo, encodeMergeTo({ target }), ctx.tuning.callTimeoutMs)));
        await this.mergeInto(target);
      },
    };
  }

  /** MergeTo from this member's master: merge into the cluster of `target`. */
  onMergeTo(target: string, from: MemberConnection): void {
    const ctx = this.ctx;
    splitAddress(target);
    // The gate already takes it from the master only; a merge throws this member's data away, so check again.
    if (from.peer?.uuid !== ctx.memberList[0]?.uuid || !ctx.joined()) throw new GridError('NOT_MEMBER', "MergeTo refused: only this member's master may ask it to merge");
    ctx.logger.warn(`split brain healed: the master asks this member to merge into the cluster of ${target}`);
    void this.mergeInto(target);
  }

  /**
   * Leave this cluster and join the one whose master is at `target`: the data services take
   * what this member owns first (event `merge`/`collect`), then forget this cluster (members,
   * table, state), join the other like a new member, and merge what they took (`joined`).
   */
  private async mergeInto(target: string): Promise<void> {
    const ctx = this.ctx;
    if (ctx.merging || ctx.isShuttingDown()) return;
    ctx.merging = true;
    try {
      ctx.emit({ type: 'merge', phase: 'collect', target });
      const before = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
      for (const m of before) ctx.forgetMember(m);
      ctx.memberList = [ctx.local];
      ctx.listVersion = 0;
      ctx.node = 'STARTING';
      ctx.states.reset();
      ctx.suspected.clear();
      ctx.masterSince = undefined;
      ctx.fencedSince = undefined;
      this.fencing.settleMemberWaiters();
      const deadline = ctx.clock.now() + ctx.tuning.maxJoinMs;
      let joined = false;
      while (!joined && !ctx.isShuttingDown() && ctx.clock.now() < deadline) {
        joined = await this.joining.tryJoin(target).catch((e: unknown) => {
          ctx.logger.warn(`merging into the cluster of ${target}: ${describeError(e)}`);
          return false;
        });
        if (!joined) await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, JOIN_RETRY_MS));
      }
      if (!joined) {
        ctx.logger.error(`could not join the cluster of ${target} to merge into it: this member stays a cluster of its own`);
        this.joining.form();
        ctx.emit({ type: 'merge', phase: 'failed', target });
        return;
      }
      ctx.logger.warn(`merged into the cluster of ${target}: merging the data this member owned`);
      ctx.emit({ type: 'merge', phase: 'joined', target });
    } finally {
      ctx.merging = false;
    }
  }
}
