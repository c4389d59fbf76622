// The CP reader: the `cp-subsystem` with its member count, group size, session timings (and
// Hazelcast's cross-checks between them), raft-algorithm and fenced locks; semaphores, CP maps
// and CP persistence are warned about by name.

import {
  DEFAULT_CP_SUBSYSTEM,
  DEFAULT_LOCK_ACQUIRE_LIMIT,
  MAX_CP_GROUP_SIZE,
  MIN_CP_DATA_LOAD_TIMEOUT_SECONDS,
  MIN_CP_GROUP_SIZE,
  defaultCpGroupSize,
} from '../defaults.js';
import { childPath, isRecord, show, type Problems } from '../problems.js';
import type { CpSubsystemConfig, FencedLockConfig, RaftAlgorithmConfig } from '../types.js';
import { INT_MAX, Section, type Raw } from './section.js';
import { checkConfigName } from './structure-settings.js';
import { CP_PERSISTENCE_ONLY, CP_STRUCTURES, UNSUPPORTED_CP } from './unused-elements.js';

/**
 * The `cp-subsystem`. XML `<cp-subsystem><cp-member-count>3</cp-member-count>...<raft-algorithm>..
 * </raft-algorithm><locks><fenced-lock><name>l</name><lock-acquire-limit>1</lock-acquire-limit>
 * </fenced-lock></locks></cp-subsystem>`; YAML `cp-subsystem: {cp-member-count: 3, raft-algorithm:
 * {...}, locks: {l: {lock-acquire-limit: 1}}}`. Limits and cross-checks are Hazelcast's
 * (CPSubsystemConfig, ConfigValidator.checkCPSubsystemConfig); semaphores, CP maps and CP
 * persistence are warned about by name.
 */
export function readCpSubsystem(problems: Problems, s: Section): CpSubsystemConfig {
  const def = DEFAULT_CP_SUBSYSTEM;
  // Each value with whether it was given and valid, so cross-checks only compare values the user wrote correctly.
  const read = (key: string, d: number, min: number): { value: number; given: boolean; ok: boolean } => {
    const before = problems.errors.length;
    const value = s.int(key, d, min);
    return { value, given: s.has(key), ok: problems.errors.length === before };
  };

  const count = read('cp-member-count', def.cpMemberCount, 0);
  const countValid = count.ok && (count.value === 0 || count.value >= MIN_CP_GROUP_SIZE);
  if (!countValid && count.ok) {
    problems.error(s.at('cp-member-count'), `must be 0 (the CP subsystem off) or at least ${MIN_CP_GROUP_SIZE}, got ${count.value}`);
  }
  const cpMemberCount = countValid ? count.value : 0;

  // An explicit 0 is Hazelcast's "not set".
  const group = read('group-size', 0, 0);
  let groupSize = defaultCpGroupSize(cpMemberCount);
  if (group.ok && group.value !== 0) {
    if (group.value < MIN_CP_GROUP_SIZE || group.value > MAX_CP_GROUP_SIZE || group.value % 2 === 0) {
      problems.error(s.at('group-size'), `must be an odd number ${MIN_CP_GROUP_SIZE}-${MAX_CP_GROUP_SIZE} (3, 5 or 7), got ${group.value}`);
    } else if (countValid && group.value > cpMemberCount) {
      const off = cpMemberCount === 0 ? ': the CP subsystem is off; set cp-member-count too' : '';
      problems.error(s.at('group-size'), `must not exceed cp-member-count (${cpMemberCount}), got ${group.value}${off}`);
    } else groupSize = group.value;
  }

  const ttl = read('session-time-to-live-seconds', def.sessionTimeToLiveSeconds, 1);
  const heartbeat = read('session-heartbeat-interval-seconds', def.sessionHeartbeatIntervalSeconds, 1);
  if (ttl.ok && heartbeat.ok && heartbeat.value >= ttl.value) {
    if (heartbeat.given) {
      problems.error(s.at('session-heartbeat-interval-seconds'), `must be less than session-time-to-live-seconds (${ttl.value}), got ${heartbeat.value}`);
    } else {
      problems.error(s.at('session-time-to-live-seconds'), `must be greater than session-heartbeat-interval-seconds (${heartbeat.value}), got ${ttl.value}`);
    }
  }
  const removal = read('missing-cp-member-auto-removal-seconds', def.missingCpMemberAutoRemovalSeconds, 0);
  if (ttl.ok && removal.ok && removal.value !== 0 && removal.value < ttl.value) {
    if (removal.given) {
      problems.error(
        s.at('missing-cp-member-auto-removal-seconds'),
        `must be 0 (never) or at least session-time-to-live-seconds (${ttl.value}), got ${removal.value}`,
      );
    } else {
      problems.error(
        s.at('session-time-to-live-seconds'),
        `must not exceed missing-cp-member-auto-removal-seconds (${removal.value}), got ${ttl.value}`,
      );
    }
  }

  const persistenceEnabled = s.bool('persistence-enabled', false);
  if (persistenceEnabled) {
    problems.warn(
      s.at('persistence-enabled'),
      'CP Subsystem Persistence is not supported: Grid keeps CP state in memory only, so it survives while a majority of each CP group lives (ignored)',
    );
  }
  s.optStr('base-dir');
  // Checked like Hazelcast (> 0) even though it is never used.
  s.int('data-load-timeout-seconds', MIN_CP_DATA_LOAD_TIMEOUT_SECONDS, MIN_CP_DATA_LOAD_TIMEOUT_SECONDS);
  if (persistenceEnabled) {
    for (const key of ['base-dir', 'data-load-timeout-seconds']) {
      if (s.has(key)) problems.warn(s.at(key), `${CP_PERSISTENCE_ONLY} (ignored)`);
    }
  }

  const config: CpSubsystemConfig = {
    enabled: cpMemberCount > 0,
    cpMemberCount,
    groupSize,
    sessionTimeToLiveSeconds: ttl.value,
    sessionHeartbeatIntervalSeconds: heartbeat.value,
    missingCpMemberAutoRemovalSeconds: removal.value,
    failOnIndeterminateOperationState: s.bool('fail-on-indeterminate-operation-state', def.failOnIndeterminateOperationState),
    cpMemberPriority: s.int('cp-member-priority', def.cpMemberPriority, -INT_MAX - 1),
    raftAlgorithm: readRaftAlgorithm(s.child('raft-algorithm')),
    locks: readFencedLocks(problems, s.child('locks')),
  };
  for (const [name, entry] of cpEntries(problems, s.child('semaphores'), ['semaphore', 'cp-semaphore'])) {
    problems.warn(entry.path, `CP semaphores are not supported (${CP_STRUCTURES}): semaphore "${name}" is not available (ignored)`);
  }
  for (const [name, entry] of cpEntries(problems, s.child('maps'), ['map'])) {
    problems.warn(entry.path, `CPMap is not supported (${CP_STRUCTURES}): CP map "${name}" is not available (ignored)`);
  }
  s.unsupported(UNSUPPORTED_CP);
  if (cpMemberCount === 0 && countValid && Object.keys(s.obj).some((k) => k !== 'cp-member-count')) {
    problems.warn(s.at('cp-member-count'), `${count.given ? '0' : 'not set'}: the CP subsystem is off, so the other cp-subsystem settings take no effect; set it to ${MIN_CP_GROUP_SIZE} or more to switch CP on`);
  }
  s.finish();
  return config;
}

function readRaftAlgorithm(s: Section): RaftAlgorithmConfig {
  const def = DEFAULT_CP_SUBSYSTEM.raftAlgorithm;
  const raft: RaftAlgorithmConfig = {
    leaderElectionTimeoutMs: s.int('leader-election-timeout-in-millis', def.leaderElectionTimeoutMs, 1),
    leaderHeartbeatPeriodMs: s.int('leader-heartbeat-period-in-millis', def.leaderHeartbeatPeriodMs, 1),
    maxMissedLeaderHeartbeatCount: s.int('max-missed-leader-heartbeat-count', def.maxMissedLeaderHeartbeatCount, 1),
    // At most what a member takes in one Raft append (cp-payloads.ts MAX_RAFT_APPEND_ENTRIES).
    appendRequestMaxEntryCount: s.int('append-request-max-entry-count', def.appendRequestMaxEntryCount, 1, 10_000),
    commitIndexAdvanceCountToSnapshot: s.int('commit-index-advance-count-to-snapshot', def.commitIndexAdvanceCountToSnapshot, 1),
    uncommittedEntryCountToRejectNewAppends: s.int('uncommitted-entry-count-to-reject-new-appends', def.uncommittedEntryCountToRejectNewAppends, 1),
    appendRequestBackoffTimeoutMs: s.int('append-request-backoff-timeout-in-millis', def.appendRequestBackoffTimeoutMs, 1),
  };
  s.finish();
  return raft;
}

function readFencedLocks(problems: Problems, s: Section): FencedLockConfig[] {
  const locks: FencedLockConfig[] = [];
  for (const [name, l] of cpEntries(problems, s, ['fenced-lock'])) {
    checkConfigName(problems, l.path, name);
    if (name.includes('@')) {
      problems.warn(l.path, `a lock is matched by its name without the @group part, so an entry named "${name}" never matches; name it "${name.slice(0, name.indexOf('@'))}"`);
    }
    locks.push({ name, lockAcquireLimit: l.int('lock-acquire-limit', DEFAULT_LOCK_ACQUIRE_LIMIT, 0) });
    l.finish();
  }
  return locks;
}

/**
 * The entries of a CP structure list (`locks`, `semaphores`, `maps`) by name. YAML keys them by
 * name (`locks: {l: {...}}`); Hazelcast's XML lists them as `<fenced-lock><name>l</name>...`, which
 * the XML loader leaves as `locks: {fenced-lock: {name: l, ...}}` (a list when repeated). Both
 * shapes, and a mix (environment variables add YAML-shaped entries to an XML file, whose settings
 * then win), become name -> section at the YAML path `locks.l`. `xmlChildren` are the XML element
 * names; such a key is read as XML when it holds a list or a mapping with a `name`.
 */
function cpEntries(problems: Problems, s: Section, xmlChildren: readonly string[]): Map<string, Section> {
  const xml = new Map<string, Record<string, unknown>>();
  const yaml = new Map<string, Raw>();
  for (const key of Object.keys(s.obj)) {
    const v = s.raw(key);
    const isXml = xmlChildren.includes(key) && (Array.isArray(v) || (isRecord(v) && v['name'] !== undefined));
    if (!isXml) {
      yaml.set(key, v);
      continue;
    }
    const items: Raw[] = Array.isArray(v) ? v : [v];
    items.forEach((item, i) => {
      const itemPath = Array.isArray(v) ? `${s.at(key)}[${i}]` : s.at(key);
      if (!isRecord(item)) {
        problems.error(itemPath, `must be a mapping with a name, got ${show(item)}`);
        return;
      }
      const { name, ...rest } = item;
      if (typeof name !== 'string' && typeof name !== 'number') {
        problems.error(childPath(itemPath, 'name'), name === undefined ? 'is required' : `must be a single value, got ${show(name)}`);
        return;
      }
      const n = String(name).trim();
      if (xml.has(n)) problems.error(s.at(n), `duplicate ${key} name "${n}"`);
      xml.set(n, rest);
    });
  }
  const out = new Map<string, Section>();
  for (const [n, rest] of xml) {
    const fromYaml = yaml.get(n);
    yaml.delete(n);
    out.set(n, Section.of(problems, s.at(n), isRecord(fromYaml) ? { ...rest, ...fromYaml } : rest));
  }
  for (const [n, v] of yaml) out.set(n, Section.of(problems, s.at(n), v));
  return out;
}
