// How an admin command ends: its exit code and the one line it prints on stderr. Pure: the
// rules that turn a member's answer (status, X-Grid-Error) or a failed connection into a
// message and an exit code live here, so that they are unit-tested without a member.

/** The documented exit codes (docs/cli.md#exit-codes). */
export const EXIT = {
  OK: 0,
  /** Wrong flags or arguments (also commander's own usage errors). */
  USAGE: 1,
  /** No answer: connection refused, reset, timed out, host unknown. */
  CONNECTION: 2,
  /** 403: wrong credentials, or the endpoint group is disabled. */
  REFUSED: 3,
  /** Nothing there: absent key, empty queue, unknown uuid/group/session (404), CAS not applied, lock not acquired. */
  NOT_FOUND: 4,
  /** The member answered with any other error, or `"status":"fail"`, or a sync/check FAILED. */
  MEMBER_ERROR: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the command reports with `message` on stderr and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(EXIT.USAGE, message);
  }
}

/** Why a request got no HTTP answer, from node's error code. */
export interface ConnectionFailure {
  readonly code: string | undefined;
  readonly message: string;
  /** True when the socket was connected (the member closed it or did not answer in time). */
  readonly connected: boolean;
  /** Set when our own timer gave up. */
  readonly timedOutMs?: number;
}

/** The message of a request that got no answer from `address`. */
export function connectionError(address: string, addressSource: string, f: ConnectionFailure): CliError {
  const where = addressSource === 'default' ? ` (the default address; pass --address host:port or set GRID_ADDRESS)` : ` (from ${addressSource})`;
  let text: string;
  if (f.timedOutMs !== undefined && !f.connected) {
    text = `cannot connect to ${address}${where}: no connection within ${f.timedOutMs} ms`;
  } else if (f.timedOutMs !== undefined) {
    text = `no answer from ${address} within ${f.timedOutMs} ms (raise --request-timeout to wait longer)`;
  } else if (f.code === 'ECONNREFUSED') {
    text = `cannot connect to ${address}${where}: connection refused (is a member running there?)`;
  } else if (f.code === 'ENOTFOUND' || f.code === 'EAI_AGAIN') {
    text = `cannot connect to ${address}${where}: unknown host`;
  } else if (f.connected || f.code === 'ECONNRESET' || f.message === 'socket hang up') {
    // A Grid member with REST off (or no endpoint group on that port) closes HTTP connections unanswered.
    text =
      `${address} closed the connection without an answer: is REST enabled on that port ` +
      `(network.rest-api enabled="true" with endpoint groups), and is it a Grid member's port?`;
  } else {
    text = `cannot connect to ${address}${where}: ${f.message}`;
  }
  return new CliError(EXIT.CONNECTION, text);
}

export interface ErrorAnswer {
  readonly status: number;
  readonly statusText: string;
  /** The member's X-Grid-Error, if it sent one. */
  readonly reason: string | undefined;
}

/**
 * The message of an error answer to `what` (e.g. `map put orders/o-1`). `credentials` says how
 * they were given (for a 403 that refused them).
 */
export function httpError(what: string, address: string, a: ErrorAnswer, credentials: string): CliError {
  const head = `${what} failed: HTTP ${a.status}${a.statusText ? ` ${a.statusText}` : ''} from ${address}`;
  const reason = a.reason ?? '(no X-Grid-Error reason)';
  if (a.status === 403) {
    const group = /^endpoint group (\S+) is disabled/.exec(a.reason ?? '');
    if (group) {
      return new CliError(
        EXIT.REFUSED,
        `${head}: ${reason}. Enable it in the member's configuration (network.rest-api endpoint-groups: ${group[1]} enabled: true), or ask a member that has it.`,
      );
    }
    return new CliError(
      EXIT.REFUSED,
      `${head}: ${reason}. Sent: ${credentials}. With security off pass the member's cluster name ` +
        `(--cluster-name or GRID_CLUSTER_NAME); with security on a user of its client realm (--user and --password, or GRID_USER and GRID_PASSWORD).`,
    );
  }
  return new CliError(a.status === 404 ? EXIT.NOT_FOUND : EXIT.MEMBER_ERROR, `${head}: ${reason}`);
}
