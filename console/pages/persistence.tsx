// The Persistence page: the serving member's persistence state (its log's disk, from GET health,
// group HEALTH_CHECK; the log's size, records and compactions from GET metrics, CLUSTER_READ),
// and the backup actions (POST rest/management/cluster/backup and backupInterrupt, group
// PERSISTENCE, with credentials). No endpoint reports a finished backup (each member logs it),
// so "last backup" is the one started from this tab, with the member's answer.

import { useState } from 'preact/hooks';
import { ApiError, getJson, postParams, request, usePoll } from '../api.js';
import { parsePrometheus, total } from '../prometheus.js';
import { Confirm, ErrorView, Loading, NotAllowed, Panel, formatBytes, formatDuration } from '../ui.js';
import type { PageProps } from './index.js';

interface DiskState {
  readonly state: 'OK' | 'DISK_FULL' | 'FAILED';
  readonly reason?: string;
  readonly since: number;
}

interface PersistenceView {
  /** undefined: persistence is off on this member (health has no `persistence` field). */
  readonly disk: DiskState | undefined;
  readonly nodeState: string;
  readonly logBytes: number | undefined;
  readonly records: number | undefined;
  readonly compactions: number | undefined;
  readonly faults: number | undefined;
}

const POLL_MS = 2000;

async function load(signal: AbortSignal): Promise<PersistenceView> {
  const [health, metrics] = await Promise.all([
    getJson<{ nodeState: string; persistence?: DiskState }>('health', signal),
    request('metrics', { signal }).then(
      async (r) => parsePrometheus(await r.text()),
      // Metrics off (500) or its group off: the figures are left out, the state still shows.
      (e: unknown) => {
        if (e instanceof ApiError) return [];
        throw e;
      },
    ),
  ]);
  return {
    disk: health.persistence,
    nodeState: health.nodeState,
    logBytes: total(metrics, 'grid_persistence_log_bytes'),
    records: total(metrics, 'grid_persistence_records_total'),
    compactions: total(metrics, 'grid_persistence_compactions_total'),
    faults: total(metrics, 'grid_persistence_faults_total'),
  };
}

export function PersistencePage({ session }: PageProps) {
  const poll = usePoll(load, POLL_MS, [session]);
  const [confirm, setConfirm] = useState<'backup' | 'backupInterrupt' | undefined>();
  const [last, setLast] = useState<{ at: number; command: string; answer: string; ok: boolean }>();
  const [error, setError] = useState<unknown>();
  const canAct = session.groups.includes('PERSISTENCE');
  const v = poll.data;
  if (v === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  const run = async (command: 'backup' | 'backupInterrupt'): Promise<void> => {
    setConfirm(undefined);
    setError(undefined);
    try {
      const a = (await postParams(`rest/management/cluster/${command}`, session, [])) as { status?: string; message?: string } | undefined;
      setLast({ at: Date.now(), command, ok: a?.status === 'success', answer: a?.status === 'success' ? (command === 'backup' ? 'started on the members' : 'interrupted') : (a?.message ?? JSON.stringify(a)) });
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page" data-testid="persistence-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      <Panel title={`Persistence on ${session.memberAddress}`} id="persistence-title">
        {v.disk === undefined ? (
          <p class="muted" data-testid="persistence-off">
            Persistence is off on this member (<code>persistence.enabled</code>; docs/persistence.md): its data lives in memory only.
          </p>
        ) : (
          <dl class="facts">
            <div>
              <dt>Disk</dt>
              <dd data-testid="persistence-state" class={v.disk.state === 'OK' ? 'ok' : 'warn'} title={v.disk.reason}>
                {v.disk.state}
              </dd>
            </div>
            <div>
              <dt>Since</dt>
              <dd>{formatDuration(Date.now() - v.disk.since)} ago</dd>
            </div>
            {v.disk.reason !== undefined && (
              <div>
                <dt>Reason</dt>
                <dd>{v.disk.reason}</dd>
              </div>
            )}
            <div>
              <dt>Member</dt>
              <dd>{v.nodeState}</dd>
            </div>
            <div>
              <dt>Log size</dt>
              <dd>{formatBytes(v.logBytes)}</dd>
            </div>
            <div>
              <dt>Records written</dt>
              <dd>{v.records ?? '—'}</dd>
            </div>
            <div>
              <dt>Compactions</dt>
              <dd>{v.compactions ?? '—'}</dd>
            </div>
            <div>
              <dt>Write faults</dt>
              <dd class={(v.faults ?? 0) > 0 ? 'warn' : undefined}>{v.faults ?? '—'}</dd>
            </div>
          </dl>
        )}
      </Panel>
      <Panel title="Backup" id="backup-title">
        {!canAct ? (
          <NotAllowed reason="endpoint group PERSISTENCE is disabled, so backups cannot be started here" />
        ) : (
          <>
            <p class="muted">Every member copies its persisted data into its <code>backup-dir</code> while it keeps serving; each member logs when its copy is written (docs/persistence.md#backups-and-restore).</p>
            <div class="actions">
              <button type="button" class="primary" onClick={() => setConfirm('backup')} data-testid="backup-start">
                Start a backup
              </button>
              <button type="button" onClick={() => setConfirm('backupInterrupt')}>
                Interrupt the backup
              </button>
            </div>
          </>
        )}
        <p data-testid="backup-last">
          Last backup from this console:{' '}
          {last === undefined ? (
            'none yet'
          ) : (
            <span class={last.ok ? 'ok' : 'warn'}>
              {last.command} {new Date(last.at).toLocaleTimeString()}: {last.answer}
            </span>
          )}
        </p>
        {error !== undefined && <ErrorView error={error} />}
        {confirm !== undefined && (
          <Confirm
            title={confirm === 'backup' ? 'Start a backup?' : 'Interrupt the backup?'}
            confirmLabel={confirm === 'backup' ? 'Start' : 'Interrupt'}
            danger={confirm === 'backupInterrupt'}
            onConfirm={() => void run(confirm)}
            onCancel={() => setConfirm(undefined)}
          >
            {confirm === 'backup'
              ? 'A backup is a full copy of every member\'s log: it takes as much disk space again.'
              : 'The backup in progress stops on every member; its incomplete backup-<sequence> directory stays and should be deleted.'}
          </Confirm>
        )}
      </Panel>
    </div>
  );
}
