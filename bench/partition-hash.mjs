// The cost of placing a key: ns per partitionIdOf call for key shapes REST and clients send
// (short ASCII, a typical id, a long ASCII key, non-ASCII, emoji), in rounds, median of the
// rounds. Beside it: the old rule (hash version 1, raw UTF-8 bytes, partitionIdOfV1) and the
// naive form of the new one (serialize to a Buffer, then murmur3 the bytes), so the numbers say
// what the length prefix costs and what not allocating saves. Then the store key's path
// (map/map-keys.ts: partitionIdOfKey, what the map facade calls, and storeKeyOfText, what a
// REST path's key goes through) for the same String keys, and for the Data form of keys a
// Hazelcast client sends as other types. Run it twice on a loaded machine.
//
//   npm run build && node bench/partition-hash.mjs

import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = new URL('../dist', import.meta.url).pathname;
const P = await import(pathToFileURL(path.join(dist, 'partition', 'partitioning.js')).href);
const M = await import(pathToFileURL(path.join(dist, 'core', 'murmur3.js')).href);
const K = await import(pathToFileURL(path.join(dist, 'map', 'map-keys.js')).href);

const ROUNDS = 7;
const KEYS = 1000;
const PASSES = 300; // 300,000 calls per round

const shapes = [
  ['ascii 2', (i) => `k${i % 10}`],
  ['ascii 12', (i) => `user-${String(100000 + i)}`],
  ['ascii 64', (i) => `orders/2026/11/29/${String(i).padStart(8, '0')}-${'x'.repeat(37)}`],
  ['latin 12', (i) => `clé-${String(1000000 + i)}`],
  ['cjk 6', (i) => `日本語-${i % 1000}`],
  ['emoji 8', (i) => `🙂-${i % 100000}`],
];

const naive = (key) => {
  const utf8 = Buffer.from(key, 'utf8');
  const b = Buffer.allocUnsafe(4 + utf8.length);
  b.writeInt32BE(utf8.length, 0);
  utf8.copy(b, 4);
  return M.hashToIndex(M.murmur3Bytes(b, M.PARTITION_HASH_SEED), 271);
};

function nsPerKey(fn, keys) {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let p = 0; p < PASSES; p++) for (let i = 0; i < keys.length; i++) sink += fn(keys[i]);
  const ns = Number(process.hrtime.bigint() - t0) / (PASSES * keys.length);
  if (sink < 0) throw new Error('unreachable');
  return ns;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`ns per key, median of ${ROUNDS} rounds of ${PASSES * KEYS} calls (node ${process.version})`);
console.log(`${'key shape'.padEnd(10)} ${'v1 raw utf8'.padStart(12)} ${'v2 (Grid)'.padStart(12)} ${'v2 Buffer'.padStart(12)} ${'store key'.padStart(12)} ${'REST path'.padStart(12)}`);
const viaRest = (key) => K.partitionIdOfKey(K.storeKeyOfText(key));
for (const [name, make] of shapes) {
  const keys = Array.from({ length: KEYS }, (_, i) => make(i));
  for (const k of keys) if (naive(k) !== P.partitionIdOf(k)) throw new Error(`partitionIdOf(${k}) disagrees with the Buffer form`);
  for (const k of keys) if (K.partitionIdOfKey(k) !== P.partitionIdOf(k)) throw new Error(`partitionIdOfKey(${k}) disagrees with partitionIdOf`);
  const r = { v1: [], v2: [], buf: [], store: [], rest: [] };
  for (let round = 0; round < ROUNDS; round++) {
    r.v1.push(nsPerKey(P.partitionIdOfV1, keys));
    r.v2.push(nsPerKey(P.partitionIdOf, keys));
    r.buf.push(nsPerKey(naive, keys));
    r.store.push(nsPerKey(K.partitionIdOfKey, keys));
    r.rest.push(nsPerKey(viaRest, keys));
  }
  const f = (xs) => median(xs).toFixed(1).padStart(12);
  console.log(`${name.padEnd(10)} ${f(r.v1)} ${f(r.v2)} ${f(r.buf)} ${f(r.store)} ${f(r.rest)}`);
}

// Keys of other types, in their store key form (U+0000 + the Data): a Long (8-byte payload) and
// a 32-byte byte[], placed by murmur3 of the payload after the header.
const dataShapes = [
  ['Long', (i) => { const b = Buffer.alloc(16); b.writeInt32BE(-8, 4); b.writeBigInt64BE(BigInt(i) * 7919n, 8); return b; }],
  ['byte[] 32', (i) => { const b = Buffer.alloc(8 + 4 + 32); b.writeInt32BE(-12, 4); b.writeInt32BE(32, 8); b.fill(i & 0xff, 12); b.writeInt32BE(i, 12); return b; }],
];
console.log(`${'Data key'.padEnd(10)} ${'store key'.padStart(12)} ${'via Buffer'.padStart(12)}`);
for (const [name, make] of dataShapes) {
  const datas = Array.from({ length: KEYS }, (_, i) => make(i));
  const keys = datas.map((d) => K.dataKeyOf(d));
  const byBuffer = (key) => M.hashToIndex(M.murmur3Bytes(Buffer.from(key.slice(9), 'latin1'), M.PARTITION_HASH_SEED), 271);
  for (const k of keys) if (K.partitionIdOfKey(k) !== byBuffer(k)) throw new Error(`partitionIdOfKey disagrees with the Buffer form for a ${name}`);
  const r = { store: [], buf: [] };
  for (let round = 0; round < ROUNDS; round++) {
    r.store.push(nsPerKey(K.partitionIdOfKey, keys));
    r.buf.push(nsPerKey(byBuffer, keys));
  }
  const f = (xs) => median(xs).toFixed(1).padStart(12);
  console.log(`${name.padEnd(10)} ${f(r.store)} ${f(r.buf)}`);
}
