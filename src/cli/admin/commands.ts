// The admin commands of `grid` (docs/cli.md): they talk to one member over its REST API, like
// etcdctl. This module registers them on the commander program and holds the cluster, member,
// map, queue and log-level commands; WAN and CP are in wan-commands.ts and cp-commands.ts.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { leaf, runAction, seg, type AdminEnv, type Ctx } from './context.js';
import { CliError, EXIT, UsageError } from './outcome.js';
import { formatStatus, type ClusterAnswer, type HealthAnswer, type PartitionsAnswer } from './format.js';
import { registerWanCommands } from './wan-commands.js';
import { registerCpCommands } from './cp-commands.js';
import { registerTlsCommands } from './tls-commands.js';

/** A value from the argument, or from `--file` (`-` = stdin); one of the two is required. */
export function valueOf(value: string | undefined, file: string | undefined, what: string): Buffer {
  if (value !== undefined && file !== undefined) throw new UsageError(`give the ${what} as an argument or with --file, not both`);
  if (file !== undefined) {
    try {
      return readFileSync(file === '-' ? 0 : file);
    } catch (e) {
      throw new UsageError(`cannot read ${file === '-' ? 'stdin' : file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (value === undefined) throw new UsageError(`missing the ${what}: give it as an argument, or with --file <path> (- for stdin)`);
  return Buffer.from(value, 'utf8');
}

/** A stored value on stdout: its bytes as they are (a newline added on a terminal only, for the prompt). */
function printValue(ctx: Ctx, body: Buffer): void {
  ctx.io.stdout.write(body);
  if (ctx.io.stdout.isTTY && (body.length === 0 || body[body.length - 1] !== 0x0a)) ctx.io.stdout.write('\n');
}

function contentTypeOf(reply: { headers: Record<string, string | string[] | undefined> }): string | null {
  const ct = reply.headers['content-type'];
  return typeof ct === 'string' ? ct : null;
}

function wholeSeconds(text: string, what: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`${what} must be a whole number of seconds, got "${text}"`);
  return Number(text);
}

// ---------------------------------------------------------------- status, cluster, member

function registerClusterCommands(program: Command, io: AdminEnv): void {
  leaf(program, 'status', 'Show the cluster as a member sees it: members, cluster state, safety, partitions per member.').action(
    runAction(io, async (ctx) => {
      const [health, cluster, partitions] = await Promise.all([
        ctx.getJson<HealthAnswer>('status (GET health)', 'health'),
        ctx.getJson<ClusterAnswer>('status (GET rest/cluster)', 'rest/cluster'),
        ctx.getJson<PartitionsAnswer>('status (GET rest/partitions)', 'rest/partitions'),
      ]);
      if (ctx.json) ctx.printJson({ health: health.value, cluster: cluster.value, partitions: partitions.value });
      else ctx.print(formatStatus(health.value, cluster.value, partitions.value));
    }),
  );

  const cluster = program.command('cluster').description('Cluster-wide state, shutdown and version (any member can be asked).');
  leaf(cluster, 'state', 'Print the cluster state (ACTIVE, NO_MIGRATION, FROZEN, PASSIVE).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.postJson<{ status: string; state?: string; message?: string }>('cluster state', 'rest/management/cluster/state');
      if (value.status !== 'success') throw ctx.failed('cluster state', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print((value.state ?? '').toUpperCase());
    }),
  );
  leaf(cluster, 'change-state <state>', 'Change the cluster state: ACTIVE, NO_MIGRATION, FROZEN or PASSIVE (any case). Already in that state: exit 0, nothing changed.').action(
    runAction(io, async (ctx, state) => {
      const { reply, value } = await ctx.postJson<{ status: string; state?: string; message?: string }>('cluster change-state', 'rest/management/cluster/changeState', [state!]);
      // "fail" with a state is the member's answer when the cluster already is in that state.
      if (value.status !== 'success' && value.state === undefined) throw ctx.failed('cluster change-state', value);
      if (ctx.json) ctx.printRaw(reply);
      else if (value.status === 'success') ctx.print(`cluster state changed to ${(value.state ?? state!).toUpperCase()}`);
      else ctx.print(`cluster state already ${(value.state ?? state!).toUpperCase()}: nothing changed`);
    }),
  );
  leaf(cluster, 'shutdown', 'Shut the whole cluster down (PASSIVE, then every member stops; no partition hand-off).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.postJson<{ status: string; message?: string }>('cluster shutdown', 'rest/management/cluster/clusterShutdown');
      if (value.status !== 'success') throw ctx.failed('cluster shutdown', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`cluster shutdown requested through ${ctx.address}: every member stops now`);
    }),
  );
  leaf(cluster, 'version', 'Print the cluster version (major.minor).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.getJson<{ status: string; version?: string; message?: string }>('cluster version', 'rest/management/cluster/version');
      if (value.status !== 'success') throw ctx.failed('cluster version', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(value.version ?? '');
    }),
  );

  const member = program.command('member').description('The member at --address.');
  leaf(member, 'shutdown', 'Shut the member at --address down gracefully (it hands its partitions over first).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.postJson<{ status: string; message?: string }>('member shutdown', 'rest/management/cluster/memberShutdown');
      if (value.status !== 'success') throw ctx.failed('member shutdown', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`member ${ctx.address} is shutting down`);
    }),
  );
}

// ---------------------------------------------------------------- maps and queues

function registerDataCommands(program: Command, io: AdminEnv): void {
  const map = program.command('map').description('Read and write map entries (endpoint group DATA).');
  leaf(map, 'get <map> <key>', 'Print the value of a key, byte for byte (exit 4 when the key has no value).').action(
    runAction(io, async (ctx, name, key) => {
      const reply = await ctx.call(`map get ${name}/${key}`, 'GET', `rest/maps/${seg(name!)}/${seg(key!)}`);
      if (reply.status === 204) {
        // A script reading --json gets an answer it can parse; the exit code still says "absent".
        if (ctx.json) ctx.printJson({ map: name, key, value: null, contentType: null });
        throw new CliError(EXIT.NOT_FOUND, `map ${name} has no entry for key ${JSON.stringify(key)}`);
      }
      if (ctx.json) ctx.printJson({ map: name, key, value: reply.body.toString('utf8'), contentType: contentTypeOf(reply) });
      else printValue(ctx, reply.body);
    }),
  );
  leaf(map, 'put <map> <key> [value]', 'Create or replace an entry. The value is the argument, or --file (- for stdin).')
    .option('--file <path>', 'read the value from a file (- for stdin), byte for byte')
    .option('--content-type <type>', 'the Content-Type stored with the value', 'text/plain')
    .action(
      runAction(io, async (ctx, name, key, value) => {
        const opts = ctx.opts<{ file?: string; contentType: string }>();
        const body = valueOf(value, opts.file, 'value');
        await ctx.call(`map put ${name}/${key}`, 'POST', `rest/maps/${seg(name!)}/${seg(key!)}`, { body, contentType: opts.contentType });
        if (ctx.json) ctx.printJson({ map: name, key, status: 'success' });
        else ctx.print(`put ${name}/${key} (${body.length} byte${body.length === 1 ? '' : 's'}, ${opts.contentType})`);
      }),
    );
  leaf(map, 'delete <map> <key>', 'Remove an entry (exit 0 whether or not it existed).').action(
    runAction(io, async (ctx, name, key) => {
      await ctx.call(`map delete ${name}/${key}`, 'DELETE', `rest/maps/${seg(name!)}/${seg(key!)}`);
      if (ctx.json) ctx.printJson({ map: name, key, status: 'success' });
      else ctx.print(`deleted ${name}/${key}`);
    }),
  );
  leaf(map, 'clear <map>', 'Remove every entry of a map.').action(
    runAction(io, async (ctx, name) => {
      await ctx.call(`map clear ${name}`, 'DELETE', `rest/maps/${seg(name!)}`);
      if (ctx.json) ctx.printJson({ map: name, status: 'success' });
      else ctx.print(`cleared map ${name}`);
    }),
  );

  const queue = program.command('queue').description('Offer, poll and count queue items (endpoint group DATA).');
  leaf(queue, 'offer <queue> [item]', 'Offer an item. The item is the argument, or --file (- for stdin). A full queue is exit 5.')
    .option('--file <path>', 'read the item from a file (- for stdin), byte for byte')
    .option('--content-type <type>', 'the Content-Type stored with the item', 'text/plain')
    .action(
      runAction(io, async (ctx, name, item) => {
        const opts = ctx.opts<{ file?: string; contentType: string }>();
        const body = valueOf(item, opts.file, 'item');
        await ctx.call(`queue offer ${name}`, 'POST', `rest/queues/${seg(name!)}`, { body, contentType: opts.contentType });
        if (ctx.json) ctx.printJson({ queue: name, status: 'success' });
        else ctx.print(`offered to ${name} (${body.length} byte${body.length === 1 ? '' : 's'})`);
      }),
    );
  leaf(queue, 'poll <queue>', 'Take the head item and print it, byte for byte (exit 4 when none came in time).')
    .option('--timeout <seconds>', 'wait up to this long for an item', '0')
    .action(
      runAction(io, async (ctx, name) => {
        const seconds = wholeSeconds(ctx.opts<{ timeout: string }>().timeout, '--timeout');
        const reply = await ctx.call(`queue poll ${name}`, 'DELETE', `rest/queues/${seg(name!)}/${seconds}`, {
          timeoutMs: ctx.settings.requestTimeoutMs + seconds * 1000,
        });
        if (reply.status === 204) {
          if (ctx.json) ctx.printJson({ queue: name, value: null, contentType: null });
          throw new CliError(EXIT.NOT_FOUND, `queue ${name} gave no item within ${seconds} s`);
        }
        if (ctx.json) ctx.printJson({ queue: name, value: reply.body.toString('utf8'), contentType: contentTypeOf(reply) });
        else printValue(ctx, reply.body);
      }),
    );
  leaf(queue, 'size <queue>', 'Print the number of items.').action(
    runAction(io, async (ctx, name) => {
      const reply = await ctx.call(`queue size ${name}`, 'GET', `rest/queues/${seg(name!)}/size`);
      const size = reply.body.toString('utf8').trim();
      if (ctx.json) ctx.printJson({ queue: name, size: Number(size) });
      else ctx.print(size);
    }),
  );
}

// ---------------------------------------------------------------- log level

function registerLogLevelCommands(program: Command, io: AdminEnv): void {
  const logLevel = program
    .command('log-level')
    .description("The member's log level (Hazelcast names: OFF, SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST, ALL). Without a subcommand: print it.");
  leaf(logLevel, 'get', 'Print the level set at run time, or that the configured level is in force.', { isDefault: true }).action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.getJson<{ logLevel: string | null }>('log-level', 'rest/log-level', { headers: ctx.basicAuth() });
      if (ctx.json) ctx.printRaw(reply);
      else if (value.logLevel === null) ctx.print(`${ctx.address}: no run-time level set; the configured level (hazelcast.logging.level) is in force`);
      else ctx.print(`${ctx.address}: ${value.logLevel} (set at run time; grid log-level reset goes back to the configured level)`);
    }),
  );
  leaf(logLevel, 'set <level>', 'Set the level of the member at --address until it stops (or a reset).').action(
    runAction(io, async (ctx, level) => {
      const { reply, value } = await ctx.postJson<{ status: string; message?: string }>('log-level set', 'rest/log-level', [level!]);
      if (value.status !== 'success') throw ctx.failed('log-level set', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`${ctx.address}: log level set to ${level!.toUpperCase()}`);
    }),
  );
  leaf(logLevel, 'reset', 'Go back to the configured level.').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.postJson<{ status: string; message?: string }>('log-level reset', 'rest/log-level/reset');
      if (value.status !== 'success') throw ctx.failed('log-level reset', value);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`${ctx.address}: log level reset to the configured level`);
    }),
  );
}

/** Registers every admin command on `program`. */
export function registerAdminCommands(program: Command, io: AdminEnv): void {
  registerClusterCommands(program, io);
  registerDataCommands(program, io);
  registerLogLevelCommands(program, io);
  registerWanCommands(program, io);
  registerCpCommands(program, io);
  registerTlsCommands(program, io);
}
