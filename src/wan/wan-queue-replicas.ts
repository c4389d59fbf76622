// The event queues as partition data: a partition's WAN events move and are copied with the
// partition (snapshot at the source, install at the destination, promote or demote when its
// owner changes), through the partition service's ReplicaData hook, in a compact tuple form.

import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { placeEvent, type WanEvent } from './event-queue.js';
import type { MapWanEvent } from '../protocol/wan-payloads.js';
import type { WanContext } from './wan-context.js';

/** The WAN queues' ReplicaData, registered with the partition service by the member. */
export function wanQueueReplicaData(ctx: WanContext): ReplicaData {
  const { deps, publishers } = ctx;
  return {
    name: 'wan',
    snapshot: (pid: number): WireValue | undefined => {
      const role = deps.partitions.ownerOf(pid) === deps.membership.localMember().uuid ? 'primary' : 'backup';
      const out: WireValue[] = [];
      for (const p of publishers.all()) {
        const snap = p.queue.snapshot(pid, role);
        if (snap.events.length === 0 && snap.nextSequence === 1) continue;
        const events: WireValue[] = [];
        for (const e of snap.events) events.push(e.sequence, e.enqueuedAtMs, encodeQueued(e));
        out.push([p.wanRepName, p.id, snap.nextSequence, events]);
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      // Copies arrive before the table that makes this member their owner: they are backups
      // until ownershipGained promotes them.
      const role = deps.partitions.ownerOf(pid) === deps.membership.localMember().uuid ? 'primary' : 'backup';
      for (const p of publishers.all()) p.queue.removePartition(pid, role);
      if (data === undefined) return;
      for (const item of f.tuple(data, 'wan data')) {
        const t = f.tuple(item, 'wan queue');
        const p = publishers.get(f.str(t, 0, 'wan replication'), f.str(t, 1, 'publisher id'));
        if (p === undefined) continue;
        const flat = f.arr(t, 3, 'events');
        const events: WanEvent[] = [];
        for (let i = 0; i + 2 < flat.length; i += 3) {
          events.push(placeEvent(decodeQueued(flat[i + 2] ?? null), pid, f.num(flat, i, 'sequence'), f.num(flat, i + 1, 'enqueued at')));
        }
        p.queue.install({ partitionId: pid, nextSequence: f.num(t, 2, 'next sequence'), events }, role);
        if (role === 'primary') publishers.kick(p);
      }
    },
    drop: (pid: number): void => {
      for (const p of publishers.all()) {
        p.queue.removePartition(pid, 'primary');
        p.queue.removePartition(pid, 'backup');
      }
    },
    ownershipLost: (pid: number): void => {
      for (const p of publishers.all()) p.queue.demote(pid);
    },
    ownershipGained: (pid: number): void => {
      for (const p of publishers.all()) {
        p.queue.promote(pid);
        publishers.kick(p);
      }
    },
    trim: (): void => undefined,
  };
}

function encodeQueued(e: MapWanEvent): WireValue {
  if (e.kind === 'remove') return [1, e.mapName, e.key, e.originClusters as string[]];
  const s = e.stats;
  return [0, e.mapName, e.key, e.originClusters as string[], new Latin1(e.value), e.contentType ?? null, e.ttlRemainingMs ?? -1, s === undefined ? null : [s.creationTime, s.lastUpdateTime, s.lastAccessTime, s.hits]];
}

function decodeQueued(v: WireValue): MapWanEvent {
  const t = f.tuple(v, 'wan event');
  const mapName = f.str(t, 1, 'map');
  const key = f.str(t, 2, 'key');
  const originClusters = f.strings(t, 3, 'origins');
  if (f.int(t, 0, 'kind') === 1) return { kind: 'remove', mapName, key, originClusters };
  const ttl = f.num(t, 6, 'ttl');
  const st = t[7];
  return {
    kind: 'put',
    mapName,
    key,
    value: f.latin1(t, 4, 'value'),
    contentType: f.optStr(t, 5, 'content type'),
    ttlRemainingMs: ttl > 0 ? ttl : undefined,
    ...(Array.isArray(st) ? { stats: { creationTime: f.num(st, 0, 'c'), lastUpdateTime: f.num(st, 1, 'u'), lastAccessTime: f.num(st, 2, 'a'), hits: f.num(st, 3, 'h') } } : {}),
    originClusters,
  };
}

