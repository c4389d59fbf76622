// Calling a group: the view (waited for while the subsystem forms), then the group's leader —
// the known one first, following NOT_LEADER hints, moving on from members that do not answer,
// failing at once when no majority of the group is in the member list — retrying the same
// deduplication key until an answer or the deadline. Also the groups a call goes to: METADATA,
// a data group (created on first use), an existing group.

import { GridError, describeError, isGridErrorCode } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodeCpInvokeAnswer, encodeCpInvoke } from '../protocol/cp-payloads.js';
import { METADATA_GROUP, METADATA_GROUP_ID, checkGroupName, groupFromWire, viewFromWire, type CpGroupRec, type CpView } from './cp-metadata-state.js';
import { ATTEMPT_TIMEOUT_MS, type CallPort, type CpContext } from './cp-context.js';

/** Deduplication keys: unique per process (a member uuid) and call. */
let nextKey = 1;

export class CpCalls implements CallPort {
  constructor(private readonly ctx: CpContext) {}

  /**
   * The view of the CP subsystem, waiting (within the operation timeout) while it forms or
   * travels here; at once CP_UNAVAILABLE when the cluster is too small to form it.
   */
  async requireView(): Promise<CpView> {
    if (!this.ctx.enabled) throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
    const need = this.ctx.deps.config.cpSubsystem.cpMemberCount;
    const deadline = this.ctx.deadline();
    for (;;) {
      if (this.ctx.view !== undefined) return this.ctx.view;
      const have = this.ctx.deps.cluster.members().filter((m) => !m.liteMember).length;
      if (have < need || this.ctx.now() >= deadline || this.ctx.stopped) {
        throw new GridError('CP_UNAVAILABLE', `the CP subsystem has not formed yet: it needs ${need} members (cp-member-count), the cluster has ${have}`);
      }
      await this.ctx.sleep(50);
    }
  }

  /**
   * Run `body` on `g`'s leader: tries the known leader, follows hints, moves on from members
   * that do not answer, until an answer or `deadlineMs`.
   */
  async call(g: CpGroupRec, kind: 'cmd' | 'read' | 'change', body: WireValue, deadlineMs: number, attemptTimeoutMs = ATTEMPT_TIMEOUT_MS): Promise<WireValue> {
    let target = this.ctx.leaders.get(g.id) ?? g.members[Math.floor(this.ctx.random() * g.members.length)];
    let maybeApplied = false;
    let lastWhy = 'no answer';
    let round = 0;
    /** Sent to a member at least once: from then on only the group can say whether it was applied. */
    let sent = false;
    for (;;) {
      const left = deadlineMs - this.ctx.now();
      if (left <= 0 || this.ctx.stopped) {
        if (maybeApplied && kind === 'cmd') throw new GridError('INDETERMINATE', `CP group ${g.name}: the operation may or may not have been applied (${lastWhy})`);
        throw new GridError('CP_UNAVAILABLE', `CP group ${g.name} did not answer in time: ${lastWhy}`);
      }
      // No majority of the group's CP members is in the member list: no leader can exist, so a
      // call not sent yet (or a read, which applies nothing) fails at once instead of waiting.
      if (!sent || kind === 'read') {
        const short = noMajority(g.members, this.ctx.addresses, this.ctx.deps.cluster.members());
        if (short !== undefined) {
          throw new GridError(
            'CP_UNAVAILABLE',
            `CP group ${g.name} cannot have a leader: ${short.alive} of its ${g.members.length} CP members are in the member list, ${short.need} needed` +
              (kind === 'read' ? '' : '; the operation was not applied'),
          );
        }
      }
      const address = target === undefined ? undefined : this.ctx.addresses.get(target);
      let delayMs = 0;
      if (address === undefined) {
        target = nextOf(g.members, target);
        delayMs = 50;
        lastWhy = 'no address for the group member';
      } else {
        try {
          sent = true;
          const a = decodeCpInvokeAnswer(await this.ctx.deps.net.request(address, Msg.CpInvoke, encodeCpInvoke({ seed: this.ctx.seed ?? 0, groupId: g.id, kind, body }), Math.min(left, attemptTimeoutMs)));
          if (a.tag === 'ok') {
            this.ctx.leaders.set(g.id, target!);
            return a.value;
          }
          if (a.tag === 'err') throw new GridError(isGridErrorCode(a.code) ? a.code : 'INTERNAL', a.message);
          const { reason, hint } = a;
          lastWhy = reason === 'NOT_LEADER' ? 'no leader' : reason === 'UNKNOWN_GROUP' ? 'the group is not known there' : reason;
          if (reason === 'NOT_LEADER' && hint !== undefined && hint !== target) {
            target = hint;
          } else {
            if (reason === 'UNKNOWN_GROUP') {
              // Not created there yet (the view travels behind the METADATA commit), or destroyed.
              let fresh = this.ctx.view?.groups.find((x) => x.name === g.name);
              if (fresh === undefined && round >= 5 && g.id !== METADATA_GROUP_ID) {
                fresh = (await this.metadata()).groups.find((x) => x.name === g.name);
                if (fresh === undefined) throw new GridError('NOT_FOUND', `CP group ${g.name} does not exist (destroyed)`);
              }
              if (fresh !== undefined) g = fresh;
            }
            target = nextOf(g.members, target);
            // No leader known there yet (an election): ask again soon; a new leader answers within a round trip.
            delayMs = Math.min(100, 10 + 10 * round);
          }
        } catch (e) {
          if (e instanceof GridError && !isTransport(e)) {
            if (e.code === 'INDETERMINATE' || e.code === 'CP_UNAVAILABLE') {
              // The leader stepped down or the entry's fate is unknown there: the retry (same key) decides.
              if (e.code === 'INDETERMINATE') maybeApplied = true;
              if (e.code === 'INDETERMINATE' && this.ctx.deps.config.cpSubsystem.failOnIndeterminateOperationState && kind === 'cmd') throw e;
              lastWhy = e.message;
              delayMs = 50;
            } else throw e;
          } else {
            // No answer: it may have been applied. The retry carries the same key.
            if (kind === 'cmd') {
              maybeApplied = true;
              if (this.ctx.deps.config.cpSubsystem.failOnIndeterminateOperationState) {
                throw new GridError('INDETERMINATE', `CP group ${g.name}: no answer from its leader; the operation may or may not have been applied (${describeError(e)})`);
              }
            }
            lastWhy = describeError(e);
            if (target !== undefined) this.ctx.leaders.delete(g.id);
            target = nextOf(g.members, target);
            delayMs = 50;
          }
        }
      }
      round++;
      if (delayMs > 0) await this.ctx.sleep(Math.min(delayMs, Math.max(0, deadlineMs - this.ctx.now())));
    }
  }

  async metadataRec(): Promise<CpGroupRec> {
    const g = (await this.requireView()).groups.find((x) => x.id === METADATA_GROUP_ID);
    if (g === undefined) throw new GridError('CP_UNAVAILABLE', 'the METADATA group is not known yet');
    return g;
  }

  async proposeMetadata(command: WireValue, deadlineMs = this.ctx.deadline()): Promise<WireValue> {
    return this.call(await this.metadataRec(), 'cmd', command, deadlineMs);
  }

  /** The group `name` (created on first use, except METADATA). */
  async dataGroup(name: string): Promise<CpGroupRec> {
    const v = await this.requireView();
    if (name === METADATA_GROUP) throw new GridError('BAD_REQUEST', 'CP data structures cannot live in the METADATA group');
    const bad = checkGroupName(name);
    if (bad !== undefined) throw new GridError('BAD_REQUEST', bad);
    const known = v.groups.find((g) => g.name === name);
    if (known !== undefined) return known;
    const cluster = this.ctx.deps.cluster;
    const alive = v.cpMembers.filter((m) => cluster.memberByUuid(m.memberUuid) !== undefined && cluster.isAlive(m.memberUuid)).map((m) => m.cpUuid);
    const created = groupFromWire(await this.proposeMetadata(['createGroup', name, alive]));
    return this.ctx.view?.groups.find((g) => g.name === name) ?? created;
  }

  key(): string {
    return `${this.ctx.local.uuid}:${nextKey++}`;
  }

  async read(group: CpGroupRec, query: WireValue[]): Promise<WireValue> {
    return this.call(group, 'read', query, this.ctx.deadline());
  }

  async existingGroup(name: string): Promise<CpGroupRec> {
    const g = (await this.requireView()).groups.find((x) => x.name === name);
    if (g === undefined) throw new GridError('NOT_FOUND', `no CP group ${name}`);
    return g;
  }

  /** The METADATA state read linearizably through its leader. */
  async metadata(): Promise<CpView> {
    const w = await this.read(await this.metadataRec(), ['metadata']);
    const v = viewFromWire(w);
    this.ctx.forming.takeView(v);
    return v;
  }
}

function isTransport(e: GridError): boolean {
  return e.code === 'MEMBER_UNREACHABLE' || e.code === 'TIMEOUT' || e.code === 'NOT_MEMBER' || e.code === 'MEMBER_SHUTTING_DOWN';
}

function nextOf(members: readonly string[], current: string | undefined): string | undefined {
  if (members.length === 0) return undefined;
  const i = current === undefined ? -1 : members.indexOf(current);
  return members[(i + 1) % members.length];
}

/**
 * The CP members of a group that are in the member list, when they are fewer than a majority
 * (undefined when a majority is there, or when an address is unknown: then only a call can tell).
 */
export function noMajority(
  groupMembers: readonly string[],
  addresses: ReadonlyMap<string, string>,
  members: readonly { readonly address: string }[],
): { alive: number; need: number } | undefined {
  const need = Math.floor(groupMembers.length / 2) + 1;
  let alive = 0;
  for (const cpUuid of groupMembers) {
    const address = addresses.get(cpUuid);
    if (address === undefined) return undefined;
    if (members.some((m) => m.address === address)) alive++;
  }
  return alive < need ? { alive, need } : undefined;
}
