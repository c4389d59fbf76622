// A payload that is a record sent as the tuple of its fields, in order: one declaration per
// payload (each field's key, its reader from fields.ts, and the name a refusal gives it) makes
// both its encoder and its decoder, so the payload modules say only their fields. The field
// list is read once, at module load; encode and decode walk it with no closure or array made
// per message beyond the tuple and the record themselves. Payloads with nested or conditional
// fields keep hand-written codecs.

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
 */
export function recordTuple<T>(what: string, fields: readonly TupleField<T>[], opts: { readonly trimOptional?: boolean } = {}): TupleCodec<T> {
  const n = fields.length;
  const trim = opts.trimOptional === true;
  // Arrow properties, not methods: payload modules export them destructured.
  return {
    encode: (p: T): WireValue => {
      let len = n;
      if (trim) while (len > 0 && p[fields[len - 1]![0]] === undefined) len--;
      const out = new Array<WireValue>(len);
      for (let i = 0; i < len; i++) out[i] = (p[fields[i]![0]] ?? null) as WireValue;
      return out;
    },
    decode: (v: WireValue): T => {
      const t = tuple(v, what);
      const out: Partial<Record<keyof T, unknown>> = {};
      for (let i = 0; i < n; i++) {
        const field = fields[i]!;
        out[field[0]] = field[1](t, i, field[2]);
      }
      return out as T;
    },
  };
}
