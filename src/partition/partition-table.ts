// Which members hold each of the 271 partitions: index 0 is the owner, then the backups in
// order. Versioned so that a newer table always replaces an older one. Only the master
// writes a new version; everyone else applies what the master pushes.

import { GridError } from '../core/errors.js';
import { admitPartitionWrite } from '../cluster/member-rules.js';
import { PARTITION_COUNT } from './partitioning.js';
import type { Replicas, Table } from './assignment.js';

const EMPTY: Replicas = Object.freeze([]) as Replicas;

export class PartitionTable {
  private rows: Replicas[] = new Array<Replicas>(PARTITION_COUNT).fill(EMPTY);
  private tableVersion = 0;

  /** Give every partition to one member: the table of a cluster of one. */
  assignAllTo(uuid: string): void {
    this.set(new Array<Replicas>(PARTITION_COUNT).fill(Object.freeze([uuid])), this.tableVersion + 1);
  }

  ownerOf(partitionId: number): string | undefined {
    return this.rows[partitionId]?.[0];
  }

  replicas(partitionId: number): Replicas {
    return this.rows[partitionId] ?? EMPTY;
  }

  version(): number {
    return this.tableVersion;
  }

  snapshot(): Table {
    return this.rows;
  }

  set(rows: readonly Replicas[], version: number): void {
    this.rows = rows.map((r) => Object.freeze([...r]));
    this.tableVersion = version;
  }

  /** Replace one partition's replicas under a new version (the master's migration commit). */
  setRow(partitionId: number, replicas: Replicas, version: number): void {
    const next = [...this.rows];
    next[partitionId] = Object.freeze([...replicas]);
    this.rows = next;
    this.tableVersion = version;
  }
}

/**
 * The one check before a member applies a write another member sends for a partition (a
 * backup, a migration copy, an anti-entropy copy): the partition exists, and by this member's
 * table (or the sender's newer one) the sender owns it. Throws the refusal.
 */
export function checkPartitionWriteFrom(what: string, partitionId: number, sender: string, stamp: number | undefined, table: Pick<PartitionTable, 'version' | 'ownerOf'>): void {
  if (partitionId < 0 || partitionId >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${partitionId}`);
  const refusal = admitPartitionWrite(what, partitionId, sender, stamp, { version: table.version(), owner: table.ownerOf(partitionId) });
  if (refusal !== undefined) throw refusal;
}
