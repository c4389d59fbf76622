// The binary form of a map batch (Content-Type: application/vnd.grid.batch), for clients that
// would rather not base64 their values into JSON: length-prefixed records in, the same per-entry
// results out, in request order. Pure: a body that breaks the framing (bad magic, unknown op
// code, a length past the end, bytes left over) is one 400 and nothing runs; too many records
// is a 413; an entry that is framed right but unusable (empty key, key not UTF-8, bad content
// type or TTL, a key written twice) answers 400 alone. The layout is in docs/data-api.md.

import { GridError } from '../core/errors.js';
import { MAX_BATCH_ENTRIES, type BatchInvalid, type BatchPut } from './map-batch.js';

export const BINARY_BATCH_TYPE = 'application/vnd.grid.batch';

/** "GRB1": the form and its version; a later incompatible layout gets a new magic. */
const MAGIC = Buffer.from('GRB1', 'latin1');

/** Op codes of the records (the same in the answer). */
export const OP_GET = 1;
export const OP_PUT = 2;
export const OP_DELETE = 3;

const KIND_OF = { [OP_GET]: 'get', [OP_PUT]: 'put', [OP_DELETE]: 'delete' } as const;
const OP_OF = { get: OP_GET, put: OP_PUT, delete: OP_DELETE } as const;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One entry of a batch, in either form, as the route runs it. */
export type BatchItem =
  | { readonly kind: 'get' | 'delete'; readonly entry: string | BatchInvalid }
  | { readonly kind: 'put'; readonly entry: BatchPut | BatchInvalid };

/** One entry's answer, before its form: `value` holds the bytes as a latin1 string. */
export interface ItemResult {
  readonly key: string | undefined;
  readonly status: number;
  readonly value?: string;
  readonly contentType?: string;
  readonly version?: number;
  readonly error?: string;
}

/** Whether a request's Content-Type asks for the binary form (parameters after `;` ignored, case-insensitive). */
export function isBinaryBatch(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === BINARY_BATCH_TYPE;
}

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}

  get offset(): number {
    return this.at;
  }

  get left(): number {
    return this.b.length - this.at;
  }

  private need(n: number, what: string): void {
    if (this.b.length - this.at < n) throw new GridError('BAD_REQUEST', `binary batch truncated: ${what} at byte ${this.at} needs ${n} bytes, ${this.b.length - this.at} left; nothing was applied`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.b[this.at++]!;
  }

  u16(what: string): number {
    this.need(2, what);
    const v = this.b.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.b.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }

  i32(what: string): number {
    this.need(4, what);
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }

  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
}

/** The entries of a binary batch body, in request order. Throws a GridError (BAD_REQUEST, PAYLOAD_TOO_LARGE) when the body as a whole is unusable. */
export function parseBinaryBatch(body: Buffer): BatchItem[] {
  const r = new Reader(body);
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new GridError('BAD_REQUEST', `binary batch must start with "GRB1" (${BINARY_BATCH_TYPE}, docs/data-api.md); nothing was applied`);
  }
  r.bytes(MAGIC.length, 'magic');
  const count = r.u32('record count');
  if (count > MAX_BATCH_ENTRIES) throw new GridError('PAYLOAD_TOO_LARGE', `batch of ${count} entries exceeds the limit of ${MAX_BATCH_ENTRIES} entries per batch; nothing was applied`);
  // Each record is at least 5 bytes (op code, key length): a count the body cannot hold is refused before any work.
  if (count * 5 > r.left) throw new GridError('BAD_REQUEST', `binary batch truncated: ${count} records cannot fit in ${r.left} bytes; nothing was applied`);
  const items: BatchItem[] = [];
  const written = new Set<string>();
  for (let i = 0; i < count; i++) {
    const at = r.offset;
    const op = r.u8(`record ${i} op code`);
    const kind = KIND_OF[op as keyof typeof KIND_OF] as 'get' | 'put' | 'delete' | undefined;
    if (kind === undefined) throw new GridError('BAD_REQUEST', `binary batch: record ${i} at byte ${at} has op code ${op} (expected 1 get, 2 put, 3 delete); nothing was applied`);
    const keyBytes = r.bytes(r.u32(`record ${i} key length`), `record ${i} key`);
    let key: string | BatchInvalid;
    try {
      key = UTF8.decode(keyBytes);
      if (key.length === 0) key = { invalid: 'key must not be empty', key };
    } catch {
      key = { invalid: 'key is not valid UTF-8', key: undefined };
    }
    if (kind !== 'put') {
      items.push({ kind, entry: kind === 'delete' ? once(written, key) : key });
      continue;
    }
    const ttl = r.i32(`record ${i} ttl`);
    const ctBytes = r.bytes(r.u16(`record ${i} content type length`), `record ${i} content type`);
    const value = r.bytes(r.u32(`record ${i} value length`), `record ${i} value`).toString('latin1');
    if (typeof key !== 'string') {
      items.push({ kind, entry: key });
      continue;
    }
    const ct = ctBytes.length === 0 ? undefined : ctBytes.toString('latin1');
    if (ct !== undefined && !PRINTABLE_ASCII.test(ct)) items.push({ kind, entry: { invalid: 'contentType must be printable ASCII', key } });
    else if (ttl < -1) items.push({ kind, entry: { invalid: 'ttl must be -1 (the map default), 0 (never expires) or whole seconds up to 2147483647', key } });
    else items.push({ kind, entry: once(written, { key, value, contentType: ct, ttlMs: ttl < 0 ? -1 : ttl * 1000 }) });
  }
  if (r.left > 0) throw new GridError('BAD_REQUEST', `binary batch: ${r.left} bytes after the last of ${count} records; nothing was applied`);
  return items;
}

/** A key written twice in one batch has no defined order: the second and later are refused (as in the JSON form). */
function once<T extends string | BatchPut | BatchInvalid>(written: Set<string>, e: T): T | BatchInvalid {
  if (typeof e === 'object' && 'invalid' in e) return e;
  const key = typeof e === 'string' ? e : (e as BatchPut).key;
  if (written.has(key)) return { invalid: `key "${key}" is written more than once in this batch`, key };
  written.add(key);
  return e;
}

/**
 * The answer: "GRB1", u32 count, then per entry in request order: u8 op code, u16 status,
 * i64 version (-1: none), u32 key length + key (UTF-8), u16 content type length + content
 * type, i32 value length (-1: no value) + value, u32 error length + error (UTF-8).
 */
export function encodeBinaryResults(items: readonly BatchItem[], results: readonly ItemResult[]): Buffer {
  const parts: Buffer[] = [];
  let size = MAGIC.length + 4;
  const head = Buffer.alloc(size);
  MAGIC.copy(head, 0);
  head.writeUInt32BE(results.length, MAGIC.length);
  parts.push(head);
  results.forEach((res, i) => {
    const key = Buffer.from(res.key ?? '', 'utf8');
    const ct = Buffer.from(res.contentType ?? '', 'latin1');
    const value = res.value === undefined ? undefined : Buffer.from(res.value, 'latin1');
    const error = Buffer.from(res.error ?? '', 'utf8');
    const fixed = Buffer.alloc(1 + 2 + 8 + 4);
    fixed.writeUInt8(OP_OF[items[i]!.kind], 0);
    fixed.writeUInt16BE(res.status, 1);
    fixed.writeBigInt64BE(BigInt(res.version ?? -1), 3);
    fixed.writeUInt32BE(key.length, 11);
    const mid = Buffer.alloc(2);
    mid.writeUInt16BE(ct.length, 0);
    const vlen = Buffer.alloc(4);
    vlen.writeInt32BE(value === undefined ? -1 : value.length, 0);
    const elen = Buffer.alloc(4);
    elen.writeUInt32BE(error.length, 0);
    parts.push(fixed, key, mid, ct, vlen);
    if (value !== undefined) parts.push(value);
    parts.push(elen, error);
    size += fixed.length + key.length + 2 + ct.length + 4 + (value?.length ?? 0) + 4 + error.length;
  });
  return Buffer.concat(parts, size);
}

/** A binary batch request body (for clients, tests and the bench): the inverse of parseBinaryBatch for well-formed entries. */
export function encodeBinaryBatch(entries: readonly ({ op: 'get' | 'delete'; key: string } | { op: 'put'; key: string; value: Buffer | string; contentType?: string; ttlSeconds?: number })[]): Buffer {
  const parts: Buffer[] = [MAGIC, u32(entries.length)];
  for (const e of entries) {
    const key = Buffer.from(e.key, 'utf8');
    parts.push(Buffer.from([OP_OF[e.op]]), u32(key.length), key);
    if (e.op === 'put') {
      const ttl = Buffer.alloc(4);
      ttl.writeInt32BE(e.ttlSeconds ?? -1, 0);
      const ct = Buffer.from(e.contentType ?? '', 'latin1');
      const ctLen = Buffer.alloc(2);
      ctLen.writeUInt16BE(ct.length, 0);
      const value = typeof e.value === 'string' ? Buffer.from(e.value, 'utf8') : e.value;
      parts.push(ttl, ctLen, ct, u32(value.length), value);
    }
  }
  return Buffer.concat(parts);
}

/** A binary batch answer read back (for clients, tests and the bench). Throws on a malformed answer. */
export function decodeBinaryResults(body: Buffer): { op: number; status: number; version: number; key: string; contentType: string | undefined; value: Buffer | undefined; error: string | undefined }[] {
  const r = new Reader(body);
  if (!r.bytes(MAGIC.length, 'magic').equals(MAGIC)) throw new GridError('BAD_REQUEST', 'binary batch answer must start with "GRB1"');
  const count = r.u32('count');
  const out = [];
  for (let i = 0; i < count; i++) {
    const op = r.u8('op');
    const status = r.u16('status');
    const version = Number(r.bytes(8, 'version').readBigInt64BE(0));
    const key = r.bytes(r.u32('key length'), 'key').toString('utf8');
    const ct = r.bytes(r.u16('content type length'), 'content type').toString('latin1');
    const vlen = r.i32('value length');
    const value = vlen < 0 ? undefined : Buffer.from(r.bytes(vlen, 'value'));
    const error = r.bytes(r.u32('error length'), 'error').toString('utf8');
    out.push({ op, status, version, key, contentType: ct === '' ? undefined : ct, value, error: error === '' ? undefined : error });
  }
  if (r.left > 0) throw new GridError('BAD_REQUEST', `binary batch answer: ${r.left} bytes left over`);
  return out;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}
