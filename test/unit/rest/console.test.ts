// The pure parts of the web console's serving (console-assets.ts, console-routes.ts) and of the
// cross-site refusal (cross-site.ts): every rule, each way it can go.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, contentTypeOf, etagMatches, indexAssets, loadConsoleAssets } from '../../../src/rest/console-assets.js';
import { serveConsole } from '../../../src/rest/console-routes.js';
import { crossSiteRefusal, type CrossSiteHeaders } from '../../../src/rest/cross-site.js';
import { groupOfPath, resolveRoute, routeLabelOf } from '../../../src/rest/routes.js';
import { endpointOf } from '../../../src/rest/route-dispatch.js';
import type { RestDeps } from '../../../src/rest/context.js';
import type { Request } from '../../../src/rest/route-kit.js';
import { GridError } from '../../../src/core/errors.js';

const h = (over: Partial<CrossSiteHeaders>): CrossSiteHeaders => ({ secFetchSite: undefined, secFetchMode: undefined, origin: undefined, host: '127.0.0.1:5701', ...over });

describe('crossSiteRefusal', () => {
  it('lets requests without browser headers through (curl, scripts, clients)', () => {
    expect(crossSiteRefusal(h({}), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ host: undefined }), false)).toBeUndefined();
  });

  it('by Sec-Fetch-Site: same-origin and none go on; cross-site and same-site are refused', () => {
    expect(crossSiteRefusal(h({ secFetchSite: 'same-origin', secFetchMode: 'cors' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ secFetchSite: 'none', secFetchMode: 'navigate' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ secFetchSite: 'cross-site', secFetchMode: 'no-cors' }), false)).toMatch(/cross-site request refused \(Sec-Fetch-Site: cross-site\)/);
    expect(crossSiteRefusal(h({ secFetchSite: 'same-site', secFetchMode: 'cors' }), false)).toMatch(/same-site/);
    expect(crossSiteRefusal(h({ secFetchSite: ' Cross-Site ' }), true)).toMatch(/refused/);
    // Sec-Fetch-Site wins over a matching Origin (a page cannot set either).
    expect(crossSiteRefusal(h({ secFetchSite: 'cross-site', origin: 'http://127.0.0.1:5701' }), false)).toMatch(/refused/);
  });

  it('lets a person follow a cross-site link to an endpoint whose GET changes nothing, never to one that does', () => {
    expect(crossSiteRefusal(h({ secFetchSite: 'cross-site', secFetchMode: 'navigate' }), true)).toBeUndefined();
    expect(crossSiteRefusal(h({ secFetchSite: 'cross-site', secFetchMode: 'navigate' }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ secFetchSite: 'cross-site', secFetchMode: 'no-cors' }), true)).toMatch(/refused/);
  });

  it('refuses a state-changing navigation (a form) even from the same origin', () => {
    expect(crossSiteRefusal(h({ secFetchSite: 'same-origin', secFetchMode: 'navigate' }), false)).toMatch(/navigation refused/);
    expect(crossSiteRefusal(h({ secFetchSite: 'same-origin', secFetchMode: 'navigate' }), true)).toBeUndefined();
  });

  it('without Sec-Fetch-Site, compares Origin with Host (ports made explicit), and never trusts Origin: null', () => {
    expect(crossSiteRefusal(h({ origin: 'http://127.0.0.1:5701' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'HTTP://127.0.0.1:5701' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'http://127.0.0.1:5702' }), false)).toMatch(/Origin http:\/\/127\.0\.0\.1:5702 is not this member/);
    expect(crossSiteRefusal(h({ origin: 'http://evil.example' }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ origin: 'null' }), false)).toMatch(/Origin: null/);
    expect(crossSiteRefusal(h({ origin: 'http://grid.example', host: 'grid.example' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'http://grid.example', host: 'grid.example:80' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'https://grid.example', host: 'grid.example' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'https://grid.example', host: 'grid.example:80' }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ origin: 'http://[::1]:5701', host: '[::1]:5701' }), false)).toBeUndefined();
    expect(crossSiteRefusal(h({ origin: 'http://[::1]', host: '[::1]:5701' }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ origin: 'http://127.0.0.1:5701', host: undefined }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ origin: 'ftp://127.0.0.1:5701' }), false)).toMatch(/refused/);
    expect(crossSiteRefusal(h({ origin: 'http://127.0.0.1:5701/path' }), false)).toMatch(/refused/);
  });

  it('marks only the queue poll as a GET that changes state', () => {
    expect(endpointOf(resolveRoute('GET', 'rest/queues/q/5'))?.changesOnGet).toBe(true);
    expect(endpointOf(resolveRoute('GET', 'rest/cluster'))?.changesOnGet).toBeUndefined();
    expect(endpointOf(resolveRoute('GET', 'rest/maps/m/k'))?.changesOnGet).toBeUndefined();
  });
});

describe('console asset helpers', () => {
  it('accepts gzip by Accept-Encoding, q-values included', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.0, *')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('deflate, br')).toBe(false);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('identity')).toBe(false);
  });

  it('matches If-None-Match lists, * and weak forms', () => {
    expect(etagMatches(undefined, '"a"')).toBe(false);
    expect(etagMatches('"a"', '"a"')).toBe(true);
    expect(etagMatches('"b", "a"', '"a"')).toBe(true);
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches('*', '"a"')).toBe(true);
    expect(etagMatches('"ab"', '"a"')).toBe(false);
  });

  it('types files by extension', () => {
    expect(contentTypeOf('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('main-X.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('main-X.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('logo.svg')).toBe('image/svg+xml');
    expect(contentTypeOf('README')).toBe('application/octet-stream');
  });

  it('indexes a manifest: gzip kept only when smaller, hashed names immutable, strong ETags; refuses bad names and missing files', () => {
    const files: Record<string, Buffer> = {
      'index.html': Buffer.from('<html>'.repeat(50)),
      'index.html.gz': Buffer.from('z'),
      'main-A.js': Buffer.from('x'),
      'main-A.js.gz': Buffer.from('much longer than x'),
    };
    const b = indexAssets({ files: [{ name: 'index.html', hashed: false }, { name: 'main-A.js', hashed: true }] }, (n) => files[n]);
    expect(b.ok).toBe(true);
    if (!b.ok) return;
    const index = b.assets.get('index.html')!;
    expect(index.gzip?.toString()).toBe('z');
    expect(index.immutable).toBe(false);
    expect(index.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(b.assets.get('main-A.js')!.gzip).toBeUndefined();
    expect(b.assets.get('main-A.js')!.immutable).toBe(true);
    expect(indexAssets({ files: [{ name: '../etc/passwd', hashed: true }] }, () => Buffer.alloc(1))).toMatchObject({ ok: false, reason: expect.stringMatching(/bad file/) });
    expect(indexAssets({ files: [{ name: '.hidden', hashed: true }] }, () => Buffer.alloc(1))).toMatchObject({ ok: false });
    expect(indexAssets({ files: [{ name: 'index.html', hashed: false }, { name: 'gone.js', hashed: true }] }, (n) => files[n])).toMatchObject({ ok: false, reason: expect.stringMatching(/gone\.js .*missing/) });
    expect(indexAssets({ files: [{ name: 'main-A.js', hashed: true }] }, (n) => files[n])).toMatchObject({ ok: false, reason: expect.stringMatching(/no index\.html/) });
  });

  it('loads a build from disk, and says clearly when there is none or it is broken', () => {
    const dir = mkdtempSync(join(tmpdir(), 'grid-console-unit-'));
    try {
      expect(loadConsoleAssets(join(dir, 'absent'))).toMatchObject({ ok: false, reason: expect.stringMatching(/has no web console .*run npm run build/) });
      writeFileSync(join(dir, 'manifest.json'), '{not json');
      expect(loadConsoleAssets(dir)).toMatchObject({ ok: false, reason: expect.stringMatching(/unreadable/) });
      writeFileSync(join(dir, 'manifest.json'), '{}');
      expect(loadConsoleAssets(dir)).toMatchObject({ ok: false, reason: expect.stringMatching(/lists no files/) });
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ files: [{ name: 'index.html', hashed: false }] }));
      writeFileSync(join(dir, 'index.html'), '<html>');
      const b = loadConsoleAssets(dir);
      expect(b).toMatchObject({ ok: true, dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 500 with the reason on a member whose build has no console', () => {
    const deps = { console: { ok: false, reason: 'this member\'s build has no web console (no x)' } } as unknown as RestDeps;
    const r = { req: { url: '/grid/console/', rawHeaders: [] }, res: {}, method: 'GET', body: Buffer.alloc(0) } as unknown as Request;
    let thrown: unknown;
    try {
      serveConsole(r, deps, ['']);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(GridError);
    expect((thrown as GridError).code).toBe('NOT_ENABLED');
    expect((thrown as GridError).message).toMatch(/no web console/);
  });
});

describe('the console routes', () => {
  it('are the CONSOLE group at both prefixes, with their own metrics label', () => {
    for (const path of ['console', 'console/', 'console/index.html', 'console/session', 'console/a/b']) {
      expect(groupOfPath(path), path).toBe('CONSOLE');
      expect(routeLabelOf(path), path).toBe('console');
    }
    expect(endpointOf(resolveRoute('GET', 'console/session'))?.path).toMatch(/session/);
    expect(endpointOf(resolveRoute('GET', 'console/main-X.js'))?.path).toMatch(/<file>/);
    expect(endpointOf(resolveRoute('HEAD', 'console/'))?.path).toMatch(/<file>/);
    expect(() => resolveRoute('POST', 'console/')).toThrow(/no endpoint POST/);
  });
});
