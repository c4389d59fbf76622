// The persistence reader: the top-level `persistence` (Hazelcast 4: `hot-restart-persistence`),
// its directories, timeouts and recovery policy. Each map's and queue's own switch is read by
// `readDataPersistence` (structure-settings.ts).

import { normalize } from 'node:path';
import { DEFAULT_PERSISTENCE, MIN_PERSISTENCE_TIMEOUT_SECONDS } from '../defaults.js';
import { show, type Problems } from '../problems.js';
import { CLUSTER_DATA_RECOVERY_POLICIES, type PersistenceConfig } from '../types.js';
import { aliasedKey, type Section } from './section.js';
import { UNSUPPORTED_PERSISTENCE } from './unused-elements.js';

/**
 * The top-level `persistence`, or `hot-restart-persistence` (Hazelcast 4). XML `<persistence
 * enabled="true"><base-dir>/data</base-dir>...</persistence>`, YAML `persistence: {enabled: true,
 * base-dir: /data, ...}`. Directories are kept as written; the persistence layer resolves them.
 */
export function readPersistence(problems: Problems, root: Section): PersistenceConfig {
  const def = DEFAULT_PERSISTENCE;
  const s = root.child(aliasedKey(problems, root, 'persistence', 'hot-restart-persistence'));
  const dir = (key: string): string | undefined => {
    const v = s.optStr(key);
    if (v === '') problems.error(s.at(key), `must not be empty${key === 'backup-dir' ? ' (leave backup-dir out for no backups)' : ''}`);
    return v === '' ? undefined : v;
  };
  const baseDir = dir('base-dir') ?? def.baseDir;
  const backupDir = dir('backup-dir') ?? def.backupDir;
  if (backupDir !== undefined && sameDir(backupDir, baseDir)) {
    problems.error(s.at('backup-dir'), `must not be base-dir (${show(baseDir)}): backups are copies kept beside the data, not in it`);
  }
  const clusterDataRecoveryPolicy = s.oneOf('cluster-data-recovery-policy', def.clusterDataRecoveryPolicy, CLUSTER_DATA_RECOVERY_POLICIES);
  const persistence: PersistenceConfig = {
    enabled: s.bool('enabled', def.enabled),
    baseDir,
    backupDir,
    parallelism: s.int('parallelism', def.parallelism, 1),
    validationTimeoutSeconds: s.int('validation-timeout-seconds', def.validationTimeoutSeconds, MIN_PERSISTENCE_TIMEOUT_SECONDS),
    dataLoadTimeoutSeconds: s.int('data-load-timeout-seconds', def.dataLoadTimeoutSeconds, MIN_PERSISTENCE_TIMEOUT_SECONDS),
    clusterDataRecoveryPolicy,
    autoRemoveStaleData: s.bool('auto-remove-stale-data', def.autoRemoveStaleData),
    rebalanceDelaySeconds: s.int('rebalance-delay-seconds', def.rebalanceDelaySeconds, 0),
  };
  s.unsupported(UNSUPPORTED_PERSISTENCE, { silentWhenDisabled: ['encryption-at-rest'] });
  s.finish();
  return persistence;
}

/** `a/b/` and `./a/b` are the same directory; relative and absolute spellings of one are not detected. */
function sameDir(a: string, b: string): boolean {
  const n = (p: string): string => normalize(p).replace(/(.)[\\/]+$/, '$1');
  return n(a) === n(b);
}
