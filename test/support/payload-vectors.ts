// The one payload vector runner the member, WAN and CP codec tests share: values of every wire
// type to feed a decoder at the wrong place, the check that a decoder refuses with a
// BAD_REQUEST that names the field, and the checks every pinned vector goes through (its frame
// read back whole and one byte at a time; a round trip through the value codec; every shorter
// prefix of its bytes refused). The vectors themselves, and the kinds of field only one file
// knows, stay in each test file.

import { expect } from 'vitest';
import { GridError } from '../../src/core/errors.js';
import { Latin1, decodeValue, encodeValue, type WireValue } from '../../src/protocol/codec.js';
import { FrameKind, FrameReader, type Frame } from '../../src/protocol/frame.js';

/** A top-level field of a payload, as decode errors name it, and how it is read (`K`: the test file's kinds). */
export interface VectorField<K extends string> {
  readonly name: string;
  readonly kind: K;
  /** Another refusal that is right for this field (its own wording, not `<name> is <type>`). */
  readonly orMatches?: RegExp;
}

/** What every pinned payload vector has; each test file adds how its tuple is written out. */
export interface PayloadVector<K extends string> {
  /** Test name. */
  readonly name: string;
  /** Message type (answers: type 0). */
  readonly type: number;
  readonly encode: (p: never) => WireValue;
  readonly decode: (v: WireValue) => unknown;
  /** encodeFrame(kind, type, callId, tuple) as hex (or the value's bytes, for a nested value). */
  readonly hex: string;
  /** The top-level fields in order, as decode errors name them. */
  readonly fields?: readonly VectorField<K>[];
  /** Shortest tuple that still decodes (the rest is optional); default: all fields. */
  readonly minLength?: number;
  /** Lengths below minLength whose error names another field than the missing one (the decoder reads that one first). */
  readonly truncNames?: Readonly<Record<number, string>>;
}

/** One value of every wire type. */
export const SAMPLES: readonly WireValue[] = [null, true, 42, 1.5, 'text', new Latin1('raw'), Uint8Array.of(1), [], ['x'], { a: 1 }];

/** The call id a pinned frame carries: 0 on a one-way message, 7 on the rest. */
export const callIdOf = (kind: number): number => (kind === FrameKind.OneWay ? 0 : 7);

/** A copy of a tuple, to put a wrong value in. */
export const asTuple = (v: WireValue): WireValue[] => [...(v as readonly WireValue[])];

/** Field kinds more than one codec has; each test file adds its own. */
export type CommonKind = 'str' | 'optStr' | 'int' | 'optInt' | 'num' | 'optNum' | 'bool' | 'arr' | 'anyArr' | 'strArr' | 'optStrArr' | 'optTuple' | 'obj' | 'latin1' | 'int32Bytes';

/** Whether `v` is a right value for a field of `kind` (undefined: not a common kind). */
export function conformsCommon(kind: string, v: WireValue | undefined): boolean | undefined {
  const isArr = Array.isArray(v);
  const isInt = typeof v === 'number' && Number.isInteger(v);
  const isStrArr = isArr && (v as readonly WireValue[]).every((x) => typeof x === 'string');
  switch (kind) {
    case 'str':
      return typeof v === 'string';
    case 'optStr':
      return v === null || typeof v === 'string';
    case 'int':
      return isInt;
    case 'optInt':
      return v === null || isInt;
    case 'num':
      return typeof v === 'number';
    case 'optNum':
      return v === null || typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    // An array of the wrong items fails inside; only its emptiness conforms for sure.
    case 'arr':
      return isArr && (v as readonly WireValue[]).length === 0;
    case 'anyArr':
      return isArr;
    case 'strArr':
      return isStrArr;
    case 'optStrArr':
      return v === null || isStrArr;
    case 'optTuple':
      return v === null || (isArr && (v as readonly WireValue[]).length === 0);
    case 'obj':
      return typeof v === 'object' && v !== null && !isArr && !(v instanceof Latin1) && !(v instanceof Uint8Array);
    case 'latin1':
      return v instanceof Latin1;
    case 'int32Bytes':
      return v instanceof Uint8Array && v.length % 4 === 0;
    default:
      return undefined;
  }
}

/** The BAD_REQUEST GridError `fn` throws; fails the test on anything else, or on no throw. */
export function refusal(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError && e.code === 'BAD_REQUEST') return e;
    throw new Error(`expected a BAD_REQUEST GridError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a BAD_REQUEST GridError, nothing was thrown');
}

/** `<name> is ` with `name` taken literally, or a part of it (`name[1]`, `name.uuid`). */
export const fieldIs = (name: string): string => `${name.replace(/[[\].]/g, '\\$&')}([.[][^ ]*)? is `;

/**
 * The error must name the field (or a part of it): `... <name> is <type or value>`, or match
 * `or` (another refusal that is right for this field).
 */
export function expectNames(e: GridError, name: string, or?: RegExp): void {
  if (or?.test(e.message) === true) return;
  expect(e.message, e.message).toMatch(new RegExp(`(^|: )${fieldIs(name)}`));
}

/** The pinned frame `hex`, read whole and one byte at a time, is one frame that decodes to `payload`. */
export function expectFrameDecodes(hex: string, kind: number, type: number, decode: (v: WireValue) => unknown, payload: unknown): void {
  const bytes = Buffer.from(hex, 'hex');
  const whole = new FrameReader().push(bytes);
  const bytewise: Frame[] = [];
  const r = new FrameReader();
  for (let i = 0; i < bytes.length; i++) bytewise.push(...r.push(bytes.subarray(i, i + 1)));
  for (const frames of [whole, bytewise]) {
    expect(frames).toHaveLength(1);
    const f = frames[0]!;
    expect([f.kind, f.type, f.callId]).toEqual([kind, type, callIdOf(kind)]);
    expect(decode(f.payload)).toEqual(payload);
  }
}

/** Every proper prefix of a value's bytes is refused by the value codec. */
export function expectPrefixesRefused(bytes: Buffer): void {
  for (let n = 0; n < bytes.length; n++) expect(refusal(() => decodeValue(bytes.subarray(0, n))).code).toBe('BAD_REQUEST');
}

/** decode(encode(p)) is p, and encode(decode(bytes)) gives the same bytes. */
export function expectRoundTrip(encode: (p: never) => WireValue, decode: (v: WireValue) => unknown, payload: unknown): void {
  const enc = encode as (p: unknown) => WireValue;
  const encoded = enc(payload);
  const back = decode(decodeValue(encodeValue(encoded)));
  expect(back).toEqual(payload);
  expect(encodeValue(enc(back)).equals(encodeValue(encoded))).toBe(true);
}
