// Payloads of the WAN replication messages (types 50-57), with pure encode/decode pairs like
// payloads.ts: WanAuth/WanBatch/WanMerkle travel between clusters on a WAN connection; the
// others stay inside a cluster. Decoders throw GridError('BAD_REQUEST') naming the field.

import { GridError } from '../core/errors.js';
import { Latin1, type WireValue } from './codec.js';
import * as f from './fields.js';
import { recordTuple } from './record-tuple.js';

// ------------------------------------------------------------------ WanAuth (50)

/** First request on a WAN connection: the source's cluster, the cluster it wants, who it is. */
export interface WanAuthPayload {
  readonly sourceCluster: string;
  readonly targetCluster: string;
  readonly uuid: string;
  readonly address: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly version: string;
  /** The source's partition hash version (core/murmur3.ts); absent from an older Grid (version 1). */
  readonly partitionHash?: number;
}

export function encodeWanAuth(p: WanAuthPayload): WireValue {
  const t: WireValue[] = [p.sourceCluster, p.targetCluster, p.uuid, p.address, p.username ?? null, p.password ?? null, p.version];
  if (p.partitionHash !== undefined) t.push(p.partitionHash);
  return t;
}

export function decodeWanAuth(v: WireValue): WanAuthPayload {
  const t = f.tuple(v, 'wan auth');
  return {
    sourceCluster: f.str(t, 0, 'source cluster'),
    targetCluster: f.str(t, 1, 'target cluster'),
    uuid: f.str(t, 2, 'uuid'),
    address: f.str(t, 3, 'address'),
    username: f.optStr(t, 4, 'username'),
    password: f.optStr(t, 5, 'password'),
    version: f.str(t, 6, 'version'),
    partitionHash: f.optInt(t, 7, 'partition hash version'),
  };
}

/** The answer: [clusterName, uuid, partitionHash] of the target member (partitionHash absent from an older Grid: version 1). */
export interface WanAuthAnswer {
  readonly clusterName: string;
  readonly uuid: string;
  readonly partitionHash?: number;
}

export const { encode: encodeWanAuthAnswer, decode: decodeWanAuthAnswer } = recordTuple<WanAuthAnswer>(
  'wan auth answer',
  [
    ['clusterName', f.str, 'cluster name'],
    ['uuid', f.str, 'uuid'],
    ['partitionHash', f.optInt, 'partition hash version'],
  ],
  { trimOptional: true },
);

// ------------------------------------------------------------------ WanBatch (51)

/** Entry statistics a target's merge policy may compare (HigherHits, LatestUpdate, LatestAccess); kept by maps whose merge policy needs them. */
export interface WanEntryStats {
  readonly creationTime: number;
  readonly lastUpdateTime: number;
  readonly lastAccessTime: number;
  readonly hits: number;
}

/**
 * A map mutation as WAN replication carries it: what the map layer hands to the WAN layer,
 * what the WAN event queues hold (they add partition and sequence), and, with the merge
 * policy added, what a WanBatch carries (WanBatchEvent).
 */
export type MapWanEvent =
  | {
      readonly kind: 'put';
      readonly mapName: string;
      readonly key: string;
      /** The value's bytes as a latin1 string (one char per byte), as the map stores them. */
      readonly value: string;
      readonly contentType: string | undefined;
      /** Time to live left when the event was made; undefined = the entry does not expire. */
      readonly ttlRemainingMs: number | undefined;
      readonly stats?: WanEntryStats;
      /** Names of the clusters the event has passed through (the source first): loops stop here. */
      readonly originClusters: readonly string[];
    }
  | {
      readonly kind: 'remove';
      readonly mapName: string;
      readonly key: string;
      readonly originClusters: readonly string[];
    };

/**
 * One event of a WanBatch as it travels: a MapWanEvent with every field present (a remove's
 * value is '', its content type, TTL and stats undefined) and the merge policy the target applies.
 * Wire: [mapName, kind 0 put / 1 remove, key, value|null, contentType|null, ttlLeftMs (-1 none), mergePolicy, originClusters[], stats|null].
 */
export interface WanBatchEvent extends Omit<Extract<MapWanEvent, { kind: 'put' }>, 'kind' | 'stats'> {
  readonly kind: MapWanEvent['kind'];
  readonly stats: WanEntryStats | undefined;
  readonly mergePolicy: string;
}

/** [sourceCluster, ackOnReceipt, events[]] -> number of events applied (ACK_ON_RECEIPT: received). */
export interface WanBatchPayload {
  readonly sourceCluster: string;
  readonly ackOnReceipt: boolean;
  readonly events: readonly WanBatchEvent[];
}

/**
 * Appends an event's wire values after its map name (kind, key, value, content type, ttl,
 * merge policy, origins, stats): a WanBatch event is [mapName, ...these]; a map's WAN-apply
 * operation, whose map is its first argument, carries these 8 values per entry.
 */
export function appendWanEventFields(out: WireValue[], e: Omit<WanBatchEvent, 'mapName'>): void {
  out.push(
    e.kind === 'put' ? 0 : 1,
    e.key,
    e.kind === 'put' ? new Latin1(e.value) : null,
    e.contentType ?? null,
    e.ttlRemainingMs ?? -1,
    e.mergePolicy,
    e.originClusters as string[],
    e.stats === undefined ? null : [e.stats.creationTime, e.stats.lastUpdateTime, e.stats.lastAccessTime, e.stats.hits],
  );
}

/** Values appendWanEventFields appends per event. */
export const WAN_EVENT_FIELDS = 8;

export function encodeWanEvent(e: WanBatchEvent): WireValue {
  const out: WireValue[] = [e.mapName];
  appendWanEventFields(out, e);
  return out;
}

export function decodeWanEvent(v: WireValue, what = 'wan event'): WanBatchEvent {
  const t = f.tuple(v, what);
  const kind = f.int(t, 1, `${what}.kind`);
  if (kind !== 0 && kind !== 1) throw new GridError('BAD_REQUEST', `malformed member message: ${what}.kind is ${kind}`);
  const ttl = f.num(t, 5, `${what}.ttl`);
  if (!Number.isFinite(ttl)) throw new GridError('BAD_REQUEST', `malformed member message: ${what}.ttl is not finite`);
  const st = t[8];
  return {
    mapName: f.str(t, 0, `${what}.map`),
    kind: kind === 0 ? 'put' : 'remove',
    key: f.str(t, 2, `${what}.key`),
    value: kind === 0 ? f.latin1(t, 3, `${what}.value`) : '',
    contentType: f.optStr(t, 4, `${what}.contentType`),
    ttlRemainingMs: ttl > 0 ? ttl : undefined,
    mergePolicy: f.str(t, 6, `${what}.mergePolicy`),
    originClusters: f.strings(t, 7, `${what}.origins`),
    stats:
      st === null || st === undefined
        ? undefined
        : {
            creationTime: f.num(f.tuple(st, `${what}.stats`), 0, `${what}.stats.creationTime`),
            lastUpdateTime: f.num(st as WireValue[], 1, `${what}.stats.lastUpdateTime`),
            lastAccessTime: f.num(st as WireValue[], 2, `${what}.stats.lastAccessTime`),
            hits: f.num(st as WireValue[], 3, `${what}.stats.hits`),
          },
  };
}

export function encodeWanBatch(p: WanBatchPayload): WireValue {
  return [p.sourceCluster, p.ackOnReceipt, p.events.map(encodeWanEvent)];
}

export function decodeWanBatch(v: WireValue): WanBatchPayload {
  const t = f.tuple(v, 'wan batch');
  const events = f.arr(t, 2, 'events');
  return {
    sourceCluster: f.str(t, 0, 'source cluster'),
    ackOnReceipt: f.bool(t, 1, 'ack on receipt'),
    events: events.map((e, i) => decodeWanEvent(e, `events[${i}]`)),
  };
}

// ------------------------------------------------------------------ WanMerkle (52)

/** [mapName, partitionId, level] -> [level, hashes (int32 little endian, one per node of the level)]. */
export interface WanMerklePayload {
  readonly mapName: string;
  readonly partitionId: number;
  readonly level: number;
}

export const { encode: encodeWanMerkle, decode: decodeWanMerkle } = recordTuple<WanMerklePayload>('wan merkle', [
  ['mapName', f.str, 'map'],
  ['partitionId', f.int, 'partition id'],
  ['level', f.int, 'level'],
]);

export interface WanMerkleAnswer {
  readonly level: number;
  readonly hashes: Int32Array;
}

export function encodeWanMerkleAnswer(p: WanMerkleAnswer): WireValue {
  const bytes = new Uint8Array(p.hashes.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < p.hashes.length; i++) view.setInt32(i * 4, p.hashes[i] as number, true);
  return [p.level, bytes];
}

export function decodeWanMerkleAnswer(v: WireValue): WanMerkleAnswer {
  const t = f.tuple(v, 'wan merkle answer');
  const level = f.int(t, 0, 'level');
  const bytes = t[1];
  if (!(bytes instanceof Uint8Array) || bytes.length % 4 !== 0) throw new GridError('BAD_REQUEST', 'malformed member message: merkle hashes');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hashes = new Int32Array(bytes.length / 4);
  for (let i = 0; i < hashes.length; i++) hashes[i] = view.getInt32(i * 4, true);
  return { level, hashes };
}

// ------------------------------------------------------------------ WanSyncStart (53), WanSyncStatus (54)

export type WanJobKind = 'sync' | 'check';

function jobKind(t: readonly WireValue[], i: number): WanJobKind {
  const kind = f.str(t, i, 'kind');
  if (kind !== 'sync' && kind !== 'check') throw new GridError('BAD_REQUEST', `malformed member message: wan job kind ${kind.slice(0, 20)}`);
  return kind;
}

/** Coordinator -> every member: [uuid, kind, wanRepName, publisherId, mapNames[]|null (all), creationTime, participants[]] -> null. */
export interface WanSyncStartPayload {
  readonly uuid: string;
  readonly kind: WanJobKind;
  readonly wanRepName: string;
  readonly publisherId: string;
  readonly mapNames: readonly string[] | undefined;
  readonly creationTime: number;
  readonly participants: readonly string[];
}

export function encodeWanSyncStart(p: WanSyncStartPayload): WireValue {
  return [p.uuid, p.kind, p.wanRepName, p.publisherId, p.mapNames === undefined ? null : (p.mapNames as string[]), p.creationTime, p.participants as string[]];
}

export function decodeWanSyncStart(v: WireValue): WanSyncStartPayload {
  const t = f.tuple(v, 'wan sync start');
  const kind = jobKind(t, 1);
  return {
    uuid: f.str(t, 0, 'uuid'),
    kind,
    wanRepName: f.str(t, 2, 'wan replication'),
    publisherId: f.str(t, 3, 'publisher id'),
    mapNames: t[4] === null ? undefined : f.strings(t, 4, 'map names'),
    creationTime: f.num(t, 5, 'creation time'),
    participants: f.strings(t, 6, 'participants'),
  };
}

/** One member's part of a sync or consistency check: the job as started (without its uuid), and this member's figures. */
export interface WanJobPart extends Omit<WanSyncStartPayload, 'uuid'> {
  /** Partitions this member took part for, and how many of them are done. */
  readonly partitions: number;
  readonly done: number;
  readonly failure: string | undefined;
  readonly partitionsDiffering: number;
  readonly leavesChecked: number;
  readonly leavesDiffering: number;
  readonly entriesToSync: number;
}

export function encodeWanJobPart(p: WanJobPart | undefined): WireValue {
  if (p === undefined) return null;
  return [
    p.kind,
    p.wanRepName,
    p.publisherId,
    p.mapNames === undefined ? null : (p.mapNames as string[]),
    p.creationTime,
    p.participants as string[],
    p.partitions,
    p.done,
    p.failure ?? null,
    p.partitionsDiffering,
    p.leavesChecked,
    p.leavesDiffering,
    p.entriesToSync,
  ];
}

export function decodeWanJobPart(v: WireValue): WanJobPart | undefined {
  if (v === null) return undefined;
  const t = f.tuple(v, 'wan job');
  return {
    kind: jobKind(t, 0),
    wanRepName: f.str(t, 1, 'wan replication'),
    publisherId: f.str(t, 2, 'publisher id'),
    mapNames: t[3] === null ? undefined : f.strings(t, 3, 'map names'),
    creationTime: f.num(t, 4, 'creation time'),
    participants: f.strings(t, 5, 'participants'),
    partitions: f.int(t, 6, 'partitions'),
    done: f.int(t, 7, 'done'),
    failure: f.optStr(t, 8, 'failure'),
    partitionsDiffering: f.int(t, 9, 'partitions differing'),
    leavesChecked: f.int(t, 10, 'leaves checked'),
    leavesDiffering: f.int(t, 11, 'leaves differing'),
    entriesToSync: f.int(t, 12, 'entries to sync'),
  };
}

// ------------------------------------------------------------------ WanAddConfig (55), WanConfigs (56), WanBackupAck (57)

/** [json of one wan-replication] -> [added ids[], ignored ids[]]. */
export function encodeWanAddAnswer(p: { added: readonly string[]; ignored: readonly string[] }): WireValue {
  return [p.added as string[], p.ignored as string[]];
}

export function decodeWanAddAnswer(v: WireValue): { added: string[]; ignored: string[] } {
  const t = f.tuple(v, 'wan add answer');
  return { added: f.strings(t, 0, 'added'), ignored: f.strings(t, 1, 'ignored') };
}

/**
 * Source -> target on a WAN connection: [heartbeatTimeoutMs] -> null. A liveness probe; the
 * source's timeout travels so the target may tell how long a silent source can be.
 */
export interface WanPingPayload {
  readonly heartbeatTimeoutMs: number;
}

export function encodeWanPing(p: WanPingPayload): WireValue {
  return [p.heartbeatTimeoutMs];
}

export function decodeWanPing(v: WireValue): WanPingPayload {
  const t = f.tuple(v, 'wan ping');
  return { heartbeatTimeoutMs: f.int(t, 0, 'heartbeat timeout') };
}

/** One-way, owner -> backups: [wanRepName, publisherId, [partitionId, throughSequence, ...]]. */
export interface WanBackupAckPayload {
  readonly wanRepName: string;
  readonly publisherId: string;
  readonly acks: readonly (readonly [number, number])[];
}

export function encodeWanBackupAck(p: WanBackupAckPayload): WireValue {
  const flat: number[] = [];
  for (const [pid, through] of p.acks) flat.push(pid, through);
  return [p.wanRepName, p.publisherId, flat];
}

export function decodeWanBackupAck(v: WireValue): WanBackupAckPayload {
  const t = f.tuple(v, 'wan backup ack');
  const flat = f.arr(t, 2, 'acks');
  if (flat.length % 2 !== 0) throw new GridError('BAD_REQUEST', 'malformed member message: wan backup acks');
  const acks: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) acks.push([f.int(flat, i, 'partition id'), f.num(flat, i + 1, 'sequence')]);
  return { wanRepName: f.str(t, 0, 'wan replication'), publisherId: f.str(t, 1, 'publisher id'), acks };
}
