// `grid wan ...` as an operator runs it (a child process of bin/grid.js) against two real
// clusters: A (one member, WAN group on) replicates map `orders` to B (one member, WAN group
// off) through `to-b`/`B` with Merkle-tree consistency checks. Checks the human and --json
// output and the exit codes, the publisher state and the target's content through REST, and
// `sync --wait` on a terminal (through script(1), when present) and off one.

import { execFileSync, spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster.js';
import { GRID_BIN, cleanEnv, spawnGrid } from '../support/process.js';
import { endpointsOf, get, launch, merkleMap, publisherOn, put, replicatedMap, reserveCluster, wanReplication, configOf } from '../support/wan.js';

const REP = 'to-b';
const ID = 'B';
const MAP = 'orders';

let a: Cluster;
let b: Cluster;
let failed = false;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function grid(args: readonly string[], on: Cluster = a, timeoutMs = 20_000): Promise<Run> {
  const name = args.includes('--cluster-name') ? [] : ['--cluster-name', on.clusterName];
  const p = spawnGrid([...args, '--address', `127.0.0.1:${on.member(0).port}`, ...name], { env: cleanEnv() });
  const { code } = await p.exited(timeoutMs);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

async function ok(args: readonly string[]): Promise<string> {
  const r = await grid(args);
  expect({ code: r.code, stderr: r.stderr }, `grid ${args.join(' ')}`).toEqual({ code: 0, stderr: '' });
  return r.stdout;
}

async function fails(args: readonly string[], code: number, message: RegExp, on: Cluster = a): Promise<void> {
  const r = await grid(args, on);
  expect({ code: r.code, stdout: r.stdout }, `grid ${args.join(' ')}: ${r.stderr}`).toEqual({ code, stdout: '' });
  expect(r.stderr).toMatch(/^grid: .+\n$/);
  expect(r.stderr).toMatch(message);
}

const state = async (): Promise<string> => (await publisherOn(a, 0, REP, ID)).state;

const hasScript = ((): boolean => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('grid wan against a source and a target cluster', () => {
  beforeAll(async () => {
    // B: the harness's groups (DATA, CLUSTER_READ, CLUSTER_WRITE, HEALTH_CHECK), WAN off.
    b = await Cluster.create({ size: 1, clusterName: 'B', scope: 'file', config: () => merkleMap(`${MAP}*`) });
    a = await reserveCluster(
      'A',
      1,
      () =>
        configOf(
          wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints: endpointsOf(b, 1), extra: { sync: { 'consistency-check-strategy': 'MERKLE_TREES' } } }),
          replicatedMap(`${MAP}*`, REP, { merkle: true }),
        ),
      { scope: 'file' },
    );
    await Promise.all([b.waitUp(0), launch(a, 1)]);
  }, 60_000);

  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    await Promise.all([a?.destroy({ keepFiles: failed, report: failed }), b?.destroy({ keepFiles: failed, report: failed })]);
  });

  it('wan status: a row per publisher of the member asked; --json is GET rest/wan as it is', async () => {
    await put(a, 0, MAP, 'k0', 'v0');
    await expect.poll(async () => (await get(b, 0, MAP, 'k0')).body, { timeout: 10_000 }).toBe('v0');
    const out = await ok(['wan', 'status']);
    const lines = out.split('\n');
    expect(lines[0]).toBe(`WAN publishers on 127.0.0.1:${a.member(0).port} (figures of this member only):`);
    expect(lines[2]).toMatch(/^REPLICATION\s+PUBLISHER\s+TARGET\s+STATE\s+ENDPOINTS\s+QUEUE\s+BACKUP\s+LAG\s+ACKED\s+DROPPED$/);
    expect(lines[3]).toMatch(new RegExp(`^to-b\\s+B\\s+B\\s+REPLICATING\\s+127\\.0\\.0\\.1:${b.member(0).port} up\\s+0/10000\\s+0\\s+0 ms\\s+\\d+\\s+0$`));
    const json = JSON.parse(await ok(['wan', 'status', '--json'])) as { publishers: { wanReplicationName: string; eventsAcknowledged: number }[] };
    expect(json.publishers).toHaveLength(1);
    expect(json.publishers[0]!.wanReplicationName).toBe(REP);
    expect(json.publishers[0]!.eventsAcknowledged).toBeGreaterThanOrEqual(1);
    // B has no publishers.
    const r = await grid(['wan', 'status'], b);
    expect(r).toEqual({ code: 0, stdout: `127.0.0.1:${b.member(0).port} has no WAN publishers.\n`, stderr: '' });
  });

  it('wan pause/resume/stop/clear act on the publisher (id optional with one publisher); errors carry the member\'s reason', async () => {
    expect(await ok(['wan', 'pause', REP, ID])).toBe(`127.0.0.1:${a.member(0).port}: WAN publisher paused (to-b/B)\n`);
    expect(await state()).toBe('PAUSED');
    expect(JSON.parse(await ok(['wan', 'resume', REP, '--json']))).toEqual({ status: 'success', message: 'WAN publisher resumed' });
    expect(await state()).toBe('REPLICATING');
    expect(await ok(['wan', 'stop', REP])).toMatch(/: WAN publisher stopped \(to-b\)\n$/);
    expect(await state()).toBe('STOPPED');
    expect(await ok(['wan', 'clear', REP, ID])).toMatch(/: WAN replication queues are cleared\. \(to-b\/B\)\n$/);
    expect(await ok(['wan', 'resume', REP, ID])).toMatch(/WAN publisher resumed/);
    expect(await state()).toBe('REPLICATING');

    await fails(['wan', 'pause', 'nope'], 5, /^grid: wan pause failed: HTTP 400 Bad Request from 127\.0\.0\.1:\d+: unknown WAN replication "nope"/);
    // The WAN endpoint group is off on B.
    await fails(['wan', 'pause', REP], 3, /HTTP 403 Forbidden from .*: endpoint group WAN is disabled\. Enable it in the member's configuration/, b);
    const wrong = await grid(['wan', 'pause', REP, ID, '--cluster-name', 'B']);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/first parameter must be the cluster name\. Sent: cluster name "B" \(from --cluster-name\)/);
  });

  it('wan sync --map --wait off a terminal: a line per change, FINISHED at 100%; the target gets what a stopped publisher dropped', async () => {
    expect(await ok(['wan', 'stop', REP])).toMatch(/stopped/);
    try {
      for (let k = 1; k <= 20; k++) await put(a, 0, MAP, `s${k}`, `v${k}`);
    } finally {
      await ok(['wan', 'resume', REP]);
    }
    expect((await get(b, 0, MAP, 's1')).status).toBe(204);

    const started = Date.now();
    const out = await ok(['wan', 'sync', REP, ID, '--map', MAP, '--wait']);
    const lines = out.trimEnd().split('\n');
    expect(out).not.toContain('\r');
    expect(lines[0]).toMatch(/^sync of map orders through to-b\/B started: ([0-9a-f-]{36})$/);
    const uuid = /started: (\S+)$/.exec(lines[0]!)![1]!;
    for (const l of lines.slice(1)) expect(l).toMatch(new RegExp(`^sync ${uuid.slice(0, 8)} \\(to-b/B\\): (STARTED|IN_PROGRESS|FINISHED) \\d+% after \\d+\\.\\d s$`));
    expect(lines[lines.length - 1]).toMatch(/: FINISHED 100% after/);
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const k of [1, 20]) expect((await get(b, 0, MAP, `s${k}`)).body).toBe(`v${k}`);

    // The same sync by uuid, and --json: the start answer, then (with --wait) the final progress, one JSON line each.
    expect(await ok(['wan', 'progress', uuid])).toBe(`sync ${uuid.slice(0, 8)} (to-b/B): FINISHED 100%\n`);
    const json = (await ok(['wan', 'sync', REP, '--all-maps', '--wait', '--json'])).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({ status: 'success', message: 'Sync initiated' });
    expect(json[1]).toMatchObject({ status: 'success', result: { stage: 'FINISHED', progress: 100, wanReplicationName: REP, wanPublisherId: ID } });

    // Without --wait: the uuid and how to follow it.
    const bare = await ok(['wan', 'sync', REP, '--map', MAP]);
    expect(bare).toMatch(/^sync of map orders through to-b started: \S+\nfollow it with: grid wan progress \S+ --wait\n$/);

    const usage = await grid(['wan', 'sync', REP]);
    expect(usage).toMatchObject({ code: 1, stdout: '' });
    expect(usage.stderr).toMatch(/give --map <name> or --all-maps/);
    await fails(['wan', 'progress', '00000000-0000-4000-8000-000000000000'], 4, /HTTP 404 Not Found from .*: no WAN sync or consistency check with uuid 00000000-0000-4000-8000-000000000000/);
  });

  it.skipIf(!hasScript)('wan sync --wait on a terminal draws a progress bar that ends at 100%', async () => {
    const cmd = [process.execPath, GRID_BIN, 'wan', 'sync', REP, '--map', MAP, '--wait', '--address', `127.0.0.1:${a.member(0).port}`, '--cluster-name', 'A'];
    const quoted = cmd.map((x) => `'${x.replace(/'/g, `'\\''`)}'`).join(' ');
    const p = spawn('script', ['-qec', quoted, '/dev/null'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((r) => p.once('close', (c) => r(c)));
    expect(code, out).toBe(0);
    expect(out).toContain('\r[');
    expect(out).toMatch(/\[#{30}\] 100% {2}FINISHED {5}sync [0-9a-f]{8} \(to-b\/B\)/);
  });

  it('wan consistency-check --wait prints the result; check-result reads it again by uuid', async () => {
    // B differs behind A's back.
    await put(b, 0, MAP, 's1', 'changed on B');
    const out = await ok(['wan', 'consistency-check', REP, ID, '--map', MAP, '--wait']);
    const uuid = /^consistency check of map orders through to-b\/B started: (\S+)\n/.exec(out)?.[1];
    expect(uuid, out).toBeDefined();
    expect(out).toContain(`consistency check ${uuid!} of map orders through to-b/B: FINISHED\npartitions checked 271, differing 1; leaves checked `);
    expect(out).toMatch(/entries to sync [1-9]\d*\n$/);
    const again = JSON.parse(await ok(['wan', 'check-result', uuid!, '--json'])) as { status: string; result: { stage: string; partitionsDiffering: number } };
    expect(again).toMatchObject({ status: 'success', result: { stage: 'FINISHED', partitionsDiffering: 1 } });
    await fails(['wan', 'consistency-check', REP, ID, '--map', 'unreplicated'], 5, /HTTP 400 Bad Request/);
    const usage = await grid(['wan', 'consistency-check', REP]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/required option '--map <name>'/);
  });
});
