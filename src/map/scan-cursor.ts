// The opaque cursor of a map scan (map-scan.ts): where the next page starts, as a partition id
// and the last key returned there (keys are read in code-unit order within a partition). Pure.
// The position names no member and no slab offset, so it stays valid on any owner of the
// partition: after a migration, a promotion or a restart of the member that served the page.
//
// Bytes, then base64url without padding:
//   u8 version (1) | u16 BE partition id | u8 form (0: partition start, 1: after a UTF-8 key,
//   2: after a UTF-16LE key, for keys that are not well-formed UTF-16) | key bytes |
//   u32 BE check: FNV-1a of the scope (map name and prefix) and every byte before it.
// The check tells a garbled cursor, or one from another map's or prefix's scan, from a good
// one (a forged but well-formed cursor is only a position: it reads what it names).

import { GridError } from '../core/errors.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';

export const SCAN_CURSOR_VERSION = 1;

/** Where a scan goes on: partition `partitionId`, after the key `after` (undefined: from its first key). */
export interface ScanPosition {
  readonly partitionId: number;
  readonly after: string | undefined;
}

/** Longest cursor text accepted (a key of a few KiB still fits; a URL rarely carries more). */
export const MAX_CURSOR_CHARS = 16_384;

const HEADER_BYTES = 4;
const CHECK_BYTES = 4;
const FORM_START = 0;
const FORM_UTF8 = 1;
const FORM_UTF16 = 2;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A lone surrogate: such a key has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What a cursor belongs to: a cursor of one scan is refused by another. */
export function scanScope(mapName: string, prefix: string | undefined): string {
  return prefix === undefined ? mapName : `${mapName}\u0000${prefix}`;
}

function fnv1a(scope: string, bytes: Uint8Array, end: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < scope.length; i++) {
    const c = scope.charCodeAt(i);
    h = Math.imul(h ^ (c & 0xff), 0x01000193);
    h = Math.imul(h ^ (c >>> 8), 0x01000193);
  }
  for (let i = 0; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

export function encodeScanCursor(pos: ScanPosition, scope: string): string {
  let form = FORM_START;
  let key = Buffer.alloc(0);
  if (pos.after !== undefined) {
    const wellFormed = !LONE_SURROGATE.test(pos.after);
    form = wellFormed ? FORM_UTF8 : FORM_UTF16;
    key = Buffer.from(pos.after, wellFormed ? 'utf8' : 'utf16le');
  }
  const out = Buffer.alloc(HEADER_BYTES + key.length + CHECK_BYTES);
  out[0] = SCAN_CURSOR_VERSION;
  out.writeUInt16BE(pos.partitionId, 1);
  out[3] = form;
  key.copy(out, HEADER_BYTES);
  out.writeUInt32BE(fnv1a(scope, out, HEADER_BYTES + key.length), HEADER_BYTES + key.length);
  return out.toString('base64url');
}

function bad(reason: string): GridError {
  return new GridError('BAD_REQUEST', `bad cursor: ${reason} (pass back the "cursor" of the previous page unchanged, with the same map and prefix)`);
}

/** The position a cursor names; a 400 that says why when it is not one this scan made. */
export function decodeScanCursor(text: string, scope: string): ScanPosition {
  if (text.length === 0) throw bad('empty');
  if (text.length > MAX_CURSOR_CHARS) throw bad(`longer than ${MAX_CURSOR_CHARS} characters`);
  if (!BASE64URL.test(text)) throw bad('not base64url');
  const bytes = Buffer.from(text, 'base64url');
  // Node decodes leniently (trailing bits): only the canonical text of the bytes is a cursor.
  if (bytes.toString('base64url') !== text) throw bad('not canonical base64url');
  if (bytes.length < HEADER_BYTES + CHECK_BYTES) throw bad('too short');
  if (bytes[0] !== SCAN_CURSOR_VERSION) throw bad(`version ${bytes[0]!} is not one this member reads (${SCAN_CURSOR_VERSION})`);
  const end = bytes.length - CHECK_BYTES;
  if (bytes.readUInt32BE(end) !== fnv1a(scope, bytes, end)) throw bad('garbled, or made by a scan of another map or prefix');
  const partitionId = bytes.readUInt16BE(1);
  if (partitionId >= PARTITION_COUNT) throw bad(`partition ${partitionId} does not exist`);
  const form = bytes[3];
  const key = bytes.subarray(HEADER_BYTES, end);
  switch (form) {
    case FORM_START:
      if (key.length !== 0) throw bad('a partition start with a key');
      return { partitionId, after: undefined };
    case FORM_UTF8:
      try {
        return { partitionId, after: UTF8.decode(key) };
      } catch {
        throw bad('key is not UTF-8');
      }
    case FORM_UTF16:
      if (key.length % 2 !== 0) throw bad('odd UTF-16 key length');
      return { partitionId, after: key.toString('utf16le') };
    default:
      throw bad(`unknown form ${form ?? '?'}`);
  }
}
