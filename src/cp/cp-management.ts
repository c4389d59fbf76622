// The management facade: CP members and groups (read linearizably from METADATA), sessions,
// promoting this member, removing a missing CP member, destroying a group, the reset of the
// whole subsystem, and this member's Raft figures (GET /rest/cp).

import { GridError } from '../core/errors.js';
import type { MemberInfo } from '../cluster/types.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import { decodeCpDiscoverAnswer, encodeCpReset } from '../protocol/cp-payloads.js';
import { encodeEmpty } from '../protocol/payloads.js';
import type { CpSessionInfo } from './cp-data-state.js';
import { METADATA_GROUP, METADATA_GROUP_ID, type CpMemberRec } from './cp-metadata-state.js';
import { MEMBER_CALL_TIMEOUT_MS, type CpContext } from './cp-context.js';
import type { CpGroupView, CpLocalStatus, CpMemberView } from './cp-api.js';

export class CpManagement {
  constructor(private readonly ctx: CpContext) {}

  async groups(): Promise<{ name: string; id: number }[]> {
    return (await this.ctx.calls.metadata()).groups.map((g) => ({ name: g.name, id: g.id }));
  }

  async group(name: string): Promise<CpGroupView | undefined> {
    const v = await this.ctx.calls.metadata();
    const g = v.groups.find((x) => x.name === name);
    if (g === undefined) return undefined;
    const byUuid = new Map(v.cpMembers.map((m) => [m.cpUuid, m]));
    return {
      id: { name: g.name, id: g.id },
      status: 'ACTIVE',
      members: g.members.map((u) => memberView(byUuid.get(u) ?? { cpUuid: u, memberUuid: '', address: this.ctx.addresses.get(u) ?? '' })),
    };
  }

  async sessions(group: string): Promise<CpSessionInfo[] | undefined> {
    const g = (await this.ctx.calls.requireView()).groups.find((x) => x.name === group);
    if (g === undefined || g.id === METADATA_GROUP_ID) return g === undefined ? undefined : [];
    const rows = f.tuple(await this.ctx.calls.read(g, ['sessions']), 'sessions');
    return rows.map((r) => {
      const t = f.tuple(r, 'session');
      return {
        id: Number(t[0]),
        creationTime: Number(t[1]),
        expirationTime: Number(t[2]),
        version: Number(t[3]),
        endpoint: String(t[4]),
        endpointName: String(t[5]),
        endpointType: t[6] === 'SERVER' ? 'SERVER' : 'CLIENT',
      };
    });
  }

  async closeSession(group: string, sessionId: number): Promise<boolean> {
    const g = await this.ctx.calls.existingGroup(group);
    if (g.id === METADATA_GROUP_ID) return false;
    return (await this.ctx.calls.call(g, 'cmd', ['closeSession', this.ctx.calls.key(), sessionId], this.ctx.deadline())) === true;
  }

  async destroyGroup(name: string): Promise<void> {
    if (name === METADATA_GROUP) throw new GridError('BAD_REQUEST', 'the METADATA group cannot be destroyed');
    await this.ctx.calls.requireView();
    await this.ctx.calls.proposeMetadata(['destroyGroup', name]);
    this.ctx.leaders.clear();
    await this.ctx.calls.metadata().catch(() => undefined);
  }

  async members(): Promise<CpMemberView[]> {
    return (await this.ctx.calls.metadata()).cpMembers.map(memberView);
  }

  localMember(): CpMemberView | undefined {
    if (!this.ctx.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const m = this.ctx.view?.cpMembers.find((x) => x.cpUuid === this.ctx.cpUuid);
    return m === undefined ? undefined : memberView(m);
  }

  async promote(): Promise<void> {
    await this.ctx.calls.requireView();
    if (this.localMember() !== undefined) return;
    if (this.ctx.deps.config.liteMember) throw new GridError('BAD_REQUEST', 'a lite member cannot be a CP member');
    const l = this.ctx.local;
    await this.ctx.calls.proposeMetadata(['addMember', this.ctx.cpUuid, l.uuid, l.address]);
    await this.ctx.calls.metadata().catch(() => undefined);
  }

  async removeMember(cpUuid: string): Promise<void> {
    const v = await this.ctx.calls.metadata();
    const m = v.cpMembers.find((x) => x.cpUuid === cpUuid);
    if (m === undefined) throw new GridError('BAD_REQUEST', `no CP member ${cpUuid}`);
    const member = this.ctx.deps.cluster.memberByUuid(m.memberUuid);
    if (member !== undefined && !(await this.isStaleSeat(m, member))) {
      throw new GridError('BAD_REQUEST', `CP member ${cpUuid} (${m.address}) is still a member of the cluster: only a missing CP member can be removed`);
    }
    await this.ctx.calls.proposeMetadata(['removeMember', cpUuid]);
    await this.ctx.calls.metadata().catch(() => undefined);
  }

  /**
   * A seat whose member is in the cluster under a different CP identity: the process restarted
   * (persistence keeps the member uuid) and its Raft state is gone, so the seat is dead.
   */
  async isStaleSeat(seat: CpMemberRec, member: MemberInfo): Promise<boolean> {
    if (member.uuid === this.ctx.local.uuid) return seat.cpUuid !== this.ctx.cpUuid;
    try {
      const { cpUuid } = decodeCpDiscoverAnswer(await this.ctx.deps.net.request(member.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
      return cpUuid !== seat.cpUuid;
    } catch {
      return false;
    }
  }

  async reset(): Promise<void> {
    if (!this.ctx.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const seed = 1 + Math.floor(this.ctx.random() * 0x7ffffffe);
    const self = this.ctx.local.uuid;
    const others = this.ctx.deps.cluster.members().filter((m) => m.uuid !== self);
    this.ctx.forming.wipe(seed);
    await Promise.all(others.map((m) => this.ctx.deps.net.request(m.address, Msg.CpReset, encodeCpReset({ seed }), MEMBER_CALL_TIMEOUT_MS)));
    this.ctx.deps.logger.warn({ seed }, 'CP subsystem reset: every member wiped its CP state; the subsystem forms again');
  }

  status(): CpLocalStatus {
    return {
      enabled: this.ctx.enabled,
      seed: this.ctx.seed,
      cpMemberUuid: this.ctx.view?.cpMembers.some((m) => m.cpUuid === this.ctx.cpUuid) ? this.ctx.cpUuid : undefined,
      viewVersion: this.ctx.view?.version,
      groups: [...this.ctx.nodes.values()].map((n) => {
        const s = n.raft.status();
        return { name: n.rec.name, id: n.rec.id, role: s.role, term: s.term, leader: s.leaderId, commitIndex: s.commitIndex, lastApplied: n.lastApplied, members: s.members };
      }),
    };
  }
}

/** Hazelcast shows addresses as `[host]:port`. */
function memberView(m: CpMemberRec): CpMemberView {
  const i = m.address.lastIndexOf(':');
  const host = i < 0 ? m.address : m.address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = i < 0 ? '' : m.address.slice(i + 1);
  return { uuid: m.cpUuid, address: `[${host}]:${port}` };
}
