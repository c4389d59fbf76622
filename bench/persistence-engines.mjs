#!/usr/bin/env node
// Issue 9: which storage engine for persistence? A standalone measurement (not part of `npm run bench`)
// of the two candidates, on this machine, with the write pattern a Grid member would have:
//
//   log-part    an append-only log per partition (271 files per member) with compaction
//   log-member  one append-only log per member, the partition id in every record
//   lmdb        LMDB through the npm `lmdb` package (one environment per member, key =
//               partition (u16 BE) + map name + key, so one partition is one key range)
//
// Every engine stores the same bytes per entry: map name, key, content type, expiry (f64 ms)
// and the value (1,000,000 entries of 100-byte values with 10-byte keys by default).
//
// What it measures (each step runs in a fresh child process, so one engine's heap, page cache
// mappings and threads do not weigh on the next):
//   (a) the "write then acknowledge" loop of a server: --inflight writers (64), each awaiting
//       its write's promise before the next; throughput, p50/p99/max latency, CPU per write
//       (whole process, all threads) and main-thread busy time per write (event-loop
//       utilisation). fsync false: the log hands the turn's batch to the OS (writev, sync or
//       on the thread pool) before the promise resolves; lmdb commits with noSync. fsync true:
//       group commit: one write + one fdatasync per touched file per batch (at most one batch
//       per event-loop turn, the next batch collects while the previous one syncs); lmdb
//       commits with sync (overlappingSync false), or commits and then awaits `flushed`
//       (overlappingSync true + separateFlushed).
//   (b) bytes on disk per entry after loading, after overwriting every key once, and (log)
//       after compaction.
//   (c) restart: read everything back into per-partition JS Maps (key -> {value string,
//       content type, expiry}) as a member would, with the page cache warm and cold (the
//       files' pages dropped with `dd iflag=nocache count=0`, only our files).
//   (d) the log's record format [u32 payload length][u32 crc32(payload)][payload]: a torn
//       last record is ignored (and cut off), a zero-filled tail too, a flipped byte in the
//       middle is reported as corruption naming the file and offset.
//   plus: dropping one partition's data (what migration does on the old owner).
//
// lmdb is NOT a dependency of the repo. Install it in a scratch dir and point this script at it:
//   mkdir -p /tmp/engines && cd /tmp/engines && npm init -y >/dev/null && npm install --no-save lmdb
//   node bench/persistence-engines.mjs                     # LMDB_FROM defaults to /tmp/engines
//   LMDB_FROM=/some/dir node bench/persistence-engines.mjs # dir whose node_modules has lmdb
// Without it, the lmdb rows are skipped with a message.
//
// Options: --entries N (1000000) --inflight N (64) --sync-seconds S (15) --sync-max N (300000)
//          --dir D (/tmp/grid-persist-bench) --repeat N (1: write measurements, best kept)
//          --only torn,log-part,log-member,lmdb,sync (default all)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';

const SELF = fileURLToPath(import.meta.url);
const PARTITIONS = 271;
const MAP = 'bench';
const CT = 'text/plain';
const VALUE_SIZE = 100;
const MAGIC = Buffer.from('GRIDLOG1'); // 8-byte file header: format and version
const HDR = 8; // u32 LE payload length + u32 LE crc32(payload)
const MAX_RECORD = 64 << 20;
const MAX_TORN = 1 << 20; // a record that runs past EOF is a torn tail only if it leaves at most this much unread
const OP_PUT = 1;
const OP_REMOVE = 2;
const OP_DROP_PARTITION = 3;

const { values: opt } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    inflight: { type: 'string', default: '64' },
    'sync-seconds': { type: 'string', default: '15' },
    'sync-max': { type: 'string', default: '300000' },
    dir: { type: 'string', default: '/tmp/grid-persist-bench' },
    repeat: { type: 'string', default: '1' },
    only: { type: 'string', default: 'torn,log-part,log-member,lmdb,sync' },
    case: { type: 'string' }, // internal: run one step in this (child) process
    engine: { type: 'string' },
    io: { type: 'string', default: 'sync' },
    mode: { type: 'string', default: 'nosync' },
    gen: { type: 'string', default: '0' },
  },
});
const ENTRIES = Number(opt.entries);
const INFLIGHT = Number(opt.inflight);

// ---------------------------------------------------------------- crc32

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();
function crc32Table(buf) {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
// zlib.crc32 exists from Node 20.15 / 22.2; the repo allows >= 20.9, so keep the table fallback.
const HAS_ZLIB_CRC = typeof zlib.crc32 === 'function';
const crc32 = HAS_ZLIB_CRC ? (buf) => zlib.crc32(buf) : crc32Table;

// ---------------------------------------------------------------- keys, values, encoding

const keyOf = (i) => 'k' + String(i).padStart(9, '0'); // 10 bytes
function partitionOf(key) {
  let h = 0x811c9dc5; // FNV-1a; Grid uses murmur3 — only the spread matters here
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % PARTITIONS;
}
const VALUE_BASE = (() => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  let x = 12345;
  for (let i = 0; i < VALUE_SIZE; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += abc[(x >>> 16) % abc.length];
  }
  return s;
})();
const valueOf = (i, gen) => VALUE_BASE.slice(0, VALUE_SIZE - 12) + String(gen).padStart(2, '0') + String(i).padStart(10, '0');

/** [ctLen u8 (255 = none)][ct][expiresAt f64 LE, 0 = never][value utf8] — the log's put tail and lmdb's value. */
function valueBlockLength(ct, value) {
  return 1 + (ct === undefined ? 0 : Buffer.byteLength(ct)) + 8 + Buffer.byteLength(value);
}
function writeValueBlock(b, o, ct, expiresAt, value) {
  if (ct === undefined) b[o++] = 0xff;
  else {
    const n = b.write(ct, o + 1, 'utf8');
    b[o] = n;
    o += 1 + n;
  }
  b.writeDoubleLE(expiresAt, o);
  o += 8;
  return o + b.write(value, o, 'utf8');
}
function sameBytes(b, o, len, ref) {
  if (len !== ref.length) return false;
  for (let i = 0; i < len; i++) if (b[o + i] !== ref[i]) return false;
  return true;
}
const ctCache = { bytes: Buffer.alloc(0), str: '' };
function decodeValueBlock(b, o, end) {
  const ctLen = b[o++];
  let ct;
  if (ctLen !== 0xff) {
    // content types repeat: keep one string per distinct type instead of one per entry
    if (sameBytes(b, o, ctLen, ctCache.bytes)) ct = ctCache.str;
    else {
      ctCache.bytes = Buffer.from(b.subarray(o, o + ctLen));
      ct = ctCache.str = ctCache.bytes.toString('utf8');
    }
    o += ctLen;
  }
  const expiresAt = b.readDoubleLE(o);
  o += 8;
  return { value: b.toString('utf8', o, end), contentType: ct, expiresAt };
}

/** A log record: [len u32][crc32 u32][op u8 (partition u16 if member log) mapLen u8 map keyLen u16 key (value block)]. */
function encodeRecord(op, partition, map, key, ct, expiresAt, value) {
  const withP = partition >= 0;
  const mapLen = Buffer.byteLength(map);
  const keyLen = Buffer.byteLength(key);
  const payload = 1 + (withP ? 2 : 0) + 1 + mapLen + 2 + keyLen + (op === OP_PUT ? valueBlockLength(ct, value) : 0);
  const b = Buffer.allocUnsafe(HDR + payload);
  let o = HDR;
  b[o++] = op;
  if (withP) o = b.writeUInt16LE(partition, o);
  b[o++] = mapLen;
  o += b.write(map, o, 'utf8');
  o = b.writeUInt16LE(keyLen, o);
  o += b.write(key, o, 'utf8');
  if (op === OP_PUT) o = writeValueBlock(b, o, ct, expiresAt, value);
  b.writeUInt32LE(payload, 0);
  b.writeUInt32LE(crc32(b.subarray(HDR)), 4);
  return b;
}
function encodeDropRecord(partition) {
  const b = Buffer.allocUnsafe(HDR + 3);
  b[HDR] = OP_DROP_PARTITION;
  b.writeUInt16LE(partition, HDR + 1);
  b.writeUInt32LE(3, 0);
  b.writeUInt32LE(crc32(b.subarray(HDR)), 4);
  return b;
}

function lmdbKey(partition, map, key) {
  const mapLen = Buffer.byteLength(map);
  const b = Buffer.allocUnsafe(3 + mapLen + Buffer.byteLength(key));
  b.writeUInt16BE(partition, 0);
  b[2] = mapLen;
  b.write(map, 3, 'utf8');
  b.write(key, 3 + mapLen, 'utf8');
  return b;
}
function lmdbValue(ct, expiresAt, value) {
  const b = Buffer.allocUnsafe(valueBlockLength(ct, value));
  writeValueBlock(b, 0, ct, expiresAt, value);
  return b;
}

// ---------------------------------------------------------------- log parsing

class CorruptLogError extends Error {}

function allZero(b, from) {
  for (let i = from; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/**
 * Walks the records of b from `start`. onRecord(b, payloadStart, payloadEnd, recordStart).
 * final: b ends at the end of the file. Returns { end, torn }: end = where the valid records stop
 * (the next chunk starts there when !final); torn = a description of an ignored tail. A bad record
 * is a torn tail when it is the last thing in the file (it reaches or passes EOF) or the rest of the
 * file is zeros (an extended but unwritten tail); anywhere else it is corruption, reported by name.
 */
function scanRecords(b, start, final, file, onRecord) {
  let o = start;
  while (o < b.length) {
    if (b.length - o < HDR) {
      if (!final) return { end: o, torn: null };
      return { end: o, torn: `${b.length - o} byte(s) of a record header at offset ${o}` };
    }
    const n = b.readUInt32LE(o);
    if (n === 0 || n > MAX_RECORD) {
      if (!final) {
        if (allZero(b, o)) return { end: o, torn: null }; // may be a zero tail; decide with the final chunk
        throw new CorruptLogError(`corrupt record in ${file} at offset ${o}: length ${n}`);
      }
      if (allZero(b, o)) return { end: o, torn: `zero-filled tail of ${b.length - o} bytes at offset ${o}` };
      throw new CorruptLogError(`corrupt record in ${file} at offset ${o}: length ${n}`);
    }
    const recEnd = o + HDR + n;
    if (recEnd > b.length) {
      if (!final) return { end: o, torn: null };
      // a torn append leaves a short last record; a length field hit mid-file would drop the
      // whole rest of the file, so a long "tail" is reported instead of ignored
      if (b.length - o > MAX_TORN) throw new CorruptLogError(`corrupt record in ${file} at offset ${o}: length ${n} runs past the end, ${b.length - o} bytes unread`);
      return { end: o, torn: `record of ${n} bytes at offset ${o} runs past the end of the file` };
    }
    if (crc32(b.subarray(o + HDR, recEnd)) !== b.readUInt32LE(o + 4)) {
      if (final && (recEnd === b.length || allZero(b, recEnd))) return { end: o, torn: `crc mismatch in the last record, offset ${o}` };
      throw new CorruptLogError(`corrupt record in ${file} at offset ${o}: crc mismatch`);
    }
    onRecord(b, o + HDR, recEnd, o);
    o = recEnd;
  }
  return { end: o, torn: null };
}

/** The in-memory side of a restart: parts[p] = Map<mapName, Map<key, entry>>. */
function newPartitions() {
  return Array.from({ length: PARTITIONS }, () => new Map());
}
const mapNameCache = { bytes: Buffer.alloc(0), str: '' };
function decodeMapName(b, o, len) {
  if (sameBytes(b, o, len, mapNameCache.bytes)) return mapNameCache.str;
  mapNameCache.bytes = Buffer.from(b.subarray(o, o + len));
  return (mapNameCache.str = mapNameCache.bytes.toString('utf8'));
}
function mapOf(parts, p, name) {
  let m = parts[p].get(name);
  if (m === undefined) parts[p].set(name, (m = new Map()));
  return m;
}
/** Applies one record to parts. partition < 0: read it from the record (member log). */
function replay(parts, partition, b, ps, pe) {
  let o = ps;
  const op = b[o++];
  let p = partition;
  if (p < 0) {
    p = b.readUInt16LE(o);
    o += 2;
  }
  if (op === OP_DROP_PARTITION) {
    parts[p] = new Map();
    return;
  }
  const mapLen = b[o++];
  const map = decodeMapName(b, o, mapLen);
  o += mapLen;
  const keyLen = b.readUInt16LE(o);
  o += 2;
  const key = b.toString('utf8', o, o + keyLen);
  o += keyLen;
  if (op === OP_REMOVE) parts[p].get(map)?.delete(key);
  else mapOf(parts, p, map).set(key, decodeValueBlock(b, o, pe));
}

// ---------------------------------------------------------------- the log engine

const partFile = (dir, p) => path.join(dir, `p${String(p).padStart(3, '0')}.log`);
const memberFile = (dir) => path.join(dir, 'member.log');

function writevP(fd, bufs) {
  return new Promise((resolve, reject) => fs.writev(fd, bufs, (err) => (err ? reject(err) : resolve())));
}
function fdatasyncP(fd) {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}
function writevAllSync(fd, bufs) {
  let total = 0;
  for (const b of bufs) total += b.length;
  const n = fs.writevSync(fd, bufs);
  if (n !== total) throw new Error(`short write ${n} of ${total}`); // never happens on a regular file
}

/**
 * Group commit: put() appends the encoded record to the current batch and returns the batch's
 * promise. The batch is flushed in setImmediate (after every callback of this event-loop turn);
 * while one batch is being written/synced the next one collects, and is flushed when the first is
 * done. fsync false: the promise resolves when write(2) returned (data in the OS page cache);
 * fsync true: when fdatasync(2) of every touched file returned.
 * io 'sync': writev on the main thread (fsync false only); 'async': writev on libuv's pool.
 */
class LogStore {
  constructor(dir, { layout, fsync, io }) {
    this.dir = dir;
    this.member = layout === 'member';
    this.fsync = fsync;
    this.io = fsync ? 'async' : io;
    this.fds = new Array(PARTITIONS).fill(-1);
    this.batch = null;
    this.inFlight = false;
    this.flushes = 0;
    this.fileWrites = 0;
    this.records = 0;
    this.flushNow = () => this.flush();
  }
  open() {
    fs.mkdirSync(this.dir, { recursive: true });
    if (this.member) this.memberFd = this.openFile(memberFile(this.dir));
  }
  openFile(file) {
    const fd = fs.openSync(file, 'a');
    if (fs.fstatSync(fd).size === 0) fs.writeSync(fd, MAGIC);
    return fd;
  }
  fdOf(slot) {
    if (this.member) return this.memberFd;
    let fd = this.fds[slot];
    if (fd < 0) this.fds[slot] = fd = this.openFile(partFile(this.dir, slot));
    return fd;
  }
  put(p, map, key, ct, expiresAt, value) {
    return this.append(p, encodeRecord(OP_PUT, this.member ? p : -1, map, key, ct, expiresAt, value));
  }
  remove(p, map, key) {
    return this.append(p, encodeRecord(OP_REMOVE, this.member ? p : -1, map, key));
  }
  append(p, rec) {
    let b = this.batch;
    if (b === null) {
      b = this.batch = { slots: new Map(), count: 0, resolve: null, reject: null, promise: null };
      b.promise = new Promise((res, rej) => {
        b.resolve = res;
        b.reject = rej;
      });
      if (!this.inFlight) setImmediate(this.flushNow);
    }
    const slot = this.member ? 0 : p;
    const list = b.slots.get(slot);
    if (list === undefined) b.slots.set(slot, [rec]);
    else list.push(rec);
    b.count++;
    this.records++;
    return b.promise;
  }
  flush() {
    const b = this.batch;
    if (b === null) return;
    this.batch = null;
    this.flushes++;
    this.fileWrites += b.slots.size;
    if (this.io === 'sync') {
      try {
        for (const [slot, bufs] of b.slots) writevAllSync(this.fdOf(slot), bufs);
        b.resolve();
      } catch (e) {
        b.reject(e);
      }
      return;
    }
    this.inFlight = true;
    const jobs = [];
    for (const [slot, bufs] of b.slots) {
      const fd = this.fdOf(slot);
      jobs.push(this.fsync ? writevP(fd, bufs).then(() => fdatasyncP(fd)) : writevP(fd, bufs));
    }
    Promise.all(jobs).then(
      () => this.done(b, null),
      (e) => this.done(b, e),
    );
  }
  done(b, err) {
    this.inFlight = false;
    if (err) b.reject(err);
    else b.resolve();
    if (this.batch !== null) setImmediate(this.flushNow); // after the woken writers queued their next writes
  }
  async close() {
    while (this.batch !== null || this.inFlight) await new Promise((r) => setImmediate(r));
    if (this.member) fs.closeSync(this.memberFd);
    for (const fd of this.fds) if (fd >= 0) fs.closeSync(fd);
  }
}

/** Baseline: the same batching and promises, no encoding and no I/O (the harness's own cost). */
class NullStore {
  constructor() {
    this.batch = null;
    this.release = () => {
      const b = this.batch;
      this.batch = null;
      b.resolve();
    };
  }
  open() {}
  put() {
    if (this.batch === null) {
      const b = (this.batch = { resolve: null, promise: null });
      b.promise = new Promise((res) => (b.resolve = res));
      setImmediate(this.release);
    }
    return this.batch.promise;
  }
  async close() {}
}

/** Restart of a per-partition log: read files (4 reads in flight), parse on the main thread. */
async function loadPartLog(dir) {
  const parts = newPartitions();
  let bytes = 0;
  let records = 0;
  const torn = [];
  const todo = [];
  for (let p = 0; p < PARTITIONS; p++) if (fs.existsSync(partFile(dir, p))) todo.push(p);
  let next = 0;
  async function reader() {
    while (next < todo.length) {
      const p = todo[next++];
      const file = partFile(dir, p);
      const b = await fs.promises.readFile(file);
      bytes += b.length;
      if (b.length < MAGIC.length || !b.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptLogError(`${file}: not a Grid log (bad header)`);
      const r = scanRecords(b, MAGIC.length, true, file, (buf, ps, pe) => {
        records++;
        replay(parts, p, buf, ps, pe);
      });
      if (r.torn) torn.push({ file, end: r.end, torn: r.torn });
    }
  }
  await Promise.all(Array.from({ length: 4 }, reader));
  return { parts, bytes, records, torn };
}

/** Restart of a member log: one file, read in 16 MiB chunks, parsed as they come. */
async function loadMemberLog(dir) {
  const parts = newPartitions();
  const file = memberFile(dir);
  const fh = await fs.promises.open(file, 'r');
  const size = (await fh.stat()).size;
  const CHUNK = 16 << 20;
  let pos = 0;
  let carry = Buffer.alloc(0);
  let records = 0;
  let torn = null;
  let first = true;
  const readAt = (at) => {
    const want = Math.min(CHUNK, size - at);
    const chunk = Buffer.allocUnsafe(want);
    return want > 0 ? fh.read(chunk, 0, want, at).then(({ bytesRead }) => chunk.subarray(0, bytesRead)) : Promise.resolve(chunk);
  };
  let pending = readAt(0);
  for (;;) {
    const chunk = await pending;
    pos += chunk.length;
    if (pos < size) pending = readAt(pos); // read ahead while this chunk is parsed
    let b = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    if (first) {
      if (!b.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptLogError(`${file}: not a Grid log (bad header)`);
      b = b.subarray(MAGIC.length);
      first = false;
    }
    const final = pos >= size || chunk.length === 0;
    const r = scanRecords(b, 0, final, file, (buf, ps, pe) => {
      records++;
      replay(parts, -1, buf, ps, pe);
    });
    if (final) {
      torn = r.torn;
      break;
    }
    carry = Buffer.from(b.subarray(r.end));
  }
  await fh.close();
  return { parts, bytes: size, records, torn: torn ? [{ file, torn }] : [] };
}

/**
 * Compaction from the files (the upper bound: a member could also write a partition's live
 * entries from its in-memory maps). Keeps the last put of every live key, as its raw record bytes
 * (crc included), writes <file>.compact, fdatasync, rename over the old file, fsync the dir.
 */
function compactFile(file, withPartition) {
  const b = fs.readFileSync(file);
  const live = new Map(); // (partition) + map + key bytes (latin1) -> [start, end) of the record
  const r = scanRecords(b, MAGIC.length, true, file, (buf, ps, pe, rs) => {
    let o = ps + 1;
    let prefix = '';
    if (withPartition) {
      const p = buf.readUInt16LE(o);
      o += 2;
      if (buf[ps] === OP_DROP_PARTITION) {
        const tag = `${p}|`;
        for (const k of live.keys()) if (k.startsWith(tag)) live.delete(k);
        return;
      }
      prefix = `${p}|`;
    }
    const mapLen = buf[o];
    const keyEnd = o + 1 + mapLen + 2 + buf.readUInt16LE(o + 1 + mapLen);
    const k = prefix + buf.toString('latin1', o, keyEnd);
    if (buf[ps] === OP_REMOVE) live.delete(k);
    else {
      live.delete(k); // keep file order = order of last write
      live.set(k, rs * 2 ** 21 + (pe - rs)); // start and length in one number (length < 2 MiB here)
    }
  });
  const bufs = [MAGIC];
  const slice = (v) => {
    const len = v % 2 ** 21;
    const start = (v - len) / 2 ** 21;
    return b.subarray(start, start + len);
  };
  if (withPartition) {
    // the member log is rewritten grouped by partition: a restart then fills one Map at a time
    const byPartition = Array.from({ length: PARTITIONS }, () => []);
    for (const v of live.values()) {
      const rec = slice(v);
      byPartition[rec.readUInt16LE(HDR + 1)].push(rec);
    }
    for (const list of byPartition) for (const rec of list) bufs.push(rec);
  } else for (const v of live.values()) bufs.push(slice(v));
  const tmp = file + '.compact';
  const fd = fs.openSync(tmp, 'w');
  for (let i = 0; i < bufs.length; i += 1024) writevAllSync(fd, bufs.slice(i, i + 1024));
  fs.fdatasyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return { before: b.length, after: fs.statSync(file).size, live: live.size, torn: r.torn };
}
function fsyncDir(dir) {
  const fd = fs.openSync(dir, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

// ---------------------------------------------------------------- lmdb

const LMDB_FROM = process.env.LMDB_FROM ?? '/tmp/engines';
function loadLmdb() {
  try {
    return { lmdb: createRequire(path.join(path.resolve(LMDB_FROM), 'package.json'))('lmdb') };
  } catch {
    return null;
  }
}

class LmdbStore {
  /** mode: nosync (noSync: commit = pwrite, no fsync), sync (commit includes the fsync), overlap (commit, then await flushed). */
  constructor(lmdb, dir, mode) {
    this.lmdb = lmdb;
    this.dir = dir;
    this.mode = mode;
  }
  open() {
    fs.mkdirSync(this.dir, { recursive: true });
    this.db = this.lmdb.open({
      path: path.join(this.dir, 'data.mdb'),
      keyEncoding: 'binary',
      encoding: 'binary',
      noSync: this.mode === 'nosync',
      overlappingSync: this.mode === 'overlap',
      separateFlushed: this.mode === 'overlap',
    });
  }
  put(p, map, key, ct, expiresAt, value) {
    const pr = this.db.put(lmdbKey(p, map, key), lmdbValue(ct, expiresAt, value));
    if (this.mode !== 'overlap') return pr;
    if (pr.flushed === undefined) throw new Error('lmdb: put() promise has no .flushed with separateFlushed');
    return pr.flushed;
  }
  async close() {
    await this.db.flushed;
    await this.db.close();
  }
}

function loadLmdbAll(db) {
  const parts = newPartitions();
  let records = 0;
  for (const { key, value } of db.getRange()) {
    records++;
    const p = key.readUInt16BE(0);
    const mapLen = key[2];
    const map = decodeMapName(key, 3, mapLen);
    mapOf(parts, p, map).set(key.toString('utf8', 3 + mapLen), decodeValueBlock(value, 0, value.length));
  }
  return { parts, records };
}

// ---------------------------------------------------------------- measuring helpers

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
function procStatus() {
  const s = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
}
function diskUsage(dir) {
  let size = 0;
  let alloc = 0;
  let files = 0;
  for (const f of fs.readdirSync(dir)) {
    const st = fs.statSync(path.join(dir, f));
    if (!st.isFile()) continue;
    files++;
    size += st.size;
    alloc += st.blocks * 512;
  }
  return { size, alloc, files };
}

/**
 * The server loop: `inflight` writers, each puts and awaits its own write before the next.
 * Keys from..from+count-1 (value generation gen); stops early after `seconds` if given.
 */
async function writeLoop(store, { from, count, gen, seconds }) {
  const lat = new Float64Array(count);
  let next = 0;
  let stop = false;
  const timer = seconds ? setTimeout(() => (stop = true), seconds * 1000) : null;
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  async function writer() {
    while (!stop && next < count) {
      const j = next++;
      const i = from + j;
      const key = keyOf(i);
      const s = performance.now();
      await store.put(partitionOf(key), MAP, key, CT, 0, valueOf(i, gen));
      lat[j] = performance.now() - s;
    }
  }
  await Promise.all(Array.from({ length: INFLIGHT }, writer));
  const elapsed = (performance.now() - t0) / 1000;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  if (timer) clearTimeout(timer);
  const done = next;
  const sorted = lat.subarray(0, done).sort();
  return {
    writes: done,
    seconds: elapsed,
    perSec: done / elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[done - 1],
    cpuUsPerWrite: (cpu.user + cpu.system) / done,
    mainUsPerWrite: (elu.active * 1000) / done,
    ...procStatus(),
  };
}

function out(result) {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

// ---------------------------------------------------------------- child steps

function makeStore(engine, dir, mode, io) {
  if (engine === 'none') return new NullStore();
  if (engine === 'lmdb') {
    const l = loadLmdb();
    if (!l) throw new Error('lmdb not installed');
    return new LmdbStore(l.lmdb, dir, mode);
  }
  return new LogStore(dir, { layout: engine === 'log-member' ? 'member' : 'partition', fsync: mode === 'sync', io });
}

async function caseWrite() {
  // fill (gen 0, fresh keys) or overwrite (gen 1, same keys) of ENTRIES keys; or sync: bounded run
  const { engine, dir, mode, io } = { engine: opt.engine, dir: opt.dir, mode: opt.mode, io: opt.io };
  const gen = Number(opt.gen);
  const store = makeStore(engine, dir, mode, io);
  store.open();
  const bounded = mode !== 'nosync';
  const r = await writeLoop(store, {
    from: 0,
    count: bounded ? Math.min(ENTRIES, Number(opt['sync-max'])) : ENTRIES,
    gen,
    seconds: bounded ? Number(opt['sync-seconds']) : 0,
  });
  if (store instanceof LogStore) Object.assign(r, { flushes: store.flushes, fileWrites: store.fileWrites, perBatch: store.records / store.flushes });
  await store.close();
  if (engine !== 'none') Object.assign(r, { disk: diskUsage(dir) });
  out(r);
}

async function caseRestart() {
  const engine = opt.engine;
  const dir = opt.dir;
  const t0 = performance.now();
  let r;
  let entries = 0;
  if (engine === 'lmdb') {
    const { lmdb } = loadLmdb();
    const db = lmdb.open({ path: path.join(dir, 'data.mdb'), keyEncoding: 'binary', encoding: 'binary', readOnly: true });
    r = loadLmdbAll(db);
    r.bytes = diskUsage(dir).size;
    r.torn = [];
    entries = countEntries(r.parts);
    Object.assign(r, procStatus());
    await db.close();
  } else {
    r = engine === 'log-member' ? await loadMemberLog(dir) : await loadPartLog(dir);
    entries = countEntries(r.parts);
    Object.assign(r, procStatus());
  }
  const seconds = (performance.now() - t0) / 1000;
  out({ seconds, entries, records: r.records, bytes: r.bytes, torn: r.torn.length, rss: r.rss, rssAnon: r.rssAnon, rssFile: r.rssFile });
}
function countEntries(parts) {
  let n = 0;
  for (const p of parts) for (const m of p.values()) n += m.size;
  return n;
}

async function caseCompact() {
  const engine = opt.engine;
  const dir = opt.dir;
  const t0 = performance.now();
  let files = 0;
  let live = 0;
  if (engine === 'log-member') {
    live = compactFile(memberFile(dir), true).live;
    files = 1;
  } else {
    for (let p = 0; p < PARTITIONS; p++) {
      const f = partFile(dir, p);
      if (!fs.existsSync(f)) continue;
      live += compactFile(f, false).live;
      files++;
    }
  }
  fsyncDir(dir);
  const seconds = (performance.now() - t0) / 1000;
  out({ seconds, files, live, disk: diskUsage(dir), ...procStatus() });
}

/** Dropping one partition's data, durably, as the old owner does after a migration. */
async function caseDrop() {
  const engine = opt.engine;
  const dir = opt.dir;
  const p = 0;
  const t0 = performance.now();
  let removed = 0;
  let how;
  if (engine === 'log-part') {
    removed = fs.statSync(partFile(dir, p)).size;
    fs.unlinkSync(partFile(dir, p));
    fsyncDir(dir);
    how = `unlink p000.log (${removed} bytes) + fsync(dir)`;
  } else if (engine === 'log-member') {
    const fd = fs.openSync(memberFile(dir), 'a');
    fs.writeSync(fd, encodeDropRecord(p));
    fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    how = 'append a drop-partition record + fdatasync; the space comes back at the next full compaction';
  } else {
    const { lmdb } = loadLmdb();
    const db = lmdb.open({ path: path.join(dir, 'data.mdb'), keyEncoding: 'binary', encoding: 'binary', overlappingSync: false });
    const start = Buffer.from([0, p]);
    const end = Buffer.from([0, p + 1]);
    await db.transaction(() => {
      for (const k of db.getKeys({ start, end })) {
        db.remove(k);
        removed++;
      }
    });
    await db.close();
    how = `one transaction removing the ${removed} keys of the range, synced; freed pages are reused, the file does not shrink`;
  }
  out({ seconds: (performance.now() - t0) / 1000, how });
}

/** (d) The record format at work: torn tails ignored, mid-file corruption reported by name. */
async function caseTorn() {
  const dir = opt.dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const lines = [];
  const sample = encodeRecord(OP_PUT, -1, MAP, keyOf(1), CT, 0, valueOf(1, 0));
  lines.push(`zlib.crc32 available: ${HAS_ZLIB_CRC} (node ${process.version}); table crc32 agrees: ${crc32Table(sample.subarray(HDR)) === sample.readUInt32LE(4)}`);
  // crc cost per record
  {
    const payload = sample.subarray(HDR);
    const N = 1_000_000;
    let x = 0;
    let t = performance.now();
    for (let i = 0; i < N; i++) x ^= crc32Table(payload);
    const tTable = ((performance.now() - t) * 1000) / N;
    t = performance.now();
    if (HAS_ZLIB_CRC) for (let i = 0; i < N; i++) x ^= zlib.crc32(payload);
    const tZlib = HAS_ZLIB_CRC ? ((performance.now() - t) * 1000) / N : NaN;
    lines.push(`crc32 of a ${payload.length}-byte payload: table ${tTable.toFixed(2)} µs, zlib ${tZlib.toFixed(2)} µs`);
    globalThis.crcSink = x;
    lines.push(`record size for a 10-byte key, 100-byte value, 'text/plain', map '${MAP}': ${sample.length} bytes (per-partition file), ${sample.length + 2} (member log)`);
  }
  // write 1000 records into one partition's file through the store
  const store = new LogStore(dir, { layout: 'partition', fsync: false, io: 'sync' });
  store.open();
  for (let i = 0; i < 1000; i++) void store.put(7, MAP, keyOf(i), CT, 0, valueOf(i, 0));
  void store.remove(7, MAP, keyOf(0));
  await store.close();
  const file = partFile(dir, 7);
  const full = fs.readFileSync(file);
  const check = async (label, expectEntries) => {
    try {
      const r = await loadPartLog(dir);
      const n = countEntries(r.parts);
      lines.push(`${label}: ${n} entries loaded${r.torn.length ? `, torn tail ignored (${r.torn[0].torn}; valid up to ${r.torn[0].end})` : ''} ${n === expectEntries ? 'OK' : `EXPECTED ${expectEntries}`}`);
      return r;
    } catch (e) {
      lines.push(`${label}: ${e instanceof CorruptLogError ? 'reported' : 'UNEXPECTED'}: ${e.message}`);
      return null;
    }
  };
  await check('intact file (1000 puts, 1 remove)', 999);
  // torn: cut the last record (the remove, 27 bytes) in the middle
  fs.writeFileSync(file, full.subarray(0, full.length - 10));
  const r = await check('last record cut 10 bytes short', 1000);
  // recovery cuts the file at the last valid record, then appends continue
  if (r) fs.truncateSync(file, r.torn[0].end);
  {
    const s2 = new LogStore(dir, { layout: 'partition', fsync: true, io: 'async' });
    s2.open();
    await s2.put(7, MAP, 'after-recovery', CT, 0, 'x');
    await s2.close();
  }
  await check('after truncating to the valid end and appending 1 put (fsync true)', 1001);
  // cut inside the header of the last record
  fs.writeFileSync(file, full.subarray(0, full.length - 27 + 5));
  await check('last record cut inside its 8-byte header', 1000);
  // zero-filled tail (file size extended, data never written)
  fs.writeFileSync(file, Buffer.concat([full, Buffer.alloc(4096)]));
  await check('4 KiB of zeros after the last record', 999);
  // a length field that cannot be a record (0 or > 64 MiB) is corruption even in the last record
  {
    const b = Buffer.from(full);
    b.writeUInt32LE(0x7fffffff, full.length - 27);
    fs.writeFileSync(file, b);
    await check('last record with length 0x7fffffff', -1);
  }
  // flipped byte in the middle: corruption, not a torn tail
  {
    const b = Buffer.from(full);
    const mid = MAGIC.length + 500 * sample.length + 40;
    b[mid] ^= 0xff;
    fs.writeFileSync(file, b);
    await check('one byte flipped in record 500 of 1001', -1);
  }
  // member-log layout: the same torn-tail rule through the chunked reader
  {
    const mdir = path.join(dir, 'member');
    const ms = new LogStore(mdir, { layout: 'member', fsync: false, io: 'sync' });
    ms.open();
    for (let i = 0; i < 1000; i++) void ms.put(i % PARTITIONS, MAP, keyOf(i), CT, 0, valueOf(i, 0));
    await ms.close();
    const mf = memberFile(mdir);
    fs.truncateSync(mf, fs.statSync(mf).size - 50);
    const mr = await loadMemberLog(mdir);
    lines.push(`member log, last record cut 50 bytes short: ${countEntries(mr.parts)} entries loaded, ${mr.torn.length ? `torn tail ignored (${mr.torn[0].torn})` : 'no torn tail?'} ${countEntries(mr.parts) === 999 ? 'OK' : 'EXPECTED 999'}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  out({ lines });
}

// ---------------------------------------------------------------- the orchestrator

function runChild(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=8192', SELF, ...args, '--entries', String(ENTRIES), '--inflight', String(INFLIGHT), '--sync-seconds', opt['sync-seconds'], '--sync-max', opt['sync-max']], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('exit', (code) => {
      const line = text.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`child ${args.join(' ')} exited ${code}: ${text}`));
      else resolve(JSON.parse(line.slice(7)));
    });
  });
}

function dropCache(dir) {
  for (const f of fs.readdirSync(dir)) {
    const file = path.join(dir, f);
    if (!fs.statSync(file).isFile()) continue;
    const fd = fs.openSync(file, 'r');
    fs.fsyncSync(fd); // dirty pages cannot be dropped
    fs.closeSync(fd);
    execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
  }
}
function cachedShare(dir) {
  try {
    const files = fs.readdirSync(dir).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());
    const txt = execFileSync('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'RES,SIZE', ...files], { encoding: 'utf8' });
    let res = 0;
    let size = 0;
    for (const l of txt.trim().split('\n')) {
      const [a, b] = l.trim().split(/\s+/).map(Number);
      res += a;
      size += b;
    }
    return size ? res / size : NaN;
  } catch {
    return NaN;
  }
}

const fmt = {
  n: (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–'),
  ms: (x) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : '–'),
  s: (x) => (Number.isFinite(x) ? x.toFixed(2) : '–'),
  us: (x) => (Number.isFinite(x) ? x.toFixed(1) : '–'),
  mb: (x) => (Number.isFinite(x) ? (x / 1048576).toFixed(0) : '–'),
};
function table(head, rows) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join(' | ') + ' |';
  return [line(head), '|' + w.map((x, i) => (i === 0 ? '-'.repeat(x + 2) : '-'.repeat(x + 1) + ':')).join('|') + '|', ...rows.map(line)].join('\n');
}

async function best(n, fn) {
  let b = null;
  for (let i = 0; i < n; i++) {
    const r = await fn(i);
    if (b === null || r.perSec > b.perSec) b = r;
  }
  return b;
}

async function bestTime(n, fn) {
  let b = null;
  for (let i = 0; i < n; i++) {
    const r = await fn(i);
    if (b === null || r.seconds < b.seconds) b = r;
  }
  return b;
}

function lmdbInstallInfo() {
  if (!loadLmdb()) return null;
  const nm = path.join(path.resolve(LMDB_FROM), 'node_modules');
  let version = '?';
  try {
    version = JSON.parse(fs.readFileSync(path.join(nm, 'lmdb/package.json'), 'utf8')).version;
  } catch {
    /* keep '?' */
  }
  const compiled = fs.existsSync(path.join(nm, 'lmdb/build/Release'));
  let prebuilt = '';
  try {
    prebuilt = fs.readdirSync(path.join(nm, '@lmdb')).join(',');
  } catch {
    /* none */
  }
  let size = NaN;
  try {
    size = Number(execFileSync('du', ['-sb', nm], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    /* ignore */
  }
  return { version, compiled, prebuilt, size };
}

async function main() {
  if (opt.case) {
    const steps = { write: caseWrite, restart: caseRestart, compact: caseCompact, drop: caseDrop, torn: caseTorn };
    await steps[opt.case]();
    return;
  }
  const only = new Set(opt.only.split(','));
  const repeat = Number(opt.repeat);
  const base = opt.dir;
  fs.rmSync(base, { recursive: true, force: true });
  fs.mkdirSync(base, { recursive: true });
  const say = (m) => process.stderr.write(`[engines] ${m}\n`);
  const lmdbInfo = lmdbInstallInfo();
  if (!lmdbInfo && (only.has('lmdb') || only.has('sync'))) {
    say(`lmdb not found from ${LMDB_FROM} (set LMDB_FROM to a dir whose node_modules has lmdb; e.g. mkdir -p /tmp/engines && cd /tmp/engines && npm init -y && npm install --no-save lmdb): the lmdb rows are skipped`);
  }
  const engines = ['log-part', 'log-member', 'lmdb'].filter((e) => only.has(e) && (e !== 'lmdb' || lmdbInfo));
  const header = [
    `node ${process.version}, ${(await import('node:os')).cpus().length} cores, ${ENTRIES.toLocaleString('en-US')} entries (10-byte keys, ${VALUE_SIZE}-byte values, content type '${CT}', map '${MAP}') over ${PARTITIONS} partitions, ${INFLIGHT} writes in flight, dir ${base}`,
    `crc32: ${HAS_ZLIB_CRC ? 'zlib.crc32 (native)' : 'table-driven JS (zlib.crc32 missing)'}`,
    lmdbInfo ? `lmdb ${lmdbInfo.version} from ${LMDB_FROM}: ${lmdbInfo.compiled ? 'COMPILED at install (build/Release present)' : `prebuilt binary (${lmdbInfo.prebuilt || '?'}), no compile`}; node_modules ${fmt.mb(lmdbInfo.size)} MiB` : 'lmdb: not installed, skipped',
  ];
  say(header.join('\n[engines] '));

  const results = { header, torn: null, engines: {}, sync: [] };

  if (only.has('torn')) {
    say('torn-record demonstration');
    results.torn = (await runChild(['--case', 'torn', '--dir', path.join(base, 'torn')])).lines;
  }

  if (engines.length) {
    say(`baseline: the write loop with no store (batching and promises only)`);
    results.baseline = await best(repeat, () => runChild(['--case', 'write', '--engine', 'none', '--dir', path.join(base, 'none'), '--mode', 'nosync']));
  }
  for (const engine of engines) {
    const dir = path.join(base, engine);
    const io = 'sync';
    const e = (results.engines[engine] = {});
    const writeArgs = (gen) => ['--case', 'write', '--engine', engine, '--dir', dir, '--mode', 'nosync', '--io', io, '--gen', String(gen)];
    say(`${engine}: fill ${ENTRIES} (fsync false)`);
    e.fill = await best(repeat, async (i) => {
      if (i > 0) fs.rmSync(dir, { recursive: true, force: true });
      return runChild(writeArgs(0));
    });
    if (engine !== 'lmdb') {
      // the same fill with writev on the thread pool instead of the main thread
      const adir = dir + '-async';
      say(`${engine}: fill ${ENTRIES} (fsync false, async writev)`);
      e.fillAsync = await best(repeat, async () => {
        fs.rmSync(adir, { recursive: true, force: true });
        return runChild(['--case', 'write', '--engine', engine, '--dir', adir, '--mode', 'nosync', '--io', 'async', '--gen', '0']);
      });
      fs.rmSync(adir, { recursive: true, force: true });
    }
    const restart = (cold) =>
      bestTime(repeat, () => {
        if (cold) {
          dropCache(dir);
          e.cachedBeforeCold = Math.max(e.cachedBeforeCold ?? 0, cachedShare(dir));
        }
        return runChild(['--case', 'restart', '--engine', engine, '--dir', dir]);
      });
    say(`${engine}: restart after fill (warm, cold)`);
    e.restartFillWarm = await restart(false);
    e.restartFillCold = await restart(true);
    say(`${engine}: overwrite every key once (fsync false)`);
    e.overwrite = await runChild(writeArgs(1));
    e.restartOverWarm = await restart(false);
    if (engine !== 'lmdb') {
      say(`${engine}: compaction`);
      e.compact = await runChild(['--case', 'compact', '--engine', engine, '--dir', dir]);
      e.restartCompactWarm = await restart(false);
      e.restartCompactCold = await restart(true);
    } else {
      e.restartOverCold = await restart(true);
    }
    say(`${engine}: drop partition 0`);
    e.drop = await runChild(['--case', 'drop', '--engine', engine, '--dir', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  if (only.has('sync')) {
    const variants = [
      { name: 'log-part, fdatasync per touched file', engine: 'log-part', mode: 'sync' },
      { name: 'log-part, same, UV_THREADPOOL_SIZE=16', engine: 'log-part', mode: 'sync', env: { UV_THREADPOOL_SIZE: '16' } },
      { name: 'log-member, one fdatasync', engine: 'log-member', mode: 'sync' },
      { name: 'lmdb, sync commit (overlappingSync off)', engine: 'lmdb', mode: 'sync' },
      { name: 'lmdb, commit then flushed (overlappingSync)', engine: 'lmdb', mode: 'overlap' },
    ];
    for (const v of variants) {
      if (v.engine === 'lmdb' && !lmdbInfo) continue;
      const dir = path.join(base, 'sync-' + v.engine);
      say(`fsync true: ${v.name}`);
      const r = await best(repeat, async () => {
        fs.rmSync(dir, { recursive: true, force: true });
        return runChild(['--case', 'write', '--engine', v.engine, '--dir', dir, '--mode', v.mode, '--io', 'async'], v.env);
      });
      fs.rmSync(dir, { recursive: true, force: true });
      results.sync.push({ ...v, r });
    }
  }

  // ---- report
  const lines = ['', ...header, ''];
  if (results.torn) lines.push('(d) log record format [u32 len][u32 crc32(payload)][payload]:', ...results.torn.map((l) => '  ' + l), '');
  const E = Object.entries(results.engines);
  if (E.length) {
    lines.push(`(a) write then acknowledge, fsync false, ${ENTRIES.toLocaleString('en-US')} fresh keys then every key overwritten once (${INFLIGHT} in flight):`);
    const rows = [];
    const row0 = (label, r) => [label, fmt.n(r.perSec), fmt.ms(r.p50), fmt.ms(r.p99), fmt.ms(r.max), fmt.us(r.cpuUsPerWrite), fmt.us(r.mainUsPerWrite), '64', `${fmt.mb(r.rssAnon)}/${fmt.mb(r.rssFile)}`];
    if (results.baseline) rows.push(row0('baseline: no store (harness only)', results.baseline));
    for (const [name, e] of E) {
      const row = (label, r) => [label, fmt.n(r.perSec), fmt.ms(r.p50), fmt.ms(r.p99), fmt.ms(r.max), fmt.us(r.cpuUsPerWrite), fmt.us(r.mainUsPerWrite), r.perBatch ? r.perBatch.toFixed(0) : '–', `${fmt.mb(r.rssAnon)}/${fmt.mb(r.rssFile)}`];
      rows.push(row(`${name} fill${name === 'lmdb' ? ' (noSync)' : ' (writev on main thread)'}`, e.fill));
      if (e.fillAsync) rows.push(row(`${name} fill (writev on thread pool)`, e.fillAsync));
      rows.push(row(`${name} overwrite`, e.overwrite));
    }
    lines.push(table(['engine / phase', 'writes/s', 'p50 ms', 'p99 ms', 'max ms', 'CPU µs/w', 'main µs/w', 'w/batch', 'RSS anon/file MiB'], rows), '');
  }
  if (results.sync.length) {
    lines.push(`(a) write then acknowledge, fsync true (group commit), up to ${opt['sync-max']} writes or ${opt['sync-seconds']} s:`);
    lines.push(
      table(
        ['variant', 'writes/s', 'p50 ms', 'p99 ms', 'max ms', 'CPU µs/w', 'w/batch', 'fsyncs/s'],
        results.sync.map(({ name, r }) => [name, fmt.n(r.perSec), fmt.ms(r.p50), fmt.ms(r.p99), fmt.ms(r.max), fmt.us(r.cpuUsPerWrite), r.perBatch ? r.perBatch.toFixed(0) : '–', r.fileWrites ? fmt.n(r.fileWrites / r.seconds) : '–']),
      ),
      '',
    );
  }
  if (E.length) {
    lines.push('(b) bytes on disk per entry (apparent size / allocated blocks):');
    const per = (d) => `${(d.size / ENTRIES).toFixed(1)} / ${(d.alloc / ENTRIES).toFixed(1)}`;
    lines.push(
      table(
        ['engine', 'after fill', 'after overwrite', 'after compaction', 'compaction s', 'files'],
        E.map(([name, e]) => [name, per(e.fill.disk), per(e.overwrite.disk), e.compact ? per(e.compact.disk) : 'n/a (B-tree, pages reused)', e.compact ? fmt.s(e.compact.seconds) : '–', e.overwrite.disk.files]),
      ),
      '',
    );
    lines.push('(c) restart: read everything into per-partition Maps (seconds; entries; RSS after):');
    const rs = (r) => (r ? `${fmt.s(r.seconds)} s (${fmt.n(r.entries)}${r.torn ? `, ${r.torn} torn` : ''})` : '–');
    lines.push(
      table(
        ['engine', 'after fill, warm', 'after fill, cold', 'after overwrite, warm', 'compacted, warm', 'latest, cold', 'RSS anon/file MiB'],
        E.map(([name, e]) => [
          name,
          rs(e.restartFillWarm),
          rs(e.restartFillCold),
          rs(e.restartOverWarm),
          rs(e.restartCompactWarm),
          rs(e.restartCompactCold ?? e.restartOverCold),
          `${fmt.mb(e.restartFillWarm.rssAnon)}/${fmt.mb(e.restartFillWarm.rssFile)}`,
        ]),
      ),
      `  (page cache share of the files before the cold runs: ${E.map(([n, e]) => `${n} ${(e.cachedBeforeCold * 100).toFixed(0)}%`).join(', ')})`,
      '',
    );
    lines.push('drop one partition (migration: the old owner discards it):');
    for (const [name, e] of E) lines.push(`  ${name}: ${(e.drop.seconds * 1000).toFixed(1)} ms — ${e.drop.how}`);
    lines.push('');
  }
  const report = lines.join('\n');
  process.stdout.write(report + '\n');
  const resultsDir = path.join(path.dirname(SELF), 'results');
  try {
    fs.mkdirSync(resultsDir, { recursive: true });
    fs.writeFileSync(path.join(resultsDir, 'persistence-engines.json'), JSON.stringify(results, null, 2));
    fs.writeFileSync(path.join(resultsDir, 'persistence-engines.txt'), report + '\n');
  } catch {
    /* results are printed anyway */
  }
  fs.rmSync(base, { recursive: true, force: true });
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
