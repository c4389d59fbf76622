// The versioned member list: applying a list the master pushed (judged by member-rules.ts),
// and on the master, changing it (joins, removals), bumping its version and pushing it to every
// member, to members just removed and to a non-member that keeps beating.

import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { encodeMembers, type MembersPayload } from '../protocol/payloads.js';
import { splitAddress, type MemberConnection } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import { judgeMemberList } from './member-rules.js';
import type { PauseFencing } from './pause-fencing.js';
import type { MemberInfo, SettableClusterState } from './types.js';

export const MEMBERS_PUSH_TIMEOUT_MS = 5_000;
/** A non-member that keeps sending heartbeats is told it was removed at most this often. */
const TELL_NON_MEMBER_EVERY_MS = 2_000;

export class MemberList {
  private readonly toldNonMember = new Map<string, number>();

  constructor(
    private readonly ctx: ClusterContext,
    private readonly fencing: PauseFencing,
  ) {}

  payload(): MembersPayload {
    const ctx = this.ctx;
    return {
      version: ctx.listVersion,
      members: ctx.memberList,
      // The committed state: IN_TRANSITION is only ever derived from a lock, never stored.
      state: ctx.states.state as SettableClusterState,
      stateVersion: ctx.states.version,
      masterSince: ctx.masterSince,
    };
  }

  encode(): WireValue {
    return encodeMembers(this.payload());
  }

  /** Apply a member list pushed by the master (or answered to our join). */
  apply(p: MembersPayload, from: MemberConnection | undefined): void {
    const ctx = this.ctx;
    const { version, members: list, state } = p;
    if (ctx.removed) return;
    const verdict = judgeMemberList(
      version,
      list.map((m) => m.uuid),
      from?.peer?.uuid,
      {
        localUuid: ctx.local.uuid,
        joined: ctx.joined(),
        shuttingDown: ctx.isShuttingDown(),
        version: ctx.listVersion,
        members: ctx.memberList.map((m) => m.uuid),
        isSuspected: (u) => ctx.suspected.has(u),
      },
    );
    if (verdict.action === 'removed') {
      this.fencing.becomeRemoved(`master ${list[0]?.address ?? '?'} removed this member from the cluster`);
      return;
    }
    if (verdict.action === 'ignore') {
      if (from?.peer !== undefined && ctx.joined() && version > ctx.listVersion) {
        ctx.logger.warn({ from: from.peer.address }, `member list version ${version} ignored: ${verdict.reason}`);
      }
      return;
    }
    for (const m of list) splitAddress(m.address);
    const before = ctx.memberList;
    const oldMaster = before[0]?.uuid;
    const wasJoined = ctx.joined();
    ctx.memberList = list.map((m) => (m.uuid === ctx.local.uuid ? ctx.local : m));
    ctx.listVersion = version;
    ctx.noteMaster();
    if (!ctx.isShuttingDown()) ctx.node = 'ACTIVE';
    const stateChange = ctx.states.fromList(state, p.stateVersion);
    const now = ctx.clock.now();
    const added = list.filter((m) => !before.some((b) => b.uuid === m.uuid) || !wasJoined);
    const removed = wasJoined ? before.filter((b) => !list.some((m) => m.uuid === b.uuid)) : [];
    for (const m of added) if (m.uuid !== ctx.local.uuid) ctx.detector.heard(m.uuid, now);
    for (const m of removed) ctx.forgetMember(m);
    if (wasJoined && (added.length > 0 || removed.length > 0)) this.log();
    ctx.emit({ type: 'membersChanged', added, removed, masterChanged: oldMaster !== list[0]?.uuid || !wasJoined });
    ctx.emitState(stateChange);
  }

  private log(): void {
    const ctx = this.ctx;
    const lines = ctx.memberList.map((m) => `\tMember ${m.address} - ${m.uuid}${m.liteMember ? ' lite' : ''}${m.uuid === ctx.local.uuid ? ' this' : ''}`);
    ctx.logger.info(`Members {size:${ctx.memberList.length}, ver:${ctx.listVersion}} [\n${lines.join('\n')}\n]`);
  }

  /** Master: push the current list to every other member. */
  private async push(): Promise<void> {
    const ctx = this.ctx;
    const payload = this.encode();
    await Promise.allSettled(ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid).map((m) => ctx.net!.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS)));
  }

  /** Master: change the list and tell everyone. */
  commit(next: MemberInfo[], added: MemberInfo[], removed: MemberInfo[]): void {
    const ctx = this.ctx;
    const oldMaster = ctx.memberList[0]?.uuid;
    ctx.memberList = next;
    ctx.listVersion++;
    ctx.noteMaster();
    const now = ctx.clock.now();
    for (const m of added) ctx.detector.heard(m.uuid, now);
    for (const m of removed) ctx.forgetMember(m);
    this.log();
    void this.push();
    ctx.emit({ type: 'membersChanged', added, removed, masterChanged: oldMaster !== next[0]?.uuid });
  }

  /** A member we do not list keeps beating: if it was ours, tell it (it was removed while it could not hear). */
  tellNonMember(from: MemberConnection): void {
    const ctx = this.ctx;
    if (!ctx.isMaster() || from.peer === undefined) return;
    const now = ctx.clock.now();
    const last = this.toldNonMember.get(from.peer.uuid);
    if (last !== undefined && now - last < TELL_NON_MEMBER_EVERY_MS) return;
    if (this.toldNonMember.size > 1000) this.toldNonMember.clear();
    this.toldNonMember.set(from.peer.uuid, now);
    from.request(Msg.Members, this.encode(), MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
  }

  /**
   * Send the new list to members just removed: one that was only paused or cut off (an old
   * master among them) learns from it, when it wakes up, that it must stop.
   */
  tellRemoved(removed: readonly MemberInfo[]): void {
    const payload = this.encode();
    for (const m of removed) void this.ctx.net?.request(m.address, Msg.Members, payload, MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
  }

  /** `graceful`: the member left on its own (an INFO line); otherwise its removal is a WARNING. */
  remove(uuids: readonly string[], reason: string, opts: { graceful?: boolean } = {}): void {
    const ctx = this.ctx;
    const removed = ctx.memberList.filter((m) => uuids.includes(m.uuid) && m.uuid !== ctx.local.uuid);
    if (removed.length === 0) return;
    for (const m of removed) {
      if (opts.graceful === true) ctx.logger.info({ member: m.address, uuid: m.uuid }, `member ${m.address} (${m.uuid}) left the cluster gracefully`);
      else ctx.logger.warn(`removing member ${m.address} (${m.uuid}): ${reason}`);
    }
    this.commit(
      ctx.memberList.filter((m) => !removed.includes(m)),
      [],
      removed,
    );
    this.tellRemoved(removed);
  }
}
