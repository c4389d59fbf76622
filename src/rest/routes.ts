// Which endpoint a request is for: its group, what body it reads, and its handler. Resolving
// is pure path work; an unknown path or method is a 400 (the contract's "syntax not known").

import type { RestRequest, RestResponse } from './exchange.js';
import type { MemoryStatus } from '../core/memory-guard.js';
import type { StoredValue } from '../map/record-store.js';
import type { EndpointGroupName } from '../config/types.js';
import { GridError, describeError } from '../core/errors.js';
import { parseMemberEntry } from '../config/index.js';
import { andThen, andThenWith, type MaybePromise } from '../core/maybe-promise.js';
import { parseLogLevel } from '../core/logger.js';
import { SETTABLE_CLUSTER_STATES, type ClusterState } from '../cluster/types.js';
import { parseBasicAuth } from '../security/credentials.js';
import type { WanFacade } from '../wan/wan-facade.js';
import type { PersistenceHealth, RestDeps } from './context.js';
import { decodeSegment, headerSafe, parseMapPath, parseParams, parseQueuePath, parseTimeoutSeconds } from './paths.js';
import { prefersPlainText, rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText, sendValue } from './respond.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'DELETE';

export interface Request {
  readonly req: RestRequest;
  readonly res: RestResponse;
  readonly method: Method;
  /** The request body; empty when the route reads none. */
  readonly body: Buffer;
}

export interface Route {
  readonly group: EndpointGroupName;
  /** Whether the handler needs the body (it is read, within limits, before `run`). */
  readonly readsBody: boolean;
  run(r: Request, deps: RestDeps): MaybePromise<void>;
}

const unknown = (method: string, path: string): GridError =>
  new GridError('UNKNOWN_ENDPOINT', `no endpoint ${method} /${path}`);

/**
 * The endpoint group a path belongs to, from its first segments alone: used so that a
 * malformed path inside a disabled group is refused for the group (403), not parsed (400).
 */
export function groupOfPath(rest: string): EndpointGroupName | undefined {
  if (rest.startsWith('rest/maps/') || rest.startsWith('rest/queues/')) return 'DATA';
  if (rest === 'health' || rest.startsWith('health/')) return 'HEALTH_CHECK';
  // `rest/wan/` alone is GET rest/wan (CLUSTER_READ) with a trailing slash.
  if (rest.startsWith('rest/wan/') && rest.length > 9) return 'WAN';
  if (rest === 'rest/cp-subsystem' || rest.startsWith('rest/cp-subsystem/')) return 'CP';
  if (rest === 'rest/cp' || rest.startsWith('rest/cp/')) return 'CP';
  return undefined;
}

/** `rest` is the encoded path after the prefix, without query string. */
export function resolveRoute(method: Method, rest: string): Route {
  if (rest.startsWith('rest/maps/')) return mapRoute(method, rest.slice(10));
  if (rest.startsWith('rest/queues/')) return queueRoute(method, rest.slice(12));
  const path = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === 'health' || path.startsWith('health/')) return healthRoute(method, path);
  if (path.startsWith('rest/management/cluster/')) return managementRoute(method, path.slice(24));
  if (path === 'rest/cp-subsystem' || path.startsWith('rest/cp-subsystem/')) return cpRoute(method, path.slice(17));
  if (path === 'rest/cp' || path.startsWith('rest/cp/')) return cpUnknownWhenOff(method, () => cpDataRoute(method, path.slice(7)));
  if (path.startsWith('rest/wan/')) return wanRoute(method, path.slice(9));
  switch (path) {
    case 'rest/cluster':
      return onlyGet(method, path, 'CLUSTER_READ', clusterInfo);
    case 'rest/partitions':
      return onlyGet(method, path, 'CLUSTER_READ', partitionsInfo);
    case 'rest/wan':
      // Grid's own: the WAN publishers of this member (a read of member state, not a WAN operation).
      return onlyGet(method, path, 'CLUSTER_READ', (r, d) => sendJson(r.res, { publishers: d.wan.status() }));
    case 'rest/instance':
      return onlyGet(method, path, 'CLUSTER_READ', (r, d) => sendJson(r.res, { name: d.instanceName }));
    case 'metrics':
      // Prometheus text format; also served as bare /metrics (paths.ts). No rest/ segment, like health.
      return onlyGet(method, path, 'CLUSTER_READ', metrics);
    case 'rest/log-level':
      if (isGet(method)) return { group: 'CLUSTER_READ', readsBody: false, run: getLogLevel };
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 3, setLogLevel);
      break;
    case 'rest/log-level/reset':
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 2, 2, resetLogLevel);
      break;
    case 'rest/tls/reload':
      // Grid's own: what SIGHUP does, from anywhere (certificate rotation; docs/security.md).
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 2, 2, reloadTls);
      break;
    case 'rest/license':
      if (isGet(method)) {
        return {
          group: 'CLUSTER_READ',
          readsBody: false,
          run: () => {
            throw new GridError('BAD_REQUEST', 'GET license is not supported: Grid needs no license');
          },
        };
      }
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 2, (r) => sendJson(r.res, { status: 'success' }));
      break;
    case 'rest/config/tcp-ip/member-list':
      if (isGet(method)) {
        return {
          group: 'CLUSTER_READ',
          readsBody: false,
          run: (r, d) => sendJson(r.res, { status: 'success', 'member-list': d.cluster.tcpIpMemberList() }),
        };
      }
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 3, setTcpIpMembers);
      break;
  }
  throw unknown(method, rest);
}

const isGet = (m: Method): boolean => m === 'GET' || m === 'HEAD';

function onlyGet(method: Method, path: string, group: EndpointGroupName, run: Route['run']): Route {
  if (!isGet(method)) throw unknown(method, path);
  return { group, readsBody: false, run };
}

// ---------------------------------------------------------------- maps

function mapRoute(method: Method, rest: string): Route {
  const { mapName, key } = parseMapPath(rest);
  if (key === undefined) {
    if (method !== 'DELETE') throw new GridError('BAD_REQUEST', `missing key: ${method} needs /rest/maps/<map>/<key>`);
    return {
      group: 'DATA',
      readsBody: false,
      run: (r, d) => d.maps.clear(mapName).then(() => sendEmpty(r.res, 200)),
    };
  }
  return new MapKeyRoute(method, mapName, key);
}

/** GET/HEAD, POST and DELETE of one map key: one object per request, no closures on the way. */
class MapKeyRoute implements Route {
  readonly group = 'DATA';
  readonly readsBody: boolean;

  constructor(
    private readonly method: Method,
    private readonly mapName: string,
    private readonly key: string,
  ) {
    this.readsBody = method === 'POST';
  }

  run(r: Request, d: RestDeps): MaybePromise<void> {
    switch (this.method) {
      case 'GET':
      case 'HEAD':
        return andThenWith(d.maps.get(this.mapName, this.key), r.res, answerFound);
      case 'POST':
        return answerDone(r.res, d.maps.put(this.mapName, this.key, r.body.toString('latin1'), rawHeader(r.req, 'content-type')));
      case 'DELETE':
        return answerDone(r.res, d.maps.remove(this.mapName, this.key));
    }
  }
}

/** A stored value, or 204 when there is none. */
function answerFound(res: RestResponse, v: StoredValue | undefined): void {
  if (v === undefined) sendEmpty(res, 204);
  else sendValue(res, v);
}

/** An empty 200 once `work` is done. */
function answerDone(res: RestResponse, work: MaybePromise<unknown>): MaybePromise<void> {
  return andThenWith(work, res, send200);
}

function send200(res: RestResponse): void {
  sendEmpty(res, 200);
}

// ---------------------------------------------------------------- queues

function queueRoute(method: Method, rest: string): Route {
  const { queueName, rawArg } = parseQueuePath(rest);
  if (method === 'POST') {
    if (rawArg === undefined) {
      return {
        group: 'DATA',
        readsBody: true,
        run: (r, d) => offer(r, d, queueName, r.body.toString('latin1'), rawHeader(r.req, 'content-type')),
      };
    }
    // Compatibility form: the decoded path value is the item, as text/plain.
    const value = Buffer.from(decodeSegment(rawArg, 'queue value'), 'utf8').toString('latin1');
    return { group: 'DATA', readsBody: false, run: (r, d) => offer(r, d, queueName, value, 'text/plain') };
  }
  if (rawArg === undefined) {
    throw new GridError('BAD_REQUEST', `missing poll timeout: ${method} needs /rest/queues/<queue>/<seconds>`);
  }
  if (isGet(method) && rawArg === 'size') {
    return {
      group: 'DATA',
      readsBody: false,
      run: (r, d) => andThen(d.queues.size(queueName), (n) => sendText(r.res, String(n))),
    };
  }
  if (isGet(method) && rawArg === 'stats') {
    return { group: 'DATA', readsBody: false, run: (r, d) => andThen(d.queues.stats(queueName), (st) => sendJson(r.res, st)) };
  }
  if (method === 'HEAD') throw unknown(method, `rest/queues/${rest}`);
  const timeoutSeconds = parseTimeoutSeconds(rawArg);
  return {
    group: 'DATA',
    readsBody: false,
    run: (r, d) => poll(r, d, queueName, timeoutSeconds),
  };
}

function offer(r: Request, d: RestDeps, queueName: string, value: string, contentType: string | undefined): MaybePromise<void> {
  return andThen(d.queues.offer(queueName, { value, contentType }), (accepted) => {
    if (!accepted) throw new GridError('QUEUE_FULL', `queue "${queueName}" is full (max-size ${d.queues.maxSizeOf(queueName)})`);
    sendEmpty(r.res, 200);
  });
}

function poll(r: Request, d: RestDeps, queueName: string, timeoutSeconds: number): MaybePromise<void> {
  const { req, res } = r;
  const socket = req.socket;
  const item = d.queues.poll(queueName, timeoutSeconds * 1000, {
    alive: () => !socket.destroyed && socket.writable && !res.writableEnded && !res.destroyed,
    onGone: (fn) => {
      res.once('close', () => {
        if (!res.writableFinished) fn();
      });
    },
    // The item stays reserved at the owner until the answer was handed to the kernel; a
    // response closed before that (client gone) returns it to the queue. node also emits
    // 'finish' for a response whose socket was destroyed mid-write (a client that stopped
    // reading and then went): by then the socket is destroyed, so that counts as not written.
    onAnswered: (fn) => {
      if (res.writableFinished) return fn(!socket.destroyed);
      if (res.destroyed) return fn(false);
      let told = false;
      const tell = (written: boolean): void => {
        if (told) return;
        told = true;
        fn(written);
      };
      res.once('finish', () => tell(!socket.destroyed));
      res.once('close', () => tell(false));
    },
  });
  return andThen(item, (it) => {
    if (res.destroyed || res.writableEnded) return;
    if (it === undefined) sendEmpty(res, 204);
    else sendValue(res, it);
  });
}

// ---------------------------------------------------------------- cluster information

function clusterInfo(r: Request, d: RestDeps): void {
  const local = d.cluster.localMember();
  const conns = d.connections();
  sendJson(r.res, {
    members: d.cluster.members().map((m) => ({
      address: m.address,
      liteMember: m.liteMember,
      localMember: m.uuid === local.uuid,
      uuid: m.uuid,
      memberVersion: m.version,
    })),
    connectionCount: conns.client,
    allConnectionCount: conns.client + conns.member,
  });
}

/** Grid's own endpoint: the partition table as this member knows it. */
function partitionsInfo(r: Request, d: RestDeps): void {
  const p = d.partitions;
  const counts = new Map<string, { owned: number; backups: number }>();
  for (const m of d.cluster.members()) counts.set(m.uuid, { owned: 0, backups: 0 });
  const partitions: (readonly string[])[] = [];
  for (let pid = 0; pid < p.partitionCount; pid++) {
    const row = p.replicas(pid);
    partitions.push(row);
    row.forEach((uuid, i) => {
      let c = counts.get(uuid);
      if (c === undefined) counts.set(uuid, (c = { owned: 0, backups: 0 }));
      if (i === 0) c.owned++;
      else c.backups++;
    });
  }
  const addressOf = new Map(d.cluster.members().map((m) => [m.uuid, m.address]));
  sendJson(r.res, {
    version: p.version(),
    partitionCount: p.partitionCount,
    replicaCount: p.replicaCount,
    migrationQueueSize: d.health.migrationQueueSize(),
    clusterSafe: d.health.clusterSafe(),
    members: [...counts].map(([uuid, c]) => ({ uuid, address: addressOf.get(uuid) ?? null, owned: c.owned, backups: c.backups })),
    partitions,
    ...(p.replicaSync === undefined ? {} : { replicaSync: p.replicaSync() }),
  });
}

// ---------------------------------------------------------------- metrics

function metrics(r: Request, d: RestDeps): Promise<void> {
  if (d.metrics === undefined) throw new GridError('NOT_ENABLED', 'metrics are disabled on this member (metrics enabled="false")');
  return d.metrics.scrape().then((m) => sendText(r.res, m.body, m.contentType));
}

// ---------------------------------------------------------------- health

function healthRoute(method: Method, path: string): Route {
  if (!isGet(method)) throw unknown(method, path);
  const sub = path === 'health' ? '' : path.slice(7);
  const route = (run: Route['run']): Route => ({ group: 'HEALTH_CHECK', readsBody: false, run });
  switch (sub) {
    case '':
      return route((r, d) => {
        const h = healthOf(d);
        if (r.method === 'HEAD') {
          sendEmpty(r.res, 200, undefined, [
            'Hazelcast-NodeState', h.nodeState,
            'Hazelcast-ClusterState', h.clusterState,
            'Hazelcast-ClusterSafe', String(h.clusterSafe),
            'Hazelcast-MigrationQueueSize', String(h.migrationQueueSize),
            'Hazelcast-ClusterSize', String(h.clusterSize),
          ]);
        } else if (prefersPlainText(rawHeader(r.req, 'accept'))) {
          // Hazelcast 3.x's text, which its healthcheck scripts grep (docs/rest-api.md).
          sendText(r.res, healthText(h));
        } else {
          sendJson(r.res, h);
        }
      });
    case 'node-state':
      return route((r, d) => sendJson(r.res, nodeStateOf(d)));
    case 'cluster-state':
      return route((r, d) => {
        requireBasicWhenSecured(r, d);
        sendJson(r.res, d.cluster.state());
      });
    case 'cluster-safe':
      return route((r, d) => {
        const safe = d.health.clusterSafe();
        sendEmpty(r.res, safe ? 200 : 503, safe ? undefined : 'cluster is not safe');
      });
    case 'migration-queue-size':
      return route((r, d) => sendJson(r.res, d.health.migrationQueueSize()));
    case 'cluster-size':
      return route((r, d) => sendJson(r.res, d.cluster.members().length));
    case 'memory':
      // Grid's: the memory guard (limit, resident set, V8 heap, whether writes are refused). /health itself keeps Hazelcast's shape.
      return route((r, d) => {
        const m: MemoryStatus | undefined = d.health.memory?.();
        if (m === undefined) throw new GridError('NOT_ENABLED', 'this member has no memory guard');
        sendJson(r.res, m);
      });
    case 'ready':
      return route((r, d) => {
        const recovering = d.health.recovering?.() === true;
        const ready = !recovering && d.cluster.nodeState() === 'ACTIVE' && d.cluster.joined();
        sendEmpty(r.res, ready ? 200 : 503, ready ? undefined : recovering ? 'member is restarting from persisted data' : `member is ${d.cluster.nodeState()}`);
      });
  }
  throw unknown(method, path);
}

/** STARTING while the member restarts from persisted data (its data is not served yet). */
function nodeStateOf(d: RestDeps): string {
  return d.health.recovering?.() === true ? 'STARTING' : d.cluster.nodeState();
}

function healthOf(d: RestDeps): {
  nodeState: string;
  clusterState: string;
  clusterSafe: boolean;
  migrationQueueSize: number;
  clusterSize: number;
  persistence?: PersistenceHealth;
} {
  // Grid's addition, only on members with persistence: whether the member log takes writes.
  const persistence = d.health.persistence?.();
  return {
    nodeState: nodeStateOf(d),
    clusterState: d.cluster.state(),
    clusterSafe: d.health.clusterSafe(),
    migrationQueueSize: d.health.migrationQueueSize(),
    clusterSize: d.cluster.members().length,
    ...(persistence === undefined ? {} : { persistence }),
  };
}

/** `/health` as Hazelcast 3.x wrote it: `Hazelcast::<Name>=<VALUE>` lines, booleans upper-case. */
function healthText(h: ReturnType<typeof healthOf>): string {
  return (
    `Hazelcast::NodeState=${h.nodeState}\n` +
    `Hazelcast::ClusterState=${h.clusterState}\n` +
    `Hazelcast::ClusterSafe=${h.clusterSafe ? 'TRUE' : 'FALSE'}\n` +
    `Hazelcast::MigrationQueueSize=${h.migrationQueueSize}\n` +
    `Hazelcast::ClusterSize=${h.clusterSize}\n`
  );
}

// ---------------------------------------------------------------- credentials

/**
 * Body parameters of an endpoint that takes credentials, after checking them. The first two
 * positions are `<name>&<password>`. With an `Authorization: Basic` header the credentials
 * come from the header, and the body may hold either the full positional form (its first two
 * positions are then ignored) or only the parameters after the credentials.
 * Returns the parameters after the credentials.
 */
export function authenticatedParams(r: Request, d: RestDeps, expected: number, min: number): string[] {
  const body = r.body.toString('utf8');
  const basic = parseBasicAuth(rawHeader(r.req, 'authorization'));
  let params: string[];
  let username: string;
  let password: string;
  if (basic !== undefined) {
    if (expected <= 2) params = [];
    else if (countPositions(body, expected) >= min) params = parseParams(body, expected, min).slice(2);
    else params = parseParams(body, expected - 2, Math.max(0, min - 2));
    ({ username, password } = basic);
  } else {
    const all = parseParams(body, expected, min);
    username = all[0]!;
    password = all[1]!;
    params = all.slice(2);
  }
  if (!d.credentials.check(username, password)) {
    throw new GridError('FORBIDDEN', d.credentials.securityEnabled ? 'wrong or missing credentials' : 'first parameter must be the cluster name');
  }
  return params;
}

function countPositions(body: string, cap: number): number {
  let n = 1;
  for (let i = body.indexOf('&'); i !== -1 && n < cap; i = body.indexOf('&', i + 1)) n++;
  return n;
}

/** GET endpoints that the contract protects: Basic credentials when security is enabled. */
function requireBasicWhenSecured(r: Request, d: RestDeps): void {
  if (!d.credentials.securityEnabled) return;
  const basic = parseBasicAuth(rawHeader(r.req, 'authorization'));
  if (basic === undefined || !d.credentials.check(basic.username, basic.password)) {
    throw new GridError('FORBIDDEN', 'wrong or missing credentials (Authorization: Basic)');
  }
}

function paramRoute(
  group: EndpointGroupName,
  expected: number,
  min: number,
  handler: (r: Request, d: RestDeps, params: string[]) => Promise<void> | void,
): Route {
  return {
    group,
    readsBody: true,
    run: (r, d) => handler(r, d, authenticatedParams(r, d, expected, min)),
  };
}

// ---------------------------------------------------------------- management

function managementRoute(method: Method, op: string): Route {
  const notPersistent = (r: Request): void =>
    sendJson(r.res, { status: 'fail', message: 'persistence is not enabled on this member' });
  if (op === 'version' && isGet(method)) {
    return { group: 'CLUSTER_READ', readsBody: false, run: (r, d) => sendJson(r.res, { status: 'success', version: d.cluster.version() }) };
  }
  if (method !== 'POST') throw unknown(method, `rest/management/cluster/${op}`);
  switch (op) {
    case 'state':
      return paramRoute('CLUSTER_READ', 2, 2, (r, d) => sendJson(r.res, { status: 'success', state: d.cluster.state().toLowerCase() }));
    case 'nodes':
      return paramRoute('CLUSTER_READ', 2, 2, (r, d) => {
        // Hazelcast's answer: its member collection's toString() (`[Member [host]:port - uuid
        // this lite, …]`, join order), the member version, the runtime version.
        const local = d.cluster.localMember().uuid;
        const list = d.cluster
          .members()
          .map((m) => `Member [${m.host}]:${m.port} - ${m.uuid}${m.uuid === local ? ' this' : ''}${m.liteMember ? ' lite' : ''}`)
          .join(', ');
        const response = `[${list}]\n${d.cluster.localMember().version}\nNode.js ${process.version}`;
        sendJson(r.res, { status: 'success', response });
      });
    case 'changeState':
      return paramRoute('CLUSTER_WRITE', 3, 3, async (r, d, [stateName]) => {
        const to = (stateName ?? '').trim().toUpperCase() as ClusterState;
        if (!SETTABLE_CLUSTER_STATES.includes(to)) {
          throw new GridError('BAD_REQUEST', `unknown cluster state "${stateName ?? ''}" (one of ${SETTABLE_CLUSTER_STATES.join(', ')})`);
        }
        const changed = await d.cluster.changeState(to);
        sendJson(r.res, { status: changed ? 'success' : 'fail', state: to.toLowerCase() });
      });
    case 'version':
      return paramRoute('CLUSTER_WRITE', 3, 3, (r, d, [wanted]) => {
        const v = (wanted ?? '').trim();
        if (!/^\d+\.\d+(\.\d+)?$/.test(v)) throw new GridError('BAD_REQUEST', `not a version: "${v}" (expected major.minor)`);
        const majorMinor = v.split('.').slice(0, 2).join('.');
        if (majorMinor === d.cluster.version()) {
          sendJson(r.res, { status: 'success', version: d.cluster.version() });
        } else {
          sendJson(r.res, {
            status: 'fail',
            message: `cluster version cannot change to ${majorMinor}: every member runs ${d.cluster.version()}`,
            version: d.cluster.version(),
          });
        }
      });
    case 'clusterShutdown':
    case 'memberShutdown':
      return paramRoute('CLUSTER_WRITE', 2, 2, (r, d) => {
        const scope = op === 'clusterShutdown' ? 'cluster' : 'member';
        if (scope === 'cluster' && !d.cluster.joined()) {
          throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
        }
        // Answer first, then shut down once the answer is on its way (or the client has gone).
        let requested = false;
        const shutdown = (): void => {
          if (requested) return;
          requested = true;
          d.cluster.requestShutdown(scope);
        };
        r.res.once('finish', shutdown);
        r.res.once('close', shutdown);
        sendJson(r.res, { status: 'success' });
      });
    case 'forceStart':
    case 'partialStart':
    case 'backup':
    case 'backupInterrupt':
    case 'hotBackup':
    case 'hotBackupInterrupt':
      return paramRoute('PERSISTENCE', 2, 2, async (r, d) => {
        if (!d.persistence.enabled) {
          notPersistent(r);
          return;
        }
        const deprecated = op === 'hotBackup' || op === 'hotBackupInterrupt';
        const name = op === 'hotBackup' ? 'backup' : op === 'hotBackupInterrupt' ? 'backupInterrupt' : op;
        const out = await d.persistence.command(name);
        if (deprecated) {
          // As Hazelcast answers its deprecated hot-backup paths.
          r.res.setHeader('Deprecation', 'true');
          r.res.setHeader('Warning', `299 - "Deprecated API: use /hazelcast/rest/management/cluster/${name} instead"`);
        }
        sendJson(r.res, out.accepted ? { status: 'success' } : { status: 'fail', message: out.message });
      });
  }
  throw unknown(method, `rest/management/cluster/${op}`);
}

// ---------------------------------------------------------------- log level, member list

function getLogLevel(r: Request, d: RestDeps): void {
  requireBasicWhenSecured(r, d);
  sendJson(r.res, { logLevel: d.logControl.override() });
}

function setLogLevel(r: Request, d: RestDeps, [name]: string[]): void {
  const level = parseLogLevel(name ?? '');
  if (level === undefined) {
    throw new GridError('BAD_REQUEST', `unknown log level "${name ?? ''}" (one of OFF, SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST, ALL)`);
  }
  d.logControl.set(level);
  d.logger.info({ newLevel: level }, 'log level changed through REST');
  sendJson(r.res, { status: 'success', message: 'log level is changed' });
}

function reloadTls(r: Request, d: RestDeps): void {
  const endpoints = d.reloadTls?.() ?? {};
  if (Object.keys(endpoints).length === 0) throw new GridError('NOT_ENABLED', 'TLS is not enabled on this member');
  const failed = Object.values(endpoints).some((e) => 'error' in e);
  sendJson(r.res, { status: failed ? 'fail' : 'success', endpoints });
}

function resetLogLevel(r: Request, d: RestDeps): void {
  d.logControl.reset();
  d.logger.info('log level reset through REST');
  sendJson(r.res, { status: 'success', message: 'log level is reset' });
}

function setTcpIpMembers(r: Request, d: RestDeps, [list]: string[]): void {
  const members = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  // The same parser as the configuration's member-list, so both accept the same entries.
  for (const m of members) {
    try {
      parseMemberEntry(m);
    } catch (e) {
      throw new GridError('BAD_REQUEST', `not a member address: ${describeError(e)}`);
    }
  }
  d.cluster.setTcpIpMemberList(members);
  sendJson(r.res, { status: 'success', 'member-list': members });
}

// ---------------------------------------------------------------- CP and WAN

function cpDisabled(): never {
  throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
}

/** An unknown CP path: 500 "not enabled" while CP is off (as every CP path), else the 400. */
function cpUnknownPath(d: RestDeps, method: Method, path: string): never {
  if (!d.cp.enabled) cpDisabled();
  throw unknown(method, path);
}

/** A CP route: while CP is off every CP endpoint answers as the contract says (after the credential check of a POST). */
function cpOnly(route: Route): Route {
  return { ...route, run: (r, d) => (d.cp.enabled ? route.run(r, d) : cpDisabled()) };
}

/** `op` is the encoded path after `rest/cp-subsystem` (`''` or `/...`), trailing `/` removed. Hazelcast's management endpoints. */
function cpRoute(method: Method, op: string): Route {
  const parts = op.split('/').slice(1);
  const path = `rest/cp-subsystem${op}`;
  const seg = (i: number, what: string): string => decodeSegment(parts[i] ?? '', what);
  if (isGet(method)) {
    if (parts[0] === 'groups' && parts.length === 1) {
      return cpOnly({ group: 'CP', readsBody: false, run: async (r, d) => sendJson(r.res, await d.cp.groups()) });
    }
    if (parts[0] === 'groups' && parts.length === 2) {
      const name = seg(1, 'CP group name');
      return cpOnly({
        group: 'CP',
        readsBody: false,
        run: async (r, d) => {
          const g = await d.cp.group(name);
          if (g === undefined) throw new GridError('NOT_FOUND', `no CP group ${name}`);
          sendJson(r.res, g);
        },
      });
    }
    if (parts[0] === 'groups' && parts.length === 3 && parts[2] === 'sessions') {
      const name = seg(1, 'CP group name');
      return cpOnly({
        group: 'CP',
        readsBody: false,
        run: async (r, d) => {
          const sessions = await d.cp.sessions(name);
          if (sessions === undefined) throw new GridError('NOT_FOUND', `no CP group ${name}`);
          sendJson(
            r.res,
            sessions.map((s) => ({ id: s.id, creationTime: s.creationTime, expirationTime: s.expirationTime, version: s.version, endpoint: s.endpoint, endpointType: s.endpointType, endpointName: s.endpointName })),
          );
        },
      });
    }
    if (parts[0] === 'members' && parts.length === 1) {
      return cpOnly({ group: 'CP', readsBody: false, run: async (r, d) => sendJson(r.res, await d.cp.members()) });
    }
    if (parts[0] === 'members' && parts.length === 2 && parts[1] === 'local') {
      return cpOnly({
        group: 'CP',
        readsBody: false,
        run: (r, d) => {
          const m = d.cp.localMember();
          if (m === undefined) throw new GridError('NOT_FOUND', 'this member is not a CP member');
          sendJson(r.res, m);
        },
      });
    }
    // While CP is off, any CP path answers "not enabled" (as before); with CP on, an unknown one is a 400.
    return { group: 'CP', readsBody: false, run: (_r, d) => cpUnknownPath(d, method, path) };
  }
  if (method !== 'POST') throw unknown(method, path);
  const post = (handler: (r: Request, d: RestDeps) => Promise<void>): Route => paramRoute('CP', 2, 2, (r, d) => (d.cp.enabled ? handler(r, d) : cpDisabled()));
  if (parts[0] === 'groups' && parts.length === 3 && parts[2] === 'remove') {
    const name = seg(1, 'CP group name');
    return post(async (r, d) => {
      try {
        await d.cp.destroyGroup(name);
      } catch (e) {
        // Hazelcast: an unknown group (IllegalArgumentException) is a 400.
        if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
        throw e;
      }
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'groups' && parts.length === 5 && parts[2] === 'sessions' && parts[4] === 'remove') {
    const name = seg(1, 'CP group name');
    const id = parseSessionId(seg(3, 'CP session id'));
    return post(async (r, d) => {
      let closed: boolean;
      try {
        closed = await d.cp.closeSession(name, id);
      } catch (e) {
        if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
        throw e;
      }
      if (!closed) throw new GridError('BAD_REQUEST', `no CP session ${id} in group ${name}`);
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'members' && parts.length === 1) {
    return post(async (r, d) => {
      await d.cp.promote();
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'members' && parts.length === 3 && parts[2] === 'remove') {
    const uuid = seg(1, 'CP member uuid');
    return post(async (r, d) => {
      await d.cp.removeMember(uuid);
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'reset' && parts.length === 1) {
    return post(async (r, d) => {
      await d.cp.reset();
      sendEmpty(r.res, 200);
    });
  }
  return paramRoute('CP', 2, 2, (_r, d) => cpUnknownPath(d, method, path));
}

function parseSessionId(raw: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw new GridError('BAD_REQUEST', `CP session id must be a positive integer, got "${headerSafe(raw, 40)}"`);
  return Number(raw);
}

/** Query parameters of the request (the CP data endpoints' options). */
function queryOf(r: Request): URLSearchParams {
  const url = r.req.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
}

function intParam(r: Request, name: string, min: number, fallback: number): number {
  const raw = queryOf(r).get(name);
  if (raw === null) return fallback;
  if (!/^-?[0-9]{1,15}$/.test(raw) || Number(raw) < min) throw new GridError('BAD_REQUEST', `query parameter ${name} must be an integer >= ${min}, got "${headerSafe(raw, 40)}"`);
  return Number(raw);
}

function bodyText(r: Request, what: string): string {
  const t = r.body.toString('utf8').trim();
  if (t.length === 0) throw new GridError('BAD_REQUEST', `the body must be ${what}`);
  return t;
}

/** An unknown CP path: 500 "not enabled" while CP is off (as the contract says of every CP path), else the 400. */
function cpUnknownWhenOff(method: Method, resolve: () => Route): Route {
  try {
    return resolve();
  } catch (e) {
    if (!(e instanceof GridError) || e.code !== 'UNKNOWN_ENDPOINT') throw e;
    return {
      group: 'CP',
      readsBody: false,
      run: (_r, d) => {
        if (!d.cp.enabled) cpDisabled();
        throw e;
      },
    };
  }
}

/** `op` is the encoded path after `rest/cp` (`''` or `/...`): Grid's own CP data endpoints. */
function cpDataRoute(method: Method, op: string): Route {
  const parts = op.split('/').slice(1);
  const path = `rest/cp${op}`;
  const seg = (i: number, what: string): string => {
    const v = decodeSegment(parts[i] ?? '', what);
    if (v.length === 0) throw new GridError('BAD_REQUEST', `missing ${what}`);
    return v;
  };
  const get = (run: Route['run']): Route => cpOnly({ group: 'CP', readsBody: false, run });
  const post = (run: Route['run']): Route => cpOnly({ group: 'CP', readsBody: true, run });
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
    if (isGet(method)) return get((r, d) => sendJson(r.res, d.cp.status()));
    throw unknown(method, path);
  }
  if (parts[0] === 'atomiclongs' && parts.length >= 2) {
    const name = seg(1, 'atomic long name');
    if (parts.length === 2 && isGet(method)) return get(async (r, d) => sendText(r.res, await d.cp.atomicLong(name)));
    if (parts.length === 3 && method === 'POST') {
      switch (parts[2]) {
        case 'set':
          return post(async (r, d) => sendText(r.res, await d.cp.setAtomicLong(name, bodyText(r, 'the new value'))));
        case 'addAndGet':
          return post(async (r, d) => sendText(r.res, await d.cp.addAndGet(name, bodyText(r, 'the delta'))));
        case 'compareAndSet':
          return post(async (r, d) => {
            const [expect, update, extra] = bodyText(r, '<expect>&<update>').split('&');
            if (expect === undefined || update === undefined || extra !== undefined || expect === '' || update === '') {
              throw new GridError('BAD_REQUEST', 'the body must be <expect>&<update>');
            }
            sendText(r.res, String(await d.cp.compareAndSet(name, expect.trim(), update.trim())));
          });
      }
    }
    throw unknown(method, path);
  }
  if (parts[0] === 'locks' && parts.length >= 2) {
    const name = seg(1, 'lock name');
    if (parts.length === 2 && isGet(method)) return get(async (r, d) => sendJson(r.res, await d.cp.lockInfo(name)));
    if (parts.length === 3 && method === 'POST' && parts[2] === 'lock') {
      return post(async (r, d) => {
        const sessionId = intParam(r, 'sessionId', 0, 0);
        const timeoutMs = intParam(r, 'timeoutMs', 0, -1);
        const socket = r.req.socket;
        const endpoint = `[${socket.remoteAddress ?? ''}]:${socket.remotePort ?? 0}`;
        const endpointName = queryOf(r).get('endpointName') ?? rawHeader(r.req, 'user-agent') ?? 'rest';
        const res = r.res;
        const result = await d.cp.lock(name, {
          sessionId,
          timeoutMs,
          endpoint,
          endpointName: endpointName.slice(0, 200),
          onGone: (fn) =>
            res.once('close', () => {
              if (!res.writableFinished) fn();
            }),
        });
        if (res.destroyed || res.writableEnded) return;
        sendJson(res, result);
      });
    }
    if (parts.length === 3 && method === 'POST' && parts[2] === 'unlock') {
      return post(async (r, d) => {
        const fromQuery = intParam(r, 'sessionId', 1, 0);
        const sessionId = fromQuery !== 0 ? fromQuery : parseSessionId(bodyText(r, 'the session id (or ?sessionId=)'));
        sendJson(r.res, { lockCount: await d.cp.unlock(name, sessionId) });
      });
    }
    throw unknown(method, path);
  }
  if (parts[0] === 'sessions' && parts.length === 4 && method === 'POST') {
    const group = seg(1, 'CP group name');
    const id = parseSessionId(seg(2, 'CP session id'));
    if (parts[3] === 'heartbeat') return post(async (r, d) => sendJson(r.res, await d.cp.heartbeat(group, id)));
    if (parts[3] === 'close') {
      return post(async (r, d) => {
        if (!(await d.cp.closeSession(group, id))) throw new GridError('NOT_FOUND', `no CP session ${id} in group ${group}`);
        sendJson(r.res, { closed: true });
      });
    }
  }
  throw unknown(method, path);
}

/** The WAN POSTs that act on one publisher of this member, with their answer's message. */
const WAN_PUBLISHER_OPS: Readonly<Record<string, { readonly message: string; readonly act: (w: WanFacade, rep: string, pub: string) => void }>> = {
  pausePublisher: { message: 'WAN publisher paused', act: (w, rep, pub) => w.pausePublisher(rep, pub) },
  resumePublisher: { message: 'WAN publisher resumed', act: (w, rep, pub) => w.resumePublisher(rep, pub) },
  stopPublisher: { message: 'WAN publisher stopped', act: (w, rep, pub) => w.stopPublisher(rep, pub) },
  clearWanQueues: { message: 'WAN replication queues are cleared.', act: (w, rep, pub) => w.clearQueues(rep, pub) },
};

/** `op` is the encoded path after `rest/wan/`, without a trailing `/`. */
function wanRoute(method: Method, op: string): Route {
  const path = `rest/wan/${op}`;
  if (isGet(method)) {
    // GETs take no credentials (grid-behavior.md §7 protects only health/cluster-state and log-level).
    const uuid = wanUuid(op, 'sync/progress/');
    if (uuid !== undefined) {
      return {
        group: 'WAN',
        readsBody: false,
        run: (r, d) => d.wan.syncProgress(uuid).then((result) => sendJson(r.res, { status: 'success', result })),
      };
    }
    const checkUuid = wanUuid(op, 'consistencyCheck/');
    if (checkUuid !== undefined && checkUuid !== 'map') {
      return {
        group: 'WAN',
        readsBody: false,
        run: (r, d) => d.wan.consistencyResult(checkUuid).then((result) => sendJson(r.res, { status: 'success', result })),
      };
    }
    throw unknown(method, path);
  }
  if (method !== 'POST') throw unknown(method, path);
  const publisherOp = Object.hasOwn(WAN_PUBLISHER_OPS, op) ? WAN_PUBLISHER_OPS[op] : undefined;
  if (publisherOp !== undefined) {
    return paramRoute('WAN', 4, 4, (r, d, [rep = '', pub = '']) => {
      publisherOp.act(d.wan, rep, pub);
      sendJson(r.res, { status: 'success', message: publisherOp.message });
    });
  }
  switch (op) {
    case 'sync/map':
      return paramRoute('WAN', 5, 5, async (r, d, [rep = '', pub = '', mapName = '']) => {
        const map = requiredMapName(mapName);
        const uuid = await d.wan.startSync(rep, pub, map);
        sendJson(r.res, { status: 'success', message: 'Sync initiated', uuid });
      });
    case 'sync/allmaps':
      return paramRoute('WAN', 4, 4, async (r, d, [rep = '', pub = '']) => {
        const uuid = await d.wan.startSync(rep, pub, undefined);
        sendJson(r.res, { status: 'success', message: 'Sync initiated', uuid });
      });
    case 'consistencyCheck/map':
      return paramRoute('WAN', 5, 5, async (r, d, [rep = '', pub = '', mapName = '']) => {
        const map = requiredMapName(mapName);
        const uuid = await d.wan.startConsistencyCheck(rep, pub, map);
        sendJson(r.res, { status: 'success', message: 'Consistency check initiated', uuid });
      });
    case 'addWanConfig':
      // Text beyond the second `&` is the JSON (which may itself contain `&`).
      return paramRoute('WAN', 3, 3, async (r, d, [json = '']) => {
        const { addedPublisherIds, ignoredPublisherIds } = await d.wan.addConfigJson(json);
        sendJson(r.res, { status: 'success', message: 'WAN configuration added.', addedPublisherIds, ignoredPublisherIds });
      });
  }
  throw unknown(method, path);
}

/** The decoded uuid of `<prefix><uuid>` (one non-empty segment), else undefined. */
function wanUuid(op: string, prefix: string): string | undefined {
  if (!op.startsWith(prefix)) return undefined;
  const raw = op.slice(prefix.length);
  if (raw.length === 0 || raw.includes('/')) return undefined;
  return decodeSegment(raw, 'uuid');
}

function requiredMapName(mapName: string | undefined): string {
  if (mapName === undefined || mapName === '') throw new GridError('BAD_REQUEST', 'missing map name (parameter 5)');
  return mapName;
}
