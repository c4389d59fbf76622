import { describe, expect, it } from 'vitest';
import type { EndpointGroupName } from '../../../src/config/types.js';
import type { RestDeps } from '../../../src/rest/context.js';
import { resolveRoute, scopeOf, type Method, type Request } from '../../../src/rest/routes.js';
import { expectGridError } from './helpers.js';

const group = (method: Method, rest: string): EndpointGroupName => resolveRoute(method, rest).group;

/** Every case: method, path after the prefix, expected group (grid-behavior §2). */
const CASES: readonly [Method, string, EndpointGroupName][] = [
  // maps and queues: DATA
  ['GET', 'rest/maps/m/k', 'DATA'],
  ['HEAD', 'rest/maps/m/k', 'DATA'],
  ['POST', 'rest/maps/m/k', 'DATA'],
  ['DELETE', 'rest/maps/m/k', 'DATA'],
  ['DELETE', 'rest/maps/m', 'DATA'],
  ['GET', 'rest/maps/m/a/b/', 'DATA'],
  ['POST', 'rest/queues/q', 'DATA'],
  ['POST', 'rest/queues/q/', 'DATA'],
  ['POST', 'rest/queues/q/value', 'DATA'],
  ['DELETE', 'rest/queues/q/5', 'DATA'],
  ['GET', 'rest/queues/q/5', 'DATA'],
  ['DELETE', 'rest/queues/q/0', 'DATA'],
  ['GET', 'rest/queues/q/size', 'DATA'],
  ['HEAD', 'rest/queues/q/size', 'DATA'],
  // health: HEALTH_CHECK
  ['GET', 'health', 'HEALTH_CHECK'],
  ['HEAD', 'health', 'HEALTH_CHECK'],
  ['GET', 'health/', 'HEALTH_CHECK'],
  ['GET', 'health/node-state', 'HEALTH_CHECK'],
  ['GET', 'health/cluster-state', 'HEALTH_CHECK'],
  ['GET', 'health/cluster-safe', 'HEALTH_CHECK'],
  ['GET', 'health/migration-queue-size', 'HEALTH_CHECK'],
  ['GET', 'health/cluster-size', 'HEALTH_CHECK'],
  ['GET', 'health/ready', 'HEALTH_CHECK'],
  ['GET', 'health/ready/', 'HEALTH_CHECK'],
  ['HEAD', 'health/ready', 'HEALTH_CHECK'],
  // WAN
  ['POST', 'rest/wan/clearWanQueues', 'WAN'],
  ['POST', 'rest/wan/pausePublisher', 'WAN'],
  ['POST', 'rest/wan/resumePublisher', 'WAN'],
  ['POST', 'rest/wan/stopPublisher', 'WAN'],
  ['POST', 'rest/wan/sync/map', 'WAN'],
  ['POST', 'rest/wan/sync/allmaps', 'WAN'],
  ['POST', 'rest/wan/consistencyCheck/map', 'WAN'],
  ['POST', 'rest/wan/addWanConfig', 'WAN'],
  ['GET', 'rest/wan/sync/progress/0f3c1a52-6f1e-4b0e-9a55-4b8a8f1d1a2b', 'WAN'],
  ['HEAD', 'rest/wan/sync/progress/0f3c1a52-6f1e-4b0e-9a55-4b8a8f1d1a2b', 'WAN'],
  ['GET', 'rest/wan/consistencyCheck/0f3c1a52-6f1e-4b0e-9a55-4b8a8f1d1a2b', 'WAN'],
  // PERSISTENCE
  ['POST', 'rest/management/cluster/forceStart', 'PERSISTENCE'],
  ['POST', 'rest/management/cluster/partialStart', 'PERSISTENCE'],
  ['POST', 'rest/management/cluster/backup', 'PERSISTENCE'],
  ['POST', 'rest/management/cluster/backupInterrupt', 'PERSISTENCE'],
  ['POST', 'rest/management/cluster/hotBackup', 'PERSISTENCE'],
  ['POST', 'rest/management/cluster/hotBackupInterrupt', 'PERSISTENCE'],
  // CLUSTER_READ
  ['GET', 'rest/cluster', 'CLUSTER_READ'],
  ['GET', 'rest/cluster/', 'CLUSTER_READ'],
  ['HEAD', 'rest/cluster', 'CLUSTER_READ'],
  ['GET', 'rest/instance', 'CLUSTER_READ'],
  ['POST', 'rest/management/cluster/state', 'CLUSTER_READ'],
  ['POST', 'rest/management/cluster/nodes', 'CLUSTER_READ'],
  ['GET', 'rest/management/cluster/version', 'CLUSTER_READ'],
  ['GET', 'rest/license', 'CLUSTER_READ'],
  ['GET', 'rest/log-level', 'CLUSTER_READ'],
  ['GET', 'rest/config/tcp-ip/member-list', 'CLUSTER_READ'],
  ['GET', 'rest/wan', 'CLUSTER_READ'],
  ['GET', 'rest/wan/', 'CLUSTER_READ'],
  // CLUSTER_WRITE
  ['POST', 'rest/management/cluster/clusterShutdown', 'CLUSTER_WRITE'],
  ['POST', 'rest/management/cluster/memberShutdown', 'CLUSTER_WRITE'],
  ['POST', 'rest/management/cluster/changeState', 'CLUSTER_WRITE'],
  ['POST', 'rest/management/cluster/version', 'CLUSTER_WRITE'],
  ['POST', 'rest/license', 'CLUSTER_WRITE'],
  ['POST', 'rest/log-level', 'CLUSTER_WRITE'],
  ['POST', 'rest/log-level/reset', 'CLUSTER_WRITE'],
  ['POST', 'rest/tls/reload', 'CLUSTER_WRITE'],
  ['POST', 'rest/config/tcp-ip/member-list', 'CLUSTER_WRITE'],
  // CP
  ['GET', 'rest/cp-subsystem', 'CP'],
  ['GET', 'rest/cp-subsystem/groups', 'CP'],
  ['GET', 'rest/cp-subsystem/members', 'CP'],
  ['POST', 'rest/cp-subsystem/reset', 'CP'],
  ['POST', 'rest/cp-subsystem/members/local', 'CP'],
];

describe('resolveRoute: groups', () => {
  it.each(CASES)('%s %s -> %s', (method, rest, expected) => {
    expect(group(method, rest)).toBe(expected);
  });

  it('covers every endpoint group', () => {
    expect(new Set(CASES.map((c) => c[2]))).toEqual(new Set(['DATA', 'HEALTH_CHECK', 'WAN', 'PERSISTENCE', 'CLUSTER_READ', 'CLUSTER_WRITE', 'CP']));
  });
});

describe('resolveRoute: which routes read a body', () => {
  it.each([
    ['POST', 'rest/maps/m/k', true],
    ['GET', 'rest/maps/m/k', false],
    ['DELETE', 'rest/maps/m/k', false],
    ['DELETE', 'rest/maps/m', false],
    ['POST', 'rest/queues/q', true],
    ['POST', 'rest/queues/q/value', false], // the value is in the path
    ['DELETE', 'rest/queues/q/5', false],
    ['GET', 'rest/queues/q/size', false],
    ['GET', 'health', false],
    ['GET', 'rest/cluster', false],
    ['GET', 'rest/log-level', false],
    ['POST', 'rest/log-level', true],
    ['POST', 'rest/log-level/reset', true],
    ['POST', 'rest/tls/reload', true],
    ['POST', 'rest/license', true],
    ['POST', 'rest/management/cluster/state', true],
    ['POST', 'rest/management/cluster/forceStart', true],
    ['GET', 'rest/management/cluster/version', false],
    ['POST', 'rest/wan/sync/map', true],
    ['GET', 'rest/wan/sync/progress/u', false],
    ['POST', 'rest/cp-subsystem/reset', true],
    ['GET', 'rest/cp-subsystem/groups', false],
  ] as const)('%s %s reads body: %s', (method, rest, reads) => {
    expect(resolveRoute(method, rest).readsBody).toBe(reads);
  });
});

describe('resolveRoute: unknown paths and methods', () => {
  it.each([
    ['GET', ''],
    ['GET', 'rest'],
    ['GET', 'rest/'],
    ['GET', 'rest/maps'],
    ['GET', 'rest/queues'],
    ['GET', 'nope'],
    ['GET', 'healthz'],
    ['GET', 'health/nope'],
    ['POST', 'health'],
    ['DELETE', 'health/ready'],
    ['POST', 'rest/cluster'],
    ['DELETE', 'rest/instance'],
    ['POST', 'rest/instance'],
    ['DELETE', 'rest/log-level'],
    ['GET', 'rest/log-level/reset'],
    ['DELETE', 'rest/license'],
    ['DELETE', 'rest/config/tcp-ip/member-list'],
    ['GET', 'rest/config/tcp-ip'],
    ['GET', 'rest/management/cluster'],
    ['GET', 'rest/management/cluster/'],
    ['GET', 'rest/management/cluster/state'],
    ['GET', 'rest/management/cluster/nodes'],
    ['GET', 'rest/management/cluster/clusterShutdown'],
    ['DELETE', 'rest/management/cluster/version'],
    ['POST', 'rest/management/cluster/nope'],
    ['GET', 'rest/management/cluster/forceStart'],
    ['POST', 'rest/wan'],
    ['POST', 'rest/wan/'],
    ['POST', 'rest/wan/nope'],
    ['GET', 'rest/wan/clearWanQueues'],
    ['DELETE', 'rest/wan/sync/map'],
    ['GET', 'rest/wan/sync/progress'],
    ['GET', 'rest/wan/sync/progress/'],
    ['POST', 'rest/wan/sync/progress/u'],
    ['GET', 'rest/wan/sync/progress/a/b'],
    ['GET', 'rest/wan/consistencyCheck'],
    ['GET', 'rest/wan/consistencyCheck/'],
    ['GET', 'rest/wan/consistencyCheck/map'],
    ['POST', 'rest/wan/consistencyCheck/u'],
    ['DELETE', 'rest/wan'],
    ['GET', 'rest/cp-subsystemx'],
    ['HEAD', 'rest/queues/q/5'],
    ['GET', 'REST/CLUSTER'],
    ['GET', 'rest/clust%65r'],
  ] as const)('%s %s -> UNKNOWN_ENDPOINT', (method, rest) => {
    // As under /hazelcast/ (Grid's own rest/maps and rest/queues lists exist under /grid/ only).
    expectGridError(() => resolveRoute(method, rest, scopeOf(rest, false)), 'UNKNOWN_ENDPOINT', /^no endpoint /);
  });

  it('names method and path in the message', () => {
    expectGridError(() => resolveRoute('POST', 'rest/nope'), 'UNKNOWN_ENDPOINT', 'no endpoint POST /rest/nope');
    expectGridError(() => resolveRoute('DELETE', 'rest/management/cluster/version'), 'UNKNOWN_ENDPOINT', 'no endpoint DELETE /rest/management/cluster/version');
  });

  it.each([
    ['GET', 'rest/maps/', /missing map name/],
    ['GET', 'rest/maps//k', /missing map name/],
    ['GET', 'rest/maps/m/', /missing key/],
    ['DELETE', 'rest/maps/m/', /missing key/],
    ['POST', 'rest/maps/m/', /missing key/],
    ['GET', 'rest/maps/m%ZZ/k', /malformed percent-escape in map name/],
    ['GET', 'rest/maps/m/k%E0%A4', /malformed percent-escape in key/],
    ['POST', 'rest/queues/', /missing queue name/],
    ['DELETE', 'rest/queues/q', /missing poll timeout/],
    ['GET', 'rest/queues/q', /missing poll timeout/],
    ['GET', 'rest/queues/q/', /missing poll timeout/],
    ['DELETE', 'rest/queues/q/-1', /poll timeout/],
    ['DELETE', 'rest/queues/q/abc', /poll timeout/],
    ['GET', 'rest/queues/q/1.5', /poll timeout/],
    ['DELETE', 'rest/queues/q/size', /poll timeout/],
    ['DELETE', 'rest/queues/q//', /poll timeout/],
    ['POST', 'rest/queues/q/%ZZ', /malformed percent-escape in queue value/],
    ['GET', 'rest/wan/sync/progress/%ZZ', /malformed percent-escape in uuid/],
    ['GET', 'rest/wan/consistencyCheck/%ZZ', /malformed percent-escape in uuid/],
  ] as const)('%s %s -> BAD_REQUEST', (method, rest, message) => {
    expectGridError(() => resolveRoute(method, rest, scopeOf(rest, false)), 'BAD_REQUEST', message);
  });
});

describe('GET rest/maps/<map> (Grid\'s listing under /grid/, Hazelcast\'s 400 under /hazelcast/)', () => {
  const noDeps = undefined as unknown as RestDeps;
  const request = (method: Method, url: string): Request => ({ method, req: { url, headers: {} }, res: undefined, body: Buffer.alloc(0) }) as unknown as Request;

  it.each(['GET', 'HEAD'] as const)('%s /hazelcast/rest/maps/m is the contract\'s missing key', async (method) => {
    const route = resolveRoute(method, 'rest/maps/m', scopeOf('rest/maps/m', false));
    expect(route.group).toBe('DATA');
    await expect(Promise.resolve().then(() => route.run(request(method, '/hazelcast/rest/maps/m?keys'), noDeps))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: `missing key: ${method} needs /rest/maps/<map>/<key>` });
  });

  it('GET /grid/rest/maps/m without keys or entries is a missing key that names the listing', async () => {
    const route = resolveRoute('GET', 'rest/maps/m');
    await expect(Promise.resolve().then(() => route.run(request('GET', '/grid/rest/maps/m'), noDeps))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /missing key: .*\?keys or \?entries/ });
  });

  it('rest/maps and rest/queues are lists (CLUSTER_READ) under /grid/ only', () => {
    expect(resolveRoute('GET', 'rest/maps').group).toBe('CLUSTER_READ');
    expect(resolveRoute('GET', 'rest/queues/').group).toBe('CLUSTER_READ');
    expect(scopeOf('rest/maps', false)).toBeUndefined();
    expect(scopeOf('rest/maps/', false)?.scope.prefix).toBe('rest/maps/');
  });
});

describe('resolveRoute: handlers that need nothing from the member', () => {
  // These handlers fail before touching request or dependencies.
  const none = undefined as unknown as Request;
  const noDeps = undefined as unknown as RestDeps;

  it('GET license is a 400 (Grid needs no license)', () => {
    expectGridError(() => resolveRoute('GET', 'rest/license').run(none, noDeps), 'BAD_REQUEST', /license/);
  });

  it('CP endpoints say CP is not enabled (management and data, known and unknown paths)', () => {
    const cpOff = { cp: { enabled: false } } as unknown as RestDeps;
    for (const [method, path] of [
      ['GET', 'rest/cp-subsystem/groups'],
      ['GET', 'rest/cp-subsystem/members/local'],
      ['GET', 'rest/cp-subsystem/nothing/here'],
      ['GET', 'rest/cp/atomiclongs/a'],
      ['GET', 'rest/cp'],
    ] as const) {
      expectGridError(() => resolveRoute(method, path).run(none, cpOff), 'NOT_ENABLED', 'CP subsystem is not enabled');
    }
  });
});
