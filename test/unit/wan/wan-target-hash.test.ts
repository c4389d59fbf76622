// A Merkle consistency check compares one partition's keys on both sides: between clusters
// that place keys by different partition hash versions it cannot mean anything, so the target
// refuses it with a reason (the source does the same before it asks: wan-sync-jobs.ts).

import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { encodeWanMerkle } from '../../../src/protocol/wan-payloads.js';
import { WanTarget } from '../../../src/wan/wan-target.js';

const deps = { maps: { configOf: () => ({ merkleTree: { enabled: false } }) } };
const target = new WanTarget(deps as never, 'B');
const query = encodeWanMerkle({ mapName: 'm', partitionId: 3, level: 2 });

function thrown(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError) return e;
    throw e;
  }
  throw new Error('expected a GridError');
}

describe('WanTarget: Merkle queries across partition hash versions', () => {
  it('refuses a query from a source of an older Grid (hash version 1), naming both versions and what works instead', () => {
    const e = thrown(() => target.onMerkle(query, { wanPartitionHash: 1, wanCluster: 'A' } as never));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe(
      `the source cluster "A" places keys by partition hash version 1 (Grid before Hazelcast's partition hash), this member by version 2 (Hazelcast's partition hash): a key would be looked for in the wrong partition. ` +
        "A Merkle tree covers one partition's keys, and the two clusters put different keys in a partition, so a consistency check cannot compare them; " +
        'WAN replication and a full WAN sync work between them (a target places every key itself)',
    );
  });

  it('answers a source of the same version (here: on to the map, which has no Merkle tree)', () => {
    const e = thrown(() => target.onMerkle(query, { wanPartitionHash: 2, wanCluster: 'A' } as never));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'map "m" has no merkle-tree enabled on cluster "B"']);
  });
});
