// The CP subsystem on the member protocol: the payloads of CpRaft..CpReset (70-76, messages.ts)
// and their answers, each a typed value with an encode/decode pair, and inside CpRaft the Raft
// messages (cp/raft-messages.ts), one compact tuple per message, [tag, ...fields in a fixed
// order]. The Raft decoder is the gate between a peer and RaftNode: it checks every field and
// the shape rules RaftNode counts on (an append's entries follow prevLogIndex without gaps,
// their terms never go down nor past the message's term, membership lists are 1..64 distinct
// ids), so a malformed message is refused with GridError('BAD_REQUEST') and never reaches the
// node.
//
// Raft tuples have exactly their fields: unlike the cluster payloads, extra trailing items are
// refused, not ignored (a Raft member must not silently drop what a newer one meant; a new
// field is a new tag). So whatever decodes re-encodes to the same value, byte for byte. The
// CP view (and its members and groups) is exact too. The envelopes of the CP messages follow
// payloads.ts instead: items after their fields are ignored (room for a later sender's field).
//
// The Raft messages, entries and snapshots, and the CP view with its members and groups, are
// defined here, once: they are what travels, protocol/ sits below cp/, and cp/ imports them
// (raft-messages.ts and cp-metadata-state.ts re-export them under the same names).

import { GridError } from '../core/errors.js';
import type { WireValue } from './codec.js';
import * as f from './fields.js';
import { recordTuple } from './record-tuple.js';

// ------------------------------------------------------------------ the Raft types

/** A CP member's identity inside a Raft group (its member UUID, or any stable string). */
export type RaftMemberId = string;

/**
 * One log entry. `command` entries carry the CP layer's operation (opaque to Raft);
 * `noop` is what a new leader appends to commit entries of earlier terms (and to serve
 * reads); `membership` replaces the group's voting members (one member added or removed).
 */
export type RaftEntry =
  | { readonly index: number; readonly term: number; readonly kind: 'command'; readonly command: unknown }
  | { readonly index: number; readonly term: number; readonly kind: 'noop' }
  | { readonly index: number; readonly term: number; readonly kind: 'membership'; readonly members: readonly RaftMemberId[] };

/** The state machine's state through `lastIncludedIndex`, replacing the log up to there. */
export interface RaftSnapshot {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  /** The voting members as of `lastIncludedIndex`. */
  readonly members: readonly RaftMemberId[];
  /** Index of the membership entry that set `members` (0: the group's initial members). */
  readonly membersIndex: number;
  /** The CP layer's state machine state (opaque to Raft). */
  readonly state: unknown;
}

/**
 * Would you vote for me if I stood in `term`? Asked before a real election so that a node
 * that was cut off cannot raise everyone's term; answering changes nothing on the voter.
 */
export interface RaftPreVoteRequest {
  readonly type: 'pre-vote';
  /** The term the sender would stand in (its current term + 1). */
  readonly term: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
}

export interface RaftPreVoteResponse {
  readonly type: 'pre-vote-response';
  /** The voter's current term. */
  readonly term: number;
  /** The `term` of the request answered. */
  readonly preVoteTerm: number;
  readonly granted: boolean;
}

export interface RaftVoteRequest {
  readonly type: 'vote';
  readonly term: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
}

export interface RaftVoteResponse {
  readonly type: 'vote-response';
  readonly term: number;
  readonly granted: boolean;
}

/** Entries to append after `prevLogIndex` (none: a heartbeat). */
export interface RaftAppendRequest {
  readonly type: 'append';
  readonly term: number;
  readonly prevLogIndex: number;
  readonly prevLogTerm: number;
  /** Indexes prevLogIndex + 1, prevLogIndex + 2, … */
  readonly entries: readonly RaftEntry[];
  readonly leaderCommit: number;
  /** The leader's round number, echoed in the answer (reads wait for a round after them). */
  readonly seq: number;
}

export interface RaftAppendResponse {
  readonly type: 'append-response';
  readonly term: number;
  readonly success: boolean;
  /** success: the follower's log matches the leader's through this index. */
  readonly matchIndex: number;
  /** failure: the highest index the follower's log may share with the leader's. */
  readonly hintIndex: number;
  readonly seq: number;
}

/** The leader's snapshot, for a follower that needs entries the leader has compacted away. */
export interface RaftInstallSnapshotRequest {
  readonly type: 'install-snapshot';
  readonly term: number;
  readonly snapshot: RaftSnapshot;
  readonly seq: number;
}

export interface RaftInstallSnapshotResponse {
  readonly type: 'install-snapshot-response';
  readonly term: number;
  /** The follower's log matches the leader's through this index. */
  readonly matchIndex: number;
  readonly seq: number;
}

export type RaftMessage =
  | RaftPreVoteRequest
  | RaftPreVoteResponse
  | RaftVoteRequest
  | RaftVoteResponse
  | RaftAppendRequest
  | RaftAppendResponse
  | RaftInstallSnapshotRequest
  | RaftInstallSnapshotResponse;

/** An append carrying more entries is refused (`append-request-max-entry-count` must stay at or below it). */
export const MAX_RAFT_APPEND_ENTRIES = 10_000;
/** A membership list (entry or snapshot) with more ids is refused (CP groups have at most 7). */
export const MAX_RAFT_MEMBERS = 64;

/** Message tags: the values are the wire format, never renumber them. */
const TAG = {
  'pre-vote': 0,
  'pre-vote-response': 1,
  vote: 2,
  'vote-response': 3,
  append: 4,
  'append-response': 5,
  'install-snapshot': 6,
  'install-snapshot-response': 7,
} as const satisfies Record<RaftMessage['type'], number>;

/** Entry kind tags: wire format too. */
const KIND = { command: 0, noop: 1, membership: 2 } as const satisfies Record<RaftEntry['kind'], number>;

// ------------------------------------------------------------------ encode

/**
 * pre-vote                  [0, term, lastLogIndex, lastLogTerm]
 * pre-vote-response         [1, term, preVoteTerm, granted]
 * vote                      [2, term, lastLogIndex, lastLogTerm]
 * vote-response             [3, term, granted]
 * append                    [4, term, prevLogIndex, prevLogTerm, entries[], leaderCommit, seq]
 * append-response           [5, term, success, matchIndex, hintIndex, seq]
 * install-snapshot          [6, term, snapshot, seq]
 * install-snapshot-response [7, term, matchIndex, seq]
 *
 * An entry is [index, term, 0, command] | [index, term, 1] (noop) | [index, term, 2, members[]];
 * a snapshot is [lastIncludedIndex, lastIncludedTerm, members[], membersIndex, state]. The
 * command and the state are the CP layer's values, WireValues already: they go as they are.
 */
export function encodeRaftMessage(m: RaftMessage): WireValue {
  switch (m.type) {
    case 'pre-vote':
      return [TAG['pre-vote'], m.term, m.lastLogIndex, m.lastLogTerm];
    case 'pre-vote-response':
      return [TAG['pre-vote-response'], m.term, m.preVoteTerm, m.granted];
    case 'vote':
      return [TAG.vote, m.term, m.lastLogIndex, m.lastLogTerm];
    case 'vote-response':
      return [TAG['vote-response'], m.term, m.granted];
    case 'append':
      return [TAG.append, m.term, m.prevLogIndex, m.prevLogTerm, m.entries.map(encodeEntry), m.leaderCommit, m.seq];
    case 'append-response':
      return [TAG['append-response'], m.term, m.success, m.matchIndex, m.hintIndex, m.seq];
    case 'install-snapshot':
      return [TAG['install-snapshot'], m.term, encodeSnapshot(m.snapshot), m.seq];
    case 'install-snapshot-response':
      return [TAG['install-snapshot-response'], m.term, m.matchIndex, m.seq];
  }
}

function encodeEntry(e: RaftEntry): WireValue {
  switch (e.kind) {
    case 'command':
      return [e.index, e.term, KIND.command, e.command as WireValue];
    case 'noop':
      return [e.index, e.term, KIND.noop];
    case 'membership':
      return [e.index, e.term, KIND.membership, e.members];
  }
}

function encodeSnapshot(s: RaftSnapshot): WireValue {
  return [s.lastIncludedIndex, s.lastIncludedTerm, s.members, s.membersIndex, s.state as WireValue];
}

// ------------------------------------------------------------------ decode

function bad(message: string): GridError {
  return new GridError('BAD_REQUEST', `malformed member message: ${message}`);
}

/** Refuses items past the `n` fields of `what` (missing ones are named by the field reads). */
function noExtra(t: readonly WireValue[], n: number, what: string): void {
  if (t.length > n) throw bad(`${what} has ${t.length} items, expected ${n}`);
}

/**
 * A non-negative safe integer: an index, a term, a sequence number, a tag. Not -0 either: no
 * sender makes one, and the codec keeps it apart from 0, so it would not re-encode the same.
 */
function nat(t: readonly WireValue[], i: number, what: string): number {
  const n = f.int(t, i, what);
  if (Object.is(n, -0)) throw bad(`${what} is -0`);
  if (n < 0 || !Number.isSafeInteger(n)) throw bad(`${what} is ${n}, not in [0, 2^53 - 1]`);
  return n;
}

/** Any value (the CP layer's command or state), but present. */
function opaque(t: readonly WireValue[], i: number, what: string): WireValue {
  const v = t[i];
  if (v === undefined) throw bad(`${what} is undefined`);
  return v;
}

/** A term that may not exceed the message's term (the sender's log holds no later term). */
function termUpTo(t: readonly WireValue[], i: number, what: string, term: number): number {
  const n = nat(t, i, what);
  if (n > term) throw bad(`${what} is ${n}, above the message's term ${term}`);
  return n;
}

/** A voting configuration: 1..MAX_RAFT_MEMBERS distinct non-empty ids. */
function members(t: readonly WireValue[], i: number, what: string): RaftMemberId[] {
  const a = f.arr(t, i, what);
  if (a.length === 0) throw bad(`${what} is empty`);
  if (a.length > MAX_RAFT_MEMBERS) throw bad(`${what} has ${a.length} ids, more than ${MAX_RAFT_MEMBERS}`);
  const seen = new Map<string, number>();
  const out: RaftMemberId[] = [];
  for (let j = 0; j < a.length; j++) {
    const id = f.str(a, j, `${what}[${j}]`);
    if (id === '') throw bad(`${what}[${j}] is an empty string`);
    const first = seen.get(id);
    if (first !== undefined) throw bad(`${what}[${j}] repeats ${what}[${first}]`);
    seen.set(id, j);
    out.push(id);
  }
  return out;
}

function decodeEntry(v: WireValue, what: string): RaftEntry {
  const t = f.tuple(v, what);
  const index = nat(t, 0, `${what}.index`);
  const term = nat(t, 1, `${what}.term`);
  const kind = nat(t, 2, `${what}.kind`);
  switch (kind) {
    case KIND.command:
      noExtra(t, 4, what);
      return { index, term, kind: 'command', command: opaque(t, 3, `${what}.command`) };
    case KIND.noop:
      noExtra(t, 3, what);
      return { index, term, kind: 'noop' };
    case KIND.membership:
      noExtra(t, 4, what);
      return { index, term, kind: 'membership', members: members(t, 3, `${what}.members`) };
    default:
      throw bad(`${what}.kind is ${kind}`);
  }
}

/** Indexes prevLogIndex + 1, + 2, …; terms from prevLogTerm up, none above the message's term (raft.ts's wellFormed, enforced here). */
function decodeEntries(t: readonly WireValue[], i: number, what: string, term: number, prevLogIndex: number, prevLogTerm: number): RaftEntry[] {
  const a = f.arr(t, i, what);
  if (a.length > MAX_RAFT_APPEND_ENTRIES) throw bad(`${what} has ${a.length} entries, more than ${MAX_RAFT_APPEND_ENTRIES}`);
  const out: RaftEntry[] = [];
  let before = prevLogTerm;
  for (let k = 0; k < a.length; k++) {
    const w = `${what}[${k}]`;
    const e = decodeEntry(a[k] as WireValue, w);
    if (e.index !== prevLogIndex + 1 + k) throw bad(`${w}.index is ${e.index}, expected ${prevLogIndex + 1 + k}`);
    if (e.term < before) throw bad(`${w}.term is ${e.term}, below the term before it (${before})`);
    if (e.term > term) throw bad(`${w}.term is ${e.term}, above the message's term ${term}`);
    before = e.term;
    out.push(e);
  }
  return out;
}

function decodeSnapshot(t: readonly WireValue[], i: number, what: string, term: number): RaftSnapshot {
  const s = f.tuple(t[i] ?? null, what);
  noExtra(s, 5, what);
  const lastIncludedIndex = nat(s, 0, `${what}.lastIncludedIndex`);
  const lastIncludedTerm = termUpTo(s, 1, `${what}.lastIncludedTerm`, term);
  const ids = members(s, 2, `${what}.members`);
  const membersIndex = nat(s, 3, `${what}.membersIndex`);
  if (membersIndex > lastIncludedIndex) throw bad(`${what}.membersIndex is ${membersIndex}, beyond lastIncludedIndex ${lastIncludedIndex}`);
  return { lastIncludedIndex, lastIncludedTerm, members: ids, membersIndex, state: opaque(s, 4, `${what}.state`) };
}

/** The message a peer sent, every field checked; anything else throws GridError('BAD_REQUEST'). */
export function decodeRaftMessage(v: WireValue): RaftMessage {
  const t = f.tuple(v, 'raft message');
  const tag = nat(t, 0, 'raft message tag');
  switch (tag) {
    case TAG['pre-vote']:
    case TAG.vote: {
      const type = tag === TAG.vote ? 'vote' : 'pre-vote';
      noExtra(t, 4, type);
      const term = nat(t, 1, `${type}.term`);
      return { type, term, lastLogIndex: nat(t, 2, `${type}.lastLogIndex`), lastLogTerm: termUpTo(t, 3, `${type}.lastLogTerm`, term) };
    }
    case TAG['pre-vote-response']:
      noExtra(t, 4, 'pre-vote-response');
      return { type: 'pre-vote-response', term: nat(t, 1, 'pre-vote-response.term'), preVoteTerm: nat(t, 2, 'pre-vote-response.preVoteTerm'), granted: f.bool(t, 3, 'pre-vote-response.granted') };
    case TAG['vote-response']:
      noExtra(t, 3, 'vote-response');
      return { type: 'vote-response', term: nat(t, 1, 'vote-response.term'), granted: f.bool(t, 2, 'vote-response.granted') };
    case TAG.append: {
      noExtra(t, 7, 'append');
      const term = nat(t, 1, 'append.term');
      const prevLogIndex = nat(t, 2, 'append.prevLogIndex');
      const prevLogTerm = termUpTo(t, 3, 'append.prevLogTerm', term);
      const entries = decodeEntries(t, 4, 'append.entries', term, prevLogIndex, prevLogTerm);
      return { type: 'append', term, prevLogIndex, prevLogTerm, entries, leaderCommit: nat(t, 5, 'append.leaderCommit'), seq: nat(t, 6, 'append.seq') };
    }
    case TAG['append-response']:
      noExtra(t, 6, 'append-response');
      return {
        type: 'append-response',
        term: nat(t, 1, 'append-response.term'),
        success: f.bool(t, 2, 'append-response.success'),
        matchIndex: nat(t, 3, 'append-response.matchIndex'),
        hintIndex: nat(t, 4, 'append-response.hintIndex'),
        seq: nat(t, 5, 'append-response.seq'),
      };
    case TAG['install-snapshot']: {
      noExtra(t, 4, 'install-snapshot');
      const term = nat(t, 1, 'install-snapshot.term');
      return { type: 'install-snapshot', term, snapshot: decodeSnapshot(t, 2, 'install-snapshot.snapshot', term), seq: nat(t, 3, 'install-snapshot.seq') };
    }
    case TAG['install-snapshot-response']:
      noExtra(t, 4, 'install-snapshot-response');
      return { type: 'install-snapshot-response', term: nat(t, 1, 'install-snapshot-response.term'), matchIndex: nat(t, 2, 'install-snapshot-response.matchIndex'), seq: nat(t, 3, 'install-snapshot-response.seq') };
    default:
      throw bad(`raft message tag is ${tag}`);
  }
}

// ------------------------------------------------------------------ the CP messages (70-76)

/** A CP member, on the wire [cpUuid, memberUuid, address]. */
export interface CpMemberRec {
  /** The CP member's own identity (fresh per process: a restarted member is a new CP member; a Raft member id, not empty). */
  readonly cpUuid: string;
  readonly memberUuid: string;
  /** `host:port` of its member port. */
  readonly address: string;
}

/** A CP group, on the wire [name, id, initialMembers[], members[]], members by cpUuid. */
export interface CpGroupRec {
  readonly name: string;
  readonly id: number;
  /** The Raft configuration the group started with (a member added later replays the log from it). */
  readonly initialMembers: readonly string[];
  /** The group's CP members (cp uuids) as last recorded (after each committed membership change). */
  readonly members: readonly string[];
}

/**
 * What every member learns of the CP subsystem (broadcast by the METADATA leader), on the
 * wire [seed, version, groupSize, initialCpMembers[], cpMembers[], groups[]].
 */
export interface CpView {
  /** The CP subsystem's incarnation: a reset starts a new one, and messages of other seeds are ignored. */
  readonly seed: number;
  /** The METADATA index this view was taken at: a higher one replaces a lower one. */
  readonly version: number;
  readonly groupSize: number;
  /** The CP members the subsystem formed with: the METADATA state at index 0 is built from them. */
  readonly initialCpMembers: readonly CpMemberRec[];
  readonly cpMembers: readonly CpMemberRec[];
  readonly groups: readonly CpGroupRec[];
}

/** A non-empty string: a CP member id (cpUuid), a group name. */
function id(t: readonly WireValue[], i: number, what: string): string {
  const s = f.str(t, i, what);
  if (s === '') throw bad(`${what} is an empty string`);
  return s;
}

/** A seed that names a CP subsystem (0 means none, and is never sent where one is formed or reset). */
function seedOf(t: readonly WireValue[], i: number, what: string): number {
  const n = nat(t, i, what);
  if (n === 0) throw bad(`${what} is 0, not a CP subsystem's seed`);
  return n;
}

function encodeCpMember(m: CpMemberRec): WireValue {
  return [m.cpUuid, m.memberUuid, m.address];
}

function decodeCpMember(v: WireValue, what: string): CpMemberRec {
  const t = f.tuple(v, what);
  noExtra(t, 3, what);
  return { cpUuid: id(t, 0, `${what}.cpUuid`), memberUuid: f.str(t, 1, `${what}.memberUuid`), address: f.str(t, 2, `${what}.address`) };
}

function decodeCpMembers(t: readonly WireValue[], i: number, what: string): CpMemberRec[] {
  const a = f.arr(t, i, what);
  return a.map((m, j) => decodeCpMember(m, `${what}[${j}]`));
}

function ids(t: readonly WireValue[], i: number, what: string): string[] {
  const a = f.arr(t, i, what);
  return a.map((_, j) => id(a, j, `${what}[${j}]`));
}

function encodeCpGroup(g: CpGroupRec): WireValue {
  return [g.name, g.id, [...g.initialMembers], [...g.members]];
}

function decodeCpGroup(v: WireValue, what: string): CpGroupRec {
  const t = f.tuple(v, what);
  noExtra(t, 4, what);
  return { name: id(t, 0, `${what}.name`), id: nat(t, 1, `${what}.id`), initialMembers: ids(t, 2, `${what}.initialMembers`), members: ids(t, 3, `${what}.members`) };
}

function decodeCpGroups(t: readonly WireValue[], i: number, what: string): CpGroupRec[] {
  const a = f.arr(t, i, what);
  return a.map((g, j) => decodeCpGroup(g, `${what}[${j}]`));
}

/** The view as it travels in CpView, CpFetchView's answer and METADATA's `metadata` query. */
export function encodeWireCpView(v: CpView): WireValue {
  return [v.seed, v.version, v.groupSize, v.initialCpMembers.map(encodeCpMember), v.cpMembers.map(encodeCpMember), v.groups.map(encodeCpGroup)];
}

/** Exactly six fields, each checked; so are its members' and groups' (exactly 3 and 4). */
export function decodeWireCpView(v: WireValue, what = 'view'): CpView {
  const t = f.tuple(v, what);
  noExtra(t, 6, what);
  return {
    seed: nat(t, 0, `${what}.seed`),
    version: nat(t, 1, `${what}.version`),
    groupSize: nat(t, 2, `${what}.groupSize`),
    initialCpMembers: decodeCpMembers(t, 3, `${what}.initialCpMembers`),
    cpMembers: decodeCpMembers(t, 4, `${what}.cpMembers`),
    groups: decodeCpGroups(t, 5, `${what}.groups`),
  };
}

// ---- CpRaft (70), one-way

/** [seed, groupId, from, to, raftMessage]: a Raft message of group `groupId`, between CP members (cpUuids). */
export interface CpRaftPayload {
  readonly seed: number;
  readonly groupId: number;
  readonly from: string;
  readonly to: string;
  readonly message: RaftMessage;
}

export function encodeCpRaft(p: CpRaftPayload): WireValue {
  return [p.seed, p.groupId, p.from, p.to, encodeRaftMessage(p.message)];
}

export function decodeCpRaft(v: WireValue): CpRaftPayload {
  const t = f.tuple(v, 'cp raft');
  return { seed: nat(t, 0, 'seed'), groupId: nat(t, 1, 'groupId'), from: id(t, 2, 'from'), to: id(t, 3, 'to'), message: decodeRaftMessage(t[4] ?? null) };
}

// ---- CpInvoke (71)

/** How a call reaches a group: a command through the log, a linearizable read, a membership change. */
export const CP_INVOKE_KINDS = ['cmd', 'read', 'change'] as const;
export type CpInvokeKind = (typeof CP_INVOKE_KINDS)[number];

/** [seed, groupId, kind, body]; the body belongs to the CP service (a command, a query, [type, cpUuid]). */
export interface CpInvokePayload {
  readonly seed: number;
  readonly groupId: number;
  readonly kind: CpInvokeKind;
  readonly body: WireValue;
}

export function encodeCpInvoke(p: CpInvokePayload): WireValue {
  return [p.seed, p.groupId, p.kind, p.body];
}

export function decodeCpInvoke(v: WireValue): CpInvokePayload {
  const t = f.tuple(v, 'cp invoke');
  const seed = nat(t, 0, 'seed');
  const groupId = nat(t, 1, 'groupId');
  const kind = f.str(t, 2, 'kind');
  if (!(CP_INVOKE_KINDS as readonly string[]).includes(kind)) throw bad(`kind is ${JSON.stringify(kind.slice(0, 40))}, not one of ${CP_INVOKE_KINDS.join(', ')}`);
  return { seed, groupId, kind: kind as CpInvokeKind, body: opaque(t, 3, 'body') };
}

/**
 * ['ok', value] | ['err', code, message] | ['retry', reason, hint|null]. The code is a
 * GridErrorCode (an unknown one is the receiver's to map); the reasons a member retries for are
 * NOT_LEADER (hint: the leader's cpUuid, when known), UNKNOWN_GROUP, BUSY and INDETERMINATE.
 */
export type CpInvokeAnswer =
  | { readonly tag: 'ok'; readonly value: WireValue }
  | { readonly tag: 'err'; readonly code: string; readonly message: string }
  | { readonly tag: 'retry'; readonly reason: string; readonly hint?: string };

export function encodeCpInvokeAnswer(a: CpInvokeAnswer): WireValue {
  switch (a.tag) {
    case 'ok':
      return ['ok', a.value];
    case 'err':
      return ['err', a.code, a.message];
    case 'retry':
      return ['retry', a.reason, a.hint ?? null];
  }
}

export function decodeCpInvokeAnswer(v: WireValue): CpInvokeAnswer {
  const t = f.tuple(v, 'cp answer');
  const tag = f.str(t, 0, 'tag');
  switch (tag) {
    case 'ok':
      return { tag, value: opaque(t, 1, 'value') };
    case 'err':
      return { tag, code: id(t, 1, 'code'), message: f.str(t, 2, 'message') };
    case 'retry': {
      const reason = id(t, 1, 'reason');
      const hint = f.optStr(t, 2, 'hint');
      if (hint === '') throw bad('hint is an empty string');
      return { tag, reason, hint };
    }
    default:
      throw bad(`tag is ${JSON.stringify(tag.slice(0, 40))}, not ok, err or retry`);
  }
}

// ---- CpView (72), one-way

/** [view]. */
export interface CpViewPayload {
  readonly view: CpView;
}

export function encodeCpView(p: CpViewPayload): WireValue {
  return [encodeWireCpView(p.view)];
}

export function decodeCpView(v: WireValue): CpViewPayload {
  const t = f.tuple(v, 'cp view');
  return { view: decodeWireCpView(t[0] ?? null, 'view') };
}

// ---- CpFetchView (73): [] (encodeEmpty) -> view|null

export interface CpFetchViewAnswer {
  /** Absent (null on the wire): the member knows no CP subsystem yet. */
  readonly view?: CpView;
}

export function encodeCpFetchViewAnswer(a: CpFetchViewAnswer): WireValue {
  return a.view === undefined ? null : encodeWireCpView(a.view);
}

export function decodeCpFetchViewAnswer(v: WireValue): CpFetchViewAnswer {
  return { view: v === null ? undefined : decodeWireCpView(v, 'view') };
}

// ---- CpDiscover (74): [] (encodeEmpty) -> [cpUuid, seed, leaving]

/** The member's CP identity; seed 0: it knows no CP subsystem; leaving: it is shutting down (not to be promoted). */
export interface CpDiscoverAnswer {
  readonly cpUuid: string;
  readonly seed: number;
  readonly leaving: boolean;
}

export function encodeCpDiscoverAnswer(a: CpDiscoverAnswer): WireValue {
  return [a.cpUuid, a.seed, a.leaving];
}

export function decodeCpDiscoverAnswer(v: WireValue): CpDiscoverAnswer {
  const t = f.tuple(v, 'cp discover answer');
  return { cpUuid: id(t, 0, 'cpUuid'), seed: nat(t, 1, 'seed'), leaving: f.bool(t, 2, 'leaving') };
}

// ---- CpBootstrap (75): -> accepted (boolean)

/** [seed, groupSize, [[cpUuid, memberUuid, address], ...]]: 1..n distinct CP members; groupSize 1..n. */
export interface CpBootstrapPayload {
  readonly seed: number;
  readonly groupSize: number;
  readonly members: readonly CpMemberRec[];
}

export function encodeCpBootstrap(p: CpBootstrapPayload): WireValue {
  return [p.seed, p.groupSize, p.members.map(encodeCpMember)];
}

export function decodeCpBootstrap(v: WireValue): CpBootstrapPayload {
  const t = f.tuple(v, 'cp bootstrap');
  const seed = seedOf(t, 0, 'seed');
  const groupSize = nat(t, 1, 'groupSize');
  const members = decodeCpMembers(t, 2, 'members');
  if (members.length === 0) throw bad('members is empty');
  const seen = new Map<string, number>();
  members.forEach((m, j) => {
    const first = seen.get(m.cpUuid);
    if (first !== undefined) throw bad(`members[${j}].cpUuid repeats members[${first}].cpUuid`);
    seen.set(m.cpUuid, j);
  });
  if (groupSize < 1 || groupSize > members.length) throw bad(`groupSize is ${groupSize}, not in [1, ${members.length}] (the members)`);
  return { seed, groupSize, members };
}

// ---- CpReset (76): -> null

/** [newSeed]: the seed the subsystem forms again under. */
export interface CpResetPayload {
  readonly seed: number;
}

export const { encode: encodeCpReset, decode: decodeCpReset } = recordTuple<CpResetPayload>('cp reset', [['seed', seedOf, 'seed']]);
