// A deterministic, seeded simulator of one Raft group: N nodes of src/cp/raft.ts over a
// simulated network that loses, delays, reorders and duplicates messages, with partitions
// that heal, crashes and restarts from what each node persisted, client writes and
// linearizable reads, snapshots and membership changes. After every event it checks Raft's
// safety properties; after the chaos it heals everything and checks that the group makes
// progress within a bound. One seed replays exactly.

import { RaftNode, type RaftConfig, type RaftEntry, type RaftMemberId, type RaftMessage, type RaftOutput, type RaftSnapshot } from '../../../src/cp/raft.js';
import { prng } from '../../support/prng.js';

export interface SimOptions {
  readonly seed: number;
  /** Initial voting members (3 or 5); one spare node joins and leaves through membership changes. */
  readonly members: number;
  /** How long the faults last (simulated ms). */
  readonly chaosMs?: number;
  /** After healing, a leader must commit a new entry on every member within this (simulated ms). */
  readonly livenessBoundMs?: number;
  readonly membershipChanges?: boolean;
  readonly crashes?: boolean;
  readonly config?: Partial<RaftConfig>;
}

export interface SimStats {
  events: number;
  messagesSent: number;
  messagesDelivered: number;
  leadersElected: number;
  maxTerm: number;
  commitIndex: number;
  writesProposed: number;
  writesAcked: number;
  writesLost: number;
  readsDone: number;
  readsFailed: number;
  crashes: number;
  partitions: number;
  snapshotsTaken: number;
  snapshotsInstalled: number;
  membershipChanges: number;
  /** Simulated ms from healing to a new entry applied on every member (undefined: not reached). */
  livenessMs: number | undefined;
}

export interface SimReport {
  readonly seed: number;
  readonly members: number;
  readonly violations: readonly string[];
  readonly stats: SimStats;
}

/** The test configuration: fast timers, frequent snapshots (entries per request and missed heartbeats vary by seed). */
export const SIM_RAFT_CONFIG: Partial<RaftConfig> = {
  leaderElectionTimeoutMs: 100,
  leaderHeartbeatPeriodMs: 20,
  appendRequestBackoffTimeoutMs: 25,
  commitIndexAdvanceCountToSnapshot: 12,
  uncommittedEntryCountToRejectNewAppends: 40,
};

interface StateMachine {
  /** Applied commands, in order: the modelled state is this append-only list. */
  list: string[];
  lastIndex: number;
}

interface Disk {
  term: number;
  votedFor: RaftMemberId | undefined;
  snapshot: RaftSnapshot | undefined;
  entries: RaftEntry[];
}

interface SimNode {
  readonly id: RaftMemberId;
  raft: RaftNode | undefined;
  incarnation: number;
  timerGen: number;
  disk: Disk;
  sm: StateMachine;
  lastSeenCommit: number;
  /** The log changed since the last log-matching check. */
  logChanged: boolean;
  sameMsTimerFires: number;
  lastTimerMs: number;
}

interface Proposal {
  readonly command: string;
  readonly node: RaftMemberId;
  readonly incarnation: number;
  readonly index: number;
  readonly term: number;
  acked: boolean;
  lost: boolean;
}

interface PendingRead {
  /** How many writes were acknowledged before the read began: all must be in its result. */
  readonly ackedBefore: number;
}

interface Event {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

const entryKey = (e: RaftEntry): string =>
  e.kind === 'command' ? `${e.term}|c|${String(e.command)}` : e.kind === 'membership' ? `${e.term}|m|${e.members.join(',')}` : `${e.term}|n`;

/** Same entry (index aside): cheaper than comparing keys, which the checks do after every event. */
const sameEntry = (a: RaftEntry, b: RaftEntry): boolean => {
  if (a.term !== b.term || a.kind !== b.kind) return false;
  if (a.kind === 'command') return a.command === (b as typeof a).command;
  if (a.kind === 'membership') return a.members.join(',') === (b as typeof a).members.join(',');
  return true;
};

class Violation extends Error {}

const MEMBERSHIP = '#membership';

export function runSimulation(opts: SimOptions): SimReport {
  return new Simulation(opts).run();
}

class Simulation {
  private readonly rnd: () => number;
  private readonly opts: Required<Omit<SimOptions, 'config'>> & { config: Partial<RaftConfig> };
  private readonly ids: RaftMemberId[];
  private readonly initial: RaftMemberId[];
  private readonly nodes = new Map<RaftMemberId, SimNode>();
  private readonly queue: Event[] = [];
  private seq = 0;
  private now = 0;
  private phase: 'chaos' | 'healing' | 'done' = 'chaos';
  private healedAt = 0;
  private lossRate: number;
  private dupRate: number;
  private group = new Map<RaftMemberId, number>();
  private readonly violations: string[] = [];
  private readonly stats: SimStats = {
    events: 0,
    messagesSent: 0,
    messagesDelivered: 0,
    leadersElected: 0,
    maxTerm: 0,
    commitIndex: 0,
    writesProposed: 0,
    writesAcked: 0,
    writesLost: 0,
    readsDone: 0,
    readsFailed: 0,
    crashes: 0,
    partitions: 0,
    snapshotsTaken: 0,
    snapshotsInstalled: 0,
    membershipChanges: 0,
    livenessMs: undefined,
  };

  // what the checks remember
  private readonly leaderOfTerm = new Map<number, RaftMemberId>();
  /** Committed entries by index (from commit indexes and applies), and the lowest term a node was in when it saw it committed. */
  private readonly committed = new Map<number, { entry: RaftEntry; command: string | undefined; term: number }>();
  private readonly proposals = new Map<string, Proposal>();
  private readonly proposalAt = new Map<string, string>();
  private readonly acked: string[] = [];
  private readonly appliedCommands = new Set<string>();
  private readonly reads = new Map<string, PendingRead>();
  private nextCommand = 1;
  private probe: { command: string; node: RaftMemberId; index: number; term: number } | undefined;

  constructor(opts: SimOptions) {
    this.rnd = prng(opts.seed);
    // Some seeds replicate one entry per request: more states where a majority holds an entry but not the next.
    // Some let a cut-off leader linger (H×M well above T, as Hazelcast's defaults: 25 s against 2 s).
    const perSeed: Partial<RaftConfig> = {
      appendRequestMaxEntryCount: [1, 2, 4][Math.floor(this.rnd() * 3)] as number,
      maxMissedLeaderHeartbeatCount: [3, 10][Math.floor(this.rnd() * 2)] as number,
    };
    this.opts = {
      chaosMs: 3000,
      livenessBoundMs: 3000,
      membershipChanges: true,
      crashes: true,
      ...opts,
      config: { ...SIM_RAFT_CONFIG, ...perSeed, ...opts.config },
    };
    this.ids = Array.from({ length: opts.members + 1 }, (_, i) => `n${i}`);
    this.initial = this.ids.slice(0, opts.members);
    this.lossRate = [0, 0.02, 0.1, 0.25][Math.floor(this.rnd() * 4)] as number;
    this.dupRate = [0, 0.02, 0.1][Math.floor(this.rnd() * 3)] as number;
    for (const id of this.ids) {
      this.nodes.set(id, {
        id,
        raft: undefined,
        incarnation: 0,
        timerGen: 0,
        disk: { term: 0, votedFor: undefined, snapshot: undefined, entries: [] },
        sm: { list: [], lastIndex: 0 },
        lastSeenCommit: 0,
        logChanged: true,
        sameMsTimerFires: 0,
        lastTimerMs: -1,
      });
      this.group.set(id, 0);
    }
  }

  run(): SimReport {
    try {
      for (const n of this.nodes.values()) this.boot(n);
      this.every(() => 2 + this.rnd() * 12, () => this.clientOp());
      this.every(() => 100 + this.rnd() * 300, () => this.fault());
      if (this.opts.membershipChanges) this.every(() => 150 + this.rnd() * 400, () => this.membershipOp());
      this.at(this.opts.chaosMs, () => this.heal());
      while (this.phase !== 'done') {
        const ev = this.pop();
        if (!ev) throw new Violation('event queue ran dry');
        this.now = ev.at;
        this.stats.events++;
        ev.run();
        this.check();
        if (this.phase === 'healing' && this.now > this.healedAt + this.opts.livenessBoundMs) {
          throw new Violation(`no progress within ${this.opts.livenessBoundMs} ms after healing: ${this.describe()}`);
        }
      }
    } catch (e) {
      if (!(e instanceof Violation)) {
        this.violations.push(`exception at ${this.now} ms: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      } else this.violations.push(`at ${this.now} ms: ${e.message}`);
    }
    return { seed: this.opts.seed, members: this.opts.members, violations: this.violations, stats: this.stats };
  }

  // --- events ---

  private at(atMs: number, run: () => void): void {
    const ev: Event = { at: atMs, seq: this.seq++, run };
    const q = this.queue;
    q.push(ev);
    let i = q.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (before(q[p] as Event, ev)) break;
      q[i] = q[p] as Event;
      i = p;
    }
    q[i] = ev;
  }

  private pop(): Event | undefined {
    const q = this.queue;
    const top = q[0];
    const last = q.pop();
    if (q.length > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let best = last;
        if (l < q.length && before(q[l] as Event, best)) {
          m = l;
          best = q[l] as Event;
        }
        if (r < q.length && before(q[r] as Event, best)) m = r;
        if (m === i) break;
        q[i] = q[m] as Event;
        i = m;
      }
      q[i] = last;
    }
    return top;
  }

  private every(gap: () => number, fn: () => void): void {
    const loop = (): void => {
      if (this.phase !== 'chaos') return;
      fn();
      this.at(this.now + gap(), loop);
    };
    this.at(this.now + gap(), loop);
  }

  // --- nodes ---

  private boot(n: SimNode): void {
    n.incarnation++;
    n.sm = { list: [], lastIndex: 0 };
    n.lastSeenCommit = 0;
    n.logChanged = true;
    const d = n.disk;
    const persisted = d.term === 0 && d.snapshot === undefined && d.entries.length === 0 ? undefined : structuredClone({ term: d.term, votedFor: d.votedFor, snapshot: d.snapshot, entries: d.entries });
    n.raft = new RaftNode({ self: n.id, initialMembers: this.initial, config: this.opts.config, random: prng(this.opts.seed * 7919 + n.incarnation * 104_729 + n.id.charCodeAt(1)), persisted });
    n.lastSeenCommit = n.raft.status().commitIndex;
    this.act(n, n.raft.start(this.now));
  }

  private crash(n: SimNode): void {
    if (!n.raft) return;
    n.raft = undefined;
    n.timerGen++;
    this.stats.crashes++;
  }

  private act(n: SimNode, outs: readonly RaftOutput[]): void {
    const raft = n.raft;
    if (!raft) return;
    const inc = n.incarnation;
    let snapshotAt: number | undefined;
    const last = outs[outs.length - 1];
    if (last?.type !== 'timer' || outs.filter((o) => o.type === 'timer').length !== 1) throw new Violation(`${n.id}: outputs must end with exactly one timer`);
    outs.forEach((o, i) => {
      if (o.type === 'persist' && i !== 0) throw new Violation(`${n.id}: persist output not first`);
    });
    for (const o of outs) {
      switch (o.type) {
        case 'persist':
          this.persist(n, o);
          n.logChanged = true;
          break;
        case 'send':
          this.send(n.id, o.to, o.message);
          break;
        case 'apply':
          for (const e of o.entries) this.apply(n, e);
          break;
        case 'install-snapshot':
          this.install(n, o.snapshot);
          break;
        case 'became-leader': {
          this.stats.leadersElected++;
          const other = this.leaderOfTerm.get(o.term);
          if (other !== undefined && other !== n.id) throw new Violation(`election safety: ${other} and ${n.id} both leaders of term ${o.term}`);
          this.leaderOfTerm.set(o.term, n.id);
          break;
        }
        case 'read-ready':
          for (const id of o.readIds) this.readDone(n, id);
          break;
        case 'read-failed':
          for (const id of o.readIds) {
            this.reads.delete(`${n.id}:${inc}:${id}`);
            this.stats.readsFailed++;
          }
          break;
        case 'proposal-failed':
          for (const p of o.proposals) {
            const command = this.proposalAt.get(`${n.id}:${inc}:${p.index}:${p.term}`);
            if (command === MEMBERSHIP) continue;
            const prop = command === undefined ? undefined : this.proposals.get(command);
            if (!prop) throw new Violation(`${n.id}: proposal-failed for unknown proposal ${p.index}/${p.term}`);
            if (o.reason === 'lost') {
              if (prop.acked || this.appliedCommands.has(prop.command)) throw new Violation(`${n.id}: proposal ${prop.command} reported lost but was applied`);
              prop.lost = true;
              this.stats.writesLost++;
            }
          }
          break;
        case 'snapshot-due':
          snapshotAt = o.appliedIndex;
          break;
        case 'timer':
          this.arm(n, o.atMs);
          break;
        case 'stepped-down':
        case 'leader-changed':
        case 'membership-changed':
          break;
      }
    }
    this.checkDisk(n, outs[0]?.type === 'persist');
    if (snapshotAt !== undefined && n.raft === raft && n.incarnation === inc) this.snapshot(n);
  }

  private arm(n: SimNode, atMs: number | undefined): void {
    const gen = ++n.timerGen;
    if (atMs === undefined) return;
    if (!Number.isFinite(atMs)) throw new Violation(`${n.id}: timer at ${atMs}`);
    this.at(Math.max(this.now, atMs), () => {
      if (n.timerGen !== gen || !n.raft) return;
      if (n.lastTimerMs === this.now) {
        if (++n.sameMsTimerFires > 100) throw new Violation(`${n.id}: timer fires again and again at ${this.now}`);
      } else n.sameMsTimerFires = 0;
      n.lastTimerMs = this.now;
      this.act(n, n.raft.timerFired(this.now));
    });
  }

  private persist(n: SimNode, o: Extract<RaftOutput, { type: 'persist' }>): void {
    const d = n.disk;
    d.term = o.term;
    d.votedFor = o.votedFor;
    if (o.snapshot) {
      d.snapshot = structuredClone(o.snapshot);
      d.entries = d.entries.filter((e) => e.index > o.snapshot!.lastIncludedIndex);
    }
    if (o.truncateFrom !== undefined) d.entries = d.entries.filter((e) => e.index < o.truncateFrom!);
    for (const e of o.entries) {
      const expected = (d.entries[d.entries.length - 1]?.index ?? d.snapshot?.lastIncludedIndex ?? 0) + 1;
      if (e.index !== expected) throw new Violation(`${n.id}: persisted entry ${e.index} where ${expected} was next`);
      d.entries.push(structuredClone(e));
    }
  }

  /** What is on disk equals what the node would need after a restart. */
  /** After every call (entry by entry when it persisted something): a call that changed durable state said so. */
  private checkDisk(n: SimNode, full: boolean): void {
    if (!n.raft) return;
    const s = n.raft.status();
    const d = n.disk;
    const di = d.snapshot?.lastIncludedIndex ?? 0;
    const last = d.entries[d.entries.length - 1];
    const lastTerm = last?.term ?? d.snapshot?.lastIncludedTerm ?? 0;
    if (d.term !== s.term || d.votedFor !== s.votedFor || di !== s.snapshotIndex || di + d.entries.length !== s.lastLogIndex || lastTerm !== s.lastLogTerm) {
      throw new Violation(
        `${n.id}: disk (term ${d.term}, vote ${d.votedFor}, snapshot ${di}, ${d.entries.length} entries) differs from node (term ${s.term}, vote ${s.votedFor}, snapshot ${s.snapshotIndex}, last ${s.lastLogIndex})`,
      );
    }
    if (!full) return;
    const p = n.raft.persistentState();
    d.entries.forEach((e, i) => {
      const q = p.entries[i] as RaftEntry;
      if (e.index !== q.index || !sameEntry(e, q)) throw new Violation(`${n.id}: disk entry ${e.index} differs from the node's`);
    });
  }

  // --- network ---

  private send(from: RaftMemberId, to: RaftMemberId, message: RaftMessage): void {
    this.stats.messagesSent++;
    // Plain data only: what arrives is a JSON copy, as if encoded on the member protocol.
    const copy = JSON.parse(JSON.stringify(message)) as RaftMessage;
    const copies = this.rnd() < this.dupRate ? 2 : 1;
    for (let c = 0; c < copies; c++) {
      if (this.rnd() < this.lossRate) continue;
      const delay = this.rnd() < 0.1 ? 15 + this.rnd() * 80 : 1 + this.rnd() * 8;
      this.at(this.now + delay, () => {
        const n = this.nodes.get(to);
        if (!n?.raft || !this.connected(from, to)) return;
        this.stats.messagesDelivered++;
        this.act(n, n.raft.receive(from, copy, this.now));
      });
    }
  }

  private connected(a: RaftMemberId, b: RaftMemberId): boolean {
    return this.group.get(a) === this.group.get(b);
  }

  // --- the state machine ---

  private apply(n: SimNode, e: RaftEntry): void {
    if (e.index !== n.sm.lastIndex + 1) throw new Violation(`state machine safety: ${n.id} applied ${e.index} after ${n.sm.lastIndex}`);
    n.sm.lastIndex = e.index;
    this.recordCommitted(n, e);
    if (e.kind !== 'command') return;
    const command = e.command as string;
    n.sm.list.push(command);
    this.appliedCommands.add(command);
    const prop = this.proposals.get(command);
    if (prop?.lost) throw new Violation(`${command} applied after being reported lost`);
    const mine = this.proposalAt.get(`${n.id}:${n.incarnation}:${e.index}:${e.term}`);
    if (mine !== undefined && mine !== command) throw new Violation(`log matching: ${n.id} proposed ${mine} at ${e.index}/${e.term} but applied ${command} there`);
    if (prop && !prop.acked && mine === command) {
      prop.acked = true;
      this.acked.push(command);
      this.stats.writesAcked++;
    }
    if (this.probe?.command === command) this.checkProbe();
  }

  private install(n: SimNode, s: RaftSnapshot): void {
    if (s.lastIncludedIndex < n.sm.lastIndex) throw new Violation(`${n.id}: snapshot through ${s.lastIncludedIndex} installed over state through ${n.sm.lastIndex}`);
    const state = s.state as { list: string[] };
    const expected: string[] = [];
    for (let i = 1; i <= s.lastIncludedIndex; i++) {
      const c = this.committed.get(i);
      if (!c) throw new Violation(`${n.id}: snapshot through ${s.lastIncludedIndex} holds index ${i} that nobody committed`);
      if (c.command !== undefined) expected.push(c.command);
    }
    if (expected.join(',') !== state.list.join(',')) throw new Violation(`state machine safety: ${n.id} installed a snapshot through ${s.lastIncludedIndex} that differs from the committed commands`);
    n.sm = { list: [...state.list], lastIndex: s.lastIncludedIndex };
    this.stats.snapshotsInstalled++;
    for (const c of state.list) this.appliedCommands.add(c);
  }

  private snapshot(n: SimNode): void {
    if (!n.raft) return;
    this.stats.snapshotsTaken++;
    this.act(n, n.raft.takeSnapshot(n.sm.lastIndex, { list: [...n.sm.list] }, this.now));
  }

  private recordCommitted(n: SimNode, e: RaftEntry): void {
    const term = n.raft?.status().term ?? e.term;
    const known = this.committed.get(e.index);
    if (known && !sameEntry(known.entry, e)) throw new Violation(`state machine safety: index ${e.index} committed as ${entryKey(known.entry)}, ${n.id} has ${entryKey(e)}`);
    if (!known) this.committed.set(e.index, { entry: e, command: e.kind === 'command' ? (e.command as string) : undefined, term });
    else if (term < known.term) known.term = term;
    this.stats.commitIndex = Math.max(this.stats.commitIndex, e.index);
  }

  private readDone(n: SimNode, readId: number): void {
    const k = `${n.id}:${n.incarnation}:${readId}`;
    const r = this.reads.get(k);
    if (!r) throw new Violation(`${n.id}: read-ready for unknown read ${readId}`);
    this.reads.delete(k);
    const result = new Set(n.sm.list);
    for (let i = 0; i < r.ackedBefore; i++) {
      const w = this.acked[i] as string;
      if (!result.has(w)) throw new Violation(`linearizability: a read on ${n.id} misses ${w}, acknowledged before the read began (state through ${n.sm.lastIndex})`);
    }
    this.stats.readsDone++;
  }

  // --- the workload and the faults ---

  private live(): SimNode[] {
    return [...this.nodes.values()].filter((n) => n.raft !== undefined);
  }

  private leaders(): SimNode[] {
    return this.live().filter((n) => n.raft!.status().role === 'leader');
  }

  private clientOp(): void {
    const live = this.live();
    if (live.length === 0) return;
    const leaders = this.leaders();
    const n = leaders.length > 0 && this.rnd() < 0.85 ? (leaders[Math.floor(this.rnd() * leaders.length)] as SimNode) : (live[Math.floor(this.rnd() * live.length)] as SimNode);
    const raft = n.raft!;
    if (this.rnd() < 0.6) this.write(n);
    else {
      const r = raft.read(this.now);
      if (r.ok) this.reads.set(`${n.id}:${n.incarnation}:${r.readId}`, { ackedBefore: this.acked.length });
      this.act(n, r.outputs);
    }
  }

  private write(n: SimNode): { index: number; term: number; command: string } | undefined {
    const command = `w${this.nextCommand++}`;
    const r = n.raft!.propose(command, this.now);
    if (r.ok) {
      this.stats.writesProposed++;
      this.proposals.set(command, { command, node: n.id, incarnation: n.incarnation, index: r.index, term: r.term, acked: false, lost: false });
      this.proposalAt.set(`${n.id}:${n.incarnation}:${r.index}:${r.term}`, command);
    }
    this.act(n, r.outputs);
    return r.ok ? { index: r.index, term: r.term, command } : undefined;
  }

  private fault(): void {
    const x = this.rnd();
    const ids = this.ids;
    if (x < 0.2) {
      // a random cut, or the leader alone
      this.stats.partitions++;
      const leader = this.leaders()[0];
      if (leader && this.rnd() < 0.4) {
        for (const id of ids) this.group.set(id, id === leader.id ? 1 : 0);
        // The others' failure detector may notice at once: a new leader can be elected before the old one steps down.
        for (const n of this.live()) if (n !== leader && this.rnd() < 0.7) this.act(n, n.raft!.memberUnreachable(leader.id, this.now));
      } else {
        for (const id of ids) this.group.set(id, this.rnd() < 0.4 ? 1 : 0);
      }
    } else if (x < 0.4) {
      for (const id of ids) this.group.set(id, 0);
    } else if (x < 0.55 && this.opts.crashes) {
      const live = this.live();
      const down = ids.length - live.length;
      if (down <= Math.floor(ids.length / 2) && live.length > 0) {
        const victim = live[Math.floor(this.rnd() * live.length)] as SimNode;
        this.crash(victim);
        // The shell's failure detector tells some of the others.
        for (const n of this.live()) if (this.rnd() < 0.5) this.act(n, n.raft!.memberUnreachable(victim.id, this.now));
      }
    } else if (x < 0.75) {
      const down = [...this.nodes.values()].filter((n) => !n.raft);
      const n = down[Math.floor(this.rnd() * down.length)];
      if (n) this.boot(n);
    } else if (x < 0.8) {
      const live = this.live();
      const n = live[Math.floor(this.rnd() * live.length)];
      if (n?.raft && n.sm.lastIndex > (n.raft.status().snapshotIndex ?? 0)) this.snapshot(n);
    }
  }

  private membershipOp(): void {
    const leader = this.leaders()[0];
    if (!leader?.raft) return;
    const members = leader.raft.status().members;
    let change: { type: 'add' | 'remove'; member: string };
    if (members.length > this.opts.members || (members.length === this.opts.members && this.rnd() < 0.5)) {
      change = { type: 'remove', member: members[Math.floor(this.rnd() * members.length)] as string };
    } else {
      const missing = this.ids.filter((id) => !members.includes(id));
      if (missing.length === 0) return;
      change = { type: 'add', member: missing[Math.floor(this.rnd() * missing.length)] as string };
    }
    const r = leader.raft.changeMembership(change, this.now);
    if (r.ok) {
      this.stats.membershipChanges++;
      this.proposalAt.set(`${leader.id}:${leader.incarnation}:${r.index}:${r.term}`, MEMBERSHIP);
    }
    this.act(leader, r.outputs);
  }

  private heal(): void {
    this.phase = 'healing';
    this.healedAt = this.now;
    this.lossRate = 0;
    this.dupRate = 0;
    for (const id of this.ids) this.group.set(id, 0);
    for (const n of this.nodes.values()) if (!n.raft) this.boot(n);
    const probeLoop = (): void => {
      if (this.phase !== 'healing') return;
      this.tryProbe();
      this.at(this.now + 20, probeLoop);
    };
    this.at(this.now + 1, probeLoop);
  }

  /** After healing: propose at the leader of the group, until an entry commits and every member applies it. */
  private tryProbe(): void {
    const leader = this.leaders().find((n) => n.raft!.status().members.includes(n.id));
    if (!leader) return;
    if (this.probe) {
      const p = this.probe;
      const pn = this.nodes.get(p.node);
      if (pn?.raft && pn.raft.status().role === 'leader' && pn.raft.status().term === p.term) {
        this.checkProbe();
        return;
      }
    }
    const w = this.write(leader);
    if (w) this.probe = { ...w, node: leader.id };
  }

  private checkProbe(): void {
    const p = this.probe;
    if (!p || this.phase !== 'healing') return;
    const leader = this.nodes.get(p.node)?.raft;
    if (!leader) return;
    const members = leader.status().members;
    for (const id of members) {
      const n = this.nodes.get(id);
      if (!n?.raft || n.sm.lastIndex < p.index || !this.appliedCommands.has(p.command)) return;
    }
    if (this.committed.get(p.index)?.command !== p.command) return;
    this.stats.livenessMs = this.now - this.healedAt;
    this.phase = 'done';
  }

  // --- the safety checks, after every event ---

  private check(): void {
    const live = this.live();
    for (const n of live) {
      const s = n.raft!.status();
      this.stats.maxTerm = Math.max(this.stats.maxTerm, s.term);
      if (s.role === 'leader') {
        const other = this.leaderOfTerm.get(s.term);
        if (other !== undefined && other !== n.id) throw new Violation(`election safety: ${other} and ${n.id} both leaders of term ${s.term}`);
        this.leaderOfTerm.set(s.term, n.id);
      }
      // Newly committed entries agree with what was committed before.
      if (s.commitIndex > n.lastSeenCommit) {
        for (let i = Math.max(n.lastSeenCommit + 1, s.snapshotIndex + 1); i <= s.commitIndex; i++) {
          const e = n.raft!.entryAt(i);
          if (!e) throw new Violation(`${n.id}: committed index ${i} missing from its log`);
          this.recordCommitted(n, e);
        }
        n.lastSeenCommit = s.commitIndex;
      }
      if (s.lastApplied !== n.sm.lastIndex) throw new Violation(`${n.id}: node applied through ${s.lastApplied}, state machine through ${n.sm.lastIndex}`);
      // Leader completeness: a leader holds every entry committed in an earlier term.
      if (s.role === 'leader') {
        for (let i = s.snapshotIndex + 1; this.committed.has(i); i++) {
          const c = this.committed.get(i)!;
          if (c.term >= s.term) continue;
          const e = n.raft!.entryAt(i);
          if (!e || !sameEntry(e, c.entry)) throw new Violation(`leader completeness: ${n.id}, leader of term ${s.term}, lacks entry ${i} (${entryKey(c.entry)}) committed in term ${c.term}`);
        }
      }
    }
    // Log matching: two logs with an entry of the same index and term are identical up to it.
    for (let a = 0; a < live.length; a++) {
      for (let b = a + 1; b < live.length; b++) {
        const na = live[a] as SimNode;
        const nb = live[b] as SimNode;
        if (na.logChanged || nb.logChanged) this.checkLogMatching(na, nb);
      }
    }
    for (const n of live) n.logChanged = false;
  }

  private checkLogMatching(a: SimNode, b: SimNode): void {
    const ra = a.raft!;
    const rb = b.raft!;
    const sa = ra.status();
    const sb = rb.status();
    const lo = Math.max(sa.snapshotIndex, sb.snapshotIndex) + 1;
    let top = 0;
    for (let i = Math.min(sa.lastLogIndex, sb.lastLogIndex); i >= lo; i--) {
      if (ra.entryAt(i)?.term === rb.entryAt(i)?.term) {
        top = i;
        break;
      }
    }
    for (let i = lo; i <= top; i++) {
      const ea = ra.entryAt(i) as RaftEntry;
      const eb = rb.entryAt(i) as RaftEntry;
      if (!sameEntry(ea, eb)) throw new Violation(`log matching: ${a.id} and ${b.id} agree at ${top} but differ at ${i} (${entryKey(ea)} vs ${entryKey(eb)})`);
    }
  }

  private describe(): string {
    return this.live()
      .map((n) => {
        const s = n.raft!.status();
        return `${n.id}:${s.role}/t${s.term}/c${s.commitIndex}/l${s.lastLogIndex}/m[${s.members.join(',')}]`;
      })
      .join(' ');
  }
}

function before(a: Event, b: Event): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
