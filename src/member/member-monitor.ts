// The web console's view of the whole cluster (docs/rest-api.md, GET /grid/rest/members):
// each member answers MemberReport from its own state (its figures, its partition counts in
// its own table), and the member that got the REST request asks every other member once, in
// parallel, with one deadline. A member that does not answer in time is listed unreachable:
// the request never waits longer than the deadline. Asking is read-only, so an answer that
// comes late (dropped by the connection), a request that arrives twice, or one from a removed
// member (refused by the message gate) does no harm.

import { loadavg } from 'node:os';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ClusterView } from '../cluster/cluster-service.js';
import type { MemberInfo } from '../cluster/types.js';
import type { MemberNet } from '../net/member-net.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeMemberReportAnswer,
  decodeMemberReportRequest,
  encodeMemberReportAnswer,
  encodeMemberReportRequest,
  type MemberReportKind,
} from '../protocol/monitor-payloads.js';
import type { ClusterRates, HistoryReport, MemberFigures, MemberHistory, MemberStatus, MembersReport, MonitorFacade, OperationRates } from '../rest/context.js';
import { GridError } from '../core/errors.js';
import { MetricsSampler, type SamplerSources } from './metrics-sampler.js';
import type { MigrationStatus } from '../partition/partition-service.js';

export interface MonitorDeps {
  readonly net: MemberNet;
  readonly cluster: ClusterView;
  readonly partitions: { readonly partitionCount: number; replicas(partitionId: number): readonly string[]; version(): number };
  /** Open connections of this member by kind. */
  connections(): { readonly rest: number; readonly client: number; readonly member: number };
  /** This member's CP member uuid, when it is one. */
  cpMemberUuid(): string | undefined;
  readonly memoryLimitBytes: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Migrations and replica safety as this member knows them. */
  migrations(): MigrationStatus;
  /** What the metrics history samples. */
  readonly sources: SamplerSources;
  /** Seconds of 1-second samples kept (grid.metrics.history-seconds); 0: no sampler. */
  readonly historySeconds: number;
}

/** A member's answer to another kind than 'status' (history, ops): its JSON, parsed by the caller. */
type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

export class MemberMonitor implements MonitorFacade {
  private readonly startTime: number;
  readonly sampler: MetricsSampler;

  constructor(private readonly deps: MonitorDeps) {
    this.startTime = deps.clock.now();
    this.sampler = new MetricsSampler({ clock: deps.clock, sources: deps.sources, capacity: Math.max(1, deps.historySeconds) });
    deps.net.handle(Msg.MemberReport, (p) => {
      const req = decodeMemberReportRequest(p);
      return encodeMemberReportAnswer({ uuid: deps.cluster.localMember().uuid, json: JSON.stringify(this.localReport(req.kind, req.seconds)) });
    });
  }

  /** Start sampling the metrics history (once the member runs). */
  start(): void {
    if (this.deps.historySeconds > 0) this.sampler.start();
  }

  stop(): void {
    this.sampler.stop();
  }

  get historySeconds(): number {
    return this.deps.historySeconds;
  }

  /** This member's own answer of `kind`. */
  private localReport(kind: MemberReportKind, seconds: number): unknown {
    switch (kind) {
      case 'status':
        return this.figures();
      case 'history':
        return this.sampler.history(Math.min(seconds, this.historySeconds));
      case 'ops':
        return this.sampler.operationRates();
      case 'migrations':
        return this.deps.migrations();
    }
  }

  /** This member's figures, from its own state. */
  figures(): MemberFigures {
    const d = this.deps;
    const me = d.cluster.localMember().uuid;
    let owned = 0;
    let backups = 0;
    for (let pid = 0; pid < d.partitions.partitionCount; pid++) {
      const at = d.partitions.replicas(pid).indexOf(me);
      if (at === 0) owned++;
      else if (at > 0) backups++;
    }
    const mem = process.memoryUsage();
    const conns = d.connections();
    const cpUuid = d.cpMemberUuid();
    const now = d.clock.now();
    return {
      state: d.cluster.nodeState(),
      cpMember: cpUuid !== undefined,
      cpMemberUuid: cpUuid ?? null,
      startTime: this.startTime,
      uptimeMs: Math.max(0, now - this.startTime),
      heapUsedBytes: mem.heapUsed,
      heapTotalBytes: mem.heapTotal,
      rssBytes: mem.rss,
      memoryLimitBytes: d.memoryLimitBytes,
      partitionsOwned: owned,
      backupsHeld: backups,
      partitionTableVersion: d.partitions.version(),
      clientConnections: conns.client,
      restConnections: conns.rest,
      memberConnections: conns.member,
      loadAverage: loadavg(),
    };
  }

  /** Ask every member of the list for its answer of `kind`, in parallel; each settles by `timeoutMs`. */
  private askAll(kind: MemberReportKind, seconds: number, timeoutMs: number, only?: string): Promise<{ member: MemberInfo; answer: Answer }[]> {
    const local = this.deps.cluster.localMember().uuid;
    const members = this.deps.cluster.members().filter((m) => only === undefined || m.uuid === only);
    return Promise.all(
      members.map(async (member) => {
        if (member.uuid === local) return { member, answer: { ok: true, value: this.localReport(kind, seconds) } as Answer };
        return { member, answer: await this.ask(member, kind, seconds, timeoutMs) };
      }),
    );
  }

  private async ask(member: MemberInfo, kind: MemberReportKind, seconds: number, timeoutMs: number): Promise<Answer> {
    try {
      const raw = await this.deps.net.request(member.address, Msg.MemberReport, encodeMemberReportRequest({ kind, seconds }), timeoutMs);
      const a = decodeMemberReportAnswer(raw);
      // Another process at the same address (restarted under a new uuid) is not the member asked.
      if (a.uuid !== member.uuid) return { ok: false, error: `${member.address} answered as member ${a.uuid}, not ${member.uuid}` };
      return { ok: true, value: JSON.parse(a.json) as unknown };
    } catch (e) {
      return { ok: false, error: describeError(e) };
    }
  }

  async members(timeoutMs: number): Promise<MembersReport> {
    const c = this.deps.cluster;
    const local = c.localMember().uuid;
    const master = c.master()?.uuid;
    const answers = await this.askAll('status', 0, timeoutMs);
    const members = answers.map(({ member, answer }): MemberStatus => {
      const known = { uuid: member.uuid, address: member.address, version: member.version, liteMember: member.liteMember, master: member.uuid === master, local: member.uuid === local };
      if (!answer.ok) return { ...known, reachable: false, error: answer.error };
      const figures = checkFigures(answer.value);
      if (figures === undefined) return { ...known, reachable: false, error: `${member.address} answered figures of an unexpected shape` };
      return { ...known, reachable: true, figures };
    });
    return { clusterState: c.state(), memberListVersion: c.memberListVersion(), timeoutMs, members };
  }

  async history(seconds: number, uuid: string | undefined, timeoutMs: number): Promise<HistoryReport> {
    const c = this.deps.cluster;
    if (uuid !== undefined && c.memberByUuid(uuid) === undefined) throw new GridError('NOT_FOUND', `no member ${uuid.slice(0, 64)} in the member list`);
    const local = c.localMember().uuid;
    const master = c.master()?.uuid;
    const answers = await this.askAll('history', seconds, timeoutMs, uuid);
    const members = answers.map(({ member, answer }) => {
      const known = { uuid: member.uuid, address: member.address, version: member.version, liteMember: member.liteMember, master: member.uuid === master, local: member.uuid === local };
      if (!answer.ok) return { ...known, reachable: false, error: answer.error };
      const history = checkHistory(answer.value);
      if (history === undefined) return { ...known, reachable: false, error: `${member.address} answered a history of an unexpected shape` };
      return { ...known, reachable: true, history };
    });
    return { seconds, timeoutMs, members };
  }

  async operationRates(timeoutMs: number): Promise<ClusterRates> {
    const answers = await this.askAll('ops', 0, timeoutMs);
    const maps = new Map<string, number[]>();
    const queues = new Map<string, number[]>();
    const unreachable: string[] = [];
    for (const { member, answer } of answers) {
      const r = answer.ok ? checkRates(answer.value) : undefined;
      if (r === undefined) {
        unreachable.push(member.uuid);
        continue;
      }
      addRates(maps, r.maps, 3);
      addRates(queues, r.queues, 2);
    }
    return { maps, queues, members: answers.length, unreachable };
  }

  async masterMigrations(timeoutMs: number): Promise<MigrationStatus | undefined> {
    const master = this.deps.cluster.master();
    if (master === undefined) return undefined;
    if (master.uuid === this.deps.cluster.localMember().uuid) return this.deps.migrations();
    const a = await this.ask(master, 'migrations', 0, timeoutMs);
    return a.ok ? checkMigrations(a.value) : undefined;
  }
}

/** The master's migration figures, when they have the expected shape and come from a member that is master. */
export function checkMigrations(v: unknown): MigrationStatus | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (o.master !== true) return undefined;
  for (const k of ['queued', 'inFlight', 'completed', 'blockedPartitions', 'partitionsWithoutOwner', 'partitionsMissingReplicas']) {
    if (typeof o[k] !== 'number' || !Number.isInteger(o[k]) || (o[k] as number) < 0) return undefined;
  }
  if (!Array.isArray(o.running) || !o.running.every((p) => Number.isInteger(p))) return undefined;
  return v as MigrationStatus;
}

function addRates(into: Map<string, number[]>, add: Readonly<Record<string, readonly number[]>>, width: number): void {
  for (const [name, rates] of Object.entries(add)) {
    let sum = into.get(name);
    if (sum === undefined) into.set(name, (sum = new Array<number>(width).fill(0)));
    for (let i = 0; i < width; i++) sum[i]! += rates[i] ?? 0;
  }
}

const isNumberOrNull = (x: unknown): boolean => x === null || (typeof x === 'number' && Number.isFinite(x));
const isSeries = (x: unknown, n: number): boolean => Array.isArray(x) && x.length === n && x.every(isNumberOrNull);

/** Another member's history, when it has the expected shape (every column as long as its times). */
export function checkHistory(v: unknown): MemberHistory | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.intervalMs !== 'number' || !Array.isArray(o.times) || !o.times.every((t) => typeof t === 'number')) return undefined;
  const n = o.times.length;
  if (typeof o.series !== 'object' || o.series === null || Array.isArray(o.series)) return undefined;
  for (const col of Object.values(o.series as Record<string, unknown>)) if (!isSeries(col, n)) return undefined;
  if (!Array.isArray(o.wan)) return undefined;
  for (const w of o.wan as unknown[]) {
    if (typeof w !== 'object' || w === null) return undefined;
    const p = w as Record<string, unknown>;
    if (typeof p.wanReplicationName !== 'string' || typeof p.publisherId !== 'string' || !isSeries(p.queueDepth, n) || !isSeries(p.lagMs, n)) return undefined;
  }
  return v as MemberHistory;
}

/** Another member's operation rates, when they have the expected shape. */
export function checkRates(v: unknown): OperationRates | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.intervalMs !== 'number') return undefined;
  for (const k of ['maps', 'queues'] as const) {
    const m = o[k];
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
    for (const rates of Object.values(m as Record<string, unknown>)) {
      if (!Array.isArray(rates) || !rates.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) return undefined;
    }
  }
  return v as OperationRates;
}

const FIGURE_NUMBERS = [
  'startTime',
  'uptimeMs',
  'heapUsedBytes',
  'heapTotalBytes',
  'rssBytes',
  'memoryLimitBytes',
  'partitionsOwned',
  'backupsHeld',
  'partitionTableVersion',
  'clientConnections',
  'restConnections',
  'memberConnections',
] as const;

/** The figures of another member's answer, when they have the expected shape (a newer member may add fields). */
export function checkFigures(v: unknown): MemberFigures | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.state !== 'string' || typeof o.cpMember !== 'boolean') return undefined;
  if (o.cpMemberUuid !== null && typeof o.cpMemberUuid !== 'string') return undefined;
  for (const k of FIGURE_NUMBERS) if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) return undefined;
  if (!Array.isArray(o.loadAverage) || !o.loadAverage.every((x) => typeof x === 'number')) return undefined;
  return v as MemberFigures;
}
