// Fuzz against a real 2-member cluster: member-protocol input before and after Auth, HTTP
// input, and answers to a member that dials a fake peer. Strict: any crash, wedge, wrong
// canary answer, REST internal error or unbounded RSS fails the test, with the exact bytes.
// Bounded here (npm test); `npm run fuzz -- --cases N` runs the same code longer through the
// FUZZ_* variables below.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/process.js';
import { DEFAULT_SEED } from './engine.js';
import { CANARY_MAP, FUZZ_CLUSTER_NAME, FuzzCluster, formatFindings, formatSummaries, runFuzz, type FuzzCase, type Summary } from './driver.js';
import { FakePeer } from './fake-peer.js';
import { httpCase, loadHttpCorpus } from './http-input.js';
import { memberCase, type MemberFuzzContext } from './member-input.js';

const env = process.env;
const SEED = Number(env.FUZZ_SEED ?? DEFAULT_SEED);
const TARGET = env.FUZZ_TARGET ?? 'all';
const MEMBER_CASES = Number(env.FUZZ_CASES ?? 1500);
const HTTP_CASES = Number(env.FUZZ_CASES ?? 1500);
/** Answers the fake peer gives a joining member (it is dialled again after each broken connection). */
const DIAL_SECONDS = Number(env.FUZZ_DIAL_SECONDS ?? 6);
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
    `dialling side: a joining member that dials a peer answering garbage for ${DIAL_SECONDS} s stays up`,
    async () => {
      const fc = await FuzzCluster.start();
      const c = fc.cluster;
      // ports[size] is the next member's; the one after is listed by everyone and free.
      const fakePort = c.ports[c.members.length + 1] as number;
      const peer = await FakePeer.listen(fakePort, SEED, ctxFor(fc));
      const t0 = Date.now();
      try {
        const joiner = await c.addMember({ wait: 'none' });
        const deadline = Date.now() + DIAL_SECONDS * 1000;
        while (Date.now() < deadline && joiner.process.child.exitCode === null && joiner.process.child.signalCode === null) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const dead = fc.dead();
        const s: Summary = {
          target: 'dial',
          seed: SEED,
          cases: peer.answers.length,
          crashes: dead.length,
          wedges: 0,
          canaryFailures: 0,
          internalErrors: 0,
          rssStartMb: 0,
          rssPeakMb: 0,
          rssEndMb: 0,
          seconds: (Date.now() - t0) / 1000,
          casesPerSecond: peer.answers.length / ((Date.now() - t0) / 1000),
          outcomes: {},
          findings: dead.map((d) => ({
            kind: 'crash' as const,
            target: 'dial',
            caseId: `${SEED}/0..${peer.answers.length - 1}`,
            label: `answers: ${peer.answers.map((a) => `${a.request} <- ${a.label}`).slice(-5).join('; ')}`,
            detail: `member ${d.index} (${d.how}) died while dialling the fake peer; last output:\n${d.output}`,
            hex: peer.answers.at(-1)?.hex,
          })),
        };
        if (dead.length === 0) {
          const why = await fc.canary().catch((e: Error) => `wedge: ${e.message}`);
          if (why !== undefined) {
            s.canaryFailures++;
            s.findings.push({ kind: 'canary', target: 'dial', caseId: undefined, label: undefined, detail: why, hex: undefined });
          }
          // The joiner still answers REST (joined or not).
          await waitFor('the joining member to answer REST', () => c.health(joiner.index).then(() => true), 15_000).catch((e: Error) => {
            s.wedges++;
            s.findings.push({ kind: 'wedge', target: 'dial', caseId: undefined, label: undefined, detail: e.message, hex: undefined });
          });
        }
        for (let i = 0; i < c.members.length; i++) s.rssEndMb = Math.max(s.rssEndMb, fc.rssMb(i));
        s.rssStartMb = s.rssPeakMb = s.rssEndMb;
        report(s);
        expect(peer.answers.length, 'the joining member never dialled the fake peer').toBeGreaterThan(0);
        expectClean(s);
      } finally {
        await peer.close();
      }
    },
    60_000 + DIAL_SECONDS * 1000,
  );
});
