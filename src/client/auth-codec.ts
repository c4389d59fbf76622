// ClientAuthentication (0x000100 -> 0x000101), the first message of every client connection
// (research note §2): the request names the cluster and (with security) the credentials; the
// response carries a status, the member's uuid, the partition count and the cluster id.

import { MessageBuilder, MessageCursor, readByte, readUuid, REQUEST_FIXED_OFFSET, RESPONSE_FIXED_OFFSET, responseInitial, UUID_BYTES, writeUuid } from './codec.js';
import type { ClientMessage } from './frame.js';
import { responseType, MessageId } from './message-ids.js';

export interface AuthRequest {
  readonly clientUuid: string | null;
  readonly serializationVersion: number;
  readonly clusterName: string;
  readonly username: string | null;
  readonly password: string | null;
  readonly clientType: string;
  readonly clientVersion: string;
  readonly clientName: string;
  readonly labels: readonly string[];
}

/** Hazelcast's AuthenticationStatus (protocol/AuthenticationStatus.js). */
export const AuthStatus = {
  AUTHENTICATED: 0,
  CREDENTIALS_FAILED: 1,
  SERIALIZATION_VERSION_MISMATCH: 2,
  NOT_ALLOWED_IN_CLUSTER: 3,
} as const;
export type AuthStatusCode = (typeof AuthStatus)[keyof typeof AuthStatus];

/** The only serialization version the clients speak. */
export const SERIALIZATION_VERSION = 1;

export function decodeAuthRequest(m: ClientMessage): AuthRequest {
  const c = new MessageCursor(m);
  const init = c.initial;
  const clientUuid = readUuid(init, REQUEST_FIXED_OFFSET, 'client uuid');
  const serializationVersion = readByte(init, REQUEST_FIXED_OFFSET + UUID_BYTES, 'serialization version');
  const clusterName = c.string('cluster name');
  const username = c.nullable(() => c.string('username'));
  const password = c.nullable(() => c.string('password'));
  const clientType = c.string('client type');
  const clientVersion = c.string('client version');
  const clientName = c.string('client name');
  const labels = c.list(() => c.string('label'), 'labels');
  return { clientUuid, serializationVersion, clusterName, username, password, clientType, clientVersion, clientName, labels };
}

export interface AuthResponse {
  readonly status: AuthStatusCode;
  /** Null when refused (as Hazelcast sends it). */
  readonly memberUuid: string | null;
  readonly partitionCount: number;
  readonly clusterId: string | null;
  /** The member's client-reachable address; null when refused. */
  readonly address: { readonly host: string; readonly port: number } | null;
  readonly serverVersion: string;
}

const STATUS = RESPONSE_FIXED_OFFSET;
const MEMBER_UUID = STATUS + 1;
const SER_VERSION = MEMBER_UUID + UUID_BYTES;
const PARTITION_COUNT = SER_VERSION + 1;
const CLUSTER_ID = PARTITION_COUNT + 4;
const FAILOVER = CLUSTER_ID + UUID_BYTES;
const FIXED_BYTES = FAILOVER + 1 - RESPONSE_FIXED_OFFSET;

export function encodeAuthResponse(correlationId: bigint, r: AuthResponse): MessageBuilder {
  const init = responseInitial(responseType(MessageId.ClientAuthentication), correlationId, FIXED_BYTES);
  init[STATUS] = r.status;
  writeUuid(init, MEMBER_UUID, r.memberUuid);
  init[SER_VERSION] = SERIALIZATION_VERSION;
  init.writeInt32LE(r.partitionCount, PARTITION_COUNT);
  writeUuid(init, CLUSTER_ID, r.clusterId);
  // failoverSupported stays 0: Hazelcast's open-source members say no (blue/green failover is Enterprise).
  const b = new MessageBuilder(init);
  if (r.address === null) b.nullFrame();
  else b.begin().frame(int32(r.address.port)).string(r.address.host).end();
  return b.string(r.serverVersion);
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v, 0);
  return b;
}
