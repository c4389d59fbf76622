// `grid cp ...`: the CP subsystem's management (Hazelcast's /rest/cp-subsystem: groups, members,
// sessions, promotion, reset) and Grid's own CP data endpoints (/rest/cp: atomic longs as
// `counter`, fenced locks). Needs the endpoint group CP.

import { Command } from 'commander';
import { leaf, runAction, seg, type AdminEnv, type Ctx } from './context.js';
import { EXIT, UsageError } from './outcome.js';
import {
  formatCpGroup,
  formatCpGroups,
  formatCpMembers,
  formatCpSessions,
  formatCpStatus,
  formatLock,
  formatLockInfo,
  type CpGroupAnswer,
  type CpMemberAnswer,
  type CpSessionAnswer,
  type CpStatusAnswer,
  type LockAnswer,
  type LockInfoAnswer,
} from './format.js';

const MGMT = 'rest/cp-subsystem';

/** A Java long in decimal (the member checks the range). */
function longArg(text: string | undefined, what: string): string {
  const t = (text ?? '').trim();
  if (!/^[+-]?\d{1,19}$/.test(t)) throw new UsageError(`${what} must be an integer, got "${text ?? ''}"`);
  return t;
}

/**
 * Lets `cmd` take negative numbers as arguments (`grid cp counter add hits -5`): commander
 * reads `-5` as an unknown option, so such a token is handed over with a leading space (not
 * an option any more); longArg trims it.
 */
function negativeNumbersAsArguments(cmd: Command): Command {
  cmd.parseOptions = (argv: string[]) => Command.prototype.parseOptions.call(cmd, argv.map((a) => (/^-\d+$/.test(a) ? ` ${a}` : a)));
  return cmd;
}

function sessionArg(text: string | undefined): string {
  if (text === undefined || !/^[1-9]\d{0,14}$/.test(text)) throw new UsageError(`a session id must be a positive integer, got "${text ?? ''}"`);
  return text;
}

export function registerCpCommands(program: Command, io: AdminEnv): void {
  const cp = program.command('cp').description('The CP subsystem: groups, members, sessions, counters (atomic longs) and fenced locks (endpoint group CP).');

  leaf(cp, 'status', 'Raft figures of the CP groups the member asked hosts: role, term, leader, commit index (GET rest/cp).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.getJson<CpStatusAnswer>('cp status', 'rest/cp');
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatCpStatus(ctx.address, value));
    }),
  );
  leaf(cp, 'groups', 'List the CP groups.').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.getJson<{ name: string; id: number }[]>('cp groups', `${MGMT}/groups`);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatCpGroups(value));
    }),
  );
  leaf(cp, 'group <name>', 'One CP group: its id, status and members (exit 4 for an unknown group).').action(
    runAction(io, async (ctx, name) => {
      const { reply, value } = await ctx.getJson<CpGroupAnswer>(`cp group ${name}`, `${MGMT}/groups/${seg(name!)}`);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatCpGroup(value));
    }),
  );
  leaf(cp, 'members', 'List the CP members (* marks the member asked, when it is one).').action(
    runAction(io, async (ctx) => {
      const [all, local] = await Promise.all([
        ctx.getJson<CpMemberAnswer[]>('cp members', `${MGMT}/members`),
        ctx.call('cp members (local)', 'GET', `${MGMT}/members/local`, { allow: [404] }),
      ]);
      if (ctx.json) {
        ctx.printRaw(all.reply);
        return;
      }
      const me = local.status === 200 ? ctx.parse<CpMemberAnswer>('cp members (local)', local).uuid : undefined;
      ctx.print(formatCpMembers(all.value, me));
    }),
  );
  leaf(cp, 'sessions <group>', 'List the CP sessions of a group (exit 4 for an unknown group).').action(
    runAction(io, async (ctx, group) => {
      const { reply, value } = await ctx.getJson<CpSessionAnswer[]>(`cp sessions ${group}`, `${MGMT}/groups/${seg(group!)}/sessions`);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatCpSessions(group!, value));
    }),
  );
  leaf(cp, 'remove-member <uuid>', 'Remove a CP member that has left the cluster (by its CP uuid, from grid cp members).').action(
    runAction(io, async (ctx, uuid) => {
      await ctx.post(`cp remove-member ${uuid}`, `${MGMT}/members/${seg(uuid!)}/remove`);
      if (ctx.json) ctx.printJson({ status: 'success', removed: uuid });
      else ctx.print(`removed CP member ${uuid}`);
    }),
  );
  leaf(cp, 'promote', 'Promote the member at --address to a CP member.').action(
    runAction(io, async (ctx) => {
      await ctx.post('cp promote', `${MGMT}/members`);
      if (ctx.json) ctx.printJson({ status: 'success', promoted: ctx.address });
      else ctx.print(`${ctx.address} is a CP member`);
    }),
  );
  leaf(cp, 'reset', 'Wipe the CP subsystem and form it again from scratch: every CP value, lock and session is lost.').action(
    runAction(io, async (ctx) => {
      await ctx.post('cp reset', `${MGMT}/reset`);
      if (ctx.json) ctx.printJson({ status: 'success' });
      else ctx.print('CP subsystem reset: it forms again from scratch (every CP value, lock and session is gone)');
    }),
  );

  // ------------------------------------------------------------ counters (atomic longs)

  const counter = cp.command('counter').description('CP atomic longs (name or name@group); an unset counter is 0.');
  const longPath = (name: string): string => `rest/cp/atomiclongs/${seg(name)}`;
  const printLong = (ctx: Ctx, name: string, value: string): void => {
    if (ctx.json) ctx.printJson({ name, value });
    else ctx.print(value);
  };
  leaf(counter, 'get <name>', 'Print the value.').action(
    runAction(io, async (ctx, name) => {
      const reply = await ctx.call(`cp counter get ${name}`, 'GET', longPath(name!));
      printLong(ctx, name!, reply.body.toString('utf8').trim());
    }),
  );
  negativeNumbersAsArguments(leaf(counter, 'set <name> <value>', 'Set the value; prints it.')).action(
    runAction(io, async (ctx, name, value) => {
      const reply = await ctx.call(`cp counter set ${name}`, 'POST', `${longPath(name!)}/set`, { body: longArg(value, 'the value'), contentType: 'text/plain' });
      printLong(ctx, name!, reply.body.toString('utf8').trim());
    }),
  );
  negativeNumbersAsArguments(leaf(counter, 'add <name> <delta>', 'Add a delta (may be negative); prints the new value.')).action(
    runAction(io, async (ctx, name, delta) => {
      const reply = await ctx.call(`cp counter add ${name}`, 'POST', `${longPath(name!)}/addAndGet`, { body: longArg(delta, 'the delta'), contentType: 'text/plain' });
      printLong(ctx, name!, reply.body.toString('utf8').trim());
    }),
  );
  negativeNumbersAsArguments(leaf(counter, 'cas <name> <expect> <update>', 'Compare and set: prints true, or false (exit 4) when the value was not <expect>.')).action(
    runAction(io, async (ctx, name, expect, update) => {
      const body = `${longArg(expect, 'expect')}&${longArg(update, 'update')}`;
      const reply = await ctx.call(`cp counter cas ${name}`, 'POST', `${longPath(name!)}/compareAndSet`, { body, contentType: 'text/plain' });
      const applied = reply.body.toString('utf8').trim() === 'true';
      if (ctx.json) ctx.printJson({ name, applied });
      else ctx.print(String(applied));
      if (!applied) process.exitCode = EXIT.NOT_FOUND;
    }),
  );

  // ------------------------------------------------------------ fenced locks

  const lockPath = (name: string): string => `rest/cp/locks/${seg(name)}`;
  leaf(cp, 'lock <name>', 'Acquire a fenced lock (name or name@group): prints the fence and the session; exit 4 when not acquired in --timeout.')
    .option('--session <id>', 'the CP session to lock with (reentrant); default: a new session, which expires unless heartbeated')
    .option('--timeout <seconds>', 'wait at most this long (0 = try once); default: wait until acquired')
    .action(
      runAction(io, async (ctx, name) => {
        const flags = ctx.opts<{ session?: string; timeout?: string }>();
        const query: string[] = [];
        if (flags.session !== undefined) query.push(`sessionId=${sessionArg(flags.session)}`);
        let waitMs = 0;
        if (flags.timeout !== undefined) {
          if (!/^\d+(\.\d+)?$/.test(flags.timeout)) throw new UsageError(`--timeout must be a number of seconds, got "${flags.timeout}"`);
          waitMs = Math.round(Number(flags.timeout) * 1000);
          query.push(`timeoutMs=${waitMs}`);
        }
        const reply = await ctx.call(`cp lock ${name}`, 'POST', `${lockPath(name!)}/lock${query.length > 0 ? `?${query.join('&')}` : ''}`, {
          // Without --timeout the member waits until the lock is free: so does the CLI.
          timeoutMs: flags.timeout === undefined ? 0 : ctx.settings.requestTimeoutMs + waitMs,
        });
        const value = ctx.parse<LockAnswer>(`cp lock ${name}`, reply);
        if (ctx.json) ctx.printRaw(reply);
        else ctx.print(formatLock(name!, value));
        if (!value.acquired) process.exitCode = EXIT.NOT_FOUND;
      }),
    );
  leaf(cp, 'unlock <name>', 'Release one hold of a fenced lock by its session; prints the remaining lock count.')
    .requiredOption('--session <id>', 'the session that holds the lock (printed by grid cp lock)')
    .action(
      runAction(io, async (ctx, name) => {
        const session = sessionArg(ctx.opts<{ session: string }>().session);
        const reply = await ctx.call(`cp unlock ${name}`, 'POST', `${lockPath(name!)}/unlock?sessionId=${session}`);
        const value = ctx.parse<{ lockCount: number }>(`cp unlock ${name}`, reply);
        if (ctx.json) ctx.printRaw(reply);
        else ctx.print(value.lockCount === 0 ? `unlocked ${name}: it is free` : `unlocked ${name} once: session ${session} still holds it (lock count ${value.lockCount})`);
      }),
    );
  leaf(cp, 'heartbeat <group> <session>', 'Keep a CP session alive (a session that gets no lock call or heartbeat for session-time-to-live-seconds is closed, and its locks released).').action(
    runAction(io, async (ctx, group, session) => {
      const id = sessionArg(session);
      const reply = await ctx.call(`cp heartbeat ${group}/${id}`, 'POST', `rest/cp/sessions/${seg(group!)}/${id}/heartbeat`);
      const value = ctx.parse<{ sessionId: number; expirationTime: number }>(`cp heartbeat ${group}/${id}`, reply);
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(`session ${value.sessionId} of group ${group} expires at ${new Date(value.expirationTime).toISOString()} unless used again`);
    }),
  );
  leaf(cp, 'lock-info <name>', 'Whether a fenced lock is held, by which session, its fence and waiters.').action(
    runAction(io, async (ctx, name) => {
      const { reply, value } = await ctx.getJson<LockInfoAnswer>(`cp lock-info ${name}`, lockPath(name!));
      if (ctx.json) ctx.printRaw(reply);
      else ctx.print(formatLockInfo(name!, value));
    }),
  );
}
