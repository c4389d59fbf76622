// Split-brain protection with real member processes: 3 members, maps and queues protected for
// READ_WRITE (minimum 3) and for WRITE only, and unprotected ones. After a kill -9 the two
// survivors refuse the guarded operations with 503 and the reason, serve the rest, and lift
// the refusal when the member is back. Lite members do not count.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type HttpResponse } from '../support/cluster.js';

const PROTECTED = {
  'split-brain-protection': {
    all3: { enabled: true, 'minimum-cluster-size': 3, 'protect-on': 'READ_WRITE' },
    writes3: { enabled: true, 'minimum-cluster-size': 3, 'protect-on': 'WRITE' },
  },
  map: {
    guarded: { 'split-brain-protection-ref': 'all3' },
    writeonly: { 'split-brain-protection-ref': 'writes3' },
  },
  queue: {
    jobs: { 'split-brain-protection-ref': 'all3' },
    wjobs: { 'split-brain-protection-ref': 'writes3' },
  },
};

const MAPS = '/hazelcast/rest/maps';
const QUEUES = '/hazelcast/rest/queues';

/** The answer as status + reason, for readable failures. */
function seen(r: HttpResponse): { status: number; reason: string | undefined; body: string } {
  const reason = r.headers['x-grid-error'];
  return { status: r.status, reason: Array.isArray(reason) ? reason.join() : reason, body: r.body };
}

function refused(protection: string, what: string, n: number, min = 3): { status: number; reason: string; body: string } {
  return { status: 503, reason: `split-brain protection '${protection}' for ${what}: this member sees ${n} of the ${min} members it needs`, body: '' };
}

async function expectServed(c: Cluster, i: number): Promise<void> {
  const ok = async (method: string, path: string, body?: string): Promise<void> => {
    const r = await c.http(i, method, path, body);
    expect(r.status, `${method} ${path} through member ${i}: ${JSON.stringify(seen(r))}`).toBeLessThan(300);
  };
  await ok('POST', `${MAPS}/guarded/k${i}`, `g${i}`);
  await ok('GET', `${MAPS}/guarded/k${i}`);
  await ok('POST', `${MAPS}/writeonly/k${i}`, `w${i}`);
  await ok('POST', `${QUEUES}/jobs`, `job${i}`);
  await ok('POST', `${QUEUES}/wjobs`, `wjob${i}`);
  await ok('GET', `${QUEUES}/jobs/size`);
}

describe('split-brain protection (3 members, kill -9 of one)', () => {
  it('the two survivors refuse guarded operations with 503 and the reason, serve the rest, and serve everything again once the member is back', async () => {
    const c = await startCluster({ size: 3, config: () => PROTECTED });
    try {
      for (const i of [0, 1, 2]) await expectServed(c, i);

      await c.kill(2);
      await c.waitForMembers(2);
      await c.waitSafe(30_000, 2);

      for (const i of [0, 1]) {
        const at = async (method: string, path: string, body?: string): Promise<ReturnType<typeof seen>> => seen(await c.http(i, method, path, body));
        // READ_WRITE: reads and writes refused.
        expect(await at('GET', `${MAPS}/guarded/k0`)).toEqual(refused('all3', "map 'guarded'", 2));
        expect(await at('POST', `${MAPS}/guarded/k0`, 'new')).toEqual(refused('all3', "map 'guarded'", 2));
        expect(await at('DELETE', `${MAPS}/guarded/k0`)).toEqual(refused('all3', "map 'guarded'", 2));
        expect(await at('DELETE', `${MAPS}/guarded`)).toEqual(refused('all3', "map 'guarded'", 2));
        // WRITE only: reads served.
        expect(await at('GET', `${MAPS}/writeonly/k1`)).toMatchObject({ status: 200, body: 'w1' });
        expect(await at('POST', `${MAPS}/writeonly/k1`, 'new')).toEqual(refused('writes3', "map 'writeonly'", 2));
        expect(await at('DELETE', `${MAPS}/writeonly/k1`)).toEqual(refused('writes3', "map 'writeonly'", 2));
        // Unprotected: as usual.
        expect(await at('POST', `${MAPS}/plain/k${i}`, 'p')).toMatchObject({ status: 200 });
        expect(await at('GET', `${MAPS}/plain/k${i}`)).toMatchObject({ status: 200, body: 'p' });

        // Queues: offer and poll are writes, size a read.
        expect(await at('POST', `${QUEUES}/jobs`, 'x')).toEqual(refused('all3', "queue 'jobs'", 2));
        expect(await at('GET', `${QUEUES}/jobs/0`)).toEqual(refused('all3', "queue 'jobs'", 2));
        expect(await at('GET', `${QUEUES}/jobs/size`)).toEqual(refused('all3', "queue 'jobs'", 2));
        expect(await at('GET', `${QUEUES}/wjobs/size`)).toMatchObject({ status: 200, body: '3' });
        expect(await at('POST', `${QUEUES}/wjobs`, 'x')).toEqual(refused('writes3', "queue 'wjobs'", 2));
        expect(await at('GET', `${QUEUES}/wjobs/0`)).toEqual(refused('writes3', "queue 'wjobs'", 2));
        expect(await at('POST', `${QUEUES}/plainq`, 'x')).toMatchObject({ status: 200 });
      }
      // Nothing refused was applied.
      expect((await c.http(0, 'GET', `${QUEUES}/plainq/size`)).body).toBe('2');

      await c.restart(2);
      await c.waitForMembers(3);
      await c.waitSafe(30_000, 3);
      // The data written before the kill is there, untouched by the refused writes.
      for (const i of [0, 1, 2]) {
        expect(seen(await c.http(i, 'GET', `${MAPS}/guarded/k0`))).toMatchObject({ status: 200, body: 'g0' });
        expect(seen(await c.http(i, 'GET', `${QUEUES}/jobs/size`))).toMatchObject({ status: 200, body: '3' });
      }
      for (const i of [0, 1, 2]) await expectServed(c, i);
      expect(seen(await c.http(1, 'GET', `${QUEUES}/jobs/0`))).toMatchObject({ status: 200, body: 'job0' });
      expect(seen(await c.http(2, 'GET', `${QUEUES}/wjobs/0`))).toMatchObject({ status: 200, body: 'wjob0' });
    } finally {
      await c.destroy();
    }
  }, 120_000);

  it('lite members do not count (as in Hazelcast): 2 data members + 1 lite are 2 for the protection', async () => {
    const c = await startCluster({
      size: 3,
      lite: [2],
      config: () => ({
        'split-brain-protection': {
          three: { enabled: true, 'minimum-cluster-size': 3 },
          two: { enabled: true, 'minimum-cluster-size': 2 },
        },
        map: { needs3: { 'split-brain-protection-ref': 'three' }, needs2: { 'split-brain-protection-ref': 'two' } },
      }),
    });
    try {
      for (const i of [0, 1, 2]) {
        expect(seen(await c.http(i, 'POST', `${MAPS}/needs3/k`, 'v'))).toEqual(refused('three', "map 'needs3'", 2));
        expect(seen(await c.http(i, 'POST', `${MAPS}/needs2/k`, `v${i}`))).toMatchObject({ status: 200 });
        expect(seen(await c.http(i, 'GET', `${MAPS}/needs2/k`))).toMatchObject({ status: 200, body: `v${i}` });
      }
    } finally {
      await c.destroy();
    }
  }, 90_000);
});
