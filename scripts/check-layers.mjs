#!/usr/bin/env node
// Enforces ../shared/ARCHITECTURE.md: imports inside src/ point down the layer list only,
// map/ and queue/ never import each other, third-party libraries stay in their one module
// (the logging library in core/logger.ts alone), rest/ reaches other layers only through the
// modules listed in REST_MAY_IMPORT (their facades), test-only fault injection is reached only
// through its seam (core/test-hooks.ts), and no file-level import cycle exists. Exits 1 with
// one line per violation.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');

// Lower index = lower layer. Same-rank layers may not import each other.
const RANK = {
  core: 0,
  config: 1,
  protocol: 2,
  security: 3,
  net: 4,
  cluster: 5,
  partition: 6,
  invocation: 7,
  // On-disk store per partition: imports only core and config (ARCHITECTURE.md); ranked just
  // below the data services that write through it.
  persistence: 7.5,
  map: 8,
  queue: 8,
  cp: 8.5,
  wan: 9,
  // The cluster-wide buses of map and queue change events: over map/'s and queue/'s owner-side sources and the member protocol.
  events: 9.2,
  // The metrics library's one home (ARCHITECTURE.md): imports core only; member/ plugs the services in.
  metrics: 9.5,
  // Hazelcast's client protocol: codecs (pure) and the connection shell over the map/queue facades.
  client: 9.7,
  rest: 10,
  member: 11,
  // The `grid` command: src/cli.ts and src/cli/ (admin commands) are one layer.
  cli: 12,
};
/** Packages allowed only under one layer. */
const ONLY_IN = { 'fast-xml-parser': 'config', yaml: 'config', commander: 'cli', 'prom-client': 'metrics' };
/** Packages allowed only in one file (path below src/). */
const ONLY_FILE = { pino: 'core/logger.ts', 'pino-pretty': 'core/logger.ts' };
/** The web console's libraries (console/, built for the browser): never in the member's src/. */
const CONSOLE_ONLY = new Set(['preact', 'uplot', 'esbuild', 'playwright-core']);

/**
 * The modules of other layers rest/ may import (paths below src/): the facades of the services
 * it serves, and the shared types and helpers of the layers below. core/ is open to all.
 */
const REST_MAY_IMPORT = new Set([
  'config/index.ts',
  'config/types.ts',
  'security/credentials.ts',
  'cluster/cluster-service.ts',
  'cluster/types.ts',
  'partition/partition-service.ts',
  'map/map-service.ts',
  'queue/queue-service.ts',
  'cp/cp-service.ts',
  'wan/wan-facade.ts',
  'events/event-service.ts',
  'events/queue-event-service.ts',
  // How REST serves a value a Hazelcast client wrote (its marker content type -> Hazelcast's REST type).
  'client/data.ts',
]);
/** The seam of the test-only fault switches: the one production module that holds or names them. */
const FAULT_SEAM = 'core/test-hooks.ts';
/**
 * Where `grid.debug.` may appear in code (comments aside): the seam, and config/, which reads the
 * switches from the properties and validates them.
 */
const MAY_NAME_DEBUG_SWITCHES = (rel) => rel === FAULT_SEAM || rel.startsWith('config/');

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const layerOf = (file) => {
  const first = relative(src, file).split('/')[0];
  return first === 'cli.ts' ? 'cli' : first;
};
const problems = [];
const graph = new Map();
const files = walk(src);

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const from = layerOf(file);
  const rel = relative(src, file);
  const deps = [];
  if (!MAY_NAME_DEBUG_SWITCHES(rel)) {
    text.split('\n').forEach((line, i) => {
      const code = line.trimStart();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
      if (code.includes('grid.debug.')) problems.push(`${relative(root, file)}:${i + 1}: names a grid.debug switch: test-only fault injection goes through ${FAULT_SEAM}`);
    });
  }
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
    const spec = m[1];
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (!target.startsWith(src + '/')) {
        problems.push(`${relative(root, file)}: imports ${spec}, outside src/ (the console, console/, is served from its build, never imported)`);
        continue;
      }
      deps.push(target);
      const to = layerOf(target);
      const toRel = relative(src, target);
      if (/(^|\/)message-faults\.ts$/.test(toRel)) problems.push(`${relative(root, file)}: imports ${spec}: test-only fault injection goes through ${FAULT_SEAM}`);
      if (from === 'rest' && to !== 'rest' && to !== 'core' && !REST_MAY_IMPORT.has(toRel)) {
        problems.push(`${relative(root, file)}: rest/ imports only facades (REST_MAY_IMPORT), not ${toRel}`);
      }
      if (to === from) continue;
      if (!(from in RANK) || !(to in RANK)) {
        problems.push(`${relative(root, file)}: unknown layer in import of ${spec}`);
      } else if (RANK[to] >= RANK[from]) {
        problems.push(`${relative(root, file)}: ${from}/ must not import ${to}/ (${spec})`);
      }
    } else {
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      const only = ONLY_IN[pkg];
      if (only !== undefined && only !== from) problems.push(`${relative(root, file)}: ${pkg} may only be imported in ${only}`);
      if (CONSOLE_ONLY.has(pkg)) problems.push(`${relative(root, file)}: ${pkg} is the web console's (console/), not the member's`);
      const onlyFile = ONLY_FILE[pkg];
      if (onlyFile !== undefined && onlyFile !== rel) problems.push(`${relative(root, file)}: ${pkg} may only be imported in ${onlyFile}`);
    }
  }
  graph.set(file, deps);
}

// File-level cycles (type-only imports included: they still couple modules).
const state = new Map();
const stack = [];
function visit(f) {
  state.set(f, 1);
  stack.push(f);
  for (const d of graph.get(f) ?? []) {
    if (!graph.has(d)) continue;
    if (state.get(d) === 1) {
      const cycle = stack.slice(stack.indexOf(d)).concat(d).map((x) => relative(src, x));
      problems.push(`import cycle: ${cycle.join(' -> ')}`);
    } else if (!state.has(d)) visit(d);
  }
  stack.pop();
  state.set(f, 2);
}
for (const f of files) if (!state.has(f)) visit(f);

// The console is browser code: it imports its own files and its libraries, nothing of src/
// (the member's types would pull node's into the bundle).
const consoleDir = join(root, 'console');
const walkConsole = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walkConsole(join(dir, n)) : /\.tsx?$/.test(n) ? [join(dir, n)] : []));
for (const file of walkConsole(consoleDir)) {
  for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
    const spec = m[1];
    if (spec.startsWith('.')) {
      if (!resolve(dirname(file), spec).startsWith(consoleDir + '/')) problems.push(`${relative(root, file)}: imports ${spec}, outside console/`);
    } else if (!/^(preact|uplot)(\/|$)/.test(spec)) problems.push(`${relative(root, file)}: imports ${spec}: the console uses preact and uplot only`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`layers ok: ${files.length} files, imports point down, no cycles, rest/ through facades, one logging module, one fault seam`);
