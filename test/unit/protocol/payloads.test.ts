// Every member message's payload on pinned bytes. Each vector is encoded by its payloads.ts
// encoder into a frame and compared to a hex literal; the same literal is what the tuple the
// services built inline before payloads.ts encodes to (`legacy`), so the move changed no byte
// on the wire. Each frame is read back whole and one byte at a time and decoded to the payload.
// Then every decoder is fed a wrong type at each field and truncated tuples: a BAD_REQUEST
// that names the field; optional trailing fields may be absent or null.

import { describe, expect, it } from 'vitest';
import { Latin1, type WireValue } from '../../../src/protocol/codec.js';
import { FrameKind, encodeFrame } from '../../../src/protocol/frame.js';
import { Msg } from '../../../src/protocol/messages.js';
import * as P from '../../../src/protocol/payloads.js';
import { SAMPLES, asTuple, callIdOf, conformsCommon, expectFrameDecodes, expectNames, expectRoundTrip, refusal, type PayloadVector, type VectorField } from '../../support/payload-vectors.js';

/** How a field is read, for choosing values of the wrong type. */
/** arr: items are checked (a wrong item is named as `name[i]`); anyArr: any items; strArr: strings. */
type Kind = 'str' | 'optStr' | 'int' | 'optInt' | 'num' | 'optNum' | 'bool' | 'arr' | 'anyArr' | 'strArr' | 'obj' | 'state' | 'tuple' | 'optTuple';

type Field = VectorField<Kind>;

interface Vector extends PayloadVector<Kind> {
  /** Frame kind (answers: Response). */
  readonly kind: number;
  readonly payload: object;
  /** The tuple the service built inline before payloads.ts. */
  readonly legacy: WireValue;
  /** Lengths at or above minLength that do not decode, with the field the error names. */
  readonly truncFails?: Readonly<Record<number, string>>;
}

const M1: P.MemberInfo = { uuid: 'u1', address: '10.0.0.1:5701', host: '10.0.0.1', port: 5701, liteMember: false, version: '5.3.0' };
const M2: P.MemberInfo = { uuid: 'u2', address: '[::1]:5702', host: '::1', port: 5702, liteMember: true, version: '5.3.0' };
const M1_TUPLE: WireValue = ['u1', '10.0.0.1:5701', '10.0.0.1', 5701, false, '5.3.0'];
const M2_TUPLE: WireValue = ['u2', '[::1]:5702', '::1', 5702, true, '5.3.0'];
const MEMBER_FIELDS: readonly Field[] = [
  { name: 'version', kind: 'int' },
  { name: 'members', kind: 'arr' },
  { name: 'state', kind: 'state' },
  { name: 'state version', kind: 'optInt' },
  { name: 'master since', kind: 'optNum' },
];
const LIST: P.MembersPayload = { version: 3, members: [M1, M2], state: 'ACTIVE', stateVersion: 2, masterSince: 1700000000123 };
const LIST_LEGACY: WireValue = [3, [M1_TUPLE, M2_TUPLE], 'ACTIVE', 2, 1700000000123];
const DATA = { map: [[new Latin1('k'), new Latin1('v')]], queue: null } satisfies P.PerServiceData;

const VECTORS: readonly Vector[] = [
  {
    name: 'Auth',
    kind: FrameKind.Request,
    type: Msg.Auth,
    payload: { clusterName: 'dev', uuid: 'u1', address: '10.0.0.1:5701', username: 'admin', password: 'pw', version: '5.3.0', partitionHash: 2 } satisfies P.AuthPayload,
    encode: P.encodeAuth,
    decode: P.decodeAuth,
    // Members before partition hash version 2 sent the first six fields only (decoded with partitionHash undefined: version 1).
    legacy: ['dev', 'u1', '10.0.0.1:5701', 'admin', 'pw', '5.3.0', 2],
    hex: '0000004d010001000000070800000007050000000364657605000000027531050000000d31302e302e302e313a35373031050000000561646d696e050000000270770500000005352e332e300300000002',
    fields: [
      { name: 'cluster name', kind: 'str' },
      { name: 'uuid', kind: 'str' },
      { name: 'address', kind: 'str' },
      { name: 'username', kind: 'optStr' },
      { name: 'password', kind: 'optStr' },
      { name: 'version', kind: 'optStr' },
      { name: 'partition hash version', kind: 'optInt' },
    ],
    minLength: 3,
  },
  {
    name: 'Auth without credentials',
    kind: FrameKind.Request,
    type: Msg.Auth,
    payload: { clusterName: 'dev', uuid: 'u1', address: '10.0.0.1:5701', username: undefined, password: undefined, version: '5.3.0', partitionHash: 2 } satisfies P.AuthPayload,
    encode: P.encodeAuth,
    decode: P.decodeAuth,
    legacy: ['dev', 'u1', '10.0.0.1:5701', null, null, '5.3.0', 2],
    hex: '0000003e010001000000070800000007050000000364657605000000027531050000000d31302e302e302e313a3537303100000500000005352e332e300300000002',
  },
  {
    name: 'Auth answer',
    kind: FrameKind.Response,
    type: 0,
    payload: { uuid: 'u2', address: '10.0.0.2:5701', partitionHash: 2 } satisfies P.AuthAnswer,
    encode: P.encodeAuthAnswer,
    decode: P.decodeAuthAnswer,
    legacy: ['u2', '10.0.0.2:5701', 2],
    hex: '0000002a02000000000007080000000305000000027532050000000d31302e302e302e323a353730310300000002',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'address', kind: 'str' },
      { name: 'partition hash version', kind: 'optInt' },
    ],
    minLength: 2,
  },
  {
    name: 'Discover',
    kind: FrameKind.Request,
    type: Msg.Discover,
    payload: { uuid: 'u1', address: '10.0.0.1:5701' } satisfies P.DiscoverPayload,
    encode: P.encodeDiscover,
    decode: P.decodeDiscover,
    legacy: ['u1', '10.0.0.1:5701'],
    hex: '0000002501000200000007080000000205000000027531050000000d31302e302e302e313a35373031',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'address', kind: 'str' },
    ],
  },
  {
    name: 'Discover answer (joined)',
    kind: FrameKind.Response,
    type: 0,
    payload: { uuid: 'u2', address: '10.0.0.2:5701', joined: true, masterAddress: '10.0.0.1:5701' } satisfies P.DiscoverAnswerPayload,
    encode: P.encodeDiscoverAnswer,
    decode: P.decodeDiscoverAnswer,
    legacy: ['u2', '10.0.0.2:5701', true, '10.0.0.1:5701'],
    hex: '0000003802000000000007080000000405000000027532050000000d31302e302e302e323a3537303102050000000d31302e302e302e313a35373031',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'address', kind: 'str' },
      { name: 'joined', kind: 'bool' },
      { name: 'master', kind: 'optStr' },
    ],
    minLength: 3,
  },
  {
    name: 'Discover answer (not joined)',
    kind: FrameKind.Response,
    type: 0,
    payload: { uuid: 'u2', address: '10.0.0.2:5701', joined: false, masterAddress: undefined } satisfies P.DiscoverAnswerPayload,
    encode: P.encodeDiscoverAnswer,
    decode: P.decodeDiscoverAnswer,
    legacy: ['u2', '10.0.0.2:5701', false, null],
    hex: '0000002702000000000007080000000405000000027532050000000d31302e302e302e323a353730310100',
  },
  {
    name: 'Join',
    kind: FrameKind.Request,
    type: Msg.Join,
    payload: { member: M2 } satisfies P.JoinPayload,
    encode: P.encodeJoin,
    decode: P.decodeJoin,
    legacy: [M2_TUPLE],
    hex: '0000003f010003000000070800000001080000000605000000027532050000000a5b3a3a315d3a3537303205000000033a3a310300001646020500000005352e332e30',
    fields: [{ name: 'member', kind: 'tuple' }],
  },
  {
    name: 'Join answer (member list)',
    kind: FrameKind.Response,
    type: 0,
    payload: { redirect: undefined, members: LIST, refusal: undefined } satisfies P.JoinAnswerPayload,
    encode: P.encodeJoinAnswer,
    decode: P.decodeJoinAnswer,
    legacy: [null, LIST_LEGACY],
    hex: '000000a302000000000007080000000200080000000503000000030800000002080000000605000000027531050000000d31302e302e302e313a35373031050000000831302e302e302e310300001645010500000005352e332e30080000000605000000027532050000000a5b3a3a315d3a3537303205000000033a3a310300001646020500000005352e332e3005000000064143544956450300000002044278bcfe5687b000',
    fields: [
      { name: 'redirect', kind: 'optStr' },
      { name: 'members', kind: 'tuple' },
      { name: 'refusal', kind: 'optStr' },
    ],
    minLength: 2,
    truncNames: { 0: 'members', 1: 'members' },
  },
  {
    name: 'Join answer (redirect)',
    kind: FrameKind.Response,
    type: 0,
    payload: { redirect: '10.0.0.1:5701', members: undefined, refusal: undefined } satisfies P.JoinAnswerPayload,
    encode: P.encodeJoinAnswer,
    decode: P.decodeJoinAnswer,
    legacy: ['10.0.0.1:5701', null],
    hex: '0000001f020000000000070800000002050000000d31302e302e302e313a3537303100',
  },
  {
    name: 'Join answer (refusal)',
    kind: FrameKind.Response,
    type: 0,
    payload: { redirect: undefined, members: undefined, refusal: 'the cluster is FROZEN' } satisfies P.JoinAnswerPayload,
    encode: P.encodeJoinAnswer,
    decode: P.decodeJoinAnswer,
    legacy: [null, null, 'the cluster is FROZEN'],
    hex: '000000280200000000000708000000030000050000001574686520636c75737465722069732046524f5a454e',
  },
  {
    name: 'Members',
    kind: FrameKind.Request,
    type: Msg.Members,
    payload: LIST,
    encode: P.encodeMembers,
    decode: P.decodeMembers,
    legacy: LIST_LEGACY,
    hex: '0000009d01000400000007080000000503000000030800000002080000000605000000027531050000000d31302e302e302e313a35373031050000000831302e302e302e310300001645010500000005352e332e30080000000605000000027532050000000a5b3a3a315d3a3537303205000000033a3a310300001646020500000005352e332e3005000000064143544956450300000002044278bcfe5687b000',
    fields: MEMBER_FIELDS,
    minLength: 3,
  },
  {
    name: 'Members (not sent by the master: no master-since)',
    kind: FrameKind.Request,
    type: Msg.Members,
    payload: { ...LIST, masterSince: undefined },
    encode: P.encodeMembers,
    decode: P.decodeMembers,
    legacy: [3, [M1_TUPLE, M2_TUPLE], 'ACTIVE', 2, null],
    hex: '0000009501000400000007080000000503000000030800000002080000000605000000027531050000000d31302e302e302e313a35373031050000000831302e302e302e310300001645010500000005352e332e30080000000605000000027532050000000a5b3a3a315d3a3537303205000000033a3a310300001646020500000005352e332e300500000006414354495645030000000200',
  },
  {
    name: 'FetchState',
    kind: FrameKind.Request,
    type: Msg.FetchState,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'fetch state'), {}),
    legacy: [],
    hex: '0000000c010011000000070800000000',
  },
  {
    name: 'FetchState answer',
    kind: FrameKind.Response,
    type: 0,
    payload: LIST,
    encode: P.encodeFetchStateAnswer,
    decode: P.decodeFetchStateAnswer,
    legacy: LIST_LEGACY,
    hex: '0000009d02000000000007080000000503000000030800000002080000000605000000027531050000000d31302e302e302e313a35373031050000000831302e302e302e310300001645010500000005352e332e30080000000605000000027532050000000a5b3a3a315d3a3537303205000000033a3a310300001646020500000005352e332e3005000000064143544956450300000002044278bcfe5687b000',
    fields: MEMBER_FIELDS,
    minLength: 3,
  },
  {
    name: 'Heartbeat',
    kind: FrameKind.OneWay,
    type: Msg.Heartbeat,
    payload: { uuid: 'u1', membersVersion: 3, clusterState: { state: 'FROZEN', version: 2, change: 'tx-1' } } satisfies P.HeartbeatPayload,
    encode: P.encodeHeartbeat,
    decode: P.decodeHeartbeat,
    legacy: ['u1', 3, 'FROZEN', 2, 'tx-1'],
    hex: '00000031040005000000000800000005050000000275310300000003050000000646524f5a454e0300000002050000000474782d31',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'version', kind: 'int' },
      { name: 'state', kind: 'state' },
      { name: 'state version', kind: 'optInt' },
      { name: 'state change', kind: 'optStr' },
    ],
    minLength: 2,
  },
  {
    name: 'Heartbeat (no state change in progress)',
    kind: FrameKind.OneWay,
    type: Msg.Heartbeat,
    payload: { uuid: 'u1', membersVersion: 3, clusterState: { state: 'ACTIVE', version: 0, change: undefined } } satisfies P.HeartbeatPayload,
    encode: P.encodeHeartbeat,
    decode: P.decodeHeartbeat,
    legacy: ['u1', 3, 'ACTIVE', 0, null],
    hex: '000000290400050000000008000000050500000002753103000000030500000006414354495645030000000000',
  },
  {
    name: 'Heartbeat (older sender: no state)',
    kind: FrameKind.OneWay,
    type: Msg.Heartbeat,
    payload: { uuid: 'u1', membersVersion: 3 } satisfies P.HeartbeatPayload,
    encode: P.encodeHeartbeat,
    decode: P.decodeHeartbeat,
    legacy: ['u1', 3],
    hex: '00000018040005000000000800000002050000000275310300000003',
  },
  {
    name: 'PartitionTable',
    kind: FrameKind.OneWay,
    type: Msg.PartitionTable,
    payload: { version: 9, rows: [['a', 'b'], ['b', 'a'], ['a'], []], migrationQueueSize: 1 } satisfies P.PartitionTablePayload,
    encode: P.encodePartitionTable,
    decode: P.decodePartitionTable,
    legacy: [9, ['a', 'b'], [[0, 1], [1, 0], [0], []], 1],
    hex: '000000590400060000000008000000040300000009080000000205000000016105000000016208000000040800000002030000000003000000010800000002030000000103000000000800000001030000000008000000000300000001',
    fields: [
      { name: 'version', kind: 'int' },
      { name: 'uuids', kind: 'strArr', orMatches: /row 0 names an unknown member/ },
      { name: 'rows', kind: 'arr' },
      { name: 'migrationQueueSize', kind: 'optInt' },
    ],
    minLength: 3,
  },
  {
    name: 'FetchTable',
    kind: FrameKind.Request,
    type: Msg.FetchTable,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'fetch table'), {}),
    legacy: [],
    hex: '0000000c010014000000070800000000',
  },
  {
    // Answered by the connection layer whatever the payload; sent as an empty tuple.
    name: 'Ping',
    kind: FrameKind.Request,
    type: Msg.Ping,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'ping'), {}),
    legacy: [],
    hex: '0000000c010029000000070800000000',
  },
  {
    name: 'FetchTable answer',
    kind: FrameKind.Response,
    type: 0,
    payload: { version: 9, rows: [['b', 'a'], ['a']], migrationQueueSize: 0 } satisfies P.PartitionTablePayload,
    encode: P.encodePartitionTable,
    decode: P.decodePartitionTable,
    legacy: [9, ['b', 'a'], [[0, 1], [1]], 0],
    hex: '00000045020000000000070800000004030000000908000000020500000001620500000001610800000002080000000203000000000300000001080000000103000000010300000000',
  },
  {
    name: 'Operation',
    kind: FrameKind.Request,
    type: Msg.Operation,
    payload: { service: 'map', type: 'put', partitionId: 270, args: ['m', new Latin1('k'), new Latin1('v'), -1], invocationId: undefined } satisfies P.OperationPayload,
    encode: P.encodeOperation,
    decode: P.decodeOperation,
    legacy: ['map', 'put', 270, ['m', new Latin1('k'), new Latin1('v'), -1], null],
    hex: '0000003e01000700000007080000000505000000036d61700500000003707574030000010e080000000405000000016d06000000016b06000000017603ffffffff00',
    fields: [
      { name: 'service', kind: 'str' },
      { name: 'type', kind: 'str' },
      { name: 'partitionId', kind: 'int' },
      { name: 'args', kind: 'anyArr' },
      { name: 'invocationId', kind: 'optInt' },
    ],
    minLength: 4,
  },
  {
    name: 'Operation (a waiting poll)',
    kind: FrameKind.Request,
    type: Msg.Operation,
    payload: { service: 'queue', type: 'poll', partitionId: 0, args: ['q', 1700000000000.5, 'u1', 4], invocationId: 12 } satisfies P.OperationPayload,
    encode: P.encodeOperation,
    decode: P.decodeOperation,
    legacy: ['queue', 'poll', 0, ['q', 1700000000000.5, 'u1', 4], 12],
    hex: '00000049010007000000070800000005050000000571756575650500000004706f6c6c03000000000800000004050000000171044278bcfe56800800050000000275310300000004030000000c',
  },
  {
    name: 'OperationGroup',
    kind: FrameKind.Request,
    type: Msg.OperationGroup,
    payload: {
      service: 'map',
      items: [
        { partitionId: 3, type: 'batch', args: ['m', [[1, 'k', 'op:1', new Latin1('v'), null, -1]]] },
        { partitionId: 270, type: 'get', args: ['m', 'k2'] },
      ],
    } satisfies P.OperationGroupPayload,
    encode: P.encodeOperationGroup,
    decode: P.decodeOperationGroup,
    legacy: ['map', [[3, 'batch', ['m', [[1, 'k', 'op:1', new Latin1('v'), null, -1]]]], [270, 'get', ['m', 'k2']]]],
    hex: '0000008601005b00000007080000000205000000036d617008000000020800000003030000000305000000056261746368080000000205000000016d08000000010800000006030000000105000000016b05000000046f703a310600000001760003ffffffff0800000003030000010e0500000003676574080000000205000000016d05000000026b32',
    fields: [
      { name: 'service', kind: 'str' },
      { name: 'items', kind: 'arr' },
    ],
    minLength: 2,
  },
  {
    name: 'Backup',
    kind: FrameKind.Request,
    type: Msg.Backup,
    payload: { service: 'map', type: 'put', partitionId: 5, args: ['m', new Latin1('k')], tableVersion: 9, replica: { index: 1, version: 44 } } satisfies P.BackupPayload,
    encode: P.encodeBackup,
    decode: P.decodeBackup,
    legacy: ['map', 'put', 5, ['m', new Latin1('k')], 9, 1, 44],
    hex: '0000004101000800000007080000000705000000036d617005000000037075740300000005080000000205000000016d06000000016b03000000090300000001030000002c',
    fields: [
      { name: 'service', kind: 'str' },
      { name: 'type', kind: 'str' },
      { name: 'partitionId', kind: 'int' },
      { name: 'args', kind: 'anyArr' },
      { name: 'table version', kind: 'optInt' },
      { name: 'replicaIndex', kind: 'optInt' },
      { name: 'version', kind: 'int' },
    ],
    minLength: 4,
    truncFails: { 6: 'version' },
  },
  {
    name: 'Backup (older sender: no stamp, no replica version)',
    kind: FrameKind.OneWay,
    type: Msg.Backup,
    payload: { service: 'queue', type: 'offer', partitionId: 5, args: [], tableVersion: undefined, replica: undefined } satisfies P.BackupPayload,
    encode: P.encodeBackup,
    decode: P.decodeBackup,
    legacy: ['queue', 'offer', 5, []],
    hex: '0000002a0400080000000008000000040500000005717565756505000000056f6666657203000000050800000000',
  },
  {
    name: 'Migrate',
    kind: FrameKind.Request,
    type: Msg.Migrate,
    payload: { partitionId: 17, replicas: ['b', 'a'], previousReplicas: ['a'] } satisfies P.MigratePayload,
    encode: P.encodeMigrate,
    decode: P.decodeMigrate,
    legacy: [17, ['b', 'a'], ['a']],
    hex: '0000002d010009000000070800000003030000001108000000020500000001620500000001610800000001050000000161',
    fields: [
      { name: 'partitionId', kind: 'int' },
      { name: 'replicas', kind: 'strArr' },
      { name: 'previous replicas', kind: 'strArr' },
    ],
  },
  {
    name: 'PartitionData',
    kind: FrameKind.Request,
    type: Msg.PartitionData,
    payload: { partitionId: 17, replicaIndex: 1, data: DATA, tableVersion: 9, versions: [0, 3, 0] } satisfies P.PartitionDataPayload,
    encode: P.encodePartitionData,
    decode: P.decodePartitionData,
    legacy: [17, 1, DATA, 9, [0, 3, 0]],
    hex: '0000005b01000a000000070800000005030000001103000000010900000002000000036d61700800000001080000000206000000016b0600000001760000000571756575650003000000090800000003030000000003000000030300000000',
    fields: [
      { name: 'partitionId', kind: 'int' },
      { name: 'replicaIndex', kind: 'int' },
      { name: 'data', kind: 'obj' },
      { name: 'table version', kind: 'optInt' },
      { name: 'versions', kind: 'optTuple' },
    ],
    minLength: 3,
  },
  {
    name: 'PartitionData (older sender: no stamp, no versions)',
    kind: FrameKind.Request,
    type: Msg.PartitionData,
    payload: { partitionId: 17, replicaIndex: 0, data: {}, tableVersion: undefined, versions: undefined } satisfies P.PartitionDataPayload,
    encode: P.encodePartitionData,
    decode: P.decodePartitionData,
    legacy: [17, 0, {}],
    hex: '0000001b01000a000000070800000003030000001103000000000900000000',
  },
  {
    name: 'StatePrepare',
    kind: FrameKind.Request,
    type: Msg.StatePrepare,
    payload: { txId: 'tx-1', state: 'PASSIVE', membersVersion: 3 } satisfies P.StatePreparePayload,
    encode: P.encodeStatePrepare,
    decode: P.decodeStatePrepare,
    legacy: ['tx-1', 'PASSIVE', 3],
    hex: '0000002601000b000000070800000003050000000474782d310500000007504153534956450300000003',
    fields: [
      { name: 'txId', kind: 'str' },
      { name: 'state', kind: 'state' },
      { name: 'member list version', kind: 'optInt' },
    ],
    minLength: 2,
  },
  {
    name: 'StateCommit',
    kind: FrameKind.Request,
    type: Msg.StateCommit,
    payload: { txId: 'tx-1', state: 'NO_MIGRATION', membersVersion: 3, stateVersion: 4 } satisfies P.StateCommitPayload,
    encode: P.encodeStateCommit,
    decode: P.decodeStateCommit,
    legacy: ['tx-1', 'NO_MIGRATION', 3, 4],
    hex: '0000003001000c000000070800000004050000000474782d31050000000c4e4f5f4d4947524154494f4e03000000030300000004',
    fields: [
      { name: 'txId', kind: 'str' },
      { name: 'state', kind: 'state' },
      { name: 'member list version', kind: 'optInt' },
      { name: 'state version', kind: 'optInt' },
    ],
    minLength: 2,
  },
  {
    name: 'StateCommit (older sender)',
    kind: FrameKind.Request,
    type: Msg.StateCommit,
    payload: { txId: 'tx-1', state: 'ACTIVE', membersVersion: undefined, stateVersion: undefined } satisfies P.StateCommitPayload,
    encode: P.encodeStateCommit,
    decode: P.decodeStateCommit,
    legacy: ['tx-1', 'ACTIVE'],
    hex: '0000002001000c000000070800000002050000000474782d310500000006414354495645',
  },
  {
    name: 'StateRollback',
    kind: FrameKind.Request,
    type: Msg.StateRollback,
    payload: { txId: 'tx-1' } satisfies P.StateRollbackPayload,
    encode: P.encodeStateRollback,
    decode: P.decodeStateRollback,
    legacy: ['tx-1'],
    hex: '0000001501000d000000070800000001050000000474782d31',
    fields: [{ name: 'txId', kind: 'str' }],
  },
  {
    name: 'ChangeState',
    kind: FrameKind.Request,
    type: Msg.ChangeState,
    payload: { state: 'FROZEN' } satisfies P.ChangeStatePayload,
    encode: P.encodeChangeState,
    decode: P.decodeChangeState,
    legacy: ['FROZEN'],
    hex: '0000001701000e000000070800000001050000000646524f5a454e',
    fields: [{ name: 'state', kind: 'state' }],
  },
  {
    name: 'LeaveRequest',
    kind: FrameKind.Request,
    type: Msg.LeaveRequest,
    payload: { uuid: 'u2' } satisfies P.LeavePayload,
    encode: P.encodeLeave,
    decode: P.decodeLeave,
    legacy: ['u2'],
    hex: '0000001301000f00000007080000000105000000027532',
    fields: [{ name: 'uuid', kind: 'str' }],
  },
  {
    name: 'ClusterShutdown',
    kind: FrameKind.OneWay,
    type: Msg.ClusterShutdown,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'cluster shutdown'), {}),
    legacy: [],
    hex: '0000000c040010000000000800000000',
  },
  {
    name: 'PollCancel',
    kind: FrameKind.OneWay,
    type: Msg.PollCancel,
    payload: { callerUuid: 'u1', invocationId: 12 } satisfies P.PollCancelPayload,
    encode: P.encodePollCancel,
    decode: P.decodePollCancel,
    legacy: ['u1', 12],
    hex: '0000001804001200000000080000000205000000027531030000000c',
    fields: [
      { name: 'uuid', kind: 'str' },
      { name: 'invocationId', kind: 'int' },
    ],
  },
  {
    name: 'Leave',
    kind: FrameKind.OneWay,
    type: Msg.Leave,
    payload: { uuid: 'u2' } satisfies P.LeavePayload,
    encode: P.encodeLeave,
    decode: P.decodeLeave,
    legacy: ['u2'],
    hex: '0000001304001300000000080000000105000000027532',
    fields: [{ name: 'uuid', kind: 'str' }],
  },
  {
    name: 'MigrateEnd',
    kind: FrameKind.OneWay,
    type: Msg.MigrateEnd,
    payload: { partitionId: 17 } satisfies P.MigrateEndPayload,
    encode: P.encodeMigrateEnd,
    decode: P.decodeMigrateEnd,
    legacy: [17],
    hex: '000000110400150000000008000000010300000011',
    fields: [{ name: 'partitionId', kind: 'int' }],
  },
  {
    name: 'ReplicaVersions',
    kind: FrameKind.OneWay,
    type: Msg.ReplicaVersions,
    payload: {
      tableVersion: 9,
      entries: [
        { partitionId: 0, replicaIndex: 1, version: 7 },
        { partitionId: 270, replicaIndex: 2, version: 0 },
      ],
    } satisfies P.ReplicaVersionsPayload,
    encode: P.encodeReplicaVersions,
    decode: P.decodeReplicaVersions,
    legacy: [9, [[0, 1, 7], [270, 2, 0]]],
    hex: '0000003e04001e0000000008000000020300000009080000000208000000030300000000030000000103000000070800000003030000010e03000000020300000000',
    fields: [
      { name: 'table version', kind: 'int' },
      { name: 'entries', kind: 'arr' },
    ],
  },
  {
    name: 'ReplicaSyncRequest',
    kind: FrameKind.OneWay,
    type: Msg.ReplicaSyncRequest,
    payload: { tableVersion: 9, partitionIds: [3, 270] } satisfies P.ReplicaSyncRequestPayload,
    encode: P.encodeReplicaSyncRequest,
    decode: P.decodeReplicaSyncRequest,
    legacy: [9, [3, 270]],
    hex: '0000002004001f000000000800000002030000000908000000020300000003030000010e',
    fields: [
      { name: 'table version', kind: 'int' },
      { name: 'partitions', kind: 'arr' },
    ],
  },
  {
    name: 'ReplicaSyncData',
    kind: FrameKind.Request,
    type: Msg.ReplicaSyncData,
    payload: { partitionId: 3, replicaIndex: 2, data: DATA, versions: [5, 0, 1], tableVersion: 9 } satisfies P.ReplicaSyncDataPayload,
    encode: P.encodeReplicaSyncData,
    decode: P.decodeReplicaSyncData,
    legacy: [3, 2, DATA, [5, 0, 1], 9],
    hex: '0000005b010020000000070800000005030000000303000000020900000002000000036d61700800000001080000000206000000016b0600000001760000000571756575650008000000030300000005030000000003000000010300000009',
    fields: [
      { name: 'partitionId', kind: 'int' },
      { name: 'replicaIndex', kind: 'int' },
      { name: 'data', kind: 'obj' },
      { name: 'versions', kind: 'arr' },
      { name: 'table version', kind: 'int' },
    ],
  },
  {
    name: 'MergeTo',
    kind: FrameKind.Request,
    type: Msg.MergeTo,
    payload: { target: '10.0.0.9:5701' } satisfies P.MergeToPayload,
    encode: P.encodeMergeTo,
    decode: P.decodeMergeTo,
    legacy: ['10.0.0.9:5701'],
    hex: '0000001e010028000000070800000001050000000d31302e302e302e393a35373031',
    fields: [{ name: 'target', kind: 'str' }],
  },
  {
    name: 'PersistenceCommand',
    kind: FrameKind.Request,
    type: Msg.PersistenceCommand,
    payload: { command: 'backup', sequence: 1234 } satisfies P.PersistenceCommandPayload,
    encode: P.encodePersistenceCommand,
    decode: P.decodePersistenceCommand,
    legacy: ['backup', 1234],
    hex: '0000001c01003c00000007080000000205000000066261636b757003000004d2',
    fields: [
      { name: 'command', kind: 'str' },
      { name: 'sequence', kind: 'int' },
    ],
  },
  {
    name: 'RecoveryState',
    kind: FrameKind.Request,
    type: Msg.RecoveryState,
    payload: { withRows: true } satisfies P.RecoveryStatePayload,
    encode: P.encodeRecoveryState,
    decode: P.decodeRecoveryState,
    legacy: [true],
    hex: '0000000d01003d00000007080000000102',
    fields: [{ name: 'with rows', kind: 'bool' }],
  },
  {
    name: 'RecoveryDrop',
    kind: FrameKind.OneWay,
    type: Msg.RecoveryDrop,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'recovery drop'), {}),
    legacy: [],
    hex: '0000000c04003e000000000800000000',
  },
];

function conforms(kind: Kind, v: WireValue | undefined): boolean {
  switch (kind) {
    case 'state':
      return typeof v === 'string' && (P.SETTABLE_CLUSTER_STATES as readonly string[]).includes(v);
    case 'tuple':
      return conformsCommon('arr', v)!;
    default:
      return conformsCommon(kind, v)!;
  }
}

describe('member message payloads: pinned bytes', () => {
  for (const v of VECTORS) {
    it(`${v.name}: encodes to the pinned bytes, the same as the services' tuple did`, () => {
      const encoded = (v.encode as (p: object) => WireValue)(v.payload);
      const frame = encodeFrame(v.kind, v.type, callIdOf(v.kind), encoded).toString('hex');
      expect(frame).toBe(v.hex);
      expect(encodeFrame(v.kind, v.type, callIdOf(v.kind), v.legacy).toString('hex')).toBe(v.hex);
    });

    it(`${v.name}: read whole and one byte at a time, decodes to the payload`, () => {
      expectFrameDecodes(v.hex, v.kind, v.type, v.decode, v.payload);
    });
  }
});

describe('member message payloads: round trips', () => {
  for (const v of VECTORS) {
    it(`${v.name}: decode(encode(p)) is p, and encode(decode(bytes)) gives the same bytes`, () => {
      expectRoundTrip(v.encode, v.decode, v.payload);
    });
  }
});

describe('member message payloads: malformed input', () => {
  for (const v of VECTORS) {
    if (v.fields === undefined) continue;
    const fields = v.fields;
    const full = asTuple(v.legacy);

    it(`${v.name}: not a tuple is refused`, () => {
      for (const s of SAMPLES) {
        if (Array.isArray(s)) continue;
        expect(refusal(() => v.decode(s)).code).toBe('BAD_REQUEST');
      }
    });

    it(`${v.name}: a value of the wrong type at each field is refused, naming the field`, () => {
      fields.forEach((field, i) => {
        for (const s of SAMPLES) {
          if (conforms(field.kind, s)) continue;
          const t = [...full];
          t[i] = s;
          expectNames(refusal(() => v.decode(t)), field.name, field.orMatches);
        }
      });
    });

    it(`${v.name}: a truncated tuple is refused naming the missing field; optional trailing fields may be left off`, () => {
      const min = v.minLength ?? fields.length;
      for (let n = 0; n < full.length; n++) {
        const t = full.slice(0, n);
        const failsAs = n < min ? (v.truncNames?.[n] ?? fields[n]!.name) : v.truncFails?.[n];
        if (failsAs !== undefined) {
          expectNames(refusal(() => v.decode(t)), failsAs);
          continue;
        }
        // Decodes; what is left off reads as undefined, exactly like a null in its place.
        const withNulls = [...t, ...full.slice(n).map(() => null)];
        expect(v.decode(t)).toEqual(v.decode(withNulls));
      }
    });

    it(`${v.name}: extra trailing items are ignored`, () => {
      const padded = [...full, ...fields.slice(full.length).map(() => null)];
      expect(v.decode([...padded, 'later', 1])).toEqual(v.decode(full));
    });
  }
});

describe('member message payloads: nested fields', () => {
  it('a member in a list or a join names its position and field', () => {
    const bad = [...LIST_LEGACY as WireValue[]];
    bad[1] = [M1_TUPLE, ['u2', '[::1]:5702', '::1', '5702', true, '5.3.0']];
    expectNames(refusal(() => P.decodeMembers(bad)), 'members[1].port');
    expectNames(refusal(() => P.decodeFetchStateAnswer([3, ['x'], 'ACTIVE'])), 'members[0]');
    expectNames(refusal(() => P.decodeJoin([['u2', '[::1]:5702', '::1', 5702, 'yes', '5.3.0']])), 'member.lite');
    expectNames(refusal(() => P.decodeJoin([['u2']])), 'member.address');
    expectNames(refusal(() => P.decodeJoinAnswer([null, [3, [M1_TUPLE], 'NOPE']])), 'members.state');
    expectNames(refusal(() => P.decodeJoinAnswer([null, [3, [['u1', 1]], 'ACTIVE']])), 'members.members[0].address');
  });

  it('a cluster state outside the four that travel is refused, naming the field', () => {
    for (const s of ['IN_TRANSITION', 'active', '']) {
      expectNames(refusal(() => P.decodeChangeState([s])), 'state');
      expectNames(refusal(() => P.decodeStatePrepare(['tx', s, 1])), 'state');
      expectNames(refusal(() => P.decodeHeartbeat(['u1', 1, s, 1, null])), 'state');
    }
  });

  it('a heartbeat without a state version carries no state (older senders), whatever stands before it', () => {
    expect(P.decodeHeartbeat(['u1', 3, 'ACTIVE'])).toEqual({ uuid: 'u1', membersVersion: 3 });
    expect(P.decodeHeartbeat(['u1', 3, 'ACTIVE', null, 'tx'])).toEqual({ uuid: 'u1', membersVersion: 3 });
  });

  it('a join answer with neither a refusal, a redirect nor a member list is refused', () => {
    expectNames(refusal(() => P.decodeJoinAnswer([null, null])), 'members');
    expectNames(refusal(() => P.decodeJoinAnswer([null, 'list'])), 'members');
    expect(P.decodeJoinAnswer(['m:1', null, 'no'])).toEqual({ redirect: 'm:1', members: undefined, refusal: 'no' });
  });

  it('partition table rows name the row and position; an index outside uuids is refused', () => {
    expectNames(refusal(() => P.decodePartitionTable([1, ['a'], [[0], 'x']])), 'rows[1]');
    expectNames(refusal(() => P.decodePartitionTable([1, ['a'], [[0], [0, 'b']]])), 'rows[1][1]');
    expectNames(refusal(() => P.decodePartitionTable([1, ['a', 2], [[0]]])), 'uuids[1]');
    const e = refusal(() => P.decodePartitionTable([1, ['a'], [[0], [1]]]));
    expect(e.message).toContain('row 1 names an unknown member');
  });

  it('the table encoder lists each uuid once, in order of first use', () => {
    expect(P.encodePartitionTable({ version: 1, rows: [['c', 'a'], ['a', 'b'], ['b', 'c']] })).toEqual([1, ['c', 'a', 'b'], [[0, 1], [1, 2], [2, 0]]]);
  });

  it('lists of numbers name the bad item', () => {
    expectNames(refusal(() => P.decodeReplicaSyncRequest([1, [3, 'x']])), 'partitions[1]');
    expectNames(refusal(() => P.decodeReplicaSyncData([1, 1, {}, [0, 1.5], 1])), 'versions[1]');
    expectNames(refusal(() => P.decodePartitionData([1, 1, {}, 1, [null]])), 'versions[0]');
    expectNames(refusal(() => P.decodeMigrate([1, ['a', 2], []])), 'replicas[1]');
    expectNames(refusal(() => P.decodeMigrate([1, [], [null]])), 'previous replicas[0]');
  });

  it('replica version entries name the entry and field', () => {
    expectNames(refusal(() => P.decodeReplicaVersions([1, [[0, 1, 2], 'x']])), 'entries[1]');
    expectNames(refusal(() => P.decodeReplicaVersions([1, [[0, 1, 2], [0, 1]]])), 'entries[1].version');
    expectNames(refusal(() => P.decodeReplicaVersions([1, [['0', 1, 2]]])), 'entries[0].partitionId');
    expectNames(refusal(() => P.decodeReplicaVersions([1, [[0, null, 2]]])), 'entries[0].replicaIndex');
  });

  it('a backup that names a replica index must carry its version', () => {
    expectNames(refusal(() => P.decodeBackup(['map', 'put', 1, [], 9, 1])), 'version');
    expectNames(refusal(() => P.decodeBackup(['map', 'put', 1, [], 9, 1, null])), 'version');
    expect(P.decodeBackup(['map', 'put', 1, [], null, null, 'ignored']).replica).toBeUndefined();
  });

  it('encoders leave optional trailing fields off and send a null for one that is followed by another', () => {
    expect(P.encodeStateCommit({ txId: 't', state: 'ACTIVE', stateVersion: 4 })).toEqual(['t', 'ACTIVE', null, 4]);
    expect(P.encodeStatePrepare({ txId: 't', state: 'ACTIVE' })).toEqual(['t', 'ACTIVE']);
    expect(P.encodeBackup({ service: 's', type: 't', partitionId: 1, args: [], replica: { index: 1, version: 2 } })).toEqual(['s', 't', 1, [], null, 1, 2]);
    expect(P.encodeMembers({ version: 1, members: [], state: 'ACTIVE' })).toEqual([1, [], 'ACTIVE']);
    expect(P.encodePartitionData({ partitionId: 1, replicaIndex: 1, data: {}, versions: [1] })).toEqual([1, 1, {}, null, [1]]);
    expect(P.encodeOperation({ service: 's', type: 't', partitionId: 1, args: [] })).toEqual(['s', 't', 1, [], null]);
    expect(P.encodeAuth({ clusterName: 'c', uuid: 'u', address: 'a' })).toEqual(['c', 'u', 'a', null, null, null, null]);
    // An older member's Auth (no partition hash version) decodes with it undefined: version 1 to the receiver.
    expect(P.decodeAuth(['c', 'u', 'a', null, null, '5.3.0']).partitionHash).toBeUndefined();
    expect(P.decodeAuthAnswer(['u', 'a']).partitionHash).toBeUndefined();
  });

  it('a Latin1 string or bytes is not taken for partition data', () => {
    expectNames(refusal(() => P.decodePartitionData([1, 1, new Latin1('x')])), 'data');
    expectNames(refusal(() => P.decodeReplicaSyncData([1, 1, Uint8Array.of(1), [], 1])), 'data');
  });

  it('every message in the table has a pinned vector', () => {
    const pinned = new Set(VECTORS.filter((v) => v.kind !== FrameKind.Response).map((v) => v.type));
    for (const [name, id] of Object.entries(Msg)) {
      // The WAN messages (wan-payloads.ts) are pinned in wan-payloads.test.ts, which checks every Wan* message has a vector.
      if (name.startsWith('Wan')) continue;
      // The CP messages (cp-payloads.ts) are pinned in cp-payloads.test.ts, which checks every Cp* message has a vector.
      if (name.startsWith('Cp')) continue;
      // The change-event messages (event-payloads.ts) are pinned in event-payloads.test.ts.
      if (name === 'EventInterest' || name === 'MapEvents') continue;
      // The queue change-event messages (queue-event-payloads.ts) are pinned in queue-event-payloads.test.ts.
      if (name === 'QueueEventInterest' || name === 'QueueEvents') continue;
      // The console's read-only MemberReport (monitor-payloads.ts) is pinned in monitor-payloads.test.ts.
      if (name === 'MemberReport') continue;
      expect(pinned.has(id), name).toBe(true);
    }
  });
});
