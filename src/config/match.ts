// Hazelcast's config-name matching for maps and queues: exact name, else the wildcard
// pattern (one `*`) with the longest literal part, else `default`, else built-in defaults.
// A `@partitionKey` suffix is not part of the name.

import { DEFAULT_MAP, DEFAULT_QUEUE } from './defaults.js';
import type { FencedLockConfig, GridConfig, MapConfig, QueueConfig, SplitBrainProtectionConfig } from './types.js';

/** `name@partitionKey` -> `name`. */
export function baseName(name: string): string {
  const at = name.indexOf('@');
  return at < 0 ? name : name.slice(0, at);
}

function matches(pattern: string, name: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return false;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  return name.length >= prefix.length + suffix.length && name.startsWith(prefix) && name.endsWith(suffix);
}

/** The entry for `name`; among equally long wildcard matches the first declared wins; then `default` unless told not to. */
function find<T extends { readonly name: string }>(entries: readonly T[], name: string, withDefault = true): T | undefined {
  const exact = entries.find((e) => e.name === name);
  if (exact !== undefined) return exact;
  let best: T | undefined;
  for (const e of entries) {
    if (matches(e.name, name) && (best === undefined || e.name.length > best.name.length)) best = e;
  }
  return best ?? (withDefault ? entries.find((e) => e.name === 'default') : undefined);
}

/** Config of map `name`: the matching entry as declared (its `name` is the pattern), or built-in defaults named `name`. */
export function findMapConfig(config: GridConfig, name: string): MapConfig {
  const base = baseName(name);
  return find(config.maps, base) ?? Object.freeze({ ...DEFAULT_MAP, name: base });
}

/** Config of queue `name`, matched like maps. */
export function findQueueConfig(config: GridConfig, name: string): QueueConfig {
  const base = baseName(name);
  return find(config.queues, base) ?? Object.freeze({ ...DEFAULT_QUEUE, name: base });
}

/** lock-acquire-limit of fenced lock `name` (without `@group`): matched like maps, but no `default` entry (Hazelcast has none); 0 (reentrant) when nothing matches. */
export function lockAcquireLimitOf(config: GridConfig, name: string): number {
  return find<FencedLockConfig>(config.cpSubsystem.locks, baseName(name), false)?.lockAcquireLimit ?? 0;
}

/** The enabled split-brain protection a map or queue config refers to; undefined = unprotected. */
export function findSplitBrainProtection(config: GridConfig, ref: string | undefined): SplitBrainProtectionConfig | undefined {
  if (ref === undefined) return undefined;
  const p = config.splitBrainProtections.find((x) => x.name === ref);
  return p?.enabled === true ? p : undefined;
}
