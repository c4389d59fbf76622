// Who may tell this member what. Pure rules, no I/O: whether an authenticated peer may send a
// message type at all (member of the cluster, master-only messages from the master), whether a
// pushed member list is accepted, and whether a partition-scoped write (backup, migration copy)
// comes from the replica entitled to send it. The services call these before acting; the unit
// tests drive them through every case, including randomized sequences of joins and removals.

import { GridError } from '../core/errors.js';
import { Msg, messageName } from '../protocol/messages.js';

/** Who may send a message: anyone authenticated, a current member, or only the master. */
export type Authority = 'open' | 'member' | 'master';

/**
 * Open messages come from members that are not in the list yet (Discover, Join, FetchState), or are judged
 * by their own handler against the payload (Members: the list rules below; Heartbeat: a
 * non-member's beat is answered by telling it it was removed).
 */
export const AUTHORITY: Readonly<Record<number, Authority>> = {
  [Msg.Discover]: 'open',
  [Msg.Join]: 'open',
  [Msg.Members]: 'open',
  [Msg.Heartbeat]: 'open',
  [Msg.FetchState]: 'open', // read-only; a member back from a pause asks it to learn whether it was removed
  [Msg.Ping]: 'open', // answered by MemberNet before the gate: a connection-level probe
  [Msg.FetchTable]: 'member',
  [Msg.Operation]: 'member',
  [Msg.OperationGroup]: 'member',
  [Msg.Backup]: 'member',
  [Msg.PartitionData]: 'member',
  [Msg.ChangeState]: 'member',
  [Msg.LeaveRequest]: 'member',
  [Msg.Leave]: 'member',
  [Msg.ClusterShutdown]: 'member',
  [Msg.PollCancel]: 'member',
  // Anti-entropy: each partition in the payload is checked against the receiver's table
  // (versions and copies only from the partition's owner, copies sent only by the owner).
  [Msg.ReplicaVersions]: 'member',
  [Msg.ReplicaSyncRequest]: 'member',
  [Msg.ReplicaSyncData]: 'member',
  // WAN inside a cluster. (WanAuth/WanBatch/WanMerkle/WanPing come on WAN connections, which never reach the gate.)
  [Msg.WanSyncStart]: 'member',
  [Msg.WanSyncStatus]: 'member',
  [Msg.WanAddConfig]: 'member',
  [Msg.WanConfigs]: 'member',
  [Msg.WanBackupAck]: 'member',
  [Msg.WanAuth]: 'member',
  [Msg.WanBatch]: 'member',
  [Msg.WanMerkle]: 'member',
  [Msg.WanPing]: 'member',
  [Msg.PersistenceCommand]: 'member',
  [Msg.RecoveryState]: 'member',
  [Msg.RecoveryDrop]: 'master',
  // CP: Raft tolerates late, duplicate and stale messages by itself (terms, indexes, seeds).
  [Msg.CpRaft]: 'member',
  [Msg.CpInvoke]: 'member',
  [Msg.CpView]: 'member',
  [Msg.CpFetchView]: 'member',
  [Msg.CpDiscover]: 'member',
  [Msg.CpBootstrap]: 'master',
  [Msg.CpReset]: 'member',
  // Change events: interest is versioned per sender, events deduplicated by (partition, epoch, sequence).
  [Msg.EventInterest]: 'member',
  [Msg.MapEvents]: 'member',
  [Msg.QueueEventInterest]: 'member',
  [Msg.QueueEvents]: 'member',
  // Read-only figures for the web console: a removed member gets nothing.
  [Msg.MemberReport]: 'member',
  [Msg.PartitionTable]: 'master',
  [Msg.Migrate]: 'master',
  [Msg.MigrateEnd]: 'master',
  [Msg.StatePrepare]: 'master',
  [Msg.StateCommit]: 'master',
  [Msg.StateRollback]: 'master',
  [Msg.MergeTo]: 'master',
};

export interface GateView {
  /** This member belongs to a cluster (has a member list from a master, or formed one). */
  readonly joined: boolean;
  /** This member was removed from its cluster: it takes nothing from anyone. */
  readonly removed: boolean;
  readonly masterUuid: string | undefined;
  isMember(uuid: string): boolean;
}

/** Whether `sender` may send a message of `type`: undefined when it may, else the refusal it gets. */
export function admit(type: number, sender: string, view: GateView): GridError | undefined {
  const authority = AUTHORITY[type] ?? 'open';
  if (authority === 'open') return undefined;
  if (view.removed) return new GridError('NOT_MEMBER', `${messageName(type)} refused: this member was removed from its cluster`);
  if (!view.joined) return new GridError('NOT_MEMBER', `${messageName(type)} refused: this member has not joined a cluster yet`);
  if (!view.isMember(sender)) return new GridError('NOT_MEMBER', `${messageName(type)} refused: member ${sender} is not a member of this cluster`);
  if (authority === 'master' && sender !== view.masterUuid) {
    return new GridError('NOT_MEMBER', `${messageName(type)} refused: member ${sender} is not the master of this cluster`);
  }
  return undefined;
}

// ---------------------------------------------------------------------------- member lists

export interface ListReceiver {
  readonly localUuid: string;
  readonly joined: boolean;
  readonly shuttingDown: boolean;
  readonly version: number;
  /** This member's list, oldest first (the first one is the master). */
  readonly members: readonly string[];
  isSuspected(uuid: string): boolean;
}

export type ListVerdict =
  | { readonly action: 'accept' }
  | { readonly action: 'ignore'; readonly reason: string }
  /** The list comes from this member's cluster and leaves this member out: it was removed. */
  | { readonly action: 'removed' };

/**
 * Whether to take a member list of `version` naming `list` (oldest first), pushed by `sender`
 * (undefined: the answer to our own Join). Lists come from the master they name, or from our
 * master handing mastership over; a member taking over must be the oldest one alive as far as
 * this member can tell, so one that only thinks the master is gone (it was paused) cannot take
 * the cluster; a list from a non-member (one removed while paused) is never taken.
 */
export function judgeMemberList(version: number, list: readonly string[], sender: string | undefined, me: ListReceiver): ListVerdict {
  if (me.joined && version <= me.version) return { action: 'ignore', reason: `version ${version} is not newer than ${me.version}` };
  if (list.length === 0) return { action: 'ignore', reason: 'empty member list' };
  if (new Set(list).size !== list.length) return { action: 'ignore', reason: 'a member is listed twice' };
  if (sender !== undefined) {
    const myMaster = me.members[0];
    if (list[0] !== sender && myMaster !== sender) return { action: 'ignore', reason: `sent by ${sender}, which is not its master` };
    if (me.joined && sender !== myMaster) {
      const at = me.members.indexOf(sender);
      if (at === -1) return { action: 'ignore', reason: `sent by ${sender}, which is not a member of this cluster` };
      const olderAlive = me.members.slice(0, at).find((u) => u !== me.localUuid && !me.isSuspected(u));
      if (olderAlive !== undefined) return { action: 'ignore', reason: `${sender} claims to be master, but ${olderAlive} is older and alive here` };
    }
  }
  if (!list.includes(me.localUuid)) {
    if (me.joined && !me.shuttingDown && sender !== undefined) return { action: 'removed' };
    return { action: 'ignore', reason: 'this member is not in it' };
  }
  return { action: 'accept' };
}

// ---------------------------------------------------------------------------- fencing

/**
 * A member back from a pause asked the others for their lists. It was removed when one of them
 * has a newer list without it, whose master was a member of this member's own list (the
 * cluster it belonged to moved on without it); a list from some other cluster proves nothing.
 */
export function removedWhilePaused(
  me: { readonly localUuid: string; readonly version: number; readonly members: readonly string[] },
  answer: { readonly version: number; readonly members: readonly string[] },
): boolean {
  const master = answer.members[0];
  return answer.version > me.version && master !== undefined && !answer.members.includes(me.localUuid) && me.members.includes(master);
}

// ---------------------------------------------------------------------------- partition writes

/**
 * Whether a backup or a migration copy of partition data from `sender` is taken: it must come
 * from the partition's owner in this member's table, or from a member whose table (`stamp`) is
 * newer than ours (ours has not caught up with a commit yet). A member with an older view (a
 * former owner back from a pause, a migration source the master has since overridden) is refused.
 */
export function admitPartitionWrite(
  what: string,
  partitionId: number,
  sender: string,
  stamp: number | undefined,
  table: { readonly version: number; readonly owner: string | undefined },
): GridError | undefined {
  if (table.owner === sender) return undefined;
  if (stamp !== undefined && stamp > table.version) return undefined;
  return new GridError(
    'STALE_VIEW',
    `${what} for partition ${partitionId} refused: sender ${sender} is not its owner here (table ${table.version}${stamp === undefined ? '' : `, sender's ${stamp}`})`,
  );
}

/** Whether a state-change message from the master carries a member-list version at least as new as ours. */
export function admitStateChange(what: string, stamp: number | undefined, myVersion: number): GridError | undefined {
  if (stamp === undefined || stamp >= myVersion) return undefined;
  return new GridError('STALE_VIEW', `${what} refused: sent with member list version ${stamp}, this member has ${myVersion}`);
}
