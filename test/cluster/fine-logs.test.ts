// Raising the log level shows what a member does (issue "First hour with Grid"): at FINEST a
// member logs its heartbeats, at FINE joins, migrations, retried invocations and every REST
// request (method, path, status, ms); a graceful leave is an INFO line, not a warning.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { waitFor } from '../support/process.js';

function lines(c: Cluster, i: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const l of c.member(i).process.stdout().split('\n')) {
    if (!l.startsWith('{')) continue;
    try {
      out.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      // a line still being written
    }
  }
  return out;
}

const msgs = (c: Cluster, i: number, level: string): string[] => lines(c, i).filter((l) => l.level === level).map((l) => String(l.msg));

describe('FINE and FINEST logs', () => {
  it('show heartbeats, joins, migrations, REST requests and retries; a graceful leave is not a warning', async () => {
    const c = await startCluster({ size: 3, properties: { 'hazelcast.logging.level': 'FINEST' } });

    const master = await c.masterIndex(0);
    const [a, b] = [0, 1, 2].filter((i) => i !== master) as [number, number];
    // Heartbeats at FINEST, both ways.
    await waitFor('heartbeats in the log', () => msgs(c, a, 'FINEST').includes('heartbeat sent') && msgs(c, a, 'FINEST').includes('heartbeat received'));
    // Joins and migrations at FINE: the others asked to join; the master moved partitions to them.
    expect(msgs(c, a, 'FINE').some((m) => /^asking 127\.0\.0\.1:\d+ to join cluster "dev"$/.test(m))).toBe(true);
    const migrated = lines(c, master).filter((l) => l.level === 'FINE' && /^partition \d+ migrated: owner /.test(String(l.msg)));
    expect(migrated.length).toBeGreaterThan(0);
    expect(migrated[0]).toMatchObject({ partition: expect.any(Number), from: expect.any(Array), to: expect.any(Array), ms: expect.any(Number) });

    // Every REST request at FINE, with method, path, status and milliseconds (and why, when it failed).
    expect((await c.http(master, 'POST', '/hazelcast/rest/maps/m/k', 'v')).status).toBe(200);
    expect((await c.http(master, 'DELETE', '/hazelcast/rest/maps/m/')).status).toBe(400);
    await waitFor('the requests in the log', () => lines(c, master).some((l) => l.method === 'DELETE'));
    const requests = lines(c, master).filter((l) => l.level === 'FINE' && l.path !== undefined);
    expect(requests.find((l) => l.method === 'POST' && l.path === '/hazelcast/rest/maps/m/k')).toMatchObject({ status: 200, ms: expect.any(Number) });
    expect(requests.find((l) => l.method === 'DELETE')).toMatchObject({ status: 400, reason: 'missing key (an empty key is not a key)' });

    // A graceful leave: INFO on the master, no WARNING on any survivor.
    const warnings = (): string[][] => [msgs(c, master, 'WARNING'), msgs(c, a, 'WARNING')];
    const warningsBefore = warnings();
    expect((await c.stop(b)).code).toBe(0);
    await c.waitSafe(30_000, 2, [master, a]);
    expect(msgs(c, master, 'INFO').some((m) => /^member 127\.0\.0\.1:\d+ \(\S+\) left the cluster gracefully$/.test(m))).toBe(true);
    expect(warnings()).toEqual(warningsBefore);

    // A member killed: writes through the survivor to its partitions are retried (FINE) until its backups take over.
    await c.kill(a);
    const writes = await Promise.all(Array.from({ length: 40 }, (_, k) => c.http(master, 'POST', `/hazelcast/rest/maps/r/k${k}`, 'v', { timeoutMs: 30_000 })));
    expect(writes.every((w) => w.status === 200 || w.status === 503)).toBe(true);
    const retried = lines(c, master).filter((l) => l.level === 'FINE' && / retried in \d+ ms: /.test(String(l.msg)));
    expect(retried.length).toBeGreaterThan(0);
    expect(retried[0]).toMatchObject({ op: expect.any(String), partition: expect.any(Number), attempt: expect.any(Number), code: expect.any(String) });
  }, 60_000);
});
