// The REST facade's calls that act on this member only: pause, resume, stop a publisher, clear
// its queues, and every publisher's status for GET /rest/wan. The cluster-wide calls (sync,
// consistency checks, added configs) are in their own modules.

import type { WanPublisherState } from './event-queue.js';
import type { WanPublisherStatus } from './wan-facade.js';
import type { WanContext } from './wan-context.js';
import { normaliseEndpoint, type Publisher } from './wan-publishers.js';

export class WanMemberControls {
  constructor(private readonly ctx: WanContext) {}

  pausePublisher(wanRepName: string, publisherId: string): void {
    this.setState(wanRepName, publisherId, 'PAUSED', 'paused');
  }

  resumePublisher(wanRepName: string, publisherId: string): void {
    this.ctx.publishers.kick(this.setState(wanRepName, publisherId, 'REPLICATING', 'resumed'));
  }

  stopPublisher(wanRepName: string, publisherId: string): void {
    this.setState(wanRepName, publisherId, 'STOPPED', 'stopped');
  }

  clearQueues(wanRepName: string, publisherId: string): void {
    const p = this.ctx.publishers.resolve(wanRepName, publisherId);
    const n = p.queue.clear();
    this.ctx.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id}: ${n} queued events cleared`);
  }

  status(): WanPublisherStatus[] {
    const now = this.ctx.deps.clock.now();
    const out: WanPublisherStatus[] = [];
    for (const p of this.ctx.publishers.all()) {
      const q = p.queue.stats();
      const b = p.batcher.stats();
      out.push({
        wanReplicationName: p.wanRepName,
        publisherId: p.id,
        targetClusterName: p.cfg.clusterName,
        state: q.state,
        endpoints: p.cfg.targetEndpoints.map((address) => {
          const h = p.batcher.endpointHealth(normaliseEndpoint(address), now);
          return { address, status: h?.status ?? 'down', since: h?.sinceMs ?? now, reason: h?.reason ?? null, cause: h?.cause ?? null, failedAttempts: h?.failedAttempts ?? 0 };
        }),
        queueCapacity: p.queue.capacity,
        primaryQueueSize: q.primarySize,
        backupQueueSize: q.backupSize,
        eventsQueued: q.queued,
        eventsSent: b.eventsSent,
        eventsAcknowledged: q.acknowledged,
        eventsDropped: q.dropped + q.droppedWhileStopped,
        writesRefused: q.refused,
        batchesSent: b.batchesSent,
        batchesFailed: b.batchesFailed,
        lastAckTime: b.lastAckAtMs ?? null,
        lagMillis: p.queue.lagMs(now),
      });
    }
    return out;
  }


  private setState(wanRepName: string, publisherId: string, state: WanPublisherState, done: string): Publisher {
    const p = this.ctx.publishers.resolve(wanRepName, publisherId);
    p.queue.setState(state);
    this.ctx.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id} ${done}`);
    return p;
  }
}
