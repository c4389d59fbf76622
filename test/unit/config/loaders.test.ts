import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  ConfigError,
  configFromObject,
  defaultConfig,
  loadConfigFile,
  parseConfigText,
  type GridConfig,
} from '../../../src/config/index.js';
import { GridError } from '../../../src/core/errors.js';
import { ENDPOINT_GROUPS } from '../../../src/config/types.js';
import { configErrorOf, plain } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const configPath = (p: string): string => join(ROOT, 'config', p);

describe('shipped config files', () => {
  it('load the full XML and YAML examples to equal configs (apart from source)', () => {
    const xml = loadConfigFile(configPath('examples/hazelcast-full.xml'));
    const yaml = loadConfigFile(configPath('examples/hazelcast-full.yaml'));
    expect(xml.warnings).toEqual([]);
    expect(yaml.warnings).toEqual([]);
    expect(plain({ ...xml.config, source: '' })).toEqual(plain({ ...yaml.config, source: '' }));
    expect(xml.config.source).toBe(configPath('examples/hazelcast-full.xml'));
  });

  it('read every section of the full example', () => {
    const c = loadConfigFile(configPath('examples/hazelcast-full.xml')).config;
    expect(c.clusterName).toBe('prod');
    expect(c.instanceName).toBe('member-a');
    expect(c.network.port).toEqual({ port: 5701, autoIncrement: true, portCount: 20 });
    expect(c.network.publicAddress).toBe('10.0.0.5:5701');
    expect(c.network.bindHost).toBe('127.0.0.1');
    expect(c.network.join.tcpIp).toEqual({
      enabled: true,
      members: ['127.0.0.1:5701-5703', '10.0.0.6', '[::1]:5701'],
      connectionTimeoutSeconds: 10,
    });
    expect([...c.network.restApi.enabledGroups].sort()).toEqual(
      ['CLUSTER_READ', 'CLUSTER_WRITE', 'DATA', 'HEALTH_CHECK', 'PERSISTENCE', 'WAN'].sort(),
    );
    expect(c.maps.map((m) => m.name)).toEqual(['default', 'orders', 'sessions-*']);
    expect(c.maps[1]?.wanReplicationRef).toEqual({
      name: 'to-london',
      mergePolicyClassName: 'PassThroughMergePolicy',
      republishingEnabled: false,
    });
    expect(c.queues[1]).toMatchObject({ name: 'jobs', maxSize: 1000, backupCount: 2, asyncBackupCount: 0, emptyQueueTtlSeconds: 60 });
    expect(c.maps[1]?.splitBrainProtectionRef).toBe('three-members');
    expect(c.queues[1]?.splitBrainProtectionRef).toBe('writes-need-two');
    expect(c.splitBrainProtections).toEqual([
      { name: 'three-members', enabled: true, minimumClusterSize: 3, protectOn: 'READ_WRITE' },
      { name: 'writes-need-two', enabled: true, minimumClusterSize: 2, protectOn: 'WRITE' },
    ]);
    expect(c.security.realms.map((r) => r.name)).toEqual(['memberRealm', 'clientRealm']);
    expect(c.security.realms[1]?.users[0]).toEqual({ username: 'admin', password: 'admin-secret', roles: ['admin', 'monitor'] });
    expect(c.security.realms[0]?.identity).toEqual({ username: 'member', password: 'member-secret' });
    expect(c.security.memberAuthenticationRealm).toBe('memberRealm');
    expect(c.security.clientAuthenticationRealm).toBe('clientRealm');
    const pubs = c.wanReplication[0]?.batchPublishers ?? [];
    expect(pubs.map((p) => p.publisherId)).toEqual(['londonPublisher', 'tokyo']);
    expect(pubs[0]).toMatchObject({
      clusterName: 'london',
      targetEndpoints: ['10.1.0.1:5701', '10.1.0.2:5701'],
      batchSize: 1000,
      queueFullBehavior: 'THROW_EXCEPTION',
      initialPublisherState: 'PAUSED',
      acknowledgeType: 'ACK_ON_RECEIPT',
      consistencyCheckStrategy: 'MERKLE_TREES',
    });
    expect(pubs[1]).toMatchObject({ clusterName: 'tokyo', batchSize: 500, queueCapacity: 10000 });
    expect(c.tuning).toEqual({
      restMaxBodyBytes: 1048576,
      restMaxHeaderBytes: 32768,
      restMaxBufferedBodyBytes: 268435456,
      restHttpPath: 'grid',
      logLevel: 'FINE',
      heartbeatIntervalSeconds: 5,
      maxNoHeartbeatSeconds: 30,
      partitionCount: 271,
      expirySweepIntervalMillis: 500,
      operationCallTimeoutMillis: 60000,
      operationBackupTimeoutMillis: 5000,
      connectionMonitorMaxFaults: 3,
      connectionMonitorIntervalMillis: 100,
      tcpJoinPortTryCount: 3,
      maxParallelMigrations: 10,
      maxJoinSeconds: 300,
      debugIgnoreMessages: '',
      mergeFirstRunDelaySeconds: 300,
      mergeNextRunDelaySeconds: 120,
      metricsHistorySeconds: 600,
      replicaSyncIntervalSeconds: 5,
      debugDropBackups: 0,
    });
  });

  it('dev.yaml enables REST with every endpoint group, finds members on 127.0.0.1:5701-5703, has default map and queue and the tour\'s bounded queue', () => {
    const { config, warnings } = loadConfigFile(configPath('dev.yaml'));
    expect(warnings).toEqual([]);
    expect(config.clusterName).toBe('dev');
    expect(config.network.port).toEqual({ port: 5701, autoIncrement: true, portCount: 100 });
    expect(config.network.restApi.enabled).toBe(true);
    expect(config.network.restApi.enabledGroups).toEqual(new Set(ENDPOINT_GROUPS));
    expect(config.network.bindHost).toBe('127.0.0.1');
    expect(config.network.join.tcpIp).toMatchObject({ enabled: true, members: ['127.0.0.1:5701-5703'] });
    expect(config.maps.map((m) => m.name)).toEqual(['default']);
    expect(config.queues.map((q) => [q.name, q.maxSize])).toEqual([
      ['default', 0],
      ['jobs', 2],
    ]);
    expect(config.tuning.restMaxBodyBytes).toBe(67108864);
  });

  it.each([1, 2, 3])('member%i.yaml is a valid member of the 3-member cluster', (i) => {
    const { config, warnings } = loadConfigFile(configPath(`examples/member${i}.yaml`));
    expect(warnings).toEqual([]);
    expect(config.network.port.port).toBe(5700 + i);
    expect(config.network.join.tcpIp).toMatchObject({ enabled: true, members: ['127.0.0.1:5701-5703'] });
  });
});

describe('defaults', () => {
  it('fill every setting', () => {
    const { config, warnings } = defaultConfig();
    expect(warnings).toEqual([]);
    expect(config.source).toBe('defaults');
    expect(config.clusterName).toBe('dev');
    expect(config.instanceName).toBeUndefined();
    expect(config.liteMember).toBe(false);
    expect(config.network.port).toEqual({ port: 5701, autoIncrement: true, portCount: 100 });
    expect(config.network.bindHost).toBe('0.0.0.0');
    expect(config.network.publicAddress).toBeUndefined();
    expect(config.network.join).toEqual({
      tcpIp: { enabled: false, members: [], connectionTimeoutSeconds: 5 },
      multicastEnabled: false,
      autoDetectionEnabled: false,
    });
    expect(config.network.restApi.enabled).toBe(false);
    expect(config.network.restApi.enabledGroups.size).toBe(0);
    expect(config.advancedNetwork).toEqual({ enabled: false, memberPort: config.network.port, rest: undefined });
    expect(config.maps).toEqual([]);
    expect(config.queues).toEqual([]);
    expect(config.security).toEqual({
      enabled: false,
      realms: [],
      memberAuthenticationRealm: undefined,
      clientAuthenticationRealm: undefined,
    });
    expect(config.wanReplication).toEqual([]);
    expect(config.properties.size).toBe(0);
    expect(config.tuning).toEqual({
      restMaxBodyBytes: 67108864,
      restMaxHeaderBytes: 65536,
      restMaxBufferedBodyBytes: 268435456,
      restHttpPath: 'grid',
      logLevel: 'INFO',
      heartbeatIntervalSeconds: 5,
      maxNoHeartbeatSeconds: 60,
      partitionCount: 271,
      expirySweepIntervalMillis: 1000,
      operationCallTimeoutMillis: 60000,
      operationBackupTimeoutMillis: 5000,
      connectionMonitorMaxFaults: 3,
      connectionMonitorIntervalMillis: 100,
      tcpJoinPortTryCount: 3,
      maxParallelMigrations: 10,
      maxJoinSeconds: 300,
      debugIgnoreMessages: '',
      mergeFirstRunDelaySeconds: 300,
      mergeNextRunDelaySeconds: 120,
      metricsHistorySeconds: 600,
      replicaSyncIntervalSeconds: 5,
      debugDropBackups: 0,
    });
  });

  it('REST on enables CLUSTER_READ and HEALTH_CHECK; explicit false turns them off', () => {
    const on = configFromObject({ network: { 'rest-api': { enabled: true } } }).config;
    expect([...on.network.restApi.enabledGroups].sort()).toEqual(['CLUSTER_READ', 'HEALTH_CHECK']);
    const off = configFromObject({
      network: {
        'rest-api': {
          enabled: true,
          'endpoint-groups': { HEALTH_CHECK: { enabled: false }, DATA: { enabled: true } },
        },
      },
    }).config;
    expect([...off.network.restApi.enabledGroups].sort()).toEqual(['CLUSTER_READ', 'DATA']);
  });

  it('map and queue entries get defaults for what they omit', () => {
    const c = configFromObject({ map: { m: {} }, queue: { q: null } }).config;
    expect(c.maps[0]).toEqual({
      name: 'm',
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
    expect(c.queues[0]).toEqual({
      name: 'q',
      maxSize: 0,
      backupCount: 1,
      asyncBackupCount: 0,
      emptyQueueTtlSeconds: -1,
      mergePolicy: { policy: 'PutIfAbsentMergePolicy', batchSize: 100 },
      splitBrainProtectionRef: undefined,
      dataPersistence: { enabled: false, fsync: false },
    });
  });

  it('publisher-id defaults to the cluster name in XML; merge policy and republishing have defaults', () => {
    const { config } = parseConfigText(
      `<hazelcast>
         <wan-replication name="w"><batch-publisher><cluster-name>b</cluster-name><target-endpoints>h:1</target-endpoints></batch-publisher></wan-replication>
         <map name="m"><wan-replication-ref name="w"/></map>
       </hazelcast>`,
      'xml',
      't.xml',
    );
    expect(config.wanReplication[0]?.batchPublishers[0]).toEqual({
      clusterName: 'b',
      publisherId: 'b',
      targetEndpoints: ['h:1'],
      batchSize: 500,
      batchMaxDelayMillis: 1000,
      responseTimeoutMillis: 60000,
      queueCapacity: 10000,
      queueFullBehavior: 'DISCARD_AFTER_MUTATION',
      initialPublisherState: 'REPLICATING',
      acknowledgeType: 'ACK_ON_OPERATION_COMPLETE',
      consistencyCheckStrategy: 'NONE',
      heartbeatIntervalMillis: 1000,
      heartbeatTimeoutMillis: 5000,
    });
    expect(config.maps[0]?.wanReplicationRef).toEqual({ name: 'w', mergePolicyClassName: 'PassThroughMergePolicy', republishingEnabled: true });
  });
});

describe('results', () => {
  it('are deeply frozen', () => {
    const result = configFromObject({ map: { m: { 'backup-count': 2 } }, network: { join: { 'tcp-ip': { members: 'a,b' } } } });
    const c: GridConfig = result.config;
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.warnings)).toBe(true);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.network.port)).toBe(true);
    expect(Object.isFrozen(c.network.join.tcpIp.members)).toBe(true);
    expect(Object.isFrozen(c.maps)).toBe(true);
    expect(Object.isFrozen(c.maps[0])).toBe(true);
    expect(Object.isFrozen(c.tuning)).toBe(true);
    expect(() => {
      (c.maps[0] as { backupCount: number }).backupCount = 5;
    }).toThrow(TypeError);
  });

  it('configFromObject leaves its input alone and names the source inline', () => {
    const raw = { map: { m: { 'backup-count': 2 } } };
    const { config } = configFromObject(raw, { HZ_MAP_M_BACKUPCOUNT: '3' });
    expect(config.source).toBe('inline');
    expect(config.maps[0]?.backupCount).toBe(3);
    expect(raw).toEqual({ map: { m: { 'backup-count': 2 } } });
    expect(Object.isFrozen(raw)).toBe(false);
  });

  it('ConfigError is a GridError with code CONFIG_INVALID', () => {
    const e = configErrorOf(() => configFromObject({ 'cluster-name': '' }));
    expect(e).toBeInstanceOf(GridError);
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.retryable).toBe(false);
  });
});

describe('XML parsing', () => {
  it('handles namespaces, comments, whitespace, CDATA, entities and case-insensitive booleans', () => {
    const { config, warnings } = parseConfigText(
      `<?xml version="1.0"?>
      <!-- top -->
      <hz:hazelcast xmlns:hz="http://www.hazelcast.com/schema/config">
        <hz:cluster-name>
           a &amp; b
        </hz:cluster-name>
        <!-- inside -->
        <hz:instance-name><![CDATA[ inst ]]></hz:instance-name>
        <hz:lite-member enabled=" TRUE "/>
        <hz:network><hz:port>6000</hz:port></hz:network>
      </hz:hazelcast>`,
      'xml',
      'ns.xml',
    );
    expect(warnings).toEqual([]);
    expect(config.clusterName).toBe('a & b');
    expect(config.instanceName).toBe('inst');
    expect(config.liteMember).toBe(true);
    expect(config.network.port).toEqual({ port: 6000, autoIncrement: true, portCount: 100 });
  });

  it('rejects malformed XML and a wrong root, naming the source', () => {
    expect(configErrorOf(() => parseConfigText('<hazelcast><network></hazelcast>', 'xml', 'bad.xml')).message).toMatch(
      /^bad\.xml: XML is not well-formed \(line 1, column \d+\)/,
    );
    expect(configErrorOf(() => parseConfigText('<config/>', 'xml', 'bad.xml')).message).toBe(
      'bad.xml: the root element must be <hazelcast>, got <config>',
    );
  });

  it('reads properties, members, interfaces and endpoint-groups in their XML forms', () => {
    const { config } = parseConfigText(
      `<hazelcast>
        <properties><property name="grid.rest.max-body-bytes">1000</property></properties>
        <network>
          <interfaces enabled="true"><interface>10.0.0.1</interface><interface>10.0.0.2</interface></interfaces>
          <join><tcp-ip enabled="true">
            <interface>h1</interface><members>h2:5701, h3:5701-5702</members><required-member>h4</required-member>
          </tcp-ip></join>
          <rest-api enabled="true"><endpoint-group name="DATA" enabled="true"/></rest-api>
        </network>
      </hazelcast>`,
      'xml',
      'x.xml',
    );
    expect(config.properties.get('grid.rest.max-body-bytes')).toBe('1000');
    expect(config.tuning.restMaxBodyBytes).toBe(1000);
    expect(config.network.bindHost).toBe('10.0.0.1');
    expect(config.network.join.tcpIp.members).toEqual(['h1', 'h2:5701', 'h3:5701-5702', 'h4']);
    expect(config.network.restApi.enabledGroups.has('DATA')).toBe(true);
  });
});

describe('XML lists and secrets', () => {
  it('merges <member> before and after <member-list>', () => {
    const { config } = parseConfigText(
      '<hazelcast><network><join><tcp-ip><member>a</member><member-list><member>b</member></member-list><member>c</member></tcp-ip></join></network></hazelcast>',
      'xml',
      'l.xml',
    );
    expect(config.network.join.tcpIp.members).toEqual(['a', 'b', 'c']);
  });

  it('keeps passwords exactly as written', () => {
    const { config } = parseConfigText(
      `<hazelcast><security><realms><realm name="r">
        <authentication><simple><user username=" u " password=" p w "/></simple></authentication>
        <identity><username-password username="m" password=" x"/></identity>
      </realm></realms></security></hazelcast>`,
      'xml',
      's.xml',
    );
    expect(config.security.realms[0]?.users[0]).toEqual({ username: 'u', password: ' p w ', roles: [] });
    expect(config.security.realms[0]?.identity).toEqual({ username: 'm', password: ' x' });
  });

  it('requires realm names and usernames', () => {
    const e = configErrorOf(() => configFromObject({ security: { realms: [{ name: null, authentication: { simple: { users: [{}] } } }] } }));
    expect(e.problems).toEqual([
      'inline: hazelcast.security.realms[0].name: is required',
      'inline: hazelcast.security.realms[0].authentication.simple.users[0].username: is required',
      'inline: hazelcast.security.realms[0].authentication.simple.users[0].password: is required',
    ]);
  });
});

describe('YAML parsing', () => {
  it('rejects malformed YAML and a missing hazelcast root', () => {
    expect(configErrorOf(() => parseConfigText('hazelcast:\n  a: [1,\n', 'yaml', 'bad.yaml')).message).toMatch(
      /^bad\.yaml: YAML is not well-formed/,
    );
    expect(configErrorOf(() => parseConfigText('grid:\n  cluster-name: x\n', 'yaml', 'bad.yaml')).message).toBe(
      'bad.yaml: the root element must be "hazelcast:"',
    );
  });

  it('accepts an empty hazelcast root and members as a comma-separated string', () => {
    expect(parseConfigText('hazelcast:\n', 'yaml', 'e.yaml').config.clusterName).toBe('dev');
    const c = parseConfigText('hazelcast:\n  network:\n    join:\n      tcp-ip:\n        members: "a, b:1"\n', 'yaml', 'm.yaml').config;
    expect(c.network.join.tcpIp.members).toEqual(['a', 'b:1']);
  });
});

describe('loadConfigFile', () => {
  it('names an unreadable file', () => {
    const e = configErrorOf(() => loadConfigFile('/nonexistent/grid.yaml'));
    expect(e.message).toBe('/nonexistent/grid.yaml: cannot read config file: no such file');
  });

  it('rejects an unknown extension', () => {
    expect(configErrorOf(() => loadConfigFile('grid.json')).message).toMatch(/^grid\.json: unknown config file type/);
  });
});
