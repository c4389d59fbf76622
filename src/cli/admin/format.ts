// What the admin commands print for people: tables and one-line summaries built from the
// members' JSON answers. Pure functions of the answers (no I/O), unit-tested on fixed inputs.

import type { WanConsistencyResult, WanPublisherStatus, WanSyncProgress } from '../../wan/wan-facade.js';

// ---------------------------------------------------------------- answer shapes (as the member sends them)

export interface ClusterAnswer {
  readonly members: readonly { readonly address: string; readonly liteMember: boolean; readonly localMember: boolean; readonly uuid: string; readonly memberVersion: string }[];
  readonly connectionCount: number;
  readonly allConnectionCount: number;
}

export interface PartitionsAnswer {
  readonly version: number;
  readonly partitionCount: number;
  readonly replicaCount: number;
  readonly migrationQueueSize: number;
  readonly clusterSafe: boolean;
  readonly members: readonly { readonly uuid: string; readonly address: string | null; readonly owned: number; readonly backups: number }[];
}

export interface HealthAnswer {
  readonly nodeState: string;
  readonly clusterState: string;
  readonly clusterSafe: boolean;
  readonly migrationQueueSize: number;
  readonly clusterSize: number;
  /** Members with persistence: whether the member log takes writes. */
  readonly persistence?: { readonly state: string; readonly reason?: string; readonly since: number };
}

/**
 * The WAN answers are the member's own types (wan/wan-facade.ts), read tolerantly: states and
 * stages as any string, and an endpoint's since, reason and cause optional: a member of an
 * earlier Grid version does not send them.
 */
export type WanPublisherAnswer = Omit<WanPublisherStatus, 'state' | 'endpoints'> & {
  readonly state: string;
  readonly endpoints: readonly { readonly address: string; readonly status: string; readonly since?: number; readonly reason?: string | null; readonly cause?: string | null }[];
};

export type SyncProgressAnswer = Omit<WanSyncProgress, 'stage'> & { readonly stage: string };

export type ConsistencyAnswer = Omit<WanConsistencyResult, 'stage'> & { readonly stage: string };

export interface CpMemberAnswer {
  readonly uuid: string;
  readonly address: string;
}

export interface CpGroupAnswer {
  readonly id: { readonly name: string; readonly id: number };
  readonly status: string;
  readonly members: readonly CpMemberAnswer[];
}

export interface CpSessionAnswer {
  readonly id: number;
  readonly creationTime: number;
  readonly expirationTime: number;
  readonly version: number;
  readonly endpoint: string;
  readonly endpointType: string;
  readonly endpointName: string;
}

export interface CpStatusAnswer {
  readonly enabled: boolean;
  readonly seed?: number;
  readonly cpMemberUuid?: string;
  readonly viewVersion?: number;
  readonly groups: readonly { name: string; id: number; role: string; term: number; leader?: string; commitIndex: number; lastApplied: number; members: readonly string[] }[];
}

export interface LockAnswer {
  readonly acquired: boolean;
  readonly fence: number;
  readonly sessionId: number;
  readonly lockCount: number;
  readonly group: string;
}

export interface LockInfoAnswer {
  readonly locked: boolean;
  readonly sessionId: number;
  readonly fence: number;
  readonly lockCount: number;
  readonly waiters: number;
  readonly group: string;
}

// ---------------------------------------------------------------- tables

export interface Column {
  readonly title: string;
  /** Right-aligned (numbers). */
  readonly right?: boolean;
}

/** A plain-text table: a header row, then one row per entry, columns two spaces apart, no trailing spaces. */
export function table(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        const w = widths[i]!;
        return c.right ? cell.padStart(w) : cell.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------- status

/**
 * How many copies of each partition there are: the configured count (owner + backups), but
 * never more than there are data members to hold them; then it says what is missing.
 */
export function replicasText(configured: number, dataMembers: number): string {
  const held = Math.max(1, Math.min(configured, dataMembers));
  const each = `${held} replica${held === 1 ? '' : 's'} each`;
  if (held >= configured) return each;
  const backups = configured - 1;
  const missing = configured - held;
  return (
    `${each} (${backups} backup${backups === 1 ? '' : 's'} configured; ${missing} not held: ` +
    `${dataMembers === 1 ? 'no other data member' : `only ${dataMembers} data members`})`
  );
}

/** `grid status`: the cluster as the asked member sees it, one row per member. */
export function formatStatus(health: HealthAnswer, cluster: ClusterAnswer, partitions: PartitionsAnswer): string {
  const counts = new Map(partitions.members.map((m) => [m.uuid, m]));
  const local = cluster.members.find((m) => m.localMember);
  const rows = cluster.members.map((m, i) => {
    const c = counts.get(m.uuid);
    const role = m.liteMember ? 'lite' : i === 0 ? 'master' : 'data';
    return [`${m.address}${m.localMember ? ' *' : ''}`, m.uuid, role, m.memberVersion, String(c?.owned ?? 0), String(c?.backups ?? 0)];
  });
  // Uuids in the partition table that are not in the member list (a member that just left).
  for (const m of partitions.members) {
    if (!cluster.members.some((x) => x.uuid === m.uuid)) rows.push([m.address ?? '(gone)', m.uuid, 'not a member', '', String(m.owned), String(m.backups)]);
  }
  const safe = health.clusterSafe ? 'yes' : `NO (${health.migrationQueueSize} migration${health.migrationQueueSize === 1 ? '' : 's'} queued)`;
  const size = cluster.members.length;
  const lines = [
    `Cluster state: ${health.clusterState}   members: ${size}   safe: ${safe}`,
    `Partitions: ${partitions.partitionCount}, ${replicasText(partitions.replicaCount, cluster.members.filter((m) => !m.liteMember).length)} (table version ${partitions.version})`,
    `Asked: ${local?.address ?? '?'} (node state ${health.nodeState})`,
    ...(health.persistence === undefined ? [] : [persistenceLine(health.persistence)]),
    '',
    table(
      [{ title: 'MEMBER' }, { title: 'UUID' }, { title: 'ROLE' }, { title: 'VERSION' }, { title: 'OWNED', right: true }, { title: 'BACKUPS', right: true }],
      rows,
    ),
    '',
    '* the member asked. OWNED/BACKUPS: partitions it owns and backup replicas it holds.',
  ];
  return lines.join('\n');
}

/** The asked member's log: OK, or why writes of persisted data are refused and since when. */
function persistenceLine(p: NonNullable<HealthAnswer['persistence']>): string {
  if (p.state === 'OK') return 'Persistence: OK';
  const what = p.state === 'DISK_FULL' ? 'writes of persisted maps and queues refused until space is free' : 'writes of persisted maps and queues refused until the member restarts';
  return `Persistence: ${p.state} since ${new Date(p.since).toISOString()}: ${what} (${p.reason ?? 'unknown'})`;
}

// ---------------------------------------------------------------- WAN

/** `host:port up`, or `host:port down 12s (heartbeat-timeout)`: how long, and the kind of failure. */
function endpointCell(e: WanPublisherAnswer['endpoints'][number], now: number): string {
  if (e.status === 'up' || e.since === undefined) return `${e.address} ${e.status}`;
  const s = Math.max(0, Math.round((now - e.since) / 1000));
  return `${e.address} ${e.status} ${s}s${e.cause ? ` (${e.cause})` : ''}`;
}

export function formatWanStatus(address: string, publishers: readonly WanPublisherAnswer[], now = Date.now()): string {
  if (publishers.length === 0) return `${address} has no WAN publishers.`;
  const rows = publishers.map((p) => [
    p.wanReplicationName,
    p.publisherId,
    p.targetClusterName,
    p.state,
    p.endpoints.map((e) => endpointCell(e, now)).join(', '),
    `${p.primaryQueueSize}/${p.queueCapacity}`,
    String(p.backupQueueSize),
    `${p.lagMillis} ms`,
    String(p.eventsAcknowledged),
    String(p.eventsDropped),
  ]);
  return [
    `WAN publishers on ${address} (figures of this member only):`,
    '',
    table(
      [
        { title: 'REPLICATION' },
        { title: 'PUBLISHER' },
        { title: 'TARGET' },
        { title: 'STATE' },
        { title: 'ENDPOINTS' },
        { title: 'QUEUE', right: true },
        { title: 'BACKUP', right: true },
        { title: 'LAG', right: true },
        { title: 'ACKED', right: true },
        { title: 'DROPPED', right: true },
      ],
      rows,
    ),
    ...downLines(publishers),
  ].join('\n');
}

/** Below the table, one line per endpoint that is down: since when (ISO, UTC) and why. */
function downLines(publishers: readonly WanPublisherAnswer[]): string[] {
  const out: string[] = [];
  for (const p of publishers) {
    for (const e of p.endpoints) {
      if (e.status !== 'down' || e.since === undefined) continue;
      out.push(`${p.wanReplicationName}/${p.publisherId} ${e.address} down since ${new Date(e.since).toISOString()}${e.reason ? `: ${e.reason}` : ''}`);
    }
  }
  return out.length === 0 ? [] : ['', ...out];
}

/** A progress bar `[#####.....]  42%` of `width` cells between the brackets. */
export function progressBar(percent: number, width = 30): string {
  const p = Math.max(0, Math.min(100, Number.isFinite(percent) ? percent : 0));
  const full = Math.round((p / 100) * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(Math.round(p)).padStart(3)}%`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** One line of a sync's progress, for a terminal (with a bar) or a log (without). */
export function syncProgressLine(uuid: string, p: SyncProgressAnswer, elapsedMs: number | undefined, bar: boolean): string {
  const what = `sync ${uuid.slice(0, 8)} (${p.wanReplicationName}/${p.wanPublisherId})`;
  const after = elapsedMs === undefined ? '' : seconds(elapsedMs);
  if (bar) return `${progressBar(p.progress)}  ${p.stage.padEnd(11)}  ${what}${after ? `  ${after}` : ''}`;
  return `${what}: ${p.stage} ${p.progress}%${after ? ` after ${after}` : ''}`;
}

export function formatConsistency(uuid: string, r: ConsistencyAnswer): string {
  const head = `consistency check ${uuid} of map ${r.mapName} through ${r.wanReplicationName}/${r.wanPublisherId}: ${r.stage}`;
  const figures =
    `partitions checked ${r.partitionsChecked}, differing ${r.partitionsDiffering}; ` +
    `leaves checked ${r.leavesChecked}, differing ${r.leavesDiffering}; entries to sync ${r.entriesToSync}`;
  return [head, figures, ...(r.failure !== undefined ? [`failure: ${r.failure}`] : [])].join('\n');
}

// ---------------------------------------------------------------- CP

const iso = (ms: number): string => (Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : '-');

export function formatCpGroups(groups: readonly { name: string; id: number }[]): string {
  return table(
    [{ title: 'GROUP' }, { title: 'ID', right: true }],
    [...groups].sort((a, b) => a.id - b.id).map((g) => [g.name, String(g.id)]),
  );
}

export function formatCpGroup(g: CpGroupAnswer): string {
  return [`CP group ${g.id.name} (id ${g.id.id}): ${g.status}, ${g.members.length} member${g.members.length === 1 ? '' : 's'}`, '', formatCpMembers(g.members)].join('\n');
}

export function formatCpMembers(members: readonly CpMemberAnswer[], localUuid?: string): string {
  const t = table(
    [{ title: 'CP MEMBER UUID' }, { title: 'ADDRESS' }],
    members.map((m) => [m.uuid, `${m.address}${m.uuid === localUuid ? ' *' : ''}`]),
  );
  return localUuid === undefined ? t : `${t}\n\n* the member asked`;
}

export function formatCpSessions(group: string, sessions: readonly CpSessionAnswer[]): string {
  if (sessions.length === 0) return `CP group ${group} has no sessions.`;
  return table(
    [{ title: 'SESSION', right: true }, { title: 'ENDPOINT' }, { title: 'TYPE' }, { title: 'NAME' }, { title: 'CREATED' }, { title: 'EXPIRES' }],
    sessions.map((s) => [String(s.id), s.endpoint, s.endpointType, s.endpointName, iso(s.creationTime), iso(s.expirationTime)]),
  );
}

export function formatCpStatus(address: string, s: CpStatusAnswer): string {
  if (!s.enabled) return `${address}: the CP subsystem is not enabled.`;
  const head = `${address}: ${s.cpMemberUuid !== undefined ? `CP member ${s.cpMemberUuid}` : 'not a CP member'}, seed ${s.seed ?? '-'}, view version ${s.viewVersion ?? '-'}`;
  if (s.groups.length === 0) return `${head}\nIt hosts no CP group.`;
  return [
    head,
    '',
    table(
      [{ title: 'GROUP' }, { title: 'ID', right: true }, { title: 'ROLE' }, { title: 'TERM', right: true }, { title: 'LEADER' }, { title: 'COMMIT', right: true }, { title: 'APPLIED', right: true }],
      s.groups.map((g) => [g.name, String(g.id), g.role, String(g.term), g.leader ?? '-', String(g.commitIndex), String(g.lastApplied)]),
    ),
  ].join('\n');
}

export function formatLock(name: string, l: LockAnswer): string {
  return l.acquired
    ? `locked ${name} (group ${l.group}): fence ${l.fence}, session ${l.sessionId}, lock count ${l.lockCount}`
    : `${name} (group ${l.group}) was not acquired: held by another session (this call's session ${l.sessionId})`;
}

export function formatLockInfo(name: string, l: LockInfoAnswer): string {
  return l.locked
    ? `${name} (group ${l.group}): locked by session ${l.sessionId}, fence ${l.fence}, lock count ${l.lockCount}, ${l.waiters} waiting`
    : `${name} (group ${l.group}): not locked${l.waiters > 0 ? `, ${l.waiters} waiting` : ''}`;
}
