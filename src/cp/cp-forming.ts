// Forming the CP subsystem and keeping this member's view of it: the master discovers the first
// `cp-member-count` members and bootstraps them; every member takes the view the METADATA
// leader broadcasts (a higher version replaces a lower one, another seed is ignored), starts
// the Raft nodes of the groups it belongs to and stops those of destroyed groups; a reset
// wipes it all under the next seed.

import { randomUUID } from 'node:crypto';
import { GridError, describeError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodeCpBootstrap, decodeCpDiscoverAnswer, decodeCpFetchViewAnswer, decodeCpView, encodeCpBootstrap, encodeCpView } from '../protocol/cp-payloads.js';
import { encodeEmpty } from '../protocol/payloads.js';
import { CpMetadataState, type CpView } from './cp-metadata-state.js';
import { MEMBER_CALL_TIMEOUT_MS, type CpContext, type FormingPort } from './cp-context.js';

export class CpForming implements FormingPort {
  constructor(private readonly ctx: CpContext) {}

  async maybeBootstrap(): Promise<void> {
    const cluster = this.ctx.deps.cluster;
    if (this.ctx.bootstrapping || !cluster.isMaster() || !cluster.joined()) return;
    const need = this.ctx.deps.config.cpSubsystem.cpMemberCount;
    const data = cluster.members().filter((m) => !m.liteMember);
    if (data.length < need) {
      if (!this.ctx.waitingLogged) {
        this.ctx.waitingLogged = true;
        this.ctx.deps.logger.info(`CP subsystem waits for ${need} members (cp-member-count) to form; ${data.length} present`);
      }
      return;
    }
    this.ctx.bootstrapping = true;
    try {
      const chosen = data.slice(0, need);
      const found = await Promise.all(chosen.map((m) => this.ctx.deps.net.request(m.address, Msg.CpDiscover, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS)));
      for (const [i, a] of found.entries()) {
        const d = decodeCpDiscoverAnswer(a);
        if (d.seed !== 0) {
          // Formed already (a master change): learn it from that member instead.
          await this.fetchView(chosen[i]!.address);
          return;
        }
      }
      if (this.ctx.seed !== undefined) return;
      const seed = this.ctx.pendingSeed ?? 1 + Math.floor(this.ctx.random() * 0x7ffffffe);
      // As in Hazelcast, the first CP members are CP members under their member uuids (so the
      // CP and cluster REST views name them alike); members promoted later get fresh ones.
      const members = chosen.map((m) => ({ cpUuid: m.uuid, memberUuid: m.uuid, address: m.address }));
      const groupSize = this.ctx.deps.config.cpSubsystem.groupSize;
      await Promise.all(chosen.map((m) => this.ctx.deps.net.request(m.address, Msg.CpBootstrap, encodeCpBootstrap({ seed, groupSize, members }), MEMBER_CALL_TIMEOUT_MS)));
      this.ctx.deps.logger.info({ seed, cpMembers: chosen.map((m) => m.address) }, `CP subsystem formed by the master: ${need} CP members, group size ${groupSize}`);
      // Every member learns it now (AP members too), not only once METADATA has elected its leader.
      const v = CpMetadataState.initial(members, groupSize).view(seed, 0);
      this.takeView(v);
      const payload = encodeCpView({ view: v });
      for (const m of cluster.members()) if (m.uuid !== this.ctx.local.uuid) this.ctx.deps.net.oneWay(m.address, Msg.CpView, payload);
    } catch (e) {
      this.ctx.deps.logger.warn(`CP subsystem: forming failed, retrying: ${describeError(e)}`);
    } finally {
      this.ctx.bootstrapping = false;
    }
  }

  onBootstrap(p: WireValue): WireValue {
    // The decoder checks the group size too: 1 to the number of members.
    const { seed, groupSize, members } = decodeCpBootstrap(p);
    if (this.ctx.seed !== undefined || (this.ctx.pendingSeed !== undefined && this.ctx.pendingSeed !== seed)) return false;
    // A first CP member takes its member uuid as its CP uuid. Safe: this process has been in no
    // formed subsystem under this seed (it has none), and a member restarted with a persisted
    // uuid is never bootstrapped (it finds the subsystem formed, gives up its old seat and is
    // promoted under a fresh uuid: cp-housekeeping.ts).
    const local = this.ctx.local.uuid;
    const mine = members.find((m) => m.memberUuid === local && (m.cpUuid === local || m.cpUuid === this.ctx.cpUuid));
    if (mine === undefined) return false;
    this.ctx.cpUuid = mine.cpUuid;
    this.ctx.seed = seed;
    this.ctx.pendingSeed = undefined;
    const initial = CpMetadataState.initial(members, groupSize);
    this.adoptView(initial.view(seed, 0));
    return true;
  }

  onView(p: WireValue): void {
    this.takeView(decodeCpView(p).view);
  }

  takeView(v: CpView): void {
    if (this.ctx.seed === undefined) {
      if (this.ctx.pendingSeed !== undefined && v.seed !== this.ctx.pendingSeed) return;
      this.ctx.seed = v.seed;
      this.ctx.pendingSeed = undefined;
    } else if (v.seed !== this.ctx.seed) return;
    if (this.ctx.view !== undefined && this.ctx.view.version >= v.version) return;
    this.adoptView(v);
  }

  async fetchView(address: string): Promise<void> {
    const { view } = decodeCpFetchViewAnswer(await this.ctx.deps.net.request(address, Msg.CpFetchView, encodeEmpty(), MEMBER_CALL_TIMEOUT_MS));
    if (view !== undefined) this.takeView(view);
  }

  adoptView(v: CpView): void {
    const first = this.ctx.view === undefined;
    this.ctx.view = v;
    for (const m of v.cpMembers) this.ctx.addresses.set(m.cpUuid, m.address);
    for (const m of v.initialCpMembers) if (!this.ctx.addresses.has(m.cpUuid)) this.ctx.addresses.set(m.cpUuid, m.address);
    if (first) {
      const mine = v.cpMembers.some((m) => m.cpUuid === this.ctx.cpUuid);
      this.ctx.deps.logger.info({ seed: v.seed, cpMember: mine, cpMemberUuid: mine ? this.ctx.cpUuid : undefined }, `CP subsystem view received: ${v.cpMembers.length} CP members, ${v.groups.length} groups${mine ? '; this member is a CP member' : ''}`);
    }
    const byId = new Map(v.groups.map((g) => [g.id, g]));
    for (const g of v.groups) {
      if (g.members.includes(this.ctx.cpUuid) && !this.ctx.nodes.has(g.id)) this.ctx.shell.createNode(g);
    }
    for (const n of [...this.ctx.nodes.values()]) {
      const g = byId.get(n.rec.id);
      if (g === undefined || g.name !== n.rec.name) {
        this.ctx.shell.destroyNode(n, new GridError('NOT_FOUND', `CP group ${n.rec.name} was destroyed`));
        this.ctx.nodes.delete(n.rec.id);
      }
    }
  }

  /** A reset: every group and the view go; the master forms the subsystem again under `seed`. */
  wipe(seed: number): void {
    if (this.ctx.seed === seed) return;
    for (const n of this.ctx.nodes.values()) this.ctx.shell.destroyNode(n, new GridError('CP_UNAVAILABLE', 'the CP subsystem was reset'));
    this.ctx.nodes.clear();
    this.ctx.leaders.clear();
    this.ctx.missingSince.clear();
    this.ctx.seed = undefined;
    this.ctx.view = undefined;
    this.ctx.pendingSeed = seed;
    this.ctx.cpUuid = randomUUID();
    this.ctx.waitingLogged = false;
    this.ctx.deps.logger.warn({ seed }, 'CP subsystem reset: all CP state of this member wiped');
  }

  broadcastView(): void {
    const v = this.ctx.view;
    if (v === undefined) return;
    this.ctx.viewDirty = false;
    this.ctx.lastViewSentMs = this.ctx.now();
    const payload = encodeCpView({ view: v });
    const self = this.ctx.local.uuid;
    for (const m of this.ctx.deps.cluster.members()) if (m.uuid !== self) this.ctx.deps.net.oneWay(m.address, Msg.CpView, payload);
  }
}
