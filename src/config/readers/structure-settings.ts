// The settings maps and queues share: their name rules, backup counts, merge policy (also
// used by a map's wan-replication-ref), split-brain-protection-ref and data-persistence.

import { DEFAULT_DATA_PERSISTENCE, MAX_BACKUP_COUNT } from '../defaults.js';
import { show, type Problems } from '../problems.js';
import { MERGE_POLICY_NAMES, type DataPersistenceConfig, type MergePolicyConfig, type MergePolicyName } from '../types.js';
import { aliasedKey, type Section } from './section.js';

export function checkConfigName(problems: Problems, path: string, name: string): void {
  if (name.trim() === '') problems.error(path, 'a name must not be empty');
  else if (name.split('*').length > 2) problems.error(path, 'a wildcard name may contain only one "*"');
}

export function checkBackupSum(problems: Problems, s: Section, backups: number, asyncBackups: number): void {
  if (backups + asyncBackups > MAX_BACKUP_COUNT) {
    problems.error(
      s.at('async-backup-count'),
      `backup-count + async-backup-count must be at most ${MAX_BACKUP_COUNT}, got ${backups} + ${asyncBackups}`,
    );
  }
}
/**
 * `merge-policy`: a policy class name (Hazelcast's full `com.hazelcast.spi.merge.X` or just
 * `X`) and `batch-size`. XML: `<merge-policy batch-size="100">X</merge-policy>`; YAML:
 * `merge-policy: {class-name: X, batch-size: 100}` (a plain string is taken as the class name).
 */
export function readMergePolicy(problems: Problems, s: Section, def: MergePolicyConfig): MergePolicyConfig {
  if (!s.has('merge-policy')) return def;
  const raw = s.raw('merge-policy');
  let className: string;
  let batchSize = def.batchSize;
  if (typeof raw === 'string') {
    className = raw.trim();
  } else {
    const m = s.child('merge-policy');
    className = m.str('class-name', def.policy).trim();
    batchSize = m.int('batch-size', def.batchSize, 1);
    m.finish();
  }
  const policy = mergePolicyName(className);
  if (policy === undefined) {
    problems.error(s.at('merge-policy'), unknownMergePolicy(className));
    return def;
  }
  return { policy, batchSize };
}

const MERGE_POLICY_PACKAGE = 'com.hazelcast.spi.merge.';

/**
 * A merge policy class name as Hazelcast writes it, `com.hazelcast.spi.merge.X` or just `X`,
 * -> `X` when Grid knows it; undefined otherwise (another package is another class).
 * Used by `merge-policy` and by `wan-replication-ref merge-policy-class-name`.
 */
export function mergePolicyName(className: string): MergePolicyName | undefined {
  const name = className.trim();
  const simple = name.startsWith(MERGE_POLICY_PACKAGE) ? name.slice(MERGE_POLICY_PACKAGE.length) : name;
  return MERGE_POLICY_NAMES.find((p) => p === simple);
}

export function unknownMergePolicy(className: string): string {
  return `unknown merge policy ${show(className)}: one of ${MERGE_POLICY_NAMES.join(', ')} (with or without ${MERGE_POLICY_PACKAGE})`;
}

/**
 * `data-persistence` (Hazelcast 4: `hot-restart`) of a map, or of a queue (Grid's extension):
 * XML `<data-persistence enabled="true"><fsync>false</fsync></data-persistence>`, YAML
 * `data-persistence: {enabled: true, fsync: false}`. Enabled while the top-level persistence is
 * not is a warning: Hazelcast ignores it then, and so does Grid.
 */
export function readDataPersistence(problems: Problems, s: Section, persistenceEnabled: boolean, kind: 'map' | 'queue'): DataPersistenceConfig {
  const key = aliasedKey(problems, s, 'data-persistence', 'hot-restart');
  if (!s.has(key)) return DEFAULT_DATA_PERSISTENCE;
  const d = s.child(key);
  const dataPersistence = {
    enabled: d.bool('enabled', DEFAULT_DATA_PERSISTENCE.enabled),
    fsync: d.bool('fsync', DEFAULT_DATA_PERSISTENCE.fsync),
  };
  d.finish();
  if (dataPersistence.enabled && !persistenceEnabled) {
    problems.warn(d.at('enabled'), `true, but the top-level persistence is not enabled: this ${kind} is not persisted`);
  }
  return dataPersistence;
}

/** `split-brain-protection-ref` of a map or queue (that the name exists is checked once all are read). */
export function readProtectionRef(s: Section): string | undefined {
  return s.optStr('split-brain-protection-ref') || undefined;
}
