// Members of different clusters (different cluster-name) never join, even when each lists
// the other's address.

import { describe, expect, it } from 'vitest';
import { holdsFor, startCluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

describe('cluster names', () => {
  it('keeps members of different clusters apart even when they list each other', async () => {
    const c = await startCluster({ size: 2, spare: 0, wait: 'up', config: (i) => ({ 'cluster-name': i === 0 ? 'alpha' : 'beta' }) });
    // A negative cannot be polled for; wait for both sides to log the refusal (a line naming
    // the cluster name), or for 3 s (three heartbeat periods), whichever comes first. Then
    // check for 2 more seconds that neither lists the other.
    const upAt = Date.now();
    const refusal = (i: number): boolean => c.member(i).logMessages().some((msg) => /cluster[ -]?name/i.test(msg));
    await waitFor('a refusal logged by both members, or 3 s', () => (refusal(0) && refusal(1)) || Date.now() - upAt >= 3_000, 5_000, 50);
    await holdsFor('each member listing only itself', 2_000, async () => {
      for (const m of c.members) {
        const info = await c.clusterInfo(m.index);
        const health = await c.health(m.index);
        if (info.members.length !== 1 || info.members[0]?.uuid !== m.uuid || health.clusterSize !== 1) {
          return `member ${m.index} lists ${info.members.map((x) => c.nameOf(x.uuid)).join(', ')} (clusterSize ${health.clusterSize})`;
        }
      }
      return undefined;
    });
    for (const m of c.members) expect(m.status).toBe('running');
  }, 30_000);
});
