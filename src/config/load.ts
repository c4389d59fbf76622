// The public entry points: find a config file, load it (XML or YAML) or a raw object, apply
// environment overrides, validate, freeze. Every path through here ends in a frozen
// GridConfig or a ConfigError that lists every problem.

import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { CONFIG_FILE_ENV, CONFIG_FILE_NAMES } from './defaults.js';
import { applyEnvOverrides } from './env.js';
import { ConfigError, isRecord, Problems } from './problems.js';
import { validateConfig } from './validate.js';
import { parseXml } from './xml.js';
import { parseYaml } from './yaml.js';
import type { ConfigLoadResult } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Loads a config file; the format follows the extension (.xml, .yaml, .yml).
 * `env` (pass `process.env`) supplies HZ_* / GRID_* overrides; omitted = none.
 */
export function loadConfigFile(path: string, env?: Env): ConfigLoadResult {
  const ext = extname(path).toLowerCase();
  const format = ext === '.xml' ? 'xml' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  if (format === undefined) {
    throw new ConfigError([`${path}: unknown config file type "${ext}" (expected .xml, .yaml or .yml)`]);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([`${path}: cannot read config file (${code ?? (e instanceof Error ? e.message : String(e))})`], { cause: e });
  }
  return parseConfigText(text, format, path, env);
}

/** Loads config text; `source` names it in messages and in `config.source`. */
export function parseConfigText(text: string, format: 'xml' | 'yaml', source: string, env?: Env): ConfigLoadResult {
  const problems = new Problems(source);
  const raw = format === 'xml' ? parseXml(text, problems) : parseYaml(text, problems);
  problems.throwIfErrors();
  return build(raw ?? {}, source, env, problems);
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
export function defaultConfig(env?: Env): ConfigLoadResult {
  return build({}, 'defaults', env, new Problems('defaults'));
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

function build(raw: Record<string, unknown>, source: string, env: Env | undefined, problems: Problems): ConfigLoadResult {
  if (env !== undefined) applyEnvOverrides(raw, env, problems);
  const config = validateConfig(raw, source, problems);
  problems.throwIfErrors();
  return deepFreeze({ config, warnings: [...problems.warnings] });
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

