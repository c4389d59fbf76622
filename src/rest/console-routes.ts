// The web console (docs/console.md): GET console/ and its assets from memory (console-assets.ts),
// and GET console/session, which tells the console whether it must ask for credentials and
// which endpoint groups this member serves (the console shows only the pages they allow).
// Under the CONSOLE endpoint group (Grid's own; off by default).

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { acceptsGzip, etagMatches, type ConsoleAsset } from './console-assets.js';
import { rawHeader } from './headers.js';
import { sendJson } from './respond.js';
import { requireBasicWhenSecured, type Request } from './route-kit.js';

/**
 * What every console answer carries: no sniffing, never framed (its confirmation dialogs must
 * not be clickjacked), nothing loaded from anywhere but this member, no Referer leaving it.
 */
const SECURITY_HEADERS: readonly string[] = [
  'X-Content-Type-Options', 'nosniff',
  'X-Frame-Options', 'DENY',
  'Content-Security-Policy', "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
];

/** The path of a request as sent, without its query string. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** GET console/<asset…>: index.html for the console's root, a named asset, or 404. */
export function serveConsole(r: Request, d: RestDeps, path: readonly string[]): void {
  const bundle = d.console;
  if (bundle === undefined || !bundle.ok) {
    throw new GridError('NOT_ENABLED', bundle?.reason ?? 'this member serves no web console');
  }
  const name = path[0]!;
  if (name === '') {
    const url = pathOf(r.req.url ?? '');
    if (!url.endsWith('/')) {
      // The console's asset URLs are relative to its root: `/grid/console` must become `/grid/console/`.
      const slash = url.lastIndexOf('/');
      const target = `${url.slice(slash + 1)}/`;
      r.res.writeHead(308, ['Location', target, 'Content-Length', '0', ...SECURITY_HEADERS]);
      r.res.end();
      return;
    }
  }
  const asset = bundle.assets.get(name === '' ? 'index.html' : name);
  if (asset === undefined) throw new GridError('NOT_FOUND', `no console file ${name}`);
  sendAsset(r, asset);
}

function sendAsset(r: Request, a: ConsoleAsset): void {
  const cache = a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (etagMatches(rawHeader(r.req, 'if-none-match'), a.etag)) {
    r.res.writeHead(304, ['ETag', a.etag, 'Cache-Control', cache, 'Vary', 'Accept-Encoding', ...SECURITY_HEADERS]);
    r.res.end();
    return;
  }
  const gz = a.gzip !== undefined && acceptsGzip(rawHeader(r.req, 'accept-encoding'));
  const body = gz ? a.gzip! : a.body;
  const headers = ['Content-Type', a.contentType, 'Content-Length', String(body.length), 'ETag', a.etag, 'Cache-Control', cache, 'Vary', 'Accept-Encoding', ...SECURITY_HEADERS];
  if (gz) headers.push('Content-Encoding', 'gzip');
  r.res.writeHead(200, headers);
  if (r.method === 'HEAD') r.res.end();
  else r.res.end(body);
}

/**
 * GET console/session: 403 with security on and wrong or missing Basic credentials (never a
 * `WWW-Authenticate`: the browser must not offer its own dialog and remember them), else what
 * the console needs to draw itself.
 */
export function consoleSession(r: Request, d: RestDeps): void {
  requireBasicWhenSecured(r, d);
  const local = d.cluster.localMember();
  sendJson(r.res, {
    securityEnabled: d.credentials.securityEnabled,
    clusterName: d.config.clusterName,
    instanceName: d.instanceName,
    memberUuid: local.uuid,
    memberAddress: local.address,
    memberVersion: local.version,
    groups: [...d.enabledGroups].sort(),
  });
}
