// The data facade: atomic longs, fenced locks and session heartbeats as REST calls them, each a
// command through its group's log (or a linearizable read) under a fresh deduplication key.
// Names are `object@group` (the `default` group when no group is named).

import { GridError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import type { CpLockInfo } from './cp-data-state.js';
import { DEFAULT_GROUP } from './cp-metadata-state.js';
import { ATTEMPT_TIMEOUT_MS, type CpContext } from './cp-context.js';
import type { CpGroupId, CpLockResult } from './cp-api.js';

export class CpDataFacade {
  constructor(private readonly ctx: CpContext) {}

  async atomicLong(name: string): Promise<string> {
    const { object, group } = splitName(name);
    return String(await this.ctx.calls.read(await this.ctx.calls.dataGroup(group), ['atomicLong', object]));
  }

  async setAtomicLong(name: string, value: string): Promise<string> {
    return String((await this.command(name, (o, k) => ['set', k, o, value])).value);
  }

  async addAndGet(name: string, delta: string): Promise<string> {
    return String((await this.command(name, (o, k) => ['add', k, o, delta])).value);
  }

  async getAndSet(name: string, value: string): Promise<string> {
    return String((await this.command(name, (o, k) => ['getAndSet', k, o, value])).value);
  }

  /** One `add` command: the old value is the new one minus the delta, wrapped as a Java long. */
  async getAndAdd(name: string, delta: string): Promise<string> {
    const now = BigInt(await this.addAndGet(name, delta));
    return BigInt.asIntN(64, now - BigInt(delta)).toString();
  }

  /** The id of the group a `name@group` object lives in (created on first use), as Hazelcast's clients address it. */
  async groupIdOf(name: string): Promise<CpGroupId> {
    const { group } = splitName(name);
    const g = await this.ctx.calls.dataGroup(group);
    return { seed: this.ctx.seed ?? 0, id: g.id, name: g.name };
  }

  async compareAndSet(name: string, expect: string, update: string): Promise<boolean> {
    return (await this.command(name, (o, k) => ['cas', k, o, expect, update])).value === true;
  }

  async lock(name: string, opts: { sessionId: number; timeoutMs: number; endpoint: string; endpointName: string; onGone?: (fn: () => void) => void }): Promise<CpLockResult> {
    const { object, group } = splitName(name);
    const g = await this.ctx.calls.dataGroup(group);
    const key = this.ctx.calls.key();
    let gone = false;
    opts.onGone?.(() => {
      gone = true;
      // The client went while waiting: take its wait back (the session stays; it expires unless used).
      void this.ctx.calls.call(g, 'cmd', ['cancel', '', key], this.ctx.deadline()).catch(() => undefined);
    });
    const waitMs = opts.timeoutMs < 0 ? 24 * 3600_000 : opts.timeoutMs;
    const deadline = this.ctx.deadline() + waitMs;
    const v = await this.ctx.calls.call(g, 'cmd', ['lock', key, object, opts.sessionId, 0, opts.timeoutMs, opts.endpoint, opts.endpointName], deadline, ATTEMPT_TIMEOUT_MS + waitMs);
    if (gone) throw new GridError('CONFLICT', 'the client went away while waiting for the lock');
    return { ...lockAnswer(v), group };
  }

  async unlock(name: string, sessionId: number): Promise<number> {
    const v = (await this.command(name, (o, k) => ['unlock', k, o, sessionId])).value;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as Record<string, WireValue>).lockCount === 'number' ? ((v as Record<string, WireValue>).lockCount as number) : 0;
  }

  async lockInfo(name: string): Promise<CpLockInfo & { group: string }> {
    const { object, group } = splitName(name);
    const t = f.tuple(await this.ctx.calls.read(await this.ctx.calls.dataGroup(group), ['lockInfo', object]), 'lock info');
    return { locked: t[0] === true, sessionId: Number(t[1]), fence: Number(t[2]), lockCount: Number(t[3]), waiters: Number(t[4]), group };
  }

  async heartbeat(group: string, sessionId: number): Promise<{ sessionId: number; expirationTime: number }> {
    const g = await this.ctx.calls.existingGroup(group);
    const v = await this.ctx.calls.call(g, 'cmd', ['heartbeat', this.ctx.calls.key(), sessionId, 0], this.ctx.deadline());
    const o = v as Record<string, WireValue>;
    return { sessionId, expirationTime: Number(o.expirationTime) };
  }

  private async command(name: string, build: (object: string, key: string) => WireValue[]): Promise<{ value: WireValue; group: string }> {
    const { object, group } = splitName(name);
    const g = await this.ctx.calls.dataGroup(group);
    return { value: await this.ctx.calls.call(g, 'cmd', build(object, this.ctx.calls.key()), this.ctx.deadline()), group };
  }
}

/** `name@group` -> the object's name and its group (default when absent). */
export function splitName(full: string): { object: string; group: string } {
  const at = full.indexOf('@');
  if (at < 0) return { object: full, group: DEFAULT_GROUP };
  const object = full.slice(0, at);
  const group = full.slice(at + 1);
  if (object.length === 0) throw new GridError('BAD_REQUEST', `"${full}": the name before "@" is empty`);
  if (group.includes('@')) throw new GridError('BAD_REQUEST', `"${full}": more than one "@"`);
  if (group.length === 0) throw new GridError('BAD_REQUEST', `"${full}": the group after "@" is empty`);
  return { object, group };
}

function lockAnswer(v: WireValue): Omit<CpLockResult, 'group'> {
  const o = (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Record<string, WireValue>;
  return { acquired: o.acquired === true, fence: Number(o.fence ?? 0), sessionId: Number(o.sessionId ?? 0), lockCount: Number(o.lockCount ?? 0) };
}
