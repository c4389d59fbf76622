// Whether memory freed by deletes leaves the process (`node bench/freed-memory.mjs`, after
// `npm run build`), the two figures behind the memory guard's resume rule (docs/maps.md):
//   - glibc: 250 ArrayBuffers of 1 MiB freed below a live 32 KiB one, in a child node, with and
//     without a first 1 MiB block freed before (which raises glibc's mmap threshold), and with
//     MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ set: resident set and buffers after the free;
//   - EntrySlab: chunk bytes a store of 100 values of 1 MiB (and of 100,000 of 100 bytes) keeps
//     after removing some of them.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const mb = (n) => (n / 1048576).toFixed(0);

if (process.argv[2] === '--child') {
  // One allocation pattern; prints the resident set and buffers after filling and after freeing.
  const alloc = (n) => Buffer.from(new ArrayBuffer(n)).fill(1);
  const settle = async () => {
    for (let i = 0; i < 100 && process.memoryUsage().arrayBuffers > 16 << 20; i++) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  if (process.argv[3] === 'raise') {
    alloc(1 << 20);
    await settle();
  }
  let blocks = [];
  const keep = [];
  for (let i = 0; i < 250; i++) {
    blocks.push(alloc((1 << 20) + 64));
    if (i % 25 === 24) keep.push(alloc(32 * 1024));
  }
  const filled = process.memoryUsage();
  blocks = null;
  await settle();
  const freed = process.memoryUsage();
  console.log(JSON.stringify({ filledRss: filled.rss, freedRss: freed.rss, freedBuffers: freed.arrayBuffers, keep: keep.length }));
  process.exit(0);
}

console.log('glibc: 250 x 1 MiB freed below a live block (resident MiB filled -> after the free; buffers left)');
for (const raise of ['no', 'raise']) {
  for (const [name, env] of [
    ['default', {}],
    ['MALLOC_MMAP_THRESHOLD_=131072', { MALLOC_MMAP_THRESHOLD_: '131072' }],
    ['MALLOC_TRIM_THRESHOLD_=131072', { MALLOC_TRIM_THRESHOLD_: '131072' }],
  ]) {
    const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', raise], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const o = JSON.parse(r.stdout.trim());
    console.log(`  ${raise === 'raise' ? 'a 1 MiB block freed first' : 'nothing freed first'.padEnd(25)}  ${name.padEnd(30)} ${mb(o.filledRss)} -> ${mb(o.freedRss)} (buffers ${mb(o.freedBuffers)})`);
  }
}

const { EntrySlab } = await import(pathToFileURL(path.resolve(HERE, '../dist/map/entry-slab.js')).href);
console.log('EntrySlab: chunk MiB kept after removals (compactIfSparse after each, as RecordStore does)');
for (const [what, count, value] of [['1 MiB values', 100, 'x'.repeat(1 << 20)], ['100-byte values', 100_000, 'v'.repeat(100)]]) {
  for (const pct of [10, 49, 51, 100]) {
    const s = new EntrySlab(4);
    for (let i = 0; i < count; i++) s.put(`k${i}`, value, undefined);
    const before = s.footprint.chunkBytes;
    for (let i = 0; i < (count * pct) / 100; i++) {
      s.remove(`k${i}`);
      s.compactIfSparse();
    }
    console.log(`  ${String(count).padStart(6)} x ${what.padEnd(15)} ${String(pct).padStart(3)}% removed: ${(before / 1048576).toFixed(1)} -> ${(s.footprint.chunkBytes / 1048576).toFixed(1)}`);
  }
}
