// The METADATA group's replicated state machine: which members are CP members and which CP
// groups exist with which members. Pure and deterministic (every METADATA replica applies the
// same committed commands in the same order), so the rules — how a group's members are chosen,
// what replaces a removed CP member — are unit-tested without a cluster. The CP service shell
// proposes the commands and carries out `plan()`'s membership changes through the groups' leaders.

import type { WireValue } from '../protocol/codec.js';
import { decodeWireCpView, encodeWireCpView, type CpGroupRec, type CpMemberRec, type CpView } from '../protocol/cp-payloads.js';
import type { CpAnswer } from './cp-data-state.js';

// The CP member, group and view types travel between members: defined once in cp-payloads.ts.
export type { CpGroupRec, CpMemberRec, CpView } from '../protocol/cp-payloads.js';

export const METADATA_GROUP = 'METADATA';
export const DEFAULT_GROUP = 'default';
export const METADATA_GROUP_ID = 0;

/** One membership change a group needs (carried out by its leader, then recorded here). */
export interface CpGroupChange {
  readonly group: string;
  readonly groupId: number;
  readonly type: 'add' | 'remove';
  readonly cpUuid: string;
}

const ok = (value: WireValue): CpAnswer => ({ ok: true, value });
const fail = (code: 'BAD_REQUEST' | 'NOT_FOUND' | 'CONFLICT', message: string): CpAnswer => ({ ok: false, code, message });

/** Group names: what a structure's `@group` part may be (Hazelcast refuses empty names and `@`). */
export function checkGroupName(name: string): string | undefined {
  if (name.length === 0) return 'a CP group name must not be empty';
  if (name.length > 128) return 'a CP group name has at most 128 characters';
  if (name.includes('@')) return 'a CP group name must not contain "@"';
  if (name.toUpperCase() === METADATA_GROUP && name !== METADATA_GROUP) return `"${name}" is reserved (METADATA)`;
  return undefined;
}

export class CpMetadataState {
  private cpMembers: CpMemberRec[];
  private readonly groups = new Map<string, CpGroupRec>();
  private nextGroupId: number;
  readonly groupSize: number;
  readonly initialCpMembers: readonly CpMemberRec[];

  private constructor(initialCpMembers: readonly CpMemberRec[], cpMembers: CpMemberRec[], groups: readonly CpGroupRec[], nextGroupId: number, groupSize: number) {
    this.initialCpMembers = initialCpMembers;
    this.cpMembers = cpMembers;
    for (const g of groups) this.groups.set(g.name, g);
    this.nextGroupId = nextGroupId;
    this.groupSize = groupSize;
  }

  /**
   * The state every initial CP member starts from: the discovered CP members, the METADATA
   * group of the first `groupSize` of them, and the `default` group.
   */
  static initial(cpMembers: readonly CpMemberRec[], groupSize: number): CpMetadataState {
    const s = new CpMetadataState([...cpMembers], [...cpMembers], [], 1, groupSize);
    const meta = cpMembers.slice(0, groupSize).map((m) => m.cpUuid);
    s.groups.set(METADATA_GROUP, { name: METADATA_GROUP, id: METADATA_GROUP_ID, initialMembers: meta, members: meta });
    s.create(DEFAULT_GROUP);
    return s;
  }

  apply(command: WireValue): CpAnswer {
    if (!Array.isArray(command) || typeof command[0] !== 'string') return fail('BAD_REQUEST', 'malformed METADATA command');
    const t = command as readonly WireValue[];
    const str = (i: number): string | undefined => (typeof t[i] === 'string' ? (t[i] as string) : undefined);
    switch (t[0]) {
      case 'addMember': {
        const cpUuid = str(1);
        const memberUuid = str(2);
        const address = str(3);
        if (!cpUuid || !memberUuid || !address) return fail('BAD_REQUEST', 'addMember: cpUuid, memberUuid, address');
        if (this.cpMembers.some((m) => m.cpUuid === cpUuid)) return ok(false);
        // A member promoted again after a restart replaces its old identity's seat only through removal.
        if (this.cpMembers.some((m) => m.memberUuid === memberUuid)) return fail('CONFLICT', `member ${memberUuid} is a CP member already`);
        // A new array, not a push: a view taken earlier shares the old one and must not change.
        this.cpMembers = [...this.cpMembers, { cpUuid, memberUuid, address }];
        return ok(true);
      }
      case 'removeMember': {
        const cpUuid = str(1);
        if (!cpUuid) return fail('BAD_REQUEST', 'removeMember: cpUuid');
        if (!this.cpMembers.some((m) => m.cpUuid === cpUuid)) return fail('NOT_FOUND', `no CP member ${cpUuid}`);
        if (this.cpMembers.length === 1) return fail('CONFLICT', 'the last CP member cannot be removed');
        this.cpMembers = this.cpMembers.filter((m) => m.cpUuid !== cpUuid);
        return ok(true);
      }
      case 'createGroup': {
        const name = str(1);
        if (name === undefined) return fail('BAD_REQUEST', 'createGroup: name');
        const bad = checkGroupName(name);
        if (bad !== undefined) return fail('BAD_REQUEST', bad);
        // Optional: the CP members the proposer saw alive; a new group goes on them first (a dead seat cannot vote).
        const alive = Array.isArray(t[2]) ? new Set((t[2] as readonly WireValue[]).filter((x): x is string => typeof x === 'string')) : undefined;
        const g = this.groups.get(name) ?? this.create(name, alive);
        return ok(groupToWire(g));
      }
      case 'destroyGroup': {
        const name = str(1);
        if (name === undefined) return fail('BAD_REQUEST', 'destroyGroup: name');
        if (name === METADATA_GROUP) return fail('BAD_REQUEST', 'the METADATA group cannot be destroyed');
        if (!this.groups.delete(name)) return fail('NOT_FOUND', `no CP group ${name}`);
        return ok(true);
      }
      case 'setGroupMembers': {
        const name = str(1);
        const id = t[2];
        const members = t[3];
        if (name === undefined || typeof id !== 'number' || !Array.isArray(members) || !members.every((m) => typeof m === 'string')) {
          return fail('BAD_REQUEST', 'setGroupMembers: name, id, members');
        }
        const g = this.groups.get(name);
        if (g === undefined || g.id !== id) return ok(false);
        this.groups.set(name, { ...g, members: [...(members as string[])] });
        return ok(true);
      }
      default:
        return fail('BAD_REQUEST', `unknown METADATA command ${String(t[0])}`);
    }
  }

  /** Members for a new group: live CP members first (when the proposer said which), then those in the fewest groups, in CP member order. */
  private create(name: string, alive?: ReadonlySet<string>): CpGroupRec {
    const load = this.loads();
    const dead = (m: CpMemberRec): number => (alive === undefined || alive.has(m.cpUuid) ? 0 : 1);
    const chosen = [...this.cpMembers]
      .map((m, i) => ({ m, i }))
      .sort((a, b) => dead(a.m) - dead(b.m) || (load.get(a.m.cpUuid) ?? 0) - (load.get(b.m.cpUuid) ?? 0) || a.i - b.i)
      .slice(0, this.groupSize)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.m.cpUuid);
    const g: CpGroupRec = { name, id: this.nextGroupId++, initialMembers: chosen, members: chosen };
    this.groups.set(name, g);
    return g;
  }

  private loads(): Map<string, number> {
    const load = new Map<string, number>();
    for (const g of this.groups.values()) for (const m of g.members) load.set(m, (load.get(m) ?? 0) + 1);
    return load;
  }

  /**
   * The membership changes the groups need, at most one per group: first remove members that
   * are no longer CP members, then fill groups below `groupSize` with CP members not in them.
   * The seats to fill are chosen together so the loads end as even as the kept memberships
   * allow: each seat goes to the least loaded candidate (ties in CP member order), then seats
   * move from heavier to lighter members along exchange paths while that narrows the loads
   * (a greedy pick alone can take the one light member a later group needed).
   */
  plan(): CpGroupChange[] {
    const order = new Map(this.cpMembers.map((m, i) => [m.cpUuid, i]));
    const load = new Map(this.cpMembers.map((m) => [m.cpUuid, 0]));
    const seats: Seats[] = [];
    for (const g of this.groups.values()) {
      const kept = new Set(g.members.filter((m) => order.has(m)));
      for (const m of kept) load.set(m, (load.get(m) ?? 0) + 1);
      seats.push({ g, kept, added: [] });
    }
    const lighter = (a: string, b: string): number => (load.get(a) ?? 0) - (load.get(b) ?? 0) || (order.get(a) ?? 0) - (order.get(b) ?? 0);
    const want = Math.min(this.groupSize, this.cpMembers.length);
    const cpUuids = [...order.keys()];
    for (const s of seats) {
      for (let n = s.kept.size; n < want; n++) {
        const c = cpUuids.filter((m) => !s.kept.has(m) && !s.added.includes(m)).sort(lighter)[0];
        if (c === undefined) break;
        s.added.push(c);
        load.set(c, (load.get(c) ?? 0) + 1);
      }
    }
    let moved = true;
    while (moved) moved = moveSeat(seats, load, cpUuids);
    const out: CpGroupChange[] = [];
    for (const { g, added } of seats) {
      const gone = g.members.find((m) => !order.has(m));
      if (gone !== undefined) out.push({ group: g.name, groupId: g.id, type: 'remove', cpUuid: gone });
      else if (added[0] !== undefined) out.push({ group: g.name, groupId: g.id, type: 'add', cpUuid: added[0] });
    }
    return out;
  }

  members(): readonly CpMemberRec[] {
    return this.cpMembers;
  }

  group(name: string): CpGroupRec | undefined {
    return this.groups.get(name);
  }

  view(seed: number, version: number): CpView {
    return { seed, version, groupSize: this.groupSize, initialCpMembers: this.initialCpMembers, cpMembers: this.cpMembers, groups: [...this.groups.values()].sort((a, b) => a.id - b.id) };
  }

  snapshot(): WireValue {
    return [this.groupSize, this.nextGroupId, membersToWire(this.initialCpMembers), membersToWire(this.cpMembers), [...this.groups.values()].map(groupToWire)];
  }

  static fromSnapshot(state: WireValue): CpMetadataState {
    if (!Array.isArray(state) || state.length !== 5) throw new TypeError('malformed METADATA snapshot');
    const [groupSize, nextGroupId, initial, members, groups] = state as readonly WireValue[];
    if (typeof groupSize !== 'number' || typeof nextGroupId !== 'number' || !Array.isArray(groups)) throw new TypeError('malformed METADATA snapshot');
    return new CpMetadataState(membersFromWire(initial), membersFromWire(members), (groups as readonly WireValue[]).map(groupFromWire), nextGroupId, groupSize);
  }
}

/** A group's CP members that stay, and the CP members planned for its free seats. */
interface Seats {
  readonly g: CpGroupRec;
  readonly kept: ReadonlySet<string>;
  readonly added: string[];
}

/**
 * One exchange that narrows the loads: a member `a` gives a planned seat to `y1`, which gives
 * one of its planned seats to `y2`, ... up to a member `b` with load(b) <= load(a) - 2; only
 * `a` and `b` change load. Breadth-first from each seat holder, heaviest first. Each exchange
 * lowers the sum of squared loads, so the loop ends; when no exchange is left, no other filling
 * of the seats has a smaller spread (planned seats form an M-convex set of load vectors).
 */
function moveSeat(seats: readonly Seats[], load: Map<string, number>, members: readonly string[]): boolean {
  const of = (m: string): number => load.get(m) ?? 0;
  const holders = members.filter((m) => seats.some((s) => s.added.includes(m))).sort((a, b) => of(b) - of(a));
  for (const a of holders) {
    const via = new Map<string, { from: string; seats: Seats }>();
    const queue = [a];
    for (let i = 0; i < queue.length; i++) {
      const x = queue[i]!;
      for (const s of seats) {
        if (!s.added.includes(x)) continue;
        for (const y of members) {
          if (y === a || via.has(y) || s.kept.has(y) || s.added.includes(y)) continue;
          via.set(y, { from: x, seats: s });
          if (of(y) > of(a) - 2) {
            queue.push(y);
            continue;
          }
          for (let m = y; m !== a; ) {
            const step = via.get(m)!;
            step.seats.added[step.seats.added.indexOf(step.from)] = m;
            m = step.from;
          }
          load.set(a, of(a) - 1);
          load.set(y, of(y) + 1);
          return true;
        }
      }
    }
  }
  return false;
}

export function groupToWire(g: CpGroupRec): WireValue {
  return [g.name, g.id, [...g.initialMembers], [...g.members]];
}

export function groupFromWire(v: WireValue): CpGroupRec {
  if (!Array.isArray(v) || v.length !== 4) throw new TypeError('malformed CP group');
  const [name, id, initial, members] = v as readonly WireValue[];
  const strs = (a: WireValue | undefined): string[] => {
    if (!Array.isArray(a) || !a.every((x) => typeof x === 'string')) throw new TypeError('malformed CP group members');
    return [...(a as string[])];
  };
  if (typeof name !== 'string' || typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw new TypeError('malformed CP group');
  return { name, id, initialMembers: strs(initial), members: strs(members) };
}

function membersToWire(members: readonly CpMemberRec[]): WireValue {
  return members.map((m) => [m.cpUuid, m.memberUuid, m.address]);
}

function membersFromWire(w: WireValue | undefined): CpMemberRec[] {
  if (!Array.isArray(w)) throw new TypeError('malformed CP member list');
  return (w as readonly WireValue[]).map((m) => {
    if (!Array.isArray(m) || m.length !== 3 || !m.every((x) => typeof x === 'string')) throw new TypeError('malformed CP member');
    const t = m as readonly string[];
    return { cpUuid: t[0]!, memberUuid: t[1]!, address: t[2]! };
  });
}

/** The view as it travels: cp-payloads.ts's codec pair, under the names cp/ calls it by. */
export { encodeWireCpView as viewToWire, decodeWireCpView as viewFromWire };
