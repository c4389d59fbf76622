import { describe, expect, it } from 'vitest';
import {
  AUTHORITY,
  admit,
  admitPartitionWrite,
  admitStateChange,
  judgeMemberList,
  removedWhilePaused,
  type GateView,
  type ListReceiver,
} from '../../../src/cluster/member-rules.js';
import { Msg } from '../../../src/protocol/messages.js';
import { prng } from '../../support/prng.js';

function gate(members: string[], opts: Partial<{ joined: boolean; removed: boolean }> = {}): GateView {
  return { joined: opts.joined ?? true, removed: opts.removed ?? false, masterUuid: members[0], isMember: (u) => members.includes(u) };
}

describe('admit: who may send what', () => {
  const view = gate(['A', 'B', 'C']);

  it('every message type of the table has an authority', () => {
    for (const id of Object.values(Msg)) {
      if (id === Msg.Auth) continue;
      expect(AUTHORITY[id], `message ${id}`).toBeDefined();
    }
  });

  it('master-only messages are refused from members that are not the master, and from strangers', () => {
    for (const type of [Msg.PartitionTable, Msg.Migrate, Msg.MigrateEnd, Msg.StatePrepare, Msg.StateCommit, Msg.StateRollback]) {
      expect(admit(type, 'A', view)).toBeUndefined();
      expect(admit(type, 'B', view)?.code).toBe('NOT_MEMBER');
      expect(admit(type, 'X', view)?.code).toBe('NOT_MEMBER');
    }
  });

  it('member messages are taken from any current member only', () => {
    for (const type of [Msg.Operation, Msg.Backup, Msg.PartitionData, Msg.ChangeState, Msg.LeaveRequest, Msg.Leave, Msg.ClusterShutdown, Msg.PollCancel, Msg.FetchTable, Msg.MemberReport]) {
      expect(admit(type, 'B', view)).toBeUndefined();
      expect(admit(type, 'C', view)).toBeUndefined();
      const refusal = admit(type, 'X', view);
      expect(refusal?.code).toBe('NOT_MEMBER');
      expect(refusal?.message).toContain('X is not a member');
    }
  });

  it('open messages (joining, member lists, heartbeats, reading the list) pass the gate from anyone', () => {
    for (const type of [Msg.Discover, Msg.Join, Msg.Members, Msg.Heartbeat, Msg.FetchState]) expect(admit(type, 'X', view)).toBeUndefined();
  });

  it('a member that has not joined, or was removed, takes no member message from anyone', () => {
    expect(admit(Msg.Backup, 'A', gate(['A', 'B'], { joined: false }))?.message).toContain('not joined');
    expect(admit(Msg.Backup, 'A', gate(['A', 'B'], { removed: true }))?.message).toContain('was removed');
    expect(admit(Msg.Join, 'A', gate(['A', 'B'], { removed: true }))).toBeUndefined();
  });
});

describe('admitPartitionWrite: backups and migration copies come from the owner', () => {
  it('takes the owner, and a member whose table is newer than ours', () => {
    expect(admitPartitionWrite('backup', 7, 'A', 10, { version: 10, owner: 'A' })).toBeUndefined();
    expect(admitPartitionWrite('backup', 7, 'A', undefined, { version: 10, owner: 'A' })).toBeUndefined();
    expect(admitPartitionWrite('backup', 7, 'B', 11, { version: 10, owner: 'A' })).toBeUndefined();
  });

  it('refuses a non-owner with the same or an older table (a former owner back from a pause)', () => {
    for (const stamp of [undefined, 3, 9, 10]) {
      const e = admitPartitionWrite('partition copy', 7, 'B', stamp, { version: 10, owner: 'A' });
      expect(e?.code).toBe('STALE_VIEW');
      expect(e?.message).toContain('partition 7');
    }
  });
});

describe('admitStateChange', () => {
  it('refuses a state change sent with an older member list', () => {
    expect(admitStateChange('commit', 4, 5)?.code).toBe('STALE_VIEW');
    expect(admitStateChange('commit', 5, 5)).toBeUndefined();
    expect(admitStateChange('commit', 6, 5)).toBeUndefined();
    expect(admitStateChange('commit', undefined, 5)).toBeUndefined();
  });
});

function receiver(localUuid: string, members: string[], version: number, suspected: string[] = [], joined = true): ListReceiver {
  return { localUuid, joined, shuttingDown: false, version, members, isSuspected: (u) => suspected.includes(u) };
}

describe('judgeMemberList', () => {
  it('takes a newer list from its master, ignores an old or repeated one', () => {
    const me = receiver('B', ['A', 'B', 'C'], 5);
    expect(judgeMemberList(6, ['A', 'B', 'C', 'D'], 'A', me).action).toBe('accept');
    expect(judgeMemberList(5, ['A', 'B', 'C', 'D'], 'A', me).action).toBe('ignore');
    expect(judgeMemberList(4, ['A', 'B'], 'A', me).action).toBe('ignore');
  });

  it('a list that leaves this member out, from its master, means it was removed', () => {
    expect(judgeMemberList(6, ['A', 'C'], 'A', receiver('B', ['A', 'B', 'C'], 5))).toEqual({ action: 'removed' });
  });

  it('the old master back from a pause learns from the new master that it was removed', () => {
    // A was master; B took over and removed it. A still lists itself first.
    expect(judgeMemberList(6, ['B', 'C'], 'B', receiver('A', ['A', 'B', 'C'], 5))).toEqual({ action: 'removed' });
  });

  it('never takes a list from a member it does not list (one removed while paused)', () => {
    const me = receiver('B', ['C', 'B'], 9);
    const v = judgeMemberList(50, ['A', 'B'], 'A', me);
    expect(v.action).toBe('ignore');
    // ... not even one that leaves this member out (it would stop a healthy member).
    expect(judgeMemberList(50, ['A'], 'A', me).action).toBe('ignore');
  });

  it('refuses a would-be master while an older member is alive here, takes it once that one is suspected', () => {
    expect(judgeMemberList(6, ['B', 'C'], 'B', receiver('C', ['A', 'B', 'C'], 5)).action).toBe('ignore');
    expect(judgeMemberList(6, ['B', 'C'], 'B', receiver('C', ['A', 'B', 'C'], 5, ['A'])).action).toBe('accept');
  });

  it('a list sent by someone who is neither its master nor ours is ignored', () => {
    expect(judgeMemberList(6, ['A', 'B', 'C'], 'C', receiver('B', ['A', 'B', 'C'], 5)).action).toBe('ignore');
  });

  it('a joining member takes the list of its Join answer; malformed lists are ignored', () => {
    expect(judgeMemberList(3, ['A', 'B', 'D'], undefined, receiver('D', ['D'], 0, [], false)).action).toBe('accept');
    expect(judgeMemberList(3, [], 'A', receiver('D', ['D'], 0, [], false)).action).toBe('ignore');
    expect(judgeMemberList(3, ['A', 'D', 'A'], 'A', receiver('D', ['D'], 0, [], false)).action).toBe('ignore');
  });

  it('randomized: late, duplicated and reordered pushes, and lists from removed members, never move a member back or let a stranger in', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = prng(seed);
      const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
      // The master's history: joins and removals, each a new version.
      let list = ['M0', 'M1', 'M2'];
      let next = 3;
      const history: { version: number; list: string[]; sender: string }[] = [{ version: 1, list: [...list], sender: 'M0' }];
      const removedEver = new Set<string>();
      for (let v = 2; v <= 30; v++) {
        const r = rnd();
        if (r < 0.4) list = [...list, `M${next++}`];
        else if (list.length > 2) {
          const gone = pick(list.slice(1));
          list = list.filter((u) => u !== gone);
          removedEver.add(gone);
        }
        history.push({ version: v, list: [...list], sender: list[0]! });
      }
      // A removed member that keeps pushing lists of its own with big versions.
      const stranger = removedEver.size > 0 ? [...removedEver][0]! : 'GHOST';
      const forged = Array.from({ length: 10 }, (_, i) => ({ version: 100 + i, list: [stranger, 'M0'], sender: stranger }));
      // Member M0 is the master throughout and M1.. are followers; follow M0's view from a follower that stays.
      const stays = list.find((u) => u !== 'M0')!;
      const firstWith = history.find((h) => h.list.includes(stays))!;
      let mine = receiver(stays, firstWith.list, firstWith.version);
      const inbox = [...history.filter((h) => h.version > firstWith.version), ...history.filter(() => rnd() < 0.3), ...forged];
      inbox.sort(() => rnd() - 0.5);
      for (const msg of inbox) {
        const verdict = judgeMemberList(msg.version, msg.list, msg.sender, mine);
        if (verdict.action === 'accept') {
          expect(msg.version).toBeGreaterThan(mine.version);
          expect(mine.members).toContain(msg.sender);
          expect(msg.sender).not.toBe(stranger === 'GHOST' ? '' : stranger);
          mine = receiver(stays, msg.list, msg.version);
        }
        expect(verdict.action).not.toBe('removed');
      }
      expect(mine.version).toBe(30);
      expect(mine.members).toEqual(list);
    }
  });
});

describe('removedWhilePaused', () => {
  const me = { localUuid: 'B', version: 5, members: ['A', 'B', 'C'] };
  it('a newer list without this member, from a master of its cluster, means it was removed', () => {
    expect(removedWhilePaused(me, { version: 6, members: ['A', 'C'] })).toBe(true);
    expect(removedWhilePaused(me, { version: 6, members: ['C', 'A'] })).toBe(true);
  });
  it('an older or equal list, a list that keeps it, or one from a stranger cluster proves nothing', () => {
    expect(removedWhilePaused(me, { version: 5, members: ['A', 'C'] })).toBe(false);
    expect(removedWhilePaused(me, { version: 6, members: ['A', 'B', 'C'] })).toBe(false);
    expect(removedWhilePaused(me, { version: 9, members: ['X', 'Y'] })).toBe(false);
    expect(removedWhilePaused(me, { version: 9, members: [] })).toBe(false);
  });
});
