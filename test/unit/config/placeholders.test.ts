import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfigText } from '../../../src/config/index.js';

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('${name} placeholders', () => {
  const yaml = `hazelcast:
  cluster-name: \${cluster.name}
  network:
    port:
      port: \${port}
    join:
      tcp-ip:
        enabled: true
        member-list:
          - 127.0.0.1:\${port}
          - \${second.member}
  map:
    \${map.name}:
      backup-count: 2
`;

  it('are filled from --property values first, then the variable of that name, then its upper-case form', () => {
    const { config, warnings } = parseConfigText(yaml, 'yaml', 'p.yaml', { 'cluster.name': 'exact', PORT: '6000', SECOND_MEMBER: '10.0.0.2', MAP_NAME: 'env-map' }, {
      properties: new Map([['map.name', 'orders']]),
    });
    expect(warnings).toEqual([]);
    expect(config.clusterName).toBe('exact');
    expect(config.network.port.port).toBe(6000);
    expect(config.network.join.tcpIp.members).toEqual(['127.0.0.1:6000', '10.0.0.2']);
    expect(config.maps.map((m) => [m.name, m.backupCount])).toEqual([['orders', 2]]);
  });

  it('one nothing fills is a warning naming it and its path; its setting is left unset, not taken literally', () => {
    const { config, warnings } = parseConfigText(yaml, 'yaml', 'p.yaml', {}, { properties: new Map([['port', '6001']]) });
    expect(config.clusterName).toBe('dev');
    expect(config.network.join.tcpIp.members).toEqual(['127.0.0.1:6001']);
    expect(config.maps.map((m) => m.name)).toEqual(['${map.name}']);
    expect(warnings).toEqual([
      'p.yaml: hazelcast.cluster-name: placeholder ${cluster.name} is not set, the setting is left unset (set it with --property cluster.name=... or the environment variable cluster.name or CLUSTER_NAME)',
      'p.yaml: hazelcast.network.join.tcp-ip.member-list[1]: placeholder ${second.member} is not set, entry left out (set it with --property second.member=... or the environment variable second.member or SECOND_MEMBER)',
      'p.yaml: hazelcast.map.${map.name}: placeholder ${map.name} is not set, the name is kept as written (set it with --property map.name=... or the environment variable map.name or MAP_NAME)',
    ]);
  });

  it('work in XML attributes and text alike', () => {
    const xml = `<hazelcast>
      <cluster-name>\${cluster}</cluster-name>
      <network><port auto-increment="\${auto}">\${port}</port></network>
    </hazelcast>`;
    const { config } = parseConfigText(xml, 'xml', 'p.xml', { CLUSTER: 'x', AUTO: 'false' }, { properties: new Map([['port', '5999']]) });
    expect(config.clusterName).toBe('x');
    expect(config.network.port).toEqual({ port: 5999, autoIncrement: false, portCount: 100 });
  });

  it('warnings travel with the errors: an unset placeholder often explains an error', () => {
    const e = configErrorOf(() =>
      parseConfigText('hazelcast:\n  cluster-name: ${who}\n  network:\n    port:\n      port: 0\n  multimap: {a: {}}\n', 'yaml', 'p.yaml', {}),
    );
    expect(e.problems).toEqual(['p.yaml: hazelcast.network.port.port: must be an integer 1-65535, got 0']);
    expect(e.warnings).toEqual([
      expect.stringContaining('p.yaml: hazelcast.cluster-name: placeholder ${who} is not set'),
      'p.yaml: not used by Grid: multimap (1 element; `grid validate --verbose` lists their paths)',
    ]);
  });
});

describe('--port', () => {
  it('sets the member port over the file and the environment, and messages name it', () => {
    const text = 'hazelcast:\n  network:\n    port:\n      port: 5701\n';
    expect(parseConfigText(text, 'yaml', 'f.yaml', { HZ_NETWORK_PORT_PORT: '5801' }, { port: 5901 }).config.network.port.port).toBe(5901);
    const advanced = 'hazelcast:\n  advanced-network:\n    enabled: true\n    member-server-socket-endpoint-config:\n      port:\n        port: 5701\n';
    expect(parseConfigText(advanced, 'yaml', 'f.yaml', {}, { port: 5902 }).config.advancedNetwork.memberPort.port).toBe(5902);
    expect(configErrorOf(() => parseConfigText(text, 'yaml', 'f.yaml', {}, { port: 0 })).problems).toEqual([
      'f.yaml: hazelcast.network.port.port: must be an integer 1-65535, got "0" (set by --port)',
    ]);
  });
});

describe('YAML syntax errors', () => {
  const cases: [string, string][] = [
    ['hazelcast:\n  network:\n    port: 5701\n    port: 5702\n', '(line 4, column 5, at hazelcast.network.port): Map keys must be unique'],
    ['hazelcast:\n  cluster-name: a: b\n', '(line 2, column 17, at hazelcast.cluster-name'],
    [
      'hazelcast:\n  security:\n    realms:\n      - name: r\n        authentication:\n          simple:\n            users:\n              - username: a\n                password: "s3cret\n',
      '(line 10, column 1, at hazelcast.security.realms[0].authentication.simple.users[0].password): Missing closing "quote',
    ],
  ];
  for (const [text, says] of cases) {
    it(`say line, column and the key: ${says}`, () => {
      const e = configErrorOf(() => parseConfigText(text, 'yaml', 'y.yaml'));
      expect(e.problems).toHaveLength(1);
      expect(e.problems[0]).toContain(`y.yaml: YAML is not well-formed ${says}`);
      // The source text itself (a password) is never quoted.
      expect(e.message).not.toContain('s3cret');
    });
  }

  it('loadConfigFile passes the properties on', () => {
    expect(() => loadConfigFile('/nonexistent/x.yaml', {}, { properties: new Map() })).toThrow(ConfigError);
  });
});
