import { describe, it, expect } from 'vitest';
import { configFromObject, parseConfigText } from '../../../src/config/index.js';
import { didYouMean } from '../../../src/config/problems.js';

describe('unknown elements are warnings with their path; unused ones are summed up in one line', () => {
  it('XML', () => {
    const { config, warnings, unused } = parseConfigText(
      `<hazelcast xmlns="http://www.hazelcast.com/schema/config">
        <cluster-name>c</cluster-name>
        <bogus a="1"/>
        <management-center scripting-enabled="false"/>
        <network><reuse-address>true</reuse-address><frobnicate/></network>
        <map name="m">
          <in-memory-format>BINARY</in-memory-format>
          <eviction eviction-policy="LRU" size="10"/>
          <colour>blue</colour>
        </map>
        <queue name="q"><statistics-enabled>true</statistics-enabled></queue>
      </hazelcast>`,
      'xml',
      'w.xml',
    );
    expect(config.clusterName).toBe('c');
    expect(warnings).toEqual([
      'w.xml: hazelcast.network.frobnicate: unknown element, ignored',
      'w.xml: hazelcast.map.m.colour: unknown element, ignored',
      'w.xml: hazelcast.bogus: unknown element, ignored',
      'w.xml: not used by Grid: reuse-address, in-memory-format, statistics-enabled, management-center (4 elements; `grid validate --verbose` lists their paths)',
    ]);
    expect(unused).toEqual([
      'hazelcast.network.reuse-address',
      'hazelcast.map.m.in-memory-format',
      'hazelcast.queue.q.statistics-enabled',
      'hazelcast.management-center',
    ]);
  });

  it('YAML; an unused element switched off (enabled: false) is accepted silently', () => {
    const { warnings, unused } = parseConfigText(
      `hazelcast:
  bogus: 1
  jet:
    enabled: true
  network:
    join:
      aws:
        enabled: false
      gcp:
        enabled: true
      tcp-ip:
        enabled: true
        colour: red
grid-extra: 1
`,
      'yaml',
      'w.yaml',
    );
    expect(warnings).toEqual([
      'w.yaml: grid-extra: unknown root element, ignored (settings belong under "hazelcast:")',
      'w.yaml: hazelcast.network.join.tcp-ip.colour: unknown element, ignored',
      'w.yaml: hazelcast.bogus: unknown element, ignored',
      'w.yaml: not used by Grid: gcp, jet (2 elements; `grid validate --verbose` lists their paths)',
    ]);
    expect(unused).toEqual(['hazelcast.network.join.gcp', 'hazelcast.jet']);
  });

  it('multicast and auto-detection switched on are warned about and stay unused', () => {
    const { config, warnings } = configFromObject({
      network: { join: { multicast: { enabled: true, 'multicast-group': '224.2.2.3' }, 'auto-detection': { enabled: true } } },
    });
    expect(config.network.join.multicastEnabled).toBe(false);
    expect(warnings).toEqual([
      'inline: hazelcast.network.join.multicast.enabled: Grid never joins by multicast; use tcp-ip (multicast stays disabled)',
      'inline: hazelcast.network.join.auto-detection.enabled: Grid has no auto-detection; members are found by tcp-ip only',
    ]);
  });

  it('unknown grid.* properties; hazelcast.* properties are kept silently', () => {
    const { config, warnings } = configFromObject({ properties: { 'grid.nope': 'x', 'hazelcast.client.whatever': '1' } });
    expect(warnings).toEqual(['inline: hazelcast.properties.grid.nope: unknown Grid property, ignored']);
    expect(config.properties.get('hazelcast.client.whatever')).toBe('1');
  });

  it('a wildcard interface cannot be bound', () => {
    const { config, warnings } = configFromObject({ network: { interfaces: { enabled: true, interfaces: ['10.0.0.*'] } } });
    expect(config.network.bindHost).toBe('0.0.0.0');
    expect(warnings).toEqual([
      'inline: hazelcast.network.interfaces.interfaces[0]: Grid binds one literal address and does not expand patterns; binding 0.0.0.0',
    ]);
  });
});

describe('didYouMean', () => {
  it('guesses the known name within one edit for short names, two for longer ones', () => {
    const names = ['map', 'queue', 'network', 'cluster-name', 'backup-count', 'async-backup-count', 'port', 'rest-api'];
    expect(didYouMean('mapp', names)).toBe('map');
    expect(didYouMean('Map', names)).toBe('map'); // case only
    expect(didYouMean('queeu', names)).toBe('queue'); // two neighbours swapped: one edit
    expect(didYouMean('cluster_name', names)).toBe('cluster-name');
    expect(didYouMean('backupcount', names)).toBe('backup-count');
    expect(didYouMean('netwrok', names)).toBe('network');
    expect(didYouMean('ntwrk', names)).toBeUndefined(); // 2 edits for a 5-character name
    expect(didYouMean('colour', names)).toBeUndefined();
    expect(didYouMean('', names)).toBeUndefined();
    expect(didYouMean('map', names)).toBeUndefined(); // itself is no guess
    expect(didYouMean('x', [])).toBeUndefined();
  });

  it('ties go to the first candidate; the closest wins over the first', () => {
    expect(didYouMean('pot', ['pit', 'put'])).toBe('pit');
    expect(didYouMean('ports', ['post', 'port'])).toBe('port');
  });

  it('a mistyped element of a config says what it likely meant', () => {
    const { warnings } = configFromObject({ mapp: {}, network: { portt: 5701 }, map: { m: { 'backup-cout': 1 } } });
    expect(warnings).toEqual([
      'inline: hazelcast.network.portt: unknown element, ignored (did you mean "port"?)',
      'inline: hazelcast.map.m.backup-cout: unknown element, ignored (did you mean "backup-count"?)',
      'inline: hazelcast.mapp: unknown element, ignored (did you mean "map"?)',
    ]);
  });
});
