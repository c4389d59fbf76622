import { describe, it, expect } from 'vitest';
import {
  configFromObject,
  defaultConfig,
  findMapConfig,
  findQueueConfig,
  parseConfigText,
  type PersistenceConfig,
} from '../../../src/config/index.js';
import { DEFAULT_PERSISTENCE } from '../../../src/config/defaults.js';
import { configErrorOf, plain } from './helpers.js';

const DEFAULTS: PersistenceConfig = {
  enabled: false,
  baseDir: 'persistence',
  backupDir: undefined,
  parallelism: 1,
  validationTimeoutSeconds: 120,
  dataLoadTimeoutSeconds: 900,
  clusterDataRecoveryPolicy: 'FULL_RECOVERY_ONLY',
  autoRemoveStaleData: true,
  rebalanceDelaySeconds: 0,
};

const FULL_XML = `<hazelcast xmlns="http://www.hazelcast.com/schema/config">
  <persistence enabled="true">
    <base-dir>/var/lib/grid</base-dir>
    <backup-dir>/var/backups/grid</backup-dir>
    <parallelism>4</parallelism>
    <validation-timeout-seconds>60</validation-timeout-seconds>
    <data-load-timeout-seconds>300</data-load-timeout-seconds>
    <cluster-data-recovery-policy>PARTIAL_RECOVERY_MOST_COMPLETE</cluster-data-recovery-policy>
    <auto-remove-stale-data>false</auto-remove-stale-data>
    <rebalance-delay-seconds>30</rebalance-delay-seconds>
  </persistence>
  <map name="orders">
    <data-persistence enabled="true">
      <fsync>true</fsync>
    </data-persistence>
  </map>
  <queue name="jobs">
    <data-persistence enabled="true"/>
  </queue>
</hazelcast>`;

const FULL_YAML = `hazelcast:
  persistence:
    enabled: true
    base-dir: /var/lib/grid
    backup-dir: /var/backups/grid
    parallelism: 4
    validation-timeout-seconds: 60
    data-load-timeout-seconds: 300
    cluster-data-recovery-policy: PARTIAL_RECOVERY_MOST_COMPLETE
    auto-remove-stale-data: false
    rebalance-delay-seconds: 30
  map:
    orders:
      data-persistence:
        enabled: true
        fsync: true
  queue:
    jobs:
      data-persistence:
        enabled: true
`;

const FULL: PersistenceConfig = {
  enabled: true,
  baseDir: '/var/lib/grid',
  backupDir: '/var/backups/grid',
  parallelism: 4,
  validationTimeoutSeconds: 60,
  dataLoadTimeoutSeconds: 300,
  clusterDataRecoveryPolicy: 'PARTIAL_RECOVERY_MOST_COMPLETE',
  autoRemoveStaleData: false,
  rebalanceDelaySeconds: 30,
};

describe('persistence: defaults', () => {
  it('are Hazelcast\'s when persistence is left out, and frozen', () => {
    const { config, warnings } = defaultConfig();
    expect(config.persistence).toEqual(DEFAULTS);
    expect(DEFAULT_PERSISTENCE).toEqual(DEFAULTS);
    expect(warnings).toEqual([]);
    expect(Object.isFrozen(config.persistence)).toBe(true);
  });

  it('fill what an element leaves out (empty XML element, null and empty YAML mapping)', () => {
    const xml = parseConfigText('<hazelcast><persistence/><map name="m"><data-persistence/></map></hazelcast>', 'xml', 'e.xml');
    expect(xml.config.persistence).toEqual(DEFAULTS);
    expect(xml.config.maps[0]?.dataPersistence).toEqual({ enabled: false, fsync: false });
    expect(xml.warnings).toEqual([]);
    const yaml = parseConfigText('hazelcast:\n  persistence:\n  queue:\n    q:\n      data-persistence: {}\n', 'yaml', 'e.yaml');
    expect(yaml.config.persistence).toEqual(DEFAULTS);
    expect(yaml.config.queues[0]?.dataPersistence).toEqual({ enabled: false, fsync: false });
    expect(yaml.warnings).toEqual([]);
  });

  it('enabled alone switches persistence on with every other default', () => {
    const { config } = parseConfigText('<hazelcast><persistence enabled="true"/></hazelcast>', 'xml', 'on.xml');
    expect(config.persistence).toEqual({ ...DEFAULTS, enabled: true });
  });

  it('maps and queues without data-persistence, declared or not, are not persisted', () => {
    const { config } = configFromObject({ map: { m: {} }, queue: { q: {} } });
    expect(config.maps[0]?.dataPersistence).toEqual({ enabled: false, fsync: false });
    expect(config.queues[0]?.dataPersistence).toEqual({ enabled: false, fsync: false });
    expect(findMapConfig(config, 'undeclared').dataPersistence).toEqual({ enabled: false, fsync: false });
    expect(findQueueConfig(config, 'undeclared').dataPersistence).toEqual({ enabled: false, fsync: false });
  });
});

describe('persistence: XML and YAML', () => {
  it('read every setting, the same from both formats, without warnings', () => {
    const xml = parseConfigText(FULL_XML, 'xml', 'p.xml');
    const yaml = parseConfigText(FULL_YAML, 'yaml', 'p.yaml');
    expect(xml.warnings).toEqual([]);
    expect(yaml.warnings).toEqual([]);
    expect(xml.config.persistence).toEqual(FULL);
    expect(xml.config.maps[0]?.dataPersistence).toEqual({ enabled: true, fsync: true });
    // Queues may be persisted too (Grid's extension), with no warning.
    expect(xml.config.queues[0]?.dataPersistence).toEqual({ enabled: true, fsync: false });
    expect(plain({ ...xml.config, source: '' })).toEqual(plain({ ...yaml.config, source: '' }));
  });

  it('a wildcard or default entry carries data-persistence to the maps it matches', () => {
    const { config } = configFromObject({
      persistence: { enabled: true },
      map: { 'orders-*': { 'data-persistence': { enabled: true } }, default: { 'data-persistence': { fsync: true } } },
    });
    expect(findMapConfig(config, 'orders-eu').dataPersistence).toEqual({ enabled: true, fsync: false });
    expect(findMapConfig(config, 'other').dataPersistence).toEqual({ enabled: false, fsync: true });
  });

  it('the recovery policy is matched without regard to case', () => {
    const { config } = configFromObject({ persistence: { 'cluster-data-recovery-policy': ' partial_recovery_most_recent ' } });
    expect(config.persistence.clusterDataRecoveryPolicy).toBe('PARTIAL_RECOVERY_MOST_RECENT');
  });

  it('directories are kept as written; relative ones stay relative', () => {
    const { config } = configFromObject({ persistence: { 'base-dir': 'data/grid', 'backup-dir': '../backups' } });
    expect(config.persistence.baseDir).toBe('data/grid');
    expect(config.persistence.backupDir).toBe('../backups');
  });
});

describe('persistence: the Hazelcast 4 names', () => {
  it('hot-restart-persistence and hot-restart are read like persistence and data-persistence (XML)', () => {
    const { config, warnings } = parseConfigText(
      FULL_XML.replace(/<(\/?)persistence\b/g, '<$1hot-restart-persistence').replace(/<(\/?)data-persistence\b/g, '<$1hot-restart'),
      'xml',
      'hr.xml',
    );
    expect(warnings).toEqual([]);
    expect(config.persistence).toEqual(FULL);
    expect(config.maps[0]?.dataPersistence).toEqual({ enabled: true, fsync: true });
    expect(config.queues[0]?.dataPersistence).toEqual({ enabled: true, fsync: false });
  });

  it('hot-restart-persistence and hot-restart are read like persistence and data-persistence (YAML)', () => {
    const { config, warnings } = parseConfigText(
      FULL_YAML.replace('  persistence:', '  hot-restart-persistence:').replace(/data-persistence:/g, 'hot-restart:'),
      'yaml',
      'hr.yaml',
    );
    expect(warnings).toEqual([]);
    expect(config.persistence).toEqual(FULL);
    expect(config.maps[0]?.dataPersistence).toEqual({ enabled: true, fsync: true });
  });

  it('both names at once are an error naming both (top level, map and queue)', () => {
    const err = configErrorOf(() =>
      parseConfigText(
        `<hazelcast>
           <persistence enabled="true"/>
           <hot-restart-persistence enabled="false"/>
           <map name="m"><data-persistence enabled="true"/><hot-restart enabled="true"/></map>
           <queue name="q"><data-persistence enabled="true"/><hot-restart enabled="false"/></queue>
         </hazelcast>`,
        'xml',
        'both.xml',
      ),
    );
    expect(err.problems).toEqual([
      'both.xml: hazelcast.persistence: given together with hazelcast.hot-restart-persistence (its Hazelcast 4 name): keep one',
      'both.xml: hazelcast.map.m.data-persistence: given together with hazelcast.map.m.hot-restart (its Hazelcast 4 name): keep one',
      'both.xml: hazelcast.queue.q.data-persistence: given together with hazelcast.queue.q.hot-restart (its Hazelcast 4 name): keep one',
    ]);
  });
});

describe('persistence: mistakes', () => {
  it('every wrong value is an error naming its path, all reported at once', () => {
    const err = configErrorOf(() =>
      parseConfigText(
        `hazelcast:
  persistence:
    enabled: yes
    base-dir: ""
    backup-dir: "  "
    parallelism: 0
    validation-timeout-seconds: 0
    data-load-timeout-seconds: 1.5
    cluster-data-recovery-policy: PARTIAL_RECOVERY
    auto-remove-stale-data: maybe
    rebalance-delay-seconds: -1
  map:
    m:
      data-persistence:
        enabled: 1
        fsync: sometimes
  queue:
    q:
      data-persistence: on
`,
        'yaml',
        'bad.yaml',
      ),
    );
    expect(err.problems).toEqual([
      'bad.yaml: hazelcast.persistence.base-dir: must not be empty',
      'bad.yaml: hazelcast.persistence.backup-dir: must not be empty (leave backup-dir out for no backups)',
      'bad.yaml: hazelcast.persistence.cluster-data-recovery-policy: must be one of FULL_RECOVERY_ONLY, PARTIAL_RECOVERY_MOST_RECENT, PARTIAL_RECOVERY_MOST_COMPLETE, got "PARTIAL_RECOVERY"',
      'bad.yaml: hazelcast.persistence.enabled: must be true or false, got "yes"',
      'bad.yaml: hazelcast.persistence.parallelism: must be an integer >= 1, got 0',
      'bad.yaml: hazelcast.persistence.validation-timeout-seconds: must be an integer >= 1, got 0',
      'bad.yaml: hazelcast.persistence.data-load-timeout-seconds: must be an integer >= 1, got 1.5',
      'bad.yaml: hazelcast.persistence.auto-remove-stale-data: must be true or false, got "maybe"',
      'bad.yaml: hazelcast.persistence.rebalance-delay-seconds: must be an integer >= 0, got -1',
      'bad.yaml: hazelcast.map.m.data-persistence.enabled: must be true or false, got 1',
      'bad.yaml: hazelcast.map.m.data-persistence.fsync: must be true or false, got "sometimes"',
      'bad.yaml: hazelcast.queue.q.data-persistence: must be a mapping, got "on"',
    ]);
  });

  it('timeouts: negative and non-integer values are errors; so is a string', () => {
    const err = configErrorOf(() =>
      configFromObject({
        persistence: { 'validation-timeout-seconds': -5, 'data-load-timeout-seconds': 'soon', 'rebalance-delay-seconds': '1e3' },
      }),
    );
    expect(err.problems).toEqual([
      'inline: hazelcast.persistence.validation-timeout-seconds: must be an integer >= 1, got -5',
      'inline: hazelcast.persistence.data-load-timeout-seconds: must be an integer >= 1, got "soon"',
      'inline: hazelcast.persistence.rebalance-delay-seconds: must be an integer >= 0, got "1e3"',
    ]);
  });

  it('the smallest accepted values', () => {
    const { config } = configFromObject({
      persistence: { parallelism: 1, 'validation-timeout-seconds': 1, 'data-load-timeout-seconds': 1, 'rebalance-delay-seconds': 0 },
    });
    expect(config.persistence).toMatchObject({ parallelism: 1, validationTimeoutSeconds: 1, dataLoadTimeoutSeconds: 1, rebalanceDelaySeconds: 0 });
  });

  it('a directory must be a single value; backup-dir must not be base-dir', () => {
    const err = configErrorOf(() =>
      configFromObject({ persistence: { 'base-dir': ['a', 'b'] }, 'hot-restart-persistence': null }),
    );
    expect(err.problems).toEqual(['inline: hazelcast.persistence.base-dir: must be a single value, got a list']);
    const same = configErrorOf(() => configFromObject({ persistence: { 'base-dir': '/data/grid/', 'backup-dir': '/data/./grid' } }));
    expect(same.problems).toEqual([
      'inline: hazelcast.persistence.backup-dir: must not be base-dir ("/data/grid/"): backups are copies kept beside the data, not in it',
    ]);
    const defaultBase = configErrorOf(() => configFromObject({ persistence: { 'backup-dir': 'persistence' } }));
    expect(defaultBase.problems).toEqual([
      'inline: hazelcast.persistence.backup-dir: must not be base-dir ("persistence"): backups are copies kept beside the data, not in it',
    ]);
  });

  it('persistence must be a mapping', () => {
    const err = configErrorOf(() => parseConfigText('hazelcast:\n  persistence: true\n', 'yaml', 't.yaml'));
    expect(err.problems).toEqual(['t.yaml: hazelcast.persistence: must be a mapping, got true']);
  });
});

describe('persistence: warnings', () => {
  it('data-persistence enabled while persistence is not: a warning naming the path (map, queue, 4.x name)', () => {
    const { config, warnings } = parseConfigText(
      `<hazelcast>
         <map name="orders"><data-persistence enabled="true"/></map>
         <map name="legacy"><hot-restart enabled="true"><fsync>true</fsync></hot-restart></map>
         <map name="off"><data-persistence enabled="false"/></map>
         <queue name="jobs"><data-persistence enabled="true"/></queue>
       </hazelcast>`,
      'xml',
      'w.xml',
    );
    expect(warnings).toEqual([
      'w.xml: hazelcast.map.orders.data-persistence.enabled: true, but the top-level persistence is not enabled: this map is not persisted',
      'w.xml: hazelcast.map.legacy.hot-restart.enabled: true, but the top-level persistence is not enabled: this map is not persisted',
      'w.xml: hazelcast.queue.jobs.data-persistence.enabled: true, but the top-level persistence is not enabled: this queue is not persisted',
    ]);
    // The setting is kept as written; whoever persists checks both switches.
    expect(config.maps[0]?.dataPersistence.enabled).toBe(true);
  });

  it('an explicitly disabled top-level persistence gives the same warning', () => {
    const { warnings } = configFromObject({ persistence: { enabled: false }, map: { m: { 'data-persistence': { enabled: true } } } });
    expect(warnings).toEqual([
      'inline: hazelcast.map.m.data-persistence.enabled: true, but the top-level persistence is not enabled: this map is not persisted',
    ]);
  });

  it('encryption-at-rest is warned about by name; disabled, it is accepted silently', () => {
    const on = parseConfigText(
      `<hazelcast><persistence enabled="true">
         <encryption-at-rest enabled="true"><algorithm>AES/CBC/PKCS5Padding</algorithm></encryption-at-rest>
       </persistence></hazelcast>`,
      'xml',
      'ear.xml',
    );
    expect(on.warnings).toEqual([
      'ear.xml: hazelcast.persistence.encryption-at-rest: encryption at rest is not supported: Grid writes persisted data unencrypted; put base-dir and backup-dir on an encrypted file system instead (ignored)',
    ]);
    const off = parseConfigText(
      'hazelcast:\n  hot-restart-persistence:\n    enabled: true\n    encryption-at-rest:\n      enabled: false\n',
      'yaml',
      'ear.yaml',
    );
    expect(off.warnings).toEqual([]);
  });

  it('unknown elements inside persistence and data-persistence are reported', () => {
    const { warnings } = configFromObject({
      persistence: { colour: 'blue' },
      map: { m: { 'data-persistence': { 'fsync-mode': 'always' } } },
    });
    expect(warnings).toEqual([
      'inline: hazelcast.persistence.colour: unknown element, ignored',
      'inline: hazelcast.map.m.data-persistence.fsync-mode: unknown element, ignored',
    ]);
  });
});

describe('persistence: environment overrides', () => {
  it('HZ_PERSISTENCE_ENABLED, _BASEDIR and _BACKUPDIR set the top-level persistence', () => {
    const { config, warnings } = defaultConfig({
      HZ_PERSISTENCE_ENABLED: 'true',
      HZ_PERSISTENCE_BASEDIR: '/data/grid',
      HZ_PERSISTENCE_BACKUPDIR: '/backups/grid',
    });
    expect(warnings).toEqual([]);
    expect(config.persistence).toEqual({ ...DEFAULTS, enabled: true, baseDir: '/data/grid', backupDir: '/backups/grid' });
  });

  it('GRID_ wins; a bad value names the variable', () => {
    expect(defaultConfig({ HZ_PERSISTENCE_BASEDIR: '/hz', GRID_PERSISTENCE_BASEDIR: '/grid' }).config.persistence.baseDir).toBe('/grid');
    const err = configErrorOf(() => defaultConfig({ HZ_PERSISTENCE_ENABLED: 'yes' }));
    expect(err.problems).toEqual([
      'defaults: hazelcast.persistence.enabled: must be true or false, got "yes" (set by environment variable HZ_PERSISTENCE_ENABLED)',
    ]);
  });

  it('a variable for one name changes the other when only that one is in the file', () => {
    const { config, warnings } = parseConfigText(
      'hazelcast:\n  hot-restart-persistence:\n    base-dir: /old\n  map:\n    orders:\n      hot-restart:\n        enabled: false\n',
      'yaml',
      'hr.yaml',
      { HZ_PERSISTENCE_ENABLED: 'true', HZ_MAP_ORDERS_DATAPERSISTENCE_ENABLED: 'true' },
    );
    expect(warnings).toEqual([]);
    expect(config.persistence).toMatchObject({ enabled: true, baseDir: '/old' });
    expect(config.maps[0]?.dataPersistence).toEqual({ enabled: true, fsync: false });
    const legacy = defaultConfig({ HZ_HOTRESTARTPERSISTENCE_ENABLED: 'true', HZ_HOTRESTARTPERSISTENCE_BASEDIR: '/hr' });
    expect(legacy.config.persistence).toMatchObject({ enabled: true, baseDir: '/hr' });
  });

  it('map and queue data-persistence can be switched per entry', () => {
    const { config, warnings } = defaultConfig({
      HZ_PERSISTENCE_ENABLED: 'true',
      HZ_MAP_ORDERS_DATAPERSISTENCE_ENABLED: 'true',
      HZ_MAP_ORDERS_DATAPERSISTENCE_FSYNC: 'true',
      HZ_QUEUE_JOBS_DATAPERSISTENCE_ENABLED: 'true',
    });
    expect(warnings).toEqual([]);
    expect(findMapConfig(config, 'orders').dataPersistence).toEqual({ enabled: true, fsync: true });
    expect(findQueueConfig(config, 'jobs').dataPersistence).toEqual({ enabled: true, fsync: false });
  });

  it('every scalar setting has a variable; encryption-at-rest has none', () => {
    const { config, warnings } = defaultConfig({
      HZ_PERSISTENCE_PARALLELISM: '4',
      HZ_PERSISTENCE_VALIDATIONTIMEOUTSECONDS: '60',
      HZ_PERSISTENCE_DATALOADTIMEOUTSECONDS: '300',
      HZ_PERSISTENCE_CLUSTERDATARECOVERYPOLICY: 'PARTIAL_RECOVERY_MOST_RECENT',
      HZ_PERSISTENCE_AUTOREMOVESTALEDATA: 'false',
      HZ_PERSISTENCE_REBALANCEDELAYSECONDS: '30',
      HZ_PERSISTENCE_ENCRYPTIONATREST_ENABLED: 'true',
    });
    expect(config.persistence).toEqual({
      ...DEFAULTS,
      parallelism: 4,
      validationTimeoutSeconds: 60,
      dataLoadTimeoutSeconds: 300,
      clusterDataRecoveryPolicy: 'PARTIAL_RECOVERY_MOST_RECENT',
      autoRemoveStaleData: false,
      rebalanceDelaySeconds: 30,
    });
    expect(warnings).toEqual([
      'defaults: HZ_PERSISTENCE_ENCRYPTIONATREST_ENABLED: environment variable does not name a setting Grid can override, ignored',
    ]);
  });
});
