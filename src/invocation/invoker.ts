// Operations run where their partition's owner is. An operation owned here runs at once (no
// promise when it needs no backup ack); one owned elsewhere is sent to the owner and its
// result decoded. Writes are replicated to the partition's backups: `backup-count` of them
// acknowledge before the answer, `async-backup-count` more are sent without waiting.
// Retryable failures (owner moved, partition migrating, owner unreachable) are retried with
// backoff until the call timeout, against the newest partition table.
// It stays one file (just past 700 lines): running here, sending to the owner, backups and the
// retry loop share one invocation's private state, which grouped calls (operation-groups.ts)
// reach through its runHere rather than a second copy of the owner-side checks.

import type { Clock } from '../core/clock.js';
import { GridError, describeError, isGridError, type GridErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import { decodeBackup, decodeOperation, decodeOperationGroup, decodePollCancel, encodeBackup, encodeOperation, encodeOperationGroup, encodePollCancel } from '../protocol/payloads.js';
import type { MemberConnection, MemberNet } from '../net/member-net.js';
import type { ClusterView } from '../cluster/cluster-service.js';
import type { PartitionView } from '../partition/partition-service.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { checkPartitionWriteFrom } from '../partition/partition-table.js';
import { BackupDropper, DEBUG_SWITCHES } from '../core/test-hooks.js';
import { backupFailureVerdict } from './backup-failure.js';
import { answerGroup, invokeGrouped, type GroupCallerDeps, type GroupItem, type GroupOutcome } from './operation-groups.js';
import type { MetricsRegistrar } from '../core/metrics.js';
import type { WriteGate } from '../core/memory-guard.js';
import type { GridConfig } from '../config/types.js';

/** What a replica must apply after a write on the owner. */
export interface BackupSpec {
  readonly type: string;
  readonly args: readonly WireValue[];
  /** Replicas 1..syncCount acknowledge before the write answers. */
  readonly syncCount: number;
  /** The next asyncCount replicas get it without an ack. */
  readonly asyncCount: number;
  /** Applying it twice does no harm (a map put), so a backup whose connection broke is sent again. */
  readonly idempotent?: boolean;
}

export interface Operation<T> {
  /** `service.type`, for messages: `map.put`, `queue.offer`, ... */
  readonly name: string;
  /** Writes are refused while the cluster is PASSIVE and wait while their partition moves. */
  readonly mutating: boolean;
  /** Runs on the owner. */
  run(): T | Promise<T>;
  /** For sending to another member: the service, the type and the arguments that rebuild the operation there. */
  readonly service?: string;
  readonly type?: string;
  readonly args?: readonly WireValue[];
  /** After run() on the owner: what the backups apply (undefined: nothing changed). */
  backup?(result: T): BackupSpec | undefined;
  /** How long the operation may wait on the owner by design (a waiting poll), on top of the call timeout. */
  readonly waitMs?: number;
  /** Still sent while this member shuts down: it completes work already done (a queue confirm), so refusing it would undo that work. */
  readonly duringShutdown?: boolean;
}

/** The client of a waiting operation, as far as the owner can tell. */
export interface Caller {
  alive(): boolean;
  onGone(fn: () => void): void;
}

/** A data service's side of remote invocation. */
export interface OperationHandler {
  /** Rebuild an operation that another member sent. */
  operation(partitionId: number, type: string, args: readonly WireValue[], caller: Caller): Operation<unknown>;
  encodeResult(type: string, result: unknown): WireValue;
  decodeResult(type: string, value: WireValue): unknown;
  applyBackup(partitionId: number, type: string, args: readonly WireValue[]): void;
}

/**
 * Writes that must reach the disk before they are acknowledged (persistence). A write that
 * persisted something on the owner is sent to its backups only once it is in the owner's log
 * (a write the owner's log refused is put back by the log and goes nowhere); a backup is
 * acknowledged once in the backup's log. A backup that answers PERSISTENCE_FAILED fails the
 * write: the owner puts its change back (`takeUndo()`), which its log records too.
 */
export interface Durability {
  /** A mark of what was written so far: `pending(mark)` is undefined when nothing was written since. */
  mark(): number;
  /** Settles when everything written so far is persisted (written, or synced where asked); undefined: nothing written since `mark`, or nothing pending. */
  pending(since?: number): Promise<void> | undefined;
  /** Keep what puts back the changes made from now until takeUndo(). */
  capture(): void;
  /** What puts back the changes since capture(), to run newest first (undefined: none). */
  takeUndo(): (() => void)[] | undefined;
}

export interface Invoker {
  /** The operation's result: synchronous when it ran here with nothing to wait for, else a promise. Errors may be thrown. */
  invoke<T>(partitionId: number, op: Operation<T>, caller?: Caller): MaybePromise<T>;
  /**
   * Many operations (none that waits), one member message per owner (operation-groups.ts);
   * one outcome per item in order, never a rejection. Absent: the caller invokes one by one.
   */
  invokeGroup?<T>(items: readonly GroupItem<T>[]): Promise<GroupOutcome<T>[]>;
}

export interface InvokerTuning {
  readonly callTimeoutMs: number;
  readonly backupTimeoutMs: number;
  /** The drop-backups test switch (core/test-hooks.ts): the fraction of received backups silently not applied. */
  readonly debugDropBackups?: number;
}

/** Errors after which the invocation is tried again (against the newest table). */
const RETRY_CODES: ReadonlySet<GridErrorCode> = new Set<GridErrorCode>([
  'WRONG_TARGET',
  'PARTITION_MIGRATING',
  'MEMBER_UNREACHABLE',
  'PARTITION_UNAVAILABLE',
  // The owner does not (yet) list this member: it catches up, or this member learns it was removed.
  'NOT_MEMBER',
]);

const ALWAYS_THERE: Caller = { alive: () => true, onGone: () => undefined };
const BACKOFF_MS = [1, 5, 10, 25, 50, 100, 200, 500];

/** `fn` the first time; the same promise after. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

export class ClusterInvoker implements Invoker {
  private readonly handlers = new Map<string, OperationHandler>();
  private readonly cluster: ClusterView;
  private readonly partitions: PartitionView;
  private readonly net: MemberNet | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly tuning: InvokerTuning;
  private nextInvocationId = 1;
  /** Where each waiting call of a local client waits now (for cancelling it when the client goes). */
  private readonly waitingAt = new WeakMap<Caller, { address: string; invocationId: number }>();
  /** Waiting operations run here for other members, by `callerUuid:invocationId`. */
  private readonly remoteCallers = new Map<string, { gone: boolean; listeners: (() => void)[]; unsubscribe: () => void }>();
  private backupFailuresLogged = 0;
  /** Invocations tried again after a retryable failure (metrics). */
  private retries = 0;
  /** Sync backups whose ack did not come within hazelcast.operation.backup.timeout.millis (metrics). */
  private backupAckTimeouts = 0;
  /** Writes failed because a sync backup could not persist them (metrics). */
  private backupsNotPersisted = 0;
  private readonly dropper: BackupDropper;
  private durability: Durability | undefined;
  /** Operation messages sent to owners elsewhere: one per operation, and one per group (metrics). */
  private operationsSent = 0;
  private groupsSent = 0;
  private groupDeps: GroupCallerDeps | undefined;

  constructor(deps: {
    cluster: ClusterView;
    partitions: PartitionView;
    net: MemberNet | undefined;
    clock: Clock;
    logger: Logger;
    tuning: InvokerTuning;
  }) {
    this.cluster = deps.cluster;
    this.partitions = deps.partitions;
    this.net = deps.net;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.tuning = deps.tuning;
    this.dropper = new BackupDropper(deps.tuning.debugDropBackups ?? 0);
    if (this.dropper.active) {
      this.logger.warn(`${DEBUG_SWITCHES.dropBackups} is set: this member skips ${deps.tuning.debugDropBackups} of the backups it receives on purpose (for tests only)`);
    }
    if (this.net) this.registerHandlers(this.net);
  }

  /** Invocation metrics (docs/metrics.md), read at scrape time. */
  reportMetrics(r: MetricsRegistrar): void {
    r.counter(
      { name: 'grid_operation_retries_total', help: 'Operations this member tried again after a retryable failure (owner moved, partition migrating, owner unreachable, no owner yet)' },
      (report) => report(this.retries),
    );
    r.counter(
      { name: 'grid_operation_backup_timeouts_total', help: 'Sync backups whose ack did not come within hazelcast.operation.backup.timeout.millis (the write answered anyway)' },
      (report) => report(this.backupAckTimeouts),
    );
    r.counter(
      { name: 'grid_operation_backups_not_persisted_total', help: 'Writes that failed because a sync backup answered that it could not persist them (its disk full or failed); the owner put them back' },
      (report) => report(this.backupsNotPersisted),
    );
    r.counter(
      {
        name: 'grid_operation_messages_sent_total',
        help: 'Operation messages this member sent to partition owners elsewhere: kind="single" one operation each, kind="group" the operations of several partitions of one owner (a map batch)',
        labelNames: ['kind'],
      },
      (report) => {
        report(this.operationsSent, { kind: 'single' });
        report(this.groupsSent, { kind: 'group' });
      },
    );
  }

  invokeGroup<T>(items: readonly GroupItem<T>[]): Promise<GroupOutcome<T>[]> {
    this.groupDeps ??= {
      clock: this.clock,
      callTimeoutMs: this.tuning.callTimeoutMs,
      localUuid: () => this.cluster.localMember().uuid,
      ownerOf: (pid) => this.partitions.table.ownerOf(pid),
      checkCaller: (op) => this.checkCaller(op),
      runOwned: (pid, op) => this.runOwned(pid, op),
      sendGroup: (owner, service, group, timeoutMs) => {
        const member = this.cluster.memberByUuid(owner);
        if (member === undefined || this.net === undefined) throw new GridError('MEMBER_UNREACHABLE', `member ${owner} is not reachable`);
        this.groupsSent++;
        return this.net.request(member.address, Msg.OperationGroup, encodeOperationGroup({ service, items: group }), timeoutMs).then((answer) => {
          if (!Array.isArray(answer)) throw new GridError('INTERNAL', 'malformed answer to an operation group');
          return answer;
        });
      },
      handler: (service) => this.handlers.get(service),
      retryable: (e) => {
        if (!isGridError(e) || !RETRY_CODES.has(e.code)) return false;
        if (e.code === 'NOT_MEMBER') this.cluster.checkMembership(`an owner refused this member: ${e.message}`);
        return true;
      },
      retried: (n) => (this.retries += n),
    };
    return invokeGrouped(this.groupDeps, items);
  }

  /** A grouped operation of a partition this member owns: the checks invoke() makes before running one here. */
  private runOwned<T>(partitionId: number, op: Operation<T>): MaybePromise<T> {
    if (this.partitions.table.ownerOf(partitionId) !== this.cluster.localMember().uuid) {
      throw new GridError('WRONG_TARGET', `partition ${partitionId} is not owned by ${this.cluster.localMember().address}`);
    }
    this.checkNotFenced();
    if (op.mutating && this.partitions.isBlocked(partitionId)) throw new GridError('PARTITION_MIGRATING', `partition ${partitionId} is being handed over`);
    return this.runHere(partitionId, op);
  }

  /** One operation of a received group: the checks of a received Operation message, then run here. */
  private runReceived(handler: OperationHandler, pid: number, type: string, args: readonly WireValue[]): MaybePromise<unknown> {
    if (pid < 0 || pid >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${pid}`);
    this.checkNotFenced();
    if (this.partitions.table.ownerOf(pid) !== this.cluster.localMember().uuid) {
      throw new GridError('WRONG_TARGET', `partition ${pid} is not owned by ${this.cluster.localMember().address}`);
    }
    const op = handler.operation(pid, type, args, ALWAYS_THERE);
    // A waiting operation needs its own invocation id (PollCancel): it is never grouped.
    if (op.waitMs !== undefined && op.waitMs > 0) throw new GridError('BAD_REQUEST', `${op.name} waits: it cannot be run in a group`);
    if (op.mutating) {
      if (this.cluster.state() === 'PASSIVE') throw new GridError('CLUSTER_PASSIVE', `cluster is PASSIVE: ${op.name} refused`);
      if (this.partitions.isBlocked(pid)) throw new GridError('PARTITION_MIGRATING', `partition ${pid} is being handed over`);
    }
    return this.runHere(pid, op);
  }

  register(service: string, handler: OperationHandler): void {
    this.handlers.set(service, handler);
  }

  invoke<T>(partitionId: number, op: Operation<T>, caller?: Caller): MaybePromise<T> {
    this.checkCaller(op);
    const owner = this.partitions.table.ownerOf(partitionId);
    if (owner !== undefined && owner === this.cluster.localMember().uuid && !(op.mutating && this.partitions.isBlocked(partitionId)) && !this.cluster.fenced()) {
      const result = this.runHere(partitionId, op);
      // A waiting operation whose partition moves away while it waits is tried again at the new owner.
      if (result instanceof Promise && op.waitMs !== undefined && op.waitMs > 0) {
        return result.catch((e: unknown) => {
          if (isGridError(e) && RETRY_CODES.has(e.code) && (caller === undefined || caller.alive())) return this.retrying(partitionId, op, caller, undefined);
          throw e;
        });
      }
      return result;
    }
    if (owner !== undefined && owner !== this.cluster.localMember().uuid && (op.waitMs === undefined || op.waitMs <= 0)) {
      return this.remoteFirst(partitionId, op, owner, caller);
    }
    return this.retrying(partitionId, op, caller, undefined);
  }

  /**
   * The first attempt at a remote owner, without the retry loop's async frames (most calls
   * succeed at once); a failure goes on in the loop, which retries what is retryable.
   */
  private remoteFirst<T>(partitionId: number, op: Operation<T>, owner: string, caller: Caller | undefined): Promise<T> {
    const deadline = this.clock.now() + this.tuning.callTimeoutMs;
    const retry = (e: unknown): Promise<T> => this.retrying(partitionId, op, caller, { error: e, deadline });
    try {
      return this.runRemote(partitionId, op, owner, caller, deadline, retry);
    } catch (e) {
      return retry(e);
    }
  }

  /** Refusals that depend on the member asking, not on the owner. */
  private checkCaller(op: Operation<unknown>): void {
    const nodeState = this.cluster.nodeState();
    if ((nodeState === 'SHUTTING_DOWN' && op.duringShutdown !== true) || nodeState === 'SHUT_DOWN') {
      throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    }
    if (op.mutating && this.cluster.state() === 'PASSIVE') {
      throw new GridError('CLUSTER_PASSIVE', `cluster is PASSIVE: ${op.name} refused`);
    }
  }

  /** Attempts until one answers, a failure is not retryable, or the call times out; `failed`: the first attempt was made (remoteFirst) and failed. */
  private async retrying<T>(partitionId: number, op: Operation<T>, caller: Caller | undefined, failed: { error: unknown; deadline: number } | undefined): Promise<T> {
    const deadline = failed?.deadline ?? this.clock.now() + this.tuning.callTimeoutMs + (op.waitMs ?? 0);
    const local = this.cluster.localMember().uuid;
    let attempt = 0;
    if (failed !== undefined) {
      await this.backOff(failed.error, 0, partitionId, op, caller, deadline);
      attempt = 1;
    }
    for (; ; attempt++) {
      try {
        if (attempt > 0) {
          this.retries++; // metrics: every attempt after the first is a retry
          this.checkCaller(op);
        }
        const owner = this.partitions.table.ownerOf(partitionId);
        if (owner === undefined) {
          if (this.partitions.isRecovering?.() === true) {
            throw new GridError('RECOVERING', `partition ${partitionId} is not served yet: the cluster is restarting from persisted data (it waits for the members of its persisted member list)`);
          }
          const why = this.partitions.table.version() === 0 ? 'the partition table has not arrived yet' : 'no member holds it';
          throw new GridError('PARTITION_UNAVAILABLE', `partition ${partitionId} has no owner: ${why}`);
        }
        if (owner === local) {
          this.checkNotFenced();
          if (op.mutating && this.partitions.isBlocked(partitionId)) {
            throw new GridError('PARTITION_MIGRATING', `partition ${partitionId} is being handed over`);
          }
          return await this.runHere(partitionId, op);
        }
        return await this.runRemote(partitionId, op, owner, caller, deadline);
      } catch (e) {
        await this.backOff(e, attempt, partitionId, op, caller, deadline);
      }
    }
  }

  /** After a failed attempt: rethrows what is not retried, else waits before the next attempt. */
  private backOff(e: unknown, attempt: number, partitionId: number, op: Operation<unknown>, caller: Caller | undefined, deadline: number): Promise<void> {
    if (!isGridError(e) || !RETRY_CODES.has(e.code)) throw e;
    if (e.code === 'NOT_MEMBER') this.cluster.checkMembership(`an owner refused this member: ${e.message}`);
    if (caller !== undefined && !caller.alive()) throw e;
    this.failIfFrozenOut(partitionId);
    const left = deadline - this.clock.now();
    if (left <= 0) {
      throw new GridError('PARTITION_UNAVAILABLE', `${op.name} on partition ${partitionId} gave up after ${this.tuning.callTimeoutMs} ms: ${e.message}`);
    }
    const backoffMs = Math.min(left, BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!);
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { op: op.name, partition: partitionId, attempt: attempt + 1, code: e.code, backoffMs },
        `${op.name} on partition ${partitionId} retried in ${backoffMs} ms: ${e.message}`,
      );
    }
    return sleep(this.clock, backoffMs);
  }

  /** A member that may hold a stale view (back from a pause) runs nothing as owner until it knows. */
  private checkNotFenced(): void {
    if (this.cluster.fenced()) {
      throw new GridError('MEMBER_UNREACHABLE', `member ${this.cluster.localMember().address} is checking that it still belongs to the cluster`);
    }
  }

  /** With the table frozen (FROZEN, PASSIVE), a partition whose owner left stays without one: say so now rather than after the call timeout. */
  private failIfFrozenOut(partitionId: number): void {
    const state = this.cluster.state();
    if (state !== 'FROZEN' && state !== 'PASSIVE') return;
    const owner = this.partitions.table.ownerOf(partitionId);
    if (owner !== undefined && this.cluster.memberByUuid(owner) !== undefined) return;
    throw new GridError(
      'PARTITION_UNAVAILABLE',
      `partition ${partitionId} has no owner in the cluster and the cluster is ${state}: the partition table does not change until the cluster is ACTIVE again`,
    );
  }

  /**
   * One attempt at `owner`; throws at once when it cannot be sent. `onFailure` (the first
   * attempt's way into the retry loop) takes the answer's rejection in the same reaction that
   * decodes a success, so the common case costs one promise after the request's own.
   */
  private runRemote<T>(
    partitionId: number,
    op: Operation<T>,
    owner: string,
    caller: Caller | undefined,
    deadline: number,
    onFailure?: (e: unknown) => Promise<T>,
  ): Promise<T> {
    const member = this.cluster.memberByUuid(owner);
    if (member === undefined || this.net === undefined || op.service === undefined || op.type === undefined) {
      throw new GridError('MEMBER_UNREACHABLE', `partition ${partitionId} is owned by member ${owner}, which is not reachable`);
    }
    const handler = this.handlers.get(op.service);
    if (handler === undefined) throw new GridError('INTERNAL', `no handler for ${op.service}`);
    let invocationId: number | undefined;
    if (caller !== undefined && op.waitMs !== undefined && op.waitMs > 0) {
      invocationId = this.nextInvocationId++;
      // One listener per caller, however often the call is retried: it cancels where the call waits now.
      const first = !this.waitingAt.has(caller);
      this.waitingAt.set(caller, { address: member.address, invocationId });
      if (first) {
        const net = this.net;
        caller.onGone(() => {
          const at = this.waitingAt.get(caller);
          if (at !== undefined) net.oneWay(at.address, Msg.PollCancel, encodePollCancel({ callerUuid: this.cluster.localMember().uuid, invocationId: at.invocationId }));
        });
      }
    }
    const timeout = Math.max(1_000, deadline - this.clock.now());
    const type = op.type;
    this.operationsSent++;
    return this.net
      .request(member.address, Msg.Operation, encodeOperation({ service: op.service, type, partitionId, args: op.args ?? [], invocationId }), timeout)
      .then((answer) => handler.decodeResult(type, answer) as T, onFailure);
  }

  /** Writes answer only once persisted (set once at start when persistence is on). */
  setDurability(d: Durability): void {
    this.durability = d;
  }

  /** Run on this member (the owner) and replicate to the backups. */
  private runHere<T>(partitionId: number, op: Operation<T>): MaybePromise<T> {
    const d = this.durability;
    if (d === undefined || !op.mutating) {
      const result = op.run();
      if (op.backup === undefined) return result;
      if (result instanceof Promise) return result.then((v) => this.replicate(partitionId, op, v, undefined));
      return this.replicate(partitionId, op, result, undefined);
    }
    const mark = d.mark();
    d.capture();
    let result: T | Promise<T>;
    let undo: (() => void)[] | undefined;
    try {
      result = op.run();
    } finally {
      undo = d.takeUndo();
    }
    if (op.backup === undefined) return this.durable(result, d, mark);
    // What an operation changes after it waited (a poll) is not captured: it is not put back.
    if (result instanceof Promise) return result.then((v) => this.persistThenReplicate(partitionId, op, v, d, mark, undefined));
    return this.persistThenReplicate(partitionId, op, result, d, mark, undo);
  }

  /** A write's answer waits until what it wrote is persisted here (nothing to wait for when it wrote nothing persisted). */
  private durable<T>(result: MaybePromise<T>, d: Durability, mark: number): MaybePromise<T> {
    if (result instanceof Promise) {
      // Asked once the operation is done (it may write while it waits).
      return result.then((v) => {
        const pending = d.pending(mark);
        return pending === undefined ? v : pending.then(() => v);
      });
    }
    const pending = d.pending(mark);
    return pending === undefined ? result : pending.then(() => result);
  }

  /**
   * The backups get a write once it is in the owner's log: a write the log refuses (its
   * change already put back by the log) reaches no backup and no client as a success.
   */
  private persistThenReplicate<T>(partitionId: number, op: Operation<T>, v: T, d: Durability, mark: number, undo: (() => void)[] | undefined): MaybePromise<T> {
    const pending = d.pending(mark);
    if (pending === undefined) return this.replicate(partitionId, op, v, undo);
    return pending.then(() => this.replicate(partitionId, op, v, undo));
  }

  private replicate<T>(partitionId: number, op: Operation<T>, result: T, undo: (() => void)[] | undefined): MaybePromise<T> {
    const replicas = this.partitions.table.replicas(partitionId);
    if (replicas.length <= 1 || this.net === undefined || op.service === undefined) return result;
    const spec = op.backup!(result);
    if (spec === undefined) return result;
    const last = Math.min(replicas.length - 1, spec.syncCount + spec.asyncCount);
    if (last < 1) return result;
    const tableVersion = this.partitions.table.version();
    // Anti-entropy: each replica index counts the backups sent to it; the backup checks the sequence.
    const versions = this.partitions.replicaSync.stampBackup(partitionId, last);
    // The sync backups' acks, and what the failure of each does.
    let acks: Promise<unknown>[] | undefined;
    let failures: ((e: unknown) => void | Promise<void>)[] | undefined;
    // Put back once, whichever backups refuse.
    const putBack = undo === undefined ? undefined : once(() => this.putBack(undo));
    for (let i = 1; i <= last; i++) {
      const member = this.cluster.memberByUuid(replicas[i]!);
      if (member === undefined) continue;
      const payload = encodeBackup({ service: op.service, type: spec.type, partitionId, args: spec.args, tableVersion, replica: { index: i, version: versions[i]! } });
      if (i <= spec.syncCount) {
        const net = this.net;
        const send = (): Promise<unknown> => net.request(member.address, Msg.Backup, payload, this.tuning.backupTimeoutMs);
        const failed = (e: unknown): void | Promise<void> =>
          // A connection that closed under the backup (not a slow backup) gets one more try on a new one.
          spec.idempotent === true && isGridError(e) && e.code === 'MEMBER_UNREACHABLE' && this.cluster.memberByUuid(member.uuid) !== undefined
            ? send().then(undefined, (again: unknown) => this.backupFailed(member.address, op, again, partitionId, putBack))
            : this.backupFailed(member.address, op, e, partitionId, putBack);
        (acks ??= []).push(send());
        (failures ??= []).push(failed);
      } else {
        this.net.oneWay(member.address, Msg.Backup, payload);
      }
    }
    if (acks === undefined) return result;
    const failed = failures!;
    if (acks.length === 1) {
      // One sync backup (the usual case): its ack and its failure end in one reaction.
      return acks[0]!.then(
        () => result,
        (e: unknown) => {
          const r = failed[0]!(e);
          return r instanceof Promise ? r.then(() => result) : result;
        },
      );
    }
    return Promise.all(acks.map((ack, i) => ack.then(undefined, failed[i]))).then(() => result);
  }

  /** A sync backup was not acknowledged: whether the write answers anyway (backup-failure.ts). */
  private backupFailed(address: string, op: Operation<unknown>, e: unknown, partitionId: number, putBack: (() => Promise<void>) | undefined): void | Promise<void> {
    if (isGridError(e) && e.code === 'TIMEOUT') this.backupAckTimeouts++; // metrics
    const verdict = backupFailureVerdict(isGridError(e) ? e.code : undefined, this.cluster.fenced());
    if (verdict === 'not-persisted') {
      // The backup answered that it could not persist the write (its disk is full or failed):
      // not a late backup but a failed write. The owner puts its change back (recorded in its
      // log) and the client hears which member failed and why.
      this.backupsNotPersisted++;
      const fail = (): never => {
        throw new GridError('PERSISTENCE_FAILED', `${op.name} was not applied: member ${address} could not persist its backup: ${describeError(e)}`);
      };
      return putBack === undefined ? fail() : putBack().then(fail);
    }
    if (verdict === 'fenced') {
      // The backup refused this member as owner: it was removed, or the partition moved on
      // without it. The write is not acknowledged (whether it stays here is moot: this
      // member's copy is stale), and this member checks where it stands.
      this.cluster.checkMembership(`backup of partition ${partitionId} refused by ${address}`);
      throw new GridError('FENCED', `${op.name} not acknowledged: member ${address} refused its backup: ${describeError(e)}`);
    }
    if (verdict === 'check') {
      // Back from a pause (or checking its membership): the backup's timer may have run out
      // while this member was stopped, and the cluster may have removed it and promoted another
      // copy of the partition meanwhile. Answer only as a member.
      return this.cluster.stillMember().then((belongs) => {
        if (!belongs) {
          throw new GridError('FENCED', `${op.name} not acknowledged: its backup on ${address} did not answer while this member was paused, and the cluster removed this member meanwhile`);
        }
        this.logBackupFailure(address, op, e);
      });
    }
    this.logBackupFailure(address, op, e);
  }

  /** The owner's change put back after a backup could not persist it; resolves once the putting back is in the owner's log (or could not be). */
  private putBack(undo: readonly (() => void)[]): Promise<void> {
    for (let i = undo.length - 1; i >= 0; i--) {
      try {
        undo[i]!();
      } catch (e) {
        this.logger.error(`could not put back a write whose backup was not persisted: ${describeError(e)}`);
      }
    }
    const pending = this.durability?.pending();
    return pending === undefined ? Promise.resolve() : pending.catch((e: unknown) => this.logger.error(`the putting back of a write whose backup was not persisted is not in this member's log: ${describeError(e)}`));
  }

  /** Hazelcast's rule: a write whose backup ack does not come answers anyway. */
  private logBackupFailure(address: string, op: Operation<unknown>, e: unknown): void {
    this.backupFailuresLogged++;
    if (this.backupFailuresLogged <= 10 || this.backupFailuresLogged % 1000 === 0) {
      this.logger.warn(`backup of ${op.name} on ${address} not acknowledged (${this.backupFailuresLogged} so far): ${describeError(e)}`);
    }
  }

  // ------------------------------------------------------------------ the owner's side

  private registerHandlers(net: MemberNet): void {
    net.handle(Msg.Operation, (p, from) => this.onOperation(p, from));
    net.handle(Msg.OperationGroup, (p) => {
      const g = decodeOperationGroup(p);
      return answerGroup({ handler: (s) => this.handlers.get(s), runReceived: (h, pid, type, args) => this.runReceived(h, pid, type, args) }, g.service, g.items);
    });
    const backup = (p: WireValue, from: MemberConnection): null | Promise<null> => {
      const t = decodeBackup(p);
      const service = t.service;
      const handler = this.handlers.get(service);
      if (handler === undefined) throw new GridError('BAD_REQUEST', `unknown service ${service}`);
      const pid = t.partitionId;
      checkPartitionWriteFrom('backup', pid, from.peer?.uuid ?? '', t.tableVersion, this.partitions.table);
      // Test hook: lost on the way, as far as this member's versions can tell (the ack still goes).
      if (this.dropper.active && this.dropper.next()) return null;
      if (t.replica !== undefined) {
        // A duplicate (resent after a broken connection) is skipped; one out of sequence is applied and repaired.
        if (!this.partitions.replicaSync.onBackup(pid, t.replica.index, t.replica.version, from.peer?.uuid ?? '')) return null;
      }
      const mark = this.durability?.mark();
      handler.applyBackup(pid, t.type, t.args);
      // A sync backup is acknowledged once persisted here too.
      const pending = this.durability?.pending(mark);
      return pending === undefined ? null : pending.then(() => null);
    };
    net.handle(Msg.Backup, backup);
    net.handleOneWay(Msg.Backup, (p, from) => {
      // An async backup that could not be persisted is logged by the store; nobody waits for it.
      const r = backup(p, from);
      if (r instanceof Promise) r.catch(() => undefined);
    });
    net.handleOneWay(Msg.PollCancel, (p) => {
      const t = decodePollCancel(p);
      const key = `${t.callerUuid}:${t.invocationId}`;
      this.callerGone(key);
    });
  }

  private releaseCaller(key: string): void {
    const c = this.remoteCallers.get(key);
    if (c === undefined) return;
    this.remoteCallers.delete(key);
    c.unsubscribe();
  }

  private callerGone(key: string): void {
    const c = this.remoteCallers.get(key);
    if (c === undefined || c.gone) return;
    c.gone = true;
    for (const fn of c.listeners.splice(0)) fn();
  }

  private onOperation(p: WireValue, from: MemberConnection): MaybePromise<WireValue> {
    const { service, type, partitionId: pid, args, invocationId } = decodeOperation(p);
    const handler = this.handlers.get(service);
    if (handler === undefined) throw new GridError('BAD_REQUEST', `unknown service ${service}`);
    if (pid < 0 || pid >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${pid}`);
    this.checkNotFenced();
    if (this.partitions.table.ownerOf(pid) !== this.cluster.localMember().uuid) {
      throw new GridError('WRONG_TARGET', `partition ${pid} is not owned by ${this.cluster.localMember().address}`);
    }
    let caller = ALWAYS_THERE;
    let key: string | undefined;
    if (invocationId !== undefined && from.peer !== undefined) {
      const k = `${from.peer.uuid}:${invocationId}`;
      key = k;
      const entry = { gone: false, listeners: [] as (() => void)[], unsubscribe: (): void => undefined };
      this.remoteCallers.set(k, entry);
      entry.unsubscribe = from.onClose(() => this.callerGone(k));
      caller = {
        alive: () => !entry.gone,
        onGone: (fn) => {
          if (entry.gone) fn();
          else entry.listeners.push(fn);
        },
      };
    }
    let op: Operation<unknown>;
    try {
      op = handler.operation(pid, type, args, caller);
      if (op.mutating) {
        if (this.cluster.state() === 'PASSIVE') throw new GridError('CLUSTER_PASSIVE', `cluster is PASSIVE: ${op.name} refused`);
        if (this.partitions.isBlocked(pid)) throw new GridError('PARTITION_MIGRATING', `partition ${pid} is being handed over`);
      }
    } catch (e) {
      if (key !== undefined) this.releaseCaller(key);
      throw e;
    }
    let result: MaybePromise<unknown>;
    try {
      result = this.runHere(pid, op);
    } catch (e) {
      if (key !== undefined) this.releaseCaller(key);
      throw e;
    }
    if (result instanceof Promise) {
      return result.then(
        (v) => {
          if (key !== undefined) this.releaseCaller(key);
          return handler.encodeResult(type, v);
        },
        (e: unknown) => {
          if (key !== undefined) this.releaseCaller(key);
          throw e;
        },
      );
    }
    if (key !== undefined) this.releaseCaller(key);
    return handler.encodeResult(type, result);
  }
}

/** What a data service (maps, queues) is built from: the shared part of their constructors' deps. */
export interface DataServiceDeps {
  config: GridConfig;
  invoker: Invoker;
  clock: Clock;
  logger: Logger;
  /** Data members in this member's list (lite members do not count), for split-brain protection. Default: 1. */
  clusterSize?: () => number;
  /** The member memory guard: writes (puts, offers) are refused while it refuses (maps with eviction evict instead). */
  writeGate?: WriteGate;
}
