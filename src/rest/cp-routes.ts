// The CP endpoints: Hazelcast's rest/cp-subsystem/* management and Grid's own rest/cp/*
// data endpoints (atomic longs, fenced locks, sessions). While CP is off every CP path answers
// "not enabled".

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { decodeSegment, headerSafe } from './paths.js';
import { rawHeader } from './headers.js';
import { sendEmpty, sendJson, sendText } from './respond.js';
import { isGet, paramRoute, unknown, type Method, type Request, type Route } from './route-kit.js';

function cpDisabled(): never {
  throw new GridError('NOT_ENABLED', 'CP subsystem is not enabled');
}

/** An unknown CP path: 500 "not enabled" while CP is off (as every CP path), else the 400. */
function cpUnknownPath(d: RestDeps, method: Method, path: string): never {
  if (!d.cp.enabled) cpDisabled();
  throw unknown(method, path);
}

/** A CP route: while CP is off every CP endpoint answers as the contract says (after the credential check of a POST). */
function cpOnly(route: Route): Route {
  return { ...route, run: (r, d) => (d.cp.enabled ? route.run(r, d) : cpDisabled()) };
}

/** `op` is the encoded path after `rest/cp-subsystem` (`''` or `/...`), trailing `/` removed. Hazelcast's management endpoints. */
export function cpRoute(method: Method, op: string): Route {
  const parts = op.split('/').slice(1);
  const path = `rest/cp-subsystem${op}`;
  const seg = (i: number, what: string): string => decodeSegment(parts[i] ?? '', what);
  if (isGet(method)) {
    if (parts[0] === 'groups' && parts.length === 1) {
      return cpOnly({ group: 'CP', readsBody: false, run: async (r, d) => sendJson(r.res, await d.cp.groups()) });
    }
    if (parts[0] === 'groups' && parts.length === 2) {
      const name = seg(1, 'CP group name');
      return groupRead(name, (d) => d.cp.group(name), (g) => g);
    }
    if (parts[0] === 'groups' && parts.length === 3 && parts[2] === 'sessions') {
      const name = seg(1, 'CP group name');
      return groupRead(name, (d) => d.cp.sessions(name), (sessions) =>
        sessions.map((s) => ({ id: s.id, creationTime: s.creationTime, expirationTime: s.expirationTime, version: s.version, endpoint: s.endpoint, endpointType: s.endpointType, endpointName: s.endpointName })),
      );
    }
    if (parts[0] === 'members' && parts.length === 1) {
      return cpOnly({ group: 'CP', readsBody: false, run: async (r, d) => sendJson(r.res, await d.cp.members()) });
    }
    if (parts[0] === 'members' && parts.length === 2 && parts[1] === 'local') {
      return cpOnly({
        group: 'CP',
        readsBody: false,
        run: (r, d) => {
          const m = d.cp.localMember();
          if (m === undefined) throw new GridError('NOT_FOUND', 'this member is not a CP member');
          sendJson(r.res, m);
        },
      });
    }
    // While CP is off, any CP path answers "not enabled" (as before); with CP on, an unknown one is a 400.
    return { group: 'CP', readsBody: false, run: (_r, d) => cpUnknownPath(d, method, path) };
  }
  if (method !== 'POST') throw unknown(method, path);
  const post = (handler: (r: Request, d: RestDeps) => Promise<void>): Route => paramRoute('CP', 2, 2, (r, d) => (d.cp.enabled ? handler(r, d) : cpDisabled()));
  if (parts[0] === 'groups' && parts.length === 3 && parts[2] === 'remove') {
    const name = seg(1, 'CP group name');
    return post(async (r, d) => {
      try {
        await d.cp.destroyGroup(name);
      } catch (e) {
        // Hazelcast: an unknown group (IllegalArgumentException) is a 400.
        if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
        throw e;
      }
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'groups' && parts.length === 5 && parts[2] === 'sessions' && parts[4] === 'remove') {
    const name = seg(1, 'CP group name');
    const id = parseSessionId(seg(3, 'CP session id'));
    return post(async (r, d) => {
      let closed: boolean;
      try {
        closed = await d.cp.closeSession(name, id);
      } catch (e) {
        if (e instanceof GridError && e.code === 'NOT_FOUND') throw new GridError('BAD_REQUEST', e.message);
        throw e;
      }
      if (!closed) throw new GridError('BAD_REQUEST', `no CP session ${id} in group ${name}`);
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'members' && parts.length === 1) {
    return post(async (r, d) => {
      await d.cp.promote();
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'members' && parts.length === 3 && parts[2] === 'remove') {
    const uuid = seg(1, 'CP member uuid');
    return post(async (r, d) => {
      await d.cp.removeMember(uuid);
      sendEmpty(r.res, 200);
    });
  }
  if (parts[0] === 'reset' && parts.length === 1) {
    return post(async (r, d) => {
      await d.cp.reset();
      sendEmpty(r.res, 200);
    });
  }
  return paramRoute('CP', 2, 2, (_r, d) => cpUnknownPath(d, method, path));
}

/** A GET of one CP group's data: 404 when there is no such group. */
function groupRead<T>(name: string, read: (d: RestDeps) => Promise<T | undefined>, render: (value: T) => unknown): Route {
  return cpOnly({
    group: 'CP',
    readsBody: false,
    run: async (r, d) => {
      const value = await read(d);
      if (value === undefined) throw new GridError('NOT_FOUND', `no CP group ${name}`);
      sendJson(r.res, render(value));
    },
  });
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

/** An unknown CP path: 500 "not enabled" while CP is off (as the contract says of every CP path), else the 400. */
export function cpUnknownWhenOff(method: Method, resolve: () => Route): Route {
  try {
    return resolve();
  } catch (e) {
    if (!(e instanceof GridError) || e.code !== 'UNKNOWN_ENDPOINT') throw e;
    return {
      group: 'CP',
      readsBody: false,
      run: (_r, d) => {
        if (!d.cp.enabled) cpDisabled();
        throw e;
      },
    };
  }
}

/** `op` is the encoded path after `rest/cp` (`''` or `/...`): Grid's own CP data endpoints. */
export function cpDataRoute(method: Method, op: string): Route {
  const parts = op.split('/').slice(1);
  const path = `rest/cp${op}`;
  const seg = (i: number, what: string): string => {
    const v = decodeSegment(parts[i] ?? '', what);
    if (v.length === 0) throw new GridError('BAD_REQUEST', `missing ${what}`);
    return v;
  };
  const get = (run: Route['run']): Route => cpOnly({ group: 'CP', readsBody: false, run });
  const post = (run: Route['run']): Route => cpOnly({ group: 'CP', readsBody: true, run });
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
    if (isGet(method)) return get((r, d) => sendJson(r.res, d.cp.status()));
    throw unknown(method, path);
  }
  if (parts[0] === 'atomiclongs' && parts.length >= 2) {
    const name = seg(1, 'atomic long name');
    if (parts.length === 2 && isGet(method)) return get(async (r, d) => sendText(r.res, await d.cp.atomicLong(name)));
    if (parts.length === 3 && method === 'POST') {
      switch (parts[2]) {
        case 'set':
          return post(async (r, d) => sendText(r.res, await d.cp.setAtomicLong(name, bodyText(r, 'the new value'))));
        case 'addAndGet':
          return post(async (r, d) => sendText(r.res, await d.cp.addAndGet(name, bodyText(r, 'the delta'))));
        case 'compareAndSet':
          return post(async (r, d) => {
            const [expect, update, extra] = bodyText(r, '<expect>&<update>').split('&');
            if (expect === undefined || update === undefined || extra !== undefined || expect === '' || update === '') {
              throw new GridError('BAD_REQUEST', 'the body must be <expect>&<update>');
            }
            sendText(r.res, String(await d.cp.compareAndSet(name, expect.trim(), update.trim())));
          });
      }
    }
    throw unknown(method, path);
  }
  if (parts[0] === 'locks' && parts.length >= 2) {
    const name = seg(1, 'lock name');
    if (parts.length === 2 && isGet(method)) return get(async (r, d) => sendJson(r.res, await d.cp.lockInfo(name)));
    if (parts.length === 3 && method === 'POST' && parts[2] === 'lock') {
      return post(async (r, d) => {
        const sessionId = intParam(r, 'sessionId', 0, 0);
        const timeoutMs = intParam(r, 'timeoutMs', 0, -1);
        const socket = r.req.socket;
        const endpoint = `[${socket.remoteAddress ?? ''}]:${socket.remotePort ?? 0}`;
        const endpointName = queryOf(r).get('endpointName') ?? rawHeader(r.req, 'user-agent') ?? 'rest';
        const res = r.res;
        const result = await d.cp.lock(name, {
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
      });
    }
    if (parts.length === 3 && method === 'POST' && parts[2] === 'unlock') {
      return post(async (r, d) => {
        const fromQuery = intParam(r, 'sessionId', 1, 0);
        const sessionId = fromQuery !== 0 ? fromQuery : parseSessionId(bodyText(r, 'the session id (or ?sessionId=)'));
        sendJson(r.res, { lockCount: await d.cp.unlock(name, sessionId) });
      });
    }
    throw unknown(method, path);
  }
  if (parts[0] === 'sessions' && parts.length === 4 && method === 'POST') {
    const group = seg(1, 'CP group name');
    const id = parseSessionId(seg(2, 'CP session id'));
    if (parts[3] === 'heartbeat') return post(async (r, d) => sendJson(r.res, await d.cp.heartbeat(group, id)));
    if (parts[3] === 'close') {
      return post(async (r, d) => {
        if (!(await d.cp.closeSession(group, id))) throw new GridError('NOT_FOUND', `no CP session ${id} in group ${group}`);
        sendJson(r.res, { closed: true });
      });
    }
  }
  throw unknown(method, path);
}
