// The deployment files that ship with Grid (Dockerfile, .dockerignore, docker-compose.yml,
// deploy/kubernetes, config/container.yaml) checked against the package they deploy: every
// YAML parses, the Dockerfile runs package.json's build and starts bin/grid.js, the
// Kubernetes objects carry Hazelcast's probe paths and find each other by the headless
// Service's names, and every member config passes Grid's own validation with the environment
// each deployment gives it. test/cluster/deployment.test.ts starts members from these configs.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenPlan, loadConfigFile, parseConfigText, type ConfigLoadResult, type GridConfig } from '../../src/config/index.js';
import {
  bindMount,
  composeDurationSeconds,
  composeServices,
  containerEnv,
  dockerfile,
  execForm,
  healthcheck,
  inBuildContext,
  kustomizeResources,
  only,
  packageJson,
  repoPath,
  shippedYamlFiles,
  yamlDocuments,
  type EnvVar,
  type K8sObject,
  type Stage,
} from '../support/deployment-files.js';
import { REPO_ROOT } from '../support/process.js';

const pkg = packageJson();
const MEMBER_PORT = 5701;
/** How long a graceful leave may wait for its partitions to be handed over (cluster-service.ts LEAVE_TIMEOUT_MS). */
const LEAVE_TIMEOUT_SECONDS = 120;

/** A member config must load without errors and without warnings: what ships is what Grid uses. */
function expectClean(result: ConfigLoadResult): ConfigLoadResult {
  expect(result.warnings).toEqual([]);
  return result;
}

function expectContainerBasics(config: GridConfig): void {
  const plan = listenPlan(config);
  expect(plan.memberPort.port).toBe(MEMBER_PORT);
  expect(plan.memberPort.autoIncrement).toBe(false);
  expect(plan.restPort).toBeUndefined(); // REST on the member port, where the probes ask
  for (const g of ['HEALTH_CHECK', 'CLUSTER_READ', 'DATA'] as const) expect(plan.restGroups.has(g)).toBe(true);
  expect(config.network.join.tcpIp.enabled).toBe(true);
}

describe('YAML files', () => {
  it('every shipped YAML file parses, and so does the member config inside each ConfigMap', () => {
    const files = shippedYamlFiles();
    expect(files.map((f) => relative(REPO_ROOT, f))).toEqual(
      expect.arrayContaining(['docker-compose.yml', 'config/container.yaml', 'deploy/compose/grid.yaml', 'deploy/kubernetes/base/statefulset.yaml']),
    );
    for (const f of files) {
      const docs = yamlDocuments(f, { merge: f.endsWith('docker-compose.yml') });
      expect(docs.length, relative(REPO_ROOT, f)).toBeGreaterThan(0);
      for (const d of docs as K8sObject[]) {
        if (d.kind !== 'ConfigMap') continue;
        const data = (d as unknown as { data: Record<string, string> }).data;
        for (const [key, text] of Object.entries(data)) {
          expect(() => parseConfigText(text, 'yaml', `${relative(REPO_ROOT, f)} ${key}`), `${f} ${key}`).not.toThrow();
        }
      }
    }
  });
});

describe('Dockerfile', () => {
  const { args, stages } = dockerfile();
  const stage = (name: string | undefined): Stage => {
    const s = stages.find((x) => x.name === name);
    if (!s) throw new Error(`no stage ${name ?? '(unnamed)'}`);
    return s;
  };
  const runtime = stages[stages.length - 1]!;
  const all = (s: Stage, keyword: string): string[] => s.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
  const one = (s: Stage, keyword: string): string => {
    const found = all(s, keyword);
    expect(found, keyword).toHaveLength(1);
    return found[0]!;
  };
  const workdir = (s: Stage): string => one(s, 'WORKDIR');

  it('is multi-stage on a Node.js base that satisfies package.json engines', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const engines = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node);
    expect(engines, pkg.engines.node).not.toBeNull();
    const major = Number(args.NODE_VERSION);
    // The tag is the newest release of that major: the oldest major allowed will do, a newer one too.
    expect(major).toBeGreaterThanOrEqual(Number(engines![1]));
    for (const s of stages) expect(s.from).toMatch(/^node:\$\{NODE_VERSION\}-(slim|alpine)$/);
    expect(runtime.name).toBeUndefined();
  });

  it("the build stage installs everything and runs package.json's build script on the files it reads", () => {
    const build = stage('build');
    const runs = all(build, 'RUN');
    const ci = runs.findIndex((r) => /^npm ci\b/.test(r));
    const buildRun = runs.findIndex((r) => r === 'npm run build');
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(buildRun).toBeGreaterThan(ci);
    // prepare builds; at `npm ci` the sources are not there yet.
    expect(runs[ci]).toMatch(/--ignore-scripts/);
    expect(runs[ci]).not.toMatch(/--omit=dev|--production/);
    // The script it runs: tsc -p <project>, then the web console's build (console/ into dist/console/).
    // The project, what it extends, and its rootDir are copied in; so are the console's sources and script.
    const script = pkg.scripts.build!;
    const m = /^tsc -p (\S+)(?: && node (scripts\/build-console\.mjs))?$/.exec(script);
    expect(m, `build script "${script}"`).not.toBeNull();
    const copied = all(build, 'COPY').flatMap((c) => c.split(/\s+/).slice(0, -1));
    const needed: string[] = m![2] === undefined ? [] : [m![2], 'console'];
    let project: string | undefined = m![1]!;
    let outDir: string | undefined;
    while (project !== undefined) {
      needed.push(project);
      const tsconfig = JSON.parse(readFileSync(repoPath(project), 'utf8')) as {
        extends?: string;
        compilerOptions?: { rootDir?: string; outDir?: string };
      };
      if (tsconfig.compilerOptions?.rootDir !== undefined && needed.length === 1) needed.push(tsconfig.compilerOptions.rootDir);
      outDir ??= tsconfig.compilerOptions?.outDir;
      project = tsconfig.extends?.replace(/^\.\//, '');
    }
    for (const n of needed) expect(copied, `${n} copied into the build stage`).toContain(n);
    expect(outDir).toBe('dist');
    // The runtime takes exactly that output.
    expect(all(runtime, 'COPY')).toContain(`--from=build ${workdir(build)}/${outDir} ./${outDir}`);
  });

  it('the runtime has production dependencies only, none of which needs an install script', () => {
    const deps = stage('deps');
    const ci = all(deps, 'RUN').find((r) => /^npm ci\b/.test(r));
    expect(ci).toMatch(/--omit=dev/);
    expect(ci).toMatch(/--ignore-scripts/);
    const lock = JSON.parse(readFileSync(repoPath('package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages).filter(([p, v]) => p !== '' && v.dev !== true && v.hasInstallScript === true);
    expect(scripted.map(([p]) => p)).toEqual([]);
    expect(all(runtime, 'COPY')).toContain(`--from=deps ${workdir(deps)}/node_modules ./node_modules`);
    expect(all(runtime, 'RUN').some((r) => /\bnpm (ci|install)\b/.test(r))).toBe(false);
  });

  it('the runtime layout is the package layout: bin/grid.js loads ../dist/cli.js, built from src/cli.ts', () => {
    const copies = all(runtime, 'COPY');
    for (const part of ['bin', 'config']) expect(copies).toContain(`${part} ./${part}`);
    expect(copies.some((c) => /^package\.json\b/.test(c))).toBe(true); // "type": "module" and the version
    for (const f of pkg.files) expect(copies.some((c) => c.includes(`./${f}`)), `package file ${f} in the image`).toBe(true);
    // ENTRYPOINT runs the package's bin with node itself as PID 1 (no shell, no npm).
    const entry = execForm(one(runtime, 'ENTRYPOINT'));
    expect(entry[0]).toBe('node');
    expect(entry[1]).toBe(`${workdir(runtime)}/${pkg.bin.grid!}`);
    expect(existsSync(repoPath(pkg.bin.grid!))).toBe(true);
    expect(readFileSync(repoPath(pkg.bin.grid!), 'utf8')).toContain("'../dist/cli.js'");
    expect(existsSync(repoPath('src/cli.ts'))).toBe(true);
    expect(execForm(one(runtime, 'CMD'))).toEqual(['start']);
    // GRID_CONFIG names a config shipped in config/.
    const env = one(runtime, 'ENV');
    const gridConfig = /GRID_CONFIG=(\S+)/.exec(env)?.[1];
    expect(gridConfig).toBe(`${workdir(runtime)}/config/container.yaml`);
    expect(existsSync(repoPath('config/container.yaml'))).toBe(true);
    expect(env).toMatch(/NODE_ENV=production/);
  });

  it('runs as a numeric non-root user, exposes the member port and checks /hazelcast/health/ready', () => {
    const user = one(runtime, 'USER');
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(one(runtime, 'EXPOSE')).toBe(String(MEMBER_PORT));
    const hc = healthcheck(runtime);
    expect(hc.command[0]).toBe('node'); // the image has no curl or wget
    expect(hc.command[1]).toBe('-e');
    expect(hc.command[2]).toContain(`'http://127.0.0.1:${MEMBER_PORT}/hazelcast/health/ready'`);
    expect(Object.keys(hc.options).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
    expect(one(runtime, 'STOPSIGNAL')).toBe('SIGTERM');
  });

  it('.dockerignore lets in what the COPYs need and nothing of the checkout build', () => {
    const sources = stages
      .flatMap((s) => all(s, 'COPY'))
      .filter((c) => !c.startsWith('--from='))
      .flatMap((c) => c.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(existsSync(repoPath(src)), `${src} exists`).toBe(true);
      expect(inBuildContext(src.split('/')[0]!), `${src} in the build context`).toBe(true);
    }
    for (const out of ['node_modules', 'dist', '.git', 'test', 'test-results', 'bench', 'docs']) {
      expect(inBuildContext(out), `${out} left out of the build context`).toBe(false);
    }
  });
});

describe('config/container.yaml (the image default)', () => {
  it('is valid and clean: port 5701 fixed, REST with HEALTH_CHECK, CLUSTER_READ, DATA, tcp-ip on with no members', () => {
    const loaded = expectClean(loadConfigFile(repoPath('config/container.yaml'), {}));
    expectContainerBasics(loaded.config);
    expect(loaded.config.network.join.tcpIp.members).toEqual([]);
  });

  it('takes its members and public address from the environment', () => {
    const { config } = expectClean(
      loadConfigFile(repoPath('config/container.yaml'), { HZ_NETWORK_JOIN_TCPIP_MEMBERS: 'grid-1,grid-2:5701', HZ_NETWORK_PUBLICADDRESS: 'grid-1:5701' }),
    );
    expect(config.network.join.tcpIp.members).toEqual(['grid-1', 'grid-2:5701']);
    expect(config.network.publicAddress).toBe('grid-1:5701');
  });
});

describe('docker-compose.yml', () => {
  const services = composeServices();
  const names = Object.keys(services);

  it('has three members of the image this package builds', () => {
    expect(names).toHaveLength(3);
    for (const s of Object.values(services)) {
      expect(s.image).toBe(`grid:${pkg.version}`);
      expect(s.build).toBe('.');
      // A graceful leave may take up to the leave timeout; Docker's default is 10 s, then SIGKILL.
      expect(composeDurationSeconds(s.stop_grace_period ?? '10s')).toBeGreaterThan(LEAVE_TIMEOUT_SECONDS);
    }
    expect(services[names[0]!]!.ports).toEqual([`${MEMBER_PORT}:${MEMBER_PORT}`]);
    for (const n of names.slice(1)) expect(services[n]!.ports).toBeUndefined();
  });

  it('every member lists every service name in tcp-ip, advertises its own, and passes validation', () => {
    for (const [name, s] of Object.entries(services)) {
      const env = s.environment ?? {};
      const mounts = (s.volumes ?? []).map(bindMount);
      const mount = mounts.find((m) => m.container === env.GRID_CONFIG);
      expect(mount, `${name}: GRID_CONFIG is a mounted file`).toBeDefined();
      expect(existsSync(mount!.host)).toBe(true);
      const { config } = expectClean(loadConfigFile(mount!.host, env));
      expectContainerBasics(config);
      expect([...config.network.join.tcpIp.members].sort()).toEqual(names.map((n) => `${n}:${MEMBER_PORT}`).sort());
      expect(config.network.publicAddress).toBe(`${name}:${MEMBER_PORT}`);
      expect(config.instanceName).toBe(name);
    }
  });
});

describe('Kubernetes (deploy/kubernetes)', () => {
  const dir = repoPath('deploy/kubernetes');
  const overlays = { base: dir, persistence: join(dir, 'persistence') };

  interface Container {
    name: string;
    image: string;
    ports: { name: string; containerPort: number }[];
    env: EnvVar[];
    startupProbe?: Probe;
    livenessProbe?: Probe;
    readinessProbe?: Probe;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
    securityContext?: Record<string, unknown>;
  }
  interface Probe {
    httpGet: { path: string; port: string | number };
  }
  interface StatefulSet extends K8sObject {
    spec: {
      serviceName: string;
      replicas: number;
      podManagementPolicy?: string;
      selector: { matchLabels: Record<string, string> };
      template: {
        metadata: { labels: Record<string, string> };
        spec: {
          terminationGracePeriodSeconds: number;
          securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
          containers: Container[];
          volumes: { name: string; configMap?: { name: string } }[];
        };
      };
      volumeClaimTemplates?: { metadata: { name: string } }[];
    };
  }
  interface Service extends K8sObject {
    spec: { clusterIP?: string; publishNotReadyAddresses?: boolean; selector: Record<string, string>; ports: { port: number; targetPort: string | number }[] };
  }

  it('every kustomization lists files that exist, and base lists all of its files', () => {
    const base = join(dir, 'base');
    const [k] = yamlDocuments(join(base, 'kustomization.yaml')) as [{ resources: string[] }];
    const files = readdirSync(base).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...k.resources].sort()).toEqual(files.sort());
    const [p] = yamlDocuments(join(overlays.persistence, 'kustomization.yaml')) as [{ resources: string[]; patches: { path: string }[] }];
    expect(p.resources).toEqual(['../base']);
    for (const patch of p.patches) expect(existsSync(join(overlays.persistence, patch.path)), patch.path).toBe(true);
  });

  const objects = kustomizeResources(overlays.base);
  const sts = only<StatefulSet>(objects, 'StatefulSet');
  const headless = only<Service>(objects, 'Service', sts.spec.serviceName);
  const container = sts.spec.template.spec.containers[0]!;
  const podLabels = sts.spec.template.metadata.labels;
  const selects = (selector: Record<string, string>): boolean => Object.entries(selector).every(([k, v]) => podLabels[k] === v);

  it('a StatefulSet of 3 behind a headless Service that publishes members before they are ready', () => {
    expect(sts.spec.replicas).toBe(3);
    expect(selects(sts.spec.selector.matchLabels)).toBe(true);
    expect(headless.spec.clusterIP).toBe('None');
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(selects(headless.spec.selector)).toBe(true);
    expect(sts.spec.podManagementPolicy ?? 'OrderedReady').toBe('OrderedReady');
    for (const svc of objects.filter((o): o is Service => o.kind === 'Service')) {
      expect(svc.spec.ports.map((p) => p.port)).toEqual([MEMBER_PORT]);
      const target = svc.spec.ports[0]!.targetPort;
      expect(container.ports.find((p) => p.name === target || p.containerPort === target)?.containerPort).toBe(MEMBER_PORT);
    }
  });

  it("probes on Hazelcast's Helm chart paths, on the member port", () => {
    const port = (p: Probe): number | undefined =>
      typeof p.httpGet.port === 'number' ? p.httpGet.port : container.ports.find((x) => x.name === p.httpGet.port)?.containerPort;
    expect(container.livenessProbe?.httpGet.path).toBe('/hazelcast/health/node-state');
    expect(container.readinessProbe?.httpGet.path).toBe('/hazelcast/health/ready');
    expect(container.startupProbe?.httpGet.path).toBe('/hazelcast/health/node-state');
    for (const p of [container.livenessProbe!, container.readinessProbe!, container.startupProbe!]) expect(port(p)).toBe(MEMBER_PORT);
  });

  it('resources, a PodDisruptionBudget, non-root, and time for a graceful leave', () => {
    expect(container.resources?.requests?.cpu).toBeDefined();
    expect(container.resources?.requests?.memory).toBeDefined();
    expect(container.resources?.limits?.memory).toBe(container.resources?.requests?.memory);
    const pdb = only<K8sObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } }>(objects, 'PodDisruptionBudget');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(sts.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(LEAVE_TIMEOUT_SECONDS);
    expect(sts.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    const dockerUser = dockerfile().stages.at(-1)!.instructions.find((i) => i.keyword === 'USER')!.args;
    expect(String(sts.spec.template.spec.securityContext.runAsUser)).toBe(dockerUser.split(':')[0]);
    expect(container.image).toBe(`grid:${pkg.version}`);
  });

  for (const [overlay, overlayDir] of Object.entries(overlays)) {
    it(`${overlay}: members list every pod's DNS name through the headless Service, and the config passes validation`, () => {
      // The objects as kustomize applies them: the base, then the overlay's patches of the same kind and name.
      const patched = applyStrategicPatches(objects, overlayDir);
      const s = only<StatefulSet>(patched, 'StatefulSet');
      const c = s.spec.template.spec.containers[0]!;
      const namespace = 'grid-test';
      const pod = `${s.metadata.name}-1`;
      const env = containerEnv(c.env, { 'metadata.name': pod, 'metadata.namespace': namespace });
      const dns = (p: string): string => `${p}.${s.spec.serviceName}.${namespace}.svc.cluster.local:${MEMBER_PORT}`;
      expect(env.HZ_NETWORK_JOIN_TCPIP_MEMBERS!.split(',')).toEqual(Array.from({ length: s.spec.replicas }, (_, i) => dns(`${s.metadata.name}-${i}`)));
      expect(env.HZ_NETWORK_PUBLICADDRESS).toBe(dns(pod));
      // GRID_CONFIG is a key of the mounted ConfigMap.
      const mount = c.volumeMounts!.find((m) => env.GRID_CONFIG!.startsWith(`${m.mountPath}/`))!;
      const volume = s.spec.template.spec.volumes.find((v) => v.name === mount.name)!;
      const cm = only<K8sObject & { data: Record<string, string> }>(patched, 'ConfigMap', volume.configMap!.name);
      const text = cm.data[env.GRID_CONFIG!.slice(mount.mountPath.length + 1)]!;
      const loaded = expectClean(parseConfigText(text, 'yaml', `${overlay} ${cm.metadata.name}`, env));
      expectContainerBasics(loaded.config);
      expect(loaded.config.network.join.tcpIp.members).toEqual(env.HZ_NETWORK_JOIN_TCPIP_MEMBERS!.split(','));
      expect(loaded.config.instanceName).toBe(pod);
      if (overlay === 'persistence') {
        expect(s.spec.podManagementPolicy).toBe('Parallel');
        const p = loaded.config.persistence;
        expect(p.enabled).toBe(true);
        const data = c.volumeMounts!.find((m) => m.name === s.spec.volumeClaimTemplates![0]!.metadata.name)!;
        expect(p.baseDir.startsWith(`${data.mountPath}/`)).toBe(true);
      }
    });
  }
});

/**
 * Just enough of kustomize's strategic merge for these overlays: an overlay patch replaces
 * a ConfigMap's data keys, sets StatefulSet spec fields, appends volumeMounts of a named
 * container. Anything else in a patch fails the test so this stays honest.
 */
function applyStrategicPatches(base: readonly K8sObject[], overlayDir: string): K8sObject[] {
  const out = base.map((o) => structuredClone(o)) as K8sObject[];
  const kpath = join(overlayDir, 'kustomization.yaml');
  const [k] = yamlDocuments(kpath) as [{ patches?: { path: string }[] }];
  for (const { path } of k.patches ?? []) {
    for (const patch of yamlDocuments(resolve(dirname(kpath), path)) as (K8sObject & Record<string, unknown>)[]) {
      const target = only(out, patch.kind, patch.metadata.name) as Record<string, unknown>;
      if (patch.kind === 'ConfigMap') {
        Object.assign(target.data as object, patch.data);
      } else if (patch.kind === 'StatefulSet') {
        const { template, ...rest } = patch.spec as { template?: { spec: { containers: Record<string, unknown>[] } } };
        Object.assign(target.spec as object, rest);
        for (const pc of template?.spec.containers ?? []) {
          const { name, volumeMounts, ...other } = pc as { name: string; volumeMounts?: unknown[] };
          if (Object.keys(other).length > 0) throw new Error(`${path}: container fields this check does not merge: ${Object.keys(other).join(', ')}`);
          const tc = (target.spec as { template: { spec: { containers: { name: string; volumeMounts?: unknown[] }[] } } }).template.spec.containers.find(
            (c) => c.name === name,
          )!;
          tc.volumeMounts = [...(tc.volumeMounts ?? []), ...(volumeMounts ?? [])];
        }
      } else {
        throw new Error(`${path}: patches of ${patch.kind} are not merged by this check`);
      }
    }
  }
  return out;
}
