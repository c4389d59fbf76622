// The WAN reader: each `wan-replication` with its batch publishers (target, batching, queue,
// enumerations, sync, Grid's heartbeat). The publisher rules (integer bounds, the heartbeat
// cross-check, the enumerations in types.ts) are exported: addWanConfig's JSON
// (wan/wan-config-json.ts) applies the same rules to its own field names and message style.

import { DEFAULT_WAN_PUBLISHER } from '../defaults.js';
import { show, type Problems } from '../problems.js';
import {
  WAN_ACKNOWLEDGE_TYPES,
  WAN_CONSISTENCY_CHECK_STRATEGIES,
  WAN_PUBLISHER_STATES,
  WAN_QUEUE_FULL_BEHAVIORS,
  type MapConfig,
  type WanBatchPublisherConfig,
  type WanReplicationConfig,
} from '../types.js';
import { isHostPort } from './network.js';
import { INT_MAX, readList, type Section } from './section.js';
import { UNSUPPORTED_PUBLISHER, UNSUPPORTED_WAN, UNSUPPORTED_WAN_SYNC, WAN_DISCOVERY_PLUGINS } from './unused-elements.js';

/** The integer settings of a batch publisher, by their GridConfig (and addWanConfig JSON) name. */
export type WanPublisherIntField =
  | 'batchSize'
  | 'batchMaxDelayMillis'
  | 'responseTimeoutMillis'
  | 'queueCapacity'
  | 'heartbeatIntervalMillis'
  | 'heartbeatTimeoutMillis';

/**
 * Bounds of each integer setting of a batch publisher (`key`: its config element). Java ints, as
 * Hazelcast reads them; 0 is allowed only where it means "no delay" or "off".
 */
export const WAN_PUBLISHER_INTS: Readonly<Record<WanPublisherIntField, { readonly key: string; readonly min: 0 | 1; readonly max: number }>> = {
  batchSize: { key: 'batch-size', min: 1, max: INT_MAX },
  batchMaxDelayMillis: { key: 'batch-max-delay-millis', min: 0, max: INT_MAX },
  responseTimeoutMillis: { key: 'response-timeout-millis', min: 1, max: INT_MAX },
  queueCapacity: { key: 'queue-capacity', min: 1, max: INT_MAX },
  heartbeatIntervalMillis: { key: 'heartbeat-interval-millis', min: 1, max: INT_MAX },
  heartbeatTimeoutMillis: { key: 'heartbeat-timeout-millis', min: 0, max: INT_MAX },
};

/** What is wrong with a publisher's heartbeat timeout, or undefined: 0 (off) or longer than the interval. */
export function wanHeartbeatTimeoutProblem(intervalName: string, intervalMillis: number, timeoutMillis: number): string | undefined {
  if (timeoutMillis === 0 || timeoutMillis > intervalMillis) return undefined;
  return `must be 0 (off) or greater than ${intervalName} (${intervalMillis}), got ${timeoutMillis}`;
}

/** A publisher without a target: the same text for both inputs. */
export const WAN_NO_TARGET_ENDPOINTS = 'must list at least one host:port of the target cluster';

/** Grid's own WAN liveness settings of a batch-publisher: the timeout is 0 (off) or longer than the interval. */
function readWanHeartbeat(problems: Problems, p: Section): { heartbeatIntervalMillis: number; heartbeatTimeoutMillis: number } {
  const heartbeatIntervalMillis = publisherInt(p, 'heartbeatIntervalMillis');
  const heartbeatTimeoutMillis = publisherInt(p, 'heartbeatTimeoutMillis');
  const problem = wanHeartbeatTimeoutProblem(WAN_PUBLISHER_INTS.heartbeatIntervalMillis.key, heartbeatIntervalMillis, heartbeatTimeoutMillis);
  if (problem !== undefined) problems.error(p.at(WAN_PUBLISHER_INTS.heartbeatTimeoutMillis.key), problem);
  return { heartbeatIntervalMillis, heartbeatTimeoutMillis };
}

function publisherInt(p: Section, field: WanPublisherIntField): number {
  const rule = WAN_PUBLISHER_INTS[field];
  return p.int(rule.key, DEFAULT_WAN_PUBLISHER[field], rule.min, rule.max);
}

export function readWan(problems: Problems, s: Section): WanReplicationConfig[] {
  const out: WanReplicationConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const w = s.child(name);
    const publishers: WanBatchPublisherConfig[] = [];
    const bp = w.child('batch-publisher');
    for (const key of Object.keys(bp.obj)) {
      const p = bp.child(key);
      const clusterName = p.str('cluster-name', DEFAULT_WAN_PUBLISHER.clusterName);
      if (clusterName === '') problems.error(p.at('cluster-name'), 'must not be empty: the cluster name of the target cluster');
      // In YAML the entry key is the publisher id; XML entries are keyed by publisher-id or cluster-name.
      const publisherId = p.optStr('publisher-id') || key || clusterName;
      if (publishers.some((x) => x.publisherId === publisherId)) {
        problems.error(p.path, `duplicate publisher id "${publisherId}"`);
      }
      const targets = readList(problems, p.at('target-endpoints'), p.raw('target-endpoints'));
      if (targets.length === 0) problems.error(p.at('target-endpoints'), WAN_NO_TARGET_ENDPOINTS);
      for (const t of targets) {
        if (!isHostPort(t.value)) problems.error(t.path, `not a host or host:port: ${show(t.value)}`);
      }
      const sync = p.child('sync');
      const consistencyCheckStrategy = sync.oneOf('consistency-check-strategy', DEFAULT_WAN_PUBLISHER.consistencyCheckStrategy, WAN_CONSISTENCY_CHECK_STRATEGIES);
      for (const key2 of Object.keys(sync.obj)) {
        if (key2 !== 'consistency-check-strategy') sync.unsupported({ [key2]: UNSUPPORTED_WAN_SYNC });
      }
      sync.finish();
      publishers.push({
        clusterName,
        publisherId,
        targetEndpoints: targets.map((t) => t.value),
        batchSize: publisherInt(p, 'batchSize'),
        batchMaxDelayMillis: publisherInt(p, 'batchMaxDelayMillis'),
        responseTimeoutMillis: publisherInt(p, 'responseTimeoutMillis'),
        queueCapacity: publisherInt(p, 'queueCapacity'),
        queueFullBehavior: p.oneOf('queue-full-behavior', DEFAULT_WAN_PUBLISHER.queueFullBehavior, WAN_QUEUE_FULL_BEHAVIORS),
        initialPublisherState: p.oneOf('initial-publisher-state', DEFAULT_WAN_PUBLISHER.initialPublisherState, WAN_PUBLISHER_STATES),
        acknowledgeType: p.oneOf('acknowledge-type', DEFAULT_WAN_PUBLISHER.acknowledgeType, WAN_ACKNOWLEDGE_TYPES),
        consistencyCheckStrategy,
        ...readWanHeartbeat(problems, p),
      });
      p.unsupported(UNSUPPORTED_PUBLISHER, { silentWhenDisabled: WAN_DISCOVERY_PLUGINS });
      p.finish();
    }
    bp.finish();
    w.unsupported(UNSUPPORTED_WAN);
    w.finish();
    out.push({ name, batchPublishers: publishers });
  }
  return out;
}

/** Every map's `wan-replication-ref` names a declared `wan-replication`. */
export function checkWanReplicationRefs(problems: Problems, wanReplication: readonly WanReplicationConfig[], maps: readonly MapConfig[]): void {
  for (const m of maps) {
    const ref = m.wanReplicationRef;
    if (ref !== undefined && !wanReplication.some((w) => w.name === ref.name)) {
      problems.error(`hazelcast.map.${m.name}.wan-replication-ref.${ref.name}`, `wan-replication "${ref.name}" is not defined`);
    }
  }
}
