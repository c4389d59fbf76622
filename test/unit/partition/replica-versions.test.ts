import { describe, expect, it } from 'vitest';
import { BackupDropper, MAX_REPLICAS, ReplicaVersions, normalizeVersions, partitionsToSync } from '../../../src/partition/replica-versions.js';
import { prng } from '../../support/prng.js';

const P = 7;

/** A member that is replica `index` of P, exact at all-zero versions (a partition given out empty). */
function freshReplica(index: number): ReplicaVersions {
  const v = new ReplicaVersions();
  const row = ['O', 'B1', 'B2'];
  v.rowChanged(P, [], row, row[index]!);
  return v;
}

describe('ReplicaVersions: the owner counts, the backup checks the sequence', () => {
  it('counts each backup operation for the replica indexes it was sent to', () => {
    const owner = freshReplica(0);
    expect(owner.stamp(P, 1)[1]).toBe(1);
    expect(owner.stamp(P, 2)[2]).toBe(1);
    expect(owner.ownerVersion(P, 1)).toBe(2);
    expect(owner.ownerVersion(P, 2)).toBe(1);
    expect(owner.ownerVersion(P, 3)).toBe(0);
    // Never beyond the largest replica index.
    owner.stamp(P, 99);
    expect(owner.copyVersions(P)).toHaveLength(MAX_REPLICAS);
  });

  it('applies operations in sequence and stays exact', () => {
    const owner = freshReplica(0);
    const backup = freshReplica(1);
    for (let k = 0; k < 5; k++) expect(backup.receive(P, 1, owner.stamp(P, 1)[1]!)).toBe('apply');
    expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(true);
    expect(partitionsToSync(backup, [[P, 1, owner.ownerVersion(P, 1)]])).toEqual([]);
  });

  it('a lost operation shows as a gap on the next one, and the copy is no longer exact', () => {
    const owner = freshReplica(0);
    const backup = freshReplica(1);
    backup.receive(P, 1, owner.stamp(P, 1)[1]!);
    owner.stamp(P, 1); // lost on the way
    expect(backup.receive(P, 1, owner.stamp(P, 1)[1]!)).toBe('gap');
    // Even operations in sequence after it do not make it exact again: only a copy does.
    expect(backup.receive(P, 1, owner.stamp(P, 1)[1]!)).toBe('gap');
    expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(false);
    backup.install(P, 1, owner.copyVersions(P));
    expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(true);
    expect(backup.receive(P, 1, owner.stamp(P, 1)[1]!)).toBe('apply');
  });

  it('a lost last operation is seen only by the round: the versions differ', () => {
    const owner = freshReplica(0);
    const backup = freshReplica(1);
    backup.receive(P, 1, owner.stamp(P, 1)[1]!);
    owner.stamp(P, 1); // lost, and nothing follows
    expect(partitionsToSync(backup, [[P, 1, owner.ownerVersion(P, 1)]])).toEqual([P]);
  });

  it('an operation applied here that the owner never counted (an extra one) differs too', () => {
    const owner = freshReplica(0);
    const backup = freshReplica(1);
    backup.receive(P, 1, 1);
    expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(false);
  });

  it('a duplicate (resent after a broken connection) is stale and skipped, without breaking the sequence', () => {
    const owner = freshReplica(0);
    const backup = freshReplica(1);
    const v1 = owner.stamp(P, 1)[1]!;
    const v2 = owner.stamp(P, 1)[1]!;
    expect(backup.receive(P, 1, v1)).toBe('apply');
    expect(backup.receive(P, 1, v2)).toBe('apply');
    expect(backup.receive(P, 1, v1)).toBe('stale');
    expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(true);
  });

  it('an operation for another replica index is a gap (the structures held differ)', () => {
    const backup = freshReplica(2);
    expect(backup.receive(P, 1, 1)).toBe('gap');
    expect(backup.state(P)?.index).toBe(-1);
  });

  it('with no state at all (no table change seen), anything is a gap', () => {
    const v = new ReplicaVersions();
    expect(v.receive(P, 1, 1)).toBe('gap');
    expect(v.matches(P, 1, 0)).toBe(false);
  });

  it('a copy for an index installs the versions it was taken with', () => {
    const owner = freshReplica(0);
    for (let k = 0; k < 9; k++) owner.stamp(P, 2);
    const fresh = new ReplicaVersions();
    fresh.install(P, 2, owner.copyVersions(P));
    expect(fresh.matches(P, 2, 9)).toBe(true);
    expect(fresh.matches(P, 1, 9)).toBe(false);
    expect(fresh.receive(P, 2, owner.stamp(P, 2)[2]!)).toBe('apply');
  });

  it('drop forgets the partition', () => {
    const b = freshReplica(1);
    b.drop(P);
    expect(b.state(P)).toBeUndefined();
  });
});

describe('ReplicaVersions.rowChanged: a place changed without a copy', () => {
  it('migration with copies: the new owner and a new backup start at the copy, the old owner stays exact as a backup', () => {
    const a = freshReplica(0); // owner A of [A, B]
    for (let k = 0; k < 4; k++) a.stamp(P, 1);
    const copy = a.copyVersions(P);
    const d = new ReplicaVersions();
    d.install(P, 0, copy); // D gets the copy for index 0
    d.rowChanged(P, ['A', 'B'], ['D', 'A'], 'D');
    expect(d.state(P)?.index).toBe(0);
    expect(d.ownerVersion(P, 1)).toBe(4);
    a.rowChanged(P, ['A', 'B'], ['D', 'A'], 'A');
    expect(a.matches(P, 1, d.ownerVersion(P, 1))).toBe(true);
    expect(a.receive(P, 1, d.stamp(P, 1)[1]!)).toBe('apply');
  });

  it('a backup that stays at its index behind a new owner (migration) stays exact', () => {
    const a = freshReplica(0);
    const b = freshReplica(1);
    for (let k = 0; k < 3; k++) b.receive(P, 1, a.stamp(P, 1)[1]!);
    const d = new ReplicaVersions();
    d.install(P, 0, a.copyVersions(P));
    d.rowChanged(P, ['A', 'B'], ['D', 'B'], 'D');
    b.rowChanged(P, ['A', 'B'], ['D', 'B'], 'B');
    expect(b.matches(P, 1, d.ownerVersion(P, 1))).toBe(true);
    expect(b.receive(P, 1, d.stamp(P, 1)[1]!)).toBe('apply');
  });

  it('promotion: the first backup continues from its versions; the next one moved up and is unknown', () => {
    const a = freshReplica(0);
    const b = freshReplica(1);
    const c = freshReplica(2);
    for (let k = 0; k < 5; k++) {
      const v = a.stamp(P, 2);
      b.receive(P, 1, v[1]!);
      c.receive(P, 2, v[2]!);
    }
    b.rowChanged(P, ['A', 'B', 'C'], ['B', 'C'], 'B');
    c.rowChanged(P, ['A', 'B', 'C'], ['B', 'C'], 'C');
    expect(b.state(P)?.index).toBe(0);
    expect(b.ownerVersion(P, 1)).toBe(5);
    // C held only structures with 2 backups: it must be copied for index 1.
    expect(c.matches(P, 1, b.ownerVersion(P, 1))).toBe(false);
    expect(partitionsToSync(c, [[P, 1, b.ownerVersion(P, 1)]])).toEqual([P]);
  });

  it('promotion where the moved-up member never received anything is unknown as well', () => {
    const b = freshReplica(1);
    const c = new ReplicaVersions(); // index 3 of a wide row, nothing ever arrived, no state
    c.rowChanged(P, ['A', 'X', 'B', 'C'], ['B', 'C'], 'C');
    b.rowChanged(P, ['A', 'X', 'B', 'C'], ['B', 'C'], 'B');
    expect(c.matches(P, 1, b.ownerVersion(P, 1))).toBe(false);
  });

  it('a copy that arrived before the table committing the place is kept', () => {
    const c = new ReplicaVersions();
    c.install(P, 1, [0, 12]);
    c.rowChanged(P, ['A', 'B'], ['A', 'C'], 'C');
    expect(c.matches(P, 1, 12)).toBe(true);
  });

  it('the first table of a member that has just joined says nothing: a place without a copy is unknown', () => {
    const j = new ReplicaVersions();
    j.rowChanged(P, [], ['A', 'J'], 'J', false);
    expect(j.state(P)?.index).toBe(-1);
    // A known empty row given out: exact at 0; but a member already marked unknown stays unknown.
    const k = new ReplicaVersions();
    k.rowChanged(P, [], ['A', 'K'], 'K', true);
    expect(k.matches(P, 1, 0)).toBe(true);
    const u = new ReplicaVersions();
    u.markUnknown(P);
    u.rowChanged(P, [], ['A', 'U'], 'U', true);
    expect(u.state(P)?.index).toBe(-1);
  });

  it('moving down without a copy (1 -> 2) makes the data unknown', () => {
    const b = freshReplica(1);
    b.rowChanged(P, ['O', 'B1', 'B2'], ['O', 'X', 'B1'], 'B1');
    expect(b.state(P)?.index).toBe(-1);
  });

  it('a row that does not move this member changes nothing', () => {
    const b = freshReplica(1);
    b.receive(P, 1, 1);
    b.rowChanged(P, ['O', 'B1', 'B2'], ['O', 'B1', 'X'], 'B1');
    expect(b.matches(P, 1, 1)).toBe(true);
    b.rowChanged(P, ['O', 'B1'], ['O', 'X'], 'B1'); // left: the data is dropped separately
    expect(b.matches(P, 1, 1)).toBe(true);
  });

  it('a former owner whose table is late accepts the new owner\'s next backup in sequence', () => {
    const a = freshReplica(0);
    for (let k = 0; k < 3; k++) a.stamp(P, 1);
    const d = new ReplicaVersions();
    d.install(P, 0, a.copyVersions(P));
    d.rowChanged(P, ['A', 'B'], ['D', 'A'], 'D');
    // A still thinks it owns P.
    expect(a.receive(P, 1, d.stamp(P, 1)[1]!)).toBe('apply');
    a.rowChanged(P, ['A', 'B'], ['D', 'A'], 'A');
    expect(a.matches(P, 1, d.ownerVersion(P, 1))).toBe(true);
  });
});

describe('ReplicaVersions: randomized loss, then repair by comparing', () => {
  it('whatever is lost or duplicated, a backup that matches the owner applied exactly the owner\'s operations', () => {
    const rnd = prng(4242);
    for (let run = 0; run < 200; run++) {
      const owner = freshReplica(0);
      const backup = freshReplica(1);
      const sent: number[] = [];
      let applied: number[] = [];
      const deliver = (v: number): void => {
        const verdict = backup.receive(P, 1, v);
        if (verdict !== 'stale') applied.push(v);
      };
      const ops = 1 + Math.floor(rnd() * 30);
      for (let k = 0; k < ops; k++) {
        const v = owner.stamp(P, 1)[1]!;
        sent.push(v);
        const r = rnd();
        if (r < 0.15) continue; // lost
        deliver(v);
        if (r > 0.9) deliver(v); // duplicated
        if (r > 0.95 && sent.length > 2) deliver(sent[sent.length - 2]!); // an old one resent late
      }
      const exact = backup.matches(P, 1, owner.ownerVersion(P, 1));
      if (exact) expect(applied, `run ${run}`).toEqual(sent);
      else {
        // The repair: a copy with the owner's versions.
        backup.install(P, 1, owner.copyVersions(P));
        applied = [...sent];
        expect(backup.matches(P, 1, owner.ownerVersion(P, 1))).toBe(true);
      }
    }
  });
});

describe('normalizeVersions', () => {
  it('pads, truncates and clears what is not a non-negative integer', () => {
    expect(normalizeVersions([])).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(normalizeVersions([9, 3, -1, 1.5, 2 ** 60, 4, 5, 6, 7])).toEqual([0, 3, 0, 0, 0, 4, 5]);
  });
});

describe('BackupDropper (grid.debug.drop-backups)', () => {
  const count = (fraction: number, n: number): number => {
    const d = new BackupDropper(fraction);
    let dropped = 0;
    for (let i = 0; i < n; i++) if (d.next()) dropped++;
    expect(d.dropped).toBe(dropped);
    return dropped;
  };

  it('drops that fraction, evenly spread', () => {
    expect(count(0, 1000)).toBe(0);
    expect(count(1, 1000)).toBe(1000);
    expect(count(0.1, 1000)).toBe(100);
    expect(count(0.25, 1000)).toBe(250);
    const d = new BackupDropper(0.5);
    expect([d.next(), d.next(), d.next(), d.next()]).toEqual([false, true, false, true]);
  });

  it('is inactive at 0', () => {
    expect(new BackupDropper(0).active).toBe(false);
    expect(new BackupDropper(0.01).active).toBe(true);
  });
});
