// Which member owns each of the 271 partitions (backup replicas arrive with clustering).
// Versioned so that a newer table always replaces an older one.

import { PARTITION_COUNT } from './partitioning.js';

export class PartitionTable {
  private owners: (string | undefined)[] = new Array<string | undefined>(PARTITION_COUNT).fill(undefined);
  private tableVersion = 0;

  /** Give every partition to one member: the table of a cluster of one. */
  assignAllTo(uuid: string): void {
    this.owners = new Array<string | undefined>(PARTITION_COUNT).fill(uuid);
    this.tableVersion++;
  }

  ownerOf(partitionId: number): string | undefined {
    return this.owners[partitionId];
  }

  version(): number {
    return this.tableVersion;
  }
}
