// The publishers of one member: per target (wan-replication/batch-publisher), its event queue,
// the batcher shell around the pure batcher, its WAN connections (dial, handshake, liveness
// probes) and the batches sent on them. The rules live in batcher.ts, event-queue.ts and
// wan-liveness.ts; this module does the I/O they ask for.

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import { PARTITION_HASH_VERSION } from '../core/murmur3.js';
import type { WanBatchPublisherConfig, WanReplicationConfig } from '../config/types.js';
import type { MemberConnection } from '../net/member-net.js';
import { Msg } from '../protocol/messages.js';
import { encodeWanBackupAck, encodeWanBatch, encodeWanPing, type WanAuthPayload, type WanBatchEvent } from '../protocol/wan-payloads.js';
import { WanBatcher, type WanBatch, type WanBatcherOutput } from './batcher.js';
import { WanEventQueue, type WanEvent } from './event-queue.js';
import { WanLiveness } from './wan-liveness.js';
import type { WanAddResult } from './wan-facade.js';
import type { WanDeps } from './wan-deps.js';

/** Repeated connection failures to one endpoint are logged once per this many attempts. */
const CONNECT_LOG_EVERY = 20;
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

/** One batch publisher: its queue, its batcher and its connections to the target cluster. */
export class Publisher {
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

/** Every publisher of this member, by wan-replication name then publisher id, and the I/O that drives them. */
export class WanPublishers {
  /** By wan-replication name, then publisher id. */
  private readonly byName = new Map<string, Map<string, Publisher>>();
  private started = false;

  constructor(
    private readonly deps: WanDeps,
    private readonly clusterName: string,
  ) {}

  /** Message handlers are in place: start every publisher (and those added later at once). */
  start(): void {
    this.started = true;
    for (const p of this.all()) this.kick(p);
  }

  stop(): void {
    for (const p of this.all()) {
      p.stopped = true;
      p.timer?.cancel();
      for (const c of p.conns.values()) c.close();
      p.conns.clear();
    }
  }

  /** Add a replication's publishers; ids already present are left as they are (reported ignored). */
  add(rep: WanReplicationConfig): WanAddResult {
    let byId = this.byName.get(rep.name);
    if (byId === undefined) this.byName.set(rep.name, (byId = new Map()));
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

  *all(): IterableIterator<Publisher> {
    for (const byId of this.byName.values()) yield* byId.values();
  }

  /** The publisher a member message names, if this member has it. */
  get(wanRepName: string, publisherId: string): Publisher | undefined {
    return this.byName.get(wanRepName)?.get(publisherId);
  }

  /** The publisher a REST call names; an empty id picks the replication's only publisher. */
  resolve(wanRepName: string, publisherId: string): Publisher {
    const byId = this.byName.get(wanRepName);
    if (byId === undefined) {
      const known = [...this.byName.keys()];
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
  of(mapName: string): Iterable<Publisher> {
    const ref = this.deps.maps.configOf(mapName).wanReplicationRef;
    if (ref === undefined) return [];
    return this.byName.get(ref.name)?.values() ?? [];
  }

  /** Run the batcher now (coalesced: once per turn of the event loop however many events came). */
  kick(p: Publisher): void {
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
      partitionHash: PARTITION_HASH_VERSION,
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
}

/** `host` alone means the default member port. */
export function normaliseEndpoint(address: string): string {
  return /:\d+$/.test(address) && !/^[^[]*:.*:/.test(address) ? address : address.startsWith('[') && /\]:\d+$/.test(address) ? address : `${address}:5701`;
}
