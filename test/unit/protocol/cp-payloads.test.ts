// Raft messages on the member protocol (cp-payloads.ts). Every message type on pinned bytes:
// encoded to the tuple written out by hand and to a hex literal of its value bytes, decoded
// back from them. Round trips with edge values (0, 2^53 - 1, the entry and member caps, opaque
// values of every wire type). Each validation rule with the input it refuses and the field it
// names. Then a seeded fuzz: random valid messages, a few thousand mutations of them and
// random values; decode either returns a message that re-encodes to the same bytes (and that a
// fresh RaftNode takes without throwing) or throws GridError('BAD_REQUEST'), nothing else.

import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { RaftNode } from '../../../src/cp/raft.js';
import type { RaftEntry, RaftMessage, RaftSnapshot } from '../../../src/cp/raft-messages.js';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import {
  MAX_RAFT_APPEND_ENTRIES,
  MAX_RAFT_MEMBERS,
  decodeRaftMessage,
  encodeRaftMessage,
  type WireRaftEntry,
  type WireRaftMessage,
  type WireRaftSnapshot,
} from '../../../src/protocol/cp-payloads.js';
import { prng } from '../../support/prng.js';

// cp's types and their wire mirror are assignable both ways: a field added or renamed on one
// side only fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const TYPES_PINNED: [Same<RaftMessage, WireRaftMessage>, Same<RaftEntry, WireRaftEntry>, Same<RaftSnapshot, WireRaftSnapshot>] = [true, true, true];

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
  readonly message: WireRaftMessage;
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
const APPEND: WireRaftMessage = {
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
const SNAPSHOT: WireRaftSnapshot = { lastIncludedIndex: 100, lastIncludedTerm: 4, members: ['m1', 'm2', 'm3'], membersIndex: 13, state: STATE };
const SNAPSHOT_WIRE: WireValue = [100, 4, ['m1', 'm2', 'm3'], 13, STATE];
const INSTALL: WireRaftMessage = { type: 'install-snapshot', term: 5, snapshot: SNAPSHOT, seq: 44 };
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

/** One value of every wire type. */
const SAMPLES: readonly WireValue[] = [null, true, 42, 1.5, 'text', new Latin1('raw'), Buffer.from([1]), [], ['x'], { a: 1 }];
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

function refusal(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError && e.code === 'BAD_REQUEST') return e;
    throw new Error(`expected a BAD_REQUEST GridError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a BAD_REQUEST GridError, nothing was thrown');
}

/** Refused with a message that names the field (or a part of it: `name[1]`, `name.term`): `... <name> is ...`. */
function expectNames(e: GridError, name: string): void {
  expect(e.message, e.message).toMatch(new RegExp(`^malformed member message: ${name.replace(/[[\].]/g, '\\$&')}([.[][^ ]*)? is `));
}

/** decode refuses `v`; the message matches `pattern`. */
function expectRefused(v: WireValue, pattern: RegExp): void {
  const e = refusal(() => decodeRaftMessage(v));
  expect(e.message).toMatch(/^malformed member message: /);
  expect(e.message).toMatch(pattern);
}

const asTuple = (v: WireValue): WireValue[] => [...(v as readonly WireValue[])];
const bytesOf = (m: WireRaftMessage): Buffer => encodeValue(encodeRaftMessage(m));
/** Through the codec, as a peer's message arrives. */
const viaWire = (m: WireRaftMessage): WireRaftMessage => decodeRaftMessage(decodeValue(bytesOf(m)));
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
      for (let n = 0; n < bytes.length; n++) expect(refusal(() => decodeValue(bytes.subarray(0, n))).code).toBe('BAD_REQUEST');
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
    const zero: WireRaftMessage[] = [
      { type: 'pre-vote', term: 0, lastLogIndex: 0, lastLogTerm: 0 },
      { type: 'pre-vote-response', term: 0, preVoteTerm: 0, granted: false },
      { type: 'vote', term: 0, lastLogIndex: 0, lastLogTerm: 0 },
      { type: 'vote-response', term: 0, granted: false },
      { type: 'append', term: 0, prevLogIndex: 0, prevLogTerm: 0, entries: [{ index: 1, term: 0, kind: 'noop' }], leaderCommit: 0, seq: 0 },
      { type: 'append-response', term: 0, success: false, matchIndex: 0, hintIndex: 0, seq: 0 },
      { type: 'install-snapshot', term: 0, snapshot: { lastIncludedIndex: 0, lastIncludedTerm: 0, members: ['m'], membersIndex: 0, state: null }, seq: 0 },
      { type: 'install-snapshot-response', term: 0, matchIndex: 0, seq: 0 },
    ];
    const max: WireRaftMessage[] = [
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
    const entries: WireRaftEntry[] = opaque.map((command, i) => ({ index: 101 + i, term: 3, kind: 'command', command }));
    const append: WireRaftMessage = { type: 'append', term: 3, prevLogIndex: 100, prevLogTerm: 3, entries, leaderCommit: 100, seq: 1 };
    const back = viaWire(append);
    expect(bytesOf(back).equals(bytesOf(append))).toBe(true);
    expect(back.type === 'append' && back.entries.map((e) => (e.kind === 'command' ? e.command : undefined))).toEqual(opaque);
    for (const state of opaque) {
      const m: WireRaftMessage = { type: 'install-snapshot', term: 3, snapshot: { ...SNAPSHOT, lastIncludedTerm: 3, state }, seq: 2 };
      const got = viaWire(m);
      expect(bytesOf(got).equals(bytesOf(m))).toBe(true);
      expect(got.type === 'install-snapshot' && got.snapshot.state).toEqual(state);
    }
  });

  it(`an append of ${MAX_RAFT_APPEND_ENTRIES} entries, membership lists of ${MAX_RAFT_MEMBERS} ids`, () => {
    const entries = Array.from({ length: MAX_RAFT_APPEND_ENTRIES }, (_, k): WireRaftEntry => {
      const at = { index: 1 + k, term: 1 + Math.floor(k / 1000) };
      if (k % 3 === 0) return { ...at, kind: 'command', command: k };
      if (k % 3 === 1) return { ...at, kind: 'noop' };
      return { ...at, kind: 'membership', members: ids(1 + (k % MAX_RAFT_MEMBERS)) };
    });
    const append: WireRaftMessage = { type: 'append', term: 10, prevLogIndex: 0, prevLogTerm: 0, entries, leaderCommit: 0, seq: 1 };
    expect(viaWire(append)).toEqual(append);
    const full: WireRaftMessage = { type: 'install-snapshot', term: 1, snapshot: { ...SNAPSHOT, lastIncludedTerm: 1, members: ids(MAX_RAFT_MEMBERS) }, seq: 1 };
    expect(viaWire(full)).toEqual(full);
  });

  it('member ids may be any non-empty strings', () => {
    const members = ['a', ' ', '\u0000', 'caf\u00e9', '\u{1f600}', 'x'.repeat(1000), '550e8400-e29b-41d4-a716-446655440000'];
    const m: WireRaftMessage = { type: 'append', term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [{ index: 1, term: 1, kind: 'membership', members }], leaderCommit: 0, seq: 1 };
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
function randomMessage(r: Rand): WireRaftMessage {
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
      const entries: WireRaftEntry[] = [];
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
      const snapshot: WireRaftSnapshot = { lastIncludedIndex, lastIncludedTerm: upTo(term), members: randomMembers(r), membersIndex: upTo(lastIncludedIndex), state: randomValue(r) };
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
function keepsTheRules(m: WireRaftMessage): boolean {
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
function freshFollowerReceives(m: WireRaftMessage, seed: number): void {
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
      let m: WireRaftMessage;
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
