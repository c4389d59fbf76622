// The `grid` command. `grid start` runs a member in the foreground until SIGTERM/SIGINT (or a
// REST shutdown, or its stdout reader going away); `grid validate` checks a config file and
// prints what Grid understood.

import { Command, Help, Option } from 'commander';
import { isGridError } from './core/errors.js';
import { LOG_LEVEL_NAMES, parseLogLevel, prettyDestination, stdoutDestination, type DestinationStream } from './core/logger.js';
import {
  ConfigError,
  defaultConfig,
  findConfigFile,
  listenPlan,
  loadConfigFile,
  tlsPlan,
  type GridConfig,
  type SslConfig,
  type ConfigLoadResult,
  type LoadOptions,
} from './config/index.js';
import { GRID_VERSION, Member } from './member/member.js';
import { registerAdminCommands } from './cli/admin/commands.js';
import { loadTlsMaterial } from './net/tls/tls-material.js';

/** The flags `grid start` and `grid validate` share: where the config comes from and how much is said about it. */
interface ConfigFlags {
  config?: string;
  property?: string[];
  port?: string;
  verbose?: boolean;
  quiet?: boolean;
}

interface StartFlags extends ConfigFlags {
  logLevel?: string;
  startEmpty?: boolean;
  logFormat?: 'auto' | 'pretty' | 'json';
}

/** A usage mistake: said on stderr, exit 2 like an invalid config. */
function usage(message: string): never {
  process.stderr.write(`grid: ${message}\n`);
  process.exit(2);
}

function loadOptions(flags: ConfigFlags): LoadOptions {
  const properties = new Map<string, string>();
  for (const p of flags.property ?? []) {
    const eq = p.indexOf('=');
    if (eq <= 0) usage(`--property wants name=value, got "${p}"`);
    properties.set(p.slice(0, eq).trim(), p.slice(eq + 1));
  }
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = /^\d{1,5}$/.test(flags.port) ? Number(flags.port) : NaN;
    if (!(port >= 1 && port <= 65535)) usage(`--port must be an integer 1-65535, got "${flags.port}"`);
  }
  return { properties, ...(port !== undefined ? { port } : {}) };
}

/** The config file named by the positional argument or --config (not both), else the usual search. */
function loadFor(file: string | undefined, flags: ConfigFlags): ConfigLoadResult {
  if (file !== undefined && flags.config !== undefined && file !== flags.config) {
    usage(`two configuration files given ("${file}" and --config "${flags.config}"); give one`);
  }
  const explicit = file ?? flags.config;
  const opts = loadOptions(flags);
  const found = findConfigFile({ ...(explicit !== undefined ? { explicit } : {}), env: process.env, cwd: process.cwd() });
  return found === undefined ? defaultConfig(process.env, opts) : loadConfigFile(found, process.env, opts);
}

/**
 * The warnings to show: none with --quiet; with --verbose the unused elements one by one
 * instead of their one-line summary.
 */
function shownWarnings(loaded: Pick<ConfigLoadResult, 'warnings' | 'unused'>, flags: ConfigFlags, source: string): string[] {
  if (flags.quiet === true) return [];
  if (flags.verbose !== true || loaded.unused.length === 0) return [...loaded.warnings];
  return [
    ...loaded.warnings.filter((w) => !w.startsWith(`${source}: not used by Grid: `)),
    ...loaded.unused.map((path) => `${source}: ${path}: accepted but not used by Grid`),
  ];
}

function fail(e: unknown, flags: ConfigFlags = {}): never {
  if (e instanceof ConfigError && flags.quiet !== true) {
    // Warnings still count when there are errors: an unresolved placeholder often explains one.
    for (const w of e.warnings) process.stderr.write(`warning: ${w}\n`);
  }
  const message = isGridError(e) || e instanceof Error ? e.message : String(e);
  process.stderr.write(`grid: ${message}\n`);
  process.exit(isGridError(e) && e.code === 'CONFIG_INVALID' ? 2 : 1);
}

/**
 * Where logs go: stdout, as JSON lines (the default when stdout is not a terminal, and with
 * --log-format json) or one readable line each (on a terminal, or --log-format pretty).
 * pino-pretty is only loaded for the latter. `onClosed` runs once when stdout's reader is gone (EPIPE).
 */
async function logOutput(format: StartFlags['logFormat'], onClosed: () => void): Promise<DestinationStream> {
  const out = stdoutDestination();
  let closed = false;
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (e.code === 'EPIPE') onClosed();
    else process.stderr.write(`grid: writing logs to stdout failed (${e.code ?? e.message}); logs are dropped from now on\n`);
  });
  const pretty = format === 'pretty' || ((format ?? 'auto') === 'auto' && process.stdout.isTTY === true);
  if (!pretty) return out;
  const colorize = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  return prettyDestination(out, { colorize });
}

async function start(file: string | undefined, flags: StartFlags): Promise<void> {
  // A reader of stderr that went away (`grid start 2>&1 | head`) is no reason to crash.
  process.stderr.on('error', () => undefined);
  let level = undefined as ReturnType<typeof parseLogLevel>;
  if (flags.logLevel !== undefined) {
    level = parseLogLevel(flags.logLevel);
    if (level === undefined) usage(`--log-level must be one of ${LOG_LEVEL_NAMES.join(', ')}, got "${flags.logLevel}"`);
  }
  let loaded: ConfigLoadResult;
  try {
    loaded = loadFor(file, flags);
  } catch (e) {
    fail(e, flags);
  }
  // --log-level is the configured level (the one the log-level endpoint's reset returns to).
  const config = level === undefined ? loaded.config : { ...loaded.config, tuning: { ...loaded.config.tuning, logLevel: level } };
  // Signals are handled from the moment the member exists: a start can wait long (a restart
  // from persisted data waits for its cluster), and Ctrl-C then still stops it gracefully.
  let created: Member | undefined;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1 || created === undefined) {
      process.stderr.write(`grid: ${sig}${signals > 1 ? ' again' : ''}, exiting now\n`);
      process.exit(130);
    }
    created.logger.info({ signal: sig }, 'signal received, shutting down gracefully');
    void created.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // SIGHUP re-reads the TLS files (certificate rotation); without TLS it only says so.
  process.on('SIGHUP', () => {
    if (created === undefined) return;
    if (!created.tls.enabled) created.logger.info('SIGHUP: TLS is off, nothing to reload');
    else created.reloadTls('SIGHUP');
  });
  // The reader of the logs went away (`grid start | head`): stop gracefully, as on SIGTERM, and exit 0.
  const onStdoutClosed = (): void => {
    process.stderr.write('grid: standard output was closed; stopping the member gracefully\n');
    if (created === undefined) process.exit(0);
    signals++;
    void created.stop();
  };
  // Under npm (`npm start`, `npx grid`, `npm exec`) the member is the child of a `sh -c` that npm
  // starts, and npm forwards SIGTERM to that shell only: the shell dies and the member would run
  // on, orphaned, after its wrapper was told to stop. A member started by npm therefore stops
  // gracefully, as on SIGTERM, once the process that started it is gone. Nothing else follows its
  // parent: `grid start &` from a shell that exits, or under nohup, keeps running.
  if (startedByNpm(process.env)) {
    followParent(() => {
      if (signals > 0) return; // already stopping (Ctrl-C reaches npm, its shell and the member alike)
      process.stderr.write('grid: the npm process that started this member is gone; stopping the member gracefully\n');
      if (created === undefined) process.exit(0);
      signals++;
      created.logger.info({ parentPid: process.ppid }, 'parent process gone (npm was stopped), shutting down gracefully');
      void created.stop();
    });
  }
  const logDestination = await logOutput(flags.logFormat, onStdoutClosed);
  const configWarnings = shownWarnings(loaded, flags, config.source);
  let member: Member;
  try {
    member = await Member.start({
      config,
      configWarnings,
      logDestination,
      onCreated: (m) => (created = m),
      startEmpty: flags.startEmpty === true,
    });
  } catch (e) {
    if (created?.isStopping() === true && signals > 0) process.exit(0);
    fail(e);
  }
  if (member.isStopping()) {
    // Stopped while starting (a shutdown asked during a restart from persisted data).
    await member.stopped;
    process.exit(0);
  }
  // The banner is for people: it goes to stderr, so stdout carries nothing but log lines (`grid start | jq`).
  process.stderr.write(`${banner(member, config, configWarnings.length)}\n`);
  await member.stopped;
  process.exit(0);
}

/** npm sets `npm_command` for everything it runs: `npm start`, `npm exec`/`npx`, `npm run`. */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env.npm_command !== undefined && env.npm_command !== '';
}

/**
 * Calls `onGone` once when this process's parent exits. Node has no parent-death signal, so the
 * parent pid is read every 250 ms (a getppid(2) call); an orphan gets a new parent (init or a
 * subreaper), whatever its pid.
 */
function followParent(onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, 250);
  timer.unref();
}

function banner(member: Member, config: ConfigLoadResult['config'], configWarnings: number): string {
  const bind = config.network.bindHost;
  const host = bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  const prefix = `http://${host}:${member.restPort}/hazelcast`;
  const lines = [`Grid ${GRID_VERSION} member ${member.address} (instance ${member.instanceName}) is running; config: ${config.source}.`];
  const tcpIp = config.network.join.tcpIp;
  lines.push(
    tcpIp.enabled && tcpIp.members.length > 0
      ? `Cluster "${config.clusterName}": looking for members at ${tcpIp.members.join(', ')} (tcp-ip).`
      : `Cluster "${config.clusterName}": standing alone (tcp-ip join is off).`,
  );
  if (member.restPort > 0) {
    lines.push(`REST on port ${member.restPort}, endpoint groups: ${[...member.restGroups()].join(', ')}. Try:`);
    if (member.restGroups().has('DATA')) {
      lines.push(`  curl -i -X POST -H 'Content-Type: text/plain' -d 'hello' ${prefix}/rest/maps/greetings/en`);
      lines.push(`  curl -i ${prefix}/rest/maps/greetings/en`);
    }
    if (member.restGroups().has('HEALTH_CHECK')) lines.push(`  curl ${prefix}/health`);
    lines.push('(curl -i shows the X-Grid-Error header that says why a request failed; error bodies are empty.)');
  } else {
    lines.push('REST is disabled (network.rest-api enabled="false").');
  }
  if (configWarnings > 0) {
    // They are logged with the member's other warnings (stdout); the banner only points at them.
    lines.push(`The configuration has ${configWarnings} warning(s): the WARNING "config: ..." lines of the log; \`grid validate\` prints them too.`);
  }
  lines.push('Stop with Ctrl-C or SIGTERM (a graceful leave).');
  return lines.join('\n');
}

function validate(file: string | undefined, flags: ConfigFlags): void {
  // `grid validate x.yaml | head -1` is no reason to crash.
  process.stdout.on('error', () => undefined);
  try {
    const loaded = loadFor(file, flags);
    const { config } = loaded;
    for (const w of shownWarnings(loaded, flags, config.source)) process.stdout.write(`warning: ${w}\n`);
    const plan = listenPlan(config);
    const memberPort = plan.memberPort;
    const rest =
      plan.restGroups.size === 0
        ? 'REST disabled'
        : `REST ${plan.restPort !== undefined ? `on port ${plan.restPort.port}` : 'on the member port'}, groups ${[...plan.restGroups].join(', ')}`;
    // The TLS files are opened and checked as `grid start` does (the same sentences, exit 2).
    const tlsLines = checkTlsFiles(config);
    process.stdout.write(
      // With auto-increment the member takes the first free port of a range: say the range, in words.
      `${config.source}: valid. cluster-name ${config.clusterName}, member port ${memberPort.port}` +
        `${memberPort.autoIncrement && memberPort.portCount > 1 ? `-${Math.min(65535, memberPort.port + memberPort.portCount - 1)} (the first free one; auto-increment)` : ''}, ${rest}, ` +
        `${config.maps.length} map config(s), ${config.queues.length} queue config(s)\n`,
    );
    for (const line of tlsLines) process.stdout.write(`${line}\n`);
  } catch (e) {
    fail(e, flags);
  }
}

/**
 * Reads every `ssl` element's key, certificates and trust material as a member's start does
 * (loadTlsMaterial: wrong paths and passwords, a key that is not its certificate's, an expired
 * certificate each throw the sentence start prints) and says what each endpoint will present.
 */
function checkTlsFiles(config: GridConfig): string[] {
  const plan = tlsPlan(config.network, config.advancedNetwork);
  const endpoints = new Map<SslConfig, string[]>();
  for (const [name, ssl] of [['member', plan.member], ['rest', plan.rest], ['wan', plan.wan]] as const) {
    if (ssl !== undefined) endpoints.set(ssl, [...(endpoints.get(ssl) ?? []), name]);
  }
  const lines: string[] = [];
  for (const [ssl, names] of endpoints) {
    const m = loadTlsMaterial(ssl);
    const days = Math.floor((m.notAfter.getTime() - Date.now()) / 86_400_000);
    lines.push(
      `TLS (${names.join(', ')}): ${ssl.protocol}, mutual authentication ${ssl.mutualAuthentication}, ` +
        `certificate ${m.subject.replace(/\n/g, ', ')} valid until ${m.notAfter.toISOString()} (${days} day(s) left)`,
    );
  }
  return lines;
}

/**
 * A help line: the term, then its description wrapped beside it, as commander does; but where
 * the terms are so wide that fewer than `minWidthToWrap` columns are left beside them (the `wan`
 * and `cp` commands: `consistency-check [options] <replication> [publisher]`), commander gives
 * up wrapping and prints lines past the terminal's edge. Then the description goes under its
 * term instead, indented and wrapped at the terminal width.
 */
function formatHelpItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const indent = '      ';
  if (description === '' || width - termWidth - 4 >= helper.minWidthToWrap || width - indent.length < helper.minWidthToWrap) {
    return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  }
  return `  ${term}\n${indent}${helper.boxWrap(description, width - indent.length).replace(/\n/g, `\n${indent}`)}`;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The options `start` and `validate` share. */
function configOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'configuration file (.xml, .yaml or .yml), Hazelcast schema; or give it as the argument')
    .option('-D, --property <name=value>', 'fill ${name} placeholders of the config file (before environment variables); repeatable', collect)
    .option('--port <port>', 'member port (over the file and HZ_NETWORK_PORT_PORT)')
    .option('--verbose', 'list every Hazelcast element Grid accepts but does not use, by path')
    .option('--quiet', 'hide configuration warnings');
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command();
  // Set before any subcommand exists: commander copies it to each one as it is created.
  program.configureHelp({ formatItem: formatHelpItem });
  program
    .name('grid')
    .description('Grid: a clustered in-memory data grid with a Hazelcast-compatible REST API.')
    .version(GRID_VERSION);
  configOptions(
    program
      .command('start')
      .description(
        'Run a member in the foreground. Config: the file argument or --config FILE, else $GRID_CONFIG, else the first of ' +
          'grid.xml, grid.yaml, grid.yml, hazelcast.xml, hazelcast.yaml, hazelcast.yml in the working directory, else built-in ' +
          'defaults. HZ_* and GRID_* environment variables override settings (e.g. HZ_NETWORK_PORT_PORT=5801). Logs go to ' +
          'stdout (JSON lines unless stdout is a terminal), the start banner to stderr. SIGTERM or SIGINT stops it gracefully.',
      )
      .argument('[file]', 'configuration file (same as --config)'),
  )
    .option('--log-level <level>', `log level: ${LOG_LEVEL_NAMES.join(', ')} (over hazelcast.logging.level)`)
    .addOption(
      new Option('--log-format <format>', 'log lines: json, pretty (one readable line each), auto = pretty on a terminal')
        .choices(['auto', 'pretty', 'json'])
        .default('auto'),
    )
    .option(
      '--start-empty',
      "with persistence: start without this port's persisted data, in a new directory under base-dir (the data stays there, unused); " +
        'for when a start is refused because a live process holds that data',
    )
    .action((file: string | undefined, opts: StartFlags) => start(file, opts));
  configOptions(
    program
      .command('validate')
      .description('Check a configuration file (same search order as start) and print what Grid understood.')
      .argument('[file]', 'configuration file'),
  ).action((file: string | undefined, opts: ConfigFlags) => validate(file, opts));
  registerAdminCommands(program, { version: GRID_VERSION, env: process.env, stdout: process.stdout, stderr: process.stderr });
  await program.parseAsync([...argv]);
}
