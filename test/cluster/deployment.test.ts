// The member configs that ship for Docker Compose and Kubernetes, run for real: three members
// each, started with the environment the deployment gives them (docker-compose.yml's
// services, the StatefulSet's env) and only the DNS names swapped for loopback ports. They
// must form one cluster, answer the probe paths the manifests use, run the Dockerfile's
// HEALTHCHECK command, and leave gracefully on SIGTERM. Docker and Kubernetes are not needed.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest } from '../support/http.js';
import {
  bindMount,
  composeServices,
  containerEnv,
  dockerfile,
  healthcheck,
  kustomizeResources,
  only,
  repoPath,
  type EnvVar,
  type K8sObject,
} from '../support/deployment-files.js';
import { freePorts } from '../support/ports.js';
import { cleanEnv, spawnGrid, waitFor, within, type GridProcess } from '../support/process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Each member's environment with loopback ports in place of the deployment's DNS names. */
function onLoopback(envs: readonly Record<string, string>[], ports: readonly number[]): Record<string, string>[] {
  return envs.map((env, i) => ({
    ...env,
    HZ_NETWORK_PORT_PORT: String(ports[i]),
    HZ_NETWORK_PUBLICADDRESS: `127.0.0.1:${ports[i]}`,
    HZ_NETWORK_JOIN_TCPIP_MEMBERS: ports.map((p) => `127.0.0.1:${p}`).join(','),
  }));
}

async function clusterSizes(ports: readonly number[]): Promise<number[]> {
  return Promise.all(
    ports.map(async (p) => {
      const res = await sendRequest(p, 'GET', '/hazelcast/rest/cluster');
      return res.status === 200 ? (JSON.parse(res.body.toString()) as { members: unknown[] }).members.length : -1;
    }),
  );
}

/** Starts the members, waits for one cluster of all of them and for /hazelcast/health/ready on each. */
async function startMembers(envs: readonly Record<string, string>[], ports: readonly number[]): Promise<GridProcess[]> {
  const members = envs.map((env) => spawnGrid(['start'], { env: cleanEnv(env) }));
  await waitFor(
    `a cluster of ${ports.length} on every member`,
    async () => (await clusterSizes(ports)).every((n) => n === ports.length),
    20_000,
    100,
  );
  for (const p of ports) expect((await sendRequest(p, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  return members;
}

/** Runs a command (the HEALTHCHECK's) and resolves with its exit code. */
function exitCodeOf(argv: readonly string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(argv[0] === 'node' ? process.execPath : argv[0]!, argv.slice(1), { env: cleanEnv(env), stdio: 'ignore' });
  return within(new Promise((r) => child.once('exit', (code) => r(code))), 10_000, `${argv.join(' ')} to exit`);
}

describe('deployment configs on one machine', () => {
  it('docker-compose.yml: the three services form one cluster, serve data and answer the HEALTHCHECK', async () => {
    const services = composeServices();
    const ports = await freePorts(3);
    const envs = Object.values(services).map((s) => {
      const env = { ...s.environment };
      const mount = (s.volumes ?? []).map(bindMount).find((m) => m.container === env.GRID_CONFIG)!;
      return { ...env, GRID_CONFIG: mount.host }; // the file Compose mounts there
    });
    const members = await startMembers(onLoopback(envs, ports), ports);

    const put = await sendRequest(ports[0]!, 'POST', '/hazelcast/rest/maps/greetings/en', { body: 'hello', headers: { 'Content-Type': 'text/plain' } });
    expect(put.status).toBe(200);
    expect((await sendRequest(ports[2]!, 'GET', '/hazelcast/rest/maps/greetings/en')).body.toString()).toBe('hello');

    // The image's HEALTHCHECK command, pointed at this member's port: 0 while ready, 1 when nothing answers.
    const { command } = healthcheck(dockerfile().stages.at(-1)!);
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: `http://127.0.0.1:${ports[1]}/hazelcast/health/ready` })).toBe(0);

    // docker stop: SIGTERM, a graceful leave, exit status 0; the others carry on with the data.
    members[1]!.child.kill('SIGTERM');
    expect((await members[1]!.exited(15_000)).code).toBe(0);
    expect(await exitCodeOf(command, { GRID_HEALTHCHECK_URL: `http://127.0.0.1:${ports[1]}/hazelcast/health/ready` })).toBe(1);
    await waitFor('the two others to see two members', async () => (await clusterSizes([ports[0]!, ports[2]!])).every((n) => n === 2), 10_000, 100);
    expect((await sendRequest(ports[2]!, 'GET', '/hazelcast/rest/maps/greetings/en')).body.toString()).toBe('hello');
  });

  it("deploy/kubernetes: the StatefulSet's env and ConfigMap form one cluster that answers the manifest's probes", async () => {
    const objects = kustomizeResources(repoPath('deploy/kubernetes'));
    type Probe = { httpGet: { path: string } };
    const sts = only<
      K8sObject & {
        spec: {
          replicas: number;
          template: { spec: { containers: { env: EnvVar[]; livenessProbe: Probe; readinessProbe: Probe; startupProbe: Probe; volumeMounts: { mountPath: string }[] }[] } };
        };
      }
    >(objects, 'StatefulSet');
    const c = sts.spec.template.spec.containers[0]!;
    const cm = only<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap');
    const dir = mkdtempSync(join(tmpdir(), 'grid-k8s-'));
    dirs.push(dir);
    const ports = await freePorts(sts.spec.replicas);
    const envs = ports.map((_, i) => {
      const env = containerEnv(c.env, { 'metadata.name': `${sts.metadata.name}-${i}`, 'metadata.namespace': 'default' });
      // The ConfigMap's keys as files, as the volume mounts them.
      const mountPath = c.volumeMounts.find((m) => env.GRID_CONFIG!.startsWith(`${m.mountPath}/`))!.mountPath;
      const file = join(dir, env.GRID_CONFIG!.slice(mountPath.length + 1));
      writeFileSync(file, cm.data[env.GRID_CONFIG!.slice(mountPath.length + 1)]!);
      // NODE_OPTIONS stays: the members run with the heap limit the manifest gives them.
      return { ...env, GRID_CONFIG: file };
    });
    await startMembers(onLoopback(envs, ports), ports);

    for (const p of ports) {
      const live = await sendRequest(p, 'GET', c.livenessProbe.httpGet.path);
      expect(live.status).toBe(200);
      expect(JSON.parse(live.body.toString())).toBe('ACTIVE');
      expect((await sendRequest(p, 'GET', c.startupProbe.httpGet.path)).status).toBe(200);
      expect((await sendRequest(p, 'GET', c.readinessProbe.httpGet.path)).status).toBe(200);
    }
    const instance = JSON.parse((await sendRequest(ports[1]!, 'GET', '/hazelcast/rest/instance')).body.toString()) as { name: string };
    expect(instance.name).toBe(`${sts.metadata.name}-1`);
  });
});
