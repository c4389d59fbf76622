// The Maps page: every map with its size (GET rest/maps; rate fields shown when the listing has
// them), and one map's page at #/maps/<name>: its keys page by page (rest/maps/<m>?keys with a
// cursor; "previous" pops a stack of the cursors seen) under a prefix filter, one entry with its
// value (text, pretty JSON or hex by content type), TTL left, last update and version (the GET
// headers), put, edit with If-Match (a 412 says the entry changed and reloads it), delete after
// a confirmation, and a live feed of the map's change stream (rest/maps/<m>/events, last 50).

import { useEffect, useState } from 'preact/hooks';
import { ApiError, describe, followEvents, getJson, request, usePoll } from '../api.js';
import { hrefOf } from '../router.js';
import { Confirm, ErrorView, Loading, Panel } from '../ui.js';
import type { PageProps } from './index.js';

interface Listed {
  readonly name: string;
  readonly size: number;
  /** Any other figure of the listing (operation rates when the member reports them). */
  readonly [field: string]: unknown;
}

const PAGE_SIZE = 20;
const FEED_MAX = 50;

/** The listing's extra numeric columns (rates), in the order of the first row. */
export function extraColumns(rows: readonly Listed[]): string[] {
  const cols: string[] = [];
  for (const r of rows) for (const [k, v] of Object.entries(r)) if (k !== 'name' && k !== 'size' && typeof v === 'number' && !cols.includes(k)) cols.push(k);
  return cols;
}

/** A listing field as a column title: the members' operation rates (`getsPerSecond`) as `gets/s`. */
export function columnTitle(field: string): string {
  return field.endsWith('PerSecond') ? `${field.slice(0, -'PerSecond'.length)}/s` : field;
}

/** The list of maps or queues: shared by both pages (`kind` is the path and the JSON field). */
export function StructureList(props: { kind: 'maps' | 'queues'; title: string }) {
  const poll = usePoll((signal) => getJson<Record<string, Listed[]>>(`rest/${props.kind}`, signal), 2000, [props.kind]);
  const rows = poll.data?.[props.kind];
  if (rows === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  const extra = extraColumns(rows);
  return (
    <Panel title={props.title} id={`${props.kind}-title`}>
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      {rows.length === 0 ? (
        <p class="muted">None yet: a {props.kind === 'maps' ? 'map' : 'queue'} appears here once something is written to it.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid={`${props.kind}-list`}>
            <thead>
              <tr>
                <th>Name</th>
                <th class="num">{props.kind === 'maps' ? 'Entries' : 'Items'}</th>
                {extra.map((c) => (
                  <th class="num" key={c}>{columnTitle(c)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.name} data-testid="structure-row">
                  <td>
                    <a href={hrefOf(props.kind, r.name)}>{r.name}</a>
                  </td>
                  <td class="num" data-testid="size">{r.size}</td>
                  {extra.map((c) => (
                    <td class="num" key={c}>{typeof r[c] === 'number' ? (r[c] as number).toLocaleString() : '—'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

export function MapsPage({ rest }: PageProps) {
  const name = rest[0];
  if (name === undefined) return <div class="page" data-testid="maps-page"><StructureList kind="maps" title="Maps" /></div>;
  return <MapPage key={name} name={name} />;
}

const entryPath = (map: string, key: string): string => `rest/maps/${encodeURIComponent(map)}/${encodeURIComponent(key)}`;

function MapPage({ name }: { name: string }) {
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const changed = (): void => setVersion((v) => v + 1);
  return (
    <div class="page" data-testid="map-page">
      <p><a href={hrefOf('maps')}>Maps</a> / <strong>{name}</strong></p>
      <Keys map={name} reload={version} onSelect={setSelected} selected={selected} />
      {selected !== undefined && <Entry key={`${selected}/${version}`} map={name} entryKey={selected} onChanged={changed} onDeleted={() => { setSelected(undefined); changed(); }} />}
      <PutEntry map={name} onPut={(k) => { setSelected(k); changed(); }} />
      <Feed map={name} />
    </div>
  );
}

function Keys(props: { map: string; reload: number; selected: string | undefined; onSelect: (k: string) => void }) {
  const [prefix, setPrefix] = useState('');
  const [applied, setApplied] = useState('');
  // cursors[i] is the cursor that lists page i (undefined: the first page).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const q = `rest/maps/${encodeURIComponent(props.map)}?keys&limit=${PAGE_SIZE}${applied === '' ? '' : `&prefix=${encodeURIComponent(applied)}`}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  const poll = usePoll((signal) => getJson<{ keys: string[]; cursor: string | null }>(q, signal), 5000, [q, props.reload]);
  const page = poll.data;
  return (
    <Panel title="Keys" id="keys-title">
      <form class="actions" onSubmit={(e) => { e.preventDefault(); setApplied(prefix); setCursors([undefined]); }}>
        <label>
          Prefix <input data-testid="prefix" value={prefix} onInput={(e) => setPrefix((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Filter</button>
        <button type="button" onClick={poll.refresh}>Refresh</button>
      </form>
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      {page === undefined ? (
        poll.error === undefined && <Loading />
      ) : (
        <>
          {page.keys.length === 0 ? (
            <p class="muted" data-testid="no-keys">No keys on this page{applied === '' ? '' : ` with prefix "${applied}"`}.</p>
          ) : (
            <ul class="keys" data-testid="keys">
              {page.keys.map((k) => (
                <li key={k}>
                  <button type="button" class="link mono" data-testid="key" aria-pressed={k === props.selected} onClick={() => props.onSelect(k)}>
                    {k}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div class="actions">
            <button type="button" data-testid="prev" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Previous
            </button>
            <span class="muted small">page {cursors.length}</span>
            <button type="button" data-testid="next" disabled={page.cursor === null} onClick={() => setCursors((c) => [...c, page.cursor ?? undefined])}>
              Next
            </button>
          </div>
        </>
      )}
    </Panel>
  );
}

interface EntryRead {
  readonly found: boolean;
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly etag: string | undefined;
  readonly expiresInSeconds: number | undefined;
  readonly lastModified: string | undefined;
}

async function readEntry(map: string, key: string, signal?: AbortSignal): Promise<EntryRead> {
  const res = await request(entryPath(map, key), { headers: { Accept: '*/*' }, ...(signal === undefined ? {} : { signal }) });
  const exp = res.headers.get('Grid-Expires-In');
  return {
    found: res.status === 200,
    bytes: new Uint8Array(await res.arrayBuffer()),
    contentType: res.headers.get('Content-Type') ?? '',
    etag: res.headers.get('ETag') ?? undefined,
    expiresInSeconds: exp === null ? undefined : Number(exp),
    lastModified: res.headers.get('Last-Modified') ?? undefined,
  };
}

/** How a value is shown: text for text types, pretty JSON for JSON that parses, hex for anything else. */
export function renderValue(bytes: Uint8Array, contentType: string): { kind: 'text' | 'json' | 'hex'; text: string } {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const isJson = type === 'application/json' || type.endsWith('+json');
  if (isJson || type.startsWith('text/')) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    if (isJson) {
      try {
        return { kind: 'json', text: JSON.stringify(JSON.parse(text), null, 2) };
      } catch {
        // Not JSON after all: shown as it is.
      }
    }
    return { kind: 'text', text };
  }
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = Array.from(bytes.subarray(i, i + 16), (b) => b.toString(16).padStart(2, '0')).join(' ');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${row}`);
  }
  return { kind: 'hex', text: lines.join('\n') };
}

function Entry(props: { map: string; entryKey: string; onChanged: () => void; onDeleted: () => void }) {
  const [read, setRead] = useState<EntryRead | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const load = (): void => {
    readEntry(props.map, props.entryKey).then((r) => { setRead(r); setError(undefined); }, setError);
  };
  useEffect(load, [props.map, props.entryKey]);
  if (read === undefined) return error !== undefined ? <ErrorView error={error} retry={load} /> : <Loading />;
  const shown = renderValue(read.bytes, read.contentType);
  const save = async (): Promise<void> => {
    if (editing === undefined || read.etag === undefined) return;
    try {
      await request(entryPath(props.map, props.entryKey), { method: 'PUT', body: editing, headers: { 'Content-Type': read.contentType || 'text/plain', 'If-Match': read.etag } });
      setMessage('Saved.');
      setEditing(undefined);
      props.onChanged();
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        // Someone wrote (or deleted) the entry since it was read: nothing was written; show theirs.
        setMessage('Not saved: the entry changed since you read it. Here is its current value; edit again.');
        setEditing(undefined);
        load();
      } else setMessage(`Not saved: ${describe(e)}`);
    }
  };
  const remove = async (): Promise<void> => {
    setConfirming(false);
    try {
      await request(entryPath(props.map, props.entryKey), { method: 'DELETE' });
      props.onDeleted();
    } catch (e) {
      setMessage(`Not deleted: ${describe(e)}`);
    }
  };
  return (
    <Panel title={`Entry ${props.entryKey}`} id="entry-title">
      {message !== undefined && <p role="status" data-testid="entry-message" class={message.startsWith('Saved') ? 'ok' : 'error'}>{message}</p>}
      {!read.found ? (
        <p class="muted" data-testid="entry-missing">No entry with this key (deleted or expired).</p>
      ) : (
        <>
          <dl class="facts">
            <div><dt>Content type</dt><dd data-testid="entry-type">{read.contentType || '—'}</dd></div>
            <div><dt>Version</dt><dd data-testid="entry-version">{read.etag?.replace(/"/g, '') ?? '—'}</dd></div>
            <div><dt>TTL left</dt><dd data-testid="entry-ttl">{read.expiresInSeconds === undefined ? 'never expires' : `${read.expiresInSeconds} s`}</dd></div>
            <div><dt>Last update</dt><dd>{read.lastModified === undefined ? '—' : new Date(read.lastModified).toLocaleString()}</dd></div>
            <div><dt>Size</dt><dd>{read.bytes.length} bytes</dd></div>
          </dl>
          {editing === undefined ? (
            <pre class={`value ${shown.kind}`} data-testid="entry-value" data-kind={shown.kind}>{shown.text}</pre>
          ) : (
            <textarea class="value mono" data-testid="edit-value" rows={8} value={editing} onInput={(e) => setEditing((e.currentTarget as HTMLTextAreaElement).value)} />
          )}
          <div class="actions">
            {editing === undefined ? (
              <button type="button" data-testid="edit" disabled={shown.kind === 'hex'} title={shown.kind === 'hex' ? 'binary values are not edited here' : undefined} onClick={() => { setMessage(undefined); setEditing(new TextDecoder().decode(read.bytes)); }}>
                Edit
              </button>
            ) : (
              <>
                <button type="button" class="primary" data-testid="save" onClick={() => void save()}>Save (if unchanged since version {read.etag?.replace(/"/g, '')})</button>
                <button type="button" onClick={() => setEditing(undefined)}>Cancel</button>
              </>
            )}
            <button type="button" onClick={load}>Reload</button>
            <button type="button" class="danger" data-testid="delete" onClick={() => setConfirming(true)}>Delete</button>
          </div>
        </>
      )}
      {confirming && (
        <Confirm title="Delete this entry?" confirmLabel="Delete" danger onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
          <p>Key <code>{props.entryKey}</code> of map <code>{props.map}</code> is removed on every member.</p>
        </Confirm>
      )}
    </Panel>
  );
}

const CONTENT_TYPES = ['text/plain', 'application/json', 'text/csv', 'application/xml'];

function PutEntry(props: { map: string; onPut: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [type, setType] = useState('text/plain');
  const [ttl, setTtl] = useState('');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const submit = async (): Promise<void> => {
    if (type === 'application/json') {
      try {
        JSON.parse(value);
      } catch (e) {
        setMessage(`Not put: the value is not JSON (${(e as Error).message})`);
        return;
      }
    }
    try {
      await request(`${entryPath(props.map, key)}${ttl.trim() === '' ? '' : `?ttl=${encodeURIComponent(ttl.trim())}`}`, { method: 'PUT', body: value, headers: { 'Content-Type': type } });
      setMessage(`Put ${key}.`);
      props.onPut(key);
    } catch (e) {
      setMessage(`Not put: ${describe(e)}`);
    }
  };
  return (
    <Panel title="Put an entry" id="put-title">
      <form class="put" data-testid="put-form" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <label>Key <input name="key" required value={key} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} /></label>
        <label>
          Content type
          <select name="contentType" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
            {CONTENT_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>TTL <input name="ttl" placeholder="map default; e.g. 30s, 5m, 0 = never" value={ttl} onInput={(e) => setTtl((e.currentTarget as HTMLInputElement).value)} /></label>
        <label class="wide">Value <textarea name="value" class="mono" rows={4} value={value} onInput={(e) => setValue((e.currentTarget as HTMLTextAreaElement).value)} /></label>
        <div class="actions"><button type="submit" class="primary" data-testid="put">Put</button>
          {message !== undefined && <span role="status" data-testid="put-message">{message}</span>}</div>
      </form>
    </Panel>
  );
}

interface FeedItem {
  readonly n: number;
  readonly type: string;
  readonly key: string;
  readonly value: string | undefined;
}

function Feed({ map }: { map: string }) {
  const [items, setItems] = useState<FeedItem[]>([]);
  const [state, setState] = useState<{ open: boolean; error?: unknown }>({ open: false });
  useEffect(() => {
    const ctrl = new AbortController();
    let n = 0;
    void followEvents(`rest/maps/${encodeURIComponent(map)}/events?values=true`, ctrl.signal, (e) => {
      let d: { key?: string; keyData?: string; value?: string; valueEncoding?: string; reason?: string; count?: number } = {};
      try {
        d = JSON.parse(e.data) as typeof d;
      } catch {
        // A non-JSON data line: shown as the key column's text.
      }
      const key = d.key ?? (d.keyData !== undefined ? `(Data) ${d.keyData}` : d.reason ?? (d.count !== undefined ? `${d.count} entries` : e.data));
      const value = d.value === undefined ? undefined : d.valueEncoding === 'base64' ? `(base64) ${d.value}` : d.value;
      // Newest first, and only the last FEED_MAX: an open page never grows without bound.
      setItems((old) => [{ n: n++, type: e.type, key, value }, ...old].slice(0, FEED_MAX));
    }, (open, error) => setState({ open, error }));
    return () => ctrl.abort();
  }, [map]);
  return (
    <Panel title="Live changes" id="feed-title" actions={<span class={`small ${state.open ? 'ok' : 'warn'}`} data-testid="feed-state">{state.open ? 'connected' : state.error === undefined ? 'connecting…' : `reconnecting (${describe(state.error)})`}</span>}>
      {items.length === 0 ? (
        <p class="muted">No changes since this page opened.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="feed">
            <thead><tr><th>Event</th><th>Key</th><th>Value</th></tr></thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.n} data-testid="feed-row">
                  <td>{i.type}</td>
                  <td class="mono">{i.key}</td>
                  <td class="mono clip">{i.value ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted small">The last {FEED_MAX} events, newest first.</p>
    </Panel>
  );
}
