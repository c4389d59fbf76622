// Batching and acknowledgement for one WAN publisher (one target cluster, several target
// endpoints), as a pure state machine: inputs (events queued, timer fired, ack / failure of a
// batch, endpoint up / down) -> outputs (send this batch to that endpoint, connect, events
// released, wake me at T). No sockets, no timers: the shell does the I/O and keeps one Clock timer.

import { murmur3String } from '../core/murmur3.js';
import type { WanBatchPublisherConfig } from '../config/types.js';
import type { WanEvent, WanPublisherState } from './event-queue.js';

/** What the batcher reads from the publisher's queues (WanEventQueue implements it). */
export interface WanEventSource {
  readonly state: WanPublisherState;
  /** Primary partitions with at least one event. */
  partitionsWithEvents(): Iterable<number>;
  sizeOf(partitionId: number): number;
  /** Up to `max` oldest events of the partition, oldest first. */
  peek(partitionId: number, max: number): readonly WanEvent[];
  epochOf(partitionId: number): number;
  /** Remove the partition's events through `throughSequence` if the queue is still at `epoch`; returns how many. */
  acknowledge(partitionId: number, throughSequence: number, epoch: number): number;
  recordSent(count: number): void;
}

export type WanAcknowledgeType = WanBatchPublisherConfig['acknowledgeType'];

/** A batch on its way to one endpoint. */
export interface WanBatch {
  readonly id: number;
  readonly endpoint: string;
  /** In order per partition; partitions never split across batches in flight. */
  readonly events: readonly WanEvent[];
  /** When the target answers: after applying (ACK_ON_OPERATION_COMPLETE) or on arrival (ACK_ON_RECEIPT). */
  readonly acknowledgeType: WanAcknowledgeType;
}

export type WanBatcherOutput =
  /** Send the batch; answer with `acknowledged(batch.id)` or `failed(batch.id)`. */
  | { readonly type: 'send'; readonly batch: WanBatch }
  /** Open a connection to the endpoint; answer with `endpointUp` or `endpointDown`. */
  | { readonly type: 'connect'; readonly endpoint: string }
  /** The endpoint is no longer used (close its connection); its partitions went to the next endpoints. */
  | { readonly type: 'endpoint-dropped'; readonly endpoint: string; readonly reason: string }
  /** These events left the primary queue: tell the partition's backups (`acknowledgeBackup`). */
  | { readonly type: 'released'; readonly partitionId: number; readonly throughSequence: number }
  /** Always the last output: call `timerFired` at this time (undefined: no timer needed). */
  | { readonly type: 'timer'; readonly atMs: number | undefined };

export interface WanBatcherOptions {
  /** `target-endpoints` (host:port), in config order. */
  readonly endpoints: readonly string[];
  readonly batchSize: number;
  readonly batchMaxDelayMillis: number;
  readonly responseTimeoutMillis: number;
  readonly acknowledgeType: WanAcknowledgeType;
  /** First pause after a failed batch or connection; doubles per failure up to `retryMaxMs`. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
  /** Failed batches in a row (nack or timeout) after which an endpoint is dropped. */
  readonly maxConsecutiveFailures?: number;
}

/**
 * Retry defaults (Grid's own; Hazelcast retries failed endpoints every discovery-period-seconds,
 * 10 s). The pause between connection attempts stops doubling at 2 s so that a link that heals
 * is used within about 2 s plus one dial, whatever the length of the cut; an attempt
 * costs one TCP handshake, or one SYN into a dead link.
 */
export const DEFAULT_WAN_RETRY_INITIAL_MS = 500;
export const DEFAULT_WAN_RETRY_MAX_MS = 2_000;
export const DEFAULT_WAN_MAX_CONSECUTIVE_FAILURES = 3;

export type WanEndpointStatus = 'down' | 'connecting' | 'up';

/** Why an endpoint is down: a bounded set (a metric label), the reason's text says more. */
export const WAN_DOWN_CAUSES = ['heartbeat-timeout', 'connection-lost', 'connect-failed', 'batch-failures'] as const;
export type WanDownCause = (typeof WAN_DOWN_CAUSES)[number];

/**
 * What an operator is told about an endpoint: `connecting` only until its first connection
 * attempt ends; once it has been up or has failed, it is `down` (since the moment it stopped
 * being up, or its first failure) until a connection is up again, however many attempts it
 * takes — so an alert on "not up" does not flicker while the endpoint is retried.
 */
export interface WanEndpointHealth {
  readonly status: WanEndpointStatus;
  /** Clock time the endpoint entered `status`. */
  readonly sinceMs: number;
  /** While down: why (the last failure's text, e.g. the heartbeat timeout or the connect error). */
  readonly reason: string | undefined;
  readonly cause: WanDownCause | undefined;
  /** While down: connection attempts that failed since it went down. */
  readonly failedAttempts: number;
}

export interface WanBatcherStats {
  readonly batchesSent: number;
  readonly eventsSent: number;
  readonly batchesAcknowledged: number;
  readonly eventsAcknowledged: number;
  readonly batchesFailed: number;
  /** Clock time of the last acknowledgement (undefined: none yet). */
  readonly lastAckAtMs: number | undefined;
}

interface BatchPart {
  readonly throughSequence: number;
  readonly epoch: number;
}

interface InFlight {
  readonly batch: WanBatch;
  readonly deadlineMs: number;
  readonly parts: ReadonlyMap<number, BatchPart>;
}

interface Endpoint {
  readonly name: string;
  readonly index: number;
  status: WanEndpointStatus;
  inFlight: InFlight | undefined;
  /** Failed batches in a row while up. */
  failures: number;
  /** Failed connection attempts in a row while down. */
  connectFailures: number;
  /** up: no batch before this (backoff); down: next connection attempt. */
  notBeforeMs: number;
  /** When the current (or last) connection attempt started. */
  connectStartedMs: number;
  /** Round-robin position over partitions, so no partition starves others. */
  cursor: number;
  /** What is reported (WanEndpointHealth). */
  health: WanEndpointStatus;
  healthSinceMs: number | undefined;
  reason: string | undefined;
  cause: WanDownCause | undefined;
  failedAttempts: number;
}

interface Candidate {
  readonly partitionId: number;
  readonly size: number;
  readonly oldestMs: number;
}

/**
 * The batching rules of one publisher:
 * - A partition's events go to one endpoint: the first reachable one in the partition's
 *   rendezvous-hash order of the endpoints, so the choice is stable (the same on every source
 *   member, unchanged by other endpoints coming and going) and a dropped endpoint's partitions
 *   spread over the others; they come back when it does.
 * - One batch in flight per endpoint, of up to `batchSize` events, sent when that many are
 *   waiting or the oldest has waited `batchMaxDelayMillis`.
 * - A partition's events are in at most one batch in flight; a batch always starts at the
 *   partition's oldest queued event, so order per partition holds across resends and moves.
 * - Events leave the queue only on acknowledgement; a failure, a timeout
 *   (`responseTimeoutMillis`) or a lost endpoint puts them back, to be sent again after a
 *   backoff; `maxConsecutiveFailures` failures in a row drop the endpoint, which is then
 *   reconnected with backoff.
 * - Nothing is sent unless the publisher is REPLICATING; batches in flight still complete.
 */
export class WanBatcher {
  private readonly source: WanEventSource;
  private readonly batchSize: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly ackType: WanAcknowledgeType;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly maxFailures: number;
  private readonly endpoints: Endpoint[];
  private readonly byName = new Map<string, Endpoint>();
  private readonly preference = new Map<number, readonly number[]>();
  /** partition -> batch id holding its events. */
  private readonly pins = new Map<number, number>();
  private readonly batches = new Map<number, Endpoint>();
  private nextBatchId = 1;
  private counters = { batchesSent: 0, eventsSent: 0, batchesAcknowledged: 0, eventsAcknowledged: 0, batchesFailed: 0 };
  private lastAckAtMs: number | undefined;

  constructor(source: WanEventSource, opts: WanBatcherOptions) {
    if (opts.endpoints.length === 0) throw new RangeError('a WAN publisher needs at least one target endpoint');
    if (!(opts.batchSize >= 1)) throw new RangeError(`batch-size must be at least 1, got ${opts.batchSize}`);
    this.source = source;
    this.batchSize = Math.floor(opts.batchSize);
    this.maxDelayMs = Math.max(0, opts.batchMaxDelayMillis);
    this.timeoutMs = Math.max(1, opts.responseTimeoutMillis);
    this.ackType = opts.acknowledgeType;
    this.retryInitialMs = Math.max(1, opts.retryInitialMs ?? DEFAULT_WAN_RETRY_INITIAL_MS);
    this.retryMaxMs = Math.max(this.retryInitialMs, opts.retryMaxMs ?? DEFAULT_WAN_RETRY_MAX_MS);
    this.maxFailures = Math.max(1, opts.maxConsecutiveFailures ?? DEFAULT_WAN_MAX_CONSECUTIVE_FAILURES);
    this.endpoints = [...new Set(opts.endpoints)].map((name, index) => ({
      name,
      index,
      status: 'down' as WanEndpointStatus,
      inFlight: undefined,
      failures: 0,
      connectFailures: 0,
      notBeforeMs: -Infinity,
      connectStartedMs: -Infinity,
      cursor: -1,
      health: 'connecting' as WanEndpointStatus,
      healthSinceMs: undefined,
      reason: undefined,
      cause: undefined,
      failedAttempts: 0,
    }));
    for (const e of this.endpoints) this.byName.set(e.name, e);
  }

  // --- inputs ---

  /** Start, or re-evaluate after anything the batcher cannot see (state change, clear, migration). */
  poll(nowMs: number): WanBatcherOutput[] {
    return this.step(nowMs, []);
  }

  /** New events were queued. */
  eventsQueued(nowMs: number): WanBatcherOutput[] {
    return this.step(nowMs, []);
  }

  /** The timer asked for by the last `timer` output fired (an early or late call is harmless). */
  timerFired(nowMs: number): WanBatcherOutput[] {
    return this.step(nowMs, []);
  }

  /** The target acknowledged the batch: its events leave the queue. Unknown or settled ids are ignored. */
  acknowledged(batchId: number, nowMs: number): WanBatcherOutput[] {
    const out: WanBatcherOutput[] = [];
    const ep = this.batches.get(batchId);
    if (ep?.inFlight?.batch.id === batchId) {
      const inFlight = ep.inFlight;
      this.settle(ep);
      let n = 0;
      for (const [partitionId, part] of inFlight.parts) {
        const removed = this.source.acknowledge(partitionId, part.throughSequence, part.epoch);
        n += removed;
        if (removed > 0) out.push({ type: 'released', partitionId, throughSequence: part.throughSequence });
      }
      ep.failures = 0;
      ep.notBeforeMs = nowMs;
      this.counters.batchesAcknowledged++;
      this.counters.eventsAcknowledged += n;
      this.lastAckAtMs = nowMs;
    }
    return this.step(nowMs, out);
  }

  /** The target refused the batch, or it could not be sent: its events go back to be sent again. */
  failed(batchId: number, nowMs: number, reason = 'batch failed'): WanBatcherOutput[] {
    const out: WanBatcherOutput[] = [];
    const ep = this.batches.get(batchId);
    if (ep?.inFlight?.batch.id === batchId) this.fail(ep, nowMs, reason, out);
    return this.step(nowMs, out);
  }

  /** A connection to the endpoint is open (answer to `connect`, or found by the shell). */
  endpointUp(endpoint: string, nowMs: number): WanBatcherOutput[] {
    const ep = this.byName.get(endpoint);
    if (ep && ep.status !== 'up') {
      ep.status = 'up';
      ep.failures = 0;
      ep.connectFailures = 0;
      ep.notBeforeMs = nowMs;
      this.report(ep, 'up', nowMs, undefined, undefined);
    }
    return this.step(nowMs, []);
  }

  /**
   * The connection attempt failed or the connection was lost (`cause` says which kind, for the
   * status): the batch in flight (if any) failed.
   */
  endpointDown(endpoint: string, nowMs: number, reason = 'connection lost', cause?: WanDownCause): WanBatcherOutput[] {
    const out: WanBatcherOutput[] = [];
    const ep = this.byName.get(endpoint);
    if (ep && ep.status !== 'down') {
      if (ep.status === 'up') this.drop(ep, nowMs, reason, out, cause ?? 'connection-lost');
      else {
        ep.status = 'down';
        ep.connectFailures++;
        // The pause runs from the attempt's start: a dial that timed out (a SYN lost in a dead
        // link) is followed by the next at once once the backoff has passed, so a link that
        // heals is tried again within one backoff, not a dial timeout plus a backoff.
        ep.notBeforeMs = Math.max(nowMs, ep.connectStartedMs + this.backoff(ep.connectFailures));
        ep.failedAttempts++;
        this.report(ep, 'down', nowMs, reason, cause ?? 'connect-failed');
      }
    }
    return this.step(nowMs, out);
  }

  // --- queries ---

  /** The endpoint the partition's events go to now (undefined when none is up). */
  endpointOf(partitionId: number): string | undefined {
    const i = this.assigned(partitionId);
    return i === undefined ? undefined : this.endpoints[i]?.name;
  }

  /** The endpoint the partition goes to while every endpoint is up. */
  preferredEndpointOf(partitionId: number): string {
    return (this.endpoints[this.preferenceOf(partitionId)[0] as number] as Endpoint).name;
  }

  endpointStatus(endpoint: string): WanEndpointStatus | undefined {
    return this.byName.get(endpoint)?.status;
  }

  /** What to report about the endpoint (undefined: unknown endpoint). */
  endpointHealth(endpoint: string, nowMs: number): WanEndpointHealth | undefined {
    const ep = this.byName.get(endpoint);
    if (ep === undefined) return undefined;
    return { status: ep.health, sinceMs: ep.healthSinceMs ?? nowMs, reason: ep.reason, cause: ep.cause, failedAttempts: ep.health === 'down' ? ep.failedAttempts : 0 };
  }

  inFlight(): readonly { readonly batch: WanBatch; readonly deadlineMs: number }[] {
    const out: { batch: WanBatch; deadlineMs: number }[] = [];
    for (const e of this.endpoints) if (e.inFlight) out.push({ batch: e.inFlight.batch, deadlineMs: e.inFlight.deadlineMs });
    return out;
  }

  stats(): WanBatcherStats {
    return { ...this.counters, lastAckAtMs: this.lastAckAtMs };
  }

  // --- the rules ---

  private step(nowMs: number, out: WanBatcherOutput[]): WanBatcherOutput[] {
    for (const ep of this.endpoints) {
      ep.healthSinceMs ??= nowMs;
      if (ep.inFlight && ep.inFlight.deadlineMs <= nowMs) this.fail(ep, nowMs, `no answer within response-timeout-millis (${this.timeoutMs} ms)`, out);
    }
    for (const ep of this.endpoints) {
      if (ep.status === 'down' && ep.notBeforeMs <= nowMs) {
        ep.status = 'connecting';
        ep.connectStartedMs = nowMs;
        out.push({ type: 'connect', endpoint: ep.name });
      }
    }
    const replicating = this.source.state === 'REPLICATING';
    const waiting = replicating ? this.candidates() : new Map<number, Candidate[]>();
    let wake = Infinity;
    for (const ep of this.endpoints) {
      if (ep.status === 'down') wake = Math.min(wake, ep.notBeforeMs);
      if (ep.status !== 'up') continue;
      if (ep.inFlight) {
        wake = Math.min(wake, ep.inFlight.deadlineMs);
        continue;
      }
      const cands = waiting.get(ep.index);
      if (!cands || cands.length === 0) continue;
      let total = 0;
      let oldest = Infinity;
      for (const c of cands) {
        total += c.size;
        oldest = Math.min(oldest, c.oldestMs);
      }
      const dueAt = Math.max(ep.notBeforeMs, total >= this.batchSize ? -Infinity : oldest + this.maxDelayMs);
      if (dueAt <= nowMs) {
        this.send(ep, cands, nowMs, out);
        wake = Math.min(wake, (ep.inFlight as InFlight | undefined)?.deadlineMs ?? Infinity);
      } else {
        wake = Math.min(wake, dueAt);
      }
    }
    out.push({ type: 'timer', atMs: wake === Infinity ? undefined : wake });
    return out;
  }

  /** Partitions with events, not in a batch in flight, grouped by the endpoint they go to. */
  private candidates(): Map<number, Candidate[]> {
    const byEndpoint = new Map<number, Candidate[]>();
    for (const partitionId of this.source.partitionsWithEvents()) {
      if (this.pins.has(partitionId)) continue;
      const size = this.source.sizeOf(partitionId);
      const first = this.source.peek(partitionId, 1)[0];
      if (size === 0 || !first) continue;
      const i = this.assigned(partitionId);
      if (i === undefined) continue;
      let list = byEndpoint.get(i);
      if (!list) byEndpoint.set(i, (list = []));
      list.push({ partitionId, size, oldestMs: first.enqueuedAtMs });
    }
    return byEndpoint;
  }

  private send(ep: Endpoint, cands: Candidate[], nowMs: number, out: WanBatcherOutput[]): void {
    // Round-robin: start after the last partition served by this endpoint.
    const sorted = [...cands].sort((a, b) => a.partitionId - b.partitionId);
    let start = sorted.findIndex((c) => c.partitionId > ep.cursor);
    if (start < 0) start = 0;
    const events: WanEvent[] = [];
    const parts = new Map<number, BatchPart>();
    for (let k = 0; k < sorted.length && events.length < this.batchSize; k++) {
      const c = sorted[(start + k) % sorted.length] as Candidate;
      const taken = this.source.peek(c.partitionId, this.batchSize - events.length);
      const last = taken[taken.length - 1];
      if (!last) continue;
      events.push(...taken);
      parts.set(c.partitionId, { throughSequence: last.sequence, epoch: this.source.epochOf(c.partitionId) });
      ep.cursor = c.partitionId;
    }
    if (events.length === 0) return;
    const batch: WanBatch = { id: this.nextBatchId++, endpoint: ep.name, events, acknowledgeType: this.ackType };
    ep.inFlight = { batch, deadlineMs: nowMs + this.timeoutMs, parts };
    this.batches.set(batch.id, ep);
    for (const p of parts.keys()) this.pins.set(p, batch.id);
    this.counters.batchesSent++;
    this.counters.eventsSent += events.length;
    this.source.recordSent(events.length);
    out.push({ type: 'send', batch });
  }

  /** Forget the endpoint's batch in flight: its partitions are free again, their events still queued. */
  private settle(ep: Endpoint): void {
    const f = ep.inFlight;
    if (!f) return;
    ep.inFlight = undefined;
    this.batches.delete(f.batch.id);
    for (const p of f.parts.keys()) if (this.pins.get(p) === f.batch.id) this.pins.delete(p);
  }

  private fail(ep: Endpoint, nowMs: number, reason: string, out: WanBatcherOutput[]): void {
    this.settle(ep);
    this.counters.batchesFailed++;
    ep.failures++;
    if (ep.failures >= this.maxFailures) this.drop(ep, nowMs, `${reason} (${ep.failures} failures in a row)`, out, 'batch-failures');
    else ep.notBeforeMs = nowMs + this.backoff(ep.failures);
  }

  private drop(ep: Endpoint, nowMs: number, reason: string, out: WanBatcherOutput[], cause: WanDownCause): void {
    if (ep.inFlight) {
      this.settle(ep);
      this.counters.batchesFailed++;
    }
    ep.status = 'down';
    ep.failures = 0;
    ep.connectFailures = 1;
    ep.notBeforeMs = nowMs + this.backoff(1);
    ep.failedAttempts = 0;
    this.report(ep, 'down', nowMs, reason, cause);
    out.push({ type: 'endpoint-dropped', endpoint: ep.name, reason });
  }

  /** The reported status: `since` moves only when the status changes; a down endpoint's reason is its latest failure. */
  private report(ep: Endpoint, health: WanEndpointStatus, nowMs: number, reason: string | undefined, cause: WanDownCause | undefined): void {
    if (ep.health !== health) {
      ep.health = health;
      ep.healthSinceMs = nowMs;
    }
    if (health === 'up') ep.failedAttempts = 0;
    ep.reason = reason;
    ep.cause = cause;
  }

  private backoff(failures: number): number {
    return Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  }

  /** The first endpoint that is up in the partition's preference order. */
  private assigned(partitionId: number): number | undefined {
    for (const i of this.preferenceOf(partitionId)) if ((this.endpoints[i] as Endpoint).status === 'up') return i;
    return undefined;
  }

  /** Rendezvous (highest random weight) order of the endpoints for a partition; ties by config order. */
  private preferenceOf(partitionId: number): readonly number[] {
    let order = this.preference.get(partitionId);
    if (!order) {
      const weights = this.endpoints.map((e) => murmur3String(`${e.name}#${partitionId}`) >>> 0);
      order = this.endpoints.map((e) => e.index).sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b);
      this.preference.set(partitionId, order);
    }
    return order;
  }
}
