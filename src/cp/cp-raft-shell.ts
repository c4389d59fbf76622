// The Raft shell: drives each group's RaftNode (raft.ts, pure) — its timer, its outputs turned
// into member messages, its committed entries applied to the group's state machine
// (cp-metadata-state.ts or cp-data-state.ts) and answered to the proposals, reads and
// membership changes waiting on them. The log is kept in memory only: a restarted process is
// a new CP member (see cp-service.ts), so `persist` outputs need no disk.

import { lockAcquireLimitOf } from '../config/match.js';
import { GridError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { encodeCpRaft } from '../protocol/cp-payloads.js';
import { Msg } from '../protocol/messages.js';
import { RaftNode, type RaftOutput } from './raft.js';
import { CpDataState, type CpAnswer } from './cp-data-state.js';
import { CpMetadataState, METADATA_GROUP_ID, type CpGroupRec } from './cp-metadata-state.js';
import type { CpContext, GroupNode, RaftShellPort, Sm } from './cp-context.js';

export class CpRaftShell implements RaftShellPort {
  constructor(private readonly ctx: CpContext) {}

  createNode(g: CpGroupRec): GroupNode {
    const v = this.ctx.view!;
    const raft = new RaftNode({ self: this.ctx.cpUuid, initialMembers: g.initialMembers, config: this.ctx.raftConfig, random: this.ctx.random });
    const sm: Sm =
      g.id === METADATA_GROUP_ID
        ? { kind: 'metadata', state: CpMetadataState.initial(v.initialCpMembers, v.groupSize) }
        : { kind: 'data', state: this.newDataState() };
    const node: GroupNode = {
      rec: g,
      raft,
      sm,
      lastApplied: 0,
      timer: undefined,
      timerAtMs: undefined,
      proposals: new Map(),
      waits: new Map(),
      reads: new Map(),
      changes: new Map(),
      destroyed: false,
      leaderHint: undefined,
      lastTickMs: 0,
    };
    this.ctx.nodes.set(g.id, node);
    this.ctx.deps.logger.debug({ group: g.name, id: g.id, members: g.initialMembers }, 'CP group node created');
    this.drive(node, raft.start(this.ctx.now()));
    return node;
  }

  newDataState(): CpDataState {
    return new CpDataState(this.dataOptions());
  }

  destroyNode(n: GroupNode, why: GridError): void {
    n.destroyed = true;
    n.timer?.cancel();
    for (const p of n.proposals.values()) p.reject(why);
    for (const w of n.waits.values()) w.reject(why);
    for (const r of n.reads.values()) r.reject(why);
    for (const c of n.changes.values()) c.reject(why);
    n.proposals.clear();
    n.waits.clear();
    n.reads.clear();
    n.changes.clear();
  }

  drive(n: GroupNode, outputs: readonly RaftOutput[]): void {
    for (const o of outputs) {
      if (n.destroyed) return;
      switch (o.type) {
        case 'persist':
          break; // in memory only (a restarted process is a new CP member)
        case 'send': {
          const address = this.ctx.addresses.get(o.to);
          if (address !== undefined) this.ctx.deps.net.oneWay(address, Msg.CpRaft, encodeCpRaft({ seed: this.ctx.seed ?? 0, groupId: n.rec.id, from: this.ctx.cpUuid, to: o.to, message: o.message }));
          break;
        }
        case 'apply':
          for (const e of o.entries) this.applyEntry(n, e.index, e.term, e.kind === 'command' ? e.command : undefined);
          break;
        case 'install-snapshot':
          n.sm = n.rec.id === METADATA_GROUP_ID
            ? { kind: 'metadata', state: CpMetadataState.fromSnapshot(o.snapshot.state as WireValue) }
            : { kind: 'data', state: CpDataState.fromSnapshot(this.dataOptions(), o.snapshot.state as WireValue) };
          n.lastApplied = o.snapshot.lastIncludedIndex;
          if (n.sm.kind === 'metadata') this.metadataChanged(n, n.sm.state);
          break;
        case 'became-leader':
          this.ctx.deps.logger.info({ group: n.rec.name, term: o.term }, `CP group ${n.rec.name}: this member is the leader (term ${o.term})`);
          n.lastTickMs = 0;
          if (n.rec.id === METADATA_GROUP_ID) this.ctx.viewDirty = true;
          break;
        case 'stepped-down': {
          const e = new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: leader stepped down`);
          // Proposals stay: they may still commit under the next leader (answered from the log).
          for (const w of n.waits.values()) w.reject(e);
          n.waits.clear();
          for (const c of n.changes.values()) c.reject(e);
          n.changes.clear();
          break;
        }
        case 'leader-changed':
          n.leaderHint = o.leaderId;
          if (o.leaderId !== undefined) this.ctx.leaders.set(n.rec.id, o.leaderId);
          this.ctx.deps.logger.debug({ group: n.rec.name, term: o.term, leader: o.leaderId }, 'CP group leader changed');
          break;
        case 'membership-changed':
          this.ctx.deps.logger.info({ group: n.rec.name, members: o.members, index: o.index }, `CP group ${n.rec.name}: members now ${o.members.length}`);
          break;
        case 'read-ready':
          for (const id of o.readIds) {
            n.reads.get(id)?.resolve();
            n.reads.delete(id);
          }
          break;
        case 'read-failed':
          for (const id of o.readIds) {
            n.reads.get(id)?.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: not the leader any more`));
            n.reads.delete(id);
          }
          break;
        case 'proposal-failed':
          for (const p of o.proposals) {
            const pr = n.proposals.get(p.index);
            if (pr === undefined || pr.term !== p.term) continue;
            n.proposals.delete(p.index);
            pr.reject(new GridError(o.reason === 'lost' ? 'CP_UNAVAILABLE' : 'INDETERMINATE', `CP group ${n.rec.name}: proposal ${o.reason}`));
          }
          break;
        case 'snapshot-due':
          this.drive(n, n.raft.takeSnapshot(n.lastApplied, n.sm.state.snapshot(), this.ctx.now()));
          break;
        case 'timer':
          this.arm(n, o.atMs);
          break;
      }
    }
  }

  dataOptions(): { sessionTtlMs: number; lockAcquireLimit(name: string): number } {
    const config = this.ctx.deps.config;
    return { sessionTtlMs: config.cpSubsystem.sessionTimeToLiveSeconds * 1000, lockAcquireLimit: (name) => lockAcquireLimitOf(config, name) };
  }

  arm(n: GroupNode, atMs: number | undefined): void {
    if (atMs === n.timerAtMs && n.timer !== undefined) return;
    n.timer?.cancel();
    n.timer = undefined;
    n.timerAtMs = atMs;
    if (atMs === undefined) return;
    n.timer = this.ctx.deps.clock.setTimeout(() => {
      n.timer = undefined;
      n.timerAtMs = undefined;
      if (!n.destroyed) this.drive(n, n.raft.timerFired(this.ctx.now()));
    }, Math.max(0, atMs - this.ctx.now()));
  }

  applyEntry(n: GroupNode, index: number, term: number, command: unknown): void {
    n.lastApplied = index;
    const pr = n.proposals.get(index);
    if (pr !== undefined) n.proposals.delete(index);
    const change = n.changes.get(index);
    if (change !== undefined) {
      n.changes.delete(index);
      change.resolve(n.raft.status().members);
    }
    if (command === undefined) {
      if (pr !== undefined) pr.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: proposal lost`));
      return;
    }
    let answer: CpAnswer | undefined;
    if (n.sm.kind === 'metadata') {
      answer = n.sm.state.apply(command as WireValue);
      this.metadataChanged(n, n.sm.state);
    } else {
      const applied = n.sm.state.apply(index, command as WireValue);
      answer = applied.answer;
      for (const c of applied.completed) {
        const w = n.waits.get(c.key);
        if (w !== undefined) {
          n.waits.delete(c.key);
          w.resolve(c.answer);
        }
      }
    }
    if (pr === undefined) return;
    if (pr.term !== term) {
      pr.reject(new GridError('CP_UNAVAILABLE', `CP group ${n.rec.name}: proposal lost`));
      return;
    }
    if (answer === undefined) {
      // A lock wait: answered when the lock is granted (or the wait ends).
      const earlier = n.waits.get(pr.key);
      n.waits.set(pr.key, {
        resolve: (a) => {
          earlier?.resolve(a);
          pr.resolve(a);
        },
        reject: (e) => {
          earlier?.reject(e);
          pr.reject(e);
        },
      });
      return;
    }
    pr.resolve(answer);
  }

  metadataChanged(n: GroupNode, state: CpMetadataState): void {
    if (this.ctx.seed === undefined || this.ctx.view === undefined) return;
    const v = state.view(this.ctx.seed, n.lastApplied);
    if (v.version <= this.ctx.view.version) return;
    this.ctx.forming.adoptView(v);
    if (n.raft.status().role === 'leader' && !this.ctx.viewDirty) {
      // Soon, once for every change of this turn: members learn new groups before calls reach them.
      this.ctx.viewDirty = true;
      this.ctx.deps.clock.setTimeout(() => {
        if (this.ctx.viewDirty && !this.ctx.stopped) this.ctx.forming.broadcastView();
      }, 0);
    }
  }
}
