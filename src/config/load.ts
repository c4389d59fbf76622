// The public entry points: find a config file, load it (XML or YAML) or a raw object, apply
// environment overrides, validate, freeze. Every path through here ends in a frozen
// GridConfig or a ConfigError that lists every problem.

import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { CONFIG_FILE_ENV, CONFIG_FILE_NAMES } from './defaults.js';
import { applyEnvOverrides } from './env.js';
import { resolvePlaceholders } from './placeholders.js';
import { ConfigError, isRecord, Problems } from './problems.js';
import { parseBool, validateConfig } from './validate.js';
import { parseXml } from './xml.js';
import { parseYaml } from './yaml.js';
import type { ConfigLoadResult } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What the command line adds to a load (`grid start` / `grid validate` flags). */
export interface LoadOptions {
  /** `--property name=value`: fills `${name}` placeholders of a file before the environment does. */
  readonly properties?: ReadonlyMap<string, string>;
  /** `--port`: the member port, over the file and the environment. */
  readonly port?: number;
}

/**
 * Loads a config file; the format follows the extension (.xml, .yaml, .yml).
 * `env` (pass `process.env`) supplies HZ_* / GRID_* overrides; omitted = none.
 */
export function loadConfigFile(path: string, env?: Env, opts: LoadOptions = {}): ConfigLoadResult {
  const ext = extname(path).toLowerCase();
  const format = ext === '.xml' ? 'xml' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  if (format === undefined) {
    throw new ConfigError([`${path}: unknown config file type "${ext}" (expected .xml, .yaml or .yml)`]);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`${path}: cannot read config file: ${readFailure(e)}`], { cause: e });
  }
  return parseConfigText(text, format, path, env, opts);
}

/** Why a file could not be read, in words (`no such file`), the errno code only when it has none. */
function readFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'ENOTDIR':
      return 'no such file (a part of the path is not a directory)';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return code ?? (e instanceof Error ? e.message : String(e));
  }
}

/**
 * Loads config text; `source` names it in messages and in `config.source`. `${name}`
 * placeholders are filled from `opts.properties`, then from `env` (when given).
 */
export function parseConfigText(text: string, format: 'xml' | 'yaml', source: string, env?: Env, opts: LoadOptions = {}): ConfigLoadResult {
  const problems = new Problems(source);
  const raw = format === 'xml' ? parseXml(text, problems) : parseYaml(text, problems);
  problems.throwIfErrors();
  const tree = raw ?? {};
  resolvePlaceholders(tree, { ...(opts.properties ? { properties: opts.properties } : {}), ...(env ? { env } : {}) }, problems);
  return build(tree, source, env, problems, opts);
}

/**
 * Builds a config from the raw tree *inside* `hazelcast:` in Hazelcast's YAML shape, e.g.
 * `{ 'cluster-name': 'x', network: { 'rest-api': { enabled: true } } }`. The input is not modified.
 */
export function configFromObject(raw: unknown, env?: Env): ConfigLoadResult {
  const problems = new Problems('inline');
  if (raw !== undefined && raw !== null && !isRecord(raw)) {
    problems.error('hazelcast', 'must be a mapping');
    problems.throwIfErrors();
  }
  let copy: Record<string, unknown> = {};
  try {
    if (isRecord(raw)) copy = structuredClone(raw);
  } catch (e) {
    throw new ConfigError([`inline: hazelcast: must be plain data (${e instanceof Error ? e.message : String(e)})`], { cause: e });
  }
  return build(copy, 'inline', env, problems);
}

/** The built-in defaults, plus environment overrides when `env` is given. */
export function defaultConfig(env?: Env, opts: LoadOptions = {}): ConfigLoadResult {
  return build({}, 'defaults', env, new Problems('defaults'), opts);
}

/**
 * The config file to use: `explicit` (the CLI's --config), else $GRID_CONFIG, else the first
 * of grid.xml, grid.yaml, grid.yml, hazelcast.xml, hazelcast.yaml, hazelcast.yml in `cwd`;
 * undefined = run on built-in defaults. Explicit and GRID_CONFIG paths are returned even when
 * missing, so loading them reports the missing file instead of silently using defaults.
 */
export function findConfigFile(opts: { explicit?: string; env: Env; cwd: string }): string | undefined {
  if (opts.explicit !== undefined && opts.explicit !== '') return resolve(opts.cwd, opts.explicit);
  const fromEnv = opts.env[CONFIG_FILE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return resolve(opts.cwd, fromEnv);
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = resolve(opts.cwd, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function build(raw: Record<string, unknown>, source: string, env: Env | undefined, problems: Problems, opts: LoadOptions = {}): ConfigLoadResult {
  if (env !== undefined) applyEnvOverrides(raw, env, problems);
  if (opts.port !== undefined) {
    // The member port lives in advanced-network's member endpoint while that is enabled.
    const advanced = raw['advanced-network'];
    const enabled = isRecord(advanced) && parseBool(advanced['enabled']) === true;
    const variable = enabled ? 'GRID_ADVANCEDNETWORK_MEMBERSERVERSOCKETENDPOINTCONFIG_PORT_PORT' : 'GRID_NETWORK_PORT_PORT';
    applyEnvOverrides(raw, { [variable]: String(opts.port) }, problems, () => '--port');
  }
  const config = validateConfig(raw, source, problems);
  problems.throwIfErrors();
  return deepFreeze({ config, warnings: problems.allWarnings(), unused: [...problems.unused] });
}

/** Freezes objects and arrays all the way down (Sets and Maps are typed read-only instead). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    if (!(value instanceof Set) && !(value instanceof Map)) {
      for (const v of Object.values(value)) deepFreeze(v);
    }
    Object.freeze(value);
  }
  return value;
}

