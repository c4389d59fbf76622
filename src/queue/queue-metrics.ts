// The queue metrics (docs/metrics.md): per-queue operation counters bumped on the owner, and
// the scrape-time report of the queues this member owns.

import type { CountersByName, MetricsRegistrar } from '../core/metrics.js';
import type { QueueContainer } from './queue-container.js';

/** One queue's operations on this member as its owner, since the member started (read at scrape time). */
export class QueueCounters {
  /** Offers that stored their item or handed it to a waiting poll. */
  offers = 0;
  /** Offers refused because the queue was full (max-size). */
  rejectedOffers = 0;
  /** Poll operations run (an item taken, waited for, or none). */
  polls = 0;
}

/** The counter metrics: name, help, and the QueueCounters field each reports. */
const QUEUE_COUNTERS: readonly (readonly [string, string, keyof QueueCounters])[] = [
  ['grid_queue_offers_total', "Offers this member accepted as the queue's owner (stored, or handed to a waiting poll)", 'offers'],
  ['grid_queue_rejected_offers_total', 'Offers refused because the queue was full (max-size)', 'rejectedOffers'],
  ['grid_queue_polls_total', "Poll operations this member ran as the queue's owner, whether they got an item, waited or got none", 'polls'],
];

/** What the metrics read of the queues on this member (the queue registry). */
export interface QueueMetricsSource {
  readonly queues: ReadonlyMap<string, { readonly queue: QueueContainer; readonly partitionId: number }>;
  readonly counters: CountersByName<QueueCounters>;
  readonly deps: { readonly membership: { isOwner(partitionId: number): boolean } };
}

/** The per-queue metrics of the queues this member owns. */
export function reportQueueMetrics(r: MetricsRegistrar, src: QueueMetricsSource): void {
  const labelNames = ['queue'];
  const owned = (report: (e: { readonly queue: QueueContainer }, queue: string) => void): void => {
    for (const [queue, e] of src.queues) if (src.deps.membership.isOwner(e.partitionId)) report(e, queue);
  };
  r.gauge({ name: 'grid_queue_size', help: 'Items in the queue, on the member that owns it (items taken by a poll whose answer is not confirmed yet not included)', labelNames }, (report) =>
    owned((e, queue) => report(e.queue.size, { queue })),
  );
  r.gauge({ name: 'grid_queue_waiting_polls', help: 'Polls waiting for an item, on the member that owns the queue', labelNames }, (report) =>
    owned((e, queue) => report(e.queue.waiting, { queue })),
  );
  for (const [name, help, field] of QUEUE_COUNTERS) r.counter({ name, help, labelNames }, (report) => src.counters.forEach((c, queue) => report(c[field], { queue })));
}
