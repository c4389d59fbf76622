// The queue reader: each `queue` entry with its size bound, backups and empty-queue TTL (the
// settings queues share with maps: structure-settings.ts).

import { DEFAULT_QUEUE, MAX_BACKUP_COUNT } from '../defaults.js';
import type { Problems } from '../problems.js';
import type { QueueConfig } from '../types.js';
import type { Section } from './section.js';
import { checkBackupSum, checkConfigName, readDataPersistence, readMergePolicy, readProtectionRef } from './structure-settings.js';
import { IGNORED_QUEUE } from './unused-elements.js';

export function readQueues(problems: Problems, s: Section, persistenceEnabled: boolean): QueueConfig[] {
  const queues: QueueConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const q = s.child(name);
    checkConfigName(problems, q.path, name);
    const maxSize = q.int('max-size', DEFAULT_QUEUE.maxSize, 0);
    const backupCount = q.int('backup-count', DEFAULT_QUEUE.backupCount, 0, MAX_BACKUP_COUNT);
    const asyncBackupCount = q.int('async-backup-count', DEFAULT_QUEUE.asyncBackupCount, 0, MAX_BACKUP_COUNT);
    checkBackupSum(problems, q, backupCount, asyncBackupCount);
    const emptyQueueTtlSeconds = q.int('empty-queue-ttl', DEFAULT_QUEUE.emptyQueueTtlSeconds, -1);
    const mergePolicy = readMergePolicy(problems, q, DEFAULT_QUEUE.mergePolicy);
    const splitBrainProtectionRef = readProtectionRef(q);
    // Grid's extension: Hazelcast persists maps and caches, not queues.
    const dataPersistence = readDataPersistence(problems, q, persistenceEnabled, 'queue');
    q.finish(IGNORED_QUEUE);
    queues.push({
      name,
      maxSize,
      backupCount,
      asyncBackupCount,
      emptyQueueTtlSeconds,
      splitBrainProtectionRef,
      mergePolicy,
      dataPersistence,
    });
  }
  return queues;
}
