// Persistence off (the default): the PERSISTENCE endpoints answer as before the feature, a
// 200 with {"status":"fail","message":…} (Hazelcast's answer when there is nothing to do), on
// a real member process. test/http/management.test.ts covers the same in-process, with the
// credential check and the endpoint group.

import { describe, expect, it } from 'vitest';
import { startCluster } from '../support/cluster.js';

describe('persistence: off', () => {
  it('forceStart, partialStart, backup, backupInterrupt, hotBackup, hotBackupInterrupt answer fail', async () => {
    const c = await startCluster({ size: 1, config: () => ({ network: { 'rest-api': { 'endpoint-groups': { PERSISTENCE: { enabled: true } } } } }) });
    for (const op of ['forceStart', 'partialStart', 'backup', 'backupInterrupt', 'hotBackup', 'hotBackupInterrupt']) {
      const res = await c.management(0, op);
      expect(res.status, op).toBe(200);
      expect(JSON.parse(res.body), op).toEqual({ status: 'fail', message: 'persistence is not enabled on this member' });
    }
    // Nothing happened to the member.
    expect((await c.health(0)).nodeState).toBe('ACTIVE');
  });
});
