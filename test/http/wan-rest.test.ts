// The WAN endpoints over the real HTTP interface of a started member (rest-interface.md §4,
// grid-behavior.md §3, §7, §9): answer shapes, publisher states and queues as GET /rest/wan
// shows them, and every error answer. The target cluster is a local listener that closes
// every connection at once, so the publishers only queue.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { basic, expectError, pollUntil, sendRequest, type RawResponse } from '../support/http.js';
import { restConfig, startMember, type StartedMember } from '../support/member.js';

const W = '/grid/rest/wan';
const PREFIXES = ['/grid', '/hazelcast'] as const;
const UNKNOWN_UUID = '4b3a5a4e-0c55-4d39-9f0c-6ad8d1a6c2a1';
const STAGES = ['STARTED', 'IN_PROGRESS', 'FINISHED', 'FAILED'];

// ---------------------------------------------------------------- a target that is down

const targets: net.Server[] = [];

afterEach(async () => {
  await Promise.all(targets.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/**
 * A port that accepts and at once closes every connection: a WAN target that is down, which
 * no member of another test can ever bind (the test holds the port).
 */
async function downTarget(): Promise<number> {
  const srv = net.createServer((socket) => socket.destroy());
  targets.push(srv);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return (srv.address() as net.AddressInfo).port;
}

// ---------------------------------------------------------------- config

interface WanMemberOptions {
  readonly groups?: readonly string[];
  readonly extra?: Record<string, unknown>;
}

/**
 * A member with three WAN replications, all aimed at a target that is down:
 * - `wr`: one publisher `pub` (target cluster `target`, MERKLE_TREES), used by map `orders`;
 * - `wr2`: two publishers `a` and `b` (an empty publisherId is ambiguous there);
 * - `wrnone`: one publisher `n` with consistency-check strategy NONE, used by map `plain`.
 */
async function wanMember(opts: WanMemberOptions = {}): Promise<StartedMember> {
  const target = `127.0.0.1:${await downTarget()}`;
  const publisher = (clusterName: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    'cluster-name': clusterName,
    'target-endpoints': target,
    'batch-max-delay-millis': 50,
    ...extra,
  });
  return startMember(
    restConfig(opts.groups ?? ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'WAN', 'DATA'], {
      'wan-replication': {
        wr: { 'batch-publisher': { pub: publisher('target', { sync: { 'consistency-check-strategy': 'MERKLE_TREES' } }) } },
        wr2: { 'batch-publisher': { a: publisher('target-a'), b: publisher('target-b') } },
        wrnone: { 'batch-publisher': { n: publisher('target-n') } },
      },
      map: {
        orders: { 'wan-replication-ref': { wr: {} }, 'merkle-tree': { enabled: true } },
        plain: { 'wan-replication-ref': { wrnone: {} } },
      },
      ...opts.extra,
    }),
  );
}

// ---------------------------------------------------------------- requests

function post(m: StartedMember, op: string, body: string, opts: { prefix?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  return sendRequest(m.port, 'POST', `${opts.prefix ?? '/grid'}/rest/wan/${op}`, { body, headers: opts.headers });
}

function get(m: StartedMember, path: string, headers?: Record<string, string>): Promise<RawResponse> {
  return sendRequest(m.port, 'GET', path, { headers });
}

function json(res: RawResponse): Record<string, unknown> {
  expect(res.status, `${res.status} ${res.headers['x-grid-error'] ?? ''}`).toBe(200);
  expect(res.headers['content-type']).toBe('application/json');
  expect(Number(res.headers['content-length'])).toBe(res.body.length);
  return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
}

interface PublisherStatus {
  wanReplicationName: string;
  publisherId: string;
  targetClusterName: string;
  state: string;
  primaryQueueSize: number;
  backupQueueSize: number;
  eventsDropped: number;
  [field: string]: unknown;
}

async function publishers(m: StartedMember): Promise<PublisherStatus[]> {
  const body = json(await get(m, '/grid/rest/wan'));
  expect(Object.keys(body)).toEqual(['publishers']);
  expect(Array.isArray(body.publishers)).toBe(true);
  return body.publishers as PublisherStatus[];
}

async function publisher(m: StartedMember, rep: string, id: string): Promise<PublisherStatus> {
  const found = (await publishers(m)).find((p) => p.wanReplicationName === rep && p.publisherId === id);
  expect(found, `publisher ${rep}/${id} in GET /rest/wan`).toBeDefined();
  return found!;
}

async function putEntries(m: StartedMember, map: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await sendRequest(m.port, 'POST', `/grid/rest/maps/${map}/k${i}`, { body: `v${i}` });
    expect(res.status, `put ${map}/k${i}: ${res.headers['x-grid-error'] ?? ''}`).toBe(200);
  }
}

function expectUuid(value: unknown): string {
  expect(typeof value).toBe('string');
  expect(value as string).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  return value as string;
}

// ---------------------------------------------------------------- publisher states

describe('pausePublisher, resumePublisher, stopPublisher', () => {
  it('answer the contract messages under both prefixes, and GET /rest/wan follows the state', async () => {
    const m = await wanMember();
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
    const steps: [string, string, string][] = [
      ['pausePublisher', 'WAN publisher paused', 'PAUSED'],
      ['resumePublisher', 'WAN publisher resumed', 'REPLICATING'],
      ['stopPublisher', 'WAN publisher stopped', 'STOPPED'],
      ['resumePublisher', 'WAN publisher resumed', 'REPLICATING'],
    ];
    for (const prefix of PREFIXES) {
      for (const [op, message, state] of steps) {
        expect(json(await post(m, op, 'dev&&wr&pub', { prefix })), `${prefix} ${op}`).toEqual({ status: 'success', message });
        expect((await publisher(m, 'wr', 'pub')).state, `${prefix} ${op}`).toBe(state);
      }
    }
    // The other publishers are untouched.
    for (const p of await publishers(m)) if (p.wanReplicationName !== 'wr') expect(p.state).toBe('REPLICATING');
  });

  it('a paused publisher keeps queueing; a stopped one drops new events and keeps what was queued', async () => {
    const m = await wanMember();
    json(await post(m, 'pausePublisher', 'dev&&wr&pub'));
    await putEntries(m, 'orders', 5);
    expect((await publisher(m, 'wr', 'pub')).primaryQueueSize).toBe(5);
    json(await post(m, 'stopPublisher', 'dev&&wr&pub'));
    const before = await publisher(m, 'wr', 'pub');
    await putEntries(m, 'orders', 3);
    const after = await publisher(m, 'wr', 'pub');
    expect(after.state).toBe('STOPPED');
    expect(after.primaryQueueSize).toBe(5);
    expect(after.eventsDropped - before.eventsDropped).toBe(3);
  });

  it('an empty publisherId names the only publisher of the replication', async () => {
    const m = await wanMember();
    expect(json(await post(m, 'pausePublisher', 'dev&&wr&'))).toEqual({ status: 'success', message: 'WAN publisher paused' });
    expect((await publisher(m, 'wr', 'pub')).state).toBe('PAUSED');
  });

  it('an empty publisherId of a replication with two publishers is a 400 naming them', async () => {
    const m = await wanMember();
    const res = await post(m, 'pausePublisher', 'dev&&wr2&');
    expectError(res, 400);
    expect(res.headers['x-grid-error']).toMatch(/\ba\b/);
    expect(res.headers['x-grid-error']).toMatch(/\bb\b/);
    for (const id of ['a', 'b']) expect((await publisher(m, 'wr2', id)).state).toBe('REPLICATING');
  });

  it('parameters are percent-decoded', async () => {
    const m = await wanMember();
    json(await post(m, 'pausePublisher', 'de%76&&w%72&p%75b'));
    expect((await publisher(m, 'wr', 'pub')).state).toBe('PAUSED');
  });
});

describe('clearWanQueues', () => {
  it('empties the queues of the publisher on this member', async () => {
    const m = await wanMember();
    await putEntries(m, 'orders', 20);
    // Removes are events too.
    expect((await sendRequest(m.port, 'DELETE', '/grid/rest/maps/orders/k0')).status).toBe(200);
    const queued = await publisher(m, 'wr', 'pub');
    expect(queued.primaryQueueSize).toBe(21);
    expect(queued.lagMillis).toBeGreaterThanOrEqual(0);

    for (const prefix of PREFIXES) {
      expect(json(await post(m, 'clearWanQueues', 'dev&&wr&pub', { prefix }))).toEqual({
        status: 'success',
        message: 'WAN replication queues are cleared.',
      });
      const cleared = await publisher(m, 'wr', 'pub');
      expect(cleared.primaryQueueSize).toBe(0);
      expect(cleared.backupQueueSize).toBe(0);
      expect(cleared.lagMillis).toBe(0);
    }
    // The publisher keeps its state and queues again.
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
    await putEntries(m, 'orders', 2);
    expect((await publisher(m, 'wr', 'pub')).primaryQueueSize).toBe(2);
  });
});

// ---------------------------------------------------------------- GET /rest/wan

describe('GET /rest/wan (Grid, CLUSTER_READ)', () => {
  it('lists every publisher of this member with its counters', async () => {
    const m = await wanMember();
    const list = await publishers(m);
    expect(list.map((p) => `${p.wanReplicationName}/${p.publisherId}`).sort()).toEqual(['wr/pub', 'wr2/a', 'wr2/b', 'wrnone/n']);
    const p = list.find((x) => x.publisherId === 'pub')!;
    expect(p.targetClusterName).toBe('target');
    expect(p.state).toBe('REPLICATING');
    expect(p.queueCapacity).toBe(10_000);
    for (const field of [
      'primaryQueueSize',
      'backupQueueSize',
      'eventsQueued',
      'eventsSent',
      'eventsAcknowledged',
      'eventsDropped',
      'writesRefused',
      'batchesSent',
      'batchesFailed',
      'lagMillis',
    ]) {
      expect(typeof p[field], field).toBe('number');
    }
    expect(p.lastAckTime).toBeNull();
    expect(Array.isArray(p.endpoints)).toBe(true);
    const endpoints = p.endpoints as { address: string; status: string }[];
    expect(endpoints).toHaveLength(1);
    expect(['down', 'connecting', 'up']).toContain(endpoints[0]!.status);
    // Under /hazelcast/ too, and with a trailing slash.
    expect(json(await get(m, '/hazelcast/rest/wan'))).toHaveProperty('publishers');
    expect(json(await get(m, '/grid/rest/wan/'))).toHaveProperty('publishers');
  });

  it('is empty on a member without WAN replication', async () => {
    const m = await startMember();
    expect(json(await get(m, '/grid/rest/wan'))).toEqual({ publishers: [] });
  });

  it('belongs to CLUSTER_READ, not WAN; only GET', async () => {
    const readOnly = await wanMember({ groups: ['CLUSTER_READ'] });
    expect(json(await get(readOnly, '/grid/rest/wan'))).toHaveProperty('publishers');
    expect(json(await get(readOnly, '/grid/rest/wan/'))).toHaveProperty('publishers');
    const wanOnly = await wanMember({ groups: ['WAN', 'HEALTH_CHECK'] });
    expectError(await get(wanOnly, '/grid/rest/wan'), 403, /endpoint group CLUSTER_READ is disabled/);
    expectError(await get(wanOnly, '/grid/rest/wan/'), 403, /endpoint group CLUSTER_READ is disabled/);
    expectError(await sendRequest(readOnly.port, 'POST', '/grid/rest/wan', { body: 'dev&' }), 400);
    expectError(await sendRequest(readOnly.port, 'DELETE', '/grid/rest/wan'), 400);
  });
});

// ---------------------------------------------------------------- sync and consistency check

describe('sync/map, sync/allmaps and sync/progress', () => {
  it('sync/map answers a uuid at once, and sync/progress gives stage and names', async () => {
    const m = await wanMember();
    await putEntries(m, 'orders', 10);
    for (const prefix of PREFIXES) {
      const started = json(await post(m, 'sync/map', 'dev&&wr&pub&orders', { prefix }));
      expect(Object.keys(started).sort()).toEqual(['message', 'status', 'uuid']);
      expect(started.status).toBe('success');
      expect(started.message).toBe('Sync initiated');
      const uuid = expectUuid(started.uuid);

      const progress = json(await get(m, `${prefix}/rest/wan/sync/progress/${uuid}`));
      expect(progress.status).toBe('success');
      expect(Object.keys(progress).sort()).toEqual(['result', 'status']);
      const result = progress.result as Record<string, unknown>;
      expect(Object.keys(result).sort()).toEqual(['creationTime', 'progress', 'stage', 'wanPublisherId', 'wanReplicationName']);
      expect(STAGES).toContain(result.stage);
      expect(result.stage).not.toBe('FAILED');
      expect(result.wanReplicationName).toBe('wr');
      expect(result.wanPublisherId).toBe('pub');
      expect(typeof result.progress).toBe('number');
      expect(result.progress as number).toBeGreaterThanOrEqual(0);
      expect(result.progress as number).toBeLessThanOrEqual(100);
      expect(typeof result.creationTime).toBe('number');
      expect(Math.abs((result.creationTime as number) - Date.now())).toBeLessThan(60_000);
    }
  });

  it('sync/allmaps answers a uuid whose progress names the replication; an empty publisherId works', async () => {
    const m = await wanMember();
    const started = json(await post(m, 'sync/allmaps', 'dev&&wr&'));
    expect(started.status).toBe('success');
    expect(started.message).toBe('Sync initiated');
    const uuid = expectUuid(started.uuid);
    const result = json(await get(m, `${W}/sync/progress/${uuid}`)).result as Record<string, unknown>;
    expect(result.wanReplicationName).toBe('wr');
    expect(result.wanPublisherId).toBe('pub');
    expect(STAGES).toContain(result.stage);
  });

  it('sync/map with an empty map name is a 400', async () => {
    const m = await wanMember();
    expectError(await post(m, 'sync/map', 'dev&&wr&pub&'), 400, /map name/);
  });

  it('progress of an unknown uuid is a 404, with no credentials needed', async () => {
    const m = await wanMember();
    for (const prefix of PREFIXES) expectError(await get(m, `${prefix}/rest/wan/sync/progress/${UNKNOWN_UUID}`), 404);
    expectError(await get(m, `${W}/sync/progress/not-a-uuid`), 404);
  });
});

describe('consistencyCheck/map and GET consistencyCheck/<uuid>', () => {
  it('answers a uuid; the result has the counters and names; the uuid also works with sync/progress', async () => {
    const m = await wanMember();
    await putEntries(m, 'orders', 10);
    const started = json(await post(m, 'consistencyCheck/map', 'dev&&wr&pub&orders', { prefix: '/hazelcast' }));
    expect(Object.keys(started).sort()).toEqual(['message', 'status', 'uuid']);
    expect(started.status).toBe('success');
    expect(started.message).toBe('Consistency check initiated');
    const uuid = expectUuid(started.uuid);

    for (const prefix of PREFIXES) {
      const body = json(await get(m, `${prefix}/rest/wan/consistencyCheck/${uuid}`));
      expect(body.status).toBe('success');
      const result = body.result as Record<string, unknown>;
      expect(STAGES).toContain(result.stage);
      expect(result.wanReplicationName).toBe('wr');
      expect(result.wanPublisherId).toBe('pub');
      expect(result.mapName).toBe('orders');
      for (const field of ['creationTime', 'partitionsChecked', 'partitionsDiffering', 'leavesChecked', 'leavesDiffering', 'entriesToSync']) {
        expect(typeof result[field], field).toBe('number');
      }
      if (result.stage === 'FAILED') expect(typeof result.failure).toBe('string');
    }
    const progress = json(await get(m, `${W}/sync/progress/${uuid}`)).result as Record<string, unknown>;
    expect(progress.wanReplicationName).toBe('wr');
    expect(progress.wanPublisherId).toBe('pub');
    expect(STAGES).toContain(progress.stage);
  });

  it('with consistency-check strategy NONE it is a 400', async () => {
    const m = await wanMember();
    const res = await post(m, 'consistencyCheck/map', 'dev&&wrnone&n&plain');
    expectError(res, 400, /NONE|MERKLE_TREES/);
  });

  it('an empty map name is a 400; an unknown uuid is a 404', async () => {
    const m = await wanMember();
    expectError(await post(m, 'consistencyCheck/map', 'dev&&wr&pub&'), 400, /map name/);
    expectError(await get(m, `${W}/consistencyCheck/${UNKNOWN_UUID}`), 404);
    // consistencyCheck/map is a POST: GET of it is not a result.
    expectError(await get(m, `${W}/consistencyCheck/map`), 400);
  });
});

// ---------------------------------------------------------------- addWanConfig

describe('addWanConfig', () => {
  it('adds new publishers, ignores known ones, and the new publisher shows in GET /rest/wan', async () => {
    const m = await wanMember();
    const target = `127.0.0.1:${await downTarget()}`;
    const config = JSON.stringify({
      name: 'wr',
      batchPublishers: [
        { clusterName: 'target', publisherId: 'pub', targetEndpoints: target },
        { clusterName: 'other', publisherId: 'added', targetEndpoints: target, queueCapacity: 500 },
      ],
    });
    const first = json(await post(m, 'addWanConfig', `dev&&${config}`));
    expect(first).toEqual({ status: 'success', message: 'WAN configuration added.', addedPublisherIds: ['added'], ignoredPublisherIds: ['pub'] });
    const again = json(await post(m, 'addWanConfig', `dev&&${config}`, { prefix: '/hazelcast' }));
    expect(again).toEqual({ status: 'success', message: 'WAN configuration added.', addedPublisherIds: [], ignoredPublisherIds: ['pub', 'added'] });

    const added = await publisher(m, 'wr', 'added');
    expect(added.targetClusterName).toBe('other');
    expect(added.queueCapacity).toBe(500);
    expect(added.state).toBe('REPLICATING');
    // It takes the WAN commands like a configured one.
    json(await post(m, 'pausePublisher', 'dev&&wr&added'));
    expect((await publisher(m, 'wr', 'added').then((p) => p.state))).toBe('PAUSED');
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('takes a new replication with the "publishers" alias; an "&" inside the JSON belongs to it', async () => {
    const m = await wanMember();
    const target = `127.0.0.1:${await downTarget()}`;
    const config = JSON.stringify({ name: 'dyn', publishers: [{ clusterName: 'c', publisherId: 'x&y', targetEndpoints: [target] }] });
    expect(json(await post(m, 'addWanConfig', `dev&&${config}`))).toEqual({
      status: 'success',
      message: 'WAN configuration added.',
      addedPublisherIds: ['x&y'],
      ignoredPublisherIds: [],
    });
    expect((await publisher(m, 'dyn', 'x&y')).targetClusterName).toBe('c');
    // A REST parameter with "&" is percent-encoded.
    json(await post(m, 'stopPublisher', 'dev&&dyn&x%26y'));
    expect((await publisher(m, 'dyn', 'x&y')).state).toBe('STOPPED');
  });

  it('bad JSON and bad fields are 400s that add nothing', async () => {
    const m = await wanMember();
    const before = await publishers(m);
    for (const bad of [
      '',
      '{',
      'not json',
      '[]',
      '{"name":"wr3"',
      '{"name":"wr3","batchPublishers":[{"clusterName":"c","publisherId":"z","targetEndpoints":"127.0.0.1:1","batchSize":"many"}]}',
      '{"name":"wr3","batchPublishers":[{"clusterName":"c","publisherId":"z","targetEndpoints":"127.0.0.1:1","queueFullBehavior":99}]}',
    ]) {
      expectError(await post(m, 'addWanConfig', `dev&&${bad}`), 400);
    }
    expect(await publishers(m)).toHaveLength(before.length);
  });
});

// ---------------------------------------------------------------- errors

describe('WAN errors', () => {
  const FOUR_PARAM_OPS = ['pausePublisher', 'resumePublisher', 'stopPublisher', 'clearWanQueues', 'sync/allmaps'];

  it('an unknown wanRepName is a 400 naming it', async () => {
    const m = await wanMember();
    for (const op of FOUR_PARAM_OPS) expectError(await post(m, op, 'dev&&nosuchrep&pub'), 400, /nosuchrep/);
    for (const op of ['sync/map', 'consistencyCheck/map']) expectError(await post(m, op, 'dev&&nosuchrep&pub&orders'), 400, /nosuchrep/);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('an unknown publisherId is a 400 naming it', async () => {
    const m = await wanMember();
    for (const op of FOUR_PARAM_OPS) expectError(await post(m, op, 'dev&&wr&nosuchpub'), 400, /nosuchpub/);
    for (const op of ['sync/map', 'consistencyCheck/map']) expectError(await post(m, op, 'dev&&wr&nosuchpub&orders'), 400, /nosuchpub/);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('too few parameters is a 400 before anything else', async () => {
    const m = await wanMember();
    expectError(await post(m, 'pausePublisher', 'dev&&wr'), 400, /^expected 4 parameters separated by "&", got 3$/);
    for (const op of FOUR_PARAM_OPS) expectError(await post(m, op, 'dev&&wr'), 400, /expected 4 parameters/);
    expectError(await post(m, 'sync/map', 'dev&&wr&pub'), 400, /expected 5 parameters/);
    expectError(await post(m, 'consistencyCheck/map', 'dev&&wr&pub'), 400, /expected 5 parameters/);
    expectError(await post(m, 'addWanConfig', 'dev&'), 400, /expected 3 parameters/);
    expectError(await post(m, 'pausePublisher', ''), 400);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('a wrong cluster name is a 403 and changes nothing', async () => {
    const m = await wanMember();
    for (const op of FOUR_PARAM_OPS) expectError(await post(m, op, 'prod&&wr&pub'), 403);
    for (const op of ['sync/map', 'consistencyCheck/map']) expectError(await post(m, op, 'prod&&wr&pub&orders'), 403);
    expectError(await post(m, 'addWanConfig', 'prod&&{"name":"x","batchPublishers":[]}'), 403);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('unknown operations and wrong methods are 400s', async () => {
    const m = await wanMember();
    expectError(await post(m, 'pause', 'dev&&wr&pub'), 400);
    expectError(await post(m, 'sync', 'dev&&wr&pub'), 400);
    expectError(await post(m, 'sync/progress/x', 'dev&'), 400);
    expectError(await get(m, `${W}/pausePublisher`), 400);
    expectError(await get(m, `${W}/sync/progress/`), 400);
    expectError(await get(m, `${W}/sync/progress/a/b`), 400);
    expectError(await sendRequest(m.port, 'DELETE', `${W}/sync/progress/${UNKNOWN_UUID}`), 400);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });

  it('every WAN endpoint is a 403 when the WAN group is disabled; GET /rest/wan still answers', async () => {
    const m = await wanMember({ groups: ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'DATA'] });
    for (const op of FOUR_PARAM_OPS) expectError(await post(m, op, 'dev&&wr&pub'), 403, /^endpoint group WAN is disabled$/);
    for (const op of ['sync/map', 'consistencyCheck/map']) expectError(await post(m, op, 'dev&&wr&pub&orders'), 403, /WAN is disabled/);
    expectError(await post(m, 'addWanConfig', 'dev&&{}'), 403, /WAN is disabled/);
    expectError(await get(m, `${W}/sync/progress/${UNKNOWN_UUID}`), 403, /WAN is disabled/);
    expectError(await get(m, `${W}/consistencyCheck/${UNKNOWN_UUID}`), 403, /WAN is disabled/);
    expect((await publisher(m, 'wr', 'pub')).state).toBe('REPLICATING');
  });
});

describe('WAN with security enabled', () => {
  const SECURITY = {
    enabled: true,
    realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 's3cret', roles: ['admin'] }] } } }],
    'client-authentication': { realm: 'r' },
  };

  it('POSTs take realm users (body or Basic); the GETs need no credentials', async () => {
    const m = await wanMember({ extra: { security: SECURITY } });
    expectError(await post(m, 'pausePublisher', 'dev&&wr&pub'), 403);
    expectError(await post(m, 'pausePublisher', 'admin&wrong&wr&pub'), 403);
    expect(json(await post(m, 'pausePublisher', 'admin&s3cret&wr&pub'))).toEqual({ status: 'success', message: 'WAN publisher paused' });
    expect(json(await post(m, 'resumePublisher', 'wr&pub', { headers: { Authorization: basic('admin', 's3cret') } }))).toEqual({
      status: 'success',
      message: 'WAN publisher resumed',
    });
    // grid-behavior.md §7 protects only health/cluster-state and log-level among the GETs.
    expect(json(await get(m, '/grid/rest/wan'))).toHaveProperty('publishers');
    expectError(await get(m, `${W}/sync/progress/${UNKNOWN_UUID}`), 404);
    const uuid = expectUuid(json(await post(m, 'sync/map', 'admin&s3cret&wr&pub&orders')).uuid);
    expect(json(await get(m, `${W}/sync/progress/${uuid}`)).status).toBe('success');
  });
});

describe('WAN answers are for this request only', () => {
  it('a slow sync start does not hold other connections', async () => {
    const m = await wanMember();
    await putEntries(m, 'orders', 50);
    const [started, listed] = await Promise.all([post(m, 'sync/map', 'dev&&wr&pub&orders'), get(m, '/grid/rest/wan')]);
    expectUuid(json(started).uuid);
    expect(json(listed)).toHaveProperty('publishers');
    // The sync's events reach the queue (sync events are not limited by the queue capacity).
    await pollUntil(
      () => publisher(m, 'wr', 'pub'),
      (p) => p.primaryQueueSize >= 100,
      { what: 'live and sync events queued', timeoutMs: 10_000 },
    );
  });
});
