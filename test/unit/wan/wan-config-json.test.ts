import { describe, expect, it } from 'vitest';
import { configFromObject, type WanBatchPublisherConfig, type WanReplicationConfig } from '../../../src/config/index.js';
import { DEFAULT_WAN_PUBLISHER } from '../../../src/config/defaults.js';
import { GridError } from '../../../src/core/errors.js';
import {
  MAX_WAN_JSON_CHARS,
  MAX_WAN_JSON_ENDPOINTS,
  MAX_WAN_JSON_NAME_LENGTH,
  MAX_WAN_JSON_PUBLISHERS,
  parseWanConfigJson,
  wanConfigToJson,
} from '../../../src/wan/wan-config-json.js';
import { prng } from '../../support/prng.js';

/** The BAD_REQUEST message parsing `input` (a value to stringify, or raw text) throws; fails when it parses. */
function badOf(input: unknown): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  try {
    parseWanConfigJson(text);
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    expect((e as GridError).code).toBe('BAD_REQUEST');
    return (e as GridError).message;
  }
  throw new Error(`expected BAD_REQUEST, but it parsed: ${text}`);
}

const parse = (v: unknown): WanReplicationConfig => parseWanConfigJson(JSON.stringify(v));

/** A one-publisher config with `fields` on the publisher. */
const withPub = (fields: Record<string, unknown>): unknown => ({ name: 'r', batchPublishers: [{ targetEndpoints: 'h:5701', ...fields }] });
const pubOf = (fields: Record<string, unknown>): WanBatchPublisherConfig => {
  const p = parse(withPub(fields)).batchPublishers[0];
  if (p === undefined) throw new Error('no publisher');
  return p;
};
const pubBad = (fields: Record<string, unknown>): string => badOf(withPub(fields));

const DEFAULTS = {
  batchSize: DEFAULT_WAN_PUBLISHER.batchSize,
  batchMaxDelayMillis: DEFAULT_WAN_PUBLISHER.batchMaxDelayMillis,
  responseTimeoutMillis: DEFAULT_WAN_PUBLISHER.responseTimeoutMillis,
  queueCapacity: DEFAULT_WAN_PUBLISHER.queueCapacity,
  queueFullBehavior: DEFAULT_WAN_PUBLISHER.queueFullBehavior,
  initialPublisherState: DEFAULT_WAN_PUBLISHER.initialPublisherState,
  acknowledgeType: DEFAULT_WAN_PUBLISHER.acknowledgeType,
  consistencyCheckStrategy: DEFAULT_WAN_PUBLISHER.consistencyCheckStrategy,
  heartbeatIntervalMillis: DEFAULT_WAN_PUBLISHER.heartbeatIntervalMillis,
  heartbeatTimeoutMillis: DEFAULT_WAN_PUBLISHER.heartbeatTimeoutMillis,
};

/** What Hazelcast 5's WanReplicationConfigDTO.toJson writes for a batch publisher (every field). */
const HAZELCAST_DTO = {
  name: 'to-b',
  batchPublishers: [
    {
      clusterName: 'B',
      publisherId: 'b-pub',
      batchSize: 250,
      batchMaxDelayMillis: 200,
      responseTimeoutMillis: 30000,
      acknowledgeType: 0,
      initialPublisherState: 1,
      snapshotEnabled: false,
      idleMaxParkNs: 250000000,
      idleMinParkNs: 10000000,
      maxConcurrentInvocations: -1,
      discoveryPeriodSeconds: 10,
      useEndpointPrivateAddress: false,
      queueFullBehavior: 1,
      maxTargetEndpoints: 2147483647,
      queueCapacity: 5000,
      targetEndpoints: '127.0.0.1:5801, 127.0.0.1:5802',
      aws: { enabled: false, usePublicIp: false, properties: {} },
      gcp: { enabled: false, usePublicIp: false, properties: {} },
      azure: { enabled: false, usePublicIp: false, properties: {} },
      kubernetes: { enabled: false, usePublicIp: false, properties: {} },
      eureka: { enabled: false, usePublicIp: false, properties: {} },
      discovery: { nodeFilterClass: null, discoveryStrategy: [] },
      sync: { consistencyCheckStrategy: 1 },
      properties: { a: 'b' },
    },
  ],
  customPublishers: [],
};

describe('parseWanConfigJson: the contract shape', () => {
  it("reads Hazelcast's WanReplicationConfigDTO JSON, ignoring the settings Grid has no use for", () => {
    expect(parse(HAZELCAST_DTO)).toEqual({
      name: 'to-b',
      batchPublishers: [
        {
          clusterName: 'B',
          publisherId: 'b-pub',
          targetEndpoints: ['127.0.0.1:5801', '127.0.0.1:5802'],
          batchSize: 250,
          batchMaxDelayMillis: 200,
          responseTimeoutMillis: 30000,
          queueCapacity: 5000,
          queueFullBehavior: 'THROW_EXCEPTION',
          initialPublisherState: 'PAUSED',
          acknowledgeType: 'ACK_ON_RECEIPT',
          consistencyCheckStrategy: 'MERKLE_TREES',
          heartbeatIntervalMillis: DEFAULT_WAN_PUBLISHER.heartbeatIntervalMillis,
          heartbeatTimeoutMillis: DEFAULT_WAN_PUBLISHER.heartbeatTimeoutMillis,
        },
      ],
    });
  });

  it('fills what is missing with the XML defaults; publisherId defaults to clusterName', () => {
    const c = parse({ name: 'r', batchPublishers: [{ clusterName: 'B', targetEndpoints: 'h:5701' }] });
    expect(c).toEqual({ name: 'r', batchPublishers: [{ clusterName: 'B', publisherId: 'B', targetEndpoints: ['h:5701'], ...DEFAULTS }] });
    // The same publisher from the XML/YAML config.
    const fromConfig = configFromObject({
      'wan-replication': { r: { 'batch-publisher': { B: { 'cluster-name': 'B', 'target-endpoints': 'h:5701' } } } },
    }).config.wanReplication[0];
    expect(c).toEqual(fromConfig);
    // clusterName missing: Hazelcast's default "dev", which is also the id.
    expect(pubOf({})).toEqual({ clusterName: 'dev', publisherId: 'dev', targetEndpoints: ['h:5701'], ...DEFAULTS });
  });

  it('null reads as absent (as in Hazelcast), for every field', () => {
    const nulls = Object.fromEntries(
      ['clusterName', 'publisherId', 'batchSize', 'batchMaxDelayMillis', 'responseTimeoutMillis', 'queueCapacity', 'queueFullBehavior', 'initialPublisherState', 'acknowledgeType', 'sync'].map((k) => [k, null]),
    );
    expect(pubOf(nulls)).toEqual({ clusterName: 'dev', publisherId: 'dev', targetEndpoints: ['h:5701'], ...DEFAULTS });
    expect(pubOf({ clusterName: 'B', sync: { consistencyCheckStrategy: null } }).consistencyCheckStrategy).toBe('NONE');
    expect(pubOf({ clusterName: 'B', sync: {} }).consistencyCheckStrategy).toBe('NONE');
  });

  it('publisherId "" or blank also means clusterName; names are trimmed', () => {
    expect(pubOf({ clusterName: 'B', publisherId: '' }).publisherId).toBe('B');
    expect(pubOf({ clusterName: ' B ', publisherId: '   ' })).toMatchObject({ clusterName: 'B', publisherId: 'B' });
    expect(pubOf({ clusterName: 'B', publisherId: ' p ' }).publisherId).toBe('p');
    expect(parse({ name: ' r ', batchPublishers: [{ targetEndpoints: 'h' }] }).name).toBe('r');
  });

  it('ignores unknown fields at every level', () => {
    const c = parse({ name: 'r', colour: 'red', consumer: { className: 'x' }, batchPublishers: [{ targetEndpoints: 'h:1', colour: 1, sync: { colour: 2 } }] });
    expect(c.batchPublishers[0]).toEqual({ clusterName: 'dev', publisherId: 'dev', targetEndpoints: ['h:1'], ...DEFAULTS });
  });

  it('reads only own fields: __proto__ and inherited names do not count', () => {
    expect(badOf('{"__proto__": {"name": "x"}, "batchPublishers": [{"targetEndpoints": "h:1"}]}')).toBe('name: is required');
    expect(badOf('{"name": "r", "batchPublishers": [{"__proto__": {"targetEndpoints": "h:1"}}]}')).toBe(
      'batchPublishers[0].targetEndpoints: is required: the host:port of at least one member of the target cluster',
    );
  });

  it('returns a frozen config', () => {
    const c = parse(HAZELCAST_DTO);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.batchPublishers)).toBe(true);
    expect(Object.isFrozen(c.batchPublishers[0])).toBe(true);
    expect(Object.isFrozen(c.batchPublishers[0]?.targetEndpoints)).toBe(true);
  });
});

describe('parseWanConfigJson: enum fields', () => {
  // Hazelcast's ids (getId()), checked against its source: WanQueueFullBehavior,
  // com.hazelcast.wan.WanPublisherState, WanAcknowledgeType, ConsistencyCheckStrategy.
  const ENUMS: readonly [string, readonly string[]][] = [
    ['queueFullBehavior', ['DISCARD_AFTER_MUTATION', 'THROW_EXCEPTION', 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE']],
    ['initialPublisherState', ['REPLICATING', 'PAUSED', 'STOPPED']],
    ['acknowledgeType', ['ACK_ON_RECEIPT', 'ACK_ON_OPERATION_COMPLETE']],
    ['consistencyCheckStrategy', ['NONE', 'MERKLE_TREES']],
  ];
  const fieldsFor = (key: string, v: unknown): Record<string, unknown> =>
    key === 'consistencyCheckStrategy' ? { sync: { consistencyCheckStrategy: v } } : { [key]: v };
  const pathFor = (key: string): string => (key === 'consistencyCheckStrategy' ? 'batchPublishers[0].sync.consistencyCheckStrategy' : `batchPublishers[0].${key}`);

  it.each(ENUMS)('%s: Hazelcast ids and names (any case) both work', (key, names) => {
    names.forEach((n, id) => {
      const read = (v: unknown): unknown => (pubOf(fieldsFor(key, v)) as unknown as Record<string, unknown>)[key];
      expect(read(id)).toBe(n);
      expect(read(n)).toBe(n);
      expect(read(n.toLowerCase())).toBe(n);
      expect(read(` ${n.charAt(0)}${n.slice(1).toLowerCase()} `)).toBe(n);
    });
  });

  it.each(ENUMS)('%s: anything else is refused, listing ids and names', (key, names) => {
    const allowed = names.map((n, i) => `${i} (${n})`).join(', ');
    for (const [v, shown] of [
      [-1, '-1'],
      [names.length, String(names.length)],
      [0.5, '0.5'],
      ['1', '"1"'],
      ['SOMETIMES', '"SOMETIMES"'],
      ['', '""'],
      [true, 'true'],
      [[0], 'an array'],
      [{ id: 0 }, 'an object'],
    ] as const) {
      expect(pubBad(fieldsFor(key, v))).toBe(`${pathFor(key)}: must be one of ${allowed}, as id or name, got ${shown}`);
    }
  });

  it('sync must be an object', () => {
    for (const [v, shown] of [
      [1, '1'],
      ['MERKLE_TREES', '"MERKLE_TREES"'],
      [[], 'an array'],
    ] as const) {
      expect(pubBad({ sync: v })).toBe(`batchPublishers[0].sync: must be an object, got ${shown}`);
    }
  });
});

describe('parseWanConfigJson: integer fields', () => {
  const INTS: readonly [string, 0 | 1][] = [
    ['batchSize', 1],
    ['batchMaxDelayMillis', 0],
    ['responseTimeoutMillis', 1],
    ['queueCapacity', 1],
  ];

  it.each(INTS)('%s: takes integers from its minimum (%i) to 2147483647', (key, min) => {
    const read = (v: number): unknown => (pubOf({ [key]: v }) as unknown as Record<string, unknown>)[key];
    expect(read(min)).toBe(min);
    expect(read(7)).toBe(7);
    expect(read(2147483647)).toBe(2147483647);
    expect(read(1e3)).toBe(1000);
  });

  it.each(INTS)('%s: refuses everything else, naming the field', (key, min) => {
    const kind = min === 1 ? 'positive' : 'non-negative';
    const wrong: [unknown, string][] = [
      ['x', '"x"'],
      ['500', '"500"'],
      [1.5, '1.5'],
      [-1, '-1'],
      [2147483648, '2147483648'],
      [true, 'true'],
      [[], 'an array'],
      [{}, 'an object'],
    ];
    if (min === 1) wrong.push([0, '0']);
    for (const [v, shown] of wrong) {
      expect(pubBad({ [key]: v })).toBe(`batchPublishers[0].${key}: must be a ${kind} integer (at most 2147483647), got ${shown}`);
    }
  });
});

describe('parseWanConfigJson: targetEndpoints', () => {
  it('a comma-separated string (as Hazelcast sends it) or an array of strings', () => {
    expect(pubOf({ targetEndpoints: ' a:1 ,b:2,, c ' }).targetEndpoints).toEqual(['a:1', 'b:2', 'c']);
    expect(pubOf({ targetEndpoints: ['a:1', ' b:2 ', 'c,d:4'] }).targetEndpoints).toEqual(['a:1', 'b:2', 'c', 'd:4']);
    expect(pubOf({ targetEndpoints: ['[::1]:5701', '10.0.0.1', 'db.example.com:65535'] }).targetEndpoints).toEqual([
      '[::1]:5701',
      '10.0.0.1',
      'db.example.com:65535',
    ]);
  });

  it('is required and must list at least one endpoint', () => {
    const none = 'batchPublishers[0].targetEndpoints: must list at least one host:port of the target cluster';
    expect(badOf({ name: 'r', batchPublishers: [{ clusterName: 'B' }] })).toBe(
      'batchPublishers[0].targetEndpoints: is required: the host:port of at least one member of the target cluster',
    );
    expect(badOf({ name: 'r', batchPublishers: [{ targetEndpoints: null }] })).toBe(
      'batchPublishers[0].targetEndpoints: is required: the host:port of at least one member of the target cluster',
    );
    for (const v of ['', ' , ', [], ['', ' ,']]) expect(pubBad({ targetEndpoints: v })).toBe(none);
  });

  it('refuses wrong types and entries that are not host or host:port, naming the entry', () => {
    expect(pubBad({ targetEndpoints: 5701 })).toBe('batchPublishers[0].targetEndpoints: must be a comma-separated string or an array of strings, got 5701');
    expect(pubBad({ targetEndpoints: { a: 1 } })).toBe(
      'batchPublishers[0].targetEndpoints: must be a comma-separated string or an array of strings, got an object',
    );
    expect(pubBad({ targetEndpoints: ['a:1', 5702] })).toBe('batchPublishers[0].targetEndpoints[1]: must be a string, got 5702');
    expect(pubBad({ targetEndpoints: ['a:1', null] })).toBe('batchPublishers[0].targetEndpoints[1]: must be a string, got null');
    expect(pubBad({ targetEndpoints: 'a:1,b:x' })).toBe('batchPublishers[0].targetEndpoints: not a host or host:port: "b:x"');
    expect(pubBad({ targetEndpoints: ['a:1', 'b:1,c:99999'] })).toBe('batchPublishers[0].targetEndpoints[1]: not a host or host:port: "c:99999"');
    for (const e of ['h:0', 'a b:1', ':5701', 'h:', 'http://h:5701']) {
      expect(pubBad({ targetEndpoints: e })).toBe(`batchPublishers[0].targetEndpoints: not a host or host:port: ${JSON.stringify(e)}`);
    }
  });

  it(`at most ${MAX_WAN_JSON_ENDPOINTS} endpoints`, () => {
    const eps = (n: number): string => Array.from({ length: n }, (_, i) => `h${i}:5701`).join(',');
    expect(pubOf({ targetEndpoints: eps(MAX_WAN_JSON_ENDPOINTS) }).targetEndpoints).toHaveLength(MAX_WAN_JSON_ENDPOINTS);
    expect(pubBad({ targetEndpoints: eps(MAX_WAN_JSON_ENDPOINTS + 1) })).toBe(
      `batchPublishers[0].targetEndpoints: at most ${MAX_WAN_JSON_ENDPOINTS} endpoints, got ${MAX_WAN_JSON_ENDPOINTS + 1}`,
    );
  });
});

describe('parseWanConfigJson: names', () => {
  it('name is a required non-empty string', () => {
    const pubs = [{ targetEndpoints: 'h:1' }];
    expect(badOf({ batchPublishers: pubs })).toBe('name: is required');
    expect(badOf({ name: null, batchPublishers: pubs })).toBe('name: is required');
    expect(badOf({ name: '', batchPublishers: pubs })).toBe('name: must not be empty');
    expect(badOf({ name: '  ', batchPublishers: pubs })).toBe('name: must not be empty');
    expect(badOf({ name: 7, batchPublishers: pubs })).toBe('name: must be a string, got 7');
    expect(badOf({ name: ['r'], batchPublishers: pubs })).toBe('name: must be a string, got an array');
  });

  it('clusterName and publisherId must be strings; clusterName must not be empty', () => {
    expect(pubBad({ clusterName: '' })).toBe('batchPublishers[0].clusterName: must not be empty');
    expect(pubBad({ clusterName: 5 })).toBe('batchPublishers[0].clusterName: must be a string, got 5');
    expect(pubBad({ publisherId: false })).toBe('batchPublishers[0].publisherId: must be a string, got false');
    expect(pubBad({ publisherId: { id: 'x' } })).toBe('batchPublishers[0].publisherId: must be a string, got an object');
  });

  it(`names are at most ${MAX_WAN_JSON_NAME_LENGTH} characters`, () => {
    const ok = 'n'.repeat(MAX_WAN_JSON_NAME_LENGTH);
    const long = 'n'.repeat(MAX_WAN_JSON_NAME_LENGTH + 1);
    expect(parse({ name: ok, batchPublishers: [{ clusterName: ok, publisherId: ok, targetEndpoints: 'h:1' }] }).name).toBe(ok);
    const msg = `must be at most ${MAX_WAN_JSON_NAME_LENGTH} characters, got ${MAX_WAN_JSON_NAME_LENGTH + 1}`;
    expect(badOf({ name: long, batchPublishers: [{ targetEndpoints: 'h:1' }] })).toBe(`name: ${msg}`);
    expect(pubBad({ clusterName: long })).toBe(`batchPublishers[0].clusterName: ${msg}`);
    expect(pubBad({ publisherId: long })).toBe(`batchPublishers[0].publisherId: ${msg}`);
  });
});

describe('parseWanConfigJson: the publisher lists', () => {
  const pub = (id: string): Record<string, unknown> => ({ clusterName: 'B', publisherId: id, targetEndpoints: 'h:1' });

  it('publishers is an alias of batchPublishers', () => {
    expect(parse({ name: 'r', publishers: [pub('a'), pub('b')] })).toEqual(parse({ name: 'r', batchPublishers: [pub('a'), pub('b')] }));
  });

  it('with both, both lists are read, batchPublishers first', () => {
    const c = parse({ name: 'r', publishers: [pub('c')], batchPublishers: [pub('a'), pub('b')] });
    expect(c.batchPublishers.map((p) => p.publisherId)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a publisher id given twice, within a list or across both, naming both places', () => {
    expect(badOf({ name: 'r', batchPublishers: [pub('a'), pub('b'), pub('a')] })).toBe('batchPublishers[2]: duplicate publisher id "a" (also batchPublishers[0])');
    expect(badOf({ name: 'r', batchPublishers: [pub('a')], publishers: [pub('a')] })).toBe('publishers[0]: duplicate publisher id "a" (also batchPublishers[0])');
    // A defaulted id counts: two publishers to cluster B without ids are both "B".
    expect(badOf({ name: 'r', batchPublishers: [{ clusterName: 'B', targetEndpoints: 'h:1' }, { clusterName: 'B', targetEndpoints: 'h:2' }] })).toBe(
      'batchPublishers[1]: duplicate publisher id "B" (also batchPublishers[0])',
    );
  });

  it('needs at least one publisher', () => {
    const none = 'batchPublishers: must list at least one publisher (publishers is accepted as another name)';
    expect(badOf({ name: 'r' })).toBe(none);
    expect(badOf({ name: 'r', batchPublishers: [] })).toBe(none);
    expect(badOf({ name: 'r', batchPublishers: null, publishers: [] })).toBe(none);
  });

  it('the lists must be arrays of objects', () => {
    expect(badOf({ name: 'r', batchPublishers: pub('a') })).toBe('batchPublishers: must be an array of publishers, got an object');
    expect(badOf({ name: 'r', publishers: 'a' })).toBe('publishers: must be an array of publishers, got "a"');
    expect(badOf({ name: 'r', batchPublishers: [pub('a'), 3] })).toBe('batchPublishers[1]: must be an object, got 3');
    expect(badOf({ name: 'r', publishers: [null] })).toBe('publishers[0]: must be an object, got null');
    expect(badOf({ name: 'r', batchPublishers: [[]] })).toBe('batchPublishers[0]: must be an object, got an array');
  });

  it(`at most ${MAX_WAN_JSON_PUBLISHERS} publishers in all`, () => {
    const pubs = (n: number, prefix: string): unknown[] => Array.from({ length: n }, (_, i) => pub(`${prefix}${i}`));
    expect(parse({ name: 'r', batchPublishers: pubs(MAX_WAN_JSON_PUBLISHERS, 'p') }).batchPublishers).toHaveLength(MAX_WAN_JSON_PUBLISHERS);
    expect(badOf({ name: 'r', batchPublishers: pubs(MAX_WAN_JSON_PUBLISHERS, 'p'), publishers: pubs(1, 'q') })).toBe(
      `batchPublishers: at most ${MAX_WAN_JSON_PUBLISHERS} publishers in one configuration, got ${MAX_WAN_JSON_PUBLISHERS + 1}`,
    );
  });

  it('refuses custom publishers; an empty customPublishers (as Hazelcast always sends) is fine', () => {
    expect(parse({ name: 'r', batchPublishers: [pub('a')], customPublishers: [] }).batchPublishers).toHaveLength(1);
    expect(parse({ name: 'r', batchPublishers: [pub('a')], customPublishers: null }).batchPublishers).toHaveLength(1);
    expect(badOf({ name: 'r', batchPublishers: [pub('a')], customPublishers: [{ className: 'com.acme.P', publisherId: 'x' }] })).toBe(
      'customPublishers: custom WAN publishers are not supported; use batchPublishers',
    );
  });
});

describe('parseWanConfigJson: the text', () => {
  it('invalid JSON is BAD_REQUEST naming addWanConfig', () => {
    for (const text of ['', '{', '{"name": "r",}', "{'name': 'r'}", 'name=r', '{"name": "r"} x']) {
      expect(badOf(text)).toMatch(/^addWanConfig: invalid JSON: ./);
    }
  });

  it('the root must be an object', () => {
    expect(badOf('[]')).toBe('addWanConfig: must be a JSON object, got an array');
    expect(badOf('"r"')).toBe('addWanConfig: must be a JSON object, got "r"');
    expect(badOf('null')).toBe('addWanConfig: must be a JSON object, got null');
    expect(badOf('42')).toBe('addWanConfig: must be a JSON object, got 42');
  });

  it(`at most ${MAX_WAN_JSON_CHARS} characters`, () => {
    const base = JSON.stringify(withPub({}));
    const padded = (n: number): string => `${base.slice(0, -1)}, "pad": "${'x'.repeat(n - base.length - 11)}"}`;
    expect(padded(MAX_WAN_JSON_CHARS)).toHaveLength(MAX_WAN_JSON_CHARS);
    expect(parseWanConfigJson(padded(MAX_WAN_JSON_CHARS)).name).toBe('r');
    expect(badOf(padded(MAX_WAN_JSON_CHARS + 1))).toBe(
      `addWanConfig: the configuration is larger than ${MAX_WAN_JSON_CHARS} characters (${MAX_WAN_JSON_CHARS + 1})`,
    );
  });

  it('long values are shortened in messages', () => {
    const msg = pubBad({ targetEndpoints: `${'h'.repeat(200)}:x` });
    expect(msg).toBe(`batchPublishers[0].targetEndpoints: not a host or host:port: "${'h'.repeat(77)}..."`);
  });
});

describe('wanConfigToJson', () => {
  it("writes Hazelcast's DTO shape: enum ids, comma-separated endpoints, every field", () => {
    const cfg = parse(HAZELCAST_DTO);
    expect(JSON.parse(wanConfigToJson(cfg))).toEqual({
      name: 'to-b',
      batchPublishers: [
        {
          clusterName: 'B',
          publisherId: 'b-pub',
          targetEndpoints: '127.0.0.1:5801,127.0.0.1:5802',
          batchSize: 250,
          batchMaxDelayMillis: 200,
          responseTimeoutMillis: 30000,
          queueCapacity: 5000,
          queueFullBehavior: 1,
          initialPublisherState: 1,
          acknowledgeType: 0,
          sync: { consistencyCheckStrategy: 1 },
          heartbeatIntervalMillis: 1000,
          heartbeatTimeoutMillis: 5000,
        },
      ],
    });
  });

  it("Grid's own heartbeat fields: read when given, 0 turns the probes off, a timeout not above the interval is refused", () => {
    expect(pubOf({ heartbeatIntervalMillis: 200, heartbeatTimeoutMillis: 900 })).toMatchObject({ heartbeatIntervalMillis: 200, heartbeatTimeoutMillis: 900 });
    expect(pubOf({ heartbeatTimeoutMillis: 0 })).toMatchObject({ heartbeatIntervalMillis: 1000, heartbeatTimeoutMillis: 0 });
    expect(pubBad({ heartbeatIntervalMillis: 2000, heartbeatTimeoutMillis: 2000 })).toMatch(/heartbeatTimeoutMillis.*must be 0 \(off\) or greater than heartbeatIntervalMillis \(2000\), got 2000/);
    expect(pubBad({ heartbeatIntervalMillis: 0 })).toMatch(/heartbeatIntervalMillis/);
  });

  it('round-trips every combination of enum values and other fields', () => {
    const rnd = prng(8);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    for (let n = 0; n < 200; n++) {
      const publishers: WanBatchPublisherConfig[] = [];
      const count = 1 + Math.floor(rnd() * 4);
      for (let i = 0; i < count; i++) {
        publishers.push({
          clusterName: pick(['B', 'dev', 'cluster with spaces', 'ünïcödé']),
          publisherId: `p${i}`,
          targetEndpoints: Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, j) => pick([`10.0.0.${j}:5701`, `h${j}`, `[::${j + 1}]:58${j}1`])),
          batchSize: 1 + Math.floor(rnd() * 10000),
          batchMaxDelayMillis: Math.floor(rnd() * 5000),
          responseTimeoutMillis: 1 + Math.floor(rnd() * 100000),
          queueCapacity: pick([1, 10000, 2147483647]),
          queueFullBehavior: pick(['DISCARD_AFTER_MUTATION', 'THROW_EXCEPTION', 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE'] as const),
          initialPublisherState: pick(['REPLICATING', 'PAUSED', 'STOPPED'] as const),
          acknowledgeType: pick(['ACK_ON_RECEIPT', 'ACK_ON_OPERATION_COMPLETE'] as const),
          consistencyCheckStrategy: pick(['NONE', 'MERKLE_TREES'] as const),
          ...pick([
            { heartbeatIntervalMillis: 1000, heartbeatTimeoutMillis: 5000 },
            { heartbeatIntervalMillis: 1, heartbeatTimeoutMillis: 0 },
            { heartbeatIntervalMillis: 250, heartbeatTimeoutMillis: 251 },
          ]),
        });
      }
      const cfg: WanReplicationConfig = { name: `rep-${n}`, batchPublishers: publishers };
      const json = wanConfigToJson(cfg);
      expect(parseWanConfigJson(json)).toEqual(cfg);
      expect(wanConfigToJson(parseWanConfigJson(json))).toBe(json);
    }
  });

  it('round-trips configs read from XML/YAML', () => {
    const { config } = configFromObject({
      'wan-replication': {
        r: {
          'batch-publisher': {
            b: { 'cluster-name': 'B', 'target-endpoints': 'a:1,b:2', 'queue-full-behavior': 'THROW_EXCEPTION_ONLY_IF_REPLICATION_ACTIVE', sync: { 'consistency-check-strategy': 'MERKLE_TREES' } },
            c: { 'cluster-name': 'C', 'target-endpoints': 'c', 'initial-publisher-state': 'STOPPED', 'batch-max-delay-millis': 0 },
          },
        },
      },
    });
    const rep = config.wanReplication[0];
    if (rep === undefined) throw new Error('no wan-replication');
    expect(parseWanConfigJson(wanConfigToJson(rep))).toEqual(rep);
  });
});
