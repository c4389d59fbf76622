// The MapWanSink: map mutations come in here, on the map's write path (admit before the write,
// commit or cancel after it; offer for a write that cannot be refused; backup at the partition's
// backups), and go into the publishers' event queues. Also the backups' release of events the
// target has acknowledged.

import type { MapConfig } from '../config/types.js';
import type { MapWanEvent, MapWanSink } from '../map/map-service.js';
import type { StoreObserver } from '../map/record-store.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { decodeWanBackupAck } from '../protocol/wan-payloads.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { placeEvent, type WanTicket } from './event-queue.js';
import { newMerkleObserver } from './merkle-observer.js';
import type { WanContext } from './wan-context.js';
import type { Publisher } from './wan-publishers.js';

export class WanSink implements MapWanSink {
  constructor(private readonly ctx: WanContext) {}

  admit(mapName: string, partitionId: number): unknown {
    let tickets: [Publisher, WanTicket][] | undefined;
    for (const p of this.ctx.publishers.of(mapName)) {
      if (p.cfg.clusterName === this.ctx.clusterName) continue;
      const a = p.queue.admit(partitionId);
      if (a.outcome === 'refuse') {
        if (tickets !== undefined) for (const [q, t] of tickets) q.queue.cancel(t);
        throw a.error;
      }
      (tickets ??= []).push([p, a.ticket]);
    }
    return tickets;
  }

  commit(tickets: unknown, partitionId: number, event: MapWanEvent): WireValue {
    const now = this.ctx.deps.clock.now();
    const payload = queuedPayload(event, this.ctx.clusterName);
    const seqs: WireValue[] = [];
    for (const [p, t] of tickets as [Publisher, WanTicket][]) {
      const queued = p.queue.commit(t, payload, now);
      if (queued === undefined) continue;
      seqs.push(p.wanRepName, p.id, queued.sequence);
      this.ctx.publishers.kick(p);
    }
    return seqs.length === 0 ? null : seqs;
  }

  cancel(tickets: unknown): void {
    for (const [p, t] of tickets as [Publisher, WanTicket][]) p.queue.cancel(t);
  }

  offer(partitionId: number, event: MapWanEvent): WireValue {
    const now = this.ctx.deps.clock.now();
    const payload = queuedPayload(event, this.ctx.clusterName);
    const seqs: WireValue[] = [];
    for (const p of this.ctx.publishers.of(event.mapName)) {
      // Never back to a cluster the mutation has passed through (active-active, rings).
      if (payload.originClusters.includes(p.cfg.clusterName)) continue;
      const queued = p.queue.offer(partitionId, payload, now);
      if (queued === undefined) continue;
      seqs.push(p.wanRepName, p.id, queued.sequence);
      this.ctx.publishers.kick(p);
    }
    return seqs.length === 0 ? null : seqs;
  }

  backup(partitionId: number, event: MapWanEvent, seqs: WireValue): void {
    if (!Array.isArray(seqs)) return;
    const now = this.ctx.deps.clock.now();
    let payload: MapWanEvent | undefined;
    for (let i = 0; i + 2 < seqs.length; i += 3) {
      const p = this.ctx.publishers.get(f.str(seqs, i, 'wan replication'), f.str(seqs, i + 1, 'publisher id'));
      if (p === undefined) continue;
      payload ??= queuedPayload(event, this.ctx.clusterName);
      p.queue.pushBackup(placeEvent(payload, partitionId, f.num(seqs, i + 2, 'sequence'), now));
    }
  }

  newObserver(config: MapConfig): StoreObserver | undefined {
    return newMerkleObserver(config);
  }

  /** At a partition's backup: the owner's publisher says the target has events up to a sequence. */
  onBackupAck(payload: WireValue): void {
    const a = decodeWanBackupAck(payload);
    const p = this.ctx.publishers.get(a.wanRepName, a.publisherId);
    if (p === undefined) return;
    for (const [pid, through] of a.acks) {
      // Only the partition's owner releases backup events.
      if (pid >= 0 && pid < PARTITION_COUNT) p.queue.acknowledgeBackup(pid, through);
    }
  }
}

/** The queued form of a map mutation: this cluster joins the clusters it has passed through. */
export function queuedPayload(event: MapWanEvent, clusterName: string): MapWanEvent {
  const originClusters = event.originClusters.includes(clusterName) ? event.originClusters : [...event.originClusters, clusterName];
  if (event.kind === 'remove') return { kind: 'remove', mapName: event.mapName, key: event.key, originClusters };
  return {
    kind: 'put',
    mapName: event.mapName,
    key: event.key,
    value: event.value,
    contentType: event.contentType,
    ttlRemainingMs: event.ttlRemainingMs,
    ...(event.stats === undefined ? {} : { stats: event.stats }),
    originClusters,
  };
}
