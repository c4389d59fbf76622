import { expect } from 'vitest';
import { GridError, type GridErrorCode } from '../../../src/core/errors.js';

/** The GridError thrown by `fn`; fails the test when `fn` succeeds or throws something else. */
export function gridErrorOf(fn: () => unknown): GridError {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  if (thrown === undefined) throw new Error('expected a GridError, but nothing was thrown');
  if (!(thrown instanceof GridError)) throw new Error(`expected a GridError, got ${String(thrown)}`);
  return thrown;
}

/** Asserts that `fn` throws a GridError with `code` (and, when given, a message matching `message`). */
export function expectGridError(fn: () => unknown, code: GridErrorCode, message?: string | RegExp): GridError {
  const e = gridErrorOf(fn);
  expect(e.code).toBe(code);
  if (typeof message === 'string') expect(e.message).toBe(message);
  else if (message !== undefined) expect(e.message).toMatch(message);
  return e;
}
