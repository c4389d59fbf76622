// The event journal's own costs, without a cluster: the id a journaled change stream sends
// with every event (its length and the µs to encode it, by how many partitions the stream has
// seen), and a partition ring's append and read. Rounds, median of the rounds; run it twice on
// a loaded machine. What a journal costs a member's writes end to end is the events phase's
// (`--only events`) question with a journaled map.
//
//   npm run build && node bench/event-journal.mjs

import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = new URL('../dist', import.meta.url).pathname;
const { StreamCursor } = await import(pathToFileURL(path.join(dist, 'events', 'journal-cursor.js')).href);
const { JournalRing } = await import(pathToFileURL(path.join(dist, 'events', 'journal-ring.js')).href);

const ROUNDS = 7;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cursorRound(partitions, events) {
  const c = new StreamCursor(Date.now());
  for (let p = 0; p < partitions; p++) c.set(Math.floor((p * 271) / partitions), 40 + (p % 3), 1000 + p);
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < events; i++) {
    const p = Math.floor(((i % partitions) * 271) / partitions);
    c.set(p, 40 + (p % 3), 2000 + i);
    sink += c.encode().length;
  }
  const us = Number(process.hrtime.bigint() - t0) / events / 1000;
  return { us, length: c.encode().length, sink };
}

function ringRound(capacity, events) {
  const r = new JournalRing(capacity);
  const e = (s) => ({ event: { mapName: 'm', partitionId: 1, epoch: 1, sequence: s, type: 'updated', key: `k${s}`, oldValue: undefined, newValue: undefined, count: 1 }, atMs: s });
  const t0 = process.hrtime.bigint();
  for (let s = 1; s <= events; s++) r.append(e(s));
  const appendNs = Number(process.hrtime.bigint() - t0) / events;
  let read = 0;
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) {
    const x = r.read({ after: { epoch: 1, sequence: events - capacity + (i % capacity) } }, 1000);
    read += x.ok ? x.entries.length : 0;
  }
  const readNsPerEvent = Number(process.hrtime.bigint() - t1) / Math.max(1, read);
  return { appendNs, readNsPerEvent };
}

console.log('stream id (one per event), by partitions seen:');
for (const partitions of [1, 10, 100, 271]) {
  const rounds = Array.from({ length: ROUNDS }, () => cursorRound(partitions, 20_000));
  console.log(`  ${String(partitions).padStart(3)} partitions: ${String(rounds[0].length).padStart(5)} chars, ${median(rounds.map((r) => r.us)).toFixed(2)} us to encode`);
}
console.log('partition ring:');
for (const capacity of [36, 3690]) {
  const rounds = Array.from({ length: ROUNDS }, () => ringRound(capacity, 200_000));
  console.log(`  capacity ${String(capacity).padStart(4)}: append ${median(rounds.map((r) => r.appendNs)).toFixed(0)} ns, read ${median(rounds.map((r) => r.readNsPerEvent)).toFixed(0)} ns per event`);
}
