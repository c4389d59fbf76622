// Data an older Grid wrote under partition hash version 1 (murmur3 of a key's raw UTF-8 bytes):
// the member directory is laid out by hand exactly as that Grid lays it out (the same log
// format, member.json, no `partition-hash` file), with the old partition ids. A member that was
// its cluster's only data member converts it at start: every record is re-homed to its
// partition under Hazelcast's hash, the log is rewritten and the directory marked. The member is
// killed with SIGKILL during the conversion, twice, and must neither lose nor duplicate anything.
// A member whose data is one share of a larger cluster is refused, with how to convert.

import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodePersistedEntry } from '../../src/map/map-persistence.js';
import { partitionIdOf, partitionIdOfV1, queuePartitionIdOf } from '../../src/partition/partitioning.js';
import { encodeRecord, LogOp, type LogRecord } from '../../src/persistence/log-format.js';
import { compareEntries, persistentCluster, requestBytes, type Entry, type PersistentCluster } from '../support/persistence.js';
import { waitFor } from '../support/wait.js';

const MAP = 'persisted-a';
const QUEUE = 'persisted-q';

interface V1Data {
  readonly dir: string;
  readonly entries: Map<string, Entry>;
  readonly removed: string[];
  readonly items: string[];
}

/** Writes a version-1 member directory for the member on `port`: 3000 entries (some removed, one old partition dropped) and a queue of 300 items. */
function writeV1Dir(pc: PersistentCluster, port: number, members: number): V1Data {
  const dir = join(String(pc.persistence['base-dir']), randomUUID());
  mkdirSync(dir, { recursive: true });
  const uuid = randomUUID();
  const others = Array.from({ length: members - 1 }, (_, i) => ({ uuid: randomUUID(), address: `127.0.0.1:${port + 1000 + i}` }));
  const address = `127.0.0.1:${port}`;
  const all = [{ uuid, address }, ...others];
  writeFileSync(
    join(dir, 'member.json'),
    JSON.stringify({
      uuid,
      clusterName: 'dev',
      address,
      members: all,
      partitionTableVersion: 272,
      partitions: Array.from({ length: 271 }, (_, p) => [all[p % all.length]!.uuid]),
      clean: true,
      savedAt: Date.now(),
    }),
  );
  const records: LogRecord[] = [];
  const entries = new Map<string, Entry>();
  const now = Date.now();
  for (let i = 0; i < 3000; i++) {
    const key = i % 7 === 0 ? `ключ-${i}-🙂` : `k-${i}`;
    const value = Buffer.from(`value of ${key} (${i})`, 'utf8');
    const contentType = i % 2 === 0 ? 'text/plain' : 'application/json';
    entries.set(key, { value, contentType });
    records.push({
      op: LogOp.Put,
      partitionId: partitionIdOfV1(key),
      service: 'map',
      name: MAP,
      key,
      value: encodePersistedEntry({ value: value.toString('latin1'), contentType, creationTime: now, lastUpdateTime: now } as never),
    });
  }
  const removed: string[] = [];
  for (let i = 0; i < 100; i++) {
    const key = `k-${i * 3 + 1}`;
    if (!entries.delete(key)) continue;
    removed.push(key);
    records.push({ op: LogOp.Remove, partitionId: partitionIdOfV1(key), service: 'map', name: MAP, key });
  }
  // A partition that left the member (old ids): what was in it is gone.
  const dropped = partitionIdOfV1('k-2000');
  records.push({ op: LogOp.DropPartition, partitionId: dropped });
  for (const key of [...entries.keys()]) {
    if (partitionIdOfV1(key) === dropped) {
      entries.delete(key);
      removed.push(key);
    }
  }
  const items: string[] = [];
  const qpid = partitionIdOfV1(QUEUE);
  if (qpid === dropped) throw new Error('the test queue is in the dropped partition: pick another');
  for (let i = 1; i <= 300; i++) {
    const text = `item-${i}`;
    items.push(text);
    const b = Buffer.alloc(2 + text.length);
    b.writeUInt16LE(0xffff, 0);
    b.write(text, 2, 'latin1');
    records.push({ op: LogOp.Put, partitionId: qpid, service: 'queue', name: QUEUE, key: String(i), value: b });
  }
  // Two segments, as a log that rolled over.
  const half = Math.floor(records.length / 2);
  writeFileSync(join(dir, 'seg-00000001.log'), Buffer.concat(records.slice(0, half).map(encodeRecord)));
  writeFileSync(join(dir, 'seg-00000002.log'), Buffer.concat(records.slice(half).map(encodeRecord)));
  return { dir, entries, removed, items };
}

/** Starts member 0 again and SIGKILLs it as soon as its log says `at` (or once it is up, if it got past it first). */
async function startAndKillAt(pc: PersistentCluster, at: string, first: boolean): Promise<boolean> {
  const m = first ? await pc.c.addMember({ wait: 'none' }) : await pc.c.restart(0, { wait: 'none' });
  let seen = false;
  await waitFor(
    `"${at}" in the log (or the member up)`,
    () => {
      seen = m.logMessages().some((l) => l.includes(at));
      return seen || m.logMessages().some((l) => l.includes('data converted to partition hash version'));
    },
    30_000,
    5,
  );
  await pc.c.kill(0);
  return seen;
}

describe('persistence: data of partition hash version 1', () => {
  it('is converted at start (each record to its new partition), surviving SIGKILL during the conversion without loss or duplicates', async () => {
    const pc = await persistentCluster({ size: 1, extra: { queue: { [QUEUE]: { 'data-persistence': { enabled: true } } } } });
    const port = pc.c.ports[0]!;
    const v1 = writeV1Dir(pc, port, 1);
    // Most keys are in another partition under the new hash: the conversion has work to do.
    const moved = [...v1.entries.keys()].filter((k) => partitionIdOf(k) !== partitionIdOfV1(k)).length;
    expect(moved).toBeGreaterThan(v1.entries.size * 0.9);
    expect(queuePartitionIdOf(QUEUE)).not.toBe(partitionIdOfV1(QUEUE));

    // Killed as the conversion starts, then as its snapshot is on disk (before or after the mark).
    expect(await startAndKillAt(pc, 'converting it to version 2', true)).toBe(true);
    await startAndKillAt(pc, 'persisted log compacted', false);
    await pc.c.restart(0, { wait: 'up', timeoutMs: 60_000 });

    expect(readFileSync(join(v1.dir, 'partition-hash'), 'utf8')).toBe('2\n');
    const ascii = new Map([...v1.entries].filter(([k]) => /^[\x21-\x7e]*$/.test(k)));
    expect(await compareEntries(port, MAP, ascii)).toEqual([]);
    for (const [key, e] of v1.entries) {
      if (ascii.has(key)) continue;
      const r = await requestBytes(port, 'GET', `/hazelcast/rest/maps/${MAP}/${encodeURIComponent(key)}`);
      expect([r.status, r.body.toString('latin1')], key).toEqual([200, e.value.toString('latin1')]);
    }
    for (const key of v1.removed.slice(0, 50)) expect((await requestBytes(port, 'GET', `/hazelcast/rest/maps/${MAP}/${encodeURIComponent(key)}`)).status, key).toBe(204);
    const polled: string[] = [];
    for (;;) {
      const r = await requestBytes(port, 'GET', `/hazelcast/rest/queues/${QUEUE}/0`);
      if (r.status !== 200) break;
      polled.push(r.body.toString('latin1'));
    }
    expect(polled).toEqual(v1.items);
    // The old segments are gone: the log is the converted snapshot and what came after it.
    expect(readdirSync(v1.dir).filter((n) => n === 'seg-00000001.log' || n === 'seg-00000002.log')).toEqual([]);
  }, 120_000);

  it("refuses one member's share of a larger cluster, saying how to convert it, and leaves the data as it was", async () => {
    const pc = await persistentCluster({ size: 1 });
    const port = pc.c.ports[0]!;
    const v1 = writeV1Dir(pc, port, 3);
    const before = readdirSync(v1.dir).sort();
    const m = await pc.c.addMember({ wait: 'none' });
    const exit = await pc.c.waitExit(0, 30_000);
    expect(exit.code).toBe(2);
    const out = m.output();
    expect(out).toContain('written by an older Grid, which placed keys by partition hash version 1; this Grid places them by version 2');
    expect(out).toContain('a cluster of 3 data members, which cannot be re-homed on one member');
    expect(out).toContain('To convert it:');
    expect(readdirSync(v1.dir).filter((n) => n !== 'lock').sort()).toEqual(before);
    expect(existsSync(join(v1.dir, 'partition-hash'))).toBe(false);
  }, 60_000);
});
