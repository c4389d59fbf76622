// Cluster-wide WAN sync and Merkle consistency checks: the member a REST call reaches starts a
// job on every member, each member works through the partitions it owns (sync: queue their
// entries, paced by the queue; check: compare trees with the target), and progress is gathered
// from every member. A check leaves a delta plan that the next sync of that map uses once.

import { randomUUID } from 'node:crypto';
import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError } from '../core/errors.js';
import { partitionHashMismatch } from '../core/murmur3.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeWanJobPart,
  decodeWanMerkleAnswer,
  encodeWanMerkle,
  encodeWanSyncStart,
  type WanJobKind,
  type WanJobPart,
  type WanSyncStartPayload,
} from '../protocol/wan-payloads.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { MerkleTree } from './merkle-tree.js';
import { MAX_COMPARE_LEVEL, MERKLE_ACROSS_VERSIONS, MerkleObserver } from './merkle-observer.js';
import type { WanConsistencyResult, WanSyncProgress, WanSyncStage } from './wan-facade.js';
import type { WanContext } from './wan-context.js';
import { MEMBER_CALL_TIMEOUT_MS } from './wan-deps.js';
import type { Publisher } from './wan-publishers.js';
import { queuedPayload } from './wan-sink.js';

/** How often running syncs and checks look at their partitions. */
const JOB_TICK_MS = 25;
/** Finished jobs kept per member for progress queries. */
const MAX_JOBS_KEPT = 200;
/** Partitions a consistency check compares at once. */
const CHECK_PARALLELISM = 8;

/** One member's part of a sync or consistency check. */
class JobPart {
  readonly partitions: number[];
  done = 0;
  failure: string | undefined;
  cursor = 0;
  /** Partitions whose sync events are queued: the sequence of their last one. */
  readonly pending = new Map<number, number>();
  partitionsDiffering = 0;
  leavesChecked = 0;
  leavesDiffering = 0;
  entriesToSync = 0;
  finished = false;
  checking = 0;

  constructor(
    readonly start: WanSyncStartPayload,
    owned: number[],
  ) {
    this.partitions = owned;
  }

  view(): WanJobPart {
    const s = this.start;
    return {
      kind: s.kind,
      wanRepName: s.wanRepName,
      publisherId: s.publisherId,
      mapNames: s.mapNames,
      creationTime: s.creationTime,
      participants: s.participants,
      partitions: this.partitions.length,
      done: this.done,
      failure: this.failure,
      partitionsDiffering: this.partitionsDiffering,
      leavesChecked: this.leavesChecked,
      leavesDiffering: this.leavesDiffering,
      entriesToSync: this.entriesToSync,
    };
  }
}

/** Differing leaves of one map per partition, from the last consistency check: what a delta sync sends. */
interface DeltaPlan {
  /** The Merkle level the leaves were compared at (the same for every partition of one check). */
  level: number;
  readonly byPartition: Map<number, number[]>;
}

export class WanSyncJobs {
  private readonly jobs = new Map<string, JobPart>();
  private readonly deltas = new Map<string, DeltaPlan>();
  private jobTimer: TimerHandle | undefined;

  constructor(private readonly ctx: WanContext) {}

  stop(): void {
    this.jobTimer?.cancel();
  }

  /** This member's part of a job, for a member asking WanSyncStatus. */
  partView(uuid: string): WanJobPart | undefined {
    return this.jobs.get(uuid)?.view();
  }

  async startSync(wanRepName: string, publisherId: string, mapName: string | undefined): Promise<string> {
    const p = this.ctx.publishers.resolve(wanRepName, publisherId);
    if (mapName !== undefined) this.checkMapPublishes(mapName, wanRepName);
    if (p.queue.state === 'STOPPED') throw new GridError('BAD_REQUEST', `WAN publisher ${p.wanRepName}/${p.id} is STOPPED on this member: resume it before a sync`);
    return this.startJob('sync', p, mapName === undefined ? undefined : [mapName]);
  }

  async startConsistencyCheck(wanRepName: string, publisherId: string, mapName: string): Promise<string> {
    const p = this.ctx.publishers.resolve(wanRepName, publisherId);
    if (p.cfg.consistencyCheckStrategy !== 'MERKLE_TREES') {
      throw new GridError('BAD_REQUEST', `WAN publisher ${p.wanRepName}/${p.id} has consistency-check-strategy ${p.cfg.consistencyCheckStrategy}: set sync/consistency-check-strategy MERKLE_TREES for consistency checks`);
    }
    this.checkMapPublishes(mapName, wanRepName);
    if (!this.ctx.deps.maps.configOf(mapName).merkleTree.enabled) throw new GridError('BAD_REQUEST', `map "${mapName}" has no merkle-tree enabled`);
    return this.startJob('check', p, [mapName]);
  }

  private checkMapPublishes(mapName: string, wanRepName: string): void {
    if (mapName === '') throw new GridError('BAD_REQUEST', 'mapName is empty');
    if (this.ctx.deps.maps.configOf(mapName).wanReplicationRef?.name !== wanRepName) {
      throw new GridError('BAD_REQUEST', `map "${mapName}" does not publish to WAN replication "${wanRepName}" (no wan-replication-ref to it)`);
    }
  }

  private async startJob(kind: WanJobKind, p: Publisher, mapNames: string[] | undefined): Promise<string> {
    const uuid = randomUUID();
    const members = this.ctx.deps.membership.members().filter((m) => !m.liteMember);
    const start: WanSyncStartPayload = { uuid, kind, wanRepName: p.wanRepName, publisherId: p.id, mapNames, creationTime: this.ctx.deps.clock.now(), participants: members.map((m) => m.uuid) };
    const me = this.ctx.deps.membership.localMember().uuid;
    const payload = encodeWanSyncStart(start);
    const calls = members.map((m) =>
      m.uuid === me
        ? Promise.resolve(this.startJobPart(start))
        : this.ctx.deps.net.request(m.address, Msg.WanSyncStart, payload, MEMBER_CALL_TIMEOUT_MS).catch((e: unknown) => {
            this.ctx.deps.logger.warn({ uuid, member: m.address }, `WAN ${kind} ${uuid} could not start on ${m.address}: ${describeError(e)}`);
          }),
    );
    if (!members.some((m) => m.uuid === me)) this.startJobPart(start);
    await Promise.all(calls);
    this.ctx.deps.logger.info({ uuid, publisher: `${p.wanRepName}/${p.id}`, maps: mapNames ?? 'all' }, `WAN ${kind === 'sync' ? 'sync' : 'consistency check'} ${uuid} started on ${members.length} member(s)`);
    return uuid;
  }

  /** This member's part: the partitions it owns now. */
  startJobPart(start: WanSyncStartPayload): void {
    if (this.jobs.has(start.uuid)) return;
    const me = this.ctx.deps.membership.localMember().uuid;
    const owned: number[] = [];
    for (let pid = 0; pid < PARTITION_COUNT; pid++) if (this.ctx.deps.partitions.ownerOf(pid) === me) owned.push(pid);
    const part = new JobPart(start, owned);
    const p = this.ctx.publishers.get(start.wanRepName, start.publisherId);
    if (p === undefined) part.failure = `WAN publisher ${start.wanRepName}/${start.publisherId} is not configured on member ${this.ctx.deps.membership.localMember().address}`;
    else if (start.kind === 'sync' && p.queue.state === 'STOPPED') part.failure = `WAN publisher ${start.wanRepName}/${start.publisherId} is STOPPED on member ${this.ctx.deps.membership.localMember().address}`;
    this.jobs.set(start.uuid, part);
    this.pruneJobs();
    if (part.failure !== undefined) {
      part.finished = true;
      return;
    }
    this.jobTimer ??= this.ctx.deps.clock.setInterval(() => this.tickJobs(), JOB_TICK_MS);
    this.tickJobs();
  }

  private pruneJobs(): void {
    if (this.jobs.size <= MAX_JOBS_KEPT) return;
    for (const [uuid, j] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS_KEPT) break;
      if (j.finished) this.jobs.delete(uuid);
    }
  }

  private tickJobs(): void {
    let active = 0;
    for (const job of this.jobs.values()) {
      if (job.finished) continue;
      active++;
      try {
        if (job.start.kind === 'sync') this.advanceSync(job);
        else this.advanceCheck(job);
      } catch (e) {
        job.failure = describeError(e);
        job.finished = true;
      }
    }
    if (active === 0 && this.jobTimer !== undefined) {
      this.jobTimer.cancel();
      this.jobTimer = undefined;
    }
  }

  /**
   * Queue the entries of one partition after another (not limited by queue-capacity, but
   * paced by it: a next partition is queued only while the queue has room), and count a
   * partition done when the target has acknowledged its last sync event.
   */
  private advanceSync(job: JobPart): void {
    const s = job.start;
    const p = this.ctx.publishers.get(s.wanRepName, s.publisherId);
    if (p === undefined) throw new GridError('INTERNAL', 'publisher gone');
    const me = this.ctx.deps.membership.localMember().uuid;
    for (const [pid, last] of job.pending) {
      const first = p.queue.peek(pid, 1)[0];
      // Done when acknowledged; a partition that moved took its queue (and the sync events) along.
      if (first === undefined || first.sequence > last || this.ctx.deps.partitions.ownerOf(pid) !== me) {
        job.pending.delete(pid);
        job.done++;
      }
    }
    const maps = s.mapNames ?? this.ctx.deps.maps.mapsPublishingTo(s.wanRepName);
    const now = this.ctx.deps.clock.now();
    while (job.cursor < job.partitions.length && p.queue.size < p.queue.capacity) {
      const pid = job.partitions[job.cursor++] as number;
      if (this.ctx.deps.partitions.ownerOf(pid) !== me) {
        job.done++;
        continue;
      }
      let last = -1;
      for (const mapName of maps) {
        const keep = this.deltaFilter(s, mapName, pid);
        if (keep === false) continue;
        for (const e of this.ctx.deps.maps.syncEvents(pid, mapName, keep)) {
          last = p.queue.pushSync(pid, queuedPayload(e, this.ctx.clusterName), now).sequence;
        }
      }
      if (last < 0) job.done++;
      else {
        job.pending.set(pid, last);
        this.ctx.publishers.kick(p);
      }
    }
    if (job.cursor >= job.partitions.length && job.pending.size === 0) {
      job.finished = true;
      // A delta plan is used once.
      for (const mapName of maps) this.deltas.delete(deltaKey(s.wanRepName, s.publisherId, mapName));
      this.ctx.deps.logger.info({ uuid: s.uuid }, `WAN sync ${s.uuid}: this member's ${job.partitions.length} partitions are done`);
    }
  }

  /** undefined: send the whole partition; false: nothing differs there; else the keys of differing leaves. */
  private deltaFilter(s: WanSyncStartPayload, mapName: string, pid: number): ((key: string) => boolean) | undefined | false {
    const plan = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
    if (plan === undefined) return undefined;
    const leaves = plan.byPartition.get(pid);
    if (leaves === undefined) return undefined;
    if (leaves.length === 0) return false;
    const tree = this.treeOf(pid, mapName);
    return tree.keyFilter(leaves, plan.level);
  }

  private treeOf(pid: number, mapName: string): MerkleTree {
    const obs = this.ctx.deps.maps.observerOf(pid, mapName);
    return obs instanceof MerkleObserver ? obs.tree : new MerkleTree(this.ctx.deps.maps.configOf(mapName).merkleTree.depth);
  }

  private advanceCheck(job: JobPart): void {
    const s = job.start;
    const p = this.ctx.publishers.get(s.wanRepName, s.publisherId);
    const mapName = s.mapNames?.[0];
    if (p === undefined || mapName === undefined) throw new GridError('INTERNAL', 'consistency check without publisher or map');
    let plan = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
    if (job.cursor === 0 && job.checking === 0) {
      plan = { level: 0, byPartition: new Map() };
      this.deltas.set(deltaKey(s.wanRepName, s.publisherId, mapName), plan);
    }
    while (job.checking < CHECK_PARALLELISM && job.cursor < job.partitions.length && job.failure === undefined) {
      const pid = job.partitions[job.cursor++] as number;
      job.checking++;
      this.checkPartition(p, mapName, pid).then(
        (r) => {
          job.checking--;
          job.done++;
          job.leavesChecked += r.checked;
          if (r.leaves.length > 0) {
            job.partitionsDiffering++;
            job.leavesDiffering += r.leaves.length;
            job.entriesToSync += r.entries;
          }
          const current = this.deltas.get(deltaKey(s.wanRepName, s.publisherId, mapName));
          if (current !== undefined) {
            current.byPartition.set(pid, r.leaves);
            current.level = r.level;
          }
          // The next partition starts now, not at the next tick.
          if (!job.finished) this.advanceCheck(job);
        },
        (e: unknown) => {
          job.checking--;
          job.failure ??= describeError(e);
          this.finishCheck(job);
        },
      );
    }
    this.finishCheck(job);
  }

  private finishCheck(job: JobPart): void {
    if (job.finished || job.checking > 0) return;
    if (job.failure !== undefined || job.cursor >= job.partitions.length) {
      job.finished = true;
      const s = job.start;
      if (job.failure !== undefined) {
        this.deltas.delete(deltaKey(s.wanRepName, s.publisherId, s.mapNames?.[0] ?? ''));
        this.ctx.deps.logger.warn({ uuid: s.uuid }, `WAN consistency check ${s.uuid} failed: ${job.failure}`);
      }
    }
  }

  /** Compare one partition's tree with the target's: the differing nodes at the deepest level both have. */
  private async checkPartition(p: Publisher, mapName: string, pid: number): Promise<{ level: number; leaves: number[]; checked: number; entries: number }> {
    const endpoint = p.batcher.endpointOf(pid);
    const conn = endpoint === undefined ? undefined : p.conns.get(endpoint);
    if (conn === undefined || conn.closed) throw new GridError('MEMBER_UNREACHABLE', `no connection to the target cluster "${p.cfg.clusterName}" for partition ${pid}`);
    const mismatch = partitionHashMismatch(conn.wanPartitionHash ?? 1, `the target cluster "${p.cfg.clusterName}"`);
    if (mismatch !== undefined) throw new GridError('CONFLICT', `${mismatch}. ${MERKLE_ACROSS_VERSIONS}`);
    const tree = this.treeOf(pid, mapName);
    const wanted = Math.min(tree.leafLevel, MAX_COMPARE_LEVEL);
    const answer = decodeWanMerkleAnswer(await conn.request(Msg.WanMerkle, encodeWanMerkle({ mapName, partitionId: pid, level: wanted }), p.cfg.responseTimeoutMillis));
    if (answer.level > wanted || answer.hashes.length !== 2 ** answer.level) throw new GridError('BAD_REQUEST', `target answered a Merkle level ${answer.level} with ${answer.hashes.length} hashes`);
    const mine = tree.levelHashes(answer.level);
    const leaves: number[] = [];
    let entries = 0;
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== answer.hashes[i]) {
        leaves.push(i);
        entries += tree.nodeEntryCount(answer.level, i);
      }
    }
    return { level: answer.level, leaves, checked: mine.length, entries };
  }

  async syncProgress(uuid: string): Promise<WanSyncProgress> {
    const r = await this.gather(uuid);
    return { stage: r.stage, progress: r.progress, wanReplicationName: r.first.wanRepName, wanPublisherId: r.first.publisherId, creationTime: r.first.creationTime };
  }

  async consistencyResult(uuid: string): Promise<WanConsistencyResult> {
    const r = await this.gather(uuid);
    if (r.first.kind !== 'check') throw new GridError('NOT_FOUND', `WAN job ${uuid} is a sync, not a consistency check (see wan/sync/progress/${uuid})`);
    let partitionsDiffering = 0;
    let leavesChecked = 0;
    let leavesDiffering = 0;
    let entriesToSync = 0;
    for (const p of r.parts) {
      partitionsDiffering += p.partitionsDiffering;
      leavesChecked += p.leavesChecked;
      leavesDiffering += p.leavesDiffering;
      entriesToSync += p.entriesToSync;
    }
    return {
      stage: r.stage,
      wanReplicationName: r.first.wanRepName,
      wanPublisherId: r.first.publisherId,
      mapName: r.first.mapNames?.[0] ?? '',
      creationTime: r.first.creationTime,
      partitionsChecked: r.done,
      partitionsDiffering,
      leavesChecked,
      leavesDiffering,
      entriesToSync,
      ...(r.failure === undefined ? {} : { failure: r.failure }),
    };
  }

  /** Every member's part of the job: the same answer whichever member is asked. */
  private async gather(uuid: string): Promise<{ first: WanJobPart; parts: WanJobPart[]; stage: WanSyncStage; progress: number; done: number; failure: string | undefined }> {
    const me = this.ctx.deps.membership.localMember().uuid;
    const members = this.ctx.deps.membership.members();
    const asked = await Promise.all(
      members.map((m) =>
        m.uuid === me
          ? Promise.resolve({ uuid: m.uuid, part: this.jobs.get(uuid)?.view(), error: undefined as string | undefined })
          : this.ctx.deps.net.request(m.address, Msg.WanSyncStatus, [uuid], MEMBER_CALL_TIMEOUT_MS).then(
              (v) => ({ uuid: m.uuid, part: decodeWanJobPart(v), error: undefined as string | undefined }),
              (e: unknown) => ({ uuid: m.uuid, part: undefined, error: describeError(e) }),
            ),
      ),
    );
    if (!members.some((m) => m.uuid === me)) asked.push({ uuid: me, part: this.jobs.get(uuid)?.view(), error: undefined });
    const parts = asked.filter((a) => a.part !== undefined).map((a) => a.part as WanJobPart);
    const first = parts[0];
    if (first === undefined) throw new GridError('NOT_FOUND', `no WAN sync or consistency check with uuid ${uuid}`);
    let failure: string | undefined;
    for (const p of parts) failure ??= p.failure;
    for (const uuidOf of first.participants) {
      const a = asked.find((x) => x.uuid === uuidOf);
      if (a === undefined) failure ??= `member ${uuidOf} left the cluster before its part was done`;
      else if (a.part === undefined) failure ??= a.error === undefined ? `member ${uuidOf} has no part of it` : `member ${uuidOf} did not answer: ${a.error}`;
    }
    let total = 0;
    let done = 0;
    for (const p of parts) {
      total += p.partitions;
      done += p.done;
    }
    const progress = total === 0 ? 100 : Math.floor((done * 100) / total);
    const stage: WanSyncStage = failure !== undefined ? 'FAILED' : done >= total ? 'FINISHED' : done === 0 ? 'STARTED' : 'IN_PROGRESS';
    return { first, parts, stage, progress, done, failure };
  }
}

function deltaKey(wanRepName: string, publisherId: string, mapName: string): string {
  return `${wanRepName}\u0000${publisherId}\u0000${mapName}`;
}
