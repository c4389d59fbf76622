// MurmurHash3 x86 32-bit, the hash that places keys in partitions (Hazelcast's, over a key's
// serialized form). It hashes strings without allocating a Buffer (the key path is hot).

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Hazelcast's seed for partition hashing. */
export const PARTITION_HASH_SEED = 0x01000193;

/**
 * Which rule places keys in partitions. 1: murmur3 of the key's raw UTF-8 bytes (Grid before
 * it adopted Hazelcast's rule); 2: murmur3 of the key's serialized form, as Hazelcast and its
 * clients place keys. Data on disk, the member join handshake and the WAN handshake carry it:
 * data or members of another version would look for keys in the wrong partitions.
 */
export const PARTITION_HASH_VERSION = 2;

/** Why members (or data) of partition hash version `theirs` cannot mix with this build's, or undefined when they can. */
export function partitionHashMismatch(theirs: number, what: string): string | undefined {
  if (theirs === PARTITION_HASH_VERSION) return undefined;
  const name = (v: number): string => (v === 1 ? "1 (Grid before Hazelcast's partition hash)" : v === 2 ? "2 (Hazelcast's partition hash)" : String(v));
  return `${what} places keys by partition hash version ${name(theirs)}, this member by version ${name(PARTITION_HASH_VERSION)}: a key would be looked for in the wrong partition`;
}

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

function mixH(h: number, k: number): number {
  h ^= mixK(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's final avalanche (fmix32): every input bit affects every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

function finish(h: number, tail: number, tailLen: number, length: number): number {
  if (tailLen > 0) h ^= mixK(tail);
  return fmix32(h ^ length);
}

/**
 * MurmurHash3_x86_32 of a latin1 string (one byte per char, the form values are stored in),
 * without allocating. Equal to murmur3Bytes(Buffer.from(s, 'latin1'), seed).
 */
export function murmur3Latin1(s: string, seed = 0): number {
  let h = seed | 0;
  const len = s.length;
  const blocks = len & ~3;
  let i = 0;
  for (; i < blocks; i += 4) {
    const k =
      (s.charCodeAt(i) & 0xff) |
      ((s.charCodeAt(i + 1) & 0xff) << 8) |
      ((s.charCodeAt(i + 2) & 0xff) << 16) |
      ((s.charCodeAt(i + 3) & 0xff) << 24);
    h = mixH(h, k);
  }
  let tail = 0;
  const tailLen = len & 3;
  if (tailLen === 3) tail ^= (s.charCodeAt(i + 2) & 0xff) << 16;
  if (tailLen >= 2) tail ^= (s.charCodeAt(i + 1) & 0xff) << 8;
  if (tailLen >= 1) tail ^= s.charCodeAt(i) & 0xff;
  return finish(h, tail, tailLen, len);
}

/** MurmurHash3_x86_32 of a byte array; returns a signed 32-bit integer. */
export function murmur3Bytes(bytes: Uint8Array, seed = 0): number {
  let h = seed | 0;
  const len = bytes.length;
  const blocks = len & ~3;
  let i = 0;
  for (; i < blocks; i += 4) {
    const k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h = mixH(h, k);
  }
  let tail = 0;
  const tailLen = len & 3;
  if (tailLen === 3) tail ^= bytes[i + 2]! << 16;
  if (tailLen >= 2) tail ^= bytes[i + 1]! << 8;
  if (tailLen >= 1) tail ^= bytes[i]!;
  return finish(h, tail, tailLen, len);
}

/**
 * MurmurHash3_x86_32 of the UTF-8 encoding of `s` (lone surrogates encode as U+FFFD, as
 * TextEncoder does). Equal to murmur3Bytes(Buffer.from(s, 'utf8'), seed).
 */
export function murmur3String(s: string, seed = 0): number {
  return utf8Continue(s, seed | 0, 0);
}

/**
 * MurmurHash3_x86_32 of `s` as Hazelcast serializes a String: its UTF-8 byte count as int32
 * big-endian, then its UTF-8 bytes (lone surrogates as U+FFFD, as the Node client's Buffer
 * writes them). That is the payload of the String's Data (bytes [8..end)), which Hazelcast
 * and every client hash to place a key. Equal to murmur3Bytes of those bytes, without
 * allocating: the length goes into the state as the first block, then the characters.
 */
export function murmur3SerializedString(s: string, seed = 0): number {
  const n = s.length;
  // Optimistic ASCII pass: the byte count is the char count, and the length block leaves the
  // characters 4-aligned, so each block of 4 chars is one murmur block.
  let h = mixH(seed | 0, lengthBlock(n));
  const blocks = n & ~3;
  let i = 0;
  for (; i < blocks; i += 4) {
    const c0 = s.charCodeAt(i);
    const c1 = s.charCodeAt(i + 1);
    const c2 = s.charCodeAt(i + 2);
    const c3 = s.charCodeAt(i + 3);
    if ((c0 | c1 | c2 | c3) >= 0x80) return serializedUtf8(s, seed);
    h = mixH(h, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24));
  }
  let tail = 0;
  const tailLen = n & 3;
  for (let j = tailLen - 1; j >= 0; j--) {
    const c = s.charCodeAt(i + j);
    if (c >= 0x80) return serializedUtf8(s, seed);
    tail |= c << (j << 3);
  }
  return finish(h, tail, tailLen, n + 4);
}

/** The int32 big-endian byte count as the little-endian block murmur reads. */
function lengthBlock(len: number): number {
  return ((len >>> 24) & 0xff) | (((len >>> 16) & 0xff) << 8) | (((len >>> 8) & 0xff) << 16) | ((len & 0xff) << 24);
}

function serializedUtf8(s: string, seed: number): number {
  return utf8Continue(s, mixH(seed | 0, lengthBlock(utf8Length(s))), 4);
}

/** The UTF-8 byte count of `s` (what Buffer.byteLength(s, 'utf8') says, lone surrogates 3 bytes). */
export function utf8Length(s: string): number {
  const n = s.length;
  let len = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) len += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      len += 2; // 4 bytes for 2 chars
      i++;
    } else len += 2;
  }
  return len;
}

/** Hashes the UTF-8 bytes of `s` into state `h`, which has already taken `before` bytes (a multiple of 4). */
function utf8Continue(s: string, h: number, before: number): number {
  let acc = 0; // bytes gathered for the current 4-byte block
  let accLen = 0;
  let total = before;
  const n = s.length;

  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      acc |= c << (accLen << 3);
      total++;
      if (++accLen === 4) {
        h = mixH(h, acc);
        acc = 0;
        accLen = 0;
      }
      continue;
    }
    // Multi-byte: work out the code point, then push its bytes one by one.
    let bytes: number;
    if (c < 0x800) {
      bytes = 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
      bytes = 4;
    } else {
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate
      bytes = 3;
    }
    let b0: number;
    if (bytes === 2) b0 = 0xc0 | (c >> 6);
    else if (bytes === 3) b0 = 0xe0 | (c >> 12);
    else b0 = 0xf0 | (c >> 18);
    for (let j = 0; j < bytes; j++) {
      const b = j === 0 ? b0 : 0x80 | ((c >> (6 * (bytes - 1 - j))) & 0x3f);
      acc |= b << (accLen << 3);
      total++;
      if (++accLen === 4) {
        h = mixH(h, acc);
        acc = 0;
        accLen = 0;
      }
    }
  }
  return finish(h, acc, accLen, total);
}

/** Hazelcast's HashUtil.hashToIndex: a non-negative index below `length`. */
export function hashToIndex(hash: number, length: number): number {
  if (hash === -2147483648) return 0;
  return Math.abs(hash) % length;
}
