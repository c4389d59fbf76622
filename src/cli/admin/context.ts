// What every admin command's action gets: its resolved settings, a REST client for the member,
// and the calls that turn answers into values or CliErrors. `runAction` wraps an action: it
// prints a CliError's message on stderr and sets the exit code (process.exitCode, so output
// already written is flushed before the process ends).

import { Option, type Command, type CommandOptions } from 'commander';
import { CliError, EXIT, httpError } from './outcome.js';
import { RestClient, type Reply, type RequestOptions } from './rest-client.js';
import {
  DEFAULT_ADDRESS,
  DEFAULT_CLUSTER_NAME,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  describeCredentials,
  paramsBody,
  resolveSettings,
  type CommonFlags,
  type Settings,
} from './settings.js';

export interface AdminEnv {
  readonly version: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/** Percent-encodes one path segment (a map name, key, uuid). */
export const seg = (s: string): string => encodeURIComponent(s);

export class Ctx {
  readonly client: RestClient;

  constructor(
    readonly settings: Settings,
    readonly io: AdminEnv,
    /** Every flag of the running command, its own included (`--file`, `--wait`, ...). */
    readonly options: Readonly<Record<string, unknown>> = {},
  ) {
    this.client = new RestClient({
      address: settings.address,
      addressSource: settings.addressSource,
      prefix: settings.prefix,
      timeoutMs: settings.requestTimeoutMs,
      userAgent: `grid-cli/${io.version}`,
      tls: settings.tls,
    });
  }

  get address(): string {
    return this.settings.address.display;
  }

  /** The running command's own flags. */
  opts<T>(): T {
    return this.options as T;
  }

  get json(): boolean {
    return this.settings.json;
  }

  /** Prints a line (a newline is added unless there is one). */
  print(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Prints `value` as one line of JSON. */
  printJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Prints the member's JSON answer as it came (one line, as the member sends it). */
  printRaw(reply: Reply): void {
    this.print(reply.body.toString('utf8'));
  }

  /**
   * One request; an answer of 400 or more becomes the CliError its status calls for (`what`
   * names the operation in the message). `allow` lists other statuses the caller handles.
   */
  async call(what: string, method: 'GET' | 'POST' | 'DELETE', path: string, o: RequestOptions & { allow?: readonly number[] } = {}): Promise<Reply> {
    const reply = await this.client.request(method, path, o);
    if (reply.status >= 400 && !(o.allow ?? []).includes(reply.status)) {
      throw httpError(what, this.address, reply, describeCredentials(this.settings));
    }
    return reply;
  }

  /** A GET whose answer is JSON. */
  async getJson<T>(what: string, path: string, o: RequestOptions = {}): Promise<{ reply: Reply; value: T }> {
    const reply = await this.call(what, 'GET', path, o);
    return { reply, value: this.parse<T>(what, reply) };
  }

  /** A parameterised POST: the credentials, then `params`, in the body. */
  async post(what: string, path: string, params: readonly string[] = [], o: RequestOptions = {}): Promise<Reply> {
    return this.call(what, 'POST', path, { ...o, body: paramsBody(this.settings, ...params), contentType: 'text/plain; charset=utf-8' });
  }

  /** A parameterised POST whose answer is JSON. */
  async postJson<T>(what: string, path: string, params: readonly string[] = []): Promise<{ reply: Reply; value: T }> {
    const reply = await this.post(what, path, params);
    return { reply, value: this.parse<T>(what, reply) };
  }

  /** `Authorization: Basic` from the credentials (GETs that need them when security is on). */
  basicAuth(): Record<string, string> {
    return { Authorization: `Basic ${Buffer.from(`${this.settings.name}:${this.settings.password}`, 'utf8').toString('base64')}` };
  }

  parse<T>(what: string, reply: Reply): T {
    try {
      return JSON.parse(reply.body.toString('utf8')) as T;
    } catch {
      throw new CliError(EXIT.MEMBER_ERROR, `${what}: ${this.address} answered HTTP ${reply.status} with a body that is not JSON: ${JSON.stringify(reply.body.toString('utf8').slice(0, 200))}`);
    }
  }

  /** A `{"status":"fail",...}` answer as a CliError (exit 5) with the member's message. */
  failed(what: string, answer: { status?: unknown; message?: unknown }): CliError {
    const message = typeof answer.message === 'string' ? answer.message : JSON.stringify(answer);
    return new CliError(EXIT.MEMBER_ERROR, `${what} failed on ${this.address}: ${message}`);
  }
}

/** Writes a CliError's message (or any other error) on stderr and sets the exit code. */
export function report(e: unknown, stderr: NodeJS.WriteStream): void {
  if (e instanceof CliError) {
    stderr.write(`grid: ${e.message}\n`);
    process.exitCode = e.exitCode;
    return;
  }
  stderr.write(`grid: unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = EXIT.USAGE;
}

let epipeHandled = false;

/**
 * The action of an admin command: settings from the command's flags (and the environment),
 * then `fn`. A reader that went away (`grid map get ... | head -c 1`) ends the process quietly.
 */
export function runAction(io: AdminEnv, fn: (ctx: Ctx, ...args: string[]) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    if (!epipeHandled) {
      epipeHandled = true;
      io.stdout.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
        throw e;
      });
    }
    // commander calls an action with its arguments, then the options, then the command.
    const cmd = args[args.length - 1] as Command;
    const positional = args.slice(0, -2).map((a) => (a === undefined ? undefined : String(a))) as string[];
    try {
      const options = cmd.opts();
      const ctx = new Ctx(resolveSettings(options as CommonFlags, io.env), io, options);
      await fn(ctx, ...positional);
    } catch (e) {
      report(e, io.stderr);
    }
  };
}

// ---------------------------------------------------------------- commands

export const EXIT_CODES_HELP =
  'Exit codes: 0 ok; 1 usage error; 2 no connection to the member; 3 refused (403: credentials or ' +
  'endpoint group); 4 not found or empty (absent key, empty queue, 404, CAS not applied, lock not ' +
  'acquired); 5 any other error answer of the member (its X-Grid-Error is printed).';

/** The width commander's help is written at: the terminal's columns, else 80. */
function helpWidthOf(cmd: Command): number {
  return cmd.configureOutput().getOutHelpWidth?.() ?? 80;
}

/** Adds the flags every admin command takes. */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('-a, --address <host:port>', `the member to talk to (env GRID_ADDRESS; default ${DEFAULT_ADDRESS})`)
    .option('--cluster-name <name>', `the member's cluster name, sent as the first credential when security is off (env GRID_CLUSTER_NAME; default ${DEFAULT_CLUSTER_NAME})`)
    .option('--user <name>', 'a user of the client realm when security is on (env GRID_USER); replaces --cluster-name')
    .option('--password <password>', 'the password (env GRID_PASSWORD; default empty); never printed')
    .option('--json', "print the member's JSON answer as it is (text answers as a JSON object), for scripts")
    .addOption(new Option('--prefix <prefix>', 'path prefix of the REST API').choices(['grid', 'hazelcast']).default('grid'))
    .option('--request-timeout <seconds>', `how long to wait for an answer (default ${DEFAULT_REQUEST_TIMEOUT_SECONDS})`)
    .option('--tls', 'talk HTTPS to the member (also: an https:// address, or any of the flags below)')
    .option('--cacert <file>', 'PEM CA certificate(s) that sign the member\'s certificate (env GRID_CACERT)')
    .option('--cert <file>', 'PEM client certificate, for a member that requires one (env GRID_CERT)')
    .option('--key <file>', 'PEM private key of --cert (env GRID_KEY)')
    .option('--insecure', 'do not check the member\'s certificate (test members only)')
    // Wrapped at the help's width (the terminal's, else 80), as commander wraps the rest.
    .addHelpText('after', () => `\n${cmd.createHelp().boxWrap(EXIT_CODES_HELP, helpWidthOf(cmd))}`);
}

/** A subcommand of `parent` with the common flags. */
export function leaf(parent: Command, nameAndArgs: string, description: string, opts?: CommandOptions): Command {
  return withCommonOptions(parent.command(nameAndArgs, opts).description(description));
}

