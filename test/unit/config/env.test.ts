import { describe, it, expect } from 'vitest';
import { configFromObject, defaultConfig, parseConfigText } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

describe('environment overrides', () => {
  it('apply HZ_ variables to top-level and network settings', () => {
    const { config, warnings } = defaultConfig({
      HZ_CLUSTERNAME: 'x',
      HZ_INSTANCENAME: 'i1',
      HZ_NETWORK_PORT_PORT: '5801',
      HZ_NETWORK_PORT_AUTOINCREMENT: 'false',
      HZ_NETWORK_PORT_PORTCOUNT: '3',
      HZ_NETWORK_PUBLICADDRESS: '1.2.3.4:5801',
      HZ_NETWORK_RESTAPI_ENABLED: 'true',
      HZ_NETWORK_RESTAPI_ENDPOINTGROUPS_DATA_ENABLED: 'true',
      HZ_NETWORK_RESTAPI_ENDPOINTGROUPS_CLUSTER_WRITE_ENABLED: 'true',
      HZ_NETWORK_RESTAPI_ENDPOINTGROUPS_HEALTH_CHECK_ENABLED: 'false',
      HZ_NETWORK_JOIN_TCPIP_ENABLED: 'true',
      HZ_NETWORK_JOIN_TCPIP_MEMBERS: 'a,b:5701',
      HZ_LITEMEMBER_ENABLED: 'true',
      HZ_SECURITY_ENABLED: 'true',
    });
    expect(warnings).toEqual([]);
    expect(config.clusterName).toBe('x');
    expect(config.instanceName).toBe('i1');
    expect(config.network.port).toEqual({ port: 5801, autoIncrement: false, portCount: 3 });
    expect(config.network.publicAddress).toBe('1.2.3.4:5801');
    expect([...config.network.restApi.enabledGroups].sort()).toEqual(['CLUSTER_READ', 'CLUSTER_WRITE', 'DATA']);
    expect(config.network.join.tcpIp).toMatchObject({ enabled: true, members: ['a', 'b:5701'] });
    expect(config.liteMember).toBe(true);
    expect(config.security.enabled).toBe(true);
  });

  it('GRID_ wins over HZ_', () => {
    const { config } = defaultConfig({ HZ_CLUSTERNAME: 'hz', GRID_CLUSTERNAME: 'grid', HZ_NETWORK_PORT_PORT: '6000' });
    expect(config.clusterName).toBe('grid');
    expect(config.network.port.port).toBe(6000);
  });

  it('override file values; members replace the member list', () => {
    const { config } = parseConfigText(
      'hazelcast:\n  cluster-name: file\n  network:\n    port: 5701\n    join:\n      tcp-ip:\n        member-list: [h1, h2]\n',
      'yaml',
      'f.yaml',
      { HZ_CLUSTERNAME: 'env', HZ_NETWORK_PORT_AUTOINCREMENT: 'false', HZ_NETWORK_JOIN_TCPIP_MEMBERS: 'h3' },
    );
    expect(config.clusterName).toBe('env');
    expect(config.network.port).toEqual({ port: 5701, autoIncrement: false, portCount: 100 });
    expect(config.network.join.tcpIp.members).toEqual(['h3']);
  });

  it('HZ_NETWORK_PORT sets the port number', () => {
    expect(defaultConfig({ HZ_NETWORK_PORT: '5900' }).config.network.port.port).toBe(5900);
    const xml = parseConfigText('<hazelcast><network><port port-count="7">5701</port></network></hazelcast>', 'xml', 'p.xml', {
      GRID_NETWORK_PORT: '5902',
    });
    expect(xml.config.network.port).toEqual({ port: 5902, autoIncrement: true, portCount: 7 });
  });

  it('match map and queue names case-insensitively, else create lower-case entries', () => {
    const { config } = configFromObject(
      { map: { Orders: { 'backup-count': 2 } }, queue: { 'job-queue': {} } },
      {
        HZ_MAP_ORDERS_BACKUPCOUNT: '3',
        HZ_MAP_ORDERS_TIMETOLIVESECONDS: '60',
        HZ_MAP_MY_CACHE_BACKUPCOUNT: '0',
        HZ_QUEUE_JOBQUEUE_MAXSIZE: '10',
        HZ_QUEUE_TASKS_MAXSIZE: '5',
      },
    );
    expect(config.maps.map((m) => [m.name, m.backupCount, m.timeToLiveSeconds])).toEqual([
      ['Orders', 3, 60],
      ['my_cache', 0, 0],
    ]);
    expect(config.queues.map((q) => [q.name, q.maxSize])).toEqual([
      ['job-queue', 10],
      ['tasks', 5],
    ]);
  });

  it('reach advanced-network and security settings', () => {
    const { config, warnings } = configFromObject(
      { security: { realms: [{ name: 'r' }] } },
      {
        HZ_ADVANCEDNETWORK_ENABLED: 'true',
        HZ_ADVANCEDNETWORK_MEMBERSERVERSOCKETENDPOINTCONFIG_PORT_PORT: '5801',
        HZ_ADVANCEDNETWORK_RESTSERVERSOCKETENDPOINTCONFIG_PORT_PORT: '9000',
        HZ_ADVANCEDNETWORK_RESTSERVERSOCKETENDPOINTCONFIG_ENDPOINTGROUPS_WAN_ENABLED: 'true',
        HZ_SECURITY_CLIENTAUTHENTICATION_REALM: 'r',
        HZ_NETWORK_JOIN_TCPIP_CONNECTIONTIMEOUTSECONDS: '9',
      },
    );
    expect(warnings).toEqual([]);
    expect(config.advancedNetwork.memberPort.port).toBe(5801);
    expect(config.advancedNetwork.rest?.port.port).toBe(9000);
    expect(config.advancedNetwork.rest?.enabledGroups.has('WAN')).toBe(true);
    expect(config.security.clientAuthenticationRealm).toBe('r');
    expect(config.network.join.tcpIp.connectionTimeoutSeconds).toBe(9);
  });

  it('name the variable in errors', () => {
    expect(configErrorOf(() => defaultConfig({ HZ_NETWORK_PORT_PORT: 'abc' })).message).toBe(
      'defaults: hazelcast.network.port.port: must be an integer 1-65535, got "abc" (set by environment variable HZ_NETWORK_PORT_PORT)',
    );
  });

  it('warn about config-like variables Grid cannot apply and leave others alone', () => {
    const { warnings } = defaultConfig({
      HZ_NETWORK_FOO: '1',
      HZ_PROPERTIES_HAZELCAST_LOGGING_LEVEL: 'FINE',
      HZ_HOME: '/opt/hz',
      GRID_CONFIG: 'x.yaml',
      GRID_LOG: 'debug',
      PATH: '/bin',
    });
    expect(warnings).toEqual([
      'defaults: HZ_NETWORK_FOO: environment variable does not name a setting Grid can override, ignored',
      'defaults: HZ_PROPERTIES_HAZELCAST_LOGGING_LEVEL: environment variable does not name a setting Grid can override, ignored',
    ]);
  });

  it('are not applied without an env argument', () => {
    process.env['HZ_CLUSTERNAME'] = 'from-process';
    try {
      expect(defaultConfig().config.clusterName).toBe('dev');
    } finally {
      delete process.env['HZ_CLUSTERNAME'];
    }
  });
});
