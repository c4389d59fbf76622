import { describe, expect, it } from 'vitest';
import { ClusterStateMachine } from '../../../src/cluster/state-machine.js';
import type { ClusterState } from '../../../src/cluster/types.js';
import { prng } from '../../support/prng.js';

const LOCK_MS = 30_000;

describe('ClusterStateMachine', () => {
  it('prepare locks (IN_TRANSITION), commit takes the state and its version, rollback releases', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    s.prepare('t1', 'FROZEN', 0, false);
    expect(s.visible(1)).toBe('IN_TRANSITION');
    expect(s.lockedTx(1)).toBe('t1');
    expect(s.commit('t1', 'FROZEN', 1)).toEqual({ from: 'ACTIVE', to: 'FROZEN' });
    expect([s.visible(2), s.version]).toEqual(['FROZEN', 1]);
    s.prepare('t2', 'ACTIVE', 3, false);
    s.rollback('t2');
    expect([s.visible(4), s.version, s.lockedTx(4)]).toEqual(['FROZEN', 1, undefined]);
  });

  it('refuses a second change while one holds the lock, until the lock lapses', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    s.prepare('t1', 'FROZEN', 0, false);
    expect(() => s.prepare('t2', 'PASSIVE', 10, false)).toThrow(/another cluster state change/);
    s.prepare('t1', 'FROZEN', 10, false); // the same change again is fine
    // Re-preparing t1 at 10 renewed its lock until LOCK_MS + 10.
    expect(() => s.prepare('t2', 'PASSIVE', LOCK_MS + 5, false)).toThrow(/another cluster state change/);
    s.prepare('t2', 'PASSIVE', LOCK_MS + 10, false);
    expect(s.lockedTx(LOCK_MS + 11)).toBe('t2');
    expect(s.visible(2 * LOCK_MS + 10)).toBe('ACTIVE');
  });

  it('a shutting-down member accepts only PASSIVE', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    expect(() => s.prepare('t', 'FROZEN', 0, true)).toThrow(/shutting down/);
    s.prepare('t', 'PASSIVE', 0, true);
  });

  it('ignores a commit for another change than the locked one; an old master’s commit without a version counts one up', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    s.prepare('t1', 'FROZEN', 0, false);
    expect(s.commit('t2', 'PASSIVE', 5)).toBeUndefined();
    expect([s.state, s.version]).toEqual(['ACTIVE', 0]);
    expect(s.commit('t1', 'FROZEN', undefined)).toEqual({ from: 'ACTIVE', to: 'FROZEN' });
    expect(s.version).toBe(1);
  });

  it('follows the master: a newer version is taken (lock dropped), a lock the master does not hold is released', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    s.prepare('t1', 'FROZEN', 0, false);
    expect(s.followMaster('ACTIVE', 0, 't1')).toBeUndefined(); // the master is still at it
    expect(s.followMaster('ACTIVE', 0, undefined)).toEqual({ kind: 'released', txId: 't1' });
    s.prepare('t2', 'FROZEN', 0, false);
    expect(s.followMaster('FROZEN', 1, undefined)).toEqual({ kind: 'adopted', state: 'FROZEN', version: 1, transition: { from: 'ACTIVE', to: 'FROZEN' } });
    expect([s.visible(1), s.lockedTx(1)]).toEqual(['FROZEN', undefined]);
    expect(s.followMaster('ACTIVE', 0, undefined)).toBeUndefined(); // an older view changes nothing
  });

  it('a new master takes only a newer state; reset forgets everything', () => {
    const s = new ClusterStateMachine(LOCK_MS);
    s.commit('t', 'FROZEN', 3);
    expect(s.takeNewest('PASSIVE', 2)).toBeUndefined();
    expect(s.takeNewest('PASSIVE', 4)).toEqual({ from: 'FROZEN', to: 'PASSIVE' });
    s.reset();
    expect([s.state, s.version, s.lockedTx(0)]).toEqual(['ACTIVE', 0, undefined]);
  });

  it('randomized: with lost commits and rollbacks, refusals and interleaved heartbeats, every member ends at the master’s state', () => {
    const STATES: ClusterState[] = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE'];
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = prng(seed);
      let now = 0;
      const master = new ClusterStateMachine(LOCK_MS);
      const members = Array.from({ length: 3 }, () => new ClusterStateMachine(LOCK_MS));
      // One ordered connection master -> member; a message may be lost (answered, not applied).
      type Message = { kind: 'prepare' | 'commit' | 'rollback'; tx: string; to: ClusterState; version?: number } | { kind: 'beat'; state: ClusterState; version: number; tx: string | undefined };
      const queues: Message[][] = members.map(() => []);
      const deliverSome = (): void => {
        for (let i = 0; i < members.length; i++) {
          while (queues[i]!.length > 0 && rnd() < 0.6) {
            const m = queues[i]!.shift()!;
            const s = members[i]!;
            if (m.kind === 'beat') s.followMaster(m.state, m.version, m.tx);
            else if (m.kind === 'commit') s.commit(m.tx, m.to, m.version);
            else if (m.kind === 'rollback') s.rollback(m.tx);
            // a prepare's answer is decided at send time below
            expect(s.version).toBeLessThanOrEqual(master.version);
          }
        }
      };
      const beat = (): void => {
        for (const q of queues) q.push({ kind: 'beat', state: master.state, version: master.version, tx: master.lockedTx(now) });
      };
      for (let round = 0; round < 12; round++) {
        now += 100;
        const to = STATES[Math.floor(rnd() * STATES.length)]!;
        if (to === master.state) continue;
        const tx = `t${seed}.${round}`;
        master.prepare(tx, to, now, false);
        // Prepares are synchronous requests: flush what is queued, then ask every member.
        for (let i = 0; i < members.length; i++) {
          for (const m of queues[i]!.splice(0)) {
            if (m.kind === 'beat') members[i]!.followMaster(m.state, m.version, m.tx);
            else if (m.kind === 'commit') members[i]!.commit(m.tx, m.to, m.version);
            else if (m.kind === 'rollback') members[i]!.rollback(m.tx);
          }
        }
        const refused = members.map((s) => {
          if (rnd() < 0.15) return true; // refused on purpose
          try {
            s.prepare(tx, to, now, false);
            return false;
          } catch {
            return true;
          }
        });
        if (rnd() < 0.5) beat();
        if (refused.some(Boolean)) {
          master.rollback(tx);
          for (const q of queues) if (rnd() > 0.3) q.push({ kind: 'rollback', tx, to });
        } else {
          const version = master.version + 1;
          for (const q of queues) if (rnd() > 0.3) q.push({ kind: 'commit', tx, to, version });
          master.commit(tx, to, version);
        }
        if (rnd() < 0.5) beat();
        deliverSome();
      }
      // The next heartbeat reaches everyone: all converge, nobody stays locked.
      beat();
      for (let i = 0; i < members.length; i++) {
        for (const m of queues[i]!.splice(0)) {
          const s = members[i]!;
          if (m.kind === 'beat') s.followMaster(m.state, m.version, m.tx);
          else if (m.kind === 'commit') s.commit(m.tx, m.to, m.version);
          else if (m.kind === 'rollback') s.rollback(m.tx);
        }
      }
      for (const s of members) {
        expect([s.visible(now), s.version], `seed ${seed}`).toEqual([master.state, master.version]);
      }
    }
  });
});
