// The chaos driver: a cluster of real member processes (test/support/cluster.ts) under
// continuous map writes and reads and queue offers and polls from several sequential clients,
// each request through a random member's REST port, while faults hit one member at a time,
// the cluster becoming safe again between faults. Everything the clients were told goes into
// the Ledger; at the end every key is read back through every member and every queue is
// drained, and the Ledger judges. Runs inside vitest (the harness cleans up after the test):
// chaos.test.ts is the bounded version in `npm test`, long.chaos.ts the `npm run chaos` one.

import { startCluster, type Cluster, type ClusterOptions } from '../support/cluster.js';
import { NetLab, netnsUnavailable } from '../support/netns.js';
import { waitFor } from '../support/process.js';
import { prng } from '../support/prng.js';
import { Ledger, type Report } from './ledger.js';
import { formatSummary, type FaultKind, type FaultRecord } from './summary.js';
import { sleep } from '../support/wait.js';

export interface ChaosOptions {
  readonly members: number;
  readonly seed: number;
  /** No new fault starts after this long (ms from the first fault). */
  readonly durationMs: number;
  /** Fault kinds chosen from at random (ignored with a `schedule`). */
  readonly faults: readonly FaultKind[];
  /** A fixed sequence of faults instead (the bounded test): kind and which member it hits. */
  readonly schedule?: readonly { readonly kind: FaultKind; readonly victim: 'master' | 'other' | 'any' }[];
  readonly clients?: number;
  /**
   * Extra clients that only poll the hand-off queue (`chaos-handoff`), waiting 2 s at the owner
   * each time, while the other clients offer to it rarely: its items mostly go straight to a
   * waiting poll, through whichever member forwarded it. Default 1.
   */
  readonly waitingPollers?: number;
  /** Keys each client owns per map. */
  readonly keysPerClient?: number;
  readonly maps?: number;
  readonly queues?: number;
  /** SIGSTOP length of a `pause`, ms, uniform in [min, max]: under the heartbeat deadline. */
  readonly shortPauseMs?: readonly [number, number];
  /** Shortest SIGSTOP of a `longpause`, ms (it also lasts until the others removed the member). */
  readonly longPauseMs?: number;
  /** Shortest cut of a `partition`, ms (it also lasts until both sides split). Default 10 s. */
  readonly partitionMs?: number;
  /** Load on a safe cluster before each fault, ms, uniform in [min, max]. */
  readonly quietMs?: readonly [number, number];
  /** Extra cluster options (config, properties). */
  readonly cluster?: Partial<ClusterOptions>;
  readonly log?: (line: string) => void;
}

export interface ChaosResult {
  readonly report: Report;
  readonly faults: readonly FaultRecord[];
  /** Markdown summary (faults, operations, verdict and every problem). */
  readonly summary: string;
  /** Status counts per operation kind (0 = no answer). */
  readonly statuses: Record<string, Record<number, number>>;
  /** True when the checker and every fault found nothing wrong. */
  readonly ok: boolean;
  /** Where the members' configs and saved logs are (kept when the test fails). */
  readonly dir: string;
}

/**
 * What a fault does: one member (or one side) hit, the cluster safe again (with every member)
 * before it returns, a FaultRecord describing the times. `partition` needs the members in
 * network namespaces of their own: a run whose faults include it starts them so (NetLab).
 */
export type FaultInjector = (ctx: ChaosContext, victim: number, victimWasMaster: boolean) => Promise<FaultRecord>;

export const FAULTS: Partial<Record<FaultKind, FaultInjector>> = {
  kill: killAndRestart,
  pause: shortPause,
  longpause: longPause,
  partition,
};

/** Parses `kill,pause,longpause`; refuses unknown kinds and kinds without an injector. */
export function parseFaults(text: string): FaultKind[] {
  const kinds = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (kinds.length === 0) throw new Error('no fault kinds given');
  for (const k of kinds) {
    if (!(k in FAULTS)) throw new Error(`unknown fault kind "${k}" (known: ${Object.keys(FAULTS).join(', ')})`);
    if (k === 'partition') {
      const why = netnsUnavailable();
      if (why !== undefined) throw new Error(`fault "partition" needs network namespaces: ${why}`);
    }
  }
  return kinds as FaultKind[];
}

/** What the fault injectors work with. */
export interface ChaosContext {
  readonly c: Cluster;
  readonly size: number;
  readonly rnd: () => number;
  readonly opts: ChaosOptions;
  /** Members the clients send new requests to (up and not paused). */
  readonly targets: Set<number>;
  /** Member i runs alone on side i of this lab (runs with the `partition` fault). */
  readonly lab: NetLab | undefined;
  /** The fault under way (`fault 3: kill on m1`), or what happened last, for the incident log. */
  fault: string;
  /** ms since the run started. */
  now(): number;
  log(line: string): void;
}

// Sleeps here are fault durations, quiet times between faults and retry back-off; waits for a
// condition go through the harness (waitForMembers, waitSafe).
const between = (rnd: () => number, [lo, hi]: readonly [number, number]): number => lo + rnd() * (hi - lo);
const others = (ctx: ChaosContext, victim: number): number[] => ctx.c.members.map((m) => m.index).filter((i) => i !== victim);

/** Longer than the cluster's call timeout (60 s), so a request without an answer is one the cluster is done with. */
const CLIENT_TIMEOUT_MS = 75_000;
const SAFE_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------- faults

async function rejoin(ctx: ChaosContext, victim: number): Promise<number> {
  const t = Date.now();
  await ctx.c.restart(victim, { timeoutMs: SAFE_TIMEOUT_MS });
  await ctx.c.waitForMembers(ctx.size, undefined, SAFE_TIMEOUT_MS);
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size);
  ctx.targets.add(victim);
  return Date.now() - t;
}

async function killAndRestart(ctx: ChaosContext, victim: number, victimWasMaster: boolean): Promise<FaultRecord> {
  const at = ctx.now();
  ctx.targets.delete(victim);
  const t = Date.now();
  await ctx.c.kill(victim);
  const rest = others(ctx, victim);
  await ctx.c.waitForMembers(ctx.size - 1, undefined, SAFE_TIMEOUT_MS, rest);
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size - 1, rest);
  const safeMs = Date.now() - t;
  const rejoinMs = await rejoin(ctx, victim);
  return { kind: 'kill', victim, victimWasMaster, at, safeMs, rejoinMs, problems: [] };
}

async function shortPause(ctx: ChaosContext, victim: number, victimWasMaster: boolean): Promise<FaultRecord> {
  const at = ctx.now();
  const pausedMs = Math.round(between(ctx.rnd, ctx.opts.shortPauseMs ?? [500, 2500]));
  ctx.targets.delete(victim);
  ctx.c.pause(victim);
  await sleep(pausedMs);
  ctx.c.resume(victim);
  const t = Date.now();
  const problems: string[] = [];
  try {
    await ctx.c.waitForMembers(ctx.size, undefined, 20_000);
    await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size);
  } catch (e) {
    const m = ctx.c.member(victim);
    if (m.status === 'running') throw e;
    problems.push(`a ${pausedMs} ms pause got the member removed (it ${m.status}); restarted it`);
    await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size - 1);
    await rejoin(ctx, victim);
  }
  const safeMs = Date.now() - t;
  ctx.targets.add(victim);
  return { kind: 'pause', victim, victimWasMaster, at, safeMs, pausedMs, problems };
}

async function longPause(ctx: ChaosContext, victim: number, victimWasMaster: boolean): Promise<FaultRecord> {
  const at = ctx.now();
  const problems: string[] = [];
  ctx.targets.delete(victim);
  const t = Date.now();
  ctx.c.pause(victim);
  const rest = others(ctx, victim);
  await ctx.c.waitForMembers(ctx.size - 1, undefined, SAFE_TIMEOUT_MS, rest);
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size - 1, rest);
  const safeMs = Date.now() - t;
  const hold = (ctx.opts.longPauseMs ?? 7_000) - (Date.now() - t);
  if (hold > 0) await sleep(hold);
  const pausedMs = Date.now() - t;
  ctx.c.resume(victim);
  const resumed = Date.now();
  let exitAfterResumeMs: number | undefined;
  try {
    const exit = await ctx.c.waitExit(victim, 30_000);
    exitAfterResumeMs = Date.now() - resumed;
    if (exit.code !== 0) problems.push(`the resumed member exited with ${String(exit.code ?? exit.signal)}`);
  } catch {
    problems.push('the member removed while paused kept running for 30 s after it resumed; killed it');
    await ctx.c.kill(victim);
  }
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size - 1, rest);
  const rejoinMs = await rejoin(ctx, victim);
  return { kind: 'longpause', victim, victimWasMaster, at, safeMs, rejoinMs, pausedMs, ...(exitAfterResumeMs !== undefined ? { exitAfterResumeMs } : {}), problems };
}

/**
 * The victim's packets to and from every other member are dropped silently (TCP backs off, as
 * behind a dead switch) until both sides have split and at least `partitionMs` passed; then
 * they go through again and the victim's side merges back (a split brain healed). Clients do
 * not send through the victim while it is cut off: what a minority side acknowledges may be
 * undone by the merge policy (docs/clustering.md), which is not what this run checks.
 */
async function partition(ctx: ChaosContext, victim: number, victimWasMaster: boolean): Promise<FaultRecord> {
  const lab = ctx.lab;
  if (lab === undefined) throw new Error('fault "partition" needs the members in network namespaces (runChaos starts them so when its faults include it)');
  const at = ctx.now();
  const problems: string[] = [];
  const rest = others(ctx, victim);
  const logFrom = new Map(ctx.c.members.map((m) => [m.index, m.logMessages().length]));
  ctx.targets.delete(victim);
  const t = Date.now();
  for (const o of rest) lab.setDrop(victim, o, true);
  await ctx.c.waitForMembers(ctx.size - 1, undefined, SAFE_TIMEOUT_MS, rest);
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size - 1, rest);
  const safeMs = Date.now() - t;
  const hold = (ctx.opts.partitionMs ?? 10_000) - (Date.now() - t);
  if (hold > 0) await sleep(hold);
  const pausedMs = Date.now() - t;
  for (const o of rest) lab.setDrop(victim, o, false);
  const healed = Date.now();
  await ctx.c.waitForMembers(ctx.size, undefined, SAFE_TIMEOUT_MS);
  await ctx.c.waitSafe(SAFE_TIMEOUT_MS, ctx.size);
  const rejoinMs = Date.now() - healed;
  const merges = (): number => ctx.c.member(victim).logMessages().slice(logFrom.get(victim)).filter((l) => l.startsWith('merge done')).length;
  await waitFor('the cut-off member to finish merging', () => merges() > 0, 30_000, 100).catch(() => undefined);
  if (merges() !== 1) problems.push(`the cut-off member merged ${merges()} times after the heal (once expected)`);
  ctx.targets.add(victim);
  return { kind: 'partition', victim, victimWasMaster, at, safeMs, rejoinMs, pausedMs, problems };
}

// ---------------------------------------------------------------- clients

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly abandoned: boolean;
  /** The connection error, or the X-Grid-Error of an error answer. */
  readonly error: string;
}

async function request(c: Cluster, i: number, method: string, path: string, body?: string): Promise<Answer> {
  try {
    const res = await c.http(i, method, path, body, { timeoutMs: CLIENT_TIMEOUT_MS });
    return { status: res.status, body: res.body, abandoned: false, error: String(res.headers['x-grid-error'] ?? '') };
  } catch (e) {
    const error = (e as Error).message;
    return { status: 0, body: '', abandoned: /no answer within/.test(error), error };
  }
}

interface Load {
  stopping: boolean;
  readonly statuses: Record<string, Record<number, number>>;
  /** Every request without a 200/204 answer: when, what, through whom, during which fault. */
  readonly incidents: string[];
}

/** Counts the answer; logs it as an incident unless it is 200/204. Returns a note for the ledger. */
function record(ctx: ChaosContext, load: Load, op: string, path: string, through: number, sentAt: number, a: Answer): string {
  const s = (load.statuses[op] ??= {});
  s[a.status] = (s[a.status] ?? 0) + 1;
  const note = `sent ${(sentAt / 1000).toFixed(2)} s, answered ${(ctx.now() / 1000).toFixed(2)} s via m${through} during ${ctx.fault}`;
  if (a.status !== 200 && a.status !== 204) {
    const line = `${op} ${path}: ${a.status === 0 ? 'no answer' : a.status}${a.error ? ` (${a.error.slice(0, 120)})` : ''}, ${note}`;
    load.incidents.push(line);
    ctx.log(`incident: ${line}`);
  }
  return note;
}

/**
 * One sequential client: one request at a time, each through a random target member. It owns
 * its keys (`c<id>-k<n>` in every map), so its writes to a key are ordered and its reads of
 * them see no concurrent write of its own.
 */
async function client(ctx: ChaosContext, ledger: Ledger, load: Load, id: number): Promise<void> {
  const rnd = prng(ctx.opts.seed * 7919 + id);
  const maps = ctx.opts.maps ?? 2;
  const queues = ctx.opts.queues ?? 3;
  const keys = ctx.opts.keysPerClient ?? 50;
  const written: { map: string; key: string }[] = [];
  const seen = new Set<string>();
  while (!load.stopping) {
    const targets = [...ctx.targets];
    const through = targets[Math.floor(rnd() * targets.length)];
    if (through === undefined) {
      await sleep(50);
      continue;
    }
    const via = `m${through}`;
    const r = rnd();
    if (r < 0.45 || written.length === 0) {
      const map = `chaos-m${Math.floor(rnd() * maps)}`;
      const key = `c${id}-k${Math.floor(rnd() * keys)}`;
      const w = ledger.beginPut(id, map, key);
      const path = `/hazelcast/rest/maps/${map}/${key}`;
      const sentAt = ctx.now();
      const a = await request(ctx.c, through, 'POST', path, w.value);
      ledger.endPut(w, a.status, { abandoned: a.abandoned });
      record(ctx, load, 'map.put', `${path} = ${w.value}`, through, sentAt, a);
      if (!seen.has(`${map}/${key}`)) {
        seen.add(`${map}/${key}`);
        written.push({ map, key });
      }
    } else if (r < 0.65) {
      const { map, key } = written[Math.floor(rnd() * written.length)]!;
      const path = `/hazelcast/rest/maps/${map}/${key}`;
      const sentAt = ctx.now();
      const a = await request(ctx.c, through, 'GET', path);
      record(ctx, load, 'map.get', path, through, sentAt, a);
      const v = ledger.read(map, key, 'run', via, a.status, a.body);
      if (v !== undefined) ctx.log(`VIOLATION ${v.kind} ${v.where}: ${v.detail}`);
    } else if (r < 0.83) {
      // One offer in twenty goes to the hand-off queue, which the waiting pollers keep empty.
      const queue = rnd() < 0.05 ? HANDOFF_QUEUE : `chaos-q${Math.floor(rnd() * queues)}`;
      const o = ledger.beginOffer(id, queue);
      const path = `/hazelcast/rest/queues/${queue}`;
      const sentAt = ctx.now();
      const a = await request(ctx.c, through, 'POST', path, o.item);
      ledger.endOffer(o, a.status, record(ctx, load, 'queue.offer', `${path} ${o.item}`, through, sentAt, a));
    } else {
      const queue = `chaos-q${Math.floor(rnd() * queues)}`;
      // Mostly immediate polls; one in ten waits a second at the owner (the waiting-poll path).
      const wait = rnd() < 0.1 ? 1 : 0;
      const path = `/hazelcast/rest/queues/${queue}/${wait}`;
      const sentAt = ctx.now();
      const a = await request(ctx.c, through, 'GET', path);
      record(ctx, load, 'queue.poll', path, through, sentAt, a);
      if (a.status === 200) ledger.polled(queue, a.body);
    }
  }
}

const HANDOFF_QUEUE = 'chaos-handoff';

/** A client that only polls the hand-off queue, each poll waiting up to 2 s at the owner. */
async function waitingPoller(ctx: ChaosContext, ledger: Ledger, load: Load, id: number): Promise<void> {
  const rnd = prng(ctx.opts.seed * 7919 + id);
  while (!load.stopping) {
    const targets = [...ctx.targets];
    const through = targets[Math.floor(rnd() * targets.length)];
    if (through === undefined) {
      await sleep(50);
      continue;
    }
    const path = `/hazelcast/rest/queues/${HANDOFF_QUEUE}/2`;
    const sentAt = ctx.now();
    const a = await request(ctx.c, through, 'GET', path);
    record(ctx, load, 'queue.poll (waiting)', path, through, sentAt, a);
    if (a.status === 200) ledger.polled(HANDOFF_QUEUE, a.body);
    else if (a.status !== 204) await sleep(50);
  }
}

// ---------------------------------------------------------------- the end: read back, drain

async function readBack(ctx: ChaosContext, ledger: Ledger): Promise<void> {
  const work = ledger.writtenKeys().flatMap((k) => ctx.c.members.map((m) => ({ ...k, i: m.index })));
  let at = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const item = work[at++];
      if (item === undefined) return;
      let a: Answer = { status: 0, body: '', abandoned: false, error: '' };
      for (let attempt = 0; attempt < 6; attempt++) {
        a = await request(ctx.c, item.i, 'GET', `/hazelcast/rest/maps/${item.map}/${item.key}`);
        if (a.status === 200 || a.status === 204) break;
        await sleep(200 * (attempt + 1));
      }
      const v = ledger.read(item.map, item.key, 'final', `m${item.i}`, a.status, a.body);
      if (v !== undefined) ctx.log(`VIOLATION ${v.kind} ${v.where}: ${v.detail}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
}

/** Polls `queue` through each member in turn until one full round finds it empty everywhere. */
async function drain(ctx: ChaosContext, ledger: Ledger, queue: string): Promise<number> {
  let items = 0;
  for (let round = 0; round < 20; round++) {
    let emptyEverywhere = true;
    for (const m of ctx.c.members) {
      for (;;) {
        const a = await request(ctx.c, m.index, 'GET', `/hazelcast/rest/queues/${queue}/0`);
        if (a.status === 200) {
          ledger.polled(queue, a.body);
          items++;
          emptyEverywhere = false;
          continue;
        }
        if (a.status !== 204) {
          emptyEverywhere = false;
          await sleep(200);
        }
        break;
      }
    }
    if (emptyEverywhere) {
      ledger.drained(queue);
      return items;
    }
  }
  ctx.log(`queue ${queue}: not drained after 20 rounds`);
  return items;
}

// ---------------------------------------------------------------- the run

export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const t0 = Date.now();
  const stamp = (): string => `[chaos ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s]`;
  const usesPartition = opts.faults.includes('partition') || (opts.schedule ?? []).some((f) => f.kind === 'partition');
  const lab = usesPartition ? NetLab.create(opts.members) : undefined;
  const c = await startCluster({
    size: opts.members,
    spare: 0,
    timeoutMs: SAFE_TIMEOUT_MS,
    ...(lab !== undefined
      ? {
          hostOf: (i: number) => lab.hosts[i]!,
          prefixOf: (i: number) => lab.prefix(i),
          // The sides look for each other every second once healed (Hazelcast's defaults: after 300 s, then every 120 s).
          properties: { 'hazelcast.merge.first.run.delay.seconds': 1, 'hazelcast.merge.next.run.delay.seconds': 1 },
        }
      : {}),
    ...(opts.cluster ?? {}),
  });
  const ctx: ChaosContext = {
    c,
    lab,
    size: opts.members,
    rnd: prng(opts.seed),
    opts,
    targets: new Set(c.members.map((m) => m.index)),
    fault: 'no fault yet',
    now: () => Date.now() - t0,
    log: (line) => log(`${stamp()} ${line}`),
  };
  ctx.log(`cluster of ${opts.members} up (configs and logs in ${c.dir}); seed ${opts.seed}`);
  const ledger = new Ledger();
  const load: Load = { stopping: false, statuses: {}, incidents: [] };
  const clientCount = opts.clients ?? 4;
  const pollers = opts.waitingPollers ?? 1;
  const clients = [
    ...Array.from({ length: clientCount }, (_, id) => client(ctx, ledger, load, id)),
    ...Array.from({ length: pollers }, (_, n) => waitingPoller(ctx, ledger, load, clientCount + n)),
  ];
  const faults: FaultRecord[] = [];
  const fatal: string[] = [];

  const started = Date.now();
  const progress = setInterval(() => ctx.log(`ops so far ${JSON.stringify(load.statuses)}`), 30_000);
  try {
    for (let n = 0; ; n++) {
      const planned = opts.schedule?.[n];
      if (opts.schedule !== undefined ? planned === undefined : Date.now() - started >= opts.durationMs) break;
      await sleep(between(ctx.rnd, opts.quietMs ?? [1_000, 3_000]));
      const kind = planned?.kind ?? opts.faults[Math.floor(ctx.rnd() * opts.faults.length)]!;
      const inject = FAULTS[kind];
      if (inject === undefined) throw new Error(`no injector for fault "${kind}"`);
      const master = await c.masterIndex([...ctx.targets][0] ?? 0);
      const pick = planned?.victim ?? 'any';
      const candidates = c.members.map((m) => m.index).filter((i) => (pick === 'master' ? i === master : pick === 'other' ? i !== master : true));
      const victim = candidates[Math.floor(ctx.rnd() * candidates.length)]!;
      ctx.fault = `fault ${n + 1} (${kind} on m${victim}${victim === master ? ', the master' : ''}, from ${(ctx.now() / 1000).toFixed(2)} s)`;
      ctx.log(`fault ${n + 1}: ${kind} on m${victim}${victim === master ? ' (master)' : ''}`);
      try {
        const rec = await inject(ctx, victim, victim === master);
        faults.push(rec);
        ctx.fault = `the quiet time after ${ctx.fault}`;
        ctx.log(
          `fault ${n + 1} done: safe after ${rec.safeMs} ms${rec.rejoinMs !== undefined ? `, rejoined and safe after ${rec.rejoinMs} ms` : ''}${rec.pausedMs !== undefined ? `, paused ${rec.pausedMs} ms` : ''}${rec.problems.length ? `; PROBLEMS: ${rec.problems.join('; ')}` : ''}`,
        );
      } catch (e) {
        fatal.push(`fault ${n + 1} (${kind} on m${victim}) did not converge: ${(e as Error).message}`);
        ctx.log(`FATAL ${fatal[fatal.length - 1]!}`);
        break;
      }
    }
  } finally {
    clearInterval(progress);
    load.stopping = true;
    await Promise.all(clients);
  }
  ctx.fault = 'the final read-back';
  ctx.log(`load stopped: ${JSON.stringify(load.statuses)}`);

  let readable = fatal.length === 0;
  if (!readable) {
    // Try to get back to a full, safe cluster so the read-back can still say what was lost.
    try {
      for (const m of c.members) {
        if (c.paused.has(m.index)) c.resume(m.index);
        if (m.status !== 'running') await c.restart(m.index, { timeoutMs: SAFE_TIMEOUT_MS });
      }
      readable = true;
    } catch (e) {
      fatal.push(`could not restart every member for the read-back: ${(e as Error).message}`);
    }
  }
  if (readable) {
    try {
      await c.waitForMembers(opts.members, undefined, SAFE_TIMEOUT_MS);
      await c.waitSafe(SAFE_TIMEOUT_MS, opts.members);
      await readBack(ctx, ledger);
      for (const q of ledger.queuesOffered().sort()) ctx.log(`drained ${q}: ${await drain(ctx, ledger, q)} items`);
    } catch (e) {
      fatal.push(`final read-back: ${(e as Error).message}`);
    }
  }
  const report = ledger.check();
  const minutes = (Date.now() - started) / 60_000;
  const kinds = opts.schedule ? [...new Set(opts.schedule.map((s) => s.kind))] : opts.faults;
  const summary = formatSummary({ seed: opts.seed, members: opts.members, clients: clientCount, minutes, faults: kinds }, faults, report, fatal, load.incidents);
  const ok = report.ok && fatal.length === 0 && faults.every((f) => f.problems.length === 0);
  return { report, faults, summary, statuses: load.statuses, ok, dir: c.dir };
}
