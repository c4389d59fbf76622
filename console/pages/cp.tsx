// The CP page: the CP groups (leader, term, commit index from the serving member's Raft view,
// members, sessions), the CP members with promote and remove (confirmed), and a look-up of an
// atomic long or a lock by name (the member keeps no list of them to show). Reads
// rest/cp-subsystem/* and rest/cp (group CP); promote and remove take the credentials.

import { useState } from 'preact/hooks';
import { ApiError, getJson, postParams, request, usePoll, type Session } from '../api.js';
import { Confirm, ErrorView, Loading, Panel, formatDuration } from '../ui.js';
import type { PageProps } from './index.js';

interface CpMember {
  readonly uuid: string;
  readonly address: string;
}

interface CpSession {
  readonly id: number;
  readonly creationTime: number;
  readonly expirationTime: number;
  readonly endpoint: string;
  readonly endpointType: string;
  readonly endpointName: string;
}

interface LocalStatus {
  readonly enabled: boolean;
  readonly cpMemberUuid: string | undefined;
  readonly groups: readonly { name: string; role: string; term: number; leader: string | undefined; commitIndex: number; members: readonly string[] }[];
}

interface GroupRow {
  readonly name: string;
  readonly id: number;
  readonly members: readonly CpMember[];
  readonly sessions: readonly CpSession[];
}

interface CpView {
  readonly local: LocalStatus;
  readonly members: readonly CpMember[];
  readonly groups: readonly GroupRow[];
}

const POLL_MS = 2000;

/** The CP endpoints write addresses in Hazelcast's shape (`[127.0.0.1]:5701`); the console shows them as the other pages do. */
const plain = (m: CpMember): CpMember => ({ uuid: m.uuid, address: m.address.replace(/^\[([0-9.]+|[^\]:]+)\]:/, '$1:') });

async function loadCp(signal: AbortSignal): Promise<CpView> {
  const local = await getJson<LocalStatus>('rest/cp', signal);
  if (!local.enabled) return { local, members: [], groups: [] };
  const [members, names] = await Promise.all([getJson<CpMember[]>('rest/cp-subsystem/members', signal), getJson<{ name: string; id: number }[]>('rest/cp-subsystem/groups', signal)]);
  const groups = await Promise.all(
    names.map(async (g) => {
      const path = `rest/cp-subsystem/groups/${encodeURIComponent(g.name)}`;
      const [view, sessions] = await Promise.all([getJson<{ members: CpMember[] }>(path, signal), getJson<CpSession[]>(`${path}/sessions`, signal)]);
      return { name: g.name, id: g.id, members: view.members, sessions };
    }),
  );
  return { local, members: members.map(plain), groups: groups.map((g) => ({ ...g, members: g.members.map(plain) })) };
}

export function CpPage({ session }: PageProps) {
  const poll = usePoll(loadCp, POLL_MS, [session]);
  const v = poll.data;
  if (v === undefined) return poll.error !== undefined ? <ErrorView error={poll.error} retry={poll.refresh} /> : <Loading />;
  if (!v.local.enabled)
    return (
      <div class="page" data-testid="cp-page">
        <Panel title="CP subsystem" id="cp-title">
          <p class="muted" data-testid="cp-off">
            The CP subsystem is off in this cluster (<code>cp-subsystem.cp-member-count</code> is 0; docs/cp-subsystem.md).
          </p>
        </Panel>
      </div>
    );
  const addressOf = new Map(v.members.map((m) => [m.uuid, m.address]));
  const raft = new Map(v.local.groups.map((g) => [g.name, g]));
  return (
    <div class="page" data-testid="cp-page">
      {poll.error !== undefined && <ErrorView error={poll.error} retry={poll.refresh} />}
      <Panel title="CP groups" id="cp-groups-title">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Group</th>
                <th>Leader</th>
                <th>Term</th>
                <th>Commit index</th>
                <th>Members</th>
                <th>Sessions</th>
              </tr>
            </thead>
            <tbody>
              {v.groups.map((g) => {
                const r = raft.get(g.name);
                return (
                  <tr key={g.name} data-testid="cp-group-row" data-group={g.name}>
                    <td>{g.name}</td>
                    <td data-testid="cp-leader">{r === undefined ? <span class="muted">not hosted here</span> : r.leader === undefined ? 'electing…' : (addressOf.get(r.leader) ?? r.leader)}</td>
                    <td class="num">{r?.term ?? '—'}</td>
                    <td class="num">{r?.commitIndex ?? '—'}</td>
                    <td>
                      {g.members.map((m) => (
                        <div key={m.uuid}>{m.address}</div>
                      ))}
                    </td>
                    <td>
                      {g.sessions.length === 0
                        ? '0'
                        : g.sessions.map((s) => (
                            <div key={s.id} title={`created ${new Date(s.creationTime).toISOString()}`}>
                              #{s.id} {s.endpointType} {s.endpointName || s.endpoint}, expires in {formatDuration(s.expirationTime - Date.now())}
                            </div>
                          ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </Panel>
      <Members session={session} view={v} onDone={poll.refresh} />
      <Lookup />
    </div>
  );
}

function Members({ session, view, onDone }: { session: Session; view: CpView; onDone: () => void }) {
  const [confirm, setConfirm] = useState<{ kind: 'promote' } | { kind: 'remove'; member: CpMember } | undefined>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const run = async (): Promise<void> => {
    const c = confirm;
    setConfirm(undefined);
    setError(undefined);
    setDone(undefined);
    if (c === undefined) return;
    try {
      if (c.kind === 'promote') await postParams('rest/cp-subsystem/members', session, []);
      else await postParams(`rest/cp-subsystem/members/${encodeURIComponent(c.member.uuid)}/remove`, session, []);
      setDone(c.kind === 'promote' ? `${session.memberAddress} is promoted to a CP member.` : `${c.member.address} is removed from the CP members.`);
      onDone();
    } catch (e) {
      setError(e);
    }
  };
  const isCp = view.members.some((m) => m.uuid === view.local.cpMemberUuid);
  return (
    <Panel
      title="CP members"
      id="cp-members-title"
      actions={
        !isCp && (
          <button type="button" onClick={() => setConfirm({ kind: 'promote' })}>
            Promote this member
          </button>
        )
      }
    >
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Address</th>
              <th>CP uuid</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {view.members.map((m) => (
              <tr key={m.uuid} data-testid="cp-member-row">
                <td>
                  {m.address}
                  {m.uuid === view.local.cpMemberUuid && <span class="muted"> (this member)</span>}
                </td>
                <td>
                  <code>{m.uuid}</code>
                </td>
                <td>
                  <button type="button" class="link" onClick={() => setConfirm({ kind: 'remove', member: m })}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {done !== undefined && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      {error !== undefined && <ErrorView error={error} />}
      {confirm !== undefined && (
        <Confirm
          title={confirm.kind === 'promote' ? 'Promote this member?' : `Remove ${confirm.member.address}?`}
          confirmLabel={confirm.kind === 'promote' ? 'Promote' : 'Remove'}
          danger={confirm.kind === 'remove'}
          onConfirm={() => void run()}
          onCancel={() => setConfirm(undefined)}
        >
          {confirm.kind === 'promote'
            ? `${session.memberAddress} becomes a CP member and joins the CP groups that are short of members.`
            : 'Remove only a CP member that is gone for good: its seats in the CP groups go to other CP members. A CP group that loses its majority stops answering.'}
        </Confirm>
      )}
    </Panel>
  );
}

/** Atomic longs and locks live in CP groups created on first use; the member lists none, so the page looks one up by name. */
function Lookup() {
  const [kind, setKind] = useState<'atomiclongs' | 'locks'>('atomiclongs');
  const [name, setName] = useState('');
  const [answer, setAnswer] = useState<{ title: string; text: string }>();
  const [error, setError] = useState<unknown>();
  const look = async (): Promise<void> => {
    setError(undefined);
    setAnswer(undefined);
    try {
      const path = `rest/cp/${kind}/${encodeURIComponent(name)}`;
      if (kind === 'atomiclongs') {
        setAnswer({ title: `Atomic long ${name}`, text: await (await request(path)).text() });
      } else {
        const l = await getJson<{ locked: boolean; sessionId: number; fence: number; lockCount: number; waiters: number; group: string }>(path);
        setAnswer({ title: `Lock ${name}`, text: l.locked ? `held by session ${l.sessionId} (count ${l.lockCount}, fence ${l.fence}), ${l.waiters} waiting, group ${l.group}` : `free, ${l.waiters} waiting, group ${l.group}` });
      }
    } catch (e) {
      setError(e instanceof ApiError && e.status === 404 ? new Error(`no ${kind === 'locks' ? 'lock' : 'atomic long'} named ${name}`) : e);
    }
  };
  return (
    <Panel title="Atomic longs and locks" id="cp-lookup-title">
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void look();
        }}
      >
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'atomiclongs' | 'locks')}>
            <option value="atomiclongs">Atomic long</option>
            <option value="locks">Lock</option>
          </select>
        </label>
        <label>
          Name (<code>name@group</code> for a custom group)
          <input required value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} data-testid="cp-lookup-name" />
        </label>
        <button type="submit" class="primary">
          Look up
        </button>
      </form>
      {answer !== undefined && (
        <p data-testid="cp-lookup-answer">
          <strong>{answer.title}:</strong> {answer.text}
        </p>
      )}
      {error !== undefined && <ErrorView error={error} />}
    </Panel>
  );
}
