// The CP subsystem under real faults, through the REST interface of real member processes:
// kill -9 of a group leader under a stream of addAndGet calls (every acknowledged increment
// counted once, none lost, none doubled), a minority that cannot commit while the majority is
// stopped (SIGSTOP) and commits again once it is back, and the loss of CP members: removed by
// REST or automatically after missing-cp-member-auto-removal-seconds, replaced by promoting
// AP members, with the groups' data intact.

import { afterEach, describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type ConfigFragment } from '../support/cluster.js';
import { pollUntil } from '../support/http.js';

interface CpStatus {
  enabled: boolean;
  seed?: number;
  cpMemberUuid?: string;
  groups: { name: string; id: number; role: string; term: number; leader?: string; commitIndex: number; members: string[] }[];
}

const cpConfig = (extra: Record<string, unknown> = {}): ((i: number) => ConfigFragment) => () => ({
  network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true } } } },
  'cp-subsystem': {
    'cp-member-count': 3,
    'session-time-to-live-seconds': 5,
    'session-heartbeat-interval-seconds': 1,
    'raft-algorithm': { 'leader-election-timeout-in-millis': 1000, 'leader-heartbeat-period-in-millis': 500, 'max-missed-leader-heartbeat-count': 4 },
    ...extra,
  },
});

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

async function status(c: Cluster, i: number): Promise<CpStatus> {
  return c.json<CpStatus>(i, '/grid/rest/cp');
}

/** The member index whose CP status says it leads `group`. */
async function leaderOf(c: Cluster, group: string, among: readonly number[]): Promise<number> {
  let found = -1;
  await pollUntil(
    async () => {
      for (const i of among) {
        const s = await status(c, i).catch(() => undefined);
        if (s?.groups.some((g) => g.name === group && g.role === 'leader')) {
          found = i;
          return true;
        }
      }
      return false;
    },
    (ok) => ok,
    { timeoutMs: 20_000, intervalMs: 100, what: `a leader of CP group ${group}` },
  );
  return found;
}

async function addAndGet(c: Cluster, i: number, name: string, delta = 1, timeoutMs = 30_000): Promise<{ status: number; body: string; error?: string }> {
  const r = await c.http(i, 'POST', `/grid/rest/cp/atomiclongs/${name}/addAndGet`, String(delta), { timeoutMs });
  return { status: r.status, body: r.body, error: r.headers['x-grid-error'] as string | undefined };
}

async function value(c: Cluster, i: number, name: string): Promise<bigint> {
  const r = await c.http(i, 'GET', `/grid/rest/cp/atomiclongs/${name}`, undefined, { timeoutMs: 30_000 });
  if (r.status !== 200) throw new Error(`GET atomic long ${name} on member ${i}: ${r.status} ${String(r.headers['x-grid-error'])}`);
  return BigInt(r.body);
}

describe('CP subsystem under faults', () => {
  it('kill -9 of the default group leader under a stream of addAndGet: every acknowledged increment counted once', async () => {
    const c = (cluster = await startCluster({ size: 3, config: cpConfig() }));
    expect((await addAndGet(c, 0, 'counter')).body).toBe('1');
    const leader = await leaderOf(c, 'default', [0, 1, 2]);
    const through = [0, 1, 2].filter((i) => i !== leader);

    let acked = 1;
    let errors = 0;
    const answers = new Set<string>(['1']);
    let stop = false;
    let firstAfterKill: number | undefined;
    let killedAt = 0;
    // Four writers through the two survivors; each value answered must be new (no increment applied twice for one call).
    const writers = [0, 1, 2, 3].map(async (w) => {
      while (!stop) {
        const r = await addAndGet(c, through[w % 2]!, 'counter').catch((e: unknown) => ({ status: 0, body: '', error: String(e) }));
        if (r.status === 200) {
          acked++;
          expect(answers.has(r.body), `value ${r.body} answered twice`).toBe(false);
          answers.add(r.body);
          if (killedAt > 0 && firstAfterKill === undefined) firstAfterKill = Date.now() - killedAt;
        } else errors++;
      }
    });
    await pollUntil(async () => acked, (n) => n >= 200, { timeoutMs: 20_000, what: '200 increments before the kill' });
    killedAt = Date.now();
    await c.kill(leader);
    await pollUntil(async () => firstAfterKill, (t) => t !== undefined, { timeoutMs: 20_000, what: 'a commit after the leader died' });
    const ackedAtKill = acked;
    await pollUntil(async () => acked, (n) => n >= ackedAtKill + 200, { timeoutMs: 20_000, what: '200 increments after the kill' });
    stop = true;
    await Promise.all(writers);

    const final = await value(c, through[0]!, 'counter');
    expect(final, `errors ${errors}`).toBe(BigInt(acked));
    expect(await value(c, through[1]!, 'counter')).toBe(final);
    // A new leader among the survivors, elected within a few election timeouts of the kill.
    expect([through[0], through[1]]).toContain(await leaderOf(c, 'default', through));
    expect(firstAfterKill!).toBeLessThan(10_000);
  }, 90_000);

  it('a minority cannot commit while the majority is stopped, and commits again once it is back (5 CP members)', async () => {
    const c = (cluster = await startCluster({
      size: 5,
      config: cpConfig({ 'cp-member-count': 5, 'group-size': 5 }),
      // The paused members must not be removed from the cluster meanwhile (they would shut down when resumed).
      properties: { 'hazelcast.max.no.heartbeat.seconds': 60, 'hazelcast.operation.call.timeout.millis': 3000 },
    }));
    expect((await addAndGet(c, 0, 'm')).body).toBe('1');
    const leader = await leaderOf(c, 'default', [0, 1, 2, 3, 4]);
    // Stop three members, the leader among them; two remain.
    const stopped = [leader, ...[0, 1, 2, 3, 4].filter((i) => i !== leader).slice(0, 2)];
    const minority = [0, 1, 2, 3, 4].filter((i) => !stopped.includes(i));
    for (const i of stopped) c.pause(i);
    try {
      const started = Date.now();
      const r = await addAndGet(c, minority[0]!, 'm', 1, 20_000);
      expect(r.status, r.error).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
      // Nor does a read answer: a linearizable read needs a majority too.
      const g = await c.http(minority[1]!, 'GET', '/grid/rest/cp/atomiclongs/m', undefined, { timeoutMs: 20_000 });
      expect(g.status).toBe(503);
    } finally {
      for (const i of stopped) c.resume(i);
    }
    // Back: the increment that timed out may or may not have been applied (it was retried under
    // the same key, so at most once); the next one commits.
    const after = await pollUntil(() => addAndGet(c, minority[0]!, 'm'), (r) => r.status === 200, { timeoutMs: 30_000, intervalMs: 200, what: 'a commit after resume' });
    expect(['2', '3']).toContain(after.body);
    for (const i of [0, 1, 2, 3, 4]) expect(await value(c, i, 'm')).toBe(BigInt(after.body));
  }, 90_000);

  it("once a majority of a group's CP members has left the member list, a call answers 503 at once, saying why and that nothing was applied", async () => {
    // The default call timeout (60 s) stays: the answer must not wait for it.
    const c = (cluster = await startCluster({ size: 3, config: cpConfig() }));
    expect((await addAndGet(c, 0, 'q')).body).toBe('1');
    const survivor = await leaderOf(c, 'default', [0, 1, 2]).then((l) => (l + 1) % 3);
    for (const i of [0, 1, 2].filter((x) => x !== survivor)) await c.kill(i);
    await c.waitForMembers(1, undefined, 30_000, [survivor]);
    const started = Date.now();
    const r = await addAndGet(c, survivor, 'q', 1, 30_000);
    expect(r.status).toBe(503);
    expect(r.error).toMatch(/CP group default cannot have a leader: 1 of its 3 CP members are in the member list, 2 needed; the operation was not applied/);
    const g = await c.http(survivor, 'GET', '/grid/rest/cp/atomiclongs/q', undefined, { timeoutMs: 30_000 });
    expect(g.status).toBe(503);
    expect(String(g.headers['x-grid-error'])).toMatch(/cannot have a leader: 1 of its 3/);
    const m = await c.http(survivor, 'GET', '/hazelcast/rest/cp-subsystem/members', undefined, { timeoutMs: 30_000 });
    expect(m.status).toBe(503);
    expect(String(m.headers['x-grid-error'])).toMatch(/CP group METADATA cannot have a leader: 1 of its 3/);
    // Well inside the 60 s call timeout the calls used to wait for.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('lost CP members are removed (by REST, then automatically) and replaced by promoting AP members; the data stays', async () => {
    const c = (cluster = await startCluster({
      size: 5,
      config: cpConfig({ 'missing-cp-member-auto-removal-seconds': 6 }),
    }));
    const seeded = await addAndGet(c, 0, 'kept', 7);
    expect(seeded.body, `${seeded.status} ${seeded.error ?? ''}`).toBe('7');
    const cpMembers = async (i: number): Promise<{ uuid: string; address: string }[]> => c.json(i, '/hazelcast/rest/cp-subsystem/members');
    const first = await cpMembers(0);
    expect(first).toHaveLength(3);
    const cpIndexOf = (address: string): number => c.members.findIndex((m) => `[127.0.0.1]:${m.port}` === address);
    const cpIdx = first.map((m) => cpIndexOf(m.address));
    const apIdx = [0, 1, 2, 3, 4].filter((i) => !cpIdx.includes(i));
    expect(apIdx).toHaveLength(2);
    for (const i of apIdx) expect((await c.http(i, 'GET', '/hazelcast/rest/cp-subsystem/members/local')).status).toBe(404);

    // 1. A CP member dies; it is removed through REST once the cluster has dropped it.
    const victim1 = cpIdx[2]!;
    const victim1Uuid = first[2]!.uuid;
    await c.kill(victim1);
    await c.waitForMembers(4);
    const removed = await pollUntil(
      () => c.http(cpIdx[0]!, 'POST', `/hazelcast/rest/cp-subsystem/members/${victim1Uuid}/remove`, `${c.clusterName}&`),
      (r) => r.status === 200,
      { timeoutMs: 20_000, intervalMs: 250, what: 'REST removal of the dead CP member' },
    );
    expect(removed.status).toBe(200);
    // An AP member is promoted in its place, and every group ends with 3 live CP members.
    const afterFirst = await pollUntil(() => cpMembers(cpIdx[0]!), (l) => l.length === 3 && !l.some((m) => m.uuid === victim1Uuid), {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: 'a promoted CP member',
    });
    const promoted1 = afterFirst.map((m) => cpIndexOf(m.address)).find((i) => apIdx.includes(i));
    expect(promoted1).toBeDefined();
    // The promoted member learns it is one from the METADATA leader's next view (it may list it a moment before).
    await pollUntil(() => c.http(promoted1!, 'GET', '/hazelcast/rest/cp-subsystem/members/local'), (r) => r.status === 200, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the promoted member knowing it is a CP member',
    });
    await pollUntil(
      async () => (await c.json<{ members: { uuid: string }[] }>(cpIdx[0]!, '/hazelcast/rest/cp-subsystem/groups/default')).members.map((m) => m.uuid).sort(),
      (ids) => JSON.stringify(ids) === JSON.stringify(afterFirst.map((m) => m.uuid).sort()),
      { timeoutMs: 30_000, intervalMs: 250, what: 'the default group on the new CP members' },
    );
    expect(await value(c, promoted1!, 'kept')).toBe(7n);

    // 2. Another CP member dies: nobody removes it; missing-cp-member-auto-removal-seconds (6) does.
    const victim2 = cpIdx[1]!;
    const victim2Uuid = first[1]!.uuid;
    await c.kill(victim2);
    const survivors = [0, 1, 2, 3, 4].filter((i) => i !== victim1 && i !== victim2);
    const afterSecond = await pollUntil(() => cpMembers(survivors[0]!), (l) => l.length === 3 && !l.some((m) => m.uuid === victim2Uuid), {
      timeoutMs: 40_000,
      intervalMs: 500,
      what: 'automatic removal and a second promotion',
    });
    expect(afterSecond.map((m) => cpIndexOf(m.address)).sort()).toEqual([...survivors].sort());
    await pollUntil(
      async () => (await c.json<{ members: { uuid: string }[] }>(survivors[0]!, '/hazelcast/rest/cp-subsystem/groups/default')).members.length,
      (n) => n === 3,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the default group back to 3 members' },
    );
    for (const i of survivors) expect(await value(c, i, 'kept')).toBe(7n);
    expect((await addAndGet(c, survivors[2]!, 'kept')).body).toBe('8');
  }, 120_000);

  it('a CP member that shuts down gracefully gives its seat up at once: an AP member takes it, the data stays', async () => {
    // missing-cp-member-auto-removal-seconds stays at its default (4 hours): only the graceful hand-over can explain a prompt replacement.
    const c = (cluster = await startCluster({ size: 4, config: cpConfig() }));
    const seeded = await addAndGet(c, 0, 'g', 3);
    expect(seeded.body, `${seeded.status} ${seeded.error ?? ''}`).toBe('3');
    const before = await c.json<{ uuid: string; address: string }[]>(0, '/hazelcast/rest/cp-subsystem/members');
    const indexOf = (address: string): number => c.members.findIndex((m) => `[127.0.0.1]:${m.port}` === address);
    const leaving = indexOf(before[1]!.address);
    const ap = [0, 1, 2, 3].find((i) => !before.some((m) => indexOf(m.address) === i))!;
    const exit = await c.stop(leaving);
    expect(exit.code).toBe(0);
    expect(c.members[leaving]!.logMessages().some((m) => m.includes('gave up its CP seat'))).toBe(true);
    const stayed = [0, 1, 2, 3].filter((i) => i !== leaving);
    const after = await pollUntil(
      () => c.json<{ uuid: string; address: string }[]>(stayed[0]!, '/hazelcast/rest/cp-subsystem/members'),
      (l) => l.length === 3 && l.some((m) => indexOf(m.address) === ap),
      { timeoutMs: 20_000, intervalMs: 250, what: 'the AP member promoted in place of the leaving one' },
    );
    expect(after.some((m) => m.uuid === before[1]!.uuid)).toBe(false);
    await pollUntil(
      async () => (await c.json<{ members: { uuid: string }[] }>(stayed[0]!, '/hazelcast/rest/cp-subsystem/groups/default')).members.length,
      (n) => n === 3,
      { timeoutMs: 20_000, intervalMs: 250, what: 'the default group back to 3 members' },
    );
    expect(await value(c, ap, 'g')).toBe(3n);
  }, 90_000);
});
