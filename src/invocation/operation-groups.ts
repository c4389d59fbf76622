// Operations grouped by owner: many operations, each on its own partition, sent as one member
// message per owner member instead of one per operation (a map batch). Each operation keeps
// the semantics it has alone: on the owner it runs through the same path (ownership and
// migration checks, persistence, backups) and answers for itself; an operation whose owner
// moved, is migrating or died is tried again against the newest table, alone or grouped with
// the others that still wait, until the call timeout. A write therefore runs again only when
// it carries its own protection against a second application (a map update's operation id).

import type { Clock } from '../core/clock.js';
import { GridError, describeError, isGridError, isGridErrorCode } from '../core/errors.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import type { WireValue } from '../protocol/codec.js';
import type { OperationGroupItem } from '../protocol/payloads.js';

/** What this module reads of an operation (invoker.ts's Operation; structural, so the invoker can import this module). */
export interface Operation<T> {
  readonly name: string;
  readonly mutating: boolean;
  readonly service?: string;
  readonly type?: string;
  readonly args?: readonly WireValue[];
  /** Never called here: it marks the result type. */
  run(): T | Promise<T>;
}

/** What this module uses of a service's OperationHandler (invoker.ts). */
export interface OperationHandler {
  encodeResult(type: string, result: unknown): WireValue;
  decodeResult(type: string, value: WireValue): unknown;
}

/** One operation of a group and the partition it runs on. */
export interface GroupItem<T> {
  readonly partitionId: number;
  readonly op: Operation<T>;
}

/** What became of one operation of a group. */
export type GroupOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** What the caller's loop uses of the invoker. */
export interface GroupCallerDeps {
  readonly clock: Clock;
  readonly callTimeoutMs: number;
  localUuid(): string;
  ownerOf(partitionId: number): string | undefined;
  /** Refusals that depend on the member asking (shutting down, cluster passive): thrown. */
  checkCaller(op: Operation<unknown>): void;
  /** Run on this member as the partition's owner, with the checks of a single invocation (throws a retryable error when it cannot now). */
  runOwned<T>(partitionId: number, op: Operation<T>): MaybePromise<T>;
  /** Send one group to `owner`; resolves with one answer per item (see encodeGroupAnswer). */
  sendGroup(owner: string, service: string, items: readonly OperationGroupItem[], timeoutMs: number): Promise<readonly WireValue[]>;
  handler(service: string): OperationHandler | undefined;
  /** Whether a failure is tried again (the invoker's RETRY_CODES), and what it does first (a NOT_MEMBER asks for the member's standing). */
  retryable(e: unknown): boolean;
  /** Metrics: one more attempt after a retryable failure. */
  retried(count: number): void;
}

const BACKOFF_MS = [1, 5, 10, 25, 50, 100, 200, 500];

/** The operations' indexes by owner (undefined: the partition has no owner now). Pure. */
export function groupByOwner(partitionIds: readonly number[], indexes: readonly number[], ownerOf: (pid: number) => string | undefined): Map<string | undefined, number[]> {
  const out = new Map<string | undefined, number[]>();
  for (const i of indexes) {
    const owner = ownerOf(partitionIds[i]!);
    let list = out.get(owner);
    if (list === undefined) out.set(owner, (list = []));
    list.push(i);
  }
  return out;
}

/**
 * Runs every item at its partition's owner, one message per owner member per attempt, and
 * resolves with one outcome per item, in the items' order (never rejects).
 */
export async function invokeGrouped<T>(deps: GroupCallerDeps, items: readonly GroupItem<T>[]): Promise<GroupOutcome<T>[]> {
  const out: (GroupOutcome<T> | undefined)[] = new Array<GroupOutcome<T> | undefined>(items.length);
  const pids = items.map((it) => it.partitionId);
  let pending: number[] = [];
  for (let i = 0; i < items.length; i++) {
    try {
      deps.checkCaller(items[i]!.op);
      pending.push(i);
    } catch (e) {
      out[i] = { ok: false, error: e };
    }
  }
  const deadline = deps.clock.now() + deps.callTimeoutMs;
  /** The last retryable failure of each item still pending, for the message when time runs out. */
  const lastError = new Map<number, unknown>();
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) {
      const left = deadline - deps.clock.now();
      if (left <= 0) {
        for (const i of pending) {
          const op = items[i]!.op;
          out[i] = { ok: false, error: new GridError('PARTITION_UNAVAILABLE', `${op.name} on partition ${pids[i]} gave up after ${deps.callTimeoutMs} ms: ${describeError(lastError.get(i))}`) };
        }
        break;
      }
      deps.retried(pending.length);
      await new Promise<void>((resolve) => deps.clock.setTimeout(resolve, Math.min(left, BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!)));
    }
    const again: number[] = [];
    const settle = (i: number, r: GroupOutcome<T>): void => {
      if (!r.ok && deps.retryable(r.error)) {
        lastError.set(i, r.error);
        again.push(i);
      } else out[i] = r;
    };
    const rounds: Promise<void>[] = [];
    const local = deps.localUuid();
    for (const [owner, idx] of groupByOwner(pids, pending, (pid) => deps.ownerOf(pid))) {
      if (owner === undefined) {
        for (const i of idx) settle(i, { ok: false, error: new GridError('PARTITION_UNAVAILABLE', `partition ${pids[i]} has no owner`) });
      } else if (owner === local) {
        for (const i of idx) {
          const it = items[i]!;
          try {
            const r = deps.runOwned(it.partitionId, it.op);
            if (r instanceof Promise) rounds.push(r.then((value) => settle(i, { ok: true, value }), (error: unknown) => settle(i, { ok: false, error })));
            else settle(i, { ok: true, value: r });
          } catch (error) {
            settle(i, { ok: false, error });
          }
        }
      } else {
        rounds.push(sendTo(deps, owner, items, idx, deadline).then((rs) => rs.forEach((r, k) => settle(idx[k]!, r))));
      }
    }
    await Promise.all(rounds);
    pending = again;
  }
  return out as GroupOutcome<T>[];
}

/** One message to `owner` with the items `idx` (all of one service per message: a group per service). */
async function sendTo<T>(deps: GroupCallerDeps, owner: string, items: readonly GroupItem<T>[], idx: readonly number[], deadline: number): Promise<GroupOutcome<T>[]> {
  const byService = new Map<string, number[]>();
  for (let k = 0; k < idx.length; k++) {
    const op = items[idx[k]!]!.op;
    const s = op.service ?? '';
    let list = byService.get(s);
    if (list === undefined) byService.set(s, (list = []));
    list.push(k);
  }
  const out: GroupOutcome<T>[] = new Array<GroupOutcome<T>>(idx.length);
  await Promise.all(
    [...byService].map(async ([service, ks]) => {
      const handler = deps.handler(service);
      const wire: OperationGroupItem[] = [];
      for (const k of ks) {
        const op = items[idx[k]!]!.op;
        if (handler === undefined || op.type === undefined) {
          out[k] = { ok: false, error: new GridError('INTERNAL', `${op.name} cannot be sent to another member`) };
          continue;
        }
        wire.push({ partitionId: items[idx[k]!]!.partitionId, type: op.type, args: op.args ?? [] });
      }
      const sendable = ks.filter((k) => out[k] === undefined);
      if (sendable.length === 0 || handler === undefined) return;
      try {
        const answers = await deps.sendGroup(owner, service, wire, Math.max(1_000, deadline - deps.clock.now()));
        if (answers.length !== sendable.length) throw new GridError('INTERNAL', `a group of ${sendable.length} operations got ${answers.length} answers`);
        sendable.forEach((k, j) => {
          const op = items[idx[k]!]!.op;
          out[k] = decodeGroupAnswer(answers[j]!, (w) => handler.decodeResult(op.type!, w) as T);
        });
      } catch (error) {
        // The message as a whole failed (owner gone, connection closed, timeout): each item's
        // outcome is that failure, retried where a single operation would be.
        for (const k of sendable) out[k] = { ok: false, error };
      }
    }),
  );
  return out;
}

/** One item's answer on the wire: [0, result] or [1, error code, message]. */
export function encodeGroupAnswer(r: GroupOutcome<WireValue>): WireValue {
  if (r.ok) return [0, r.value];
  const e = r.error;
  return isGridError(e) ? [1, e.code, e.message] : [1, 'INTERNAL', describeError(e)];
}

export function decodeGroupAnswer<T>(w: WireValue, decode: (w: WireValue) => T): GroupOutcome<T> {
  if (!Array.isArray(w) || (w[0] !== 0 && w[0] !== 1)) return { ok: false, error: new GridError('INTERNAL', 'malformed answer of a grouped operation') };
  if (w[0] === 0) return { ok: true, value: decode(w[1] ?? null) };
  const code = w[1];
  const message = typeof w[2] === 'string' ? w[2] : 'no message';
  return { ok: false, error: new GridError(isGridErrorCode(code) ? code : 'INTERNAL', message) };
}

/** What the owner's side uses of the invoker. */
export interface GroupOwnerDeps<H extends OperationHandler> {
  handler(service: string): H | undefined;
  /** Rebuild, check and run one operation as a single Operation message would (throws what that would answer). */
  runReceived(handler: H, partitionId: number, type: string, args: readonly WireValue[]): MaybePromise<unknown>;
}

/** The owner's answer to a group: every item run (each on its own), one answer per item in order. */
export function answerGroup<H extends OperationHandler>(deps: GroupOwnerDeps<H>, service: string, items: readonly OperationGroupItem[]): MaybePromise<WireValue> {
  const handler = deps.handler(service);
  if (handler === undefined) throw new GridError('BAD_REQUEST', `unknown service ${service}`);
  const answers: WireValue[] = new Array<WireValue>(items.length);
  let waits: Promise<void>[] | undefined;
  items.forEach((it, i) => {
    try {
      const r = deps.runReceived(handler, it.partitionId, it.type, it.args);
      if (r instanceof Promise) {
        (waits ??= []).push(
          r.then(
            (v) => void (answers[i] = encodeGroupAnswer({ ok: true, value: handler.encodeResult(it.type, v) })),
            (error: unknown) => void (answers[i] = encodeGroupAnswer({ ok: false, error })),
          ),
        );
      } else answers[i] = encodeGroupAnswer({ ok: true, value: handler.encodeResult(it.type, r) });
    } catch (error) {
      answers[i] = encodeGroupAnswer({ ok: false, error });
    }
  });
  return waits === undefined ? answers : Promise.all(waits).then(() => answers);
}
