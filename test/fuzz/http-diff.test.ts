// Differential fuzz of Grid's own HTTP/1.1 path against node:http: two single members, the same
// config but grid.rest.http-path (grid | node), get the same request streams (the seed corpus
// unmutated, then random, mutated and pipelined ones, whole or in random chunks, the same
// chunks for both) and must answer them alike: the same responses byte for byte (Date aside,
// and each member's own port and uuid), the same closing of the connection. Neither may crash
// or wedge. Bounded here (npm test); `npm run fuzz -- --target http-diff --cases N` runs more.
//
// State: requests change data, so both members must hold the same data at every case. Each
// case goes to both at once, and each case's names are its own: every `fz-` in its bytes (after
// mutation, so spliced and mutated names move too) becomes `fz<index>-`. So a request of one
// case never sees another's data: not a case run in parallel (cases run in lanes), and not a
// request that outlives its case (a queue poll still waiting when the case's window closed).
// Within a case, pipelined requests share names (a put, then a get of it). The seed corpus is
// first sent unmutated, in order, with its own names. Cluster-changing management calls are
// never sent (http-input.ts filters them).

import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, startCluster } from '../support/cluster.js';
import { DEFAULT_SEED, Rng, caseSeed, chunkBytes } from './engine.js';
import { FUZZ_CLUSTER_NAME } from './driver.js';
import { compareAnswers, isKnownNodePathLoss, normalise, sendPair, showAnswer, splitResponses, type Answer, type Compared, type MemberIdentity, type PairOptions } from './http-diff.js';
import { httpCase, loadHttpCorpus, type HttpSeed } from './http-input.js';
import { makeTestCerts, pemSsl, type TestCerts } from '../support/certs.js';

const env = process.env;
const SEED = Number(env.FUZZ_SEED ?? DEFAULT_SEED);
const TARGET = env.FUZZ_TARGET ?? 'all';
const LONG = env.FUZZ_CASES !== undefined;
const CASES = Number(env.FUZZ_CASES ?? 400);
const SUMMARY_FILE = env.FUZZ_SUMMARY;
const LANES = 4;
const BATCH = 100;
const PAIR: PairOptions = { quietMs: 25, settleMs: 1_000, deadlineMs: 3_000 };
/** Seeds whose name carries this go to node:http by design (Grid's parser bails on them). */
const HANDOFF_MARK = '[hand-off]';
const log = (line: string): void => {
  if (LONG) process.stderr.write(`${line}\n`);
};

interface Difference {
  readonly caseId: string;
  readonly label: string;
  readonly why: string;
  readonly hex: string;
  readonly chunks: string;
  readonly grid: string;
  readonly node: string;
}

interface DiffSummary {
  target: 'http-diff';
  seed: number;
  cases: number;
  differences: number;
  /** Cases where node:http's side lost answers (isKnownNodePathLoss): not Grid's path. */
  nodePathLosses: number;
  crashes: number;
  wedges: number;
  canaryFailures: number;
  internalErrors: number;
  rssStartMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  seconds: number;
  casesPerSecond: number;
  outcomes: Record<string, number>;
  findings: { kind: string; target: string; caseId: string | undefined; label: string | undefined; detail: string; hex: string | undefined }[];
}

/** Both members, identical but for the HTTP path. */
class Pair {
  constructor(
    readonly grid: Cluster,
    readonly node: Cluster,
    /** How cases are sent (over TLS when the members speak it). */
    readonly options: PairOptions = PAIR,
    private readonly certs?: TestCerts,
  ) {}

  /** With `secure`, both members speak TLS (node's path is then node:https's, over the same TLS sockets). */
  static async start(secure = false): Promise<Pair> {
    const certs = secure ? makeTestCerts() : undefined;
    const start = (path: 'grid' | 'node'): Promise<Cluster> =>
      startCluster({
        ...(certs !== undefined ? { tls: { ca: certs.caPem } } : {}),
        size: 1,
        spare: 0,
        clusterName: FUZZ_CLUSTER_NAME,
        scope: 'file',
        properties: { 'grid.rest.http-path': path },
        // Everything expires and queues stay small, as in the other HTTP fuzz. One instance
        // name for both, so /rest/instance answers alike.
        config: () => ({
          ...(certs !== undefined ? { network: { ssl: pemSsl(certs.memberKey, certs.memberPem, certs.caPem) } } : {}),
          'instance-name': 'fuzz-member',
          map: { default: { 'backup-count': 0, 'time-to-live-seconds': 120 } },
          queue: { default: { 'backup-count': 0, 'max-size': 50 } },
        }),
      });
    const [grid, node] = await Promise.all([start('grid'), start('node')]);
    const pair = new Pair(grid, node, certs !== undefined ? { ...PAIR, tls: { ca: readFileSync(certs.caPem) } } : PAIR, certs);
    await pair.readNames();
    return pair;
  }

  get ports(): [number, number] {
    return [this.grid.member(0).port, this.node.member(0).port];
  }

  private names: [string | undefined, string | undefined] = [undefined, undefined];

  /** Reads each member's instance name (random per member; answers that name it are normalised). */
  async readNames(): Promise<void> {
    const name = async (c: Cluster): Promise<string | undefined> => {
      const r = await c.http(0, 'GET', '/hazelcast/rest/instance', undefined, { timeoutMs: 5_000 });
      return (JSON.parse(r.body) as { name?: string }).name;
    };
    this.names = [await name(this.grid), await name(this.node)];
  }

  identities(): [MemberIdentity, MemberIdentity] {
    return [
      { port: this.grid.member(0).port, uuid: this.grid.member(0).uuid, name: this.names[0] },
      { port: this.node.member(0).port, uuid: this.node.member(0).uuid, name: this.names[1] },
    ];
  }

  /** `grid`/`node` for each member whose process is gone. */
  dead(): string[] {
    const out: string[] = [];
    for (const [name, c] of [['grid', this.grid], ['node', this.node]] as const) {
      const child = c.member(0).process.child;
      if (child.exitCode !== null || child.signalCode !== null) out.push(`${name} (exit ${String(child.exitCode ?? child.signalCode)}):\n${c.member(0).output().trimEnd().split('\n').slice(-30).join('\n')}`);
    }
    return out;
  }

  /** Each member answers a health check within 5 s (undefined), or why not. */
  async canary(): Promise<string | undefined> {
    for (const [name, c] of [['grid', this.grid], ['node', this.node]] as const) {
      try {
        const r = await c.http(0, 'GET', '/hazelcast/health/ready', undefined, { timeoutMs: 5_000 });
        if (r.status !== 200) return `${name} member answered its health check ${r.status}`;
      } catch (e) {
        return `${name} member did not answer its health check: ${(e as Error).message}`;
      }
    }
    return undefined;
  }

  /** grid_rest_http_handoffs_total of the grid member. */
  async handOffs(): Promise<number> {
    const r = await this.grid.http(0, 'GET', '/metrics', undefined, { timeoutMs: 5_000 });
    const m = /^grid_rest_http_handoffs_total (\d+)$/m.exec(r.body);
    if (r.status !== 200 || m === null) throw new Error(`no grid_rest_http_handoffs_total in GET /metrics (${r.status})`);
    return Number(m[1]);
  }

  rssMb(): number {
    let max = 0;
    for (const c of [this.grid, this.node]) {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${c.member(0).process.child.pid}/status`, 'utf8'));
        if (m) max = Math.max(max, Number(m[1]) / 1024);
      } catch {
        // gone
      }
    }
    return max;
  }

  async destroy(): Promise<void> {
    await Promise.all([this.grid.destroy(), this.node.destroy()]);
    this.certs?.remove();
  }
}

/** Sends one case to both members and compares; a Difference when they disagree. */
async function diffCase(pair: Pair, caseId: string, label: string, bytes: Buffer, chunks: readonly Buffer[]): Promise<{ diff: Difference | undefined; known: Difference | undefined; outcome: string }> {
  const [gridId, nodeId] = pair.identities();
  const view = (a: Answer, who: MemberIdentity): Compared => ({ text: normalise(a.received, who), closed: a.closed, reset: a.reset });
  const [g, n] = await sendPair(pair.ports, chunks, pair.options, (a, b) => compareAnswers(view(a, gridId), view(b, nodeId)) === undefined);
  const gv = view(g, gridId);
  const nv = view(n, nodeId);
  const statuses = splitResponses(nv.text).map((r) => r.status);
  const outcome = `${statuses.length === 0 ? 'no answer' : statuses[0] ?? ''}${statuses.length > 1 ? ` +${statuses.length - 1}` : ''}${nv.closed ? ', closed' : ''}`;
  const why = compareAnswers(gv, nv);
  if (why === undefined) return { diff: undefined, known: undefined, outcome };
  const d: Difference = {
    caseId,
    label,
    why,
    hex: bytes.toString('hex'),
    chunks: chunks.map((c) => c.length).join(','),
      grid: showAnswer(gv.text, gv.closed, g.reset, g.timedOut),
      node: showAnswer(nv.text, nv.closed, n.reset, n.timedOut),
  };
  return isKnownNodePathLoss(gv, nv) ? { diff: undefined, known: d, outcome } : { diff: d, known: undefined, outcome };
}

function formatDifference(d: Difference): string {
  return [
    `- difference at case ${d.caseId} (${d.label}): ${d.why}`,
    `  bytes (hex): ${d.hex.length > 4000 ? `${d.hex.slice(0, 4000)}…` : d.hex}`,
    `  chunks: ${d.chunks.length > 300 ? `${d.chunks.slice(0, 300)}…` : d.chunks}`,
    `  grid: ${d.grid}`,
    `  node: ${d.node}`,
  ].join('\n');
}

/** Case `index`: an HTTP fuzz case with its names made its own, chunked afresh. */
function ownCase(index: number, corpus: readonly HttpSeed[]): { label: string; bytes: Buffer; chunks: Buffer[] } {
  const seed = caseSeed(SEED, index);
  const c = httpCase(seed, index, corpus, FUZZ_CLUSTER_NAME, [], 1);
  const bytes = Buffer.from(c.bytes.toString('latin1').replaceAll('fz-', `fz${index}-`), 'latin1');
  const rng = new Rng((seed ^ 0x5bd1e995) >>> 0);
  return { label: c.label, bytes, chunks: chunkBytes(rng, bytes) };
}

// The comparison itself: what it tolerates, and that it catches everything else.
describe('differential fuzz: the comparison', () => {
  const me: MemberIdentity = { port: 12345, uuid: 'u-1', name: 'happy_rivest' };
  const other: MemberIdentity = { port: 23456, uuid: 'u-2', name: 'tender_lamport' };
  const ok = (status: string, body = '', extra = ''): string =>
    `HTTP/1.1 ${status}\r\nContent-Length: ${body.length}\r\n${extra}Date: Thu, 26 Nov 2026 12:00:0${body.length % 10} GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${body}`;
  const closing = (reason: string, date = false): string =>
    `HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n${date ? 'X-Grid-Error: ' + reason + '\r\nConnection: close\r\nDate: x\r\n' : 'Connection: close\r\nX-Grid-Error: ' + reason + '\r\n'}\r\n`;
  const view = (text: string, who: MemberIdentity, closed = false, reset = false): Compared => ({ text: normalise(Buffer.from(text, 'latin1'), who), closed, reset });

  it('tolerates Date, each member\'s port, uuid and name (Content-Length following), and connection counts', () => {
    const body = (who: MemberIdentity, n: number): string =>
      `{"address":"127.0.0.1:${who.port}","uuid":"${who.uuid ?? ''}","name":"${who.name ?? ''}","connectionCount":${n},"allConnectionCount":${n},"replicaSync":{"rounds":${n * 7},"done":0}}`;
    expect(compareAnswers(view(ok('200 OK', body(me, 3)), me), view(ok('200 OK', body(other, 12)), other))).toBeUndefined();
  });

  it('catches a different status, header, header order, body, extra answer or closing', () => {
    const base = ok('200 OK', 'abc', 'X-A: 1\r\nX-B: 2\r\n');
    const variants = [
      ok('201 Created', 'abc', 'X-A: 1\r\nX-B: 2\r\n'),
      ok('200 OK', 'abc', 'X-A: 1\r\nX-B: 3\r\n'),
      ok('200 OK', 'abc', 'X-B: 2\r\nX-A: 1\r\n'),
      ok('200 OK', 'abd', 'X-A: 1\r\nX-B: 2\r\n'),
      ok('200 OK', 'abc', 'x-a: 1\r\nX-B: 2\r\n'),
      base + ok('200 OK'),
      '',
    ];
    for (const v of variants) expect(compareAnswers(view(base, me), view(v, other)), JSON.stringify(v)).toBeDefined();
    expect(compareAnswers(view(base, me, true), view(base, other, false))).toBeDefined();
    // Other counters, and a port that is not the member's own, are not normalised.
    expect(compareAnswers(view(ok('200 OK', '{"replicaSync":{"rounds":1,"done":0}}'), me), view(ok('200 OK', '{"replicaSync":{"rounds":1,"done":1}}'), other))).toBeDefined();
    expect(compareAnswers(view(ok('200 OK', '23456'), me), view(ok('200 OK', '12345'), other))).toBeDefined();
  });

  it('drops framing errors after a Connection: close answer (node answers them only when the bytes beat the close), but not real answers', () => {
    const closed = ok('200 OK').replace('Connection: keep-alive\r\nKeep-Alive: timeout=5', 'Connection: close');
    expect(compareAnswers(view(closed, me, true), view(closed + closing('malformed HTTP request (HPE_CLOSED_CONNECTION)'), other, true))).toBeUndefined();
    expect(compareAnswers(view(closed, me, true), view(closed + closing('method CONNECT is not supported'), other, true))).toBeUndefined();
    expect(compareAnswers(view(closed, me, true), view(closed + ok('200 OK'), other, true))).toBeDefined();
    expect(compareAnswers(view(ok('200 OK'), me, true), view(ok('200 OK') + closing('malformed HTTP request (HPE_INVALID_METHOD)'), other, true))).toBeDefined();
  });

  it('a reset side may miss the tail that ends in the answer the server closed after, only when it was reset', () => {
    const full = ok('200 OK', 'a') + closing('malformed HTTP request (HPE_INVALID_VERSION)');
    expect(compareAnswers(view('', me, true, true), view(full, other, true))).toBeUndefined();
    expect(compareAnswers(view(ok('200 OK', 'a'), me, true, true), view(full, other, true))).toBeUndefined();
    expect(compareAnswers(view('', me, true, false), view(full, other, true))).toBeDefined();
    expect(compareAnswers(view(ok('200 OK', 'b'), me, true, true), view(full, other, true))).toBeDefined();
    expect(compareAnswers(view('', me, true, true), view(ok('200 OK', 'a'), other, true))).toBeDefined();
  });

  it('knows node:http\'s lost answers before a framing error both sides found, and nothing else', () => {
    const err = closing('malformed HTTP request (HPE_INVALID_CHUNK_SIZE)', true);
    const grid = ok('200 OK') + ok('400 Bad Request') + err;
    expect(isKnownNodePathLoss(view(grid, me, true), view(err, other, true))).toBe(true);
    // A 417 lost before a raw framing error that Grid's side sent after its closing answer.
    const raw = closing('malformed HTTP request (HPE_INVALID_METHOD)');
    const refused = ok('417 Expectation Failed').replace('Connection: keep-alive\r\nKeep-Alive: timeout=5', 'Connection: close');
    expect(isKnownNodePathLoss(view(ok('400 Bad Request') + refused + raw, me, true), view(ok('400 Bad Request') + raw, other, true))).toBe(true);
    // Not when Grid's side never met that error (it closed before, on a 400 without Host).
    const noHost = ok('400 Bad Request').replace('Connection: keep-alive\r\nKeep-Alive: timeout=5', 'Connection: close');
    expect(isKnownNodePathLoss(view(ok('200 OK') + noHost, me, true), view(err, other, true))).toBe(false);
    // Not: Grid's side took what node refused (no such error on Grid's side), or answered less, or differently before it.
    expect(isKnownNodePathLoss(view(ok('200 OK'), me, true), view(err, other, true))).toBe(false);
    expect(isKnownNodePathLoss(view(err, me, true), view(grid, other, true))).toBe(false);
    expect(isKnownNodePathLoss(view(grid, me, true), view(ok('200 OK'), other, true))).toBe(false);
    expect(isKnownNodePathLoss(view(grid, me, true), view(ok('201 Created') + err, other, true))).toBe(false);
    expect(isKnownNodePathLoss(view(ok('200 OK') + closing('malformed HTTP request (HPE_STRICT)', true), me, true), view(err, other, true))).toBe(false);
  });
});

const runIt = TARGET === 'all' || TARGET === 'http-diff';

/** Plain TCP with CASES cases; over TLS (issue 22) a bounded share of them, the seed corpus whole. */
const TRANSPORTS = [
  { name: 'TCP', secure: false, cases: CASES },
  { name: 'TLS', secure: true, cases: LONG ? CASES : Math.min(CASES, 100) },
] as const;

for (const { name: transport, secure, cases: CASE_COUNT } of TRANSPORTS)
describe.runIf(runIt)(`differential fuzz over ${transport}: Grid's HTTP path answers as node:http${secure ? 's' : ''} does`, () => {
  let pair: Pair;
  const corpus = loadHttpCorpus(FUZZ_CLUSTER_NAME);
  const summary: DiffSummary = {
    target: 'http-diff',
    seed: SEED,
    cases: 0,
    differences: 0,
    nodePathLosses: 0,
    crashes: 0,
    wedges: 0,
    canaryFailures: 0,
    internalErrors: 0,
    rssStartMb: 0,
    rssPeakMb: 0,
    rssEndMb: 0,
    seconds: 0,
    casesPerSecond: 0,
    outcomes: {},
    findings: [],
  };

  // Its own file next to the other targets' summary (cluster-fuzz.test.ts may run alongside and
  // rewrites that one); scripts/fuzz.mjs reads both.
  const report = (): void => {
    if (SUMMARY_FILE !== undefined) writeFileSync(`${SUMMARY_FILE}.http-diff${secure ? '-tls' : ''}.json`, JSON.stringify([summary], null, 2));
  };

  /** Counts a difference; the first 50 of a test go into its list and the summary. */
  const noteDifference = (d: Difference, differences: Difference[]): void => {
    summary.differences++;
    if (differences.length < 50) {
      differences.push(d);
      summary.findings.push({ kind: 'difference', target: 'http-diff', caseId: d.caseId, label: d.label, detail: `${d.why}\ngrid: ${d.grid}\nnode: ${d.node}`, hex: d.hex });
    }
    log(formatDifference(d));
  };

  const noteKnown = (d: Difference): void => {
    summary.nodePathLosses++;
    log(`[http-diff] node:http side lost answers (known, rest-server.ts) at case ${d.caseId}:\n${formatDifference(d)}`);
  };

  beforeAll(async () => {
    pair = await Pair.start(secure);
  }, 60_000);

  afterAll(async () => {
    await pair?.destroy();
  });

  it('the seed corpus, unmutated and whole: the same answers, and only the seeds marked [hand-off] leave Grid\'s path', async () => {
    expect(corpus.length).toBeGreaterThan(30);
    expect(corpus.filter((s) => s.name.includes(HANDOFF_MARK)).length).toBeGreaterThan(3);
    const wrongHandOff: string[] = [];
    const differences: Difference[] = [];
    let before = await pair.handOffs();
    expect(before).toBe(0);
    for (const [i, s] of corpus.entries()) {
      const { diff, known } = await diffCase(pair, `seed:${i}`, `seed: ${s.name}`, s.bytes, [s.bytes]);
      if (diff !== undefined) noteDifference(diff, differences);
      if (known !== undefined) noteDifference(known, differences); // unmutated seeds must agree outright
      const after = await pair.handOffs();
      const expected = s.name.includes(HANDOFF_MARK) ? 1 : 0;
      if (after - before !== expected) wrongHandOff.push(`${s.name}: ${after - before} hand-offs, expected ${expected}`);
      before = after;
    }
    report();
    expect(wrongHandOff, 'grid_rest_http_handoffs_total moved for seeds Grid\'s path must take itself (or not for a [hand-off] seed)').toEqual([]);
    expect(differences.map(formatDifference)).toEqual([]);
  }, 60_000);

  it(
    `${CASE_COUNT} random, mutated and pipelined request streams (seed ${SEED}), whole and in chunks: the same answers, no crash, no wedge`,
    async () => {
      summary.rssStartMb = summary.rssPeakMb = pair.rssMb();
      const t0 = Date.now();
      const differences: Difference[] = [];
      let stop = false;
      for (let start = 0; start < CASE_COUNT && !stop; start += BATCH) {
        const end = Math.min(CASE_COUNT, start + BATCH);
        await Promise.all(
          Array.from({ length: LANES }, async (_, lane) => {
            // Lane `lane` takes the cases of its residue in order.
            for (let i = start + ((lane - (start % LANES) + LANES) % LANES); i < end && !stop; i += LANES) {
              const c = ownCase(i, corpus);
              const { diff, known, outcome } = await diffCase(pair, `${SEED}/${i}`, c.label, c.bytes, c.chunks);
              if (known !== undefined) noteKnown(known);
              summary.cases++;
              summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + 1;
              if (diff !== undefined) noteDifference(diff, differences);
              const dead = pair.dead();
              if (dead.length > 0) {
                summary.crashes++;
                summary.findings.push({ kind: 'crash', target: 'http-diff', caseId: `${SEED}/${i}`, label: c.label, detail: `died during or just before this case: ${dead.join('\n')}`, hex: c.bytes.toString('hex') });
                log(`[http-diff] crash at or before case ${SEED}/${i}: ${dead.join('\n')}`);
                stop = true;
              }
            }
          }),
        );
        if (stop) break;
        const why = await pair.canary();
        if (why !== undefined) {
          summary.wedges++;
          summary.findings.push({ kind: 'wedge', target: 'http-diff', caseId: `${SEED}/${start}..${SEED}/${end - 1}`, label: undefined, detail: why, hex: undefined });
          log(`[http-diff] wedge after cases ${start}..${end - 1}: ${why}`);
          break;
        }
        const rss = pair.rssMb();
        summary.rssPeakMb = Math.max(summary.rssPeakMb, rss);
        summary.rssEndMb = rss;
        if (start % 1000 === 0 && start > 0) log(`[http-diff] ${summary.cases} cases, ${summary.differences} differences, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      }
      summary.seconds = (Date.now() - t0) / 1000;
      summary.casesPerSecond = summary.cases / Math.max(0.001, summary.seconds);
      report();
      log(`[http-diff] ${summary.cases} cases in ${summary.seconds.toFixed(1)} s: ${summary.differences} differences, ${summary.nodePathLosses} node-path losses, ${summary.crashes} crashes, ${summary.wedges} wedges; outcomes ${JSON.stringify(summary.outcomes)}`);
      expect(summary.crashes + summary.wedges, summary.findings.map((f) => `${f.kind} ${f.caseId ?? ''}: ${f.detail}`).join('\n')).toBe(0);
      expect(differences.map(formatDifference)).toEqual([]);
      expect(summary.cases).toBe(CASE_COUNT);
    },
    60_000 + CASE_COUNT * 30,
  );
});
