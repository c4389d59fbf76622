import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';

describe('metrics config', () => {
  it('is on by default, as in Hazelcast', () => {
    expect(configFromObject({}).config.metrics.enabled).toBe(true);
    expect(configFromObject({ metrics: { enabled: true } }).config.metrics.enabled).toBe(true);
  });

  it("takes enabled from the metrics element or HZ_METRICS_ENABLED; Hazelcast's other settings are accepted, not used", () => {
    const { config, warnings } = configFromObject({
      metrics: { enabled: false, 'management-center': { enabled: true }, jmx: { enabled: true }, 'collection-frequency-seconds': 5, bogus: 1 },
    });
    expect(config.metrics.enabled).toBe(false);
    // `enabled` is used (no warning names it, nor `metrics` as a whole); `bogus` is unknown.
    expect(warnings.some((w) => w.includes('hazelcast.metrics.bogus') && w.includes('unknown element'))).toBe(true);
    expect(warnings.some((w) => w.includes('metrics.enabled') || /hazelcast\.metrics(:|$)/.test(w))).toBe(false);
    expect(configFromObject({}, { HZ_METRICS_ENABLED: 'false' }).config.metrics.enabled).toBe(false);
    expect(() => configFromObject({ metrics: { enabled: 'maybe' } })).toThrow(/hazelcast\.metrics\.enabled/);
  });
});
