// What other layers (REST, the member) see of the CP subsystem: the facade's interface and the
// shapes of its answers. Types only; cp-service.ts implements CpFacade and re-exports them.

import type { CpLockInfo, CpSessionInfo } from './cp-data-state.js';

/** A CP member as the REST answers show it (Hazelcast's shape). */
export interface CpMemberView {
  readonly uuid: string;
  readonly address: string;
}

export interface CpGroupView {
  readonly id: { readonly name: string; readonly id: number };
  readonly status: 'ACTIVE';
  readonly members: readonly CpMemberView[];
}

/** A CP group as Hazelcast's clients name it (RaftGroupId): the subsystem's seed, the group's id and name. */
export interface CpGroupId {
  readonly seed: number;
  readonly id: number;
  readonly name: string;
}

export interface CpLockResult {
  readonly acquired: boolean;
  readonly fence: number;
  readonly sessionId: number;
  readonly lockCount: number;
  readonly group: string;
}

/** What the REST layer may do with the CP subsystem. */
export interface CpFacade {
  readonly enabled: boolean;
  groups(): Promise<{ name: string; id: number }[]>;
  group(name: string): Promise<CpGroupView | undefined>;
  sessions(group: string): Promise<CpSessionInfo[] | undefined>;
  closeSession(group: string, sessionId: number): Promise<boolean>;
  destroyGroup(name: string): Promise<void>;
  members(): Promise<CpMemberView[]>;
  localMember(): CpMemberView | undefined;
  promote(): Promise<void>;
  removeMember(cpUuid: string): Promise<void>;
  reset(): Promise<void>;
  atomicLong(name: string): Promise<string>;
  setAtomicLong(name: string, value: string): Promise<string>;
  addAndGet(name: string, delta: string): Promise<string>;
  compareAndSet(name: string, expect: string, update: string): Promise<boolean>;
  /** Sets the value; answers the one it replaced. */
  getAndSet(name: string, value: string): Promise<string>;
  /** Adds the delta; answers the value before. */
  getAndAdd(name: string, delta: string): Promise<string>;
  /** The group of `name@group` (created on first use): the RaftGroupId Hazelcast's clients send with each call. */
  groupIdOf(name: string): Promise<CpGroupId>;
  lock(name: string, opts: { sessionId: number; timeoutMs: number; endpoint: string; endpointName: string; onGone?: (fn: () => void) => void }): Promise<CpLockResult>;
  unlock(name: string, sessionId: number): Promise<number>;
  lockInfo(name: string): Promise<CpLockInfo & { group: string }>;
  heartbeat(group: string, sessionId: number): Promise<{ sessionId: number; expirationTime: number }>;
  /** Raft figures of the groups this member hosts (GET /rest/cp). */
  status(): CpLocalStatus;
}

export interface CpLocalStatus {
  readonly enabled: boolean;
  readonly seed: number | undefined;
  readonly cpMemberUuid: string | undefined;
  readonly viewVersion: number | undefined;
  readonly groups: readonly { name: string; id: number; role: string; term: number; leader: string | undefined; commitIndex: number; lastApplied: number; members: readonly string[] }[];
}
