// Incoming CP messages: Raft messages to this member's group nodes, a lost peer (its nodes
// suspect), and calls from other members (CpInvoke) run on this member's node of the group —
// a command through the log, a linearizable read, a membership change — answered ok, err, or
// retry (not the leader, unknown group, busy, indeterminate) for the caller's routing.

import { GridError, describeError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { decodeCpInvoke, decodeCpRaft, encodeCpInvokeAnswer } from '../protocol/cp-payloads.js';
import type { MemberConnection } from '../net/member-net.js';
import type { RaftMemberId, RaftOutput } from './raft.js';
import type { CpAnswer } from './cp-data-state.js';
import { viewToWire } from './cp-metadata-state.js';
import type { CpContext, GroupNode } from './cp-context.js';

const notLeader = (hint: string | undefined): WireValue => encodeCpInvokeAnswer({ tag: 'retry', reason: 'NOT_LEADER', hint });
const retry = (reason: string): WireValue => encodeCpInvokeAnswer({ tag: 'retry', reason });
const okAnswer = (value: WireValue): WireValue => encodeCpInvokeAnswer({ tag: 'ok', value });

export class CpIncoming {
  constructor(private readonly ctx: CpContext) {}

  onRaft(p: WireValue, conn: MemberConnection): void {
    const { seed, groupId, from, to, message } = decodeCpRaft(p);
    if (seed !== this.ctx.seed || to !== this.ctx.cpUuid || this.ctx.stopped) return;
    const known = this.ctx.addresses.get(from);
    if (known === undefined && conn.peer !== undefined) this.ctx.addresses.set(from, conn.peer.address);
    let n = this.ctx.nodes.get(groupId);
    if (n === undefined) {
      // A leader adding this member to its group, before the view says so.
      const g = this.ctx.view?.groups.find((x) => x.id === groupId);
      if (g === undefined) {
        if (conn.peer !== undefined) void this.ctx.forming.fetchView(conn.peer.address).catch(() => undefined);
        return;
      }
      n = this.ctx.shell.createNode(g);
    }
    let outputs: RaftOutput[];
    try {
      outputs = n.raft.receive(from, message, this.ctx.now());
    } catch (e) {
      // A message that contradicts this node's committed log (a buggy or hostile peer): refused,
      // node unchanged (raft.ts checks it before it changes anything), so no output is lost.
      this.ctx.deps.logger.warn({ group: n.rec.name, from }, `CP group ${n.rec.name}: Raft message refused: ${describeError(e)}`);
      return;
    }
    this.ctx.shell.drive(n, outputs);
  }

  /** A connection to `address` closed, or its member left: its Raft nodes are suspect. */
  peerLost(address: string): void {
    if (this.ctx.stopped) return;
    const now = this.ctx.now();
    for (const [cpUuid, a] of this.ctx.addresses) {
      if (a !== address) continue;
      for (const n of this.ctx.nodes.values()) if (!n.destroyed) this.ctx.shell.drive(n, n.raft.memberUnreachable(cpUuid as RaftMemberId, now));
      for (const [gid, leader] of this.ctx.leaders) if (leader === cpUuid) this.ctx.leaders.delete(gid);
    }
  }

  onInvoke(p: WireValue): WireValue | Promise<WireValue> {
    const { seed, groupId, kind, body } = decodeCpInvoke(p);
    if (this.ctx.stopped) return retry('UNKNOWN_GROUP');
    const n = seed === this.ctx.seed ? this.ctx.nodes.get(groupId) : undefined;
    if (n === undefined || n.destroyed) return retry('UNKNOWN_GROUP');
    const now = this.ctx.now();
    switch (kind) {
      case 'cmd': {
        const command = stamp(body, now);
        const r = n.raft.propose(command, now);
        this.ctx.shell.drive(n, r.outputs);
        if (!r.ok) return r.reason === 'not-leader' ? notLeader(r.leaderId) : retry('BUSY');
        const key = Array.isArray(command) && typeof command[1] === 'string' ? command[1] : '';
        return new Promise<CpAnswer>((resolve, reject) => n.proposals.set(r.index, { term: r.term, key, resolve, reject })).then(answerToWire, errorToWire);
      }
      case 'read': {
        const r = n.raft.read(now);
        this.ctx.shell.drive(n, r.outputs);
        if (!r.ok) return notLeader(r.leaderId);
        return new Promise<void>((resolve, reject) => n.reads.set(r.readId, { resolve, reject })).then(() => this.query(n, body), errorToWire);
      }
      case 'change': {
        const b = f.tuple(body, 'cp change');
        const type = f.str(b, 0, 'type');
        const member = f.str(b, 1, 'member');
        if (type !== 'add' && type !== 'remove') throw new GridError('BAD_REQUEST', 'malformed member message: cp change type');
        const r = n.raft.changeMembership({ type, member }, now);
        this.ctx.shell.drive(n, r.outputs);
        if (!r.ok) {
          if (r.reason === 'not-leader') return notLeader(r.leaderId);
          if (r.reason === 'already-member' || r.reason === 'not-member') return okAnswer([...n.raft.status().members]);
          return retry('BUSY');
        }
        return new Promise<readonly string[]>((resolve, reject) => n.changes.set(r.index, { resolve, reject })).then((m) => okAnswer([...m]), errorToWire);
      }
    }
  }

  query(n: GroupNode, body: WireValue): WireValue {
    const t = f.tuple(body, 'cp query');
    const what = f.str(t, 0, 'query');
    if (n.sm.kind === 'metadata') {
      if (what === 'metadata') return okAnswer(viewToWire(n.sm.state.view(this.ctx.seed ?? 0, n.lastApplied)));
      throw new GridError('BAD_REQUEST', `malformed member message: METADATA query ${what}`);
    }
    const s = n.sm.state;
    switch (what) {
      case 'atomicLong':
        return okAnswer(s.atomicLong(f.str(t, 1, 'name')));
      case 'lockInfo': {
        const i = s.lockInfo(f.str(t, 1, 'name'));
        return okAnswer([i.locked, i.sessionId, i.fence, i.lockCount, i.waiters]);
      }
      case 'sessions':
        return okAnswer(s.sessions().map((x) => [x.id, x.creationTime, x.expirationTime, x.version, x.endpoint, x.endpointName, x.endpointType]));
      default:
        throw new GridError('BAD_REQUEST', `malformed member message: CP query ${what}`);
    }
  }
}

/** Commands stamped with the leader's clock where they carry a time. */
function stamp(body: WireValue, now: number): WireValue {
  if (!Array.isArray(body)) return body;
  const t = [...(body as WireValue[])];
  if (t[0] === 'lock') t[4] = now;
  else if (t[0] === 'heartbeat') t[3] = now;
  return t;
}

function answerToWire(a: CpAnswer): WireValue {
  return encodeCpInvokeAnswer(a.ok ? { tag: 'ok', value: a.value } : { tag: 'err', code: a.code, message: a.message });
}

function errorToWire(e: unknown): WireValue {
  if (e instanceof GridError && (e.code === 'CP_UNAVAILABLE' || e.code === 'INDETERMINATE' || e.code === 'MEMBER_SHUTTING_DOWN')) {
    return retry(e.code === 'INDETERMINATE' ? 'INDETERMINATE' : 'NOT_LEADER');
  }
  return encodeCpInvokeAnswer({ tag: 'err', code: e instanceof GridError ? e.code : 'INTERNAL', message: e instanceof GridError ? e.message : describeError(e) });
}
