// The member protocol's CP payloads (cp-payloads.ts). First the Raft messages that CpRaft
// carries: every message type on pinned bytes, encoded to the tuple written out by hand and to
// a hex literal of its value bytes, decoded back from them. Round trips with edge values (0,
// 2^53 - 1, the entry and member caps, opaque values of every wire type). Each validation rule
// with the input it refuses and the field it names. Then a seeded fuzz: random valid messages,
// a few thousand mutations of them and random values; decode either returns a message that
// re-encodes to the same bytes (and that a fresh RaftNode takes without throwing) or throws
// GridError('BAD_REQUEST'), nothing else.
//
// Then the CP messages themselves (CpRaft..CpReset, 70-76) and their answers: each as a frame
// on pinned hex, the same bytes as the tuples cp-service.ts built inline before the typed
// pairs, read whole and one byte at a time; every Cp* message of messages.ts has a frame here
// (payloads.test.ts leaves them to this file); each envelope field refused at the wrong type,
// truncations, and the rules of the view, the bootstrap and the seeds.

import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { RaftNode } from '../../../src/cp/raft.js';
import type { RaftEntry as CpRaftEntry, RaftMessage as CpRaftMessage, RaftSnapshot as CpRaftSnapshot } from '../../../src/cp/raft-messages.js';
import type { CpGroupRec as CpGroupRecOfCp, CpMemberRec as CpMemberRecOfCp, CpView as CpViewOfCp } from '../../../src/cp/cp-metadata-state.js';
import { viewFromWire, viewToWire } from '../../../src/cp/cp-metadata-state.js';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import * as C from '../../../src/protocol/cp-payloads.js';
import { FrameKind, encodeFrame } from '../../../src/protocol/frame.js';
import { Msg } from '../../../src/protocol/messages.js';
import * as P from '../../../src/protocol/payloads.js';
import {
  MAX_RAFT_APPEND_ENTRIES,
  MAX_RAFT_MEMBERS,
  decodeRaftMessage,
  encodeRaftMessage,
  type RaftEntry,
  type RaftMessage,
  type RaftSnapshot,
} from '../../../src/protocol/cp-payloads.js';
import { SAMPLES, asTuple, callIdOf, expectFrameDecodes, expectPrefixesRefused, expectRoundTrip, fieldIs, refusal, type PayloadVector, type VectorField } from '../../support/payload-vectors.js';
import { prng } from '../../support/prng.js';

// cp's names are these types, re-exported (each type is written once, here in protocol/): a
// copy in cp/ that drifts by a field fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const TYPES_PINNED: [Same<CpRaftMessage, RaftMessage>, Same<CpRaftEntry, RaftEntry>, Same<CpRaftSnapshot, RaftSnapshot>] = [true, true, true];

const MAX = Number.MAX_SAFE_INTEGER;

/** How a top-level field is read, for choosing values of the wrong type. */
type Kind = 'nat' | 'bool' | 'entries' | 'snapshot';

interface Field {
  /** As decode errors name it. */
  readonly name: string;
  readonly kind: Kind;
}

interface Vector {
  readonly name: string;
  readonly message: RaftMessage;
  /** The tuple, written out by hand from the layout in cp-payloads.ts. */
  readonly wire: WireValue;
  /** encodeValue(wire) as hex. */
  readonly hex: string;
  /** The fields after the tag, in order. */
  readonly fields: readonly Field[];
}

const fieldsOf = (type: string, ...spec: [string, Kind][]): Field[] => spec.map(([name, kind]) => ({ name: `${type}.${name}`, kind }));
const APPEND_FIELDS = fieldsOf('append', ['term', 'nat'], ['prevLogIndex', 'nat'], ['prevLogTerm', 'nat'], ['entries', 'entries'], ['leaderCommit', 'nat'], ['seq', 'nat']);
const APPEND_RESPONSE_FIELDS = fieldsOf('append-response', ['term', 'nat'], ['success', 'bool'], ['matchIndex', 'nat'], ['hintIndex', 'nat'], ['seq', 'nat']);

const COMMAND: WireValue = { op: 'add', name: new Latin1('counter\u00ff'), delta: -3 };
const APPEND: RaftMessage = {
  type: 'append',
  term: 5,
  prevLogIndex: 10,
  prevLogTerm: 4,
  entries: [
    { index: 11, term: 4, kind: 'command', command: COMMAND },
    { index: 12, term: 5, kind: 'noop' },
    { index: 13, term: 5, kind: 'membership', members: ['m1', 'm2', 'm4'] },
  ],
  leaderCommit: 10,
  seq: 42,
};
const APPEND_WIRE: WireValue = [4, 5, 10, 4, [[11, 4, 0, COMMAND], [12, 5, 1], [13, 5, 2, ['m1', 'm2', 'm4']]], 10, 42];
const STATE: WireValue = { longs: { a: 7, b: -1 }, blob: Buffer.from([1, 2, 255]) };
const SNAPSHOT: RaftSnapshot = { lastIncludedIndex: 100, lastIncludedTerm: 4, members: ['m1', 'm2', 'm3'], membersIndex: 13, state: STATE };
const SNAPSHOT_WIRE: WireValue = [100, 4, ['m1', 'm2', 'm3'], 13, STATE];
const INSTALL: RaftMessage = { type: 'install-snapshot', term: 5, snapshot: SNAPSHOT, seq: 44 };
const INSTALL_WIRE: WireValue = [6, 5, SNAPSHOT_WIRE, 44];

const VECTORS: readonly Vector[] = [
  {
    name: 'pre-vote',
    message: { type: 'pre-vote', term: 5, lastLogIndex: 12, lastLogTerm: 4 },
    wire: [0, 5, 12, 4],
    hex: '080000000403000000000300000005030000000c0300000004',
    fields: fieldsOf('pre-vote', ['term', 'nat'], ['lastLogIndex', 'nat'], ['lastLogTerm', 'nat']),
  },
  {
    name: 'pre-vote-response',
    message: { type: 'pre-vote-response', term: 4, preVoteTerm: 5, granted: true },
    wire: [1, 4, 5, true],
    hex: '080000000403000000010300000004030000000502',
    fields: fieldsOf('pre-vote-response', ['term', 'nat'], ['preVoteTerm', 'nat'], ['granted', 'bool']),
  },
  {
    name: 'vote',
    message: { type: 'vote', term: 5, lastLogIndex: 12, lastLogTerm: 4 },
    wire: [2, 5, 12, 4],
    hex: '080000000403000000020300000005030000000c0300000004',
    fields: fieldsOf('vote', ['term', 'nat'], ['lastLogIndex', 'nat'], ['lastLogTerm', 'nat']),
  },
  {
    name: 'vote-response',
    message: { type: 'vote-response', term: 5, granted: false },
    wire: [3, 5, false],
    hex: '08000000030300000003030000000501',
    fields: fieldsOf('vote-response', ['term', 'nat'], ['granted', 'bool']),
  },
  {
    name: 'append (a command, a noop, a membership change)',
    message: APPEND,
    wire: APPEND_WIRE,
    hex: '080000000703000000040300000005030000000a030000000408000000030800000004030000000b030000000403000000000900000003000000026f700500000003616464000000046e616d650600000008636f756e746572ff0000000564656c746103fffffffd0800000003030000000c030000000503000000010800000004030000000d03000000050300000002080000000305000000026d3105000000026d3205000000026d34030000000a030000002a',
    fields: APPEND_FIELDS,
  },
  {
    name: 'append (a heartbeat)',
    message: { type: 'append', term: 5, prevLogIndex: 13, prevLogTerm: 5, entries: [], leaderCommit: 13, seq: 43 },
    wire: [4, 5, 13, 5, [], 13, 43],
    hex: '080000000703000000040300000005030000000d03000000050800000000030000000d030000002b',
    fields: APPEND_FIELDS,
  },
  {
    name: 'append-response (success)',
    message: { type: 'append-response', term: 5, success: true, matchIndex: 13, hintIndex: 0, seq: 42 },
    wire: [5, 5, true, 13, 0, 42],
    hex: '08000000060300000005030000000502030000000d0300000000030000002a',
    fields: APPEND_RESPONSE_FIELDS,
  },
  {
    name: 'append-response (refusal with a hint)',
    message: { type: 'append-response', term: 5, success: false, matchIndex: 0, hintIndex: 9, seq: 43 },
    wire: [5, 5, false, 0, 9, 43],
    hex: '0800000006030000000503000000050103000000000300000009030000002b',
    fields: APPEND_RESPONSE_FIELDS,
  },
  {
    name: 'install-snapshot',
    message: INSTALL,
    wire: INSTALL_WIRE,
    hex: '080000000403000000060300000005080000000503000000640300000004080000000305000000026d3105000000026d3205000000026d33030000000d0900000002000000056c6f6e6773090000000200000001610300000007000000016203ffffffff00000004626c6f6207000000030102ff030000002c',
    fields: fieldsOf('install-snapshot', ['term', 'nat'], ['snapshot', 'snapshot'], ['seq', 'nat']),
  },
  {
    name: 'install-snapshot-response',
    message: { type: 'install-snapshot-response', term: 5, matchIndex: 100, seq: 44 },
    wire: [7, 5, 100, 44],
    hex: '0800000004030000000703000000050300000064030000002c',
    fields: fieldsOf('install-snapshot-response', ['term', 'nat'], ['matchIndex', 'nat'], ['seq', 'nat']),
  },
];

/** Numbers that are not non-negative safe integers. */
const NOT_NAT: readonly number[] = [-1, -0, 0.5, 2 ** 53, -(2 ** 53), Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

function conforms(kind: Kind, v: WireValue): boolean {
  switch (kind) {
    case 'nat':
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0);
    case 'bool':
      return typeof v === 'boolean';
    case 'entries':
    case 'snapshot':
      return Array.isArray(v);
  }
}

/** Refused with a message that names the field (or a part of it: `name[1]`, `name.term`): `... <name> is ...`. */
function expectNames(e: GridError, name: string): void {
  expect(e.message, e.message).toMatch(new RegExp(`^malformed member message: ${fieldIs(name)}`));
}

/** decode refuses `v`; the message matches `pattern`. */
function expectRefused(v: WireValue, pattern: RegExp): void {
  const e = refusal(() => decodeRaftMessage(v));
  expect(e.message).toMatch(/^malformed member message: /);
  expect(e.message).toMatch(pattern);
}

const bytesOf = (m: RaftMessage): Buffer => encodeValue(encodeRaftMessage(m));
/** Through the codec, as a peer's message arrives. */
const viaWire = (m: RaftMessage): RaftMessage => decodeRaftMessage(decodeValue(bytesOf(m)));
/** An append of `entries` after prevLogIndex/prevLogTerm in term 9, as a tuple. */
const appendWire = (prevLogIndex: number, prevLogTerm: number, entries: WireValue[], term = 9): WireValue => [4, term, prevLogIndex, prevLogTerm, entries, 0, 1];
const installWire = (snapshot: WireValue, term = 9): WireValue => [6, term, snapshot, 1];
const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `member-${i}`);

describe('Raft messages: the wire types', () => {
  it("mirror cp's RaftMessage, RaftEntry and RaftSnapshot (checked by the compiler)", () => {
    expect(TYPES_PINNED).toEqual([true, true, true]);
  });
});

describe('Raft messages: pinned bytes', () => {
  for (const v of VECTORS) {
    it(`${v.name}: encodes to the tuple written out by hand, and to the pinned bytes`, () => {
      const encoded = encodeRaftMessage(v.message);
      expect(encoded).toEqual(v.wire);
      expect(encodeValue(encoded).toString('hex')).toBe(v.hex);
      expect(encodeValue(v.wire).toString('hex')).toBe(v.hex);
    });

    it(`${v.name}: decodes from the pinned bytes to the message; every shorter prefix is refused by the codec`, () => {
      const bytes = Buffer.from(v.hex, 'hex');
      expect(decodeRaftMessage(decodeValue(bytes))).toEqual(v.message);
      expectPrefixesRefused(bytes);
    });
  }

  it('one tag per message type, 0..7 in the order of raft-messages.ts', () => {
    const tags = new Map(VECTORS.map((v) => [v.message.type, asTuple(v.wire)[0]]));
    expect([...tags]).toEqual([
      ['pre-vote', 0],
      ['pre-vote-response', 1],
      ['vote', 2],
      ['vote-response', 3],
      ['append', 4],
      ['append-response', 5],
      ['install-snapshot', 6],
      ['install-snapshot-response', 7],
    ]);
  });
});

describe('Raft messages: round trips', () => {
  for (const v of VECTORS) {
    it(`${v.name}: decode(encode(m)) is m, and re-encodes to the same bytes`, () => {
      const back = viaWire(v.message);
      expect(back).toEqual(v.message);
      expect(bytesOf(back).equals(bytesOf(v.message))).toBe(true);
    });
  }

  it('every message type with all numbers 0, and with all numbers 2^53 - 1', () => {
    const zero: RaftMessage[] = [
      { type: 'pre-vote', term: 0, lastLogIndex: 0, lastLogTerm: 0 },
      { type: 'pre-vote-response', term: 0, preVoteTerm: 0, granted: false },
      { type: 'vote', term: 0, lastLogIndex: 0, lastLogTerm: 0 },
      { type: 'vote-response', term: 0, granted: false },
      { type: 'append', term: 0, prevLogIndex: 0, prevLogTerm: 0, entries: [{ index: 1, term: 0, kind: 'noop' }], leaderCommit: 0, seq: 0 },
      { type: 'append-response', term: 0, success: false, matchIndex: 0, hintIndex: 0, seq: 0 },
      { type: 'install-snapshot', term: 0, snapshot: { lastIncludedIndex: 0, lastIncludedTerm: 0, members: ['m'], membersIndex: 0, state: null }, seq: 0 },
      { type: 'install-snapshot-response', term: 0, matchIndex: 0, seq: 0 },
    ];
    const max: RaftMessage[] = [
      { type: 'pre-vote', term: MAX, lastLogIndex: MAX, lastLogTerm: MAX },
      { type: 'pre-vote-response', term: MAX, preVoteTerm: MAX, granted: true },
      { type: 'vote', term: MAX, lastLogIndex: MAX, lastLogTerm: MAX },
      { type: 'vote-response', term: MAX, granted: true },
      {
        type: 'append',
        term: MAX,
        prevLogIndex: MAX - 2,
        prevLogTerm: MAX,
        entries: [
          { index: MAX - 1, term: MAX, kind: 'noop' },
          { index: MAX, term: MAX, kind: 'command', command: MAX },
        ],
        leaderCommit: MAX,
        seq: MAX,
      },
      { type: 'append-response', term: MAX, success: true, matchIndex: MAX, hintIndex: MAX, seq: MAX },
      { type: 'install-snapshot', term: MAX, snapshot: { lastIncludedIndex: MAX, lastIncludedTerm: MAX, members: ['m'], membersIndex: MAX, state: MAX }, seq: MAX },
      { type: 'install-snapshot-response', term: MAX, matchIndex: MAX, seq: MAX },
    ];
    for (const m of [...zero, ...max]) {
      const back = viaWire(m);
      expect(back).toEqual(m);
      expect(bytesOf(back).equals(bytesOf(m))).toBe(true);
    }
    // Past int32: float64 on the wire, still exact.
    expect(asTuple(decodeValue(bytesOf(max[0]!)))).toEqual([0, MAX, MAX, MAX]);
  });

  it('commands and snapshot states of every wire type go through as they are', () => {
    const opaque: WireValue[] = [
      null,
      false,
      true,
      0,
      -1,
      -0,
      2.5,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      '',
      'caf\u00e9 \u{1f600}',
      new Latin1('\u0000\u00ff'),
      Buffer.alloc(0),
      Buffer.from([0, 1, 254, 255]),
      [],
      [null, [[]], { a: [1, 'x'] }],
      {},
      { __proto__: 1, nested: { deeper: [new Latin1('k'), Buffer.from([7])] } } as unknown as WireValue,
    ];
    const entries: RaftEntry[] = opaque.map((command, i) => ({ index: 101 + i, term: 3, kind: 'command', command }));
    const append: RaftMessage = { type: 'append', term: 3, prevLogIndex: 100, prevLogTerm: 3, entries, leaderCommit: 100, seq: 1 };
    const back = viaWire(append);
    expect(bytesOf(back).equals(bytesOf(append))).toBe(true);
    expect(back.type === 'append' && back.entries.map((e) => (e.kind === 'command' ? e.command : undefined))).toEqual(opaque);
    for (const state of opaque) {
      const m: RaftMessage = { type: 'install-snapshot', term: 3, snapshot: { ...SNAPSHOT, lastIncludedTerm: 3, state }, seq: 2 };
      const got = viaWire(m);
      expect(bytesOf(got).equals(bytesOf(m))).toBe(true);
      expect(got.type === 'install-snapshot' && got.snapshot.state).toEqual(state);
    }
  });

  it(`an append of ${MAX_RAFT_APPEND_ENTRIES} entries, membership lists of ${MAX_RAFT_MEMBERS} ids`, () => {
    const entries = Array.from({ length: MAX_RAFT_APPEND_ENTRIES }, (_, k): RaftEntry => {
      const at = { index: 1 + k, term: 1 + Math.floor(k / 1000) };
      if (k % 3 === 0) return { ...at, kind: 'command', command: k };
      if (k % 3 === 1) return { ...at, kind: 'noop' };
      return { ...at, kind: 'membership', members: ids(1 + (k % MAX_RAFT_MEMBERS)) };
    });
    const append: RaftMessage = { type: 'append', term: 10, prevLogIndex: 0, prevLogTerm: 0, entries, leaderCommit: 0, seq: 1 };
    expect(viaWire(append)).toEqual(append);
    const full: RaftMessage = { type: 'install-snapshot', term: 1, snapshot: { ...SNAPSHOT, lastIncludedTerm: 1, members: ids(MAX_RAFT_MEMBERS) }, seq: 1 };
    expect(viaWire(full)).toEqual(full);
  });

  it('member ids may be any non-empty strings', () => {
    const members = ['a', ' ', '\u0000', 'caf\u00e9', '\u{1f600}', 'x'.repeat(1000), '550e8400-e29b-41d4-a716-446655440000'];
    const m: RaftMessage = { type: 'append', term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [{ index: 1, term: 1, kind: 'membership', members }], leaderCommit: 0, seq: 1 };
    expect(viaWire(m)).toEqual(m);
  });
});

describe('Raft messages: malformed top-level tuples', () => {
  it('not a tuple is refused', () => {
    for (const s of SAMPLES) if (!Array.isArray(s)) expectNames(refusal(() => decodeRaftMessage(s)), 'raft message');
  });

  it('an unknown tag, or a tag that is not a non-negative integer, is refused', () => {
    for (const tag of [8, 9, 255, 2 ** 31, ...NOT_NAT, ...SAMPLES.filter((s) => typeof s !== 'number')]) {
      expectNames(refusal(() => decodeRaftMessage([tag as WireValue, 5, 12, 4])), 'raft message tag');
    }
    expectNames(refusal(() => decodeRaftMessage([])), 'raft message tag');
  });

  for (const v of VECTORS) {
    const full = asTuple(v.wire);

    it(`${v.name}: the field list covers the tuple`, () => {
      expect(full).toHaveLength(v.fields.length + 1);
    });

    it(`${v.name}: a value of the wrong type at each field is refused, naming the field`, () => {
      v.fields.forEach((field, i) => {
        const wrong = [...SAMPLES, ...NOT_NAT].filter((s) => !conforms(field.kind, s));
        expect(wrong.length, field.name).toBeGreaterThan(0);
        for (const s of wrong) {
          const t = [...full];
          t[i + 1] = s;
          expectNames(refusal(() => decodeRaftMessage(t)), field.name);
        }
      });
    });

    it(`${v.name}: a number that is not a non-negative safe integer is refused at every numeric field`, () => {
      v.fields.forEach((field, i) => {
        if (field.kind !== 'nat') return;
        for (const n of NOT_NAT) {
          const t = [...full];
          t[i + 1] = n;
          expectNames(refusal(() => decodeRaftMessage(t)), field.name);
        }
      });
    });

    it(`${v.name}: a truncated tuple is refused, naming the missing field`, () => {
      for (let n = 1; n < full.length; n++) expectNames(refusal(() => decodeRaftMessage(full.slice(0, n))), v.fields[n - 1]!.name);
    });

    it(`${v.name}: an extra trailing item is refused`, () => {
      for (const extra of [null, 0, 'later']) {
        expectRefused([...full, extra], new RegExp(`^malformed member message: ${v.message.type} has ${full.length + 1} items, expected ${full.length}$`));
      }
    });
  }
});

describe('Raft messages: the rules of an append', () => {
  const noop = (index: number, term: number): WireValue => [index, term, 1];
  const cmd = (index: number, term: number, command: WireValue = 'c'): WireValue => [index, term, 0, command];
  const members = (index: number, term: number, list: WireValue[]): WireValue => [index, term, 2, list];

  it('entries start at prevLogIndex + 1 (at 1 after index 0)', () => {
    expect(decodeRaftMessage(appendWire(0, 0, [noop(1, 1)]))).toMatchObject({ entries: [{ index: 1 }] });
    expectRefused(appendWire(0, 0, [noop(0, 1)]), /append\.entries\[0\]\.index is 0, expected 1$/);
    expectRefused(appendWire(0, 0, [noop(2, 1)]), /append\.entries\[0\]\.index is 2, expected 1$/);
    expectRefused(appendWire(10, 1, [noop(10, 1)]), /append\.entries\[0\]\.index is 10, expected 11$/);
    expectRefused(appendWire(10, 1, [noop(12, 1)]), /append\.entries\[0\]\.index is 12, expected 11$/);
  });

  it('entry indexes are consecutive: a gap, a repeat, a step back or a swap is refused', () => {
    expectRefused(appendWire(10, 1, [noop(11, 1), noop(13, 1)]), /append\.entries\[1\]\.index is 13, expected 12$/);
    expectRefused(appendWire(10, 1, [noop(11, 1), noop(11, 1)]), /append\.entries\[1\]\.index is 11, expected 12$/);
    expectRefused(appendWire(10, 1, [noop(11, 1), noop(12, 1), noop(12, 1)]), /append\.entries\[2\]\.index is 12, expected 13$/);
    expectRefused(appendWire(10, 1, [noop(12, 1), noop(11, 1)]), /append\.entries\[0\]\.index is 12, expected 11$/);
  });

  it('an index past 2^53 - 1 is refused, even where it would follow on', () => {
    expectRefused(appendWire(MAX, 1, [noop(MAX + 1, 1)]), /append\.entries\[0\]\.index is 9007199254740992, not in \[0, 2\^53 - 1\]$/);
    expect(decodeRaftMessage(appendWire(MAX - 1, 1, [noop(MAX, 1)]))).toMatchObject({ entries: [{ index: MAX }] });
  });

  it('entry terms never go down, from prevLogTerm on', () => {
    expect(decodeRaftMessage(appendWire(10, 3, [noop(11, 3), noop(12, 3), noop(13, 7), noop(14, 9)]))).toMatchObject({ entries: [{ term: 3 }, { term: 3 }, { term: 7 }, { term: 9 }] });
    expectRefused(appendWire(10, 3, [noop(11, 2)]), /append\.entries\[0\]\.term is 2, below the term before it \(3\)$/);
    expectRefused(appendWire(10, 3, [noop(11, 5), cmd(12, 4)]), /append\.entries\[1\]\.term is 4, below the term before it \(5\)$/);
    expectRefused(appendWire(10, 1, [noop(11, 5), noop(12, 5), members(13, 1, ['m'])]), /append\.entries\[2\]\.term is 1, below the term before it \(5\)$/);
  });

  it("entry terms and prevLogTerm are at most the message's term", () => {
    expect(decodeRaftMessage(appendWire(10, 9, [noop(11, 9)], 9))).toMatchObject({ term: 9 });
    expectRefused(appendWire(10, 3, [noop(11, 10)], 9), /append\.entries\[0\]\.term is 10, above the message's term 9$/);
    expectRefused(appendWire(10, 3, [noop(11, 9), noop(12, MAX)], 9), /append\.entries\[1\]\.term is 9007199254740991, above the message's term 9$/);
    expectRefused(appendWire(10, 10, [], 9), /append\.prevLogTerm is 10, above the message's term 9$/);
  });

  it(`at most ${MAX_RAFT_APPEND_ENTRIES} entries`, () => {
    const many = (n: number): WireValue[] => Array.from({ length: n }, (_, k) => noop(1 + k, 1));
    expect(decodeRaftMessage(appendWire(0, 0, many(MAX_RAFT_APPEND_ENTRIES)))).toMatchObject({ type: 'append' });
    expectRefused(appendWire(0, 0, many(MAX_RAFT_APPEND_ENTRIES + 1)), /append\.entries has 10001 entries, more than 10000$/);
  });

  it('an entry that is not a tuple, or a field of the wrong type, is refused naming the entry and field', () => {
    for (const s of SAMPLES) if (!Array.isArray(s)) expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [noop(11, 1), s]))), 'append.entries[1]');
    const fields = ['index', 'term', 'kind'];
    fields.forEach((name, i) => {
      for (const s of [...SAMPLES.filter((x) => typeof x !== 'number'), ...NOT_NAT]) {
        const e = asTuple(cmd(11, 1));
        e[i] = s;
        expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [e]))), `append.entries[0].${name}`);
      }
    });
  });

  it('an entry kind other than 0 (command), 1 (noop), 2 (membership) is refused', () => {
    for (const kind of [3, 4, 255]) expectRefused(appendWire(10, 1, [[11, 1, kind, 'c']]), new RegExp(`append\\.entries\\[0\\]\\.kind is ${kind}$`));
    expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [[11, 1, 'command', 'c']]))), 'append.entries[0].kind');
  });

  it('a command entry has exactly [index, term, 0, command]; the command may be any value, null too', () => {
    expect(decodeRaftMessage(appendWire(10, 1, [cmd(11, 1, null)]))).toMatchObject({ entries: [{ kind: 'command', command: null }] });
    expectRefused(appendWire(10, 1, [[11, 1, 0]]), /append\.entries\[0\]\.command is undefined$/);
    expectRefused(appendWire(10, 1, [[11, 1, 0, 'c', 'd']]), /append\.entries\[0\] has 5 items, expected 4$/);
  });

  it('a noop entry has exactly [index, term, 1]', () => {
    expectRefused(appendWire(10, 1, [[11, 1, 1, null]]), /append\.entries\[0\] has 4 items, expected 3$/);
    expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [[11, 1]]))), 'append.entries[0].kind');
    expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [[11]]))), 'append.entries[0].term');
  });

  it('a membership entry has exactly [index, term, 2, members]', () => {
    expectRefused(appendWire(10, 1, [[11, 1, 2]]), /append\.entries\[0\]\.members is null$/);
    expectRefused(appendWire(10, 1, [[11, 1, 2, ['m'], 'x']]), /append\.entries\[0\] has 5 items, expected 4$/);
    for (const s of SAMPLES) if (!Array.isArray(s)) expectNames(refusal(() => decodeRaftMessage(appendWire(10, 1, [members(11, 1, s as never)]))), 'append.entries[0].members');
  });

  it(`membership entries: 1 to ${MAX_RAFT_MEMBERS} distinct non-empty strings`, () => {
    const at = (list: WireValue[]): WireValue => appendWire(10, 1, [noop(11, 1), members(12, 1, list)]);
    expect(decodeRaftMessage(at(ids(MAX_RAFT_MEMBERS)))).toMatchObject({ entries: [{}, { members: ids(MAX_RAFT_MEMBERS) }] });
    expectRefused(at(ids(MAX_RAFT_MEMBERS + 1)), /append\.entries\[1\]\.members has 65 ids, more than 64$/);
    expectRefused(at([]), /append\.entries\[1\]\.members is empty$/);
    expectRefused(at(['m1', '']), /append\.entries\[1\]\.members\[1\] is an empty string$/);
    expectRefused(at(['m1', 'm2', 'm1']), /append\.entries\[1\]\.members\[2\] repeats append\.entries\[1\]\.members\[0\]$/);
    for (const s of SAMPLES) if (typeof s !== 'string') expectNames(refusal(() => decodeRaftMessage(at(['m1', s]))), 'append.entries[1].members[1]');
  });
});

describe('Raft messages: the rules of votes and snapshots', () => {
  it("a vote's or pre-vote's lastLogTerm is at most its term", () => {
    for (const [tag, type] of [
      [0, 'pre-vote'],
      [2, 'vote'],
    ] as const) {
      expect(decodeRaftMessage([tag, 5, 12, 5])).toEqual({ type, term: 5, lastLogIndex: 12, lastLogTerm: 5 });
      expectRefused([tag, 5, 12, 6], new RegExp(`^malformed member message: ${type}\\.lastLogTerm is 6, above the message's term 5$`));
    }
  });

  it('a snapshot is exactly [lastIncludedIndex, lastIncludedTerm, members, membersIndex, state]', () => {
    const s = asTuple(SNAPSHOT_WIRE);
    for (const x of SAMPLES) if (!Array.isArray(x)) expectNames(refusal(() => decodeRaftMessage(installWire(x))), 'install-snapshot.snapshot');
    const names = ['lastIncludedIndex', 'lastIncludedTerm', 'members', 'membersIndex', 'state'];
    for (let n = 0; n < s.length; n++) expectNames(refusal(() => decodeRaftMessage(installWire(s.slice(0, n)))), `install-snapshot.snapshot.${names[n]}`);
    expectRefused(installWire([...s, null]), /^malformed member message: install-snapshot\.snapshot has 6 items, expected 5$/);
    for (const i of [0, 1, 3]) {
      for (const x of [...SAMPLES.filter((v) => typeof v !== 'number'), ...NOT_NAT]) {
        const t = [...s];
        t[i] = x;
        expectNames(refusal(() => decodeRaftMessage(installWire(t))), `install-snapshot.snapshot.${names[i]}`);
      }
    }
    // The state may be any value, null too.
    expect(decodeRaftMessage(installWire([...s.slice(0, 4), null]))).toMatchObject({ snapshot: { state: null } });
  });

  it("the snapshot's lastIncludedTerm is at most the message's term", () => {
    expect(decodeRaftMessage(installWire([100, 9, ['m'], 0, null], 9))).toMatchObject({ snapshot: { lastIncludedTerm: 9 } });
    expectRefused(installWire([100, 10, ['m'], 0, null], 9), /install-snapshot\.snapshot\.lastIncludedTerm is 10, above the message's term 9$/);
  });

  it('the snapshot membersIndex is at most its lastIncludedIndex', () => {
    expect(decodeRaftMessage(installWire([100, 9, ['m'], 100, null]))).toMatchObject({ snapshot: { membersIndex: 100 } });
    expectRefused(installWire([100, 9, ['m'], 101, null]), /install-snapshot\.snapshot\.membersIndex is 101, beyond lastIncludedIndex 100$/);
  });

  it(`the snapshot's members: 1 to ${MAX_RAFT_MEMBERS} distinct non-empty strings`, () => {
    const at = (list: WireValue[]): WireValue => installWire([100, 9, list, 0, null]);
    expectRefused(at(ids(MAX_RAFT_MEMBERS + 1)), /install-snapshot\.snapshot\.members has 65 ids, more than 64$/);
    expectRefused(at([]), /install-snapshot\.snapshot\.members is empty$/);
    expectRefused(at(['']), /install-snapshot\.snapshot\.members\[0\] is an empty string$/);
    expectRefused(at(['a', 'b', 'b']), /install-snapshot\.snapshot\.members\[2\] repeats install-snapshot\.snapshot\.members\[1\]$/);
    for (const s of SAMPLES) if (typeof s !== 'string') expectNames(refusal(() => decodeRaftMessage(at([s]))), 'install-snapshot.snapshot.members[0]');
  });
});

// ------------------------------------------------------------------ fuzz

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const below = (r: Rand, n: number): number => Math.floor(r() * n);

/** A non-negative safe integer, often an edge (0, 1, the int32 edges, 2^53 - 1). */
function randomNat(r: Rand): number {
  return r() < 0.3 ? pick(r, [0, 1, 2, 2 ** 31 - 1, 2 ** 31, 2 ** 32, MAX - 1, MAX]) : below(r, 1000);
}

function randomValue(r: Rand, depth = 0): WireValue {
  switch (below(r, depth >= 3 ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, [0, -1, 7, 2 ** 31, -(2 ** 40), 0.25, -0, Number.NaN, MAX]);
    case 3:
      return pick(r, ['', 'm1', 'm2', 'x\u00e9', '\u{1f600}']);
    case 4:
      return new Latin1(pick(r, ['', 'k', '\u00ff\u0000']));
    case 5:
      return Buffer.from(Array.from({ length: below(r, 4) }, () => below(r, 256)));
    case 6:
      return pick(r, [[], {}]);
    case 7:
      return Array.from({ length: below(r, 4) }, () => randomValue(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: below(r, 3) }, (_, i) => [`k${i}`, randomValue(r, depth + 1)]));
  }
}

function randomMembers(r: Rand): string[] {
  const n = 1 + below(r, 5);
  return Array.from({ length: n }, (_, i) => `m${i + 1}`).sort(() => r() - 0.5);
}

/** A message the decoder accepts (every rule kept), with edge values now and then. */
function randomMessage(r: Rand): RaftMessage {
  const term = randomNat(r);
  const upTo = (t: number): number => (r() < 0.3 ? t : below(r, t + 1));
  switch (below(r, 8)) {
    case 0:
      return { type: 'pre-vote', term, lastLogIndex: randomNat(r), lastLogTerm: upTo(term) };
    case 1:
      return { type: 'pre-vote-response', term, preVoteTerm: randomNat(r), granted: r() < 0.5 };
    case 2:
      return { type: 'vote', term, lastLogIndex: randomNat(r), lastLogTerm: upTo(term) };
    case 3:
      return { type: 'vote-response', term, granted: r() < 0.5 };
    case 4: {
      const count = below(r, 6);
      const prevLogIndex = Math.min(randomNat(r), MAX - count);
      const prevLogTerm = upTo(term);
      const entries: RaftEntry[] = [];
      let t = prevLogTerm;
      for (let k = 0; k < count; k++) {
        if (r() < 0.3) t += below(r, term - t + 1);
        const index = prevLogIndex + 1 + k;
        const kind = below(r, 3);
        if (kind === 0) entries.push({ index, term: t, kind: 'command', command: randomValue(r) });
        else if (kind === 1) entries.push({ index, term: t, kind: 'noop' });
        else entries.push({ index, term: t, kind: 'membership', members: randomMembers(r) });
      }
      return { type: 'append', term, prevLogIndex, prevLogTerm, entries, leaderCommit: randomNat(r), seq: randomNat(r) };
    }
    case 5:
      return { type: 'append-response', term, success: r() < 0.5, matchIndex: randomNat(r), hintIndex: randomNat(r), seq: randomNat(r) };
    case 6: {
      const lastIncludedIndex = randomNat(r);
      const snapshot: RaftSnapshot = { lastIncludedIndex, lastIncludedTerm: upTo(term), members: randomMembers(r), membersIndex: upTo(lastIncludedIndex), state: randomValue(r) };
      return { type: 'install-snapshot', term, snapshot, seq: randomNat(r) };
    }
    default:
      return { type: 'install-snapshot-response', term, matchIndex: randomNat(r), seq: randomNat(r) };
  }
}

type Mutable = null | boolean | number | string | Latin1 | Uint8Array | Mutable[] | { [k: string]: Mutable };

function clone(v: WireValue): Mutable {
  if (Array.isArray(v)) return (v as readonly WireValue[]).map(clone);
  if (v !== null && typeof v === 'object' && !(v instanceof Latin1) && !(v instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(v as Record<string, WireValue>).map(([k, x]) => [k, clone(x)]));
  }
  return v as Mutable;
}

/** Every array in the tree (the places a mutation can change, add or remove an item). */
function arrays(v: Mutable, out: Mutable[][] = []): Mutable[][] {
  if (Array.isArray(v)) {
    out.push(v);
    for (const x of v) arrays(x, out);
  } else if (v !== null && typeof v === 'object' && !(v instanceof Latin1) && !(v instanceof Uint8Array)) {
    for (const x of Object.values(v)) arrays(x, out);
  }
  return out;
}

/** Edge values a mutation puts in place of an item. */
const MUTANTS: readonly WireValue[] = [...SAMPLES, ...NOT_NAT, 0, 1, 2, 3, 7, MAX, '', 'm1', 'm2'];

/** One change somewhere in the tree: an item replaced, nudged, removed, repeated, swapped or added. */
function mutateOnce(root: Mutable[], r: Rand): void {
  const a = pick(r, arrays(root));
  const i = below(r, Math.max(1, a.length));
  const x = a[i];
  switch (below(r, 7)) {
    case 0:
      if (a.length > 0) a[i] = clone(r() < 0.7 ? pick(r, MUTANTS) : randomValue(r));
      return;
    case 1:
      if (typeof x === 'number') a[i] = x + pick(r, [1, -1, 2, -2, 0.5]);
      else if (a.length > 0) a[i] = clone(pick(r, MUTANTS));
      return;
    case 2:
      if (typeof x === 'number') a[i] = pick(r, [-x, x * 2, x + 2 ** 53, 0]);
      else if (typeof x === 'string') a[i] = pick(r, ['', 'm1', `${x}${x}`]);
      return;
    case 3:
      a.splice(i, 1);
      return;
    case 4:
      if (a.length > 0) a.splice(below(r, a.length + 1), 0, clone(a[i] as WireValue));
      return;
    case 5:
      if (a.length > 1) {
        const j = below(r, a.length);
        [a[i], a[j]] = [a[j] as Mutable, a[i] as Mutable];
      }
      return;
    default:
      a.push(clone(pick(r, MUTANTS)));
  }
}

/** What a peer could have sent: a valid message with 1 to 3 mutations, through the codec. */
function mutated(r: Rand): WireValue {
  const root = clone(encodeRaftMessage(randomMessage(r))) as Mutable[];
  const n = 1 + below(r, 3);
  for (let k = 0; k < n; k++) mutateOnce(root, r);
  return decodeValue(encodeValue(root as WireValue));
}

/** The rules RaftNode counts on, restated independently of the decoder. */
function keepsTheRules(m: RaftMessage): boolean {
  const nat = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;
  const nums = Object.values(m).filter((x): x is number => typeof x === 'number');
  if (!nums.every(nat)) return false;
  const okMembers = (l: readonly string[]): boolean => l.length >= 1 && l.length <= MAX_RAFT_MEMBERS && new Set(l).size === l.length && l.every((s) => typeof s === 'string' && s !== '');
  if (m.type === 'append') {
    let before = m.prevLogTerm;
    if (m.prevLogTerm > m.term || m.entries.length > MAX_RAFT_APPEND_ENTRIES) return false;
    return m.entries.every((e, k) => {
      const ok = e.index === m.prevLogIndex + 1 + k && nat(e.term) && e.term >= before && e.term <= m.term && (e.kind !== 'membership' || okMembers(e.members));
      before = e.term;
      return ok;
    });
  }
  if (m.type === 'install-snapshot') {
    const s = m.snapshot;
    return nat(s.lastIncludedIndex) && nat(s.lastIncludedTerm) && nat(s.membersIndex) && s.lastIncludedTerm <= m.term && s.membersIndex <= s.lastIncludedIndex && okMembers(s.members);
  }
  if (m.type === 'pre-vote' || m.type === 'vote') return m.lastLogTerm <= m.term;
  return true;
}

/** A follower that just started, receiving `m` from a fellow member. */
function freshFollowerReceives(m: RaftMessage, seed: number): void {
  const node = new RaftNode({ self: 'm1', initialMembers: ['m1', 'm2', 'm3'], random: prng(seed) });
  node.start(0);
  node.receive('m2', m as RaftMessage, 1);
}

describe('Raft messages: fuzz', () => {
  it('2000 random valid messages round-trip through the codec, and a fresh follower takes each', () => {
    const r = prng(20240611);
    for (let k = 0; k < 2000; k++) {
      const m = randomMessage(r);
      const back = viaWire(m);
      expect(back).toEqual(m);
      expect(bytesOf(back).equals(bytesOf(m))).toBe(true);
      freshFollowerReceives(back, k);
    }
  });

  it('5000 mutated messages: each decodes to one that re-encodes to the same bytes and keeps the rules, or is refused with BAD_REQUEST', () => {
    const r = prng(7);
    let accepted = 0;
    let refused = 0;
    for (let k = 0; k < 5000; k++) {
      const v = mutated(r);
      let m: RaftMessage;
      try {
        m = decodeRaftMessage(v);
      } catch (e) {
        if (!(e instanceof GridError) || e.code !== 'BAD_REQUEST' || !e.message.startsWith('malformed member message: ')) {
          throw new Error(`case ${k}: ${String(e)} for ${JSON.stringify(v)}`, { cause: e });
        }
        refused++;
        continue;
      }
      accepted++;
      if (!encodeValue(encodeRaftMessage(m)).equals(encodeValue(v))) throw new Error(`case ${k}: accepted but re-encodes differently: ${JSON.stringify(v)}`);
      if (!keepsTheRules(m)) throw new Error(`case ${k}: accepted a message that breaks the rules: ${JSON.stringify(v)}`);
      freshFollowerReceives(m, k);
    }
    // Both outcomes are exercised (a mutation can keep a message valid: a bool flipped to another bool, a number nudged within the rules).
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(3000);
  });

  it('3000 random values (any shape) are refused with BAD_REQUEST or decode to a message that re-encodes the same', () => {
    const r = prng(99);
    let accepted = 0;
    for (let k = 0; k < 3000; k++) {
      // Half of them start with a valid tag, so more of them get past the first check.
      const v: WireValue = r() < 0.5 ? [below(r, 8), ...Array.from({ length: below(r, 8) }, () => (r() < 0.5 ? randomNat(r) : randomValue(r)))] : randomValue(r);
      try {
        const m = decodeRaftMessage(v);
        accepted++;
        expect(encodeValue(encodeRaftMessage(m)).equals(encodeValue(v))).toBe(true);
      } catch (e) {
        if (!(e instanceof GridError) || e.code !== 'BAD_REQUEST') throw new Error(`case ${k}: ${String(e)}`, { cause: e });
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});

// ------------------------------------------------------------------ the CP messages (70-76)

// cp's view types are these, re-exported (as the Raft types above).
const VIEW_TYPES_PINNED: [Same<CpViewOfCp, C.CpView>, Same<CpMemberRecOfCp, C.CpMemberRec>, Same<CpGroupRecOfCp, C.CpGroupRec>] = [true, true, true];

/** How an envelope field is read, for choosing values of the wrong type. */
type CpKind = 'nat' | 'seed' | 'id' | 'optId' | 'bool' | 'str' | 'any' | 'invokeKind' | 'tag' | 'raft' | 'view' | 'members';

type CpField = VectorField<CpKind>;

interface CpVector extends PayloadVector<CpKind> {
  /** Frame kind (answers: Response). */
  readonly kind: number;
  readonly payload: object;
  /** The tuple cp-service.ts built inline before these pairs, written out by hand. */
  readonly legacy: WireValue;
}


const CPM = (i: number): C.CpMemberRec => ({ cpUuid: `cp-${i}`, memberUuid: `m-${i}`, address: `10.0.0.${i}:5701` });
const CPM_TUPLE = (i: number): WireValue => [`cp-${i}`, `m-${i}`, `10.0.0.${i}:5701`];
const VIEW: C.CpView = {
  seed: 123456789,
  version: 42,
  groupSize: 3,
  initialCpMembers: [CPM(1), CPM(2), CPM(3)],
  cpMembers: [CPM(1), CPM(3), CPM(4)],
  groups: [
    { name: 'METADATA', id: 0, initialMembers: ['cp-1', 'cp-2', 'cp-3'], members: ['cp-1', 'cp-3', 'cp-4'] },
    { name: 'default', id: 1, initialMembers: ['cp-1', 'cp-2', 'cp-3'], members: ['cp-1', 'cp-3', 'cp-4'] },
  ],
};
const VIEW_TUPLE: WireValue = [
  123456789,
  42,
  3,
  [CPM_TUPLE(1), CPM_TUPLE(2), CPM_TUPLE(3)],
  [CPM_TUPLE(1), CPM_TUPLE(3), CPM_TUPLE(4)],
  [
    ['METADATA', 0, ['cp-1', 'cp-2', 'cp-3'], ['cp-1', 'cp-3', 'cp-4']],
    ['default', 1, ['cp-1', 'cp-2', 'cp-3'], ['cp-1', 'cp-3', 'cp-4']],
  ],
];
const SEED = 123456789;
const INVOKE_FIELDS: readonly CpField[] = [
  { name: 'seed', kind: 'nat' },
  { name: 'groupId', kind: 'nat' },
  { name: 'kind', kind: 'invokeKind' },
  { name: 'body', kind: 'any' },
];
const RAFT_NAME = { name: 'raft message', kind: 'raft', orMatches: /^malformed member message: raft message tag is / } as const;

const CP_VECTORS: readonly CpVector[] = [
  {
    name: 'CpRaft',
    kind: FrameKind.OneWay,
    type: Msg.CpRaft,
    payload: { seed: SEED, groupId: 1, from: 'cp-1', to: 'cp-2', message: { type: 'vote', term: 5, lastLogIndex: 12, lastLogTerm: 4 } } satisfies C.CpRaftPayload,
    encode: C.encodeCpRaft,
    decode: C.decodeCpRaft,
    legacy: [SEED, 1, 'cp-1', 'cp-2', [2, 5, 12, 4]],
    hex: '0000004104004600000000080000000503075bcd150300000001050000000463702d31050000000463702d32080000000403000000020300000005030000000c0300000004',
    fields: [{ name: 'seed', kind: 'nat' }, { name: 'groupId', kind: 'nat' }, { name: 'from', kind: 'id' }, { name: 'to', kind: 'id' }, RAFT_NAME],
  },
  {
    name: 'CpRaft (an append with a command)',
    kind: FrameKind.OneWay,
    type: Msg.CpRaft,
    payload: { seed: SEED, groupId: 0, from: 'cp-1', to: 'cp-3', message: APPEND } satisfies C.CpRaftPayload,
    encode: C.encodeCpRaft,
    decode: C.decodeCpRaft,
    legacy: [SEED, 0, 'cp-1', 'cp-3', APPEND_WIRE],
    hex: '000000dc04004600000000080000000503075bcd150300000000050000000463702d31050000000463702d33080000000703000000040300000005030000000a030000000408000000030800000004030000000b030000000403000000000900000003000000026f700500000003616464000000046e616d650600000008636f756e746572ff0000000564656c746103fffffffd0800000003030000000c030000000503000000010800000004030000000d03000000050300000002080000000305000000026d3105000000026d3205000000026d34030000000a030000002a',
  },
  {
    name: 'CpInvoke (a command)',
    kind: FrameKind.Request,
    type: Msg.CpInvoke,
    payload: { seed: SEED, groupId: 1, kind: 'cmd', body: ['add', 'k-7', 'counter', '5'] } satisfies C.CpInvokePayload,
    encode: C.encodeCpInvoke,
    decode: C.decodeCpInvoke,
    legacy: [SEED, 1, 'cmd', ['add', 'k-7', 'counter', '5']],
    hex: '0000004501004700000007080000000403075bcd1503000000010500000003636d640800000004050000000361646405000000036b2d370500000007636f756e746572050000000135',
    fields: INVOKE_FIELDS,
  },
  {
    name: 'CpInvoke (a read)',
    kind: FrameKind.Request,
    type: Msg.CpInvoke,
    payload: { seed: SEED, groupId: 0, kind: 'read', body: ['metadata'] } satisfies C.CpInvokePayload,
    encode: C.encodeCpInvoke,
    decode: C.decodeCpInvoke,
    legacy: [SEED, 0, 'read', ['metadata']],
    hex: '0000003101004700000007080000000403075bcd150300000000050000000472656164080000000105000000086d65746164617461',
    fields: INVOKE_FIELDS,
  },
  {
    name: 'CpInvoke (a membership change)',
    kind: FrameKind.Request,
    type: Msg.CpInvoke,
    payload: { seed: SEED, groupId: 1, kind: 'change', body: ['add', 'cp-4'] } satisfies C.CpInvokePayload,
    encode: C.encodeCpInvoke,
    decode: C.decodeCpInvoke,
    legacy: [SEED, 1, 'change', ['add', 'cp-4']],
    hex: '0000003701004700000007080000000403075bcd15030000000105000000066368616e676508000000020500000003616464050000000463702d34',
  },
  {
    name: 'CpInvoke answer (ok)',
    kind: FrameKind.Response,
    type: 0,
    payload: { tag: 'ok', value: ['cp-1', 'cp-3', 'cp-4'] } satisfies C.CpInvokeAnswer,
    encode: C.encodeCpInvokeAnswer,
    decode: C.decodeCpInvokeAnswer,
    legacy: ['ok', ['cp-1', 'cp-3', 'cp-4']],
    hex: '0000003302000000000007080000000205000000026f6b0800000003050000000463702d31050000000463702d33050000000463702d34',
    fields: [
      { name: 'tag', kind: 'tag' },
      { name: 'value', kind: 'any' },
    ],
  },
  {
    name: 'CpInvoke answer (err)',
    kind: FrameKind.Response,
    type: 0,
    payload: { tag: 'err', code: 'NOT_FOUND', message: 'no CP group orders' } satisfies C.CpInvokeAnswer,
    encode: C.encodeCpInvokeAnswer,
    decode: C.decodeCpInvokeAnswer,
    legacy: ['err', 'NOT_FOUND', 'no CP group orders'],
    hex: '00000039020000000000070800000003050000000365727205000000094e4f545f464f554e4405000000126e6f2043502067726f7570206f7264657273',
    fields: [
      { name: 'tag', kind: 'tag' },
      { name: 'code', kind: 'id' },
      { name: 'message', kind: 'str' },
    ],
  },
  {
    name: 'CpInvoke answer (retry with a leader hint)',
    kind: FrameKind.Response,
    type: 0,
    payload: { tag: 'retry', reason: 'NOT_LEADER', hint: 'cp-3' } satisfies C.CpInvokeAnswer,
    encode: C.encodeCpInvokeAnswer,
    decode: C.decodeCpInvokeAnswer,
    legacy: ['retry', 'NOT_LEADER', 'cp-3'],
    hex: '0000002e02000000000007080000000305000000057265747279050000000a4e4f545f4c4541444552050000000463702d33',
    fields: [
      { name: 'tag', kind: 'tag' },
      { name: 'reason', kind: 'id' },
      { name: 'hint', kind: 'optId' },
    ],
    minLength: 2,
  },
  {
    name: 'CpInvoke answer (retry without a hint)',
    kind: FrameKind.Response,
    type: 0,
    payload: { tag: 'retry', reason: 'UNKNOWN_GROUP', hint: undefined } satisfies C.CpInvokeAnswer,
    encode: C.encodeCpInvokeAnswer,
    decode: C.decodeCpInvokeAnswer,
    legacy: ['retry', 'UNKNOWN_GROUP', null],
    hex: '0000002902000000000007080000000305000000057265747279050000000d554e4b4e4f574e5f47524f555000',
  },
  {
    name: 'CpView',
    kind: FrameKind.OneWay,
    type: Msg.CpView,
    payload: { view: VIEW } satisfies C.CpViewPayload,
    encode: C.encodeCpView,
    decode: C.decodeCpView,
    legacy: [VIEW_TUPLE],
    hex: '000001cc040048000000000800000001080000000603075bcd15030000002a030000000308000000030800000003050000000463702d3105000000036d2d31050000000d31302e302e302e313a353730310800000003050000000463702d3205000000036d2d32050000000d31302e302e302e323a353730310800000003050000000463702d3305000000036d2d33050000000d31302e302e302e333a3537303108000000030800000003050000000463702d3105000000036d2d31050000000d31302e302e302e313a353730310800000003050000000463702d3305000000036d2d33050000000d31302e302e302e333a353730310800000003050000000463702d3405000000036d2d34050000000d31302e302e302e343a353730310800000002080000000405000000084d4554414441544103000000000800000003050000000463702d31050000000463702d32050000000463702d330800000003050000000463702d31050000000463702d33050000000463702d340800000004050000000764656661756c7403000000010800000003050000000463702d31050000000463702d32050000000463702d330800000003050000000463702d31050000000463702d33050000000463702d34',
    fields: [{ name: 'view', kind: 'view' }],
  },
  {
    name: 'CpFetchView',
    kind: FrameKind.Request,
    type: Msg.CpFetchView,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'cp fetch view'), {}),
    legacy: [],
    hex: '0000000c010049000000070800000000',
  },
  {
    name: 'CpFetchView answer (a view)',
    kind: FrameKind.Response,
    type: 0,
    payload: { view: VIEW } satisfies C.CpFetchViewAnswer,
    encode: C.encodeCpFetchViewAnswer,
    decode: C.decodeCpFetchViewAnswer,
    legacy: VIEW_TUPLE,
    hex: '000001c702000000000007080000000603075bcd15030000002a030000000308000000030800000003050000000463702d3105000000036d2d31050000000d31302e302e302e313a353730310800000003050000000463702d3205000000036d2d32050000000d31302e302e302e323a353730310800000003050000000463702d3305000000036d2d33050000000d31302e302e302e333a3537303108000000030800000003050000000463702d3105000000036d2d31050000000d31302e302e302e313a353730310800000003050000000463702d3305000000036d2d33050000000d31302e302e302e333a353730310800000003050000000463702d3405000000036d2d34050000000d31302e302e302e343a353730310800000002080000000405000000084d4554414441544103000000000800000003050000000463702d31050000000463702d32050000000463702d330800000003050000000463702d31050000000463702d33050000000463702d340800000004050000000764656661756c7403000000010800000003050000000463702d31050000000463702d32050000000463702d330800000003050000000463702d31050000000463702d33050000000463702d34',
  },
  {
    name: 'CpFetchView answer (none yet)',
    kind: FrameKind.Response,
    type: 0,
    payload: { view: undefined } satisfies C.CpFetchViewAnswer,
    encode: C.encodeCpFetchViewAnswer,
    decode: C.decodeCpFetchViewAnswer,
    legacy: null,
    hex: '000000080200000000000700',
  },
  {
    name: 'CpDiscover',
    kind: FrameKind.Request,
    type: Msg.CpDiscover,
    payload: {},
    encode: P.encodeEmpty,
    decode: (v) => (P.decodeEmpty(v, 'cp discover'), {}),
    legacy: [],
    hex: '0000000c01004a000000070800000000',
  },
  {
    name: 'CpDiscover answer (before the subsystem forms)',
    kind: FrameKind.Response,
    type: 0,
    payload: { cpUuid: 'cp-1', seed: 0, leaving: false } satisfies C.CpDiscoverAnswer,
    encode: C.encodeCpDiscoverAnswer,
    decode: C.decodeCpDiscoverAnswer,
    legacy: ['cp-1', 0, false],
    hex: '0000001b020000000000070800000003050000000463702d31030000000001',
    fields: [
      { name: 'cpUuid', kind: 'id' },
      { name: 'seed', kind: 'nat' },
      { name: 'leaving', kind: 'bool' },
    ],
  },
  {
    name: 'CpDiscover answer (formed, shutting down)',
    kind: FrameKind.Response,
    type: 0,
    payload: { cpUuid: 'cp-1', seed: SEED, leaving: true } satisfies C.CpDiscoverAnswer,
    encode: C.encodeCpDiscoverAnswer,
    decode: C.decodeCpDiscoverAnswer,
    legacy: ['cp-1', SEED, true],
    hex: '0000001b020000000000070800000003050000000463702d3103075bcd1502',
  },
  {
    name: 'CpBootstrap',
    kind: FrameKind.Request,
    type: Msg.CpBootstrap,
    payload: { seed: SEED, groupSize: 3, members: [CPM(1), CPM(2), CPM(3)] } satisfies C.CpBootstrapPayload,
    encode: C.encodeCpBootstrap,
    decode: C.decodeCpBootstrap,
    legacy: [SEED, 3, [CPM_TUPLE(1), CPM_TUPLE(2), CPM_TUPLE(3)]],
    hex: '0000009301004b00000007080000000303075bcd15030000000308000000030800000003050000000463702d3105000000036d2d31050000000d31302e302e302e313a353730310800000003050000000463702d3205000000036d2d32050000000d31302e302e302e323a353730310800000003050000000463702d3305000000036d2d33050000000d31302e302e302e333a35373031',
    fields: [
      { name: 'seed', kind: 'seed' },
      { name: 'groupSize', kind: 'nat', orMatches: /^malformed member message: groupSize is \d+, not in \[1, 3\]/ },
      { name: 'members', kind: 'members' },
    ],
  },
  {
    name: 'CpReset',
    kind: FrameKind.Request,
    type: Msg.CpReset,
    payload: { seed: 0x7ffffffe } satisfies C.CpResetPayload,
    encode: C.encodeCpReset,
    decode: C.decodeCpReset,
    legacy: [0x7ffffffe],
    hex: '0000001101004c000000070800000001037ffffffe',
    fields: [{ name: 'seed', kind: 'seed' }],
  },
];

function cpConforms(kind: CpKind, v: WireValue): boolean {
  switch (kind) {
    case 'nat':
      return conforms('nat', v);
    case 'seed':
      return conforms('nat', v) && v !== 0;
    case 'id':
      return typeof v === 'string' && v !== '';
    case 'optId':
      return v === null || (typeof v === 'string' && v !== '');
    case 'bool':
      return typeof v === 'boolean';
    case 'str':
      return typeof v === 'string';
    case 'any':
      return true;
    case 'invokeKind':
      return v === 'cmd' || v === 'read' || v === 'change';
    case 'tag':
      return v === 'ok' || v === 'err' || v === 'retry';
    // Whole messages, views and member lists: the samples of the right type are not valid ones.
    case 'raft':
    case 'view':
    case 'members':
      return false;
  }
}

/** Refused with a message naming `field` (or a part of it), or matching its other right refusal. */
function expectNamesField(e: GridError, field: CpField): void {
  if (field.orMatches?.test(e.message) === true) return;
  expectNames(e, field.name);
}

describe('CP messages: the wire types', () => {
  it("mirror cp's CpView, CpMemberRec and CpGroupRec (checked by the compiler)", () => {
    expect(VIEW_TYPES_PINNED).toEqual([true, true, true]);
  });

  it("viewToWire and viewFromWire (cp-metadata-state.ts) are this module's pair", () => {
    const v: CpViewOfCp = VIEW;
    expect(viewToWire(v)).toEqual(C.encodeWireCpView(VIEW));
    expect(viewToWire(v)).toEqual(VIEW_TUPLE);
    expect(viewFromWire(VIEW_TUPLE)).toEqual(C.decodeWireCpView(VIEW_TUPLE));
    expect(refusal(() => viewFromWire([...(VIEW_TUPLE as WireValue[]), 1])).message).toBe('malformed member message: view has 7 items, expected 6');
  });
});

describe('CP messages: pinned frames', () => {
  for (const v of CP_VECTORS) {
    it(`${v.name}: encodes to the pinned bytes, the same as cp-service.ts's inline tuple did`, () => {
      const encoded = (v.encode as (p: object) => WireValue)(v.payload);
      expect(encoded).toEqual(v.legacy);
      expect(encodeFrame(v.kind, v.type, callIdOf(v.kind), encoded).toString('hex')).toBe(v.hex);
      expect(encodeFrame(v.kind, v.type, callIdOf(v.kind), v.legacy).toString('hex')).toBe(v.hex);
    });

    it(`${v.name}: read whole and one byte at a time, decodes to the payload`, () => {
      expectFrameDecodes(v.hex, v.kind, v.type, v.decode, v.payload);
    });

    it(`${v.name}: decode(encode(p)) is p, and re-encodes to the same bytes`, () => {
      expectRoundTrip(v.encode, v.decode, v.payload);
    });
  }

  it('every Cp* message of messages.ts has a pinned frame (and the answers of CpInvoke, CpFetchView and CpDiscover are pinned)', () => {
    const pinned = new Set(CP_VECTORS.filter((v) => v.kind !== FrameKind.Response).map((v) => v.type));
    const cp = Object.entries(Msg).filter(([name]) => name.startsWith('Cp'));
    expect(cp.map(([name]) => name)).toEqual(['CpRaft', 'CpInvoke', 'CpView', 'CpFetchView', 'CpDiscover', 'CpBootstrap', 'CpReset']);
    for (const [name, id] of cp) expect(pinned.has(id), name).toBe(true);
    const answers = new Set(CP_VECTORS.filter((v) => v.kind === FrameKind.Response).map((v) => v.decode));
    expect(answers).toEqual(new Set([C.decodeCpInvokeAnswer, C.decodeCpFetchViewAnswer, C.decodeCpDiscoverAnswer]));
  });
});

describe('CP messages: malformed input', () => {
  for (const v of CP_VECTORS) {
    if (v.fields === undefined) continue;
    const fields = v.fields;
    const full = asTuple(v.legacy);

    it(`${v.name}: not a tuple is refused`, () => {
      for (const s of SAMPLES) if (!Array.isArray(s)) expect(refusal(() => v.decode(s)).message).toMatch(/^malformed member message: /);
    });

    it(`${v.name}: a value of the wrong type at each field is refused, naming the field`, () => {
      fields.forEach((field, i) => {
        for (const s of [...SAMPLES, ...NOT_NAT, '', 0]) {
          if (cpConforms(field.kind, s)) continue;
          const t = [...full];
          t[i] = s;
          expectNamesField(refusal(() => v.decode(t)), field);
        }
      });
    });

    it(`${v.name}: a truncated tuple is refused naming the missing field; an optional trailing field may be left off`, () => {
      const min = v.minLength ?? fields.length;
      for (let n = 0; n < full.length; n++) {
        const t = full.slice(0, n);
        if (n < min) expectNamesField(refusal(() => v.decode(t)), fields[n]!);
        else expect(v.decode(t)).toEqual(v.decode([...t, ...full.slice(n).map(() => null)]));
      }
    });

    it(`${v.name}: extra trailing items are ignored (a later sender's fields)`, () => {
      expect(v.decode([...full, 'later', 1])).toEqual(v.decode(full));
    });
  }
});

describe('CP messages: the rules of each field', () => {
  const view = (): WireValue[] => asTuple(VIEW_TUPLE).map((x) => (Array.isArray(x) ? (x as WireValue[]).map((y) => (Array.isArray(y) ? [...(y as WireValue[])] : y)) : x));
  const viewRefused = (w: WireValue, pattern: RegExp): void => {
    expect(refusal(() => C.decodeWireCpView(w)).message).toMatch(pattern);
    expect(refusal(() => C.decodeCpView([w])).message).toMatch(pattern);
    expect(refusal(() => C.decodeCpFetchViewAnswer(w)).message).toMatch(pattern);
  };

  it('a view is exactly [seed, version, groupSize, initialCpMembers, cpMembers, groups], each field checked', () => {
    const good = view();
    expect(C.decodeWireCpView(good)).toEqual(VIEW);
    viewRefused([...good, null], /^malformed member message: view has 7 items, expected 6$/);
    const names = ['seed', 'version', 'groupSize', 'initialCpMembers', 'cpMembers', 'groups'];
    // A missing list reads as null (fields.ts's arr), a missing number as undefined.
    for (let n = 0; n < 6; n++) viewRefused(good.slice(0, n), new RegExp(`^malformed member message: view\\.${names[n]} is ${n < 3 ? 'undefined' : 'null'}$`));
    for (const i of [0, 1, 2]) {
      for (const x of [...SAMPLES.filter((s) => typeof s !== 'number'), ...NOT_NAT]) {
        const t = view();
        t[i] = x;
        expectNames(refusal(() => C.decodeWireCpView(t)), `view.${names[i]}`);
      }
    }
    for (const i of [3, 4, 5]) {
      for (const x of SAMPLES.filter((s) => !Array.isArray(s))) {
        const t = view();
        t[i] = x;
        expectNames(refusal(() => C.decodeWireCpView(t)), `view.${names[i]}`);
      }
    }
    // Empty lists and seed 0 are views too (a METADATA state read before a subsystem formed).
    expect(C.decodeWireCpView([0, 0, 0, [], [], []])).toEqual({ seed: 0, version: 0, groupSize: 0, initialCpMembers: [], cpMembers: [], groups: [] });
  });

  it("a view's CP members are exactly [cpUuid (not empty), memberUuid, address]", () => {
    const at = (m: WireValue): WireValue => {
      const t = view();
      t[4] = [CPM_TUPLE(1), m];
      return t;
    };
    viewRefused(at(['cp-2', 'm-2']), /^malformed member message: view\.cpMembers\[1\]\.address is undefined$/);
    viewRefused(at(['cp-2', 'm-2', 'a:1', 'x']), /^malformed member message: view\.cpMembers\[1\] has 4 items, expected 3$/);
    viewRefused(at(['', 'm-2', 'a:1']), /^malformed member message: view\.cpMembers\[1\]\.cpUuid is an empty string$/);
    viewRefused(at('cp-2'), /^malformed member message: view\.cpMembers\[1\] is string$/);
    viewRefused(at(['cp-2', 2, 'a:1']), /^malformed member message: view\.cpMembers\[1\]\.memberUuid is number$/);
    viewRefused(at(['cp-2', 'm-2', null]), /^malformed member message: view\.cpMembers\[1\]\.address is null$/);
  });

  it("a view's groups are exactly [name (not empty), id, initialMembers, members], members by cpUuid (not empty)", () => {
    const at = (g: WireValue): WireValue => {
      const t = view();
      t[5] = [['METADATA', 0, ['cp-1'], ['cp-1']], g];
      return t;
    };
    expect(C.decodeWireCpView(at(['g', 7, [], []])).groups[1]).toEqual({ name: 'g', id: 7, initialMembers: [], members: [] });
    viewRefused(at(['g', 7, []]), /^malformed member message: view\.groups\[1\]\.members is null$/);
    viewRefused(at(['g', 7, [], [], 'x']), /^malformed member message: view\.groups\[1\] has 5 items, expected 4$/);
    viewRefused(at(['', 7, [], []]), /^malformed member message: view\.groups\[1\]\.name is an empty string$/);
    for (const id of ['7', -1, 1.5, -0, 2 ** 53]) viewRefused(at(['g', id, [], []]), /^malformed member message: view\.groups\[1\]\.id is /);
    viewRefused(at(['g', 7, ['cp-1', 2], []]), /^malformed member message: view\.groups\[1\]\.initialMembers\[1\] is number$/);
    viewRefused(at(['g', 7, [], ['cp-1', '']]), /^malformed member message: view\.groups\[1\]\.members\[1\] is an empty string$/);
    viewRefused(at(['g', 7, 'cp-1', []]), /^malformed member message: view\.groups\[1\]\.initialMembers is string$/);
  });

  it('a Raft message inside CpRaft is checked by the Raft decoder', () => {
    expect(refusal(() => C.decodeCpRaft([SEED, 1, 'cp-1', 'cp-2', [2, 5, 12, 6]])).message).toBe("malformed member message: vote.lastLogTerm is 6, above the message's term 5");
    expect(refusal(() => C.decodeCpRaft([SEED, 1, 'cp-1', 'cp-2', [9]])).message).toBe('malformed member message: raft message tag is 9');
    expect(refusal(() => C.decodeCpRaft([SEED, 1, '', 'cp-2', [2, 5, 12, 4]])).message).toBe('malformed member message: from is an empty string');
  });

  it('CpInvoke: kind is cmd, read or change; the body may be any value but must be there', () => {
    for (const kind of ['CMD', 'write', '']) expect(refusal(() => C.decodeCpInvoke([SEED, 1, kind, null])).message).toMatch(/^malformed member message: kind is ".*", not one of cmd, read, change$/);
    for (const body of SAMPLES) expect(C.decodeCpInvoke([SEED, 1, 'read', body]).body).toEqual(body);
    expect(refusal(() => C.decodeCpInvoke([SEED, 1, 'read'])).message).toBe('malformed member message: body is undefined');
  });

  it("CpInvoke's answer: the tag decides the fields; an empty hint is refused, a null one is none", () => {
    expect(refusal(() => C.decodeCpInvokeAnswer(['OK', 1])).message).toBe('malformed member message: tag is "OK", not ok, err or retry');
    expect(refusal(() => C.decodeCpInvokeAnswer(['retry', 'NOT_LEADER', ''])).message).toBe('malformed member message: hint is an empty string');
    expect(C.decodeCpInvokeAnswer(['retry', 'NOT_LEADER'])).toEqual({ tag: 'retry', reason: 'NOT_LEADER', hint: undefined });
    expect(C.decodeCpInvokeAnswer(['ok', null])).toEqual({ tag: 'ok', value: null });
    expect(refusal(() => C.decodeCpInvokeAnswer(['err', '', 'x'])).message).toBe('malformed member message: code is an empty string');
    // An error code this member does not know still decodes (the CP service maps it to INTERNAL).
    expect(C.decodeCpInvokeAnswer(['err', 'SOME_LATER_CODE', 'x'])).toEqual({ tag: 'err', code: 'SOME_LATER_CODE', message: 'x' });
    expect(C.encodeCpInvokeAnswer({ tag: 'retry', reason: 'BUSY' })).toEqual(['retry', 'BUSY', null]);
  });

  it('CpFetchView answer: null is no view; anything else is a view, checked (and exact)', () => {
    expect(C.decodeCpFetchViewAnswer(null)).toEqual({ view: undefined });
    for (const s of SAMPLES) if (s !== null) expect(refusal(() => C.decodeCpFetchViewAnswer(s)).message).toMatch(/^malformed member message: view/);
  });

  it('CpBootstrap: 1..n CP members with distinct cpUuids, a group size of 1..n, a seed other than 0', () => {
    const members = [CPM_TUPLE(1), CPM_TUPLE(2), CPM_TUPLE(3)];
    expect(C.decodeCpBootstrap([SEED, 1, members]).groupSize).toBe(1);
    expect(C.decodeCpBootstrap([1, 3, members]).seed).toBe(1);
    expect(refusal(() => C.decodeCpBootstrap([SEED, 4, members])).message).toBe('malformed member message: groupSize is 4, not in [1, 3] (the members)');
    expect(refusal(() => C.decodeCpBootstrap([SEED, 0, members])).message).toBe('malformed member message: groupSize is 0, not in [1, 3] (the members)');
    expect(refusal(() => C.decodeCpBootstrap([SEED, 1, []])).message).toBe('malformed member message: members is empty');
    expect(refusal(() => C.decodeCpBootstrap([SEED, 2, [CPM_TUPLE(1), CPM_TUPLE(2), ['cp-1', 'm-9', 'a:1']]])).message).toBe('malformed member message: members[2].cpUuid repeats members[0].cpUuid');
    expect(refusal(() => C.decodeCpBootstrap([SEED, 2, [CPM_TUPLE(1), ['cp-2', 'm-2']]])).message).toBe('malformed member message: members[1].address is undefined');
    expect(refusal(() => C.decodeCpBootstrap([SEED, 2, [CPM_TUPLE(1), ['cp-2', 'm-2', 'a:1', 'x']]])).message).toBe('malformed member message: members[1] has 4 items, expected 3');
    expect(refusal(() => C.decodeCpBootstrap([0, 3, members])).message).toBe("malformed member message: seed is 0, not a CP subsystem's seed");
  });

  it("CpReset: the new seed is a safe integer other than 0", () => {
    expect(C.decodeCpReset([Number.MAX_SAFE_INTEGER])).toEqual({ seed: Number.MAX_SAFE_INTEGER });
    expect(refusal(() => C.decodeCpReset([0])).message).toBe("malformed member message: seed is 0, not a CP subsystem's seed");
    for (const x of NOT_NAT) expectNames(refusal(() => C.decodeCpReset([x])), 'seed');
  });

  it('CpRaft, CpInvoke and CpDiscover take seed 0 (a member that knows no subsystem)', () => {
    expect(C.decodeCpRaft([0, 0, 'cp-1', 'cp-2', [3, 1, true]]).seed).toBe(0);
    expect(C.decodeCpInvoke([0, 0, 'read', ['metadata']]).seed).toBe(0);
    expect(C.decodeCpDiscoverAnswer(['cp-1', 0, false]).seed).toBe(0);
  });
});
