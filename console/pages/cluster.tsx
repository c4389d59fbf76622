// The Cluster page: members (address, uuid, roles, version, state, uptime, heap, RSS),
// partitions owned and backed up per member as a chart, cluster state and safety, migrations,
// and the two actions: change the cluster state, shut this member down (each confirmed).
// Reads GET rest/cluster and rest/partitions (CLUSTER_READ; the rows and the partition counts,
// from one member's table so they add up), rest/members where the member has it (every member's
// own figures, gathered over the member protocol; without it, only the serving member's figures
// from health/memory), health (HEALTH_CHECK), rest/cp-subsystem/members (CP); acts through
// rest/management/cluster/* (CLUSTER_WRITE). A group that is off hides what needs it.

import { useState } from 'preact/hooks';
import { ApiError, describe, getJson, postParams, usePoll, type Session } from '../api.js';
import { Confirm, ErrorView, Loading, NotAllowed, Panel, formatBytes, formatDuration } from '../ui.js';
import type { PageProps } from './index.js';

interface MemberView {
  readonly address: string;
  readonly liteMember: boolean;
  readonly localMember: boolean;
  readonly uuid: string;
  readonly memberVersion: string;
}

interface ClusterInfo {
  readonly members: readonly MemberView[];
  readonly connectionCount: number;
  readonly allConnectionCount: number;
}

interface PartitionsInfo {
  readonly version: number;
  readonly partitionCount: number;
  readonly replicaCount: number;
  readonly migrationQueueSize: number;
  readonly clusterSafe: boolean;
  readonly members: readonly { readonly uuid: string; readonly address: string | null; readonly owned: number; readonly backups: number }[];
  readonly partitions: readonly (readonly (string | null)[])[];
}

interface Health {
  readonly nodeState: string;
  readonly clusterState: string;
  readonly clusterSafe: boolean;
  readonly migrationQueueSize: number;
  readonly clusterSize: number;
}

interface Memory {
  readonly limitBytes: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapLimitBytes: number;
  readonly refusing: boolean;
}

/** GET rest/members: each member's figures, answered by that member (or why it did not). */
interface MembersReport {
  readonly members: readonly {
    readonly uuid: string;
    readonly master: boolean;
    readonly reachable: boolean;
    readonly error?: string;
    readonly figures?: {
      readonly state: string;
      readonly cpMember: boolean;
      readonly uptimeMs: number;
      readonly heapUsedBytes: number;
      readonly heapTotalBytes: number;
      readonly rssBytes: number;
    };
  }[];
}

interface ClusterView {
  readonly cluster: ClusterInfo;
  readonly partitions: PartitionsInfo;
  readonly health: Health | undefined;
  readonly memory: Memory | undefined;
  /** Uuids of the CP members; undefined when the CP group is off or CP is not enabled. */
  readonly cp: ReadonlySet<string> | undefined;
  /** Every member's own figures; undefined on a member without GET rest/members. */
  readonly report: ReadonlyMap<string, MembersReport['members'][number]> | undefined;
}

/** Each member gets this long to answer rest/members: a silent member shows as unreachable, the page keeps polling. */
const REPORT_TIMEOUT_MS = 1500;

const POLL_MS = 1000;
const STATES = ['ACTIVE', 'NO_MIGRATION', 'FROZEN', 'PASSIVE'] as const;

/** An optional read: undefined when its group is off or it is not enabled here, a real failure otherwise. */
async function optional<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    // 400: a member without that endpoint (an older build); 403: its group is off; 404/500: not enabled here.
    if (e instanceof ApiError && (e.status === 400 || e.status === 403 || e.status === 404 || e.status === 500)) return undefined;
    throw e;
  }
}

async function loadCluster(session: Session, signal: AbortSignal): Promise<ClusterView> {
  const has = (g: string): boolean => session.groups.includes(g);
  const [cluster, partitions, health, memory, cp, report] = await Promise.all([
    getJson<ClusterInfo>('rest/cluster', signal),
    getJson<PartitionsInfo>('rest/partitions', signal),
    has('HEALTH_CHECK') ? optional(getJson<Health>('health', signal)) : undefined,
    has('HEALTH_CHECK') ? optional(getJson<Memory>('health/memory', signal)) : undefined,
    has('CP') ? optional(getJson<readonly { uuid: string }[]>('rest/cp-subsystem/members', signal)) : undefined,
    optional(getJson<MembersReport>(`rest/members?timeoutMs=${REPORT_TIMEOUT_MS}`, signal)),
  ]);
  return {
    cluster,
    partitions,
    health,
    memory,
    cp: cp === undefined ? undefined : new Set(cp.map((m) => m.uuid)),
    report: report === undefined ? undefined : new Map(report.members.map((m) => [m.uuid, m])),
  };
}

export function ClusterPage({ session }: PageProps) {
  const poll = usePoll((signal) => loadCluster(session, signal), POLL_MS, [session]);
  const v = poll.data;
  if (v === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  return (
    <div class="page" data-testid="cluster-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      <Summary view={v} session={session} />
      <Members view={v} />
      <PartitionChart view={v} />
      <Actions session={session} view={v} onDone={poll.refresh} />
    </div>
  );
}

function Summary({ view, session }: { view: ClusterView; session: Session }) {
  const p = view.partitions;
  const h = view.health;
  const safe = h?.clusterSafe ?? p.clusterSafe;
  const migrations = h?.migrationQueueSize ?? p.migrationQueueSize;
  return (
    <Panel title={`Cluster ${session.clusterName}`} id="summary-title">
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd data-testid="cluster-state">{h?.clusterState ?? '—'}</dd>
        </div>
        <div>
          <dt>Safe</dt>
          <dd data-testid="cluster-safe" class={safe ? 'ok' : 'warn'}>
            {safe ? 'yes' : 'no: some partition lacks a backup'}
          </dd>
        </div>
        <div>
          <dt>Members</dt>
          <dd data-testid="member-count">{view.cluster.members.length}</dd>
        </div>
        <div>
          <dt>Migrations in progress</dt>
          <dd data-testid="migrations">{migrations}</dd>
        </div>
        <div>
          <dt>Partitions</dt>
          <dd>
            {p.partitionCount} × {p.replicaCount} replicas (table version {p.version})
          </dd>
        </div>
        <div>
          <dt>Client connections here</dt>
          <dd>{view.cluster.connectionCount}</dd>
        </div>
      </dl>
    </Panel>
  );
}

function rolesOf(m: MemberView, i: number, view: ClusterView): string[] {
  const roles: string[] = [];
  const own = view.report?.get(m.uuid);
  // The member list is in join order and the oldest member is the master (as in Hazelcast).
  if (own !== undefined ? own.master : i === 0) roles.push('master');
  if (m.liteMember) roles.push('lite');
  if (own?.figures?.cpMember === true || view.cp?.has(m.uuid) === true) roles.push('CP');
  if (m.localMember) roles.push('this member');
  return roles;
}

/** A member's state, uptime, heap and RSS: its own figures, else (the serving member) health and health/memory. */
function figuresOf(m: MemberView, view: ClusterView): { state: string; stateTitle?: string; uptime: string; heap: string; rss: string } {
  const own = view.report?.get(m.uuid);
  const f = own?.figures;
  if (f !== undefined) {
    return { state: f.state, uptime: formatDuration(f.uptimeMs), heap: `${formatBytes(f.heapUsedBytes)} / ${formatBytes(f.heapTotalBytes)}`, rss: formatBytes(f.rssBytes) };
  }
  if (own !== undefined && !own.reachable) return { state: 'unreachable', stateTitle: own.error ?? 'no answer', uptime: '—', heap: '—', rss: '—' };
  const mem = m.localMember ? view.memory : undefined;
  return {
    state: m.localMember ? view.health?.nodeState ?? '—' : '—',
    uptime: '—',
    heap: mem !== undefined ? `${formatBytes(mem.heapUsedBytes)} / ${formatBytes(mem.heapLimitBytes)}` : '—',
    rss: mem !== undefined ? formatBytes(mem.rssBytes) : '—',
  };
}

function Members({ view }: { view: ClusterView }) {
  const counts = new Map(view.partitions.members.map((m) => [m.uuid, m]));
  return (
    <Panel title="Members" id="members-title">
      <div class="table-wrap">
        <table data-testid="members">
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">UUID</th>
              <th scope="col">Roles</th>
              <th scope="col">Version</th>
              <th scope="col">State</th>
              <th scope="col" class="num">Uptime</th>
              <th scope="col" class="num">Owned</th>
              <th scope="col" class="num">Backups</th>
              <th scope="col" class="num">Heap</th>
              <th scope="col" class="num">RSS</th>
            </tr>
          </thead>
          <tbody>
            {view.cluster.members.map((m, i) => {
              const c = counts.get(m.uuid);
              const f = figuresOf(m, view);
              return (
                <tr key={m.uuid} data-uuid={m.uuid} data-testid="member-row">
                  <td>
                    {m.localMember ? (
                      m.address
                    ) : (
                      <a href={`http://${m.address}/grid/console/#/cluster`} title="Open this member's own console">
                        {m.address}
                      </a>
                    )}
                  </td>
                  <td class="mono">{m.uuid}</td>
                  <td>
                    {rolesOf(m, i, view).map((r) => (
                      <span class={`tag tag-${r.replace(' ', '-').toLowerCase()}`} key={r}>
                        {r}
                      </span>
                    ))}
                  </td>
                  <td>{m.memberVersion}</td>
                  <td class={f.state === 'unreachable' ? 'warn' : undefined} title={f.stateTitle} data-testid="member-state">
                    {f.state}
                  </td>
                  <td class="num">{f.uptime}</td>
                  <td class="num" data-testid="owned">{c?.owned ?? 0}</td>
                  <td class="num" data-testid="backups">{c?.backups ?? 0}</td>
                  <td class="num">{f.heap}</td>
                  <td class="num">{f.rss}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {view.report === undefined && (
        <p class="muted small">
          This member does not gather the others' figures (no GET /grid/rest/members): state, heap and RSS are its own. Open another
          member's console from its address for its figures.
        </p>
      )}
    </Panel>
  );
}

/** Partitions per member as horizontal stacked bars: owned (solid) and backups (light), on one scale. */
function PartitionChart({ view }: { view: ClusterView }) {
  const p = view.partitions;
  const rows = view.cluster.members.map((m) => {
    const c = p.members.find((x) => x.uuid === m.uuid);
    return { address: m.address, owned: c?.owned ?? 0, backups: c?.backups ?? 0 };
  });
  const max = Math.max(1, ...rows.map((r) => r.owned + r.backups));
  const owned = rows.reduce((s, r) => s + r.owned, 0);
  const backups = rows.reduce((s, r) => s + r.backups, 0);
  return (
    <Panel title="Partitions per member" id="partitions-title">
      <div class="chart" role="img" aria-label={`Partitions: ${rows.map((r) => `${r.address} owns ${r.owned}, backs up ${r.backups}`).join('; ')}`}>
        {rows.map((r) => (
          <div class="bar-row" key={r.address}>
            <span class="bar-label">{r.address}</span>
            <span class="bar-track">
              <span class="bar owned" style={{ width: `${(100 * r.owned) / max}%` }} />
              <span class="bar backup" style={{ width: `${(100 * r.backups) / max}%` }} />
            </span>
            <span class="bar-value">
              {r.owned} + {r.backups}
            </span>
          </div>
        ))}
      </div>
      <p class="legend">
        <span class="swatch owned" /> owned <span class="swatch backup" /> backups — total{' '}
        <span data-testid="partition-totals">
          {owned} owned + {backups} backups
        </span>{' '}
        of {p.partitionCount} partitions
      </p>
    </Panel>
  );
}

function Actions({ session, view, onDone }: { session: Session; view: ClusterView; onDone: () => void }) {
  const [pending, setPending] = useState<{ kind: 'state'; to: string } | { kind: 'shutdown' } | undefined>(undefined);
  const [target, setTarget] = useState<string>('ACTIVE');
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  if (!session.groups.includes('CLUSTER_WRITE')) {
    return (
      <Panel title="Actions" id="actions-title">
        <NotAllowed reason="endpoint group CLUSTER_WRITE is disabled" />
      </Panel>
    );
  }
  const run = async (what: () => Promise<unknown>, done: (answer: unknown) => string): Promise<void> => {
    setPending(undefined);
    try {
      const answer = await what();
      const failed = typeof answer === 'object' && answer !== null && (answer as { status?: string }).status === 'fail';
      setResult({ ok: !failed, text: done(answer) });
    } catch (e) {
      setResult({ ok: false, text: describe(e) });
    }
    onDone();
  };
  return (
    <Panel title="Actions" id="actions-title">
      <form
        class="actions"
        onSubmit={(e) => {
          e.preventDefault();
          setPending({ kind: 'state', to: target });
        }}
      >
        <label>
          Cluster state{' '}
          <select value={target} onChange={(e) => setTarget((e.currentTarget as HTMLSelectElement).value)} data-testid="state-select">
            {STATES.map((s) => (
              <option value={s} key={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" data-testid="change-state">
          Change state…
        </button>
        <button type="button" class="danger" onClick={() => setPending({ kind: 'shutdown' })} data-testid="shutdown">
          Shut down this member…
        </button>
      </form>
      {result && (
        <p class={result.ok ? 'ok' : 'error'} role="status" data-testid="action-result">
          {result.text}
        </p>
      )}
      {pending?.kind === 'state' && (
        <Confirm
          title={`Change the cluster state to ${pending.to}?`}
          confirmLabel={`Change to ${pending.to}`}
          danger={pending.to !== 'ACTIVE'}
          onCancel={() => setPending(undefined)}
          onConfirm={() =>
            void run(
              () => postParams('rest/management/cluster/changeState', session, [pending.to]),
              (a) => `cluster state: ${(a as { status?: string; state?: string } | undefined)?.status ?? 'done'} (${pending.to})`,
            )
          }
        >
          <p>
            Every member of the cluster ({view.cluster.members.length}) changes state. {stateEffect(pending.to)}
          </p>
        </Confirm>
      )}
      {pending?.kind === 'shutdown' && (
        <Confirm
          title={`Shut down member ${session.memberAddress}?`}
          confirmLabel="Shut down"
          danger
          onCancel={() => setPending(undefined)}
          onConfirm={() => void run(() => postParams('rest/management/cluster/memberShutdown', session, []), () => `member ${session.memberAddress} is shutting down; this console stops answering`)}
        >
          <p>
            The member serving this console ({session.memberAddress}) leaves the cluster gracefully: its partitions move to the others
            first. The console stops answering with it.
          </p>
        </Confirm>
      )}
    </Panel>
  );
}

function stateEffect(state: string): string {
  switch (state) {
    case 'ACTIVE':
      return 'All operations are allowed.';
    case 'NO_MIGRATION':
      return 'Data operations go on; partitions are not rebalanced.';
    case 'FROZEN':
      return 'Reads and writes go on; no member may join or leave, no partition moves.';
    case 'PASSIVE':
      return 'Only reads go on: every write is refused (503) until the state is ACTIVE again.';
    default:
      return '';
  }
}
