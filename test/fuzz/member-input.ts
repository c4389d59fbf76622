// Member-protocol fuzz input: the shape of every message of the table (messages.ts), valid
// and wrong payloads for each, whole connection streams before and after Auth, and the policy
// that keeps the fuzz on decoding rather than authority (no well-formed cluster command).

import { Latin1, type WireValue } from '../../src/protocol/codec.js';
import { FrameKind, FrameReader, encodeFrame, type Frame } from '../../src/protocol/frame.js';
import { Msg } from '../../src/protocol/messages.js';
import { MEMBER_PREAMBLE, MEMBER_PROTOCOL_VERSION } from '../../src/protocol/preamble.js';
import { INTERESTING_U32, Rng, chunkBytes, deepValue, mutateMany, randomNumber, randomString, randomValue } from './engine.js';

// ---------------------------------------------------------------- shapes

export type Shape =
  | { readonly t: 'str' | 'optStr' | 'int' | 'optInt' | 'num' | 'bool' | 'latin1' | 'any' | 'pid' | 'state' | 'uuid' | 'address' | 'mapOrQueue' }
  | { readonly t: 'arr'; readonly of: Shape }
  | { readonly t: 'obj'; readonly of: Shape }
  | { readonly t: 'tuple'; readonly items: readonly Shape[] };

const leaf = <T extends Shape['t']>(t: T): Shape => ({ t }) as Shape;
const S = {
  str: leaf('str'),
  optStr: leaf('optStr'),
  int: leaf('int'),
  optInt: leaf('optInt'),
  num: leaf('num'),
  bool: leaf('bool'),
  latin1: leaf('latin1'),
  any: leaf('any'),
  /** A partition id, 0..270. */
  pid: leaf('pid'),
  /** A cluster state a member may be told to enter. */
  state: leaf('state'),
  uuid: leaf('uuid'),
  address: leaf('address'),
  /** `map` or `queue` (a service name). */
  service: leaf('mapOrQueue'),
  arr: (of: Shape): Shape => ({ t: 'arr', of }),
  obj: (of: Shape): Shape => ({ t: 'obj', of }),
  tuple: (...items: Shape[]): Shape => ({ t: 'tuple', items }),
};

const PARTITION_COUNT = 271;
const SETTABLE_STATES = ['ACTIVE', 'FROZEN', 'NO_MIGRATION', 'PASSIVE'];

const MEMBER = S.tuple(S.uuid, S.address, S.str, S.int, S.bool, S.str);
const TABLE = S.tuple(S.int, S.arr(S.uuid), S.arr(S.arr(S.optStr)), S.int);

/**
 * What the receiver does with a payload of the message's own shape:
 * - `data`: serves or stores data under names the fuzz picks (never the canary's);
 * - `command`: changes membership, ownership or state: never sent well-formed (authority is
 *   not what this fuzz tests, and a forged command is not a decode bug);
 * - `commandForMembers`: a command only when it names a real member (Leave);
 * - `always`: the receiver acts whatever the payload (ClusterShutdown): never sent.
 */
export type Effect = 'harmless' | 'data' | 'command' | 'commandForMembers' | 'always';

export interface MessageSpec {
  readonly type: number;
  readonly name: string;
  readonly request: Shape;
  /** The shape of the answer (for the dialling side), when the message has one. */
  readonly answer?: Shape;
  readonly effect: Effect;
  /** The shape that makes it a command, when narrower than `request` (the fields the receiver acts on). */
  readonly commandShape?: Shape;
}

export const MESSAGES: readonly MessageSpec[] = [
  { type: Msg.Auth, name: 'Auth', request: S.tuple(S.str, S.uuid, S.address, S.optStr, S.optStr, S.str), answer: S.tuple(S.uuid, S.address), effect: 'harmless' },
  { type: Msg.Discover, name: 'Discover', request: S.tuple(S.uuid, S.address), answer: S.tuple(S.uuid, S.address, S.bool, S.optStr), effect: 'harmless' },
  { type: Msg.Join, name: 'Join', request: S.tuple(MEMBER), answer: S.tuple(S.optStr, S.any, S.optStr), effect: 'command' },
  { type: Msg.Members, name: 'Members', request: S.tuple(S.int, S.arr(MEMBER), S.state), effect: 'command' },
  { type: Msg.Heartbeat, name: 'Heartbeat', request: S.tuple(S.uuid, S.int), effect: 'harmless' },
  { type: Msg.PartitionTable, name: 'PartitionTable', request: TABLE, effect: 'command' },
  { type: Msg.Operation, name: 'Operation', request: S.tuple(S.service, S.str, S.pid, S.arr(S.any), S.optInt), effect: 'data' },
  { type: Msg.Backup, name: 'Backup', request: S.tuple(S.service, S.str, S.pid, S.arr(S.any), S.int), effect: 'data' },
  { type: Msg.Migrate, name: 'Migrate', request: S.tuple(S.pid, S.arr(S.uuid), S.arr(S.uuid)), effect: 'command' },
  // The receiver wipes the partition whatever the rest holds: a valid id alone makes it a command.
  { type: Msg.PartitionData, name: 'PartitionData', request: S.tuple(S.pid, S.int, S.obj(S.any), S.int), effect: 'command', commandShape: S.tuple(S.pid) },
  // [txId, state, membersVersion]; a receiver might take [txId, state] from an older sender: that is a command too.
  { type: Msg.StatePrepare, name: 'StatePrepare', request: S.tuple(S.str, S.state, S.int), effect: 'command', commandShape: S.tuple(S.str, S.state) },
  { type: Msg.StateCommit, name: 'StateCommit', request: S.tuple(S.str, S.state, S.int), effect: 'command', commandShape: S.tuple(S.str, S.state) },
  { type: Msg.StateRollback, name: 'StateRollback', request: S.tuple(S.str), effect: 'harmless' },
  { type: Msg.ChangeState, name: 'ChangeState', request: S.tuple(S.state), effect: 'command' },
  { type: Msg.LeaveRequest, name: 'LeaveRequest', request: S.tuple(S.uuid), effect: 'commandForMembers' },
  { type: Msg.ClusterShutdown, name: 'ClusterShutdown', request: S.tuple(), effect: 'always' },
  { type: Msg.FetchState, name: 'FetchState', request: S.tuple(), answer: S.tuple(S.int, S.arr(MEMBER), S.int, S.arr(S.uuid), S.arr(S.arr(S.optStr))), effect: 'harmless' },
  { type: Msg.PollCancel, name: 'PollCancel', request: S.tuple(S.uuid, S.int), effect: 'harmless' },
  { type: Msg.Leave, name: 'Leave', request: S.tuple(S.uuid), effect: 'commandForMembers' },
  { type: Msg.FetchTable, name: 'FetchTable', request: S.tuple(), answer: TABLE, effect: 'harmless' },
  // MigrateEnd lets the partition take writes again: only its migration's master may say so.
  { type: Msg.MigrateEnd, name: 'MigrateEnd', request: S.tuple(S.pid), effect: 'command' },
];

const KNOWN: readonly MessageSpec[] = MESSAGES;

/**
 * Messages of the table this file has no shape for yet (added since): fuzzed with any
 * payload, and, being unknown, every array payload counts as a possible command.
 */
export const UNSHAPED: readonly MessageSpec[] = Object.entries(Msg)
  .filter(([, type]) => !KNOWN.some((m) => m.type === type))
  .map(([name, type]) => ({ type, name, request: S.tuple(S.any), effect: 'command' as const, commandShape: S.tuple() }));

export const ALL_MESSAGES: readonly MessageSpec[] = [...KNOWN, ...UNSHAPED];

const BY_TYPE = new Map(ALL_MESSAGES.map((m) => [m.type, m]));
export const AUTH_SHAPE = (BY_TYPE.get(Msg.Auth) as MessageSpec).request;

/** What the generators need to know about the target. */
export interface MemberFuzzContext {
  readonly clusterName: string;
  /** uuids of the real members (never named in a Leave). */
  readonly memberUuids: readonly string[];
  /** Strings that must not appear anywhere in a case (the canary's map name). */
  readonly forbidden: readonly string[];
}

/** Names of maps and queues the fuzz may touch. */
const FUZZ_NAMES = ['fz-m', 'fz-q', 'fz-0', 'default', 'm', 'q'];

// ---------------------------------------------------------------- valid values

export function validValue(rng: Rng, shape: Shape): WireValue {
  switch (shape.t) {
    case 'str':
      return randomString(rng);
    case 'optStr':
      return rng.chance(0.4) ? null : randomString(rng);
    case 'int':
      return rng.chance(0.5) ? rng.range(-2, 300) : rng.pick([0, -1, 0x7fffffff, -0x80000000]);
    case 'optInt':
      return rng.chance(0.5) ? null : rng.range(0, 1000);
    case 'num':
      return randomNumber(rng);
    case 'bool':
      return rng.chance(0.5);
    case 'latin1':
      return new Latin1(String.fromCharCode(...rng.bytes(rng.size(16))));
    case 'any':
      return randomValue(rng, 2);
    case 'pid':
      return rng.chance(0.8) ? rng.int(PARTITION_COUNT) : rng.pick([PARTITION_COUNT, -1, 1000]);
    case 'state':
      return rng.chance(0.8) ? rng.pick(SETTABLE_STATES) : rng.pick(['IN_TRANSITION', 'active', '']);
    case 'uuid':
      return rng.chance(0.7) ? fakeUuid(rng) : randomString(rng);
    case 'address':
      return rng.pick(['127.0.0.1:1', '127.0.0.1:9', 'localhost:1', '[::1]:1', 'nowhere', '']);
    case 'mapOrQueue':
      return rng.chance(0.9) ? rng.pick(['map', 'queue']) : randomString(rng);
    case 'arr': {
      const n = rng.size(5);
      return Array.from({ length: n }, () => validValue(rng, shape.of));
    }
    case 'obj': {
      const out: Record<string, WireValue> = {};
      const n = rng.size(3);
      for (let i = 0; i < n; i++) {
        const key = rng.chance(0.5) ? rng.pick(['map', 'queue']) : randomString(rng);
        Object.defineProperty(out, key, { value: validValue(rng, shape.of), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'tuple':
      return shape.items.map((s) => validValue(rng, s));
  }
}

export function fakeUuid(rng: Rng): string {
  const h = rng.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Plausible arguments of a map or queue operation, on fuzz names. */
function dataArgs(rng: Rng): WireValue[] {
  const name = rng.pick(FUZZ_NAMES);
  const args: WireValue[] = [name];
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

/** A well-formed payload of `spec` (for harmless and data messages, and as a base to mutate). */
export function validPayload(rng: Rng, spec: MessageSpec): WireValue {
  if (spec.type === Msg.Operation || spec.type === Msg.Backup) {
    const service = rng.pick(['map', 'queue']);
    const types = service === 'map' ? ['get', 'put', 'remove', 'clear', 'size'] : ['offer', 'pushFront', 'poll', 'size', 'destroy'];
    const t: WireValue[] = [service, rng.pick(types), rng.int(PARTITION_COUNT), dataArgs(rng)];
    if (spec.type === Msg.Operation) t.push(rng.chance(0.5) ? null : rng.int(1 << 20));
    else t.push(rng.chance(0.8) ? rng.int(100) : 0x7fffffff); // the sender's table version
    return t;
  }
  return validValue(rng, spec.request);
}

// ---------------------------------------------------------------- conformance (as protocol/fields.ts reads)

export function conforms(shape: Shape, v: WireValue | undefined): boolean {
  switch (shape.t) {
    case 'str':
    case 'uuid':
    case 'address':
    case 'mapOrQueue':
      return typeof v === 'string';
    case 'optStr':
      return v === null || v === undefined || typeof v === 'string';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'optInt':
      return v === null || v === undefined || (typeof v === 'number' && Number.isInteger(v));
    case 'num':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'latin1':
      return v instanceof Latin1;
    case 'any':
      return v !== undefined;
    case 'pid':
      return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < PARTITION_COUNT;
    case 'state':
      return typeof v === 'string' && SETTABLE_STATES.includes(v);
    case 'arr':
      return Array.isArray(v) && (v as readonly WireValue[]).every((x) => conforms(shape.of, x));
    case 'obj':
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Latin1);
    case 'tuple':
      // Extra items are ignored by the receivers, so a longer tuple conforms too.
      return Array.isArray(v) && shape.items.every((s, i) => conforms(s, (v as readonly WireValue[])[i]));
  }
}

// ---------------------------------------------------------------- wrong values

/** A value of another kind than `shape` asks for. */
function wrongLeaf(rng: Rng, shape: Shape): WireValue {
  for (let i = 0; i < 20; i++) {
    const v = rng.chance(0.2) ? deepValue(rng, rng.pick([1, 3, 20, 50])) : randomValue(rng, 2);
    if (!conforms(shape, v)) return v;
  }
  return shape.t === 'str' ? 1 : 'wrong';
}

/** A payload that does NOT have `shape`: wrong kind at the top, a missing item, or one item wrong (recursively). */
export function wrongValue(rng: Rng, shape: Shape): WireValue {
  for (let attempt = 0; attempt < 20; attempt++) {
    const v = wrongOnce(rng, shape);
    if (!conforms(shape, v)) return v;
  }
  return wrongLeaf(rng, shape);
}

function wrongOnce(rng: Rng, shape: Shape): WireValue {
  if (shape.t === 'tuple' && shape.items.length > 0 && rng.chance(0.85)) {
    const t = validValue(rng, shape) as WireValue[];
    switch (rng.int(4)) {
      case 0:
        return t.slice(0, rng.int(shape.items.length));
      case 1: {
        // a tuple whose items are all of other kinds
        return shape.items.map((s) => wrongLeaf(rng, s));
      }
      default: {
        const i = rng.int(shape.items.length);
        t[i] = wrongValue(rng, shape.items[i] as Shape);
        return t;
      }
    }
  }
  if (shape.t === 'arr' && rng.chance(0.7)) {
    const a = validValue(rng, shape) as WireValue[];
    a.splice(rng.int(a.length + 1), 0, wrongValue(rng, shape.of));
    return a;
  }
  if (shape.t === 'tuple' && shape.items.length === 0) {
    // An empty tuple is the shape: anything but an array is wrong.
    return wrongLeaf(rng, shape);
  }
  return wrongLeaf(rng, shape);
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

export function authPayload(ctx: MemberFuzzContext, uuid: string): WireValue {
  return [ctx.clusterName, uuid, '127.0.0.1:1', null, null, '0.1.0'];
}

/** Preamble + a valid Auth request (what a post-auth case starts with). */
export function authPrefix(ctx: MemberFuzzContext, rng: Rng): Buffer {
  return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1, authPayload(ctx, fakeUuid(rng)))]);
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
      return frame(rng.chance(0.75) ? FrameKind.Request : FrameKind.OneWay, spec.type, callId, wrongValue(rng, spec.request));
    case 3: // well-formed payload (filtered by the policy)
      return frame(rng.chance(0.75) ? FrameKind.Request : FrameKind.OneWay, spec.type, callId, validPayload(rng, spec));
    case 4: // any value for any type, any kind
      return frame(anyKind(rng), anyType(rng), callId, randomValue(rng, 3));
    case 5: {
      // a valid frame, mutated
      const base = frame(FrameKind.Request, spec.type, callId, rng.chance(0.5) ? validPayload(rng, spec) : wrongValue(rng, spec.request));
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
      const rest = rng.chance(0.5) ? frame(FrameKind.Request, Msg.Auth, 1, ['dev', 'u', 'a', null, null, '0.1.0']) : Buffer.alloc(0);
      return Buffer.concat([rng.chance(0.3) ? p.subarray(0, 1 + rng.int(4)) : p, rest]);
    },
  ],
  [6, 'malformed Auth', (rng, ctx) => Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1 + rng.int(5), wrongAuth(rng, ctx))])],
  [
    2,
    'refused Auth',
    (rng, ctx) => {
      const t = authPayload(ctx, fakeUuid(rng)) as WireValue[];
      t[0] = rng.chance(0.5) ? randomString(rng) : `${ctx.clusterName}x`;
      if (rng.chance(0.3)) {
        t[3] = randomString(rng);
        t[4] = randomString(rng);
      }
      return Buffer.concat([PREAMBLE, frame(FrameKind.Request, Msg.Auth, 1, t), rng.chance(0.5) ? fuzzFrame(rng, ctx) : Buffer.alloc(0)]);
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
    'mutated handshake',
    (rng, ctx) => {
      const valid = Buffer.concat([authPrefix(ctx, rng), frame(FrameKind.OneWay, Msg.Heartbeat, 0, [fakeUuid(rng), 1])]);
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

function wrongAuth(rng: Rng, ctx: MemberFuzzContext): WireValue {
  const t = authPayload(ctx, fakeUuid(rng)) as WireValue[];
  switch (rng.int(4)) {
    case 0: // username or password not a string (or both): issue 7's crash
      if (rng.chance(0.7)) t[3] = wrongLeaf(rng, S.optStr);
      if (rng.chance(0.7) || typeof t[3] === 'string' || t[3] === null) t[4] = wrongLeaf(rng, S.optStr);
      return t;
    case 1:
      return wrongValue(rng, AUTH_SHAPE);
    case 2: // the cluster name right, something else wrong
    {
      const items = (AUTH_SHAPE as { items: readonly Shape[] }).items;
      const i = 1 + rng.int(items.length - 1);
      t[i] = wrongLeaf(rng, items[i] as Shape);
      return rng.chance(0.2) ? t.slice(0, i) : t;
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
  let authed = !opts.inbound;
  try {
    frames = reader.push(bytes);
  } catch {
    // Cut at the bad frame: what came before it still counts; find it frame by frame.
    frames = framesBeforeError(bytes, opts.inbound);
  }
  for (const f of frames) {
    if (!authed) {
      if (f.type !== Msg.Auth || f.kind !== FrameKind.Request) return undefined; // the member closes here
      if (conforms(AUTH_SHAPE, f.payload) && (f.payload as readonly WireValue[])[0] === ctx.clusterName) authed = true;
      continue;
    }
    if (f.kind === FrameKind.Response || f.kind === FrameKind.ErrorResponse) continue;
    const why = commandIn(f, ctx);
    if (why !== undefined) return why;
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

function commandIn(f: Frame, ctx: MemberFuzzContext): string | undefined {
  const spec = BY_TYPE.get(f.type);
  if (spec === undefined) return undefined;
  switch (spec.effect) {
    case 'always':
      return `${spec.name} (acted on whatever its payload)`;
    case 'command':
      return conforms(spec.commandShape ?? spec.request, f.payload) ? `well-formed ${spec.name}` : undefined;
    case 'commandForMembers': {
      if (!conforms(spec.request, f.payload)) return undefined;
      const uuid = (f.payload as readonly WireValue[])[0];
      return ctx.memberUuids.includes(uuid as string) ? `${spec.name} naming a member` : undefined;
    }
    default:
      return undefined;
  }
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
    return { bytes: frame(FrameKind.Response, 0, id, [fakeUuid(rng), '127.0.0.1:1']), close: false, label: 'valid Auth answer' };
  }
  if (pick <= 2 && spec?.type === Msg.Discover) {
    // Not joined, from an address lower than the dialler's: it waits and asks again.
    if (pick <= 1 || masters.length === 0) return { bytes: frame(FrameKind.Response, 0, id, [fakeUuid(rng), '127.0.0.1:1', false, null]), close: false, label: 'valid Discover answer (waiting)' };
    // Joined, with a fake master: the dialler sends that master a Join.
    return { bytes: frame(FrameKind.Response, 0, id, [fakeUuid(rng), rng.pick(masters), true, rng.pick(masters)]), close: false, label: 'valid Discover answer (joined)' };
  }
  if (pick <= 1 && spec?.type === Msg.Join) {
    const members = Array.from({ length: 1 + rng.int(3) }, () => validValue(rng, MEMBER));
    return { bytes: frame(FrameKind.Response, 0, id, [null, [rng.int(10), members, rng.pick(SETTABLE_STATES)], null]), close: false, label: 'valid Join answer with a made-up member list' };
  }
  switch (pick) {
    case 2:
    case 3:
    case 4:
      return { bytes: frame(FrameKind.Response, 0, id, spec?.answer ? wrongValue(rng, spec.answer) : randomValue(rng, 2)), close: rng.chance(0.3), label: `wrong ${spec?.name ?? '?'} answer` };
    case 5:
      return { bytes: frame(FrameKind.ErrorResponse, 0, id, rng.chance(0.5) ? randomValue(rng, 2) : [randomString(rng), randomValue(rng, 1)]), close: rng.chance(0.3), label: 'error answer of any shape' };
    case 6:
      return { bytes: mutateMany(rng, frame(FrameKind.Response, 0, id, [fakeUuid(rng), '127.0.0.1:1']), 1 + rng.int(3)), close: rng.chance(0.5), label: 'mutated answer' };
    case 7:
      return { bytes: rng.bytes(rng.size(64)), close: true, label: 'garbage' };
    case 8:
      return { bytes: frame(rng.pick([FrameKind.Request, FrameKind.OneWay]), anyType(rng), rng.chance(0.5) ? id : 0, randomValue(rng, 2)), close: false, label: 'a request instead of an answer' };
    default:
      return { bytes: fuzzFrame(rng, ctx), close: true, label: 'any frame' };
  }
}
