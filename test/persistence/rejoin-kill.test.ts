// Members that restart while the rest of the cluster runs on have stale data: they delete it,
// join as new members and receive partitions by migration. Then every member is killed at once
// and the cluster restarted from disk: every acknowledged entry must come back. Checked twice:
// on disk before the restart (every member that its member.json names as a replica of a
// partition has that partition's entries in its log: the ordering guarantee in
// docs/persistence.md) and through REST after it. One cluster, two rounds: one member
// rejoining, then two members killed together and rejoining together (with backup-count 1 a
// documented loss: exactly what the running cluster lost at the kill is missing after the
// restart, nothing more).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodePersistedEntry } from '../../src/map/map-service.js';
import { LogOp, parseLog } from '../../src/persistence/log-format.js';
import { partitionIdOf } from '../../src/partition/partitioning.js';
import { compareEntries, killAllAtOnce, launchMembers, makeEntries, persistentCluster, restartAll, writeEntries, type Entry, type PersistentCluster } from '../support/persistence.js';

const MAP = 'persisted-rejoin';

/**
 * What the members' directories claim and hold, read offline while every member is down: for
 * each member whose member.json names it a replica of a key's partition, its log (every segment
 * replayed in order) must hold that key with the acknowledged bytes and Content-Type.
 */
function diskProblems(pc: PersistentCluster, expected: ReadonlyMap<string, Entry>): string[] {
  const problems: string[] = [];
  const versions = new Set<number>();
  const owners = new Set<string>();
  for (const dir of pc.memberDirs()) {
    const state = JSON.parse(readFileSync(join(dir, 'member.json'), 'utf8')) as { uuid: string; address: string; partitionTableVersion: number; partitions: string[][] };
    versions.add(state.partitionTableVersion);
    owners.add(state.uuid);
    const held = new Map<number, Map<string, { value: string; contentType: string | undefined }>>();
    const segments = readdirSync(dir)
      .filter((n) => /^seg-\d{8}\.log$/.test(n))
      .sort();
    for (const seg of segments) {
      for (const r of parseLog(readFileSync(join(dir, seg)), seg).records) {
        if (r.op === LogOp.DropPartition) {
          held.delete(r.partitionId);
          continue;
        }
        if (r.service !== 'map' || r.name !== MAP) continue;
        let p = held.get(r.partitionId);
        if (p === undefined) held.set(r.partitionId, (p = new Map()));
        if (r.op === LogOp.Put) {
          const e = decodePersistedEntry(r.value);
          p.set(r.key, { value: e.value, contentType: e.contentType });
        } else if (r.op === LogOp.Remove) p.delete(r.key);
        else p.clear();
      }
    }
    let claimed = 0;
    let missing = 0;
    let example = '';
    for (const [key, e] of expected) {
      const pid = partitionIdOf(key);
      if (!(state.partitions[pid] ?? []).includes(state.uuid)) continue;
      claimed++;
      const got = held.get(pid)?.get(key);
      if (got === undefined || got.value !== e.value.toString('latin1') || got.contentType !== e.contentType) {
        missing++;
        example ||= `${key} (partition ${pid}): ${got === undefined ? 'not in the log' : 'other bytes or Content-Type'}`;
      }
    }
    if (missing > 0) problems.push(`${dir}: member.json names it a replica of ${claimed} of the entries, ${missing} of them are not in its log, e.g. ${example}`);
  }
  // One directory per member (members that started together once shared one: one log for two).
  if (owners.size !== 3 || pc.memberDirs().length !== 3) problems.push(`${pc.memberDirs().length} member directories for ${owners.size} members`);
  if (versions.size !== 1) problems.push(`the members' persisted partition tables differ: versions ${[...versions].join(', ')}`);
  return problems;
}

describe('persistence: stale members rejoin, then every member is killed at once', () => {
  it('every acknowledged entry is in the log of each replica member.json names, and back after the restart', async () => {
    const pc = await persistentCluster({ size: 3 });
    const c = pc.c;
    await launchMembers(pc, 3);
    const entries = makeEntries('r', 300, 11);
    await writeEntries(c.members.map((m) => m.port), MAP, entries);

    // Round 1: one member (not the master) rejoins.
    await c.kill(1);
    await c.waitSafe(30_000, 2);
    await c.restart(1, { wait: 'none' });
    await c.waitUp(1, 60_000);
    await c.waitSafe(60_000, 3);
    expect(await compareEntries(c.member(0).port, MAP, entries), 'before the kill, after 1 rejoined').toEqual([]);
    await killAllAtOnce(pc, [0, 1, 2]);
    expect(diskProblems(pc, entries), 'on disk, after 1 rejoined').toEqual([]);
    await restartAll(pc, [0, 1, 2]);
    await Promise.all([0, 1, 2].map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000, 3);
    for (const i of [0, 1, 2]) expect(await compareEntries(c.member(i).port, MAP, entries), `through member ${i} after the restart`).toEqual([]);

    // Round 2: two members killed together. With backup-count 1 the partitions they shared are
    // lost in the running cluster (clustering.md), and their disks' copies are deleted as stale
    // when they rejoin (persistence.md, Stale data). Persistence loses nothing beyond that:
    // exactly the entries missing right after the kill are missing after the full restart.
    await killAllAtOnce(pc, [1, 2]);
    await c.waitSafe(30_000, 1);
    const lostAtKill = new Set((await compareEntries(c.member(0).port, MAP, entries)).map((line) => line.slice(0, line.indexOf(':'))));
    expect(lostAtKill.size, 'entries whose partitions had both replicas on members 1 and 2').toBeGreaterThan(0);
    const kept = new Map([...entries].filter(([key]) => !lostAtKill.has(key)));
    await restartAll(pc, [1, 2]);
    await Promise.all([1, 2].map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000, 3);
    await killAllAtOnce(pc, [0, 1, 2]);
    expect(diskProblems(pc, kept), 'on disk, after 1 and 2 rejoined together').toEqual([]);
    await restartAll(pc, [0, 1, 2]);
    await Promise.all([0, 1, 2].map((i) => c.waitUp(i, 60_000)));
    await c.waitSafe(60_000, 3);
    const missing = (await compareEntries(c.member(0).port, MAP, entries)).map((line) => line.slice(0, line.indexOf(':')));
    expect(new Set(missing)).toEqual(lostAtKill);
  }, 180_000);
});
