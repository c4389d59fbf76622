// Member-protocol fuzz input: valid and wrong payloads of every message of the table
// (messages.ts), whole connection streams before and after Auth (and on a WAN connection, one
// opened by WanAuth), and the policy that keeps the fuzz on decoding rather than authority (no
// well-formed cluster command). Payload shapes are not restated here: valid payloads are typed
// values put through payloads.ts's (wan-payloads.ts's, cp-payloads.ts's) encoders, and
// "well-formed" means "the decoder takes it", as it does on the receiving member. The
// exceptions are the three WAN requests read inline by wan-service.ts (WanSyncStatus,
// WanAddConfig, WanConfigs; see WAN_INLINE).

import { PARTITION_HASH_VERSION } from '../../src/core/murmur3.js';
import { GridError } from '../../src/core/errors.js';
import { Latin1, type WireValue } from '../../src/protocol/codec.js';
import { FrameKind, FrameReader, encodeFrame, type Frame } from '../../src/protocol/frame.js';
import { Msg } from '../../src/protocol/messages.js';
import * as F from '../../src/protocol/fields.js';
import * as P from '../../src/protocol/payloads.js';
import * as W from '../../src/protocol/wan-payloads.js';
import * as C from '../../src/protocol/cp-payloads.js';
import * as E from '../../src/protocol/event-payloads.js';
import * as QE from '../../src/protocol/queue-event-payloads.js';
import * as MR from '../../src/protocol/monitor-payloads.js';
import { MEMBER_PREAMBLE, MEMBER_PROTOCOL_VERSION } from '../../src/protocol/preamble.js';
import { INTERESTING_U32, Rng, chunkBytes, deepValue, mutateMany, randomNumber, randomString, randomValue } from './engine.js';

// ---------------------------------------------------------------- typed generators

type ValueGen<T> = (rng: Rng) => T;

/**
 * A generator for every field of payload type T, optional ones included (they may generate
 * undefined): a field added to a payload in payloads.ts fails the typecheck here until the fuzz
 * generates it.
 */
type Fields<T> = { readonly [K in keyof T]-?: object extends Pick<T, K> ? ValueGen<T[K] | undefined> : ValueGen<T[K]> };

function build<T>(rng: Rng, fields: Fields<T>): T {
  const out: Partial<Record<keyof T, unknown>> = {};
  // In the literal's key order: the same seed builds the same value.
  for (const k of Object.keys(fields) as (keyof T)[]) out[k] = (fields[k] as ValueGen<unknown>)(rng);
  return out as T;
}

/** `g`, or undefined (an optional field left off) with probability `absent`. */
const opt =
  <T>(g: ValueGen<T>, absent = 0.4): ValueGen<T | undefined> =>
  (rng) =>
    rng.chance(absent) ? undefined : g(rng);

const list =
  <T>(g: ValueGen<T>, max = 5): ValueGen<T[]> =>
  (rng) =>
    Array.from({ length: rng.size(max) }, () => g(rng));

const PARTITION_COUNT = 271;
const inRange = (pid: number): boolean => Number.isInteger(pid) && pid >= 0 && pid < PARTITION_COUNT;

const str: ValueGen<string> = (rng) => randomString(rng);
const int: ValueGen<number> = (rng) => (rng.chance(0.5) ? rng.range(-2, 300) : rng.pick([0, -1, 0x7fffffff, -0x80000000]));
const small: ValueGen<number> = (rng) => rng.range(0, 1000);
/** A partition id, mostly in range (an id outside it is refused by the receiver). */
const pid: ValueGen<number> = (rng) => (rng.chance(0.8) ? rng.int(PARTITION_COUNT) : rng.pick([PARTITION_COUNT, -1, 1000]));
const state: ValueGen<P.SettableClusterState> = (rng) => rng.pick(P.SETTABLE_CLUSTER_STATES);
const uuid: ValueGen<string> = (rng) => (rng.chance(0.7) ? fakeUuid(rng) : randomString(rng));
const address: ValueGen<string> = (rng) => rng.pick(['127.0.0.1:1', '127.0.0.1:9', 'localhost:1', '[::1]:1', 'nowhere', '']);
const version: ValueGen<string> = (rng) => (rng.chance(0.7) ? rng.pick(['5.3.0', '0.1.0']) : randomString(rng));

export function fakeUuid(rng: Rng): string {
  const h = rng.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const MEMBER: Fields<P.MemberInfo> = { uuid, address, host: str, port: int, liteMember: (rng) => rng.chance(0.5), version };
const member: ValueGen<P.MemberInfo> = (rng) => build(rng, MEMBER);

const MEMBERS: Fields<P.MembersPayload> = {
  version: int,
  members: list(member, 4),
  state,
  stateVersion: opt(small),
  masterSince: opt((rng) => (rng.chance(0.8) ? Date.now() - rng.int(1e6) : randomNumber(rng))),
};

const TABLE: Fields<P.PartitionTablePayload> = {
  version: int,
  // A few uuids shared between rows, as in a real table.
  rows: (rng) => {
    const pool = Array.from({ length: 1 + rng.int(4) }, () => uuid(rng));
    return list(list((r) => r.pick(pool), 3), 6)(rng);
  },
  migrationQueueSize: opt(small),
};

/** Each service's data of a partition: any value under `map`, `queue` or another name. */
const perService: ValueGen<P.PerServiceData> = (rng) => {
  const out: Record<string, WireValue> = {};
  const n = rng.size(3);
  for (let i = 0; i < n; i++) {
    const key = rng.chance(0.5) ? rng.pick(['map', 'queue']) : randomString(rng);
    Object.defineProperty(out, key, { value: randomValue(rng, 2), enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/** Names of maps and queues the fuzz may touch. */
const FUZZ_NAMES = ['fz-m', 'fz-q', 'fz-0', 'default', 'm', 'q'];
const OPERATION_TYPES: ReadonlyMap<string, readonly string[]> = new Map([
  // wanApply / observerQuery: what a WAN batch and a Merkle request run at the partition's owner; wan: the backup of a wanApply.
  // batch: a part of a map batch (grouped by owner); entries: its backup.
  ['map', ['get', 'put', 'remove', 'clear', 'size', 'wanApply', 'observerQuery', 'wan', 'batch', 'entries']],
  ['queue', ['offer', 'pushFront', 'poll', 'size', 'destroy']],
]);

/** Plausible arguments of a map or queue operation, on fuzz names. */
function dataArgs(rng: Rng): WireValue[] {
  const args: WireValue[] = [rng.pick(FUZZ_NAMES)];
  const n = rng.int(4);
  for (let i = 0; i < n; i++) {
    args.push(
      rng.weighted<WireValue>([
        [3, `k${rng.int(50)}`],
        [2, new Latin1(`v${rng.int(1000)}`)],
        [1, rng.chance(0.5) ? null : 'text/plain'],
        [1, Date.now() + rng.int(3000)],
        [1, randomValue(rng, 1)],
      ]),
    );
  }
  return args;
}

/** `map` or `queue` now and then something else; then one of that service's operation types. */
const service: ValueGen<string> = (rng) => (rng.chance(0.95) ? rng.pick(['map', 'queue']) : randomString(rng));
function withOperationType<T extends { readonly service: string; readonly type: string }>(rng: Rng, p: T): T {
  const types = OPERATION_TYPES.get(p.service);
  return types === undefined ? p : { ...p, type: rng.pick(types) };
}

// ---------------------------------------------------------------- payloads of the table

/** One payload (a request's or an answer's): how to build a well-formed one, and the receiver's decoder. */
export interface PayloadSpec {
  /** A well-formed payload: a typed value put through payloads.ts's encoder. */
  readonly valid: (rng: Rng) => WireValue;
  /** payloads.ts's decoder, as the receiver runs it: throws GridError('BAD_REQUEST') on a wrong shape. */
  readonly decode: (v: WireValue) => unknown;
}

function payload<T>(encode: (p: T) => WireValue, decode: (v: WireValue) => T, fields: Fields<NoInfer<T>>, couple?: (rng: Rng, p: T) => T): PayloadSpec {
  return {
    valid: (rng) => {
      const p = build<T>(rng, fields);
      return encode(couple === undefined ? p : couple(rng, p));
    },
    decode,
  };
}

/** ClusterShutdown, FetchState and FetchTable ask with an empty tuple. */
const EMPTY: PayloadSpec = { valid: () => P.encodeEmpty(), decode: (v) => P.decodeEmpty(v, 'payload') };

/**
 * What the receiver does with a payload its decoder takes:
 * - `harmless`: nothing the cluster depends on (answers, heartbeats, a rollback of no change);
 * - `data`: serves or stores data under names the fuzz picks (never the canary's);
 * - `command`: changes membership, ownership, replicas or state (or, for `acts`, does so only
 *   for some payloads): never sent well-formed after a successful Auth. Authority is not what
 *   this fuzz tests, and a forged command is not a decode bug;
 * - `always`: the receiver acts whatever the payload (ClusterShutdown): never sent.
 */
export type Effect = 'harmless' | 'data' | 'command' | 'always';

export interface MessageSpec {
  readonly type: number;
  readonly name: string;
  readonly request: PayloadSpec;
  /** The answer (for the dialling side), when the message has one with a shape. */
  readonly answer?: PayloadSpec;
  readonly effect: Effect;
  /** For a command: whether a payload its decoder takes makes the receiver act (default: always). */
  readonly acts?: (payload: WireValue, ctx: MemberFuzzContext) => boolean;
  /**
   * What the receiver does with it as a request on a WAN connection (after an accepted WanAuth);
   * absent: the receiver closes the WAN connection (not a WAN request).
   */
  readonly wan?: Effect;
}

/** A Leave or LeaveRequest acts only when it names a real member. */
const namesMember = (v: WireValue, ctx: MemberFuzzContext): boolean => ctx.memberUuids.includes(P.decodeLeave(v).uuid);

// ---------------------------------------------------------------- WAN payloads (wan-payloads.ts)

/** Latin-1 text (a value travels as Latin1: one byte per character). */
const latin1Text: ValueGen<string> = (rng) => (rng.chance(0.6) ? `v${rng.int(1000)}` : rng.bytes(rng.size(40)).toString('latin1'));
const mapName: ValueGen<string> = (rng) => (rng.chance(0.9) ? rng.pick(FUZZ_NAMES) : randomString(rng));
const clusterName: ValueGen<string> = (rng) => (rng.chance(0.6) ? rng.pick(['fz-source', 'fz-other', 'dev']) : randomString(rng));
const MERGE_POLICIES = ['PassThroughMergePolicy', 'PutIfAbsentMergePolicy', 'HigherHitsMergePolicy', 'LatestUpdateMergePolicy', 'com.hazelcast.spi.merge.PassThroughMergePolicy'];
const time: ValueGen<number> = (rng) => (rng.chance(0.8) ? Date.now() - rng.int(1e6) : randomNumber(rng));

const WAN_EVENT: Fields<W.WanBatchEvent> = {
  mapName,
  kind: (rng) => (rng.chance(0.7) ? 'put' : 'remove'),
  key: (rng) => (rng.chance(0.8) ? `k${rng.int(50)}` : randomString(rng)),
  value: latin1Text,
  contentType: opt((rng) => (rng.chance(0.7) ? rng.pick(['text/plain', 'application/json']) : randomString(rng)), 0.5),
  // The time left; 0 or less (and -1 on the wire for none) reads as no TTL.
  // A valid TTL is finite (NaN and infinities are refused by the decoder).
  ttlRemainingMs: opt((rng) => {
    const n = rng.chance(0.8) ? rng.range(1, 120_000) : randomNumber(rng);
    return Number.isFinite(n) ? n : 1;
  }, 0.5),
  mergePolicy: (rng) => (rng.chance(0.85) ? rng.pick(MERGE_POLICIES) : randomString(rng)),
  originClusters: list(clusterName, 3),
  stats: opt((rng) => build<W.WanEntryStats>(rng, { creationTime: time, lastUpdateTime: time, lastAccessTime: time, hits: (r) => (r.chance(0.8) ? r.int(100) : randomNumber(r)) })),
};

const WAN_JOB_PART: Fields<W.WanJobPart> = {
  kind: (rng) => rng.pick(['sync', 'check'] as const),
  wanRepName: str,
  publisherId: str,
  mapNames: opt(list(mapName, 3)),
  creationTime: time,
  participants: list(uuid, 3),
  partitions: small,
  done: small,
  failure: opt(str, 0.7),
  partitionsDiffering: small,
  leavesChecked: small,
  leavesDiffering: small,
  entriesToSync: small,
};

/** A plausible addWanConfig JSON (Hazelcast's WanReplicationConfigDTO), or any text. */
const wanConfigJson: ValueGen<string> = (rng) =>
  rng.chance(0.5)
    ? JSON.stringify({ name: `fz-wan-${rng.int(5)}`, batchPublishers: [{ clusterName: clusterName(rng), publisherId: str(rng), targetEndpoints: address(rng) }] })
    : randomString(rng);

/**
 * The WAN requests wan-service.ts reads inline rather than through a wan-payloads.ts pair;
 * these decoders restate its reads (the same field names), so "well-formed" means what the
 * handler takes. WanConfigs' handler reads nothing of its payload: any payload is well-formed.
 */
const WAN_INLINE = {
  syncStatus: payload(
    (p: { uuid: string }): WireValue => [p.uuid],
    (v) => ({ uuid: F.str(F.tuple(v, 'wan sync status'), 0, 'uuid') }),
    { uuid },
  ),
  addConfig: payload(
    (p: { json: string }): WireValue => [p.json],
    (v) => ({ json: F.str(F.tuple(v, 'wan add config'), 0, 'json') }),
    { json: wanConfigJson },
  ),
  configs: { valid: (): WireValue => [], decode: (): unknown => undefined } satisfies PayloadSpec,
  /** The answer, [json...], as a member that joined reads it. */
  configsAnswer: { valid: (rng: Rng): WireValue => list(wanConfigJson, 3)(rng), decode: (v: WireValue): unknown => F.strings([v], 0, 'wan configs') } satisfies PayloadSpec,
};

// ---------------------------------------------------------------- CP payloads (cp-payloads.ts)

/** A CP member id (a random UUID; now and then another non-empty string). */
const cpUuid: ValueGen<string> = (rng) => (rng.chance(0.8) ? fakeUuid(rng) : `cp-${randomString(rng)}`);
/** A formed subsystem's seed (CpBootstrap and CpReset name one; 0 is refused there). */
const formedSeed: ValueGen<number> = (rng) => (rng.chance(0.8) ? 1 + rng.int(0x7ffffffe) : rng.pick([1, 0x7ffffffe, Number.MAX_SAFE_INTEGER]));
/** A seed: 0 (none) or a CP subsystem's. */
const cpSeed: ValueGen<number> = (rng) => (rng.chance(0.2) ? 0 : formedSeed(rng));
const groupId: ValueGen<number> = (rng) => (rng.chance(0.9) ? rng.int(5) : rng.pick([1000, 0x7fffffff]));
const CP_MEMBER: Fields<C.CpMemberRec> = { cpUuid, memberUuid: uuid, address };
const cpMember: ValueGen<C.CpMemberRec> = (rng) => build(rng, CP_MEMBER);
/** `n` members with distinct cpUuids. */
const cpMembers = (rng: Rng, n: number): C.CpMemberRec[] => Array.from({ length: n }, (_, i) => ({ ...cpMember(rng), cpUuid: `${cpUuid(rng)}-${i}` }));
const CP_VIEW: Fields<C.CpView> = {
  seed: cpSeed,
  version: small,
  groupSize: (rng) => rng.pick([1, 3, 5, 7]),
  initialCpMembers: list(cpMember, 4),
  cpMembers: list(cpMember, 4),
  groups: list((rng) => build<C.CpGroupRec>(rng, { name: (r) => (r.chance(0.7) ? r.pick(['METADATA', 'default', 'fz']) : `g${randomString(r)}`), id: groupId, initialMembers: list(cpUuid, 3), members: list(cpUuid, 3) }), 3),
};
const cpView: ValueGen<C.CpView> = (rng) => build(rng, CP_VIEW);
/** A Raft message the Raft decoder takes (its own fuzz is in test/unit/protocol/cp-payloads.test.ts). */
const raftMessage: ValueGen<C.RaftMessage> = (rng) => {
  const term = small(rng);
  return rng.pick<C.RaftMessage>([
    { type: 'pre-vote', term, lastLogIndex: small(rng), lastLogTerm: rng.int(term + 1) },
    { type: 'vote-response', term, granted: rng.chance(0.5) },
    { type: 'append', term, prevLogIndex: small(rng), prevLogTerm: rng.int(term + 1), entries: [], leaderCommit: small(rng), seq: small(rng) },
    { type: 'append-response', term, success: rng.chance(0.5), matchIndex: small(rng), hintIndex: small(rng), seq: small(rng) },
  ]);
};
/** A CpInvoke body: a command, a query or a membership change, on fuzz names (the fuzz cluster runs without CP). */
const cpBody: ValueGen<WireValue> = (rng) =>
  rng.weighted<WireValue>([
    [2, ['add', `fz-${rng.int(100)}`, 'fz', String(rng.range(-5, 5))]],
    [2, ['atomicLong', 'fz']],
    [1, [rng.pick(['add', 'remove']), cpUuid(rng)]],
    [1, randomValue(rng, 2)],
  ]);
/** An invoke answer of each tag. */
const cpInvokeAnswer: ValueGen<C.CpInvokeAnswer> = (rng) =>
  rng.pick<C.CpInvokeAnswer>([
    { tag: 'ok', value: randomValue(rng, 2) },
    { tag: 'err', code: rng.pick(['NOT_FOUND', 'BAD_REQUEST', 'CP_UNAVAILABLE', 'SOME_LATER_CODE']), message: str(rng) },
    { tag: 'retry', reason: rng.pick(['NOT_LEADER', 'UNKNOWN_GROUP', 'BUSY', 'INDETERMINATE']), hint: opt(cpUuid)(rng) },
  ]);

const CP = {
  raft: payload(C.encodeCpRaft, C.decodeCpRaft, { seed: cpSeed, groupId, from: cpUuid, to: cpUuid, message: raftMessage }),
  invoke: payload(C.encodeCpInvoke, C.decodeCpInvoke, { seed: cpSeed, groupId, kind: (rng) => rng.pick(C.CP_INVOKE_KINDS), body: cpBody }),
  invokeAnswer: { valid: (rng: Rng): WireValue => C.encodeCpInvokeAnswer(cpInvokeAnswer(rng)), decode: C.decodeCpInvokeAnswer } satisfies PayloadSpec,
  view: payload(C.encodeCpView, C.decodeCpView, { view: cpView }),
  fetchViewAnswer: payload(C.encodeCpFetchViewAnswer, C.decodeCpFetchViewAnswer, { view: opt(cpView, 0.2) }),
  discoverAnswer: payload(C.encodeCpDiscoverAnswer, C.decodeCpDiscoverAnswer, { cpUuid, seed: cpSeed, leaving: (rng) => rng.chance(0.2) }),
  // 1..5 members with distinct cpUuids; a group size of at most their number.
  bootstrap: payload(C.encodeCpBootstrap, C.decodeCpBootstrap, { seed: formedSeed, groupSize: (rng) => 1 + rng.int(5), members: (rng) => cpMembers(rng, 1 + rng.int(5)) }, (rng, p) => ({
    ...p,
    groupSize: Math.min(p.groupSize, p.members.length),
  })),
  reset: payload(C.encodeCpReset, C.decodeCpReset, { seed: formedSeed }),
};

const eventValue = (rng: Rng): E.EventValue | undefined => (rng.chance(0.3) ? undefined : { value: latin1Text(rng), contentType: rng.chance(0.5) ? 'text/plain' : undefined });
const mapEvent = (rng: Rng): E.MapEventPayload => ({
  mapName: mapName(rng),
  partitionId: rng.int(PARTITION_COUNT),
  epoch: small(rng),
  sequence: small(rng),
  type: rng.pick(E.MAP_EVENT_TYPES),
  key: rng.chance(0.9) ? `k${rng.int(50)}` : undefined,
  oldValue: eventValue(rng),
  newValue: eventValue(rng),
  count: small(rng),
});

const queueEvent = (rng: Rng): QE.QueueEventPayload => ({
  queueName: mapName(rng),
  partitionId: rng.int(PARTITION_COUNT),
  epoch: small(rng),
  sequence: small(rng),
  type: rng.pick(QE.QUEUE_EVENT_TYPES),
  item: eventValue(rng),
  count: small(rng),
});

const WAN_AUTH_PAYLOAD = payload(W.encodeWanAuth, W.decodeWanAuth, {
  sourceCluster: clusterName,
  targetCluster: clusterName,
  uuid,
  address,
  username: opt(str, 0.7),
  password: opt(str, 0.7),
  version,
  partitionHash: opt((rng) => (rng.chance(0.8) ? PARTITION_HASH_VERSION : int(rng)), 0.3),
});
const WAN_BATCH_PAYLOAD = payload(W.encodeWanBatch, W.decodeWanBatch, { sourceCluster: clusterName, ackOnReceipt: (rng) => rng.chance(0.5), events: list((rng) => build(rng, WAN_EVENT), 6) });
const WAN_MERKLE_PAYLOAD = payload(W.encodeWanMerkle, W.decodeWanMerkle, { mapName, partitionId: pid, level: (rng) => (rng.chance(0.8) ? rng.range(-1, 12) : int(rng)) });

const MEMBERS_PAYLOAD = payload(P.encodeMembers, P.decodeMembers, MEMBERS);
const TABLE_PAYLOAD = payload(P.encodePartitionTable, P.decodePartitionTable, TABLE);

/**
 * Every message of messages.ts by name: a message added there fails the typecheck here until
 * it has a spec (its payload pair lives in payloads.ts).
 */
const SPECS: { readonly [K in keyof typeof Msg]: Omit<MessageSpec, 'type' | 'name'> } = {
  Auth: {
    request: payload(P.encodeAuth, P.decodeAuth, { clusterName: str, uuid, address, username: opt(str, 0.7), password: opt(str, 0.7), version: opt(version, 0.3), partitionHash: opt((rng) => (rng.chance(0.8) ? 2 : int(rng)), 0.2) }),
    answer: payload(P.encodeAuthAnswer, P.decodeAuthAnswer, { uuid, address, partitionHash: opt((rng) => (rng.chance(0.8) ? 2 : int(rng)), 0.2) }),
    effect: 'harmless',
  },
  Discover: {
    request: payload(P.encodeDiscover, P.decodeDiscover, { uuid, address }),
    answer: payload(P.encodeDiscoverAnswer, P.decodeDiscoverAnswer, { uuid, address, joined: (rng) => rng.chance(0.5), masterAddress: opt(address) }),
    effect: 'harmless',
  },
  Join: {
    request: payload(P.encodeJoin, P.decodeJoin, { member }),
    // Without a refusal or a redirect, a join answer carries the member list.
    answer: payload(P.encodeJoinAnswer, P.decodeJoinAnswer, { redirect: opt(address, 0.6), members: opt((rng) => build(rng, MEMBERS), 0.3), refusal: opt(str, 0.8) }, (rng, p) =>
      p.members === undefined && p.redirect === undefined && p.refusal === undefined ? { ...p, members: build(rng, MEMBERS) } : p,
    ),
    effect: 'command',
  },
  Members: { request: MEMBERS_PAYLOAD, effect: 'command' },
  Heartbeat: {
    request: payload(P.encodeHeartbeat, P.decodeHeartbeat, {
      uuid,
      membersVersion: int,
      clusterState: opt((rng) => build<P.HeartbeatState>(rng, { state, version: small, change: opt(str) })),
    }),
    effect: 'harmless',
  },
  PartitionTable: { request: TABLE_PAYLOAD, effect: 'command' },
  Operation: {
    request: payload(
      P.encodeOperation,
      P.decodeOperation,
      { service, type: str, partitionId: pid, args: dataArgs, invocationId: opt((rng) => rng.int(1 << 20), 0.5) },
      withOperationType,
    ),
    effect: 'data',
  },
  OperationGroup: {
    request: {
      valid: (rng: Rng): WireValue => {
        const svc = service(rng);
        const types = OPERATION_TYPES.get(svc) ?? [str(rng)];
        const items = Array.from({ length: rng.size(4) }, () => ({ partitionId: pid(rng), type: rng.pick(types), args: dataArgs(rng) }));
        return P.encodeOperationGroup({ service: svc, items });
      },
      decode: P.decodeOperationGroup,
    } satisfies PayloadSpec,
    effect: 'data',
  },
  Backup: {
    request: payload(
      P.encodeBackup,
      P.decodeBackup,
      {
        service,
        type: str,
        partitionId: pid,
        args: dataArgs,
        // The sender's table version; a newer one than the receiver's now and then.
        tableVersion: opt((rng) => (rng.chance(0.8) ? rng.int(100) : 0x7fffffff), 0.1),
        replica: opt((rng) => ({ index: rng.range(-1, 3), version: small(rng) })),
      },
      withOperationType,
    ),
    effect: 'data',
  },
  // Partition-scoped commands act only on a partition that exists (the receiver refuses others).
  Migrate: {
    request: payload(P.encodeMigrate, P.decodeMigrate, { partitionId: pid, replicas: list(uuid, 3), previousReplicas: list(uuid, 3) }),
    effect: 'command',
    acts: (v) => inRange(P.decodeMigrate(v).partitionId),
  },
  // The receiver replaces the partition's data with the copy (an empty one wipes it).
  PartitionData: {
    request: payload(P.encodePartitionData, P.decodePartitionData, { partitionId: pid, replicaIndex: int, data: perService, tableVersion: opt(int, 0.2), versions: opt(list(small, 3)) }),
    effect: 'command',
    acts: (v) => inRange(P.decodePartitionData(v).partitionId),
  },
  // A state change from an older sender (no member list version) is taken too: the decoder says so.
  StatePrepare: { request: payload(P.encodeStatePrepare, P.decodeStatePrepare, { txId: str, state, membersVersion: opt(int) }), effect: 'command' },
  StateCommit: { request: payload(P.encodeStateCommit, P.decodeStateCommit, { txId: str, state, membersVersion: opt(int), stateVersion: opt(small) }), effect: 'command' },
  StateRollback: { request: payload(P.encodeStateRollback, P.decodeStateRollback, { txId: str }), effect: 'harmless' },
  ChangeState: { request: payload(P.encodeChangeState, P.decodeChangeState, { state }), effect: 'command' },
  LeaveRequest: { request: payload(P.encodeLeave, P.decodeLeave, { uuid }), effect: 'command', acts: namesMember },
  ClusterShutdown: { request: EMPTY, effect: 'always' },
  FetchState: { request: EMPTY, answer: payload(P.encodeFetchStateAnswer, P.decodeFetchStateAnswer, MEMBERS), effect: 'harmless' },
  PollCancel: { request: payload(P.encodePollCancel, P.decodePollCancel, { callerUuid: uuid, invocationId: int }), effect: 'harmless' },
  Leave: { request: payload(P.encodeLeave, P.decodeLeave, { uuid }), effect: 'command', acts: namesMember },
  FetchTable: { request: EMPTY, answer: TABLE_PAYLOAD, effect: 'harmless' },
  // MigrateEnd lets the partition take writes again: only its migration's master may say so.
  MigrateEnd: { request: payload(P.encodeMigrateEnd, P.decodeMigrateEnd, { partitionId: pid }), effect: 'command', acts: (v) => inRange(P.decodeMigrateEnd(v).partitionId) },
  // Anti-entropy: an owner's backup counters (the receiver asks the sender for copies), a
  // backup's request for copies (the receiver sends partition data), a copy (the receiver
  // replaces its backup). Who may speak for a partition is a rule of the receiver's table
  // (member-rules.ts admitPartitionWrite, test/unit and test/cluster/anti-entropy.test.ts):
  // authority, so commands, like PartitionData. Their wrong shapes are fuzzed.
  ReplicaVersions: {
    request: payload(P.encodeReplicaVersions, P.decodeReplicaVersions, {
      tableVersion: int,
      entries: list((rng) => build<P.ReplicaVersionEntry>(rng, { partitionId: pid, replicaIndex: (r) => r.range(-1, 3), version: small }), 4),
    }),
    effect: 'command',
  },
  ReplicaSyncRequest: { request: payload(P.encodeReplicaSyncRequest, P.decodeReplicaSyncRequest, { tableVersion: int, partitionIds: list(pid, 4) }), effect: 'command' },
  ReplicaSyncData: {
    request: payload(P.encodeReplicaSyncData, P.decodeReplicaSyncData, { partitionId: pid, replicaIndex: (rng) => rng.range(-1, 3), data: perService, versions: list(small, 3), tableVersion: int }),
    effect: 'command',
    acts: (v) => inRange(P.decodeReplicaSyncData(v).partitionId),
  },
  // MergeTo makes the receiver leave its cluster and join the one at the target address. The
  // gate (member-rules.ts: master only) refuses it from anyone but the master, and a fuzz
  // connection is never the master; still a command here, as every message whose effect is
  // decided by who sent it: the fuzz tests decoding, and must not start testing the gate (or
  // breaking the cluster under test) if that rule ever changes. test/cluster tests the rule.
  MergeTo: { request: payload(P.encodeMergeTo, P.decodeMergeTo, { target: address }), effect: 'command' },
  // Answered by the connection layer whatever its payload: it only shows the connection delivers.
  Ping: { request: EMPTY, effect: 'harmless' },
  // WAN messages of another cluster: they come on a WAN connection (its first frame a WanAuth
  // instead of an Auth). On a member connection after Auth they are refused (the gate lets
  // only members send them, and past it no member handler takes them: "unknown member
  // message"), so harmless there. On a WAN connection a batch stores its events in the maps
  // it names (data: names the fuzz picks) and a Merkle request reads a tree level.
  WanAuth: { request: WAN_AUTH_PAYLOAD, answer: payload(W.encodeWanAuthAnswer, W.decodeWanAuthAnswer, { clusterName, uuid, partitionHash: opt((rng) => (rng.chance(0.8) ? PARTITION_HASH_VERSION : int(rng)), 0.3) }), effect: 'harmless' },
  WanBatch: { request: WAN_BATCH_PAYLOAD, effect: 'harmless', wan: 'data' },
  WanMerkle: {
    request: WAN_MERKLE_PAYLOAD,
    answer: payload(W.encodeWanMerkleAnswer, W.decodeWanMerkleAnswer, {
      level: small,
      hashes: (rng) => Int32Array.from({ length: rng.size(64) }, () => rng.int(0x10000) * 0x10000 + rng.int(0x10000) - 0x80000000),
    }),
    effect: 'harmless',
    wan: 'harmless',
  },
  // WAN inside a cluster. A sync start begins work on every partition the receiver owns (it
  // reads the maps and sends their entries to the target cluster); an added config makes the
  // receiver publish to the endpoints it names: commands. A status or the list of added
  // configs is read-only.
  WanSyncStart: {
    request: payload(W.encodeWanSyncStart, W.decodeWanSyncStart, {
      uuid,
      kind: (rng) => rng.pick(['sync', 'check'] as const),
      wanRepName: str,
      publisherId: str,
      mapNames: opt(list(mapName, 3)),
      creationTime: time,
      participants: list(uuid, 3),
    }),
    effect: 'command',
  },
  WanSyncStatus: {
    request: WAN_INLINE.syncStatus,
    answer: { valid: (rng) => W.encodeWanJobPart(rng.chance(0.2) ? undefined : build(rng, WAN_JOB_PART)), decode: W.decodeWanJobPart },
    effect: 'harmless',
  },
  WanAddConfig: {
    request: WAN_INLINE.addConfig,
    answer: payload(W.encodeWanAddAnswer, W.decodeWanAddAnswer, { added: list(str, 3), ignored: list(str, 3) }),
    effect: 'command',
  },
  WanConfigs: { request: WAN_INLINE.configs, answer: WAN_INLINE.configsAnswer, effect: 'harmless' },
  // The target acknowledged events up to a sequence: the receiver forgets its backup copies of
  // them, for the publisher the payload names (none exists on the fuzz cluster, nor can the
  // fuzz add one: WanAddConfig is a command). Drops nothing the cluster depends on.
  WanBackupAck: {
    request: payload(W.encodeWanBackupAck, W.decodeWanBackupAck, {
      wanRepName: str,
      publisherId: str,
      acks: list((rng) => [pid(rng), rng.chance(0.8) ? small(rng) : randomNumber(rng)] as const, 4),
    }),
    effect: 'harmless',
  },
  WanPing: {
    request: payload(W.encodeWanPing, W.decodeWanPing, { heartbeatTimeoutMs: small }),
    effect: 'harmless',
    wan: 'harmless',
  },
  // partialStart / forceStart / backup act on a member with persistence (forceStart drops data): a command.
  PersistenceCommand: {
    request: payload(P.encodePersistenceCommand, P.decodePersistenceCommand, {
      command: (rng) => rng.pick(P.PERSISTENCE_COMMANDS),
      sequence: int,
    }),
    answer: payload(P.encodePersistenceCommandAnswer, P.decodePersistenceCommandAnswer, { accepted: (rng) => rng.chance(0.5), message: str }),
    effect: 'command',
  },
  // Read-only: a member's persisted table (none on the fuzz cluster).
  RecoveryState: {
    request: payload(P.encodeRecoveryState, P.decodeRecoveryState, { withRows: (rng) => rng.chance(0.5) }),
    answer: payload(P.encodeRecoveryStateAnswer, P.decodeRecoveryStateAnswer, { version: int, hash: str, table: opt((rng) => build(rng, TABLE), 0.5) }),
    effect: 'harmless',
  },
  // Makes a restarting member drop its persisted data when the table comes: a command (master only).
  RecoveryDrop: { request: EMPTY, effect: 'command' },
  // CP (cp-payloads.ts; the fuzz cluster runs without CP, whose handlers are then not registered).
  CpRaft: { request: CP.raft, effect: 'harmless' },
  CpInvoke: { request: CP.invoke, answer: CP.invokeAnswer, effect: 'harmless' },
  CpView: { request: CP.view, effect: 'harmless' },
  CpFetchView: { request: EMPTY, answer: CP.fetchViewAnswer, effect: 'harmless' },
  CpDiscover: { request: EMPTY, answer: CP.discoverAnswer, effect: 'harmless' },
  CpBootstrap: { request: CP.bootstrap, effect: 'command' },
  CpReset: { request: CP.reset, effect: 'command' },
  // Change events (event-payloads.ts): an interest makes the receiver send events of the named
  // maps to the sender; a batch reaches subscribers of those maps only (the fuzz cluster has none).
  EventInterest: { request: payload(E.encodeEventInterest, E.decodeEventInterest, { version: small, maps: list(mapName, 3) }), effect: 'harmless' },
  MapEvents: { request: { valid: (rng: Rng): WireValue => E.encodeMapEvents(Array.from({ length: rng.size(4) }, () => mapEvent(rng))), decode: E.decodeMapEvents } satisfies PayloadSpec, effect: 'harmless' },
  // The same for queues (queue-event-payloads.ts): the fuzz cluster has no queue subscribers either.
  QueueEventInterest: { request: payload(E.encodeEventInterest, E.decodeEventInterest, { version: small, maps: list(mapName, 3) }), effect: 'harmless' },
  QueueEvents: { request: { valid: (rng: Rng): WireValue => QE.encodeQueueEvents(Array.from({ length: rng.size(4) }, () => queueEvent(rng))), decode: QE.decodeQueueEvents } satisfies PayloadSpec, effect: 'harmless' },
  // Read-only: the member answers its own figures.
  MemberReport: {
    request: payload(MR.encodeMemberReportRequest, MR.decodeMemberReportRequest, { kind: (rng) => rng.pick(MR.MEMBER_REPORT_KINDS), seconds: small }),
    answer: payload(MR.encodeMemberReportAnswer, MR.decodeMemberReportAnswer, { uuid: str, json: str }),
    effect: 'harmless',
  },
};

export const ALL_MESSAGES: readonly MessageSpec[] = (Object.keys(SPECS) as (keyof typeof Msg)[]).map((name) => ({ type: Msg[name], name, ...SPECS[name] }));

const BY_TYPE = new Map(ALL_MESSAGES.map((m) => [m.type, m]));
const SPECS_BY_NAME = Object.fromEntries(ALL_MESSAGES.map((m) => [m.name, m])) as Readonly<Record<keyof typeof Msg, MessageSpec>>;
const AUTH = SPECS.Auth.request;
const WAN_AUTH = SPECS.WanAuth.request;

/** What the generators need to know about the target. */
export interface MemberFuzzContext {
  readonly clusterName: string;
  /** uuids of the real members (never named in a Leave). */
  readonly memberUuids: readonly string[];
  /** Strings that must not appear anywhere in a case (the canary's map name). */
  readonly forbidden: readonly string[];
}

// ---------------------------------------------------------------- valid and wrong payloads

/** A well-formed payload of `spec`'s request (for harmless and data messages, and as a base to mutate). */
export function validPayload(rng: Rng, spec: MessageSpec): WireValue {
  return spec.request.valid(rng);
}

/** Whether the receiver's decoder takes `v`. Anything but a BAD_REQUEST GridError from a decoder is a bug, thrown. */
export function decodes(p: PayloadSpec, v: WireValue): boolean {
  try {
    p.decode(v);
    return true;
  } catch (e) {
    if (e instanceof GridError && e.code === 'BAD_REQUEST') return false;
    throw new Error(`a payload decoder threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)} (not a BAD_REQUEST GridError)`, { cause: e });
  }
}

type Kind = 'null' | 'boolean' | 'number' | 'string' | 'latin1' | 'bytes' | 'array' | 'object';

function kindOf(v: WireValue): Kind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Latin1) return 'latin1';
  if (v instanceof Uint8Array) return 'bytes';
  return typeof v as Kind;
}

/** A value of another kind than `v` (a number for a string, an array for a number, …). */
function otherKind(rng: Rng, v: WireValue): WireValue {
  const kind = kindOf(v);
  for (let i = 0; i < 20; i++) {
    const x = rng.chance(0.2) ? deepValue(rng, rng.pick([1, 3, 20, 50])) : randomValue(rng, 2);
    if (kindOf(x) !== kind) return x;
  }
  return kind === 'string' ? 1 : 'wrong';
}

/** A wrong value in place of `v`: another kind, or for a number or string another value of its kind. */
function wrongFor(rng: Rng, v: WireValue): WireValue {
  if (typeof v === 'number' && rng.chance(0.3)) return rng.pick([1.5, -0.5, NaN, Infinity, 2 ** 53 + 2]);
  if (typeof v === 'string' && rng.chance(0.3)) return rng.chance(0.5) ? randomString(rng) : v.toLowerCase();
  return otherKind(rng, v);
}

/** `t` with one item replaced, inserted or removed, at any depth of its arrays. */
function changeOne(rng: Rng, t: readonly WireValue[]): WireValue[] {
  const out = [...t];
  const i = rng.int(out.length + 1);
  const item = out[i];
  if (item === undefined || rng.chance(0.1)) {
    out.splice(i, 0, otherKind(rng, out[0] ?? null)); // an item inserted (or appended past the end)
    return out;
  }
  if (Array.isArray(item) && item.length > 0 && rng.chance(0.6)) out[i] = changeOne(rng, item as readonly WireValue[]);
  else out[i] = wrongFor(rng, item);
  return out;
}

/** A structural mutation of a valid payload; it may still decode (an optional field dropped, an item the decoder ignores). */
export function mutatePayload(rng: Rng, valid: WireValue): WireValue {
  if (!Array.isArray(valid) || rng.chance(0.15)) return otherKind(rng, valid);
  const t = valid as readonly WireValue[];
  if (t.length === 0) return rng.chance(0.5) ? otherKind(rng, valid) : [randomValue(rng, 1)];
  switch (rng.int(4)) {
    case 0:
      return t.slice(0, rng.int(t.length));
    case 1:
      return t.map((x) => otherKind(rng, x)); // every item of another kind
    default:
      return changeOne(rng, t);
  }
}

/** A payload the decoder of `p` refuses: a mutation of a valid one, checked against the decoder. */
export function wrongPayload(rng: Rng, p: PayloadSpec): WireValue {
  for (let attempt = 0; attempt < 20; attempt++) {
    const v = mutatePayload(rng, p.valid(rng));
    if (!decodes(p, v)) return v;
  }
  return otherKind(rng, []); // not an array: every decoder refuses it
}

// ---------------------------------------------------------------- frames and streams

export function frame(kind: number, type: number, callId: number, payload: WireValue): Buffer {
  return encodeFrame(kind, type, kind === FrameKind.OneWay ? 0 : callId, payload);
}

/** A frame header with any fields (bad kinds, lengths that lie) and raw payload bytes. */
export function rawFrame(length: number, kind: number, type: number, callId: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(11);
  head.writeUInt32BE(length >>> 0, 0);
  head.writeUInt8(kind & 0xff, 4);
  head.writeUInt16BE(type & 0xffff, 5);
  head.writeUInt32BE(callId >>> 0, 7);
  return Buffer.concat([head, payload]);
}

const PREAMBLE = Buffer.from(MEMBER_PREAMBLE);

/** `levels` arrays (or objects) of one item each, around a null: the bytes of a too-deep value. */
export function nestedBytes(levels: number, objects: boolean): Buffer {
  const one = objects ? Buffer.from([0x09, 0, 0, 0, 1, 0, 0, 0, 1, 0x6b]) : Buffer.from([0x08, 0, 0, 0, 1]);
  return Buffer.concat([...Array.from({ length: levels }, () => one), Buffer.of(0x00)]);
}

/** A valid Auth request (security off: no credentials). */
export function authPayload(ctx: MemberFuzzContext, uuid: string): WireValue {
  return P.encodeAuth({ clusterName: ctx.clusterName, uuid, address: '127.0.0.1:1', version: '0.1.0', partitionHash: PARTITION_HASH_VERSION });
}

/** Preamble + a valid Auth request (what a post-auth case starts with). */
export function authPrefix(ctx: MemberFuzzContext, rng: Rng): Buffer {
  return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1, authPayload(ctx, fakeUuid(rng)))]);
}

/** A valid WanAuth request: a publisher of another cluster (security off: no credentials). */
export function wanAuthPayload(ctx: MemberFuzzContext, uuid: string): WireValue {
  return W.encodeWanAuth({ sourceCluster: 'fz-source', targetCluster: ctx.clusterName, uuid, address: '127.0.0.1:1', username: undefined, password: undefined, version: '0.1.0' });
}

/** Preamble + a valid WanAuth request (what a WAN case starts with). */
export function wanAuthPrefix(ctx: MemberFuzzContext, rng: Rng): Buffer {
  return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.WanAuth, 1, wanAuthPayload(ctx, fakeUuid(rng)))]);
}

/** One frame on a WAN connection: mostly batches and Merkle requests, valid, wrong or mutated; now and then anything. */
export function fuzzWanFrame(rng: Rng, ctx: MemberFuzzContext): Buffer {
  const spec = rng.chance(0.7) ? SPECS_BY_NAME.WanBatch : SPECS_BY_NAME.WanMerkle;
  const callId = 2 + rng.int(1000);
  switch (rng.int(8)) {
    case 0:
    case 1:
    case 2:
      return frame(FrameKind.Request, spec.type, callId, validPayload(rng, spec));
    case 3:
    case 4:
      return frame(FrameKind.Request, spec.type, callId, wrongPayload(rng, spec.request));
    case 5:
      return mutateMany(rng, frame(FrameKind.Request, spec.type, callId, validPayload(rng, spec)), 1 + rng.int(3));
    case 6: // a WAN request of another kind, or a second WanAuth (both close the connection)
      return rng.chance(0.5) ? frame(rng.pick([FrameKind.OneWay, FrameKind.Response]), spec.type, callId, validPayload(rng, spec)) : frame(FrameKind.Request, Msg.WanAuth, callId, wanAuthPayload(ctx, fakeUuid(rng)));
    default:
      return fuzzFrame(rng, ctx);
  }
}

function anyType(rng: Rng): number {
  return rng.weighted<number>([
    [20, rng.pick(ALL_MESSAGES).type],
    [1, 0],
    [1, 22 + rng.int(10)],
    [1, rng.int(0x10000)],
  ]);
}

function anyKind(rng: Rng): number {
  return rng.weighted<number>([
    [6, FrameKind.Request],
    [3, FrameKind.OneWay],
    [1, FrameKind.Response],
    [1, FrameKind.ErrorResponse],
  ]);
}

/** One frame of a post-auth body (or of a pre-auth stream after its Auth). */
export function fuzzFrame(rng: Rng, _ctx: MemberFuzzContext): Buffer {
  const spec = rng.pick(ALL_MESSAGES);
  const callId = 2 + rng.int(1000);
  switch (rng.int(10)) {
    case 0:
    case 1:
    case 2: // wrong-shaped payload for a known message
      return frame(rng.chance(0.75) ? FrameKind.Request : FrameKind.OneWay, spec.type, callId, wrongPayload(rng, spec.request));
    case 3: // well-formed payload (filtered by the policy)
      return frame(rng.chance(0.75) ? FrameKind.Request : FrameKind.OneWay, spec.type, callId, validPayload(rng, spec));
    case 4: // any value for any type, any kind
      return frame(anyKind(rng), anyType(rng), callId, randomValue(rng, 3));
    case 5: {
      // a valid frame, mutated
      const base = frame(FrameKind.Request, spec.type, callId, rng.chance(0.5) ? validPayload(rng, spec) : wrongPayload(rng, spec.request));
      return mutateMany(rng, base, 1 + rng.int(3));
    }
    case 6: {
      // header fields at their edges, payload bytes random
      const payload = rng.chance(0.5) ? rng.bytes(rng.size(40)) : Buffer.of(rng.int(12));
      const honest = 7 + payload.length;
      const length = rng.weighted<number>([
        [4, honest],
        [1, rng.pick(INTERESTING_U32)],
        [1, honest + rng.range(-8, 8)],
      ]);
      return rawFrame(length, rng.chance(0.8) ? anyKind(rng) : rng.int(256), anyType(rng), rng.pick([0, 1, callId, 0xffffffff]), payload);
    }
    case 7: {
      // deep or wide values, written by hand past the encoder's own depth limit
      if (rng.chance(0.5)) {
        const payload = nestedBytes(rng.pick([62, 63, 64, 65, 200, 10_000]), rng.chance(0.5));
        return rawFrame(7 + payload.length, FrameKind.Request, spec.type, callId, payload);
      }
      const v = rng.chance(0.3) ? deepValue(rng, rng.pick([30, 62])) : Array.from({ length: rng.size(3000) }, () => null);
      return frame(FrameKind.Request, spec.type, callId, rng.chance(0.5) ? [v] : v);
    }
    case 8: {
      // a value whose length or count lies
      const body = Buffer.from(frame(FrameKind.Request, spec.type, callId, validPayload(rng, spec)));
      if (body.length >= 16) body.writeUInt32BE(rng.pick(INTERESTING_U32), 12 + rng.int(Math.max(1, body.length - 15)));
      return body;
    }
    default: // a response nobody asked for
      return frame(rng.chance(0.5) ? FrameKind.Response : FrameKind.ErrorResponse, 0, rng.pick([0, 1, callId, 0x7fffffff]), randomValue(rng, 2));
  }
}

export interface MemberCase {
  readonly index: number;
  readonly seed: number;
  /** Which member of the cluster receives it. */
  readonly target: number;
  readonly phase: 'pre-auth' | 'post-auth';
  readonly label: string;
  readonly bytes: Buffer;
  readonly chunks: readonly Buffer[];
}

type Gen = (rng: Rng, ctx: MemberFuzzContext) => Buffer;

const PRE_AUTH: readonly (readonly [number, string, Gen])[] = [
  [2, 'random bytes', (rng) => Buffer.concat([Buffer.of(0), rng.bytes(rng.size(200))])],
  [
    2,
    'bad preamble',
    (rng) => {
      const p = Buffer.from(PREAMBLE);
      if (rng.chance(0.5)) p[4] = rng.pick([0, MEMBER_PROTOCOL_VERSION + 1, 0xff]);
      else p[1 + rng.int(3)] = rng.int(256);
      const rest = rng.chance(0.5) ? frame(FrameKind.Request, Msg.Auth, 1, P.encodeAuth({ clusterName: 'dev', uuid: 'u', address: 'a', version: '0.1.0' })) : Buffer.alloc(0);
      return Buffer.concat([rng.chance(0.3) ? p.subarray(0, 1 + rng.int(4)) : p, rest]);
    },
  ],
  [6, 'malformed Auth', (rng, ctx) => Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1 + rng.int(5), wrongAuth(rng, ctx))])],
  [
    2,
    'refused Auth',
    (rng, ctx) => {
      const clusterName = rng.chance(0.5) ? randomString(rng) : `${ctx.clusterName}x`;
      const credentials = rng.chance(0.3) ? { username: randomString(rng), password: randomString(rng) } : {};
      const auth = P.encodeAuth({ clusterName, uuid: fakeUuid(rng), address: '127.0.0.1:1', version: '0.1.0', partitionHash: PARTITION_HASH_VERSION, ...credentials });
      return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1, auth), rng.chance(0.5) ? fuzzFrame(rng, ctx) : Buffer.alloc(0)]);
    },
  ],
  [3, 'frame before Auth', (rng, ctx) => Buffer.concat([PREAMBLE, fuzzFrame(rng, ctx)])],
  [
    2,
    'Auth of another kind',
    (rng, ctx) => Buffer.concat([PREAMBLE, frame(rng.pick([FrameKind.OneWay, FrameKind.Response, FrameKind.ErrorResponse]), Msg.Auth, 1, authPayload(ctx, fakeUuid(rng)))]),
  ],
  [
    2,
    'oversize before Auth',
    (rng) => {
      const len = rng.pick([64 * 1024, 64 * 1024 + 1, 1 << 20, 0xffffffff]);
      return Buffer.concat([PREAMBLE, rawFrame(len, FrameKind.Request, Msg.Auth, 1, rng.bytes(rng.size(2000)))]);
    },
  ],
  [
    4,
    'WAN connection',
    (rng, ctx) => Buffer.concat([wanAuthPrefix(ctx, rng), ...Array.from({ length: 1 + rng.int(4) }, () => fuzzWanFrame(rng, ctx))]),
  ],
  [
    2,
    'malformed WanAuth',
    (rng, ctx) => {
      const w = rng.chance(0.5) ? wrongPayload(rng, WAN_AUTH) : changeOne(rng, wanAuthPayload(ctx, fakeUuid(rng)) as WireValue[]);
      return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.WanAuth, 1 + rng.int(5), w), rng.chance(0.5) ? fuzzWanFrame(rng, ctx) : Buffer.alloc(0)]);
    },
  ],
  [
    1,
    'refused WanAuth',
    (rng, ctx) => {
      const t = wanAuthPayload(ctx, fakeUuid(rng)) as WireValue[];
      // Another target, or this cluster as the source.
      if (rng.chance(0.5)) t[1] = rng.chance(0.5) ? `${ctx.clusterName}x` : randomString(rng);
      else t[0] = ctx.clusterName;
      return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.WanAuth, 1, t), rng.chance(0.7) ? fuzzWanFrame(rng, ctx) : Buffer.alloc(0)]);
    },
  ],
  [
    2,
    'mutated WAN handshake',
    (rng, ctx) => {
      const valid = Buffer.concat([wanAuthPrefix(ctx, rng), frame(FrameKind.Request, Msg.WanBatch, 2, validPayload(rng, SPECS_BY_NAME.WanBatch))]);
      return mutateMany(rng, valid, 1 + rng.int(4), [valid]);
    },
  ],
  [
    4,
    'mutated handshake',
    (rng, ctx) => {
      const valid = Buffer.concat([authPrefix(ctx, rng), frame(FrameKind.OneWay, Msg.Heartbeat, 0, P.encodeHeartbeat({ uuid: fakeUuid(rng), membersVersion: 1 }))]);
      return mutateMany(rng, valid, 1 + rng.int(4), [valid]);
    },
  ],
];

const POST_AUTH: readonly (readonly [number, string, Gen])[] = [
  [10, 'one frame', (rng, ctx) => fuzzFrame(rng, ctx)],
  [
    4,
    'several frames',
    (rng, ctx) => Buffer.concat(Array.from({ length: 2 + rng.int(4) }, () => fuzzFrame(rng, ctx))),
  ],
  [
    2,
    'truncated frame',
    (rng, ctx) => {
      const f = fuzzFrame(rng, ctx);
      return f.subarray(0, rng.int(f.length));
    },
  ],
  [1, 'random bytes', (rng) => rng.bytes(rng.size(300))],
  [
    1,
    'second Auth',
    (rng, ctx) => frame(FrameKind.Request, Msg.Auth, 2, rng.chance(0.5) ? wrongAuth(rng, ctx) : authPayload(ctx, fakeUuid(rng))),
  ],
];

/** Not a string and not null: what a username or a password must not be. */
function notOptStr(rng: Rng): WireValue {
  const v = otherKind(rng, 'x');
  return v === null ? 0 : v;
}

function wrongAuth(rng: Rng, ctx: MemberFuzzContext): WireValue {
  const t = authPayload(ctx, fakeUuid(rng)) as WireValue[];
  switch (rng.int(4)) {
    case 0: // username or password not a string (or both): issue 7's crash
      if (rng.chance(0.7)) t[3] = notOptStr(rng);
      if (rng.chance(0.7) || typeof t[3] === 'string' || t[3] === null) t[4] = notOptStr(rng);
      return t;
    case 1:
      return wrongPayload(rng, AUTH);
    case 2: {
      // the cluster name right, something else wrong (or left off)
      for (let attempt = 0; attempt < 20; attempt++) {
        const i = 1 + rng.int(t.length - 1);
        const w = [...t];
        w[i] = wrongFor(rng, t[i] ?? null);
        const v = rng.chance(0.2) ? w.slice(0, i) : w;
        if (!decodes(AUTH, v)) return v;
      }
      return t.slice(0, 1 + rng.int(2));
    }
    default:
      return randomValue(rng, 3);
  }
}

/** Generates case `index` (deterministic in `seed`). */
export function memberCase(seed: number, index: number, ctx: MemberFuzzContext, targets: number): MemberCase {
  const rng = new Rng(seed);
  const target = rng.int(targets);
  for (let attempt = 0; ; attempt++) {
    const post = rng.chance(0.55);
    const table = post ? POST_AUTH : PRE_AUTH;
    const [, label, gen] = rng.weighted(table.map((g) => [g[0], g] as const));
    let bytes = gen(rng, ctx);
    if (post) bytes = Buffer.concat([authPrefix(ctx, rng), bytes]);
    const verdict = checkStream(bytes, ctx);
    if (verdict === undefined || attempt >= 50) {
      if (verdict !== undefined) throw new Error(`member case ${index}: no safe input in 50 attempts (${verdict})`);
      return { index, seed, target, phase: post ? 'post-auth' : 'pre-auth', label, bytes, chunks: chunkBytes(rng, bytes) };
    }
  }
}

// ---------------------------------------------------------------- the policy

/**
 * Replays `bytes` as the receiving member would cut them into frames, and says why the
 * stream is not to be sent (a well-formed command after a successful Auth, or a forbidden
 * name), or undefined when it may be sent.
 */
export function checkStream(bytes: Buffer, ctx: MemberFuzzContext, opts: { inbound: boolean } = { inbound: true }): string | undefined {
  if (ctx.forbidden.some((s) => bytes.includes(s))) return 'names the canary';
  // An outbound connection (the member dialled us) has no preamble and its peer counts as
  // authenticated. No pre-auth size limit here: what the member may decode is checked.
  const reader = new FrameReader({ expectPreamble: opts.inbound });
  let frames: Frame[];
  // Before Auth; a member connection after an accepted Auth; a WAN connection after an accepted WanAuth.
  let mode: 'pre-auth' | 'member' | 'wan' = opts.inbound ? 'pre-auth' : 'member';
  try {
    frames = reader.push(bytes);
  } catch {
    // Cut at the bad frame: what came before it still counts; find it frame by frame.
    frames = framesBeforeError(bytes, opts.inbound);
  }
  for (const f of frames) {
    if (mode === 'pre-auth') {
      if (f.kind !== FrameKind.Request) return undefined; // the member closes here
      // A refused handshake ends the connection, but frames already read in the same chunk
      // are still handled (another Auth among them): keep reading, as the member might.
      if (f.type === Msg.Auth) mode = authAccepted(f.payload, ctx) ? 'member' : mode;
      else if (f.type === Msg.WanAuth) mode = wanAuthAccepted(f.payload, ctx) ? 'wan' : mode;
      else return undefined; // the member closes here
      continue;
    }
    if (f.kind === FrameKind.Response || f.kind === FrameKind.ErrorResponse) continue;
    if (mode === 'wan') {
      // A WAN connection takes WAN requests only; anything else closes it.
      const spec = BY_TYPE.get(f.type);
      if (spec?.wan === undefined || f.kind !== FrameKind.Request) return undefined;
      if (spec.wan === 'always') return `${spec.name} on a WAN connection (acted on whatever its payload)`;
      if (spec.wan === 'command' && decodes(spec.request, f.payload)) return `well-formed ${spec.name} on a WAN connection`;
    } else {
      const why = commandIn(f, ctx);
      if (why !== undefined) return why;
    }
    if (mentions(f.payload, ctx.forbidden)) return 'names the canary';
  }
  return undefined;
}

function framesBeforeError(bytes: Buffer, preamble: boolean): Frame[] {
  const reader = new FrameReader({ expectPreamble: preamble });
  const out: Frame[] = [];
  for (let i = 0; i < bytes.length; i++) {
    try {
      out.push(...reader.push(bytes.subarray(i, i + 1)));
    } catch {
      break;
    }
  }
  return out;
}

/**
 * Whether the member may take this Auth: its decoder takes it and the cluster name is right
 * (security off). It may still refuse a bad uuid or address: erring this way only keeps more
 * cases from being sent, never lets a command through.
 */
function authAccepted(payload: WireValue, ctx: MemberFuzzContext): boolean {
  return decodes(AUTH, payload) && P.decodeAuth(payload).clusterName === ctx.clusterName;
}

/**
 * Whether the member may take this WanAuth (another cluster's publisher): its decoder takes it,
 * it targets this cluster and comes from another one (security off). Errs like authAccepted.
 */
function wanAuthAccepted(payload: WireValue, ctx: MemberFuzzContext): boolean {
  if (!decodes(WAN_AUTH, payload)) return false;
  const hello = W.decodeWanAuth(payload);
  return hello.targetCluster === ctx.clusterName && hello.sourceCluster !== ctx.clusterName;
}

function commandIn(f: Frame, ctx: MemberFuzzContext): string | undefined {
  const spec = BY_TYPE.get(f.type);
  if (spec === undefined) return undefined;
  if (spec.effect === 'always') return `${spec.name} (acted on whatever its payload)`;
  if (spec.effect !== 'command' || !decodes(spec.request, f.payload)) return undefined;
  if (spec.acts !== undefined && !spec.acts(f.payload, ctx)) return undefined;
  return `well-formed ${spec.name}`;
}

function mentions(v: WireValue, needles: readonly string[]): boolean {
  if (needles.length === 0) return false;
  if (typeof v === 'string') return needles.some((n) => v.includes(n));
  if (v instanceof Latin1) return needles.some((n) => v.s.includes(n));
  if (Array.isArray(v)) return (v as readonly WireValue[]).some((x) => mentions(x, needles));
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
    return Object.entries(v).some(([k, x]) => needles.some((n) => k.includes(n)) || mentions(x, needles));
  }
  return false;
}

// ---------------------------------------------------------------- answers (the dialling side)

/**
 * What a fake peer sends back for a request frame of the member that dialled it: a wrong
 * answer of the right call id, an error answer of any shape, garbage, or a valid answer
 * (only for Auth and a not-joined Discover, so the dialler goes on to its next request).
 */
export function fuzzAnswer(rng: Rng, request: Frame, ctx: MemberFuzzContext, masters: readonly string[] = []): { bytes: Buffer; close: boolean; label: string } {
  for (let attempt = 0; attempt < 50; attempt++) {
    const a = answerOnce(rng, request, ctx, masters);
    if (checkStream(a.bytes, ctx, { inbound: false }) === undefined) return a;
  }
  return { bytes: Buffer.alloc(0), close: true, label: 'close' };
}

function answerOnce(rng: Rng, request: Frame, ctx: MemberFuzzContext, masters: readonly string[]): { bytes: Buffer; close: boolean; label: string } {
  const spec = BY_TYPE.get(request.type);
  const id = request.callId;
  const pick = rng.int(10);
  if (pick <= 2 && spec?.type === Msg.Auth) {
    return { bytes: frame(FrameKind.Response, 0, id, P.encodeAuthAnswer({ uuid: fakeUuid(rng), address: '127.0.0.1:1' })), close: false, label: 'valid Auth answer' };
  }
  if (pick <= 2 && spec?.type === Msg.Discover) {
    // Not joined, from an address lower than the dialler's: it waits and asks again.
    if (pick <= 1 || masters.length === 0) {
      return { bytes: frame(FrameKind.Response, 0, id, P.encodeDiscoverAnswer({ uuid: fakeUuid(rng), address: '127.0.0.1:1', joined: false })), close: false, label: 'valid Discover answer (waiting)' };
    }
    // Joined, with a fake master: the dialler sends that master a Join.
    const answer = P.encodeDiscoverAnswer({ uuid: fakeUuid(rng), address: rng.pick(masters), joined: true, masterAddress: rng.pick(masters) });
    return { bytes: frame(FrameKind.Response, 0, id, answer), close: false, label: 'valid Discover answer (joined)' };
  }
  if (pick <= 1 && spec?.type === Msg.Join) {
    const members = Array.from({ length: 1 + rng.int(3) }, () => member(rng));
    const answer = P.encodeJoinAnswer({ members: { version: rng.int(10), members, state: state(rng) } });
    return { bytes: frame(FrameKind.Response, 0, id, answer), close: false, label: 'valid Join answer with a made-up member list' };
  }
  switch (pick) {
    case 2:
    case 3:
    case 4:
      return { bytes: frame(FrameKind.Response, 0, id, spec?.answer ? wrongPayload(rng, spec.answer) : randomValue(rng, 2)), close: rng.chance(0.3), label: `wrong ${spec?.name ?? '?'} answer` };
    case 5:
      return { bytes: frame(FrameKind.ErrorResponse, 0, id, rng.chance(0.5) ? randomValue(rng, 2) : [randomString(rng), randomValue(rng, 1)]), close: rng.chance(0.3), label: 'error answer of any shape' };
    case 6:
      return { bytes: mutateMany(rng, frame(FrameKind.Response, 0, id, P.encodeAuthAnswer({ uuid: fakeUuid(rng), address: '127.0.0.1:1' })), 1 + rng.int(3)), close: rng.chance(0.5), label: 'mutated answer' };
    case 7:
      return { bytes: rng.bytes(rng.size(64)), close: true, label: 'garbage' };
    case 8:
      return { bytes: frame(rng.pick([FrameKind.Request, FrameKind.OneWay]), anyType(rng), rng.chance(0.5) ? id : 0, randomValue(rng, 2)), close: false, label: 'a request instead of an answer' };
    default:
      return { bytes: fuzzFrame(rng, ctx), close: true, label: 'any frame' };
  }
}
