// `${name}` placeholders in config files, as Hazelcast writes them (it fills them from Java
// system properties). Grid fills them from `--property name=value` flags, then from the
// environment: the variable `name` itself, else `name` upper-cased with `.` and `-` as `_`
// (`${cluster.name}` <- CLUSTER_NAME). A placeholder nothing fills is warned about with its
// path, and its setting is left unset (the default applies) rather than taken literally.

import { childPath, isRecord, type Problems } from './problems.js';

/** What fills placeholders: `--property` values first, then the environment. */
export interface PlaceholderSources {
  readonly properties?: ReadonlyMap<string, string>;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const PLACEHOLDER = /\$\{([^${}]+)\}/g;

/** The second environment variable tried for `name`: `cluster.name` -> `CLUSTER_NAME`. */
const envNameOf = (name: string): string => name.toUpperCase().replace(/[.-]/g, '_');

/** The value of placeholder `name`, or undefined when nothing sets it. */
export function placeholderValue(name: string, sources: PlaceholderSources): string | undefined {
  const fromFlag = sources.properties?.get(name);
  if (fromFlag !== undefined) return fromFlag;
  const env = sources.env;
  if (env === undefined) return undefined;
  return env[name] ?? env[envNameOf(name)];
}

/**
 * Replaces the placeholders of every string value and mapping key of `tree` in place.
 * Values with an unresolved placeholder are removed (warned about); keys keep their text.
 */
export function resolvePlaceholders(tree: Record<string, unknown>, sources: PlaceholderSources, problems: Problems): void {
  walk(tree, 'hazelcast', sources, problems);
}

function substitute(text: string, sources: PlaceholderSources): { value: string; missing: string[] } {
  const missing: string[] = [];
  const value = text.replace(PLACEHOLDER, (whole, name: string) => {
    const v = placeholderValue(name.trim(), sources);
    if (v === undefined) {
      missing.push(name.trim());
      return whole;
    }
    return v;
  });
  return { value, missing };
}

function hint(name: string): string {
  const envName = envNameOf(name);
  const vars = envName === name ? name : `${name} or ${envName}`;
  return `set it with --property ${name}=... or the environment variable ${vars}`;
}

function walk(node: unknown, path: string, sources: PlaceholderSources, problems: Problems): void {
  if (Array.isArray(node)) {
    for (let i = node.length - 1; i >= 0; i--) {
      const item: unknown = node[i];
      const itemPath = `${path}[${i}]`;
      if (typeof item === 'string' && item.includes('${')) {
        const r = substitute(item, sources);
        if (r.missing.length > 0) {
          for (const name of r.missing) problems.warn(itemPath, `placeholder \${${name}} is not set, entry left out (${hint(name)})`);
          node.splice(i, 1);
        } else node[i] = r.value;
      } else walk(item, itemPath, sources, problems);
    }
    return;
  }
  if (!isRecord(node)) return;
  for (const key of Object.keys(node)) {
    let name = key;
    if (key.includes('${')) {
      const r = substitute(key, sources);
      for (const missing of r.missing) {
        problems.warn(childPath(path, key), `placeholder \${${missing}} is not set, the name is kept as written (${hint(missing)})`);
      }
      if (r.missing.length === 0 && r.value !== key && !(r.value in node)) {
        // Rebuilt in order so the entry keeps its place.
        const entries = Object.entries(node).map(([k, v]): [string, unknown] => [k === key ? r.value : k, v]);
        for (const k of Object.keys(node)) delete node[k];
        for (const [k, v] of entries) node[k] = v;
        name = r.value;
      }
    }
    const value = node[name];
    const valuePath = childPath(path, name);
    if (typeof value === 'string' && value.includes('${')) {
      const r = substitute(value, sources);
      if (r.missing.length > 0) {
        for (const missing of r.missing) {
          problems.warn(valuePath, `placeholder \${${missing}} is not set, the setting is left unset (${hint(missing)})`);
        }
        delete node[name];
      } else node[name] = r.value;
    } else walk(value, valuePath, sources, problems);
  }
}
