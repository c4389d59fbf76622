// Grid's own cluster-wide views for the web console (docs/rest-api.md, "Members and metrics
// history"): GET /grid/rest/members, every member's figures gathered over the member protocol
// with a deadline (member/member-monitor.ts does the asking).

import { GridError } from '../core/errors.js';
import type { MonitorFacade, RestDeps } from './context.js';
import { parseQuery } from './data-api-routes.js';
import { headerSafe } from './paths.js';
import { sendJson } from './respond.js';
import type { Request } from './route-kit.js';

/** How long each member has to answer when the request does not say. */
export const DEFAULT_MONITOR_TIMEOUT_MS = 2_000;
/** The longest deadline a request may ask for. */
export const MAX_MONITOR_TIMEOUT_MS = 30_000;

/** `timeoutMs`: a whole number of ms in 1..MAX_MONITOR_TIMEOUT_MS. */
export function parseTimeoutMs(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MONITOR_TIMEOUT_MS;
  if (!/^[0-9]{1,6}$/.test(raw)) throw new GridError('BAD_REQUEST', `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_MONITOR_TIMEOUT_MS}, got "${headerSafe(raw, 40)}"`);
  const n = Number(raw);
  if (n < 1 || n > MAX_MONITOR_TIMEOUT_MS) throw new GridError('BAD_REQUEST', `timeoutMs must be from 1 to ${MAX_MONITOR_TIMEOUT_MS}, got ${n}`);
  return n;
}

/** The query's parameters, refusing any but `allowed`. */
export function queryOf(r: Request, allowed: readonly string[]): Map<string, string> {
  const q = parseQuery(r.req.url ?? '');
  for (const name of q.keys()) {
    if (!allowed.includes(name)) throw new GridError('BAD_REQUEST', `unknown query parameter "${headerSafe(name, 40)}" (this endpoint takes ${allowed.length === 0 ? 'none' : allowed.join(', ')})`);
  }
  return q;
}

export function monitorOf(d: RestDeps): MonitorFacade {
  if (d.monitor === undefined) throw new GridError('NOT_ENABLED', 'this member has no monitor');
  return d.monitor;
}

/** GET /grid/rest/members[?timeoutMs=]. */
export async function members(r: Request, d: RestDeps): Promise<void> {
  const q = queryOf(r, ['timeoutMs']);
  sendJson(r.res, await monitorOf(d).members(parseTimeoutMs(q.get('timeoutMs'))));
}

/** Seconds of history when the request does not say. */
export const DEFAULT_HISTORY_SECONDS = 60;

/** `seconds`: a whole number in 1..max. */
export function parseHistorySeconds(raw: string | undefined, max: number): number {
  if (raw === undefined) return Math.min(DEFAULT_HISTORY_SECONDS, max);
  if (!/^[0-9]{1,7}$/.test(raw)) throw new GridError('BAD_REQUEST', `seconds must be a whole number from 1 to ${max}, got "${headerSafe(raw, 40)}"`);
  const n = Number(raw);
  if (n < 1 || n > max) throw new GridError('BAD_REQUEST', `seconds must be from 1 to ${max} (the history this member keeps), got ${n}`);
  return n;
}

/** GET /grid/rest/metrics/history[?seconds=][&member=<uuid>][&timeoutMs=]. */
export async function metricsHistory(r: Request, d: RestDeps): Promise<void> {
  const m = monitorOf(d);
  if (m.historySeconds === 0) throw new GridError('NOT_ENABLED', 'this member keeps no metrics history (grid.metrics.history-seconds is 0)');
  const q = queryOf(r, ['seconds', 'member', 'timeoutMs']);
  const seconds = parseHistorySeconds(q.get('seconds'), m.historySeconds);
  const member = q.get('member');
  if (member !== undefined && member.length === 0) throw new GridError('BAD_REQUEST', 'member must be a member uuid');
  sendJson(r.res, await m.history(seconds, member, parseTimeoutMs(q.get('timeoutMs'))));
}
