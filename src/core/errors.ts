// The one error type of Grid. Every failure that crosses a module boundary is a GridError
// with a stable `code`; rest/ maps codes to HTTP statuses in one table; `retryable` tells a
// caller whether trying again may succeed (docs/architecture.md's error table says the same).

export type GridErrorCode =
  | 'BAD_REQUEST' // malformed input: path, escapes, parameters
  | 'UNKNOWN_ENDPOINT' // no such path or method
  | 'GROUP_DISABLED' // endpoint group switched off
  | 'FORBIDDEN' // credentials wrong or missing
  | 'NOT_FOUND' // a named thing that must exist does not (e.g. WAN sync uuid)
  | 'CONFLICT' // the operation does not fit the member's state
  | 'PAYLOAD_TOO_LARGE'
  | 'HEADERS_TOO_LARGE'
  | 'BODY_BUDGET_FULL' // the member's budget for request bodies being received is used up; retry later
  | 'QUEUE_FULL'
  | 'MEMORY_LIMIT' // the member is at its memory limit (grid.memory.limit): writes that grow memory are refused
  | 'CLUSTER_PASSIVE' // writes refused while the cluster is PASSIVE
  | 'MEMBER_SHUTTING_DOWN'
  | 'PARTITION_UNAVAILABLE'
  | 'WRONG_TARGET' // the member asked is not (or no longer) the partition's owner
  | 'PARTITION_MIGRATING' // the partition is being handed over; retry shortly
  | 'MEMBER_UNREACHABLE' // no connection to the member (it left, died, or is not up yet)
  | 'NOT_MEMBER' // the sender is not a member of the receiver's cluster (removed, not joined yet) or not entitled to send that message
  | 'STALE_VIEW' // the sender acted on an older member list or partition table than the receiver's
  | 'FENCED' // this member's view may be stale (removed while paused): the write was not acknowledged
  | 'SPLIT_BRAIN_PROTECTION' // a split-brain protection of the map or queue refuses: the member running it sees too few members
  | 'TIMEOUT' // an operation or member call took longer than allowed
  | 'RECOVERING' // the cluster is restarting from persisted data: data is served once it is ACTIVE
  | 'PERSISTENCE_FAILED' // a write of persisted data could not be written to a member's log (disk full, I/O error): it was not applied
  | 'NOT_ENABLED' // a subsystem that is not enabled (CP)
  | 'CP_UNAVAILABLE' // the CP subsystem or a CP group cannot answer now (not formed yet, no leader, no majority)
  | 'INDETERMINATE' // a CP operation may or may not have been applied (fail-on-indeterminate-operation-state)
  | 'UNSUPPORTED' // a request of a protocol Grid speaks that it does not serve (yet): a Hazelcast client message of a later step
  | 'CONFIG_INVALID'
  | 'INTERNAL';

/** Every code once (the compiler checks the list is complete): for codes that arrive from another member. */
const CODES: Readonly<Record<GridErrorCode, true>> = {
  BAD_REQUEST: true,
  UNKNOWN_ENDPOINT: true,
  GROUP_DISABLED: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  CONFLICT: true,
  PAYLOAD_TOO_LARGE: true,
  HEADERS_TOO_LARGE: true,
  BODY_BUDGET_FULL: true,
  QUEUE_FULL: true,
  MEMORY_LIMIT: true,
  CLUSTER_PASSIVE: true,
  MEMBER_SHUTTING_DOWN: true,
  PARTITION_UNAVAILABLE: true,
  WRONG_TARGET: true,
  PARTITION_MIGRATING: true,
  MEMBER_UNREACHABLE: true,
  NOT_MEMBER: true,
  STALE_VIEW: true,
  FENCED: true,
  SPLIT_BRAIN_PROTECTION: true,
  TIMEOUT: true,
  RECOVERING: true,
  PERSISTENCE_FAILED: true,
  NOT_ENABLED: true,
  CP_UNAVAILABLE: true,
  INDETERMINATE: true,
  UNSUPPORTED: true,
  CONFIG_INVALID: true,
  INTERNAL: true,
};

export function isGridErrorCode(code: unknown): code is GridErrorCode {
  return typeof code === 'string' && Object.hasOwn(CODES, code);
}

/**
 * Codes after which a caller may try again. Not CP_UNAVAILABLE: cp/cp-calls.ts already retried
 * it (same deduplication key) until the operation timeout, so what surfaces is final for this
 * call; never INDETERMINATE (the write may have been applied). The invoker keeps its own list of
 * what it retries (invocation/invoker.ts RETRY_CODES).
 */
const RETRYABLE: ReadonlySet<GridErrorCode> = new Set<GridErrorCode>([
  'CLUSTER_PASSIVE',
  'MEMBER_SHUTTING_DOWN',
  'PARTITION_UNAVAILABLE',
  'WRONG_TARGET',
  'PARTITION_MIGRATING',
  'MEMBER_UNREACHABLE',
  'TIMEOUT',
]);

export class GridError extends Error {
  readonly code: GridErrorCode;
  readonly retryable: boolean;

  constructor(code: GridErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GridError';
    this.code = code;
    this.retryable = RETRYABLE.has(code);
  }
}

export function isGridError(e: unknown): e is GridError {
  return e instanceof GridError;
}

/** The message of anything thrown, for logs. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
