// Message type ids of the client protocol (0xSSMMRR: service, method, 00 request / 01 response /
// 02+ event), checked against hazelcast-client 5.7.0's lib/codec/*Codec.js. Only what Grid
// answers or pushes is named here; every other id gets an UNSUPPORTED_OPERATION error frame.

export const MessageId = {
  ClientAuthentication: 0x000100,
  ClientAuthenticationCustom: 0x000200,
  ClientAddClusterViewListener: 0x000300,
  ClientMembersViewEvent: 0x000302,
  ClientPartitionsViewEvent: 0x000303,
  ClientCreateProxy: 0x000400,
  ClientDestroyProxy: 0x000500,
  ClientGetDistributedObjects: 0x000800,
  ClientPing: 0x000b00,
  ClientStatistics: 0x000c00,
  ClientCreateProxies: 0x000e00,
  ClientLocalBackupListener: 0x000f00,

  MapPut: 0x010100,
  MapGet: 0x010200,
  MapRemove: 0x010300,
  MapContainsKey: 0x010600,
  MapDelete: 0x010900,
  MapSet: 0x010f00,
  MapSize: 0x012a00,
  MapIsEmpty: 0x012b00,
  MapClear: 0x012d00,

  QueueOffer: 0x030100,
  QueueSize: 0x030300,
  QueuePoll: 0x030500,
  QueuePeek: 0x030700,
  QueueIsEmpty: 0x031400,
} as const;

/** The response type of a request: the request's id + 1 (the clients do not check it; Hazelcast sends it). */
export function responseType(requestType: number): number {
  return requestType + 1;
}

/** The error response's message type (research note §6). */
export const ERROR_MESSAGE_TYPE = 0;

/** Service names the clients use in proxy messages (ProxyManager.js). */
export const MAP_SERVICE = 'hz:impl:mapService';
export const QUEUE_SERVICE = 'hz:impl:queueService';

/**
 * The Hazelcast version a Grid member reports to clients (auth response, members view). The
 * Node client parses it as major.minor.patch for feature gating; Grid speaks the protocol of
 * the 5.x clients it is tested with.
 */
export const HAZELCAST_COMPAT_VERSION = '5.7.0';
