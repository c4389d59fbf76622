// The map reader: each `map` entry with its backups, expiry, wan-replication-ref, merkle-tree
// and eviction (the settings maps share with queues: structure-settings.ts).

import { DEFAULT_MAP, DEFAULT_WAN_MERGE_POLICY, DEFAULT_WAN_REPUBLISHING_ENABLED, MAX_BACKUP_COUNT, MAX_MERKLE_TREE_DEPTH, MIN_MERKLE_TREE_DEPTH } from '../defaults.js';
import { show, type Problems } from '../problems.js';
import { EVICTION_POLICIES, MAX_SIZE_POLICIES, type EventJournalConfig, type EvictionConfig, type MapConfig, type MerkleTreeConfig, type WanReplicationRef } from '../types.js';
import { INT_MAX, type Section } from './section.js';
import {
  checkBackupSum,
  checkConfigName,
  mergePolicyName,
  readDataPersistence,
  readMergePolicy,
  readProtectionRef,
  unknownMergePolicy,
} from './structure-settings.js';
import { IGNORED_MAP, REFUSED_MAX_SIZE_POLICIES, UNSUPPORTED_EVICTION, UNSUPPORTED_MAP, UNSUPPORTED_WAN_REF } from './unused-elements.js';

export function readMaps(problems: Problems, s: Section, persistenceEnabled: boolean): MapConfig[] {
  const maps: MapConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const m = s.child(name);
    checkConfigName(problems, m.path, name);
    const backupCount = m.int('backup-count', DEFAULT_MAP.backupCount, 0, MAX_BACKUP_COUNT);
    const asyncBackupCount = m.int('async-backup-count', DEFAULT_MAP.asyncBackupCount, 0, MAX_BACKUP_COUNT);
    checkBackupSum(problems, m, backupCount, asyncBackupCount);
    const timeToLiveSeconds = m.int('time-to-live-seconds', DEFAULT_MAP.timeToLiveSeconds, 0);
    const maxIdleSeconds = m.int('max-idle-seconds', DEFAULT_MAP.maxIdleSeconds, 0);
    let wanReplicationRef: WanReplicationRef | undefined;
    if (m.has('wan-replication-ref')) {
      const refs = m.child('wan-replication-ref');
      const names = Object.keys(refs.obj);
      if (names.length > 1) problems.error(refs.path, `a map has at most one wan-replication-ref, got ${names.length}`);
      for (const refName of names) {
        const r = refs.child(refName);
        let mergePolicyClassName = DEFAULT_WAN_MERGE_POLICY;
        const className = r.optStr('merge-policy-class-name');
        if (className !== undefined) {
          const policy = mergePolicyName(className);
          if (policy === undefined) problems.error(r.at('merge-policy-class-name'), unknownMergePolicy(className));
          else mergePolicyClassName = policy;
        }
        wanReplicationRef ??= {
          name: refName,
          mergePolicyClassName,
          republishingEnabled: r.bool('republishing-enabled', DEFAULT_WAN_REPUBLISHING_ENABLED),
        };
        r.unsupported(UNSUPPORTED_WAN_REF);
        r.finish();
      }
      refs.finish();
    }
    const mergePolicy = readMergePolicy(problems, m, DEFAULT_MAP.mergePolicy);
    const splitBrainProtectionRef = readProtectionRef(m);
    const merkleTree = readMerkleTree(problems, m);
    const dataPersistence = readDataPersistence(problems, m, persistenceEnabled, 'map');
    const eviction = readEviction(problems, m);
    const eventJournal = readEventJournal(problems, m);
    m.finish(IGNORED_MAP);
    maps.push({
      name,
      backupCount,
      asyncBackupCount,
      timeToLiveSeconds,
      maxIdleSeconds,
      wanReplicationRef,
      splitBrainProtectionRef,
      mergePolicy,
      merkleTree,
      dataPersistence,
      eviction,
      eventJournal,
    });
  }
  return maps;
}

/**
 * A map's `merkle-tree`: XML `<merkle-tree enabled="true"><depth>10</depth></merkle-tree>`, YAML
 * `merkle-tree: {enabled: true, depth: 10}`. Without `enabled` the tree stays off (Hazelcast
 * reads it so), with a warning when the element is there.
 */
function readMerkleTree(problems: Problems, s: Section): MerkleTreeConfig {
  const def = DEFAULT_MAP.merkleTree;
  if (!s.has('merkle-tree')) {
    s.raw('merkle-tree');
    return def;
  }
  const t = s.child('merkle-tree');
  if (!t.has('enabled')) {
    problems.warn(t.at('enabled'), 'not set: the Merkle tree stays disabled; set enabled to true to use it');
  }
  const merkle = {
    enabled: t.bool('enabled', def.enabled),
    depth: t.int('depth', def.depth, MIN_MERKLE_TREE_DEPTH, MAX_MERKLE_TREE_DEPTH),
  };
  t.finish();
  return merkle;
}

/**
 * A map's `event-journal`: XML `<event-journal enabled="true"><capacity>10000</capacity>
 * <time-to-live-seconds>0</time-to-live-seconds></event-journal>`, YAML `event-journal:
 * {enabled: true, capacity: 10000, time-to-live-seconds: 0}`. The capacity is split between the
 * partitions as Hazelcast splits it, so fewer than one event per partition is refused (Hazelcast
 * asks for at least the partition count too). Without `enabled` the journal stays off, with a
 * warning when the element is there (as for merkle-tree).
 */
function readEventJournal(problems: Problems, m: Section): EventJournalConfig {
  const def = DEFAULT_MAP.eventJournal;
  if (!m.has('event-journal')) {
    m.raw('event-journal');
    return def;
  }
  const j = m.child('event-journal');
  if (!j.has('enabled')) problems.warn(j.at('enabled'), 'not set: the event journal stays disabled; set enabled to true to use it');
  let capacity = j.int('capacity', def.capacity, 1, INT_MAX);
  if (capacity < JOURNAL_PARTITIONS) {
    problems.error(j.at('capacity'), `${capacity} is less than the partition count (${JOURNAL_PARTITIONS}): each partition keeps capacity / ${JOURNAL_PARTITIONS} events, so at least ${JOURNAL_PARTITIONS}`);
    capacity = def.capacity;
  }
  const journal = {
    enabled: j.bool('enabled', def.enabled),
    capacity,
    timeToLiveSeconds: j.int('time-to-live-seconds', def.timeToLiveSeconds, 0, INT_MAX),
  };
  j.finish();
  return journal;
}

/** The partition count (271, fixed): the least capacity that leaves every partition one slot. */
const JOURNAL_PARTITIONS = 271;

/**
 * A map's `eviction` (Hazelcast 4/5): XML `<eviction eviction-policy="LRU"
 * max-size-policy="PER_NODE" size="1000"/>`, YAML `eviction: {eviction-policy: LRU, ...}`;
 * Hazelcast's defaults (NONE, PER_NODE, Integer.MAX_VALUE; size 0 reads as Integer.MAX_VALUE).
 * The 3.x elements `max-size` and `eviction-policy` are not read: a warning says the map stays
 * unbounded and how to write it (Hazelcast 4+ refuses them too).
 */
function readEviction(problems: Problems, m: Section): EvictionConfig {
  const def = DEFAULT_MAP.eviction;
  m.unsupported(UNSUPPORTED_MAP);
  if (!m.has('eviction')) {
    m.raw('eviction');
    return def;
  }
  const e = m.child('eviction');
  const choice = <T extends string>(key: string, names: readonly T[], fallback: T, unsupported: Readonly<Record<string, string>> = {}): T => {
    const v = e.optStr(key);
    if (v === undefined) return fallback;
    const upper = v.toUpperCase();
    const known = names.find((n) => n === upper);
    if (known !== undefined) return known;
    const why = unsupported[upper];
    problems.error(e.at(key), why !== undefined ? `${upper} ${why}` : `unknown ${key} ${show(v)}: one of ${names.join(', ')}`);
    return fallback;
  };
  const evictionPolicy = choice('eviction-policy', EVICTION_POLICIES, def.evictionPolicy);
  const maxSizePolicy = choice('max-size-policy', MAX_SIZE_POLICIES, def.maxSizePolicy, REFUSED_MAX_SIZE_POLICIES);
  const percent = maxSizePolicy === 'USED_HEAP_PERCENTAGE' || maxSizePolicy === 'FREE_HEAP_PERCENTAGE';
  const memory = maxSizePolicy !== 'PER_NODE' && maxSizePolicy !== 'PER_PARTITION';
  let size = e.int('size', def.size, 0, percent ? 100 : INT_MAX);
  if (size === 0) size = def.size;
  // Hazelcast's default size (Integer.MAX_VALUE) means "evict always" for FREE_HEAP_SIZE and never for the others: a memory policy names its size.
  if (memory && !e.has('size')) problems.error(e.at('size'), `is required with max-size-policy ${maxSizePolicy} (${percent ? 'a percentage, 1-100' : 'megabytes'})`);
  if (evictionPolicy === 'NONE' && e.has('size')) {
    problems.warn(e.at('eviction-policy'), 'is NONE (the default), so nothing is evicted and size has no effect; set LRU, LFU or RANDOM to bound the map');
  }
  e.unsupported(UNSUPPORTED_EVICTION);
  e.finish();
  return { evictionPolicy, maxSizePolicy, size };
}
