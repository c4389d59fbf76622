import { ConfigError } from '../../../src/config/index.js';

/** The ConfigError thrown by `fn`; fails the test when `fn` succeeds or throws something else. */
export function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError, but loading succeeded');
}

/** A JSON form of a config with Sets and Maps spelled out, for deep comparisons. */
export function plain(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) =>
      v instanceof Set ? [...(v as Set<unknown>)].sort() : v instanceof Map ? Object.fromEntries(v as Map<string, unknown>) : v,
    ),
  ) as unknown;
}
