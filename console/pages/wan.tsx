// The WAN page: every publisher of the serving member with its target, state, endpoints, queue
// depths, counters, last ack and its lag over time (a chart the page samples from GET rest/wan
// each second: there is no metrics history endpoint); pause/resume/stop/clear (POST
// rest/wan/*, confirmed where it loses events); a sync or consistency check started here and
// its progress and result polled until it ends. Reads need CLUSTER_READ, actions WAN.

import { useEffect, useState } from 'preact/hooks';
import { ApiError, describe, getJson, postParams, usePoll, type Session } from '../api.js';
import { Chart, NO_SAMPLES, pushSample, type Samples } from '../chart.js';
import { Confirm, ErrorView, Loading, NotAllowed, Panel, formatDuration } from '../ui.js';
import type { PageProps } from './index.js';

interface Endpoint {
  readonly address: string;
  readonly status: 'down' | 'connecting' | 'up';
  readonly since: number;
  readonly reason: string | null;
  readonly failedAttempts: number;
}

export interface Publisher {
  readonly wanReplicationName: string;
  readonly publisherId: string;
  readonly targetClusterName: string;
  readonly state: 'REPLICATING' | 'PAUSED' | 'STOPPED';
  readonly endpoints: readonly Endpoint[];
  readonly queueCapacity: number;
  readonly primaryQueueSize: number;
  readonly backupQueueSize: number;
  readonly eventsQueued: number;
  readonly eventsSent: number;
  readonly eventsAcknowledged: number;
  readonly eventsDropped: number;
  readonly writesRefused: number;
  readonly batchesFailed: number;
  readonly lastAckTime: number | null;
  readonly lagMillis: number;
}

interface Job {
  readonly kind: 'sync' | 'check';
  readonly uuid: string;
  readonly label: string;
}

const POLL_MS = 1000;
const keyOf = (p: Publisher): string => `${p.wanReplicationName}/${p.publisherId}`;

export function WanPage({ session }: PageProps) {
  const [lag, setLag] = useState<Samples>(NO_SAMPLES);
  const [depth, setDepth] = useState<Samples>(NO_SAMPLES);
  const poll = usePoll(async (signal) => (await getJson<{ publishers: Publisher[] }>('rest/wan', signal)).publishers, POLL_MS, [session]);
  useEffect(() => {
    if (poll.data === undefined || poll.at === undefined) return;
    const at = poll.at;
    setLag((s) => pushSample(s, at, Object.fromEntries(poll.data!.map((p) => [keyOf(p), p.lagMillis / 1000]))));
    setDepth((s) => pushSample(s, at, Object.fromEntries(poll.data!.map((p) => [keyOf(p), p.primaryQueueSize]))));
  }, [poll.data, poll.at]);
  const pubs = poll.data;
  if (pubs === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  const canAct = session.groups.includes('WAN');
  return (
    <div class="page" data-testid="wan-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      {pubs.length === 0 ? (
        <Panel title="WAN replication" id="wan-title">
          <p class="muted" data-testid="wan-none">
            This member has no WAN publisher. They are configured under <code>wan-replication</code> (docs/wan.md) or added with POST rest/wan/addWanConfig.
          </p>
        </Panel>
      ) : (
        <>
          <Panel title="Publishers on this member" id="wan-title">
            {!canAct && <NotAllowed reason="endpoint group WAN is disabled, so the actions are hidden" />}
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Replication / publisher</th>
                    <th>Target</th>
                    <th>State</th>
                    <th>Endpoints</th>
                    <th>Queue (primary / backup / capacity)</th>
                    <th>Sent / acked / dropped</th>
                    <th>Lag</th>
                    <th>Last ack</th>
                    {canAct && <th>Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {pubs.map((p) => (
                    <PublisherRow key={keyOf(p)} p={p} session={session} canAct={canAct} onDone={poll.refresh} />
                  ))}
                </tbody>
              </table>
            </div>
          </Panel>
          <Panel title="Lag and queue depth (sampled by this page each second)" id="wan-chart-title">
            <div class="charts">
              <Chart title="Lag: oldest queued event's wait" samples={lag} unit={(v) => `${v.toFixed(1)} s`} testId="wan-lag-chart" />
              <Chart title="Primary queue depth (events)" samples={depth} unit={(v) => String(Math.round(v))} testId="wan-depth-chart" />
            </div>
          </Panel>
          {canAct && <Jobs session={session} pubs={pubs} />}
        </>
      )}
    </div>
  );
}

function PublisherRow({ p, session, canAct, onDone }: { p: Publisher; session: Session; canAct: boolean; onDone: () => void }) {
  const [confirm, setConfirm] = useState<'stopPublisher' | 'clearWanQueues' | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async (cmd: string): Promise<void> => {
    setConfirm(undefined);
    setBusy(true);
    setError(undefined);
    try {
      await postParams(`rest/wan/${cmd}`, session, [p.wanReplicationName, p.publisherId]);
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr data-testid="wan-row" data-publisher={keyOf(p)}>
      <td>
        {p.wanReplicationName} / {p.publisherId}
      </td>
      <td>{p.targetClusterName}</td>
      <td data-testid="wan-state" class={p.state === 'REPLICATING' ? 'ok' : 'warn'}>
        {p.state}
      </td>
      <td>
        {p.endpoints.map((e) => (
          <div key={e.address} class={e.status === 'up' ? 'ok' : 'warn'} title={e.reason ?? undefined}>
            {e.address} {e.status}
            {e.status === 'down' && ` (${e.failedAttempts} tries)`}
          </div>
        ))}
      </td>
      <td class="num">
        {p.primaryQueueSize} / {p.backupQueueSize} / {p.queueCapacity}
      </td>
      <td class="num">
        {p.eventsSent} / {p.eventsAcknowledged} / {p.eventsDropped + p.writesRefused}
      </td>
      <td class="num">{formatDuration(p.lagMillis)}</td>
      <td>{p.lastAckTime === null ? 'never' : `${formatDuration(Date.now() - p.lastAckTime)} ago`}</td>
      {canAct && (
        <td>
          <div class="actions">
            {p.state === 'REPLICATING' ? (
              <button type="button" disabled={busy} onClick={() => void run('pausePublisher')} data-testid="wan-pause">
                Pause
              </button>
            ) : (
              <button type="button" disabled={busy} onClick={() => void run('resumePublisher')} data-testid="wan-resume">
                Resume
              </button>
            )}
            {p.state !== 'STOPPED' && (
              <button type="button" disabled={busy} onClick={() => setConfirm('stopPublisher')}>
                Stop
              </button>
            )}
            <button type="button" disabled={busy} onClick={() => setConfirm('clearWanQueues')}>
              Clear
            </button>
          </div>
          {error !== undefined && <ErrorView error={error} />}
          {confirm !== undefined && (
            <Confirm
              title={confirm === 'stopPublisher' ? 'Stop this publisher?' : 'Clear its queues?'}
              confirmLabel={confirm === 'stopPublisher' ? 'Stop' : 'Clear'}
              danger
              onConfirm={() => void run(confirm)}
              onCancel={() => setConfirm(undefined)}
            >
              {confirm === 'stopPublisher'
                ? `While stopped, ${p.wanReplicationName}/${p.publisherId} drops every new event for ${p.targetClusterName} (a sync is needed afterwards). On this member only.`
                : `The ${p.primaryQueueSize} queued events for ${p.targetClusterName} are dropped, never sent. On this member only.`}
            </Confirm>
          )}
        </td>
      )}
    </tr>
  );
}

/** Starts a sync (one map or all) or a consistency check and follows it until it ends. */
function Jobs({ session, pubs }: { session: Session; pubs: readonly Publisher[] }) {
  const [pub, setPub] = useState(keyOf(pubs[0]!));
  const [mapName, setMapName] = useState('');
  const [jobs, setJobs] = useState<Job[]>([]);
  const [error, setError] = useState<unknown>();
  const chosen = pubs.find((p) => keyOf(p) === pub) ?? pubs[0]!;
  const start = async (kind: 'sync' | 'check'): Promise<void> => {
    setError(undefined);
    try {
      const path = kind === 'check' ? 'rest/wan/consistencyCheck/map' : mapName === '' ? 'rest/wan/sync/allmaps' : 'rest/wan/sync/map';
      const params = [chosen.wanReplicationName, chosen.publisherId, ...(kind === 'check' || mapName !== '' ? [mapName] : [])];
      const answer = (await postParams(path, session, params)) as { uuid?: string; message?: string } | undefined;
      if (answer?.uuid === undefined) throw new Error(`the member did not start it: ${JSON.stringify(answer)}`);
      const what = kind === 'check' ? `consistency check of ${mapName}` : mapName === '' ? 'sync of all maps' : `sync of ${mapName}`;
      setJobs((j) => [{ kind, uuid: answer.uuid!, label: `${what} to ${chosen.targetClusterName}` }, ...j].slice(0, 10));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Panel title="Sync and consistency check" id="wan-jobs-title">
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <label>
          Publisher
          <select value={pub} onChange={(e) => setPub((e.currentTarget as HTMLSelectElement).value)}>
            {pubs.map((p) => (
              <option key={keyOf(p)} value={keyOf(p)}>
                {keyOf(p)} → {p.targetClusterName}
              </option>
            ))}
          </select>
        </label>
        <label>
          Map (empty: all maps, sync only)
          <input value={mapName} onInput={(e) => setMapName((e.currentTarget as HTMLInputElement).value)} data-testid="wan-map" />
        </label>
        <button type="button" class="primary" onClick={() => void start('sync')} data-testid="wan-sync">
          Start sync
        </button>
        <button type="button" disabled={mapName === ''} onClick={() => void start('check')} data-testid="wan-check">
          Consistency check
        </button>
      </form>
      {error !== undefined && <ErrorView error={error} />}
      <ul class="jobs">
        {jobs.map((j) => (
          <JobView key={j.uuid} job={j} />
        ))}
      </ul>
    </Panel>
  );
}

const ENDED = new Set(['FINISHED', 'FAILED']);

function JobView({ job }: { job: Job }) {
  const [ended, setEnded] = useState(false);
  const path = job.kind === 'sync' ? `rest/wan/sync/progress/${encodeURIComponent(job.uuid)}` : `rest/wan/consistencyCheck/${encodeURIComponent(job.uuid)}`;
  // Polled until it ends; a long interval after that keeps the last answer without load.
  const poll = usePoll(async (signal) => (await getJson<{ result: Record<string, unknown> & { stage: string } }>(path, signal)).result, ended ? 3_600_000 : POLL_MS, [path, ended]);
  useEffect(() => {
    if (poll.data !== undefined && ENDED.has(poll.data.stage)) setEnded(true);
  }, [poll.data]);
  const d = poll.data;
  return (
    <li data-testid="wan-job" data-stage={d?.stage ?? ''}>
      <strong>{job.label}</strong> <code class="muted">{job.uuid}</code>{' '}
      {d === undefined ? (
        poll.error !== undefined ? (
          describe(poll.error)
        ) : (
          '…'
        )
      ) : job.kind === 'sync' ? (
        <>
          {d.stage} · <progress max={100} value={Number(d['progress'] ?? 0)} /> {Number(d['progress'] ?? 0).toFixed(0)}%
        </>
      ) : (
        <>
          {d.stage} · {String(d['partitionsChecked'])} partitions checked, {String(d['partitionsDiffering'])} differ, {String(d['entriesToSync'])} entries to sync
          {typeof d['failure'] === 'string' && <span class="error"> {d['failure']}</span>}
        </>
      )}
      {poll.error !== undefined && d !== undefined && !(poll.error instanceof ApiError && poll.error.status === 404) && <span class="error"> {describe(poll.error)}</span>}
    </li>
  );
}
