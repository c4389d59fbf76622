// The `grid` command as a user runs it: `node bin/grid.js` in a child process, against the
// compiled dist/ (built by `npm test`, or `npx tsc -p tsconfig.build.json`).

import net from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RawConnection, sendAndAwaitClose, sendRequest } from '../support/http.js';
import { connectionRefused, freePort } from '../support/ports.js';
import { cleanEnv, REPO_ROOT, spawnGrid, waitFor, type GridProcess } from '../support/process.js';
import { makeTestCerts, pemSsl, STORE_PASSWORD } from '../support/certs.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

beforeAll(() => {
  if (!existsSync(resolve(REPO_ROOT, 'dist/cli.js'))) {
    throw new Error('dist/cli.js is missing: run `npx tsc -p tsconfig.build.json` (npm test builds it first)');
  }
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'grid-cli-'));
  dirs.push(d);
  return d;
}

/** Writes `{hazelcast: content}` as YAML into `dir/name` and returns its path. */
function writeYaml(dir: string, name: string, content: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, stringify({ hazelcast: content }));
  return path;
}

/** A loopback config with REST and every group on, starting at `port`. */
function memberYaml(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const groups = ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'DATA'];
  return {
    ...extra,
    network: {
      port: { port, 'auto-increment': true, 'port-count': 20 },
      interfaces: { enabled: true, interfaces: ['127.0.0.1'] },
      'rest-api': { enabled: true, 'endpoint-groups': Object.fromEntries(groups.map((g) => [g, { enabled: true }])) },
    },
  };
}

/** Waits for the start banner (on stderr); returns the REST port it names. */
async function restPortOf(p: GridProcess): Promise<number> {
  const m = await p.waitForStderr(/^REST on port (\d+)/m);
  return Number(m[1]);
}

async function instanceName(port: number): Promise<string> {
  const res = await sendRequest(port, 'GET', '/hazelcast/rest/instance');
  expect(res.status).toBe(200);
  return (JSON.parse(res.body.toString()) as { name: string }).name;
}

function logMessages(p: GridProcess): string[] {
  return p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg ?? ''));
}

describe('grid --help', () => {
  it('explains the commands', async () => {
    const p = spawnGrid(['--help']);
    expect((await p.exited()).code).toBe(0);
    const out = p.stdout();
    expect(out).toMatch(/Usage: grid/);
    expect(out).toContain('start');
    expect(out).toContain('validate');
    expect(out).toMatch(/Hazelcast-compatible REST/);
  });

  it('start --help explains the config search, environment overrides and signals', async () => {
    const p = spawnGrid(['start', '--help']);
    expect((await p.exited()).code).toBe(0);
    const out = p.stdout();
    for (const s of ['--config', 'GRID_CONFIG', 'hazelcast.yaml', 'HZ_', 'SIGTERM']) expect(out, s).toContain(s);
  });
});

describe('help at the terminal width', () => {
  it('every line of the wan, cp and admin helps fits 80 columns (the width without a terminal)', async () => {
    const helps = [['--help'], ['wan', '--help'], ['cp', '--help'], ['map', 'get', '--help'], ['wan', 'consistency-check', '--help']];
    const outs = await Promise.all(
      helps.map(async (args) => {
        const p = spawnGrid(args);
        expect((await p.exited()).code).toBe(0);
        return { args, out: p.stdout() };
      }),
    );
    for (const { args, out } of outs) {
      const long = out.split('\n').filter((l) => l.length > 80);
      expect(long, `grid ${args.join(' ')}`).toEqual([]);
    }
    const wan = outs[1]!.out;
    // A term too wide to leave room beside it has its description under it.
    expect(wan).toContain('  consistency-check [options] <replication> [publisher]\n      Compare a map');
    expect(outs[3]!.out).toMatch(/\nExit codes: 0 ok;[^\n]*\n\S/); // the exit codes are wrapped too
  });
});

describe('grid without a valid command', () => {
  it('--version prints the package version', async () => {
    const p = spawnGrid(['--version']);
    expect((await p.exited()).code).toBe(0);
    expect(p.stdout().trim()).toBe(PACKAGE_VERSION);
  });

  it('an unknown command or option fails and says so', async () => {
    const a = spawnGrid(['stat']);
    expect((await a.exited()).code).not.toBe(0);
    expect(a.stderr()).toContain("unknown command 'stat'");
    const b = spawnGrid(['start', '--cnfig', 'x.yaml']);
    expect((await b.exited()).code).not.toBe(0);
    expect(b.stderr()).toContain("unknown option '--cnfig'");
    expect(b.stderr()).not.toMatch(/is running/);
  });
});

describe('grid start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`runs from --config, answers HTTP, and exits 0 on ${signal} after a graceful shutdown`, async () => {
      const dir = tempDir();
      const file = writeYaml(dir, 'member.yaml', memberYaml(await freePort(), { 'instance-name': 'cli-node' }));
      const p = spawnGrid(['start', '--config', file]);
      const m = await p.waitForStderr(/member 127\.0\.0\.1:(\d+) \(instance cli-node\) is running; config: (.+)\./);
      expect(m[2]).toBe(file);
      const port = await restPortOf(p);
      expect(port).toBe(Number(m[1]));
      const health = await sendRequest(port, 'GET', '/hazelcast/health/node-state');
      expect(health.status).toBe(200);
      expect(health.body.toString()).toBe('"ACTIVE"');

      // An idle keep-alive connection does not hold the shutdown up (the grace is for answers in flight).
      const idle = await RawConnection.connect(port);
      try {
        expect((await idle.request('GET', '/hazelcast/health/ready')).status).toBe(200);
        const sent = Date.now();
        p.child.kill(signal);
        expect(await p.exited(8_000)).toEqual({ code: 0, signal: null });
        expect(Date.now() - sent).toBeLessThan(4_000);
        await idle.waitForEnd(2_000);
      } finally {
        await idle.destroy();
      }
      const logs = logMessages(p);
      expect(logs).toContain('signal received, shutting down gracefully');
      expect(logs).toContain('member shutting down');
      expect(logs).toContain('member stopped');
      expect(await connectionRefused(port)).toBe(true);
    });
  }

  it('a second signal during a graceful shutdown exits at once with 130', async () => {
    const dir = tempDir();
    const p = spawnGrid(['start', '--config', writeYaml(dir, 'm.yaml', memberYaml(await freePort()))]);
    const port = await restPortOf(p);
    // A request whose body is still coming holds the graceful shutdown up (up to its grace period).
    const c = await RawConnection.connect(port);
    try {
      await c.write('POST /hazelcast/rest/maps/m/k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345');
      await waitFor('the request to be taken', async () => {
        const info = await sendRequest(port, 'GET', '/hazelcast/rest/cluster');
        return (JSON.parse(info.body.toString()) as { connectionCount: number }).connectionCount === 2;
      });
      p.child.kill('SIGTERM');
      await waitFor('the shutdown to begin', () => logMessages(p).includes('member shutting down'));
      expect(p.child.exitCode).toBeNull();
      p.child.kill('SIGINT');
      expect(await p.exited(3_000)).toEqual({ code: 130, signal: null });
      expect(p.stderr()).toContain('SIGINT again, exiting now');
    } finally {
      await c.destroy();
    }
  });

  it('exits 0 when a REST memberShutdown stops the member', async () => {
    const dir = tempDir();
    const p = spawnGrid(['start', '--config', writeYaml(dir, 'm.yaml', memberYaml(await freePort()))]);
    const port = await restPortOf(p);
    const res = await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/memberShutdown', { body: 'dev&' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ status: 'success' });
    expect(await p.exited(8_000)).toEqual({ code: 0, signal: null });
    expect(logMessages(p)).toContain('member stopped');
  });

  it('takes the config file from GRID_CONFIG', async () => {
    const dir = tempDir();
    const file = writeYaml(dir, 'from-env.yaml', memberYaml(await freePort(), { 'instance-name': 'from-env' }));
    const p = spawnGrid(['start'], { env: cleanEnv({ GRID_CONFIG: file }), cwd: tempDir() });
    const port = await restPortOf(p);
    expect(p.stderr()).toContain(`config: ${file}.`);
    expect(await instanceName(port)).toBe('from-env');
  });

  it('finds hazelcast.yaml in the working directory; grid.yaml comes first; --config beats both', async () => {
    const cwd = tempDir();
    writeYaml(cwd, 'hazelcast.yaml', memberYaml(await freePort(), { 'instance-name': 'from-hazelcast-yaml' }));
    const a = spawnGrid(['start'], { cwd });
    expect(await instanceName(await restPortOf(a))).toBe('from-hazelcast-yaml');
    expect(a.stderr()).toContain(`config: ${join(cwd, 'hazelcast.yaml')}.`);

    writeYaml(cwd, 'grid.yaml', memberYaml(await freePort(), { 'instance-name': 'from-grid-yaml' }));
    const b = spawnGrid(['start'], { cwd });
    expect(await instanceName(await restPortOf(b))).toBe('from-grid-yaml');

    // XML before YAML under the same base name.
    const xmlPort = await freePort();
    writeFileSync(
      join(cwd, 'hazelcast.xml'),
      `<hazelcast xmlns="http://www.hazelcast.com/schema/config">
  <instance-name>from-hazelcast-xml</instance-name>
  <network>
    <port auto-increment="true" port-count="20">${xmlPort}</port>
    <interfaces enabled="true"><interface>127.0.0.1</interface></interfaces>
    <rest-api enabled="true"><endpoint-group name="HEALTH_CHECK" enabled="true"/></rest-api>
  </network>
</hazelcast>
`,
    );
    rmSync(join(cwd, 'grid.yaml'));
    const x = spawnGrid(['start'], { cwd });
    expect(await instanceName(await restPortOf(x))).toBe('from-hazelcast-xml');

    // A relative --config is relative to the working directory.
    writeYaml(cwd, 'relative.yaml', memberYaml(await freePort(), { 'instance-name': 'relative' }));
    const r = spawnGrid(['start', '--config', 'relative.yaml'], { cwd });
    expect(await instanceName(await restPortOf(r))).toBe('relative');

    const other = writeYaml(tempDir(), 'explicit.yaml', memberYaml(await freePort(), { 'instance-name': 'explicit' }));
    const c = spawnGrid(['start', '--config', other], { cwd, env: cleanEnv({ GRID_CONFIG: join(cwd, 'hazelcast.yaml') }) });
    expect(await instanceName(await restPortOf(c))).toBe('explicit');
  });

  it('runs on defaults without any config: REST disabled, HTTP connections closed unanswered', async () => {
    const port = await freePort();
    const p = spawnGrid(['start'], { cwd: tempDir(), env: cleanEnv({ HZ_NETWORK_PORT_PORT: String(port) }) });
    const m = await p.waitForStderr(/member \S+:(\d+) \(instance \S+\) is running; config: defaults\./);
    const bound = Number(m[1]);
    expect(bound).toBeGreaterThanOrEqual(port);
    await p.waitForStderr(/REST is disabled/);
    const got = await sendAndAwaitClose(bound, 'GET /hazelcast/health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(got.length).toBe(0);
    await waitFor('the REST-disabled hint in the log', () => logMessages(p).some((l) => l.includes('REST API is disabled')));
  });

  it('the hint\'s advice works: REST and endpoint groups switched on by environment variables alone', async () => {
    const port = await freePort();
    const p = spawnGrid(['start'], {
      cwd: tempDir(),
      env: cleanEnv({
        HZ_NETWORK_PORT_PORT: String(port),
        HZ_NETWORK_RESTAPI_ENABLED: 'true',
        HZ_NETWORK_RESTAPI_ENDPOINTGROUPS_DATA_ENABLED: 'true',
        HZ_NETWORK_RESTAPI_ENDPOINTGROUPS_CLUSTER_WRITE_ENABLED: 'true',
      }),
    });
    const rest = await restPortOf(p);
    expect(p.stderr()).toMatch(/endpoint groups: .*DATA/);
    expect((await sendRequest(rest, 'GET', '/hazelcast/health')).status).toBe(200);
    expect((await sendRequest(rest, 'POST', '/hazelcast/rest/maps/m/k', { body: 'v' })).status).toBe(200);
    const change = await sendRequest(rest, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&frozen' });
    expect(change.status).toBe(200);
    // Groups not switched on stay off.
    expect((await sendRequest(rest, 'GET', '/hazelcast/rest/cp-subsystem/groups')).status).toBe(403);
  });

  it('grid status of a single member says it holds 1 replica of each partition, not the configured 2', async () => {
    const port = await freePort();
    const p = spawnGrid(['start', writeYaml(tempDir(), 'single.yaml', memberYaml(port))]);
    const rest = await restPortOf(p);
    const s = spawnGrid(['status', '--address', `127.0.0.1:${rest}`, '--cluster-name', 'dev']);
    expect((await s.exited()).code, s.stderr()).toBe(0);
    expect(s.stdout().split('\n')[1]).toMatch(/^Partitions: 271, 1 replica each \(1 backup configured; 1 not held: no other data member\) \(table version \d+\)$/);
    expect(s.stdout()).toMatch(/ master +0\.1\.0 +271 +0\n/);
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
  });

  it('applies HZ_NETWORK_PORT_PORT and GRID_CLUSTERNAME over the file', async () => {
    const dir = tempDir();
    const filePort = await freePort();
    const envPort = await freePort();
    const file = writeYaml(dir, 'm.yaml', memberYaml(filePort, { 'cluster-name': 'from-file' }));
    const p = spawnGrid(['start', '--config', file], {
      // GRID_ wins over HZ_ for the same setting.
      env: cleanEnv({ HZ_NETWORK_PORT_PORT: String(envPort), HZ_CLUSTERNAME: 'red', GRID_CLUSTERNAME: 'blue' }),
    });
    const port = await restPortOf(p);
    expect(port).toBeGreaterThanOrEqual(envPort);
    expect(port).toBeLessThan(envPort + 20);
    const info = JSON.parse((await sendRequest(port, 'GET', '/hazelcast/rest/cluster')).body.toString()) as {
      members: { address: string; memberVersion: string }[];
    };
    expect(info.members[0]?.address).toBe(`127.0.0.1:${port}`);
    // The compiled member reads its version from package.json too.
    expect(info.members[0]?.memberVersion).toBe(PACKAGE_VERSION);

    const state = (body: string): Promise<number> =>
      sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/state', { body }).then((r) => r.status);
    expect(await state('blue&')).toBe(200);
    expect(await state('from-file&')).toBe(403);
    expect(await state('dev&')).toBe(403);
    expect(await state('red&')).toBe(403);
  });
});

describe('grid start with a bad config', () => {
  it('a port out of range: non-zero exit, stderr names the file, the element and the problem', async () => {
    const file = writeYaml(tempDir(), 'bad-port.yaml', { network: { port: { port: 99999 } } });
    const p = spawnGrid(['start', '--config', file]);
    const { code } = await p.exited();
    // 2 = configuration invalid (not a crash).
    expect(code).toBe(2);
    expect(p.stderr()).not.toMatch(/\n\s+at /);
    expect(p.stderr()).toContain(file);
    expect(p.stderr()).toContain('hazelcast.network.port.port');
    expect(p.stderr()).toContain('99999');
    expect(p.stderr()).toMatch(/must be/);
    expect(p.stderr()).not.toMatch(/is running/);
  });

  it('an unknown endpoint group: non-zero exit, stderr names the file, the element and the known groups', async () => {
    const file = writeYaml(tempDir(), 'bad-group.yaml', {
      network: { 'rest-api': { enabled: true, 'endpoint-groups': { DATA: { enabled: true }, EVERYTHING: { enabled: true } } } },
    });
    const p = spawnGrid(['start', '--config', file]);
    const { code } = await p.exited();
    // 2 = configuration invalid (not a crash).
    expect(code).toBe(2);
    expect(p.stderr()).not.toMatch(/\n\s+at /);
    const err = p.stderr();
    expect(err).toContain(file);
    expect(err).toContain('hazelcast.network.rest-api.endpoint-groups.EVERYTHING');
    expect(err).toContain('unknown endpoint group');
    expect(err).toContain('CLUSTER_READ');
  });

  it('a bad value from the environment names the variable', async () => {
    const file = writeYaml(tempDir(), 'ok.yaml', memberYaml(await freePort()));
    const p = spawnGrid(['start', '--config', file], { env: cleanEnv({ HZ_NETWORK_PORT_PORT: 'abc' }) });
    const { code } = await p.exited();
    // 2 = configuration invalid (not a crash).
    expect(code).toBe(2);
    expect(p.stderr()).not.toMatch(/\n\s+at /);
    expect(p.stderr()).toContain('hazelcast.network.port.port');
    expect(p.stderr()).toContain('HZ_NETWORK_PORT_PORT');
  });

  it('a missing --config file is an error naming it, not a start on defaults', async () => {
    const missing = join(tempDir(), 'nope.yaml');
    const p = spawnGrid(['start', '--config', missing]);
    const { code } = await p.exited();
    // 2 = configuration invalid (not a crash).
    expect(code).toBe(2);
    expect(p.stderr()).not.toMatch(/\n\s+at /);
    expect(p.stderr()).toContain(`grid: ${missing}: cannot read config file: no such file\n`);
    expect(p.stderr()).not.toContain('ENOENT');
    expect(p.stderr()).not.toMatch(/is running/);
  });

  it('unknown elements are logged with the other start warnings, with a guess at what was meant', async () => {
    const dir = tempDir();
    const port = await freePort();
    const content = memberYaml(port, { mapp: { m: {} }, security: { enabled: true } });
    (content.network as Record<string, unknown>)['rest-apii'] = {};
    const p = spawnGrid(['start', writeYaml(dir, 'typo.yaml', content)]);
    await restPortOf(p);
    const warnings = p
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string })
      .filter((l) => l.level === 'WARNING')
      .map((l) => l.msg);
    // The same place as the member's own start warnings (here: security on without users).
    expect(warnings.some((w) => w.startsWith('security is enabled but'))).toBe(true);
    expect(warnings).toContain(`config: ${join(dir, 'typo.yaml')}: hazelcast.mapp: unknown element, ignored (did you mean "map"?)`);
    expect(warnings).toContain(`config: ${join(dir, 'typo.yaml')}: hazelcast.network.rest-apii: unknown element, ignored (did you mean "rest-api"?)`);
    // stderr holds the banner for people, which points at them, and no warning itself.
    expect(p.stderr()).toContain('The configuration has 2 warning(s): the WARNING "config: ..." lines of the log');
    expect(p.stderr()).not.toContain('unknown element');
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
  });

  it('a member port that is taken with auto-increment off: non-zero exit naming the port', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      const file = writeYaml(tempDir(), 'taken.yaml', {
        network: { port: { port, 'auto-increment': false }, interfaces: { enabled: true, interfaces: ['127.0.0.1'] } },
      });
      const p = spawnGrid(['start', '--config', file]);
      const { code } = await p.exited();
      expect(code).not.toBe(0);
      expect(p.stderr()).toContain(`127.0.0.1:${port}`);
      expect(p.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
});

describe('grid validate', () => {
  it('prints what it understood for a good file and exits 0', async () => {
    const file = writeYaml(tempDir(), 'ok.yaml', memberYaml(6100, { 'cluster-name': 'checked' }));
    const p = spawnGrid(['validate', file]);
    expect((await p.exited()).code).toBe(0);
    expect(p.stdout()).toContain(`${file}: valid`);
    expect(p.stdout()).toContain('cluster-name checked');
    expect(p.stdout()).toContain('port 6100-6119 (the first free one; auto-increment)');
  });

  it('says the member port range in words, and a missing file is "no such file"', async () => {
    const dir = tempDir();
    const fixed = writeYaml(dir, 'fixed.yaml', { network: { port: { port: 6200, 'auto-increment': false } } });
    const p = spawnGrid(['validate', fixed]);
    expect((await p.exited()).code).toBe(0);
    expect(p.stdout()).toContain('member port 6200, ');
    const missing = spawnGrid(['validate', join(dir, 'nope.yaml')]);
    expect((await missing.exited()).code).toBe(2);
    expect(missing.stderr()).toBe(`grid: ${join(dir, 'nope.yaml')}: cannot read config file: no such file\n`);
  });

  it('a mistyped element gets a "did you mean"; one far from any name does not', async () => {
    const file = writeYaml(tempDir(), 'typos.yaml', {
      'cluster_name': 'x',
      map: { orders: { 'backupcount': 2 } },
      frobnicate: 1,
    });
    const p = spawnGrid(['validate', file]);
    expect((await p.exited()).code).toBe(0);
    expect(p.stdout()).toContain(`warning: ${file}: hazelcast.cluster_name: unknown element, ignored (did you mean "cluster-name"?)\n`);
    expect(p.stdout()).toContain(`warning: ${file}: hazelcast.map.orders.backupcount: unknown element, ignored (did you mean "backup-count"?)\n`);
    expect(p.stdout()).toContain(`warning: ${file}: hazelcast.frobnicate: unknown element, ignored\n`);
  });

  it('lists every problem of a bad file and exits 2', async () => {
    const file = writeYaml(tempDir(), 'bad.yaml', {
      network: { port: 0, 'rest-api': { enabled: true, 'endpoint-groups': { NOPE: { enabled: true } } } },
    });
    const p = spawnGrid(['validate', file]);
    expect((await p.exited()).code).toBe(2);
    expect(p.stderr()).toContain('hazelcast.network.port');
    expect(p.stderr()).toContain('hazelcast.network.rest-api.endpoint-groups.NOPE');
  });
});

describe('grid validate: the TLS files', () => {
  it('opens them as start does: what each endpoint presents, and every broken file is start\'s own sentence (exit 2)', async () => {
    const certs = makeTestCerts();
    try {
      const dir = tempDir();
      const withSsl = (name: string, ssl: Record<string, unknown>): string =>
        writeYaml(dir, name, { network: { port: { port: 6300, 'auto-increment': false }, interfaces: { enabled: true, interfaces: ['127.0.0.1'] }, ssl } });
      const pem = spawnGrid(['validate', withSsl('pem.yaml', pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED' }))]);
      expect((await pem.exited()).code, pem.stderr()).toBe(0);
      expect(pem.stdout()).toMatch(/TLS \(member, rest, wan\): TLS, mutual authentication REQUIRED, certificate CN=member valid until \d{4}-\d\d-\d\dT.* \(\d+ day\(s\) left\)/);
      const p12 = { enabled: true, properties: { keyStore: certs.memberP12, keyStorePassword: STORE_PASSWORD, keyStoreType: 'PKCS12', trustStore: certs.trustP12, trustStorePassword: STORE_PASSWORD, trustStoreType: 'PKCS12' } };
      const good = spawnGrid(['validate', withSsl('p12.yaml', p12)]);
      expect((await good.exited()).code, good.stderr()).toBe(0);
      expect(good.stdout()).toContain('certificate CN=member');

      const broken: [string, Record<string, unknown>, string][] = [
        ['wrong-pass.yaml', { ...p12, properties: { ...p12.properties, keyStorePassword: 'nope' } }, 'keyStorePassword'],
        ['mismatch.yaml', pemSsl(certs.rogueKey, certs.memberPem, certs.caPem), 'does not match the certificate'],
        ['expired.yaml', pemSsl(certs.expiredKey, certs.expiredPem, certs.caPem), 'expired'],
        // Each sentence is loadTlsMaterial's (test/unit/net/tls-material.test.ts has them all); these show validate reaches them.
      ];
      for (const [name, ssl, words] of broken) {
        const file = withSsl(name, ssl);
        const v = spawnGrid(['validate', file]);
        expect((await v.exited()).code, name).toBe(2);
        expect(v.stderr(), name).toContain(words);
        expect(v.stderr(), name).not.toMatch(/\n\s+at /);
        expect(v.stdout(), name).not.toContain('valid.');
        if (name === 'mismatch.yaml') {
          // The very sentence `grid start` stops with.
          const start = spawnGrid(['start', '--config', file]);
          expect((await start.exited()).code).not.toBe(0);
          expect(start.stderr()).toContain(v.stderr().replace(/^grid: /, '').trim());
        }
      }
    } finally {
      certs.remove();
    }
  }, 60_000);
});

