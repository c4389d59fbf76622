// The `grid` command. `grid start` runs a member in the foreground until SIGTERM/SIGINT (or a
// REST shutdown); `grid validate` checks a config file and prints what Grid understood.

import { Command } from 'commander';
import { isGridError } from './core/errors.js';
import { defaultConfig, findConfigFile, listenPlan, loadConfigFile, type ConfigLoadResult } from './config/index.js';
import { GRID_VERSION, Member } from './member/member.js';
import { registerAdminCommands } from './cli/admin/commands.js';

function loadFor(explicit: string | undefined): ConfigLoadResult {
  const file = findConfigFile({ ...(explicit !== undefined ? { explicit } : {}), env: process.env, cwd: process.cwd() });
  return file === undefined ? defaultConfig(process.env) : loadConfigFile(file, process.env);
}

function fail(e: unknown): never {
  const message = isGridError(e) || e instanceof Error ? e.message : String(e);
  process.stderr.write(`grid: ${message}\n`);
  process.exit(isGridError(e) && e.code === 'CONFIG_INVALID' ? 2 : 1);
}

async function start(opts: { config?: string }): Promise<void> {
  let loaded: ConfigLoadResult;
  try {
    loaded = loadFor(opts.config);
  } catch (e) {
    fail(e);
  }
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
  let member: Member;
  try {
    member = await Member.start({ config: loaded.config, configWarnings: loaded.warnings, onCreated: (m) => (created = m) });
  } catch (e) {
    if (created?.isStopping() === true && signals > 0) process.exit(0);
    fail(e);
  }
  if (member.isStopping()) {
    // Stopped while starting (a shutdown asked during a restart from persisted data).
    await member.stopped;
    process.exit(0);
  }
  const bind = loaded.config.network.bindHost;
  const host = bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  const prefix = `http://${host}:${member.restPort}/hazelcast`;
  const lines = [`Grid ${GRID_VERSION} member ${member.address} (instance ${member.instanceName}) is running; config: ${loaded.config.source}.`];
  if (member.restPort > 0) {
    lines.push(`REST on port ${member.restPort}, endpoint groups: ${[...member.restGroups()].join(', ')}. Try:`);
    if (member.restGroups().has('DATA')) {
      lines.push(`  curl -X POST -H 'Content-Type: text/plain' -d 'hello' ${prefix}/rest/maps/greetings/en`);
      lines.push(`  curl ${prefix}/rest/maps/greetings/en`);
    }
    if (member.restGroups().has('HEALTH_CHECK')) lines.push(`  curl ${prefix}/health`);
  } else {
    lines.push('REST is disabled (network.rest-api enabled="false").');
  }
  lines.push('Stop with Ctrl-C or SIGTERM.');
  process.stdout.write(`${lines.join('\n')}\n`);

  await member.stopped;
  process.exit(0);
}

function validate(file: string | undefined): void {
  try {
    const { config, warnings } = loadFor(file);
    for (const w of warnings) process.stdout.write(`warning: ${w}\n`);
    const plan = listenPlan(config);
    const memberPort = plan.memberPort;
    const rest =
      plan.restGroups.size === 0
        ? 'REST disabled'
        : `REST ${plan.restPort !== undefined ? `on port ${plan.restPort.port}` : 'on the member port'}, groups ${[...plan.restGroups].join(', ')}`;
    process.stdout.write(
      `${config.source}: valid. cluster-name ${config.clusterName}, member port ${memberPort.port}` +
        `${memberPort.autoIncrement ? ` (+${memberPort.portCount - 1})` : ''}, ${rest}, ` +
        `${config.maps.length} map config(s), ${config.queues.length} queue config(s)\n`,
    );
  } catch (e) {
    fail(e);
  }
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command();
  program
    .name('grid')
    .description('Grid: a clustered in-memory data grid with a Hazelcast-compatible REST API.')
    .version(GRID_VERSION);
  program
    .command('start')
    .description(
      'Run a member in the foreground. Config: --config FILE, else $GRID_CONFIG, else the first of grid.xml, grid.yaml, ' +
        'grid.yml, hazelcast.xml, hazelcast.yaml, hazelcast.yml in the working directory, else built-in defaults. ' +
        'HZ_* and GRID_* environment variables override settings (e.g. HZ_NETWORK_PORT_PORT=5801). ' +
        'SIGTERM or SIGINT stops it gracefully.',
    )
    .option('-c, --config <file>', 'configuration file (.xml, .yaml or .yml), Hazelcast schema')
    .action((opts: { config?: string }) => start(opts));
  program
    .command('validate')
    .description('Check a configuration file (same search order as start) and print what Grid understood.')
    .argument('[file]', 'configuration file')
    .action((file: string | undefined) => validate(file));
  registerAdminCommands(program, { version: GRID_VERSION, env: process.env, stdout: process.stdout, stderr: process.stderr });
  await program.parseAsync([...argv]);
}
