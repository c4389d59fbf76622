// record-tuple.ts on its own: the compiled pair against a record written out by hand, the
// trimming of optional trailing fields, refusals naming the field, and a key that is not an
// identifier refused at declaration (only identifiers reach the compiled source).

import { describe, expect, it } from 'vitest';
import * as f from '../../../src/protocol/fields.js';
import { recordTuple } from '../../../src/protocol/record-tuple.js';
import { refusal } from '../../support/payload-vectors.js';

interface Sample {
  readonly name: string;
  readonly count: number;
  readonly note?: string;
  readonly level?: number;
}

const FIELDS = [
  ['name', f.str, 'sample name'],
  ['count', f.int, 'count'],
  ['note', f.optStr, 'note'],
  ['level', f.optInt, 'level'],
] as const;

describe('recordTuple', () => {
  const full = recordTuple<Sample>('sample', FIELDS);
  const trimmed = recordTuple<Sample>('sample', FIELDS, { trimOptional: true });

  it('encodes the fields in order, an undefined one as null; decodes them back', () => {
    expect(full.encode({ name: 'a', count: 2, note: 'n', level: 3 })).toEqual(['a', 2, 'n', 3]);
    expect(full.encode({ name: 'a', count: 2 })).toEqual(['a', 2, null, null]);
    expect(full.decode(['a', 2, 'n', 3])).toEqual({ name: 'a', count: 2, note: 'n', level: 3 });
    expect(full.decode(['a', 2, null])).toEqual({ name: 'a', count: 2, note: undefined, level: undefined });
  });

  it('with trimOptional, leaves undefined trailing fields off and sends an earlier one as null', () => {
    expect(trimmed.encode({ name: 'a', count: 2 })).toEqual(['a', 2]);
    expect(trimmed.encode({ name: 'a', count: 2, level: 1 })).toEqual(['a', 2, null, 1]);
    expect(trimmed.decode(['a', 2])).toEqual(full.decode(['a', 2, null, null]));
  });

  it('refuses a value of the wrong type naming the field, and a value that is not a tuple naming the tuple', () => {
    expect(refusal(() => full.decode(['a', 'x'])).message).toBe('malformed member message: count is string');
    expect(refusal(() => full.decode([1, 2])).message).toBe('malformed member message: sample name is number');
    expect(refusal(() => full.decode('a')).message).toBe('malformed member message: sample is string');
  });

  it('refuses a key that is not an identifier when the payload is declared', () => {
    expect(() => recordTuple<Record<string, string>>('bad', [['a-b', f.str, 'a']])).toThrow(/not an identifier/);
    expect(() => recordTuple<Record<string, string>>('bad', [['a; globalThis.x = 1', f.str, 'a']])).toThrow(/not an identifier/);
  });
});
