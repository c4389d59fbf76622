// WAN replication metrics (docs/metrics.md): read at scrape time from the publishers' status,
// the figures GET /rest/wan shows. Labels: the replication and publisher names of the config
// (and its target endpoints), a bounded set.

import type { MetricsRegistrar } from '../core/metrics.js';
import type { WanPublisherStatus } from './wan-facade.js';
import { PUBLISHER_STATES } from './wan-config-json.js';
import { WAN_DOWN_CAUSES } from './batcher.js';

export function reportWanMetrics(r: MetricsRegistrar, status: () => readonly WanPublisherStatus[]): void {
  let publishers: readonly WanPublisherStatus[] = [];
  r.beforeScrape(() => {
    publishers = status();
  });
  const labelNames = ['replication', 'publisher'];
  const labels = (p: WanPublisherStatus): Record<string, string> => ({ replication: p.wanReplicationName, publisher: p.publisherId });
  const each = (read: (p: WanPublisherStatus) => number) => (report: (v: number, l: Record<string, string>) => void) => {
    for (const p of publishers) report(read(p), labels(p));
  };
  r.gauge({ name: 'grid_wan_queue_events', help: "Events in this member's WAN queues of the publisher: primary (partitions owned here) and backup", labelNames: [...labelNames, 'queue'] }, (report) => {
    for (const p of publishers) {
      report(p.primaryQueueSize, { ...labels(p), queue: 'primary' });
      report(p.backupQueueSize, { ...labels(p), queue: 'backup' });
    }
  });
  r.gauge({ name: 'grid_wan_queue_capacity_events', help: 'queue-capacity of the publisher (per member, primary events)', labelNames }, each((p) => p.queueCapacity));
  r.gauge({ name: 'grid_wan_lag_seconds', help: 'How long the oldest event in the primary queue has waited (0 when empty)', labelNames }, each((p) => p.lagMillis / 1000));
  r.gauge({ name: 'grid_wan_publisher_state', help: "The publisher's state on this member: 1 for the current state, 0 for the others", labelNames: [...labelNames, 'state'] }, (report) => {
    for (const p of publishers) for (const state of PUBLISHER_STATES) report(p.state === state ? 1 : 0, { ...labels(p), state });
  });
  r.gauge({ name: 'grid_wan_endpoint_up', help: '1 when the WAN connection to the target endpoint is up, else 0', labelNames: [...labelNames, 'endpoint'] }, (report) => {
    for (const p of publishers) for (const e of p.endpoints) report(e.status === 'up' ? 1 : 0, { ...labels(p), endpoint: e.address });
  });
  r.gauge(
    { name: 'grid_wan_endpoint_status_since_seconds', help: 'When the endpoint entered its current status (up, down, connecting), epoch seconds: how long it has been down', labelNames: [...labelNames, 'endpoint'] },
    (report) => {
      for (const p of publishers) for (const e of p.endpoints) report(e.since / 1000, { ...labels(p), endpoint: e.address });
    },
  );
  r.gauge(
    { name: 'grid_wan_endpoint_down_cause', help: 'While the endpoint is down: 1 for why (heartbeat-timeout, connection-lost, connect-failed, batch-failures), 0 for the others', labelNames: [...labelNames, 'endpoint', 'cause'] },
    (report) => {
      for (const p of publishers) for (const e of p.endpoints) for (const cause of WAN_DOWN_CAUSES) report(e.status === 'down' && e.cause === cause ? 1 : 0, { ...labels(p), endpoint: e.address, cause });
    },
  );
  const counter = (name: string, help: string, read: (p: WanPublisherStatus) => number): void => r.counter({ name, help, labelNames }, each(read));
  counter('grid_wan_events_queued_total', 'Map events queued for the publisher on this member', (p) => p.eventsQueued);
  counter('grid_wan_events_sent_total', 'Events sent to the target cluster in batches', (p) => p.eventsSent);
  counter('grid_wan_events_acknowledged_total', 'Events the target cluster acknowledged', (p) => p.eventsAcknowledged);
  counter('grid_wan_events_dropped_total', 'Events dropped: queue full (DISCARD_AFTER_MUTATION) or publisher STOPPED', (p) => p.eventsDropped);
  counter('grid_wan_writes_refused_total', 'Map writes refused because the WAN queue was full (THROW_EXCEPTION)', (p) => p.writesRefused);
  counter('grid_wan_batches_sent_total', 'Batches sent to the target cluster', (p) => p.batchesSent);
  counter('grid_wan_batches_failed_total', 'Batches that failed (no answer, error) and were sent again', (p) => p.batchesFailed);
}
