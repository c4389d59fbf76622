// CP atomic long requests of the client protocol (service 0x09) and the CPGroup call the
// clients send first to resolve `name@group` (0x1E0100), research note §5.4, checked against
// hazelcast-client 5.7.0's lib/codec/AtomicLong*Codec.js, CPGroupCreateCPGroupCodec.js and
// custom/RaftGroupIdCodec.js. A RaftGroupId is BEGIN, {seed i64, id i64}, name, END. Pure.

import type { CpGroupId } from '../cp/cp-api.js';
import { MessageBuilder, MessageCursor, readInt64, REQUEST_FIXED_OFFSET, RESPONSE_FIXED_OFFSET, responseInitial } from './codec.js';
import type { ClientMessage } from './frame.js';
import { emptyResponse } from './request-codecs.js';
import { responseType } from './message-ids.js';

export const AtomicLongMessageId = {
  Apply: 0x090100,
  Alter: 0x090200,
  AddAndGet: 0x090300,
  CompareAndSet: 0x090400,
  Get: 0x090500,
  GetAndAdd: 0x090600,
  GetAndSet: 0x090700,
  CreateCpGroup: 0x1e0100,
} as const;

/** The RaftGroupId a client sends with each call: the group it resolved through CreateCpGroup. */
export interface ClientGroupId {
  readonly seed: bigint;
  readonly id: bigint;
  readonly name: string;
}

export type AtomicLongRequest =
  | { readonly kind: 'createGroup'; readonly proxyName: string }
  | { readonly kind: 'get'; readonly group: ClientGroupId; readonly name: string }
  | { readonly kind: 'addAndGet' | 'getAndAdd'; readonly group: ClientGroupId; readonly name: string; readonly delta: bigint }
  | { readonly kind: 'getAndSet'; readonly group: ClientGroupId; readonly name: string; readonly value: bigint }
  | { readonly kind: 'compareAndSet'; readonly group: ClientGroupId; readonly name: string; readonly expected: bigint; readonly updated: bigint }
  /** Apply and Alter carry a serialized Java function: refused. */
  | { readonly kind: 'function'; readonly group: ClientGroupId; readonly name: string };

function groupId(c: MessageCursor): ClientGroupId {
  c.begin('RaftGroupId');
  const fixed = c.bytes('RaftGroupId fields');
  const seed = readInt64(fixed, 0, 'RaftGroupId seed');
  const id = readInt64(fixed, 8, 'RaftGroupId id');
  const name = c.string('RaftGroupId name');
  c.fastForwardToEnd('RaftGroupId');
  return { seed, id, name };
}

/** The atomic long (or CPGroup) request a message carries; undefined when its type is not one. */
export function decodeAtomicLongRequest(type: number, m: ClientMessage): AtomicLongRequest | undefined {
  const c = new MessageCursor(m);
  const init = c.initial;
  switch (type) {
    case AtomicLongMessageId.CreateCpGroup:
      return { kind: 'createGroup', proxyName: c.string('proxy name') };
    case AtomicLongMessageId.Get:
      return { kind: 'get', group: groupId(c), name: c.string('atomic long name') };
    case AtomicLongMessageId.AddAndGet:
    case AtomicLongMessageId.GetAndAdd: {
      const delta = readInt64(init, REQUEST_FIXED_OFFSET, 'delta');
      return { kind: type === AtomicLongMessageId.AddAndGet ? 'addAndGet' : 'getAndAdd', group: groupId(c), name: c.string('atomic long name'), delta };
    }
    case AtomicLongMessageId.GetAndSet: {
      const value = readInt64(init, REQUEST_FIXED_OFFSET, 'new value');
      return { kind: 'getAndSet', group: groupId(c), name: c.string('atomic long name'), value };
    }
    case AtomicLongMessageId.CompareAndSet: {
      const expected = readInt64(init, REQUEST_FIXED_OFFSET, 'expected');
      const updated = readInt64(init, REQUEST_FIXED_OFFSET + 8, 'updated');
      return { kind: 'compareAndSet', group: groupId(c), name: c.string('atomic long name'), expected, updated };
    }
    case AtomicLongMessageId.Apply:
    case AtomicLongMessageId.Alter:
      return { kind: 'function', group: groupId(c), name: c.string('atomic long name') };
    default:
      return undefined;
  }
}

export function longResponse(requestType: number, correlationId: bigint, v: bigint): MessageBuilder {
  const init = responseInitial(responseType(requestType), correlationId, 8);
  init.writeBigInt64LE(BigInt.asIntN(64, v), RESPONSE_FIXED_OFFSET);
  return new MessageBuilder(init);
}

/** CreateCPGroup's answer: an empty initial frame, then the RaftGroupId. */
export function groupIdResponse(requestType: number, correlationId: bigint, g: CpGroupId): MessageBuilder {
  const fixed = Buffer.alloc(16);
  fixed.writeBigInt64LE(BigInt(g.seed), 0);
  fixed.writeBigInt64LE(BigInt(g.id), 8);
  return emptyResponse(requestType, correlationId).begin().frame(fixed).string(g.name).end();
}
