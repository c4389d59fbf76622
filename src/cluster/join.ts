// Joining: asking the tcp-ip addresses who they are (Discover), then joining the master they
// name, forming a cluster of one, or waiting (the pure join-decision.ts decides); answering
// another member's Discover; and on the master, admitting a joiner (its identity checked by
// dialling it back) into the member list.

import { GridError, describeError, isGridError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodeDiscoverAnswer, decodeJoinAnswer, encodeDiscover, encodeDiscoverAnswer, encodeJoin, encodeJoinAnswer } from '../protocol/payloads.js';
import { splitAddress, type MemberConnection } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import { decideJoin, type DiscoverAnswer } from './join-decision.js';
import type { MemberList } from './member-list.js';
import type { PauseFencing } from './pause-fencing.js';
import type { MemberInfo } from './types.js';

export const JOIN_RETRY_MS = 200;
/** A member that is not joined remembers for this long who asked it to join (join-decision.ts). */
const ASKED_BY_MEMORY_MS = 3_000;

export class Join {
  private readonly askedBy = new Map<string, number>();
  private readonly refusedLogged = new Set<string>();
  private lastJoinFailure = '';

  constructor(
    private readonly ctx: ClusterContext,
    private readonly list: MemberList,
    private readonly fencing: PauseFencing,
    /** This member now belongs to a cluster: start its heartbeats (once). */
    private readonly started: () => void,
  ) {}

  /** Find the cluster through the member list and join it, or form it. */
  async join(): Promise<void> {
    const ctx = this.ctx;
    const addresses = ctx.joinAddresses().filter((a) => a !== ctx.local.address);
    if (ctx.net === undefined || addresses.length === 0) {
      this.form();
      return;
    }
    const started = ctx.clock.now();
    let round = 0;
    let lastWait = '';
    for (;;) {
      if (ctx.isShuttingDown()) throw new GridError('MEMBER_SHUTTING_DOWN', 'member stopped while joining');
      round++;
      const answers = (await Promise.all(addresses.map((a) => this.discover(a)))).filter((a): a is DiscoverAnswer => a !== undefined);
      const now = ctx.clock.now();
      for (const [a, at] of this.askedBy) if (now - at > ASKED_BY_MEMORY_MS) this.askedBy.delete(a);
      const decision = decideJoin({ self: ctx.local.address, answers, askedBy: [...this.askedBy.keys()], round });
      if (decision.action === 'form') {
        this.form();
        return;
      }
      if (decision.action === 'join') {
        const done = await this.tryJoin(decision.masterAddress);
        if (done) return;
      } else if (decision.reason !== lastWait) {
        lastWait = decision.reason;
        ctx.logger.debug(decision.reason);
      }
      if (ctx.clock.now() - started > ctx.tuning.maxJoinMs) {
        throw new GridError('TIMEOUT', `could not join a cluster within ${Math.round(ctx.tuning.maxJoinMs / 1000)} s`);
      }
      await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, JOIN_RETRY_MS));
    }
  }

  /** Become a cluster of one (the master). */
  form(): void {
    const ctx = this.ctx;
    ctx.memberList = [ctx.local];
    ctx.listVersion = 1;
    ctx.node = 'ACTIVE';
    ctx.noteMaster();
    this.started();
    ctx.logger.info(`formed cluster "${ctx.clusterName}" as its first member (master)`);
    ctx.emit({ type: 'membersChanged', added: [ctx.local], removed: [], masterChanged: true });
  }

  async discover(address: string): Promise<DiscoverAnswer | undefined> {
    const ctx = this.ctx;
    try {
      const r = decodeDiscoverAnswer(await ctx.net!.request(address, Msg.Discover, encodeDiscover({ uuid: ctx.local.uuid, address: ctx.local.address }), ctx.tuning.callTimeoutMs));
      if (r.uuid === ctx.local.uuid) return undefined; // ourselves under another address
      return r;
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

  private logNotSameCluster(address: string, why: string): void {
    if (this.refusedLogged.has(address)) return;
    this.refusedLogged.add(address);
    this.ctx.logger.warn(`member ${address} is not part of this cluster: ${why}`);
  }

  /** Ask the master at `masterAddress` (or the one it redirects to) to take this member in; true once joined. */
  async tryJoin(masterAddress: string): Promise<boolean> {
    const ctx = this.ctx;
    let target = masterAddress;
    for (let hop = 0; hop < 3; hop++) {
      let answer: WireValue;
      if (ctx.logger.isLevelEnabled('debug')) ctx.logger.debug({ target }, `asking ${target} to join cluster "${ctx.clusterName}"`);
      try {
        answer = await ctx.net!.request(target, Msg.Join, encodeJoin({ member: ctx.local }), ctx.tuning.callTimeoutMs);
      } catch (e) {
        if (isGridError(e) && e.code === 'FORBIDDEN') throw e;
        const why = `join through ${target} failed, trying again: ${describeError(e)}`;
        if (why !== this.lastJoinFailure) ctx.logger.info(why);
        this.lastJoinFailure = why;
        return false;
      }
      let r: ReturnType<typeof decodeJoinAnswer>;
      try {
        r = decodeJoinAnswer(answer);
      } catch (e) {
        // A peer answering the join with the wrong shape is not a master: try again (elsewhere).
        const why = `join through ${target} failed, trying again: its answer is malformed: ${describeError(e)}`;
        if (why !== this.lastJoinFailure) ctx.logger.warn(why);
        this.lastJoinFailure = why;
        return false;
      }
      if (r.refusal !== undefined) throw new GridError('CONFLICT', `could not join the cluster through ${target}: ${r.refusal}`);
      if (r.redirect !== undefined) {
        if (ctx.logger.isLevelEnabled('debug')) ctx.logger.debug({ target, master: r.redirect }, `${target} is not the master: asking ${r.redirect}`);
        target = r.redirect;
        continue;
      }
      // decodeJoinAnswer refuses an answer with neither a refusal, a redirect nor a member list.
      this.list.apply(r.members!, undefined);
      if (ctx.joined()) {
        this.started();
        ctx.logger.info(`joined cluster "${ctx.clusterName}" (master ${ctx.master()?.address ?? '?'}, ${ctx.memberList.length} members)`);
        return true;
      }
      return false;
    }
    return false;
  }

  /** Another member asks who this one is (it looks for the cluster, or for another cluster after a split brain). */
  onDiscover(address: string): WireValue {
    const ctx = this.ctx;
    if (!ctx.joined()) this.askedBy.set(address, ctx.clock.now());
    return encodeDiscoverAnswer({ uuid: ctx.local.uuid, address: ctx.local.address, joined: ctx.joined(), masterAddress: ctx.joined() ? ctx.master()?.address : undefined });
  }

  /** A member asks to join: the master admits it (or redirects to the master, or refuses). */
  async onJoin(joiner: MemberInfo, from: MemberConnection): Promise<WireValue> {
    const ctx = this.ctx;
    if (!ctx.joined() || ctx.isShuttingDown() || this.fencing.fenced()) throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    if (!ctx.isMaster()) return encodeJoinAnswer({ redirect: ctx.master()?.address });
    if (ctx.memberList.some((m) => m.uuid === joiner.uuid)) return encodeJoinAnswer({ members: this.list.payload() });
    // The joiner is who its connection authenticated as, at an address this member can reach
    // and that answers with the same uuid: a forged Join cannot add a member nobody can reach.
    if (joiner.uuid !== from.peer?.uuid || joiner.address !== from.peer.address) {
      throw new GridError('NOT_MEMBER', `join refused: the joining member's identity differs from its connection's (${from.peer?.uuid ?? '?'} at ${from.peer?.address ?? '?'})`);
    }
    splitAddress(joiner.address);
    let back: MemberConnection;
    try {
      back = await ctx.net!.connect(joiner.address);
    } catch (e) {
      throw new GridError('CONFLICT', `join refused: this master cannot reach ${joiner.address}: ${describeError(e)}`);
    }
    if (back.peer?.uuid !== joiner.uuid) {
      back.close();
      throw new GridError('CONFLICT', `join refused: ${joiner.address} answers as member ${back.peer?.uuid ?? '?'}, not ${joiner.uuid}`);
    }
    // The world may have moved while dialling.
    if (!ctx.isMaster()) return encodeJoinAnswer({ redirect: ctx.master()?.address });
    if (ctx.memberList.some((m) => m.uuid === joiner.uuid)) return encodeJoinAnswer({ members: this.list.payload() });
    const state = ctx.state();
    if (state === 'IN_TRANSITION') throw new GridError('CONFLICT', 'the cluster state is changing: try again');
    if (state === 'FROZEN' || state === 'PASSIVE') {
      ctx.logger.warn(`member ${joiner.address} may not join: the cluster is ${state}`);
      // A refusal the joiner cannot wait out: it stops instead of retrying.
      return encodeJoinAnswer({ refusal: `the cluster is ${state}: no member may join until it is ACTIVE or NO_MIGRATION again` });
    }
    // A member restarted on the same address replaces its dead predecessor.
    const stale = ctx.memberList.filter((m) => m.address === joiner.address);
    const next = [...ctx.memberList.filter((m) => !stale.includes(m)), joiner];
    for (const m of stale) ctx.logger.warn(`member ${m.address} (${m.uuid}) was replaced by a new member at the same address`);
    ctx.logger.info(`member ${joiner.address} (${joiner.uuid}${joiner.liteMember ? ', lite' : ''}) joins`);
    this.list.commit(next, [joiner], stale);
    return encodeJoinAnswer({ members: this.list.payload() });
  }
}
