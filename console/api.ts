// The console's one way to the member: fetch wrappers that add the credentials (Basic, from
// this tab's memory of the login) and the console's request header, turn an error answer into
// an ApiError with the member's X-Grid-Error reason, and a polling hook for live pages.
// Every page uses these, so credentials, errors and cross-site protection live in one place.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { SseParser, type SseEvent } from './sse.js';

export type { SseEvent };

/** Grid's own endpoints (lists, the console session) are only under /grid/; the console calls that prefix whichever it was opened under. */
export const API_PREFIX = '/grid/';

/**
 * Sent with every request. The member does not need it (it refuses cross-site requests by the
 * browser's own Sec-Fetch-Site/Origin headers), but it makes any cross-origin use of these
 * calls a preflighted request, which the member never approves, and marks the console's
 * requests in proxies' logs.
 */
export const CONSOLE_HEADER = 'X-Grid-Console';

/** An answer that was not 2xx: its status and the member's reason (X-Grid-Error). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly path: string,
  ) {
    super(`${status} ${reason}`);
  }

  /** The endpoint group is off on this member (or the user may not use it). */
  get notAllowed(): boolean {
    return this.status === 403 && /endpoint group .* is disabled/.test(this.reason);
  }

  /** The credentials were refused. */
  get unauthenticated(): boolean {
    return this.status === 403 && /credentials/.test(this.reason);
  }
}

// Kept in sessionStorage: one tab's login, gone with the tab, never in a cookie the browser
// would send by itself (so no cross-site request can carry it).
const AUTH_KEY = 'grid-console-auth';
let authorization: string | undefined = readStoredAuth();

function readStoredAuth(): string | undefined {
  try {
    return sessionStorage.getItem(AUTH_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Remembers (or with undefined forgets) the user's credentials for this tab. */
export function setCredentials(c: { username: string; password: string } | undefined): void {
  if (c === undefined) authorization = undefined;
  else {
    const bytes = new TextEncoder().encode(`${c.username}:${c.password}`);
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    authorization = `Basic ${btoa(bin)}`;
  }
  try {
    if (authorization === undefined) sessionStorage.removeItem(AUTH_KEY);
    else sessionStorage.setItem(AUTH_KEY, authorization);
  } catch {
    // Storage refused (private mode): the login lasts until the page reloads.
  }
}

export function hasCredentials(): boolean {
  return authorization !== undefined;
}

/** Listeners told when the member refuses the stored credentials (the shell shows the login again). */
const authListeners = new Set<() => void>();
export function onAuthRefused(f: () => void): () => void {
  authListeners.add(f);
  return () => authListeners.delete(f);
}

/** A request to the member (`path` after /grid/); throws ApiError for a non-2xx answer. */
export interface RequestInit {
  readonly method?: string;
  /** A string is sent as UTF-8 text; bytes as they are. */
  readonly body?: string | Uint8Array;
  /** The body's Content-Type (default `text/plain; charset=utf-8`). */
  readonly contentType?: string;
  /** More headers (If-Match, Last-Event-ID, ...); never Authorization, which this module owns. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...init.headers, [CONSOLE_HEADER]: '1' };
  delete headers['Authorization'];
  if (authorization !== undefined) headers['Authorization'] = authorization;
  // A Content-Type among the caller's headers (a value's own) wins over the default.
  if (init.body !== undefined) headers['Content-Type'] = init.contentType ?? headers['Content-Type'] ?? 'text/plain; charset=utf-8';
  const res = await fetch(API_PREFIX + path, {
    method: init.method ?? 'GET',
    headers,
    body: (init.body as BodyInit | undefined) ?? null,
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
    signal: init.signal ?? null,
  });
  if (!res.ok) {
    const e = new ApiError(res.status, res.headers.get('X-Grid-Error') ?? res.statusText, path);
    // The session request is the login's own check: its refusal is the login form's to show.
    if (e.unauthenticated && authorization !== undefined && path !== 'console/session') for (const f of authListeners) f();
    throw e;
  }
  return res;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await request(path, signal === undefined ? {} : { signal });
  return (await res.json()) as T;
}

/**
 * A POST of positional `&` parameters to an endpoint that takes credentials. With security
 * on, the credentials go in the Authorization header and the body holds only the parameters;
 * with it off, the body starts with the cluster name and an empty password, as the REST API
 * asks (docs/rest-api.md).
 */
export async function postParams(path: string, session: { securityEnabled: boolean; clusterName: string }, params: readonly string[]): Promise<unknown> {
  const enc = params.map(encodeURIComponent);
  const body = session.securityEnabled ? enc.join('&') : [encodeURIComponent(session.clusterName), '', ...enc].join('&');
  const res = await request(path, { method: 'POST', body });
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface Poll<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  /** When the last answer (or error) came. */
  readonly at: number | undefined;
  refresh(): void;
}

/**
 * Runs `load` now and then every `intervalMs` after the previous one ended (never two at once),
 * pausing while the tab is hidden. The last good data stays shown while an error is displayed.
 */
export function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, intervalMs: number, deps: readonly unknown[] = []): Poll<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; at: number | undefined }>({ data: undefined, error: undefined, at: undefined });
  const kick = useRef<() => void>(() => undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ctrl: AbortController | undefined;
    const run = async (): Promise<void> => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      ctrl?.abort();
      const mine = (ctrl = new AbortController());
      try {
        const data = await load(mine.signal);
        if (!stopped && !mine.signal.aborted) setState({ data, error: undefined, at: Date.now() });
      } catch (error) {
        if (!stopped && !mine.signal.aborted) setState((s) => ({ data: s.data, error, at: Date.now() }));
      }
      if (!stopped && !mine.signal.aborted) timer = setTimeout(tick, intervalMs);
    };
    const tick = (): void => {
      if (document.hidden) timer = setTimeout(tick, intervalMs);
      else void run();
    };
    kick.current = () => void run();
    void run();
    return () => {
      stopped = true;
      ctrl?.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
    // `deps`: what the caller says restarts the poll (load itself is a new closure each render).
  }, [intervalMs, ...deps]);
  const refresh = useCallback(() => kick.current(), []);
  return { ...state, refresh };
}

/** A human text for anything a request threw. */
export function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.status}: ${e.reason}`;
  if (e instanceof Error) return e.name === 'TypeError' ? `the member did not answer (${e.message})` : e.message;
  return String(e);
}

/** GET console/session (src/rest/console-routes.ts). */
export interface Session {
  readonly securityEnabled: boolean;
  readonly clusterName: string;
  readonly instanceName: string;
  readonly memberUuid: string;
  readonly memberAddress: string;
  readonly memberVersion: string;
  /** The endpoint groups this member serves: a page needs all of its groups. */
  readonly groups: readonly string[];
}

/**
 * Follows a Server-Sent Events stream (`path` after /grid/) until `signal` aborts, reconnecting
 * with Last-Event-ID after a break. Read with fetch, not EventSource: EventSource cannot send the
 * Authorization header of the login nor the console's header (data paths take no credentials today;
 * the console does not depend on that). `onState` says whether
 * the stream is open, and why not.
 */
export async function followEvents(path: string, signal: AbortSignal, onEvent: (e: SseEvent) => void, onState: (open: boolean, error?: unknown) => void, retryMs = 2000): Promise<void> {
  let lastId: string | undefined;
  while (!signal.aborted) {
    try {
      const res = await request(path, { signal, headers: { Accept: 'text/event-stream', ...(lastId === undefined ? {} : { 'Last-Event-ID': lastId }) } });
      onState(true);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const e of parser.push(value)) onEvent(e);
        lastId = parser.lastId ?? lastId;
      }
      onState(false);
    } catch (e) {
      if (signal.aborted) return;
      onState(false, e);
    }
    await new Promise((r) => setTimeout(r, retryMs));
  }
}
