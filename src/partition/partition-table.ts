// Which members hold each of the 271 partitions: index 0 is the owner, then the backups in
// order. Versioned so that a newer table always replaces an older one. Only the master
// writes a new version; everyone else applies what the master pushes.

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
