// The cluster-wide list of queues with their sizes (GET /grid/rest/queues): each partition's
// owner names the queues it holds in that partition (a queue lives in its name's partition),
// so every queue is counted once, at its owner, whatever migrates.

import type { Operation } from '../invocation/invoker.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { QueueRegistry } from './queue-registry.js';

/** The queues this member holds in partition `pid` (as its owner), with their sizes. */
export function queueNamesOp(reg: QueueRegistry, pid: number): Operation<[string, number][]> {
  return {
    name: 'queue.names',
    service: 'queue',
    type: 'names',
    mutating: false,
    // The handler reads a queue name first: the empty name stands for none.
    args: [''],
    run: (): [string, number][] => {
      const out: [string, number][] = [];
      for (const [name, e] of reg.queues) if (e.partitionId === pid) out.push([name, e.queue.size]);
      return out;
    },
  };
}

/** Every queue of the cluster with its size, by name. */
export async function queueNames(reg: QueueRegistry): Promise<{ name: string; size: number }[]> {
  const all: Promise<[string, number][]>[] = [];
  for (let pid = 0; pid < PARTITION_COUNT; pid++) all.push(Promise.resolve(reg.deps.invoker.invoke(pid, queueNamesOp(reg, pid))));
  const out: { name: string; size: number }[] = [];
  for (const part of await Promise.all(all)) for (const [name, size] of part) out.push({ name, size });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function encodeQueueNames(names: [string, number][]): WireValue {
  const out: WireValue[] = [];
  for (const [n, size] of names) out.push(n, size);
  return out;
}

export function decodeQueueNames(w: WireValue): [string, number][] {
  const t = f.tuple(w, 'queue names');
  const out: [string, number][] = [];
  for (let i = 0; i + 1 < t.length; i += 2) out.push([f.str(t, i, 'queue name'), f.int(t, i + 1, 'size')]);
  return out;
}
