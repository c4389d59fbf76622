import { describe, expect, it } from 'vitest';
import {
  commitAllowed,
  dropUncommitted,
  migrationReady,
  planMode,
  replicaChange,
  rowsEqual,
  sourceRefusal,
} from '../../../src/partition/migration-rules.js';
import type { ClusterState } from '../../../src/cluster/types.js';
import { prng } from '../../support/prng.js';

const everyone = (): boolean => true;
const except = (...dead: string[]) => (u: string): boolean => !dead.includes(u);

describe('migration rules', () => {
  it('planMode: ACTIVE balances, NO_MIGRATION only promotes, FROZEN and PASSIVE change nothing', () => {
    const modes = (['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE', 'IN_TRANSITION'] as ClusterState[]).map(planMode);
    expect(modes).toEqual(['balance', 'promote-only', 'frozen', 'frozen', 'frozen']);
  });

  it('migrationReady: owner and every new replica alive, and something to move', () => {
    expect(migrationReady(['A', 'B'], ['A', 'C'], everyone)).toBe(true);
    expect(migrationReady(['A', 'B'], ['A', 'B'], everyone)).toBe(false);
    expect(migrationReady([], ['A'], everyone)).toBe(false);
    expect(migrationReady(['A', 'B'], ['A', 'C'], except('A'))).toBe(false);
    expect(migrationReady(['A', 'B'], ['A', 'C'], except('C'))).toBe(false);
    expect(migrationReady(['A', 'B'], ['C', 'A'], except('B'))).toBe(true); // a dead old backup does not stop it
  });

  it('commitAllowed: still master, row unchanged since the copy, new replicas alive', () => {
    const base = { isMaster: true, currentRow: ['A', 'B'], prev: ['A', 'B'], next: ['C', 'A'], alive: everyone };
    expect(commitAllowed(base)).toBe(true);
    expect(commitAllowed({ ...base, isMaster: false })).toBe(false);
    expect(commitAllowed({ ...base, currentRow: ['B'] })).toBe(false);
    expect(commitAllowed({ ...base, alive: except('C') })).toBe(false);
  });

  it('sourceRefusal: only the owner, with the master’s row, and not fenced', () => {
    const ok = { me: 'A', row: ['A', 'B'], prev: ['A', 'B'], fenced: false };
    expect(sourceRefusal(3, ok)).toBeUndefined();
    expect(sourceRefusal(3, { ...ok, fenced: true })?.code).toBe('STALE_VIEW');
    expect(sourceRefusal(3, { ...ok, me: 'B' })?.message).toContain('not owned here');
    expect(sourceRefusal(3, { ...ok, prev: ['A', 'C'] })?.message).toContain('out of date');
  });

  it('replicaChange: ownership lost, trimmed when moving down, released when gone', () => {
    expect(replicaChange(['A', 'B'], ['B', 'A'], 'A')).toEqual({ ownershipLost: true, trimTo: 1, holds: true, released: false });
    expect(replicaChange(['A', 'B'], ['B', 'C'], 'A')).toEqual({ ownershipLost: true, trimTo: undefined, holds: false, released: true });
    expect(replicaChange(['B', 'A'], ['A', 'B'], 'A')).toEqual({ ownershipLost: false, trimTo: undefined, holds: true, released: false });
    expect(replicaChange(['B', 'C'], ['B', 'A'], 'A')).toEqual({ ownershipLost: false, trimTo: undefined, holds: true, released: false });
    expect(replicaChange(['B', 'A', 'C'], ['B', 'C', 'A'], 'A')).toEqual({ ownershipLost: false, trimTo: 2, holds: true, released: false });
  });

  it('dropUncommitted: data of an uncommitted migration is kept for the TTL, then dropped', () => {
    expect(dropUncommitted(undefined, 1_000, 100)).toBe(true);
    expect(dropUncommitted(950, 1_000, 100)).toBe(false);
    expect(dropUncommitted(899, 1_000, 100)).toBe(true);
  });

  it('randomized: a row is committed only when every rule agrees, and replicaChange is consistent with the rows', () => {
    const rnd = prng(11);
    const members = ['A', 'B', 'C', 'D'];
    const row = (): string[] => members.filter(() => rnd() < 0.5).sort(() => rnd() - 0.5).slice(0, 3);
    for (let i = 0; i < 5_000; i++) {
      const before = row();
      const after = row();
      const me = members[Math.floor(rnd() * members.length)]!;
      const c = replicaChange(before, after, me);
      expect(c.holds).toBe(after.includes(me));
      expect(c.released).toBe(before.includes(me) && !after.includes(me));
      expect(c.ownershipLost).toBe(before[0] === me && after[0] !== me);
      if (c.trimTo !== undefined) expect(after.indexOf(me)).toBeGreaterThan(before.indexOf(me));
      expect(rowsEqual(before, after)).toBe(before.join() === after.join());
    }
  });
});
