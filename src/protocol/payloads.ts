// The payload of every member-protocol message (and of the answers that have a shape), as a
// typed value with a pure encode/decode pair. Encoders build the exact tuples services sent
// before this module existed (pinned as bytes in test/unit/protocol/payloads.test.ts);
// decoders throw GridError('BAD_REQUEST') naming the field (via fields.ts) and read optional
// trailing fields, absent or null, as undefined. A payload that is a plain record of fields
// declares them once (record-tuple.ts makes the pair); the others are written out. Meaning (who
// may send what, ranges such as partition ids) stays with the services; this module only knows
// shapes.

import { GridError } from '../core/errors.js';
import type { WireValue } from './codec.js';
import * as f from './fields.js';
import { recordTuple, type TupleField } from './record-tuple.js';

// ------------------------------------------------------------------ shared shapes

/**
 * The cluster states an operator may set, and the ones that travel on the wire (the committed
 * state). IN_TRANSITION is never stored nor sent: a member derives it from a state change's lock.
 */
export const SETTABLE_CLUSTER_STATES = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE'] as const;
export type SettableClusterState = (typeof SETTABLE_CLUSTER_STATES)[number];
/** Hazelcast's cluster state names, as a member shows them. */
export type ClusterState = SettableClusterState | 'IN_TRANSITION';

/** A member as the member list carries it: [uuid, address, host, port, lite, version]. */
export interface MemberInfo {
  readonly uuid: string;
  /** `ip:port` of the member port (`[ipv6]:port` for IPv6). */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  readonly liteMember: boolean;
  readonly version: string;
}

/** Each service's data of one partition, by service name. */
export type PerServiceData = Readonly<Record<string, WireValue>>;

function clusterState(t: readonly WireValue[], i: number, what: string): SettableClusterState {
  const v = f.str(t, i, what);
  if (!(SETTABLE_CLUSTER_STATES as readonly string[]).includes(v)) {
    throw new GridError('BAD_REQUEST', `malformed member message: ${what} is ${JSON.stringify(v.slice(0, 40))}, not a cluster state`);
  }
  return v as SettableClusterState;
}

/** The tuple of `items`, optional trailing fields that are undefined left off, earlier ones sent as null. */
function trimmed(items: readonly (WireValue | undefined)[]): WireValue[] {
  let n = items.length;
  while (n > 0 && items[n - 1] === undefined) n--;
  const out: WireValue[] = new Array<WireValue>(n);
  for (let i = 0; i < n; i++) out[i] = items[i] ?? null;
  return out;
}

export function encodeMember(m: MemberInfo): WireValue {
  return [m.uuid, m.address, m.host, m.port, m.liteMember, m.version];
}

export function decodeMember(v: WireValue, what = 'member'): MemberInfo {
  const t = f.tuple(v, what);
  return {
    uuid: f.str(t, 0, `${what}.uuid`),
    address: f.str(t, 1, `${what}.address`),
    host: f.str(t, 2, `${what}.host`),
    port: f.int(t, 3, `${what}.port`),
    liteMember: f.bool(t, 4, `${what}.lite`),
    version: f.str(t, 5, `${what}.version`),
  };
}

/** Messages whose payload is the empty tuple: ClusterShutdown, FetchState, FetchTable. */
export function encodeEmpty(): WireValue {
  return [];
}

export function decodeEmpty(v: WireValue, what: string): void {
  f.tuple(v, what);
}

// ------------------------------------------------------------------ Auth (1)

/** [clusterName, uuid, address, username|null, password|null, version]. */
export interface AuthPayload {
  readonly clusterName: string;
  readonly uuid: string;
  readonly address: string;
  readonly username?: string;
  readonly password?: string;
  /** The sender's Grid version (not read by receivers today). */
  readonly version?: string;
  /** The sender's partition hash version (core/murmur3.ts); absent from members older than version 2, which used version 1. */
  readonly partitionHash?: number;
}

export const { encode: encodeAuth, decode: decodeAuth } = recordTuple<AuthPayload>('auth', [
  ['clusterName', f.str, 'cluster name'],
  ['uuid', f.str, 'uuid'],
  ['address', f.str, 'address'],
  ['username', f.optStr, 'username'],
  ['password', f.optStr, 'password'],
  ['version', f.optStr, 'version'],
  ['partitionHash', f.optInt, 'partition hash version'],
]);

/** A member's [uuid, address]: who answered a connection's Auth, who looks for a cluster. */
export interface MemberIdentity {
  readonly uuid: string;
  readonly address: string;
}

const IDENTITY_FIELDS: readonly TupleField<MemberIdentity>[] = [
  ['uuid', f.str, 'uuid'],
  ['address', f.str, 'address'],
];

/** [uuid, address, partitionHash] of the member that accepted the connection (partitionHash absent from members that hash by version 1). */
export interface AuthAnswer extends MemberIdentity {
  readonly partitionHash?: number;
}

export const { encode: encodeAuthAnswer, decode: decodeAuthAnswer } = recordTuple<AuthAnswer>('auth answer', [
  ...IDENTITY_FIELDS,
  ['partitionHash', f.optInt, 'partition hash version'],
]);

// ------------------------------------------------------------------ Discover (2)

/** [uuid, address] of the member looking for a cluster. */
export type DiscoverPayload = MemberIdentity;

export const { encode: encodeDiscover, decode: decodeDiscover } = recordTuple<DiscoverPayload>('discover', IDENTITY_FIELDS);

/** [uuid, address, joined, masterAddress|null]. */
export interface DiscoverAnswerPayload {
  readonly uuid: string;
  readonly address: string;
  readonly joined: boolean;
  readonly masterAddress?: string;
}

export const { encode: encodeDiscoverAnswer, decode: decodeDiscoverAnswer } = recordTuple<DiscoverAnswerPayload>('discover', [
  ['uuid', f.str, 'uuid'],
  ['address', f.str, 'address'],
  ['joined', f.bool, 'joined'],
  ['masterAddress', f.optStr, 'master'],
]);

// ------------------------------------------------------------------ Members (4), FetchState answer (17)

/** [version, members[], clusterState, stateVersion?, masterSince|null?]: the master's member list. */
export interface MembersPayload {
  readonly version: number;
  /** In join order: the first is the master. */
  readonly members: readonly MemberInfo[];
  readonly state: SettableClusterState;
  /** The master's count of committed state changes (absent from older senders). */
  readonly stateVersion?: number;
  /** Wall-clock ms since which the sender has been master (split-brain merge: the older master wins); null when it is not master. */
  readonly masterSince?: number;
}

export function encodeMembers(p: MembersPayload): WireValue {
  return trimmed([p.version, p.members.map(encodeMember), p.state, p.stateVersion, p.masterSince ?? (p.stateVersion === undefined ? undefined : null)]);
}

/** `prefix` names the fields of a list inside another message (a join answer's `members.`). */
function decodeMemberList(v: WireValue, what: string, prefix = ''): MembersPayload {
  const t = f.tuple(v, what);
  return {
    version: f.int(t, 0, `${prefix}version`),
    members: f.arr(t, 1, `${prefix}members`).map((m, i) => decodeMember(m, `${prefix}members[${i}]`)),
    state: clusterState(t, 2, `${prefix}state`),
    stateVersion: f.optInt(t, 3, `${prefix}state version`),
    masterSince: f.optNum(t, 4, `${prefix}master since`),
  };
}

export function decodeMembers(v: WireValue): MembersPayload {
  return decodeMemberList(v, 'members');
}

/** FetchState's request is [] (encodeEmpty); its answer is the member list as in Members. */
export const encodeFetchStateAnswer = encodeMembers;

export function decodeFetchStateAnswer(v: WireValue): MembersPayload {
  return decodeMemberList(v, 'state');
}

// ------------------------------------------------------------------ Join (3)

/** [member tuple]: the joining member itself. */
export interface JoinPayload {
  readonly member: MemberInfo;
}

export function encodeJoin(p: JoinPayload): WireValue {
  return [encodeMember(p.member)];
}

export function decodeJoin(v: WireValue): JoinPayload {
  return { member: decodeMember(f.tuple(v, 'join')[0] ?? null, 'member') };
}

/**
 * [redirectAddress|null, member list|null, refusal?]: a refusal (the joiner stops), else a
 * redirect to the master, else the member list that now includes the joiner.
 */
export interface JoinAnswerPayload {
  readonly redirect?: string;
  readonly members?: MembersPayload;
  readonly refusal?: string;
}

export function encodeJoinAnswer(p: JoinAnswerPayload): WireValue {
  const t: WireValue[] = [p.redirect ?? null, p.members === undefined ? null : encodeMembers(p.members)];
  if (p.refusal !== undefined) t.push(p.refusal);
  return t;
}

/** Decodes a join answer; one with neither a refusal nor a redirect must carry the member list. */
export function decodeJoinAnswer(v: WireValue): JoinAnswerPayload {
  const t = f.tuple(v, 'join answer');
  const refusal = f.optStr(t, 2, 'refusal');
  const redirect = f.optStr(t, 0, 'redirect');
  const list = t[1];
  const members = (list === null || list === undefined) && (refusal !== undefined || redirect !== undefined) ? undefined : decodeMemberList(list ?? null, 'members', 'members.');
  return { redirect, members, refusal };
}

// ------------------------------------------------------------------ Heartbeat (5)

/** The master's cluster state as its heartbeats carry it. */
export interface HeartbeatState {
  readonly state: SettableClusterState;
  readonly version: number;
  /** The txId of the state change the master has in progress. */
  readonly change?: string;
}

/** [uuid, membersVersion, clusterState?, stateVersion?, stateChange|null?]; the state part is absent from older senders. */
export interface HeartbeatPayload {
  readonly uuid: string;
  readonly membersVersion: number;
  readonly clusterState?: HeartbeatState;
}

export function encodeHeartbeat(p: HeartbeatPayload): WireValue {
  const s = p.clusterState;
  return s === undefined ? [p.uuid, p.membersVersion] : [p.uuid, p.membersVersion, s.state, s.version, s.change ?? null];
}

export function decodeHeartbeat(v: WireValue): HeartbeatPayload {
  const t = f.tuple(v, 'heartbeat');
  const uuid = f.str(t, 0, 'uuid');
  const membersVersion = f.int(t, 1, 'version');
  if (t[3] === undefined || t[3] === null) return { uuid, membersVersion };
  return {
    uuid,
    membersVersion,
    clusterState: { state: clusterState(t, 2, 'state'), version: f.int(t, 3, 'state version'), change: f.optStr(t, 4, 'state change') },
  };
}

// ------------------------------------------------------------------ cluster state (11-14)

/** StatePrepare: [txId, state, membersVersion?]. */
export interface StatePreparePayload {
  readonly txId: string;
  readonly state: SettableClusterState;
  /** The master's member list version (fencing; absent from older senders). */
  readonly membersVersion?: number;
}

export const { encode: encodeStatePrepare, decode: decodeStatePrepare } = recordTuple<StatePreparePayload>('prepare', [
  ['txId', f.str, 'txId'],
  ['state', clusterState, 'state'],
  ['membersVersion', f.optInt, 'member list version'],
], { trimOptional: true });

/** StateCommit: [txId, state, membersVersion?, stateVersion?]. */
export interface StateCommitPayload extends StatePreparePayload {
  /** The state version this commit makes (absent from older senders). */
  readonly stateVersion?: number;
}

export const { encode: encodeStateCommit, decode: decodeStateCommit } = recordTuple<StateCommitPayload>('commit', [
  ['txId', f.str, 'txId'],
  ['state', clusterState, 'state'],
  ['membersVersion', f.optInt, 'member list version'],
  ['stateVersion', f.optInt, 'state version'],
], { trimOptional: true });

/** StateRollback: [txId]. */
export interface StateRollbackPayload {
  readonly txId: string;
}

export const { encode: encodeStateRollback, decode: decodeStateRollback } = recordTuple<StateRollbackPayload>('rollback', [['txId', f.str, 'txId']]);

/** ChangeState: [state]; the answer is a boolean (changed). */
export interface ChangeStatePayload {
  readonly state: SettableClusterState;
}

export const { encode: encodeChangeState, decode: decodeChangeState } = recordTuple<ChangeStatePayload>('change state', [['state', clusterState, 'state']]);

// ------------------------------------------------------------------ leaving, merging (15, 19, 40)

/** LeaveRequest (15) and Leave (19): [uuid] of the leaving member (the sender itself). */
export interface LeavePayload {
  readonly uuid: string;
}

export const { encode: encodeLeave, decode: decodeLeave } = recordTuple<LeavePayload>('leave', [['uuid', f.str, 'uuid']]);

/** MergeTo: [targetMasterAddress]. */
export interface MergeToPayload {
  readonly target: string;
}

export const { encode: encodeMergeTo, decode: decodeMergeTo } = recordTuple<MergeToPayload>('merge to', [['target', f.str, 'target']]);

// ------------------------------------------------------------------ PartitionTable (6), FetchTable answer (20)

/**
 * [version, uuids[], rows[][], migrationQueueSize?]: each row lists a partition's replicas
 * (owner first) as indexes into `uuids`, which holds each member once, in order of first use.
 */
export interface PartitionTablePayload {
  readonly version: number;
  /** Replica uuids per partition, owner first. */
  readonly rows: readonly (readonly string[])[];
  /** Migrations the master still has planned (absent from older senders). */
  readonly migrationQueueSize?: number;
}

export function encodePartitionTable(p: PartitionTablePayload): WireValue {
  const uuids: string[] = [];
  const index = new Map<string, number>();
  const rows = p.rows.map((row) =>
    row.map((u) => {
      let i = index.get(u);
      if (i === undefined) {
        i = uuids.length;
        uuids.push(u);
        index.set(u, i);
      }
      return i;
    }),
  );
  return trimmed([p.version, uuids, rows, p.migrationQueueSize]);
}

export function decodePartitionTable(v: WireValue): PartitionTablePayload {
  const t = f.tuple(v, 'partition table');
  const version = f.int(t, 0, 'version');
  const uuids = f.strings(t, 1, 'uuids');
  const rows = f.arr(t, 2, 'rows').map((r, pid) => {
    const a = f.tuple(r, `rows[${pid}]`);
    return a.map((_, i) => {
      const u = uuids[f.int(a, i, `rows[${pid}][${i}]`)];
      if (u === undefined) throw new GridError('BAD_REQUEST', `partition table row ${pid} names an unknown member`);
      return u;
    });
  });
  return { version, rows, migrationQueueSize: f.optInt(t, 3, 'migrationQueueSize') };
}

// ------------------------------------------------------------------ migration (9, 10, 21)

/** Migrate: [partitionId, replicas[], previousReplicas[]] -> null. */
export interface MigratePayload {
  readonly partitionId: number;
  readonly replicas: readonly string[];
  readonly previousReplicas: readonly string[];
}

export const { encode: encodeMigrate, decode: decodeMigrate } = recordTuple<MigratePayload>('migrate', [
  ['partitionId', f.int, 'partitionId'],
  ['replicas', f.strings, 'replicas'],
  ['previousReplicas', f.strings, 'previous replicas'],
]);

/** MigrateEnd: [partitionId]. */
export interface MigrateEndPayload {
  readonly partitionId: number;
}

export const { encode: encodeMigrateEnd, decode: decodeMigrateEnd } = recordTuple<MigrateEndPayload>('migrate end', [['partitionId', f.int, 'partitionId']]);

/** PartitionData: [partitionId, replicaIndex, data per service, tableVersion?, versions[]?] -> null. */
export interface PartitionDataPayload {
  readonly partitionId: number;
  readonly replicaIndex: number;
  readonly data: PerServiceData;
  /** The sender's partition table version (fencing; absent from older senders). */
  readonly tableVersion?: number;
  /** The owner's backup counters taken with the copy (absent from older senders). */
  readonly versions?: readonly number[];
}

export function encodePartitionData(p: PartitionDataPayload): WireValue {
  return trimmed([p.partitionId, p.replicaIndex, p.data, p.tableVersion, p.versions === undefined ? undefined : [...p.versions]]);
}

export function decodePartitionData(v: WireValue): PartitionDataPayload {
  const t = f.tuple(v, 'partition data');
  return {
    partitionId: f.int(t, 0, 'partitionId'),
    replicaIndex: f.int(t, 1, 'replicaIndex'),
    data: f.record(t, 2, 'data'),
    tableVersion: f.optInt(t, 3, 'table version'),
    versions: t[4] === null || t[4] === undefined ? undefined : f.ints(t, 4, 'versions'),
  };
}

// ------------------------------------------------------------------ anti-entropy (30-32)

export interface ReplicaVersionEntry {
  readonly partitionId: number;
  readonly replicaIndex: number;
  /** Backup operations the owner has sent to that replica index of the partition. */
  readonly version: number;
}

/** ReplicaVersions: [tableVersion, [[partitionId, replicaIndex, version], ...]], one-way. */
export interface ReplicaVersionsPayload {
  readonly tableVersion: number;
  readonly entries: readonly ReplicaVersionEntry[];
}

export function encodeReplicaVersions(p: ReplicaVersionsPayload): WireValue {
  return [p.tableVersion, p.entries.map((e) => [e.partitionId, e.replicaIndex, e.version])];
}

export function decodeReplicaVersions(v: WireValue): ReplicaVersionsPayload {
  const t = f.tuple(v, 'replica versions');
  const tableVersion = f.int(t, 0, 'table version');
  const entries = f.arr(t, 1, 'entries').map((x, j) => {
    const e = f.tuple(x, `entries[${j}]`);
    return {
      partitionId: f.int(e, 0, `entries[${j}].partitionId`),
      replicaIndex: f.int(e, 1, `entries[${j}].replicaIndex`),
      version: f.int(e, 2, `entries[${j}].version`),
    };
  });
  return { tableVersion, entries };
}

/** ReplicaSyncRequest: [tableVersion, [partitionId, ...]], one-way. */
export interface ReplicaSyncRequestPayload {
  readonly tableVersion: number;
  readonly partitionIds: readonly number[];
}

export const { encode: encodeReplicaSyncRequest, decode: decodeReplicaSyncRequest } = recordTuple<ReplicaSyncRequestPayload>('replica sync request', [
  ['tableVersion', f.int, 'table version'],
  ['partitionIds', f.ints, 'partitions'],
]);

/** ReplicaSyncData: [partitionId, replicaIndex, data per service, versions[], tableVersion] -> null. */
export interface ReplicaSyncDataPayload {
  readonly partitionId: number;
  readonly replicaIndex: number;
  readonly data: PerServiceData;
  readonly versions: readonly number[];
  readonly tableVersion: number;
}

export const { encode: encodeReplicaSyncData, decode: decodeReplicaSyncData } = recordTuple<ReplicaSyncDataPayload>('replica sync data', [
  ['partitionId', f.int, 'partitionId'],
  ['replicaIndex', f.int, 'replicaIndex'],
  ['data', f.record, 'data'],
  ['versions', f.ints, 'versions'],
  ['tableVersion', f.int, 'table version'],
]);

// ------------------------------------------------------------------ invocation (7, 8, 18)

/** Operation: [service, type, partitionId, args[], invocationId|null] -> the service's encoded result. `args` belong to the service. */
export interface OperationPayload {
  readonly service: string;
  readonly type: string;
  readonly partitionId: number;
  readonly args: readonly WireValue[];
  /** Set for operations that may wait (a poll): the caller's id for PollCancel. */
  readonly invocationId?: number;
}

export function encodeOperation(p: OperationPayload): WireValue {
  return [p.service, p.type, p.partitionId, p.args, p.invocationId ?? null];
}

export function decodeOperation(v: WireValue): OperationPayload {
  const t = f.tuple(v, 'operation');
  return {
    service: f.str(t, 0, 'service'),
    type: f.str(t, 1, 'type'),
    partitionId: f.int(t, 2, 'partitionId'),
    args: f.arr(t, 3, 'args'),
    invocationId: f.optInt(t, 4, 'invocationId'),
  };
}

/** One operation of an OperationGroup: the partition it runs on, its type and arguments (as in Operation). */
export interface OperationGroupItem {
  readonly partitionId: number;
  readonly type: string;
  readonly args: readonly WireValue[];
}

/** OperationGroup: [service, [[partitionId, type, args[]], ...]] -> one answer per item: [0, result] | [1, code, message]. */
export interface OperationGroupPayload {
  readonly service: string;
  readonly items: readonly OperationGroupItem[];
}

export function encodeOperationGroup(p: OperationGroupPayload): WireValue {
  return [p.service, p.items.map((it) => [it.partitionId, it.type, it.args])];
}

export function decodeOperationGroup(v: WireValue): OperationGroupPayload {
  const t = f.tuple(v, 'operation group');
  const service = f.str(t, 0, 'service');
  const raw = f.arr(t, 1, 'items');
  const items: OperationGroupItem[] = [];
  for (let i = 0; i < raw.length; i++) {
    const it = f.tuple(raw[i]!, `items[${i}]`);
    items.push({ partitionId: f.int(it, 0, `items[${i}] partitionId`), type: f.str(it, 1, `items[${i}] type`), args: f.arr(it, 2, `items[${i}] args`) });
  }
  return { service, items };
}

/** Backup: [service, type, partitionId, args[], tableVersion?, replicaIndex?, version?] -> null (sync) or one-way (async). */
export interface BackupPayload {
  readonly service: string;
  readonly type: string;
  readonly partitionId: number;
  readonly args: readonly WireValue[];
  /** The owner's partition table version (fencing; absent from older senders). */
  readonly tableVersion?: number;
  /** Anti-entropy (absent from older senders): the replica index this backup is for and the owner's count of backups sent to it. */
  readonly replica?: { readonly index: number; readonly version: number };
}

export function encodeBackup(p: BackupPayload): WireValue {
  return trimmed([p.service, p.type, p.partitionId, p.args, p.tableVersion, p.replica?.index, p.replica?.version]);
}

export function decodeBackup(v: WireValue): BackupPayload {
  const t = f.tuple(v, 'backup');
  const index = f.optInt(t, 5, 'replicaIndex');
  return {
    service: f.str(t, 0, 'service'),
    type: f.str(t, 1, 'type'),
    partitionId: f.int(t, 2, 'partitionId'),
    args: f.arr(t, 3, 'args'),
    tableVersion: f.optInt(t, 4, 'table version'),
    replica: index === undefined ? undefined : { index, version: f.int(t, 6, 'version') },
  };
}

/** PollCancel: [callerUuid, invocationId], one-way: the client of a waiting poll has gone. */
export interface PollCancelPayload {
  readonly callerUuid: string;
  readonly invocationId: number;
}

export const { encode: encodePollCancel, decode: decodePollCancel } = recordTuple<PollCancelPayload>('poll cancel', [
  ['callerUuid', f.str, 'uuid'],
  ['invocationId', f.int, 'invocationId'],
]);

// ------------------------------------------------------------------ PersistenceCommand (60)

export const PERSISTENCE_COMMANDS = ['partialStart', 'forceStart', 'backup', 'backupInterrupt'] as const;
export type PersistenceCommandName = (typeof PERSISTENCE_COMMANDS)[number];

/** [command, sequence] -> [accepted, message]. */
export interface PersistenceCommandPayload {
  readonly command: PersistenceCommandName;
  /** The backup's sequence (`backup-<sequence>`), the same on every member; 0 for the others. */
  readonly sequence: number;
}

export function encodePersistenceCommand(p: PersistenceCommandPayload): WireValue {
  return [p.command, p.sequence];
}

export function decodePersistenceCommand(v: WireValue): PersistenceCommandPayload {
  const t = f.tuple(v, 'persistence command');
  const command = f.str(t, 0, 'command');
  if (!(PERSISTENCE_COMMANDS as readonly string[]).includes(command)) {
    throw new GridError('BAD_REQUEST', `malformed member message: persistence command ${JSON.stringify(command.slice(0, 40))}`);
  }
  return { command: command as PersistenceCommandName, sequence: f.int(t, 1, 'sequence') };
}

export interface PersistenceCommandAnswer {
  readonly accepted: boolean;
  readonly message: string;
}

export const { encode: encodePersistenceCommandAnswer, decode: decodePersistenceCommandAnswer } = recordTuple<PersistenceCommandAnswer>('persistence command answer', [
  ['accepted', f.bool, 'accepted'],
  ['message', f.str, 'message'],
]);

// ------------------------------------------------------------------ RecoveryState (61)

/** [withRows]: the asker also wants the persisted table itself. */
export interface RecoveryStatePayload {
  readonly withRows: boolean;
}

export const { encode: encodeRecoveryState, decode: decodeRecoveryState } = recordTuple<RecoveryStatePayload>('recovery state', [['withRows', f.bool, 'with rows']]);

/** [version (0: not restarting), fingerprint, table (as in PartitionTable) | null]. */
export interface RecoveryStateAnswer {
  readonly version: number;
  readonly hash: string;
  readonly table: PartitionTablePayload | undefined;
}

export function encodeRecoveryStateAnswer(p: RecoveryStateAnswer): WireValue {
  return [p.version, p.hash, p.table === undefined ? null : encodePartitionTable(p.table)];
}

export function decodeRecoveryStateAnswer(v: WireValue): RecoveryStateAnswer {
  const t = f.tuple(v, 'recovery state answer');
  return { version: f.int(t, 0, 'version'), hash: f.str(t, 1, 'hash'), table: t[2] === null || t[2] === undefined ? undefined : decodePartitionTable(t[2]) };
}
