// Anti-entropy bookkeeping, pure: per partition, the owner's count of backup operations sent
// to each replica index, and on a backup, which index its data is exact for and the owner's
// count it is at. Backups are compared with the owner by these numbers alone (the owner's
// round, or a version that jumps on a backup); a replica that differs asks for a copy.
// Hazelcast's PartitionReplicaVersions is the model. No I/O, no timers: replica-sync.ts is the shell.

import { PARTITION_COUNT } from './partitioning.js';

/** Owner + at most 6 backups. */
export const MAX_REPLICAS = 7;

/** This member's standing in one partition. */
export interface ReplicaState {
  /** The replica index this member's data is exact for (0 = owner), or -1: unknown until a copy arrives. */
  index: number;
  /** The owner's counters as of this member's data: `versions[i]` = backup operations sent to replica i ([0] unused). */
  versions: number[];
}

/** What a backup does with a backup operation, by its version. */
export type BackupVerdict =
  /** The next one in sequence: apply it, the copy stays exact. */
  | 'apply'
  /** Already applied (a resend after a broken connection): skip it. */
  | 'stale'
  /** Not in sequence (a lost one before it, another index, an unknown copy): apply it, but the copy is no longer exact: ask for a full one. */
  | 'gap';

function zeros(): number[] {
  return new Array<number>(MAX_REPLICAS).fill(0);
}

/** A versions vector read off the wire: MAX_REPLICAS non-negative integers, missing ones 0. */
export function normalizeVersions(v: readonly number[]): number[] {
  const out = zeros();
  for (let i = 1; i < MAX_REPLICAS && i < v.length; i++) {
    const x = v[i]!;
    out[i] = Number.isSafeInteger(x) && x > 0 ? x : 0;
  }
  return out;
}

export class ReplicaVersions {
  private readonly states: (ReplicaState | undefined)[] = new Array<ReplicaState | undefined>(PARTITION_COUNT).fill(undefined);

  state(partitionId: number): Readonly<ReplicaState> | undefined {
    return this.states[partitionId];
  }

  /**
   * Owner: count one backup operation sent to replicas 1..`last`. Returns the live counters
   * (read `[i]` for the version that replica i gets; do not keep the array).
   */
  stamp(partitionId: number, last: number): readonly number[] {
    const s = this.asOwner(partitionId);
    for (let i = 1; i <= last && i < MAX_REPLICAS; i++) s.versions[i]!++;
    return s.versions;
  }

  /** Owner: the counter of replica `index`. */
  ownerVersion(partitionId: number, index: number): number {
    return this.asOwner(partitionId).versions[index] ?? 0;
  }

  /** Owner: a copy of the counters, taken in the same synchronous step as the snapshot they go with. */
  copyVersions(partitionId: number): number[] {
    return [...this.asOwner(partitionId).versions];
  }

  private asOwner(partitionId: number): ReplicaState {
    let s = this.states[partitionId];
    if (s === undefined) this.states[partitionId] = s = { index: 0, versions: zeros() };
    // The table makes this member the owner: its data is the partition's truth from now on.
    s.index = 0;
    return s;
  }

  /** Backup: a backup operation the owner sent to replica `index` as its `version`-th for that index. */
  receive(partitionId: number, index: number, version: number): BackupVerdict {
    const s = this.states[partitionId];
    if (s !== undefined && index >= 1 && index < MAX_REPLICAS) {
      const have = s.versions[index]!;
      // A former owner (its table not updated yet) holds the owner's data at its own counters.
      if ((s.index === index || s.index === 0) && version === have + 1) {
        s.index = index;
        s.versions[index] = version;
        return 'apply';
      }
      if (s.index === index && version <= have) return 'stale';
    }
    this.markUnknown(partitionId);
    return 'gap';
  }

  /** Backup: whether this member's data is exact for replica `index` at the owner's `version`. */
  matches(partitionId: number, index: number, version: number): boolean {
    const s = this.states[partitionId];
    return s !== undefined && s.index === index && s.versions[index] === version;
  }

  /** A full copy for replica `index`, with the owner's counters at the moment it was taken. */
  install(partitionId: number, index: number, versions: readonly number[]): void {
    this.states[partitionId] = { index, versions: normalizeVersions(versions) };
  }

  markUnknown(partitionId: number): void {
    const s = this.states[partitionId];
    if (s === undefined) this.states[partitionId] = { index: -1, versions: zeros() };
    else s.index = -1;
  }

  /** This member's data of the partition is gone. */
  drop(partitionId: number): void {
    this.states[partitionId] = undefined;
  }

  /**
   * A new table changed the partition's row from `before` to `after`. Where this member's
   * place changed without a copy, what its data is exact for follows from how it got there.
   * `knewBefore`: `before` is a table this member had (not the empty one of a member that has
   * just joined, which says nothing about the partition).
   */
  rowChanged(partitionId: number, before: readonly string[], after: readonly string[], me: string, knewBefore = true): void {
    const was = before.indexOf(me);
    const now = after.indexOf(me);
    if (now === -1 || now === was) return;
    const s = this.states[partitionId];
    if (now === 0) {
      // Promoted (it continues from its counters) or handed the partition with a copy for index 0.
      this.asOwner(partitionId);
      return;
    }
    // A copy for this very place arrived before the table that commits it.
    if (s !== undefined && s.index === now) return;
    // A former owner stays on as a backup: its data is the owner's at its own counters (the new
    // owner got a copy of both, taken together while writes waited).
    if (was === 0 && s !== undefined && s.index === 0) {
      s.index = now;
      return;
    }
    // A partition nobody held is given out empty: every replica starts at 0, like its owner.
    if (before.length === 0 && knewBefore && s === undefined) {
      this.states[partitionId] = { index: now, versions: zeros() };
      return;
    }
    // Moved up after a promotion, or down without a copy: it lacks (or has extra) structures
    // for its new place. Unknown until a copy arrives.
    this.markUnknown(partitionId);
  }
}

/**
 * Partitions a backup asks its owner for after the owner's round: those listed for this
 * member whose data is not exact at the owner's version. `entries` are [partitionId, index, version].
 */
export function partitionsToSync(versions: ReplicaVersions, entries: readonly (readonly [number, number, number])[]): number[] {
  const out: number[] = [];
  for (const [pid, index, version] of entries) if (!versions.matches(pid, index, version)) out.push(pid);
  return out;
}

/** grid.debug.drop-backups (tests only): lives with the other test-only switches behind their seam. */
export { BackupDropper } from '../core/test-hooks.js';
