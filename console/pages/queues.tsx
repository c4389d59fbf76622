// The Queues page: every queue with its size (GET rest/queues), and one queue's page at
// #/queues/<name>: size, reserved and waiting polls (rest/queues/<q>/stats), offer a value with
// its content type, and poll with a short wait (shows the item, or "empty").

import { useState } from 'preact/hooks';
import { describe, getJson, request, usePoll } from '../api.js';
import { hrefOf } from '../router.js';
import { ErrorView, Panel } from '../ui.js';
import type { PageProps } from './index.js';
import { StructureList, renderValue } from './maps.js';

/** How long a poll from the console waits for an item: short, so the button never seems stuck. */
const POLL_WAIT_SECONDS = 1;

export function QueuesPage({ rest }: PageProps) {
  const name = rest[0];
  if (name === undefined) return <div class="page" data-testid="queues-page"><StructureList kind="queues" title="Queues" /></div>;
  return <QueuePage key={name} name={name} />;
}

function QueuePage({ name }: { name: string }) {
  const path = `rest/queues/${encodeURIComponent(name)}`;
  const stats = usePoll((signal) => getJson<{ size: number; reserved: number; waitingPolls: number }>(`${path}/stats`, signal), 1000, [path]);
  const [value, setValue] = useState('');
  const [type, setType] = useState('text/plain');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [polled, setPolled] = useState<{ kind: string; text: string; contentType: string } | 'empty' | undefined>(undefined);
  const offer = async (): Promise<void> => {
    try {
      await request(path, { method: 'POST', body: value, headers: { 'Content-Type': type } });
      setMessage('Offered.');
      setValue('');
      stats.refresh();
    } catch (e) {
      setMessage(`Not offered: ${describe(e)}`);
    }
  };
  const poll = async (): Promise<void> => {
    try {
      const res = await request(`${path}/${POLL_WAIT_SECONDS}`, { method: 'DELETE', headers: { Accept: '*/*' } });
      if (res.status === 204) setPolled('empty');
      else {
        const contentType = res.headers.get('Content-Type') ?? '';
        setPolled({ ...renderValue(new Uint8Array(await res.arrayBuffer()), contentType), contentType });
      }
      stats.refresh();
    } catch (e) {
      setMessage(`Not polled: ${describe(e)}`);
    }
  };
  return (
    <div class="page" data-testid="queue-page">
      <p><a href={hrefOf('queues')}>Queues</a> / <strong>{name}</strong></p>
      <Panel title={`Queue ${name}`} id="queue-title">
        {stats.error !== undefined && <ErrorView error={stats.error} retry={stats.refresh} />}
        <dl class="facts">
          <div><dt>Size</dt><dd data-testid="queue-size">{stats.data?.size ?? '—'}</dd></div>
          <div><dt>Reserved</dt><dd>{stats.data?.reserved ?? '—'}</dd></div>
          <div><dt>Waiting polls</dt><dd>{stats.data?.waitingPolls ?? '—'}</dd></div>
        </dl>
      </Panel>
      <Panel title="Offer" id="offer-title">
        <form class="put" data-testid="offer-form" onSubmit={(e) => { e.preventDefault(); void offer(); }}>
          <label>
            Content type
            <select name="contentType" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              {['text/plain', 'application/json'].map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </label>
          <label class="wide">Value <textarea name="value" class="mono" rows={3} value={value} onInput={(e) => setValue((e.currentTarget as HTMLTextAreaElement).value)} /></label>
          <div class="actions"><button type="submit" class="primary" data-testid="offer">Offer</button>
            {message !== undefined && <span role="status" data-testid="queue-message">{message}</span>}</div>
        </form>
      </Panel>
      <Panel title="Poll" id="poll-title">
        <div class="actions">
          <button type="button" data-testid="poll" onClick={() => void poll()}>Poll (waits up to {POLL_WAIT_SECONDS} s)</button>
        </div>
        {polled === 'empty' && <p class="muted" data-testid="polled-empty">empty: no item came within {POLL_WAIT_SECONDS} s</p>}
        {polled !== undefined && polled !== 'empty' && (
          <>
            <p class="small muted">{polled.contentType || 'no content type'}</p>
            <pre class="value" data-testid="polled">{polled.text}</pre>
          </>
        )}
      </Panel>
    </div>
  );
}
