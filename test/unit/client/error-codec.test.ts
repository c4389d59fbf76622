import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { encodeError, ErrorCode, holder, holderOf } from '../../../src/client/error-codec.js';
import { encodeMessage } from '../../../src/client/frame.js';
import { GridError, isGridErrorCode, type GridErrorCode } from '../../../src/core/errors.js';
import { hz, hzRead } from './hz-client.js';

const core = createRequire(import.meta.url)('hazelcast-client') as Record<string, new (...a: unknown[]) => Error>;

function clientErrorOf(holders: Parameters<typeof encodeError>[1]): Error {
  const m = hzRead(encodeMessage(encodeError(5n, holders).frames));
  expect(m.getMessageType()).toBe(0);
  expect(String(m.getCorrelationId())).toBe('5');
  return hz.errorFactory.createErrorFromClientMessage(m);
}

function errorClass(name: string): new (...a: unknown[]) => Error {
  const c = core[name];
  if (c === undefined) throw new Error(`hazelcast-client exports no ${name}`);
  return c;
}

/** Whether the Node client retries an invocation that failed with `e` (InvocationService.shouldRetry, no pinned connection). */
function clientRetries(e: Error): boolean {
  return ['IOError', 'HazelcastInstanceNotActiveError', 'RetryableHazelcastError'].some((name) => e instanceof errorClass(name));
}

describe('error frames', () => {
  it('decode with the client into its own error types, causes in order', () => {
    const e = clientErrorOf([holder(ErrorCode.UNSUPPORTED_OPERATION, 'nope'), holder(ErrorCode.ILLEGAL_STATE, 'because')]);
    expect(e).toBeInstanceOf(errorClass('UnsupportedOperationError'));
    expect(e.message).toBe('nope');
    expect((e as Error & { cause: Error }).cause).toBeInstanceOf(errorClass('IllegalStateError'));
    const nul = clientErrorOf([holder(ErrorCode.ILLEGAL_ARGUMENT, null)]);
    expect(nul).toBeInstanceOf(errorClass('IllegalArgumentError'));
  });

  it('every Grid error code has a Hazelcast code the client knows', () => {
    const codes = (
      [
        'BAD_REQUEST', 'UNKNOWN_ENDPOINT', 'GROUP_DISABLED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'HEADERS_TOO_LARGE',
        'BODY_BUDGET_FULL', 'QUEUE_FULL', 'MEMORY_LIMIT', 'CLUSTER_PASSIVE', 'MEMBER_SHUTTING_DOWN', 'PARTITION_UNAVAILABLE', 'WRONG_TARGET',
        'PARTITION_MIGRATING', 'MEMBER_UNREACHABLE', 'NOT_MEMBER', 'STALE_VIEW', 'FENCED', 'SPLIT_BRAIN_PROTECTION', 'TIMEOUT', 'RECOVERING',
        'PERSISTENCE_FAILED', 'NOT_ENABLED', 'CP_UNAVAILABLE', 'INDETERMINATE', 'UNSUPPORTED', 'CONFIG_INVALID', 'INTERNAL',
      ] as const
    ).filter((c) => isGridErrorCode(c));
    for (const code of codes) {
      const e = clientErrorOf([holderOf(new GridError(code, `m ${code}`))]);
      expect(e.constructor.name, code).not.toBe('UndefinedErrorCodeError');
      expect(e.message).toBe(`m ${code}`);
    }
  });

  it('the client retries exactly the failures that leave nothing done and may pass (and never gets WRONG_TARGET, which it does not know)', () => {
    const retried = new Set<GridErrorCode>([
      'BODY_BUDGET_FULL', 'MEMBER_SHUTTING_DOWN', 'PARTITION_UNAVAILABLE', 'WRONG_TARGET', 'PARTITION_MIGRATING', 'MEMBER_UNREACHABLE',
      'NOT_MEMBER', 'STALE_VIEW', 'FENCED', 'RECOVERING', 'CP_UNAVAILABLE',
    ]);
    for (const code of ['BAD_REQUEST', 'QUEUE_FULL', 'CLUSTER_PASSIVE', 'TIMEOUT', 'INDETERMINATE', 'UNSUPPORTED', 'INTERNAL', ...retried] as GridErrorCode[]) {
      expect(clientRetries(clientErrorOf([holderOf(new GridError(code, code))])), code).toBe(retried.has(code));
    }
    expect(holderOf(new GridError('WRONG_TARGET', 'x')).code).not.toBe(62);
  });

  it('an error that is not a GridError is a HazelcastError with its message', () => {
    const e = clientErrorOf([holderOf(new TypeError('boom'))]);
    expect(e).toBeInstanceOf(errorClass('HazelcastError'));
    expect(e.message).toBe('boom');
    expect(holderOf('text').message).toBe('text');
  });

  it('unsupported operations are code 61 with Java\'s class name', () => {
    expect(holderOf(new GridError('UNSUPPORTED', 'x'))).toEqual({ code: 61, className: 'java.lang.UnsupportedOperationException', message: 'x' });
  });
});
