// Every CP REST endpoint and its errors, through the real HTTP interface of a started cluster of
// three CP members (member processes of bin/grid.js; a fourth AP member and a fifth lite member
// join for the membership endpoints): Hazelcast's management endpoints under
// /rest/cp-subsystem (groups, sessions, members, promotion, reset) and Grid's own data
// endpoints under /rest/cp (atomic longs, fenced locks, sessions, the local status). One
// cluster serves every test of the shared block, each test on its own names; the reset runs
// last. A lone member without CP checks the "not enabled" answer of the paths that
// test/http/misc-endpoints.test.ts does not already cover.

import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster, type ConfigFragment, type HttpResponse } from '../support/cluster.js';
import { pollUntil, sendRequest } from '../support/http.js';
import { startMember } from '../support/member.js';
import { sleep } from '../support/wait.js';

const MGMT = '/hazelcast/rest/cp-subsystem';
const MGMT_GRID = '/grid/rest/cp-subsystem';
const CP = '/grid/rest/cp';
const CP_HZ = '/hazelcast/rest/cp';
const MAX_LONG = '9223372036854775807';
const MIN_LONG = '-9223372036854775808';
const SESSION_TTL_MS = 4_000;
const CP_OFF = 'CP subsystem is not enabled';

const cpConfig = (): ConfigFragment => ({
  network: { 'rest-api': { 'endpoint-groups': { CP: { enabled: true } } } },
  'cp-subsystem': {
    'cp-member-count': 3,
    'session-time-to-live-seconds': SESSION_TTL_MS / 1000,
    'session-heartbeat-interval-seconds': 1,
    'raft-algorithm': { 'leader-election-timeout-in-millis': 500, 'leader-heartbeat-period-in-millis': 200 },
  },
});

// ---------------------------------------------------------------- answer shapes

interface GroupId {
  name: string;
  id: number;
}
interface CpMember {
  uuid: string;
  address: string;
}
interface GroupView {
  id: GroupId;
  status: string;
  members: CpMember[];
}
interface SessionView {
  id: number;
  creationTime: number;
  expirationTime: number;
  version: number;
  endpoint: string;
  endpointType: string;
  endpointName: string;
}
interface LockResult {
  acquired: boolean;
  fence: number;
  sessionId: number;
  lockCount: number;
  group: string;
}
interface LockInfo {
  locked: boolean;
  sessionId: number;
  fence: number;
  lockCount: number;
  waiters: number;
  group: string;
}
interface LocalStatus {
  enabled: boolean;
  seed?: number;
  cpMemberUuid?: string;
  viewVersion?: number;
  groups: { name: string; id: number; role: string; term: number; leader?: string; commitIndex: number; lastApplied: number; members: string[] }[];
}

// ---------------------------------------------------------------- the shared cluster

let c: Cluster;
let failed = false;

const get = (i: number, path: string, timeoutMs?: number): Promise<HttpResponse> => c.http(i, 'GET', path, undefined, { timeoutMs });
const post = (i: number, path: string, body?: string, timeoutMs?: number): Promise<HttpResponse> => c.http(i, 'POST', path, body, { timeoutMs });
/** A management POST with the credentials `<cluster-name>&` (or `body`). */
const mgmt = (i: number, op: string, body = `${c.clusterName}&`, prefix = MGMT): Promise<HttpResponse> => post(i, `${prefix}/${op}`, body);

function json<T>(res: HttpResponse, what = ''): T {
  expect(res.status, `${what} ${res.status} ${String(res.headers['x-grid-error'] ?? '')}`).toBe(200);
  expect(res.headers['content-type']).toBe('application/json');
  return JSON.parse(res.body) as T;
}

function text(res: HttpResponse, what = ''): string {
  expect(res.status, `${what} ${res.status} ${String(res.headers['x-grid-error'] ?? '')}`).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain');
  return res.body;
}

/** An error answer: the status, an empty body and an X-Grid-Error reason (matching `reason`). */
function expectError(res: HttpResponse, status: number, reason?: RegExp | string, what = ''): void {
  expect(res.status, `${what} ${res.status} ${String(res.headers['x-grid-error'] ?? '')}`).toBe(status);
  expect(res.body, what).toBe('');
  expect(res.headers['content-length'], what).toBe('0');
  const header = res.headers['x-grid-error'];
  expect(typeof header === 'string' && header.length > 0, `${what}: X-Grid-Error header`).toBe(true);
  if (typeof reason === 'string') expect(header, what).toBe(reason);
  else if (reason !== undefined) expect(header, what).toMatch(reason);
}

const along = async (i: number, name: string, prefix = CP): Promise<string> => text(await get(i, `${prefix}/atomiclongs/${name}`), `GET atomic long ${name}`);
const setLong = async (i: number, name: string, value: string): Promise<string> => text(await post(i, `${CP}/atomiclongs/${name}/set`, value), `set ${name}`);
const addAndGet = async (i: number, name: string, delta: string): Promise<string> => text(await post(i, `${CP}/atomiclongs/${name}/addAndGet`, delta), `addAndGet ${name}`);

async function lock(i: number, name: string, query = '', timeoutMs?: number): Promise<LockResult> {
  return json<LockResult>(await post(i, `${CP}/locks/${name}/lock${query}`, undefined, timeoutMs), `lock ${name}${query}`);
}
const lockInfo = async (i: number, name: string): Promise<LockInfo> => json<LockInfo>(await get(i, `${CP}/locks/${name}`), `GET lock ${name}`);
const unlock = async (i: number, name: string, sessionId: number): Promise<{ lockCount: number }> =>
  json<{ lockCount: number }>(await post(i, `${CP}/locks/${name}/unlock?sessionId=${sessionId}`), `unlock ${name} by ${sessionId}`);
const sessions = async (i: number, group: string): Promise<SessionView[]> => json<SessionView[]>(await get(i, `${MGMT}/groups/${group}/sessions`), `sessions of ${group}`);
const groups = async (i: number, prefix = MGMT): Promise<GroupId[]> => json<GroupId[]>(await get(i, `${prefix}/groups`), 'GET groups');
const cpMembers = async (i: number): Promise<CpMember[]> => json<CpMember[]>(await get(i, `${MGMT}/members`), 'GET members');
const status = async (i: number): Promise<LocalStatus> => json<LocalStatus>(await get(i, CP), 'GET rest/cp');

/** Hazelcast's `[host]:port` of member `i`. */
const addressOf = (i: number): string => `[127.0.0.1]:${c.member(i).port}`;

/** Until every asked member agrees on one leader of METADATA and of default, each of them a CP member. */
async function waitForLeaders(among: readonly number[]): Promise<LocalStatus[]> {
  let all: LocalStatus[] = [];
  await pollUntil(
    async () => (all = await Promise.all(among.map((i) => status(i)))),
    (list) =>
      ['METADATA', 'default'].every((g) => {
        const views = list.map((s) => s.groups.find((x) => x.name === g));
        const leader = views[0]?.leader;
        return leader !== undefined && views.every((v) => v?.leader === leader) && views.filter((v) => v?.role === 'leader').length === 1;
      }),
    { timeoutMs: 15_000, intervalMs: 100, what: 'one agreed leader of METADATA and default' },
  );
  return all;
}

describe('CP REST on a 3-member CP cluster', () => {
  beforeAll(async () => {
    c = await startCluster({ size: 3, scope: 'file', config: cpConfig, spare: 2 });
    // Formed once the management API answers (a request before may be refused 503).
    await pollUntil(async () => (await get(0, `${MGMT}/groups`)).status, (s) => s === 200, { timeoutMs: 20_000, intervalMs: 100, what: 'the CP subsystem to form' });
  }, 60_000);

  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    await c?.destroy({ keepFiles: failed, report: failed });
  });

  // ------------------------------------------------------------ status

  it('GET rest/cp: the local status of each CP member (seed, view, the groups it hosts with role, term and leader)', async () => {
    const all = await waitForLeaders([0, 1, 2]);
    const members = await cpMembers(0);
    const seed = all[0]!.seed;
    expect(typeof seed === 'number' && seed > 0).toBe(true);
    for (const [i, s] of all.entries()) {
      expect(s.enabled, `m${i}`).toBe(true);
      expect(s.seed, `m${i}: one seed`).toBe(seed);
      expect(s.viewVersion, `m${i}`).toBeGreaterThanOrEqual(0);
      expect(members.map((m) => m.uuid), `m${i}: its cpMemberUuid is a CP member`).toContain(s.cpMemberUuid);
      const meta = s.groups.find((g) => g.name === 'METADATA');
      const def = s.groups.find((g) => g.name === 'default');
      expect(meta?.id, `m${i}`).toBe(0);
      expect(def?.id, `m${i}`).toBe(1);
      for (const g of [meta!, def!]) {
        expect(['leader', 'follower'], `m${i} ${g.name}`).toContain(g.role);
        expect(g.term, `m${i} ${g.name}`).toBeGreaterThanOrEqual(1);
        expect([...g.members].sort(), `m${i} ${g.name}`).toEqual(members.map((m) => m.uuid).sort());
        expect(g.lastApplied, `m${i} ${g.name}`).toBeLessThanOrEqual(g.commitIndex);
      }
    }
    // The leader each member names is the member that says it leads.
    for (const g of ['METADATA', 'default']) {
      const leader = all.find((s) => s.groups.find((x) => x.name === g)?.role === 'leader')!;
      expect(all[0]!.groups.find((x) => x.name === g)?.leader, g).toBe(leader.cpMemberUuid);
    }
    // Three distinct CP members: the first CP members, under their member uuids (as Hazelcast's).
    expect(new Set(all.map((s) => s.cpMemberUuid)).size).toBe(3);
    expect(all.map((s) => s.cpMemberUuid)).toEqual([0, 1, 2].map((i) => c.member(i).uuid));
  });

  // ------------------------------------------------------------ groups

  it('GET groups lists METADATA (id 0) and default (id 1) under both prefixes; a group appears once used', async () => {
    for (const prefix of [MGMT, MGMT_GRID]) {
      const list = await groups(0, prefix);
      expect(list, prefix).toContainEqual({ name: 'METADATA', id: 0 });
      expect(list, prefix).toContainEqual({ name: 'default', id: 1 });
      for (const g of list) expect(Object.keys(g), prefix).toEqual(['name', 'id']);
      expect(list.map((g) => g.name), prefix).not.toContain('g1');
    }
    expect(await addAndGet(1, 'x@g1', '3')).toBe('3');
    const after = await groups(2);
    const g1 = after.find((g) => g.name === 'g1');
    expect(g1, JSON.stringify(after)).toBeDefined();
    expect(g1!.id).toBeGreaterThanOrEqual(2);
    // Ids are distinct.
    expect(new Set(after.map((g) => g.id)).size).toBe(after.length);
  });

  it('GET groups/<name>: id, ACTIVE and the CP members with [host]:port addresses; 404 for an unknown group', async () => {
    const members = await cpMembers(1);
    const ports = [0, 1, 2].map(addressOf).sort();
    for (const [name, id] of [
      ['default', 1],
      ['METADATA', 0],
    ] as const) {
      const g = json<GroupView>(await get(1, `${MGMT}/groups/${name}`), name);
      expect(Object.keys(g)).toEqual(['id', 'status', 'members']);
      expect(g.id).toEqual({ name, id });
      expect(g.status).toBe('ACTIVE');
      expect(g.members.map((m) => m.address).sort(), name).toEqual(ports);
      expect(g.members.map((m) => m.uuid).sort(), name).toEqual(members.map((m) => m.uuid).sort());
      for (const m of g.members) expect(Object.keys(m)).toEqual(['uuid', 'address']);
    }
    await addAndGet(0, 'y@g2', '1');
    const g2 = json<GroupView>(await get(2, `${MGMT_GRID}/groups/g2`), 'g2');
    expect(g2.id.name).toBe('g2');
    expect(g2.id.id).toBeGreaterThanOrEqual(2);
    expect(g2.members).toHaveLength(3);
    expectError(await get(0, `${MGMT}/groups/nosuchgroup`), 404, /nosuchgroup/);
    expectError(await get(0, `${MGMT}/groups/nosuchgroup/sessions`), 404, /nosuchgroup/);
  });

  // ------------------------------------------------------------ atomic longs

  it('atomic longs: 0 when unset, set, addAndGet, compareAndSet, under both prefixes', async () => {
    expect(await along(0, 'al1')).toBe('0');
    expect(await along(1, 'al1', CP_HZ)).toBe('0');
    expect(await setLong(0, 'al1', '41')).toBe('41');
    expect(await along(2, 'al1', CP_HZ)).toBe('41');
    expect(await addAndGet(1, 'al1', '1')).toBe('42');
    expect(await addAndGet(2, 'al1', '-50')).toBe('-8');
    expect(await along(0, 'al1')).toBe('-8');
    expect(text(await post(0, `${CP_HZ}/atomiclongs/al1/addAndGet`, '8'))).toBe('0');

    await setLong(0, 'cas1', '5');
    expect(text(await post(1, `${CP}/atomiclongs/cas1/compareAndSet`, '4&10'))).toBe('false');
    expect(await along(2, 'cas1')).toBe('5');
    expect(text(await post(1, `${CP}/atomiclongs/cas1/compareAndSet`, '5&10'))).toBe('true');
    expect(await along(2, 'cas1')).toBe('10');
    // An unset long is 0 for compareAndSet too.
    expect(text(await post(2, `${CP}/atomiclongs/cas-unset/compareAndSet`, '0&7'))).toBe('true');
    expect(await along(0, 'cas-unset')).toBe('7');
  });

  it('atomic longs are Java longs: MAX + 1 wraps to MIN and back; the extremes can be set', async () => {
    expect(await setLong(0, 'wrap', MAX_LONG)).toBe(MAX_LONG);
    expect(await addAndGet(1, 'wrap', '1')).toBe(MIN_LONG);
    expect(await along(2, 'wrap')).toBe(MIN_LONG);
    expect(await addAndGet(2, 'wrap', '-1')).toBe(MAX_LONG);
    expect(await setLong(0, 'wrap', MIN_LONG)).toBe(MIN_LONG);
    expect(await addAndGet(0, 'wrap', MIN_LONG)).toBe('0');
  });

  it('bad bodies are 400 with X-Grid-Error and change nothing', async () => {
    await setLong(0, 'bad', '17');
    for (const body of ['', 'abc', '1.5', '9223372036854775808', '-9223372036854775809', '0x10', '1e3']) {
      expectError(await post(1, `${CP}/atomiclongs/bad/set`, body), 400, undefined, `set ${JSON.stringify(body)}`);
      expectError(await post(2, `${CP}/atomiclongs/bad/addAndGet`, body), 400, undefined, `addAndGet ${JSON.stringify(body)}`);
    }
    for (const body of ['', '17', '1&2&3', '&5', '17&', 'abc&5', '17&1.5', `17&${MAX_LONG}0`]) {
      expectError(await post(0, `${CP}/atomiclongs/bad/compareAndSet`, body), 400, undefined, `compareAndSet ${JSON.stringify(body)}`);
    }
    expect(await along(1, 'bad')).toBe('17');
    expect(await along(2, 'bad')).toBe('17');
  });

  it('linearizable from any member: a write answered through member 0 is seen by reads through 1 and 2 at once', async () => {
    for (let n = 1; n <= 15; n++) {
      const written = await addAndGet(0, 'lin', '1');
      expect(written).toBe(String(n));
      const [r1, r2] = await Promise.all([along(1, 'lin'), along(2, 'lin')]);
      expect([r1, r2], `after write ${n}`).toEqual([written, written]);
    }
    // And the other way round.
    const w = await setLong(2, 'lin', '1000');
    expect(await Promise.all([along(0, 'lin'), along(1, 'lin')])).toEqual([w, w]);
  });

  it('name@group: a@g1 and a are different values; a@METADATA, a@, @g1 and a@b@c are 400', async () => {
    expect(await setLong(0, 'a@g1', '5')).toBe('5');
    expect(await setLong(1, 'a', '7')).toBe('7');
    expect(await along(2, 'a@g1')).toBe('5');
    expect(await along(2, 'a')).toBe('7');
    // Percent-encoded `@` names the same value.
    expect(await along(0, 'a%40g1')).toBe('5');
    expect(await addAndGet(0, 'a@g1', '1')).toBe('6');
    expect(await along(1, 'a')).toBe('7');
    for (const name of ['a@METADATA', 'a@', '@g1', 'a@b@c']) {
      expectError(await get(0, `${CP}/atomiclongs/${name}`), 400, undefined, `GET ${name}`);
      expectError(await post(1, `${CP}/atomiclongs/${name}/set`, '1'), 400, undefined, `set ${name}`);
      expectError(await post(2, `${CP}/locks/${name}/lock`), 400, undefined, `lock ${name}`);
    }
    expectError(await get(0, `${CP}/atomiclongs/a@METADATA`), 400, /METADATA/);
    // None of them created a group.
    const names = (await groups(0)).map((g) => g.name);
    expect(names.filter((n) => n === 'METADATA')).toHaveLength(1);
    for (const n of ['', 'b@c', 'b']) expect(names).not.toContain(n);
  });

  // ------------------------------------------------------------ locks

  it('locks: acquire, reentrant on the same session (same fence), tryLock of another caller fails, GET shows the holder', async () => {
    const a = await lock(0, 'l1');
    expect(a).toEqual({ acquired: true, fence: expect.any(Number) as number, sessionId: expect.any(Number) as number, lockCount: 1, group: 'default' });
    expect(a.fence).toBeGreaterThan(0);
    expect(a.sessionId).toBeGreaterThan(0);

    const again = await lock(1, 'l1', `?sessionId=${a.sessionId}`);
    expect(again).toEqual({ acquired: true, fence: a.fence, sessionId: a.sessionId, lockCount: 2, group: 'default' });

    const other = await lock(2, 'l1', '?timeoutMs=0');
    expect(other.acquired).toBe(false);
    expect(other.lockCount).toBe(0);
    expect(other.sessionId).toBeGreaterThan(0);
    expect(other.sessionId).not.toBe(a.sessionId);

    expect(await lockInfo(2, 'l1')).toEqual({ locked: true, sessionId: a.sessionId, fence: a.fence, lockCount: 2, waiters: 0, group: 'default' });

    // Not the holder: 409, nothing released.
    expectError(await post(0, `${CP}/locks/l1/unlock?sessionId=${other.sessionId}`), 409);
    expect((await lockInfo(0, 'l1')).lockCount).toBe(2);

    expect(await unlock(1, 'l1', a.sessionId)).toEqual({ lockCount: 1 });
    expect(await lockInfo(0, 'l1')).toMatchObject({ locked: true, sessionId: a.sessionId, lockCount: 1 });
    // The session id may come in the body too.
    expect(json(await post(2, `${CP}/locks/l1/unlock`, String(a.sessionId)))).toEqual({ lockCount: 0 });
    expect(await lockInfo(1, 'l1')).toEqual({ locked: false, sessionId: 0, fence: 0, lockCount: 0, waiters: 0, group: 'default' });
    // Free now: not held by anyone, so a further unlock is a 409.
    expectError(await post(0, `${CP}/locks/l1/unlock?sessionId=${a.sessionId}`), 409);

    // The next holder (the session that failed before) gets a larger fence.
    const next = await lock(0, 'l1', `?sessionId=${other.sessionId}&timeoutMs=0`);
    expect(next).toMatchObject({ acquired: true, sessionId: other.sessionId, lockCount: 1 });
    expect(next.fence).toBeGreaterThan(a.fence);
    await unlock(0, 'l1', other.sessionId);
  });

  it('locks: a lock in another group; bad parameters 400; an unknown session 404', async () => {
    const g = await lock(0, 'l2@lg');
    expect(g).toMatchObject({ acquired: true, lockCount: 1, group: 'lg' });
    expect(await lockInfo(1, 'l2@lg')).toMatchObject({ locked: true, sessionId: g.sessionId, group: 'lg' });
    // The same name in default is another lock.
    expect(await lockInfo(1, 'l2')).toMatchObject({ locked: false, group: 'default' });
    expect(await unlock(2, 'l2@lg', g.sessionId)).toEqual({ lockCount: 0 });

    for (const q of ['?sessionId=abc', '?sessionId=-1', '?timeoutMs=-5', '?timeoutMs=1.5']) {
      expectError(await post(0, `${CP}/locks/l2/lock${q}`), 400, /sessionId|timeoutMs/, q);
    }
    expectError(await post(0, `${CP}/locks/l2/unlock`), 400, undefined, 'unlock without a session');
    expectError(await post(0, `${CP}/locks/l2/unlock`, 'abc'), 400, undefined, 'unlock with session abc');
    expectError(await post(1, `${CP}/locks/l2/lock?sessionId=987654321`), 404, /987654321/);
    expectError(await post(1, `${CP}/locks/l2/unlock?sessionId=987654321`), 404, /987654321/);
    expect((await lockInfo(2, 'l2')).locked).toBe(false);
  });

  it('a waiter sent before the unlock gets the lock when it is released, with a larger fence', async () => {
    const h = await lock(0, 'w1');
    const sent = Date.now();
    const waiting = post(1, `${CP}/locks/w1/lock?timeoutMs=10000`, undefined, 20_000);
    await pollUntil(() => lockInfo(2, 'w1'), (i) => i.waiters === 1, { timeoutMs: 5_000, intervalMs: 50, what: 'the waiter queued' });
    expect(await unlock(0, 'w1', h.sessionId)).toEqual({ lockCount: 0 });
    const got = json<LockResult>(await waiting, 'the waiter');
    expect(Date.now() - sent).toBeLessThan(9_000);
    expect(got).toMatchObject({ acquired: true, lockCount: 1, group: 'default' });
    expect(got.sessionId).not.toBe(h.sessionId);
    expect(got.fence).toBeGreaterThan(h.fence);
    expect(await lockInfo(0, 'w1')).toEqual({ locked: true, sessionId: got.sessionId, fence: got.fence, lockCount: 1, waiters: 0, group: 'default' });
    await unlock(2, 'w1', got.sessionId);
  });

  it('a waiter whose timeoutMs passes gets acquired:false; the holder keeps the lock', async () => {
    const h = await lock(0, 'w2');
    const sent = Date.now();
    const res = json<LockResult>(await post(2, `${CP}/locks/w2/lock?timeoutMs=1000`, undefined, 15_000), 'the waiter');
    const waitedMs = Date.now() - sent;
    expect(res.acquired).toBe(false);
    expect(res.lockCount).toBe(0);
    expect(res.sessionId).not.toBe(h.sessionId);
    expect(waitedMs).toBeGreaterThanOrEqual(950);
    expect(waitedMs).toBeLessThan(8_000);
    expect(await lockInfo(1, 'w2')).toEqual({ locked: true, sessionId: h.sessionId, fence: h.fence, lockCount: 1, waiters: 0, group: 'default' });
    await unlock(0, 'w2', h.sessionId);
  });

  it('a lock waiter whose HTTP client goes away is taken off the queue: the lock is not granted to it', async () => {
    const held = await c.http(0, 'POST', '/grid/rest/cp/locks/gone/lock');
    expect(held.status).toBe(200);
    const holder = JSON.parse(held.body) as { sessionId: number; fence: number };
    const info = async (): Promise<{ locked: boolean; sessionId: number; waiters: number }> => c.json(1, '/grid/rest/cp/locks/gone');
    // A waiter that disconnects while it waits.
    const req = http.request({ host: '127.0.0.1', port: c.member(2).port, method: 'POST', path: '/grid/rest/cp/locks/gone/lock?timeoutMs=60000', headers: { 'content-length': '0' } });
    req.on('error', () => undefined);
    req.end();
    await pollUntil(info, (i) => i.waiters === 1, { timeoutMs: 10_000, what: 'the waiter queued' });
    req.destroy();
    await pollUntil(info, (i) => i.waiters === 0, { timeoutMs: 10_000, what: 'the waiter taken off the queue' });
    expect((await c.http(0, 'POST', `/grid/rest/cp/locks/gone/unlock?sessionId=${holder.sessionId}`)).status).toBe(200);
    const after = await info();
    expect(after.locked).toBe(false);
  });

  // ------------------------------------------------------------ sessions

  it('GET groups/<name>/sessions: Hazelcast shape; METADATA has none; POST sessions/<id>/remove releases its lock, then 400', async () => {
    const before = Date.now();
    const l = await lock(0, 's1@sg', '?endpointName=cp-rest-test');
    const list = await sessions(1, 'sg');
    const s = list.find((x) => x.id === l.sessionId);
    expect(s, JSON.stringify(list)).toBeDefined();
    expect(Object.keys(s!)).toEqual(['id', 'creationTime', 'expirationTime', 'version', 'endpoint', 'endpointType', 'endpointName']);
    expect(s!.endpointType).toBe('CLIENT');
    expect(s!.endpointName).toBe('cp-rest-test');
    expect(s!.endpoint).toMatch(/^\[(::ffff:)?127\.0\.0\.1\]:[1-9][0-9]*$/);
    expect(s!.version).toBe(0);
    expect(s!.creationTime).toBeGreaterThanOrEqual(before - 1_000);
    expect(s!.creationTime).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(s!.expirationTime - s!.creationTime).toBe(SESSION_TTL_MS);
    // Using the session refreshes it.
    await lock(2, 's1@sg', `?sessionId=${l.sessionId}`);
    const refreshed = (await sessions(0, 'sg')).find((x) => x.id === l.sessionId)!;
    expect(refreshed.version).toBe(1);
    expect(refreshed.expirationTime).toBeGreaterThanOrEqual(s!.expirationTime);
    expect(await sessions(0, 'METADATA')).toEqual([]);

    // Removing it: credentials first, then the session and its lock are gone.
    expectError(await mgmt(0, `groups/sg/sessions/${l.sessionId}/remove`, 'wrongcluster&'), 403);
    expect((await lockInfo(0, 's1@sg')).locked).toBe(true);
    const removed = await mgmt(1, `groups/sg/sessions/${l.sessionId}/remove`);
    expect(removed.status, String(removed.headers['x-grid-error'] ?? '')).toBe(200);
    expect(await lockInfo(2, 's1@sg')).toMatchObject({ locked: false, lockCount: 0 });
    expect((await sessions(2, 'sg')).map((x) => x.id)).not.toContain(l.sessionId);
    expectError(await mgmt(0, `groups/sg/sessions/${l.sessionId}/remove`), 400, new RegExp(String(l.sessionId)));
    expectError(await mgmt(0, 'groups/sg/sessions/abc/remove'), 400);
    expectError(await mgmt(0, `groups/nosuchgroup/sessions/${l.sessionId}/remove`), 400);
  });

  it('heartbeats keep a session alive past its TTL; a session without them expires and releases its lock', async () => {
    const kept = await lock(0, 'keep@hb');
    const lapsed = await lock(1, 'lapse@hb');
    expect(kept.acquired && lapsed.acquired).toBe(true);
    const ids = (await sessions(2, 'hb')).map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining([kept.sessionId, lapsed.sessionId]));

    let lastExpiration = 0;
    for (let n = 1; n <= 6; n++) {
      await sleep(1_000); // pacing: heartbeats a second apart, so each must move the expiration on (a duration, not a wait for something)
      const hb = json<{ sessionId: number; expirationTime: number }>(await post(n % 3, `${CP}/sessions/hb/${kept.sessionId}/heartbeat`), `heartbeat ${n}`);
      expect(hb.sessionId).toBe(kept.sessionId);
      expect(hb.expirationTime, `heartbeat ${n}`).toBeGreaterThan(lastExpiration);
      expect(hb.expirationTime).toBeGreaterThan(Date.now() + SESSION_TTL_MS - 2_000);
      lastExpiration = hb.expirationTime;
      // Within its TTL the other session still holds its lock.
      if (n === 2) expect((await lockInfo(2, 'lapse@hb')).sessionId, 'the lapsing session within its TTL').toBe(lapsed.sessionId);
    }
    // 6 s on: the kept session holds its lock; the other one expired (within a housekeeping round).
    expect(await lockInfo(1, 'keep@hb')).toMatchObject({ locked: true, sessionId: kept.sessionId, fence: kept.fence, lockCount: 1 });
    await pollUntil(() => lockInfo(2, 'lapse@hb'), (i) => !i.locked, { timeoutMs: 3_000, intervalMs: 100, what: 'the lapsed session to release its lock' });
    const left = (await sessions(0, 'hb')).map((s) => s.id);
    expect(left).toContain(kept.sessionId);
    expect(left).not.toContain(lapsed.sessionId);
    expectError(await post(0, `${CP}/sessions/hb/${lapsed.sessionId}/heartbeat`), 404, new RegExp(String(lapsed.sessionId)));
    const next = await lock(2, 'lapse@hb', '?timeoutMs=0');
    expect(next.acquired).toBe(true);
    expect(next.fence).toBeGreaterThan(lapsed.fence);

    // Closing a session releases its lock; a second close, and an unknown group, are 404.
    expect(json(await post(1, `${CP}/sessions/hb/${kept.sessionId}/close`))).toEqual({ closed: true });
    expect((await lockInfo(0, 'keep@hb')).locked).toBe(false);
    expect((await sessions(0, 'hb')).map((s) => s.id)).not.toContain(kept.sessionId);
    expectError(await post(1, `${CP}/sessions/hb/${kept.sessionId}/close`), 404);
    expectError(await post(1, `${CP}/sessions/nosuchgroup/1/close`), 404);
    expectError(await post(1, `${CP}/sessions/nosuchgroup/1/heartbeat`), 404);
    expectError(await post(1, `${CP}/sessions/hb/abc/heartbeat`), 400);
    await post(2, `${CP}/sessions/hb/${next.sessionId}/close`);
  });

  // ------------------------------------------------------------ removing a group

  it('POST groups/<name>/remove: 403 with wrong credentials, 400 for METADATA and unknown groups; the data goes, a new use starts afresh', async () => {
    await setLong(0, 'v@gr', '42');
    const old = json<GroupView>(await get(0, `${MGMT}/groups/gr`), 'gr');
    expectError(await mgmt(0, 'groups/gr/remove', 'wrongcluster&'), 403);
    expect(await along(1, 'v@gr')).toBe('42');

    const res = await mgmt(0, 'groups/gr/remove');
    expect(res.status, String(res.headers['x-grid-error'] ?? '')).toBe(200);
    expect((await groups(0)).map((g) => g.name)).not.toContain('gr');
    expectError(await get(0, `${MGMT}/groups/gr`), 404);
    // A new use creates the group again: a new id, the value 0.
    expect(await along(0, 'v@gr')).toBe('0');
    const fresh = json<GroupView>(await get(1, `${MGMT}/groups/gr`), 'gr again');
    expect(fresh.id.id).toBeGreaterThan(old.id.id);
    expect(await along(2, 'v@gr')).toBe('0');

    expectError(await mgmt(1, 'groups/METADATA/remove'), 400, /METADATA/);
    expectError(await mgmt(1, 'groups/nosuchgroup/remove'), 400, /nosuchgroup/);
    expect((await groups(2)).map((g) => g.name)).toEqual(expect.arrayContaining(['METADATA', 'default', 'gr']));
  });

  // ------------------------------------------------------------ unknown paths

  it('unknown paths under rest/cp and rest/cp-subsystem are 400', async () => {
    const cases: [string, string, string?][] = [
      ['GET', `${CP}/nothing`],
      ['GET', `${CP}/atomiclongs`],
      ['GET', `${CP}/atomiclongs/a/b`],
      ['POST', `${CP}/atomiclongs/a/increment`, '1'],
      ['POST', `${CP}/atomiclongs/a`, '1'],
      ['DELETE', `${CP}/atomiclongs/a`],
      ['GET', `${CP}/locks/a/b`],
      ['POST', `${CP}/locks/a/tryLock`],
      ['POST', `${CP}/sessions/default/1/ping`],
      ['GET', `${CP}/sessions/default/1/heartbeat`],
      ['POST', CP],
      ['GET', `${MGMT}/nothing`],
      ['GET', `${MGMT}/groups/default/nothing`],
      ['POST', `${MGMT}/nothing`, 'dev&'],
      ['POST', `${MGMT}/groups/default`, 'dev&'],
    ];
    for (const [method, path, body] of cases) {
      expectError(await c.http(0, method, path, body), 400, /no endpoint/, `${method} ${path}`);
    }
    // Still serving.
    expect((await groups(0)).length).toBeGreaterThanOrEqual(2);
  });

  // ------------------------------------------------------------ members

  it('members: 3 CP members; members/local 200 on each of them, 404 on an AP and a lite member; promotion; removing a live or unknown member is 400', async () => {
    const members = await cpMembers(0);
    expect(members).toHaveLength(3);
    expect(members.map((m) => m.address).sort()).toEqual([0, 1, 2].map(addressOf).sort());
    for (const m of members) expect(Object.keys(m)).toEqual(['uuid', 'address']);
    expect(json<CpMember[]>(await get(2, `${MGMT_GRID}/members`))).toEqual(members);
    for (const i of [0, 1, 2]) {
      const local = json<CpMember>(await get(i, `${MGMT}/members/local`), `members/local on m${i}`);
      expect(local.address, `m${i}`).toBe(addressOf(i));
      expect(members, `m${i}`).toContainEqual(local);
    }

    // A 4th (AP) and a 5th (lite) member join.
    const [ap, lite] = await Promise.all([c.addMember(), c.addMember({ lite: true })]);
    await c.waitForMembers(5);
    const seed = (await status(0)).seed;
    for (const [k, m] of [ap, lite].entries()) {
      await pollUntil(() => status(m.index), (s) => s.seed === seed, { timeoutMs: 10_000, intervalMs: 100, what: `m${m.index} to learn the CP subsystem` });
      const s = await status(m.index);
      expect(s.cpMemberUuid, `m${m.index}`).toBeUndefined();
      expect(s.groups, `m${m.index} hosts no CP group`).toEqual([]);
      expectError(await get(m.index, `${MGMT}/members/local`), 404, undefined, `members/local on m${m.index}`);
      // Not a CP member, but every CP call works through it.
      expect(await addAndGet(m.index, 'via-non-cp', '1')).toBe(String(k + 1));
    }
    expect(await cpMembers(0)).toHaveLength(3);

    // A lite member cannot be promoted.
    expectError(await mgmt(lite.index, 'members'), 400, /lite/);
    // Promotion needs the credentials.
    expectError(await mgmt(ap.index, 'members', 'wrongcluster&'), 403);
    expect(await cpMembers(1)).toHaveLength(3);

    const promoted = await mgmt(ap.index, 'members');
    expect(promoted.status, String(promoted.headers['x-grid-error'] ?? '')).toBe(200);
    const four = await cpMembers(0);
    expect(four).toHaveLength(4);
    expect(four.map((m) => m.address)).toContain(addressOf(ap.index));
    const local = json<CpMember>(await get(ap.index, `${MGMT}/members/local`), 'members/local on the promoted member');
    expect(local.address).toBe(addressOf(ap.index));
    expect(four).toContainEqual(local);
    expect((await status(ap.index)).cpMemberUuid).toBe(local.uuid);
    // Promoted later: a fresh CP uuid, not its member uuid.
    expect(local.uuid).not.toBe(c.member(ap.index).uuid);
    // Promoting it again changes nothing.
    expect((await mgmt(ap.index, 'members', `${c.clusterName}&`, MGMT_GRID)).status).toBe(200);
    expect(await cpMembers(2)).toHaveLength(4);
    // The other members still answer for themselves.
    expect(json<CpMember>(await get(0, `${MGMT}/members/local`)).address).toBe(addressOf(0));

    // Removing a CP member that is still in the cluster, or one that does not exist: 400.
    const live = four.find((m) => m.address === addressOf(1))!;
    expectError(await mgmt(0, `members/${live.uuid}/remove`, 'wrongcluster&'), 403);
    expectError(await mgmt(0, `members/${live.uuid}/remove`), 400, /still a member/);
    expectError(await mgmt(0, 'members/00000000-0000-4000-8000-000000000000/remove'), 400, /00000000-0000-4000-8000-000000000000/);
    expect((await cpMembers(1)).map((m) => m.uuid).sort()).toEqual(four.map((m) => m.uuid).sort());
  }, 45_000);

  // ------------------------------------------------------------ reset (last: it wipes everything)

  it('POST reset: 403 with wrong credentials; then the subsystem forms again from scratch, every value 0', async () => {
    await setLong(0, 'rs', '9');
    await setLong(1, 'rs@rg', '11');
    const held = await lock(2, 'rl');
    const before = await status(0);
    const membersBefore = await cpMembers(0);

    expectError(await mgmt(1, 'reset', 'wrongcluster&'), 403);
    expect(await along(2, 'rs')).toBe('9');
    expect((await status(0)).seed).toBe(before.seed);

    const res = await mgmt(1, 'reset', `${c.clusterName}&`, MGMT_GRID);
    expect(res.status, String(res.headers['x-grid-error'] ?? '')).toBe(200);
    const formed = await pollUntil(
      async () => {
        const r = await get(0, `${MGMT}/groups`, 15_000);
        return r.status === 200 ? (JSON.parse(r.body) as GroupId[]) : undefined;
      },
      (list) => list !== undefined && list.some((g) => g.name === 'METADATA') && list.some((g) => g.name === 'default'),
      { timeoutMs: 30_000, intervalMs: 200, what: 'the CP subsystem to form again after the reset' },
    );
    // Only the two initial groups: rg, g1, ... are gone.
    expect([...formed!].sort((a, b) => a.id - b.id)).toEqual([
      { name: 'METADATA', id: 0 },
      { name: 'default', id: 1 },
    ]);
    const after = await status(0);
    expect(after.seed).toBeDefined();
    expect(after.seed).not.toBe(before.seed);

    for (const i of [0, 1, 2]) {
      expect(await along(i, 'rs'), `rs through m${i}`).toBe('0');
      expect(await along(i, 'rs@rg'), `rs@rg through m${i}`).toBe('0');
      expect(await lockInfo(i, 'rl'), `rl through m${i}`).toMatchObject({ locked: false, lockCount: 0 });
    }
    // The old session is gone with the rest.
    expectError(await post(0, `${CP}/sessions/default/${held.sessionId}/heartbeat`), 404);
    // The first three members again, formed anew: as first CP members they take their member
    // uuids again (Hazelcast's rule); the promoted member's fresh CP uuid is gone with its seat.
    const membersAfter = await cpMembers(1);
    expect(membersAfter.map((m) => m.address).sort()).toEqual([0, 1, 2].map(addressOf).sort());
    expect(membersAfter.map((m) => m.uuid).sort()).toEqual([0, 1, 2].map((i) => c.member(i).uuid).sort());
    // Whatever else had a seat before (a promoted member) has none now.
    for (const m of membersBefore) if (!membersAfter.some((a) => a.uuid === m.uuid)) expect([0, 1, 2].map(addressOf)).not.toContain(m.address);
    expect(await addAndGet(2, 'rs', '5')).toBe('5');
  }, 45_000);
});

// ---------------------------------------------------------------- CP off

describe('CP REST on a member without the CP subsystem', () => {
  // GET groups, groups/default, members and POST reset are checked in test/http/misc-endpoints.test.ts.
  it('every other CP path answers 500 "CP subsystem is not enabled" (POSTs of the management API after the credential check)', async () => {
    const { port } = await startMember();
    const cases: [string, string, string?][] = [
      ['GET', '/grid/rest/cp'],
      ['GET', '/hazelcast/rest/cp/atomiclongs/a'],
      ['POST', '/grid/rest/cp/atomiclongs/a/set', '1'],
      ['POST', '/grid/rest/cp/atomiclongs/a/addAndGet', '1'],
      ['POST', '/grid/rest/cp/atomiclongs/a/compareAndSet', '0&1'],
      ['GET', '/grid/rest/cp/locks/a'],
      ['POST', '/hazelcast/rest/cp/locks/a/lock'],
      ['POST', '/grid/rest/cp/locks/a/unlock?sessionId=1'],
      ['POST', '/grid/rest/cp/sessions/default/1/heartbeat'],
      ['POST', '/grid/rest/cp/sessions/default/1/close'],
      ['GET', '/hazelcast/rest/cp-subsystem/groups/default/sessions'],
      ['GET', '/grid/rest/cp-subsystem/members/local'],
      ['POST', '/hazelcast/rest/cp-subsystem/groups/g/remove', 'dev&'],
      ['POST', '/hazelcast/rest/cp-subsystem/groups/default/sessions/1/remove', 'dev&'],
      ['POST', '/grid/rest/cp-subsystem/members', 'dev&'],
      ['POST', '/hazelcast/rest/cp-subsystem/members/00000000-0000-4000-8000-000000000000/remove', 'dev&'],
    ];
    for (const [method, path, body] of cases) {
      const res = await sendRequest(port, method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}: ${res.headers['x-grid-error'] ?? ''}`).toBe(500);
      expect(res.headers['content-length'], `${method} ${path}`).toBe('0');
      expect(res.headers['x-grid-error'], `${method} ${path}`).toBe(CP_OFF);
    }
    // The management POSTs check the credentials first.
    for (const path of ['/hazelcast/rest/cp-subsystem/members', '/hazelcast/rest/cp-subsystem/groups/g/remove']) {
      expect((await sendRequest(port, 'POST', path, { body: 'prod&' })).status, path).toBe(403);
    }
  });
});
