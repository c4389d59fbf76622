// A restart that cannot complete: a member of the persisted member list is gone (its directory
// deleted, never started again). With FULL_RECOVERY_ONLY the members present wait
// validation-timeout-seconds, then fail the start (exit non-zero) naming the missing member;
// started again, partialStart makes them a cluster of two with every entry (backup-count 1:
// each entry had a replica on them). forceStart during a stuck restart starts the cluster
// empty, and the member that comes back later drops its data rather than bringing it back.
// clusterShutdown during a stuck restart stops the waiting members, their data kept.

import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareEntries,
  launchMembers,
  makeEntries,
  management,
  persistentCluster,
  requestBytes,
  restartAll,
  statusOf,
  waitAllExited,
  waitNodeState,
  writeEntries,
  type PersistentCluster,
} from '../support/persistence.js';

const ALL = [0, 1, 2];

/** The directory member `i` said it started from (its log line at the first start). */
function memberDirOf(pc: PersistentCluster, i: number): string {
  for (const l of pc.c.member(i).logMessages()) {
    const m = /^persistence: (?:no persisted data in|loaded .* from) (\S+?);? /.exec(l);
    if (m) return m[1]!;
  }
  throw new Error(`member ${i} did not log its persistence directory:\n${pc.c.member(i).logMessages().join('\n')}`);
}

/** Three members with `entries` in `persisted-a`, shut down with clusterShutdown. Returns the member list before. */
async function writeAndShutDown(pc: PersistentCluster, entries: ReadonlyMap<string, { value: Buffer; contentType: string | undefined }>): Promise<{ uuid: string; address: string }[]> {
  const c = pc.c;
  await launchMembers(pc, 3);
  const members = await c.waitForMembers(3);
  await writeEntries(c.members.map((m) => m.port), 'persisted-a', entries);
  expect((await management(pc, 0, 'clusterShutdown')).json.status).toBe('success');
  expect((await waitAllExited(pc, ALL)).map((e) => e.code)).toEqual([0, 0, 0]);
  return members;
}

describe('persistence: a member of the persisted member list is missing', () => {
  it('FULL_RECOVERY_ONLY fails the start naming it; partialStart starts with the two and every entry', async () => {
    const pc = await persistentCluster({ size: 3, persistence: { 'validation-timeout-seconds': 4, 'cluster-data-recovery-policy': 'FULL_RECOVERY_ONLY' } });
    const c = pc.c;
    const entries = makeEntries('e-', 1500, 21);
    const before = await writeAndShutDown(pc, entries);
    const lost = before.find((m) => m.address === c.member(2).address)!;
    rmSync(memberDirOf(pc, 2), { recursive: true, force: true });
    expect(pc.memberDirs()).toHaveLength(2);

    // Members 0 and 1 wait, then give up with a clear reason and a non-zero exit.
    const t0 = Date.now();
    await restartAll(pc, [0, 1]);
    const exits = await waitAllExited(pc, [0, 1], 30_000);
    const tookMs = Date.now() - t0;
    for (const [k, i] of [0, 1].entries()) {
      expect(exits[k]!.code, `exit of member ${i}`).not.toBe(0);
      const failure = c.member(i).logMessages().find((l) => l.startsWith('cluster restart failed'));
      expect(failure, `member ${i} log:\n${c.member(i).logMessages().join('\n')}`).toBeDefined();
      // (The other one may have given up a moment earlier and left: then it is missing too.)
      expect(failure).toMatch(/^cluster restart failed: [12] member\(s\) of the persisted member list did not come back within validation-timeout-seconds \(4 s\): /);
      expect(failure).toContain(lost.uuid);
      expect(failure).toContain('FULL_RECOVERY_ONLY');
    }
    expect(tookMs, 'the wait is validation-timeout-seconds').toBeGreaterThanOrEqual(4_000);

    // Again, with time to call partialStart.
    pc.persistence['validation-timeout-seconds'] = 60;
    pc.rewriteConfigs();
    await restartAll(pc, [0, 1]);
    for (const i of [0, 1]) await waitNodeState(pc, i, 'STARTING');
    await c.waitForMembers(2);
    const partial = await management(pc, 1, 'partialStart');
    expect(partial.json).toEqual({ status: 'success' });
    await c.waitForMembers(2);
    await c.waitSafe(30_000, 2);

    const survivors = [0, 1].map((i) => c.member(i).uuid!);
    const table = await c.partitions(0);
    expect(table.members.map((m) => m.uuid).sort()).toEqual([...survivors].sort());
    for (const [pid, row] of table.partitions.entries()) {
      expect(row.slice(0, 2).every((u) => u !== null && survivors.includes(u)), `partition ${pid}: ${JSON.stringify(row)}`).toBe(true);
    }
    expect(await compareEntries(c.member(0).port, 'persisted-a', entries)).toEqual([]);
    expect(await compareEntries(c.member(1).port, 'persisted-a', new Map([...entries].slice(0, 300)))).toEqual([]);
    // The members kept their identities.
    for (const i of [0, 1]) expect(before.some((m) => m.uuid === c.member(i).uuid && m.address === c.member(i).address), `member ${i}`).toBe(true);
  }, 60_000);
});

describe('persistence: shutdown during a stuck restart', () => {
  it('clusterShutdown stops the waiting members (exit 0) and keeps their data for the next start', async () => {
    const pc = await persistentCluster({ size: 3, persistence: { 'validation-timeout-seconds': 60 } });
    const c = pc.c;
    const entries = makeEntries('d-', 600, 61);
    await writeAndShutDown(pc, entries);

    await restartAll(pc, [0, 1]);
    for (const i of [0, 1]) await waitNodeState(pc, i, 'STARTING');
    await c.waitForMembers(2);
    expect((await management(pc, 1, 'clusterShutdown')).json.status).toBe('success');
    const exits = await waitAllExited(pc, [0, 1], 10_000);
    expect(exits.map((e) => e.code)).toEqual([0, 0]);

    // Nothing was lost or changed by it: all three start as before.
    await restartAll(pc, ALL);
    await Promise.all(ALL.map((i) => c.waitUp(i)));
    await c.waitForMembers(3);
    await c.waitSafe();
    expect(await compareEntries(c.member(2).port, 'persisted-a', entries)).toEqual([]);
  }, 60_000);
});

describe('persistence: forceStart', () => {
  it('starts a stuck restart empty; the member that comes back later drops its data', async () => {
    const pc = await persistentCluster({ size: 3, persistence: { 'validation-timeout-seconds': 60 } });
    const c = pc.c;
    const entries = makeEntries('f-', 300, 31);
    await writeAndShutDown(pc, entries);

    await restartAll(pc, [0, 1]);
    for (const i of [0, 1]) await waitNodeState(pc, i, 'STARTING');
    await c.waitForMembers(2);
    const forced = await management(pc, 0, 'forceStart');
    expect(forced.json).toEqual({ status: 'success' });
    await c.waitSafe(30_000, 2);
    for (const key of ['f-0', 'f-1', 'f-150', 'f-299']) expect(await statusOf(c.member(0).port, 'persisted-a', key), key).toBe(204);
    expect((await requestBytes(c.member(1).port, 'POST', '/hazelcast/rest/maps/persisted-a/new', Buffer.from('n'), 'text/plain')).status).toBe(200);

    // The third member's persisted data is stale now: dropped, it joins as a new member.
    await restartAll(pc, [2]);
    await c.waitUp(2);
    await c.waitForMembers(3);
    await c.waitSafe(30_000, 3);
    expect(c.member(2).logMessages().some((l) => /persisted data is stale and was dropped; it joins as a new member/.test(l)), c.member(2).logMessages().join('\n')).toBe(true);
    for (const i of ALL) {
      for (const key of ['f-0', 'f-1', 'f-150', 'f-299']) expect(await statusOf(c.member(i).port, 'persisted-a', key), `${key} via member ${i}`).toBe(204);
      expect((await requestBytes(c.member(i).port, 'GET', '/hazelcast/rest/maps/persisted-a/new')).body.toString()).toBe('n');
    }

    // Nothing to trigger any more; no backup-dir here.
    for (const op of ['forceStart', 'partialStart']) {
      const res = await management(pc, 2, op);
      expect(res.json.status, op).toBe('fail');
      expect(res.json.message, op).toMatch(/not restarting/);
    }
    const backup = await management(pc, 1, 'backup');
    expect(backup.json.status).toBe('fail');
    expect(backup.json.message).toMatch(/backup-dir/);
    const interrupt = await management(pc, 1, 'backupInterrupt');
    expect(interrupt.json.status).toBe('fail');
    expect(typeof interrupt.json.message).toBe('string');
  }, 60_000);
});
