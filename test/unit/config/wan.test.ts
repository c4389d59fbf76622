import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  MERGE_POLICY_NAMES,
  configFromObject,
  findMapConfig,
  isHostPort,
  loadConfigFile,
  parseConfigText,
} from '../../../src/config/index.js';
import { DEFAULT_MAP, MAX_MERKLE_TREE_DEPTH, MIN_MERKLE_TREE_DEPTH } from '../../../src/config/defaults.js';
import { MERKLE_DEFAULT_DEPTH, MERKLE_MAX_DEPTH, MERKLE_MIN_DEPTH } from '../../../src/wan/merkle-tree.js';
import { configErrorOf, plain } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const configPath = (p: string): string => join(ROOT, 'config', p);

const yaml = (body: string): ReturnType<typeof parseConfigText> => parseConfigText(`hazelcast:\n${body}`, 'yaml', 'grid.yaml');
const xml = (body: string): ReturnType<typeof parseConfigText> =>
  parseConfigText(`<hazelcast xmlns="http://www.hazelcast.com/schema/config">${body}</hazelcast>`, 'xml', 'grid.xml');

/** A minimal valid wan-replication "w" (publisher "b") for maps to refer to, XML. */
const WAN_XML = `<wan-replication name="w"><batch-publisher><cluster-name>b</cluster-name><target-endpoints>h:5701</target-endpoints></batch-publisher></wan-replication>`;
const WAN_OBJ = { w: { 'batch-publisher': { b: { 'cluster-name': 'b', 'target-endpoints': 'h:5701' } } } };

describe('map merkle-tree', () => {
  it('reads XML and YAML alike', () => {
    const x = xml(`
      <map name="orders"><merkle-tree enabled="true"><depth>12</depth></merkle-tree></map>
      <map name="small"><merkle-tree enabled="true"/></map>
      <map name="off"><merkle-tree enabled="false"><depth>20</depth></merkle-tree></map>
      <map name="plain"/>`);
    const y = yaml(`  map:
    orders:
      merkle-tree:
        enabled: true
        depth: 12
    small:
      merkle-tree: {enabled: true}
    off:
      merkle-tree: {enabled: false, depth: 20}
    plain: {}
`);
    for (const r of [x, y]) {
      expect(r.warnings).toEqual([]);
      expect(r.config.maps.map((m) => [m.name, m.merkleTree])).toEqual([
        ['orders', { enabled: true, depth: 12 }],
        ['small', { enabled: true, depth: 10 }],
        ['off', { enabled: false, depth: 20 }],
        ['plain', { enabled: false, depth: 10 }],
      ]);
    }
    expect(plain(x.config.maps)).toEqual(plain(y.config.maps));
  });

  it('defaults to off with depth 10, also for maps no entry matches', () => {
    expect(DEFAULT_MAP.merkleTree).toEqual({ enabled: false, depth: 10 });
    const c = configFromObject({ map: { m: {} } }).config;
    expect(c.maps[0]?.merkleTree).toEqual({ enabled: false, depth: 10 });
    expect(findMapConfig(c, 'undeclared').merkleTree).toEqual({ enabled: false, depth: 10 });
  });

  it('a wildcard or default entry gives its merkle-tree to the maps it matches', () => {
    const c = configFromObject({
      map: { default: { 'merkle-tree': { enabled: true } }, 'orders*': { 'merkle-tree': { enabled: true, depth: 16 } } },
    }).config;
    expect(findMapConfig(c, 'orders-eu').merkleTree).toEqual({ enabled: true, depth: 16 });
    expect(findMapConfig(c, 'other').merkleTree).toEqual({ enabled: true, depth: 10 });
  });

  it('keeps the same depth limits and default as the Merkle tree itself (config does not import wan/)', () => {
    expect([MIN_MERKLE_TREE_DEPTH, MAX_MERKLE_TREE_DEPTH, DEFAULT_MAP.merkleTree.depth]).toEqual([
      MERKLE_MIN_DEPTH,
      MERKLE_MAX_DEPTH,
      MERKLE_DEFAULT_DEPTH,
    ]);
  });

  it('accepts depth 2 and 27, refuses anything else naming the path', () => {
    for (const depth of [2, 27]) {
      expect(configFromObject({ map: { m: { 'merkle-tree': { enabled: true, depth } } } }).config.maps[0]?.merkleTree.depth).toBe(depth);
    }
    for (const [depth, shown] of [
      [1, '1'],
      [28, '28'],
      [0, '0'],
      [-3, '-3'],
      ['10.5', '"10.5"'],
      ['deep', '"deep"'],
    ] as const) {
      expect(configErrorOf(() => configFromObject({ map: { m: { 'merkle-tree': { enabled: true, depth } } } })).message).toBe(
        `inline: hazelcast.map.m.merkle-tree.depth: must be an integer 2-27, got ${shown}`,
      );
    }
    expect(configErrorOf(() => xml('<map name="orders"><merkle-tree enabled="true"><depth>40</depth></merkle-tree></map>')).message).toBe(
      'grid.xml: hazelcast.map.orders.merkle-tree.depth: must be an integer 2-27, got "40"',
    );
  });

  it('refuses an enabled that is not a boolean and a merkle-tree that is not a mapping', () => {
    expect(configErrorOf(() => configFromObject({ map: { m: { 'merkle-tree': { enabled: 'yes' } } } })).message).toBe(
      'inline: hazelcast.map.m.merkle-tree.enabled: must be true or false, got "yes"',
    );
    expect(configErrorOf(() => configFromObject({ map: { m: { 'merkle-tree': 'on' } } })).message).toBe(
      'inline: hazelcast.map.m.merkle-tree: must be a mapping, got "on"',
    );
  });

  it('without enabled it stays off, with a warning; unknown children are warned about', () => {
    const r = xml('<map name="m"><merkle-tree><depth>12</depth><colour>red</colour></merkle-tree></map>');
    expect(r.config.maps[0]?.merkleTree).toEqual({ enabled: false, depth: 12 });
    expect(r.warnings).toEqual([
      'grid.xml: hazelcast.map.m.merkle-tree.enabled: not set: the Merkle tree stays disabled; set enabled to true to use it',
      'grid.xml: hazelcast.map.m.merkle-tree.colour: unknown element, ignored',
    ]);
    // An empty YAML value is no merkle-tree at all: nothing to warn about.
    const y = yaml('  map:\n    m:\n      merkle-tree:\n');
    expect(y.warnings).toEqual([]);
    expect(y.config.maps[0]?.merkleTree).toEqual({ enabled: false, depth: 10 });
  });

  it("a top-level merkle-tree (Hazelcast 3.x) is warned about and ignored", () => {
    const r = xml('<merkle-tree enabled="true"><mapName>orders</mapName><depth>10</depth></merkle-tree><map name="orders"/>');
    expect(r.config.maps[0]?.merkleTree).toEqual({ enabled: false, depth: 10 });
    expect(r.warnings).toEqual([
      'grid.xml: hazelcast.merkle-tree: the top-level merkle-tree of Hazelcast 3.x is not supported; put merkle-tree inside the map (ignored)',
    ]);
  });
});

describe('wan-replication-ref merge-policy-class-name', () => {
  it('is stored as the simple name, written with or without com.hazelcast.spi.merge.', () => {
    const x = xml(`${WAN_XML}
      <map name="a"><wan-replication-ref name="w"><merge-policy-class-name>com.hazelcast.spi.merge.LatestUpdateMergePolicy</merge-policy-class-name></wan-replication-ref></map>
      <map name="b"><wan-replication-ref name="w"><merge-policy-class-name> PutIfAbsentMergePolicy </merge-policy-class-name><republishing-enabled>false</republishing-enabled></wan-replication-ref></map>
      <map name="c"><wan-replication-ref name="w"/></map>`);
    const y = parseConfigText(
      `hazelcast:
  wan-replication:
    w:
      batch-publisher:
        b: {cluster-name: b, target-endpoints: "h:5701"}
  map:
    a:
      wan-replication-ref:
        w: {merge-policy-class-name: com.hazelcast.spi.merge.LatestUpdateMergePolicy}
    b:
      wan-replication-ref:
        w: {merge-policy-class-name: PutIfAbsentMergePolicy, republishing-enabled: false}
    c:
      wan-replication-ref:
        w: {}
`,
      'yaml',
      'grid.yaml',
    );
    for (const r of [x, y]) {
      expect(r.warnings).toEqual([]);
      expect(r.config.maps.map((m) => m.wanReplicationRef)).toEqual([
        { name: 'w', mergePolicyClassName: 'LatestUpdateMergePolicy', republishingEnabled: true },
        { name: 'w', mergePolicyClassName: 'PutIfAbsentMergePolicy', republishingEnabled: false },
        { name: 'w', mergePolicyClassName: 'PassThroughMergePolicy', republishingEnabled: true },
      ]);
    }
  });

  it('accepts every merge policy, with and without the package', () => {
    for (const policy of MERGE_POLICY_NAMES) {
      for (const written of [policy, `com.hazelcast.spi.merge.${policy}`]) {
        const c = configFromObject({ 'wan-replication': WAN_OBJ, map: { m: { 'wan-replication-ref': { w: { 'merge-policy-class-name': written } } } } });
        expect(c.config.maps[0]?.wanReplicationRef?.mergePolicyClassName).toBe(policy);
      }
    }
  });

  it('refuses an unknown policy, naming the path and the allowed names', () => {
    for (const written of ['com.acme.MyPolicy', 'passthroughmergepolicy', 'com.hazelcast.map.merge.PassThroughMergePolicy', 'PassThrough', '']) {
      const e = configErrorOf(() =>
        configFromObject({ 'wan-replication': WAN_OBJ, map: { orders: { 'wan-replication-ref': { w: { 'merge-policy-class-name': written } } } } }),
      );
      expect(e.problems).toEqual([
        `inline: hazelcast.map.orders.wan-replication-ref.w.merge-policy-class-name: unknown merge policy ${JSON.stringify(written)}: one of ${MERGE_POLICY_NAMES.join(', ')} (with or without com.hazelcast.spi.merge.)`,
      ]);
    }
  });

  it('the map merge-policy follows the same rule: another package is another class', () => {
    const e = configErrorOf(() => configFromObject({ map: { m: { 'merge-policy': 'com.acme.PutIfAbsentMergePolicy' } } }));
    expect(e.problems).toEqual([
      `inline: hazelcast.map.m.merge-policy: unknown merge policy "com.acme.PutIfAbsentMergePolicy": one of ${MERGE_POLICY_NAMES.join(', ')} (with or without com.hazelcast.spi.merge.)`,
    ]);
  });

  it('refuses a republishing-enabled that is not a boolean', () => {
    const e = configErrorOf(() => configFromObject({ 'wan-replication': WAN_OBJ, map: { m: { 'wan-replication-ref': { w: { 'republishing-enabled': 'maybe' } } } } }));
    expect(e.message).toBe('inline: hazelcast.map.m.wan-replication-ref.w.republishing-enabled: must be true or false, got "maybe"');
  });
});

describe('batch-publisher', () => {
  it("Grid's own heartbeat-interval-millis and heartbeat-timeout-millis: XML and YAML alike, defaults 1000 and 5000, 0 turns the probes off", () => {
    const x = xml(`<wan-replication name="w"><batch-publisher><cluster-name>b</cluster-name><target-endpoints>h:5701</target-endpoints>
      <heartbeat-interval-millis>200</heartbeat-interval-millis><heartbeat-timeout-millis>1500</heartbeat-timeout-millis></batch-publisher></wan-replication>`);
    const y = yaml(`  wan-replication:
    w:
      batch-publisher:
        b:
          cluster-name: b
          target-endpoints: h:5701
          heartbeat-interval-millis: 200
          heartbeat-timeout-millis: 1500
`);
    for (const r of [x, y]) {
      expect(r.warnings).toEqual([]);
      expect(r.config.wanReplication[0]?.batchPublishers[0]).toMatchObject({ heartbeatIntervalMillis: 200, heartbeatTimeoutMillis: 1500 });
    }
    expect(configFromObject({ 'wan-replication': WAN_OBJ }).config.wanReplication[0]?.batchPublishers[0]).toMatchObject({ heartbeatIntervalMillis: 1000, heartbeatTimeoutMillis: 5000 });
    const off = configFromObject({ 'wan-replication': { w: { 'batch-publisher': { b: { 'target-endpoints': 'h:1', 'heartbeat-timeout-millis': 0 } } } } });
    expect(off.config.wanReplication[0]?.batchPublishers[0]?.heartbeatTimeoutMillis).toBe(0);
  });

  it('refuses a heartbeat timeout that is not above the interval, and an interval below 1, naming the path', () => {
    const at = (p: Record<string, unknown>): string => configErrorOf(() => configFromObject({ 'wan-replication': { w: { 'batch-publisher': { b: { 'target-endpoints': 'h:1', ...p } } } } })).message;
    expect(at({ 'heartbeat-interval-millis': 6000 })).toBe(
      'inline: hazelcast.wan-replication.w.batch-publisher.b.heartbeat-timeout-millis: must be 0 (off) or greater than heartbeat-interval-millis (6000), got 5000',
    );
    expect(at({ 'heartbeat-timeout-millis': 1000 })).toMatch(/heartbeat-timeout-millis: must be 0 \(off\) or greater than heartbeat-interval-millis \(1000\), got 1000/);
    expect(at({ 'heartbeat-interval-millis': 0 })).toMatch(/batch-publisher\.b\.heartbeat-interval-millis/);
  });

  it('refuses an empty cluster-name', () => {
    const e = configErrorOf(() => configFromObject({ 'wan-replication': { w: { 'batch-publisher': { p: { 'cluster-name': '', 'target-endpoints': 'h:1' } } } } }));
    expect(e.message).toBe('inline: hazelcast.wan-replication.w.batch-publisher.p.cluster-name: must not be empty: the cluster name of the target cluster');
  });

  it('isHostPort (exported for addWanConfig) accepts what target-endpoints accepts', () => {
    for (const ok of ['h', 'h:5701', '10.0.0.1:1', 'db.example.com:65535', '[::1]:5701', '::1', '[fe80::1]']) expect(isHostPort(ok)).toBe(true);
    for (const bad of ['h:0', 'h:65536', 'h:x', 'h:', ':5701', 'a b:1', '10.0.0.1:5701:1', '']) expect(isHostPort(bad)).toBe(false);
  });
});

describe('unsupported WAN elements are warned about by name', () => {
  const DISCOVERY = 'WAN discovery plugins are not supported; list target-endpoints instead (ignored)';
  const DISCOVERY_ONLY = 'only used with WAN discovery, which Grid does not support; list target-endpoints instead (ignored)';
  const PUB = 'hazelcast.wan-replication.rep.batch-publisher.b';
  const expected = (src: string): string[] => [
    `${src}: hazelcast.map.m.wan-replication-ref.rep.filters: WAN event filters are not supported; every mutation of the map is replicated (ignored)`,
    `${src}: ${PUB}.sync.custom-thing: not supported: consistency-check-strategy is the only setting of sync (ignored)`,
    `${src}: ${PUB}.discovery-strategies: ${DISCOVERY}`,
    `${src}: ${PUB}.aws: ${DISCOVERY}`,
    `${src}: ${PUB}.gcp: ${DISCOVERY}`,
    `${src}: ${PUB}.azure: ${DISCOVERY}`,
    `${src}: ${PUB}.kubernetes: ${DISCOVERY}`,
    `${src}: ${PUB}.eureka: ${DISCOVERY}`,
    `${src}: ${PUB}.discovery-period-seconds: ${DISCOVERY_ONLY}`,
    `${src}: ${PUB}.max-target-endpoints: ${DISCOVERY_ONLY}`,
    `${src}: ${PUB}.use-endpoint-private-address: ${DISCOVERY_ONLY}`,
    `${src}: ${PUB}.endpoint: not read: every publisher dials the target member ports with the ssl of the first advanced-network wan-endpoint-config (else the member endpoint's) (ignored)`,
    `${src}: ${PUB}.properties: batch-publisher properties are not supported (ignored)`,
    `${src}: ${PUB}.idle-min-park-ns: not supported: Grid's publisher is driven by events and timers, not a polling thread (ignored)`,
    `${src}: ${PUB}.idle-max-park-ns: not supported: Grid's publisher is driven by events and timers, not a polling thread (ignored)`,
    `${src}: ${PUB}.snapshot-enabled: not supported: every event is sent in order, none is coalesced per key (ignored)`,
    `${src}: ${PUB}.max-concurrent-invocations: not supported: one batch is in flight per target endpoint, which keeps the order per key (ignored)`,
    `${src}: ${PUB}.colour: unknown element, ignored`,
    `${src}: hazelcast.wan-replication.rep.custom-publisher: custom WAN publishers are not supported; use batch-publisher (ignored)`,
    `${src}: hazelcast.wan-replication.rep.consumer: custom WAN consumers are not supported; Grid always accepts WAN batches from clusters that authenticate as WAN peers (ignored)`,
  ];

  it('XML', () => {
    const r = xml(`
      <wan-replication name="rep">
        <batch-publisher>
          <cluster-name>B</cluster-name>
          <publisher-id>b</publisher-id>
          <target-endpoints>10.0.0.1:5701</target-endpoints>
          <discovery-strategies><discovery-strategy class="com.acme.Strategy" enabled="true"/></discovery-strategies>
          <aws enabled="true"><access-key>k</access-key></aws>
          <gcp enabled="true"/>
          <azure enabled="true"/>
          <kubernetes enabled="true"/>
          <eureka enabled="true"/>
          <discovery-period-seconds>20</discovery-period-seconds>
          <max-target-endpoints>3</max-target-endpoints>
          <use-endpoint-private-address>true</use-endpoint-private-address>
          <endpoint>wan-endpoint</endpoint>
          <properties><property name="x">y</property></properties>
          <idle-min-park-ns>10</idle-min-park-ns>
          <idle-max-park-ns>100</idle-max-park-ns>
          <snapshot-enabled>true</snapshot-enabled>
          <max-concurrent-invocations>4</max-concurrent-invocations>
          <sync><consistency-check-strategy>MERKLE_TREES</consistency-check-strategy><custom-thing>1</custom-thing></sync>
          <colour>red</colour>
        </batch-publisher>
        <custom-publisher><publisher-id>c</publisher-id><class-name>com.acme.Publisher</class-name></custom-publisher>
        <consumer><class-name>com.acme.Consumer</class-name><persist-wan-replicated-data>true</persist-wan-replicated-data></consumer>
      </wan-replication>
      <map name="m">
        <wan-replication-ref name="rep">
          <filters><filter-impl>com.acme.Filter</filter-impl></filters>
        </wan-replication-ref>
      </map>`);
    expect(r.warnings).toEqual(expected('grid.xml'));
    // What is supported is still read.
    expect(r.config.wanReplication[0]?.batchPublishers[0]).toMatchObject({
      publisherId: 'b',
      targetEndpoints: ['10.0.0.1:5701'],
      consistencyCheckStrategy: 'MERKLE_TREES',
    });
    expect(r.config.maps[0]?.wanReplicationRef?.name).toBe('rep');
  });

  it('YAML', () => {
    const r = yaml(`  wan-replication:
    rep:
      batch-publisher:
        b:
          cluster-name: B
          target-endpoints: 10.0.0.1:5701
          discovery-strategies:
            discovery-strategies:
              - class: com.acme.Strategy
          aws: {enabled: true, access-key: k}
          gcp: {enabled: true}
          azure: {enabled: true}
          kubernetes: {enabled: true}
          eureka: {enabled: true}
          discovery-period-seconds: 20
          max-target-endpoints: 3
          use-endpoint-private-address: true
          endpoint: wan-endpoint
          properties: {x: y}
          idle-min-park-ns: 10
          idle-max-park-ns: 100
          snapshot-enabled: true
          max-concurrent-invocations: 4
          sync:
            consistency-check-strategy: MERKLE_TREES
            custom-thing: 1
          colour: red
      custom-publisher:
        c: {class-name: com.acme.Publisher}
      consumer:
        class-name: com.acme.Consumer
  map:
    m:
      wan-replication-ref:
        rep:
          filters: [com.acme.Filter]
`);
    expect(r.warnings).toEqual(expected('grid.yaml'));
  });

  it('a discovery plugin switched off is accepted silently; one with enabled missing is warned about', () => {
    const r = configFromObject({
      'wan-replication': {
        rep: { 'batch-publisher': { b: { 'target-endpoints': 'h:1', aws: { enabled: false }, gcp: { enabled: 'false' }, eureka: {} } } },
      },
    });
    expect(r.warnings).toEqual([`inline: ${PUB}.eureka: ${DISCOVERY}`]);
  });
});

describe('the shipped WAN examples', () => {
  it.each(['wan-source', 'wan-target'])('%s loads without warnings, XML and YAML equal', (name) => {
    const x = loadConfigFile(configPath(`examples/${name}.xml`));
    const y = loadConfigFile(configPath(`examples/${name}.yaml`));
    expect(x.warnings).toEqual([]);
    expect(y.warnings).toEqual([]);
    expect(plain({ ...x.config, source: '' })).toEqual(plain({ ...y.config, source: '' }));
    expect(findMapConfig(x.config, 'orders').merkleTree).toEqual({ enabled: true, depth: 10 });
  });

  it('wan-source refers to its replication with PassThrough', () => {
    const c = loadConfigFile(configPath('examples/wan-source.xml')).config;
    expect(findMapConfig(c, 'orders').wanReplicationRef).toEqual({ name: 'to-b', mergePolicyClassName: 'PassThroughMergePolicy', republishingEnabled: true });
    expect(c.wanReplication[0]?.batchPublishers[0]?.consistencyCheckStrategy).toBe('MERKLE_TREES');
  });
});
