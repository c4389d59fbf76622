// The METADATA group's state machine without a cluster: every command and its refusals, how
// groups' members are chosen, plan()'s repair of groups after CP members leave or join (with a
// seeded simulation of the repair loop the CP service runs), and the snapshot and view codecs.

import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import type { CpAnswer } from '../../../src/cp/cp-data-state.js';
import {
  checkGroupName,
  CpMetadataState,
  DEFAULT_GROUP,
  groupFromWire,
  groupToWire,
  METADATA_GROUP,
  METADATA_GROUP_ID,
  viewFromWire,
  viewToWire,
  type CpGroupChange,
  type CpGroupRec,
  type CpMemberRec,
  type CpView,
} from '../../../src/cp/cp-metadata-state.js';
import { prng } from '../../support/prng.js';

const mem = (i: number): CpMemberRec => ({ cpUuid: `cp-${i}`, memberUuid: `m-${i}`, address: `10.0.0.${i}:5701` });
const mems = (n: number): CpMemberRec[] => Array.from({ length: n }, (_, i) => mem(i));
const cp = (...i: number[]): string[] => i.map((x) => `cp-${x}`);
const addCmd = (m: CpMemberRec): WireValue => ['addMember', m.cpUuid, m.memberUuid, m.address];

const okv = (value: WireValue): CpAnswer => ({ ok: true, value });
const err = (code: string): unknown => expect.objectContaining({ ok: false, code, message: expect.any(String) as unknown });

/** The state's bytes: equal bytes, equal state (groups in their order, next id, members). */
const bytes = (s: CpMetadataState): string => encodeValue(s.snapshot()).toString('hex');

/** Through the wire codec, as a snapshot travels to a follower or to disk. */
const roundTrip = (s: CpMetadataState): CpMetadataState => CpMetadataState.fromSnapshot(decodeValue(encodeValue(s.snapshot())));

function groupsOf(s: CpMetadataState): readonly CpGroupRec[] {
  return s.view(0, 0).groups;
}

/** Groups each CP member is in (0 for one in none); members that are no longer CP members are not counted. */
function loads(s: CpMetadataState): Map<string, number> {
  const load = new Map(s.members().map((m) => [m.cpUuid, 0]));
  for (const g of groupsOf(s)) for (const m of g.members) if (load.has(m)) load.set(m, load.get(m)! + 1);
  return load;
}

function spread(s: CpMetadataState): number {
  const l = [...loads(s).values()];
  return Math.max(...l) - Math.min(...l);
}

/** What the CP service does for one change: the group's leader makes it, METADATA records the new list. */
function carryOut(s: CpMetadataState, c: CpGroupChange): CpAnswer {
  const g = s.view(0, 0).groups.find((x) => x.id === c.groupId)!;
  const list = c.type === 'add' ? [...g.members, c.cpUuid] : g.members.filter((m) => m !== c.cpUuid);
  return s.apply(['setGroupMembers', c.group, c.groupId, list]);
}

/** plan() then every change, until plan() has nothing left; returns the number of rounds. */
function repair(s: CpMetadataState, maxRounds = 100): number {
  for (let round = 0; round < maxRounds; round++) {
    const p = s.plan();
    if (p.length === 0) return round;
    checkPlan(s, p);
    for (const c of p) expect(carryOut(s, c)).toEqual(okv(true));
  }
  throw new Error(`plan() did not converge in ${maxRounds} rounds`);
}

/** createGroup's answer, which must be a group. */
function created(s: CpMetadataState, name: string): CpGroupRec {
  const a = s.apply(['createGroup', name]);
  if (!a.ok) throw new Error(`createGroup ${name}: ${a.code} ${a.message}`);
  return groupFromWire(a.value);
}

/** A state whose groups have the given members (created, then recorded with setGroupMembers). */
function withGroups(members: readonly CpMemberRec[], groupSize: number, groups: Record<string, readonly string[]>): CpMetadataState {
  const s = CpMetadataState.initial(members, groupSize);
  for (const [name, list] of Object.entries(groups)) {
    const g = created(s, name);
    expect(s.apply(['setGroupMembers', name, g.id, [...list]])).toEqual(okv(true));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------

describe('checkGroupName', () => {
  it('accepts ordinary names, up to 128 characters, and METADATA spelled exactly', () => {
    for (const name of ['a', 'default', 'orders', 'group-1', 'x'.repeat(128), 'µ-grüppe', METADATA_GROUP, 'metadata2', 'my-metadata']) {
      expect(checkGroupName(name), name).toBeUndefined();
    }
  });

  it('refuses empty names, "@" anywhere, more than 128 characters, and METADATA in another case', () => {
    expect(checkGroupName('')).toMatch(/empty/);
    for (const name of ['@', 'a@b', '@a', 'a@', 'lock@group']) expect(checkGroupName(name), name).toMatch(/@/);
    expect(checkGroupName('x'.repeat(129))).toMatch(/128/);
    expect(checkGroupName('x'.repeat(1000))).toMatch(/128/);
    for (const name of ['metadata', 'Metadata', 'METADATa', 'mEtAdAtA']) expect(checkGroupName(name), name).toMatch(/reserved/);
  });
});

describe('CpMetadataState.initial', () => {
  it('groupSize below the member count: METADATA is the first groupSize members, default the least loaded', () => {
    const all = mems(5);
    const s = CpMetadataState.initial(all, 3);
    expect(s.groupSize).toBe(3);
    expect(s.members()).toEqual(all);
    expect(s.initialCpMembers).toEqual(all);
    expect(s.group(METADATA_GROUP)).toEqual({ name: METADATA_GROUP, id: METADATA_GROUP_ID, initialMembers: cp(0, 1, 2), members: cp(0, 1, 2) });
    // cp-3 and cp-4 are in no group; the third seat goes to the first of the equally loaded rest.
    expect(s.group(DEFAULT_GROUP)).toEqual({ name: DEFAULT_GROUP, id: 1, initialMembers: cp(0, 3, 4), members: cp(0, 3, 4) });
    expect(groupsOf(s).map((g) => g.name)).toEqual([METADATA_GROUP, DEFAULT_GROUP]);
    expect(s.plan()).toEqual([]);
  });

  it('groupSize equal to the member count: both groups hold every member', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    expect(s.group(METADATA_GROUP)?.members).toEqual(cp(0, 1, 2));
    expect(s.group(DEFAULT_GROUP)).toEqual({ name: DEFAULT_GROUP, id: 1, initialMembers: cp(0, 1, 2), members: cp(0, 1, 2) });
    expect(s.plan()).toEqual([]);
  });

  it('a single CP member with groupSize 1', () => {
    const s = CpMetadataState.initial(mems(1), 1);
    expect(groupsOf(s).map((g) => [g.id, g.members])).toEqual([
      [0, cp(0)],
      [1, cp(0)],
    ]);
    expect(s.plan()).toEqual([]);
  });

  it('every replica builds the same state from the same members', () => {
    expect(bytes(CpMetadataState.initial(mems(7), 5))).toBe(bytes(CpMetadataState.initial(mems(7), 5)));
  });

  it('copies the member list it is given', () => {
    const all = mems(4);
    const s = CpMetadataState.initial(all, 3);
    all.push(mem(9));
    all.shift();
    expect(s.members()).toEqual(mems(4));
    expect(s.initialCpMembers).toEqual(mems(4));
  });

  it('view() carries seed, version, groupSize, both member lists and the groups in id order', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    s.apply(['createGroup', 'b']);
    s.apply(['createGroup', 'a']);
    const v = s.view(42, 17);
    expect(v.seed).toBe(42);
    expect(v.version).toBe(17);
    expect(v.groupSize).toBe(3);
    expect(v.initialCpMembers).toEqual(mems(4));
    expect(v.cpMembers).toEqual(mems(4));
    expect(v.groups.map((g) => [g.id, g.name])).toEqual([
      [0, METADATA_GROUP],
      [1, DEFAULT_GROUP],
      [2, 'b'],
      [3, 'a'],
    ]);
  });
});

describe('addMember', () => {
  it('adds a CP member at the end; the same cp uuid again answers false and changes nothing', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    expect(s.apply(addCmd(mem(3)))).toEqual(okv(true));
    expect(s.members()).toEqual(mems(4));
    const before = bytes(s);
    expect(s.apply(addCmd(mem(3)))).toEqual(okv(false));
    // Idempotent on the cp uuid alone: a retried proposal with other fields is still a repeat.
    expect(s.apply(['addMember', 'cp-3', 'm-other', '10.9.9.9:5701'])).toEqual(okv(false));
    expect(bytes(s)).toBe(before);
    expect(s.members()).toEqual(mems(4));
  });

  it('CONFLICT for a member uuid that is a CP member already under another cp uuid', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    expect(s.apply(['addMember', 'cp-new', 'm-1', '10.0.0.1:5701'])).toEqual(err('CONFLICT'));
    expect(bytes(s)).toBe(before);
    // Once the old identity is removed, the restarted member can join as a new CP member.
    expect(s.apply(['removeMember', 'cp-1'])).toEqual(okv(true));
    expect(s.apply(['addMember', 'cp-new', 'm-1', '10.0.0.1:5701'])).toEqual(okv(true));
    expect(s.members().map((m) => m.cpUuid)).toEqual(['cp-0', 'cp-2', 'cp-new']);
  });

  it('BAD_REQUEST for missing, empty or non-string fields, without a change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    const bad: WireValue[] = [
      ['addMember'],
      ['addMember', 'cp-9'],
      ['addMember', 'cp-9', 'm-9'],
      ['addMember', '', 'm-9', 'a:1'],
      ['addMember', 'cp-9', '', 'a:1'],
      ['addMember', 'cp-9', 'm-9', ''],
      ['addMember', 9, 'm-9', 'a:1'],
      ['addMember', 'cp-9', null, 'a:1'],
      ['addMember', 'cp-9', 'm-9', ['a:1']],
    ];
    for (const c of bad) expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    expect(bytes(s)).toBe(before);
  });

  it('a new CP member joins only groups below groupSize: full groups are not rebalanced', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    s.apply(addCmd(mem(3)));
    expect(s.plan()).toEqual([]);
    // Groups shrunk by a removal take the new member.
    const t = CpMetadataState.initial(mems(3), 3);
    t.apply(['removeMember', 'cp-1']);
    repair(t);
    expect(groupsOf(t).map((g) => g.members)).toEqual([cp(0, 2), cp(0, 2)]);
    t.apply(addCmd(mem(3)));
    expect(t.plan()).toEqual([
      { group: METADATA_GROUP, groupId: 0, type: 'add', cpUuid: 'cp-3' },
      { group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-3' },
    ]);
  });

  it('a view taken before the command does not change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const v = s.view(1, 1);
    const members = s.members();
    s.apply(addCmd(mem(3)));
    expect(v.cpMembers).toEqual(mems(3));
    expect(members).toEqual(mems(3));
    expect(s.view(1, 2).cpMembers).toEqual(mems(4));
  });
});

describe('removeMember', () => {
  it('removes a CP member; its groups keep it until plan() repairs them', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    const v = s.view(1, 1);
    expect(s.apply(['removeMember', 'cp-1'])).toEqual(okv(true));
    expect(s.members()).toEqual([mem(0), mem(2), mem(3)]);
    expect(s.initialCpMembers).toEqual(mems(4));
    expect(s.group(METADATA_GROUP)?.members).toEqual(cp(0, 1, 2));
    expect(v.cpMembers).toEqual(mems(4));
  });

  it('NOT_FOUND for a cp uuid that is not (or no longer) a CP member', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    expect(s.apply(['removeMember', 'cp-9'])).toEqual(err('NOT_FOUND'));
    // A member uuid is not a cp uuid.
    expect(s.apply(['removeMember', 'm-0'])).toEqual(err('NOT_FOUND'));
    expect(s.apply(['removeMember', 'cp-0'])).toEqual(okv(true));
    const before = bytes(s);
    expect(s.apply(['removeMember', 'cp-0'])).toEqual(err('NOT_FOUND'));
    expect(bytes(s)).toBe(before);
  });

  it('CONFLICT for the last CP member', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    expect(s.apply(['removeMember', 'cp-2'])).toEqual(okv(true));
    expect(s.apply(['removeMember', 'cp-0'])).toEqual(okv(true));
    const before = bytes(s);
    expect(s.apply(['removeMember', 'cp-1'])).toEqual(err('CONFLICT'));
    expect(s.members()).toEqual([mem(1)]);
    expect(bytes(s)).toBe(before);
    // Unknown is still NOT_FOUND, checked first.
    expect(s.apply(['removeMember', 'cp-0'])).toEqual(err('NOT_FOUND'));
    const one = CpMetadataState.initial(mems(1), 1);
    expect(one.apply(['removeMember', 'cp-0'])).toEqual(err('CONFLICT'));
  });

  it('BAD_REQUEST without a cp uuid, without a change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    for (const c of [['removeMember'], ['removeMember', ''], ['removeMember', 1], ['removeMember', null]] as WireValue[]) {
      expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    }
    expect(bytes(s)).toBe(before);
  });
});

describe('createGroup', () => {
  it('with the CP members the proposer saw alive: the new group goes on them first, whatever the loads', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    // cp0 and cp1 hold METADATA and more; alive-first still picks them over the idle but dead cp3.
    expect(s.apply(['createGroup', 'alive-first', cp(0, 1, 4)])).toEqual(okv(['alive-first', 2, cp(0, 1, 4), cp(0, 1, 4)]));
    // Fewer alive than groupSize: the alive ones, then the least loaded of the rest.
    const g = groupFromWire((s.apply(['createGroup', 'two-alive', cp(2, 4)]) as { value: WireValue }).value);
    expect(g.members).toEqual(expect.arrayContaining(cp(2, 4)));
    expect(g.members).toHaveLength(3);
    // Without the list (older proposers) the loads alone decide, as before.
    expect(created(s, 'by-load').members).toHaveLength(3);
  });

  it('answers the group on the wire; creating it again answers the same group and uses no id', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    const a = s.apply(['createGroup', 'orders']);
    expect(a).toEqual(okv(['orders', 2, cp(1, 2, 3), cp(1, 2, 3)]));
    expect(groupFromWire((a as { value: WireValue }).value)).toEqual(s.group('orders'));
    const before = bytes(s);
    expect(s.apply(['createGroup', 'orders'])).toEqual(a);
    expect(bytes(s)).toBe(before);
    expect(created(s, 'next').id).toBe(3);
    expect(s.apply(['createGroup', METADATA_GROUP])).toEqual(okv([METADATA_GROUP, 0, cp(0, 1, 2), cp(0, 1, 2)]));
    expect(s.apply(['createGroup', DEFAULT_GROUP])).toEqual(okv(groupToWire(s.group(DEFAULT_GROUP)!)));
  });

  it('an existing group is answered as it is now, not re-placed', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(3, 2)]);
    expect(s.apply(['createGroup', DEFAULT_GROUP])).toEqual(okv([DEFAULT_GROUP, 1, cp(0, 1, 3), cp(3, 2)]));
  });

  it('places a new group on the least loaded CP members, ties in CP member order, listed in CP member order', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    // Loads: cp-0 2, the others 1.
    expect(s.group('a')).toBeUndefined();
    expect(s.apply(['createGroup', 'a'])).toEqual(okv(['a', 2, cp(1, 2, 3), cp(1, 2, 3)]));
    // Loads: cp-4 1, the others 2: cp-4, then cp-0 and cp-1 by order.
    expect(s.apply(['createGroup', 'b'])).toEqual(okv(['b', 3, cp(0, 1, 4), cp(0, 1, 4)]));
    // Loads: cp-2 2, cp-3 2, cp-4 2, cp-0 3, cp-1 3.
    expect(s.apply(['createGroup', 'c'])).toEqual(okv(['c', 4, cp(2, 3, 4), cp(2, 3, 4)]));
    expect([...loads(s).values()]).toEqual([3, 3, 3, 3, 3]);
  });

  it('places by the current members of groups, not their initial members', () => {
    const s = CpMetadataState.initial(mems(4), 2);
    // METADATA cp-0 cp-1, default cp-2 cp-3; move default onto cp-0 cp-1.
    expect(s.group(DEFAULT_GROUP)?.members).toEqual(cp(2, 3));
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(0, 1)]);
    expect(s.apply(['createGroup', 'x'])).toEqual(okv(['x', 2, cp(2, 3), cp(2, 3)]));
  });

  it('never places a group on a removed CP member; with fewer CP members than groupSize it takes them all', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    s.apply(['removeMember', 'cp-3']);
    s.apply(['removeMember', 'cp-1']);
    expect(s.apply(['createGroup', 'x'])).toEqual(okv(['x', 2, cp(0, 2), cp(0, 2)]));
    s.apply(addCmd(mem(5)));
    // cp-5 is in no group yet: it is the least loaded.
    expect(s.apply(['createGroup', 'y'])).toEqual(okv(['y', 3, cp(0, 2, 5), cp(0, 2, 5)]));
  });

  it('ids increase and are never reused, not after a destroy, not after a snapshot', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const id = (name: string): number => created(s, name).id;
    expect(id('a')).toBe(2);
    expect(id('b')).toBe(3);
    expect(s.apply(['destroyGroup', 'b'])).toEqual(okv(true));
    expect(id('b')).toBe(4);
    expect(s.apply(['destroyGroup', 'b'])).toEqual(okv(true));
    expect(s.apply(['destroyGroup', DEFAULT_GROUP])).toEqual(okv(true));
    const t = roundTrip(s);
    expect(id(DEFAULT_GROUP)).toBe(5);
    expect(created(t, DEFAULT_GROUP).id).toBe(5);
    expect(id('c')).toBe(6);
  });

  it('BAD_REQUEST for names checkGroupName refuses, or no name, without a change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    for (const name of ['', '@', 'a@b', 'x'.repeat(129), 'metadata', 'Metadata', 'METADATa']) {
      const a = s.apply(['createGroup', name]);
      expect(a, name).toEqual({ ok: false, code: 'BAD_REQUEST', message: checkGroupName(name) });
    }
    for (const c of [['createGroup'], ['createGroup', 1], ['createGroup', null], ['createGroup', ['a']]] as WireValue[]) {
      expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    }
    expect(bytes(s)).toBe(before);
    // A refused name uses no id.
    expect(created(s, 'x'.repeat(128)).id).toBe(2);
  });
});

describe('destroyGroup', () => {
  it('removes a group (default too); the METADATA group cannot be destroyed', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    s.apply(['createGroup', 'a']);
    expect(s.apply(['destroyGroup', 'a'])).toEqual(okv(true));
    expect(s.group('a')).toBeUndefined();
    expect(s.apply(['destroyGroup', DEFAULT_GROUP])).toEqual(okv(true));
    expect(groupsOf(s).map((g) => g.name)).toEqual([METADATA_GROUP]);
    const before = bytes(s);
    expect(s.apply(['destroyGroup', METADATA_GROUP])).toEqual(err('BAD_REQUEST'));
    expect(bytes(s)).toBe(before);
  });

  it('NOT_FOUND for an unknown group (or one destroyed already), without a change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    s.apply(['createGroup', 'a']);
    expect(s.apply(['destroyGroup', 'a'])).toEqual(okv(true));
    const before = bytes(s);
    expect(s.apply(['destroyGroup', 'a'])).toEqual(err('NOT_FOUND'));
    expect(s.apply(['destroyGroup', 'nope'])).toEqual(err('NOT_FOUND'));
    // Names are exact: "metadata" is not a group (and not the METADATA group).
    expect(s.apply(['destroyGroup', 'metadata'])).toEqual(err('NOT_FOUND'));
    expect(s.apply(['destroyGroup', 'Default'])).toEqual(err('NOT_FOUND'));
    expect(bytes(s)).toBe(before);
  });

  it('BAD_REQUEST without a name', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    for (const c of [['destroyGroup'], ['destroyGroup', 0], ['destroyGroup', null]] as WireValue[]) {
      expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    }
    expect(bytes(s)).toBe(before);
  });

  it('a destroyed group frees its members for the next placement', () => {
    const s = CpMetadataState.initial(mems(4), 2);
    // METADATA cp-0 cp-1, default cp-2 cp-3, a cp-0 cp-1.
    s.apply(['createGroup', 'a']);
    expect(s.group('a')?.members).toEqual(cp(0, 1));
    s.apply(['destroyGroup', DEFAULT_GROUP]);
    expect(s.apply(['createGroup', 'b'])).toEqual(okv(['b', 3, cp(2, 3), cp(2, 3)]));
  });
});

describe('setGroupMembers', () => {
  it('records a group\'s members and keeps its initial members', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    expect(s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(3, 1)])).toEqual(okv(true));
    expect(s.group(DEFAULT_GROUP)).toEqual({ name: DEFAULT_GROUP, id: 1, initialMembers: cp(0, 1, 3), members: cp(3, 1) });
    expect(s.apply(['setGroupMembers', METADATA_GROUP, 0, []])).toEqual(okv(true));
    expect(s.group(METADATA_GROUP)?.members).toEqual([]);
  });

  it('a stale id (the group was destroyed and created again) or an unknown group answers false and changes nothing', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    s.apply(['createGroup', 'a']);
    const old = s.group('a')!;
    s.apply(['destroyGroup', 'a']);
    s.apply(['createGroup', 'a']);
    const before = bytes(s);
    expect(s.apply(['setGroupMembers', 'a', old.id, cp(0)])).toEqual(okv(false));
    expect(s.apply(['setGroupMembers', 'gone', 7, cp(0)])).toEqual(okv(false));
    expect(s.apply(['setGroupMembers', DEFAULT_GROUP, 0, cp(0)])).toEqual(okv(false));
    expect(s.apply(['setGroupMembers', 'a', s.group('a')!.id + 1, cp(0)])).toEqual(okv(false));
    expect(bytes(s)).toBe(before);
  });

  it('copies the list it records', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const list = cp(0, 1);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, list]);
    list.push('cp-2');
    expect(s.group(DEFAULT_GROUP)?.members).toEqual(cp(0, 1));
  });

  it('BAD_REQUEST for a missing name, a non-number id or a members list that is not all strings, without a change', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    const before = bytes(s);
    const bad: WireValue[] = [
      ['setGroupMembers'],
      ['setGroupMembers', DEFAULT_GROUP],
      ['setGroupMembers', DEFAULT_GROUP, 1],
      ['setGroupMembers', 1, 1, cp(0)],
      ['setGroupMembers', DEFAULT_GROUP, '1', cp(0)],
      ['setGroupMembers', DEFAULT_GROUP, null, cp(0)],
      ['setGroupMembers', DEFAULT_GROUP, 1, 'cp-0'],
      ['setGroupMembers', DEFAULT_GROUP, 1, ['cp-0', 1]],
      ['setGroupMembers', DEFAULT_GROUP, 1, ['cp-0', null]],
      ['setGroupMembers', DEFAULT_GROUP, 1, { a: 'cp-0' }],
    ];
    for (const c of bad) expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    expect(bytes(s)).toBe(before);
  });
});

describe('malformed commands', () => {
  it('BAD_REQUEST without a change for anything but an array led by a known command name', () => {
    const s = CpMetadataState.initial(mems(4), 3);
    s.apply(['createGroup', 'a']);
    const before = bytes(s);
    const bad: WireValue[] = [null, true, 0, 'addMember', {}, { 0: 'addMember' }, [], [1, 'cp-9'], [null], [['addMember']], ['nope'], ['AddMember', 'cp-9', 'm-9', 'a:1'], ['']];
    for (const c of bad) expect(s.apply(c), JSON.stringify(c)).toEqual(err('BAD_REQUEST'));
    expect(bytes(s)).toBe(before);
    expect(s.plan()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('plan()', () => {
  it('nothing to do while every group is full of CP members', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    for (const n of ['a', 'b', 'c']) s.apply(['createGroup', n]);
    expect(s.plan()).toEqual([]);
  });

  it('a removed CP member: one remove for each group containing it, nothing for the others', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    // METADATA 0 1 2, default 0 3 4, a 1 2 3, b 0 1 4.
    s.apply(['createGroup', 'a']);
    s.apply(['createGroup', 'b']);
    s.apply(['removeMember', 'cp-1']);
    expect(s.plan()).toEqual([
      { group: METADATA_GROUP, groupId: 0, type: 'remove', cpUuid: 'cp-1' },
      { group: 'a', groupId: 2, type: 'remove', cpUuid: 'cp-1' },
      { group: 'b', groupId: 3, type: 'remove', cpUuid: 'cp-1' },
    ]);
    // plan() is a question, not a command: asking again changes nothing.
    expect(s.plan()).toEqual(s.plan());
  });

  it('one change per group at a time: two gone members are removed one after the other, then the seats are filled', () => {
    const s = CpMetadataState.initial(mems(5), 3);
    s.apply(['removeMember', 'cp-2']);
    s.apply(['removeMember', 'cp-0']);
    // METADATA 0 1 2 lost two members; default 0 3 4 one.
    expect(s.plan()).toEqual([
      { group: METADATA_GROUP, groupId: 0, type: 'remove', cpUuid: 'cp-0' },
      { group: DEFAULT_GROUP, groupId: 1, type: 'remove', cpUuid: 'cp-0' },
    ]);
    for (const c of s.plan()) carryOut(s, c);
    // default now has a free seat, but METADATA still holds a gone member: it is removed first.
    expect(s.plan()).toEqual([
      { group: METADATA_GROUP, groupId: 0, type: 'remove', cpUuid: 'cp-2' },
      { group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-1' },
    ]);
    for (const c of s.plan()) carryOut(s, c);
    // METADATA has cp-1 and needs two of cp-3, cp-4 (both now in default): one change per round.
    expect(s.plan()).toEqual([{ group: METADATA_GROUP, groupId: 0, type: 'add', cpUuid: 'cp-3' }]);
    expect(repair(s)).toBe(2);
    expect(groupsOf(s).map((g) => g.members)).toEqual([cp(1, 3, 4), cp(3, 4, 1)]);
  });

  it('a group below groupSize takes the least loaded CP member not in it', () => {
    const s = withGroups(mems(5), 3, { a: cp(0, 1, 2), b: cp(1, 2, 3) });
    // METADATA 0 1 2, default 0 3 4, a 0 1, b 1 2 3: loads 3, 3, 2, 2, 1.
    s.apply(['setGroupMembers', 'a', 2, cp(0, 1)]);
    expect(s.plan()).toEqual([{ group: 'a', groupId: 2, type: 'add', cpUuid: 'cp-4' }]);
    s.apply(['setGroupMembers', 'a', 2, cp(0, 2)]);
    // cp-2's seat in a counts; loads 3, 2, 3, 2, 1: cp-4 still.
    expect(s.plan()).toEqual([{ group: 'a', groupId: 2, type: 'add', cpUuid: 'cp-4' }]);
    s.apply(['setGroupMembers', 'a', 2, cp(0, 4, 2)]);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(0, 3)]);
    // Loads 4, 2, 3, 2, 1: default takes cp-4 (1), not cp-1 or cp-2.
    expect(s.plan()).toEqual([{ group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-4' }]);
  });

  it('ties go to the first in CP member order, and a member already in the group is never added', () => {
    const s = withGroups(mems(5), 3, {});
    // METADATA 0 1 2, default 0 3 4: loads cp-0 2, others 1.
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(4)]);
    // Candidates: cp-0, cp-1, cp-2 in one group each, cp-3 in none -> cp-3.
    expect(s.plan()).toEqual([{ group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-3' }]);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(4, 3)]);
    // cp-0, cp-1, cp-2 tied: the first in order.
    expect(s.plan()).toEqual([{ group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-0' }]);
    s.apply(['setGroupMembers', METADATA_GROUP, 0, cp(3, 2, 1)]);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(4, 0)]);
    // Every member in one group: CP member order, not the order a group lists them in.
    expect(s.plan()).toEqual([{ group: DEFAULT_GROUP, groupId: 1, type: 'add', cpUuid: 'cp-1' }]);
    // A group of one, all others equally loaded: the first of them in order that is not in it.
    const t = withGroups(mems(4), 3, {});
    t.apply(['setGroupMembers', METADATA_GROUP, 0, cp(0, 3)]);
    t.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(0, 1, 2)]);
    expect(t.plan()).toEqual([{ group: METADATA_GROUP, groupId: 0, type: 'add', cpUuid: 'cp-1' }]);
  });

  it('the free seats of several groups are chosen together, so the loads end as even as they can', () => {
    // A greedy pick group by group would give a's seat to cp-2 (tied with cp-3, first in
    // order) and leave b only cp-1 and cp-2 to choose from: loads 3 4 3 2. Giving a cp-3
    // and b cp-2 ends with every member in three groups.
    const s = withGroups(mems(5), 3, { a: cp(0, 1, 4), b: cp(0, 3, 4) });
    s.apply(['setGroupMembers', METADATA_GROUP, 0, cp(0, 1, 2)]);
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(1, 2, 3)]);
    s.apply(['removeMember', 'cp-4']);
    expect(s.plan().map((c) => [c.group, c.type, c.cpUuid])).toEqual([
      ['a', 'remove', 'cp-4'],
      ['b', 'remove', 'cp-4'],
    ]);
    for (const c of s.plan()) carryOut(s, c);
    expect(s.plan().map((c) => [c.group, c.type, c.cpUuid])).toEqual([
      ['a', 'add', 'cp-3'],
      ['b', 'add', 'cp-2'],
    ]);
    expect(repair(s)).toBe(1);
    expect(s.group('a')?.members).toEqual(cp(0, 1, 3));
    expect(s.group('b')?.members).toEqual(cp(0, 3, 2));
    expect([...loads(s).values()]).toEqual([3, 3, 3, 3]);
  });

  it('fewer CP members than groupSize: groups hold them all and plan() stops there', () => {
    const s = CpMetadataState.initial(mems(3), 3);
    s.apply(['removeMember', 'cp-0']);
    expect(repair(s)).toBe(1);
    expect(groupsOf(s).map((g) => g.members)).toEqual([cp(1, 2), cp(1, 2)]);
    s.apply(['removeMember', 'cp-1']);
    expect(repair(s)).toBe(1);
    expect(groupsOf(s).map((g) => g.members)).toEqual([cp(2), cp(2)]);
    s.apply(addCmd(mem(3)));
    s.apply(addCmd(mem(4)));
    expect(repair(s)).toBe(2);
    expect(groupsOf(s).map((g) => g.members)).toEqual([cp(2, 3, 4), cp(2, 3, 4)]);
  });

  it('a group whose members are all gone is emptied and filled again (the pure rule; Raft could not do it)', () => {
    const s = withGroups(mems(4), 2, {});
    // METADATA cp-0 cp-1, default cp-2 cp-3.
    s.apply(['removeMember', 'cp-2']);
    s.apply(['removeMember', 'cp-3']);
    expect(repair(s)).toBe(4);
    expect(s.group(DEFAULT_GROUP)?.members).toEqual(cp(0, 1));
  });

  it('a group with more members than groupSize is left alone (plan() never grows a group past it)', () => {
    const s = withGroups(mems(4), 2, {});
    s.apply(['setGroupMembers', DEFAULT_GROUP, 1, cp(0, 1, 2, 3)]);
    expect(s.plan()).toEqual([]);
  });

  it('changes name the group id, so a change planned before a destroy and re-create is refused', () => {
    const s = withGroups(mems(4), 3, { a: cp(0, 1, 2) });
    s.apply(['removeMember', 'cp-1']);
    const planned = s.plan().find((c) => c.group === 'a')!;
    expect(planned).toEqual({ group: 'a', groupId: 2, type: 'remove', cpUuid: 'cp-1' });
    s.apply(['destroyGroup', 'a']);
    s.apply(['createGroup', 'a']);
    const before = bytes(s);
    expect(s.apply(['setGroupMembers', 'a', planned.groupId, cp(0, 2)])).toEqual(okv(false));
    expect(bytes(s)).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * The smallest spread of loads any filling of the free seats can give, keeping every CP member
 * that is in a group where it is (what plan() may choose): by trying them all, or undefined
 * when there are too many to try.
 */
function smallestSpread(s: CpMetadataState, limit = 200_000): number | undefined {
  const cpUuids = s.members().map((m) => m.cpUuid);
  const want = Math.min(s.groupSize, cpUuids.length);
  const load = loads(s);
  const seats = groupsOf(s)
    .map((g) => {
      const kept = g.members.filter((m) => load.has(m));
      return { free: cpUuids.filter((m) => !kept.includes(m)), n: want - kept.length };
    })
    .filter((x) => x.n > 0);
  let best = Infinity;
  let tried = 0;
  const choose = (i: number): boolean => {
    if (i === seats.length) {
      if (++tried > limit) return false;
      const l = [...load.values()];
      best = Math.min(best, Math.max(...l) - Math.min(...l));
      return true;
    }
    const { free, n } = seats[i]!;
    const pick = (from: number, left: number): boolean => {
      if (left === 0) return choose(i + 1);
      for (let j = from; j <= free.length - left; j++) {
        const m = free[j]!;
        load.set(m, load.get(m)! + 1);
        const more = pick(j + 1, left - 1);
        load.set(m, load.get(m)! - 1);
        if (!more) return false;
      }
      return true;
    };
    return pick(0, n);
  };
  return choose(0) ? best : undefined;
}

/** What every plan() must look like, whatever the state. */
function checkPlan(s: CpMetadataState, p: readonly CpGroupChange[]): void {
  const cpUuids = new Set(s.members().map((m) => m.cpUuid));
  const groups = new Set<string>();
  for (const c of p) {
    expect(groups.has(c.group), `two changes for ${c.group}`).toBe(false);
    groups.add(c.group);
    const g = s.group(c.group)!;
    expect(g.id).toBe(c.groupId);
    const gone = g.members.find((m) => !cpUuids.has(m));
    if (gone !== undefined) {
      expect(c).toEqual({ group: g.name, groupId: g.id, type: 'remove', cpUuid: gone });
    } else {
      expect(c.type).toBe('add');
      expect(cpUuids.has(c.cpUuid)).toBe(true);
      expect(g.members).not.toContain(c.cpUuid);
      expect(g.members.length).toBeLessThan(s.groupSize);
    }
  }
  // Every group that needs a change gets one.
  for (const g of groupsOf(s)) {
    const needs = g.members.some((m) => !cpUuids.has(m)) || g.members.length < Math.min(s.groupSize, cpUuids.size);
    expect(groups.has(g.name), `${g.name} ${JSON.stringify(g.members)}`).toBe(needs);
  }
}

function checkConverged(s: CpMetadataState, label: string): void {
  const cpUuids = new Set(s.members().map((m) => m.cpUuid));
  const want = Math.min(s.groupSize, cpUuids.size);
  for (const g of groupsOf(s)) {
    expect(g.members.length, `${label} ${g.name}`).toBe(want);
    expect(new Set(g.members).size, `${label} ${g.name} duplicates`).toBe(g.members.length);
    for (const m of g.members) expect(cpUuids.has(m), `${label} ${g.name} holds ${m}`).toBe(true);
  }
  expect(s.plan()).toEqual([]);
}

describe('plan() repair loop, seeded simulation', () => {
  it('converges from random removals, additions, creations and destroys, to the most even loads the kept members allow', () => {
    let repairs = 0;
    let measured = 0;
    let uneven = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const rnd = prng(seed);
      const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
      const n0 = 1 + Math.floor(rnd() * 7);
      const groupSize = 1 + Math.floor(rnd() * n0);
      let s = CpMetadataState.initial(mems(n0), groupSize);
      let nextMember = n0;
      let nextGroup = 0;
      const stale: CpGroupChange[] = [];
      for (let phase = 0; phase < 4; phase++) {
        const steps = 1 + Math.floor(rnd() * 8);
        for (let step = 0; step < steps; step++) {
          const r = rnd();
          const label = `seed ${seed} phase ${phase} step ${step}`;
          if (r < 0.2) {
            const last = s.members().length === 1;
            expect(s.apply(['removeMember', pick(s.members()).cpUuid]), label).toEqual(last ? err('CONFLICT') : okv(true));
          } else if (r < 0.35) {
            expect(s.apply(addCmd(mem(nextMember++))), label).toEqual(okv(true));
          } else if (r < 0.55) {
            expect(s.apply(['createGroup', rnd() < 0.8 || nextGroup === 0 ? `g${nextGroup++}` : `g${Math.floor(rnd() * nextGroup)}`]).ok, label).toBe(true);
          } else if (r < 0.62) {
            const names = groupsOf(s).map((g) => g.name).filter((n) => n !== METADATA_GROUP);
            if (names.length > 0) expect(s.apply(['destroyGroup', pick(names)]), label).toEqual(okv(true));
          } else if (r < 0.67) {
            s = roundTrip(s);
          } else {
            // Some of the planned changes are made, in any order; others are still in flight.
            const p = s.plan();
            checkPlan(s, p);
            for (const c of p) {
              if (rnd() < 0.6) expect(carryOut(s, c), label).toEqual(okv(true));
              else stale.push(c);
            }
          }
        }
        // Changes planned against a group destroyed since (or destroyed and created again) are refused.
        for (const c of stale.splice(0)) {
          if (s.group(c.group)?.id === c.groupId) continue;
          const before = bytes(s);
          expect(s.apply(['setGroupMembers', c.group, c.groupId, [c.cpUuid]])).toEqual(okv(false));
          expect(bytes(s)).toBe(before);
        }
        const label = `seed ${seed} phase ${phase} (${s.members().length} CP members, groupSize ${groupSize}, ${groupsOf(s).length} groups)`;
        const best = smallestSpread(s);
        // Each group needs at most groupSize removals and groupSize additions, one per round.
        const rounds = repair(s, 2 * groupSize + 1);
        repairs++;
        checkConverged(s, label);
        if (best !== undefined) {
          measured++;
          expect(spread(s), label).toBe(best);
        }
        if (spread(s) > 1) uneven++;
        expect(rounds, label).toBeLessThanOrEqual(2 * groupSize);
      }
    }
    expect(repairs).toBe(1600);
    // The exhaustive optimum was within reach for nearly every repair.
    expect(measured).toBeGreaterThan(1500);
    // The runs do reach states where no filling of the seats can even the loads to within one.
    expect(uneven).toBeGreaterThan(100);
  });

  it('groups created one after another keep loads within one; a removal is then repaired to the smallest spread possible', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = prng(seed);
      const n0 = 3 + Math.floor(rnd() * 6);
      const groupSize = 1 + Math.floor(rnd() * n0);
      const s = CpMetadataState.initial(mems(n0), groupSize);
      for (let g = 0; g < 12; g++) {
        s.apply(['createGroup', `g${g}`]);
        expect(spread(s), `seed ${seed} group ${g}`).toBeLessThanOrEqual(1);
      }
      // One removal, repaired: the kept members still fix most seats, so check the optimum.
      s.apply(['removeMember', s.members()[Math.floor(rnd() * n0)]!.cpUuid]);
      const best = smallestSpread(s, 1_000_000);
      repair(s);
      checkConverged(s, `seed ${seed}`);
      if (best !== undefined) expect(spread(s), `seed ${seed}`).toBe(best);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** A state with some history: members come and go, groups are created, changed, destroyed. */
function storied(): CpMetadataState {
  const s = CpMetadataState.initial(mems(5), 3);
  s.apply(['createGroup', 'a']);
  s.apply(['createGroup', 'b']);
  s.apply(['createGroup', 'c']);
  s.apply(['destroyGroup', 'b']);
  s.apply(['removeMember', 'cp-2']);
  s.apply(addCmd(mem(7)));
  const p = s.plan();
  carryOut(s, p[0]!);
  return s;
}

describe('snapshot() and fromSnapshot()', () => {
  it('a round trip through the wire codec gives the same view, plan and bytes', () => {
    const s = storied();
    const t = roundTrip(s);
    expect(t.view(3, 9)).toEqual(s.view(3, 9));
    expect(t.groupSize).toBe(s.groupSize);
    expect(t.initialCpMembers).toEqual(s.initialCpMembers);
    expect(t.members()).toEqual(s.members());
    expect(t.plan()).toEqual(s.plan());
    expect(bytes(t)).toBe(bytes(s));
    expect(bytes(roundTrip(t))).toBe(bytes(s));
  });

  it('gives the same answers to every later command, and the same state after them', () => {
    const commands: WireValue[] = [
      ['createGroup', 'd'],
      ['createGroup', 'a'],
      ['createGroup', 'b'],
      ['addMember', 'cp-7', 'm-7', '10.0.0.7:5701'],
      ['addMember', 'cp-8', 'm-0', 'x:1'],
      ['addMember', 'cp-8', 'm-8', '10.0.0.8:5701'],
      ['removeMember', 'cp-2'],
      ['removeMember', 'cp-0'],
      ['destroyGroup', 'a'],
      ['destroyGroup', 'a'],
      ['destroyGroup', METADATA_GROUP],
      ['setGroupMembers', 'c', 4, cp(1, 3)],
      ['setGroupMembers', 'c', 3, cp(1, 3)],
      ['createGroup', 'metaDATA'],
      ['nope'],
      ['createGroup', 'a'],
    ];
    const s = storied();
    const t = roundTrip(s);
    for (const c of commands) {
      expect(t.apply(c), JSON.stringify(c)).toEqual(s.apply(c));
      expect(t.view(1, 1)).toEqual(s.view(1, 1));
      expect(t.plan()).toEqual(s.plan());
    }
    expect(bytes(t)).toBe(bytes(s));
  });

  it('replicas fed the same random commands agree, however often one restores from a snapshot', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rnd = prng(seed * 31);
      const s = CpMetadataState.initial(mems(4), 3);
      let t = CpMetadataState.initial(mems(4), 3);
      for (let i = 0; i < 60; i++) {
        const m = Math.floor(rnd() * 8);
        const g = `g${Math.floor(rnd() * 4)}`;
        const p = s.plan();
        const c: WireValue = [
          addCmd(mem(m)),
          ['removeMember', `cp-${m}`],
          ['createGroup', g],
          ['destroyGroup', g],
          p.length > 0 ? ['setGroupMembers', p[0]!.group, p[0]!.groupId, cp(m)] : ['setGroupMembers', g, m, cp(m)],
          ['createGroup', rnd() < 0.5 ? '' : 'Metadata'],
          [m],
        ][Math.floor(rnd() * 7)]!;
        expect(t.apply(c), `seed ${seed} ${JSON.stringify(c)}`).toEqual(s.apply(c));
        if (rnd() < 0.3) t = roundTrip(t);
      }
      expect(t.view(0, 0)).toEqual(s.view(0, 0));
      expect(bytes(t)).toBe(bytes(s));
    }
  });

  it('fromSnapshot throws a TypeError on a malformed snapshot', () => {
    const good = storied().snapshot() as readonly WireValue[];
    const bad: WireValue[] = [
      null,
      3,
      'snapshot',
      {},
      [],
      good.slice(0, 4),
      [...good, 0],
      ['3', ...good.slice(1)],
      [good[0]!, null, ...good.slice(2)],
      [...good.slice(0, 4), 'groups'],
      [...good.slice(0, 2), 'initial', ...good.slice(3)],
      [...good.slice(0, 3), [['cp-0', 'm-0']], good[4]!],
      [...good.slice(0, 3), [['cp-0', 'm-0', 5]], good[4]!],
      [...good.slice(0, 4), [['g', 1, [], []], ['h', -1, [], []]]],
      [...good.slice(0, 4), [['g', 1, [], [2]]]],
    ];
    for (const w of bad) expect(() => CpMetadataState.fromSnapshot(w), JSON.stringify(w)).toThrow(TypeError);
    expect(() => CpMetadataState.fromSnapshot(good)).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

describe('views and groups on the wire', () => {
  it('viewToWire -> codec -> viewFromWire gives the view back', () => {
    for (const s of [storied(), CpMetadataState.initial(mems(1), 1), CpMetadataState.initial(mems(7), 5)]) {
      const v = s.view(0x7ffffffe, 123_456);
      const back: CpView = viewFromWire(decodeValue(encodeValue(viewToWire(v))));
      expect(back).toEqual(v);
      expect(viewToWire(back)).toEqual(viewToWire(v));
    }
    const empty: CpView = { seed: 1, version: 0, groupSize: 3, initialCpMembers: [], cpMembers: [], groups: [] };
    expect(viewFromWire(decodeValue(encodeValue(viewToWire(empty))))).toEqual(empty);
  });

  it('groupToWire -> codec -> groupFromWire gives the group back', () => {
    const g: CpGroupRec = { name: 'orders', id: 12, initialMembers: cp(0, 1, 2), members: cp(2, 4) };
    expect(groupToWire(g)).toEqual(['orders', 12, cp(0, 1, 2), cp(2, 4)]);
    expect(groupFromWire(decodeValue(encodeValue(groupToWire(g))))).toEqual(g);
    expect(groupFromWire(['x', 0, [], []])).toEqual({ name: 'x', id: 0, initialMembers: [], members: [] });
  });

  it('groupFromWire copies the member lists', () => {
    const w: string[][] = [cp(0), cp(1)];
    const g = groupFromWire(['x', 0, w[0]!, w[1]!]);
    w[0]!.push('cp-9');
    w[1]!.push('cp-9');
    expect(g).toEqual({ name: 'x', id: 0, initialMembers: cp(0), members: cp(1) });
  });

  it('groupFromWire throws a TypeError on a malformed group', () => {
    const bad: WireValue[] = [
      null,
      'g',
      5,
      {},
      [],
      ['g', 1, []],
      ['g', 1, [], [], []],
      [1, 1, [], []],
      [null, 1, [], []],
      ['g', '1', [], []],
      ['g', -1, [], []],
      ['g', 1.5, [], []],
      ['g', Number.NaN, [], []],
      ['g', Infinity, [], []],
      ['g', 1, 'cp-0', []],
      ['g', 1, [], null],
      ['g', 1, [1], []],
      ['g', 1, [], ['cp-0', ['cp-1']]],
      ['g', 1, {}, []],
    ];
    for (const w of bad) expect(() => groupFromWire(w), JSON.stringify(w)).toThrow(TypeError);
  });

  it("viewFromWire (cp-payloads.ts's decoder) refuses a malformed view with BAD_REQUEST", () => {
    const good = viewToWire(storied().view(5, 6)) as readonly WireValue[];
    expect(() => viewFromWire(good)).not.toThrow();
    const at = (i: number, v: WireValue): WireValue[] => good.map((x, j) => (j === i ? v : x));
    const bad: WireValue[] = [
      null,
      7,
      'view',
      {},
      [],
      good.slice(0, 5),
      [...good, 1],
      at(0, '5'),
      at(0, null),
      at(1, '6'),
      at(1, [6]),
      at(2, '3'),
      at(2, null),
      at(3, null),
      at(3, 'members'),
      at(3, [['cp-0', 'm-0']]),
      at(4, [['cp-0', 'm-0', 'a:1', 'extra']]),
      at(4, [['cp-0', 'm-0', 1]]),
      at(4, ['cp-0']),
      at(4, {}),
      at(5, null),
      at(5, {}),
      at(5, [['g', 1, [], []], 'h']),
      at(5, [['g', -1, [], []]]),
      at(5, [['g', 1, [], [0]]]),
    ];
    for (const w of bad) {
      let thrown: unknown;
      try {
        viewFromWire(w);
      } catch (e) {
        thrown = e;
      }
      expect(thrown instanceof GridError && thrown.code === 'BAD_REQUEST' && thrown.message.startsWith('malformed member message: view'), `${JSON.stringify(w)}: ${String(thrown)}`).toBe(true);
    }
  });
});
