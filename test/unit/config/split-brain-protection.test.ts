import { describe, it, expect } from 'vitest';
import { configFromObject, findMapConfig, findQueueConfig, findSplitBrainProtection, parseConfigText } from '../../../src/config/index.js';
import { configErrorOf, plain } from './helpers.js';

const yaml = (body: string): ReturnType<typeof parseConfigText> => parseConfigText(`hazelcast:\n${body}`, 'yaml', 'grid.yaml');
const xml = (body: string): ReturnType<typeof parseConfigText> =>
  parseConfigText(`<hazelcast xmlns="http://www.hazelcast.com/schema/config">${body}</hazelcast>`, 'xml', 'grid.xml');

const XML = `
  <split-brain-protection name="three" enabled="true">
    <minimum-cluster-size>3</minimum-cluster-size>
    <protect-on>READ_WRITE</protect-on>
    <member-count-split-brain-protection/>
  </split-brain-protection>
  <split-brain-protection name="writes" enabled="true">
    <minimum-cluster-size>2</minimum-cluster-size>
    <protect-on>write</protect-on>
  </split-brain-protection>
  <split-brain-protection name="off" enabled="false">
    <minimum-cluster-size>5</minimum-cluster-size>
  </split-brain-protection>
  <map name="orders"><split-brain-protection-ref>three</split-brain-protection-ref></map>
  <map name="cache-*"><split-brain-protection-ref>writes</split-brain-protection-ref></map>
  <map name="old"><split-brain-protection-ref>off</split-brain-protection-ref></map>
  <queue name="jobs"><split-brain-protection-ref>three</split-brain-protection-ref></queue>`;

const YAML = `  split-brain-protection:
    three:
      enabled: true
      minimum-cluster-size: 3
      protect-on: READ_WRITE
      member-count-split-brain-protection: {}
    writes:
      enabled: true
      minimum-cluster-size: 2
      protect-on: write
    "off":
      enabled: false
      minimum-cluster-size: 5
  map:
    orders:
      split-brain-protection-ref: three
    cache-*:
      split-brain-protection-ref: writes
    old:
      split-brain-protection-ref: "off"
  queue:
    jobs:
      split-brain-protection-ref: three
`;

describe('split-brain-protection', () => {
  it('is read from XML and YAML to the same config, without warnings', () => {
    const x = xml(XML);
    const y = yaml(YAML);
    expect(x.warnings).toEqual([]);
    expect(y.warnings).toEqual([]);
    expect(x.config.splitBrainProtections).toEqual([
      { name: 'three', enabled: true, minimumClusterSize: 3, protectOn: 'READ_WRITE' },
      { name: 'writes', enabled: true, minimumClusterSize: 2, protectOn: 'WRITE' },
      { name: 'off', enabled: false, minimumClusterSize: 5, protectOn: 'READ_WRITE' },
    ]);
    expect(plain({ ...x.config, source: '' })).toEqual(plain({ ...y.config, source: '' }));
  });

  it('maps and queues refer to it; a disabled one protects nothing; wildcards and default work as for other settings', () => {
    const { config } = xml(XML);
    expect(findMapConfig(config, 'orders').splitBrainProtectionRef).toBe('three');
    expect(findMapConfig(config, 'cache-eu').splitBrainProtectionRef).toBe('writes');
    expect(findMapConfig(config, 'other').splitBrainProtectionRef).toBeUndefined();
    expect(findQueueConfig(config, 'jobs').splitBrainProtectionRef).toBe('three');
    expect(findSplitBrainProtection(config, 'three')?.minimumClusterSize).toBe(3);
    expect(findSplitBrainProtection(config, 'off')).toBeUndefined();
    expect(findSplitBrainProtection(config, undefined)).toBeUndefined();
    const d = configFromObject({
      'split-brain-protection': { all: { enabled: true, 'minimum-cluster-size': 2 } },
      map: { default: { 'split-brain-protection-ref': 'all' } },
    }).config;
    expect(findMapConfig(d, 'anything').splitBrainProtectionRef).toBe('all');
  });

  it('defaults: minimum-cluster-size 2, protect-on READ_WRITE', () => {
    const { config, warnings } = yaml('  split-brain-protection:\n    p:\n      enabled: true\n');
    expect(warnings).toEqual([]);
    expect(config.splitBrainProtections).toEqual([{ name: 'p', enabled: true, minimumClusterSize: 2, protectOn: 'READ_WRITE' }]);
    expect(configFromObject({}).config.splitBrainProtections).toEqual([]);
  });

  it('without enabled it is off, as in Hazelcast, with a warning', () => {
    const x = xml('<split-brain-protection name="p"><minimum-cluster-size>3</minimum-cluster-size></split-brain-protection>');
    expect(x.config.splitBrainProtections[0]?.enabled).toBe(false);
    expect(x.warnings).toEqual([
      'grid.xml: hazelcast.split-brain-protection.p.enabled: not set: Hazelcast reads a split-brain-protection without enabled="true" as disabled, so this one protects nothing',
    ]);
  });

  it('errors name the path (XML and YAML)', () => {
    expect(configErrorOf(() => xml('<split-brain-protection name="p" enabled="true"><minimum-cluster-size>1</minimum-cluster-size></split-brain-protection>')).message).toBe(
      'grid.xml: hazelcast.split-brain-protection.p.minimum-cluster-size: must be an integer >= 2, got "1"',
    );
    expect(configErrorOf(() => yaml('  split-brain-protection:\n    p:\n      enabled: true\n      protect-on: ALWAYS\n')).message).toBe(
      'grid.yaml: hazelcast.split-brain-protection.p.protect-on: must be one of READ, WRITE, READ_WRITE, got "ALWAYS"',
    );
    expect(configErrorOf(() => yaml('  split-brain-protection:\n    p:\n      enabled: maybe\n')).message).toBe(
      'grid.yaml: hazelcast.split-brain-protection.p.enabled: must be true or false, got "maybe"',
    );
    expect(
      configErrorOf(() =>
        xml(
          '<split-brain-protection name="p" enabled="true"/><split-brain-protection name="p" enabled="true"/>',
        ),
      ).message,
    ).toBe('grid.xml: hazelcast.split-brain-protection.p: duplicate split-brain-protection name "p"');
  });

  it('a ref to an undefined protection is a warning naming the map or queue and the rule (Hazelcast starts with it)', () => {
    const m = xml('<map name="m"><split-brain-protection-ref>nope</split-brain-protection-ref></map>');
    expect(m.config.maps.find((x) => x.name === 'm')?.splitBrainProtectionRef).toBe('nope');
    expect(m.warnings).toContain(
      'grid.xml: hazelcast.map.m.split-brain-protection-ref: map "m" refers to split-brain-protection "nope", which is not defined: the member starts, and the operations of map "m" fail with a split-brain protection error until it is defined',
    );
    const q = yaml('  queue:\n    q:\n      split-brain-protection-ref: nope\n');
    expect(q.warnings.filter((w) => w.includes('split-brain-protection-ref'))).toEqual([
      'grid.yaml: hazelcast.queue.q.split-brain-protection-ref: queue "q" refers to split-brain-protection "nope", which is not defined: the member starts, and the operations of queue "q" fail with a split-brain protection error until it is defined',
    ]);
    // A defined but disabled rule is no warning (and no protection).
    expect(xml('<split-brain-protection name="off" enabled="false"/><map name="m"><split-brain-protection-ref>off</split-brain-protection-ref></map>').warnings.filter((w) => w.includes('split-brain'))).toEqual([]);
  });

  it('the function-based variants are warned about by name and fall back to member counting', () => {
    const { config, warnings, unused } = xml(`
      <split-brain-protection name="p" enabled="true">
        <minimum-cluster-size>3</minimum-cluster-size>
        <probabilistic-split-brain-protection acceptable-heartbeat-pause-millis="5000"/>
        <listeners><listener>com.example.Listener</listener></listeners>
      </split-brain-protection>
      <split-brain-protection name="r" enabled="true">
        <recently-active-split-brain-protection heartbeat-tolerance-millis="5000"/>
      </split-brain-protection>
      <split-brain-protection name="f" enabled="true">
        <function-class-name>com.example.Fn</function-class-name>
      </split-brain-protection>`);
    const why = (n: number): string =>
      `not supported: Grid's split-brain protection counts the data members this member sees against minimum-cluster-size (${n}), as member-count-split-brain-protection does`;
    expect(warnings).toEqual([
      `grid.xml: hazelcast.split-brain-protection.p.probabilistic-split-brain-protection: ${why(3)}`,
      `grid.xml: hazelcast.split-brain-protection.r.recently-active-split-brain-protection: ${why(2)}`,
      `grid.xml: hazelcast.split-brain-protection.f.function-class-name: ${why(2)}`,
      'grid.xml: not used by Grid: listeners (1 element; `grid validate --verbose` lists their paths)',
    ]);
    expect(unused).toEqual(['hazelcast.split-brain-protection.p.listeners']);
    expect(config.splitBrainProtections.map((p) => [p.name, p.enabled, p.minimumClusterSize])).toEqual([
      ['p', true, 3],
      ['r', true, 2],
      ['f', true, 2],
    ]);
  });

  it('unknown elements inside are reported', () => {
    expect(yaml('  split-brain-protection:\n    p:\n      enabled: true\n      size: 3\n').warnings).toEqual([
      'grid.yaml: hazelcast.split-brain-protection.p.size: unknown element, ignored',
    ]);
  });
});
