// Housekeeping, every TICK_MS: forming while there is no subsystem, giving up this process's
// stale seat, and what the leaders do on their own — the METADATA leader re-sends the view,
// removes CP members missing too long, promotes members while CP members are too few and
// carries out the groups' membership changes; a data group's leader expires sessions and
// waits through the log.

import { describeError } from '../core/errors.js';
import type { MemberInfo } from '../cluster/types.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import { decodeCpDiscoverAnswer } from '../protocol/cp-payloads.js';
import { encodeEmpty } from '../protocol/payloads.js';
import type { CpDataState } from './cp-data-state.js';
import { METADATA_GROUP_ID, type CpGroupChange, type CpMetadataState, type CpView } from './cp-metadata-state.js';
import { MEMBER_CALL_TIMEOUT_MS, VIEW_RESEND_MS, type CpContext, type GroupNode } from './cp-context.js';

export class CpHousekeeping {
  constructor(private readonly ctx: CpContext) {}

  tick(): void {
    if (this.ctx.stopped) return;
    try {
      if (this.ctx.seed === undefined) {
        void this.ctx.forming.maybeBootstrap();
        return;
      }
      if (this.ctx.view !== undefined) this.dropOwnStaleSeat(this.ctx.view);
      const meta = this.ctx.nodes.get(METADATA_GROUP_ID);
      if (meta !== undefined && meta.raft.status().role === 'leader' && meta.sm.kind === 'metadata') this.metadataLeaderTick(meta, meta.sm.state);
      for (const n of this.ctx.nodes.values()) if (n.sm.kind === 'data' && n.raft.status().role === 'leader') this.dataLeaderTick(n, n.sm.state);
    } catch (e) {
      this.ctx.deps.logger.warn(`CP housekeeping failed: ${describeError(e)}`);
    }
  }

  dataLeaderTick(n: GroupNode, s: CpDataState): void {
    const now = this.ctx.now();
    // Sessions and waits expire through the log (a `tick` command), so every replica agrees.
    if (now - n.lastTickMs < 1000 || !s.hasExpiries(now)) return;
    n.lastTickMs = now;
    const r = n.raft.propose(['tick', '', now], now);
    this.ctx.shell.drive(n, r.outputs);
  }

  metadataLeaderTick(n: GroupNode, s: CpMetadataState): void {
    const now = this.ctx.now();
    if (this.ctx.viewDirty || now - this.ctx.lastViewSentMs >= VIEW_RESEND_MS) this.ctx.forming.broadcastView();
    const cp = this.ctx.deps.config.cpSubsystem;
    const alive = new Set(this.ctx.deps.cluster.members().map((m) => m.uuid));
    // Missing CP members: removed after missing-cp-member-auto-removal-seconds (0: never).
    for (const m of s.members()) {
      if (alive.has(m.memberUuid)) {
        this.ctx.missingSince.delete(m.cpUuid);
        continue;
      }
      const since = this.ctx.missingSince.get(m.cpUuid) ?? now;
      this.ctx.missingSince.set(m.cpUuid, since);
      if (cp.missingCpMemberAutoRemovalSeconds > 0 && now - since >= cp.missingCpMemberAutoRemovalSeconds * 1000 && s.members().length > 1) {
        this.ctx.missingSince.delete(m.cpUuid);
        this.ctx.deps.logger.warn({ cpMember: m.cpUuid, address: m.address }, `CP member ${m.address} missing for ${cp.missingCpMemberAutoRemovalSeconds} s: removing it from the CP subsystem`);
        this.proposeLocal(n, ['removeMember', m.cpUuid]);
      }
    }
    // Fewer CP members than configured: promote the oldest AP member.
    if (s.members().length < cp.cpMemberCount && !this.ctx.promoting) {
      const cpMembers = new Set(s.members().map((m) => m.memberUuid));
      const candidate = this.ctx.deps.cluster.members().find((m) => !m.liteMember && !cpMembers.has(m.uuid) && this.ctx.deps.cluster.isAlive(m.uuid));
      if (candidate !== undefined) void this.promoteMember(n, candidate);
    }
    for (const c of s.plan()) if (!this.ctx.changesInFlight.has(c.group)) void this.carryOut(n, c);
  }

  async promoteMember(n: GroupNode, m: MemberInfo): Promise<void> {
    this.ctx.promoting = true;
    try {
      const { cpUuid, leaving } = decodeCpDiscoverAnswer(await this.ctx.deps.net.request(m.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
      if (leaving) return; // shutting down
      this.ctx.deps.logger.info({ member: m.address, cpMember: cpUuid }, `CP subsystem: promoting ${m.address} to CP member`);
      this.proposeLocal(n, ['addMember', cpUuid, m.uuid, m.address]);
    } catch (e) {
      this.ctx.deps.logger.debug(`CP promotion of ${m.address} failed: ${describeError(e)}`);
    } finally {
      this.ctx.promoting = false;
    }
  }

  /** A group membership change: the group's leader makes it, then METADATA records it. */
  async carryOut(meta: GroupNode, c: CpGroupChange): Promise<void> {
    this.ctx.changesInFlight.add(c.group);
    try {
      const g = this.ctx.view?.groups.find((x) => x.id === c.groupId);
      if (g === undefined) return;
      const members = await this.ctx.calls.call(g, 'change', [c.type, c.cpUuid], this.ctx.now() + 10_000);
      const list = f.tuple(members, 'cp change answer').map((x) => String(x));
      this.ctx.deps.logger.info({ group: c.group, change: c.type, cpMember: c.cpUuid }, `CP group ${c.group}: member ${c.type === 'add' ? 'added' : 'removed'} (${list.length} members)`);
      if (!meta.destroyed) await this.ctx.calls.proposeMetadata(['setGroupMembers', c.group, c.groupId, list], this.ctx.now() + 10_000);
    } catch (e) {
      this.ctx.deps.logger.debug(`CP group ${c.group}: ${c.type} ${c.cpUuid} not done yet: ${describeError(e)}`);
    } finally {
      this.ctx.changesInFlight.delete(c.group);
    }
  }

  proposeLocal(n: GroupNode, command: WireValue): void {
    const r = n.raft.propose(command, this.ctx.now());
    this.ctx.shell.drive(n, r.outputs);
  }

  /** This process's own old seat (a restart that kept the member uuid): give it up so that it is replaced now. */
  dropOwnStaleSeat(v: CpView): void {
    const stale = v.cpMembers.find((m) => m.memberUuid === this.ctx.local.uuid && m.cpUuid !== this.ctx.cpUuid);
    if (stale === undefined || this.ctx.droppingStale || this.ctx.stopped) return;
    this.ctx.droppingStale = true;
    this.ctx.deps.logger.warn({ staleCpMember: stale.cpUuid }, 'CP subsystem: this member restarted and lost its CP state; giving up its old CP seat so that it is replaced');
    this.ctx.calls.proposeMetadata(['removeMember', stale.cpUuid], this.ctx.now() + MEMBER_CALL_TIMEOUT_MS * 2)
      .catch((e: unknown) => this.ctx.deps.logger.debug(`CP subsystem: giving up the old seat failed, retrying: ${describeError(e)}`))
      .finally(() => {
        this.ctx.droppingStale = false;
      });
  }
}
