// `grid start` as the first hour with Grid meets it: stdout holds nothing but JSON log lines
// (`grid start | jq`), the banner goes to stderr, a closed stdout (`| head`) stops the member
// gracefully, readable lines on request, `--log-level`, `--port`, the config file as argument,
// and `${name}` placeholders filled by --property or the environment.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { cleanEnv, spawnGrid, waitFor, type GridProcess } from '../support/process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'grid-start-output-'));
  dirs.push(d);
  return d;
}

function memberYaml(port: number | string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...extra,
    network: {
      port: { port, 'auto-increment': true, 'port-count': 20 },
      interfaces: { enabled: true, interfaces: ['127.0.0.1'] },
      'rest-api': {
        enabled: true,
        'endpoint-groups': { CLUSTER_READ: { enabled: true }, CLUSTER_WRITE: { enabled: true }, DATA: { enabled: true } },
      },
    },
  };
}

function writeYaml(content: Record<string, unknown>, name = 'member.yaml'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, stringify({ hazelcast: content }));
  return path;
}

async function restPortOf(p: GridProcess): Promise<number> {
  return Number((await p.waitForStderr(/^REST on port (\d+)/m))[1]);
}

/** Every stdout line parsed as JSON; throws on a line that is not. */
function jsonLines(p: GridProcess): Record<string, unknown>[] {
  return p
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('grid start output', () => {
  it('stdout is pure JSON lines with Hazelcast level names; the banner is on stderr', async () => {
    const p = spawnGrid(['start', '--config', writeYaml(memberYaml(await freePort()))]);
    const port = await restPortOf(p);
    expect(p.stderr()).toMatch(/is running; config: /);
    expect(p.stderr()).toContain('Cluster "dev": standing alone');
    expect((await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&frozen' })).status).toBe(200);
    await waitFor('the state change in the log', () => jsonLines(p).some((l) => l.msg === 'cluster state changed'));
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
    const lines = jsonLines(p);
    expect(lines.length).toBeGreaterThan(3);
    expect(p.stdout()).not.toMatch(/is running|curl/);
    expect(new Set(lines.map((l) => l.level))).toEqual(new Set(['INFO']));
    expect(lines.map((l) => l.msg)).toContain('member stopped');
  });

  it('a closed stdout (grid start | head) stops the member gracefully: exit 0, no stack trace', async () => {
    const p = spawnGrid(['start', '--config', writeYaml(memberYaml(await freePort()))]);
    const port = await restPortOf(p);
    p.child.stdout?.destroy();
    // The next log line meets the closed pipe.
    await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&frozen' });
    expect(await p.exited(10_000)).toEqual({ code: 0, signal: null });
    expect(p.stderr()).toContain('standard output was closed; stopping the member gracefully');
    expect(p.stderr()).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('--log-format pretty: one readable line each even into a pipe; JSON never loads pino-pretty', async () => {
    const dir = tempDir();
    // Reports at exit which CommonJS modules were loaded (pino-pretty is one).
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write(`pino-pretty modules: ${Object.keys(require.cache).filter((k) => k.includes('/pino-pretty/')).length}\\n`));\n",
    );
    const env = cleanEnv({ NODE_OPTIONS: `--require ${probe}` });
    const config = writeYaml(memberYaml(await freePort()));
    const pretty = spawnGrid(['start', config, '--log-format', 'pretty'], { env });
    await restPortOf(pretty);
    pretty.child.kill('SIGTERM');
    expect((await pretty.exited()).code).toBe(0);
    const lines = pretty.stdout().trim().split('\n');
    expect(lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: member stopped$/.test(l)), pretty.stdout()).toBe(true);
    expect(lines.every((l) => !l.startsWith('{'))).toBe(true);
    expect(pretty.stderr()).toMatch(/pino-pretty modules: [1-9]/);

    const json = spawnGrid(['start', config, '--port', String(await freePort())], { env });
    await restPortOf(json);
    json.child.kill('SIGTERM');
    expect((await json.exited()).code).toBe(0);
    expect(jsonLines(json).length).toBeGreaterThan(0);
    expect(json.stderr()).toContain('pino-pretty modules: 0');
  });

  it('the config file as argument, --port over the file, --log-level over hazelcast.logging.level', async () => {
    const filePort = await freePort();
    const flagPort = await freePort();
    const file = writeYaml(memberYaml(filePort, { properties: { 'hazelcast.logging.level': 'WARNING' } }));
    const p = spawnGrid(['start', file, '--port', String(flagPort), '--log-level', 'fine']);
    const port = await restPortOf(p);
    expect(port).toBeGreaterThanOrEqual(flagPort);
    expect(port).toBeLessThan(flagPort + 20);
    // INFO lines show up although the file says WARNING.
    expect(jsonLines(p).some((l) => l.level === 'INFO')).toBe(true);
    // Reset goes back to the level of the command line, the configured one (not the file's WARNING).
    await sendRequest(port, 'POST', '/hazelcast/rest/log-level', { body: 'dev&&severe' });
    await sendRequest(port, 'POST', '/hazelcast/rest/log-level/reset', { body: 'dev&' });
    await sendRequest(port, 'POST', '/hazelcast/rest/management/cluster/changeState', { body: 'dev&&frozen' });
    await waitFor('an INFO line after the reset', () => jsonLines(p).some((l) => l.msg === 'cluster state changed' && l.level === 'INFO'));
  });

  it('usage mistakes exit 2 before anything starts', async () => {
    const file = writeYaml(memberYaml(await freePort()));
    for (const [args, says] of [
      [['start', file, '--log-level', 'debug'], '--log-level must be one of OFF, SEVERE, WARNING'],
      [['start', file, '--port', '70000'], '--port must be an integer 1-65535, got "70000"'],
      [['start', file, '--config', `${file}.other.yaml`], 'two configuration files given'],
      [['start', file, '--log-format', 'xml'], "argument 'xml' is invalid"],
    ] as const) {
      const p = spawnGrid(args);
      expect((await p.exited()).code, args.join(' ')).not.toBe(0);
      expect(p.stderr()).toContain(says);
      expect(p.stderr()).not.toMatch(/is running/);
    }
  });

  it('${name} placeholders come from --property, then the environment; an unset one is warned about by name and path', async () => {
    const port = await freePort();
    const file = writeYaml(memberYaml('${member.port}', { 'cluster-name': '${cluster.name}', 'instance-name': '${nobody.sets.this}' }));
    const p = spawnGrid(['start', file, '-D', `member.port=${port}`], { env: cleanEnv({ CLUSTER_NAME: 'from-env' }) });
    const rest = await restPortOf(p);
    expect(rest).toBeGreaterThanOrEqual(port);
    expect(p.stderr()).toContain('Cluster "from-env"');
    const warning = jsonLines(p).find((l) => String(l.msg).includes('${nobody.sets.this}'));
    expect(warning?.level).toBe('WARNING');
    expect(String(warning?.msg)).toContain('hazelcast.instance-name: placeholder ${nobody.sets.this} is not set');
    // Left unset, not taken literally: the member got a generated name.
    const instance = JSON.parse((await sendRequest(rest, 'GET', '/hazelcast/rest/instance')).body.toString()) as { name: string };
    expect(instance.name).not.toContain('$');
  });
});

describe('grid validate of a Hazelcast-style config', () => {
  // The shape of Hazelcast's stock configs: data structures Grid has no use for, switched-off
  // discovery plugins, and a few settings of the maps Grid does use.
  const stock = {
    'cluster-name': 'dev',
    network: {
      join: { aws: { enabled: false }, kubernetes: { enabled: false }, 'tcp-ip': { enabled: false } },
      ssl: { enabled: false },
      'failure-detector': { icmp: { enabled: false } },
    },
    'partition-group': { enabled: false },
    'executor-service': { default: { 'pool-size': 16 } },
    multimap: { default: { 'backup-count': 1 } },
    list: { default: { 'backup-count': 1 } },
    set: { default: { 'backup-count': 1 } },
    map: { default: { 'in-memory-format': 'BINARY', 'statistics-enabled': true, 'backup-count': 1 } },
  };

  it('one line names the unused elements; --verbose lists their paths; --quiet hides warnings', async () => {
    const file = writeYaml(stock, 'hazelcast.yaml');
    const plain = spawnGrid(['validate', file]);
    expect((await plain.exited()).code).toBe(0);
    const warnings = plain.stdout().split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings).toEqual([
      `warning: ${file}: not used by Grid: failure-detector, in-memory-format, statistics-enabled, executor-service, multimap, list, set (7 elements; \`grid validate --verbose\` lists their paths)`,
    ]);

    const verbose = spawnGrid(['validate', file, '--verbose']);
    expect((await verbose.exited()).code).toBe(0);
    expect(verbose.stdout()).toContain(`warning: ${file}: hazelcast.map.default.statistics-enabled: accepted but not used by Grid`);
    expect(verbose.stdout()).toContain(`warning: ${file}: hazelcast.multimap: accepted but not used by Grid`);
    expect(verbose.stdout()).not.toContain('not used by Grid: ');

    const quiet = spawnGrid(['validate', file, '--quiet']);
    expect((await quiet.exited()).code).toBe(0);
    expect(quiet.stdout()).not.toContain('warning');
    expect(quiet.stdout()).toContain(`${file}: valid`);
  });

  it('warnings still print when there are errors', async () => {
    const file = writeYaml({ ...stock, 'cluster-name': '${cluster}', network: { port: { port: 'abc' } } }, 'bad.yaml');
    const p = spawnGrid(['validate', file]);
    expect((await p.exited()).code).toBe(2);
    expect(p.stderr()).toContain(`warning: ${file}: hazelcast.cluster-name: placeholder \${cluster} is not set`);
    expect(p.stderr()).toContain(`warning: ${file}: not used by Grid: `);
    expect(p.stderr()).toContain(`grid: ${file}: hazelcast.network.port.port: must be an integer 1-65535, got "abc"`);
  });
});
