// Backups: POST backup while a writer runs makes every member copy its persisted data into
// backup-dir/backup-<seq>/<member dir>; a new cluster whose base-dir is a copy of that backup
// starts with every entry acknowledged before the backup call, and nothing that was never
// written. hotBackup / hotBackupInterrupt are the deprecated names (Deprecation and Warning
// headers). Without backup-dir, backup answers fail (see recovery.test.ts).

import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWriteLoad } from '../support/cluster.js';
import { waitFor } from '../support/process.js';
import {
  compareEntries,
  launchMembers,
  makeEntries,
  management,
  persistentCluster,
  requestBytes,
  restartAll,
  tempDir,
  waitAllExited,
  writeEntries,
  type PersistentCluster,
} from '../support/persistence.js';

const ALL = [0, 1, 2];
const MAP = 'persisted-bk';

/** Waits until every member of `indexes` logged that backup `n` (its n-th, from 1) was written; returns the backup's directory names. */
async function backupsWritten(pc: PersistentCluster, indexes: readonly number[], n: number): Promise<string[]> {
  return waitFor(
    `members ${indexes.join(', ')} to log backup number ${n} as written`,
    () => {
      const dirs = indexes.map((i) => pc.c.member(i).logMessages().filter((l) => l.startsWith('persistence: backup ') && l.includes(' written to '))[n - 1]);
      if (dirs.some((d) => d === undefined)) return false;
      return dirs.map((d) => /written to (\S+) /.exec(d!)![1]!);
    },
    20_000,
    50,
  );
}

describe('persistence: backup', () => {
  it('copies consistent data while writes go on; a cluster started from the copy has everything acknowledged before', async () => {
    const backupDir = tempDir('backups');
    const pc = await persistentCluster({ size: 3, persistence: { 'backup-dir': backupDir } });
    const c = pc.c;
    await launchMembers(pc, 3);
    const members = await c.waitForMembers(3);
    const entries = makeEntries('b-', 1000, 41);
    await writeEntries(c.members.map((m) => m.port), MAP, entries);

    let turn = 0;
    const load = startWriteLoad(c, { through: () => turn++ % 3, map: MAP, prefix: 'w', concurrency: 6 });
    await load.waitForAcks(300);
    const ackedBefore = new Map(load.acked);
    const backup = await management(pc, 1, 'backup');
    expect(backup.json).toEqual({ status: 'success' });
    expect(backup.headers.deprecation).toBeUndefined();
    await load.waitForAcks(300);
    const dirs = await backupsWritten(pc, ALL, 1);
    await load.waitForAcks(100);
    await load.stop();
    expect(load.statusCounts()).toEqual({ 200: load.records.length });

    // One backup-<seq> directory, a member directory per member.
    const seqDirs = readdirSync(backupDir);
    expect(seqDirs).toHaveLength(1);
    expect(seqDirs[0]).toMatch(/^backup-\d+$/);
    for (const d of dirs) expect(d.startsWith(join(backupDir, seqDirs[0]!))).toBe(true);
    expect(readdirSync(join(backupDir, seqDirs[0]!))).toHaveLength(3);

    // The deprecated names answer as Hazelcast does, with the headers.
    const hot = await management(pc, 0, 'hotBackup');
    expect(hot.json).toEqual({ status: 'success' });
    expect(hot.headers.deprecation).toBe('true');
    expect(hot.headers.warning).toMatch(/^299 - "Deprecated API: use \/hazelcast\/rest\/management\/cluster\/backup instead"$/);
    await backupsWritten(pc, ALL, 2);
    const hotInterrupt = await management(pc, 0, 'hotBackupInterrupt');
    expect(hotInterrupt.json).toEqual({ status: 'fail', message: 'no backup is running' });
    expect(hotInterrupt.headers.deprecation).toBe('true');
    expect(hotInterrupt.headers.warning).toMatch(/backupInterrupt instead/);
    expect(readdirSync(backupDir)).toHaveLength(2);

    expect((await management(pc, 0, 'clusterShutdown')).json.status).toBe('success');
    await waitAllExited(pc, ALL);

    // A new cluster from the first backup: a fresh base-dir holding a copy of it.
    const restored = tempDir('restored');
    cpSync(join(backupDir, seqDirs[0]!), restored, { recursive: true });
    pc.persistence['base-dir'] = restored;
    pc.rewriteConfigs();
    await restartAll(pc, ALL);
    await Promise.all(ALL.map((i) => c.waitUp(i)));
    const after = await c.waitForMembers(3);
    await c.waitSafe();
    expect(after.map((m) => m.uuid).sort()).toEqual(members.map((m) => m.uuid).sort());

    expect(await compareEntries(c.member(2).port, MAP, entries)).toEqual([]);
    // Acknowledged before the backup call: there. Written later: there or not, never altered.
    const problems: string[] = [];
    let later = 0;
    for (const r of load.records) {
      const res = await requestBytes(c.member(later++ % 3).port, 'GET', `/hazelcast/rest/maps/${MAP}/${r.key}`);
      const got = res.status === 200 ? res.body.toString('latin1') : res.status;
      if (ackedBefore.has(r.key) ? got !== r.value : got !== 204 && got !== r.value) problems.push(`${r.key}: ${ackedBefore.has(r.key) ? 'acknowledged before the backup' : 'written after'}, got ${String(got)}, wrote ${r.value}`);
    }
    expect(problems.slice(0, 20), `${problems.length} of ${load.records.length} keys`).toEqual([]);
  }, 60_000);
});
