// The pure parsing of /grid/ write options: condition headers, durations, query parameters.

import { describe, expect, it } from 'vitest';
import { deadlineOf, etagOf, notModified, parseDurationMs, parseTag, parseWriteOptions, queryOf, writeCondition } from '../../../src/rest/conditions.js';

const none = { ifMatch: undefined, ifNoneMatch: undefined, ttl: undefined, maxIdle: undefined };

describe('condition headers', () => {
  it('parses * and one strong quoted u32, with surrounding spaces', () => {
    expect(parseTag('*', 'If-Match')).toEqual({ any: true });
    expect(parseTag(' "0" ', 'If-Match')).toEqual({ any: false, version: 0 });
    expect(parseTag('"4294967295"', 'If-Match')).toEqual({ any: false, version: 4294967295 });
    expect(etagOf(17)).toBe('"17"');
    expect(parseTag(etagOf(17), 'If-Match')).toEqual({ any: false, version: 17 });
  });

  it.each(['', '0', '"-1"', '"1.5"', 'W/"1"', '"1", "2"', '"4294967296"', '"99999999999"', '"a"', '**', '"1'])('refuses %j with a 400 naming the header', (raw) => {
    expect(() => parseTag(raw, 'If-Match')).toThrow(/If-Match/);
    try {
      parseTag(raw, 'If-Match');
    } catch (e) {
      expect((e as { code: string }).code).toBe('BAD_REQUEST');
    }
  });

  it('maps headers to the owner-side conditions', () => {
    expect(writeCondition(undefined, undefined, false)).toBeUndefined();
    expect(writeCondition('"3"', undefined, false)).toEqual({ kind: 'version', version: 3 });
    expect(writeCondition('*', undefined, false)).toEqual({ kind: 'present' });
    expect(writeCondition(undefined, '*', false)).toEqual({ kind: 'absent' });
    expect(writeCondition('"3"', undefined, true)).toEqual({ kind: 'version', version: 3 });
    expect(writeCondition('*', undefined, true)).toEqual({ kind: 'present' });
    expect(() => writeCondition('"3"', '*', false)).toThrow(/together/);
    expect(() => writeCondition(undefined, '"3"', false)).toThrow(/only \*/);
    expect(() => writeCondition(undefined, '*', true)).toThrow(/DELETE/);
  });

  it('If-None-Match on GET: * matches any entry, a tag its version only', () => {
    expect(notModified('*', 9)).toBe(true);
    expect(notModified('"9"', 9)).toBe(true);
    expect(notModified('"8"', 9)).toBe(false);
    expect(() => notModified('9', 9)).toThrow(/If-None-Match/);
  });
});

describe('durations', () => {
  it.each([
    ['0', 0],
    ['30', 30_000],
    ['30s', 30_000],
    ['500ms', 500],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    [' 7s ', 7_000],
  ])('%j is %d ms', (raw, ms) => {
    expect(parseDurationMs(raw, '?ttl')).toBe(ms);
  });

  it.each(['', '-1', '1.5s', '5y', 's', '1 s', '1e3', '0x10', '36501d', '9999999999999999'])('refuses %j', (raw) => {
    expect(() => parseDurationMs(raw, '?ttl')).toThrow(/\?ttl/);
  });
});

describe('write options', () => {
  it('reads ttl and maxIdle from the query or the headers, -1 when absent', () => {
    expect(parseWriteOptions('', none, false)).toEqual({ condition: undefined, ttlMs: -1, maxIdleMs: -1 });
    expect(parseWriteOptions('ttl=30s&maxIdle=1m', none, false)).toEqual({ condition: undefined, ttlMs: 30_000, maxIdleMs: 60_000 });
    expect(parseWriteOptions('', { ...none, ttl: '0', maxIdle: '10', ifMatch: '"2"' }, false)).toEqual({
      condition: { kind: 'version', version: 2 },
      ttlMs: 0,
      maxIdleMs: 10_000,
    });
  });

  it('ignores other parameters; refuses repeated or doubly given ones and TTLs on DELETE', () => {
    expect(parseWriteOptions('_=123&x=%zz', none, false)).toEqual({ condition: undefined, ttlMs: -1, maxIdleMs: -1 });
    expect(parseWriteOptions('_=1', none, true)).toEqual({ condition: undefined, ttlMs: -1, maxIdleMs: -1 });
    expect(() => parseWriteOptions('ttl=3&ttl=4', none, false)).toThrow(/2 times/);
    expect(() => parseWriteOptions('ttl=3', { ...none, ttl: '3' }, false)).toThrow(/both/);
    expect(() => parseWriteOptions('ttl=3', none, true)).toThrow(/DELETE/);
    expect(() => parseWriteOptions('', { ...none, maxIdle: '3' }, true)).toThrow(/DELETE/);
    expect(parseWriteOptions('', { ...none, ifMatch: '*' }, true)).toEqual({ condition: { kind: 'present' }, ttlMs: -1, maxIdleMs: -1 });
  });

  it('takes the query string of a request target', () => {
    expect(queryOf('/grid/rest/maps/m/k')).toBe('');
    expect(queryOf('/grid/rest/maps/m/k?ttl=1')).toBe('ttl=1');
  });
});

describe('deadline', () => {
  it('is the earlier of the TTL deadline and the idle deadline, 0 when neither applies', () => {
    expect(deadlineOf(0, 1000, 0)).toBe(0);
    expect(deadlineOf(5000, 1000, 0)).toBe(5000);
    expect(deadlineOf(0, 1000, 500)).toBe(1500);
    expect(deadlineOf(5000, 1000, 10_000)).toBe(5000);
    expect(deadlineOf(5000, 1000, 100)).toBe(1100);
  });
});
