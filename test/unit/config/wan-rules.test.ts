// One rule, two inputs: a batch publisher read from the config file (the WAN reader) and from
// addWanConfig's JSON (wan-config-json.ts) accepts and refuses the same values, each with its
// own field names and message style.

import { describe, expect, it } from 'vitest';
import {
  configFromObject,
  WAN_ACKNOWLEDGE_TYPES,
  WAN_CONSISTENCY_CHECK_STRATEGIES,
  WAN_PUBLISHER_INTS,
  WAN_PUBLISHER_STATES,
  WAN_QUEUE_FULL_BEHAVIORS,
  type WanBatchPublisherConfig,
  type WanPublisherIntField,
} from '../../../src/config/index.js';
import { DEFAULT_WAN_PUBLISHER } from '../../../src/config/defaults.js';
import { GridError } from '../../../src/core/errors.js';
import { parseWanConfigJson } from '../../../src/wan/wan-config-json.js';
import { configErrorOf } from './helpers.js';

const INT_MAX = 2147483647;

/** The publisher read from a config file with `settings` (config element names), or the error text. */
function fromConfig(settings: Record<string, unknown>): WanBatchPublisherConfig | string {
  const raw = { 'wan-replication': { w: { 'batch-publisher': { b: { 'cluster-name': 'B', 'target-endpoints': 'h:5701', ...settings } } } } };
  try {
    const p = configFromObject(raw).config.wanReplication[0]?.batchPublishers[0];
    if (p === undefined) throw new Error('no publisher read');
    return p;
  } catch {
    return configErrorOf(() => configFromObject(raw)).message;
  }
}

/** The publisher read from addWanConfig's JSON with `fields`, or the error text. */
function fromJson(fields: Record<string, unknown>): WanBatchPublisherConfig | string {
  try {
    const p = parseWanConfigJson(JSON.stringify({ name: 'w', batchPublishers: [{ clusterName: 'B', targetEndpoints: 'h:5701', ...fields }] })).batchPublishers[0];
    if (p === undefined) throw new Error('no publisher read');
    return p;
  } catch (e) {
    if (!(e instanceof GridError)) throw e;
    return e.message;
  }
}

const FIELDS = Object.keys(WAN_PUBLISHER_INTS) as WanPublisherIntField[];

describe('WAN publisher rules shared by the config file and addWanConfig', () => {
  it('every integer setting has the same bounds and default in both inputs', () => {
    expect(FIELDS.sort()).toEqual(
      ['batchMaxDelayMillis', 'batchSize', 'heartbeatIntervalMillis', 'heartbeatTimeoutMillis', 'queueCapacity', 'responseTimeoutMillis'],
    );
    for (const field of FIELDS) {
      const { key, min, max } = WAN_PUBLISHER_INTS[field];
      expect(max).toBe(INT_MAX);
      // The timeout must stay above the interval (or be 0): pin the other one so each field's own bounds are what is tested.
      const base = field === 'heartbeatTimeoutMillis' ? { 'heartbeat-interval-millis': 1 } : field === 'heartbeatIntervalMillis' ? { 'heartbeat-timeout-millis': 0 } : {};
      const baseJson = field === 'heartbeatTimeoutMillis' ? { heartbeatIntervalMillis: 1 } : field === 'heartbeatIntervalMillis' ? { heartbeatTimeoutMillis: 0 } : {};
      for (const [value, ok] of [
        [min - 1, false],
        [min, true],
        [max, true],
        [max + 1, false],
      ] as const) {
        const c = fromConfig({ ...base, [key]: value });
        const j = fromJson({ ...baseJson, [field]: value });
        expect(typeof c !== 'string', `${key} = ${value} from the config: ${String(c)}`).toBe(ok);
        expect(typeof j !== 'string', `${field} = ${value} from JSON: ${String(j)}`).toBe(ok);
        if (typeof c !== 'string' && typeof j !== 'string') expect(j[field]).toBe(c[field]);
        if (typeof c === 'string') expect(c).toContain(`.${key}`);
        if (typeof j === 'string') expect(j).toContain(`.${field}`);
      }
      const cDefault = fromConfig({});
      const jDefault = fromJson({});
      if (typeof cDefault === 'string' || typeof jDefault === 'string') throw new Error('defaults refused');
      expect(cDefault[field]).toBe(DEFAULT_WAN_PUBLISHER[field]);
      expect(jDefault[field]).toBe(DEFAULT_WAN_PUBLISHER[field]);
    }
  });

  it('the heartbeat timeout is 0 or above the interval in both inputs, with the same words', () => {
    for (const [interval, timeout, ok] of [
      [1000, 0, true],
      [1000, 1001, true],
      [1000, 1000, false],
      [1000, 999, false],
      [1, 1, false],
    ] as const) {
      const c = fromConfig({ 'heartbeat-interval-millis': interval, 'heartbeat-timeout-millis': timeout });
      const j = fromJson({ heartbeatIntervalMillis: interval, heartbeatTimeoutMillis: timeout });
      expect(typeof c !== 'string').toBe(ok);
      expect(typeof j !== 'string').toBe(ok);
      if (!ok) {
        expect(c).toContain(`heartbeat-timeout-millis: must be 0 (off) or greater than heartbeat-interval-millis (${interval}), got ${timeout}`);
        expect(j).toBe(`batchPublishers[0].heartbeatTimeoutMillis: must be 0 (off) or greater than heartbeatIntervalMillis (${interval}), got ${timeout}`);
      }
    }
  });

  it('every enumeration value is accepted by name in both inputs, and by its id (list index) in the JSON', () => {
    const enums = [
      ['queue-full-behavior', 'queueFullBehavior', WAN_QUEUE_FULL_BEHAVIORS],
      ['initial-publisher-state', 'initialPublisherState', WAN_PUBLISHER_STATES],
      ['acknowledge-type', 'acknowledgeType', WAN_ACKNOWLEDGE_TYPES],
    ] as const;
    for (const [key, field, values] of enums) {
      values.forEach((name, id) => {
        const c = fromConfig({ [key]: name.toLowerCase() });
        const byName = fromJson({ [field]: name });
        const byId = fromJson({ [field]: id });
        for (const p of [c, byName, byId]) {
          if (typeof p === 'string') throw new Error(p);
          expect(p[field]).toBe(name);
        }
      });
      expect(fromConfig({ [key]: 'NOPE' })).toContain(`${key}: must be one of ${values.join(', ')}, got "NOPE"`);
      expect(fromJson({ [field]: values.length })).toContain(`${field}: must be one of`);
    }
    WAN_CONSISTENCY_CHECK_STRATEGIES.forEach((name, id) => {
      const c = fromConfig({ sync: { 'consistency-check-strategy': name } });
      const j = fromJson({ sync: { consistencyCheckStrategy: id } });
      if (typeof c === 'string' || typeof j === 'string') throw new Error(String(typeof c === 'string' ? c : j));
      expect(c.consistencyCheckStrategy).toBe(name);
      expect(j.consistencyCheckStrategy).toBe(name);
    });
    expect(fromConfig({ sync: { 'consistency-check-strategy': 'x' } })).toContain('consistency-check-strategy: must be one of NONE, MERKLE_TREES, got "x"');
  });

  it('a publisher without a target endpoint is refused with the same words by both inputs', () => {
    expect(fromConfig({ 'target-endpoints': '' })).toContain('target-endpoints: must list at least one host:port of the target cluster');
    expect(fromJson({ targetEndpoints: ' , ' })).toBe('batchPublishers[0].targetEndpoints: must list at least one host:port of the target cluster');
  });
});
