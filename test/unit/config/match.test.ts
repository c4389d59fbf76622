import { describe, it, expect } from 'vitest';
import { configFromObject, findMapConfig, findQueueConfig, lockAcquireLimitOf } from '../../../src/config/index.js';

const config = configFromObject({
  map: {
    orders: { 'backup-count': 2 },
    'orders*': { 'backup-count': 3 },
    'ord*': { 'backup-count': 4 },
    '*-cache': { 'time-to-live-seconds': 60 },
    'user-*-cache': { 'time-to-live-seconds': 120 },
    default: { 'backup-count': 0 },
  },
  queue: { 'jobs*': { 'max-size': 10 } },
}).config;

describe('findMapConfig', () => {
  it('exact name beats wildcard', () => {
    expect(findMapConfig(config, 'orders')).toMatchObject({ name: 'orders', backupCount: 2 });
  });

  it('the longest literal part wins among wildcards', () => {
    expect(findMapConfig(config, 'orders-eu').name).toBe('orders*');
    expect(findMapConfig(config, 'orderly').name).toBe('ord*');
    expect(findMapConfig(config, 'user-42-cache').name).toBe('user-*-cache');
    expect(findMapConfig(config, 'x-cache')).toMatchObject({ name: '*-cache', timeToLiveSeconds: 60 });
  });

  it('prefix and suffix may not overlap', () => {
    expect(findMapConfig(config, 'user-cache').name).toBe('*-cache');
  });

  it('falls back to default, then to built-in defaults named as requested', () => {
    expect(findMapConfig(config, 'other')).toMatchObject({ name: 'default', backupCount: 0 });
    const bare = configFromObject({}).config;
    expect(findMapConfig(bare, 'other')).toEqual({
      name: 'other',
      backupCount: 1,
      asyncBackupCount: 0,
      timeToLiveSeconds: 0,
      maxIdleSeconds: 0,
      wanReplicationRef: undefined,
      mergePolicy: { policy: 'PutIfAbsentMergePolicy', batchSize: 100 },
      splitBrainProtectionRef: undefined,
      merkleTree: { enabled: false, depth: 10 },
      dataPersistence: { enabled: false, fsync: false },
      eviction: { evictionPolicy: 'NONE', maxSizePolicy: 'PER_NODE', size: 2147483647 },
      eventJournal: { enabled: false, capacity: 10000, timeToLiveSeconds: 0 },
    });
    expect(Object.isFrozen(findMapConfig(bare, 'other'))).toBe(true);
  });

  it('strips @partitionKey before matching', () => {
    expect(findMapConfig(config, 'orders@key1').name).toBe('orders');
    expect(findMapConfig(config, 'orders-eu@k').name).toBe('orders*');
    expect(findMapConfig(configFromObject({}).config, 'plain@k').name).toBe('plain');
  });
});

describe('findQueueConfig', () => {
  it('matches like maps', () => {
    expect(findQueueConfig(config, 'jobs-high')).toMatchObject({ name: 'jobs*', maxSize: 10 });
    expect(findQueueConfig(config, 'other@p')).toEqual({
      name: 'other',
      maxSize: 0,
      backupCount: 1,
      asyncBackupCount: 0,
      emptyQueueTtlSeconds: -1,
      mergePolicy: { policy: 'PutIfAbsentMergePolicy', batchSize: 100 },
      splitBrainProtectionRef: undefined,
      dataPersistence: { enabled: false, fsync: false },
    });
  });
});

describe('lockAcquireLimitOf', () => {
  const cp = configFromObject({
    'cp-subsystem': { 'cp-member-count': 3, locks: { mutex: { 'lock-acquire-limit': 1 }, 'ord*': { 'lock-acquire-limit': 2 }, 'orders*': { 'lock-acquire-limit': 5 }, default: { 'lock-acquire-limit': 3 } } },
  }).config;
  it('exact name, else the longest wildcard, matched without @group; no default entry fallback (0 = reentrant)', () => {
    expect(lockAcquireLimitOf(cp, 'mutex')).toBe(1);
    expect(lockAcquireLimitOf(cp, 'mutex@g1')).toBe(1);
    expect(lockAcquireLimitOf(cp, 'orders-eu')).toBe(5);
    expect(lockAcquireLimitOf(cp, 'orderly')).toBe(2);
    expect(lockAcquireLimitOf(cp, 'other')).toBe(0);
  });
});
