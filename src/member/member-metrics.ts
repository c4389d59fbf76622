// Every service's metrics of one member (docs/metrics.md), declared once when metrics are on:
// each service reports its own, and this adds the member-level ones (connections, Hazelcast
// clients' routing). All are read at scrape time from the services' own counters.

import type { MetricsRegistrar } from '../core/metrics.js';
import type { MemoryGuard } from '../core/memory-guard.js';
import type { ClusterService } from '../cluster/cluster-service.js';
import type { PartitionService } from '../partition/partition-service.js';
import type { ClusterInvoker } from '../invocation/invoker.js';
import type { MapService } from '../map/map-service.js';
import type { QueueService } from '../queue/queue-service.js';
import type { WanService } from '../wan/wan-service.js';
import type { CpService } from '../cp/cp-service.js';
import type { PersistenceService } from '../persistence/persistence-service.js';
import type { ClientRouting } from '../client/client-deps.js';
import { reportMemoryMetrics } from './memory-limit.js';
import { reportWanMetrics } from '../wan/wan-metrics.js';
import { reportCpMetrics } from '../cp/cp-metrics.js';

export interface MemberMetricsSources {
  readonly cluster: ClusterService;
  readonly partitions: PartitionService;
  readonly invoker: ClusterInvoker;
  readonly maps: MapService;
  readonly queues: QueueService;
  readonly memoryGuard: MemoryGuard;
  readonly wan: WanService;
  readonly persistence: PersistenceService | undefined;
  /** The CP subsystem, when enabled. */
  readonly cp: CpService | undefined;
  connections(): { readonly client: number; readonly member: number };
  /** The client protocol's routing counters (undefined until it runs). */
  clientRouting(): ClientRouting | undefined;
}

export function reportMemberMetrics(r: MetricsRegistrar, s: MemberMetricsSources): void {
  s.cluster.reportMetrics(r);
  s.partitions.reportMetrics(r);
  s.invoker.reportMetrics(r);
  r.gauge({ name: 'grid_member_connections', help: 'Open member-protocol connections of this member (to and from other members)' }, (report) => report(s.connections().member));
  r.gauge({ name: 'grid_rest_connections', help: 'Open HTTP connections of this member' }, (report) => report(s.connections().client));
  s.maps.reportMetrics(r);
  s.queues.reportMetrics(r);
  reportMemoryMetrics(r, s.memoryGuard);
  reportWanMetrics(r, () => s.wan.status());
  s.persistence?.reportMetrics(r);
  r.counter({ name: 'grid_client_keyed_requests_total', help: 'Keyed map requests from Hazelcast clients (get, put, set, remove, delete, containsKey)' }, (report) => report(s.clientRouting()?.keyed ?? 0));
  r.counter(
    { name: 'grid_client_keyed_requests_forwarded_total', help: "Keyed map requests from Hazelcast clients for a partition another member owns (run there: a smart client's owner guess missed)" },
    (report) => report(s.clientRouting()?.forwarded ?? 0),
  );
  const cp = s.cp;
  if (cp !== undefined) reportCpMetrics(r, () => cp.status());
}
