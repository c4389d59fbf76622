// The WAN messages' payloads (types 50-58) on pinned bytes, like payloads.test.ts does for the
// rest of the member protocol. Each vector is encoded by its wan-payloads.ts encoder and
// compared to the tuple written out by hand (`wire`) and to a hex literal; the frame is read
// back whole and one byte at a time and decoded to the payload. Then every decoder is fed a
// wrong type at each field and truncated tuples: a BAD_REQUEST that names the field; optional
// fields may be absent or null. WanSyncStatus, WanAddConfig and WanConfigs have no pair in
// wan-payloads.ts: wan-service.ts reads their requests inline, restated here (WAN_INLINE).

import { describe, expect, it } from 'vitest';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import * as F from '../../../src/protocol/fields.js';
import { FrameKind, encodeFrame } from '../../../src/protocol/frame.js';
import { Msg } from '../../../src/protocol/messages.js';
import * as W from '../../../src/protocol/wan-payloads.js';
import { SAMPLES, asTuple, callIdOf, conformsCommon, expectFrameDecodes, expectNames, expectPrefixesRefused, expectRoundTrip, refusal, type PayloadVector } from '../../support/payload-vectors.js';

/** How a field is read, for choosing values of the wrong type. */
type Kind =
  | 'str'
  | 'optStr'
  | 'int'
  /** An integer, or null / left off. */
  | 'optInt'
  | 'num'
  | 'bool'
  /** Items are checked (a wrong item is named `name[i]`); only an empty array surely conforms. */
  | 'arr'
  | 'strArr'
  /** null (all) or an array of strings. */
  | 'optStrArr'
  | 'latin1'
  /** A WAN event's kind: 0 (put) or 1 (remove). */
  | 'eventKind'
  /** A WAN job's kind: 'sync' or 'check'. */
  | 'jobKind'
  /** null, or a tuple whose items are checked. */
  | 'optTuple'
  /** Bytes, a whole number of int32s. */
  | 'int32Bytes';

interface Vector extends PayloadVector<Kind> {
  /** Frame kind (answers: Response); undefined: a value nested in another payload, pinned as a value. */
  readonly kind: number | undefined;
  readonly payload: unknown;
  /** The tuple, written out by hand from the layout in messages.ts / wan-payloads.ts. */
  readonly wire: WireValue;
  /** null decodes (to undefined): an answer that may be empty. */
  readonly nullable?: boolean;
}

/**
 * The WAN requests wan-service.ts reads inline (net.handle(Msg.WanSyncStatus / WanAddConfig /
 * WanConfigs, ...)), restated with the same reads and names; its callers send `[uuid]`,
 * `[text]` and `[]`, and a member that joined reads the WanConfigs answer with f.strings.
 */
const WAN_INLINE = {
  encodeSyncStatus: (p: { uuid: string }): WireValue => [p.uuid],
  decodeSyncStatus: (v: WireValue): { uuid: string } => ({ uuid: F.str(F.tuple(v, 'wan sync status'), 0, 'uuid') }),
  encodeAddConfig: (p: { json: string }): WireValue => [p.json],
  decodeAddConfig: (v: WireValue): { json: string } => ({ json: F.str(F.tuple(v, 'wan add config'), 0, 'json') }),
  /** The handler reads nothing of its payload. */
  encodeConfigs: (): WireValue => [],
  decodeConfigs: (): object => ({}),
  encodeConfigsAnswer: (p: readonly string[]): WireValue => [...p],
  decodeConfigsAnswer: (v: WireValue): string[] => F.strings([v], 0, 'wan configs'),
};

const STATS: W.WanEntryStats = { creationTime: 1700000000000, lastUpdateTime: 1700000000500, lastAccessTime: 1700000001000, hits: 3 };
const PUT: W.WanBatchEvent = {
  mapName: 'orders',
  kind: 'put',
  key: 'k1',
  value: 'v\u00e9',
  contentType: 'text/plain',
  ttlRemainingMs: 60000,
  mergePolicy: 'PassThroughMergePolicy',
  originClusters: ['A'],
  stats: STATS,
};
const PUT_WIRE: WireValue = ['orders', 0, 'k1', new Latin1('v\u00e9'), 'text/plain', 60000, 'PassThroughMergePolicy', ['A'], [1700000000000, 1700000000500, 1700000001000, 3]];
const REMOVE: W.WanBatchEvent = {
  mapName: 'orders',
  kind: 'remove',
  key: 'k2',
  value: '',
  contentType: undefined,
  ttlRemainingMs: undefined,
  mergePolicy: 'PassThroughMergePolicy',
  originClusters: ['B', 'A'],
  stats: undefined,
};
const REMOVE_WIRE: WireValue = ['orders', 1, 'k2', null, null, -1, 'PassThroughMergePolicy', ['B', 'A'], null];

const JOB: W.WanJobPart = {
  kind: 'check',
  wanRepName: 'to-b',
  publisherId: 'b',
  mapNames: ['orders'],
  creationTime: 1700000000000,
  participants: ['u1', 'u2'],
  partitions: 136,
  done: 40,
  failure: undefined,
  partitionsDiffering: 2,
  leavesChecked: 40960,
  leavesDiffering: 3,
  entriesToSync: 17,
};
const JOB_WIRE: WireValue = ['check', 'to-b', 'b', ['orders'], 1700000000000, ['u1', 'u2'], 136, 40, null, 2, 40960, 3, 17];

const VECTORS: readonly Vector[] = [
  {
    name: 'WanAuth',
    kind: FrameKind.Request,
    type: Msg.WanAuth,
    payload: { sourceCluster: 'A', targetCluster: 'B', uuid: 'u1', address: '10.0.0.1:5701', username: 'admin', password: 'pw', version: '0.1.0', partitionHash: 2 } satisfies W.WanAuthPayload,
    encode: W.encodeWanAuth,
    decode: W.decodeWanAuth,
    wire: ['A', 'B', 'u1', '10.0.0.1:5701', 'admin', 'pw', '0.1.0', 2],
    hex: '0000005101003200000007080000000805000000014105000000014205000000027531050000000d31302e302e302e313a35373031050000000561646d696e050000000270770500000005302e312e300300000002',
    fields: [
      { name: 'source cluster', kind: 'str' },
      { name: 'target cluster', kind: 'str' },
      { name: 'uuid', kind: 'str' },
      { name: 'address', kind: 'str' },
      { name: 'username', kind: 'optStr' },
      { name: 'password', kind: 'optStr' },
      { name: 'version', kind: 'str' },
      { name: 'partition hash version', kind: 'optInt' },
    ],
    // username and password may be null, the version after them may not; the partition hash version may be left off (an older Grid).
    truncNames: { 4: 'version', 5: 'version' },
    minLength: 7,
  },
  {
    // Also what an older Grid (partition hash version 1) sends: no partition hash version.
    name: 'WanAuth without credentials',
    kind: FrameKind.Request,
    type: Msg.WanAuth,
    payload: { sourceCluster: 'A', targetCluster: 'B', uuid: 'u1', address: '10.0.0.1:5701', username: undefined, password: undefined, version: '0.1.0' } satisfies W.WanAuthPayload,
    encode: W.encodeWanAuth,
    decode: W.decodeWanAuth,
    wire: ['A', 'B', 'u1', '10.0.0.1:5701', null, null, '0.1.0'],
    hex: '0000003d01003200000007080000000705000000014105000000014205000000027531050000000d31302e302e302e313a3537303100000500000005302e312e30',
  },
  {
    name: 'WanAuth answer',
    kind: FrameKind.Response,
    type: 0,
    payload: { clusterName: 'B', uuid: 'u9', partitionHash: 2 } satisfies W.WanAuthAnswer,
    encode: W.encodeWanAuthAnswer,
    decode: W.decodeWanAuthAnswer,
    wire: ['B', 'u9', 2],
    hex: '0000001e020000000000070800000003050000000142050000000275390300000002',
    minLength: 2,
    fields: [
      { name: 'cluster name', kind: 'str' },
      { name: 'uuid', kind: 'str' },
      { name: 'partition hash version', kind: 'optInt' },
    ],
  },
  {
    name: 'WAN event (put, every field)',
    kind: undefined,
    type: 0,
    payload: PUT,
    encode: W.encodeWanEvent,
    decode: (v) => W.decodeWanEvent(v),
    wire: PUT_WIRE,
    hex: '080000000905000000066f7264657273030000000005000000026b31060000000276e9050000000a746578742f706c61696e030000ea600500000016506173735468726f7567684d65726765506f6c69637908000000010500000001410800000004044278bcfe56800000044278bcfe569f4000044278bcfe56be80000300000003',
    fields: [
      { name: 'wan event.map', kind: 'str' },
      { name: 'wan event.kind', kind: 'eventKind' },
      { name: 'wan event.key', kind: 'str' },
      { name: 'wan event.value', kind: 'latin1' },
      { name: 'wan event.contentType', kind: 'optStr' },
      { name: 'wan event.ttl', kind: 'num' },
      { name: 'wan event.mergePolicy', kind: 'str' },
      { name: 'wan event.origins', kind: 'strArr' },
      { name: 'wan event.stats', kind: 'optTuple' },
    ],
    minLength: 8,
    // The kind is read first, then the TTL, then the rest in order.
    truncNames: { 0: 'wan event.kind', 2: 'wan event.ttl', 3: 'wan event.ttl', 4: 'wan event.ttl' },
  },
  {
    name: 'WAN event (put: no content type, no TTL, no stats)',
    kind: undefined,
    type: 0,
    payload: { ...PUT, contentType: undefined, ttlRemainingMs: undefined, stats: undefined } satisfies W.WanBatchEvent,
    encode: W.encodeWanEvent,
    decode: (v) => W.decodeWanEvent(v),
    wire: ['orders', 0, 'k1', new Latin1('v\u00e9'), null, -1, 'PassThroughMergePolicy', ['A'], null],
    hex: '080000000905000000066f7264657273030000000005000000026b31060000000276e90003ffffffff0500000016506173735468726f7567684d65726765506f6c696379080000000105000000014100',
  },
  {
    name: 'WAN event (remove)',
    kind: undefined,
    type: 0,
    payload: REMOVE,
    encode: W.encodeWanEvent,
    decode: (v) => W.decodeWanEvent(v),
    wire: REMOVE_WIRE,
    hex: '080000000905000000066f7264657273030000000105000000026b32000003ffffffff0500000016506173735468726f7567684d65726765506f6c696379080000000205000000014205000000014100',
  },
  {
    name: 'WanBatch',
    kind: FrameKind.Request,
    type: Msg.WanBatch,
    payload: { sourceCluster: 'A', ackOnReceipt: false, events: [PUT, REMOVE] } satisfies W.WanBatchPayload,
    encode: W.encodeWanBatch,
    decode: W.decodeWanBatch,
    wire: ['A', false, [PUT_WIRE, REMOVE_WIRE]],
    hex: '000000ea010033000000070800000003050000000141010800000002080000000905000000066f7264657273030000000005000000026b31060000000276e9050000000a746578742f706c61696e030000ea600500000016506173735468726f7567684d65726765506f6c69637908000000010500000001410800000004044278bcfe56800000044278bcfe569f4000044278bcfe56be80000300000003080000000905000000066f7264657273030000000105000000026b32000003ffffffff0500000016506173735468726f7567684d65726765506f6c696379080000000205000000014205000000014100',
    fields: [
      { name: 'source cluster', kind: 'str' },
      { name: 'ack on receipt', kind: 'bool' },
      { name: 'events', kind: 'arr' },
    ],
    // The events are read first.
    truncNames: { 0: 'events', 1: 'events' },
  },
  {
    name: 'WanBatch (ACK_ON_RECEIPT, no events)',
    kind: FrameKind.Request,
    type: Msg.WanBatch,
    payload: { sourceCluster: 'A', ackOnReceipt: true, events: [] } satisfies W.WanBatchPayload,
    encode: W.encodeWanBatch,
    decode: W.decodeWanBatch,
    wire: ['A', true, []],
    hex: '00000018010033000000070800000003050000000141020800000000',
  },
  {
    name: 'WanMerkle',
    kind: FrameKind.Request,
    type: Msg.WanMerkle,
    payload: { mapName: 'orders', partitionId: 270, level: 10 } satisfies W.WanMerklePayload,
    encode: W.encodeWanMerkle,
    decode: W.decodeWanMerkle,
    wire: ['orders', 270, 10],
    hex: '0000002101003400000007080000000305000000066f7264657273030000010e030000000a',
    fields: [
      { name: 'map', kind: 'str' },
      { name: 'partition id', kind: 'int' },
      { name: 'level', kind: 'int' },
    ],
  },
  {
    name: 'WanMerkle answer',
    kind: FrameKind.Response,
    type: 0,
    payload: { level: 2, hashes: Int32Array.of(1, -1, -2147483648, 2147483647) } satisfies W.WanMerkleAnswer,
    encode: W.encodeWanMerkleAnswer,
    decode: W.decodeWanMerkleAnswer,
    // int32 little endian, one per node of the level.
    wire: [2, Uint8Array.of(1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f)],
    hex: '000000260200000000000708000000020300000002070000001001000000ffffffff00000080ffffff7f',
    fields: [
      { name: 'level', kind: 'int' },
      { name: 'merkle hashes', kind: 'int32Bytes', orMatches: /: merkle hashes$/ },
    ],
  },
  {
    name: 'WanMerkle answer (an empty level)',
    kind: FrameKind.Response,
    type: 0,
    payload: { level: 0, hashes: new Int32Array(0) } satisfies W.WanMerkleAnswer,
    encode: W.encodeWanMerkleAnswer,
    decode: W.decodeWanMerkleAnswer,
    wire: [0, new Uint8Array(0)],
    hex: '0000001602000000000007080000000203000000000700000000',
  },
  {
    name: 'WanSyncStart',
    kind: FrameKind.Request,
    type: Msg.WanSyncStart,
    payload: {
      uuid: 'j1',
      kind: 'sync',
      wanRepName: 'to-b',
      publisherId: 'b',
      mapNames: ['orders', 'users'],
      creationTime: 1700000000000,
      participants: ['u1', 'u2'],
    } satisfies W.WanSyncStartPayload,
    encode: W.encodeWanSyncStart,
    decode: W.decodeWanSyncStart,
    wire: ['j1', 'sync', 'to-b', 'b', ['orders', 'users'], 1700000000000, ['u1', 'u2']],
    hex: '0000006101003500000007080000000705000000026a31050000000473796e630500000004746f2d62050000000162080000000205000000066f726465727305000000057573657273044278bcfe5680000008000000020500000002753105000000027532',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'kind', kind: 'jobKind', orMatches: /: wan job kind / },
      { name: 'wan replication', kind: 'str' },
      { name: 'publisher id', kind: 'str' },
      { name: 'map names', kind: 'optStrArr' },
      { name: 'creation time', kind: 'num' },
      { name: 'participants', kind: 'strArr' },
    ],
    // The kind is read first.
    truncNames: { 0: 'kind' },
  },
  {
    name: 'WanSyncStart (a check of all maps)',
    kind: FrameKind.Request,
    type: Msg.WanSyncStart,
    payload: { uuid: 'j2', kind: 'check', wanRepName: 'to-b', publisherId: 'b', mapNames: undefined, creationTime: 1700000000000.5, participants: [] } satisfies W.WanSyncStartPayload,
    encode: W.encodeWanSyncStart,
    decode: W.decodeWanSyncStart,
    wire: ['j2', 'check', 'to-b', 'b', null, 1700000000000.5, []],
    hex: '0000003b01003500000007080000000705000000026a320500000005636865636b0500000004746f2d6205000000016200044278bcfe568008000800000000',
  },
  {
    name: 'WanSyncStatus',
    kind: FrameKind.Request,
    type: Msg.WanSyncStatus,
    payload: { uuid: 'j1' },
    encode: WAN_INLINE.encodeSyncStatus,
    decode: WAN_INLINE.decodeSyncStatus,
    wire: ['j1'],
    hex: '0000001301003600000007080000000105000000026a31',
    fields: [{ name: 'uuid', kind: 'str' }],
  },
  {
    name: 'WanSyncStatus answer (a job part)',
    kind: FrameKind.Response,
    type: 0,
    payload: JOB,
    encode: W.encodeWanJobPart,
    decode: W.decodeWanJobPart,
    wire: JOB_WIRE,
    hex: '0000007002000000000007080000000d0500000005636865636b0500000004746f2d62050000000162080000000105000000066f7264657273044278bcfe568000000800000002050000000275310500000002753203000000880300000028000300000002030000a00003000000030300000011',
    nullable: true,
    fields: [
      { name: 'kind', kind: 'jobKind', orMatches: /: wan job kind / },
      { name: 'wan replication', kind: 'str' },
      { name: 'publisher id', kind: 'str' },
      { name: 'map names', kind: 'optStrArr' },
      { name: 'creation time', kind: 'num' },
      { name: 'participants', kind: 'strArr' },
      { name: 'partitions', kind: 'int' },
      { name: 'done', kind: 'int' },
      { name: 'failure', kind: 'optStr' },
      { name: 'partitions differing', kind: 'int' },
      { name: 'leaves checked', kind: 'int' },
      { name: 'leaves differing', kind: 'int' },
      { name: 'entries to sync', kind: 'int' },
    ],
    // The failure may be null, the counts after it may not.
    truncNames: { 8: 'partitions differing' },
  },
  {
    name: 'WanSyncStatus answer (a failed sync of all maps)',
    kind: FrameKind.Response,
    type: 0,
    payload: { ...JOB, kind: 'sync', mapNames: undefined, failure: 'target unreachable' } satisfies W.WanJobPart,
    encode: W.encodeWanJobPart,
    decode: W.decodeWanJobPart,
    wire: ['sync', 'to-b', 'b', null, 1700000000000, ['u1', 'u2'], 136, 40, 'target unreachable', 2, 40960, 3, 17],
    hex: '0000007602000000000007080000000d050000000473796e630500000004746f2d6205000000016200044278bcfe568000000800000002050000000275310500000002753203000000880300000028050000001274617267657420756e726561636861626c650300000002030000a00003000000030300000011',
  },
  {
    name: 'WanSyncStatus answer (no such job here)',
    kind: FrameKind.Response,
    type: 0,
    payload: undefined,
    encode: W.encodeWanJobPart,
    decode: W.decodeWanJobPart,
    wire: null,
    hex: '000000080200000000000700',
  },
  {
    name: 'WanAddConfig',
    kind: FrameKind.Request,
    type: Msg.WanAddConfig,
    payload: { json: '{"name":"to-b"}' },
    encode: WAN_INLINE.encodeAddConfig,
    decode: WAN_INLINE.decodeAddConfig,
    wire: ['{"name":"to-b"}'],
    hex: '00000020010037000000070800000001050000000f7b226e616d65223a22746f2d62227d',
    fields: [{ name: 'json', kind: 'str' }],
  },
  {
    name: 'WanAddConfig answer',
    kind: FrameKind.Response,
    type: 0,
    payload: { added: ['b'], ignored: ['c', 'd'] },
    encode: W.encodeWanAddAnswer,
    decode: W.decodeWanAddAnswer,
    wire: [['b'], ['c', 'd']],
    hex: '0000002802000000000007080000000208000000010500000001620800000002050000000163050000000164',
    fields: [
      { name: 'added', kind: 'strArr' },
      { name: 'ignored', kind: 'strArr' },
    ],
  },
  {
    name: 'WanConfigs',
    kind: FrameKind.Request,
    type: Msg.WanConfigs,
    payload: {},
    encode: WAN_INLINE.encodeConfigs,
    decode: WAN_INLINE.decodeConfigs,
    wire: [],
    hex: '0000000c010038000000070800000000',
  },
  {
    name: 'WanConfigs answer',
    kind: FrameKind.Response,
    type: 0,
    payload: ['{"name":"to-b"}', '{"name":"to-c"}'],
    encode: WAN_INLINE.encodeConfigsAnswer,
    decode: WAN_INLINE.decodeConfigsAnswer,
    wire: ['{"name":"to-b"}', '{"name":"to-c"}'],
    hex: '00000034020000000000070800000002050000000f7b226e616d65223a22746f2d62227d050000000f7b226e616d65223a22746f2d63227d',
  },
  {
    name: 'WanBackupAck',
    kind: FrameKind.OneWay,
    type: Msg.WanBackupAck,
    payload: {
      wanRepName: 'to-b',
      publisherId: 'b',
      acks: [
        [0, 12],
        [270, 4294967296],
      ],
    } satisfies W.WanBackupAckPayload,
    encode: W.encodeWanBackupAck,
    decode: W.decodeWanBackupAck,
    wire: ['to-b', 'b', [0, 12, 270, 4294967296]],
    hex: '000000380400390000000008000000030500000004746f2d6205000000016208000000040300000000030000000c030000010e0441f0000000000000',
    fields: [
      { name: 'wan replication', kind: 'str' },
      { name: 'publisher id', kind: 'str' },
      { name: 'acks', kind: 'arr', orMatches: /: wan backup acks$/ },
    ],
    // The acks are read first.
    truncNames: { 0: 'acks', 1: 'acks' },
  },
  {
    name: 'WanPing',
    kind: FrameKind.Request,
    type: Msg.WanPing,
    payload: { heartbeatTimeoutMs: 5000 } satisfies W.WanPingPayload,
    encode: W.encodeWanPing,
    decode: W.decodeWanPing,
    wire: [5000],
    hex: '0000001101003a0000000708000000010300001388',
    fields: [{ name: 'heartbeat timeout', kind: 'int' }],
  },
];

function conforms(kind: Kind, v: WireValue | undefined): boolean {
  switch (kind) {
    case 'eventKind':
      return v === 0 || v === 1;
    case 'jobKind':
      return v === 'sync' || v === 'check';
    default:
      return conformsCommon(kind, v)!;
  }
}

function bytesOf(v: Vector): Buffer {
  return v.kind === undefined ? encodeValue(v.wire) : encodeFrame(v.kind, v.type, callIdOf(v.kind), v.wire);
}

describe('WAN message payloads: pinned bytes', () => {
  for (const v of VECTORS) {
    it(`${v.name}: encodes to the tuple written out by hand, and to the pinned bytes`, () => {
      const encoded = (v.encode as (p: unknown) => WireValue)(v.payload);
      expect(encoded).toEqual(v.wire);
      const bytes = v.kind === undefined ? encodeValue(encoded) : encodeFrame(v.kind, v.type, callIdOf(v.kind), encoded);
      expect(bytes.toString('hex')).toBe(v.hex);
      expect(bytesOf(v).toString('hex')).toBe(v.hex);
    });

    if (v.kind === undefined) {
      it(`${v.name}: decodes to the payload; every shorter prefix is refused by the codec`, () => {
        const bytes = Buffer.from(v.hex, 'hex');
        expect(v.decode(decodeValue(bytes))).toEqual(v.payload);
        expectPrefixesRefused(bytes);
      });
      continue;
    }
    const kind = v.kind;
    it(`${v.name}: read whole and one byte at a time, decodes to the payload`, () => {
      expectFrameDecodes(v.hex, kind, v.type, v.decode, v.payload);
    });
  }
});

describe('WAN message payloads: round trips', () => {
  for (const v of VECTORS) {
    it(`${v.name}: decode(encode(p)) is p, and encode(decode(bytes)) gives the same bytes`, () => {
      expectRoundTrip(v.encode, v.decode, v.payload);
    });
  }
});

describe('WAN message payloads: malformed input', () => {
  for (const v of VECTORS) {
    if (v.fields === undefined) continue;
    const fields = v.fields;
    const full = asTuple(v.wire);

    it(`${v.name}: the field list covers the tuple`, () => {
      expect(full).toHaveLength(fields.length);
    });

    it(`${v.name}: not a tuple is refused${v.nullable === true ? ' (null is the empty answer)' : ''}`, () => {
      for (const s of SAMPLES) {
        if (Array.isArray(s)) continue;
        if (s === null && v.nullable === true) {
          expect(v.decode(s)).toBeUndefined();
          continue;
        }
        expect(refusal(() => v.decode(s)).code).toBe('BAD_REQUEST');
      }
    });

    it(`${v.name}: a value of the wrong type at each field is refused, naming the field`, () => {
      fields.forEach((field, i) => {
        let tried = 0;
        for (const s of SAMPLES) {
          if (conforms(field.kind, s)) continue;
          const t = [...full];
          t[i] = s;
          expectNames(refusal(() => v.decode(t)), field.name, field.orMatches);
          tried++;
        }
        expect(tried, field.name).toBeGreaterThan(0);
      });
    });

    it(`${v.name}: a truncated tuple is refused naming the missing field; optional trailing fields may be left off`, () => {
      const min = v.minLength ?? fields.length;
      for (let n = 0; n < full.length; n++) {
        const t = full.slice(0, n);
        if (n < min) {
          const field = fields.find((x) => x.name === (v.truncNames?.[n] ?? fields[n]!.name));
          expectNames(refusal(() => v.decode(t)), field?.name ?? '?', field?.orMatches);
          continue;
        }
        // Decodes; what is left off reads as undefined, exactly like a null in its place.
        const withNulls = [...t, ...full.slice(n).map(() => null)];
        expect(v.decode(t)).toEqual(v.decode(withNulls));
      }
    });

    it(`${v.name}: extra trailing items are ignored`, () => {
      expect(v.decode([...full, 'later', 1])).toEqual(v.decode(full));
    });
  }
});

describe('WAN message payloads: nested fields and values', () => {
  it('a WanMerkle answer round-trips negative int32 hashes, little endian', () => {
    const hashes = Int32Array.of(-1, -2, -2147483648, -123456789, 0, 2147483647, 305419896);
    const encoded = W.encodeWanMerkleAnswer({ level: 3, hashes });
    const bytes = (encoded as WireValue[])[1] as Uint8Array;
    expect(Buffer.from(bytes).toString('hex')).toBe('fffffffffeffffff00000080eb32a4f800000000ffffff7f78563412');
    const back = W.decodeWanMerkleAnswer(decodeValue(encodeValue(encoded)));
    expect(back.level).toBe(3);
    expect(back.hashes).toBeInstanceOf(Int32Array);
    expect([...back.hashes]).toEqual([...hashes]);
  });

  it('a WanMerkle answer reads hashes from bytes at any offset of a larger buffer', () => {
    const inner = Buffer.from('00fffffffe010000007f', 'hex');
    for (const offset of [1, 2, 3]) {
      const bytes = inner.subarray(offset, offset + 4);
      const expected = bytes.readInt32LE(0);
      expect([...W.decodeWanMerkleAnswer([0, bytes]).hashes]).toEqual([expected]);
    }
  });

  it('a WanMerkle answer whose byte length is not a multiple of 4 is refused', () => {
    for (const n of [1, 2, 3, 5, 6, 7, 9, 4095]) {
      const e = refusal(() => W.decodeWanMerkleAnswer([1, new Uint8Array(n)]));
      expect(e.message).toMatch(/merkle hashes/);
    }
    for (const n of [0, 4, 8, 4096]) expect(W.decodeWanMerkleAnswer([1, new Uint8Array(n)]).hashes).toHaveLength(n / 4);
    // Not bytes: a Latin1 string, a string, an array of numbers.
    for (const h of [new Latin1('abcd'), 'abcd', [1, 2, 3, 4]]) expect(refusal(() => W.decodeWanMerkleAnswer([1, h])).message).toMatch(/merkle hashes/);
  });

  it('events of a batch name their position and field', () => {
    const bad = asTuple(PUT_WIRE);
    bad[1] = 2;
    expectNames(refusal(() => W.decodeWanBatch(['A', false, [PUT_WIRE, bad]])), 'events[1].kind');
    expectNames(refusal(() => W.decodeWanBatch(['A', false, [REMOVE_WIRE, 'x']])), 'events[1]');
    const noValue = asTuple(PUT_WIRE);
    noValue[3] = 'text';
    expectNames(refusal(() => W.decodeWanBatch(['A', false, [noValue]])), 'events[0].value');
    const origins = asTuple(PUT_WIRE);
    origins[7] = ['A', 7];
    expectNames(refusal(() => W.decodeWanBatch(['A', false, [origins]])), 'events[0].origins[1]');
  });

  it("an event's stats name the stat", () => {
    const names = ['creationTime', 'lastUpdateTime', 'lastAccessTime', 'hits'];
    names.forEach((name, i) => {
      const st: WireValue[] = [1, 2, 3, 4];
      st[i] = 'x';
      const t = asTuple(PUT_WIRE);
      t[8] = st;
      expectNames(refusal(() => W.decodeWanEvent(t)), `wan event.stats.${name}`);
      expectNames(refusal(() => W.decodeWanBatch(['A', true, [t]])), `events[0].stats.${name}`);
    });
    const short = asTuple(PUT_WIRE);
    short[8] = [1, 2, 3];
    expectNames(refusal(() => W.decodeWanEvent(short)), 'wan event.stats.hits');
  });

  it('a remove carries no value: null on the wire, whatever is there is not read', () => {
    expect(W.encodeWanEvent({ ...REMOVE, value: 'ignored' })).toEqual(REMOVE_WIRE);
    const t = asTuple(REMOVE_WIRE);
    t[3] = 'not latin1';
    expect(W.decodeWanEvent(t)).toEqual(REMOVE);
  });

  it('a TTL of 0 or less (-1 on the wire: none) reads as no TTL', () => {
    for (const ttl of [-1, 0, -5]) {
      const t = asTuple(PUT_WIRE);
      t[5] = ttl;
      expect(W.decodeWanEvent(t).ttlRemainingMs).toBeUndefined();
    }
    // A TTL that is not a finite number is refused, not read as "never expires".
    for (const ttl of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const t = asTuple(PUT_WIRE);
      t[5] = ttl;
      expect(() => W.decodeWanEvent(t)).toThrow(/ttl is not finite/);
    }
    expect(asTuple(W.encodeWanEvent({ ...PUT, ttlRemainingMs: undefined }))[5]).toBe(-1);
    const t = asTuple(PUT_WIRE);
    t[5] = 0.5;
    expect(W.decodeWanEvent(t).ttlRemainingMs).toBe(0.5);
  });

  it('an event kind other than 0 or 1 is refused naming it', () => {
    for (const k of [2, -1, 255]) {
      const t = asTuple(PUT_WIRE);
      t[1] = k;
      expectNames(refusal(() => W.decodeWanEvent(t, 'events[3]')), 'events[3].kind');
    }
  });

  it('a job kind other than sync or check is refused', () => {
    for (const k of ['SYNC', 'delta', '', 'x'.repeat(100)]) {
      const start = ['j1', k, 'to-b', 'b', null, 1, []];
      expect(refusal(() => W.decodeWanSyncStart(start)).message).toMatch(/wan job kind/);
      const part = asTuple(JOB_WIRE);
      part[0] = k;
      expect(refusal(() => W.decodeWanJobPart(part)).message).toMatch(/wan job kind/);
    }
    // A long kind is cut in the message.
    expect(refusal(() => W.decodeWanSyncStart(['j1', 'y'.repeat(5000), 'a', 'b', null, 1, []])).message.length).toBeLessThan(100);
  });

  it('lists of strings name the bad item', () => {
    expectNames(refusal(() => W.decodeWanSyncStart(['j1', 'sync', 'a', 'b', ['m', 1], 1, []])), 'map names[1]');
    expectNames(refusal(() => W.decodeWanSyncStart(['j1', 'sync', 'a', 'b', null, 1, [null]])), 'participants[0]');
    expectNames(refusal(() => W.decodeWanAddAnswer([['a'], ['b', true]])), 'ignored[1]');
    expectNames(refusal(() => WAN_INLINE.decodeConfigsAnswer(['{}', 1])), 'wan configs[1]');
    expectNames(refusal(() => WAN_INLINE.decodeConfigsAnswer('{}')), 'wan configs');
    expect(WAN_INLINE.decodeConfigsAnswer([])).toEqual([]);
  });

  it('backup acks: pairs of [partition id, sequence]; an odd count or a wrong item is refused', () => {
    expect(W.decodeWanBackupAck(['r', 'p', []]).acks).toEqual([]);
    expect(refusal(() => W.decodeWanBackupAck(['r', 'p', [1]])).message).toMatch(/wan backup acks$/);
    expect(refusal(() => W.decodeWanBackupAck(['r', 'p', [1, 2, 3]])).message).toMatch(/wan backup acks$/);
    expectNames(refusal(() => W.decodeWanBackupAck(['r', 'p', [1, 2, 1.5, 3]])), 'partition id');
    expectNames(refusal(() => W.decodeWanBackupAck(['r', 'p', [1, 2, 3, 'x']])), 'sequence');
    // A sequence is any number (past 2^32: events are counted per partition for ever).
    expect(W.decodeWanBackupAck(['r', 'p', [3, 2 ** 40]]).acks).toEqual([[3, 2 ** 40]]);
  });

  it('WanAuth: username and password may be null, the version may not', () => {
    const t: WireValue[] = ['A', 'B', 'u1', 'a:1', null, null, '0.1.0'];
    expect(W.decodeWanAuth(t)).toMatchObject({ username: undefined, password: undefined });
    expectNames(refusal(() => W.decodeWanAuth(['A', 'B', 'u1', 'a:1', null, null, null])), 'version');
    expectNames(refusal(() => W.decodeWanAuth(['A', 'B', 'u1', 'a:1', 1, null, '0.1.0'])), 'username');
  });

  it('a job part with no map names (all maps) and no failure encodes nulls, and reads them back as undefined', () => {
    const all = { ...JOB, mapNames: undefined, failure: undefined };
    const wire = asTuple(W.encodeWanJobPart(all));
    expect([wire[3], wire[8]]).toEqual([null, null]);
    expect(W.decodeWanJobPart(wire)).toEqual(all);
    expect(W.encodeWanJobPart(undefined)).toBeNull();
  });

  it('every WAN message in the table has a pinned vector here (the others are pinned in payloads.test.ts)', () => {
    const pinned = new Set(VECTORS.filter((v) => v.kind !== undefined && v.kind !== FrameKind.Response).map((v) => v.type));
    const wan = Object.entries(Msg).filter(([name]) => name.startsWith('Wan'));
    expect(wan.map(([, id]) => id).sort((a, b) => a - b)).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58]);
    for (const [name, id] of wan) expect(pinned.has(id), name).toBe(true);
  });
});
