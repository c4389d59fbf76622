// A member stopped while the others ran on (and took writes) comes back with stale data. With
// auto-remove-stale-data false it refuses to join, saying what to delete; with true (the
// default) it drops its data and joins as a new member. Either way the cluster's data is what
// it was written last: nothing comes back from the stale copy (not removed entries, not old
// values).

import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/process.js';
import { compareEntries, launchMembers, makeEntries, persistentCluster, requestBytes, restartAll, statusOf, writeEntries, type Entry } from '../support/persistence.js';

const MAP = 'persisted-s';

describe('persistence: a stale member rejoins', () => {
  it('refuses with auto-remove-stale-data false; drops its data and joins as new with true', async () => {
    const pc = await persistentCluster({ size: 3 });
    const c = pc.c;
    await launchMembers(pc, 3);
    const expected = makeEntries('s-', 800, 51);
    await writeEntries(c.members.map((m) => m.port), MAP, expected);

    // Member 2 stops; the others run on and change the data.
    const stopped = await c.stop(2);
    expect(stopped.code).toBe(0);
    await c.waitForMembers(2);
    await c.waitSafe(30_000, 2);
    const twoPorts = [c.member(0).port, c.member(1).port];
    const added = makeEntries('t-', 300, 52);
    await writeEntries(twoPorts, MAP, added);
    const changed = makeEntries('s-', 200, 53);
    await writeEntries(twoPorts, MAP, changed);
    const removed: string[] = [];
    for (let i = 200; i < 300; i++) {
      expect((await requestBytes(twoPorts[i % 2]!, 'DELETE', `/hazelcast/rest/maps/${MAP}/s-${i}`)).status).toBe(200);
      removed.push(`s-${i}`);
      expected.delete(`s-${i}`);
    }
    const all = new Map<string, Entry>([...expected, ...added, ...changed]);

    // auto-remove-stale-data false: it refuses, naming its directory.
    pc.persistence['auto-remove-stale-data'] = false;
    pc.rewriteConfigs();
    await restartAll(pc, [2]);
    const exit = await c.waitExit(2, 30_000);
    // Its start fails: exit 1 with the reason on stderr (and once in its log).
    expect(exit.code, c.member(2).output()).toBe(1);
    const refusals = c.member(2).logMessages().filter((l) => l.includes("this member's data is stale"));
    expect(refusals, c.member(2).logMessages().join('\n')).toHaveLength(1);
    expect(refusals[0]).toMatch(/auto-remove-stale-data is false: delete \S+ to join as a new member/);
    expect(c.member(2).process.stderr()).toMatch(/this member's data is stale .* auto-remove-stale-data is false/);
    await c.waitForMembers(2, undefined, 30_000, [0, 1]);

    // auto-remove-stale-data true: it drops its data and joins as a new member.
    pc.persistence['auto-remove-stale-data'] = true;
    pc.rewriteConfigs();
    await restartAll(pc, [2]);
    await c.waitUp(2);
    await c.waitForMembers(3);
    await c.waitSafe(30_000, 3);
    await waitFor('the stale member to say it dropped its data', () =>
      c.member(2).logMessages().some((l) => /persisted data is stale and was dropped; it joins as a new member/.test(l)),
    );
    // It holds partitions again (owner or backup) — as a new member, from the others' copies.
    const table = await c.partitions(2);
    const mine = table.members.find((m) => m.uuid === c.member(2).uuid);
    expect((mine?.owned ?? 0) + (mine?.backups ?? 0)).toBeGreaterThan(0);

    for (const i of [2, 0]) expect(await compareEntries(c.member(i).port, MAP, all), `through member ${i}`).toEqual([]);
    for (const key of removed) expect(await statusOf(c.member(2).port, MAP, key), key).toBe(204);
  }, 60_000);
});
