// When a partition may move, and what a new table means for this member. Pure rules, no I/O:
// the master decides whether a migration may start and whether its copy may be committed; the
// source decides whether it may run the copy the master ordered; every member works out what a
// changed row asks of it (stop owning, trim, keep or drop its data). PartitionService does the
// I/O around them; the unit tests drive every case.

import { GridError } from '../core/errors.js';
import type { ClusterState } from '../cluster/types.js';
import type { Replicas } from './assignment.js';

export function rowsEqual(a: Replicas, b: Replicas): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What the master may do to the table in a cluster state: ACTIVE promotes and rebalances
 * (backups re-created, joiners get partitions); NO_MIGRATION only promotes backups of dead
 * owners; FROZEN and PASSIVE change nothing.
 */
export function planMode(state: ClusterState): 'balance' | 'promote-only' | 'frozen' {
  if (state === 'ACTIVE') return 'balance';
  if (state === 'NO_MIGRATION') return 'promote-only';
  return 'frozen';
}

/** The master starts moving a partition only while its owner and every new replica are alive. */
export function migrationReady(prev: Replicas, next: Replicas, alive: (uuid: string) => boolean): boolean {
  const owner = prev[0];
  return owner !== undefined && alive(owner) && next.every(alive) && !rowsEqual(prev, next);
}

/**
 * The master commits a copied partition only if it is still master, nobody changed the row
 * meanwhile, and every new replica is still alive; otherwise the migration is called off (the
 * source takes writes again) and planned anew.
 */
export function commitAllowed(o: {
  readonly isMaster: boolean;
  readonly currentRow: Replicas;
  readonly prev: Replicas;
  readonly next: Replicas;
  readonly alive: (uuid: string) => boolean;
}): boolean {
  return o.isMaster && rowsEqual(o.currentRow, o.prev) && o.next.every(o.alive);
}

/**
 * Whether this member may run the copy the master ordered: it must own the partition, hold the
 * same row as the master's `prev` (copies are worked out from it), and not be fenced.
 */
export function sourceRefusal(pid: number, o: { readonly me: string; readonly row: Replicas; readonly prev: Replicas; readonly fenced: boolean }): GridError | undefined {
  if (o.fenced) return new GridError('STALE_VIEW', `partition ${pid}: this member is checking its membership`);
  if (o.row[0] !== o.me) return new GridError('WRONG_TARGET', `partition ${pid} is not owned here`);
  if (!rowsEqual(o.row, o.prev)) return new GridError('WRONG_TARGET', `partition ${pid}: this member's table is out of date`);
  return undefined;
}

export interface ReplicaChange {
  /** This member owned the partition and no longer does: waiting work goes to the new owner. */
  readonly ownershipLost: boolean;
  /** This member moved down the row to this replica index: forget structures with fewer replicas. */
  readonly trimTo: number | undefined;
  /** This member holds a replica in the new row. */
  readonly holds: boolean;
  /** This member held one before and holds none now. */
  readonly released: boolean;
}

/** What a changed row of the partition table asks of member `me`. */
export function replicaChange(before: Replicas, after: Replicas, me: string): ReplicaChange {
  const was = before.indexOf(me);
  const is = after.indexOf(me);
  return {
    ownershipLost: was === 0 && is !== 0,
    trimTo: was !== -1 && is > was ? is : undefined,
    holds: is !== -1,
    released: was !== -1 && is === -1,
  };
}

/**
 * Data that arrived for a migration not (yet) committed is kept for `ttlMs` (its commit may
 * still come), then dropped when the table does not give this member the partition.
 */
export function dropUncommitted(arrivedAt: number | undefined, nowMs: number, ttlMs: number): boolean {
  return arrivedAt === undefined || nowMs - arrivedAt > ttlMs;
}
