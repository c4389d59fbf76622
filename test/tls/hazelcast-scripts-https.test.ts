// Hazelcast's own admin scripts, the real ones, unchanged, against a TLS member (issue 22):
// `hz-cluster-admin`, `hz-healthcheck` and `hz-cluster-cp-admin` run with bash and curl, with
// `--https --cacert` and the `--cert`/`--key` of a client certificate, since the member (one
// for the file) requires one (mutualAuthentication REQUIRED). The scripts are Hazelcast's and
// not copied into this repository: HZ_SCRIPTS_DIR (or ~/.cache/grid/hazelcast-scripts) holds
// them; without them, bash or curl the file skips and says why (hazelcastScriptsUnavailable).

import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';
import { makeTestCerts, pemSsl, type TestCerts } from '../support/certs.js';
import { hazelcastScriptsUnavailable, hazelcastScriptsDir } from '../support/hazelcast-scripts.js';
import { LogCapture, restConfig } from '../support/member.js';
import { freePort } from '../support/ports.js';
import { cleanEnv } from '../support/process.js';

const unavailable = hazelcastScriptsUnavailable(['hz-cluster-admin', 'hz-healthcheck', 'hz-cluster-cp-admin']);

let certs: TestCerts;
let member: Member;
let port: number;

interface ScriptResult {
  readonly exit: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a script as an operator does (bash, curl on the PATH), bounded by a deadline. */
function run(script: string, args: readonly string[], tls: 'client-cert' | 'ca-only' = 'client-cert', env: Record<string, string> = {}): Promise<ScriptResult> {
  const tlsArgs = ['--https', '--cacert', certs.caPem, ...(tls === 'client-cert' ? ['--cert', certs.member2Pem, '--key', certs.member2Key] : [])];
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [`${hazelcastScriptsDir()}/${script}`, '-a', '127.0.0.1', '-p', String(port), ...tlsArgs, ...args],
      { env: cleanEnv(env), timeout: 20_000 },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number') reject(err);
        else resolve({ exit: err === null ? 0 : (err.code as number), stdout, stderr });
      },
    );
  });
}

function lastLine(s: string): string {
  const lines = s.replace(/\n+$/, '').split('\n');
  return lines[lines.length - 1] ?? '';
}

describe.skipIf(unavailable !== undefined)("Hazelcast's scripts over HTTPS, with a client certificate", () => {
  beforeAll(async () => {
    certs = makeTestCerts();
    const raw = restConfig();
    const network = raw.network as Record<string, unknown>;
    network.port = { port: await freePort(), 'auto-increment': true, 'port-count': 50 };
    network.ssl = pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED' });
    const { config } = configFromObject(raw);
    member = await Member.start({ config, logDestination: new LogCapture() });
    port = member.restPort;
  }, 30_000);

  afterAll(async () => {
    await member?.stop();
    certs?.remove();
  });

  it('hz-cluster-admin: get-state, change-state there and back, already in it, wrong cluster name, cluster version', async () => {
    let r = await run('hz-cluster-admin', ['-o', 'get-state']);
    expect(r.exit, r.stdout + r.stderr).toBe(0);
    expect(lastLine(r.stdout)).toBe("The cluster state is 'active'.");

    r = await run('hz-cluster-admin', ['-o', 'change-state', '-s', 'frozen']);
    expect(lastLine(r.stdout)).toBe("The cluster is now in the 'frozen' state");
    r = await run('hz-cluster-admin', ['-o', 'get-state']);
    expect(lastLine(r.stdout)).toBe("The cluster state is 'frozen'.");
    r = await run('hz-cluster-admin', ['-o', 'change-state', '-s', 'frozen']);
    expect(lastLine(r.stdout)).toBe("Cluster is already in the 'frozen' state.");
    r = await run('hz-cluster-admin', ['-o', 'change-state', '-s', 'active']);
    expect(lastLine(r.stdout)).toBe("The cluster is now in the 'active' state");

    // A wrong cluster name is a 403 with no body, as on Hazelcast: the script finds no status.
    r = await run('hz-cluster-admin', ['-o', 'get-state', '-c', 'prod']);
    expect(r.stdout).toContain("Didn't get a valid response");

    r = await run('hz-cluster-admin', ['-o', 'get-cluster-version']);
    expect(r.exit).toBe(0);
    expect(lastLine(r.stdout)).toMatch(/^Cluster is at version \d+\.\d+\.$/);
  }, 60_000);

  it('hz-healthcheck: all (JSON), and each value with the text answer (curl config `Accept: text/plain`, docs/rest-api.md)', async () => {
    const r = await run('hz-healthcheck', []);
    expect(r.exit, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ nodeState: 'ACTIVE', clusterState: 'ACTIVE', clusterSafe: true, clusterSize: 1 });
    // CURL_HOME's .curlrc asks for Hazelcast 3.x's text, whose `Hazelcast::<Keyword>=` lines the script greps.
    const curlHome = join(certs.dir, 'curl-home');
    mkdirSync(curlHome, { recursive: true });
    writeFileSync(join(curlHome, '.curlrc'), 'header = "Accept: text/plain"\n');
    const expected: Record<string, string> = { 'node-state': 'ACTIVE', 'cluster-state': 'ACTIVE', 'cluster-safe': 'TRUE', 'migration-queue-size': '0', 'cluster-size': '1' };
    for (const [op, answer] of Object.entries(expected)) {
      const r = await run('hz-healthcheck', ['-o', op], 'client-cert', { CURL_HOME: curlHome });
      expect(r.exit, op).toBe(0);
      expect(r.stdout.trim(), op).toBe(answer);
    }
  }, 60_000);

  it('hz-cluster-cp-admin: get-members and get-groups answer as Hazelcast does with the CP subsystem off (500: exit 6)', async () => {
    for (const op of ['get-members', 'get-groups']) {
      const r = await run('hz-cluster-cp-admin', ['-o', op]);
      expect(r.exit, `${op}: ${r.stdout}`).toBe(6);
      // The status came through TLS (curl's own failure would be 000).
      expect(r.stdout, op).toContain('Status Code: 500');
    }
  }, 60_000);

  it('without the client certificate nothing is answered: 403 with the reason in X-Grid-Error, which the scripts report as a failure', async () => {
    const admin = await run('hz-cluster-admin', ['-o', 'get-state'], 'ca-only');
    expect(admin.stdout).toContain("Didn't get a valid response");
    expect(admin.stdout).not.toContain('The cluster state is');
    const health = await run('hz-healthcheck', [], 'ca-only');
    expect(health.exit).toBe(1);
    expect(health.stdout).toContain('Error while checking health');
  }, 60_000);
});
