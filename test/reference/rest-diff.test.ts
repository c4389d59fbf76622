// The differential REST suite (issue 23): the same requests to a Hazelcast member and to a
// Grid member configured alike, answers compared after NORMALISATIONS (rest-diff.ts); a
// difference is allowed only when DELIBERATE (deliberate.ts) names it, each with its reason.
// One Hazelcast and one Grid member serve the whole file (beforeAll). Skips, saying why, where
// no JDK or Maven is present. `npm run fuzz -- --target http-reference --cases N` runs the
// generated part long.

import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, startCluster } from '../support/cluster.js';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/process.js';
import { ALL_GROUPS, REFERENCE_VERSION, referenceUnavailable, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { fixedCases, groupsOffCases } from './cases.js';
import { deliberate } from './deliberate.js';
import { describe as show, generatedCases, send, type DiffCase } from './rest-diff.js';
import { probeSteps, runScript, scriptDeliberate, scriptLine, startProbing, type ProbeStep, type ScriptRun } from './scripts-diff.js';

const unavailable = referenceUnavailable();
const CLUSTER = 'dev';
const SEED = Number(process.env.FUZZ_SEED ?? 23);
/** Generated cases: 200 in npm test, FUZZ_CASES under `npm run fuzz -- --target http-reference`. */
const GENERATED = Number(process.env.FUZZ_CASES ?? 200);
const QUEUE_XML = `  <queue name="bounded-*"><max-size>2</max-size></queue>\n`;

describe.skipIf(unavailable !== undefined)(`REST answers against Hazelcast ${REFERENCE_VERSION}`, () => {
  let hz: HazelcastMember;
  let grid: Cluster;
  /** The same pair with only the default groups (CLUSTER_READ, HEALTH_CHECK) enabled. */
  let hzDefault: HazelcastMember;
  let gridDefault: Cluster;
  let ports: number[];
  /** The Helm probes' steps while the default pair started: [Hazelcast's, Grid's]. */
  let startSteps: [ProbeStep[], ProbeStep[]];

  beforeAll(async () => {
    const gridConfig = (groups: readonly string[]) => () => ({
      'instance-name': 'ref-member',
      network: { 'rest-api': { 'endpoint-groups': Object.fromEntries(ALL_GROUPS.map((g) => [g, { enabled: groups.includes(g) }])) } },
      map: { default: { 'backup-count': 0 } },
      queue: { default: { 'backup-count': 0 }, 'bounded-*': { 'max-size': 2, 'backup-count': 0 } },
    });
    const DEFAULT_GROUPS = ['CLUSTER_READ', 'HEALTH_CHECK'];
    // The default pair's start is watched by the Helm chart's probes (compared below); its
    // Hazelcast shuts down gracefully on SIGTERM, as the chart runs it.
    const hzDefaultPort = await freePort();
    const gridDefaultStart = await Cluster.create({ size: 1, spare: 0, clusterName: CLUSTER, scope: 'file', config: gridConfig(DEFAULT_GROUPS) });
    const probed = [hzDefaultPort, gridDefaultStart.ports[0]!];
    const probing = probed.map((p) => startProbing(p, probed));
    const graceful = { 'hazelcast.shutdownhook.enabled': true, 'hazelcast.shutdownhook.policy': 'GRACEFUL' };
    [hz, grid, hzDefault, gridDefault] = await Promise.all([
      startReference({ clusterName: CLUSTER, instanceName: 'ref-member', groups: ALL_GROUPS, extraXml: QUEUE_XML }),
      startCluster({ size: 1, spare: 0, clusterName: CLUSTER, scope: 'file', config: gridConfig(ALL_GROUPS) }),
      startReference({ port: hzDefaultPort, clusterName: CLUSTER, instanceName: 'ref-member', groups: DEFAULT_GROUPS, extraXml: QUEUE_XML, properties: graceful }),
      gridDefaultStart.waitUp(0, 60_000).then(() => gridDefaultStart),
    ]);
    ports = [hz.port, grid.member(0).port, hzDefault.port, gridDefault.member(0).port];
    // Until both probes pass on both (a deadline: the comparison then shows what was seen).
    await waitFor('both probes to pass on both default members', () => Promise.resolve(probing.every((p) => p.peek() === 'liveness pass, readiness pass') || undefined), 30_000, 50).catch(() => undefined);
    startSteps = await Promise.all(probing.map((p) => p.stop())) as [ProbeStep[], ProbeStep[]];
  }, 120_000);

  afterAll(async () => {
    await Promise.all([hz?.stop(), grid?.destroy(), hzDefault?.stop(), gridDefault?.destroy()]);
  });

  /** Per deliberate difference, how many cases it allowed; bugs: the differences no rule allows. */
  const allowed = new Map<string, number>();
  let compared = 0;

  async function run(cases: readonly DiffCase[], hzPort = hz.port, gridPort = grid.member(0).port): Promise<string[]> {
    const bugs: string[] = [];
    for (const c of cases) {
      const [h, g] = await Promise.all([send(hzPort, c), send(gridPort, c)]);
      compared++;
      const hs = show(h, ports);
      const gs = show(g, ports);
      if (hs === gs) continue;
      const d = deliberate(c, h, g);
      if (d !== undefined) allowed.set(d.id, (allowed.get(d.id) ?? 0) + 1);
      else bugs.push(`${c.name}: ${c.method} ${c.path}${c.body === undefined ? '' : ` (body ${Buffer.byteLength(c.body)} bytes)`}\n   hazelcast: ${hs}\n   grid:      ${gs}`);
    }
    return bugs;
  }

  afterAll(() => {
    const rows = [...allowed].map(([id, n]) => `${id} ${n}`).join(', ');
    process.stderr.write(`\nREST differential against Hazelcast ${REFERENCE_VERSION}: ${compared} cases compared; deliberate differences: ${rows || 'none'}\n`);
  });

  it('every endpoint of the contract and its error cases', async () => {
    const bugs = await run(fixedCases(CLUSTER));
    expect(bugs, bugs.join('\n')).toEqual([]);
  }, 120_000);

  it('endpoint groups switched off (only the default CLUSTER_READ and HEALTH_CHECK on)', async () => {
    const bugs = await run(groupsOffCases(CLUSTER), hzDefault.port, gridDefault.member(0).port);
    expect(bugs, bugs.join('\n')).toEqual([]);
  }, 60_000);

  it('generated request variations', async () => {
    const started = Date.now();
    const rss = process.memoryUsage().rss / 2 ** 20;
    const bugs = await run(generatedCases(SEED, GENERATED));
    if (process.env.FUZZ_SUMMARY !== undefined) {
      const seconds = (Date.now() - started) / 1000;
      const end = process.memoryUsage().rss / 2 ** 20;
      const findings = bugs.map((b) => ({ kind: 'difference', target: 'http-reference', caseId: undefined, label: undefined, detail: b, hex: undefined }));
      const row = { target: 'http-reference', seed: SEED, cases: GENERATED, differences: bugs.length, crashes: 0, wedges: 0, canaryFailures: 0, internalErrors: 0, rssStartMb: rss, rssPeakMb: Math.max(rss, end), rssEndMb: end, casesPerSecond: GENERATED / seconds, findings };
      writeFileSync(`${process.env.FUZZ_SUMMARY}.http-reference.json`, JSON.stringify([row]));
    }
    expect(bugs, bugs.join('\n')).toEqual([]);
  }, Math.max(120_000, GENERATED * 200));

  /** The script runs compared, on the pair with every group on ('all') or the default pair. */
  const SCRIPT_RUNS: readonly (readonly [ScriptRun, 'all' | 'default'])[] = [
    [{ script: 'hz-cluster-admin', op: 'get-state' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'frozen' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'get-state' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'frozen' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'no_migration' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'passive' }, 'all'],
    [{ script: 'hz-healthcheck', op: 'cluster-state', accept: 'text/plain' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'active' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'get-cluster-version' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-cluster-version', arg: '9.9' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'force-start' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'partial-start' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'get-state', cluster: 'prod' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'frozen', cluster: 'prod' }, 'all'],
    ...(['all', 'node-state', 'cluster-state', 'cluster-safe', 'migration-queue-size', 'cluster-size'] as const).map((op) => [{ script: 'hz-healthcheck', op }, 'all'] as const),
    [{ script: 'hz-healthcheck', op: 'node-state', accept: 'text/plain' }, 'all'],
    [{ script: 'hz-cluster-cp-admin', op: 'get-local-member' }, 'all'],
    [{ script: 'hz-cluster-cp-admin', op: 'get-groups' }, 'all'],
    [{ script: 'hz-cluster-cp-admin', op: 'get-members' }, 'all'],
    [{ script: 'hz-cluster-cp-admin', op: 'get-group', group: 'default' }, 'all'],
    [{ script: 'hz-cluster-cp-admin', op: 'reset', cluster: 'prod' }, 'all'],
    [{ script: 'hz-cluster-admin', op: 'get-state' }, 'default'],
    [{ script: 'hz-cluster-admin', op: 'change-state', arg: 'frozen' }, 'default'],
    [{ script: 'hz-cluster-admin', op: 'get-cluster-version' }, 'default'],
    [{ script: 'hz-healthcheck', op: 'all' }, 'default'],
    [{ script: 'hz-cluster-cp-admin', op: 'get-groups' }, 'default'],
  ];

  it("Hazelcast's admin scripts print the same and exit the same on both (restated: the distribution is not on Maven Central)", async () => {
    const bugs: string[] = [];
    const seen = new Map<string, number>();
    for (const [r, pair] of SCRIPT_RUNS) {
      const [hp, gp] = pair === 'all' ? [hz.port, grid.member(0).port] : [hzDefault.port, gridDefault.member(0).port];
      const [h, g] = await Promise.all([runScript(hp, r, ports), runScript(gp, r, ports)]);
      if (h === g) continue;
      const d = scriptDeliberate(r, h, g);
      if (d !== undefined) seen.set(d.id, (seen.get(d.id) ?? 0) + 1);
      else bugs.push(`${scriptLine(r)} (${pair} groups)\n   hazelcast: ${h}\n   grid:      ${g}`);
    }
    const rows = [...seen].map(([id, n]) => `${id} ${n}`).join(', ');
    process.stderr.write(`\nAdmin scripts against Hazelcast ${REFERENCE_VERSION}: ${SCRIPT_RUNS.length} runs compared; deliberate differences: ${rows || 'none'}\n`);
    expect(bugs, bugs.join('\n')).toEqual([]);
  }, 60_000);

  /** Probes `ports` until every probe there fails with no answer (the member gone), then their steps. */
  async function probeUntilGone(probedPorts: readonly number[], action: () => Promise<unknown>): Promise<ProbeStep[][]> {
    const probing = probedPorts.map((p) => startProbing(p, ports));
    await waitFor('the probes to see the members', () => probing.every((p) => p.peek() !== undefined) || undefined, 10_000, 10);
    await action();
    await waitFor('every probed member gone', () => probing.every((p) => /closed.*; readiness closed/.test(p.last() ?? '')) || undefined, 30_000, 50);
    return Promise.all(probing.map((p) => p.stop()));
  }

  it('the Helm probes see the same on both across a start, a SIGTERM and hz-cluster-admin shutdown', async () => {
    const report = (what: string, steps: readonly ProbeStep[][]): string =>
      `${what}\n  hazelcast: ${steps[0]!.map((s) => s.answers).join('\n             ')}\n  grid:      ${steps[1]!.map((s) => s.answers).join('\n             ')}`;
    const term = await probeUntilGone([hzDefault.port, gridDefault.member(0).port], () => Promise.all([hzDefault.stop(), gridDefault.stop(0)]));
    let printed: string[] = [];
    const shut = await probeUntilGone([hz.port, grid.member(0).port], async () => {
      printed = await Promise.all([hz.port, grid.member(0).port].map((p) => runScript(p, { script: 'hz-cluster-admin', op: 'shutdown' }, ports)));
    });
    expect(printed[1]).toBe(printed[0]);
    for (const [what, steps] of [['start', startSteps], ['SIGTERM', term], ['shutdown', shut]] as const) {
      const shutdown = what !== 'start';
      expect(probeSteps(steps[1]!, shutdown), report(what, steps)).toEqual(probeSteps(steps[0]!, shutdown));
    }
  }, 90_000);
});
