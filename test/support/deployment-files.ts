// Readers for the deployment files that ship with Grid (Dockerfile, .dockerignore,
// docker-compose.yml, deploy/), shared by the static checks (test/unit/deployment.test.ts)
// and the live ones (test/cluster/deployment.test.ts). Small on purpose: they read only the
// forms these files use, and fail loudly on anything else.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './process.js';

export const repoPath = (...parts: string[]): string => resolve(REPO_ROOT, ...parts);

export interface PackageJson {
  readonly version: string;
  readonly bin: Record<string, string>;
  readonly engines: { readonly node: string };
  readonly scripts: Record<string, string>;
  readonly files: readonly string[];
}

export function packageJson(): PackageJson {
  return JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as PackageJson;
}

// ---------------------------------------------------------------- YAML

/** Every YAML document of a file; throws with the file and the parser's message on any error. */
export function yamlDocuments(path: string, opts: { merge?: boolean } = {}): unknown[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'), { merge: opts.merge ?? false, prettyErrors: true, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: unknown[] = [];
  for (const d of list) {
    const problems = [...d.errors, ...d.warnings];
    if (problems.length > 0) throw new Error(`${relative(REPO_ROOT, path)}: ${problems.map((p) => p.message).join('; ')}`);
    const value: unknown = d.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** The YAML files the project ships for deployment (compose, deploy/, config/container.yaml). */
export function shippedYamlFiles(): string[] {
  const found: string[] = [repoPath('docker-compose.yml'), repoPath('config/container.yaml')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name)) found.push(p);
    }
  };
  walk(repoPath('deploy'));
  return found;
}

// ---------------------------------------------------------------- Kubernetes

export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly [key: string]: unknown;
}

/** The objects of every file a kustomization lists under `resources` (files and directories, recursively). */
export function kustomizeResources(dir: string): K8sObject[] {
  const [k] = yamlDocuments(join(dir, 'kustomization.yaml')) as [{ resources?: string[] }];
  const out: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = resolve(dir, r);
    if (!existsSync(p)) throw new Error(`${relative(REPO_ROOT, dir)}/kustomization.yaml lists ${r}, which does not exist`);
    if (statSync(p).isDirectory()) out.push(...kustomizeResources(p));
    else out.push(...(yamlDocuments(p) as K8sObject[]));
  }
  return out;
}

export function only<T extends K8sObject>(objects: readonly K8sObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0] as T;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } };
}

/**
 * A container's environment as Kubernetes gives it to the process: `$(VAR)` replaced by an
 * earlier variable of the list (Kubernetes' rule), fieldRefs taken from `fields`.
 */
export function containerEnv(env: readonly EnvVar[], fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of env) {
    if (v.valueFrom?.fieldRef) {
      const f = fields[v.valueFrom.fieldRef.fieldPath];
      if (f === undefined) throw new Error(`${v.name}: no value for fieldRef ${v.valueFrom.fieldRef.fieldPath}`);
      out[v.name] = f;
      continue;
    }
    out[v.name] = (v.value ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string) => {
      const earlier = out[name];
      if (earlier === undefined) throw new Error(`${v.name}: ${m} names no variable defined before it`);
      return earlier;
    });
  }
  return out;
}

// ---------------------------------------------------------------- Docker Compose

export interface ComposeService {
  readonly image?: string;
  readonly build?: string | { readonly context: string };
  readonly environment?: Record<string, string>;
  readonly volumes?: readonly string[];
  readonly ports?: readonly string[];
  readonly stop_grace_period?: string;
}

export function composeServices(): Record<string, ComposeService> {
  const [doc] = yamlDocuments(repoPath('docker-compose.yml'), { merge: true }) as [{ services: Record<string, ComposeService> }];
  return doc.services;
}

/** `./host/path:/container/path[:ro]` -> the two paths (the host path resolved in the repository). */
export function bindMount(spec: string): { readonly host: string; readonly container: string } {
  const [host, container] = spec.split(':');
  if (host === undefined || container === undefined || !host.startsWith('./')) throw new Error(`not a ./relative bind mount: ${spec}`);
  return { host: repoPath(host), container };
}

/** `150s`, `2m30s`, `1m` -> seconds. */
export function composeDurationSeconds(d: string): number {
  const m = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(d);
  if (!m || (m[1] === undefined && m[2] === undefined)) throw new Error(`not a duration: ${d}`);
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
}

// ---------------------------------------------------------------- Dockerfile

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly name: string | undefined;
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

/** The Dockerfile as global ARGs and stages; comments dropped, continuation lines joined. */
export function dockerfile(): { readonly args: Record<string, string>; readonly stages: readonly Stage[] } {
  const lines = readFileSync(repoPath('Dockerfile'), 'utf8').split('\n');
  const instructions: Instruction[] = [];
  let current: { text: string; line: number } | undefined;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('#')) return; // comments, also inside a continued instruction
    if (current === undefined) {
      if (line === '') return;
      current = { text: '', line: i + 1 };
    }
    const continued = line.endsWith('\\');
    current.text += `${continued ? line.slice(0, -1) : line} `;
    if (!continued) {
      const m = /^(\S+)\s*(.*)$/.exec(current.text.trim())!;
      instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: current.line });
      current = undefined;
    }
  });
  const args: Record<string, string> = {};
  const stages: { name: string | undefined; from: string; instructions: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`Dockerfile:${ins.line}: unexpected FROM ${ins.args}`);
      stages.push({ name: m[2], from: m[1]!, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile:${ins.line}: ${ins.keyword} before the first FROM`);
      const [k, v] = ins.args.split('=');
      args[k!] = v ?? '';
    } else {
      stages[stages.length - 1]!.instructions.push(ins);
    }
  }
  return { args, stages };
}

/** The JSON array of an exec-form instruction (`CMD ["node", "-e", "..."]`); throws if it is not valid JSON. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not an exec-form array: ${args}`);
  return parsed as string[];
}

/** The HEALTHCHECK's options and its command (exec form). */
export function healthcheck(stage: Stage): { readonly options: Record<string, string>; readonly command: string[] } {
  const ins = stage.instructions.filter((i) => i.keyword === 'HEALTHCHECK');
  if (ins.length !== 1) throw new Error(`expected one HEALTHCHECK in the runtime stage, found ${ins.length}`);
  const m = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.*)$/.exec(ins[0]!.args);
  if (!m) throw new Error(`HEALTHCHECK is not "[--options] CMD [...]": ${ins[0]!.args}`);
  const options: Record<string, string> = {};
  for (const o of m[1]!.trim().split(/\s+/).filter(Boolean)) {
    const [k, v] = o.slice(2).split('=');
    options[k!] = v!;
  }
  return { options, command: execForm(m[2]!) };
}

// ---------------------------------------------------------------- .dockerignore

/**
 * Whether a top-level path of the build context reaches the builder under .dockerignore's
 * rules as this project writes them: `*`, `name`, `name/` and their `!` negations; the last
 * matching rule wins.
 */
export function inBuildContext(topLevelName: string): boolean {
  const rules = readFileSync(repoPath('.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  let included = true;
  for (const rule of rules) {
    const negated = rule.startsWith('!');
    const pattern = (negated ? rule.slice(1) : rule).replace(/\/$/, '');
    if (!/^[\w.*-]+$/.test(pattern)) throw new Error(`.dockerignore rule this check does not understand: ${rule}`);
    const re = new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
    if (re.test(topLevelName)) included = negated;
  }
  return included;
}
