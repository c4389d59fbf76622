// The CP endpoints' handlers: Hazelcast's rest/cp-subsystem/* management and Grid's own
// rest/cp/* data endpoints (atomic longs, fenced locks, sessions); their paths are rows of
// route-table.ts. While CP is off every CP path answers "not enabled" (the table checks it for
// every CP route, after the credentials; the two *Refused functions here for the paths no row takes).

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { decodeSegment, headerSafe } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText } from './respond.js';
import { isGet, paramRoute, unknown, type Method, type Request, type Route } from './route-kit.js';

export function cpDisabled(): never {
  throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
}

/** An unknown CP path: 500 "not enabled" while CP is off (as every CP path), else the 400. */
function cpUnknownPath(d: RestDeps, method: Method, path: string): never {
  if (!d.cp.enabled) cpDisabled();
  throw unknown(method, path);
}

/** A rest/cp-subsystem path no route takes (`path`: one trailing `/` removed): GETs and POSTs (after their credentials) say CP is off, else the 400. */
export function cpSubsystemPathRefused(method: Method, path: string): Route {
  if (isGet(method)) return { group: 'CP', readsBody: false, run: (_r, d) => cpUnknownPath(d, method, path) };
  if (method === 'POST') return paramRoute('CP', 2, 2, (_r, d) => cpUnknownPath(d, method, path));
  throw unknown(method, path);
}

/**
 * A rest/cp path no route takes (`path`: one trailing `/` removed, `tail` after rest/cp/): the
 * names such a path holds are still checked (their 400s), then CP off answers "not enabled" and
 * CP on the 400 of an unknown endpoint.
 */
export function cpDataPathRefused(method: Method, path: string, tail: string): Route {
  const parts = tail.split('/');
  if ((parts[0] === 'atomiclongs' || parts[0] === 'locks') && parts.length >= 2) requiredSegment(parts[1]!, parts[0] === 'locks' ? 'lock name' : 'atomic long name');
  if (parts[0] === 'sessions' && parts.length === 4 && method === 'POST') {
    requiredSegment(parts[1]!, 'CP group name');
    sessionIdOf(requiredSegment(parts[2]!, 'CP session id'));
  }
  const e = unknown(method, path);
  return {
    group: 'CP',
    readsBody: false,
    run: (_r, d) => {
      if (!d.cp.enabled) cpDisabled();
      throw e;
    },
  };
}

/** A decoded path segment that must not be empty (the names of the rest/cp endpoints). */
export function requiredSegment(raw: string, what: string): string {
  const v = decodeSegment(raw, what);
  if (v.length === 0) throw new GridError('BAD_REQUEST', `missing ${what}`);
  return v;
}

/** A CP session id: a positive integer (as decoded text). */
export function sessionIdOf(raw: string): string {
  return String(parseSessionId(raw));
}

// rest/cp-subsystem: Hazelcast's management endpoints.

export async function cpGroups(r: Request, d: RestDeps): Promise<void> {
  sendJson(r.res, await d.cp.groups());
}

export async function cpGroup(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  const g = await d.cp.group(name!);
  if (g === undefined) throw noGroup(name!);
  sendJson(r.res, g);
}

export async function cpGroupSessions(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  const sessions = await d.cp.sessions(name!);
  if (sessions === undefined) throw noGroup(name!);
  sendJson(
    r.res,
    sessions.map((s) => ({ id: s.id, creationTime: s.creationTime, expirationTime: s.expirationTime, version: s.version, endpoint: s.endpoint, endpointType: s.endpointType, endpointName: s.endpointName })),
  );
}

export async function cpMembers(r: Request, d: RestDeps): Promise<void> {
  sendJson(r.res, await d.cp.members());
}

export function cpLocalMember(r: Request, d: RestDeps): void {
  const m = d.cp.localMember();
  if (m === undefined) throw new GridError('NOT_FOUND', 'this member is not a CP member');
  sendJson(r.res, m);
}

export async function removeCpGroup(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  try {
    await d.cp.destroyGroup(name!);
  } catch (e) {
    // Hazelcast: an unknown group (IllegalArgumentException) is a 400.
    if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
    throw e;
  }
  sendEmpty(r.res, 200);
}

export async function removeCpSession(r: Request, d: RestDeps, [name, rawId]: readonly string[]): Promise<void> {
  const id = Number(rawId);
  let closed: boolean;
  try {
    closed = await d.cp.closeSession(name!, id);
  } catch (e) {
    if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
    throw e;
  }
  if (!closed) throw new GridError('BAD_REQUEST', `no CP session ${id} in group ${name!}`);
  sendEmpty(r.res, 200);
}

export async function promoteCpMember(r: Request, d: RestDeps): Promise<void> {
  await d.cp.promote();
  sendEmpty(r.res, 200);
}

export async function removeCpMember(r: Request, d: RestDeps, [uuid]: readonly string[]): Promise<void> {
  await d.cp.removeMember(uuid!);
  sendEmpty(r.res, 200);
}

export async function resetCp(r: Request, d: RestDeps): Promise<void> {
  await d.cp.reset();
  sendEmpty(r.res, 200);
}

function noGroup(name: string): GridError {
  return new GridError('NOT_FOUND', `no CP group ${name}`);
}

// rest/cp: Grid's own CP data endpoints.

export function cpStatus(r: Request, d: RestDeps): void {
  sendJson(r.res, d.cp.status());
}

export async function getAtomicLong(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  sendText(r.res, await d.cp.atomicLong(name!));
}

export async function setAtomicLong(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  sendText(r.res, await d.cp.setAtomicLong(name!, bodyText(r, 'the new value')));
}

export async function addAndGet(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  sendText(r.res, await d.cp.addAndGet(name!, bodyText(r, 'the delta')));
}

export async function compareAndSet(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  const [expect, update, extra] = bodyText(r, '<expect>&<update>').split('&');
  if (expect === undefined || update === undefined || extra !== undefined || expect === '' || update === '') {
    throw new GridError('BAD_REQUEST', 'the body must be <expect>&<update>');
  }
  sendText(r.res, String(await d.cp.compareAndSet(name!, expect.trim(), update.trim())));
}

export async function lockInfo(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  sendJson(r.res, await d.cp.lockInfo(name!));
}

export async function lock(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  const sessionId = intParam(r, 'sessionId', 0, 0);
  const timeoutMs = intParam(r, 'timeoutMs', 0, -1);
  const socket = r.req.socket;
  const endpoint = `[${socket.remoteAddress ?? ''}]:${socket.remotePort ?? 0}`;
  const endpointName = queryOf(r).get('endpointName') ?? rawHeader(r.req, 'user-agent') ?? 'rest';
  const res = r.res;
  const result = await d.cp.lock(name!, {
    sessionId,
    timeoutMs,
    endpoint,
    endpointName: endpointName.slice(0, 200),
    onGone: (fn) =>
      res.once('close', () => {
        if (!res.writableFinished) fn();
      }),
  });
  if (res.destroyed || res.writableEnded) return;
  sendJson(res, result);
}

export async function unlock(r: Request, d: RestDeps, [name]: readonly string[]): Promise<void> {
  const fromQuery = intParam(r, 'sessionId', 1, 0);
  const sessionId = fromQuery !== 0 ? fromQuery : parseSessionId(bodyText(r, 'the session id (or ?sessionId=)'));
  sendJson(r.res, { lockCount: await d.cp.unlock(name!, sessionId) });
}

export async function heartbeat(r: Request, d: RestDeps, [group, id]: readonly string[]): Promise<void> {
  sendJson(r.res, await d.cp.heartbeat(group!, Number(id)));
}

export async function closeSession(r: Request, d: RestDeps, [group, rawId]: readonly string[]): Promise<void> {
  const id = Number(rawId);
  if (!(await d.cp.closeSession(group!, id))) throw new GridError('NOT_FOUND', `no CP session ${id} in group ${group!}`);
  sendJson(r.res, { closed: true });
}

function parseSessionId(raw: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw new GridError('BAD_REQUEST', `CP session id must be a positive integer, got "${headerSafe(raw, 40)}"`);
  return Number(raw);
}

/** Query parameters of the request (the CP data endpoints' options). */
function queryOf(r: Request): URLSearchParams {
  const url = r.req.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
}

function intParam(r: Request, name: string, min: number, fallback: number): number {
  const raw = queryOf(r).get(name);
  if (raw === null) return fallback;
  if (!/^-?[0-9]{1,15}$/.test(raw) || Number(raw) < min) throw new GridError('BAD_REQUEST', `query parameter ${name} must be an integer >= ${min}, got "${headerSafe(raw, 40)}"`);
  return Number(raw);
}

function bodyText(r: Request, what: string): string {
  const t = r.body.toString('utf8').trim();
  if (t.length === 0) throw new GridError('BAD_REQUEST', `the body must be ${what}`);
  return t;
}

