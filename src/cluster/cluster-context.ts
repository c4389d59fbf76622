// The membership state every concern of the cluster service shares: this member, the member
// list and its version, the cluster state machine, the node state, liveness (detector,
// suspects, connection monitors) and the flags of a removal, a membership check, a leave or a
// merge; with the reads derived from them and the event emitter. The concern modules (join,
// member list, heartbeats, take-over, state change, leave, fencing, split-brain merge) each
// hold a reference to it and keep their own private state to themselves.

import { EventEmitter } from 'node:events';
import type { Clock, TimerHandle } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MemberNet } from '../net/member-net.js';
import { DeadlineFailureDetector } from './failure-detector.js';
import { ClusterStateMachine, type StateTransition } from './state-machine.js';
import type { ClusterEvent, ClusterState, MemberInfo, NodeState } from './types.js';

export interface ClusterTuning {
  readonly heartbeatIntervalMs: number;
  readonly maxNoHeartbeatMs: number;
  readonly connectionMonitorMaxFaults: number;
  readonly connectionMonitorIntervalMs: number;
  /** How long a member keeps trying to join before giving up. */
  readonly maxJoinMs: number;
  /** Timeout of cluster-internal calls (join, member list, state change). */
  readonly callTimeoutMs: number;
  /** grid.debug.ignore-messages (tests only): member messages to ignore on purpose. */
  readonly ignoreMessages?: string;
  /** hazelcast.merge.first.run.delay.seconds: when the master first looks for another cluster of the same name (split brain). */
  readonly mergeFirstRunDelayMs?: number;
  /** hazelcast.merge.next.run.delay.seconds: how often it looks again. */
  readonly mergeNextRunDelayMs?: number;
}

/** A state change's lock lapses after this long (a master that died mid-change). */
const STATE_LOCK_MS = 30_000;

export class ClusterContext {
  readonly clusterName: string;
  local: MemberInfo;
  /** Join order: the first is the master. Only the master changes it (member-list.ts). */
  memberList: MemberInfo[];
  listVersion = 0;
  /** The committed cluster state, its version and the lock of a change in progress. */
  readonly states = new ClusterStateMachine(STATE_LOCK_MS);
  node: NodeState = 'STARTING';
  readonly net: MemberNet | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: ClusterTuning;
  /** Expanded `host:port` addresses to ask when joining. */
  readonly joinAddresses: () => readonly string[];
  readonly detector: DeadlineFailureDetector;
  readonly suspected = new Set<string>();
  /** Reconnect attempts to members whose connection closed, by address (heartbeats.ts). */
  readonly monitors = new Map<string, TimerHandle>();
  /** Removed from the cluster by its master: this member takes nothing from anyone and stops. */
  removed = false;
  /** Checking, after a pause or a refusal, that this member still belongs to the cluster (pause-fencing.ts). */
  fencedSince: number | undefined;
  /** Wall-clock ms since which this member is master (compared with another cluster's after a split brain). */
  masterSince: number | undefined;
  /** Leaving gracefully: heartbeats go on while shutting down. */
  leaving = false;
  merging = false;
  /** Set by the partition layer: move every partition replica off `uuid`; resolves when done. */
  handOff: ((uuid: string) => Promise<void>) | undefined;
  private readonly events = new EventEmitter();

  constructor(deps: { clusterName: string; local: MemberInfo; net: MemberNet | undefined; clock: Clock; logger: Logger; tuning: ClusterTuning; joinAddresses: () => readonly string[] }) {
    this.clusterName = deps.clusterName;
    this.local = deps.local;
    this.memberList = [deps.local];
    this.net = deps.net;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.tuning = deps.tuning;
    this.joinAddresses = deps.joinAddresses;
    this.detector = new DeadlineFailureDetector(deps.tuning.maxNoHeartbeatMs);
  }

  joined(): boolean {
    return this.node === 'ACTIVE' || (this.node === 'SHUTTING_DOWN' && this.listVersion > 0);
  }

  isShuttingDown(): boolean {
    return this.node === 'SHUTTING_DOWN' || this.node === 'SHUT_DOWN';
  }

  /** A removed or fenced member never acts as master, whatever its old list says. */
  isMaster(): boolean {
    return this.joined() && this.memberList[0]?.uuid === this.local.uuid && !this.removed && this.fencedSince === undefined;
  }

  master(): MemberInfo | undefined {
    return this.memberList[0];
  }

  memberByUuid(uuid: string): MemberInfo | undefined {
    return this.memberList.find((m) => m.uuid === uuid);
  }

  /** The state as the REST layer shows it: IN_TRANSITION while a change holds the lock. */
  state(): ClusterState {
    return this.states.visible(this.clock.now());
  }

  on(listener: (e: ClusterEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  emit(e: ClusterEvent): void {
    try {
      this.events.emit('event', e);
    } catch (err) {
      // A listener's failure must not stop membership (or the process, from a timer).
      this.logger.error({ err }, `cluster event ${e.type} handling failed: ${describeError(err)}`);
    }
  }

  emitState(t: StateTransition | undefined): void {
    if (t !== undefined) this.emit({ type: 'stateChanged', from: t.from, to: t.to });
  }

  noteMaster(): void {
    if (this.memberList[0]?.uuid !== this.local.uuid) this.masterSince = undefined;
    else this.masterSince ??= Date.now();
  }

  /** `m` left the member list: forget its liveness and close its connections (later messages to its address go over new ones). */
  forgetMember(m: MemberInfo): void {
    this.net?.closeMember(m.uuid, m.address);
    this.detector.forget(m.uuid);
    this.suspected.delete(m.uuid);
    this.monitors.get(m.address)?.cancel();
    this.monitors.delete(m.address);
  }
}
