// The error response (research note §6): message type 0, then a list of ErrorHolders (outermost
// cause first), each { errorCode, className, message?, stack trace list }. The codes are
// Hazelcast's ClientProtocolErrorCodes; the clients map them to their own errors and decide
// from the code whether to retry, so a GridError's code is translated with retry in mind.

import { GridError, type GridErrorCode } from '../core/errors.js';
import { MessageBuilder, responseInitial } from './codec.js';
import { ERROR_MESSAGE_TYPE } from './message-ids.js';

/** The codes Grid sends (a subset of protocol/ClientProtocolErrorCodes.js). */
export const ErrorCode = {
  UNDEFINED: 0,
  AUTHENTICATION: 3,
  HAZELCAST: 18,
  HAZELCAST_INSTANCE_NOT_ACTIVE: 19,
  ILLEGAL_ARGUMENT: 23,
  ILLEGAL_STATE: 27,
  MEMBER_LEFT: 33,
  OPERATION_TIMEOUT: 38,
  PARTITION_MIGRATING: 39,
  SPLIT_BRAIN_PROTECTION: 42,
  RETRYABLE_HAZELCAST: 46,
  TARGET_NOT_MEMBER: 53,
  UNSUPPORTED_OPERATION: 61,
  INDETERMINATE_OPERATION_STATE: 80,
} as const;

export interface ErrorHolder {
  readonly code: number;
  /** The Java class name the clients show (and Python matches on). */
  readonly className: string;
  readonly message: string | null;
}

const CLASS_NAMES: Readonly<Record<number, string>> = {
  [ErrorCode.UNDEFINED]: 'java.lang.RuntimeException',
  [ErrorCode.AUTHENTICATION]: 'com.hazelcast.client.AuthenticationException',
  [ErrorCode.HAZELCAST]: 'com.hazelcast.core.HazelcastException',
  [ErrorCode.HAZELCAST_INSTANCE_NOT_ACTIVE]: 'com.hazelcast.core.HazelcastInstanceNotActiveException',
  [ErrorCode.ILLEGAL_ARGUMENT]: 'java.lang.IllegalArgumentException',
  [ErrorCode.ILLEGAL_STATE]: 'java.lang.IllegalStateException',
  [ErrorCode.MEMBER_LEFT]: 'com.hazelcast.core.MemberLeftException',
  [ErrorCode.OPERATION_TIMEOUT]: 'com.hazelcast.core.OperationTimeoutException',
  [ErrorCode.PARTITION_MIGRATING]: 'com.hazelcast.spi.exception.PartitionMigratingException',
  [ErrorCode.SPLIT_BRAIN_PROTECTION]: 'com.hazelcast.splitbrainprotection.SplitBrainProtectionException',
  [ErrorCode.RETRYABLE_HAZELCAST]: 'com.hazelcast.spi.exception.RetryableHazelcastException',
  [ErrorCode.TARGET_NOT_MEMBER]: 'com.hazelcast.spi.exception.TargetNotMemberException',
  [ErrorCode.UNSUPPORTED_OPERATION]: 'java.lang.UnsupportedOperationException',
  [ErrorCode.INDETERMINATE_OPERATION_STATE]: 'com.hazelcast.core.IndeterminateOperationStateException',
};

export function holder(code: number, message: string | null): ErrorHolder {
  return { code, className: CLASS_NAMES[code] ?? CLASS_NAMES[ErrorCode.UNDEFINED]!, message };
}

/**
 * Which Hazelcast code a GridError becomes. The retryable Grid codes become codes both clients
 * retry (46/39/19, never 62 WRONG_TARGET, which the Node client does not know); the rest become
 * the nearest non-retried code so the application sees the failure at once.
 */
const BY_GRID_CODE: Readonly<Record<GridErrorCode, number>> = {
  BAD_REQUEST: ErrorCode.ILLEGAL_ARGUMENT,
  UNKNOWN_ENDPOINT: ErrorCode.UNSUPPORTED_OPERATION,
  GROUP_DISABLED: ErrorCode.UNSUPPORTED_OPERATION,
  FORBIDDEN: ErrorCode.AUTHENTICATION,
  NOT_FOUND: ErrorCode.ILLEGAL_ARGUMENT,
  CONFLICT: ErrorCode.ILLEGAL_STATE,
  PAYLOAD_TOO_LARGE: ErrorCode.ILLEGAL_ARGUMENT,
  HEADERS_TOO_LARGE: ErrorCode.ILLEGAL_ARGUMENT,
  BODY_BUDGET_FULL: ErrorCode.RETRYABLE_HAZELCAST,
  QUEUE_FULL: ErrorCode.ILLEGAL_STATE,
  MEMORY_LIMIT: ErrorCode.ILLEGAL_STATE,
  CLUSTER_PASSIVE: ErrorCode.ILLEGAL_STATE,
  MEMBER_SHUTTING_DOWN: ErrorCode.HAZELCAST_INSTANCE_NOT_ACTIVE,
  PARTITION_UNAVAILABLE: ErrorCode.RETRYABLE_HAZELCAST,
  WRONG_TARGET: ErrorCode.RETRYABLE_HAZELCAST,
  PARTITION_MIGRATING: ErrorCode.PARTITION_MIGRATING,
  MEMBER_UNREACHABLE: ErrorCode.RETRYABLE_HAZELCAST,
  NOT_MEMBER: ErrorCode.TARGET_NOT_MEMBER,
  STALE_VIEW: ErrorCode.RETRYABLE_HAZELCAST,
  FENCED: ErrorCode.RETRYABLE_HAZELCAST,
  SPLIT_BRAIN_PROTECTION: ErrorCode.SPLIT_BRAIN_PROTECTION,
  TIMEOUT: ErrorCode.OPERATION_TIMEOUT,
  RECOVERING: ErrorCode.RETRYABLE_HAZELCAST,
  PERSISTENCE_FAILED: ErrorCode.HAZELCAST,
  NOT_ENABLED: ErrorCode.UNSUPPORTED_OPERATION,
  CP_UNAVAILABLE: ErrorCode.RETRYABLE_HAZELCAST,
  INDETERMINATE: ErrorCode.INDETERMINATE_OPERATION_STATE,
  UNSUPPORTED: ErrorCode.UNSUPPORTED_OPERATION,
  CONFIG_INVALID: ErrorCode.ILLEGAL_STATE,
  INTERNAL: ErrorCode.HAZELCAST,
};

/** The error holder a failure becomes on the wire. */
export function holderOf(e: unknown): ErrorHolder {
  if (e instanceof GridError) return holder(BY_GRID_CODE[e.code], e.message);
  return holder(ErrorCode.HAZELCAST, e instanceof Error ? e.message : String(e));
}

export function encodeError(correlationId: bigint, holders: readonly ErrorHolder[]): MessageBuilder {
  const b = new MessageBuilder(responseInitial(ERROR_MESSAGE_TYPE, correlationId));
  b.begin();
  for (const h of holders) {
    const code = Buffer.alloc(4);
    code.writeInt32LE(h.code, 0);
    b.begin().frame(code).string(h.className);
    if (h.message === null) b.nullFrame();
    else b.string(h.message);
    // No stack trace: the member's frames mean nothing to a client.
    b.begin().end();
    b.end();
  }
  return b.end();
}
