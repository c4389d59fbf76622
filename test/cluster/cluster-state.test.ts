// Cluster states changed through one member of 3 hold on every member: PASSIVE refuses
// writes everywhere and keeps reads; FROZEN admits no new member and moves no partition.

import { describe, expect, it } from 'vitest';
import { holdsFor, startCluster, type Cluster, type HttpResponse } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

/** The body as JSON, or as the raw text when it is not JSON (so a failure shows what came). */
function bodyOf(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    return res.body;
  }
}

async function stateOf(c: Cluster, i: number): Promise<unknown> {
  const res = await c.management(i, 'state');
  expect(res.status, res.body).toBe(200);
  return bodyOf(res);
}

async function changeState(c: Cluster, i: number, state: string): Promise<void> {
  const res = await c.management(i, 'changeState', `dev&&${state}`);
  expect({ status: res.status, body: bodyOf(res) }).toEqual({ status: 200, body: { status: 'success', state } });
  for (const m of c.live()) {
    expect(await stateOf(c, m.index), `state on member ${m.index}`).toEqual({ status: 'success', state });
    expect((await c.health(m.index)).clusterState, `health on member ${m.index}`).toBe(state.toUpperCase());
  }
}

describe('cluster states across members', () => {
  it('PASSIVE refuses writes on every member and keeps reads; FROZEN admits no member and moves no partition', async () => {
    const c = await startCluster({ size: 3 });
    const original = c.members.slice();
    const uuids = original.map((m) => m.uuid).sort();
    expect((await c.http(0, 'POST', '/hazelcast/rest/maps/states/a', 'before')).status).toBe(200);
    expect((await c.http(1, 'POST', '/hazelcast/rest/queues/states', 'one')).status).toBe(200);

    // PASSIVE
    await changeState(c, 1, 'passive');
    for (const m of original) {
      const put = await c.http(m.index, 'POST', `/hazelcast/rest/maps/states/m${m.index}`, 'x');
      expect(put.status, `map put through member ${m.index}: ${put.body}`).toBe(503);
      const put2 = await c.http(m.index, 'POST', '/hazelcast/rest/maps/states/a', 'overwritten');
      expect(put2.status, `map put of an existing key through member ${m.index}`).toBe(503);
      const offer = await c.http(m.index, 'POST', '/hazelcast/rest/queues/states', 'two');
      expect(offer.status, `queue offer through member ${m.index}: ${offer.body}`).toBe(503);
      expect(await c.http(m.index, 'GET', '/hazelcast/rest/maps/states/a')).toMatchObject({ status: 200, body: 'before' });
      expect(await c.http(m.index, 'GET', '/hazelcast/rest/queues/states/size')).toMatchObject({ status: 200, body: '1' });
    }

    await changeState(c, 2, 'active');
    for (const m of original) expect((await c.http(m.index, 'POST', `/hazelcast/rest/maps/states/m${m.index}`, 'y')).status).toBe(200);

    // FROZEN
    const before = await Promise.all(original.map((m) => c.partitions(m.index)));
    for (const t of before) expect(t.partitions).toEqual(before[0]!.partitions);
    await changeState(c, 0, 'frozen');
    // Data operations go on while FROZEN (Hazelcast's meaning).
    for (const m of original) expect((await c.http(m.index, 'POST', `/hazelcast/rest/maps/states/f${m.index}`, 'z')).status).toBe(200);

    const newcomer = await c.addMember({ wait: 'none' });
    // It either gives up and exits, or runs on its own: either way its join attempt is over
    // once it exited or answers REST (REST starts after the join phase).
    await waitFor(
      'the newcomer to exit or answer REST',
      async () => newcomer.status !== 'running' || (await c.clusterInfo(newcomer.index).then(() => true)),
      30_000,
      100,
    );
    await holdsFor('the 3 members listing exactly themselves, with the same partition table', 3_000, async () => {
      for (const m of original) {
        const info = await c.clusterInfo(m.index);
        const listed = info.members.map((x) => x.uuid).sort();
        if (JSON.stringify(listed) !== JSON.stringify(uuids) || info.members.some((x) => x.address === newcomer.address)) {
          return `member ${m.index} lists ${info.members.map((x) => `${x.address} ${c.nameOf(x.uuid)}`).join(', ')}`;
        }
        const t = await c.partitions(m.index);
        if (JSON.stringify(t.partitions) !== JSON.stringify(before[0]!.partitions)) {
          return `the partition table on member ${m.index} changed (version ${before[0]!.version} -> ${t.version})`;
        }
      }
      return undefined;
    });
    for (const m of original) expect(await stateOf(c, m.index)).toEqual({ status: 'success', state: 'frozen' });
  }, 90_000);
});
