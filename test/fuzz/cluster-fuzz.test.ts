// Fuzz against a real 2-member cluster: member-protocol input before and after Auth, HTTP
// input, and answers to a member that dials a fake peer. Strict: any crash, wedge, wrong
// canary answer, REST internal error or unbounded RSS fails the test, with the exact bytes.
// Bounded here (npm test); `npm run fuzz -- --cases N` runs the same code longer through the
// FUZZ_* variables below.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster.js';
import { freePorts } from '../support/ports.js';
import { DEFAULT_SEED, caseSeed } from './engine.js';
import { CANARY_MAP, FUZZ_CLUSTER_NAME, FuzzCluster, FuzzClusterRss, formatFindings, formatSummaries, runFuzz, type FuzzCase, type Summary } from './driver.js';
import { FakePeer } from './fake-peer.js';
import { httpCase, loadHttpCorpus } from './http-input.js';
import { memberCase, type MemberFuzzContext } from './member-input.js';
import { sleep } from '../support/wait.js';

const env = process.env;
const SEED = Number(env.FUZZ_SEED ?? DEFAULT_SEED);
const TARGET = env.FUZZ_TARGET ?? 'all';
const MEMBER_CASES = Number(env.FUZZ_CASES ?? 1500);
const HTTP_CASES = Number(env.FUZZ_CASES ?? 1500);
/** How long fake peers answer a member that dials them. */
const DIAL_SECONDS = Number(env.FUZZ_DIAL_SECONDS ?? (env.FUZZ_CASES !== undefined ? 30 : 6));
const FAKE_PEERS = 8;
const LONG = env.FUZZ_CASES !== undefined;
const SUMMARY_FILE = env.FUZZ_SUMMARY;
const log = (line: string): void => {
  if (LONG) process.stderr.write(`${line}\n`);
};

const summaries: Summary[] = [];

function report(s: Summary): void {
  summaries.push(s);
  if (SUMMARY_FILE !== undefined) writeFileSync(SUMMARY_FILE, JSON.stringify(summaries, null, 2));
}

function expectClean(s: Summary): void {
  const problems = s.crashes + s.wedges + s.canaryFailures + s.internalErrors;
  expect(problems, `${formatSummaries([s])}\n${formatFindings([s])}`).toBe(0);
}

const ctxFor = (fc: FuzzCluster): MemberFuzzContext => ({ clusterName: FUZZ_CLUSTER_NAME, memberUuids: fc.uuids(), forbidden: [CANARY_MAP] });

const REGRESSIONS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'corpus', 'member-regressions.json'), 'utf8')) as {
  cases: { name: string; hex: string }[];
};

/** Minutes for a long run; the bounded run must stay near a minute in total. */
const timeoutFor = (cases: number): number => 60_000 + cases * 20;

describe('fuzz: a 2-member cluster', () => {
  it.runIf(TARGET === 'all' || TARGET === 'member')(
    `member protocol: ${MEMBER_CASES} cases before and after Auth (seed ${SEED}) never crash or wedge a member`,
    async () => {
      const fc = await FuzzCluster.start();
      const pinned: FuzzCase[] = REGRESSIONS.cases.map((c, i) => {
        const bytes = Buffer.from(c.hex, 'hex');
        return { index: -1 - i, target: 0, label: c.name, bytes, chunks: [bytes] };
      });
      const s = await runFuzz(fc, {
        name: 'member',
        seed: SEED,
        cases: MEMBER_CASES,
        lanes: 8,
        batch: 250,
        windowMs: 30,
        maxCrashes: LONG ? 20 : 4,
        rssLimitMb: 300,
        pinned,
        generate: (seed, index) => memberCase(seed, index, ctxFor(fc), fc.size),
        inspect: (_c, received, closed) => ({ outcome: `${closed ? 'closed' : 'left open'}${received.length > 0 ? ', answered' : ''}` }),
        log,
      });
      report(s);
      expectClean(s);
    },
    timeoutFor(MEMBER_CASES),
  );

  it.runIf(TARGET === 'all' || TARGET === 'http')(
    `HTTP: ${HTTP_CASES} mutated request streams (seed ${SEED}) never crash or wedge a member, and never answer "internal error"`,
    async () => {
      const fc = await FuzzCluster.start();
      const corpus = loadHttpCorpus(FUZZ_CLUSTER_NAME);
      const s = await runFuzz(fc, {
        name: 'http',
        seed: SEED,
        cases: HTTP_CASES,
        lanes: 8,
        batch: 250,
        windowMs: 40,
        maxCrashes: LONG ? 20 : 4,
        rssLimitMb: 300,
        generate: (seed, index) => httpCase(seed, index, corpus, FUZZ_CLUSTER_NAME, [CANARY_MAP], fc.size),
        inspect: (_c, received) => {
          const text = received.toString('latin1');
          const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => m[1]);
          const outcome = statuses.length === 0 ? 'no answer' : `${statuses[0] ?? ''}`;
          const internal = /x-grid-error: internal error/i.test(text) ? 'answered 500 "internal error" (an unexpected exception in a REST handler)' : undefined;
          return internal === undefined ? { outcome } : { outcome, bug: internal };
        },
        log,
      });
      report(s);
      expectClean(s);
    },
    timeoutFor(HTTP_CASES),
  );

  it.runIf(TARGET === 'all' || TARGET === 'dial')(
    `dialling side: a joining member whose every peer answers garbage for ${DIAL_SECONDS} s stays up (seed ${SEED})`,
    async () => {
      // A lone member whose tcp-ip list names only fake peers: it dials each of them every join
      // round (200 ms) and asks again after each broken connection, until it gives up joining.
      const fakePorts = await freePorts(FAKE_PEERS);
      const addresses = fakePorts.map((p) => `127.0.0.1:${p}`);
      const ctx: MemberFuzzContext = { clusterName: FUZZ_CLUSTER_NAME, memberUuids: [], forbidden: [CANARY_MAP] };
      const peers = await Promise.all(fakePorts.map((p, i) => FakePeer.listen(p, caseSeed(SEED, 1_000_000 + i), ctx, addresses)));
      const t0 = Date.now();
      try {
        const c = await Cluster.create({
          size: 1,
          spare: 0,
          clusterName: FUZZ_CLUSTER_NAME,
          properties: { 'hazelcast.max.join.seconds': 600 },
          config: () => ({ network: { join: { 'tcp-ip': { 'member-list': addresses } } } }),
        });
        const m = c.member(0);
        const child = m.process.child;
        const deadline = Date.now() + DIAL_SECONDS * 1000;
        // A negative over a fixed window (the member does not die while dialling), ended early by a death.
        while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) await sleep(100);
        const answers = peers.flatMap((p) => p.answers);
        const seconds = (Date.now() - t0) / 1000;
        const died = child.exitCode !== null || child.signalCode !== null;
        const rss = died ? 0 : new FuzzClusterRss(child.pid).mb();
        const s: Summary = {
          target: 'dial',
          seed: SEED,
          cases: answers.length,
          crashes: died ? 1 : 0,
          wedges: 0,
          canaryFailures: 0,
          internalErrors: 0,
          rssStartMb: rss,
          rssPeakMb: rss,
          rssEndMb: rss,
          seconds,
          casesPerSecond: answers.length / seconds,
          outcomes: Object.fromEntries([...new Set(answers.map((a) => a.label))].map((l) => [l, answers.filter((a) => a.label === l).length])),
          findings: died
            ? [
                {
                  kind: 'crash',
                  target: 'dial',
                  caseId: `fake peers seeded ${SEED}`,
                  label: `last answers: ${answers.slice(-5).map((a) => `${a.request} <- ${a.label}`).join('; ')}`,
                  detail: `the dialling member exited (${String(child.exitCode ?? child.signalCode)}); last output:\n${m.output().split('\n').slice(-30).join('\n')}`,
                  hex: answers.at(-1)?.hex,
                },
              ]
            : [],
        };
        report(s);
        expect(answers.length, 'the member never dialled the fake peers').toBeGreaterThan(0);
        expectClean(s);
      } finally {
        await Promise.all(peers.map((p) => p.close()));
      }
    },
    60_000 + DIAL_SECONDS * 1000,
  );
});
