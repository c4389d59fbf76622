// Hazelcast's admin scripts and the Helm chart's probes, compared on a Hazelcast member and a
// Grid member (issue 23). A script run is its restatement (test/support/hazelcast-scripts.ts:
// the distribution that holds the scripts is not on Maven Central) reduced to what an operator
// sees: the last line it prints and its exit status, curl's own failures included (the script
// maps exit 7 and 52/55/56 to messages of its own). A probe is what the kubelet sees of the
// chart's httpGet probes of `/hazelcast/health/node-state` (liveness) and
// `/hazelcast/health/ready` (readiness): the answer, normalised as the REST suite does.

import {
  clusterAdminCall,
  clusterAdminOutcome,
  cpAdminCall,
  cpAdminOutcome,
  curl,
  healthcheckOutcome,
  type AdminOp,
  type CpOp,
  type HealthOp,
} from '../support/hazelcast-scripts.js';
import { describe as show, normaliseBody, send, type Observed } from './rest-diff.js';

/** One script operation as an operator runs it. */
export type ScriptRun =
  | { readonly script: 'hz-cluster-admin'; readonly op: AdminOp; readonly arg?: string; readonly cluster?: string }
  | { readonly script: 'hz-healthcheck'; readonly op: HealthOp; readonly accept?: string }
  | { readonly script: 'hz-cluster-cp-admin'; readonly op: CpOp; readonly group?: string; readonly member?: string; readonly session?: string; readonly cluster?: string };

export function scriptLine(r: ScriptRun): string {
  const args = Object.entries(r)
    .filter(([k]) => k !== 'script' && k !== 'op')
    .map(([k, v]) => `--${k} ${String(v)}`);
  return [r.script, '-o', r.op, ...args].join(' ');
}

/** What make_request / the scripts print when curl itself fails, by curl's exit status. */
function curlFailure(e: unknown): { exit: number; printed: string } {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ECONNREFUSED') return { exit: 7, printed: 'Unable to connect to the host. Is the server running?' };
  if (err.code === 'ECONNRESET' || /connection closed before a complete response/.test(err.message)) {
    return { exit: 52, printed: 'Unable to send or receive data from the server. Is REST API enabled on the server?' };
  }
  return { exit: 28, printed: `curl failed: ${err.message.slice(0, 80)}` };
}

/**
 * The run's outcome as one comparable line: `exit N: <printed>`, normalised (ports, uuids,
 * versions). hz-healthcheck and hz-cluster-cp-admin print curl's failures as their own error
 * (exit 1, exit 6) since they do not read curl's status: an empty `%{http_code}` of `000`.
 */
export async function runScript(port: number, r: ScriptRun, ports: readonly number[]): Promise<string> {
  let printed: string;
  let exit: number;
  try {
    if (r.script === 'hz-cluster-admin') {
      const res = await clusterAdminCall(port, r.op, r.arg, r.cluster);
      ({ line: printed, exit } = clusterAdminOutcome(r.op, res, r.arg));
    } else if (r.script === 'hz-healthcheck') {
      const res = await curl(port, '/hazelcast/health', { accept: r.accept });
      ({ printed, exit } = healthcheckOutcome(r.op, res));
    } else {
      const res = await cpAdminCall(port, r.op, r);
      const out = cpAdminOutcome(r.op, res);
      exit = out.exit;
      printed = cpPrinted(r.op, out);
    }
  } catch (e) {
    const f = curlFailure(e);
    if (r.script === 'hz-cluster-admin') ({ printed, exit } = f);
    else if (r.script === 'hz-healthcheck') ({ printed, exit } = { printed: 'Error while checking health of hazelcast cluster (…)', exit: 1 });
    else ({ printed, exit } = { printed: 'Status Code: 000 Internal error!', exit: 6 });
  }
  // The product versions the scripts print (`Cluster is at version 5.7.`) differ as the REST
  // suite's `version` normalisation says.
  return `exit ${exit}: ${normaliseBody(printed, ports).replace(/\bversion \d+\.\d+(\.\d+)?/g, 'version <version>')}`;
}

/**
 * A script-visible difference that follows from a deliberate REST difference
 * (test/reference/deliberate.ts, docs/compatibility.md): the rule it follows from, and exactly
 * the outputs it allows. Any other difference in what a script prints or returns is a bug.
 */
export interface ScriptDeliberate {
  readonly id: string;
  readonly applies: (r: ScriptRun, hz: string, grid: string) => boolean;
}

const NO_VALID = "exit 0: Didn't get a valid response. (…)";

export const SCRIPT_DELIBERATE: readonly ScriptDeliberate[] = [
  {
    // Grid's 403 for a wrong cluster name has an empty body: hz-cluster-admin finds no status
    // and says so; Hazelcast's {"status":"fail","message":"unauthenticated"} is printed as an
    // error, or (change-state, whose sed finds no "state" and keeps `{`) as "already in".
    id: 'error-body',
    applies: (r, hz, grid) =>
      r.script === 'hz-cluster-admin' && r.cluster !== undefined && r.cluster !== 'dev' && grid === NO_VALID && /^exit 0: (Got error response: \{"status":"fail"|Cluster is already in)/.test(hz),
  },
  {
    // Both refuse and the script prints the answer; Grid's says why (force-start and
    // partial-start without persistence), or in its own words (a cluster version no member runs).
    id: 'fail-with-message',
    applies: (r, hz, grid) => r.script === 'hz-cluster-admin' && /^exit 0: Got error response: \{"status":"fail"/.test(hz) && /^exit 0: Got error response: \{"status":"fail","message":"[^"]+"/.test(grid),
  },
  {
    // Asked for text/plain (a curl config's Accept), Grid's /health is Hazelcast 3.x's text,
    // so hz-healthcheck's single-value operations read their value; Hazelcast 5.x answers JSON
    // and the script prints an empty line.
    id: 'health-text',
    applies: (r, hz, grid) => r.script === 'hz-healthcheck' && r.accept === 'text/plain' && hz === 'exit 0: ' && /^exit 0: [A-Z_0-9]+$/.test(grid),
  },
  {
    // CP off: Grid's every CP endpoint is 500 with an empty body ("Internal error!", exit 6);
    // Hazelcast 5.5+ open source has no CP: 500 with a "licensed feature" body, or 404 (exit 4)
    // for members/local.
    id: 'cp-not-enabled',
    applies: (r, hz, grid) => r.script === 'hz-cluster-cp-admin' && grid === 'exit 6: Status Code: 500 Response:  Internal error!' && (hz.startsWith('exit 6: Status Code: 500 Response: {"status":"fail"') || hz === 'exit 4: Not found'),
  },
  {
    // With CP on (5.4.0): Grid's `default` group exists from the start, Hazelcast's once a CP
    // structure used it: get-groups lists it on Grid only, get-group/get-sessions of it are
    // `Not found` (exit 4) on Hazelcast.
    id: 'cp-default-group-eager',
    applies: (r, hz, grid) =>
      r.script === 'hz-cluster-cp-admin' &&
      ((r.op === 'get-groups' && grid === hz.replace(/\}\] OK$/, '},{"name":"default","id":1}] OK')) ||
        ((r.op === 'get-group' || r.op === 'get-sessions') && r.group === 'default' && hz === 'exit 4: Not found' && grid.startsWith('exit 0: '))),
  },
  {
    // METADATA's sessions: Grid's empty list (printed, OK), Hazelcast's 500 ("Internal error!").
    id: 'cp-metadata-sessions',
    applies: (r, hz, grid) =>
      r.script === 'hz-cluster-cp-admin' && r.op === 'get-sessions' && r.group === 'METADATA' && grid === 'exit 0: [] OK' && /^exit 6: Status Code: 500 .*Cannot query CP sessions/.test(hz),
  },
  {
    // A disabled group: Grid answers 403 (the script finds no status, or prints the code);
    // Hazelcast closes the connection (curl exit 52, or an http_code of 000).
    id: 'group-disabled-403',
    applies: (_r, hz, grid) =>
      (hz.startsWith('exit 52: ') && grid === NO_VALID) || (hz === 'exit 6: Status Code: 000 Internal error!' && grid === 'exit 6: Status Code: 403 Response:  Internal error!'),
  },
];

export function scriptDeliberate(r: ScriptRun, hz: string, grid: string): ScriptDeliberate | undefined {
  return SCRIPT_DELIBERATE.find((d) => d.applies(r, hz, grid));
}

/** What hz-cluster-cp-admin prints for an outcome: the JSON then OK, or its verdict word. */
function cpPrinted(op: CpOp, out: { json: string; statusCode: string; exit: number }): string {
  const verdict: Record<number, string> = { 3: 'Invalid credentials', 4: 'Not found', 5: 'Bad request' };
  if (out.exit === 0) return op.startsWith('get-') ? `${out.json} OK` : 'OK';
  return verdict[out.exit] ?? `Status Code: ${out.statusCode} Response: ${out.json} Internal error!`;
}

/** The Helm chart's probes: what the kubelet's httpGet of each path sees. */
export const PROBE_PATHS = { liveness: '/hazelcast/health/node-state', readiness: '/hazelcast/health/ready' } as const;

/** The kubelet's verdict: an answer with status 200-399 passes, anything else fails. */
export function probeVerdict(o: Observed): 'pass' | 'fail' {
  return o.kind === 'answer' && o.status >= 200 && o.status < 400 ? 'pass' : 'fail';
}

export interface ProbeStep {
  /** Both probes' answers as one normalised line. */
  readonly answers: string;
  /** `liveness pass, readiness fail`, … */
  readonly verdicts: string;
}

/**
 * Probes `port` as the kubelet does (both probes, every `intervalMs`) until `stop()`; returns
 * the distinct consecutive steps seen (a step that repeats is kept once).
 */
export function startProbing(port: number, ports: readonly number[], intervalMs = 25): { peek(): string | undefined; last(): string | undefined; stop(): Promise<ProbeStep[]> } {
  const steps: ProbeStep[] = [];
  let running = true;
  const headers = [
    ['User-Agent', 'kube-probe/1.29'],
    ['Accept', '*/*'],
  ] as const;
  const loop = (async () => {
    while (running) {
      const [live, ready] = await Promise.all([
        send(port, { name: 'liveness', method: 'GET', path: PROBE_PATHS.liveness, headers, timeoutMs: 1_000 }),
        send(port, { name: 'readiness', method: 'GET', path: PROBE_PATHS.readiness, headers, timeoutMs: 1_000 }),
      ]);
      const step = {
        answers: `liveness ${show(live, ports)}; readiness ${show(ready, ports)}`,
        verdicts: `liveness ${probeVerdict(live)}, readiness ${probeVerdict(ready)}`,
      };
      if (steps[steps.length - 1]?.answers !== step.answers) steps.push(step);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    /** The verdicts of the last step. */
    peek: () => steps[steps.length - 1]?.verdicts,
    /** The answers of the last step. */
    last: () => steps[steps.length - 1]?.answers,
    stop: async () => {
      running = false;
      await loop;
      return steps;
    },
  };
}

/**
 * What the kubelet acts on: the steps with a failing probe reduced to its verdicts (a port not
 * yet bound, or bound and not yet answering, fail alike: how long each lasts is timing), the
 * passing ones kept whole, consecutive repeats merged. With `passiveIsTiming` (a shutdown), a
 * step whose liveness answers PASSIVE is dropped: both members pass through PASSIVE for a few
 * milliseconds on the way out, and a probe every 25 ms sees it or not by chance (Hazelcast 5.7.0
 * showed it in 5 of 8 runs, with readiness 200; Grid answers readiness 503 while PASSIVE, as
 * docs/deployment.md says).
 */
export function probeSteps(steps: readonly ProbeStep[], passiveIsTiming = false): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (passiveIsTiming && s.answers.includes('"\\"PASSIVE\\""')) continue;
    const key = s.verdicts === 'liveness pass, readiness pass' ? s.answers : s.verdicts;
    if (out[out.length - 1] !== key) out.push(key);
  }
  return out;
}
