// The binary batch form (application/vnd.grid.batch) on pinned bytes: a request read back into
// the entries that built it, every framing fault (bad magic, unknown op code, a length past the
// end, every truncation, bytes left over) one BAD_REQUEST with nothing returned, too many
// records a 413, entry faults 400 for that entry alone; the answer's layout pinned.

import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { BINARY_BATCH_TYPE, decodeBinaryResults, encodeBinaryBatch, encodeBinaryResults, isBinaryBatch, parseBinaryBatch, type BatchItem } from '../../../src/rest/batch-binary.js';
import { MAX_BATCH_ENTRIES } from '../../../src/rest/map-batch.js';
import { prng } from '../../support/prng.js';

function refusal(body: Buffer): GridError {
  try {
    parseBinaryBatch(body);
  } catch (e) {
    if (e instanceof GridError) return e;
    throw e;
  }
  throw new Error(`body ${body.toString('hex')} was accepted`);
}

const u32 = (n: number): string => n.toString(16).padStart(8, '0');
const MAGIC = Buffer.from('GRB1').toString('hex');

describe('parseBinaryBatch: well-formed bodies', () => {
  it('reads a pinned body: a get, a put with TTL and content type, a delete', () => {
    const hex = [
      MAGIC,
      u32(3),
      '01', u32(1), '6b', // get "k"
      '02', u32(2), '6b32', 'ffffffff', '0000', u32(2), '0001', // put "k2", default TTL, no type, bytes 00 01
      '03', u32(2), '6b33', // delete "k3"
    ].join('');
    expect(parseBinaryBatch(Buffer.from(hex, 'hex'))).toEqual([
      { kind: 'get', entry: 'k' },
      { kind: 'put', entry: { key: 'k2', value: '\x00\x01', contentType: undefined, ttlMs: -1 } },
      { kind: 'delete', entry: 'k3' },
    ]);
    const ttl = ['02', u32(1), '61', '0000001e', '000a', Buffer.from('text/plain').toString('hex'), u32(0)].join('');
    expect(parseBinaryBatch(Buffer.from(MAGIC + u32(1) + ttl, 'hex'))).toEqual([{ kind: 'put', entry: { key: 'a', value: '', contentType: 'text/plain', ttlMs: 30_000 } }]);
  });

  it('encodeBinaryBatch builds what the parser reads back (UTF-8 keys, binary values, 0 = never expires)', () => {
    const value = Buffer.from([0, 255, 128, 10]);
    const body = encodeBinaryBatch([
      { op: 'put', key: 'ключ', value, contentType: 'application/octet-stream', ttlSeconds: 0 },
      { op: 'get', key: 'ключ' },
      { op: 'delete', key: 'x' },
      { op: 'put', key: 'y', value: 'text', ttlSeconds: 2_147_483_647 },
    ]);
    expect(parseBinaryBatch(body)).toEqual([
      { kind: 'put', entry: { key: 'ключ', value: value.toString('latin1'), contentType: 'application/octet-stream', ttlMs: 0 } },
      { kind: 'get', entry: 'ключ' },
      { kind: 'delete', entry: 'x' },
      { kind: 'put', entry: { key: 'y', value: 'text', contentType: undefined, ttlMs: 2_147_483_647_000 } },
    ]);
  });

  it('an empty batch is no entries; the limit itself is accepted', () => {
    expect(parseBinaryBatch(Buffer.from(MAGIC + u32(0), 'hex'))).toEqual([]);
    const max = encodeBinaryBatch(Array.from({ length: MAX_BATCH_ENTRIES }, (_, i) => ({ op: 'get' as const, key: `k${i}` })));
    expect(parseBinaryBatch(max)).toHaveLength(MAX_BATCH_ENTRIES);
  });

  it('entry faults answer for that entry alone', () => {
    const body = encodeBinaryBatch([
      { op: 'get', key: '' },
      { op: 'put', key: 'a', value: 'v', contentType: 'bad\ttype' },
      { op: 'put', key: 'b', value: 'v', ttlSeconds: -2 },
      { op: 'put', key: 'c', value: 'v' },
      { op: 'delete', key: 'c' },
      { op: 'get', key: 'c' },
      { op: 'get', key: 'c' },
    ]);
    // A key that is not UTF-8: built by hand.
    const notUtf8 = Buffer.from(MAGIC + u32(1) + '01' + u32(2) + 'c328', 'hex');
    expect(parseBinaryBatch(body)).toEqual([
      { kind: 'get', entry: { invalid: 'key must not be empty', key: '' } },
      { kind: 'put', entry: { invalid: 'contentType must be printable ASCII', key: 'a' } },
      { kind: 'put', entry: { invalid: 'ttl must be -1 (the map default), 0 (never expires) or whole seconds up to 2147483647', key: 'b' } },
      { kind: 'put', entry: { key: 'c', value: 'v', contentType: undefined, ttlMs: -1 } },
      { kind: 'delete', entry: { invalid: 'key "c" is written more than once in this batch', key: 'c' } },
      { kind: 'get', entry: 'c' },
      { kind: 'get', entry: 'c' },
    ]);
    expect(parseBinaryBatch(notUtf8)).toEqual([{ kind: 'get', entry: { invalid: 'key is not valid UTF-8', key: undefined } }]);
  });
});

describe('parseBinaryBatch: framing faults refuse the whole body', () => {
  const good = encodeBinaryBatch([
    { op: 'put', key: 'k', value: 'value', contentType: 'text/plain', ttlSeconds: 5 },
    { op: 'get', key: 'g' },
    { op: 'delete', key: 'd' },
  ]);

  it('a wrong or missing magic', () => {
    for (const hex of ['', '4752', '47524232' + u32(0), '00000000' + u32(0)]) {
      const e = refusal(Buffer.from(hex, 'hex'));
      expect(e.code, hex).toBe('BAD_REQUEST');
      expect(e.message).toMatch(/must start with "GRB1".*nothing was applied/);
    }
  });

  it('every truncation of a good body is a BAD_REQUEST naming where', () => {
    for (let n = 4; n < good.length; n++) {
      const e = refusal(good.subarray(0, n));
      expect(e.code, `length ${n}`).toBe('BAD_REQUEST');
      expect(e.message, `length ${n}`).toMatch(/truncated.*nothing was applied/);
    }
  });

  it('bytes after the last record, an unknown op code, lengths past the end', () => {
    expect(refusal(Buffer.concat([good, Buffer.from([0])])).message).toMatch(/1 bytes after the last of 3 records/);
    const badOp = Buffer.from(good);
    badOp[8] = 9;
    expect(refusal(badOp).message).toMatch(/record 0 at byte 8 has op code 9/);
    // A key length of 4 GiB - 1.
    expect(refusal(Buffer.from(MAGIC + u32(1) + '01' + 'ffffffff' + '6b', 'hex')).message).toMatch(/record 0 key at byte 13 needs 4294967295 bytes, 1 left/);
    // A count the body cannot hold.
    expect(refusal(Buffer.from(MAGIC + u32(3) + '01' + u32(0), 'hex')).message).toMatch(/3 records cannot fit in 5 bytes/);
  });

  it('more records than the limit is a 413 before anything else is read', () => {
    const e = refusal(Buffer.from(MAGIC + u32(MAX_BATCH_ENTRIES + 1), 'hex'));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toBe(`batch of ${MAX_BATCH_ENTRIES + 1} entries exceeds the limit of ${MAX_BATCH_ENTRIES} entries per batch; nothing was applied`);
    expect(refusal(Buffer.from(MAGIC + 'ffffffff', 'hex')).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('2000 random mutations of a good body throw nothing but a GridError, and what parses is within the limit', () => {
    const rnd = prng(2500);
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.from(good);
      const flips = 1 + Math.floor(rnd() * 4);
      for (let j = 0; j < flips; j++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      const body = rnd() < 0.3 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
      let items: BatchItem[] | undefined;
      try {
        items = parseBinaryBatch(body);
      } catch (e) {
        if (!(e instanceof GridError)) throw new Error(`body ${body.toString('hex')} threw ${String(e)}`);
        expect(['BAD_REQUEST', 'PAYLOAD_TOO_LARGE']).toContain(e.code);
      }
      if (items !== undefined) expect(items.length).toBeLessThanOrEqual(MAX_BATCH_ENTRIES);
    }
  });
});

describe('the answer', () => {
  const items: BatchItem[] = [
    { kind: 'put', entry: { key: 'k', value: 'v', contentType: undefined, ttlMs: -1 } },
    { kind: 'get', entry: 'k' },
    { kind: 'delete', entry: { invalid: 'key must not be empty', key: '' } },
  ];
  const results = [
    { key: 'k', status: 201, version: 0 },
    { key: 'k', status: 200, value: '\x00\xff', contentType: 'text/plain', version: 7 },
    { key: '', status: 400, error: 'key must not be empty' },
  ];

  it('is pinned: op, status, version, key, content type, value (-1: none), error', () => {
    const hex = encodeBinaryResults(items, results).toString('hex');
    expect(hex).toBe(
      [
        MAGIC,
        u32(3),
        '02', '00c9', '0000000000000000', u32(1), '6b', '0000', 'ffffffff', u32(0),
        '01', '00c8', '0000000000000007', u32(1), '6b', '000a', Buffer.from('text/plain').toString('hex'), u32(2), '00ff', u32(0),
        '03', '0190', 'ffffffffffffffff', u32(0), '0000', 'ffffffff', u32(21), Buffer.from('key must not be empty').toString('hex'),
      ].join(''),
    );
  });

  it('reads back with decodeBinaryResults', () => {
    expect(decodeBinaryResults(encodeBinaryResults(items, results))).toEqual([
      { op: 2, status: 201, version: 0, key: 'k', contentType: undefined, value: undefined, error: undefined },
      { op: 1, status: 200, version: 7, key: 'k', contentType: 'text/plain', value: Buffer.from([0, 255]), error: undefined },
      { op: 3, status: 400, version: -1, key: '', contentType: undefined, value: undefined, error: 'key must not be empty' },
    ]);
  });
});

describe('isBinaryBatch', () => {
  it('takes the media type, with parameters and in any case; nothing else', () => {
    for (const ct of [BINARY_BATCH_TYPE, 'Application/VND.Grid.Batch', `${BINARY_BATCH_TYPE}; version=1`, ` ${BINARY_BATCH_TYPE} `]) expect(isBinaryBatch(ct), ct).toBe(true);
    for (const ct of [undefined, '', 'application/json', 'application/vnd.grid.batch+json', 'application/octet-stream']) expect(isBinaryBatch(ct), String(ct)).toBe(false);
  });
});
