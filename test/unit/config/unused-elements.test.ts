// The table of Hazelcast elements Grid does not use (readers/unused-elements.ts), entry by entry
// where the validator meets it: every IGNORED_* element is summed up as unused (never "unknown"),
// every UNSUPPORTED_* one is warned about by name with its message, every REFUSED_* one is an error.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import {
  IGNORED_ADVANCED,
  IGNORED_AUTHENTICATION,
  IGNORED_ENDPOINT,
  IGNORED_IDENTITY,
  IGNORED_JOIN,
  IGNORED_MAP,
  IGNORED_METRICS,
  IGNORED_NETWORK,
  IGNORED_QUEUE,
  IGNORED_REALM,
  IGNORED_SECURITY,
  IGNORED_SIMPLE_AUTHENTICATION,
  IGNORED_SPLIT_BRAIN_PROTECTION,
  IGNORED_TOP_LEVEL,
  REFUSED_MAX_SIZE_POLICIES,
  UNSUPPORTED_CP,
  UNSUPPORTED_EVICTION,
  UNSUPPORTED_MAP,
  UNSUPPORTED_PERSISTENCE,
  UNSUPPORTED_PUBLISHER,
  UNSUPPORTED_TOP_LEVEL,
  UNSUPPORTED_WAN,
  UNSUPPORTED_WAN_REF,
} from '../../../src/config/readers/unused-elements.js';
import { configErrorOf } from './helpers.js';

/** Every element of `names` set to a value that is not `enabled: false`. */
const all = (names: readonly string[]): Record<string, unknown> => Object.fromEntries(names.map((n) => [n, { setting: 1 }]));

const PUBLISHER = { 'cluster-name': 'B', 'target-endpoints': 'h:5701' };

/** Where each list is met: the raw config, and the path of the section that holds the list's elements. */
const IGNORED: readonly { list: readonly string[]; raw: (els: Record<string, unknown>) => Record<string, unknown>; at: string }[] = [
  { list: IGNORED_TOP_LEVEL, raw: (e) => e, at: 'hazelcast' },
  { list: IGNORED_NETWORK, raw: (e) => ({ network: e }), at: 'hazelcast.network' },
  { list: IGNORED_JOIN, raw: (e) => ({ network: { join: e } }), at: 'hazelcast.network.join' },
  { list: IGNORED_MAP, raw: (e) => ({ map: { m: e } }), at: 'hazelcast.map.m' },
  { list: IGNORED_QUEUE, raw: (e) => ({ queue: { q: e } }), at: 'hazelcast.queue.q' },
  { list: IGNORED_SECURITY, raw: (e) => ({ security: e }), at: 'hazelcast.security' },
  { list: IGNORED_ADVANCED, raw: (e) => ({ 'advanced-network': e }), at: 'hazelcast.advanced-network' },
  {
    list: IGNORED_ENDPOINT,
    raw: (e) => ({ 'advanced-network': { 'member-server-socket-endpoint-config': e } }),
    at: 'hazelcast.advanced-network.member-server-socket-endpoint-config',
  },
  {
    list: IGNORED_ENDPOINT,
    raw: (e) => ({ 'advanced-network': { 'rest-server-socket-endpoint-config': e } }),
    at: 'hazelcast.advanced-network.rest-server-socket-endpoint-config',
  },
  { list: IGNORED_METRICS, raw: (e) => ({ metrics: e }), at: 'hazelcast.metrics' },
  {
    list: IGNORED_SPLIT_BRAIN_PROTECTION,
    raw: (e) => ({ 'split-brain-protection': { p: { enabled: true, 'minimum-cluster-size': 2, ...e } } }),
    at: 'hazelcast.split-brain-protection.p',
  },
  { list: IGNORED_REALM, raw: (e) => ({ security: { realms: [{ name: 'r', ...e }] } }), at: 'hazelcast.security.realms[0]' },
  {
    list: IGNORED_AUTHENTICATION,
    raw: (e) => ({ security: { realms: [{ name: 'r', authentication: e }] } }),
    at: 'hazelcast.security.realms[0].authentication',
  },
  {
    list: IGNORED_SIMPLE_AUTHENTICATION,
    raw: (e) => ({ security: { realms: [{ name: 'r', authentication: { simple: e } }] } }),
    at: 'hazelcast.security.realms[0].authentication.simple',
  },
  {
    list: IGNORED_IDENTITY,
    raw: (e) => ({ security: { realms: [{ name: 'r', identity: e }] } }),
    at: 'hazelcast.security.realms[0].identity',
  },
];

const UNSUPPORTED: readonly { table: Readonly<Record<string, string>>; raw: (els: Record<string, unknown>) => Record<string, unknown>; at: string }[] = [
  { table: UNSUPPORTED_TOP_LEVEL, raw: (e) => e, at: 'hazelcast' },
  { table: UNSUPPORTED_MAP, raw: (e) => ({ map: { m: e } }), at: 'hazelcast.map.m' },
  { table: UNSUPPORTED_EVICTION, raw: (e) => ({ map: { m: { eviction: e } } }), at: 'hazelcast.map.m.eviction' },
  { table: UNSUPPORTED_PERSISTENCE, raw: (e) => ({ persistence: e }), at: 'hazelcast.persistence' },
  { table: UNSUPPORTED_CP, raw: (e) => ({ 'cp-subsystem': { 'cp-member-count': 3, ...e } }), at: 'hazelcast.cp-subsystem' },
  { table: UNSUPPORTED_WAN, raw: (e) => ({ 'wan-replication': { w: { 'batch-publisher': { b: PUBLISHER }, ...e } } }), at: 'hazelcast.wan-replication.w' },
  {
    table: UNSUPPORTED_PUBLISHER,
    raw: (e) => ({ 'wan-replication': { w: { 'batch-publisher': { b: { ...PUBLISHER, ...e } } } } }),
    at: 'hazelcast.wan-replication.w.batch-publisher.b',
  },
  {
    table: UNSUPPORTED_WAN_REF,
    raw: (e) => ({ 'wan-replication': { w: { 'batch-publisher': { b: PUBLISHER } } }, map: { m: { 'wan-replication-ref': { w: e } } } }),
    at: 'hazelcast.map.m.wan-replication-ref.w',
  },
];

describe('the Hazelcast elements Grid does not use', () => {
  it('each IGNORED_* element loads, summed up as unused at its path, never reported as unknown', () => {
    for (const { list, raw, at } of IGNORED) {
      expect(list.length).toBeGreaterThan(0);
      const { warnings, unused } = configFromObject(raw(all(list)));
      expect(warnings.filter((w) => w.includes('unknown element')), at).toEqual([]);
      for (const name of list) expect(unused, `${at}.${name}`).toContain(`${at}.${name}`);
    }
  });

  it('an IGNORED_* element switched off (enabled: false) is accepted silently', () => {
    const { unused } = configFromObject({ network: { join: Object.fromEntries(IGNORED_JOIN.map((n) => [n, { enabled: false }])) } });
    expect(unused).toEqual([]);
  });

  it('each UNSUPPORTED_* element loads with a warning naming it and what to do instead', () => {
    for (const { table, raw, at } of UNSUPPORTED) {
      const names = Object.keys(table);
      expect(names.length).toBeGreaterThan(0);
      const { warnings } = configFromObject(raw(all(names)));
      for (const name of names) expect(warnings, `${at}.${name}`).toContain(`inline: ${at}.${name}: ${table[name]} (ignored)`);
    }
  });

  it('each REFUSED_* max-size policy is an error that says why', () => {
    for (const [policy, why] of Object.entries(REFUSED_MAX_SIZE_POLICIES)) {
      const e = configErrorOf(() => configFromObject({ map: { m: { eviction: { 'eviction-policy': 'LRU', 'max-size-policy': policy, size: 10 } } } }));
      expect(e.message).toContain(`hazelcast.map.m.eviction.max-size-policy: ${policy} ${why}`);
    }
  });
});
