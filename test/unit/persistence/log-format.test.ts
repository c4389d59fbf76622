import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { decodeRecord, encodeRecord, LogOp, MAX_RECORD_BYTES, parseLog, RECORD_HEADER_BYTES, type LogRecord } from '../../../src/persistence/log-format.js';

const FILE = '/var/grid/member-a/seg-00000007.log';

/** Records with their values as hex, so Buffers, Uint8Arrays and views into a file compare equal. */
function plain(records: readonly LogRecord[]): unknown[] {
  return records.map((r) => (r.op === LogOp.Put ? { ...r, value: Buffer.from(r.value).toString('hex') } : { ...r }));
}

/** The records framed one after another, and where each starts. */
function logOf(records: readonly LogRecord[]): { buf: Buffer; starts: number[] } {
  const parts = records.map((r) => encodeRecord(r));
  const starts: number[] = [];
  let at = 0;
  for (const p of parts) {
    starts.push(at);
    at += p.length;
  }
  return { buf: Buffer.concat(parts), starts };
}

/** A deterministic byte stream (xorshift), for values that look like binary data. */
function pseudoRandomBytes(n: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

function thrown(f: () => unknown): GridError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    return e as GridError;
  }
  throw new Error('expected a GridError, nothing was thrown');
}

const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

/** One record of each op, some names and keys multi-byte in UTF-8. */
const SAMPLE: LogRecord[] = [
  { op: LogOp.Put, partitionId: 0, service: 'map', name: 'orders', key: 'k1', value: Buffer.from('{"a":1}') },
  { op: LogOp.Put, partitionId: 13, service: 'map', name: 'naïve-名前', key: 'ключ-🔑', value: ALL_BYTES },
  { op: LogOp.Remove, partitionId: 270, service: 'map', name: 'orders', key: 'k1' },
  { op: LogOp.Put, partitionId: 65535, service: 'queue', name: 'jobs', key: '', value: new Uint8Array(0) },
  { op: LogOp.Clear, partitionId: 42, service: 'queue', name: 'jobs' },
  { op: LogOp.DropPartition, partitionId: 13 },
  { op: LogOp.Put, partitionId: 1, service: 'map', name: 'tail', key: 'last', value: Buffer.from('the last record, long enough to be cut in many places') },
];

describe('log format: records', () => {
  // The exact bytes of one record of each op. If one of these changes, logs written by an
  // earlier version no longer read back: change the format on purpose (a new op, a version),
  // never by accident.
  const PINNED: [string, LogRecord, string][] = [
    [
      'put',
      { op: LogOp.Put, partitionId: 7, service: 'map', name: 'm', key: 'k', value: Uint8Array.from([1, 2, 0xff]) },
      // len 19, crc, op 1, partition 7, "map", "m", key "k", value 01 02 ff
      '13000000' + '6ba4dd5b' + '01' + '0700' + '0300' + '6d6170' + '0100' + '6d' + '01000000' + '6b' + '0102ff',
    ],
    [
      'remove',
      { op: LogOp.Remove, partitionId: 270, service: 'map', name: 'm', key: 'k' },
      '10000000' + '2501ab6c' + '02' + '0e01' + '0300' + '6d6170' + '0100' + '6d' + '01000000' + '6b',
    ],
    [
      'clear',
      { op: LogOp.Clear, partitionId: 0x1234, service: 'queue', name: 'q' },
      '11000000' + '7ef5b590' + '03' + '3412' + '0500' + '7175657565' + '0100' + '71' + '00000000',
    ],
    [
      'drop partition',
      { op: LogOp.DropPartition, partitionId: 65535 },
      '0b000000' + '31195673' + '04' + 'ffff' + '0000' + '0000' + '00000000',
    ],
  ];

  it.each(PINNED)('%s: pinned bytes, and they decode back', (_op, record, hex) => {
    const bytes = encodeRecord(record);
    expect(bytes.toString('hex')).toBe(hex);
    expect(plain([decodeRecord(bytes.subarray(RECORD_HEADER_BYTES), 'pinned')])).toEqual(plain([record]));
  });

  it('every op round-trips: unicode names and keys, all 256 byte values, empty key and value', () => {
    for (const r of SAMPLE) {
      const bytes = encodeRecord(r);
      expect(bytes.readUInt32LE(0)).toBe(bytes.length - RECORD_HEADER_BYTES);
      expect(plain([decodeRecord(bytes.subarray(RECORD_HEADER_BYTES), 'sample')])).toEqual(plain([r]));
    }
    const { buf } = logOf(SAMPLE);
    const parsed = parseLog(buf, FILE);
    expect(plain(parsed.records)).toEqual(plain(SAMPLE));
    expect(parsed).toMatchObject({ validBytes: buf.length, tornTail: false });
  });

  it('a big value round-trips byte for byte', () => {
    const value = pseudoRandomBytes(8 * 1024 * 1024 + 3);
    const r: LogRecord = { op: LogOp.Put, partitionId: 99, service: 'map', name: 'blobs', key: 'big', value };
    const parsed = parseLog(Buffer.concat([encodeRecord(r), encodeRecord(SAMPLE[0] as LogRecord)]), FILE);
    expect(parsed.records).toHaveLength(2);
    const back = parsed.records[0];
    expect(back?.op).toBe(LogOp.Put);
    if (back?.op !== LogOp.Put) return;
    expect(back.key).toBe('big');
    expect(Buffer.compare(Buffer.from(back.value), value)).toBe(0);
    expect(plain(parsed.records.slice(1))).toEqual(plain([SAMPLE[0] as LogRecord]));
  });

  it('a structure name longer than 65535 bytes is refused', () => {
    const e = thrown(() => encodeRecord({ op: LogOp.Clear, partitionId: 1, service: 'map', name: 'é'.repeat(40_000) }));
    expect(e.code).toBe('BAD_REQUEST');
  });

  it('decodeRecord: an unknown op is an error that says where the record is', () => {
    const payload = Buffer.from(encodeRecord({ op: LogOp.Clear, partitionId: 3, service: 'map', name: 'm' }).subarray(RECORD_HEADER_BYTES));
    payload[0] = 9;
    const e = thrown(() => decodeRecord(payload, `${FILE} at byte 1234`));
    expect(e.message).toContain(`${FILE} at byte 1234`);
    expect(e.message).toContain('op 9');
  });

  it('decodeRecord: a payload too short for its own fields is an error that says where', () => {
    const payload = encodeRecord({ op: LogOp.Remove, partitionId: 3, service: 'map', name: 'm', key: 'some-key' }).subarray(RECORD_HEADER_BYTES);
    expect(thrown(() => decodeRecord(payload.subarray(0, 5), 'here')).message).toMatch(/^here: malformed record \(too short\)/);
    expect(thrown(() => decodeRecord(payload.subarray(0, payload.length - 2), 'there')).message).toMatch(/^there: malformed record \(key\)/);
  });
});

describe('log format: parseLog', () => {
  const { buf, starts } = logOf(SAMPLE);
  const lastStart = starts[starts.length - 1] as number;

  it('an empty file has no records and no torn tail', () => {
    expect(parseLog(Buffer.alloc(0), FILE)).toEqual({ records: [], validBytes: 0, tornTail: false });
  });

  it('a file cut at any byte inside its last record: the earlier records, a torn tail, valid up to the record start', () => {
    const earlier = plain(SAMPLE.slice(0, -1));
    for (let cut = lastStart + 1; cut < buf.length; cut++) {
      const parsed = parseLog(buf.subarray(0, cut), FILE);
      expect({ cut, records: plain(parsed.records) }).toEqual({ cut, records: earlier });
      expect({ cut, validBytes: parsed.validBytes, tornTail: parsed.tornTail }).toEqual({ cut, validBytes: lastStart, tornTail: true });
    }
    // Cut exactly between records: nothing is torn.
    expect(parseLog(buf.subarray(0, lastStart), FILE)).toMatchObject({ validBytes: lastStart, tornTail: false });
  });

  it('zeros after the last record (a file system that extended the file but not its data) are a torn tail', () => {
    const parsed = parseLog(Buffer.concat([buf, Buffer.alloc(4096)]), FILE);
    expect(plain(parsed.records)).toEqual(plain(SAMPLE));
    expect(parsed).toMatchObject({ validBytes: buf.length, tornTail: true });
  });

  it('a last record whose payload is zeros (header written, data not) is a torn tail', () => {
    const damaged = Buffer.from(buf);
    damaged.fill(0, lastStart + RECORD_HEADER_BYTES);
    const parsed = parseLog(damaged, FILE);
    expect(plain(parsed.records)).toEqual(plain(SAMPLE.slice(0, -1)));
    expect(parsed).toMatchObject({ validBytes: lastStart, tornTail: true });
  });

  it('a bad last record (checksum or length) is a torn tail, not corruption', () => {
    for (const at of [lastStart, lastStart + 3, lastStart + 4, lastStart + RECORD_HEADER_BYTES, buf.length - 1]) {
      const damaged = Buffer.from(buf);
      damaged[at] = (damaged[at] as number) ^ 0xff;
      const parsed = parseLog(damaged, FILE);
      expect({ at, records: parsed.records.length, validBytes: parsed.validBytes, tornTail: parsed.tornTail }).toEqual({ at, records: SAMPLE.length - 1, validBytes: lastStart, tornTail: true });
    }
  });

  it('any one bit flipped in a record that valid records follow: a GridError naming the file and the byte offset of the record', () => {
    const middle = 2;
    const start = starts[middle] as number;
    const end = starts[middle + 1] as number;
    for (let at = start; at < end; at++) {
      for (let bit = 0; bit < 8; bit++) {
        const damaged = Buffer.from(buf);
        damaged[at] = (damaged[at] as number) ^ (1 << bit);
        let message: string;
        try {
          parseLog(damaged, FILE);
          message = 'no error';
        } catch (e) {
          expect(e).toBeInstanceOf(GridError);
          message = (e as GridError).message;
        }
        expect({ at, bit, message }).toEqual({ at, bit, message: expect.stringContaining(`persisted data file ${FILE} is corrupt at byte ${start} (`) as unknown });
      }
    }
  });

  it('a huge length in a record that valid records follow is corruption, whether or not it is one a record can have', () => {
    for (const len of [0xffffffff, MAX_RECORD_BYTES + 1, MAX_RECORD_BYTES, buf.length, 0, 5]) {
      const damaged = Buffer.from(buf);
      damaged.writeUInt32LE(len, starts[1] as number);
      const e = thrown(() => parseLog(damaged, FILE));
      expect(e.code).toBe('INTERNAL');
      expect(e.message).toContain(`${FILE} is corrupt at byte ${starts[1]} (record length ${len}`);
    }
  });

  it('a whole record with a good checksum but an unknown op says which file and where', () => {
    const payload = Buffer.from(encodeRecord({ op: LogOp.Clear, partitionId: 3, service: 'map', name: 'm' }).subarray(RECORD_HEADER_BYTES));
    payload[0] = 200;
    const header = Buffer.alloc(RECORD_HEADER_BYTES);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32Of(payload), 4);
    const first = encodeRecord(SAMPLE[0] as LogRecord);
    const e = thrown(() => parseLog(Buffer.concat([first, header, payload, first]), FILE));
    expect(e.message).toContain(`${FILE} at byte ${first.length}`);
    expect(e.message).toContain('op 200');
  });

  it('a torn tail of a large binary value is told from corruption quickly', () => {
    const value = pseudoRandomBytes(16 * 1024 * 1024, 12345);
    const full = Buffer.concat([buf, encodeRecord({ op: LogOp.Put, partitionId: 5, service: 'map', name: 'blobs', key: 'b', value })]);
    const started = Date.now();
    const parsed = parseLog(full.subarray(0, buf.length + 9 * 1024 * 1024), FILE);
    expect(parsed).toMatchObject({ validBytes: buf.length, tornTail: true });
    expect(parsed.records).toHaveLength(SAMPLE.length);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

/** CRC-32 (IEEE), written out here so the test does not lean on the code under test for it. */
function crc32Of(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
