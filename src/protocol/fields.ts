// Reading message payloads (tuples of WireValues) with checks: a peer that sends the wrong
// shape gets a BAD_REQUEST error naming the field, never a TypeError deep in a service.

import { GridError } from '../core/errors.js';
import { Latin1, type WireValue } from './codec.js';

function bad(what: string, v: unknown): GridError {
  const shown = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return new GridError('BAD_REQUEST', `malformed member message: ${what} is ${shown}`);
}

export function tuple(v: WireValue, what: string): readonly WireValue[] {
  if (!Array.isArray(v)) throw bad(what, v);
  return v as readonly WireValue[];
}

export function str(t: readonly WireValue[], i: number, what: string): string {
  const v = t[i];
  if (typeof v !== 'string') throw bad(what, v);
  return v;
}

export function optStr(t: readonly WireValue[], i: number, what: string): string | undefined {
  const v = t[i];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(what, v);
  return v;
}

export function int(t: readonly WireValue[], i: number, what: string): number {
  const v = t[i];
  if (typeof v !== 'number' || !Number.isInteger(v)) throw bad(what, v);
  return v;
}

export function num(t: readonly WireValue[], i: number, what: string): number {
  const v = t[i];
  if (typeof v !== 'number') throw bad(what, v);
  return v;
}

export function bool(t: readonly WireValue[], i: number, what: string): boolean {
  const v = t[i];
  if (typeof v !== 'boolean') throw bad(what, v);
  return v;
}

export function latin1(t: readonly WireValue[], i: number, what: string): string {
  const v = t[i];
  if (!(v instanceof Latin1)) throw bad(what, v);
  return v.s;
}

export function arr(t: readonly WireValue[], i: number, what: string): readonly WireValue[] {
  return tuple(t[i] ?? null, what);
}

export function strings(t: readonly WireValue[], i: number, what: string): string[] {
  const a = arr(t, i, what);
  return a.map((_, j) => str(a, j, `${what}[${j}]`));
}

/** An integer, or undefined for null or a missing position (an optional trailing field). */
export function optInt(t: readonly WireValue[], i: number, what: string): number | undefined {
  const v = t[i];
  if (v === null || v === undefined) return undefined;
  return int(t, i, what);
}

/** A number, or undefined for null or a missing position (an optional trailing field). */
export function optNum(t: readonly WireValue[], i: number, what: string): number | undefined {
  const v = t[i];
  if (v === null || v === undefined) return undefined;
  return num(t, i, what);
}

export function ints(t: readonly WireValue[], i: number, what: string): number[] {
  const a = arr(t, i, what);
  return a.map((_, j) => int(a, j, `${what}[${j}]`));
}

/** A plain object of values by name (not an array, bytes or a Latin1 string). */
export function record(t: readonly WireValue[], i: number, what: string): Readonly<Record<string, WireValue>> {
  const v = t[i];
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array || v instanceof Latin1) throw bad(what, v);
  return v as Readonly<Record<string, WireValue>>;
}
