import { describe, expect, it } from 'vitest';
import { configFromObject, parseConfigText } from '../../../src/config/index.js';
import { DEFAULT_MAP } from '../../../src/config/defaults.js';
import { configErrorOf, plain } from './helpers.js';

const yaml = (body: string): ReturnType<typeof parseConfigText> => parseConfigText(`hazelcast:\n${body}`, 'yaml', 'grid.yaml');
const xml = (body: string): ReturnType<typeof parseConfigText> =>
  parseConfigText(`<hazelcast xmlns="http://www.hazelcast.com/schema/config">${body}</hazelcast>`, 'xml', 'grid.xml');

describe('map eviction config', () => {
  it('reads the Hazelcast 4/5 element in XML and YAML alike', () => {
    const x = xml(`
      <map name="cache"><eviction eviction-policy="LRU" max-size-policy="PER_NODE" size="1000"/></map>
      <map name="part"><eviction eviction-policy="lfu" max-size-policy="per_partition" size="5"/></map>
      <map name="heap"><eviction eviction-policy="RANDOM" max-size-policy="USED_HEAP_PERCENTAGE" size="25"/></map>
      <map name="plain"/>`);
    const y = yaml(`  map:
    cache:
      eviction: {eviction-policy: LRU, max-size-policy: PER_NODE, size: 1000}
    part:
      eviction:
        eviction-policy: lfu
        max-size-policy: per_partition
        size: 5
    heap:
      eviction: {eviction-policy: RANDOM, max-size-policy: USED_HEAP_PERCENTAGE, size: 25}
    plain: {}
`);
    for (const r of [x, y]) {
      expect(r.warnings).toEqual([]);
      expect(r.config.maps.map((m) => [m.name, m.eviction])).toEqual([
        ['cache', { evictionPolicy: 'LRU', maxSizePolicy: 'PER_NODE', size: 1000 }],
        ['part', { evictionPolicy: 'LFU', maxSizePolicy: 'PER_PARTITION', size: 5 }],
        ['heap', { evictionPolicy: 'RANDOM', maxSizePolicy: 'USED_HEAP_PERCENTAGE', size: 25 }],
        ['plain', { evictionPolicy: 'NONE', maxSizePolicy: 'PER_NODE', size: 2147483647 }],
      ]);
    }
    expect(plain(x.config.maps)).toEqual(plain(y.config.maps));
  });

  it("has Hazelcast's defaults: NONE, PER_NODE, Integer.MAX_VALUE; size 0 reads as Integer.MAX_VALUE", () => {
    expect(DEFAULT_MAP.eviction).toEqual({ evictionPolicy: 'NONE', maxSizePolicy: 'PER_NODE', size: 2147483647 });
    const c = configFromObject({ map: { a: { eviction: { 'eviction-policy': 'LRU' } }, b: { eviction: { 'eviction-policy': 'LRU', size: 0 } } } }).config;
    expect(c.maps.map((m) => m.eviction)).toEqual([
      { evictionPolicy: 'LRU', maxSizePolicy: 'PER_NODE', size: 2147483647 },
      { evictionPolicy: 'LRU', maxSizePolicy: 'PER_NODE', size: 2147483647 },
    ]);
  });

  it('names the path and the choices of every bad value', () => {
    const e = configErrorOf(() =>
      configFromObject({
        map: {
          a: { eviction: { 'eviction-policy': 'LRUU', 'max-size-policy': 'PER_MEMBER', size: -1 } },
          b: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'USED_NATIVE_MEMORY_SIZE', size: 10 } },
          c: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'ENTRY_COUNT', size: 10 } },
          d: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'FREE_HEAP_PERCENTAGE', size: 101 } },
          e: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': 'FREE_HEAP_SIZE' } },
          f: { eviction: { 'eviction-policy': 'LRU', size: 'many' } },
        },
      }),
    );
    const text = e.problems.join('\n');
    expect(text).toContain('map.a.eviction.eviction-policy: unknown eviction-policy "LRUU": one of NONE, LRU, LFU, RANDOM');
    expect(text).toContain('map.a.eviction.max-size-policy: unknown max-size-policy "PER_MEMBER": one of PER_NODE, PER_PARTITION, USED_HEAP_SIZE, USED_HEAP_PERCENTAGE, FREE_HEAP_SIZE, FREE_HEAP_PERCENTAGE');
    expect(text).toMatch(/map\.a\.eviction\.size: .*-1/);
    expect(text).toContain('map.b.eviction.max-size-policy: USED_NATIVE_MEMORY_SIZE needs in-memory-format NATIVE');
    expect(text).toContain('map.c.eviction.max-size-policy: ENTRY_COUNT is a max-size policy of caches');
    expect(text).toMatch(/map\.d\.eviction\.size: .*101/);
    expect(text).toContain('map.e.eviction.size: is required with max-size-policy FREE_HEAP_SIZE (megabytes)');
    expect(text).toMatch(/map\.f\.eviction\.size: .*many/);
  });

  it('warns that the 3.x elements are not read, that NONE evicts nothing, and that comparators are not supported', () => {
    const r = xml(`
      <map name="old"><max-size policy="PER_NODE">1000</max-size><eviction-policy>LRU</eviction-policy></map>
      <map name="none"><eviction size="10"/></map>
      <map name="cmp"><eviction eviction-policy="LRU" size="10" comparator-class-name="com.x.C"/></map>`);
    const w = r.warnings.join('\n');
    expect(w).toContain('map.old.max-size: the Hazelcast 3.x form is not read, so the map is not bounded');
    expect(w).toContain('map.old.eviction-policy: the Hazelcast 3.x form is not read');
    expect(w).toContain('map.none.eviction.eviction-policy: is NONE (the default), so nothing is evicted');
    expect(w).toContain('map.cmp.eviction.comparator-class-name: custom eviction comparators are not supported');
    expect(r.config.maps.find((m) => m.name === 'old')?.eviction.evictionPolicy).toBe('NONE');
  });

  it('checks the form of grid.memory.limit (the member memory guard) and knows the property', () => {
    const ok = configFromObject({ properties: { 'grid.memory.limit': '512m' } });
    expect(ok.warnings).toEqual([]);
    const e = configErrorOf(() => configFromObject({ properties: { 'grid.memory.limit': 'lots' } }));
    expect(e.problems.join('\n')).toContain('hazelcast.properties.grid.memory.limit: expected bytes (e.g. 536870912, 512m, 2g) or a percentage (e.g. 80%), got "lots"');
  });
});
