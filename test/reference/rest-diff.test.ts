// The differential REST suite (issue 23): the same requests to a Hazelcast member and to a
// Grid member configured alike, answers compared after NORMALISATIONS (rest-diff.ts); a
// difference is allowed only when DELIBERATE (deliberate.ts) names it, each with its reason.
// One Hazelcast and one Grid member serve the whole file (beforeAll). Skips, saying why, where
// no JDK or Maven is present. `npm run fuzz -- --target http-reference --cases N` runs the
// generated part long.

import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { ALL_GROUPS, REFERENCE_VERSION, referenceUnavailable, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { fixedCases, groupsOffCases } from './cases.js';
import { deliberate } from './deliberate.js';
import { describe as show, generatedCases, send, type DiffCase } from './rest-diff.js';

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

  beforeAll(async () => {
    const gridConfig = (groups: readonly string[]) => () => ({
      'instance-name': 'ref-member',
      network: { 'rest-api': { 'endpoint-groups': Object.fromEntries(ALL_GROUPS.map((g) => [g, { enabled: groups.includes(g) }])) } },
      map: { default: { 'backup-count': 0 } },
      queue: { default: { 'backup-count': 0 }, 'bounded-*': { 'max-size': 2, 'backup-count': 0 } },
    });
    const DEFAULT_GROUPS = ['CLUSTER_READ', 'HEALTH_CHECK'];
    [hz, grid, hzDefault, gridDefault] = await Promise.all([
      startReference({ clusterName: CLUSTER, instanceName: 'ref-member', groups: ALL_GROUPS, extraXml: QUEUE_XML }),
      startCluster({ size: 1, spare: 0, clusterName: CLUSTER, scope: 'file', config: gridConfig(ALL_GROUPS) }),
      startReference({ clusterName: CLUSTER, instanceName: 'ref-member', groups: DEFAULT_GROUPS, extraXml: QUEUE_XML }),
      startCluster({ size: 1, spare: 0, clusterName: CLUSTER, scope: 'file', config: gridConfig(DEFAULT_GROUPS) }),
    ]);
    ports = [hz.port, grid.member(0).port, hzDefault.port, gridDefault.member(0).port];
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
});
