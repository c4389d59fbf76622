// The HEALTH_CHECK endpoints' handlers: /health (JSON, Hazelcast 3.x text, HEAD headers) and
// its sub-paths (node-state, cluster-state, cluster-safe, ready, memory, ...), rows of route-table.ts.

import type { MemoryStatus } from '../core/memory-guard.js';
import { GridError } from '../core/errors.js';
import type { PersistenceHealth, RestDeps } from './context.js';
import { prefersPlainText, rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText } from './respond.js';
import { requireBasicWhenSecured, type Request } from './route-kit.js';

/** GET/HEAD health: JSON, Hazelcast 3.x's text when `Accept` prefers it, HEAD: the same as headers. */
export function health(r: Request, d: RestDeps): void {
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
}

export function nodeState(r: Request, d: RestDeps): void {
  sendJson(r.res, nodeStateOf(d));
}

export function clusterState(r: Request, d: RestDeps): void {
  requireBasicWhenSecured(r, d);
  sendJson(r.res, d.cluster.state());
}

export function clusterSafe(r: Request, d: RestDeps): void {
  const safe = d.health.clusterSafe();
  sendEmpty(r.res, safe ? 200 : 503, safe ? undefined : 'cluster is not safe');
}

export function migrationQueueSize(r: Request, d: RestDeps): void {
  sendJson(r.res, d.health.migrationQueueSize());
}

export function clusterSize(r: Request, d: RestDeps): void {
  sendJson(r.res, d.cluster.members().length);
}

/** Grid's: the memory guard (limit, resident set, V8 heap, whether writes are refused). /health itself keeps Hazelcast's shape. */
export function memory(r: Request, d: RestDeps): void {
  const m: MemoryStatus | undefined = d.health.memory?.();
  if (m === undefined) throw new GridError('NOT_ENABLED', 'this member has no memory guard');
  sendJson(r.res, m);
}

export function ready(r: Request, d: RestDeps): void {
  const recovering = d.health.recovering?.() === true;
  const isReady = !recovering && d.cluster.nodeState() === 'ACTIVE' && d.cluster.joined();
  sendEmpty(r.res, isReady ? 200 : 503, isReady ? undefined : recovering ? 'member is restarting from persisted data' : `member is ${d.cluster.nodeState()}`);
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
