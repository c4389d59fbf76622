import { describe, it, expect } from 'vitest';
import { configFromObject, defaultConfig, parseConfigText, type CpSubsystemConfig } from '../../../src/config/index.js';
import { DEFAULT_CP_SUBSYSTEM, defaultCpGroupSize } from '../../../src/config/defaults.js';
import { configErrorOf, plain } from './helpers.js';

const DEFAULTS: CpSubsystemConfig = {
  enabled: false,
  cpMemberCount: 0,
  groupSize: 0,
  sessionTimeToLiveSeconds: 300,
  sessionHeartbeatIntervalSeconds: 5,
  missingCpMemberAutoRemovalSeconds: 14400,
  failOnIndeterminateOperationState: false,
  cpMemberPriority: 0,
  raftAlgorithm: {
    leaderElectionTimeoutMs: 2000,
    leaderHeartbeatPeriodMs: 5000,
    maxMissedLeaderHeartbeatCount: 5,
    appendRequestMaxEntryCount: 100,
    commitIndexAdvanceCountToSnapshot: 10000,
    uncommittedEntryCountToRejectNewAppends: 100,
    appendRequestBackoffTimeoutMs: 100,
  },
  locks: [],
};

const FULL_XML = `<hazelcast xmlns="http://www.hazelcast.com/schema/config">
  <cp-subsystem>
    <cp-member-count>7</cp-member-count>
    <group-size>5</group-size>
    <session-time-to-live-seconds>60</session-time-to-live-seconds>
    <session-heartbeat-interval-seconds>2</session-heartbeat-interval-seconds>
    <missing-cp-member-auto-removal-seconds>600</missing-cp-member-auto-removal-seconds>
    <fail-on-indeterminate-operation-state>true</fail-on-indeterminate-operation-state>
    <persistence-enabled>false</persistence-enabled>
    <base-dir>cp-data</base-dir>
    <data-load-timeout-seconds>30</data-load-timeout-seconds>
    <cp-member-priority>-2</cp-member-priority>
    <raft-algorithm>
      <leader-election-timeout-in-millis>1000</leader-election-timeout-in-millis>
      <leader-heartbeat-period-in-millis>500</leader-heartbeat-period-in-millis>
      <max-missed-leader-heartbeat-count>3</max-missed-leader-heartbeat-count>
      <append-request-max-entry-count>50</append-request-max-entry-count>
      <commit-index-advance-count-to-snapshot>2000</commit-index-advance-count-to-snapshot>
      <uncommitted-entry-count-to-reject-new-appends>250</uncommitted-entry-count-to-reject-new-appends>
      <append-request-backoff-timeout-in-millis>20</append-request-backoff-timeout-in-millis>
    </raft-algorithm>
    <locks>
      <fenced-lock>
        <name>mutex</name>
        <lock-acquire-limit>1</lock-acquire-limit>
      </fenced-lock>
      <fenced-lock>
        <name>orders-*</name>
        <lock-acquire-limit>3</lock-acquire-limit>
      </fenced-lock>
      <fenced-lock>
        <name>reentrant</name>
      </fenced-lock>
    </locks>
  </cp-subsystem>
</hazelcast>`;

const FULL_YAML = `hazelcast:
  cp-subsystem:
    cp-member-count: 7
    group-size: 5
    session-time-to-live-seconds: 60
    session-heartbeat-interval-seconds: 2
    missing-cp-member-auto-removal-seconds: 600
    fail-on-indeterminate-operation-state: true
    persistence-enabled: false
    base-dir: cp-data
    data-load-timeout-seconds: 30
    cp-member-priority: -2
    raft-algorithm:
      leader-election-timeout-in-millis: 1000
      leader-heartbeat-period-in-millis: 500
      max-missed-leader-heartbeat-count: 3
      append-request-max-entry-count: 50
      commit-index-advance-count-to-snapshot: 2000
      uncommitted-entry-count-to-reject-new-appends: 250
      append-request-backoff-timeout-in-millis: 20
    locks:
      mutex:
        lock-acquire-limit: 1
      orders-*:
        lock-acquire-limit: 3
      reentrant: {}
`;

const FULL: CpSubsystemConfig = {
  enabled: true,
  cpMemberCount: 7,
  groupSize: 5,
  sessionTimeToLiveSeconds: 60,
  sessionHeartbeatIntervalSeconds: 2,
  missingCpMemberAutoRemovalSeconds: 600,
  failOnIndeterminateOperationState: true,
  cpMemberPriority: -2,
  raftAlgorithm: {
    leaderElectionTimeoutMs: 1000,
    leaderHeartbeatPeriodMs: 500,
    maxMissedLeaderHeartbeatCount: 3,
    appendRequestMaxEntryCount: 50,
    commitIndexAdvanceCountToSnapshot: 2000,
    uncommittedEntryCountToRejectNewAppends: 250,
    appendRequestBackoffTimeoutMs: 20,
  },
  locks: [
    { name: 'mutex', lockAcquireLimit: 1 },
    { name: 'orders-*', lockAcquireLimit: 3 },
    { name: 'reentrant', lockAcquireLimit: 0 },
  ],
};

/** The cp-subsystem of an inline config, with its warnings. */
function cp(raw: Record<string, unknown>, env?: Record<string, string>): { cp: CpSubsystemConfig; warnings: readonly string[] } {
  const { config, warnings } = configFromObject({ 'cp-subsystem': raw }, env);
  return { cp: config.cpSubsystem, warnings };
}

/** The problems of an inline cp-subsystem that does not load. */
function problemsOf(raw: Record<string, unknown>): readonly string[] {
  return configErrorOf(() => configFromObject({ 'cp-subsystem': raw })).problems;
}

const P = 'inline: hazelcast.cp-subsystem';

describe('cp-subsystem: defaults', () => {
  it("are Hazelcast's when cp-subsystem is left out: off, frozen, no warnings", () => {
    const { config, warnings } = defaultConfig();
    expect(config.cpSubsystem).toEqual(DEFAULTS);
    expect(DEFAULT_CP_SUBSYSTEM).toEqual(DEFAULTS);
    expect(warnings).toEqual([]);
    expect(Object.isFrozen(config.cpSubsystem)).toBe(true);
    expect(Object.isFrozen(config.cpSubsystem.raftAlgorithm)).toBe(true);
    expect(Object.isFrozen(config.cpSubsystem.locks)).toBe(true);
  });

  it('an empty element (XML, YAML null and {}) gives the defaults without warnings', () => {
    const xml = parseConfigText('<hazelcast><cp-subsystem/></hazelcast>', 'xml', 'e.xml');
    expect(xml.config.cpSubsystem).toEqual(DEFAULTS);
    expect(xml.warnings).toEqual([]);
    for (const text of ['hazelcast:\n  cp-subsystem:\n', 'hazelcast:\n  cp-subsystem: {}\n']) {
      const yaml = parseConfigText(text, 'yaml', 'e.yaml');
      expect(yaml.config.cpSubsystem).toEqual(DEFAULTS);
      expect(yaml.warnings).toEqual([]);
    }
  });

  it('cp-member-count alone switches CP on with every other default', () => {
    const { config, warnings } = parseConfigText('<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count></cp-subsystem></hazelcast>', 'xml', 'on.xml');
    expect(warnings).toEqual([]);
    expect(config.cpSubsystem).toEqual({ ...DEFAULTS, enabled: true, cpMemberCount: 3, groupSize: 3 });
  });

  it('group-size left out: cp-member-count made odd and at most 7, as Hazelcast derives it', () => {
    const derived = { 3: 3, 4: 3, 5: 5, 6: 5, 7: 7, 8: 7, 9: 7, 10: 7, 100: 7 };
    for (const [count, size] of Object.entries(derived)) {
      expect(cp({ 'cp-member-count': Number(count) }).cp.groupSize).toBe(size);
      expect(defaultCpGroupSize(Number(count))).toBe(size);
    }
    expect(defaultCpGroupSize(0)).toBe(0);
  });

  it('group-size 0 means "not set", as in Hazelcast', () => {
    expect(cp({ 'cp-member-count': 6, 'group-size': 0 }).cp.groupSize).toBe(5);
    expect(cp({ 'group-size': 0 }).cp).toEqual(DEFAULTS);
  });
});

describe('cp-subsystem: XML and YAML', () => {
  it('read every setting, the same from both formats, without warnings', () => {
    const xml = parseConfigText(FULL_XML, 'xml', 'cp.xml');
    const yaml = parseConfigText(FULL_YAML, 'yaml', 'cp.yaml');
    expect(xml.warnings).toEqual([]);
    expect(yaml.warnings).toEqual([]);
    expect(xml.config.cpSubsystem).toEqual(FULL);
    expect(plain({ ...xml.config, source: '' })).toEqual(plain({ ...yaml.config, source: '' }));
  });

  it('one XML fenced-lock and a name with surrounding spaces', () => {
    const { config } = parseConfigText(
      '<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count><locks><fenced-lock><name> only </name><lock-acquire-limit>2</lock-acquire-limit></fenced-lock></locks></cp-subsystem></hazelcast>',
      'xml',
      'one.xml',
    );
    expect(config.cpSubsystem.locks).toEqual([{ name: 'only', lockAcquireLimit: 2 }]);
  });

  it('booleans and numbers may be strings or YAML scalars', () => {
    const { cp: c } = cp({ 'cp-member-count': '5', 'fail-on-indeterminate-operation-state': 'TRUE', 'cp-member-priority': ' 7 ' });
    expect(c).toMatchObject({ cpMemberCount: 5, groupSize: 5, failOnIndeterminateOperationState: true, cpMemberPriority: 7 });
  });
});

describe('cp-subsystem: limits', () => {
  it('cp-member-count: 0 or at least 3', () => {
    expect(cp({ 'cp-member-count': 0 }).cp.enabled).toBe(false);
    expect(cp({ 'cp-member-count': 3 }).cp).toMatchObject({ enabled: true, cpMemberCount: 3 });
    expect(problemsOf({ 'cp-member-count': 1 })).toEqual([`${P}.cp-member-count: must be 0 (the CP subsystem off) or at least 3, got 1`]);
    expect(problemsOf({ 'cp-member-count': 2 })).toEqual([`${P}.cp-member-count: must be 0 (the CP subsystem off) or at least 3, got 2`]);
    expect(problemsOf({ 'cp-member-count': -1 })).toEqual([`${P}.cp-member-count: must be an integer >= 0, got -1`]);
    expect(problemsOf({ 'cp-member-count': 'three' })).toEqual([`${P}.cp-member-count: must be an integer >= 0, got "three"`]);
  });

  it('group-size: odd, 3-7, at most cp-member-count', () => {
    for (const size of [3, 5, 7]) expect(cp({ 'cp-member-count': 7, 'group-size': size }).cp.groupSize).toBe(size);
    for (const size of [1, 2, 4, 6, 8, 9]) {
      expect(problemsOf({ 'cp-member-count': 9, 'group-size': size })).toEqual([
        `${P}.group-size: must be an odd number 3-7 (3, 5 or 7), got ${size}`,
      ]);
    }
    expect(problemsOf({ 'cp-member-count': 3, 'group-size': 5 })).toEqual([`${P}.group-size: must not exceed cp-member-count (3), got 5`]);
    expect(problemsOf({ 'cp-member-count': 4, 'group-size': 5 })).toEqual([`${P}.group-size: must not exceed cp-member-count (4), got 5`]);
    expect(problemsOf({ 'group-size': 3 })).toEqual([
      `${P}.group-size: must not exceed cp-member-count (0), got 3: the CP subsystem is off; set cp-member-count too`,
    ]);
    expect(problemsOf({ 'group-size': -3 })).toEqual([`${P}.group-size: must be an integer >= 0, got -3`]);
  });

  it('a wrong cp-member-count is not compared with group-size a second time', () => {
    expect(problemsOf({ 'cp-member-count': 2, 'group-size': 3 })).toEqual([
      `${P}.cp-member-count: must be 0 (the CP subsystem off) or at least 3, got 2`,
    ]);
  });

  it('session-time-to-live-seconds and session-heartbeat-interval-seconds: >= 1, the interval below the TTL', () => {
    expect(cp({ 'session-time-to-live-seconds': 2, 'session-heartbeat-interval-seconds': 1 }).cp).toMatchObject({
      sessionTimeToLiveSeconds: 2,
      sessionHeartbeatIntervalSeconds: 1,
    });
    expect(problemsOf({ 'session-time-to-live-seconds': 0 })).toEqual([`${P}.session-time-to-live-seconds: must be an integer >= 1, got 0`]);
    expect(problemsOf({ 'session-heartbeat-interval-seconds': 0 })).toEqual([
      `${P}.session-heartbeat-interval-seconds: must be an integer >= 1, got 0`,
    ]);
    // The setting that was written is the one named.
    expect(problemsOf({ 'session-time-to-live-seconds': 10, 'session-heartbeat-interval-seconds': 10 })).toEqual([
      `${P}.session-heartbeat-interval-seconds: must be less than session-time-to-live-seconds (10), got 10`,
    ]);
    expect(problemsOf({ 'session-heartbeat-interval-seconds': 300 })).toEqual([
      `${P}.session-heartbeat-interval-seconds: must be less than session-time-to-live-seconds (300), got 300`,
    ]);
    expect(problemsOf({ 'session-time-to-live-seconds': 5 })).toEqual([
      `${P}.session-time-to-live-seconds: must be greater than session-heartbeat-interval-seconds (5), got 5`,
    ]);
  });

  it('missing-cp-member-auto-removal-seconds: 0 (never) or at least the session TTL', () => {
    expect(cp({ 'missing-cp-member-auto-removal-seconds': 0 }).cp.missingCpMemberAutoRemovalSeconds).toBe(0);
    expect(cp({ 'missing-cp-member-auto-removal-seconds': 300 }).cp.missingCpMemberAutoRemovalSeconds).toBe(300);
    expect(cp({ 'session-time-to-live-seconds': 100000, 'missing-cp-member-auto-removal-seconds': 0 }).cp.sessionTimeToLiveSeconds).toBe(100000);
    expect(problemsOf({ 'missing-cp-member-auto-removal-seconds': 299 })).toEqual([
      `${P}.missing-cp-member-auto-removal-seconds: must be 0 (never) or at least session-time-to-live-seconds (300), got 299`,
    ]);
    expect(problemsOf({ 'session-time-to-live-seconds': 14401 })).toEqual([
      `${P}.session-time-to-live-seconds: must not exceed missing-cp-member-auto-removal-seconds (14400), got 14401`,
    ]);
    expect(problemsOf({ 'missing-cp-member-auto-removal-seconds': -1 })).toEqual([
      `${P}.missing-cp-member-auto-removal-seconds: must be an integer >= 0, got -1`,
    ]);
  });

  it('a wrong session TTL is not compared with the other two', () => {
    expect(problemsOf({ 'session-time-to-live-seconds': 'long', 'session-heartbeat-interval-seconds': 400, 'missing-cp-member-auto-removal-seconds': 10 })).toEqual([
      `${P}.session-time-to-live-seconds: must be an integer >= 1, got "long"`,
    ]);
  });

  it('raft-algorithm: every setting an integer >= 1 (append-request-max-entry-count at most 10000, what a member takes in one append)', () => {
    const keys = [
      'leader-election-timeout-in-millis',
      'leader-heartbeat-period-in-millis',
      'max-missed-leader-heartbeat-count',
      'append-request-max-entry-count',
      'commit-index-advance-count-to-snapshot',
      'uncommitted-entry-count-to-reject-new-appends',
      'append-request-backoff-timeout-in-millis',
    ];
    const ones = cp({ 'raft-algorithm': Object.fromEntries(keys.map((k) => [k, 1])) }).cp.raftAlgorithm;
    expect(Object.values(ones)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(problemsOf({ 'raft-algorithm': Object.fromEntries(keys.map((k) => [k, 0])) })).toEqual(
      keys.map((k) => `${P}.raft-algorithm.${k}: must be an integer ${k === 'append-request-max-entry-count' ? '1-10000' : '>= 1'}, got 0`),
    );
    expect(problemsOf({ 'raft-algorithm': { 'append-request-max-entry-count': 10_001 } })).toEqual([`${P}.raft-algorithm.append-request-max-entry-count: must be an integer 1-10000, got 10001`]);
    expect(problemsOf({ 'raft-algorithm': { 'leader-election-timeout-in-millis': '2s' } })).toEqual([
      `${P}.raft-algorithm.leader-election-timeout-in-millis: must be an integer >= 1, got "2s"`,
    ]);
    expect(problemsOf({ 'raft-algorithm': 5 })).toEqual([`${P}.raft-algorithm: must be a mapping, got 5`]);
  });

  it('lock-acquire-limit: 0 (reentrant without limit), 1 (not reentrant) or more; never negative', () => {
    const { cp: c } = cp({ 'cp-member-count': 3, locks: { a: { 'lock-acquire-limit': 0 }, b: { 'lock-acquire-limit': 1 }, c: { 'lock-acquire-limit': 1000 } } });
    expect(c.locks).toEqual([
      { name: 'a', lockAcquireLimit: 0 },
      { name: 'b', lockAcquireLimit: 1 },
      { name: 'c', lockAcquireLimit: 1000 },
    ]);
    expect(problemsOf({ locks: { a: { 'lock-acquire-limit': -1 } } })).toEqual([`${P}.locks.a.lock-acquire-limit: must be an integer >= 0, got -1`]);
    expect(problemsOf({ locks: { a: 1 } })).toEqual([`${P}.locks.a: must be a mapping, got 1`]);
  });

  it('lock names: not empty, one "*" at most', () => {
    expect(problemsOf({ locks: { 'a*b*': {}, ' ': {} } })).toEqual([
      `${P}.locks.a*b*: a wildcard name may contain only one "*"`,
      `${P}.locks. : a name must not be empty`,
    ]);
  });

  it('XML fenced-lock entries need a name; a name given twice is an error', () => {
    const err = configErrorOf(() =>
      parseConfigText(
        `<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count><locks>
           <fenced-lock><name>a</name></fenced-lock>
           <fenced-lock><lock-acquire-limit>1</lock-acquire-limit></fenced-lock>
           <fenced-lock><name>a</name><lock-acquire-limit>2</lock-acquire-limit></fenced-lock>
         </locks></cp-subsystem></hazelcast>`,
        'xml',
        'dup.xml',
      ),
    );
    expect(err.problems).toEqual([
      'dup.xml: hazelcast.cp-subsystem.locks.fenced-lock[1].name: is required',
      'dup.xml: hazelcast.cp-subsystem.locks.a: duplicate fenced-lock name "a"',
    ]);
  });

  it('data-load-timeout-seconds is checked (>= 1) though CP persistence is not supported', () => {
    expect(problemsOf({ 'data-load-timeout-seconds': 0 })).toEqual([`${P}.data-load-timeout-seconds: must be an integer >= 1, got 0`]);
  });

  it('every mistake is reported at once, each with its path', () => {
    const err = configErrorOf(() =>
      parseConfigText(
        `hazelcast:
  cp-subsystem:
    cp-member-count: 3
    group-size: 5
    session-time-to-live-seconds: 0
    session-heartbeat-interval-seconds: x
    missing-cp-member-auto-removal-seconds: 1.5
    fail-on-indeterminate-operation-state: maybe
    persistence-enabled: sometimes
    cp-member-priority: high
    raft-algorithm:
      max-missed-leader-heartbeat-count: -5
    locks:
      l:
        lock-acquire-limit: many
`,
        'yaml',
        'bad.yaml',
      ),
    );
    expect(err.problems).toEqual([
      'bad.yaml: hazelcast.cp-subsystem.group-size: must not exceed cp-member-count (3), got 5',
      'bad.yaml: hazelcast.cp-subsystem.session-time-to-live-seconds: must be an integer >= 1, got 0',
      'bad.yaml: hazelcast.cp-subsystem.session-heartbeat-interval-seconds: must be an integer >= 1, got "x"',
      'bad.yaml: hazelcast.cp-subsystem.missing-cp-member-auto-removal-seconds: must be an integer >= 0, got 1.5',
      'bad.yaml: hazelcast.cp-subsystem.persistence-enabled: must be true or false, got "sometimes"',
      'bad.yaml: hazelcast.cp-subsystem.fail-on-indeterminate-operation-state: must be true or false, got "maybe"',
      'bad.yaml: hazelcast.cp-subsystem.cp-member-priority: must be an integer >= -2147483648, got "high"',
      'bad.yaml: hazelcast.cp-subsystem.raft-algorithm.max-missed-leader-heartbeat-count: must be an integer >= 1, got -5',
      'bad.yaml: hazelcast.cp-subsystem.locks.l.lock-acquire-limit: must be an integer >= 0, got "many"',
    ]);
  });

  it('cp-subsystem must be a mapping', () => {
    const err = configErrorOf(() => parseConfigText('hazelcast:\n  cp-subsystem: 3\n', 'yaml', 't.yaml'));
    expect(err.problems).toEqual(['t.yaml: hazelcast.cp-subsystem: must be a mapping, got 3']);
  });
});

describe('cp-subsystem: warnings', () => {
  const STRUCTURES = "Grid's CP data structures are atomic longs and fenced locks";

  it('semaphores are warned about one by one, by name (XML 4.x/5.x, XML 3.12, YAML)', () => {
    const xml = parseConfigText(
      `<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count><semaphores>
         <semaphore><name>permits</name><jdk-compatible>false</jdk-compatible><initial-permits>3</initial-permits></semaphore>
         <semaphore><name>gate</name></semaphore>
       </semaphores></cp-subsystem></hazelcast>`,
      'xml',
      's.xml',
    );
    expect(xml.warnings).toEqual([
      `s.xml: hazelcast.cp-subsystem.semaphores.permits: CP semaphores are not supported (${STRUCTURES}): semaphore "permits" is not available (ignored)`,
      `s.xml: hazelcast.cp-subsystem.semaphores.gate: CP semaphores are not supported (${STRUCTURES}): semaphore "gate" is not available (ignored)`,
    ]);
    const old = parseConfigText(
      '<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count><semaphores><cp-semaphore><name>s</name><jdk-compatible>true</jdk-compatible></cp-semaphore></semaphores></cp-subsystem></hazelcast>',
      'xml',
      'old.xml',
    );
    expect(old.warnings).toEqual([
      `old.xml: hazelcast.cp-subsystem.semaphores.s: CP semaphores are not supported (${STRUCTURES}): semaphore "s" is not available (ignored)`,
    ]);
    const yaml = parseConfigText(
      'hazelcast:\n  cp-subsystem:\n    cp-member-count: 3\n    semaphores:\n      sem1:\n        initial-permits: 1\n      sem2: {}\n',
      'yaml',
      's.yaml',
    );
    expect(yaml.warnings).toEqual([
      `s.yaml: hazelcast.cp-subsystem.semaphores.sem1: CP semaphores are not supported (${STRUCTURES}): semaphore "sem1" is not available (ignored)`,
      `s.yaml: hazelcast.cp-subsystem.semaphores.sem2: CP semaphores are not supported (${STRUCTURES}): semaphore "sem2" is not available (ignored)`,
    ]);
    // An empty semaphores element says nothing.
    expect(cp({ 'cp-member-count': 3, semaphores: {} }).warnings).toEqual([]);
  });

  it('CP maps and map-limit are warned about by name', () => {
    const xml = parseConfigText(
      '<hazelcast><cp-subsystem><cp-member-count>3</cp-member-count><map-limit>10</map-limit><maps><map><name>balances</name><max-size-mb>50</max-size-mb></map></maps></cp-subsystem></hazelcast>',
      'xml',
      'm.xml',
    );
    expect(xml.warnings).toEqual([
      `m.xml: hazelcast.cp-subsystem.maps.balances: CPMap is not supported (${STRUCTURES}): CP map "balances" is not available (ignored)`,
      `m.xml: hazelcast.cp-subsystem.map-limit: CPMap is not supported (${STRUCTURES}) (ignored)`,
    ]);
    expect(cp({ 'cp-member-count': 3, maps: { balances: { 'max-size-mb': 50 } } }).warnings).toEqual([
      `${P}.maps.balances: CPMap is not supported (${STRUCTURES}): CP map "balances" is not available (ignored)`,
    ]);
  });

  it('persistence-enabled is warned about, and base-dir and data-load-timeout-seconds with it', () => {
    const { cp: c, warnings } = cp({ 'cp-member-count': 3, 'persistence-enabled': true, 'base-dir': '/cp', 'data-load-timeout-seconds': 60 });
    expect(warnings).toEqual([
      `${P}.persistence-enabled: CP Subsystem Persistence is not supported: Grid keeps CP state in memory only, so it survives while a majority of each CP group lives (ignored)`,
      `${P}.base-dir: only used by CP Subsystem Persistence, which Grid does not support (ignored)`,
      `${P}.data-load-timeout-seconds: only used by CP Subsystem Persistence, which Grid does not support (ignored)`,
    ]);
    expect(c).toEqual({ ...DEFAULTS, enabled: true, cpMemberCount: 3, groupSize: 3 });
    // Without persistence-enabled Hazelcast ignores them too: accepted silently.
    expect(cp({ 'cp-member-count': 3, 'persistence-enabled': false, 'base-dir': '/cp', 'data-load-timeout-seconds': 60 }).warnings).toEqual([]);
    expect(cp({ 'cp-member-count': 3, 'base-dir': '/cp' }).warnings).toEqual([]);
  });

  it('settings while cp-member-count is 0 or missing: one warning that CP is off', () => {
    expect(cp({ 'session-time-to-live-seconds': 60 }).warnings).toEqual([
      `${P}.cp-member-count: not set: the CP subsystem is off, so the other cp-subsystem settings take no effect; set it to 3 or more to switch CP on`,
    ]);
    expect(cp({ 'cp-member-count': 0, locks: { l: { 'lock-acquire-limit': 1 } } }).warnings).toEqual([
      `${P}.cp-member-count: 0: the CP subsystem is off, so the other cp-subsystem settings take no effect; set it to 3 or more to switch CP on`,
    ]);
    expect(cp({ 'cp-member-count': 0 }).warnings).toEqual([]);
  });

  it('unknown elements are reported at their path; fenced-locks points to locks', () => {
    const { warnings } = cp({
      'cp-member-count': 3,
      'fenced-locks': { l: {} },
      colour: 'blue',
      'raft-algorithm': { 'election-timeout': 5 },
      locks: { l: { 'lock-acquire-limt': 1 } },
    });
    expect(warnings).toEqual([
      `${P}.raft-algorithm.election-timeout: unknown element, ignored`,
      `${P}.locks.l.lock-acquire-limt: unknown element, ignored (did you mean "lock-acquire-limit"?)`,
      `${P}.fenced-locks: not a Hazelcast element: fenced lock settings go under locks (ignored)`,
      `${P}.colour: unknown element, ignored`,
    ]);
  });

  it('a lock entry with @group never matches: warned, with the name to use', () => {
    const { cp: c, warnings } = cp({ 'cp-member-count': 3, locks: { 'orders@g1': { 'lock-acquire-limit': 1 } } });
    expect(warnings).toEqual([
      `${P}.locks.orders@g1: a lock is matched by its name without the @group part, so an entry named "orders@g1" never matches; name it "orders"`,
    ]);
    expect(c.locks).toEqual([{ name: 'orders@g1', lockAcquireLimit: 1 }]);
  });

  it('cp-subsystem is no longer "accepted but not used"', () => {
    const { warnings } = parseConfigText(FULL_XML, 'xml', 'cp.xml');
    expect(warnings.filter((w) => w.includes('accepted but not used'))).toEqual([]);
  });
});

describe('cp-subsystem: environment overrides', () => {
  it('every setting has a variable', () => {
    const { config, warnings } = defaultConfig({
      HZ_CPSUBSYSTEM_CPMEMBERCOUNT: '5',
      HZ_CPSUBSYSTEM_GROUPSIZE: '3',
      HZ_CPSUBSYSTEM_SESSIONTIMETOLIVESECONDS: '60',
      HZ_CPSUBSYSTEM_SESSIONHEARTBEATINTERVALSECONDS: '2',
      HZ_CPSUBSYSTEM_MISSINGCPMEMBERAUTOREMOVALSECONDS: '0',
      HZ_CPSUBSYSTEM_FAILONINDETERMINATEOPERATIONSTATE: 'true',
      HZ_CPSUBSYSTEM_CPMEMBERPRIORITY: '4',
      HZ_CPSUBSYSTEM_DATALOADTIMEOUTSECONDS: '10',
      HZ_CPSUBSYSTEM_BASEDIR: '/cp',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_LEADERELECTIONTIMEOUTINMILLIS: '1000',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_LEADERHEARTBEATPERIODINMILLIS: '200',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_MAXMISSEDLEADERHEARTBEATCOUNT: '4',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_APPENDREQUESTMAXENTRYCOUNT: '10',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_COMMITINDEXADVANCECOUNTTOSNAPSHOT: '20',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_UNCOMMITTEDENTRYCOUNTTOREJECTNEWAPPENDS: '30',
      HZ_CPSUBSYSTEM_RAFTALGORITHM_APPENDREQUESTBACKOFFTIMEOUTINMILLIS: '40',
      HZ_CPSUBSYSTEM_LOCKS_MY_LOCK_LOCKACQUIRELIMIT: '1',
    });
    expect(warnings).toEqual([]);
    expect(config.cpSubsystem).toEqual({
      enabled: true,
      cpMemberCount: 5,
      groupSize: 3,
      sessionTimeToLiveSeconds: 60,
      sessionHeartbeatIntervalSeconds: 2,
      missingCpMemberAutoRemovalSeconds: 0,
      failOnIndeterminateOperationState: true,
      cpMemberPriority: 4,
      raftAlgorithm: {
        leaderElectionTimeoutMs: 1000,
        leaderHeartbeatPeriodMs: 200,
        maxMissedLeaderHeartbeatCount: 4,
        appendRequestMaxEntryCount: 10,
        commitIndexAdvanceCountToSnapshot: 20,
        uncommittedEntryCountToRejectNewAppends: 30,
        appendRequestBackoffTimeoutMs: 40,
      },
      locks: [{ name: 'my_lock', lockAcquireLimit: 1 }],
    });
  });

  it('GRID_ wins; a bad value names the variable', () => {
    expect(defaultConfig({ HZ_CPSUBSYSTEM_CPMEMBERCOUNT: '3', GRID_CPSUBSYSTEM_CPMEMBERCOUNT: '5' }).config.cpSubsystem.cpMemberCount).toBe(5);
    const err = configErrorOf(() => defaultConfig({ HZ_CPSUBSYSTEM_CPMEMBERCOUNT: '2' }));
    expect(err.problems).toEqual([
      'defaults: hazelcast.cp-subsystem.cp-member-count: must be 0 (the CP subsystem off) or at least 3, got 2 (set by environment variable HZ_CPSUBSYSTEM_CPMEMBERCOUNT)',
    ]);
  });

  it("a lock variable changes the XML file's fenced-lock of that name and keeps its other settings", () => {
    const { config, warnings } = parseConfigText(FULL_XML, 'xml', 'cp.xml', {
      HZ_CPSUBSYSTEM_LOCKS_MUTEX_LOCKACQUIRELIMIT: '0',
      HZ_CPSUBSYSTEM_LOCKS_OTHER_LOCKACQUIRELIMIT: '2',
    });
    expect(warnings).toEqual([]);
    expect(config.cpSubsystem.locks).toEqual([
      { name: 'mutex', lockAcquireLimit: 0 },
      { name: 'orders-*', lockAcquireLimit: 3 },
      { name: 'reentrant', lockAcquireLimit: 0 },
      { name: 'other', lockAcquireLimit: 2 },
    ]);
  });

  it("a lock variable changes the YAML file's lock of that name, matched without regard to case or dashes", () => {
    const { config } = parseConfigText(FULL_YAML.replace('      mutex:', '      Main-Mutex:'), 'yaml', 'cp.yaml', {
      HZ_CPSUBSYSTEM_LOCKS_MAINMUTEX_LOCKACQUIRELIMIT: '4',
    });
    expect(config.cpSubsystem.locks[0]).toEqual({ name: 'Main-Mutex', lockAcquireLimit: 4 });
    expect(config.cpSubsystem.locks).toHaveLength(3);
  });

  it('semaphores and CP maps have no variables: a warning names the variable', () => {
    const { warnings } = defaultConfig({ HZ_CPSUBSYSTEM_SEMAPHORES_S_INITIALPERMITS: '2' });
    expect(warnings).toEqual([
      'defaults: HZ_CPSUBSYSTEM_SEMAPHORES_S_INITIALPERMITS: environment variable does not name a setting Grid can override, ignored',
    ]);
  });
});
