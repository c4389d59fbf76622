// WAN replication of one member: the publishers (event queues + batcher shells + WAN
// connections to the target clusters), the target side that applies other clusters' batches,
// full and delta sync, Merkle consistency checks, and configs added at run time. The rules live
// in the pure cores (event-queue.ts, batcher.ts, merkle-tree.ts); this class does the I/O.

import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError, type GridErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { MERGE_POLICY_NAMES, type GridConfig, type MapConfig, type MergePolicyName, type WanBatchPublisherConfig, type WanReplicationConfig } from '../config/types.js';
import type { MemberInfo } from '../cluster/types.js';
import type { MapService, MapWanIncoming, MapWanSink } from '../map/map-service.js';
import type { StoreObserver, StoredValue } from '../map/record-store.js';
import type { MemberConnection, MemberNet } from '../net/member-net.js';
import { Latin1, type WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeWanAddAnswer,
  decodeWanBackupAck,
  decodeWanBatch,
  decodeWanJobPart,
  decodeWanMerkle,
  decodeWanMerkleAnswer,
  decodeWanPing,
  decodeWanSyncStart,
  encodeWanAddAnswer,
  encodeWanBackupAck,
  encodeWanBatch,
  encodeWanJobPart,
  encodeWanMerkle,
  encodeWanMerkleAnswer,
  encodeWanPing,
  encodeWanSyncStart,
  type WanAuthPayload,
  type WanJobKind,
  type WanJobPart,
  type WanSyncStartPayload,
  type MapWanEvent,
  type WanBatchEvent,
} from '../protocol/wan-payloads.js';
import type { ReplicaData } from '../partition/partition-service.js';
import { PARTITION_COUNT, partitionIdOf } from '../partition/partitioning.js';
import { WanBatcher, type WanBatch, type WanBatcherOutput } from './batcher.js';
import { WanEventQueue, placeEvent, type WanEvent, type WanTicket } from './event-queue.js';
import { MerkleTree, hashValue } from './merkle-tree.js';
import { WanLiveness } from './wan-liveness.js';
import type { WanAddResult, WanConsistencyResult, WanFacade, WanPublisherStatus, WanSyncProgress, WanSyncStage } from './wan-facade.js';
import { parseWanConfigJson, wanConfigToJson } from './wan-config-json.js';

/** What WanService needs of the layers below (a narrow bag, not the member). */
export interface WanDeps {
  readonly config: GridConfig;
  readonly net: MemberNet;
  readonly maps: MapService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly version: string;
  readonly membership: {
    localMember(): MemberInfo;
    members(): readonly MemberInfo[];
    master(): MemberInfo | undefined;
    memberByUuid(uuid: string): MemberInfo | undefined;
  };
  readonly partitions: {
    ownerOf(partitionId: number): string | undefined;
    replicas(partitionId: number): readonly string[];
  };
  /** What this member presents to a target cluster (its member identity when security is on). */
  readonly identity: { readonly username: string; readonly password: string } | undefined;
  /** Checks a WAN peer's identity like a joining member's (security on); undefined when accepted. */
  verifyIdentity(username: string | undefined, password: string | undefined): { code: GridErrorCode; reason: string } | undefined;
}

/** Calls inside the cluster (sync start, status, config) give up after this long. */
const MEMBER_CALL_TIMEOUT_MS = 10_000;
/** How often running syncs and checks look at their partitions. */
const JOB_TICK_MS = 25;
/** Finished jobs kept per member for progress queries. */
const MAX_JOBS_KEPT = 200;
/** Partitions a consistency check compares at once. */
const CHECK_PARALLELISM = 8;
/**
 * Deepest Merkle level two clusters compare (65,536 nodes, 256 KiB per partition): deeper trees
 * are compared at this level, whose differing nodes still narrow a delta sync to their keys.
 * Keeps a check (and a hostile WanMerkle) from moving 2^26 hashes per partition.
 */
export const MAX_COMPARE_LEVEL = 16;
/** Repeated connection failures to one endpoint are logged once per this many attempts. */
const CONNECT_LOG_EVERY = 20;
/** Target side: an inbound WAN connection is reset after twice its source's heartbeat timeout of silence, this timeout clamped to these bounds. */
const INBOUND_MIN_TIMEOUT_MS = 1_000;
const INBOUND_MAX_TIMEOUT_MS = 10 * 60_000;
const INBOUND_SWEEP_MS = 1_000;
/** The shortest dial (TCP connect + WAN handshake) timeout the liveness settings give. */
const MIN_WAN_DIAL_TIMEOUT_MS = 1_000;

/** One WAN connection's liveness watch (heartbeat-timeout-millis > 0). */
interface Watch {
  readonly liveness: WanLiveness;
  timer: TimerHandle | undefined;
  /** The socket's figures at the last sample: bytes read, bytes handed to the kernel, bytes not yet handed. */
  bytesRead: number;
  handed: number;
  backlog: number;
  /** Set when the watch gave the connection up: why. */
  deadReason: string | undefined;
}

/**
 * What the socket has moved so far. `backlog` is what Node and libuv still hold (the kernel's
 * send buffer was full); while it is non-zero, bytes passing into the kernel mean the peer's
 * TCP is acknowledging — progress on a large batch even before anything comes back.
 */
function socketProgress(conn: MemberConnection): { bytesRead: number; handed: number; backlog: number } {
  const s = conn.socket;
  const queued = (s as unknown as { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;
  const backlog = s.writableLength + queued;
  return { bytesRead: s.bytesRead, handed: s.bytesWritten - backlog, backlog };
}

/** A map's Merkle tree, kept by its record store of one partition. */
class MerkleObserver implements StoreObserver {
  constructor(readonly tree: MerkleTree) {}
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    this.tree.update(key, before === undefined ? undefined : hashValue(before.value, before.contentType), after === undefined ? undefined : hashValue(after.value, after.contentType));
  }
  cleared(): void {
    this.tree.clear();
  }
}

class Publisher {
  readonly queue: WanEventQueue;
  readonly batcher: WanBatcher;
  readonly conns = new Map<string, MemberConnection>();
  readonly connectFailures = new Map<string, number>();
  timer: TimerHandle | undefined;
  timerAt = Infinity;
  scheduled = false;
  stopped = false;

  constructor(
    readonly wanRepName: string,
    readonly cfg: WanBatchPublisherConfig,
  ) {
    this.queue = new WanEventQueue({
      capacity: cfg.queueCapacity,
      queueFullBehavior: cfg.queueFullBehavior,
      initialState: cfg.initialPublisherState,
      name: `${wanRepName}/${cfg.publisherId}`,
    });
    this.batcher = new WanBatcher(this.queue, {
      endpoints: cfg.targetEndpoints.map(normaliseEndpoint),
      batchSize: cfg.batchSize,
      batchMaxDelayMillis: cfg.batchMaxDelayMillis,
      responseTimeoutMillis: cfg.responseTimeoutMillis,
      acknowledgeType: cfg.acknowledgeType,
    });
  }

  get id(): string {
    return this.cfg.publisherId;
  }
}

/** One member's part of a sync or consistency check. */
class JobPart {
  readonly partitions: number[];
  done = 0;
  failure: string | undefined;
  cursor = 0;
  /** Partitions whose sync events are queued: the sequence of their last one. */
  readonly pending = new Map<number, number>();
  partitionsDiffering = 0;
  leavesChecked = 0;
  leavesDiffering = 0;
  entriesToSync = 0;
  finished = false;
  checking = 0;

  constructor(
    readonly start: WanSyncStartPayload,
    owned: number[],
  ) {
    this.partitions = owned;
  }

  view(): WanJobPart {
    const s = this.start;
    return {
      kind: s.kind,
      wanRepName: s.wanRepName,
      publisherId: s.publisherId,
      mapNames: s.mapNames,
      creationTime: s.creationTime,
      participants: s.participants,
      partitions: this.partitions.length,
      done: this.done,
      failure: this.failure,
      partitionsDiffering: this.partitionsDiffering,
      leavesChecked: this.leavesChecked,
      leavesDiffering: this.leavesDiffering,
      entriesToSync: this.entriesToSync,
    };
  }
}

/** Differing leaves of one map per partition, from the last consistency check: what a delta sync sends. */
interface DeltaPlan {
  /** The Merkle level the leaves were compared at (the same for every partition of one check). */
  level: number;
  readonly byPartition: Map<number, number[]>;
}

export class WanService implements WanFacade, MapWanSink {
  private readonly deps: WanDeps;
  /** By wan-replication name, then publisher id. */
  private readonly publishers = new Map<string, Map<string, Publisher>>();
  /** Configs added at run time (addWanConfig), as JSON, in order: handed to members that join later. */
  private readonly added: string[] = [];
  private readonly jobs = new Map<string, JobPart>();
  private readonly deltas = new Map<string, DeltaPlan>();
  private jobTimer: TimerHandle | undefined;
  /** Inbound WAN connections whose source probes them (target side), with their silence watch. */
  private readonly inbound = new Map<MemberConnection, { readonly liveness: WanLiveness; bytesRead: number; readonly timeoutMs: number }>();
  private inboundTimer: TimerHandle | undefined;
  private readonly clusterName: string;
  private stopped = false;
  private started = false;

  constructor(deps: WanDeps) {
    this.deps = deps;
    this.clusterName = deps.config.clusterName;
    for (const rep of deps.config.wanReplication) this.addReplication(rep);
  }

  /** Wire into the member: message handlers, the WAN acceptor, membership events. */
  start(): void {
    const net = this.deps.net;
    net.setWanAcceptor({
      clusterName: this.clusterName,
      verify: (hello) => this.verifyPeer(hello),
    });
    net.handleWan(Msg.WanBatch, (p) => this.onBatch(p));
    net.handleWan(Msg.WanMerkle, (p) => this.onMerkle(p));
    // A liveness probe: answered at once, on the connection it came in on, whatever is being applied.
    net.handleWan(Msg.WanPing, (p, from) => {
      this.watchInbound(from, decodeWanPing(p).heartbeatTimeoutMs);
      return null;
    });
    net.handle(Msg.WanSyncStart, (p) => {
      this.startJobPart(decodeWanSyncStart(p));
      return null;
    });
    net.handle(Msg.WanSyncStatus, (p) => encodeWanJobPart(this.jobs.get(f.str(f.tuple(p, 'wan sync status'), 0, 'uuid'))?.view()));
    net.handle(Msg.WanAddConfig, (p) => encodeWanAddAnswer(this.applyAdded(f.str(f.tuple(p, 'wan add config'), 0, 'json'))));
    net.handle(Msg.WanConfigs, (p) => {
      if (f.tuple(p, 'wan configs').length !== 0) throw new GridError('BAD_REQUEST', 'malformed member message: wan configs takes no fields');
      return [...this.added];
    });
    net.handleOneWay(Msg.WanBackupAck, (p) => this.onBackupAck(p));
    this.deps.maps.registerObserverQuery('merkleLevel', (obs, cfg, arg) => this.merkleLevel(obs, cfg, arg));
    this.started = true;
    for (const p of this.allPublishers()) this.kick(p);
  }

  /** This member has joined its cluster: take the WAN configs the cluster added at run time. */
  joined(): void {
    this.fetchAddedConfigs();
  }

  stop(): void {
    this.stopped = true;
    this.jobTimer?.cancel();
    this.inboundTimer?.cancel();
    this.inbound.clear();
    for (const p of this.allPublishers()) {
      p.stopped = true;
      p.timer?.cancel();
      for (const c of p.conns.values()) c.close();
      p.conns.clear();
    }
  }

  // ------------------------------------------------------------------ publishers

  private addReplication(rep: WanReplicationConfig): WanAddResult {
    let byId = this.publishers.get(rep.name);
    if (byId === undefined) this.publishers.set(rep.name, (byId = new Map()));
    const added: string[] = [];
    const ignored: string[] = [];
    for (const cfg of rep.batchPublishers) {
      if (byId.has(cfg.publisherId)) {
        ignored.push(cfg.publisherId);
        continue;
      }
      const p = new Publisher(rep.name, cfg);
      byId.set(cfg.publisherId, p);
      added.push(cfg.publisherId);
      if (this.started) this.kick(p);
    }
    return { addedPublisherIds: added, ignoredPublisherIds: ignored };
  }

  private *allPublishers(): IterableIterator<Publisher> {
    for (const byId of this.publishers.values()) yield* byId.values();
  }

  /** The publisher a REST call names; an empty id picks the replication's only publisher. */
  private resolve(wanRepName: string, publisherId: string): Publisher {
    const byId = this.publishers.get(wanRepName);
    if (byId === undefined) {
      const known = [...this.publishers.keys()];
      throw new GridError('BAD_REQUEST', `unknown WAN replication "${wanRepName}"${known.length > 0 ? ` (configured: ${known.join(', ')})` : ' (none is configured)'}`);
    }
    if (publisherId === '') {
      if (byId.size === 1) return byId.values().next().value as Publisher;
      throw new GridError('BAD_REQUEST', `WAN replication "${wanRepName}" has ${byId.size} publishers: name one of ${[...byId.keys()].join(', ')}`);
    }
    const p = byId.get(publisherId);
    if (p === undefined) throw new GridError('BAD_REQUEST', `unknown WAN publisher "${publisherId}" in replication "${wanRepName}" (publishers: ${[...byId.keys()].join(', ')})`);
    return p;
  }

  /** The publishers a map's mutations go to (none when it has no wan-replication-ref). */
  private publishersOf(mapName: string): Iterable<Publisher> {
    const ref = this.deps.maps.configOf(mapName).wanReplicationRef;
    if (ref === undefined) return [];
    return this.publishers.get(ref.name)?.values() ?? [];
  }

  /** Run the batcher now (coalesced: once per turn of the event loop however many events came). */
  private kick(p: Publisher): void {
    if (p.scheduled || p.stopped) return;
    p.scheduled = true;
    setImmediate(() => {
      p.scheduled = false;
      if (!p.stopped) this.act(p, p.batcher.eventsQueued(this.deps.clock.now()));
    });
  }

  private act(p: Publisher, outs: readonly WanBatcherOutput[]): void {
    let acks: Map<string, [number, number][]> | undefined;
    for (const o of outs) {
      switch (o.type) {
        case 'send':
          this.send(p, o.batch);
          break;
        case 'connect':
          this.connect(p, o.endpoint);
          break;
        case 'endpoint-dropped': {
          this.deps.logger.warn({ publisher: `${p.wanRepName}/${p.id}`, endpoint: o.endpoint }, `WAN endpoint ${o.endpoint} dropped: ${o.reason}; its partitions go to the next endpoint`);
          const c = p.conns.get(o.endpoint);
          p.conns.delete(o.endpoint);
          c?.close();
          break;
        }
        case 'released': {
          // The target has these events: the partition's backups may forget them too.
          for (const uuid of this.deps.partitions.replicas(o.partitionId).slice(1)) {
            const address = this.deps.membership.memberByUuid(uuid)?.address;
            if (address === undefined) continue;
            acks ??= new Map();
            let list = acks.get(address);
            if (list === undefined) acks.set(address, (list = []));
            list.push([o.partitionId, o.throughSequence]);
          }
          break;
        }
        case 'timer':
          this.schedule(p, o.atMs);
          break;
      }
    }
    if (acks !== undefined) {
      for (const [address, list] of acks) this.deps.net.oneWay(address, Msg.WanBackupAck, encodeWanBackupAck({ wanRepName: p.wanRepName, publisherId: p.id, acks: list }));
    }
  }

  private schedule(p: Publisher, atMs: number | undefined): void {
    const at = atMs ?? Infinity;
    if (at === p.timerAt && p.timer !== undefined) return;
    p.timer?.cancel();
    p.timer = undefined;
    p.timerAt = at;
    if (at === Infinity || p.stopped) return;
    p.timer = this.deps.clock.setTimeout(
      () => {
        p.timer = undefined;
        p.timerAt = Infinity;
        if (!p.stopped) this.act(p, p.batcher.timerFired(this.deps.clock.now()));
      },
      Math.max(0, at - this.deps.clock.now()),
    );
  }

  private connect(p: Publisher, endpoint: string): void {
    const me = this.deps.membership.localMember();
    const hello: WanAuthPayload = {
      sourceCluster: this.clusterName,
      targetCluster: p.cfg.clusterName,
      uuid: me.uuid,
      address: me.address,
      username: this.deps.identity?.username,
      password: this.deps.identity?.password,
      version: this.deps.version,
    };
    const cfg = p.cfg;
    // With liveness on, a dial gets about two probe intervals: a SYN into a dead link is given
    // up (and tried again after the backoff) well before TCP's own retries would space out.
    const dialTimeoutMs = cfg.heartbeatTimeoutMillis === 0 ? undefined : Math.min(cfg.heartbeatTimeoutMillis, Math.max(MIN_WAN_DIAL_TIMEOUT_MS, 2 * cfg.heartbeatIntervalMillis));
    this.deps.net.dialWan(endpoint, hello, dialTimeoutMs).then(
      (conn) => {
        if (p.stopped) {
          conn.close();
          return;
        }
        p.conns.get(endpoint)?.close();
        p.conns.set(endpoint, conn);
        const downFor = p.connectFailures.has(endpoint) ? ` after ${p.connectFailures.get(endpoint)} failed attempts` : '';
        p.connectFailures.delete(endpoint);
        this.deps.logger.info({ publisher: `${p.wanRepName}/${p.id}`, endpoint }, `WAN publisher ${p.wanRepName}/${p.id} connected to ${endpoint} (cluster "${p.cfg.clusterName}")${downFor}`);
        const watch = this.watch(p, endpoint, conn);
        conn.onClose(() => {
          watch?.timer?.cancel();
          if (p.conns.get(endpoint) !== conn) return;
          p.conns.delete(endpoint);
          const dead = watch?.deadReason;
          if (!p.stopped) this.act(p, p.batcher.endpointDown(endpoint, this.deps.clock.now(), dead ?? 'connection lost', dead === undefined ? 'connection-lost' : 'heartbeat-timeout'));
        });
        this.act(p, p.batcher.endpointUp(endpoint, this.deps.clock.now()));
      },
      (e: unknown) => {
        if (p.stopped) return;
        const n = (p.connectFailures.get(endpoint) ?? 0) + 1;
        p.connectFailures.set(endpoint, n);
        if (n === 1 || n % CONNECT_LOG_EVERY === 0) {
          this.deps.logger.warn({ publisher: `${p.wanRepName}/${p.id}`, endpoint, attempts: n }, `WAN publisher ${p.wanRepName}/${p.id} cannot connect to ${endpoint}: ${describeError(e)} (events stay queued)`);
        }
        this.act(p, p.batcher.endpointDown(endpoint, this.deps.clock.now(), describeError(e)));
      },
    );
  }

  /**
   * Watch a new WAN connection (idle or with a batch in flight alike): probe it when it has been
   * silent for heartbeat-interval-millis, and reset it when nothing at all has come back for
   * heartbeat-timeout-millis — its close then fails the batch in flight, which the batcher sends
   * again, from each partition's oldest event, on the next connection (the rules: wan-liveness.ts).
   */
  private watch(p: Publisher, endpoint: string, conn: MemberConnection): Watch | undefined {
    const cfg = p.cfg;
    if (cfg.heartbeatTimeoutMillis === 0) return undefined;
    const clock = this.deps.clock;
    const w: Watch = {
      liveness: new WanLiveness({ intervalMs: cfg.heartbeatIntervalMillis, timeoutMs: cfg.heartbeatTimeoutMillis }, clock.now()),
      timer: undefined,
      ...socketProgress(conn),
      deadReason: undefined,
    };
    const ping = encodeWanPing({ heartbeatTimeoutMs: cfg.heartbeatTimeoutMillis });
    const probe = (): void => {
      conn.request(Msg.WanPing, ping, cfg.heartbeatTimeoutMillis).then(
        () => w.liveness.heard(clock.now()),
        () => undefined, // an unanswered probe is what the timeout counts
      );
    };
    // One probe at once: it tells the target this connection's timeout (it then resets the
    // connection if it goes silent), even when batches keep it busy and no probe would be due.
    probe();
    const tick = (): void => {
      w.timer = undefined;
      if (conn.closed || p.stopped) return;
      const now = clock.now();
      const seen = socketProgress(conn);
      if (seen.bytesRead !== w.bytesRead || (w.backlog > 0 && seen.handed > w.handed)) w.liveness.heard(now);
      Object.assign(w, seen);
      const v = w.liveness.check(now);
      if (v.type === 'dead') {
        w.deadReason = `nothing came back from ${endpoint} for ${v.silentForMs} ms (heartbeat-timeout-millis ${cfg.heartbeatTimeoutMillis})`;
        this.deps.logger.warn(
          { publisher: `${p.wanRepName}/${p.id}`, endpoint, silentMs: v.silentForMs },
          `WAN connection of ${p.wanRepName}/${p.id} to ${endpoint} is dead: ${w.deadReason}; closing it and reconnecting (a batch in flight is sent again)`,
        );
        conn.reset();
        return;
      }
      if (v.probe) probe();
      w.timer = clock.setTimeout(tick, Math.max(1, v.wakeAtMs - now));
    };
    tick();
    return w;
  }

  /**
   * Target side: a source that probes its connection has told its heartbeat timeout; a
   * connection from it silent for twice that is half-open (the source gave it up and its reset
   * was lost on the cut link), so it is reset here too rather than held until the operating
   * system gives it up. Connections whose source never probes are left alone.
   */
  private watchInbound(conn: MemberConnection, heartbeatTimeoutMs: number): void {
    if (this.inbound.has(conn) || conn.closed || !(heartbeatTimeoutMs > 0)) return;
    const t = Math.min(Math.max(heartbeatTimeoutMs, INBOUND_MIN_TIMEOUT_MS), INBOUND_MAX_TIMEOUT_MS);
    this.inbound.set(conn, { liveness: new WanLiveness({ intervalMs: t, timeoutMs: 2 * t }, this.deps.clock.now()), bytesRead: conn.socket.bytesRead, timeoutMs: 2 * t });
    conn.onClose(() => this.inbound.delete(conn));
    this.inboundTimer ??= this.deps.clock.setInterval(() => this.sweepInbound(), INBOUND_SWEEP_MS);
  }

  private sweepInbound(): void {
    const now = this.deps.clock.now();
    for (const [conn, w] of this.inbound) {
      if (conn.closed) {
        this.inbound.delete(conn);
        continue;
      }
      const read = conn.socket.bytesRead;
      if (read !== w.bytesRead) {
        w.bytesRead = read;
        w.liveness.heard(now);
      }
      const v = w.liveness.check(now); // its probe flag means nothing here: the target never probes
      if (v.type === 'dead') {
        this.inbound.delete(conn);
        this.deps.logger.info(
          { remote: conn.describe(), source: conn.wanCluster },
          `WAN connection from cluster "${conn.wanCluster ?? '?'}" (${conn.describe()}) closed: nothing received for ${v.silentForMs} ms (twice its heartbeat timeout)`,
        );
        conn.reset();
      }
    }
    if (this.inbound.size === 0 && this.inboundTimer !== undefined) {
      this.inboundTimer.cancel();
      this.inboundTimer = undefined;
    }
  }

  private send(p: Publisher, batch: WanBatch): void {
    const conn = p.conns.get(batch.endpoint);
    const now = this.deps.clock.now();
    if (conn === undefined || conn.closed) {
      queueMicrotask(() => this.act(p, p.batcher.failed(batch.id, this.deps.clock.now(), 'no connection')));
      return;
    }
    const events: WanBatchEvent[] = new Array<WanBatchEvent>(batch.events.length);
    for (let i = 0; i < batch.events.length; i++) events[i] = this.toWire(batch.events[i] as WanEvent, now);
    conn
      .request(Msg.WanBatch, encodeWanBatch({ sourceCluster: this.clusterName, ackOnReceipt: batch.acknowledgeType === 'ACK_ON_RECEIPT', events }), p.cfg.responseTimeoutMillis + 1_000)
      .then(
        () => {
          if (!p.stopped) this.act(p, p.batcher.acknowledged(batch.id, this.deps.clock.now()));
        },
        (e: unknown) => {
          if (p.stopped) return;
          this.deps.logger.warn({ publisher: `${p.wanRepName}/${p.id}`, endpoint: batch.endpoint }, `WAN batch of ${batch.events.length} events to ${batch.endpoint} failed: ${describeError(e)} (will be sent again)`);
          this.act(p, p.batcher.failed(batch.id, this.deps.clock.now(), describeError(e)));
        },
      );
  }

  private toWire(e: WanEvent, now: number): WanBatchEvent {
    const policy = this.deps.maps.configOf(e.mapName).wanReplicationRef?.mergePolicyClassName ?? 'PassThroughMergePolicy';
    if (e.kind === 'remove') {
      return { mapName: e.mapName, kind: 'remove', key: e.key, value: '', contentType: undefined, ttlRemainingMs: undefined, mergePolicy: policy, originClusters: e.originClusters, stats: undefined };
    }
    // TTL travels as the time left now, not when the event was queued.
    const ttl = e.ttlRemainingMs === undefined ? undefined : Math.max(1, e.ttlRemainingMs - (now - e.enqueuedAtMs));
    return {
      mapName: e.mapName,
      kind: 'put',
      key: e.key,
      value: e.value,
      contentType: e.contentType,
      ttlRemainingMs: ttl,
      mergePolicy: policy,
      originClusters: e.originClusters,
      stats: e.stats === undefined ? undefined : { creationTime: e.stats.creationTime, lastUpdateTime: e.stats.lastUpdateTime, lastAccessTime: e.stats.lastAccessTime, hits: e.stats.hits },
    };
  }

  // ------------------------------------------------------------------ MapWanSink (map mutations in)

  admit(mapName: string, partitionId: number): unknown {
    let tickets: [Publisher, WanTicket][] | undefined;
    for (const p of this.publishersOf(mapName)) {
      if (p.cfg.clusterName === this.clusterName) continue;
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
    const now = this.deps.clock.now();
    const payload = this.payloadOf(event);
    const seqs: WireValue[] = [];
    for (const [p, t] of tickets as [Publisher, WanTicket][]) {
      const queued = p.queue.commit(t, payload, now);
      if (queued === undefined) continue;
      seqs.push(p.wanRepName, p.id, queued.sequence);
      this.kick(p);
    }
    return seqs.length === 0 ? null : seqs;
  }

  cancel(tickets: unknown): void {
    for (const [p, t] of tickets as [Publisher, WanTicket][]) p.queue.cancel(t);
  }

  offer(partitionId: number, event: MapWanEvent): WireValue {
    const now = this.deps.clock.now();
    const payload = this.payloadOf(event);
    const seqs: WireValue[] = [];
    for (const p of this.publishersOf(event.mapName)) {
      // Never back to a cluster the mutation has passed through (active-active, rings).
      if (payload.originClusters.includes(p.cfg.clusterName)) continue;
      const queued = p.queue.offer(partitionId, payload, now);
      if (queued === undefined) continue;
      seqs.push(p.wanRepName, p.id, queued.sequence);
      this.kick(p);
    }
    return seqs.length === 0 ? null : seqs;
  }

  backup(partitionId: number, event: MapWanEvent, seqs: WireValue): void {
    if (!Array.isArray(seqs)) return;
    const now = this.deps.clock.now();
    let payload: MapWanEvent | undefined;
    for (let i = 0; i + 2 < seqs.length; i += 3) {
      const p = this.publishers.get(f.str(seqs, i, 'wan replication'))?.get(f.str(seqs, i + 1, 'publisher id'));
      if (p === undefined) continue;
      payload ??= this.payloadOf(event);
      p.queue.pushBackup(placeEvent(payload, partitionId, f.num(seqs, i + 2, 'sequence'), now));
    }
  }

  newObserver(config: MapConfig): StoreObserver | undefined {
    return config.merkleTree.enabled ? new MerkleObserver(new MerkleTree(config.merkleTree.depth)) : undefined;
  }

  /** The queued form of a map mutation: this cluster joins the clusters it has passed through. */
  private payloadOf(event: MapWanEvent): MapWanEvent {
    const originClusters = event.originClusters.includes(this.clusterName) ? event.originClusters : [...event.originClusters, this.clusterName];
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

  private onBackupAck(payload: WireValue): void {
    const a = decodeWanBackupAck(payload);
    const p = this.publishers.get(a.wanRepName)?.get(a.publisherId);
    if (p === undefined) return;
    for (const [pid, through] of a.acks) {
      // Only the partition's owner releases backup events.
      if (pid >= 0 && pid < PARTITION_COUNT) p.queue.acknowledgeBackup(pid, through);
    }
  }

  // ------------------------------------------------------------------ the event queues as partition data

  readonly replicaData: ReplicaData = {
    name: 'wan',
    snapshot: (pid: number): WireValue | undefined => {
      const role = this.deps.partitions.ownerOf(pid) === this.deps.membership.localMember().uuid ? 'primary' : 'backup';
      const out: WireValue[] = [];
      for (const p of this.allPublishers()) {
        const snap = p.queue.snapshot(pid, role);
        if (snap.events.length === 0 && snap.nextSequence === 1) continue;
        const events: WireValue[] = [];
        for (const e of snap.events) events.push(e.sequence, e.enqueuedAtMs, this.encodeQueued(e));
        out.push([p.wanRepName, p.id, snap.nextSequence, events]);
      }
      return out.length === 0 ? undefined : out;
    },
    install: (pid: number, data: WireValue | undefined): void => {
      // Copies arrive before the table that makes this member their owner: they are backups
      // until ownershipGained promotes them.
      const role = this.deps.partitions.ownerOf(pid) === this.deps.membership.localMember().uuid ? 'primary' : 'backup';
      for (const p of this.allPublishers()) p.queue.removePartition(pid, role);
      if (data === undefined) return;
      for (const item of f.tuple(data, 'wan data')) {
        const t = f.tuple(item, 'wan queue');
        const p = this.publishers.get(f.str(t, 0, 'wan replication'))?.get(f.str(t, 1, 'publisher id'));
        if (p === undefined) continue;
        const flat = f.arr(t, 3, 'events');
        const events: WanEvent[] = [];
        for (let i = 0; i + 2 < flat.length; i += 3) {
          events.push(placeEvent(this.decodeQueued(flat[i + 2] ?? null), pid, f.num(flat, i, 'sequence'), f.num(flat, i + 1, 'enqueued at')));
        }
        p.queue.install({ partitionId: pid, nextSequence: f.num(t, 2, 'next sequence'), events }, role);
        if (role === 'primary') this.kick(p);
      }
    },
    drop: (pid: number): void => {
      for (const p of this.allPublishers()) {
        p.queue.removePartition(pid, 'primary');
        p.queue.removePartition(pid, 'backup');
      }
    },
    ownershipLost: (pid: number): void => {
      for (const p of this.allPublishers()) p.queue.demote(pid);
    },
    ownershipGained: (pid: number): void => {
      for (const p of this.allPublishers()) {
        p.queue.promote(pid);
        this.kick(p);
      }
    },
    trim: (): void => undefined,
  };

  private encodeQueued(e: MapWanEvent): WireValue {
    if (e.kind === 'remove') return [1, e.mapName, e.key, e.originClusters as string[]];
    const s = e.stats;
    return [0, e.mapName, e.key, e.originClusters as string[], new Latin1(e.value), e.contentType ?? null, e.ttlRemainingMs ?? -1, s === undefined ? null : [s.creationTime, s.lastUpdateTime, s.lastAccessTime, s.hits]];
  }

  private decodeQueued(v: WireValue): MapWanEvent {
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

  // ------------------------------------------------------------------ target side

  private verifyPeer(hello: WanAuthPayload): { code: GridErrorCode; reason: string } | undefined {
    if (hello.targetCluster !== this.clusterName) {
      return { code: 'FORBIDDEN', reason: `the publisher targets cluster "${hello.targetCluster}" but this is cluster "${this.clusterName}"` };
    }
    if (hello.sourceCluster === this.clusterName) {
      return { code: 'FORBIDDEN', reason: `the publisher's own cluster is named "${hello.sourceCluster}" too: a cluster does not replicate to itself` };
    }
    return this.deps.verifyIdentity(hello.username, hello.password);
  }

  private onBatch(payload: WireValue): WireValue | Promise<WireValue> {
    const batch = decodeWanBatch(payload);
    // One operation per map and partition, events in their order: per-key order holds.
    const groups = new Map<string, { pid: number; mapName: string; entries: MapWanIncoming[] }>();
    for (const e of batch.events) {
      const pid = partitionIdOf(e.key);
      const id = `${pid}\u0000${e.mapName}`;
      let g = groups.get(id);
      if (g === undefined) groups.set(id, (g = { pid, mapName: e.mapName, entries: [] }));
      g.entries.push({
        kind: e.kind,
        key: e.key,
        value: e.value,
        contentType: e.contentType,
        ttlRemainingMs: e.ttlRemainingMs,
        stats: e.stats,
        mergePolicy: mergePolicyOf(e.mergePolicy),
        originClusters: e.originClusters,
      });
    }
    const work = Promise.all([...groups.values()].map((g) => this.deps.maps.applyWan(g.pid, g.mapName, g.entries)));
    if (batch.ackOnReceipt) {
      work.catch((e: unknown) => this.deps.logger.warn({ source: batch.sourceCluster }, `WAN batch from cluster "${batch.sourceCluster}" not fully applied: ${describeError(e)}`));
      return batch.events.length;
    }
    return work.then((counts) => counts.reduce((a, b) => a + b, 0));
  }

  private onMerkle(payload: WireValue): Promise<WireValue> | WireValue {
    const q = decodeWanMerkle(payload);
    if (q.partitionId < 0 || q.partitionId >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${q.partitionId}`);
    const cfg = this.deps.maps.configOf(q.mapName);
    if (!cfg.merkleTree.enabled) throw new GridError('BAD_REQUEST', `map "${q.mapName}" has no merkle-tree enabled on cluster "${this.clusterName}"`);
    return this.deps.maps.queryObserver(q.partitionId, q.mapName, 'merkleLevel', q.level);
  }

  /** At the partition's owner: the hashes of one level of the map's Merkle tree (empty tree when the map has no entries here). */
  private merkleLevel(obs: StoreObserver | undefined, cfg: MapConfig, arg: WireValue): WireValue {
    const leafLevel = obs instanceof MerkleObserver ? obs.tree.leafLevel : cfg.merkleTree.depth - 1;
    const asked = typeof arg === 'number' && Number.isInteger(arg) ? arg : leafLevel;
    const level = Math.max(0, Math.min(asked, leafLevel, MAX_COMPARE_LEVEL));
    // No store here: an empty tree's hashes are zeros (no tree is built for them).
    const hashes = obs instanceof MerkleObserver ? obs.tree.levelHashes(level) : new Int32Array(2 ** level);
    return encodeWanMerkleAnswer({ level, hashes });
  }

  // ------------------------------------------------------------------ REST facade: this member only

  pausePublisher(wanRepName: string, publisherId: string): void {
    const p = this.resolve(wanRepName, publisherId);
    p.queue.setState('PAUSED');
    this.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id} paused`);
  }

  resumePublisher(wanRepName: string, publisherId: string): void {
    const p = this.resolve(wanRepName, publisherId);
    p.queue.setState('REPLICATING');
    this.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id} resumed`);
    this.kick(p);
  }

  stopPublisher(wanRepName: string, publisherId: string): void {
    const p = this.resolve(wanRepName, publisherId);
    p.queue.setState('STOPPED');
    this.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id} stopped`);
  }

  clearQueues(wanRepName: string, publisherId: string): void {
    const p = this.resolve(wanRepName, publisherId);
    const n = p.queue.clear();
    this.deps.logger.info(`WAN publisher ${p.wanRepName}/${p.id}: ${n} queued events cleared`);
  }

  status(): WanPublisherStatus[] {
    const now = this.deps.clock.now();
    const out: WanPublisherStatus[] = [];
    for (const p of this.allPublishers()) {
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

  // ------------------------------------------------------------------ sync and consistency checks (cluster-wide)

  async startSync(wanRepName: string, publisherId: string, mapName: string | undefined): Promise<string> {
    const p = this.resolve(wanRepName, publisherId);
    if (mapName !== undefined) this.checkMapPublishes(mapName, wanRepName);
    if (p.queue.state === 'STOPPED') throw new GridError('BAD_REQUEST', `WAN publisher ${p.wanRepName}/${p.id} is STOPPED on this member: resume it before a sync`);
    return this.startJob('sync', p, mapName === undefined ? undefined : [mapName]);
  }

  async startConsistencyCheck(wanRepName: string, publisherId: string, mapName: string): Promise<string> {
    const p = this.resolve(wanRepName, publisherId);
    if (p.cfg.consistencyCheckStrategy !== 'MERKLE_TREES') {
      throw new GridError('BAD_REQUEST', `WAN publisher ${p.wanRepName}/${p.id} has consistency-check-strategy ${p.cfg.consistencyCheckStrategy}: set sync/consistency-check-strategy MERKLE_TREES for consistency checks`);
    }
    this.checkMapPublishes(mapName, wanRepName);
    if (!this.deps.maps.configOf(mapName).merkleTree.enabled) throw new GridError('BAD_REQUEST', `map "${mapName}" has no merkle-tree enabled`);
    return this.startJob('check', p, [mapName]);
  }

  private checkMapPublishes(mapName: string, wanRepName: string): void {
    if (mapName === '') throw new GridError('BAD_REQUEST', 'mapName is empty');
    if (this.deps.maps.configOf(mapName).wanReplicationRef?.name !== wanRepName) {
      throw new GridError('BAD_REQUEST', `map "${mapName}" does not publish to WAN replication "${wanRepName}" (no wan-replication-ref to it)`);
    }
  }

  private async startJob(kind: WanJobKind, p: Publisher, mapNames: string[] | undefined): Promise<string> {
    const uuid = randomUUID();
    const members = this.deps.membership.members().filter((m) => !m.liteMember);
    const start: WanSyncStartPayload = { uuid, kind, wanRepName: p.wanRepName, publisherId: p.id, mapNames, creationTime: this.deps.clock.now(), participants: members.map((m) => m.uuid) };
    const me = this.deps.membership.localMember().uuid;
    const payload = encodeWanSyncStart(start);
    const calls = members.map((m) =>
      m.uuid === me
        ? Promise.resolve(this.startJobPart(start))
        : this.deps.net.request(m.address, Msg.WanSyncStart, payload, MEMBER_CALL_TIMEOUT_MS).catch((e: unknown) => {
            this.deps.logger.warn({ uuid, member: m.address }, `WAN ${kind} ${uuid} could not start on ${m.address}: ${describeError(e)}`);
          }),
    );
    if (!members.some((m) => m.uuid === me)) this.startJobPart(start);
    await Promise.all(calls);
    this.deps.logger.info({ uuid, publisher: `${p.wanRepName}/${p.id}`, maps: mapNames ?? 'all' }, `WAN ${kind === 'sync' ? 'sync' : 'consistency check'} ${uuid} started on ${members.length} member(s)`);
    return uuid;
  }

  /** This member's part: the partitions it owns now. */
  private startJobPart(start: WanSyncStartPayload): void {
    if (this.jobs.has(start.uuid)) return;
    const me = this.deps.membership.localMember().uuid;
    const owned: number[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) if (this.deps.partitions.ownerOf(pid) === me) owned.push(pid);
    const part = new JobPart(start, owned);
    const p = this.publishers.get(start.wanRepName)?.get(start.publisherId);
    if (p === undefined) part.failure = `WAN publisher ${start.wanRepName}/${start.publisherId} is not configured on member ${this.deps.membership.localMember().address}`;
    else if (start.kind === 'sync' && p.queue.state === 'STOPPED') part.failure = `WAN publisher ${start.wanRepName}/${start.publisherId} is STOPPED on member ${this.deps.membership.localMember().address}`;
    this.jobs.set(start.uuid, part);
    this.pruneJobs();
    if (part.failure !== undefined) {
      part.finished = true;
      return;
    }
    this.jobTimer ??= this.deps.clock.setInterval(() => this.tickJobs(), JOB_TICK_MS);
    this.tickJobs();
  }

  private pruneJobs(): void {
    if (this.jobs.size <= MAX_JOBS_KEPT) return;
    for (const [uuid, j] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS_KEPT) break;
      if (j.finished) this.jobs.delete(uuid);
    }
  }

  private tickJobs(): void {
    let active = 0;
    for (const job of this.jobs.values()) {
      if (job.finished) continue;
      active++;
      try {
        if (job.start.kind === 'sync') this.advanceSync(job);
        else this.advanceCheck(job);
      } catch (e) {
        job.failure = describeError(e);
        job.finished = true;
      }
    }
    if (active === 0 && this.jobTimer !== undefined) {
      this.jobTimer.cancel();
      this.jobTimer = undefined;
    }
  }

  /**
   * Queue the entries of one partition after another (not limited by queue-capacity, but
   * paced by it: a next partition is queued only while the queue has room), and count a
   * partition done when the target has acknowledged its last sync event.
   */
  private advanceSync(job: JobPart): void {
    const s = job.start;
    const p = this.publishers.get(s.wanRepName)?.get(s.publisherId);
    if (p === undefined) throw new GridError('INTERNAL', 'publisher gone');
    const me = this.deps.membership.localMember().uuid;
    for (const [pid, last] of job.pending) {
      const first = p.queue.peek(pid, 1)[0];
      // Done when acknowledged; a partition that moved took its queue (and the sync events) along.
      if (first === undefined || first.sequence > last || this.deps.partitions.ownerOf(pid) !== me) {
        job.pending.delete(pid);
        job.done++;
      }
    }
    const maps = s.mapNames ?? this.deps.maps.mapsPublishingTo(s.wanRepName);
    const now = this.deps.clock.now();
    while (job.cursor < job.partitions.length && p.queue.size < p.queue.capacity) {
      const pid = job.partitions[job.cursor++] as number;
      if (this.deps.partitions.ownerOf(pid) !== me) {
        job.done++;
        continue;
      }
      let last = -1;
      for (const mapName of maps) {
        const keep = this.deltaFilter(s, mapName, pid);
        if (keep === false) continue;
        for (const e of this.deps.maps.syncEvents(pid, mapName, keep)) {
          last = p.queue.pushSync(pid, this.payloadOf(e), now).sequence;
        }
      }
      if (last < 0) job.done++;
      else {
        job.pending.set(pid, last);
        this.kick(p);
      }
    }
    if (job.cursor >= job.partitions.length && job.pending.size === 0) {
      job.finished = true;
      // A delta plan is used once.
      for (const mapName of maps) this.deltas.delete(deltaKey(s.wanRepName, s.publisherId, mapName));
      this.deps.logger.info({ uuid: s.uuid }, `WAN sync ${s.uuid}: this member's ${job.partitions.length} partitions are done`);
    }
  }

  /** undefined: send the whole partition; false: nothing differs there; else the keys of differing leaves. */
  private deltaFilter(s: WanSyncStartPayload, mapName: string, pid: number): ((key: string) => boolean) | undefined | false {
    const plan = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
    if (plan === undefined) return undefined;
    const leaves = plan.byPartition.get(pid);
    if (leaves === undefined) return undefined;
    if (leaves.length === 0) return false;
    const tree = this.treeOf(pid, mapName);
    return tree.keyFilter(leaves, plan.level);
  }

  private treeOf(pid: number, mapName: string): MerkleTree {
    const obs = this.deps.maps.observerOf(pid, mapName);
    return obs instanceof MerkleObserver ? obs.tree : new MerkleTree(this.deps.maps.configOf(mapName).merkleTree.depth);
  }

  private advanceCheck(job: JobPart): void {
    const s = job.start;
    const p = this.publishers.get(s.wanRepName)?.get(s.publisherId);
    const mapName = s.mapNames?.[0];
    if (p === undefined || mapName === undefined) throw new GridError('INTERNAL', 'consistency check without publisher or map');
    let plan = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
    if (job.cursor === 0 && job.checking === 0) {
      plan = { level: 0, byPartition: new Map() };
      this.deltas.set(deltaKey(s.wanRepName, s.publisherId, mapName), plan);
    }
    while (job.checking < CHECK_PARALLELISM && job.cursor < job.partitions.length && job.failure === undefined) {
      const pid = job.partitions[job.cursor++] as number;
      job.checking++;
      this.checkPartition(p, mapName, pid).then(
        (r) => {
          job.checking--;
          job.done++;
          job.leavesChecked += r.checked;
          if (r.leaves.length > 0) {
            job.partitionsDiffering++;
            job.leavesDiffering += r.leaves.length;
            job.entriesToSync += r.entries;
          }
          const current = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
          if (current !== undefined) {
            current.byPartition.set(pid, r.leaves);
            current.level = r.level;
          }
          // The next partition starts now, not at the next tick.
          if (!job.finished) this.advanceCheck(job);
        },
        (e: unknown) => {
          job.checking--;
          job.failure ??= describeError(e);
          this.finishCheck(job);
        },
      );
    }
    this.finishCheck(job);
  }

  private finishCheck(job: JobPart): void {
    if (job.finished || job.checking > 0) return;
    if (job.failure !== undefined || job.cursor >= job.partitions.length) {
      job.finished = true;
      const s = job.start;
      if (job.failure !== undefined) {
        this.deltas.delete(deltaKey(s.wanRepName, s.publisherId, s.mapNames?.[0] ?? ''));
        this.deps.logger.warn({ uuid: s.uuid }, `WAN consistency check ${s.uuid} failed: ${job.failure}`);
      }
    }
  }

  /** Compare one partition's tree with the target's: the differing nodes at the deepest level both have. */
  private async checkPartition(p: Publisher, mapName: string, pid: number): Promise<{ level: number; leaves: number[]; checked: number; entries: number }> {
    const endpoint = p.batcher.endpointOf(pid);
    const conn = endpoint === undefined ? undefined : p.conns.get(endpoint);
    if (conn === undefined || conn.closed) throw new GridError('MEMBER_UNREACHABLE', `no connection to the target cluster "${p.cfg.clusterName}" for partition ${pid}`);
    const tree = this.treeOf(pid, mapName);
    const wanted = Math.min(tree.leafLevel, MAX_COMPARE_LEVEL);
    const answer = decodeWanMerkleAnswer(await conn.request(Msg.WanMerkle, encodeWanMerkle({ mapName, partitionId: pid, level: wanted }), p.cfg.responseTimeoutMillis));
    if (answer.level > wanted || answer.hashes.length !== 2 ** answer.level) throw new GridError('BAD_REQUEST', `target answered a Merkle level ${answer.level} with ${answer.hashes.length} hashes`);
    const mine = tree.levelHashes(answer.level);
    const leaves: number[] = [];
    let entries = 0;
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== answer.hashes[i]) {
        leaves.push(i);
        entries += tree.nodeEntryCount(answer.level, i);
      }
    }
    return { level: answer.level, leaves, checked: mine.length, entries };
  }

  async syncProgress(uuid: string): Promise<WanSyncProgress> {
    const r = await this.gather(uuid);
    return { stage: r.stage, progress: r.progress, wanReplicationName: r.first.wanRepName, wanPublisherId: r.first.publisherId, creationTime: r.first.creationTime };
  }

  async consistencyResult(uuid: string): Promise<WanConsistencyResult> {
    const r = await this.gather(uuid);
    if (r.first.kind !== 'check') throw new GridError('NOT_FOUND', `WAN job ${uuid} is a sync, not a consistency check (see wan/sync/progress/${uuid})`);
    let partitionsDiffering = 0;
    let leavesChecked = 0;
    let leavesDiffering = 0;
    let entriesToSync = 0;
    for (const p of r.parts) {
      partitionsDiffering += p.partitionsDiffering;
      leavesChecked += p.leavesChecked;
      leavesDiffering += p.leavesDiffering;
      entriesToSync += p.entriesToSync;
    }
    return {
      stage: r.stage,
      wanReplicationName: r.first.wanRepName,
      wanPublisherId: r.first.publisherId,
      mapName: r.first.mapNames?.[0] ?? '',
      creationTime: r.first.creationTime,
      partitionsChecked: r.done,
      partitionsDiffering,
      leavesChecked,
      leavesDiffering,
      entriesToSync,
      ...(r.failure === undefined ? {} : { failure: r.failure }),
    };
  }

  /** Every member's part of the job: the same answer whichever member is asked. */
  private async gather(uuid: string): Promise<{ first: WanJobPart; parts: WanJobPart[]; stage: WanSyncStage; progress: number; done: number; failure: string | undefined }> {
    const me = this.deps.membership.localMember().uuid;
    const members = this.deps.membership.members();
    const asked = await Promise.all(
      members.map((m) =>
        m.uuid === me
          ? Promise.resolve({ uuid: m.uuid, part: this.jobs.get(uuid)?.view(), error: undefined as string | undefined })
          : this.deps.net.request(m.address, Msg.WanSyncStatus, [uuid], MEMBER_CALL_TIMEOUT_MS).then(
              (v) => ({ uuid: m.uuid, part: decodeWanJobPart(v), error: undefined as string | undefined }),
              (e: unknown) => ({ uuid: m.uuid, part: undefined, error: describeError(e) }),
            ),
      ),
    );
    if (!members.some((m) => m.uuid === me)) asked.push({ uuid: me, part: this.jobs.get(uuid)?.view(), error: undefined });
    const parts = asked.filter((a) => a.part !== undefined).map((a) => a.part as WanJobPart);
    const first = parts[0];
    if (first === undefined) throw new GridError('NOT_FOUND', `no WAN sync or consistency check with uuid ${uuid}`);
    let failure: string | undefined;
    for (const p of parts) failure ??= p.failure;
    for (const uuidOf of first.participants) {
      const a = asked.find((x) => x.uuid === uuidOf);
      if (a === undefined) failure ??= `member ${uuidOf} left the cluster before its part was done`;
      else if (a.part === undefined) failure ??= a.error === undefined ? `member ${uuidOf} has no part of it` : `member ${uuidOf} did not answer: ${a.error}`;
    }
    let total = 0;
    let done = 0;
    for (const p of parts) {
      total += p.partitions;
      done += p.done;
    }
    const progress = total === 0 ? 100 : Math.floor((done * 100) / total);
    const stage: WanSyncStage = failure !== undefined ? 'FAILED' : done >= total ? 'FINISHED' : done === 0 ? 'STARTED' : 'IN_PROGRESS';
    return { first, parts, stage, progress, done, failure };
  }

  // ------------------------------------------------------------------ configs added at run time

  async addConfigJson(json: string): Promise<WanAddResult> {
    const cfg = parseWanConfigJson(json);
    const text = wanConfigToJson(cfg);
    const result = this.applyAdded(text);
    const me = this.deps.membership.localMember().uuid;
    await Promise.all(
      this.deps.membership
        .members()
        .filter((m) => m.uuid !== me)
        .map((m) =>
          this.deps.net
            .request(m.address, Msg.WanAddConfig, [text], MEMBER_CALL_TIMEOUT_MS)
            .then(decodeWanAddAnswer)
            .catch((e: unknown) => this.deps.logger.warn({ member: m.address }, `WAN config "${cfg.name}" not added on ${m.address}: ${describeError(e)}`)),
        ),
    );
    return { addedPublisherIds: result.added, ignoredPublisherIds: result.ignored };
  }

  private applyAdded(text: string): { added: string[]; ignored: string[] } {
    const cfg = parseWanConfigJson(text);
    const r = this.addReplication(cfg);
    if (r.addedPublisherIds.length > 0) {
      this.added.push(text);
      this.deps.logger.info({ wanReplication: cfg.name, added: r.addedPublisherIds }, `WAN replication "${cfg.name}": publishers ${r.addedPublisherIds.join(', ')} added at run time`);
    }
    return { added: [...r.addedPublisherIds], ignored: [...r.ignoredPublisherIds] };
  }

  /** A member that joined takes the configs the cluster added at run time. */
  private fetchAddedConfigs(): void {
    const master = this.deps.membership.master();
    if (master === undefined || master.uuid === this.deps.membership.localMember().uuid) return;
    this.deps.net.request(master.address, Msg.WanConfigs, [], MEMBER_CALL_TIMEOUT_MS).then(
      (v) => {
        for (const text of f.strings([v], 0, 'wan configs')) {
          try {
            this.applyAdded(text);
          } catch (e) {
            this.deps.logger.warn(`WAN config from the master not added: ${describeError(e)}`);
          }
        }
      },
      (e: unknown) => this.deps.logger.warn(`WAN configs added at run time could not be fetched from the master: ${describeError(e)}`),
    );
  }
}

function deltaKey(wanRepName: string, publisherId: string, mapName: string): string {
  return `${wanRepName}\u0000${publisherId}\u0000${mapName}`;
}

/** Hazelcast's merge policy names, with or without the package prefix; unknown names merge as PassThrough. */
export function mergePolicyOf(name: string): MergePolicyName {
  const simple = name.startsWith('com.hazelcast.spi.merge.') ? name.slice('com.hazelcast.spi.merge.'.length) : name;
  return (MERGE_POLICY_NAMES as readonly string[]).includes(simple) ? (simple as MergePolicyName) : 'PassThroughMergePolicy';
}

/** `host` alone means the default member port. */
function normaliseEndpoint(address: string): string {
  return /:\d+$/.test(address) && !/^[^[]*:.*:/.test(address) ? address : address.startsWith('[') && /\]:\d+$/.test(address) ? address : `${address}:5701`;
}

