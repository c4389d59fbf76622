// Membership metrics (docs/metrics.md): member count, master, cluster and node state, and the
// age of the last word from each other member; read at scrape time from the cluster's view.

import type { MetricsRegistrar } from '../core/metrics.js';
import type { ClusterContext } from './cluster-context.js';
import type { ClusterState, NodeState } from './types.js';

/** Every state, so that a dashboard sees the one at 1 and the others at 0. */
const METRIC_CLUSTER_STATES: readonly ClusterState[] = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE', 'IN_TRANSITION'];
const METRIC_NODE_STATES: readonly NodeState[] = ['STARTING', 'ACTIVE', 'PASSIVE', 'SHUTTING_DOWN', 'SHUT_DOWN'];

/** What the gauges read: the facade's view (a fenced member is no master) and the shared state. */
export interface ClusterMetricsSource {
  isMaster(): boolean;
  state(): ClusterState;
  nodeState(): NodeState;
}

export function reportClusterMetrics(r: MetricsRegistrar, view: ClusterMetricsSource, ctx: ClusterContext): void {
  r.gauge({ name: 'grid_cluster_members', help: "Members in this member's member list (itself and lite members included)" }, (report) => report(ctx.memberList.length));
  r.gauge({ name: 'grid_cluster_master', help: '1 when this member is the master (the oldest member), else 0' }, (report) => report(view.isMaster() ? 1 : 0));
  r.gauge({ name: 'grid_cluster_state', help: 'The cluster state as this member knows it: 1 for the current state, 0 for the others', labelNames: ['state'] }, (report) => {
    const now = view.state();
    for (const state of METRIC_CLUSTER_STATES) report(state === now ? 1 : 0, { state });
  });
  r.gauge({ name: 'grid_member_state', help: "This member's node state: 1 for the current state, 0 for the others", labelNames: ['state'] }, (report) => {
    const now = view.nodeState();
    for (const state of METRIC_NODE_STATES) report(state === now ? 1 : 0, { state });
  });
  r.gauge(
    {
      name: 'grid_cluster_heartbeat_age_seconds',
      help: 'Seconds since this member last heard from each other member (a heartbeat or any message); past hazelcast.max.no.heartbeat.seconds the member is suspected',
      labelNames: ['peer'],
    },
    (report) => {
      const now = ctx.clock.now();
      for (const m of ctx.memberList) {
        if (m.uuid === ctx.local.uuid) continue;
        const at = ctx.detector.lastHeardOf(m.uuid);
        if (at !== undefined) report(Math.max(0, now - at) / 1000, { peer: m.address });
      }
    },
  );
}
