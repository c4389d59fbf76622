// CP atomic long requests of a client connection, run through the CP facade REST uses: each
// call is one command of its group's Raft log under a fresh deduplication key that the member
// retries at the next leader (so an acknowledged call is applied exactly once across a
// leader's crash, as for REST). The group is named by the RaftGroupId the client resolved
// with CreateCPGroup; Grid finds it by name.

import { GridError } from '../core/errors.js';
import type { CpFacade } from '../cp/cp-api.js';
import type { MessageBuilder, RequestHeader } from './codec.js';
import { groupIdResponse, longResponse, type AtomicLongRequest } from './atomic-long-codecs.js';
import { boolResponse } from './request-codecs.js';

/** `name@group` for the facade; a name with its own `@` would name another group, so it is refused. */
function fullName(name: string, group: string): string {
  if (name.includes('@')) throw new GridError('BAD_REQUEST', `atomic long name "${name}" must not contain "@" (the group comes with the RaftGroupId)`);
  return `${name}@${group}`;
}

export async function serveAtomicLong(h: RequestHeader, r: AtomicLongRequest, cp: CpFacade): Promise<MessageBuilder> {
  const { type, correlationId: corr } = h;
  if (!cp.enabled) {
    // Hazelcast would run the structure in its "unsafe mode" (no Raft); Grid has none: refused, not retried.
    throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled (cp-member-count is 0): Grid serves CP data structures only through Raft');
  }
  if (r.kind === 'createGroup') return groupIdResponse(type, corr, await cp.groupIdOf(r.proxyName));
  const name = fullName(r.name, r.group.name);
  switch (r.kind) {
    case 'get':
      return longResponse(type, corr, BigInt(await cp.atomicLong(name)));
    case 'addAndGet':
      return longResponse(type, corr, BigInt(await cp.addAndGet(name, r.delta.toString())));
    case 'getAndAdd':
      return longResponse(type, corr, BigInt(await cp.getAndAdd(name, r.delta.toString())));
    case 'getAndSet':
      return longResponse(type, corr, BigInt(await cp.getAndSet(name, r.value.toString())));
    case 'compareAndSet':
      return boolResponse(type, corr, await cp.compareAndSet(name, r.expected.toString(), r.updated.toString()));
    case 'function':
      throw new GridError('UNSUPPORTED', `atomic long apply/alter carry a serialized Java function, which Grid cannot run (atomic long "${r.name}")`);
  }
}
