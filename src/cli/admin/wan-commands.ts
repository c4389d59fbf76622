// `grid wan ...`: the WAN replication operations of a source member (docs/wan.md). pause,
// resume, stop and clear act on the member asked only; sync and consistency-check on the
// whole cluster, and `--wait` follows them until they end: a progress bar on a terminal,
// a line per change otherwise.

import type { Command } from 'commander';
import { leaf, runAction, seg, type AdminEnv, type Ctx } from './context.js';
import { CliError, EXIT, UsageError } from './outcome.js';
import { formatConsistency, formatWanStatus, syncProgressLine, type ConsistencyAnswer, type SyncProgressAnswer, type WanPublisherAnswer } from './format.js';

/** How often a `--wait` asks for the progress. */
const POLL_MS = 250;

const PUBLISHER_OPS = [
  ['pause', 'pausePublisher', 'Pause a publisher on the member asked: events queue up, nothing is sent.'],
  ['resume', 'resumePublisher', 'Resume a paused or stopped publisher on the member asked.'],
  ['stop', 'stopPublisher', 'Stop a publisher on the member asked: new events are dropped (a sync repairs the target).'],
  ['clear', 'clearWanQueues', "Discard the member's queued events of a publisher (a sync repairs the target)."],
] as const;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface WaitFlags {
  readonly wait?: boolean;
  readonly waitTimeout?: string;
}

function waitDeadline(flags: WaitFlags): number | undefined {
  if (flags.waitTimeout === undefined) return undefined;
  const s = Number(flags.waitTimeout);
  if (!/^\d+(\.\d+)?$/.test(flags.waitTimeout) || !(s > 0)) throw new UsageError(`--wait-timeout must be a positive number of seconds, got "${flags.waitTimeout}"`);
  return Date.now() + s * 1000;
}

/** Follows a sync until FINISHED (exit 0) or FAILED (exit 5). */
async function followSync(ctx: Ctx, uuid: string, flags: WaitFlags): Promise<void> {
  const deadline = waitDeadline(flags);
  const started = Date.now();
  const tty = ctx.io.stdout.isTTY === true && !ctx.json;
  let last = '';
  let lastTtyWidth = 0;
  for (;;) {
    const { reply, value } = await ctx.getJson<{ status: string; result: SyncProgressAnswer }>(`wan sync progress ${uuid}`, `rest/wan/sync/progress/${seg(uuid)}`);
    const p = value.result;
    const done = p.stage === 'FINISHED' || p.stage === 'FAILED';
    if (!ctx.json) {
      if (tty) {
        const line = syncProgressLine(uuid, p, Date.now() - started, true);
        ctx.io.stdout.write(`\r${line.padEnd(lastTtyWidth)}${done ? '\n' : ''}`);
        lastTtyWidth = line.length;
      } else {
        const key = `${p.stage} ${p.progress}`;
        if (key !== last || done) ctx.print(syncProgressLine(uuid, p, Date.now() - started, false));
        last = key;
      }
    }
    if (done) {
      if (ctx.json) ctx.printRaw(reply);
      if (p.stage === 'FAILED') throw new CliError(EXIT.MEMBER_ERROR, `sync ${uuid} FAILED (a source member may have left during it: run it again)`);
      return;
    }
    if (deadline !== undefined && Date.now() >= deadline) {
      if (tty) ctx.io.stdout.write('\n');
      throw new CliError(EXIT.MEMBER_ERROR, `sync ${uuid} still ${p.stage} (${p.progress}%) after --wait-timeout ${flags.waitTimeout} s; it goes on: grid wan progress ${uuid} --wait`);
    }
    await sleep(POLL_MS);
  }
}

/** Follows a consistency check until FINISHED or FAILED; prints its result. */
async function followCheck(ctx: Ctx, uuid: string, flags: WaitFlags): Promise<void> {
  const deadline = waitDeadline(flags);
  let last = '';
  for (;;) {
    const { reply, value } = await ctx.getJson<{ status: string; result: ConsistencyAnswer }>(`wan consistency check ${uuid}`, `rest/wan/consistencyCheck/${seg(uuid)}`);
    const r = value.result;
    const done = r.stage === 'FINISHED' || r.stage === 'FAILED';
    if (!flags.wait || done) {
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatConsistency(uuid, r));
      if (r.stage === 'FAILED') throw new CliError(EXIT.MEMBER_ERROR, `consistency check ${uuid} FAILED${r.failure !== undefined ? `: ${r.failure}` : ''}`);
      return;
    }
    if (!ctx.json && r.stage !== last) ctx.print(`consistency check ${uuid.slice(0, 8)}: ${r.stage}, ${r.partitionsChecked} partitions checked`);
    last = r.stage;
    if (deadline !== undefined && Date.now() >= deadline) {
      throw new CliError(EXIT.MEMBER_ERROR, `consistency check ${uuid} still ${r.stage} after --wait-timeout ${flags.waitTimeout} s; it goes on: grid wan check-result ${uuid} --wait`);
    }
    await sleep(POLL_MS);
  }
}

const withWait = (cmd: Command, what: string): Command =>
  cmd.option('--wait', `follow the ${what} until it ends (FINISHED: exit 0; FAILED: exit 5)`).option('--wait-timeout <seconds>', 'give up waiting after this long (exit 5; it goes on)');

export function registerWanCommands(program: Command, io: AdminEnv): void {
  const wan = program.command('wan').description('WAN replication: publishers of the member asked, syncs and consistency checks (endpoint group WAN).');

  leaf(wan, 'status', "The member's WAN publishers: state, endpoints, queue, lag (GET rest/wan, group CLUSTER_READ).").action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.getJson<{ publishers: WanPublisherAnswer[] }>('wan status', 'rest/wan');
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatWanStatus(ctx.address, value.publishers));
    }),
  );

  for (const [name, op, description] of PUBLISHER_OPS) {
    leaf(wan, `${name} <replication> [publisher]`, `${description} The publisher id may be left out when the replication has one.`).action(
      runAction(io, async (ctx, replication, publisher) => {
        const { reply, value } = await ctx.postJson<{ status: string; message?: string }>(`wan ${name}`, `rest/wan/${op}`, [replication!, publisher ?? '']);
        if (value.status !== 'success') throw ctx.failed(`wan ${name}`, value);
        if (ctx.json) ctx.printRaw(reply);
        else ctx.print(`${ctx.address}: ${value.message ?? 'done'} (${replication}${publisher !== undefined ? `/${publisher}` : ''})`);
      }),
    );
  }

  withWait(
    leaf(wan, 'sync <replication> [publisher]', 'Send the current content of a map (--map) or of every replicated map (--all-maps) to the target.')
      .option('--map <name>', 'the map to sync')
      .option('--all-maps', 'sync every map that refers to the replication'),
    'sync',
  ).action(
    runAction(io, async (ctx, replication, publisher) => {
      const flags = ctx.opts<WaitFlags & { map?: string; allMaps?: boolean }>();
      if ((flags.map === undefined) === (flags.allMaps !== true)) throw new UsageError('give --map <name> or --all-maps (one of them)');
      const pub = publisher ?? '';
      const { reply, value } =
        flags.map !== undefined
          ? await ctx.postJson<{ status: string; uuid?: string; message?: string }>('wan sync', 'rest/wan/sync/map', [replication!, pub, flags.map])
          : await ctx.postJson<{ status: string; uuid?: string; message?: string }>('wan sync', 'rest/wan/sync/allmaps', [replication!, pub]);
      if (value.status !== 'success' || value.uuid === undefined) throw ctx.failed('wan sync', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`sync of ${flags.map !== undefined ? `map ${flags.map}` : 'every replicated map'} through ${replication}${publisher !== undefined ? `/${publisher}` : ''} started: ${value.uuid}`);
      if (flags.wait === true) await followSync(ctx, value.uuid, flags);
      else if (!ctx.json) ctx.print(`follow it with: grid wan progress ${value.uuid} --wait`);
    }),
  );

  withWait(
    leaf(wan, 'consistency-check <replication> [publisher]', "Compare a map's Merkle trees with the target's (needs consistency-check-strategy MERKLE_TREES).").requiredOption(
      '--map <name>',
      'the map to check',
    ),
    'check',
  ).action(
    runAction(io, async (ctx, replication, publisher) => {
      const flags = ctx.opts<WaitFlags & { map: string }>();
      const { reply, value } = await ctx.postJson<{ status: string; uuid?: string; message?: string }>('wan consistency-check', 'rest/wan/consistencyCheck/map', [
        replication!,
        publisher ?? '',
        flags.map,
      ]);
      if (value.status !== 'success' || value.uuid === undefined) throw ctx.failed('wan consistency-check', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`consistency check of map ${flags.map} through ${replication}${publisher !== undefined ? `/${publisher}` : ''} started: ${value.uuid}`);
      if (flags.wait === true) await followCheck(ctx, value.uuid, flags);
      else if (!ctx.json) ctx.print(`see its result with: grid wan check-result ${value.uuid} --wait`);
    }),
  );

  withWait(leaf(wan, 'progress <uuid>', 'The progress of a sync (or of a consistency check) by its uuid.'), 'sync').action(
    runAction(io, async (ctx, uuid) => {
      const flags = ctx.opts<WaitFlags>();
      if (flags.wait === true) {
        await followSync(ctx, uuid!, flags);
        return;
      }
      const { reply, value } = await ctx.getJson<{ status: string; result: SyncProgressAnswer }>(`wan progress ${uuid}`, `rest/wan/sync/progress/${seg(uuid!)}`);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(syncProgressLine(uuid!, value.result, undefined, false));
    }),
  );

  withWait(leaf(wan, 'check-result <uuid>', 'The result of a consistency check by its uuid.'), 'check').action(
    runAction(io, async (ctx, uuid) => followCheck(ctx, uuid!, ctx.opts<WaitFlags>())),
  );
}
