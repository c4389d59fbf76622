// The CP endpoints against Hazelcast 5.4.0 with CP on (issue 23): 5.4.0 is the newest open
// source with the CP subsystem (5.5 moved it to the Enterprise edition). A 3-member Hazelcast
// cluster with cp-member-count 3 and a 3-member Grid cluster configured alike answer the
// /hazelcast/rest/cp-subsystem endpoints (groups, a group, members, the local member, sessions,
// and the POSTs: destroy a group, remove a member, close a session, reset, promote) the same
// way, from every member, as far as they are safe to send; then one member of each is killed
// (kill -9) and removed from CP. Answers are normalised as in rest-diff.ts and compared as a
// sorted set over each side's members (the two sides need not number their members alike).
// A difference is allowed only where DELIBERATE (deliberate.ts) names it. Skips, saying why,
// without a JDK or Maven.
//
// Two entry files register it: cp-diff.test.ts (`npm test`) the reads, the admin script and the
// refusals on the formed clusters; cp-diff.long.ts (`npm run test:reference-long`) also the
// changes after them (reset, kill -9 and removal, removing a present member, a reset short of
// members), which take a few seconds more of the same six members.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { HAZELCAST_CP_VERSION, referenceUnavailable, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { freePorts } from '../support/ports.js';
import { waitFor } from '../support/process.js';
import { deliberate } from './deliberate.js';
import { describe as show, send, type DiffCase, type Observed } from './rest-diff.js';
import { runScript, scriptDeliberate, scriptLine, type ScriptRun } from './scripts-diff.js';

const unavailable = referenceUnavailable(HAZELCAST_CP_VERSION);
const CLUSTER = 'dev';
const GROUPS = ['CP', 'CLUSTER_READ', 'HEALTH_CHECK'];
const CP = '/hazelcast/rest/cp-subsystem';

/** `changes`: also the reset, kill and removal tests (the long tier). */
export function cpDiff({ changes }: { changes: boolean }): void {
  describe.skipIf(unavailable !== undefined)(`CP endpoints on 3-member clusters against Hazelcast ${HAZELCAST_CP_VERSION} with CP on`, () => {
    let hz: HazelcastMember[] = [];
    let grid: Cluster;
    let hzPorts: number[];
    let gridPorts: number[];
    let allPorts: number[];
    /** Per deliberate difference, how many answers it allowed. */
    const allowed = new Map<string, number>();
    let compared = 0;

    beforeAll(async () => {
      const ports = await freePorts(3);
      const properties = { 'hazelcast.heartbeat.interval.seconds': 1, 'hazelcast.max.no.heartbeat.seconds': 5, 'hazelcast.wait.seconds.before.join': 1 };
      const [g, ...h] = await Promise.all([
        startCluster({
          size: 3,
          spare: 0,
          clusterName: CLUSTER,
          scope: 'file',
          timeoutMs: 60_000,
          config: () => ({
            network: { 'rest-api': { 'endpoint-groups': Object.fromEntries(['CP', 'CLUSTER_READ', 'HEALTH_CHECK', 'DATA', 'CLUSTER_WRITE'].map((n) => [n, { enabled: GROUPS.includes(n) }])) } },
            'cp-subsystem': { 'cp-member-count': 3 },
          }),
        }),
        ...ports.map((port, i) => startReference({ version: HAZELCAST_CP_VERSION, port, members: ports, clusterName: CLUSTER, instanceName: `cp-${i}`, groups: GROUPS, properties, cp: 3, extraXml: '' })),
      ]);
      grid = g;
      hz = h;
      hzPorts = [...ports];
      gridPorts = [0, 1, 2].map((i) => grid.member(i).port);
      allPorts = [...hzPorts, ...gridPorts];
      // CP is formed when every member knows its local CP member.
      await waitFor(
        'the CP subsystem formed on all six members',
        async () => {
          const got = await Promise.all(allPorts.map((p) => send(p, get(`${CP}/members/local`))));
          return got.every((o) => o.kind === 'answer' && o.status === 200) || undefined;
        },
        60_000,
        200,
      );
    }, 150_000);

    afterAll(async () => {
      await Promise.all([...hz.map((m) => m.stop()), grid?.destroy()]);
      const rows = [...allowed].map(([id, n]) => `${id} ${n}`).join(', ');
      process.stderr.write(`\nCP differential against Hazelcast ${HAZELCAST_CP_VERSION}: ${compared} answers compared per side; deliberate differences: ${rows || 'none'}\n`);
    });

    // A JVM member on a loaded 2-core machine can take seconds for a CP read (a GC, or the JIT
    // warming up): "no answer" is judged after 15 s, not the suite's default 3 s.
    function get(path: string): DiffCase {
      return { name: path, method: 'GET', path, timeoutMs: 15_000 };
    }
    function post(path: string, body = `${CLUSTER}&`): DiffCase {
      return { name: path, method: 'POST', path, body, headers: [['Content-Type', 'application/x-www-form-urlencoded']], timeoutMs: 15_000 };
    }

    /**
     * Sends `c` to each side's members (`on`: every live member, or the first), pairs the
     * answers sorted by their normalised text and reports the pairs that differ and no rule
     * allows.
     */
    async function compare(c: DiffCase, on: 'all' | 'first' = 'all'): Promise<string[]> {
      const pick = (ps: number[]): number[] => (on === 'all' ? ps : ps.slice(0, 1));
      const side = async (ps: number[]): Promise<{ o: Observed; s: string }[]> =>
        (await Promise.all(pick(ps).map((p) => send(p, c)))).map((o) => ({ o, s: show(o, allPorts) })).sort((a, b) => a.s.localeCompare(b.s));
      const [h, g] = await Promise.all([side(hzPorts), side(gridPorts)]);
      const bugs: string[] = [];
      for (let i = 0; i < h.length; i++) {
        compared++;
        const hi = h[i]!;
        const gi = g[i]!;
        if (hi.s === gi.s) continue;
        const d = deliberate(c, hi.o, gi.o);
        if (d !== undefined) allowed.set(d.id, (allowed.get(d.id) ?? 0) + 1);
        else bugs.push(`${c.method} ${c.path}${c.body === undefined ? '' : ` (${String(c.body)})`}\n   hazelcast: ${hi.s}\n   grid:      ${gi.s}`);
      }
      return bugs;
    }

    async function expectSame(cases: readonly (DiffCase | readonly [DiffCase, 'all' | 'first'])[]): Promise<void> {
      const bugs: string[] = [];
      for (const x of cases) bugs.push(...(Array.isArray(x) ? await compare(...(x as readonly [DiffCase, 'all' | 'first'])) : await compare(x as DiffCase)));
      expect(bugs, bugs.join('\n')).toEqual([]);
    }

    /** The uuid of the CP member on `port`. */
    async function localUuid(port: number): Promise<string> {
      const o = await send(port, get(`${CP}/members/local`));
      if (o.kind !== 'answer' || o.status !== 200) throw new Error(`members/local on ${port}: ${show(o, allPorts)}`);
      return (JSON.parse(o.body.toString()) as { uuid: string }).uuid;
    }

    it('reads: groups, each group, members, the local member, sessions; unknown names', async () => {
      await expectSame([
        get(`${CP}/groups`),
        get(`${CP}/groups/METADATA`),
        get(`${CP}/groups/default`),
        get(`${CP}/groups/nope`),
        get(`${CP}/members`),
        get(`${CP}/members/local`),
        get(`${CP}/groups/METADATA/sessions`),
        get(`${CP}/groups/default/sessions`),
        get(`${CP}/groups/nope/sessions`),
        get(`${CP}/groups/METADATA/`),
        get(`${CP}/members/`),
        get(`${CP}/groups/METADATA/x`),
      ]);
    }, 60_000);

    it('hz-cluster-cp-admin (restated) prints the same and exits the same on both, but for the deliberate differences', async () => {
      const runs: ScriptRun[] = [
        { script: 'hz-cluster-cp-admin', op: 'get-local-member' },
        { script: 'hz-cluster-cp-admin', op: 'get-groups' },
        { script: 'hz-cluster-cp-admin', op: 'get-group', group: 'METADATA' },
        { script: 'hz-cluster-cp-admin', op: 'get-group', group: 'default' },
        { script: 'hz-cluster-cp-admin', op: 'get-group', group: 'nope' },
        { script: 'hz-cluster-cp-admin', op: 'get-members' },
        { script: 'hz-cluster-cp-admin', op: 'get-sessions', group: 'METADATA' },
        { script: 'hz-cluster-cp-admin', op: 'get-sessions', group: 'default' },
        { script: 'hz-cluster-cp-admin', op: 'get-sessions', group: 'nope' },
        { script: 'hz-cluster-cp-admin', op: 'force-destroy-group', group: 'nope' },
        { script: 'hz-cluster-cp-admin', op: 'force-destroy-group', group: 'METADATA' },
        { script: 'hz-cluster-cp-admin', op: 'force-close-session', group: 'default', session: '12345' },
        { script: 'hz-cluster-cp-admin', op: 'remove-member', member: '00000000-0000-0000-0000-000000000000' },
        { script: 'hz-cluster-cp-admin', op: 'promote-member', cluster: 'prod' },
        { script: 'hz-cluster-cp-admin', op: 'reset', cluster: 'prod' },
      ];
      const bugs: string[] = [];
      const seen = new Map<string, number>();
      for (const r of runs) {
        // get-local-member and get-members carry uuids and addresses: normalised like the REST answers.
        const [h, g] = await Promise.all([runScript(hzPorts[0]!, r, allPorts), runScript(gridPorts[0]!, r, allPorts)]);
        if (h === g) continue;
        const d = scriptDeliberate(r, h, g);
        if (d !== undefined) seen.set(d.id, (seen.get(d.id) ?? 0) + 1);
        else bugs.push(`${scriptLine(r)}\n   hazelcast: ${h}\n   grid:      ${g}`);
      }
      process.stderr.write(`\nhz-cluster-cp-admin against Hazelcast ${HAZELCAST_CP_VERSION}: ${runs.length} runs; deliberate differences: ${[...seen].map(([id, n]) => `${id} ${n}`).join(', ') || 'none'}\n`);
      expect(bugs, bugs.join('\n')).toEqual([]);
    }, 60_000);

    it('refusals: wrong credentials, unknown or undestroyable groups, unknown or present members, unknown sessions', async () => {
      await expectSame([
        [post(`${CP}/groups/default/remove`, 'wrong&'), 'first'],
        [post(`${CP}/groups/METADATA/remove`), 'first'],
        [post(`${CP}/groups/nope/remove`), 'first'],
        [post(`${CP}/members/00000000-0000-0000-0000-000000000000/remove`), 'first'],
        [post(`${CP}/members/00000000-0000-0000-0000-000000000000/remove`, 'wrong&'), 'first'],
        [post(`${CP}/members/not-a-uuid/remove`), 'first'],
        [post(`${CP}/groups/default/sessions/12345/remove`), 'first'],
        [post(`${CP}/groups/default/sessions/abc/remove`), 'first'],
        [post(`${CP}/groups/nope/sessions/1/remove`), 'first'],
        [post(`${CP}/groups/default/sessions/1/remove`, 'wrong&'), 'first'],
        [post(`${CP}/reset`, 'wrong&'), 'first'],
        [post(`${CP}/members`, 'wrong&'), 'first'],
        [get(`${CP}/reset`), 'first'],
      ]);
      // Promoting a member that is a CP member already.
      await expectSame([[post(`${CP}/members`), 'first']]);
      await expectSame([get(`${CP}/members`)]);
    }, 90_000);

    if (!changes) return;

    /** The port of each side's master (the first member /rest/cluster lists). */
    async function masterPort(ps: readonly number[]): Promise<number> {
      const o = await send(ps[0]!, get('/hazelcast/rest/cluster'));
      const first = o.kind === 'answer' && o.status === 200 ? (JSON.parse(o.body.toString()) as { members: { address: string }[] }).members[0] : undefined;
      const m = first === undefined ? null : /:(\d+)$/.exec(first.address);
      if (m === null) throw new Error(`no member list on ${ps[0]}: ${show(o, allPorts)}`);
      return Number(m[1]);
    }

    async function waitForMetadata(): Promise<void> {
      await waitFor(
        'METADATA again on both sides',
        async () => {
          for (const p of [hzPorts[0]!, gridPorts[0]!]) {
            const o = await send(p, get(`${CP}/groups`));
            if (o.kind !== 'answer' || o.status !== 200 || !o.body.toString().includes('METADATA')) return undefined;
          }
          return true;
        },
        30_000,
        200,
      );
    }

    it('reset on the master of a full cluster: both answer alike and form CP again', async () => {
      const [hm, gm] = await Promise.all([masterPort(hzPorts), masterPort(gridPorts)]);
      const [h, g] = await Promise.all([send(hm, post(`${CP}/reset`)), send(gm, post(`${CP}/reset`))]);
      expect(show(g, allPorts), 'reset').toBe(show(h, allPorts));
      await waitForMetadata();
      await waitFor('every member a CP member again', async () => {
        const got = await Promise.all(allPorts.map((p) => send(p, get(`${CP}/members/local`))));
        return got.every((o) => o.kind === 'answer' && o.status === 200) || undefined;
      }, 30_000, 200);
      await expectSame([get(`${CP}/groups`), get(`${CP}/members`), get(`${CP}/groups/METADATA`)]);
    }, 60_000);

    it('a killed member is removed from CP on both; the members list and the groups follow', async () => {
      const [hzGone, gridGone] = await Promise.all([localUuid(hzPorts[2]!), localUuid(gridPorts[2]!)]);
      await Promise.all([hz[2]!.kill(), grid.kill(2)]);
      hzPorts = hzPorts.slice(0, 2);
      gridPorts = gridPorts.slice(0, 2);
      await waitFor(
        'both sides to see 2 members',
        async () => {
          for (const p of [...hzPorts, ...gridPorts]) {
            const o = await send(p, get('/hazelcast/health/cluster-size'));
            if (o.kind !== 'answer' || o.body.toString() !== '2') return undefined;
          }
          return true;
        },
        60_000,
        200,
      );
      const [h, g] = await Promise.all([send(hzPorts[0]!, post(`${CP}/members/${hzGone}/remove`)), send(gridPorts[0]!, post(`${CP}/members/${gridGone}/remove`))]);
      expect(show(g, allPorts), 'remove the killed member').toBe(show(h, allPorts));
      await expectSame([get(`${CP}/members`), get(`${CP}/groups/METADATA`)]);
    }, 90_000);

    it('removing a CP member that is still in the cluster (last: Hazelcast does remove it)', async () => {
      const [hzPresent, gridPresent] = await Promise.all([localUuid(hzPorts[1]!), localUuid(gridPorts[1]!)]);
      // Each side its own member's uuid, so the case is built per side.
      const hzCase = post(`${CP}/members/${hzPresent}/remove`);
      const gridCase = post(`${CP}/members/${gridPresent}/remove`);
      const [h, g] = await Promise.all([send(hzPorts[0]!, hzCase), send(gridPorts[0]!, gridCase)]);
      compared++;
      if (show(g, allPorts) !== show(h, allPorts)) {
        const d = deliberate(gridCase, h, g);
        expect(d?.id, `remove a present member\n   hazelcast: ${show(h, allPorts)}\n   grid:      ${show(g, allPorts)}`).toBe('cp-remove-present');
        allowed.set(d!.id, (allowed.get(d!.id) ?? 0) + 1);
      }
    }, 60_000);

    it('reset with fewer members than cp-member-count (last: Grid wipes CP and waits for members)', async () => {
      await expectSame([[post(`${CP}/reset`), 'first']]);
    }, 60_000);

  });
}
