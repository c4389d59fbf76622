import { describe, expect, it } from 'vitest';
import { configFromObject, findMapConfig, parseConfigText } from '../../../src/config/index.js';
import { DEFAULT_MAP } from '../../../src/config/defaults.js';
import { configErrorOf, plain } from './helpers.js';

const yaml = (body: string): ReturnType<typeof parseConfigText> => parseConfigText(`hazelcast:\n${body}`, 'yaml', 'grid.yaml');
const xml = (body: string): ReturnType<typeof parseConfigText> =>
  parseConfigText(`<hazelcast xmlns="http://www.hazelcast.com/schema/config">${body}</hazelcast>`, 'xml', 'grid.xml');

describe('map event-journal config', () => {
  it('reads the element in XML and YAML alike, with Hazelcast defaults for what is left out', () => {
    const x = xml(`
      <map name="orders"><event-journal enabled="true"><capacity>5000</capacity><time-to-live-seconds>60</time-to-live-seconds></event-journal></map>
      <map name="short"><event-journal enabled="true"/></map>
      <map name="off"><event-journal enabled="false"><capacity>300</capacity></event-journal></map>
      <map name="plain"/>`);
    const y = yaml(`  map:
    orders:
      event-journal: {enabled: true, capacity: 5000, time-to-live-seconds: 60}
    short:
      event-journal:
        enabled: true
    off:
      event-journal: {enabled: false, capacity: 300}
    plain: {}
`);
    for (const r of [x, y]) {
      expect(r.warnings).toEqual([]);
      expect(r.config.maps.map((m) => [m.name, m.eventJournal])).toEqual([
        ['orders', { enabled: true, capacity: 5000, timeToLiveSeconds: 60 }],
        ['short', { enabled: true, capacity: 10000, timeToLiveSeconds: 0 }],
        ['off', { enabled: false, capacity: 300, timeToLiveSeconds: 0 }],
        ['plain', { enabled: false, capacity: 10000, timeToLiveSeconds: 0 }],
      ]);
    }
    expect(plain(x.config.maps)).toEqual(plain(y.config.maps));
    expect(DEFAULT_MAP.eventJournal).toEqual({ enabled: false, capacity: 10000, timeToLiveSeconds: 0 });
    // Wildcards carry it like every other map setting.
    const c = configFromObject({ map: { 'feed-*': { 'event-journal': { enabled: true, capacity: 271 } } } }).config;
    expect(findMapConfig(c, 'feed-eu').eventJournal).toEqual({ enabled: true, capacity: 271, timeToLiveSeconds: 0 });
    expect(findMapConfig(c, 'other').eventJournal.enabled).toBe(false);
  });

  it('names the path of every bad value, and refuses fewer slots than partitions', () => {
    const e = configErrorOf(() =>
      configFromObject({
        map: {
          a: { 'event-journal': { enabled: true, capacity: 100 } },
          b: { 'event-journal': { enabled: 'maybe', capacity: 'lots' } },
          c: { 'event-journal': { enabled: true, 'time-to-live-seconds': -1 } },
        },
      }),
    );
    const text = e.problems.join('\n');
    expect(text).toContain('map.a.event-journal.capacity: 100 is less than the partition count (271): each partition keeps capacity / 271 events, so at least 271');
    expect(text).toMatch(/map\.b\.event-journal\.enabled: .*maybe/);
    expect(text).toMatch(/map\.b\.event-journal\.capacity: .*lots/);
    expect(text).toMatch(/map\.c\.event-journal\.time-to-live-seconds: .*-1/);
    // An unknown element inside is reported, not silently dropped.
    const w = configFromObject({ map: { d: { 'event-journal': { enabled: true, size: 10 } } } }).warnings;
    expect(w).toEqual(['inline: hazelcast.map.d.event-journal.size: unknown element, ignored']);
  });

  it('warns that a journal without enabled stays off, and no longer calls the element unused', () => {
    const r = xml(`<map name="m"><event-journal><capacity>1000</capacity></event-journal></map>`);
    expect(r.warnings.join('\n')).toContain('map.m.event-journal.enabled: not set: the event journal stays disabled');
    expect(r.warnings.join('\n')).not.toMatch(/accepted.*event-journal|event-journal.*not used/);
    expect(r.config.maps[0]?.eventJournal.enabled).toBe(false);
  });
});
