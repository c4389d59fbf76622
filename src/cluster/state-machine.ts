// The cluster state as one member holds it: the committed state and its version, and the lock
// of a two-phase change in progress. Pure (time is passed in): the master prepares a change on
// every member (lock), then commits it (or rolls it back); member lists and the master's
// heartbeats carry the committed state, its version and the master's change in progress, so a
// member that missed a commit or a rollback converges on the next one.

import { GridError } from '../core/errors.js';
import type { ClusterState } from './types.js';

export interface StateLock {
  readonly txId: string;
  readonly state: ClusterState;
  readonly until: number;
}

export interface StateTransition {
  readonly from: ClusterState;
  readonly to: ClusterState;
}

/** What following the master's heartbeat did. */
export type FollowResult =
  | { readonly kind: 'adopted'; readonly state: ClusterState; readonly version: number; readonly transition: StateTransition | undefined }
  | { readonly kind: 'released'; readonly txId: string }
  | undefined;

export class ClusterStateMachine {
  private committed: ClusterState = 'ACTIVE';
  private committedVersion = 0;
  private lock: StateLock | undefined;

  constructor(private readonly lockMs: number) {}

  /** The committed state (a change in progress aside). */
  get state(): ClusterState {
    return this.committed;
  }

  /** Bumped by the master on every commit. */
  get version(): number {
    return this.committedVersion;
  }

  /** The state as the REST layer shows it: IN_TRANSITION while a change holds the lock. */
  visible(now: number): ClusterState {
    return this.lockedTx(now) !== undefined ? 'IN_TRANSITION' : this.committed;
  }

  /** The change holding the lock now, if any (a lock lapses after `lockMs`). */
  lockedTx(now: number): string | undefined {
    return this.lock !== undefined && this.lock.until > now ? this.lock.txId : undefined;
  }

  /** Phase one: lock `to` for `txId`; refused while another change holds the lock. */
  prepare(txId: string, to: ClusterState, now: number, shuttingDown: boolean): void {
    if (this.lock !== undefined && this.lock.until > now && this.lock.txId !== txId) {
      throw new GridError('CONFLICT', 'another cluster state change is in progress');
    }
    if (shuttingDown && to !== 'PASSIVE') throw new GridError('MEMBER_SHUTTING_DOWN', 'member is shutting down');
    this.lock = { txId, state: to, until: now + this.lockMs };
  }

  /**
   * Phase two: take `to` under `version` (undefined from an older master: one more than ours).
   * A commit for another change than the one holding the lock is ignored.
   */
  commit(txId: string, to: ClusterState, version: number | undefined): StateTransition | undefined {
    if (this.lock !== undefined && this.lock.txId !== txId) return undefined;
    this.lock = undefined;
    this.committedVersion = Math.max(this.committedVersion, version ?? this.committedVersion + 1);
    return this.set(to);
  }

  rollback(txId: string): void {
    if (this.lock?.txId === txId) this.lock = undefined;
  }

  /** The master's heartbeat: take a newer committed state; release a lock the master no longer holds. */
  followMaster(state: ClusterState, version: number, masterTx: string | undefined): FollowResult {
    if (version > this.committedVersion) {
      this.lock = undefined;
      this.committedVersion = version;
      return { kind: 'adopted', state, version, transition: this.set(state) };
    }
    if (version === this.committedVersion && this.lock !== undefined && this.lock.txId !== masterTx) {
      const txId = this.lock.txId;
      this.lock = undefined;
      return { kind: 'released', txId };
    }
    return undefined;
  }

  /** The state of an accepted member list (from the master): taken as it is; its version when it carries one. */
  fromList(state: ClusterState, version: number | undefined): StateTransition | undefined {
    if (version !== undefined) this.committedVersion = Math.max(this.committedVersion, version);
    return this.set(state);
  }

  /** A new master takes the newest committed state any member saw, when newer than its own. */
  takeNewest(state: ClusterState, version: number): StateTransition | undefined {
    if (version <= this.committedVersion) return undefined;
    this.committedVersion = version;
    this.lock = undefined;
    return this.set(state);
  }

  /** Forget everything (this member leaves its cluster to merge into another). */
  reset(): void {
    this.committed = 'ACTIVE';
    this.committedVersion = 0;
    this.lock = undefined;
  }

  private set(to: ClusterState): StateTransition | undefined {
    const from = this.committed;
    if (from === to) return undefined;
    this.committed = to;
    return { from, to };
  }
}
