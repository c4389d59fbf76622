// Micro-benchmark of REST dispatch: the work rest-server does for every request between the
// request line and the handler (strip the prefix, the metrics route label, the endpoint group a
// path claims, resolve the route), in ns per request, for this build's dist/ and, with --old, for
// another build's (to compare a change of the dispatch against the code before it).
//
//   npm run build && node bench/route-dispatch.mjs [--old DIR] [--runs 7] [--ms 400]
//
// DIR is another build's dist/ directory (e.g. `git worktree add /tmp/old <commit>`, link this
// checkout's node_modules into it or a parent, `npx tsc -p tsconfig.build.json`). Two mixes:
// "workload" is what the bench workloads send (wrk.lua: map GET and POST of random keys, queue
// offer and poll, half `/hazelcast/`, half `/grid/`); "spread" is every example request of the
// route table plus unknown and malformed paths. Builds are measured in alternating rounds, in
// CPU time; the median round is reported with the range. Compare figures of one run only.

import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const { values: opts } = parseArgs({
  options: { old: { type: 'string' }, runs: { type: 'string', default: '7' }, ms: { type: 'string', default: '400' } },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const RUNS = Number(opts.runs);
const ROUND_MS = Number(opts.ms);

/** The dispatch of one build, as its rest-server calls it. */
async function loadBuild(dist) {
  const routes = await import(path.join(dist, 'rest/routes.js'));
  const stats = await import(path.join(dist, 'rest/request-stats.js'));
  const { stripPrefix } = await import(path.join(dist, 'rest/paths.js'));
  if (typeof routes.scopeOf === 'function') {
    // The table's dispatch: one scope lookup serves label, group and route.
    return {
      stripPrefix,
      dispatch(method, rest) {
        const scope = routes.scopeOf(rest);
        const label = routes.routeLabelOf(rest, scope);
        const group = routes.groupOfPath(rest, scope);
        return [label, group, routes.resolveRoute(method, rest, scope)];
      },
      examples: routes.ENDPOINTS.flatMap((e) => e.examples),
    };
  }
  return {
    stripPrefix,
    dispatch(method, rest) {
      const label = stats.routeLabelOf(rest);
      const group = routes.groupOfPath(rest);
      return [label, group, routes.resolveRoute(method, rest)];
    },
    examples: routes.ENDPOINTS.flatMap((e) => e.examples),
  };
}

function workloadMix() {
  const out = [];
  for (let i = 0; i < 1000; i++) {
    const prefix = i % 2 === 0 ? '/hazelcast/' : '/grid/';
    const key = `key-${(i * 7919) % 10000}`;
    out.push(['GET', `${prefix}rest/maps/bench/${key}`], ['POST', `${prefix}rest/maps/bench/${key}`]);
    if (i % 4 === 0) out.push(['POST', `${prefix}rest/queues/bench-q`], ['DELETE', `${prefix}rest/queues/bench-q/0`]);
  }
  return out;
}

function spreadMix(examples) {
  const out = [];
  for (const [method, p] of examples) out.push([method, `/hazelcast/${p}`], [method, `/grid/${p}/`]);
  for (const p of ['rest/nothing', 'rest/maps/m', 'rest/queues/q', 'health/nope', 'rest/cp/atomiclongs//set', 'rest/wan/sync/progress/', 'metricsx', 'rest']) {
    out.push(['GET', `/grid/${p}`], ['POST', `/hazelcast/${p}`]);
  }
  return out;
}

let sink = 0;

/**
 * One round: ns of this process's CPU time per request over the mix, repeated for about
 * ROUND_MS of wall time. CPU time, not wall time: on a shared machine a round that is
 * descheduled would otherwise count the other processes' work.
 */
function round(build, mix) {
  let n = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - start < ROUND_MS) {
    for (let i = 0; i < mix.length; i++) {
      const [method, url] = mix[i];
      const rest = build.stripPrefix(url);
      try {
        const [label, , route] = build.dispatch(method, rest);
        sink += label.length + (route.readsBody ? 1 : 0);
      } catch (e) {
        sink += e.code.length;
      }
    }
    n += mix.length;
  }
  const used = process.cpuUsage(cpu);
  return ((used.user + used.system) * 1e3) / n;
}

const builds = [['new', await loadBuild(path.join(here, '../dist'))]];
if (opts.old !== undefined) builds.unshift(['old', await loadBuild(path.resolve(opts.old))]);
const mixes = [
  ['workload', workloadMix()],
  ['spread', spreadMix(builds.at(-1)[1].examples)],
];

for (const [mixName, mix] of mixes) {
  // Warm up every build on the mix before measuring.
  for (const [, b] of builds) round(b, mix);
  const figures = new Map(builds.map(([name]) => [name, []]));
  for (let r = 0; r < RUNS; r++) {
    // Alternate the order so that neither build always runs first.
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const [name, b] of order) figures.get(name).push(round(b, mix));
  }
  for (const [name, ns] of figures) {
    const sorted = [...ns].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`${mixName.padEnd(8)} ${name.padEnd(3)} ${median.toFixed(1).padStart(7)} ns/request (rounds ${sorted[0].toFixed(1)}–${sorted.at(-1).toFixed(1)}, ${mix.length} requests in the mix)`);
  }
}
if (sink === 0) console.log('(sink)');
