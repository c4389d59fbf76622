// The PERSISTENCE endpoints under rest/management/cluster/: forceStart, partialStart, backup,
// backupInterrupt (and Hazelcast's deprecated hotBackup names), each told to every member.

import { sendJson } from './respond.js';
import type { Handler, Request } from './route-kit.js';

/** `op` is one of the PERSISTENCE commands after rest/management/cluster/ (hotBackup* are Hazelcast's deprecated names). */
export function persistenceCommand(op: 'forceStart' | 'partialStart' | 'backup' | 'backupInterrupt' | 'hotBackup' | 'hotBackupInterrupt'): Handler {
  return async (r, d) => {
    if (!d.persistence.enabled) {
      notPersistent(r);
      return;
    }
    const deprecated = op === 'hotBackup' || op === 'hotBackupInterrupt';
    const name = op === 'hotBackup' ? 'backup' : op === 'hotBackupInterrupt' ? 'backupInterrupt' : op;
    const out = await d.persistence.command(name);
    if (deprecated) {
      // As Hazelcast answers its deprecated hot-backup paths.
      r.res.setHeader('Deprecation', 'true');
      r.res.setHeader('Warning', `299 - "Deprecated API: use /hazelcast/rest/management/cluster/${name} instead"`);
    }
    sendJson(r.res, out.accepted ? { status: 'success' } : { status: 'fail', message: out.message });
  };
}

function notPersistent(r: Request): void {
  sendJson(r.res, { status: 'fail', message: 'persistence is not enabled on this member' });
}
