// The cluster's side of the member protocol: the message gate (member-rules.ts' `admit`, plus
// grid.debug.ignore-messages for tests) and one handler per membership message, each decoding
// its payload and handing it to the concern module that owns it. Registered once, at construction.

import { GridError } from '../core/errors.js';
import { Msg, messageName } from '../protocol/messages.js';
import {
  decodeChangeState,
  decodeDiscover,
  decodeEmpty,
  decodeHeartbeat,
  decodeJoin,
  decodeLeave,
  decodeMembers,
  decodeMergeTo,
  decodeStateCommit,
  decodeStatePrepare,
  decodeStateRollback,
} from '../protocol/payloads.js';
import type { MemberNet } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import type { ClusterStateChange } from './cluster-state-change.js';
import type { Heartbeats } from './heartbeats.js';
import type { Join } from './join.js';
import type { LeaveAndShutdown } from './leave-and-shutdown.js';
import { admit, type GateView } from './member-rules.js';
import type { MemberList } from './member-list.js';
import { DEBUG_SWITCHES, applyMessageFault, parseMessageFaults } from '../core/test-hooks.js';
import type { SplitBrainMerge } from './split-brain-merge.js';

/** The concern modules the handlers dispatch to. */
export interface ClusterHandlerTargets {
  readonly join: Join;
  readonly list: MemberList;
  readonly heartbeats: Heartbeats;
  readonly stateChange: ClusterStateChange;
  readonly leave: LeaveAndShutdown;
  readonly splitBrain: SplitBrainMerge;
}

/** Refuse what a peer may not send (and, in tests, what grid.debug.ignore-messages says to ignore). */
export function installMessageGate(net: MemberNet, ctx: ClusterContext): void {
  const gateView: GateView = {
    get joined() {
      return ctx.joined();
    },
    get removed() {
      return ctx.removed;
    },
    get masterUuid() {
      return ctx.memberList[0]?.uuid;
    },
    isMember: (uuid) => ctx.memberList.some((m) => m.uuid === uuid),
  };
  const logger = ctx.logger;
  const faults = parseMessageFaults(ctx.tuning.ignoreMessages ?? '', Msg);
  const sw = DEBUG_SWITCHES.ignoreMessages;
  for (const p of faults.problems) logger.warn(`${sw}: ${p}`);
  if (faults.rules.length > 0) logger.warn(`${sw} is set: this member ignores some member messages on purpose (for tests only)`);
  net.setGate((type, from) => {
    const refusal = admit(type, from.peer?.uuid ?? '', gateView);
    if (refusal !== undefined || faults.rules.length === 0) return refusal;
    const fault = applyMessageFault(faults.rules, type);
    if (fault === undefined) return undefined;
    logger.warn(`${messageName(type)} from ${from.describe()} ignored on purpose (${sw})`);
    return fault === 'drop' ? 'drop' : new GridError('CONFLICT', `${messageName(type)} refused on purpose (${sw})`);
  });
}

export function registerClusterHandlers(net: MemberNet, t: ClusterHandlerTargets): void {
  net.handle(Msg.Discover, (p) => t.join.onDiscover(decodeDiscover(p).address));
  net.handle(Msg.Join, (p, from) => t.join.onJoin(decodeJoin(p).member, from));
  net.handle(Msg.Members, (p, from) => {
    t.list.apply(decodeMembers(p), from);
    return null;
  });
  net.handle(Msg.FetchState, (p) => {
    decodeEmpty(p, 'fetch state');
    return t.list.encode();
  });
  net.handleOneWay(Msg.Heartbeat, (p, from) => t.heartbeats.onHeartbeat(decodeHeartbeat(p), from));
  net.handle(Msg.ChangeState, (p) => t.stateChange.change(decodeChangeState(p).state));
  net.handle(Msg.StatePrepare, (p) => {
    t.stateChange.onPrepare(decodeStatePrepare(p));
    return null;
  });
  net.handle(Msg.StateCommit, (p) => {
    t.stateChange.onCommit(decodeStateCommit(p));
    return null;
  });
  net.handle(Msg.StateRollback, (p) => {
    t.stateChange.onRollback(decodeStateRollback(p).txId);
    return null;
  });
  net.handle(Msg.LeaveRequest, (p, from) => t.leave.onLeaveRequest(decodeLeave(p).uuid, from));
  net.handleOneWay(Msg.Leave, (p, from) => t.leave.onLeave(decodeLeave(p).uuid, from));
  net.handle(Msg.MergeTo, (p, from) => {
    t.splitBrain.onMergeTo(decodeMergeTo(p).target, from);
    return null;
  });
  net.handleOneWay(Msg.ClusterShutdown, (p) => {
    decodeEmpty(p, 'cluster shutdown');
    t.leave.onClusterShutdown();
  });
}
