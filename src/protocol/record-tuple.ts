// A payload that is a record sent as the tuple of its fields, in order: one declaration per
// payload (each field's key, its reader from fields.ts, and the name a refusal gives it) makes
// both its encoder and its decoder, so the payload modules say only their fields. The field
// list is compiled once, at module load, into an encoder and a decoder like hand-written ones
// (nothing made per message beyond the tuple and the record). Payloads with nested or
// conditional fields keep hand-written codecs.

import type { WireValue } from './codec.js';
import { tuple } from './fields.js';

/** Reads field `i` of tuple `t` (fields.ts: str, int, optStr, ...); refuses naming it `what`. */
export type FieldReader<V> = (t: readonly WireValue[], i: number, what: string) => V;

/** One field of payload `T`: its key, how it is read, and the name a refusal gives it. */
export type TupleField<T> = NonNullable<{ [K in keyof T]: readonly [key: K, read: FieldReader<T[K]>, name: string] }[keyof T]>;

export interface TupleCodec<T> {
  /** The tuple of `p`'s fields in order; an undefined (optional) field is sent as null. */
  readonly encode: (p: T) => WireValue;
  /** The record from a tuple; optional fields that are absent or null read as undefined. */
  readonly decode: (v: WireValue) => T;
}

/**
 * The codec pair of payload `T`, the tuple of `fields` (`what` names the tuple in a refusal).
 * `trimOptional`: undefined trailing fields are left off the tuple rather than sent as null,
 * for payloads whose later fields older senders do not send.
 *
 * The pair is compiled once per payload from the field list (as protobufjs compiles its
 * codecs), into the code one would write by hand: an array literal, and an object literal of
 * reader calls. One generic loop shared by every payload measured 3 to 15 times slower per
 * decode (bench/payload-decode.mjs: its property stores and reader calls go megamorphic), and a
 * member message's decode must not cost more than before. Only keys checked to be identifiers
 * and indexes reach the source text; readers and names are passed in as values.
 */
export function recordTuple<T>(what: string, fields: readonly TupleField<T>[], opts: { readonly trimOptional?: boolean } = {}): TupleCodec<T> {
  const keys = fields.map((field) => {
    const key = String(field[0]);
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) throw new Error(`record-tuple: ${JSON.stringify(key)} is not an identifier`);
    return key;
  });
  const readers = fields.map((field) => field[1]);
  const names = fields.map((field) => field[2]);
  const items = keys.map((k) => `p.${k} ?? null`).join(', ');
  const encodeBody = opts.trimOptional === true ? `return trim([${keys.map((k) => `p.${k}`).join(', ')}]);` : `return [${items}];`;
  const props = keys.map((k, i) => `${k}: r[${i}](t, ${i}, n[${i}])`).join(', ');
  // Compiled from the identifiers checked above, once per payload at module load.
  const make = new Function('tuple', 'what', 'r', 'n', 'trim', `return { encode: (p) => { ${encodeBody} }, decode: (v) => { const t = tuple(v, what); return { ${props} }; } };`) as (
    tupleOf: typeof tuple,
    what: string,
    r: readonly FieldReader<unknown>[],
    n: readonly string[],
    trim: typeof trimmed,
  ) => TupleCodec<T>;
  return make(tuple, what, readers, names, trimmed);
}

/** The tuple of `items`, optional trailing fields that are undefined left off, earlier ones sent as null. */
function trimmed(items: readonly unknown[]): WireValue[] {
  let n = items.length;
  while (n > 0 && items[n - 1] === undefined) n--;
  const out: WireValue[] = new Array<WireValue>(n);
  for (let i = 0; i < n; i++) out[i] = (items[i] ?? null) as WireValue;
  return out;
}
