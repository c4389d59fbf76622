// Operations run where their partition's owner is. On a cluster of one that is always here;
// the invoker still checks what every invocation must respect: a member that is shutting
// down serves nothing, a PASSIVE cluster refuses writes, a partition needs an owner.

import { GridError } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { ClusterView } from '../cluster/cluster-service.js';
import type { PartitionTable } from '../partition/partition-table.js';

export interface Operation<T> {
  /** For messages: `map.put`, `queue.offer`, ... */
  readonly name: string;
  /** Writes are refused while the cluster is PASSIVE. */
  readonly mutating: boolean;
  run(): T;
}

export interface Invoker {
  /** The operation's result: synchronous when it ran here, a promise when it ran elsewhere. Errors may be thrown. */
  invoke<T>(partitionId: number, op: Operation<T>): MaybePromise<T>;
}

export class LocalInvoker implements Invoker {
  private readonly cluster: ClusterView;
  private readonly partitions: PartitionTable;

  constructor(deps: { cluster: ClusterView; partitions: PartitionTable }) {
    this.cluster = deps.cluster;
    this.partitions = deps.partitions;
  }

  invoke<T>(partitionId: number, op: Operation<T>): T {
    const nodeState = this.cluster.nodeState();
    if (nodeState === 'SHUTTING_DOWN' || nodeState === 'SHUT_DOWN') {
      throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    }
    if (op.mutating && this.cluster.state() === 'PASSIVE') {
      throw new GridError('CLUSTER_PASSIVE', `cluster is PASSIVE: ${op.name} refused`);
    }
    const owner = this.partitions.ownerOf(partitionId);
    if (owner === undefined) {
      throw new GridError('PARTITION_UNAVAILABLE', `partition ${partitionId} has no owner`);
    }
    if (owner !== this.cluster.localMember().uuid) {
      throw new GridError('PARTITION_UNAVAILABLE', `partition ${partitionId} is owned by unreachable member ${owner}`);
    }
    return op.run();
  }
}
