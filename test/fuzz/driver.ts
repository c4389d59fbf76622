// Runs fuzz cases against a real 2-member cluster (child processes, so a crash is an exit we
// can see and survive): each case is one TCP connection that sends its bytes and is dropped
// after a short window. Between batches a canary writes and reads a map entry through REST on
// every member, a fresh member-protocol connection must authenticate, and each process must be
// alive with a bounded RSS. A crash is traced to its case by replaying the batch one case at a
// time on a restarted cluster.

import net from 'node:net';
import { readFileSync } from 'node:fs';
import { FrameKind, FrameReader, encodeFrame } from '../../src/protocol/frame.js';
import { Msg } from '../../src/protocol/messages.js';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { caseSeed } from './engine.js';
import { sleep } from '../support/wait.js';

export const FUZZ_CLUSTER_NAME = 'fuzzgrid';
export const CANARY_MAP = 'canary-map';

export interface FuzzCase {
  readonly index: number;
  readonly target: number;
  readonly label: string;
  readonly bytes: Buffer;
  readonly chunks: readonly Buffer[];
}

export interface Finding {
  readonly kind: 'crash' | 'wedge' | 'canary' | 'internal-error';
  readonly target: string;
  /** `seed/index` of the case, when known. */
  readonly caseId: string | undefined;
  readonly label: string | undefined;
  readonly detail: string;
  /** The exact bytes sent, hex. */
  readonly hex: string | undefined;
}

export interface Summary {
  target: string;
  seed: number;
  cases: number;
  crashes: number;
  wedges: number;
  canaryFailures: number;
  internalErrors: number;
  rssStartMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  seconds: number;
  casesPerSecond: number;
  /** Answers seen (HTTP status counts, or how member connections ended). */
  outcomes: Record<string, number>;
  findings: Finding[];
}

export interface RunOptions {
  readonly name: string;
  readonly seed: number;
  readonly cases: number;
  /** Connections in flight at once. */
  readonly lanes: number;
  /** Cases between two canary checks. */
  readonly batch: number;
  /** How long a case's connection stays open waiting for the member to answer or close. */
  readonly windowMs: number;
  /** Stop after this many crashes (each costs a cluster restart). */
  readonly maxCrashes: number;
  /** RSS growth (MB over the first sample) that counts as unbounded. */
  readonly rssLimitMb: number;
  readonly generate: (seed: number, index: number) => FuzzCase;
  /** Cases sent before the random ones (pinned regressions). */
  readonly pinned?: readonly FuzzCase[];
  /** Classifies what came back (for the outcome counts); returns a finding's detail when the answer itself is a bug. */
  readonly inspect?: (c: FuzzCase, received: Buffer, closedByPeer: boolean) => { outcome: string; bug?: string };
  readonly log?: (line: string) => void;
}


// ---------------------------------------------------------------- one connection

export interface Sent {
  readonly received: Buffer;
  readonly closedByPeer: boolean;
  readonly connectError: string | undefined;
}

/** Connects, writes the chunks one by one, waits up to `windowMs` for the peer to close, then drops the connection. */
export function sendCase(port: number, chunks: readonly Buffer[], windowMs: number): Promise<Sent> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    const got: Buffer[] = [];
    let closedByPeer = false;
    let connectError: string | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(got), closedByPeer, connectError });
    };
    const timer = setTimeout(finish, windowMs + 2_000);
    socket.on('data', (d: Buffer) => {
      if (got.length < 64) got.push(d);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (!socket.connecting) closedByPeer = true;
      else connectError = e.code ?? e.message;
      finish();
    });
    socket.on('end', () => {
      closedByPeer = true;
      finish();
    });
    socket.on('close', finish);
    socket.once('connect', () => {
      const write = async (): Promise<void> => {
        for (const c of chunks) {
          if (done || socket.destroyed) return;
          await new Promise<void>((r) => socket.write(c, () => r()));
          if (chunks.length > 1) await new Promise<void>((r) => setImmediate(r));
        }
        clearTimeout(timer);
        setTimeout(finish, windowMs);
      };
      void write();
    });
  });
}

// ---------------------------------------------------------------- the cluster under fuzz

export class FuzzCluster {
  private canaryCount = 0;

  private constructor(public cluster: Cluster) {}

  static async start(): Promise<FuzzCluster> {
    return new FuzzCluster(await startFuzzCluster());
  }

  async restart(): Promise<void> {
    await this.cluster.destroy({ keepFiles: false });
    this.cluster = await startFuzzCluster();
  }

  get size(): number {
    return this.cluster.members.length;
  }

  port(i: number): number {
    return this.cluster.member(i).port;
  }

  uuids(): string[] {
    return this.cluster.members.map((m) => m.uuid ?? '').filter((u) => u !== '');
  }

  /** Index and exit of every member whose process is gone. */
  dead(): { index: number; how: string; output: string }[] {
    return this.cluster.members
      .filter((m) => m.process.child.exitCode !== null || m.process.child.signalCode !== null)
      .map((m) => ({ index: m.index, how: `exit ${String(m.process.child.exitCode ?? m.process.child.signalCode)}`, output: tailLines(m.output(), 30) }));
  }

  rssMb(i: number): number {
    return new FuzzClusterRss(this.cluster.member(i).process.child.pid).mb();
  }

  /**
   * Writes a fresh entry through each member and reads it back through the other; undefined
   * when all is right, else what went wrong ('wedge:' prefix when a member did not answer).
   */
  async canary(): Promise<string | undefined> {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const key = `k${this.canaryCount++}`;
      const value = `v-${key}-${Math.random().toString(36).slice(2)}`;
      const reader = (i + 1) % n;
      try {
        const put = await this.cluster.http(i, 'POST', `/hazelcast/rest/maps/${CANARY_MAP}/${key}`, value, { timeoutMs: 5_000 });
        if (put.status !== 200) return `canary put of ${key} through member ${i}: ${put.status} ${String(put.headers['x-grid-error'] ?? '')}`;
        const get = await this.cluster.http(reader, 'GET', `/hazelcast/rest/maps/${CANARY_MAP}/${key}`, undefined, { timeoutMs: 5_000 });
        if (get.status !== 200 || get.body !== value) {
          return `canary get of ${key} through member ${reader}: ${get.status} ${JSON.stringify(get.body.slice(0, 80))}, expected ${JSON.stringify(value)}`;
        }
      } catch (e) {
        return `wedge: canary through members ${i}/${reader}: ${(e as Error).message}`;
      }
    }
    for (let i = 0; i < n; i++) {
      const why = await memberProbe(this.port(i));
      if (why !== undefined) return `wedge: member ${i} protocol: ${why}`;
    }
    return undefined;
  }
}

/** The resident set of a process, from /proc (0 where there is none). */
export class FuzzClusterRss {
  constructor(private readonly pid: number | undefined) {}

  mb(): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  }
}

function startFuzzCluster(): Promise<Cluster> {
  return startCluster({
    size: 2,
    clusterName: FUZZ_CLUSTER_NAME,
    // Everything the fuzz writes expires, and queues stay small: memory reflects leaks, not data.
    config: () => ({
      // fz-m keeps a Merkle tree, so WanMerkle requests reach the real tree code.
      map: { default: { 'backup-count': 1, 'time-to-live-seconds': 120 }, 'fz-m': { 'backup-count': 1, 'time-to-live-seconds': 120, 'merkle-tree': { enabled: true, depth: 4 } } },
      queue: { default: { 'backup-count': 1, 'max-size': 50 } },
    }),
  });
}

/** A fresh member-protocol connection authenticates within 3 s (undefined), or why not. */
export function memberProbe(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const reader = new FrameReader();
    let settled = false;
    const done = (why: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done('no Auth answer within 3 s'), 3_000);
    socket.on('error', (e) => done(`connection error ${e.message}`));
    socket.on('close', () => done('closed before answering Auth'));
    socket.on('data', (d: Buffer) => {
      try {
        for (const f of reader.push(d)) done(f.kind === FrameKind.Response ? undefined : `Auth answered with frame kind ${f.kind}`);
      } catch (e) {
        done(`unreadable answer: ${(e as Error).message}`);
      }
    });
    socket.once('connect', () => {
      socket.write(Buffer.from(MEMBER_PREAMBLE));
      socket.write(encodeFrame(FrameKind.Request, Msg.Auth, 1, [FUZZ_CLUSTER_NAME, 'probe-uuid', '127.0.0.1:1', null, null, '0.1.0', 2]));
    });
  });
}

function tailLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

// ---------------------------------------------------------------- a run

export async function runFuzz(fc: FuzzCluster, opts: RunOptions): Promise<Summary> {
  const log = opts.log ?? ((): void => undefined);
  const summary: Summary = {
    target: opts.name,
    seed: opts.seed,
    cases: 0,
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
  const sampleRss = (): number => {
    let max = 0;
    for (let i = 0; i < fc.size; i++) max = Math.max(max, fc.rssMb(i));
    summary.rssPeakMb = Math.max(summary.rssPeakMb, max);
    summary.rssEndMb = max;
    return max;
  };
  const idOf = (c: FuzzCase): string => (c.index < 0 ? `pinned:${c.label}` : `${opts.seed}/${c.index}`);
  const finding = (f: Omit<Finding, 'target'>): void => {
    summary.findings.push({ target: opts.name, ...f });
    log(`[${opts.name}] ${f.kind}${f.caseId ? ` at case ${f.caseId}` : ''}: ${f.detail.split('\n')[0] ?? ''}`);
  };

  const runOne = async (c: FuzzCase): Promise<void> => {
    const sent = await sendCase(fc.port(c.target % fc.size), c.chunks, opts.windowMs);
    summary.cases++;
    let outcome = sent.connectError !== undefined ? `connect error ${sent.connectError}` : sent.closedByPeer ? 'closed by member' : 'left open';
    if (opts.inspect && sent.connectError === undefined) {
      const r = opts.inspect(c, sent.received, sent.closedByPeer);
      outcome = r.outcome;
      if (r.bug !== undefined) {
        summary.internalErrors++;
        if (summary.internalErrors <= 20) finding({ kind: 'internal-error', caseId: idOf(c), label: c.label, detail: r.bug, hex: c.bytes.toString('hex') });
      }
    }
    summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + 1;
  };

  /** Replays `batch` one case at a time on a fresh cluster until one kills a member. */
  const traceCrash = async (batch: readonly FuzzCase[]): Promise<void> => {
    await fc.restart();
    for (const c of batch) {
      await sendCase(fc.port(c.target % fc.size), c.chunks, opts.windowMs);
      await sleep(150); // a negative: time for a crash this case causes to show
      const dead = fc.dead();
      if (dead.length > 0) {
        finding({
          kind: 'crash',
          caseId: idOf(c),
          label: c.label,
          detail: `member ${dead.map((d) => `${d.index} (${d.how})`).join(', ')} died after this case alone; last output:\n${dead[0]?.output ?? ''}`,
          hex: c.bytes.toString('hex'),
        });
        await fc.restart();
        return;
      }
    }
    finding({ kind: 'crash', caseId: undefined, label: undefined, detail: `a member died during cases ${idOf(batch[0] as FuzzCase)}..${idOf(batch[batch.length - 1] as FuzzCase)}, but no single case repeats it`, hex: undefined });
  };

  /** After a batch: alive, canary, RSS. Returns false when the run must stop. */
  const check = async (batch: readonly FuzzCase[]): Promise<boolean> => {
    await sleep(20); // a negative: time for a crash the batch caused to show
    const dead = fc.dead();
    if (dead.length > 0) {
      summary.crashes++;
      log(`[${opts.name}] member ${dead.map((d) => `${d.index} ${d.how}`).join(', ')} died in cases ${idOf(batch[0] as FuzzCase)}.. — replaying them one by one`);
      await traceCrash(batch);
      if (summary.crashes >= opts.maxCrashes) {
        log(`[${opts.name}] stopping after ${summary.crashes} crashes`);
        return false;
      }
      return true;
    }
    const why = await fc.canary();
    if (why !== undefined) {
      const wedge = why.startsWith('wedge:');
      if (wedge) summary.wedges++;
      else summary.canaryFailures++;
      finding({ kind: wedge ? 'wedge' : 'canary', caseId: `${idOf(batch[0] as FuzzCase)}..${idOf(batch[batch.length - 1] as FuzzCase)}`, label: undefined, detail: why, hex: undefined });
      if (fc.dead().length > 0) return check(batch);
      // A wedged or wrong member is not fuzzed further: start afresh.
      await fc.restart();
      return summary.wedges + summary.canaryFailures < opts.maxCrashes;
    }
    const rss = sampleRss();
    if (summary.rssStartMb > 0 && rss - summary.rssStartMb > opts.rssLimitMb) {
      finding({ kind: 'wedge', caseId: idOf(batch[batch.length - 1] as FuzzCase), label: undefined, detail: `RSS grew from ${summary.rssStartMb.toFixed(0)} MB to ${rss.toFixed(0)} MB`, hex: undefined });
      summary.wedges++;
      return false;
    }
    return true;
  };

  const runBatch = async (batch: readonly FuzzCase[]): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(opts.lanes, batch.length) }, async () => {
        while (next < batch.length) await runOne(batch[next++] as FuzzCase);
      }),
    );
  };

  // Warm up (so the first RSS sample is of a member that has served requests), then measure.
  const warm = await fc.canary();
  if (warm !== undefined) throw new Error(`the cluster fails the canary before any fuzz case: ${warm}`);
  summary.rssStartMb = sampleRss();
  summary.rssPeakMb = summary.rssStartMb;
  const t0 = Date.now();

  for (const c of opts.pinned ?? []) {
    await runBatch([c]);
    if (!(await check([c]))) return finish();
  }
  for (let start = 0; start < opts.cases; start += opts.batch) {
    const batch: FuzzCase[] = [];
    for (let i = start; i < Math.min(opts.cases, start + opts.batch); i++) batch.push(opts.generate(caseSeed(opts.seed, i), i));
    await runBatch(batch);
    if (!(await check(batch))) break;
    if ((start / opts.batch) % 20 === 19) log(`[${opts.name}] ${summary.cases} cases, ${((Date.now() - t0) / 1000).toFixed(0)} s, RSS ${summary.rssEndMb.toFixed(0)} MB`);
  }
  return finish();

  function finish(): Summary {
    summary.seconds = (Date.now() - t0) / 1000;
    summary.casesPerSecond = summary.cases / Math.max(summary.seconds, 0.001);
    return summary;
  }
}

// ---------------------------------------------------------------- reports

export function formatSummaries(rows: readonly Summary[]): string {
  const head = ['target', 'seed', 'cases', 'crashes', 'wedges', 'canary fail', 'internal err', 'RSS start/peak/end MB', 'cases/s'];
  const body = rows.map((s) => [
    s.target,
    String(s.seed),
    String(s.cases),
    String(s.crashes),
    String(s.wedges),
    String(s.canaryFailures),
    String(s.internalErrors),
    `${s.rssStartMb.toFixed(0)}/${s.rssPeakMb.toFixed(0)}/${s.rssEndMb.toFixed(0)}`,
    s.casesPerSecond.toFixed(0),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function formatFindings(rows: readonly Summary[]): string {
  const all = rows.flatMap((s) => s.findings);
  if (all.length === 0) return 'no findings';
  return all
    .map((f) => `- ${f.kind} [${f.target}] case ${f.caseId ?? '?'}${f.label ? ` (${f.label})` : ''}: ${f.detail}${f.hex ? `\n  bytes: ${f.hex.length > 4000 ? `${f.hex.slice(0, 4000)}…` : f.hex}` : ''}`)
    .join('\n');
}
