// A member that stops answering without its process dying (SIGSTOP: a frozen VM, a long GC
// pause) is removed after hazelcast.max.no.heartbeat.seconds; when it comes back it learns it
// was removed and stops. It never takes the cluster over, even when it was the master.

import { expect, it } from 'vitest';
import { startCluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

for (const victimIsMaster of [true, false]) {
  it(`a paused ${victimIsMaster ? 'master' : 'member'} is removed, stops when it resumes, and the others keep every entry`, async () => {
    const c = await startCluster({ size: 3 });
    const list = await c.waitForMembers(3);
    await c.waitSafe();
    const victim = c.byUuid(list[victimIsMaster ? 0 : 2]!.uuid);
    const others = c.members.filter((m) => m !== victim);
    for (let i = 0; i < 50; i++) expect((await c.http(others[0]!.index, 'POST', `/hazelcast/rest/maps/m/k${i}`, `v${i}`)).status).toBe(200);

    victim.process.child.kill('SIGSTOP');
    // Removed by the others once silent for max-no-heartbeat (5 s in the harness).
    await waitFor(
      'the others to drop the paused member',
      async () => {
        for (const o of others) if ((await c.clusterInfo(o.index)).members.length !== 2) return false;
        return true;
      },
      20_000,
      200,
    );
    victim.process.child.kill('SIGCONT');
    const exit = await c.waitExit(victim.index, 20_000);
    expect(exit.code).toBe(0);
    expect(victim.logMessages().some((l) => l.includes('removed this member from the cluster'))).toBe(true);

    await c.waitSafe(30_000, 2);
    for (const o of others) {
      const info = await c.clusterInfo(o.index);
      expect(info.members.map((m) => m.uuid).sort()).toEqual(others.map((m) => m.uuid).sort());
      for (let i = 0; i < 50; i++) expect((await c.http(o.index, 'GET', `/hazelcast/rest/maps/m/k${i}`)).body).toBe(`v${i}`);
    }
  }, 90_000);
}
