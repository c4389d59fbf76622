// Where the bytes of one map entry go, measured in process: 1,000,000 entries `k<i>` -> 100-byte
// values put into one RecordStore per partition (as a member holds a map), with the heap measured
// after a full GC between steps. See bench/README.md ("Memory per entry, in process").
//
//   node --expose-gc bench/entry-memory.mjs [--dist DIR] [--entries N] [--value-bytes N] [--content-type T|none] [--ttl S] [--max-idle S] [--stats]
//   node bench/entry-memory.mjs --rest [--grid-bin PATH] [--entries N]
//
// DIR is a build of src/ (default: /tmp/gb-mem/dist, else ./dist). --rest confirms with a real
// member (PATH, default /tmp/gb-mem/bin/grid.js, else bin/grid.js) as the bench's memory phase
// does: warm-up, RSS, N entries through REST, 2 s, RSS; plus RSS again 10 s later.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const flag = (name) => args.includes(`--${name}`);

if (flag('rest')) {
  await restMode();
  process.exit(0);
}

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}

const dist = resolve(opt('dist', existsSync('/tmp/gb-mem/dist') ? '/tmp/gb-mem/dist' : 'dist'));
const entries = Number(opt('entries', '1000000'));
const valueBytes = Number(opt('value-bytes', '100'));
const ctArg = opt('content-type', 'text/plain');
const contentType = ctArg === 'none' ? undefined : ctArg;
const ttlMs = Number(opt('ttl', '0')) * 1000;
const maxIdleMs = Number(opt('max-idle', '0')) * 1000;
const stats = flag('stats');

const { RecordStore } = await import(pathToFileURL(`${dist}/map/record-store.js`).href);
const { partitionIdOf, PARTITION_COUNT } = await import(pathToFileURL(`${dist}/partition/partitioning.js`).href);

function heap() {
  for (let i = 0; i < 4; i++) globalThis.gc();
  const h = v8.getHeapStatistics();
  const m = process.memoryUsage();
  return { used: h.used_heap_size, total: h.total_heap_size, rss: m.rss, buffers: m.arrayBuffers };
}
const per = (bytes) => (bytes / entries).toFixed(1);

// A value as the REST layer makes it: a fresh latin1 string decoded from the request's bytes.
const body = Buffer.alloc(valueBytes, 0x61);
function valueOf(i) {
  body.writeUInt32LE(i >>> 0, 0);
  return body.toString('latin1');
}

// Everything measured hangs off this object: V8 lets the GC collect what a module's local
// variables hold once they are no longer read, which would make the deltas lie.
const live = {};
globalThis.entryMemoryLive = live;

const h0 = heap();

// 1. The array slots the keys and values are held in while we build them (8 bytes each), measured alone.
live.keys = new Array(entries).fill('');
live.values = new Array(entries).fill('');
const { keys, values } = live;
const h1 = heap();

// 2. Keys (`k<i>`: flat one-byte strings, as the REST layer cuts them from the URL).
for (let i = 0; i < entries; i++) keys[i] = `k${i}`;
const h2 = heap();

// 3. Values.
for (let i = 0; i < entries; i++) values[i] = valueOf(i);
const h3 = heap();

// 4. A bare Map per partition from key to value: what the hash table alone costs.
live.bare = [];
for (let p = 0; p < PARTITION_COUNT; p++) live.bare.push(new Map());
const pids = new Uint16Array(entries);
for (let i = 0; i < entries; i++) pids[i] = partitionIdOf(keys[i]);
const h4a = heap();
for (let i = 0; i < entries; i++) live.bare[pids[i]].set(keys[i], values[i]);
const h4 = heap();
live.bare = null;
const h4b = heap();

// 5. The record stores (one per partition, as MapContainer keeps them).
const now = Date.now();
live.stores = [];
const { stores } = live;
for (let p = 0; p < PARTITION_COUNT; p++) stores.push(new RecordStore({ ttlMs, maxIdleMs, stats }));
for (let i = 0; i < entries; i++) stores[pids[i]].put(keys[i], values[i], contentType, now);
const h5 = heap();

// 6. Drop the builders: what stays is what the stores hold.
live.keys = null;
live.values = null;
const h6 = heap();

let size = 0;
for (const s of stores) size += s.size;
if (size !== entries) throw new Error(`stores hold ${size} entries, expected ${entries}`);
// Sanity: a read answers the value.
const probe = stores[partitionIdOf('k7')].get('k7', now);
if (probe === undefined || probe.value.length !== valueBytes || probe.contentType !== contentType) throw new Error('k7 did not read back');

const mapSlot = h4.used - h4a.used;
/** The slabs' own account, when the stores keep one (src/map/entry-slab.ts). */
function slabLine() {
  const slabs = stores.map((s) => s.slab?.footprint).filter((f) => f !== undefined);
  if (slabs.length === 0) return '';
  const sum = (k) => slabs.reduce((n, f) => n + f[k], 0);
  return ` (slab records ${per(sum('usedBytes') - sum('deadBytes'))} + dead ${per(sum('deadBytes'))} + free capacity ${per(sum('chunkBytes') - sum('usedBytes'))} + index ${per(sum('indexBytes'))})`;
}
const storeTotal = h5.used - h4b.used;
const lines = [
  `entries ${entries.toLocaleString('en')}, value ${valueBytes} B, content type ${contentType ?? '(none)'}, ttl ${ttlMs / 1000} s, max-idle ${maxIdleMs / 1000} s, stats ${stats}; node ${process.version}, dist ${dist}`,
  `bytes per entry, after a full GC:`,
  `  key string (k<i>, as the REST layer cuts it)   ${per(h2.used - h1.used)}`,
  `  value string (as the REST layer decodes it)    ${per(h3.used - h2.used)}`,
  `  JS Map slot (a bare Map key -> value)          ${per(mapSlot)}`,
  `the record stores (one per partition) built from those strings add:`,
  `  JS heap                                        ${per(storeTotal)}`,
  `  ArrayBuffers                                   ${per(h5.buffers - h4b.buffers)}${slabLine()}`,
  `what an entry costs once the strings given to put() are dropped (what the stores keep):`,
  `  JS heap ${per(h6.used - h0.used)} + ArrayBuffers ${per(h6.buffers - h0.buffers)} = ${per(h6.used - h0.used + h6.buffers - h0.buffers)}`,
  `  (heap reserved ${per(h6.total - h0.total)}, RSS ${per(h6.rss - h0.rss)}: both include the slack the builders left; --rest measures RSS as the bench does)`,
];
console.log(lines.join('\n'));

async function restMode() {
  const lib = await import('./lib.mjs');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const bin = resolve(opt('grid-bin', existsSync('/tmp/gb-mem/bin/grid.js') ? '/tmp/gb-mem/bin/grid.js' : 'bin/grid.js'));
  const count = Number(opt('entries', '1000000'));
  const port = await lib.freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-entry-mem-'));
  lib.tempDirs.push(dir);
  const config = path.join(dir, 'grid.yaml');
  writeFileSync(
    config,
    ['hazelcast:', '  cluster-name: entry-mem', '  network:', `    port: { port: ${port}, auto-increment: false }`,
      '    rest-api:', '      enabled: true', '      endpoint-groups:', '        DATA: { enabled: true }', '        HEALTH_CHECK: { enabled: true }', '        CLUSTER_READ: { enabled: true }',
      ...(opt('http-path') === undefined ? [] : ['  properties:', `    grid.rest.http-path: ${opt('http-path')}`]), ''].join('\n'),
  );
  const child = lib.startChild('member', [bin, 'start', '--config', config], 'member-entry-memory.log');
  try {
    await lib.waitReady(child, port);
    const warm = await lib.pipelinedLoad({ port, map: 'warmup', count: 5000, keyOf: (i) => `w${i}` });
    if (warm.ok !== warm.count) throw new Error(`warm-up: ${JSON.stringify(warm.statuses)}`);
    await new Promise((r) => setTimeout(r, 1000));
    const before = lib.readRss(child.pid);
    const heapBefore = await heapOf(lib, port);
    const load = await lib.pipelinedLoad({ port, map: 'mem', count, keyOf: (i) => `k${i}` });
    if (load.ok !== count) throw new Error(`load: ${load.ok}/${count} answered 200`);
    await new Promise((r) => setTimeout(r, 2000));
    const after = lib.readRss(child.pid);
    await new Promise((r) => setTimeout(r, 10000));
    const later = lib.readRss(child.pid);
    const heapAfter = await heapOf(lib, port);
    const b = (x) => ((x - before.rss) / count).toFixed(1);
    const b2 = (x) => (x / count).toFixed(1);
    console.log(`${bin}: ${count.toLocaleString('en')} entries x 100 B through REST (load ${Math.round(load.rate).toLocaleString('en')}/s): ` +
      `RSS before ${(before.rss / 1e6).toFixed(1)} MB; +2 s: ${b(after.rss)} bytes/entry; +12 s: ${b(later.rss)} bytes/entry; peak ${(later.hwm / 1e6).toFixed(1)} MB`);
    if (heapBefore !== undefined && heapAfter !== undefined) {
      const spaces = Object.keys(heapAfter.used).map((sp) => `${sp} ${b2(heapAfter.used[sp] - (heapBefore.used[sp] ?? 0))}/${b2(heapAfter.size[sp] - (heapBefore.size[sp] ?? 0))}`);
      console.log(`  V8 heap per entry, used/size (process metrics, at +12 s): ${spaces.join(', ')}`);
    }
  } finally {
    await lib.stopChild(child);
    await lib.cleanup();
  }
}

/** The member's V8 heap spaces (used and size) from its process metrics, if it serves them. */
async function heapOf(lib, port) {
  try {
    const r = await lib.httpRequest(port, 'GET', '/metrics');
    if (r.status !== 200) return undefined;
    const used = {};
    const size = {};
    for (const m of String(r.body).matchAll(/^nodejs_heap_space_size_(used|total)_bytes\{space="(\w+)"\} (\d+)/gm)) {
      (m[1] === 'used' ? used : size)[m[2]] = Number(m[3]);
    }
    return Object.keys(used).length > 0 ? { used, size } : undefined;
  } catch {
    return undefined;
  }
}
