// How a Grid member answers the map requests of map-codecs.ts: each through the map facade, so
// it runs on its key's owner. Every put or remove that answers with the old value, and every
// conditional one, is one atomic update on the owner (map-update.ts), never a read before a
// write. Values compare as Hazelcast compares them, by their serialized form: a client value's
// stored form (data.ts) is a one-to-one image of its Data.

import type { MaybePromise } from '../core/maybe-promise.js';
import type { MapFacade, MapUpdate, MergeEntry, UpdateResult } from '../map/map-service.js';
import type { MessageBuilder } from './codec.js';
import { dataOfStored, keyOf, storedFormOf } from './data.js';
import { entryListResponse, entryViewResponse, LONG_MAX, type MapRequest } from './map-codecs.js';
import { boolResponse, emptyResponse, nullableDataResponse } from './request-codecs.js';

function then<T, R>(v: MaybePromise<T>, f: (t: T) => R): MaybePromise<R> {
  return v instanceof Promise ? v.then(f) : f(v);
}

function oldData(r: UpdateResult): Buffer | undefined {
  return r.old === undefined ? undefined : dataOfStored(r.old.value, r.old.contentType);
}

export function serveMapRequest(maps: MapFacade, type: number, corr: bigint, r: MapRequest): MaybePromise<MessageBuilder> {
  switch (r.kind) {
    case 'put': {
      const key = keyOf(r.key);
      const stored = storedFormOf(r.value);
      const defaults = r.ttlMs < 0 && r.maxIdleMs < 0;
      // A set with the map's defaults is the plain put (no old value, nothing to decide).
      if (r.when === 'always' && r.answer === 'none' && defaults) return then(maps.put(r.name, key, stored.value, stored.contentType), () => emptyResponse(type, corr));
      const u: MapUpdate = {
        action: 'put',
        condition: { kind: r.when === 'always' ? 'none' : r.when },
        value: stored.value,
        contentType: stored.contentType,
        ttlMs: r.ttlMs,
        maxIdleMs: r.maxIdleMs,
        returnOld: r.answer === 'old',
      };
      return then(maps.update(r.name, key, u), (res) => {
        if (r.answer === 'none') return emptyResponse(type, corr);
        if (r.answer === 'applied') return boolResponse(type, corr, res.applied);
        // putIfAbsent answers the value it found (null when it put); put and replace the value they replaced.
        return nullableDataResponse(type, corr, oldData(res));
      });
    }
    case 'remove':
      return then(maps.update(r.name, keyOf(r.key), { action: 'remove', condition: { kind: 'none' }, ttlMs: -1, maxIdleMs: -1, returnOld: r.answer === 'old' }), (res) =>
        r.answer === 'old' ? nullableDataResponse(type, corr, oldData(res)) : boolResponse(type, corr, res.applied),
      );
    case 'replaceIfSame': {
      const test = storedFormOf(r.testValue);
      const stored = storedFormOf(r.value);
      const u: MapUpdate = {
        action: 'put',
        condition: { kind: 'value', value: test.value, contentType: test.contentType },
        value: stored.value,
        contentType: stored.contentType,
        ttlMs: -1,
        maxIdleMs: -1,
        returnOld: false,
      };
      return then(maps.update(r.name, keyOf(r.key), u), (res) => boolResponse(type, corr, res.applied));
    }
    case 'removeIfSame': {
      const test = storedFormOf(r.value);
      const u: MapUpdate = { action: 'remove', condition: { kind: 'value', value: test.value, contentType: test.contentType }, ttlMs: -1, maxIdleMs: -1, returnOld: false };
      return then(maps.update(r.name, keyOf(r.key), u), (res) => boolResponse(type, corr, res.applied));
    }
    case 'setTtl':
      return then(maps.update(r.name, keyOf(r.key), { action: 'ttl', condition: { kind: 'present' }, ttlMs: r.ttlMs, maxIdleMs: -1, returnOld: false }), (res) =>
        boolResponse(type, corr, res.applied),
      );
    case 'getEntryView':
      return then(maps.entryView(r.name, keyOf(r.key)), (e) => entryViewResponse(type, corr, e === undefined ? undefined : viewOf(r.key, e)));
    case 'getAll': {
      // The client sends one GetAll per partition; each key is read on its owner.
      const reads = r.keys.map((k) => then(maps.get(r.name, keyOf(k)), (v) => (v === undefined ? undefined : ([k, dataOfStored(v.value, v.contentType)] as const))));
      return Promise.all(reads).then((found) => entryListResponse(type, corr, found.filter((x) => x !== undefined)));
    }
    case 'putAll': {
      // Keys are checked before anything is written: a bad key leaves the whole batch unapplied.
      const entries = r.entries.map(([k, v]) => [keyOf(k), storedFormOf(v)] as const);
      return Promise.all(entries.map(([key, s]) => maps.put(r.name, key, s.value, s.contentType))).then(() => emptyResponse(type, corr));
    }
  }
}

/**
 * Hazelcast's entry view of a stored entry. Statistics a map does not keep read -1, as on a
 * Hazelcast member without per-entry-stats-enabled (its default; checked against 5.7.0):
 * creation, access and store times and hits always, the last update time unless the entry
 * expires (the expiry is counted from it). A store keeps statistics only for a merge policy
 * (then creationTime is set, never 0). Limits that do not apply: LONG_MAX.
 */
function viewOf(key: Buffer, e: MergeEntry): Parameters<typeof entryViewResponse>[2] {
  const maxIdle = e.maxIdleMs ?? 0;
  const idleDeadline = maxIdle > 0 ? e.lastAccessAt + maxIdle : 0;
  const deadline = e.expiresAt > 0 && idleDeadline > 0 ? Math.min(e.expiresAt, idleDeadline) : e.expiresAt > 0 ? e.expiresAt : idleDeadline;
  const value = dataOfStored(e.value, e.contentType);
  const stats = e.creationTime > 0;
  const expires = deadline > 0;
  const time = (ms: number, kept: boolean): bigint => (kept && ms > 0 ? BigInt(Math.trunc(ms)) : -1n);
  return {
    key,
    value,
    cost: BigInt(key.length + value.length),
    creationTime: time(e.creationTime, stats),
    expirationTime: expires ? BigInt(Math.trunc(deadline)) : LONG_MAX,
    hits: stats ? BigInt(Math.trunc(e.hits)) : -1n,
    lastAccessTime: time(e.lastAccessAt, stats),
    lastStoredTime: -1n,
    lastUpdateTime: time(e.lastUpdateTime, stats || expires),
    version: BigInt(e.version ?? 0),
    // The TTL as the time from the last update to the expiry (Grid keeps the deadline, not the TTL given).
    ttl: e.expiresAt > 0 ? BigInt(Math.max(0, Math.trunc(e.expiresAt - e.lastUpdateTime))) : LONG_MAX,
    maxIdle: maxIdle > 0 ? BigInt(Math.trunc(maxIdle)) : LONG_MAX,
  };
}
