// Differential REST testing against Hazelcast: one request (exact bytes) goes to a Hazelcast
// member and to a Grid member configured alike; each answer is reduced to what a client sees
// (status, Content-Type, body, or no answer at all) and normalised where two correct members
// must differ (NORMALISATIONS); what still differs is either a documented deliberate
// difference (DELIBERATE) or a Grid bug. docs/compatibility.md lists both.

import net from 'node:net';
import { parseResponse } from '../support/http.js';
import { prng } from '../support/prng.js';

export interface DiffCase {
  readonly name: string;
  readonly method: string;
  /** The request target exactly as sent (percent-escapes and all). */
  readonly path: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
  /** Send these bytes instead of building the request. */
  readonly raw?: Buffer;
  /** How long to wait for the answer (default 3 s). */
  readonly timeoutMs?: number;
}

/** What a client saw. */
export type Observed =
  | { readonly kind: 'answer'; readonly status: number; readonly contentType: string | undefined; readonly body: Buffer; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'closed' }
  | { readonly kind: 'silent' };

export function requestBytes(c: DiffCase): Buffer {
  if (c.raw !== undefined) return c.raw;
  const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  const lines = [`${c.method} ${c.path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [n, v] of c.headers ?? []) lines.push(`${n}: ${v}`);
  const hasFraming = (c.headers ?? []).some(([n]) => /^(content-length|transfer-encoding)$/i.test(n));
  if (body !== undefined && !hasFraming) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** Sends the case on a new connection; resolves with the first answer, or how none came. */
export function send(port: number, c: DiffCase): Promise<Observed> {
  const bytes = requestBytes(c);
  const isHead = c.method.toUpperCase() === 'HEAD';
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    let buf = Buffer.alloc(0);
    let ended = false;
    let done = false;
    const finish = (o: Observed): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const tryParse = (): void => {
      try {
        let rest = buf;
        for (;;) {
          const p = parseResponse(rest, isHead, ended);
          if (p === undefined) break;
          // 100 Continue is interim: the answer is what follows it.
          if (p.response.status === 100) {
            rest = rest.subarray(p.consumed);
            continue;
          }
          const r = p.response;
          return finish({ kind: 'answer', status: r.status, contentType: r.headers['content-type'], body: r.body, headers: r.headers });
        }
      } catch {
        return finish({ kind: 'answer', status: 0, contentType: undefined, body: buf, headers: {} });
      }
      if (ended) finish({ kind: 'closed' });
    };
    const timer = setTimeout(() => finish(buf.length > 0 ? { kind: 'answer', status: 0, contentType: undefined, body: buf, headers: {} } : { kind: 'silent' }), c.timeoutMs ?? 3_000);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      tryParse();
    });
    const onEnd = (): void => {
      ended = true;
      tryParse();
    };
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onEnd);
    socket.on('connect', () => socket.write(bytes, () => undefined));
  });
}

/**
 * Normalisations: what two correct members answer differently and a client must not rely on.
 * - uuids (every member has its own; WAN sync ids are random);
 * - the member's address: Grid writes `127.0.0.1:port` (grid-behavior §6), Hazelcast 5.5+
 *   `[127.0.0.1]:port`; and the port number itself;
 * - versions: memberVersion, cluster version, and the version inside the member list text;
 * - connectionCount / allConnectionCount (the harness's own connections change them);
 * - timestamps (creationTime of WAN sync progress);
 * - the runtime's version at the end of management/cluster/nodes (Java's there, Node.js's here).
 */
export function normaliseBody(text: string, ports: readonly number[]): string {
  let t = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>');
  for (const p of ports) t = t.replace(new RegExp(`\\[?127\\.0\\.0\\.1\\]?:${p}\\b`, 'g'), '<address>');
  t = t
    .replace(/"memberVersion":"[^"]*"/g, '"memberVersion":"<version>"')
    .replace(/"version":"\d+\.\d+(\.\d+)?[^"]*"/g, '"version":"<version>"')
    .replace(/ver:\s*\d+/g, 'ver:<n>')
    .replace(/"(connectionCount|allConnectionCount)":\d+/g, '"$1":<n>')
    .replace(/"creationTime":\d+/g, '"creationTime":<time>')
    .replace(/(\]|this|lite)\\n[^"\\]+\\n[^"\\]+"\}$/, '$1\\n<version>\\n<runtime>"}');
  return t;
}

/** The observed answer as one comparable line. */
export function describe(o: Observed, ports: readonly number[]): string {
  if (o.kind !== 'answer') return o.kind === 'closed' ? 'closed without an answer' : 'no answer';
  // Normalised whole, then cut for the report: the hash covers the normalised text.
  const body = normaliseBody(o.body.toString('latin1'), ports);
  const shown = body.length > 300 ? `${body.slice(0, 300)}…(${body.length} chars, hash ${hashOf(Buffer.from(body, 'latin1'))})` : body;
  return `${o.status} ${o.contentType ?? '-'} ${JSON.stringify(shown)}`;
}

function hashOf(b: Buffer): string {
  let h = 0x811c9dc5;
  for (const x of b) h = Math.imul(h ^ x, 0x01000193) >>> 0;
  return h.toString(16);
}

/** A seeded generator of request variations over paths, methods, headers and bodies. */
export function generatedCases(seed: number, count: number): DiffCase[] {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const names = ['gm', 'gm', 'g%20m', 'g%2Fm', 'g%C3%BCm', 'g+m', 'gm%zz', 'gm%', ''];
  const keys = ['k', 'k', 'k2', 'k%2Fx', 'k%20y', 'k/', 'k//', '%E2%82%AC', 'k?q=1', 'k%00', ''];
  const types: (string | undefined)[] = [undefined, undefined, 'text/plain', 'application/json; charset=utf-8', 'application/octet-stream', '', 'x/y;a=b', 'TEXT/PLAIN'];
  const bodies = (): string | Buffer | undefined =>
    pick<() => string | Buffer | undefined>([
      () => undefined,
      () => '',
      () => 'v',
      () => 'value with spaces & ampersands',
      () => Buffer.from([0, 255, 1, 254, 10, 13]),
      () => 'x'.repeat(1 + Math.floor(r() * 20_000)),
    ])();
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'];
  const out: DiffCase[] = [];
  for (let i = 0; out.length < count; i++) {
    // Each variation has names of its own, so a write one member takes and the other refuses
    // on purpose (a deliberate difference) cannot make later reads differ. A write is followed
    // by a plain GET of the same path: what it stored is compared too.
    const own = (n: string): string => (n === '' ? n : `${n}${i}`);
    const method = pick(methods);
    const kind = r();
    let path: string;
    if (kind < 0.45) path = `/hazelcast/rest/maps/${own(pick(names))}${r() < 0.85 ? `/${pick(keys)}` : ''}`;
    else if (kind < 0.7) path = `/hazelcast/rest/queues/${own(pick(names))}${r() < 0.7 ? `/${pick(['0', '0', 'size', '-1', 'x', '1.5', '', '00', '0/extra'])}` : ''}`;
    else if (kind < 0.85)
      path = pick(['/hazelcast/rest/cluster', '/hazelcast/rest/instance', '/hazelcast/health', '/hazelcast/health/ready', '/hazelcast/health/node-state', '/hazelcast/health/cluster-safe', '/hazelcast/health/cluster-size', '/hazelcast/rest/management/cluster/version', '/hazelcast/rest/management/cluster/state', '/hazelcast/rest/management/cluster/nodes']);
    else path = pick(['/hazelcast/rest/', '/hazelcast/rest', '/hazelcast/', '/hazelcast/rest/mapsx/a/b', '/hazelcast/rest/maps', '/hazelcast/health/x', '/hazelcast/rest/cluster/x', '/', '/x']);
    const headers: [string, string][] = [];
    const ct = pick(types);
    if (ct !== undefined) headers.push(['Content-Type', ct]);
    const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? (r() < 0.85 ? undefined : bodies()) : bodies();
    const management = path.includes('/management/');
    out.push({ name: `generated #${i} (seed ${seed})`, method, path, headers, body: management && method === 'POST' ? pick(['dev&', 'wrong&', '', 'dev&&x']) : body, timeoutMs: 3_000 });
    if (!management && ['POST', 'PUT', 'DELETE'].includes(method) && out.length < count) out.push({ name: `generated #${i} read-back (seed ${seed})`, method: 'GET', path, timeoutMs: 3_000 });
  }
  return out;
}
