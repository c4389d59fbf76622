// Heartbeats and failure detection, the shell around the pure failure-detector.ts: the timer
// that sends heartbeats (with the member list version and the committed cluster state), notices
// this process's own pauses and checks for silent members; receiving a heartbeat; monitoring
// closed connections by reconnecting; suspecting a member (the master removes it, the oldest
// survivor of a dead master takes over).

import type { TimerHandle } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import { Msg } from '../protocol/messages.js';
import { encodeHeartbeat, type HeartbeatPayload } from '../protocol/payloads.js';
import type { MemberConnection } from '../net/member-net.js';
import type { ClusterContext } from './cluster-context.js';
import type { ClusterStateChange } from './cluster-state-change.js';
import { MEMBERS_PUSH_TIMEOUT_MS, type MemberList } from './member-list.js';
import type { MasterTakeOver } from './master-takeover.js';
import type { PauseFencing } from './pause-fencing.js';
import type { SettableClusterState } from './types.js';

export class Heartbeats {
  private timer: TimerHandle | undefined;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly fencing: PauseFencing,
    private readonly list: MemberList,
    private readonly stateChange: ClusterStateChange,
    private readonly takeOver: MasterTakeOver,
  ) {}

  /** Start the heartbeat timer once this member belongs to a cluster; false when it already runs (or there is no network). */
  start(): boolean {
    const ctx = this.ctx;
    const net = ctx.net;
    if (this.timer !== undefined || net === undefined) return false;
    const tick = Math.min(ctx.tuning.heartbeatIntervalMs, 1000);
    // A tick that comes this late means this process did not run (SIGSTOP, a frozen VM, a long
    // GC): the others may have removed it meanwhile.
    this.fencing.watch(Math.max(ctx.tuning.maxNoHeartbeatMs / 2, 2 * tick), ctx.clock.now());
    let sinceBeat = Infinity;
    this.timer = ctx.clock.setInterval(() => {
      this.fencing.tick(ctx.clock.now());
      sinceBeat += tick;
      if (sinceBeat >= ctx.tuning.heartbeatIntervalMs) {
        sinceBeat = 0;
        this.send();
      }
      // After the I/O of this loop turn: heartbeats that waited in socket buffers (this process
      // was paused or starved) count before anyone is suspected for silence.
      setImmediate(() => this.checkSilence());
    }, tick);
    net.onOutboundClosed((address) => this.monitor(address));
    return true;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private send(): void {
    const ctx = this.ctx;
    if (ctx.isShuttingDown() && !ctx.leaving) return;
    const payload = encodeHeartbeat({
      uuid: ctx.local.uuid,
      membersVersion: ctx.listVersion,
      clusterState: { state: ctx.states.state as SettableClusterState, version: ctx.states.version, change: ctx.states.lockedTx(ctx.clock.now()) },
    });
    for (const m of ctx.memberList) {
      if (m.uuid !== ctx.local.uuid) ctx.net!.oneWay(m.address, Msg.Heartbeat, payload);
    }
    if (ctx.logger.isLevelEnabled('trace') && ctx.memberList.length > 1) {
      ctx.logger.trace({ to: ctx.memberList.filter((m) => m.uuid !== ctx.local.uuid).map((m) => m.address) }, 'heartbeat sent');
    }
  }

  /** A heartbeat from `from`: it is alive; from the master, its cluster state; a member behind is sent the list again. */
  onHeartbeat(p: HeartbeatPayload, from: MemberConnection): void {
    const ctx = this.ctx;
    const { uuid, membersVersion: theirVersion, clusterState: masterState } = p;
    if (uuid !== from.peer?.uuid) return; // a member beats for itself only
    if (!ctx.memberList.some((m) => m.uuid === uuid)) {
      this.list.tellNonMember(from);
      return;
    }
    ctx.detector.heard(uuid, ctx.clock.now());
    if (ctx.logger.isLevelEnabled('trace')) ctx.logger.trace({ from: from.peer.address, membersVersion: theirVersion }, 'heartbeat received');
    // Heard again: whatever made us suspect it has passed (only the master removes members).
    if (!ctx.isMaster()) ctx.suspected.delete(uuid);
    if (uuid === ctx.memberList[0]?.uuid && uuid !== ctx.local.uuid && masterState !== undefined) {
      this.stateChange.followMaster(masterState.state, masterState.version, masterState.change);
    }
    // A member that missed a push is sent the current list again.
    if (ctx.isMaster() && theirVersion < ctx.listVersion) {
      const m = ctx.memberByUuid(uuid);
      if (m !== undefined) void ctx.net!.request(m.address, Msg.Members, this.list.encode(), MEMBERS_PUSH_TIMEOUT_MS).catch(() => undefined);
    }
  }

  private checkSilence(): void {
    const ctx = this.ctx;
    for (const uuid of ctx.detector.silent(ctx.clock.now())) {
      if (ctx.memberList.some((m) => m.uuid === uuid)) {
        this.suspect(uuid, `no heartbeat for more than ${Math.round(ctx.tuning.maxNoHeartbeatMs / 1000)} s`);
      }
    }
  }

  /** The connection to `address` closed: try to reconnect; repeated failures mean the member is gone. */
  private monitor(address: string): void {
    const ctx = this.ctx;
    if (ctx.monitors.has(address) || ctx.isShuttingDown()) return;
    const member = ctx.memberList.find((m) => m.address === address);
    if (member === undefined || member.uuid === ctx.local.uuid) return;
    let faults = 0;
    const attempt = (): void => {
      ctx.monitors.delete(address);
      if (!ctx.memberList.includes(member) || ctx.node === 'SHUT_DOWN') return;
      ctx.net!.connect(address).then(
        (conn) => {
          if (conn.peer !== undefined && conn.peer.uuid !== member.uuid) {
            this.suspect(member.uuid, `its address ${address} now belongs to member ${conn.peer.uuid}`);
          } else if (!ctx.isMaster()) {
            ctx.suspected.delete(member.uuid);
          }
        },
        (e: unknown) => {
          faults++;
          if (faults >= ctx.tuning.connectionMonitorMaxFaults) {
            this.suspect(member.uuid, `${faults} connection attempts failed (${describeError(e)})`);
          } else {
            ctx.monitors.set(address, ctx.clock.setTimeout(attempt, ctx.tuning.connectionMonitorIntervalMs));
          }
        },
      );
    };
    ctx.monitors.set(address, ctx.clock.setTimeout(attempt, ctx.tuning.connectionMonitorIntervalMs));
  }

  private suspect(uuid: string, reason: string): void {
    const ctx = this.ctx;
    if (ctx.suspected.has(uuid) || uuid === ctx.local.uuid || ctx.node === 'SHUT_DOWN' || this.fencing.fenced()) return;
    const member = ctx.memberByUuid(uuid);
    if (member === undefined) return;
    ctx.suspected.add(uuid);
    this.takeOver.suspected(uuid);
    ctx.logger.warn(`member ${member.address} (${uuid}) is suspected dead: ${reason}`);
    if (ctx.isMaster()) {
      this.list.remove([uuid], reason);
      return;
    }
    // The master is gone: the oldest member still alive takes over.
    this.takeOver.startIfOldest();
  }
}
