// Fencing after a pause or a refusal: a member that did not run for a while (SIGSTOP, a frozen
// VM, a long GC), or that a peer refused as a non-member, may hold a stale view. It acts on
// nothing (fenced) while it asks the others for their member lists; a newer list without it
// from its own cluster's master means it was removed, and it stops without handing anything over.

import { describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import { decodeFetchStateAnswer, encodeEmpty } from '../protocol/payloads.js';
import type { ClusterContext } from './cluster-context.js';
import { removedWhilePaused } from './member-rules.js';
import type { MemberInfo } from './types.js';

export class PauseFencing {
  /** When the heartbeat timer last ran (0 before it starts); a much later time means this process was paused. */
  private lastTickAt = 0;
  private pauseMs = Number.POSITIVE_INFINITY;
  private verifying = false;
  /** Callers of `stillMember()` waiting for the membership check (or the removal) to settle it. */
  private readonly memberWaiters: ((belongs: boolean) => void)[] = [];

  constructor(private readonly ctx: ClusterContext) {}

  /** The heartbeat timer starts: a tick later than `pauseMs` after the previous one means a pause. */
  watch(pauseMs: number, now: number): void {
    this.pauseMs = pauseMs;
    this.lastTickAt = now;
  }

  /** A heartbeat timer tick at `now`. */
  tick(now: number): void {
    if (now - this.lastTickAt > this.pauseMs) this.pauseDetected(now, now - this.lastTickAt);
    this.lastTickAt = now;
  }

  fenced(): boolean {
    const ctx = this.ctx;
    if (ctx.fencedSince !== undefined || ctx.removed) return true;
    // Back from a pause, the I/O that waited in socket buffers is handled before the heartbeat
    // timer runs: an operation must not run on the old view before the timer notices.
    if (this.lastTickAt !== 0) {
      const now = ctx.clock.now();
      if (now - this.lastTickAt > this.pauseMs) {
        this.pauseDetected(now, now - this.lastTickAt);
        return ctx.fencedSince !== undefined;
      }
    }
    return false;
  }

  /** This process did not run for `gapMs` (SIGSTOP, a frozen VM, a long GC): the others may have removed it. */
  private pauseDetected(now: number, gapMs: number): void {
    const ctx = this.ctx;
    this.lastTickAt = now;
    if (ctx.isShuttingDown()) return;
    // The silence was ours: nobody is suspected for it.
    for (const m of ctx.memberList) if (m.uuid !== ctx.local.uuid) ctx.detector.heard(m.uuid, now);
    this.checkMembership(`this member did not run for ${(gapMs / 1000).toFixed(1)} s (paused?)`);
  }

  stillMember(): Promise<boolean> {
    if (!this.fenced()) return Promise.resolve(true);
    if (this.ctx.removed) return Promise.resolve(false);
    return new Promise((resolve) => this.memberWaiters.push(resolve));
  }

  /** The membership check ended or this member was removed: tell whoever waits in `stillMember()`. */
  settleMemberWaiters(): void {
    if (this.memberWaiters.length === 0 || (this.ctx.fencedSince !== undefined && !this.ctx.removed)) return;
    const belongs = !this.ctx.removed;
    for (const w of this.memberWaiters.splice(0)) w(belongs);
  }

  checkMembership(reason: string): void {
    const ctx = this.ctx;
    if (this.verifying || ctx.removed || !ctx.joined() || ctx.isShuttingDown() || ctx.net === undefined) return;
    this.verifying = true;
    ctx.fencedSince = ctx.clock.now();
    ctx.logger.warn(`${reason}: checking with the other members that this member still belongs to the cluster before acting again`);
    this.verifyMembership()
      .catch((e: unknown) => ctx.logger.warn(`membership check failed: ${describeError(e)}`))
      .finally(() => {
        this.verifying = false;
        if (!ctx.removed && ctx.fencedSince !== undefined) {
          ctx.fencedSince = undefined;
          ctx.logger.info('membership confirmed: this member acts again');
          // Anything that waited for a master (this one, say) goes on.
          if (ctx.memberList[0]?.uuid === ctx.local.uuid) ctx.emit({ type: 'membersChanged', added: [], removed: [], masterChanged: false });
        }
        this.settleMemberWaiters();
      });
  }

  /**
   * Ask every member for its list. A newer list without this member, from a master that was a
   * member of this member's cluster, means it was removed while it could not hear it.
   */
  private async verifyMembership(): Promise<void> {
    const ctx = this.ctx;
    const others = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid);
    const answers = await Promise.allSettled(others.map((m) => ctx.net!.request(m.address, Msg.FetchState, encodeEmpty(), ctx.tuning.callTimeoutMs)));
    for (const a of answers) {
      if (a.status !== 'fulfilled' || ctx.removed) continue;
      let version: number;
      let list: readonly MemberInfo[];
      try {
        ({ version, members: list } = decodeFetchStateAnswer(a.value));
      } catch (e) {
        ctx.logger.warn(`ignoring a malformed member list: ${describeError(e)}`);
        continue;
      }
      const me = { localUuid: ctx.local.uuid, version: ctx.listVersion, members: ctx.memberList.map((m) => m.uuid) };
      if (removedWhilePaused(me, { version, members: list.map((m) => m.uuid) })) {
        this.becomeRemoved(`master ${list[0]?.address ?? '?'} removed this member from the cluster (member list version ${version})`);
      }
    }
  }

  becomeRemoved(why: string): void {
    const ctx = this.ctx;
    if (ctx.removed) return;
    ctx.removed = true;
    this.settleMemberWaiters();
    if (!ctx.isShuttingDown()) {
      ctx.logger.error(`${why} (it was thought dead): shutting down without handing anything over, its data is stale`);
      ctx.emit({ type: 'removedFromCluster' });
    }
  }
}
