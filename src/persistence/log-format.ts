// The on-disk format of a member's log (pure: no I/O). A log is a sequence of records, each
// framed as [u32 payload length][u32 CRC-32 of the payload][payload], little endian. A record
// says what happened in one partition: a put (key -> value bytes) or remove of one entry of
// one data structure, a clear of a structure, or the drop of the whole partition (it moved
// away). Replaying the logs in order gives the content of every partition.
// A torn last record (a crash mid-write) is detected by its length or CRC and ignored; a bad
// record followed by good ones means the file is corrupt, reported by name and offset.

import { crc32 } from 'node:zlib';
import { GridError } from '../core/errors.js';

export const RECORD_HEADER_BYTES = 8;
/** No single record is larger (a value is at most grid.rest.max-body-bytes, 64 MiB by default). */
export const MAX_RECORD_BYTES = 1024 * 1024 * 1024;

export const enum LogOp {
  Put = 1,
  Remove = 2,
  Clear = 3,
  /** Everything of the partition is gone from this member (migrated away, or replaced by a copy that follows). */
  DropPartition = 4,
}

/** One change in one partition: of an entry of a data structure (a map or a queue), of a structure, or of the partition. */
export type LogRecord =
  | { readonly op: LogOp.Put; readonly partitionId: number; readonly service: string; readonly name: string; readonly key: string; readonly value: Uint8Array }
  | { readonly op: LogOp.Remove; readonly partitionId: number; readonly service: string; readonly name: string; readonly key: string }
  | { readonly op: LogOp.Clear; readonly partitionId: number; readonly service: string; readonly name: string }
  | { readonly op: LogOp.DropPartition; readonly partitionId: number };

/** Payload: [u8 op][u16 partition][u16 service len][service utf8][u16 name len][name utf8][u32 key len][key utf8][value bytes (put: the rest)]. */
export function encodeRecord(r: LogRecord): Buffer {
  const service = r.op === LogOp.DropPartition ? EMPTY : Buffer.from(r.service, 'utf8');
  const name = r.op === LogOp.DropPartition ? EMPTY : Buffer.from(r.name, 'utf8');
  const key = r.op === LogOp.Put || r.op === LogOp.Remove ? Buffer.from(r.key, 'utf8') : EMPTY;
  const value = r.op === LogOp.Put ? r.value : EMPTY;
  if (service.length > 0xffff || name.length > 0xffff) throw new GridError('BAD_REQUEST', 'persisted structure name longer than 65535 bytes');
  const payloadBytes = 1 + 2 + 2 + service.length + 2 + name.length + 4 + key.length + value.length;
  if (payloadBytes > MAX_RECORD_BYTES) throw new GridError('PAYLOAD_TOO_LARGE', `record of ${payloadBytes} bytes is larger than ${MAX_RECORD_BYTES}`);
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payloadBytes);
  let at = RECORD_HEADER_BYTES;
  out[at++] = r.op;
  out.writeUInt16LE(r.partitionId, at);
  at += 2;
  out.writeUInt16LE(service.length, at);
  at += 2;
  at += service.copy(out, at);
  out.writeUInt16LE(name.length, at);
  at += 2;
  at += name.copy(out, at);
  out.writeUInt32LE(key.length, at);
  at += 4;
  at += key.copy(out, at);
  out.set(value, at);
  out.writeUInt32LE(payloadBytes, 0);
  out.writeUInt32LE(crc32(out.subarray(RECORD_HEADER_BYTES)), 4);
  return out;
}

export function decodeRecord(payload: Uint8Array, where: string): LogRecord {
  const b = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const bad = (why: string): GridError => new GridError('INTERNAL', `${where}: malformed record (${why})`);
  if (b.length < MIN_PAYLOAD_BYTES) throw bad('too short');
  let at = 0;
  const op = b[at++] as number;
  const partitionId = b.readUInt16LE(at);
  at += 2;
  const serviceLen = b.readUInt16LE(at);
  at += 2;
  if (at + serviceLen + 2 > b.length) throw bad('service name');
  const service = b.toString('utf8', at, at + serviceLen);
  at += serviceLen;
  const nameLen = b.readUInt16LE(at);
  at += 2;
  if (at + nameLen + 4 > b.length) throw bad('structure name');
  const name = b.toString('utf8', at, at + nameLen);
  at += nameLen;
  const keyLen = b.readUInt32LE(at);
  at += 4;
  if (at + keyLen > b.length) throw bad('key');
  const key = b.toString('utf8', at, at + keyLen);
  at += keyLen;
  switch (op) {
    case LogOp.Put:
      return { op, partitionId, service, name, key, value: b.subarray(at) };
    case LogOp.Remove:
      return { op, partitionId, service, name, key };
    case LogOp.Clear:
      return { op, partitionId, service, name };
    case LogOp.DropPartition:
      return { op, partitionId };
  }
  throw bad(`op ${op}`);
}

export interface ParsedLog {
  readonly records: LogRecord[];
  /** Bytes of whole, valid records from the start: a writer appends after truncating to this. */
  readonly validBytes: number;
  /** The file ended inside a record (or with a bad last record): a crash mid-write, ignored. */
  readonly tornTail: boolean;
}

/**
 * Parse a whole log. A record whose length runs past the end, or whose CRC fails while
 * nothing valid follows it, is a torn tail (ignored); a bad record with valid records after it
 * is corruption (thrown, naming `file` and the offset).
 */
export function parseLog(buf: Buffer, file: string): ParsedLog {
  const records: LogRecord[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + RECORD_HEADER_BYTES > buf.length) return { records, validBytes: at, tornTail: true };
    const len = buf.readUInt32LE(at);
    const crc = buf.readUInt32LE(at + 4);
    const end = at + RECORD_HEADER_BYTES + len;
    if (len < MIN_PAYLOAD_BYTES || len > MAX_RECORD_BYTES || end > buf.length) {
      // A length no record can have, or one that runs past the end: the write of this record
      // was cut short (or the file system left zeros), unless whole records follow it (then
      // the length itself is damaged: a torn tail cut here would drop those records).
      if (followedByRecord(buf, at)) throw corrupt(file, at, end > buf.length ? `record length ${len} runs past the end of the file` : `record length ${len}`);
      return { records, validBytes: at, tornTail: true };
    }
    const payload = buf.subarray(at + RECORD_HEADER_BYTES, end);
    if (crc32(payload) !== crc) {
      // Anywhere after, not only at `end`: the damaged byte may be in the length.
      if (followedByRecord(buf, at)) throw corrupt(file, at, 'checksum mismatch');
      return { records, validBytes: at, tornTail: true };
    }
    records.push(decodeRecord(payload, `${file} at byte ${at}`));
    at = end;
  }
  return { records, validBytes: at, tornTail: false };
}

/** Whether a whole, valid record starts anywhere after `at` (so the bad bytes at `at` are not a torn end). */
function followedByRecord(buf: Buffer, at: number): boolean {
  for (let i = at + 1; i + RECORD_HEADER_BYTES <= buf.length; i++) if (hasValidRecordAfter(buf, i)) return true;
  return false;
}

/**
 * Whether a whole record with a good CRC starts at `at` (corruption in the middle vs a torn end).
 * The fields are checked first (cheap), so scanning the tail of a large torn value does not
 * compute a CRC at almost every byte.
 */
function hasValidRecordAfter(buf: Buffer, at: number): boolean {
  if (at + RECORD_HEADER_BYTES + MIN_PAYLOAD_BYTES > buf.length) return false;
  const len = buf.readUInt32LE(at);
  const end = at + RECORD_HEADER_BYTES + len;
  if (len < MIN_PAYLOAD_BYTES || len > MAX_RECORD_BYTES || end > buf.length) return false;
  const p = at + RECORD_HEADER_BYTES;
  const op = buf[p] as number;
  if (op < LogOp.Put || op > LogOp.DropPartition) return false;
  const serviceLen = buf.readUInt16LE(p + 3);
  if (MIN_PAYLOAD_BYTES + serviceLen > len) return false;
  const nameLen = buf.readUInt16LE(p + 5 + serviceLen);
  if (MIN_PAYLOAD_BYTES + serviceLen + nameLen > len) return false;
  const fields = MIN_PAYLOAD_BYTES + serviceLen + nameLen + buf.readUInt32LE(p + 7 + serviceLen + nameLen);
  if (op === LogOp.Put ? fields > len : fields !== len) return false;
  return crc32(buf.subarray(p, end)) === buf.readUInt32LE(at + 4);
}

function corrupt(file: string, at: number, why: string): GridError {
  return new GridError('INTERNAL', `persisted data file ${file} is corrupt at byte ${at} (${why}); move it away to start without it`);
}

const EMPTY = Buffer.alloc(0);
/** op, partition, two name lengths, key length. */
const MIN_PAYLOAD_BYTES = 1 + 2 + 2 + 2 + 4;
