// The web console (docs/console.md) end to end: Debian's headless Chromium, driven by
// playwright-core, against one real 3-member cluster (child processes) and one secured member
// (in process), both shared by every test of the file, as is the one browser. The files as
// served (308, gzip, ETag/304, immutable names, 404s, no traversal, both prefixes); the Cluster
// page's members and partition counts; a state change pressed in the console, read back over
// REST; a cross-site page's fetch and form refused by the member; the login: a wrong password
// sees no data; the Maps page (a put read back over REST byte for byte, REST writes in the live feed
// and the paged key browser, a stale edit refused with nothing written, behind the login too) and
// the Queues page (offer polled over REST, poll); a member shut down from its console, and one killed with kill -9, leave the page
// within the heartbeat deadline. Screenshots of each page go to test-results/console/
// (`npm run console:screenshots` copies them to docs/img/). The Metrics page's charts of every
// member's history (or its clear message on a member without the history endpoint). The
// member-changing tests run last.

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startCluster, type Cluster } from '../support/cluster.js';
import { sendRequest, basic } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { REPO_ROOT } from '../support/process.js';
import { waitFor } from '../support/wait.js';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';
import { LogCapture } from '../support/logs.js';
import { configOf, endpointsOf, launch, put, replicatedMap, reserveCluster, wanReplication, wanStatus } from '../support/wan.js';

const CHROMIUM = process.env.GRID_CHROMIUM ?? '/usr/bin/chromium';
/** The flags every Chromium of the tests starts with (no network of its own, no sandbox in containers). */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BUILT = existsSync(join(REPO_ROOT, 'dist', 'console', 'manifest.json'));
const SKIP = !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)` : !BUILT ? 'no dist/console (npm run build)' : undefined;
if (SKIP !== undefined) console.warn(`test/console/console.test.ts skipped: ${SKIP}`);

const SHOTS = join(REPO_ROOT, 'test-results', 'console');
/** hazelcast.max.no.heartbeat.seconds of the harness (5 s) plus the page's 1 s poll and room for a loaded machine. */
const HEARTBEAT_DEADLINE_MS = 20_000;
const CONSOLE_GROUP = { network: { 'rest-api': { 'endpoint-groups': { CONSOLE: { enabled: true } } } } };
const SECURITY = {
  enabled: true,
  realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 's3cret', roles: ['admin'] }] } } }],
  'client-authentication': { realm: 'r' },
};

let c: Cluster;
let secured: Member;
let securedPort: number;
let browser: BrowserContext;
let userDir: string;

beforeAll(async () => {
  if (SKIP !== undefined) return;
  const { chromium } = await import('playwright-core');
  userDir = mkdtempSync(join(tmpdir(), 'grid-console-chromium-'));
  mkdirSync(SHOTS, { recursive: true });
  securedPort = await freePort();
  const { config } = configFromObject({
    'cluster-name': 'secured',
    security: SECURITY,
    network: {
      port: { port: securedPort, 'auto-increment': false },
      interfaces: { enabled: true, interfaces: ['127.0.0.1'] },
      join: { 'tcp-ip': { enabled: false }, multicast: { enabled: false } },
      'rest-api': { enabled: true, 'endpoint-groups': { CLUSTER_READ: { enabled: true }, HEALTH_CHECK: { enabled: true }, DATA: { enabled: true }, CONSOLE: { enabled: true } } },
    },
  });
  [c, browser, secured] = await Promise.all([
    startCluster({ size: 3, scope: 'file', spare: 0, config: () => CONSOLE_GROUP }),
    chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, args: CHROMIUM_FLAGS, viewport: { width: 1280, height: 900 } }),
    Member.start({ config, logDestination: new LogCapture() }),
  ]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await secured?.stop();
  await c?.destroy();
  if (userDir !== undefined) rmSync(userDir, { recursive: true, force: true });
});

const consoleUrl = (port: number, page = 'cluster'): string => `http://127.0.0.1:${port}/grid/console/#/${page}`;

async function open(port: number, page = 'cluster', width = 1280): Promise<Page> {
  const p = await browser.newPage();
  await p.setViewportSize({ width, height: 900 });
  await p.goto(consoleUrl(port, page));
  return p;
}

/** The rows of the members table as the page shows them. */
async function memberRows(p: Page): Promise<{ address: string; owned: number; backups: number }[]> {
  return p.$$eval('[data-testid=member-row]', (rows) =>
    rows.map((r) => ({
      address: (r.querySelector('td')?.textContent ?? '').trim(),
      owned: Number(r.querySelector('[data-testid=owned]')?.textContent),
      backups: Number(r.querySelector('[data-testid=backups]')?.textContent),
    })),
  );
}

/** A member to write a key through: spread over the three by the key's length. */
const i0 = (k: string): number => k.length % 3;

async function clusterState(i: number): Promise<string> {
  const r = await c.http(i, 'GET', '/hazelcast/health');
  return (JSON.parse(r.body) as { clusterState: string }).clusterState;
}

describe.skipIf(SKIP !== undefined)('the console', () => {
  it('is served from memory at both prefixes: 308 to the root, no-cache index, immutable gzipped files, 304, 404s', async () => {
    const port = c.member(0).port;
    const redirect = await sendRequest(port, 'GET', '/grid/console');
    expect(redirect.status).toBe(308);
    expect(redirect.headers['location']).toBe('console/');
    const index = await sendRequest(port, 'GET', '/hazelcast/console/', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const html = index.headers['content-encoding'] === 'gzip' ? gunzipSync(index.body).toString() : index.body.toString();
    const script = /src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toMatch(/^main-[A-Z0-9]+\.js$/);
    const plain = await sendRequest(port, 'GET', `/grid/console/${script!}`);
    const zipped = await sendRequest(port, 'GET', `/grid/console/${script!}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    const again = await sendRequest(port, 'GET', `/grid/console/${script!}`, { headers: { 'If-None-Match': plain.headers['etag'] as string } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await sendRequest(port, 'HEAD', '/grid/console/');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const bad of ['nothing.js', '..%2F..%2Fpackage.json', '../manifest.json', 'manifest.json', '%2e%2e/%2e%2e/package.json', `${script!}.gz`]) {
      const r = await sendRequest(port, 'GET', `/grid/console/${bad}`);
      expect(r.status, bad).toBe(404);
    }
  });

  it('lists the 3 members on the Cluster page, and their partition counts add up to 271 owned plus 271 backups', async () => {
    const p = await open(c.member(0).port);
    try {
      const rows = await waitFor('3 members with every partition placed', async () => {
        const r = await memberRows(p);
        return r.length === 3 && r.reduce((s, x) => s + x.owned, 0) === 271 && r.reduce((s, x) => s + x.backups, 0) === 271 ? r : undefined;
      }, 15_000, 100);
      expect(rows.map((r) => r.address).sort()).toEqual(c.members.map((m) => m.address).sort());
      const rest = await c.partitions(0);
      for (const m of rest.members) expect(rows.find((r) => r.address === m.address)).toMatchObject({ owned: m.owned, backups: m.backups });
      expect(await p.textContent('[data-testid=partition-totals]')).toBe('271 owned + 271 backups');
      expect(await p.textContent('[data-testid=cluster-safe]')).toBe('yes');
      expect(await p.textContent('[data-testid=cluster-state]')).toBe('ACTIVE');
      await p.screenshot({ path: join(SHOTS, 'cluster.png'), fullPage: true });
      // A phone's width: the nav and the page stay usable, nothing wider than the screen but the members table's own scroll.
      await p.setViewportSize({ width: 390, height: 844 });
      expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await p.screenshot({ path: join(SHOTS, 'cluster-phone.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  it('changes the cluster state from the console after a confirmation (Escape cancels), as GET health then shows', async () => {
    const p = await open(c.member(1).port);
    try {
      await p.waitForSelector('[data-testid=member-row]');
      await p.selectOption('[data-testid=state-select]', 'FROZEN');
      await p.click('[data-testid=change-state]');
      await p.waitForSelector('dialog[open]');
      await p.screenshot({ path: join(SHOTS, 'cluster-confirm.png') });
      await p.keyboard.press('Escape');
      await p.waitForSelector('dialog', { state: 'detached' });
      expect(await clusterState(0)).toBe('ACTIVE');
      // Keyboard only: Tab to the button, Enter opens the dialog, Tab from Cancel to Confirm, Enter.
      await p.focus('[data-testid=change-state]');
      await p.keyboard.press('Enter');
      await p.waitForSelector('dialog[open]');
      await p.keyboard.press('Tab');
      await p.keyboard.press('Enter');
      await waitFor('the cluster FROZEN over REST', async () => (await clusterState(2)) === 'FROZEN', 10_000, 100);
      await waitFor('the page showing FROZEN', async () => (await p.textContent('[data-testid=cluster-state]')) === 'FROZEN', 10_000, 100);
      await p.selectOption('[data-testid=state-select]', 'ACTIVE');
      await p.click('[data-testid=change-state]');
      await p.click('[data-testid=confirm]');
      await waitFor('the cluster ACTIVE again', async () => (await clusterState(0)) === 'ACTIVE', 10_000, 100);
    } finally {
      await p.close();
    }
  });

  it('refuses a cross-site page\'s fetch and form that try to change the cluster state', async () => {
    const member = c.member(0).port;
    const target = `http://127.0.0.1:${member}/grid/rest/management/cluster/changeState`;
    const put = `http://127.0.0.1:${member}/grid/rest/maps/csrf/k`;
    // Another origin (another port) on the same machine: a page a user might have open.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<!doctype html><body>
        <iframe name="sink"></iframe>
        <form id="f" method="POST" action="${put}" target="sink" enctype="text/plain"><input name="stolen" value="yes"></form>
        <script>
          window.fetched = fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', body: 'dev&&PASSIVE' }).then(() => 'answered', (e) => String(e));
          document.querySelector('iframe').addEventListener('load', () => { window.submitted = true; });
          document.getElementById('f').submit();
        </script></body>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const p = await browser.newPage();
    try {
      const port = (evil.address() as { port: number }).port;
      await p.goto(`http://127.0.0.1:${port}/`);
      // The member answered both (the fetch resolved with its opaque answer, the form's frame loaded it).
      expect(await p.evaluate('window.fetched')).toBe('answered');
      await p.waitForFunction('window.submitted === true', undefined, { timeout: 10_000 });
      expect(await clusterState(0)).toBe('ACTIVE');
      expect((await c.http(0, 'GET', '/grid/rest/maps/csrf/k')).status).toBe(204);
      // The same body without a browser's headers (curl, scripts) is taken: the refusal is the headers'.
      const direct = await sendRequest(member, 'POST', '/grid/rest/management/cluster/changeState', { body: 'dev&&ACTIVE' });
      expect(direct.status).toBe(200);
      const crossSite = await sendRequest(member, 'POST', '/grid/rest/management/cluster/changeState', { body: 'dev&&PASSIVE', headers: { 'Sec-Fetch-Site': 'cross-site' } });
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers['x-grid-error']).toMatch(/cross-site request refused/);
      expect(crossSite.headers['www-authenticate']).toBeUndefined();
    } finally {
      await p.close();
      evil.close();
    }
  });

  it('draws the Metrics page from every member\'s history, or says the member has none', async () => {
    const history = await c.http(0, 'GET', '/grid/rest/metrics/history?seconds=5');
    const p = await open(c.member(0).port, 'metrics');
    try {
      if (history.status === 200) {
        // One chart per figure, each with a line per member, filled within a few polls.
        await waitFor('7 charts with 3 members each', async () => (await p.$$eval('.chart-box', (b) => b.filter((x) => x.querySelectorAll('.u-legend .u-series').length >= 4).length)) === 7, 15_000, 200);
        const legend = await p.textContent('.chart-box .u-legend');
        for (const m of c.members) expect(legend).toContain(m.address);
        await p.screenshot({ path: join(SHOTS, 'metrics.png'), fullPage: true });
      } else {
        // A member without the history endpoint (GET answers 400): the page says so instead of failing.
        expect(history.status).toBe(400);
        await p.waitForSelector('[data-testid=no-history]');
        expect(await p.textContent('[data-testid=no-history]')).toContain('/grid/rest/metrics/history');
      }
      expect(await p.getAttribute('nav a[aria-current=page]', 'href')).toBe('#/metrics');
    } finally {
      await p.close();
    }
  });

  it('shows persistence as off and the PERSISTENCE group as disabled on a member without them', async () => {
    const p = await open(c.member(1).port, 'persistence');
    try {
      await p.waitForSelector('[data-testid=persistence-off]');
      expect(await p.textContent('[data-testid=not-allowed]')).toContain('PERSISTENCE');
      // The CP page needs group CP, which this cluster leaves off: a clear panel, not an empty page.
      await p.goto(consoleUrl(c.member(1).port, 'cp'));
      expect(await p.textContent('[data-testid=not-allowed]')).toContain('CP');
      await p.goto(consoleUrl(c.member(1).port, 'persistence'));
      await p.waitForSelector('[data-testid=persistence-off]');
      await p.screenshot({ path: join(SHOTS, 'persistence.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  it('with security on, asks for credentials: a wrong password sees no data, the right one sees the members', async () => {
    const p = await open(securedPort);
    try {
      await p.waitForSelector('[data-testid=login]');
      expect(await p.$('[data-testid=members]')).toBeNull();
      await p.fill('input[name=username]', 'admin');
      await p.fill('input[name=password]', 'wrong');
      await p.click('button[type=submit]');
      await p.waitForSelector('[data-testid=login-message]');
      expect(await p.textContent('[data-testid=login-message]')).toContain('Wrong user name or password');
      expect(await p.$('[data-testid=members]')).toBeNull();
      const uuid = (JSON.parse((await sendRequest(securedPort, 'GET', '/grid/rest/cluster')).body.toString()) as { members: { uuid: string }[] }).members[0]!.uuid;
      expect(await p.evaluate('document.body.innerText')).not.toContain(uuid);
      await p.screenshot({ path: join(SHOTS, 'login.png') });
      // No WWW-Authenticate ever, so the browser never offers (and remembers) credentials itself.
      const refused = await sendRequest(securedPort, 'GET', '/grid/console/session', { headers: { Authorization: basic('admin', 'wrong') } });
      expect(refused.status).toBe(403);
      expect(refused.headers['www-authenticate']).toBeUndefined();
      // The user name stays; only the password is asked again.
      expect(await p.inputValue('input[name=username]')).toBe('admin');
      expect(await p.inputValue('input[name=password]')).toBe('');
      await p.fill('input[name=password]', 's3cret');
      await p.click('button[type=submit]');
      await p.waitForSelector('[data-testid=member-row]');
      expect(await p.textContent('[data-testid=members]')).toContain(uuid);
      // CLUSTER_WRITE is off on this member: its actions are "not allowed", not offered.
      expect(await p.textContent('[data-testid=not-allowed]')).toContain('CLUSTER_WRITE');
    } finally {
      await p.close();
    }
  });

  it('puts an entry through the Maps page that reads back over REST byte for byte, with its content type and TTL', async () => {
    const value = '{"name":"Zoë","n":[1,2]}';
    const p = await open(c.member(0).port, 'maps/cdata-put');
    try {
      await p.waitForSelector('[data-testid=put-form]');
      await p.fill('[data-testid=put-form] input[name=key]', 'k/1 é');
      await p.selectOption('[data-testid=put-form] select[name=contentType]', 'application/json');
      await p.fill('[data-testid=put-form] input[name=ttl]', '1h');
      await p.fill('[data-testid=put-form] textarea[name=value]', value);
      await p.click('[data-testid=put]');
      await p.waitForSelector('[data-testid=entry-value][data-kind=json]');
      const r = await sendRequest(c.member(1).port, 'GET', `/grid/rest/maps/cdata-put/${encodeURIComponent('k/1 é')}`);
      expect(r.status).toBe(200);
      expect(r.body.equals(Buffer.from(value, 'utf8'))).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      const left = Number(r.headers['grid-expires-in']);
      expect(left).toBeGreaterThan(3500);
      expect(left).toBeLessThanOrEqual(3600);
      // The page shows what it read: pretty JSON, the version of the ETag, the TTL left.
      expect(await p.textContent('[data-testid=entry-value]')).toBe(JSON.stringify(JSON.parse(value), null, 2));
      expect(await p.textContent('[data-testid=entry-version]')).toBe((r.headers['etag'] as string).replace(/"/g, ''));
      expect(await p.textContent('[data-testid=entry-ttl]')).toMatch(/^3[56]\d\d s$/);
      await p.screenshot({ path: join(SHOTS, 'map.png'), fullPage: true });
      await p.setViewportSize({ width: 390, height: 844 });
      expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await p.screenshot({ path: join(SHOTS, 'map-phone.png'), fullPage: true });
      await p.setViewportSize({ width: 1280, height: 900 });
      // Bad input is refused in the page and writes nothing.
      await p.fill('[data-testid=put-form] input[name=key]', 'bad');
      await p.fill('[data-testid=put-form] textarea[name=value]', '{nope');
      await p.click('[data-testid=put]');
      await waitFor('the refusal', async () => ((await p.textContent('[data-testid=put-message]')) ?? '').includes('not JSON'), 5_000, 50);
      expect((await c.http(0, 'GET', '/grid/rest/maps/cdata-put/bad')).status).toBe(204);
      // The lists: the map with its entry count; a phone's width stays usable.
      await p.goto(consoleUrl(c.member(0).port, 'maps'));
      await waitFor('cdata-put listed with 1 entry', async () => (await p.$$eval('[data-testid=structure-row]', (rows) => rows.map((r) => `${r.querySelector('a')?.textContent}=${r.querySelector('[data-testid=size]')?.textContent}`))).includes('cdata-put=1'), 10_000, 100);
      await p.screenshot({ path: join(SHOTS, 'maps.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  it('shows entries put over REST in the live feed and in the key browser, page by page under a prefix', async () => {
    const p = await open(c.member(1).port, 'maps/cdata-live');
    try {
      await waitFor('the feed connected', async () => (await p.textContent('[data-testid=feed-state]')) === 'connected', 10_000, 50);
      const put = await c.http(2, 'PUT', '/grid/rest/maps/cdata-live/hello', 'world', { contentType: 'text/plain' });
      expect(put.status).toBe(200);
      await waitFor('the event in the feed', async () => (await p.$$eval('[data-testid=feed-row]', (rows) => rows.map((r) => r.textContent))).includes('addedhelloworld'), 10_000, 50);
      await c.http(2, 'DELETE', '/grid/rest/maps/cdata-live/hello');
      await waitFor('the removal in the feed, newest first', async () => ((await p.textContent('[data-testid=feed-row]')) ?? '').startsWith('removedhello'), 10_000, 50);
      // 25 keys under p/ and 3 others, written over REST; the browser pages them 20 at a time.
      const want = Array.from({ length: 25 }, (_, i) => `p/${i}`);
      for (const k of [...want, 'q/1', 'q/2', 'q/3']) expect((await c.http(i0(k), 'PUT', `/grid/rest/maps/cdata-live/${encodeURIComponent(k)}`, k, { contentType: 'text/plain' })).status).toBe(200);
      await p.fill('[data-testid=prefix]', 'p/');
      await p.press('[data-testid=prefix]', 'Enter');
      const keys = async (): Promise<string[]> => p.$$eval('[data-testid=key]', (ks) => ks.map((k) => k.textContent ?? ''));
      const first = await waitFor('a first page of 20 p/ keys', async () => {
        const k = await keys();
        return k.length === 20 && k.every((x) => x.startsWith('p/')) ? k : undefined;
      }, 10_000, 50);
      expect(await p.isDisabled('[data-testid=prev]')).toBe(true);
      const seen = [...first];
      // A page may hold fewer keys than the limit and still go on: follow "next" until it is disabled.
      for (let i = 0; i < 10 && !(await p.isDisabled('[data-testid=next]')); i++) {
        const before = (await keys()).join();
        await p.click('[data-testid=next]');
        seen.push(...(await waitFor('the next page', async () => {
          const k = await keys();
          return k.join() !== before || (await p.$('[data-testid=no-keys]')) !== null ? k : undefined;
        }, 10_000, 50)));
      }
      expect([...seen].sort()).toEqual([...want].sort());
      await p.click('[data-testid=prev]');
      await waitFor('a previous page', async () => (await keys()).length > 0, 10_000, 50);
      await p.screenshot({ path: join(SHOTS, 'map-live.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  it('refuses an edit with a stale version: shows the conflict, writes nothing, reloads; a fresh edit and a confirmed delete go through', async () => {
    expect((await c.http(0, 'PUT', '/grid/rest/maps/cdata-cas/c1', 'v1', { contentType: 'text/plain' })).status).toBe(200);
    const p = await open(c.member(2).port, 'maps/cdata-cas');
    try {
      await p.click('[data-testid=key]');
      await waitFor('v1 shown', async () => (await p.textContent('[data-testid=entry-value]')) === 'v1', 10_000, 50);
      await p.click('[data-testid=edit]');
      await p.fill('[data-testid=edit-value]', 'mine');
      // Someone else writes between the read and the save.
      expect((await c.http(1, 'PUT', '/grid/rest/maps/cdata-cas/c1', 'theirs', { contentType: 'text/plain' })).status).toBe(200);
      await p.click('[data-testid=save]');
      await waitFor('the conflict shown', async () => ((await p.textContent('[data-testid=entry-message]')) ?? '').includes('changed since you read it'), 10_000, 50);
      expect((await c.http(0, 'GET', '/grid/rest/maps/cdata-cas/c1')).body).toBe('theirs');
      await waitFor('their value reloaded', async () => (await p.textContent('[data-testid=entry-value]')) === 'theirs', 10_000, 50);
      await p.screenshot({ path: join(SHOTS, 'map-conflict.png'), fullPage: true });
      await p.click('[data-testid=edit]');
      await p.fill('[data-testid=edit-value]', 'mine');
      await p.click('[data-testid=save]');
      await waitFor('the edit over REST', async () => (await c.http(2, 'GET', '/grid/rest/maps/cdata-cas/c1')).body === 'mine', 10_000, 50);
      await p.click('[data-testid=delete]');
      await p.waitForSelector('dialog[open]');
      await p.click('[data-testid=confirm]');
      await waitFor('the entry gone over REST', async () => (await c.http(1, 'GET', '/grid/rest/maps/cdata-cas/c1')).status === 204, 10_000, 50);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('offers on a queue from the Queues page, polled over REST; a console poll shows the item or "empty"', async () => {
    const p = await open(c.member(0).port, 'queues/cdata-q');
    try {
      await p.waitForSelector('[data-testid=offer-form]');
      await p.selectOption('[data-testid=offer-form] select[name=contentType]', 'application/json');
      await p.fill('[data-testid=offer-form] textarea[name=value]', '{"job":1}');
      await p.click('[data-testid=offer]');
      await waitFor('offered', async () => (await p.textContent('[data-testid=queue-message]')) === 'Offered.', 10_000, 50);
      await waitFor('size 1 shown', async () => (await p.textContent('[data-testid=queue-size]')) === '1', 10_000, 50);
      const polled = await sendRequest(c.member(2).port, 'DELETE', '/grid/rest/queues/cdata-q/1');
      expect(polled.status).toBe(200);
      expect(polled.body.toString()).toBe('{"job":1}');
      expect(polled.headers['content-type']).toBe('application/json');
      await p.click('[data-testid=poll]');
      await p.waitForSelector('[data-testid=polled-empty]');
      expect((await c.http(1, 'POST', '/grid/rest/queues/cdata-q', 'from-rest', { contentType: 'text/plain' })).status).toBe(200);
      await p.click('[data-testid=poll]');
      await waitFor('the item polled in the console', async () => (await p.textContent('[data-testid=polled]')) === 'from-rest', 10_000, 50);
      await p.screenshot({ path: join(SHOTS, 'queue.png'), fullPage: true });
      await p.goto(consoleUrl(c.member(0).port, 'queues'));
      await p.waitForSelector('[data-testid=structure-row]');
      await p.screenshot({ path: join(SHOTS, 'queues.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  it('with security on, a map\'s page opens behind the login and follows the change stream', async () => {
    const p = await open(securedPort, 'maps/sec');
    try {
      await p.waitForSelector('[data-testid=login]');
      await p.fill('input[name=username]', 'admin');
      await p.fill('input[name=password]', 's3cret');
      await p.click('button[type=submit]');
      await waitFor('the feed connected', async () => (await p.textContent('[data-testid=feed-state]').catch(() => null)) === 'connected', 10_000, 50);
      const put = await sendRequest(securedPort, 'PUT', '/grid/rest/maps/sec/s1', { body: 'secret-value', headers: { Authorization: basic('admin', 's3cret'), 'Content-Type': 'text/plain' } });
      expect(put.status).toBe(200);
      await waitFor('the event in the feed', async () => (await p.$$eval('[data-testid=feed-row]', (rows) => rows.map((r) => r.textContent))).includes('addeds1secret-value'), 10_000, 50);
    } finally {
      await p.close();
    }
  });

  it('drops a member shut down from its own console, and one killed with kill -9, within the heartbeat deadline', async () => {
    const watcher = await open(c.member(0).port);
    const victim = await open(c.member(2).port);
    try {
      await waitFor('3 members on the page', async () => (await memberRows(watcher)).length === 3, 10_000, 100);
      await victim.waitForSelector('[data-testid=shutdown]');
      await victim.click('[data-testid=shutdown]');
      await victim.click('[data-testid=confirm]');
      await c.waitExit(2, 30_000);
      await waitFor('member 2 gone from the page', async () => !(await memberRows(watcher)).some((r) => r.address === c.member(2).address), HEARTBEAT_DEADLINE_MS, 100);
      await c.kill(1);
      const killedAt = Date.now();
      await waitFor('member 1 gone from the page after kill -9', async () => {
        const rows = await memberRows(watcher);
        return rows.length === 1 && rows[0]!.address === c.member(0).address;
      }, HEARTBEAT_DEADLINE_MS, 100);
      expect(Date.now() - killedAt).toBeLessThan(HEARTBEAT_DEADLINE_MS);
    } finally {
      await watcher.close();
      await victim.close();
    }
  }, 60_000);
});

/**
 * The WAN and CP pages need a cluster with CP members and a WAN publisher, which the shared
 * cluster has not (its last test shuts members down, which a CP majority would not survive):
 * a second 3-member cluster with CP and a publisher to a one-member target, for this block only.
 */
describe.skipIf(SKIP !== undefined)('the console\'s WAN and CP pages', () => {
  const REP = 'to-target';
  let src: Cluster;
  let target: Cluster;

  beforeAll(async () => {
    target = await reserveCluster('console-target', 1, undefined, { scope: 'file' });
    const cfg = (): Record<string, unknown> =>
      configOf(
        { network: { 'rest-api': { 'endpoint-groups': { CONSOLE: { enabled: true }, CP: { enabled: true }, WAN: { enabled: true } } } } },
        { 'cp-subsystem': { 'cp-member-count': 3, 'raft-algorithm': { 'leader-election-timeout-in-millis': 500, 'leader-heartbeat-period-in-millis': 200 } } },
        wanReplication(REP, { clusterName: 'console-target', publisherId: 'target', endpoints: endpointsOf(target) }),
        replicatedMap('wan*', REP),
      );
    [src] = await Promise.all([startCluster({ size: 3, scope: 'file', spare: 0, clusterName: 'console-source', config: cfg }), launch(target, 1)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([src?.destroy(), target?.destroy()]);
  });

  it('pauses a publisher pressed in the console, as GET /grid/rest/wan then shows, resumes it, and follows a sync to its end', async () => {
    const p = await open(src.member(0).port, 'wan');
    try {
      await put(src, 0, 'wan-orders', 'k1', 'v1');
      const row = '[data-testid=wan-row][data-publisher="to-target/target"]';
      await p.waitForSelector(`${row} [data-testid=wan-pause]`);
      await p.click(`${row} [data-testid=wan-pause]`);
      const state = async (): Promise<string | undefined> => (await wanStatus(src, 0)).find((x) => x.publisherId === 'target')?.state;
      await waitFor('PAUSED in GET /grid/rest/wan', async () => (await state()) === 'PAUSED', 10_000, 100);
      await p.waitForSelector(`${row} [data-testid=wan-resume]`);
      expect(await p.textContent(`${row} [data-testid=wan-state]`)).toBe('PAUSED');
      // Only this member's publisher was paused (the REST command acts on the receiving member).
      expect((await wanStatus(src, 1)).find((x) => x.publisherId === 'target')?.state).toBe('REPLICATING');
      await p.click(`${row} [data-testid=wan-resume]`);
      await waitFor('REPLICATING again', async () => (await state()) === 'REPLICATING', 10_000, 100);
      // A sync of one map, started here, polled until the member says it ended.
      await p.fill('[data-testid=wan-map]', 'wan-orders');
      await p.click('[data-testid=wan-sync]');
      await waitFor('the sync FINISHED on the page', async () => {
        if ((await p.$('[data-testid=wan-job][data-stage=FINISHED]')) !== null) return true;
        throw new Error(await p.innerText('main'));
      }, 30_000, 200);
      await waitFor('the lag chart sampled', async () => Number(await p.getAttribute('[data-testid=wan-lag-chart]', 'data-points')) >= 3, 15_000, 200);
      await p.screenshot({ path: join(SHOTS, 'wan.png'), fullPage: true });
    } finally {
      await p.close();
    }
  }, 60_000);

  it('lists the CP groups with their leader and members, and the CP members', async () => {
    const p = await open(src.member(1).port, 'cp');
    try {
      const members = src.members.map((m) => m.address).sort();
      await waitFor('METADATA with a leader and 3 members', async () => {
        const leader = await p.textContent('[data-testid=cp-group-row][data-group=METADATA] [data-testid=cp-leader]').catch(() => null);
        if (leader !== null && members.includes(leader.trim())) return leader;
        throw new Error(await p.innerText('main'));
      }, 20_000, 200);
      const cpRows = await p.$$eval('[data-testid=cp-member-row] td:first-child', (els) => els.map((e) => (e.textContent ?? '').replace(' (this member)', '').trim()));
      expect(cpRows.sort()).toEqual(members);
      const rest = await src.json<{ name: string }[]>(1, '/hazelcast/rest/cp-subsystem/groups');
      const shown = await p.$$eval('[data-testid=cp-group-row]', (els) => els.map((e) => e.getAttribute('data-group')));
      expect(shown.sort()).toEqual(rest.map((g) => g.name).sort());
      await p.screenshot({ path: join(SHOTS, 'cp.png'), fullPage: true });
    } finally {
      await p.close();
    }
  }, 60_000);
});
