// Master take-over: when the master is suspected dead, the oldest member still alive asks the
// others for their member lists and cluster states (not waiting for members suspected
// meanwhile), adopts the newest of each, drops everyone older than itself and every suspect,
// and pushes the new list as master.

import { GridError, describeError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodeFetchStateAnswer, encodeEmpty } from '../protocol/payloads.js';
import type { ClusterContext } from './cluster-context.js';
import type { MemberList } from './member-list.js';
import type { PauseFencing } from './pause-fencing.js';
import type { ClusterState, MemberInfo } from './types.js';

export class MasterTakeOver {
  private takingOver = false;
  /** Calls to wake when a member becomes suspected (a take-over stops waiting for its answer). */
  private readonly suspicionWaiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly ctx: ClusterContext,
    private readonly list: MemberList,
    private readonly fencing: PauseFencing,
  ) {}

  /** Member `uuid` was just suspected: calls waiting for its answer fail now. */
  suspected(uuid: string): void {
    const waiters = this.suspicionWaiters.get(uuid);
    if (waiters !== undefined) for (const fn of [...waiters]) fn();
  }

  /** The master is gone: the oldest member still alive takes over, if that is this one. */
  startIfOldest(): void {
    const ctx = this.ctx;
    const next = ctx.memberList.find((m) => !ctx.suspected.has(m.uuid));
    if (next?.uuid === ctx.local.uuid && ctx.memberList[0]?.uuid !== ctx.local.uuid && !ctx.isShuttingDown() && !this.takingOver) {
      this.takingOver = true;
      this.takeOver()
        .catch((e: unknown) => ctx.logger.error(`taking over as master failed: ${describeError(e)}`))
        .finally(() => (this.takingOver = false));
    }
  }

  /** A request to member `uuid` that fails as soon as this member suspects it (instead of at its timeout). */
  private requestUnlessSuspected(uuid: string, address: string, type: number, payload: WireValue): Promise<WireValue> {
    const ctx = this.ctx;
    if (ctx.suspected.has(uuid)) return Promise.reject(new GridError('MEMBER_UNREACHABLE', `member ${address} is suspected dead`));
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
    return Promise.race([ctx.net!.request(address, type, payload, ctx.tuning.callTimeoutMs), suspected]).finally(() => cancel?.());
  }

  private async takeOver(): Promise<void> {
    const ctx = this.ctx;
    ctx.logger.warn('the master is gone: this member is the oldest one left and takes over as master');
    // Another member may have seen a newer list from the old master: adopt the newest.
    let newestVersion = ctx.listVersion;
    const others = ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid && !ctx.suspected.has(m.uuid));
    // A member suspected meanwhile (cut off with the old master, most often a moment later) is
    // not waited for: the split must complete within max-no-heartbeat of the cut.
    const answers = await Promise.allSettled(others.map((m) => this.requestUnlessSuspected(m.uuid, m.address, Msg.FetchState, encodeEmpty())));
    let list: readonly MemberInfo[] = ctx.memberList;
    let newestState: { state: ClusterState; version: number } | undefined;
    for (const a of answers) {
      if (a.status !== 'fulfilled') continue;
      try {
        const t = decodeFetchStateAnswer(a.value);
        const v = t.version;
        // The newest committed cluster state any member saw (the old master may have committed on some only).
        const sv = t.stateVersion ?? 0;
        if (sv > ctx.states.version && sv > (newestState?.version ?? 0)) newestState = { state: t.state, version: sv };
        if (v > newestVersion) {
          const decoded = t.members;
          if (!decoded.some((m) => m.uuid === ctx.local.uuid)) continue;
          newestVersion = v;
          list = decoded;
        }
      } catch (e) {
        ctx.logger.warn(`ignoring a malformed member list during take-over: ${describeError(e)}`);
      }
    }
    if (ctx.removed || this.fencing.fenced()) return;
    if (newestState !== undefined) ctx.emitState(ctx.states.takeNewest(newestState.state, newestState.version));
    // Everyone older than this member is gone (that is why it takes over), and so is every suspect.
    const selfAt = list.findIndex((x) => x.uuid === ctx.local.uuid);
    const next = list.filter((m, i) => i >= selfAt && !ctx.suspected.has(m.uuid)).map((m) => (m.uuid === ctx.local.uuid ? ctx.local : m));
    const before = ctx.memberList;
    ctx.listVersion = Math.max(ctx.listVersion, newestVersion);
    const added = next.filter((m) => !before.some((b) => b.uuid === m.uuid));
    const removed = before.filter((b) => !next.some((m) => m.uuid === b.uuid));
    this.list.commit(next, added, removed);
    this.list.tellRemoved(removed);
  }
}
