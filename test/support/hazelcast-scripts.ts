// Hazelcast's own admin scripts, restated (issue 11, issue 23): `hz-cluster-admin`,
// `hz-cluster-cp-admin` and `hz-healthcheck` of the Hazelcast 5.x distribution
// (distribution/src/bin-filemode-755/ in hazelcast/hazelcast). The distribution is not on Maven
// Central (com.hazelcast:hazelcast-distribution is not served there, checked for 5.4.0 and
// 5.7.0) and the scripts are Hazelcast's, so they are not copied here: each function restates
// one script operation's request exactly as curl 7.x sends it (request line, Host,
// `User-Agent: curl/…`, `Accept: */*`; for `--data`, a POST of the unencoded
// `name&password[&arg]` as `application/x-www-form-urlencoded`), over a raw socket, and then
// reads the answer the way the script does: hz-cluster-admin's sed of `"status"`, `"state"`,
// `"version"` (line by line, so a one-line answer matters), hz-cluster-cp-admin's first line and
// the `%{http_code}` its `-w` appends, mapped to its exit codes, and hz-healthcheck's
// `HTTPSTATUS:` split and its grep of `Hazelcast::<Keyword>=[A-Z_0-9]*`. Used against Grid alone
// (test/http/hazelcast-scripts.test.ts) and against Grid beside Hazelcast (test/reference/).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildRequest, rawRequest, type RawResponse } from './http.js';

export const CURL_UA = 'curl/7.88.1';

/**
 * One curl call as the scripts make it: `curl <url>` (GET) or `curl --data <data> <url>`
 * (POST, form-urlencoded, the data sent as given). `accept` replaces curl's default Accept
 * (any type), as a `header = "Accept: …"` line in a curl config file (CURL_HOME) does.
 */
export function curl(port: number, path: string, opts: { data?: string; accept?: string; timeoutMs?: number } = {}): Promise<RawResponse> {
  const headers: Record<string, string | number> = { Host: `127.0.0.1:${port}`, 'User-Agent': CURL_UA, Accept: opts.accept ?? '*/*' };
  if (opts.data === undefined) return rawRequest(port, buildRequest('GET', path, { headers }), { timeoutMs: opts.timeoutMs });
  headers['Content-Length'] = Buffer.byteLength(opts.data);
  headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return rawRequest(port, buildRequest('POST', path, { headers, body: opts.data }), { timeoutMs: opts.timeoutMs });
}

// `$(echo "$RESPONSE" | sed -e 's/^.*"<key>"[ ]*:[ ]*"//' -e 's/".*//')`: line by line, the
// trailing newlines dropped (command substitution).
export function sedValue(body: string, key: string): string {
  const lead = new RegExp(`^.*"${key}"[ ]*:[ ]*"`);
  return body
    .split('\n')
    .map((line) => line.replace(lead, '').replace(/".*/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

// ---------------------------------------------------------------- hz-cluster-admin, restated

export type AdminOp = 'get-state' | 'change-state' | 'shutdown' | 'force-start' | 'partial-start' | 'get-cluster-version' | 'change-cluster-version';

/** make_request's REST operation (the last path segment) of each hz-cluster-admin operation. */
export const ADMIN_REST_OP: Record<AdminOp, string> = {
  'get-state': 'state',
  'change-state': 'changeState',
  shutdown: 'clusterShutdown',
  'force-start': 'forceStart',
  'partial-start': 'partialStart',
  'get-cluster-version': 'version',
  'change-cluster-version': 'version',
};

/**
 * hz-cluster-admin's call for `op` (make_request): GET `version` when it has no argument, else
 * a POST of `${CLUSTERNAME}&${PASSWORD}` (defaults `dev`, `dev-pass`) plus `&${arg}`.
 */
export function clusterAdminCall(port: number, op: AdminOp, arg?: string, cluster = 'dev', password = 'dev-pass'): Promise<RawResponse> {
  const path = `/hazelcast/rest/management/cluster/${ADMIN_REST_OP[op]}`;
  if (ADMIN_REST_OP[op] === 'version' && arg === undefined) return curl(port, path);
  return curl(port, path, { data: `${cluster}&${password}${arg === undefined ? '' : `&${arg}`}` });
}

/** The last line hz-cluster-admin prints for `op` given the answer, and its exit status (always 0 once curl got an answer). */
export function clusterAdminOutcome(op: AdminOp, res: RawResponse, desired?: string): { line: string; exit: number } {
  const body = res.body.toString('utf8');
  const status = sedValue(body, 'status');
  if (status === 'fail' && op !== 'change-state') return { line: `Got error response: ${body}`, exit: 0 };
  if (status === 'forbidden') return { line: 'Operation forbidden, wrong cluster name/password (…)', exit: 0 };
  if (status !== 'success' && status !== 'fail') return { line: "Didn't get a valid response. (…)", exit: 0 };
  switch (op) {
    case 'get-state':
      return { line: `The cluster state is '${sedValue(body, 'state')}'.`, exit: 0 };
    case 'change-state': {
      const newState = sedValue(body, 'state');
      if (status === 'fail') return { line: newState !== 'null' ? `Cluster is already in the '${desired ?? ''}' state.` : `Got error response: ${body}`, exit: 0 };
      return { line: `The cluster is now in the '${newState}' state`, exit: 0 };
    }
    case 'force-start':
      return { line: 'Cluster force-start completed.', exit: 0 };
    case 'partial-start':
      return { line: 'Cluster partial-start completed.', exit: 0 };
    case 'shutdown':
      return { line: 'Cluster shutdown completed.', exit: 0 };
    case 'get-cluster-version':
      return { line: `Cluster is at version ${sedValue(body, 'version')}.`, exit: 0 };
    case 'change-cluster-version':
      return { line: `Cluster version changed to ${sedValue(body, 'version')}.`, exit: 0 };
  }
}

// ---------------------------------------------------------------- hz-healthcheck, restated

export type HealthOp = 'all' | 'node-state' | 'cluster-state' | 'cluster-safe' | 'migration-queue-size' | 'cluster-size';

export const HEALTH_KEYWORD: Record<Exclude<HealthOp, 'all'>, string> = {
  'node-state': 'NodeState',
  'cluster-state': 'ClusterState',
  'cluster-safe': 'ClusterSafe',
  'migration-queue-size': 'MigrationQueueSize',
  'cluster-size': 'ClusterSize',
};

/**
 * What hz-healthcheck prints and its exit status: `curl --silent --write-out
 * "HTTPSTATUS:%{http_code}" <url>/hazelcast/health`, the body and status split on
 * `HTTPSTATUS:`, exit 1 unless 200, `all` echoes the body, other operations grep
 * `Hazelcast::<Keyword>=[A-Z_0-9]*` out of the (unquoted, so whitespace-joined) body.
 */
export function healthcheckOutcome(op: HealthOp, res: RawResponse): { printed: string; exit: number } {
  const out = `${res.body.toString('utf8')}HTTPSTATUS:${res.status}`;
  const body = out
    .split('\n')
    .map((l) => l.replace(/HTTPSTATUS:.*/, ''))
    .join('\n')
    .replace(/\n+$/, '');
  const status = out.replace(/\n/g, '').replace(/.*HTTPSTATUS:/, '');
  if (status !== '200') return { printed: 'Error while checking health of hazelcast cluster (…)', exit: 1 };
  if (op === 'all') return { printed: body, exit: 0 };
  const words = body.split(/\s+/).join(' ');
  const re = new RegExp(`Hazelcast::${HEALTH_KEYWORD[op]}=[A-Z_0-9]*`, 'g');
  const printed = (words.match(re) ?? []).map((m) => m.replace(`Hazelcast::${HEALTH_KEYWORD[op]}=`, '')).join('\n');
  return { printed, exit: 0 };
}

// ---------------------------------------------------------------- hz-cluster-cp-admin, restated

export type CpOp =
  | 'get-local-member'
  | 'get-groups'
  | 'get-group'
  | 'get-members'
  | 'get-sessions'
  | 'force-destroy-group'
  | 'promote-member'
  | 'remove-member'
  | 'force-close-session'
  | 'reset';

/** hz-cluster-cp-admin's call: GETs under `/hazelcast/rest/cp-subsystem`, POSTs with `--data "${CLUSTERNAME}&${PASSWORD}"`. */
export function cpAdminCall(port: number, op: CpOp, args: { group?: string; member?: string; session?: string; cluster?: string } = {}): Promise<RawResponse> {
  const base = '/hazelcast/rest/cp-subsystem';
  const data = `${args.cluster ?? 'dev'}&dev-pass`;
  const g = args.group ?? '';
  switch (op) {
    case 'get-local-member':
      return curl(port, `${base}/members/local`);
    case 'get-groups':
      return curl(port, `${base}/groups`);
    case 'get-group':
      return curl(port, `${base}/groups/${g}`);
    case 'get-members':
      return curl(port, `${base}/members`);
    case 'get-sessions':
      return curl(port, `${base}/groups/${g}/sessions`);
    case 'force-destroy-group':
      return curl(port, `${base}/groups/${g}/remove`, { data });
    case 'promote-member':
      return curl(port, `${base}/members`, { data, timeoutMs: 15_000 });
    case 'remove-member':
      return curl(port, `${base}/members/${args.member ?? ''}/remove`, { data, timeoutMs: 15_000 });
    case 'force-close-session':
      return curl(port, `${base}/groups/${g}/sessions/${args.session ?? ''}/remove`, { data });
    case 'reset':
      return curl(port, `${base}/reset`, { data, timeoutMs: 15_000 });
  }
}

/** Status codes each operation maps to its own exit status (anything else: 6, "Internal error!"). */
export const CP_EXITS: Record<CpOp, Readonly<Record<string, number>>> = {
  'get-local-member': { '200': 0, '404': 4 },
  'get-groups': { '200': 0 },
  'get-group': { '200': 0, '404': 4 },
  'get-members': { '200': 0 },
  'get-sessions': { '200': 0, '404': 4 },
  'force-destroy-group': { '200': 0, '400': 5, '403': 3 },
  'promote-member': { '200': 0, '403': 3 },
  'remove-member': { '200': 0, '400': 5, '403': 3 },
  'force-close-session': { '200': 0, '400': 5, '403': 3 },
  reset: { '200': 0, '403': 3 },
};

/** `response=$(curl --silent -w \n%{http_code} …)`, `json=$(… | head -n 1)`, `status_code=$(… | tail -n1)`, the exit status. */
export function cpAdminOutcome(op: CpOp, res: RawResponse): { json: string; statusCode: string; exit: number } {
  const lines = `${res.body.toString('utf8')}\n${res.status}`.replace(/\n+$/, '').split('\n');
  const statusCode = lines[lines.length - 1] ?? '';
  return { json: lines[0] ?? '', statusCode, exit: CP_EXITS[op][statusCode] ?? 6 };
}

// ---------------------------------------------------------------- the real scripts

/**
 * Where Hazelcast's real scripts are: HZ_SCRIPTS_DIR, else ~/.cache/grid/hazelcast-scripts
 * (copied there from hazelcast/hazelcast's `distribution/src/bin-filemode-755`, or from an
 * unpacked distribution's `bin/`).
 */
export function hazelcastScriptsDir(): string {
  return process.env.HZ_SCRIPTS_DIR ?? join(homedir(), '.cache', 'grid', 'hazelcast-scripts');
}

/**
 * Why the real scripts cannot run here (bash or curl missing, a script missing), or undefined;
 * the reason is printed on stderr so a skip is never silent.
 */
export function hazelcastScriptsUnavailable(scripts: readonly string[]): string | undefined {
  let reason: string | undefined;
  for (const tool of ['bash', 'curl']) {
    if (reason === undefined && spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) reason = `\`${tool}\` is not on the PATH`;
  }
  const dir = hazelcastScriptsDir();
  for (const s of scripts) if (reason === undefined && !existsSync(join(dir, s))) reason = `${join(dir, s)} is missing (set HZ_SCRIPTS_DIR to a Hazelcast distribution's bin/)`;
  if (reason !== undefined) process.stderr.write(`\n[SKIPPED] Hazelcast's scripts over HTTPS: ${reason}\n\n`);
  return reason;
}
