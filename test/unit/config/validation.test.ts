import { describe, it, expect } from 'vitest';
import { configFromObject, parseConfigText } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

const yaml = (body: string): (() => unknown) => () => parseConfigText(`hazelcast:\n${body}`, 'yaml', 'grid.yaml');
const xml = (body: string): (() => unknown) => () =>
  parseConfigText(`<hazelcast xmlns="http://www.hazelcast.com/schema/config">${body}</hazelcast>`, 'xml', 'grid.xml');

describe('validation errors name the source, the path and the problem', () => {
  it('bad port (YAML and XML)', () => {
    expect(configErrorOf(yaml('  network:\n    port:\n      port: abc\n')).message).toBe(
      'grid.yaml: hazelcast.network.port.port: must be an integer 1-65535, got "abc"',
    );
    expect(configErrorOf(xml('<network><port>70000</port></network>')).message).toBe(
      'grid.xml: hazelcast.network.port.port: must be an integer 1-65535, got "70000"',
    );
    expect(configErrorOf(xml('<network><port port-count="0">5701</port></network>')).message).toBe(
      'grid.xml: hazelcast.network.port.port-count: must be an integer 1-65535, got "0"',
    );
  });

  it('integers are strict', () => {
    for (const bad of ['1.5', '1e2', '0x10', '', ' ']) {
      expect(configErrorOf(() => configFromObject({ map: { m: { 'backup-count': bad } } })).problems).toEqual([
        `inline: hazelcast.map.m.backup-count: must be an integer 0-6, got ${JSON.stringify(bad)}`,
      ]);
    }
    expect(configFromObject({ map: { m: { 'backup-count': ' 2 ' } } }).config.maps[0]?.backupCount).toBe(2);
  });

  it('bad boolean', () => {
    expect(configErrorOf(xml('<network><port auto-increment="yes">5701</port></network>')).message).toBe(
      'grid.xml: hazelcast.network.port.auto-increment: must be true or false, got "yes"',
    );
    expect(configErrorOf(yaml('  lite-member:\n    enabled: 1\n')).message).toBe(
      'grid.yaml: hazelcast.lite-member.enabled: must be true or false, got 1',
    );
  });

  it('unknown endpoint group', () => {
    expect(configErrorOf(xml('<network><rest-api enabled="true"><endpoint-group name="FOO" enabled="true"/></rest-api></network>')).message).toBe(
      'grid.xml: hazelcast.network.rest-api.endpoint-groups.FOO: unknown endpoint group (known: CLUSTER_READ, CLUSTER_WRITE, HEALTH_CHECK, PERSISTENCE, WAN, DATA, CP, CONSOLE, HOT_RESTART)',
    );
  });

  it('negative backup-count and backup sum above 6', () => {
    expect(configErrorOf(yaml('  map:\n    orders:\n      backup-count: -1\n')).message).toBe(
      'grid.yaml: hazelcast.map.orders.backup-count: must be an integer 0-6, got -1',
    );
    expect(configErrorOf(yaml('  map:\n    orders:\n      backup-count: 9\n')).message).toBe(
      'grid.yaml: hazelcast.map.orders.backup-count: must be an integer 0-6, got 9',
    );
    expect(configErrorOf(xml('<queue name="q"><backup-count>4</backup-count><async-backup-count>3</async-backup-count></queue>')).message).toBe(
      'grid.xml: hazelcast.queue.q.async-backup-count: backup-count + async-backup-count must be at most 6, got 4 + 3',
    );
  });

  it('queue and map limits', () => {
    expect(configErrorOf(() => configFromObject({ queue: { q: { 'empty-queue-ttl': -2, 'max-size': -1 } } })).problems).toEqual([
      'inline: hazelcast.queue.q.max-size: must be an integer >= 0, got -1',
      'inline: hazelcast.queue.q.empty-queue-ttl: must be an integer >= -1, got -2',
    ]);
    expect(configErrorOf(() => configFromObject({ map: { 'a*b*': {} } })).message).toBe(
      'inline: hazelcast.map.a*b*: a wildcard name may contain only one "*"',
    );
  });

  it('unknown realm', () => {
    expect(
      configErrorOf(
        xml(`<security enabled="true"><realms><realm name="r"/></realms>
             <member-authentication realm="nope"/><client-authentication realm="r"/></security>`),
      ).message,
    ).toBe('grid.xml: hazelcast.security.member-authentication.realm: realm "nope" is not defined under security.realms');
  });

  it('undefined wan-replication reference', () => {
    expect(configErrorOf(yaml('  map:\n    orders:\n      wan-replication-ref:\n        x: {}\n')).message).toBe(
      'grid.yaml: hazelcast.map.orders.wan-replication-ref.x: wan-replication "x" is not defined',
    );
  });

  it('bad member-list entries, with their index', () => {
    const e = configErrorOf(() =>
      configFromObject({
        network: {
          join: {
            'tcp-ip': {
              'member-list': ['10.0.0.1:5701', 'h:5701-5700', 'a/b', '300.1.1.1', '[zz]:1', '[::1]:5701-5703', 'h:0', 'ok, h:65535-65536'],
            },
          },
        },
      }),
    );
    expect(e.problems).toEqual([
      'inline: hazelcast.network.join.tcp-ip.member-list[1]: port range is reversed (5701 > 5700): "h:5701-5700"',
      'inline: hazelcast.network.join.tcp-ip.member-list[2]: not a host, host:port or host:port1-port2: "a/b"',
      'inline: hazelcast.network.join.tcp-ip.member-list[3]: an IPv4 octet is over 255: "300.1.1.1"',
      'inline: hazelcast.network.join.tcp-ip.member-list[4]: not an IPv6 address in brackets: "[zz]:1"',
      'inline: hazelcast.network.join.tcp-ip.member-list[6]: port must be 1-65535: "h:0"',
      'inline: hazelcast.network.join.tcp-ip.member-list[7]: port range goes past 65535: "h:65535-65536"',
    ]);
  });

  it('bad member entries in every form the lists come in', () => {
    expect(configErrorOf(xml('<network><join><tcp-ip><member-list><member>a</member><member>10.0.0.9-7</member></member-list></tcp-ip></join></network>')).message).toBe(
      'grid.xml: hazelcast.network.join.tcp-ip.member-list[1]: address range is reversed (9 > 7): "10.0.0.9-7"',
    );
    expect(configErrorOf(xml('<network><join><tcp-ip><members>h1; 10.0-1.0.1</members></tcp-ip></join></network>')).message).toBe(
      'grid.xml: hazelcast.network.join.tcp-ip.members: only the last octet of an IPv4 address may be a range: "10.0-1.0.1"',
    );
    expect(configErrorOf(yaml('  network:\n    join:\n      tcp-ip:\n        required-member: "h:x"\n')).message).toBe(
      'grid.yaml: hazelcast.network.join.tcp-ip.required-member: not a host, host:port or host:port1-port2: "h:x"',
    );
    expect(
      configErrorOf(() => configFromObject({ 'advanced-network': { enabled: true, join: { 'tcp-ip': { 'member-list': ['h:99999'] } } } })).message,
    ).toBe('inline: hazelcast.advanced-network.join.tcp-ip.member-list[0]: port must be 1-65535: "h:99999"');
  });

  it('member entries split at commas, semicolons and spaces, as Hazelcast splits them', () => {
    const c = configFromObject({
      network: { join: { 'tcp-ip': { 'member-list': ['a b', 'c;d:5702', ' e ,\tf '], members: '10.0.0.1-3:5701  [::1]' } } },
    }).config;
    expect(c.network.join.tcpIp.members).toEqual(['a', 'b', 'c', 'd:5702', 'e', 'f', '10.0.0.1-3:5701', '[::1]']);
    const x = parseConfigText(
      '<hazelcast><network><join><tcp-ip enabled="true"><members>127.0.0.1, 127.0.0.2</members></tcp-ip></join></network></hazelcast>',
      'xml',
      'grid.xml',
    ).config;
    expect(x.network.join.tcpIp.members).toEqual(['127.0.0.1', '127.0.0.2']);
  });

  it('bad public-address and WAN target', () => {
    expect(configErrorOf(() => configFromObject({ network: { 'public-address': 'h:1-2' } })).message).toBe(
      'inline: hazelcast.network.public-address: not a host or host:port: "h:1-2"',
    );
    const e = configErrorOf(() =>
      configFromObject({ 'wan-replication': { w: { 'batch-publisher': { p: { 'target-endpoints': 'ok:1,bad:x' } } } } }),
    );
    expect(e.message).toBe('inline: hazelcast.wan-replication.w.batch-publisher.p.target-endpoints: not a host or host:port: "bad:x"');
    expect(configErrorOf(() => configFromObject({ 'wan-replication': { w: { 'batch-publisher': { p: {} } } } })).message).toBe(
      'inline: hazelcast.wan-replication.w.batch-publisher.p.target-endpoints: must list at least one host:port of the target cluster',
    );
  });

  it('bad WAN enum', () => {
    const e = configErrorOf(() =>
      configFromObject({
        'wan-replication': { w: { 'batch-publisher': { p: { 'target-endpoints': 'h:1', 'acknowledge-type': 'SOMETIMES' } } } },
      }),
    );
    expect(e.message).toBe(
      'inline: hazelcast.wan-replication.w.batch-publisher.p.acknowledge-type: must be one of ACK_ON_RECEIPT, ACK_ON_OPERATION_COMPLETE, got "SOMETIMES"',
    );
  });

  it('bad property numbers and level', () => {
    expect(configErrorOf(xml('<properties><property name="grid.rest.max-body-bytes">lots</property></properties>')).message).toBe(
      'grid.xml: hazelcast.properties.grid.rest.max-body-bytes: must be an integer >= 1, got "lots"',
    );
    expect(configErrorOf(() => configFromObject({ properties: { 'hazelcast.logging.level': 'verbose' } })).message).toBe(
      'inline: hazelcast.properties.hazelcast.logging.level: must be one of OFF, SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST, ALL, got "verbose"',
    );
  });

  it('partition count other than 271', () => {
    expect(configErrorOf(() => configFromObject({ properties: { 'hazelcast.partition.count': 1000 } })).message).toBe(
      'inline: hazelcast.properties.hazelcast.partition.count: Grid always uses 271 partitions, got "1000"',
    );
    expect(configFromObject({ properties: { 'hazelcast.partition.count': 271 } }).config.tuning.partitionCount).toBe(271);
  });

  it('reports every problem, one per line', () => {
    const e = configErrorOf(yaml('  cluster-name: ""\n  network:\n    port: 0\n  map:\n    m:\n      backup-count: x\n'));
    expect(e.problems).toHaveLength(3);
    expect(e.message.split('\n')).toEqual([
      'grid.yaml: hazelcast.cluster-name: must not be empty',
      'grid.yaml: hazelcast.network.port: must be an integer 1-65535, got 0',
      'grid.yaml: hazelcast.map.m.backup-count: must be an integer 0-6, got "x"',
    ]);
  });

  it('a repeated single-valued XML element is an error', () => {
    expect(configErrorOf(xml('<cluster-name>a</cluster-name><cluster-name>b</cluster-name>')).message).toBe(
      'grid.xml: hazelcast.cluster-name: must be a single value, got a list',
    );
  });

  it('duplicate names in XML', () => {
    expect(configErrorOf(xml('<map name="m"/><map name="m"/>')).message).toBe('grid.xml: hazelcast.map.m: duplicate map name "m"');
    expect(configErrorOf(xml('<map/>')).message).toBe('grid.xml: hazelcast.map: <map> needs a name attribute');
  });

  it('property values grid.* win over hazelcast.*', () => {
    const c = configFromObject({
      properties: { 'hazelcast.logging.level': 'fine', 'grid.logging.level': 'warning', 'hazelcast.rest.max-body-bytes': 5 },
    }).config;
    expect(c.tuning.logLevel).toBe('WARNING');
    expect(c.tuning.restMaxBodyBytes).toBe(5);
    expect(c.properties.get('hazelcast.logging.level')).toBe('fine');
  });
});

describe('HOT_RESTART and advanced-network', () => {
  it('HOT_RESTART is PERSISTENCE', () => {
    const c = configFromObject({ network: { 'rest-api': { enabled: true, 'endpoint-groups': { HOT_RESTART: { enabled: true } } } } }).config;
    expect(c.network.restApi.enabledGroups.has('PERSISTENCE')).toBe(true);
    const x = parseConfigText(
      '<hazelcast><network><rest-api enabled="true"><endpoint-group name="HOT_RESTART" enabled="true"/></rest-api></network></hazelcast>',
      'xml',
      'h.xml',
    ).config;
    expect([...x.network.restApi.enabledGroups].sort()).toEqual(['CLUSTER_READ', 'HEALTH_CHECK', 'PERSISTENCE']);
  });

  it('gives REST its own port and groups, XML and YAML alike', () => {
    const fromXml = parseConfigText(
      `<hazelcast>
        <advanced-network enabled="true">
          <join><tcp-ip enabled="true"><member>h:5701</member></tcp-ip></join>
          <member-server-socket-endpoint-config><port auto-increment="false">5801</port></member-server-socket-endpoint-config>
          <rest-server-socket-endpoint-config name="rest">
            <port auto-increment="true">9090</port>
            <endpoint-groups><endpoint-group name="DATA" enabled="true"/><endpoint-group name="HEALTH_CHECK" enabled="false"/></endpoint-groups>
          </rest-server-socket-endpoint-config>
        </advanced-network>
      </hazelcast>`,
      'xml',
      'a.xml',
    );
    const fromYaml = configFromObject({
      'advanced-network': {
        enabled: true,
        join: { 'tcp-ip': { enabled: true, 'member-list': ['h:5701'] } },
        'member-server-socket-endpoint-config': { port: { port: 5801, 'auto-increment': false } },
        'rest-server-socket-endpoint-config': {
          port: { port: 9090, 'auto-increment': true },
          'endpoint-groups': { DATA: { enabled: true }, HEALTH_CHECK: { enabled: false } },
        },
      },
    });
    for (const { config, warnings } of [fromXml, fromYaml]) {
      expect(warnings).toEqual([]);
      const adv = config.advancedNetwork;
      expect(adv.enabled).toBe(true);
      expect(adv.memberPort).toEqual({ port: 5801, autoIncrement: false, portCount: 100 });
      expect(adv.rest?.port).toEqual({ port: 9090, autoIncrement: true, portCount: 100 });
      expect([...(adv.rest?.enabledGroups ?? [])].sort()).toEqual(['CLUSTER_READ', 'DATA']);
      // REST settings follow the endpoint; join comes from advanced-network.
      expect(config.network.restApi.enabled).toBe(true);
      expect(config.network.join.tcpIp.members).toEqual(['h:5701']);
    }
  });

  it('REST endpoint port defaults to 8080; without a REST endpoint REST is off', () => {
    const c = configFromObject({ 'advanced-network': { enabled: true, 'rest-server-socket-endpoint-config': {} } }).config;
    expect(c.advancedNetwork.rest?.port).toEqual({ port: 8080, autoIncrement: true, portCount: 100 });
    expect(c.advancedNetwork.memberPort.port).toBe(5701);
    const { config, warnings } = configFromObject({
      network: { 'rest-api': { enabled: true } },
      'advanced-network': { enabled: true },
    });
    expect(config.advancedNetwork.rest).toBeUndefined();
    expect(config.network.restApi.enabled).toBe(false);
    expect(warnings).toEqual([
      'inline: hazelcast.network.rest-api: ignored while advanced-network is enabled; use rest-server-socket-endpoint-config',
    ]);
  });

  it('disabled advanced-network: memberPort is network.port and rest is undefined', () => {
    const c = configFromObject({
      network: { port: { port: 6000 } },
      'advanced-network': { enabled: false, 'rest-server-socket-endpoint-config': { port: 9000 } },
    }).config;
    expect(c.advancedNetwork).toEqual({ enabled: false, memberPort: { port: 6000, autoIncrement: true, portCount: 100 }, rest: undefined });
  });
});

describe('passwords', () => {
  const SECRET = 'S3cr3t-Pa55';

  it('never appear in errors or warnings', () => {
    const e = configErrorOf(() =>
      configFromObject({
        security: {
          enabled: 'maybe',
          realms: [
            {
              name: 'r',
              authentication: { simple: { users: [{ username: 'u', password: { nested: SECRET } }, { password: SECRET }] } },
              identity: { 'username-password': { username: 'm', password: [SECRET] }, foo: SECRET },
              bar: SECRET,
            },
          ],
          'client-authentication': { realm: 'missing' },
        },
      }),
    );
    expect(e.problems.length).toBeGreaterThanOrEqual(4);
    expect(e.message).not.toContain(SECRET);
    expect(e.message).toContain('hazelcast.security.realms[0].authentication.simple.users[0].password: must be a single value, got something else');
    expect(e.message).toContain('hazelcast.security.realms[0].authentication.simple.users[1].username: is required');
  });

  it('never appear in XML or YAML parse errors', () => {
    const badYaml = `hazelcast:\n  security:\n    realms:\n      - name: r\n        identity: {username-password: {username: u, password: "${SECRET}}\n`;
    expect(configErrorOf(() => parseConfigText(badYaml, 'yaml', 'p.yaml')).message).not.toContain(SECRET);
    const badXml = `<hazelcast><security><realms><realm name="r"><identity><username-password username="u" password="${SECRET}"></identity></realm></realms></security></hazelcast>`;
    expect(configErrorOf(() => parseConfigText(badXml, 'xml', 'p.xml')).message).not.toContain(SECRET);
  });

  it('never appear in warnings', () => {
    const { warnings } = parseConfigText(
      `<hazelcast><security><realms><realm name="r"><authentication><simple>
        <user username="u" password="${SECRET}" extra="${SECRET}"><role>a</role></user>
      </simple></authentication></realm></realms></security></hazelcast>`,
      'xml',
      'w.xml',
    );
    expect(warnings).toEqual(['w.xml: hazelcast.security.realms[0].authentication.simple.users[0].extra: unknown element, ignored']);
    expect(warnings.join('\n')).not.toContain(SECRET);
  });
});
