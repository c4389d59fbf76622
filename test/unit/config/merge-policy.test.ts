import { describe, expect, it } from 'vitest';
import { configFromObject, parseConfigText } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

describe('merge-policy on maps and queues', () => {
  it('reads XML (class name as text, batch-size attribute) and YAML alike', () => {
    const xml = parseConfigText(
      `<hazelcast>
         <map name="m"><merge-policy batch-size="50">com.hazelcast.spi.merge.LatestUpdateMergePolicy</merge-policy></map>
         <map name="n"><merge-policy>HigherHitsMergePolicy</merge-policy></map>
         <queue name="q"><merge-policy batch-size="10">DiscardMergePolicy</merge-policy></queue>
       </hazelcast>`,
      'xml',
      't.xml',
    ).config;
    const yaml = parseConfigText(
      `hazelcast:
  map:
    m: { merge-policy: { batch-size: 50, class-name: com.hazelcast.spi.merge.LatestUpdateMergePolicy } }
    n: { merge-policy: { class-name: HigherHitsMergePolicy } }
  queue:
    q: { merge-policy: { batch-size: 10, class-name: DiscardMergePolicy } }
`,
      'yaml',
      't.yaml',
    ).config;
    for (const c of [xml, yaml]) {
      expect(c.maps.map((m) => m.mergePolicy)).toEqual([
        { policy: 'LatestUpdateMergePolicy', batchSize: 50 },
        { policy: 'HigherHitsMergePolicy', batchSize: 100 },
      ]);
      expect(c.queues[0]?.mergePolicy).toEqual({ policy: 'DiscardMergePolicy', batchSize: 10 });
    }
  });

  it('defaults to PutIfAbsentMergePolicy with batches of 100', () => {
    const c = configFromObject({ map: { m: {} } }).config;
    expect(c.maps[0]?.mergePolicy).toEqual({ policy: 'PutIfAbsentMergePolicy', batchSize: 100 });
  });

  it('refuses an unknown policy and a bad batch size, naming the path', () => {
    const e = configErrorOf(() => configFromObject({ map: { m: { 'merge-policy': { 'class-name': 'com.acme.MyPolicy' } } } }));
    expect(e.message).toContain('map.m.merge-policy');
    expect(e.message).toContain('unknown merge policy');
    const b = configErrorOf(() => configFromObject({ queue: { q: { 'merge-policy': { 'class-name': 'PassThroughMergePolicy', 'batch-size': 0 } } } }));
    expect(b.message).toContain('batch-size');
  });
});
