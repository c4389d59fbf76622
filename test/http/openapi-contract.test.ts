// The OpenAPI document against a live member: Schemathesis (PyPI, pinned in
// scripts/schemathesis-env.mjs, installed into a cache venv on first use) drives every
// documented operation of /grid/ with schema-generated requests and fails on an undocumented
// status, a body that does not match its schema, a wrong or missing Content-Type, or a 5xx.
// `npm run test:contract-long` runs it with more examples and both prefixes.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { schemathesisBin } from '../../scripts/schemathesis-env.mjs';
import { restConfig, startMember } from '../support/member.js';

const run = promisify(execFile);
const LONG = process.env.GRID_CONTRACT_LONG === '1';

/**
 * Left out of the fuzz, each for a reason (the rest of the document is driven):
 * - they end or freeze the member, or change what every later request answers:
 *   clusterShutdown, memberShutdown, changeState, POST cluster/version, forceStart, partialStart,
 *   POST tcp-ip/member-list (dials made-up members), POST log-level (FINEST floods the run);
 * - they drop data or stop replication for good: CP reset and removals, clearWanQueues,
 *   stopPublisher, pausePublisher;
 * - their documented answer here is a 500 "not enabled" (CP needs 3 members, TLS is off), which
 *   Schemathesis counts as a server error: /rest/cp*, tls/reload (their statuses are covered by
 *   test/cp and test/tls);
 * - the change streams (maps/<map>/events, queues/<queue>/events) never end: every example waits
 *   out the request timeout (10 s; 90 s of the run for the two), and Schemathesis checks no more
 *   than a 200 there (test/http/change-streams and queue-streams cover them, 400s included).
 */
const EXCLUDED = 'Shutdown|changeState|cluster/version|forceStart|partialStart|tcp-ip/member-list|log-level|/remove$|/reset$|clearWanQueues|stopPublisher|pausePublisher|/rest/cp|tls/reload|/events$';

let bin: string | undefined;
let missing: string | undefined;
try {
  bin = schemathesisBin();
} catch (e) {
  missing = (e as Error).message;
}

const work = mkdtempSync(join(tmpdir(), 'grid-openapi-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function schemathesis(schema: string, base: string, include: string, examples: number): Promise<{ code: number; out: string }> {
  const args = [
    'run', schema, '--url', base,
    '--include-path-regex', include, '--exclude-path-regex', EXCLUDED,
    // Basic credentials for the cluster `dev` (security off): credential endpoints get past the check.
    '--auth', 'dev:',
    '--max-examples', String(examples), '--seed', '1', '--workers', '2', '--request-timeout', '10',
    '--checks', 'all',
    // The first two judge whether the member accepts what the schema allows: bodies are free
    // text and positional parameters, which no JSON Schema states; statuses and shapes are
    // checked. unsupported_method wants 405 for TRACE and the like, where the contract (and
    // Hazelcast) answer 400 "syntax not known" (grid-behavior.md §3).
    '--exclude-checks', 'positive_data_acceptance,negative_data_rejection,unsupported_method',
    '--phases', LONG ? 'examples,coverage,fuzzing' : 'examples,fuzzing', '--no-color',
  ];
  try {
    const { stdout } = await run(bin!, args, { timeout: 240_000, maxBuffer: 64 << 20, cwd: work, env: { ...process.env, SCHEMATHESIS_HOOKS: '' } });
    return { code: 0, out: stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: `${err.stdout ?? ''}\n${err.stderr ?? ''}` };
  }
}

describe.skipIf(bin === undefined)(`the OpenAPI document against a live member${missing === undefined ? '' : ` (skipped: ${missing})`}`, () => {
  it('holds for every operation Schemathesis drives, and a wrong document fails the same run', { timeout: LONG ? 900_000 : 120_000 }, async () => {
    const { base } = await startMember(restConfig(undefined, { 'cluster-name': 'dev' }));
    const live = await schemathesis(`${base}/grid/openapi.json`, base, LONG ? '^/(grid|hazelcast)/' : '^/grid/', LONG ? 200 : 8);
    expect(live.code, live.out.slice(-6000)).toBe(0);
    expect(live.out).toMatch(/Tested: [1-9]\d+/);

    // The same check can fail: a document that leaves out GET /rest/cluster's 200 and the
    // Content-Type of /rest/instance is caught.
    const doc = (await (await fetch(`${base}/grid/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    delete doc.paths['/grid/rest/cluster']!.get!.responses['200'];
    doc.paths['/grid/rest/instance']!.get!.responses['200'] = { description: 'x', content: { 'text/plain': { schema: { type: 'string' } } } };
    const file = join(work, 'wrong.json');
    writeFileSync(file, JSON.stringify(doc));
    const wrong = await schemathesis(file, base, '^/grid/rest/(cluster|instance)$', 3);
    expect(wrong.code, wrong.out.slice(-3000)).not.toBe(0);
    expect(wrong.out).toMatch(/ST103 Undocumented status code/);
    expect(wrong.out).toMatch(/ST105 /);
  });
});
