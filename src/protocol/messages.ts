// The member protocol's message table. A message type is a u16 in the frame header; the
// payload is one WireValue (mostly a tuple). Types are never renumbered: a new message gets a
// new number, and a changed payload shape gets a new type (the preamble carries the protocol
// version for incompatible changes of the framing itself). Each payload below has a typed
// encode/decode pair in payloads.ts (WAN: wan-payloads.ts, CP: cp-payloads.ts), pinned on bytes
// in the matching test/unit/protocol/*.test.ts; `x?` is an optional trailing field (absent from
// older senders, read as undefined).

export const Msg = {
  /** First request on every connection: [clusterName, uuid, address, username|null, password|null, version?] -> [uuid, address]. */
  Auth: 1,
  /** Before joining: [uuid, address] -> [uuid, address, joined, masterAddress|null]. */
  Discover: 2,
  /** To the master: [member tuple] -> [redirectAddress|null, member list (as in Members)|null, refusal?]. */
  Join: 3,
  /** Master -> all: [version, members[], clusterState, stateVersion?, masterSince|null?] -> null. A member is [uuid, address, host, port, lite, version]. */
  Members: 4,
  /** One-way, every member to every member: [uuid, membersVersion, clusterState?, stateVersion?, stateChangeTxId|null?] (the state part: the master's, read from the master only). */
  Heartbeat: 5,
  /** Master -> all, one-way: [tableVersion, uuids[], rows[][] (indexes into uuids, owner first), migrationQueueSize?]. */
  PartitionTable: 6,
  /** Caller -> owner: [service, type, partitionId, args[], invocationId|null] -> the service's encoded result (args and result belong to the service). */
  Operation: 7,
  /** Owner -> backup: [service, type, partitionId, args[], tableVersion?, replicaIndex?, version?] -> null (sync) or one-way (async); version: the owner's count of backups sent to that replica index of the partition. Refused unless the sender owns the partition in the receiver's table or its table is newer. */
  Backup: 8,
  /** Master -> owner: [partitionId, replicas[], previousReplicas[]] -> null once every copy is acknowledged (refused when the owner's row differs from previousReplicas). */
  Migrate: 9,
  /** Owner -> new replica: [partitionId, replicaIndex, data per service {service: data}, tableVersion?, versions[]?] -> null (versions: the owner's backup counters taken with the copy). Refused unless the sender owns the partition in the receiver's table or its table is newer. */
  PartitionData: 10,
  /** Master -> all: [txId, state, membersVersion?] -> null (the member locks its state for txId). */
  StatePrepare: 11,
  /** Master -> all: [txId, state, membersVersion?, stateVersion?] -> null. */
  StateCommit: 12,
  /** Master -> all: [txId] -> null. */
  StateRollback: 13,
  /** Any member -> master: [state] -> changed (boolean). */
  ChangeState: 14,
  /** Leaving member -> master: [uuid] -> null once its partitions were handed over. */
  LeaveRequest: 15,
  /** Any member -> every member: [] one-way; each member shuts down (cluster is PASSIVE). */
  ClusterShutdown: 16,
  /** Any member -> members: [] -> the member list as in Members. */
  FetchState: 17,
  /** Caller -> owner, one-way: [callerUuid, invocationId]: the client of a waiting poll has gone. */
  PollCancel: 18,
  /** Leaving member -> master, one-way: [uuid]: remove me now (after hand-off, or when there is nothing to hand off). */
  Leave: 19,
  /** New master -> members: [] -> the member's partition table (as in PartitionTable). */
  FetchTable: 20,
  /** Master -> migration source, one-way: [partitionId]: the migration will not be committed; take writes again. */
  MigrateEnd: 21,
  // 22-29 left for messages being added alongside anti-entropy; numbers need not be contiguous.
  /** Owner -> backup, one-way, on the connection that carries its backups: [tableVersion, [[partitionId, replicaIndex, version], ...]]: the backup operations sent so far per partition it owns there (anti-entropy round). */
  ReplicaVersions: 30,
  /** Backup -> owner, one-way: [tableVersion, [partitionId, ...]]: send full copies of these partitions (their backups here differ from the owner). */
  ReplicaSyncRequest: 31,
  /** Owner -> backup: [partitionId, replicaIndex, data per service {service: data}, versions[], tableVersion] -> null. The copy and its versions were taken together; refused unless the sender owns the partition in the receiver's table or its table is newer. */
  ReplicaSyncData: 32,
  /** Master -> members of its cluster: [targetMasterAddress] -> null: a split brain healed and this cluster is the smaller: merge into the other one. */
  MergeTo: 40,
  /** Any member -> a member it dialled: [] -> null, answered by the connection layer (before any gate): the connection still delivers (sent when it was written to and heard nothing back for a while). */
  Ping: 41,
  // WAN replication (payloads in wan-payloads.ts). 50-52 and 58 travel between clusters on a WAN connection.
  /** First request on a WAN connection (instead of Auth): [sourceCluster, targetCluster, uuid, address, username|null, password|null, version] -> [clusterName, uuid]. */
  WanAuth: 50,
  /** Source -> target, WAN connection: [sourceCluster, ackOnReceipt, events[]] -> number applied. */
  WanBatch: 51,
  /** Source -> target, WAN connection: [mapName, partitionId, level] -> [level, int32 hashes]: the target's Merkle tree level. */
  WanMerkle: 52,
  /** Coordinator -> members: [uuid, kind, wanRepName, publisherId, mapNames|null, creationTime, participants[]] -> null: start a sync or consistency check. */
  WanSyncStart: 53,
  /** Any member -> members: [uuid] -> the member's part of that job, or null. */
  WanSyncStatus: 54,
  /** Any member -> members: [json] -> [added ids[], ignored ids[]]: add a WAN replication config (addWanConfig). */
  WanAddConfig: 55,
  /** A member that joined -> master: [] -> [json...]: the WAN configs added at run time. */
  WanConfigs: 56,
  /** Owner -> backups, one-way: [wanRepName, publisherId, [partitionId, throughSequence, ...]]: events acknowledged by the target. */
  WanBackupAck: 57,
  /** Source -> target, WAN connection: [heartbeatTimeoutMs] -> null: a liveness probe, answered at once (whatever batches are being applied). */
  WanPing: 58,
  /** Any member -> every member: [command ('partialStart'|'forceStart'|'backup'|'backupInterrupt'), sequence] -> [accepted, message]: the PERSISTENCE endpoints. */
  PersistenceCommand: 60,
  /** Restarting master -> members: [withRows] -> [persistedTableVersion (0: not restarting), fingerprint, table|null]. */
  RecoveryState: 61,
  /** Restarting master -> a member, one-way: []: a partial start keeps other members' data; drop yours when the table comes. */
  RecoveryDrop: 62,
  // CP subsystem (src/cp/cp-service.ts; payloads and the Raft messages in cp-payloads.ts).
  /** One-way, CP member -> CP member: [seed, groupId, fromCpUuid, toCpUuid, raftMessage]. */
  CpRaft: 70,
  /** Any member -> a CP group member: [seed, groupId, kind ('cmd'|'read'|'change'), body] -> ['ok', value] | ['err', code, message] | ['retry', reason, leaderHint|null]. */
  CpInvoke: 71,
  /** One-way, METADATA leader (or any member answering a fetch) -> members: [view]: the CP members and groups; a view is [seed, version, groupSize, initialCpMembers[], cpMembers[], groups[]], a CP member [cpUuid, memberUuid, address], a group [name, id, initialMembers[], members[]]. */
  CpView: 72,
  /** Any member -> a member: [] -> view|null: the member's view of the CP subsystem. */
  CpFetchView: 73,
  /** Master -> a member: [] -> [cpUuid, seed (0: none), leaving]: the member's CP identity, before the CP subsystem forms or to promote it (not while leaving: shutting down). */
  CpDiscover: 74,
  /** Master -> the first cp-member-count members: [seed, groupSize, [[cpUuid, memberUuid, address], ...]] -> accepted: form the CP subsystem. */
  CpBootstrap: 75,
  /** Any member -> every member: [newSeed] -> null: wipe the CP state (reset); the master forms the subsystem again under newSeed. */
  CpReset: 76,
  // Change events (src/events/; payloads in event-payloads.ts).
  /** A member with listeners -> every member: [version, mapNames[]] -> null: the maps whose events it wants now (the whole set; an older version is ignored). */
  EventInterest: 80,
  /** Partition owner -> an interested member, one-way: [11 values per event]: change events of its partitions, in sequence order per partition. */
  MapEvents: 81,
  /** A member with queue listeners -> every member: [version, queueNames[]] -> null: the queues whose events it wants now (the whole set; an older version is ignored). */
  QueueEventInterest: 82,
  /** A queue's owner -> an interested member, one-way: [8 values per event]: change events of its queues, in sequence order per queue. */
  QueueEvents: 83,
  // The web console's member figures (src/member/member-monitor.ts; payloads in monitor-payloads.ts).
  /** Any member -> a member: [kind ('status'|'history'|'ops'|'migrations'), seconds] -> [uuid, json]: that member's own figures, read-only (asking twice or late changes nothing). */
  MemberReport: 90,
  // Grouped invocation (invocation/operation-groups.ts).
  /** Caller -> owner: [service, [[partitionId, type, args[]], ...]] -> [[0, result] | [1, code, message], ...]: operations of several partitions this member owns, one answer per item in order (invocation/operation-groups.ts). */
  OperationGroup: 91,
} as const;

export type MessageType = (typeof Msg)[keyof typeof Msg];

const NAMES = new Map<number, string>(Object.entries(Msg).map(([name, id]) => [id, name]));

/** The message's name for logs; `#<n>` for an unknown type. */
export function messageName(type: number): string {
  return NAMES.get(type) ?? `#${type}`;
}

export function isKnownMessage(type: number): boolean {
  return NAMES.has(type);
}
