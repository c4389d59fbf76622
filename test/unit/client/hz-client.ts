// The official Node.js client's own codecs (hazelcast-client 5.7.0, lib/), loaded for the unit
// tests as an independent check: what Grid encodes must decode with the client's decoders, and
// what the client's encoders write must decode with Grid's. The package ships no types for
// these internals, so each is given the narrow shape the tests use.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const lib = (path: string): Record<string, unknown> => require(`hazelcast-client/lib/${path}`) as Record<string, unknown>;

export interface HzLong {
  toString(): string;
}
export interface HzUuid {
  toString(): string;
}
export interface HzData {
  toBuffer(): Buffer;
}
export interface HzMessage {
  getMessageType(): number;
  getCorrelationId(): HzLong;
  getPartitionId(): number;
  setCorrelationId(id: HzLong): void;
  setPartitionId(id: number): void;
  getTotalLength(): number;
  writeTo(buf: Buffer, offset?: number): void;
}

type Codec = Record<string, (...args: unknown[]) => unknown>;
const codec = (name: string, dir = 'codec'): Codec => lib(`${dir}/${name}.js`)[name] as Codec;

// The client's own copy of `long` (its dependency, not ours), resolved from the client's package.
export const Long = createRequire(require.resolve('hazelcast-client'))('long') as { fromNumber(n: number): HzLong; fromString(s: string, unsigned?: boolean, radix?: number): HzLong };
const UUIDClass = (lib('core/UUID.js').UUID as new (msb: HzLong, lsb: HzLong) => HzUuid);
const HeapData = lib('serialization/HeapData.js').HeapData as new (buf: Buffer) => HzData;
const ReaderClass = lib('network/Connection.js').ClientMessageReader as new () => { append(b: Buffer): void; read(): HzMessage | null };

export function hzUuid(text: string): HzUuid {
  const hex = text.replaceAll('-', '');
  return new UUIDClass(Long.fromString(hex.slice(0, 16), true, 16), Long.fromString(hex.slice(16), true, 16));
}

export function hzData(buf: Buffer): HzData {
  return new HeapData(buf);
}

/** The bytes of a message the client's encoder built (as its writer puts them on the socket). */
export function hzBytes(m: HzMessage, correlationId = 7, partitionId = -1): Buffer {
  m.setCorrelationId(Long.fromNumber(correlationId));
  m.setPartitionId(partitionId);
  const b = Buffer.alloc(m.getTotalLength());
  m.writeTo(b);
  return b;
}

/** Decodes bytes with the client's own message reader (one whole message expected). */
export function hzRead(bytes: Buffer): HzMessage {
  const r = new ReaderClass();
  r.append(bytes);
  const m = r.read();
  if (m === null) throw new Error('the client reader found no whole message');
  return m;
}

export const hz = {
  auth: codec('ClientAuthenticationCodec'),
  clusterView: codec('ClientAddClusterViewListenerCodec'),
  errors: codec('ErrorsCodec', 'codec/builtin'),
  fixed: codec('FixSizedTypesCodec', 'codec/builtin'),
  mapPut: codec('MapPutCodec'),
  mapSet: codec('MapSetCodec'),
  mapGet: codec('MapGetCodec'),
  mapRemove: codec('MapRemoveCodec'),
  mapDelete: codec('MapDeleteCodec'),
  mapContainsKey: codec('MapContainsKeyCodec'),
  mapSize: codec('MapSizeCodec'),
  mapIsEmpty: codec('MapIsEmptyCodec'),
  mapClear: codec('MapClearCodec'),
  mapPutTransient: codec('MapPutTransientCodec'),
  mapPutIfAbsent: codec('MapPutIfAbsentCodec'),
  mapReplace: codec('MapReplaceCodec'),
  mapReplaceIfSame: codec('MapReplaceIfSameCodec'),
  mapRemoveIfSame: codec('MapRemoveIfSameCodec'),
  mapTryPut: codec('MapTryPutCodec'),
  mapTryRemove: codec('MapTryRemoveCodec'),
  mapPutAll: codec('MapPutAllCodec'),
  mapGetAll: codec('MapGetAllCodec'),
  mapSetTtl: codec('MapSetTtlCodec'),
  mapGetEntryView: codec('MapGetEntryViewCodec'),
  mapPutWithMaxIdle: codec('MapPutWithMaxIdleCodec'),
  mapSetWithMaxIdle: codec('MapSetWithMaxIdleCodec'),
  mapPutTransientWithMaxIdle: codec('MapPutTransientWithMaxIdleCodec'),
  mapPutIfAbsentWithMaxIdle: codec('MapPutIfAbsentWithMaxIdleCodec'),
  queueOffer: codec('QueueOfferCodec'),
  queuePoll: codec('QueuePollCodec'),
  queuePeek: codec('QueuePeekCodec'),
  queueSize: codec('QueueSizeCodec'),
  queueIsEmpty: codec('QueueIsEmptyCodec'),
  backupListener: codec('ClientLocalBackupListenerCodec'),
  mapAddEntryListener: codec('MapAddEntryListenerCodec'),
  mapAddEntryListenerToKey: codec('MapAddEntryListenerToKeyCodec'),
  mapAddEntryListenerWithPredicate: codec('MapAddEntryListenerWithPredicateCodec'),
  mapAddEntryListenerToKeyWithPredicate: codec('MapAddEntryListenerToKeyWithPredicateCodec'),
  mapRemoveEntryListener: codec('MapRemoveEntryListenerCodec'),
  errorFactory: new (lib('protocol/ErrorFactory.js').ClientErrorFactory as new () => { createErrorFromClientMessage(m: HzMessage): Error }),
};

/** The Node client's serializer with default options (string -> String, number -> Double, Buffer -> byte[], object -> JSON). */
export function hzSerializer(): { toData(v: unknown): HzData; toObject(d: HzData): unknown } {
  const { SerializationServiceV1 } = lib('serialization/SerializationService.js') as {
    SerializationServiceV1: new (cfg: unknown, schema: unknown) => { toData(v: unknown): HzData; toObject(d: HzData): unknown };
  };
  const { SerializationConfigImpl } = lib('config/SerializationConfig.js') as { SerializationConfigImpl: new () => unknown };
  return new SerializationServiceV1(new SerializationConfigImpl(), undefined);
}

/** The Node client's own partition service (default serializer, 271 partitions): getPartitionId as the client routes with it. */
export function hzPartitioner(): { getPartitionId(key: unknown): number } {
  const { PartitionServiceImpl } = lib('PartitionService.js') as {
    PartitionServiceImpl: new (logger: unknown, ss: unknown) => { partitionCount: number; getPartitionId(key: unknown): number };
  };
  const ps = new PartitionServiceImpl({ debug: () => undefined, trace: () => undefined }, hzSerializer());
  ps.partitionCount = 271;
  return ps;
}

/** The client's murmur (invocation/Murmur.js), over a Buffer: a signed int32. */
export const hzMurmur = lib('invocation/Murmur.js').murmur as (b: Buffer) => number;
